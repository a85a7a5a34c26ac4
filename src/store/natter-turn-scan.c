/* natter-turn-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The startup scan's read of a session's latest turn file
 * (docs/sessions.md §8.2 step 3), only to learn its status, without
 * a JsonNode tree per line. The full read (natter_turn_reduce_file_sync())
 * builds, validates, reduces and frees a tree
 * of every event; at 10,000 sessions that was about half of the scan.
 *
 * Here every line goes through natter_json_line_scan_object(), which
 * accepts exactly the lines the tree builder accepts, and the turn schema
 * (natter-turn-schema.c), the repository's line rules and the reducer's
 * invariants (natter-turn-reducer.c) are checked on its spans — for the
 * turns that make up nearly every latest turn: created, model calls
 * answered with text, completed, failed or cancelled. The status then
 * comes from natter_turn_status_derive(), the one derivation.
 *
 * The scan is one-sided: it says "valid, with this status" only where the
 * full read would say so, and otherwise does not decide. Anything it does
 * not check itself — tool calls, permissions, suspensions, attachments,
 * inline histories, step events, or any line it finds wrong — sends the
 * file to the full read, which gives the status or the error (code and
 * `<path>:<line>: <reason>` message) the rest of Natter reports.
 * tests/store/test-turn-scan.c and fuzz/fuzz-turn-scan.c hold the two paths to
 * that on turns written by the runtime and on damaged ones.
 *
 * The search index reads every turn file for its words the same way
 * (natter_turn_scan_text_at()): the lines the scan decides give the text
 * of the input and of each completed model call from their spans, and
 * every other file is read in full, whose state gives the same words
 * (natter_turn_text_from_state(), the one rule for which words a turn
 * has).
 *
 * Two facts of the canonical spelling make span checks exact: a canonical
 * line never escapes an ASCII letter, digit or `-_:.`, so an escaped
 * string never equals an enum value, id, ref or event type; and each
 * value has one spelling, so two strings of one line are equal exactly
 * when their raw spans are.
 */

#define G_LOG_DOMAIN "natter-turn-scan"

#include <string.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-json-private.h"
#include "natter-jsonl-repo-private.h"
#include "natter-log-read.h"
#include "natter-session-schema.h"
#include "natter-turn-reducer.h"
#include "natter-turn-reducer-private.h"
#include "natter-turn-scan.h"
#include "natter-turn-schema.h"

/* Members of one event; more sends the file to the full read. */
#define MAX_MEMBERS 32
/* Members or elements of a container inside one; the same. */
#define MAX_ITEMS 64

typedef const NatterJsonMember Member;

/* What the scan folds from the lines read so far. */
typedef struct
{
  const char *turn_id;
  guint       line_number;
  const char *terminal_type;     /* static; NULL until a terminal event */
  gint64      max_model_calls;
  guint       n_model_calls;
  gboolean    last_open;         /* the last model call is neither completed nor failed */
  gboolean    last_failed;       /* it failed (else, once closed, it completed) */
  Member     *previous_turn_id;  /* the context's {previousTurnId}, NULL for `[]` */
  NatterJsonMember previous;
  gint64      usage[N_USAGE];
  gboolean    imported;          /* config holds `imported` (natter_turn_definition_is_imported()) */
  gboolean    has_device;        /* a line says which device runs the turn */
  /* Where the words go, when wanted (natter_turn_scan_contents_text()). */
  GString    *user_text;
  GString    *answer_text;
  /* Where the context's {previousTurnId} is copied once the file is
   * decided, when wanted: the span dies with the buffer it points into. */
  char      **previous_out;
} TurnScan;

/* Span checks. Each says whether the full read's check certainly passes;
 * FALSE sends the file to the full read. */

static Member *
find_member (Member     *members,
             guint       n_members,
             const char *name,
             gsize       name_length)
{
  for (guint i = 0; i < n_members; i++)
    if (!members[i].name_escaped && natter_json_span_equals (members[i].name, members[i].name_length, name, name_length))
      return &members[i];
  return NULL;
}

/* The member named by the literal @name, or NULL. */
#define find(members, n_members, name) find_member ((members), (n_members), (name), sizeof (name) - 1)

static gboolean
is_kind (Member             *member,
         NatterJsonSpanKind  kind)
{
  return member != NULL && member->kind == kind;
}

static gboolean
is_string (Member *member)
{
  return is_kind (member, NATTER_JSON_SPAN_STRING);
}

/* A string member equal to @literal (ASCII letters, digits, `_-:.`). */
static gboolean
string_equals (Member     *member,
               const char *literal,
               gsize       length)
{
  return is_string (member) && !member->escaped &&
         natter_json_span_equals (member->value, member->value_length, literal, length);
}

#define string_is(member, literal) string_equals ((member), (literal), sizeof (literal) - 1)

/* natter_json_require_nonempty_string(): an escape never decodes to
 * nothing (a canonical line holds no NUL), so the raw span decides. */
static gboolean
is_nonempty_string (Member *member)
{
  return is_string (member) && member->value_length > 0;
}

static gboolean
is_int_at_least (Member *member,
                 gint64  minimum)
{
  return is_kind (member, NATTER_JSON_SPAN_INT) && member->int_value >= minimum;
}

/* natter_id_require_field(): ids are never escaped. */
static gboolean
is_id (Member *member)
{
  char id[NATTER_ID_LENGTH + 1];

  if (!is_string (member) || member->escaped || member->value_length != NATTER_ID_LENGTH)
    return FALSE;
  memcpy (id, member->value, NATTER_ID_LENGTH);
  id[NATTER_ID_LENGTH] = '\0';
  return natter_id_validate (id, NULL);
}

/* natter_json_require_timestamp(). */
static gboolean
is_timestamp (Member *member)
{
  char text[64];

  if (!is_string (member) || member->escaped || member->value_length >= sizeof text)
    return FALSE;
  memcpy (text, member->value, member->value_length);
  text[member->value_length] = '\0';
  return natter_json_is_timestamp (text);
}

/* An optional member of natter_json_optional_string(): absent, or a string. */
static gboolean
optional_string (Member *member)
{
  return member == NULL || is_string (member);
}

/* The items of an object or array member, into @items (MAX_ITEMS). */
static gboolean
walk (Member           *container,
      NatterJsonSpanKind kind,
      NatterJsonMember  *items,
      guint             *n_items)
{
  return is_kind (container, kind) &&
         natter_json_span_walk (container->value, container->value_length, items, MAX_ITEMS, n_items);
}

/* Appends the string @member to @text, a new line first when @text has
 * some already: natter_turn_text_from_state()'s joining. */
static void
append_words (GString *text,
              Member  *member)
{
  if (text->len > 0)
    g_string_append_c (text, '\n');
  if (!member->escaped)
    {
      g_string_append_len (text, member->value, member->value_length);
      return;
    }
  {
    g_autofree char *decoded = natter_json_span_dup_string (member->value, member->value_length);

    g_string_append (text, decoded);
  }
}

/* Messages of docs/runtime.md §3: a user message (`turn_created.input`) or
 * an assistant message (answers, `output`, `partial`) whose content is a
 * string, or parts of text (and, for the assistant, reasoning). A blob,
 * an attachment or a tool call is the full read's to judge. When @text is
 * given, the string or the text parts (not the reasoning) are appended to
 * it as natter_turn_text_from_state() would. */
static gboolean
scan_message (Member   *message,
              gboolean  assistant,
              GString  *text)
{
  NatterJsonMember members[MAX_ITEMS];
  NatterJsonMember parts[MAX_ITEMS];
  guint n_members, n_parts;
  Member *role;
  Member *content;

  if (!walk (message, NATTER_JSON_SPAN_OBJECT, members, &n_members))
    return FALSE;
  role = find (members, n_members, "role");
  if (assistant ? !string_is (role, "assistant") : !string_is (role, "user"))
    return FALSE;
  content = find (members, n_members, "content");
  if (is_string (content))
    {
      if (text != NULL)
        append_words (text, content);
      return TRUE;
    }
  if (!walk (content, NATTER_JSON_SPAN_ARRAY, parts, &n_parts))
    return FALSE;
  for (guint i = 0; i < n_parts; i++)
    {
      NatterJsonMember fields[MAX_ITEMS];
      guint n_fields;
      Member *type;
      Member *part_text;

      if (!walk (&parts[i], NATTER_JSON_SPAN_OBJECT, fields, &n_fields))
        return FALSE;
      type = find (fields, n_fields, "type");
      if (!string_is (type, "text") && !(assistant && string_is (type, "reasoning")))
        return FALSE;
      if (!is_string (part_text = find (fields, n_fields, "text")))
        return FALSE;
      if (text != NULL && string_is (type, "text"))
        append_words (text, part_text);
    }
  return TRUE;
}

/* `usage`: a closed set of non-negative counts. */
static gboolean
scan_usage (Member *usage,
            gint64  counts[N_USAGE],
            guint  *present)
{
  NatterJsonMember members[MAX_ITEMS];
  guint n_members;

  *present = 0;
  if (!walk (usage, NATTER_JSON_SPAN_OBJECT, members, &n_members))
    return FALSE;
  for (guint i = 0; i < n_members; i++)
    {
      guint field = N_USAGE;

      for (guint f = 0; f < N_USAGE && !members[i].name_escaped; f++)
        if (members[i].name_length == strlen (natter_turn_usage_fields[f]) &&
            memcmp (members[i].name, natter_turn_usage_fields[f], members[i].name_length) == 0)
          field = f;
      if (field == N_USAGE || !is_int_at_least (&members[i], 0))
        return FALSE;
      counts[field] = members[i].int_value;
      *present |= 1u << field;
    }
  return TRUE;
}

/* validate_resolved_agent(): the model, the system prompt and the tools,
 * whose names are unique. */
static gboolean
scan_resolved_agent (Member *resolved)
{
  NatterJsonMember members[MAX_ITEMS];
  NatterJsonMember model[MAX_ITEMS];
  NatterJsonMember tools[MAX_ITEMS];
  const char *names[MAX_ITEMS];
  gsize name_lengths[MAX_ITEMS];
  guint n_members, n_model, n_tools;

  if (!walk (resolved, NATTER_JSON_SPAN_OBJECT, members, &n_members) ||
      !walk (find (members, n_members, "model"), NATTER_JSON_SPAN_OBJECT, model, &n_model) ||
      !is_nonempty_string (find (model, n_model, "provider")) ||
      !is_nonempty_string (find (model, n_model, "model")) ||
      !is_string (find (members, n_members, "systemPrompt")) ||
      !walk (find (members, n_members, "tools"), NATTER_JSON_SPAN_ARRAY, tools, &n_tools))
    return FALSE;

  for (guint i = 0; i < n_tools; i++)
    {
      NatterJsonMember tool[MAX_ITEMS];
      guint n_tool;
      Member *name;
      Member *execution;

      if (!walk (&tools[i], NATTER_JSON_SPAN_OBJECT, tool, &n_tool))
        return FALSE;
      name = find (tool, n_tool, "name");
      execution = find (tool, n_tool, "execution");
      if (!is_nonempty_string (find (tool, n_tool, "toolId")) ||
          !is_nonempty_string (name) ||
          !is_string (find (tool, n_tool, "description")) ||
          !is_kind (find (tool, n_tool, "inputSchema"), NATTER_JSON_SPAN_OBJECT) ||
          !(string_is (execution, "sync") || string_is (execution, "async")) ||
          !is_kind (find (tool, n_tool, "requiresHuman"), NATTER_JSON_SPAN_BOOLEAN))
        return FALSE;
      /* One spelling per string: equal names have equal spans. */
      for (guint j = 0; j < i; j++)
        if (name_lengths[j] == name->value_length && memcmp (names[j], name->value, name->value_length) == 0)
          return FALSE;
      names[i] = name->value;
      name_lengths[i] = name->value_length;
    }
  return TRUE;
}

/* validate_turn_created() with the repository's version check, for an
 * empty inline context or {previousTurnId}. */
static gboolean
scan_turn_created (TurnScan *scan,
                   Member   *members,
                   guint     n_members)
{
  NatterJsonMember agent[MAX_ITEMS];
  NatterJsonMember config[MAX_ITEMS];
  guint n_agent, n_config;
  Member *version = find (members, n_members, "schemaVersion");
  Member *session_id = find (members, n_members, "sessionId");
  Member *context = find (members, n_members, "context");
  Member *member;

  if (!is_kind (version, NATTER_JSON_SPAN_INT) ||
      version->int_value < NATTER_TURN_SCHEMA_VERSION || version->int_value > NATTER_TURN_SCHEMA_VERSION_MAX)
    return FALSE;
  if (session_id == NULL || (!is_kind (session_id, NATTER_JSON_SPAN_NULL) && !is_id (session_id)))
    return FALSE;

  if (!walk (find (members, n_members, "agent"), NATTER_JSON_SPAN_OBJECT, agent, &n_agent) ||
      !is_kind (find (agent, n_agent, "requested"), NATTER_JSON_SPAN_OBJECT) ||
      !scan_resolved_agent (find (agent, n_agent, "resolved")))
    return FALSE;

  /* An inline history is the full read's; `[]` asks for nothing. */
  if (is_kind (context, NATTER_JSON_SPAN_ARRAY))
    {
      if (context->value_length != 2)
        return FALSE;
      scan->previous_turn_id = NULL;
    }
  else
    {
      NatterJsonMember reference[MAX_ITEMS];
      guint n_reference;

      if (!walk (context, NATTER_JSON_SPAN_OBJECT, reference, &n_reference) ||
          !is_id (member = find (reference, n_reference, "previousTurnId")))
        return FALSE;
      scan->previous = *member;
      scan->previous_turn_id = &scan->previous;
    }

  /* Text only: without a blob part, every version takes the message. */
  if (!scan_message (find (members, n_members, "input"), FALSE, scan->user_text))
    return FALSE;

  if (!walk (find (members, n_members, "config"), NATTER_JSON_SPAN_OBJECT, config, &n_config) ||
      !is_kind (find (config, n_config, "autoPermission"), NATTER_JSON_SPAN_BOOLEAN) ||
      !is_kind (find (config, n_config, "humanAvailable"), NATTER_JSON_SPAN_BOOLEAN) ||
      !is_int_at_least (member = find (config, n_config, "maxModelCalls"), 1))
    return FALSE;
  scan->max_model_calls = member->int_value;
  /* Any value marks an imported turn, as in the full read. */
  scan->imported = find (config, n_config, "imported") != NULL;
  if ((member = find (config, n_config, "parameters")) != NULL && !is_kind (member, NATTER_JSON_SPAN_OBJECT))
    return FALSE;
  if ((member = find (config, n_config, "cwd")) != NULL)
    {
      g_autofree char *cwd = NULL;

      if (!is_string (member))
        return FALSE;
      cwd = natter_json_span_dup_string (member->value, member->value_length);
      if (!natter_session_cwd_validate (cwd, NULL))
        return FALSE;
    }
  return TRUE;
}

/* validate_model_call_requested() and apply_model_call_requested(): the
 * first call asks for ["input"] (with the context's reference), a call
 * after a failed one for []; any other is the full read's. */
static gboolean
scan_model_call_requested (TurnScan *scan,
                           Member   *members,
                           guint     n_members)
{
  NatterJsonMember request[MAX_ITEMS];
  NatterJsonMember refs[MAX_ITEMS];
  guint n_request, n_refs, n_expected;
  Member *index = find (members, n_members, "modelCallIndex");
  Member *context_ref;

  if (!is_int_at_least (index, 0) || index->int_value != (gint64) scan->n_model_calls ||
      !walk (find (members, n_members, "request"), NATTER_JSON_SPAN_OBJECT, request, &n_request) ||
      !is_kind (find (request, n_request, "parameters"), NATTER_JSON_SPAN_OBJECT) ||
      !walk (find (request, n_request, "messages"), NATTER_JSON_SPAN_ARRAY, refs, &n_refs))
    return FALSE;

  /* No second open call, no call after a final answer, none past the
   * budget. */
  if (scan->last_open || (scan->n_model_calls > 0 && !scan->last_failed) ||
      (gint64) scan->n_model_calls >= scan->max_model_calls)
    return FALSE;
  n_expected = scan->n_model_calls == 0 ? 1 : 0;
  if (n_refs != n_expected || (n_expected == 1 && !string_is (&refs[0], "input")))
    return FALSE;

  /* contextRef exactly on the first call of a turn with a reference, and
   * the same one. */
  context_ref = find (request, n_request, "contextRef");
  if (scan->n_model_calls == 0 && scan->previous_turn_id != NULL)
    {
      NatterJsonMember reference[MAX_ITEMS];
      guint n_reference;
      Member *previous;

      if (!walk (context_ref, NATTER_JSON_SPAN_OBJECT, reference, &n_reference) ||
          !is_id (previous = find (reference, n_reference, "previousTurnId")) ||
          previous->value_length != scan->previous_turn_id->value_length ||
          memcmp (previous->value, scan->previous_turn_id->value, previous->value_length) != 0)
        return FALSE;
    }
  else if (context_ref != NULL)
    return FALSE;

  scan->n_model_calls++;
  scan->last_open = TRUE;
  scan->last_failed = FALSE;
  return TRUE;
}

/* The open call an answer or a failure closes: the last one. */
static gboolean
closes_last_call (TurnScan *scan,
                  Member   *members,
                  guint     n_members)
{
  Member *index = find (members, n_members, "modelCallIndex");

  return is_int_at_least (index, 0) && scan->last_open &&
         index->int_value == (gint64) scan->n_model_calls - 1;
}

/* `firstTokenTs`, when present, is a timestamp (the turn schema's
 * optional_first_token_ts()). */
static gboolean
first_token_ts_ok (Member *members,
                   guint   n_members)
{
  Member *first = find (members, n_members, "firstTokenTs");

  return first == NULL || is_timestamp (first);
}

/* validate_model_call_completed() and apply_model_call_completed() for an
 * answer without tool calls, whose usage adds up. */
static gboolean
scan_model_call_completed (TurnScan *scan,
                           Member   *members,
                           guint     n_members)
{
  gint64 counts[N_USAGE];
  guint present;

  if (!scan_message (find (members, n_members, "message"), TRUE, scan->answer_text) ||
      !is_string (find (members, n_members, "finishReason")) ||
      !scan_usage (find (members, n_members, "usage"), counts, &present) ||
      !first_token_ts_ok (members, n_members) ||
      !closes_last_call (scan, members, n_members))
    return FALSE;
  for (guint f = 0; f < N_USAGE; f++)
    if ((present & (1u << f)) != 0)
      {
        if (counts[f] > G_MAXINT64 - scan->usage[f])
          return FALSE;
        scan->usage[f] += counts[f];
      }
  scan->last_open = FALSE;
  return TRUE;
}

static gboolean
scan_model_call_failed (TurnScan *scan,
                        Member   *members,
                        guint     n_members)
{
  Member *partial = find (members, n_members, "partial");

  if (!is_string (find (members, n_members, "error")) ||
      (partial != NULL && !scan_message (partial, TRUE, scan->answer_text)) ||
      !first_token_ts_ok (members, n_members) ||
      !closes_last_call (scan, members, n_members))
    return FALSE;
  scan->last_open = FALSE;
  scan->last_failed = TRUE;
  return TRUE;
}

/* The three terminal events: their schema, and apply_terminal(). */
static gboolean
scan_terminal (TurnScan   *scan,
               const char *type,
               Member     *members,
               guint       n_members)
{
  gint64 counts[N_USAGE];
  guint present;

  if (!scan_usage (find (members, n_members, "usage"), counts, &present) || scan->last_open)
    return FALSE;
  if (g_str_equal (type, "turn_completed"))
    {
      /* After a final answer: a completed call (without tool calls). */
      if (!scan_message (find (members, n_members, "output"), TRUE, NULL) ||
          !is_string (find (members, n_members, "finishReason")) ||
          scan->n_model_calls == 0 || scan->last_failed)
        return FALSE;
    }
  else if (g_str_equal (type, "turn_failed"))
    {
      if (!is_string (find (members, n_members, "error")) || !optional_string (find (members, n_members, "code")))
        return FALSE;
      /* model-call-limit means the budget is spent. */
      if (string_is (find (members, n_members, "code"), "model-call-limit") &&
          (gint64) scan->n_model_calls < scan->max_model_calls)
        return FALSE;
    }
  else if (!optional_string (find (members, n_members, "reason")))
    return FALSE;
  scan->terminal_type = type;
  return TRUE;
}

/* natter_device_member_validate(): `device`, on any line, is absent or
 * `{id, name}` with a non-empty `id`. */
static gboolean
scan_device (TurnScan *scan,
             Member   *device)
{
  NatterJsonMember members[MAX_ITEMS];
  guint n_members;

  if (device == NULL)
    return TRUE;
  if (!walk (device, NATTER_JSON_SPAN_OBJECT, members, &n_members) ||
      !is_nonempty_string (find (members, n_members, "id")) ||
      !is_string (find (members, n_members, "name")))
    return FALSE;
  scan->has_device = TRUE;
  return TRUE;
}

/* One complete line (without its newline): the repository's rules (the
 * first line and only it is turn_created; the event is the file's), the
 * schema's common fields, then its type's checks. */
static gboolean
scan_line (const char *line,
           gsize       line_length,
           gpointer    user_data)
{
  TurnScan *scan = user_data;
  NatterJsonMember members[MAX_MEMBERS];
  guint n_members = 0;
  Member *type;
  Member *turn_id;

  if (!natter_json_line_scan_object (line, line_length, members, G_N_ELEMENTS (members), &n_members))
    return FALSE;
  type = find (members, n_members, "type");
  turn_id = find (members, n_members, "turnId");
  if (!is_string (type) || type->escaped ||
      !is_id (turn_id) || memcmp (turn_id->value, scan->turn_id, NATTER_ID_LENGTH) != 0 ||
      !is_timestamp (find (members, n_members, "ts")))
    return FALSE;

  if (!scan_device (scan, find (members, n_members, "device")))
    return FALSE;
  if (scan->line_number == 1)
    return string_is (type, "turn_created") && scan_turn_created (scan, members, n_members);
  /* Nothing follows a terminal event. */
  if (scan->terminal_type != NULL)
    return FALSE;
  if (string_is (type, "model_call_requested"))
    return scan_model_call_requested (scan, members, n_members);
  if (string_is (type, "model_call_completed"))
    return scan_model_call_completed (scan, members, n_members);
  if (string_is (type, "model_call_failed"))
    return scan_model_call_failed (scan, members, n_members);
  if (string_is (type, "turn_completed"))
    return scan_terminal (scan, "turn_completed", members, n_members);
  if (string_is (type, "turn_failed"))
    return scan_terminal (scan, "turn_failed", members, n_members);
  if (string_is (type, "turn_cancelled"))
    return scan_terminal (scan, "turn_cancelled", members, n_members);
  /* Tools, permissions, suspensions, steps, a second turn_created, or a
   * type no reader knows. */
  return FALSE;
}

/* Folds every line of @contents into @scan; whether all were decided. */
static gboolean
scan_lines (TurnScan   *scan,
            const char *contents,
            gsize       length,
            const char *turn_id)
{
  if (!natter_id_validate (turn_id, NULL) || length == 0)
    return FALSE;
  scan->turn_id = turn_id;
  return natter_jsonl_each_line (contents, length, &scan->line_number, scan_line, scan);
}

/* Whether the status of a file whose lines are all decided is too: a
 * turn that may still run elsewhere is the full read's, which says where
 * (such turns are few, and only they need it). */
static gboolean
status_decided (TurnScan *scan)
{
  return scan->terminal_type != NULL || !scan->has_device;
}

/* scan_lines(), whose words, when @scan collects them, are taken back
 * from its strings unless every line is decided. */
static gboolean
scan_decides (TurnScan   *scan,
              const char *contents,
              gsize       length,
              const char *turn_id)
{
  gsize user_length = scan->user_text != NULL ? scan->user_text->len : 0;
  gsize answer_length = scan->answer_text != NULL ? scan->answer_text->len : 0;

  if (scan_lines (scan, contents, length, turn_id))
    return TRUE;
  if (scan->user_text != NULL)
    g_string_truncate (scan->user_text, user_length);
  if (scan->answer_text != NULL)
    g_string_truncate (scan->answer_text, answer_length);
  return FALSE;
}

/**
 * natter_turn_scan_contents:
 * @contents: the bytes of a turn file
 * @length: their length
 * @turn_id: the id of the turn the file belongs to (a valid id)
 * @out_status: (out): the turn's status, when decided
 * @out_imported: (out) (optional): whether the turn was imported
 *   (natter_turn_state_is_imported()), when decided
 *
 * The verdict half of natter_turn_scan_file_sync(): whether the full read
 * of a file with these bytes (natter_turn_reduce_file_sync() of the turn
 * repository) certainly succeeds, and then the
 * status natter_derive_turn_status() gives its state and whether
 * natter_turn_state_is_imported() holds for it. Decides the turns
 * made of model calls answered with text (see the top of this file);
 * allocates nothing but a working directory's text.
 *
 * Returns: %TRUE with @out_status set; %FALSE when the full read must
 *   decide (the file is damaged, or has a shape this read leaves to it)
 */
gboolean
natter_turn_scan_contents (const char       *contents,
                           gsize             length,
                           const char       *turn_id,
                           NatterTurnStatus *out_status,
                           gboolean         *out_imported)
{
  TurnScan scan = { 0 };

  g_return_val_if_fail (contents != NULL || length == 0, FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);
  g_return_val_if_fail (out_status != NULL, FALSE);

  if (!scan_decides (&scan, contents, length, turn_id) || !status_decided (&scan))
    return FALSE;
  /* The full read knows of no suspension here: none was read. */
  *out_status = natter_turn_status_derive (scan.terminal_type, FALSE);
  if (out_imported != NULL)
    *out_imported = scan.imported;
  return TRUE;
}

/* The text parts of @message (nullable), each after a new line when
 * @out has text: `content` is a string or an array of parts, of which
 * only `text` parts are words a person wrote or read. */
static void
append_message_text (GString    *out,
                     JsonObject *message)
{
  JsonNode *content;
  JsonArray *parts;

  if (message == NULL || (content = json_object_get_member (message, "content")) == NULL)
    return;
  if (JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    {
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append (out, json_node_get_string (content));
      return;
    }
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return;
  parts = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *node = json_array_get_element (parts, i);
      JsonObject *part = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (part != NULL && g_strcmp0 (json_object_get_string_member_with_default (part, "type", NULL), "text") == 0)
        {
          if (out->len > 0)
            g_string_append_c (out, '\n');
          g_string_append (out, json_object_get_string_member_with_default (part, "text", ""));
        }
    }
}

/**
 * natter_turn_text_from_state:
 * @state: a reduced turn
 * @user_text: what the person wrote is appended here
 * @answer_text: what the model answered is appended here
 *
 * The words of a turn that a person wrote or read, as the search index
 * keeps them (docs/format.md "The search cache"): the text of the
 * turn's input, and that of the message of every model call that
 * completed, not only the last (the user read them all), and of what a
 * call stopped or cut off mid-answer had received (the window shows it,
 * marked). A message whose
 * content is a string gives it; one of parts gives its `text` parts,
 * never reasoning, a blob or a tool call. Each piece is appended after a
 * new line when its string holds some text already.
 */
void
natter_turn_text_from_state (NatterTurnState *state,
                             GString         *user_text,
                             GString         *answer_text)
{
  JsonObject *definition;

  g_return_if_fail (state != NULL);
  g_return_if_fail (user_text != NULL && answer_text != NULL);

  definition = natter_turn_state_get_definition (state);
  if (definition != NULL && json_object_has_member (definition, "input"))
    append_message_text (user_text, json_object_get_object_member (definition, "input"));
  for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);
      JsonObject *message = natter_turn_model_call_get_message (call);

      append_message_text (answer_text, message != NULL ? message : natter_turn_model_call_get_partial (call));
    }
}

/**
 * natter_turn_scan_contents_text:
 * @contents: the bytes of a turn file
 * @length: their length
 * @turn_id: the id of the turn the file belongs to
 * @user_text: what the person wrote is appended here, when decided
 * @answer_text: what the model answered is appended here, when decided
 *
 * natter_turn_text_from_state() of the full read of a file with these
 * bytes, without its tree, for the files natter_turn_scan_contents()
 * decides, and those it leaves only because the turn may still run on
 * another device (which changes no word): the search index reads every
 * turn of every conversation, and a tree per event was most of that.
 * Nothing is appended when it does not decide.
 *
 * Returns: %TRUE when the full read certainly accepts the file and the
 *   texts are appended; %FALSE when the full read must decide
 */
gboolean
natter_turn_scan_contents_text (const char *contents,
                                gsize       length,
                                const char *turn_id,
                                GString    *user_text,
                                GString    *answer_text)
{
  TurnScan scan = { 0 };

  g_return_val_if_fail (contents != NULL || length == 0, FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);
  g_return_val_if_fail (user_text != NULL && answer_text != NULL, FALSE);

  scan.user_text = user_text;
  scan.answer_text = answer_text;
  return scan_decides (&scan, contents, length, turn_id);
}

/**
 * natter_turn_scan_file_sync:
 * @repo: the turn repository
 * @turn_id: the turn
 * @out_status: (out): the turn's status, on success
 * @out_imported: (out) (optional): whether it was imported, on success
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * natter_turn_scan_file_at() with a cursor of its own, for a single
 * file. Blocks.
 *
 * Returns: as natter_turn_scan_file_at()
 */
gboolean
natter_turn_scan_file_sync (NatterJsonlRepo   *repo,
                            const char        *turn_id,
                            NatterTurnStatus  *out_status,
                            gboolean          *out_imported,
                            GCancellable      *cancellable,
                            GError           **error)
{
  g_autoptr(NatterJsonlCursor) cursor = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), FALSE);

  cursor = natter_jsonl_cursor_new (repo);
  return natter_turn_scan_file_at (cursor, turn_id, NULL, NULL, out_status, out_imported, NULL, NULL,
                                   cancellable, error);
}

/* The read of both *_at() functions: the file by @cursor, decided by
 * @scan (%TRUE, *@out_state NULL; with its status too when @for_status),
 * else read in full (%TRUE with its state in *@out_state, or %FALSE with
 * the full read's error). */
static gboolean
decide_at (NatterJsonlCursor   *cursor,
           const char          *turn_id,
           NatterFileIdentity  *out_identity,
           gboolean            *out_identity_known,
           TurnScan            *scan,
           gboolean             for_status,
           NatterTurnState    **out_state,
           GCancellable        *cancellable,
           GError             **error)
{
  g_autofree char *heap = NULL;
  char stack_buffer[NATTER_JSONL_READ_STACK_SIZE];
  char *contents = NULL;
  gsize length = 0;

  *out_state = NULL;
  if (out_identity_known != NULL)
    *out_identity_known = FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (natter_jsonl_cursor_load (cursor, turn_id, stack_buffer, &contents, &length, &heap, out_identity,
                                out_identity_known) &&
      scan_decides (scan, contents, length, turn_id) && (!for_status || status_decided (scan)))
    {
      if (scan->previous_out != NULL && scan->previous_turn_id != NULL)
        *scan->previous_out = g_strndup (scan->previous_turn_id->value, scan->previous_turn_id->value_length);
      return TRUE;
    }

  /* Undecided, damaged or unreadable: the full read says what it is. */
  *out_state = natter_turn_reduce_file_sync (natter_jsonl_cursor_get_repo (cursor), turn_id, NULL, cancellable, error);
  return *out_state != NULL;
}

/**
 * natter_turn_scan_file_at:
 * @cursor: a cursor over the turn repository
 * @turn_id: the turn
 * @out_identity: (out caller-allocates) (optional): the turn file's
 *   identity, taken before it was read (docs/sessions.md §8.4)
 * @out_identity_known: (out) (optional): whether @out_identity could be
 *   told (natter_jsonl_cursor_identify())
 * @out_status: (out): the turn's status, on success
 * @out_imported: (out) (optional): whether it was imported, on success
 * @out_device_id: (out) (optional) (transfer full): the device that runs
 *   the turn when it has not ended and records one (docs/format.md §4.5),
 *   else %NULL
 * @out_device_name: (out) (optional) (transfer full): that device's name
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The startup scan's read of a session's latest turn file
 * (docs/sessions.md §8.2 step 3): its status and its imported mark,
 * as natter_derive_turn_status() and natter_turn_state_is_imported() give
 * them after natter_turn_reduce_file_sync(), read tree-free when
 * natter_turn_scan_contents() can decide and by that full read otherwise,
 * whose error is returned. Blocks.
 *
 * Returns: %TRUE with @out_status set; else %FALSE with the full read's
 *   error: a %NATTER_STORE_ERROR (INVALID_ID, NOT_FOUND, IO, CORRUPT with
 *   `<path>:<line>: <reason>`, or the reducer's INVARIANT, SCHEMA,
 *   UNKNOWN_TYPE or UNSUPPORTED_VERSION naming the event), or
 *   %G_IO_ERROR_CANCELLED
 */
gboolean
natter_turn_scan_file_at (NatterJsonlCursor  *cursor,
                          const char         *turn_id,
                          NatterFileIdentity *out_identity,
                          gboolean           *out_identity_known,
                          NatterTurnStatus   *out_status,
                          gboolean           *out_imported,
                          char              **out_device_id,
                          char              **out_device_name,
                          GCancellable       *cancellable,
                          GError            **error)
{
  g_autoptr(NatterTurnState) state = NULL;
  TurnScan scan = { 0 };

  g_return_val_if_fail (cursor != NULL, FALSE);
  g_return_val_if_fail (out_status != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (out_device_id != NULL)
    *out_device_id = NULL;
  if (out_device_name != NULL)
    *out_device_name = NULL;
  if (!decide_at (cursor, turn_id, out_identity, out_identity_known, &scan, TRUE, &state, cancellable, error))
    return FALSE;
  if (state == NULL)
    {
      /* The full read knows of no suspension here: none was read. */
      *out_status = natter_turn_status_derive (scan.terminal_type, FALSE);
      if (out_imported != NULL)
        *out_imported = scan.imported;
      return TRUE;
    }
  *out_status = natter_derive_turn_status (state);
  if (out_imported != NULL)
    *out_imported = natter_turn_state_is_imported (state);
  if (natter_turn_state_get_terminal_event (state) == NULL)
    {
      if (out_device_id != NULL)
        *out_device_id = g_strdup (natter_turn_state_get_device_id (state));
      if (out_device_name != NULL)
        *out_device_name = g_strdup (natter_turn_state_get_device_name (state));
    }
  return TRUE;
}

/**
 * natter_turn_scan_text_at:
 * @cursor: a cursor over the turn repository
 * @turn_id: the turn
 * @out_identity: (out caller-allocates) (optional): the turn file's
 *   identity, taken before it was read (docs/sessions.md §8.4)
 * @out_identity_known: (out) (optional): whether @out_identity could be
 *   told (natter_jsonl_cursor_identify()); a missing file's is
 * @user_text: what the person wrote is appended here, on success
 * @answer_text: what the model answered is appended here, on success
 * @out_ended: (out) (optional): whether the turn has ended (its file
 *   holds a terminal event), on success
 * @out_previous_turn_id: (out) (optional) (transfer full) (nullable): the
 *   turn its context refers to (`context.previousTurnId`), %NULL for an
 *   inline context, on success: the search index walks a history by it
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The search index's read of a turn file: the words
 * natter_turn_text_from_state() gives after natter_turn_reduce_file_sync(),
 * read tree-free when natter_turn_scan_contents_text() can decide and by
 * that full read otherwise, whose error is returned. Blocks.
 *
 * Returns: %TRUE with the texts appended; else %FALSE with the errors of
 *   natter_turn_scan_file_at()
 */
gboolean
natter_turn_scan_text_at (NatterJsonlCursor  *cursor,
                          const char         *turn_id,
                          NatterFileIdentity *out_identity,
                          gboolean           *out_identity_known,
                          GString            *user_text,
                          GString            *answer_text,
                          gboolean           *out_ended,
                          char              **out_previous_turn_id,
                          GCancellable       *cancellable,
                          GError            **error)
{
  g_autoptr(NatterTurnState) state = NULL;
  TurnScan scan = { 0 };

  g_return_val_if_fail (cursor != NULL, FALSE);
  g_return_val_if_fail (user_text != NULL && answer_text != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (out_previous_turn_id != NULL)
    *out_previous_turn_id = NULL;
  scan.user_text = user_text;
  scan.answer_text = answer_text;
  scan.previous_out = out_previous_turn_id;
  if (!decide_at (cursor, turn_id, out_identity, out_identity_known, &scan, FALSE, &state, cancellable, error))
    return FALSE;
  if (state != NULL)
    natter_turn_text_from_state (state, user_text, answer_text);
  if (state != NULL && out_previous_turn_id != NULL)
    {
      JsonObject *definition = natter_turn_state_get_definition (state);

      *out_previous_turn_id = definition != NULL
                              ? g_strdup (natter_turn_definition_get_previous_turn_id (definition)) : NULL;
    }
  if (out_ended != NULL)
    *out_ended = state != NULL ? natter_turn_state_get_terminal_event (state) != NULL : scan.terminal_type != NULL;
  return TRUE;
}
