/* test-preferences-agents.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The agents in Preferences: adding, editing and removing one (its file
 * in the config folder), and picking its model.
 */

#include "test-preferences.h"

static gboolean
agent_file_exists (Fixture    *f,
                   const char *agent_id)
{
  g_autofree char *name = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GFile) file = g_file_get_child (f->config_dir, "agents");
  g_autoptr(GFile) child = g_file_get_child (file, name);

  return g_file_query_exists (child, NULL);
}

void
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

/* The agent editor's model: a provider, then one of its /models. */

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

void
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
