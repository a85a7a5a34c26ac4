/* natter-agent-chooser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The agent chooser of the composer (an agent is picked per message): a
 * compact menu button beside Send showing the agent the next message
 * goes to, and a popover listing the built-in Assistant and the user's
 * agents by name. It follows the agent store live (its ::changed
 * signal), so an agent added, renamed or removed in Preferences shows at
 * once; when the chosen agent disappears the chooser falls back to
 * Assistant and says so (::agent-removed) instead of letting the next
 * message go to an agent that is not there any more.
 *
 * Agent files that do not load (the store lists them with an error) are
 * not offered: a message sent to one could only fail.
 */

#define G_LOG_DOMAIN "natter-agent-chooser"

#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "natter-accessible.h"
#include "natter-agent-chooser.h"
#include "natter-builtin-agent-resolver.h"

struct _NatterAgentChooser
{
  GtkWidget         parent_instance;

  NatterAgentStore *store;
  GPtrArray        *agents;     /* JsonObject, the usable user agents, by name */
  char             *agent_id;

  /* Template widgets */
  GtkWidget        *menu_button;
  GtkWidget        *popover;
  GtkListBox       *list_box;
  /* The button's content: the agent's name, or an icon where there is
   * no room for it. */
  AdwSqueezer      *squeezer;
  GtkLabel         *name_label;
  GtkWidget        *name_box;
  GtkWidget        *icon_box;
};

G_DEFINE_FINAL_TYPE (NatterAgentChooser, natter_agent_chooser, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_AGENT_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  AGENT_REMOVED,
  AGENTS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static JsonObject *
find_agent (NatterAgentChooser *self,
            const char         *agent_id)
{
  if (agent_id == NULL)
    return NULL;
  for (guint i = 0; i < self->agents->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (self->agents, i);

      if (g_strcmp0 (json_object_get_string_member (agent, "agentId"), agent_id) == 0)
        return agent;
    }
  return NULL;
}

static GtkWidget *
agent_row_new (const char *agent_id,
               const char *name)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  GtkWidget *label = gtk_label_new (name);
  GtkWidget *check = gtk_image_new_from_icon_name ("object-select-symbolic");

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Current agent"), -1);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), check);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_object_set_data_full (G_OBJECT (row), "agent-id", g_strdup (agent_id), g_free);
  g_object_set_data_full (G_OBJECT (row), "agent-name", g_strdup (name), g_free);
  g_object_set_data (G_OBJECT (row), "check", check);
  gtk_widget_set_tooltip_text (row, name);
  return row;
}

static void
update_button (NatterAgentChooser *self)
{
  const char *name = natter_agent_chooser_get_agent_name (self, self->agent_id);
  g_autofree char *accessible = NULL;
  g_autofree char *tooltip = NULL;

  gtk_label_set_text (self->name_label, name);
  /* Translators: the agent chooser's tooltip; %s is an agent's name */
  tooltip = g_strdup_printf (_("Agent for the Next Message: %s"), name);
  gtk_widget_set_tooltip_text (self->menu_button, tooltip);
  /* Translators: the accessible name of the agent chooser; %s is an
   * agent's name, e.g. "Assistant" */
  accessible = g_strdup_printf (_("Agent: %s"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

/* Moves the check mark only: the rows stay, so a row activated by the
 * user is never destroyed inside its own signal. */
static void
update_checks (NatterAgentChooser *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *check = g_object_get_data (G_OBJECT (row), "check");

      gtk_widget_set_opacity (check, g_strcmp0 (g_object_get_data (G_OBJECT (row), "agent-id"),
                                                self->agent_id) == 0 ? 1.0 : 0.0);
    }
  update_button (self);
}

static void
rebuild_rows (NatterAgentChooser *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box))) != NULL)
    gtk_list_box_remove (self->list_box, child);
  gtk_list_box_append (self->list_box, agent_row_new (NATTER_BUILTIN_AGENT_ID, _("Assistant")));
  for (guint i = 0; i < self->agents->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (self->agents, i);

      gtk_list_box_append (self->list_box,
                           agent_row_new (json_object_get_string_member (agent, "agentId"),
                                          json_object_get_string_member (agent, "name")));
    }
  update_checks (self);
}

/* Reads the store again; the chosen agent, gone, gives way to Assistant. */
static void
reload (NatterAgentChooser *self)
{
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *removed_id = NULL;
  g_autofree char *removed_name = NULL;

  listed = self->store != NULL ? natter_agent_store_list (self->store, &error) : NULL;
  if (listed == NULL && error != NULL)
    g_debug ("Could not list the agents: %s", error->message);

  if (!g_str_equal (self->agent_id, NATTER_BUILTIN_AGENT_ID))
    {
      JsonObject *previous = find_agent (self, self->agent_id);

      removed_id = g_strdup (self->agent_id);
      removed_name = g_strdup (previous != NULL ? json_object_get_string_member (previous, "name")
                                                : self->agent_id);
    }

  g_ptr_array_set_size (self->agents, 0);
  for (guint i = 0; listed != NULL && i < listed->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (listed, i);

      if (!json_object_has_member (agent, "error"))
        g_ptr_array_add (self->agents, json_object_ref (agent));
    }

  if (removed_id != NULL && find_agent (self, removed_id) != NULL)
    g_clear_pointer (&removed_id, g_free);
  if (removed_id != NULL)
    {
      g_free (self->agent_id);
      self->agent_id = g_strdup (NATTER_BUILTIN_AGENT_ID);
    }
  rebuild_rows (self);
  if (removed_id != NULL)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGENT_ID]);
      g_signal_emit (self, signals[AGENT_REMOVED], 0, removed_id, removed_name);
    }
  g_signal_emit (self, signals[AGENTS_CHANGED], 0);
}

static void
store_changed_cb (NatterAgentChooser *self)
{
  reload (self);
}

static void
row_activated_cb (NatterAgentChooser *self,
                  GtkListBoxRow      *row)
{
  natter_agent_chooser_choose (self, g_object_get_data (G_OBJECT (row), "agent-id"));
}

/* Opening the list puts focus on the current agent, so arrow keys start
 * from there. */
static void
popover_map_cb (NatterAgentChooser *self)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "agent-id"), self->agent_id) == 0)
      {
        gtk_widget_grab_focus (row);
        return;
      }
}

static void
natter_agent_chooser_dispose (GObject *object)
{
  NatterAgentChooser *self = NATTER_AGENT_CHOOSER (object);

  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_clear_object (&self->store);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_AGENT_CHOOSER);

  G_OBJECT_CLASS (natter_agent_chooser_parent_class)->dispose (object);
}

static void
natter_agent_chooser_finalize (GObject *object)
{
  NatterAgentChooser *self = NATTER_AGENT_CHOOSER (object);

  g_clear_pointer (&self->agents, g_ptr_array_unref);
  g_clear_pointer (&self->agent_id, g_free);

  G_OBJECT_CLASS (natter_agent_chooser_parent_class)->finalize (object);
}

static void
natter_agent_chooser_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  NatterAgentChooser *self = NATTER_AGENT_CHOOSER (object);

  switch (prop_id)
    {
    case PROP_AGENT_ID:
      g_value_set_string (value, self->agent_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_agent_chooser_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  NatterAgentChooser *self = NATTER_AGENT_CHOOSER (object);

  switch (prop_id)
    {
    case PROP_AGENT_ID:
      natter_agent_chooser_set_agent_id (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
natter_agent_chooser_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (NATTER_AGENT_CHOOSER (widget)->menu_button);
}

/* Tab and the arrows go to the menu button, the chooser's one stop, and
 * on past it. GTK 4.8's default answers Shift+Tab from a child by giving
 * the focus to the widget itself, through its grab_focus, which hands it
 * to the menu button again: the focus stayed on it and Shift+Tab went
 * nowhere. */
static gboolean
natter_agent_chooser_focus (GtkWidget        *widget,
                            GtkDirectionType  direction)
{
  return gtk_widget_child_focus (NATTER_AGENT_CHOOSER (widget)->menu_button, direction);
}

static void
natter_agent_chooser_class_init (NatterAgentChooserClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_agent_chooser_dispose;
  object_class->finalize = natter_agent_chooser_finalize;
  object_class->get_property = natter_agent_chooser_get_property;
  object_class->set_property = natter_agent_chooser_set_property;
  widget_class->grab_focus = natter_agent_chooser_grab_focus;
  widget_class->focus = natter_agent_chooser_focus;

  /**
   * NatterAgentChooser:agent-id:
   *
   * The agent the next message goes to: %NATTER_BUILTIN_AGENT_ID or the
   * id of one of the store's agents.
   */
  properties[PROP_AGENT_ID] =
    g_param_spec_string ("agent-id", NULL, NULL, NATTER_BUILTIN_AGENT_ID,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterAgentChooser::agent-removed:
   * @agent_id: the agent that was chosen
   * @name: its name, as it was shown
   *
   * The chosen agent is not in the store any more (deleted, or its file
   * stopped loading); the chooser has already gone back to Assistant.
   */
  signals[AGENT_REMOVED] = g_signal_new ("agent-removed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                         0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  /**
   * NatterAgentChooser::agents-changed:
   *
   * The list was read again from the store (an agent's name or model may
   * have changed).
   */
  signals[AGENTS_CHANGED] = g_signal_new ("agents-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "natter-agent-chooser");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-agent-chooser.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, menu_button);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, popover);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, list_box);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, squeezer);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, name_label);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, name_box);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentChooser, icon_box);
  gtk_widget_class_bind_template_callback (widget_class, popover_map_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
}

static void
natter_agent_chooser_init (NatterAgentChooser *self)
{
  self->agents = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->agent_id = g_strdup (NATTER_BUILTIN_AGENT_ID);
  gtk_widget_init_template (GTK_WIDGET (self));
  rebuild_rows (self);
}

/**
 * natter_agent_chooser_new:
 *
 * Returns: (transfer floating): a chooser offering only Assistant until
 *   natter_agent_chooser_set_store()
 */
GtkWidget *
natter_agent_chooser_new (void)
{
  return g_object_new (NATTER_TYPE_AGENT_CHOOSER, NULL);
}

/**
 * natter_agent_chooser_get_store:
 * @self: the chooser
 *
 * Returns: (transfer none) (nullable): the store listed
 */
NatterAgentStore *
natter_agent_chooser_get_store (NatterAgentChooser *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), NULL);
  return self->store;
}

/**
 * natter_agent_chooser_set_store:
 * @self: the chooser
 * @store: (nullable): the user's agents
 *
 * Lists Assistant and @store's agents, and follows @store's
 * #NatterAgentStore::changed from now on (the caller decides whether the
 * store also watches its folder, natter_agent_store_watch()). %NULL
 * leaves only Assistant.
 */
void
natter_agent_chooser_set_store (NatterAgentChooser *self,
                                NatterAgentStore   *store)
{
  g_return_if_fail (NATTER_IS_AGENT_CHOOSER (self));
  g_return_if_fail (store == NULL || NATTER_IS_AGENT_STORE (store));

  if (self->store == store)
    return;
  if (self->store != NULL)
    g_signal_handlers_disconnect_by_data (self->store, self);
  g_set_object (&self->store, store);
  if (store != NULL)
    g_signal_connect_swapped (store, "changed", G_CALLBACK (store_changed_cb), self);
  reload (self);
}

/**
 * natter_agent_chooser_get_agent_id:
 * @self: the chooser
 *
 * Returns: the chosen agent's id (%NATTER_BUILTIN_AGENT_ID for Assistant)
 */
const char *
natter_agent_chooser_get_agent_id (NatterAgentChooser *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), NULL);
  return self->agent_id;
}

/**
 * natter_agent_chooser_set_agent_id:
 * @self: the chooser
 * @agent_id: (nullable): an agent id; %NULL for Assistant
 *
 * Shows @agent_id as the choice when it is listed; otherwise (an agent
 * that was removed, or whose file does not load) shows Assistant.
 * Notifies #NatterAgentChooser:agent-id when the choice changes.
 *
 * Returns: whether @agent_id is listed (Assistant always is)
 */
gboolean
natter_agent_chooser_set_agent_id (NatterAgentChooser *self,
                                   const char         *agent_id)
{
  gboolean listed;

  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), FALSE);

  if (agent_id == NULL)
    agent_id = NATTER_BUILTIN_AGENT_ID;
  listed = natter_agent_chooser_has_agent (self, agent_id);
  if (!listed)
    agent_id = NATTER_BUILTIN_AGENT_ID;
  if (g_str_equal (self->agent_id, agent_id))
    return listed;
  g_free (self->agent_id);
  self->agent_id = g_strdup (agent_id);
  update_checks (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AGENT_ID]);
  return listed;
}

/**
 * natter_agent_chooser_has_agent:
 * @self: the chooser
 * @agent_id: (nullable): an agent id
 *
 * Returns: whether @agent_id is offered: Assistant, or a store agent
 *   that loads
 */
gboolean
natter_agent_chooser_has_agent (NatterAgentChooser *self,
                                const char         *agent_id)
{
  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), FALSE);

  return g_strcmp0 (agent_id, NATTER_BUILTIN_AGENT_ID) == 0 || find_agent (self, agent_id) != NULL;
}

/**
 * natter_agent_chooser_get_agent_name:
 * @self: the chooser
 * @agent_id: (nullable): an agent id
 *
 * Returns: the name shown for @agent_id: its `name`, “Assistant” for
 *   the built-in agent, or @agent_id itself when it is not listed
 */
const char *
natter_agent_chooser_get_agent_name (NatterAgentChooser *self,
                                     const char         *agent_id)
{
  JsonObject *agent;

  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), NULL);

  if (agent_id == NULL || g_str_equal (agent_id, NATTER_BUILTIN_AGENT_ID))
    return _("Assistant");
  agent = find_agent (self, agent_id);
  return agent != NULL ? json_object_get_string_member (agent, "name") : agent_id;
}

/**
 * natter_agent_chooser_get_agent_model:
 * @self: the chooser
 * @agent_id: (nullable): an agent id
 *
 * The model an agent names itself (its file's `model`), as last read.
 * Assistant names none: it uses the default model.
 *
 * Returns: (transfer none) (nullable): `{provider, model}`, or %NULL
 *   when @agent_id names no model or is not listed
 */
JsonObject *
natter_agent_chooser_get_agent_model (NatterAgentChooser *self,
                                      const char         *agent_id)
{
  JsonObject *agent;

  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), NULL);

  agent = find_agent (self, agent_id);
  if (agent == NULL || !json_object_has_member (agent, "model"))
    return NULL;
  return json_object_get_object_member (agent, "model");
}

/**
 * natter_agent_chooser_dup_names:
 * @self: the chooser
 *
 * Returns: (transfer full): the names the list shows, in its order
 *   (Assistant first, then the store's agents by name)
 */
GStrv
natter_agent_chooser_dup_names (NatterAgentChooser *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    g_strv_builder_add (builder, g_object_get_data (G_OBJECT (row), "agent-name"));
  return g_strv_builder_end (builder);
}

/**
 * natter_agent_chooser_get_compact:
 * @self: the chooser
 *
 * Returns: whether the button shows an icon instead of the agent's name,
 *   as it does where the name has no room (a narrow window)
 */
gboolean
natter_agent_chooser_get_compact (NatterAgentChooser *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_CHOOSER (self), FALSE);
  return adw_squeezer_get_visible_child (self->squeezer) == self->icon_box;
}

/**
 * natter_agent_chooser_popup:
 * @self: the chooser
 *
 * Opens the list, as a click or Space on the button does.
 */
void
natter_agent_chooser_popup (NatterAgentChooser *self)
{
  g_return_if_fail (NATTER_IS_AGENT_CHOOSER (self));
  gtk_menu_button_popup (GTK_MENU_BUTTON (self->menu_button));
}

/**
 * natter_agent_chooser_popdown:
 * @self: the chooser
 */
void
natter_agent_chooser_popdown (NatterAgentChooser *self)
{
  g_return_if_fail (NATTER_IS_AGENT_CHOOSER (self));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (self->menu_button));
}

/**
 * natter_agent_chooser_choose:
 * @self: the chooser
 * @agent_id: a listed agent id
 *
 * What activating a row does: chooses @agent_id
 * (natter_agent_chooser_set_agent_id()) and closes the list.
 */
void
natter_agent_chooser_choose (NatterAgentChooser *self,
                             const char         *agent_id)
{
  g_return_if_fail (NATTER_IS_AGENT_CHOOSER (self));

  natter_agent_chooser_set_agent_id (self, agent_id);
  gtk_menu_button_popdown (GTK_MENU_BUTTON (self->menu_button));
}
