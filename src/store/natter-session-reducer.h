/* natter-session-reducer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure session reducer of docs/format.md §3.2.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NatterSessionTurn:
 * @turn_id: the turn's id
 * @session_seq: its 1-based position in the session
 * @agent_id: the agent, denormalized from the turn
 * @model: the `{provider, model}` descriptor, denormalized from the turn
 * @ts: the `ts` of the `turn_appended` event
 *
 * One entry of SessionState.turns (docs/format.md §3.2). Owned by the
 * #NatterSessionState it came from; read-only.
 */
typedef struct
{
  const char *turn_id;
  gint64      session_seq;
  const char *agent_id;
  JsonObject *model;
  const char *ts;
} NatterSessionTurn;

#define NATTER_TYPE_SESSION_STATE (natter_session_state_get_type ())

GType                    natter_session_state_get_type                  (void) G_GNUC_CONST;

NatterSessionState      *natter_session_state_new                       (void);
NatterSessionState      *natter_session_state_ref                       (NatterSessionState  *self);
void                     natter_session_state_unref                     (NatterSessionState  *self);

gboolean                 natter_session_state_apply                     (NatterSessionState  *self,
                                                                         JsonObject          *event,
                                                                         GError             **error);
NatterSessionState      *natter_session_reduce                          (GPtrArray           *events,
                                                                         GError             **error);
NatterSessionState      *natter_session_reduce_validated                (GPtrArray           *events,
                                                                         GError             **error);

JsonObject              *natter_session_state_get_definition            (NatterSessionState  *self);
const char              *natter_session_state_get_session_id            (NatterSessionState  *self);
const char              *natter_session_state_get_title                 (NatterSessionState  *self);
gboolean                 natter_session_state_get_title_is_explicit     (NatterSessionState  *self);
gboolean                 natter_session_state_get_title_is_default      (NatterSessionState  *self);
JsonObject              *natter_session_state_get_compaction            (NatterSessionState  *self);
gboolean                 natter_session_state_get_compaction_pending    (NatterSessionState  *self);
const char              *natter_session_state_get_cwd                   (NatterSessionState  *self);
const char              *natter_session_state_get_parent_session        (NatterSessionState  *self);
const char              *natter_session_state_get_forked_from_turn_id   (NatterSessionState  *self);
gboolean                 natter_session_state_get_is_version            (NatterSessionState  *self);
const char              *natter_session_state_get_created_at            (NatterSessionState  *self);
const char              *natter_session_state_get_updated_at            (NatterSessionState  *self);
guint                    natter_session_state_get_n_turns               (NatterSessionState  *self);
const NatterSessionTurn *natter_session_state_get_turn                  (NatterSessionState  *self,
                                                                         guint                index);
const NatterSessionTurn *natter_session_state_find_turn                 (NatterSessionState  *self,
                                                                         const char          *turn_id);
const char              *natter_session_state_get_latest_turn_id        (NatterSessionState  *self);
gint64                   natter_session_state_get_next_session_seq      (NatterSessionState  *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSessionState, natter_session_state_unref)

G_END_DECLS
