/* bench-import.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Importing a large ChatGPT export (`natter import --from chatgpt`): a
 * generated `conversations.json` of about 88 MB (1,500 conversations of
 * 20 exchanges, each message with the metadata a real export carries)
 * imported through the session service into an empty data directory.
 * Figures: the wall time and the peak resident set (VmHWM) of the import.
 * Floors, measured in the same run: reading the same file with plain
 * `read()` (time), and the resident set before the import and the file's
 * size (memory: whoever holds the whole document as text needs its size
 * at least, and as a JSON tree several times that).
 *
 * The export is written in a child process, so that writing it does not
 * count in this process's peak. The program uses only what every version
 * of the import offers, so that bench/compare can run it on both sides.
 */

#define G_LOG_DOMAIN "natter-bench"

#include <fcntl.h>

#include "natter-bench.h"
#include "natter-services.h"

#define N_CONVERSATIONS 1500
#define N_EXCHANGES     20
#define BENCH           "Import an 88 MB ChatGPT export"

/* Some words, so that the text is text. */
static const char *const words[] = {
  "fjord", "weather", "the", "a", "summer", "mountain", "and", "train", "Bergen", "Oslo", "ferry", "ticket",
  "morning", "of", "to", "in", "light", "northern", "walk", "coffee", "map", "harbour", "bridge", "island",
};

static void
append_text (GString *out,
             guint    seed,
             guint    n_words)
{
  for (guint i = 0; i < n_words; i++)
    {
      seed = seed * 1103515245u + 12345u;
      g_string_append_printf (out, "%s%s", i > 0 ? " " : "", words[(seed >> 16) % G_N_ELEMENTS (words)]);
    }
  g_string_append_c (out, '.');
}

static void
append_message (GString    *out,
                const char *id,
                const char *parent,
                const char *child,
                const char *role,
                double      time,
                guint       seed)
{
  g_string_append_printf (out,
    "\"%s\":{\"id\":\"%s\",\"message\":{\"id\":\"%s\",\"author\":{\"role\":\"%s\",\"name\":null,\"metadata\":{}},"
    "\"create_time\":%.3f,\"update_time\":null,\"content\":{\"content_type\":\"text\",\"parts\":[\"",
    id, id, id, role, time);
  append_text (out, seed, g_str_equal (role, "user") ? 40 : 300);
  g_string_append_printf (out,
    "\"]},\"status\":\"finished_successfully\",\"end_turn\":%s,\"weight\":1.0,"
    "\"metadata\":{\"model_slug\":\"gpt-4o\",\"finish_details\":{\"type\":\"stop\",\"stop_tokens\":[200002]},"
    "\"citations\":[],\"content_references\":[],\"message_type\":null,\"request_id\":\"8c1f2e3d4b5a6978-OSL\","
    "\"timestamp_\":\"absolute\"},\"recipient\":\"all\",\"channel\":null},\"parent\":%s%s%s,\"children\":[",
    g_str_equal (role, "assistant") ? "true" : "null", parent != NULL ? "\"" : "", parent != NULL ? parent : "null",
    parent != NULL ? "\"" : "");
  if (child != NULL)
    g_string_append_printf (out, "\"%s\"", child);
  g_string_append (out, "]}");
}

/* Writes the export to @path, one conversation at a time. */
static void
write_export (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) out = g_string_new (NULL);

  stream = g_file_replace (file, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error);
  if (stream == NULL)
    g_error ("%s", error->message);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "[", 1, NULL, NULL, &error);
  for (guint c = 0; c < N_CONVERSATIONS && error == NULL; c++)
    {
      double start = 1700000000.0 + c * 3600.0;
      g_autofree char *previous = NULL;

      g_string_truncate (out, 0);
      g_string_append_printf (out, "%s{\"title\":\"Conversation %u\",\"create_time\":%.3f,\"update_time\":%.3f,"
                              "\"mapping\":{", c > 0 ? "," : "", c, start, start + 600.0);
      for (guint m = 0; m < 2 * N_EXCHANGES; m++)
        {
          g_autofree char *id = g_strdup_printf ("c%u-m%u", c, m);
          g_autofree char *next = m + 1 < 2 * N_EXCHANGES ? g_strdup_printf ("c%u-m%u", c, m + 1) : NULL;

          if (m > 0)
            g_string_append_c (out, ',');
          append_message (out, id, previous, next, m % 2 == 0 ? "user" : "assistant", start + m, c * 1000 + m);
          g_free (previous);
          previous = g_steal_pointer (&id);
        }
      g_string_append_printf (out, "},\"moderation_results\":[],\"current_node\":\"%s\",\"plugin_ids\":null,"
                              "\"conversation_id\":\"%08x-0000-4000-8000-%012u\",\"conversation_template_id\":null,"
                              "\"gizmo_id\":null,\"is_archived\":false,\"safe_urls\":[],"
                              "\"default_model_slug\":\"gpt-4o\",\"id\":\"%08x-0000-4000-8000-%012u\"}",
                              previous, c, c, c, c);
      g_output_stream_write_all (G_OUTPUT_STREAM (stream), out->str, out->len, NULL, NULL, &error);
    }
  if (error == NULL)
    g_output_stream_write_all (G_OUTPUT_STREAM (stream), "]\n", 2, NULL, NULL, &error);
  if (error == NULL)
    g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  if (error != NULL)
    g_error ("%s", error->message);
}

static void
write_export_in_child (gpointer path)
{
  write_export (path);
}

/* The floor of the time: the same bytes read with read(). */
static double
read_floor_s (const char *path)
{
  g_autofree char *buffer = g_malloc (1 << 20);
  double start = natter_bench_now ();
  int fd = open (path, O_RDONLY);

  if (fd < 0)
    g_error ("cannot open %s", path);
  while (read (fd, buffer, 1 << 20) > 0)
    ;
  close (fd);
  return natter_bench_now () - start;
}

static void
imported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* What the import returns differs between versions; the index says
   * what it made. */
  (void) natter_sessions_import_finish (NATTER_SESSIONS (object), result, &error);
  if (error != NULL)
    g_error ("import: %s", error->message);
  *(gboolean *) user_data = TRUE;
}

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
bench_chatgpt_88mb (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(GFile) data_dir = g_file_get_child (dir, "data");
  g_autoptr(GFile) export = g_file_get_child (dir, "conversations.json");
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(GFileInfo) info = NULL;
  double before_kib, file_mib, floor_s, start, import_s, peak_kib;
  gboolean done = FALSE;
  guint n;

  natter_bench_run_in_child ("writing the export", write_export_in_child, (gpointer) g_file_peek_path (export));
  info = g_file_query_info (export, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE, NULL, NULL);
  file_mib = (double) g_file_info_get_size (info) / (1024 * 1024);
  floor_s = read_floor_s (g_file_peek_path (export));

  services = natter_services_new (data_dir, NULL, NULL, NULL, NULL);
  natter_services_load_async (services, NULL, loaded_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  before_kib = natter_bench_status_kib ("VmRSS");

  done = FALSE;
  start = natter_bench_now ();
  natter_sessions_import_async (natter_services_get_sessions (services), export, "chatgpt", NULL, imported_cb,
                                &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
  import_s = natter_bench_now () - start;
  peak_kib = natter_bench_status_kib ("VmHWM");
  n = g_list_model_get_n_items (G_LIST_MODEL (natter_services_get_index (services)));
  if (n != N_CONVERSATIONS)
    g_error ("the index holds %u sessions", n);

  natter_bench_row (BENCH, "floor: size of the export", file_mib, "MiB");
  natter_bench_row (BENCH, "floor: RSS before the import", before_kib / 1024, "MiB");
  natter_bench_row (BENCH, "floor: read() of the export", floor_s * 1000, "ms");
  natter_bench_row (BENCH, "import", import_s * 1000, "ms");
  natter_bench_row (BENCH, "import / read()", import_s / floor_s, "x");
  natter_bench_row (BENCH, "peak RSS (VmHWM)", peak_kib / 1024, "MiB");
  natter_bench_row (BENCH, "peak growth over RSS before", (peak_kib - before_kib) / 1024, "MiB");
  natter_bench_row (BENCH, "peak growth / export size", (peak_kib - before_kib) / 1024 / file_mib, "x");

  g_clear_object (&services);
  natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "chatgpt-88mb", bench_chatgpt_88mb },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
