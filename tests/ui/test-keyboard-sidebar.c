/* test-keyboard-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation list from the keyboard alone: the keys for "this
 * conversation" act on the row with the focus, closing the search
 * leaves the keyboard on a row, and the arrows walk the rows, folders'
 * headers included, without leaving the list.
 */

#include "natter-folder-log.h"
#include "natter-sessions-settings.h"
#include "natter-sidebar-header-row.h"
#include "natter-toast-guard.h"
#include "test-keyboard.h"

/* The conversation of the list's row that has the focus, or NULL. */
static const char *
focused_session (NatterWindow *window)
{
  return natter_sidebar_get_focused_session (window->session_sidebar);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
} RowWait;

static gboolean
row_has_focus (gpointer data)
{
  RowWait *r = data;

  ui_settle ();
  return g_strcmp0 (focused_session (r->window), r->session_id) == 0;
}

static void
wait_focus_on_row (NatterWindow *window,
                   const char   *session_id)
{
  RowWait r = { window, session_id };

  ui_wait_until (row_has_focus, &r);
}

static gboolean
is_open (gpointer data)
{
  RowWait *r = data;

  return g_strcmp0 (natter_window_get_session_id (r->window), r->session_id) == 0;
}

static void
wait_open (NatterWindow *window,
           const char   *session_id)
{
  RowWait r = { window, session_id };

  ui_wait_until (is_open, &r);
}

/* What Tab leaves: the focus on a row, its conversation not opened. */
static void
focus_row_only (NatterWindow *window,
                const char   *session_id)
{
  guint position = natter_sidebar_find_position (window->session_sidebar, session_id);

  g_assert_cmpuint (position, !=, GTK_INVALID_LIST_POSITION);
  g_assert_true (natter_sidebar_focus_position (window->session_sidebar, position, FALSE));
  wait_focus_on_row (window, session_id);
}

static gboolean
row_menu_up (gpointer window)
{
  GtkWidget *menu = natter_sidebar_get_row_menu (NATTER_WINDOW (window)->session_sidebar);

  return menu != NULL && gtk_widget_get_mapped (menu);
}

static gboolean
row_menu_down (gpointer window)
{
  return !row_menu_up (window);
}

/* A key pressed in the list, as GTK dispatches it: along the widgets
 * from the window to the list, as they were when it was pressed (what
 * the key does may move the focus meanwhile), the key controllers that
 * look first, then the list's own shortcuts. */
static gboolean
list_key (NatterWindow *window,
          guint         keyval)
{
  GtkWidget *list = natter_window_get_session_list (window);
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  gboolean handled = FALSE;

  for (GtkWidget *w = list; w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; i < chain->len && !handled; i++)
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (g_ptr_array_index (chain, i));

      for (guint j = 0; j < g_list_model_get_n_items (controllers) && !handled; j++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, j);

          if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
              gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
            g_signal_emit_by_name (controller, "key-pressed", keyval, 0, 0, &handled);
        }
    }
  if (!handled)
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (list);

      for (guint j = 0; j < g_list_model_get_n_items (controllers) && !handled; j++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, j);

          if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
            continue;
          for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (controller)) && !handled; k++)
            {
              g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), k);

              if (trigger_matches (gtk_shortcut_get_trigger (shortcut), keyval, 0))
                handled = gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, list,
                                                        gtk_shortcut_get_arguments (shortcut));
            }
        }
    }
  ui_settle ();
  return handled;
}

/* The target of the row menu's item for @action, which names the row's
 * conversation, or NULL when it has none. */
static GVariant *
menu_item_target (GMenuModel *model,
                  const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      GVariant *target;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return g_menu_model_get_item_attribute_value (model, i, G_MENU_ATTRIBUTE_TARGET, NULL);
      if (section != NULL && (target = menu_item_target (section, action)) != NULL)
        return target;
    }
  return NULL;
}

/* The row's menu, as a person picks @action in it. */
static void
pick_in_row_menu (NatterWindow *window,
                  const char   *action)
{
  GtkWidget *menu = natter_sidebar_get_row_menu (window->session_sidebar);
  g_autoptr(GVariant) target = menu_item_target (gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu)), action);

  g_assert_nonnull (target);
  gtk_popover_popdown (GTK_POPOVER (menu));
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), action, target));
  ui_settle ();
}

static gboolean
title_is (gpointer data)
{
  RowWait *r = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (r->window->sessions),
                                                                r->session_id);

  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_title (entry), "Alpha renamed") == 0;
}

static gboolean
is_pinned (gpointer data);

/* The open conversation is as it was: not another, not opened again
 * (its turns not read again: the same timeline), none waiting to open. */
static void
assert_still_open (NatterWindow        *window,
                   const char          *session_id,
                   NatterTimelineModel *timeline)
{
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);
  g_assert_true (natter_window_get_timeline (window) == timeline);
  g_assert_null (natter_window_get_opening_session_id (window));
}

/* F2, Ctrl+D, Delete and the Menu key act on the row with the focus,
 * which Tab moved to without opening it, not on the open conversation;
 * that row is not opened for it, and the open one stays open as it was. */
void
test_keyboard_keys_act_on_focused_row (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autofree char *gamma = ui_create_session (u, "Gamma");
  NatterWindow *window = window_new (u);
  NatterTimelineModel *timeline;
  RowWait alpha_wait = { window, alpha };
  RowWait beta_wait = { window, beta };
  AdwToast *toast;
  GtkWindow *dialog;
  GtkWidget *entry;

  g_assert_true (natter_window_open_session (window, gamma));
  ui_wait_until (ui_timeline_loaded, window);
  timeline = natter_window_get_timeline (window);

  /* F2 renames Alpha, whose row has the focus. */
  focus_row_only (window, alpha);
  g_assert_true (press (window, "F2"));
  dialog = find_dialog (window);
  g_assert_nonnull (dialog);
  assert_still_open (window, gamma, timeline);
  entry = adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "Alpha");
  gtk_editable_set_text (GTK_EDITABLE (entry), "Alpha renamed");
  g_signal_emit_by_name (gtk_root_get_focus (GTK_ROOT (dialog)), "activate");
  ui_wait_until (title_is, &alpha_wait);
  assert_still_open (window, gamma, timeline);

  /* Ctrl+D pins Beta, whose row has the focus, not Gamma. */
  focus_row_only (window, beta);
  g_assert_true (press (window, "<Control>d"));
  ui_wait_until (is_pinned, &beta_wait);
  g_assert_false (natter_sessions_get_pinned (u->sessions, gamma));
  assert_still_open (window, gamma, timeline);

  /* Delete deletes Beta, whose row has the focus, and its toast names
   * it; Gamma stays open, and the focus goes on in the list. */
  focus_row_only (window, beta);
  g_assert_true (list_key (window, GDK_KEY_Delete));
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, beta), ==, GTK_INVALID_LIST_POSITION);
  toast = g_hash_table_lookup (window->sidebar.pending_deletes, beta);
  g_assert_nonnull (toast);
  g_assert_cmpstr (adw_toast_get_title (toast), ==, "“Beta” deleted");
  assert_still_open (window, gamma, timeline);
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, gamma), ==,
                    gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (gtk_list_view_get_model (
                      GTK_LIST_VIEW (natter_window_get_session_list (window))))));

  /* The Menu key shows Alpha's menu, its items naming Alpha; its Delete
   * deletes Alpha, Gamma staying open. */
  focus_row_only (window, alpha);
  g_assert_true (press (window, "Menu"));
  ui_wait_until (row_menu_up, window);
  assert_still_open (window, gamma, timeline);
  pick_in_row_menu (window, "win.delete");
  ui_wait_until (row_menu_down, window);
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, alpha), ==, GTK_INVALID_LIST_POSITION);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 2);
  assert_still_open (window, gamma, timeline);

  /* Ctrl+Z brings Alpha back to the list, the keyboard on its row,
   * leaving Gamma open; again, Beta. */
  g_assert_true (press (window, "<Control>z"));
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, alpha), !=, GTK_INVALID_LIST_POSITION);
  wait_focus_on_row (window, alpha);
  assert_still_open (window, gamma, timeline);
  g_assert_true (press (window, "<Control>z"));
  wait_focus_on_row (window, beta);
  g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
  assert_still_open (window, gamma, timeline);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Escape in the search field, with folders listed: the keyboard goes
 * to the open conversation's row, where the keys of the list work, not
 * to whatever takes it as the search bar slides away. */
void
test_keyboard_search_escape_to_row (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = ui_create_folder (folders, "Work");
  NatterWindow *window;
  GtkWidget *entry;

  ui_set_folder (u, alpha, work_id);
  window = window_new (u);
  entry = natter_sidebar_get_search_entry (window->session_sidebar);
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, alpha));
  ui_wait_until (ui_timeline_loaded, window);

  for (guint i = 0; i < 2; i++)
    {
      g_assert_true (press (window, "<Control>f"));
      wait_focus_in (window, entry);
      if (i == 1)
        gtk_editable_set_text (GTK_EDITABLE (entry), "Be");
      g_signal_emit_by_name (entry, "stop-search");
      wait_focus_on_row (window, alpha);
      g_assert_false (natter_sidebar_get_search_mode (window->session_sidebar));
    }
  g_assert_nonnull (beta);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* An arrow key in the list as GTK delivers it: the key controllers
 * first, then, if none took it, the window's arrow binding. */
static void
arrow (NatterWindow *window,
       guint         keyval)
{
  if (!press_key_controllers (window, keyval))
    gtk_widget_child_focus (GTK_WIDGET (window), keyval == GDK_KEY_Up ? GTK_DIR_UP : GTK_DIR_DOWN);
  ui_settle ();
}

typedef struct
{
  NatterWindow *window;
  GtkWidget    *expander;
} HeaderWait;

static gboolean
header_has_focus (gpointer data)
{
  HeaderWait *h = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (h->window));
  GtkWidget *header = focus != NULL ? gtk_widget_get_ancestor (focus, NATTER_TYPE_SIDEBAR_HEADER_ROW) : NULL;

  ui_settle ();
  return header != NULL && focus == natter_sidebar_header_row_get_expander (NATTER_SIDEBAR_HEADER_ROW (header));
}

static gboolean
later_header_has_focus (gpointer window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_ancestor (focus, NATTER_TYPE_SIDEBAR_HEADER_ROW) : NULL;
  NatterSidebarHeader *header = row != NULL ? natter_sidebar_header_row_get_header (NATTER_SIDEBAR_HEADER_ROW (row)) : NULL;
  NatterFolder *folder = header != NULL ? natter_sidebar_header_get_folder (header) : NULL;

  ui_settle ();
  return folder != NULL && g_strcmp0 (natter_folder_get_name (folder), "Later") == 0;
}

/* Up and Down walk the rows of a wide window: a conversation's row opens
 * its conversation and keeps the keyboard; a folder's header is a stop
 * of its own and is passed, both ways; Enter then goes to the message
 * field. */
void
test_keyboard_arrows_walk_list (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *filed = ui_create_session (u, "Filed");
  g_autofree char *loose = ui_create_session (u, "Loose");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *work_id = ui_create_folder (folders, "Work");
  HeaderWait h;
  NatterWindow *window;
  GtkWidget *list;
  GtkWidget *item;

  ui_set_folder (u, filed, work_id);
  window = window_new (u);
  list = natter_window_get_session_list (window);
  h = (HeaderWait) { window, NULL };
  natter_window_set_folders (window, folders);
  g_assert_true (natter_window_open_session (window, loose));
  ui_wait_until (ui_timeline_loaded, window);
  focus_row_only (window, loose);

  /* Work, Filed, Recent, Loose: up past "Recent" to Filed, which opens. */
  arrow (window, GDK_KEY_Up);
  wait_focus_on_row (window, filed);
  wait_open (window, filed);
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));
  /* Up to the folder's header, and down past it again. */
  arrow (window, GDK_KEY_Up);
  ui_wait_until (header_has_focus, &h);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, filed);
  /* Its list item is named too, as a screen reader moving by items meets it. */
  item = ui_list_item_of (gtk_root_get_focus (GTK_ROOT (window)));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_LABEL, "Work");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, "Folder");
  arrow (window, GDK_KEY_Down);
  wait_focus_on_row (window, filed);
  arrow (window, GDK_KEY_Down);
  wait_focus_on_row (window, loose);
  wait_open (window, loose);
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));

  /* Enter goes to the conversation. */
  g_signal_emit_by_name (list, "activate", natter_sidebar_find_position (window->session_sidebar, loose));
  ui_settle ();
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  /* A folder made (New Folder…) has the keyboard on its header once the
   * dialog is gone, not nothing. */
  natter_window_create_folder (window, "Later", NULL);
  ui_wait_until (later_header_has_focus, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
is_pinned (gpointer data)
{
  RowWait *r = data;

  return natter_sessions_get_pinned (r->window->sessions, r->session_id);
}

/* The row's menu gives the keyboard back to its row when it closes,
 * not to the window's first control; and a row that Pin to Top moves
 * keeps it at its new place. */
void
test_keyboard_row_menu_gives_focus_back (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autofree char *gamma = ui_create_session (u, "Gamma");
  NatterWindow *window = window_new (u);
  GtkWidget *menu = natter_sidebar_get_row_menu (window->session_sidebar);
  RowWait r = { window, beta };

  g_assert_true (natter_window_open_session (window, gamma));
  ui_wait_until (ui_timeline_loaded, window);

  /* Escape: the menu closes with the keyboard in it. */
  focus_row_only (window, beta);
  g_assert_true (list_key (window, GDK_KEY_Menu));
  ui_wait_until (row_menu_up, window);
  g_assert_true (gtk_widget_child_focus (menu, GTK_DIR_TAB_FORWARD));
  gtk_popover_popdown (GTK_POPOVER (menu));
  ui_wait_until (row_menu_down, window);
  wait_focus_on_row (window, beta);

  /* Pin to Top: Beta goes above Gamma, focused there. */
  g_assert_true (list_key (window, GDK_KEY_Menu));
  ui_wait_until (row_menu_up, window);
  g_assert_true (gtk_widget_child_focus (menu, GTK_DIR_TAB_FORWARD));
  pick_in_row_menu (window, "win.pin");
  ui_wait_until (is_pinned, &r);
  ui_wait_until (row_menu_down, window);
  wait_focus_on_row (window, beta);
  g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, beta), <,
                    natter_sidebar_find_position (window->session_sidebar, gamma));
  g_assert_nonnull (alpha);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  char       *before;      /* the folder it was in */
} FolderWait;

static gboolean
in_other_folder (gpointer data)
{
  FolderWait *f = data;
  const char *folder_id = natter_sessions_get_folder_id (f->u->sessions, f->session_id);

  return folder_id != NULL && g_strcmp0 (folder_id, f->before) != 0;
}

/* The deletion's toast has finished appearing, and the conversation
 * that took the deleted one's place has opened: the moment, a second or
 * two after Delete, a person's Ctrl+Z comes. */
static gboolean
settled_after_delete (gpointer window)
{
  return natter_toast_guard_is_settled (ADW_TOAST_OVERLAY (natter_window_get_toast_overlay (window))) &&
         natter_window_get_opening_session_id (window) == NULL;
}

/* Into a new folder named in New Folder…'s dialog, from the row's menu. */
static void
move_to_new_folder (UiWorld      *u,
                    NatterWindow *window,
                    const char   *session_id,
                    const char   *name)
{
  g_autofree char *before = g_strdup (natter_sessions_get_folder_id (u->sessions, session_id));
  FolderWait f = { u, session_id, before };
  GtkWindow *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.move-to-new-folder", "s", session_id));
  dialog = find_dialog (window);
  g_assert_nonnull (dialog);
  gtk_editable_set_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog))), name);
  g_signal_emit_by_name (ui_find_button (dialog, "C_reate"), "clicked");
  ui_wait_until (in_other_folder, &f);
}

/* Ctrl+Z a moment after deleting a conversation just moved into a new
 * folder brings it back, its file and its folder kept, whether the
 * keyboard is in the list or in the message field, at once or once the
 * toast is up. (Typed in the message field after the deletion, words
 * are undone first, the toast's Undo staying: test_keyboard_undo_typing_first.) */
void
test_keyboard_undo_after_new_folder (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autoptr(NatterFolders) folders = ui_folders_new (u);
  g_autofree char *old_id = ui_create_folder (folders, "Old");
  NatterWindow *window = window_new (u);
  const char *names[] = { "Fresh", "Fresher", "Freshest", "Newer", "Newest" };

  natter_window_set_folders (window, folders);
  for (guint round = 0; round < G_N_ELEMENTS (names); round++)
    {
      g_autofree char *folder_id = NULL;

      g_assert_true (natter_window_open_session (window, beta));
      ui_wait_until (ui_timeline_loaded, window);
      focus_row_only (window, beta);
      move_to_new_folder (u, window, beta, names[round]);
      folder_id = g_strdup (natter_sessions_get_folder_id (u->sessions, beta));

      /* Delete on its row, or from the conversation's menu (round 2)
       * after typing in its message field: what was typed there goes
       * with the field's conversation, and is no undo of another's. */
      if (round != 2)
        {
          focus_row_only (window, beta);
          g_assert_true (list_key (window, GDK_KEY_Delete));
        }
      else
        {
          GtkWidget *text = ui_find_first (natter_window_get_composer (window), GTK_TYPE_TEXT_VIEW);
          GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (text));

          g_assert_true (press (window, "<Control>l"));
          gtk_text_buffer_begin_user_action (buffer);
          gtk_text_buffer_insert_interactive_at_cursor (buffer, "A draft", -1, TRUE);
          gtk_text_buffer_end_user_action (buffer);
          g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", beta));
        }
      g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
      /* At once (round 3, the toast still sliding in, the next
       * conversation still opening) or a frame later (round 4), else
       * once all is settled. */
      if (round < 3)
        {
          ui_wait_toasts_settled (window);
          ui_wait_until (settled_after_delete, window);
        }
      else if (round == 4)
        ui_settle ();

      /* The keyboard in the list (rounds 0 and 3), or in the message
       * field. */
      if (round != 0 && round != 3)
        g_assert_true (press (window, "<Control>l"));
      g_assert_true (press (window, "<Control>z"));
      g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 0);
      g_assert_cmpuint (natter_sidebar_find_position (window->session_sidebar, beta), !=, GTK_INVALID_LIST_POSITION);
      natter_window_dismiss_pending_deletes (window);
      ui_settle ();
      g_assert_nonnull (natter_session_index_lookup (u->index, beta));
      g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, beta), ==, folder_id);
    }
  g_assert_nonnull (alpha);
  g_assert_nonnull (old_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Alt+Down and Ctrl+Page Down open the conversation listed below the
 * open one, Alt+Up and Ctrl+Page Up the one above, passing over the
 * sections' headers and stopping at either end; the keyboard stays in
 * the message field. */
void
test_keyboard_next_previous_conversation (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *alpha = ui_create_session (u, "Alpha");
  g_autofree char *beta = ui_create_session (u, "Beta");
  g_autofree char *gamma = ui_create_session (u, "Gamma");
  NatterWindow *window;
  RowWait pinned;
  GtkWidget *text;

  ui_set_pinned (u, alpha, TRUE);
  window = window_new (u);
  pinned = (RowWait) { window, alpha };
  ui_wait_until (is_pinned, &pinned);
  /* [Pinned] Alpha [Recent] Gamma Beta; none open: the first. */
  g_assert_null (natter_window_get_session_id (window));
  g_assert_true (press (window, "<Alt>Down"));
  wait_open (window, alpha);
  g_assert_true (press (window, "<Control>l"));
  text = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (GTK_IS_TEXT_VIEW (text));
  g_assert_true (press (window, "<Alt>Down"));
  wait_open (window, gamma);
  g_assert_true (press (window, "<Control>Page_Down"));
  wait_open (window, beta);
  /* The end: it stays. */
  press (window, "<Alt>Down");
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, beta);
  g_assert_true (press (window, "<Alt>Up"));
  wait_open (window, gamma);
  g_assert_true (press (window, "<Control>Page_Up"));
  wait_open (window, alpha);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  ui_destroy_window (window);
  ui_world_free (u);
}
