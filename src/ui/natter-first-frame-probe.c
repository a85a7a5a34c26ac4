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

static void
after_paint_cb (GdkFrameClock *clock,
                gpointer       window)
{
  /* CLOCK_MONOTONIC, like the launcher's, so the two can be compared. */
  g_printerr ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, window);
}

static void
realize_cb (GtkWidget *widget)
{
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (after_paint_cb), widget);
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
 * @application has painted its first frame (bench/bench-app-start.c reads
 * it). Without it, does nothing.
 */
void
natter_first_frame_probe_attach (GtkApplication *application)
{
  g_return_if_fail (GTK_IS_APPLICATION (application));

  if (g_strcmp0 (g_getenv ("NATTER_BENCH_FIRST_FRAME"), "1") != 0)
    return;
  g_signal_connect (application, "window-added", G_CALLBACK (window_added_cb), NULL);
}
