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
 * window). Tab is the window's own focus move, gtk_widget_child_focus().
 */

#include "natter-ask-human-card.h"
#include "natter-code-block.h"
#include "natter-permission-card.h"
#include "natter-session-row.h"
#include "natter-tool-call-card.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* A window that opens no session by itself: the fake ids repeat from
 * test to test, so the last test's "last-session" would be restored. */
static NatterWindow *
window_new (UiWorld *u)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");

  g_settings_reset (settings, "last-session");
  return ui_window_new (app, u);
}

/* Keys */

static gboolean
trigger_matches (GtkShortcutTrigger *trigger,
                 guint               keyval,
                 GdkModifierType     modifiers)
{
  if (GTK_IS_ALTERNATIVE_TRIGGER (trigger))
    return trigger_matches (gtk_alternative_trigger_get_first (GTK_ALTERNATIVE_TRIGGER (trigger)), keyval, modifiers) ||
           trigger_matches (gtk_alternative_trigger_get_second (GTK_ALTERNATIVE_TRIGGER (trigger)), keyval, modifiers);
  if (!GTK_IS_KEYVAL_TRIGGER (trigger))
    return FALSE;
  return gdk_keyval_to_lower (gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger))) == gdk_keyval_to_lower (keyval) &&
         gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == modifiers;
}

static gboolean
run_controllers (GtkWidget           *widget,
                 GtkPropagationPhase  phase,
                 guint                keyval,
                 GdkModifierType      modifiers)
{
  GListModel *controllers = gtk_widget_observe_controllers (widget);
  gboolean handled = FALSE;

  for (guint i = 0; !handled && i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller) ||
          gtk_event_controller_get_propagation_phase (controller) != phase)
        continue;
      for (guint j = 0; !handled && j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (trigger_matches (gtk_shortcut_get_trigger (shortcut), keyval, modifiers))
            handled = gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                                    gtk_shortcut_get_arguments (shortcut));
        }
    }
  g_object_unref (controllers);
  return handled;
}

/* Presses @accel (gtk_accelerator_parse() syntax) in @window; returns
 * whether a shortcut took it. */
static gboolean
press (gpointer    window,
       const char *accel)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  GdkModifierType modifiers;
  GtkWidget *focus;
  guint keyval;
  gboolean handled = FALSE;

  g_assert_true (gtk_accelerator_parse (accel, &keyval, &modifiers));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  for (GtkWidget *w = focus != NULL ? focus : GTK_WIDGET (window); w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; !handled && i < chain->len; i++)
    handled = run_controllers (g_ptr_array_index (chain, i), GTK_PHASE_CAPTURE, keyval, modifiers);
  for (guint i = chain->len; !handled && i > 0; i--)
    handled = run_controllers (g_ptr_array_index (chain, i - 1), GTK_PHASE_BUBBLE, keyval, modifiers);
  ui_settle ();
  return handled;
}

/* A key the focused widget's own key controllers handle (Enter in the
 * composer, Tab into a waiting prompt or through a turn's controls):
 * emitted on each capture-phase key controller from the window down to
 * the focus, as GTK would. */
static gboolean
press_key_controllers_with (gpointer        window,
                            guint           keyval,
                            GdkModifierType state)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  gboolean handled = FALSE;

  for (GtkWidget *w = gtk_root_get_focus (GTK_ROOT (window)); w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; !handled && i < chain->len; i++)
    {
      GListModel *controllers = gtk_widget_observe_controllers (g_ptr_array_index (chain, i));

      for (guint j = 0; !handled && j < g_list_model_get_n_items (controllers); j++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, j);

          if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
              gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
            g_signal_emit_by_name (controller, "key-pressed", keyval, 0, state, &handled);
        }
      g_object_unref (controllers);
    }
  ui_settle ();
  return handled;
}

static gboolean
press_key_controllers (gpointer window,
                       guint    keyval)
{
  return press_key_controllers_with (window, keyval, 0);
}

/* What Tab does: the key controllers on the way first, then the
 * window's own focus move, wrapping around. */
static void
tab (gpointer         window,
     GtkDirectionType direction)
{
  if (direction == GTK_DIR_TAB_FORWARD ? press_key_controllers_with (window, GDK_KEY_Tab, 0)
                                       : press_key_controllers_with (window, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK))
    return;
  if (!gtk_widget_child_focus (GTK_WIDGET (window), direction))
    {
      gtk_root_set_focus (GTK_ROOT (window), NULL);
      gtk_widget_child_focus (GTK_WIDGET (window), direction);
    }
  ui_settle ();
}

static gboolean
has_focus_in (GtkWidget *window,
              GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

typedef struct
{
  GtkWidget *window;
  GtkWidget *widget;
} FocusWait;

static gboolean
focus_is_in (gpointer data)
{
  FocusWait *f = data;

  ui_settle ();
  return has_focus_in (f->window, f->widget);
}

static void
wait_focus_in (gpointer window,
               gpointer widget)
{
  FocusWait f = { window, widget };

  ui_wait_until (focus_is_in, &f);
}

static gboolean
strv_has (char       **strv,
          const char  *accel)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, accel);
}

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
  { "win.rename", "F2" },
  { "win.undo", "<Control>z" },
  { "win.focus-composer", "<Control>l" },
  { "win.choose-model", "<Control>m" },
  { "win.go-back", "<Alt>Left" },
  { "win.dictate", "<Shift><Control>d" },
  { "win.read-aloud-focused", "<Shift><Control>r" },
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
  /* F10 opens the main menu: GTK binds it to the primary menu button. */
  g_assert_nonnull (ui_find_first_full (window, GTK_TYPE_MENU_BUTTON, is_primary));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Conversations */

static void
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
static void
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

static void
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

static GtkWindow *
find_dialog (NatterWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_window_get_transient_for (w) == GTK_WINDOW (window))
        return w;
    }
  return NULL;
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

static void
test_keyboard_rename (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Old");
  NatterWindow *window = window_new (u);
  TitleWait t = { u, session_id, "New title" };
  GtkWindow *dialog;
  GtkWidget *entry;

  /* F2 without a conversation is not taken. */
  g_assert_false (press (window, "F2"));
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_true (press (window, "F2"));
  dialog = find_dialog (window);
  g_assert_nonnull (dialog);
  entry = adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog));
  /* The title is ready to be typed over; Enter renames (the default). */
  g_assert_true (has_focus_in (GTK_WIDGET (dialog), entry));
  g_assert_true (gtk_entry_get_activates_default (GTK_ENTRY (entry)));
  g_assert_cmpstr (adw_message_dialog_get_default_response (ADW_MESSAGE_DIALOG (dialog)), ==, "rename");
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

static void
test_keyboard_delete_and_undo (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *oldest = ui_create_session (u, "Oldest");
  g_autofree char *middle = ui_create_session (u, "Middle");
  g_autofree char *newest = ui_create_session (u, "Newest");
  NatterWindow *window = window_new (u);
  GListModel *model = natter_window_get_sidebar_model (window);
  GtkWidget *list = natter_window_get_session_list (window);

  /* The middle row is open and focused in the list. */
  g_assert_true (natter_window_open_session (window, middle));
  gtk_widget_grab_focus (list);
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
  gtk_widget_grab_focus (list);
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
static void
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
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", NULL));
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

static void
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

static void
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

/* Prompts */

typedef struct
{
  NatterWindow *window;
  GType         type;
} CardWait;

static gboolean
card_shown (gpointer data)
{
  CardWait *w = data;
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (w->window, w->type);
  return cards->len > 0;
}

static GtkWidget *
wait_card (NatterWindow *window,
           GType         type)
{
  CardWait w = { window, type };
  g_autoptr(GPtrArray) cards = NULL;

  ui_wait_until (card_shown, &w);
  cards = ui_find_all (window, type);
  return g_ptr_array_index (cards, 0);
}

/* Every focusable widget reached by Tab from the window, in order, once
 * around. */
static GPtrArray *
tab_cycle (gpointer window)
{
  GPtrArray *seen = g_ptr_array_new ();
  GtkWidget *first = NULL;

  gtk_root_set_focus (GTK_ROOT (window), NULL);
  for (int i = 0; i < 400; i++)
    {
      GtkWidget *focus;

      tab (window, GTK_DIR_TAB_FORWARD);
      focus = gtk_root_get_focus (GTK_ROOT (window));
      if (focus == NULL || focus == first || g_ptr_array_find (seen, focus, NULL))
        break;
      if (first == NULL)
        first = focus;
      g_ptr_array_add (seen, focus);
    }
  return seen;
}

static gboolean
reached (GPtrArray *cycle,
         GtkWidget *widget)
{
  for (guint i = 0; i < cycle->len; i++)
    {
      GtkWidget *focus = g_ptr_array_index (cycle, i);

      if (focus == widget || gtk_widget_is_ancestor (focus, widget))
        return TRUE;
    }
  return FALSE;
}

static void
assert_reachable (GPtrArray  *cycle,
                  GtkWidget  *widget,
                  const char *what)
{
  g_assert_true (gtk_widget_get_focusable (widget) || gtk_widget_get_first_child (widget) != NULL);
  if (!reached (cycle, widget))
    g_error ("Tab never reaches %s", what);
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
} Decided;

static gboolean
turn_done (gpointer data)
{
  Decided *d = data;
  g_autoptr(GPtrArray) events = NULL;

  if (natter_sessions_is_turn_running (d->u->sessions, d->turn_id))
    return FALSE;
  events = ui_get_turn (d->u, d->turn_id);
  return ui_find_event (events, "turn_completed", NULL) != NULL;
}

static gboolean
is_insensitive (gpointer widget)
{
  return !gtk_widget_is_sensitive (widget);
}

/* A button's activate (Space, Enter) presses it for a moment before it
 * clicks: the decision is taken once the card's buttons go insensitive. */
static void
wait_insensitive (GtkWidget *widget)
{
  ui_wait_until (is_insensitive, widget);
}

static void
test_keyboard_permission_prompt (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *card, *allow, *deny;
  Decided d;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Tools");
  turn_id = ui_send (u, session_id, "Run it");
  ui_wait_turn (u, turn_id);

  window = window_new (u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  card = wait_card (window, NATTER_TYPE_PERMISSION_CARD);
  allow = ui_find_button (card, "_Allow");
  deny = ui_find_button (card, "_Deny");
  g_assert_true (gtk_widget_get_focusable (allow));
  g_assert_true (gtk_widget_get_focusable (deny));
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (allow)));
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (deny)));

  /* Both buttons are on the Tab path. */
  cycle = tab_cycle (window);
  assert_reachable (cycle, allow, "Allow");
  assert_reachable (cycle, deny, "Deny");

  /* From the composer (which would queue a message, and offers Stop),
   * Tab goes straight to Allow; Shift+Tab from there is Deny. */
  g_assert_true (press (window, "<Control>l"));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_true (natter_composer_get_running (composer));
  g_assert_true (press_key_controllers (window, GDK_KEY_Tab));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == allow);
  tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == deny);
  tab (window, GTK_DIR_TAB_FORWARD);

  /* Space/Enter on Allow (the button's activate) decides; the focus,
   * gone with the card's buttons, is back in the composer at once, not
   * wherever GTK would move it on the next frame. */
  gtk_widget_activate (allow);
  wait_insensitive (allow);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
  d = (Decided) { u, turn_id };
  ui_wait_until (turn_done, &d);
  events = ui_get_turn (u, turn_id);
  g_assert_cmpstr (json_object_get_string_member (ui_find_event (events, "tool_permission_resolved", "c1"), "decision"),
                   ==, "allow");
  wait_focus_in (window, composer);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_keyboard_ask_human_prompt (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  NatterWindow *window;
  GtkWidget *card, *entry, *send;
  Decided d;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("q1", "ask_human",
                                                                     "{\"question\":\"Which colour?\"}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Question");
  turn_id = ui_send (u, session_id, "Ask me");
  ui_wait_turn (u, turn_id);

  window = window_new (u);
  g_assert_true (natter_window_open_session (window, session_id));
  card = wait_card (window, NATTER_TYPE_ASK_HUMAN_CARD);
  entries = ui_find_all (card, GTK_TYPE_ENTRY);
  g_assert_cmpuint (entries->len, ==, 1);
  entry = g_ptr_array_index (entries, 0);
  send = ui_find_button (card, "_Send");
  g_assert_nonnull (send);

  cycle = tab_cycle (window);
  assert_reachable (cycle, entry, "the answer entry");
  /* Send is insensitive until there is an answer; then it is reachable. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "Blue");
  g_ptr_array_unref (g_steal_pointer (&cycle));
  cycle = tab_cycle (window);
  assert_reachable (cycle, send, "Send");
  gtk_editable_set_text (GTK_EDITABLE (entry), "");

  /* Composer → Tab → the entry; type; Enter sends. */
  g_assert_true (press (window, "<Control>l"));
  g_assert_true (press_key_controllers (window, GDK_KEY_Tab));
  g_assert_true (has_focus_in (GTK_WIDGET (window), entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Blue");
  /* Enter in the entry's text sends. */
  g_assert_true (GTK_IS_TEXT (gtk_root_get_focus (GTK_ROOT (window))));
  g_signal_emit_by_name (gtk_root_get_focus (GTK_ROOT (window)), "activate");
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));
  d = (Decided) { u, turn_id };
  ui_wait_until (turn_done, &d);
  wait_focus_in (window, natter_window_get_composer (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The conversation's controls */

static gboolean
has_turn_rows (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  return rows->len > 0;
}

static GtkWidget *
find_button_with_icon_or_label (GtkWidget  *root,
                                const char *label)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      const char *tooltip = gtk_widget_get_tooltip_text (button);

      if (g_strcmp0 (gtk_button_get_label (GTK_BUTTON (button)), label) == 0 ||
          g_strcmp0 (tooltip, label) == 0)
        return button;
    }
  return NULL;
}

static gboolean
has_code_copy (gpointer data)
{
  ui_settle ();
  return find_button_with_icon_or_label (data, "Copy Message") != NULL &&
         find_button_with_icon_or_label (data, "Copy code") != NULL;
}

#define RICH_STEP \
  "{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"reasoning\",\"text\":\"Thinking.\"}," \
  NATTER_FAKE_CALL ("c1", "sa", "{\"path\":\"notes.txt\"}") "]}"

static void
test_keyboard_conversation_controls (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Rich");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) expanders = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) blocks = NULL;
  NatterWindow *window;
  GtkWidget *timeline;
  GtkWidget *copy, *branch, *retry, *code_copy, *read_aloud;

  natter_fake_model_script (u->w->fakes->model, RICH_STEP,
                            "{\"role\":\"assistant\",\"content\":\"Here:\\n\\n```c\\nint x;\\n```\\n\"}", NULL);
  window = window_new (u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Show me");
  ui_wait_turn (u, turn_id);
  ui_wait_until (has_turn_rows, window);
  timeline = natter_window_get_timeline_list (window);
  ui_wait_until (has_code_copy, timeline);

  copy = find_button_with_icon_or_label (timeline, "Copy Message");
  branch = find_button_with_icon_or_label (timeline, "_Branch from Here");
  retry = find_button_with_icon_or_label (timeline, "_Try Again");
  code_copy = find_button_with_icon_or_label (timeline, "Copy code");
  read_aloud = find_button_with_icon_or_label (timeline, "Read Aloud");
  expanders = ui_find_all (timeline, GTK_TYPE_EXPANDER);
  cards = ui_find_all (timeline, NATTER_TYPE_TOOL_CALL_CARD);
  blocks = ui_find_all (timeline, NATTER_TYPE_CODE_BLOCK);
  g_assert_nonnull (copy);
  g_assert_nonnull (branch);
  g_assert_nonnull (retry);
  g_assert_nonnull (code_copy);
  g_assert_nonnull (read_aloud);
  g_assert_cmpuint (cards->len, ==, 1);
  g_assert_cmpuint (blocks->len, ==, 1);
  g_assert_cmpuint (expanders->len, >=, 2);   /* reasoning + the tool card */

  /* Always shown (not on hover only), focusable, and on the Tab path;
   * Read Aloud, which shows while the focus is in its answer, too. */
  cycle = tab_cycle (window);
  assert_reachable (cycle, copy, "Copy Message");
  assert_reachable (cycle, branch, "Branch from Here");
  assert_reachable (cycle, retry, "Try Again");
  assert_reachable (cycle, read_aloud, "Read Aloud");
  assert_reachable (cycle, code_copy, "the code block's Copy");
  for (guint i = 0; i < expanders->len; i++)
    assert_reachable (cycle, g_ptr_array_index (expanders, i), "an expander (reasoning, tool call)");

  /* The tool card opens from the keyboard: its expander's activate is
   * what Enter and Space do. */
  g_assert_false (natter_tool_call_card_get_expanded (g_ptr_array_index (cards, 0)));
  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_is_ancestor (g_ptr_array_index (expanders, i), g_ptr_array_index (cards, 0)))
      gtk_widget_activate (g_ptr_array_index (expanders, i));
  g_assert_true (natter_tool_call_card_get_expanded (g_ptr_array_index (cards, 0)));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Header, windows, narrow layout */

static gboolean
popover_shown (gpointer data)
{
  g_autoptr(GPtrArray) popovers = ui_find_all (data, GTK_TYPE_POPOVER);

  return popovers->len > 0;
}

static gboolean
toplevel_of_type (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, GPOINTER_TO_SIZE (data)) && gtk_widget_get_mapped (GTK_WIDGET (w)))
        return TRUE;
    }
  return FALSE;
}

static void
close_toplevels_of_type (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type))
        gtk_window_destroy (GTK_WINDOW (w));
    }
  ui_settle ();
}

static void
test_keyboard_model_picker_and_windows (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Models");
  NatterWindow *window = window_new (u);
  NatterModelPicker *picker = natter_window_get_model_picker (window);

  /* Ctrl+M opens the model list (arrows and Enter pick: a GtkListBox).
   * The window starts on a new conversation, which has a model too. */
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, NULL, NULL, NULL);
  ui_settle ();
  g_assert_true (press (window, "<Control>m"));
  ui_wait_until (popover_shown, picker);
  natter_model_picker_popdown (picker);
  ui_settle ();

  /* Ctrl+? shows the shortcuts window. */
  g_assert_true (press (window, "<Control>question"));
  ui_wait_until (toplevel_of_type, GSIZE_TO_POINTER (GTK_TYPE_SHORTCUTS_WINDOW));
  close_toplevels_of_type (GTK_TYPE_SHORTCUTS_WINDOW);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
is_folded (gpointer data)
{
  ui_settle ();
  return adw_leaflet_get_folded (ADW_LEAFLET (data));
}

static void
test_keyboard_narrow_back (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Narrow");
  NatterWindow *window = window_new (u);
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET));
  GtkWidget *list = natter_window_get_session_list (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 600);
  ui_wait_until (is_folded, leaflet);

  /* Enter on the row shows the conversation, focus in the composer. */
  gtk_widget_grab_focus (list);
  g_signal_emit_by_name (list, "activate", 0);
  ui_settle ();
  g_assert_true (natter_window_open_session (window, session_id));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  /* Alt+Left goes back to the list, focus on the conversation's row. */
  g_assert_true (press (window, "<Alt>Left"));
  g_assert_true (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));
  /* …and there it is not taken again. */
  g_assert_false (press (window, "<Alt>Left"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* An arrow key in the list, as GTK delivers it: the key controllers
 * (capture phase) first, then the list's own binding, which selects the
 * row, all in one event dispatch. */
static void
arrow_selects (NatterWindow *window,
               GtkWidget    *list,
               guint         position)
{
  GListModel *controllers = gtk_widget_observe_controllers (list);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);
      gboolean handled = FALSE;

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
          gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        g_signal_emit_by_name (controller, "key-pressed", GDK_KEY_Down, 0, 0, &handled);
    }
  g_object_unref (controllers);
  gtk_widget_activate_action (list, "list.select-item", "(ubb)", position, FALSE, FALSE);
  ui_settle ();
}

static void
test_keyboard_narrow_arrows_stay_in_list (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "First");
  g_autofree char *second = ui_create_session (u, "Second");
  NatterWindow *window = window_new (u);
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET));
  GtkWidget *list = natter_window_get_session_list (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 600);
  ui_wait_until (is_folded, leaflet);
  gtk_widget_grab_focus (list);

  /* Walking the list with arrows opens each session behind it but stays
   * in the list, where the user is looking. */
  arrow_selects (window, list, 0);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, second);
  arrow_selects (window, list, 1);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, first);
  g_assert_true (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), list));

  /* Enter goes to the conversation. */
  g_signal_emit_by_name (list, "activate", 1);
  ui_settle ();
  g_assert_false (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));

  /* A click (a selection with no key behind it) goes there at once. */
  g_assert_true (press (window, "<Alt>Left"));
  gtk_widget_activate_action (list, "list.select-item", "(ubb)", 0, FALSE, FALSE);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, second);
  g_assert_false (gtk_widget_is_ancestor (list, adw_leaflet_get_visible_child (leaflet)));

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
  g_test_add_func ("/keyboard/new-chat-search-composer", test_keyboard_new_chat_and_composer);
  g_test_add_func ("/keyboard/open-with-enter", test_keyboard_open_with_enter);
  g_test_add_func ("/keyboard/rename", test_keyboard_rename);
  g_test_add_func ("/keyboard/delete-and-undo", test_keyboard_delete_and_undo);
  g_test_add_func ("/keyboard/undo-at-once-twice", test_keyboard_undo_at_once_twice);
  g_test_add_func ("/keyboard/undo-typing-first", test_keyboard_undo_typing_first);
  g_test_add_func ("/keyboard/send-keeps-focus-escape-stops", test_keyboard_send_keeps_focus_and_escape_stops);
  g_test_add_func ("/keyboard/permission-prompt", test_keyboard_permission_prompt);
  g_test_add_func ("/keyboard/ask-human-prompt", test_keyboard_ask_human_prompt);
  g_test_add_func ("/keyboard/conversation-controls", test_keyboard_conversation_controls);
  g_test_add_func ("/keyboard/model-picker-and-windows", test_keyboard_model_picker_and_windows);
  g_test_add_func ("/keyboard/narrow-back", test_keyboard_narrow_back);
  g_test_add_func ("/keyboard/narrow-arrows-stay-in-list", test_keyboard_narrow_arrows_stay_in_list);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
