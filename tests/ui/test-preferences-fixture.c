/* test-preferences-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-preferences share: the fixture (its window
 * over services on temp folders and a local models server), a provider's
 * and an agent's widgets, applying an entry's text, screenshots.
 */

#include "test-preferences.h"

#define MODELS "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\"},{\"id\":\"beta\"},{\"id\":\"gamma\"}]}"

/* The models server, temp data and config folders, settings naming a
 * local and a down provider, services over them and their Preferences
 * window, shown and idle. */
void
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

/* Destroys the window and asserts that the services, the secret store
 * and the settings are finalized; removes the temp folders. */
void
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

/* The widget @field of the provider @id's row (it must be there). */
GtkWidget *
provider_widget (Fixture    *f,
                 const char *id,
                 const char *field)
{
  GtkWidget *widget = natter_preferences_window_get_provider_widget (f->window, id, field);

  g_assert_nonnull (widget);
  return widget;
}

/* Types @text into @entry and applies it, as Enter does. */
void
apply_text (GtkWidget  *entry,
            const char *text)
{
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_signal_emit_by_name (entry, "apply");
}

/* The widget @field of the agent editor (it must be there). */
GtkWidget *
editor_widget (Fixture    *f,
               const char *field)
{
  GtkWidget *widget = natter_preferences_window_get_editor_widget (f->window, field);

  g_assert_nonnull (widget);
  return widget;
}

/* Saves @f's window, once idle, to screenshots/@name. */
void
save_screenshot (Fixture    *f,
                 const char *name)
{
  ui_wait_preferences_idle (f->window);
  ui_save_window (GTK_WIDGET (f->window), name);
}
