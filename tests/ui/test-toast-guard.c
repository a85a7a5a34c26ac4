/* test-toast-guard.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The toast guard (natter-toast-guard.c) keeps libadwaita 1.2 from hiding
 * a toast that is still appearing: a dismissal, and an add of high
 * priority (which hides the toast on screen), wait until the toasts on the
 * overlay have had 600 ms of frames to appear; a pending add dismissed
 * meanwhile is dropped unseen.
 */

#include "natter-toast-guard.h"
#include "natter-ui-test-world.h"

typedef struct
{
  GtkWindow       *window;
  AdwToastOverlay *overlay;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->window = GTK_WINDOW (gtk_window_new ());
  f->overlay = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  adw_toast_overlay_set_child (f->overlay, gtk_label_new ("content"));
  natter_toast_guard_attach (f->overlay);
  gtk_window_set_child (f->window, GTK_WIDGET (f->overlay));
  gtk_window_set_default_size (f->window, 600, 400);
  gtk_window_present (f->window);
  ui_wait_until (ui_is_mapped, f->overlay);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (f->window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static guint
n_toast_widgets (AdwToastOverlay *overlay)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (overlay)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n += child != adw_toast_overlay_get_child (overlay);
  return n;
}

static AdwToast *
high_toast (const char *title)
{
  AdwToast *toast = adw_toast_new (title);

  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  return toast;
}

typedef struct
{
  AdwToastOverlay *overlay;
  AdwToast        *toast;
} Shown;

/* Whether @toast has a widget on the overlay: its title is a label there. */
static gboolean
toast_shown (gpointer data)
{
  Shown *shown = data;

  return ui_label_shown (shown->overlay, adw_toast_get_title (shown->toast));
}

/* A high-priority toast added while another appears waits ≥ 600 ms of
 * frame time; the first toast is never hidden before then. */
static void
test_high_add_waits (Fixture       *f,
                     gconstpointer  data)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (f->overlay));
  g_autoptr(AdwToast) first = high_toast ("First");
  g_autoptr(AdwToast) second = high_toast ("Second");
  Shown shown = { f->overlay, second };
  gint64 added_us;

  natter_toast_guard_add (f->overlay, g_object_ref (first));
  g_assert_cmpuint (n_toast_widgets (f->overlay), ==, 1);
  added_us = gdk_frame_clock_get_frame_time (clock);

  natter_toast_guard_add (f->overlay, g_object_ref (second));
  /* Held back: the first one stays alone on screen for now. */
  g_assert_cmpuint (n_toast_widgets (f->overlay), ==, 1);
  g_assert_false (toast_shown (&shown));

  ui_wait_until (toast_shown, &shown);
  g_assert_cmpint (gdk_frame_clock_get_frame_time (clock) - added_us, >=, 600 * G_TIME_SPAN_MILLISECOND);
}

static void
count_dismissed_cb (AdwToast *toast,
                    guint    *n)
{
  (*n)++;
}

/* A pending add dismissed before its time goes unseen, without
 * ::dismissed; nothing else is held back by it. */
static void
test_pending_add_dismissed (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(AdwToast) first = high_toast ("First");
  g_autoptr(AdwToast) second = high_toast ("Second");
  g_autoptr(AdwToast) third = adw_toast_new ("Third");
  Shown shown = { f->overlay, third };
  guint n_dismissed = 0;

  g_signal_connect (second, "dismissed", G_CALLBACK (count_dismissed_cb), &n_dismissed);
  natter_toast_guard_add (f->overlay, g_object_ref (first));
  natter_toast_guard_add (f->overlay, g_object_ref (second));
  natter_toast_guard_dismiss (f->overlay, second);
  /* An ordinary toast queues behind the one on screen; dismissing that
   * one (through the guard) shows it. */
  adw_toast_overlay_add_toast (f->overlay, g_object_ref (third));
  natter_toast_guard_dismiss (f->overlay, first);
  ui_wait_until (toast_shown, &shown);
  g_assert_false (ui_label_shown (f->overlay, "Second"));
  g_assert_cmpuint (n_dismissed, ==, 0);
}

/* Unmapped, the overlay animates nothing: what waits is done at once. */
static void
test_unmap_flushes (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(AdwToast) first = high_toast ("First");
  g_autoptr(AdwToast) second = high_toast ("Second");
  Shown shown = { f->overlay, second };

  natter_toast_guard_add (f->overlay, g_object_ref (first));
  natter_toast_guard_add (f->overlay, g_object_ref (second));
  gtk_widget_set_visible (GTK_WIDGET (f->window), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (f->window), TRUE);
  ui_wait_until (toast_shown, &shown);
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);

  g_test_add ("/toast-guard/high-add-waits", Fixture, NULL, fixture_set_up, test_high_add_waits, fixture_tear_down);
  g_test_add ("/toast-guard/pending-add-dismissed", Fixture, NULL, fixture_set_up, test_pending_add_dismissed,
              fixture_tear_down);
  g_test_add ("/toast-guard/unmap-flushes", Fixture, NULL, fixture_set_up, test_unmap_flushes, fixture_tear_down);

  return g_test_run ();
}
