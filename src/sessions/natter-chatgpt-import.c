/* natter-chatgpt-import.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ChatGPT's data export (`conversations.json`) as import plans: one
 * session per conversation, its main branch as turns. ChatGPT keeps a
 * conversation as a tree of messages (`mapping`, each node naming its
 * `parent`) and the message the person last saw (`current_node`); the
 * branch shown is the path from that node up to the root.
 *
 * An imported turn must read (and be continued) like any other, but no
 * model was called here. It is written with the events every reader
 * already knows — the answer as the completed response of model call 0
 * and the turn's output — marked so nobody takes it for a call Natter
 * made: `config.imported` says where it came from, `finishReason` is
 * "imported", the usage is empty and the model is `{provider: "chatgpt",
 * model: <ChatGPT's model slug>}` (docs/format.md §7.2).
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-clock.h"
#include "natter-session-archive.h"
#include "natter-session-error.h"
#include "natter-session-schema.h"
#include "natter-sessions.h"
#include "natter-turn-schema.h"

#define IMPORTED_AGENT "imported"
#define IMPORTED_PROVIDER "chatgpt"

typedef struct
{
  char    *node_id;
  char    *text;
  char    *ts;
  GString *answer;
  char    *answer_ts;
  char    *model;
} Exchange;

static void
exchange_free (Exchange *exchange)
{
  g_free (exchange->node_id);
  g_free (exchange->text);
  g_free (exchange->ts);
  if (exchange->answer != NULL)
    g_string_free (exchange->answer, TRUE);
  g_free (exchange->answer_ts);
  g_free (exchange->model);
  g_free (exchange);
}

static gboolean G_GNUC_PRINTF (3, 4)
fail (GError     **error,
      guint        conversation,
      const char  *format,
      ...)
{
  va_list args;
  g_autofree char *message = NULL;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
               _("Conversation %u: %s"), conversation, message);
  return FALSE;
}

/* ChatGPT's times are seconds since the epoch as a float (or null). */
static char *
chatgpt_ts (JsonObject *object,
            const char *member,
            const char *fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == G_TYPE_DOUBLE || json_node_get_value_type (node) == G_TYPE_INT64))
    {
      double seconds = json_node_get_double (node);

      if (seconds > 0 && seconds < 253402300799.0)
        return natter_format_ts ((gint64) (seconds * G_USEC_PER_SEC));
    }
  return g_strdup (fallback);
}

static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* The text of a message: its string parts, one per paragraph. Parts that
 * are not text (images, files) are not brought over. */
static char *
message_text (JsonObject *message)
{
  JsonObject *content = object_member (message, "content");
  JsonNode *parts = content != NULL ? json_object_get_member (content, "parts") : NULL;
  const char *type = content != NULL ? json_object_get_string_member_with_default (content, "content_type", "") : "";
  GString *text = g_string_new (NULL);

  if ((g_str_equal (type, "text") || g_str_equal (type, "multimodal_text")) &&
      parts != NULL && JSON_NODE_HOLDS_ARRAY (parts))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (parts)); i++)
      {
        JsonNode *part = json_array_get_element (json_node_get_array (parts), i);

        if (JSON_NODE_HOLDS_VALUE (part) && json_node_get_value_type (part) == G_TYPE_STRING &&
            json_node_get_string (part)[0] != '\0')
          g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "", json_node_get_string (part));
      }
  return g_string_free (text, FALSE);
}

/* The main branch: from current_node up to the root, then reversed. */
static GPtrArray *
main_branch (JsonObject  *conversation,
             guint        number,
             GError     **error)
{
  JsonObject *mapping = object_member (conversation, "mapping");
  const char *node_id = json_object_get_string_member_with_default (conversation, "current_node", NULL);
  g_autoptr(GPtrArray) path = g_ptr_array_new ();

  if (mapping == NULL || node_id == NULL)
    {
      fail (error, number, _("it has no “mapping” or no “current_node”"));
      return NULL;
    }
  while (node_id != NULL)
    {
      JsonObject *node = object_member (mapping, node_id);

      if (node == NULL)
        {
          fail (error, number, _("message %s is not in its “mapping”"), node_id);
          return NULL;
        }
      if (path->len > json_object_get_size (mapping))
        {
          fail (error, number, _("its messages are their own parents"));
          return NULL;
        }
      g_ptr_array_insert (path, 0, node);
      node_id = json_object_get_string_member_with_default (node, "parent", NULL);
    }
  return g_steal_pointer (&path);
}

/* The exchanges of the branch: each user message with the answers that
 * follow it. What comes before the first user message (a custom GPT's
 * greeting, the hidden system message) has no turn to belong to. */
static GPtrArray *
exchanges_of (GPtrArray  *path,
              const char *fallback_ts)
{
  GPtrArray *exchanges = g_ptr_array_new_with_free_func ((GDestroyNotify) exchange_free);

  for (guint i = 0; i < path->len; i++)
    {
      JsonObject *message = object_member (g_ptr_array_index (path, i), "message");
      JsonObject *metadata = object_member (message, "metadata");
      const char *role = object_member (message, "author") != NULL
                         ? json_object_get_string_member_with_default (object_member (message, "author"), "role", "")
                         : "";
      g_autofree char *text = NULL;
      Exchange *last = exchanges->len > 0 ? g_ptr_array_index (exchanges, exchanges->len - 1) : NULL;

      if (message == NULL ||
          (metadata != NULL && json_object_get_boolean_member_with_default (metadata, "is_visually_hidden_from_conversation", FALSE)))
        continue;
      text = message_text (message);
      if (text[0] == '\0')
        continue;
      if (g_str_equal (role, "user"))
        {
          Exchange *exchange = g_new0 (Exchange, 1);

          exchange->node_id = g_strdup (json_object_get_string_member_with_default (message, "id", ""));
          exchange->text = g_steal_pointer (&text);
          exchange->ts = chatgpt_ts (message, "create_time", last != NULL && last->answer_ts != NULL ? last->answer_ts
                                                                                                   : fallback_ts);
          g_ptr_array_add (exchanges, exchange);
        }
      else if (g_str_equal (role, "assistant") && last != NULL)
        {
          if (last->answer == NULL)
            last->answer = g_string_new (NULL);
          g_string_append_printf (last->answer, "%s%s", last->answer->len > 0 ? "\n\n" : "", text);
          g_free (last->answer_ts);
          last->answer_ts = chatgpt_ts (message, "create_time", last->ts);
          if (metadata != NULL && json_object_get_string_member_with_default (metadata, "model_slug", NULL) != NULL)
            {
              g_free (last->model);
              last->model = g_strdup (json_object_get_string_member (metadata, "model_slug"));
            }
        }
    }
  return exchanges;
}

static JsonObject *
text_message (const char *role,
              const char *text)
{
  JsonObject *message = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *part = json_object_new ();

  json_object_set_string_member (part, "type", "text");
  json_object_set_string_member (part, "text", text);
  json_array_add_object_element (content, part);
  json_object_set_string_member (message, "role", role);
  if (g_str_equal (role, "user"))
    {
      json_object_set_string_member (message, "content", text);
      json_array_unref (content);
    }
  else
    json_object_set_array_member (message, "content", content);
  return message;
}

static JsonObject *
turn_definition (const char *session_id,
                 const char *previous,
                 const char *conversation_id,
                 Exchange   *exchange)
{
  JsonObject *created = json_object_new ();
  JsonObject *agent = json_object_new ();
  JsonObject *requested = json_object_new ();
  JsonObject *resolved = json_object_new ();
  JsonObject *model = json_object_new ();
  JsonObject *config = json_object_new ();
  JsonObject *imported = json_object_new ();

  json_object_set_string_member (requested, "agentId", IMPORTED_AGENT);
  json_object_set_string_member (model, "provider", IMPORTED_PROVIDER);
  json_object_set_string_member (model, "model", exchange->model != NULL ? exchange->model : "unknown");
  json_object_set_string_member (resolved, "agentId", IMPORTED_AGENT);
  json_object_set_object_member (resolved, "model", model);
  json_object_set_string_member (resolved, "systemPrompt", "");
  json_object_set_array_member (resolved, "tools", json_array_new ());
  json_object_set_object_member (agent, "requested", requested);
  json_object_set_object_member (agent, "resolved", resolved);

  json_object_set_string_member (imported, "from", "chatgpt");
  json_object_set_string_member (imported, "conversationId", conversation_id);
  json_object_set_string_member (imported, "messageId", exchange->node_id);
  json_object_set_boolean_member (config, "autoPermission", FALSE);
  json_object_set_boolean_member (config, "humanAvailable", FALSE);
  json_object_set_int_member (config, "maxModelCalls", 1);
  json_object_set_object_member (config, "imported", imported);

  json_object_set_int_member (created, "schemaVersion", 1);
  json_object_set_string_member (created, "sessionId", session_id);
  json_object_set_object_member (created, "agent", agent);
  if (previous != NULL)
    {
      JsonObject *context = json_object_new ();

      json_object_set_string_member (context, "previousTurnId", previous);
      json_object_set_object_member (created, "context", context);
    }
  else
    json_object_set_array_member (created, "context", json_array_new ());
  json_object_set_object_member (created, "input", text_message ("user", exchange->text));
  json_object_set_object_member (created, "config", config);
  return created;
}

static JsonNode *
turn_event (const char *type,
            const char *turn_id,
            const char *ts)
{
  return natter_turn_event_new (type, turn_id, ts);
}

/* Fills @events with the turn of @exchange. */
static void
exchange_events (GPtrArray  *events,
                 const char *turn_id,
                 const char *session_id,
                 const char *previous,
                 const char *conversation_id,
                 Exchange   *exchange)
{
  JsonNode *created = turn_event ("turn_created", turn_id, exchange->ts);
  g_autoptr(JsonObject) definition = turn_definition (session_id, previous, conversation_id, exchange);
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  json_object_iter_init (&iter, definition);
  while (json_object_iter_next (&iter, &member, &value))
    json_object_set_member (json_node_get_object (created), member, json_node_ref (value));
  g_ptr_array_add (events, created);

  if (exchange->answer != NULL)
    {
      JsonNode *requested = turn_event ("model_call_requested", turn_id, exchange->ts);
      JsonNode *completed = turn_event ("model_call_completed", turn_id, exchange->answer_ts);
      JsonNode *done = turn_event ("turn_completed", turn_id, exchange->answer_ts);
      JsonObject *request = json_object_new ();
      JsonArray *messages = json_array_new ();

      json_array_add_string_element (messages, "input");
      json_object_set_array_member (request, "messages", messages);
      json_object_set_object_member (request, "parameters", json_object_new ());
      if (previous != NULL)
        {
          JsonObject *ref = json_object_new ();

          json_object_set_string_member (ref, "previousTurnId", previous);
          json_object_set_object_member (request, "contextRef", ref);
        }
      json_object_set_int_member (json_node_get_object (requested), "modelCallIndex", 0);
      json_object_set_object_member (json_node_get_object (requested), "request", request);
      json_object_set_int_member (json_node_get_object (completed), "modelCallIndex", 0);
      json_object_set_object_member (json_node_get_object (completed), "message",
                                     text_message ("assistant", exchange->answer->str));
      json_object_set_string_member (json_node_get_object (completed), "finishReason", "imported");
      json_object_set_object_member (json_node_get_object (completed), "usage", json_object_new ());
      json_object_set_object_member (json_node_get_object (done), "output",
                                     text_message ("assistant", exchange->answer->str));
      json_object_set_string_member (json_node_get_object (done), "finishReason", "imported");
      json_object_set_object_member (json_node_get_object (done), "usage", json_object_new ());
      g_ptr_array_add (events, requested);
      g_ptr_array_add (events, completed);
      g_ptr_array_add (events, done);
    }
  else
    {
      /* The export ends with a question that has no answer: the turn
       * says so and stays continuable, as a failed turn is. */
      JsonNode *failed = turn_event ("turn_failed", turn_id, exchange->ts);

      json_object_set_string_member (json_node_get_object (failed), "error",
                                     "The imported conversation has no answer to this message");
      json_object_set_string_member (json_node_get_object (failed), "code", "imported-unanswered");
      json_object_set_object_member (json_node_get_object (failed), "usage", json_object_new ());
      g_ptr_array_add (events, failed);
    }
}

/* Placeholder ids, valid and unique within one import; every one is
 * replaced by a fresh id before anything is written. */
static char *
placeholder_id (guint *counter)
{
  return g_strdup_printf ("2000-01-01T00-00-00Z-%07u-000", ++*counter);
}

static NatterImportPlan *
plan_conversation (JsonObject  *conversation,
                   guint        number,
                   guint       *counter,
                   GError     **error)
{
  g_autoptr(GPtrArray) path = main_branch (conversation, number, error);
  g_autoptr(GPtrArray) exchanges = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *created_ts = NULL;
  g_autofree char *now = natter_format_ts (g_get_real_time ());
  g_autoptr(NatterImportPlan) plan = NULL;
  g_autofree char *previous = NULL;
  g_autofree char *title = NULL;
  const char *conversation_id;

  if (path == NULL)
    return NULL;
  created_ts = chatgpt_ts (conversation, "create_time", now);
  exchanges = exchanges_of (path, created_ts);
  conversation_id = json_object_get_string_member_with_default (conversation, "conversation_id",
                                                                json_object_get_string_member_with_default (conversation, "id", ""));
  title = g_strdup (json_object_get_string_member_with_default (conversation, "title", NULL));
  if (title == NULL && exchanges->len > 0)
    {
      g_autoptr(JsonObject) first = text_message ("user", ((Exchange *) g_ptr_array_index (exchanges, 0))->text);

      title = natter_derive_session_title (first);
    }

  session_id = placeholder_id (counter);
  plan = natter_import_plan_new (session_id);
  g_ptr_array_add (plan->session_events,
                   natter_session_event_new_created (session_id, created_ts, title, NULL, NULL, NULL));
  for (guint i = 0; i < exchanges->len; i++)
    {
      Exchange *exchange = g_ptr_array_index (exchanges, i);
      g_autofree char *turn_id = placeholder_id (counter);
      g_autoptr(JsonObject) model = json_object_new ();

      exchange_events (natter_import_plan_add_turn (plan, turn_id), turn_id, session_id, previous,
                       conversation_id, exchange);
      json_object_set_string_member (model, "provider", IMPORTED_PROVIDER);
      json_object_set_string_member (model, "model", exchange->model != NULL ? exchange->model : "unknown");
      g_ptr_array_add (plan->session_events,
                       natter_session_event_new_turn_appended (session_id, exchange->ts, turn_id, (gint64) i + 1,
                                                               IMPORTED_AGENT, model));
      g_free (previous);
      previous = g_steal_pointer (&turn_id);
    }
  if (!natter_import_plan_check (plan, NULL, NULL, error))
    {
      g_prefix_error (error, _("Conversation %u: "), number);
      return NULL;
    }
  return g_steal_pointer (&plan);
}

/**
 * natter_chatgpt_plan_import:
 * @root: the parsed `conversations.json` of a ChatGPT data export
 * @error: return location for a #GError
 *
 * One import plan per conversation of @root, in its order: the main
 * branch (from `current_node` up through each message's `parent`) as
 * turns, one per user message with the assistant messages that follow it
 * as its answer; the title and times kept. Messages with no text (tool
 * traffic, hidden system messages, images) are left out, and so is what
 * comes before the first user message. The plans still have placeholder
 * ids (natter_import_plan_remap()).
 *
 * Returns: (transfer full) (element-type NatterImportPlan) (nullable):
 *   the plans, or %NULL with %NATTER_SESSION_ERROR_INVALID_ARCHIVE naming
 *   the first conversation that cannot be read, and why
 */
GPtrArray *
natter_chatgpt_plan_import (JsonNode  *root,
                            GError   **error)
{
  g_autoptr(GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_import_plan_free);
  JsonArray *conversations;
  guint counter = 0;

  g_return_val_if_fail (root != NULL, NULL);

  if (!JSON_NODE_HOLDS_ARRAY (root))
    {
      g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                           _("This is not a ChatGPT conversations.json: it is not a list of conversations"));
      return NULL;
    }
  conversations = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (conversations); i++)
    {
      JsonNode *element = json_array_get_element (conversations, i);
      NatterImportPlan *plan;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          fail (error, i + 1, _("it is not a JSON object"));
          return NULL;
        }
      plan = plan_conversation (json_node_get_object (element), i + 1, &counter, error);
      if (plan == NULL)
        return NULL;
      g_ptr_array_add (plans, plan);
    }
  return g_steal_pointer (&plans);
}
