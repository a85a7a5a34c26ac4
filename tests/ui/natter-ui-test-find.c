/* natter-ui-test-find.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Finding what is on screen: mapped widgets of a type, a label's text, a
 * button by its label, a toplevel of a type, a menu's action.
 */

#include "natter-ui-test-world.h"

static void
ui_collect (GtkWidget *root,
            GType      type,
            GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && gtk_widget_get_mapped (root))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    ui_collect (child, type, found);
}

/* The mapped widgets of @type under @root, in tree order. */
GPtrArray *
ui_find_all (gpointer root,
             GType    type)
{
  GPtrArray *found = g_ptr_array_new ();

  ui_collect (GTK_WIDGET (root), type, found);
  return found;
}

/* The first mapped widget of @type under @root (itself included), in
 * tree order, for which @match (if any) holds; NULL if there is none. */
GtkWidget *
ui_find_first_full (gpointer      root,
                    GType         type,
                    UiWidgetMatch match)
{
  GtkWidget *widget = GTK_WIDGET (root);

  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && gtk_widget_get_mapped (widget) &&
      (match == NULL || match (widget)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = ui_find_first_full (child, type, match);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first mapped widget of @type under @root, in tree order, or NULL. */
GtkWidget *
ui_find_first (gpointer root,
               GType    type)
{
  return ui_find_first_full (root, type, NULL);
}

/* Whether a mapped label under @root says exactly @text. */
gboolean
ui_label_shown (gpointer    root,
                const char *text)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), text) == 0)
      return TRUE;
  return FALSE;
}

typedef struct
{
  gpointer    root;
  const char *text;
} LabelWait;

static gboolean
label_wait_shown (gpointer data)
{
  LabelWait *w = data;

  ui_settle ();
  return ui_label_shown (w->root, w->text);
}

static char *
describe_labels (gpointer data)
{
  LabelWait *w = data;
  g_autoptr(GPtrArray) labels = ui_find_all (w->root, GTK_TYPE_LABEL);
  GString *seen = g_string_new (NULL);

  g_string_append_printf (seen, "no label says “%s”; the labels:", w->text);
  for (guint i = 0; i < labels->len; i++)
    g_string_append_printf (seen, " “%s”", gtk_label_get_text (g_ptr_array_index (labels, i)));
  return g_string_free (seen, FALSE);
}

/* Waits until a mapped label under @root says exactly @text; a timeout
 * names the labels that were there. */
void
ui_wait_label (gpointer    root,
               const char *text)
{
  LabelWait w = { root, text };

  ui_wait_until_full (label_wait_shown, describe_labels, &w);
}

/* The first mapped button under @root labelled @label, or NULL. */
GtkWidget *
ui_find_button (gpointer    root,
                const char *label)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), label) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

/* Asserts that a screen reader names @button @name, as its label shows
 * it: GTK 4.8 says a button's "label" property and then the names of
 * the widgets it is labelled by, so the button must be labelled by the
 * label that shows @name and have no "label" of its own besides (a
 * mnemonic's would read "_Undo Undo"). */
void
ui_assert_named_as_shown (GtkWidget  *button,
                          const char *name)
{
  GtkWidget *label = gtk_button_get_child (GTK_BUTTON (button));

  g_assert_true (GTK_IS_LABEL (label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, name);
  gtk_test_accessible_assert_relation (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_RELATION_LABELLED_BY, label, NULL);
  g_assert_false (gtk_test_accessible_has_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL));
}

/* The list item that shows @widget (itself or an ancestor): what a
 * screen reader moving through a list stops on. */
GtkWidget *
ui_list_item_of (GtkWidget *widget)
{
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (w)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
      return w;
  g_error ("%s is in no list item", G_OBJECT_TYPE_NAME (widget));
}

/* The first mapped toplevel window of @type (a dialog the window
 * opened), or NULL. */
GtkWindow *
ui_find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_widget_get_mapped (GTK_WIDGET (w)))
        return GTK_WINDOW (w);
    }
  return NULL;
}

/* Whether a window of the GType in @type (GSIZE_TO_POINTER()) shows. */
gboolean
ui_toplevel_shown (gpointer type)
{
  return ui_find_toplevel (GPOINTER_TO_SIZE (type)) != NULL;
}

/* Whether no window of the GType in @type (GSIZE_TO_POINTER()) shows. */
gboolean
ui_toplevel_gone (gpointer type)
{
  return ui_find_toplevel (GPOINTER_TO_SIZE (type)) == NULL;
}

/* Whether the menu @model, or one of its sections and submenus, has an
 * item that activates @action. */
gboolean
ui_menu_has_action (GMenuModel *model,
                    const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (model, i, G_MENU_LINK_SUBMENU);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return TRUE;
      if ((section != NULL && ui_menu_has_action (section, action)) ||
          (submenu != NULL && ui_menu_has_action (submenu, action)))
        return TRUE;
    }
  return FALSE;
}

/* Whether @model, its sections and submenus included, has an item for
 * @action whose target is @target: what the item names. */
gboolean
ui_menu_item_has_target (GMenuModel *model,
                         const char *action,
                         GVariant   *target)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (model, i, G_MENU_LINK_SUBMENU);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        {
          g_autoptr(GVariant) value = g_menu_model_get_item_attribute_value (model, i, G_MENU_ATTRIBUTE_TARGET, NULL);

          if (value != NULL && g_variant_equal (value, target))
            return TRUE;
        }
      if ((section != NULL && ui_menu_item_has_target (section, action, target)) ||
          (submenu != NULL && ui_menu_item_has_target (submenu, action, target)))
        return TRUE;
    }
  return FALSE;
}

/* The shortcut a key press of @keyval (no modifiers) on @widget triggers,
 * looked up the way GTK does: in the widget's shortcut controllers, which
 * include the one holding the class's key bindings; NULL when none. */
GtkShortcut *
ui_find_shortcut (GtkWidget *widget,
                  guint      keyval)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger) &&
              gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) == keyval &&
              gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == 0)
            return g_steal_pointer (&shortcut);
        }
    }
  return NULL;
}

/* Presses Enter in @entry's text, as a key press does: its ::activate
 * activates the dialog's default response. */
void
ui_press_enter (GtkWidget *entry)
{
  g_autoptr(GPtrArray) text = ui_find_all (entry, GTK_TYPE_TEXT);
  g_autoptr(GtkShortcut) enter = NULL;

  g_assert_cmpuint (text->len, ==, 1);
  enter = ui_find_shortcut (g_ptr_array_index (text, 0), GDK_KEY_Return);
  g_assert_nonnull (enter);
  g_assert_true (gtk_shortcut_action_activate (gtk_shortcut_get_action (enter), 0, g_ptr_array_index (text, 0),
                                               gtk_shortcut_get_arguments (enter)));
}

/* A left click on @widget's own click gesture, as GTK delivers one: the
 * button down, then up (GTK 4.8 cannot synthesize the pointer event);
 * the right button's gesture, a menu's, is left alone. */
void
ui_click (GtkWidget *widget)
{
  GListModel *controllers = gtk_widget_observe_controllers (widget);
  gboolean clicked = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_GESTURE_CLICK (controller) ||
          gtk_gesture_single_get_button (GTK_GESTURE_SINGLE (controller)) != GDK_BUTTON_PRIMARY)
        continue;
      g_signal_emit_by_name (controller, "pressed", 1, 10.0, 10.0);
      g_signal_emit_by_name (controller, "released", 1, 10.0, 10.0);
      clicked = TRUE;
    }
  g_object_unref (controllers);
  g_assert_true (clicked);
  ui_settle ();
}

/* No button of @dialog is being pressed from the keyboard: GTK shows a
 * button activated by Enter pressed for a moment before it is clicked
 * (and the dialog closes). */
gboolean
ui_no_button_activating (gpointer dialog)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (dialog, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (gtk_widget_has_css_class (g_ptr_array_index (buttons, i), "keyboard-activating"))
      return FALSE;
  return TRUE;
}

/**
 * ui_move_focus:
 * @window: a window
 * @direction: %GTK_DIR_TAB_FORWARD for Tab, %GTK_DIR_TAB_BACKWARD for
 *   Shift+Tab
 *
 * Moves the focus as Tab does once no key controller on the way took the
 * key: GTK binds Tab to the window's move-focus signal, whose handler
 * asks the window's children (which wrap around past the last) and
 * leaves nothing focused when none took it. Emitting the signal runs
 * that same handler; nothing is retried here that GTK would not retry,
 * so a widget that claims the focus without taking it shows up as the
 * focus staying put.
 */
void
ui_move_focus (gpointer         window,
               GtkDirectionType direction)
{
  g_signal_emit_by_name (window, "move-focus", direction);
  ui_settle ();
}

static void
tab_plain (gpointer window)
{
  ui_move_focus (window, GTK_DIR_TAB_FORWARD);
}

static char *
describe_focus (GtkWidget *focus)
{
  GString *s = g_string_new (focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing");

  /* A menu button's tooltip is on the button, its focus on the toggle
   * inside: the nearest tooltip says which it is. */
  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_tooltip_text (w) != NULL)
      {
        g_string_append_printf (s, " \"%s\"", gtk_widget_get_tooltip_text (w));
        break;
      }
  for (GtkWidget *w = focus != NULL ? gtk_widget_get_parent (focus) : NULL;
       w != NULL && !GTK_IS_ROOT (w);
       w = gtk_widget_get_parent (w))
    g_string_append_printf (s, " in %s", G_OBJECT_TYPE_NAME (w));
  return g_string_free (s, FALSE);
}

/* Presses @tab until the focus is back on @start or, when @start is
 * %NULL, on the first widget it reached; see ui_tab_cycle(). */
static GPtrArray *
tab_around (gpointer   window,
            UiTab      tab,
            GtkWidget *start)
{
  GPtrArray *seen = g_ptr_array_new ();

  if (tab == NULL)
    tab = tab_plain;
  if (start != NULL)
    g_ptr_array_add (seen, start);
  for (int i = 0; i < 400; i++)
    {
      GtkWidget *focus;
      guint index;

      tab (window);
      focus = gtk_root_get_focus (GTK_ROOT (window));
      if (focus != NULL && seen->len > 0 && focus == g_ptr_array_index (seen, 0))
        return seen;
      if (focus == NULL || g_ptr_array_find (seen, focus, &index))
        {
          g_autofree char *was = seen->len > 0 ? describe_focus (g_ptr_array_index (seen, seen->len - 1)) : NULL;
          g_autofree char *now = describe_focus (focus);

          if (focus == NULL)
            g_error ("Tab from %s left nothing focused", was != NULL ? was : "nothing");
          else if (index == seen->len - 1)
            g_error ("Tab stays on %s", now);
          else
            g_error ("Tab from %s goes back to stop %u of %u, %s, never to where it started",
                     was, index, seen->len, now);
        }
      g_ptr_array_add (seen, focus);
    }
  g_error ("Tab went through 400 widgets without coming back to where it started");
}

/**
 * ui_tab_cycle:
 * @window: a window
 * @tab: (nullable): presses Tab in @window; %NULL moves the focus as GTK
 *   does when no key controller takes the key (ui_move_focus())
 *
 * Presses Tab from nothing focused until the focus is back on the first
 * widget it reached. Fails when a press leaves the focus where it was or
 * nowhere, or when the presses go round a part of the window without
 * coming back to the first: a person pressing Tab would be stuck there.
 *
 * Returns: (transfer container): every widget Tab reaches from nothing
 *   focused, in order, once around
 */
GPtrArray *
ui_tab_cycle (gpointer window,
              UiTab    tab)
{
  gtk_root_set_focus (GTK_ROOT (window), NULL);
  return tab_around (window, tab, NULL);
}

/**
 * ui_tab_cycle_from_focus:
 * @window: a window
 * @tab: (nullable): presses Tab (or Shift+Tab) in @window, as for
 *   ui_tab_cycle()
 *
 * Presses @tab from the widget that has the focus until the focus is
 * back on it, failing as ui_tab_cycle() does.
 *
 * Returns: (transfer container): the focused widget, then every widget
 *   reached on the way round, in order
 */
GPtrArray *
ui_tab_cycle_from_focus (gpointer window,
                         UiTab    tab)
{
  GtkWidget *start = gtk_root_get_focus (GTK_ROOT (window));

  g_assert_nonnull (start);
  return tab_around (window, tab, start);
}

/* A screen reader says what has the focus by its accessible name: the
 * label property, or the widgets it is labelled by (a button's own label
 * is one). GTK 4.8 gives no name from anything else (a placeholder is
 * not one), so a focused widget with neither is read as its role alone
 * ("group", "scroll pane"). The text of an entry is no accessible object
 * of its own (role none): the entry it types into is what is said. */
static gboolean
has_accessible_name (GtkWidget *widget)
{
  if (GTK_IS_TEXT (widget))
    for (GtkWidget *a = gtk_widget_get_parent (widget); a != NULL; a = gtk_widget_get_parent (a))
      if (GTK_IS_EDITABLE (a) && gtk_editable_get_delegate (GTK_EDITABLE (a)) == GTK_EDITABLE (widget))
        {
          widget = a;
          break;
        }
  return gtk_test_accessible_has_property (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_PROPERTY_LABEL) ||
         gtk_test_accessible_has_relation (GTK_ACCESSIBLE (widget), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

/**
 * ui_assert_tab_stops_named:
 * @cycle: what ui_tab_cycle() reached
 * @where: which state of the window it was, for the message
 *
 * Fails, naming each, when a widget of @cycle has no accessible name.
 */
void
ui_assert_tab_stops_named (GPtrArray  *cycle,
                           const char *where)
{
  g_autoptr(GString) unnamed = g_string_new (NULL);

  g_assert_cmpuint (cycle->len, >, 0);
  for (guint i = 0; i < cycle->len; i++)
    {
      GtkWidget *focus = g_ptr_array_index (cycle, i);

      if (has_accessible_name (focus))
        continue;
      g_string_append_printf (unnamed, "\n  stop %u: %s", i, G_OBJECT_TYPE_NAME (focus));
      for (GtkWidget *w = gtk_widget_get_parent (focus); w != NULL && !GTK_IS_ROOT (w); w = gtk_widget_get_parent (w))
        g_string_append_printf (unnamed, " in %s", G_OBJECT_TYPE_NAME (w));
    }
  if (unnamed->len > 0)
    g_error ("%s: Tab stops without an accessible name:%s", where, unnamed->str);
}
