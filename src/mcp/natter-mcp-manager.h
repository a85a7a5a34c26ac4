/* natter-mcp-manager.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-mcp-client.h"
#include "natter-tool-registry.h"

G_BEGIN_DECLS

#define NATTER_TYPE_MCP_MANAGER (natter_mcp_manager_get_type ())

G_DECLARE_FINAL_TYPE (NatterMcpManager, natter_mcp_manager, NATTER, MCP_MANAGER, GObject)

NatterMcpManager *natter_mcp_manager_new             (const char          *config_path,
                                                      NatterToolRegistry  *registry);
const char       *natter_mcp_manager_get_config_error (NatterMcpManager   *self);
GPtrArray        *natter_mcp_manager_get_clients     (NatterMcpManager    *self);
GPtrArray        *natter_mcp_manager_get_configs     (NatterMcpManager    *self);
NatterMcpClient  *natter_mcp_manager_find_client     (NatterMcpManager    *self,
                                                      const char          *server);
JsonArray        *natter_mcp_manager_get_server_tools (NatterMcpManager   *self,
                                                       NatterMcpClient    *client);
const char       *natter_mcp_manager_get_config_path (NatterMcpManager    *self);
JsonArray        *natter_mcp_manager_get_descriptors (NatterMcpManager    *self);
guint             natter_mcp_manager_count_tools     (NatterMcpManager    *self,
                                                      const char          *server);
void              natter_mcp_manager_reload          (NatterMcpManager    *self);
void              natter_mcp_manager_watch           (NatterMcpManager    *self);
NatterMcpClient  *natter_mcp_manager_new_client      (NatterMcpManager      *self,
                                                      NatterMcpServerConfig *config);
void              natter_mcp_manager_set_secrets     (NatterMcpManager    *self,
                                                      NatterMcpSecrets    *secrets);
guint             natter_mcp_manager_get_default_timeout (NatterMcpManager *self);
void              natter_mcp_manager_set_default_timeout (NatterMcpManager *self,
                                                          guint             seconds);
void              natter_mcp_manager_refresh_async   (NatterMcpManager    *self,
                                                      GCancellable        *cancellable,
                                                      GAsyncReadyCallback  callback,
                                                      gpointer             user_data);
gboolean          natter_mcp_manager_refresh_finish  (NatterMcpManager    *self,
                                                      GAsyncResult        *result,
                                                      GError             **error);

G_END_DECLS
