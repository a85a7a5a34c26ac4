/* natter-mcp-pairs.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The name/value rows of the Tool Servers page: a stdio server's
 * environment variables, an HTTP server's headers. A header row has a
 * Secret switch, on by itself for names that usually carry a credential
 * (until the person touches it); a secret value is typed hidden and,
 * once stored, is never shown again: the row says it is kept in the
 * keyring and an empty value keeps it.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-mcp-error.h"
#include "natter-mcp-pairs.h"
#include "natter-mcp-secrets.h"

struct _NatterMcpPairs
{
  AdwPreferencesGroup *group;   /* a reference */
  GtkWidget           *add;
  GPtrArray           *rows;    /* Row */
  gboolean             with_secret;
};

typedef struct
{
  NatterMcpPairs *pairs;
  GtkWidget      *row;
  GtkEditable    *name;
  GtkEntry       *value;
  GtkCheckButton *secret;      /* NULL without secrets */
  GtkWidget      *remove;
  char           *stored_key;
  gboolean        touched;     /* the person set Secret themselves */
  gboolean        setting;     /* Secret is being set from here */
} Row;

static void
row_free (Row *row)
{
  g_free (row->stored_key);
  g_free (row);
}

static void
update_value_entry (Row *row)
{
  gboolean secret = row->secret != NULL && gtk_check_button_get_active (row->secret);

  gtk_entry_set_visibility (row->value, !secret);
  gtk_entry_set_input_purpose (row->value, secret ? GTK_INPUT_PURPOSE_PASSWORD : GTK_INPUT_PURPOSE_FREE_FORM);
  if (secret && row->stored_key != NULL)
    gtk_entry_set_placeholder_text (row->value, _("Kept in the keyring; type to replace"));
  else
    gtk_entry_set_placeholder_text (row->value, _("Value"));
}

static void
secret_toggled_cb (GtkCheckButton *button,
                   Row            *row)
{
  if (!row->setting)
    row->touched = TRUE;
  update_value_entry (row);
}

static void
name_changed_cb (GtkEditable *editable,
                 Row         *row)
{
  if (row->secret == NULL || row->touched)
    return;
  row->setting = TRUE;
  gtk_check_button_set_active (row->secret, natter_mcp_header_name_looks_secret (gtk_editable_get_text (editable)));
  row->setting = FALSE;
}

static void
remove_cb (GtkButton *button,
           Row       *row)
{
  NatterMcpPairs *self = row->pairs;

  adw_preferences_group_remove (self->group, row->row);
  g_ptr_array_remove (self->rows, row);
}

/**
 * natter_mcp_pairs_add:
 * @self: the editor
 * @name: the name to show ("" for a new row)
 * @value: (nullable): the value to show, %NULL for a stored secret
 * @stored_key: (nullable): the key the value is kept under, for a
 *   secret of the edited entry
 *
 * Adds a row below the others.
 */
void
natter_mcp_pairs_add (NatterMcpPairs *self,
                      const char     *name,
                      const char     *value,
                      const char     *stored_key)
{
  Row *row = g_new0 (Row, 1);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *name_entry = gtk_entry_new ();
  GtkWidget *value_entry = gtk_entry_new ();

  row->pairs = self;
  row->row = adw_preferences_row_new ();
  row->name = GTK_EDITABLE (name_entry);
  row->value = GTK_ENTRY (value_entry);
  row->stored_key = g_strdup (stored_key);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row->row), FALSE);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 6);
  gtk_widget_set_margin_top (box, 6);
  gtk_widget_set_margin_bottom (box, 6);
  gtk_entry_set_placeholder_text (GTK_ENTRY (name_entry), _("Name"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (name_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Name"), -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (value_entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Value"), -1);
  gtk_widget_set_hexpand (name_entry, TRUE);
  gtk_widget_set_hexpand (value_entry, TRUE);
  gtk_editable_set_width_chars (GTK_EDITABLE (name_entry), 8);
  gtk_editable_set_width_chars (GTK_EDITABLE (value_entry), 8);
  gtk_box_append (GTK_BOX (box), name_entry);
  gtk_box_append (GTK_BOX (box), value_entry);
  if (self->with_secret)
    {
      row->secret = GTK_CHECK_BUTTON (gtk_check_button_new_with_label (_("Secret")));
      gtk_widget_set_tooltip_text (GTK_WIDGET (row->secret), _("Keep the value in the keyring, not in mcp.json"));
      gtk_box_append (GTK_BOX (box), GTK_WIDGET (row->secret));
      /* A row read from the file says what the file says. */
      row->touched = *name != '\0';
      row->setting = TRUE;
      gtk_check_button_set_active (row->secret, stored_key != NULL);
      row->setting = FALSE;
      g_signal_connect (row->secret, "toggled", G_CALLBACK (secret_toggled_cb), row);
    }
  row->remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  gtk_widget_add_css_class (row->remove, "flat");
  gtk_widget_set_valign (row->remove, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (row->remove, _("Remove"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (row->remove), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Remove"), -1);
  gtk_box_append (GTK_BOX (box), row->remove);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row->row), box);

  gtk_editable_set_text (row->name, name);
  gtk_editable_set_text (GTK_EDITABLE (row->value), value != NULL ? value : "");
  update_value_entry (row);
  g_signal_connect (row->name, "changed", G_CALLBACK (name_changed_cb), row);
  g_signal_connect (row->remove, "clicked", G_CALLBACK (remove_cb), row);
  g_ptr_array_add (self->rows, row);
  adw_preferences_group_add (self->group, row->row);
}

static void
add_clicked_cb (GtkButton      *button,
                NatterMcpPairs *self)
{
  Row *row;

  natter_mcp_pairs_add (self, "", "", NULL);
  row = g_ptr_array_index (self->rows, self->rows->len - 1);
  gtk_widget_grab_focus (GTK_WIDGET (row->name));
}

/**
 * natter_mcp_pairs_new:
 * @title: the group's title
 * @description: what the rows are for
 * @add_label: the Add button's words
 * @with_secret: rows get a Secret switch (headers)
 *
 * Returns: (transfer full): an empty editor
 */
NatterMcpPairs *
natter_mcp_pairs_new (const char *title,
                      const char *description,
                      const char *add_label,
                      gboolean    with_secret)
{
  NatterMcpPairs *self = g_new0 (NatterMcpPairs, 1);

  self->group = g_object_ref_sink (ADW_PREFERENCES_GROUP (adw_preferences_group_new ()));
  self->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) row_free);
  self->with_secret = with_secret;
  adw_preferences_group_set_title (self->group, title);
  adw_preferences_group_set_description (self->group, description);
  self->add = gtk_button_new_with_label (add_label);
  gtk_widget_add_css_class (self->add, "flat");
  gtk_widget_set_valign (self->add, GTK_ALIGN_CENTER);
  adw_preferences_group_set_header_suffix (self->group, self->add);
  g_signal_connect (self->add, "clicked", G_CALLBACK (add_clicked_cb), self);
  return self;
}

/**
 * natter_mcp_pairs_free:
 * @self: (transfer full): the editor
 */
void
natter_mcp_pairs_free (NatterMcpPairs *self)
{
  /* The widgets go first (with the page, or with this last reference),
   * so no handler runs once the rows it points at are freed. */
  g_object_unref (self->group);
  g_ptr_array_unref (self->rows);
  g_free (self);
}

/**
 * natter_mcp_pairs_get_group:
 * @self: the editor
 *
 * Returns: (transfer none): the group to put on the page
 */
AdwPreferencesGroup *
natter_mcp_pairs_get_group (NatterMcpPairs *self)
{
  return self->group;
}

/**
 * natter_mcp_pairs_clear:
 * @self: the editor
 *
 * Removes every row.
 */
void
natter_mcp_pairs_clear (NatterMcpPairs *self)
{
  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->group, ((Row *) g_ptr_array_index (self->rows, i))->row);
  g_ptr_array_set_size (self->rows, 0);
}

/**
 * natter_mcp_pairs_get_n:
 * @self: the editor
 *
 * Returns: how many rows it shows
 */
guint
natter_mcp_pairs_get_n (NatterMcpPairs *self)
{
  return self->rows->len;
}

/**
 * natter_mcp_pairs_get_widget:
 * @self: the editor
 * @index: a row, or G_MAXUINT for the group's own widgets
 * @field: `name`, `value`, `secret` or `remove` of a row; `add`
 *
 * For tests, which drive the rows as a person would.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_mcp_pairs_get_widget (NatterMcpPairs *self,
                             guint           index,
                             const char     *field)
{
  Row *row;

  if (index == G_MAXUINT)
    return g_str_equal (field, "add") ? self->add : NULL;
  if (index >= self->rows->len)
    return NULL;
  row = g_ptr_array_index (self->rows, index);
  if (g_str_equal (field, "name"))
    return GTK_WIDGET (row->name);
  if (g_str_equal (field, "value"))
    return GTK_WIDGET (row->value);
  if (g_str_equal (field, "secret"))
    return row->secret != NULL ? GTK_WIDGET (row->secret) : NULL;
  if (g_str_equal (field, "remove"))
    return row->remove;
  return NULL;
}

static void
pair_free (NatterMcpPair *pair)
{
  g_free (pair->name);
  if (pair->value != NULL)
    {
      /* It may be a credential. */
      memset (pair->value, 0, strlen (pair->value));
      g_free (pair->value);
    }
  g_free (pair->stored_key);
  g_free (pair);
}

/**
 * natter_mcp_pairs_collect:
 * @self: the editor
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error saying
 *   which row is wrong
 *
 * Reads the rows. Every row needs a name, used once; a value, unless it
 * is a secret already kept in the keyring (which an empty value keeps).
 *
 * Returns: (transfer container) (element-type NatterMcpPair) (nullable):
 *   the pairs in order, or %NULL with @error set
 */
GPtrArray *
natter_mcp_pairs_collect (NatterMcpPairs  *self,
                          GError         **error)
{
  g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func ((GDestroyNotify) pair_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < self->rows->len; i++)
    {
      Row *row = g_ptr_array_index (self->rows, i);
      NatterMcpPair *pair = g_new0 (NatterMcpPair, 1);

      pair->name = g_strstrip (g_strdup (gtk_editable_get_text (row->name)));
      pair->value = g_strdup (gtk_editable_get_text (GTK_EDITABLE (row->value)));
      pair->secret = row->secret != NULL && gtk_check_button_get_active (row->secret);
      pair->stored_key = pair->secret ? g_strdup (row->stored_key) : NULL;
      g_ptr_array_add (pairs, pair);
      if (*pair->name == '\0')
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("%s: row %u has no name"), adw_preferences_group_get_title (self->group), i + 1);
          return NULL;
        }
      if (!g_hash_table_add (seen, pair->name))
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("%s: “%s” is there twice"),
                       adw_preferences_group_get_title (self->group), pair->name);
          return NULL;
        }
      if (*pair->value == '\0' && pair->stored_key == NULL)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("%s: “%s” has no value"),
                       adw_preferences_group_get_title (self->group), pair->name);
          return NULL;
        }
    }
  return g_steal_pointer (&pairs);
}
