/* natter-model-library.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The models installed on a provider's server: listed from any
 * OpenAI-compatible server, pulled, described and deleted on Ollama
 * through its own API (docs/runtime.md §13).
 */

#pragma once

#include "natter-model-info.h"
#include "natter-model-pull.h"
#include "natter-openai-provider.h"

G_BEGIN_DECLS

/**
 * NatterModelServerKind:
 * @NATTER_MODEL_SERVER_UNKNOWN: not asked yet, or the server could not
 *   be reached
 * @NATTER_MODEL_SERVER_OLLAMA: Ollama: `GET /api/version` beside the
 *   OpenAI API answered with a version; models can be pulled and deleted
 * @NATTER_MODEL_SERVER_OPENAI: any other OpenAI-compatible server: its
 *   `/models` are listed, nothing more
 *
 * What the server behind a provider is, as far as its models go.
 */
typedef enum
{
  NATTER_MODEL_SERVER_UNKNOWN,
  NATTER_MODEL_SERVER_OLLAMA,
  NATTER_MODEL_SERVER_OPENAI,
} NatterModelServerKind;

#define NATTER_TYPE_MODEL_LIBRARY (natter_model_library_get_type ())
G_DECLARE_FINAL_TYPE (NatterModelLibrary, natter_model_library, NATTER, MODEL_LIBRARY, GObject)

NatterModelLibrary    *natter_model_library_new           (NatterOpenaiProvider  *provider);
NatterOpenaiProvider  *natter_model_library_get_provider  (NatterModelLibrary    *self);
const char            *natter_model_library_get_native_root (NatterModelLibrary  *self);
NatterModelServerKind  natter_model_library_get_kind      (NatterModelLibrary    *self);

void                   natter_model_library_list_async    (NatterModelLibrary    *self,
                                                           GCancellable          *cancellable,
                                                           GAsyncReadyCallback    callback,
                                                           gpointer               user_data);
GPtrArray             *natter_model_library_list_finish   (NatterModelLibrary    *self,
                                                           GAsyncResult          *result,
                                                           GError               **error);

void                   natter_model_library_show_async    (NatterModelLibrary    *self,
                                                           const char            *name,
                                                           GCancellable          *cancellable,
                                                           GAsyncReadyCallback    callback,
                                                           gpointer               user_data);
NatterModelInfo       *natter_model_library_show_finish   (NatterModelLibrary    *self,
                                                           GAsyncResult          *result,
                                                           GError               **error);

void                   natter_model_library_delete_async  (NatterModelLibrary    *self,
                                                           const char            *name,
                                                           GCancellable          *cancellable,
                                                           GAsyncReadyCallback    callback,
                                                           gpointer               user_data);
gboolean               natter_model_library_delete_finish (NatterModelLibrary    *self,
                                                           GAsyncResult          *result,
                                                           GError               **error);

void                   natter_model_library_pull_async    (NatterModelLibrary    *self,
                                                           const char            *name,
                                                           GCancellable          *cancellable,
                                                           GAsyncReadyCallback    callback,
                                                           gpointer               user_data);
NatterModelPull       *natter_model_library_pull_finish   (NatterModelLibrary    *self,
                                                           GAsyncResult          *result,
                                                           GError               **error);

G_END_DECLS
