/* test-window-drafts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words waiting in a message field outlive the window (docs/format.md
 * §10): kept when the window closes, and a second after the last change
 * without it (a crash), in each conversation and in a new chat; an edit
 * of a sent message comes back as an edit, with the words it set aside;
 * a message sent takes its draft with it once it is in the log, so that
 * no crash loses it or offers it to be sent twice; a kept draft that
 * cannot be read is said and left on disk.
 */

#include "test-window.h"

typedef struct
{
  NatterWindow *window;
  const char   *text;
} ComposerWait;

static gboolean
composer_says (gpointer data)
{
  ComposerWait *wait = data;
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (wait->window));

  return g_strcmp0 (text, wait->text) == 0;
}

static char *
draft_path (UiWorld    *u,
            const char *key)
{
  g_autofree char *name = g_strconcat (key[0] != '\0' ? key : "new-chat", ".json", NULL);

  return g_build_filename (g_file_peek_path (u->w->dir), NATTER_DRAFTS_DIR_NAME, name, NULL);
}

typedef struct
{
  const char *path;
  const char *holds;   /* nullable: the file is gone */
} FileWait;

static gboolean
file_holds (gpointer data)
{
  FileWait *wait = data;
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (wait->path, &contents, NULL, NULL))
    return wait->holds == NULL;
  return wait->holds != NULL && strstr (contents, wait->holds) != NULL;
}

/* A window over @u's conversations that keeps drafts in @u's data folder,
 * as the application's window does in its own. */
static NatterWindow *
window_with_drafts (UiWorld *u)
{
  g_autoptr(NatterDraftStore) store = natter_draft_store_new (u->w->dir);
  NatterWindow *window = ui_window_new (app, u);

  natter_window_set_draft_store (window, store);
  return window;
}

static void
open_and_wait (NatterWindow *window,
               const char   *session_id)
{
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
}

/* Closed with words in two conversations and a new chat: opened again,
 * each has its own words back. */
void
test_window_drafts_kept_on_close (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "First");
  g_autofree char *second = ui_create_session (u, "Second");
  g_autofree char *first_path = draft_path (u, first);
  g_autofree char *new_path = draft_path (u, "");
  NatterWindow *window = window_with_drafts (u);
  NatterComposer *composer = natter_window_get_composer (window);
  ComposerWait wait;

  open_and_wait (window, first);
  natter_composer_set_text (composer, "Half a thought\nand a second line");
  open_and_wait (window, second);
  natter_composer_set_text (composer, "Something for the second");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  natter_composer_set_text (composer, "A new idea");

  /* The words typed last are not on disk before a second passed; then
   * the window closes. */
  g_assert_false (g_file_test (new_path, G_FILE_TEST_EXISTS));
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (g_file_test (new_path, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (first_path, G_FILE_TEST_EXISTS));
  g_object_unref (window);

  window = window_with_drafts (u);
  composer = natter_window_get_composer (window);
  open_and_wait (window, first);
  wait = (ComposerWait) { window, "Half a thought\nand a second line" };
  ui_wait_until (composer_says, &wait);
  open_and_wait (window, second);
  wait = (ComposerWait) { window, "Something for the second" };
  ui_wait_until (composer_says, &wait);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  wait = (ComposerWait) { window, "A new idea" };
  ui_wait_until (composer_says, &wait);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Never closed (a crash): the words typed a second before are kept, and
 * a message sent takes its draft once it is in the log. */
void
test_window_drafts_kept_without_close (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Crash");
  g_autofree char *path = draft_path (u, session_id);
  NatterWindow *window = window_with_drafts (u);
  NatterComposer *composer = natter_window_get_composer (window);
  FileWait file;
  ComposerWait wait;

  open_and_wait (window, session_id);
  natter_composer_set_text (composer, "Typed before the crash");
  file = (FileWait) { path, "Typed before the crash" };
  ui_wait_until (file_holds, &file);
  ui_destroy_window (window);

  window = window_with_drafts (u);
  composer = natter_window_get_composer (window);
  open_and_wait (window, session_id);
  wait = (ComposerWait) { window, "Typed before the crash" };
  ui_wait_until (composer_says, &wait);

  /* Sent: the field empties at once, but the words stay on disk until
   * they are in the log (the send may first wait on a slow server, and a
   * crash then would lose them); then the draft goes at once, not a
   * second later, so that no crash offers it to be sent twice. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  g_assert_true (natter_composer_send (composer));
  wait = (ComposerWait) { window, "" };
  g_assert_true (composer_says (&wait));
  g_assert_true (file_holds (&file));
  file = (FileWait) { path, NULL };
  ui_wait_until (file_holds, &file);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 1);
  ui_wait_until (ui_no_advances, u);
  ui_destroy_window (window);

  window = window_with_drafts (u);
  open_and_wait (window, session_id);
  wait = (ComposerWait) { window, "" };
  g_assert_true (composer_says (&wait));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *says;
} ToastWait;

/* Whether a toast says @says. */
static gboolean
toast_says (gpointer data)
{
  ToastWait *wait = data;

  ui_settle ();
  return ui_label_shown (natter_window_get_toast_overlay (wait->window), wait->says);
}

static gboolean
details_shown (gpointer data)
{
  ui_settle ();
  return ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG) != NULL;
}

/* Takes @turn_id's message to @window's field to edit it. */
static void
start_edit (NatterWindow *window,
            const char   *turn_id)
{
  ComposerWait wait = { window, "The first wording" };

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-message", "s", turn_id));
  ui_wait_until (composer_says, &wait);
}

/* A window with drafts over @session_id, whose one message "The first
 * wording" (@out_turn_id) is being edited into "A better wording", with
 * @typed (nullable) in the field before the edit began. */
static NatterWindow *
window_editing (UiWorld     *u,
                const char  *session_id,
                const char  *typed,
                char       **out_turn_id)
{
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  *out_turn_id = ui_send (u, session_id, "The first wording");
  ui_wait_turn (u, *out_turn_id);
  window = window_with_drafts (u);
  open_and_wait (window, session_id);
  ui_wait_turn_read (window, *out_turn_id);
  if (typed != NULL)
    natter_composer_set_text (natter_window_get_composer (window), typed);
  start_edit (window, *out_turn_id);
  natter_composer_set_text (natter_window_get_composer (window), "A better wording");
  return window;
}

/* An edit of a sent message, kept and opened again, is still an edit:
 * sent as a plain message it would repeat the one it replaces. */
void
test_window_drafts_edit_stays_an_edit (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Edited");
  g_autofree char *turn_id = NULL;
  g_autofree char *path = draft_path (u, session_id);
  NatterWindow *window;
  ComposerWait wait;
  FileWait file;

  window = window_editing (u, session_id, NULL, &turn_id);
  file = (FileWait) { path, turn_id };
  ui_wait_until (file_holds, &file);
  ui_destroy_window (window);

  window = window_with_drafts (u);
  open_and_wait (window, session_id);
  wait = (ComposerWait) { window, "A better wording" };
  ui_wait_until (composer_says, &wait);
  g_assert_cmpstr (window->versions.editing_turn_id, ==, turn_id);
  g_assert_true (natter_conversation_view_get_editing (window->conversation.view));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *not;
} OtherWait;

/* Whether a conversation other than @not is open, read. */
static gboolean
other_open (gpointer data)
{
  OtherWait *wait = data;
  const char *open = natter_window_get_session_id (wait->window);

  return open != NULL && g_strcmp0 (open, wait->not) != 0 && ui_timeline_loaded (wait->window);
}

/* Taking a sent message to the field to edit it puts the words being
 * written there aside: they come back when the edit is cancelled, and
 * when it is sent, in the new version's field. */
void
test_window_drafts_edit_sets_draft_aside (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Aside");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  ComposerWait wait;
  OtherWait other;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "The first wording");
  ui_wait_turn (u, turn_id);
  window = window_with_drafts (u);
  composer = natter_window_get_composer (window);
  open_and_wait (window, session_id);
  ui_wait_turn_read (window, turn_id);
  natter_composer_set_text (composer, "Words of a next message");

  start_edit (window, turn_id);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-edit", NULL));
  wait = (ComposerWait) { window, "Words of a next message" };
  ui_wait_until (composer_says, &wait);

  start_edit (window, turn_id);
  natter_composer_set_text (composer, "A better wording");
  g_assert_true (natter_composer_send (composer));
  wait = (ComposerWait) { window, "Words of a next message" };
  ui_wait_until (composer_says, &wait);
  ui_wait_until (ui_no_advances, u);
  other = (OtherWait) { window, session_id };
  ui_wait_until (other_open, &other);
  g_assert_null (window->versions.editing_turn_id);
  ui_wait_until (composer_says, &wait);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The words set aside for an edit outlive the window with the edit
 * (a crash: no close): opened again, the field holds the edit, and
 * giving it up brings those words back; then they are the draft. */
void
test_window_drafts_set_aside_kept (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Aside kept");
  g_autofree char *turn_id = NULL;
  g_autofree char *path = draft_path (u, session_id);
  g_autofree char *contents = NULL;
  NatterWindow *window;
  ComposerWait wait;
  FileWait file;

  window = window_editing (u, session_id, "Words of a next message", &turn_id);
  file = (FileWait) { path, "\"setAside\":\"Words of a next message\"" };
  ui_wait_until (file_holds, &file);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"text\":\"A better wording\""));
  g_assert_nonnull (strstr (contents, turn_id));
  ui_destroy_window (window);

  window = window_with_drafts (u);
  open_and_wait (window, session_id);
  ui_wait_turn_read (window, turn_id);
  wait = (ComposerWait) { window, "A better wording" };
  ui_wait_until (composer_says, &wait);
  g_assert_cmpstr (window->versions.editing_turn_id, ==, turn_id);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-edit", NULL));
  wait = (ComposerWait) { window, "Words of a next message" };
  ui_wait_until (composer_says, &wait);
  g_assert_null (window->versions.editing_turn_id);
  /* Kept now as a plain draft, the edit and the aside gone. */
  g_assert_true (_natter_window_drafts_save (window));
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\":\"Words of a next message\"}");

  /* An edit emptied keeps the words it set aside, as a plain draft. */
  start_edit (window, turn_id);
  natter_composer_set_text (natter_window_get_composer (window), "");
  g_assert_true (_natter_window_drafts_save (window));
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\":\"Words of a next message\"}");

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
page_errored (gpointer window)
{
  ui_settle ();
  return g_strcmp0 (natter_window_get_visible_page (window), "errored") == 0;
}

/* A conversation whose file is damaged shows no message field: its kept
 * draft stays kept while it is open, and goes with Copy Readable Part
 * into the copy's field. */
void
test_window_drafts_damaged_keeps_draft (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Damaged");
  g_autofree char *turn_id = NULL;
  g_autofree char *path = draft_path (u, session_id);
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autofree char *session_path = g_file_get_path (file);
  g_autoptr(NatterDraftStore) store = natter_draft_store_new (u->w->dir);
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  FileWait kept;
  OtherWait other;
  g_autofree char *text = NULL;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Kept in the log");
  ui_wait_turn (u, turn_id);
  g_assert_true (natter_test_save_draft (store, session_id, "My precious draft", NULL, NULL, &error));
  g_assert_no_error (error);
  natter_test_append_file (session_path, "{\"type\":");
  ui_world_restart (u);

  window = window_with_drafts (u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (page_errored, window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  natter_composer_set_text (natter_window_get_composer (window), "");
  _natter_window_drafts_save (window);
  kept = (FileWait) { path, "My precious draft" };
  g_assert_true (file_holds (&kept));

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (page_errored, window);
  _natter_window_drafts_save (window);
  g_assert_true (file_holds (&kept));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-readable-part", NULL));
  other = (OtherWait) { window, session_id };
  ui_wait_until (other_open, &other);
  text = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_nonnull (strstr (text, "My precious draft"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A draft file that cannot be read is said in a toast and left as it is;
 * the window opens the conversation with an empty field, and words typed
 * there are kept beside it, never over it. */
void
test_window_drafts_unreadable_said (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Damaged draft");
  g_autofree char *path = draft_path (u, session_id);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *aside_name = g_strconcat (session_id, ".unreadable.json", NULL);
  g_autofree char *aside = g_build_filename (dir, aside_name, NULL);
  g_autofree char *contents = NULL;
  NatterWindow *window;
  ComposerWait wait;
  ToastWait said;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, "{\"text\": \"cut", -1, NULL));
  window = window_with_drafts (u);
  said = (ToastWait) { window, "Unreadable draft" };
  ui_wait_until (toast_says, &said);
  /* Its Details say where, and why, selectable. */
  g_assert_true (gtk_widget_activate (ui_find_button (natter_window_get_toast_overlay (window), "_Details")));
  ui_wait_until (details_shown, NULL);
  {
    AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
    GtkWidget *text = adw_message_dialog_get_extra_child (dialog);
    const char *body = gtk_label_get_text (GTK_LABEL (text));

    g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Unreadable draft");
    /* A path or a reason can be copied from there. */
    g_assert_true (gtk_label_get_selectable (GTK_LABEL (text)));
    g_assert_true (g_str_has_prefix (body, "It stays on disk as it is.\n\n"));
    g_assert_nonnull (strstr (body, path));
    gtk_window_destroy (GTK_WINDOW (dialog));
  }
  open_and_wait (window, session_id);
  wait = (ComposerWait) { window, "" };
  g_assert_true (composer_says (&wait));
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  g_object_unref (window);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\": \"cut");
  g_clear_pointer (&contents, g_free);

  /* Words typed in its place are kept, and it is set aside, byte for
   * byte, never written over. */
  window = window_with_drafts (u);
  open_and_wait (window, session_id);
  natter_composer_set_text (natter_window_get_composer (window), "Typed in its place");
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  g_object_unref (window);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "Typed in its place"));
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (aside, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\": \"cut");

  ui_world_free (u);
}
