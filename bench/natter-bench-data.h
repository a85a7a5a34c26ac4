/* natter-bench-data.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Data sets the benchmarks generate on disk: many sessions for the index
 * and the app start, and one long chained session for sending. Files are
 * written directly (not through the runtime) so that 210,000 of them take
 * seconds, in the layout and schema the store reads.
 */

#pragma once

#include <gio/gio.h>

#include "natter-id.h"

G_BEGIN_DECLS

void       natter_bench_write_file          (GFile             *file,
                                             const char        *contents,
                                             gsize              length);
GPtrArray *natter_bench_generate_sessions   (GFile             *storage,
                                             guint              n_sessions,
                                             guint              n_turns);
GFile     *natter_bench_ensure_sessions     (guint              n_sessions,
                                             guint              n_turns);
char      *natter_bench_generate_chain      (GFile             *storage,
                                             NatterIdGenerator *ids,
                                             guint              n_turns,
                                             GPtrArray         *out_turn_paths);

G_END_DECLS
