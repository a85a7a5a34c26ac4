/* natter-ui-test-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window over the world's service: opening it, waiting for its
 * timeline, its error bar, its toasts, its sidebar rows and the
 * Permissions dialog it opens; destroying it and asserting that it is
 * finalized.
 */

#include "natter-ui-test-world.h"

#include "natter-toast-guard.h"
#include "natter-window-private.h"

/* A window of @app over @u's service with the fake agent "helper",
 * shown at 1000x700 and mapped. */
NatterWindow *
ui_window_new (NatterApplication *app,
               UiWorld           *u)
{
  NatterWindow *window = natter_window_new (app, u->sessions, u->w->hub);

  natter_window_set_agent_id (window, "helper");
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  return window;
}

/* Whether the window @data has an open session whose timeline has read
 * its session file. */
gboolean
ui_timeline_loaded (gpointer data)
{
  NatterTimelineModel *timeline = natter_window_get_timeline (data);

  /* A conversation picked in the list is shown once its turns are read:
   * until then the window's timeline is the one it showed before. */
  return timeline != NULL && natter_timeline_model_get_loaded (timeline) &&
         natter_window_get_opening_session_id (data) == NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
} TurnRead;

static gboolean
turn_read (gpointer data)
{
  TurnRead *t = data;
  NatterTimelineModel *timeline = natter_window_get_timeline (t->window);
  NatterTurnItem *item = timeline != NULL ? natter_timeline_model_lookup_any (timeline, t->turn_id) : NULL;

  if (item != NULL)
    natter_turn_item_ensure_loaded (item);
  return item != NULL && natter_turn_item_get_state (item) != NULL;
}

/* Waits until the open conversation's timeline lists @turn_id (its own
 * or one it shows from an earlier version) and has read it: the index may say it completed before the timeline has its
 * item, and an item is read once its row is laid out; what acts on the
 * turn's row (its Edit, its Try Again) needs it read. */
void
ui_wait_turn_read (NatterWindow *window,
                   const char   *turn_id)
{
  TurnRead t = { window, turn_id };

  ui_wait_until (turn_read, &t);
}

static gboolean
search_entry_shown (gpointer window)
{
  ui_settle ();
  return ui_find_first (window, GTK_TYPE_SEARCH_ENTRY) != NULL;
}

/* Opens @window's search (win.search) and returns its entry once it is
 * on screen: the search bar's revealer maps the entry only on the first
 * frame of its animation, which a slow run (sanitizers) draws late. */
GtkEditable *
ui_open_search (NatterWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  ui_wait_until (search_entry_shown, window);
  return GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY));
}

/* Whether @window's error bar is on screen: revealed, and its
 * animation over. */
gboolean
ui_error_bar_shown (gpointer window)
{
  ui_settle ();
  return gtk_revealer_get_child_revealed (GTK_REVEALER (natter_window_get_error_bar (window)));
}

/* Whether @window's error bar is gone from the screen too, not only on
 * its way out. */
gboolean
ui_error_bar_hidden (gpointer window)
{
  GtkRevealer *bar;

  ui_settle ();
  bar = GTK_REVEALER (natter_window_get_error_bar (window));
  return !gtk_revealer_get_reveal_child (bar) && !gtk_revealer_get_child_revealed (bar);
}

/* No toast left on @window's overlay, their hide animations ended: a
 * window that goes with a toast still on it is not finalized
 * (libadwaita 1.2). */
gboolean
ui_no_toasts (gpointer window)
{
  GtkWidget *overlay = GTK_WIDGET (natter_window_get_toast_overlay (window));
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (overlay); child != NULL; child = gtk_widget_get_next_sibling (child))
    n++;
  return n == 1;
}

static gboolean
toasts_settled (gpointer window)
{
  return natter_toast_guard_is_settled (ADW_TOAST_OVERLAY (natter_window_get_toast_overlay (window)));
}

static gboolean
keep_ticking_cb (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       user_data)
{
  return G_SOURCE_CONTINUE;
}

/**
 * ui_wait_toasts_settled:
 * @window: a #NatterWindow
 *
 * Waits until every toast of @window has finished appearing
 * (natter_toast_guard_is_settled()), as a person's click on a toast
 * comes. Only time has to pass for that, and time passing wakes nobody:
 * once the window has drawn its last frame, the main loop sleeps until
 * its next source, which may well be the toast's own timeout, 5 s later,
 * dismissing the very toast the test meant to act on. The first window of
 * a process happened to go on drawing for long enough; later ones, faster
 * to settle, did not, and a test that ran after another failed. The
 * overlay's frame clock is kept ticking for the wait, so the guard's
 * clock is looked at every frame.
 */
void
ui_wait_toasts_settled (gpointer window)
{
  GtkWidget *overlay = GTK_WIDGET (natter_window_get_toast_overlay (window));
  guint tick_id = gtk_widget_add_tick_callback (overlay, keep_ticking_cb, NULL, NULL);

  ui_wait_until (toasts_settled, window);
  gtk_widget_remove_tick_callback (overlay, tick_id);
}

/* Clicks the button labelled @label of the toast on @window, once every
 * toast there has finished appearing, as a person's click comes: the
 * button dismisses its toast past the window's toast guard, and
 * libadwaita 1.2 frees a toast twice when that happens while it is still
 * sliding in. */
void
ui_click_toast_button (gpointer    window,
                       const char *label)
{
  GtkWidget *button;

  ui_wait_toasts_settled (window);
  button = ui_find_button (natter_window_get_toast_overlay (window), label);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}

/* The sidebar row of @session_id in @window, or NULL while it is not
 * shown. */
NatterSessionRow *
ui_find_session_row (NatterWindow *window,
                     const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/**
 * ui_find_permissions_list:
 *
 * Finds the Permissions dialog's list on screen, in any toplevel.
 *
 * Returns: (transfer none) (nullable): the mapped list, or %NULL
 */
NatterPermissionsList *
ui_find_permissions_list (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      GtkWidget *list = ui_find_first (w, NATTER_TYPE_PERMISSIONS_LIST);

      if (list != NULL && gtk_widget_get_mapped (list))
        return NATTER_PERMISSIONS_LIST (list);
    }
  return NULL;
}

/**
 * ui_permissions_list_shows:
 * @n_grants: GUINT_TO_POINTER() of the number of grants expected
 *
 * A condition for ui_wait_until(): the Permissions dialog's list is on
 * screen, has read the grants, and lists @n_grants of them.
 *
 * Returns: whether it does
 */
gboolean
ui_permissions_list_shows (gpointer n_grants)
{
  NatterPermissionsList *list;

  ui_settle ();
  list = ui_find_permissions_list ();
  return list != NULL && natter_permissions_list_is_loaded (list) &&
         natter_permissions_list_get_n_grants (list) == GPOINTER_TO_UINT (n_grants);
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static char *
describe_window_kept (gpointer data)
{
  return g_strdup ("the destroyed window is still referenced");
}

/* Destroys @window and asserts that it is finalized. */
void
ui_destroy_window (NatterWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  /* Work the window started (a read, a stream's end) holds it until its
   * callback runs; it must let go then, or it is a leak. */
  ui_wait_until_full (window_gone, describe_window_kept, &weak);
}
