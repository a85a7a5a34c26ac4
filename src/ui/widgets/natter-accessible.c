/* natter-accessible.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a screen reader says of a button with a mnemonic. GTK 4.8 gives
 * such a button two names at once: its label as written, underscore
 * included, and the name of the label that shows it. A screen reader
 * then says "_New Chat New Chat". The label that shows it names the
 * button well on its own; the written one goes. A toast's button is
 * such a button too, made by libadwaita whenever a toast shows.
 */

#include "config.h"

#include "natter-accessible.h"
#include "natter-child-watch.h"

static void
forget_written_label (GtkButton *button)
{
  if (gtk_button_get_use_underline (button))
    gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

static gboolean
is_watched (GtkWidget *button)
{
  return g_signal_handler_find (button, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, forget_written_label, NULL) != 0;
}

/* With @unwatched_only, a button seen before keeps what it has: a name
 * given to it since (the permissions list's "Revoke the rule for …")
 * stays. */
static void
plain_mnemonics_under (GtkWidget *root,
                       gboolean   unwatched_only)
{
  if (GTK_IS_BUTTON (root) && !GTK_IS_MENU_BUTTON (root) && !(unwatched_only && is_watched (root)))
    {
      forget_written_label (GTK_BUTTON (root));
      if (!is_watched (root))
        {
          g_signal_connect (root, "notify::label", G_CALLBACK (forget_written_label), NULL);
          g_signal_connect (root, "notify::use-underline", G_CALLBACK (forget_written_label), NULL);
        }
    }
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    plain_mnemonics_under (child, unwatched_only);
}

/**
 * natter_accessible_plain_mnemonics:
 * @root: a widget
 *
 * Names every button with a mnemonic in @root and under it by the label
 * it shows, without the underscore, now and whenever its label changes.
 * Call it once the widgets exist (after gtk_widget_init_template(), or
 * after a button is made); buttons added later are not seen.
 */
void
natter_accessible_plain_mnemonics (GtkWidget *root)
{
  g_return_if_fail (GTK_IS_WIDGET (root));

  plain_mnemonics_under (root, FALSE);
}

static void
child_added_cb (GtkWidget *parent,
                GtkWidget *child,
                gpointer   user_data)
{
  natter_accessible_plain_mnemonics (child);
}

/**
 * natter_accessible_plain_mnemonics_follow:
 * @parent: a widget whose children come and go (a toast overlay: each
 *   toast is a new child, its button made by libadwaita)
 *
 * Does what natter_accessible_plain_mnemonics() does for every child
 * added to @parent from now on, and under it, as it is added. Call it
 * once.
 */
void
natter_accessible_plain_mnemonics_follow (GtkWidget *parent)
{
  g_return_if_fail (GTK_IS_WIDGET (parent));

  natter_child_watch_add (parent, child_added_cb, NULL);
}

static void
window_mapped_cb (GtkWidget *window)
{
  plain_mnemonics_under (window, TRUE);
}

static void
toplevels_changed_cb (GListModel *toplevels,
                      guint       position,
                      guint       removed,
                      guint       added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (g_signal_handler_find (window, G_SIGNAL_MATCH_FUNC, 0, 0, NULL, window_mapped_cb, NULL) != 0)
        continue;
      g_signal_connect (window, "map", G_CALLBACK (window_mapped_cb), NULL);
      if (gtk_widget_get_mapped (window))
        window_mapped_cb (window);
    }
}

/**
 * natter_accessible_plain_mnemonics_in_windows:
 *
 * Does what natter_accessible_plain_mnemonics() does for every window of
 * the process as it shows, the ones there now included: the buttons of a
 * dialog (libadwaita makes a message dialog's response buttons with
 * mnemonics: "_Cancel Cancel"), of the shortcuts window, of Preferences.
 * Each time a window maps again, buttons added since are seen too; a
 * button seen before keeps the name it was given since. Calling it more
 * than once does nothing more.
 */
void
natter_accessible_plain_mnemonics_in_windows (void)
{
  static gboolean watching;
  GListModel *toplevels;

  if (watching)
    return;
  watching = TRUE;
  toplevels = gtk_window_get_toplevels ();
  g_signal_connect (toplevels, "items-changed", G_CALLBACK (toplevels_changed_cb), NULL);
  toplevels_changed_cb (toplevels, 0, 0, g_list_model_get_n_items (toplevels));
}

/**
 * natter_accessible_decoration_new:
 * @icon_name: a named icon
 *
 * An icon that only decorates what says the same in words beside it (the
 * arrow of a menu button, the icon that stands for a name too long to
 * show): a screen reader passes over it.
 *
 * Returns: (transfer floating): a new `GtkImage`
 */
GtkWidget *
natter_accessible_decoration_new (const char *icon_name)
{
  return g_object_new (GTK_TYPE_IMAGE,
                       "icon-name", icon_name,
                       "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                       NULL);
}

/**
 * natter_accessible_name_stack_pages:
 * @stack: a stack whose pages have titles
 *
 * GTK 4.8 shows a screen reader every page of a stack as a panel, named
 * by nothing but its type unless it has a name: each page of @stack is
 * named by its title.
 */
void
natter_accessible_name_stack_pages (GtkStack *stack)
{
  g_autoptr(GtkSelectionModel) pages = NULL;

  g_return_if_fail (GTK_IS_STACK (stack));

  pages = gtk_stack_get_pages (stack);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      const char *title = gtk_stack_page_get_title (GTK_STACK_PAGE (page));

      if (title != NULL)
        gtk_accessible_update_property (GTK_ACCESSIBLE (page), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
    }
}

/**
 * natter_accessible_name_list_item:
 * @child: a widget shown in a list view's item (its child, or under it)
 * @name: what a screen reader says of the item
 * @description: (nullable): what it says after, or %NULL for nothing
 *
 * Names the list item that holds @child. GTK 4.8 gives a list item no
 * name of its own (gtk_list_item_set_accessible_label() is 4.12's), so a
 * screen reader moving through a list said nothing but "list item". The
 * item is the nearest ancestor of @child with that role; an item reused
 * for another row is named anew by the row it then shows. Does nothing
 * when @child is in no list item (yet).
 */
void
natter_accessible_name_list_item (GtkWidget  *child,
                                  const char *name,
                                  const char *description)
{
  GtkWidget *item;

  g_return_if_fail (GTK_IS_WIDGET (child));
  g_return_if_fail (name != NULL);

  for (item = gtk_widget_get_parent (child); item != NULL; item = gtk_widget_get_parent (item))
    {
      if (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (item)) == GTK_ACCESSIBLE_ROLE_LIST_ITEM)
        break;
      if (GTK_IS_LIST_VIEW (item))
        return;
    }
  if (item == NULL)
    return;
  gtk_accessible_update_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  if (description != NULL && description[0] != '\0')
    gtk_accessible_update_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, description, -1);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

/* The button a drop-down shows: its only toggle button. */
static GtkWidget *
drop_down_button (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = GTK_IS_TOGGLE_BUTTON (child) ? child : drop_down_button (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
describe_drop_down (GtkDropDown *drop_down)
{
  GtkWidget *button = drop_down_button (GTK_WIDGET (drop_down));
  gpointer item = gtk_drop_down_get_selected_item (drop_down);

  if (button == NULL)
    return;
  if (GTK_IS_STRING_OBJECT (item))
    gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                    gtk_string_object_get_string (item), -1);
  else
    gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
}

static void
selected_item_cb (GtkDropDown *drop_down,
                  GParamSpec  *pspec,
                  gpointer     user_data)
{
  describe_drop_down (drop_down);
}

/**
 * natter_accessible_name_drop_down:
 * @drop_down: a drop-down listing strings (a `GtkStringList`)
 * @name: what it chooses, as a screen reader should say it
 *
 * Names @drop_down and the button inside it, which is what takes the
 * keyboard focus: GTK 4.8 passes neither the drop-down's name nor what
 * it shows on to that button, and a screen reader said nothing of it
 * but its type. The button is described by the item chosen, and follows
 * each new choice and model.
 */
void
natter_accessible_name_drop_down (GtkDropDown *drop_down,
                                  const char  *name)
{
  GtkWidget *button;

  g_return_if_fail (GTK_IS_DROP_DOWN (drop_down));
  g_return_if_fail (name != NULL);

  gtk_accessible_update_property (GTK_ACCESSIBLE (drop_down), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  button = drop_down_button (GTK_WIDGET (drop_down));
  if (button != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
  describe_drop_down (drop_down);
  g_signal_connect (drop_down, "notify::selected-item", G_CALLBACK (selected_item_cb), NULL);
}
