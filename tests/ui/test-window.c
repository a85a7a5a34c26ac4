/* test-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window under a real (virtual) display: its empty state, its
 * size restored, titles that are the user's text and never markup, and
 * New Chat, which writes nothing. In the files beside it: the window at
 * phone width (test-window-narrow.c), the error bar under the message
 * field (test-window-errors.c), the message field itself
 * (test-window-composer.c).
 */

#include "test-window.h"

static void
wait_until_mapped (GtkWidget *widget)
{
  ui_wait_until (ui_is_mapped, widget);
}

static GtkWidget *
find_status_page (GtkWidget  *root,
                  const char *title)
{
  if (ADW_IS_STATUS_PAGE (root) &&
      g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (root)), title) == 0)
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_status_page (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_window_empty_state (void)
{
  NatterWindow *window;

  window = natter_window_new (app, NULL, NULL);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));

  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "No Conversations"));
  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "Start a Conversation"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_size_is_restored (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  NatterWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 777);
  g_settings_set_int (settings, "window-height", 555);

  window = natter_window_new (app, NULL, NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 777);
  g_assert_cmpint (height, ==, 555);

  /* Closing saves the size for the next start. */
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 640);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));
  gtk_window_close (GTK_WINDOW (window));
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 900);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 640);
}

#define MARKUP_TITLE "Tom & Jerry <b>"

typedef struct
{
  GtkWidget  *root;
  const char *text;
} LabelWait;

static gboolean
sidebar_has_one (gpointer data)
{
  ui_settle ();
  return g_list_model_get_n_items (natter_window_get_sidebar_model (data)) == 1;
}

static gboolean
session_row_shown (gpointer data)
{
  LabelWait *w = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (w->root, NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    if (g_strcmp0 (natter_session_row_get_title (g_ptr_array_index (rows, i)), w->text) == 0 &&
        ui_label_shown (g_ptr_array_index (rows, i), w->text))
      return TRUE;
  return FALSE;
}

/* Titles are the user's text, never markup: "Tom & Jerry <b>" shows as
 * typed in the sidebar, the header, the delete toast, a search, a
 * branch's separator and a toast that names it, and nothing warns (the
 * tests run with G_DEBUG=fatal-warnings: a Gtk or Pango markup warning
 * ends the test). */
static void
test_window_markup_in_titles (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Plain");
  g_autofree char *session_id = ui_create_session (u, MARKUP_TITLE);
  g_autofree char *turn_id = NULL;
  g_autofree char *branch_id = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  LabelWait row = { NULL, MARKUP_TITLE };
  GtkEditable *search;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Hello");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  row.root = natter_window_get_session_list (window);

  /* The sidebar and the header. */
  ui_wait_until (session_row_shown, &row);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  {
    AdwWindowTitle *title = NULL;
    g_autoptr(GPtrArray) titles = ui_find_all (window, ADW_TYPE_WINDOW_TITLE);

    for (guint i = 0; i < titles->len; i++)
      if (g_strcmp0 (adw_window_title_get_title (g_ptr_array_index (titles, i)), MARKUP_TITLE) == 0)
        title = g_ptr_array_index (titles, i);
    g_assert_nonnull (title);
    g_assert_true (ui_label_shown (title, MARKUP_TITLE));
  }

  /* A search for it. */
  search = ui_open_search (window);
  gtk_editable_set_text (search, "jerry <b");
  ui_wait_until (sidebar_has_one, window);
  ui_wait_until (session_row_shown, &row);
  gtk_editable_set_text (search, "");

  /* The delete toast says which conversation went, and Undo brings it
   * back. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window));
  ui_wait_label (natter_window_get_toast_overlay (window), "“" MARKUP_TITLE "” deleted");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  /* A toast from a row naming it (as "Message copied" does). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-toast", "s", "Copied “" MARKUP_TITLE "”");
  ui_wait_label (natter_window_get_toast_overlay (window), "Copied “" MARKUP_TITLE "”");

  /* A notice naming an agent called so (toasts are markup too). */
  {
    g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
    g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
    g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"tj\",\"name\":\"" MARKUP_TITLE "\","
                                                  "\"systemPrompt\":\"\",\"tools\":[]}");
    NatterAgentChooser *chooser = natter_composer_get_agent_chooser (natter_window_get_composer (window));

    g_assert_true (natter_agent_store_save (store, json_node_get_object (agent), &error));
    g_assert_no_error (error);
    natter_window_set_agent_store (window, store);
    natter_agent_chooser_set_agent_id (chooser, "tj");
    g_assert_true (natter_agent_store_delete (store, "tj", &error));
    g_assert_no_error (error);
    ui_wait_label (natter_window_get_toast_overlay (window),
                "The agent “" MARKUP_TITLE "” was removed: messages go to Assistant");
  }

  /* A branch of it names it in its separator. */
  natter_sessions_fork_async (u->sessions, session_id, turn_id, NULL, NULL, ui_result_cb, &result);
  branch_id = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_true (natter_window_open_session (window, branch_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_label (natter_window_get_timeline_list (window), "Branched from “" MARKUP_TITLE "”");

  ui_destroy_window (window);
  (void) other;
  ui_world_free (u);
}

static gboolean
a_session_open (gpointer data)
{
  return natter_window_get_session_id (data) != NULL;
}

/* New Chat writes nothing: a new conversation is listed, and has a file,
 * from its first message on. Its draft waits while another conversation
 * is open, and it is the conversation that opens once sent. Nothing of
 * an unused new chat is there after a restart. */
static void
test_window_new_chat_writes_nothing (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Other");
  g_autoptr(GPtrArray) before = natter_test_list_files (u->w->dir, "storage/sessions");
  g_autoptr(GPtrArray) after = NULL;
  NatterWindow *window = ui_window_new (app, u);
  NatterComposer *composer = natter_window_get_composer (window);
  g_autofree char *draft = NULL;

  g_assert_true (natter_window_open_session (window, other));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  g_assert_null (natter_window_get_session_id (window));
  natter_composer_set_text (composer, "Half a thought");
  after = natter_test_list_files (u->w->dir, "storage/sessions");
  g_assert_cmpuint (after->len, ==, before->len);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 1);

  /* Away and back: the new chat's draft is still there. */
  g_assert_true (natter_window_open_session (window, other));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  draft = natter_composer_dup_text (composer);
  g_assert_cmpstr (draft, ==, "Half a thought");

  /* Sent: one new conversation, opened, its message answered. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  natter_composer_set_text (composer, "A whole thought");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (a_session_open, window);
  g_assert_cmpstr (natter_window_get_session_id (window), !=, other);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 2);
  g_ptr_array_unref (after);
  after = natter_test_list_files (u->w->dir, "storage/sessions");
  g_assert_cmpuint (after->len, ==, before->len + 1);
  ui_wait_turn (u, natter_session_index_entry_get_latest_turn_id (
                  natter_session_index_lookup (u->index, natter_window_get_session_id (window))));

  /* An unused new chat, then a restart: nothing of it is listed. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  ui_destroy_window (window);
  ui_world_restart (u);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (u->index)), ==, 2);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/window/empty-state", test_window_empty_state);
  g_test_add_func ("/window/drafts/kept-on-close", test_window_drafts_kept_on_close);
  g_test_add_func ("/window/drafts/kept-without-close", test_window_drafts_kept_without_close);
  g_test_add_func ("/window/drafts/edit-stays-an-edit", test_window_drafts_edit_stays_an_edit);
  g_test_add_func ("/window/drafts/edit-sets-draft-aside", test_window_drafts_edit_sets_draft_aside);
  g_test_add_func ("/window/drafts/set-aside-kept", test_window_drafts_set_aside_kept);
  g_test_add_func ("/window/drafts/damaged-keeps-draft", test_window_drafts_damaged_keeps_draft);
  g_test_add_func ("/window/drafts/unreadable-said", test_window_drafts_unreadable_said);
  g_test_add_func ("/window/size-is-restored", test_window_size_is_restored);
  g_test_add_func ("/window/narrow", test_window_narrow);
  g_test_add_func ("/window/narrow-buttons", test_window_narrow_buttons);
  g_test_add_func ("/window/narrow-back-to-open", test_window_narrow_back_to_open);
  g_test_add_func ("/window/markup-in-titles", test_window_markup_in_titles);
  g_test_add_func ("/window/errors", test_window_errors);
  g_test_add_func ("/window/missing-default-provider", test_window_missing_default_provider);
  g_test_add_func ("/window/provider-error-goes-with-settings", test_window_provider_error_goes_with_settings);
  g_test_add_func ("/window/default-is-first-provider", test_window_default_is_first_provider);
  g_test_add_func ("/window/composer", test_window_composer);
  g_test_add_func ("/window/composer-grows", test_window_composer_grows);
  g_test_add_func ("/window/new-chat-writes-nothing", test_window_new_chat_writes_nothing);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
