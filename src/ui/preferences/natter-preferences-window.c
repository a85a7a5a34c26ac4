/* natter-preferences-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Preferences. The window holds the General page itself (the default
 * model, the model-call limit, automatic permission classification,
 * titles and compaction, the context window, the data folder) and owns
 * the other pages: Providers (NatterProvidersPage), Agents
 * (NatterAgentsPage), Tool Servers (NatterMcpPage) and Sync
 * (NatterSyncPage).
 *
 * Everything is applied at once, as GNOME preferences are: settings go
 * through NatterSettings (bound where a property maps one to one). The
 * window gives each page the services it edits and calls down into it;
 * a page never calls the window: it hands its toasts up with
 * ::add-toast, which the window shows (remembering the last, for tests),
 * and the Providers page says with ::key-stored that the default
 * provider's models may be listed now. A toast's button reaches the
 * window through its actions (`preferences.show-default-model`). Tests
 * wait until no page has work under way
 * (natter_preferences_window_get_n_pending()).
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-combo-row-labels.h"
#include "natter-preferences-window-private.h"

G_DEFINE_FINAL_TYPE (NatterPreferencesWindow, natter_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* Toasts: the pages build them (natter-preferences-toast.c) and hand
 * them up with ::add-toast. */

static void
add_toast_cb (NatterPreferencesWindow *self,
              AdwToast                *toast)
{
  g_free (self->last_toast);
  self->last_toast = g_strdup (natter_preferences_toast_get_text (toast));
  if (adw_toast_get_button_label (toast) != NULL)
    g_set_weak_pointer (&self->undo_toast, toast);
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), g_object_ref (toast));
}

/* The overlay libadwaita shows the window's toasts on, inside its own
 * template, or NULL. */
static GtkWidget *
find_toast_overlay (GtkWidget *root)
{
  if (ADW_IS_TOAST_OVERLAY (root))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_toast_overlay (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Pending async work: each holds a reference on the window; tests wait
 * for the count (with the pages' own) to drop to zero. */

static NatterPreferencesWindow *
pending_begin (NatterPreferencesWindow *self)
{
  self->n_pending++;
  return g_object_ref (self);
}

static gboolean
pending_end (NatterPreferencesWindow *self)
{
  g_assert (self->n_pending > 0);
  self->n_pending--;
  /* A closed window has nothing left to update. */
  return !g_cancellable_is_cancelled (self->cancellable);
}

/* The default model */

static void
rebuild_provider_combo (NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GtkStringList) list = NULL;
  guint selected;

  /* A default that is not in the list (removed, or the built-in
   * Ollama) is shown as itself rather than silently changed. */
  g_ptr_array_set_size (self->provider_ids, 0);
  selected = natter_provider_choices_collect (self->settings, self->provider_ids, names);
  g_ptr_array_add (names, NULL);
  list = gtk_string_list_new ((const char * const *) names->pdata);

  self->updating_combos = TRUE;
  adw_combo_row_set_model (self->provider_row, G_LIST_MODEL (list));
  adw_combo_row_set_selected (self->provider_row, selected);
  self->updating_combos = FALSE;
}

static void
set_models (NatterPreferencesWindow  *self,
            const char * const       *models,
            const char               *problem)
{
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autofree char *current = g_strdup (natter_settings_get_default_model (self->settings));
  guint selected = 0;

  g_ptr_array_set_size (self->model_ids, 0);
  gtk_string_list_append (names, _("The Provider’s First Model"));
  g_ptr_array_add (self->model_ids, g_strdup (""));
  for (guint i = 0; models != NULL && models[i] != NULL; i++)
    {
      gtk_string_list_append (names, models[i]);
      g_ptr_array_add (self->model_ids, g_strdup (models[i]));
      if (g_str_equal (models[i], current))
        selected = self->model_ids->len - 1;
    }
  if (selected == 0 && current[0] != '\0')
    {
      gtk_string_list_append (names, current);
      g_ptr_array_add (self->model_ids, g_strdup (current));
      selected = self->model_ids->len - 1;
    }

  self->updating_combos = TRUE;
  adw_combo_row_set_model (self->model_row, G_LIST_MODEL (names));
  adw_combo_row_set_selected (self->model_row, selected);
  self->updating_combos = FALSE;
  natter_preferences_window_sync_context_window (self);

  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->model_row), problem != NULL ? problem : "");
  if (problem != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->model_row), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->model_row), "error");
}

static void
models_listed_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(NatterPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  if (!pending_end (self) || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  gtk_spinner_stop (self->model_spinner);
  gtk_stack_set_visible_child_name (self->model_refresh_stack, "button");
  if (models == NULL)
    {
      g_autofree char *problem = g_strdup_printf (_("Could not list the models: %s"), error->message);

      set_models (self, NULL, problem);
      return;
    }
  set_models (self, (const char * const *) models, NULL);
}

static void
reload_models (NatterPreferencesWindow *self)
{
  g_autofree char *provider_id = natter_services_dup_default_provider (self->services);
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(GError) error = NULL;

  g_cancellable_cancel (self->models_cancellable);
  g_clear_object (&self->models_cancellable);

  provider = natter_provider_registry_get_provider (natter_services_get_provider_registry (self->services),
                                                    provider_id, &error);
  if (provider == NULL)
    {
      g_autofree char *problem = g_strdup_printf (_("Could not list the models: %s"), error->message);

      set_models (self, NULL, problem);
      return;
    }

  self->models_cancellable = g_cancellable_new ();
  gtk_stack_set_visible_child_name (self->model_refresh_stack, "spinner");
  gtk_spinner_start (self->model_spinner);
  natter_openai_provider_list_models_async (provider, self->models_cancellable, models_listed_cb,
                                            pending_begin (self));
}

static void
model_refresh_clicked_cb (NatterPreferencesWindow *self)
{
  reload_models (self);
}

static void
provider_selected_cb (NatterPreferencesWindow *self)
{
  guint selected = adw_combo_row_get_selected (self->provider_row);
  g_autofree char *current = NULL;
  const char *id;

  if (self->updating_combos || selected >= self->provider_ids->len)
    return;
  id = g_ptr_array_index (self->provider_ids, selected);
  current = g_strdup (natter_settings_get_default_provider (self->settings));
  if (g_str_equal (current, id))
    return;
  /* Model names belong to a provider: a new provider starts from its
   * first model until one is picked. */
  natter_settings_set_default_model (self->settings, "");
  natter_settings_set_default_provider (self->settings, id);
}

static void
model_selected_cb (NatterPreferencesWindow *self)
{
  guint selected = adw_combo_row_get_selected (self->model_row);

  if (self->updating_combos || selected >= self->model_ids->len)
    return;
  natter_settings_set_default_model (self->settings, g_ptr_array_index (self->model_ids, selected));
}

/* The settings changed, here or elsewhere */

static void
providers_changed_cb (NatterPreferencesWindow *self)
{
  rebuild_provider_combo (self);
  reload_models (self);
}

static void
default_provider_changed_cb (NatterPreferencesWindow *self)
{
  g_autofree char *current = natter_settings_dup_effective_provider (self->settings);
  guint index;

  /* Usually the combo itself wrote it: keep its model (replacing it
   * inside its own notify would free it under its feet). */
  if (g_ptr_array_find_with_equal_func (self->provider_ids, current, g_str_equal, &index))
    {
      self->updating_combos = TRUE;
      adw_combo_row_set_selected (self->provider_row, index);
      self->updating_combos = FALSE;
    }
  else
    {
      rebuild_provider_combo (self);
    }
  reload_models (self);
}

static void
default_model_changed_cb (NatterPreferencesWindow *self)
{
  const char *current = natter_settings_get_default_model (self->settings);
  guint selected = adw_combo_row_get_selected (self->model_row);

  if (selected >= self->model_ids->len ||
      !g_str_equal (g_ptr_array_index (self->model_ids, selected), current))
    reload_models (self);
}

/* The default model's rows, where a toast that says which provider new
 * chats use lets the person choose another. */
static void
show_default_model_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterPreferencesWindow *self = NATTER_PREFERENCES_WINDOW (widget);

  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (self), "general");
  gtk_widget_grab_focus (GTK_WIDGET (self->provider_row));
}

/* A key was stored: the default provider may list models now. */
static void
key_stored_cb (NatterPreferencesWindow *self)
{
  reload_models (self);
}

/* The data folder */

static void
open_data_dir_clicked_cb (NatterPreferencesWindow *self)
{
  GFile *dir = natter_services_get_data_dir (self->services);
  g_autofree char *uri = g_file_get_uri (dir);

  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

/* GObject */

static void
natter_preferences_window_dispose (GObject *object)
{
  NatterPreferencesWindow *self = NATTER_PREFERENCES_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->models_cancellable);
  if (self->settings != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->settings, self);
      g_signal_handlers_disconnect_by_data (natter_settings_get_gsettings (self->settings), self);
    }
  g_clear_weak_pointer (&self->undo_toast);
  g_clear_weak_pointer (&self->mcp_page);
  g_clear_weak_pointer (&self->sync_page);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_PREFERENCES_WINDOW);

  G_OBJECT_CLASS (natter_preferences_window_parent_class)->dispose (object);
}

static void
natter_preferences_window_finalize (GObject *object)
{
  NatterPreferencesWindow *self = NATTER_PREFERENCES_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->models_cancellable);
  g_clear_object (&self->settings);
  g_clear_object (&self->services);
  g_clear_pointer (&self->provider_ids, g_ptr_array_unref);
  g_clear_pointer (&self->model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->last_toast, g_free);

  G_OBJECT_CLASS (natter_preferences_window_parent_class)->finalize (object);
}

static void
natter_preferences_window_class_init (NatterPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_preferences_window_dispose;
  object_class->finalize = natter_preferences_window_finalize;

  g_type_ensure (NATTER_TYPE_PROVIDERS_PAGE);
  g_type_ensure (NATTER_TYPE_AGENTS_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/natter/Natter/ui/natter-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, providers_page);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, provider_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_refresh_stack);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, max_calls_spin);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, auto_permission_switch);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, auto_title_switch);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, auto_compact_switch);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, data_dir_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, agents_page);
  gtk_widget_class_bind_template_callback (widget_class, model_refresh_clicked_cb);
  gtk_widget_class_install_action (widget_class, "preferences.show-default-model", NULL,
                                   show_default_model_activated);
  gtk_widget_class_bind_template_callback (widget_class, open_data_dir_clicked_cb);
}

static void
natter_preferences_window_init (NatterPreferencesWindow *self)
{
  GtkWidget *toast_overlay;

  gtk_widget_init_template (GTK_WIDGET (self));
  natter_combo_row_show_whole_names (self->provider_row);
  natter_combo_row_show_whole_names (self->model_row);
  /* An Undo toast's button, made by libadwaita, is named as it shows,
   * as the main window's are. */
  toast_overlay = find_toast_overlay (GTK_WIDGET (self));
  if (toast_overlay != NULL)
    natter_accessible_plain_mnemonics_follow (toast_overlay);

  self->cancellable = g_cancellable_new ();
  self->provider_ids = g_ptr_array_new_with_free_func (g_free);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
}

/**
 * natter_preferences_window_new:
 * @parent: (nullable): the window it is transient for
 * @services: the services whose settings, keys and agents it edits;
 *   their settings must exist (the schema installed)
 *
 * Creates the Preferences window: pages "Providers", "General",
 * "Agents", "Tool Servers" and "Sync". Changes apply at once: providers and the
 * default model through the `io.github.natter.Natter` settings (which
 * the services follow live), API keys through
 * natter_services_get_secret_store(), agents through
 * natter_services_get_agent_store().
 *
 * Returns: (transfer full): the window, not yet presented
 */
NatterPreferencesWindow *
natter_preferences_window_new (GtkWindow      *parent,
                               NatterServices *services)
{
  NatterPreferencesWindow *self;
  g_autofree char *data_dir = NULL;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (NATTER_IS_SERVICES (services), NULL);
  g_return_val_if_fail (natter_settings_get_gsettings (natter_services_get_settings (services)) != NULL, NULL);

  self = g_object_new (NATTER_TYPE_PREFERENCES_WINDOW,
                       "transient-for", parent,
                       NULL);
  self->services = g_object_ref (services);
  self->settings = g_object_ref (natter_services_get_settings (services));

  /* The adjustment's double and the setting's uint convert both ways;
   * the adjustment's bounds are the key's range. */
  g_object_bind_property (self->settings, "max-model-calls",
                          gtk_spin_button_get_adjustment (self->max_calls_spin), "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->settings, "auto-permission", self->auto_permission_switch, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->settings, "auto-title", self->auto_title_switch, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  g_object_bind_property (self->settings, "auto-compact", self->auto_compact_switch, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

  natter_preferences_window_add_context_window_row (self);

  data_dir = g_file_get_path (natter_services_get_data_dir (services));
  adw_action_row_set_subtitle (self->data_dir_row, data_dir);

  /* Each page gets what it edits, and reports back through signals. */
  natter_providers_page_set_services (self->providers_page, services);
  g_signal_connect_object (self->providers_page, "add-toast", G_CALLBACK (add_toast_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->providers_page, "key-stored", G_CALLBACK (key_stored_cb), self, G_CONNECT_SWAPPED);

  rebuild_provider_combo (self);
  set_models (self, NULL, NULL);
  reload_models (self);
  natter_agents_page_set_services (self->agents_page, services);
  g_signal_connect_object (self->agents_page, "add-toast", G_CALLBACK (add_toast_cb), self, G_CONNECT_SWAPPED);
  g_set_weak_pointer (&self->mcp_page, natter_mcp_page_new (services));
  g_signal_connect_object (self->mcp_page, "add-toast", G_CALLBACK (add_toast_cb), self, G_CONNECT_SWAPPED);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), ADW_PREFERENCES_PAGE (self->mcp_page));
  g_set_weak_pointer (&self->sync_page, natter_sync_page_new (services));
  g_signal_connect_object (self->sync_page, "add-toast", G_CALLBACK (add_toast_cb), self, G_CONNECT_SWAPPED);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), ADW_PREFERENCES_PAGE (self->sync_page));

  g_signal_connect_swapped (self->provider_row, "notify::selected", G_CALLBACK (provider_selected_cb), self);
  g_signal_connect_swapped (self->model_row, "notify::selected", G_CALLBACK (model_selected_cb), self);
  g_signal_connect_swapped (self->settings, "notify::providers", G_CALLBACK (providers_changed_cb), self);
  g_signal_connect_swapped (self->settings, "notify::default-provider",
                            G_CALLBACK (default_provider_changed_cb), self);
  g_signal_connect_swapped (self->settings, "notify::default-model", G_CALLBACK (default_model_changed_cb), self);
  return self;
}

/**
 * natter_preferences_window_get_services:
 * @self: the window
 *
 * Returns: (transfer none): the services it edits
 */
NatterServices *
natter_preferences_window_get_services (NatterPreferencesWindow *self)
{
  g_return_val_if_fail (NATTER_IS_PREFERENCES_WINDOW (self), NULL);
  return self->services;
}

/* For tests (natter-preferences-window-private.h) */

/**
 * natter_preferences_window_rebuild_mcp:
 * @self: the window
 *
 * Shows the servers of mcp.json again, with their current states.
 */
void
natter_preferences_window_rebuild_mcp (NatterPreferencesWindow *self)
{
  if (self->mcp_page != NULL)
    natter_mcp_page_rebuild (self->mcp_page);
}

GtkWidget *
natter_preferences_window_get_mcp_widget (NatterPreferencesWindow *self,
                                          const char              *server,
                                          const char              *field)
{
  return natter_mcp_page_get_widget (self->mcp_page, server, field);
}

NatterProviderRow *
natter_preferences_window_get_provider_row (NatterPreferencesWindow *self,
                                            const char              *provider_id)
{
  return natter_providers_page_get_row (self->providers_page, provider_id);
}

GtkWidget *
natter_preferences_window_get_provider_widget (NatterPreferencesWindow *self,
                                               const char              *provider_id,
                                               const char              *field)
{
  NatterProviderRow *row = natter_preferences_window_get_provider_row (self, provider_id);

  if (row == NULL)
    return NULL;
  if (g_str_equal (field, "expander"))
    return GTK_WIDGET (row);
  return natter_provider_row_get_part (row, field);
}

gboolean
natter_preferences_window_get_key_stored (NatterPreferencesWindow *self,
                                          const char              *provider_id)
{
  NatterProviderRow *row = natter_preferences_window_get_provider_row (self, provider_id);

  return row != NULL && natter_provider_row_get_key_stored (row);
}

GtkWidget *
natter_preferences_window_get_widget (NatterPreferencesWindow *self,
                                      const char              *name)
{
  if (g_str_equal (name, "provider"))
    return GTK_WIDGET (self->provider_row);
  if (g_str_equal (name, "model"))
    return GTK_WIDGET (self->model_row);
  if (g_str_equal (name, "max-calls"))
    return GTK_WIDGET (self->max_calls_spin);
  if (g_str_equal (name, "auto-permission"))
    return GTK_WIDGET (self->auto_permission_switch);
  if (g_str_equal (name, "auto-title"))
    return GTK_WIDGET (self->auto_title_switch);
  if (g_str_equal (name, "auto-compact"))
    return GTK_WIDGET (self->auto_compact_switch);
  if (g_str_equal (name, "context-window"))
    return GTK_WIDGET (self->context_window_spin);
  if (g_str_equal (name, "context-window-row"))
    return GTK_WIDGET (self->context_window_row);
  if (g_str_equal (name, "data-dir"))
    return GTK_WIDGET (self->data_dir_row);
  if (g_str_equal (name, "add-provider"))
    return natter_providers_page_get_add_row (self->providers_page);
  if (g_str_equal (name, "add-agent") || g_str_equal (name, "assistant"))
    return natter_agents_page_get_part (self->agents_page, name);
  g_return_val_if_reached (NULL);
}

const char *
natter_preferences_window_get_last_toast (NatterPreferencesWindow *self)
{
  return self->last_toast;
}

AdwToast *
natter_preferences_window_get_undo_toast (NatterPreferencesWindow *self)
{
  return self->undo_toast;
}

guint
natter_preferences_window_get_n_pending (NatterPreferencesWindow *self)
{
  return self->n_pending + natter_providers_page_get_n_pending (self->providers_page) +
         natter_agents_page_get_n_pending (self->agents_page) +
         (self->mcp_page != NULL ? natter_mcp_page_get_n_pending (self->mcp_page) : 0) +
         (self->sync_page != NULL ? natter_sync_page_get_n_pending (self->sync_page) : 0);
}

GtkWidget *
natter_preferences_window_get_agent_widget (NatterPreferencesWindow *self,
                                            const char              *agent_id,
                                            const char              *field)
{
  NatterAgentRow *row = natter_agents_page_get_row (self->agents_page, agent_id);

  if (row == NULL)
    return NULL;
  if (g_str_equal (field, "row"))
    return GTK_WIDGET (row);
  return natter_agent_row_get_part (row, field);
}

GtkWidget *
natter_preferences_window_get_editor_widget (NatterPreferencesWindow *self,
                                             const char              *field)
{
  NatterAgentEditor *editor = natter_agents_page_get_editor (self->agents_page);

  if (editor == NULL)
    return NULL;
  return natter_agent_editor_get_part (editor, field);
}

/**
 * natter_preferences_window_get_sync_widget:
 * @self: the window
 * @name: a widget of the Sync page (natter_sync_page_get_widget())
 *
 * For tests.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_preferences_window_get_sync_widget (NatterPreferencesWindow *self,
                                           const char              *name)
{
  g_return_val_if_fail (NATTER_IS_PREFERENCES_WINDOW (self), NULL);
  return self->sync_page != NULL ? natter_sync_page_get_widget (self->sync_page, name) : NULL;
}

/**
 * natter_preferences_window_get_sync_page:
 * @self: the window
 *
 * For tests.
 *
 * Returns: (transfer none) (nullable): the Sync page
 */
NatterSyncPage *
natter_preferences_window_get_sync_page (NatterPreferencesWindow *self)
{
  g_return_val_if_fail (NATTER_IS_PREFERENCES_WINDOW (self), NULL);
  return self->sync_page;
}
