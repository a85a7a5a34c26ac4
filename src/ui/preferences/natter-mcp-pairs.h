/* natter-mcp-pairs.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/**
 * NatterMcpPair:
 * @name: the variable's or header's name, trimmed
 * @value: what was typed as its value (may be empty for a stored secret)
 * @secret: the value is kept in the Secret Service
 * @stored_key: (nullable): the key it is kept under already, when the
 *   edited entry had a reference
 *
 * One name/value row as read from the editor.
 */
typedef struct
{
  char     *name;
  char     *value;
  gboolean  secret;
  char     *stored_key;
} NatterMcpPair;

#define NATTER_TYPE_MCP_PAIRS (natter_mcp_pairs_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpPairs, natter_mcp_pairs, NATTER, MCP_PAIRS, AdwPreferencesGroup)

void                 natter_mcp_pairs_clear      (NatterMcpPairs *self);
void                 natter_mcp_pairs_add        (NatterMcpPairs *self,
                                                  const char     *name,
                                                  const char     *value,
                                                  const char     *stored_key);
guint                natter_mcp_pairs_get_n      (NatterMcpPairs *self);
GtkWidget           *natter_mcp_pairs_get_widget (NatterMcpPairs *self,
                                                  guint           index,
                                                  const char     *field);
GPtrArray           *natter_mcp_pairs_collect    (NatterMcpPairs *self,
                                                  GError        **error);

G_END_DECLS
