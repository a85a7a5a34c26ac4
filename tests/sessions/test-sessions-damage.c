/* test-sessions-damage.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A history that cannot be read whole: an earlier turn damaged, gone or
 * out of order after a restart refuses the next message and names the
 * file; recovery copies the readable prefix and leaves the file as it is.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-session-grants-queue.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-queue.h"
#include "natter-sessions-settings.h"
#include "test-sessions.h"


/* "one", "two" and "three" sent to @sid, each answered before the next. */
static void
send_three (Fixture    *f,
            const char *sid,
            char      **one,
            char      **two,
            char      **three)
{
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  *one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  *two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  *three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
}

/* How an earlier turn's file is damaged. */
enum
{
  DAMAGE_TORN,      /* a torn last line */
  DAMAGE_MISSING,   /* the file is gone */
  DAMAGE_END_LOST,  /* whole lines, but the last ones are lost: it reads as a turn that never ended */
};

/* The first @n lines of @turn_id's file, and nothing after them. */
static void
keep_first_lines (Fixture    *f,
                  const char *turn_id,
                  guint       n)
{
  g_autofree char *path = turn_path (f, turn_id);
  g_autofree char *contents = NULL;
  char *end;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  end = contents;
  for (guint i = 0; i < n; i++)
    {
      end = strchr (end, '\n');
      g_assert_nonnull (end);
      end++;
    }
  *end = '\0';
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

/* @sid's damage report (transfer full), which must name the file @path. */
static NatterSessionDamage *
inspect_damage (Fixture    *f,
                const char *sid,
                const char *path)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *damage_path = NULL;
  NatterSessionDamage *damage;

  natter_sessions_inspect_damage_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  damage = natter_sessions_inspect_damage_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  damage_path = g_file_get_path (damage->file);
  g_assert_cmpstr (damage_path, ==, path);
  return damage;
}

/* Copies @sid's readable part into a new session: its id (transfer
 * full), when @out_state is set its state, and when @out_damage is set
 * the report the copy was made by. */
static char *
recover_copy_full (Fixture              *f,
                   const char           *sid,
                   NatterSessionState  **out_state,
                   NatterSessionDamage **out_damage)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *copy;

  natter_sessions_recover_async (f->t.sessions, sid, NULL, natter_test_result_cb, &result);
  copy = natter_sessions_recover_finish (f->t.sessions, natter_test_sessions_wait_result (&result), out_damage,
                                         &error);
  g_assert_no_error (error);
  g_assert_nonnull (copy);
  if (out_damage != NULL)
    g_assert_nonnull (*out_damage);
  if (out_state != NULL)
    *out_state = natter_test_sessions_get (&f->t, copy);
  return copy;
}

static char *
recover_copy (Fixture             *f,
              const char          *sid,
              NatterSessionState **out_state)
{
  return recover_copy_full (f, sid, out_state, NULL);
}

/* An earlier turn's file damaged (or gone) after a restart: the history
 * the next message continues cannot be read whole. The message is
 * refused — no turn is made, the session file is not touched — naming
 * the file (and line), and so is every later one: a turn with a
 * silently shortened history is never made. That holds for a file that
 * lost its last lines at a line's end too: each line reads, but the turn
 * never ended, and later turns go on after it — its answer would be
 * missing from what the model receives. The way out is a copy of
 * the readable part, which ends before the damaged turn. The damaged
 * file stays as it is. */
static void
test_unreadable_earlier_turn (Fixture       *f,
                              gconstpointer  data)
{
  int damage = GPOINTER_TO_INT (data);
  gboolean missing = damage == DAMAGE_MISSING;
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autofree char *damaged = NULL;
  g_autofree char *after = NULL;
  g_autofree char *log_before = NULL;
  g_autofree char *log_after = NULL;
  g_autofree char *session_path = NULL;
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, sid, NULL);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  guint turn_files;

  send_three (f, sid, &one, &two, &three);

  path = turn_path (f, one);
  if (missing)
    g_assert_cmpint (g_unlink (path), ==, 0);
  else
    {
      if (damage == DAMAGE_TORN)
        corrupt_file (f->t.w->turn_repo, one);
      else
        keep_first_lines (f, one, 2);
      g_assert_true (g_file_get_contents (path, &damaged, NULL, NULL));
    }
  restart (f);
  session_path = g_file_get_path (session_file);
  g_assert_true (g_file_get_contents (session_path, &log_before, NULL, NULL));
  turn_files = n_files (f->t.w->turn_repo);

  /* Sent twice, as a person trying again would: refused both times. */
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *refused = natter_test_sessions_send (&f->t, sid, "four", &error);

      g_assert_null (refused);
      g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
      g_assert_nonnull (strstr (error->message, path));
      if (damage == DAMAGE_TORN)
        {
          g_autofree char *with_line = g_strdup_printf ("%s:5:", path);

          g_assert_nonnull (strstr (error->message, with_line));
        }
      g_clear_error (&error);
    }
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turn_files);
  g_assert_true (g_file_get_contents (session_path, &log_after, NULL, NULL));
  g_assert_cmpstr (log_after, ==, log_before);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid)), ==,
                   three);

  /* The way out: the readable part, which ends before the first turn;
   * that turn's message is offered again when its first line reads. */
  {
    g_autoptr(NatterSessionDamage) report = inspect_damage (f, sid, path);

    g_assert_cmpuint (report->n_turns, ==, 0);
    g_assert_cmpstr (report->message, ==, missing ? NULL : "one");
  }
  copy = recover_copy (f, sid, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);

  if (!missing)
    {
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, damaged);
    }
  else
    g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* The same while the conversation is open: an earlier turn's file
 * damaged (or deleted) by someone else after its history was last sent,
 * and reported as another writer's change, as the store watch reports
 * it (natter_sessions_refresh_async()). The history kept in memory from
 * before is not sent in its place: the next message is refused, naming
 * the file, with nothing written, as after a restart. */
static void
test_unreadable_earlier_turn_while_open (Fixture       *f,
                                         gconstpointer  data)
{
  gboolean missing = GPOINTER_TO_INT (data);
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *changed[2] = { NULL, NULL };
  guint turn_files;

  send_three (f, sid, &one, &two, &three);

  path = turn_path (f, one);
  if (missing)
    g_assert_cmpint (g_unlink (path), ==, 0);
  else
    corrupt_file (f->t.w->turn_repo, one);
  changed[0] = one;
  natter_sessions_refresh_async (f->t.sessions, NULL, changed, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_refresh_finish (f->t.sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  turn_files = n_files (f->t.w->turn_repo);

  {
    g_autofree char *refused = natter_test_sessions_send (&f->t, sid, "four", &error);

    g_assert_null (refused);
    g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
    g_assert_nonnull (strstr (error->message, path));
  }
  g_assert_cmpuint (n_files (f->t.w->turn_repo), ==, turn_files);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid)), ==,
                   three);
}

/* A branch at a turn that cannot be read would continue a history no
 * message of it could be sent on: refused as a damaged history (the way
 * a new version of the message after it is refused, docs/sessions.md §2),
 * and no session is made. */
static void
test_fork_at_unreadable_turn (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  guint sessions;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  /* Torn, or cut back at a line's end: each line reads, but the turn
   * the conversation went on after never ended. */
  if (GPOINTER_TO_INT (data) == DAMAGE_END_LOST)
    keep_first_lines (f, one, 1);
  else
    corrupt_file (f->t.w->turn_repo, one);
  restart (f);
  sessions = n_files (f->t.w->session_repo);

  branch = fork_session (f, sid, one, &error);
  g_assert_null (branch);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  path = turn_path (f, one);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_cmpuint (n_files (f->t.w->session_repo), ==, sessions);
}

/* An earlier turn whose lines are each well formed but out of order (an
 * event after its terminal one): the history cannot be read either, and
 * the refusal names the file and the line, as for a torn line. */
static void
test_earlier_turn_out_of_order (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *path = NULL;
  g_autofree char *late = NULL;
  g_autofree char *with_line = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  path = turn_path (f, one);
  late = g_strdup_printf ("{\"type\":\"turn_cancelled\",\"turnId\":\"%s\",\"ts\":\"2026-11-18T11:10:00.000Z\","
                          "\"usage\":{}}\n", one);
  natter_test_append_file (path, late);
  restart (f);

  g_free (natter_test_sessions_send (&f->t, sid, "three", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  with_line = g_strdup_printf ("%s:5:", path);
  g_assert_nonnull (strstr (error->message, with_line));
}

/* The damage in the middle: the readable part is every turn before it,
 * and the copy goes on from there with the whole of that history. */
static void
test_recover_before_damaged_middle_turn (Fixture       *f,
                                         gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *next = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  set_title (f, sid, "Chosen");
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);
  restart (f);

  damage = inspect_damage (f, sid, path);
  g_assert_cmpuint (damage->n_turns, ==, 1);
  /* The message the copy leaves out reads: it is offered again. */
  g_assert_cmpstr (damage->message, ==, "two");

  copy = recover_copy (f, sid, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, one);
  /* The copy has the conversation's title, marked as the copy's, and
   * it is nobody's default: no automatic title will replace it. */
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered)");
  g_assert_false (natter_session_state_get_title_is_default (state));

  next = send (f, copy, "again");
  natter_test_sessions_wait_status (&f->t, copy, "completed");
  context = context_of (f, next);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", one);
  g_assert_cmpstr (context, ==, expected);
}

/* A version of the last message, made before an earlier turn of the
 * conversation it came from was damaged: its own turns read, but its
 * history runs through the damaged one. The readable part of that
 * history is the original's before the damage, so the copy is that
 * (here: nothing, the first turn being the damaged one), and a message
 * goes on from it; a copy of the version's own turns would be refused
 * again, and its Copy Readable Part would make another such copy. */
static void
test_recover_version_with_damaged_inherited_turn (Fixture       *f,
                                                  gconstpointer  data)
{
  int damage = GPOINTER_TO_INT (data);
  g_autofree char *sid = natter_test_sessions_create_titled (&f->t, "Chosen");
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *version = NULL;
  g_autofree char *again = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *next = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) report = NULL;
  g_autoptr(GError) error = NULL;

  send_three (f, sid, &one, &two, &three);
  version = natter_test_sessions_fork (&f->t, sid, two, "Chosen");
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  again = send (f, version, "three again");
  natter_test_sessions_wait_status (&f->t, version, "completed");
  if (damage == DAMAGE_TORN)
    corrupt_file (f->t.w->turn_repo, one);
  else
    keep_first_lines (f, one, 2);
  path = turn_path (f, one);
  restart (f);

  g_free (natter_test_sessions_send (&f->t, version, "four", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  g_clear_error (&error);

  report = inspect_damage (f, version, path);
  g_assert_cmpuint (report->n_turns, ==, 0);
  /* The damaged turn is the original's first: its message, which the
   * copy cannot hold, is the one offered again. */
  g_assert_cmpstr (report->message, ==, "one");

  copy = recover_copy (f, version, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);
  g_assert_null (natter_session_state_get_forked_from_turn_id (state));
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered)");

  next = send (f, copy, "again");
  g_assert_nonnull (next);
  natter_test_sessions_wait_status (&f->t, copy, "completed");
}

/* A turn_appended whose turn file is missing is a dangling reference:
 * corruption (docs/sessions.md §7), said as such, naming the file. */
static void
test_dangling_latest_turn (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *tid = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionIndex) scanned = NULL;
  g_autoptr(GError) error = NULL;
  const char *message;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  tid = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  path = turn_path (f, tid);
  g_assert_cmpint (g_unlink (path), ==, 0);

  scanned = fresh_scan (f);
  message = natter_session_index_entry_get_error (natter_session_index_lookup (scanned, sid));
  g_assert_nonnull (message);
  g_assert_nonnull (strstr (message, "damaged"));
  g_assert_nonnull (strstr (message, path));

  restart (f);
  g_free (natter_test_sessions_send (&f->t, sid, "two", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, "damaged"));
  g_assert_nonnull (strstr (error->message, path));
}

/* A directory where a session file should be: listed, as damaged. */
static void
test_directory_as_session (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *good = natter_test_sessions_create_titled (&f->t, "good");
  g_autofree char *gone = natter_test_sessions_create_titled (&f->t, "gone");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->session_repo, gone, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(NatterSessionIndex) scanned = NULL;
  NatterSessionIndexEntry *entry;

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);

  scanned = fresh_scan (f);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (scanned)), ==, 2);
  g_assert_null (natter_session_index_entry_get_error (natter_session_index_lookup (scanned, good)));
  entry = natter_session_index_lookup (scanned, gone);
  g_assert_nonnull (entry);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), path));
  g_assert_nonnull (strstr (natter_session_index_entry_get_error (entry), "is a directory"));
  g_assert_cmpint (g_rmdir (path), ==, 0);
}

/* An interrupted turn whose history became unreadable: resuming it ends
 * it (failed, naming the file) instead of failing the same way for ever. */
static void
test_resume_unreadable_context (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  const char *latest;
  JsonObject *terminal;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  send_crashing_at (f, sid, "two", NATTER_SESSIONS_STEP_APPEND);
  path = turn_path (f, one);
  corrupt_file (f->t.w->turn_repo, one);
  restart (f);

  resume (f, sid, &error);
  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, sid, "failed");
  latest = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (f->t.index, sid));
  events = natter_test_sessions_read (f->t.w->turn_repo, latest);
  terminal = event_at (events, events->len - 1);
  g_assert_cmpstr (json_object_get_string_member (terminal, "code"), ==, NATTER_TURN_FAILED_CONTEXT_UNREADABLE);
  g_assert_nonnull (strstr (json_object_get_string_member (terminal, "error"), path));

  /* The history is still damaged: the next message is refused. */
  g_free (natter_test_sessions_send (&f->t, sid, "three", &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
  g_assert_nonnull (strstr (error->message, path));
}

/* Replaces line @n (1-based) of @path with @text. */
static void
damage_line (const char *path,
             guint       n,
             const char *text)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *joined = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >, n);
  g_free (lines[n - 1]);
  lines[n - 1] = g_strdup (text);
  joined = g_strjoinv ("\n", lines);
  g_assert_true (g_file_set_contents (path, joined, -1, NULL));
}

/* A damaged session: what is left of it is found (title, file, line,
 * reason), and copied to a new session whose turns are the readable
 * prefix's; the damaged file is byte for byte what it was. */
static void
test_recover_readable_prefix (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *next = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *path = NULL;
  g_autofree char *context = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->t.w->session_repo, sid, NULL);
  g_autoptr(NatterSessionIndex) scanned = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;
  NatterSessionIndexEntry *entry;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  three = send (f, sid, "three");
  natter_test_sessions_wait_status (&f->t, sid, "completed");

  /* session_created, turn_appended, title_changed, turn_appended ×2:
   * the second turn_appended is damaged. */
  path = g_file_get_path (file);
  damage_line (path, 4, "{\"type\":\"turn_appended\",");
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));

  scanned = fresh_scan (f);
  entry = natter_session_index_lookup (scanned, sid);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "one");

  damage = inspect_damage (f, sid, path);
  g_assert_cmpstr (damage->title, ==, "one");
  g_assert_cmpuint (damage->line, ==, 4);
  g_assert_nonnull (damage->reason);
  g_assert_cmpuint (damage->n_turns, ==, 1);
  g_assert_true (damage->can_copy);

  copy = recover_copy (f, sid, NULL);
  g_assert_cmpstr (copy, !=, sid);
  g_assert_cmpint (created_version (f, copy), ==, 1);

  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  state = natter_test_sessions_get (&f->t, copy);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_turn (state, 0)->turn_id, ==, one);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "one (recovered)");
  entry = natter_session_index_lookup (f->t.index, copy);
  g_assert_nonnull (entry);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "completed");
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "one (recovered)");

  /* The copy goes on from its last turn. */
  next = send (f, copy, "four");
  natter_test_sessions_wait_status (&f->t, copy, "completed");
  context = context_of (f, next);
  expected = g_strdup_printf ("{\"previousTurnId\":\"%s\"}", one);
  g_assert_cmpstr (context, ==, expected);
  g_clear_pointer (&after, g_free);
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
}

/* The session log whole but its latest turn's damaged: the damage is
 * that turn file, and the copy is everything before it. */
static void
test_recover_without_damaged_latest_turn (Fixture       *f,
                                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);

  damage = inspect_damage (f, sid, path);
  g_assert_cmpuint (damage->line, ==, 5);
  g_assert_cmpuint (damage->n_turns, ==, 1);

  copy = recover_copy (f, sid, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, one);
}

/* An answer that lost its end before one whose file is torn: the first
 * damage is the earlier one, and the copy ends before it rather than
 * make it the copy's last answer, as if only interrupted. */
static void
test_recover_before_unended_then_torn (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) damage = NULL;

  send_three (f, sid, &one, &two, &three);
  keep_first_lines (f, two, 1);
  corrupt_file (f->t.w->turn_repo, three);
  path = turn_path (f, two);
  restart (f);

  damage = inspect_damage (f, sid, path);
  g_assert_cmpuint (damage->n_turns, ==, 1);

  copy = recover_copy (f, sid, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==, one);
}

/* Two messages queued in @sid as the window would have queued them while
 * the latest turn ran (written to the log: the turn they waited behind
 * is then damaged, so the service could not queue them now), with their
 * queue ids. */
static void
store_queued (Fixture     *f,
              const char  *sid,
              const char  *first_text,
              char       **first,
              const char  *second_text,
              char       **second)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  g_autofree char *ts = natter_clock_format_ts (NATTER_CLOCK (f->t.w->clock));

  *first = natter_id_generator_next (f->t.w->ids);
  *second = natter_id_generator_next (f->t.w->ids);
  g_ptr_array_add (events, natter_test_message_queued_new (sid, ts, *first, first_text, "helper", NULL, NULL));
  g_ptr_array_add (events, natter_test_message_queued_new (sid, ts, *second, second_text, "helper", NULL, NULL));
  natter_session_events_raise (events, created_version (f, sid), NULL);
  g_assert_true (natter_jsonl_repo_append_sync (f->t.w->session_repo, sid, events, NULL, &error));
  g_assert_no_error (error);
}

/* Messages queued behind an answer whose file is then torn: the damaged
 * conversation can no longer send them, and its file is only read, so
 * the copy of its readable part takes them, still queued, in order and
 * with their options — the person's words are not stranded in a
 * conversation nothing can be sent in. The copy's queue is a live one:
 * the oldest becomes the copy's next turn. */
static void
test_recover_keeps_queue (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *promoted = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *session_path = NULL;
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, sid, NULL);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const NatterSessionQueuedMessage *queued;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  store_queued (f, sid, "queued first", &first, "queued second", &second);
  corrupt_file (f->t.w->turn_repo, two);
  restart (f);
  session_path = g_file_get_path (session_file);
  g_assert_true (g_file_get_contents (session_path, &before, NULL, NULL));

  copy = recover_copy (f, sid, &state);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 2);
  queued = natter_session_state_get_queued (state, 0);
  g_assert_cmpstr (queued->queue_id, ==, first);
  g_assert_cmpstr (json_object_get_string_member (queued->message, "content"), ==, "queued first");
  g_assert_cmpstr (json_object_get_string_member (queued->options, "agentId"), ==, "helper");
  queued = natter_session_state_get_queued (state, 1);
  g_assert_cmpstr (queued->queue_id, ==, second);
  g_assert_cmpstr (json_object_get_string_member (queued->message, "content"), ==, "queued second");
  /* Created at version 1 and raised before its first queued message. */
  g_assert_cmpint (created_version (f, copy), ==, 1);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 2);
  g_assert_true (g_file_get_contents (session_path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  natter_sessions_promote_queue_async (f->t.sessions, copy, NULL, natter_test_result_cb, &result);
  promoted = natter_sessions_promote_queue_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                   &error);
  g_assert_no_error (error);
  g_assert_nonnull (promoted);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (turn_created (f, promoted),
                                                                                 "input"), "content"),
                   ==, "queued first");
  natter_test_sessions_wait_idle (&f->t);
}

/* What the damaged conversation keeps about itself goes on in the copy
 * that stands in for it: its generation parameters, so its next message
 * is sent as it would have been there, and its folder, so it is found
 * where the person put it. The pin stays on the damaged conversation,
 * which stays listed: one conversation is not pinned twice over. */
static void
test_recover_keeps_settings (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create_titled (&f->t, "Kept");
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *folder = "2026-11-30T09-14-03Z-0000077-000";

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  parameters->has_temperature = TRUE;
  parameters->temperature = 0.25;
  natter_generation_parameters_set_system_instruction (parameters, "Answer in verse.");
  natter_sessions_set_parameters_async (f->t.sessions, sid, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_clear_object (&result);
  natter_sessions_set_folder_async (f->t.sessions, sid, folder, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                    &error));
  g_clear_object (&result);
  natter_sessions_set_pinned_async (f->t.sessions, sid, TRUE, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                    &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  corrupt_file (f->t.w->turn_repo, two);

  copy = recover_copy (f, sid, NULL);
  g_assert_nonnull (natter_sessions_get_kept_parameters (f->t.sessions, copy));
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->t.sessions, copy),
                                                     parameters));
  g_assert_cmpstr (natter_sessions_get_folder_id (f->t.sessions, copy), ==, folder);
  g_assert_false (natter_sessions_get_pinned (f->t.sessions, copy));
  g_assert_true (natter_sessions_get_pinned (f->t.sessions, sid));

  /* So they are after a restart: they are in the copy's file. */
  restart (f);
  g_assert_true (natter_generation_parameters_equal (natter_sessions_get_kept_parameters (f->t.sessions, copy),
                                                     parameters));
  g_assert_cmpstr (natter_sessions_get_folder_id (f->t.sessions, copy), ==, folder);
}

/* Sends @text to @sid with @model of provider "q", and waits until it
 * has completed. */
static char *
send_to_model (Fixture    *f,
               const char *sid,
               const char *text,
               const char *model)
{
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", "q", model);
  g_autoptr(GError) error = NULL;
  char *turn_id = natter_test_sessions_send_with (&f->t, sid, text, options, &error);

  g_assert_no_error (error);
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  return turn_id;
}

/* The copy comes with the report it was made by, so that no one looks
 * at the damage a second time to learn what the copy left out: where it
 * ends, the message it leaves out (the conversation's second) and its
 * words, and what the conversation was going on with — its latest
 * turn's agent and model, not the last copied turn's. The report says
 * what a look at the damage says. */
static void
test_recover_hands_back_report (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *path = NULL;
  g_autofree char *report_path = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) inspected = NULL;
  g_autoptr(NatterSessionDamage) report = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send_to_model (f, sid, "one", "first-model");
  two = send_to_model (f, sid, "two\nand more", "second-model");
  three = send_to_model (f, sid, "three", "second-model");
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);
  restart (f);

  copy = recover_copy_full (f, sid, &state, &report);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  report_path = g_file_get_path (report->file);
  g_assert_cmpstr (report_path, ==, path);
  g_assert_cmpuint (report->n_turns, ==, 1);
  g_assert_true (report->can_copy);
  g_assert_true (report->left_out);
  g_assert_true (report->message_read);
  g_assert_cmpstr (report->message, ==, "two\nand more");
  g_assert_cmpstr (report->last_agent_id, ==, "helper");
  g_assert_nonnull (report->last_model);
  g_assert_cmpstr (json_object_get_string_member (report->last_model, "provider"), ==, "q");
  g_assert_cmpstr (json_object_get_string_member (report->last_model, "model"), ==, "second-model");
  /* The copy's own last turn is the first-model one: the report is what
   * says where the conversation was. */
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_turn (state, 0)->model, "model"), ==,
                   "first-model");

  inspected = inspect_damage (f, sid, path);
  g_assert_cmpuint (inspected->line, ==, report->line);
  g_assert_cmpstr (inspected->reason, ==, report->reason);
  g_assert_cmpuint (inspected->n_turns, ==, report->n_turns);
  g_assert_cmpstr (inspected->message, ==, report->message);
  g_assert_true (inspected->left_out);
  g_assert_cmpstr (json_object_get_string_member (inspected->last_model, "model"), ==, "second-model");
}

/* The first turn's file torn in its very first line: not even the
 * message can be read. The report says a message was left out, which
 * one (the first: nothing was copied) and that its words could not be
 * read, rather than offer nothing without a word. A damaged session log
 * leaves no turn out it knows of. */
static void
test_recover_torn_first_line (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *other = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *other_copy = NULL;
  g_autofree char *path = NULL;
  g_autofree char *session_path = NULL;
  g_autoptr(GFile) session_file = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSessionDamage) report = NULL;
  g_autoptr(NatterSessionDamage) other_report = NULL;

  send_three (f, sid, &one, &two, &three);
  path = turn_path (f, one);
  g_assert_true (g_file_set_contents (path, "{\"type\":\"turn_cr", -1, NULL));
  restart (f);

  copy = recover_copy_full (f, sid, &state, &report);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 0);
  g_assert_cmpuint (report->n_turns, ==, 0);
  g_assert_cmpuint (report->line, ==, 1);
  g_assert_true (report->left_out);
  g_assert_false (report->message_read);
  g_assert_null (report->message);

  /* The damage in the session's own log, past its last turn. */
  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NULL);
  g_free (send (f, other, "kept"));
  natter_test_sessions_wait_status (&f->t, other, "completed");
  session_file = natter_jsonl_repo_get_file (f->t.w->session_repo, other, NULL);
  session_path = g_file_get_path (session_file);
  natter_test_append_file (session_path, "{\"type\":");
  restart (f);
  other_copy = recover_copy_full (f, other, NULL, &other_report);
  g_assert_cmpuint (other_report->n_turns, ==, 1);
  g_assert_false (other_report->left_out);
  g_assert_false (other_report->message_read);
  g_assert_null (other_report->message);
}

/* A conversation titled @title with two answered messages, the second
 * turn's file damaged, read again after a restart (transfer full: its
 * id). */
static char *
titled_with_second_turn_damaged (Fixture    *f,
                                 const char *title)
{
  char *sid = natter_test_sessions_create_titled (&f->t, title);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;

  natter_test_sessions_script (&f->t, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  one = send (f, sid, "one");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  two = send (f, sid, "two");
  natter_test_sessions_wait_status (&f->t, sid, "completed");
  corrupt_file (f->t.w->turn_repo, two);
  restart (f);
  return sid;
}

/* Each copy of the same damaged conversation can be told from the
 * others in the list: the first is "… (recovered)", the next "…
 * (recovered 2)", as a file manager numbers a second copy of a file;
 * a title no longer listed is free again. */
static void
test_recover_twice_distinct_titles (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *sid = titled_with_second_turn_damaged (f, "Chosen");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *fourth = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;

  first = recover_copy (f, sid, &state);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered)");
  g_clear_pointer (&state, natter_session_state_unref);
  second = recover_copy (f, sid, &state);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered 2)");
  g_assert_false (natter_session_state_get_title_is_default (state));
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->t.index, second)), ==,
                   "Chosen (recovered 2)");
  g_clear_pointer (&state, natter_session_state_unref);
  third = recover_copy (f, sid, &state);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered 3)");
  g_clear_pointer (&state, natter_session_state_unref);

  g_assert_true (delete_session (f, first, &error));
  g_assert_no_error (error);
  fourth = recover_copy (f, sid, &state);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Chosen (recovered)");
}

/* A copy's title marks it once: the copy of a conversation that is a
 * copy already is numbered beside it, not marked a second time. */
static void
test_recover_copy_of_copy_title (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *sid = titled_with_second_turn_damaged (f, "Notes (recovered)");
  g_autofree char *copy = NULL;
  g_autoptr(NatterSessionState) state = NULL;

  copy = recover_copy (f, sid, &state);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Notes (recovered 2)");
}

/* natter_sessions_read_turn_message_finish() of @turn_id: whether its
 * message reads, its words in @out_text, the error when it does not. */
static gboolean
read_message (Fixture     *f,
              const char  *turn_id,
              char       **out_text,
              GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_read_turn_message_async (f->t.sessions, turn_id, NULL, natter_test_result_cb, &result);
  return natter_sessions_read_turn_message_finish (f->t.sessions, natter_test_sessions_wait_result (&result),
                                                   out_text, error);
}

/* A damaged turn still tells its message while its first line reads
 * (for the window to show which message it was); torn in that line, or
 * gone, it tells nothing and says so. The files are only read. */
static void
test_read_damaged_turn_message (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *sid = natter_test_sessions_create (&f->t);
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;
  g_autofree char *three = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GError) error = NULL;

  send_three (f, sid, &one, &two, &three);
  corrupt_file (f->t.w->turn_repo, two);
  path = turn_path (f, two);
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  g_assert_true (read_message (f, two, &text, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "two");
  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  g_clear_pointer (&text, g_free);

  g_clear_pointer (&path, g_free);
  path = turn_path (f, one);
  g_assert_true (g_file_set_contents (path, "{\"type\":\"turn_cr", -1, NULL));
  g_assert_false (read_message (f, one, &text, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
  g_assert_null (text);
  g_clear_error (&error);

  g_clear_pointer (&path, g_free);
  path = turn_path (f, three);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_false (read_message (f, three, NULL, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
}

void
sessions_add_damage_tests (void)
{
  ADD ("index/dangling-latest-turn-is-damage", test_dangling_latest_turn, NULL);
  ADD ("index/directory-as-session-is-damaged", test_directory_as_session, NULL);
  ADD ("send/damaged-earlier-turn-refused", test_unreadable_earlier_turn, GINT_TO_POINTER (DAMAGE_TORN));
  ADD ("send/earlier-turn-that-lost-its-end-refused", test_unreadable_earlier_turn,
       GINT_TO_POINTER (DAMAGE_END_LOST));
  ADD ("fork/at-a-damaged-turn-is-a-damaged-history", test_fork_at_unreadable_turn, GINT_TO_POINTER (DAMAGE_TORN));
  ADD ("fork/at-a-turn-that-lost-its-end-is-a-damaged-history", test_fork_at_unreadable_turn,
       GINT_TO_POINTER (DAMAGE_END_LOST));
  ADD ("send/missing-earlier-turn-refused", test_unreadable_earlier_turn, GINT_TO_POINTER (DAMAGE_MISSING));
  ADD ("send/damaged-earlier-turn-while-open-refused", test_unreadable_earlier_turn_while_open,
       GINT_TO_POINTER (FALSE));
  ADD ("send/missing-earlier-turn-while-open-refused", test_unreadable_earlier_turn_while_open,
       GINT_TO_POINTER (TRUE));
  ADD ("send/resume-with-damaged-history-fails-then-refuses", test_resume_unreadable_context, NULL);
  ADD ("recover/copies-readable-prefix-leaves-file", test_recover_readable_prefix, NULL);
  ADD ("recover/leaves-out-damaged-latest-turn", test_recover_without_damaged_latest_turn, NULL);
  ADD ("recover/ends-before-damaged-middle-turn", test_recover_before_damaged_middle_turn, NULL);
  ADD ("recover/ends-before-unended-turn-then-torn", test_recover_before_unended_then_torn, NULL);
  ADD ("recover/version-with-torn-inherited-turn", test_recover_version_with_damaged_inherited_turn,
       GINT_TO_POINTER (DAMAGE_TORN));
  ADD ("recover/version-with-inherited-turn-that-lost-its-end", test_recover_version_with_damaged_inherited_turn,
       GINT_TO_POINTER (DAMAGE_END_LOST));
  ADD ("send/earlier-turn-out-of-order-named", test_earlier_turn_out_of_order, NULL);
  ADD ("recover/keeps-queued-messages", test_recover_keeps_queue, NULL);
  ADD ("recover/keeps-parameters-and-folder", test_recover_keeps_settings, NULL);
  ADD ("recover/hands-back-its-report", test_recover_hands_back_report, NULL);
  ADD ("recover/torn-first-line-says-so", test_recover_torn_first_line, NULL);
  ADD ("recover/second-copy-has-its-own-title", test_recover_twice_distinct_titles, NULL);
  ADD ("recover/copy-of-a-copy-marked-once", test_recover_copy_of_copy_title, NULL);
  ADD ("recover/damaged-turn-tells-its-message", test_read_damaged_turn_message, NULL);
}
