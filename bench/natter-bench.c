/* natter-bench.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <glib/gstdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "natter-bench.h"

double
natter_bench_now (void)
{
  return (double) g_get_monotonic_time () / G_USEC_PER_SEC;
}

/* User + system CPU time of the whole process (every thread) so far, in
 * seconds: unlike wall time it does not grow when other work shares the
 * cores, so it is the figure to compare between runs on a busy machine. */
double
natter_bench_cpu_s (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

gint64
natter_bench_peak_rss_kib (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

/* A field of /proc/self/status in KiB (VmRSS: now, VmHWM: peak). */
double
natter_bench_status_kib (const char *field)
{
  g_autofree char *status = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    g_error ("cannot read /proc/self/status");
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], field) && lines[i][strlen (field)] == ':')
      return g_ascii_strtod (lines[i] + strlen (field) + 1, NULL);
  g_error ("no %s in /proc/self/status", field);
}

/* One row of the table bench/run prints: bench, figure, value, unit. */
void
natter_bench_row (const char *bench,
                  const char *figure,
                  double      value,
                  const char *unit)
{
  g_print ("%-34s %-38s %14.2f %s\n", bench, figure, value, unit);
}

GFile *
natter_bench_temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_dir_make_tmp ("natter-bench-XXXXXX", &error);

  if (path == NULL)
    g_error ("%s", error->message);
  return g_file_new_for_path (path);
}

static void
remove_path (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);

  if (dir == NULL)
    {
      g_unlink (path);
      return;
    }
  for (const char *name; (name = g_dir_read_name (dir)) != NULL;)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      remove_path (child);
    }
  g_dir_close (dir);
  g_rmdir (path);
}

void
natter_bench_remove_tree (GFile *dir)
{
  g_autofree char *path = g_file_get_path (dir);

  remove_path (path);
}

/* Runs @func (@data) in a child process and waits for it; fails the
 * benchmark, naming @what, unless the child ran to its end. What the
 * child allocates (the generated data a case reads) stays out of the
 * peak RSS of the case, which is the parent's. */
void
natter_bench_run_in_child (const char           *what,
                           NatterBenchChildFunc  func,
                           gpointer              data)
{
  pid_t child = fork ();
  int status;

  if (child == 0)
    {
      func (data);
      _exit (0);
    }
  if (child < 0 || waitpid (child, &status, 0) != child || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s failed", what);
}

/* The main() of a benchmark program: `--list` prints its cases, one
 * case's name runs that case alone, so that the peak RSS it reports is
 * its own. */
int
natter_bench_main (int                    argc,
                   char                 **argv,
                   const NatterBenchCase *cases,
                   guint                  n_cases)
{
  if (argc == 2 && g_str_equal (argv[1], "--list"))
    {
      for (guint i = 0; i < n_cases; i++)
        g_print ("%s\n", cases[i].name);
      return 0;
    }
  for (guint i = 0; i < n_cases; i++)
    if (argc == 2 && g_str_equal (argv[1], cases[i].name))
      {
        cases[i].run ();
        return 0;
      }
  g_printerr ("usage: %s --list | CASE\n", argv[0]);
  return 2;
}
