/* natter-agent-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One of the user's agents in Preferences: its name, what it runs on
 * and how many tools it may use, with Edit and Delete. An agent file
 * that does not validate shows why instead, and can only be deleted.
 * The row only says what the user asked for, through its signals.
 */

#define G_LOG_DOMAIN "natter-agent-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-row.h"

struct _NatterAgentRow
{
  AdwActionRow  parent_instance;

  char         *agent_id;
  char         *problem;
  char         *summary;

  /* Template widgets */
  GtkWidget    *edit_button;
  GtkWidget    *delete_button;
};

G_DEFINE_FINAL_TYPE (NatterAgentRow, natter_agent_row, ADW_TYPE_ACTION_ROW)

enum {
  PROP_0,
  PROP_AGENT_ID,
  PROP_PROBLEM,
  N_PROPS
};

enum {
  SIGNAL_EDIT,
  SIGNAL_DELETE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
edit_clicked_cb (NatterAgentRow *self)
{
  g_signal_emit (self, signals[SIGNAL_EDIT], 0);
}

static void
delete_clicked_cb (NatterAgentRow *self)
{
  g_signal_emit (self, signals[SIGNAL_DELETE], 0);
}

/* "provider · model · 2 tools", or the default model's. */
static char *
describe_agent (JsonObject *agent)
{
  JsonArray *tools = json_object_get_array_member (agent, "tools");
  guint n = tools != NULL ? json_array_get_length (tools) : 0;
  g_autofree char *tools_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", n), n);

  if (json_object_has_member (agent, "model"))
    {
      JsonObject *model = json_object_get_object_member (agent, "model");

      return g_strdup_printf ("%s · %s · %s", json_object_get_string_member (model, "provider"),
                              json_object_get_string_member (model, "model"), tools_text);
    }
  return g_strdup_printf (_("Default model · %s"), tools_text);
}

static void
natter_agent_row_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  NatterAgentRow *self = NATTER_AGENT_ROW (object);

  switch (prop_id)
    {
    case PROP_AGENT_ID: g_value_set_string (value, self->agent_id); break;
    case PROP_PROBLEM: g_value_set_string (value, self->problem); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_agent_row_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  NatterAgentRow *self = NATTER_AGENT_ROW (object);

  switch (prop_id)
    {
    case PROP_AGENT_ID: self->agent_id = g_value_dup_string (value); break;
    case PROP_PROBLEM: natter_agent_row_set_problem (self, g_value_get_string (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_agent_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_AGENT_ROW);

  G_OBJECT_CLASS (natter_agent_row_parent_class)->dispose (object);
}

static void
natter_agent_row_finalize (GObject *object)
{
  NatterAgentRow *self = NATTER_AGENT_ROW (object);

  g_free (self->agent_id);
  g_free (self->problem);
  g_free (self->summary);

  G_OBJECT_CLASS (natter_agent_row_parent_class)->finalize (object);
}

static void
natter_agent_row_class_init (NatterAgentRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = natter_agent_row_get_property;
  object_class->set_property = natter_agent_row_set_property;
  object_class->dispose = natter_agent_row_dispose;
  object_class->finalize = natter_agent_row_finalize;

  /** NatterAgentRow:agent-id: the id of the agent shown */
  properties[PROP_AGENT_ID] =
    g_param_spec_string ("agent-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterAgentRow:problem: (nullable)
   *
   * Why the agent's file cannot be used; %NULL for a usable agent. The
   * row then shows it as an error and offers no Edit.
   */
  properties[PROP_PROBLEM] =
    g_param_spec_string ("problem", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterAgentRow::edit:
   * @self: the row
   *
   * The user asked to edit the agent.
   */
  signals[SIGNAL_EDIT] = g_signal_new ("edit", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterAgentRow::delete:
   * @self: the row
   *
   * The user asked to delete the agent's file.
   */
  signals[SIGNAL_DELETE] = g_signal_new ("delete", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-agent-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAgentRow, edit_button);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentRow, delete_button);
  gtk_widget_class_bind_template_callback (widget_class, edit_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, delete_clicked_cb);
}

static void
natter_agent_row_init (NatterAgentRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_agent_row_new:
 * @agent: an agent as natter_agent_store_list() gives it: `agentId`,
 *   `name`, and either `tools` (and maybe `model`) or `error`
 *
 * Returns: (transfer floating): the row
 */
NatterAgentRow *
natter_agent_row_new (JsonObject *agent)
{
  NatterAgentRow *self;
  const char *problem;

  g_return_val_if_fail (agent != NULL, NULL);

  problem = json_object_get_string_member_with_default (agent, "error", NULL);
  self = g_object_new (NATTER_TYPE_AGENT_ROW,
                       "agent-id", json_object_get_string_member (agent, "agentId"),
                       "title", json_object_get_string_member (agent, "name"),
                       NULL);
  if (problem == NULL)
    self->summary = describe_agent (agent);
  natter_agent_row_set_problem (self, problem);
  if (problem == NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (self), self->summary);
  return self;
}

/**
 * natter_agent_row_get_agent_id:
 * @self: the row
 *
 * Returns: (transfer none): the id of the agent shown
 */
const char *
natter_agent_row_get_agent_id (NatterAgentRow *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_ROW (self), NULL);
  return self->agent_id;
}

/**
 * natter_agent_row_get_problem:
 * @self: the row
 *
 * Returns: (transfer none) (nullable): #NatterAgentRow:problem
 */
const char *
natter_agent_row_get_problem (NatterAgentRow *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_ROW (self), NULL);
  return self->problem;
}

/**
 * natter_agent_row_set_problem:
 * @self: the row
 * @problem: (nullable): why the agent cannot be used, or %NULL
 *
 * Shows @problem in place of the summary, as an error, without Edit.
 */
void
natter_agent_row_set_problem (NatterAgentRow *self,
                              const char     *problem)
{
  g_return_if_fail (NATTER_IS_AGENT_ROW (self));

  if (g_strcmp0 (self->problem, problem) == 0)
    return;
  g_free (self->problem);
  self->problem = g_strdup (problem);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self), problem != NULL ? problem
                                                      : self->summary != NULL ? self->summary : "");
  gtk_widget_set_visible (self->edit_button, problem == NULL);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (self), problem == NULL ? self->edit_button : NULL);
  if (problem != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "error");
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROBLEM]);
}

/**
 * natter_agent_row_get_part:
 * @self: the row
 * @part: "edit" or "delete"
 *
 * For tests, which drive the row as a user would.
 *
 * Returns: (transfer none) (nullable): the button; %NULL for "edit" on
 *   an agent that cannot be used
 */
GtkWidget *
natter_agent_row_get_part (NatterAgentRow *self,
                           const char     *part)
{
  g_return_val_if_fail (NATTER_IS_AGENT_ROW (self), NULL);

  if (g_str_equal (part, "edit"))
    return self->problem == NULL ? self->edit_button : NULL;
  if (g_str_equal (part, "delete"))
    return self->delete_button;
  g_return_val_if_reached (NULL);
}
