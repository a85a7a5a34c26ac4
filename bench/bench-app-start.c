/* bench-app-start.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * App start to first frame: launches the real natter binary of
 * this build (src/ui/natter next to bench/) on a private HOME and data
 * dir, with NATTER_BENCH_FIRST_FRAME=1 so that the app prints the
 * monotonic time of its first painted frame (natter-first-frame-probe.c),
 * and takes the difference with the time just before the spawn. The clock is
 * CLOCK_MONOTONIC in both processes, so the figure covers exec, dynamic
 * linking, GTK start-up, the services and the first paint.
 *
 * The app also prints when it first paints a frame with the session list
 * loaded (list-frame): the list the user sees, not the empty window.
 *
 * empty:        a data dir with no sessions.
 * sessions-10k: 10,000 sessions of 20 turns (kept in $NATTER_BENCH_DATA_DIR
 *               and shared with bench-rss when set), without the persisted
 *               index cache (removed before every launch: every session
 *               is read) and with it (written by the launch before).
 * sessions-100k: 100,000 sessions of 3 turns, the same two ways.
 *
 * One launch first warms the page cache (libraries, the data set); the
 * figures are the median and the fastest of the launches after it. The
 * empty data dir is the floor the others are compared with, measured in
 * the same run.
 */

#define G_LOG_DOMAIN "natter-bench"

#include <signal.h>
#include <stdlib.h>

#include <glib/gstdio.h>

#include "natter-bench.h"
#include "natter-bench-data.h"

#define N_LAUNCHES  3
#define TIMEOUT_S   60
#define BENCH       "app start to first frame"

static char *
build_path (const char *relative)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *bench_dir = g_path_get_dirname (exe);

  return g_build_filename (bench_dir, "..", relative, NULL);
}

typedef struct
{
  GDataInputStream *in;
  gint64            frame_us;
  gint64            list_us;
  gboolean          ended;
} Launch;

static void
line_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Launch *l = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (l->in, result, NULL, NULL);

  if (line == NULL)
    {
      l->ended = TRUE;
      return;
    }
  if (g_str_has_prefix (line, "first-frame "))
    l->frame_us = g_ascii_strtoll (line + strlen ("first-frame "), NULL, 10);
  else if (g_str_has_prefix (line, "list-frame "))
    {
      l->list_us = g_ascii_strtoll (line + strlen ("list-frame "), NULL, 10);
      return;
    }
  g_data_input_stream_read_line_async (l->in, G_PRIORITY_DEFAULT, NULL, line_cb, l);
}

/* Launches natter on @data_dir; returns the seconds from spawn to its
 * first frame, and in @out_list to its first frame with the list. */
static double
launch (const char *data_dir,
        double     *out_list)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr(GFile) home = natter_bench_temp_dir ();
  g_autofree char *home_path = g_file_get_path (home);
  g_autofree char *binary = build_path ("src/ui/natter");
  g_autofree char *schemas = build_path ("data");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  Launch l = { NULL, 0, 0, FALSE };
  gint64 start, deadline;
  const struct { const char *name; const char *subdir; } xdg[] = {
    { "XDG_CONFIG_HOME", "config" }, { "XDG_DATA_HOME", "share" },
    { "XDG_CACHE_HOME", "cache" }, { "XDG_STATE_HOME", "state" },
  };

  g_subprocess_launcher_setenv (launcher, "HOME", home_path, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (xdg); i++)
    {
      g_autofree char *path = g_build_filename (home_path, xdg[i].subdir, NULL);

      g_subprocess_launcher_setenv (launcher, xdg[i].name, path, TRUE);
    }
  g_subprocess_launcher_setenv (launcher, "NATTER_DATA_DIR", data_dir, TRUE);
  g_subprocess_launcher_setenv (launcher, "NATTER_BENCH_FIRST_FRAME", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  /* As the end-to-end suite: the virtual display has no usable GL. */
  g_subprocess_launcher_setenv (launcher, "GDK_DEBUG", "gl-disable", TRUE);
  /* No accessibility bus: dbus-run-session would start one per run and
   * its daemons print to our stdout (a desktop has it running already). */
  g_subprocess_launcher_setenv (launcher, "NO_AT_BRIDGE", "1", TRUE);
  g_subprocess_launcher_setenv (launcher, "GTK_A11Y", "none", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "G_DEBUG");

  start = g_get_monotonic_time ();
  process = g_subprocess_launcher_spawn (launcher, &error, binary, NULL);
  if (process == NULL)
    g_error ("%s: %s", binary, error->message);
  l.in = g_data_input_stream_new (g_subprocess_get_stderr_pipe (process));
  g_data_input_stream_read_line_async (l.in, G_PRIORITY_DEFAULT, NULL, line_cb, &l);
  deadline = start + TIMEOUT_S * G_USEC_PER_SEC;
  while (l.list_us == 0 && !l.ended && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);

  g_subprocess_send_signal (process, SIGTERM);
  if (!g_subprocess_wait (process, NULL, NULL))
    g_subprocess_force_exit (process);
  /* The pending read ends with the pipe. */
  while (!l.ended && l.list_us == 0)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_object_unref (l.in);
  natter_bench_remove_tree (home);
  if (l.frame_us == 0 || l.list_us == 0)
    g_error ("natter showed no first frame with its list within %d s", TIMEOUT_S);
  *out_list = (l.list_us - start) / 1e6;
  return (l.frame_us - start) / 1e6;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The index cache in @data_dir: removed before each launch when
 * @cached is FALSE (every session is read), else kept (the warm-up launch
 * writes it). */
static void
prepare_cache (const char *data_dir,
               gboolean    cached)
{
  g_autofree char *path = g_build_filename (data_dir, "cache", "session-index", NULL);

  if (!cached)
    g_unlink (path);
}

/* The median and fastest of N_LAUNCHES after a warm-up one; returns the
 * median time to the first frame with the list. */
static double
measure (const char *data_dir,
         const char *what,
         gboolean    cached)
{
  double times[N_LAUNCHES];
  double lists[N_LAUNCHES];
  g_autofree char *median = g_strdup_printf ("%s: first frame, median", what);
  g_autofree char *fastest = g_strdup_printf ("%s: first frame, fastest", what);
  g_autofree char *list_median = g_strdup_printf ("%s: list shown, median", what);
  g_autofree char *list_fastest = g_strdup_printf ("%s: list shown, fastest", what);

  prepare_cache (data_dir, cached);
  launch (data_dir, &lists[0]);
  for (guint i = 0; i < N_LAUNCHES; i++)
    {
      prepare_cache (data_dir, cached);
      times[i] = launch (data_dir, &lists[i]);
    }
  qsort (times, N_LAUNCHES, sizeof times[0], compare_doubles);
  qsort (lists, N_LAUNCHES, sizeof lists[0], compare_doubles);
  natter_bench_row (BENCH, median, times[N_LAUNCHES / 2] * 1000, "ms");
  natter_bench_row (BENCH, fastest, times[0] * 1000, "ms");
  natter_bench_row (BENCH, list_median, lists[N_LAUNCHES / 2] * 1000, "ms");
  natter_bench_row (BENCH, list_fastest, lists[0] * 1000, "ms");
  return lists[N_LAUNCHES / 2];
}

static double
measure_empty (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autofree char *path = g_file_get_path (dir);
  double list;

  list = measure (path, "floor: empty data dir", FALSE);
  natter_bench_remove_tree (dir);
  return list;
}

static void
bench_empty (void)
{
  measure_empty ();
}

/* @n_sessions × @n_turns, without the cache and with it, beside the empty
 * start of the same run. */
static void
bench_sessions (guint       n_sessions,
                guint       n_turns,
                const char *label)
{
  g_autoptr(GFile) dir = natter_bench_ensure_sessions (n_sessions, n_turns);
  g_autofree char *path = g_file_get_path (dir);
  g_autofree char *uncached = g_strdup_printf ("%s, no cache", label);
  g_autofree char *cached = g_strdup_printf ("%s, cached", label);
  g_autofree char *ratio = g_strdup_printf ("%s, cached: list shown / empty", label);
  double empty = measure_empty ();
  double list;

  measure (path, uncached, FALSE);
  list = measure (path, cached, TRUE);
  natter_bench_row (BENCH, ratio, list / empty, "x");
  if (g_getenv ("NATTER_BENCH_DATA_DIR") == NULL)
    natter_bench_remove_tree (dir);
}

static void
bench_10k (void)
{
  bench_sessions (10000, 20, "10,000 sessions");
}

static void
bench_100k (void)
{
  bench_sessions (100000, 3, "100,000 sessions");
}

static const NatterBenchCase cases[] = {
  { "empty", bench_empty },
  { "sessions-10k", bench_10k },
  { "sessions-100k", bench_100k },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
