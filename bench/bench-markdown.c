/* bench-markdown.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A long answer must never stall the window, in numbers: an 8,000-token
 * answer with 30 tables shown by NatterMarkdownView in a real window (a
 * display is needed; bench/run uses xvfb-run).
 * - stream-8000: the answer appended in 8,000 deltas of about a token
 *   (4 bytes) as fast as the main loop takes them, then finished.
 * - set-8000: the same answer given at once with set_markdown().
 * - stream-math-50: an answer with 50 different formulas (25 inline, 25
 *   display: fractions, sums, matrices, aligned equations) streamed the
 *   same way; it ends when every formula is typeset (docs/math.md §3).
 *   Its floor, in the same process and window: the same answer with each
 *   formula replaced by plain text of the same length, streamed the same
 *   way. Three rounds of each, in turn first, with other formulas in each
 *   round; what math adds to a frame is the math rows beside the floor's
 *   ("worst frame, math / without math", "frames over 8 ms, math minus
 *   without").
 * - stream-math-dense: the same for an answer whose inline formulas are
 *   many to a paragraph: 8 paragraphs of 6, no display formula.
 * Figures: total time until the view is ready, the worst main-loop stall
 * (the longest gap a 1 ms high-priority timer saw, minus its period), the
 * same stall in this thread's CPU time (what stays comparable when other
 * work shares the cores: wall-clock stalls then mostly measure the
 * scheduler), the worst gap between two painted frames, and frames
 * painted, and the main thread's CPU time per frame beside its wall time
 * (natter-bench-frames.c). Each case has a "-cairo" twin run with
 * GSK_RENDERER=cairo. BENCH_TRACE=1 prints each long stall, each
 * frame phase (update, layout, paint) that took more than 15 ms of CPU
 * and each frame over 8 ms with its phases.
 */

#define G_LOG_DOMAIN "bench-markdown"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <adwaita.h>

#include "natter-bench.h"
#include "natter-bench-frames.h"
#include "natter-markdown-view.h"
#include "natter-math-renderer.h"

#define BENCH "markdown"
#define N_TOKENS 8000
#define BYTES_PER_TOKEN 4
#define N_TABLES 30

typedef struct
{
  GtkWidget *view;
  char      *answer;
  gsize      len;
  gsize      fed;

  gint64     last_tick;
  gint64     worst_stall;
  gint64     last_tick_cpu;
  gint64     worst_cpu_stall;
  gint64     last_paint;
  gint64     worst_frame_gap;
  guint      frames;
} Run;

static char *
generate_answer (void)
{
  GString *out = g_string_new ("Here is a comparison of the options, section by section.\n\n");
  static const char * const words[] = {
    "the", "model", "returns", "a", "stream", "of", "tokens", "which", "we",
    "render", "as", "they", "arrive", "without", "blocking", "input",
  };
  int word = 0;

  for (int t = 0; t < N_TABLES; t++)
    {
      g_string_append_printf (out, "## Option %d\n\n", t + 1);
      for (int i = 0; i < 40; i++)
        g_string_append_printf (out, "%s%s", words[word++ % G_N_ELEMENTS (words)],
                                i % 13 == 12 ? ".\n" : " ");
      g_string_append (out, "with *emphasis* and `inline code`.\n\n");
      g_string_append (out, "| Setting | Default | Range | Notes |\n|---|:---:|---:|---|\n");
      for (int r = 0; r < 6; r++)
        g_string_append_printf (out, "| `opt_%d_%d` | %d | 0–%d | **%s** %s |\n",
                                t, r, r, r * 10, words[r], words[r + 3]);
      g_string_append (out, "\n- first point\n- second point\n  - a detail\n- third\n\n");
      if (t % 3 == 0)
        g_string_append_printf (out, "```python\ndef option_%d(x):\n    return x * %d\n```\n\n", t, t);
    }
  while (out->len < N_TOKENS * BYTES_PER_TOKEN)
    {
      g_string_append_printf (out, "%s%s", words[word % G_N_ELEMENTS (words)],
                              word % 40 == 39 ? ".\n\n" : " ");
      word++;
    }
  g_string_truncate (out, N_TOKENS * BYTES_PER_TOKEN);
  return g_string_free (out, FALSE);
}

/* Appends @formula as it is, or, for the floor, as plain words of the
 * same length: the same bytes streamed the same way, with no math. */
static void
append_formula (GString    *out,
                const char *formula,
                gboolean    math)
{
  static const char words[] = "plain words in place of a formula ";
  gsize len = strlen (formula);

  if (math)
    {
      g_string_append (out, formula);
      return;
    }
  for (gsize i = 0; i < len; i++)
    g_string_append_c (out, i + 1 == len && words[i % (sizeof words - 1)] == ' ' ? 'x' : words[i % (sizeof words - 1)]);
}

/* Fifty formulas, none twice, so that the cache saves nothing; each
 * round (@round) has other ones than the rounds before. Without @math,
 * the floor: each formula, delimiters and all, is replaced by plain
 * text of the same length. */
static char *
generate_dense_answer (guint    round,
                       gboolean math)
{
  GString *out = g_string_new ("The results, several formulas to a paragraph.\n\n");

  for (guint i = 0; i < 8; i++)
    {
      for (guint j = 0; j < 6; j++)
        {
          guint n = i * 6 + j + 100 * round;
          g_autofree char *formula = g_strdup_printf ("$\\frac{x_{%u}}{\\sqrt{%u + y^2}}$", n, n + 2);

          g_string_append_printf (out, "%s term %u is ", j == 0 ? "Here the" : " and the", j + 1);
          append_formula (out, formula, math);
          if (j == 5)
            g_string_append (out, ", as expected.\n\n");
        }
    }
  return g_string_free (out, FALSE);
}

static char *
generate_math_answer (guint    round,
                      gboolean math)
{
  GString *out = g_string_new ("The results, formula by formula.\n\n");

  for (guint i = 0; i < 25; i++)
    {
      guint n = i + 100 * round;
      g_autofree char *inline_formula = g_strdup_printf ("$\\frac{x_{%u}}{\\sqrt{%u + y^2}}$", n, n + 2);
      g_autofree char *display = NULL;

      g_string_append_printf (out, "Step %u gives ", i + 1);
      append_formula (out, inline_formula, math);
      g_string_append (out, " for every value we tried, which is what we expected.\n\n");
      switch (i % 3)
        {
        case 0:
          display = g_strdup_printf ("$$\\sum_{k=1}^{%u} k^2 = \\frac{n(n+1)(2n+1)}{6}$$", n + 3);
          break;
        case 1:
          display = g_strdup_printf ("\\[\n\\begin{pmatrix} %u & 2 \\\\ 3 & 4 \\end{pmatrix}\n\\]", n);
          break;
        default:
          display = g_strdup_printf ("$$\\begin{aligned} a &= b + %u \\\\ c &= d - e \\end{aligned}$$", n);
          break;
        }
      append_formula (out, display, math);
      g_string_append (out, "\n\n");
    }
  return g_string_free (out, FALSE);
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* BENCH_TRACE: where a slow frame's time went, phase by phase. An
 * emission hook runs before GTK's own handlers of the phase, a handler
 * connected after them runs last. */
static gint64 phase_start[3];
static gint64 phase_cpu[3];

static gboolean
phase_begin_hook (GSignalInvocationHint *hint,
                  guint                  n_params,
                  const GValue          *params,
                  gpointer               phase)
{
  phase_start[GPOINTER_TO_INT (phase)] = g_get_monotonic_time ();
  phase_cpu[GPOINTER_TO_INT (phase)] = thread_cpu_us ();
  return TRUE;
}

static void
phase_end_cb (GdkFrameClock *clock,
              gpointer       phase)
{
  int i = GPOINTER_TO_INT (phase);
  gint64 spent = g_get_monotonic_time () - phase_start[i];
  gint64 cpu = thread_cpu_us () - phase_cpu[i];

  if (cpu > 15000)
    g_printerr ("  %s took %.1f ms (%.1f ms CPU)\n", (const char *[]) { "update", "layout", "paint" }[i],
                spent / 1000.0, cpu / 1000.0);
}

static gboolean
stall_timer_cb (gpointer user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();

  if (run->last_tick != 0)
    run->worst_stall = MAX (run->worst_stall, now - run->last_tick - 1000);
  if (run->last_tick_cpu != 0)
    run->worst_cpu_stall = MAX (run->worst_cpu_stall, cpu - run->last_tick_cpu);
  run->last_tick_cpu = cpu;
  if (run->last_tick != 0 && g_getenv ("BENCH_TRACE") && now - run->last_tick > 30000)
    g_printerr ("stall %.1f ms at %zu bytes, frame %u\n", (now - run->last_tick) / 1000.0, run->fed, run->frames);
  run->last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
after_paint_cb (GdkFrameClock *clock,
                Run           *run)
{
  gint64 now = g_get_monotonic_time ();

  if (run->last_paint != 0)
    run->worst_frame_gap = MAX (run->worst_frame_gap, now - run->last_paint);
  run->last_paint = now;
  run->frames++;
}

/* Frames only come while something is drawn: keep one requested. */
static gboolean
keep_ticking_cb (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       user_data)
{
  return G_SOURCE_CONTINUE;
}

static gboolean
feed_cb (gpointer user_data)
{
  Run *run = user_data;
  char delta[BYTES_PER_TOKEN + 1];
  gsize n = MIN (BYTES_PER_TOKEN, run->len - run->fed);

  memcpy (delta, run->answer + run->fed, n);
  delta[n] = '\0';
  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (run->view), delta);
  run->fed += n;
  if (run->fed < run->len)
    return G_SOURCE_CONTINUE;
  natter_markdown_view_finish (NATTER_MARKDOWN_VIEW (run->view));
  return G_SOURCE_REMOVE;
}

/* Shows @answer in a new view in @window (streamed or set at once) and
 * waits until it is ready with every formula typeset and painted;
 * @frames counts the frames meanwhile. Returns the wall time to ready,
 * in seconds; @cpu_s receives the main thread's CPU time for it. */
static double
show_answer (GtkWidget         *window,
             Run               *run,
             gboolean           stream,
             NatterBenchFrames *frames,
             double            *cpu_s)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GdkFrameClock *clock;
  guint timer, tick;
  double start, total;
  gint64 cpu_start;

  run->len = strlen (run->answer);
  run->view = natter_markdown_view_new ();
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), run->view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  gtk_window_present (GTK_WINDOW (window));
  while (!gtk_widget_get_mapped (run->view))
    g_main_context_iteration (NULL, TRUE);

  clock = gtk_widget_get_frame_clock (window);
  g_signal_connect (clock, "after-paint", G_CALLBACK (after_paint_cb), run);
  tick = gtk_widget_add_tick_callback (window, keep_ticking_cb, NULL, NULL);
  timer = g_timeout_add_full (G_PRIORITY_HIGH, 1, stall_timer_cb, run, NULL);

  natter_bench_frames_start (frames, window);
  start = natter_bench_now ();
  cpu_start = thread_cpu_us ();
  if (stream)
    g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, feed_cb, run, NULL);
  else
    natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (run->view), run->answer);
  /* Ready is TRUE before the first delta; wait for the stream to end. */
  while (run->fed < run->len && stream)
    g_main_context_iteration (NULL, TRUE);
  while (!natter_markdown_view_get_ready (NATTER_MARKDOWN_VIEW (run->view)) ||
         natter_math_renderer_get_n_pending (natter_math_renderer_get_default ()) > 0)
    g_main_context_iteration (NULL, TRUE);
  total = natter_bench_now () - start;

  /* What was built still has to be laid out and painted once. */
  for (guint painted = run->frames; run->frames < painted + 3;)
    g_main_context_iteration (NULL, TRUE);
  *cpu_s = (thread_cpu_us () - cpu_start) / (double) G_USEC_PER_SEC;

  natter_bench_frames_stop (frames);
  g_source_remove (timer);
  gtk_widget_remove_tick_callback (window, tick);
  g_signal_handlers_disconnect_by_func (clock, after_paint_cb, run);
  return total;
}

/* Adds @round's frames to @sum: the worst of either, the counts added. */
static void
add_frames (NatterBenchFrames       *sum,
            const NatterBenchFrames *round)
{
  if (round->worst_frame_cpu > sum->worst_frame_cpu)
    {
      sum->worst_frame_cpu = round->worst_frame_cpu;
      memcpy (sum->worst_phase_cpu, round->worst_phase_cpu, sizeof sum->worst_phase_cpu);
    }
  sum->worst_frame_wall = MAX (sum->worst_frame_wall, round->worst_frame_wall);
  sum->worst_interval_cpu = MAX (sum->worst_interval_cpu, round->worst_interval_cpu);
  sum->n_frames += round->n_frames;
  sum->n_over_budget += round->n_over_budget;
}

static void
print_rows (const char *name,
            Run        *run,
            double      total)
{
  g_autofree char *figure = NULL;

  natter_bench_row (BENCH, figure = g_strdup_printf ("%s total", name), total * 1000.0, "ms");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s worst loop stall", name), run->worst_stall / 1000.0, "ms");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s worst stall, CPU", name), run->worst_cpu_stall / 1000.0, "ms");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s worst frame gap", name), run->worst_frame_gap / 1000.0, "ms");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s frames", name), run->frames, "frames");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s answer", name), run->len, "bytes");
}

/* stream-math-50: MATH_ROUNDS rounds, each streaming the answer with
 * formulas and its floor (the same answer with each formula replaced by
 * plain text of the same length) in new views of the same window, in
 * turn first: what math adds is the difference between the two. */
#define MATH_ROUNDS 3

static void
math_case (const char *name,
           GtkWidget  *window)
{
  const char *kinds[2] = { "without math", "math" };
  NatterBenchFrames sum[2] = { 0 };
  Run runs[2] = { 0 };
  double total[2] = { 0 }, cpu[2] = { 0 };
  const char *renderer = natter_bench_renderer_name (window);
  g_autofree char *figure = NULL;

  for (guint round = 0; round < MATH_ROUNDS; round++)
    for (guint k = 0; k < 2; k++)
      {
        guint kind = round % 2 == 0 ? k : 1 - k;
        Run run = { 0 };
        NatterBenchFrames frames;
        double round_cpu;

        run.answer = g_str_has_prefix (name, "stream-math-dense") ? generate_dense_answer (round, kind == 1)
                                                                  : generate_math_answer (round, kind == 1);
        if (g_getenv ("BENCH_TRACE") != NULL)
          g_printerr ("round %u, %s:\n", round + 1, kinds[kind]);
        total[kind] += show_answer (window, &run, TRUE, &frames, &round_cpu);
        cpu[kind] += round_cpu;
        add_frames (&sum[kind], &frames);
        runs[kind].worst_stall = MAX (runs[kind].worst_stall, run.worst_stall);
        runs[kind].worst_cpu_stall = MAX (runs[kind].worst_cpu_stall, run.worst_cpu_stall);
        runs[kind].worst_frame_gap = MAX (runs[kind].worst_frame_gap, run.worst_frame_gap);
        runs[kind].frames += run.frames;
        runs[kind].len = run.len;
        g_free (run.answer);
      }

  /* The math rows keep the names they had before the floor. */
  for (guint kind = 0; kind < 2; kind++)
    {
      g_autofree char *what = kind == 1 ? g_strdup (name) : g_strdup_printf ("%s %s", name, kinds[kind]);
      g_autofree char *probe = g_strdup_printf ("%s (%s)", what, renderer);
      g_autofree char *cpu_figure = g_strdup_printf ("%s main-thread CPU, all rounds", what);

      print_rows (what, &runs[kind], total[kind] / MATH_ROUNDS);
      natter_bench_row (BENCH, cpu_figure, cpu[kind] * 1000.0, "ms");
      natter_bench_frames_rows (&sum[kind], BENCH, probe);
    }
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s (%s): worst frame, math / without math", name, renderer),
                    sum[1].worst_frame_cpu / (double) MAX (sum[0].worst_frame_cpu, 1), "x");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s (%s): frames over 8 ms, math minus without", name, renderer),
                    (double) sum[1].n_over_budget - sum[0].n_over_budget, "frames");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s main-thread CPU, math / without math", name),
                    cpu[1] / MAX (cpu[0], 1e-6), "x");
  g_clear_pointer (&figure, g_free);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s peak RSS", name), natter_bench_peak_rss_kib (), "KiB");
}

static void
bench_case (const char *name,
            gboolean    stream)
{
  GtkWidget *window = gtk_window_new ();
  Run run = { 0 };
  double total, cpu;
  g_autofree char *figure = NULL;
  NatterBenchFrames frames;

  /* Warm up once, as any earlier answer would have: fonts, CSS, and
   * GtkSourceView's language files load on first use. */
  {
    GtkWidget *warm = natter_markdown_view_new ();

    gtk_window_set_child (GTK_WINDOW (window), warm);
    gtk_window_present (GTK_WINDOW (window));
    natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (warm),
                                       "# A\n\n*b* `c`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- x\n\n> q\n\n"
                                       "```python\nx = 1\n```\n\n$x$ and $$y$$\n");
    /* The math renderer's web process starts with the first formula. */
    while (!natter_markdown_view_get_ready (NATTER_MARKDOWN_VIEW (warm)) ||
           natter_math_renderer_get_n_pending (natter_math_renderer_get_default ()) > 0)
      g_main_context_iteration (NULL, TRUE);
    for (int i = 0; i < 20; i++)
      g_main_context_iteration (NULL, FALSE);
  }

  if (g_getenv ("BENCH_TRACE") != NULL)
    {
      static const char * const phases[] = { "update", "layout", "paint" };
      GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

      for (int i = 0; i < 3; i++)
        {
          g_signal_add_emission_hook (g_signal_lookup (phases[i], GDK_TYPE_FRAME_CLOCK), 0,
                                      phase_begin_hook, GINT_TO_POINTER (i), NULL);
          g_signal_connect_after (clock, phases[i], G_CALLBACK (phase_end_cb), GINT_TO_POINTER (i));
        }
    }

  if (g_str_has_prefix (name, "stream-math"))
    {
      math_case (name, window);
      gtk_window_destroy (GTK_WINDOW (window));
      return;
    }

  run.answer = generate_answer ();
  total = show_answer (window, &run, stream, &frames, &cpu);
  print_rows (name, &run, total);
  natter_bench_row (BENCH, figure = g_strdup_printf ("%s peak RSS", name), natter_bench_peak_rss_kib (), "KiB");
  g_clear_pointer (&figure, g_free);
  figure = g_strdup_printf ("%s (%s)", name, natter_bench_renderer_name (window));
  natter_bench_frames_rows (&frames, BENCH, figure);

  gtk_window_destroy (GTK_WINDOW (window));
  g_free (run.answer);
}

int
main (int   argc,
      char *argv[])
{
  static const char * const cases[] = { "stream-8000", "set-8000", "stream-8000-cairo", "set-8000-cairo",
                                        "stream-math-50", "stream-math-50-cairo",
                                        "stream-math-dense", "stream-math-dense-cairo", NULL };

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
  if (!gtk_init_check ())
    {
      g_printerr ("%s: no display (run it under xvfb-run)\n", argv[0]);
      return 0;
    }
  adw_init ();
  bench_case (argv[1], g_str_has_prefix (argv[1], "stream-"));
  return 0;
}
