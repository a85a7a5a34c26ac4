/* test-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's export and import: the menus offer them, each asks for
 * its file in a chooser of its own, an export writes the file the
 * chooser gave and says so, an import opens the new conversation, and a
 * damaged file is refused in the error bar with the reason, nothing
 * added to the sidebar.
 */

#include "config.h"

#include <string.h>

#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* Whether @model (or a section or submenu of it) has an item for
 * @action with @target. */
static gboolean
menu_has (GMenuModel *model,
          const char *action,
          const char *target)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);

      if (section != NULL && menu_has (section, action, target))
        return TRUE;
      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_TARGET, "s", &value) &&
          g_str_equal (name, action) && g_str_equal (value, target))
        return TRUE;
    }
  return FALSE;
}

static GMenuModel *
menu_of (NatterWindow *window,
         const char   *icon)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (window, GTK_TYPE_MENU_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_menu_button_get_icon_name (g_ptr_array_index (buttons, i)), icon) == 0)
      return gtk_menu_button_get_menu_model (g_ptr_array_index (buttons, i));
  return NULL;
}

static gboolean
file_exists (gpointer data)
{
  return g_file_query_exists (data, NULL);
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} Shown;

static gboolean
label_shown (gpointer data)
{
  Shown *shown = data;

  ui_settle ();
  return ui_label_shown (shown->window, shown->text);
}

static gboolean
other_session_open (gpointer data)
{
  NatterWindow *window = data;
  const char *before = g_object_get_data (G_OBJECT (window), "before");

  return natter_window_get_session_id (window) != NULL &&
         g_strcmp0 (natter_window_get_session_id (window), before) != 0;
}

static char *
describe_open (gpointer data)
{
  NatterWindow *window = data;

  return g_strdup_printf ("open %s, before %s, details %s", natter_window_get_session_id (window),
                          (char *) g_object_get_data (G_OBJECT (window), "before"),
                          window->archive.last_import_details != NULL ? window->archive.last_import_details : "(none)");
}

static void
test_archive_menus (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = ui_window_new (app, u);
  GMenuModel *primary = menu_of (window, "open-menu-symbolic");
  g_autoptr(GPtrArray) buttons = ui_find_all (window, GTK_TYPE_MENU_BUTTON);
  GMenuModel *conversation = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (window->conversation_menu_button));

  g_assert_nonnull (primary);
  g_assert_true (menu_has (primary, "win.import", "natter"));
  g_assert_true (menu_has (primary, "win.import", "chatgpt"));
  g_assert_true (menu_has (conversation, "win.export", "markdown"));
  g_assert_true (menu_has (conversation, "win.export", "json"));
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A row's own menu in the sidebar exports that conversation, open or
 * not, in either format; a conversation that cannot be read offers
 * Delete only, there being nothing to export. */
static void
test_row_menu_exports (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *listed = ui_create_session (u, "Listed");
  g_autofree char *bad = ui_create_session (u, "Bad");
  g_autoptr(GFile) bad_file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GMenuModel) menu = NULL;
  g_autoptr(GMenuModel) bad_menu = NULL;
  NatterWindow *window;

  g_assert_true (g_file_set_contents (g_file_peek_path (bad_file), "not a session\n", -1, NULL));
  ui_world_restart (u);
  window = ui_window_new (app, u);
  menu = _natter_window_conversation_menu_new (window, listed);
  g_assert_true (ui_menu_item_has_target (menu, "win.export-conversation",
                                          g_variant_new ("(ss)", listed, "markdown")));
  g_assert_true (ui_menu_item_has_target (menu, "win.export-conversation", g_variant_new ("(ss)", listed, "json")));
  bad_menu = _natter_window_conversation_menu_new (window, bad);
  g_assert_false (ui_menu_has_action (bad_menu, "win.export-conversation"));
  g_assert_true (ui_menu_has_action (bad_menu, "win.delete"));
  ui_destroy_window (window);
  ui_world_free (u);
}

#if !defined(__SANITIZE_ADDRESS__)
/* The chooser an action shows, with its title and its one filter, and
 * the name it suggests (@name, or NULL where it suggests none); it goes
 * again with Cancel. */
static void
assert_chooser (NatterWindow *window,
                const char   *action,
                GVariant     *target,
                const char   *title,
                const char   *filter_name,
                const char   *name)
{
  GtkWindow *dialog;
  g_autoptr(GListModel) filters = NULL;
  g_autoptr(GtkFileFilter) filter = NULL;
  g_autofree char *current_name = NULL;

  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (window), action, target));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER_DIALOG));
  dialog = ui_find_toplevel (GTK_TYPE_FILE_CHOOSER_DIALOG);
  g_assert_cmpstr (gtk_window_get_title (dialog), ==, title);
  g_assert_true (gtk_window_get_modal (dialog));
  g_assert_true (gtk_window_get_transient_for (dialog) == GTK_WINDOW (window));
  filters = gtk_file_chooser_get_filters (GTK_FILE_CHOOSER (dialog));
  g_assert_cmpuint (g_list_model_get_n_items (filters), ==, 1);
  filter = g_list_model_get_item (filters, 0);
  g_assert_cmpstr (gtk_file_filter_get_name (filter), ==, filter_name);
  if (name != NULL)
    {
      current_name = gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (dialog));
      g_assert_cmpstr (current_name, ==, name);
    }
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER_DIALOG));
}
#endif

/* Each way in and out asks for its file in a chooser of its own.
 *
 * Not under AddressSanitizer: the chooser's places sidebar asks
 * libcloudproviders for cloud folders, and libcloudproviders leaks two
 * path strings doing so. The sanitizer's fast unwinder stops at GLib's
 * first frame (natter-ui-test-lsan.c), so that leak cannot be named in
 * tests/lsan.supp, and it would fail the run for a library's leak. */
static void
test_archive_choosers (void)
{
#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("GTK's file chooser leaks through libcloudproviders, which LeakSanitizer cannot be told of here");
#else
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Picnic / plans");
  NatterWindow *window = ui_window_new (app, u);

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  assert_chooser (window, "win.export", g_variant_new_string ("markdown"), "Export as Markdown", "Markdown",
                  "Picnic - plans.md");
  assert_chooser (window, "win.export", g_variant_new_string ("json"), "Export as Archive", "Natter archives",
                  "Picnic - plans.json");
  assert_chooser (window, "win.import", g_variant_new_string ("natter"), "Import Conversation", "Natter archives",
                  NULL);
  assert_chooser (window, "win.import", g_variant_new_string ("chatgpt"), "Import from ChatGPT",
                  "ChatGPT conversations.json", NULL);
  /* From another conversation's row, which stays closed: named after
   * that one. */
  {
    g_autofree char *other = ui_create_session (u, "Holiday notes");

    assert_chooser (window, "win.export-conversation", g_variant_new ("(ss)", other, "json"), "Export as Archive",
                    "Natter archives", "Holiday notes.json");
    g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);
  }

  /* A bidirectional override or isolate in the title would turn the
   * name around in Files ("Photo" RLO "gnp.exe.md" reads
   * "Photo dm.exe.png"): it becomes a dash, as a slash does. */
  {
    g_autofree char *odd = ui_create_session (u, "Photo \u202Egnp.exe \u2066x\u2069");

    g_assert_true (natter_window_open_session (window, odd));
    ui_wait_until (ui_timeline_loaded, window);
    assert_chooser (window, "win.export", g_variant_new_string ("markdown"), "Export as Markdown", "Markdown",
                    "Photo -gnp.exe -x-.md");
  }

  ui_destroy_window (window);
  ui_world_free (u);
#endif
}

static void
test_export_import (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Picnic / plans");
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) markdown = g_file_get_child (u->w->dir, "picnic.md");
  g_autoptr(GFile) archive = g_file_get_child (u->w->dir, "picnic.json");
  g_autofree char *contents = NULL;
  NatterWindow *window;
  Shown shown;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Bring <b>bread</b>.\"}", NULL);
  turn_id = ui_send (u, session_id, "What should I bring?");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  _natter_window_export_to (window, session_id, "markdown", markdown);
  ui_wait_until (file_exists, markdown);
  shown = (Shown) { window, "Exported to “picnic.md”" };
  ui_wait_until (label_shown, &shown);
  g_assert_true (g_file_load_contents (markdown, NULL, &contents, NULL, NULL, NULL));
  g_assert_cmpstr (contents, ==, "# Picnic / plans\n\n## You\n\nWhat should I bring?\n\n## Answer\n\nBring <b>bread</b>.\n");

  _natter_window_export_to (window, session_id, "json", archive);
  ui_wait_until (file_exists, archive);
  shown = (Shown) { window, "Exported to “picnic.json”" };
  ui_wait_until (label_shown, &shown);

  /* The import opens the new conversation, a sidebar row of its own. */
  g_object_set_data_full (G_OBJECT (window), "before", g_strdup (session_id), g_free);
  _natter_window_import_from (window, archive, NULL);
  ui_wait_until_full (other_session_open, describe_open, window);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (u->index)), ==, 2);
  shown = (Shown) { window, "Imported 1 conversation" };
  ui_wait_until (label_shown, &shown);
  ui_wait_until (ui_timeline_loaded, window);
  shown = (Shown) { window, "What should I bring?" };
  ui_wait_until (label_shown, &shown);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_import_damaged (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) file = g_file_get_child (u->w->dir, "broken.json");
  NatterWindow *window = ui_window_new (app, u);
  const char *text = "[{\"title\":\"x\",\"mapping\":{},\"current_node\":\"n1\"}]";
  Shown shown;

  g_assert_true (g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          NULL));
  _natter_window_import_from (window, file, "chatgpt");
  ui_wait_until (ui_error_bar_shown, window);
  shown = (Shown) { window, "Nothing was imported" };
  g_assert_true (label_shown (&shown));
  shown = (Shown) { window, "Conversation 1 (“x”): message n1 is not in its “mapping”" };
  g_assert_true (label_shown (&shown));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (u->index)), ==, 0);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* An import says what it left out: the toast offers Details, which
 * name the grant, the queued message, the server address, the working
 * folder and the added system instruction that stayed behind; the conversation opens on the
 * person's own provider, not on the address the file names. */
static void
test_import_summary (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = ui_window_new (app, u);
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterTestShared shared = { .provider = "http://127.0.0.1:9/v1", .model = "m", .grant = TRUE, .queued = TRUE,
                              .cwd = TRUE, .instruction = TRUE };
  g_autofree char *text = natter_test_shared_archive (&shared);
  g_autoptr(GFile) file = g_file_get_child (u->w->dir, "shared.json");
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data", "chatgpt", "conversations.json", NULL);
  g_autoptr(GFile) export = g_file_new_for_path (path);
  Shown shown;

  natter_provider_registry_add_provider (registry, "scripted", "Scripted", "http://127.0.0.1:9/v1/");
  natter_window_set_model_provider (window, registry, "scripted", "m");
  g_assert_true (g_file_replace_contents (file, text, strlen (text), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          NULL));
  _natter_window_import_from (window, file, NULL);
  g_object_set_data (G_OBJECT (window), "before", NULL);
  ui_wait_until_full (other_session_open, describe_open, window);
  shown = (Shown) { window, "Imported 1 conversation" };
  ui_wait_until (label_shown, &shown);
  g_assert_nonnull (ui_find_button (window, "_Details"));
  g_assert_nonnull (strstr (window->archive.last_import_details, "1 “Always Allow” permission was not brought over"));
  g_assert_nonnull (strstr (window->archive.last_import_details, "1 queued message was not brought over"));
  g_assert_nonnull (strstr (window->archive.last_import_details, "server address named in the file"));
  g_assert_nonnull (strstr (window->archive.last_import_details, "working folder"));
  g_assert_nonnull (strstr (window->archive.last_import_details,
                            "1 system instruction the file added to the conversation was not brought over"));
  g_assert_cmpstr (natter_model_picker_get_provider_id (natter_window_get_model_picker (window)), ==, "scripted");

  /* A ChatGPT export with a damaged conversation: the others come in and
   * the damaged one is named. */
  g_object_set_data_full (G_OBJECT (window), "before", g_strdup (natter_window_get_session_id (window)), g_free);
  _natter_window_import_from (window, export, "chatgpt");
  ui_wait_until_full (other_session_open, describe_open, window);
  g_assert_nonnull (strstr (window->archive.last_import_details,
                            "• Conversation 6 (“Damaged”): message gone is not in its “mapping”"));

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/archive/menus", test_archive_menus);
  g_test_add_func ("/archive/row-menu-exports", test_row_menu_exports);
  g_test_add_func ("/archive/choosers", test_archive_choosers);
  g_test_add_func ("/archive/export-import", test_export_import);
  g_test_add_func ("/archive/import-damaged", test_import_damaged);
  g_test_add_func ("/archive/import-summary", test_import_summary);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
