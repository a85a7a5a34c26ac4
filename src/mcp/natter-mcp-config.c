/* natter-mcp-config.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-mcp"

#include <errno.h>

#include <glib/gi18n.h>

#include "natter-json.h"
#include "natter-mcp-config.h"
#include "natter-mcp-error.h"

static void
server_config_clear (gpointer data)
{
  NatterMcpServerConfig *config = data;

  g_free (config->name);
  g_free (config->command);
  g_strfreev (config->args);
  g_clear_pointer (&config->env, json_object_unref);
  g_free (config->url);
  g_clear_pointer (&config->headers, json_object_unref);
}

/**
 * natter_mcp_server_config_ref:
 * @config: a server entry
 *
 * Returns: (transfer full): @config
 */
NatterMcpServerConfig *
natter_mcp_server_config_ref (NatterMcpServerConfig *config)
{
  return g_atomic_rc_box_acquire (config);
}

/**
 * natter_mcp_server_config_unref:
 * @config: (transfer full): a server entry
 *
 * Drops a reference; the last one frees the entry.
 */
void
natter_mcp_server_config_unref (NatterMcpServerConfig *config)
{
  g_atomic_rc_box_release_full (config, server_config_clear);
}

G_DEFINE_BOXED_TYPE (NatterMcpServerConfig, natter_mcp_server_config,
                     natter_mcp_server_config_ref, natter_mcp_server_config_unref)

/* A reference to a value kept in the Secret Service:
 * `{"secret": "non-empty text"}` and nothing else. */
static gboolean
is_secret_reference (JsonNode *value)
{
  JsonObject *object;
  JsonNode *key;

  if (!JSON_NODE_HOLDS_OBJECT (value))
    return FALSE;
  object = json_node_get_object (value);
  key = json_object_get_member (object, "secret");
  return json_object_get_size (object) == 1 && key != NULL && JSON_NODE_HOLDS_VALUE (key)
         && json_node_get_value_type (key) == G_TYPE_STRING && *json_node_get_string (key) != '\0';
}

/* A member that must be an object whose values are all strings (`env`),
 * or strings and secret references (`headers`, when @secrets); NULL when
 * absent. */
static gboolean
read_string_map (JsonObject  *entry,
                 const char  *server,
                 const char  *member,
                 gboolean     secrets,
                 JsonObject **out,
                 GError     **error)
{
  JsonNode *node = json_object_get_member (entry, member);
  g_autoptr(GList) names = NULL;
  JsonObject *map;

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s”: “%s” must be an object of names and text values"), server, member);
      return FALSE;
    }
  map = json_node_get_object (node);
  names = json_object_get_members (map);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (map, l->data);

      if (secrets && is_secret_reference (value))
        continue;
      if (secrets && JSON_NODE_HOLDS_OBJECT (value))
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("Tool server “%s”: the value of “%s” in “%s” must be text or {\"secret\": \"KEY\"}"),
                       server, (const char *) l->data, member);
          return FALSE;
        }
      if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_STRING)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("Tool server “%s”: the value of “%s” in “%s” must be text"),
                       server, (const char *) l->data, member);
          return FALSE;
        }
    }
  *out = json_object_ref (map);
  return TRUE;
}

static gboolean
read_optional_string (JsonObject  *entry,
                      const char  *server,
                      const char  *member,
                      char       **out,
                      GError     **error)
{
  JsonNode *node = json_object_get_member (entry, member);

  *out = NULL;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING
      || *json_node_get_string (node) == '\0')
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s”: “%s” must be a non-empty text"), server, member);
      return FALSE;
    }
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

static gboolean
read_args (JsonObject  *entry,
           const char  *server,
           GStrv       *out,
           GError     **error)
{
  JsonNode *node = json_object_get_member (entry, "args");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_ARRAY (node))
        goto bad;
      array = json_node_get_array (node);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *arg = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (arg) || json_node_get_value_type (arg) != G_TYPE_STRING)
            goto bad;
          g_strv_builder_add (builder, json_node_get_string (arg));
        }
    }
  *out = g_strv_builder_end (builder);
  return TRUE;

bad:
  g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
               _("Tool server “%s”: “args” must be a list of texts"), server);
  return FALSE;
}

static gboolean
read_flags (JsonObject            *entry,
            NatterMcpServerConfig *config,
            GError               **error)
{
  JsonNode *disabled = json_object_get_member (entry, "disabled");
  JsonNode *timeout = json_object_get_member (entry, "timeout");

  config->enabled = TRUE;
  if (disabled != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (disabled) || json_node_get_value_type (disabled) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("Tool server “%s”: “disabled” must be true or false"), config->name);
          return FALSE;
        }
      config->enabled = !json_node_get_boolean (disabled);
    }
  if (timeout != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (timeout) || json_node_get_value_type (timeout) != G_TYPE_INT64
          || json_node_get_int (timeout) < 1 || json_node_get_int (timeout) > 24 * 3600)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                       _("Tool server “%s”: “timeout” must be a whole number of seconds between 1 and 86400"),
                       config->name);
          return FALSE;
        }
      config->timeout_seconds = (guint) json_node_get_int (timeout);
    }
  return TRUE;
}

/**
 * natter_mcp_server_config_parse:
 * @name: the entry's key under `mcpServers`
 * @entry: the entry's value
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error
 *
 * Validates one server entry: `{command, args?, env?}` for a stdio
 * server or `{url, headers?}` for a Streamable HTTP one (a header's value
 * is text, or `{"secret": KEY}` for one kept in the Secret Service:
 * natter-mcp-secrets.h), each with the
 * optional `disabled` (boolean) and `timeout` (seconds). `type` may say
 * `stdio`, `http` or `streamableHttp` and must then agree. Unknown
 * members are left alone: other clients add their own.
 *
 * Returns: (transfer full) (nullable): the entry, or %NULL with @error set
 */
NatterMcpServerConfig *
natter_mcp_server_config_parse (const char  *name,
                                JsonNode    *entry,
                                GError     **error)
{
  g_autoptr(NatterMcpServerConfig) config = NULL;
  g_autofree char *type = NULL;
  JsonObject *object;

  g_return_val_if_fail (name != NULL && entry != NULL, NULL);

  if (*name == '\0')
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("A tool server has an empty name"));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (entry))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s” must be an object with “command” or “url”"), name);
      return NULL;
    }
  object = json_node_get_object (entry);
  config = g_atomic_rc_box_new0 (NatterMcpServerConfig);
  config->name = g_strdup (name);
  if (!read_optional_string (object, name, "type", &type, error)
      || !read_optional_string (object, name, "command", &config->command, error)
      || !read_optional_string (object, name, "url", &config->url, error)
      || !read_args (object, name, &config->args, error)
      || !read_string_map (object, name, "env", FALSE, &config->env, error)
      || !read_string_map (object, name, "headers", TRUE, &config->headers, error)
      || !read_flags (object, config, error))
    return NULL;

  if ((config->command == NULL) == (config->url == NULL))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s” must have either “command” (a program) or “url” (an HTTP endpoint)"),
                   name);
      return NULL;
    }
  config->kind = config->command != NULL ? NATTER_MCP_TRANSPORT_STDIO : NATTER_MCP_TRANSPORT_HTTP;
  if (type != NULL
      && !(config->kind == NATTER_MCP_TRANSPORT_STDIO && g_str_equal (type, "stdio"))
      && !(config->kind == NATTER_MCP_TRANSPORT_HTTP
           && (g_str_equal (type, "http") || g_str_equal (type, "streamableHttp")
               || g_str_equal (type, "streamable-http"))))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s”: type “%s” does not match its “%s”"),
                   name, type, config->url != NULL ? "url" : "command");
      return NULL;
    }
  if (config->url != NULL && !g_str_has_prefix (config->url, "http://") && !g_str_has_prefix (config->url, "https://"))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Tool server “%s”: “url” must start with http:// or https://"), name);
      return NULL;
    }
  return g_steal_pointer (&config);
}

/**
 * natter_mcp_config_default_path:
 *
 * Where the tool servers are configured: `mcp.json` in
 * `$NATTER_CONFIG_DIR` when that is set and not empty (as for agents,
 * for tests), else in `$XDG_CONFIG_HOME/natter`.
 *
 * Returns: (transfer full): the path (the file may not exist)
 */
char *
natter_mcp_config_default_path (void)
{
  const char *env = g_getenv ("NATTER_CONFIG_DIR");

  if (env != NULL && env[0] != '\0')
    return g_build_filename (env, "mcp.json", NULL);
  return g_build_filename (g_get_user_config_dir (), "natter", "mcp.json", NULL);
}

/* The whole document, to edit it in place; a missing file is an empty
 * configuration. */
static JsonNode *
read_document (const char  *path,
               GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *text = NULL;
  JsonNode *root;

  if (!g_file_get_contents (path, &text, NULL, &local_error))
    {
      if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("Cannot read %s: %s"), path,
                       local_error->message);
          return NULL;
        }
      g_clear_error (&local_error);
      text = g_strdup ("{\"mcpServers\": {}}");
    }
  if (!natter_json_parser_load (parser, text, -1, &local_error))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, _("%s is not valid JSON: %s"), path,
                   local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("%s must be an object with an “mcpServers” object"), path);
      return NULL;
    }
  if (!json_object_has_member (json_node_get_object (root), "mcpServers"))
    json_object_set_object_member (json_node_get_object (root), "mcpServers", json_object_new ());
  if (!JSON_NODE_HOLDS_OBJECT (json_object_get_member (json_node_get_object (root), "mcpServers")))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("%s must be an object with an “mcpServers” object"), path);
      return NULL;
    }
  return json_node_copy (root);
}

/**
 * natter_mcp_config_dup_entry:
 * @path: the configuration file
 * @name: a server's name
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error
 *
 * The server's entry as written, with the members Natter does not use,
 * so an edit keeps them.
 *
 * Returns: (transfer full) (nullable): the entry, or %NULL (with @error
 *   set when the file cannot be read, without when there is no such
 *   server)
 */
JsonObject *
natter_mcp_config_dup_entry (const char  *path,
                             const char  *name,
                             GError     **error)
{
  g_autoptr(JsonNode) root = read_document (path, error);
  JsonObject *servers;
  JsonNode *entry;

  if (root == NULL)
    return NULL;
  servers = json_object_get_object_member (json_node_get_object (root), "mcpServers");
  entry = json_object_get_member (servers, name);
  if (entry == NULL || !JSON_NODE_HOLDS_OBJECT (entry))
    return NULL;
  return json_object_ref (json_node_get_object (entry));
}

/**
 * natter_mcp_config_update:
 * @path: the configuration file (created with its folder when missing)
 * @name: a server's name
 * @entry: (nullable): its new entry, or %NULL to remove the server
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error, or a
 *   #GFileError when it cannot be written
 *
 * Writes one server's entry into @path, leaving the rest of the file
 * (other servers, other members) as it was. The entry is checked first
 * (natter_mcp_server_config_parse()); the file is replaced whole, never
 * half written, readable by its owner only.
 *
 * Returns: %TRUE when written
 */
gboolean
natter_mcp_config_update (const char  *path,
                          const char  *name,
                          JsonObject  *entry,
                          GError     **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  g_autofree char *folder = NULL;
  JsonObject *servers;

  g_return_val_if_fail (path != NULL && name != NULL, FALSE);

  if (entry != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autoptr(NatterMcpServerConfig) checked = NULL;

      json_node_set_object (node, entry);
      checked = natter_mcp_server_config_parse (name, node, error);
      if (checked == NULL)
        return FALSE;
    }
  root = read_document (path, error);
  if (root == NULL)
    return FALSE;
  servers = json_object_get_object_member (json_node_get_object (root), "mcpServers");
  if (entry != NULL)
    json_object_set_object_member (servers, name, json_object_ref (entry));
  else
    json_object_remove_member (servers, name);

  text = natter_json_to_text (root, TRUE, NULL);
  folder = g_path_get_dirname (path);
  if (g_mkdir_with_parents (folder, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), _("Cannot create %s: %s"), folder,
                   g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

/**
 * natter_mcp_config_parse:
 * @text: the file's contents
 * @length: the length of @text, or -1 when NUL-terminated
 * @origin: what to call the text in errors (usually the path)
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error
 *
 * Reads `{"mcpServers": {NAME: ENTRY, …}}`, each entry as
 * natter_mcp_server_config_parse() says. One bad entry fails the whole
 * file, naming the entry: a half-read configuration would hide servers.
 *
 * Returns: (transfer container) (element-type NatterMcpServerConfig):
 *   the servers in file order, or %NULL with @error set
 */
GPtrArray *
natter_mcp_config_parse (const char  *text,
                         gssize       length,
                         const char  *origin,
                         GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GPtrArray) servers = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_mcp_server_config_unref);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GList) names = NULL;
  JsonNode *root;
  JsonNode *map;

  g_return_val_if_fail (text != NULL && origin != NULL, NULL);

  if (!natter_json_parser_load (parser, text, length, &local_error))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("%s is not valid JSON: %s"), origin, local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  map = root != NULL && JSON_NODE_HOLDS_OBJECT (root)
    ? json_object_get_member (json_node_get_object (root), "mcpServers") : NULL;
  if (map == NULL || !JSON_NODE_HOLDS_OBJECT (map))
    {
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("%s must be an object with an “mcpServers” object"), origin);
      return NULL;
    }
  names = json_object_get_members (json_node_get_object (map));
  for (GList *l = names; l != NULL; l = l->next)
    {
      NatterMcpServerConfig *config;

      config = natter_mcp_server_config_parse (l->data, json_object_get_member (json_node_get_object (map), l->data),
                                               &local_error);
      if (config == NULL)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG, "%s: %s", origin, local_error->message);
          return NULL;
        }
      g_ptr_array_add (servers, config);
    }
  return g_steal_pointer (&servers);
}

/**
 * natter_mcp_config_load:
 * @path: the configuration file, usually natter_mcp_config_default_path()
 * @error: return location for a %NATTER_MCP_ERROR_CONFIG error
 *
 * Reads and validates @path (natter_mcp_config_parse()). A missing file
 * means no servers; an unreadable one is an error.
 *
 * Returns: (transfer container) (element-type NatterMcpServerConfig):
 *   the servers, or %NULL with @error set
 */
GPtrArray *
natter_mcp_config_load (const char  *path,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *text = NULL;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &text, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_ptr_array_new_with_free_func ((GDestroyNotify) natter_mcp_server_config_unref);
      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_CONFIG,
                   _("Cannot read %s: %s"), path, local_error->message);
      return NULL;
    }
  return natter_mcp_config_parse (text, (gssize) length, path, error);
}

static gboolean
maps_equal (JsonObject *a,
            JsonObject *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return json_object_equal (a, b);
}

/**
 * natter_mcp_server_config_equal:
 * @a: a server entry
 * @b: another
 *
 * Whether the two entries would reach the same server the same way:
 * same name, transport, command, arguments, environment, URL, headers,
 * enabled state and timeout. Members Natter does not read are not
 * compared.
 *
 * Returns: %TRUE when they are the same
 */
gboolean
natter_mcp_server_config_equal (const NatterMcpServerConfig *a,
                                const NatterMcpServerConfig *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return g_str_equal (a->name, b->name) && a->kind == b->kind
    && g_strcmp0 (a->command, b->command) == 0
    && g_strv_equal ((const char * const *) a->args, (const char * const *) b->args)
    && maps_equal (a->env, b->env) && g_strcmp0 (a->url, b->url) == 0 && maps_equal (a->headers, b->headers)
    && a->enabled == b->enabled && a->timeout_seconds == b->timeout_seconds;
}

/**
 * natter_mcp_config_find:
 * @servers: (element-type NatterMcpServerConfig): loaded servers
 * @name: a server name
 *
 * Returns: (transfer none) (nullable): the server called @name
 */
NatterMcpServerConfig *
natter_mcp_config_find (GPtrArray  *servers,
                        const char *name)
{
  g_return_val_if_fail (servers != NULL && name != NULL, NULL);

  for (guint i = 0; i < servers->len; i++)
    {
      NatterMcpServerConfig *config = g_ptr_array_index (servers, i);

      if (g_str_equal (config->name, name))
        return config;
    }
  return NULL;
}
