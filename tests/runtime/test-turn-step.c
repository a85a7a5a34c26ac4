/* test-turn-step.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The loop's decisions (natter-turn-step.c) by table: a turn as its
 * events, and the step each decision gives for it.
 */

#include "natter-turn-step.h"
#include "natter-test-support.h"

#define TID "2026-11-30T09-14-03Z-0000042-000"
#define TS "2026-11-30T09:14:03.120Z"
#define HEAD "'type':'%s','turnId':'" TID "','ts':'" TS "'"

#define TOOLS "[{'toolId':'builtin.read','name':'read_file','description':'Read a file'," \
              "'inputSchema':{'type':'object'},'execution':'sync','requiresHuman':false}," \
              "{'toolId':'builtin.fetch','name':'fetch','description':'Fetch later'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':false}," \
              "{'toolId':'builtin.ask','name':'ask_human','description':'Ask the user'," \
              "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':true}]"

#define CREATED(config) \
  "{'type':'turn_created','turnId':'" TID "','ts':'" TS "','schemaVersion':1,'sessionId':null," \
  "'agent':{'requested':{'agentId':'default'},'resolved':{'model':{'provider':'p','model':'m'}," \
  "'systemPrompt':'Be brief.','tools':" TOOLS "}},'context':[],'input':{'role':'user','content':'Hi'}," \
  "'config':{" config "}}"
#define HUMAN "'autoPermission':false,'humanAvailable':true,'maxModelCalls':2"
#define NO_HUMAN "'autoPermission':false,'humanAvailable':false,'maxModelCalls':2"
#define AUTO "'autoPermission':true,'humanAvailable':true,'maxModelCalls':2"

#define EVENT(type, fields) "{'type':'" type "','turnId':'" TID "','ts':'" TS "'," fields "}"
#define REQUESTED_REFS(i, refs) EVENT ("model_call_requested", "'modelCallIndex':" #i ",'request':{'messages':[" refs "]," \
                                      "'parameters':{}}")
#define REQUESTED(i) REQUESTED_REFS (i, "'input'")
#define TEXT(i) EVENT ("model_call_completed", "'modelCallIndex':" #i ",'message':{'role':'assistant'," \
                       "'content':[{'type':'text','text':'ok'}]},'finishReason':'stop','usage':{}")
#define EMPTY(i, parts) EVENT ("model_call_completed", "'modelCallIndex':" #i ",'message':{'role':'assistant'," \
                              "'content':[" parts "]},'finishReason':'stop','usage':{}")
#define CALLS(i, parts) EVENT ("model_call_completed", "'modelCallIndex':" #i ",'message':{'role':'assistant'," \
                               "'content':[" parts "]},'finishReason':'tool_calls','usage':{}")
#define TC(id, name) "{'type':'tool-call','toolCallId':'" id "','toolName':'" name "','arguments':{}}"
#define TC_BAD(id, name) "{'type':'tool-call','toolCallId':'" id "','toolName':'" name "','arguments':'{oops'}"
#define REQUIRED(id, name) EVENT ("tool_permission_required", "'toolCallId':'" id "','toolName':'" name "','request':{}")
#define RESOLVED(id, decision) EVENT ("tool_permission_resolved", "'toolCallId':'" id "','decision':'" decision "','source':'human'")
#define CLASSIFIED(id, decision) EVENT ("tool_permission_classified", "'toolCallId':'" id "','decision':'" decision "','reason':'r'")
#define INVOKED(id, tool, name, execution) EVENT ("tool_invocation_requested", "'toolCallId':'" id "','toolId':'" tool \
                                                  "','toolName':'" name "','execution':'" execution "','input':{}")
#define RESULT(id, name) EVENT ("tool_result", "'toolCallId':'" id "','toolName':'" name "','source':'sync'," \
                                "'result':{'output':'out','isError':false}")
#define SUSPENDED EVENT ("turn_suspended", "'pendingPermissions':[{'toolCallId':'A','toolName':'read_file','request':{}}]," \
                         "'pendingAsyncTools':[],'usage':{}")
#define COMPLETED EVENT ("turn_completed", "'output':{'role':'assistant','content':[{'type':'text','text':'ok'}]}," \
                         "'finishReason':'stop','usage':{}")

static NatterTurnState *
reduce (const char * const *literals)
{
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GError) error = NULL;
  NatterTurnState *state;

  for (guint i = 0; literals[i] != NULL; i++)
    {
      g_autofree char *json = g_strdup (literals[i]);

      g_strdelimit (json, "'", '"');
      g_ptr_array_add (events, natter_test_json (json));
    }
  state = natter_turn_reduce (events, &error);
  g_assert_no_error (error);
  return state;
}

typedef struct
{
  const char     *name;
  const char     *events[10];
  gboolean        cancelled;
  guint           n_running;
  NatterTurnStep  next;
  NatterTurnStep  after_tools;   /* when next is RESOLVE_TOOL_CALLS */
} TurnCase;

static const TurnCase turn_cases[] = {
  { "fresh turn calls the model", { CREATED (HUMAN) }, FALSE, 0,
    NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_CALL_MODEL },
  { "cancelled", { CREATED (HUMAN) }, TRUE, 0, NATTER_TURN_STEP_CANCEL },
  { "open model call", { CREATED (HUMAN), REQUESTED (0) }, FALSE, 0, NATTER_TURN_STEP_CLOSE_OPEN_CALL },
  { "cancel wins over an open call", { CREATED (HUMAN), REQUESTED (0) }, TRUE, 0, NATTER_TURN_STEP_CANCEL },
  { "answer completes", { CREATED (HUMAN), REQUESTED (0), TEXT (0) }, FALSE, 0,
    NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_COMPLETE },
  { "an answer of nothing fails", { CREATED (HUMAN), REQUESTED (0), EMPTY (0, "") }, FALSE, 0,
    NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_EMPTY_ANSWER },
  { "white space and reasoning are nothing", { CREATED (HUMAN), REQUESTED (0),
                                               EMPTY (0, "{'type':'reasoning','text':'hm'},{'type':'text','text':' \\n'}") },
    FALSE, 0, NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_EMPTY_ANSWER },
  { "terminal settles, even cancelled", { CREATED (HUMAN), REQUESTED (0), TEXT (0), COMPLETED }, TRUE, 0,
    NATTER_TURN_STEP_SETTLE },
  { "suspended rests", { CREATED (HUMAN), REQUESTED (0), CALLS (0, TC ("A", "read_file")),
                         REQUIRED ("A", "read_file"), SUSPENDED }, FALSE, 0, NATTER_TURN_STEP_REST },
  { "pending permission suspends", { CREATED (HUMAN), REQUESTED (0), CALLS (0, TC ("A", "read_file")),
                                     REQUIRED ("A", "read_file") }, FALSE, 0,
    NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_SUSPEND },
  { "running tools are waited for", { CREATED (HUMAN), REQUESTED (0), CALLS (0, TC ("A", "read_file")),
                                      INVOKED ("A", "builtin.read", "read_file", "sync") }, FALSE, 1,
    NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_WAIT_FOR_TOOLS },
  { "results go back to the model", { CREATED (HUMAN), REQUESTED (0), CALLS (0, TC ("A", "read_file")),
                                      INVOKED ("A", "builtin.read", "read_file", "sync"), RESULT ("A", "read_file") },
    FALSE, 0, NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_CALL_MODEL },
  { "budget used up", { CREATED (HUMAN), REQUESTED (0), CALLS (0, TC ("A", "read_file")),
                        INVOKED ("A", "builtin.read", "read_file", "sync"), RESULT ("A", "read_file"),
                        REQUESTED_REFS (1, "'assistant:0','toolResult:A'"), CALLS (1, TC ("B", "read_file")),
                        INVOKED ("B", "builtin.read", "read_file", "sync"), RESULT ("B", "read_file") },
    FALSE, 0, NATTER_TURN_STEP_RESOLVE_TOOL_CALLS, NATTER_TURN_STEP_MODEL_CALL_LIMIT },
};

static void
test_turn_steps (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (turn_cases); i++)
    {
      const TurnCase *c = &turn_cases[i];
      g_autoptr(NatterTurnState) state = reduce (c->events);

      g_test_message ("%s", c->name);
      g_assert_cmpint (natter_turn_step_next (state, c->cancelled), ==, c->next);
      if (c->next == NATTER_TURN_STEP_RESOLVE_TOOL_CALLS)
        g_assert_cmpint (natter_turn_step_after_tools (state, c->n_running), ==, c->after_tools);
    }
}

typedef struct
{
  const char         *name;
  const char         *events[8];
  gboolean            running;
  NatterToolCallStep  step;       /* for the first unfinished call */
} ToolCallCase;

#define ASKED(config, call) CREATED (config), REQUESTED (0), CALLS (0, call)

static const ToolCallCase tool_call_cases[] = {
  { "new call is checked", { ASKED (HUMAN, TC ("A", "read_file")) }, FALSE, NATTER_TOOL_CALL_STEP_CHECK_PERMISSION },
  { "running call waits", { ASKED (HUMAN, TC ("A", "read_file")),
                            INVOKED ("A", "builtin.read", "read_file", "sync") }, TRUE, NATTER_TOOL_CALL_STEP_NONE },
  { "unknown tool", { ASKED (HUMAN, TC ("A", "nope")) }, FALSE, NATTER_TOOL_CALL_STEP_UNKNOWN_TOOL },
  { "arguments not an object", { ASKED (HUMAN, TC_BAD ("A", "read_file")) }, FALSE, NATTER_TOOL_CALL_STEP_BAD_ARGUMENTS },
  { "needs a human, has none", { ASKED (NO_HUMAN, TC ("A", "ask_human")) }, FALSE, NATTER_TOOL_CALL_STEP_NO_HUMAN },
  { "sync invocation interrupted", { ASKED (HUMAN, TC ("A", "read_file")),
                                     INVOKED ("A", "builtin.read", "read_file", "sync") }, FALSE,
    NATTER_TOOL_CALL_STEP_INTERRUPTED },
  { "async invocation stays pending", { ASKED (HUMAN, TC ("A", "fetch")),
                                        INVOKED ("A", "builtin.fetch", "fetch", "async") }, FALSE,
    NATTER_TOOL_CALL_STEP_NONE },
  { "allowed is invoked", { ASKED (HUMAN, TC ("A", "read_file")), REQUIRED ("A", "read_file"),
                            RESOLVED ("A", "allow") }, FALSE, NATTER_TOOL_CALL_STEP_INVOKE },
  { "denied gets an error", { ASKED (HUMAN, TC ("A", "read_file")), REQUIRED ("A", "read_file"),
                              RESOLVED ("A", "deny") }, FALSE, NATTER_TOOL_CALL_STEP_DENIED },
  { "human decides", { ASKED (HUMAN, TC ("A", "read_file")), REQUIRED ("A", "read_file") }, FALSE,
    NATTER_TOOL_CALL_STEP_NONE },
  { "no human: decided without", { ASKED (NO_HUMAN, TC ("A", "read_file")), REQUIRED ("A", "read_file") }, FALSE,
    NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN },
  { "auto: classify first", { ASKED (AUTO, TC ("A", "read_file")), REQUIRED ("A", "read_file") }, FALSE,
    NATTER_TOOL_CALL_STEP_CLASSIFY },
  { "auto: classifier allows", { ASKED (AUTO, TC ("A", "read_file")), REQUIRED ("A", "read_file"),
                                 CLASSIFIED ("A", "allow") }, FALSE, NATTER_TOOL_CALL_STEP_DECIDE_WITHOUT_HUMAN },
  { "auto: classifier defers to the human", { ASKED (AUTO, TC ("A", "read_file")), REQUIRED ("A", "read_file"),
                                              CLASSIFIED ("A", "defer") }, FALSE, NATTER_TOOL_CALL_STEP_NONE },
};

static void
test_tool_call_steps (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (tool_call_cases); i++)
    {
      const ToolCallCase *c = &tool_call_cases[i];
      g_autoptr(NatterTurnState) state = reduce (c->events);
      g_autoptr(GPtrArray) unfinished = natter_turn_state_get_unfinished_tool_calls (state);

      g_test_message ("%s", c->name);
      g_assert_cmpuint (unfinished->len, >, 0);
      g_assert_cmpint (natter_turn_step_for_tool_call (state, g_ptr_array_index (unfinished, 0), c->running),
                       ==, c->step);
    }
}

static void
test_find_tool (void)
{
  const char *events[] = { CREATED (HUMAN), NULL };
  g_autoptr(NatterTurnState) state = reduce (events);

  g_assert_cmpstr (json_object_get_string_member (natter_turn_step_find_tool (state, "fetch"), "toolId"),
                   ==, "builtin.fetch");
  g_assert_null (natter_turn_step_find_tool (state, "nope"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/turn-step/turn", test_turn_steps);
  g_test_add_func ("/turn-step/tool-call", test_tool_call_steps);
  g_test_add_func ("/turn-step/find-tool", test_find_tool);

  return g_test_run ();
}
