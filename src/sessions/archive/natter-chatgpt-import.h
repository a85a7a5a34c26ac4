/* natter-chatgpt-import.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-session-archive.h"

G_BEGIN_DECLS

/**
 * NATTER_CHATGPT_IMPORTED_AGENT:
 *
 * The `agentId` an imported ChatGPT turn records (docs/format.md §7.2):
 * a label, never an agent of the person's.
 */
#define NATTER_CHATGPT_IMPORTED_AGENT "imported"

/**
 * NATTER_CHATGPT_IMPORTED_PROVIDER:
 *
 * The `provider` an imported ChatGPT turn records: a label, never a
 * provider id of the person's.
 */
#define NATTER_CHATGPT_IMPORTED_PROVIDER "chatgpt"

const char *natter_chatgpt_conversation_get_id         (JsonObject  *conversation);
char       *natter_chatgpt_conversation_dup_created_at (JsonObject  *conversation);
char       *natter_chatgpt_conversation_dup_name       (JsonObject  *conversation,
                                                        guint        number);
GPtrArray  *natter_chatgpt_plan_conversation           (JsonObject  *conversation,
                                                        guint       *counter,
                                                        GError     **error);

G_END_DECLS
