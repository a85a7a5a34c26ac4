/* bench-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Store figures (issue "Foundation"): reducing a 100,000-event turn and a
 * 10,000-turn session, and appending 10,000 events one batch at a time —
 * each against a floor measured in the same run.
 */

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "natter-bench.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-turn-reducer.h"

#define TURN_ID    "2026-11-30T09-14-03Z-0000042-000"
#define SESSION_ID "2026-11-30T09-14-03Z-0000041-000"
#define TS         "2026-11-30T09:14:03.120Z"

static JsonNode *
event_from_printf (const char *format,
                   ...) G_GNUC_PRINTF (1, 2);

static JsonNode *
event_from_printf (const char *format,
                   ...)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *json = NULL;
  JsonNode *node;
  va_list args;

  va_start (args, format);
  json = g_strdup_vprintf (format, args);
  va_end (args);
  node = json_from_string (json, &error);
  if (node == NULL)
    g_error ("bad fixture: %s", error->message);
  return node;
}

/* A valid turn of @n_events events: turn_created, then cycles of a model
 * call returning one sync tool call, its invocation and its result. */
static GPtrArray *
make_turn_events (guint n_events)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  g_ptr_array_add (events, event_from_printf (
    "{\"type\":\"turn_created\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
    "\"sessionId\":null,\"agent\":{\"requested\":{\"agentId\":\"default\"},\"resolved\":{"
    "\"agentId\":\"default\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},"
    "\"systemPrompt\":\"Be brief.\",\"tools\":[{\"toolId\":\"builtin.time\",\"name\":\"current_time\","
    "\"description\":\"Time\",\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\","
    "\"requiresHuman\":false}]}},\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Hi\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":1000000}}"));

  for (guint call = 0; events->len + 4 <= n_events; call++)
    {
      if (call == 0)
        g_ptr_array_add (events, event_from_printf (
          "{\"type\":\"model_call_requested\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\","
          "\"modelCallIndex\":0,\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}"));
      else
        g_ptr_array_add (events, event_from_printf (
          "{\"type\":\"model_call_requested\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\","
          "\"modelCallIndex\":%u,\"request\":{\"messages\":[\"assistant:%u\",\"toolResult:c%u\"],"
          "\"parameters\":{}}}", call, call - 1, call - 1));
      g_ptr_array_add (events, event_from_printf (
        "{\"type\":\"model_call_completed\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\","
        "\"modelCallIndex\":%u,\"message\":{\"role\":\"assistant\",\"content\":["
        "{\"type\":\"text\",\"text\":\"Let me check the time.\"},"
        "{\"type\":\"tool-call\",\"toolCallId\":\"c%u\",\"toolName\":\"current_time\",\"arguments\":{}}]},"
        "\"finishReason\":\"tool_calls\",\"usage\":{\"inputTokens\":10,\"outputTokens\":5}}", call, call));
      g_ptr_array_add (events, event_from_printf (
        "{\"type\":\"tool_invocation_requested\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\","
        "\"toolCallId\":\"c%u\",\"toolId\":\"builtin.time\",\"toolName\":\"current_time\","
        "\"execution\":\"sync\",\"input\":{}}", call));
      g_ptr_array_add (events, event_from_printf (
        "{\"type\":\"tool_result\",\"turnId\":\"" TURN_ID "\",\"ts\":\"" TS "\",\"toolCallId\":\"c%u\","
        "\"toolName\":\"current_time\",\"source\":\"sync\",\"result\":{\"output\":\"09:14\",\"isError\":false}}",
        call));
    }
  return events;
}

static GPtrArray *
make_session_events (guint n_turns)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);

  g_ptr_array_add (events, natter_session_event_new_created (SESSION_ID, TS, "Bench", NULL, NULL, NULL));
  for (guint i = 0; i < n_turns; i++)
    {
      g_autofree char *turn_id = natter_id_generator_next (ids);
      g_autoptr(JsonObject) model = json_object_new ();

      json_object_set_string_member (model, "provider", "ollama");
      json_object_set_string_member (model, "model", "llama3");
      g_ptr_array_add (events, natter_session_event_new_turn_appended (SESSION_ID, TS, turn_id,
                                                                       i + 1, "default", model));
    }
  return events;
}

/* Writes @events as the file of @id: the created event through create,
 * the rest in one append. */
static void
write_log (NatterJsonlRepo *repo,
           const char      *id,
           GPtrArray       *events)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rest = g_ptr_array_new ();

  if (!natter_jsonl_repo_create_sync (repo, id, g_ptr_array_index (events, 0), NULL, &error))
    g_error ("%s", error->message);
  for (guint i = 1; i < events->len; i++)
    g_ptr_array_add (rest, g_ptr_array_index (events, i));
  if (!natter_jsonl_repo_append_sync (repo, id, rest, NULL, &error))
    g_error ("%s", error->message);
}

static double
cat_seconds (GFile *file)
{
  g_autofree char *path = g_file_get_path (file);
  char buffer[65536];
  double start = natter_bench_now ();
  int fd = open (path, O_RDONLY);

  while (read (fd, buffer, sizeof buffer) > 0)
    ;
  close (fd);
  return natter_bench_now () - start;
}

/* A second floor: json-glib parsing every line of the file and nothing
 * else, the least any strict reader built on json-glib can do. */
static double
parse_only_seconds (GFile *file)
{
  g_autofree char *contents = NULL;
  gsize length = 0;
  double start;
  char *line;

  g_file_load_contents (file, NULL, &contents, &length, NULL, NULL);
  start = natter_bench_now ();
  line = contents;
  while (line < contents + length)
    {
      char *end = memchr (line, '\n', contents + length - line);
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();

      json_parser_load_from_data (parser, line, end - line, NULL);
      line = end + 1;
    }
  return natter_bench_now () - start;
}

static void
bench_reduce_turn (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_turn_repo_new (dir);
  g_autoptr(GPtrArray) events = make_turn_events (100000);
  g_autoptr(GPtrArray) read_back = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  gint64 rss_before = natter_bench_peak_rss_kib ();
  double start, reduce_s, read_s, floor_s, parse_s;

  write_log (repo, TURN_ID, events);
  file = natter_jsonl_repo_get_file (repo, TURN_ID, NULL);
  floor_s = cat_seconds (file);
  parse_s = parse_only_seconds (file);

  start = natter_bench_now ();
  read_back = natter_jsonl_repo_read_sync (repo, TURN_ID, NULL, &error);
  read_s = natter_bench_now () - start;
  if (read_back == NULL)
    g_error ("%s", error->message);

  start = natter_bench_now ();
  state = natter_turn_reduce (read_back, &error);
  reduce_s = natter_bench_now () - start;
  if (state == NULL)
    g_error ("%s", error->message);

  natter_bench_row ("reduce turn (100,000 events)", "reduce only", reduce_s * 1000, "ms");
  natter_bench_row ("reduce turn (100,000 events)", "strict read (validate every line)", read_s * 1000, "ms");
  natter_bench_row ("reduce turn (100,000 events)", "floor: read the file (cat)", floor_s * 1000, "ms");
  natter_bench_row ("reduce turn (100,000 events)", "floor: json-glib parse of every line", parse_s * 1000, "ms");
  natter_bench_row ("reduce turn (100,000 events)", "strict read / json-glib parse", read_s / parse_s, "x");
  natter_bench_row ("reduce turn (100,000 events)", "read + reduce / floor (cat)", (read_s + reduce_s) / floor_s, "x");
  natter_bench_row ("reduce turn (100,000 events)", "peak RSS growth", (natter_bench_peak_rss_kib () - rss_before) / 1024.0, "MiB");
  natter_bench_remove_tree (dir);
}

static void
bench_reduce_session (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (dir);
  g_autoptr(GPtrArray) events = make_session_events (10000);
  g_autoptr(GPtrArray) read_back = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  gint64 rss_before = natter_bench_peak_rss_kib ();
  double start, reduce_s, read_s, floor_s;

  write_log (repo, SESSION_ID, events);
  file = natter_jsonl_repo_get_file (repo, SESSION_ID, NULL);
  floor_s = cat_seconds (file);

  start = natter_bench_now ();
  read_back = natter_jsonl_repo_read_sync (repo, SESSION_ID, NULL, &error);
  read_s = natter_bench_now () - start;
  if (read_back == NULL)
    g_error ("%s", error->message);

  start = natter_bench_now ();
  state = natter_session_reduce (read_back, &error);
  reduce_s = natter_bench_now () - start;
  if (state == NULL)
    g_error ("%s", error->message);
  g_assert (natter_session_state_get_n_turns (state) == 10000);

  natter_bench_row ("reduce session (10,000 turns)", "reduce only", reduce_s * 1000, "ms");
  natter_bench_row ("reduce session (10,000 turns)", "strict read (validate every line)", read_s * 1000, "ms");
  natter_bench_row ("reduce session (10,000 turns)", "floor: read the file (cat)", floor_s * 1000, "ms");
  natter_bench_row ("reduce session (10,000 turns)", "read + reduce / floor", (read_s + reduce_s) / floor_s, "x");
  natter_bench_row ("reduce session (10,000 turns)", "peak RSS growth", (natter_bench_peak_rss_kib () - rss_before) / 1024.0, "MiB");
  natter_bench_remove_tree (dir);
}

static void
bench_append (void)
{
  const guint n = 10000;
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(NatterJsonlRepo) repo = natter_turn_repo_new (dir);
  g_autoptr(GPtrArray) events = make_turn_events (n + 1);
  g_autoptr(NatterTurnState) state = natter_turn_state_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *floor_path = NULL;
  double start, append_s, gated_s, floor_s;
  int fd;

  /* The repo append alone: validate, serialize, one write per batch. */
  if (!natter_jsonl_repo_create_sync (repo, TURN_ID, g_ptr_array_index (events, 0), NULL, &error))
    g_error ("%s", error->message);
  start = natter_bench_now ();
  for (guint i = 1; i < events->len; i++)
    {
      g_autoptr(GPtrArray) batch = g_ptr_array_new ();

      g_ptr_array_add (batch, g_ptr_array_index (events, i));
      if (!natter_jsonl_repo_append_sync (repo, TURN_ID, batch, NULL, &error))
        g_error ("%s", error->message);
    }
  append_s = natter_bench_now () - start;
  natter_jsonl_repo_delete_sync (repo, TURN_ID, NULL, NULL);

  /* As the runtime does it: the reducer gates each batch, then the append. */
  if (!natter_jsonl_repo_create_sync (repo, TURN_ID, g_ptr_array_index (events, 0), NULL, &error) ||
      !natter_turn_state_apply (state, json_node_get_object (g_ptr_array_index (events, 0)), &error))
    g_error ("%s", error->message);
  start = natter_bench_now ();
  for (guint i = 1; i < events->len; i++)
    {
      g_autoptr(GPtrArray) batch = g_ptr_array_new ();

      g_ptr_array_add (batch, g_ptr_array_index (events, i));
      if (!natter_turn_state_apply_batch (state, batch, &error) ||
          !natter_jsonl_repo_append_sync (repo, TURN_ID, batch, NULL, &error))
        g_error ("%s", error->message);
    }
  gated_s = natter_bench_now () - start;

  /* Floor: the same lines, pre-serialized, one O_APPEND write each. */
  floor_path = g_build_filename (g_file_peek_path (dir), "floor.jsonl", NULL);
  fd = open (floor_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  {
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);

    for (guint i = 1; i < events->len; i++)
      {
        g_autofree char *line = natter_json_to_line (g_ptr_array_index (events, i), NULL, NULL);

        g_ptr_array_add (lines, g_strconcat (line, "\n", NULL));
      }
    start = natter_bench_now ();
    for (guint i = 0; i < lines->len; i++)
      {
        const char *line = g_ptr_array_index (lines, i);

        if (write (fd, line, strlen (line)) < 0)
          g_error ("write failed");
      }
    floor_s = natter_bench_now () - start;
  }
  close (fd);

  natter_bench_row ("append 10,000 events, 1 per batch", "repo append", n / append_s, "events/s");
  natter_bench_row ("append 10,000 events, 1 per batch", "reducer gate + repo append", n / gated_s, "events/s");
  natter_bench_row ("append 10,000 events, 1 per batch", "floor: raw write() per line", n / floor_s, "events/s");
  natter_bench_row ("append 10,000 events, 1 per batch", "floor / gated append", gated_s / floor_s, "x");
  natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "reduce-turn-100k", bench_reduce_turn },
  { "reduce-session-10k", bench_reduce_session },
  { "append-10k", bench_append },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
