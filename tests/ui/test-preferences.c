/* test-preferences.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Preferences window, driven as a user would, over
 * NatterServices built on a temp data dir, a temp NATTER_CONFIG_DIR, a
 * fresh memory GSettings backend and the memory secret store; a
 * localhost SoupServer plays a provider's `GET /models`. Ends with
 * screenshots of each page in light and dark style saved to
 * $G_TEST_BUILDDIR/screenshots/.
 */

#include <string.h>

#include <adwaita.h>
#include <libsoup/soup.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "config.h"
#include "natter-memory-secret-store.h"
#include "natter-models-dialog.h"
#include "natter-preferences-window-private.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"

#define KEY "sk-prefs-SECRET-9"

typedef struct
{
  NatterTestServer        *models;  /* the local server's /models; records each request's key */
  char                    *url;
  char                    *down_url;
  GFile                   *data_dir;
  GFile                   *config_dir;
  GSettings               *settings;
  NatterMemorySecretStore *secrets;
  NatterServices          *services;
  NatterPreferencesWindow *window;
} Fixture;

#define MODELS "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\"},{\"id\":\"beta\"},{\"id\":\"gamma\"}]}"

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autofree char *config = NULL;

  f->models = natter_test_server_new_models (MODELS);
  f->url = g_strdup (f->models->base_url);
  f->down_url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());

  f->data_dir = natter_test_make_temp_dir ();
  f->config_dir = natter_test_make_temp_dir ();
  config = g_file_get_path (f->config_dir);
  g_setenv ("NATTER_CONFIG_DIR", config, TRUE);

  f->settings = g_settings_new_with_backend (APP_ID, backend);
  g_settings_set_value (f->settings, "providers",
                        g_variant_new_parsed ("[('local', 'Local Server', %s), ('down', 'Down Server', %s)]",
                                              f->url, f->down_url));
  g_settings_set_string (f->settings, "default-provider", "local");
  g_unsetenv ("NATTER_API_KEY");

  f->secrets = natter_memory_secret_store_new ();
  {
    g_autoptr(NatterSettings) settings = natter_settings_new (f->settings);

    f->services = natter_services_new (f->data_dir, settings, NULL, NULL, NULL);
  }
  natter_services_set_secret_store (f->services, NATTER_SECRET_STORE (f->secrets));

  f->window = natter_preferences_window_new (NULL, f->services);
  gtk_window_present (GTK_WINDOW (f->window));
  ui_wait_preferences_idle (f->window);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  ui_destroy_preferences_window (f->window);

  g_assert_finalize_object (f->services);
  g_assert_finalize_object (f->secrets);
  /* Change notifications are dispatched from the main context, each
   * holding the settings. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (f->settings);
  natter_test_server_free (f->models);
  natter_test_remove_tree (f->data_dir);
  natter_test_remove_tree (f->config_dir);
  g_clear_object (&f->data_dir);
  g_clear_object (&f->config_dir);
  g_free (f->url);
  g_free (f->down_url);
  g_unsetenv ("NATTER_CONFIG_DIR");
}

static GtkWidget *
provider_widget (Fixture    *f,
                 const char *id,
                 const char *field)
{
  GtkWidget *widget = natter_preferences_window_get_provider_widget (f->window, id, field);

  g_assert_nonnull (widget);
  return widget;
}

static void
apply_text (GtkWidget  *entry,
            const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "apply");
}

static char *
provider_field (Fixture    *f,
                const char *id,
                guint       field)
{
  g_autoptr(GVariant) providers = g_settings_get_value (f->settings, "providers");

  for (gsize i = 0; i < g_variant_n_children (providers); i++)
    {
      g_autoptr(GVariant) entry = g_variant_get_child_value (providers, i);
      g_autoptr(GVariant) entry_id = g_variant_get_child_value (entry, 0);
      g_autoptr(GVariant) value = NULL;

      if (!g_str_equal (g_variant_get_string (entry_id, NULL), id))
        continue;
      value = g_variant_get_child_value (entry, field);
      return g_variant_dup_string (value, NULL);
    }
  return NULL;
}

static void
test_provider_edit (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *url = NULL;
  g_autofree char *name = NULL;
  g_autofree char *down_url = NULL;

  apply_text (provider_widget (f, "local", "url"), "https://example.invalid/v1");
  url = provider_field (f, "local", 2);
  g_assert_cmpstr (url, ==, "https://example.invalid/v1");

  apply_text (provider_widget (f, "local", "name"), "  Renamed  ");
  name = provider_field (f, "local", 1);
  g_assert_cmpstr (name, ==, "Renamed");

  /* Not a URL: refused with a toast, the setting untouched. */
  apply_text (provider_widget (f, "down", "url"), "ftp://nope");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==,
                   "The base URL must start with http:// or https://");
  down_url = provider_field (f, "down", 2);
  g_assert_cmpstr (down_url, ==, f->down_url);
  /* The field keeps what was typed, marked as refused, and the row says
   * the URL still in use; the next edit clears the mark. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (provider_widget (f, "down", "url"))), ==, "ftp://nope");
  g_assert_true (gtk_widget_has_css_class (provider_widget (f, "down", "url"), "error"));
  g_assert_cmpstr (natter_provider_row_get_base_url (natter_preferences_window_get_provider_row (f->window, "down")),
                   ==, f->down_url);
  gtk_editable_set_text (GTK_EDITABLE (provider_widget (f, "down", "url")), "ftp://nope/");
  g_assert_false (gtk_widget_has_css_class (provider_widget (f, "down", "url"), "error"));
  apply_text (provider_widget (f, "down", "url"), "not a url");
  g_assert_true (gtk_widget_has_css_class (provider_widget (f, "down", "url"), "error"));
  apply_text (provider_widget (f, "down", "url"), f->down_url);
  g_assert_false (gtk_widget_has_css_class (provider_widget (f, "down", "url"), "error"));

  /* The services follow the setting live. */
  {
    g_autoptr(NatterOpenaiProvider) provider = NULL;
    g_autoptr(GError) error = NULL;

    provider = natter_provider_registry_get_provider (natter_services_get_provider_registry (f->services),
                                                      "local", &error);
    g_assert_no_error (error);
    g_assert_cmpstr (natter_openai_provider_get_base_url (provider), ==, "https://example.invalid/v1");
  }
  ui_wait_preferences_idle (f->window);
}

static void
assert_settings_free_of (GSettings  *settings,
                         const char *secret)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_auto(GStrv) keys = NULL;

  g_object_get (settings, "settings-schema", &schema, NULL);
  keys = g_settings_schema_list_keys (schema);
  for (guint i = 0; keys[i] != NULL; i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (settings, keys[i]);
      g_autofree char *text = g_variant_print (value, FALSE);

      g_assert_null (strstr (text, secret));
    }
}

static void
test_api_key (Fixture       *f,
              gconstpointer  data)
{
  GtkWidget *key_row = provider_widget (f, "local", "key");

  g_assert_false (natter_preferences_window_get_key_stored (f->window, "local"));
  apply_text (key_row, KEY);
  ui_wait_preferences_idle (f->window);

  g_assert_cmpstr (natter_memory_secret_store_peek (f->secrets, "local"), ==, KEY);
  g_assert_cmpuint (natter_memory_secret_store_get_n_keys (f->secrets), ==, 1);
  assert_settings_free_of (f->settings, KEY);
  /* Stored: the field is emptied, the row only says so. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (key_row)), ==, "");
  g_assert_true (natter_preferences_window_get_key_stored (f->window, "local"));
  g_assert_true (gtk_widget_get_visible (provider_widget (f, "local", "forget")));
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "API key stored in the keyring");

  /* A window opened later finds it stored. */
  {
    NatterPreferencesWindow *second = natter_preferences_window_new (NULL, f->services);
    gpointer weak = second;

    g_object_add_weak_pointer (G_OBJECT (second), &weak);
    while (natter_preferences_window_get_n_pending (second) > 0)
      g_main_context_iteration (NULL, TRUE);
    g_assert_true (natter_preferences_window_get_key_stored (second, "local"));
    g_assert_false (natter_preferences_window_get_key_stored (second, "down"));
    gtk_window_destroy (GTK_WINDOW (second));
    while (weak != NULL)
      g_main_context_iteration (NULL, FALSE);
  }

  g_signal_emit_by_name (provider_widget (f, "local", "forget"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_assert_null (natter_memory_secret_store_peek (f->secrets, "local"));
  g_assert_false (natter_preferences_window_get_key_stored (f->window, "local"));

  /* No keyring: the toast says so in plain words, without the key, and
   * where else a key can come from; nothing pretends it was saved. */
  natter_memory_secret_store_set_failing (f->secrets, TRUE);
  apply_text (key_row, KEY);
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==,
                   "API key not saved: no keyring. Set NATTER_API_KEY instead");
  g_assert_null (strstr (natter_preferences_window_get_last_toast (f->window), KEY));
  g_assert_false (natter_preferences_window_get_key_stored (f->window, "local"));
  g_assert_false (gtk_widget_get_visible (provider_widget (f, "local", "forget")));
  g_assert_true (gtk_widget_has_css_class (key_row, "error"));
  gtk_editable_set_text (GTK_EDITABLE (key_row), "");
  g_assert_false (gtk_widget_has_css_class (key_row, "error"));
}

static void
test_connection_test (Fixture       *f,
                      gconstpointer  data)
{
  const char *toast;

  /* With the stored key. */
  apply_text (provider_widget (f, "local", "key"), KEY);
  ui_wait_preferences_idle (f->window);
  g_ptr_array_set_size (f->models->authorizations, 0);
  g_signal_emit_by_name (provider_widget (f, "local", "test"), "clicked");
  g_assert_false (gtk_widget_get_sensitive (provider_widget (f, "local", "test")));
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Connected: 3 models");
  g_assert_cmpuint (f->models->authorizations->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->models->authorizations, 0), ==, "Bearer " KEY);
  g_assert_true (gtk_widget_get_sensitive (provider_widget (f, "local", "test")));

  /* A typed, not yet applied key is what is tested. */
  gtk_editable_set_text (GTK_EDITABLE (provider_widget (f, "local", "key")), "sk-typed");
  g_signal_emit_by_name (provider_widget (f, "local", "test"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (g_ptr_array_index (f->models->authorizations, 1), ==, "Bearer sk-typed");

  /* Unreachable: the provider's own message. */
  g_signal_emit_by_name (provider_widget (f, "down", "test"), "clicked");
  ui_wait_preferences_idle (f->window);
  toast = natter_preferences_window_get_last_toast (f->window);
  g_test_message ("Unreachable: %s", toast);
  g_assert_false (g_str_has_prefix (toast, "Connected"));
  g_assert_nonnull (strstr (toast, "Down Server"));
  g_assert_null (strstr (toast, KEY));
}

static NatterModelsDialog *
find_models_dialog (void)
{
  return (NatterModelsDialog *) ui_find_toplevel (NATTER_TYPE_MODELS_DIALOG);
}

static gboolean
models_listed (gpointer data)
{
  NatterModelsDialog *dialog = find_models_dialog ();

  return dialog != NULL && g_strcmp0 (natter_models_dialog_get_state (dialog), "models") == 0;
}

/* A provider's models from its row; a server that is not Ollama has
 * them listed, without Pull or Delete (docs/runtime.md §13). */
static void
test_manage_models (Fixture       *f,
                    gconstpointer  data)
{
  NatterModelsDialog *dialog;
  GtkWidget *list;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) buttons = NULL;

  g_signal_emit_by_name (provider_widget (f, "local", "models"), "clicked");
  ui_wait_until (models_listed, NULL);
  dialog = find_models_dialog ();
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (f->window));
  list = GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog), NATTER_TYPE_MODELS_DIALOG, "model_list"));
  rows = ui_find_all (list, ADW_TYPE_ACTION_ROW);
  g_assert_cmpuint (rows->len, ==, 3);
  g_assert_cmpstr (adw_preferences_row_get_title (g_ptr_array_index (rows, 0)), ==, "alpha");
  buttons = ui_find_all (list, GTK_TYPE_BUTTON);
  g_assert_cmpuint (buttons->len, ==, 0);
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog),
                                                                                  NATTER_TYPE_MODELS_DIALOG,
                                                                                  "pull_group"))));
  g_assert_true (ui_label_shown (dialog, "This server is not Ollama: its models are listed here, "
                                         "and pulled or deleted with its own tools"));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static guint
combo_n_items (GtkWidget *combo)
{
  return g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (combo)));
}

static const char *
combo_item (GtkWidget *combo,
            guint      position)
{
  g_autoptr(GtkStringObject) item = g_list_model_get_item (adw_combo_row_get_model (ADW_COMBO_ROW (combo)),
                                                           position);

  return gtk_string_object_get_string (item);
}

static void
test_default_model (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *model = natter_preferences_window_get_widget (f->window, "model");
  GtkWidget *provider = natter_preferences_window_get_widget (f->window, "provider");
  g_autofree char *chosen = NULL;
  g_autofree char *default_provider = NULL;
  g_autofree char *reset = NULL;

  /* Filled from the default provider's /models, after "first model". */
  g_assert_cmpuint (combo_n_items (model), ==, 4);
  g_assert_cmpstr (combo_item (model, 1), ==, "alpha");
  g_assert_cmpstr (combo_item (model, 3), ==, "gamma");
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (model)), ==, 0);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (model)), ==, "");

  adw_combo_row_set_selected (ADW_COMBO_ROW (model), 2);
  chosen = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (chosen, ==, "beta");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (model)), ==, 2);

  /* The provider combo lists the providers by name. */
  g_assert_cmpuint (combo_n_items (provider), ==, 2);
  g_assert_cmpstr (combo_item (provider, 1), ==, "Down Server");
  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 1);
  default_provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (default_provider, ==, "down");
  reset = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (reset, ==, "");
  ui_wait_preferences_idle (f->window);

  /* Unreachable: a clear state, the refresh button back. */
  g_test_message ("Model row: %s", adw_action_row_get_subtitle (ADW_ACTION_ROW (model)));
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (model)),
                                   "Could not list the models: "));
  g_assert_true (gtk_widget_has_css_class (model, "error"));
  g_assert_cmpuint (combo_n_items (model), ==, 1);

  /* Back to the reachable one: the error clears. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 0);
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (combo_n_items (model), ==, 4);
  g_assert_false (gtk_widget_has_css_class (model, "error"));
}

static void
test_limit_and_switch (Fixture       *f,
                       gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (natter_preferences_window_get_widget (f->window, "max-calls"));
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-permission"));
  g_autofree char *data_dir = g_file_get_path (f->data_dir);

  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 50);
  gtk_spin_button_set_value (spin, 7);
  g_assert_cmpuint (g_settings_get_uint (f->settings, "max-model-calls"), ==, 7);
  g_assert_cmpuint (natter_services_get_max_model_calls (f->services), ==, 7);
  g_settings_set_uint (f->settings, "max-model-calls", 120);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 120);

  g_assert_false (gtk_switch_get_active (toggle));
  gtk_switch_set_active (toggle, TRUE);
  g_assert_true (g_settings_get_boolean (f->settings, "auto-permission"));
  g_settings_set_boolean (f->settings, "auto-permission", FALSE);
  g_assert_false (gtk_switch_get_active (toggle));

  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (natter_preferences_window_get_widget (f->window, "data-dir"))),
                   ==, data_dir);
}

/* "Name Conversations Automatically" is the auto-title key, on by default,
 * both ways; the services (which the window and the command line ask) follow. */
static void
test_auto_title_switch (Fixture       *f,
                        gconstpointer  data)
{
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-title"));

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle),
                                                                                           ADW_TYPE_ACTION_ROW))),
                   ==, "Name Conversations Automatically");
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (natter_services_get_auto_title (f->services));
  gtk_switch_set_active (toggle, FALSE);
  g_assert_false (g_settings_get_boolean (f->settings, "auto-title"));
  g_assert_false (natter_services_get_auto_title (f->services));
  g_settings_set_boolean (f->settings, "auto-title", TRUE);
  g_assert_true (gtk_switch_get_active (toggle));
}

/* "Compact Long Conversations Automatically" is the auto-compact key, on
 * by default, both ways; the settings the window and the command line ask
 * before a send follow. */
static void
test_auto_compact_switch (Fixture       *f,
                          gconstpointer  data)
{
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-compact"));
  NatterSettings *settings = natter_services_get_settings (f->services);

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle),
                                                                                           ADW_TYPE_ACTION_ROW))),
                   ==, "Compact Long Conversations Automatically");
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (natter_settings_get_auto_compact (settings));
  gtk_switch_set_active (toggle, FALSE);
  g_assert_false (g_settings_get_boolean (f->settings, "auto-compact"));
  g_assert_false (natter_settings_get_auto_compact (settings));
  g_settings_set_boolean (f->settings, "auto-compact", TRUE);
  g_assert_true (gtk_switch_get_active (toggle));
}

/* Below "Compact Long Conversations Automatically", the context window in
 * tokens of the model a message goes to when none is chosen: what the
 * spin button shows is that model's `context-windows` entry, both ways
 * (auto-compact reads the entry, see test-auto-compact); 0 forgets it;
 * each model has its own; with no default model, the provider's first
 * (the README's first-run settings). A number typed with thousands
 * separators is read whole. */
static void
test_context_window (Fixture       *f,
                     gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (natter_preferences_window_get_widget (f->window, "context-window"));
  AdwPreferencesRow *row = ADW_PREFERENCES_ROW (natter_preferences_window_get_widget (f->window,
                                                                                     "context-window-row"));
  GtkWidget *compact = natter_preferences_window_get_widget (f->window, "auto-compact");
  NatterSettings *settings = natter_services_get_settings (f->services);
  g_autoptr(GVariant) windows = NULL;
  gint32 value = 0;

  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (row), ADW_TYPE_PREFERENCES_GROUP) ==
                 gtk_widget_get_ancestor (compact, ADW_TYPE_PREFERENCES_GROUP));
  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (spin), ADW_TYPE_ACTION_ROW) == GTK_WIDGET (row));
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “alpha”");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  gtk_editable_set_text (GTK_EDITABLE (spin), "128,000");
  gtk_spin_button_update (spin);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 128000);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "alpha"), ==, 128000);
  gtk_spin_button_set_value (spin, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "alpha"), ==, 0);

  g_settings_set_string (f->settings, "default-model", "beta");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “beta”");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 0);

  gtk_spin_button_set_value (spin, 8192);
  windows = g_settings_get_value (f->settings, "context-windows");
  g_assert_true (g_variant_lookup (windows, "local/beta", "i", &value));
  g_assert_cmpint (value, ==, 8192);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "beta"), ==, 8192);

  /* Changed elsewhere: the row follows. */
  g_settings_set_value (f->settings, "context-windows", g_variant_new_parsed ("{'local/beta': 4096, 'local/gamma': 100}"));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 4096);

  /* Another model shows and sets its own. */
  g_settings_set_string (f->settings, "default-model", "gamma");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “gamma”");
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 100);
  gtk_spin_button_set_value (spin, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "gamma"), ==, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "beta"), ==, 4096);
  g_clear_pointer (&windows, g_variant_unref);
  windows = g_settings_get_value (f->settings, "context-windows");
  g_assert_cmpuint (g_variant_n_children (windows), ==, 1);
}

static void
test_remove_undo_add (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GVariant) before = g_settings_get_value (f->settings, "providers");
  g_autoptr(GVariant) after_undo = NULL;
  g_autoptr(GVariant) added = NULL;
  g_autofree char *removed = NULL;
  g_autofree char *name = NULL;
  AdwToast *toast;

  g_signal_emit_by_name (provider_widget (f, "local", "remove"), "clicked");
  removed = provider_field (f, "local", 1);
  g_assert_null (removed);
  g_assert_null (natter_preferences_window_get_provider_widget (f->window, "local", "name"));
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Removed “Local Server”");

  toast = natter_preferences_window_get_undo_toast (f->window);
  g_assert_nonnull (toast);
  g_signal_emit_by_name (toast, "button-clicked");
  after_undo = g_settings_get_value (f->settings, "providers");
  g_assert_true (g_variant_equal (before, after_undo));
  g_assert_nonnull (natter_preferences_window_get_provider_widget (f->window, "local", "name"));
  ui_wait_preferences_idle (f->window);

  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-provider"), "activated");
  added = g_settings_get_value (f->settings, "providers");
  g_assert_cmpuint (g_variant_n_children (added), ==, 3);
  name = provider_field (f, "provider-1", 1);
  g_assert_cmpstr (name, ==, "New Provider");
  g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (provider_widget (f, "provider-1", "expander"))));
  ui_wait_preferences_idle (f->window);
}

/* Removing the default provider moves the default to the first one
 * left (from its first model), or to none when no provider is left, so
 * the default never names a provider that is gone; Undo gives it back. */
static void
test_remove_default (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;

  g_settings_set_string (f->settings, "default-model", "m1");
  ui_wait_preferences_idle (f->window);
  g_signal_emit_by_name (provider_widget (f, "local", "remove"), "clicked");
  provider = g_settings_get_string (f->settings, "default-provider");
  model = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (provider, ==, "down");
  g_assert_cmpstr (model, ==, "");
  ui_wait_preferences_idle (f->window);

  g_signal_emit_by_name (natter_preferences_window_get_undo_toast (f->window), "button-clicked");
  g_free (provider);
  g_free (model);
  provider = g_settings_get_string (f->settings, "default-provider");
  model = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (provider, ==, "local");
  g_assert_cmpstr (model, ==, "m1");
  ui_wait_preferences_idle (f->window);

  /* Another provider goes without touching the default. */
  g_signal_emit_by_name (provider_widget (f, "down", "remove"), "clicked");
  g_free (provider);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "local");
  ui_wait_preferences_idle (f->window);

  g_signal_emit_by_name (provider_widget (f, "local", "remove"), "clicked");
  g_free (provider);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "");
  ui_wait_preferences_idle (f->window);
}

static gboolean
agent_file_exists (Fixture    *f,
                   const char *agent_id)
{
  g_autofree char *name = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GFile) file = g_file_get_child (f->config_dir, "agents");
  g_autoptr(GFile) child = g_file_get_child (file, name);

  return g_file_query_exists (child, NULL);
}

static void
test_agents (Fixture       *f,
             gconstpointer  data)
{
  AdwExpanderRow *assistant = ADW_EXPANDER_ROW (natter_preferences_window_get_widget (f->window, "assistant"));
  g_autoptr(JsonObject) saved = NULL;
  g_autoptr(GError) error = NULL;
  GtkTextBuffer *buffer;
  JsonArray *tools;

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (assistant)), ==, "Assistant");

  /* Add. */
  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
  g_assert_nonnull (natter_preferences_window_get_editor_widget (f->window, "name"));
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window, "name")),
                         "Code Reviewer");
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (natter_preferences_window_get_editor_widget (f->window, "prompt")));
  gtk_text_buffer_set_text (buffer, "Review the code.\nBe kind.", -1);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (natter_preferences_window_get_editor_widget (f->window,
                                                                                              "tool:natter.ask_human")),
                               FALSE);
  adw_combo_row_set_selected (ADW_COMBO_ROW (natter_preferences_window_get_editor_widget (f->window, "model-provider")), 1);
  ui_wait_preferences_idle (f->window);
  adw_combo_row_set_selected (ADW_COMBO_ROW (natter_preferences_window_get_editor_widget (f->window, "model-list")), 1);
  g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");

  g_assert_true (agent_file_exists (f, "code-reviewer"));
  g_assert_null (natter_preferences_window_get_editor_widget (f->window, "name"));
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Saved “Code Reviewer”");
  saved = natter_agent_store_load (natter_services_get_agent_store (f->services), "code-reviewer", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (saved, "systemPrompt"), ==, "Review the code.\nBe kind.");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (saved, "model"), "provider"),
                   ==, "local");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (saved, "model"), "model"),
                   ==, "beta");
  tools = json_object_get_array_member (saved, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 3);
  g_assert_cmpstr (json_array_get_string_element (tools, 0), ==, "natter.read_file");
  g_assert_nonnull (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "row"));

  /* Edit keeps the id. */
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "edit"), "clicked");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window, "name")), "Reviewer");
  g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");
  g_assert_true (agent_file_exists (f, "code-reviewer"));
  g_assert_false (agent_file_exists (f, "reviewer"));

  /* A broken file shows, with its reason, and can be deleted. */
  {
    g_autoptr(GFile) dir = g_file_get_child (f->config_dir, "agents");
    g_autoptr(GFile) broken = g_file_get_child (dir, "broken.json");

    g_assert_true (g_file_replace_contents (broken, "{", 1, NULL, FALSE, 0, NULL, NULL, NULL));
    g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
    g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");
    g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "An agent needs a name");
    gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window, "name")), "Second");
    g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");
    g_assert_nonnull (natter_preferences_window_get_agent_widget (f->window, "broken", "row"));
    g_assert_null (natter_preferences_window_get_agent_widget (f->window, "broken", "edit"));
    g_assert_true (gtk_widget_has_css_class (natter_preferences_window_get_agent_widget (f->window, "broken", "row"),
                                             "error"));
  }

  /* Delete, undo, delete. */
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "delete"), "clicked");
  g_assert_false (agent_file_exists (f, "code-reviewer"));
  g_assert_null (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "row"));
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Deleted “Reviewer”");
  g_signal_emit_by_name (natter_preferences_window_get_undo_toast (f->window), "button-clicked");
  g_assert_true (agent_file_exists (f, "code-reviewer"));
  g_assert_nonnull (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "row"));
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "delete"), "clicked");
  g_assert_false (agent_file_exists (f, "code-reviewer"));
}

/* Screenshots */

static void
save_screenshot (Fixture    *f,
                 const char *name)
{
  ui_wait_preferences_idle (f->window);
  ui_save_window (GTK_WIDGET (f->window), name);
}

typedef struct
{
  GtkWidget *window;
  int        width;
} WidthWait;

static gboolean
window_is_wide (gpointer data)
{
  WidthWait *w = data;

  /* The default size holds the window's frame (its shadow, under
   * Xvfb's no window manager): a few pixels more than the widget. */
  return gtk_widget_get_width (w->window) <= w->width && gtk_widget_get_width (w->window) >= w->width - 20;
}

static char *
describe_width (gpointer data)
{
  WidthWait *w = data;

  return g_strdup_printf ("the window is %d px wide, not %d", gtk_widget_get_width (w->window), w->width);
}

/* Resizes the window to @width px and waits until it is laid out. */
static void
resize (Fixture *f,
        int      width)
{
  WidthWait w = { GTK_WIDGET (f->window), width };

  gtk_window_set_default_size (GTK_WINDOW (f->window), width, 700);
  ui_wait_until_full (window_is_wide, describe_width, &w);
  ui_wait_preferences_idle (f->window);
  for (guint i = 0; i < 3; i++)
    ui_wait_painted ();
}

/* Asserts that @row shows the chosen @name, whole when @whole, else
 * cut with the whole name as its tooltip; on one line, within the row,
 * and that the row's title keeps its one line. */
static void
assert_name_shown (GtkWidget  *row,
                   const char *name,
                   gboolean    whole)
{
  g_autoptr(GPtrArray) labels = ui_find_all (row, GTK_TYPE_LABEL);
  GtkWidget *shown = NULL, *title = NULL;
  PangoLayout *layout;
  graphene_rect_t bounds;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (!gtk_widget_get_mapped (label))
        continue;
      if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), name) == 0)
        shown = label;
      else if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row))) == 0)
        title = label;
    }
  g_assert_nonnull (shown);
  g_assert_nonnull (title);
  layout = gtk_label_get_layout (GTK_LABEL (shown));
  g_assert_true (gtk_widget_compute_bounds (shown, row, &bounds));
  g_test_message ("“%s”: %d px wide, %d lines, ellipsized %d, in a row of %d px", name,
                  gtk_widget_get_width (shown), pango_layout_get_line_count (layout),
                  pango_layout_is_ellipsized (layout), gtk_widget_get_width (row));
  g_assert_cmpint (pango_layout_is_ellipsized (layout), ==, !whole);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (shown), ==, name);
  g_assert_cmpint (pango_layout_get_line_count (layout), ==, 1);
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (row));
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (title))), ==, 1);
}

/* The default model's name shows whole where the row has room for it
 * (640 px, and 360 px for a short one), and is cut only where it has
 * not (an id of fifty characters at 360 px), the row's title never;
 * in light and dark style. */
static void
test_model_name_whole (Fixture       *f,
                       gconstpointer  data)
{
  static const char *long_id = "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo-128k";
  GtkWidget *model = natter_preferences_window_get_widget (f->window, "model");
  AdwStyleManager *style = adw_style_manager_get_default ();

  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (f->window), "general");
  resize (f, 640);
  assert_name_shown (model, "The Provider’s First Model", TRUE);
  save_screenshot (f, "preferences-model-640-light.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  save_screenshot (f, "preferences-model-640-dark.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);

  resize (f, 360);
  assert_name_shown (model, "The Provider’s First Model", TRUE);
  save_screenshot (f, "preferences-model-360-light.png");

  g_settings_set_string (f->settings, "default-model", long_id);
  ui_wait_preferences_idle (f->window);
  resize (f, 640);
  assert_name_shown (model, long_id, TRUE);
  save_screenshot (f, "preferences-model-long-640-light.png");
  resize (f, 360);
  assert_name_shown (model, long_id, FALSE);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  save_screenshot (f, "preferences-model-long-360-dark.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

/* The agent editor's model: a provider, then one of its /models. */

static GtkWidget *
editor_widget (Fixture    *f,
               const char *field)
{
  GtkWidget *widget = natter_preferences_window_get_editor_widget (f->window, field);

  g_assert_nonnull (widget);
  return widget;
}

static const char *
combo_string (GtkWidget *combo,
              guint      position)
{
  GListModel *model = adw_combo_row_get_model (ADW_COMBO_ROW (combo));

  g_assert_cmpuint (position, <, g_list_model_get_n_items (model));
  return gtk_string_list_get_string (GTK_STRING_LIST (model), position);
}

static void
assert_saved_model (Fixture    *f,
                    const char *agent_id,
                    const char *provider,
                    const char *model)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) saved = natter_agent_store_load (natter_services_get_agent_store (f->services), agent_id,
                                                         &error);
  JsonObject *descriptor;

  g_assert_no_error (error);
  descriptor = json_object_get_object_member (saved, "model");
  g_assert_nonnull (descriptor);
  g_assert_cmpuint (json_object_get_size (descriptor), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "provider"), ==, provider);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "model"), ==, model);
}

static void
test_agent_model_picker (Fixture       *f,
                         gconstpointer  data)
{
  GtkWidget *list;
  GtkWidget *entry;
  const char *note;
  guint requests;

  /* A new agent on the local provider: its three models, no note. */
  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
  gtk_editable_set_text (GTK_EDITABLE (editor_widget (f, "name")), "Picker");
  g_assert_false (gtk_widget_get_visible (editor_widget (f, "model-list")));
  g_assert_false (gtk_widget_get_visible (editor_widget (f, "model-name")));
  requests = f->models->authorizations->len;
  adw_combo_row_set_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider")), 1);
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (f->models->authorizations->len, ==, requests + 1);
  list = editor_widget (f, "model-list");
  entry = editor_widget (f, "model-name");
  g_assert_true (gtk_widget_get_visible (list));
  g_assert_true (gtk_widget_get_sensitive (list));
  g_assert_false (gtk_widget_get_visible (entry));
  note = adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (editor_widget (f, "model-group")));
  g_assert_true (note == NULL || note[0] == '\0');
  g_assert_cmpuint (g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (list))), ==, 3);
  g_assert_cmpstr (combo_string (list, 0), ==, "alpha");
  g_assert_cmpstr (combo_string (list, 1), ==, "beta");
  g_assert_cmpstr (combo_string (list, 2), ==, "gamma");

  /* Picking gamma saves {local, gamma}. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (list), 2);
  g_signal_emit_by_name (editor_widget (f, "save"), "clicked");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==, "Saved “Picker”");
  assert_saved_model (f, "picker", "local", "gamma");

  /* Reopened, it shows local and gamma selected. */
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "picker", "edit"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider"))), ==, 1);
  list = editor_widget (f, "model-list");
  g_assert_true (gtk_widget_get_visible (list));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (list)), ==, 2);
  g_assert_cmpstr (combo_string (list, 2), ==, "gamma");

  /* A provider that cannot be reached: the entry, with the reason. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider")), 2);
  ui_wait_preferences_idle (f->window);
  list = editor_widget (f, "model-list");
  entry = editor_widget (f, "model-name");
  g_assert_false (gtk_widget_get_visible (list));
  g_assert_true (gtk_widget_get_visible (entry));
  note = adw_preferences_group_get_description (ADW_PREFERENCES_GROUP (editor_widget (f, "model-group")));
  g_assert_nonnull (note);
  g_assert_true (g_str_has_prefix (note, "Type the model name: the models could not be listed. "));
  g_assert_nonnull (strstr (note, "Down Server"));
  save_screenshot (f, "preferences-agent-editor-fallback-light.png");
  gtk_editable_set_text (GTK_EDITABLE (entry), "  custom-model ");
  g_signal_emit_by_name (editor_widget (f, "save"), "clicked");
  assert_saved_model (f, "picker", "down", "custom-model");

  /* Reopened, the typed name is back in the entry. */
  g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "picker", "edit"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider"))), ==, 2);
  g_assert_true (gtk_widget_get_visible (editor_widget (f, "model-name")));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (editor_widget (f, "model-name"))), ==, "custom-model");

  /* The default model: no descriptor at all. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider")), 0);
  g_assert_false (gtk_widget_get_visible (editor_widget (f, "model-list")));
  g_assert_false (gtk_widget_get_visible (editor_widget (f, "model-name")));
  g_signal_emit_by_name (editor_widget (f, "save"), "clicked");
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonObject) saved = natter_agent_store_load (natter_services_get_agent_store (f->services), "picker",
                                                           &error);

    g_assert_no_error (error);
    g_assert_false (json_object_has_member (saved, "model"));
  }
}

static void
test_screenshots (Fixture       *f,
                  gconstpointer  data)
{
  static const struct { AdwColorScheme scheme; const char *suffix; } styles[] = {
    { ADW_COLOR_SCHEME_FORCE_LIGHT, "light" },
    { ADW_COLOR_SCHEME_FORCE_DARK, "dark" },
  };
  AdwStyleManager *style = adw_style_manager_get_default ();

  /* Something on every page: a stored key, a user agent, an open row. */
  apply_text (provider_widget (f, "local", "key"), KEY);
  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
  gtk_editable_set_text (GTK_EDITABLE (natter_preferences_window_get_editor_widget (f->window, "name")),
                         "Code Reviewer");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (natter_preferences_window_get_editor_widget (f->window, "prompt"))),
                            "You review code. Point out bugs first, then style; quote the lines you mean.", -1);
  adw_combo_row_set_selected (ADW_COMBO_ROW (editor_widget (f, "model-provider")), 1);
  ui_wait_preferences_idle (f->window);
  adw_combo_row_set_selected (ADW_COMBO_ROW (editor_widget (f, "model-list")), 1);
  g_signal_emit_by_name (natter_preferences_window_get_editor_widget (f->window, "save"), "clicked");
  ui_wait_preferences_idle (f->window);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (provider_widget (f, "local", "expander")), TRUE);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (natter_preferences_window_get_widget (f->window, "assistant")),
                                 TRUE);

  for (guint i = 0; i < G_N_ELEMENTS (styles); i++)
    {
      static const char * const pages[] = { "providers", "general", "agents" };

      adw_style_manager_set_color_scheme (style, styles[i].scheme);
      for (guint j = 0; j < G_N_ELEMENTS (pages); j++)
        {
          g_autofree char *name = g_strdup_printf ("preferences-%s-%s.png", pages[j], styles[i].suffix);

          adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (f->window), pages[j]);
          save_screenshot (f, name);
        }
      {
        g_autofree char *name = g_strdup_printf ("preferences-agent-editor-%s.png", styles[i].suffix);

        g_signal_emit_by_name (natter_preferences_window_get_agent_widget (f->window, "code-reviewer", "edit"),
                               "clicked");
        ui_wait_preferences_idle (f->window);
        save_screenshot (f, name);
        adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (f->window));
      }
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);
  /* Subpages come and go at once, as with reduced motion. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("/preferences/provider-edit", test_provider_edit);
  ADD ("/preferences/api-key", test_api_key);
  ADD ("/preferences/connection-test", test_connection_test);
  ADD ("/preferences/manage-models", test_manage_models);
  ADD ("/preferences/default-model", test_default_model);
  ADD ("/preferences/model-name-whole", test_model_name_whole);
  ADD ("/preferences/limit-and-switch", test_limit_and_switch);
  ADD ("/preferences/auto-title-switch", test_auto_title_switch);
  ADD ("/preferences/auto-compact-switch", test_auto_compact_switch);
  ADD ("/preferences/context-window", test_context_window);
  ADD ("/preferences/remove-undo-add", test_remove_undo_add);
  ADD ("/preferences/remove-default", test_remove_default);
  ADD ("/preferences/agents", test_agents);
  ADD ("/preferences/agent-model-picker", test_agent_model_picker);
  ADD ("/preferences/screenshots", test_screenshots);

#undef ADD

  return g_test_run ();
}
