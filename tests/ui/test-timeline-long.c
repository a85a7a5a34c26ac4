/* test-timeline-long.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A long conversation opens fast, reading only the turns its rows show,
 * also after scrolling; a conversation picked in the list shows its
 * turns in its first frame.
 */

#include "test-timeline.h"

/* Long sessions: opened fast, reading only the turns on screen */

#define LONG_SESSION_TURNS 300

/* A session of @n_turns turns, "Question i" answered by "Answer i". */
static char *
make_long_session (UiWorld *u,
                   guint    n_turns)
{
  char *session_id = ui_create_session (u, "Long conversation");

  for (guint i = 0; i < n_turns; i++)
    {
      g_autofree char *question = g_strdup_printf ("Question %u", i);
      g_autofree char *answer = g_strdup_printf ("{\"role\":\"assistant\",\"content\":\"Answer %u\"}", i);
      g_autofree char *turn_id = NULL;

      natter_fake_model_script (u->w->fakes->model, answer, NULL);
      turn_id = ui_send (u, session_id, question);
      ui_wait_turn (u, turn_id);
    }
  return session_id;
}

/* Turn files read for the open timeline, counted as bench-window counts
 * them: items that were read or are being read (an item reads its file
 * once, unless a live event leaves a gap). */
static guint
n_turns_read (NatterWindow *window)
{
  GListModel *timeline = G_LIST_MODEL (natter_window_get_timeline (window));
  guint n_read = 0;

  for (guint i = 0; i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(NatterTurnItem) item = g_list_model_get_item (timeline, i);

      n_read += natter_turn_item_get_state (item) != NULL || natter_turn_item_get_loading (item);
    }
  return n_read;
}

typedef enum
{
  AT_TOP,
  AT_BOTTOM,
} ScrollEnd;

typedef struct
{
  NatterWindow *window;
  ScrollEnd     end;
  guint         n_shown;  /* rows in the viewport when the wait ended */
  guint         first_shown; /* and the session_seq of the first */
  gint64        since;    /* the frame from which it held, or -1 */
} ViewWait;

/* Whether the viewport is at @end of the list, shows the first (or last)
 * turn, and every row the list view shows there is read: no "Loading…"
 * in sight and no read in flight. */
static gboolean
viewport_loaded_now (ViewWait *w)
{
  GtkWidget *list = natter_window_get_timeline_list (w->window);
  GtkAdjustment *adjustment = natter_window_get_timeline_adjustment (w->window);
  GListModel *timeline = G_LIST_MODEL (natter_window_get_timeline (w->window));
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  double value = gtk_adjustment_get_value (adjustment);
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);
  guint end_seq = w->end == AT_TOP ? 1 : g_list_model_get_n_items (timeline);
  gboolean end_shown = FALSE;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GPtrArray) views = NULL;

  if (w->end == AT_TOP ? value > 0.5 : value < bottom - 0.5)
    return FALSE;
  rows = ui_find_all (list, NATTER_TYPE_TURN_ROW);
  w->n_shown = 0;
  w->first_shown = G_MAXUINT;
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));
      graphene_rect_t bounds;

      if (item == NULL || natter_turn_item_get_state (item) == NULL)
        return FALSE;
      /* The list view maps the rows that intersect the viewport. */
      g_assert_true (gtk_widget_compute_bounds (g_ptr_array_index (rows, i), scroller, &bounds));
      if (bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= gtk_widget_get_height (scroller))
        continue;
      w->n_shown++;
      w->first_shown = MIN (w->first_shown, natter_turn_item_get_session_seq (item));
      end_shown |= natter_turn_item_get_session_seq (item) == end_seq;
    }
  for (guint i = 0; i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(NatterTurnItem) item = g_list_model_get_item (timeline, i);

      if (natter_turn_item_get_loading (item))
        return FALSE;
    }
  /* A row read on screen grows to show its answer (it once stayed at
   * the height it had without it, the text drawn 0 px high). */
  views = ui_find_all (list, NATTER_TYPE_MARKDOWN_VIEW);
  for (guint i = 0; i < views->len; i++)
    {
      GtkWidget *view = g_ptr_array_index (views, i);

      if (!natter_markdown_view_get_ready (NATTER_MARKDOWN_VIEW (view)) || gtk_widget_get_height (view) == 0)
        return FALSE;
    }
  return end_shown && !ui_label_shown (list, "Loading…");
}

/* viewport_loaded_now(), still so after a whole frame: the rows read
 * last changed height and were laid out again, and no row that this
 * brought into view waits. */
static gboolean
viewport_loaded (gpointer data)
{
  ViewWait *w = data;
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (w->window));
  gint64 frame = gdk_frame_clock_get_frame_counter (clock);

  if (!viewport_loaded_now (w))
    {
      w->since = -1;
      return FALSE;
    }
  if (w->since < 0)
    w->since = frame;
  if (frame >= w->since + 2)
    return TRUE;
  gdk_frame_clock_request_phase (clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
  return FALSE;
}

/* What the rows in view showed when viewport_loaded() did not hold: per
 * mapped row its turn, whether it is read, its place and height against
 * the height it asks for, and its answers' views. */
static char *
describe_viewport (gpointer data)
{
  ViewWait *w = data;
  GtkWidget *list = natter_window_get_timeline_list (w->window);
  GtkAdjustment *adjustment = natter_window_get_timeline_adjustment (w->window);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  g_autoptr(GPtrArray) rows = ui_find_all (list, NATTER_TYPE_TURN_ROW);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "value %.0f of %.0f, page %.0f; %u mapped rows\n",
                          gtk_adjustment_get_value (adjustment), gtk_adjustment_get_upper (adjustment),
                          gtk_adjustment_get_page_size (adjustment), rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      NatterTurnItem *item = natter_turn_row_get_item (NATTER_TURN_ROW (row));
      g_autoptr(GPtrArray) views = ui_find_all (row, NATTER_TYPE_MARKDOWN_VIEW);
      graphene_rect_t bounds = GRAPHENE_RECT_INIT (0, 0, 0, 0);
      int minimum = 0;

      if (!gtk_widget_compute_bounds (row, scroller, &bounds))
        bounds.origin.y = -1;
      gtk_widget_measure (row, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (row), &minimum, NULL, NULL, NULL);
      g_string_append_printf (out, "  seq %u: %s%s y %.0f h %d (asks %d)",
                              item != NULL ? natter_turn_item_get_session_seq (item) : 0,
                              item != NULL && natter_turn_item_get_state (item) != NULL ? "read" : "unread",
                              item != NULL && natter_turn_item_get_loading (item) ? " loading" : "",
                              bounds.origin.y, gtk_widget_get_height (row), minimum);
      for (guint j = 0; j < views->len; j++)
        {
          GtkWidget *view = g_ptr_array_index (views, j);

          g_string_append_printf (out, " view(ready %d h %d)",
                                  natter_markdown_view_get_ready (NATTER_MARKDOWN_VIEW (view)),
                                  gtk_widget_get_height (view));
        }
      g_string_append_c (out, '\n');
    }
  return g_string_free (out, FALSE);
}

static guint
wait_viewport_loaded (NatterWindow *window,
                      ScrollEnd     end)
{
  ViewWait w = { window, end, 0, 0, -1 };

  ui_wait_until_full (viewport_loaded, describe_viewport, &w);
  return w.n_shown;
}

/* The session_seq of the first row in view, once it is loaded. */
static guint
first_shown_seq (NatterWindow *window)
{
  ViewWait w = { window, AT_BOTTOM, 0, 0, -1 };

  g_assert_true (viewport_loaded_now (&w));
  return w.first_shown;
}

/* Whether the turn at @session_seq was read or is being read. */
static gboolean
turn_read (NatterWindow *window,
           guint         session_seq)
{
  NatterTurnItem *item;
  g_autoptr(GObject) object = g_list_model_get_item (G_LIST_MODEL (natter_window_get_timeline (window)),
                                                     session_seq - 1);

  item = NATTER_TURN_ITEM (object);
  g_assert_cmpuint (natter_turn_item_get_session_seq (item), ==, session_seq);
  return natter_turn_item_get_state (item) != NULL || natter_turn_item_get_loading (item);
}

/* At notify::loaded: how many of the 4 latest turns are read or being
 * read. */
static void
count_latest_reading_cb (GListModel *timeline,
                         GParamSpec *pspec,
                         guint      *n)
{
  guint n_items = g_list_model_get_n_items (timeline);

  *n = 0;
  for (guint i = n_items - MIN (n_items, 4); i < n_items; i++)
    {
      g_autoptr(NatterTurnItem) item = g_list_model_get_item (timeline, i);

      *n += natter_turn_item_get_state (item) != NULL || natter_turn_item_get_loading (item);
    }
}

void
test_timeline_long_session_reads_visible (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = make_long_session (u, LONG_SESSION_TURNS);
  g_autofree char *latest_question = g_strdup_printf ("Question %u", LONG_SESSION_TURNS - 1);
  g_autofree char *latest_answer = g_strdup_printf ("|Answer %u", LONG_SESSION_TURNS - 1);
  g_autofree char *texts = NULL;
  NatterWindow *window;
  guint n_shown;
  guint first_shown;
  guint n_latest_reading = G_MAXUINT;

  /* A restart: nothing read in memory. */
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));

  /* The latest turns, those the window opens on, are being read as soon
   * as the session's turns are known: before the list view's first
   * layout, so that the first frame can show them. */
  g_signal_connect (natter_window_get_timeline (window), "notify::loaded",
                    G_CALLBACK (count_latest_reading_cb), &n_latest_reading);
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpuint (n_latest_reading, ==, 4);

  /* The session opens at its latest turn, with every row in the viewport
   * read: GtkListView binds about 200 rows around them, but only the ones
   * it shows, and not the others, read their turn. */
  n_shown = wait_viewport_loaded (window, AT_BOTTOM);
  g_test_message ("%u rows shown, %u turns read", n_shown, n_turns_read (window));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==,
                    LONG_SESSION_TURNS);
  g_assert_cmpuint (n_shown, >=, 2);
  g_assert_cmpuint (n_turns_read (window), >=, n_shown);
  g_assert_cmpuint (n_turns_read (window), <, 30);
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), latest_question));
  texts = shown_texts (window);
  g_assert_true (g_str_has_suffix (texts, latest_answer));

  /* "and near it": the turns just above the viewport were read ahead,
   * before any scrolling, and the turns far above were not. */
  first_shown = first_shown_seq (window);
  g_assert_cmpuint (first_shown, >, 5);
  for (guint seq = first_shown - 4; seq < first_shown; seq++)
    g_assert_true (turn_read (window, seq));
  g_assert_false (turn_read (window, LONG_SESSION_TURNS / 2));

  /* Nor do the rows bound far from the viewport build their widgets: an
   * unread row is an empty placeholder until it is seen. */
  {
    g_autoptr(GPtrArray) rows = g_ptr_array_new ();
    guint n_built = 0;

    /* Every bound row, on screen (mapped) or not. */
    for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (natter_window_get_timeline_list (window)));
         child != NULL;
         child = gtk_widget_get_next_sibling (child))
      if (NATTER_IS_TURN_ROW (gtk_widget_get_first_child (child)))
        g_ptr_array_add (rows, gtk_widget_get_first_child (child));

    for (guint i = 0; i < rows->len; i++)
      n_built += gtk_widget_get_first_child (g_ptr_array_index (rows, i)) != NULL;
    g_test_message ("%u rows bound, %u built", rows->len, n_built);
    g_assert_cmpuint (rows->len, >, 100);
    g_assert_cmpuint (n_built, <, 30);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A conversation picked in the list: the window goes on showing the one
 * it shows until the picked one's latest turns are read, and then
 * switches, so no frame shows the picked one with rows still unread. */
typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  guint         frames;          /* frames drawn showing it */
  guint         unread_frames;   /* of those, frames with no turn read in view */
} PickedFrames;

static void
picked_after_paint_cb (GdkFrameClock *clock,
                       PickedFrames  *p)
{
  g_autoptr(GPtrArray) rows = NULL;
  gboolean read = FALSE;

  if (g_strcmp0 (natter_window_get_session_id (p->window), p->session_id) != 0)
    return;
  p->frames++;
  rows = ui_find_all (natter_window_get_timeline_list (p->window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (gtk_widget_get_mapped (g_ptr_array_index (rows, i)) && item != NULL &&
          natter_turn_item_get_state (item) != NULL)
        read = TRUE;
    }
  if (!read)
    p->unread_frames++;
}

static gboolean
window_shows (gpointer data)
{
  PickedFrames *p = data;

  return g_strcmp0 (natter_window_get_session_id (p->window), p->session_id) == 0 && p->frames > 0;
}

/* After a restart (nothing read in memory), a window showing @shown_id;
 * however loaded the machine, a picked conversation's turns are read
 * before its wait ends. */
static NatterWindow *
picked_window_new (UiWorld    *u,
                   const char *shown_id)
{
  NatterWindow *window;

  ui_world_restart (u);
  window = ui_window_new (app, u);
  _natter_window_set_opening_wait (window, 60000);
  g_assert_true (natter_window_open_session (window, shown_id));
  ui_wait_until (ui_timeline_loaded, window);
  return window;
}

void
test_timeline_picked_opens_with_its_turns (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *shown_id = make_long_session (u, 3);
  g_autofree char *picked_id = make_long_session (u, 20);
  g_autofree char *latest_question = g_strdup_printf ("Question %u", 19);
  PickedFrames p = { NULL, NULL, 0, 0 };
  GdkFrameClock *clock;
  gulong handler;
  NatterWindow *window;

  window = picked_window_new (u, shown_id);
  wait_viewport_loaded (window, AT_BOTTOM);

  p.window = window;
  p.session_id = picked_id;
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (picked_after_paint_cb), &p);
  g_assert_true (natter_window_open_session_when_read (window, picked_id));

  /* Nothing switched yet: the window still shows, and would send to, the
   * conversation it showed. Asking again changes nothing. */
  g_assert_cmpstr (natter_window_get_session_id (window), ==, shown_id);
  g_assert_cmpstr (natter_window_get_opening_session_id (window), ==, picked_id);
  g_assert_true (natter_window_open_session_when_read (window, picked_id));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, shown_id);

  /* Then it switches, and its first frame has the latest turns. */
  ui_wait_until (window_shows, &p);
  g_signal_handler_disconnect (clock, handler);
  g_assert_null (natter_window_get_opening_session_id (window));
  g_assert_cmpuint (p.unread_frames, ==, 0);
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), latest_question));

  /* A conversation shown before, whose turns are read, opens at once. */
  g_assert_true (natter_window_open_session_when_read (window, shown_id));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, shown_id);
  g_assert_null (natter_window_get_opening_session_id (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Opening another conversation while a picked one is still being read:
 * the later request wins, and the picked one does not show up after it. */
void
test_timeline_picked_then_other (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *first_id = make_long_session (u, 2);
  g_autofree char *picked_id = make_long_session (u, 10);
  g_autofree char *other_id = make_long_session (u, 2);
  NatterTimelineModel *picked;
  NatterWindow *window;

  window = picked_window_new (u, first_id);

  g_assert_true (natter_window_open_session_when_read (window, picked_id));
  g_assert_cmpstr (natter_window_get_opening_session_id (window), ==, picked_id);
  picked = _natter_window_ensure_timeline (window, picked_id);
  g_assert_true (natter_window_open_session (window, other_id));
  g_assert_cmpstr (natter_window_get_session_id (window), ==, other_id);
  g_assert_null (natter_window_get_opening_session_id (window));

  /* The picked conversation's read ends; the window stays where it was
   * sent last. */
  ui_wait_until ((UiCondition) natter_timeline_model_get_loaded, picked);
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, other_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The last session is restored at startup before the window is shown:
 * its rows are bound then, and read only once shown and in view. */
void
test_timeline_open_before_shown (void)
{
  const guint n_turns = 100; /* all bound by the list view, a few in view */
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = make_long_session (u, n_turns);
  g_autofree char *latest_answer = g_strdup_printf ("|Answer %u", n_turns - 1);
  g_autofree char *texts = NULL;
  NatterWindow *window;

  ui_world_restart (u);
  window = natter_window_new (app, u->sessions, u->w->hub);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_settle ();
  g_assert_cmpuint (n_turns_read (window), ==, 0);

  gtk_window_present (GTK_WINDOW (window));
  wait_viewport_loaded (window, AT_BOTTOM);
  g_test_message ("%u turns read once shown", n_turns_read (window));
  g_assert_cmpuint (n_turns_read (window), <, 30);
  texts = shown_texts (window);
  g_assert_true (g_str_has_suffix (texts, latest_answer));

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
scroll_loads_rows (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = make_long_session (u, LONG_SESSION_TURNS);
  g_autofree char *latest_question = g_strdup_printf ("Question %u", LONG_SESSION_TURNS - 1);
  g_autofree char *latest_answer = g_strdup_printf ("|Answer %u", LONG_SESSION_TURNS - 1);
  g_autofree char *texts = NULL;
  NatterWindow *window;
  GtkAdjustment *adjustment;
  guint n_read;

  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_viewport_loaded (window, AT_BOTTOM);
  adjustment = natter_window_get_timeline_adjustment (window);
  n_read = n_turns_read (window);

  /* To the top: the rows there, bound but unread so far, read their
   * turns; the rows growing as they do never pull the view back down. */
  gtk_adjustment_set_value (adjustment, 0);
  wait_viewport_loaded (window, AT_TOP);
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "Question 0"));
  texts = shown_texts (window);
  g_assert_true (g_str_has_prefix (texts, "Answer 0|Answer 1|"));
  g_assert_cmpuint (n_turns_read (window), >, n_read);
  g_assert_cmpuint (n_turns_read (window), <, 60);

  /* And back to the bottom (the case that failed in 1088973): the rows
   * there are read again or kept, and the view stays at the bottom. */
  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
  wait_viewport_loaded (window, AT_BOTTOM);
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), latest_question));
  g_free (texts);
  texts = shown_texts (window);
  g_assert_true (g_str_has_suffix (texts, latest_answer));
  g_assert_cmpuint (n_turns_read (window), <, 90);

  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_timeline_scroll_loads_rows (void)
{
  scroll_loads_rows ();
}
