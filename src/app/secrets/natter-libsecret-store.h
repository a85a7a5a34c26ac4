/* natter-libsecret-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <libsecret/secret.h>

#include "natter-secret-store.h"

G_BEGIN_DECLS

/**
 * NATTER_API_KEY_SCHEMA_NAME:
 *
 * The libsecret schema of API keys; its one attribute, `provider`, holds
 * a configured provider's id or an ad-hoc endpoint's URL.
 */
#define NATTER_API_KEY_SCHEMA_NAME "io.github.natter.Natter.ApiKey"

#define NATTER_TYPE_LIBSECRET_STORE (natter_libsecret_store_get_type ())

G_DECLARE_FINAL_TYPE (NatterLibsecretStore, natter_libsecret_store, NATTER, LIBSECRET_STORE, GObject)

const SecretSchema *natter_libsecret_store_get_schema (void);
NatterSecretStore  *natter_libsecret_store_new        (void);

G_END_DECLS
