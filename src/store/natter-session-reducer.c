/* natter-session-reducer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-session-reducer"

#include "natter-session-reducer.h"
#include "natter-session-reducer-private.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"


G_DEFINE_BOXED_TYPE (NatterSessionState, natter_session_state,
                     natter_session_state_ref, natter_session_state_unref)

static void
clear_turn (gpointer data)
{
  NatterSessionTurn *turn = data;

  g_free ((char *) turn->turn_id);
  g_free ((char *) turn->agent_id);
  g_free ((char *) turn->ts);
  g_clear_pointer (&turn->model, json_object_unref);
}

/* Validated session events hold only scalars at the top level, and the
 * model descriptor only strings, so a member-wise copy is a deep copy.
 * A sealed object can never change, so it is shared rather than copied:
 * every line read from disk is sealed, and copying each turn's model
 * descriptor was a tenth of the startup scan. */
static JsonObject *
copy_flat_object (JsonObject *source)
{
  JsonObject *copy;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (json_object_is_immutable (source))
    return json_object_ref (source);

  copy = json_object_new ();
  json_object_iter_init (&iter, source);
  while (json_object_iter_next (&iter, &name, &member))
    {
      g_assert (JSON_NODE_HOLDS_VALUE (member) || JSON_NODE_HOLDS_NULL (member));
      json_object_set_member (copy, name, json_node_copy (member));
    }
  json_object_seal (copy);
  return copy;
}

/**
 * natter_session_state_new:
 *
 * Creates an empty state that expects `session_created` as its first
 * event. Most callers want natter_session_reduce(); an incremental state
 * is for write-through holders (the index) that apply events as they are
 * appended.
 *
 * Returns: (transfer full): a new state
 */
NatterSessionState *
natter_session_state_new (void)
{
  NatterSessionState *self = g_new0 (NatterSessionState, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->turns = g_array_new (FALSE, TRUE, sizeof (NatterSessionTurn));
  g_array_set_clear_func (self->turns, clear_turn);
  self->turns_by_id = g_hash_table_new (g_str_hash, g_str_equal);
  return self;
}

/**
 * natter_session_state_ref:
 * @self: a #NatterSessionState
 *
 * Returns: (transfer full): @self with one more reference
 */
NatterSessionState *
natter_session_state_ref (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * natter_session_state_unref:
 * @self: (transfer full): a #NatterSessionState
 *
 * Drops one reference; the last one frees the state and every string and
 * object its accessors returned.
 */
void
natter_session_state_unref (NatterSessionState *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->turns_by_id, g_hash_table_unref);
  g_clear_pointer (&self->turns, g_array_unref);
  g_clear_pointer (&self->definition, json_object_unref);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->updated_at, g_free);
  g_clear_pointer (&self->compaction, json_object_unref);
  natter_session_v2_fold_clear (&self->v2);
  natter_session_v3_fold_clear (&self->v3);
  natter_session_v4_fold_clear (&self->v4);
  g_free (self);
}

static gboolean
apply_turn_appended (NatterSessionState  *self,
                     JsonObject          *event,
                     GError             **error)
{
  const char *turn_id = json_object_get_string_member (event, "turnId");
  gint64 seq = json_object_get_int_member (event, "sessionSeq");
  gint64 expected = (gint64) self->turns->len + 1;
  NatterSessionTurn turn = { 0 };

  if (seq < expected)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "sessionSeq %" G_GINT64_FORMAT " is not strictly increasing "
                   "(expected %" G_GINT64_FORMAT ")", seq, expected);
      return FALSE;
    }
  if (seq > expected)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "sessionSeq %" G_GINT64_FORMAT " leaves a gap "
                   "(expected %" G_GINT64_FORMAT ")", seq, expected);
      return FALSE;
    }
  if (g_hash_table_contains (self->turns_by_id, turn_id))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "Turn “%s” is appended twice", turn_id);
      return FALSE;
    }

  turn.turn_id = g_strdup (turn_id);
  turn.session_seq = seq;
  turn.agent_id = g_strdup (json_object_get_string_member (event, "agentId"));
  turn.model = copy_flat_object (json_object_get_object_member (event, "model"));
  turn.ts = g_strdup (json_object_get_string_member (event, "ts"));
  g_array_append_val (self->turns, turn);
  g_hash_table_insert (self->turns_by_id, (gpointer) turn.turn_id,
                       GUINT_TO_POINTER (self->turns->len));
  return TRUE;
}

/**
 * natter_session_state_apply:
 * @self: a #NatterSessionState
 * @event: (transfer none): the next session event, in file order
 * @error: return location for a #GError
 *
 * Folds one event into @self (docs/format.md §3.2). The event is
 * validated first with natter_session_event_validate(), then checked
 * against the invariants: `session_created` is first and unique, every
 * `sessionId` matches the definition's, `sessionSeq` continues 1, 2, 3, …
 * without gaps, and `turnId`s are unique. Title folding: the title is the
 * `session_created` title until a `title_changed`, and the last one wins.
 * The events of schema version 2 are accepted only once the file is at
 * version 2 (created at 2, or raised by `schema_upgraded`), and fold the
 * active grants and the pending queue (natter-session-grants-queue.h);
 * those of version 3 only at version 3, and fold the parameters the
 * conversation keeps (natter-session-parameters-state.h).
 *
 * Applying is atomic: on error @self is unchanged and may keep being used.
 * The state keeps copies of @event's parts, or references where they are
 * sealed (immutable), never references to mutable parts.
 *
 * Returns: %TRUE on success; else %FALSE with %NATTER_STORE_ERROR_INVARIANT
 *   (an invariant above), or the schema's %NATTER_STORE_ERROR_SCHEMA,
 *   %NATTER_STORE_ERROR_UNKNOWN_TYPE or
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION.
 */
gboolean
natter_session_state_apply (NatterSessionState  *self,
                            JsonObject          *event,
                            GError             **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Any valid id passes the schema here: a foreign id is an invariant of
   * the sequence, reported by natter_session_state_apply_valid() as INVARIANT, not a malformed
   * event. */
  if (!natter_session_event_validate (event, NULL, error))
    return FALSE;
  return natter_session_state_apply_valid (self, event, error);
}

/* natter_session_state_apply() for an event that already passed
 * natter_session_event_validate(). */
gboolean
natter_session_state_apply_valid (NatterSessionState  *self,
                                  JsonObject          *event,
                                  GError             **error)
{
  const char *type;
  const char *session_id;

  type = json_object_get_string_member (event, "type");
  session_id = json_object_get_string_member (event, "sessionId");

  if (self->definition == NULL)
    {
      const char *title;

      if (!g_str_equal (type, "session_created"))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                       "The first session event must be session_created, not %s", type);
          return FALSE;
        }
      self->definition = copy_flat_object (event);
      self->session_id = json_object_get_string_member (self->definition, "sessionId");
      title = json_object_get_string_member_with_default (self->definition, "title", NULL);
      self->title = g_strdup (title);
      self->updated_at = g_strdup (json_object_get_string_member (event, "ts"));
      natter_session_v2_fold_commit (&self->v2, event, type);
      return TRUE;
    }

  if (!g_str_equal (session_id, self->session_id))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                   "Event of session “%s” in session “%s”", session_id, self->session_id);
      return FALSE;
    }

  if (g_str_equal (type, "session_created"))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                           "session_created appears more than once");
      return FALSE;
    }

  /* Schema version 2: the version rules, grants and the queue. Checked
   * before anything changes, committed once nothing else can fail. */
  if (!natter_session_v2_fold_check (&self->v2, event, type, error))
    return FALSE;
  if (g_str_equal (type, "turn_appended"))
    {
      if (!apply_turn_appended (self, event, error))
        return FALSE;
    }
  else if (g_str_equal (type, "title_changed"))
    {
      g_free (self->title);
      self->title = g_strdup (json_object_get_string_member (event, "title"));
      /* The session layer writes the default title in the same append as
       * the first turn_appended and nowhere else, so only that position
       * marks a title nobody chose. */
      self->title_is_default = !self->title_is_explicit && self->after_first_turn &&
                               !json_object_has_member (self->definition, "title");
      self->title_is_explicit = TRUE;
    }
  else if (g_str_equal (type, "conversation_compacted"))
    {
      g_clear_pointer (&self->compaction, json_object_unref);
      self->compaction = copy_flat_object (event);
      json_object_seal (self->compaction);
      self->compaction_pending = TRUE;
    }
  if (g_str_equal (type, "turn_appended"))
    self->compaction_pending = FALSE;
  natter_session_v2_fold_commit (&self->v2, event, type);
  natter_session_v3_fold_commit (&self->v3, event, type);
  natter_session_v4_fold_commit (&self->v4, event, type);
  self->after_first_turn = g_str_equal (type, "turn_appended") && self->turns->len == 1;

  g_free (self->updated_at);
  self->updated_at = g_strdup (json_object_get_string_member (event, "ts"));
  return TRUE;
}

static NatterSessionState *
reduce (GPtrArray  *events,
        gboolean    validated,
        GError    **error)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();

  for (guint i = 0; i < events->len; i++)
    {
      JsonNode *node = g_ptr_array_index (events, i);
      gboolean ok;

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Session event %u is not a JSON object", i + 1);
          return NULL;
        }
      if (validated)
        ok = natter_session_state_apply_valid (state, json_node_get_object (node), error);
      else
        ok = natter_session_state_apply (state, json_node_get_object (node), error);
      if (!ok)
        {
          g_prefix_error (error, "Session event %u: ", i + 1);
          return NULL;
        }
    }

  if (state->definition == NULL)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVARIANT,
                           "The session has no session_created event");
      return NULL;
    }

  return g_steal_pointer (&state);
}

/**
 * natter_session_reduce:
 * @events: (element-type JsonNode): a session's events in file order, each
 *   a JSON object node
 * @error: return location for a #GError
 *
 * The pure session reducer, `reduceSession` of docs/format.md §3.2:
 * folds every event with natter_session_state_apply(). Linear in the
 * number of events. An empty list violates the "session_created is
 * present" invariant.
 *
 * Returns: (transfer full) (nullable): the state, or %NULL with the error
 *   of the first offending event (the message names its 1-based position):
 *   %NATTER_STORE_ERROR_INVARIANT, %NATTER_STORE_ERROR_SCHEMA (also for a
 *   node that is not an object), %NATTER_STORE_ERROR_UNKNOWN_TYPE or
 *   %NATTER_STORE_ERROR_UNSUPPORTED_VERSION.
 */
NatterSessionState *
natter_session_reduce (GPtrArray  *events,
                       GError    **error)
{
  g_return_val_if_fail (events != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return reduce (events, FALSE, error);
}

/**
 * natter_session_reduce_validated:
 * @events: (element-type JsonNode): a session's events in file order, as
 *   natter_jsonl_repo_read_sync() of the session repository returned them
 * @error: return location for a #GError
 *
 * natter_session_reduce() for events that each already passed
 * natter_session_event_validate() — which the session repository runs on
 * every line it reads, with the file's id, a stricter check than the
 * reducer's own. Skips only that second schema check of the same event;
 * every invariant of docs/format.md §3.2 is still checked. Passing events that
 * were not validated is a programming error with undefined results.
 *
 * Returns: (transfer full) (nullable): as natter_session_reduce()
 */
NatterSessionState *
natter_session_reduce_validated (GPtrArray  *events,
                                 GError    **error)
{
  g_return_val_if_fail (events != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return reduce (events, TRUE, error);
}

/**
 * natter_session_state_get_definition:
 * @self: a #NatterSessionState
 *
 * SessionState.definition: the `session_created` event.
 *
 * Returns: (transfer none) (nullable): the event, sealed (read-only): a
 *   copy, or the applied event itself if that was already sealed; %NULL
 *   before one was applied
 */
JsonObject *
natter_session_state_get_definition (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->definition;
}

/**
 * natter_session_state_get_session_id:
 * @self: a #NatterSessionState
 *
 * Returns: (transfer none) (nullable): the session id, or %NULL before
 *   `session_created` was applied
 */
const char *
natter_session_state_get_session_id (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->session_id;
}

/**
 * natter_session_state_get_title:
 * @self: a #NatterSessionState
 *
 * SessionState.title: the last `title_changed` title, else the
 * `session_created` title, else %NULL.
 *
 * Returns: (transfer none) (nullable): the title
 */
const char *
natter_session_state_get_title (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->title;
}

/**
 * natter_session_state_get_title_is_explicit:
 * @self: a #NatterSessionState
 *
 * Whether the current title came from a `title_changed` event rather than
 * from `session_created` (or is absent). Not in the spec's SessionState;
 * it lets the UI tell a set or derived title from the creation default.
 *
 * Returns: %TRUE if at least one `title_changed` was applied
 */
gboolean
natter_session_state_get_title_is_explicit (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->title_is_explicit;
}

/**
 * natter_session_state_get_title_is_default:
 * @self: a #NatterSessionState
 *
 * Whether the current title is the default one of docs/sessions.md
 * §9.1 step 6 that nobody chose: the session was created without a title
 * and its only `title_changed` directly follows the first `turn_appended`.
 * A rename, a title given at creation or a later automatic title
 * (docs/sessions.md §13) makes it %FALSE for good, which is what keeps an
 * automatic title from replacing the user's or being written twice. A
 * version of the first message carries its conversation's default in
 * `session_created` (docs/format.md §3.2): this session's events alone
 * cannot tell it from a title given at creation, so it is %FALSE here,
 * and the automatic title reads the version's turn and parent for it.
 *
 * Returns: %TRUE while the title is the derived default
 */
gboolean
natter_session_state_get_title_is_default (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->title_is_default;
}

static const char *
definition_string (NatterSessionState *self,
                   const char         *member)
{
  if (self->definition == NULL)
    return NULL;
  return json_object_get_string_member_with_default (self->definition, member, NULL);
}

/**
 * natter_session_state_get_cwd:
 * @self: a #NatterSessionState
 *
 * Returns: (transfer none) (nullable): the session's working directory
 *   (dsh-session.md header), or %NULL
 */
const char *
natter_session_state_get_cwd (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return definition_string (self, "cwd");
}

/**
 * natter_session_state_get_parent_session:
 * @self: a #NatterSessionState
 *
 * Returns: (transfer none) (nullable): the id of the session this one
 *   descends from (dsh-session.md lineage), or %NULL
 */
const char *
natter_session_state_get_parent_session (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return definition_string (self, "parentSession");
}

/**
 * natter_session_state_get_forked_from_turn_id:
 * @self: a #NatterSessionState
 *
 * Returns: (transfer none) (nullable): for a fork, the parent session's
 *   turn the fork was taken at, or %NULL
 */
const char *
natter_session_state_get_forked_from_turn_id (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return definition_string (self, "forkedFromTurnId");
}

/**
 * natter_session_state_get_is_version:
 * @self: a #NatterSessionState
 *
 * Whether the session is a version of the conversation it branched from
 * (docs/format.md §3.2): a new version of a message, made by editing it
 * or trying its answer again, as opposed to a branch made on purpose.
 * Read from the lineage `session_created` stored: a version names its
 * `parentSession` and was created with a `title` (the one of the
 * conversation it was made from); a deliberate branch is created
 * without one. A later rename changes neither.
 *
 * Returns: %TRUE for a version
 */
gboolean
natter_session_state_get_is_version (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return definition_string (self, "parentSession") != NULL && json_object_has_member (self->definition, "title");
}

/**
 * natter_session_state_get_created_at:
 * @self: a #NatterSessionState
 *
 * SessionState.createdAt: the `ts` of `session_created`.
 *
 * Returns: (transfer none) (nullable): an ISO-8601 UTC timestamp
 */
const char *
natter_session_state_get_created_at (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return definition_string (self, "ts");
}

/**
 * natter_session_state_get_updated_at:
 * @self: a #NatterSessionState
 *
 * SessionState.updatedAt: the `ts` of the last applied event.
 *
 * Returns: (transfer none) (nullable): an ISO-8601 UTC timestamp
 */
const char *
natter_session_state_get_updated_at (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->updated_at;
}

/**
 * natter_session_state_get_n_turns:
 * @self: a #NatterSessionState
 *
 * Returns: the number of turns appended
 */
guint
natter_session_state_get_n_turns (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->turns->len;
}

/**
 * natter_session_state_get_turn:
 * @self: a #NatterSessionState
 * @index: 0-based; the turn with `sessionSeq` @index + 1
 *
 * Returns: (transfer none): the turn; valid until @self is freed or has
 *   another event applied
 */
const NatterSessionTurn *
natter_session_state_get_turn (NatterSessionState *self,
                               guint               index)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (index < self->turns->len, NULL);

  return &g_array_index (self->turns, NatterSessionTurn, index);
}

/**
 * natter_session_state_find_turn:
 * @self: a #NatterSessionState
 * @turn_id: a turn id
 *
 * Looks a turn up by id in constant time.
 *
 * Returns: (transfer none) (nullable): the turn, or %NULL if the session
 *   does not reference @turn_id; valid as for natter_session_state_get_turn()
 */
const NatterSessionTurn *
natter_session_state_find_turn (NatterSessionState *self,
                                const char         *turn_id)
{
  guint position;

  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  position = GPOINTER_TO_UINT (g_hash_table_lookup (self->turns_by_id, turn_id));
  if (position == 0)
    return NULL;
  return &g_array_index (self->turns, NatterSessionTurn, position - 1);
}

/**
 * natter_session_state_get_latest_turn_id:
 * @self: a #NatterSessionState
 *
 * SessionState.latestTurnId.
 *
 * Returns: (transfer none) (nullable): the id of the last turn, or %NULL
 *   when the session has no turns
 */
const char *
natter_session_state_get_latest_turn_id (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->turns->len == 0)
    return NULL;
  return g_array_index (self->turns, NatterSessionTurn, self->turns->len - 1).turn_id;
}

/**
 * natter_session_state_get_next_session_seq:
 * @self: a #NatterSessionState
 *
 * The `sessionSeq` the next `turn_appended` must carry (docs/sessions.md §9.1
 * step 5).
 *
 * Returns: the number of turns plus one
 */
gint64
natter_session_state_get_next_session_seq (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return (gint64) self->turns->len + 1;
}

/**
 * natter_session_state_get_compaction:
 * @self: a #NatterSessionState
 *
 * The session's last `conversation_compacted` event
 * (docs/sessions.md §5; docs/format.md "Schema version 2"):
 * `{compactionId, summary, firstKeptTurnId}` with `type`, `sessionId`
 * and `ts`.
 *
 * Returns: (transfer none) (nullable): the sealed event, or %NULL when the
 *   session was never compacted; valid while @self is
 */
JsonObject *
natter_session_state_get_compaction (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->compaction;
}

/**
 * natter_session_state_get_compaction_pending:
 * @self: a #NatterSessionState
 *
 * Whether the last compaction waits for the next turn: no `turn_appended`
 * came after it, so that turn's context is built inline from the summary
 * and the kept turns (docs/sessions.md §5). Later turns refer to that one as
 * usual.
 *
 * Returns: %TRUE while a compaction is not yet used
 */
gboolean
natter_session_state_get_compaction_pending (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->compaction != NULL && self->compaction_pending;
}
