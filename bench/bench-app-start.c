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
 * empty: a data dir with no sessions.
 * 10k:   10,000 sessions of 20 turns (kept in $NATTER_BENCH_DATA_DIR and
 *        shared with bench-rss when set).
 *
 * One launch first warms the page cache (libraries, the data set); the
 * figures are the median and the fastest of the launches after it.
 * No floor: nothing cheaper does the same work; the empty data dir is
 * the reference the 10,000 sessions are compared with.
 */

#define G_LOG_DOMAIN "natter-bench"

#include <signal.h>
#include <stdlib.h>

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
    {
      l->frame_us = g_ascii_strtoll (line + strlen ("first-frame "), NULL, 10);
      return;
    }
  g_data_input_stream_read_line_async (l->in, G_PRIORITY_DEFAULT, NULL, line_cb, l);
}

/* Launches natter on @data_dir; returns the seconds from spawn to its
 * first frame. */
static double
launch (const char *data_dir)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE |
                                                                       G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr(GFile) home = natter_bench_temp_dir ();
  g_autofree char *home_path = g_file_get_path (home);
  g_autofree char *binary = build_path ("src/ui/natter");
  g_autofree char *schemas = build_path ("data");
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  Launch l = { NULL, 0, FALSE };
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
  while (l.frame_us == 0 && !l.ended && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);

  g_subprocess_send_signal (process, SIGTERM);
  if (!g_subprocess_wait (process, NULL, NULL))
    g_subprocess_force_exit (process);
  /* The pending read ends with the pipe. */
  while (!l.ended && l.frame_us == 0)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_object_unref (l.in);
  natter_bench_remove_tree (home);
  if (l.frame_us == 0)
    g_error ("natter showed no first frame within %d s", TIMEOUT_S);
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

static void
measure (const char *data_dir,
         const char *what)
{
  double times[N_LAUNCHES];
  g_autofree char *median = g_strdup_printf ("%s: median of %d", what, N_LAUNCHES);
  g_autofree char *fastest = g_strdup_printf ("%s: fastest", what);

  launch (data_dir);
  for (guint i = 0; i < N_LAUNCHES; i++)
    times[i] = launch (data_dir);
  qsort (times, N_LAUNCHES, sizeof times[0], compare_doubles);
  natter_bench_row (BENCH, median, times[N_LAUNCHES / 2] * 1000, "ms");
  natter_bench_row (BENCH, fastest, times[0] * 1000, "ms");
}

static void
bench_empty (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autofree char *path = g_file_get_path (dir);

  measure (path, "empty data dir");
  natter_bench_remove_tree (dir);
}

static void
bench_10k (void)
{
  g_autoptr(GFile) dir = natter_bench_ensure_sessions (10000, 20);
  g_autofree char *path = g_file_get_path (dir);

  measure (path, "10,000 sessions");
  if (g_getenv ("NATTER_BENCH_DATA_DIR") == NULL)
    natter_bench_remove_tree (dir);
}

static const struct
{
  const char *name;
  void      (*run) (void);
} cases[] = {
  { "empty", bench_empty },
  { "sessions-10k", bench_10k },
};

int
main (int   argc,
      char *argv[])
{
  if (argc == 2 && g_str_equal (argv[1], "--list"))
    {
      for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
        g_print ("%s\n", cases[i].name);
      return 0;
    }
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    if (argc == 2 && g_str_equal (argv[1], cases[i].name))
      {
        cases[i].run ();
        return 0;
      }
  g_printerr ("usage: %s --list | CASE\n", argv[0]);
  return 2;
}
