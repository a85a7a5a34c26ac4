/* bench-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The startup scan of docs/sessions.md §8.2 over 10,000 sessions of
 * 20 turns each, generated on disk: wall time (warm cache), peak RSS, and
 * the floor of reading the same files the scan must read (every session
 * file and each session's latest turn file) with plain open/read, as a
 * ratio. Target: within 3× of the floor and under 1 s warm.
 *
 * Every turn has an inline `[]` context: the scan derives a status from
 * the latest turn's events, and a `{previousTurnId}` turn would need its
 * model calls to carry the matching contextRef, which adds nothing here.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "natter-bench.h"
#include "natter-bench-data.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-index-internal.h"

#define N_SESSIONS 10000
#define N_TURNS    20

/* NATTER_BENCH_SESSIONS=N scans N sessions instead (to profile a smaller
 * store); NATTER_BENCH_SESSIONS_DIR=path keeps the generated store there
 * and reuses it on the next run, since generating and removing 210,000
 * files takes minutes. The figures are the same either way. */
static guint n_sessions = N_SESSIONS;
#define TS         "2026-11-30T09:14:03.120Z"

static void
write_file (GFile      *file,
            const char *contents,
            gsize       length)
{
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autofree char *dir = g_file_get_path (parent);
  g_autofree char *path = g_file_get_path (file);
  FILE *out;

  g_mkdir_with_parents (dir, 0700);
  out = fopen (path, "w");
  if (out == NULL || fwrite (contents, 1, length, out) != length || fclose (out) != 0)
    g_error ("Could not write %s", path);
}

static void
append_turn (GString    *text,
             const char *turn_id,
             const char *session_id,
             guint       seq)
{
  g_string_append_printf (text,
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
    "\"sessionId\":\"%s\",\"agent\":{\"requested\":{\"agentId\":\"default\"},\"resolved\":{"
    "\"agentId\":\"default\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},"
    "\"systemPrompt\":\"Be brief.\",\"tools\":[]}},\"context\":[],"
    "\"input\":{\"role\":\"user\",\"content\":\"Question number %u, about something.\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}\n",
    turn_id, session_id, seq);
  g_string_append_printf (text,
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}\n"
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"finishReason\":\"stop\",\"usage\":{\"inputTokens\":120,\"outputTokens\":80},"
    "\"message\":{\"role\":\"assistant\",\"content\":\"An answer of a realistic length, a sentence or two long, "
    "so the line is not trivially short.\"}}\n"
    "{\"type\":\"turn_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"finishReason\":\"stop\","
    "\"output\":{\"role\":\"assistant\",\"content\":\"An answer.\"},\"usage\":{\"inputTokens\":120,"
    "\"outputTokens\":80}}\n", turn_id, turn_id, turn_id);
}

/* Writes the data set; returns the paths the scan must read. */
static GPtrArray *
generate (GFile *storage)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (natter_clock_get_system ());
  GPtrArray *needed = g_ptr_array_new_with_free_func (g_free);

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

          append_turn (turn, turn_id, session_id, t);
          write_file (turn_file, turn->str, turn->len);
          g_string_append_printf (session, "{\"type\":\"turn_appended\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                                  "\"turnId\":\"%s\",\"sessionSeq\":%u,\"agentId\":\"default\","
                                  "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}}\n",
                                  session_id, turn_id, t);
          if (t == 1)
            g_string_append_printf (session, "{\"type\":\"title_changed\",\"sessionId\":\"%s\",\"ts\":\"" TS "\","
                                    "\"title\":\"Question number 1, about something.\"}\n", session_id);
          if (t == N_TURNS)
            g_ptr_array_add (needed, g_file_get_path (turn_file));
        }
      write_file (session_file, session->str, session->len);
      g_ptr_array_add (needed, g_file_get_path (session_file));
    }
  return needed;
}

/* The floor: open, read and close every file the scan needs. Also counts
 * the bytes and lines the scan must parse, so that its throughput can be
 * printed; the counting is a tight loop well below the cost of the I/O. */
static double
read_floor (GPtrArray *paths,
            guint64   *out_bytes,
            guint64   *out_lines)
{
  static char buffer[1 << 16];
  double start = natter_bench_now ();
  guint64 bytes = 0;
  guint64 lines = 0;

  for (guint i = 0; i < paths->len; i++)
    {
      int fd = open (g_ptr_array_index (paths, i), O_RDONLY | O_CLOEXEC);
      gssize n;

      if (fd < 0)
        g_error ("open: %s", g_strerror (errno));
      while ((n = read (fd, buffer, sizeof buffer)) > 0)
        {
          bytes += n;
          for (const char *p = buffer; (p = memchr (p, '\n', buffer + n - p)) != NULL; p++)
            lines++;
        }
      close (fd);
    }
  *out_bytes = bytes;
  *out_lines = lines;
  return natter_bench_now () - start;
}

/* The directory of @path, kept open in *@dir (its path in *@dir_path)
 * while the next paths are in it too; returns @path's name in it. */
static const char *
enter_parent (const char  *path,
              char       **dir_path,
              int         *dir)
{
  const char *slash = strrchr (path, '/');

  if (*dir_path == NULL || strncmp (path, *dir_path, slash - path) != 0 || (*dir_path)[slash - path] != '\0')
    {
      if (*dir >= 0)
        close (*dir);
      g_free (*dir_path);
      *dir_path = g_strndup (path, slash - path);
      *dir = open (*dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (*dir < 0)
        g_error ("open %s: %s", *dir_path, g_strerror (errno));
    }
  return slash + 1;
}

/* The floor again, each file opened by its name in its directory
 * (openat()), the directory kept open while the next file of its kind
 * is in it: how the scan reaches the files (natter-jsonl-cursor.c, one
 * cursor for the session files and one for the turn files), without
 * the walk of the whole path per file that plain open() pays. The paths
 * alternate between the two kinds. */
static double
read_floor_at (GPtrArray *paths)
{
  static char buffer[1 << 16];
  char *dir_path[2] = { NULL, NULL };
  int dir[2] = { -1, -1 };
  double start = natter_bench_now ();

  for (guint i = 0; i < paths->len; i++)
    {
      const char *name = enter_parent (g_ptr_array_index (paths, i), &dir_path[i % 2], &dir[i % 2]);
      int fd = openat (dir[i % 2], name, O_RDONLY | O_CLOEXEC);

      if (fd < 0)
        g_error ("openat: %s", g_strerror (errno));
      while (read (fd, buffer, sizeof buffer) > 0)
        ;
      close (fd);
    }
  for (guint k = 0; k < 2; k++)
    {
      if (dir[k] >= 0)
        close (dir[k]);
      g_free (dir_path[k]);
    }
  return natter_bench_now () - start;
}

/* The generated store and the paths the scan must read, reused from
 * NATTER_BENCH_SESSIONS_DIR when it already holds a complete one. */
static GPtrArray *
generate_or_reuse (GFile *storage)
{
  g_autoptr(GFile) manifest = g_file_get_child (storage, "needed.txt");
  g_autofree char *manifest_path = g_file_get_path (manifest);
  g_autofree char *contents = NULL;
  g_autoptr(GString) text = NULL;
  GPtrArray *needed;

  if (g_file_get_contents (manifest_path, &contents, NULL, NULL))
    {
      g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);

      needed = g_ptr_array_new_with_free_func (g_free);
      for (guint i = 0; lines[i] != NULL; i++)
        if (lines[i][0] != '\0')
          g_ptr_array_add (needed, g_strdup (lines[i]));
      if (needed->len == 2 * n_sessions)
        return needed;
      g_error ("%s lists %u files, not %u: remove it", manifest_path, needed->len, 2 * n_sessions);
    }

  needed = generate (storage);
  text = g_string_new (NULL);
  for (guint i = 0; i < needed->len; i++)
    g_string_append_printf (text, "%s\n", (const char *) g_ptr_array_index (needed, i));
  write_file (manifest, text->str, text->len);
  return needed;
}

static double
scan (NatterJsonlRepo *sessions,
      NatterJsonlRepo *turns,
      guint            n_threads,
      double          *out_cpu)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  double cpu_start = natter_bench_cpu_s ();
  double start = natter_bench_now ();

  entries = natter_session_index_scan_sync (sessions, turns, n_threads, NULL, &error);
  if (entries == NULL || entries->len != n_sessions)
    g_error ("scan failed: %s", error != NULL ? error->message : "wrong count");
  for (guint i = 0; i < entries->len; i++)
    if (natter_session_index_entry_get_error (g_ptr_array_index (entries, i)) != NULL)
      g_error ("errored entry: %s", natter_session_index_entry_get_error (g_ptr_array_index (entries, i)));
  if (out_cpu != NULL)
    *out_cpu = natter_bench_cpu_s () - cpu_start;
  return natter_bench_now () - start;
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!natter_session_index_load_finish (NATTER_SESSION_INDEX (object), result, &error))
    g_error ("%s", error->message);
  *(gboolean *) user_data = TRUE;
}

static void
bench_startup_scan (void)
{
  const char *keep = g_getenv ("NATTER_BENCH_SESSIONS_DIR");
  g_autoptr(GFile) dir = keep != NULL ? g_file_new_for_path (keep) : natter_bench_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(GPtrArray) needed = NULL;
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  const char *bench = "startup scan (10,000 sessions x 20)";
  double generate_s, floor_s, floor_cpu, floor_at_s, floor_at_cpu, one_s, one_cpu, many_s, many_cpu, load_s, start;
  guint64 bytes, lines;
  gint64 rss_before;
  gboolean done = FALSE;

  start = natter_bench_now ();
  needed = generate_or_reuse (storage);
  generate_s = natter_bench_now () - start;

  /* Warm the cache, then measure. */
  read_floor (needed, &bytes, &lines);
  scan (sessions, turns, 0, NULL);
  floor_cpu = natter_bench_cpu_s ();
  floor_s = read_floor (needed, &bytes, &lines);
  floor_cpu = natter_bench_cpu_s () - floor_cpu;
  floor_at_cpu = natter_bench_cpu_s ();
  floor_at_s = read_floor_at (needed);
  floor_at_cpu = natter_bench_cpu_s () - floor_at_cpu;
  rss_before = natter_bench_peak_rss_kib ();
  one_s = scan (sessions, turns, 1, &one_cpu);
  many_s = scan (sessions, turns, 0, &many_cpu);

  start = natter_bench_now ();
  natter_session_index_load_async (index, sessions, turns, NULL, loaded_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  load_s = natter_bench_now () - start;

  natter_bench_row (bench, "sessions", n_sessions, "");
  natter_bench_row (bench, "generate the files (not the scan)", generate_s, "s");
  natter_bench_row (bench, "lines parsed and validated per scan", lines, "");
  natter_bench_row (bench, "bytes read per scan", bytes / 1e6, "MB");
  natter_bench_row (bench, "floor: read session + latest turn files", floor_s * 1000, "ms");
  natter_bench_row (bench, "floor: CPU time", floor_cpu * 1000, "ms");
  natter_bench_row (bench, "floor by name in the directory (openat)", floor_at_s * 1000, "ms");
  natter_bench_row (bench, "floor by name: CPU time", floor_at_cpu * 1000, "ms");
  natter_bench_row (bench, "scan, 1 thread (warm)", one_s * 1000, "ms");
  natter_bench_row (bench, "scan, 1 thread: CPU time", one_cpu * 1000, "ms");
  natter_bench_row (bench, "scan, default threads (warm)", many_s * 1000, "ms");
  natter_bench_row (bench, "scan, default threads: CPU time", many_cpu * 1000, "ms");
  natter_bench_row (bench, "default threads", CLAMP (g_get_num_processors (), 1, 4), "");
  natter_bench_row (bench, "load_async incl. publish (warm)", load_s * 1000, "ms");
  natter_bench_row (bench, "scan 1 thread throughput", bytes / 1e6 / one_s, "MB/s");
  natter_bench_row (bench, "scan default threads throughput", bytes / 1e6 / many_s, "MB/s");
  natter_bench_row (bench, "scan 1 thread / floor", one_s / floor_s, "x");
  natter_bench_row (bench, "scan default threads / floor", many_s / floor_s, "x");
  natter_bench_row (bench, "scan default threads / openat floor", many_s / floor_at_s, "x");
  natter_bench_row (bench, "scan default threads CPU / floor CPU", many_cpu / floor_cpu, "x");
  natter_bench_row (bench, "load_async / floor", load_s / floor_s, "x");
  natter_bench_row (bench, "entries", g_list_model_get_n_items (G_LIST_MODEL (index)), "");
  natter_bench_row (bench, "peak RSS growth during scans", (natter_bench_peak_rss_kib () - rss_before) / 1024.0, "MiB");
  natter_bench_row (bench, "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");

  if (keep == NULL)
    natter_bench_remove_tree (dir);
}

/* The floor of a start with the cache: list the sessions and stat each
 * session file and its latest turn file, what the scan must do to trust
 * the cache, and nothing else; @by_name: each by its name in its
 * directory (fstatat()), as the scan does, rather than by its path. */
static double
stat_floor (NatterJsonlRepo *sessions,
            NatterJsonlRepo *turns,
            GPtrArray       *latest_turns,
            gboolean         by_name)
{
  double start = natter_bench_now ();
  g_auto(GStrv) ids = natter_jsonl_repo_list_ids_sync (sessions, NULL, NULL);
  g_autofree char *dir_path = NULL;
  int dir = -1;
  guint n = 0;

  for (guint k = 0; k < 2; k++)
    for (guint i = 0; k == 0 ? ids[i] != NULL : i < latest_turns->len; i++)
      {
        g_autofree char *path = k == 0 ? natter_jsonl_repo_dup_path (sessions, ids[i], NULL)
                                       : natter_jsonl_repo_dup_path (turns, g_ptr_array_index (latest_turns, i), NULL);
        struct stat info;

        if (by_name)
          n += fstatat (dir, enter_parent (path, &dir_path, &dir), &info, 0) == 0;
        else
          n += stat (path, &info) == 0;
      }
  if (dir >= 0)
    close (dir);
  if (n != 2 * latest_turns->len)
    g_error ("stat floor: %u files, not %u", n, 2 * latest_turns->len);
  return natter_bench_now () - start;
}

static double
cached_scan (NatterJsonlRepo *sessions,
             NatterJsonlRepo *turns,
             GFile           *cache,
             guint           *out_n_read,
             double          *out_cpu,
             GPtrArray      **out_entries)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *entries;
  double cpu_start = natter_bench_cpu_s ();
  double start = natter_bench_now ();
  double elapsed;

  entries = natter_session_index_scan_cached_sync (sessions, turns, cache, 0, FALSE, out_n_read, NULL, &error);
  elapsed = natter_bench_now () - start;
  if (entries == NULL)
    g_error ("scan failed: %s", error->message);
  *out_cpu = natter_bench_cpu_s () - cpu_start;
  if (out_entries != NULL)
    *out_entries = entries;
  else
    g_ptr_array_unref (entries);
  return elapsed;
}

/* 100,000 conversations (3 turns each, in $NATTER_BENCH_DATA_DIR with the
 * other shared data sets): the startup scan without the persisted index
 * cache (every session read) and with it (docs/sessions.md §8.4:
 * every file stat()ed, nothing read), each beside its floor. */
static void
bench_startup_scan_100k (void)
{
  const char *bench = "startup scan (100,000 sessions x 3)";
  g_autoptr(GFile) dir = natter_bench_ensure_sessions (100000, 3);
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GFile) scratch = natter_bench_temp_dir ();
  g_autoptr(GFile) cache = g_file_get_child (scratch, "session-index");
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (storage);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GPtrArray) latest = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GFileInfo) info = NULL;
  double floor_read_s, floor_stat_s, floor_stat_at_s, cold_s, cold_cpu, warm_s, warm_cpu, load_s, start;
  guint64 bytes, lines;
  guint n_read_cold, n_read_warm;
  gboolean done = FALSE;

  /* The cold scan once to warm the page cache and learn the files. */
  cached_scan (sessions, turns, NULL, &n_read_cold, &cold_cpu, &entries);
  for (guint i = 0; i < entries->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (entries, i);
      const char *turn = natter_session_index_entry_get_latest_turn_id (entry);

      if (natter_session_index_entry_get_error (entry) != NULL || turn == NULL)
        g_error ("unexpected entry for %s", natter_session_index_entry_get_session_id (entry));
      g_ptr_array_add (latest, g_strdup (turn));
      g_ptr_array_add (paths, natter_jsonl_repo_dup_path (sessions, natter_session_index_entry_get_session_id (entry),
                                                           NULL));
      g_ptr_array_add (paths, natter_jsonl_repo_dup_path (turns, turn, NULL));
    }

  floor_read_s = read_floor (paths, &bytes, &lines);
  cold_s = cached_scan (sessions, turns, NULL, &n_read_cold, &cold_cpu, NULL);
  /* Writes the cache (not measured), then starts from it. */
  cached_scan (sessions, turns, cache, NULL, &warm_cpu, NULL);
  floor_stat_s = stat_floor (sessions, turns, latest, FALSE);
  floor_stat_at_s = stat_floor (sessions, turns, latest, TRUE);
  warm_s = cached_scan (sessions, turns, cache, &n_read_warm, &warm_cpu, NULL);
  {
    g_autoptr(NatterSessionIndex) index = natter_session_index_new ();

    natter_session_index_set_cache_file (index, cache);
    start = natter_bench_now ();
    natter_session_index_load_async (index, sessions, turns, NULL, loaded_cb, &done);
    while (!done)
      g_main_context_iteration (NULL, TRUE);
    load_s = natter_bench_now () - start;
  }
  info = g_file_query_info (cache, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE, NULL, NULL);

  natter_bench_row (bench, "sessions", entries->len, "");
  natter_bench_row (bench, "floor: read session + latest turn files", floor_read_s * 1000, "ms");
  natter_bench_row (bench, "scan without the cache (warm)", cold_s * 1000, "ms");
  natter_bench_row (bench, "scan without the cache: CPU time", cold_cpu * 1000, "ms");
  natter_bench_row (bench, "scan without the cache / read floor", cold_s / floor_read_s, "x");
  natter_bench_row (bench, "floor: list + stat session + latest turn files", floor_stat_s * 1000, "ms");
  natter_bench_row (bench, "scan with the cache, nothing changed", warm_s * 1000, "ms");
  natter_bench_row (bench, "scan with the cache: CPU time", warm_cpu * 1000, "ms");
  natter_bench_row (bench, "scan with the cache: sessions read", n_read_warm, "");
  natter_bench_row (bench, "scan with the cache / stat floor", warm_s / floor_stat_s, "x");
  natter_bench_row (bench, "floor: list + stat by name (fstatat)", floor_stat_at_s * 1000, "ms");
  natter_bench_row (bench, "scan with the cache / fstatat floor", warm_s / floor_stat_at_s, "x");
  natter_bench_row (bench, "load_async from the cache incl. publish", load_s * 1000, "ms");
  natter_bench_row (bench, "cache file", g_file_info_get_size (info) / 1e6, "MB");
  natter_bench_row (bench, "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");
  natter_bench_remove_tree (scratch);
  if (g_getenv ("NATTER_BENCH_DATA_DIR") == NULL)
    natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "startup-scan-10k", bench_startup_scan },
  { "startup-scan-100k", bench_startup_scan_100k },
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
