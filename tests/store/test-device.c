/* test-device.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which device runs a turn (docs/format.md §4.5): the identity kept in
 * the data directory, the `device` member of turn events (its schema,
 * its fold: the last event that has one), and the startup scan, which
 * leaves an unended turn that names a device to the full read and
 * otherwise gives the full read's verdict.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-device.h"
#include "natter-json.h"
#include "natter-store-error.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "natter-turn-scan.h"
#include "natter-turn-schema.h"

#define TURN "2026-11-30T09-14-03Z-0000002-000"
#define SESSION "2026-11-30T09-14-03Z-0000001-000"
#define CREATED(device) \
  "{\"type\":\"turn_created\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:03.120Z\",\"schemaVersion\":1," \
  "\"sessionId\":\"" SESSION "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":" \
  "{\"agentId\":\"assistant\",\"systemPrompt\":\"\",\"model\":{\"provider\":\"p\",\"model\":\"m\"},\"tools\":[]}}," \
  "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Hi\"},\"config\":{\"autoPermission\":false," \
  "\"humanAvailable\":true,\"maxModelCalls\":50}" device "}\n"
#define REQUESTED(index, messages, device) \
  "{\"type\":\"model_call_requested\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:03.140Z\"," \
  "\"modelCallIndex\":" #index ",\"request\":{\"messages\":" messages ",\"parameters\":{}}" device "}\n"
#define FAILED(index, device) \
  "{\"type\":\"model_call_failed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:04.000Z\"," \
  "\"modelCallIndex\":" #index ",\"error\":\"interrupted\"" device "}\n"
#define COMPLETED(index) \
  "{\"type\":\"model_call_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:05.000Z\"," \
  "\"modelCallIndex\":" #index ",\"message\":{\"role\":\"assistant\",\"content\":\"Hello\"}," \
  "\"finishReason\":\"stop\",\"usage\":{}}\n" \
  "{\"type\":\"turn_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:05.001Z\"," \
  "\"output\":{\"role\":\"assistant\",\"content\":\"Hello\"},\"finishReason\":\"stop\",\"usage\":{}}\n"
#define LAPTOP ",\"device\":{\"id\":\"laptop-id\",\"name\":\"laptop\"}"
#define DESKTOP ",\"device\":{\"id\":\"desktop-id\",\"name\":\"desk <top> & co\"}"

static NatterTurnState *
reduce_text (const char  *text,
             GError     **error)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_ptr_array_add (events, natter_test_json (lines[i]));
  return natter_turn_reduce (events, error);
}

/* The identity: made once, kept, never the same for two data folders,
 * made again when the file came from another machine. */
static void
test_identity (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) other_dir = natter_test_make_temp_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterDevice) first = natter_device_load_or_create_sync (dir, &error);
  g_autoptr(NatterDevice) again = NULL;
  g_autoptr(NatterDevice) other = NULL;
  g_autoptr(NatterDevice) moved = NULL;
  g_autofree char *path = g_build_filename (g_file_peek_path (dir), NATTER_DEVICE_FILE_NAME, NULL);
  g_autofree char *contents = NULL;
  g_autofree char *foreign = NULL;
  GStatBuf st;

  g_assert_no_error (error);
  g_assert_cmpstr (natter_device_get_id (first), !=, "");
  g_assert_cmpstr (natter_device_get_name (first), ==, g_get_host_name ());
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  again = natter_device_load_or_create_sync (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_device_get_id (again), ==, natter_device_get_id (first));
  g_assert_true (natter_device_is_this (again, natter_device_get_id (first)));
  g_assert_false (natter_device_is_this (again, "laptop-id"));
  /* A turn that names no device, and a process that knows none, count
   * as here, as before devices were recorded. */
  g_assert_true (natter_device_is_this (again, NULL));
  g_assert_true (natter_device_is_this (NULL, "laptop-id"));

  other = natter_device_load_or_create_sync (other_dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_device_get_id (other), !=, natter_device_get_id (first));

  /* The file of another machine (a folder copied whole) is not kept. */
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  if (strstr (contents, "Machine=") != NULL)
    {
      foreign = g_strdup_printf ("[Device]\nId=%s\nName=elsewhere\nMachine=0000\n", natter_device_get_id (first));
      g_assert_true (g_file_set_contents (path, foreign, -1, NULL));
      moved = natter_device_load_or_create_sync (dir, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (natter_device_get_id (moved), !=, natter_device_get_id (first));
    }
  else
    g_test_message ("No machine id to tell machines apart here");

  natter_test_remove_tree (dir);
  natter_test_remove_tree (other_dir);
}

/* The identity as a process without the writer lock reads it
 * (docs/sessions.md §8.3): the one kept, or none, and nothing written
 * either way — not even when the kept one is another machine's. */
static void
test_load_only (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterDevice) none = NULL;
  g_autoptr(NatterDevice) made = NULL;
  g_autoptr(NatterDevice) read = NULL;
  g_autofree char *path = g_build_filename (g_file_peek_path (dir), NATTER_DEVICE_FILE_NAME, NULL);
  g_autofree char *contents = NULL;
  g_autofree char *after = NULL;

  none = natter_device_load_sync (dir, &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO);
  g_clear_error (&error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  made = natter_device_load_or_create_sync (dir, &error);
  g_assert_no_error (error);
  read = natter_device_load_sync (dir, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_device_get_id (read), ==, natter_device_get_id (made));
  g_assert_cmpstr (natter_device_get_name (read), ==, natter_device_get_name (made));

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  if (strstr (contents, "Machine=") != NULL)
    {
      g_autofree char *foreign = g_strdup_printf ("[Device]\nId=%s\nName=elsewhere\nMachine=0000\n",
                                                  natter_device_get_id (made));

      g_assert_true (g_file_set_contents (path, foreign, -1, NULL));
      g_clear_object (&read);
      read = natter_device_load_sync (dir, &error);
      g_assert_null (read);
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO);
      g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
      g_assert_cmpstr (after, ==, foreign);
    }
  else
    g_test_message ("No machine id to tell machines apart here");

  natter_test_remove_tree (dir);
}

/* `device` on any turn event: `{id, name}`, checked like every member. */
static void
test_schema (void)
{
  static const char * const bad[] = {
    ",\"device\":\"laptop\"",
    ",\"device\":{\"name\":\"laptop\"}",
    ",\"device\":{\"id\":\"\",\"name\":\"laptop\"}",
    ",\"device\":{\"id\":\"laptop-id\"}",
    ",\"device\":{\"id\":7,\"name\":\"laptop\"}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *line = g_strdup_printf (REQUESTED (0, "[\"input\"]", "%s"), bad[i]);
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;

      g_strchomp (line);
      node = natter_test_json (line);
      g_assert_false (natter_turn_event_validate (json_node_get_object (node), TURN, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
      g_assert_nonnull (strstr (error->message, "device"));
    }
  {
    g_autofree char *line = g_strchomp (g_strdup (REQUESTED (0, "[\"input\"]", LAPTOP)));
    g_autoptr(JsonNode) node = natter_test_json (line);
    g_autoptr(GError) error = NULL;

    /* Members of its own it does not know are ignored, like an event's. */
    json_object_set_string_member (json_object_get_object_member (json_node_get_object (node), "device"),
                                   "model", "ThinkPad");
    g_assert_true (natter_turn_event_validate (json_node_get_object (node), TURN, &error));
    g_assert_no_error (error);
  }
}

/* The device of a turn is that of its last event that names one. */
static void
test_fold (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnState) none = reduce_text (CREATED ("") REQUESTED (0, "[\"input\"]", ""), &error);
  g_autoptr(NatterTurnState) laptop = NULL;
  g_autoptr(NatterTurnState) taken = NULL;

  g_assert_no_error (error);
  g_assert_null (natter_turn_state_get_device_id (none));

  laptop = reduce_text (CREATED (LAPTOP) REQUESTED (0, "[\"input\"]", ""), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_turn_state_get_device_id (laptop), ==, "laptop-id");
  g_assert_cmpstr (natter_turn_state_get_device_name (laptop), ==, "laptop");

  /* Taken over: the desktop closed the laptop's call and goes on. */
  taken = reduce_text (CREATED (LAPTOP) REQUESTED (0, "[\"input\"]", "") FAILED (0, DESKTOP)
                       REQUESTED (1, "[]", ""), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (natter_turn_state_get_device_id (taken), ==, "desktop-id");
  g_assert_cmpstr (natter_turn_state_get_device_name (taken), ==, "desk <top> & co");
}

/* The scan's verdict is the full read's: an unended turn that names a
 * device is the full read's to give (with the device); an ended one, or
 * one that names none, the scan decides; a bad `device` is damage. */
static void
test_scan (void)
{
  static const struct { const char *text; gboolean decided; NatterTurnStatus status; } cases[] = {
    { CREATED (LAPTOP) REQUESTED (0, "[\"input\"]", ""), FALSE, NATTER_TURN_STATUS_IDLE },
    { CREATED ("") REQUESTED (0, "[\"input\"]", ""), TRUE, NATTER_TURN_STATUS_IDLE },
    { CREATED (LAPTOP) REQUESTED (0, "[\"input\"]", "") COMPLETED (0), TRUE, NATTER_TURN_STATUS_COMPLETED },
    { CREATED (LAPTOP) REQUESTED (0, "[\"input\"]", "") FAILED (0, DESKTOP) REQUESTED (1, "[]", "") COMPLETED (1),
      TRUE, NATTER_TURN_STATUS_COMPLETED },
    { CREATED (",\"device\":{\"name\":\"laptop\"}") REQUESTED (0, "[\"input\"]", "") COMPLETED (0), FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      NatterTurnStatus status;
      gboolean imported;
      g_autoptr(GError) error = NULL;
      g_autoptr(NatterTurnState) state = reduce_text (cases[i].text, &error);

      g_assert_cmpint (natter_turn_scan_contents (cases[i].text, strlen (cases[i].text), TURN, &status, &imported),
                       ==, cases[i].decided);
      if (cases[i].decided)
        g_assert_cmpint (status, ==, cases[i].status);
      /* What the full read makes of the same bytes. */
      if (i == G_N_ELEMENTS (cases) - 1)
        g_assert_null (state);
      else
        g_assert_cmpint (natter_derive_turn_status (state), ==, cases[i].status);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/device/identity", test_identity);
  g_test_add_func ("/device/load-only", test_load_only);
  g_test_add_func ("/device/schema", test_schema);
  g_test_add_func ("/device/fold", test_fold);
  g_test_add_func ("/device/scan", test_scan);
  return g_test_run ();
}
