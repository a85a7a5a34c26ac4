/* test-preferences-widgets.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The widgets Preferences is made of, one at a time: each is created and
 * finalized on its own, each property notifies exactly once per change
 * (and not for the same value), and each row reports what the user did
 * through its signals rather than acting itself. A page works outside
 * any window too: it reports up through its signals, never by calling
 * the window that holds it.
 */

#include <adwaita.h>
#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>
#include <gobject/gvaluecollector.h>

#include "config.h"
#include "natter-agent-editor.h"
#include "natter-agent-row.h"
#include "natter-builtin-tools.h"
#include "natter-memory-secret-store.h"
#include "natter-preferences-toast.h"
#include "natter-preferences-window.h"
#include "natter-provider-row.h"
#include "natter-providers-page.h"
#include "natter-test-support.h"

#define WAIT_MS 10000

static gboolean
timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Drives the main loop until @object's boolean @property is FALSE. */
static void
wait_until_false (gpointer    object,
                  const char *property)
{
  gboolean timed_out = FALSE;
  gboolean value = TRUE;
  guint id = g_timeout_add (WAIT_MS, timeout_cb, &timed_out);

  for (;;)
    {
      g_object_get (object, property, &value, NULL);
      if (!value || timed_out)
        break;
      g_main_context_iteration (NULL, TRUE);
    }
  /* What was seen decides, not the clock: the value may have become
   * FALSE as the limit passed. */
  g_assert_false (value);
  if (!timed_out)
    g_source_remove (id);
}

static void
count_cb (GObject    *object,
          GParamSpec *pspec,
          guint      *count)
{
  (*count)++;
}

static void
signal_count_cb (gpointer  object,
                 guint    *count)
{
  (*count)++;
}

static void
string_cb (gpointer     object,
           const char  *value,
           char       **out)
{
  g_free (*out);
  *out = g_strdup (value);
}

/* Sets @property to @first, then @first again, then @second, counting
 * notifications: one per change. */
static void
assert_notifies_once (gpointer    object,
                      const char *property,
                      ...)
{
  g_autofree char *signal = g_strconcat ("notify::", property, NULL);
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), property);
  g_auto(GValue) first = G_VALUE_INIT;
  g_auto(GValue) second = G_VALUE_INIT;
  g_autofree char *error = NULL;
  guint count = 0;
  gulong id;
  va_list args;

  g_assert_nonnull (pspec);
  g_assert_true (pspec->flags & G_PARAM_EXPLICIT_NOTIFY);
  va_start (args, property);
  G_VALUE_COLLECT_INIT (&first, pspec->value_type, args, 0, &error);
  g_assert_null (error);
  G_VALUE_COLLECT_INIT (&second, pspec->value_type, args, 0, &error);
  g_assert_null (error);
  va_end (args);

  id = g_signal_connect (object, signal, G_CALLBACK (count_cb), &count);
  g_object_set_property (object, property, &first);
  g_assert_cmpuint (count, ==, 1);
  g_object_set_property (object, property, &first);
  g_assert_cmpuint (count, ==, 1);
  g_object_set_property (object, property, &second);
  g_assert_cmpuint (count, ==, 2);
  g_signal_handler_disconnect (object, id);
}

/* NatterProviderRow */

static NatterProviderRow *
new_provider_row (void)
{
  g_autoptr(NatterProviderConfig) config = natter_provider_config_new ("local", "Local <b>Server</b>",
                                                                       "http://127.0.0.1:1/v1");

  return g_object_ref_sink (natter_provider_row_new (config));
}

static void
test_provider_row_new_finalize (void)
{
  NatterProviderRow *row = new_provider_row ();

  g_assert_cmpstr (natter_provider_row_get_provider_id (row), ==, "local");
  g_assert_cmpstr (natter_provider_row_get_name (row), ==, "Local <b>Server</b>");
  /* The name is the user's text, shown as it is. */
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Local <b>Server</b>");
  g_assert_false (adw_preferences_row_get_use_markup (ADW_PREFERENCES_ROW (row)));
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), ==, "http://127.0.0.1:1/v1");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (natter_provider_row_get_part (row, "url"))), ==,
                   "http://127.0.0.1:1/v1");
  g_assert_false (natter_provider_row_get_key_stored (row));
  g_assert_finalize_object (row);
}

static void
test_provider_row_notify (void)
{
  NatterProviderRow *row = new_provider_row ();

  assert_notifies_once (row, "name", "One", "Two");
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Two");
  assert_notifies_once (row, "base-url", "http://a/v1", "http://b/v1");
  g_assert_cmpstr (adw_expander_row_get_subtitle (ADW_EXPANDER_ROW (row)), ==, "http://b/v1");
  assert_notifies_once (row, "key-stored", TRUE, FALSE);
  natter_provider_row_set_key_stored (row, TRUE);
  g_assert_true (gtk_widget_get_visible (natter_provider_row_get_part (row, "forget")));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (natter_provider_row_get_part (row, "key"))),
                   ==, "Replace API Key");
  assert_notifies_once (row, "testing", TRUE, FALSE);
  natter_provider_row_set_testing (row, TRUE);
  g_assert_false (gtk_widget_get_sensitive (natter_provider_row_get_part (row, "test")));
  g_assert_finalize_object (row);
}

static void
test_provider_row_signals (void)
{
  NatterProviderRow *row = new_provider_row ();
  g_autofree char *name = NULL;
  g_autofree char *url = NULL;
  g_autofree char *key = NULL;
  guint tests = 0, removes = 0, forgets = 0;

  g_signal_connect (row, "apply-name", G_CALLBACK (string_cb), &name);
  g_signal_connect (row, "apply-url", G_CALLBACK (string_cb), &url);
  g_signal_connect (row, "apply-key", G_CALLBACK (string_cb), &key);
  g_signal_connect (row, "test", G_CALLBACK (signal_count_cb), &tests);
  g_signal_connect (row, "remove", G_CALLBACK (signal_count_cb), &removes);
  g_signal_connect (row, "forget-key", G_CALLBACK (signal_count_cb), &forgets);

  gtk_editable_set_text (GTK_EDITABLE (natter_provider_row_get_part (row, "name")), "  Renamed  ");
  g_signal_emit_by_name (natter_provider_row_get_part (row, "name"), "apply");
  g_assert_cmpstr (name, ==, "Renamed");
  /* Applying does not change what the row shows: whoever stores it does. */
  g_assert_cmpstr (natter_provider_row_get_name (row), ==, "Local <b>Server</b>");

  gtk_editable_set_text (GTK_EDITABLE (natter_provider_row_get_part (row, "url")), " ftp://x ");
  g_signal_emit_by_name (natter_provider_row_get_part (row, "url"), "apply");
  g_assert_cmpstr (url, ==, "ftp://x");

  /* An empty key is not a request. */
  g_signal_emit_by_name (natter_provider_row_get_part (row, "key"), "apply");
  g_assert_null (key);
  gtk_editable_set_text (GTK_EDITABLE (natter_provider_row_get_part (row, "key")), "sk-1");
  g_signal_emit_by_name (natter_provider_row_get_part (row, "key"), "apply");
  g_assert_cmpstr (key, ==, "sk-1");
  natter_provider_row_clear_entered_key (row);
  g_assert_cmpstr (natter_provider_row_get_entered_key (row), ==, "");

  g_signal_emit_by_name (natter_provider_row_get_part (row, "test"), "clicked");
  g_signal_emit_by_name (natter_provider_row_get_part (row, "remove"), "clicked");
  g_signal_emit_by_name (natter_provider_row_get_part (row, "forget"), "clicked");
  g_assert_cmpuint (tests, ==, 1);
  g_assert_cmpuint (removes, ==, 1);
  g_assert_cmpuint (forgets, ==, 1);
  g_assert_finalize_object (row);
}

/* NatterAgentRow */

static NatterAgentRow *
new_agent_row (const char *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);

  return g_object_ref_sink (natter_agent_row_new (json_node_get_object (node)));
}

static void
test_agent_row_new_finalize (void)
{
  NatterAgentRow *row = new_agent_row ("{\"agentId\": \"reviewer\", \"name\": \"Reviewer\", "
                                       "\"model\": {\"provider\": \"local\", \"model\": \"m1\"}, "
                                       "\"tools\": [\"natter.read_file\"]}");

  g_assert_cmpstr (natter_agent_row_get_agent_id (row), ==, "reviewer");
  g_assert_null (natter_agent_row_get_problem (row));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "Reviewer");
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "local · m1 · 1 tool");
  g_assert_nonnull (natter_agent_row_get_part (row, "edit"));
  g_assert_finalize_object (row);

  row = new_agent_row ("{\"agentId\": \"broken\", \"name\": \"broken\", \"error\": \"Not JSON\"}");
  g_assert_cmpstr (natter_agent_row_get_problem (row), ==, "Not JSON");
  g_assert_null (natter_agent_row_get_part (row, "edit"));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (row), "error"));
  g_assert_finalize_object (row);
}

static void
test_agent_row_notify (void)
{
  NatterAgentRow *row = new_agent_row ("{\"agentId\": \"a\", \"name\": \"A\", \"tools\": []}");
  guint edits = 0, deletes = 0;

  assert_notifies_once (row, "problem", "Broken", NULL);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, "Default model · 0 tools");
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (row), "error"));

  g_signal_connect (row, "edit", G_CALLBACK (signal_count_cb), &edits);
  g_signal_connect (row, "delete", G_CALLBACK (signal_count_cb), &deletes);
  g_signal_emit_by_name (natter_agent_row_get_part (row, "edit"), "clicked");
  g_signal_emit_by_name (natter_agent_row_get_part (row, "delete"), "clicked");
  g_assert_cmpuint (edits, ==, 1);
  g_assert_cmpuint (deletes, ==, 1);
  g_assert_finalize_object (row);
}

/* NatterAgentEditor */

static char *
no_key (const char *provider,
        gpointer    user_data)
{
  return NULL;
}

static NatterServices *
new_services (GFile **dir)
{
  g_autoptr(NatterSettings) settings = natter_settings_new (NULL);

  *dir = natter_test_make_temp_dir ();
  return natter_services_new (*dir, settings, no_key, NULL, NULL);
}

static void
test_agent_editor_new_finalize (void)
{
  g_autoptr(GFile) dir = NULL;
  NatterServices *services = new_services (&dir);
  const char *ids[] = { NULL };
  NatterAgentEditor *editor = g_object_ref_sink (natter_agent_editor_new (services, NULL, ids, ids));
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_null (natter_agent_editor_get_agent_id (editor));
  g_assert_false (natter_agent_editor_get_loading (editor));
  /* A new agent has every tool, and needs a name. */
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (natter_agent_editor_get_part (editor,
                                                                                               "tool:" NATTER_TOOL_ID_READ_FILE))));
  agent = natter_agent_editor_build_agent (editor, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_null (agent);
  g_clear_error (&error);

  gtk_editable_set_text (GTK_EDITABLE (natter_agent_editor_get_part (editor, "name")), "Helper");
  agent = natter_agent_editor_build_agent (editor, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (agent, "name"), ==, "Helper");
  g_assert_false (json_object_has_member (agent, "model"));

  g_assert_finalize_object (editor);
  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

static void
test_agent_editor_loading_notify (void)
{
  g_autoptr(GFile) dir = NULL;
  NatterServices *services = new_services (&dir);
  const char *ids[] = { "ollama", NULL };
  const char *names[] = { "Ollama", NULL };
  g_autoptr(JsonNode) node = natter_test_json ("{\"agentId\": \"a\", \"name\": \"A\", \"systemPrompt\": \"\", "
                                               "\"model\": {\"provider\": \"ollama\", \"model\": \"m\"}, "
                                               "\"tools\": []}");
  NatterAgentEditor *editor;
  guint count = 0;

  /* The agent's provider is listed at once; picking "Default Model"
   * drops that listing, and loading ends with one notification. */
  editor = g_object_ref_sink (natter_agent_editor_new (services, json_node_get_object (node), ids, names));
  g_assert_cmpstr (natter_agent_editor_get_agent_id (editor), ==, "a");
  g_assert_true (natter_agent_editor_get_loading (editor));
  g_signal_connect (editor, "notify::loading", G_CALLBACK (count_cb), &count);
  adw_combo_row_set_selected (ADW_COMBO_ROW (natter_agent_editor_get_part (editor, "model-provider")), 0);
  wait_until_false (editor, "loading");
  g_assert_cmpuint (count, ==, 1);
  g_assert_false (gtk_widget_get_visible (natter_agent_editor_get_part (editor, "model-list")));

  g_assert_finalize_object (editor);
  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

/* The first button under @root showing the trash icon, or NULL. */
static GtkWidget *
find_trash_button (GtkWidget *root)
{
  if (GTK_IS_BUTTON (root) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), "user-trash-symbolic") == 0)
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_trash_button (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* An icon-only button is announced by what it does, not as "GtkImage". */
static void
assert_labelled (GtkWidget  *root,
                 const char *label)
{
  GtkWidget *button = find_trash_button (root);

  g_assert_nonnull (button);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label);
}

static void
test_icon_buttons_named (void)
{
  g_autoptr(NatterProviderRow) provider = new_provider_row ();
  g_autoptr(NatterAgentRow) agent = new_agent_row ("{\"agentId\":\"tutor\",\"name\":\"Tutor\","
                                                   "\"systemPrompt\":\"Teach.\",\"tools\":[]}");

  /* Which provider it removes, as there may be several. */
  assert_labelled (GTK_WIDGET (provider), "Remove “Local <b>Server</b>”");
  assert_labelled (GTK_WIDGET (agent), "Delete Agent");
}

/* NatterProvidersPage, on its own */

static void
toast_cb (NatterProvidersPage  *page,
          AdwToast             *toast,
          GPtrArray            *toasts)
{
  g_ptr_array_add (toasts, g_object_ref (toast));
}

/* Drives the main loop until @page has no keyring call under way. */
static void
wait_until_idle (NatterProvidersPage *page)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (WAIT_MS, timeout_cb, &timed_out);

  while (natter_providers_page_get_n_pending (page) > 0 && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (natter_providers_page_get_n_pending (page), ==, 0);
  if (!timed_out)
    g_source_remove (id);
}

static void
test_providers_page_signals (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(GSettings) gsettings = g_settings_new_with_backend (APP_ID, backend);
  g_autoptr(NatterSettings) settings = natter_settings_new (gsettings);
  g_autoptr(NatterMemorySecretStore) secrets = natter_memory_secret_store_new ();
  g_autoptr(GPtrArray) providers = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_provider_config_free);
  g_autoptr(GPtrArray) toasts = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) after = NULL;
  g_autofree char *stored = NULL;
  g_autoptr(GError) error = NULL;
  NatterServices *services;
  NatterProvidersPage *page;

  g_ptr_array_add (providers, natter_provider_config_new ("local", "Local", "http://127.0.0.1:1/v1"));
  g_assert_true (natter_settings_set_providers (settings, providers, &error));
  g_assert_no_error (error);
  services = natter_services_new (dir, settings, no_key, NULL, NULL);
  natter_services_set_secret_store (services, NATTER_SECRET_STORE (secrets));

  page = g_object_ref_sink (g_object_new (NATTER_TYPE_PROVIDERS_PAGE, NULL));
  natter_providers_page_set_services (page, services);
  g_signal_connect (page, "add-toast", G_CALLBACK (toast_cb), toasts);
  g_signal_connect (page, "key-stored", G_CALLBACK (string_cb), &stored);
  wait_until_idle (page);
  g_assert_nonnull (natter_providers_page_get_row (page, "local"));

  /* A stored key is said in a toast, and up to whoever lists models. */
  g_signal_emit_by_name (natter_providers_page_get_row (page, "local"), "apply-key", "sk-test");
  wait_until_idle (page);
  g_assert_cmpstr (stored, ==, "local");
  g_assert_cmpuint (toasts->len, ==, 1);
  g_assert_cmpstr (natter_preferences_toast_get_text (g_ptr_array_index (toasts, 0)), ==,
                   "API key stored in the keyring");

  /* Removing offers Undo in a toast the page hands up. */
  g_signal_emit_by_name (natter_providers_page_get_row (page, "local"), "remove");
  g_assert_null (natter_providers_page_get_row (page, "local"));
  g_assert_cmpuint (toasts->len, ==, 2);
  g_assert_cmpstr (natter_preferences_toast_get_text (g_ptr_array_index (toasts, 1)), ==, "Removed “Local”");
  g_assert_nonnull (adw_toast_get_button_label (g_ptr_array_index (toasts, 1)));
  g_signal_emit_by_name (g_ptr_array_index (toasts, 1), "button-clicked");
  after = natter_settings_dup_providers (settings);
  g_assert_cmpuint (after->len, ==, 1);
  g_assert_nonnull (natter_providers_page_get_row (page, "local"));

  wait_until_idle (page);
  g_assert_finalize_object (page);
  g_ptr_array_set_size (toasts, 0);
  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

/* A toast's title is markup; what it says is not. */
static void
test_toast_escapes (void)
{
  g_autoptr(AdwToast) toast = natter_preferences_toast_new ("Removed “A & <B>”");
  g_autoptr(AdwToast) undo = natter_preferences_toast_new_undo ("Deleted “A & B”");

  g_assert_cmpstr (adw_toast_get_title (toast), ==, "Removed “A &amp; &lt;B&gt;”");
  g_assert_cmpstr (natter_preferences_toast_get_text (toast), ==, "Removed “A & <B>”");
  g_assert_null (adw_toast_get_button_label (toast));
  g_assert_cmpstr (adw_toast_get_title (undo), ==, "Deleted “A &amp; B”");
  g_assert_nonnull (adw_toast_get_button_label (undo));
  g_assert_cmpint (adw_toast_get_priority (undo), ==, ADW_TOAST_PRIORITY_HIGH);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/preferences-widgets/provider-row/new-finalize", test_provider_row_new_finalize);
  g_test_add_func ("/preferences-widgets/provider-row/notify", test_provider_row_notify);
  g_test_add_func ("/preferences-widgets/provider-row/signals", test_provider_row_signals);
  g_test_add_func ("/preferences-widgets/agent-row/new-finalize", test_agent_row_new_finalize);
  g_test_add_func ("/preferences-widgets/agent-row/notify", test_agent_row_notify);
  g_test_add_func ("/preferences-widgets/icon-buttons-named", test_icon_buttons_named);
  g_test_add_func ("/preferences-widgets/agent-editor/new-finalize", test_agent_editor_new_finalize);
  g_test_add_func ("/preferences-widgets/agent-editor/loading-notify", test_agent_editor_loading_notify);
  g_test_add_func ("/preferences-widgets/providers-page/signals", test_providers_page_signals);
  g_test_add_func ("/preferences-widgets/toast/escapes", test_toast_escapes);

  return g_test_run ();
}
