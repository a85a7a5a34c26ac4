/* bench-rss.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Memory with 10,000 sessions: the process's resident set after
 * NatterServices has loaded the index of 10,000 sessions of 20 turns
 * (docs/sessions.md §8.2), as the app holds it for its sidebar.
 * Floor: the resident set of the same process before the load (GLib and
 * the types initialized, nothing read).
 *
 * The data set is generated in a child process, so that generating it
 * does not count in this process's peak; with NATTER_BENCH_DATA_DIR set
 * it is kept there and reused (bench/run shares it with bench-app-start).
 */

#define G_LOG_DOMAIN "natter-bench"


#include "natter-bench.h"
#include "natter-bench-data.h"
#include "natter-services.h"

#define N_SESSIONS 10000
#define N_TURNS    20
#define BENCH      "RSS with 10,000 sessions"

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!natter_services_load_finish (NATTER_SERVICES (object), result, &error))
    g_error ("load: %s", error->message);
  *(gboolean *) user_data = TRUE;
}

static void
generate_sessions (gpointer data)
{
  g_autoptr(GFile) dir = natter_bench_ensure_sessions (N_SESSIONS, N_TURNS);
}

static void
bench_index_10k (void)
{
  const char *keep = g_getenv ("NATTER_BENCH_DATA_DIR");
  g_autofree char *temp = NULL;
  g_autoptr(GFile) data_dir = NULL;
  g_autoptr(NatterServices) services = NULL;
  double empty_kib, empty_hwm_kib, loaded_kib, start, load_s;
  gboolean done = FALSE;

  if (keep == NULL)
    {
      temp = g_dir_make_tmp ("natter-bench-XXXXXX", NULL);
      g_setenv ("NATTER_BENCH_DATA_DIR", temp, TRUE);
    }
  natter_bench_run_in_child ("generating the sessions", generate_sessions, NULL);
  data_dir = natter_bench_ensure_sessions (N_SESSIONS, N_TURNS);

  g_type_ensure (NATTER_TYPE_SERVICES);
  empty_kib = natter_bench_status_kib ("VmRSS");
  empty_hwm_kib = natter_bench_status_kib ("VmHWM");

  services = natter_services_new (data_dir, NULL, NULL, NULL, NULL);
  start = natter_bench_now ();
  natter_services_load_async (services, NULL, loaded_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  load_s = natter_bench_now () - start;
  loaded_kib = natter_bench_status_kib ("VmRSS");
  if (g_list_model_get_n_items (G_LIST_MODEL (natter_services_get_index (services))) != N_SESSIONS)
    g_error ("the index holds %u sessions",
             g_list_model_get_n_items (G_LIST_MODEL (natter_services_get_index (services))));

  natter_bench_row (BENCH, "floor: RSS of the empty process", empty_kib / 1024, "MiB");
  natter_bench_row (BENCH, "floor: peak RSS before the load", empty_hwm_kib / 1024, "MiB");
  natter_bench_row (BENCH, "services load", load_s * 1000, "ms");
  natter_bench_row (BENCH, "RSS after the load", loaded_kib / 1024, "MiB");
  natter_bench_row (BENCH, "peak RSS (VmHWM)", natter_bench_status_kib ("VmHWM") / 1024, "MiB");
  natter_bench_row (BENCH, "RSS growth per session", (loaded_kib - empty_kib) * 1024 / N_SESSIONS, "bytes");
  natter_bench_row (BENCH, "RSS after load / empty process", loaded_kib / empty_kib, "x");

  if (temp != NULL)
    {
      g_autoptr(GFile) dir = g_file_new_for_path (temp);

      g_clear_object (&services);
      natter_bench_remove_tree (dir);
    }
}

static const NatterBenchCase cases[] = {
  { "index-10k", bench_index_10k },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
