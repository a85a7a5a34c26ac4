/* natter-agent-editor.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The subpage of Preferences that edits one agent (or a new one): its
 * name, system prompt, model and tools. The model is a provider, then
 * one of that provider's `/models`; it is typed by hand only when the
 * list cannot be had, and the page says why. The editor stores nothing:
 * Save and Back are signals, and natter_agent_editor_build_agent() gives
 * the agent the page describes.
 */

#define G_LOG_DOMAIN "natter-agent-editor"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-editor.h"
#include "natter-builtin-tools.h"
#include "natter-combo-row-labels.h"

struct _NatterAgentEditor
{
  GtkBox               parent_instance;

  NatterServices      *services;
  char                *agent_id;        /* NULL: a new agent */
  GPtrArray           *provider_ids;    /* of the provider combo, after entry 0 */
  GPtrArray           *model_ids;       /* of model_list */
  char                *stored_provider;
  char                *stored_model;
  GCancellable        *cancellable;     /* the current listing */
  GHashTable          *tools;           /* toolId → GtkCheckButton */
  guint                n_listing;

  /* Template widgets */
  AdwWindowTitle      *window_title;
  GtkWidget           *save_button;
  AdwEntryRow         *name_row;
  GtkTextView         *prompt_view;
  AdwPreferencesGroup *model_group;
  AdwComboRow         *provider_row;
  AdwComboRow         *model_list;
  AdwEntryRow         *model_entry;
  AdwPreferencesGroup *tools_group;
};

G_DEFINE_FINAL_TYPE (NatterAgentEditor, natter_agent_editor, GTK_TYPE_BOX)

enum {
  PROP_0,
  PROP_SERVICES,
  PROP_AGENT_ID,
  PROP_LOADING,
  N_PROPS
};

enum {
  SIGNAL_SAVE,
  SIGNAL_BACK,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/**
 * natter_agent_tool_label:
 * @tool_id: a built-in tool's id
 *
 * Returns: (transfer none): what the tool lets an agent do, in words;
 *   @tool_id itself for a tool without one
 */
const char *
natter_agent_tool_label (const char *tool_id)
{
  if (g_str_equal (tool_id, NATTER_TOOL_ID_ASK_HUMAN))
    return _("Ask you questions");
  if (g_str_equal (tool_id, NATTER_TOOL_ID_READ_FILE))
    return _("Read files");
  if (g_str_equal (tool_id, NATTER_TOOL_ID_LIST_DIRECTORY))
    return _("List folders");
  if (g_str_equal (tool_id, NATTER_TOOL_ID_CURRENT_TIME))
    return _("Tell the time");
  return tool_id;
}

static void
back_clicked_cb (NatterAgentEditor *self)
{
  g_signal_emit (self, signals[SIGNAL_BACK], 0);
}

static void
save_clicked_cb (NatterAgentEditor *self)
{
  g_signal_emit (self, signals[SIGNAL_SAVE], 0);
}

static void
listing_changed (NatterAgentEditor *self,
                 int                delta)
{
  gboolean was_loading = self->n_listing > 0;

  self->n_listing += delta;
  if (was_loading != (self->n_listing > 0))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static char *
dup_model_name (NatterAgentEditor *self)
{
  guint selected;

  if (gtk_widget_get_visible (GTK_WIDGET (self->model_list)))
    {
      selected = adw_combo_row_get_selected (self->model_list);
      if (selected < self->model_ids->len)
        return g_strdup (g_ptr_array_index (self->model_ids, selected));
      return g_strdup ("");
    }
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->model_entry))));
}

/* What the provider combo's entry @selected stands for; NULL for entry 0,
 * "the default model". */
static const char *
provider_at (NatterAgentEditor *self,
             guint              selected)
{
  if (selected == 0 || selected > self->provider_ids->len)
    return NULL;
  return g_ptr_array_index (self->provider_ids, selected - 1);
}

/* The model to show first for @provider_id: the stored one when the
 * agent's provider is shown again. */
static const char *
wanted_model (NatterAgentEditor *self,
              const char        *provider_id)
{
  if (g_strcmp0 (provider_id, self->stored_provider) == 0)
    return self->stored_model;
  return NULL;
}

/* Falls back to the entry, with @problem as the group's note. */
static void
show_model_entry (NatterAgentEditor *self,
                  const char        *provider_id,
                  const char        *problem)
{
  g_autofree char *note = NULL;
  g_autofree char *escaped = NULL;
  const char *wanted = wanted_model (self, provider_id);

  /* Translators: %s says why, e.g. a server's error message */
  note = g_strdup_printf (_("Type the model name: the models could not be listed. %s"), problem);
  /* A group's description is markup; a server's message is not. */
  escaped = g_markup_escape_text (note, -1);
  adw_preferences_group_set_description (self->model_group, escaped);
  gtk_widget_set_visible (GTK_WIDGET (self->model_list), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->model_entry), TRUE);
  if (wanted != NULL && gtk_editable_get_text (GTK_EDITABLE (self->model_entry))[0] == '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->model_entry), wanted);
}

typedef struct
{
  NatterAgentEditor *self;
  char              *provider_id;
  GCancellable      *cancellable;
} Listing;

static void
listing_free (Listing *listing)
{
  listing_changed (listing->self, -1);
  g_object_unref (listing->self);
  g_free (listing->provider_id);
  g_object_unref (listing->cancellable);
  g_free (listing);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Listing, listing_free)

static void
show_models (NatterAgentEditor  *self,
             const char         *provider_id,
             const char * const *models)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  const char *wanted = wanted_model (self, provider_id);
  guint selected = 0;

  g_ptr_array_set_size (self->model_ids, 0);
  for (guint i = 0; models[i] != NULL; i++)
    {
      gtk_string_list_append (names, models[i]);
      g_ptr_array_add (self->model_ids, g_strdup (models[i]));
      if (g_strcmp0 (models[i], wanted) == 0)
        selected = i;
    }
  /* A stored model the server no longer lists is shown as itself rather
   * than silently changed. */
  if (wanted != NULL && !g_strv_contains (models, wanted))
    {
      gtk_string_list_append (names, wanted);
      g_ptr_array_add (self->model_ids, g_strdup (wanted));
      selected = self->model_ids->len - 1;
    }
  adw_combo_row_set_model (self->model_list, G_LIST_MODEL (names));
  adw_combo_row_set_selected (self->model_list, selected);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->model_list), "");
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_list), TRUE);
}

static void
models_listed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Listing) listing = user_data;
  NatterAgentEditor *self = listing->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  /* Closed, or another provider was picked meanwhile. */
  if (listing->cancellable != self->cancellable || g_cancellable_is_cancelled (listing->cancellable))
    return;
  g_clear_object (&self->cancellable);

  if (models == NULL)
    show_model_entry (self, listing->provider_id, error->message);
  else if (models[0] == NULL)
    show_model_entry (self, listing->provider_id, _("The provider lists none."));
  else
    show_models (self, listing->provider_id, (const char * const *) models);
}

static void
provider_selected_cb (NatterAgentEditor *self)
{
  const char *provider_id = provider_at (self, adw_combo_row_get_selected (self->provider_row));
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkStringList) empty = gtk_string_list_new (NULL);
  Listing *listing;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_ptr_array_set_size (self->model_ids, 0);
  adw_combo_row_set_model (self->model_list, G_LIST_MODEL (empty));
  adw_preferences_group_set_description (self->model_group, NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->model_entry), "");
  gtk_widget_set_visible (GTK_WIDGET (self->model_entry), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->model_list), provider_id != NULL);
  if (provider_id == NULL)
    return;

  provider = natter_provider_registry_get_provider (natter_services_get_provider_registry (self->services),
                                                    provider_id, &error);
  if (provider == NULL)
    {
      show_model_entry (self, provider_id, error->message);
      return;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->model_list), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->model_list), _("Loading models…"));
  listing = g_new0 (Listing, 1);
  listing->self = g_object_ref (self);
  listing->provider_id = g_strdup (provider_id);
  listing->cancellable = g_cancellable_new ();
  self->cancellable = g_object_ref (listing->cancellable);
  listing_changed (self, +1);
  natter_openai_provider_list_models_async (provider, listing->cancellable, models_listed_cb, listing);
}

static void
natter_agent_editor_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NatterAgentEditor *self = NATTER_AGENT_EDITOR (object);

  switch (prop_id)
    {
    case PROP_SERVICES: g_value_set_object (value, self->services); break;
    case PROP_AGENT_ID: g_value_set_string (value, self->agent_id); break;
    case PROP_LOADING: g_value_set_boolean (value, self->n_listing > 0); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_agent_editor_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NatterAgentEditor *self = NATTER_AGENT_EDITOR (object);

  switch (prop_id)
    {
    case PROP_SERVICES: self->services = g_value_dup_object (value); break;
    case PROP_AGENT_ID: self->agent_id = g_value_dup_string (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_agent_editor_dispose (GObject *object)
{
  NatterAgentEditor *self = NATTER_AGENT_EDITOR (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_AGENT_EDITOR);

  G_OBJECT_CLASS (natter_agent_editor_parent_class)->dispose (object);
}

static void
natter_agent_editor_finalize (GObject *object)
{
  NatterAgentEditor *self = NATTER_AGENT_EDITOR (object);

  g_clear_object (&self->services);
  g_clear_object (&self->cancellable);
  g_free (self->agent_id);
  g_free (self->stored_provider);
  g_free (self->stored_model);
  g_ptr_array_unref (self->provider_ids);
  g_ptr_array_unref (self->model_ids);
  g_hash_table_unref (self->tools);

  G_OBJECT_CLASS (natter_agent_editor_parent_class)->finalize (object);
}

static void
natter_agent_editor_class_init (NatterAgentEditorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = natter_agent_editor_get_property;
  object_class->set_property = natter_agent_editor_set_property;
  object_class->dispose = natter_agent_editor_dispose;
  object_class->finalize = natter_agent_editor_finalize;

  /** NatterAgentEditor:services: whose providers and tools it offers */
  properties[PROP_SERVICES] =
    g_param_spec_object ("services", NULL, NULL, NATTER_TYPE_SERVICES,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /** NatterAgentEditor:agent-id: (nullable): the agent edited; %NULL for a new one */
  properties[PROP_AGENT_ID] =
    g_param_spec_string ("agent-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /** NatterAgentEditor:loading: whether a provider's models are being listed */
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterAgentEditor::save:
   * @self: the editor
   *
   * The user asked to save the agent: natter_agent_editor_build_agent().
   */
  signals[SIGNAL_SAVE] = g_signal_new ("save", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterAgentEditor::back:
   * @self: the editor
   *
   * The user left the page without saving.
   */
  signals[SIGNAL_BACK] = g_signal_new ("back", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-agent-editor.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, window_title);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, save_button);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, name_row);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, prompt_view);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, model_group);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, provider_row);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, model_list);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, model_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentEditor, tools_group);
  gtk_widget_class_bind_template_callback (widget_class, back_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, save_clicked_cb);
}

static void
natter_agent_editor_init (NatterAgentEditor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_combo_row_show_whole_names (self->provider_row);
  natter_combo_row_show_whole_names (self->model_list);
  self->provider_ids = g_ptr_array_new_with_free_func (g_free);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* Adds a row of the Tools group, from its template: @title and
 * @subtitle (plain text) beside a check, @active or not, found under
 * @key (taken) in self->tools. */
static void
add_check_row (NatterAgentEditor *self,
               char              *key,
               const char        *title,
               const char        *subtitle,
               gboolean           active)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-agent-editor-parts.ui");
  GtkWidget *row = GTK_WIDGET (gtk_builder_get_object (builder, "check_row"));
  GtkWidget *check = GTK_WIDGET (gtk_builder_get_object (builder, "check"));

  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), active);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  adw_preferences_group_add (self->tools_group, row);
  g_hash_table_replace (self->tools, key, check);
}

/* One check row per built-in tool, in their fixed order; a new agent
 * starts with all of them. */
static void
add_tool_rows (NatterAgentEditor *self,
               JsonObject        *agent)
{
  g_autoptr(JsonArray) descriptors = natter_builtin_tools_descriptors (natter_services_get_tools (self->services));
  JsonArray *tools = agent != NULL ? json_object_get_array_member (agent, "tools") : NULL;

  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (descriptors, i);
      const char *tool_id = json_object_get_string_member (descriptor, "toolId");
      gboolean active = agent == NULL;

      for (guint j = 0; tools != NULL && j < json_array_get_length (tools); j++)
        if (g_str_equal (json_array_get_string_element (tools, j), tool_id))
          active = TRUE;
      add_check_row (self, g_strdup (tool_id), natter_agent_tool_label (tool_id),
                     json_object_get_string_member (descriptor, "name"), active);
    }
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

/* The names of the tool servers a row is shown for: the enabled ones,
 * then any other the agent lists (so saving never drops it). */
static GPtrArray *
server_names (NatterAgentEditor *self,
              JsonArray         *listed)
{
  GPtrArray *clients = natter_mcp_manager_get_clients (natter_services_get_mcp_manager (self->services));
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < clients->len; i++)
    g_ptr_array_add (names, g_strdup (natter_mcp_client_get_config (g_ptr_array_index (clients, i))->name));
  for (guint i = 0; listed != NULL && i < json_array_get_length (listed); i++)
    if (!g_ptr_array_find_with_equal_func (names, json_array_get_string_element (listed, i), g_str_equal, NULL))
      g_ptr_array_add (names, g_strdup (json_array_get_string_element (listed, i)));
  return names;
}

/* One check row per tool server: the agent offers all its tools. */
static void
add_server_rows (NatterAgentEditor *self,
                 JsonObject        *agent)
{
  JsonArray *listed = agent != NULL && json_object_has_member (agent, "toolServers")
    ? json_object_get_array_member (agent, "toolServers") : NULL;
  g_autoptr(GPtrArray) names = server_names (self, listed);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *title = g_strdup_printf (_("Tool server “%s”"), name);
      gboolean active = FALSE;

      for (guint j = 0; listed != NULL && j < json_array_get_length (listed); j++)
        if (g_str_equal (json_array_get_string_element (listed, j), name))
          active = TRUE;
      add_check_row (self, g_strconcat ("server:", name, NULL), title,
                     _("All its tools; every call asks first"), active);
    }
}

/**
 * natter_agent_editor_new:
 * @services: whose providers (to list their models) and built-in tools
 *   it offers
 * @agent: (nullable): the agent to edit, as natter_agent_store_load()
 *   gives it; %NULL for a new agent (every tool on)
 * @provider_ids: the providers to offer after "Default Model"
 * @provider_names: their names, as many as @provider_ids
 *
 * Returns: (transfer floating): the page, listing the models of the
 *   agent's provider (#NatterAgentEditor:loading meanwhile)
 */
NatterAgentEditor *
natter_agent_editor_new (NatterServices     *services,
                         JsonObject         *agent,
                         const char * const *provider_ids,
                         const char * const *provider_names)
{
  g_autoptr(GtkStringList) providers = gtk_string_list_new (NULL);
  NatterAgentEditor *self;
  JsonObject *model;
  guint selected_provider = 0;

  g_return_val_if_fail (NATTER_IS_SERVICES (services), NULL);
  g_return_val_if_fail (g_strv_length ((char **) provider_ids) == g_strv_length ((char **) provider_names), NULL);

  self = g_object_new (NATTER_TYPE_AGENT_EDITOR,
                       "services", services,
                       "agent-id", agent != NULL ? json_object_get_string_member (agent, "agentId") : NULL,
                       NULL);
  model = agent != NULL && json_object_has_member (agent, "model")
          ? json_object_get_object_member (agent, "model") : NULL;
  adw_window_title_set_title (self->window_title, agent != NULL ? _("Edit Agent") : _("New Agent"));
  if (agent != NULL)
    {
      gtk_editable_set_text (GTK_EDITABLE (self->name_row), json_object_get_string_member (agent, "name"));
      gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->prompt_view),
                                json_object_get_string_member (agent, "systemPrompt"), -1);
    }

  gtk_string_list_append (providers, _("Default Model"));
  for (guint i = 0; provider_ids[i] != NULL; i++)
    {
      gtk_string_list_append (providers, provider_names[i]);
      g_ptr_array_add (self->provider_ids, g_strdup (provider_ids[i]));
      if (model != NULL && g_str_equal (json_object_get_string_member (model, "provider"), provider_ids[i]))
        selected_provider = i + 1;
    }
  self->stored_provider = model != NULL ? g_strdup (json_object_get_string_member (model, "provider")) : NULL;
  self->stored_model = model != NULL ? g_strdup (json_object_get_string_member (model, "model")) : NULL;
  adw_combo_row_set_model (self->provider_row, G_LIST_MODEL (providers));
  adw_combo_row_set_selected (self->provider_row, selected_provider);
  g_signal_connect_swapped (self->provider_row, "notify::selected", G_CALLBACK (provider_selected_cb), self);
  provider_selected_cb (self);

  add_tool_rows (self, agent);
  add_server_rows (self, agent);
  return self;
}

/**
 * natter_agent_editor_get_agent_id:
 * @self: the editor
 *
 * Returns: (transfer none) (nullable): the agent edited; %NULL for a new
 *   one
 */
const char *
natter_agent_editor_get_agent_id (NatterAgentEditor *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_EDITOR (self), NULL);
  return self->agent_id;
}

/**
 * natter_agent_editor_get_loading:
 * @self: the editor
 *
 * Returns: #NatterAgentEditor:loading
 */
gboolean
natter_agent_editor_get_loading (NatterAgentEditor *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_EDITOR (self), FALSE);
  return self->n_listing > 0;
}

/**
 * natter_agent_editor_build_agent:
 * @self: the editor
 * @error: return location for a #GError
 *
 * The agent the page describes, for natter_agent_store_save(): the
 * edited agent's id, or a new one made from the name; a `model` only
 * when a provider and a model are chosen; the checked tools in the
 * built-in tools' order.
 *
 * Returns: (transfer full): the agent; or %NULL with
 *   %G_IO_ERROR_INVALID_ARGUMENT when the name is blank
 */
JsonObject *
natter_agent_editor_build_agent (NatterAgentEditor  *self,
                                 GError            **error)
{
  NatterAgentStore *store;
  g_autofree char *name = NULL;
  g_autofree char *model_name = NULL;
  g_autofree char *prompt = NULL;
  g_autofree char *agent_id = NULL;
  g_autoptr(JsonArray) descriptors = NULL;
  JsonObject *agent;
  JsonArray *tools;
  GtkTextIter start, end;
  const char *provider_id;

  g_return_val_if_fail (NATTER_IS_AGENT_EDITOR (self), NULL);

  name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->name_row))));
  if (name[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("An agent needs a name"));
      return NULL;
    }
  store = natter_services_get_agent_store (self->services);
  model_name = dup_model_name (self);
  gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (self->prompt_view), &start, &end);
  prompt = gtk_text_buffer_get_text (gtk_text_view_get_buffer (self->prompt_view), &start, &end, FALSE);
  agent_id = self->agent_id != NULL ? g_strdup (self->agent_id) : natter_agent_store_make_id (store, name);

  agent = json_object_new ();
  json_object_set_string_member (agent, "agentId", agent_id);
  json_object_set_string_member (agent, "name", name);
  json_object_set_string_member (agent, "systemPrompt", prompt);
  provider_id = provider_at (self, adw_combo_row_get_selected (self->provider_row));
  if (provider_id != NULL && model_name[0] != '\0')
    {
      JsonObject *model = json_object_new ();

      json_object_set_string_member (model, "provider", provider_id);
      json_object_set_string_member (model, "model", model_name);
      json_object_set_object_member (agent, "model", model);
    }
  tools = json_array_new ();
  descriptors = natter_builtin_tools_descriptors (natter_services_get_tools (self->services));
  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      const char *tool_id = json_object_get_string_member (json_array_get_object_element (descriptors, i), "toolId");
      GtkCheckButton *check = g_hash_table_lookup (self->tools, tool_id);

      if (check != NULL && gtk_check_button_get_active (check))
        json_array_add_string_element (tools, tool_id);
    }
  json_object_set_array_member (agent, "tools", tools);
  {
    GHashTableIter iter;
    gpointer key, value;
    g_autoptr(GPtrArray) servers = g_ptr_array_new ();

    g_hash_table_iter_init (&iter, self->tools);
    while (g_hash_table_iter_next (&iter, &key, &value))
      if (g_str_has_prefix (key, "server:") && gtk_check_button_get_active (value))
        g_ptr_array_add (servers, (char *) key + strlen ("server:"));
    g_ptr_array_sort (servers, compare_names);
    if (servers->len > 0)
      {
        JsonArray *names = json_array_new ();

        for (guint i = 0; i < servers->len; i++)
          json_array_add_string_element (names, g_ptr_array_index (servers, i));
        json_object_set_array_member (agent, "toolServers", names);
      }
  }
  return agent;
}

/**
 * natter_agent_editor_focus:
 * @self: the editor
 *
 * Puts the focus on the name, where editing starts.
 */
void
natter_agent_editor_focus (NatterAgentEditor *self)
{
  g_return_if_fail (NATTER_IS_AGENT_EDITOR (self));
  gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
}

/**
 * natter_agent_editor_get_part:
 * @self: the editor
 * @part: "name", "prompt" (GtkTextView), "model-provider", "model-list",
 *   "model-name" (the entry shown when models cannot be listed),
 *   "model-group", "save", "tool:<toolId>" or "server:<name>" (GtkCheckButton)
 *
 * For tests, which drive the page as a user would.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_agent_editor_get_part (NatterAgentEditor *self,
                              const char        *part)
{
  g_return_val_if_fail (NATTER_IS_AGENT_EDITOR (self), NULL);

  if (g_str_equal (part, "name"))
    return GTK_WIDGET (self->name_row);
  if (g_str_equal (part, "prompt"))
    return GTK_WIDGET (self->prompt_view);
  if (g_str_equal (part, "model-provider"))
    return GTK_WIDGET (self->provider_row);
  if (g_str_equal (part, "model-name"))
    return GTK_WIDGET (self->model_entry);
  if (g_str_equal (part, "model-list"))
    return GTK_WIDGET (self->model_list);
  if (g_str_equal (part, "model-group"))
    return GTK_WIDGET (self->model_group);
  if (g_str_equal (part, "save"))
    return self->save_button;
  if (g_str_has_prefix (part, "tool:"))
    return g_hash_table_lookup (self->tools, part + strlen ("tool:"));
  if (g_str_has_prefix (part, "server:"))
    return g_hash_table_lookup (self->tools, part);
  g_return_val_if_reached (NULL);
}
