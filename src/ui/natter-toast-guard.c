/* natter-toast-guard.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Dismissing a toast of libadwaita 1.2 while it is still appearing can
 * free it twice over. The overlay frees a toast's bookkeeping when its
 * hide animation ends, but leaves the "done" handler of its show
 * animation connected to that freed memory. Whenever the hide animation
 * ends first, the show animation's end (its last frame, or the overlay's
 * unmap, e.g. the window closing) then writes into and unrefs freed
 * memory: a crash, or damage that surfaces later as a critical anywhere.
 * The hide ends first when a toast shown with the 500 ms "replace"
 * animation (another toast was still hiding) is dismissed within 200 ms,
 * or when the main loop stalls long enough for both animations to end in
 * the same frame, since GTK runs the newer tick callback (the hide's)
 * first. Fixed in libadwaita 1.3 (commit 1674ebc9); Debian 12 has 1.2.
 *
 * The guard makes the window's own dismissals safe: it notes the frame
 * time of every toast that appears on the overlay (a new toast widget is
 * a new child) and dismisses a toast only from a frame of the overlay's
 * frame clock that is at least GUARD_US after the last appearance. The
 * show animations (at most 500 ms) have then reached their end in that
 * very frame at the latest, while the hide animation that the dismissal
 * starts cannot end before 300 ms later. A toast the overlay shows because
 * of the dismissal (the next one in its queue) is an appearance too, so
 * the next pending dismissal waits again.
 *
 * A toast of high priority hides the one on screen as it is added: that
 * is a dismissal too, so natter_toast_guard_add() holds such an add back
 * in the same way (the delete toast, added twice within a frame when two
 * conversations are deleted at once, crashed the keyboard test under
 * load without it).
 *
 * Dismissals that libadwaita makes itself (the toast's close button,
 * Escape, the timeout) do not go through here; only a timeout is
 * certain to come late enough.
 */

#define G_LOG_DOMAIN "natter-toast-guard"

#include "natter-toast-guard.h"

#include "natter-child-watch.h"

/* libadwaita 1.2's longest show animation (REPLACE_DURATION, 500 ms),
 * and room for the frame clock's rounding of the time the animation
 * started at. */
#define GUARD_US (600 * G_TIME_SPAN_MILLISECOND)

/* What waits for the toasts on screen to finish appearing. */
typedef struct
{
  AdwToast *toast;  /* owned */
  gboolean  add;    /* to add it, else to dismiss it */
} Pending;

typedef struct
{
  /* The frame time at which the latest toast appeared, or G_MININT64. */
  gint64      last_shown_us;
  /* Pending adds and dismissals, oldest first. */
  GQueue      pending;
  guint       tick_id;
} Guard;

static void
pending_free (Pending *pending)
{
  g_object_unref (pending->toast);
  g_free (pending);
}

static void
guard_free (Guard *guard)
{
  g_queue_clear_full (&guard->pending, (GDestroyNotify) pending_free);
  g_free (guard);
}

static void
push_pending (Guard    *guard,
              AdwToast *toast,
              gboolean  add)
{
  Pending *pending = g_new0 (Pending, 1);

  pending->toast = g_object_ref (toast);
  pending->add = add;
  g_queue_push_tail (&guard->pending, pending);
}

static GList *
find_pending (Guard    *guard,
              AdwToast *toast,
              gboolean  add)
{
  for (GList *l = guard->pending.head; l != NULL; l = l->next)
    {
      Pending *pending = l->data;

      if (pending->toast == toast && pending->add == add)
        return l;
    }
  return NULL;
}

static Guard *
guard_for (AdwToastOverlay *overlay)
{
  return g_object_get_data (G_OBJECT (overlay), "natter-toast-guard");
}

/* Whether every toast that appeared has finished appearing by the frame
 * time @now_us. */
static gboolean
appeared_long_ago (Guard  *guard,
                   gint64  now_us)
{
  return guard->last_shown_us == G_MININT64 || now_us - guard->last_shown_us >= GUARD_US;
}

static void
child_added_cb (GtkWidget *overlay,
                GtkWidget *child,
                gpointer   user_data)
{
  Guard *guard = guard_for (ADW_TOAST_OVERLAY (overlay));
  GdkFrameClock *clock = gtk_widget_get_frame_clock (overlay);

  /* Without a frame clock the overlay is not mapped, and libadwaita ends
   * a show animation there as soon as it starts: nothing to wait for. */
  if (guard != NULL && clock != NULL)
    guard->last_shown_us = MAX (guard->last_shown_us, gdk_frame_clock_get_frame_time (clock));
}

/* A toast that went by itself meanwhile is not on the overlay any more,
 * and adw_toast_dismiss() leaves it alone. */
static void
run_pending (AdwToastOverlay *overlay,
             Pending         *pending)
{
  if (pending->add)
    adw_toast_overlay_add_toast (overlay, g_object_ref (pending->toast));
  else
    adw_toast_dismiss (pending->toast);
  pending_free (pending);
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  AdwToastOverlay *overlay = ADW_TOAST_OVERLAY (widget);
  Guard *guard = guard_for (overlay);
  gint64 now = gdk_frame_clock_get_frame_time (clock);

  if (guard == NULL)
    return G_SOURCE_REMOVE;

  /* Each add, and each dismissal that shows the next queued toast, moves
   * last_shown_us on: check again before every one. */
  while (!g_queue_is_empty (&guard->pending) && appeared_long_ago (guard, now))
    run_pending (overlay, g_queue_pop_head (&guard->pending));

  if (!g_queue_is_empty (&guard->pending))
    return G_SOURCE_CONTINUE;
  guard->tick_id = 0;
  return G_SOURCE_REMOVE;
}

/* What waits goes in a frame of the overlay's frame clock (tick_cb()). */
static void
wait_for_frames (AdwToastOverlay *overlay,
                 Guard           *guard)
{
  if (guard->tick_id == 0)
    guard->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (overlay), tick_cb, NULL, NULL);
}

/* Connected after the overlay's other "unmap" handlers: those of its
 * animations have ended every one of them by now, and an add or a
 * dismissal on an unmapped overlay animates nothing, so what waits can go
 * at once. */
static void
overlay_unmapped_cb (AdwToastOverlay *overlay)
{
  Guard *guard = guard_for (overlay);

  if (guard == NULL)
    return;
  if (guard->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (overlay), guard->tick_id);
      guard->tick_id = 0;
    }
  while (!g_queue_is_empty (&guard->pending))
    run_pending (overlay, g_queue_pop_head (&guard->pending));
}

/* The overlay goes: drop the toasts still waiting, which the overlay's
 * dispose has dismissed. */
static void
overlay_destroy_cb (AdwToastOverlay *overlay)
{
  g_object_set_data (G_OBJECT (overlay), "natter-toast-guard", NULL);
}

/**
 * natter_toast_guard_attach:
 * @overlay: a toast overlay that has no toast yet
 *
 * Starts noting when toasts appear on @overlay, so that
 * natter_toast_guard_dismiss() can wait until a toast has finished
 * appearing. Call it once, before the first toast is added.
 */
void
natter_toast_guard_attach (AdwToastOverlay *overlay)
{
  Guard *guard;

  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (guard_for (overlay) == NULL);

  guard = g_new0 (Guard, 1);
  guard->last_shown_us = G_MININT64;
  g_queue_init (&guard->pending);
  g_object_set_data_full (G_OBJECT (overlay), "natter-toast-guard", guard, (GDestroyNotify) guard_free);
  natter_child_watch_add (GTK_WIDGET (overlay), child_added_cb, NULL);
  g_signal_connect_after (overlay, "unmap", G_CALLBACK (overlay_unmapped_cb), NULL);
  g_signal_connect (overlay, "destroy", G_CALLBACK (overlay_destroy_cb), NULL);
}

/**
 * natter_toast_guard_dismiss:
 * @overlay: the overlay @toast was added to, which
 *   natter_toast_guard_attach() was called on
 * @toast: a toast shown or queued on @overlay
 *
 * Dismisses @toast like adw_toast_dismiss(), but never while a toast of
 * its overlay may still be appearing: it is dismissed in the overlay's
 * next frame in which none is (at most 600 ms after the latest toast
 * appeared), or when the overlay is unmapped. The toast's
 * #AdwToast::dismissed handlers run then, not now. A toast that has gone
 * meanwhile (already dismissed) is left alone.
 */
void
natter_toast_guard_dismiss (AdwToastOverlay *overlay,
                            AdwToast        *toast)
{
  Guard *guard;
  GList *add;

  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (ADW_IS_TOAST (toast));

  guard = guard_for (overlay);
  g_return_if_fail (guard != NULL);

  /* Even when the time is up already, the dismissal waits for a frame:
   * outside one, a stalled main loop could end the new hide animation in
   * the same frame as a show animation that has not had its last frame
   * yet. An unmapped overlay has no frames and no animations; what it
   * holds goes at the latest when it is unmapped or disposed. */
  add = find_pending (guard, toast, TRUE);
  if (add != NULL)
    {
      /* Never shown: it goes without a trace, and without ::dismissed. */
      pending_free (add->data);
      g_queue_delete_link (&guard->pending, add);
      return;
    }
  if (find_pending (guard, toast, FALSE) == NULL)
    push_pending (guard, toast, FALSE);
  wait_for_frames (overlay, guard);
}

/**
 * natter_toast_guard_is_settled:
 * @overlay: an overlay natter_toast_guard_attach() was called on
 *
 * Whether every toast of @overlay has finished appearing (the latest
 * appeared at least 600 ms ago, by the frame clock) and none waits to be
 * added or dismissed. Only then is a click on a toast's own button safe
 * under libadwaita 1.2: the button dismisses the toast itself, past this
 * guard. A person cannot click a toast that is still sliding in; a test
 * that clicks one waits for this first, keeping the overlay's frames
 * coming meanwhile (a tick callback): only time has to pass, and time
 * passing wakes no main loop, which may otherwise sleep until the toast's
 * own timeout dismisses it.
 *
 * Returns: %TRUE when no toast of @overlay is still appearing
 */
gboolean
natter_toast_guard_is_settled (AdwToastOverlay *overlay)
{
  Guard *guard;
  GdkFrameClock *clock;

  g_return_val_if_fail (ADW_IS_TOAST_OVERLAY (overlay), FALSE);

  guard = guard_for (overlay);
  g_return_val_if_fail (guard != NULL, FALSE);

  if (!g_queue_is_empty (&guard->pending))
    return FALSE;
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (overlay));
  /* Outside a frame the clock's time follows the monotonic clock, so this
   * turns true without another frame being drawn. */
  return clock == NULL || appeared_long_ago (guard, gdk_frame_clock_get_frame_time (clock));
}

/**
 * natter_toast_guard_add:
 * @overlay: the overlay, which natter_toast_guard_attach() was called on
 * @toast: (transfer full): a toast of %ADW_TOAST_PRIORITY_HIGH
 *
 * Adds @toast like adw_toast_overlay_add_toast(). A toast of high
 * priority hides the toast on screen, which must not happen while that
 * one may still be appearing; so when the overlay shows a toast and
 * another appeared less than 600 ms ago, @toast is added in the first
 * frame after that (or when the overlay is unmapped), after the adds
 * and dismissals asked for before it. Dismissing it with
 * natter_toast_guard_dismiss() before then drops it unseen, without
 * #AdwToast::dismissed.
 */
void
natter_toast_guard_add (AdwToastOverlay *overlay,
                        AdwToast        *toast)
{
  g_autoptr(AdwToast) owned = toast;
  Guard *guard;
  GdkFrameClock *clock;

  g_return_if_fail (ADW_IS_TOAST_OVERLAY (overlay));
  g_return_if_fail (ADW_IS_TOAST (toast));

  guard = guard_for (overlay);
  g_return_if_fail (guard != NULL);

  clock = gtk_widget_get_frame_clock (GTK_WIDGET (overlay));
  /* Nothing waits, and nothing on screen to hide (the overlay's only child
   * is its content) or nothing still appearing: at once. */
  if (g_queue_is_empty (&guard->pending) &&
      (clock == NULL ||
       gtk_widget_get_first_child (GTK_WIDGET (overlay)) == gtk_widget_get_last_child (GTK_WIDGET (overlay)) ||
       appeared_long_ago (guard, gdk_frame_clock_get_frame_time (clock))))
    {
      adw_toast_overlay_add_toast (overlay, g_steal_pointer (&owned));
      return;
    }
  push_pending (guard, toast, TRUE);
  wait_for_frames (overlay, guard);
}
