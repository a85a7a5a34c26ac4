/* natter-mcp-secrets.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A header value typed as secret on the Tool Servers page goes to the
 * Secret Service, like an API key; mcp.json then holds
 * `{"secret": "KEY"}` in its place (README, "Tool servers"). The mcp
 * layer cannot reach the store itself (it lives above, in app/), so the
 * application hands a lookup function down, and a client asks it for
 * each reference when it connects. Values are never logged nor put in
 * an error message.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include <string.h>

#include "natter-mcp-error.h"
#include "natter-mcp-secrets.h"

struct _NatterMcpSecrets
{
  NatterMcpSecretLookupFunc lookup;
  gpointer                  user_data;
  GDestroyNotify            destroy;
};

static void
secrets_clear (gpointer data)
{
  NatterMcpSecrets *self = data;

  if (self->destroy != NULL)
    self->destroy (self->user_data);
}

/**
 * natter_mcp_secrets_new:
 * @lookup: (scope notified): reads one secret
 * @user_data: its data
 * @destroy: (nullable): frees @user_data with the last reference
 *
 * Returns: (transfer full): where clients read their secret header values
 */
NatterMcpSecrets *
natter_mcp_secrets_new (NatterMcpSecretLookupFunc lookup,
                        gpointer                  user_data,
                        GDestroyNotify            destroy)
{
  NatterMcpSecrets *self;

  g_return_val_if_fail (lookup != NULL, NULL);

  self = g_atomic_rc_box_new0 (NatterMcpSecrets);
  self->lookup = lookup;
  self->user_data = user_data;
  self->destroy = destroy;
  return self;
}

/**
 * natter_mcp_secrets_ref:
 * @self: the secrets
 *
 * Returns: (transfer full): @self
 */
NatterMcpSecrets *
natter_mcp_secrets_ref (NatterMcpSecrets *self)
{
  return g_atomic_rc_box_acquire (self);
}

/**
 * natter_mcp_secrets_unref:
 * @self: (transfer full): the secrets
 */
void
natter_mcp_secrets_unref (NatterMcpSecrets *self)
{
  g_atomic_rc_box_release_full (self, secrets_clear);
}

G_DEFINE_BOXED_TYPE (NatterMcpSecrets, natter_mcp_secrets, natter_mcp_secrets_ref, natter_mcp_secrets_unref)

/**
 * natter_mcp_header_get_secret_key:
 * @value: a value of an entry's `headers`
 *
 * Returns: (nullable): the key of the stored secret when @value is a
 *   reference (`{"secret": "KEY"}`), %NULL when it is the value itself
 */
const char *
natter_mcp_header_get_secret_key (JsonNode *value)
{
  JsonNode *key;

  g_return_val_if_fail (value != NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (value))
    return NULL;
  key = json_object_get_member (json_node_get_object (value), "secret");
  if (key == NULL || !JSON_NODE_HOLDS_VALUE (key) || json_node_get_value_type (key) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (key);
}

/**
 * natter_mcp_header_secret_key_for:
 * @server: a server's name
 * @header: one of its header's names
 *
 * The key under which the Tool Servers page stores a secret header
 * value: `mcp-header:SERVER/HEADER`, in the store of API keys (whose
 * keys are provider ids and endpoint URLs, neither of which starts so).
 *
 * Returns: (transfer full): the key
 */
char *
natter_mcp_header_secret_key_for (const char *server,
                                  const char *header)
{
  g_return_val_if_fail (server != NULL && header != NULL, NULL);

  return g_strdup_printf ("mcp-header:%s/%s", server, header);
}

/**
 * natter_mcp_header_name_looks_secret:
 * @header: a header's name
 *
 * Whether a header of that name usually carries a credential
 * (Authorization, Cookie, anything with a token, key, secret or
 * password in its name), so the page offers to keep it secret.
 *
 * Returns: %TRUE when it looks like one
 */
gboolean
natter_mcp_header_name_looks_secret (const char *header)
{
  static const char * const words[] = { "auth", "token", "key", "secret", "password", "cookie", "session", NULL };
  g_autofree char *lower = NULL;

  g_return_val_if_fail (header != NULL, FALSE);

  lower = g_ascii_strdown (header, -1);
  for (guint i = 0; words[i] != NULL; i++)
    if (strstr (lower, words[i]) != NULL)
      return TRUE;
  return FALSE;
}

/**
 * natter_mcp_secrets_resolve_headers:
 * @self: (nullable): where secrets are read; %NULL when there is no
 *   store (a reference then fails)
 * @config: an HTTP server
 * @error: return location for a %NATTER_MCP_ERROR_START error (naming
 *   the server and the header, never a value)
 *
 * The headers to send: @config's, with each `{"secret": KEY}` replaced
 * by the value stored under KEY.
 *
 * Returns: (transfer full) (nullable): name → text, or %NULL with @error
 */
JsonObject *
natter_mcp_secrets_resolve_headers (NatterMcpSecrets       *self,
                                    NatterMcpServerConfig  *config,
                                    GError                **error)
{
  g_autoptr(JsonObject) headers = json_object_new ();
  g_autoptr(GList) names = NULL;

  g_return_val_if_fail (config != NULL, NULL);

  if (config->headers != NULL)
    names = json_object_get_members (config->headers);
  for (GList *l = names; l != NULL; l = l->next)
    {
      JsonNode *value = json_object_get_member (config->headers, l->data);
      const char *key = natter_mcp_header_get_secret_key (value);
      g_autoptr(GError) local_error = NULL;
      char *secret;

      if (key == NULL)
        {
          json_object_set_string_member (headers, l->data, json_node_get_string (value));
          continue;
        }
      secret = self != NULL ? self->lookup (key, self->user_data, &local_error) : NULL;
      if (local_error != NULL)
        {
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START,
                       "Tool server “%s”: the value of header “%s” is kept in the Secret Service, which "
                         "could not be read: %s", config->name, (const char *) l->data, local_error->message);
          return NULL;
        }
      if (secret == NULL || *secret == '\0')
        {
          g_free (secret);
          g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START,
                       "Tool server “%s”: the value of header “%s” is not in the Secret Service; type it again "
                         "on the Tool Servers page of Preferences", config->name, (const char *) l->data);
          return NULL;
        }
      json_object_set_string_member (headers, l->data, secret);
      /* Overwritten before it is freed: it is a credential. */
      memset (secret, 0, strlen (secret));
      g_free (secret);
    }
  return g_steal_pointer (&headers);
}
