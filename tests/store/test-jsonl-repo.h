/* test-jsonl-repo.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-jsonl-repo share (test-jsonl-repo-fixture.c).
 */

#pragma once

#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-test-support.h"
#include "natter-turn-schema.h"

#define TIMEOUT_MS 10000
#define TS "2026-11-30T09:14:03.000Z"

#define ID_A "2026-11-30T09-14-03Z-0000000-000"
#define ID_B "2026-11-30T09-14-03Z-0000001-000"
#define ID_C "2026-12-01T00-00-00Z-0000000-000"
#define ID_D "2027-01-05T23-59-59Z-0000007-000"

typedef struct
{
  const char            *prefix;
  const char            *kind;
  const char            *created_type;
  const char            *owner_member;
  NatterEventValidator   test_validator;
  NatterJsonlRepo      *(*real_new) (GFile *storage_dir);
  NatterEventValidator   real_validator;
  /* Valid under the real schema; templates as in CorruptCase below. */
  const char            *real_created;
  const char            *real_event;
} KindInfo;

/* The two kinds of log every test runs against. */
extern const KindInfo turn_kind;
extern const KindInfo session_kind;

/* Fixture */

typedef struct
{
  const KindInfo  *info;
  GFile           *root;
  GFile           *storage;
  char            *root_path;
  char            *storage_path;
  NatterJsonlRepo *repo;
} Fixture;

/* Helpers */

/* docs/sessions.md §6.3: create-if-absent */

/* docs/sessions.md §6.3: strict line validation; corrupt files rejected
 * whole */

typedef struct
{
  const char *name;
  /* template: %1$s = created type, %2$s = owner member, %3$s = id,
   * %4$s = another id. */
  const char *contents;
  guint       line;
  const char *reason;
} CorruptCase;

#define CREATED "{\"type\":\"%1$s\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":1}"
#define NOTE "{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}"

static const CorruptCase corrupt_cases[] = {
  { "empty file", "", 1, "empty" },
  { "malformed first line", "{\"type\":\"%1$s\",\n" NOTE "\n", 1, "not JSON" },
  { "malformed middle line", CREATED "\n{oops}\n" NOTE "\n", 2, "not JSON" },
  { "malformed last line", CREATED "\n" NOTE "\n" NOTE "x\n", 3, "not JSON" },
  { "torn last line", CREATED "\n" NOTE "\n{\"type\":\"note\",\"%2$s\"", 3, "torn" },
  { "valid JSON without final newline", CREATED "\n" NOTE, 2, "torn" },
  { "NaN", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"n\":NaN}\n", 2, NULL },
  { "invalid UTF-8", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"t\":\"\xc3\x28\"}\n", 2, "UTF-8" },
  { "embedded NUL", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"t\":\"a\\u0000b\"}\n", 2, NULL },
  { "wrong id inside", CREATED "\n" NOTE "\n{\"type\":\"note\",\"%2$s\":\"%4$s\",\"ts\":\"" TS "\"}\n", 3, "%4$s" },
  { "owner id missing", CREATED "\n{\"type\":\"note\",\"ts\":\"" TS "\"}\n", 2, "Field “%2$s” is missing" },
  { "unknown event type", CREATED "\n{\"type\":\"bogus\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, "bogus" },
  { "schemaVersion 2", "{\"type\":\"%1$s\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\",\"schemaVersion\":2}\n", 1, NULL },
  { "first line not created", NOTE "\n", 1, "%1$s" },
  { "created twice", CREATED "\n" NOTE "\n" CREATED "\n", 3, "%1$s" },
  { "not an object", CREATED "\n[]\n", 2, "object" },
  { "blank line", CREATED "\n\n" NOTE "\n", 2, NULL },
  { "CRLF", CREATED "\r\n" NOTE "\r\n", 1, NULL },
  { "non-canonical spacing", CREATED "\n{\"type\": \"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, "round-trip" },
  { "duplicate member", CREATED "\n{\"type\":\"note\",\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"" TS "\"}\n", 2, NULL },
  { "bad ts", CREATED "\n{\"type\":\"note\",\"%2$s\":\"%3$s\",\"ts\":\"yesterday\"}\n", 2, "ts" },
};

/* docs/sessions.md §6.3: listing across partitions */

typedef struct
{
  GPtrArray *guards;
  guint      completed;
} LockState;

/* Concurrent appends: every line complete (pitfalls.md 1) */

#define N_BATCHES 64

typedef struct
{
  guint completed;
  guint failed;
} AppendState;

void fixture_set_up (Fixture       *f,
                     gconstpointer  data);
void wait_for_last_ref (gpointer object);
void fixture_tear_down (Fixture       *f,
                        gconstpointer  data);
char *created_line (const KindInfo *info,
                    const char     *id);
char *note_line (const KindInfo *info,
                 const char     *id,
                 const char     *text);
char *path_of (Fixture    *f,
               const char *id);
void create (Fixture    *f,
             const char *id);
void append_notes (Fixture    *f,
                   const char *id,
                   guint       n,
                   const char *text);
char *write_raw (Fixture    *f,
                 const char *id,
                 const char *contents,
                 gssize      length);
char *file_bytes (const char *path,
                  gsize      *length);
guint mode_of (const char *path);
void assert_corrupt_read (NatterJsonlRepo *repo,
                          const char      *id,
                          const char      *path,
                          guint            line,
                          const char      *reason);
void wait_for_result (GAsyncResult **result);
void store_result_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data);
void assert_create_fails (Fixture    *f,
                          const char *id,
                          const char *literal,
                          int         code);
void assert_append_refused (Fixture    *f,
                            const char *path,
                            GPtrArray  *events,
                            int         code);
void test_read_round_trip (Fixture       *f,
                           gconstpointer  data);
void run_corrupt_cases (NatterJsonlRepo *repo,
                        Fixture         *f);
void test_strict_line_validation (Fixture       *f,
                                  gconstpointer  data);
char *real_line (const char *template,
                 const char *id,
                 const char *version,
                 const char *type);
void test_strict_line_validation_real_validator (Fixture       *f,
                                                 gconstpointer  data);
void test_corrupt_files_rejected_whole (Fixture       *f,
                                        gconstpointer  data);
void touch (const char *dir,
            const char *name);
void test_list_ids_across_partitions (Fixture       *f,
                                      gconstpointer  data);
void test_deletion_removes_only_the_file (Fixture       *f,
                                          gconstpointer  data);
void test_leftover_temp_files_removed (Fixture       *f,
                                       gconstpointer  data);
void test_leftover_temp_files_without_storage (Fixture       *f,
                                               gconstpointer  data);
void test_async_round_trip (Fixture       *f,
                            gconstpointer  data);
void locked_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data);
void test_lock (Fixture       *f,
                gconstpointer  data);
void appended_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data);
void test_concurrent_appends_keep_lines_whole (Fixture       *f,
                                               gconstpointer  data);
void test_own_writes_seen (Fixture       *f,
                           gconstpointer  data);
