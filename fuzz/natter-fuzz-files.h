/* natter-fuzz-files.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the fuzz targets that read a log file share: the process set-up,
 * a temporary storage directory with one file per repository at a fixed
 * id, removed at exit, the write of an input into such a file, and the
 * walk over an input's lines.
 */

#pragma once

#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

/* The id of every fuzzed file: fixed and valid, so that a refusal is
 * always about the bytes. */
#define NATTER_FUZZ_ID "2026-11-30T09-14-03Z-0000001-000"

typedef void (*NatterFuzzLineFunc) (const char *line,
                                    gsize       length);

GFile *natter_fuzz_storage_new   (const char         *template);
char  *natter_fuzz_prepare_file  (NatterJsonlRepo    *repo);
void   natter_fuzz_write         (const char         *path,
                                  const char         *contents,
                                  gsize               length);
void   natter_fuzz_for_each_line (const char         *contents,
                                  gsize               length,
                                  NatterFuzzLineFunc  func);

G_END_DECLS
