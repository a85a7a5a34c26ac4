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

static NatterTestCommandLine *
forward (NatterTestServices *f,
         const char * const *arguments)
{
  g_autofree char *data_dir = g_file_get_path (f->dir);
  g_autofree char *data = g_strdup_printf ("NATTER_DATA_DIR=%s", data_dir);
  const char *environment[] = { "LC_ALL=C.UTF-8", data, NULL };
  NatterTestCommandLine *cmdline = natter_test_command_line_new (arguments, environment);

  g_assert_cmpint (natter_test_command_line_run (cmdline, f->services, WAIT_MS), ==, 0);
  return cmdline;
}

/* A turn the window runs whose stream has sent nothing yet looks
 * interrupted in its file; `natter sessions` says it runs. */
static void
test_sessions_running (void)
{
  const NatterTestResponse silent = { .status = 200, .content_type = NATTER_TEST_SSE,
                                      .chunks = NATTER_TEST_CHUNKS (""), .keep_open = TRUE };
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

  if (g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("no compiled settings schema (built without the UI)");
      return;
    }
  g_setenv ("GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  natter_test_services_set_up (&f, NULL);
  natter_test_services_serve (&f, NULL, &silent, 1);
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/forwarded/sessions-running", test_sessions_running);
  return g_test_run ();
}
