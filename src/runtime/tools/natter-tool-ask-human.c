/* natter-tool-ask-human.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * ask_human {question}: an ordinary async tool with requiresHuman
 * (docs/runtime.md §8). It has no executor: the runtime exposes the call,
 * the turn suspends with it in pendingAsyncTools, and the human's answer
 * arrives as an `async_tool_result` input whose output is the answer.
 * When the turn has no human the runtime answers with a runtime error
 * result itself.
 */

#define G_LOG_DOMAIN "natter-tool-ask-human"

#include "natter-builtin-tools.h"
#include "natter-tool-path.h"

struct _NatterToolAskHuman
{
  GObject     parent_instance;
  JsonObject *descriptor;
};

static void tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterToolAskHuman, natter_tool_ask_human, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, tool_iface_init))

static JsonObject *
natter_tool_ask_human_get_descriptor (NatterTool *tool)
{
  return NATTER_TOOL_ASK_HUMAN (tool)->descriptor;
}

static void
tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = natter_tool_ask_human_get_descriptor;
}

static void
natter_tool_ask_human_finalize (GObject *object)
{
  g_clear_pointer (&NATTER_TOOL_ASK_HUMAN (object)->descriptor, json_object_unref);
  G_OBJECT_CLASS (natter_tool_ask_human_parent_class)->finalize (object);
}

static void
natter_tool_ask_human_class_init (NatterToolAskHumanClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_tool_ask_human_finalize;
}

static void
natter_tool_ask_human_init (NatterToolAskHuman *self)
{
  self->descriptor = natter_tool_descriptor_new (NATTER_TOOL_ID_ASK_HUMAN, "ask_human",
                                                 "Ask the user a question and wait for the answer.",
                                                 "{\"type\":\"object\",\"properties\":{\"question\":"
                                                 "{\"type\":\"string\",\"description\":\"The question to ask\"}},"
                                                 "\"required\":[\"question\"]}",
                                                 TRUE, TRUE);
}

/**
 * natter_tool_ask_human_new:
 *
 * The ask_human tool of docs/runtime.md §8: async, requiresHuman, input
 * `{question}`; the answer is the tool result.
 *
 * Returns: (transfer full): the tool
 */
NatterTool *
natter_tool_ask_human_new (void)
{
  return g_object_new (NATTER_TYPE_TOOL_ASK_HUMAN, NULL);
}
