/* natter-ui-test-wait.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Waiting without sleeps: iterating the main loop until a condition
 * holds (with a timeout that ui_slowdown() stretches), an asynchronous
 * call's result, a painted frame; and the plain conditions to wait for.
 */

#include "natter-ui-test-world.h"

static gboolean
ui_timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* How many times slower than a plain build the tests may run: the
 * sanitizer pass of .ci/run sets NATTER_TEST_SLOWDOWN (as it sets meson's
 * --timeout-multiplier), since a loaded machine under ASan takes more
 * than 10 s to lay out hundreds of rows. */
guint
ui_slowdown (void)
{
  const char *value = g_getenv ("NATTER_TEST_SLOWDOWN");
  guint64 factor = value != NULL ? g_ascii_strtoull (value, NULL, 10) : 1;

  return (guint) CLAMP (factor, 1, 20);
}

/* Iterates the main context until @condition holds; fails after 10 s
 * (times ui_slowdown()), naming @condition_name and @location, with what
 * @describe (if any) says of @data. Called through ui_wait_until() and
 * ui_wait_until_full(), which fill in the name and the place. */
void
ui_wait_until_at (UiCondition  condition,
                  UiDescribe   describe,
                  gpointer     data,
                  const char  *condition_name,
                  const char  *location)
{
  gboolean timed_out = FALSE;
  gboolean held;
  guint id = g_timeout_add (10000 * ui_slowdown (), ui_timeout_cb, &timed_out);

  /* One answer per pass, and the last one decides: conditions settle the
   * main loop themselves, so asking again after a yes can say no (a row
   * laid out since holds a view not yet ready) and fail a wait that
   * never timed out. */
  while (!(held = condition (data)) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (!held)
    {
      g_autofree char *what = describe != NULL ? describe (data) : NULL;

      g_error ("Timed out waiting for %s (%s)%s%s", condition_name, location, what != NULL ? ": " : "",
               what != NULL ? what : "");
    }
}

/* Lets the window lay out and draw what changed. Bounded: a spinner
 * keeps the frame clock busy forever. */
void
ui_settle (void)
{
  for (int i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

/* Whether the GAsyncResult pointer at @data has been set. */
gboolean
ui_result_ready (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

/* A GAsyncReadyCallback that stores a reference to the result in the
 * GAsyncResult pointer @user_data. */
void
ui_result_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Waits until ui_result_cb() has stored into @result, and returns it
 * (transfer none: @result owns it). */
GAsyncResult *
ui_wait_result (GAsyncResult **result)
{
  ui_wait_until (ui_result_ready, result);
  return *result;
}

/* Whether the gboolean at @data is TRUE. */
gboolean
ui_is_true (gpointer data)
{
  return *(gboolean *) data;
}

/* Whether the widget @data is mapped. */
gboolean
ui_is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data));
}

static void
ui_painted_cb (GdkFrameClock *clock,
               gboolean      *painted)
{
  *painted = TRUE;
}

/* Waits until every shown window has painted a frame since now, and the
 * X server has what they drew: what changed before is on the screen
 * (settling the main loop alone can end before the frame). */
void
ui_wait_painted (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);
      GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
      gboolean painted = FALSE;
      gulong handler;

      if (!gtk_widget_get_mapped (window) || clock == NULL)
        continue;
      handler = g_signal_connect (clock, "after-paint", G_CALLBACK (ui_painted_cb), &painted);
      gtk_widget_queue_draw (window);
      ui_wait_until (ui_is_true, &painted);
      g_signal_handler_disconnect (clock, handler);
    }
  gdk_display_sync (gdk_display_get_default ());
}
