/* bench-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The command line as a user runs it: the real natter binary of this
 * build (src/ui/natter next to bench/), display-free, on a private HOME
 * and on the 10,000-session data set ($NATTER_BENCH_DATA_DIR, shared with
 * bench-rss and bench-app-start). Each command is waited for with
 * wait4(), so its peak RSS and CPU time are its own; the dynamic linker
 * reports every shared object it maps (LD_DEBUG=files, dlopen() included)
 * into a file of its own, which is counted.
 *
 * sessions-10k: `natter sessions` and `natter sessions --json` over
 *   10,000 sessions × 20 turns: wall and CPU time (median of 3 after one
 *   warm-up), peak RSS, shared objects mapped and whether poppler is one
 *   of them. Floor: `natter sessions` on an empty data dir, the cost of
 *   the process itself.
 */

#define G_LOG_DOMAIN "natter-bench"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-bench.h"
#include "natter-bench-data.h"

#define N_RUNS 3
#define BENCH  "cli"

static char *
build_path (const char *relative)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *bench_dir = g_path_get_dirname (exe);

  return g_build_filename (bench_dir, "..", relative, NULL);
}

typedef struct
{
  double wall_ms;
  double cpu_ms;
  double peak_rss_mib;
  guint  n_objects;
  gboolean poppler;
} Run;

/* Counts the objects the dynamic linker reported mapping in the files
 * LD_DEBUG_OUTPUT=@trace made (@trace.PID), and removes them. */
static void
count_objects (const char *trace,
               Run        *run)
{
  g_autofree char *dir_path = g_path_get_dirname (trace);
  g_autofree char *prefix = g_strconcat (strrchr (trace, '/') + 1, ".", NULL);
  GDir *dir = g_dir_open (dir_path, 0, NULL);

  run->n_objects = 0;
  run->poppler = FALSE;
  for (const char *name; dir != NULL && (name = g_dir_read_name (dir)) != NULL;)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);
      g_autofree char *contents = NULL;
      g_auto(GStrv) lines = NULL;

      if (!g_str_has_prefix (name, prefix) || !g_file_get_contents (path, &contents, NULL, NULL))
        continue;
      lines = g_strsplit (contents, "\n", -1);
      for (guint i = 0; lines[i] != NULL; i++)
        if (strstr (lines[i], "file=") != NULL && strstr (lines[i], "generating link map") != NULL)
          {
            run->n_objects++;
            run->poppler |= strstr (lines[i], "libpoppler") != NULL;
          }
      g_unlink (path);
    }
  if (dir != NULL)
    g_dir_close (dir);
}

/* Runs `natter @args…` on @data_dir with its output thrown away. */
static Run
run_natter (const char         *data_dir,
            const char * const *args)
{
  g_autoptr(GFile) home = natter_bench_temp_dir ();
  g_autofree char *home_path = g_file_get_path (home);
  g_autofree char *binary = build_path ("src/ui/natter");
  g_autofree char *schemas = build_path ("data");
  g_autofree char *trace = g_build_filename (home_path, "ld", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  struct rusage usage;
  GPid pid;
  int status;
  int out_fd;
  double start;
  Run run = { 0 };

  env = g_environ_setenv (env, "HOME", home_path, TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", home_path, TRUE);
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", home_path, TRUE);
  env = g_environ_setenv (env, "NATTER_DATA_DIR", data_dir, TRUE);
  env = g_environ_setenv (env, "GSETTINGS_SCHEMA_DIR", schemas, TRUE);
  env = g_environ_setenv (env, "GSETTINGS_BACKEND", "memory", TRUE);
  env = g_environ_setenv (env, "LD_DEBUG", "files", TRUE);
  env = g_environ_setenv (env, "LD_DEBUG_OUTPUT", trace, TRUE);
  /* Its own primary, never forwarded to a window. */
  env = g_environ_unsetenv (env, "DISPLAY");
  env = g_environ_unsetenv (env, "WAYLAND_DISPLAY");
  env = g_environ_unsetenv (env, "DBUS_SESSION_BUS_ADDRESS");
  env = g_environ_unsetenv (env, "G_DEBUG");

  g_ptr_array_add (argv, binary);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  start = natter_bench_now ();
  if (!g_spawn_async_with_pipes (NULL, (char **) argv->pdata, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                                 &pid, NULL, &out_fd, NULL, &error))
    g_error ("%s: %s", binary, error->message);
  /* Read what it prints, as a terminal or a pipe would. */
  for (;;)
    {
      char buffer[65536];
      gssize n = read (out_fd, buffer, sizeof buffer);

      if (n <= 0)
        break;
    }
  close (out_fd);
  if (wait4 (pid, &status, 0, &usage) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("natter %s failed", args[0]);
  run.wall_ms = (natter_bench_now () - start) * 1000;
  run.cpu_ms = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
               (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
  run.peak_rss_mib = usage.ru_maxrss / 1024.0;
  count_objects (trace, &run);
  natter_bench_remove_tree (home);
  return run;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

/* One warm-up, then N_RUNS: the median wall and CPU time, the largest
 * peak RSS; the rows are headed by @what. Returns the peak RSS. */
static double
measure (const char         *data_dir,
         const char         *what,
         const char * const *args)
{
  double wall[N_RUNS], cpu[N_RUNS];
  double rss = 0;
  Run run = run_natter (data_dir, args);
  g_autofree char *wall_name = g_strdup_printf ("%s: wall, median", what);
  g_autofree char *cpu_name = g_strdup_printf ("%s: CPU, median", what);
  g_autofree char *rss_name = g_strdup_printf ("%s: peak RSS", what);
  g_autofree char *objects_name = g_strdup_printf ("%s: shared objects", what);
  g_autofree char *poppler_name = g_strdup_printf ("%s: poppler mapped", what);

  for (guint i = 0; i < N_RUNS; i++)
    {
      run = run_natter (data_dir, args);
      wall[i] = run.wall_ms;
      cpu[i] = run.cpu_ms;
      rss = MAX (rss, run.peak_rss_mib);
    }
  qsort (wall, N_RUNS, sizeof wall[0], compare_doubles);
  qsort (cpu, N_RUNS, sizeof cpu[0], compare_doubles);
  natter_bench_row (BENCH, wall_name, wall[N_RUNS / 2], "ms");
  natter_bench_row (BENCH, cpu_name, cpu[N_RUNS / 2], "ms");
  natter_bench_row (BENCH, rss_name, rss, "MiB");
  natter_bench_row (BENCH, objects_name, run.n_objects, "");
  natter_bench_row (BENCH, poppler_name, run.poppler, "");
  return rss;
}

static void
bench_sessions_10k (void)
{
  const char * const text[] = { "sessions", NULL };
  const char * const json[] = { "sessions", "--json", NULL };
  g_autoptr(GFile) empty = natter_bench_temp_dir ();
  g_autofree char *empty_path = g_file_get_path (empty);
  g_autoptr(GFile) dir = natter_bench_ensure_sessions (10000, 20);
  g_autofree char *path = g_file_get_path (dir);
  double floor_rss, text_rss, json_rss;

  floor_rss = measure (empty_path, "floor: sessions, no session", text);
  text_rss = measure (path, "sessions, 10,000", text);
  json_rss = measure (path, "sessions --json, 10,000", json);
  natter_bench_row (BENCH, "sessions RSS / floor", text_rss / floor_rss, "x");
  natter_bench_row (BENCH, "sessions --json RSS / sessions RSS", json_rss / text_rss, "x");
  natter_bench_remove_tree (empty);
  if (g_getenv ("NATTER_BENCH_DATA_DIR") == NULL)
    natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "sessions-10k", bench_sessions_10k },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
