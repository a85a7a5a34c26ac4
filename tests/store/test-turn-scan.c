/* test-turn-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The startup scan's tree-free read of a latest turn file
 * (natter-turn-scan.c) against the full read it stands in for
 * (natter_jsonl_repo_read_sync(), then natter_turn_reduce() and
 * natter_derive_turn_status()): whenever the scan decides, the full read
 * accepts the file and derives the same status, and the search index's
 * words (natter_turn_scan_contents_text()) are those of the full read's
 * state; natter_turn_scan_file_sync()
 * always gives what the full read gives, status or error. Turns written by
 * the runtime and generated ones of every shape the scan decides, whole
 * and damaged (docs/sessions.md §8.2, docs/runtime.md §3–§4).
 * Random but deterministic: one fixed seed.
 */

#include <string.h>

#include "natter-id.h"
#include "natter-json-private.h"
#include "natter-log-read.h"
#include "natter-jsonl-repo.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"
#include "natter-turn-scan.h"
#include "natter-test-fakes.h"

#define SEED 0x7475726e

typedef struct
{
  NatterTestWorld *w;
  GRand           *rand;
  guint            decided;    /* by the scan */
  guint            full_only;  /* valid, left to the full read */
  guint            refused;
  guint            worded;     /* decided with words in both texts */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->w = natter_test_world_new ();
  f->rand = g_rand_new_with_seed (SEED);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_test_message ("%u files decided by the scan, %u valid ones left to the full read, %u refused",
                  f->decided, f->full_only, f->refused);
  natter_test_world_free (f->w);
  g_rand_free (f->rand);
}

static char *
make_id (guint n)
{
  return g_strdup_printf ("2024-03-%02uT10-20-30Z-%07u-%03u", 1 + n % 28, n % 10000000, n % 1000);
}

/* Writes @bytes as the turn file of @id and holds the scan to the full
 * read on it. Returns whether the scan decided it. */
static gboolean
check_file (Fixture    *f,
            const char *id,
            const char *bytes,
            gsize       length)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->turn_repo, id, NULL);
  g_autoptr(GFile) parent = g_file_get_parent (file);
  g_autoptr(GError) full_error = NULL;
  g_autoptr(GError) scan_error = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  NatterTurnStatus fast = NATTER_TURN_STATUS_IDLE;
  NatterTurnStatus from_file = NATTER_TURN_STATUS_IDLE;
  gboolean fast_imported = FALSE;
  gboolean file_imported = FALSE;
  gboolean fast_ok, file_ok;

  g_assert_true (g_mkdir_with_parents (g_file_peek_path (parent), 0700) == 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), bytes, length, NULL));

  state = natter_turn_reduce_file_sync (f->w->turn_repo, id, NULL, NULL, &full_error);

  fast_ok = natter_turn_scan_contents (bytes, length, id, &fast, &fast_imported);
  if (fast_ok && (state == NULL || fast != natter_derive_turn_status (state) ||
                  fast_imported != natter_turn_state_is_imported (state)))
    {
      g_autofree char *shown = g_strescape (bytes, NULL);

      g_test_message ("disagreement (scan: %s, full read: %s) on: %s", natter_turn_status_to_string (fast),
                      state != NULL ? natter_turn_status_to_string (natter_derive_turn_status (state))
                                    : full_error->message, shown);
      g_assert_not_reached ();
    }

  /* The search index's words: where the scan decides, the same as the
   * full read's state gives, and nothing where it does not. */
  {
    g_autoptr(GString) user = g_string_new ("before");
    g_autoptr(GString) answer = g_string_new (NULL);
    gboolean text_ok = natter_turn_scan_contents_text (bytes, length, id, user, answer);

    /* Decided where the status is, and for a turn that may still run
     * elsewhere too: where it runs changes no word. */
    if (fast_ok)
      g_assert_true (text_ok);
    if (text_ok)
      g_assert_nonnull (state);
    if (text_ok)
      {
        g_autoptr(GString) full_user = g_string_new ("before");
        g_autoptr(GString) full_answer = g_string_new (NULL);

        natter_turn_text_from_state (state, full_user, full_answer);
        g_assert_cmpstr (user->str, ==, full_user->str);
        g_assert_cmpstr (answer->str, ==, full_answer->str);
        f->worded += user->len > strlen ("before") && answer->len > 0;
      }
    else
      {
        g_assert_cmpstr (user->str, ==, "before");
        g_assert_cmpstr (answer->str, ==, "");
      }
  }

  file_ok = natter_turn_scan_file_sync (f->w->turn_repo, id, &from_file, &file_imported, NULL, &scan_error);
  g_assert_cmpint (file_ok, ==, state != NULL);
  if (state != NULL)
    {
      g_assert_no_error (scan_error);
      g_assert_cmpint (from_file, ==, natter_derive_turn_status (state));
      g_assert_cmpint (file_imported, ==, natter_turn_state_is_imported (state));
      if (fast_ok)
        f->decided++;
      else
        f->full_only++;
      return fast_ok;
    }
  g_assert_nonnull (scan_error);
  g_assert_true (scan_error->domain == full_error->domain);
  g_assert_cmpint (scan_error->code, ==, full_error->code);
  g_assert_cmpstr (scan_error->message, ==, full_error->message);
  f->refused++;
  return FALSE;
}

/* Generated turns */

static const char * const texts[] = {
  "Hello", "", "a \"quoted\" word", "back\\slash", "two\nlines", "\x01" "ctl\x1f" "x\x7f",
  "é ü ß — 😀", "/slash/", "\\u0041 is not A", "日本語",
};

static const char *
random_text (GRand *rand)
{
  return texts[g_rand_int_range (rand, 0, G_N_ELEMENTS (texts))];
}

static const char *
random_ts (GRand *rand)
{
  static const char * const stamps[] = {
    "2024-03-01T10:20:30Z", "2024-03-01T10:20:30.123Z", "2024-02-29T23:59:59.999999Z", "2024-06-30T23:59:60Z",
  };

  return stamps[g_rand_int_range (rand, 0, G_N_ELEMENTS (stamps))];
}

static JsonObject *
event_new (GRand      *rand,
           const char *type,
           const char *id)
{
  JsonObject *event = json_object_new ();

  json_object_set_string_member (event, "type", type);
  json_object_set_string_member (event, "turnId", id);
  json_object_set_string_member (event, "ts", random_ts (rand));
  if (g_rand_int_range (rand, 0, 8) == 0)
    json_object_set_string_member (event, "extra", random_text (rand));
  return event;
}

/* A message of @role: string content, or text (and reasoning) parts. */
static JsonObject *
message_new (GRand      *rand,
             const char *role)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  if (g_rand_boolean (rand))
    json_object_set_string_member (message, "content", random_text (rand));
  else
    {
      JsonArray *parts = json_array_new ();

      for (guint i = g_rand_int_range (rand, 0, 3); i > 0; i--)
        {
          JsonObject *part = json_object_new ();
          gboolean reasoning = g_str_equal (role, "assistant") && g_rand_boolean (rand);

          json_object_set_string_member (part, "type", reasoning ? "reasoning" : "text");
          json_object_set_string_member (part, "text", random_text (rand));
          json_array_add_object_element (parts, part);
        }
      json_object_set_array_member (message, "content", parts);
    }
  return message;
}

static JsonObject *
usage_new (GRand *rand)
{
  static const char * const fields[] = {
    "inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens",
  };
  JsonObject *usage = json_object_new ();

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    if (g_rand_boolean (rand))
      json_object_set_int_member (usage, fields[i], g_rand_int_range (rand, 0, 500));
  return usage;
}

static JsonObject *
tool_new (GRand *rand,
          guint  i)
{
  JsonObject *tool = json_object_new ();
  g_autofree char *name = g_strdup_printf (i % 3 == 2 ? "tool \"%u\"" : "tool_%u", i);

  json_object_set_string_member (tool, "toolId", "t.x");
  json_object_set_string_member (tool, "name", name);
  json_object_set_string_member (tool, "description", random_text (rand));
  json_object_set_object_member (tool, "inputSchema", json_object_new ());
  json_object_set_string_member (tool, "execution", g_rand_boolean (rand) ? "sync" : "async");
  json_object_set_boolean_member (tool, "requiresHuman", g_rand_boolean (rand));
  return tool;
}

static JsonObject *
turn_created_new (GRand      *rand,
                  const char *id,
                  guint       n,
                  gint64      max_model_calls,
                  gboolean   *out_reference)
{
  JsonObject *event = event_new (rand, "turn_created", id);
  JsonObject *agent = json_object_new ();
  JsonObject *requested = json_object_new ();
  JsonObject *resolved = json_object_new ();
  JsonObject *model = json_object_new ();
  JsonArray *tools = json_array_new ();
  JsonObject *config = json_object_new ();

  json_object_set_int_member (event, "schemaVersion", g_rand_int_range (rand, 0, 4) == 0 ? 2 : 1);
  if (g_rand_boolean (rand))
    {
      g_autofree char *session_id = make_id (n + 500000);

      json_object_set_string_member (event, "sessionId", session_id);
    }
  else
    json_object_set_null_member (event, "sessionId");

  json_object_set_string_member (requested, "agentId", "helper");
  json_object_set_object_member (agent, "requested", requested);
  json_object_set_string_member (model, "provider", g_rand_boolean (rand) ? "p" : "local \"x\"");
  json_object_set_string_member (model, "model", "m");
  json_object_set_object_member (resolved, "model", model);
  json_object_set_string_member (resolved, "systemPrompt", random_text (rand));
  for (guint i = g_rand_int_range (rand, 0, 4); i > 0; i--)
    json_array_add_object_element (tools, tool_new (rand, i));
  json_object_set_array_member (resolved, "tools", tools);
  json_object_set_object_member (agent, "resolved", resolved);
  json_object_set_object_member (event, "agent", agent);

  *out_reference = g_rand_boolean (rand);
  if (*out_reference)
    {
      JsonObject *context = json_object_new ();
      g_autofree char *previous = make_id (n + 600000);

      json_object_set_string_member (context, "previousTurnId", previous);
      json_object_set_object_member (event, "context", context);
    }
  else
    json_object_set_array_member (event, "context", json_array_new ());
  json_object_set_object_member (event, "input", message_new (rand, "user"));

  json_object_set_boolean_member (config, "autoPermission", g_rand_boolean (rand));
  json_object_set_boolean_member (config, "humanAvailable", g_rand_boolean (rand));
  json_object_set_int_member (config, "maxModelCalls", max_model_calls);
  if (g_rand_boolean (rand))
    json_object_set_string_member (config, "cwd", g_rand_boolean (rand) ? "/home/u/a \"b\"" : "/");
  if (g_rand_boolean (rand))
    json_object_set_object_member (config, "parameters", json_object_new ());
  /* An imported turn (docs/format.md §7.3): any value marks it. */
  switch (g_rand_int_range (rand, 0, 4))
    {
    case 0:
      json_object_set_object_member (config, "imported", json_object_new ());
      break;
    case 1:
      json_object_set_null_member (config, "imported");
      break;
    default:
      break;
    }
  json_object_set_object_member (event, "config", config);
  return event;
}

/* A valid turn of one of the shapes the scan decides: model calls
 * answered with text or failed, then completed, failed, cancelled or
 * nothing (interrupted). */
static GPtrArray *
generate_events (GRand      *rand,
                 const char *id,
                 guint       n)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  gint64 max_model_calls = g_rand_int_range (rand, 1, 4);
  gboolean reference;
  gboolean failed = FALSE;
  guint n_calls = 0;

  g_ptr_array_add (events, turn_created_new (rand, id, n, max_model_calls, &reference));
  while (n_calls < max_model_calls && g_rand_int_range (rand, 0, 5) != 0)
    {
      JsonObject *requested = event_new (rand, "model_call_requested", id);
      JsonObject *request = json_object_new ();
      JsonArray *refs = json_array_new ();
      JsonObject *closed;

      json_object_set_int_member (requested, "modelCallIndex", n_calls);
      if (n_calls == 0)
        {
          json_array_add_string_element (refs, "input");
          if (reference)
            {
              JsonObject *context_ref = json_object_new ();
              g_autofree char *previous = make_id (n + 600000);

              json_object_set_string_member (context_ref, "previousTurnId", previous);
              json_object_set_object_member (request, "contextRef", context_ref);
            }
        }
      json_object_set_array_member (request, "messages", refs);
      json_object_set_object_member (request, "parameters", json_object_new ());
      json_object_set_object_member (requested, "request", request);
      g_ptr_array_add (events, requested);

      /* Left open: an interrupted turn. */
      if (g_rand_int_range (rand, 0, 8) == 0)
        return events;
      failed = g_rand_int_range (rand, 0, 3) == 0;
      closed = event_new (rand, failed ? "model_call_failed" : "model_call_completed", id);
      json_object_set_int_member (closed, "modelCallIndex", n_calls);
      if (failed)
        {
          json_object_set_string_member (closed, "error", random_text (rand));
          if (g_rand_boolean (rand))
            json_object_set_object_member (closed, "partial", message_new (rand, "assistant"));
        }
      else
        {
          json_object_set_object_member (closed, "message", message_new (rand, "assistant"));
          json_object_set_string_member (closed, "finishReason", "stop");
          json_object_set_object_member (closed, "usage", usage_new (rand));
        }
      g_ptr_array_add (events, closed);
      n_calls++;
      if (!failed)
        break;
    }

  switch (g_rand_int_range (rand, 0, 4))
    {
    case 0:
      if (n_calls > 0 && !failed)
        {
          JsonObject *completed = event_new (rand, "turn_completed", id);

          json_object_set_object_member (completed, "output", message_new (rand, "assistant"));
          json_object_set_string_member (completed, "finishReason", "stop");
          json_object_set_object_member (completed, "usage", usage_new (rand));
          g_ptr_array_add (events, completed);
        }
      break;
    case 1:
      {
        JsonObject *end = event_new (rand, "turn_failed", id);

        json_object_set_string_member (end, "error", random_text (rand));
        if (n_calls == max_model_calls && g_rand_boolean (rand))
          json_object_set_string_member (end, "code", "model-call-limit");
        json_object_set_object_member (end, "usage", usage_new (rand));
        g_ptr_array_add (events, end);
      }
      break;
    case 2:
      {
        JsonObject *end = event_new (rand, "turn_cancelled", id);

        if (g_rand_boolean (rand))
          json_object_set_string_member (end, "reason", random_text (rand));
        json_object_set_object_member (end, "usage", usage_new (rand));
        g_ptr_array_add (events, end);
      }
      break;
    default:
      break;
    }
  return events;
}

/* A member somewhere in @object, at any depth, for a mutation. */
static JsonObject *
random_object (GRand      *rand,
               JsonObject *object)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (object, l->data);

      if (JSON_NODE_HOLDS_OBJECT (value) && g_rand_int_range (rand, 0, 3) == 0)
        return random_object (rand, json_node_get_object (value));
      if (JSON_NODE_HOLDS_ARRAY (value) && json_array_get_length (json_node_get_array (value)) > 0 &&
          g_rand_int_range (rand, 0, 3) == 0)
        {
          JsonArray *array = json_node_get_array (value);
          JsonNode *element = json_array_get_element (array, g_rand_int_range (rand, 0, json_array_get_length (array)));

          if (JSON_NODE_HOLDS_OBJECT (element))
            return random_object (rand, json_node_get_object (element));
        }
    }
  return object;
}

/* One schema- or invariant-level change, at the top of a random event or
 * anywhere inside it; most make the turn invalid, some take it out of
 * the shapes the scan decides. */
static void
mutate_event (GRand     *rand,
              GPtrArray *events,
              guint      n)
{
  JsonObject *event;
  JsonObject *target;
  g_autoptr(GList) names = NULL;
  const char *some_member;
  g_autofree char *other_id = make_id (n + 700000);

  if (events->len == 0)
    return;
  event = g_ptr_array_index (events, g_rand_int_range (rand, 0, events->len));
  target = g_rand_boolean (rand) ? event : random_object (rand, event);
  names = json_object_get_members (target);
  some_member = names != NULL ? g_list_nth_data (names, g_rand_int_range (rand, 0, g_list_length (names))) : "type";
  switch (g_rand_int_range (rand, 0, 28))
    {
    case 26:
    case 27:
      {
        /* A well-formed event appended that may not follow: another model
         * call (after an answer, a failure, an open call, the end, past
         * the budget) or another end. */
        g_autofree char *id = make_id (n);
        guint n_requested = 0;
        JsonObject *next;

        for (guint i = 0; i < events->len; i++)
          {
            JsonNode *type = json_object_get_member (g_ptr_array_index (events, i), "type");

            n_requested += type != NULL && JSON_NODE_HOLDS_VALUE (type) &&
                           g_strcmp0 (json_node_get_string (type), "model_call_requested") == 0;
          }
        if (g_rand_boolean (rand))
          {
            JsonObject *request = json_object_new ();

            next = event_new (rand, "model_call_requested", id);
            json_object_set_int_member (next, "modelCallIndex", n_requested);
            json_object_set_array_member (request, "messages", json_array_new ());
            json_object_set_object_member (request, "parameters", json_object_new ());
            json_object_set_object_member (next, "request", request);
          }
        else
          {
            next = event_new (rand, "turn_completed", id);
            json_object_set_object_member (next, "output", message_new (rand, "assistant"));
            json_object_set_string_member (next, "finishReason", "stop");
            json_object_set_object_member (next, "usage", usage_new (rand));
          }
        g_ptr_array_add (events, next);
      }
      break;
    case 0: json_object_remove_member (target, some_member); break;
    case 1: json_object_set_int_member (target, some_member, g_rand_int_range (rand, -1, 3)); break;
    case 2: json_object_set_null_member (target, some_member); break;
    case 3: json_object_set_string_member (target, some_member, ""); break;
    case 4: json_object_set_string_member (target, some_member, random_text (rand)); break;
    case 5: json_object_set_boolean_member (target, some_member, TRUE); break;
    case 6: json_object_set_object_member (target, some_member, json_object_new ()); break;
    case 7: json_object_set_array_member (target, some_member, json_array_new ()); break;
    case 8: json_object_set_double_member (target, some_member, 1.5); break;
    case 9: json_object_set_string_member (event, "turnId", other_id); break;
    case 10: json_object_set_string_member (event, "ts", "2024-13-01T00:00:00Z"); break;
    case 11:
      {
        static const char * const types[] = {
          "turn_created", "model_call_requested", "model_call_completed", "model_call_failed", "turn_completed",
          "turn_failed", "turn_cancelled", "turn_suspended", "model_step_event", "tool_result", "unknown", "",
        };

        json_object_set_string_member (event, "type", types[g_rand_int_range (rand, 0, G_N_ELEMENTS (types))]);
      }
      break;
    case 12: json_object_set_int_member (event, "modelCallIndex", g_rand_int_range (rand, -1, 3)); break;
    case 13: json_object_set_int_member (event, "schemaVersion", g_rand_int_range (rand, 0, 4)); break;
    case 14:
      {
        JsonObject *usage = json_object_new ();

        switch (g_rand_int_range (rand, 0, 3))
          {
          case 0: json_object_set_int_member (usage, "bogusTokens", 1); break;
          case 1: json_object_set_int_member (usage, "inputTokens", -1); break;
          default: json_object_set_int_member (usage, "inputTokens", G_MAXINT64); break;
          }
        json_object_set_object_member (event, "usage", usage);
      }
      break;
    case 15:
      {
        static const char * const roles[] = { "user", "assistant", "tool", "system", "" };

        json_object_set_string_member (target, "role", roles[g_rand_int_range (rand, 0, G_N_ELEMENTS (roles))]);
      }
      break;
    case 16:
      {
        /* A part of another kind: a tool call, a blob, an unknown one. */
        JsonArray *parts = json_array_new ();
        JsonObject *part = json_object_new ();

        switch (g_rand_int_range (rand, 0, 3))
          {
          case 0:
            json_object_set_string_member (part, "type", "tool-call");
            json_object_set_string_member (part, "toolCallId", "c1");
            json_object_set_string_member (part, "toolName", "tool_1");
            json_object_set_object_member (part, "arguments", json_object_new ());
            break;
          case 1:
            json_object_set_string_member (part, "type", "blob");
            json_object_set_string_member (part, "sha256", "00");
            break;
          default:
            json_object_set_string_member (part, "type", "picture");
            break;
          }
        json_array_add_object_element (parts, part);
        json_object_set_array_member (target, "content", parts);
      }
      break;
    case 17:
      {
        JsonObject *context_ref = json_object_new ();

        json_object_set_string_member (context_ref, "previousTurnId", other_id);
        json_object_set_object_member (target, "contextRef", context_ref);
      }
      break;
    case 18:
      {
        JsonArray *refs = json_array_new ();

        json_array_add_string_element (refs, g_rand_boolean (rand) ? "context" : "input");
        if (g_rand_boolean (rand))
          json_array_add_string_element (refs, "assistant:0");
        json_object_set_array_member (target, "messages", refs);
      }
      break;
    case 19: json_object_set_int_member (target, "maxModelCalls", g_rand_int_range (rand, 0, 2)); break;
    case 20: json_object_set_string_member (target, "execution", "later"); break;
    case 21: json_object_set_string_member (target, "cwd", g_rand_boolean (rand) ? "rel" : "/a/../b"); break;
    case 22: json_object_set_string_member (event, "code", "model-call-limit"); break;
    case 23:
      {
        /* Swap two events. */
        guint a = g_rand_int_range (rand, 0, events->len);
        guint b = g_rand_int_range (rand, 0, events->len);
        gpointer t = events->pdata[a];

        events->pdata[a] = events->pdata[b];
        events->pdata[b] = t;
      }
      break;
    case 24:
      if (events->len > 1)
        g_ptr_array_remove_index (events, g_rand_int_range (rand, 0, events->len));
      break;
    default:
      /* Appended twice. */
      g_ptr_array_add (events, json_object_ref (event));
      break;
    }
}

static void
test_valid_shapes (Fixture       *f,
                   gconstpointer  data)
{
  for (guint n = 0; n < 500; n++)
    {
      g_autofree char *id = make_id (n);
      g_autoptr(GPtrArray) events = generate_events (f->rand, id, n);
      g_autoptr(GString) text = natter_test_serialize_events (events);

      /* Every one of these is decided without a tree. */
      g_assert_true (check_file (f, id, text->str, text->len));
    }
  g_assert_cmpuint (f->full_only, ==, 0);
  /* The words compared are there, not only empty texts. */
  g_assert_cmpuint (f->worded, >, 100);
}

static void
test_mutated (Fixture       *f,
              gconstpointer  data)
{
  guint rounds = natter_test_mutated_rounds ();

  for (guint n = 0; n < rounds; n++)
    {
      g_autofree char *id = make_id (n);
      g_autoptr(GPtrArray) events = generate_events (f->rand, id, n);
      g_autoptr(GString) text = natter_test_mutate_log (f->rand, events, mutate_event, n);

      check_file (f, id, text->str, text->len);
    }
  /* Both verdicts must be well represented for the comparison to mean
   * anything (valid turns the scan leaves to the full read come from the
   * runtime, in runtime-turns). */
  g_assert_cmpuint (f->decided, >, rounds / 5);
  g_assert_cmpuint (f->refused, >, rounds / 4);
}

/* Turns as the runtime writes them: the scan decides the common ones and
 * leaves tools, suspensions and attachments to the full read, each with
 * the full read's status; every one of them, damaged at random, still
 * gets the full read's verdict. */
static char *
run_turn (Fixture    *f,
          const char *config,
          const char *first_step,
          ...)
{
  g_autoptr(NatterTurnExecution) execution = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  NatterTestWait wait = { 0 };
  char *turn_id = natter_test_create_turn (f->w->runtime, NULL, config);
  va_list args;

  va_start (args, first_step);
  for (const char *step = first_step; step != NULL; step = va_arg (args, const char *))
    natter_fake_model_script (f->w->fakes->model, step, NULL);
  va_end (args);
  execution = natter_turn_runtime_advance_turn (f->w->runtime, turn_id, NULL, cancellable);
  natter_test_wait_execution (execution, &wait);
  g_clear_pointer (&wait.outcome, natter_turn_outcome_unref);
  g_clear_error (&wait.error);
  return turn_id;
}

static GString *
read_turn (Fixture    *f,
           const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (f->w->turn_repo, turn_id, NULL);
  g_autofree char *contents = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, &length, NULL));
  return g_string_new_len (contents, length);
}

static void
test_runtime_turns (Fixture       *f,
                    gconstpointer  data)
{
  const char *config = "{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":5}";
  const struct
  {
    const char *steps[3];
    NatterTurnStatus status;
    gboolean decided;
  } turns[] = {
    { { NATTER_FAKE_TEXT_STEP }, NATTER_TURN_STATUS_COMPLETED, TRUE },
    { { "{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\",\"text\":\"hm\"},"
        "{\"type\":\"text\",\"text\":\"yes\"}]}" }, NATTER_TURN_STATUS_COMPLETED, TRUE },
    { { NATTER_FAKE_STEP_ERROR }, NATTER_TURN_STATUS_FAILED, TRUE },
    { { NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")), NATTER_FAKE_TEXT_STEP },
      NATTER_TURN_STATUS_COMPLETED, FALSE },
    { { NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "ab", "{}")) }, NATTER_TURN_STATUS_SUSPENDED, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (turns); i++)
    {
      g_autofree char *turn_id = run_turn (f, config, turns[i].steps[0], turns[i].steps[1], NULL);
      g_autoptr(GString) text = read_turn (f, turn_id);
      NatterTurnStatus status;

      g_assert_cmpint (natter_turn_scan_contents (text->str, text->len, turn_id, &status, NULL), ==, turns[i].decided);
      if (turns[i].decided)
        g_assert_cmpint (status, ==, turns[i].status);
      g_assert_cmpint (check_file (f, turn_id, text->str, text->len), ==, turns[i].decided);
      g_assert_true (natter_turn_scan_file_sync (f->w->turn_repo, turn_id, &status, NULL, NULL, NULL));
      g_assert_cmpint (status, ==, turns[i].status);

      for (guint round = 0; round < 300; round++)
        {
          g_autoptr(GString) damaged = g_string_new_len (text->str, text->len);

          natter_test_mutate_bytes (f->rand, damaged);
          check_file (f, turn_id, damaged->str, damaged->len);
        }
    }
}

/* A turn file that cannot be read at all: the full read's errors. */
static void
test_file_errors (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *id = make_id (5);
  g_autofree char *missing = make_id (6);
  g_autoptr(GPtrArray) events = generate_events (f->rand, id, 5);
  g_autoptr(GString) text = natter_test_serialize_events (events);
  NatterTurnStatus status;
  g_autoptr(GError) error = NULL;

  g_assert_false (check_file (f, id, "", 0));
  /* The last newline missing: a torn line. */
  g_assert_false (check_file (f, id, text->str, text->len - 1));
  g_assert_false (natter_turn_scan_file_sync (f->w->turn_repo, missing, &status, NULL, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (natter_turn_scan_file_sync (f->w->turn_repo, "../x", &status, NULL, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
}

/* The span walker lists what a container holds, as the tree has it. */
static void
test_span_walk (void)
{
  const char *line = "{\"a\":{\"x\\\"y\":[1,{\"b\":\"]}\"}],\"n\":-12,\"t\":true,\"z\":null,\"d\":1.5},"
                     "\"e\":[],\"s\":[\"q\\\\\",\"\"]}";
  NatterJsonMember members[8];
  NatterJsonMember inner[8];
  NatterJsonMember elements[8];
  guint n, n_inner, n_elements;

  g_assert_true (natter_json_line_scan_object (line, strlen (line), members, G_N_ELEMENTS (members), &n));
  g_assert_cmpuint (n, ==, 3);
  g_assert_true (natter_json_span_walk (members[0].value, members[0].value_length, inner, G_N_ELEMENTS (inner),
                                        &n_inner));
  g_assert_cmpuint (n_inner, ==, 5);
  g_assert_true (inner[0].name_escaped);
  g_assert_cmpint (inner[0].kind, ==, NATTER_JSON_SPAN_ARRAY);
  g_assert_cmpint (inner[1].kind, ==, NATTER_JSON_SPAN_INT);
  g_assert_cmpint (inner[1].int_value, ==, -12);
  g_assert_cmpint (inner[2].kind, ==, NATTER_JSON_SPAN_BOOLEAN);
  g_assert_cmpint (inner[2].int_value, ==, 1);
  g_assert_cmpint (inner[3].kind, ==, NATTER_JSON_SPAN_NULL);
  g_assert_cmpint (inner[4].kind, ==, NATTER_JSON_SPAN_DOUBLE);
  g_assert_true (natter_json_span_walk (inner[0].value, inner[0].value_length, elements, G_N_ELEMENTS (elements),
                                        &n_elements));
  g_assert_cmpuint (n_elements, ==, 2);
  g_assert_null (elements[1].name);
  g_assert_cmpint (elements[1].kind, ==, NATTER_JSON_SPAN_OBJECT);
  g_assert_cmpuint (elements[1].value_length, ==, strlen ("{\"b\":\"]}\"}"));

  g_assert_true (natter_json_span_walk (members[1].value, members[1].value_length, elements, 8, &n_elements));
  g_assert_cmpuint (n_elements, ==, 0);
  g_assert_true (natter_json_span_walk (members[2].value, members[2].value_length, elements, 8, &n_elements));
  g_assert_cmpuint (n_elements, ==, 2);
  g_assert_true (elements[0].escaped);
  g_assert_cmpuint (elements[1].value_length, ==, 0);
  /* More items than room: undecided, never a partial list. */
  g_assert_false (natter_json_span_walk (members[0].value, members[0].value_length, inner, 4, &n_inner));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/turn-scan/span-walk", test_span_walk);
  g_test_add ("/turn-scan/valid-shapes", Fixture, NULL, fixture_set_up, test_valid_shapes, fixture_tear_down);
  g_test_add ("/turn-scan/runtime-turns", Fixture, NULL, fixture_set_up, test_runtime_turns, fixture_tear_down);
  g_test_add ("/turn-scan/file-errors", Fixture, NULL, fixture_set_up, test_file_errors, fixture_tear_down);
  g_test_add ("/turn-scan/mutated", Fixture, NULL, fixture_set_up, test_mutated, fixture_tear_down);
  return g_test_run ();
}
