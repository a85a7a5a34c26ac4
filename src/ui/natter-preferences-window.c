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
 * one is stored.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-builtin-tools.h"
#include "natter-preferences-window-private.h"

/* A connection test or model list waits at most this long for a server. */
#define TEST_TIMEOUT_SECONDS 15

typedef struct
{
  char           *id;
  AdwExpanderRow *expander;
  AdwEntryRow    *name_row;
  AdwEntryRow    *url_row;
  AdwEntryRow    *key_row;
  GtkWidget      *stored_label;
  GtkWidget      *forget_button;
  GtkWidget      *test_button;
  GtkWidget      *remove_button;
  gboolean        key_stored;
} ProviderRow;

typedef struct
{
  GtkWidget *row;
  GtkWidget *edit_button;
  GtkWidget *delete_button;
} AgentRow;

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

  GHashTable           *provider_rows;   /* id → ProviderRow */
  GPtrArray            *provider_widgets; /* AdwExpanderRow, in order */
  GPtrArray            *provider_ids;    /* of the provider combo */
  GPtrArray            *model_ids;       /* of the model combo; [0] = "" */
  GHashTable           *agent_rows;      /* id → AgentRow */
  GPtrArray            *agent_widgets;

  /* The agent editor subpage, while open */
  char                 *editing_id;      /* NULL: a new agent */
  AdwEntryRow          *editor_name;
  GtkTextView          *editor_prompt;
  AdwComboRow          *editor_provider;
  AdwPreferencesGroup  *editor_model_group;
  AdwComboRow          *editor_model_list;  /* the provider's /models */
  AdwEntryRow          *editor_model;       /* typed, when they cannot be listed */
  GPtrArray            *editor_model_ids;   /* of editor_model_list */
  char                 *editor_stored_provider;
  char                 *editor_stored_model;
  GCancellable         *editor_cancellable;
  GtkWidget            *editor_save;
  GHashTable           *editor_tools;    /* toolId → GtkCheckButton */

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

static void
provider_row_free (gpointer data)
{
  ProviderRow *row = data;

  g_free (row->id);
  g_free (row);
}

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

static ProviderRow *
row_for (NatterPreferencesWindow *self,
         const char              *id)
{
  return g_hash_table_lookup (self->provider_rows, id);
}

static void
set_key_stored (ProviderRow *row,
                gboolean     stored)
{
  row->key_stored = stored;
  gtk_widget_set_visible (row->stored_label, stored);
  gtk_widget_set_visible (row->forget_button, stored);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->key_row),
                                 stored ? _("Replace API Key") : _("API Key"));
}

static void
name_applied_cb (AdwEntryRow *entry,
                 ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (entry), "window");
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry))));

  if (name[0] == '\0')
    {
      show_toast (self, _("A provider needs a name"));
      return;
    }
  update_provider (self, row->id, 1, name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->expander), name);
  rebuild_provider_combo (self);
}

static void
url_applied_cb (AdwEntryRow *entry,
                ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (entry), "window");
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry))));

  if (!natter_provider_base_url_is_valid (url))
    {
      show_toast (self, _("The base URL must start with http:// or https://"));
      return;
    }
  update_provider (self, row->id, 2, url);
  adw_expander_row_set_subtitle (row->expander, url);
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
  ProviderRow *row;

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
      gtk_editable_set_text (GTK_EDITABLE (row->key_row), "");
      set_key_stored (row, TRUE);
    }
  show_toast (self, _("API key stored in the keyring"));
  reload_models (self);
}

static void
key_applied_cb (AdwEntryRow *entry,
                ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (entry), "window");
  const char *key = gtk_editable_get_text (GTK_EDITABLE (entry));

  if (key[0] == '\0')
    return;
  natter_secret_store_store_async (natter_services_get_secret_store (self->services), row->id, key,
                                   self->cancellable, key_stored_cb, secret_op_new (self, row->id));
}

static void
key_looked_up_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SecretOp) op = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *key = NULL;
  ProviderRow *row;

  key = natter_secret_store_lookup_finish (NATTER_SECRET_STORE (object), result, &error);
  if (pending_end (op->self) && (row = row_for (op->self, op->id)) != NULL)
    set_key_stored (row, key != NULL);
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
  ProviderRow *row;

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
    set_key_stored (row, FALSE);
  show_toast (self, _("API key removed from the keyring"));
}

static void
forget_clicked_cb (GtkButton   *button,
                   ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (button), "window");

  natter_secret_store_clear_async (natter_services_get_secret_store (self->services), row->id,
                                   self->cancellable, key_cleared_cb, secret_op_new (self, row->id));
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
  ProviderRow *row;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  if (pending_end (self))
    {
      guint n = models != NULL ? g_strv_length (models) : 0;

      if ((row = row_for (self, op->id)) != NULL)
        gtk_widget_set_sensitive (row->test_button, TRUE);
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
test_clicked_cb (GtkButton   *button,
                 ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (button), "window");
  const char *typed = gtk_editable_get_text (GTK_EDITABLE (row->key_row));
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row->url_row))));
  TestOp *op;

  if (!natter_provider_base_url_is_valid (url))
    {
      show_toast (self, _("The base URL must start with http:// or https://"));
      return;
    }
  op = g_new0 (TestOp, 1);
  op->self = pending_begin (self);
  op->id = g_strdup (row->id);
  op->name = g_strdup (gtk_editable_get_text (GTK_EDITABLE (row->name_row)));
  op->url = g_steal_pointer (&url);
  gtk_widget_set_sensitive (row->test_button, FALSE);
  if (typed[0] != '\0')
    test_run (op, typed);
  else
    natter_secret_store_lookup_async (natter_services_get_secret_store (self->services), row->id,
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
remove_clicked_cb (GtkButton   *button,
                   ProviderRow *row)
{
  NatterPreferencesWindow *self = g_object_get_data (G_OBJECT (button), "window");
  g_autoptr(GPtrArray) providers = read_providers (self);
  int index = find_provider (providers, row->id);
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
  ProviderRow *row;

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

  row = row_for (self, id);
  adw_expander_row_set_expanded (row->expander, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (row->name_row));
}

/* Building the provider rows */

static GtkWidget *
icon_button (const char *icon_name,
             const char *tooltip)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon_name);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

static void
add_provider_row (NatterPreferencesWindow *self,
                  NatterProviderConfig    *entry,
                  gboolean                 expanded)
{
  ProviderRow *row = g_new0 (ProviderRow, 1);
  GtkWidget *test_row;

  row->id = g_strdup (entry->id);
  row->expander = ADW_EXPANDER_ROW (adw_expander_row_new ());
  /* The provider's name and URL are the user's text, not markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row->expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->expander), entry->name);
  adw_expander_row_set_subtitle (row->expander, entry->base_url);
  adw_expander_row_set_expanded (row->expander, expanded);

  row->remove_button = icon_button ("user-trash-symbolic", _("Remove Provider"));
  adw_expander_row_add_action (row->expander, row->remove_button);

  row->name_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->name_row), _("Name"));
  adw_entry_row_set_show_apply_button (row->name_row, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (row->name_row), entry->name);
  adw_expander_row_add_row (row->expander, GTK_WIDGET (row->name_row));

  row->url_row = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->url_row), _("Base URL"));
  adw_entry_row_set_show_apply_button (row->url_row, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (row->url_row), entry->base_url);
  adw_expander_row_add_row (row->expander, GTK_WIDGET (row->url_row));

  row->key_row = ADW_ENTRY_ROW (adw_password_entry_row_new ());
  adw_entry_row_set_show_apply_button (row->key_row, TRUE);
  row->stored_label = gtk_label_new (_("Stored in the keyring"));
  gtk_widget_add_css_class (row->stored_label, "dim-label");
  gtk_widget_add_css_class (row->stored_label, "caption");
  adw_entry_row_add_suffix (row->key_row, row->stored_label);
  row->forget_button = icon_button ("edit-clear-symbolic", _("Remove the Stored Key"));
  adw_entry_row_add_suffix (row->key_row, row->forget_button);
  adw_expander_row_add_row (row->expander, GTK_WIDGET (row->key_row));
  set_key_stored (row, FALSE);

  test_row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (test_row), _("Connection"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (test_row), _("Lists the server’s models with the key above"));
  row->test_button = gtk_button_new_with_mnemonic (_("_Test"));
  gtk_widget_set_valign (row->test_button, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (test_row), row->test_button);
  adw_expander_row_add_row (row->expander, test_row);

  g_object_set_data (G_OBJECT (row->name_row), "window", self);
  g_object_set_data (G_OBJECT (row->url_row), "window", self);
  g_object_set_data (G_OBJECT (row->key_row), "window", self);
  g_object_set_data (G_OBJECT (row->test_button), "window", self);
  g_object_set_data (G_OBJECT (row->remove_button), "window", self);
  g_object_set_data (G_OBJECT (row->forget_button), "window", self);
  g_signal_connect (row->name_row, "apply", G_CALLBACK (name_applied_cb), row);
  g_signal_connect (row->url_row, "apply", G_CALLBACK (url_applied_cb), row);
  g_signal_connect (row->key_row, "apply", G_CALLBACK (key_applied_cb), row);
  g_signal_connect (row->test_button, "clicked", G_CALLBACK (test_clicked_cb), row);
  g_signal_connect (row->remove_button, "clicked", G_CALLBACK (remove_clicked_cb), row);
  g_signal_connect (row->forget_button, "clicked", G_CALLBACK (forget_clicked_cb), row);

  adw_preferences_group_add (self->providers_group, GTK_WIDGET (row->expander));
  g_ptr_array_add (self->provider_widgets, row->expander);
  g_hash_table_replace (self->provider_rows, row->id, row);

  natter_secret_store_lookup_async (natter_services_get_secret_store (self->services), row->id,
                                    self->cancellable, key_looked_up_cb, secret_op_new (self, row->id));
}

static void
rebuild_providers (NatterPreferencesWindow *self)
{
  g_autoptr(GPtrArray) providers = read_providers (self);
  g_autoptr(GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  ProviderRow *row;

  /* Rows are rebuilt whole; which were open survives. */
  g_hash_table_iter_init (&iter, self->provider_rows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &row))
    if (adw_expander_row_get_expanded (row->expander))
      g_hash_table_add (expanded, g_strdup (row->id));
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

static const char *
tool_label (const char *tool_id)
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
      g_string_append (tools, tool_label (json_object_get_string_member (descriptor, "toolId")));
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
edit_agent_clicked_cb (GtkButton               *button,
                       NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) agent = load_agent (self, g_object_get_data (G_OBJECT (button), "agent-id"));

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
delete_agent_clicked_cb (GtkButton               *button,
                         NatterPreferencesWindow *self)
{
  const char *agent_id = g_object_get_data (G_OBJECT (button), "agent-id");
  const char *name = g_object_get_data (G_OBJECT (button), "agent-name");
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

static char *
describe_agent (JsonObject *agent)
{
  JsonArray *tools = json_object_get_array_member (agent, "tools");
  guint n = json_array_get_length (tools);
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
      const char *agent_id = json_object_get_string_member (agent, "agentId");
      const char *problem = json_object_get_string_member_with_default (agent, "error", NULL);
      AgentRow *row = g_new0 (AgentRow, 1);

      row->row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row->row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row->row),
                                     json_object_get_string_member (agent, "name"));
      if (problem != NULL)
        {
          adw_action_row_set_subtitle (ADW_ACTION_ROW (row->row), problem);
          adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row->row), 0);
          gtk_widget_add_css_class (row->row, "error");
        }
      else
        {
          g_autofree char *subtitle = describe_agent (agent);

          adw_action_row_set_subtitle (ADW_ACTION_ROW (row->row), subtitle);
          row->edit_button = icon_button ("document-edit-symbolic", _("Edit Agent"));
          g_object_set_data_full (G_OBJECT (row->edit_button), "agent-id", g_strdup (agent_id), g_free);
          g_signal_connect (row->edit_button, "clicked", G_CALLBACK (edit_agent_clicked_cb), self);
          adw_action_row_add_suffix (ADW_ACTION_ROW (row->row), row->edit_button);
          adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row->row), row->edit_button);
        }
      row->delete_button = icon_button ("user-trash-symbolic", _("Delete Agent"));
      g_object_set_data_full (G_OBJECT (row->delete_button), "agent-id", g_strdup (agent_id), g_free);
      g_object_set_data_full (G_OBJECT (row->delete_button), "agent-name",
                              g_strdup (json_object_get_string_member (agent, "name")), g_free);
      g_signal_connect (row->delete_button, "clicked", G_CALLBACK (delete_agent_clicked_cb), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row->row), row->delete_button);

      adw_preferences_group_add (self->agents_group, row->row);
      g_ptr_array_add (self->agent_widgets, row->row);
      g_hash_table_replace (self->agent_rows, g_strdup (agent_id), row);
    }
}

/* The agent editor: a subpage of the window */

static void
close_editor (NatterPreferencesWindow *self)
{
  g_clear_pointer (&self->editing_id, g_free);
  g_clear_pointer (&self->editor_tools, g_hash_table_unref);
  self->editor_name = NULL;
  self->editor_prompt = NULL;
  g_cancellable_cancel (self->editor_cancellable);
  g_clear_object (&self->editor_cancellable);
  g_clear_pointer (&self->editor_model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->editor_stored_provider, g_free);
  g_clear_pointer (&self->editor_stored_model, g_free);
  self->editor_provider = NULL;
  self->editor_model_group = NULL;
  self->editor_model_list = NULL;
  self->editor_model = NULL;
  self->editor_save = NULL;
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
}

static void
editor_back_clicked_cb (GtkButton               *button,
                        NatterPreferencesWindow *self)
{
  close_editor (self);
}

/* The agent's model: a provider, then one of its `/models`; typed by
 * hand only when the list cannot be had, saying why. */

static char *
editor_dup_model_name (NatterPreferencesWindow *self)
{
  guint selected;

  if (gtk_widget_get_visible (GTK_WIDGET (self->editor_model_list)))
    {
      selected = adw_combo_row_get_selected (self->editor_model_list);
      if (self->editor_model_ids != NULL && selected < self->editor_model_ids->len)
        return g_strdup (g_ptr_array_index (self->editor_model_ids, selected));
      return g_strdup ("");
    }
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->editor_model))));
}

/* What the provider combo's entry @selected stands for; NULL for entry 0,
 * "the default model". */
static const char *
editor_provider_id (NatterPreferencesWindow *self,
                    guint                    selected)
{
  if (selected == 0 || selected > self->provider_ids->len)
    return NULL;
  return g_ptr_array_index (self->provider_ids, selected - 1);
}

/* The model to show first for @provider_id: the stored one when the
 * agent's provider is shown again, else what was typed. */
static const char *
editor_wanted_model (NatterPreferencesWindow *self,
                     const char              *provider_id)
{
  if (g_strcmp0 (provider_id, self->editor_stored_provider) == 0)
    return self->editor_stored_model;
  return NULL;
}

/* Falls back to the entry, with @problem as the group's note. */
static void
editor_show_model_entry (NatterPreferencesWindow *self,
                         const char              *provider_id,
                         const char              *problem)
{
  g_autofree char *note = NULL;
  g_autofree char *escaped = NULL;
  const char *wanted = editor_wanted_model (self, provider_id);

  /* Translators: %s says why, e.g. a server's error message */
  note = g_strdup_printf (_("Type the model name: the models could not be listed. %s"), problem);
  /* A group's description is markup; a server's message is not. */
  escaped = g_markup_escape_text (note, -1);
  adw_preferences_group_set_description (self->editor_model_group, escaped);
  gtk_widget_set_visible (GTK_WIDGET (self->editor_model_list), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->editor_model), TRUE);
  if (wanted != NULL && gtk_editable_get_text (GTK_EDITABLE (self->editor_model))[0] == '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->editor_model), wanted);
}

typedef struct
{
  NatterPreferencesWindow *self;
  char                    *provider_id;
  GCancellable            *cancellable;
} EditorListing;

static void
editor_listing_free (EditorListing *listing)
{
  g_object_unref (listing->self);
  g_free (listing->provider_id);
  g_object_unref (listing->cancellable);
  g_free (listing);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EditorListing, editor_listing_free)

static void
editor_models_listed_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(EditorListing) listing = user_data;
  NatterPreferencesWindow *self = listing->self;
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;
  const char *wanted;
  guint selected = 0;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  /* Closed, or another provider was picked meanwhile. */
  if (!pending_end (self) || listing->cancellable != self->editor_cancellable ||
      g_cancellable_is_cancelled (listing->cancellable))
    return;
  g_clear_object (&self->editor_cancellable);

  if (models == NULL)
    {
      editor_show_model_entry (self, listing->provider_id, error->message);
      return;
    }
  if (models[0] == NULL)
    {
      editor_show_model_entry (self, listing->provider_id, _("The provider lists none."));
      return;
    }

  wanted = editor_wanted_model (self, listing->provider_id);
  g_ptr_array_set_size (self->editor_model_ids, 0);
  for (guint i = 0; models[i] != NULL; i++)
    {
      gtk_string_list_append (names, models[i]);
      g_ptr_array_add (self->editor_model_ids, g_strdup (models[i]));
      if (g_strcmp0 (models[i], wanted) == 0)
        selected = i;
    }
  /* A stored model the server no longer lists is shown as itself rather
   * than silently changed. */
  if (wanted != NULL && !g_strv_contains ((const char * const *) models, wanted))
    {
      gtk_string_list_append (names, wanted);
      g_ptr_array_add (self->editor_model_ids, g_strdup (wanted));
      selected = self->editor_model_ids->len - 1;
    }
  adw_combo_row_set_model (self->editor_model_list, G_LIST_MODEL (names));
  adw_combo_row_set_selected (self->editor_model_list, selected);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->editor_model_list), "");
  gtk_widget_set_sensitive (GTK_WIDGET (self->editor_model_list), TRUE);
}

static void
editor_provider_selected_cb (NatterPreferencesWindow *self)
{
  const char *provider_id = editor_provider_id (self, adw_combo_row_get_selected (self->editor_provider));
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GtkStringList) empty = gtk_string_list_new (NULL);
  EditorListing *listing;

  if (self->editor_model_list == NULL)
    return;
  g_cancellable_cancel (self->editor_cancellable);
  g_clear_object (&self->editor_cancellable);
  g_ptr_array_set_size (self->editor_model_ids, 0);
  adw_combo_row_set_model (self->editor_model_list, G_LIST_MODEL (empty));
  adw_preferences_group_set_description (self->editor_model_group, NULL);
  gtk_editable_set_text (GTK_EDITABLE (self->editor_model), "");
  gtk_widget_set_visible (GTK_WIDGET (self->editor_model), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->editor_model_list), provider_id != NULL);
  if (provider_id == NULL)
    return;

  provider = natter_provider_registry_get_provider (natter_services_get_provider_registry (self->services),
                                                    provider_id, &error);
  if (provider == NULL)
    {
      editor_show_model_entry (self, provider_id, error->message);
      return;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->editor_model_list), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (self->editor_model_list), _("Loading models…"));
  listing = g_new0 (EditorListing, 1);
  listing->self = pending_begin (self);
  listing->provider_id = g_strdup (provider_id);
  listing->cancellable = g_cancellable_new ();
  self->editor_cancellable = g_object_ref (listing->cancellable);
  natter_openai_provider_list_models_async (provider, listing->cancellable, editor_models_listed_cb, listing);
}

static void
editor_save_clicked_cb (GtkButton               *button,
                        NatterPreferencesWindow *self)
{
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autofree char *name = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->editor_name))));
  g_autofree char *model_name = editor_dup_model_name (self);
  g_autofree char *prompt = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *saved = NULL;
  g_autoptr(JsonObject) agent = json_object_new ();
  g_autoptr(GError) error = NULL;
  GtkTextIter start, end;
  JsonArray *tools = json_array_new ();
  guint provider = adw_combo_row_get_selected (self->editor_provider);
  g_autoptr(JsonArray) descriptors = natter_builtin_tools_descriptors (natter_services_get_tools (self->services));

  if (name[0] == '\0')
    {
      json_array_unref (tools);
      show_toast (self, _("An agent needs a name"));
      return;
    }
  gtk_text_buffer_get_bounds (gtk_text_view_get_buffer (self->editor_prompt), &start, &end);
  prompt = gtk_text_buffer_get_text (gtk_text_view_get_buffer (self->editor_prompt), &start, &end, FALSE);

  agent_id = self->editing_id != NULL ? g_strdup (self->editing_id) : natter_agent_store_make_id (store, name);
  json_object_set_string_member (agent, "agentId", agent_id);
  json_object_set_string_member (agent, "name", name);
  json_object_set_string_member (agent, "systemPrompt", prompt);
  /* Entry 0 is "the default model". */
  if (provider > 0 && provider <= self->provider_ids->len && model_name[0] != '\0')
    {
      JsonObject *model = json_object_new ();

      json_object_set_string_member (model, "provider", g_ptr_array_index (self->provider_ids, provider - 1));
      json_object_set_string_member (model, "model", model_name);
      json_object_set_object_member (agent, "model", model);
    }
  /* In the fixed order of the built-in tools. */
  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      const char *tool_id = json_object_get_string_member (json_array_get_object_element (descriptors, i), "toolId");
      GtkCheckButton *check = g_hash_table_lookup (self->editor_tools, tool_id);

      if (check != NULL && gtk_check_button_get_active (check))
        json_array_add_string_element (tools, tool_id);
    }
  json_object_set_array_member (agent, "tools", tools);

  if (!natter_agent_store_save (store, agent, &error))
    {
      show_toast (self, error->message);
      return;
    }
  saved = g_strdup_printf (_("Saved “%s”"), name);
  close_editor (self);
  rebuild_agents (self);
  show_toast (self, saved);
}

static void
open_editor (NatterPreferencesWindow *self,
             JsonObject              *agent)
{
  g_autoptr(GtkStringList) providers = gtk_string_list_new (NULL);
  g_autoptr(JsonArray) descriptors = natter_builtin_tools_descriptors (natter_services_get_tools (self->services));
  g_autoptr(GPtrArray) configured = read_providers (self);
  GtkWidget *box, *header, *back, *title, *page, *group, *frame, *scroller;
  JsonObject *model = agent != NULL && json_object_has_member (agent, "model")
                      ? json_object_get_object_member (agent, "model") : NULL;
  JsonArray *tools = agent != NULL ? json_object_get_array_member (agent, "tools") : NULL;
  guint selected_provider = 0;

  g_clear_pointer (&self->editing_id, g_free);
  g_clear_pointer (&self->editor_tools, g_hash_table_unref);
  g_cancellable_cancel (self->editor_cancellable);
  g_clear_object (&self->editor_cancellable);
  g_clear_pointer (&self->editor_model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->editor_stored_provider, g_free);
  g_clear_pointer (&self->editor_stored_model, g_free);
  self->editing_id = agent != NULL ? g_strdup (json_object_get_string_member (agent, "agentId")) : NULL;
  self->editor_tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  header = adw_header_bar_new ();
  back = gtk_button_new_from_icon_name ("go-previous-symbolic");
  gtk_widget_set_tooltip_text (back, _("Back"));
  g_signal_connect (back, "clicked", G_CALLBACK (editor_back_clicked_cb), self);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), back);
  title = adw_window_title_new (agent != NULL ? _("Edit Agent") : _("New Agent"), NULL);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), title);
  self->editor_save = gtk_button_new_with_mnemonic (_("_Save"));
  gtk_widget_add_css_class (self->editor_save, "suggested-action");
  g_signal_connect (self->editor_save, "clicked", G_CALLBACK (editor_save_clicked_cb), self);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), self->editor_save);
  gtk_box_append (GTK_BOX (box), header);

  page = adw_preferences_page_new ();
  gtk_widget_set_vexpand (page, TRUE);
  gtk_box_append (GTK_BOX (box), page);

  group = adw_preferences_group_new ();
  self->editor_name = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->editor_name), _("Name"));
  if (agent != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->editor_name), json_object_get_string_member (agent, "name"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->editor_name));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("System Prompt"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("What the model is told before every message to this agent"));
  self->editor_prompt = GTK_TEXT_VIEW (gtk_text_view_new ());
  gtk_text_view_set_wrap_mode (self->editor_prompt, GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_top_margin (self->editor_prompt, 12);
  gtk_text_view_set_bottom_margin (self->editor_prompt, 12);
  gtk_text_view_set_left_margin (self->editor_prompt, 12);
  gtk_text_view_set_right_margin (self->editor_prompt, 12);
  gtk_widget_add_css_class (GTK_WIDGET (self->editor_prompt), "inline");
  if (agent != NULL)
    gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->editor_prompt),
                              json_object_get_string_member (agent, "systemPrompt"), -1);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 140);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->editor_prompt));
  frame = gtk_frame_new (NULL);
  gtk_widget_add_css_class (frame, "card");
  gtk_widget_set_overflow (frame, GTK_OVERFLOW_HIDDEN);
  gtk_frame_set_child (GTK_FRAME (frame), scroller);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), frame);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Model"));
  gtk_string_list_append (providers, _("Default Model"));
  for (guint i = 0; i < self->provider_ids->len; i++)
    {
      const char *id = g_ptr_array_index (self->provider_ids, i);
      int index = find_provider (configured, id);

      gtk_string_list_append (providers, index >= 0 ? ((NatterProviderConfig *) g_ptr_array_index (configured, index))->name : id);
      if (model != NULL && g_str_equal (json_object_get_string_member (model, "provider"), id))
        selected_provider = i + 1;
    }
  self->editor_provider = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->editor_provider), _("Provider"));
  adw_combo_row_set_model (self->editor_provider, G_LIST_MODEL (providers));
  adw_combo_row_set_selected (self->editor_provider, selected_provider);
  g_signal_connect_swapped (self->editor_provider, "notify::selected",
                            G_CALLBACK (editor_provider_selected_cb), self);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->editor_provider));
  self->editor_model_group = ADW_PREFERENCES_GROUP (group);
  self->editor_model_ids = g_ptr_array_new_with_free_func (g_free);
  self->editor_stored_provider = model != NULL ? g_strdup (json_object_get_string_member (model, "provider")) : NULL;
  self->editor_stored_model = model != NULL ? g_strdup (json_object_get_string_member (model, "model")) : NULL;
  self->editor_model_list = ADW_COMBO_ROW (adw_combo_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->editor_model_list), _("Model"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->editor_model_list));
  self->editor_model = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->editor_model), _("Model Name"));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->editor_model));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));
  editor_provider_selected_cb (self);

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Tools"));
  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (descriptors, i);
      const char *tool_id = json_object_get_string_member (descriptor, "toolId");
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *check = gtk_check_button_new ();
      gboolean active = agent == NULL;

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);

      for (guint j = 0; tools != NULL && j < json_array_get_length (tools); j++)
        if (g_str_equal (json_array_get_string_element (tools, j), tool_id))
          active = TRUE;
      gtk_check_button_set_active (GTK_CHECK_BUTTON (check), active);
      gtk_widget_set_valign (check, GTK_ALIGN_CENTER);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), tool_label (tool_id));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), json_object_get_string_member (descriptor, "name"));
      adw_action_row_add_prefix (ADW_ACTION_ROW (row), check);
      adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), check);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
      g_hash_table_replace (self->editor_tools, g_strdup (tool_id), check);
    }
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), ADW_PREFERENCES_GROUP (group));

  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self), box);
  gtk_widget_grab_focus (GTK_WIDGET (self->editor_name));
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
  g_cancellable_cancel (self->editor_cancellable);
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
  g_clear_pointer (&self->editor_tools, g_hash_table_unref);
  g_clear_object (&self->editor_cancellable);
  g_clear_pointer (&self->editor_model_ids, g_ptr_array_unref);
  g_clear_pointer (&self->editor_stored_provider, g_free);
  g_clear_pointer (&self->editor_stored_model, g_free);
  g_clear_pointer (&self->editing_id, g_free);
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
  self->provider_rows = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, provider_row_free);
  self->provider_widgets = g_ptr_array_new ();
  self->provider_ids = g_ptr_array_new_with_free_func (g_free);
  self->model_ids = g_ptr_array_new_with_free_func (g_free);
  self->agent_rows = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
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
  ProviderRow *row = row_for (self, provider_id);

  if (row == NULL)
    return NULL;
  if (g_str_equal (field, "name"))
    return GTK_WIDGET (row->name_row);
  if (g_str_equal (field, "url"))
    return GTK_WIDGET (row->url_row);
  if (g_str_equal (field, "key"))
    return GTK_WIDGET (row->key_row);
  if (g_str_equal (field, "test"))
    return row->test_button;
  if (g_str_equal (field, "remove"))
    return row->remove_button;
  if (g_str_equal (field, "forget"))
    return row->forget_button;
  if (g_str_equal (field, "expander"))
    return GTK_WIDGET (row->expander);
  g_return_val_if_reached (NULL);
}

gboolean
natter_preferences_window_get_key_stored (NatterPreferencesWindow *self,
                                          const char              *provider_id)
{
  ProviderRow *row = row_for (self, provider_id);

  return row != NULL && row->key_stored;
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
  AgentRow *row = g_hash_table_lookup (self->agent_rows, agent_id);

  if (row == NULL)
    return NULL;
  if (g_str_equal (field, "row"))
    return row->row;
  if (g_str_equal (field, "edit"))
    return row->edit_button;
  if (g_str_equal (field, "delete"))
    return row->delete_button;
  g_return_val_if_reached (NULL);
}

GtkWidget *
natter_preferences_window_get_editor_widget (NatterPreferencesWindow *self,
                                             const char              *field)
{
  if (self->editor_tools == NULL)
    return NULL;
  if (g_str_equal (field, "name"))
    return GTK_WIDGET (self->editor_name);
  if (g_str_equal (field, "prompt"))
    return GTK_WIDGET (self->editor_prompt);
  if (g_str_equal (field, "model-provider"))
    return GTK_WIDGET (self->editor_provider);
  if (g_str_equal (field, "model-name"))
    return GTK_WIDGET (self->editor_model);
  if (g_str_equal (field, "model-list"))
    return GTK_WIDGET (self->editor_model_list);
  if (g_str_equal (field, "model-group"))
    return GTK_WIDGET (self->editor_model_group);
  if (g_str_equal (field, "save"))
    return self->editor_save;
  if (g_str_has_prefix (field, "tool:"))
    return g_hash_table_lookup (self->editor_tools, field + strlen ("tool:"));
  g_return_val_if_reached (NULL);
}
