/* natter-stream-keep.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words of an answer still streaming, kept beside the logs so that a
 * killed process or a power cut loses at most the last moment of them:
 * docs/format.md §11.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

/**
 * NATTER_STREAMS_DIR_NAME:
 *
 * The folder at the top of the data directory that holds the words of
 * the answers streaming (docs/format.md §11). Never synchronised: only
 * the device that streamed an answer resumes its turn on its own.
 */
#define NATTER_STREAMS_DIR_NAME "streams"

#define NATTER_TYPE_STREAM_KEEP (natter_stream_keep_get_type ())

G_DECLARE_FINAL_TYPE (NatterStreamKeep, natter_stream_keep, NATTER, STREAM_KEEP, GObject)

NatterStreamKeep *natter_stream_keep_new            (GFile             *data_dir);
void              natter_stream_keep_save           (NatterStreamKeep  *self,
                                                     const char        *turn_id,
                                                     guint              model_call_index,
                                                     JsonNode          *partial);
void              natter_stream_keep_forget         (NatterStreamKeep  *self,
                                                     const char        *turn_id);
gboolean          natter_stream_keep_is_busy        (NatterStreamKeep  *self);
JsonNode         *natter_stream_keep_load_sync      (NatterStreamKeep  *self,
                                                     const char        *turn_id,
                                                     guint              model_call_index,
                                                     GError           **error);
gboolean          natter_stream_keep_sweep_sync     (NatterStreamKeep  *self,
                                                     NatterJsonlRepo   *turn_repo,
                                                     guint             *out_removed,
                                                     GCancellable      *cancellable,
                                                     GError           **error);
void              natter_stream_keep_refuse_writes  (NatterStreamKeep  *self,
                                                     const GError      *refusal);

G_END_DECLS
