/* fuzz-read-reduce.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libFuzzer target for the whole read path of a log file: bytes on disk →
 * strict JSONL read (lossless line check + schema) → reducer. Whatever the
 * bytes, it must not crash, leak, hit a sanitizer, or log a warning or
 * critical; and a file that reads must read back byte for byte.
 *
 * The first input byte picks the file kind: odd (e.g. 'S') writes the
 * rest as a session file, even (e.g. 'T') as a turn file. Both use one
 * fixed valid id, NATTER_FUZZ_ID, so the seeds in fuzz/corpus/ can be valid.
 *
 * Build and run with fuzz/run-fuzz.sh. Set NATTER_FUZZ_VERBOSE=1 to print
 * why each input was refused (useful when writing seeds).
 */

#define G_LOG_DOMAIN "natter-fuzz"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "natter-fuzz-files.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-reducer.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static NatterJsonlRepo *turn_repo;
static NatterJsonlRepo *session_repo;
static char *turn_file;
static char *session_file;
static gboolean verbose;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GFile) storage_dir = natter_fuzz_storage_new ("natter-fuzz-XXXXXX");

  verbose = g_getenv ("NATTER_FUZZ_VERBOSE") != NULL;
  turn_repo = natter_turn_repo_new (storage_dir);
  session_repo = natter_session_repo_new (storage_dir);
  turn_file = natter_fuzz_prepare_file (turn_repo);
  session_file = natter_fuzz_prepare_file (session_repo);
  return 0;
}

/* The read is strict and canonical, so the events it returns must
 * serialize back to exactly the bytes that were read. */
static void
check_round_trip (GPtrArray     *events,
                  const uint8_t *content,
                  size_t         length)
{
  g_autoptr(GString) again = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = natter_json_to_line (events->pdata[i], NULL, &error);

      g_assert_no_error (error);
      g_string_append (again, line);
      g_string_append_c (again, '\n');
    }
  g_assert_cmpmem (again->str, again->len, content, length);
}

static void
exercise_session (GPtrArray *events)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = natter_session_reduce (events, &error);
  g_autoptr(NatterSessionState) incremental = NULL;
  guint n_turns;

  if (state == NULL)
    {
      g_assert_nonnull (error);
      if (verbose)
        g_printerr ("session refused by the reducer: %s\n", error->message);
      return;
    }
  g_assert_no_error (error);

  /* Properties of docs/format.md §3.2 that every reduced state holds. */
  n_turns = natter_session_state_get_n_turns (state);
  g_assert_cmpstr (natter_session_state_get_session_id (state), ==, NATTER_FUZZ_ID);
  g_assert_nonnull (natter_session_state_get_created_at (state));
  g_assert_nonnull (natter_session_state_get_updated_at (state));
  g_assert_cmpint (natter_session_state_get_next_session_seq (state), ==, (gint64) n_turns + 1);
  for (guint i = 0; i < n_turns; i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (state, i);

      g_assert_cmpint (turn->session_seq, ==, (gint64) i + 1);
      g_assert_true (natter_session_state_find_turn (state, turn->turn_id) == turn);
    }
  if (n_turns == 0)
    g_assert_null (natter_session_state_get_latest_turn_id (state));
  else
    g_assert_cmpstr (natter_session_state_get_latest_turn_id (state), ==,
                     natter_session_state_get_turn (state, n_turns - 1)->turn_id);

  /* Event by event gives the same state as the batch. */
  incremental = natter_session_state_new ();
  for (guint i = 0; i < events->len; i++)
    {
      g_assert_true (natter_session_state_apply (incremental, json_node_get_object (events->pdata[i]),
                                                 &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (natter_session_state_get_n_turns (incremental), ==, n_turns);
  g_assert_cmpstr (natter_session_state_get_title (incremental), ==, natter_session_state_get_title (state));
  g_assert_cmpstr (natter_session_state_get_updated_at (incremental), ==,
                   natter_session_state_get_updated_at (state));
}

static void
exercise_turn (GPtrArray *events)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnState) state = natter_turn_reduce (events, &error);
  g_autofree char *final_text = NULL;
  NatterTurnStatus status;

  if (state == NULL)
    {
      g_assert_nonnull (error);
      if (verbose)
        g_printerr ("turn refused by the reducer: %s\n", error->message);
      return;
    }
  g_assert_no_error (error);

  g_assert_cmpstr (natter_turn_state_get_turn_id (state), ==, NATTER_FUZZ_ID);
  status = natter_derive_turn_status (state);
  g_assert_nonnull (natter_turn_status_to_string (status));
  final_text = natter_turn_state_dup_final_text (state);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterJsonlRepo *repo;
  const char *path;
  gboolean is_session;

  if (size == 0)
    return 0;

  is_session = (data[0] & 1) != 0;
  repo = is_session ? session_repo : turn_repo;
  path = is_session ? session_file : turn_file;

  natter_fuzz_write (path, (const char *) data + 1, size - 1);

  events = natter_jsonl_repo_read_sync (repo, NATTER_FUZZ_ID, NULL, &error);
  if (events == NULL)
    {
      /* Whatever the bytes, a refused file is CORRUPT, never an I/O or id
       * problem: the file exists and the id is fixed and valid. */
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
      if (verbose)
        g_printerr ("%s refused by the read: %s\n", is_session ? "session" : "turn", error->message);
      return 0;
    }
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 0);

  check_round_trip (events, data + 1, size - 1);

  if (is_session)
    exercise_session (events);
  else
    exercise_turn (events);

  if (verbose)
    g_printerr ("%s read with %u events\n", is_session ? "session" : "turn", events->len);
  return 0;
}
