/* test-context-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterTurnContextResolver (docs/runtime.md §11) over a real turn
 * repository in a temporary directory: turn files are written line by
 * line, then materialized.
 */

#include <string.h>

#include "natter-id.h"
#include "natter-runtime-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-schema.h"
#include "natter-test-support.h"

typedef struct
{
  GFile                     *dir;
  NatterJsonlRepo           *repo;
  NatterFakeClock           *clock;
  NatterIdGenerator         *ids;
  NatterTurnContextResolver *resolver;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->repo = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  f->ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
  f->resolver = natter_turn_context_resolver_new (f->repo);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_assert_finalize_object (f->resolver);
  g_clear_object (&f->ids);
  g_clear_object (&f->repo);
  g_clear_object (&f->clock);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

#define TS "\"ts\":\"2026-11-30T09:14:03.000Z\""

static JsonNode * G_GNUC_PRINTF (1, 2)
json_printf (const char *format,
             ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  return natter_test_json (text);
}

/* Writes a turn whose context is @previous (a reference) or [] (NULL).
 * A terminal turn is answered and completed; a non-terminal one stops at
 * an open model call. */
static void
write_turn (Fixture    *f,
            const char *turn_id,
            const char *previous,
            const char *question,
            const char *answer,
            gboolean    terminal)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *context = previous != NULL
                             ? g_strdup_printf ("{\"previousTurnId\":\"%s\"}", previous)
                             : g_strdup ("[]");
  g_autofree char *context_ref = previous != NULL
                                 ? g_strdup_printf ("\"contextRef\":{\"previousTurnId\":\"%s\"},", previous)
                                 : g_strdup ("");
  g_autofree char *created = NULL;
  g_autoptr(JsonNode) created_node = NULL;

  created = g_strdup_printf ("{\"type\":\"turn_created\",\"turnId\":\"%s\"," TS ",\"schemaVersion\":1,"
                             "\"sessionId\":null,\"agent\":{\"requested\":{\"agentId\":\"a\"},"
                             "\"resolved\":{\"agentId\":\"a\",\"systemPrompt\":\"\","
                             "\"model\":{\"provider\":\"p\",\"model\":\"m\"},\"tools\":[]}},"
                             "\"context\":%s,\"input\":{\"role\":\"user\",\"content\":\"%s\"},"
                             "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,"
                             "\"maxModelCalls\":5}}",
                             turn_id, context, question);
  created_node = natter_test_json (created);
  natter_jsonl_repo_create_sync (f->repo, turn_id, created_node, NULL, &error);
  g_assert_no_error (error);

  g_ptr_array_add (lines, json_printf ("{\"type\":\"model_call_requested\",\"turnId\":\"%s\"," TS ","
                                                             "\"modelCallIndex\":0,\"request\":{%s\"messages\":[\"input\"],"
                                                             "\"parameters\":{}}}",
                                                             turn_id, context_ref));
  if (terminal)
    {
      g_ptr_array_add (lines, json_printf ("{\"type\":\"model_call_completed\",\"turnId\":\"%s\"," TS ","
                                                                 "\"modelCallIndex\":0,\"finishReason\":\"stop\",\"usage\":{},"
                                                                 "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"}}",
                                                                 turn_id, answer));
      g_ptr_array_add (lines, json_printf ("{\"type\":\"turn_completed\",\"turnId\":\"%s\"," TS ","
                                                                 "\"finishReason\":\"stop\",\"usage\":{},"
                                                                 "\"output\":{\"role\":\"assistant\",\"content\":\"%s\"}}",
                                                                 turn_id, answer));
    }
  natter_jsonl_repo_append_sync (f->repo, turn_id, lines, NULL, &error);
  g_assert_no_error (error);
}

typedef struct
{
  gboolean   done;
  JsonArray *messages;
  GError    *error;
} Result;

static void
materialized_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Result *r = user_data;

  r->messages = natter_context_resolver_materialize_finish (NATTER_CONTEXT_RESOLVER (object),
                                                            result, &r->error);
  r->done = TRUE;
}

/* Materializes @turn_id and returns the transcript as "role:content"
 * pairs separated by spaces, or NULL with @error set. */
static char *
materialize (Fixture     *f,
             const char  *turn_id,
             GError     **error)
{
  Result r = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);

  natter_context_resolver_materialize_async (NATTER_CONTEXT_RESOLVER (f->resolver), turn_id, NULL,
                                             materialized_cb, &r);
  natter_test_wait_for_flag (&r.done, 5000);
  if (r.messages == NULL)
    {
      g_assert_nonnull (r.error);
      g_propagate_error (error, r.error);
      return NULL;
    }
  g_assert_no_error (r.error);
  for (guint i = 0; i < json_array_get_length (r.messages); i++)
    {
      JsonObject *message = json_array_get_object_element (r.messages, i);

      g_string_append_printf (text, "%s%s:%s", i > 0 ? " " : "",
                              json_object_get_string_member (message, "role"),
                              json_object_get_string_member (message, "content"));
    }
  json_array_unref (r.messages);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
test_three_turn_chain (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *t1 = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autofree char *t3 = natter_id_generator_next (f->ids);
  g_autofree char *transcript = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t1, NULL, "q1", "a1", TRUE);
  write_turn (f, t2, t1, "q2", "a2", TRUE);
  write_turn (f, t3, t2, "q3", "a3", TRUE);

  transcript = materialize (f, t3, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (transcript, ==,
                   "user:q1 assistant:a1 user:q2 assistant:a2 user:q3 assistant:a3");
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (f->resolver), ==, 3);
}

static void
test_cache_hit (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *t1 = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autofree char *t3 = natter_id_generator_next (f->ids);
  g_autofree char *first = NULL;
  g_autofree char *again = NULL;
  g_autofree char *longer = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t1, NULL, "q1", "a1", TRUE);
  write_turn (f, t2, t1, "q2", "a2", TRUE);
  first = materialize (f, t2, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (f->resolver), ==, 2);

  /* The same turn again: served from the cache, no file read. */
  again = materialize (f, t2, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again, ==, first);
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (f->resolver), ==, 2);

  /* The next message of the session reads only the newest turn. */
  write_turn (f, t3, t2, "q3", "a3", TRUE);
  longer = materialize (f, t3, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (longer, ==,
                   "user:q1 assistant:a1 user:q2 assistant:a2 user:q3 assistant:a3");
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (f->resolver), ==, 3);
}

/* A turn is continued only once it has ended, so a link of the chain
 * that has not ended is a file that lost its last lines: its transcript
 * would be the history without its answer. The chain is refused, naming
 * the file, rather than sent shortened — as the first link or deeper. */
static void
test_non_terminal_refused (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *t1 = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autofree char *t3 = natter_id_generator_next (f->ids);
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t1, NULL, "q1", "a1", TRUE);
  write_turn (f, t2, t1, "q2", NULL, FALSE);
  write_turn (f, t3, t2, "q3", "a3", TRUE);
  file = natter_jsonl_repo_get_file (f->repo, t2, &error);
  g_assert_no_error (error);
  path = g_file_get_path (file);

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *transcript = materialize (f, i == 0 ? t3 : t2, &error);

      g_assert_null (transcript);
      g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT);
      g_assert_nonnull (strstr (error->message, t2));
      g_assert_nonnull (strstr (error->message, path));
      g_clear_error (&error);
    }
}

static void
test_cycle (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *t1 = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autofree char *transcript = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t1, t2, "q1", "a1", TRUE);
  write_turn (f, t2, t1, "q2", "a2", TRUE);
  transcript = materialize (f, t2, &error);
  g_assert_null (transcript);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT);
  g_assert_cmpuint (natter_turn_context_resolver_get_n_reads (f->resolver), ==, 2);
}

static void
test_missing (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *ghost = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autofree char *transcript = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t2, ghost, "q2", "a2", TRUE);
  transcript = materialize (f, t2, &error);
  g_assert_null (transcript);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT);
}

static void
test_corrupt (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *t1 = natter_id_generator_next (f->ids);
  g_autofree char *t2 = natter_id_generator_next (f->ids);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autofree char *transcript = NULL;
  g_autoptr(GError) error = NULL;

  write_turn (f, t1, NULL, "q1", "a1", TRUE);
  write_turn (f, t2, t1, "q2", "a2", TRUE);
  /* A torn last line in the base turn breaks the whole chain. */
  file = natter_jsonl_repo_get_file (f->repo, t1, &error);
  g_assert_no_error (error);
  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":\"tu", 11, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);

  transcript = materialize (f, t2, &error);
  g_assert_null (transcript);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/context-resolver/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("three-turn-chain", test_three_turn_chain);
  ADD ("cache-hit", test_cache_hit);
  ADD ("non-terminal-refused", test_non_terminal_refused);
  ADD ("cycle", test_cycle);
  ADD ("missing", test_missing);
  ADD ("corrupt", test_corrupt);

  return g_test_run ();
}
