/* natter-json.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Lossless JSON: the one check used at every append and every read
 * (dsh-session.md: the log is the source of truth, so the invariant is
 * enforced at the source; docs/runtime.md §2).
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-store-error.h"

G_BEGIN_DECLS

gboolean    natter_json_check_lossless     (JsonNode     *node,
                                            GError      **error);
char       *natter_json_to_text            (JsonNode     *node,
                                            gboolean      pretty,
                                            gsize        *length);
char       *natter_json_to_line            (JsonNode     *node,
                                            gsize        *length,
                                            GError      **error);
JsonNode   *natter_json_from_line          (const char   *line,
                                            gssize        length,
                                            GError      **error);
gboolean    natter_json_parser_load_external (JsonParser *parser,
                                              const char *data,
                                              gssize      length,
                                              GError    **error);

JsonNode   *natter_json_require_member     (JsonObject   *object,
                                            const char   *member,
                                            GError      **error);
const char *natter_json_require_string     (JsonObject   *object,
                                            const char   *member,
                                            GError      **error);
const char *natter_json_require_nonempty_string (JsonObject *object,
                                                 const char *member,
                                                 GError    **error);
gboolean    natter_json_optional_string    (JsonObject   *object,
                                            const char   *member,
                                            const char  **out_value,
                                            GError      **error);
const char *natter_json_loose_string       (JsonObject   *object,
                                            const char   *member);
gboolean    natter_json_require_int        (JsonObject   *object,
                                            const char   *member,
                                            gint64       *out_value,
                                            GError      **error);
gboolean    natter_json_require_boolean    (JsonObject   *object,
                                            const char   *member,
                                            gboolean     *out_value,
                                            GError      **error);
JsonObject *natter_json_require_object     (JsonObject   *object,
                                            const char   *member,
                                            GError      **error);
JsonArray  *natter_json_require_array      (JsonObject   *object,
                                            const char   *member,
                                            GError      **error);
const char *natter_json_require_enum       (JsonObject   *object,
                                            const char   *member,
                                            const char * const *allowed,
                                            GError      **error);
const char *natter_json_require_timestamp  (JsonObject   *object,
                                            const char   *member,
                                            GError      **error);
gboolean    natter_json_is_timestamp       (const char   *value);

G_END_DECLS
