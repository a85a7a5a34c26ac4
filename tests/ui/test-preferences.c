/* test-preferences.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Preferences window, driven as a user would, over NatterServices
 * built on a temp data dir, a temp NATTER_CONFIG_DIR, a fresh memory
 * GSettings backend and the memory secret store; a localhost SoupServer
 * plays a provider's `GET /models` (test-preferences-fixture.c). Here the
 * screenshots of each page in light and dark style saved to
 * $G_TEST_BUILDDIR/screenshots/; in the files beside it the providers,
 * their keys, connection test, models and removal
 * (test-preferences-providers.c), the default model, the limits and
 * switches and the context window (test-preferences-general.c), the
 * agents (test-preferences-agents.c). Not to be confused with the test
 * programs test-preferences-mcp, test-preferences-sync and
 * test-preferences-widgets, which have files of their own.
 */

#include "test-preferences.h"

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
  ADD ("/preferences/first-provider-default", test_first_provider_default);
  ADD ("/preferences/added-provider-keeps-choice", test_added_provider_keeps_choice);
  ADD ("/preferences/agents", test_agents);
  ADD ("/preferences/agent-model-picker", test_agent_model_picker);
  ADD ("/preferences/screenshots", test_screenshots);
  ADD ("/preferences/tab-stops-named", test_tab_stops_named);

#undef ADD

  return g_test_run ();
}
