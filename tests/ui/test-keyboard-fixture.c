/* test-keyboard-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-keyboard share: the application, a window
 * that opens no session by itself, and keys pressed the way GTK
 * dispatches them (see test-keyboard.c).
 */

#include "test-keyboard.h"

NatterApplication *app;

/* A window that opens no session by itself: the fake ids repeat from
 * test to test, so the last test's "last-session" would be restored. */
NatterWindow *
window_new (UiWorld *u)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");

  g_settings_reset (settings, "last-session");
  return ui_window_new (app, u);
}

/* Keys */

gboolean
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
gboolean
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

gboolean
press_key_controllers (gpointer window,
                       guint    keyval)
{
  return press_key_controllers_with (window, keyval, 0);
}

/* What Tab does: the key controllers on the way first, then the
 * window's own focus move (its Tab binding), as GTK makes it. */
void
tab (gpointer         window,
     GtkDirectionType direction)
{
  if (direction == GTK_DIR_TAB_FORWARD ? press_key_controllers_with (window, GDK_KEY_Tab, 0)
                                       : press_key_controllers_with (window, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK))
    return;
  ui_move_focus (window, direction);
}

gboolean
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

void
wait_focus_in (gpointer window,
               gpointer widget)
{
  FocusWait f = { window, widget };

  ui_wait_until (focus_is_in, &f);
}

/* The message dialog @window shows (rename, a question), or %NULL
 * (transfer none: the toplevels keep it). */
GtkWindow *
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

gboolean
strv_has (char       **strv,
          const char  *accel)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, accel);
}

static void
tab_forward (gpointer window)
{
  tab (window, GTK_DIR_TAB_FORWARD);
}

/* Every focusable widget reached by Tab from the window, in order, once
 * around, Tab pressed as GTK dispatches it. */
GPtrArray *
tab_cycle (gpointer window)
{
  return ui_tab_cycle (window, tab_forward);
}
