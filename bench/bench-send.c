/* bench-send.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sending in a 1,000-turn session (docs/runtime.md §11,
 * docs/sessions.md §9.1): a session of 1,000 completed turns, each
 * turn's context `{previousTurnId}` of the one before, generated on disk;
 * then natter_sessions_send_message_async() → the turn settled, over real
 * repos, the real runtime and context resolver, and a fake model that
 * answers at once.
 *
 * cold: fresh services (a new process): the first send materializes the
 *   whole chain, reading 1,000 turn files.
 * warm: a second send on the same services: the transcript of the turn
 *   before is cached, so about one file is read, not 1,000; the session
 *   file is read once, by the send under its lock (the promotion of the
 *   queue after the turn settles knows that nothing is queued).
 *
 * Floor: reading the same 1,000 turn files with plain open/read (warm
 * page cache), what a cold send cannot avoid.
 *
 * warm-1000: 30 warm sends in a row, each as soon as the turn before
 * settled (as a person sends one message after another's answer), so that
 * whatever a settled turn still does (the promotion of the queue) falls on
 * the next send, which waits for the session lock: the median wall time
 * per send, and the process's CPU time per send, less sensitive to a
 * busy machine than one send's wall time. Its floor is send-1000's, taken
 * between the sends.
 */

#define G_LOG_DOMAIN "natter-bench"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "natter-bench.h"
#include "natter-bench-data.h"
#include "natter-sessions-private.h"
#include "natter-test-fakes.h"
#include "natter-turn-context-resolver.h"

#include <string.h>

#define N_TURNS 1000
#define BENCH   "send in a 1,000-turn session"

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

static void
result_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

/* What a process holds after start: the session services (docs/sessions.md §9)
 * over the data dir, with the fakes in place of the providers. */
typedef struct
{
  NatterFakeWorld           *fakes;
  NatterTurnContextResolver *contexts;
  NatterTurnEventHub        *hub;
  NatterTurnRuntime         *runtime;
  NatterSessionIndex        *index;
  NatterSessions            *sessions;
} Stack;

static Stack *
stack_new (NatterJsonlRepo   *session_repo,
           NatterJsonlRepo   *turn_repo,
           NatterIdGenerator *ids)
{
  Stack *s = g_new0 (Stack, 1);
  g_autoptr(NatterClock) clock = natter_clock_get_system ();
  g_autoptr(NatterToolRegistry) tools = natter_fake_tools_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  s->fakes = g_object_new (NATTER_TYPE_FAKE_WORLD, NULL);
  s->contexts = natter_turn_context_resolver_new (turn_repo);
  s->hub = natter_turn_event_hub_new ();
  s->runtime = natter_turn_runtime_new (turn_repo, ids, clock, NATTER_AGENT_RESOLVER (s->fakes),
                                        NATTER_MODEL_REGISTRY (s->fakes), tools,
                                        NATTER_CONTEXT_RESOLVER (s->contexts),
                                        NATTER_PERMISSION_CHECKER (s->fakes),
                                        NATTER_PERMISSION_CLASSIFIER (s->fakes), s->hub, NULL, 0);
  s->index = natter_session_index_new ();
  natter_session_index_load_async (s->index, session_repo, turn_repo, NULL, result_cb, &result);
  if (!natter_session_index_load_finish (s->index, wait_result (&result), &error))
    g_error ("index: %s", error->message);
  s->sessions = natter_sessions_new (session_repo, turn_repo, s->runtime, s->hub, clock, ids, s->index);
  return s;
}

static gboolean
settle_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
stack_free (Stack *s)
{
  guint wake = g_timeout_add (5, settle_cb, NULL);

  /* Settled advances may still be refreshing their index entry. */
  while (natter_sessions_get_n_advances (s->sessions) > 0)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_object_unref (s->sessions);
  g_object_unref (s->index);
  g_object_unref (s->runtime);
  g_object_unref (s->hub);
  g_object_unref (s->contexts);
  g_object_unref (s->fakes);
  g_free (s);
}

/* Sends one message and waits for the turn to settle; checks it
 * completed. Returns the wall time in seconds. */
static double
send_and_wait (Stack           *s,
               NatterJsonlRepo *turn_repo,
               const char      *session_id,
               char           **out_turn_id)
{
  g_autoptr(JsonNode) input = json_from_string ("{\"role\":\"user\",\"content\":\"One more question.\"}", NULL);
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  g_autoptr(GAsyncResult) sent = NULL;
  g_autoptr(GAsyncResult) settled = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  JsonObject *last;
  double start, elapsed;

  natter_fake_model_script (s->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  start = natter_bench_now ();
  natter_sessions_send_message_async (s->sessions, session_id, json_node_get_object (input),
                                      options, NULL, result_cb, &sent);
  turn_id = natter_sessions_send_message_finish (s->sessions, wait_result (&sent), &error);
  if (turn_id == NULL)
    g_error ("send: %s", error->message);
  natter_sessions_wait_for_turn_async (s->sessions, turn_id, NULL, result_cb, &settled);
  natter_sessions_wait_for_turn_finish (s->sessions, wait_result (&settled), NULL);
  elapsed = natter_bench_now () - start;

  events = natter_jsonl_repo_read_sync (turn_repo, turn_id, NULL, &error);
  if (events == NULL)
    g_error ("%s", error->message);
  last = json_node_get_object (g_ptr_array_index (events, events->len - 1));
  if (!g_str_equal (json_object_get_string_member (last, "type"), "turn_completed"))
    g_error ("the sent turn ended with %s", json_object_get_string_member (last, "type"));
  if (out_turn_id != NULL)
    *out_turn_id = g_steal_pointer (&turn_id);
  return elapsed;
}

static void
bench_send_1000 (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) session_repo = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turn_repo = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *session_id = NULL;
  g_autofree char *cold_turn = NULL;
  Stack *s;
  double floor_s, cold_s, warm_s, warm2_s;
  guint cold_reads, warm_reads, warm2_reads, warm_session_reads;

  session_id = natter_bench_generate_chain (storage, ids, N_TURNS, paths);
  read_floor (paths);
  floor_s = read_floor (paths);

  /* Cold: a new process's services, nothing cached. */
  s = stack_new (session_repo, turn_repo, ids);
  cold_s = send_and_wait (s, turn_repo, session_id, &cold_turn);
  cold_reads = natter_turn_context_resolver_get_n_reads (s->contexts);

  /* Warm: the next message on the same services, twice (the second one
   * shows the steady state when the first pays for a lazy setup). */
  warm_session_reads = natter_sessions_get_n_session_reads (s->sessions);
  warm_s = send_and_wait (s, turn_repo, session_id, NULL);
  warm_reads = natter_turn_context_resolver_get_n_reads (s->contexts) - cold_reads;
  warm2_s = send_and_wait (s, turn_repo, session_id, NULL);
  /* What follows a settled turn (the promotion of the queue) counts too. */
  {
    g_autoptr(GAsyncResult) flushed = NULL;

    natter_sessions_flush_async (s->sessions, NULL, result_cb, &flushed);
    natter_sessions_flush_finish (s->sessions, wait_result (&flushed), NULL);
  }
  warm_session_reads = natter_sessions_get_n_session_reads (s->sessions) - warm_session_reads;
  warm2_reads = natter_turn_context_resolver_get_n_reads (s->contexts) - cold_reads - warm_reads;

  natter_bench_row (BENCH, "floor: read the 1,000 turn files", floor_s * 1000, "ms");
  natter_bench_row (BENCH, "cold: send -> turn settled", cold_s * 1000, "ms");
  natter_bench_row (BENCH, "cold: turn files read by context", cold_reads, "files");
  natter_bench_row (BENCH, "cold / floor", cold_s / floor_s, "x");
  natter_bench_row (BENCH, "warm: send -> turn settled", warm_s * 1000, "ms");
  natter_bench_row (BENCH, "warm: turn files read by context", warm_reads, "files");
  natter_bench_row (BENCH, "warm again: send -> turn settled", warm2_s * 1000, "ms");
  natter_bench_row (BENCH, "warm again: turn files read", warm2_reads, "files");
  natter_bench_row (BENCH, "warm, both: session file reads per send", warm_session_reads / 2.0, "reads");
  natter_bench_row (BENCH, "peak RSS", natter_bench_peak_rss_kib () / 1024.0, "MiB");

  stack_free (s);
  natter_bench_remove_tree (dir);
}

/* Compacting a 1,000-turn session (docs/sessions.md §5), then
 * sending in it from a new process: the summarizer reads the history
 * once; the send after it reads only the kept turns and sends the summary
 * and those turns, not 1,000. */
static void
bench_compacted_1000 (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) session_repo = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turn_repo = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autoptr(GAsyncResult) compacted = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *compaction_id = NULL;
  g_autofree char *body = NULL;
  g_autoptr(JsonNode) request = NULL;
  JsonArray *messages;
  Stack *s;
  double compact_s, send_s;
  guint compact_reads, send_history_reads, send_state_reads;

  session_id = natter_bench_generate_chain (storage, ids, N_TURNS, NULL);

  s = stack_new (session_repo, turn_repo, ids);
  natter_fake_model_script (s->fakes->model, "{\"role\":\"assistant\",\"content\":\"The summary.\"}", NULL);
  compact_s = natter_bench_now ();
  natter_sessions_compact_async (s->sessions, session_id, 2, NULL, result_cb, &compacted);
  compaction_id = natter_sessions_compact_finish (s->sessions, wait_result (&compacted), &error);
  if (compaction_id == NULL)
    g_error ("compact: %s", error->message);
  compact_s = natter_bench_now () - compact_s;
  compact_reads = natter_turn_context_resolver_get_n_reads (s->contexts) +
                  natter_turn_runtime_get_n_state_reads (s->runtime);
  stack_free (s);

  /* A new process sends the next message. */
  s = stack_new (session_repo, turn_repo, ids);
  send_s = send_and_wait (s, turn_repo, session_id, NULL);
  send_history_reads = natter_turn_context_resolver_get_n_reads (s->contexts);
  send_state_reads = natter_turn_runtime_get_n_state_reads (s->runtime);
  request = json_node_init_object (json_node_alloc (), natter_fake_model_get_request (s->fakes->model, 0));
  body = json_to_string (request, FALSE);
  messages = json_object_get_array_member (natter_fake_model_get_request (s->fakes->model, 0), "messages");

  natter_bench_row (BENCH, "compact 1,000 turns, keep 2", compact_s * 1000, "ms");
  natter_bench_row (BENCH, "compact: turn files read", compact_reads, "files");
  natter_bench_row (BENCH, "send after compaction (new process)", send_s * 1000, "ms");
  natter_bench_row (BENCH, "send: turn files read by the context resolver", send_history_reads, "files");
  natter_bench_row (BENCH, "send: turn reads by the session layer", send_state_reads, "reads");
  natter_bench_row (BENCH, "send: messages in the request", messages != NULL ? json_array_get_length (messages) : 0,
                    "messages");
  natter_bench_row (BENCH, "send: request size", strlen (body) / 1024.0, "KiB");
  stack_free (s);
  natter_bench_remove_tree (dir);
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

#define N_WARM 30

static void
bench_warm_1000 (void)
{
  g_autoptr(GFile) dir = natter_bench_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) session_repo = natter_session_repo_new (storage);
  g_autoptr(NatterJsonlRepo) turn_repo = natter_turn_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NULL);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *session_id = NULL;
  double sends[N_WARM];
  double floors[N_WARM];
  double cpu_start, cpu_s;
  Stack *s;

  session_id = natter_bench_generate_chain (storage, ids, N_TURNS, paths);
  read_floor (paths);
  s = stack_new (session_repo, turn_repo, ids);
  /* The cold send and two more: lazy set-up is not what is measured. */
  for (guint i = 0; i < 3; i++)
    send_and_wait (s, turn_repo, session_id, NULL);

  cpu_start = natter_bench_cpu_s ();
  for (guint i = 0; i < N_WARM; i++)
    sends[i] = send_and_wait (s, turn_repo, session_id, NULL);
  cpu_s = natter_bench_cpu_s () - cpu_start;
  for (guint i = 0; i < N_WARM; i++)
    floors[i] = read_floor (paths);
  qsort (sends, N_WARM, sizeof (double), compare_doubles);
  qsort (floors, N_WARM, sizeof (double), compare_doubles);

  natter_bench_row (BENCH, "floor: read the 1,000 turn files", floors[N_WARM / 2] * 1000, "ms");
  natter_bench_row (BENCH, "warm x30: send -> turn settled, median", sends[N_WARM / 2] * 1000, "ms");
  natter_bench_row (BENCH, "warm x30: fastest send", sends[0] * 1000, "ms");
  natter_bench_row (BENCH, "warm x30: CPU time per send", cpu_s * 1000 / N_WARM, "ms");
  natter_bench_row (BENCH, "warm x30: median / floor", sends[N_WARM / 2] / floors[N_WARM / 2], "x");
  natter_bench_row (BENCH, "warm x30: CPU per send / floor", cpu_s / N_WARM / floors[N_WARM / 2], "x");

  stack_free (s);
  natter_bench_remove_tree (dir);
}

static const NatterBenchCase cases[] = {
  { "send-1000", bench_send_1000 },
  { "warm-1000", bench_warm_1000 },
  { "compacted-1000", bench_compacted_1000 },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
