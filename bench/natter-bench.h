/* natter-bench.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Benchmarks print figures; they never pass or fail on timing. Each binary
 * runs one case (its first argument) so that the peak RSS it reports
 * belongs to that case alone.
 */

#pragma once

#include <glib.h>
#include <gio/gio.h>

G_BEGIN_DECLS

/* One case of a benchmark program: its name on the command line. */
typedef struct
{
  const char *name;
  void      (*run) (void);
} NatterBenchCase;

typedef void (*NatterBenchChildFunc) (gpointer data);

double natter_bench_now            (void);
double natter_bench_cpu_s          (void);
gint64 natter_bench_peak_rss_kib   (void);
double natter_bench_status_kib     (const char *field);
void   natter_bench_row            (const char *bench,
                                    const char *figure,
                                    double      value,
                                    const char *unit);
GFile *natter_bench_temp_dir       (void);
void   natter_bench_remove_tree    (GFile      *dir);
void   natter_bench_run_in_child   (const char           *what,
                                    NatterBenchChildFunc  func,
                                    gpointer              data);
int    natter_bench_main           (int                    argc,
                                    char                 **argv,
                                    const NatterBenchCase *cases,
                                    guint                  n_cases);

G_END_DECLS
