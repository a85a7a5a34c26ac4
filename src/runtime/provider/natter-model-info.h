/* natter-model-info.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a server says about one of its models (docs/runtime.md §13).
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterModelInfo:
 * @name: the model's name, as messages name it ("llama3.2:latest")
 * @size: its size on the server's disk in bytes; -1 when the server
 *   does not say (an OpenAI-compatible `/models` list)
 * @parameter_size: the parameter count in the server's words ("8.0B"),
 *   or %NULL
 * @parameter_count: the exact parameter count (Ollama's `/api/show`), 0
 *   when not known
 * @quantization: the quantization level ("Q4_K_M"), or %NULL
 * @family: the model family ("llama"), or %NULL
 * @context_length: the context window it was trained for, in tokens
 *   (Ollama's `/api/show`); 0 when not known
 * @modified: (nullable): when it was last pulled or changed, in UTC
 * @digest: (nullable): the server's digest of the model
 *
 * One model of a server: Ollama's `/api/tags` entry (with `/api/show`'s
 * exact parameter count where asked), or an OpenAI-compatible `/models`
 * entry, which names it and may say when it was created.
 */
typedef struct
{
  char      *name;
  gint64     size;
  char      *parameter_size;
  gint64     parameter_count;
  char      *quantization;
  char      *family;
  gint64     context_length;
  GDateTime *modified;
  char      *digest;
} NatterModelInfo;

#define NATTER_TYPE_MODEL_INFO (natter_model_info_get_type ())

GType            natter_model_info_get_type   (void) G_GNUC_CONST;
NatterModelInfo *natter_model_info_new        (const char            *name);
NatterModelInfo *natter_model_info_copy       (const NatterModelInfo *info);
void             natter_model_info_free       (NatterModelInfo       *info);
NatterModelInfo *natter_model_info_from_tag   (JsonObject            *entry);
NatterModelInfo *natter_model_info_from_openai (JsonObject           *entry);
void             natter_model_info_add_show   (NatterModelInfo       *info,
                                               JsonObject            *show);
JsonNode        *natter_model_info_to_json    (const NatterModelInfo *info);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterModelInfo, natter_model_info_free)

G_END_DECLS
