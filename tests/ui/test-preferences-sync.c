/* test-preferences-sync.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Sync page of Preferences (docs/sync.md), driven as a person would,
 * over the real services on a temporary data folder whose name holds
 * markup: the folder to share, whether Syncthing shares it (its
 * `.stfolder`), this device, and Write, which puts Natter's patterns
 * into the ignore file and keeps the person's own. Ends with screenshots
 * in light and dark style and at 360 px, which NATTER_UPDATE_SCREENSHOTS=1
 * copies into docs/screenshots/ for docs/sync.md.
 */

#include <string.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "config.h"
#include "natter-preferences-window-private.h"
#include "natter-sync-ignore.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"

typedef struct
{
  GFile                   *top;
  GFile                   *data_dir;
  GSettings               *settings;
  NatterServices          *services;
  NatterPreferencesWindow *window;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();
  g_autoptr(NatterSettings) settings = NULL;

  f->top = natter_test_make_temp_dir ();
  /* A name that would be markup, were it not escaped; the pictures of
   * the docs show the usual one. */
  f->data_dir = g_file_get_child (f->top, data != NULL ? data : "Natter <b>&</b> data");
  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (f->data_dir), 0700), ==, 0);
  f->settings = g_settings_new_with_backend (APP_ID, backend);
  settings = natter_settings_new (f->settings);
  f->services = natter_services_new (f->data_dir, settings, NULL, NULL, NULL);
  /* The window's services, which hold the folder: this device's
   * identity is made once they do. */
  g_assert_true (natter_services_acquire_writer_lock (f->services, NULL));
  f->window = natter_preferences_window_new (NULL, f->services);
  gtk_window_present (GTK_WINDOW (f->window));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (f->window), "sync");
  ui_wait_preferences_idle (f->window);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* The page's reads hold the services until they end. */
  ui_wait_preferences_idle (f->window);
  ui_destroy_preferences_window (f->window);
  g_assert_finalize_object (f->services);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_finalize_object (f->settings);
  natter_test_remove_tree (f->top);
  g_clear_object (&f->data_dir);
  g_clear_object (&f->top);
}

static const char *
subtitle (Fixture    *f,
          const char *name)
{
  return adw_action_row_get_subtitle (ADW_ACTION_ROW (natter_preferences_window_get_sync_widget (f->window, name)));
}

static char *
stignore_text (Fixture *f)
{
  g_autofree char *path = g_build_filename (g_file_peek_path (f->data_dir), ".stignore", NULL);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

/* Not shared yet, then shared: the page says which, names the folder
 * and this device, and Write puts the patterns in beside the person's. */
static void
test_share_and_write (Fixture       *f,
                      gconstpointer  data)
{
  NatterDevice *device = natter_turn_runtime_get_device (natter_services_get_runtime (f->services));
  g_autofree char *marker = g_build_filename (g_file_peek_path (f->data_dir), ".stfolder", NULL);
  g_autofree char *stignore = g_build_filename (g_file_peek_path (f->data_dir), ".stignore", NULL);
  g_autofree char *block = natter_sync_ignore_block ("");
  g_autofree char *expected = NULL;
  g_autofree char *text = NULL;
  GtkWidget *write = natter_preferences_window_get_sync_widget (f->window, "write");

  g_assert_cmpstr (subtitle (f, "folder"), ==, g_file_peek_path (f->data_dir));
  g_assert_cmpstr (subtitle (f, "device"), ==, natter_device_get_name (device));
  g_assert_true (g_str_has_prefix (subtitle (f, "status"), "Not shared"));
  g_assert_true (g_str_has_prefix (subtitle (f, "ignore"), "Not yet in "));
  g_assert_true (gtk_widget_get_sensitive (write));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (natter_preferences_window_get_sync_widget (f->window,
                                                                                                     "patterns"))),
                            "/storage/.lock"));

  /* Syncthing shares the folder; the person has a pattern of their own. */
  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  g_assert_true (g_file_set_contents (stignore, "// mine\n*.bak\n", -1, NULL));
  natter_sync_page_refresh (natter_preferences_window_get_sync_page (f->window));
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (subtitle (f, "status"), ==, "Shared with Syncthing");

  g_signal_emit_by_name (write, "clicked");
  ui_wait_preferences_idle (f->window);
  text = stignore_text (f);
  expected = g_strconcat ("// mine\n*.bak\n", block, NULL);
  g_assert_cmpstr (text, ==, expected);
  g_assert_true (g_str_has_prefix (subtitle (f, "ignore"), "Written in "));
  g_assert_false (gtk_widget_get_sensitive (write));
}

static void
save (Fixture    *f,
      const char *name)
{
  ui_wait_preferences_idle (f->window);
  ui_save_window (GTK_WIDGET (f->window), name);
  ui_publish_screenshot (name, "docs/screenshots");
}

static void
test_screenshots (Fixture       *f,
                  gconstpointer  data)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *marker = g_build_filename (g_file_peek_path (f->data_dir), ".stfolder", NULL);

  /* Shared, patterns not yet written: what a person finds on first look. */
  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  natter_sync_page_refresh (natter_preferences_window_get_sync_page (f->window));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 640, 900);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  save (f, "preferences-sync.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  save (f, "preferences-sync-dark.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 360, 900);
  save (f, "preferences-sync-narrow.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

#define ADD(path, name, func) \
  g_test_add (path, Fixture, name, fixture_set_up, func, fixture_tear_down)
  ADD ("/preferences-sync/share-and-write", NULL, test_share_and_write);
  ADD ("/preferences-sync/screenshots", "natter", test_screenshots);
#undef ADD

  return g_test_run ();
}
