/* test-versions-edit.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Edit: the sent message goes into the composer, and sending branches at
 * the turn before it, under the conversation's title; a message sent
 * while the window is open gets Edit as soon as its turn settles.
 */

#include "natter-sessions-settings.h"
#include "test-versions.h"

static gboolean
session_open (gpointer data)
{
  NewVersion *v = data;

  return g_strcmp0 (natter_window_get_session_id (v->window), v->not) == 0;
}

static gboolean
editing_said (gpointer window)
{
  return ui_label_shown (window, "Editing a sent message");
}

void
test_edit_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Dinner");
  g_autofree char *other = ui_create_session (u, "Elsewhere");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *draft = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  NatterSessionIndexEntry *entry;
  const char *branch;
  g_autofree char *branch_id = NULL;
  NatterTurnRow *row;
  GtkWidget *edit;
  NatterWindow *window;
  NewVersion v;
  NatterTurnItem *item;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With basil.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With lemon.\"}", NULL);
  first = ui_send (u, session_id, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Which sauce?");
  ui_wait_turn (u, second);
  g_assert_true (g_file_load_contents (file, NULL, &before, NULL, NULL, NULL));

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, NULL);

  /* Edit is on the sent message; it puts the words into the composer. */
  row = find_row (window, second);
  edit = NULL;
  {
    g_autoptr(GPtrArray) buttons = ui_find_all (row, GTK_TYPE_BUTTON);

    for (guint i = 0; i < buttons->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Edit Message") == 0)
        edit = g_ptr_array_index (buttons, i);
  }
  g_assert_nonnull (edit);
  g_assert_true (gtk_widget_get_visible (edit));
  g_assert_true (gtk_widget_activate (edit));
  ui_wait_until (composer_has_text, window);
  draft = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (draft, ==, "Which sauce?");
  /* Said above the composer, with its Cancel, not in a toast over it. */
  g_assert_true (natter_conversation_view_get_editing (window->conversation.view));
  ui_wait_until (editing_said, window);
  {
    /* The bar slides in and out: a revealer that slides measures the bar's
     * width at heights far from its real one, and a wrapping label there
     * gave GTK answers it stopped on (a critical, seen once in many runs).
     * Nothing in the bar may depend on its height. */
    GtkWidget *bar = ui_find_first (window->conversation.view, GTK_TYPE_REVEALER);
    int min_free, min_tall, min_short, nat;

    g_assert_nonnull (bar);
    g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (bar)));
    bar = gtk_revealer_get_child (GTK_REVEALER (bar));
    g_assert_cmpint (gtk_widget_get_request_mode (bar), ==, GTK_SIZE_REQUEST_CONSTANT_SIZE);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, -1, &min_free, &nat, NULL, NULL);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, 1 << 20, &min_tall, &nat, NULL, NULL);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, 1, &min_short, &nat, NULL, NULL);
    g_assert_cmpint (min_tall, ==, min_free);
    g_assert_cmpint (min_short, ==, min_free);
  }

  /* Cancelled, the edit leaves an ordinary message behind. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-edit", NULL));
  g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
  g_free (draft);
  draft = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (draft, ==, "");
  g_assert_null (window->versions.editing_turn_id);
  g_assert_true (gtk_widget_activate (edit));
  ui_wait_until (composer_has_text, window);

  /* Another conversation opened meanwhile: back here, the edit is still
   * an edit (sent as a plain message, it would repeat the message). */
  natter_composer_set_text (natter_window_get_composer (window), "Which sauce, without tomatoes?");
  g_assert_true (natter_window_open_session (window, other));
  g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_free (draft);
  draft = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (draft, ==, "Which sauce, without tomatoes?");
  g_assert_cmpstr (window->versions.editing_turn_id, ==, second);
  g_assert_true (natter_conversation_view_get_editing (window->conversation.view));
  ui_wait_until (editing_said, window);

  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);

  /* The branch continues the conversation under its title, from the
   * turn before the edited message. */
  branch = natter_window_get_session_id (window);
  branch_id = g_strdup (branch);
  entry = natter_session_index_lookup (u->index, branch_id);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Dinner");
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, session_id);
  item = natter_timeline_model_lookup (natter_window_get_timeline (window),
                                       natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_nonnull (item);
  {
    g_autofree char *input = natter_turn_item_dup_input_text (item);

    g_assert_cmpstr (input, ==, "Which sauce, without tomatoes?");
  }
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");

  /* The original is untouched, and one arrow away. */
  g_assert_true (g_file_load_contents (file, NULL, &after, NULL, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  row = find_row (window, natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 0)));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (session_open, &v);
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, "1/2");
  wait_switcher (window, first, NULL);
  row = find_row (window, second);
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 2)));
  v = (NewVersion) { window, u, branch_id };
  ui_wait_until (session_open, &v);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *session_id;
} LiveEdit;

/* The latest turn of the open session has settled (no advance left)
 * and its row shows Edit under the sent message. */
static gboolean
live_edit_shown (gpointer data)
{
  LiveEdit *l = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (l->u->index, l->session_id);
  const char *latest = entry != NULL ? natter_session_index_entry_get_latest_turn_id (entry) : NULL;
  NatterTurnRow *row;
  g_autoptr(GPtrArray) buttons = NULL;

  ui_settle ();
  if (latest == NULL || !ui_no_advances (l->u))
    return FALSE;
  row = find_row (l->window, latest);
  if (row == NULL)
    return FALSE;
  buttons = ui_find_all (row, GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Edit Message") == 0)
      return gtk_widget_get_mapped (g_ptr_array_index (buttons, i));
  return FALSE;
}

/* A message sent while the window is open gets Edit as soon as its turn
 * settles, not only after the window is opened again. */
void
test_edit_shown_live (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Live");
  NatterWindow *window;
  LiveEdit l;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Soup.\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  natter_composer_set_text (natter_window_get_composer (window), "What for lunch?");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  l = (LiveEdit) { window, u, session_id };
  ui_wait_until (live_edit_shown, &l);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
} EditShown;

/* The row of the turn shows Edit under its message: the button. */
static GtkWidget *
edit_button_of (NatterWindow *window,
                const char   *turn_id)
{
  NatterTurnRow *row = find_row (window, turn_id);
  g_autoptr(GPtrArray) buttons = NULL;

  if (row == NULL)
    return NULL;
  buttons = ui_find_all (row, GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Edit Message") == 0 &&
        gtk_widget_get_visible (g_ptr_array_index (buttons, i)))
      return g_ptr_array_index (buttons, i);
  return NULL;
}

static gboolean
edit_shown (gpointer data)
{
  EditShown *e = data;

  return edit_button_of (e->window, e->turn_id) != NULL;
}

/* The new version is open, or the send was refused in the error bar. */
static gboolean
edited_or_refused (gpointer data)
{
  NewVersion *v = data;

  return new_version_open (v) || ui_error_bar_shown (v->window);
}

/* Edit on a message a version shows from its deleted original (the
 * person edited the second message, then deleted the original and kept
 * the version): the new version opens with the edited message
 * answered, and it keeps the conversation's model settings and folder,
 * while the pin stays on the version it was made from. */
void
test_edit_deleted_original (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *answered = NULL;
  g_autofree char *edited_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *folder_id = "2026-11-30T09-14-03Z-0000077-000";
  NatterSessionIndexEntry *entry;
  NatterTurnItem *item;
  NatterWindow *window;
  NewVersion v;
  EditShown e;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With basil.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With lemon.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Bread.\"}", NULL);
  first = ui_send (u, session_id, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Which sauce?");
  ui_wait_turn (u, second);
  ui_set_temperature (u, session_id, 0.5);
  ui_set_pinned (u, session_id, TRUE);
  ui_set_folder (u, session_id, folder_id);
  natter_sessions_fork_async (u->sessions, session_id, first, "Dinner", NULL, ui_result_cb, &result);
  version_id = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  answered = ui_send (u, version_id, "Which sauce, please?");
  ui_wait_turn (u, answered);
  natter_sessions_delete_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, version_id));
  ui_wait_until (ui_timeline_loaded, window);
  e = (EditShown) { window, first };
  ui_wait_until (edit_shown, &e);
  item = natter_turn_row_get_item (find_row (window, first));
  g_assert_cmpstr (natter_turn_item_get_inherited_from (item), ==, session_id);
  g_assert_true (gtk_widget_activate (edit_button_of (window, first)));
  ui_wait_until (composer_has_text, window);
  natter_composer_set_text (natter_window_get_composer (window), "What to bake?");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  v = (NewVersion) { window, u, version_id };
  ui_wait_until (edited_or_refused, &v);
  g_assert_false (ui_error_bar_shown (window));

  edited_id = g_strdup (natter_window_get_session_id (window));
  entry = natter_session_index_lookup (u->index, edited_id);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Dinner");
  item = natter_timeline_model_lookup (natter_window_get_timeline (window),
                                       natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_nonnull (item);
  {
    g_autofree char *input = natter_turn_item_dup_input_text (item);

    g_assert_cmpstr (input, ==, "What to bake?");
  }
  state = ui_get_session (u, edited_id);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, session_id);
  g_assert_null (natter_session_state_get_forked_from_turn_id (state));
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, edited_id), ==, folder_id);
  g_assert_nonnull (natter_sessions_get_kept_parameters (u->sessions, edited_id));
  g_assert_cmpfloat (natter_sessions_get_kept_parameters (u->sessions, edited_id)->temperature, ==, 0.5);
  g_assert_false (natter_sessions_get_pinned (u->sessions, edited_id));
  g_assert_true (natter_sessions_get_pinned (u->sessions, version_id));

  ui_destroy_window (window);
  ui_world_free (u);
}
