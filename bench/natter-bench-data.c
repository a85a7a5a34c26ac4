/* natter-bench-data.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-bench"

#include <stdio.h>

#include "natter-bench-data.h"
#include "natter-jsonl-repo.h"

void
natter_bench_write_file (GFile      *file,
                         const char *contents,
                         gsize       length)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *dir = g_file_get_path (parent);
  g_autofree char *path = g_file_get_path (file);
  FILE *out;

  g_mkdir_with_parents (dir, 0700);
  out = fopen (path, "w");
  if (out == NULL || fwrite (contents, 1, length, out) != length || fclose (out) != 0)
    g_error ("Could not write %s", path);
}

/* The time of generation, so that turns the runtime appends later are
 * never older than the generated ones. */
static char *
now_ts (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

/* One completed turn: created, one model call, completed. @previous NULL
 * gives an inline `[]` context, else `{previousTurnId}` with the matching
 * contextRef in the model call (docs/runtime.md §11). */
static void
append_turn (GString    *text,
             const char *ts,
             const char *turn_id,
             const char *session_id,
             const char *previous,
             guint       seq)
{
  g_autofree char *context = previous != NULL
                             ? g_strdup_printf ("{\"previousTurnId\":\"%s\"}", previous)
                             : g_strdup ("[]");
  g_autofree char *context_ref = previous != NULL
                                 ? g_strdup_printf ("\"contextRef\":{\"previousTurnId\":\"%s\"},", previous)
                                 : g_strdup ("");

  g_string_append_printf (text,
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"%s\",\"schemaVersion\":1,"
    "\"sessionId\":\"%s\",\"agent\":{\"requested\":{\"agentId\":\"helper\"},\"resolved\":{"
    "\"agentId\":\"helper\",\"model\":{\"provider\":\"p\",\"model\":\"m\"},"
    "\"systemPrompt\":\"Be brief.\",\"tools\":[]}},\"context\":%s,"
    "\"input\":{\"role\":\"user\",\"content\":\"Question number %u, about something.\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}\n",
    turn_id, ts, session_id, context, seq);
  g_string_append_printf (text,
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"%s\",\"modelCallIndex\":0,"
    "\"request\":{%s\"messages\":[\"input\"],\"parameters\":{}}}\n"
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"%s\",\"modelCallIndex\":0,"
    "\"finishReason\":\"stop\",\"usage\":{\"inputTokens\":120,\"outputTokens\":80},"
    "\"message\":{\"role\":\"assistant\",\"content\":\"An answer of a realistic length, a sentence or two long, "
    "so the line is not trivially short.\"}}\n"
    "{\"type\":\"turn_completed\",\"turnId\":\"%s\",\"ts\":\"%s\",\"finishReason\":\"stop\","
    "\"output\":{\"role\":\"assistant\",\"content\":\"An answer.\"},\"usage\":{\"inputTokens\":120,"
    "\"outputTokens\":80}}\n", turn_id, ts, context_ref, turn_id, ts, turn_id, ts);
}

/* One session of @n_turns turns; each turn's context is the previous one
 * when @chained. Returns the session id; adds every turn file's path to
 * @out_turn_paths (may be NULL) and, when @out_latest is set, the latest
 * turn file's path there. */
static char *
generate_session (NatterJsonlRepo   *sessions,
                  NatterJsonlRepo   *turns,
                  NatterIdGenerator *ids,
                  const char        *ts,
                  guint              n_turns,
                  gboolean           chained,
                  GPtrArray         *out_turn_paths,
                  char             **out_latest,
                  char             **out_session_path)
{
  char *session_id = natter_id_generator_next (ids);
  g_autoptr(GString) session = g_string_new (NULL);
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (sessions, session_id, NULL);
  g_autofree char *previous = NULL;

  g_string_append_printf (session, "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                          "\"schemaVersion\":1}\n", session_id, ts);
  for (guint t = 1; t <= n_turns; t++)
    {
      char *turn_id = natter_id_generator_next (ids);
      g_autoptr(GString) turn = g_string_new (NULL);
      g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (turns, turn_id, NULL);

      append_turn (turn, ts, turn_id, session_id, chained ? previous : NULL, t);
      natter_bench_write_file (turn_file, turn->str, turn->len);
      g_string_append_printf (session, "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                              "\"turnId\":\"%s\",\"sessionSeq\":%u,\"agentId\":\"helper\","
                              "\"model\":{\"provider\":\"p\",\"model\":\"m\"}}\n",
                              session_id, ts, turn_id, t);
      if (t == 1)
        g_string_append_printf (session, "{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"%s\","
                                "\"title\":\"Question number 1, about something.\"}\n", session_id, ts);
      if (out_turn_paths != NULL)
        g_ptr_array_add (out_turn_paths, g_file_get_path (turn_file));
      if (t == n_turns && out_latest != NULL)
        *out_latest = g_file_get_path (turn_file);
      g_free (previous);
      previous = turn_id;
    }
  natter_bench_write_file (session_file, session->str, session->len);
  if (out_session_path != NULL)
    *out_session_path = g_file_get_path (session_file);
  return session_id;
}

/**
 * natter_bench_generate_sessions:
 * @storage: the storage folder (data dir/storage)
 * @n_sessions: how many sessions
 * @n_turns: completed turns per session, each with an inline context
 *
 * Writes the data set of the startup scan (docs/sessions.md §8.2).
 *
 * Returns: (transfer full): the paths the scan must read: each session
 *   file and each session's latest turn file
 */
GPtrArray *
natter_bench_generate_sessions (GFile *storage,
                                guint  n_sessions,
                                guint  n_turns)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autofree char *ts = now_ts ();
  GPtrArray *needed = g_ptr_array_new_with_free_func (g_free);

  for (guint s = 0; s < n_sessions; s++)
    {
      char *latest = NULL;
      char *session_path = NULL;

      g_free (generate_session (sessions, turns, ids, ts, n_turns, FALSE, NULL, &latest, &session_path));
      g_ptr_array_add (needed, latest);
      g_ptr_array_add (needed, session_path);
    }
  return needed;
}

/**
 * natter_bench_ensure_sessions:
 * @n_sessions: how many sessions
 * @n_turns: turns per session
 *
 * A data dir with @n_sessions sessions: `$NATTER_BENCH_DATA_DIR` when set
 * (generated there once and reused while its marker file says it holds
 * this shape, since 210,000 files take a while), else a fresh temp dir.
 *
 * Returns: (transfer full): the data dir (its `storage` holds the files)
 */
GFile *
natter_bench_ensure_sessions (guint n_sessions,
                              guint n_turns)
{
  const char *keep = g_getenv ("NATTER_BENCH_DATA_DIR");
  g_autofree char *name = g_strdup_printf ("generated-%u-sessions-%u-turns", n_sessions, n_turns);
  g_autofree char *base = NULL;
  g_autofree char *marker = NULL;
  g_autoptr(GFile) dir = NULL;
  g_autoptr(GFile) storage = NULL;
  g_autoptr(GPtrArray) needed = NULL;

  if (keep == NULL)
    {
      g_autoptr(GError) error = NULL;

      base = g_dir_make_tmp ("natter-bench-XXXXXX", &error);
      if (base == NULL)
        g_error ("%s", error->message);
    }
  else
    base = g_build_filename (keep, name, NULL);
  dir = g_file_new_for_path (base);
  marker = g_build_filename (base, "complete", NULL);
  if (g_file_test (marker, G_FILE_TEST_EXISTS))
    return g_steal_pointer (&dir);

  storage = g_file_get_child (dir, "storage");
  needed = natter_bench_generate_sessions (storage, n_sessions, n_turns);
  {
    g_autoptr(GFile) file = g_file_new_for_path (marker);

    natter_bench_write_file (file, "", 0);
  }
  return g_steal_pointer (&dir);
}

/**
 * natter_bench_generate_chain:
 * @storage: the storage folder
 * @ids: the id generator (the caller's, so later ids sort after these)
 * @n_turns: completed turns, each turn's context `{previousTurnId}` of
 *   the one before (the first one's inline `[]`)
 * @out_turn_paths: (nullable): gets every turn file's path
 *
 * Writes one session whose conversation is a chain of @n_turns turns,
 * as a session of that length written by natter_sessions_send_message_async()
 * would be.
 *
 * Returns: (transfer full): the session id
 */
char *
natter_bench_generate_chain (GFile             *storage,
                             NatterIdGenerator *ids,
                             guint              n_turns,
                             GPtrArray         *out_turn_paths)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autofree char *ts = now_ts ();

  return generate_session (sessions, turns, ids, ts, n_turns, TRUE, out_turn_paths, NULL, NULL);
}
