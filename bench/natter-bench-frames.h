/* natter-bench-frames.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The main thread's work per frame of one window, from its frame clock:
 * natter_bench_frames_start() … natter_bench_frames_stop(), then
 * natter_bench_frames_rows(). */
#define NATTER_BENCH_N_PHASES 5

typedef struct
{
  GdkFrameClock *clock;
  gulong         hooks[NATTER_BENCH_N_PHASES];       /* emission hooks of the phases a frame may begin with */
  gulong         after_id;
  gint64         frame_wall;     /* at this frame's flush-events, µs */
  gint64         frame_cpu;      /* the main thread's CPU time then, µs */
  gint64         last_after_cpu; /* at the previous after-paint, µs; 0 before the first */
  guint          phase;          /* the phase running (index into the phases) */
  gint64         phase_start;    /* the main thread's CPU time when it began, µs */
  gint64         phase_cpu[NATTER_BENCH_N_PHASES];       /* this frame's, by phase */
  gint64         worst_phase_cpu[NATTER_BENCH_N_PHASES]; /* the worst frame's, by phase */
  gint64         worst_frame_cpu;
  gint64         worst_frame_wall;
  gint64         worst_interval_cpu;
  guint          n_frames;
  guint          n_over_budget;  /* frames whose own main-thread CPU passed 8 ms */
} NatterBenchFrames;

void        natter_bench_select_renderer (const char        *case_name);
const char *natter_bench_renderer_name   (GtkWidget         *widget);
void        natter_bench_frames_start    (NatterBenchFrames *frames,
                                          GtkWidget         *widget);
void        natter_bench_frames_stop     (NatterBenchFrames *frames);
void        natter_bench_frames_rows     (NatterBenchFrames *frames,
                                          const char        *bench,
                                          const char        *what);

G_END_DECLS
