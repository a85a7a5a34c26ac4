/* test-session-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session index on its own (docs/sessions.md §8): the startup
 * scan reads only the latest turn file, publishes in one items-changed,
 * keeps going past corrupt files; entries serialize to exactly the spec's
 * fields and notify only on change. Files are written through the repos
 * directly, so no runtime is involved.
 */

#include "natter-id.h"
#include "natter-session-index-internal.h"
#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-test-support.h"
#include "natter-turn-schema.h"

#define TS "2026-11-30T09:14:03.000Z"

typedef struct
{
  GFile           *dir;
  NatterJsonlRepo *sessions;
  NatterJsonlRepo *turns;
  NatterFakeClock *clock;
  NatterIdGenerator *ids;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->sessions = natter_session_repo_new (f->dir);
  f->turns = natter_turn_repo_new (f->dir);
  f->clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  f->ids = natter_id_generator_new (NATTER_CLOCK (f->clock));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->ids);
  g_clear_object (&f->clock);
  g_clear_object (&f->sessions);
  g_clear_object (&f->turns);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

/* A minimal valid turn file ending in @terminal (NULL: idle). */
static char *
make_turn (Fixture    *f,
           const char *session_id,
           const char *terminal)
{
  char *turn_id = natter_id_generator_next (f->ids);
  g_autofree char *created = g_strdup_printf (
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
    "\"sessionId\":\"%s\",\"agent\":{\"requested\":{\"agentId\":\"helper\"},"
    "\"resolved\":{\"agentId\":\"helper\",\"systemPrompt\":\"\",\"model\":{\"provider\":\"p\",\"model\":\"m\"},"
    "\"tools\":[]}},\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"hi\"},"
    "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":5}}",
    turn_id, session_id);
  g_autoptr(JsonNode) node = natter_test_json (created);
  g_autoptr(GError) error = NULL;

  natter_jsonl_repo_create_sync (f->turns, turn_id, node, NULL, &error);
  g_assert_no_error (error);
  if (terminal != NULL)
    {
      g_autofree char *line = g_strdup_printf ("{\"type\":\"%s\",\"turnId\":\"%s\",\"ts\":\"" TS "\","
                                               "\"reason\":\"user\",\"usage\":{}}", terminal, turn_id);
      g_autoptr(GPtrArray) batch = natter_test_json_array (line, NULL);

      natter_jsonl_repo_append_sync (f->turns, turn_id, batch, NULL, &error);
      g_assert_no_error (error);
    }
  return turn_id;
}

static char *
make_session (Fixture    *f,
              const char *title,
              guint       n_turns,
              char      **out_turns)
{
  char *session_id = natter_id_generator_next (f->ids);
  g_autoptr(JsonNode) created = natter_session_event_new_created (session_id, TS, title, NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;

  natter_jsonl_repo_create_sync (f->sessions, session_id, created, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n_turns; i++)
    {
      g_autofree char *turn_id = make_turn (f, session_id, "turn_cancelled");
      g_autoptr(JsonObject) model = json_object_new ();
      g_autoptr(GPtrArray) batch = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

      json_object_set_string_member (model, "provider", "p");
      json_object_set_string_member (model, "model", "m");
      g_ptr_array_add (batch, natter_session_event_new_turn_appended (session_id, TS, turn_id, i + 1,
                                                                      "helper", model));
      natter_jsonl_repo_append_sync (f->sessions, session_id, batch, NULL, &error);
      g_assert_no_error (error);
      if (out_turns != NULL)
        out_turns[i] = g_steal_pointer (&turn_id);
    }
  return session_id;
}

static void
corrupt (NatterJsonlRepo *repo,
         const char      *id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, id, NULL);
  g_autofree char *path = g_file_get_path (file);

  g_assert_true (g_file_set_contents (path, "{\"broken\n", -1, NULL));
}

typedef struct
{
  guint calls;
  guint removed;
  guint added;
} Changes;

static void
items_changed_cb (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Changes    *changes)
{
  changes->calls++;
  changes->removed += removed;
  changes->added += added;
}

static void
test_scan_reads_only_latest_turn (Fixture       *f,
                                  gconstpointer  data)
{
  char *turns[3] = { NULL };
  g_autofree char *sid = make_session (f, "three", 3, turns);
  g_autofree char *empty = make_session (f, NULL, 0, NULL);
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;
  Changes changes = { 0 };

  /* Earlier turns are never opened: corrupting them changes nothing. */
  corrupt (f->turns, turns[0]);
  corrupt (f->turns, turns[1]);

  g_signal_connect (index, "items-changed", G_CALLBACK (items_changed_cb), &changes);
  natter_session_index_load_async (index, f->sessions, f->turns, NULL, natter_test_result_cb, &result);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 0);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  g_assert_true (natter_session_index_load_finish (index, result, &error));
  g_assert_no_error (error);
  g_assert_true (natter_session_index_get_loaded (index));

  /* One batch. */
  g_assert_cmpuint (changes.calls, ==, 1);
  g_assert_cmpuint (changes.added, ==, 2);
  entry = natter_session_index_lookup (index, sid);
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "cancelled");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, turns[2]);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 3);
  g_assert_cmpstr (natter_session_index_lookup_session_for_turn (index, turns[2]), ==, sid);
  g_assert_null (natter_session_index_lookup_session_for_turn (index, turns[1]));
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (natter_session_index_lookup (index, empty)),
                   ==, "none");

  /* A latest turn that is corrupt or missing is an errored entry. */
  corrupt (f->turns, turns[2]);
  {
    g_autoptr(NatterSessionIndexEntry) broken = natter_session_index_fold_one_sync (f->sessions, f->turns, sid, NULL);

    g_assert_nonnull (natter_session_index_entry_get_error (broken));
    g_assert_cmpuint (natter_session_index_entry_get_turn_count (broken), ==, 3);
  }
  for (guint i = 0; i < 3; i++)
    g_free (turns[i]);
}

static void
test_scan_survives_corrupt_session (Fixture       *f,
                                    gconstpointer  data)
{
  g_autofree char *a = make_session (f, "a", 1, NULL);
  g_autofree char *b = make_session (f, "b", 0, NULL);
  g_autofree char *c = make_session (f, "c", 0, NULL);
  g_autoptr(GPtrArray) entries = NULL;
  g_autoptr(GError) error = NULL;

  corrupt (f->sessions, b);
  entries = natter_session_index_scan_sync (f->sessions, f->turns, 2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (entries->len, ==, 3);
  g_assert_null (natter_session_index_entry_get_error (g_ptr_array_index (entries, 0)));
  g_assert_nonnull (natter_session_index_entry_get_error (g_ptr_array_index (entries, 1)));
  g_assert_cmpstr (natter_session_index_entry_get_session_id (g_ptr_array_index (entries, 1)), ==, b);
  g_assert_null (natter_session_index_entry_get_error (g_ptr_array_index (entries, 2)));
  g_assert_cmpstr (natter_session_index_entry_get_title (g_ptr_array_index (entries, 2)), ==, "c");
}

static void
test_entry_json_fields (Fixture       *f,
                        gconstpointer  data)
{
  static const char * const full[] = {
    "sessionId", "title", "createdAt", "updatedAt", "turnCount", "lastAgentId", "lastModel",
    "latestTurnId", "latestTurnStatus", NULL
  };
  static const char * const minimal[] = {
    "sessionId", "createdAt", "updatedAt", "turnCount", "latestTurnStatus", NULL
  };
  g_autofree char *with_turn = make_session (f, "t", 1, NULL);
  g_autofree char *bare = make_session (f, NULL, 0, NULL);
  g_autoptr(NatterSessionIndexEntry) e1 = natter_session_index_fold_one_sync (f->sessions, f->turns, with_turn, NULL);
  g_autoptr(NatterSessionIndexEntry) e2 = natter_session_index_fold_one_sync (f->sessions, f->turns, bare, NULL);
  g_autoptr(JsonNode) j1 = natter_session_index_entry_to_json (e1);
  g_autoptr(JsonNode) j2 = natter_session_index_entry_to_json (e2);
  JsonObject *o1 = json_node_get_object (j1);
  JsonObject *o2 = json_node_get_object (j2);
  JsonObject *model;

  g_assert_cmpuint (json_object_get_size (o1), ==, g_strv_length ((GStrv) full));
  for (guint i = 0; full[i] != NULL; i++)
    g_assert_true (json_object_has_member (o1, full[i]));
  g_assert_cmpuint (json_object_get_size (o2), ==, g_strv_length ((GStrv) minimal));
  for (guint i = 0; minimal[i] != NULL; i++)
    g_assert_true (json_object_has_member (o2, minimal[i]));
  model = json_object_get_object_member (o1, "lastModel");
  g_assert_cmpuint (json_object_get_size (model), ==, 2);
  g_assert_cmpint (json_object_get_int_member (o1, "turnCount"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (o1, "createdAt"), ==, TS);
  g_assert_cmpstr (json_object_get_string_member (o2, "latestTurnStatus"), ==, "none");
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

static void
test_write_through (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *sid = make_session (f, "x", 1, NULL);
  g_autoptr(GPtrArray) events = natter_jsonl_repo_read_sync (f->sessions, sid, NULL, NULL);
  g_autoptr(NatterSessionState) state = natter_session_reduce (events, NULL);
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  NatterSessionIndexEntry *entry;
  Changes changes = { 0 };
  guint notifies = 0;

  g_signal_connect (index, "items-changed", G_CALLBACK (items_changed_cb), &changes);
  entry = natter_session_index_update_from_state (index, state, "idle");
  g_assert_cmpuint (changes.calls, ==, 1);
  g_assert_cmpuint (changes.added, ==, 1);

  /* The same state again changes no property: no notify. */
  g_signal_connect (entry, "notify", G_CALLBACK (count_notify_cb), &notifies);
  natter_session_index_update_from_state (index, state, NULL);
  g_assert_cmpuint (notifies, ==, 0);
  g_assert_cmpuint (changes.calls, ==, 2);         /* the row is re-announced in place */
  g_assert_cmpuint (changes.removed, ==, 1);

  g_assert_true (natter_session_index_set_latest_turn_status (index, sid,
                                                              natter_session_index_entry_get_latest_turn_id (entry),
                                                              "completed"));
  g_assert_cmpuint (notifies, ==, 1);
  /* A stale turn id never overwrites the latest one's status. */
  g_assert_false (natter_session_index_set_latest_turn_status (index, sid, "other", "failed"));

  g_assert_true (natter_session_index_remove (index, sid));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 0);
  g_assert_false (natter_session_index_remove (index, sid));
}

/* A session whose latest turn cannot be read stays listed as damaged
 * when its session file is written (a rename, a grant): the write reads
 * no turn file, and the turn is still the latest. A new latest turn is
 * read afresh. */
static void
test_write_through_keeps_latest_turn_error (Fixture       *f,
                                            gconstpointer  data)
{
  char *turns[2] = { NULL, NULL };
  g_autofree char *sid = make_session (f, "x", 2, turns);
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(JsonNode) renamed = NULL;
  g_autoptr(JsonObject) model = json_object_new ();
  g_autoptr(JsonNode) appended = NULL;
  g_autofree char *next = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;

  corrupt (f->turns, turns[1]);
  natter_session_index_load_async (index, f->sessions, f->turns, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  g_assert_true (natter_session_index_load_finish (index, result, &error));
  entry = natter_session_index_lookup (index, sid);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));

  events = natter_jsonl_repo_read_sync (f->sessions, sid, NULL, &error);
  g_assert_no_error (error);
  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  renamed = natter_session_event_new_title_changed (sid, TS, "renamed");
  g_assert_true (natter_session_state_apply (state, json_node_get_object (renamed), &error));
  g_assert_no_error (error);
  natter_session_index_update_from_state (index, state, NULL);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "renamed");
  g_assert_nonnull (natter_session_index_entry_get_error (entry));

  /* A turn appended after it (as an import or a test may write) is the
   * latest now, and says nothing of the old one. */
  next = make_turn (f, sid, "turn_cancelled");
  json_object_set_string_member (model, "provider", "p");
  json_object_set_string_member (model, "model", "m");
  appended = natter_session_event_new_turn_appended (sid, TS, next, 3, "helper", model);
  g_assert_true (natter_session_state_apply (state, json_node_get_object (appended), &error));
  g_assert_no_error (error);
  natter_session_index_update_from_state (index, state, "cancelled");
  g_assert_null (natter_session_index_entry_get_error (entry));
  g_free (turns[0]);
  g_free (turns[1]);
}

/* Writes the service makes while the scan runs win over the scan's older
 * view: a session removed meanwhile is not listed, one written meanwhile
 * is listed as written (its latest turn found by its id), and the rest
 * come from the scan, all in session id order. */
static void
test_scan_keeps_writes_made_during_it (Fixture       *f,
                                       gconstpointer  data)
{
  char *turns[2] = { NULL, NULL };
  g_autofree char *kept = make_session (f, "kept", 1, turns);
  g_autofree char *removed = make_session (f, "removed", 0, NULL);
  g_autofree char *written = make_session (f, "written", 0, NULL);
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) renamed = NULL;

  natter_session_index_load_async (index, f->sessions, f->turns, NULL, natter_test_result_cb, &result);
  /* The scan publishes on this main context: these come first. */
  natter_session_index_remove (index, removed);
  events = natter_jsonl_repo_read_sync (f->sessions, written, NULL, &error);
  g_assert_no_error (error);
  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  renamed = natter_session_event_new_title_changed (written, TS, "renamed meanwhile");
  g_assert_true (natter_session_state_apply (state, json_node_get_object (renamed), &error));
  natter_session_index_update_from_state (index, state, NULL);

  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  g_assert_true (natter_session_index_load_finish (index, result, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 2);
  g_assert_null (natter_session_index_lookup (index, removed));
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (index, written)), ==,
                   "renamed meanwhile");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (index, kept)), ==, "kept");
  g_assert_cmpstr (natter_session_index_lookup_session_for_turn (index, turns[0]), ==, kept);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (index), i);

      g_assert_cmpstr (natter_session_index_entry_get_session_id (entry), ==, i == 0 ? kept : written);
    }
  g_free (turns[0]);
}

/* Puts a session into @index whose one turn was appended at @ts with
 * @provider's @model. */
static char *
put_session_at (Fixture            *f,
                NatterSessionIndex *index,
                const char         *ts,
                const char         *provider,
                const char         *model)
{
  char *session_id = natter_id_generator_next (f->ids);
  g_autofree char *turn_id = natter_id_generator_next (f->ids);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(JsonObject) descriptor = json_object_new ();
  g_autoptr(NatterSessionState) state = NULL;

  json_object_set_string_member (descriptor, "provider", provider);
  json_object_set_string_member (descriptor, "model", model);
  g_ptr_array_add (events, natter_session_event_new_created (session_id, TS, "x", NULL, NULL, NULL));
  g_ptr_array_add (events, natter_session_event_new_turn_appended (session_id, ts, turn_id, 1, "helper", descriptor));
  state = natter_session_reduce (events, NULL);
  natter_session_index_update_from_state (index, state, "completed");
  return session_id;
}

/* What a new conversation goes on with when no default is set: the last
 * model of the conversation with the latest activity, whichever was
 * made first. */
static void
test_recent_model (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(NatterSessionIndex) index = natter_session_index_new ();
  g_autofree char *older = NULL;
  g_autofree char *newer = NULL;
  g_autofree char *first = NULL;
  const char *at = "unset";
  JsonObject *recent;

  g_assert_null (natter_session_index_get_recent_model (index, &at));
  g_assert_null (at);

  newer = put_session_at (f, index, "2026-12-01T10:00:00.000Z", "mine", "used-last");
  older = put_session_at (f, index, "2026-11-30T10:00:00.000Z", "ollama", "used-before");
  recent = natter_session_index_get_recent_model (index, &at);
  g_assert_nonnull (recent);
  g_assert_cmpstr (json_object_get_string_member (recent, "provider"), ==, "mine");
  g_assert_cmpstr (json_object_get_string_member (recent, "model"), ==, "used-last");
  /* When it was used, to weigh a model picked in the window against. */
  g_assert_cmpstr (at, ==, "2026-12-01T10:00:00.000Z");

  /* Going on with the older one makes its model the recent one. */
  first = put_session_at (f, index, "2026-12-02T10:00:00.000Z", "ollama", "used-again");
  recent = natter_session_index_get_recent_model (index, &at);
  g_assert_cmpstr (json_object_get_string_member (recent, "model"), ==, "used-again");
  g_assert_cmpstr (at, ==, "2026-12-02T10:00:00.000Z");

  /* A conversation deleted takes its model with it. */
  g_assert_true (natter_session_index_remove (index, first));
  recent = natter_session_index_get_recent_model (index, &at);
  g_assert_cmpstr (json_object_get_string_member (recent, "model"), ==, "used-last");
  g_assert_cmpstr (at, ==, "2026-12-01T10:00:00.000Z");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/session-index/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("scan/reads-only-the-latest-turn-in-one-batch", test_scan_reads_only_latest_turn);
  ADD ("scan/survives-a-corrupt-session-file", test_scan_survives_corrupt_session);
  ADD ("scan/keeps-writes-made-during-it", test_scan_keeps_writes_made_during_it);
  ADD ("entry/json-has-exactly-the-spec-fields", test_entry_json_fields);
  ADD ("write-through/items-changed-and-notify-on-change-only", test_write_through);
  ADD ("write-through/keeps-a-latest-turn-error", test_write_through_keeps_latest_turn_error);
  ADD ("recent-model/latest-activity-wins", test_recent_model);

  return g_test_run ();
}
