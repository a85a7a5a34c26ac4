/* natter-bench-frames.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main thread's CPU time per frame, beside its wall time, for the
 * window benchmarks. A frame's own work runs from the first phase its
 * frame clock runs (flush-events, before-paint, update, layout or paint:
 * a frame runs only those something asked for) to its after-paint:
 * events, animations, layout, and the snapshot and render the renderer
 * does on this thread. An emission hook sees each phase begin, before
 * any handler of it. What runs on the main thread between two frames (a
 * stream's deltas, an idle's build) is counted separately, from one
 * after-paint to the next frame's first phase. CPU time rather
 * than wall time alone: on a machine whose cores other work shares, the
 * wall time mostly measures the scheduler, and the renderer's own
 * threads (software GL) are not the main thread's work.
 *
 * A case name ending in "-cairo" runs with GSK_RENDERER=cairo, so that
 * each window case is measured with GTK's default (GL) renderer and with
 * Cairo in the same run; natter_bench_renderer_name() says which one a
 * window really got. BENCH_TRACE=1 prints each frame over the budget
 * with its phases.
 */

#include <string.h>
#include <time.h>

#include "natter-bench.h"
#include "natter-bench-frames.h"

/* A 120 Hz frame leaves about 8 ms. */
#define FRAME_BUDGET_US 8000

static gint64
main_thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/**
 * natter_bench_select_renderer:
 * @case_name: the case being run
 *
 * Before gtk_init(): GSK_RENDERER=cairo for a case whose name ends in
 * "-cairo"; GTK's default otherwise.
 */
void
natter_bench_select_renderer (const char *case_name)
{
  if (g_str_has_suffix (case_name, "-cairo"))
    g_setenv ("GSK_RENDERER", "cairo", TRUE);
}

/* Returns: "gl", "ngl", "cairo" or the renderer's type name */
const char *
natter_bench_renderer_name (GtkWidget *widget)
{
  GtkNative *native = gtk_widget_get_native (widget);
  GskRenderer *renderer = native != NULL ? gtk_native_get_renderer (native) : NULL;
  const char *type = renderer != NULL ? G_OBJECT_TYPE_NAME (renderer) : "none";

  if (g_str_equal (type, "GskGLRenderer"))
    return "gl";
  if (g_str_equal (type, "GskNglRenderer"))
    return "ngl";
  if (g_str_equal (type, "GskCairoRenderer"))
    return "cairo";
  return type;
}

/* The phases a frame may begin with, in order (NATTER_BENCH_N_PHASES). */
static const char * const first_phases[] = { "flush-events", "before-paint", "update", "layout", "paint" };
G_STATIC_ASSERT (G_N_ELEMENTS (first_phases) == NATTER_BENCH_N_PHASES);

/* The probe running: one window at a time. */
static NatterBenchFrames *running;

static gboolean
phase_begin_hook (GSignalInvocationHint *hint,
                  guint                  n_params,
                  const GValue          *params,
                  gpointer               data)
{
  NatterBenchFrames *frames = running;
  gint64 cpu;

  if (frames == NULL || g_value_get_object (&params[0]) != (gpointer) frames->clock)
    return TRUE;
  cpu = main_thread_cpu_us ();
  if (frames->frame_cpu == 0)
    {
      frames->frame_wall = g_get_monotonic_time ();
      frames->frame_cpu = cpu;
      memset (frames->phase_cpu, 0, sizeof frames->phase_cpu);
      if (frames->last_after_cpu != 0)
        frames->worst_interval_cpu = MAX (frames->worst_interval_cpu, cpu - frames->last_after_cpu);
    }
  else
    frames->phase_cpu[frames->phase] += cpu - frames->phase_start;
  frames->phase = GPOINTER_TO_UINT (data);
  frames->phase_start = cpu;
  return TRUE;
}

static void
after_paint_cb (GdkFrameClock     *clock,
                NatterBenchFrames *frames)
{
  gint64 cpu = main_thread_cpu_us ();

  /* A frame that began before start() is not counted. */
  if (frames->frame_cpu != 0)
    {
      gint64 frame_cpu = cpu - frames->frame_cpu;

      /* The last phase runs to the after-paint (resume-events included). */
      frames->phase_cpu[frames->phase] += cpu - frames->phase_start;
      if (frame_cpu > frames->worst_frame_cpu)
        memcpy (frames->worst_phase_cpu, frames->phase_cpu, sizeof frames->phase_cpu);
      frames->worst_frame_cpu = MAX (frames->worst_frame_cpu, frame_cpu);
      frames->worst_frame_wall = MAX (frames->worst_frame_wall, g_get_monotonic_time () - frames->frame_wall);
      frames->n_frames++;
      frames->n_over_budget += frame_cpu > FRAME_BUDGET_US;
      if (frame_cpu > FRAME_BUDGET_US && g_getenv ("BENCH_TRACE") != NULL)
        g_printerr ("  frame %u: %.1f ms CPU (update %.1f, layout %.1f, paint %.1f)\n", frames->n_frames,
                    frame_cpu / 1000.0, frames->phase_cpu[2] / 1000.0, frames->phase_cpu[3] / 1000.0,
                    frames->phase_cpu[4] / 1000.0);
    }
  frames->last_after_cpu = cpu;
  frames->frame_cpu = 0;
}

/**
 * natter_bench_frames_start:
 * @frames: (out caller-allocates): the probe
 * @widget: a widget of the window to watch (mapped)
 *
 * Starts counting the frames of @widget's window.
 */
void
natter_bench_frames_start (NatterBenchFrames *frames,
                           GtkWidget         *widget)
{
  g_return_if_fail (running == NULL);

  memset (frames, 0, sizeof *frames);
  frames->clock = g_object_ref (gtk_widget_get_frame_clock (widget));
  for (guint i = 0; i < G_N_ELEMENTS (first_phases); i++)
    frames->hooks[i] = g_signal_add_emission_hook (g_signal_lookup (first_phases[i], GDK_TYPE_FRAME_CLOCK), 0,
                                                   phase_begin_hook, GUINT_TO_POINTER (i), NULL);
  frames->after_id = g_signal_connect_after (frames->clock, "after-paint", G_CALLBACK (after_paint_cb), frames);
  running = frames;
}

/**
 * natter_bench_frames_stop:
 * @frames: a started probe
 *
 * Stops counting; the figures stay.
 */
void
natter_bench_frames_stop (NatterBenchFrames *frames)
{
  for (guint i = 0; i < G_N_ELEMENTS (first_phases); i++)
    g_signal_remove_emission_hook (g_signal_lookup (first_phases[i], GDK_TYPE_FRAME_CLOCK), frames->hooks[i]);
  g_clear_signal_handler (&frames->after_id, frames->clock);
  running = NULL;
  g_clear_object (&frames->clock);
}

/**
 * natter_bench_frames_rows:
 * @frames: a stopped probe
 * @bench: the bench label of the rows
 * @what: what the frames were drawn for, to start each figure's name
 *
 * Prints the worst frame's main-thread CPU and wall time, that CPU time
 * phase by phase, the worst main-thread CPU between two frames, the
 * frames counted and how many passed the 8 ms budget.
 */
void
natter_bench_frames_rows (NatterBenchFrames *frames,
                          const char        *bench,
                          const char        *what)
{
  g_autofree char *cpu = g_strdup_printf ("%s: worst frame, main-thread CPU", what);
  g_autofree char *wall = g_strdup_printf ("%s: worst frame, wall", what);
  g_autofree char *interval = g_strdup_printf ("%s: main-thread CPU between frames", what);
  g_autofree char *count = g_strdup_printf ("%s: frames", what);
  g_autofree char *over = g_strdup_printf ("%s: frames over 8 ms CPU", what);

  natter_bench_row (bench, cpu, frames->worst_frame_cpu / 1000.0, "ms");
  natter_bench_row (bench, wall, frames->worst_frame_wall / 1000.0, "ms");
  for (guint i = 0; i < G_N_ELEMENTS (first_phases); i++)
    {
      g_autofree char *phase = g_strdup_printf ("%s: worst frame, %s CPU", what, first_phases[i]);

      natter_bench_row (bench, phase, frames->worst_phase_cpu[i] / 1000.0, "ms");
    }
  natter_bench_row (bench, interval, frames->worst_interval_cpu / 1000.0, "ms");
  natter_bench_row (bench, count, frames->n_frames, "frames");
  natter_bench_row (bench, over, frames->n_over_budget, "frames");
}
