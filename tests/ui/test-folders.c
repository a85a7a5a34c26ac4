/* test-folders.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pins and folders in the window (docs/sessions.md §16): Pin to Top in
 * the conversation's menu moves the conversation under "Pinned"; New
 * Folder… makes a folder, which shows empty; a row dropped on the
 * folder's header and Move to Folder put conversations in it; the
 * folder's button hides and shows them; the search can be narrowed to
 * it; deleting it leaves every conversation in the list, under Recent,
 * and its toast's Undo puts them back in it. Each step waits for the
 * list to say so, as a person would see it.
 */

#include "natter-folder-log.h"
#include "natter-plain-text.h"
#include "natter-sessions-settings.h"
#include "natter-sidebar-header-row.h"
#include "natter-sidebar-sections.h"
#include "natter-test-sessions.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* The sidebar as text: titles, and headers in brackets. */
static char *
describe_list (gpointer data)
{
  GListModel *model = natter_window_get_sidebar_model (data);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (model, i);

      if (i > 0)
        g_string_append_c (text, ' ');
      if (NATTER_IS_SIDEBAR_HEADER (item))
        {
          NatterFolder *folder = natter_sidebar_header_get_folder (NATTER_SIDEBAR_HEADER (item));

          if (folder != NULL)
            g_string_append_printf (text, "[%s]", natter_folder_get_name (folder));
          else
            g_string_append (text, natter_sidebar_header_get_kind (NATTER_SIDEBAR_HEADER (item)) ==
                                   NATTER_SIDEBAR_HEADER_PINNED ? "[Pinned]" : "[Recent]");
        }
      else
        g_string_append (text, natter_session_index_entry_get_title (NATTER_SESSION_INDEX_ENTRY (item)));
    }
  return g_string_free (text, FALSE);
}

typedef struct
{
  NatterWindow *window;
  const char   *expected;
} ListIs;

static gboolean
list_is (gpointer data)
{
  ListIs *wait = data;
  g_autofree char *text = describe_list (wait->window);

  return g_str_equal (text, wait->expected);
}

static char *
describe_list_wait (gpointer data)
{
  ListIs *wait = data;
  g_autofree char *text = describe_list (wait->window);

  return g_strdup_printf ("the sidebar lists “%s”, not “%s”", text, wait->expected);
}

static void
wait_list (NatterWindow *window,
           const char   *expected)
{
  ListIs wait = { window, expected };

  ui_wait_until_full (list_is, describe_list_wait, &wait);
}

static AdwMessageDialog *
find_dialog (void)
{
  GtkWindow *dialog = ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG);

  return dialog != NULL ? ADW_MESSAGE_DIALOG (dialog) : NULL;
}

/* The row widget of @name's folder header, once the list shows it. */
static NatterSidebarHeaderRow *
header_row (NatterWindow *window,
            const char   *name)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_sidebar_get_list (window->session_sidebar),
                                           NATTER_TYPE_SIDEBAR_HEADER_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSidebarHeader *header = natter_sidebar_header_row_get_header (g_ptr_array_index (rows, i));
      NatterFolder *folder = header != NULL ? natter_sidebar_header_get_folder (header) : NULL;

      if (folder != NULL && g_strcmp0 (natter_folder_get_name (folder), name) == 0 &&
          gtk_widget_get_mapped (g_ptr_array_index (rows, i)))
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *name;
} HeaderShown;

static gboolean
header_shown (gpointer data)
{
  HeaderShown *wait = data;

  return header_row (wait->window, wait->name) != NULL;
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  const char *folder_id;
} InFolder;

static gboolean
in_folder (gpointer data)
{
  InFolder *wait = data;

  return g_strcmp0 (natter_sessions_get_folder_id (wait->u->sessions, wait->session_id), wait->folder_id) == 0;
}

/* The delete toast says what went and that its conversations stay. */
static gboolean
toast_shown (gpointer data)
{
  return ui_label_shown (natter_window_get_toast_overlay (data), "Folder “Work” deleted; its conversations stay");
}

/* The toast is gone from the overlay, its hide animation ended. */
static gboolean
toast_gone (gpointer data)
{
  return !toast_shown (data) && ui_no_toasts (data);
}

static gboolean
projects_toast_shown (gpointer data)
{
  return ui_label_shown (natter_window_get_toast_overlay (data), "Folder “Projects” deleted; its conversations stay");
}

/* The id of the sidebar's selected row, or NULL. */
static const char *
selected_session (NatterWindow *window)
{
  GtkListView *list = GTK_LIST_VIEW (ui_find_first (GTK_WIDGET (window->session_sidebar), GTK_TYPE_LIST_VIEW));
  GObject *item = gtk_single_selection_get_selected_item (GTK_SINGLE_SELECTION (gtk_list_view_get_model (list)));

  return NATTER_IS_SESSION_INDEX_ENTRY (item) ? natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item))
                                              : NULL;
}

/* Folded to one page, and done moving. */
static gboolean
folded (gpointer data)
{
  NatterWindow *window = data;

  return adw_leaflet_get_folded (window->leaflet) && !adw_leaflet_get_child_transition_running (window->leaflet);
}

/* Types @text into the name dialog and presses Enter, as a person would;
 * returns once no button is being pressed. */
static void
type_and_enter (AdwMessageDialog *dialog,
                const char       *text)
{
  GtkWidget *entry = adw_message_dialog_get_extra_child (dialog);

  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  ui_press_enter (entry);
  ui_wait_until (ui_no_button_activating, dialog);
}

/* Opens @menu_button's menu, as a click does, and clicks its item
 * @label there (its words, without the mnemonic's underline): the menu closes and gives the focus back to the button
 * before the item's action runs. */
static void
menu_item_clicked (GtkWidget  *menu_button,
                   const char *label)
{
  GtkPopover *popover;
  g_autoptr(GPtrArray) items = NULL;

  gtk_widget_grab_focus (menu_button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  ui_settle ();
  popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));
  items = ui_find_all (popover, g_type_from_name ("GtkModelButton"));
  for (guint i = 0; i < items->len; i++)
    {
      g_autofree char *text = NULL;

      g_object_get (g_ptr_array_index (items, i), "text", &text, NULL);
      if (g_strcmp0 (text, label) == 0)
        {
          g_signal_emit_by_name (g_ptr_array_index (items, i), "clicked");
          return;
        }
    }
  g_error ("No menu item “%s”", label);
}

static void
test_pins_and_folders (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autofree char *gamma = ui_create_session (u, "Gamma");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *beta_before = NULL;
  g_autofree char *beta_after = NULL;
  g_autofree char *work_id = NULL;
  g_autoptr(GFile) beta_file = NULL;
  NatterSidebarHeaderRow *work_row;
  AdwMessageDialog *dialog;
  NatterFolder *work;
  GtkWidget *scope;
  GtkWidget *scope_button;
  GtkEditable *search;
  GValue dropped = G_VALUE_INIT;
  gboolean taken = FALSE;
  NatterWindow *window;
  HeaderShown shown;
  InFolder moved;

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  /* Without pins and folders: the plain list, newest first. */
  wait_list (window, "Gamma Beta Alpha");

  /* Pin to Top, from the conversation's menu. */
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (ui_menu_has_action (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (window->conversation_menu_button)),
                                  "win.pin"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pin", "s", natter_window_get_session_id (window)));
  wait_list (window, "[Pinned] Alpha [Recent] Gamma Beta");
  g_assert_true (natter_sessions_get_pinned (u->sessions, alpha));

  /* New Folder… names a folder, which shows though it is empty. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-folder", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  dialog = find_dialog ();
  gtk_editable_set_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog)), "Work");
  /* Create, as a person clicks it: that also closes the dialog. */
  g_signal_emit_by_name (ui_find_button (dialog, "C_reate"), "clicked");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  wait_list (window, "[Pinned] Alpha [Work] [Recent] Gamma Beta");
  work = natter_folders_find_by_name (folders, "Work");
  g_assert_nonnull (work);
  work_id = g_strdup (natter_folder_get_id (work));

  /* Beta's row dropped on the folder's header goes into it. */
  shown = (HeaderShown) { window, "Work" };
  ui_wait_until (header_shown, &shown);
  work_row = header_row (window, "Work");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (natter_sidebar_header_row_get_expander (work_row)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Work");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (natter_sidebar_header_row_get_menu_button (work_row)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Menu of Folder “Work”");
  g_value_init (&dropped, G_TYPE_STRING);
  g_value_set_string (&dropped, beta);
  g_signal_emit_by_name (natter_sidebar_header_row_get_drop_target (work_row), "drop", &dropped, 4.0, 4.0, &taken);
  g_value_unset (&dropped);
  g_assert_true (taken);
  moved = (InFolder) { u, beta, work_id };
  ui_wait_until (in_folder, &moved);
  wait_list (window, "[Pinned] Alpha [Work] Beta [Recent] Gamma");

  /* Move to Folder, from the conversation's menu. */
  g_assert_true (natter_window_open_session (window, gamma));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", "",
                                             work_id));
  wait_list (window, "[Pinned] Alpha [Work] Gamma Beta");

  /* The folder's button hides and shows its conversations. */
  shown = (HeaderShown) { window, "Work" };
  ui_wait_until (header_shown, &shown);
  work_row = header_row (window, "Work");
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (natter_sidebar_header_row_get_expander (work_row)), FALSE);
  wait_list (window, "[Pinned] Alpha [Work]");
  natter_sidebar_set_folder_expanded (window->session_sidebar, work_id, TRUE);
  wait_list (window, "[Pinned] Alpha [Work] Gamma Beta");
  /* The open conversation's row, gone while the folder was closed, is
   * the selected one again. */
  g_assert_cmpstr (selected_session (window), ==, gamma);
  /* For a person to look at: the sections in both styles, and at the
   * narrowest width, where the list is the whole window. */
  ui_save_window (GTK_WIDGET (window), "folders-light.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  ui_save_window (GTK_WIDGET (window), "folders-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 700);
  ui_wait_until (folded, window);
  adw_leaflet_navigate (window->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
  ui_wait_until (folded, window);
  ui_save_window (GTK_WIDGET (window), "folders-360.png");
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  wait_list (window, "[Pinned] Alpha [Work] Gamma Beta");

  /* The search, narrowed to the folder. */
  search = ui_open_search (window);
  scope = natter_sidebar_get_scope_dropdown (window->session_sidebar);
  g_assert_true (gtk_widget_get_visible (scope));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scope), GTK_ACCESSIBLE_PROPERTY_LABEL, "Search In");
  /* What takes the focus is the button inside: named, and saying where
   * the search looks. */
  scope_button = ui_find_first (scope, GTK_TYPE_TOGGLE_BUTTON);
  g_assert_nonnull (scope_button);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scope_button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Search In");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scope_button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "All Conversations");
  gtk_editable_set_text (search, "a");
  wait_list (window, "Gamma Beta Alpha");
  natter_sidebar_set_search_scope (window->session_sidebar, work_id);
  g_assert_cmpuint (gtk_drop_down_get_selected (GTK_DROP_DOWN (scope)), ==, 1);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (scope_button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "Work");
  wait_list (window, "Gamma Beta");
  gtk_drop_down_set_selected (GTK_DROP_DOWN (scope), 0);
  wait_list (window, "Gamma Beta Alpha");
  natter_sidebar_set_search_mode (window->session_sidebar, FALSE);
  wait_list (window, "[Pinned] Alpha [Work] Gamma Beta");

  /* Deleting the folder deletes no conversation and writes to none; its
   * Undo puts them back in it. */
  beta_file = natter_jsonl_repo_get_file (u->w->session_repo, beta, NULL);
  beta_before = natter_test_read_file (g_file_peek_path (beta_file), NULL);
  /* From its header's menu: the focus is on the header when it goes. */
  shown = (HeaderShown) { window, "Work" };
  ui_wait_until (header_shown, &shown);
  menu_item_clicked (natter_sidebar_header_row_get_menu_button (header_row (window, "Work")), "Delete Folder");
  wait_list (window, "[Pinned] Alpha [Recent] Gamma Beta");
  ui_wait_until (toast_shown, window);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, gamma);
  g_assert_cmpstr (selected_session (window), ==, gamma);
  beta_after = natter_test_read_file (g_file_peek_path (beta_file), NULL);
  g_assert_cmpstr (beta_before, ==, beta_after);
  /* Undo, as a person clicks it: the toast goes with it. */
  ui_click_toast_button (window, "_Undo");
  ui_wait_until (toast_gone, window);
  wait_list (window, "[Pinned] Alpha [Work] Gamma Beta");
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, gamma);
  g_assert_cmpstr (selected_session (window), ==, gamma);

  /* Renamed from its header's menu, with Enter in the dialog: the
   * conversation open in it stays open, and its row selected. */
  shown = (HeaderShown) { window, "Work" };
  ui_wait_until (header_shown, &shown);
  menu_item_clicked (natter_sidebar_header_row_get_menu_button (header_row (window, "Work")), "Rename Folder…");
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  dialog = g_object_ref (find_dialog ());
  type_and_enter (dialog, "Jobs");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  g_object_unref (dialog);
  wait_list (window, "[Pinned] Alpha [Jobs] Gamma Beta");
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, gamma);
  g_assert_cmpstr (selected_session (window), ==, gamma);

  /* Unpin, from the conversation's menu, which names it. */
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.unpin", "s", alpha));
  wait_list (window, "[Jobs] Gamma Beta [Recent] Alpha");

  /* Nothing still on its way when the window goes, and no conversation
   * open in it: a window destroyed just as its sidebar's rows moved has
   * now and then kept the open conversation's view alive (seen about
   * once in twelve runs under load). */
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  ui_settle ();
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A folder holding a pinned conversation and another, deleted and
 * brought back by its toast's Undo: the folder is back under its old
 * id, and both conversations are in it, the pinned one still pinned. */
static void
test_delete_pinned_member_undo (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *projects_id = NULL;
  NatterWindow *window;
  InFolder moved;

  projects_id = ui_create_folder (folders, "Projects");
  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  wait_list (window, "[Projects] [Recent] Beta Alpha");

  /* Both into the folder, Alpha pinned as well, from its menu. */
  g_assert_true (natter_window_open_session (window, beta));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", "", projects_id));
  moved = (InFolder) { u, beta, projects_id };
  ui_wait_until (in_folder, &moved);
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", "", projects_id));
  moved = (InFolder) { u, alpha, projects_id };
  ui_wait_until (in_folder, &moved);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.pin", "s", natter_window_get_session_id (window)));
  wait_list (window, "[Pinned] Alpha [Projects] Beta");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", projects_id));
  ui_wait_until (projects_toast_shown, window);
  wait_list (window, "[Pinned] Alpha [Recent] Beta");
  /* Undo, as a person clicks it, and as a screen reader says it. */
  ui_assert_named_as_shown (ui_find_button (natter_window_get_toast_overlay (window), "_Undo"), "Undo");
  ui_click_toast_button (window, "_Undo");
  wait_list (window, "[Pinned] Alpha [Projects] Beta");
  g_assert_nonnull (natter_folders_lookup (folders, projects_id));
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, alpha), ==, projects_id);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, projects_id);
  g_assert_true (natter_sessions_get_pinned (u->sessions, alpha));

  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  ui_settle ();
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A version of @session_id's message after @turn_id, answered: what an
 * edit of it makes. */
static char *
answered_version (UiWorld    *u,
                  const char *session_id,
                  const char *turn_id,
                  const char *text)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *answered = NULL;
  char *version;

  natter_sessions_fork_async (u->sessions, session_id, turn_id, "Dinner", NULL, ui_result_cb, &result);
  version = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  answered = ui_send (u, version, text);
  ui_wait_turn (u, answered);
  return version;
}

typedef struct
{
  UiWorld    *u;
  const char *gone;
} Gone;

static gboolean
session_gone (gpointer data)
{
  Gone *wait = data;

  return natter_session_index_lookup (wait->u->index, wait->gone) == NULL;
}

/* The version Gone names has taken its deleted original's pin. */
static gboolean
heir_pinned (gpointer data)
{
  Gone *wait = data;

  return natter_sessions_get_pinned (wait->u->sessions, wait->gone);
}

/* The session of the sidebar's row at @position. */
static const char *
row_session (NatterWindow *window,
             guint         position)
{
  g_autoptr(GObject) item = g_list_model_get_item (natter_window_get_sidebar_model (window), position);

  g_assert_true (NATTER_IS_SESSION_INDEX_ENTRY (item));
  return g_intern_string (natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item)));
}

/* A pinned conversation in a folder, its second message edited twice,
 * its original deleted from the window: the two versions stand alone,
 * both in the folder, and the one its pinned row showed (the latest)
 * stays pinned, alone under Pinned. The list shows that already while
 * the undo toast is up, not each version pinned until it goes. */
static void
test_delete_pinned_original_of_versions (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *older = NULL;
  g_autofree char *latest = NULL;
  g_autofree char *listed = NULL;
  NatterWindow *window;
  Gone gone;

  work_id = ui_create_folder (folders, "Work");
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, original, "And for dessert?");
  ui_wait_turn (u, second);
  older = answered_version (u, original, first, "And for a sweet dessert?");
  latest = answered_version (u, original, first, "And for a light dessert?");
  ui_set_pinned (u, original, TRUE);
  ui_set_folder (u, original, work_id);

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  wait_list (window, "[Pinned] Dinner [Work]");
  g_assert_true (natter_window_open_session (window, original));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window)));
  ui_wait_label (natter_window_get_toast_overlay (window),
                 "This version of “Dinner” deleted; its 2 other versions are kept");
  /* Checked at once: the toast goes on its own after a while. */
  listed = describe_list (window);
  g_assert_cmpstr (listed, ==, "[Pinned] Dinner [Work] Dinner");
  g_assert_cmpstr (row_session (window, 1), ==, latest);
  g_assert_cmpstr (row_session (window, 3), ==, older);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  natter_window_dismiss_pending_deletes (window);
  gone = (Gone) { u, original };
  ui_wait_until (session_gone, &gone);
  /* The versions take what the original kept once it is gone. */
  gone = (Gone) { u, latest };
  ui_wait_until (heir_pinned, &gone);

  wait_list (window, "[Pinned] Dinner [Work] Dinner");
  g_assert_cmpstr (row_session (window, 1), ==, latest);
  g_assert_cmpstr (row_session (window, 3), ==, older);
  g_assert_false (natter_sessions_get_pinned (u->sessions, older));
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, latest), ==, work_id);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, older), ==, work_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
folder_taken (gpointer data)
{
  Gone *wait = data;

  return natter_sessions_get_folder_id (wait->u->sessions, wait->gone) != NULL &&
         g_strcmp0 (natter_sessions_get_conversation_id (wait->u->sessions, wait->gone), wait->gone) == 0;
}

/* A version of a pinned conversation in a folder, deleted while another
 * version was made of it: that one is listed as a conversation of its
 * own, in the folder and not pinned, while the toast is up as once the
 * delete is carried out; the conversation the person pinned stays
 * pinned. */
static void
test_delete_version_of_versions (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = ui_create_folder (folders, "Work");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *version = NULL;
  g_autofree char *version_turn = NULL;
  g_autofree char *third = NULL;
  g_autofree char *nested = NULL;
  g_autofree char *listed = NULL;
  NatterWindow *window;
  Gone gone;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, original, "And for dessert?");
  ui_wait_turn (u, second);
  version = answered_version (u, original, first, "And for a sweet dessert?");
  version_turn = g_strdup (natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index,
                                                                                                        version)));
  third = ui_send (u, version, "With cream?");
  ui_wait_turn (u, third);
  nested = answered_version (u, version, version_turn, "With fruit?");
  ui_set_pinned (u, original, TRUE);
  ui_set_folder (u, original, work_id);
  g_assert_cmpstr (natter_sessions_get_conversation_id (u->sessions, nested), ==, original);

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  wait_list (window, "[Pinned] Dinner [Work]");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", version));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  ui_settle ();
  /* Checked at once: the toast goes on its own after a while. */
  listed = describe_list (window);
  g_assert_cmpstr (listed, ==, "[Pinned] Dinner [Work] Dinner");
  g_assert_cmpstr (row_session (window, 1), ==, original);
  g_assert_cmpstr (row_session (window, 3), ==, nested);
  natter_window_dismiss_pending_deletes (window);
  gone = (Gone) { u, version };
  ui_wait_until (session_gone, &gone);
  gone = (Gone) { u, nested };
  ui_wait_until (folder_taken, &gone);

  wait_list (window, "[Pinned] Dinner [Work] Dinner");
  g_assert_cmpstr (row_session (window, 1), ==, original);
  g_assert_cmpstr (row_session (window, 3), ==, nested);
  g_assert_true (natter_sessions_get_pinned (u->sessions, original));
  g_assert_false (natter_sessions_get_pinned (u->sessions, nested));
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, nested), ==, work_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The original of a conversation pinned before the window opened,
 * deleted, and the conversation unpinned meanwhile (`natter unpin` of
 * its version, whose pin the original keeps): its row leaves Pinned at
 * once, the toast stays up, and once it goes the version stands alone,
 * unpinned, as the command left the conversation. A version left keeps
 * what was changed, so nothing is kept back. */
static void
test_delete_original_unpinned_meanwhile (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *version = NULL;
  NatterWindow *window;
  Gone gone;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  version = answered_version (u, original, first, "And for dessert?");
  ui_set_pinned (u, original, TRUE);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, original));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window)));
  ui_wait_label (natter_window_get_toast_overlay (window),
                 "This version of “Dinner” deleted; its 1 other version is kept");
  ui_set_pinned (u, version, FALSE);
  ui_settle ();
  /* Unpinned, the conversation's row leaves Pinned at once. */
  wait_list (window, "Dinner");
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_true (ui_label_shown (natter_window_get_toast_overlay (window),
                                 "This version of “Dinner” deleted; its 1 other version is kept"));

  natter_window_dismiss_pending_deletes (window);
  gone = (Gone) { u, original };
  ui_wait_until (session_gone, &gone);
  wait_list (window, "Dinner");
  g_assert_false (natter_sessions_get_pinned (u->sessions, version));

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
renamed_toast_shown (gpointer data)
{
  NatterWindow *window = data;

  return ui_label_shown (natter_window_get_toast_overlay (window), "Folder back as “Projects (2)”") &&
         g_strcmp0 (window->errors.last_notice_details,
                    "There is a folder “Projects” already: the deleted one is back as “Projects (2)”") == 0;
}

/* A folder deleted, a new one made with its name, then the deletion
 * undone: the deleted folder is back under its old id with its
 * conversation, named apart from the new one ("Projects (2)"), and a
 * toast says why; the new folder keeps its name. */
static void
test_delete_undo_name_taken (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *projects_id = NULL;
  g_autofree char *new_id = NULL;
  NatterFolder *restored;
  NatterWindow *window;
  InFolder moved;

  projects_id = ui_create_folder (folders, "Projects");
  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, beta));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", "", projects_id));
  moved = (InFolder) { u, beta, projects_id };
  ui_wait_until (in_folder, &moved);
  wait_list (window, "[Projects] Beta [Recent] Alpha");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", projects_id));
  ui_wait_until (projects_toast_shown, window);
  wait_list (window, "Beta Alpha");
  new_id = ui_create_folder (folders, " projects");
  wait_list (window, "[projects] [Recent] Beta Alpha");

  ui_click_toast_button (window, "_Undo");
  ui_wait_until (renamed_toast_shown, window);
  wait_list (window, "[Projects (2)] Beta [projects] [Recent] Alpha");
  restored = natter_folders_lookup (folders, projects_id);
  g_assert_nonnull (restored);
  g_assert_cmpstr (natter_folder_get_name (restored), ==, "Projects (2)");
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (folders, new_id)), ==, "projects");
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, projects_id);
  g_assert_false (ui_error_bar_shown (window));

  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  ui_settle ();
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A folder deleted, and while its toast shows `natter folder BETA
 * Projects` (its conversation into a new folder of the deleted one's
 * name, which the command makes): the toast and its Undo stay, and Undo
 * brings the deleted folder back beside the new one, named apart, while
 * the conversation stays where the command put it. */
static void
test_delete_then_moved_elsewhere (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *projects_id = NULL;
  g_autofree char *new_id = NULL;
  NatterWindow *window;

  projects_id = ui_create_folder (folders, "Projects");
  ui_set_folder (u, beta, projects_id);
  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  wait_list (window, "[Projects] Beta");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-folder", "s", projects_id));
  ui_wait_until (projects_toast_shown, window);
  new_id = ui_create_folder (folders, "Projects");
  ui_set_folder (u, beta, new_id);
  wait_list (window, "[Projects] Beta");
  ui_settle ();
  g_assert_true (projects_toast_shown (window));

  ui_click_toast_button (window, "_Undo");
  ui_wait_until (renamed_toast_shown, window);
  g_assert_cmpstr (natter_folder_get_name (natter_folders_lookup (folders, projects_id)), ==, "Projects (2)");
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, new_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Whether the Move to Folder menu has an item labelled @label. */
static gboolean
menu_has_label (GMenuModel *model,
                const char *label)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *text = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &text) && g_str_equal (text, label))
        return TRUE;
      if (section != NULL && menu_has_label (section, label))
        return TRUE;
    }
  return FALSE;
}

/* The label @text under @root, shown or not (a submenu's items are
 * there before it slides in), or NULL. */
static GtkWidget *
find_label (GtkWidget  *root,
            const char *text)
{
  if (GTK_IS_LABEL (root) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (root)), text) == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether the item labelled @label of a menu is sensitive. */
static gboolean
item_sensitive (GtkWidget  *popover,
                const char *label)
{
  GtkWidget *found = find_label (popover, label);

  if (found == NULL)
    g_error ("the menu shows no %s", label);
  return gtk_widget_is_sensitive (found);
}

/* Whether @model offers to move @session_id to @folder_id ("" for No
 * Folder). */
static gboolean
offers_move (GMenuModel *model,
             const char *session_id,
             const char *folder_id)
{
  g_autoptr(GVariant) target = g_variant_ref_sink (g_variant_new ("(ss)", session_id, folder_id));

  return ui_menu_item_has_target (model, "win.move-to-folder", target);
}

/* Move to Folder shows where the conversation is: that folder's item,
 * greyed out, is no place to move it to; the others are. So does a
 * row's menu, for the row's conversation, not the open one's. */
static void
test_move_menu_marks_current_folder (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *projects_id = NULL;
  g_autofree char *other_id = NULL;
  g_autoptr(GMenuModel) beta_menu = NULL;
  g_autoptr(GMenuModel) alpha_menu = NULL;
  GtkWidget *popover;
  NatterWindow *window;
  InFolder moved;

  projects_id = ui_create_folder (folders, "Projects");
  other_id = ui_create_folder (folders, "Other");
  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, beta));
  ui_wait_until (ui_timeline_loaded, window);

  /* Beta into Projects, from its row's menu. */
  beta_menu = _natter_window_conversation_menu_new (window, beta);
  g_assert_true (offers_move (beta_menu, beta, projects_id));
  g_assert_false (offers_move (beta_menu, beta, ""));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-folder", "(ss)", beta, projects_id));
  moved = (InFolder) { u, beta, projects_id };
  ui_wait_until (in_folder, &moved);

  /* Now Projects is where it is: not offered, No Folder and Other are. */
  g_clear_object (&beta_menu);
  beta_menu = _natter_window_conversation_menu_new (window, beta);
  g_assert_false (offers_move (beta_menu, beta, projects_id));
  g_assert_true (offers_move (beta_menu, beta, ""));
  g_assert_true (offers_move (beta_menu, beta, other_id));
  g_assert_true (ui_menu_has_action (beta_menu, "win.current-folder"));
  /* Alpha's row, Beta open: Alpha is in no folder. */
  alpha_menu = _natter_window_conversation_menu_new (window, alpha);
  g_assert_false (offers_move (alpha_menu, alpha, ""));
  g_assert_true (offers_move (alpha_menu, alpha, projects_id));

  /* The open conversation's menu, as shown: Projects greyed out. */
  gtk_menu_button_popup (GTK_MENU_BUTTON (window->conversation_menu_button));
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (window->conversation_menu_button)));
  ui_settle ();
  g_assert_false (item_sensitive (popover, "Projects"));
  g_assert_true (item_sensitive (popover, "Other"));
  g_assert_true (item_sensitive (popover, "No Folder"));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (window->conversation_menu_button));

  ui_settle ();
  ui_destroy_window (window);
  ui_world_free (u);
}

/* Whether the search's Search In list offers @name. */
static gboolean
scope_lists (NatterWindow *window,
             const char   *name)
{
  GListModel *names = gtk_drop_down_get_model (GTK_DROP_DOWN (natter_sidebar_get_scope_dropdown (window->session_sidebar)));

  for (guint i = 0; i < g_list_model_get_n_items (names); i++)
    if (g_str_equal (gtk_string_list_get_string (GTK_STRING_LIST (names), i), name))
      return TRUE;
  return FALSE;
}

typedef struct
{
  NatterFolders *folders;
  const char    *folder_id;
  const char    *name;
} FolderNamed;

static gboolean
folder_named (gpointer data)
{
  FolderNamed *wait = data;
  NatterFolder *folder = wait->folder_id != NULL ? natter_folders_lookup (wait->folders, wait->folder_id)
                                                 : natter_folders_find_by_name (wait->folders, wait->name);

  return folder != NULL && g_strcmp0 (natter_folder_get_name (folder), wait->name) == 0;
}

/* A folder's name is one line: New Folder… and Rename Folder… check the
 * name as it is typed with the folder list's own rule, so a name with a
 * control character, or another folder's, keeps the dialog open with
 * what was typed and says why, and a mended name is taken. A name an
 * older version let through shows its control characters as stand-ins,
 * in the sidebar, the search's folder list and the Move to Folder menu,
 * where an underscore stays an underscore. */
static void
test_folder_names_checked (void)
{
  const char *why_controls = "A folder name cannot hold line breaks, tabs or other control characters";
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (u->w->storage);
  g_autoptr(NatterFolders) setup = ui_folders_new (u);
  g_autoptr(NatterFolders) folders = NULL;
  g_autoptr(GPtrArray) older = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(AdwMessageDialog) dialog = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *errands = NULL;
  g_autofree char *shown = natter_visible_text ("Errands\tOld", NATTER_VISIBLE_KEEP_NONE);
  NatterSidebarHeaderRow *row;
  NatterWindow *window;
  HeaderShown header;
  FolderNamed named;
  GtkWidget *create;

  errands = ui_create_folder (setup, "Errands");
  g_free (ui_create_folder (setup, "my_stuff"));
  /* What an older version could write. */
  g_ptr_array_add (older, natter_folder_event_new_renamed (errands, "2026-01-01T00:00:00.000Z", "Errands\tOld"));
  g_assert_true (natter_jsonl_repo_append_sync (repo, errands, older, NULL, &error));
  g_assert_no_error (error);
  folders = ui_folders_new (u);

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);

  /* The older name: stand-ins, never the raw control character. */
  header = (HeaderShown) { window, "Errands\tOld" };
  ui_wait_until (header_shown, &header);
  row = header_row (window, "Errands\tOld");
  g_assert_true (ui_label_shown (row, shown));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (natter_sidebar_header_row_get_expander (row)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, shown);
  g_assert_true (menu_has_label (G_MENU_MODEL (window->folders.menu), shown));
  g_assert_true (menu_has_label (G_MENU_MODEL (window->folders.menu), "my__stuff"));
  g_assert_true (scope_lists (window, shown));

  /* New Folder…: a control character keeps the dialog, and what was
   * typed, and says why. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-folder", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  dialog = g_object_ref (find_dialog ());
  create = ui_find_button (dialog, "C_reate");
  g_assert_nonnull (create);
  /* Nothing typed yet: nothing to make, and nothing to complain of. */
  g_assert_false (gtk_widget_is_sensitive (create));
  g_assert_false (ui_label_shown (dialog, why_controls));
  type_and_enter (dialog, "Home\tWork");
  g_assert_true (find_dialog () == dialog);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog))), ==,
                   "Home\tWork");
  g_assert_false (gtk_widget_is_sensitive (create));
  g_assert_true (ui_label_shown (dialog, why_controls));
  ui_save_window (GTK_WIDGET (dialog), "folder-name-refused.png");
  /* Another folder's name, told apart without case or space. */
  type_and_enter (dialog, " MY_STUFF ");
  g_assert_true (find_dialog () == dialog);
  g_assert_false (gtk_widget_is_sensitive (create));
  g_assert_true (ui_label_shown (dialog, "There is a folder “my_stuff” already"));
  /* Mended, it makes the folder. */
  type_and_enter (dialog, "Home");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  g_clear_object (&dialog);
  named = (FolderNamed) { folders, NULL, "Home" };
  ui_wait_until (folder_named, &named);
  g_assert_true (ui_error_bar_hidden (window));

  /* Rename Folder… of the older name: refused as it stands, so Rename
   * waits until the name is mended. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.rename-folder", "s", errands));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  dialog = g_object_ref (find_dialog ());
  g_assert_false (gtk_widget_is_sensitive (ui_find_button (dialog, "_Rename")));
  g_assert_true (ui_label_shown (dialog, why_controls));
  type_and_enter (dialog, "Errands");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  g_clear_object (&dialog);
  named = (FolderNamed) { folders, errands, "Errands" };
  ui_wait_until (folder_named, &named);
  header = (HeaderShown) { window, "Errands" };
  ui_wait_until (header_shown, &header);
  g_assert_true (ui_error_bar_hidden (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/folders/pin-move-narrow-delete-undo", test_pins_and_folders);
  g_test_add_func ("/folders/delete-pinned-member-undo", test_delete_pinned_member_undo);
  g_test_add_func ("/folders/delete-pinned-original-of-versions", test_delete_pinned_original_of_versions);
  g_test_add_func ("/folders/delete-undo-name-taken", test_delete_undo_name_taken);
  g_test_add_func ("/folders/delete-original-unpinned-meanwhile", test_delete_original_unpinned_meanwhile);
  g_test_add_func ("/folders/delete-version-of-versions", test_delete_version_of_versions);
  g_test_add_func ("/folders/delete-then-moved-elsewhere", test_delete_then_moved_elsewhere);
  g_test_add_func ("/folders/names-checked", test_folder_names_checked);
  g_test_add_func ("/folders/move-menu-marks-current", test_move_menu_marks_current_folder);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
