/* natter-preferences-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Preferences (issue 7): the model providers (name, base URL, API key in
 * the keyring, a connection test), the default model, the model-call
 * limit, automatic permission classification, the data folder, and the
 * agents (the built-in Assistant, read only, and the user's own, stored
 * as files in the config folder).
 *
 * Everything is applied at once, as GNOME preferences are: settings go
 * through GSettings (bound where a property maps one to one), keys
 * through the services' NatterSecretStore, agents through the
 * NatterAgentStore. The window never shows a stored key: only whether
 * one is stored. Each provider and agent is a row of its own
 * (NatterProviderRow, NatterAgentRow) and the agent editor a subpage
 * (NatterAgentEditor); they say what the user asked for through signals,
 * and this window answers with the settings, the keyring and the agent
 * store.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-editor.h"
#include "natter-agent-row.h"
#include "natter-builtin-tools.h"
#include "natter-preferences-window-private.h"
#include "natter-provider-row.h"

/* A connection test or model list waits at most this long for a server. */
#define TEST_TIMEOUT_SECONDS 15

struct _NatterPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  NatterServices       *services;
  NatterSettings       *settings;
  GCancellable         *cancellable;
  GCancellable         *models_cancellable;

  /* Template widgets */
  AdwPreferencesGroup  *providers_group;
  AdwActionRow         *add_provider_row;
  AdwComboRow          *provider_row;
  AdwComboRow          *model_row;
  GtkStack             *model_refresh_stack;
  GtkSpinner           *model_spinner;
  GtkSpinButton        *max_calls_spin;
  GtkSwitch            *auto_permission_switch;
  AdwActionRow         *data_dir_row;
  AdwExpanderRow       *assistant_row;
  AdwPreferencesGroup  *agents_group;
  AdwActionRow         *add_agent_row;

  GHashTable           *provider_rows;   /* id → NatterProviderRow */
  GPtrArray            *provider_widgets; /* NatterProviderRow, in order */
  GPtrArray            *provider_ids;    /* of the provider combo */
  GPtrArray            *model_ids;       /* of the model combo; [0] = "" */
  GHashTable           *agent_rows;      /* id → NatterAgentRow */
  GPtrArray            *agent_widgets;

  NatterAgentEditor    *editor;          /* the open subpage, or NULL */

  char                 *last_toast;
  AdwToast             *undo_toast;      /* weak */
  guint                 n_pending;
  gboolean              writing_providers;
  gboolean              updating_combos;
};

G_DEFINE_FINAL_TYPE (NatterPreferencesWindow, natter_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static void rebuild_providers      (NatterPreferencesWindow *self);
static void rebuild_provider_combo (NatterPreferencesWindow *self);
static void reload_models          (NatterPreferencesWindow *self);
static void rebuild_agents         (NatterPreferencesWindow *self);

/* Toasts */

static AdwToast *
show_toast (NatterPreferencesWindow *self,
            const char              *title)
{
  /* Toast titles are markup in libadwaita 1.2; user text (names,
   * server messages) is not. */
  g_autofree char *escaped = g_markup_escape_text (title, -1);
  AdwToast *toast = adw_toast_new (escaped);

  g_free (self->last_toast);
  self->last_toast = g_strdup (title);
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), toast);
  return toast;
}

static AdwToast *
show_undo_toast (NatterPreferencesWindow *self,
                 const char              *title)
{
  AdwToast *toast = show_toast (self, title);

  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_set_weak_pointer (&self->undo_toast, toast);
  return toast;
}

/* Pending async work: each holds a reference on the window; tests wait
 * for the count to drop to zero. */

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

/* The providers setting: a(sss) of (id, name, base URL) */

static AdwToast *show_toast (NatterPreferencesWindow *self,
                             const char              *title);

static GPtrArray *
read_providers (NatterPreferencesWindow *self)
{
  return natter_settings_dup_providers (self->settings);
}

/* Stores @providers; a list the settings refuse is said in a toast. */
static gboolean
write_providers (NatterPreferencesWindow *self,
                 GPtrArray               *providers)
{
  g_autoptr(GError) error = NULL;
  gboolean stored;

  self->writing_providers = TRUE;
  stored = natter_settings_set_providers (self->settings, providers, &error);
  self->writing_providers = FALSE;
  if (!stored)
    show_toast (self, error->message);
  return stored;
}

static int
find_provider (GPtrArray  *providers,
               const char *id)
{
  for (guint i = 0; i < providers->len; i++)
    if (g_str_equal (((NatterProviderConfig *) g_ptr_array_index (providers, i))->id, id))
      return (int) i;
  return -1;
}

/* Updates one field (1 = name, 2 = URL) of provider @id. */
static void
update_provider (NatterPreferencesWindow *self,
                 const char              *id,
                 guint                    field,
                 const char              *value)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  int index = find_provider (providers, id);
  NatterProviderConfig *entry;
  char **slot;

  if (index < 0)
    return;
  entry = g_ptr_array_index (providers, index);
  slot = field == 1 ? &entry->name : &entry->base_url;
  if (g_str_equal (*slot, value))
    return;
  g_free (*slot);
  *slot = g_strdup (value);
  write_providers (self, providers);
}

static NatterProviderRow *
row_for (NatterPreferencesWindow *self,
         const char              *id)
{
  return g_hash_table_lookup (self->provider_rows, id);
}

static void
apply_name_cb (NatterProviderRow       *row,
               const char              *name,
               NatterPreferencesWindow *self)
{
  if (name[0] == '\0')
    {
      show_toast (self, _("A provider needs a name"));
      return;
    }
  update_provider (self, natter_provider_row_get_provider_id (row), 1, name);
  natter_provider_row_set_name (row, name);
  rebuild_provider_combo (self);
}

static void
apply_url_cb (NatterProviderRow       *row,
              const char              *url,
              NatterPreferencesWindow *self)
{
  if (!natter_provider_base_url_is_valid (url))
    {
      show_toast (self, _("The base URL must start with http:// or https://"));
      return;
    }
  update_provider (self, natter_provider_row_get_provider_id (row), 2, url);
  natter_provider_row_set_base_url (row, url);
}

/* API keys: each operation carries the window (one pending reference)
 * and the provider id; rows may have been rebuilt when it completes. */

typedef struct
{
  NatterPreferencesWindow *self;
  char                    *id;
} SecretOp;

static SecretOp *
secret_op_new (NatterPreferencesWindow *self,
               const char              *id)
{
  SecretOp *op = g_new0 (SecretOp, 1);

  op->self = pending_begin (self);
  op->id = g_strdup (id);
  return op;
}

static void
secret_op_free (SecretOp *op)
{
  g_object_unref (op->self);
  g_free (op->id);
  g_free (op);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SecretOp, secret_op_free)

static void
key_stored_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SecretOp) op = user_data;
  NatterPreferencesWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  NatterProviderRow *row;

  natter_secret_store_store_finish (NATTER_SECRET_STORE (object), result, &error);
  if (!pending_end (self))
    return;
  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not store the API key: %s"), error->message);

      show_toast (self, message);
      return;
    }
  if ((row = row_for (self, op->id)) != NULL)
    {
      natter_provider_row_clear_entered_key (row);
      natter_provider_row_set_key_stored (row, TRUE);
    }
  show_toast (self, _("API key stored in the keyring"));
  reload_models (self);
}

static void
apply_key_cb (NatterProviderRow       *row,
              const char              *key,
              NatterPreferencesWindow *self)
{
  const char *id = natter_provider_row_get_provider_id (row);

  natter_secret_store_store_async (natter_services_get_secret_store (self->services), id, key,
                                   self->cancellable, key_stored_cb, secret_op_new (self, id));
}

static void
key_looked_up_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SecretOp) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  NatterProviderRow *row;

  key = natter_secret_store_lookup_finish (NATTER_SECRET_STORE (object), result, &error);
  if (pending_end (op->self) && (row = row_for (op->self, op->id)) != NULL)
    natter_provider_row_set_key_stored (row, key != NULL);
  if (key != NULL)
    memset (key, 0, strlen (key));
}

static void
key_cleared_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(SecretOp) op = user_data;
  NatterPreferencesWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  NatterProviderRow *row;

  natter_secret_store_clear_finish (NATTER_SECRET_STORE (object), result, &error);
  if (!pending_end (self))
    return;
  if (error != NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Could not remove the API key: %s"), error->message);

      show_toast (self, message);
      return;
    }
  if ((row = row_for (self, op->id)) != NULL)
    natter_provider_row_set_key_stored (row, FALSE);
  show_toast (self, _("API key removed from the keyring"));
}

static void
forget_key_cb (NatterProviderRow       *row,
               NatterPreferencesWindow *self)
{
  const char *id = natter_provider_row_get_provider_id (row);

  natter_secret_store_clear_async (natter_services_get_secret_store (self->services), id,
                                   self->cancellable, key_cleared_cb, secret_op_new (self, id));
}

/* The connection test: GET {baseUrl}/models with the typed key, else
 * the stored one. */

typedef struct
{
  NatterPreferencesWindow *self;
  char                    *id;
  char                    *name;
  char                    *url;
} TestOp;

static void
test_op_free (TestOp *op)
{
  g_object_unref (op->self);
  g_free (op->id);
  g_free (op->name);
  g_free (op->url);
  g_free (op);
}

static void
test_listed_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  TestOp *op = user_data;
  NatterPreferencesWindow *self = op->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;
  NatterProviderRow *row;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  if (pending_end (self))
    {
      guint n = models != NULL ? g_strv_length (models) : 0;

      if ((row = row_for (self, op->id)) != NULL)
        natter_provider_row_set_testing (row, FALSE);
      if (models == NULL)
        {
          show_toast (self, error->message);
        }
      else
        {
          g_autofree char *message = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected: %u model",
                                                                   "Connected: %u models", n), n);

          show_toast (self, message);
        }
    }
  test_op_free (op);
}

static void
test_run (TestOp     *op,
          const char *key)
{
  g_autoptr(NatterOpenaiProvider) provider = NULL;

  provider = natter_openai_provider_new (op->id, op->name, op->url, key, TEST_TIMEOUT_SECONDS, 0);
  natter_openai_provider_list_models_async (provider, op->self->cancellable, test_listed_cb, op);
}

static void
test_key_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  TestOp *op = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;

  /* No key (or no keyring) still tests the connection: many local
   * servers need none. */
  key = natter_secret_store_lookup_finish (NATTER_SECRET_STORE (object), result, &error);
  test_run (op, key);
  if (key != NULL)
    memset (key, 0, strlen (key));
}

static void
test_cb (NatterProviderRow       *row,
         NatterPreferencesWindow *self)
{
  const char *typed = natter_provider_row_get_entered_key (row);
  g_autofree char *url = natter_provider_row_dup_entered_url (row);
  TestOp *op;

  if (!natter_provider_base_url_is_valid (url))
    {
      show_toast (self, _("The base URL must start with http:// or https://"));
      return;
    }
  op = g_new0 (TestOp, 1);
  op->self = pending_begin (self);
  op->id = g_strdup (natter_provider_row_get_provider_id (row));
  op->name = g_strdup (natter_provider_row_get_entered_name (row));
  op->url = g_steal_pointer (&url);
  natter_provider_row_set_testing (row, TRUE);
  if (typed[0] != '\0')
    test_run (op, typed);
  else
    natter_secret_store_lookup_async (natter_services_get_secret_store (self->services), op->id,
                                      self->cancellable, test_key_cb, op);
}

/* Removing (with undo) and adding providers */

typedef struct
{
  NatterPreferencesWindow *self;  /* weak */
  guint                    index;
  NatterProviderConfig    *entry;
  gboolean                 undone;
} RemovedProvider;

static void
removed_provider_free (gpointer data)
{
  RemovedProvider *removed = data;

  g_clear_weak_pointer (&removed->self);
  natter_provider_config_free (removed->entry);
  g_free (removed);
}

static void
undo_remove_cb (AdwToast        *toast,
                RemovedProvider *removed)
{
  NatterPreferencesWindow *self = removed->self;
  g_autoptr(GPtrArray) providers = NULL;

  if (self == NULL || removed->undone)
    return;
  removed->undone = TRUE;
  providers = read_providers (self);
  if (find_provider (providers, removed->entry->id) < 0)
    g_ptr_array_insert (providers, MIN (removed->index, providers->len),
                        natter_provider_config_copy (removed->entry));
  write_providers (self, providers);
  rebuild_providers (self);
  rebuild_provider_combo (self);
}

static void
remove_cb (NatterProviderRow       *row,
           NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  int index = find_provider (providers, natter_provider_row_get_provider_id (row));
  g_autofree char *title = NULL;
  RemovedProvider *removed;
  AdwToast *toast;

  if (index < 0)
    return;
  removed = g_new0 (RemovedProvider, 1);
  g_set_weak_pointer (&removed->self, self);
  removed->index = index;
  removed->entry = natter_provider_config_copy (g_ptr_array_index (providers, index));
  g_ptr_array_remove_index (providers, index);
  if (!write_providers (self, providers))
    {
      removed_provider_free (removed);
      return;
    }

  /* The key stays in the keyring, so Undo gives the provider back whole. */
  title = g_strdup_printf (_("Removed “%s”"), removed->entry->name);
  toast = show_undo_toast (self, title);
  g_object_set_data_full (G_OBJECT (toast), "removed", removed, removed_provider_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_remove_cb), removed);

  rebuild_providers (self);
  rebuild_provider_combo (self);
}

static void
add_provider_activated_cb (NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  g_autofree char *id = NULL;

  for (guint n = 1; id == NULL || find_provider (providers, id) >= 0 ||
                    g_str_equal (id, NATTER_DEFAULT_PROVIDER_ID); n++)
    {
      g_free (id);
      id = g_strdup_printf ("provider-%u", n);
    }
  g_ptr_array_add (providers, natter_provider_config_new (id, _("New Provider"), "http://localhost:8080/v1"));
  if (!write_providers (self, providers))
    return;
  rebuild_providers (self);
  rebuild_provider_combo (self);

  natter_provider_row_focus_name (row_for (self, id));
}

/* Building the provider rows */

static void
add_provider_row (NatterPreferencesWindow *self,
                  NatterProviderConfig    *entry,
                  gboolean                 expanded)
{
  NatterProviderRow *row = natter_provider_row_new (entry);
  const char *id = natter_provider_row_get_provider_id (row);

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), expanded);
  g_signal_connect (row, "apply-name", G_CALLBACK (apply_name_cb), self);
  g_signal_connect (row, "apply-url", G_CALLBACK (apply_url_cb), self);
  g_signal_connect (row, "apply-key", G_CALLBACK (apply_key_cb), self);
  g_signal_connect (row, "forget-key", G_CALLBACK (forget_key_cb), self);
  g_signal_connect (row, "test", G_CALLBACK (test_cb), self);
  g_signal_connect (row, "remove", G_CALLBACK (remove_cb), self);

  adw_preferences_group_add (self->providers_group, GTK_WIDGET (row));
  g_ptr_array_add (self->provider_widgets, row);
  g_hash_table_replace (self->provider_rows, (gpointer) id, row);

  natter_secret_store_lookup_async (natter_services_get_secret_store (self->services), id,
                                    self->cancellable, key_looked_up_cb, secret_op_new (self, id));
}

static void
rebuild_providers (NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  g_autoptr(GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  NatterProviderRow *row;

  /* Rows are rebuilt whole; which were open survives. */
  g_hash_table_iter_init (&iter, self->provider_rows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &row))
    if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (row)))
      g_hash_table_add (expanded, g_strdup (natter_provider_row_get_provider_id (row)));
  for (guint i = 0; i < self->provider_widgets->len; i++)
    {
      adw_preferences_group_remove (self->providers_group, g_ptr_array_index (self->provider_widgets, i));
    }
  g_ptr_array_set_size (self->provider_widgets, 0);
  g_hash_table_remove_all (self->provider_rows);

  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *entry = g_ptr_array_index (providers, i);

      add_provider_row (self, entry, g_hash_table_contains (expanded, entry->id));
    }
}

/* The default model */

static void
rebuild_provider_combo (NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autofree char *current = g_strdup (natter_settings_get_default_provider (self->settings));
  guint selected = GTK_INVALID_LIST_POSITION;

  g_ptr_array_set_size (self->provider_ids, 0);
  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *entry = g_ptr_array_index (providers, i);

      gtk_string_list_append (names, entry->name);
      g_ptr_array_add (self->provider_ids, g_strdup (entry->id));
      if (g_str_equal (entry->id, current))
        selected = i;
    }
  /* A default that is not in the list (removed, or the built-in
   * Ollama) is shown as itself rather than silently changed. */
  if (selected == GTK_INVALID_LIST_POSITION && current[0] != '\0')
    {
      gtk_string_list_append (names, current);
      g_ptr_array_add (self->provider_ids, g_strdup (current));
      selected = self->provider_ids->len - 1;
    }

  self->updating_combos = TRUE;
  adw_combo_row_set_model (self->provider_row, G_LIST_MODEL (names));
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
  if (!self->writing_providers)
    rebuild_providers (self);
  rebuild_provider_combo (self);
  reload_models (self);
}

static void
default_provider_changed_cb (NatterPreferencesWindow *self)
{
  const char *current = natter_settings_get_default_provider (self->settings);
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

/* The data folder */

static void
open_data_dir_clicked_cb (NatterPreferencesWindow *self)
{
  GFile *dir = natter_services_get_data_dir (self->services);
  g_autofree char *uri = g_file_get_uri (dir);

  gtk_show_uri (GTK_WINDOW (self), uri, GDK_CURRENT_TIME);
}

/* Agents */

static void
fill_assistant_row (NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) requested = json_object_new ();
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) tools = g_string_new (NULL);
  GtkWidget *prompt_row;
  GtkWidget *tools_row;
  JsonArray *descriptors;

  json_object_set_string_member (requested, "agentId", NATTER_BUILTIN_AGENT_ID);
  agent = natter_agent_resolver_resolve (natter_services_get_agent_resolver (self->services), requested, &error);
  if (agent == NULL)
    {
      adw_expander_row_set_subtitle (self->assistant_row, error->message);
      return;
    }

  prompt_row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (prompt_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (prompt_row), _("System Prompt"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (prompt_row),
                               json_object_get_string_member (agent, "systemPrompt"));
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (prompt_row), 0);
  adw_expander_row_add_row (self->assistant_row, prompt_row);

  descriptors = json_object_get_array_member (agent, "tools");
  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (descriptors, i);

      if (i > 0)
        g_string_append (tools, ", ");
      g_string_append (tools, natter_agent_tool_label (json_object_get_string_member (descriptor, "toolId")));
    }
  tools_row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (tools_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (tools_row), _("Tools"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (tools_row), tools->str);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (tools_row), 0);
  adw_expander_row_add_row (self->assistant_row, tools_row);
}

static JsonObject *
load_agent (NatterPreferencesWindow *self,
            const char              *agent_id)
{
  g_autoptr(GError) error = NULL;
  JsonObject *agent;

  agent = natter_agent_store_load (natter_services_get_agent_store (self->services), agent_id, &error);
  if (agent == NULL)
    show_toast (self, error->message);
  return agent;
}

static void open_editor (NatterPreferencesWindow *self,
                         JsonObject              *agent);

static void
edit_agent_cb (NatterAgentRow          *row,
               NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) agent = load_agent (self, natter_agent_row_get_agent_id (row));

  if (agent != NULL)
    open_editor (self, agent);
}

typedef struct
{
  NatterPreferencesWindow *self;  /* weak */
  GFile                   *file;
  GBytes                  *contents;
  gboolean                 undone;
} DeletedAgent;

static void
deleted_agent_free (gpointer data)
{
  DeletedAgent *deleted = data;

  g_clear_weak_pointer (&deleted->self);
  g_clear_object (&deleted->file);
  g_clear_pointer (&deleted->contents, g_bytes_unref);
  g_free (deleted);
}

static void
undo_delete_cb (AdwToast     *toast,
                DeletedAgent *deleted)
{
  g_autoptr(GError) error = NULL;

  if (deleted->self == NULL || deleted->undone)
    return;
  deleted->undone = TRUE;
  /* The file comes back byte for byte, even one that did not validate. */
  if (!g_file_replace_contents (deleted->file, g_bytes_get_data (deleted->contents, NULL),
                                g_bytes_get_size (deleted->contents), NULL, FALSE,
                                G_FILE_CREATE_PRIVATE, NULL, NULL, &error))
    show_toast (deleted->self, error->message);
  rebuild_agents (deleted->self);
}

static void
delete_agent_cb (NatterAgentRow          *row,
                 NatterPreferencesWindow *self)
{
  const char *agent_id = natter_agent_row_get_agent_id (row);
  g_autofree char *name = g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autofree char *basename = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  DeletedAgent *deleted = g_new0 (DeletedAgent, 1);
  AdwToast *toast;

  deleted->file = g_file_get_child (natter_agent_store_get_dir (store), basename);
  deleted->contents = g_file_load_bytes (deleted->file, NULL, NULL, &error);
  if (deleted->contents == NULL || !natter_agent_store_delete (store, agent_id, &error))
    {
      show_toast (self, error->message);
      deleted_agent_free (deleted);
      return;
    }
  g_set_weak_pointer (&deleted->self, self);
  title = g_strdup_printf (_("Deleted “%s”"), name);
  toast = show_undo_toast (self, title);
  g_object_set_data_full (G_OBJECT (toast), "deleted", deleted, deleted_agent_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_delete_cb), deleted);
  rebuild_agents (self);
}

static void
rebuild_agents (NatterPreferencesWindow *self)
{
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_file_get_path (natter_agent_store_get_dir (store));
  g_autofree char *description = g_strdup_printf (_("Each agent is a file in %s"), dir);
  /* A group's description is markup; a folder name is not. */
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  adw_preferences_group_set_description (self->agents_group, escaped);
  for (guint i = 0; i < self->agent_widgets->len; i++)
    adw_preferences_group_remove (self->agents_group, g_ptr_array_index (self->agent_widgets, i));
  g_ptr_array_set_size (self->agent_widgets, 0);
  g_hash_table_remove_all (self->agent_rows);

  agents = natter_agent_store_list (store, &error);
  if (agents == NULL)
    {
      show_toast (self, error->message);
      return;
    }
  for (guint i = 0; i < agents->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (agents, i);
      NatterAgentRow *row = natter_agent_row_new (agent);

      g_signal_connect (row, "edit", G_CALLBACK (edit_agent_cb), self);
      g_signal_connect (row, "delete", G_CALLBACK (delete_agent_cb), self);
      adw_preferences_group_add (self->agents_group, GTK_WIDGET (row));
      g_ptr_array_add (self->agent_widgets, row);
      g_hash_table_replace (self->agent_rows, (gpointer) natter_agent_row_get_agent_id (row), row);
    }
}

/* The agent editor: a subpage of the window *//* The agent editor: a subpage of the window */

static void
close_editor (NatterPreferencesWindow *self)
{
  self->editor = NULL;
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
}

static void
editor_back_cb (NatterAgentEditor       *editor,
                NatterPreferencesWindow *self)
{
  close_editor (self);
}

/* The editor lists models while it is open: that counts as pending work
 * of the window, so tests can wait for it. */
static void
editor_loading_cb (NatterAgentEditor       *editor,
                   GParamSpec              *pspec,
                   NatterPreferencesWindow *self)
{
  if (natter_agent_editor_get_loading (editor))
    {
      pending_begin (self);
      return;
    }
  pending_end (self);
  g_object_unref (self);
}

static void
editor_save_cb (NatterAgentEditor       *editor,
                NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;

  agent = natter_agent_editor_build_agent (editor, &error);
  if (agent == NULL ||
      !natter_agent_store_save (natter_services_get_agent_store (self->services), agent, &error))
    {
      show_toast (self, error->message);
      return;
    }
  saved = g_strdup_printf (_("Saved “%s”"), json_object_get_string_member (agent, "name"));
  close_editor (self);
  rebuild_agents (self);
  show_toast (self, saved);
}

static void
open_editor (NatterPreferencesWindow *self,
             JsonObject              *agent)
{
  g_autoptr(GPtrArray) configured = read_providers (self);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  /* The providers the default-model combo offers, by their names. */
  for (guint i = 0; i < self->provider_ids->len; i++)
    {
      const char *id = g_ptr_array_index (self->provider_ids, i);
      int index = find_provider (configured, id);

      g_ptr_array_add (names, index >= 0 ? ((NatterProviderConfig *) g_ptr_array_index (configured, index))->name
                                         : (char *) id);
    }
  g_ptr_array_add (names, NULL);
  g_ptr_array_add (self->provider_ids, NULL);
  self->editor = natter_agent_editor_new (self->services, agent,
                                          (const char * const *) self->provider_ids->pdata,
                                          (const char * const *) names->pdata);
  g_ptr_array_set_size (self->provider_ids, self->provider_ids->len - 1);
  if (natter_agent_editor_get_loading (self->editor))
    pending_begin (self);
  g_signal_connect_object (self->editor, "notify::loading", G_CALLBACK (editor_loading_cb), self, 0);
  g_signal_connect_object (self->editor, "save", G_CALLBACK (editor_save_cb), self, 0);
  g_signal_connect_object (self->editor, "back", G_CALLBACK (editor_back_cb), self, 0);
  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self), GTK_WIDGET (self->editor));
  natter_agent_editor_focus (self->editor);
}

static void
add_agent_activated_cb (NatterPreferencesWindow *self)
{
  open_editor (self, NULL);
}

/* GObject */

static void
natter_preferences_window_dispose (GObject *object)
{
  NatterPreferencesWindow *self = NATTER_PREFERENCES_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->models_cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_weak_pointer (&self->undo_toast);
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
  g_clear_pointer (&self->provider_rows, g_hash_table_unref);
  g_clear_pointer (&self->provider_widgets, g_ptr_array_unref);
  g_clear_pointer (&self->provider_ids, g_ptr_array_unref);
  g_clear_pointer (&self->model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->agent_rows, g_hash_table_unref);
  g_clear_pointer (&self->agent_widgets, g_ptr_array_unref);
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

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/natter/Natter/ui/natter-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, providers_group);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, add_provider_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, provider_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_refresh_stack);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, model_spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, max_calls_spin);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, auto_permission_switch);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, data_dir_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, assistant_row);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, agents_group);
  gtk_widget_class_bind_template_child (widget_class, NatterPreferencesWindow, add_agent_row);
  gtk_widget_class_bind_template_callback (widget_class, add_provider_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_refresh_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, open_data_dir_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, add_agent_activated_cb);
}

static void
natter_preferences_window_init (NatterPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->cancellable = g_cancellable_new ();
  self->provider_rows = g_hash_table_new (g_str_hash, g_str_equal);
  self->provider_widgets = g_ptr_array_new ();
  self->provider_ids = g_ptr_array_new_with_free_func (g_free);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  self->agent_rows = g_hash_table_new (g_str_hash, g_str_equal);
  self->agent_widgets = g_ptr_array_new ();
}

/**
 * natter_preferences_window_new:
 * @parent: (nullable): the window it is transient for
 * @services: the services whose settings, keys and agents it edits;
 *   their settings must exist (the schema installed)
 *
 * Creates the Preferences window of issue 7: pages "Providers",
 * "General" and "Agents". Changes apply at once: providers and the
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

  data_dir = g_file_get_path (natter_services_get_data_dir (services));
  adw_action_row_set_subtitle (self->data_dir_row, data_dir);

  rebuild_providers (self);
  rebuild_provider_combo (self);
  set_models (self, NULL, NULL);
  reload_models (self);
  fill_assistant_row (self);
  rebuild_agents (self);

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

GtkWidget *
natter_preferences_window_get_provider_widget (NatterPreferencesWindow *self,
                                               const char              *provider_id,
                                               const char              *field)
{
  NatterProviderRow *row = row_for (self, provider_id);

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
  NatterProviderRow *row = row_for (self, provider_id);

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
  if (g_str_equal (name, "data-dir"))
    return GTK_WIDGET (self->data_dir_row);
  if (g_str_equal (name, "add-provider"))
    return GTK_WIDGET (self->add_provider_row);
  if (g_str_equal (name, "add-agent"))
    return GTK_WIDGET (self->add_agent_row);
  if (g_str_equal (name, "assistant"))
    return GTK_WIDGET (self->assistant_row);
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
  return self->n_pending;
}

GtkWidget *
natter_preferences_window_get_agent_widget (NatterPreferencesWindow *self,
                                            const char              *agent_id,
                                            const char              *field)
{
  NatterAgentRow *row = g_hash_table_lookup (self->agent_rows, agent_id);

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
  if (self->editor == NULL)
    return NULL;
  return natter_agent_editor_get_part (self->editor, field);
}
