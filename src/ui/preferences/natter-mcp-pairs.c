/* natter-mcp-pairs.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A group of name/value rows of the Tool Servers page (its template is
 * natter-mcp-pairs.ui): a stdio server's environment variables, an HTTP
 * server's headers. Rows are added with its Add button or from an
 * entry being edited, and read back as pairs, checked, for saving.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-mcp-error.h"
#include "natter-mcp-pair-row.h"
#include "natter-mcp-pairs.h"

struct _NatterMcpPairs
{
  AdwPreferencesGroup  parent_instance;

  GPtrArray           *rows;    /* NatterMcpPairRow, in order */
  gboolean             with_secret;

  /* Template widgets */
  GtkButton           *add_button;
};

G_DEFINE_FINAL_TYPE (NatterMcpPairs, natter_mcp_pairs, ADW_TYPE_PREFERENCES_GROUP)

enum {
  PROP_0,
  PROP_ADD_LABEL,
  PROP_WITH_SECRET,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
row_remove_cb (NatterMcpPairRow *row,
               NatterMcpPairs   *self)
{
  adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self), GTK_WIDGET (row));
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
  NatterMcpPairRow *row = natter_mcp_pair_row_new (name, value, stored_key, self->with_secret);

  g_signal_connect_object (row, "remove", G_CALLBACK (row_remove_cb), self, 0);
  g_ptr_array_add (self->rows, g_object_ref_sink (row));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self), GTK_WIDGET (row));
}

static void
add_clicked_cb (NatterMcpPairs *self)
{
  natter_mcp_pairs_add (self, "", "", NULL);
  natter_mcp_pair_row_focus_name (g_ptr_array_index (self->rows, self->rows->len - 1));
}

static void
natter_mcp_pairs_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  NatterMcpPairs *self = NATTER_MCP_PAIRS (object);

  switch (prop_id)
    {
    case PROP_ADD_LABEL:
      g_value_set_string (value, gtk_button_get_label (self->add_button));
      break;
    case PROP_WITH_SECRET:
      g_value_set_boolean (value, self->with_secret);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_pairs_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  NatterMcpPairs *self = NATTER_MCP_PAIRS (object);

  switch (prop_id)
    {
    case PROP_ADD_LABEL:
      gtk_button_set_label (self->add_button, g_value_get_string (value));
      break;
    case PROP_WITH_SECRET:
      self->with_secret = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_mcp_pairs_finalize (GObject *object)
{
  NatterMcpPairs *self = NATTER_MCP_PAIRS (object);

  g_ptr_array_unref (self->rows);
  G_OBJECT_CLASS (natter_mcp_pairs_parent_class)->finalize (object);
}

static void
natter_mcp_pairs_class_init (NatterMcpPairsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = natter_mcp_pairs_get_property;
  object_class->set_property = natter_mcp_pairs_set_property;
  object_class->finalize = natter_mcp_pairs_finalize;

  /**
   * NatterMcpPairs:add-label:
   *
   * The words of the button that adds a row.
   */
  properties[PROP_ADD_LABEL] =
    g_param_spec_string ("add-label", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterMcpPairs:with-secret:
   *
   * Whether rows get a Secret switch (headers).
   */
  properties[PROP_WITH_SECRET] =
    g_param_spec_boolean ("with-secret", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-mcp-pairs.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterMcpPairs, add_button);
  gtk_widget_class_bind_template_callback (widget_class, add_clicked_cb);
}

static void
natter_mcp_pairs_init (NatterMcpPairs *self)
{
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
  gtk_widget_init_template (GTK_WIDGET (self));
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
    adw_preferences_group_remove (ADW_PREFERENCES_GROUP (self), g_ptr_array_index (self->rows, i));
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
  if (index == G_MAXUINT)
    return g_str_equal (field, "add") ? GTK_WIDGET (self->add_button) : NULL;
  if (index >= self->rows->len)
    return NULL;
  return natter_mcp_pair_row_get_part (g_ptr_array_index (self->rows, index), field);
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
      NatterMcpPairRow *row = g_ptr_array_index (self->rows, i);
      NatterMcpPair *pair = g_new0 (NatterMcpPair, 1);

      pair->name = g_strstrip (g_strdup (natter_mcp_pair_row_get_name (row)));
      pair->value = g_strdup (natter_mcp_pair_row_get_value (row));
      pair->secret = natter_mcp_pair_row_get_secret (row);
      pair->stored_key = pair->secret ? g_strdup (natter_mcp_pair_row_get_stored_key (row)) : NULL;
      g_ptr_array_add (pairs, pair);
      if (*pair->name == '\0')
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("%s: row %u has no name"), adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (self)), i + 1);
          return NULL;
        }
      if (!g_hash_table_add (seen, pair->name))
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("%s: “%s” is there twice"),
                       adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (self)), pair->name);
          return NULL;
        }
      if (*pair->value == '\0' && pair->stored_key == NULL)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("%s: “%s” has no value"),
                       adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (self)), pair->name);
          return NULL;
        }
    }
  return g_steal_pointer (&pairs);
}
