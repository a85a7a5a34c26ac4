/* test-keyboard-conversations.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Conversations from the keyboard: a new one and the composer, opening
 * with Enter, renaming, deleting with its undo, and sending while the
 * focus stays in the composer (Escape stops the answer).
 */

#include "natter-folder-log.h"
#include "natter-sessions-settings.h"
#include "test-keyboard.h"

/* Conversations */

void
test_keyboard_new_chat_and_composer (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = window_new (u);
  NatterComposer *composer = natter_window_get_composer (window);
  GtkWidget *sidebar_list = natter_window_get_session_list (window);

  /* Ctrl+N: a new conversation, the composer ready to type into. It is
   * not written, nor listed, before its first message. */
  g_assert_true (press (window, "<Control>n"));
  wait_focus_in (window, composer);
  g_assert_null (natter_window_get_session_id (window));
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (composer)));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 0);

  /* Ctrl+F: the search entry, open, with the focus. */
  g_assert_true (press (window, "<Control>f"));
  g_assert_cmpstr (gtk_widget_get_name (gtk_root_get_focus (GTK_ROOT (window))), ==, "GtkText");
  g_assert_false (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
  g_assert_false (has_focus_in (GTK_WIDGET (window), sidebar_list));

  /* Ctrl+L: back to the composer from anywhere. */
  g_assert_true (press (window, "<Control>l"));
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));

  /* Ctrl+Z with no deletion waiting is not ours: it stays the text's. */
  g_assert_false (press (window, "<Control>z"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A fresh start, or a last conversation that is gone: the window opens
 * on a new conversation with the keyboard in its message field, so the
 * first word typed is the message's (not keys for the New Chat button
 * of an empty page). Nothing is written for it. */
void
test_keyboard_start_types_into_composer (void)
{
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
      UiWorld *u = ui_world_new ();
      NatterWindow *window;
      NatterComposer *composer;
      GtkWidget *focus;

      if (pass == 0)
        g_settings_reset (settings, "last-session");
      else
        g_settings_set_string (settings, "last-session", "ses_gone");
      window = ui_window_new (app, u);
      composer = natter_window_get_composer (window);
      wait_focus_in (window, composer);
      focus = gtk_root_get_focus (GTK_ROOT (window));
      g_assert_true (GTK_IS_TEXT_VIEW (focus));
      g_assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (focus)));
      g_assert_true (gtk_widget_get_mapped (focus));
      g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
      g_assert_null (natter_window_get_session_id (window));
      g_assert_null (natter_composer_get_blocked_reason (composer));
      g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 0);

      ui_destroy_window (window);
      ui_world_free (u);
      g_settings_reset (settings, "last-session");
    }
}

void
test_keyboard_open_with_enter (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "First");
  g_autofree char *second = ui_create_session (u, "Second");
  NatterWindow *window = window_new (u);
  GtkWidget *list = natter_window_get_session_list (window);

  /* The list takes the focus; the rows are in it; arrows select (GTK's
   * list moves its cursor with selection), which opens the session. */
  g_assert_true (gtk_widget_get_focusable (list));
  gtk_widget_grab_focus (list);
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));
  gtk_widget_activate_action (list, "list.select-item", "(ubb)", 1, FALSE, FALSE);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, first);

  /* Enter on a row (the list's activate) goes to the composer. */
  g_signal_emit_by_name (list, "activate", 1);
  ui_settle ();
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  const char *title;
} TitleWait;

static gboolean
title_is (gpointer data)
{
  TitleWait *t = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (t->u->index, t->session_id);

  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_title (entry), t->title) == 0;
}

void
test_keyboard_rename (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Old");
  NatterWindow *window = window_new (u);
  TitleWait t = { u, session_id, "New title" };
  GtkWindow *dialog;
  GtkWidget *entry;

  /* F2 without a conversation asks nothing. */
  press (window, "F2");
  g_assert_null (find_dialog (window));
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_true (press (window, "F2"));
  dialog = find_dialog (window);
  g_assert_nonnull (dialog);
  entry = adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog));
  /* The title is ready to be typed over; Enter renames (the default). */
  g_assert_true (has_focus_in (GTK_WIDGET (dialog), entry));
  g_assert_true (gtk_entry_get_activates_default (GTK_ENTRY (entry)));
  g_assert_cmpstr (adw_message_dialog_get_default_response (ADW_MESSAGE_DIALOG (dialog)), ==, "accept");
  g_assert_cmpstr (adw_message_dialog_get_close_response (ADW_MESSAGE_DIALOG (dialog)), ==, "cancel");
  gtk_editable_set_text (GTK_EDITABLE (entry), "New title");
  /* Enter in the focused text activates the default response. */
  g_assert_true (GTK_IS_TEXT (gtk_root_get_focus (GTK_ROOT (dialog))));
  g_signal_emit_by_name (gtk_root_get_focus (GTK_ROOT (dialog)), "activate");
  ui_wait_until (title_is, &t);

  ui_destroy_window (window);
  ui_world_free (u);
}

static GtkWidget *
focused_row_entry_id (NatterWindow *window,
                      const char  **session_id)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *list = natter_window_get_session_list (window);

  *session_id = NULL;
  if (focus == NULL || !gtk_widget_is_ancestor (focus, list))
    return NULL;
  /* The focused list item holds the row. */
  for (GtkWidget *w = focus; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == list)
      {
        /* The item's child holds the conversation's row, and a header
         * row for when the item is a header of the list. */
        GtkWidget *child = ui_find_first (w, NATTER_TYPE_SESSION_ROW);

        if (child != NULL)
          {
            NatterSessionIndexEntry *entry = natter_session_row_get_entry (NATTER_SESSION_ROW (child));

            *session_id = entry != NULL ? natter_session_index_entry_get_session_id (entry) : NULL;
          }
        return w;
      }
  return NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
} RowWait;

static gboolean
row_focused (gpointer data)
{
  RowWait *r = data;
  const char *focused_id = NULL;

  ui_settle ();
  return focused_row_entry_id (r->window, &focused_id) != NULL && g_strcmp0 (focused_id, r->session_id) == 0;
}

/* The list makes a row's widget when it lays out: wait for that frame. */
static void
wait_row_focused (NatterWindow *window,
                  const char   *session_id)
{
  RowWait r = { window, session_id };

  ui_wait_until (row_focused, &r);
}

void
test_keyboard_delete_and_undo (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *oldest = ui_create_session (u, "Oldest");
  g_autofree char *middle = ui_create_session (u, "Middle");
  g_autofree char *newest = ui_create_session (u, "Newest");
  NatterWindow *window = window_new (u);
  GListModel *model = natter_window_get_sidebar_model (window);

  /* The middle row is open and focused in the list. */
  g_assert_true (natter_window_open_session (window, middle));
  g_assert_true (natter_sidebar_focus_position (window->session_sidebar, 1, FALSE));
  wait_row_focused (window, middle);
  g_assert_true (press (window, "Delete"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);

  /* The focus moved to the row that took its place, which is open. */
  wait_row_focused (window, oldest);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, oldest);

  /* Ctrl+Z while the toast shows brings it back, focused and open, and
   * nothing is deleted when the toast goes. */
  g_assert_true (press (window, "<Control>z"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 3);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, middle);
  wait_row_focused (window, middle);
  natter_window_dismiss_pending_deletes (window);
  g_assert_nonnull (natter_session_index_lookup (u->index, middle));

  /* Deleting the last row focuses the one above it. */
  g_assert_true (natter_window_open_session (window, oldest));
  g_assert_true (natter_sidebar_focus_position (window->session_sidebar, 2, FALSE));
  wait_row_focused (window, oldest);
  g_assert_true (press (window, "Delete"));
  wait_row_focused (window, middle);
  /* No second undo is waiting after this one. */
  g_assert_true (press (window, "<Control>z"));
  g_assert_false (press (window, "<Control>z"));
  g_assert_nonnull (newest);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Ctrl+Z acts on what has the focus: while a deletion waits, typing in
 * the composer is undone first (the toast keeps its Undo button), then
 * the deletion. */
static GtkWidget *
find_toast_overlay (GtkWidget *widget)
{
  if (ADW_IS_TOAST_OVERLAY (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_toast_overlay (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether no toast is on screen any more, showing or hiding: the overlay
 * has no child but its content. */
static gboolean
no_toast_shown (gpointer overlay)
{
  GtkWidget *content = adw_toast_overlay_get_child (overlay);

  for (GtkWidget *child = gtk_widget_get_first_child (overlay); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != content)
      return FALSE;
  return TRUE;
}

/* Delete and Ctrl+Z at once, twice, faster than a frame: each undo toast
 * is asked to go while it is still appearing, and the second one comes
 * while the first one is still hiding, so libadwaita shows it with its
 * longer "replace" animation. libadwaita 1.2 frees a toast when its hide
 * animation ends and touches it again when its show animation ends after
 * that (a crash, or a critical somewhere else once the memory is reused):
 * the window must let a toast finish appearing before it dismisses it.
 * The actions run back to back, without a main-loop iteration between
 * them, so that every animation starts in the same frame whatever the
 * machine's load. */
void
test_keyboard_undo_at_once_twice (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "First");
  g_autofree char *second = ui_create_session (u, "Second");
  NatterWindow *window = window_new (u);
  GtkWidget *overlay = find_toast_overlay (GTK_WIDGET (window));

  g_assert_nonnull (overlay);
  gtk_widget_grab_focus (natter_window_get_session_list (window));
  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (natter_window_open_session (window, i == 0 ? first : second));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", ""));
      g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo", NULL));
      g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
    }

  /* Every toast goes; every animation runs to its end (the window's
   * destruction below ends any that is left). */
  ui_wait_until (no_toast_shown, overlay);
  g_assert_nonnull (natter_session_index_lookup (u->index, first));
  g_assert_nonnull (natter_session_index_lookup (u->index, second));

  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_keyboard_undo_typing_first (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *older = ui_create_session (u, "Older");
  g_autofree char *newer = ui_create_session (u, "Newer");
  NatterWindow *window = window_new (u);
  GtkWidget *list = natter_window_get_session_list (window);
  GtkWidget *text;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  g_autofree char *left = NULL;

  g_assert_true (natter_window_open_session (window, newer));
  gtk_widget_grab_focus (list);
  g_assert_true (press (window, "Delete"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);

  g_assert_true (press (window, "<Control>l"));
  text = ui_find_first (natter_window_get_composer (window), GTK_TYPE_TEXT_VIEW);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == text);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (text));
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_insert_interactive_at_cursor (buffer, "Hello", -1, TRUE);
  gtk_text_buffer_end_user_action (buffer);

  g_assert_true (press (window, "<Control>z"));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  left = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (left, ==, "");
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);

  /* Nothing left to undo in the text: the deletion is undone. */
  g_assert_true (press (window, "<Control>z"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 2);
  g_assert_nonnull (older);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Composing */

static gboolean
not_sending_and_idle (gpointer data)
{
  NatterWindow *window = data;

  return gtk_widget_get_sensitive (GTK_WIDGET (natter_window_get_composer (window))) &&
         !natter_composer_get_running (natter_window_get_composer (window));
}

static gboolean
composer_running (gpointer data)
{
  return natter_composer_get_running (natter_window_get_composer (data));
}

void
test_keyboard_send_keeps_focus_and_escape_stops (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Chat");
  NatterWindow *window = window_new (u);
  NatterComposer *composer = natter_window_get_composer (window);

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_STEP_HANG, NULL);
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_true (press (window, "<Control>l"));

  /* Enter sends; the focus stays in the composer for the next message. */
  natter_composer_set_text (composer, "Hello");
  g_assert_true (press_key_controllers (window, GDK_KEY_Return));
  ui_wait_until (not_sending_and_idle, window);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);

  /* Escape while nothing runs is not taken (dialogs, search keep it). */
  g_assert_false (press (window, "Escape"));

  /* Editing a sent message, Escape in the composer ends the edit: the
   * words go, the next message is an ordinary one. */
  {
    const char *sent = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index,
                                                                                                   session_id));

    ui_wait_turn_read (window, sent);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-message", "s", sent));
    g_assert_nonnull (window->versions.editing_turn_id);
    g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
    g_assert_true (press (window, "Escape"));
    g_assert_null (window->versions.editing_turn_id);
    g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
    g_assert_false (press (window, "Escape"));
  }

  /* A turn that hangs: Escape stops it. */
  natter_composer_set_text (composer, "Hang");
  g_assert_true (press_key_controllers (window, GDK_KEY_Return));
  ui_wait_until (composer_running, window);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
  g_assert_true (press (window, "Escape"));
  ui_wait_until (not_sending_and_idle, window);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (natter_session_index_lookup (u->index, session_id)),
                   ==, "cancelled");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The composer's Send button: the one with the tooltip "Send". */
static GtkWidget *
find_send_button (NatterComposer *composer)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (composer, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (buttons->pdata[i]), "Send") == 0)
      return buttons->pdata[i];
  return NULL;
}

/* Words that show as nothing are no message, whatever they are made of:
 * empty, white space, or invisible format characters (zero width space,
 * joiners, word joiner, byte order mark). Send stays off for each, and
 * Enter sends nothing, as for an empty field; a word makes Send work. */
void
test_keyboard_blank_not_sent (void)
{
  const char *blanks[] = { "", " \n\t", "\u200B", "\u200C\u200D", "\u2060 \uFEFF\n" };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Chat");
  NatterWindow *window = window_new (u);
  NatterComposer *composer = natter_window_get_composer (window);
  GtkWidget *send;

  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_true (press (window, "<Control>l"));
  send = find_send_button (composer);
  g_assert_nonnull (send);
  for (guint i = 0; i < G_N_ELEMENTS (blanks); i++)
    {
      natter_composer_set_text (composer, blanks[i]);
      g_assert_false (gtk_widget_get_sensitive (send));
      g_assert_true (press_key_controllers (window, GDK_KEY_Return));
      g_assert_false (natter_composer_send (composer));
    }
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 0);
  g_assert_null (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index, session_id)));

  natter_composer_set_text (composer, "\u200BHi");
  g_assert_true (gtk_widget_get_sensitive (send));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The conversation of the sidebar row that has the focus, or NULL. */
static const char *
focused_row_session (NatterWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *child = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;
  GtkWidget *row = child != NULL ? gtk_widget_get_first_child (child) : NULL;

  if (row == NULL || !NATTER_IS_SESSION_ROW (row) || natter_session_row_get_entry (NATTER_SESSION_ROW (row)) == NULL)
    return NULL;
  return natter_session_index_entry_get_session_id (natter_session_row_get_entry (NATTER_SESSION_ROW (row)));
}

/* Whether the focus is on the row of the first conversation listed (an
 * empty folder's header is an item before it). */
static gboolean
first_row_focused (gpointer data)
{
  NatterWindow *window = data;
  GListModel *model = natter_window_get_sidebar_model (window);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (NATTER_IS_SESSION_INDEX_ENTRY (item))
        return g_strcmp0 (focused_row_session (window),
                          natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item))) == 0;
    }
  return FALSE;
}

static gboolean
list_is_empty (gpointer data)
{
  return g_list_model_get_n_items (natter_window_get_sidebar_model (data)) == 0;
}

/* Down in the search field, as GTK delivers it: the key controllers
 * first, then, if none took it, the window's arrow binding, which moves
 * the focus to what is below. */
static void
search_down (NatterWindow *window)
{
  if (!press_key_controllers (window, GDK_KEY_Down))
    gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_DOWN);
  ui_settle ();
}

/* Down from the search field goes to the first conversation listed, not
 * to the menu of where to look that sits between them (shown once there
 * are folders), and does not open it. With nothing found, Down is not
 * taken. */
void
test_keyboard_search_down_to_list (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = NULL;
  NatterWindow *window = window_new (u);
  GtkWidget *scope = natter_sidebar_get_scope_dropdown (window->session_sidebar);
  GtkWidget *entry = natter_sidebar_get_search_entry (window->session_sidebar);

  work_id = ui_create_folder (folders, "Work");
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);

  g_assert_true (press (window, "<Control>f"));
  wait_focus_in (window, entry);
  g_assert_true (gtk_widget_get_visible (scope));
  search_down (window);
  ui_wait_until (first_row_focused, window);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, alpha);

  /* Nothing found: Down is left to GTK. */
  gtk_widget_grab_focus (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "no such words");
  ui_wait_until (list_is_empty, window);
  g_assert_false (press_key_controllers (window, GDK_KEY_Down));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Ctrl+Z undoes a folder's deletion as the toast's Undo does: the
 * folder is back under its old id with every conversation it held, the
 * pinned one too, and the toast goes. A conversation deleted after it is
 * undone first. */
typedef struct
{
  NatterFolders *folders;
  const char    *folder_id;
} FolderWait;

static gboolean
folder_back (gpointer data)
{
  FolderWait *wait = data;

  return natter_folders_lookup (wait->folders, wait->folder_id) != NULL;
}

static gboolean
folder_toast_shown (gpointer window)
{
  return ui_label_shown (natter_window_get_toast_overlay (window), "Folder “Projects” deleted; its conversations stay");
}

static gboolean
folder_toast_gone (gpointer window)
{
  return !folder_toast_shown (window) && ui_no_toasts (window);
}

void
test_keyboard_undo_folder_delete (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *folder_id = NULL;
  const char *members[] = { alpha, beta };
  NatterWindow *window;
  FolderWait wait;

  folder_id = ui_create_folder (folders, "Projects");
  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    ui_set_folder (u, members[i], folder_id);
  ui_set_pinned (u, alpha, TRUE);
  window = window_new (u);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, beta));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (FolderWait) { folders, folder_id };

  /* Delete Folder, from the folder's menu, then Ctrl+Z. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", folder_id));
  ui_wait_until (folder_toast_shown, window);
  g_assert_null (natter_folders_lookup (folders, folder_id));
  gtk_widget_grab_focus (natter_window_get_session_list (window));
  g_assert_true (press (window, "<Control>z"));
  ui_wait_until (folder_back, &wait);
  ui_wait_until (folder_toast_gone, window);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, alpha), ==, folder_id);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, folder_id);
  g_assert_true (natter_sessions_get_pinned (u->sessions, alpha));
  /* Nothing else waits for an undo. */
  g_assert_false (press (window, "<Control>z"));

  /* The folder, then a conversation: Ctrl+Z brings back the
   * conversation first, then the folder. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", folder_id));
  ui_wait_until (folder_toast_shown, window);
  gtk_widget_grab_focus (natter_window_get_session_list (window));
  g_assert_true (press (window, "Delete"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_true (press (window, "<Control>z"));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  g_assert_null (natter_folders_lookup (folders, folder_id));
  g_assert_true (press (window, "<Control>z"));
  ui_wait_until (folder_back, &wait);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, folder_id);
  ui_wait_until (folder_toast_gone, window);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A conversation's row has a context menu, with its rename, pin, move
 * and delete, each naming the row's conversation. Right-click on a row
 * shows it without opening that conversation; Shift+F10 and the Menu key
 * show it for the focused row. */
static gboolean
row_menu_shown (gpointer window)
{
  GtkWidget *menu = natter_sidebar_get_row_menu (NATTER_WINDOW (window)->session_sidebar);

  return menu != NULL && gtk_widget_get_mapped (menu);
}

static gboolean
row_menu_hidden (gpointer window)
{
  return !row_menu_shown (window);
}

static NatterSessionRow *
find_row (NatterWindow *window,
          const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0 &&
          gtk_widget_get_mapped (g_ptr_array_index (rows, i)))
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

void
test_keyboard_row_context_menu (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *older = ui_create_session (u, "Older");
  g_autofree char *newer = ui_create_session (u, "Newer");
  NatterWindow *window = window_new (u);
  const char *actions[] = { "win.rename", "win.pin", "win.move-to-new-folder", "win.delete" };
  GListModel *controllers;
  GtkWidget *menu;
  NatterSessionRow *row;
  gboolean clicked = FALSE;

  g_assert_true (natter_window_open_session (window, newer));
  ui_wait_until (ui_timeline_loaded, window);
  menu = natter_sidebar_get_row_menu (window->session_sidebar);
  g_assert_nonnull (menu);

  /* Shift+F10 on the focused row, then the Menu key. */
  gtk_widget_grab_focus (natter_window_get_session_list (window));
  g_assert_true (press (window, "<Shift>F10"));
  ui_wait_until (row_menu_shown, window);
  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    if (!ui_menu_has_action (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)), actions[i]))
      g_error ("the rows' menu has no %s", actions[i]);
  gtk_popover_popdown (GTK_POPOVER (menu));
  ui_wait_until (row_menu_hidden, window);
  gtk_widget_grab_focus (natter_window_get_session_list (window));
  g_assert_true (press (window, "Menu"));
  ui_wait_until (row_menu_shown, window);
  gtk_popover_popdown (GTK_POPOVER (menu));
  ui_wait_until (row_menu_hidden, window);

  /* A right-click on the other row: the menu shows, for that
   * conversation, which is not opened for it. */
  row = find_row (window, older);
  g_assert_nonnull (row);
  controllers = gtk_widget_observe_controllers (GTK_WIDGET (row));
  for (guint i = 0; !clicked && i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_GESTURE_CLICK (controller) &&
          gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (controller)) == GDK_BUTTON_SECONDARY)
        {
          g_signal_emit_by_name (controller, "pressed", 1, 10.0, 10.0);
          clicked = TRUE;
        }
    }
  g_object_unref (controllers);
  g_assert_true (clicked);
  ui_wait_until (row_menu_shown, window);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, newer);
  g_assert_null (natter_window_get_opening_session_id (window));
  {
    g_autoptr(GVariant) named = g_variant_ref_sink (g_variant_new_string (older));

    g_assert_true (ui_menu_item_has_target (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)),
                                            "win.delete", named));
    g_assert_true (ui_menu_item_has_target (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)),
                                            "win.rename", named));
  }
  gtk_popover_popdown (GTK_POPOVER (menu));
  ui_wait_until (row_menu_hidden, window);

  ui_destroy_window (window);
  ui_world_free (u);
}
