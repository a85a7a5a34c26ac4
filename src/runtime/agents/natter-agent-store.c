/* natter-agent-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * User-defined agents: one JSON file per agent in the
 * configuration folder, `agents/<agentId>.json`, holding
 * `{agentId, name, systemPrompt, model?: {provider, model}, tools: [toolId…]}`.
 * The files are the user's, so reading is strict and never fatal: a file
 * that does not validate is listed with the reason instead of being
 * skipped, and a save replaces the file atomically (temp file + rename)
 * so an agent is never half written.
 */

#define G_LOG_DOMAIN "natter-agent-store"

#include "config.h"

#include <errno.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "natter-agent-store.h"
#include "natter-json.h"
#include "natter-store-error.h"

#define AGENT_SUFFIX ".json"

/* The id of the built-in agent; a file may not shadow it. */
#define RESERVED_AGENT_ID "assistant"

struct _NatterAgentStore
{
  GObject       parent_instance;
  GFile        *dir;
  GFileMonitor *monitor;  /* natter_agent_store_watch() */
};

G_DEFINE_FINAL_TYPE (NatterAgentStore, natter_agent_store, G_TYPE_OBJECT)

enum
{
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_agent_store_finalize (GObject *object)
{
  NatterAgentStore *self = NATTER_AGENT_STORE (object);

  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  g_clear_object (&self->dir);
  G_OBJECT_CLASS (natter_agent_store_parent_class)->finalize (object);
}

static void
natter_agent_store_class_init (NatterAgentStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_agent_store_finalize;

  /**
   * NatterAgentStore::changed:
   *
   * The agents may have changed: emitted after every successful
   * natter_agent_store_save() and natter_agent_store_delete(), and, once
   * natter_agent_store_watch() was called, when an agent file of the
   * folder is created, removed, renamed or rewritten by anyone else (an
   * undone deletion, an edit by hand). Listeners read the folder again;
   * one change may be reported more than once.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
natter_agent_store_init (NatterAgentStore *self)
{
}

/**
 * natter_agent_store_get_default_dir:
 *
 * The folder of user-defined agents: `agents` in `$NATTER_CONFIG_DIR`
 * when that is set and not empty, else in `$XDG_CONFIG_HOME/natter`.
 *
 * Returns: (transfer full): the folder (it may not exist yet)
 */
GFile *
natter_agent_store_get_default_dir (void)
{
  const char *env = g_getenv (NATTER_CONFIG_DIR_ENV);

  if (env != NULL && env[0] != '\0')
    {
      g_autoptr(GFile) config = g_file_new_for_commandline_arg (env);

      return g_file_get_child (config, "agents");
    }
  return g_file_new_build_filename (g_get_user_config_dir (), "natter", "agents", NULL);
}

/**
 * natter_agent_store_is_valid_id:
 * @agent_id: (nullable): a candidate agent id
 *
 * Agent ids name files, so they are restricted: 1 to
 * %NATTER_AGENT_ID_MAX_LENGTH bytes of lowercase ASCII letters, digits,
 * `-` and `_`, starting with a letter or digit, and not the built-in
 * agent's id `assistant`.
 *
 * Returns: whether @agent_id may name a stored agent
 */
gboolean
natter_agent_store_is_valid_id (const char *agent_id)
{
  gsize length;

  if (agent_id == NULL)
    return FALSE;
  length = strlen (agent_id);
  if (length == 0 || length > NATTER_AGENT_ID_MAX_LENGTH)
    return FALSE;
  if (!g_ascii_isdigit (agent_id[0]) && !(agent_id[0] >= 'a' && agent_id[0] <= 'z'))
    return FALSE;
  for (gsize i = 0; i < length; i++)
    {
      char c = agent_id[i];

      if (!g_ascii_isdigit (c) && !(c >= 'a' && c <= 'z') && c != '-' && c != '_')
        return FALSE;
    }
  return !g_str_equal (agent_id, RESERVED_AGENT_ID);
}

/* An agent file that breaks its schema. */
#define invalid(error, ...) \
  natter_set_error_false ((error), G_IO_ERROR, G_IO_ERROR_INVALID_DATA, __VA_ARGS__)

static const char *
string_member (JsonObject  *object,
               const char  *member,
               gboolean     nonempty,
               GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);
  const char *value;

  if (node == NULL)
    {
      invalid (error, _("“%s” is missing"), member);
      return NULL;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      invalid (error, _("“%s” must be a string"), member);
      return NULL;
    }
  value = json_node_get_string (node);
  if (nonempty)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (value));

      if (stripped[0] == '\0')
        {
          invalid (error, _("“%s” must not be empty"), member);
          return NULL;
        }
    }
  return value;
}

static gboolean
validate_model (JsonNode  *node,
                GError   **error)
{
  JsonObject *model;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return invalid (error, _("“model” must be an object {provider, model}"));
  model = json_node_get_object (node);
  members = json_object_get_members (model);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_str_equal (l->data, "provider") && !g_str_equal (l->data, "model"))
      return invalid (error, _("“model” has the unknown member “%s”"), (const char *) l->data);
  if (string_member (model, "provider", TRUE, error) == NULL)
    return FALSE;
  if (string_member (model, "model", TRUE, error) == NULL)
    return FALSE;
  return TRUE;
}

static gboolean
validate_tools (JsonNode  *node,
                GError   **error)
{
  JsonArray *tools;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, _("“tools” must be a list of tool ids"));
  tools = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *element = json_array_get_element (tools, i);
      const char *tool_id;

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING ||
          json_node_get_string (element)[0] == '\0')
        return invalid (error, _("“tools” must be a list of tool ids"));
      tool_id = json_node_get_string (element);
      if (!g_hash_table_add (seen, (gpointer) tool_id))
        return invalid (error, _("The tool “%s” is listed twice"), tool_id);
    }
  return TRUE;
}

static gboolean
validate_names (JsonNode    *node,
                const char  *member,
                GError     **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *names;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, _("“%s” must be a list of names"), member);
  names = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (names); i++)
    {
      JsonNode *element = json_array_get_element (names, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING ||
          json_node_get_string (element)[0] == '\0')
        return invalid (error, _("“%s” must be a list of names"), member);
      if (!g_hash_table_add (seen, (gpointer) json_node_get_string (element)))
        return invalid (error, _("“%s” lists “%s” twice"), member, json_node_get_string (element));
    }
  return TRUE;
}

/**
 * natter_agent_store_validate:
 * @agent: a user-defined agent
 * @error: return location for a #GError
 *
 * Checks @agent against the agent file format: exactly the members
 * `agentId` (natter_agent_store_is_valid_id()), `name` (a non-empty
 * string), `systemPrompt` (a string), optionally `model` (`{provider,
 * model}`, both non-empty strings), `tools` (a list of distinct tool
 * ids) and optionally `toolServers` (a list of distinct names of tool
 * servers of mcp.json whose tools the agent offers). Whether the tools
 * and servers exist is the resolver's question, not the file's.
 *
 * Returns: %TRUE when @agent is well-formed; else %FALSE with
 *   %G_IO_ERROR_INVALID_DATA and a message naming the problem
 */
gboolean
natter_agent_store_validate (JsonObject  *agent,
                             GError     **error)
{
  static const char * const known[] = { "agentId", "name", "systemPrompt", "model", "tools", "toolServers", NULL };
  g_autoptr(GList) members = NULL;
  const char *agent_id;
  JsonNode *node;

  g_return_val_if_fail (agent != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  members = json_object_get_members (agent);
  for (GList *l = members; l != NULL; l = l->next)
    if (!g_strv_contains (known, l->data))
      return invalid (error, _("Unknown member “%s”"), (const char *) l->data);

  agent_id = string_member (agent, "agentId", TRUE, error);
  if (agent_id == NULL)
    return FALSE;
  if (!natter_agent_store_is_valid_id (agent_id))
    return invalid (error, _("“%s” is not a valid agent id (lowercase letters, digits, “-” and “_”; not “assistant”)"),
                    agent_id);
  if (string_member (agent, "name", TRUE, error) == NULL)
    return FALSE;
  if (string_member (agent, "systemPrompt", FALSE, error) == NULL)
    return FALSE;
  node = json_object_get_member (agent, "model");
  if (node != NULL && !validate_model (node, error))
    return FALSE;
  node = json_object_get_member (agent, "toolServers");
  if (node != NULL && !validate_names (node, "toolServers", error))
    return FALSE;
  node = json_object_get_member (agent, "tools");
  if (node == NULL)
    return invalid (error, _("“%s” is missing"), "tools");
  return validate_tools (node, error);
}

/**
 * natter_agent_store_new:
 * @dir: the folder of agent files (natter_agent_store_get_default_dir())
 *
 * Creates a store over @dir. Nothing is read until asked; the folder is
 * created by the first save.
 *
 * Returns: (transfer full): the store
 */
NatterAgentStore *
natter_agent_store_new (GFile *dir)
{
  NatterAgentStore *self;

  g_return_val_if_fail (G_IS_FILE (dir), NULL);

  self = g_object_new (NATTER_TYPE_AGENT_STORE, NULL);
  self->dir = g_object_ref (dir);
  return self;
}

/**
 * natter_agent_store_get_dir:
 * @self: the store
 *
 * Returns: (transfer none): the folder of agent files
 */
GFile *
natter_agent_store_get_dir (NatterAgentStore *self)
{
  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), NULL);

  return self->dir;
}

static GFile *
agent_file (NatterAgentStore *self,
            const char       *agent_id)
{
  g_autofree char *name = g_strconcat (agent_id, AGENT_SUFFIX, NULL);

  return g_file_get_child (self->dir, name);
}

/* The file of the agent a caller names, or %NULL with
 * %G_IO_ERROR_INVALID_ARGUMENT when @agent_id is not a valid id: what
 * loading and deleting check before they touch a file. */
static GFile *
named_agent_file (NatterAgentStore  *self,
                  const char        *agent_id,
                  GError           **error)
{
  if (!natter_agent_store_is_valid_id (agent_id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("“%s” is not a valid agent id"), agent_id != NULL ? agent_id : "");
      return NULL;
    }
  return agent_file (self, agent_id);
}

static JsonObject *
load_file (GFile       *file,
           const char  *agent_id,
           GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *basename = g_file_get_basename (file);
  gsize length;
  JsonNode *root;
  JsonObject *agent;

  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no agent “%s”"), agent_id);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (!natter_json_parser_load_external (parser, contents, length, &local_error))
    {
      invalid (error, _("%s is not valid JSON: %s"), basename, local_error->message);
      return NULL;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      invalid (error, _("%s does not hold a JSON object"), basename);
      return NULL;
    }
  agent = json_node_get_object (root);
  if (!natter_agent_store_validate (agent, &local_error))
    {
      invalid (error, "%s: %s", basename, local_error->message);
      return NULL;
    }
  if (!g_str_equal (json_object_get_string_member (agent, "agentId"), agent_id))
    {
      invalid (error, _("%s holds the agent “%s”; the file must be named after its agent"),
               basename, json_object_get_string_member (agent, "agentId"));
      return NULL;
    }
  return json_object_ref (agent);
}

/**
 * natter_agent_store_load:
 * @self: the store
 * @agent_id: an agent id
 * @error: return location for a #GError
 *
 * Reads and validates `<agentId>.json` (natter_agent_store_validate();
 * the file's `agentId` must equal its name).
 *
 * Returns: (transfer full): the agent; or %NULL with
 *   %G_IO_ERROR_INVALID_ARGUMENT (@agent_id is not a valid id),
 *   %G_IO_ERROR_NOT_FOUND (no such agent), %G_IO_ERROR_INVALID_DATA (the
 *   file is not a valid agent; the message names the file and the
 *   problem) or another %G_IO_ERROR reading it
 */
JsonObject *
natter_agent_store_load (NatterAgentStore  *self,
                         const char        *agent_id,
                         GError           **error)
{
  g_autoptr(GFile) file = NULL;

  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  file = named_agent_file (self, agent_id, error);
  if (file == NULL)
    return NULL;
  return load_file (file, agent_id, error);
}

static int
compare_agents (gconstpointer a,
                gconstpointer b)
{
  JsonObject *agent_a = *(JsonObject **) a;
  JsonObject *agent_b = *(JsonObject **) b;
  const char *name_a = json_object_get_string_member_with_default (agent_a, "name", "");
  const char *name_b = json_object_get_string_member_with_default (agent_b, "name", "");
  g_autofree char *key_a = g_utf8_collate_key (name_a, -1);
  g_autofree char *key_b = g_utf8_collate_key (name_b, -1);
  int order = strcmp (key_a, key_b);

  if (order != 0)
    return order;
  return strcmp (json_object_get_string_member (agent_a, "agentId"),
                 json_object_get_string_member (agent_b, "agentId"));
}

static JsonObject *
errored_entry (const char *agent_id,
               const char *message)
{
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "agentId", agent_id);
  json_object_set_string_member (entry, "name", agent_id);
  json_object_set_string_member (entry, "error", message);
  return entry;
}

/**
 * natter_agent_store_list:
 * @self: the store
 * @error: return location for a #GError
 *
 * Reads every `*.json` file of the folder, sorted by name. A file that
 * does not load is not skipped: it is listed as `{agentId (the file's
 * name), name (the same), error (why it did not load)}`, so the user can
 * see and fix it. A missing folder is an empty list.
 *
 * Returns: (transfer full) (element-type JsonObject): the agents and
 *   errored entries; or %NULL with the %G_IO_ERROR of listing the folder
 */
GPtrArray *
natter_agent_store_list (NatterAgentStore  *self,
                         GError           **error)
{
  g_autoptr(GPtrArray) agents = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  g_autoptr(GFileEnumerator) enumerator = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  enumerator = g_file_enumerate_children (self->dir, G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                          G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                          G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (enumerator == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return g_steal_pointer (&agents);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  for (;;)
    {
      GFileInfo *info = NULL;
      GFile *child = NULL;
      const char *name;
      g_autofree char *agent_id = NULL;
      JsonObject *agent;

      if (!g_file_enumerator_iterate (enumerator, &info, &child, NULL, error))
        return NULL;
      if (info == NULL)
        break;
      name = g_file_info_get_name (info);
      /* Only agent files: not hidden files, not the temp files of a
       * save in progress (they do not end in .json). */
      if (name[0] == '.' || !g_str_has_suffix (name, AGENT_SUFFIX) ||
          g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
        continue;
      agent_id = g_strndup (name, strlen (name) - strlen (AGENT_SUFFIX));
      if (!natter_agent_store_is_valid_id (agent_id))
        {
          g_autofree char *message = g_strdup_printf (_("%s: “%s” is not a valid agent id (lowercase letters, digits, “-” and “_”; not “assistant”)"),
                                                      name, agent_id);

          g_ptr_array_add (agents, errored_entry (agent_id, message));
          continue;
        }
      agent = load_file (child, agent_id, &local_error);
      if (agent == NULL)
        {
          g_ptr_array_add (agents, errored_entry (agent_id, local_error->message));
          g_clear_error (&local_error);
          continue;
        }
      g_ptr_array_add (agents, agent);
    }

  g_ptr_array_sort (agents, compare_agents);
  return g_steal_pointer (&agents);
}

/**
 * natter_agent_store_save:
 * @self: the store
 * @agent: the agent (natter_agent_store_validate())
 * @error: return location for a #GError
 *
 * Writes @agent to `<agentId>.json`, creating the folder when needed and
 * replacing the file atomically (written to a temporary file, then
 * renamed over it), so a crash leaves the old or the new agent, never a
 * mix.
 *
 * Returns: %TRUE when saved; else %FALSE with %G_IO_ERROR_INVALID_DATA
 *   (@agent is not valid) or the %G_FILE_ERROR of writing
 */
gboolean
natter_agent_store_save (NatterAgentStore  *self,
                         JsonObject        *agent,
                         GError           **error)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), FALSE);
  g_return_val_if_fail (agent != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_agent_store_validate (agent, error))
    return FALSE;

  dir = g_file_get_path (self->dir);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not create %s: %s"), dir, g_strerror (saved_errno));
      return FALSE;
    }

  root = json_node_init_object (json_node_alloc (), agent);
  contents = natter_json_to_text (root, TRUE, NULL);
  length = strlen (contents);
  file = agent_file (self, json_object_get_string_member (agent, "agentId"));
  path = g_file_get_path (file);
  if (!g_file_set_contents_full (path, contents, length,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    return FALSE;
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

/**
 * natter_agent_store_delete:
 * @self: the store
 * @agent_id: an agent id
 * @error: return location for a #GError
 *
 * Removes `<agentId>.json`. Deleting an errored entry is allowed (it is
 * how the user gets rid of a broken file).
 *
 * Returns: %TRUE when removed; else %FALSE with
 *   %G_IO_ERROR_INVALID_ARGUMENT (not a valid id), %G_IO_ERROR_NOT_FOUND
 *   or another %G_IO_ERROR
 */
gboolean
natter_agent_store_delete (NatterAgentStore  *self,
                           const char        *agent_id,
                           GError           **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  file = named_agent_file (self, agent_id, error);
  if (file == NULL)
    return FALSE;
  if (!g_file_delete (file, NULL, &local_error))
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no agent “%s”"), agent_id);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  g_signal_emit (self, signals[CHANGED], 0);
  return TRUE;
}

static gboolean
is_agent_file (GFile *file)
{
  g_autofree char *name = file != NULL ? g_file_get_basename (file) : NULL;

  return name != NULL && name[0] != '.' && g_str_has_suffix (name, AGENT_SUFFIX);
}

static void
monitor_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    NatterAgentStore  *self)
{
  /* A save's temp file (not *.json) and the raw writes before
   * CHANGES_DONE_HINT are not agents changing. */
  if (event == G_FILE_MONITOR_EVENT_CHANGED || event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED ||
      event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
    return;
  if (is_agent_file (file) || is_agent_file (other_file))
    g_signal_emit (self, signals[CHANGED], 0);
}

/**
 * natter_agent_store_watch:
 * @self: the store
 *
 * Starts watching the folder (a #GFileMonitor, also while it does not
 * exist yet), so #NatterAgentStore::changed reports changes made outside
 * this store too: a deletion undone by rewriting the file, a file edited
 * or removed by hand. Idempotent. Without it, ::changed only follows
 * this store's own saves and deletions. Watching is best effort: when
 * the folder cannot be monitored, nothing else changes.
 */
void
natter_agent_store_watch (NatterAgentStore *self)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (NATTER_IS_AGENT_STORE (self));

  if (self->monitor != NULL)
    return;
  self->monitor = g_file_monitor_directory (self->dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      g_debug ("Not watching the agents folder: %s", error->message);
      return;
    }
  g_signal_connect (self->monitor, "changed", G_CALLBACK (monitor_changed_cb), self);
}

/**
 * natter_agent_store_make_id:
 * @self: the store
 * @name: (nullable): the agent's display name
 *
 * Derives a new, unused agent id from @name: lowercase ASCII letters and
 * digits with `-` between words (“Code Reviewer” → `code-reviewer`),
 * `agent` when nothing is left, and `-2`, `-3`, … appended while a file
 * of that id exists (or the id is the built-in agent's).
 *
 * Returns: (transfer full): the id
 */
char *
natter_agent_store_make_id (NatterAgentStore *self,
                            const char       *name)
{
  g_autoptr(GString) base = g_string_new (NULL);
  g_autofree char *ascii = NULL;

  g_return_val_if_fail (NATTER_IS_AGENT_STORE (self), NULL);

  ascii = g_str_to_ascii (name != NULL ? name : "", "C");
  for (const char *p = ascii; *p != '\0' && base->len < NATTER_AGENT_ID_MAX_LENGTH - 8; p++)
    {
      if (g_ascii_isalnum (*p))
        g_string_append_c (base, g_ascii_tolower (*p));
      else if (base->len > 0 && base->str[base->len - 1] != '-')
        g_string_append_c (base, '-');
    }
  while (base->len > 0 && base->str[base->len - 1] == '-')
    g_string_truncate (base, base->len - 1);
  if (base->len == 0)
    g_string_assign (base, "agent");

  for (guint n = 1;; n++)
    {
      g_autofree char *candidate = n == 1 ? g_strdup (base->str) : g_strdup_printf ("%s-%u", base->str, n);
      g_autoptr(GFile) file = agent_file (self, candidate);

      if (natter_agent_store_is_valid_id (candidate) && !g_file_query_exists (file, NULL))
        return g_steal_pointer (&candidate);
    }
}
