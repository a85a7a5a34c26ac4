/* natter-openai-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-openai-model"

#include "natter-json.h"
#include "natter-openai-model.h"

struct _NatterOpenaiModel
{
  GObject               parent_instance;

  NatterOpenaiProvider *provider;
  char                 *name;
};

static void natter_openai_model_iface_init (NatterModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterOpenaiModel, natter_openai_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL, natter_openai_model_iface_init))

/* The state of one step, the task data. */
typedef struct
{
  NatterChatStream    *stream;
  char                *seed;     /* of minted tool-call ids */
  /* A copy: the caller's sink only has to live until the callback, and
   * this struct does not outlive it by much, but a copy costs nothing. */
  NatterModelStepSink  sink;
  gpointer             sink_data;
  GCancellable        *cancellable;
  gulong               text_id;
  gulong               reasoning_id;
  /* Every tool-call id the request already holds: the model's answer must
   * not reuse one, or the turn would name two calls alike
   * (docs/runtime.md §4). */
  GHashTable          *used_ids;
} Step;

static void
step_free (gpointer data)
{
  Step *step = data;

  g_clear_signal_handler (&step->text_id, step->stream);
  g_clear_signal_handler (&step->reasoning_id, step->stream);
  g_clear_object (&step->stream);
  g_clear_pointer (&step->seed, g_free);
  g_clear_object (&step->cancellable);
  g_clear_pointer (&step->used_ids, g_hash_table_unref);
  g_free (step);
}

static void
natter_openai_model_finalize (GObject *object)
{
  NatterOpenaiModel *self = NATTER_OPENAI_MODEL (object);

  g_clear_object (&self->provider);
  g_clear_pointer (&self->name, g_free);

  G_OBJECT_CLASS (natter_openai_model_parent_class)->finalize (object);
}

static void
natter_openai_model_class_init (NatterOpenaiModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_openai_model_finalize;
}

static void
natter_openai_model_init (NatterOpenaiModel *self)
{
}

/* Deltas are live only (docs/runtime.md §3); once the step is cancelled none
 * may reach the runtime, even one that raced with the cancellation. */
static void
text_delta_cb (NatterChatStream *stream,
               const char       *delta,
               Step             *step)
{
  if (step->sink.text_delta != NULL && !g_cancellable_is_cancelled (step->cancellable))
    step->sink.text_delta (delta, step->sink_data);
}

static void
reasoning_delta_cb (NatterChatStream *stream,
                    const char       *delta,
                    Step             *step)
{
  if (step->sink.reasoning_delta != NULL && !g_cancellable_is_cancelled (step->cancellable))
    step->sink.reasoning_delta (delta, step->sink_data);
}

static GHashTable *
collect_tool_call_ids (JsonObject *request)
{
  GHashTable *ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  JsonNode *node = json_object_get_member (request, "messages");
  JsonArray *messages;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return ids;
  messages = json_node_get_array (node);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *element = json_array_get_element (messages, i);
      JsonObject *message;
      JsonNode *content;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      message = json_node_get_object (element);
      content = json_object_get_member (message, "content");
      if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
        continue;

      for (guint j = 0; j < json_array_get_length (json_node_get_array (content)); j++)
        {
          JsonNode *part = json_array_get_element (json_node_get_array (content), j);
          const char *id;

          if (!JSON_NODE_HOLDS_OBJECT (part))
            continue;
          id = natter_json_loose_string (json_node_get_object (part), "toolCallId");
          if (id != NULL)
            g_hash_table_add (ids, g_strdup (id));
        }
    }
  return ids;
}

/* Some servers number their calls per response ("call_0", or a fixed
 * id of a mock): such an id, seen earlier in the conversation, is renamed
 * so the turn keeps one id per call. The server only ever sees the ids we
 * send back, so a consistent rename is invisible to it. */
static void
make_tool_call_ids_unique (JsonNode   *message,
                           GHashTable *used_ids,
                           const char *seed)
{
  JsonArray *content = json_object_get_array_member (json_node_get_object (message), "content");

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *part = json_array_get_object_element (content, i);
      const char *id;

      if (g_strcmp0 (natter_json_loose_string (part, "type"), "tool-call") != 0)
        continue;
      id = json_object_get_string_member (part, "toolCallId");
      if (g_hash_table_contains (used_ids, id))
        {
          g_autofree char *fresh = g_strdup_printf ("call_%s_%u", seed, i);

          for (guint n = 1; g_hash_table_contains (used_ids, fresh); n++)
            {
              g_free (fresh);
              fresh = g_strdup_printf ("call_%s_%u_%u", seed, i, n);
            }
          g_debug ("Renaming a repeated tool call id to %s", fresh);
          json_object_set_string_member (part, "toolCallId", fresh);
          id = json_object_get_string_member (part, "toolCallId");
        }
      g_hash_table_add (used_ids, g_strdup (id));
    }
}

static void
stream_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Step *step = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) message = NULL;
  const char *text;

  /* Nothing the stream does from here on reaches the runtime. */
  g_clear_signal_handler (&step->text_id, step->stream);
  g_clear_signal_handler (&step->reasoning_id, step->stream);

  if (natter_openai_provider_stream_finish (NATTER_OPENAI_PROVIDER (source), result, &error))
    {
      message = natter_chat_stream_build_message (step->stream);
      make_tool_call_ids_unique (message, step->used_ids, step->seed);
      g_task_return_pointer (task,
                             natter_model_step_result_new (message,
                                                           natter_chat_stream_get_finish_reason (step->stream),
                                                           natter_chat_stream_get_usage (step->stream)),
                             (GDestroyNotify) natter_model_step_result_free);
      return;
    }

  /* The runtime knows cancellation as G_IO_ERROR_CANCELLED
   * (docs/runtime.md §9); the provider's own code says the same thing in its
   * domain. */
  if (g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED)
      || g_cancellable_is_cancelled (step->cancellable))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", error->message);
      return;
    }

  /* The answer that did arrive was shown live through the deltas; the
   * runtime keeps it with the failure (`model_call_failed.partial`), and
   * the message says so, so a person knows it was not lost. */
  text = natter_chat_stream_get_text (step->stream);
  if (text[0] != '\0')
    g_task_return_new_error (task, error->domain, error->code,
                             "%s (%ld characters of the answer had arrived; they are kept)",
                             error->message, g_utf8_strlen (text, -1));
  else
    g_task_return_error (task, g_steal_pointer (&error));
}

static void
natter_openai_model_stream_step_async (NatterModel               *model,
                                       JsonObject                *request,
                                       const NatterModelStepSink *sink,
                                       gpointer                   sink_data,
                                       GCancellable              *cancellable,
                                       GAsyncReadyCallback        callback,
                                       gpointer                   user_data)
{
  NatterOpenaiModel *self = NATTER_OPENAI_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Step *step;

  g_task_set_source_tag (task, natter_openai_model_stream_step_async);
  /* Cancellation is mapped from the provider's error above. */
  g_task_set_check_cancellable (task, FALSE);

  step = g_new0 (Step, 1);
  /* The interface gives neither the turn id nor the call index; a random
   * seed keeps minted ids apart, and the rename above settles the rest. */
  step->seed = g_strdup_printf ("%08" G_GINT32_MODIFIER "x", g_random_int ());
  step->stream = natter_chat_stream_new (step->seed);
  if (sink != NULL)
    step->sink = *sink;
  step->sink_data = sink_data;
  step->cancellable = cancellable != NULL ? g_object_ref (cancellable) : g_cancellable_new ();
  step->used_ids = collect_tool_call_ids (request);
  step->text_id = g_signal_connect (step->stream, "text-delta", G_CALLBACK (text_delta_cb), step);
  step->reasoning_id = g_signal_connect (step->stream, "reasoning-delta",
                                         G_CALLBACK (reasoning_delta_cb), step);
  g_task_set_task_data (task, step, step_free);

  natter_openai_provider_stream_async (self->provider, request, self->name, step->stream,
                                       step->cancellable, stream_cb, g_steal_pointer (&task));
}

static NatterModelStepResult *
natter_openai_model_stream_step_finish (NatterModel   *model,
                                        GAsyncResult  *result,
                                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, model), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_openai_model_stream_step_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
natter_openai_model_iface_init (NatterModelInterface *iface)
{
  iface->stream_step_async = natter_openai_model_stream_step_async;
  iface->stream_step_finish = natter_openai_model_stream_step_finish;
}

/**
 * natter_openai_model_new:
 * @provider: (transfer none): the provider that serves the model
 * @model_name: the model name sent as `model`, e.g. "llama3.2"
 *
 * Creates the live model of a descriptor `{provider, model}`
 * (docs/runtime.md §6 step 4, §12). Each step streams `POST
 * {baseUrl}/chat/completions` with the composed request as it is: text
 * and reasoning arrive through the sink as deltas (never after a
 * cancellation), the result is the assistant message of
 * natter_chat_stream_build_message() with its finish reason and usage.
 *
 * A tool-call id that the conversation already holds (servers that
 * number calls per response) is renamed to a fresh `call_<seed>_<n>`.
 *
 * Errors of natter_model_stream_step_finish(): cancellation is
 * %G_IO_ERROR_CANCELLED; every other failure keeps the provider's error
 * (%NATTER_PROVIDER_ERROR, or %G_IO_ERROR_INVALID_DATA for a request that
 * cannot be encoded) and its message, which names the provider and never
 * holds the key. When part of the answer text had arrived (through the
 * sink's deltas, which the runtime keeps as `model_call_failed.partial`),
 * the message ends with how many characters of it had arrived.
 *
 * Returns: (transfer full): a new model
 */
NatterOpenaiModel *
natter_openai_model_new (NatterOpenaiProvider *provider,
                         const char           *model_name)
{
  NatterOpenaiModel *self;

  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (provider), NULL);
  g_return_val_if_fail (model_name != NULL, NULL);

  self = g_object_new (NATTER_TYPE_OPENAI_MODEL, NULL);
  self->provider = g_object_ref (provider);
  self->name = g_strdup (model_name);
  return self;
}

/**
 * natter_openai_model_get_provider:
 * @self: a model
 *
 * Returns: (transfer none): the provider
 */
NatterOpenaiProvider *
natter_openai_model_get_provider (NatterOpenaiModel *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_MODEL (self), NULL);

  return self->provider;
}

/**
 * natter_openai_model_get_name:
 * @self: a model
 *
 * Returns: (transfer none): the model name
 */
const char *
natter_openai_model_get_name (NatterOpenaiModel *self)
{
  g_return_val_if_fail (NATTER_IS_OPENAI_MODEL (self), NULL);

  return self->name;
}
