/* bench-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation window, under a (virtual) display:
 *
 * open-1000: a 1,000-turn session generated through the real runtime with
 *   the fake model; after a restart (a fresh index and service over the
 *   same directory) the window opens it as it opens a conversation picked
 *   in its list (natter_window_open_session_when_read()). Figures: time
 *   from the open call to the first frame that shows a turn, the frames
 *   drawn until then (1: no frame of empty rows before it), and how many
 *   turn files were read for it (only the turns on screen and near it
 *   should be).
 * stream-5000: 5,000 text deltas pushed through the turn event hub as fast
 *   as the main loop takes them (10 per idle) into a streaming turn on
 *   screen. The burst holds off every frame until it ends, so what this
 *   case measures is the frames that then show the whole answer: it waits
 *   until all of its 125 paragraphs are on screen (it used to stop at
 *   the first idle moment, often before a frame had built anything).
 *   Figures: the time from the first delta to the whole answer shown, the
 *   worst main-loop stall (the longest gap between two 1 ms ticks) and
 *   the peak RSS.
 * stream-5000-paced: the same deltas, 10 every 2 ms (about 5,000 tokens
 *   a second, faster than models stream), so that frames interleave with
 *   them as with a network stream; also the frames drawn meanwhile and
 *   the worst gap between two of them. Both cases also count the blocks
 *   of the answer on screen when the last delta arrives (a view that
 *   waited for an idle used to show none).
 *
 * search-indexing: the window over 10,000 sessions of 20 turns
 *   (NATTER_BENCH_SESSIONS=N for another count), a search for a word of
 *   every answer typed in its sidebar, while the search index is built
 *   from nothing (natter_search_index_start() on a fresh cache): the
 *   build's time, and the main thread's CPU per frame meanwhile (up to
 *   the build's end: the search then runs again, which costs what any
 *   search typed costs), the window redrawing every frame as if
 *   something on it moved. Until the build is done the sidebar says how
 *   far it has come. Target: no frame over 16 ms of main-thread work.
 *
 * open-1000, stream-5000-paced and search-indexing also give the main thread's CPU time
 * per frame beside its wall time (natter-bench-frames.c: the worst frame,
 * the work between frames, the frames over 8 ms), and each has a "-cairo"
 * twin run with GSK_RENDERER=cairo: on a machine without a GPU the GL
 * renderer's own threads take most of a frame, which is not Natter's.
 *
 * Figures only: nothing here passes or fails on timing.
 */

#include <string.h>
#include <time.h>

#include "natter-bench.h"
#include "natter-bench-frames.h"
#include "natter-bench-data.h"
#include "natter-search-index.h"
#include "natter-markdown-view.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

/* CPU time of all threads: comparable when other work shares the cores,
 * where wall-clock figures mostly measure the scheduler. */
static double
process_cpu_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char *
make_session (UiWorld *u,
              guint    n_turns)
{
  char *session_id = ui_create_session (u, "Long conversation");

  for (guint i = 0; i < n_turns; i++)
    {
      g_autofree char *text = g_strdup_printf ("Question number %u: what comes next?", i);
      g_autofree char *turn_id = NULL;

      natter_fake_model_script (u->w->fakes->model,
                                "{\"role\":\"assistant\",\"content\":\"Here is an answer with **some** Markdown, "
                                "a list:\\n\\n- one\\n- two\\n\\nand a closing line.\"}",
                                NULL);
      turn_id = ui_send (u, session_id, text);
      ui_wait_turn (u, turn_id);
    }
  return session_id;
}

typedef struct
{
  NatterWindow *window;
  gboolean      shown;
  guint         frames;
} FirstFrame;

static void
after_paint_cb (GdkFrameClock *clock,
                FirstFrame    *f)
{
  g_autoptr(GPtrArray) rows = NULL;

  if (f->shown)
    return;
  f->frames++;
  rows = ui_find_all (natter_window_get_timeline_list (f->window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item != NULL && natter_turn_item_get_state (item) != NULL)
        f->shown = TRUE;
    }
}

static gboolean
first_frame_shown (gpointer data)
{
  return ((FirstFrame *) data)->shown;
}

static void
bench_open (const char *label)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  NatterWindow *window;
  NatterTimelineModel *timeline;
  FirstFrame f = { NULL, FALSE, 0 };
  GdkFrameClock *clock;
  guint n_read = 0;
  double start, elapsed, cpu_start, cpu;
  gulong handler;
  NatterBenchFrames frames;
  g_autofree char *what = NULL;

  session_id = make_session (u, 1000);
  ui_world_restart (u);

  window = natter_window_new (NULL, u->sessions, u->w->hub);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  ui_settle ();

  f.window = window;
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), &f);
  natter_bench_frames_start (&frames, GTK_WIDGET (window));
  start = natter_bench_now ();
  cpu_start = process_cpu_s ();
  natter_window_open_session_when_read (window, session_id);
  ui_wait_until (first_frame_shown, &f);
  elapsed = natter_bench_now () - start;
  cpu = process_cpu_s () - cpu_start;
  g_signal_handler_disconnect (clock, handler);
  natter_bench_frames_stop (&frames);

  timeline = natter_window_get_timeline (window);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (timeline)); i++)
    {
      g_autoptr(NatterTurnItem) item = g_list_model_get_item (G_LIST_MODEL (timeline), i);

      n_read += natter_turn_item_get_state (item) != NULL || natter_turn_item_get_loading (item);
    }

  natter_bench_row (label, "time to first frame with a turn", elapsed * 1000.0, "ms");
  natter_bench_row (label, "CPU time for it, all threads", cpu * 1000.0, "ms");
  natter_bench_row (label, "frames drawn for it", f.frames, "frames");
  natter_bench_row (label, "turn files read for it", n_read, "turns");
  what = g_strdup_printf ("opening (%s)", natter_bench_renderer_name (GTK_WIDGET (window)));
  natter_bench_frames_rows (&frames, label, what);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
  guint       sent;
  guint       total;
  double      last_tick;
  double      worst_gap;
  NatterWindow *window;
  GdkFrameClock *clock;        /* paced: frames drawn during the stream */
  gint64      first_frame;
  double      last_paint;
  double      worst_frame_gap;
} Stream;

static void
stream_after_paint_cb (GdkFrameClock *clock,
                       Stream        *s)
{
  double now = natter_bench_now ();

  if (s->last_paint > 0 && now - s->last_paint > s->worst_frame_gap)
    s->worst_frame_gap = now - s->last_paint;
  s->last_paint = now;
}

static gboolean
tick_cb (gpointer data)
{
  Stream *s = data;
  double now = natter_bench_now ();

  if (s->last_tick > 0 && now - s->last_tick > s->worst_gap)
    s->worst_gap = now - s->last_tick;
  s->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
emit_cb (gpointer data)
{
  Stream *s = data;

  for (guint i = 0; i < 10 && s->sent < s->total; i++, s->sent++)
    natter_turn_event_hub_emit_delta (s->u->w->hub, s->turn_id, 0, NATTER_DELTA_TEXT,
                                      (s->sent % 40 == 39) ? "word.\n\n" : "word ");
  return s->sent < s->total ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Blocks (paragraphs, code blocks…) the longest text on screen shows now:
 * the streaming answer's, not the one-line message above it. */
static guint
n_blocks_shown (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = ui_find_all (window, NATTER_TYPE_MARKDOWN_VIEW);
  guint most = 0;

  for (guint i = 0; i < views->len; i++)
    {
      guint n = 0;

      for (GtkWidget *child = gtk_widget_get_first_child (g_ptr_array_index (views, i));
           child != NULL;
           child = gtk_widget_get_next_sibling (child))
        n++;
      most = MAX (most, n);
    }
  return most;
}

static gboolean
stream_done (gpointer data)
{
  Stream *s = data;

  return s->sent == s->total;
}

/* The answer's paragraphs: one every 40 deltas (emit_cb). */
#define N_PARAGRAPHS(deltas) ((deltas) / 40)

static gboolean
answer_shown (gpointer data)
{
  Stream *s = data;

  return n_blocks_shown (s->window) >= N_PARAGRAPHS (s->total);
}

static gboolean
model_held (gpointer data)
{
  return natter_fake_model_get_n_held (((UiWorld *) data)->w->fakes->model) == 1;
}

static void
bench_stream (const char *name,
              gboolean    paced)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streaming");
  g_autofree char *turn_id = NULL;
  Stream s = { u, NULL, 0, 5000, 0, 0, NULL, NULL, 0, 0, 0 };
  NatterWindow *window;
  double start;
  guint tick;
  gulong paint_id;
  NatterBenchFrames frames;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = natter_window_new (NULL, u->sessions, u->w->hub);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  natter_window_open_session (window, session_id);
  turn_id = ui_send (u, session_id, "Write a very long answer");
  ui_wait_until (model_held, u);
  ui_settle ();
  s.turn_id = turn_id;
  s.window = window;

  s.clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  s.first_frame = gdk_frame_clock_get_frame_counter (s.clock);
  paint_id = g_signal_connect (s.clock, "after-paint", G_CALLBACK (stream_after_paint_cb), &s);
  tick = g_timeout_add_full (G_PRIORITY_HIGH, 1, tick_cb, &s, NULL);
  natter_bench_frames_start (&frames, GTK_WIDGET (window));
  start = natter_bench_now ();
  /* Deltas arrive the way network reads do, at default priority; an idle
   * at idle priority would starve behind the 1 ms probe and the frame
   * clock and never finish. */
  if (paced)
    g_timeout_add_full (G_PRIORITY_DEFAULT, 2, emit_cb, &s, NULL);
  else
    g_idle_add_full (G_PRIORITY_DEFAULT, emit_cb, &s, NULL);
  /* A benchmark reports how long it took rather than failing at the
   * tests' 10 s limit: wait up to two minutes. */
  {
    gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

    while (!stream_done (&s) && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    if (!stream_done (&s))
      g_error ("The 5,000 deltas were not all delivered within two minutes");
    natter_bench_row (name, "answer blocks shown at the last delta", n_blocks_shown (window), "blocks");
    while (!answer_shown (&s) && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
    if (!answer_shown (&s))
      g_error ("The answer was not all shown within two minutes");
  }
  natter_bench_row (name, "time to the whole answer shown", (natter_bench_now () - start) * 1000.0, "ms");
  natter_bench_frames_stop (&frames);
  if (paced)
    {
      g_autofree char *what = g_strdup_printf ("streaming (%s)", natter_bench_renderer_name (GTK_WIDGET (window)));

      natter_bench_frames_rows (&frames, name, what);
      natter_bench_row (name, "frames drawn during the stream",
                        gdk_frame_clock_get_frame_counter (s.clock) - s.first_frame, "frames");
      natter_bench_row (name, "worst gap between frames", s.worst_frame_gap * 1000.0, "ms");
    }
  natter_bench_row (name, "worst main-loop stall", s.worst_gap * 1000.0, "ms");
  natter_bench_row (name, "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");
  g_source_remove (tick);
  g_signal_handler_disconnect (s.clock, paint_id);

  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);
  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
redraw_cb (GtkWidget     *widget,
           GdkFrameClock *clock,
           gpointer       data)
{
  gtk_widget_queue_draw (widget);
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  NatterWindow      *window;
  NatterSearchIndex *search;
  guint              n_sessions;
} Indexing;

static gboolean
sessions_listed (gpointer data)
{
  Indexing *x = data;

  return g_list_model_get_n_items (natter_window_get_sidebar_model (x->window)) == x->n_sessions;
}

static gboolean
indexed (gpointer data)
{
  return !natter_search_index_get_indexing (((Indexing *) data)->search);
}

static void
bench_search_indexing (const char *name)
{
  const char *count = g_getenv ("NATTER_BENCH_SESSIONS");
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) storage = g_file_get_child (u->w->dir, "storage");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autoptr(GPtrArray) paths = NULL;
  NatterSearchIndex *search;
  NatterWindow *window;
  Indexing x = { NULL, NULL, count != NULL ? (guint) g_ascii_strtoull (count, NULL, 10) : 10000 };
  NatterBenchFrames frames;
  g_autofree char *what = NULL;
  gint64 deadline;
  double start, cpu_start;
  guint tick;

  paths = natter_bench_generate_sessions (storage, x.n_sessions, 20);
  ui_world_restart (u);
  window = natter_window_new (NULL, u->sessions, u->w->hub);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  x.window = window;
  ui_wait_until (ui_is_mapped, window);
  deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (!sessions_listed (&x) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (!sessions_listed (&x))
    g_error ("The %u sessions were not listed within two minutes", x.n_sessions);

  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  x.search = search;
  natter_window_set_search_index (window, search);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  ui_settle ();
  gtk_editable_set_text (GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY)), "realistic");
  ui_settle ();

  tick = gtk_widget_add_tick_callback (GTK_WIDGET (window), redraw_cb, NULL, NULL);
  natter_bench_frames_start (&frames, GTK_WIDGET (window));
  start = natter_bench_now ();
  cpu_start = process_cpu_s ();
  natter_search_index_start (search);
  /* A benchmark reports how long it took rather than failing at the
   * tests' 10 s limit: wait up to ten minutes. */
  deadline = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;
  while (!indexed (&x) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (!indexed (&x))
    g_error ("The index was not built within ten minutes");
  /* Up to the build's end: the search that then runs again costs what
   * any search typed costs, measured elsewhere. */
  natter_bench_frames_stop (&frames);
  natter_bench_row (name, "sessions", x.n_sessions, "");
  natter_bench_row (name, "build with the window open", (natter_bench_now () - start) * 1000.0, "ms");
  natter_bench_row (name, "CPU time for it, all threads", (process_cpu_s () - cpu_start) * 1000.0, "ms");
  gtk_widget_remove_tick_callback (GTK_WIDGET (window), tick);
  ui_settle ();
  what = g_strdup_printf ("indexing (%s)", natter_bench_renderer_name (GTK_WIDGET (window)));
  natter_bench_frames_rows (&frames, name, what);

  ui_destroy_window (window);
  g_object_unref (search);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = NULL;
  g_autofree char *schemas = NULL;

  static const char * const cases[] = {
    "open-1000", "open-1000-cairo", "stream-5000", "stream-5000-paced", "stream-5000-paced-cairo",
    "search-indexing", NULL,
  };
  g_autofree char *label = NULL;

  if (argc == 2 && strcmp (argv[1], "--list") == 0)
    {
      for (guint i = 0; cases[i] != NULL; i++)
        g_print ("%s\n", cases[i]);
      return 0;
    }
  if (argc != 2 || !g_strv_contains (cases, argv[1]))
    {
      g_printerr ("Usage: %s --list | CASE\n", argv[0]);
      return 2;
    }
  natter_bench_select_renderer (argv[1]);
  label = g_strdup_printf ("window %s", argv[1]);

  /* The window reads GSettings: the build tree's compiled schema, kept
   * in memory. */
  dir = g_path_get_dirname (argv[0]);
  schemas = g_build_filename (dir, "..", "data", NULL);
  g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, FALSE);
  g_setenv ("GSETTINGS_BACKEND", "memory", FALSE);

  if (!gtk_init_check ())
    {
      g_printerr ("%s: no display (run it under xvfb-run)\n", argv[0]);
      return 0;
    }
  adw_init ();
  if (g_str_has_prefix (argv[1], "open-1000"))
    bench_open (label);
  else if (g_str_equal (argv[1], "search-indexing"))
    bench_search_indexing (label);
  else
    bench_stream (label, g_str_has_prefix (argv[1], "stream-5000-paced"));
  return 0;
}
