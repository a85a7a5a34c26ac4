/* natter-sessions-conversations.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session-level operations of the session service (docs/sessions.md
 * §9): create a conversation or fork one at a turn, read a session or a
 * turn, set a title, delete a session, and flush the operations under
 * way. Each runs under the session's lock on the machinery of
 * natter-sessions-op.c; the object they work on is natter-sessions.c.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-runtime-error.h"
#include "natter-session-families.h"
#include "natter-session-index-internal.h"
#include "natter-session-parameters-event.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"
#include "natter-sync-conflict-name.h"
#include "natter-store-error.h"

/* create_session / fork */

/* A branch of a branch of …: a fork looks this many ancestors up for
 * its turn. */
#define MAX_FORK_ANCESTORS 64

typedef struct
{
  NatterSessionsOp  base;
  char             *title;
  char             *cwd;
  char             *parent_session;
  char             *forked_from_turn_id;
  gboolean          inherit_cwd;      /* a fork: the parent's cwd and latest turn */
  gboolean          fork_is_earlier;  /* the fork point is not the parent's latest turn */
  JsonObject       *compaction;       /* a fork: the parent's, while it may apply; then the one kept */
  /* A fork: the session it was asked of, whose conversation's settings
   * the branch takes; and, while the turn is looked for in the history
   * that session shows, the ancestor and fork point to look in next. */
  char             *shown;
  char             *walk_session;
  char             *walk_point;
  guint             walk_hops;
  JsonObject       *walk_compaction;  /* the shown session's, of turns it inherits */
  /* The parent named is deleted: a version of it stands alone and has
   * no original to share the settings of (docs/format.md §3.5). */
  gboolean          parent_gone;
} CreateData;

NATTER_SESSIONS_DEFINE_OP (CreateData, create_data)

static void
create_data_clear (CreateData *data)
{
  g_free (data->title);
  g_free (data->cwd);
  g_free (data->parent_session);
  g_free (data->forked_from_turn_id);
  g_clear_pointer (&data->compaction, json_object_unref);
  g_free (data->shown);
  g_free (data->walk_session);
  g_free (data->walk_point);
  g_clear_pointer (&data->walk_compaction, json_object_unref);
}

static void
fork_written_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  GError *error = NULL;

  if (!natter_sessions_append_events_finish (NATTER_SESSIONS (object), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, g_strdup (data->session_id), g_free);
}

/* What a new fork's own file holds beside its `session_created`,
 * written in one append once the file exists: the compaction of the
 * turns it inherits (docs/sessions.md §5), and for a branch made on
 * purpose, a conversation of its own, the settings of the conversation
 * it was made from and its folder (docs/format.md §3.5, §3.6). A
 * version has none of these: it shares its original's; but a version
 * of a deleted original stands alone, and takes them as a branch does.
 * The pin stays behind, so that one conversation is not pinned twice
 * over. */
static GPtrArray *
fork_inherited_events (CreateData *data)
{
  NatterSessions *self = data->base.self;
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  const NatterGenerationParameters *parameters;
  const char *folder_id;

  if (data->compaction != NULL)
    g_ptr_array_add (events, natter_sessions_compaction_copy (self, data->base.session_id, data->compaction));
  if (data->shown == NULL || (data->title != NULL && !data->parent_gone))
    return events;
  parameters = natter_sessions_get_kept_parameters (self, data->shown);
  if (parameters != NULL)
    g_ptr_array_add (events, natter_session_event_new_parameters_changed (data->base.session_id, ts, parameters));
  folder_id = natter_sessions_get_folder_id (self, data->shown);
  if (folder_id != NULL)
    g_ptr_array_add (events, natter_session_event_new_folder_changed (data->base.session_id, ts, folder_id));
  return events;
}

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  NatterSessions *self = data->self;
  g_autoptr(GPtrArray) events = NULL;
  GError *error = NULL;

  if (!natter_jsonl_repo_create_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (self->index, data->state, NATTER_LATEST_TURN_STATUS_NONE);
  natter_sessions_op_finish (task);
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, data->session_id);
  events = fork_inherited_events (create_data_get (task));
  if (events->len > 0)
    {
      natter_sessions_append_events_async (self, data->session_id, events, NULL, fork_written_cb,
                                           g_steal_pointer (&task));
      return;
    }
  g_task_return_pointer (task, g_strdup (data->session_id), g_free);
}

static void
create_write (GTask *task)
{
  CreateData *data = create_data_get (task);
  NatterSessions *self = data->base.self;
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autoptr(JsonNode) event = NULL;
  GError *error = NULL;

  event = natter_session_event_new_created (data->base.session_id, ts, data->title, data->cwd,
                                            data->parent_session, data->forked_from_turn_id);
  data->base.state = natter_session_state_new ();
  if (!natter_session_state_apply (data->base.state, json_node_get_object (event), &error))
    {
      g_prefix_error (&error, "Invalid session: ");
      error->domain = NATTER_SESSION_ERROR;
      error->code = NATTER_SESSION_ERROR_INVALID_ARGUMENT;
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_jsonl_repo_create_async (self->session_repo, data->base.session_id, event,
                                  g_task_get_cancellable (task), created_cb, g_object_ref (task));
}

static void
fork_compaction_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  GError *error = NULL;

  g_clear_pointer (&data->compaction, json_object_unref);
  data->compaction = natter_sessions_fork_compaction_finish (result, &error);
  if (error != NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_history_error (error, data->parent_session, NULL));
      return;
    }
  create_write (task);
}

static void
fork_turn_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;
  NatterTurnStatus status;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  /* A branch continues the history up to its fork point: one that
   * cannot be read is a history that cannot be read, refused as a
   * message on it would be. */
  if (turn == NULL && error->domain == NATTER_STORE_ERROR && error->code != NATTER_STORE_ERROR_IO)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                                                          "Cannot branch from turn %s of session %s: %s",
                                                          data->forked_from_turn_id, data->parent_session,
                                                          error->message));
      g_error_free (error);
      return;
    }
  if (turn == NULL)
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  status = natter_derive_turn_status (turn);
  /* A turn is only gone on from once it has ended: an earlier one
   * without its end lost its last lines (docs/runtime.md §11), a damaged
   * history rather than an answer to wait for. */
  if (data->fork_is_earlier && natter_turn_state_get_terminal_event (turn) == NULL &&
      !natter_sessions_is_turn_running (data->base.self, data->forked_from_turn_id))
    {
      GError *lost = natter_sessions_end_lost_error (data->base.self, data->forked_from_turn_id);

      if (g_error_matches (lost, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        natter_sessions_op_return_error (task, natter_sessions_arriving_error (lost, data->parent_session,
                                                                               data->forked_from_turn_id));
      else
        {
          natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR,
                                                              NATTER_SESSION_ERROR_HISTORY_DAMAGED,
                                                              "Cannot branch from turn %s of session %s: %s",
                                                              data->forked_from_turn_id, data->parent_session,
                                                              lost->message));
          g_error_free (lost);
        }
      return;
    }
  if (natter_sessions_is_turn_running (data->base.self, data->forked_from_turn_id) ||
      natter_turn_state_get_terminal_event (turn) == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
                                                          "Cannot fork from turn %s: it is %s, not settled",
                                                          data->forked_from_turn_id,
                                                          natter_sessions_is_turn_running (data->base.self, data->forked_from_turn_id)
                                                          ? "running" : natter_turn_status_to_string (status)));
      return;
    }
  if (natter_sessions_op_check_cancelled (task))
    return;
  if (data->compaction != NULL)
    {
      natter_sessions_fork_compaction_async (data->base.self, data->compaction, data->forked_from_turn_id,
                                             fork_compaction_cb, g_object_ref (task));
      return;
    }
  create_write (task);
}

/* Whether @compaction keeps a turn appended after @fork_turn_id in
 * @parent: then the fork point's history cannot hold it, and the branch
 * inherits no compaction without a turn file being read. */
static gboolean
kept_after (NatterSessionState *parent,
            JsonObject         *compaction,
            const char         *fork_turn_id)
{
  const char *kept = json_object_get_string_member (compaction, "firstKeptTurnId");
  gboolean fork_seen = FALSE;

  for (guint i = 0; i < natter_session_state_get_n_turns (parent); i++)
    {
      const char *turn_id = natter_session_state_get_turn (parent, i)->turn_id;

      if (g_strcmp0 (turn_id, kept) == 0)
        return fork_seen;
      if (g_strcmp0 (turn_id, fork_turn_id) == 0)
        fork_seen = TRUE;
    }
  return FALSE;
}

/* The fork point is a turn of @owner: the branch is made of @owner. */
static void
fork_from_owner (GTask              *task,
                 NatterSessionState *owner)
{
  CreateData *data = create_data_get (task);
  JsonObject *compaction = natter_session_state_get_compaction (owner);
  const char *owner_id = natter_session_state_get_session_id (owner);

  /* A branch names its parent by id; another device's copy has none to
   * give (docs/format.md §9). */
  if (natter_sync_conflict_is_candidate (owner_id))
    {
      natter_sessions_op_return_error (task, natter_sessions_read_only_error (owner_id));
      return;
    }
  g_free (data->parent_session);
  data->parent_session = g_strdup (owner_id);
  data->fork_is_earlier = g_strcmp0 (natter_session_state_get_latest_turn_id (owner), data->forked_from_turn_id) != 0;
  if (compaction != NULL && !kept_after (owner, compaction, data->forked_from_turn_id))
    data->compaction = json_object_ref (compaction);
  natter_sessions_read_turn_async (data->base.self, data->forked_from_turn_id, g_task_get_cancellable (task),
                                   fork_turn_read_cb, g_object_ref (task));
}

static void inherited_step (GTask *task);

/* The turn is in the history of an ancestor that was deleted, read from
 * the turn files as the conversation shows it (docs/sessions.md §9.4):
 * the branch names that ancestor, as one made before the delete would,
 * and shows and sends the same history. The ancestor's compaction went
 * with its file; the one the shown session kept of it still counts. */
static void
fork_from_deleted (GTask *task)
{
  CreateData *data = create_data_get (task);

  g_free (data->parent_session);
  data->parent_session = g_strdup (data->walk_session);
  data->parent_gone = TRUE;
  data->fork_is_earlier = TRUE;
  data->compaction = g_steal_pointer (&data->walk_compaction);
  natter_sessions_read_turn_async (data->base.self, data->forked_from_turn_id, g_task_get_cancellable (task),
                                   fork_turn_read_cb, g_object_ref (task));
}

static GError *
no_such_turn_error (CreateData *data)
{
  return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND, "Session %s has no turn %s",
                      data->shown != NULL ? data->shown : data->parent_session, data->forked_from_turn_id);
}

/* The session the turn was first sent in, read when a deleted
 * ancestor's history held it: one that is there and has it is the
 * branch's parent, as it was before the delete. */
static void
first_sender_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  g_autoptr(NatterSessionState) sender = NULL;

  sender = natter_sessions_read_session_finish (result, NULL);
  if (sender != NULL && natter_session_state_find_turn (sender, data->forked_from_turn_id) != NULL)
    {
      fork_from_owner (task, sender);
      return;
    }
  fork_from_deleted (task);
}

static void
deleted_history_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  g_autoptr(GPtrArray) turns = NULL;
  GError *error = NULL;
  const char *sender = NULL;

  turns = natter_sessions_read_history_finish (NATTER_SESSIONS (object), result, &error);
  if (turns == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_history_error (error, data->shown, data->walk_point));
      return;
    }
  for (guint i = 0; i < turns->len && sender == NULL; i++)
    if (g_strcmp0 (natter_turn_state_get_turn_id (g_ptr_array_index (turns, i)), data->forked_from_turn_id) == 0)
      sender = json_object_get_string_member_with_default (
                 natter_turn_state_get_definition (g_ptr_array_index (turns, i)), "sessionId", "");
  if (sender == NULL)
    {
      natter_sessions_op_return_error (task, no_such_turn_error (data));
      return;
    }
  if (*sender != '\0' && g_strcmp0 (sender, data->walk_session) != 0)
    {
      natter_sessions_read_session_async (data->base.self, sender, g_task_get_cancellable (task),
                                          first_sender_read_cb, g_object_ref (task));
      return;
    }
  fork_from_deleted (task);
}

/* One ancestor of the shown session read: the turn is its own, up to
 * the fork point the shown history continues; or it is further back. */
static void
ancestor_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  g_autoptr(NatterSessionState) ancestor = NULL;
  const NatterSessionTurn *turn;
  const NatterSessionTurn *point;
  GError *error = NULL;

  ancestor = natter_sessions_read_session_finish (result, &error);
  if (ancestor == NULL && g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
    {
      g_error_free (error);
      natter_sessions_read_history_async (data->base.self, data->walk_point, g_task_get_cancellable (task),
                                          deleted_history_cb, g_object_ref (task));
      return;
    }
  if (ancestor == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->walk_session));
      return;
    }
  turn = natter_session_state_find_turn (ancestor, data->forked_from_turn_id);
  point = natter_session_state_find_turn (ancestor, data->walk_point);
  if (turn != NULL && point != NULL && turn->session_seq <= point->session_seq)
    {
      fork_from_owner (task, ancestor);
      return;
    }
  if (turn != NULL || point == NULL)
    {
      natter_sessions_op_return_error (task, no_such_turn_error (data));
      return;
    }
  g_free (data->walk_session);
  g_free (data->walk_point);
  data->walk_session = g_strdup (natter_session_state_get_parent_session (ancestor));
  data->walk_point = g_strdup (natter_session_state_get_forked_from_turn_id (ancestor));
  inherited_step (task);
}

/* A session shows the history it was branched from above its own turns
 * (docs/format.md §3.2): a branch can be made at any of those turns as
 * at its own. The ancestors are looked in one by one, up to the one the
 * turn belongs to. */
static void
inherited_step (GTask *task)
{
  CreateData *data = create_data_get (task);

  if (data->walk_session == NULL || data->walk_point == NULL || data->walk_hops++ >= MAX_FORK_ANCESTORS)
    {
      natter_sessions_op_return_error (task, no_such_turn_error (data));
      return;
    }
  natter_sessions_read_session_async (data->base.self, data->walk_session, g_task_get_cancellable (task),
                                      ancestor_read_cb, g_object_ref (task));
}

static void
parent_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CreateData *data = create_data_get (task);
  g_autoptr(NatterSessionState) parent = NULL;
  JsonObject *compaction;
  GError *error = NULL;

  parent = natter_sessions_read_session_finish (result, &error);
  /* A first message's version asked of the session that shows the
   * message from a deleted original names that original, as one made
   * before the delete would (natter_sessions_create_first_version_async()). */
  if (parent == NULL && data->shown != NULL && !data->inherit_cwd &&
      g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
    {
      g_error_free (error);
      data->parent_gone = TRUE;
      create_write (task);
      return;
    }
  if (parent == NULL)
    {
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->parent_session));
      return;
    }
  if (data->inherit_cwd && data->cwd == NULL)
    data->cwd = g_strdup (natter_session_state_get_cwd (parent));
  if (data->forked_from_turn_id == NULL && data->inherit_cwd)
    data->forked_from_turn_id = g_strdup (natter_session_state_get_latest_turn_id (parent));
  /* A session with a parent and no fork point (a first message's
   * version) inherits no turns, so no compaction of them either. */
  if (data->forked_from_turn_id == NULL)
    {
      if (data->inherit_cwd)
        {
          natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                              "Session %s has no turn to fork from", data->parent_session));
          return;
        }
      create_write (task);
      return;
    }
  if (natter_session_state_find_turn (parent, data->forked_from_turn_id) != NULL)
    {
      fork_from_owner (task, parent);
      return;
    }
  if (!data->inherit_cwd)
    {
      natter_sessions_op_return_error (task, no_such_turn_error (data));
      return;
    }
  g_free (data->walk_session);
  data->walk_session = g_strdup (natter_session_state_get_parent_session (parent));
  data->walk_point = g_strdup (natter_session_state_get_forked_from_turn_id (parent));
  compaction = natter_session_state_get_compaction (parent);
  if (compaction != NULL &&
      natter_session_state_find_turn (parent, json_object_get_string_member (compaction, "firstKeptTurnId")) == NULL)
    data->walk_compaction = json_object_ref (compaction);
  inherited_step (task);
}

static void
create_session_start (NatterSessions      *self,
                      const char          *title,
                      const char          *cwd,
                      const char          *parent_session,
                      const char          *forked_from_turn_id,
                      gboolean             is_fork,
                      const char          *shown,
                      GCancellable        *cancellable,
                      GAsyncReadyCallback  callback,
                      gpointer             user_data,
                      gpointer             source_tag)
{
  g_autofree char *session_id = natter_id_generator_next (self->ids);
  g_autoptr(GTask) task = create_data_task_new (self, session_id, cancellable, callback, user_data, source_tag);
  CreateData *data = create_data_get (task);
  GError *error = NULL;

  data->title = g_strdup (title);
  data->cwd = g_strdup (cwd);
  data->parent_session = g_strdup (parent_session);
  data->forked_from_turn_id = g_strdup (forked_from_turn_id);
  data->inherit_cwd = is_fork;

  if (natter_sessions_op_refuse_write (task))
    return;
  if (cwd != NULL && !natter_session_cwd_validate (cwd, &error))
    {
      error->domain = NATTER_SESSION_ERROR;
      error->code = NATTER_SESSION_ERROR_INVALID_ARGUMENT;
      natter_sessions_op_return_error (task, error);
      return;
    }
  if (forked_from_turn_id != NULL && parent_session == NULL)
    {
      natter_sessions_op_return_error (task, g_error_new_literal (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                                  "A fork point needs the session it was taken from"));
      return;
    }
  if (parent_session == NULL)
    {
      create_write (task);
      return;
    }
  /* A branch names its parent by id; another device's copy has none to
   * give (docs/format.md §9). A fork is asked of the session shown,
   * which may be a copy showing turns of the log: its turn's owner is
   * found first (fork_from_owner()). */
  data->shown = g_strdup (is_fork ? parent_session : shown);
  if (!is_fork && natter_sync_conflict_is_candidate (parent_session))
    {
      natter_sessions_op_return_error (task, natter_sessions_read_only_error (parent_session));
      return;
    }
  natter_sessions_read_session_async (self, parent_session, cancellable, parent_read_cb, g_object_ref (task));
}

/**
 * natter_sessions_create_session_async:
 * @self: the service
 * @title: (nullable): an explicit title; a set title is never replaced
 *   by the derived default (docs/sessions.md §9.1 step 6). Any string, ""
 *   included.
 * @cwd: (nullable): the session header's absolute, normalized working
 *   directory (dsh `SessionHeader.cwd`)
 * @parent_session: (nullable): the session this one descends from
 * @forked_from_turn_id: (nullable): a settled turn of @parent_session;
 *   the new session's first turn continues from it (its context is
 *   `{previousTurnId}` instead of `[]`)
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * createSession of docs/sessions.md §9: writes `session_created` (schemaVersion
 * 1) to a new session file, adds the index entry (`none`) and emits
 * #NatterSessions::session-index-changed. With @parent_session and no
 * @cwd, the parent's `cwd` is not inherited (use natter_sessions_fork_async()).
 */
void
natter_sessions_create_session_async (NatterSessions      *self,
                                      const char          *title,
                                      const char          *cwd,
                                      const char          *parent_session,
                                      const char          *forked_from_turn_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));

  create_session_start (self, title, cwd, parent_session, forked_from_turn_id, FALSE, NULL,
                        cancellable, callback, user_data, natter_sessions_create_session_async);
}

/**
 * natter_sessions_create_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session id; or %NULL with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (bad `cwd`, a fork point
 *   without a parent), %NATTER_SESSION_ERROR_NOT_FOUND (no such parent or
 *   no such turn in it), %NATTER_SESSION_ERROR_TURN_NOT_SETTLED (the fork
 *   point is not terminal), %NATTER_SESSION_ERROR_CORRUPT, or the repo's
 *   %NATTER_STORE_ERROR
 */
char *
natter_sessions_create_session_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_create_session_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_fork_async:
 * @self: the service
 * @session_id: the session to fork: the one the person sees
 * @turn_id: (nullable): the settled turn to continue from, one of
 *   @session_id's own or one it shows from the history it was branched
 *   from; %NULL for the session's latest turn
 * @title: (nullable): the new session's title, which makes it a version
 *   of the parent (docs/format.md §3.2); %NULL for a branch made on
 *   purpose, titled from its first message
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Forks a session (dsh-session.md "Replay/fork", without copying any
 * turn): a new session with `parentSession` = the session that has the
 * turn as its own (@session_id, or the ancestor it shows the turn of,
 * also one deleted since: docs/sessions.md §9.4), `forkedFromTurnId` =
 * the turn and @session_id's `cwd`. Its first
 * natter_sessions_send_message_async() uses `{previousTurnId: turn}` as
 * context, so the model sees the history shown up to that turn, and the
 * parent is never touched. A branch made on purpose (no @title) starts
 * with the generation parameters and the folder of @session_id's
 * conversation, appended to its own file; never its pin.
 */
void
natter_sessions_fork_async (NatterSessions      *self,
                            const char          *session_id,
                            const char          *turn_id,
                            const char          *title,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  create_session_start (self, title, NULL, session_id, turn_id, TRUE, NULL,
                        cancellable, callback, user_data, natter_sessions_fork_async);
}

/**
 * natter_sessions_fork_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session's id; or %NULL
 *   with the errors of natter_sessions_create_session_finish(),
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT if the session has no turns,
 *   %NATTER_SESSION_ERROR_READ_ONLY if the turn is another device's
 *   copy's own, or %NATTER_SESSION_ERROR_HISTORY_DAMAGED if the turn to
 *   branch at (or one the branch's compaction keeps) cannot be read. An
 *   error of the write after the file's first line (what the branch
 *   takes from the conversation) leaves the new session listed.
 */
char *
natter_sessions_fork_finish (NatterSessions  *self,
                             GAsyncResult    *result,
                             GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_fork_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_create_first_version_async:
 * @self: the service
 * @session_id: the session the person sees, which shows the message
 * @parent_session: the session whose first message the version is of,
 *   also one deleted since
 * @title: (nullable): the new version's title: @session_id's
 *   conversation's; %NULL when that has none, for a session that is
 *   then no version but a branch, titled from its first message, as
 *   natter_sessions_create_session_async() makes it without one
 * @cwd: (nullable): the new session's absolute, normalized working
 *   directory
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Makes a new version of @parent_session's first message, asked of the
 * session that shows it (docs/sessions.md §3): a session with
 * `parentSession` = @parent_session, @title and no fork point, as
 * natter_sessions_create_session_async() makes it. When @parent_session
 * was deleted, the version names it all the same, as one made before
 * the delete would, stands alone like the others made of it, and starts
 * with the generation parameters and the folder of @session_id's
 * conversation, appended to its own file as a branch's are; never its
 * pin (docs/sessions.md §9.4).
 */
void
natter_sessions_create_first_version_async (NatterSessions      *self,
                                            const char          *session_id,
                                            const char          *parent_session,
                                            const char          *title,
                                            const char          *cwd,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (parent_session != NULL);

  create_session_start (self, title, cwd, parent_session, NULL, FALSE, session_id,
                        cancellable, callback, user_data, natter_sessions_create_first_version_async);
}

/**
 * natter_sessions_create_first_version_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session's id; or %NULL
 *   with the errors of natter_sessions_create_session_finish() but
 *   %NATTER_SESSION_ERROR_NOT_FOUND for a deleted parent. An error of
 *   the write after the file's first line (what a version of a deleted
 *   original takes from the conversation) leaves the new session listed.
 */
char *
natter_sessions_create_first_version_finish (NatterSessions  *self,
                                             GAsyncResult    *result,
                                             GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_create_first_version_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* get_session, get_turn */

/**
 * natter_sessions_get_session_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * getSession of docs/sessions.md §9: reads and reduces the session file (in a
 * worker thread). Read-only; takes no lock. Requests for the same session made
 * before its read begins (in the same main-loop iteration, typically:
 * opening a conversation asks for it from several views) share one
 * read, which begins after every one of them, so each still sees every
 * write that finished before it asked.
 */
void
natter_sessions_get_session_async (NatterSessions      *self,
                                   const char          *session_id,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_get_session_async);
  natter_sessions_join_session_read (self, session_id, task);
}

/**
 * natter_sessions_get_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the session's state; or %NULL
 *   with %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT,
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (not an id) or an I/O
 *   %NATTER_STORE_ERROR
 */
NatterSessionState *
natter_sessions_get_session_finish (NatterSessions  *self,
                                    GAsyncResult    *result,
                                    GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_get_session_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
get_turn_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GPtrArray *events;
  GError *error = NULL;

  events = natter_turn_runtime_get_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  if (events == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_sessions_get_turn_async:
 * @self: the service
 * @turn_id: the turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * getTurn of docs/sessions.md §9: a passthrough to
 * natter_turn_runtime_get_turn_async().
 */
void
natter_sessions_get_turn_async (NatterSessions      *self,
                                const char          *turn_id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_get_turn_async);
  natter_turn_runtime_get_turn_async (self->runtime, turn_id, cancellable, get_turn_cb, task);
}

/**
 * natter_sessions_get_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type JsonNode) (nullable): the turn's
 *   events; or %NULL with the runtime's errors (%NATTER_STORE_ERROR)
 */
GPtrArray *
natter_sessions_get_turn_finish (NatterSessions  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_get_turn_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_sessions_get_turn_reduced_finish:
 * @self: the service
 * @result: the #GAsyncResult of natter_sessions_get_turn_async()
 * @error: return location for a #GError
 *
 * natter_sessions_get_turn_finish() and natter_turn_reduce() in one, for
 * a caller of getTurn (docs/sessions.md §9) that wants the turn's state
 * rather than its events.
 *
 * Returns: (transfer full) (nullable): the reduced turn; or %NULL with
 *   the runtime's errors or those of natter_turn_reduce() (both
 *   %NATTER_STORE_ERROR)
 */
NatterTurnState *
natter_sessions_get_turn_reduced_finish (NatterSessions  *self,
                                         GAsyncResult    *result,
                                         GError         **error)
{
  g_autoptr(GPtrArray) events = natter_sessions_get_turn_finish (self, result, error);

  return events != NULL ? natter_turn_reduce (events, error) : NULL;
}

/* set_title */

typedef struct
{
  NatterSessionsOp  base;
  char             *title;
} TitleData;

NATTER_SESSIONS_DEFINE_OP (TitleData, title_data)

static void
title_data_clear (TitleData *data)
{
  g_free (data->title);
}

static void
title_latest_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  TitleData *data = title_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->base.state);
  g_autoptr(NatterTurnState) turn = NULL;
  GError *error = NULL;
  const char *there;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      /* A turn still on its way may be one another device is writing:
       * the title waits for it as a message does. A damaged one keeps
       * no one from renaming the conversation. */
      if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        {
          natter_sessions_op_return_error (task, natter_sessions_arriving_error (error, data->base.session_id,
                                                                                 latest));
          return;
        }
      g_error_free (error);
    }
  else if ((there = natter_sessions_answering_device (data->base.self, turn)) != NULL)
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE,
                                                          "The answer is being written on another device (“%s”); "
                                                          "the conversation can be renamed here once it has ended",
                                                          there));
      return;
    }
  natter_sessions_op_write_title (task, data->title);
}

static void
title_session_read (GTask *task)
{
  TitleData *data = title_data_get (task);
  const char *latest = natter_session_state_get_latest_turn_id (data->base.state);

  if (natter_sessions_op_check_cancelled (task))
    return;
  /* The device that writes the answer writes to this file as it ends
   * (docs/format.md §4.5): a title waits for it. */
  if (latest != NULL && !natter_sessions_is_turn_running (data->base.self, latest))
    {
      natter_sessions_read_turn_async (data->base.self, latest, g_task_get_cancellable (task),
                                       title_latest_read_cb, g_object_ref (task));
      return;
    }
  natter_sessions_op_write_title (task, data->title);
}

/**
 * natter_sessions_set_title_async:
 * @self: the service
 * @session_id: the session
 * @title: the new title: any one line of text ("" included), without
 *   control characters (natter_session_title_check())
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * setTitle of docs/sessions.md §9: appends `title_changed` under the session
 * lock, updates the index entry and emits
 * #NatterSessions::session-index-changed. A set title is never replaced by the
 * default one.
 */
void
natter_sessions_set_title_async (NatterSessions      *self,
                                 const char          *session_id,
                                 const char          *title,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (title != NULL);

  task = title_data_task_new (self, session_id, cancellable, callback, user_data,
                              natter_sessions_set_title_async);
  if (!natter_session_title_check (title, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  title_data_get (task)->title = g_strdup (title);
  natter_sessions_op_lock_and_read (task, title_session_read);
}

/**
 * natter_sessions_set_title_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (a control character in the
 *   title), %NATTER_RUNTIME_ERROR_ELSEWHERE (another device is writing
 *   the answer, and the session file is its until the answer ends:
 *   docs/format.md §4.5), %NATTER_SESSION_ERROR_ARRIVING (the latest
 *   turn has not arrived from another device yet),
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT
 *   or a %NATTER_STORE_ERROR from the append
 */
gboolean
natter_sessions_set_title_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_set_title_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* set_conversation_title */

typedef struct
{
  GStrv   members;
  guint   next;
  char   *title;
  GError *first_error;
} ConversationTitle;

static void
conversation_title_free (ConversationTitle *data)
{
  g_strfreev (data->members);
  g_free (data->title);
  g_clear_error (&data->first_error);
  g_free (data);
}

static void conversation_title_next (GTask *task);

static void
member_titled_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  ConversationTitle *data = g_task_get_task_data (task);
  GError *error = NULL;

  /* A version that cannot take it now (its answer written on another
   * device, its file damaged) keeps the others from nothing. */
  if (!natter_sessions_set_title_finish (NATTER_SESSIONS (object), result, &error))
    {
      if (data->first_error == NULL)
        data->first_error = error;
      else
        g_error_free (error);
    }
  data->next++;
  conversation_title_next (task);
}

static void
conversation_title_next (GTask *task)
{
  ConversationTitle *data = g_task_get_task_data (task);

  if (data->members[data->next] == NULL)
    {
      if (data->first_error != NULL)
        g_task_return_error (task, g_steal_pointer (&data->first_error));
      else
        g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  natter_sessions_set_title_async (g_task_get_source_object (task), data->members[data->next], data->title,
                                   g_task_get_cancellable (task), member_titled_cb, task);
}

/**
 * natter_sessions_set_conversation_title_async:
 * @self: the service
 * @session_id: a session: the version shown
 * @title: the new title, as natter_sessions_set_title_async() takes it
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Renames a conversation as the lists show it (docs/sessions.md §13):
 * @session_id and every other version of its family
 * (natter_session_families_dup_members()), one after another, each a
 * natter_sessions_set_title_async() under its own lock, @session_id
 * first. A version that refuses the title does not stop the others.
 */
void
natter_sessions_set_conversation_title_async (NatterSessions      *self,
                                              const char          *session_id,
                                              const char          *title,
                                              GCancellable        *cancellable,
                                              GAsyncReadyCallback  callback,
                                              gpointer             user_data)
{
  g_autoptr(NatterSessionFamilies) families = NULL;
  ConversationTitle *data;
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL && title != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_set_conversation_title_async);
  families = natter_session_families_new (G_LIST_MODEL (natter_sessions_list_sessions (self)));
  data = g_new0 (ConversationTitle, 1);
  data->members = natter_session_families_dup_members (families, session_id);
  /* A session the index does not list yet is still renamed, or refused
   * by the service in its own words. */
  if (data->members[0] == NULL)
    {
      g_strfreev (data->members);
      data->members = g_strdupv ((char *[]) { (char *) session_id, NULL });
    }
  data->title = g_strdup (title);
  g_task_set_task_data (task, data, (GDestroyNotify) conversation_title_free);
  conversation_title_next (task);
}

/**
 * natter_sessions_set_conversation_title_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE when every version took the title; else %FALSE with
 *   the first error of natter_sessions_set_title_finish() (the versions
 *   that took it keep it)
 */
gboolean
natter_sessions_set_conversation_title_finish (NatterSessions  *self,
                                               GAsyncResult    *result,
                                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_set_conversation_title_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* delete_session (docs/sessions.md §9.4) */

typedef struct
{
  NatterSessionsOp        base;
  NatterSessionsHeritage *heritage;  /* what the versions take, taken under the lock */
} DeleteData;

NATTER_SESSIONS_DEFINE_OP (DeleteData, delete_data)

static void
delete_data_clear (DeleteData *data)
{
  g_clear_pointer (&data->heritage, natter_sessions_heritage_free);
}

static void
passed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!natter_sessions_heritage_pass_finish (NATTER_SESSIONS (object), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  DeleteData *delete = delete_data_get (task);
  NatterSessionsOp *data = &delete->base;
  GError *error = NULL;

  if (!natter_jsonl_repo_delete_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      /* A file already gone still takes its stale entry with it. */
      if (natter_session_index_remove (data->self->index, data->session_id))
        g_signal_emit (data->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, data->session_id);
      natter_sessions_op_return_error (task, natter_sessions_session_error (error, data->session_id));
      return;
    }
  natter_session_index_remove (data->self->index, data->session_id);
  natter_session_grant_view_forget (data->self->grants, data->session_id);
  natter_sessions_forget_queue (data->self, data->session_id);
  natter_sessions_op_finish (task);
  g_signal_emit (data->self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, data->session_id);
  if (delete->heritage != NULL)
    {
      natter_sessions_heritage_pass_async (data->self, g_steal_pointer (&delete->heritage), passed_cb,
                                           g_steal_pointer (&task));
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void
turns_stopped_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  GError *error = NULL;

  /* A turn that could not be stopped keeps its conversation: deleting
   * it would leave the turn running where nobody sees it. */
  if (!natter_sessions_stop_session_turns_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  if (natter_sessions_op_check_cancelled (task))
    return;
  delete_data_get (task)->heritage = natter_sessions_heritage_new (data->self, data->session_id);
  natter_jsonl_repo_delete_async (data->self->session_repo, data->session_id, NULL, deleted_cb,
                                  g_object_ref (task));
}

static void
delete_locked_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);

  if (!natter_sessions_op_lock_finish (task, result) || natter_sessions_op_check_cancelled (task))
    return;
  /* Under the lock, so that no message is sent to the session between
   * its turns being stopped and its file going. */
  natter_sessions_stop_session_turns_async (data->self, data->session_id, turns_stopped_cb,
                                            g_object_ref (task));
}

/**
 * natter_sessions_delete_session_async:
 * @self: the service
 * @session_id: the session
 * @cancellable: (nullable): cancels before the file is removed
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * deleteSession of docs/sessions.md §9.4: removes the session file only — never
 * a turn file, which stays as an inert orphan — and the index entry, then emits
 * #NatterSessions::session-index-changed. Works on a corrupt session too.
 * First every turn of the session still under way in this process is
 * stopped as natter_sessions_stop_turn_async() stops it (a live advance
 * cancelled, a turn waiting for an answer or interrupted given a cancel
 * input), so that no model is called for a conversation no longer
 * listed; the turns of its versions and branches go on. The versions
 * made of the session then stand alone, and each takes what the
 * conversation kept, appended to its own log: an original's versions its
 * generation parameters, folder and pin (the pin to one of them); a
 * version's versions the parameters and folder of its conversation,
 * whose original keeps them, and its pin.
 */
void
natter_sessions_delete_session_async (NatterSessions      *self,
                                      const char          *session_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  natter_sessions_op_lock (delete_data_task_new (self, session_id, cancellable, callback, user_data,
                                                 natter_sessions_delete_session_async),
                           delete_locked_cb);
}

/**
 * natter_sessions_delete_session_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once deleted; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_INVALID_ARGUMENT
 *   (not an id) or an I/O %NATTER_STORE_ERROR; with the error of a turn
 *   that could not be stopped, the session kept; also once deleted, with
 *   the error of a version that could not take what the conversation kept
 */
gboolean
natter_sessions_delete_session_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_delete_session_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* flush (dsh `session/flush`) */

/**
 * natter_sessions_flush_async:
 * @self: the service
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * The awaited durability checkpoint of dsh-session.md: completes once
 * every session-layer operation begun before the call (create, fork,
 * send_message up to its return, set_title, delete, resume) has finished,
 * so all of their session-file appends have been written (awaited, not
 * fsynced, docs/sessions.md §6.2). Turn files need no flush: a running advance
 * writes each event before it announces it, so what was announced is on disk. A
 * flush never waits for a turn's model; it does wait for an automatic title
 * (docs/sessions.md §13) whose turn has settled, so that `natter send` exits
 * with the title written: callers that must not wait for a model bound the
 * flush with a timeout (natter_services_flush_blocking()). Operations begun
 * after the call are not waited for, so a busy service cannot starve a
 * flush.
 */
void
natter_sessions_flush_async (NatterSessions      *self,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  guint64 *target;

  g_return_if_fail (NATTER_IS_SESSIONS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_flush_async);
  target = g_new (guint64, 1);
  *target = self->next_op;
  g_task_set_task_data (task, target, g_free);
  if (natter_sessions_ops_done_up_to (self, *target))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (self->flushes, g_steal_pointer (&task));
}

/**
 * natter_sessions_flush_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE
 */
gboolean
natter_sessions_flush_finish (NatterSessions  *self,
                              GAsyncResult    *result,
                              GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_flush_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  char      *turn_id;
  GPtrArray *candidates;  /* session ids still to read */
  guint      next;
  GPtrArray *holders;     /* those that name the turn, NULL-terminated at the end */
} FindTurnData;

static void
find_turn_data_free (FindTurnData *data)
{
  g_free (data->turn_id);
  g_ptr_array_unref (data->candidates);
  g_ptr_array_unref (data->holders);
  g_free (data);
}

static void find_turn_next (GTask *task);

static void
find_turn_read_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  FindTurnData *data = g_task_get_task_data (task);
  g_autoptr(NatterSessionState) state = NULL;
  const char *session_id = g_ptr_array_index (data->candidates, data->next - 1);

  /* A conversation that cannot be read holds no turn anyone can go on
   * from: it is passed over, as the list shows it damaged. */
  state = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, NULL);
  for (guint i = 0; state != NULL && i < natter_session_state_get_n_turns (state); i++)
    if (g_strcmp0 (natter_session_state_get_turn (state, i)->turn_id, data->turn_id) == 0)
      {
        g_ptr_array_add (data->holders, g_strdup (session_id));
        break;
      }
  find_turn_next (task);
}

static void
find_turn_next (GTask *task)
{
  FindTurnData *data = g_task_get_task_data (task);

  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  if (data->next == data->candidates->len)
    {
      g_ptr_array_add (data->holders, NULL);
      g_task_return_pointer (task, g_ptr_array_steal (data->holders, NULL), (GDestroyNotify) g_strfreev);
      g_object_unref (task);
      return;
    }
  natter_sessions_get_session_async (g_task_get_source_object (task),
                                     g_ptr_array_index (data->candidates, data->next++),
                                     g_task_get_cancellable (task), find_turn_read_cb, task);
}

/**
 * natter_sessions_find_turn_async:
 * @self: the service
 * @turn_id: a turn
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Finds every conversation that has @turn_id as one of its own turns.
 * A turn is usually its own session's (`turn_created.sessionId`), but a
 * session may name turns first sent in another: a recovered copy of a
 * damaged session, a version that went on from another device's copy,
 * and that copy itself (docs/format.md §3.1, §9.1). So every listed
 * conversation with turns is read; one that cannot be read is passed
 * over. For a turn given without the conversation it is to be used in
 * (`natter retry TURN`); the window always knows that conversation.
 */
void
natter_sessions_find_turn_async (NatterSessions      *self,
                                 const char          *turn_id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GListModel *index;
  FindTurnData *data;
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_find_turn_async);
  data = g_new0 (FindTurnData, 1);
  data->turn_id = g_strdup (turn_id);
  data->candidates = g_ptr_array_new_with_free_func (g_free);
  data->holders = g_ptr_array_new_with_free_func (g_free);
  g_task_set_task_data (task, data, (GDestroyNotify) find_turn_data_free);
  index = G_LIST_MODEL (natter_sessions_list_sessions (self));
  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      if (natter_session_index_entry_get_error (entry) == NULL && natter_session_index_entry_get_turn_count (entry) > 0)
        g_ptr_array_add (data->candidates, g_strdup (natter_session_index_entry_get_session_id (entry)));
    }
  find_turn_next (task);
}

/**
 * natter_sessions_find_turn_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the ids of the conversations
 *   that hold the turn, in the order of the list, possibly none; or
 *   %NULL with %G_IO_ERROR_CANCELLED
 */
char **
natter_sessions_find_turn_finish (NatterSessions  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_find_turn_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
