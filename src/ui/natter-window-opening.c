/* natter-window-opening.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opening a conversation the user picked: the window goes on showing
 * what it shows until the turns the new conversation opens on are read,
 * and then switches in one frame. Switching at once drew a frame of
 * empty rows first; with a software renderer that frame alone costs
 * about as long as reading the turns, and the turns then waited for it.
 * The wait is bounded, and a key press or a click during it switches at
 * once, so what the user does next goes to the conversation they chose.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-timeline-model.h"
#include "natter-window-private.h"

/* The longest a picked conversation waits for its turns before it is
 * shown with "Loading…" rows: a slow disk or a very long session must not
 * make the click look ignored. */
#define OPENING_WAIT_MS 120

/* Tests set a longer wait where a loaded machine could outlast this one;
 * 0 means the default. */
void
_natter_window_set_opening_wait (NatterWindow *self,
                                 guint         wait_ms)
{
  self->opening.wait_ms = wait_ms;
}

static void
check_opening (NatterWindow *self);

void
_natter_window_cancel_opening (NatterWindow *self)
{
  if (self->opening.timeline != NULL)
    g_signal_handlers_disconnect_by_func (self->opening.timeline, check_opening, self);
  g_clear_object (&self->opening.timeline);
  if (self->opening.items != NULL)
    {
      for (guint i = 0; i < self->opening.items->len; i++)
        g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->opening.items, i),
                                              check_opening, self);
      g_clear_pointer (&self->opening.items, g_ptr_array_unref);
    }
  g_clear_handle_id (&self->opening.timeout_id, g_source_remove);
  g_clear_pointer (&self->opening.id, g_free);
}

static void
finish_opening (NatterWindow *self)
{
  g_autofree char *session_id = g_strdup (self->opening.id);

  if (session_id == NULL)
    return;
  /* Ended before opening: a session deleted meanwhile is not opened, and
   * nothing waits for it any more. */
  _natter_window_cancel_opening (self);
  natter_window_open_session (self, session_id);
}

/* Once the turn list is known: read the latest turns, as the view
 * showing the bottom would, and hear when each read ends. */
static void
watch_latest (NatterWindow *self)
{
  if (self->opening.items != NULL)
    return;
  natter_timeline_model_read_latest (self->opening.timeline, NATTER_TIMELINE_LATEST_TURNS);
  self->opening.items = natter_timeline_model_dup_latest (self->opening.timeline,
                                                          NATTER_TIMELINE_LATEST_TURNS);
  for (guint i = 0; i < self->opening.items->len; i++)
    g_signal_connect_swapped (g_ptr_array_index (self->opening.items, i), "changed",
                              G_CALLBACK (check_opening), self);
}

static void
check_opening (NatterWindow *self)
{
  if (self->opening.timeline == NULL)
    return;
  if (!natter_timeline_model_get_loaded (self->opening.timeline))
    return;
  watch_latest (self);
  if (natter_timeline_model_latest_read (self->opening.timeline, NATTER_TIMELINE_LATEST_TURNS))
    finish_opening (self);
}

static gboolean
opening_timeout_cb (gpointer data)
{
  NatterWindow *self = data;

  self->opening.timeout_id = 0;
  finish_opening (self);
  return G_SOURCE_REMOVE;
}

/**
 * natter_window_open_session_when_read:
 * @self: the window
 * @session_id: a session in the index
 *
 * Opens @session_id as natter_window_open_session() does, the way a
 * conversation the user picked is opened: when its latest turns (those
 * the view opens on, at the bottom) are not read yet, the window keeps
 * showing what it shows until they are, for at most 120 ms, or until the
 * user presses a key or clicks, and then switches to it. So the first
 * frame of the conversation shows its turns instead of placeholders. A
 * request for another session, or natter_window_open_session(), drops
 * the wait. Sessions whose latest turns are read already, those with no
 * turns, errored ones, and any in a window not shown are opened at once.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
natter_window_open_session_when_read (NatterWindow *self,
                                      const char   *session_id)
{
  NatterSessionIndexEntry *entry;
  NatterTimelineModel *timeline;
  g_autoptr(GSource) timeout = NULL;

  g_return_val_if_fail (NATTER_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  if (g_strcmp0 (session_id, self->opening.id) == 0)
    return TRUE;
  if (self->sessions == NULL || !natter_session_index_get_loaded (self->index) ||
      !gtk_widget_get_mapped (GTK_WIDGET (self)) || g_strcmp0 (session_id, self->conversation.session_id) == 0)
    return natter_window_open_session (self, session_id);
  entry = natter_session_index_lookup (self->index, session_id);
  /* A conversation with no turns has no rows to wait for. */
  if (entry == NULL || g_hash_table_contains (self->sidebar.pending_deletes, session_id) ||
      natter_session_index_entry_get_error (entry) != NULL ||
      natter_session_index_entry_get_turn_count (entry) == 0)
    return natter_window_open_session (self, session_id);

  timeline = _natter_window_ensure_timeline (self, session_id);
  if (natter_timeline_model_latest_read (timeline, NATTER_TIMELINE_LATEST_TURNS))
    return natter_window_open_session (self, session_id);

  _natter_window_cancel_opening (self);
  self->opening.id = g_strdup (session_id);
  self->opening.timeline = g_object_ref (timeline);
  g_signal_connect_swapped (timeline, "notify::loaded", G_CALLBACK (check_opening), self);
  timeout = g_timeout_source_new (self->opening.wait_ms > 0 ? self->opening.wait_ms : OPENING_WAIT_MS);
  g_source_set_callback (timeout, opening_timeout_cb, self, NULL);
  g_source_set_static_name (timeout, "[natter] conversation opening");
  self->opening.timeout_id = g_source_attach (timeout, NULL);
  check_opening (self);
  return TRUE;
}

/**
 * natter_window_get_opening_session_id:
 * @self: the window
 *
 * Returns: (nullable): the session natter_window_open_session_when_read()
 *   is waiting to show, or %NULL
 */
const char *
natter_window_get_opening_session_id (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return self->opening.id;
}

/* Input during the wait is meant for the conversation the user chose:
 * switch before it is delivered. Both controllers only look. */
static gboolean
opening_key_pressed_cb (GtkEventControllerKey *controller,
                        guint                  keyval,
                        guint                  keycode,
                        GdkModifierType        state,
                        NatterWindow          *self)
{
  finish_opening (self);
  return GDK_EVENT_PROPAGATE;
}

static void
opening_pressed_cb (GtkGestureClick *gesture,
                    int              n_press,
                    double           x,
                    double           y,
                    NatterWindow    *self)
{
  finish_opening (self);
}

void
_natter_window_opening_init (NatterWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (opening_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect (click, "pressed", G_CALLBACK (opening_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}
