/* natter-mcp-secrets.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Header values of HTTP tool servers kept in the Secret Service rather
 * than in mcp.json: the reference mcp.json holds, and how a client turns
 * it back into the value when it connects.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-mcp-config.h"

G_BEGIN_DECLS

/**
 * NatterMcpSecretLookupFunc:
 * @key: the secret's key, as a reference in mcp.json names it
 * @user_data: the data given to natter_mcp_secrets_new()
 * @error: return location for why the store could not be asked
 *
 * Reads one stored secret, blocking (as the API key lookup does).
 *
 * Returns: (transfer full) (nullable): the value, or %NULL: with @error
 *   set when the store failed, without when nothing is stored under @key
 */
typedef char *(*NatterMcpSecretLookupFunc) (const char  *key,
                                            gpointer     user_data,
                                            GError     **error);

typedef struct _NatterMcpSecrets NatterMcpSecrets;

#define NATTER_TYPE_MCP_SECRETS (natter_mcp_secrets_get_type ())

GType             natter_mcp_secrets_get_type        (void) G_GNUC_CONST;
NatterMcpSecrets *natter_mcp_secrets_new             (NatterMcpSecretLookupFunc  lookup,
                                                      gpointer                   user_data,
                                                      GDestroyNotify             destroy);
NatterMcpSecrets *natter_mcp_secrets_ref             (NatterMcpSecrets          *self);
void              natter_mcp_secrets_unref           (NatterMcpSecrets          *self);
JsonObject       *natter_mcp_secrets_resolve_headers (NatterMcpSecrets          *self,
                                                      NatterMcpServerConfig     *config,
                                                      GError                   **error);

const char       *natter_mcp_header_get_secret_key   (JsonNode                  *value);
char             *natter_mcp_header_secret_key_for   (const char                *server,
                                                      const char                *header);
gboolean          natter_mcp_header_name_looks_secret (const char               *header);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterMcpSecrets, natter_mcp_secrets_unref)

G_END_DECLS
