/* natter-combo-row-labels.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Labels for an AdwComboRow of names that may be long (models, whose
 * ids run to forty characters and more). libadwaita 1.2's own labels
 * stop at twenty characters wherever they are, so "The Provider’s First
 * Model" was cut even in a wide window. These show a name whole where
 * the row has room for it. Where it has not, the name is cut in its
 * middle, which keeps both ends of a model's id (its family and its
 * size), with the whole name as the tooltip: the row's list of one item
 * is one line high, so wrapping would hide the lines after the first.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include "natter-combo-row-labels.h"

/* How wide the list of choices grows before a name is cut. */
#define LIST_CHARS 48

static const char *
item_name (gpointer item)
{
  return GTK_IS_STRING_OBJECT (item) ? gtk_string_object_get_string (item) : "";
}

static GtkWidget *
name_label_new (void)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  return label;
}

/* The chosen name, in the row: as wide as it is, or as the row has
 * room for (no maximum width, unlike libadwaita's). */

static void
row_setup_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item,
              gpointer                  user_data)
{
  gtk_list_item_set_child (list_item, name_label_new ());
}

static void
row_bind_cb (GtkSignalListItemFactory *factory,
             GtkListItem              *list_item,
             gpointer                  user_data)
{
  GtkWidget *label = gtk_list_item_get_child (list_item);
  const char *name = item_name (gtk_list_item_get_item (list_item));

  gtk_label_set_text (GTK_LABEL (label), name);
  /* Where the row has no room for all of it. */
  gtk_widget_set_tooltip_text (label, name);
}

/* The choices, in the popover: each name with a check mark on the
 * chosen one, as libadwaita's own list has. */

static void
list_setup_cb (GtkSignalListItemFactory *factory,
               GtkListItem              *list_item,
               gpointer                  user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *label = name_label_new ();
  GtkWidget *check = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_max_width_chars (GTK_LABEL (label), LIST_CHARS);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), check);
  gtk_list_item_set_child (list_item, box);
}

static void
selected_item_cb (AdwComboRow *row,
                  GParamSpec  *pspec,
                  GtkListItem *list_item)
{
  GtkWidget *check = gtk_widget_get_last_child (gtk_list_item_get_child (list_item));
  gboolean chosen = adw_combo_row_get_selected_item (row) == gtk_list_item_get_item (list_item);

  gtk_widget_set_opacity (check, chosen ? 1.0 : 0.0);
}

static void
list_bind_cb (GtkSignalListItemFactory *factory,
              GtkListItem              *list_item,
              AdwComboRow              *row)
{
  GtkWidget *box = gtk_list_item_get_child (list_item);

  gtk_label_set_text (GTK_LABEL (gtk_widget_get_first_child (box)),
                      item_name (gtk_list_item_get_item (list_item)));
  g_signal_connect (row, "notify::selected-item", G_CALLBACK (selected_item_cb), list_item);
  selected_item_cb (row, NULL, list_item);
}

static void
list_unbind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *list_item,
                AdwComboRow              *row)
{
  g_signal_handlers_disconnect_by_func (row, selected_item_cb, list_item);
}

/**
 * natter_combo_row_show_whole_names:
 * @row: a combo row whose model is a #GtkStringList
 *
 * Gives @row labels that show a chosen name whole where the row has
 * room for it, cut in the middle where it has not (the whole name is
 * the tooltip), and a list of choices as wide as forty-eight
 * characters. The row's title stays on one line.
 */
void
natter_combo_row_show_whole_names (AdwComboRow *row)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  g_autoptr(GtkListItemFactory) list_factory = gtk_signal_list_item_factory_new ();

  g_return_if_fail (ADW_IS_COMBO_ROW (row));

  g_signal_connect (factory, "setup", G_CALLBACK (row_setup_cb), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (row_bind_cb), NULL);
  /* The row outlives its factories' items: a list item is unbound
   * before its row goes. */
  g_signal_connect (list_factory, "setup", G_CALLBACK (list_setup_cb), NULL);
  g_signal_connect (list_factory, "bind", G_CALLBACK (list_bind_cb), row);
  g_signal_connect (list_factory, "unbind", G_CALLBACK (list_unbind_cb), row);
  /* A title that may wrap is only as wide as its lines in the row's
   * height: "Model" would give a long name all but a syllable of its
   * room. On one line it keeps its width, ellipsized only where even
   * that is not there. */
  adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 1);
  adw_combo_row_set_factory (row, factory);
  adw_combo_row_set_list_factory (row, list_factory);
}
