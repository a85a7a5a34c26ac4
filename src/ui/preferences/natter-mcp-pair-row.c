/* natter-mcp-pair-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One name/value row of the Tool Servers page: an environment variable
 * of a stdio server or a header of an HTTP server. A header row has a
 * Secret switch, on by itself for names that usually carry a credential
 * (until the person touches it); a secret value is typed hidden and,
 * once stored, is never shown again: the row says it is kept in the
 * keyring and an empty value keeps it. The row only says that the
 * person asked to remove it, through ::remove.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-mcp-pair-row.h"
#include "natter-mcp-secrets.h"

struct _NatterMcpPairRow
{
  AdwPreferencesRow  parent_instance;

  char              *stored_key;
  gboolean           with_secret;
  gboolean           touched;      /* the person set Secret themselves */
  gboolean           setting;      /* Secret is being set from here */

  /* Template widgets */
  GtkEditable       *name_entry;
  GtkEntry          *value_entry;
  GtkCheckButton    *secret_check;
  GtkWidget         *remove_button;
};

G_DEFINE_FINAL_TYPE (NatterMcpPairRow, natter_mcp_pair_row, ADW_TYPE_PREFERENCES_ROW)

enum {
  SIGNAL_REMOVE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
update_value_entry (NatterMcpPairRow *self)
{
  gboolean secret = natter_mcp_pair_row_get_secret (self);

  gtk_entry_set_visibility (self->value_entry, !secret);
  gtk_entry_set_input_purpose (self->value_entry, secret ? GTK_INPUT_PURPOSE_PASSWORD : GTK_INPUT_PURPOSE_FREE_FORM);
  if (secret && self->stored_key != NULL)
    gtk_entry_set_placeholder_text (self->value_entry, _("Kept in the keyring; type to replace"));
  else
    gtk_entry_set_placeholder_text (self->value_entry, _("Value"));
}

static void
secret_toggled_cb (NatterMcpPairRow *self)
{
  if (!self->setting)
    self->touched = TRUE;
  update_value_entry (self);
}

static void
name_changed_cb (NatterMcpPairRow *self)
{
  if (!self->with_secret || self->touched)
    return;
  self->setting = TRUE;
  gtk_check_button_set_active (self->secret_check,
                               natter_mcp_header_name_looks_secret (gtk_editable_get_text (self->name_entry)));
  self->setting = FALSE;
}

static void
remove_clicked_cb (NatterMcpPairRow *self)
{
  g_signal_emit (self, signals[SIGNAL_REMOVE], 0);
}

static void
natter_mcp_pair_row_finalize (GObject *object)
{
  NatterMcpPairRow *self = NATTER_MCP_PAIR_ROW (object);

  g_free (self->stored_key);
  G_OBJECT_CLASS (natter_mcp_pair_row_parent_class)->finalize (object);
}

static void
natter_mcp_pair_row_class_init (NatterMcpPairRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = natter_mcp_pair_row_finalize;

  /**
   * NatterMcpPairRow::remove:
   *
   * The person asked to remove the row.
   */
  signals[SIGNAL_REMOVE] = g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-mcp-pair-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPairRow, name_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPairRow, value_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPairRow, secret_check);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPairRow, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, name_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, secret_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
natter_mcp_pair_row_init (NatterMcpPairRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_mcp_pair_row_new:
 * @name: the name to show ("" for a new row)
 * @value: (nullable): the value to show, %NULL for a stored secret
 * @stored_key: (nullable): the key the value is kept under, for a
 *   secret of the edited entry
 * @with_secret: the row gets a Secret switch (headers)
 *
 * Returns: (transfer floating): the row
 */
NatterMcpPairRow *
natter_mcp_pair_row_new (const char *name,
                         const char *value,
                         const char *stored_key,
                         gboolean    with_secret)
{
  NatterMcpPairRow *self = g_object_new (NATTER_TYPE_MCP_PAIR_ROW, NULL);

  self->stored_key = g_strdup (stored_key);
  self->with_secret = with_secret;
  if (with_secret)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->secret_check), TRUE);
      /* A row read from the file says what the file says. */
      self->touched = *name != '\0';
      self->setting = TRUE;
      gtk_check_button_set_active (self->secret_check, stored_key != NULL);
      self->setting = FALSE;
    }
  gtk_editable_set_text (self->name_entry, name);
  gtk_editable_set_text (GTK_EDITABLE (self->value_entry), value != NULL ? value : "");
  update_value_entry (self);
  return self;
}

/**
 * natter_mcp_pair_row_get_name:
 * @self: the row
 *
 * Returns: (transfer none): the name as typed
 */
const char *
natter_mcp_pair_row_get_name (NatterMcpPairRow *self)
{
  return gtk_editable_get_text (self->name_entry);
}

/**
 * natter_mcp_pair_row_get_value:
 * @self: the row
 *
 * Returns: (transfer none): the value as typed ("" keeps a stored secret)
 */
const char *
natter_mcp_pair_row_get_value (NatterMcpPairRow *self)
{
  return gtk_editable_get_text (GTK_EDITABLE (self->value_entry));
}

/**
 * natter_mcp_pair_row_get_secret:
 * @self: the row
 *
 * Returns: whether the value is to be kept in the keyring
 */
gboolean
natter_mcp_pair_row_get_secret (NatterMcpPairRow *self)
{
  return self->with_secret && gtk_check_button_get_active (self->secret_check);
}

/**
 * natter_mcp_pair_row_get_stored_key:
 * @self: the row
 *
 * Returns: (transfer none) (nullable): the key a secret of the edited
 *   entry is kept under
 */
const char *
natter_mcp_pair_row_get_stored_key (NatterMcpPairRow *self)
{
  return self->stored_key;
}

/**
 * natter_mcp_pair_row_focus_name:
 * @self: the row
 *
 * Puts the focus in the name field, for a row just added.
 */
void
natter_mcp_pair_row_focus_name (NatterMcpPairRow *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->name_entry));
}

/**
 * natter_mcp_pair_row_get_part:
 * @self: the row
 * @part: `name`, `value`, `secret` or `remove`
 *
 * For tests, which drive the row as a person would.
 *
 * Returns: (transfer none) (nullable): the widget; `secret` only with
 *   a Secret switch
 */
GtkWidget *
natter_mcp_pair_row_get_part (NatterMcpPairRow *self,
                              const char       *part)
{
  if (g_str_equal (part, "name"))
    return GTK_WIDGET (self->name_entry);
  if (g_str_equal (part, "value"))
    return GTK_WIDGET (self->value_entry);
  if (g_str_equal (part, "secret"))
    return self->with_secret ? GTK_WIDGET (self->secret_check) : NULL;
  if (g_str_equal (part, "remove"))
    return self->remove_button;
  return NULL;
}
