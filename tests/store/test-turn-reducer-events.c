/* test-turn-reducer-events.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Turns for the reducer tests, built one event at a time, and the
 * assertions they share: a replay succeeds, the last event is refused
 * (and leaves the state as it was), live application equals a replay.
 */

#include "test-turn-reducer.h"

/* JSON fixtures: literals use single quotes, turned into JSON here. */

JsonNode *
fixture (const char *literal)
{
  g_autofree char *json = g_strdup (literal);

  g_strdelimit (json, "'", '"');
  return natter_test_json (json);
}

void
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

GPtrArray *
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

void
request (GPtrArray  *events,
         guint       index,
         const char *refs)
{
  add (events, "model_call_requested",
       "'modelCallIndex':%u,'request':{'messages':[%s],'parameters':{}}", index, refs);
}

void
respond_text (GPtrArray  *events,
              guint       index,
              const char *text)
{
  add (events, "model_call_completed",
       "'modelCallIndex':%u,'message':{'role':'assistant','content':[{'type':'reasoning','text':'hm'},"
       "{'type':'text','text':'%s'}]},'finishReason':'stop',"
       "'usage':{'inputTokens':10,'outputTokens':2,'totalTokens':12}", index, text);
}

void
respond_tools (GPtrArray  *events,
               guint       index,
               const char *parts)
{
  add (events, "model_call_completed",
       "'modelCallIndex':%u,'message':{'role':'assistant','content':[%s]},'finishReason':'tool_calls',"
       "'usage':{'inputTokens':7,'outputTokens':3,'reasoningTokens':1}", index, parts);
}

void
fail_call (GPtrArray *events,
           guint      index)
{
  add (events, "model_call_failed", "'modelCallIndex':%u,'error':'interrupted'", index);
}

void
require (GPtrArray  *events,
         const char *id,
         const char *name)
{
  add (events, "tool_permission_required",
       "'toolCallId':'%s','toolName':'%s','request':{'what':'%s'}", id, name, name);
}

void
resolve (GPtrArray  *events,
         const char *id,
         const char *decision,
         const char *source)
{
  add (events, "tool_permission_resolved", "'toolCallId':'%s','decision':'%s','source':'%s'",
       id, decision, source);
}

void
classify (GPtrArray  *events,
          const char *id,
          const char *decision)
{
  add (events, "tool_permission_classified", "'toolCallId':'%s','decision':'%s','reason':'r'",
       id, decision);
}

void
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

void
progress (GPtrArray  *events,
          const char *id,
          const char *source)
{
  add (events, "tool_progress", "'toolCallId':'%s','source':'%s','progress':{'done':1}", id, source);
}

void
result (GPtrArray  *events,
        const char *id,
        const char *name,
        const char *source)
{
  add (events, "tool_result",
       "'toolCallId':'%s','toolName':'%s','source':'%s','result':{'output':'out','isError':%s}",
       id, name, source, g_str_equal (source, "runtime") ? "true" : "false");
}

void
suspend (GPtrArray  *events,
         const char *permissions,
         const char *async_tools)
{
  add (events, "turn_suspended", "'pendingPermissions':[%s],'pendingAsyncTools':[%s],'usage':{}",
       permissions, async_tools);
}


void
complete (GPtrArray *events)
{
  add (events, "turn_completed",
       "'output':{'role':'assistant','content':[{'type':'text','text':'Done'}]},'finishReason':'stop',"
       "'usage':{}");
}

void
cancel (GPtrArray *events)
{
  add (events, "turn_cancelled", "'reason':'user','usage':{}");
}

void
fail_turn (GPtrArray  *events,
           const char *code)
{
  if (code != NULL)
    add (events, "turn_failed", "'error':'stopped','code':'%s','usage':{}", code);
  else
    add (events, "turn_failed", "'error':'provider said 500','usage':{}");
}

/* Assertions */

char *
dump (NatterTurnState *state)
{
  g_autoptr(JsonNode) node = natter_turn_state_to_debug_json (state);

  return json_to_string (node, FALSE);
}

NatterTurnState *
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
void
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

void
assert_status (GPtrArray        *events,
               NatterTurnStatus  expected)
{
  g_autoptr(NatterTurnState) state = reduce_ok (events);

  g_assert_cmpstr (natter_turn_status_to_string (natter_derive_turn_status (state)), ==,
                   natter_turn_status_to_string (expected));
}

/* Applying event by event, or in batches of any size, equals a replay. */
void
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
