/* test-elsewhere.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A turn another device runs (docs/format.md §4.5), in the window: a
 * turn begun on "the laptop" and found here, not ended, is shown as
 * running there — "Answering on “…”…" under it, "on another device" in
 * the sidebar, the composer saying why it waits — never as interrupted
 * and never resumed by itself. The device's name comes from another
 * machine and holds markup, which shows as text. Continue Here… asks
 * first; Cancel changes nothing; Continue Here finishes the answer on
 * this device, the first new event naming it.
 */

#include <string.h>

#include "natter-markdown-view.h"
#include "natter-session-row.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define LAPTOP "laptop <b>&</b>"
static const char *answering_text = "Answering on “" LAPTOP "”…";
static const char *waiting_text = "The last answer is being written on another device. It shows here when it arrives.";

static gboolean
answering_shown (gpointer data)
{
  GtkWidget *timeline = natter_window_get_timeline_list (data);

  ui_settle ();
  return ui_label_shown (timeline, answering_text) && ui_find_button (timeline, "Continue _Here…") != NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  ui_settle ();
  return ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG) != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  ui_settle ();
  return ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG) == NULL;
}

/* Presses the dialog's button @label, as a person would. */
static void
respond (const char *label)
{
  GtkWidget *dialog = GTK_WIDGET (ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  GtkWidget *button = ui_find_button (dialog, label);

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  ui_wait_until (dialog_gone, NULL);
}

typedef struct
{
  UiWorld                 *u;
  NatterSessionIndexEntry *entry;
} Done;

static gboolean
completed (gpointer data)
{
  Done *d = data;

  ui_settle ();
  return g_strcmp0 (natter_session_index_entry_get_latest_turn_status (d->entry), "completed") == 0 &&
         !natter_sessions_is_turn_running (d->u->sessions, natter_session_index_entry_get_latest_turn_id (d->entry));
}

static void
test_continue_here (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterDevice) laptop = natter_device_new ("laptop-id", LAPTOP);
  g_autoptr(NatterDevice) desktop = natter_device_new ("desktop-id", "desktop");
  g_autofree char *session_id = ui_create_session (u, "A story from the laptop");
  g_autofree char *turn_id = NULL;
  g_autofree char *begun = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GFile) file = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  GtkWidget *timeline;
  GtkWidget *button;
  AdwMessageDialog *dialog;
  Done done;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_STEP_HOLD,
                            "{\"role\":\"assistant\",\"content\":\"Finished on the desktop\"}",
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  /* Begun on the laptop, which stopped in the middle; found here. */
  natter_turn_runtime_set_device (u->w->runtime, laptop);
  turn_id = ui_make_interrupted (u, session_id, "Tell me a story", &begun);
  g_assert_nonnull (strstr (begun, "\"device\":{\"id\":\"laptop-id\""));
  natter_turn_runtime_set_device (u->w->runtime, desktop);
  ui_world_restart (u);
  entry = natter_session_index_lookup (u->index, session_id);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "idle");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_device_name (entry), ==, LAPTOP);

  window = ui_window_new (app, u);
  timeline = natter_window_get_timeline_list (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (answering_shown, window);
  g_assert_false (ui_label_shown (timeline, "Interrupted before it finished, perhaps by a crash."));
  g_assert_null (ui_find_button (timeline, "_Resume"));
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)), ==, "elsewhere");
  g_assert_cmpstr (natter_composer_get_blocked_reason (natter_window_get_composer (window)), ==, waiting_text);
  /* Nothing moved on by itself: the model was asked once, on the laptop. */
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);

  /* Asked first: Cancel leaves it running there. */
  button = ui_find_button (timeline, "Continue _Here…");
  g_assert_true (gtk_widget_activate (button));
  ui_wait_until (dialog_shown, NULL);
  dialog = ADW_MESSAGE_DIALOG (ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), LAPTOP));
  respond ("_Cancel");
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);
  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  after = ui_read_file (file);
  g_assert_cmpstr (after, ==, begun);
  g_clear_pointer (&after, g_free);

  /* Continue Here: finished on this device, which the turn now names. */
  button = ui_find_button (timeline, "Continue _Here…");
  g_assert_true (gtk_widget_activate (button));
  ui_wait_until (dialog_shown, NULL);
  respond ("Continue _Here");
  done = (Done) { u, entry };
  ui_wait_until (completed, &done);
  after = ui_read_file (file);
  g_assert_true (g_str_has_prefix (after, begun));
  g_assert_nonnull (strstr (after + strlen (begun), "\"device\":{\"id\":\"desktop-id\""));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)));

  ui_destroy_window (window);
  natter_turn_runtime_set_device (u->w->runtime, NULL);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/elsewhere/continue-here", test_continue_here);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
