/* oracle-driver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
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
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

/* How long the model's expectations may take to come true. Generous: the
 * machine the suite runs on may be loaded; a wait that holds returns at
 * once. */
#define WAIT_MS 30000

static const char *
sse_finish (const char *reason)
{
  return g_str_equal (reason, "stop")
         ? "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
         : "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
}

#define SSE_DONE "data: [DONE]\n\n"

/* An answer to a turn (a decision, an answer) ends when the turn settles
 * again, which a held stream puts off: such an operation is finished
 * when the stream ends. */
typedef enum
{
  PENDING_PERMISSION,
  PENDING_ALWAYS,
  PENDING_ANSWER,
} PendingKind;

struct _OraclePending
{
  PendingKind   kind;
  GAsyncResult *result;
  OTurn        *turn;
  OGrant       *grant;
};

G_DEFINE_QUARK (oracle-shown-refusal-quark, oracle_shown_refusal)

void
oracle_sent_clear (OracleSent *sent)
{
  g_clear_pointer (&sent->session_id, g_free);
  g_clear_pointer (&sent->turn_id, g_free);
  g_clear_pointer (&sent->queue_id, g_free);
  g_clear_error (&sent->error);
}

/* ------------------------------------------------------------------ */
/* Failures and the report                                              */
/* ------------------------------------------------------------------ */

static gboolean
deferred (OracleDriver *d,
          const char   *kind)
{
  g_auto(GStrv) kinds = NULL;

  if (d->options.defer == NULL)
    return FALSE;
  kinds = g_strsplit (d->options.defer, ",", -1);
  return g_strv_contains ((const char * const *) kinds, kind);
}

void
oracle_driver_fail (OracleDriver *d,
                    const char   *kind,
                    const char   *format,
                    ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  if (!g_hash_table_add (d->failed, g_strdup_printf ("[%s] %s", kind, message)))
    return;
  oracle_log (d->o, "FAILED [%s] %s", kind, message);
  g_ptr_array_add (d->failures, g_strdup_printf ("op %u [%s] %s", d->op_number, kind, message));
  if (deferred (d, kind))
    {
      g_hash_table_add (d->deferred_kinds, g_strdup (kind));
      return;
    }
  d->n_failures++;
}

guint
oracle_driver_get_n_failures (OracleDriver *d)
{
  return d->n_failures;
}

/* A conversation an import failure (reported, deferred) left unlike the
 * model is left alone from then on, so that the run goes on to find
 * what else there is. */
static void
diverge (OracleDriver *d,
         const char   *kind,
         OSession     *s)
{
  if (s == NULL || g_strcmp0 (kind, "import") != 0 || !deferred (d, kind))
    return;
  /* The conversation, and all that were made from it. */
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *other = g_ptr_array_index (d->o->sessions, i);

      for (OSession *up = other; up != NULL; up = up->parent != NULL ? up->parent : up->version_of)
        if (up == s)
          other->diverged = TRUE;
    }
}

static void
count (OracleDriver *d,
       const char   *what)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (d->counts, what));

  g_hash_table_replace (d->counts, g_strdup (what), GUINT_TO_POINTER (n + 1));
}

char *
oracle_driver_dup_counts (OracleDriver *d)
{
  g_autoptr(GList) keys = g_list_sort (g_hash_table_get_keys (d->counts), (GCompareFunc) g_strcmp0);
  GString *out = g_string_new (NULL);

  for (GList *l = keys; l != NULL; l = l->next)
    g_string_append_printf (out, "%s%s=%u", out->len > 0 ? " " : "", (char *) l->data,
                            GPOINTER_TO_UINT (g_hash_table_lookup (d->counts, l->data)));
  g_string_append_printf (out, " model-calls=%u titles=%u summaries=%u", d->o->n_model_calls,
                          d->o->n_title_requests, d->o->n_summary_requests);
  return g_string_free (out, FALSE);
}

char *
oracle_driver_dup_report (OracleDriver *d)
{
  GString *out = g_string_new (NULL);
  g_autofree char *counts = oracle_driver_dup_counts (d);

  g_string_append_printf (out, "seed %u: %u operations, %u failure(s)\n", d->options.seed, d->op_number,
                          d->failures->len);
  g_string_append_printf (out, "counts: %s\n", counts);
  for (guint i = 0; i < d->failures->len; i++)
    g_string_append_printf (out, "FAILURE %s\n", (char *) g_ptr_array_index (d->failures, i));
  if (d->failures->len > 0 || d->options.verbose)
    g_string_append_printf (out, "operation log:\n%s", d->o->log->str);
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ */
/* The scripted model                                                   */
/* ------------------------------------------------------------------ */

static const char *
keep (OracleDriver *d,
      char         *text)
{
  g_ptr_array_add (d->scratch, text);
  return text;
}

static char *
quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

/* RFC 8259: a control character is never raw inside a string, and
 * outside strings only the four whitespace characters may appear. */
static void
check_wire_bytes (OracleDriver *d,
                  const char   *what,
                  const char   *text,
                  gsize         length)
{
  gboolean in_string = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      guchar c = (guchar) text[i];

      if (in_string && c == '\\')
        {
          i++;
          continue;
        }
      if (c == '"')
        in_string = !in_string;
      if (c < 0x20 && (in_string || (c != ' ' && c != '\t' && c != '\n' && c != '\r')))
        {
          g_autofree char *excerpt = g_strndup (text + (i > 40 ? i - 40 : 0), 80);
          g_autofree char *shown = g_strescape (excerpt, NULL);

          oracle_driver_fail (d, "control-bytes", "%s holds the raw byte 0x%02x at %" G_GSIZE_FORMAT ": …%s…", what,
                              c, i, shown);
          return;
        }
    }
}

static void
responder (NatterTestServer   *server,
           guint               index,
           const char         *path,
           const char         *body,
           NatterTestResponse *response,
           gpointer            user_data)
{
  OracleDriver *d = user_data;
  OResponse *r;
  GPtrArray *chunks;

  g_ptr_array_set_size (d->scratch, 0);
  if (!g_str_has_suffix (path, "/chat/completions"))
    {
      response->status = 404;
      response->content_type = "application/json";
      response->body = "{\"error\":{\"message\":\"no such path\"}}";
      return;
    }
  check_wire_bytes (d, "a request body", body, strlen (body));
  r = oracle_answer_request (d->o, body, d->child != NULL);
  if (r->mismatch != NULL)
    {
      oracle_driver_fail (d, r->mismatch_kind, "%s", r->mismatch);
      diverge (d, r->mismatch_kind, r->mismatch_session);
    }
  chunks = g_ptr_array_new ();
  response->status = 200;
  response->content_type = "text/event-stream";
  switch (r->kind)
    {
    case ORESP_ANSWER:
    case ORESP_TITLE:
    case ORESP_SUMMARY:
    case ORESP_HOLD:
      g_ptr_array_add (chunks, (gpointer) keep (d, g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":"
                                                                    "{\"content\":\"%s\"}}]}\n\n", r->wire_text)));
      if (r->kind == ORESP_HOLD)
        {
          response->keep_open = TRUE;
          r->turn->held_index = (gint) index;
          if (r->turn->in_child)
            d->kill_requested = TRUE;
        }
      else
        {
          g_ptr_array_add (chunks, (gpointer) sse_finish ("stop"));
          g_ptr_array_add (chunks, (gpointer) SSE_DONE);
        }
      break;
    case ORESP_TOOLS:
      for (guint i = 0; i < r->wire_calls->len; i++)
        {
          OCall *call = g_ptr_array_index (r->wire_calls, i);
          g_autofree char *args = quote (call->args);

          g_ptr_array_add (chunks, (gpointer) keep (d, g_strdup_printf (
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%u,\"id\":\"%s\","
            "\"type\":\"function\",\"function\":{\"name\":\"%s\",\"arguments\":%s}}]}}]}\n\n",
            i, call->id, call->name, args)));
        }
      g_ptr_array_add (chunks, (gpointer) sse_finish ("tool_calls"));
      g_ptr_array_add (chunks, (gpointer) SSE_DONE);
      break;
    case ORESP_FAIL:
    case ORESP_UNEXPECTED:
      response->status = 500;
      response->content_type = "application/json";
      response->body = keep (d, g_strdup (r->error_body != NULL ? r->error_body
                                                                : "{\"error\":{\"message\":\"unexpected\"}}"));
      break;
    }
  g_ptr_array_add (chunks, NULL);
  if (response->body == NULL)
    response->chunks = (const char *const *) chunks->pdata;
  g_ptr_array_add (d->scratch, chunks->pdata);
  g_ptr_array_free (chunks, FALSE);
  oracle_response_free (r);
}

/* ------------------------------------------------------------------ */
/* Waiting                                                              */
/* ------------------------------------------------------------------ */

gboolean
oracle_driver_wait (OracleDriver    *d,
                    NatterTestCheck  condition,
                    gpointer         data)
{
  return natter_test_wait_until (condition, data, WAIT_MS);
}

static gboolean
pointer_set_cb (gpointer data)
{
  return *(gpointer *) data != NULL;
}

/* Waits for an async result; a result that never comes is a failure the
 * run cannot go on from. */
static GAsyncResult *
wait_result (OracleDriver  *d,
             GAsyncResult **slot,
             const char    *what)
{
  if (!oracle_driver_wait (d, pointer_set_cb, slot))
    {
      g_autofree char *report = NULL;

      oracle_driver_fail (d, "stalled", "%s never finished", what);
      report = oracle_driver_dup_report (d);
      g_printerr ("%s", report);
      g_error ("seed %u: %s never finished", d->options.seed, what);
    }
  return *slot;
}

static gboolean
quiet_cb (gpointer data)
{
  OracleDriver *d = data;

  return d->kill_requested || oracle_quiet (d->o);
}

static char *
describe_waiting (OracleDriver *d)
{
  g_autoptr(GPtrArray) waiting = oracle_waiting_turns (d->o);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < waiting->len; i++)
    {
      OTurn *t = g_ptr_array_index (waiting, i);

      g_string_append_printf (out, " T%u (%s) of S%u waits for its model call %u;", t->n,
                              t->id != NULL ? t->id : "?", t->owner->n, t->n_calls + 1);
    }
  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);

      if (s->title_wanted)
        g_string_append_printf (out, " S%u waits for its title request;", s->n);
    }
  if (d->o->compacting != NULL)
    g_string_append_printf (out, " S%u waits for its summary request;", d->o->compacting->n);
  return g_string_free (out, FALSE);
}

static gboolean
turns_rest_cb (gpointer data)
{
  OracleDriver *d = data;

  if (d->f.services == NULL)
    return TRUE;
  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->id != NULL && t->status != OT_HELD && t->status != OT_WAITING_CALL &&
          natter_sessions_is_turn_running (d->f.sessions, t->id))
        return FALSE;
    }
  return TRUE;
}

static void learn_ids (OracleDriver *d);
static void pending_collect (OracleDriver *d);
static void learn_new_session (OracleDriver *d, OSession *s);

static void
flush (OracleDriver *d)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_flush_async (d->f.sessions, NULL, natter_test_result_cb, &result);
  natter_sessions_flush_finish (d->f.sessions, wait_result (d, &result, "a flush"), NULL);
}

/* Waits until everything the model expects has happened: every model
 * call it waits for has come, every turn that is not streaming has
 * settled, and the session layer has written all it was doing. A model
 * call that never comes is a turn left waiting: a failure. */
static void
settle (OracleDriver *d)
{
  for (guint round = 0; round < 4; round++)
    {
      if (!oracle_driver_wait (d, quiet_cb, d))
        {
          g_autofree char *waiting = describe_waiting (d);

          g_autoptr(GPtrArray) turns = oracle_waiting_turns (d->o);

          /* A title that never came is the rule of titles; anything else
           * is a turn (or a compaction) left waiting. */
          oracle_driver_fail (d, turns->len == 0 && d->o->compacting == NULL ? "title" : "stalled",
                              "nothing came for:%s", waiting);
          /* Stop waiting for it, so that the run reports and ends. */
          for (guint i = 0; i < d->o->turns->len; i++)
            if (((OTurn *) g_ptr_array_index (d->o->turns, i))->status == OT_WAITING_CALL)
              ((OTurn *) g_ptr_array_index (d->o->turns, i))->status = OT_IDLE;
          for (guint i = 0; i < d->o->sessions->len; i++)
            ((OSession *) g_ptr_array_index (d->o->sessions, i))->title_wanted = FALSE;
          d->o->compacting = NULL;
          return;
        }
      if (d->f.services == NULL)
        return;
      learn_ids (d);
      if (!oracle_driver_wait (d, turns_rest_cb, d))
        oracle_driver_fail (d, "stalled", "a turn the model says has settled still runs");
      pending_collect (d);
      flush (d);
      if (oracle_quiet (d->o))
        return;
    }
}

/* ------------------------------------------------------------------ */
/* Reading through the session service                                  */
/* ------------------------------------------------------------------ */

static NatterSessionState *
get_session (OracleDriver  *d,
             const char    *id,
             GError       **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  natter_sessions_get_session_async (d->f.sessions, id, NULL, natter_test_result_cb, &result);
  return natter_sessions_get_session_finish (d->f.sessions, wait_result (d, &result, "getSession"), error);
}

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
static void
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

static char *
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

/* The turn ids @state shows: its parent's up to the fork point, then its
 * own. */
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
      g_autoptr(NatterSessionState) parent_state = get_session (d, parent, NULL);

      if (parent_state != NULL)
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

static JsonNode *
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
  static const char *const members[] = { "title", "queue", "grants", "error", "latest", "versionOf", "inherited" };
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
      if (g_str_equal (members[m], "versionOf") || g_str_equal (members[m], "title"))
        {
          g_autoptr(GString) one = g_string_new (NULL);

          differ (one, members[m], json_object_get_member (expected, members[m]),
                  json_object_get_member (actual, members[m]));
          add_difference (differences, g_str_equal (members[m], "title") ? "title" : "version-of", one);
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

static void
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

static void
check_files (OracleDriver *d)
{
  g_autoptr(GFile) sessions = g_file_resolve_relative_path (d->f.dir, "storage/sessions");
  g_autoptr(GFile) turns = g_file_resolve_relative_path (d->f.dir, "storage/turns");

  check_tree (d, sessions, TRUE);
  check_tree (d, turns, FALSE);
}

/* ------------------------------------------------------------------ */
/* Restarts and `natter` processes                                     */
/* ------------------------------------------------------------------ */

static gboolean
no_pending_cb (gpointer data)
{
  OracleDriver *d = data;

  for (guint i = 0; i < d->pending->len; i++)
    if (((OraclePending *) g_ptr_array_index (d->pending, i))->result == NULL)
      return FALSE;
  return TRUE;
}

static void
drop_services (OracleDriver *d)
{
  /* A new process has no error bar to press Retry on. */
  d->can_retry = FALSE;
  if (!oracle_driver_wait (d, no_pending_cb, d))
    oracle_driver_fail (d, "stalled", "an answer to a turn never finished");
  pending_collect (d);
  if (d->hook != NULL)
    d->hook (d, FALSE, d->hook_data);
  natter_test_services_drop (&d->f);
}

static void
load_services (OracleDriver *d)
{
  natter_test_services_load (&d->f);
  if (d->hook != NULL)
    d->hook (d, TRUE, d->hook_data);
}

static gboolean
child_done_cb (gpointer data)
{
  OracleDriver *d = data;

  return d->run.done || d->kill_requested;
}

static gboolean
run_done_cb (gpointer data)
{
  return ((NatterTestRun *) data)->done;
}

/* Runs `natter @args` over the data directory while the services are
 * dropped (it takes the directory's writer lock, as a second process
 * would), answering its model calls; kills it (SIGKILL) when the model
 * holds a call it makes. Returns whether it was killed. */
static gboolean
run_natter (OracleDriver       *d,
            const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  gboolean killed = FALSE;
  g_autofree char *line = g_strjoinv (" ", (char **) args);

  natter_test_run_clear (&d->run);
  memset (&d->run, 0, sizeof d->run);
  drop_services (d);
  launcher = natter_test_cli_launcher_new (d->f.dir);
  d->child = natter_test_cli_spawn (launcher, args);
  d->kill_requested = FALSE;
  natter_test_communicate (d->child, &d->run);
  if (!oracle_driver_wait (d, child_done_cb, d))
    oracle_driver_fail (d, "stalled", "natter %s did not end", line);
  if (!d->run.done)
    {
      killed = d->kill_requested;
      g_subprocess_force_exit (d->child);
      if (!oracle_driver_wait (d, run_done_cb, &d->run))
        g_error ("natter %s could not be killed", line);
    }
  d->kill_requested = FALSE;
  g_clear_object (&d->child);
  if (killed)
    {
      oracle_log (d->o, "  natter %s: killed (SIGKILL)", line);
      oracle_killed (d->o);
      count (d, "kills");
    }
  else
    {
      g_autofree char *err = g_strescape (d->run.err != NULL ? d->run.err : "", NULL);

      oracle_log (d->o, "  natter %s: exit %d %s", line, d->run.status, err);
      for (guint i = 0; i < d->o->turns->len; i++)
        ((OTurn *) g_ptr_array_index (d->o->turns, i))->in_child = FALSE;
      for (guint i = 0; i < d->o->sessions->len; i++)
        ((OSession *) g_ptr_array_index (d->o->sessions, i))->title_in_child = FALSE;
    }
  load_services (d);
  return killed;
}

/* Runs a reading command; its output, or NULL after a failure. */
static JsonNode *
natter_json (OracleDriver       *d,
             const char * const *args,
             gboolean            may_fail)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (d->f.dir);
  g_autoptr(GSubprocess) process = natter_test_cli_spawn (launcher, args);
  g_auto(NatterTestRun) run = { 0 };
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  natter_test_communicate (process, &run);
  if (!oracle_driver_wait (d, run_done_cb, &run))
    g_error ("natter %s did not end", args[0]);
  check_wire_bytes (d, "the output of natter --json", run.out, strlen (run.out));
  if (run.status != 0)
    {
      if (!may_fail)
        oracle_driver_fail (d, "cli", "natter %s %s failed: %s", args[0], args[1] != NULL ? args[1] : "", run.err);
      return NULL;
    }
  node = json_from_string (run.out, &error);
  if (node == NULL)
    oracle_driver_fail (d, "cli", "natter %s printed no JSON: %s", args[0], error->message);
  return node;
}

static JsonObject *
cli_turn (JsonObject *turn)
{
  JsonObject *view = json_object_new ();
  JsonArray *files = json_array_new ();
  JsonArray *calls = json_array_new ();
  JsonArray *attachments = json_object_get_array_member (turn, "attachments");
  JsonArray *tool_calls = json_object_get_array_member (turn, "toolCalls");

  json_object_set_string_member (view, "input", json_object_get_string_member (turn, "input"));
  for (guint i = 0; attachments != NULL && i < json_array_get_length (attachments); i++)
    json_array_add_string_element (files, json_object_get_string_member (json_array_get_object_element (attachments, i),
                                                                         "name"));
  json_object_set_array_member (view, "files", files);
  json_object_set_string_member (view, "status", json_object_get_string_member (turn, "status"));
  json_object_set_member (view, "answer", json_node_copy (json_object_get_member (turn, "answer")));
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonObject *call = json_array_get_object_element (tool_calls, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", json_object_get_string_member (call, "toolName"));
      json_object_set_string_member (item, "status", json_object_get_string_member (call, "status"));
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (view, "calls", calls);
  return view;
}

/* The command line's reading: `natter sessions --json` for the list, and
 * `show`, `queue` and `grants` for the conversations touched since its
 * last reading. Run while the services are dropped. */
static void
check_cli (OracleDriver *d)
{
  const char *list_args[] = { "sessions", "--json", NULL };
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(GHashTable) entries = g_hash_table_new (g_str_hash, g_str_equal);

  count (d, "cli-readings");
  drop_services (d);
  list = natter_json (d, list_args, FALSE);
  for (guint i = 0; list != NULL && i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonObject *entry = json_array_get_object_element (json_node_get_array (list), i);

      g_hash_table_insert (entries, (gpointer) json_object_get_string_member (entry, "sessionId"), entry);
    }
  if (list != NULL && g_hash_table_size (entries) != d->o->sessions->len)
    oracle_driver_fail (d, "cli", "natter sessions lists %u sessions, the model has %u", g_hash_table_size (entries),
                        d->o->sessions->len);
  for (guint i = 0; list != NULL && i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      JsonObject *entry = s->id != NULL ? g_hash_table_lookup (entries, s->id) : NULL;
      g_autoptr(JsonNode) expected = oracle_expected_view (d->o, s);
      g_autoptr(JsonObject) view = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      gboolean own_damage = FALSE;

      if (entry == NULL)
        {
          oracle_driver_fail (d, "cli", "natter sessions does not list S%u (%s)", s->n, s->id);
          continue;
        }
      if (s->diverged)
        continue;
      for (guint j = 0; j < s->own->len; j++)
        own_damage |= ((OTurn *) g_ptr_array_index (s->own, j))->damaged;
      if (json_object_has_member (entry, "title"))
        json_object_set_string_member (view, "title", json_object_get_string_member (entry, "title"));
      else
        json_object_set_null_member (view, "title");
      json_object_set_boolean_member (view, "error", json_object_has_member (entry, "error"));
      if (!json_object_has_member (entry, "error"))
        json_object_set_string_member (view, "latest", json_object_get_string_member (entry, "latestTurnStatus"));
      if (json_object_has_member (entry, "versionOf"))
        json_object_set_string_member (view, "versionOf", json_object_get_string_member (entry, "versionOf"));
      else
        json_object_set_null_member (view, "versionOf");

      if (g_hash_table_contains (d->cli_touched, s) || d->cli_all)
        {
          const char *show_args[] = { "show", s->id, "--json", NULL };
          const char *queue_args[] = { "queue", s->id, "--json", NULL };
          const char *grants_args[] = { "grants", s->id, "--json", NULL };
          g_autoptr(JsonNode) shown = natter_json (d, show_args, own_damage);

          if (own_damage && shown != NULL)
            oracle_driver_fail (d, "cli", "natter show reads S%u (%s), whose turn cannot be read", s->n, s->id);
          if (shown != NULL)
            {
              JsonArray *turns = json_object_get_array_member (json_node_get_object (shown), "turns");
              JsonArray *read = json_array_new ();

              for (guint j = 0; j < json_array_get_length (turns); j++)
                json_array_add_object_element (read, cli_turn (json_array_get_object_element (turns, j)));
              json_object_set_array_member (view, "turns", read);
              json_object_set_boolean_member (view, "only-own", TRUE);
            }
          if (!json_object_has_member (entry, "error"))
            {
              g_autoptr(JsonNode) queue = natter_json (d, queue_args, FALSE);
              g_autoptr(JsonNode) grants = natter_json (d, grants_args, FALSE);

              if (queue != NULL)
                {
                  JsonArray *texts = json_array_new ();

                  for (guint j = 0; j < json_array_get_length (json_node_get_array (queue)); j++)
                    {
                      JsonObject *q = json_array_get_object_element (json_node_get_array (queue), j);
                      g_autofree char *text = message_text (json_object_get_object_member (q, "message"));

                      json_array_add_string_element (texts, text);
                    }
                  json_object_set_array_member (view, "queue", texts);
                }
              if (grants != NULL)
                {
                  JsonArray *tools = json_array_new ();

                  for (guint j = 0; j < json_array_get_length (json_node_get_array (grants)); j++)
                    json_array_add_string_element (tools, json_object_get_string_member (
                      json_array_get_object_element (json_node_get_array (grants), j), "toolId"));
                  json_object_set_array_member (view, "grants", tools);
                }
            }
        }
      json_node_take_object (node, g_steal_pointer (&view));
      compare_view (d, s, "natter (the command line)", expected, node);
    }
  g_hash_table_remove_all (d->cli_touched);
  d->cli_all = FALSE;
  load_services (d);
}

/* ------------------------------------------------------------------ */
/* Checking after an operation                                          */
/* ------------------------------------------------------------------ */

static void
touch (OracleDriver *d,
       OSession     *s)
{
  if (s != NULL)
    {
      g_hash_table_add (d->touched, s);
      g_hash_table_add (d->cli_touched, s);
    }
}

static void
touch_all (OracleDriver *d)
{
  for (guint i = 0; i < d->o->sessions->len; i++)
    touch (d, g_ptr_array_index (d->o->sessions, i));
}

static void
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

/* ------------------------------------------------------------------ */
/* Choosing                                                             */
/* ------------------------------------------------------------------ */

static guint
pick (OracleDriver *d,
      guint         n)
{
  return n > 0 ? (guint) g_rand_int_range (d->o->rand, 0, n) : 0;
}

static gboolean
chance (OracleDriver *d,
        guint         percent)
{
  return pick (d, 100) < percent;
}

static OSession *
any_session (OracleDriver *d,
             gboolean (*ok) (OracleDriver *d, OSession *s))
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);

      if (s->id != NULL && !s->diverged && (ok == NULL || ok (d, s)))
        g_ptr_array_add (candidates, s);
    }
  return candidates->len > 0 ? g_ptr_array_index (candidates, pick (d, candidates->len)) : NULL;
}

static gboolean
any_held (OracleDriver *d)
{
  for (guint i = 0; i < d->o->turns->len; i++)
    if (((OTurn *) g_ptr_array_index (d->o->turns, i))->status == OT_HELD)
      return TRUE;
  return FALSE;
}

static OTurn *
any_turn (OracleDriver *d,
          gboolean (*ok) (OracleDriver *d, OTurn *t))
{
  g_autoptr(GPtrArray) candidates = g_ptr_array_new ();

  for (guint i = 0; i < d->o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (d->o->turns, i);

      if (t->id != NULL && g_ptr_array_find (d->o->sessions, t->owner, NULL) && !t->owner->diverged && ok (d, t))
        g_ptr_array_add (candidates, t);
    }
  return candidates->len > 0 ? g_ptr_array_index (candidates, pick (d, candidates->len)) : NULL;
}

static OToolCall *
pending_call (OTurn     *t,
              OCallState state)
{
  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->state == state && call->result == NULL)
        return call;
    }
  return NULL;
}

static gboolean
has_read_grant (OSession *s)
{
  for (guint i = 0; i < s->grants->len; i++)
    if (g_str_equal (((OGrant *) g_ptr_array_index (s->grants, i))->tool, ORACLE_READ_FILE_ID))
      return TRUE;
  return FALSE;
}

static guint
n_pending (OTurn *t)
{
  guint n = 0;

  for (guint i = 0; i < t->calls->len; i++)
    n += ((OToolCall *) g_ptr_array_index (t->calls, i))->result == NULL;
  return n;
}

static GPtrArray *
draw_files (OracleDriver *d)
{
  GPtrArray *files = g_ptr_array_new ();

  if (chance (d, 20))
    g_ptr_array_add (files, g_ptr_array_index (d->o->attachable, pick (d, d->o->attachable->len)));
  return files;
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

static void
set_id (char       **slot,
        const char  *id)
{
  if (*slot == NULL && id != NULL)
    *slot = g_strdup (id);
}

static const char *
outcome_name (OSendOutcome outcome)
{
  switch (outcome)
    {
    case OSEND_TURN:
      return "sent";
    case OSEND_QUEUED:
      return "queued";
    case OSEND_NOT_SETTLED:
      return "refused: the latest turn has not settled";
    case OSEND_HISTORY_DAMAGED:
      return "refused: the history cannot be read";
    case OSEND_CORRUPT:
      return "refused: the conversation cannot be used";
    case OSEND_INVALID:
      return "refused: nothing to compact";
    case OSEND_REFUSED:
      return "refused";
    }
  return "?";
}

static gboolean
error_is (const GError *error,
          OSendOutcome  outcome)
{
  if (error->domain == ORACLE_SHOWN_REFUSAL)
    return outcome != OSEND_TURN && outcome != OSEND_QUEUED;
  switch (outcome)
    {
    case OSEND_NOT_SETTLED:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
    case OSEND_HISTORY_DAMAGED:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED);
    case OSEND_CORRUPT:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT);
    case OSEND_INVALID:
      return g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT);
    case OSEND_REFUSED:
      return TRUE;
    case OSEND_TURN:
    case OSEND_QUEUED:
      return FALSE;
    }
  return FALSE;
}

static void check_sent_as (OracleDriver *d, const char *what, const OSendResult *want, OracleSent *sent,
                           const char *outcome);

/* Compares what a front end says became of a message with the model. */
static void
check_sent (OracleDriver      *d,
            const char        *what,
            const OSendResult *want,
            OracleSent        *sent)
{
  const char *outcome = want->session != NULL && oracle_from_import (want->session) ? "import" : "outcome";
  guint n_failures = d->failures->len;

  check_sent_as (d, what, want, sent, outcome);
  if (d->failures->len > n_failures)
    diverge (d, outcome, want->session);
}

static void
check_sent_as (OracleDriver      *d,
               const char        *what,
               const OSendResult *want,
               OracleSent        *sent,
               const char        *outcome)
{
  if (sent->error != NULL)
    {
      oracle_log (d->o, "  -> %s", sent->error->message);
      if (want->outcome == OSEND_TURN || want->outcome == OSEND_QUEUED)
        {
          oracle_driver_fail (d, outcome, "%s: %s expected, refused: %s", what, outcome_name (want->outcome),
                              sent->error->message);
          /* No turn came of it: the model stops waiting for its call. */
          if (want->turn != NULL)
            {
              want->turn->forgotten = TRUE;
              want->turn->status = OT_FAILED;
            }
        }
      else if (!error_is (sent->error, want->outcome))
        oracle_driver_fail (d, "error-code", "%s: %s expected, refused otherwise: %s (%s %d)", what,
                            outcome_name (want->outcome), sent->error->message,
                            g_quark_to_string (sent->error->domain), sent->error->code);
      return;
    }
  oracle_log (d->o, "  -> session %s turn %s queue %s", sent->session_id, sent->turn_id != NULL ? sent->turn_id : "-",
              sent->queue_id != NULL ? sent->queue_id : "-");
  if (want->outcome != OSEND_TURN && want->outcome != OSEND_QUEUED)
    {
      oracle_driver_fail (d, outcome, "%s: %s expected, but it was %s", what, outcome_name (want->outcome),
                          sent->turn_id != NULL ? "sent" : "queued");
      return;
    }
  if ((want->outcome == OSEND_QUEUED) != (sent->queue_id != NULL))
    oracle_driver_fail (d, outcome, "%s: %s expected, but it was %s", what, outcome_name (want->outcome),
                        sent->queue_id != NULL ? "queued" : "sent");
  if (want->session != NULL)
    set_id (&want->session->id, sent->session_id);
  if (want->turn != NULL)
    set_id (&want->turn->id, sent->turn_id);
  if (want->queued != NULL)
    set_id (&want->queued->id, sent->queue_id);
}

static char *
files_text (GPtrArray *files)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; files != NULL && i < files->len; i++)
    g_string_append_printf (out, " +%s", ((OFile *) g_ptr_array_index (files, i))->name);
  return g_string_free (out, FALSE);
}

static void
op_send (OracleDriver *d,
         OSession     *s,
         gboolean      queue)
{
  gboolean fresh = s == NULL;
  g_autofree char *text = oracle_new_text (d->o, fresh || s->own->len == 0);
  g_autoptr(GPtrArray) files = draw_files (d);
  g_autofree char *shown_files = files_text (files);
  g_autofree char *escaped = g_strescape (text, NULL);
  guint max_calls = chance (d, 15) ? 1 + pick (d, 3) : 0;
  OMsg *input = oracle_user_msg (d->o, text, files);
  OracleSent sent = { 0 };
  OSendResult want;

  if (fresh)
    s = oracle_new_session (d->o);
  if (d->front->auto_queue)
    {
      OTurn *latest = oracle_latest (s);

      queue = latest != NULL && (latest->status == OT_HELD || latest->status == OT_WAITING_CALL ||
                                 latest->status == OT_SUSPENDED);
    }
  oracle_log (d->o, "op %u: %s \"%s\"%s to S%u%s%s", d->op_number, queue ? "queue" : "send", escaped, shown_files,
              s->n, fresh ? " (new)" : "", max_calls > 0 ? " (max model calls given)" : "");
  want = oracle_send (d->o, s, input, queue, max_calls, FALSE);
  want.created = fresh;
  d->front->send (d, fresh ? NULL : s->id, text, files, queue, max_calls, &sent);
  check_sent (d, "a message", &want, &sent);
  d->can_retry = FALSE;
  if (sent.error != NULL && fresh)
    oracle_forget_session (d->o, s);
  else if (sent.error != NULL && sent.retry_offered)
    {
      d->can_retry = TRUE;
      d->refused_session = s;
      d->refused_input = input;
      d->refused_max_calls = max_calls;
      d->refused_queue = queue;
    }
  touch (d, s);
  oracle_sent_clear (&sent);
}

/* The error's Retry: the same message, files included, again. */
static void
op_retry_refused (OracleDriver *d)
{
  OSession *s = d->refused_session;
  OracleSent sent = { 0 };
  OSendResult want;
  g_autofree char *escaped = g_strescape (d->refused_input->text, NULL);
  g_autofree char *shown_files = files_text (d->refused_input->files);

  oracle_log (d->o, "op %u: retry the message that was not sent, \"%s\"%s, to S%u", d->op_number, escaped,
              shown_files, s->n);
  want = oracle_send (d->o, s, d->refused_input, d->refused_queue, d->refused_max_calls, FALSE);
  d->front->retry (d, &sent);
  check_sent (d, "the Retry of a message", &want, &sent);
  if (sent.error == NULL)
    d->can_retry = FALSE;
  touch (d, s);
  oracle_sent_clear (&sent);
}

static void
op_version (OracleDriver *d,
            OSession     *shown_in,
            OTurn        *of,
            const char   *kind)
{
  gboolean edit = g_str_equal (kind, "edit");
  gboolean compact = g_str_equal (kind, "compact-and-continue");
  g_autofree char *text = edit ? oracle_new_text (d->o, TRUE) : NULL;
  OMsg *input = edit ? oracle_user_msg (d->o, text, d->front->edit_keeps_files ? of->input->files : NULL)
                     : of->input;
  OracleSent sent = { 0 };
  OSendResult want;

  oracle_log (d->o, "op %u: %s T%u (%s) shown in S%u%s%s", d->op_number, kind, of->n, oracle_status_name (of),
              shown_in->n, edit ? " as " : "", edit ? text : "");
  want = oracle_new_version (d->o, shown_in, of, input, compact, FALSE);
  if (edit)
    d->front->edit (d, shown_in->id, of->id, text, &sent);
  else
    d->front->again (d, shown_in->id, of->id, compact, &sent);
  check_sent (d, kind, &want, &sent);
  /* Compact and Continue makes its turn once the summary came: its id is
   * learned from the session. */
  if (sent.error == NULL && want.session != NULL)
    touch (d, want.session);
  else if (sent.error == NULL && want.session == NULL)
    oracle_driver_fail (d, "outcome", "%s made conversation %s, none expected", kind, sent.session_id);
  if (sent.error != NULL && want.session != NULL && want.outcome == OSEND_TURN)
    oracle_forget_session (d->o, want.session);
  touch (d, shown_in);
  oracle_sent_clear (&sent);
}

static void
op_release (OracleDriver *d,
            OTurn        *t)
{
  const char *const chunks[] = { sse_finish ("stop"), SSE_DONE, NULL };

  oracle_log (d->o, "op %u: the stream of T%u ends", d->op_number, t->n);
  if (!natter_test_server_release (d->f.server, (guint) t->held_index, chunks))
    oracle_driver_fail (d, "stalled", "T%u's stream was no longer open", t->n);
  oracle_release (d->o, t);
  touch (d, t->owner);
}

static void
op_stop (OracleDriver *d,
         OTurn        *t)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: stop T%u (%s)", d->op_number, t->n, oracle_status_name (t));
  oracle_stop (d->o, t);
  natter_sessions_stop_turn_async (d->f.sessions, t->id, NULL, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_stop_turn_finish (d->f.sessions, wait_result (d, &result, "stop"), &error))
    oracle_driver_fail (d, "outcome", "stopping T%u failed: %s", t->n, error->message);
  touch (d, t->owner);
}

static void
check_outcome (OracleDriver      *d,
               const char        *what,
               NatterTurnOutcome *outcome,
               GError            *error)
{
  if (outcome == NULL)
    oracle_driver_fail (d, "outcome", "%s failed: %s", what, error != NULL ? error->message : "(no error)");
  g_clear_pointer (&outcome, natter_turn_outcome_unref);
}

static void
pending_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ((OraclePending *) user_data)->result = g_object_ref (result);
}

static gboolean
pending_done_cb (gpointer data)
{
  OraclePending *p = data;

  return p->result != NULL || p->turn->status == OT_HELD;
}

static void
pending_finish (OracleDriver  *d,
                OraclePending *p)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = NULL;
  NatterTurnOutcome *outcome = NULL;

  switch (p->kind)
    {
    case PENDING_PERMISSION:
      outcome = natter_sessions_respond_to_permission_finish (d->f.sessions, p->result, &error);
      break;
    case PENDING_ALWAYS:
      outcome = natter_sessions_allow_always_finish (d->f.sessions, p->result, &grant_id, &error);
      set_id (&p->grant->id, grant_id);
      break;
    case PENDING_ANSWER:
      outcome = natter_sessions_respond_to_ask_human_finish (d->f.sessions, p->result, &error);
      break;
    }
  check_outcome (d, "an answer to a turn", outcome, error);
  g_object_unref (p->result);
  g_free (p);
}

static void
pending_await (OracleDriver  *d,
               OraclePending *p)
{
  if (!oracle_driver_wait (d, pending_done_cb, p))
    {
      g_autofree char *report = NULL;

      oracle_driver_fail (d, "stalled", "T%u's answer never finished", p->turn->n);
      report = oracle_driver_dup_report (d);
      g_printerr ("%s", report);
      g_error ("seed %u: an answer never finished", d->options.seed);
    }
  if (p->result != NULL)
    pending_finish (d, p);
  else
    g_ptr_array_add (d->pending, p);
}

/* The pending operations whose turn has settled since. */
static void
pending_collect (OracleDriver *d)
{
  for (guint i = 0; i < d->pending->len;)
    {
      OraclePending *p = g_ptr_array_index (d->pending, i);

      if (p->result != NULL)
        {
          g_ptr_array_remove_index (d->pending, i);
          pending_finish (d, p);
        }
      else
        i++;
    }
}

static void
op_permission (OracleDriver *d,
               OTurn        *t,
               OToolCall    *call,
               const char   *decision)
{
  OraclePending *p = g_new0 (OraclePending, 1);
  gboolean always = g_str_equal (decision, "always");

  oracle_log (d->o, "op %u: %s %s of T%u", d->op_number, decision, call->id, t->n);
  p->turn = t;
  if (g_str_equal (decision, "deny"))
    oracle_deny (d->o, t, call);
  else
    oracle_allow (d->o, t, call, always);
  if (always)
    {
      p->kind = PENDING_ALWAYS;
      p->grant = g_ptr_array_index (t->owner->grants, t->owner->grants->len - 1);
      natter_sessions_allow_always_async (d->f.sessions, t->id, call->id, NULL, pending_cb, p);
    }
  else
    {
      p->kind = PENDING_PERMISSION;
      natter_sessions_respond_to_permission_async (d->f.sessions, t->id, call->id, decision, NULL, NULL, pending_cb,
                                                   p);
    }
  pending_await (d, p);
  touch (d, t->owner);
}

static void
op_answer (OracleDriver *d,
           OTurn        *t,
           OToolCall    *call)
{
  OraclePending *p = g_new0 (OraclePending, 1);
  g_autofree char *text = oracle_new_text (d->o, FALSE);
  g_autofree char *escaped = g_strescape (text, NULL);

  oracle_log (d->o, "op %u: answer %s of T%u with \"%s\"", d->op_number, call->id, t->n, escaped);
  oracle_answer (d->o, t, call, text);
  p->kind = PENDING_ANSWER;
  p->turn = t;
  natter_sessions_respond_to_ask_human_async (d->f.sessions, t->id, call->id, text, NULL, pending_cb, p);
  pending_await (d, p);
  touch (d, t->owner);
}

static void
op_resume (OracleDriver *d,
           OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;
  OTurn *t = oracle_latest (s);

  oracle_log (d->o, "op %u: resume S%u (T%u)", d->op_number, s->n, t->n);
  oracle_resume (d->o, t, FALSE);
  natter_sessions_resume_turn_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  turn_id = natter_sessions_resume_turn_finish (d->f.sessions, wait_result (d, &result, "resume"), &error);
  if (turn_id == NULL)
    oracle_driver_fail (d, "outcome", "resuming S%u failed: %s", s->n, error->message);
  touch (d, s);
}

static void
op_unqueue (OracleDriver *d,
            OSession     *s)
{
  OQueued *q = g_ptr_array_index (s->queue, pick (d, s->queue->len));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: unqueue %s of S%u", d->op_number, q->id, s->n);
  natter_sessions_remove_queued_message_async (d->f.sessions, s->id, q->id, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_remove_queued_message_finish (d->f.sessions, wait_result (d, &result, "unqueue"), &error))
    oracle_driver_fail (d, "outcome", "unqueueing failed: %s", error->message);
  oracle_unqueue (d->o, s, q);
  touch (d, s);
}

static void
op_replace_queued (OracleDriver *d,
                   OSession     *s)
{
  OQueued *q = g_ptr_array_index (s->queue, pick (d, s->queue->len));
  g_autofree char *text = oracle_new_text (d->o, FALSE);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: edit queued %s of S%u", d->op_number, q->id, s->n);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_replace_queued_message_async (d->f.sessions, s->id, q->id, input, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_replace_queued_message_finish (d->f.sessions, wait_result (d, &result, "replace"), &error))
    oracle_driver_fail (d, "outcome", "editing a queued message failed: %s", error->message);
  q->input = oracle_user_msg (d->o, text, NULL);
  touch (d, s);
}

static void
op_grant (OracleDriver *d,
          OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OGrant *g;

  oracle_log (d->o, "op %u: grant read_file in S%u", d->op_number, s->n);
  g = oracle_grant (d->o, s, ORACLE_READ_FILE_ID);
  natter_sessions_add_grant_async (d->f.sessions, s->id, ORACLE_READ_FILE_ID, NULL, natter_test_result_cb, &result);
  id = natter_sessions_add_grant_finish (d->f.sessions, wait_result (d, &result, "grant"), &error);
  if (id == NULL)
    oracle_driver_fail (d, "outcome", "granting failed: %s", error->message);
  set_id (&g->id, id);
  touch (d, s);
}

static void
op_revoke (OracleDriver *d,
           OSession     *s)
{
  OGrant *g = g_ptr_array_index (s->grants, pick (d, s->grants->len));
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: revoke %s of S%u", d->op_number, g->id, s->n);
  natter_sessions_remove_grant_async (d->f.sessions, s->id, g->id, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_remove_grant_finish (d->f.sessions, wait_result (d, &result, "revoke"), &error))
    oracle_driver_fail (d, "outcome", "revoking failed: %s", error->message);
  oracle_revoke (d->o, s, g);
  touch (d, s);
}

static void
op_compact (OracleDriver *d,
            OSession     *s,
            guint         keep)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  oracle_log (d->o, "op %u: compact S%u keeping %u", d->op_number, s->n, keep);
  oracle_begin_compaction (d->o, s, keep);
  natter_sessions_compact_async (d->f.sessions, s->id, keep, NULL, natter_test_result_cb, &result);
  id = natter_sessions_compact_finish (d->f.sessions, wait_result (d, &result, "compact"), &error);
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "compacting S%u failed: %s", s->n, error->message);
      d->o->compacting = NULL;
    }
  touch (d, s);
}

static void
op_fork (OracleDriver *d,
         OSession     *s,
         OTurn        *at)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OSession *b;

  oracle_log (d->o, "op %u: branch S%u at T%u", d->op_number, s->n, at->n);
  b = oracle_fork (d->o, s, at);
  natter_sessions_fork_async (d->f.sessions, s->id, at->id, NULL, NULL, natter_test_result_cb, &result);
  id = natter_sessions_fork_finish (d->f.sessions, wait_result (d, &result, "fork"), &error);
  if (b == NULL)
    {
      if (id != NULL)
        oracle_driver_fail (d, "outcome", "branching S%u at T%u made %s, the model refuses it", s->n, at->n, id);
      else if (!error_is (error, OSEND_HISTORY_DAMAGED))
        oracle_driver_fail (d, "outcome", "branching S%u at T%u was refused as %s, the model as a damaged history",
                            s->n, at->n, error->message);
      return;
    }
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "branching failed: %s", error->message);
      oracle_forget_session (d->o, b);
      return;
    }
  set_id (&b->id, id);
  touch (d, b);
}

static void
op_rename (OracleDriver *d,
           OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;

  /* Sometimes the title of the conversation it was branched from: a
   * branch is not a version for having the same name. */
  if (s->parent != NULL && s->parent->title != NULL && chance (d, 50))
    title = g_strdup (s->parent->title);
  else
    title = g_strdup_printf ("Renamed %u", ++d->o->next_title);
  oracle_log (d->o, "op %u: rename S%u to \"%s\"", d->op_number, s->n, title);
  natter_sessions_set_title_async (d->f.sessions, s->id, title, NULL, natter_test_result_cb, &result);
  if (!natter_sessions_set_title_finish (d->f.sessions, wait_result (d, &result, "rename"), &error))
    oracle_driver_fail (d, "outcome", "renaming failed: %s", error->message);
  oracle_rename (d->o, s, title);
  touch (d, s);
}

static void
op_export_import (OracleDriver *d,
                  OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) imported = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *archive = NULL;
  g_autofree char *path = g_build_filename (d->work_dir, "archive.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(NatterImportReport) report = NULL;
  OSession *c;

  oracle_log (d->o, "op %u: export S%u and import it", d->op_number, s->n);
  natter_sessions_export_async (d->f.sessions, s->id, "json", NULL, natter_test_result_cb, &result);
  archive = natter_sessions_export_finish (d->f.sessions, wait_result (d, &result, "export"), &error);
  if (archive == NULL)
    {
      oracle_driver_fail (d, "outcome", "exporting S%u failed: %s", s->n, error->message);
      return;
    }
  check_wire_bytes (d, "the archive", archive, strlen (archive) - 1);
  g_file_set_contents (path, archive, -1, &error);
  g_assert_no_error (error);
  c = oracle_import (d->o, s);
  natter_sessions_import_async (d->f.sessions, file, NULL, NULL, natter_test_result_cb, &imported);
  report = natter_sessions_import_finish (d->f.sessions, wait_result (d, &imported, "import"), &error);
  if (report == NULL || report->session_ids->len != 1)
    {
      oracle_driver_fail (d, "import", "importing S%u's archive failed: %s", s->n,
                          error != NULL ? error->message : "not one session");
      oracle_forget_session (d->o, c);
      return;
    }
  set_id (&c->id, g_ptr_array_index (report->session_ids, 0));
  touch (d, c);
}

static void
restart (OracleDriver *d)
{
  drop_services (d);
  load_services (d);
  count (d, "restarts");
}

/* Damages a turn's file as a torn write leaves it (docs/format.md §2: a
 * last line without its newline makes the file unreadable), and restarts:
 * a change behind the running app's back is read at the next start
 * (docs/sessions.md §8.3). */
static void
op_damage (OracleDriver *d,
           OTurn        *t)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (natter_services_get_turn_repo (d->f.services), t->id, NULL);
  g_autoptr(GFileOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  static const char torn[] = "{\"type\":\"tool_res";

  oracle_log (d->o, "op %u: damage T%u of S%u (a torn last line), restart", d->op_number, t->n, t->owner->n);
  flush (d);
  drop_services (d);
  out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (out), torn, strlen (torn), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (out), NULL, &error);
  g_assert_no_error (error);
  oracle_damage (d->o, t);
  load_services (d);
  touch_all (d);
}

static void
op_recover (OracleDriver *d,
            OSession     *s)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  OSession *c;

  oracle_log (d->o, "op %u: recover S%u", d->op_number, s->n);
  c = oracle_recover (d->o, s);
  natter_sessions_recover_async (d->f.sessions, s->id, NULL, natter_test_result_cb, &result);
  id = natter_sessions_recover_finish (d->f.sessions, wait_result (d, &result, "recover"), &error);
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "recovering S%u failed: %s", s->n, error->message);
      oracle_forget_session (d->o, c);
      return;
    }
  set_id (&c->id, id);
  touch (d, c);
}

static gboolean
crash_at_step (NatterSessionsStep   step,
               const char          *session_id,
               gpointer             user_data,
               GError             **error)
{
  if ((gint) step != GPOINTER_TO_INT (user_data))
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "The process died here");
  return FALSE;
}

/* A send that dies between two of its steps (docs/sessions.md §7), then
 * a restart: before the turn file, nothing; between the
 * turn file and its reference, an orphan nobody sees; after the
 * reference, a turn that never started, which only the person resumes. */
static void
op_crash_send (OracleDriver *d,
               OSession     *s)
{
  static const NatterSessionsStep steps[] = {
    NATTER_SESSIONS_STEP_READ_SESSION, NATTER_SESSIONS_STEP_CREATE_TURN, NATTER_SESSIONS_STEP_APPEND,
  };
  NatterSessionsStep step = steps[pick (d, G_N_ELEMENTS (steps))];
  g_autofree char *text = oracle_new_text (d->o, s->own->len == 0);
  OracleSent sent = { 0 };

  oracle_log (d->o, "op %u: send \"%s\" to S%u and die at step %d, restart", d->op_number, text, s->n, step);
  natter_sessions_set_fault_func (d->f.sessions, crash_at_step, GINT_TO_POINTER (step));
  d->front->send (d, s->id, text, NULL, FALSE, 0, &sent);
  natter_sessions_set_fault_func (d->f.sessions, NULL, NULL);
  if (sent.error == NULL)
    oracle_driver_fail (d, "outcome", "the send did not die at step %d", step);
  if (step == NATTER_SESSIONS_STEP_APPEND)
    oracle_crash_appended (d->o, s, oracle_user_msg (d->o, text, NULL));
  oracle_sent_clear (&sent);
  restart (d);
  touch (d, s);
}

/* ------------------------------------------------------------------ */
/* Operations in a `natter` process                                     */
/* ------------------------------------------------------------------ */

static void
expect_exit (OracleDriver *d,
             const char   *what,
             gboolean      killed,
             gboolean      refused,
             OTurn        *last)
{
  int want;

  if (killed)
    return;
  if (refused)
    {
      if (d->run.status == 0)
        oracle_driver_fail (d, "cli", "natter %s succeeded, a refusal was expected", what);
      return;
    }
  if (last == NULL)
    want = 0;
  else
    want = last->status == OT_COMPLETED || last->status == OT_SUSPENDED ? 0 : 1;
  if ((d->run.status == 0) != (want == 0))
    oracle_driver_fail (d, "cli", "natter %s exited with %d, %d expected (T%u %s): %s", what, d->run.status, want,
                        last->n, oracle_status_name (last), d->run.err);
}

/* The turn a `natter` run ended on: the last one it made or advanced. */
static OTurn *
last_turn_since (OracleDriver *d,
                 guint         n_turns,
                 OTurn        *advanced)
{
  if (d->o->turns->len > n_turns)
    return g_ptr_array_index (d->o->turns, d->o->turns->len - 1);
  return advanced;
}

static char *
parse_line (const char *out,
            const char *prefix)
{
  g_auto(GStrv) lines = g_strsplit (out != NULL ? out : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i] + strlen (prefix));
  return NULL;
}

/* A message that may wait, to a conversation whose queue is held by an
 * answer that ended (failed, stopped): the documents say it is sent
 * (docs/sessions.md §1 step 7), ahead of the queue that waits for the
 * person (docs/sessions.md §4); whether it should rather join that queue is open, so it
 * is not produced. */
static gboolean
queueable (OracleDriver *d,
           OSession     *s)
{
  OTurn *latest = oracle_latest (s);

  return !(s->queue->len > 0 && latest != NULL && oracle_turn_terminal (latest));
}

static void
cli_send (OracleDriver *d)
{
  OSession *s = chance (d, 30) ? NULL : any_session (d, NULL);
  gboolean fresh = s == NULL;
  gboolean queue = !fresh && chance (d, 30) && queueable (d, s);
  g_autofree char *text = oracle_new_text (d->o, fresh || s->own->len == 0);
  g_autoptr(GPtrArray) files = draw_files (d);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  OMsg *input = oracle_user_msg (d->o, text, files);
  guint n_turns = d->o->turns->len;
  g_autofree char *escaped = g_strescape (text, NULL);
  g_autofree char *session_id = NULL;
  OSendResult want;
  gboolean killed;

  if (fresh)
    s = oracle_new_session (d->o);
  oracle_log (d->o, "op %u: natter send%s \"%s\" to S%u%s", d->op_number, queue ? " --queue" : "", escaped, s->n,
              fresh ? " (new)" : "");
  want = oracle_send (d->o, s, input, queue, 0, TRUE);
  g_ptr_array_add (args, "send");
  if (!fresh)
    {
      g_ptr_array_add (args, "--session");
      g_ptr_array_add (args, s->id);
    }
  if (queue)
    g_ptr_array_add (args, "--queue");
  for (guint i = 0; i < files->len; i++)
    {
      g_ptr_array_add (args, "--attach");
      g_ptr_array_add (args, ((OFile *) g_ptr_array_index (files, i))->path);
    }
  g_ptr_array_add (args, "--base-url");
  g_ptr_array_add (args, (gpointer) d->f.server->base_url);
  g_ptr_array_add (args, "--model");
  g_ptr_array_add (args, "m");
  g_ptr_array_add (args, "--");
  g_ptr_array_add (args, text);
  g_ptr_array_add (args, NULL);
  killed = run_natter (d, (const char * const *) args->pdata);
  session_id = parse_line (d->run.out, "session ");
  if (fresh && want.outcome == OSEND_TURN)
    set_id (&s->id, session_id);
  if (want.queued != NULL)
    {
      g_autofree char *queue_id = parse_line (d->run.out, "queued ");

      set_id (&want.queued->id, queue_id);
    }
  if (fresh && s->id == NULL && !killed)
    {
      oracle_driver_fail (d, "cli", "natter send named no session: %s", d->run.err);
      oracle_forget_session (d->o, s);
      return;
    }
  if (fresh && s->id == NULL)
    {
      /* Killed before it said which: the only session without an id. */
      learn_new_session (d, s);
    }
  expect_exit (d, "send", killed, want.outcome != OSEND_TURN && want.outcome != OSEND_QUEUED,
               want.outcome == OSEND_QUEUED ? NULL : last_turn_since (d, n_turns, want.turn));
  touch (d, s);
}

static void
cli_tool (OracleDriver *d,
          OTurn        *t)
{
  OToolCall *call = pending_call (t, OC_AWAIT_PERMISSION);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  guint n_turns = d->o->turns->len;
  gboolean killed;

  if (call == NULL)
    {
      g_autofree char *text = oracle_new_text (d->o, FALSE);

      call = pending_call (t, OC_AWAIT_ANSWER);
      if (chance (d, 30) && d->o->weird_text)
        {
          /* A result given as JSON may spell a lone surrogate: it becomes
           * U+FFFD (docs/format.md §2). */
          g_ptr_array_add (args, g_strdup ("deliver"));
          g_ptr_array_add (args, g_strdup (t->id));
          g_ptr_array_add (args, g_strdup (call->id));
          g_ptr_array_add (args, g_strdup ("{\"output\":\"r\\ud800 \\u0000x\",\"isError\":false}"));
          oracle_log (d->o, "op %u: natter deliver %s of T%u", d->op_number, call->id, t->n);
          oracle_answer (d->o, t, call, "r\xef\xbf\xbd \xef\xbf\xbdx");
        }
      else
        {
          g_autofree char *escaped = g_strescape (text, NULL);

          g_ptr_array_add (args, g_strdup ("answer"));
          g_ptr_array_add (args, g_strdup (t->id));
          g_ptr_array_add (args, g_strdup (call->id));
          g_ptr_array_add (args, g_strdup (text));
          oracle_log (d->o, "op %u: natter answer %s of T%u \"%s\"", d->op_number, call->id, t->n, escaped);
          oracle_answer (d->o, t, call, text);
        }
    }
  else
    {
      gboolean deny = chance (d, 35);
      gboolean always = !deny && n_pending (t) == 1 && !has_read_grant (t->owner) && chance (d, 30);

      g_ptr_array_add (args, g_strdup (deny ? "deny" : "allow"));
      if (always)
        g_ptr_array_add (args, g_strdup ("--always"));
      g_ptr_array_add (args, g_strdup (t->id));
      g_ptr_array_add (args, g_strdup (call->id));
      oracle_log (d->o, "op %u: natter %s%s %s of T%u", d->op_number, deny ? "deny" : "allow",
                  always ? " --always" : "", call->id, t->n);
      t->in_child = TRUE;
      if (deny)
        oracle_deny (d->o, t, call);
      else
        oracle_allow (d->o, t, call, always);
    }
  t->in_child = TRUE;
  g_ptr_array_add (args, NULL);
  killed = run_natter (d, (const char * const *) args->pdata);
  expect_exit (d, (const char *) g_ptr_array_index (args, 0), killed, FALSE, last_turn_since (d, n_turns, t));
  touch (d, t->owner);
}

static void
cli_resume (OracleDriver *d,
            OSession     *s)
{
  const char *args[] = { "resume", s->id, NULL };
  OTurn *t = oracle_latest (s);
  guint n_turns = d->o->turns->len;
  gboolean killed;

  oracle_log (d->o, "op %u: natter resume S%u (T%u)", d->op_number, s->n, t->n);
  oracle_resume (d->o, t, TRUE);
  killed = run_natter (d, args);
  expect_exit (d, "resume", killed, FALSE, last_turn_since (d, n_turns, t));
  touch (d, s);
}

static void
cli_retry (OracleDriver *d,
           OTurn        *of)
{
  const char *args[] = { "retry", of->id, NULL };
  guint n_turns = d->o->turns->len;
  g_autofree char *session_id = NULL;
  OSendResult want;
  gboolean killed;

  oracle_log (d->o, "op %u: natter retry T%u (%s) of S%u", d->op_number, of->n, oracle_status_name (of),
              of->owner->n);
  want = oracle_new_version (d->o, of->owner, of, of->input, FALSE, TRUE);
  killed = run_natter (d, args);
  session_id = parse_line (d->run.out, "session ");
  if (want.session != NULL)
    {
      set_id (&want.session->id, session_id);
      if (want.session->id == NULL)
        learn_new_session (d, want.session);
      touch (d, want.session);
    }
  expect_exit (d, "retry", killed, want.outcome != OSEND_TURN, last_turn_since (d, n_turns, want.turn));
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

static gboolean
sendable (OracleDriver *d,
          OSession     *s)
{
  return TRUE;
}

static gboolean
has_queue (OracleDriver *d,
           OSession     *s)
{
  gboolean ids = TRUE;

  for (guint i = 0; i < s->queue->len; i++)
    ids &= ((OQueued *) g_ptr_array_index (s->queue, i))->id != NULL;
  return s->queue->len > 0 && ids;
}

static gboolean
has_grant_id (OracleDriver *d,
              OSession     *s)
{
  for (guint i = 0; i < s->grants->len; i++)
    if (((OGrant *) g_ptr_array_index (s->grants, i))->id == NULL)
      return FALSE;
  return s->grants->len > 0;
}

static gboolean
usable (OracleDriver *d,
        OSession     *s)
{
  return !oracle_session_shows_damage (s);
}

/* A second grant of a tool that has one is a case the documents leave
 * open. */
static gboolean
grantable (OracleDriver *d,
           OSession     *s)
{
  return usable (d, s) && !has_read_grant (s);
}

static gboolean
latest_idle (OracleDriver *d,
             OSession     *s)
{
  OTurn *t = oracle_latest (s);

  return t != NULL && t->status == OT_IDLE && t->owner == s && t->id != NULL && !oracle_history_damaged (s);
}

static gboolean natter_can_continue (OTurn *t);

static gboolean
natter_latest_idle (OracleDriver *d,
                    OSession     *s)
{
  return latest_idle (d, s) && natter_can_continue (oracle_latest (s));
}

static gboolean
latest_failed (OracleDriver *d,
               OSession     *s)
{
  OTurn *t = oracle_latest (s);

  return t != NULL && t->status == OT_FAILED && usable (d, s);
}

static gboolean
held_turn (OracleDriver *d,
           OTurn        *t)
{
  return t->status == OT_HELD;
}

static gboolean
stoppable (OracleDriver *d,
           OTurn        *t)
{
  return t->status == OT_HELD || t->status == OT_SUSPENDED;
}

static gboolean
waits_for_person (OracleDriver *d,
                  OTurn        *t)
{
  return t->status == OT_SUSPENDED && !oracle_history_damaged (t->owner);
}

/* A `natter` process knows no provider of the test's settings: it can
 * continue only turns that name the server's address, which a
 * conversation imported (or made from one) does not keep (its turns'
 * addresses are labels, docs/format.md §7.1). */
static gboolean
natter_can_continue (OTurn *t)
{
  return !oracle_from_import (t->owner);
}

static gboolean
waits_for_natter (OracleDriver *d,
                  OTurn        *t)
{
  return waits_for_person (d, t) && natter_can_continue (t);
}

static gboolean
retried_by_natter (OracleDriver *d,
                   OTurn        *t)
{
  return oracle_turn_terminal (t) && !t->damaged && natter_can_continue (t);
}

static gboolean
terminal_visible (OracleDriver *d,
                  OTurn        *t)
{
  return oracle_turn_terminal (t) && !t->damaged;
}

static gboolean
failed_turn (OracleDriver *d,
             OTurn        *t)
{
  return t->status == OT_FAILED && !t->damaged;
}

static gboolean
damageable (OracleDriver *d,
            OTurn        *t)
{
  return oracle_turn_terminal (t) && !t->damaged && !oracle_turn_is_depended_on (d->o, t) && t->copy_of == NULL;
}

/* An archive of a conversation whose answer streams is a snapshot of a
 * moving file: not produced. */
static gboolean
exportable (OracleDriver *d,
            OSession     *s)
{
  g_autoptr(GPtrArray) visible = oracle_visible (s);

  for (guint i = 0; i < visible->len; i++)
    {
      OTurn *t = g_ptr_array_index (visible, i);

      if (t->damaged || t->status == OT_HELD || t->status == OT_WAITING_CALL)
        return FALSE;
    }
  return TRUE;
}

static gboolean
recoverable (OracleDriver *d,
             OSession     *s)
{
  for (guint i = 0; i < s->own->len; i++)
    if (((OTurn *) g_ptr_array_index (s->own, i))->damaged)
      return s->parent == NULL;
  return FALSE;
}

static gboolean
compactable (OracleDriver *d,
             OSession     *s)
{
  return oracle_can_compact (d->o, s, 1);
}

static gboolean
quiet_session (OracleDriver *d,
               OSession     *s)
{
  return oracle_session_quiet (s) && s->queue->len == 0 && !oracle_history_damaged (s);
}

static gboolean
can_continue_version (OracleDriver *d,
                      OTurn        *t)
{
  return failed_turn (d, t) && t->owner->own->len > 0;
}

typedef enum
{
  OP_NEW,
  OP_SEND,
  OP_QUEUE,
  OP_RETRY_REFUSED,
  OP_TRY_AGAIN,
  OP_COMPACT_CONTINUE,
  OP_CONTINUE,
  OP_EDIT,
  OP_RELEASE,
  OP_STOP,
  OP_PERMISSION,
  OP_ANSWER,
  OP_RESUME,
  OP_UNQUEUE,
  OP_REPLACE_QUEUED,
  OP_GRANT,
  OP_REVOKE,
  OP_COMPACT,
  OP_FORK,
  OP_RENAME,
  OP_EXPORT_IMPORT,
  OP_DAMAGE,
  OP_RECOVER,
  OP_RESTART,
  OP_CRASH_SEND,
  OP_CLI_SEND,
  OP_CLI_TOOL,
  OP_CLI_RESUME,
  OP_CLI_RETRY,
  N_OPS
} OpKind;

static const char *const op_names[N_OPS] = {
  "new", "send", "queue", "retry-refused", "try-again", "compact-and-continue", "continue", "edit", "release",
  "stop", "permission", "answer", "resume", "unqueue", "edit-queued", "grant", "revoke", "compact", "fork",
  "rename", "export-import", "damage", "recover", "restart", "crash-send", "natter-send", "natter-tool",
  "natter-resume", "natter-retry",
};

static gboolean
op_possible (OracleDriver *d,
             OpKind        op,
             gboolean      held)
{
  switch (op)
    {
    case OP_NEW:
      return d->o->sessions->len < 14;
    case OP_SEND:
      return any_session (d, sendable) != NULL;
    case OP_QUEUE:
      return any_session (d, queueable) != NULL;
    case OP_RETRY_REFUSED:
      return d->can_retry && g_ptr_array_find (d->o->sessions, d->refused_session, NULL) &&
             d->front->retry != NULL && (d->front->can_retry == NULL || d->front->can_retry (d));
    case OP_TRY_AGAIN:
    case OP_EDIT:
      return any_turn (d, terminal_visible) != NULL && d->o->sessions->len < 18;
    case OP_COMPACT_CONTINUE:
      return any_turn (d, can_continue_version) != NULL && d->o->sessions->len < 18;
    case OP_CONTINUE:
      return any_session (d, latest_failed) != NULL;
    case OP_RELEASE:
      return any_turn (d, held_turn) != NULL;
    case OP_STOP:
      return any_turn (d, stoppable) != NULL;
    case OP_PERMISSION:
    case OP_ANSWER:
      return any_turn (d, waits_for_person) != NULL;
    case OP_RESUME:
      return any_session (d, latest_idle) != NULL;
    case OP_UNQUEUE:
    case OP_REPLACE_QUEUED:
      return any_session (d, has_queue) != NULL;
    case OP_GRANT:
      return any_session (d, grantable) != NULL;
    case OP_REVOKE:
      return any_session (d, has_grant_id) != NULL;
    case OP_COMPACT:
      return any_session (d, compactable) != NULL;
    case OP_FORK:
      return any_turn (d, terminal_visible) != NULL && d->o->sessions->len < 18;
    case OP_RENAME:
      return any_session (d, usable) != NULL;
    case OP_EXPORT_IMPORT:
      return any_session (d, exportable) != NULL && d->o->sessions->len < 18;
    case OP_DAMAGE:
      return !held && any_turn (d, damageable) != NULL;
    case OP_RECOVER:
      return any_session (d, recoverable) != NULL;
    case OP_RESTART:
      return !held;
    case OP_CRASH_SEND:
      return !held && any_session (d, quiet_session) != NULL;
    case OP_CLI_SEND:
    case OP_CLI_RETRY:
      return !held && d->options.cli_ops;
    case OP_CLI_TOOL:
      return !held && d->options.cli_ops && any_turn (d, waits_for_natter) != NULL;
    case OP_CLI_RESUME:
      return !held && d->options.cli_ops && any_session (d, natter_latest_idle) != NULL;
    case N_OPS:
      break;
    }
  return FALSE;
}

static const guint op_weights[N_OPS] = {
  [OP_NEW] = 6, [OP_SEND] = 16, [OP_QUEUE] = 7, [OP_RETRY_REFUSED] = 6, [OP_TRY_AGAIN] = 5,
  [OP_COMPACT_CONTINUE] = 3, [OP_CONTINUE] = 3, [OP_EDIT] = 4, [OP_RELEASE] = 10, [OP_STOP] = 5,
  [OP_PERMISSION] = 10, [OP_ANSWER] = 7, [OP_RESUME] = 6, [OP_UNQUEUE] = 2, [OP_REPLACE_QUEUED] = 2,
  [OP_GRANT] = 3, [OP_REVOKE] = 2, [OP_COMPACT] = 3, [OP_FORK] = 3, [OP_RENAME] = 2, [OP_EXPORT_IMPORT] = 2,
  [OP_DAMAGE] = 2, [OP_RECOVER] = 4, [OP_RESTART] = 3, [OP_CRASH_SEND] = 2, [OP_CLI_SEND] = 5,
  [OP_CLI_TOOL] = 6, [OP_CLI_RESUME] = 4, [OP_CLI_RETRY] = 2,
};

static OpKind
choose_op (OracleDriver *d)
{
  gboolean held = any_held (d);
  guint total = 0;
  guint possible[N_OPS];
  guint at;

  for (guint op = 0; op < N_OPS; op++)
    {
      possible[op] = op_possible (d, op, held) ? op_weights[op] : 0;
      total += possible[op];
    }
  at = pick (d, total);
  for (guint op = 0; op < N_OPS; op++)
    {
      if (at < possible[op])
        return op;
      at -= possible[op];
    }
  return OP_NEW;
}

static void
run_op (OracleDriver *d,
        OpKind        op)
{
  count (d, op_names[op]);
  switch (op)
    {
    case OP_NEW:
      op_send (d, NULL, FALSE);
      break;
    case OP_SEND:
      op_send (d, any_session (d, sendable), FALSE);
      break;
    case OP_QUEUE:
      op_send (d, any_session (d, queueable), TRUE);
      break;
    case OP_RETRY_REFUSED:
      op_retry_refused (d);
      break;
    case OP_TRY_AGAIN:
    case OP_EDIT:
      {
        OTurn *of = any_turn (d, terminal_visible);
        OSession *shown_in = of->owner;

        /* Sometimes from a branch that shows it. */
        for (guint i = 0; i < d->o->sessions->len; i++)
          {
            OSession *s = g_ptr_array_index (d->o->sessions, i);
            g_autoptr(GPtrArray) visible = oracle_visible (s);

            if (s != of->owner && s->id != NULL && g_ptr_array_find (visible, of, NULL) && chance (d, 30))
              shown_in = s;
          }
        op_version (d, shown_in, of, op == OP_EDIT ? "edit" : "try-again");
      }
      break;
    case OP_COMPACT_CONTINUE:
      {
        OTurn *of = any_turn (d, can_continue_version);

        op_version (d, of->owner, of, "compact-and-continue");
      }
      break;
    case OP_CONTINUE:
      {
        OSession *s = any_session (d, latest_failed);
        OMsg *input = oracle_user_msg (d->o, "Continue.", NULL);
        OracleSent sent = { 0 };
        OSendResult want;

        oracle_log (d->o, "op %u: continue S%u after its failure", d->op_number, s->n);
        want = oracle_send (d->o, s, input, FALSE, 0, FALSE);
        d->front->send (d, s->id, "Continue.", NULL, FALSE, 0, &sent);
        check_sent (d, "Continue", &want, &sent);
        oracle_sent_clear (&sent);
        touch (d, s);
      }
      break;
    case OP_RELEASE:
      op_release (d, any_turn (d, held_turn));
      break;
    case OP_STOP:
      op_stop (d, any_turn (d, stoppable));
      break;
    case OP_PERMISSION:
    case OP_ANSWER:
      {
        OTurn *t = any_turn (d, waits_for_person);
        OToolCall *call = pending_call (t, OC_AWAIT_PERMISSION);

        if (call != NULL)
          op_permission (d, t, call, chance (d, 30) ? "deny"
                                     : n_pending (t) == 1 && !has_read_grant (t->owner) && chance (d, 30) ? "always"
                                     : "allow");
        else
          op_answer (d, t, pending_call (t, OC_AWAIT_ANSWER));
      }
      break;
    case OP_RESUME:
      op_resume (d, any_session (d, latest_idle));
      break;
    case OP_UNQUEUE:
      op_unqueue (d, any_session (d, has_queue));
      break;
    case OP_REPLACE_QUEUED:
      op_replace_queued (d, any_session (d, has_queue));
      break;
    case OP_GRANT:
      op_grant (d, any_session (d, grantable));
      break;
    case OP_REVOKE:
      op_revoke (d, any_session (d, has_grant_id));
      break;
    case OP_COMPACT:
      {
        OSession *s = any_session (d, compactable);

        op_compact (d, s, oracle_can_compact (d->o, s, 2) && chance (d, 50) ? 2 : 1);
      }
      break;
    case OP_FORK:
      {
        OTurn *at = any_turn (d, terminal_visible);

        op_fork (d, at->owner, at);
      }
      break;
    case OP_RENAME:
      op_rename (d, any_session (d, usable));
      break;
    case OP_EXPORT_IMPORT:
      op_export_import (d, any_session (d, exportable));
      break;
    case OP_DAMAGE:
      op_damage (d, any_turn (d, damageable));
      break;
    case OP_RECOVER:
      op_recover (d, any_session (d, recoverable));
      break;
    case OP_RESTART:
      oracle_log (d->o, "op %u: restart", d->op_number);
      restart (d);
      touch_all (d);
      break;
    case OP_CRASH_SEND:
      op_crash_send (d, any_session (d, quiet_session));
      break;
    case OP_CLI_SEND:
      cli_send (d);
      break;
    case OP_CLI_TOOL:
      cli_tool (d, any_turn (d, waits_for_natter));
      break;
    case OP_CLI_RESUME:
      cli_resume (d, any_session (d, natter_latest_idle));
      break;
    case OP_CLI_RETRY:
      {
        OTurn *of = any_turn (d, retried_by_natter);

        if (of != NULL)
          cli_retry (d, of);
        else
          cli_send (d);
      }
      break;
    case N_OPS:
      break;
    }
}

/* The session the model has that the service does not know yet by id:
 * after a `natter` process was killed before it said which it made. */
static void
learn_new_session (OracleDriver *d,
                   OSession     *s)
{
  GListModel *index = G_LIST_MODEL (natter_sessions_list_sessions (d->f.sessions));

  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);
      const char *id = natter_session_index_entry_get_session_id (entry);
      gboolean known = FALSE;

      for (guint j = 0; j < d->o->sessions->len && !known; j++)
        known = g_strcmp0 (((OSession *) g_ptr_array_index (d->o->sessions, j))->id, id) == 0;
      if (!known)
        {
          s->id = g_strdup (id);
          return;
        }
    }
}

gboolean
oracle_driver_run (OracleDriver *d)
{
  for (d->op_number = 1; d->op_number <= d->options.n_ops && d->n_failures == 0; d->op_number++)
    {
      OpKind op = choose_op (d);

      run_op (d, op);
      settle (d);
      if (d->f.services == NULL)
        load_services (d);
      check_readings (d, d->op_number % 5 == 0);
      check_files (d);
      if (d->options.cli_every > 0 && d->op_number % d->options.cli_every == 0 && !any_held (d) && d->n_failures == 0)
        check_cli (d);
    }
  d->op_number--;
  if (d->n_failures == 0)
    {
      /* The end: every stream ends, then everything is read once more. */
      for (OTurn *t = any_turn (d, held_turn); t != NULL; t = any_turn (d, held_turn))
        {
          op_release (d, t);
          settle (d);
        }
      pending_collect (d);
      if (d->pending->len > 0)
        oracle_driver_fail (d, "stalled", "%u answers to turns never finished", d->pending->len);
      check_readings (d, TRUE);
      check_files (d);
      d->cli_all = TRUE;
      check_cli (d);
    }
  return d->n_failures == 0;
}

/* ------------------------------------------------------------------ */
/* Set-up                                                               */
/* ------------------------------------------------------------------ */

OracleDriver *
oracle_driver_new (const OracleOptions *options)
{
  OracleDriver *d = g_new0 (OracleDriver, 1);
  g_autofree char *files_dir = NULL;

  d->options = *options;
  d->failures = g_ptr_array_new_with_free_func (g_free);
  d->failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->deferred_kinds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  d->touched = g_hash_table_new (NULL, NULL);
  d->cli_touched = g_hash_table_new (NULL, NULL);
  d->scratch = g_ptr_array_new_with_free_func (g_free);
  d->readers = g_ptr_array_new_with_free_func (g_free);
  d->pending = g_ptr_array_new ();
  d->front = &oracle_pipeline_front_end;

  natter_test_services_set_up (&d->f, NULL);
  d->f.without_writer_lock = TRUE;
  g_settings_set_boolean (d->f.gsettings, "auto-compact", FALSE);
  g_settings_set_boolean (d->f.gsettings, "auto-title", TRUE);
  files_dir = g_build_filename (g_file_peek_path (d->f.dir), "files", NULL);
  g_mkdir_with_parents (files_dir, 0700);
  d->work_dir = g_steal_pointer (&files_dir);
  d->o = oracle_new (options->seed, d->work_dir);
  d->o->weird_text = !options->plain;
  natter_test_services_serve_server (&d->f, natter_test_server_new_responder (responder, d));
  oracle_driver_add_reader (d, "the session service", read_services, FALSE, NULL);
  return d;
}

void
oracle_driver_free (OracleDriver *d)
{
  if (d->failures->len > 0)
    {
      /* What failed may still run: the process ends with it, and the data
       * directory stays for a look. */
      g_printerr ("the data directory stays: %s\n", g_file_peek_path (d->f.dir));
      return;
    }
  if (d->f.services != NULL && d->hook != NULL)
    d->hook (d, FALSE, d->hook_data);
  natter_test_services_tear_down (&d->f, NULL);
  natter_test_run_clear (&d->run);
  oracle_free (d->o);
  g_ptr_array_unref (d->failures);
  g_hash_table_unref (d->failed);
  g_hash_table_unref (d->counts);
  g_hash_table_unref (d->deferred_kinds);
  g_hash_table_unref (d->touched);
  g_hash_table_unref (d->cli_touched);
  g_ptr_array_unref (d->scratch);
  g_ptr_array_unref (d->readers);
  g_ptr_array_unref (d->pending);
  g_free (d->work_dir);
  natter_message_request_free (d->refused_request);
  g_free (d);
}

void
oracle_driver_set_front_end (OracleDriver         *d,
                             const OracleFrontEnd *front,
                             gpointer              data)
{
  d->front = front;
  d->front_data = data;
}

gpointer
oracle_driver_get_front_data (OracleDriver *d)
{
  return d->front_data;
}

void
oracle_driver_add_reader (OracleDriver *d,
                          const char   *name,
                          OracleReader  reader,
                          gboolean      eventual,
                          gpointer      data)
{
  OracleReaderEntry *entry = g_new0 (OracleReaderEntry, 1);

  entry->eventual = eventual;
  entry->name = name;
  entry->reader = reader;
  entry->data = data;
  g_ptr_array_add (d->readers, entry);
}

void
oracle_driver_set_restart_hook (OracleDriver      *d,
                                OracleRestartHook  hook,
                                gpointer           data)
{
  d->hook = hook;
  d->hook_data = data;
  if (hook != NULL && d->f.services != NULL)
    hook (d, TRUE, data);
}

NatterServices *
oracle_driver_get_services (OracleDriver *d)
{
  return d->f.services;
}

/* The session as the service reads it now, or NULL. */
NatterSessionState *
oracle_driver_read_session (OracleDriver *d,
                            const char   *session_id)
{
  return get_session (d, session_id, NULL);
}

Oracle *
oracle_driver_get_oracle (OracleDriver *d)
{
  return d->o;
}

const char *
oracle_driver_get_base_url (OracleDriver *d)
{
  return d->f.server->base_url;
}

/* ------------------------------------------------------------------ */
/* The send pipeline as the front end                                   */
/* ------------------------------------------------------------------ */

static void
pipeline_run (OracleDriver         *d,
              NatterMessageRequest *request,
              gboolean              retry_later,
              OracleSent           *out)
{
  NatterSendPipeline *pipeline = natter_services_get_send_pipeline (d->f.services);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterSendResult) sent = NULL;

  natter_send_pipeline_send_async (pipeline, request, NULL, natter_test_result_cb, &result);
  sent = natter_send_pipeline_send_finish (pipeline, wait_result (d, &result, "a send"), &out->error);
  if (sent != NULL)
    {
      out->session_id = g_strdup (sent->session_id);
      out->turn_id = g_strdup (sent->turn_id);
      out->queue_id = g_strdup (sent->queue_id);
    }
  else if (retry_later && natter_send_error_can_retry (out->error))
    {
      natter_message_request_free (d->refused_request);
      d->refused_request = natter_message_request_copy (request);
      out->retry_offered = TRUE;
    }
}

static void
pipeline_send (OracleDriver *d,
               const char   *session_id,
               const char   *text,
               GPtrArray    *files,
               gboolean      queue,
               guint         max_calls,
               OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (text);

  if (session_id != NULL)
    natter_message_request_set_session (request, session_id);
  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (((OFile *) g_ptr_array_index (files, i))->path);
      g_autoptr(NatterAttachmentSource) source = natter_attachment_source_new_for_file (file);

      natter_message_request_add_attachment (request, source);
    }
  natter_message_request_set_model (request, d->f.server->base_url, "m");
  natter_message_request_set_queue (request, queue);
  if (max_calls > 0)
    natter_message_request_set_max_model_calls (request, max_calls);
  pipeline_run (d, request, TRUE, out);
}

static void
pipeline_again (OracleDriver *d,
                const char   *shown_in,
                const char   *turn_id,
                gboolean      compact_first,
                OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new_again (turn_id);

  natter_message_request_set_session (request, shown_in);
  natter_message_request_set_compact_first (request, compact_first);
  pipeline_run (d, request, FALSE, out);
}

static void
pipeline_edit (OracleDriver *d,
               const char   *shown_in,
               const char   *turn_id,
               const char   *text,
               OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_new (text);

  natter_message_request_set_session (request, shown_in);
  natter_message_request_set_version_of (request, turn_id);
  pipeline_run (d, request, FALSE, out);
}

static void
pipeline_retry (OracleDriver *d,
                OracleSent   *out)
{
  g_autoptr(NatterMessageRequest) request = natter_message_request_copy (d->refused_request);

  pipeline_run (d, request, TRUE, out);
}

const OracleFrontEnd oracle_pipeline_front_end = {
  .name = "the send pipeline",
  .send = pipeline_send,
  .again = pipeline_again,
  .edit = pipeline_edit,
  .retry = pipeline_retry,
};
