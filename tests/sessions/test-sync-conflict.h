/* test-sync-conflict.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-sync-conflict share: the files of a data folder
 * as Syncthing leaves them, read and compared (test-sync-conflict-
 * fixture.c), and the scenarios of files not yet arrived
 * (test-sync-arriving.c) that its main runs beside those of conflict
 * copies.
 */

#pragma once

#include "natter-session-index-internal.h"
#include "natter-test-sessions.h"

G_BEGIN_DECLS

typedef NatterTestSessions Fixture;

char                    *path_of           (NatterJsonlRepo    *repo,
                                            const char         *name);
char                    *contents_of       (const char         *path);
void                     write_file        (const char         *path,
                                            const char         *contents);
void                     share_folder      (Fixture            *f);
NatterSessionIndex      *scan              (NatterJsonlRepo    *sessions,
                                            NatterJsonlRepo    *turns);
char                    *listing           (NatterSessionIndex *index);
GHashTable              *snapshot          (Fixture            *f);
void                     assert_same_files (GHashTable         *before,
                                            GHashTable         *after);
NatterSessionIndexEntry *lookup            (NatterSessionIndex *index,
                                            const char         *id);

void test_latest_turn_arriving       (Fixture       *f,
                                      gconstpointer  data);
void test_history_arriving           (Fixture       *f,
                                      gconstpointer  data);
void test_older_copy_arriving        (Fixture       *f,
                                      gconstpointer  data);
void test_missing_unshared_is_damage (Fixture       *f,
                                      gconstpointer  data);
void test_blob_arriving              (Fixture       *f,
                                      gconstpointer  data);

G_END_DECLS
