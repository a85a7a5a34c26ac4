/* test-turn-reducer-linear.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reducer's cost is linear: a turn of 100,000 events, and a
 * response with 20,000 tool calls, replay and apply in batches without
 * a quadratic walk.
 */

#include "test-turn-reducer.h"

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


void
turn_reducer_add_linear_tests (void)
{
  g_test_add_func ("/turn-reducer/perf/long-turn-is-linear", test_long_turn_is_linear);
  g_test_add_func ("/turn-reducer/perf/wide-response-is-linear", test_wide_response_is_linear);
}
