/* natter-tool-registry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The live tools by `toolId` (docs/runtime.md §1, §8). Snapshots store
 * descriptors; each advance looks the implementations up here again.
 */

#define G_LOG_DOMAIN "natter-tool-registry"

#include "natter-tool-registry.h"

struct _NatterToolRegistry
{
  GObject     parent_instance;

  GHashTable *tools;   /* toolId → NatterTool */
};

G_DEFINE_FINAL_TYPE (NatterToolRegistry, natter_tool_registry, G_TYPE_OBJECT)

static void
natter_tool_registry_finalize (GObject *object)
{
  NatterToolRegistry *self = NATTER_TOOL_REGISTRY (object);

  g_clear_pointer (&self->tools, g_hash_table_unref);

  G_OBJECT_CLASS (natter_tool_registry_parent_class)->finalize (object);
}

static void
natter_tool_registry_class_init (NatterToolRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_tool_registry_finalize;
}

static void
natter_tool_registry_init (NatterToolRegistry *self)
{
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
}

/**
 * natter_tool_registry_new:
 *
 * The live tools of docs/runtime.md §6 step 4 and §8.
 *
 * Returns: (transfer full): an empty registry
 */
NatterToolRegistry *
natter_tool_registry_new (void)
{
  return g_object_new (NATTER_TYPE_TOOL_REGISTRY, NULL);
}

/**
 * natter_tool_registry_add:
 * @self: a #NatterToolRegistry
 * @tool: (transfer none): a tool; replaces one with the same `toolId`
 *
 * Registers @tool under its `toolId`.
 *
 * Part of docs/runtime.md §8.
 */
void
natter_tool_registry_add (NatterToolRegistry *self,
                          NatterTool         *tool)
{
  g_return_if_fail (NATTER_IS_TOOL_REGISTRY (self));
  g_return_if_fail (NATTER_IS_TOOL (tool));

  g_hash_table_replace (self->tools, g_strdup (natter_tool_get_id (tool)), g_object_ref (tool));
}

/**
 * natter_tool_registry_remove:
 * @self: a #NatterToolRegistry
 * @tool_id: a `toolId`
 *
 * Forgets a tool that is gone (a tool server's tool no longer listed).
 * Turns that already offered it keep it in their snapshot; advancing one
 * of them then fails as docs/runtime.md §6 step 4 says.
 */
void
natter_tool_registry_remove (NatterToolRegistry *self,
                             const char         *tool_id)
{
  g_return_if_fail (NATTER_IS_TOOL_REGISTRY (self));
  g_return_if_fail (tool_id != NULL);

  g_hash_table_remove (self->tools, tool_id);
}

/**
 * natter_tool_registry_lookup:
 * @self: a #NatterToolRegistry
 * @tool_id: a `toolId`
 *
 * Part of docs/runtime.md §6 step 4.
 *
 * Returns: (transfer none) (nullable): the tool, or %NULL
 */
NatterTool *
natter_tool_registry_lookup (NatterToolRegistry *self,
                             const char         *tool_id)
{
  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (self), NULL);
  g_return_val_if_fail (tool_id != NULL, NULL);

  return g_hash_table_lookup (self->tools, tool_id);
}

/**
 * natter_tool_registry_lookup_id_or_name:
 * @self: the registry
 * @id_or_name: a tool's registry id (`natter.read_file`) or the name the
 *   model sees (`read_file`), as a person would type it
 *
 * Finds a tool by id, else by the `name` of its descriptor when exactly
 * one tool has it.
 *
 * Returns: (transfer none) (nullable): the tool, or %NULL when none (or
 *   several) match
 */
NatterTool *
natter_tool_registry_lookup_id_or_name (NatterToolRegistry *self,
                                        const char         *id_or_name)
{
  GHashTableIter iter;
  NatterTool *tool;
  NatterTool *found = NULL;

  g_return_val_if_fail (NATTER_IS_TOOL_REGISTRY (self), NULL);
  g_return_val_if_fail (id_or_name != NULL, NULL);

  if ((tool = g_hash_table_lookup (self->tools, id_or_name)) != NULL)
    return tool;
  g_hash_table_iter_init (&iter, self->tools);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &tool))
    {
      const char *name = json_object_get_string_member_with_default (natter_tool_get_descriptor (tool), "name", "");

      if (g_str_equal (name, id_or_name))
        {
          if (found != NULL)
            return NULL;
          found = tool;
        }
    }
  return found;
}
