/* bench-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Full-text search over 10,000 sessions of 20 turns, generated on disk
 * with varied words (a fixed-seed Zipf-like draw from a vocabulary, so
 * that common and rare words both occur):
 *
 * - building the index from nothing (natter_search_index_start() with no
 *   cache file), off the main thread: its wall time against the floor of
 *   reading the same 210,000 files with open/read, and the worst gap
 *   between two 1 ms timeouts of the main loop meanwhile (target: no
 *   stall over 16 ms);
 * - a query (natter_search_index_search_sync(), 200 hits, snippets),
 *   for a common word, a rare word, two words and a prefix: median and
 *   worst of 20 runs (target: under 50 ms), against the floor of SQLite
 *   matching the same expression without ranking or snippets;
 * - the start-up check of an unchanged store (stat every session file
 *   and latest turn file, read nothing), against the session index's own
 *   startup scan; and that scan while the check runs beside it, against
 *   the scan alone (target: the startup scan is not slower than today —
 *   the window starts the check only after the scan, so 1.0 there).
 *
 * `huge-message`: one message of 2 MB, then one of 20 MB, indexed and
 * searched for a rare word near its end and a common word (target: time
 * and memory linear in the size; 20 MB searched in under a second);
 * NATTER_BENCH_HUGE_SMALL_ONLY=1 runs the 2 MB one only.
 *
 * NATTER_BENCH_SESSIONS=N uses N sessions instead (to try it quickly);
 * NATTER_BENCH_SEARCH_DIR=path keeps the generated store (and not the
 * index) there for the next run; NATTER_BENCH_BUILD_ONLY=1 stops after
 * the build's rows and keeps the index (cache/search.sqlite) to look at;
 * NATTER_BENCH_REUSE_INDEX=1 (with NATTER_BENCH_SEARCH_DIR) starts from
 * the index such a run kept, so that its "build" rows are a start-up
 * check, to try queries quickly.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include <glib/gstdio.h>

#include "natter-bench.h"
#include "natter-bench-data.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-search-index.h"
#include "natter-session-index-internal.h"

#define N_SESSIONS 10000
#define N_TURNS    20
#define VOCABULARY 5000
#define TS         "2026-11-30T09:14:03.120Z"
#define QUERY_RUNS 20
#define QUERY_LIMIT 200

static guint n_sessions = N_SESSIONS;

/* Word @i of the vocabulary: pronounceable, distinct, stable. */
static void
append_word (GString *text,
             guint    i)
{
  static const char *syllables[] = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zu", "pe",
                                     "da", "fo", "gi", "ha", "ju", "be", "co", "xi", "wa", "qu" };

  do
    {
      g_string_append (text, syllables[i % G_N_ELEMENTS (syllables)]);
      i /= G_N_ELEMENTS (syllables);
    }
  while (i > 0);
}

/* @n words drawn so that low ranks are common and high ones rare. */
static void
append_words (GString *text,
              GRand   *rand,
              guint    n)
{
  for (guint i = 0; i < n; i++)
    {
      double u = g_rand_double (rand);
      guint rank = (guint) (VOCABULARY * u * u * u);

      if (i > 0)
        g_string_append_c (text, ' ');
      append_word (text, rank);
    }
}

/* The lines of a completed turn: @question, answered @answer. */
static void
append_turn_lines (GString    *text,
                   const char *turn_id,
                   const char *session_id,
                   const char *question,
                   const char *answer)
{
  g_string_append_printf (text,
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
    "\"sessionId\":\"%s\",\"agent\":{\"requested\":{\"agentId\":\"default\"},\"resolved\":{"
    "\"agentId\":\"default\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},"
    "\"systemPrompt\":\"Be brief.\",\"tools\":[]}},\"context\":[],"
    "\"input\":{\"role\":\"user\",\"content\":\"%s\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}\n",
    turn_id, session_id, question);
  g_string_append_printf (text,
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}\n"
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"finishReason\":\"stop\",\"usage\":{\"inputTokens\":120,\"outputTokens\":80},"
    "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"}}\n"
    "{\"type\":\"turn_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"finishReason\":\"stop\","
    "\"output\":{\"role\":\"assistant\",\"content\":\"%s\"},\"usage\":{\"inputTokens\":120,"
    "\"outputTokens\":80}}\n", turn_id, turn_id, answer, turn_id, answer);
}

static void
append_turn (GString    *text,
             GRand      *rand,
             const char *turn_id,
             const char *session_id)
{
  g_autoptr(GString) question = g_string_new (NULL);
  g_autoptr(GString) answer = g_string_new (NULL);

  append_words (question, rand, 12);
  append_words (answer, rand, 60);
  append_turn_lines (text, turn_id, session_id, question->str, answer->str);
}

/* Writes the store; returns every file's path (what a build reads). */
static GPtrArray *
generate (GFile *storage)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (natter_clock_get_system ());
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261201);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  for (guint s = 0; s < n_sessions; s++)
    {
      g_autofree char *session_id = natter_id_generator_next (ids);
      g_autoptr(GString) session = g_string_new (NULL);
      g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (sessions, session_id, NULL);

      g_string_append_printf (session, "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                              "\"schemaVersion\":1}\n", session_id);
      for (guint t = 1; t <= N_TURNS; t++)
        {
          g_autofree char *turn_id = natter_id_generator_next (ids);
          g_autoptr(GString) turn = g_string_new (NULL);
          g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (turns, turn_id, NULL);

          append_turn (turn, rand, turn_id, session_id);
          natter_bench_write_file (turn_file, turn->str, turn->len);
          g_ptr_array_add (paths, g_file_get_path (turn_file));
          g_string_append_printf (session, "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                                  "\"turnId\":\"%s\",\"sessionSeq\":%u,\"agentId\":\"default\","
                                  "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}}\n",
                                  session_id, turn_id, t);
        }
      natter_bench_write_file (session_file, session->str, session->len);
      g_ptr_array_add (paths, g_file_get_path (session_file));
    }
  return paths;
}

static GPtrArray *
generate_or_reuse (GFile *storage)
{
  g_autoptr(GFile) manifest = g_file_get_child (storage, "files.txt");
  g_autofree char *manifest_path = g_file_get_path (manifest);
  g_autofree char *contents = NULL;
  g_autoptr(GString) text = NULL;
  GPtrArray *paths;

  if (g_file_get_contents (manifest_path, &contents, NULL, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);

      paths = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; lines[i] != NULL; i++)
        if (lines[i][0] != '\0')
          g_ptr_array_add (paths, g_strdup (lines[i]));
      if (paths->len == n_sessions * (N_TURNS + 1))
        return paths;
      g_error ("%s lists %u files, not %u: remove it", manifest_path, paths->len, n_sessions * (N_TURNS + 1));
    }
  paths = generate (storage);
  text = g_string_new (NULL);
  for (guint i = 0; i < paths->len; i++)
    g_string_append_printf (text, "%s\n", (const char *) g_ptr_array_index (paths, i));
  natter_bench_write_file (manifest, text->str, text->len);
  return paths;
}

static double
read_floor (GPtrArray *paths)
{
  static char buffer[1 << 16];
  double start = natter_bench_now ();

  for (guint i = 0; i < paths->len; i++)
    {
      int fd = open (g_ptr_array_index (paths, i), O_RDONLY | O_CLOEXEC);

      if (fd < 0)
        g_error ("open: %s", g_strerror (errno));
      while (read (fd, buffer, sizeof buffer) > 0)
        ;
      close (fd);
    }
  return natter_bench_now () - start;
}

/* CPU time (user and system) of the calling thread, in seconds. */
static double
thread_cpu_s (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

/* The main loop while the index works: the worst gap between two 1 ms
 * timeouts is the longest the main thread was kept from running, by work
 * of its own or by waiting for a core. The CPU time the main thread used
 * between two timeouts tells the two apart: a gap of 100 ms in which it
 * used a tenth of a millisecond was spent waiting for a core. */
typedef struct
{
  double   last;
  double   last_cpu;
  double   worst;
  double   worst_cpu;
  guint    over_frame;
  gboolean done;
} Stall;

static gboolean
tick_cb (gpointer data)
{
  Stall *stall = data;
  double now = natter_bench_now ();
  double cpu = thread_cpu_s ();

  stall->worst = MAX (stall->worst, now - stall->last);
  stall->worst_cpu = MAX (stall->worst_cpu, cpu - stall->last_cpu);
  stall->over_frame += now - stall->last > 0.016;
  stall->last = now;
  stall->last_cpu = cpu;
  return G_SOURCE_CONTINUE;
}

static void
waited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Stall *stall = user_data;

  if (!natter_search_index_wait_finish (NATTER_SEARCH_INDEX (object), result, NULL))
    g_error ("waiting for the index failed");
  stall->done = TRUE;
}

/* Starts @search and runs the main loop until it is idle; returns the
 * wall time and sets the worst stall, the gaps over a frame and the most
 * CPU time the main thread used between two timeouts (each out-parameter
 * may be NULL). */
static double
run_index_full (NatterSearchIndex *search,
                double            *out_stall,
                guint             *out_over_frame,
                double            *out_main_cpu)
{
  Stall stall = { 0 };
  double start = natter_bench_now ();
  guint id;

  stall.last = start;
  stall.last_cpu = thread_cpu_s ();
  id = g_timeout_add (1, tick_cb, &stall);
  natter_search_index_start (search);
  natter_search_index_wait_async (search, NULL, waited_cb, &stall);
  while (!stall.done)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (id);
  if (out_stall != NULL)
    *out_stall = stall.worst;
  if (out_over_frame != NULL)
    *out_over_frame = stall.over_frame;
  if (out_main_cpu != NULL)
    *out_main_cpu = stall.worst_cpu;
  return natter_bench_now () - start;
}

static double
run_index (NatterSearchIndex *search,
           double            *out_stall)
{
  return run_index_full (search, out_stall, NULL, NULL);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double da = *(const double *) a;
  double db = *(const double *) b;

  return da < db ? -1 : da > db;
}

/* SQLite matching the same expression, rowids only: what any FTS5 search
 * of these words costs before ranking and snippets. */
static double
match_floor (const char *path,
             const char *text)
{
  g_autofree char *match = natter_search_build_match_expression (text);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  double start;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2 (db, "SELECT rowid FROM turn_text WHERE turn_text MATCH ?1 LIMIT ?2", -1, &stmt, NULL)
        != SQLITE_OK)
    g_error ("sqlite: %s", sqlite3_errmsg (db));
  sqlite3_bind_text (stmt, 1, match, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, 2, QUERY_LIMIT);
  start = natter_bench_now ();
  while (sqlite3_step (stmt) == SQLITE_ROW)
    ;
  start = natter_bench_now () - start;
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return start;
}

static void
bench_query (NatterSearchIndex *search,
             const char        *bench,
             const char        *label,
             const char        *text)
{
  g_autofree char *path = g_file_get_path (natter_search_index_get_file (search));
  double times[QUERY_RUNS];
  double cpus[QUERY_RUNS];
  double floors[QUERY_RUNS];
  double first_cpu;
  guint n_hits = 0;

  for (guint i = 0; i < QUERY_RUNS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) hits = NULL;
      double start = natter_bench_now ();
      double cpu = thread_cpu_s ();

      hits = natter_search_index_search_sync (search, text, QUERY_LIMIT, NULL, NULL, &error);
      times[i] = natter_bench_now () - start;
      cpus[i] = thread_cpu_s () - cpu;
      if (hits == NULL)
        g_error ("%s", error->message);
      n_hits = hits->len;
      floors[i] = match_floor (path, text);
    }
  /* The first run counts each word's rows (natter-search-rank.c), which
   * the runs after it find kept: its CPU time is that of a query of
   * words not searched for before. */
  first_cpu = cpus[0];
  qsort (times, QUERY_RUNS, sizeof (double), compare_doubles);
  qsort (cpus, QUERY_RUNS, sizeof (double), compare_doubles);
  qsort (floors, QUERY_RUNS, sizeof (double), compare_doubles);
  {
    g_autofree char *hits_figure = g_strdup_printf ("query %s: hits", label);
    g_autofree char *median_figure = g_strdup_printf ("query %s: median", label);
    g_autofree char *worst_figure = g_strdup_printf ("query %s: worst", label);
    g_autofree char *cpu_figure = g_strdup_printf ("query %s: CPU median", label);
    g_autofree char *first_figure = g_strdup_printf ("query %s: CPU of the first run", label);
    g_autofree char *ratio_figure = g_strdup_printf ("query %s: median / match floor", label);

    natter_bench_row (bench, hits_figure, n_hits, "");
    natter_bench_row (bench, median_figure, times[QUERY_RUNS / 2] * 1000, "ms");
    natter_bench_row (bench, worst_figure, times[QUERY_RUNS - 1] * 1000, "ms");
    /* The query runs on the calling thread: its CPU time is the query's
     * alone, whatever else shares the cores. */
    natter_bench_row (bench, cpu_figure, cpus[QUERY_RUNS / 2] * 1000, "ms");
    natter_bench_row (bench, first_figure, first_cpu * 1000, "ms");
    natter_bench_row (bench, ratio_figure, times[QUERY_RUNS / 2] / MAX (floors[QUERY_RUNS / 2], 1e-6), "x");
  }
}

static double
scan (NatterJsonlRepo *sessions,
      NatterJsonlRepo *turns)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  double start = natter_bench_now ();

  entries = natter_session_index_scan_sync (sessions, turns, 0, NULL, &error);
  if (entries == NULL || entries->len != n_sessions)
    g_error ("scan failed: %s", error != NULL ? error->message : "wrong count");
  return natter_bench_now () - start;
}

static void
remove_index (GFile *cache)
{
  g_autofree char *path = g_file_get_path (cache);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);

  g_unlink (path);
  g_unlink (wal);
  g_unlink (shm);
}

static void
bench_search (void)
{
  const char *keep = g_getenv ("NATTER_BENCH_SEARCH_DIR");
  g_autoptr(GFile) dir = keep != NULL ? g_file_new_for_path (keep) : natter_bench_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (dir, "cache/search.sqlite");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(NatterSearchIndex) search = NULL;
  g_autoptr(NatterSearchIndex) check = NULL;
  const char *bench = "search (10,000 sessions x 20)";
  double start, generate_s, floor_s, floor_cpu_s, build_s, build_cpu_s, build_stall, build_main_cpu, scan_s, check_s, check_stall, beside_s;
  guint build_over_frame;
  g_autoptr(GString) common = g_string_new (NULL);
  g_autoptr(GString) rare = g_string_new (NULL);
  g_autoptr(GString) two = g_string_new (NULL);
  g_autoptr(GString) prefix = g_string_new (NULL);

  start = natter_bench_now ();
  paths = generate_or_reuse (storage);
  generate_s = natter_bench_now () - start;
  if (keep == NULL || g_getenv ("NATTER_BENCH_REUSE_INDEX") == NULL)
    remove_index (cache);

  /* Warm the page cache, then the floor. */
  read_floor (paths);
  floor_cpu_s = natter_bench_cpu_s ();
  floor_s = read_floor (paths);
  floor_cpu_s = natter_bench_cpu_s () - floor_cpu_s;

  search = natter_search_index_new (cache, sessions, turns, NULL);
  build_cpu_s = natter_bench_cpu_s ();
  build_s = run_index_full (search, &build_stall, &build_over_frame, &build_main_cpu);
  build_cpu_s = natter_bench_cpu_s () - build_cpu_s;

  /* Rank 1 is drawn often, rank 3000 about once in 20,000 words. */
  append_word (common, 1);
  append_word (rare, 3000);
  append_word (two, 5);
  g_string_append_c (two, ' ');
  append_word (two, 40);
  append_word (prefix, 700);
  g_string_truncate (prefix, 3);

  natter_bench_row (bench, "sessions", n_sessions, "");
  natter_bench_row (bench, "generate the files (not the index)", generate_s, "s");
  natter_bench_row (bench, "floor: read all 210,000 files", floor_s * 1000, "ms");
  natter_bench_row (bench, "build from nothing (worker thread)", build_s * 1000, "ms");
  natter_bench_row (bench, "build / floor", build_s / floor_s, "x");
  natter_bench_row (bench, "floor: CPU time", floor_cpu_s * 1000, "ms");
  natter_bench_row (bench, "build: CPU time, all threads", build_cpu_s * 1000, "ms");
  natter_bench_row (bench, "build CPU / floor CPU", build_cpu_s / floor_cpu_s, "x");
  natter_bench_row (bench, "build: worst main-loop stall", build_stall * 1000, "ms");
  natter_bench_row (bench, "build: main-loop gaps over 16 ms", build_over_frame, "");
  natter_bench_row (bench, "build: main thread's worst CPU between ticks", build_main_cpu * 1000, "ms");
  if (g_getenv ("NATTER_BENCH_BUILD_ONLY") != NULL || g_getenv ("NATTER_BENCH_REUSE_INDEX") != NULL)
    {
      if (g_getenv ("NATTER_BENCH_BUILD_ONLY") == NULL)
        {
          bench_query (search, bench, "common word", common->str);
          bench_query (search, bench, "rare word", rare->str);
          bench_query (search, bench, "two words", two->str);
          bench_query (search, bench, "3-letter prefix", prefix->str);
        }
      g_clear_object (&search);
      return;
    }
  bench_query (search, bench, "common word", common->str);
  bench_query (search, bench, "rare word", rare->str);
  bench_query (search, bench, "two words", two->str);
  bench_query (search, bench, "3-letter prefix", prefix->str);
  g_clear_object (&search);

  /* Start-up with nothing changed: the session scan, the search check,
   * and the scan with the check running beside it. */
  scan (sessions, turns);
  scan_s = scan (sessions, turns);
  check = natter_search_index_new (cache, sessions, turns, NULL);
  check_s = run_index (check, &check_stall);
  g_clear_object (&check);
  check = natter_search_index_new (cache, sessions, turns, NULL);
  natter_search_index_start (check);
  beside_s = scan (sessions, turns);
  g_clear_object (&check);
  natter_bench_row (bench, "startup scan (default threads)", scan_s * 1000, "ms");
  natter_bench_row (bench, "search start-up check, unchanged", check_s * 1000, "ms");
  natter_bench_row (bench, "search check / startup scan", check_s / scan_s, "x");
  natter_bench_row (bench, "search check: worst main-loop stall", check_stall * 1000, "ms");
  natter_bench_row (bench, "scan with the check beside / alone", beside_s / scan_s, "x");
  natter_bench_row (bench, "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");

  remove_index (cache);
  if (keep == NULL)
    natter_bench_remove_tree (dir);
}


/* One session whose one message is @megabytes MB of varied words with a
 * rare word near its end (the needle), then the answer. */
static void
generate_huge (GFile *storage,
               guint  megabytes)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (natter_clock_get_system ());
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261204);
  g_autofree char *session_id = natter_id_generator_next (ids);
  g_autofree char *turn_id = natter_id_generator_next (ids);
  g_autoptr(GString) message = g_string_new (NULL);
  g_autoptr(GString) turn = g_string_new (NULL);
  g_autoptr(GString) session = g_string_new (NULL);
  g_autoptr(GFile) turn_file = natter_jsonl_repo_get_file (turns, turn_id, NULL);
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (sessions, session_id, NULL);

  while (message->len < (gsize) megabytes * 1000000)
    {
      append_words (message, rand, 60);
      g_string_append (message, ". ");
    }
  g_string_insert (message, message->len - 1000, " pelicanneedle ");
  append_turn_lines (turn, turn_id, session_id, message->str, "Noted.");
  natter_bench_write_file (turn_file, turn->str, turn->len);
  g_string_append_printf (session, "{\"type\":\"session_created\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                          "\"schemaVersion\":1}\n"
                          "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                          "\"turnId\":\"%s\",\"sessionSeq\":1,\"agentId\":\"default\","
                          "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}}\n",
                          session_id, session_id, turn_id);
  natter_bench_write_file (session_file, session->str, session->len);
}

/* Search in one huge message: the index build and a query for a rare
 * word near its end and for a common word, at 2 and 20 MB (target:
 * linear in the size; a 20 MB message searched in under a second). */
static void
bench_huge_message (void)
{
  static const guint sizes[] = { 2, 20 };
  guint n_sizes = g_getenv ("NATTER_BENCH_HUGE_SMALL_ONLY") != NULL ? 1 : G_N_ELEMENTS (sizes);

  for (guint i = 0; i < n_sizes; i++)
    {
      g_autoptr(GFile) dir = natter_bench_temp_dir ();
      g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
      g_autoptr(GFile) cache = g_file_resolve_relative_path (dir, "cache/search.sqlite");
      g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
      g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
      g_autoptr(NatterSearchIndex) search = NULL;
      g_autofree char *bench = g_strdup_printf ("search (one %u MB message)", sizes[i]);
      g_autoptr(GString) common = g_string_new (NULL);
      const char *queries[2];
      const char *labels[] = { "rare word near the end", "common word" };
      double build_s;

      generate_huge (storage, sizes[i]);
      search = natter_search_index_new (cache, sessions, turns, NULL);
      build_s = run_index (search, NULL);
      natter_bench_row (bench, "build the index", build_s * 1000, "ms");
      append_word (common, 1);
      queries[0] = "pelicanneedle";
      queries[1] = common->str;
      for (guint q = 0; q < G_N_ELEMENTS (queries); q++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GPtrArray) hits = NULL;
          g_autofree char *figure = g_strdup_printf ("query %s", labels[q]);
          double start = natter_bench_now ();

          hits = natter_search_index_search_sync (search, queries[q], QUERY_LIMIT, NULL, NULL, &error);
          if (hits == NULL || hits->len != 1)
            g_error ("%s: %s", figure, error != NULL ? error->message : "not one hit");
          natter_bench_row (bench, figure, (natter_bench_now () - start) * 1000, "ms");
        }
      natter_bench_row (bench, "peak RSS (process so far)", natter_bench_peak_rss_kib () / 1024.0, "MiB");
      g_clear_object (&search);
      natter_bench_remove_tree (dir);
    }
}

static const NatterBenchCase cases[] = {
  { "search-10k", bench_search },
  { "huge-message", bench_huge_message },
};

int
main (int   argc,
      char *argv[])
{
  const char *count = g_getenv ("NATTER_BENCH_SESSIONS");

  if (count != NULL && (n_sessions = (guint) g_ascii_strtoull (count, NULL, 10)) == 0)
    g_error ("NATTER_BENCH_SESSIONS must be a positive count");
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
