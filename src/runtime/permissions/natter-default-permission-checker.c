/* natter-default-permission-checker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The application's permission checker (docs/runtime.md §7). It fails
 * closed by construction: only tools named in an explicit "no permission"
 * set run without asking; every other tool, including one it has never
 * heard of, requires permission. The request shown to the human is what
 * the tool says it will do (natter_tool_describe_request()), or the
 * generic `{tool, arguments}`.
 */

#define G_LOG_DOMAIN "natter-default-permission-checker"

#include "natter-builtin-tools.h"
#include "natter-default-permission-checker.h"

struct _NatterDefaultPermissionChecker
{
  GObject             parent_instance;
  NatterToolRegistry *tools;
  GHashTable         *free_ids;   /* toolIds that need no permission */
};

static void checker_iface_init (NatterPermissionCheckerInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterDefaultPermissionChecker, natter_default_permission_checker,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CHECKER, checker_iface_init))

static gboolean
natter_default_permission_checker_check_in (NatterPermissionChecker  *checker,
                                            JsonObject               *tool_descriptor,
                                            JsonObject               *input,
                                            const char               *cwd,
                                            gboolean                 *out_required,
                                            JsonNode                **out_request,
                                            GError                  **error)
{
  NatterDefaultPermissionChecker *self = NATTER_DEFAULT_PERMISSION_CHECKER (checker);
  const char *tool_id = json_object_get_string_member_with_default (tool_descriptor, "toolId", "");
  NatterTool *tool;
  JsonNode *request = NULL;

  if (g_hash_table_contains (self->free_ids, tool_id))
    {
      *out_required = FALSE;
      return TRUE;
    }

  *out_required = TRUE;
  tool = natter_tool_registry_lookup (self->tools, tool_id);
  if (tool != NULL)
    request = natter_tool_describe_request (tool, input, cwd);
  if (request == NULL)
    {
      g_autoptr(JsonObject) generic = json_object_new ();
      JsonNode *arguments = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (arguments, input);
      json_object_set_string_member (generic, "tool",
                                     json_object_get_string_member_with_default (tool_descriptor,
                                                                                 "name", tool_id));
      json_object_set_member (generic, "arguments", json_node_copy (arguments));
      json_node_unref (arguments);
      request = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (request, generic);
    }
  *out_request = request;
  return TRUE;
}

static gboolean
natter_default_permission_checker_check (NatterPermissionChecker  *checker,
                                         JsonObject               *tool_descriptor,
                                         JsonObject               *input,
                                         gboolean                 *out_required,
                                         JsonNode                **out_request,
                                         GError                  **error)
{
  return natter_default_permission_checker_check_in (checker, tool_descriptor, input, NULL,
                                                     out_required, out_request, error);
}

static void
checker_iface_init (NatterPermissionCheckerInterface *iface)
{
  iface->check = natter_default_permission_checker_check;
  iface->check_in = natter_default_permission_checker_check_in;
}

static void
natter_default_permission_checker_finalize (GObject *object)
{
  NatterDefaultPermissionChecker *self = NATTER_DEFAULT_PERMISSION_CHECKER (object);

  g_clear_object (&self->tools);
  g_clear_pointer (&self->free_ids, g_hash_table_unref);
  G_OBJECT_CLASS (natter_default_permission_checker_parent_class)->finalize (object);
}

static void
natter_default_permission_checker_class_init (NatterDefaultPermissionCheckerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_default_permission_checker_finalize;
}

static void
natter_default_permission_checker_init (NatterDefaultPermissionChecker *self)
{
  self->free_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * natter_default_permission_checker_new:
 * @tools: the live tools, asked to describe their calls
 * @no_permission_tool_ids: (nullable) (array zero-terminated=1): the
 *   toolIds that run without permission; %NULL for the built-in set
 *   (ask_human and current_time)
 *
 * The fail-closed checker of docs/runtime.md §7: any tool not in
 * @no_permission_tool_ids requires permission.
 *
 * Returns: (transfer full): the checker
 */
NatterDefaultPermissionChecker *
natter_default_permission_checker_new (NatterToolRegistry *tools,
                                       const char * const *no_permission_tool_ids)
{
  static const char * const builtin_free[] = {
    NATTER_TOOL_ID_ASK_HUMAN,
    NATTER_TOOL_ID_CURRENT_TIME,
    NULL,
  };
  NatterDefaultPermissionChecker *self;

  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (tools), NULL);

  self = g_object_new (NATTER_TYPE_DEFAULT_PERMISSION_CHECKER, NULL);
  self->tools = g_object_ref (tools);
  if (no_permission_tool_ids == NULL)
    no_permission_tool_ids = builtin_free;
  for (guint i = 0; no_permission_tool_ids[i] != NULL; i++)
    g_hash_table_add (self->free_ids, g_strdup (no_permission_tool_ids[i]));
  return self;
}
