/* natter-mcp-config.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tool-server configuration, `$XDG_CONFIG_HOME/natter/mcp.json`, in
 * the `mcpServers` format other MCP clients use, so a user can copy a
 * server between them.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NatterMcpTransportKind:
 * @NATTER_MCP_TRANSPORT_STDIO: a program started by Natter, spoken to on
 *   its standard input and output (`command`, `args`, `env`)
 * @NATTER_MCP_TRANSPORT_HTTP: a Streamable HTTP endpoint (`url`,
 *   `headers`)
 *
 * How Natter reaches a tool server.
 */
typedef enum
{
  NATTER_MCP_TRANSPORT_STDIO,
  NATTER_MCP_TRANSPORT_HTTP,
} NatterMcpTransportKind;

/**
 * NatterMcpServerConfig:
 * @name: the key under `mcpServers`
 * @kind: the transport
 * @command: (nullable): the program of a stdio server
 * @args: (array zero-terminated=1): its arguments (never %NULL)
 * @env: (nullable): extra environment variables, string values only
 * @url: (nullable): the endpoint of an HTTP server
 * @headers: (nullable): extra HTTP headers: text values, or
 *   `{"secret": KEY}` references to the Secret Service
 *   (natter_mcp_secrets_resolve_headers())
 * @enabled: %FALSE when the entry says `"disabled": true`
 * @timeout_seconds: the entry's `timeout` in seconds, 0 when it has none
 *
 * One validated server entry. Immutable and reference counted.
 */
typedef struct
{
  char                   *name;
  NatterMcpTransportKind  kind;
  char                   *command;
  GStrv                   args;
  JsonObject             *env;
  char                   *url;
  JsonObject             *headers;
  gboolean                enabled;
  guint                   timeout_seconds;
} NatterMcpServerConfig;

#define NATTER_TYPE_MCP_SERVER_CONFIG (natter_mcp_server_config_get_type ())

GType                  natter_mcp_server_config_get_type (void) G_GNUC_CONST;
NatterMcpServerConfig *natter_mcp_server_config_ref      (NatterMcpServerConfig *config);
void                   natter_mcp_server_config_unref    (NatterMcpServerConfig *config);
NatterMcpServerConfig *natter_mcp_server_config_parse    (const char            *name,
                                                          JsonNode              *entry,
                                                          GError               **error);
gboolean               natter_mcp_server_config_equal    (const NatterMcpServerConfig *a,
                                                          const NatterMcpServerConfig *b);

char                  *natter_mcp_config_default_path    (void);
GPtrArray             *natter_mcp_config_parse           (const char            *text,
                                                          gssize                 length,
                                                          const char            *origin,
                                                          GError               **error);
GPtrArray             *natter_mcp_config_load            (const char            *path,
                                                          GError               **error);
NatterMcpServerConfig *natter_mcp_config_find            (GPtrArray             *servers,
                                                          const char            *name);
JsonObject            *natter_mcp_config_dup_entry       (const char            *path,
                                                          const char            *name,
                                                          GError               **error);
gboolean               natter_mcp_config_update          (const char            *path,
                                                          const char            *name,
                                                          JsonObject            *entry,
                                                          GError               **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterMcpServerConfig, natter_mcp_server_config_unref)

G_END_DECLS
