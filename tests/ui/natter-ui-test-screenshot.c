/* natter-ui-test-screenshot.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Screenshots: PNGs for a person to look at, in screenshots/ under the
 * test's build directory: g_test_get_dir (G_TEST_BUILT), which is
 * $G_TEST_BUILDDIR (tests/ui/meson.build sets it to build/tests/ui). A
 * window drawn through GTK (ui_save_window()), or the whole X screen
 * (ui_save_screen()); copied into the source tree on request.
 */

#include "natter-ui-test-world.h"

#include <string.h>

/* The path of screenshot @name, with its folder made (transfer full). */
char *
ui_screenshot_path (const char *name)
{
  g_autofree char *dir = g_build_filename (g_test_get_dir (G_TEST_BUILT), "screenshots", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return g_build_filename (dir, name, NULL);
}

/**
 * ui_publish_screenshot:
 * @name: a screenshot ui_save_window() saved
 * @to: the folder of the source tree it belongs in, e.g. "data/screenshots"
 *
 * Copies the screenshot into the source tree when NATTER_UPDATE_SCREENSHOTS
 * is set in the environment (the pictures of the README and the docs);
 * does nothing otherwise.
 */
void
ui_publish_screenshot (const char *name,
                       const char *to)
{
  g_autofree char *from = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  if (g_getenv ("NATTER_UPDATE_SCREENSHOTS") == NULL)
    return;
  from = ui_screenshot_path (name);
  path = g_test_build_filename (G_TEST_DIST, "..", "..", to, name, NULL);
  g_assert_true (g_file_get_contents (from, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_no_error (error);
  g_test_message ("Published %s", path);
}

typedef struct
{
  GtkWidget  *widget;
  GdkTexture *texture;
} UiShot;

/* Right after a frame is painted everything is allocated, so the widget
 * can draw itself into a texture then. */
static void
ui_shot_after_paint_cb (GdkFrameClock *clock,
                        UiShot        *shot)
{
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (shot->widget);
  int height = gtk_widget_get_height (shot->widget);

  if (shot->texture != NULL || width <= 0)
    return;
  snapshot = gtk_snapshot_new ();
  /* The class snapshot leaves out a window's own background, and
   * libadwaita's dark cards are translucent over it: paint it first. */
  if (GTK_IS_WINDOW (shot->widget))
    {
      GdkRGBA background = { 0.98f, 0.98f, 0.98f, 1.f };

      gtk_style_context_lookup_color (gtk_widget_get_style_context (shot->widget), "window_bg_color", &background);
      gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));
    }
  /* GTK 4.8 has no public gtk_widget_snapshot(). */
  GTK_WIDGET_GET_CLASS (shot->widget)->snapshot (shot->widget, snapshot);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  shot->texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (shot->widget)), node,
                                               &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static gboolean
ui_shot_taken (gpointer data)
{
  return ((UiShot *) data)->texture != NULL;
}

/* Saves what @window (a window, or another GtkNative such as a popover)
 * draws, once the main loop has settled, to screenshots/@name (a PNG).
 * It draws through GTK, so it needs no X display; but the window's
 * children keep the render nodes they had before a style change (a
 * sidebar stays light in dark style): ui_save_screen() shows those. */
void
ui_save_window (GtkWidget  *window,
                const char *name)
{
  g_autofree char *file = ui_screenshot_path (name);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
  UiShot shot = { window, NULL };
  gulong handler;

  for (int i = 0; i < 5; i++)
    ui_settle ();
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (ui_shot_after_paint_cb), &shot);
  gtk_widget_queue_draw (window);
  ui_wait_until (ui_shot_taken, &shot);
  g_signal_handler_disconnect (clock, handler);
  g_assert_true (gdk_texture_save_to_png (shot.texture, file));
  g_object_unref (shot.texture);
  g_test_message ("Saved %s", file);
}

/* Whether ui_save_screen() can take a screenshot: an X display and
 * ImageMagick's import. */
gboolean
ui_can_save_screen (void)
{
  g_autofree char *import = g_find_program_in_path ("import");

  return import != NULL && g_getenv ("DISPLAY") != NULL;
}

/* Saves the whole X screen, once the main loop has settled, to
 * screenshots/@name (a PNG) with ImageMagick's `import -window root`:
 * what the user sees, after a style change too, and popovers (surfaces
 * of their own) with it. Returns FALSE, saving nothing, without an X
 * display or import (see ui_can_save_screen()). */
gboolean
ui_save_screen (const char *name)
{
  g_autofree char *import = NULL;
  g_autofree char *file = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!ui_can_save_screen ())
    return FALSE;
  import = g_find_program_in_path ("import");
  file = ui_screenshot_path (name);
  for (int i = 0; i < 20; i++)
    ui_settle ();
  ui_wait_painted ();
  g_assert_true (g_spawn_sync (NULL, (char *[]) { import, (char *) "-window", (char *) "root", file, NULL }, NULL,
                               G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("Saved %s", file);
  return TRUE;
}
