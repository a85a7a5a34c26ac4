/* natter-session-reducer-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session state's fields, shared by the reducer of the version-1
 * events (natter-session-reducer.c) and the folds of what schema versions
 * 2, 3 and 4 added (natter-session-grants-queue.c,
 * natter-session-parameters-fold.c, natter-session-placement-fold.c).
 */

#pragma once

#include "natter-generation-parameters.h"
#include "natter-session-reducer.h"

G_BEGIN_DECLS

/* The part of the state schema version 2 added. Also used alone by the
 * fast startup scan, so that both paths check the same rules. */
typedef struct
{
  gint64      schema_version;  /* 0 before session_created */
  GPtrArray  *grants;          /* of NatterSessionGrant *, active, in order added */
  GPtrArray  *queue;           /* of NatterSessionQueuedMessage *, pending, FIFO */
  GHashTable *used_ids;        /* every grantId and queueId seen (owned) */
} NatterSessionV2Fold;

/* What schema version 3 added: what the conversation keeps about itself
 * (docs/format.md §3.5), the last event of its kind. Also used alone by
 * the fast startup scan. */
typedef struct
{
  NatterGenerationParameters *parameters;  /* NULL: none kept */
} NatterSessionV3Fold;

/* What schema version 4 added: where the conversation is placed in the
 * list (docs/format.md §3.6), the last event of each kind. Also used
 * alone by the fast startup scan. */
typedef struct
{
  gboolean  pinned;
  char     *folder_id;   /* NULL: in no folder */
} NatterSessionV4Fold;

struct _NatterSessionState
{
  gatomicrefcount      ref_count;

  /* A private, sealed copy of the session_created event: the state must
   * not change behind the reducer's back if a caller later edits the event
   * it applied, and consumers of get_definition() cannot edit it either. */
  JsonObject          *definition;
  const char          *session_id;     /* owned by definition */
  char                *title;
  gboolean             title_is_explicit;
  /* The title is the default one derived from the first message: the only
   * title_changed so far came right after the first turn_appended, in a
   * session created without a title (natter_session_state_get_title_is_default()). */
  gboolean             title_is_default;
  gboolean             after_first_turn;   /* the last event was turn_appended #1 */
  JsonObject          *compaction;         /* the last conversation_compacted (sealed), or NULL */
  gboolean             compaction_pending; /* no turn_appended since it */
  GArray              *turns;          /* of NatterSessionTurn, strings owned */
  GHashTable          *turns_by_id;    /* turn_id (owned by turns) → index + 1 */
  char                *updated_at;
  NatterSessionV2Fold  v2;
  NatterSessionV3Fold  v3;
  NatterSessionV4Fold  v4;
};

/* natter_session_state_apply() without the schema check, for events the
 * session repository already validated. */
gboolean natter_session_state_apply_valid (NatterSessionState  *self,
                                           JsonObject          *event,
                                           GError             **error);

void     natter_session_v2_fold_clear  (NatterSessionV2Fold  *fold);
gboolean natter_session_v2_fold_check  (NatterSessionV2Fold  *fold,
                                        JsonObject           *event,
                                        const char           *type,
                                        GError              **error);
void     natter_session_v2_fold_commit (NatterSessionV2Fold  *fold,
                                        JsonObject           *event,
                                        const char           *type);

void     natter_session_v3_fold_clear  (NatterSessionV3Fold  *fold);
void     natter_session_v3_fold_commit (NatterSessionV3Fold  *fold,
                                        JsonObject           *event,
                                        const char           *type);

void     natter_session_v4_fold_clear  (NatterSessionV4Fold  *fold);
void     natter_session_v4_fold_commit (NatterSessionV4Fold  *fold,
                                        JsonObject           *event,
                                        const char           *type);

G_END_DECLS
