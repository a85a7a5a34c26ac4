/* natter-json-array-reader.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct _NatterJsonArrayReader NatterJsonArrayReader;

NatterJsonArrayReader *natter_json_array_reader_new        (GInputStream          *stream,
                                                            gsize                  max_element_size);
void                   natter_json_array_reader_free       (NatterJsonArrayReader *self);
gboolean               natter_json_array_reader_next       (NatterJsonArrayReader *self,
                                                            JsonNode             **element,
                                                            GCancellable          *cancellable,
                                                            GError               **error);
gboolean               natter_json_array_reader_is_broken  (NatterJsonArrayReader *self);
guint                  natter_json_array_reader_get_index  (NatterJsonArrayReader *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterJsonArrayReader, natter_json_array_reader_free)

G_END_DECLS
