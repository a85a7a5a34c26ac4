/* natter-search-provider.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "natter-clock.h"
#include "natter-session-index.h"
#include "natter-search-index.h"

G_BEGIN_DECLS

/**
 * NATTER_SEARCH_PROVIDER_MAX_RESULTS:
 *
 * The most ids one search returns. The Shell shows only a handful; more
 * would be read from the index and sent over the bus for nothing.
 */
#define NATTER_SEARCH_PROVIDER_MAX_RESULTS 20

/**
 * NATTER_SEARCH_PROVIDER_INTERFACE:
 *
 * The D-Bus interface the provider implements.
 */
#define NATTER_SEARCH_PROVIDER_INTERFACE "org.gnome.Shell.SearchProvider2"

#define NATTER_TYPE_SEARCH_PROVIDER (natter_search_provider_get_type ())

G_DECLARE_FINAL_TYPE (NatterSearchProvider, natter_search_provider, NATTER, SEARCH_PROVIDER, GObject)

NatterSearchProvider *natter_search_provider_new             (NatterSessionIndex   *index);

NatterSessionIndex   *natter_search_provider_get_index       (NatterSearchProvider *self);
void                  natter_search_provider_set_index       (NatterSearchProvider *self,
                                                              NatterSessionIndex   *index);
void                  natter_search_provider_set_search_index (NatterSearchProvider *self,
                                                               NatterSearchIndex    *search);
void                  natter_search_provider_set_application (NatterSearchProvider *self,
                                                              GApplication         *application);

gboolean              natter_search_provider_register        (NatterSearchProvider *self,
                                                              GDBusConnection      *connection,
                                                              const char           *object_path,
                                                              GError              **error);
void                  natter_search_provider_unregister      (NatterSearchProvider *self);

GPtrArray            *natter_search_provider_search          (NatterSearchProvider *self,
                                                              const char * const   *terms,
                                                              const char * const   *previous);
const char           *natter_search_provider_get_hit_turn   (NatterSearchProvider *self,
                                                             const char           *session_id);
char                 *natter_search_provider_describe        (NatterSearchProvider    *self,
                                                              NatterSessionIndexEntry *entry);

G_END_DECLS
