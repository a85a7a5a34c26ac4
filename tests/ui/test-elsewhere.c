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
 * this device, the first new event naming it. The messages queued
 * behind such a turn are that device's: shown read only, saying so.
 * And Natter launched on another data folder while this one runs: the
 * window says so, once.
 */

#include <string.h>

#include "natter-markdown-view.h"
#include "natter-queued-message.h"
#include "natter-session-row.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define LAPTOP "laptop <b>&</b>"
static const char *answering_text = "Answering on “" LAPTOP "”…";
static const char *waiting_text = "The answer is being written on another device (“" LAPTOP "”); a message can be "
                                  "sent or queued here once it has ended.";
static const char *queued_text = "The answer is being written on another device (“" LAPTOP "”); that device sends "
                                 "this message when it ends, and it cannot be changed here.";

static gboolean
answering_shown (gpointer data)
{
  GtkWidget *timeline = natter_window_get_timeline_list (data);

  ui_settle ();
  return ui_label_shown (timeline, answering_text) && ui_find_button (timeline, "Continue _Here…") != NULL;
}

/* The icon of @row's status mark named @icon_name, or NULL. */
static GtkWidget *
mark_icon (NatterSessionRow *row,
           const char       *icon_name)
{
  g_autoptr(GPtrArray) images = ui_find_all (GTK_WIDGET (row), GTK_TYPE_IMAGE);

  for (guint i = 0; i < images->len; i++)
    if (g_strcmp0 (gtk_image_get_icon_name (g_ptr_array_index (images, i)), icon_name) == 0)
      return g_ptr_array_index (images, i);
  return NULL;
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
  GtkWidget *icon;
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
  /* Shown, in the colour of the words beside it: red is for a failure,
   * and nothing failed. */
  icon = mark_icon (ui_find_session_row (window, session_id), "network-transmit-receive-symbolic");
  g_assert_nonnull (icon);
  g_assert_true (gtk_widget_get_visible (icon));
  g_assert_false (gtk_widget_has_css_class (icon, "error"));
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

typedef struct
{
  NatterWindow *window;
  const char   *caption;
} QueueShown;

/* The bubbles the open conversation's queue shows. */
static GPtrArray *
bubbles (NatterWindow *window)
{
  return ui_find_all (GTK_WIDGET (window->conversation.queue_view), NATTER_TYPE_QUEUED_MESSAGE);
}

static gboolean
queue_shown (gpointer data)
{
  QueueShown *q = data;
  g_autoptr(GPtrArray) shown = NULL;

  ui_settle ();
  shown = bubbles (q->window);
  return shown->len == 1 &&
         g_strcmp0 (natter_queued_message_get_caption (g_ptr_array_index (shown, 0)), q->caption) == 0;
}

/* A message queued on the laptop behind its answer, found here while the
 * answer is still being written there: the bubble shows it without Edit
 * and Remove and says why, and the message field says the same; nothing
 * is sent or changed here. Once the laptop's answer has been taken over
 * here and ended, the bubble is this device's to change again. */
static void
test_queue_elsewhere (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterDevice) laptop = natter_device_new ("laptop-id", LAPTOP);
  g_autoptr(NatterDevice) desktop = natter_device_new ("desktop-id", "desktop");
  g_autofree char *session_id = ui_create_session (u, "A story from the laptop");
  g_autofree char *turn_id = NULL;
  g_autofree char *begun = NULL;
  g_autofree char *queue_id = NULL;
  g_autofree char *session_before = NULL;
  g_autofree char *session_after = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) session_file = NULL;
  g_autoptr(GPtrArray) shown = NULL;
  NatterQueuedMessage *bubble;
  NatterComposer *composer;
  NatterWindow *window;
  QueueShown q;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  natter_turn_runtime_set_device (u->w->runtime, laptop);
  turn_id = ui_make_interrupted (u, session_id, "Tell me a story", &begun);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "And another one");
  natter_sessions_queue_message_async (u->sessions, session_id, input, options, FALSE, NULL, ui_result_cb, &result);
  queue_id = natter_sessions_queue_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_nonnull (queue_id);
  /* The result holds the service, which the restart replaces. */
  g_clear_object (&result);
  natter_turn_runtime_set_device (u->w->runtime, desktop);
  ui_world_restart (u);
  session_file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  session_before = ui_read_file (session_file);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (answering_shown, window);
  q = (QueueShown) { window, queued_text };
  ui_wait_until (queue_shown, &q);
  shown = bubbles (window);
  bubble = g_ptr_array_index (shown, 0);
  g_assert_true (natter_queued_message_get_read_only (bubble));
  g_assert_cmpstr (natter_queued_message_get_text (bubble), ==, "And another one");
  g_assert_true (ui_label_shown (GTK_WIDGET (window->conversation.queue_view), queued_text));
  g_assert_null (ui_find_button (GTK_WIDGET (window->conversation.queue_view), "_Edit"));
  g_assert_null (ui_find_button (GTK_WIDGET (window->conversation.queue_view), "_Remove"));
  /* The message field refuses in the same words: no send, no queueing. */
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, waiting_text);
  natter_composer_set_text (composer, "A third one");
  g_assert_false (natter_composer_send (composer));
  session_after = ui_read_file (session_file);
  g_assert_cmpstr (session_after, ==, session_before);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);

  ui_destroy_window (window);
  natter_turn_runtime_set_device (u->w->runtime, NULL);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *caption;
} NarrowQueue;

/* The bubble and its whole caption in the queue's own room: nothing of
 * them scrolled out of sight. */
static gboolean
queue_whole (gpointer data)
{
  NarrowQueue *n = data;
  QueueShown q = { n->window, n->caption };
  GtkWidget *scroller;
  GtkAdjustment *adjustment;

  if (!queue_shown (&q))
    return FALSE;
  ui_wait_painted ();
  scroller = ui_find_first (GTK_WIDGET (n->window->conversation.queue_view), GTK_TYPE_SCROLLED_WINDOW);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  return gtk_widget_get_width (GTK_WIDGET (n->window)) <= 360 && gtk_adjustment_get_page_size (adjustment) > 0 &&
         gtk_adjustment_get_upper (adjustment) <= gtk_adjustment_get_page_size (adjustment);
}

static char *
describe_queue (gpointer data)
{
  NarrowQueue *n = data;
  GtkWidget *scroller = ui_find_first (GTK_WIDGET (n->window->conversation.queue_view), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

  return g_strdup_printf ("the queue shows %.0f px of %.0f in a window %d px wide",
                          gtk_adjustment_get_page_size (adjustment), gtk_adjustment_get_upper (adjustment),
                          gtk_widget_get_width (GTK_WIDGET (n->window)));
}

/* At GNOME's mobile width, 360 px, the read-only caption of a message
 * queued on the laptop wraps to three lines: all of them show, none
 * hidden in a scroll that nothing points at. */
static void
test_queue_elsewhere_narrow (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterDevice) laptop = natter_device_new ("laptop-id", LAPTOP);
  g_autoptr(NatterDevice) desktop = natter_device_new ("desktop-id", "desktop");
  g_autofree char *session_id = ui_create_session (u, "A story from the laptop");
  g_autofree char *turn_id = NULL;
  g_autofree char *begun = NULL;
  g_autofree char *queue_id = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  NarrowQueue n;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  natter_turn_runtime_set_device (u->w->runtime, laptop);
  turn_id = ui_make_interrupted (u, session_id, "Tell me a story", &begun);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "And what happened next?");
  natter_sessions_queue_message_async (u->sessions, session_id, input, options, FALSE, NULL, ui_result_cb, &result);
  queue_id = natter_sessions_queue_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_turn_runtime_set_device (u->w->runtime, desktop);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 740);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  n = (NarrowQueue) { window, queued_text };
  ui_wait_until_full (queue_whole, describe_queue, &n);

  ui_destroy_window (window);
  natter_turn_runtime_set_device (u->w->runtime, NULL);
  ui_world_free (u);
}

static gboolean
dialog_says (gpointer data)
{
  const char *words = data;
  g_autoptr(GPtrArray) dialogs = g_ptr_array_new ();
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        g_ptr_array_add (dialogs, toplevel);
    }
  /* One dialog, whatever the number of launches refused. */
  return dialogs->len == 1 && strstr (adw_message_dialog_get_body (dialogs->pdata[0]), words) != NULL;
}

/* Launches of Natter on other data folders while this one runs (another
 * folder, where the window is elsewhere than this one's): the window
 * says so in one dialog, which names the folder of the latest launch,
 * not a dialog stacked per launch. */
static void
test_other_data_dir_launches (void)
{
  g_autoptr(GFile) first = g_file_new_for_path ("/tmp/natter-first-other-folder");
  g_autoptr(GFile) second = g_file_new_for_path ("/tmp/natter-second-other-folder");
  GtkWindow *dialog;
  GtkWindow *window;

  natter_application_refuse_data_dir (app, first);
  ui_wait_until (dialog_says, (gpointer) "/tmp/natter-first-other-folder");
  natter_application_refuse_data_dir (app, second);
  natter_application_refuse_data_dir (app, second);
  ui_wait_until (dialog_says, (gpointer) "/tmp/natter-second-other-folder");

  dialog = ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  window = gtk_window_get_transient_for (dialog);
  g_assert_true (NATTER_IS_WINDOW (window));
  gtk_window_destroy (dialog);
  ui_destroy_window (NATTER_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/elsewhere/continue-here", test_continue_here);
  g_test_add_func ("/elsewhere/queue", test_queue_elsewhere);
  g_test_add_func ("/elsewhere/queue-narrow", test_queue_elsewhere_narrow);
  g_test_add_func ("/elsewhere/other-data-dir-launches", test_other_data_dir_launches);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
