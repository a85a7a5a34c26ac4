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

G_END_DECLS
