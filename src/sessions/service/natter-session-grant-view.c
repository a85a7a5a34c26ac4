/* natter-session-grant-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session-keyed grants view the runtime consults (docs/sessions.md
 * §12). The session service keeps it current: every state it reads
 * under a session's lock, and every state after it appended version-2
 * events (the only way grants change), replaces the session's entry. A
 * session not seen yet (a turn advanced after a restart, before anything
 * read its session) is read from its file once. A file that cannot be read
 * gives no grant: the person is asked, which is never wrong.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-log-read.h"
#include "natter-session-grant-view.h"
#include "natter-session-grants-queue.h"

struct _NatterSessionGrantView
{
  GObject          parent_instance;

  NatterJsonlRepo *repo;
  GHashTable      *sessions;   /* session id → GHashTable of tool id → grant id */
};

static void grants_iface_init (NatterPermissionGrantsInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterSessionGrantView, natter_session_grant_view, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_GRANTS, grants_iface_init))

static GHashTable *
tools_of (NatterSessionState *state)
{
  GHashTable *tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  /* The oldest grant of a tool is the one reported, as
   * natter_session_state_find_grant_for_tool() does. */
  for (guint i = natter_session_state_get_n_grants (state); i > 0; i--)
    {
      const NatterSessionGrant *grant = natter_session_state_get_grant (state, i - 1);

      g_hash_table_replace (tools, g_strdup (grant->tool_id), g_strdup (grant->grant_id));
    }
  return tools;
}

static char *
natter_session_grant_view_lookup (NatterPermissionGrants *grants,
                                  const char             *session_id,
                                  const char             *tool_id)
{
  NatterSessionGrantView *self = NATTER_SESSION_GRANT_VIEW (grants);
  GHashTable *tools = g_hash_table_lookup (self->sessions, session_id);

  if (tools == NULL)
    {
      g_autoptr(NatterSessionState) state = natter_session_reduce_file_sync (self->repo, session_id, NULL,
                                                                              NULL, NULL);

      if (state == NULL)
        return NULL;
      natter_session_grant_view_update (self, state);
      tools = g_hash_table_lookup (self->sessions, session_id);
    }
  return g_strdup (g_hash_table_lookup (tools, tool_id));
}

static void
grants_iface_init (NatterPermissionGrantsInterface *iface)
{
  iface->lookup = natter_session_grant_view_lookup;
}

static void
natter_session_grant_view_finalize (GObject *object)
{
  NatterSessionGrantView *self = NATTER_SESSION_GRANT_VIEW (object);

  g_clear_object (&self->repo);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  G_OBJECT_CLASS (natter_session_grant_view_parent_class)->finalize (object);
}

static void
natter_session_grant_view_class_init (NatterSessionGrantViewClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_session_grant_view_finalize;
}

static void
natter_session_grant_view_init (NatterSessionGrantView *self)
{
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_hash_table_unref);
}

/**
 * natter_session_grant_view_new:
 * @session_repo: the session repository, read for a session not seen yet
 *
 * Returns: (transfer full): an empty view
 */
NatterSessionGrantView *
natter_session_grant_view_new (NatterJsonlRepo *session_repo)
{
  NatterSessionGrantView *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (session_repo), NULL);

  self = g_object_new (NATTER_TYPE_SESSION_GRANT_VIEW, NULL);
  self->repo = g_object_ref (session_repo);
  return self;
}

/**
 * natter_session_grant_view_update:
 * @self: the view
 * @state: a session's state as on disk
 *
 * Replaces what the view knows of @state's session with its active grants.
 */
void
natter_session_grant_view_update (NatterSessionGrantView *self,
                                  NatterSessionState     *state)
{
  g_return_if_fail (NATTER_IS_SESSION_GRANT_VIEW (self));
  g_return_if_fail (state != NULL && natter_session_state_get_session_id (state) != NULL);

  g_hash_table_replace (self->sessions, g_strdup (natter_session_state_get_session_id (state)),
                        tools_of (state));
}

/**
 * natter_session_grant_view_forget:
 * @self: the view
 * @session_id: a deleted session
 *
 * Drops what the view knows of @session_id.
 */
void
natter_session_grant_view_forget (NatterSessionGrantView *self,
                                  const char             *session_id)
{
  g_return_if_fail (NATTER_IS_SESSION_GRANT_VIEW (self));

  g_hash_table_remove (self->sessions, session_id);
}
