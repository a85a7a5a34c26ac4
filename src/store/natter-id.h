/* natter-id.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "natter-types.h"
#include "natter-clock.h"

G_BEGIN_DECLS

/**
 * NATTER_ID_LENGTH:
 *
 * The length in bytes of every turn and session id,
 * e.g. `2026-11-30T09-14-03Z-0000042-000`.
 */
#define NATTER_ID_LENGTH 32

#define NATTER_TYPE_ID_GENERATOR (natter_id_generator_get_type ())

G_DECLARE_FINAL_TYPE (NatterIdGenerator, natter_id_generator, NATTER, ID_GENERATOR, GObject)

NatterIdGenerator *natter_id_generator_new            (NatterClock        *clock);
char              *natter_id_generator_next           (NatterIdGenerator  *self);

gboolean           natter_id_validate                 (const char         *id,
                                                       GError            **error);
gboolean           natter_id_read_digits              (const char         *s,
                                                       guint               n,
                                                       guint              *out);
char              *natter_id_partition                (const char         *id);
gboolean           natter_id_validate_field           (const char         *member,
                                                       const char         *value,
                                                       GError            **error);
const char        *natter_id_require_field            (JsonObject         *object,
                                                       const char         *member,
                                                       GError            **error);

G_END_DECLS
