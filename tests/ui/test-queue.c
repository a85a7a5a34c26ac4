/* test-queue.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Queued messages in the window (docs/sessions.md §4): while an
 * answer streams the composer stays usable and Enter queues; queued
 * messages show as pending bubbles with Edit and Remove; they are sent
 * when the answer completes; Stop asks whether the queue stays. A
 * conversation view that GTK keeps after its window went holds the
 * session service no longer.
 */

#include "natter-attachment-chip.h"
#include "natter-attachment-intake.h"
#include "natter-composer.h"
#include "natter-permission-card.h"
#include "natter-queue-view.h"
#include "natter-session-grants-queue.h"
#include "natter-test-sessions.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static gboolean
composer_running (gpointer data)
{
  return natter_composer_get_running (natter_window_get_composer (data));
}

typedef struct
{
  NatterWindow *window;
  guint         n;
  const char   *text;   /* nullable: a bubble that must be shown */
} QueueWait;

static gboolean
queue_shows (gpointer data)
{
  QueueWait *w = data;
  NatterQueueView *view;

  /* No ui_settle() here: the running answer's spinner keeps the frame
   * clock busy, and one iteration at a time is enough. */
  view = w->window->conversation.queue_view;
  return natter_queue_view_get_n_queued (view) == w->n &&
         gtk_widget_get_visible (GTK_WIDGET (view)) == (w->n > 0) &&
         (w->text == NULL || ui_label_shown (view, w->text));
}

static char *
describe_queue (gpointer data)
{
  QueueWait *w = data;
  NatterQueueView *view = w->window->conversation.queue_view;

  return g_strdup_printf ("the view shows %u (visible %d, mapped %d), expected %u “%s”",
                          natter_queue_view_get_n_queued (view), gtk_widget_get_visible (GTK_WIDGET (view)),
                          gtk_widget_get_mapped (GTK_WIDGET (view)), w->n, w->text != NULL ? w->text : "");
}

static void
wait_queue (NatterWindow *window,
            guint         n,
            const char   *text)
{
  QueueWait w = { window, n, text };

  ui_wait_until_full (queue_shows, describe_queue, &w);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  guint       n_turns;
  const char *status;
} TurnsWait;

static gboolean
turns_settled (gpointer data)
{
  TurnsWait *w = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (w->u->index, w->session_id);

  return natter_sessions_get_n_advances (w->u->sessions) == 0 &&
         natter_session_index_entry_get_turn_count (entry) == w->n_turns &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), w->status) == 0;
}

/* Turn @k of @state was started by the message @text. */
static void
assert_turn_input (UiWorld            *u,
                   NatterSessionState *state,
                   guint               k,
                   const char         *text)
{
  g_autoptr(GPtrArray) events = ui_get_turn (u, natter_session_state_get_turn (state, k)->turn_id);

  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_node_get_object (g_ptr_array_index (events, 0)), "input"), "content"),
                   ==, text);
}

static void
type_and_enter (NatterWindow *window,
                const char   *text)
{
  NatterComposer *composer = natter_window_get_composer (window);

  natter_composer_set_text (composer, text);
  g_assert_true (natter_composer_send (composer));
}

static AdwMessageDialog *
find_dialog (const char *heading)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_mapped (GTK_WIDGET (w)) &&
          g_strcmp0 (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), heading) == 0)
        return ADW_MESSAGE_DIALOG (w);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog (data) != NULL;
}

static void
answer_dialog (const char *heading,
               const char *response,
               const char *entry_text)
{
  AdwMessageDialog *dialog;

  ui_wait_until (dialog_shown, (gpointer) heading);
  dialog = find_dialog (heading);
  if (entry_text != NULL)
    {
      /* A field for several lines, not a one-line entry. */
      GtkWidget *field = ui_find_first (adw_message_dialog_get_extra_child (dialog), GTK_TYPE_TEXT_VIEW);

      g_assert_nonnull (field);
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (field)), entry_text, -1);
    }
  adw_message_dialog_response (dialog, response);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static void
test_typing_and_queueing_while_streaming (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Queue");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;
  NatterQueueView *view;
  TurnsWait done = { u, session_id, 2, "completed" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, "Stream please");
  ui_wait_model_held (u);
  ui_wait_until (composer_running, window);

  /* Enter while the answer streams queues the message. */
  type_and_enter (window, "Next question");
  wait_queue (window, 1, "Next question");
  g_assert_true (natter_composer_get_running (natter_window_get_composer (window)));
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (natter_window_get_composer (window))));
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  type_and_enter (window, "Never mind");
  wait_queue (window, 2, "Never mind");
  /* Queued messages fit a window 360 px wide: nothing in them makes the
   * window wider. */
  {
    int minimum;

    gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
    g_assert_cmpint (minimum, <=, 360);
  }

  /* Edit the first, remove the second. */
  view = window->conversation.queue_view;
  g_signal_emit_by_name (ui_find_button (view, "_Edit"), "clicked");
  answer_dialog ("Edit Queued Message", "save", "Next question, edited\nover two lines");
  wait_queue (window, 2, "Next question, edited\nover two lines");
  {
    g_autoptr(GPtrArray) removes = ui_find_all (view, GTK_TYPE_BUTTON);
    GtkWidget *last_remove = NULL;

    for (guint i = 0; i < removes->len; i++)
      if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (removes, i)), "_Remove") == 0)
        last_remove = g_ptr_array_index (removes, i);
    g_signal_emit_by_name (last_remove, "clicked");
  }
  wait_queue (window, 1, "Next question, edited\nover two lines");

  /* The answer completes: the queued message is the next turn. */
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_until (turns_settled, &done);
  wait_queue (window, 0, NULL);
  g_clear_pointer (&state, natter_session_state_unref);
  state = ui_get_session (u, session_id);
  assert_turn_input (u, state, 1, "Next question, edited\nover two lines");

  ui_destroy_window (window);
  ui_world_free (u);
}

#define RED_SHA256 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* A message queued with a file (as `natter send --queue --attach` does
 * while the window's answer streams) shows its words and the file's
 * chip, never the message's JSON; Edit edits the words, and the file
 * stays with the message in the queue event it writes. */
static void
test_edit_keeps_files (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Queue");
  g_autofree char *turn_id = NULL;
  g_autofree char *queue_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autoptr(JsonObject) input = NULL;
  g_autoptr(JsonArray) files = json_array_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  JsonObject *file = json_object_new ();
  JsonArray *content;
  NatterWindow *window;
  NatterQueueView *view;
  GtkWidget *chip;
  AdwMessageDialog *dialog;
  GtkWidget *field;
  GtkTextIter start, end;
  g_autofree char *in_field = NULL;
  TurnsWait done = { u, session_id, 1, "completed" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, "Stream please");
  ui_wait_model_held (u);

  json_object_set_string_member (file, "type", "blob");
  json_object_set_string_member (file, "sha256", RED_SHA256);
  json_object_set_string_member (file, "mediaType", "image/png");
  json_object_set_string_member (file, "name", "red.png");
  json_object_set_int_member (file, "size", 70);
  json_array_add_object_element (files, file);
  input = natter_user_message_new ("Look at this", files);
  natter_sessions_queue_message_async (u->sessions, session_id, input, options, FALSE, NULL, ui_result_cb, &result);
  queue_id = natter_sessions_queue_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);

  /* The words, and the file as a chip. */
  wait_queue (window, 1, "Look at this");
  view = window->conversation.queue_view;
  chip = ui_find_first (view, NATTER_TYPE_ATTACHMENT_CHIP);
  g_assert_nonnull (chip);
  g_assert_cmpstr (natter_attachment_chip_get_name (NATTER_ATTACHMENT_CHIP (chip)), ==, "red.png");
  labels = ui_find_all (view, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    g_assert_null (strstr (gtk_label_get_text (g_ptr_array_index (labels, i)), RED_SHA256));

  /* Edit shows the words only and says that the file stays. */
  g_signal_emit_by_name (ui_find_button (view, "_Edit"), "clicked");
  ui_wait_until (dialog_shown, (gpointer) "Edit Queued Message");
  dialog = find_dialog ("Edit Queued Message");
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), ==,
                   "It is sent when the answer before it is complete, with the file attached to it.");
  field = ui_find_first (adw_message_dialog_get_extra_child (dialog), GTK_TYPE_TEXT_VIEW);
  gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (GTK_TEXT_VIEW (field)), &start, &end);
  in_field = gtk_text_iter_get_text (&start, &end);
  g_assert_cmpstr (in_field, ==, "Look at this");
  answer_dialog ("Edit Queued Message", "save", "Look again");
  wait_queue (window, 1, "Look again");
  g_assert_nonnull (ui_find_first (view, NATTER_TYPE_ATTACHMENT_CHIP));

  /* The queue event keeps the file after the new words. */
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
  content = json_object_get_array_member (natter_session_state_get_queued (state, 0)->message, "content");
  g_assert_nonnull (content);
  g_assert_cmpuint (json_array_get_length (content), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "text"), ==,
                   "Look again");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 1), "sha256"), ==,
                   RED_SHA256);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 1), "name"), ==,
                   "red.png");

  /* No blob is stored for the file: the message is not sent. */
  g_clear_object (&result);
  natter_sessions_remove_queued_message_async (u->sessions, session_id, queue_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_remove_queued_message_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  wait_queue (window, 0, NULL);
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_until (turns_settled, &done);
  ui_destroy_window (window);
  ui_world_free (u);
}

#define QUEUED_CAPTION "Queued: sent when the answer above is complete"
#define WAITING_CAPTION "Waiting: sent after your next message is answered"

/* In @window, open on @session_id: "Long answer" sent, "Afterwards"
 * queued behind it while it streams, then Stop, answering its question
 * with @response. Returns the stopped turn. */
static char *
stop_an_answer_with_a_queue (UiWorld      *u,
                             NatterWindow *window,
                             const char   *session_id,
                             const char   *response)
{
  TurnsWait stopped = { u, session_id, 1, "cancelled" };
  char *turn_id;

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, "Long answer");
  ui_wait_model_held (u);
  ui_wait_until (composer_running, window);
  type_and_enter (window, "Afterwards");
  wait_queue (window, 1, "Afterwards");
  g_assert_true (ui_label_shown (window->conversation.queue_view, QUEUED_CAPTION));

  /* Stop asks first. */
  g_signal_emit_by_name (natter_window_get_composer (window), "stop");
  answer_dialog ("Stop the Answer?", response, NULL);
  ui_wait_until (turns_settled, &stopped);
  return turn_id;
}

static void
stop_with_queue (const char *response,
                 guint       n_left)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Stop");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  turn_id = stop_an_answer_with_a_queue (u, window, session_id, response);
  /* A kept queue waits for the person after a stopped answer: its
   * bubbles say so, not that they go when the answer completes. */
  wait_queue (window, n_left, n_left > 0 ? WAITING_CAPTION : NULL);
  g_assert_false (ui_label_shown (window->conversation.queue_view, QUEUED_CAPTION));
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, n_left);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
} Shown;

static gboolean
shows_another (gpointer data)
{
  Shown *s = data;

  return s->window->conversation.session_id != NULL &&
         g_strcmp0 (s->window->conversation.session_id, s->session_id) != 0;
}

/* Try Again on a stopped answer with a message waiting behind it: the
 * message waits behind the new try, in the version the window opens,
 * and is sent there once that answer completes; the version left behind
 * holds it no longer. */
static void
test_try_again_takes_the_queue (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Again");
  g_autofree char *turn_id = NULL;
  g_autofree char *version = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;
  TurnsWait answered = { u, NULL, 2, "completed" };
  Shown left = { NULL, session_id };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_STEP_HOLD,
                            NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  left.window = window;
  turn_id = stop_an_answer_with_a_queue (u, window, session_id, "keep");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", turn_id));
  ui_wait_model_held (u);
  ui_wait_until (shows_another, &left);
  version = g_strdup (window->conversation.session_id);
  wait_queue (window, 1, "Afterwards");
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 0);

  natter_fake_model_release (u->w->fakes->model);
  answered.session_id = version;
  ui_wait_until (turns_settled, &answered);
  wait_queue (window, 0, NULL);
  g_clear_pointer (&state, natter_session_state_unref);
  state = ui_get_session (u, version);
  assert_turn_input (u, state, 0, "Long answer");
  assert_turn_input (u, state, 1, "Afterwards");

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_stop_asks_keep_queue (void)
{
  stop_with_queue ("keep", 1);
}

static void
test_stop_asks_clear_queue (void)
{
  stop_with_queue ("clear", 0);
}

static guint
n_dialogs (const char *heading)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)) &&
          g_strcmp0 (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), heading) == 0)
        n++;
    }
  return n;
}

static gboolean
composer_idle (gpointer data)
{
  return !natter_composer_get_running (natter_window_get_composer (data));
}

static gboolean
no_stop_question (gpointer data)
{
  return n_dialogs ("Stop the Answer?") == 0;
}

/* Every write the service started (a promotion included) has landed. */
static void
flush (UiWorld *u)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_flush_async (u->sessions, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_flush_finish (u->sessions, ui_wait_result (&result), NULL));
}

static gboolean
stop_enabled (gpointer data)
{
  return gtk_widget_activate_action (data, "win.stop", NULL) == TRUE &&
         natter_composer_get_running (natter_window_get_composer (data));
}

/* The answer completes while "Stop the Answer?" asks: nothing queued is
 * sent behind the question's back. Stop pressed again brings the same
 * question forward, not a second one. The button then answers. */
static void
stop_question_holds_queue (const char *button,
                           guint       n_turns,
                           guint       n_left)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Held");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  AdwMessageDialog *dialog;
  TurnsWait completed = { u, session_id, 1, "completed" };
  TurnsWait after = { u, session_id, n_turns, "completed" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, "Long answer");
  ui_wait_model_held (u);
  ui_wait_until (composer_running, window);
  type_and_enter (window, "Afterwards");
  wait_queue (window, 1, "Afterwards");

  g_signal_emit_by_name (composer, "stop");
  ui_wait_until (dialog_shown, (gpointer) "Stop the Answer?");
  g_signal_emit_by_name (composer, "stop");
  ui_settle ();
  g_assert_cmpuint (n_dialogs ("Stop the Answer?"), ==, 1);

  /* The answer ends while the question is open: the queue stays. */
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_until (turns_settled, &completed);
  flush (u);
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
  g_clear_pointer (&state, natter_session_state_unref);

  dialog = find_dialog ("Stop the Answer?");
  g_assert_true (gtk_widget_activate (ui_find_button (dialog, button)));
  ui_wait_until (turns_settled, &after);
  flush (u);
  wait_queue (window, n_left, NULL);
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, n_turns);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, n_left);
  /* Nothing runs: no spinner, and Stop has nothing to stop (once the
   * service has said the answer settled). */
  ui_wait_until (composer_idle, window);
  g_assert_false (stop_enabled (window));
  /* The question goes once answered (its closing may take a frame). */
  ui_wait_until (no_stop_question, NULL);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_stop_question_clear (void)
{
  stop_question_holds_queue ("Stop and C_lear Queue", 1, 0);
}

static void
test_stop_question_keep (void)
{
  stop_question_holds_queue ("_Stop, Keep Queue", 1, 1);
}

/* Cancel: nothing was stopped, so the queue goes on as it would have. */
static void
test_stop_question_cancel (void)
{
  stop_question_holds_queue ("_Cancel", 2, 0);
}

/* At a phone's 360×740, eight messages queued while an answer streams:
 * the queue scrolls within a third of the window, the window keeps its
 * height and the composer stays on screen. */
static void
test_many_queued_narrow (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Many");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  graphene_rect_t bounds;
  int height_before;
  TurnsWait stopped = { u, session_id, 1, "cancelled" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 740);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  turn_id = ui_send (u, session_id, "Long answer");
  ui_wait_model_held (u);
  ui_wait_until (composer_running, window);
  ui_wait_painted ();
  ui_wait_painted ();
  height_before = gtk_widget_get_height (GTK_WIDGET (window));
  g_assert_cmpint (height_before, <=, 740);

  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *text = g_strdup_printf ("Queued question number %u, with a few words", i + 1);

      type_and_enter (window, text);
      wait_queue (window, i + 1, text);
    }
  for (guint i = 0; i < 3; i++)
    ui_wait_painted ();

  composer = natter_window_get_composer (window);
  g_test_message ("window %d px high (was %d), queue %d px", gtk_widget_get_height (GTK_WIDGET (window)),
                  height_before, gtk_widget_get_height (GTK_WIDGET (window->conversation.queue_view)));
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window)), ==, height_before);
  g_assert_cmpint (gtk_widget_get_height (GTK_WIDGET (window->conversation.queue_view)), <=, height_before / 3);
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (composer), GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, height_before);
  g_assert_cmpfloat (bounds.size.height, >, 0);
  /* The timeline keeps room to read the answer. */
  g_assert_cmpint (gtk_widget_get_height (natter_window_get_timeline_list (window)), >=, 100);

  /* Stopped and cleared, and done with before the window goes: what the
   * stop started holds the window until it ends. */
  g_signal_emit_by_name (composer, "stop");
  answer_dialog ("Stop the Answer?", "clear", NULL);
  ui_wait_until (turns_settled, &stopped);
  wait_queue (window, 0, NULL);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* Whether every label of @view lies within @column's width, in
 * @window's coordinates, with a pixel's leeway for rounding. */
static void
assert_within_column (GtkWidget *view,
                      GtkWidget *column,
                      GtkWidget *window)
{
  g_autoptr(GPtrArray) labels = ui_find_all (view, GTK_TYPE_LABEL);
  graphene_rect_t column_bounds;
  guint n_checked = 0;

  g_assert_true (gtk_widget_compute_bounds (column, window, &column_bounds));
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      graphene_rect_t bounds;

      if (!gtk_widget_get_mapped (label) || gtk_label_get_text (GTK_LABEL (label))[0] == '\0')
        continue;
      g_assert_true (gtk_widget_compute_bounds (label, window, &bounds));
      g_test_message ("“%s”: %.0f to %.0f px, the column %.0f to %.0f px", gtk_label_get_text (GTK_LABEL (label)),
                      bounds.origin.x, bounds.origin.x + bounds.size.width, column_bounds.origin.x,
                      column_bounds.origin.x + column_bounds.size.width);
      g_assert_cmpfloat (bounds.origin.x, >=, column_bounds.origin.x - 1);
      g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=,
                         column_bounds.origin.x + column_bounds.size.width + 1);
      n_checked++;
    }
  g_assert_cmpuint (n_checked, >, 0);
}

/* In a wide window (1280 px) the queued messages sit in the
 * conversation's column, as wide as the composer's under them, not
 * across the whole window. */
static void
test_queue_in_column_wide (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Wide");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *column;
  TurnsWait stopped = { u, session_id, 1, "cancelled" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, "Long answer");
  ui_wait_model_held (u);
  ui_wait_until (composer_running, window);
  type_and_enter (window, "A queued question with a few words");
  wait_queue (window, 1, "A queued question with a few words");
  for (guint i = 0; i < 3; i++)
    ui_wait_painted ();

  composer = natter_window_get_composer (window);
  /* The composer's column: what its clamp holds. */
  column = adw_clamp_get_child (ADW_CLAMP (ui_find_first (composer, ADW_TYPE_CLAMP)));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), >=, 1260);
  g_assert_cmpint (gtk_widget_get_width (column), <, 1000);
  assert_within_column (GTK_WIDGET (window->conversation.queue_view), column, GTK_WIDGET (window));

  g_signal_emit_by_name (composer, "stop");
  answer_dialog ("Stop the Answer?", "clear", NULL);
  ui_wait_until (turns_settled, &stopped);
  wait_queue (window, 0, NULL);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A crash between an answer completing and the promotion of the message
 * queued behind it leaves a completed latest turn and a pending message;
 * opening the conversation sends it. */
static void
test_opening_sends_what_a_crash_left_queued (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Crash");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;
  TurnsWait promoted = { u, session_id, 2, "completed" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "First");
  ui_wait_turn (u, turn_id);
  g_free (natter_test_lose_a_promotion (u->sessions, u->w->ids, session_id, "Left behind"));
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 1);
  g_assert_cmpuint (natter_session_state_get_n_turns (state), ==, 1);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (turns_settled, &promoted);
  wait_queue (window, 0, NULL);
  g_clear_pointer (&state, natter_session_state_unref);
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_queued (state), ==, 0);
  assert_turn_input (u, state, 1, "Left behind");

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
composer_not_running (gpointer data)
{
  return !natter_composer_get_running (natter_window_get_composer (data));
}

static gboolean
permission_card_shown (gpointer data)
{
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (data, NATTER_TYPE_PERMISSION_CARD);
  return cards->len == 1;
}

/* While a permission prompt waits, the answer has not ended: a message
 * typed then waits in the queue (as `natter send --queue` would queue
 * it), and goes once the prompt is answered and the turn completes. */
static void
test_queue_while_prompt_waits (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Prompt");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterWindow *window;
  TurnsWait done = { u, NULL, 2, "completed" };

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Use the tool");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (permission_card_shown, window);
  ui_wait_until (composer_running, window);
  g_assert_null (natter_composer_get_blocked_reason (natter_window_get_composer (window)));

  type_and_enter (window, "And then this");
  wait_queue (window, 1, "And then this");
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 1);

  /* Allowed: the turn completes, and the queued message becomes the next. */
  g_assert_true (gtk_widget_activate (ui_find_button (window, "_Allow")));
  done.session_id = session_id;
  ui_wait_until (turns_settled, &done);
  wait_queue (window, 0, NULL);
  state = ui_get_session (u, session_id);
  assert_turn_input (u, state, 1, "And then this");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A turn that waits for a permission is not stuck until someone denies:
 * Stop ends it, as it ends a running answer. */
static void
test_stop_while_prompt_waits (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Prompt");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  TurnsWait stopped = { u, NULL, 1, "cancelled" };

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")), NULL);
  turn_id = ui_send (u, session_id, "Use the tool");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (permission_card_shown, window);
  ui_wait_until (composer_running, window);

  g_signal_emit_by_name (natter_window_get_composer (window), "stop");
  stopped.session_id = session_id;
  ui_wait_until (turns_settled, &stopped);
  ui_wait_until (composer_not_running, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
queue_read_begun (gpointer data)
{
  NatterWindow *window = data;

  return window->queue.clock == NULL;
}

/* GTK 4.8 now and then keeps the conversation view after its window
 * went (a reference its focus handling took): the queue view inside it
 * lets go of the session service all the same, so that the turn runtime
 * goes when the service does. */
static void
test_kept_view_lets_go_of_the_service (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Kept");
  NatterWindow *window = ui_window_new (app, u);
  g_autoptr(GtkWidget) kept = NULL;

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (queue_read_begun, window);
  kept = g_object_ref (GTK_WIDGET (window->conversation.view));
  ui_destroy_window (window);
  /* Fails ("The turn runtime was not finalized") while anything in the
   * kept view holds the service. */
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/queue/typing-and-queueing-while-streaming", test_typing_and_queueing_while_streaming);
  g_test_add_func ("/queue/edit-keeps-files", test_edit_keeps_files);
  g_test_add_func ("/queue/stop-asks-keep-queue", test_stop_asks_keep_queue);
  g_test_add_func ("/queue/stop-asks-clear-queue", test_stop_asks_clear_queue);
  g_test_add_func ("/queue/try-again-takes-the-queue", test_try_again_takes_the_queue);
  g_test_add_func ("/queue/stop-question-clear", test_stop_question_clear);
  g_test_add_func ("/queue/stop-question-keep", test_stop_question_keep);
  g_test_add_func ("/queue/stop-question-cancel", test_stop_question_cancel);
  g_test_add_func ("/queue/many-queued-narrow", test_many_queued_narrow);
  g_test_add_func ("/queue/queue-in-column-wide", test_queue_in_column_wide);
  g_test_add_func ("/queue/opening-sends-what-a-crash-left-queued", test_opening_sends_what_a_crash_left_queued);
  g_test_add_func ("/queue/queue-while-prompt-waits", test_queue_while_prompt_waits);
  g_test_add_func ("/queue/stop-while-prompt-waits", test_stop_while_prompt_waits);
  g_test_add_func ("/queue/kept-view-lets-go-of-the-service", test_kept_view_lets_go_of_the_service);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
