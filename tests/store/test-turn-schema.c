/* test-turn-schema.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The turn event schemas of docs/runtime.md §3, field by field.
 */

#include "natter-json.h"
#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"
#include "natter-test-support.h"

#define TID "2026-11-30T09-14-03Z-0000042-000"
#define OTHER_TID "2026-11-29T08-00-00Z-0000001-000"
#define TS "2026-11-30T09:14:03.120Z"

/* Fixture literals use single quotes so they stay readable; the helper
 * turns them into JSON. */
#define TOOL_READ "{'toolId':'builtin.read','name':'read_file','description':'Read a file'," \
                  "'inputSchema':{'type':'object'},'execution':'sync','requiresHuman':false}"
#define TOOL_ASK "{'toolId':'builtin.ask','name':'ask_human','description':'Ask the user'," \
                 "'inputSchema':{'type':'object'},'execution':'async','requiresHuman':true}"
#define AGENT "'agent':{'requested':{'agentId':'default'},'resolved':{'agentId':'default'," \
              "'model':{'provider':'ollama','model':'llama3'},'systemPrompt':'Be brief.'," \
              "'tools':[" TOOL_READ "," TOOL_ASK "]}}"
#define INPUT "'input':{'role':'user','content':'Hi'}"
#define CONFIG "'config':{'autoPermission':false,'humanAvailable':true,'maxModelCalls':50}"
#define CREATED_FIELDS "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT "," CONFIG
#define USAGE "'usage':{'inputTokens':10,'outputTokens':5,'totalTokens':15}"

static JsonNode *
fixture (const char *literal)
{
  g_autofree char *json = g_strdup (literal);

  g_strdelimit (json, "'", '"');
  return natter_test_json (json);
}

/* A whole event: the head {type, turnId, ts} plus @fields. */
static JsonNode *
event_fixture (const char *type,
               const char *fields)
{
  g_autofree char *literal = g_strdup_printf ("{'type':'%s','turnId':'" TID "','ts':'" TS "'%s%s}",
                                              type, *fields ? "," : "", fields);

  return fixture (literal);
}

typedef struct
{
  const char *name;
  const char *type;
  const char *fields;
} ValidCase;

/* A stored attachment: only in a turn of schema version 2. */
#define HASH "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define BLOB "{'type':'blob','sha256':'" HASH "','mediaType':'image/png','name':'a.png','size':4}"
#define BLOB_INPUT "'input':{'role':'user','content':[{'type':'text','text':'Look'}," BLOB "]}"

static const ValidCase valid_cases[] = {
  { "turn-created", "turn_created", CREATED_FIELDS },
  { "turn-created-v2-blob-input", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[]," BLOB_INPUT "," CONFIG },
  { "turn-created-v2-blob-context", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[{'role':'user','content':[" BLOB "]}],"
    INPUT "," CONFIG },
  { "turn-created-v2-without-blob", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[]," INPUT "," CONFIG },
  { "turn-created-message-parameters", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':false,"
    "'humanAvailable':true,'maxModelCalls':50,'parameters':{'temperature':0.2,'top_p':0.5},"
    "'messageParameters':{'parameters':{'temperature':0.2},'systemInstruction':'Be kind.'}}" },
  { "turn-created-session-and-rich-context", "turn_created",
    "'schemaVersion':1,'sessionId':'" OTHER_TID "'," AGENT ","
    "'context':[{'role':'user','content':[{'type':'text','text':'Look'},"
    "{'type':'attachment','path':'/tmp/a.png','filename':'a.png','mimeType':'image/png','size':12}]},"
    "{'role':'assistant','content':[{'type':'reasoning','text':'hm'},{'type':'text','text':'ok'},"
    "{'type':'tool-call','toolCallId':'c0','toolName':'read_file','arguments':{'path':'x'}}]},"
    "{'role':'tool','toolCallId':'c0','toolName':'read_file','content':'data'}],"
    "'input':{'role':'user','content':[{'type':'text','text':'Hi'}]}," CONFIG },
  { "turn-created-requested-overrides-model", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{'agentId':'default',"
    "'overrides':{'model':{'provider':'ollama','model':'llama3'}}},'resolved':{'agentId':'default',"
    "'model':{'provider':'ollama','model':'llama3'},'systemPrompt':'','tools':[]}},'context':[],"
    INPUT "," CONFIG },
  { "turn-created-old-requested-model", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{'agentId':'default',"
    "'model':{'provider':'ollama','model':'llama3'}},'resolved':{'agentId':'default',"
    "'model':{'provider':'ollama','model':'llama3'},'systemPrompt':'','tools':[]}},'context':[],"
    INPUT "," CONFIG },
  { "turn-created-context-reference", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':{'previousTurnId':'" OTHER_TID "'},"
    INPUT "," CONFIG },
  { "model-call-requested", "model_call_requested",
    "'modelCallIndex':0,'request':{'messages':['context','input'],'parameters':{'temperature':0.2}}" },
  { "model-call-requested-refs", "model_call_requested",
    "'modelCallIndex':3,'request':{'contextRef':{'previousTurnId':'" OTHER_TID "'},"
    "'messages':['assistant:2','toolResult:c1','toolResult:call_9'],'parameters':{}}" },
  { "model-call-requested-reissue", "model_call_requested",
    "'modelCallIndex':1,'request':{'messages':[],'parameters':{}}" },
  { "model-step-event", "model_step_event", "'modelCallIndex':0,'event':{'type':'text-end'}" },
  { "model-call-completed", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':[{'type':'text','text':'x'},"
    "{'type':'tool-call','toolCallId':'c1','toolName':'read_file','arguments':'{bad json'}]},"
    "'finishReason':'tool_calls','usage':{}" },
  { "model-call-failed", "model_call_failed", "'modelCallIndex':0,'error':'interrupted'" },
  { "model-call-failed-partial", "model_call_failed",
    "'modelCallIndex':0,'error':'cancelled',"
    "'partial':{'role':'assistant','content':[{'type':'text','text':'Once upon'}]}" },
  { "model-step-event-old-partial-response", "model_step_event",
    "'modelCallIndex':0,'event':{'type':'partial_response','model':'llama3',"
    "'message':{'role':'assistant','content':[{'type':'text','text':'Once'}]}}" },
  { "tool-permission-required", "tool_permission_required",
    "'toolCallId':'c1','toolName':'read_file','request':{'path':'/etc'},'checkerError':'boom'" },
  { "tool-permission-classified", "tool_permission_classified",
    "'toolCallId':'c1','decision':'defer','reason':'unsure'" },
  { "tool-permission-classification-failed", "tool_permission_classification_failed",
    "'toolCallIds':['c1','c2'],'error':'timeout'" },
  { "tool-permission-resolved", "tool_permission_resolved",
    "'toolCallId':'c1','decision':'allow','source':'human','reason':'ok','metadata':{'remember':true}" },
  { "tool-invocation-requested", "tool_invocation_requested",
    "'toolCallId':'c1','toolId':'builtin.read','toolName':'read_file','execution':'sync','input':{}" },
  { "tool-progress", "tool_progress", "'toolCallId':'c1','source':'async','progress':42" },
  { "tool-result", "tool_result",
    "'toolCallId':'c1','toolName':'read_file','source':'runtime',"
    "'result':{'output':'denied','isError':true,'metadata':{}}" },
  { "turn-suspended", "turn_suspended",
    "'pendingPermissions':[{'toolCallId':'c1','toolName':'read_file','request':null}],"
    "'pendingAsyncTools':[{'toolCallId':'c2','toolId':'builtin.ask','toolName':'ask_human','input':{}}],"
    USAGE },
  { "turn-completed", "turn_completed",
    "'output':{'role':'assistant','content':'Done'},'finishReason':'stop'," USAGE },
  { "turn-failed", "turn_failed", "'error':'limit','code':'model-call-limit','usage':{}" },
  { "turn-cancelled", "turn_cancelled", "'reason':'user','usage':{}" },
  { "turn-cancelled-no-reason", "turn_cancelled", "'usage':{'cachedInputTokens':0,'reasoningTokens':1}" },
};

static void
test_valid (gconstpointer data)
{
  const ValidCase *c = data;
  g_autoptr(JsonNode) event = event_fixture (c->type, c->fields);
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_turn_event_validate (json_node_get_object (event), TID, &error));
  g_assert_no_error (error);
  /* Without an expected id, any well-formed id is accepted. */
  g_assert_true (natter_turn_event_validate (json_node_get_object (event), NULL, &error));
  g_assert_no_error (error);
}

typedef struct
{
  const char *name;
  const char *type;
  const char *fields;
  int         code;
} InvalidCase;

static const InvalidCase invalid_cases[] = {
  /* The head of every event */
  { "unknown-type", "turn_paused", "'usage':{}", NATTER_STORE_ERROR_UNKNOWN_TYPE },
  /* turn_created */
  { "created/schema-version-3", "turn_created",
    "'schemaVersion':3,'sessionId':null,'somethingNew':true", NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
  { "created/schema-version-0", "turn_created",
    "'schemaVersion':0,'sessionId':null," AGENT ",'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_UNSUPPORTED_VERSION },
  { "created/schema-version-string", "turn_created",
    "'schemaVersion':'1','sessionId':null," AGENT ",'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/schema-version-missing", "turn_created",
    "'sessionId':null," AGENT ",'context':[]," INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/session-id-missing", "turn_created",
    "'schemaVersion':1," AGENT ",'context':[]," INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/session-id-number", "turn_created",
    "'schemaVersion':1,'sessionId':7," AGENT ",'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/session-id-path-like", "turn_created",
    "'schemaVersion':1,'sessionId':'../../etc'," AGENT ",'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/agent-missing", "turn_created",
    "'schemaVersion':1,'sessionId':null,'context':[]," INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/agent-resolved-missing", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{}},'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/agent-model-missing-provider", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{},'resolved':{'model':{'model':'m'},"
    "'systemPrompt':'','tools':[]}},'context':[]," INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/agent-system-prompt-missing", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{},'resolved':{'model':{'provider':'p',"
    "'model':'m'},'tools':[]}},'context':[]," INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/tool-bad-execution", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{},'resolved':{'model':{'provider':'p',"
    "'model':'m'},'systemPrompt':'','tools':[{'toolId':'t','name':'n','description':'',"
    "'inputSchema':{},'execution':'later','requiresHuman':false}]}},'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/tool-requires-human-string", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{},'resolved':{'model':{'provider':'p',"
    "'model':'m'},'systemPrompt':'','tools':[{'toolId':'t','name':'n','description':'',"
    "'inputSchema':{},'execution':'sync','requiresHuman':'no'}]}},'context':[]," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/tool-duplicate-name", "turn_created",
    "'schemaVersion':1,'sessionId':null,'agent':{'requested':{},'resolved':{'model':{'provider':'p',"
    "'model':'m'},'systemPrompt':'','tools':[" TOOL_READ "," TOOL_READ "]}},'context':[]," INPUT ","
    CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/system-message-in-context", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[{'role':'system','content':'Obey'}],"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/context-not-a-list", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':'none'," INPUT "," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/context-bad-previous-turn-id", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':{'previousTurnId':'2026-13-40T00-00-00Z-0000000-000'},"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/context-path-previous-turn-id", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':{'previousTurnId':'../x'},"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/context-tool-message-without-id", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[{'role':'tool','toolName':'t','content':'x'}],"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/input-assistant", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[],'input':{'role':'assistant','content':'x'},"
    CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/input-attachment-without-filename", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'attachment','path':'/a','mimeType':'text/plain'}]}," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-in-v1-input", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," BLOB_INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-in-v1-context", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[{'role':'user','content':[" BLOB "]}],"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-bad-hash", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'blob','sha256':'../../etc/passwd','mediaType':'text/plain','name':'a','size':1}]}," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-uppercase-hash", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'blob','sha256':'9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08',"
    "'mediaType':'text/plain','name':'a','size':1}]}," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-without-name", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'blob','sha256':'" HASH "','mediaType':'text/plain','size':1}]}," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-negative-size", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'blob','sha256':'" HASH "','mediaType':'text/plain','name':'a','size':-1}]}," CONFIG,
    NATTER_STORE_ERROR_SCHEMA },
  { "created/blob-in-assistant-message", "turn_created",
    "'schemaVersion':2,'sessionId':null," AGENT ",'context':[{'role':'assistant','content':[" BLOB "]}],"
    INPUT "," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/input-reasoning-part", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':"
    "[{'type':'reasoning','text':'x'}]}," CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/input-content-number", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[],'input':{'role':'user','content':3},"
    CONFIG, NATTER_STORE_ERROR_SCHEMA },
  { "created/config-message-parameters-unknown-member", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':false,"
    "'humanAvailable':true,'maxModelCalls':50,'messageParameters':{'parameters':{'warmth':3}}}",
    NATTER_STORE_ERROR_SCHEMA },
  { "created/config-message-parameters-not-an-object", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':false,"
    "'humanAvailable':true,'maxModelCalls':50,'messageParameters':[]}", NATTER_STORE_ERROR_SCHEMA },
  { "created/config-max-model-calls-zero", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':false,"
    "'humanAvailable':true,'maxModelCalls':0}", NATTER_STORE_ERROR_SCHEMA },
  { "created/config-human-available-missing", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':false,"
    "'maxModelCalls':3}", NATTER_STORE_ERROR_SCHEMA },
  { "created/config-auto-permission-string", "turn_created",
    "'schemaVersion':1,'sessionId':null," AGENT ",'context':[]," INPUT ",'config':{'autoPermission':'yes',"
    "'humanAvailable':true,'maxModelCalls':3}", NATTER_STORE_ERROR_SCHEMA },
  /* model_call_requested */
  { "requested/index-negative", "model_call_requested",
    "'modelCallIndex':-1,'request':{'messages':[],'parameters':{}}", NATTER_STORE_ERROR_SCHEMA },
  { "requested/index-float", "model_call_requested",
    "'modelCallIndex':1.5,'request':{'messages':[],'parameters':{}}", NATTER_STORE_ERROR_SCHEMA },
  { "requested/parameters-missing", "model_call_requested",
    "'modelCallIndex':0,'request':{'messages':['input']}", NATTER_STORE_ERROR_SCHEMA },
  { "requested/messages-not-strings", "model_call_requested",
    "'modelCallIndex':0,'request':{'messages':[{'role':'user','content':'x'}],'parameters':{}}",
    NATTER_STORE_ERROR_SCHEMA },
  { "requested/ref-unknown", "model_call_requested",
    "'modelCallIndex':0,'request':{'messages':['system'],'parameters':{}}", NATTER_STORE_ERROR_SCHEMA },
  { "requested/ref-leading-zero", "model_call_requested",
    "'modelCallIndex':2,'request':{'messages':['assistant:01'],'parameters':{}}", NATTER_STORE_ERROR_SCHEMA },
  { "requested/ref-empty-tool-result", "model_call_requested",
    "'modelCallIndex':2,'request':{'messages':['assistant:1','toolResult:'],'parameters':{}}",
    NATTER_STORE_ERROR_SCHEMA },
  { "requested/context-ref-bad-id", "model_call_requested",
    "'modelCallIndex':0,'request':{'contextRef':{'previousTurnId':'nope'},'messages':['input'],"
    "'parameters':{}}", NATTER_STORE_ERROR_SCHEMA },
  /* model_step_event */
  { "step/event-not-object", "model_step_event", "'modelCallIndex':0,'event':'text'",
    NATTER_STORE_ERROR_SCHEMA },
  /* model_call_completed */
  { "completed/user-message", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'user','content':'x'},'finishReason':'stop','usage':{}",
    NATTER_STORE_ERROR_SCHEMA },
  { "completed/tool-call-without-id", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':[{'type':'tool-call','toolName':'t',"
    "'arguments':{}}]},'finishReason':'stop','usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/tool-call-arguments-number", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':[{'type':'tool-call','toolCallId':'c',"
    "'toolName':'t','arguments':3}]},'finishReason':'stop','usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/attachment-part", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':[{'type':'attachment','path':'/a',"
    "'filename':'a','mimeType':'x/y'}]},'finishReason':'stop','usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/finish-reason-missing", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':'x'},'usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/usage-missing", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':'x'},'finishReason':'stop'",
    NATTER_STORE_ERROR_SCHEMA },
  { "completed/usage-unknown-field", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':'x'},'finishReason':'stop',"
    "'usage':{'costUsd':1}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/usage-negative", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':'x'},'finishReason':'stop',"
    "'usage':{'inputTokens':-1}", NATTER_STORE_ERROR_SCHEMA },
  { "completed/usage-float", "model_call_completed",
    "'modelCallIndex':0,'message':{'role':'assistant','content':'x'},'finishReason':'stop',"
    "'usage':{'outputTokens':1.5}", NATTER_STORE_ERROR_SCHEMA },
  /* model_call_failed */
  { "failed/error-missing", "model_call_failed", "'modelCallIndex':0", NATTER_STORE_ERROR_SCHEMA },
  { "failed/error-object", "model_call_failed", "'modelCallIndex':0,'error':{'message':'x'}",
    NATTER_STORE_ERROR_SCHEMA },
  { "failed/index-missing", "model_call_failed", "'error':'x'", NATTER_STORE_ERROR_SCHEMA },
  { "failed/partial-not-message", "model_call_failed", "'modelCallIndex':0,'error':'x','partial':'text'",
    NATTER_STORE_ERROR_SCHEMA },
  { "failed/partial-user-role", "model_call_failed",
    "'modelCallIndex':0,'error':'x','partial':{'role':'user','content':'x'}", NATTER_STORE_ERROR_SCHEMA },
  /* tool_permission_required */
  { "permission-required/request-missing", "tool_permission_required",
    "'toolCallId':'c1','toolName':'t'", NATTER_STORE_ERROR_SCHEMA },
  { "permission-required/checker-error-number", "tool_permission_required",
    "'toolCallId':'c1','toolName':'t','request':{},'checkerError':1", NATTER_STORE_ERROR_SCHEMA },
  { "permission-required/empty-id", "tool_permission_required",
    "'toolCallId':'','toolName':'t','request':{}", NATTER_STORE_ERROR_SCHEMA },
  /* tool_permission_classified */
  { "classified/bad-decision", "tool_permission_classified",
    "'toolCallId':'c1','decision':'maybe','reason':'x'", NATTER_STORE_ERROR_SCHEMA },
  { "classified/reason-missing", "tool_permission_classified",
    "'toolCallId':'c1','decision':'allow'", NATTER_STORE_ERROR_SCHEMA },
  /* tool_permission_classification_failed */
  { "classification-failed/no-ids", "tool_permission_classification_failed",
    "'toolCallIds':[],'error':'x'", NATTER_STORE_ERROR_SCHEMA },
  { "classification-failed/id-number", "tool_permission_classification_failed",
    "'toolCallIds':[1],'error':'x'", NATTER_STORE_ERROR_SCHEMA },
  { "classification-failed/error-missing", "tool_permission_classification_failed",
    "'toolCallIds':['c1']", NATTER_STORE_ERROR_SCHEMA },
  /* tool_permission_resolved */
  { "resolved/defer-decision", "tool_permission_resolved",
    "'toolCallId':'c1','decision':'defer','source':'human'", NATTER_STORE_ERROR_SCHEMA },
  { "resolved/bad-source", "tool_permission_resolved",
    "'toolCallId':'c1','decision':'allow','source':'robot'", NATTER_STORE_ERROR_SCHEMA },
  { "resolved/metadata-string", "tool_permission_resolved",
    "'toolCallId':'c1','decision':'allow','source':'human','metadata':'x'", NATTER_STORE_ERROR_SCHEMA },
  { "resolved/reason-number", "tool_permission_resolved",
    "'toolCallId':'c1','decision':'allow','source':'human','reason':3", NATTER_STORE_ERROR_SCHEMA },
  /* tool_invocation_requested */
  { "invocation/bad-execution", "tool_invocation_requested",
    "'toolCallId':'c1','toolId':'t','toolName':'n','execution':'later','input':{}", NATTER_STORE_ERROR_SCHEMA },
  { "invocation/input-not-object", "tool_invocation_requested",
    "'toolCallId':'c1','toolId':'t','toolName':'n','execution':'sync','input':'{}'", NATTER_STORE_ERROR_SCHEMA },
  { "invocation/tool-id-missing", "tool_invocation_requested",
    "'toolCallId':'c1','toolName':'n','execution':'sync','input':{}", NATTER_STORE_ERROR_SCHEMA },
  /* tool_progress */
  { "progress/runtime-source", "tool_progress",
    "'toolCallId':'c1','source':'runtime','progress':1", NATTER_STORE_ERROR_SCHEMA },
  { "progress/progress-missing", "tool_progress", "'toolCallId':'c1','source':'sync'",
    NATTER_STORE_ERROR_SCHEMA },
  /* tool_result */
  { "result/bad-source", "tool_result",
    "'toolCallId':'c1','toolName':'n','source':'human','result':{'output':1,'isError':false}",
    NATTER_STORE_ERROR_SCHEMA },
  { "result/is-error-missing", "tool_result",
    "'toolCallId':'c1','toolName':'n','source':'sync','result':{'output':1}", NATTER_STORE_ERROR_SCHEMA },
  { "result/output-missing", "tool_result",
    "'toolCallId':'c1','toolName':'n','source':'sync','result':{'isError':false}", NATTER_STORE_ERROR_SCHEMA },
  { "result/metadata-array", "tool_result",
    "'toolCallId':'c1','toolName':'n','source':'sync','result':{'output':1,'isError':false,'metadata':[]}",
    NATTER_STORE_ERROR_SCHEMA },
  { "result/tool-name-missing", "tool_result",
    "'toolCallId':'c1','source':'sync','result':{'output':1,'isError':false}", NATTER_STORE_ERROR_SCHEMA },
  /* turn_suspended */
  { "suspended/permission-without-request", "turn_suspended",
    "'pendingPermissions':[{'toolCallId':'c1','toolName':'n'}],'pendingAsyncTools':[],'usage':{}",
    NATTER_STORE_ERROR_SCHEMA },
  { "suspended/async-without-tool-id", "turn_suspended",
    "'pendingPermissions':[],'pendingAsyncTools':[{'toolCallId':'c1','toolName':'n','input':{}}],'usage':{}",
    NATTER_STORE_ERROR_SCHEMA },
  { "suspended/async-tools-missing", "turn_suspended", "'pendingPermissions':[],'usage':{}",
    NATTER_STORE_ERROR_SCHEMA },
  { "suspended/usage-missing", "turn_suspended", "'pendingPermissions':[],'pendingAsyncTools':[]",
    NATTER_STORE_ERROR_SCHEMA },
  /* terminal events */
  { "turn-completed/output-user", "turn_completed",
    "'output':{'role':'user','content':'x'},'finishReason':'stop','usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "turn-completed/usage-missing", "turn_completed",
    "'output':{'role':'assistant','content':'x'},'finishReason':'stop'", NATTER_STORE_ERROR_SCHEMA },
  { "turn-failed/code-number", "turn_failed", "'error':'x','code':7,'usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "turn-failed/error-missing", "turn_failed", "'usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "turn-cancelled/reason-number", "turn_cancelled", "'reason':1,'usage':{}", NATTER_STORE_ERROR_SCHEMA },
  { "turn-cancelled/usage-missing", "turn_cancelled", "'reason':'x'", NATTER_STORE_ERROR_SCHEMA },
};

static void
test_invalid (gconstpointer data)
{
  const InvalidCase *c = data;
  g_autoptr(JsonNode) event = event_fixture (c->type, c->fields);
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_turn_event_validate (json_node_get_object (event), TID, &error));
  g_assert_error (error, NATTER_STORE_ERROR, c->code);
}

static void
assert_head_rejected (const char *literal,
                      const char *turn_id,
                      int         code)
{
  g_autoptr(JsonNode) event = fixture (literal);
  g_autoptr(GError) error = NULL;

  g_assert_false (natter_turn_event_validate (json_node_get_object (event), turn_id, &error));
  g_assert_error (error, NATTER_STORE_ERROR, code);
}

static void
test_head (void)
{
  /* A turnId of another turn. */
  assert_head_rejected ("{'type':'turn_cancelled','turnId':'" OTHER_TID "','ts':'" TS "','usage':{}}",
                        TID, NATTER_STORE_ERROR_SCHEMA);
  /* Missing, non-string, path-like turnId. */
  assert_head_rejected ("{'type':'turn_cancelled','ts':'" TS "','usage':{}}",
                        NULL, NATTER_STORE_ERROR_SCHEMA);
  assert_head_rejected ("{'type':'turn_cancelled','turnId':5,'ts':'" TS "','usage':{}}",
                        NULL, NATTER_STORE_ERROR_SCHEMA);
  assert_head_rejected ("{'type':'turn_cancelled','turnId':'../../etc/passwd','ts':'" TS "','usage':{}}",
                        NULL, NATTER_STORE_ERROR_SCHEMA);
  /* Missing, local-time, malformed ts. */
  assert_head_rejected ("{'type':'turn_cancelled','turnId':'" TID "','usage':{}}",
                        TID, NATTER_STORE_ERROR_SCHEMA);
  assert_head_rejected ("{'type':'turn_cancelled','turnId':'" TID "','ts':'2026-11-30T09:14:03+01:00',"
                        "'usage':{}}", TID, NATTER_STORE_ERROR_SCHEMA);
  assert_head_rejected ("{'type':'turn_cancelled','turnId':'" TID "','ts':'yesterday','usage':{}}",
                        TID, NATTER_STORE_ERROR_SCHEMA);
  /* Missing or non-string type. */
  assert_head_rejected ("{'turnId':'" TID "','ts':'" TS "','usage':{}}", TID, NATTER_STORE_ERROR_SCHEMA);
  assert_head_rejected ("{'type':3,'turnId':'" TID "','ts':'" TS "','usage':{}}",
                        TID, NATTER_STORE_ERROR_SCHEMA);
  /* An unknown type fails as such even when the rest is nonsense. */
  assert_head_rejected ("{'type':'text_delta','turnId':'" TID "','modelCallIndex':0,'delta':'x'}",
                        TID, NATTER_STORE_ERROR_UNKNOWN_TYPE);
}

static void
test_request_refs (void)
{
  const char *good[] = { "context", "input", "assistant:0", "assistant:12", "toolResult:c1",
                         "toolResult:call:with:colons" };
  const char *bad[] = { "", "Context", "inputs", "assistant:", "assistant:-1", "assistant:01",
                        "assistant:1x", "assistant:12345678901", "toolResult:", "tool:c1", "system" };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    g_assert_true (natter_turn_is_request_ref (good[i]));
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (natter_turn_is_request_ref (bad[i]));
  g_assert_false (natter_turn_is_request_ref (NULL));
}

static void
test_event_new (void)
{
  g_autoptr(JsonNode) node = natter_turn_event_new ("turn_cancelled", TID, TS);
  g_autoptr(JsonNode) now = natter_turn_event_new ("turn_cancelled", TID, NULL);
  g_autoptr(JsonObject) usage = json_object_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *event = json_node_get_object (node);

  g_assert_cmpstr (json_object_get_string_member (event, "type"), ==, "turn_cancelled");
  g_assert_cmpstr (json_object_get_string_member (event, "turnId"), ==, TID);
  g_assert_cmpstr (json_object_get_string_member (event, "ts"), ==, TS);
  g_assert_cmpuint (json_object_get_size (event), ==, 3);

  /* The caller adds the fields of its type; then it validates. */
  g_assert_false (natter_turn_event_validate (event, TID, NULL));
  json_object_set_object_member (event, "usage", g_steal_pointer (&usage));
  g_assert_true (natter_turn_event_validate (event, TID, &error));
  g_assert_no_error (error);

  /* Without a ts, the system clock's well-formed one. */
  g_assert_true (natter_json_is_timestamp (json_object_get_string_member (json_node_get_object (now),
                                                                          "ts")));
}

/* The example in docs/format.md is true: every event line in it is
 * canonical, valid, and the session and the turn reduce, the turn's
 * stopped model call keeping its partial answer. */
static void
test_format_doc_example (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "docs", "format.md", NULL);
  g_autofree char *text = natter_test_read_file (path, NULL);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GPtrArray) session = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GPtrArray) turn = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterSessionState) session_state = NULL;
  g_autoptr(NatterTurnState) turn_state = NULL;
  g_autoptr(GError) error = NULL;
  static const char * const session_types[] = { "session_created", "turn_appended", "title_changed", NULL };

  for (guint i = 0; lines[i] != NULL; i++)
    {
      JsonNode *node;
      JsonObject *event;

      if (!g_str_has_prefix (lines[i], "{\"type\":"))
        continue;
      node = natter_json_from_line (lines[i], -1, &error);
      g_assert_no_error (error);
      event = json_node_get_object (node);
      if (g_strv_contains (session_types, json_object_get_string_member (event, "type")))
        {
          natter_session_event_validate (event, NULL, &error);
          g_ptr_array_add (session, node);
        }
      else
        {
          natter_turn_event_validate (event, NULL, &error);
          g_ptr_array_add (turn, node);
        }
      g_assert_no_error (error);
    }
  g_assert_cmpuint (session->len, ==, 2);
  g_assert_cmpuint (turn->len, ==, 4);

  session_state = natter_session_reduce (session, &error);
  g_assert_no_error (error);
  turn_state = natter_turn_reduce (turn, &error);
  g_assert_no_error (error);
  g_assert_cmpint (natter_derive_turn_status (turn_state), ==, NATTER_TURN_STATUS_CANCELLED);
  g_assert_nonnull (natter_turn_model_call_get_partial (natter_turn_state_get_model_call (turn_state, 0)));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (valid_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/turn-schema/valid/%s", valid_cases[i].name);

      g_test_add_data_func (path, &valid_cases[i], test_valid);
    }
  for (guint i = 0; i < G_N_ELEMENTS (invalid_cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/turn-schema/invalid/%s", invalid_cases[i].name);

      g_test_add_data_func (path, &invalid_cases[i], test_invalid);
    }
  g_test_add_func ("/turn-schema/head", test_head);
  g_test_add_func ("/turn-schema/request-refs", test_request_refs);
  g_test_add_func ("/turn-schema/event-new", test_event_new);
  g_test_add_func ("/turn-schema/format-doc-example", test_format_doc_example);

  return g_test_run ();
}
