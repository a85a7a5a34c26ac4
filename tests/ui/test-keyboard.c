/* test-keyboard.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every feature must be usable from the keyboard alone: each feature's key
 * is registered and does the thing; focus lands where the next key press is
 * meant to go; every control of a prompt card, a tool card, a code block
 * and the message actions takes the focus and is on the Tab path; and the
 * shortcuts window lists exactly the keys the application binds.
 *
 * A key press is dispatched the way GTK dispatches it to shortcuts:
 * capture phase from the window down to the focus widget, then bubble
 * phase back up, through every shortcut controller on the way (the
 * application's accelerators are a capture-phase controller on each
 * window). Tab is the window's own focus move, its move-focus signal.
 *
 * The registered keys are here; the scenarios are in the files beside it
 * (test-keyboard-conversations.c, -prompts.c, -windows.c, -cycle.c).
 */

#include "natter-sessions-settings.h"
#include "test-keyboard.h"

/* The registered accelerators */

static const struct
{
  const char *action;
  const char *accel;
} expected_accels[] = {
  { "app.quit", "<Control>q" },
  { "app.preferences", "<Control>comma" },
  { "win.show-help-overlay", "<Control>question" },
  { "win.new-chat", "<Control>n" },
  { "win.search", "<Control>f" },
  { "win.rename('')", "F2" },
  { "win.undo", "<Control>z" },
  { "win.focus-composer", "<Control>l" },
  { "win.choose-model", "<Control>m" },
  { "win.go-back", "<Alt>Left" },
  { "win.dictate", "<Shift><Control>d" },
  { "win.read-aloud-focused", "<Shift><Control>r" },
  { "win.toggle-pin('')", "<Control>d" },
  { "win.next-conversation", "<Alt>Down" },
  { "win.next-conversation", "<Control>Page_Down" },
  { "win.previous-conversation", "<Alt>Up" },
  { "win.previous-conversation", "<Control>Page_Up" },
};

static void
test_keyboard_accels_registered (void)
{
  for (gsize i = 0; i < G_N_ELEMENTS (expected_accels); i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    expected_accels[i].action);

      if (!strv_has (accels, expected_accels[i].accel))
        g_error ("%s is not bound to %s", expected_accels[i].action, expected_accels[i].accel);
    }
}

/* The keys that belong to a focused widget rather than to the
 * application, each checked where it is bound (below and in
 * test_keyboard_local_keys_bound). */
static const char *local_keys[] = {
  "F10",            /* the primary menu button (GtkMenuButton:primary) */
  "Delete",         /* the session list */
  "Return",         /* the composer sends */
  "<Shift>Return",  /* the composer's new line */
  "Escape",         /* the window, bubble phase: stop the answer */
  "<Shift>F10",     /* a focused widget's context menu (GTK) */
  "Tab",            /* the composer into a waiting prompt */
  "<Control>o",     /* the composer: attach files */
};

static gboolean
accel_equal (const char *a,
             const char *b)
{
  guint ka, kb;
  GdkModifierType ma, mb;

  return gtk_accelerator_parse (a, &ka, &ma) && gtk_accelerator_parse (b, &kb, &mb) &&
         gdk_keyval_to_lower (ka) == gdk_keyval_to_lower (kb) && ma == mb;
}

/* The shortcuts window and the registered keys cannot drift apart: every
 * accelerator the application registers is listed, every listed action
 * has its key, and every key listed without an action is one of the
 * widget-local keys. */
static void
test_keyboard_help_overlay_matches (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-help-overlay.ui");
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  g_autoptr(GPtrArray) listed_actions = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) listed_keys = g_ptr_array_new_with_free_func (g_free);
  GSList *objects = gtk_builder_get_objects (builder);

  for (GSList *l = objects; l != NULL; l = l->next)
    {
      g_autofree char *action = NULL;
      g_autofree char *accelerator = NULL;

      if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        continue;
      g_object_get (l->data, "action-name", &action, "accelerator", &accelerator, NULL);
      if (action != NULL)
        g_ptr_array_add (listed_actions, g_steal_pointer (&action));
      else if (accelerator != NULL)
        g_ptr_array_add (listed_keys, g_steal_pointer (&accelerator));
    }
  g_slist_free (objects);
  g_assert_cmpuint (listed_actions->len, >, 0);

  /* Registered → listed */
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), actions[i]);
      gboolean listed = FALSE;

      if (accels == NULL || accels[0] == NULL)
        continue;
      for (guint j = 0; j < listed_actions->len; j++)
        listed |= g_strcmp0 (g_ptr_array_index (listed_actions, j), actions[i]) == 0;
      if (!listed)
        g_error ("%s (%s) is missing from the shortcuts window", actions[i], accels[0]);
    }

  /* Listed → registered */
  for (guint j = 0; j < listed_actions->len; j++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                    g_ptr_array_index (listed_actions, j));

      if (accels == NULL || accels[0] == NULL)
        g_error ("The shortcuts window lists %s, which has no key", (char *) g_ptr_array_index (listed_actions, j));
    }
  for (guint j = 0; j < listed_keys->len; j++)
    {
      const char *key = g_ptr_array_index (listed_keys, j);
      gboolean known = FALSE;

      for (gsize k = 0; k < G_N_ELEMENTS (local_keys); k++)
        known |= accel_equal (key, local_keys[k]);
      if (!known)
        g_error ("The shortcuts window lists %s, which nothing binds", key);
    }
  /* …and each local key is listed, except Tab, which every GTK user knows. */
  for (gsize k = 0; k < G_N_ELEMENTS (local_keys); k++)
    {
      gboolean listed = g_str_equal (local_keys[k], "Tab");

      for (guint j = 0; j < listed_keys->len; j++)
        listed |= accel_equal (g_ptr_array_index (listed_keys, j), local_keys[k]);
      if (!listed)
        g_error ("The shortcuts window does not list %s", local_keys[k]);
    }
}

static gboolean
widget_binds (GtkWidget  *widget,
              const char *accel,
              const char *action)
{
  GListModel *controllers = gtk_widget_observe_controllers (widget);
  guint keyval;
  GdkModifierType modifiers;
  gboolean found = FALSE;

  g_assert_true (gtk_accelerator_parse (accel, &keyval, &modifiers));
  for (guint i = 0; !found && i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; !found && j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutAction *a = gtk_shortcut_get_action (shortcut);

          found = trigger_matches (gtk_shortcut_get_trigger (shortcut), keyval, modifiers) &&
                  GTK_IS_NAMED_ACTION (a) &&
                  g_strcmp0 (gtk_named_action_get_action_name (GTK_NAMED_ACTION (a)), action) == 0;
        }
    }
  g_object_unref (controllers);
  return found;
}

static gboolean
is_primary (GtkWidget *menu_button)
{
  return gtk_menu_button_get_primary (GTK_MENU_BUTTON (menu_button));
}

static void
test_keyboard_local_keys_bound (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = window_new (u);

  g_assert_true (widget_binds (natter_window_get_session_list (window), "Delete", "win.delete"));
  g_assert_true (widget_binds (GTK_WIDGET (window), "Escape", "win.stop"));
  g_assert_true (widget_binds (GTK_WIDGET (natter_window_get_composer (window)), "<Control>o", "composer.attach"));
  /* F10 opens the main menu: GTK binds it to the primary menu button. */
  g_assert_nonnull (ui_find_first_full (window, GTK_TYPE_MENU_BUTTON, is_primary));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  gboolean    pinned;
} PinWait;

static gboolean
pinned_is (gpointer data)
{
  PinWait *w = data;

  return natter_sessions_get_pinned (w->u->sessions, w->session_id) == w->pinned;
}

/* Ctrl+D pins the open conversation and, pressed again, unpins it: one
 * key for both; with no conversation open it pins nothing. */
static void
test_keyboard_pin (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Keep at the top");
  NatterWindow *window = window_new (u);
  PinWait w = { u, session_id, TRUE };

  press (window, "<Control>d");
  ui_settle ();
  g_assert_false (natter_sessions_get_pinned (u->sessions, session_id));
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_true (press (window, "<Control>d"));
  ui_wait_until (pinned_is, &w);
  w.pinned = FALSE;
  g_assert_true (press (window, "<Control>d"));
  ui_wait_until (pinned_is, &w);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/keyboard/accels-registered", test_keyboard_accels_registered);
  g_test_add_func ("/keyboard/help-overlay-matches", test_keyboard_help_overlay_matches);
  g_test_add_func ("/keyboard/start-types-into-composer", test_keyboard_start_types_into_composer);
  g_test_add_func ("/keyboard/local-keys-bound", test_keyboard_local_keys_bound);
  g_test_add_func ("/keyboard/pin", test_keyboard_pin);
  g_test_add_func ("/keyboard/new-chat-search-composer", test_keyboard_new_chat_and_composer);
  g_test_add_func ("/keyboard/open-with-enter", test_keyboard_open_with_enter);
  g_test_add_func ("/keyboard/rename", test_keyboard_rename);
  g_test_add_func ("/keyboard/delete-and-undo", test_keyboard_delete_and_undo);
  g_test_add_func ("/keyboard/undo-at-once-twice", test_keyboard_undo_at_once_twice);
  g_test_add_func ("/keyboard/undo-folder-delete", test_keyboard_undo_folder_delete);
  g_test_add_func ("/keyboard/row-context-menu", test_keyboard_row_context_menu);
  g_test_add_func ("/keyboard/undo-typing-first", test_keyboard_undo_typing_first);
  g_test_add_func ("/keyboard/send-keeps-focus-escape-stops", test_keyboard_send_keeps_focus_and_escape_stops);
  g_test_add_func ("/keyboard/blank-not-sent", test_keyboard_blank_not_sent);
  g_test_add_func ("/keyboard/search-down-to-list", test_keyboard_search_down_to_list);
  g_test_add_func ("/keyboard/keys-act-on-focused-row", test_keyboard_keys_act_on_focused_row);
  g_test_add_func ("/keyboard/search-escape-to-row", test_keyboard_search_escape_to_row);
  g_test_add_func ("/keyboard/arrows-walk-list", test_keyboard_arrows_walk_list);
  g_test_add_func ("/keyboard/row-menu-gives-focus-back", test_keyboard_row_menu_gives_focus_back);
  g_test_add_func ("/keyboard/undo-after-new-folder", test_keyboard_undo_after_new_folder);
  g_test_add_func ("/keyboard/next-previous-conversation", test_keyboard_next_previous_conversation);
  g_test_add_func ("/keyboard/permission-prompt", test_keyboard_permission_prompt);
  g_test_add_func ("/keyboard/ask-human-prompt", test_keyboard_ask_human_prompt);
  g_test_add_func ("/keyboard/conversation-controls", test_keyboard_conversation_controls);
  g_test_add_func ("/keyboard/shift-tab-enters-newest-turn", test_keyboard_shift_tab_enters_newest_turn);
  g_test_add_func ("/keyboard/model-picker-and-windows", test_keyboard_model_picker_and_windows);
  g_test_add_func ("/keyboard/narrow-back", test_keyboard_narrow_back);
  g_test_add_func ("/keyboard/tab-stops-named", test_keyboard_tab_stops_named);
  g_test_add_func ("/keyboard/narrow-arrows-stay-in-list", test_keyboard_narrow_arrows_stay_in_list);
  g_test_add_func ("/keyboard/tab-around-answers", test_keyboard_tab_around_answers);
  g_test_add_func ("/keyboard/tab-around-new-chat", test_keyboard_tab_around_new_chat);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
