/* test-openai-provider-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scripted server's answers, the provider under test and the
 * checks every test of test-openai-provider makes (the key is never logged).
 */

#include "test-openai-provider.h"

gboolean key_logged;
guint provider_log_lines;

void
run_clear (Run *run)
{
  g_clear_error (&run->error);
  g_clear_pointer (&run->models, g_strfreev);
  if (run->deltas != NULL)
    g_string_free (run->deltas, TRUE);
  g_clear_pointer (&run->delta_list, g_ptr_array_unref);
}

void
assert_no_key (const char *text)
{
  g_assert_null (strstr (text, API_KEY));
}

static void
text_delta_cb (NatterChatStream *stream,
               const char       *delta,
               Run              *run)
{
  if (run->cancel_on_first_delta != NULL && g_cancellable_is_cancelled (run->cancel_on_first_delta))
    run->deltas_after_cancel++;

  g_string_append (run->deltas, delta);
  g_ptr_array_add (run->delta_list, g_strdup (delta));

  if (run->cancel_on_first_delta != NULL)
    g_cancellable_cancel (run->cancel_on_first_delta);
}

static void
stream_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->ok = natter_openai_provider_stream_finish (NATTER_OPENAI_PROVIDER (source), result, &run->error);
  g_assert_true (run->ok == (run->error == NULL));
  if (run->error != NULL)
    assert_no_key (run->error->message);
  run->done = TRUE;
}

void
run_stream (NatterOpenaiProvider *provider,
            JsonObject           *composed,
            NatterChatStream     *stream,
            GCancellable         *cancellable,
            Run                  *run)
{
  gulong id;

  run->deltas = g_string_new (NULL);
  run->delta_list = g_ptr_array_new_with_free_func (g_free);
  id = g_signal_connect (stream, "text-delta", G_CALLBACK (text_delta_cb), run);
  natter_openai_provider_stream_async (provider, composed, "test-model", stream, cancellable,
                                       stream_done_cb, run);
  natter_test_wait_for_flag (&run->done, WAIT_MS);
  g_signal_handler_disconnect (stream, id);
}

void
models_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;

  run->models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (source),
                                                           result, &run->error);
  g_assert_true ((run->models != NULL) == (run->error == NULL));
  if (run->error != NULL)
    assert_no_key (run->error->message);
  run->done = TRUE;
}

NatterOpenaiProvider *
make_provider (const char *base_url,
               const char *key,
               guint       idle_timeout)
{
  return natter_openai_provider_new ("test", "Test", base_url, key, idle_timeout, 0);
}

JsonObject *
composed_from (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return json_object_ref (json_node_get_object (node));
}

JsonObject *
simple_composed (void)
{
  return composed_from ("{\"systemPrompt\":\"Be brief.\","
                        " \"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                        " \"tools\":[], \"parameters\":{\"temperature\":0.5}}");
}

JsonObject *
limited_composed (void)
{
  return composed_from ("{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                        " \"parameters\":{\"max_tokens\":64}}");
}

GLogWriterOutput
log_writer (GLogLevelFlags   log_level,
            const GLogField *fields,
            gsize            n_fields,
            gpointer         user_data)
{
  gboolean ours = FALSE;

  for (gsize i = 0; i < n_fields; i++)
    {
      if (fields[i].length >= 0)
        continue;
      if (strcmp (fields[i].key, "MESSAGE") == 0 && strstr (fields[i].value, API_KEY) != NULL)
        key_logged = TRUE;
      if (strcmp (fields[i].key, "GLIB_DOMAIN") == 0
          && strcmp (fields[i].value, "natter-openai-provider") == 0)
        ours = TRUE;
    }
  if (ours)
    provider_log_lines++;

  /* Debug lines are only inspected, not printed, to keep the TAP output
   * readable. */
  if (log_level & G_LOG_LEVEL_DEBUG)
    return G_LOG_WRITER_HANDLED;
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

static void
resolved_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Resolved *resolved = user_data;

  resolved->descriptor = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (source),
                                                                        result, &resolved->error);
  g_assert_true ((resolved->descriptor != NULL) == (resolved->error == NULL));
  resolved->done = TRUE;
}

void
resolve (NatterProviderRegistry *registry,
         const char             *provider,
         const char             *model,
         Resolved               *resolved)
{
  natter_provider_registry_resolve_model_async (registry, provider, model, NULL, resolved_cb, resolved);
  natter_test_wait_for_flag (&resolved->done, WAIT_MS);
}

void
resolved_clear (Resolved *resolved)
{
  g_clear_pointer (&resolved->descriptor, json_object_unref);
  g_clear_error (&resolved->error);
  resolved->done = FALSE;
}
