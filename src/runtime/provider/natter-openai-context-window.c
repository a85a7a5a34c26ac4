/* natter-openai-context-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How large a model's context window is, as far as its server says
 * (docs/sessions.md §5): the model's entry in `GET {baseUrl}/models`
 * when it carries `max_model_len` (vLLM), `context_length` or
 * `max_context_length` (LM Studio, llama.cpp variants, routers); else
 * Ollama's native `POST /api/show`, whose `model_info` holds
 * "<general.architecture>.context_length". Answers are kept per model on
 * the provider, so a conversation asks once per process.
 */

#define G_LOG_DOMAIN "natter-runtime"

#include <string.h>

#include "natter-json.h"
#include "natter-openai-provider-private.h"

static const char * const window_members[] = { "max_model_len", "context_length", "max_context_length" };

static gint64
positive_int (JsonObject *object,
              const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return 0;
  return MAX (json_node_get_int (node), 0);
}

static gint64
window_in_models (JsonNode   *root,
                  const char *model)
{
  JsonNode *list = json_object_get_member (json_node_get_object (root), "data");

  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    return 0;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (list), i);
      JsonObject *entry = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;

      if (g_strcmp0 (natter_json_loose_string (entry, "id"), model) != 0)
        continue;
      for (guint j = 0; j < G_N_ELEMENTS (window_members); j++)
        if (positive_int (entry, window_members[j]) > 0)
          return positive_int (entry, window_members[j]);
      return 0;
    }
  return 0;
}

static gint64
window_in_show (JsonNode *root)
{
  JsonNode *info_node = json_object_get_member (json_node_get_object (root), "model_info");
  JsonObject *info = info_node != NULL && JSON_NODE_HOLDS_OBJECT (info_node) ? json_node_get_object (info_node) : NULL;
  const char *arch = natter_json_loose_string (info, "general.architecture");
  g_autofree char *member = arch != NULL ? g_strconcat (arch, ".context_length", NULL) : NULL;

  return member != NULL ? positive_int (info, member) : 0;
}

static GHashTable *
windows_of (NatterOpenaiProvider *self)
{
  GHashTable *windows = g_object_get_data (G_OBJECT (self), "natter-context-windows");

  if (windows == NULL)
    {
      windows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_object_set_data_full (G_OBJECT (self), "natter-context-windows", windows,
                              (GDestroyNotify) g_hash_table_unref);
    }
  return windows;
}

static void
settle (GTask  *task,
        gint64  window)
{
  NatterOpenaiProvider *self = g_task_get_source_object (task);

  g_hash_table_replace (windows_of (self), g_strdup (g_task_get_task_data (task)), GSIZE_TO_POINTER ((gsize) window));
  g_task_return_int (task, window);
}

static void
show_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonNode) root = g_task_propagate_pointer (G_TASK (result), NULL);

  /* A server without Ollama's API (404 and the like) just does not say. */
  settle (task, root != NULL ? window_in_show (root) : 0);
}

static void
models_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterOpenaiProvider *self = g_task_get_source_object (task);
  GError *error = NULL;
  g_autoptr(JsonNode) root = g_task_propagate_pointer (G_TASK (result), &error);
  const char *model = g_task_get_task_data (task);
  g_autoptr(GBytes) body = NULL;
  g_autofree char *base = NULL;
  g_autofree char *url = NULL;
  g_autofree char *text = NULL;
  gsize len;
  gint64 window;
  GTask *show;
  g_autoptr(JsonObject) request = json_object_new ();
  g_autoptr(JsonNode) node = NULL;

  if (root == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  window = window_in_models (root, model);
  if (window > 0 || !g_str_has_suffix (self->base_url, "/v1"))
    {
      settle (task, window);
      return;
    }

  /* Ollama serves its OpenAI API under /v1 and its own beside it. */
  json_object_set_string_member (request, "model", model);
  node = json_node_init_object (json_node_alloc (), request);
  text = natter_json_to_text (node, FALSE, NULL);
  len = strlen (text);
  body = g_bytes_new_take (g_steal_pointer (&text), len);
  base = g_strndup (self->base_url, strlen (self->base_url) - strlen ("/v1"));
  url = g_strconcat (base, "/api/show", NULL);
  show = g_task_new (self, g_task_get_cancellable (task), show_cb, g_object_ref (task));
  natter_openai_call_start_json (self, show, SOUP_METHOD_POST, url, body, g_task_get_cancellable (task));
}

/**
 * natter_openai_provider_context_window_async:
 * @self: a provider
 * @model: a model of the provider
 * @cancellable: (nullable): cancels the requests
 * @callback: called with the answer
 * @user_data: data for @callback
 *
 * Asks the server how many tokens @model's context window holds
 * (docs/sessions.md §5): its `/models` entry's `max_model_len`,
 * `context_length` or `max_context_length`, else Ollama's `/api/show`.
 * The answer, known or not, is kept on @self for @model: later calls
 * answer at once.
 */
void
natter_openai_provider_context_window_async (NatterOpenaiProvider *self,
                                             const char           *model,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data)
{
  g_autoptr(GTask) task = NULL;
  gpointer known;
  GTask *models;

  g_return_if_fail (NATTER_IS_OPENAI_PROVIDER (self));
  g_return_if_fail (model != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_openai_provider_context_window_async);
  g_task_set_task_data (task, g_strdup (model), g_free);
  if (g_hash_table_lookup_extended (windows_of (self), model, NULL, &known))
    {
      g_task_return_int (task, (gssize) GPOINTER_TO_SIZE (known));
      return;
    }
  models = g_task_new (self, cancellable, models_cb, g_steal_pointer (&task));
  {
    g_autofree char *url = g_strconcat (self->base_url, "/models", NULL);

    natter_openai_call_start_json (self, models, SOUP_METHOD_GET, url, NULL, cancellable);
  }
}

/**
 * natter_openai_provider_context_window_finish:
 * @self: a provider
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_openai_provider_context_window_async().
 *
 * Returns: the window in tokens; 0 when the server does not say; -1 with
 *   a %NATTER_PROVIDER_ERROR when the model list could not be read
 *   (codes as for natter_openai_provider_list_models_finish())
 */
gint64
natter_openai_provider_context_window_finish (NatterOpenaiProvider  *self,
                                              GAsyncResult          *result,
                                              GError               **error)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (self), -1);
  g_return_val_if_fail (g_task_is_valid (result, self), -1);

  return g_task_propagate_int (G_TASK (result), error);
}
