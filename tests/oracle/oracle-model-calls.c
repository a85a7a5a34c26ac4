/* oracle-model-calls.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Model calls in the model: requests, answers, failures and what the
 * queue does when a turn settles.
 */

#include <string.h>

#include "oracle-model.h"
#include "oracle-model-private.h"

GPtrArray *
oracle_waiting_turns (Oracle *o)
{
  GPtrArray *waiting = g_ptr_array_new ();

  for (guint i = 0; i < o->turns->len; i++)
    {
      OTurn *t = g_ptr_array_index (o->turns, i);

      if (t->status == OT_WAITING_CALL && !t->forgotten)
        g_ptr_array_add (waiting, t);
    }
  return waiting;
}

/* Nothing the model expects is still to come to the server. */
gboolean
oracle_quiet (Oracle *o)
{
  g_autoptr(GPtrArray) waiting = oracle_waiting_turns (o);

  if (waiting->len > 0 || o->compacting != NULL)
    return FALSE;
  for (guint i = 0; i < o->sessions->len; i++)
    if (((OSession *) g_ptr_array_index (o->sessions, i))->title_wanted)
      return FALSE;
  return TRUE;
}

/* The messages @t's next model call must carry, after the system prompt
 * (docs/sessions.md §2, docs/runtime.md §3, §11): the context — nothing,
 * the closed transcript of the turn it continues, or the inline summary
 * and kept turns — then the turn's own input and what it produced. */
static void
add_context (OTurn     *t,
             GPtrArray *out)
{
  switch (t->ctx)
    {
    case OCTX_NONE:
      break;
    case OCTX_PREV:
      add_context (t->prev, out);
      for (guint i = 0; i < t->prev->own->len; i++)
        g_ptr_array_add (out, g_ptr_array_index (t->prev->own, i));
      break;
    case OCTX_INLINE:
      for (guint i = 0; i < t->inline_msgs->len; i++)
        g_ptr_array_add (out, g_ptr_array_index (t->inline_msgs, i));
      break;
    }
}

GPtrArray *
oracle_expected_request (OTurn *t)
{
  GPtrArray *out = g_ptr_array_new ();

  add_context (t, out);
  for (guint i = 0; i < t->own->len; i++)
    g_ptr_array_add (out, g_ptr_array_index (t->own, i));
  return out;
}

/* @object's member @name when it is a string, else NULL. */
static const char *
str_member (JsonObject *object,
            const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

/* The texts of a user message on the wire: its string content, or its
 * parts' texts (an image part as "<image>"). */
static GPtrArray *
wire_user_texts (JsonObject *message)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  JsonNode *content = json_object_get_member (message, "content");

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content) && json_node_get_value_type (content) == G_TYPE_STRING)
    g_ptr_array_add (texts, g_strdup (json_node_get_string (content)));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);

          if (g_strcmp0 (json_object_get_string_member_with_default (part, "type", ""), "text") == 0)
            g_ptr_array_add (texts, g_strdup (json_object_get_string_member_with_default (part, "text", "")));
          else
            g_ptr_array_add (texts, g_strdup ("<image>"));
        }
    }
  return texts;
}

static char *
printable (const char *text)
{
  return text != NULL ? g_strescape (text, NULL) : g_strdup ("(to learn)");
}

static gboolean
args_equal (const OCall *expected,
            const char  *actual)
{
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) b = NULL;

  if (expected->raw)
    return g_strcmp0 (expected->args, actual) == 0;
  a = json_from_string (expected->args, NULL);
  b = actual != NULL ? json_from_string (actual, NULL) : NULL;
  return a != NULL && b != NULL && json_node_equal (a, b);
}

/* Compares one expected message with one on the wire; learns a tool
 * result's words the first time they are seen. Returns why they differ,
 * or NULL. */
static char *
match_msg (OMsg       *m,
           JsonObject *wire)
{
  const char *role = str_member (wire, "role") != NULL ? str_member (wire, "role") : "";

  switch (m->kind)
    {
    case OMSG_USER:
      {
        g_autoptr(GPtrArray) texts = wire_user_texts (wire);
        g_autoptr(GPtrArray) expected = g_ptr_array_new_with_free_func (g_free);

        if (!g_str_equal (role, "user"))
          return g_strdup_printf ("a user message was expected, not %s", role);
        g_ptr_array_add (expected, g_strdup (m->text));
        /* docs/format.md §4.4: a text file's part is "File: <name>\n\n<text>". */
        for (guint i = 0; m->files != NULL && i < m->files->len; i++)
          {
            OFile *f = g_ptr_array_index (m->files, i);

            g_ptr_array_add (expected, g_strdup_printf ("File: %s\n\n%s", f->name, f->content));
          }
        if (texts->len != expected->len)
          {
            g_autofree char *want = printable (m->text);

            return g_strdup_printf ("the user message \"%s\" should have %u part(s) (its attachments: %u), "
                                    "it has %u", want, expected->len, expected->len - 1, texts->len);
          }
        for (guint i = 0; i < texts->len; i++)
          if (g_strcmp0 (g_ptr_array_index (texts, i), g_ptr_array_index (expected, i)) != 0)
            {
              g_autofree char *want = printable (g_ptr_array_index (expected, i));
              g_autofree char *got = printable (g_ptr_array_index (texts, i));

              return g_strdup_printf ("user text \"%s\" expected, \"%s\" sent", want, got);
            }
        return NULL;
      }
    case OMSG_SUMMARY:
      {
        g_autoptr(GPtrArray) texts = wire_user_texts (wire);

        if (!g_str_equal (role, "user") || texts->len != 1 || strstr (g_ptr_array_index (texts, 0), m->text) == NULL)
          return g_strdup_printf ("the summary \"%s\" was expected as a user message", m->text);
        return NULL;
      }
    case OMSG_ASSISTANT:
      {
        const char *text = str_member (wire, "content") != NULL ? str_member (wire, "content") : "";
        JsonArray *calls = json_object_has_member (wire, "tool_calls")
                           ? json_object_get_array_member (wire, "tool_calls") : NULL;
        guint n_calls = calls != NULL ? json_array_get_length (calls) : 0;

        if (!g_str_equal (role, "assistant"))
          return g_strdup_printf ("an assistant message was expected, not %s", role);
        if (g_strcmp0 (text, m->text) != 0)
          {
            g_autofree char *want = printable (m->text);
            g_autofree char *got = printable (text);

            return g_strdup_printf ("assistant text \"%s\" expected, \"%s\" sent", want, got);
          }
        if (n_calls != (m->calls != NULL ? m->calls->len : 0))
          return g_strdup_printf ("%u tool calls expected, %u sent", m->calls != NULL ? m->calls->len : 0, n_calls);
        for (guint i = 0; i < n_calls; i++)
          {
            OCall *want = g_ptr_array_index (m->calls, i);
            JsonObject *call = json_array_get_object_element (calls, i);
            JsonObject *function = json_object_get_object_member (call, "function");
            const char *args = function != NULL
                               ? json_object_get_string_member_with_default (function, "arguments", NULL) : NULL;

            if (g_strcmp0 (json_object_get_string_member_with_default (call, "id", NULL), want->id) != 0 ||
                function == NULL ||
                g_strcmp0 (json_object_get_string_member_with_default (function, "name", NULL), want->name) != 0 ||
                !args_equal (want, args))
              {
                g_autofree char *want_args = printable (want->args);
                g_autofree char *got_args = printable (args);

                return g_strdup_printf ("tool call %s %s(%s) expected, %s %s(%s) sent", want->id, want->name,
                                        want_args, json_object_get_string_member_with_default (call, "id", "?"),
                                        function != NULL
                                        ? json_object_get_string_member_with_default (function, "name", "?") : "?",
                                        got_args);
              }
          }
        return NULL;
      }
    case OMSG_TOOL:
      {
        const char *id = str_member (wire, "tool_call_id");
        const char *content = str_member (wire, "content");

        if (!g_str_equal (role, "tool") || g_strcmp0 (id, m->call_id) != 0)
          return g_strdup_printf ("the result of %s was expected, not a %s message (%s)", m->call_id, role,
                                  id != NULL ? id : "-");
        if (content == NULL)
          return g_strdup_printf ("the result of %s has no text", m->call_id);
        if (m->text == NULL)
          m->text = g_strdup (content);
        else if (!g_str_equal (m->text, content))
          {
            g_autofree char *want = printable (m->text);
            g_autofree char *got = printable (content);

            return g_strdup_printf ("the result of %s: \"%s\" expected, \"%s\" sent", m->call_id, want, got);
          }
        return NULL;
      }
    }
  g_assert_not_reached ();
}

static const char *
msg_kind_name (OMsg *m)
{
  switch (m->kind)
    {
    case OMSG_USER:
      return "user";
    case OMSG_SUMMARY:
      return "summary";
    case OMSG_ASSISTANT:
      return "assistant";
    case OMSG_TOOL:
      return "tool";
    }
  return "?";
}

static char *
describe_expected (GPtrArray *expected)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < expected->len; i++)
    {
      OMsg *m = g_ptr_array_index (expected, i);
      g_autofree char *text = printable (m->text);

      g_string_append_printf (out, "    %u %s \"%s\"%s%s\n", i, msg_kind_name (m), text,
                              m->files != NULL && m->files->len > 0 ? " +files" : "",
                              m->calls != NULL && m->calls->len > 0 ? " +calls" : "");
    }
  return g_string_free (out, FALSE);
}

static char *
describe_wire (JsonArray *messages)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autofree char *text = json_to_string (node, FALSE);

      if (strlen (text) > 200)
        text[200] = '\0';
      g_string_append_printf (out, "    %u %s\n", i, text);
    }
  return g_string_free (out, FALSE);
}

/* Whether the request's messages (after the system prompt) are @t's
 * expected ones; why not, if @why. Learns as it goes only when @learn. */
static gboolean
request_matches (OTurn      *t,
                 JsonArray  *messages,
                 gboolean    learn,
                 char      **why)
{
  g_autoptr(GPtrArray) expected = oracle_expected_request (t);
  guint first = 0;
  guint n = json_array_get_length (messages);

  if (n > 0 && g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (messages, 0),
                                                                      "role", ""), "system") == 0)
    first = 1;
  if (n - first != expected->len)
    {
      if (why != NULL)
        {
          g_autofree char *want = describe_expected (expected);
          g_autofree char *got = describe_wire (messages);

          *why = g_strdup_printf ("T%u's call should carry %u messages after the system prompt, it carries %u\n"
                                  "  expected:\n%s  sent:\n%s", t->n, expected->len, n - first, want, got);
        }
      return FALSE;
    }
  for (guint i = 0; i < expected->len; i++)
    {
      OMsg *m = g_ptr_array_index (expected, i);
      g_autofree char *saved = m->kind == OMSG_TOOL ? g_strdup (m->text) : NULL;
      g_autofree char *mismatch = match_msg (m, json_array_get_object_element (messages, first + i));

      if (!learn && m->kind == OMSG_TOOL && saved == NULL)
        g_clear_pointer (&m->text, g_free);
      if (mismatch != NULL)
        {
          if (why != NULL)
            {
              g_autofree char *want = describe_expected (expected);
              g_autofree char *got = describe_wire (messages);

              *why = g_strdup_printf ("T%u's call, message %u: %s\n  expected:\n%s  sent:\n%s", t->n, i, mismatch,
                                      want, got);
            }
          return FALSE;
        }
    }
  return TRUE;
}

/* What a request is, from its one user message: a title request
 * (docs/format.md §3.2), a compaction's summary request (docs/format.md §3.3), or a
 * turn's model call. */
char *
oracle_request_kind (const char *body)
{
  g_autoptr(JsonNode) node = json_from_string (body, NULL);
  JsonArray *messages;
  JsonObject *last;
  const char *content;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      !json_object_has_member (json_node_get_object (node), "messages"))
    return g_strdup ("other");
  messages = json_object_get_array_member (json_node_get_object (node), "messages");
  if (json_array_get_length (messages) == 0)
    return g_strdup ("turn");
  if (json_object_has_member (json_node_get_object (node), "tools"))
    return g_strdup ("turn");
  last = json_array_get_object_element (messages, json_array_get_length (messages) - 1);
  content = str_member (last, "content");
  if (content != NULL && g_str_has_prefix (content, "Write a title for the conversation below"))
    return g_strdup ("title");
  if (content != NULL && g_str_has_prefix (content, "Summarize the conversation below"))
    return g_strdup ("summary");
  return g_strdup ("turn");
}

void
oracle_response_free (OResponse *r)
{
  if (r == NULL)
    return;
  g_free (r->wire_text);
  g_clear_pointer (&r->wire_calls, g_ptr_array_unref);
  g_free (r->error_body);
  g_free (r->mismatch);
  g_free (r);
}

/* An answer's text as the server sends it (the body of a JSON string)
 * and as Natter must keep it: a NUL and a lone surrogate become U+FFFD,
 * control characters stay (docs/format.md §2, "Text a string cannot
 * hold"). */
static void
new_answer_text (Oracle   *o,
                 GString  *wire,
                 GString  *text,
                 gboolean  weird)
{
  guint n = ++o->next_text;
  guint words = g_rand_int_range (o->rand, 1, 5);

  g_string_append_printf (wire, "a%u", n);
  g_string_append_printf (text, "a%u", n);
  for (guint i = 0; i < words; i++)
    {
      const char *word = WORDS[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (WORDS))];

      g_string_append_c (wire, ' ');
      g_string_append_c (text, ' ');
      g_string_append (wire, word);
      g_string_append (text, word);
      if (weird && g_rand_int_range (o->rand, 0, 100) < 25)
        switch (g_rand_int_range (o->rand, 0, 5))
          {
          case 0:
            g_string_append (wire, "\\u0000");
            g_string_append (text, "\xef\xbf\xbd");
            break;
          case 1:
            g_string_append (wire, "\\ud800");
            g_string_append (text, "\xef\xbf\xbd");
            break;
          case 2:
            g_string_append (wire, "\\u001f");
            g_string_append_c (text, 0x1f);
            break;
          case 3:
            g_string_append (wire, "\\u0001\\n");
            g_string_append (text, "\x01\n");
            break;
          default:
            g_string_append (wire, "\\ud83d\\ude00");
            g_string_append (text, "\xf0\x9f\x98\x80");
            break;
          }
    }
}

static OCall *
new_wire_call (const char *id,
               const char *name,
               const char *args,
               gboolean    raw)
{
  OCall *c = g_new0 (OCall, 1);

  c->id = g_strdup (id);
  c->name = g_strdup (name);
  c->args = g_strdup (args);
  c->raw = raw;
  return c;
}

static char *
json_quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

/* Tool calls the model asks for (docs/runtime.md §7, §8): read_file
 * (needs permission, or a grant), ask_human (needs an answer), and
 * calls whose arguments do not parse, which are never run. */
static void
draw_tools (Oracle    *o,
            OTurn     *t,
            OResponse *r,
            gboolean   bad)
{
  guint n = g_rand_int_range (o->rand, 0, 100) < 25 ? 2 : 1;
  OMsg *m = new_msg (o, OMSG_ASSISTANT, "");

  m->calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  r->wire_calls = g_ptr_array_new_with_free_func ((GDestroyNotify) call_free);
  t->rounds++;
  for (guint i = 0; i < n; i++)
    {
      OToolCall *call = g_new0 (OToolCall, 1);
      g_autofree char *args = NULL;
      guint pick = g_rand_int_range (o->rand, 0, 100);

      call->id = g_strdup_printf ("call_%u", ++o->next_call);
      call->round = t->rounds;
      if (bad && i == 0)
        {
          call->kind = OCALL_BAD;
          call->name = g_strdup ("read_file");
          /* A lone surrogate, or text cut short: neither parses. */
          args = g_rand_boolean (o->rand) ? g_strdup ("{\"path\":\"\\ud800.txt\"}") : g_strdup ("{\"path\":");
        }
      else if (pick < 65)
        {
          g_autofree char *path = NULL;

          call->kind = OCALL_READ;
          call->name = g_strdup ("read_file");
          call->file = g_rand_int_range (o->rand, 0, 100) < 80
                       ? g_ptr_array_index (o->read_files, g_rand_int_range (o->rand, 0, o->read_files->len))
                       : NULL;
          path = json_quote (call->file != NULL ? call->file->path : o->missing_path);
          args = g_strdup_printf ("{\"path\":%s}", path);
        }
      else
        {
          g_autofree char *question = NULL;

          call->kind = OCALL_ASK;
          call->name = g_strdup ("ask_human");
          call->question = g_strdup_printf ("q%u which %s?", ++o->next_text,
                                            WORDS[g_rand_int_range (o->rand, 0, G_N_ELEMENTS (WORDS))]);
          question = json_quote (call->question);
          args = g_strdup_printf ("{\"question\":%s}", question);
        }
      g_ptr_array_add (m->calls, new_wire_call (call->id, call->name, args, call->kind == OCALL_BAD));
      g_ptr_array_add (r->wire_calls, new_wire_call (call->id, call->name, args, call->kind == OCALL_BAD));
      g_ptr_array_add (t->calls, call);
    }
  g_ptr_array_add (t->own, m);
  t->open_call = FALSE;

  for (guint i = 0; i < t->calls->len; i++)
    {
      OToolCall *call = g_ptr_array_index (t->calls, i);

      if (call->round != t->rounds)
        continue;
      switch (call->kind)
        {
        case OCALL_BAD:
          call->state = OC_ERROR;
          call->result = tool_msg (o, call, NULL);
          break;
        case OCALL_READ:
          /* docs/format.md §3.4: a granted tool runs at once. */
          if (has_grant (t->owner, ORACLE_READ_FILE_ID))
            run_read (o, call);
          else
            call->state = OC_AWAIT_PERMISSION;
          break;
        case OCALL_ASK:
          call->state = OC_AWAIT_ANSWER;
          break;
        }
      oracle_log (o, "  server: T%u asks %s %s", t->n, call->id, call->name);
    }
  settle_round (o, t);
}

static OSession *
title_session (Oracle     *o,
               const char *body)
{
  OSession *found = NULL;

  for (guint i = 0; i < o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (o->sessions, i);
      OTurn *first = s->own->len > 0 ? g_ptr_array_index (s->own, 0) : NULL;

      if (!s->title_wanted)
        continue;
      if (found == NULL)
        found = s;
      if (first != NULL && strstr (body, first->input->text) != NULL)
        return s;
    }
  return found;
}

static guint
n_held (Oracle *o)
{
  guint n = 0;

  for (guint i = 0; i < o->turns->len; i++)
    n += ((OTurn *) g_ptr_array_index (o->turns, i))->status == OT_HELD;
  return n;
}

OResponse *
oracle_answer_request (Oracle     *o,
                       const char *body,
                       gboolean    child_running)
{
  OResponse *r = g_new0 (OResponse, 1);
  g_autofree char *kind = oracle_request_kind (body);
  g_autoptr(JsonNode) node = json_from_string (body, NULL);
  g_autoptr(GPtrArray) waiting = NULL;
  JsonArray *messages;
  OTurn *t = NULL;
  guint pick;
  gboolean child;

  if (g_str_equal (kind, "title"))
    {
      OSession *s = title_session (o, body);

      o->n_title_requests++;
      r->kind = ORESP_TITLE;
      r->wire_text = g_strdup_printf ("Oracle title %u", ++o->next_title);
      if (s == NULL)
        {
          r->mismatch = g_strdup ("a title request nobody expected");
          r->mismatch_kind = "title";
          return r;
        }
      g_free (s->title);
      s->title = g_strdup (r->wire_text);
      s->title_kind = OTITLE_AUTO;
      s->title_wanted = FALSE;
      for (guint i = 0; i < s->own->len; i++)
        s->title_in_child |= ((OTurn *) g_ptr_array_index (s->own, i))->in_child;
      oracle_log (o, "  server: title of S%u: %s", s->n, s->title);
      return r;
    }
  if (g_str_equal (kind, "summary"))
    {
      OSession *s = o->compacting;

      o->n_summary_requests++;
      r->kind = ORESP_SUMMARY;
      r->wire_text = g_strdup_printf ("Summary %u of the earlier talk.", ++o->next_summary);
      if (s == NULL)
        {
          r->mismatch = g_strdup ("a summary request nobody expected");
          r->mismatch_kind = "unexpected-request";
          return r;
        }
      else
        {
          g_autoptr(GPtrArray) chain = compactable_chain (s);
          OTurn *last = g_ptr_array_index (chain, chain->len - o->compact_keep - 1);
          g_autofree char *token = g_strndup (last->input->text, strcspn (last->input->text, " "));

          /* The summarizer quotes the transcript before the kept turns
           * (docs/sessions.md §5): the last summarized message is in it. */
          if (strstr (body, token) == NULL)
            {
              r->mismatch = g_strdup_printf ("the summary request of S%u does not quote T%u (%s)", s->n, last->n,
                                             token);
              r->mismatch_kind = "transcript";
            }
        }
      compaction_made (o, s, o->compact_keep, r->wire_text);
      o->compacting = NULL;
      if (o->deferred_input != NULL)
        {
          t = make_turn (o, s, o->deferred_input, 0);
          t->in_child = o->deferred_in_child;
          o->deferred_input = NULL;
          move_queue (o, o->deferred_queue_from, s);
          o->deferred_queue_from = NULL;
        }
      return r;
    }

  o->n_model_calls++;
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node) ||
      !json_object_has_member (json_node_get_object (node), "messages"))
    {
      r->kind = ORESP_UNEXPECTED;
      r->mismatch = g_strdup ("a request without messages");
      r->mismatch_kind = "unexpected-request";
      return r;
    }
  messages = json_object_get_array_member (json_node_get_object (node), "messages");
  waiting = oracle_waiting_turns (o);
  if (waiting->len == 0)
    {
      g_autofree char *got = describe_wire (messages);
      JsonObject *last = json_array_get_length (messages) > 0
                         ? json_array_get_object_element (messages, json_array_get_length (messages) - 1) : NULL;
      g_autoptr(GPtrArray) texts = last != NULL ? wire_user_texts (last) : NULL;
      const char *text = texts != NULL && texts->len > 0 ? g_ptr_array_index (texts, 0) : NULL;

      r->kind = ORESP_UNEXPECTED;
      r->mismatch = g_strdup_printf ("a model call no turn was waiting for:\n%s", got);
      r->mismatch_kind = "unexpected-request";
      /* The call of a turn of an imported conversation that ran on
       * where the model says it waits (a grant of the archive at work). */
      for (guint i = json_array_get_length (messages); i > 0; i--)
        {
          JsonObject *m = json_array_get_object_element (messages, i - 1);
          g_autoptr(GPtrArray) user = NULL;

          if (g_strcmp0 (str_member (m, "role"), "user") != 0)
            continue;
          user = wire_user_texts (m);
          for (guint j = 0; user->len > 0 && j < o->turns->len; j++)
            {
              OTurn *u = g_ptr_array_index (o->turns, j);

              if (u->owner->imported && g_strcmp0 (u->input->text, g_ptr_array_index (user, 0)) == 0)
                {
                  r->mismatch_kind = "import";
                  g_free (r->mismatch);
                  r->mismatch = g_strdup_printf ("T%u of S%u, imported, calls the model where it should wait:\n%s",
                                                 u->n, u->owner->n, got);
                  r->mismatch_session = u->owner;
                }
            }
          break;
        }
      /* A queued message an archive carried, sent in the conversation
       * imported from it (docs/format.md §7.1). */
      for (guint i = 0; i < o->sessions->len && text != NULL; i++)
        {
          OSession *s = g_ptr_array_index (o->sessions, i);

          for (guint j = 0; s->not_imported != NULL && j < s->not_imported->len; j++)
            if (g_strcmp0 (((OMsg *) g_ptr_array_index (s->not_imported, j))->text, text) == 0)
              {
                r->mismatch_kind = "import";
                g_free (r->mismatch);
                r->mismatch = g_strdup_printf ("S%u, imported, sends the queued message \"%s\" of its archive",
                                               s->n, text);
                r->mismatch_session = s;
              }
        }
      return r;
    }
  for (guint i = 0; i < waiting->len && t == NULL; i++)
    if (request_matches (g_ptr_array_index (waiting, i), messages, FALSE, NULL))
      t = g_ptr_array_index (waiting, i);
  if (t == NULL)
    t = g_ptr_array_index (waiting, 0);
  if (!request_matches (t, messages, TRUE, &r->mismatch))
    {
      /* What an imported conversation (or one made from it) is sent
       * follows the rules of import (docs/format.md §7.1). */
      r->mismatch_kind = oracle_from_import (t->owner) ? "import" : "transcript";
      r->mismatch_session = t->owner;
    }
  else if ((r->mismatch = oracle_check_request_params (t, json_node_get_object (node))) != NULL)
    {
      r->mismatch_kind = oracle_from_import (t->owner) ? "import" : "parameters";
      r->mismatch_session = t->owner;
    }

  r->turn = t;
  t->n_calls++;
  t->open_call = TRUE;
  child = t->in_child;
  pick = g_rand_int_range (o->rand, 0, 100);
  if (t->rounds >= MAX_ROUNDS)
    pick = pick < 70 ? 0 : pick < 85 ? 80 : 90;
  if (pick >= 88 && n_held (o) >= o->max_held)
    pick = 0;

  if (pick < 45)
    {
      g_autoptr(GString) wire = g_string_new (NULL);
      g_autoptr(GString) text = g_string_new (NULL);
      OMsg *m;

      r->kind = ORESP_ANSWER;
      new_answer_text (o, wire, text, o->weird_text);
      r->wire_text = g_string_free (g_steal_pointer (&wire), FALSE);
      m = new_msg (o, OMSG_ASSISTANT, text->str);
      g_ptr_array_add (t->own, m);
      g_free (t->answer);
      t->answer = g_strdup (text->str);
      t->open_call = FALSE;
      oracle_log (o, "  server: T%u call %u answered", t->n, t->n_calls);
      completed (o, t);
    }
  else if (pick < 75)
    {
      r->kind = ORESP_TOOLS;
      draw_tools (o, t, r, pick >= 70);
    }
  else if (pick < 88)
    {
      r->kind = ORESP_FAIL;
      r->overflow = g_rand_boolean (o->rand);
      r->error_body = g_strdup (r->overflow
                                ? "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens; "
                                  "reduce the length of the messages.\",\"code\":\"context_length_exceeded\"}}"
                                : "{\"error\":{\"message\":\"the model is down\"}}");
      t->open_call = FALSE;
      t->status = OT_FAILED;
      oracle_log (o, "  server: T%u call %u fails", t->n, t->n_calls);
    }
  else
    {
      g_autoptr(GString) wire = g_string_new (NULL);
      g_autoptr(GString) text = g_string_new (NULL);

      r->kind = ORESP_HOLD;
      new_answer_text (o, wire, text, FALSE);
      r->wire_text = g_string_free (g_steal_pointer (&wire), FALSE);
      g_free (t->answer);
      t->answer = g_strdup (text->str);
      t->status = OT_HELD;
      oracle_log (o, "  server: T%u call %u streams and holds%s", t->n, t->n_calls,
                  child ? " (the process will be killed)" : "");
    }
  (void) child_running;
  return r;
}

/* The held call's stream ends with the rest of the answer. */
void
oracle_release (Oracle *o,
                OTurn  *t)
{
  OMsg *m = new_msg (o, OMSG_ASSISTANT, t->answer);

  g_ptr_array_add (t->own, m);
  t->open_call = FALSE;
  t->held_index = -1;
  oracle_log (o, "  model: T%u's stream ends", t->n);
  completed (o, t);
}
