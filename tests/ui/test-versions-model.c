/* test-versions-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A new version, made by Edit or by Try Again, goes on with the
 * conversation's provider and model, not the default one of Preferences.
 */

#include "test-versions.h"

/* The `{provider, model}` a turn of the open conversation ran with, as
 * its definition records it (transfer none). */
static JsonObject *
turn_model (NatterWindow *window,
            const char   *turn_id)
{
  NatterTurnItem *item;
  JsonObject *definition;

  ui_wait_turn_read (window, turn_id);
  item = natter_timeline_model_lookup (natter_window_get_timeline (window), turn_id);
  definition = natter_turn_state_get_definition (natter_turn_item_get_state (item));
  return json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (definition,
                                                                                                       "agent"),
                                                                       "resolved"),
                                        "model");
}

/* A new version, made by Edit or by Try Again, goes on with the
 * conversation's provider and model, not the default one of
 * Preferences, as its next message would. */
static void
check_version_keeps_model (gboolean edit)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Providers");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  JsonObject *model;
  NewVersion v;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Red.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Blue.\"}", NULL);
  turn_id = ui_send_with_model (u, session_id, "A colour?", "mock", "m");
  ui_wait_turn (u, turn_id);

  /* Nobody listens there: a named model needs no answer from them. */
  window = ui_window_new (app, u);
  natter_provider_registry_add_provider (registry, "mock", "Mock", "http://127.0.0.1:9/v1");
  natter_provider_registry_add_provider (registry, "scripted", "Scripted", "http://127.0.0.1:9/v1");
  natter_window_set_model_provider (window, registry, "scripted", "m");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, turn_id, NULL);

  if (edit)
    {
      ui_wait_turn_read (window, turn_id);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-message", "s", turn_id));
      ui_wait_until (composer_has_text, window);
      natter_composer_set_text (natter_window_get_composer (window), "Another colour?");
      g_assert_true (natter_composer_send (natter_window_get_composer (window)));
    }
  else
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", turn_id));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);

  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  model = turn_model (window, natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, "mock");
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "m");

  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_edit_keeps_model (void)
{
  check_version_keeps_model (TRUE);
}

void
test_try_again_keeps_model (void)
{
  check_version_keeps_model (FALSE);
}
