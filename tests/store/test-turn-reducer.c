/* test-turn-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure turn reducer and derive_turn_status() of docs/runtime.md §4:
 * every invariant, the valid shapes of a turn, atomic batches, live
 * application against full replay, and linear cost.
 */

#include "natter-json.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"
#include "natter-test-support.h"

#define TID "2026-11-30T09-14-03Z-0000042-000"
#define OTHER_TID "2026-11-29T08-00-00Z-0000001-000"
#define PREV_TID "2026-11-28T08-00-00Z-0000007-000"
#define TS "2026-11-30T09:14:03.120Z"

#define TOOLS "[{'toolId':'builtin.read','name':'read_file','description':'Read a file'," \
              "'inputSchema':{'type':'object'},'execution':'sync','requiresHuman':false}," \
              "{'toolId':'builtin.fetch','name':'fetch','description':'Fetch later'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':false}," \
              "{'toolId':'builtin.ask','name':'ask_human','description':'Ask the user'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':true}]"

#define NO_CONTEXT "[]"
#define ONE_MESSAGE "[{'role':'user','content':'Earlier'}]"
#define REFERENCE "{'previousTurnId':'" PREV_TID "'}"

#define HUMAN "'autoPermission':false,'humanAvailable':true,'maxModelCalls':5"
#define NO_HUMAN "'autoPermission':false,'humanAvailable':false,'maxModelCalls':5"
#define AUTO_HUMAN "'autoPermission':true,'humanAvailable':true,'maxModelCalls':5"
#define ONE_CALL "'autoPermission':false,'humanAvailable':true,'maxModelCalls':1"

/* Tool-call content parts. */
#define TC(id, name) "{'type':'tool-call','toolCallId':'" id "','toolName':'" name "','arguments':{}}"

/* JSON fixtures: literals use single quotes, turned into JSON here. */

static JsonNode *
fixture (const char *literal)
{
  g_autofree char *json = g_strdup (literal);

  g_strdelimit (json, "'", '"');
  return natter_test_json (json);
}

static void add (GPtrArray  *events,
                 const char *type,
                 const char *format,
                 ...) G_GNUC_PRINTF (3, 4);

static void
add (GPtrArray  *events,
     const char *type,
     const char *format,
     ...)
{
  g_autofree char *fields = NULL;
  g_autofree char *literal = NULL;
  va_list args;

  va_start (args, format);
  fields = g_strdup_vprintf (format, args);
  va_end (args);
  literal = g_strdup_printf ("{'type':'%s','turnId':'" TID "','ts':'" TS "'%s%s}",
                             type, *fields ? "," : "", fields);
  g_ptr_array_add (events, fixture (literal));
}

static GPtrArray *
turn_new (const char *context,
          const char *config)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  add (events, "turn_created",
       "'schemaVersion':1,'sessionId':'" OTHER_TID "','agent':{'requested':{'agentId':'default'},"
       "'resolved':{'model':{'provider':'ollama','model':'llama3'},'systemPrompt':'Be brief.',"
       "'tools':" TOOLS "}},'context':%s,'input':{'role':'user','content':'Hi'},'config':{%s}",
       context, config);
  return events;
}

static void
request (GPtrArray  *events,
         guint       index,
         const char *refs)
{
  add (events, "model_call_requested",
       "'modelCallIndex':%u,'request':{'messages':[%s],'parameters':{}}", index, refs);
}

static void
respond_text (GPtrArray  *events,
              guint       index,
              const char *text)
{
  add (events, "model_call_completed",
       "'modelCallIndex':%u,'message':{'role':'assistant','content':[{'type':'reasoning','text':'hm'},"
       "{'type':'text','text':'%s'}]},'finishReason':'stop',"
       "'usage':{'inputTokens':10,'outputTokens':2,'totalTokens':12}", index, text);
}

static void
respond_tools (GPtrArray  *events,
               guint       index,
               const char *parts)
{
  add (events, "model_call_completed",
       "'modelCallIndex':%u,'message':{'role':'assistant','content':[%s]},'finishReason':'tool_calls',"
       "'usage':{'inputTokens':7,'outputTokens':3,'reasoningTokens':1}", index, parts);
}

static void
fail_call (GPtrArray *events,
           guint      index)
{
  add (events, "model_call_failed", "'modelCallIndex':%u,'error':'interrupted'", index);
}

static void
require (GPtrArray  *events,
         const char *id,
         const char *name)
{
  add (events, "tool_permission_required",
       "'toolCallId':'%s','toolName':'%s','request':{'what':'%s'}", id, name, name);
}

static void
resolve (GPtrArray  *events,
         const char *id,
         const char *decision,
         const char *source)
{
  add (events, "tool_permission_resolved", "'toolCallId':'%s','decision':'%s','source':'%s'",
       id, decision, source);
}

static void
classify (GPtrArray  *events,
          const char *id,
          const char *decision)
{
  add (events, "tool_permission_classified", "'toolCallId':'%s','decision':'%s','reason':'r'",
       id, decision);
}

static void
invoke (GPtrArray  *events,
        const char *id,
        const char *name)
{
  const char *tool_id = g_str_equal (name, "read_file") ? "builtin.read"
                        : g_str_equal (name, "fetch") ? "builtin.fetch" : "builtin.ask";
  const char *execution = g_str_equal (name, "read_file") ? "sync" : "async";

  add (events, "tool_invocation_requested",
       "'toolCallId':'%s','toolId':'%s','toolName':'%s','execution':'%s','input':{}",
       id, tool_id, name, execution);
}

static void
progress (GPtrArray  *events,
          const char *id,
          const char *source)
{
  add (events, "tool_progress", "'toolCallId':'%s','source':'%s','progress':{'done':1}", id, source);
}

static void
result (GPtrArray  *events,
        const char *id,
        const char *name,
        const char *source)
{
  add (events, "tool_result",
       "'toolCallId':'%s','toolName':'%s','source':'%s','result':{'output':'out','isError':%s}",
       id, name, source, g_str_equal (source, "runtime") ? "true" : "false");
}

static void
suspend (GPtrArray  *events,
         const char *permissions,
         const char *async_tools)
{
  add (events, "turn_suspended", "'pendingPermissions':[%s],'pendingAsyncTools':[%s],'usage':{}",
       permissions, async_tools);
}

#define PENDING_PERMISSION(id, name) "{'toolCallId':'" id "','toolName':'" name "','request':{}}"
#define PENDING_FETCH(id) "{'toolCallId':'" id "','toolId':'builtin.fetch','toolName':'fetch','input':{}}"

static void
complete (GPtrArray *events)
{
  add (events, "turn_completed",
       "'output':{'role':'assistant','content':[{'type':'text','text':'Done'}]},'finishReason':'stop',"
       "'usage':{}");
}

static void
cancel (GPtrArray *events)
{
  add (events, "turn_cancelled", "'reason':'user','usage':{}");
}

static void
fail_turn (GPtrArray  *events,
           const char *code)
{
  if (code != NULL)
    add (events, "turn_failed", "'error':'stopped','code':'%s','usage':{}", code);
  else
    add (events, "turn_failed", "'error':'provider said 500','usage':{}");
}

/* Assertions */

static char *
dump (NatterTurnState *state)
{
  g_autoptr(JsonNode) node = natter_turn_state_to_debug_json (state);

  return json_to_string (node, FALSE);
}

static NatterTurnState *
reduce_ok (GPtrArray *events)
{
  g_autoptr(GError) error = NULL;
  NatterTurnState *state = natter_turn_reduce (events, &error);

  g_assert_no_error (error);
  g_assert_nonnull (state);
  g_assert_cmpuint (natter_turn_state_get_n_events (state), ==, events->len);
  return state;
}

/* The last event must be refused with @code: by a full replay, and by a
 * live apply that leaves the state exactly as it was. */
static void
assert_last_rejected (GPtrArray *events,
                      int        code)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnState) state = natter_turn_state_new ();
  g_autoptr(NatterTurnState) replay = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  for (guint i = 0; i + 1 < events->len; i++)
    {
      g_assert_true (natter_turn_state_apply (state, json_node_get_object (events->pdata[i]), &error));
      g_assert_no_error (error);
    }
  before = dump (state);
  g_assert_false (natter_turn_state_apply (state,
                                           json_node_get_object (events->pdata[events->len - 1]),
                                           &error));
  g_assert_error (error, NATTER_STORE_ERROR, code);
  g_test_message ("Rejected: %s", error->message);
  g_clear_error (&error);
  after = dump (state);
  g_assert_cmpstr (before, ==, after);

  replay = natter_turn_reduce (events, &error);
  g_assert_null (replay);
  g_assert_error (error, NATTER_STORE_ERROR, code);
}

static void
assert_status (GPtrArray        *events,
               NatterTurnStatus  expected)
{
  g_autoptr(NatterTurnState) state = reduce_ok (events);

  g_assert_cmpstr (natter_turn_status_to_string (natter_derive_turn_status (state)), ==,
                   natter_turn_status_to_string (expected));
}

/* Applying event by event, or in batches of any size, equals a replay. */
static void
assert_live_equals_replay (GPtrArray *events)
{
  g_autoptr(NatterTurnState) replay = reduce_ok (events);
  g_autoptr(NatterTurnState) live = natter_turn_state_new ();
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < events->len; i++)
    {
      g_assert_true (natter_turn_state_apply (live, json_node_get_object (events->pdata[i]), &error));
      g_assert_no_error (error);
    }
  g_assert_true (natter_turn_state_equal (live, replay));

  for (guint size = 2; size <= 3; size++)
    {
      g_autoptr(NatterTurnState) batched = natter_turn_state_new ();

      for (guint i = 0; i < events->len; i += size)
        {
          g_autoptr(GPtrArray) batch = g_ptr_array_new ();

          for (guint j = i; j < MIN (i + size, events->len); j++)
            g_ptr_array_add (batch, events->pdata[j]);
          g_assert_true (natter_turn_state_apply_batch (batched, batch, &error));
          g_assert_no_error (error);
        }
      g_assert_true (natter_turn_state_equal (batched, replay));
    }
}

/* Valid turns */

static void
test_plain_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) usage = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;
  NatterTurnModelCall *call;

  state = reduce_ok (events);
  g_assert_cmpstr (natter_turn_state_get_turn_id (state), ==, TID);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_cmpint (natter_turn_state_get_last_model_call_index (state), ==, -1);
  /* Call 0 with empty inline context is just the input. */
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "input", NULL }));
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 0, "'input'");
  add (events, "model_step_event", "'modelCallIndex':0,'event':{'type':'text-end'}");
  state = reduce_ok (events);
  g_assert_true (natter_turn_state_has_open_model_call (state));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_clear_pointer (&state, natter_turn_state_unref);

  respond_text (events, 0, "Hello");
  complete (events);
  state = reduce_ok (events);

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpstr (natter_turn_status_to_string (natter_derive_turn_status (state)), ==, "completed");
  g_assert_false (natter_turn_state_has_open_model_call (state));
  g_assert_cmpuint (natter_turn_state_get_n_model_calls (state), ==, 1);
  g_assert_cmpint (natter_turn_state_get_last_model_call_index (state), ==, 0);
  call = natter_turn_state_get_model_call (state, 0);
  g_assert_cmpuint (natter_turn_model_call_get_index (call), ==, 0);
  g_assert_false (natter_turn_model_call_is_open (call));
  g_assert_cmpstr (natter_turn_model_call_get_finish_reason (call), ==, "stop");
  g_assert_null (natter_turn_model_call_get_error (call));
  g_assert_cmpuint (natter_turn_model_call_get_step_events (call)->len, ==, 1);
  g_assert_cmpuint (natter_turn_model_call_get_n_tool_calls (call), ==, 0);
  g_assert_nonnull (natter_turn_model_call_get_message (call));
  g_assert_cmpint (json_object_get_int_member (natter_turn_model_call_get_usage (call), "totalTokens"),
                   ==, 12);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (
                      natter_turn_model_call_get_request (call), "messages")), ==, 1);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (state), ==, 0);
  g_assert_nonnull (natter_turn_state_get_definition (state));
  g_assert_null (natter_turn_state_get_last_suspension (state));
  g_assert_cmpstr (json_object_get_string_member (natter_turn_state_get_terminal_event (state), "type"),
                   ==, "turn_completed");
  text = natter_turn_state_dup_final_text (state);
  g_assert_cmpstr (text, ==, "Done");
  usage = natter_turn_state_dup_usage (state);
  g_assert_cmpint (json_object_get_int_member (usage, "inputTokens"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (usage, "totalTokens"), ==, 12);
  g_assert_false (json_object_has_member (usage, "reasoningTokens"));
  /* A completed turn takes no further model call. */
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);

  assert_live_equals_replay (events);
}

static void
test_sync_tool_round_trip (void)
{
  g_autoptr(GPtrArray) events = turn_new (ONE_MESSAGE, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonObject) usage = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) unfinished = NULL;
  NatterTurnToolCall *first;
  NatterTurnToolCall *second;

  /* Inline non-empty context: call 0 is ["context", "input"]. */
  request (events, 0, "'context','input'");
  respond_tools (events, 0, "{'type':'text','text':'Let me look'}," TC ("c1", "read_file") ","
                 TC ("c2", "read_file"));
  invoke (events, "c1", "read_file");
  progress (events, "c1", "sync");
  progress (events, "c1", "sync");
  /* Results may finish in any order; refs follow the model's order. */
  invoke (events, "c2", "read_file");
  result (events, "c2", "read_file", "sync");

  state = reduce_ok (events);
  unfinished = natter_turn_state_get_unfinished_tool_calls (state);
  g_assert_cmpuint (unfinished->len, ==, 1);
  g_assert_cmpstr (natter_turn_tool_call_get_id (unfinished->pdata[0]), ==, "c1");
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  g_clear_pointer (&state, natter_turn_state_unref);

  result (events, "c1", "read_file", "sync");
  state = reduce_ok (events);
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "assistant:0", "toolResult:c1", "toolResult:c2", NULL }));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "It says out");
  complete (events);
  state = reduce_ok (events);

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (state), ==, 2);
  first = natter_turn_state_get_tool_call (state, 0);
  second = natter_turn_state_lookup_tool_call (state, "c2");
  g_assert_true (natter_turn_model_call_get_tool_call (natter_turn_state_get_model_call (state, 0), 1)
                 == second);
  g_assert_null (natter_turn_state_lookup_tool_call (state, "c3"));
  g_assert_cmpstr (natter_turn_tool_call_get_id (first), ==, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_name (first), ==, "read_file");
  g_assert_cmpuint (natter_turn_tool_call_get_model_call_index (first), ==, 0);
  g_assert_cmpuint (natter_turn_tool_call_get_order (first), ==, 0);
  g_assert_cmpuint (natter_turn_tool_call_get_order (second), ==, 1);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (natter_turn_tool_call_get_arguments (first)));
  g_assert_null (natter_turn_tool_call_get_permission_required (first));
  g_assert_null (natter_turn_tool_call_get_decision (first));
  g_assert_cmpstr (natter_turn_tool_call_get_execution (first), ==, "sync");
  g_assert_nonnull (natter_turn_tool_call_get_invocation (first));
  g_assert_cmpuint (natter_turn_tool_call_get_progress (first)->len, ==, 2);
  g_assert_cmpuint (natter_turn_tool_call_get_progress (second)->len, ==, 0);
  g_assert_cmpstr (natter_turn_tool_call_get_result_source (first), ==, "sync");
  g_assert_false (json_object_get_boolean_member (natter_turn_tool_call_get_result (first), "isError"));
  g_assert_nonnull (natter_turn_tool_call_get_result_event (first));
  /* Usage adds up per field; fields no call reported stay absent. */
  usage = natter_turn_state_dup_usage (state);
  g_assert_cmpint (json_object_get_int_member (usage, "inputTokens"), ==, 17);
  g_assert_cmpint (json_object_get_int_member (usage, "outputTokens"), ==, 5);
  g_assert_cmpint (json_object_get_int_member (usage, "reasoningTokens"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (usage, "totalTokens"), ==, 12);
  g_assert_false (json_object_has_member (usage, "cachedInputTokens"));

  assert_live_equals_replay (events);
}

static void
test_permission_round_trip (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) pending = NULL;
  NatterTurnToolCall *call;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file"));
  /* c2 needs no permission and runs at once; c1 waits for a human. */
  require (events, "c1", "read_file");
  invoke (events, "c2", "read_file");
  result (events, "c2", "read_file", "sync");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  g_assert_cmpuint (natter_turn_state_get_n_pending_permissions (state), ==, 1);
  g_assert_cmpuint (natter_turn_state_get_n_pending_async_tools (state), ==, 0);
  pending = natter_turn_state_get_pending_permissions (state);
  g_assert_cmpuint (pending->len, ==, 1);
  call = pending->pdata[0];
  g_assert_cmpstr (natter_turn_tool_call_get_id (call), ==, "c1");
  g_assert_true (natter_turn_tool_call_is_awaiting_permission (call));
  g_assert_false (natter_turn_tool_call_is_awaiting_async_result (call));
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (natter_turn_tool_call_get_permission_required (call),
                                                    "request"), "what"), ==, "read_file");
  g_assert_nonnull (natter_turn_state_get_last_suspension (state));
  g_clear_pointer (&pending, g_ptr_array_unref);
  g_clear_pointer (&state, natter_turn_state_unref);

  /* The human's decision advances the same turn; not suspended any more. */
  resolve (events, "c1", "allow", "human");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "ok");
  complete (events);

  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  call = natter_turn_state_lookup_tool_call (state, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_decision (call), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (natter_turn_tool_call_get_resolution (call), "source"),
                   ==, "human");
  g_assert_false (natter_turn_tool_call_is_awaiting_permission (call));
  pending = natter_turn_state_get_pending_permissions (state);
  g_assert_cmpuint (pending->len, ==, 0);
  /* The last suspension stays recorded, but is no longer the resting state. */
  g_assert_nonnull (natter_turn_state_get_last_suspension (state));

  assert_live_equals_replay (events);
}

static void
test_denied_without_human (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, NO_HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  NatterTurnToolCall *call;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "ask_human"));
  require (events, "c1", "read_file");
  /* No human: deny → runtime error result, and ask_human fails at once. */
  resolve (events, "c1", "deny", "human_unavailable");
  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "ask_human", "runtime");
  request (events, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  respond_text (events, 1, "I could not");
  complete (events);

  state = reduce_ok (events);
  call = natter_turn_state_lookup_tool_call (state, "c1");
  g_assert_cmpstr (natter_turn_tool_call_get_decision (call), ==, "deny");
  g_assert_null (natter_turn_tool_call_get_invocation (call));
  g_assert_cmpstr (natter_turn_tool_call_get_result_source (call), ==, "runtime");
  assert_live_equals_replay (events);
}

static void
test_classifier (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, AUTO_HUMAN);
  g_autoptr(NatterTurnState) state = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file") "," TC ("c3", "read_file"));
  require (events, "c1", "read_file");
  require (events, "c2", "read_file");
  require (events, "c3", "read_file");
  classify (events, "c1", "allow");
  add (events, "tool_permission_classification_failed", "'toolCallIds':['c2','c3'],'error':'timeout'");
  resolve (events, "c1", "allow", "classifier");
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  suspend (events, PENDING_PERMISSION ("c2", "read_file") "," PENDING_PERMISSION ("c3", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  resolve (events, "c2", "deny", "human");
  result (events, "c2", "read_file", "runtime");
  suspend (events, PENDING_PERMISSION ("c3", "read_file"), "");
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  g_assert_cmpstr (json_object_get_string_member (
                     natter_turn_tool_call_get_classification (natter_turn_state_lookup_tool_call (state, "c1")),
                     "decision"), ==, "allow");
  g_assert_nonnull (natter_turn_tool_call_get_classification_failure (
                      natter_turn_state_lookup_tool_call (state, "c3")));
  assert_live_equals_replay (events);
}

static void
test_async_tool_suspended (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) pending = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "fetch"));
  invoke (events, "c1", "fetch");
  suspend (events, "", PENDING_FETCH ("c1"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);

  state = reduce_ok (events);
  pending = natter_turn_state_get_pending_async_tools (state);
  g_assert_cmpuint (pending->len, ==, 1);
  g_assert_true (natter_turn_tool_call_is_awaiting_async_result (pending->pdata[0]));
  g_assert_cmpstr (natter_turn_tool_call_get_execution (pending->pdata[0]), ==, "async");
  g_clear_pointer (&state, natter_turn_state_unref);

  /* Async progress is an external input: the advance suspends again. */
  progress (events, "c1", "async");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  suspend (events, "", PENDING_FETCH ("c1"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  result (events, "c1", "fetch", "async");
  assert_status (events, NATTER_TURN_STATUS_IDLE);
  request (events, 1, "'assistant:0','toolResult:c1'");
  respond_text (events, 1, "fetched");
  complete (events);
  assert_status (events, NATTER_TURN_STATUS_COMPLETED);
  assert_live_equals_replay (events);
}

static void
test_failed_model_call_limit (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, ONE_CALL);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");

  /* The batch is finished but the budget is spent. */
  state = reduce_ok (events);
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_pointer (&state, natter_turn_state_unref);

  fail_turn (events, "model-call-limit");
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_FAILED), ==, "failed");
  g_assert_cmpstr (json_object_get_string_member (natter_turn_state_get_terminal_event (state), "code"),
                   ==, "model-call-limit");
  text = natter_turn_state_dup_final_text (state);
  g_assert_null (text);
  assert_live_equals_replay (events);
}

static void
test_failed_provider (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;

  request (events, 0, "'input'");
  add (events, "model_call_failed", "'modelCallIndex':0,'error':'ollama: HTTP 500'");
  fail_turn (events, NULL);

  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  g_assert_cmpstr (natter_turn_model_call_get_error (natter_turn_state_get_model_call (state, 0)), ==,
                   "ollama: HTTP 500");
  g_assert_null (natter_turn_model_call_get_message (natter_turn_state_get_model_call (state, 0)));
  g_assert_null (natter_turn_model_call_get_partial (natter_turn_state_get_model_call (state, 0)));
  assert_live_equals_replay (events);
}

/* Lines exactly as older Natter wrote them: the model override at
 * `agent.requested.model`, and a stopped stream's answer as a
 * `partial_response` step event. They must keep reading, unrewritten. */
static const char *const old_shape_lines[] = {
  "{\"type\":\"turn_created\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"schemaVersion\":1,"
  "\"sessionId\":\"" OTHER_TID "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\","
  "\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"}},\"resolved\":{\"agentId\":\"assistant\","
  "\"systemPrompt\":\"Be brief.\",\"model\":{\"provider\":\"ollama\",\"model\":\"llama3\"},\"tools\":[]}},"
  "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Tell me a story\"},"
  "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}}",
  "{\"type\":\"model_call_requested\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
  "{\"type\":\"model_step_event\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"event\":{\"type\":\"partial_response\",\"model\":\"llama3\",\"message\":{\"role\":\"assistant\","
  "\"content\":[{\"type\":\"text\",\"text\":\"Once upon a\"}]}}}",
  "{\"type\":\"model_call_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
  "\"error\":\"The connection was lost mid-answer (11 characters of the answer had arrived; they are kept)\"}",
  "{\"type\":\"turn_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"error\":\"The connection was lost\","
  "\"usage\":{}}",
};

static GPtrArray *
parse_lines (const char *const *lines,
             guint               n_lines)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; i < n_lines; i++)
    {
      g_autoptr(GError) error = NULL;
      JsonNode *node = natter_test_json (lines[i]);

      natter_turn_event_validate (json_node_get_object (node), TID, &error);
      g_assert_no_error (error);
      g_ptr_array_add (events, node);
    }
  return events;
}

static void
test_compat_old_partial_and_requested_model (void)
{
  g_autoptr(GPtrArray) events = parse_lines (old_shape_lines, G_N_ELEMENTS (old_shape_lines));
  g_autoptr(NatterTurnState) state = reduce_ok (events);
  NatterTurnModelCall *call = natter_turn_state_get_model_call (state, 0);
  JsonObject *requested;
  JsonObject *partial;

  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_FAILED);
  partial = natter_turn_model_call_get_partial (call);
  g_assert_nonnull (partial);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (partial,
                                                                                                             "content"),
                                                                               0),
                                                  "text"),
                   ==, "Once upon a");
  requested = json_object_get_object_member (json_object_get_object_member (natter_turn_state_get_definition (state),
                                                                            "agent"),
                                             "requested");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (requested, "model"), "model"),
                   ==, "llama3");
  assert_live_equals_replay (events);
}

/* Today's shape: the partial answer is a field of the model_call_failed
 * that settles the call, here by a stop. */
static void
test_partial_on_failed_call (void)
{
  static const char *const lines[] = {
    "{\"type\":\"model_call_requested\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}",
    "{\"type\":\"model_call_failed\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"error\":\"cancelled\",\"partial\":{\"role\":\"assistant\",\"content\":[{\"type\":\"reasoning\","
    "\"text\":\"hm\"},{\"type\":\"text\",\"text\":\"Once upon\"}]}}",
    "{\"type\":\"turn_cancelled\",\"turnId\":\"" TID "\",\"ts\":\"" TS "\",\"usage\":{}}",
  };
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(GPtrArray) tail = parse_lines (lines, G_N_ELEMENTS (lines));
  g_autoptr(NatterTurnState) state = NULL;
  JsonObject *partial;

  for (guint i = 0; i < tail->len; i++)
    g_ptr_array_add (events, json_node_ref (g_ptr_array_index (tail, i)));
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_CANCELLED);
  partial = natter_turn_model_call_get_partial (natter_turn_state_get_model_call (state, 0));
  g_assert_nonnull (partial);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (partial, "content")), ==, 2);
  assert_live_equals_replay (events);
}

static void
test_cancelled (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "fetch"));
  require (events, "c1", "read_file");
  invoke (events, "c2", "fetch");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), PENDING_FETCH ("c2"));
  assert_status (events, NATTER_TURN_STATUS_SUSPENDED);
  /* Cancel: every unresolved call gets a runtime "cancelled" result. */
  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  cancel (events);
  assert_status (events, NATTER_TURN_STATUS_CANCELLED);
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_CANCELLED), ==, "cancelled");
  assert_live_equals_replay (events);
}

static void
test_cancelled_open_model_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  cancel (events);
  assert_status (events, NATTER_TURN_STATUS_CANCELLED);
}

static void
test_crash_reissue (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;

  request (events, 0, "'input'");
  /* A crash left call 0 open: idle, with an open model call. */
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_true (natter_turn_state_has_open_model_call (state));
  g_assert_null (natter_turn_state_dup_next_request_refs (state, NULL, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  g_clear_pointer (&state, natter_turn_state_unref);

  /* Recovery closes it and re-issues the next index with []. */
  fail_call (events, 0);
  state = reduce_ok (events);
  refs = natter_turn_state_dup_next_request_refs (state, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (refs), ==, 0);
  g_clear_pointer (&state, natter_turn_state_unref);

  request (events, 1, "");
  respond_text (events, 1, "Hello again");
  complete (events);
  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpstr (natter_turn_model_call_get_error (natter_turn_state_get_model_call (state, 0)), ==,
                   "interrupted");
  assert_live_equals_replay (events);
}

static void
test_context_reference (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);
  g_autoptr(NatterTurnState) state = reduce_ok (events);
  g_autofree char *previous = NULL;
  g_auto(GStrv) refs = NULL;
  g_autoptr(GError) error = NULL;

  refs = natter_turn_state_dup_next_request_refs (state, &previous, &error);
  g_assert_no_error (error);
  g_assert_cmpstrv (refs, ((const char * const[]) { "input", NULL }));
  g_assert_cmpstr (previous, ==, PREV_TID);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" PREV_TID "'},"
       "'messages':['input'],'parameters':{}}");
  respond_text (events, 0, "Continuing");
  complete (events);
  assert_status (events, NATTER_TURN_STATUS_COMPLETED);
}

static void
test_status_strings (void)
{
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_COMPLETED), ==, "completed");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_FAILED), ==, "failed");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_CANCELLED), ==, "cancelled");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_SUSPENDED), ==, "suspended");
  g_assert_cmpstr (natter_turn_status_to_string (NATTER_TURN_STATUS_IDLE), ==, "idle");
}

static void
test_boxed_ref (void)
{
  NatterTurnState *state = natter_turn_state_new ();
  NatterTurnState *copy;

  g_assert_true (G_TYPE_IS_BOXED (NATTER_TYPE_TURN_STATE));
  copy = g_boxed_copy (NATTER_TYPE_TURN_STATE, state);
  g_assert_true (copy == state);
  g_boxed_free (NATTER_TYPE_TURN_STATE, copy);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_IDLE);
  g_assert_null (natter_turn_state_get_turn_id (state));
  natter_turn_state_unref (state);
}

/* Atomicity */

static void
test_failed_batch_leaves_state_unchanged (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(GPtrArray) batch = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GPtrArray) good = NULL;

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "fetch") "," TC ("c2", "read_file"));
  invoke (events, "c1", "fetch");
  suspend (events, "", PENDING_FETCH ("c1"));
  state = reduce_ok (events);
  before = dump (state);

  /* A batch that touches everything: results, counters, a new model call,
   * new tool calls, usage, step events… then one illegal event. */
  g_ptr_array_remove_index (batch, 0);
  progress (batch, "c1", "async");
  result (batch, "c1", "fetch", "async");
  require (batch, "c2", "read_file");
  resolve (batch, "c2", "allow", "human");
  invoke (batch, "c2", "read_file");
  progress (batch, "c2", "sync");
  result (batch, "c2", "read_file", "sync");
  request (batch, 1, "'assistant:0','toolResult:c1','toolResult:c2'");
  add (batch, "model_step_event", "'modelCallIndex':1,'event':{'type':'finish'}");
  respond_tools (batch, 1, TC ("c3", "read_file"));
  invoke (batch, "c3", "read_file");
  result (batch, "c3", "read_file", "sync");
  result (batch, "c3", "read_file", "sync");

  g_assert_false (natter_turn_state_apply_batch (state, batch, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
  g_clear_error (&error);
  after = dump (state);
  g_assert_cmpstr (before, ==, after);
  g_assert_null (natter_turn_state_lookup_tool_call (state, "c3"));
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_SUSPENDED);

  /* A schema failure mid-batch rolls back too. */
  {
    g_autoptr(GPtrArray) bad = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

    g_ptr_array_add (bad, json_node_ref (batch->pdata[0]));
    g_ptr_array_add (bad, fixture ("{'type':'tool_result','turnId':'" TID "','ts':'" TS "'}"));
    g_assert_false (natter_turn_state_apply_batch (state, bad, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA);
    g_clear_error (&error);
    g_clear_pointer (&after, g_free);
    after = dump (state);
    g_assert_cmpstr (before, ==, after);
  }

  /* The state is still usable: the legal prefix applies, and equals a replay. */
  good = g_ptr_array_new ();
  for (guint i = 0; i + 1 < batch->len; i++)
    {
      g_ptr_array_add (good, batch->pdata[i]);
      g_ptr_array_add (events, json_node_ref (batch->pdata[i]));
    }
  g_assert_true (natter_turn_state_apply_batch (state, good, &error));
  g_assert_no_error (error);
  {
    g_autoptr(NatterTurnState) replay = reduce_ok (events);

    g_assert_true (natter_turn_state_equal (state, replay));
  }
}

/* Invariants (docs/runtime.md §4): each its own test, with the exact error. */

static void
test_invariant_first_not_created (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_missing_created (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_assert_null (natter_turn_reduce (events, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_created (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  g_ptr_array_add (events, json_node_ref (events->pdata[0]));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_mismatched_turn_id (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  g_ptr_array_add (events, fixture ("{'type':'model_call_requested','turnId':'" OTHER_TID "','ts':'" TS "',"
                                    "'modelCallIndex':0,'request':{'messages':['input'],'parameters':{}}}"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_unknown_type (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "turn_paused", "'usage':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_UNKNOWN_TYPE);
}

static void
test_invariant_unsupported_version (void)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  add (events, "turn_created", "'schemaVersion':3,'sessionId':null");
  assert_last_rejected (events, NATTER_STORE_ERROR_UNSUPPORTED_VERSION);
}

static void
test_invariant_schema_checked (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "model_call_requested", "'modelCallIndex':0");
  assert_last_rejected (events, NATTER_STORE_ERROR_SCHEMA);
}

static void
test_invariant_model_index_out_of_order (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 1, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_model_index_reused (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 0, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_open_model_calls (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completion_without_request (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  respond_text (events, 0, "x");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completion_twice (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  respond_text (events, 0, "y");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_without_request (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 1);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_after_completion (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  fail_call (events, 0);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failure_twice (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  fail_call (events, 0);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_step_after_close (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  add (events, "model_step_event", "'modelCallIndex':0,'event':{'type':'late'}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_tool_call_in_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "read_file") "," TC ("c1", "fetch"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_duplicate_tool_call_across_turn (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file"));
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1'");
  respond_tools (events, 1, TC ("c1", "read_file"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

/* A response with c1 (read_file) and c2 (fetch), for the tool invariants. */
static GPtrArray *
turn_with_tool_calls (const char *config)
{
  GPtrArray *events = turn_new (NO_CONTEXT, config);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "read_file") "," TC ("c2", "fetch"));
  return events;
}

static void
test_invariant_permission_required_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c9", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_permission_required_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  require (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_permission_required_wrong_name (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "fetch");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  classify (events, "c9", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classification_failed_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  add (events, "tool_permission_classification_failed", "'toolCallIds':['c1','c9'],'error':'x'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolved_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  resolve (events, "c9", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_without_requirement (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classified_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  classify (events, "c1", "defer");
  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classification_after_resolution (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  classify (events, "c1", "allow");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolved_without_requirement (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_conflicting_decisions (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human");
  resolve (events, "c1", "deny", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_classifier_allow_without_opinion (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (AUTO_HUMAN);

  require (events, "c1", "read_file");
  classify (events, "c1", "defer");
  resolve (events, "c1", "allow", "classifier");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_human_source_without_human (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (NO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_human_unavailable_allows (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (NO_HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "allow", "human_unavailable");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_resolution_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  result (events, "c1", "read_file", "runtime");
  resolve (events, "c1", "allow", "human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  add (events, "tool_invocation_requested",
       "'toolCallId':'c9','toolId':'builtin.read','toolName':'read_file','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_denied_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_before_resolution (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  invoke (events, "c2", "fetch");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  invoke (events, "c1", "read_file");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_tool_not_in_snapshot (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "rm_rf"));
  add (events, "tool_invocation_requested",
       "'toolCallId':'c1','toolId':'builtin.rm','toolName':'rm_rf','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_unlike_snapshot (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  add (events, "tool_invocation_requested",
       "'toolCallId':'c2','toolId':'builtin.fetch','toolName':'fetch','execution':'sync','input':{}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_invocation_needs_human (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, NO_HUMAN);

  request (events, 0, "'input'");
  respond_tools (events, 0, TC ("c1", "ask_human"));
  invoke (events, "c1", "ask_human");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_after_result (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  progress (events, "c1", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_before_invocation (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  progress (events, "c1", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_progress_wrong_source (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  progress (events, "c1", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  result (events, "c1", "read_file", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_result_unknown_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c9", "read_file", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_result_wrong_name (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "fetch", "runtime");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_async_result_for_sync_tool (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_async_result_without_invocation (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c2", "fetch", "async");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_sync_result_for_async_tool (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c2", "fetch", "sync");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_next_call_before_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  request (events, 1, "'assistant:0','toolResult:c1'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_order (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c2", "fetch", "async");
  invoke (events, "c1", "read_file");
  result (events, "c1", "read_file", "sync");
  /* Finish order, not model order. */
  request (events, 1, "'assistant:0','toolResult:c2','toolResult:c1'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_assistant (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  request (events, 1, "'assistant:1','toolResult:c1','toolResult:c2'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_missing_context (void)
{
  g_autoptr(GPtrArray) events = turn_new (ONE_MESSAGE, HUMAN);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_context_when_empty (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'context','input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_missing_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);

  request (events, 0, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_wrong_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (REFERENCE, HUMAN);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" OTHER_TID "'},"
       "'messages':['input'],'parameters':{}}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_unexpected_context_ref (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  add (events, "model_call_requested",
       "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'" PREV_TID "'},"
       "'messages':['input'],'parameters':{}}");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_refs_reissue_not_empty (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 1, "'input'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_call_after_final_response (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "done");
  request (events, 1, "'assistant:0'");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_budget_exceeded (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, ONE_CALL);

  request (events, 0, "'input'");
  fail_call (events, 0);
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_model_call_limit_before_budget (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  fail_turn (events, "model-call-limit");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_with_unresolved_calls (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_after_tool_calls (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  result (events, "c1", "read_file", "runtime");
  result (events, "c2", "fetch", "runtime");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_after_failed_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_completed_without_model_call (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  complete (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_terminal_while_calls_lack_results (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  result (events, "c1", "read_file", "runtime");
  cancel (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_failed_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_turn (events, NULL);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_two_terminal_events (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  respond_text (events, 0, "x");
  complete (events);
  cancel (events);
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_event_after_terminal (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  fail_call (events, 0);
  fail_turn (events, NULL);
  request (events, 1, "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_incomplete (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  invoke (events, "c2", "fetch");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_lists_finished_call (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  require (events, "c1", "read_file");
  resolve (events, "c1", "deny", "human");
  result (events, "c1", "read_file", "runtime");
  suspend (events, PENDING_PERMISSION ("c1", "read_file"), "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_lists_twice (void)
{
  g_autoptr(GPtrArray) events = turn_with_tool_calls (HUMAN);

  invoke (events, "c2", "fetch");
  suspend (events, "", PENDING_FETCH ("c2") "," PENDING_FETCH ("c2"));
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

static void
test_invariant_suspension_while_model_call_open (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);

  request (events, 0, "'input'");
  suspend (events, "", "");
  assert_last_rejected (events, NATTER_STORE_ERROR_INVARIANT);
}

/* Linear cost */

#define N_LONG_EVENTS 100000

static void
test_long_turn_is_linear (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT,
                                          "'autoPermission':false,'humanAvailable':true,"
                                          "'maxModelCalls':1000000");
  g_autoptr(NatterTurnState) replay = NULL;
  g_autoptr(NatterTurnState) live = natter_turn_state_new ();
  g_autoptr(GError) error = NULL;
  guint index = 0;

  /* Each round: request, response with one tool call, invocation,
   * progress, result. */
  while (events->len + 5 + 3 <= N_LONG_EVENTS)
    {
      g_autofree char *id = g_strdup_printf ("call-%u", index);

      if (index == 0)
        request (events, 0, "'input'");
      else
        add (events, "model_call_requested",
             "'modelCallIndex':%u,'request':{'messages':['assistant:%u','toolResult:call-%u'],"
             "'parameters':{}}", index, index - 1, index - 1);
      add (events, "model_call_completed",
           "'modelCallIndex':%u,'message':{'role':'assistant','content':[{'type':'tool-call',"
           "'toolCallId':'%s','toolName':'read_file','arguments':{}}]},'finishReason':'tool_calls',"
           "'usage':{'totalTokens':1}", index, id);
      invoke (events, id, "read_file");
      progress (events, id, "sync");
      result (events, id, "read_file", "sync");
      index++;
    }
  add (events, "model_call_requested",
       "'modelCallIndex':%u,'request':{'messages':['assistant:%u','toolResult:call-%u'],"
       "'parameters':{}}", index, index - 1, index - 1);
  respond_text (events, index, "done");
  complete (events);
  g_assert_cmpuint (events->len, <=, N_LONG_EVENTS);
  g_assert_cmpuint (events->len, >=, N_LONG_EVENTS - 5);

  replay = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (replay), ==, NATTER_TURN_STATUS_COMPLETED);
  g_assert_cmpuint (natter_turn_state_get_n_tool_calls (replay), ==, index);

  /* The append gate, one small batch at a time over the growing history. */
  for (guint i = 0; i < events->len; i += 5)
    {
      g_autoptr(GPtrArray) batch = g_ptr_array_new ();

      for (guint j = i; j < MIN (i + 5, events->len); j++)
        g_ptr_array_add (batch, events->pdata[j]);
      g_assert_true (natter_turn_state_apply_batch (live, batch, &error));
      g_assert_no_error (error);
    }
  g_assert_true (natter_turn_state_equal (live, replay));
}

#define N_WIDE_CALLS 20000

static void
test_wide_response_is_linear (void)
{
  g_autoptr(GPtrArray) events = turn_new (NO_CONTEXT, HUMAN);
  g_autoptr(GString) parts = g_string_new (NULL);
  g_autoptr(GString) refs = g_string_new ("'assistant:0'");
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GPtrArray) pending = NULL;

  for (guint i = 0; i < N_WIDE_CALLS; i++)
    g_string_append_printf (parts, "%s{'type':'tool-call','toolCallId':'w%u','toolName':'fetch',"
                            "'arguments':{}}", i ? "," : "", i);
  request (events, 0, "'input'");
  respond_tools (events, 0, parts->str);
  for (guint i = 0; i < N_WIDE_CALLS; i++)
    {
      g_autofree char *id = g_strdup_printf ("w%u", i);

      invoke (events, id, "fetch");
    }
  /* Results arrive in reverse order; refs still follow the model order. */
  for (guint i = N_WIDE_CALLS; i > 0; i--)
    {
      g_autofree char *id = g_strdup_printf ("w%u", i - 1);

      result (events, id, "fetch", "async");
      g_string_append_printf (refs, ",'toolResult:w%u'", N_WIDE_CALLS - i);
    }
  request (events, 1, refs->str);
  respond_text (events, 1, "all fetched");
  complete (events);

  state = reduce_ok (events);
  g_assert_cmpint (natter_derive_turn_status (state), ==, NATTER_TURN_STATUS_COMPLETED);
  pending = natter_turn_state_get_pending_async_tools (state);
  g_assert_cmpuint (pending->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/turn-reducer/valid/plain-response", test_plain_response);
  g_test_add_func ("/turn-reducer/valid/sync-tool-round-trip", test_sync_tool_round_trip);
  g_test_add_func ("/turn-reducer/valid/permission-round-trip", test_permission_round_trip);
  g_test_add_func ("/turn-reducer/valid/denied-without-human", test_denied_without_human);
  g_test_add_func ("/turn-reducer/valid/classifier", test_classifier);
  g_test_add_func ("/turn-reducer/valid/async-tool-suspended", test_async_tool_suspended);
  g_test_add_func ("/turn-reducer/valid/failed-model-call-limit", test_failed_model_call_limit);
  g_test_add_func ("/turn-reducer/valid/failed-provider", test_failed_provider);
  g_test_add_func ("/turn-reducer/valid/cancelled", test_cancelled);
  g_test_add_func ("/turn-reducer/valid/partial-on-failed-call", test_partial_on_failed_call);
  g_test_add_func ("/turn-reducer/compat/old-partial-and-requested-model",
                   test_compat_old_partial_and_requested_model);
  g_test_add_func ("/turn-reducer/valid/cancelled-open-model-call", test_cancelled_open_model_call);
  g_test_add_func ("/turn-reducer/valid/crash-reissue", test_crash_reissue);
  g_test_add_func ("/turn-reducer/valid/context-reference", test_context_reference);
  g_test_add_func ("/turn-reducer/status-strings", test_status_strings);
  g_test_add_func ("/turn-reducer/boxed-ref", test_boxed_ref);
  g_test_add_func ("/turn-reducer/atomic/failed-batch-leaves-state-unchanged",
                   test_failed_batch_leaves_state_unchanged);

  g_test_add_func ("/turn-reducer/invariant/first-not-created", test_invariant_first_not_created);
  g_test_add_func ("/turn-reducer/invariant/missing-created", test_invariant_missing_created);
  g_test_add_func ("/turn-reducer/invariant/duplicate-created", test_invariant_duplicate_created);
  g_test_add_func ("/turn-reducer/invariant/mismatched-turn-id", test_invariant_mismatched_turn_id);
  g_test_add_func ("/turn-reducer/invariant/unknown-type", test_invariant_unknown_type);
  g_test_add_func ("/turn-reducer/invariant/unsupported-version", test_invariant_unsupported_version);
  g_test_add_func ("/turn-reducer/invariant/schema-checked", test_invariant_schema_checked);
  g_test_add_func ("/turn-reducer/invariant/model-index-out-of-order",
                   test_invariant_model_index_out_of_order);
  g_test_add_func ("/turn-reducer/invariant/model-index-reused", test_invariant_model_index_reused);
  g_test_add_func ("/turn-reducer/invariant/two-open-model-calls", test_invariant_two_open_model_calls);
  g_test_add_func ("/turn-reducer/invariant/completion-without-request",
                   test_invariant_completion_without_request);
  g_test_add_func ("/turn-reducer/invariant/completion-twice", test_invariant_completion_twice);
  g_test_add_func ("/turn-reducer/invariant/failure-without-request",
                   test_invariant_failure_without_request);
  g_test_add_func ("/turn-reducer/invariant/failure-after-completion",
                   test_invariant_failure_after_completion);
  g_test_add_func ("/turn-reducer/invariant/failure-twice", test_invariant_failure_twice);
  g_test_add_func ("/turn-reducer/invariant/step-after-close", test_invariant_step_after_close);
  g_test_add_func ("/turn-reducer/invariant/duplicate-tool-call-in-response",
                   test_invariant_duplicate_tool_call_in_response);
  g_test_add_func ("/turn-reducer/invariant/duplicate-tool-call-across-turn",
                   test_invariant_duplicate_tool_call_across_turn);
  g_test_add_func ("/turn-reducer/invariant/permission-required-unknown-call",
                   test_invariant_permission_required_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/permission-required-twice",
                   test_invariant_permission_required_twice);
  g_test_add_func ("/turn-reducer/invariant/permission-required-wrong-name",
                   test_invariant_permission_required_wrong_name);
  g_test_add_func ("/turn-reducer/invariant/classified-unknown-call",
                   test_invariant_classified_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/classification-failed-unknown-call",
                   test_invariant_classification_failed_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/resolved-unknown-call", test_invariant_resolved_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/classified-without-requirement",
                   test_invariant_classified_without_requirement);
  g_test_add_func ("/turn-reducer/invariant/classified-twice", test_invariant_classified_twice);
  g_test_add_func ("/turn-reducer/invariant/classification-after-resolution",
                   test_invariant_classification_after_resolution);
  g_test_add_func ("/turn-reducer/invariant/resolved-without-requirement",
                   test_invariant_resolved_without_requirement);
  g_test_add_func ("/turn-reducer/invariant/conflicting-decisions", test_invariant_conflicting_decisions);
  g_test_add_func ("/turn-reducer/invariant/classifier-allow-without-opinion",
                   test_invariant_classifier_allow_without_opinion);
  g_test_add_func ("/turn-reducer/invariant/human-source-without-human",
                   test_invariant_human_source_without_human);
  g_test_add_func ("/turn-reducer/invariant/human-unavailable-allows",
                   test_invariant_human_unavailable_allows);
  g_test_add_func ("/turn-reducer/invariant/resolution-after-result",
                   test_invariant_resolution_after_result);
  g_test_add_func ("/turn-reducer/invariant/invocation-unknown-call",
                   test_invariant_invocation_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/invocation-denied-call", test_invariant_invocation_denied_call);
  g_test_add_func ("/turn-reducer/invariant/invocation-before-resolution",
                   test_invariant_invocation_before_resolution);
  g_test_add_func ("/turn-reducer/invariant/invocation-twice", test_invariant_invocation_twice);
  g_test_add_func ("/turn-reducer/invariant/invocation-after-result",
                   test_invariant_invocation_after_result);
  g_test_add_func ("/turn-reducer/invariant/invocation-tool-not-in-snapshot",
                   test_invariant_invocation_tool_not_in_snapshot);
  g_test_add_func ("/turn-reducer/invariant/invocation-unlike-snapshot",
                   test_invariant_invocation_unlike_snapshot);
  g_test_add_func ("/turn-reducer/invariant/invocation-needs-human", test_invariant_invocation_needs_human);
  g_test_add_func ("/turn-reducer/invariant/progress-after-result", test_invariant_progress_after_result);
  g_test_add_func ("/turn-reducer/invariant/progress-before-invocation",
                   test_invariant_progress_before_invocation);
  g_test_add_func ("/turn-reducer/invariant/progress-wrong-source", test_invariant_progress_wrong_source);
  g_test_add_func ("/turn-reducer/invariant/two-results", test_invariant_two_results);
  g_test_add_func ("/turn-reducer/invariant/result-unknown-call", test_invariant_result_unknown_call);
  g_test_add_func ("/turn-reducer/invariant/result-wrong-name", test_invariant_result_wrong_name);
  g_test_add_func ("/turn-reducer/invariant/async-result-for-sync-tool",
                   test_invariant_async_result_for_sync_tool);
  g_test_add_func ("/turn-reducer/invariant/async-result-without-invocation",
                   test_invariant_async_result_without_invocation);
  g_test_add_func ("/turn-reducer/invariant/sync-result-for-async-tool",
                   test_invariant_sync_result_for_async_tool);
  g_test_add_func ("/turn-reducer/invariant/next-call-before-results",
                   test_invariant_next_call_before_results);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-order", test_invariant_refs_wrong_order);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-assistant", test_invariant_refs_wrong_assistant);
  g_test_add_func ("/turn-reducer/invariant/refs-missing-context", test_invariant_refs_missing_context);
  g_test_add_func ("/turn-reducer/invariant/refs-context-when-empty",
                   test_invariant_refs_context_when_empty);
  g_test_add_func ("/turn-reducer/invariant/refs-missing-context-ref",
                   test_invariant_refs_missing_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-wrong-context-ref", test_invariant_refs_wrong_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-unexpected-context-ref",
                   test_invariant_refs_unexpected_context_ref);
  g_test_add_func ("/turn-reducer/invariant/refs-reissue-not-empty", test_invariant_refs_reissue_not_empty);
  g_test_add_func ("/turn-reducer/invariant/call-after-final-response",
                   test_invariant_call_after_final_response);
  g_test_add_func ("/turn-reducer/invariant/budget-exceeded", test_invariant_budget_exceeded);
  g_test_add_func ("/turn-reducer/invariant/model-call-limit-before-budget",
                   test_invariant_model_call_limit_before_budget);
  g_test_add_func ("/turn-reducer/invariant/completed-with-unresolved-calls",
                   test_invariant_completed_with_unresolved_calls);
  g_test_add_func ("/turn-reducer/invariant/completed-after-tool-calls",
                   test_invariant_completed_after_tool_calls);
  g_test_add_func ("/turn-reducer/invariant/completed-while-model-call-open",
                   test_invariant_completed_while_model_call_open);
  g_test_add_func ("/turn-reducer/invariant/completed-after-failed-call",
                   test_invariant_completed_after_failed_call);
  g_test_add_func ("/turn-reducer/invariant/completed-without-model-call",
                   test_invariant_completed_without_model_call);
  g_test_add_func ("/turn-reducer/invariant/terminal-while-calls-lack-results",
                   test_invariant_terminal_while_calls_lack_results);
  g_test_add_func ("/turn-reducer/invariant/failed-while-model-call-open",
                   test_invariant_failed_while_model_call_open);
  g_test_add_func ("/turn-reducer/invariant/two-terminal-events", test_invariant_two_terminal_events);
  g_test_add_func ("/turn-reducer/invariant/event-after-terminal", test_invariant_event_after_terminal);
  g_test_add_func ("/turn-reducer/invariant/suspension-incomplete", test_invariant_suspension_incomplete);
  g_test_add_func ("/turn-reducer/invariant/suspension-lists-finished-call",
                   test_invariant_suspension_lists_finished_call);
  g_test_add_func ("/turn-reducer/invariant/suspension-lists-twice", test_invariant_suspension_lists_twice);
  g_test_add_func ("/turn-reducer/invariant/suspension-while-model-call-open",
                   test_invariant_suspension_while_model_call_open);

  g_test_add_func ("/turn-reducer/perf/long-turn-is-linear", test_long_turn_is_linear);
  g_test_add_func ("/turn-reducer/perf/wide-response-is-linear", test_wide_response_is_linear);

  return g_test_run ();
}
