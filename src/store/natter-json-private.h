/* natter-json-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The two halves of natter_json_from_line(), exposed for the differential
 * tests, the fuzzer and the benchmark: the fast single-pass parser of
 * canonical lines (natter-json-line.c) and the reference strict read it
 * must agree with (json-glib's JsonParser, then regenerate and compare).
 */

#pragma once

#include "natter-json.h"

G_BEGIN_DECLS

/**
 * NATTER_JSON_MAX_DEPTH:
 *
 * The deepest nesting of arrays and objects a stored value may have (`[]`
 * is depth 1). json-glib's parser, generator and node destructor all
 * recurse once per level, so a deeper line could exhaust a worker
 * thread's stack; natter_json_check_lossless() refuses such a value at
 * append and natter_json_from_line() refuses such a line at read.
 */
#define NATTER_JSON_MAX_DEPTH 512

JsonNode *natter_json_line_parse          (const char  *line,
                                           gsize        length,
                                           gboolean    *out_too_deep);
guint     natter_json_line_nesting        (const char  *line,
                                           gsize        length);
JsonNode *natter_json_from_line_reference (const char  *line,
                                           gssize       length,
                                           GError     **error);

G_END_DECLS
