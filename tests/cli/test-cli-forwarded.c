/* test-cli-forwarded.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A command forwarded to the running window sees what only the window
 * knows: this process plays the window (its services), the command line
 * comes "from another process" as GApplication forwards it.
 */

#include "config.h"

#include <string.h>

#include "natter-cli.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define WAIT_MS 10000

/* @arguments as a command line of another process on @f's data
 * directory, in the C locale. */
static NatterTestCommandLine *
command_line (NatterTestServices *f,
              const char * const *arguments)
{
  g_autofree char *data_dir = g_file_get_path (f->dir);
  g_autofree char *data = g_strdup_printf ("NATTER_DATA_DIR=%s", data_dir);
  const char *environment[] = { "LC_ALL=C.UTF-8", data, NULL };

  return natter_test_command_line_new (arguments, environment);
}

static NatterTestCommandLine *
forward (NatterTestServices *f,
         const char * const *arguments)
{
  NatterTestCommandLine *cmdline = command_line (f, arguments);

  g_assert_cmpint (natter_test_command_line_run (cmdline, f->services, WAIT_MS), ==, 0);
  return cmdline;
}

/* Sets @f up as the window, with a server whose answers send nothing
 * and stay open; %FALSE, the test skipped, without the settings schema
 * the window's services need. */
static gboolean
serve_silently (NatterTestServices *f)
{
  const NatterTestResponse silent = { .status = 200, .content_type = NATTER_TEST_SSE,
                                      .chunks = NATTER_TEST_CHUNKS (""), .keep_open = TRUE };

  if (g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("no compiled settings schema (built without the UI)");
      return FALSE;
    }
  g_setenv ("GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  natter_test_services_set_up (f, NULL);
  natter_test_services_serve (f, NULL, &silent, 1);
  return TRUE;
}

/* A turn the window runs whose stream has sent nothing yet looks
 * interrupted in its file; `natter sessions` says it runs. */
static void
test_sessions_running (void)
{
  const char * const text[] = { "natter", "sessions", NULL };
  const char * const json[] = { "natter", "sessions", "--json", NULL };
  NatterTestServices f = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *line = NULL;
  g_autoptr(NatterTestCommandLine) listed = NULL;
  g_autoptr(NatterTestCommandLine) listed_json = NULL;
  g_autoptr(JsonNode) entries = NULL;
  JsonObject *entry;

  if (!serve_silently (&f))
    return;
  session_id = natter_test_services_create_session (&f);
  turn_id = natter_test_services_send (&f, session_id, "hello");
  g_assert_true (natter_sessions_is_turn_running (f.sessions, turn_id));

  listed = forward (&f, text);
  line = g_strdup_printf ("%s\trunning\t", session_id);
  g_assert_true (g_str_has_prefix (natter_test_command_line_get_out (listed), line));

  listed_json = forward (&f, json);
  entries = natter_test_json (natter_test_command_line_get_out (listed_json));
  entry = json_array_get_object_element (json_node_get_array (entries), 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnStatus"), ==, "running");

  natter_test_services_tear_down (&f, NULL);
}

typedef struct
{
  NatterTestServices *f;
  const char         *session_id;
  gboolean            done;
  int                 status;
} Pending;

static void
pending_ran_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Pending *pending = user_data;

  pending->status = natter_cli_run_finish (result);
  pending->done = TRUE;
}

/* The forwarded send's turn is under way in the window. */
static gboolean
send_running (gpointer data)
{
  Pending *pending = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (pending->f->sessions),
                                                                pending->session_id);
  const char *latest = entry != NULL ? natter_session_index_entry_get_latest_turn_id (entry) : NULL;

  return latest != NULL && natter_sessions_is_turn_running (pending->f->sessions, latest);
}

/* A `natter send` the window runs, whose conversation the person deletes
 * there: the caller is told why its answer will not come, in the words
 * the turn recorded, not only that it was cancelled. */
static void
test_send_cancelled_by_delete (void)
{
  const char *arguments[] = { "natter", "send", "--session", NULL, "hello", NULL };
  NatterTestServices f = { 0 };
  g_autofree char *session_id = NULL;
  g_autoptr(NatterTestCommandLine) cmdline = NULL;
  g_autoptr(GAsyncResult) deleted = NULL;
  g_autoptr(GError) error = NULL;
  Pending pending = { &f, NULL, FALSE, -1 };

  if (!serve_silently (&f))
    return;
  session_id = natter_test_services_create_session (&f);
  pending.session_id = session_id;
  arguments[3] = session_id;
  cmdline = command_line (&f, arguments);
  natter_cli_run_async (f.services, G_APPLICATION_COMMAND_LINE (cmdline), NULL, pending_ran_cb, &pending);
  g_assert_true (natter_test_wait_until (send_running, &pending, WAIT_MS));

  natter_sessions_delete_session_async (f.sessions, session_id, NULL, natter_test_result_cb, &deleted);
  natter_test_wait_for_pointer ((gpointer *) &deleted, WAIT_MS);
  g_assert_true (natter_sessions_delete_session_finish (f.sessions, deleted, &error));
  g_assert_no_error (error);
  natter_test_wait_for_flag (&pending.done, WAIT_MS);
  g_assert_cmpint (pending.status, ==, 1);
  g_assert_cmpstr (natter_test_command_line_get_err (cmdline), ==,
                   "natter: The turn was cancelled: The conversation was deleted\n");

  natter_test_services_tear_down (&f, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/forwarded/sessions-running", test_sessions_running);
  g_test_add_func ("/forwarded/send-cancelled-by-delete", test_send_cancelled_by_delete);
  return g_test_run ();
}
