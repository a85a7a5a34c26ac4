/* test-preferences-providers.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The providers in Preferences: editing one, its API key kept out of the
 * settings, the connection test, managing its models, removing one with
 * undo, and removing the default.
 */

#include "test-preferences.h"

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

void
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

void
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

void
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
void
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

void
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
void
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
  /* The toast's button is "Undo" to a screen reader as on screen. */
  ui_assert_named_as_shown (ui_find_button (f->window, "_Undo"), "Undo");

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

/* The name the General page's Provider row shows as the default. */
static const char *
default_provider_shown (Fixture *f)
{
  AdwComboRow *row = ADW_COMBO_ROW (natter_preferences_window_get_widget (f->window, "provider"));
  gpointer item = adw_combo_row_get_selected_item (row);

  return item != NULL ? gtk_string_object_get_string (GTK_STRING_OBJECT (item)) : NULL;
}

/* Adds a provider with the Add Provider row, as a person does. */
static void
click_add_provider (Fixture *f)
{
  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-provider"), "activated");
  ui_wait_preferences_idle (f->window);
}

/* A first run: only the built-in Ollama (not running), no default, no
 * model picked or used. The first provider the person adds becomes the
 * default, shown in General and told in a toast whose Change leads
 * there, so the first message goes to their server and not to an
 * Ollama they never set up; a second one changes nothing. With the
 * provider removed again the next one added becomes the default too. */
void
test_first_provider_default (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;
  g_autofree char *effective = NULL;
  GtkWidget *change;

  g_settings_reset (f->settings, "providers");
  g_settings_reset (f->settings, "default-provider");
  g_settings_reset (f->settings, "default-model");
  g_settings_reset (f->settings, "recent-model");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (default_provider_shown (f), ==, "Ollama");

  click_add_provider (f);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "provider-1");
  model = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (model, ==, "");
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==,
                   "New chats use the first model of “New Provider”");
  /* The window and the command line ask the services: both use it. */
  effective = natter_services_dup_default_provider (f->services);
  g_assert_cmpstr (effective, ==, "provider-1");
  g_assert_cmpstr (default_provider_shown (f), ==, "New Provider");

  /* Named while the toast shows: the toast and General follow. */
  apply_text (provider_widget (f, "provider-1", "name"), "My <b>Server</b>");
  ui_wait_label (f->window, "New chats use the first model of “My <b>Server</b>”");
  g_assert_cmpstr (default_provider_shown (f), ==, "My <b>Server</b>");

  /* Change shows where the default is chosen. */
  change = ui_find_button (f->window, "_Change");
  g_assert_nonnull (change);
  ui_assert_named_as_shown (change, "Change");
  g_signal_emit_by_name (change, "clicked");
  g_assert_cmpstr (adw_preferences_window_get_visible_page_name (ADW_PREFERENCES_WINDOW (f->window)), ==, "general");
  ui_wait_preferences_idle (f->window);

  /* A second provider of their own is no first one. */
  click_add_provider (f);
  g_free (provider);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "provider-1");
  /* No toast since the first one (the window keeps its words as shown
   * first). */
  g_assert_cmpstr (natter_preferences_window_get_last_toast (f->window), ==,
                   "New chats use the first model of “New Provider”");

  /* Both removed: only the built-in one is left, as out of the box, and
   * the next provider added is the default again. */
  g_signal_emit_by_name (provider_widget (f, "provider-2", "remove"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_signal_emit_by_name (provider_widget (f, "provider-1", "remove"), "clicked");
  ui_wait_preferences_idle (f->window);
  g_free (provider);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "");
  click_add_provider (f);
  g_free (provider);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "provider-1");
}

/* Whoever chose a default, picked a model or used one keeps it: adding a
 * provider then changes nothing and says nothing. */
void
test_added_provider_keeps_choice (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *provider = NULL;

  g_settings_reset (f->settings, "providers");
  g_settings_reset (f->settings, "default-provider");
  g_settings_set_value (f->settings, "recent-model",
                        g_variant_new ("(sss)", "ollama", "llama3.2", "2026-12-01T10:00:00.000Z"));
  ui_wait_preferences_idle (f->window);

  click_add_provider (f);
  provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (provider, ==, "");
  g_assert_null (ui_find_button (f->window, "_Change"));
  g_assert_cmpstr (default_provider_shown (f), ==, "Ollama");
}
