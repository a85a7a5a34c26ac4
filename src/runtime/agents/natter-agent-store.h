/* natter-agent-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/**
 * NATTER_CONFIG_DIR_ENV:
 *
 * The environment variable that overrides the configuration folder
 * (`$XDG_CONFIG_HOME/natter`), for tests.
 */
#define NATTER_CONFIG_DIR_ENV "NATTER_CONFIG_DIR"

/**
 * NATTER_AGENT_ID_MAX_LENGTH:
 *
 * The longest agent id, in bytes.
 */
#define NATTER_AGENT_ID_MAX_LENGTH 64

#define NATTER_TYPE_AGENT_STORE (natter_agent_store_get_type ())

G_DECLARE_FINAL_TYPE (NatterAgentStore, natter_agent_store, NATTER, AGENT_STORE, GObject)

GFile            *natter_agent_store_get_default_dir (void);
gboolean          natter_agent_store_is_valid_id     (const char        *agent_id);
gboolean          natter_agent_store_validate        (JsonObject        *agent,
                                                      GError           **error);

NatterAgentStore *natter_agent_store_new             (GFile             *dir);
GFile            *natter_agent_store_get_dir         (NatterAgentStore  *self);
GPtrArray        *natter_agent_store_list            (NatterAgentStore  *self,
                                                      GError           **error);
JsonObject       *natter_agent_store_load            (NatterAgentStore  *self,
                                                      const char        *agent_id,
                                                      GError           **error);
gboolean          natter_agent_store_save            (NatterAgentStore  *self,
                                                      JsonObject        *agent,
                                                      GError           **error);
gboolean          natter_agent_store_delete          (NatterAgentStore  *self,
                                                      const char        *agent_id,
                                                      GError           **error);
char             *natter_agent_store_make_id         (NatterAgentStore  *self,
                                                      const char        *name);
void              natter_agent_store_watch           (NatterAgentStore  *self);

G_END_DECLS
