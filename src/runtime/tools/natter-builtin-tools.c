/* natter-builtin-tools.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-builtin-tools"

#include "natter-builtin-tools.h"

/**
 * natter_builtin_tools_register:
 * @registry: the tool registry
 * @clock: the clock current_time reads
 *
 * Adds ask_human, read_file, list_directory and current_time
 * (docs/runtime.md §8) to @registry.
 */
void
natter_builtin_tools_register (NatterToolRegistry *registry,
                               NatterClock        *clock)
{
  g_autoptr(NatterTool) ask_human = natter_tool_ask_human_new ();
  g_autoptr(NatterTool) read_file = natter_tool_read_file_new ();
  g_autoptr(NatterTool) list_directory = natter_tool_list_directory_new ();
  g_autoptr(NatterTool) current_time = natter_tool_current_time_new (clock);

  g_return_if_fail (NATTER_IS_TOOL_REGISTRY (registry));

  natter_tool_registry_add (registry, ask_human);
  natter_tool_registry_add (registry, read_file);
  natter_tool_registry_add (registry, list_directory);
  natter_tool_registry_add (registry, current_time);
}

/**
 * natter_builtin_tools_descriptors:
 * @registry: a registry the built-in tools were registered in
 *
 * The descriptors an agent preset lists to offer every built-in tool
 * (docs/runtime.md §1).
 *
 * Returns: (transfer full): copies of the four descriptors, in a fixed
 *   order
 */
JsonArray *
natter_builtin_tools_descriptors (NatterToolRegistry *registry)
{
  static const char * const ids[] = {
    NATTER_TOOL_ID_ASK_HUMAN,
    NATTER_TOOL_ID_READ_FILE,
    NATTER_TOOL_ID_LIST_DIRECTORY,
    NATTER_TOOL_ID_CURRENT_TIME,
  };
  JsonArray *descriptors = json_array_new ();

  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (registry), descriptors);

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      NatterTool *tool = natter_tool_registry_lookup (registry, ids[i]);
      JsonNode *node;

      if (tool == NULL)
        continue;
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (node, natter_tool_get_descriptor (tool));
      json_array_add_element (descriptors, json_node_copy (node));
      json_node_unref (node);
    }
  return descriptors;
}
