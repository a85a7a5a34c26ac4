/* test-sidebar-delete.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deleting from the sidebar: Delete only ever leads to an undo toast (no
 * key press in the list destroys anything without a chance to undo);
 * closing the window while the toast is up carries the deletion out, and an answer
 * streaming meanwhile goes on until the toast has gone. Deleted
 * elsewhere while open, a conversation is left for a new one that keeps
 * the draft.
 */

#include "natter-folder-log.h"
#include "natter-folders.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-settings.h"
#include "natter-store-watch.h"
#include "test-sidebar.h"

static gboolean
file_exists (UiWorld    *u,
             const char *session_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);

  return file != NULL && g_file_query_exists (file, NULL);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
} Gone;

static gboolean
session_gone (gpointer data)
{
  Gone *g = data;

  return !file_exists (g->u, g->session_id) &&
         natter_session_index_lookup (g->u->index, g->session_id) == NULL;
}

static void
press_key (GtkWidget *widget,
           guint      keyval)
{
  /* The list's shortcut controller is what a key press reaches. */
  for (guint i = 0; i < g_list_model_get_n_items (gtk_widget_observe_controllers (widget)); i++)
    {
      g_autoptr(GtkEventController) controller =
        g_list_model_get_item (gtk_widget_observe_controllers (widget), i);
      GListModel *shortcuts;

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      shortcuts = G_LIST_MODEL (controller);
      for (guint j = 0; j < g_list_model_get_n_items (shortcuts); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (shortcuts, j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval)
            gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                          gtk_shortcut_get_arguments (shortcut));
        }
    }
}

void
test_sidebar_delete_has_undo (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *victim = ui_create_session (u, "");
  NatterWindow *window = ui_window_new (app, u);
  GListModel *model = natter_window_get_sidebar_model (window);
  Gone gone = { u, victim };

  g_assert_true (natter_window_open_session (window, victim));
  wait_row (window, victim, "New chat");

  /* BackSpace does nothing; Delete hides the session behind an undo
   * toast and leaves the file alone. */
  press_key (natter_window_get_session_list (window), GDK_KEY_BackSpace);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  press_key (natter_window_get_session_list (window), GDK_KEY_Delete);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_true (file_exists (u, victim));
  g_assert_nonnull (natter_session_index_lookup (u->index, victim));
  /* The toast's button is "Undo" to a screen reader as on screen, its
   * mnemonic's underscore not spelled out. */
  ui_assert_named_as_shown (ui_find_button (natter_window_get_toast_overlay (window), "_Undo"), "Undo");

  /* Undo brings it back, untouched. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", victim);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, victim);
  ui_settle ();
  g_assert_true (file_exists (u, victim));

  /* Deleting again, from its menu, and letting the toast go removes that
   * file only. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", victim);
  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (session_gone, &gone);
  g_assert_true (file_exists (u, keep));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);
  g_assert_cmpstr (sidebar_id (window, 0), ==, keep);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A message that comes to the conversation while its toast is up
 * (`natter send --session` through the running window, a queued
 * message) keeps it: when the toast goes, the conversation is listed
 * again with its answer, and a toast says why, not deleted. */
void
test_sidebar_delete_keeps_grown (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *session_id = ui_create_session (u, "Almost gone");
  g_autofree char *turn_id = NULL;
  NatterWindow *window = ui_window_new (app, u);
  GListModel *model = natter_window_get_sidebar_model (window);

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Still here.\"}", NULL);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Almost gone");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 1);

  turn_id = ui_send (u, session_id, "Are you still there?");
  ui_wait_turn (u, turn_id);
  natter_window_dismiss_pending_deletes (window);
  ui_settle ();
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  wait_row (window, session_id, "Almost gone");
  g_assert_true (file_exists (u, session_id));
  g_assert_nonnull (natter_session_index_lookup (u->index, session_id));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} ToastWait;

typedef struct
{
  UiWorld    *u;
  const char *session_id;
} Placed;

static gboolean
pinned (gpointer data)
{
  Placed *p = data;

  return natter_sessions_get_pinned (p->u->sessions, p->session_id);
}

static gboolean
toast_shown (gpointer data)
{
  ToastWait *w = data;

  return ui_label_shown (natter_window_get_toast_overlay (w->window), w->text);
}

/* Pinned and moved to a folder while its toast is up (`natter pin` and
 * `natter folder` through the running window, which exit 0): the toast
 * and its Undo stay as they are, and when the toast goes the
 * conversation is kept, pinned and in its folder, and a toast says why,
 * rather than the change going with it. */
void
test_sidebar_delete_keeps_placed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *session_id = ui_create_session (u, "Loose chat");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *other_id = NULL;
  NatterWindow *window = ui_window_new (app, u);
  ToastWait deleted = { window, "“Loose chat” deleted" };
  ToastWait kept = { window, "“Loose chat” was kept: it was pinned or moved after you deleted it" };

  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Loose chat");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  ui_wait_until (toast_shown, &deleted);

  /* What `natter folder L Other` and `natter pin L` do. */
  other_id = ui_create_folder (folders, "Other");
  ui_set_folder (u, session_id, other_id);
  ui_set_pinned (u, session_id, TRUE);
  ui_settle ();
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_true (toast_shown (&deleted));
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, session_id), ==,
                    GTK_INVALID_LIST_POSITION);
  g_assert_true (file_exists (u, session_id));

  /* The toast goes: kept, as the commands left it, and said so. */
  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (toast_shown, &kept);
  wait_row (window, session_id, "Loose chat");
  ui_settle ();
  g_assert_true (file_exists (u, session_id));
  g_assert_true (natter_sessions_get_pinned (u->sessions, session_id));
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, session_id), ==, other_id);

  /* Undone instead, it is back the same. Deleted again with nothing
   * changed meanwhile, it goes. */
  g_assert_true (natter_window_open_session (window, session_id));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  natter_window_dismiss_pending_deletes (window);
  {
    Gone gone = { u, session_id };

    ui_wait_until (session_gone, &gone);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A tool call that waited for permission, allowed while the delete's
 * toast shows (what `natter allow` does): the tool ran and the answer
 * went on for a conversation the person acted on again, so it is kept
 * when the toast goes, and said so. Deleted again with nothing given
 * meanwhile, it goes, its waiting turn stopped. */
void
test_sidebar_delete_keeps_answered (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *waiting_id = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  ToastWait deleted = { NULL, "“Waiting” deleted" };
  ToastWait kept = { NULL, "“Waiting” was kept: what its answer waited for was given after you deleted it" };
  Gone gone = { u, NULL };

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sc"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sc", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c2", "sc", "{}")),
                            NULL);
  session_id = ui_create_session (u, "Waiting");
  turn_id = ui_send (u, session_id, "Use the tool");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  deleted.window = kept.window = window;
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Waiting");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  ui_wait_until (toast_shown, &deleted);

  natter_sessions_respond_to_permission_async (u->sessions, turn_id, "c1", "allow", NULL, NULL, ui_result_cb,
                                               &result);
  outcome = natter_sessions_respond_to_permission_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  ui_settle ();
  g_assert_true (toast_shown (&deleted));

  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (toast_shown, &kept);
  wait_row (window, session_id, "Waiting");
  g_assert_true (file_exists (u, session_id));

  /* Waiting again, deleted with nothing given: it goes. */
  waiting_id = ui_send (u, session_id, "Once more");
  ui_wait_turn (u, waiting_id);
  g_assert_true (natter_window_open_session (window, session_id));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  natter_window_dismiss_pending_deletes (window);
  gone.session_id = session_id;
  ui_wait_until (session_gone, &gone);

  g_clear_pointer (&outcome, natter_turn_outcome_unref);
  g_clear_object (&result);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The same when another process pins it (a command run with another
 * data directory lock, a device whose change a sync tool brings): the
 * window hears of it through the store's watch, and the toast and its
 * Undo stay all the same. */
void
test_sidebar_delete_keeps_placed_elsewhere (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *session_id = ui_create_session (u, "Loose chat");
  g_autoptr(NatterStoreWatch) watch = natter_store_watch_new (u->sessions, NULL, u->w->storage);
  g_autoptr(NatterJsonlRepo) theirs = natter_session_repo_new (u->w->storage);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  NatterWindow *window = ui_window_new (app, u);
  ToastWait deleted = { window, "“Loose chat” deleted" };
  ToastWait kept = { window, "“Loose chat” was kept: it was pinned or moved after you deleted it" };

  natter_store_watch_set_delay (watch, 20);
  natter_store_watch_start (watch);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Loose chat");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  ui_wait_until (toast_shown, &deleted);

  g_ptr_array_add (events, natter_session_event_new_pin_changed (session_id, "2026-12-06T20:00:00.000Z", TRUE));
  /* The file is at the first version, which has no pins. */
  natter_session_events_raise (events, 1, NULL);
  g_assert_true (natter_jsonl_repo_append_sync (theirs, session_id, events, NULL, &error));
  g_assert_no_error (error);
  ui_wait_until (pinned, &(Placed) { u, session_id });
  ui_settle ();
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_true (toast_shown (&deleted));
  g_assert_true (file_exists (u, session_id));

  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (toast_shown, &kept);
  wait_row (window, session_id, "Loose chat");
  g_assert_true (file_exists (u, session_id));

  ui_destroy_window (window);
  g_clear_object (&watch);
  ui_world_free (u);
}

/* The member @name of @turn_id's last event, or %NULL. */
static const char *
last_member (UiWorld    *u,
             const char *turn_id,
             const char *name)
{
  g_autoptr(GPtrArray) events = ui_get_turn (u, turn_id);
  JsonObject *last = json_node_get_object (g_ptr_array_index (events, events->len - 1));

  return g_intern_string (json_object_get_string_member_with_default (last, name, NULL));
}

static const char *
last_type (UiWorld    *u,
           const char *turn_id)
{
  return last_member (u, turn_id, "type");
}

/* An answer that streams while its conversation's toast is up goes on,
 * so that Undo brings the conversation back whole; once the toast has
 * gone and the conversation with it, the answer is stopped as Stop
 * stops it, and the model is not called again for it. */
void
test_sidebar_delete_stops_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Slow answer");
  g_autofree char *undone = NULL;
  g_autofree char *stopped = NULL;
  NatterFakeModel *model = u->w->fakes->model;
  NatterWindow *window = ui_window_new (app, u);
  Gone gone = { u, session_id };

  /* The last step answers a further model call: there must be none. */
  natter_fake_model_script (model, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Slow answer");

  undone = ui_send (u, session_id, "Take your time");
  ui_wait_model_held (u);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  ui_settle ();
  g_assert_cmpuint (natter_fake_model_get_n_held (model), ==, 1);
  g_assert_true (natter_sessions_is_turn_running (u->sessions, undone));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  natter_fake_model_release (model);
  ui_wait_turn (u, undone);
  g_assert_cmpstr (last_type (u, undone), ==, "turn_completed");

  stopped = ui_send (u, session_id, "Once more");
  ui_wait_model_held (u);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  natter_window_dismiss_pending_deletes (window);
  ui_wait_until (session_gone, &gone);
  g_assert_cmpuint (natter_fake_model_get_n_held (model), ==, 0);
  ui_wait_until (ui_no_advances, u);
  ui_settle ();
  g_assert_cmpuint (natter_fake_model_get_n_requests (model), ==, 2);
  g_assert_cmpstr (last_type (u, stopped), ==, "turn_cancelled");
  /* Said on the turn, for whoever waited for the answer (a `natter
   * send` the window ran tells its caller). */
  g_assert_cmpstr (last_member (u, stopped, "reason"), ==, "The conversation was deleted");

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
any_toast (gpointer window)
{
  return !ui_no_toasts (window);
}

static void
count_dismissed_cb (AdwToast *toast,
                    guint    *count)
{
  (*count)++;
}

/* Undo of a conversation deleted while its answer streams takes the
 * toast away with the deletion, not only when the toast's own button
 * was pressed: the conversation is back, its answer going on, and
 * nothing is left to undo. */
void
test_sidebar_delete_undo_while_streaming (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streaming");
  g_autofree char *turn_id = NULL;
  NatterFakeModel *model = u->w->fakes->model;
  NatterWindow *window = ui_window_new (app, u);
  g_autoptr(AdwToast) toast = NULL;
  guint dismissed = 0;

  natter_fake_model_script (model, NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NULL);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Streaming");
  /* Sent from the window, as a person sends, and streaming. */
  natter_composer_set_text (natter_window_get_composer (window), "Take your time");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_model_held (u);
  turn_id = g_strdup (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index, session_id)));
  natter_fake_model_stream_text (model, "Streaming ");

  /* Undone through the action, not the toast's button (whose own
   * dismissal libadwaita makes): the toast goes with the deletion. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", session_id);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  natter_fake_model_stream_text (model, " still");
  ui_wait_until (any_toast, window);
  ui_wait_toasts_settled (window);
  toast = g_object_ref (g_hash_table_lookup (window->sidebar.pending_deletes, session_id));
  g_signal_connect (toast, "dismissed", G_CALLBACK (count_dismissed_cb), &dismissed);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  natter_fake_model_stream_text (model, " going");
  /* Dismissed by the undo, in the first frame the guard allows, not by
   * its own timeout later. */
  ui_wait_toasts_settled (window);
  g_assert_cmpuint (dismissed, ==, 1);
  ui_wait_until (ui_no_toasts, window);
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, session_id), !=,
                    GTK_INVALID_LIST_POSITION);
  g_assert_true (natter_sessions_is_turn_running (u->sessions, turn_id));

  natter_fake_model_release (model);
  ui_wait_turn (u, turn_id);
  g_assert_cmpstr (last_type (u, turn_id), ==, "turn_completed");
  g_assert_true (ui_no_toasts (window));
  g_assert_true (file_exists (u, session_id));

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closing the window (Ctrl+Q closes it too) while a deletion's undo
 * toast is up is no Undo: the conversation the person deleted is
 * deleted, not kept without a word. */
void
test_sidebar_pending_delete_done_on_close (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *keep = ui_create_session (u, "Keep");
  g_autofree char *session_id = ui_create_session (u, "Almost gone");
  NatterWindow *window = ui_window_new (app, u);
  gpointer weak = window;
  Gone gone = { u, session_id };

  g_assert_true (natter_window_open_session (window, session_id));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_close (GTK_WINDOW (window));
  ui_wait_until (window_gone, &weak);

  ui_wait_until (session_gone, &gone);
  g_assert_true (file_exists (u, keep));
  g_assert_nonnull (natter_session_index_lookup (u->index, keep));
  ui_world_free (u);
}

typedef struct
{
  UiWorld      *u;
  NatterWindow *window;
} Sent;

static gboolean
try_again_shown (gpointer window)
{
  return ui_find_button (natter_window_get_timeline_list (window), "_Try Again") != NULL;
}

/* The window went on to the conversation its message made, and the
 * answer there has ended. */
static gboolean
new_conversation_answered (gpointer data)
{
  Sent *s = data;
  const char *session_id = natter_window_get_session_id (s->window);
  NatterSessionIndexEntry *entry = session_id != NULL ? natter_session_index_lookup (s->u->index, session_id) : NULL;
  const char *latest = entry != NULL ? natter_session_index_entry_get_latest_turn_id (entry) : NULL;

  return latest != NULL && !natter_sessions_is_turn_running (s->u->sessions, latest) &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

static char *
describe_sent (gpointer data)
{
  Sent *s = data;

  return g_strdup_printf ("session %s, error bar “%s” “%s”", natter_window_get_session_id (s->window),
                          gtk_label_get_text (s->window->errors.heading), gtk_label_get_text (s->window->errors.detail));
}

/* A long title (the first line of a pasted paragraph) in the toast of
 * its deletion: the toast is one line, so the title is cut, where a
 * cursor could stop (never inside the emoji sequence that straddles the
 * cut), and the sentence is read to its end. */
void
test_sidebar_delete_long_title_toast (void)
{
  g_autofree char *head = g_strnfill (58, 'a');
  g_autofree char *tail = g_strnfill (300, 'b');
  /* Man, ZWJ, woman, ZWJ, girl: one emoji, five characters, 59th to 63rd. */
  g_autofree char *title = g_strconcat (head, "\xf0\x9f\x91\xa8\xe2\x80\x8d\xf0\x9f\x91\xa9\xe2\x80\x8d"
                                        "\xf0\x9f\x91\xa7", tail, NULL);
  g_autofree char *deleted = g_strdup_printf ("\xe2\x80\x9c%s\xe2\x80\xa6\xe2\x80\x9d deleted", head);
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, title);
  NatterWindow *window = ui_window_new (app, u);

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  ui_wait_label (natter_window_get_toast_overlay (window), deleted);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  ui_settle ();

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The open conversation deleted elsewhere (`natter delete`, which the
 * running window's service carries out): the window leaves it as it
 * leaves one deleted here, nothing of it left to act on, and goes on in
 * a new conversation that has what was being written, text and
 * attachment. A toast says so, the title (markup in it) as text. Sent,
 * the draft makes a conversation of its own. */
void
test_sidebar_deleted_elsewhere (void)
{
  const char *title = "Plans <b>&</b> more";
  const char *draft = "Half a thought";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, title);
  g_autofree char *turn_id = NULL;
  g_autofree char *toast_text = g_strdup_printf ("“%s” was deleted elsewhere", title);
  g_autofree char *text = NULL;
  g_autoptr(GFile) attached = NULL;
  g_autoptr(GFileIOStream) stream = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterBlobStore) blobs = natter_blob_store_new (u->w->storage);
  NatterWindow *window;
  NatterComposer *composer;
  Gone gone = { u, session_id };
  Sent sent;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Hello");
  ui_wait_turn (u, turn_id);
  attached = g_file_new_tmp ("natter-draft-XXXXXX.txt", &stream, &error);
  g_assert_no_error (error);
  g_io_stream_close (G_IO_STREAM (stream), NULL, NULL);

  /* Attachments are stored where a turn reads them. */
  natter_turn_runtime_set_blob_store (u->w->runtime, blobs);
  window = ui_window_new (app, u);
  natter_window_set_blob_store (window, blobs);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (try_again_shown, window);
  natter_composer_set_text (composer, draft);
  natter_composer_add_file (composer, attached);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);
  /* The keyboard on the conversation's row, as a click that opened it
   * leaves it: the row goes with the conversation. */
  g_assert_true (gtk_widget_grab_focus (gtk_widget_get_parent (gtk_widget_get_parent (
    GTK_WIDGET (ui_find_session_row (window, session_id))))));
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (window)),
                                         natter_window_get_session_list (window)));

  natter_sessions_delete_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  ui_wait_until (session_gone, &gone);
  ui_settle ();

  /* A new conversation, with the draft. */
  g_assert_null (natter_window_get_session_id (window));
  g_assert_true (window->conversation.new_chat);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_false (try_again_shown (window));
  text = natter_composer_dup_text (composer);
  g_assert_cmpstr (text, ==, draft);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);
  g_assert_true (ui_label_shown (natter_window_get_toast_overlay (window), toast_text));
  /* The keyboard goes to the message field, which goes on. */
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (window)), GTK_WIDGET (composer)));
  /* For a person to look at: the new chat with the draft, the toast. */
  ui_save_window (GTK_WIDGET (window), "deleted-elsewhere.png");
  g_assert_true (ui_error_bar_hidden (window));

  /* Sent, it makes a conversation of its own. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  g_assert_true (natter_composer_send (composer));
  sent = (Sent) { u, window };
  ui_wait_until_full (new_conversation_answered, describe_sent, &sent);
  g_assert_cmpstr (natter_window_get_session_id (window), !=, session_id);
  g_assert_true (ui_error_bar_hidden (window));

  ui_destroy_window (window);
  g_file_delete (attached, NULL, NULL);
  g_clear_object (&blobs);
  ui_world_free (u);
}

static gboolean
in_new_chat (gpointer window)
{
  return NATTER_WINDOW (window)->conversation.new_chat;
}

/* The same when another process removes the file (a command run with
 * another data directory lock, a sync tool): the window learns it from
 * the store's watch. A new chat's own draft stays, the moved one after
 * it. */
void
test_sidebar_deleted_by_another_process (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Gone soon");
  g_autoptr(NatterStoreWatch) watch = natter_store_watch_new (u->sessions, NULL, u->w->storage);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  NatterWindow *window = ui_window_new (app, u);
  NatterComposer *composer = natter_window_get_composer (window);

  natter_store_watch_set_delay (watch, 20);
  natter_store_watch_start (watch);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  natter_composer_set_text (composer, "An earlier idea");
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Gone soon");
  natter_composer_set_text (composer, "Half a thought");

  g_assert_true (g_file_delete (file, NULL, &error));
  g_assert_no_error (error);
  ui_wait_until (in_new_chat, window);
  g_assert_null (natter_window_get_session_id (window));
  text = natter_composer_dup_text (composer);
  g_assert_cmpstr (text, ==, "An earlier idea\n\nHalf a thought");
  g_assert_true (ui_label_shown (natter_window_get_toast_overlay (window), "“Gone soon” was deleted elsewhere"));

  ui_destroy_window (window);
  g_clear_object (&watch);
  ui_world_free (u);
}
