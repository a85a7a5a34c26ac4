/* test-sidebar-rename.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Rename with F2, then send: a title typed through F2 survives the first
 * message (the automatic title never replaces the user's); and a title
 * an older file holds with control characters shows their stand-ins; a
 * title the session layer would refuse keeps the dialog open, saying why.
 */

#include <string.h>

#include "test-sidebar.h"

static AdwMessageDialog *
find_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) &&
          gtk_window_get_transient_for (toplevel) == parent &&
          gtk_widget_get_mapped (GTK_WIDGET (toplevel)))
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
dialog_shown (gpointer data)
{
  return find_dialog (data) != NULL;
}

static gboolean
dialog_gone (gpointer data)
{
  return find_dialog (data) == NULL;
}

static void
title_seen_cb (NatterSessionIndexEntry *entry,
               GParamSpec              *pspec,
               GPtrArray               *seen)
{
  g_ptr_array_add (seen, g_strdup (natter_session_index_entry_get_title (entry)));
}

typedef struct
{
  UiWorld                 *u;
  NatterSessionIndexEntry *entry;
  const char              *title;
} EntryWait;

static gboolean
entry_titled (gpointer data)
{
  EntryWait *w = data;

  return g_strcmp0 (natter_session_index_entry_get_title (w->entry), w->title) == 0;
}

static gboolean
entry_turn_completed (gpointer data)
{
  EntryWait *w = data;
  const char *latest = natter_session_index_entry_get_latest_turn_id (w->entry);

  return latest != NULL &&
         !natter_sessions_is_turn_running (w->u->sessions, latest) &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (w->entry), "completed") == 0;
}

/* The session as its file reduces now. */
void
test_sidebar_rename_then_send_keeps_title (void)
{
  const char *message = "Please tell me how the weather will be tomorrow";
  const char *typed = "Weather questions";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GtkShortcut) f2 = NULL;
  g_autoptr(GtkShortcut) enter = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) text = NULL;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (u->index, session_id);
  NatterWindow *window = ui_window_new (app, u);
  NatterComposer *composer = natter_window_get_composer (window);
  AdwMessageDialog *dialog;
  GtkWidget *title_entry;
  GtkShortcutAction *action;
  EntryWait wait = { u, entry, typed };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  g_signal_connect (entry, "notify::title", G_CALLBACK (title_seen_cb), seen);

  /* An empty session, selected. */
  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "New chat");
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  /* F2 is bound to win.rename on the window, and pressing it (GTK 4.8
   * cannot synthesize a key event, so the shortcut GTK would match is
   * activated the way its controller does) opens the rename dialog. */
  f2 = ui_find_shortcut (GTK_WIDGET (window), GDK_KEY_F2);
  g_assert_nonnull (f2);
  action = gtk_shortcut_get_action (f2);
  g_assert_true (GTK_IS_NAMED_ACTION (action));
  g_assert_cmpstr (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), ==, "win.rename");
  g_assert_true (gtk_shortcut_action_activate (action, 0, GTK_WIDGET (window), gtk_shortcut_get_arguments (f2)));
  ui_wait_until (dialog_shown, window);
  dialog = find_dialog (GTK_WINDOW (window));

  /* Type the title and confirm with Enter (the entry activates the
   * dialog's default response, Rename). */
  title_entry = adw_message_dialog_get_extra_child (dialog);
  g_assert_true (GTK_IS_EDITABLE (title_entry));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (title_entry)), ==, "");
  gtk_editable_set_text (GTK_EDITABLE (title_entry), typed);
  /* Enter: the entry's text widget binds it to ::activate, which
   * activates the dialog's default. */
  text = ui_find_all (title_entry, GTK_TYPE_TEXT);
  g_assert_cmpuint (text->len, ==, 1);
  enter = ui_find_shortcut (g_ptr_array_index (text, 0), GDK_KEY_Return);
  g_assert_nonnull (enter);
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (enter), 0,
                                               g_ptr_array_index (text, 0), gtk_shortcut_get_arguments (enter)));
  ui_wait_until (dialog_gone, window);
  ui_wait_until (entry_titled, &wait);
  wait_row (window, session_id, typed);

  /* The first message, from the composer; the fake model answers. */
  natter_composer_set_text (composer, message);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (entry_turn_completed, &wait);
  ui_settle ();

  /* The user's title everywhere, and the automatic one never, not even
   * for a moment. */
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, session_id)), ==, typed);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, typed);
  g_assert_cmpuint (seen->len, >=, 1);
  for (guint i = 0; i < seen->len; i++)
    g_assert_cmpstr (g_ptr_array_index (seen, i), ==, typed);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 1);

  /* And on disk: the session file reduces to the typed, explicit title. */
  state = ui_get_session (u, session_id);
  g_assert_cmpstr (natter_session_state_get_title (state), ==, typed);
  g_assert_true (natter_session_state_get_title_is_explicit (state));

  g_signal_handlers_disconnect_by_data (entry, seen);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A title an older file holds with control characters in it (read as it
 * is, docs/format.md "title_changed") shows them as visible stand-ins in
 * the sidebar and in the header, as every front end does: never as tofu
 * boxes, never as a line break; and a right-to-left override as its
 * escape, never turning the rest of the title around; the same in the
 * toast of its deletion. */
void
test_sidebar_old_title_controls_visible (void)
{
  static const char line[] =
    "{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"2026-11-18T12:00:00.000Z\","
    "\"title\":\"Old \\u001b[31mred\\u0007 \\u0001title\\nnext \xc2\x9b end \xe2\x80\xae" "gnp.exe\"}\n";
  const char *shown = "Old \xe2\x90\x9b[31mred\xe2\x90\x87 \xe2\x90\x81title\xe2\x90\xa4next \\u009B end \\u202Egnp.exe";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Plain");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = g_strdup_printf (line, session_id);
  NatterWindow *window;

  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), text, strlen (text), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  /* The file's title is shown with its stand-ins, and read as it is. */
  wait_row (window, session_id, shown);
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (u->index, session_id)), ==,
                   "Old \x1b[31mred\x07 \x01title\nnext \xc2\x9b end \xe2\x80\xaegnp.exe");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  {
    gboolean found = FALSE;
    g_autoptr(GPtrArray) titles = ui_find_all (window, ADW_TYPE_WINDOW_TITLE);

    for (guint i = 0; i < titles->len; i++)
      if (g_strcmp0 (adw_window_title_get_title (g_ptr_array_index (titles, i)), shown) == 0)
        found = TRUE;
    g_assert_true (found);
  }

  /* The delete toast names it as the sidebar does, in its sentence. */
  {
    g_autofree char *deleted = g_strdup_printf ("“%s” deleted", shown);

    gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
    ui_wait_label (natter_window_get_toast_overlay (window), deleted);
    gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A title the session layer refuses (a control character: an escape
 * sequence pasted from a terminal) never closes the rename dialog: what
 * was typed stays, Rename waits, and the dialog says why in plain words.
 * Once the title can be kept, Rename renames. */
void
test_sidebar_rename_refused_keeps_dialog (void)
{
  const char *refused = "\x1b[31mred";
  const char *why = "A title cannot hold line breaks, tabs or other control characters";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Plain");
  NatterSessionIndexEntry *entry = natter_session_index_lookup (u->index, session_id);
  NatterWindow *window = ui_window_new (app, u);
  EntryWait wait = { u, entry, "Red" };
  g_autoptr(AdwMessageDialog) dialog = NULL;
  GtkWidget *title_entry;
  GtkWidget *rename;

  g_assert_true (natter_window_open_session (window, session_id));
  wait_row (window, session_id, "Plain");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.rename", "s", natter_window_get_session_id (window)));
  ui_wait_until (dialog_shown, window);
  /* Held, so that it can be looked at once gone, too. */
  dialog = g_object_ref (find_dialog (GTK_WINDOW (window)));
  title_entry = adw_message_dialog_get_extra_child (dialog);
  rename = ui_find_button (dialog, "_Rename");
  g_assert_nonnull (rename);
  g_assert_true (gtk_widget_is_sensitive (rename));
  g_assert_false (ui_label_shown (dialog, why));

  /* The refused title, typed and confirmed with Enter. */
  gtk_editable_set_text (GTK_EDITABLE (title_entry), refused);
  ui_press_enter (title_entry);
  ui_wait_until (ui_no_button_activating, dialog);
  g_assert_true (find_dialog (GTK_WINDOW (window)) == dialog);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (title_entry)), ==, refused);
  g_assert_false (gtk_widget_is_sensitive (rename));
  g_assert_true (ui_label_shown (dialog, why));
  g_assert_true (ui_error_bar_hidden (window));
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Plain");
  /* For a person to look at. */
  ui_save_window (GTK_WIDGET (dialog), "rename-refused.png");

  /* Mended, it renames. */
  gtk_editable_set_text (GTK_EDITABLE (title_entry), "Red");
  g_assert_true (gtk_widget_is_sensitive (rename));
  g_assert_false (ui_label_shown (dialog, why));
  ui_press_enter (title_entry);
  ui_wait_until (dialog_gone, window);
  /* Let go of while its window lives: a dialog finalized after it would
   * still point to it. */
  g_clear_object (&dialog);
  ui_wait_until (entry_titled, &wait);
  wait_row (window, session_id, "Red");
  g_assert_true (ui_error_bar_hidden (window));

  ui_destroy_window (window);
  ui_world_free (u);
}
