/* natter-mcp-server-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One server of mcp.json on the Tool Servers page: its name, its state
 * as the page words it, Edit, Test, Remove and a switch to enable it.
 * The row only says what the person asked for, through its signals.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include "natter-mcp-server-row.h"

struct _NatterMcpServerRow
{
  AdwActionRow           parent_instance;

  NatterMcpServerConfig *config;

  /* Template widgets */
  GtkWidget             *edit_button;
  GtkWidget             *test_button;
  GtkWidget             *remove_button;
  GtkSwitch             *enabled_switch;
};

G_DEFINE_FINAL_TYPE (NatterMcpServerRow, natter_mcp_server_row, ADW_TYPE_ACTION_ROW)

enum {
  SIGNAL_EDIT,
  SIGNAL_TEST,
  SIGNAL_REMOVE,
  SIGNAL_ENABLE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
edit_clicked_cb (NatterMcpServerRow *self)
{
  g_signal_emit (self, signals[SIGNAL_EDIT], 0);
}

static void
test_clicked_cb (NatterMcpServerRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TEST], 0);
}

static void
remove_clicked_cb (NatterMcpServerRow *self)
{
  g_signal_emit (self, signals[SIGNAL_REMOVE], 0);
}

static void
enabled_cb (NatterMcpServerRow *self)
{
  g_signal_emit (self, signals[SIGNAL_ENABLE], 0, gtk_switch_get_active (self->enabled_switch));
}

static void
natter_mcp_server_row_finalize (GObject *object)
{
  NatterMcpServerRow *self = NATTER_MCP_SERVER_ROW (object);

  g_clear_pointer (&self->config, natter_mcp_server_config_unref);
  G_OBJECT_CLASS (natter_mcp_server_row_parent_class)->finalize (object);
}

static void
natter_mcp_server_row_class_init (NatterMcpServerRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = natter_mcp_server_row_finalize;

  /**
   * NatterMcpServerRow::edit:
   *
   * The person asked to edit the server.
   */
  signals[SIGNAL_EDIT] = g_signal_new ("edit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  /**
   * NatterMcpServerRow::test:
   *
   * The person asked to test the server.
   */
  signals[SIGNAL_TEST] = g_signal_new ("test", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
  /**
   * NatterMcpServerRow::remove:
   *
   * The person asked to remove the server.
   */
  signals[SIGNAL_REMOVE] = g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 0);
  /**
   * NatterMcpServerRow::enable:
   * @enabled: what the switch says now
   *
   * The person switched the server on or off.
   */
  signals[SIGNAL_ENABLE] = g_signal_new ("enable", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                         NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-mcp-server-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterMcpServerRow, edit_button);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpServerRow, test_button);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpServerRow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, NatterMcpServerRow, enabled_switch);
  gtk_widget_class_bind_template_callback (widget_class, edit_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, test_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
natter_mcp_server_row_init (NatterMcpServerRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_mcp_server_row_new:
 * @config: the server's entry
 * @state: what the row says of the server's state
 *
 * Returns: (transfer floating): the row
 */
NatterMcpServerRow *
natter_mcp_server_row_new (NatterMcpServerConfig *config,
                           const char            *state)
{
  NatterMcpServerRow *self = g_object_new (NATTER_TYPE_MCP_SERVER_ROW,
                                           "title", config->name,
                                           "subtitle", state,
                                           NULL);

  self->config = natter_mcp_server_config_ref (config);
  gtk_switch_set_active (self->enabled_switch, config->enabled);
  /* Connected once the switch shows the entry: only the person's
   * change is news. */
  g_signal_connect_swapped (self->enabled_switch, "notify::active", G_CALLBACK (enabled_cb), self);
  /* Each control says which server it acts on, not only "Edit". */
  for (GtkWidget **control = (GtkWidget *[]) { GTK_WIDGET (self->enabled_switch), self->edit_button,
                                               self->test_button, self->remove_button, NULL };
       *control != NULL; control++)
    gtk_accessible_update_property (GTK_ACCESSIBLE (*control), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, config->name, -1);
  return self;
}

/**
 * natter_mcp_server_row_get_config:
 * @self: the row
 *
 * Returns: (transfer none): the server's entry the row shows
 */
NatterMcpServerConfig *
natter_mcp_server_row_get_config (NatterMcpServerRow *self)
{
  return self->config;
}

/**
 * natter_mcp_server_row_get_part:
 * @self: the row
 * @part: `switch`, `edit`, `test` or `remove`
 *
 * For tests, which drive the row as a person would.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_mcp_server_row_get_part (NatterMcpServerRow *self,
                                const char         *part)
{
  if (g_str_equal (part, "switch"))
    return GTK_WIDGET (self->enabled_switch);
  if (g_str_equal (part, "edit"))
    return self->edit_button;
  if (g_str_equal (part, "test"))
    return self->test_button;
  if (g_str_equal (part, "remove"))
    return self->remove_button;
  return NULL;
}
