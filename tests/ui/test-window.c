/* test-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window under a real (virtual) display.
 */

#include <adwaita.h>

#include "natter-window.h"

/* One registered application serves every test, as in the real process. */
static NatterApplication *app;

static gboolean
widget_is_mapped (GtkWidget *widget)
{
  return gtk_widget_get_mapped (widget);
}

static void
wait_until_mapped (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!widget_is_mapped (widget) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (widget_is_mapped (widget));
}

static GtkWidget *
find_status_page (GtkWidget  *root,
                  const char *title)
{
  if (ADW_IS_STATUS_PAGE (root) &&
      g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (root)), title) == 0)
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_status_page (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_window_empty_state (void)
{
  NatterWindow *window;

  window = natter_window_new (app, NULL, NULL);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));

  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "No Conversations"));
  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "Start a Conversation"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_size_is_restored (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  NatterWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 777);
  g_settings_set_int (settings, "window-height", 555);

  window = natter_window_new (app, NULL, NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 777);
  g_assert_cmpint (height, ==, 555);

  /* Closing saves the size for the next start. */
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 640);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));
  gtk_window_close (GTK_WINDOW (window));
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 900);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 640);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  int status;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  app = natter_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("Could not register the application: %s", error->message);

  g_test_add_func ("/window/empty-state", test_window_empty_state);
  g_test_add_func ("/window/size-is-restored", test_window_size_is_restored);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
