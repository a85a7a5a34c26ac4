/* oracle-driver-read.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading what every reader shows (the session service, the files; the
 * command line's reading is oracle-driver-cli.c's) and comparing it with
 * the model, after each operation.
 */

#include "config.h"

#include <string.h>

#include "natter-blob-store.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-families.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-private.h"
#include "natter-sessions-queue.h"
#include "natter-sessions-settings.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

static NatterTurnState *
get_turn (OracleDriver  *d,
          const char    *id,
          GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GPtrArray) events = NULL;

  natter_sessions_get_turn_async (d->f.sessions, id, NULL, natter_test_result_cb, &result);
  events = natter_sessions_get_turn_finish (d->f.sessions, wait_result (d, &result, "getTurn"), error);
  return events != NULL ? natter_turn_reduce (events, error) : NULL;
}

/* Learns the ids of what the model made without being told them: turns
 * a queue promoted, queued messages and grants made by a `natter`
 * process. By position: the model and the service must agree on the
 * order (a disagreement shows in the readings). */
void
learn_ids (OracleDriver *d)
{
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(NatterSessionState) state = NULL;
      gboolean unknown = FALSE;

      if (s->id == NULL)
        continue;
      for (guint j = 0; j < s->own->len; j++)
        unknown |= ((OTurn *) g_ptr_array_index (s->own, j))->id == NULL;
      for (guint j = 0; j < s->queue->len; j++)
        unknown |= ((OQueued *) g_ptr_array_index (s->queue, j))->id == NULL;
      for (guint j = 0; j < s->grants->len; j++)
        unknown |= ((OGrant *) g_ptr_array_index (s->grants, j))->id == NULL;
      if (!unknown)
        continue;
      state = get_session (d, s->id, NULL);
      if (state == NULL)
        continue;
      for (guint j = 0; j < s->own->len; j++)
        {
          OTurn *t = g_ptr_array_index (s->own, j);
          guint at = s->recovered ? natter_session_state_get_n_turns (state) - (s->own->len - j) : j;

          if (t->id == NULL && at < natter_session_state_get_n_turns (state))
            t->id = g_strdup (natter_session_state_get_turn (state, at)->turn_id);
        }
      for (guint j = 0; j < s->queue->len && j < natter_session_state_get_n_queued (state); j++)
        {
          OQueued *q = g_ptr_array_index (s->queue, j);

          if (q->id == NULL)
            q->id = g_strdup (natter_session_state_get_queued (state, j)->queue_id);
        }
      for (guint j = 0; j < s->grants->len && j < natter_session_state_get_n_grants (state); j++)
        {
          OGrant *g = g_ptr_array_index (s->grants, j);

          if (g->id == NULL)
            g->id = g_strdup (natter_session_state_get_grant (state, j)->grant_id);
        }
    }
}

char *
message_text (JsonObject *message)
{
  JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;
  GString *text = g_string_new (NULL);

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content))
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (content)); i++)
      {
        JsonObject *part = json_array_get_object_element (json_node_get_array (content), i);

        if (g_strcmp0 (json_object_get_string_member_with_default (part, "type", ""), "text") == 0)
          g_string_append (text, json_object_get_string_member_with_default (part, "text", ""));
      }
  return g_string_free (text, FALSE);
}

/* A tool call's status in the words of `natter show`. */
static const char *
call_status (NatterTurnToolCall *call)
{
  JsonObject *result = natter_turn_tool_call_get_result (call);

  if (result != NULL)
    {
      if (g_strcmp0 (natter_turn_tool_call_get_decision (call), "deny") == 0)
        return "denied";
      return json_object_get_boolean_member_with_default (result, "isError", FALSE) ? "error" : "done";
    }
  if (natter_turn_tool_call_is_awaiting_permission (call))
    return "awaiting-permission";
  if (natter_turn_tool_call_is_awaiting_async_result (call))
    return "awaiting-result";
  return "pending";
}

/* One turn as a reader sees it, from its reduced state. */
JsonObject *
oracle_turn_reading (NatterTurnState *state,
                     gboolean         own,
                     gboolean         running)
{
  JsonObject *view = json_object_new ();
  JsonObject *definition = natter_turn_state_get_definition (state);
  JsonObject *input = json_object_get_object_member (definition, "input");
  g_autofree char *text = message_text (input);
  g_autofree char *answer = natter_turn_state_dup_final_text (state);
  g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (input);
  JsonArray *files = json_array_new ();
  JsonArray *calls = json_array_new ();

  json_object_set_boolean_member (view, "own", own);
  json_object_set_string_member (view, "input", text);
  for (guint i = 0; i < parts->len; i++)
    json_array_add_string_element (files, json_object_get_string_member (g_ptr_array_index (parts, i), "name"));
  json_object_set_array_member (view, "files", files);
  json_object_set_string_member (view, "status", natter_turn_status_to_string (natter_derive_turn_status (state)));
  json_object_set_boolean_member (view, "running", running);
  if (answer != NULL)
    json_object_set_string_member (view, "answer", answer);
  else
    json_object_set_null_member (view, "answer");
  for (guint i = 0; i < natter_turn_state_get_n_tool_calls (state); i++)
    {
      NatterTurnToolCall *call = natter_turn_state_get_tool_call (state, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", natter_turn_tool_call_get_name (call));
      json_object_set_string_member (item, "status", call_status (call));
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (view, "calls", calls);
  return view;
}

/* The turn its definition's context refers to (docs/format.md §4.2,
 * `turn_created`), read from the turn's own events: NULL for an inline
 * context, or a turn that does not read (the walk ends there, and what
 * it shows is compared with the model). */
static char *
previous_turn_id (OracleDriver *d,
                  const char   *turn_id)
{
  g_autoptr(NatterTurnState) turn = get_turn (d, turn_id, NULL);
  JsonObject *definition = turn != NULL ? natter_turn_state_get_definition (turn) : NULL;
  JsonNode *context = definition != NULL ? json_object_get_member (definition, "context") : NULL;

  if (context == NULL || !JSON_NODE_HOLDS_OBJECT (context))
    return NULL;
  return g_strdup (json_object_get_string_member_with_default (json_node_get_object (context), "previousTurnId",
                                                               NULL));
}

/* The history a branch whose parent is deleted shows above its own turns
 * (docs/sessions.md §9.4): from the fork point back along each turn's
 * `previousTurnId`, walked here turn by turn rather than by the
 * service's own walk (natter_sessions_read_history_async()), which the
 * readers under test use. Oldest first. */
static void
add_history_from_files (OracleDriver *d,
                        const char   *fork,
                        GPtrArray    *ids)
{
  g_autoptr(GPtrArray) newest_first = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *next = g_strdup (fork);

  /* A chain longer than every turn the run made is a loop. */
  while (next != NULL && newest_first->len <= d->o->turns->len)
    {
      char *previous = previous_turn_id (d, next);

      g_ptr_array_add (newest_first, g_steal_pointer (&next));
      next = previous;
    }
  for (guint i = newest_first->len; i > 0; i--)
    g_ptr_array_add (ids, g_strdup (g_ptr_array_index (newest_first, i - 1)));
}

/* The turn ids @state shows: its parent's up to the fork point, then its
 * own; a parent that is deleted, the turn files' history instead. */
static GPtrArray *
shown_turn_ids (OracleDriver       *d,
                NatterSessionState *state,
                guint              *n_inherited)
{
  GPtrArray *ids = g_ptr_array_new_with_free_func (g_free);
  const char *parent = natter_session_state_get_parent_session (state);
  const char *fork = natter_session_state_get_forked_from_turn_id (state);

  if (parent != NULL && fork != NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NatterSessionState) parent_state = get_session (d, parent, &error);

      if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
        add_history_from_files (d, fork, ids);
      else if (parent_state != NULL)
        {
          guint n;
          g_autoptr(GPtrArray) inherited = shown_turn_ids (d, parent_state, &n);

          for (guint i = 0; i < inherited->len; i++)
            {
              g_ptr_array_add (ids, g_strdup (g_ptr_array_index (inherited, i)));
              if (g_str_equal (g_ptr_array_index (inherited, i), fork))
                break;
            }
        }
    }
  *n_inherited = ids->len;
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    g_ptr_array_add (ids, g_strdup (natter_session_state_get_turn (state, i)->turn_id));
  return ids;
}

/* What the service keeps for @s's conversation (docs/sessions.md §15,
 * §16): in the shape of oracle_settings_expected(). */
static void
read_settings (OracleDriver *d,
               OSession     *s,
               JsonObject   *view)
{
  const NatterGenerationParameters *kept = natter_sessions_get_kept_parameters (d->f.sessions, s->id);
  const char *folder_id = natter_sessions_get_folder_id (d->f.sessions, s->id);
  NatterFolder *folder = folder_id != NULL ? natter_folders_lookup (natter_services_get_folders (d->f.services),
                                                                    folder_id) : NULL;
  OParams p = { 0 };
  g_autofree char *text = NULL;

  json_object_set_boolean_member (view, "pinned", natter_sessions_get_pinned (d->f.sessions, s->id));
  if (folder != NULL && natter_folder_get_name (folder) != NULL)
    json_object_set_string_member (view, "folder", natter_folder_get_name (folder));
  else
    json_object_set_null_member (view, "folder");
  if (kept != NULL)
    {
      p.has_temperature = kept->has_temperature;
      p.temperature = kept->temperature;
      p.has_top_p = kept->has_top_p;
      p.top_p = kept->top_p;
      p.max_tokens = kept->max_tokens;
      p.has_seed = kept->has_seed;
      p.seed = kept->seed;
      p.instruction = kept->system_instruction;
    }
  text = oracle_params_text (&p);
  json_object_set_string_member (view, "parameters", text);
}

JsonNode *
read_services (OracleDriver *d,
               OSession     *s,
               gpointer      data)
{
  g_autoptr(JsonObject) view = json_object_new ();
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndex *index = natter_sessions_list_sessions (d->f.sessions);
  NatterSessionIndexEntry *entry = natter_session_index_lookup (index, s->id);
  g_autoptr(NatterSessionFamilies) families = natter_session_families_new (G_LIST_MODEL (index));
  JsonArray *turns = json_array_new ();
  JsonArray *queue = json_array_new ();
  JsonArray *grants = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  const char *original;
  guint n_inherited = 0;

  state = get_session (d, s->id, &error);
  if (state == NULL)
    {
      json_object_set_string_member (view, "unreadable", error->message);
      json_node_take_object (node, g_steal_pointer (&view));
      json_array_unref (turns);
      json_array_unref (queue);
      json_array_unref (grants);
      return node;
    }
  if (natter_session_state_get_title (state) != NULL)
    json_object_set_string_member (view, "title", natter_session_state_get_title (state));
  else
    json_object_set_null_member (view, "title");
  ids = shown_turn_ids (d, state, &n_inherited);
  for (guint i = 0; i < ids->len; i++)
    {
      const char *id = g_ptr_array_index (ids, i);
      g_autoptr(NatterTurnState) turn = get_turn (d, id, NULL);

      if (turn == NULL)
        {
          JsonObject *damaged = json_object_new ();

          json_object_set_boolean_member (damaged, "own", i >= n_inherited);
          json_object_set_boolean_member (damaged, "damaged", TRUE);
          json_array_add_object_element (turns, damaged);
          continue;
        }
      json_array_add_object_element (turns, oracle_turn_reading (turn, i >= n_inherited,
                                                                 natter_sessions_is_turn_running (d->f.sessions,
                                                                                                  id)));
    }
  json_object_set_array_member (view, "turns", turns);
  json_object_set_int_member (view, "inherited", n_inherited);
  json_object_set_int_member (view, "shown", ids->len);
  for (guint i = 0; i < natter_session_state_get_n_queued (state); i++)
    {
      g_autofree char *text = message_text (natter_session_state_get_queued (state, i)->message);

      json_array_add_string_element (queue, text);
    }
  json_object_set_array_member (view, "queue", queue);
  for (guint i = 0; i < natter_session_state_get_n_grants (state); i++)
    json_array_add_string_element (grants, natter_session_state_get_grant (state, i)->tool_id);
  json_object_set_array_member (view, "grants", grants);
  if (entry != NULL)
    {
      json_object_set_boolean_member (view, "error", natter_session_index_entry_get_error (entry) != NULL);
      if (natter_session_index_entry_get_error (entry) == NULL)
        json_object_set_string_member (view, "latest", natter_session_index_entry_get_latest_turn_status (entry));
      if (g_strcmp0 (natter_session_index_entry_get_title (entry), natter_session_state_get_title (state)) != 0)
        json_object_set_string_member (view, "index-title", natter_session_index_entry_get_title (entry) != NULL
                                                            ? natter_session_index_entry_get_title (entry) : "(none)");
      original = natter_session_families_get_original (families, s->id);
      if (original != NULL && !g_str_equal (original, s->id))
        json_object_set_string_member (view, "versionOf", original);
      else
        json_object_set_null_member (view, "versionOf");
      read_settings (d, s, view);
    }
  else
    json_object_set_boolean_member (view, "not-in-index", TRUE);
  json_node_take_object (node, g_steal_pointer (&view));
  return node;
}

/* ------------------------------------------------------------------ */
/* Comparing readings                                                   */
/* ------------------------------------------------------------------ */

static char *
node_text (JsonNode *node)
{
  g_autofree char *text = node != NULL ? json_to_string (node, FALSE) : g_strdup ("(absent)");

  return g_strescape (text, "\"");
}

static void
differ (GString    *out,
        const char *what,
        JsonNode   *expected,
        JsonNode   *actual)
{
  g_autofree char *want = node_text (expected);
  g_autofree char *got = node_text (actual);

  g_string_append_printf (out, "\n    %s: expected %s, read %s", what, want, got);
}

static gboolean
node_equal (JsonNode *a,
            JsonNode *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return json_node_equal (a, b);
}

static void
compare_turn (GString    *out,
              guint       i,
              JsonObject *expected,
              JsonObject *actual,
              gboolean    compare_own)
{
  static const char *const members[] = { "input", "files", "status", "answer", "calls", "running" };
  char what[64];

  if (json_object_get_boolean_member_with_default (expected, "damaged", FALSE) ||
      json_object_get_boolean_member_with_default (actual, "damaged", FALSE))
    {
      if (json_object_get_boolean_member_with_default (expected, "damaged", FALSE) !=
          json_object_get_boolean_member_with_default (actual, "damaged", FALSE))
        {
          g_snprintf (what, sizeof what, "turn %u damaged", i);
          differ (out, what, json_object_get_member (expected, "damaged"), json_object_get_member (actual, "damaged"));
        }
      return;
    }
  if (compare_own && json_object_has_member (actual, "own") &&
      !node_equal (json_object_get_member (expected, "own"), json_object_get_member (actual, "own")))
    {
      g_snprintf (what, sizeof what, "turn %u own", i);
      differ (out, what, json_object_get_member (expected, "own"), json_object_get_member (actual, "own"));
    }
  for (guint m = 0; m < G_N_ELEMENTS (members); m++)
    {
      if (!json_object_has_member (actual, members[m]))
        continue;
      if (!node_equal (json_object_get_member (expected, members[m]), json_object_get_member (actual, members[m])))
        {
          g_snprintf (what, sizeof what, "turn %u %s", i, members[m]);
          differ (out, what, json_object_get_member (expected, members[m]), json_object_get_member (actual, members[m]));
        }
    }
}

/* One difference between a reading and the model's view. */
typedef struct
{
  const char *kind;
  char       *text;
} Difference;

static void
difference_free (Difference *difference)
{
  g_free (difference->text);
  g_free (difference);
}

static void
add_difference (GPtrArray  *out,
                const char *kind,
                GString    *text)
{
  Difference *difference = g_new0 (Difference, 1);

  difference->kind = kind;
  difference->text = g_strdup (text->str);
  g_ptr_array_add (out, difference);
}

/* The differences of a reading from the model's view; a member the
 * reading leaves out is not compared, one the model leaves out is not
 * determined. */
static GPtrArray *
diff_view (OracleDriver *d,
           OSession     *s,
           JsonNode     *expected_node,
           JsonNode     *actual_node)
{
  static const char *const members[] = { "title", "queue", "grants", "error", "latest", "versionOf", "inherited",
                                         "pinned", "folder", "parameters" };
  JsonObject *expected = json_node_get_object (expected_node);
  JsonObject *actual = json_node_get_object (actual_node);
  GPtrArray *differences = g_ptr_array_new_with_free_func ((GDestroyNotify) difference_free);
  g_autoptr(GString) out = g_string_new (NULL);
  /* An imported conversation's differences are the rules of import
   * (docs/format.md §7.1). */
  const char *kind = oracle_from_import (s) ? "import" : "reading";

  if (json_object_has_member (actual, "unreadable") || json_object_has_member (actual, "not-in-index"))
    {
      g_autofree char *text = node_text (actual_node);

      g_string_append_printf (out, " cannot read it: %s", text);
      add_difference (differences, kind, out);
      return differences;
    }
  if (json_object_has_member (actual, "index-title"))
    g_string_append_printf (out, "\n    the list's title %s differs from the conversation's",
                            json_object_get_string_member (actual, "index-title"));
  for (guint m = 0; m < G_N_ELEMENTS (members); m++)
    {
      if (!json_object_has_member (actual, members[m]) || !json_object_has_member (expected, members[m]))
        continue;
      if (node_equal (json_object_get_member (expected, members[m]), json_object_get_member (actual, members[m])))
        continue;
      /* Which conversation is a version of which, and titles, have
       * their own kinds: each is its own rule of the documents. */
      if (g_str_equal (members[m], "versionOf") || g_str_equal (members[m], "title") || m >= 7)
        {
          g_autoptr(GString) one = g_string_new (NULL);

          differ (one, members[m], json_object_get_member (expected, members[m]),
                  json_object_get_member (actual, members[m]));
          add_difference (differences, g_str_equal (members[m], "title") ? "title"
                                       : m >= 7 ? (oracle_from_import (s) ? "import" : "settings") : "version-of", one);
          continue;
        }
      differ (out, members[m], json_object_get_member (expected, members[m]),
              json_object_get_member (actual, members[m]));
    }
  if (json_object_has_member (actual, "turns"))
    {
      JsonArray *want = json_object_get_array_member (expected, "turns");
      JsonArray *got = json_object_get_array_member (actual, "turns");
      gboolean only_own = json_object_get_boolean_member_with_default (actual, "only-own", FALSE);
      g_autoptr(JsonArray) compared = json_array_new ();
      guint n_want;

      /* A reader of one conversation's own turns (`natter show`) is
       * compared with the model's own turns; a recovered copy's turns may
       * be its own or referenced. */
      for (guint i = 0; i < json_array_get_length (want); i++)
        {
          JsonObject *turn = json_array_get_object_element (want, i);
          gboolean own = json_object_get_boolean_member (turn, "own");

          if (!only_own || own || (s->recovered && i + json_array_get_length (got) >= json_array_get_length (want)))
            json_array_add_object_element (compared, json_object_ref (turn));
        }
      n_want = json_array_get_length (compared);
      if (n_want != json_array_get_length (got))
        g_string_append_printf (out, "\n    %u turns expected, %u read", n_want, json_array_get_length (got));
      for (guint i = 0; i < MIN (n_want, json_array_get_length (got)); i++)
        compare_turn (out, i, json_array_get_object_element (compared, i), json_array_get_object_element (got, i),
                      !s->recovered);
    }
  if (out->len > 0)
    add_difference (differences, kind, out);
  return differences;
}

static void
report_differences (OracleDriver *d,
                    OSession     *s,
                    const char   *reader,
                    GPtrArray    *differences)
{
  for (guint i = 0; i < differences->len; i++)
    {
      Difference *difference = g_ptr_array_index (differences, i);

      oracle_driver_fail (d, difference->kind, "%s reads S%u (%s):%s", reader, s->n, s->id, difference->text);
      diverge (d, difference->kind, s);
    }
}

void
compare_view (OracleDriver *d,
              OSession     *s,
              const char   *reader,
              JsonNode     *expected_node,
              JsonNode     *actual_node)
{
  g_autoptr(GPtrArray) differences = diff_view (d, s, expected_node, actual_node);

  report_differences (d, s, reader, differences);
}

typedef struct
{
  OracleDriver      *d;
  OSession          *s;
  OracleReaderEntry *reader;
  JsonNode          *expected;
  GPtrArray         *differences;
} Eventual;

static gboolean
reads_as_expected_cb (gpointer data)
{
  Eventual *e = data;
  g_autoptr(JsonNode) actual = e->reader->reader (e->d, e->s, e->reader->data);

  g_clear_pointer (&e->differences, g_ptr_array_unref);
  if (actual == NULL)
    return TRUE;
  e->differences = diff_view (e->d, e->s, e->expected, actual);
  return e->differences->len == 0;
}

/* A reader that follows the services on the main loop (the window) is
 * given until the wait's end to show what the model says. */
static void
compare_eventually (OracleDriver      *d,
                    OSession          *s,
                    OracleReaderEntry *reader,
                    JsonNode          *expected)
{
  Eventual e = { d, s, reader, expected, NULL };

  if (!oracle_driver_wait (d, reads_as_expected_cb, &e) && e.differences != NULL)
    report_differences (d, s, reader->name, e.differences);
  g_clear_pointer (&e.differences, g_ptr_array_unref);
}

/* The versions the service lists for @s against the model's. */
static void
check_versions (OracleDriver *d,
                OSession     *s)
{
  g_autoptr(GPtrArray) expected = oracle_expected_versions (d->o, s);
  g_autoptr(GPtrArray) visible = oracle_visible (s);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GHashTable) versions = NULL;
  g_autoptr(GError) error = NULL;

  if (expected == NULL || oracle_session_shows_damage (s))
    return;
  natter_sessions_list_versions_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  versions = natter_sessions_list_versions_finish (d->f.sessions, wait_result (d, &result, "listVersions"), &error);
  if (versions == NULL)
    {
      oracle_driver_fail (d, "versions", "the versions of S%u cannot be listed: %s", s->n, error->message);
      return;
    }
  for (guint i = 0; i < visible->len; i++)
    {
      OTurn *t = g_ptr_array_index (visible, i);
      GPtrArray *want = g_ptr_array_index (expected, i);
      GPtrArray *got = t->id != NULL ? g_hash_table_lookup (versions, t->id) : NULL;
      g_autoptr(GString) want_text = g_string_new (NULL);
      g_autoptr(GString) got_text = g_string_new (NULL);
      guint n_got = got != NULL ? got->len : 0;
      gboolean unreadable = FALSE;

      /* A version whose conversation cannot be read is not determined. */
      for (guint j = 0; j < want->len; j++)
        {
          OTurn *v = g_ptr_array_index (want, j);
          OTurn *latest = oracle_latest_own (v->owner);

          unreadable |= v->damaged || (latest != NULL && latest->damaged);
        }
      if (unreadable)
        continue;

      for (guint j = 0; j < want->len; j++)
        g_string_append_printf (want_text, " T%u", ((OTurn *) g_ptr_array_index (want, j))->n);
      for (guint j = 0; j < n_got; j++)
        {
          NatterTurnVersion *v = g_ptr_array_index (got, j);
          OTurn *known = NULL;

          for (guint k = 0; k < d->o->turns->len && known == NULL; k++)
            if (g_strcmp0 (((OTurn *) g_ptr_array_index (d->o->turns, k))->id, v->turn_id) == 0)
              known = g_ptr_array_index (d->o->turns, k);
          if (known != NULL)
            g_string_append_printf (got_text, " T%u", known->n);
          else
            g_string_append_printf (got_text, " %s", v->turn_id);
        }
      if ((want->len > 1 || n_got > 1) && !g_str_equal (want_text->str, got_text->str))
        oracle_driver_fail (d, "versions", "T%u in S%u: versions%s expected, listed%s", t->n, s->n, want_text->str,
                            got_text->str);
    }
}

/* ------------------------------------------------------------------ */
/* The files                                                            */
/* ------------------------------------------------------------------ */

static gboolean
is_damaged_file (OracleDriver *d,
                 const char   *name)
{
  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->damaged && t->id != NULL && g_str_has_prefix (name, t->id))
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_v2_event (const char *type)
{
  return g_str_equal (type, "permission_grant_added") || g_str_equal (type, "permission_grant_removed") ||
         g_str_equal (type, "message_queued") || g_str_equal (type, "queued_message_replaced") ||
         g_str_equal (type, "queued_message_removed") || g_str_equal (type, "conversation_compacted");
}

/* docs/format.md §2 and §3.3: every line is RFC 8259 JSON (no raw control
 * byte); a session file is created at schema version 1 and raised to 2
 * by one `schema_upgraded` right before its first version-2 event. */
static void
check_file (OracleDriver *d,
            GFile        *file,
            gboolean      session)
{
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *contents = NULL;
  g_autofree char *base = g_file_get_basename (file);
  g_auto(GStrv) lines = NULL;
  gsize length;
  gboolean upgraded = FALSE;
  gboolean v2_seen = FALSE;

  if (!g_str_has_suffix (base, ".jsonl") || base[0] == '.' || is_damaged_file (d, base))
    return;
  if (!g_file_get_contents (path, &contents, &length, NULL))
    return;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_autofree char *what = g_strdup_printf ("line %u of %s", i + 1, base);
      g_autoptr(JsonNode) node = NULL;
      JsonObject *event;
      const char *type;

      check_wire_bytes (d, what, lines[i], strlen (lines[i]));
      if (!session)
        continue;
      node = json_from_string (lines[i], NULL);
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        continue;
      event = json_node_get_object (node);
      type = json_object_get_string_member_with_default (event, "type", "");
      if (i == 0 && g_str_equal (type, "session_created") &&
          json_object_get_int_member_with_default (event, "schemaVersion", 0) != 1)
        oracle_driver_fail (d, "schema-version", "%s is created at schema version %" G_GINT64_FORMAT ", not 1", base,
                            json_object_get_int_member_with_default (event, "schemaVersion", 0));
      if (g_str_equal (type, "schema_upgraded"))
        upgraded = TRUE;
      if ((is_v2_event (type) ||
           (g_str_equal (type, "turn_appended") && json_object_has_member (event, "consumedQueueIds"))) &&
          !v2_seen)
        {
          v2_seen = TRUE;
          if (!upgraded)
            oracle_driver_fail (d, "schema-version", "%s has %s (line %u) without schema_upgraded before it", base,
                                type, i + 1);
        }
    }
}

static void
check_tree (OracleDriver *d,
            GFile        *dir,
            gboolean      session)
{
  g_autoptr(GFileEnumerator) children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_TYPE ","
                                                                   G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                                   G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;
  GFile *child;

  while (children != NULL && g_file_enumerator_iterate (children, &info, &child, NULL, NULL) && info != NULL)
    {
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        check_tree (d, child, session);
      else
        check_file (d, child, session);
    }
}

void
check_files (OracleDriver *d)
{
  g_autoptr(GFile) sessions = g_file_resolve_relative_path (d->f.dir, "storage/sessions");
  g_autoptr(GFile) turns = g_file_resolve_relative_path (d->f.dir, "storage/turns");

  check_tree (d, sessions, TRUE);
  check_tree (d, turns, FALSE);
}

/* ------------------------------------------------------------------ */
/* Checking after an operation                                          */
/* ------------------------------------------------------------------ */

void
check_readings (OracleDriver *d,
                gboolean      all)
{
  if (d->f.services == NULL)
    return;
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      g_autoptr(JsonNode) expected = NULL;

      if (s->id == NULL || s->diverged || (!all && !g_hash_table_contains (d->touched, s)))
        continue;
      expected = oracle_expected_view (d->o, s);
      for (guint r = 0; r < d->readers->len; r++)
        {
          OracleReaderEntry *reader = g_ptr_array_index (d->readers, r);
          g_autoptr(JsonNode) actual = NULL;

          count (d, reader->eventual ? "window-readings" : "service-readings");
          if (reader->eventual)
            {
              compare_eventually (d, s, reader, expected);
              continue;
            }
          actual = reader->reader (d, s, reader->data);
          if (actual != NULL)
            compare_view (d, s, reader->name, expected, actual);
        }
      check_versions (d, s);
    }
  g_hash_table_remove_all (d->touched);
}
