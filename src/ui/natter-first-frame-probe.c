/* natter-first-frame-probe.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one measuring hook the running app keeps, for bench/bench-app-start.c:
 * app start to first frame can only be measured from outside the process,
 * so the app has to say when its first frame was painted. It watches the
 * application's windows rather than living in a window's init, and does
 * nothing unless the benchmark asks for it.
 */

#include "config.h"

#include "natter-first-frame-probe.h"
#include "natter-services.h"

/* The application's services, if it has a "services" property
 * (#NatterApplication:services) and it is set: the probe goes by the
 * property, not the type, so that it stays below the application. */
static NatterServices *
services_of (GtkApplication *application)
{
  g_autoptr(NatterServices) services = NULL;

  if (application == NULL || g_object_class_find_property (G_OBJECT_GET_CLASS (application), "services") == NULL)
    return NULL;
  g_object_get (application, "services", &services, NULL);
  /* The application keeps them. */
  return services;
}

static void
after_paint_cb (GdkFrameClock *clock,
                gpointer       window)
{
  /* CLOCK_MONOTONIC, like the launcher's, so the two can be compared. */
  g_printerr ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, window);
}

/* The first frame painted once the session list is loaded: the list the
 * user sees, not the empty window before it. */
static void
list_after_paint_cb (GdkFrameClock *clock,
                     GtkWindow     *window)
{
  GtkApplication *application = gtk_window_get_application (window);
  NatterServices *services;

  if ((services = services_of (application)) == NULL ||
      !natter_session_index_get_loaded (natter_services_get_index (services)))
    return;
  g_printerr ("list-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, list_after_paint_cb, window);
}

static void
realize_cb (GtkWidget *widget)
{
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (widget));
  NatterServices *services = services_of (application);

  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (after_paint_cb), widget);
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (list_after_paint_cb), widget);
  /* A list that loads without changing what is drawn (no session) still
   * gets its frame. */
  if (services != NULL)
    g_signal_connect_object (natter_services_get_index (services), "notify::loaded",
                             G_CALLBACK (gtk_widget_queue_draw), widget, G_CONNECT_SWAPPED);
}

static void
window_added_cb (GtkApplication *application,
                 GtkWindow      *window)
{
  g_signal_connect (window, "realize", G_CALLBACK (realize_cb), NULL);
  g_signal_handlers_disconnect_by_func (application, window_added_cb, NULL);
}

/**
 * natter_first_frame_probe_attach:
 * @application: the application whose first window is watched
 *
 * With `NATTER_BENCH_FIRST_FRAME=1` in the environment, prints
 * `first-frame <monotonic µs>` to stderr once the first window added to
 * @application has painted its first frame, and `list-frame <monotonic
 * µs>` once it has painted one with the session list loaded
 * (bench/bench-app-start.c reads them). Without it, does nothing.
 */
void
natter_first_frame_probe_attach (GtkApplication *application)
{
  g_return_if_fail (GTK_IS_APPLICATION (application));

  if (g_strcmp0 (g_getenv ("NATTER_BENCH_FIRST_FRAME"), "1") != 0)
    return;
  g_signal_connect (application, "window-added", G_CALLBACK (window_added_cb), NULL);
}
