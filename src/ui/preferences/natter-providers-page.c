/* natter-providers-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Providers page of Preferences: one NatterProviderRow per entry of
 * the `providers` setting, answering its signals with the settings
 * (name, base URL, removal with undo, new providers) and the services'
 * NatterSecretStore (API keys, never shown once stored), the
 * connection test, GET {baseUrl}/models, and the server's models
 * (natter-models-dialog.c). The page calls nothing of the window that
 * holds it: it shows its toasts through ::add-toast, and says through
 * ::key-stored that a provider may now list models it could not before.
 * The page's widgets are declared in natter-providers-page.ui; this file
 * keeps what they do.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-models-dialog.h"
#include "natter-preferences-toast.h"
#include "natter-provider-choices.h"
#include "natter-provider-row.h"
#include "natter-providers-page.h"

/* A connection test waits at most this long for a server. */
#define TEST_TIMEOUT_SECONDS 15

struct _NatterProvidersPage
{
  AdwPreferencesPage   parent_instance;

  NatterServices      *services;
  NatterSettings      *settings;
  GCancellable        *cancellable;      /* cancelled when the page goes */
  guint                n_pending;        /* keyring calls and tests under way */
  gboolean             writing_providers;

  GHashTable          *rows;             /* id → NatterProviderRow (borrowed) */
  GPtrArray           *widgets;          /* NatterProviderRow, in order */
  /* The toast that says a provider just added is the default, while it
   * shows, so that it names the provider as it is renamed. */
  AdwToast            *default_toast;    /* weak */
  char                *default_toast_id;

  /* Template widgets */
  AdwPreferencesGroup *providers_group;
  AdwActionRow        *add_provider_row;
};

G_DEFINE_FINAL_TYPE (NatterProvidersPage, natter_providers_page, ADW_TYPE_PREFERENCES_PAGE)

enum
{
  ADD_TOAST,
  KEY_STORED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void rebuild (NatterProvidersPage *self);

/* Toasts, shown by the window that holds the page */

static void
show_toast (NatterProvidersPage *self,
            const char          *text)
{
  g_autoptr(AdwToast) toast = natter_preferences_toast_new (text);

  g_signal_emit (self, signals[ADD_TOAST], 0, toast);
}

/* Pending async work holds a reference on the page (the one returned);
 * pending_end() says whether the page is still in use. */

static NatterProvidersPage *
pending_begin (NatterProvidersPage *self)
{
  self->n_pending++;
  return g_object_ref (self);
}

static gboolean
pending_end (NatterProvidersPage *self)
{
  g_assert (self->n_pending > 0);
  self->n_pending--;
  return !g_cancellable_is_cancelled (self->cancellable);
}

static NatterProviderRow *
get_row (NatterProvidersPage *self,
         const char          *id)
{
  return g_hash_table_lookup (self->rows, id);
}

/* Stores @providers; a list the settings refuse is said in a toast. */
static gboolean
write_providers (NatterProvidersPage     *self,
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

/* Updates one field (1 = name, 2 = URL) of provider @id. */
static void
update_provider (NatterProvidersPage     *self,
                 const char              *id,
                 guint                    field,
                 const char              *value)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_providers (self->settings);
  int index = natter_provider_choices_find (providers, id);
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

/* What the toast says when provider @name became the default. */
static char *
default_toast_text (const char *name)
{
  /* Translators: %s is the name of a model provider the person just
   * added, e.g. "OpenRouter"; it is now the default. */
  return g_strdup_printf (_("New chats use the first model of “%s”"), name);
}

/* Says that the provider @id, just added, is now the default, and how
 * to choose another: the toast's Change shows Preferences ▸ General. */
static void
show_default_toast (NatterProvidersPage *self,
                    const char          *id,
                    const char          *name)
{
  g_autofree char *text = default_toast_text (name);
  g_autoptr(AdwToast) toast = natter_preferences_toast_new (text);

  adw_toast_set_button_label (toast, _("_Change"));
  adw_toast_set_action_name (toast, "preferences.show-default-model");
  g_set_weak_pointer (&self->default_toast, toast);
  g_free (self->default_toast_id);
  self->default_toast_id = g_strdup (id);
  g_signal_emit (self, signals[ADD_TOAST], 0, toast);
}

static void
apply_name_cb (NatterProviderRow       *row,
               const char              *name,
               NatterProvidersPage     *self)
{
  if (name[0] == '\0')
    {
      show_toast (self, _("A provider needs a name"));
      return;
    }
  update_provider (self, natter_provider_row_get_provider_id (row), 1, name);
  natter_provider_row_set_name (row, name);
  /* Named while the toast says it is the default: the toast names it
   * as it is now called, not "New Provider". */
  if (self->default_toast != NULL &&
      g_strcmp0 (self->default_toast_id, natter_provider_row_get_provider_id (row)) == 0)
    {
      g_autofree char *text = default_toast_text (name);

      natter_preferences_toast_set_text (self->default_toast, text);
    }
}

static void
apply_url_cb (NatterProviderRow       *row,
              const char              *url,
              NatterProvidersPage     *self)
{
  /* Refused, the field keeps what was typed, marked, and the row's
   * subtitle the URL still in use. */
  natter_provider_row_set_refused (row, "url", !natter_provider_base_url_is_valid (url));
  if (!natter_provider_base_url_is_valid (url))
    {
      show_toast (self, _("The base URL must start with http:// or https://"));
      return;
    }
  update_provider (self, natter_provider_row_get_provider_id (row), 2, url);
  natter_provider_row_set_base_url (row, url);
}

static void
apply_transcription_model_cb (NatterProviderRow       *row,
                              const char              *model,
                              NatterProvidersPage     *self)
{
  natter_settings_set_transcription_model (natter_services_get_settings (self->services),
                                           natter_provider_row_get_provider_id (row), model);
  show_toast (self, model[0] != '\0' ? _("Transcription model saved")
                                                                : _("Dictation is off for this provider"));
}

/* API keys: each operation carries the window (one pending reference)
 * and the provider id; rows may have been rebuilt when it completes. */

typedef struct
{
  NatterProvidersPage     *self;
  char                    *id;
} SecretOp;

static SecretOp *
secret_op_new (NatterProvidersPage     *self,
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
  NatterProvidersPage *self = op->self;
  g_autoptr(GError) error = NULL;
  NatterProviderRow *row;

  natter_secret_store_store_finish (NATTER_SECRET_STORE (object), result, &error);
  if (!pending_end (self))
    return;
  row = get_row (self, op->id);
  if (error != NULL)
    {
      g_autofree char *message = NULL;

      /* Not saved: the key stays in its field, marked, and the toast
       * says where else a key can come from. Without a keyring (no
       * Secret Service on the bus) that is the whole story; any other
       * failure is told as it came. */
      if (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
          g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER) ||
          g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED))
        message = g_strdup (_("API key not saved: no keyring. Set NATTER_API_KEY instead"));
      else
        /* Translators: %s says why the keyring refused the key */
        message = g_strdup_printf (_("API key not saved (set NATTER_API_KEY instead): %s"), error->message);
      if (row != NULL)
        natter_provider_row_set_refused (row, "key", TRUE);
      show_toast (self, message);
      return;
    }
  if (row != NULL)
    {
      natter_provider_row_set_refused (row, "key", FALSE);
      natter_provider_row_clear_entered_key (row);
      natter_provider_row_set_key_stored (row, TRUE);
    }
  show_toast (self, _("API key stored in the keyring"));
  natter_services_provider_changed (self->services, op->id);
  g_signal_emit (self, signals[KEY_STORED], 0, op->id);
}

static void
apply_key_cb (NatterProviderRow       *row,
              const char              *key,
              NatterProvidersPage     *self)
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
  if (pending_end (op->self) && (row = get_row (op->self, op->id)) != NULL)
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
  NatterProvidersPage *self = op->self;
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
  if ((row = get_row (self, op->id)) != NULL)
    natter_provider_row_set_key_stored (row, FALSE);
  show_toast (self, _("API key removed from the keyring"));
  natter_services_provider_changed (self->services, op->id);
}

static void
forget_key_cb (NatterProviderRow       *row,
               NatterProvidersPage     *self)
{
  const char *id = natter_provider_row_get_provider_id (row);

  natter_secret_store_clear_async (natter_services_get_secret_store (self->services), id,
                                   self->cancellable, key_cleared_cb, secret_op_new (self, id));
}

/* The connection test: GET {baseUrl}/models with the typed key, else
 * the stored one. */

typedef struct
{
  NatterProvidersPage     *self;
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
  NatterProvidersPage *self = op->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;
  NatterProviderRow *row;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (object), result, &error);
  if (pending_end (self))
    {
      guint n = models != NULL ? g_strv_length (models) : 0;

      if ((row = get_row (self, op->id)) != NULL)
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
          /* The provider answers now: a window's word that it could
           * not be reached is out of date. */
          natter_services_provider_changed (self->services, op->id);
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
         NatterProvidersPage     *self)
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

/* The models on the saved provider's server, over Preferences. */
static void
manage_models_cb (NatterProviderRow       *row,
                  NatterProvidersPage     *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog = natter_models_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                                natter_services_get_provider_registry (self->services),
                                                natter_provider_row_get_provider_id (row));

  gtk_window_present (GTK_WINDOW (dialog));
}

/* Removing (with undo) and adding providers */

typedef struct
{
  NatterProvidersPage     *self;  /* weak */
  guint                    index;
  NatterProviderConfig    *entry;
  char                    *default_model; /* nullable: it was the default, with this model */
  gboolean                 undone;
} RemovedProvider;

static void
removed_provider_free (gpointer data)
{
  RemovedProvider *removed = data;

  g_clear_weak_pointer (&removed->self);
  natter_provider_config_free (removed->entry);
  g_free (removed->default_model);
  g_free (removed);
}

static void
undo_remove_cb (AdwToast        *toast,
                RemovedProvider *removed)
{
  NatterProvidersPage *self = removed->self;
  g_autoptr(GPtrArray) providers = NULL;

  if (self == NULL || removed->undone)
    return;
  removed->undone = TRUE;
  providers = natter_settings_dup_providers (self->settings);
  if (natter_provider_choices_find (providers, removed->entry->id) < 0)
    g_ptr_array_insert (providers, MIN (removed->index, providers->len),
                        natter_provider_config_copy (removed->entry));
  if (write_providers (self, providers) && removed->default_model != NULL)
    {
      natter_settings_set_default_provider (self->settings, removed->entry->id);
      natter_settings_set_default_model (self->settings, removed->default_model);
    }
  rebuild (self);
}

/* The default provider was removed: the default goes to the first
 * provider left (or the built-in one, when none is), starting from its
 * first model, so no message is ever sent to a provider that is gone. */
static void
replace_default (NatterProvidersPage     *self,
                 RemovedProvider         *removed,
                 GPtrArray               *providers)
{
  NatterProviderConfig *first = providers->len > 0 ? g_ptr_array_index (providers, 0) : NULL;

  if (g_strcmp0 (natter_settings_get_default_provider (self->settings), removed->entry->id) != 0)
    return;
  removed->default_model = g_strdup (natter_settings_get_default_model (self->settings));
  if (removed->default_model == NULL)
    removed->default_model = g_strdup ("");
  natter_settings_set_default_model (self->settings, "");
  /* Only the built-in provider left: back to no default at all, as out
   * of the box (the same provider is used), so that the next provider
   * the person adds becomes the default again
   * (natter_settings_adopt_first_provider()). */
  if (first != NULL && g_str_equal (first->id, NATTER_DEFAULT_PROVIDER_ID) && providers->len == 1)
    first = NULL;
  natter_settings_set_default_provider (self->settings, first != NULL ? first->id : "");
}

static void
remove_cb (NatterProviderRow       *row,
           NatterProvidersPage     *self)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_providers (self->settings);
  int index = natter_provider_choices_find (providers, natter_provider_row_get_provider_id (row));
  g_autofree char *title = NULL;
  g_autoptr(AdwToast) toast = NULL;
  RemovedProvider *removed;

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
  replace_default (self, removed, providers);

  /* The key stays in the keyring, so Undo gives the provider back whole. */
  title = g_strdup_printf (_("Removed “%s”"), removed->entry->name);
  toast = natter_preferences_toast_new_undo (title);
  g_object_set_data_full (G_OBJECT (toast), "removed", removed, removed_provider_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_remove_cb), removed);
  g_signal_emit (self, signals[ADD_TOAST], 0, toast);

  rebuild (self);
}

static void
add_provider_activated_cb (NatterProvidersPage *self)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_providers (self->settings);
  g_autofree char *id = NULL;

  for (guint n = 1; id == NULL || natter_provider_choices_find (providers, id) >= 0 ||
                    g_str_equal (id, NATTER_DEFAULT_PROVIDER_ID); n++)
    {
      g_free (id);
      id = g_strdup_printf ("provider-%u", n);
    }
  g_ptr_array_add (providers, natter_provider_config_new (id, _("New Provider"), "http://localhost:8080/v1"));
  if (!write_providers (self, providers))
    return;
  rebuild (self);

  natter_provider_row_focus_name (get_row (self, id));
  /* A person who sets up a server of their own before choosing any
   * model means to talk to it, not to the built-in Ollama (README,
   * "Pointing Natter at a server"). */
  if (natter_settings_adopt_first_provider (self->settings, id,
                                            natter_session_index_get_recent_model (natter_services_get_index (self->services), NULL) != NULL))
    show_default_toast (self, id, _("New Provider"));
}

/* Building the provider rows */

static void
add_provider_row (NatterProvidersPage     *self,
                  NatterProviderConfig    *entry,
                  gboolean                 expanded)
{
  NatterProviderRow *row = natter_provider_row_new (entry);
  const char *id = natter_provider_row_get_provider_id (row);
  g_autofree char *transcription_model = NULL;

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), expanded);
  transcription_model = natter_settings_dup_transcription_model (natter_services_get_settings (self->services), id);
  natter_provider_row_set_transcription_model (row, transcription_model);
  g_signal_connect (row, "apply-name", G_CALLBACK (apply_name_cb), self);
  g_signal_connect (row, "apply-url", G_CALLBACK (apply_url_cb), self);
  g_signal_connect (row, "apply-key", G_CALLBACK (apply_key_cb), self);
  g_signal_connect (row, "apply-transcription-model", G_CALLBACK (apply_transcription_model_cb), self);
  g_signal_connect (row, "forget-key", G_CALLBACK (forget_key_cb), self);
  g_signal_connect (row, "test", G_CALLBACK (test_cb), self);
  g_signal_connect (row, "manage-models", G_CALLBACK (manage_models_cb), self);
  g_signal_connect (row, "remove", G_CALLBACK (remove_cb), self);

  adw_preferences_group_add (self->providers_group, GTK_WIDGET (row));
  g_ptr_array_add (self->widgets, row);
  g_hash_table_replace (self->rows, (gpointer) id, row);

  natter_secret_store_lookup_async (natter_services_get_secret_store (self->services), id,
                                    self->cancellable, key_looked_up_cb, secret_op_new (self, id));
}

static void
rebuild (NatterProvidersPage *self)
{
  g_autoptr(GPtrArray) providers = natter_settings_dup_providers (self->settings);
  g_autoptr(GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter iter;
  NatterProviderRow *row;

  /* Rows are rebuilt whole; which were open survives. */
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &row))
    if (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (row)))
      g_hash_table_add (expanded, g_strdup (natter_provider_row_get_provider_id (row)));
  for (guint i = 0; i < self->widgets->len; i++)
    {
      adw_preferences_group_remove (self->providers_group, g_ptr_array_index (self->widgets, i));
    }
  g_ptr_array_set_size (self->widgets, 0);
  g_hash_table_remove_all (self->rows);

  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *entry = g_ptr_array_index (providers, i);

      add_provider_row (self, entry, g_hash_table_contains (expanded, entry->id));
    }
}

/* The setting changed, here or elsewhere: the page's own writes have
 * already shown themselves. */
static void
providers_changed_cb (NatterProvidersPage *self)
{
  if (!self->writing_providers)
    rebuild (self);
}

/* GObject */

static void
natter_providers_page_dispose (GObject *object)
{
  NatterProvidersPage *self = NATTER_PROVIDERS_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_weak_pointer (&self->default_toast);
  g_hash_table_remove_all (self->rows);
  g_ptr_array_set_size (self->widgets, 0);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_PROVIDERS_PAGE);

  G_OBJECT_CLASS (natter_providers_page_parent_class)->dispose (object);
}

static void
natter_providers_page_finalize (GObject *object)
{
  NatterProvidersPage *self = NATTER_PROVIDERS_PAGE (object);

  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->default_toast_id, g_free);
  g_clear_object (&self->settings);
  g_clear_object (&self->services);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->widgets, g_ptr_array_unref);

  G_OBJECT_CLASS (natter_providers_page_parent_class)->finalize (object);
}

static void
natter_providers_page_class_init (NatterProvidersPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_providers_page_dispose;
  object_class->finalize = natter_providers_page_finalize;

  /**
   * NatterProvidersPage::add-toast:
   * @self: the page
   * @toast: (transfer none): the toast (natter-preferences-toast.h)
   *
   * The page has something to say; the window that holds it shows
   * @toast.
   */
  signals[ADD_TOAST] = g_signal_new ("add-toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                     NULL, G_TYPE_NONE, 1, ADW_TYPE_TOAST);
  /**
   * NatterProvidersPage::key-stored:
   * @self: the page
   * @provider_id: the provider whose API key is now in the keyring
   *
   * A key was stored: that provider may now list models it could not
   * list before.
   */
  signals[KEY_STORED] = g_signal_new ("key-stored", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                      NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-providers-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterProvidersPage, providers_group);
  gtk_widget_class_bind_template_child (widget_class, NatterProvidersPage, add_provider_row);
  gtk_widget_class_bind_template_callback (widget_class, add_provider_activated_cb);
}

static void
natter_providers_page_init (NatterProvidersPage *self)
{
  self->cancellable = g_cancellable_new ();
  self->rows = g_hash_table_new (g_str_hash, g_str_equal);
  self->widgets = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_providers_page_set_services:
 * @self: the page, as the Preferences window's template built it
 * @services: the services whose providers and keys it edits; their
 *   settings must exist
 *
 * Hands the page what it edits, once, right after it is built: it shows
 * the providers and follows the `providers` setting from then on.
 */
void
natter_providers_page_set_services (NatterProvidersPage *self,
                                    NatterServices      *services)
{
  g_return_if_fail (NATTER_IS_PROVIDERS_PAGE (self));
  g_return_if_fail (NATTER_IS_SERVICES (services));
  g_return_if_fail (self->services == NULL);

  self->services = g_object_ref (services);
  self->settings = g_object_ref (natter_services_get_settings (services));
  rebuild (self);
  g_signal_connect_swapped (self->settings, "notify::providers", G_CALLBACK (providers_changed_cb), self);
}

/**
 * natter_providers_page_get_row:
 * @self: the page
 * @provider_id: a provider's id
 *
 * For tests, which drive the rows as a person would.
 *
 * Returns: (transfer none) (nullable): the row of provider @provider_id
 */
NatterProviderRow *
natter_providers_page_get_row (NatterProvidersPage *self,
                               const char          *provider_id)
{
  g_return_val_if_fail (NATTER_IS_PROVIDERS_PAGE (self), NULL);
  return get_row (self, provider_id);
}

/**
 * natter_providers_page_get_add_row:
 * @self: the page
 *
 * For tests.
 *
 * Returns: (transfer none): the Add Provider row
 */
GtkWidget *
natter_providers_page_get_add_row (NatterProvidersPage *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDERS_PAGE (self), NULL);
  return GTK_WIDGET (self->add_provider_row);
}

/**
 * natter_providers_page_get_n_pending:
 * @self: the page
 *
 * Returns: how many keyring calls and connection tests are under way,
 *   for tests
 */
guint
natter_providers_page_get_n_pending (NatterProvidersPage *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDERS_PAGE (self), 0);
  return self->n_pending;
}
