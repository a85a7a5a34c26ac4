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

/**
 * NATTER_JSON_MAX_DEPTH:
 *
 * The deepest nesting of arrays and objects a stored value may have (`[]`
 * is depth 1). json-glib's parser, generator and node destructor all
 * recurse once per level, so a deeper line could exhaust a worker
 * thread's stack; natter_json_check_lossless() refuses such a value at
 * append, natter_json_from_line() refuses such a line at read, and
 * natter_json_parse() refuses such a document from outside before
 * json-glib sees it.
 */
#define NATTER_JSON_MAX_DEPTH 512

/**
 * NATTER_JSON_DOCUMENT_MAX_DEPTH:
 *
 * The deepest nesting a document from outside may have
 * (natter_json_parser_load()): the log reader's %NATTER_JSON_MAX_DEPTH,
 * and 8 levels more, since such a document may hold stored values a few
 * levels down (an archive holds each event four levels down). json-glib
 * recursing 520 levels is as safe as 512.
 */
#define NATTER_JSON_DOCUMENT_MAX_DEPTH (NATTER_JSON_MAX_DEPTH + 8)

gboolean    natter_json_check_lossless     (JsonNode     *node,
                                            GError      **error);
guint       natter_json_node_depth         (JsonNode     *node);
char       *natter_json_to_text            (JsonNode     *node,
                                            gboolean      pretty,
                                            gsize        *length);
char       *natter_json_to_output_text     (JsonNode     *node,
                                            gboolean      pretty);
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

gboolean    natter_json_parser_load        (JsonParser   *parser,
                                            const char   *text,
                                            gssize        length,
                                            GError      **error);
JsonNode   *natter_json_parse              (const char   *text,
                                            gssize        length,
                                            GError      **error);

void        natter_json_array_add_copies  (JsonArray    *to,
                                            JsonArray    *from);
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
JsonObject *natter_json_loose_object       (JsonObject   *object,
                                            const char   *member);
char       *natter_json_content_text       (JsonNode     *content,
                                            const char   *part_end);
gboolean    natter_json_require_int        (JsonObject   *object,
                                            const char   *member,
                                            gint64       *out_value,
                                            GError      **error);
gboolean    natter_json_require_int_at_least (JsonObject *object,
                                              const char *member,
                                              gint64      minimum,
                                              gint64     *out_value,
                                              GError    **error);
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
JsonArray  *natter_json_require_string_list (JsonObject   *object,
                                             const char   *member,
                                             gboolean      nonempty_strings,
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
