/* natter-sidebar-header-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A header of the sidebar's list (natter-sidebar-sections.c): "Pinned",
 * "Recent", or a folder — a button that shows or hides its
 * conversations, and a menu to rename or delete it. Every header takes a
 * conversation's row dropped on it: Pinned pins it, a folder takes it
 * in, Recent takes it out of its folder. What that does is the
 * sidebar's to decide (::dropped); the row only says which.
 */

#define G_LOG_DOMAIN "natter-sidebar"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-folder.h"
#include "natter-plain-text.h"
#include "natter-sidebar-header-row.h"

struct _NatterSidebarHeaderRow
{
  GtkWidget            parent_instance;

  NatterSidebarHeader *header;
  gulong               expanded_id;

  GtkDropTarget       *drop;
  gboolean             syncing;

  /* Template widgets */
  GtkWidget           *title;      /* Pinned, Recent */
  GtkWidget           *expander;   /* a folder's toggle */
  GtkWidget           *arrow;
  GtkWidget           *name;
  GtkWidget           *menu_button;
};

G_DEFINE_FINAL_TYPE (NatterSidebarHeaderRow, natter_sidebar_header_row, GTK_TYPE_WIDGET)

enum
{
  DROPPED,
  EXPAND,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
sync_expanded (NatterSidebarHeaderRow *self)
{
  gboolean expanded = self->header != NULL && natter_sidebar_header_get_expanded (self->header);

  self->syncing = TRUE;
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->expander), expanded);
  self->syncing = FALSE;
  gtk_image_set_from_icon_name (GTK_IMAGE (self->arrow), expanded ? "pan-down-symbolic" : "pan-end-symbolic");
  gtk_accessible_update_state (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_STATE_EXPANDED, expanded, -1);
}

static void
expander_toggled_cb (NatterSidebarHeaderRow *self)
{
  if (self->syncing || self->header == NULL)
    return;
  g_signal_emit (self, signals[EXPAND], 0, gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (self->expander)));
  /* The sections say whether it took. */
  sync_expanded (self);
}

static gboolean
drop_cb (GtkDropTarget          *target,
         const GValue           *value,
         double                  x,
         double                  y,
         NatterSidebarHeaderRow *self)
{
  const char *session_id;

  if (self->header == NULL || !G_VALUE_HOLDS_STRING (value))
    return FALSE;
  session_id = g_value_get_string (value);
  if (session_id == NULL)
    return FALSE;
  g_signal_emit (self, signals[DROPPED], 0, session_id);
  return TRUE;
}

static void
natter_sidebar_header_row_dispose (GObject *object)
{
  NatterSidebarHeaderRow *self = NATTER_SIDEBAR_HEADER_ROW (object);

  natter_sidebar_header_row_set_header (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_SIDEBAR_HEADER_ROW);

  G_OBJECT_CLASS (natter_sidebar_header_row_parent_class)->dispose (object);
}

static void
natter_sidebar_header_row_class_init (NatterSidebarHeaderRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_sidebar_header_row_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sidebarheader");

  /**
   * NatterSidebarHeaderRow::dropped:
   * @self: the row
   * @session_id: the conversation whose row was dropped on it
   */
  signals[DROPPED] = g_signal_new ("dropped", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterSidebarHeaderRow::expand:
   * @self: the row
   * @expanded: whether the person wants the folder's conversations shown
   */
  signals[EXPAND] = g_signal_new ("expand", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-sidebar-header-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterSidebarHeaderRow, title);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebarHeaderRow, expander);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebarHeaderRow, arrow);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebarHeaderRow, name);
  gtk_widget_class_bind_template_child (widget_class, NatterSidebarHeaderRow, menu_button);
  gtk_widget_class_bind_template_callback (widget_class, expander_toggled_cb);
}

static void
natter_sidebar_header_row_init (NatterSidebarHeaderRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->drop = gtk_drop_target_new (G_TYPE_STRING, GDK_ACTION_MOVE);
  g_signal_connect (self->drop, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (self->drop));
}

/**
 * natter_sidebar_header_row_new:
 *
 * Returns: (transfer floating): a header row showing nothing until
 *   natter_sidebar_header_row_set_header()
 */
GtkWidget *
natter_sidebar_header_row_new (void)
{
  return g_object_new (NATTER_TYPE_SIDEBAR_HEADER_ROW, NULL);
}

/* A folder's menu: its actions take the folder's id. */
static GMenuModel *
folder_menu_new (const char *folder_id)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename Folder…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete Folder"), NULL);

  g_menu_item_set_action_and_target_value (rename, "win.rename-folder", g_variant_new_string (folder_id));
  g_menu_item_set_action_and_target_value (delete, "win.delete-folder", g_variant_new_string (folder_id));
  g_menu_append_item (menu, rename);
  g_menu_append_item (menu, delete);
  return G_MENU_MODEL (menu);
}

/**
 * natter_sidebar_header_row_set_header:
 * @self: the row
 * @header: (nullable): what it shows
 */
void
natter_sidebar_header_row_set_header (NatterSidebarHeaderRow *self,
                                      NatterSidebarHeader    *header)
{
  NatterFolder *folder;
  gboolean is_folder;

  g_return_if_fail (NATTER_IS_SIDEBAR_HEADER_ROW (self));

  if (self->header != NULL)
    g_clear_signal_handler (&self->expanded_id, self->header);
  g_set_object (&self->header, header);
  if (header == NULL)
    return;

  folder = natter_sidebar_header_get_folder (header);
  is_folder = folder != NULL;
  gtk_widget_set_visible (self->title, !is_folder);
  gtk_widget_set_visible (self->expander, is_folder);
  gtk_widget_set_visible (self->menu_button, is_folder);
  if (!is_folder)
    {
      gtk_label_set_text (GTK_LABEL (self->title),
                          natter_sidebar_header_get_kind (header) == NATTER_SIDEBAR_HEADER_PINNED ? _("Pinned")
                                                                                                  : _("Recent"));
      natter_accessible_name_list_item (GTK_WIDGET (self), gtk_label_get_text (GTK_LABEL (self->title)), NULL);
      return;
    }
  {
    g_autoptr(GMenuModel) menu = folder_menu_new (natter_folder_get_id (folder));
    g_autofree char *menu_label = NULL;
    g_autofree char *name = NULL;

    /* A folder whose log cannot be read is listed all the same, with
     * what is wrong, so that its conversations do not vanish. A name an
     * older version let through with a control character shows it as a
     * stand-in, as a title does: one line, nothing hidden. */
    if (natter_folder_get_name (folder) != NULL)
      name = natter_visible_text (natter_folder_get_name (folder), NATTER_VISIBLE_KEEP_NONE);
    else
      name = g_strdup (_("Damaged folder"));
    gtk_label_set_text (GTK_LABEL (self->name), name);
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
    /* The list item, which the arrow keys stop on, too. */
    natter_accessible_name_list_item (GTK_WIDGET (self), name, _("Folder"));
    gtk_widget_set_tooltip_text (self->expander, natter_folder_get_error (folder));
    /* Translators: %s is a folder's name */
    menu_label = g_strdup_printf (_("Menu of Folder “%s”"), name);
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL, menu_label, -1);
    gtk_menu_button_set_menu_model (GTK_MENU_BUTTON (self->menu_button), menu);
  }
  self->expanded_id = g_signal_connect_swapped (header, "notify::expanded", G_CALLBACK (sync_expanded), self);
  sync_expanded (self);
}

/**
 * natter_sidebar_header_row_get_header:
 * @self: the row
 *
 * Returns: (transfer none) (nullable): what it shows
 */
NatterSidebarHeader *
natter_sidebar_header_row_get_header (NatterSidebarHeaderRow *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER_ROW (self), NULL);
  return self->header;
}

/**
 * natter_sidebar_header_row_get_drop_target:
 * @self: the row
 *
 * Returns: (transfer none): what takes a conversation's row dropped on it
 */
GtkDropTarget *
natter_sidebar_header_row_get_drop_target (NatterSidebarHeaderRow *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER_ROW (self), NULL);
  return self->drop;
}

/**
 * natter_sidebar_header_row_get_expander:
 * @self: the row
 *
 * Returns: (transfer none): a folder's button that shows or hides its
 *   conversations
 */
GtkWidget *
natter_sidebar_header_row_get_expander (NatterSidebarHeaderRow *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER_ROW (self), NULL);
  return self->expander;
}

/**
 * natter_sidebar_header_row_get_menu_button:
 * @self: the row
 *
 * Returns: (transfer none): a folder's menu button
 */
GtkWidget *
natter_sidebar_header_row_get_menu_button (NatterSidebarHeaderRow *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER_ROW (self), NULL);
  return self->menu_button;
}
