/* natter-chatgpt-import.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One conversation of ChatGPT's data export (`conversations.json`) as
 * import plans. ChatGPT keeps a conversation as a tree of messages
 * (`mapping`, each node naming its `parent`) and the message the person
 * last saw (`current_node`). The path from the root to that node becomes
 * the conversation; every other branch of the tree (an answer
 * regenerated, a message edited) becomes a version of its message, the
 * way an edit makes one here: a session with `parentSession` and
 * `forkedFromTurnId` at the turn before the message (docs/format.md
 * §3.2), so nothing the person saw in ChatGPT is left behind.
 *
 * On a branch, each message the person wrote starts a turn, and what the
 * assistant said to them after it (messages addressed to `all`) is the
 * answer: a piece that continues one cut off at the token limit
 * ("Continue generating") is joined to it without a break. Messages the
 * assistant addressed to a tool, and the tools' own output, are not the
 * conversation and stay out; an image (the person's, or one a tool
 * made) is not in `conversations.json`, so a placeholder names it where
 * it was.
 *
 * An imported turn must read (and be continued) like any other, but no
 * model was called here. It is written with the events every reader
 * already knows — the answer as the completed response of model call 0
 * and the turn's output — marked so nobody takes it for a call Natter
 * made: `config.imported` says where it came from, `finishReason` is
 * "imported", the usage is empty and the agent and model are labels
 * (docs/format.md §7.2).
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-chatgpt-import.h"
#include "natter-clock.h"
#include "natter-plain-text.h"
#include "natter-session-default-title.h"
#include "natter-session-error.h"
#include "natter-session-schema.h"
#include "natter-turn-schema.h"
#include "natter-store-error.h"

/* One node of the message tree. */
typedef struct
{
  const char *id;
  JsonObject *message;      /* nullable: the root often has none */
  const char *parent;       /* nullable */
  GPtrArray  *children;     /* Node*, in the order of the mapping */
  guint       order;        /* position in the mapping */
} Node;

static void
node_free (Node *node)
{
  g_ptr_array_unref (node->children);
  g_free (node);
}

/* One message the person wrote and what was said to them after it. */
typedef struct
{
  const char *user_id;      /* the node of the person's message */
  const char *last_id;      /* the last node that gave the exchange something */
  char       *text;
  char       *ts;
  GString    *answer;
  gboolean    answer_cut;   /* the last piece stopped at the token limit */
  char       *answer_ts;
  const char *model;
  guint       n_images;
} Exchange;

static void
exchange_free (Exchange *exchange)
{
  g_free (exchange->text);
  g_free (exchange->ts);
  if (exchange->answer != NULL)
    g_string_free (exchange->answer, TRUE);
  g_free (exchange->answer_ts);
  g_free (exchange);
}

/* A turn already planned, by the last node of its exchange. */
typedef struct
{
  char             *turn_id;
  NatterImportPlan *owner;
} TurnRef;

static void
turn_ref_free (TurnRef *ref)
{
  g_free (ref->turn_id);
  g_free (ref);
}

/* An export that is not what ChatGPT writes. */
#define fail(error, ...) \
  natter_set_error_false ((error), NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE, __VA_ARGS__)

static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* A string member, or NULL when absent, null or of another type. */
static const char *
string_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
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

static double
create_time (JsonObject *message)
{
  JsonNode *node = message != NULL ? json_object_get_member (message, "create_time") : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
      (json_node_get_value_type (node) == G_TYPE_DOUBLE || json_node_get_value_type (node) == G_TYPE_INT64))
    return json_node_get_double (node);
  return 0;
}

/**
 * natter_chatgpt_conversation_get_id:
 * @conversation: a conversation of `conversations.json`
 *
 * Returns: (transfer none) (nullable): ChatGPT's id of it
 *   (`conversation_id`, else `id`)
 */
const char *
natter_chatgpt_conversation_get_id (JsonObject *conversation)
{
  const char *id = string_member (conversation, "conversation_id");

  return id != NULL ? id : string_member (conversation, "id");
}

/**
 * natter_chatgpt_conversation_dup_created_at:
 * @conversation: a conversation of `conversations.json`
 *
 * Returns: (transfer full) (nullable): the `session_created.ts` its
 *   import gets (its `create_time`), or %NULL when it has none
 */
char *
natter_chatgpt_conversation_dup_created_at (JsonObject *conversation)
{
  return chatgpt_ts (conversation, "create_time", NULL);
}

/**
 * natter_chatgpt_conversation_dup_name:
 * @conversation: (nullable): a conversation of `conversations.json`, or
 *   %NULL when it is not an object
 * @number: its position in the file, from 1
 *
 * Returns: (transfer full): how a message names it: "Conversation 3" or
 *   "Conversation 3 (“Trip planning”)"
 */
char *
natter_chatgpt_conversation_dup_name (JsonObject *conversation,
                                      guint       number)
{
  const char *title = string_member (conversation, "title");

  if (title == NULL || title[0] == '\0')
    /* Translators: %u is the position of a conversation in a file */
    return g_strdup_printf (_("Conversation %u"), number);
  /* Translators: %u is the position of a conversation in a file, %s its title */
  return g_strdup_printf (_("Conversation %u (“%s”)"), number, title);
}

/* The message tree */

/* The nodes of the mapping, by id, each with its children. */
static GHashTable *
read_tree (JsonObject  *mapping,
           GError     **error)
{
  g_autoptr(GHashTable) nodes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) node_free);
  g_autoptr(GList) members = json_object_get_members (mapping);
  guint order = 0;

  for (GList *l = members; l != NULL; l = l->next)
    {
      JsonObject *value = object_member (mapping, l->data);
      JsonNode *parent = value != NULL ? json_object_get_member (value, "parent") : NULL;
      Node *node;

      if (value == NULL)
        {
          fail (error, _("message %s is not a JSON object"), (const char *) l->data);
          return NULL;
        }
      if (parent != NULL && !JSON_NODE_HOLDS_NULL (parent) && string_member (value, "parent") == NULL)
        {
          fail (error, _("the parent of message %s is not a message id"), (const char *) l->data);
          return NULL;
        }
      node = g_new0 (Node, 1);
      node->id = l->data;
      node->message = object_member (value, "message");
      node->parent = string_member (value, "parent");
      node->children = g_ptr_array_new ();
      node->order = order++;
      g_hash_table_insert (nodes, (gpointer) node->id, node);
    }
  for (GList *l = members; l != NULL; l = l->next)
    {
      Node *node = g_hash_table_lookup (nodes, l->data);
      Node *parent;

      if (node->parent == NULL)
        continue;
      parent = g_hash_table_lookup (nodes, node->parent);
      if (parent == NULL)
        {
          fail (error, _("message %s is not in its “mapping”"), node->parent);
          return NULL;
        }
      g_ptr_array_add (parent->children, node);
    }
  return g_steal_pointer (&nodes);
}

/* The path from the root to @node_id. */
static GPtrArray *
path_to (GHashTable  *nodes,
         const char  *node_id,
         GError     **error)
{
  g_autoptr(GPtrArray) path = g_ptr_array_new ();

  while (node_id != NULL)
    {
      Node *node = g_hash_table_lookup (nodes, node_id);

      if (node == NULL)
        {
          fail (error, _("message %s is not in its “mapping”"), node_id);
          return NULL;
        }
      if (path->len >= g_hash_table_size (nodes))
        {
          fail (error, _("its messages are their own parents"));
          return NULL;
        }
      g_ptr_array_add (path, node);
      node_id = node->parent;
    }
  /* Root first. */
  for (guint i = 0; i < path->len / 2; i++)
    {
      gpointer swap = path->pdata[i];

      path->pdata[i] = path->pdata[path->len - 1 - i];
      path->pdata[path->len - 1 - i] = swap;
    }
  return g_steal_pointer (&path);
}

static int
compare_leaves (gconstpointer a,
                gconstpointer b)
{
  const Node *x = *(const Node * const *) a;
  const Node *y = *(const Node * const *) b;
  double tx = create_time (x->message);
  double ty = create_time (y->message);

  if (tx != ty)
    return tx < ty ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

/* Every leaf of the tree but @current, oldest first: the ends of the
 * other branches. */
static GPtrArray *
other_leaves (GHashTable *nodes,
              const char *current)
{
  GPtrArray *leaves = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, nodes);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Node *node = value;

      if (node->children->len == 0 && !g_str_equal (node->id, current))
        g_ptr_array_add (leaves, node);
    }
  g_ptr_array_sort (leaves, compare_leaves);
  return leaves;
}

/* Messages */

/* The placeholder for a file the export only points to: its name in
 * the export's folder (`file-service://file-…` → `file-…`). */
static void
append_placeholder (GString    *text,
                    JsonObject *part,
                    guint      *n_images)
{
  const char *pointer = string_member (part, "asset_pointer");
  const char *name = pointer != NULL && strstr (pointer, "://") != NULL ? strstr (pointer, "://") + 3 : pointer;
  const char *type = string_member (part, "content_type");

  if (text->len > 0)
    g_string_append (text, "\n\n");
  if (g_strcmp0 (type, "image_asset_pointer") == 0)
    g_string_append_printf (text, "[image: %s]", name != NULL && name[0] != '\0' ? name : "not in the export");
  else
    g_string_append_printf (text, "[attachment: %s]", name != NULL && name[0] != '\0' ? name : "not in the export");
  (*n_images)++;
}

/* What a message says: its text parts, one per paragraph, with a
 * placeholder where it had an image or another file, and the words of a
 * spoken message. Other contents (code for a tool, a tool's output,
 * hidden reasoning) are not what was said to the person. */
static char *
message_text (JsonObject *message,
              guint      *n_images)
{
  JsonObject *content = object_member (message, "content");
  JsonNode *parts = content != NULL ? json_object_get_member (content, "parts") : NULL;
  const char *type = string_member (content, "content_type");
  GString *text = g_string_new (NULL);

  if ((g_strcmp0 (type, "text") == 0 || g_strcmp0 (type, "multimodal_text") == 0) &&
      parts != NULL && JSON_NODE_HOLDS_ARRAY (parts))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (parts)); i++)
      {
        JsonNode *part = json_array_get_element (json_node_get_array (parts), i);
        const char *words = NULL;

        if (JSON_NODE_HOLDS_VALUE (part) && json_node_get_value_type (part) == G_TYPE_STRING)
          words = json_node_get_string (part);
        else if (JSON_NODE_HOLDS_OBJECT (part))
          {
            JsonObject *object = json_node_get_object (part);
            const char *part_type = string_member (object, "content_type");

            if (g_strcmp0 (part_type, "audio_transcription") == 0)
              words = string_member (object, "text");
            else if (string_member (object, "asset_pointer") != NULL ||
                     g_strcmp0 (part_type, "image_asset_pointer") == 0)
              append_placeholder (text, object, n_images);
          }
        if (words != NULL && !natter_text_is_blank (words))
          g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "", words);
      }
  return g_string_free (text, FALSE);
}

static gboolean
is_hidden (JsonObject *message)
{
  JsonObject *metadata = object_member (message, "metadata");

  return metadata != NULL &&
         (json_object_get_boolean_member_with_default (metadata, "is_visually_hidden_from_conversation", FALSE) ||
          json_object_get_boolean_member_with_default (metadata, "is_user_system_message", FALSE));
}

/* Whether the answer piece @message stopped at the token limit, so that
 * the next piece ("Continue generating") carries on mid-sentence. */
static gboolean
is_cut_off (JsonObject *message)
{
  JsonObject *finish = object_member (object_member (message, "metadata"), "finish_details");

  return g_strcmp0 (string_member (finish, "type"), "max_tokens") == 0;
}

static void
add_to_answer (Exchange   *exchange,
               const char *text,
               gboolean    joined)
{
  if (exchange->answer == NULL)
    exchange->answer = g_string_new (NULL);
  if (exchange->answer->len > 0 && !joined)
    g_string_append (exchange->answer, "\n\n");
  g_string_append (exchange->answer, text);
}

/* The exchanges of a path: each message the person wrote with what was
 * said to them after it. What comes before their first message (a
 * custom GPT's greeting, the hidden system message) has no turn to
 * belong to. */
static GPtrArray *
exchanges_of (GPtrArray  *path,
              const char *fallback_ts)
{
  GPtrArray *exchanges = g_ptr_array_new_with_free_func ((GDestroyNotify) exchange_free);

  for (guint i = 0; i < path->len; i++)
    {
      Node *node = g_ptr_array_index (path, i);
      JsonObject *message = node->message;
      const char *role = string_member (object_member (message, "author"), "role");
      Exchange *last = exchanges->len > 0 ? g_ptr_array_index (exchanges, exchanges->len - 1) : NULL;
      g_autofree char *text = NULL;
      guint n_images = 0;

      if (message == NULL || role == NULL || is_hidden (message))
        continue;
      if (g_str_equal (role, "user"))
        {
          Exchange *exchange = g_new0 (Exchange, 1);

          exchange->user_id = node->id;
          exchange->last_id = node->id;
          exchange->text = message_text (message, &exchange->n_images);
          exchange->ts = chatgpt_ts (message, "create_time", last != NULL && last->answer_ts != NULL ? last->answer_ts
                                                                                                     : last != NULL ? last->ts
                                                                                                     : fallback_ts);
          g_ptr_array_add (exchanges, exchange);
          continue;
        }
      if (last == NULL)
        continue;
      if (g_str_equal (role, "assistant"))
        {
          const char *recipient = string_member (message, "recipient");
          const char *model = string_member (object_member (message, "metadata"), "model_slug");

          /* Addressed to a tool: a call, not part of the answer. */
          if (recipient != NULL && !g_str_equal (recipient, "all"))
            continue;
          text = message_text (message, &n_images);
          if (text[0] == '\0')
            continue;
          add_to_answer (last, text, last->answer_cut);
          last->answer_cut = is_cut_off (message);
          g_free (last->answer_ts);
          last->answer_ts = chatgpt_ts (message, "create_time", last->ts);
          if (model != NULL)
            last->model = model;
        }
      else if (g_str_equal (role, "tool"))
        {
          g_autoptr(GString) images = g_string_new (NULL);
          JsonObject *content = object_member (message, "content");
          JsonNode *parts = content != NULL ? json_object_get_member (content, "parts") : NULL;

          /* A tool's output is not the answer; the images it made (what
           * the person saw) are. */
          if (parts == NULL || !JSON_NODE_HOLDS_ARRAY (parts))
            continue;
          for (guint p = 0; p < json_array_get_length (json_node_get_array (parts)); p++)
            {
              JsonNode *part = json_array_get_element (json_node_get_array (parts), p);

              if (JSON_NODE_HOLDS_OBJECT (part) &&
                  g_strcmp0 (string_member (json_node_get_object (part), "content_type"), "image_asset_pointer") == 0)
                append_placeholder (images, json_node_get_object (part), &n_images);
            }
          if (images->len == 0)
            continue;
          add_to_answer (last, images->str, FALSE);
          last->answer_cut = FALSE;
        }
      else
        continue;
      last->n_images += n_images;
      last->last_id = node->id;
    }

  /* A message with nothing in it, and nothing said after it, was no
   * exchange. */
  for (guint i = exchanges->len; i-- > 0;)
    {
      Exchange *exchange = g_ptr_array_index (exchanges, i);

      if (natter_text_is_blank (exchange->text) && exchange->answer == NULL)
        g_ptr_array_remove_index (exchanges, i);
    }
  return exchanges;
}

/* Turns */

static JsonObject *
text_message (const char *role,
              const char *text)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  if (g_str_equal (role, "user"))
    json_object_set_string_member (message, "content", text);
  else
    {
      JsonArray *content = json_array_new ();
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "text");
      json_object_set_string_member (part, "text", text);
      json_array_add_object_element (content, part);
      json_object_set_array_member (message, "content", content);
    }
  return message;
}

static JsonObject *
model_label (Exchange *exchange)
{
  JsonObject *model = json_object_new ();

  json_object_set_string_member (model, "provider", NATTER_CHATGPT_IMPORTED_PROVIDER);
  json_object_set_string_member (model, "model", exchange->model != NULL ? exchange->model : "unknown");
  return model;
}

static void
fill_definition (JsonObject *created,
                 const char *session_id,
                 const char *previous,
                 const char *conversation_id,
                 Exchange   *exchange)
{
  JsonObject *agent = json_object_new ();
  JsonObject *requested = json_object_new ();
  JsonObject *resolved = json_object_new ();
  JsonObject *config = json_object_new ();
  JsonObject *imported = json_object_new ();

  json_object_set_string_member (requested, "agentId", NATTER_CHATGPT_IMPORTED_AGENT);
  json_object_set_string_member (resolved, "agentId", NATTER_CHATGPT_IMPORTED_AGENT);
  json_object_set_object_member (resolved, "model", model_label (exchange));
  json_object_set_string_member (resolved, "systemPrompt", "");
  json_object_set_array_member (resolved, "tools", json_array_new ());
  json_object_set_object_member (agent, "requested", requested);
  json_object_set_object_member (agent, "resolved", resolved);

  json_object_set_string_member (imported, "from", "chatgpt");
  json_object_set_string_member (imported, "conversationId", conversation_id);
  json_object_set_string_member (imported, "messageId", exchange->user_id);
  json_object_set_string_member (imported, "lastMessageId", exchange->last_id);
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
  JsonNode *created = natter_turn_event_new ("turn_created", turn_id, exchange->ts);

  fill_definition (json_node_get_object (created), session_id, previous, conversation_id, exchange);
  g_ptr_array_add (events, created);

  if (exchange->answer != NULL)
    {
      JsonNode *requested = natter_turn_event_new ("model_call_requested", turn_id, exchange->ts);
      JsonNode *completed = natter_turn_event_new ("model_call_completed", turn_id, exchange->answer_ts);
      JsonNode *done = natter_turn_event_new ("turn_completed", turn_id, exchange->answer_ts);
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
      /* No answer to this message (the export ends with it, or only a
       * tool was asked): the turn says so and stays continuable, as a
       * failed turn is. */
      JsonNode *failed = natter_turn_event_new ("turn_failed", turn_id, exchange->ts);

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

typedef struct
{
  GPtrArray  *plans;          /* NatterImportPlan: the conversation, then its versions */
  GHashTable *turns;          /* last node id → TurnRef */
  const char *conversation_id;
  const char *title;
  guint      *counter;
} Planner;

/* Adds the exchanges @first… of @exchanges as the turns of @plan, the
 * first continuing @previous. */
static void
add_turns (Planner          *planner,
           NatterImportPlan *plan,
           GPtrArray        *exchanges,
           guint             first,
           const char       *previous)
{
  g_autofree char *before = g_strdup (previous);

  for (guint i = first; i < exchanges->len; i++)
    {
      Exchange *exchange = g_ptr_array_index (exchanges, i);
      g_autofree char *turn_id = placeholder_id (planner->counter);
      g_autoptr(JsonObject) model = model_label (exchange);
      TurnRef *ref = g_new0 (TurnRef, 1);

      exchange_events (natter_import_plan_add_turn (plan, turn_id), turn_id, plan->session_id, before,
                       planner->conversation_id, exchange);
      g_ptr_array_add (plan->session_events,
                       natter_session_event_new_turn_appended (plan->session_id, exchange->ts, turn_id,
                                                               (gint64) (i - first) + 1,
                                                               NATTER_CHATGPT_IMPORTED_AGENT, model));
      plan->report->n_images += exchange->n_images;
      ref->turn_id = g_strdup (turn_id);
      ref->owner = plan;
      g_hash_table_insert (planner->turns, (gpointer) exchange->last_id, ref);
      g_free (before);
      before = g_steal_pointer (&turn_id);
    }
}

/* A branch of the tree that is not yet planned: from the first exchange
 * that differs, a version of that exchange's message, branched at the
 * turn before it (in the session that has it as its own turn) as an
 * edit would be; for a first message, a version of the conversation's
 * first message. */
static void
plan_branch (Planner   *planner,
             GPtrArray *exchanges)
{
  NatterImportPlan *main_plan = g_ptr_array_index (planner->plans, 0);
  g_autofree char *session_id = NULL;
  NatterImportPlan *plan;
  TurnRef *before = NULL;
  Exchange *first;
  guint k;

  for (k = 0; k < exchanges->len; k++)
    {
      TurnRef *ref = g_hash_table_lookup (planner->turns, ((Exchange *) g_ptr_array_index (exchanges, k))->last_id);

      if (ref == NULL)
        break;
      before = ref;
    }
  if (k == exchanges->len)
    return;
  first = g_ptr_array_index (exchanges, k);
  session_id = placeholder_id (planner->counter);
  plan = natter_import_plan_new (session_id);
  g_ptr_array_add (plan->session_events,
                   natter_session_event_new_created (session_id, first->ts, planner->title, NULL,
                                                     before != NULL ? before->owner->session_id : main_plan->session_id,
                                                     before != NULL ? before->turn_id : NULL));
  if (before != NULL)
    natter_import_plan_add_earlier_turn (plan, before->turn_id);
  add_turns (planner, plan, exchanges, k, before != NULL ? before->turn_id : NULL);
  g_ptr_array_add (planner->plans, plan);
}

/**
 * natter_chatgpt_plan_conversation:
 * @conversation: one conversation of a `conversations.json`
 * @counter: the import's counter of placeholder ids
 * @error: return location for a #GError
 *
 * The plans that import @conversation: first the conversation itself,
 * the path from `current_node` up through each message's `parent`, one
 * turn per message the person wrote with what was said to them after it
 * as its answer, titled and timed as in ChatGPT; then one version per
 * other branch of its tree (a regenerated answer, an edited message),
 * branched at the turn before the message that differs, as an edit
 * makes one (docs/format.md §3.2, §7.2). Each version's plan may name
 * turns of the plans before it (natter_import_plan_add_earlier_turn()).
 * The plans have placeholder ids (natter_import_plan_remap()) and count
 * the images they leave as placeholders.
 *
 * Returns: (transfer full) (element-type NatterImportPlan) (nullable):
 *   the plans, empty for a conversation without a message; or %NULL with
 *   %NATTER_SESSION_ERROR_INVALID_ARCHIVE saying what is wrong with it
 */
GPtrArray *
natter_chatgpt_plan_conversation (JsonObject  *conversation,
                                  guint       *counter,
                                  GError     **error)
{
  g_autoptr(GPtrArray) plans = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_import_plan_free);
  g_autoptr(GHashTable) turns = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) turn_ref_free);
  g_autoptr(GHashTable) nodes = NULL;
  g_autoptr(GPtrArray) path = NULL;
  g_autoptr(GPtrArray) exchanges = NULL;
  g_autoptr(GPtrArray) leaves = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *created_ts = NULL;
  g_autofree char *title = NULL;
  JsonObject *mapping = object_member (conversation, "mapping");
  const char *current = string_member (conversation, "current_node");
  NatterImportPlan *plan;
  Planner planner;

  g_return_val_if_fail (conversation != NULL, NULL);

  if (mapping == NULL || current == NULL)
    {
      fail (error, _("it has no “mapping” or no “current_node”"));
      return NULL;
    }
  nodes = read_tree (mapping, error);
  if (nodes == NULL)
    return NULL;
  path = path_to (nodes, current, error);
  if (path == NULL)
    return NULL;
  created_ts = natter_chatgpt_conversation_dup_created_at (conversation);
  if (created_ts == NULL)
    created_ts = natter_format_ts (g_get_real_time ());
  exchanges = exchanges_of (path, created_ts);
  leaves = other_leaves (nodes, current);
  title = g_strdup (string_member (conversation, "title"));
  if (natter_text_has_control (title))
    {
      /* One line of text, as every title (docs/format.md "title_changed"). */
      char *clean = natter_session_title_clean (title);

      g_free (title);
      title = clean;
    }
  if ((title == NULL || title[0] == '\0') && exchanges->len > 0)
    {
      g_autoptr(JsonObject) first = text_message ("user", ((Exchange *) g_ptr_array_index (exchanges, 0))->text);

      g_free (title);
      title = natter_derive_session_title (first);
    }

  planner = (Planner) {
    .plans = plans,
    .turns = turns,
    .conversation_id = natter_chatgpt_conversation_get_id (conversation),
    .title = title,
    .counter = counter,
  };
  if (planner.conversation_id == NULL)
    planner.conversation_id = "";

  session_id = placeholder_id (counter);
  plan = natter_import_plan_new (session_id);
  g_ptr_array_add (plans, plan);
  g_ptr_array_add (plan->session_events,
                   natter_session_event_new_created (session_id, created_ts, title, NULL, NULL, NULL));
  add_turns (&planner, plan, exchanges, 0, NULL);
  for (guint i = 0; i < leaves->len; i++)
    {
      g_autoptr(GPtrArray) branch = path_to (nodes, ((Node *) g_ptr_array_index (leaves, i))->id, error);
      g_autoptr(GPtrArray) branch_exchanges = NULL;

      if (branch == NULL)
        return NULL;
      branch_exchanges = exchanges_of (branch, created_ts);
      plan_branch (&planner, branch_exchanges);
    }
  plan->report->n_versions = plans->len - 1;

  /* Nothing the person wrote: nothing to import (the conversation's own
   * versions would be empty too). */
  if (exchanges->len == 0 && plans->len == 1)
    g_ptr_array_set_size (plans, 0);
  for (guint i = 0; i < plans->len; i++)
    if (!natter_import_plan_check (g_ptr_array_index (plans, i), NULL, NULL, error))
      return NULL;
  return g_steal_pointer (&plans);
}
