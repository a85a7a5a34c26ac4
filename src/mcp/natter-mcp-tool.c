/* natter-mcp-tool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One tool of a tool server, as the turn runtime sees a tool
 * (docs/runtime.md §1, §8): offered to the model as
 * `mcp__<server>__<tool>`, always behind permission (the default checker
 * asks for every tool it is not told is free), run as a sync tool whose
 * worker thread waits for the client's call on the main context, and
 * its result turned into the text the model reads (at most
 * %NATTER_TOOL_OUTPUT_MAX_BYTES, saying when it was cut) plus, for the
 * window, the server's content that text does not carry, each byte kept
 * once.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include <glib/gi18n.h>

#include "natter-json.h"
#include "natter-mcp-tool.h"
#include "natter-tool-path.h"

struct _NatterMcpTool
{
  GObject          parent_instance;
  JsonObject      *descriptor;
  NatterMcpClient *client;
  char            *server;
  char            *tool;
  GMainContext    *context;   /* where the client lives */
};

static void tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterMcpTool, natter_mcp_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, tool_iface_init))

/* ---- names --------------------------------------------------------- */

static gboolean
in_alphabet (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '-';
}

static void
append_sanitized (GString    *name,
                  const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    g_string_append_c (name, in_alphabet (*p) ? *p : '_');
}

/* Eight hex digits that stand for (@server, @tool) and @salt. */
static char *
short_hash (const char *server,
            const char *tool,
            guint       salt)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%s\x1f%u", server, tool, salt);
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);

  return g_strndup (sum, 8);
}

/* @base cut so that `_` and @suffix fit in the limit, then both. */
static char *
with_suffix (const char *base,
             const char *suffix)
{
  gsize room = NATTER_MCP_TOOL_NAME_MAX - 1 - strlen (suffix);

  return g_strdup_printf ("%.*s_%s", (int) MIN (strlen (base), room), base, suffix);
}

/**
 * natter_mcp_tool_id:
 * @server: the server's name in mcp.json
 * @tool: the tool's name as the server lists it
 *
 * The registry key of a server's tool: `mcp:<server>/<tool>`.
 *
 * Returns: (transfer full): the `toolId`
 */
char *
natter_mcp_tool_id (const char *server,
                    const char *tool)
{
  return g_strdup_printf ("mcp:%s/%s", server, tool);
}

/**
 * natter_mcp_tool_name:
 * @server: the server's name in mcp.json
 * @tool: the tool's name as the server lists it
 *
 * The function name the model sees: `mcp__<server>__<tool>`, every
 * character outside `[A-Za-z0-9_-]` replaced by `_`; a name longer than
 * %NATTER_MCP_TOOL_NAME_MAX is cut and ends in `_` and eight hex digits
 * of a hash of the server and tool, so that it stays the same from one
 * run to the next.
 *
 * Returns: (transfer full): the name
 */
char *
natter_mcp_tool_name (const char *server,
                      const char *tool)
{
  g_autoptr(GString) name = g_string_new ("mcp__");
  g_autofree char *hash = NULL;

  append_sanitized (name, server);
  g_string_append (name, "__");
  append_sanitized (name, tool);
  if (name->len <= NATTER_MCP_TOOL_NAME_MAX)
    return g_string_free (g_steal_pointer (&name), FALSE);
  hash = short_hash (server, tool, 0);
  return with_suffix (name->str, hash);
}

/**
 * natter_mcp_tool_names_assign:
 * @servers: (array zero-terminated=1): the server of each tool
 * @tools: (array zero-terminated=1): the tools, as long as @servers
 *
 * Gives each (server, tool) pair a distinct name: the first pair (in the
 * order given: servers as in mcp.json, tools as each server lists them)
 * keeps natter_mcp_tool_name(); a later pair whose name is taken gets
 * `_` and eight hex digits of a hash of its server and tool (salted
 * again in the unlikely case that is taken too). The same input always
 * gives the same names.
 *
 * Returns: (transfer full): the names, in the order of @tools
 */
GStrv
natter_mcp_tool_names_assign (const char * const *servers,
                              const char * const *tools)
{
  g_autoptr(GHashTable) used = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *names = g_ptr_array_new ();

  for (guint i = 0; servers[i] != NULL && tools[i] != NULL; i++)
    {
      char *name = natter_mcp_tool_name (servers[i], tools[i]);

      for (guint salt = 1; g_hash_table_contains (used, name); salt++)
        {
          g_autofree char *base = natter_mcp_tool_name (servers[i], tools[i]);
          g_autofree char *hash = short_hash (servers[i], tools[i], salt);

          g_free (name);
          name = with_suffix (base, hash);
        }
      g_ptr_array_add (names, name);
      g_hash_table_add (used, name);
    }
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (names, FALSE);
}

/* ---- results ------------------------------------------------------- */

static void
describe_item (GString    *output,
               JsonObject *item)
{
  const char *type = json_object_get_string_member_with_default (item, "type", "");

  if (output->len > 0)
    g_string_append_c (output, '\n');
  if (g_str_equal (type, "text"))
    g_string_append (output, json_object_get_string_member_with_default (item, "text", ""));
  else if (g_str_equal (type, "image") || g_str_equal (type, "audio"))
    g_string_append_printf (output, "[%s: %s]", type,
                            json_object_get_string_member_with_default (item, "mimeType", "?"));
  else if (g_str_equal (type, "resource_link"))
    g_string_append_printf (output, "[resource link: %s] %s",
                            json_object_get_string_member_with_default (item, "name", ""),
                            json_object_get_string_member_with_default (item, "uri", ""));
  else if (g_str_equal (type, "resource") && json_object_has_member (item, "resource")
           && JSON_NODE_HOLDS_OBJECT (json_object_get_member (item, "resource")))
    {
      JsonObject *resource = json_object_get_object_member (item, "resource");

      g_string_append_printf (output, "[resource: %s]", json_object_get_string_member_with_default (resource, "uri", ""));
      if (json_object_has_member (resource, "text"))
        g_string_append_printf (output, "\n%s", json_object_get_string_member_with_default (resource, "text", ""));
    }
  else
    g_string_append_printf (output, "[%s]", type);
}

/* Whether the texts of a result (@texts, a set) already carry
 * @structured: a server that returns structured content also sends it
 * as text (MCP 2025-11-25, Tools, Structured Content), either as its
 * JSON or, as server-filesystem does with `{content: TEXT}`, with every
 * value in it one of the texts. The walk does not recurse: the value
 * came from a server. */
static gboolean
texts_carry (GHashTable *texts,
             JsonNode   *structured)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer text;

  g_hash_table_iter_init (&iter, texts);
  while (g_hash_table_iter_next (&iter, &text, NULL))
    {
      g_autoptr(JsonNode) parsed = natter_json_parse (text, -1, NULL);

      if (parsed != NULL && json_node_equal (parsed, structured))
        return TRUE;
    }
  g_ptr_array_add (stack, structured);
  while (stack->len > 0)
    {
      JsonNode *node = g_ptr_array_steal_index (stack, stack->len - 1);

      if (JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObjectIter members;
          JsonNode *member;

          json_object_iter_init (&members, json_node_get_object (node));
          while (json_object_iter_next (&members, NULL, &member))
            g_ptr_array_add (stack, member);
        }
      else if (JSON_NODE_HOLDS_ARRAY (node))
        {
          JsonArray *array = json_node_get_array (node);

          for (guint i = 0; i < json_array_get_length (array); i++)
            g_ptr_array_add (stack, json_array_get_element (array, i));
        }
      else if (json_node_get_value_type (node) != G_TYPE_STRING
               || !g_hash_table_contains (texts, json_node_get_string (node)))
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_mcp_tool_map_result:
 * @server: the server's name
 * @tool: the tool's name at the server
 * @answer: the server's `CallToolResult`
 *
 * Turns a tool server's answer into a tool result (docs/runtime.md §3),
 * keeping every byte once (docs/format.md §4.2, `tool_result`):
 * `output` is what the model reads — the texts, and a bracketed line for
 * each image, audio clip, resource link or resource — cut as
 * natter_tool_output_cut() says; `isError` is the server's;
 * `metadata.mcp` keeps `{server, tool}` and of the server's `content`
 * what `output` does not hold: text items are left out, an embedded
 * resource's `text` is removed, images and the rest stay as sent (so the
 * window can show them when the server is gone). `structuredContent` is
 * kept only when the texts do not carry it already and it is at most
 * %NATTER_TOOL_OUTPUT_MAX_BYTES when written (a text carries it when
 * the text is its JSON, or every value in it is one of the texts, as
 * server-filesystem sends a file). When `output` was cut,
 * `metadata.mcp` says so: `truncated: true` and `textBytes`, the length
 * of the whole text. What is nested too deep for a turn line (docs/format.md
 * §2) is not kept: such content items are counted in `omitted`, and
 * such structured content left out.
 *
 * Returns: (transfer full): `{output, isError, metadata}`
 */
JsonObject *
natter_mcp_tool_map_result (const char *server,
                            const char *tool,
                            JsonObject *answer)
{
  g_autoptr(GString) output = g_string_new (NULL);
  g_autofree char *shown = NULL;
  g_autoptr(GHashTable) texts = g_hash_table_new (g_str_hash, g_str_equal);
  JsonNode *content = json_object_get_member (answer, "content");
  JsonNode *structured = json_object_get_member (answer, "structuredContent");
  gboolean is_error = json_object_get_boolean_member_with_default (answer, "isError", FALSE);
  gboolean structured_in_text = FALSE;
  gboolean cut = FALSE;
  guint omitted = 0;
  JsonObject *result = json_object_new ();
  JsonObject *metadata = json_object_new ();
  JsonObject *mcp = json_object_new ();
  JsonArray *kept = json_array_new ();

  for (guint i = 0; content != NULL && JSON_NODE_HOLDS_ARRAY (content)
       && i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (content), i);
      JsonObject *item;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      item = json_node_get_object (node);
      type = json_object_get_string_member_with_default (item, "type", "");
      describe_item (output, item);
      if (g_str_equal (type, "text"))
        {
          g_hash_table_add (texts, (gpointer) json_object_get_string_member_with_default (item, "text", ""));
          continue;
        }
      /* The item goes five levels down in its `tool_result` event
       * (result, metadata, mcp, content, the item): one nested deeper
       * than a stored line may be is left out, so the result can be
       * kept at all. */
      if (natter_json_node_depth (node) + 5 > NATTER_JSON_MAX_DEPTH)
        {
          omitted++;
          continue;
        }
      node = json_node_copy (node);
      item = json_node_get_object (node);
      if (g_str_equal (type, "resource") && json_object_has_member (item, "resource")
          && JSON_NODE_HOLDS_OBJECT (json_object_get_member (item, "resource")))
        json_object_remove_member (json_object_get_object_member (item, "resource"), "text");
      json_array_add_element (kept, node);
    }
  if (structured != NULL && g_hash_table_size (texts) > 0)
    structured_in_text = texts_carry (texts, structured);
  if (output->len == 0 && structured != NULL)
    {
      g_autofree char *text = natter_json_to_text (structured, FALSE, NULL);

      g_string_append (output, text);
      structured_in_text = TRUE;
    }
  if (output->len == 0)
    g_string_append (output, is_error ? "The tool reported an error." : "(no output)");
  shown = natter_tool_output_cut (output->str, output->len, &cut);

  json_object_set_string_member (mcp, "server", server);
  json_object_set_string_member (mcp, "tool", tool);
  json_object_set_array_member (mcp, "content", kept);
  if (structured != NULL && !structured_in_text)
    {
      g_autofree char *text = json_to_string (structured, FALSE);

      if (strlen (text) <= NATTER_TOOL_OUTPUT_MAX_BYTES
          && natter_json_node_depth (structured) + 4 <= NATTER_JSON_MAX_DEPTH)
        json_object_set_member (mcp, "structuredContent", json_node_copy (structured));
    }
  if (omitted > 0)
    json_object_set_int_member (mcp, "omitted", omitted);
  if (cut)
    {
      json_object_set_boolean_member (mcp, "truncated", TRUE);
      json_object_set_int_member (mcp, "textBytes", (gint64) output->len);
    }
  json_object_set_object_member (metadata, "mcp", mcp);

  json_object_set_string_member (result, "output", shown);
  json_object_set_boolean_member (result, "isError", is_error);
  json_object_set_object_member (result, "metadata", metadata);
  return result;
}

/* ---- the tool ------------------------------------------------------ */

/* One call, shared by the worker thread that waits and the main context
 * that runs it. */
typedef struct
{
  NatterMcpTool *self;
  JsonObject    *input;
  GCancellable  *cancellable;
  GMutex         mutex;
  GCond          cond;
  gboolean       done;
  JsonObject    *answer;
  GError        *error;
} Call;

static void
call_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Call *call = user_data;
  GError *error = NULL;
  JsonObject *answer = natter_mcp_client_call_tool_finish (NATTER_MCP_CLIENT (object), result, &error);

  g_mutex_lock (&call->mutex);
  call->answer = answer;
  call->error = error;
  call->done = TRUE;
  g_cond_signal (&call->cond);
  g_mutex_unlock (&call->mutex);
}

static gboolean
start_call (gpointer user_data)
{
  Call *call = user_data;

  natter_mcp_client_call_tool_async (call->self->client, call->self->tool, call->input, call->cancellable,
                                     call_done_cb, call);
  return G_SOURCE_REMOVE;
}

static JsonObject *
natter_mcp_tool_run (NatterTool              *tool,
                     JsonObject              *input,
                     NatterToolProgressFunc   progress,
                     gpointer                 progress_data,
                     GCancellable            *cancellable,
                     GError                 **error)
{
  NatterMcpTool *self = NATTER_MCP_TOOL (tool);
  g_autoptr(JsonNode) wrapped = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) copy = NULL;
  Call call = { self, NULL, cancellable };
  JsonObject *result = NULL;

  /* The main context gets its own copy: the worker's input is not
   * shared across threads. */
  json_node_set_object (wrapped, input);
  copy = json_node_copy (wrapped);
  call.input = json_node_get_object (copy);
  g_mutex_init (&call.mutex);
  g_cond_init (&call.cond);
  g_main_context_invoke (self->context, start_call, &call);
  g_mutex_lock (&call.mutex);
  while (!call.done)
    g_cond_wait (&call.cond, &call.mutex);
  g_mutex_unlock (&call.mutex);
  g_mutex_clear (&call.mutex);
  g_cond_clear (&call.cond);

  if (call.answer == NULL)
    {
      g_propagate_error (error, call.error);
      return NULL;
    }
  result = natter_mcp_tool_map_result (self->server, self->tool, call.answer);
  json_object_unref (call.answer);
  return result;
}

static JsonObject *
natter_mcp_tool_get_descriptor (NatterTool *tool)
{
  return NATTER_MCP_TOOL (tool)->descriptor;
}

/* The permission request names the server and the tool as the server
 * calls it; the card shows the arguments beside it. */
static JsonNode *
natter_mcp_tool_describe_request (NatterTool *tool,
                                  JsonObject *input,
                                  const char *cwd)
{
  NatterMcpTool *self = NATTER_MCP_TOOL (tool);
  JsonObject *request = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_object_set_string_member (request, "server", self->server);
  json_object_set_string_member (request, "tool", self->tool);
  json_object_set_object_member (request, "arguments", json_object_ref (input));
  json_node_take_object (node, request);
  return node;
}

static void
tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = natter_mcp_tool_get_descriptor;
  iface->run = natter_mcp_tool_run;
  iface->describe_request = natter_mcp_tool_describe_request;
}

static void
natter_mcp_tool_finalize (GObject *object)
{
  NatterMcpTool *self = NATTER_MCP_TOOL (object);

  g_clear_pointer (&self->descriptor, json_object_unref);
  g_clear_object (&self->client);
  g_free (self->server);
  g_free (self->tool);
  g_main_context_unref (self->context);
  G_OBJECT_CLASS (natter_mcp_tool_parent_class)->finalize (object);
}

static void
natter_mcp_tool_class_init (NatterMcpToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_mcp_tool_finalize;
}

static void
natter_mcp_tool_init (NatterMcpTool *self)
{
}

/**
 * natter_mcp_tool_new:
 * @client: the server's client, used on the calling thread's main context
 * @server_tool: the tool as `tools/list` gave it (`name`, `description`,
 *   `inputSchema`)
 * @model_name: the name the model sees (natter_mcp_tool_names_assign())
 *
 * A sync tool (docs/runtime.md §8) with the `toolId` of
 * natter_mcp_tool_id(), the server's description and input schema (an
 * empty object schema when it gave none). It declares no exemption from
 * permission, so every call asks.
 *
 * Returns: (transfer full): the tool
 */
NatterTool *
natter_mcp_tool_new (NatterMcpClient *client,
                     JsonObject      *server_tool,
                     const char      *model_name)
{
  NatterMcpTool *self;
  const char *server = natter_mcp_client_get_config (client)->name;
  const char *name = json_object_get_string_member (server_tool, "name");
  JsonNode *schema = json_object_get_member (server_tool, "inputSchema");
  g_autofree char *id = natter_mcp_tool_id (server, name);

  self = g_object_new (NATTER_TYPE_MCP_TOOL, NULL);
  self->client = g_object_ref (client);
  self->server = g_strdup (server);
  self->tool = g_strdup (name);
  self->context = g_main_context_ref_thread_default ();
  self->descriptor = natter_tool_descriptor_new (id, model_name,
                                                 json_object_get_string_member_with_default (server_tool,
                                                                                             "description", ""),
                                                 "{\"type\":\"object\"}", FALSE, FALSE);
  if (schema != NULL && JSON_NODE_HOLDS_OBJECT (schema))
    json_object_set_member (self->descriptor, "inputSchema", json_node_copy (schema));
  return NATTER_TOOL (self);
}
