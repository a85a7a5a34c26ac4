/* natter-turn-reducer-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of the turn reducer share: the three records behind the
 * opaque types of natter-turn-reducer.h and the small rules more than one
 * of them reads. The reducer (natter-turn-reducer.c) is the only writer of
 * these records, always through the undo log; the accessors
 * (natter-turn-state.c, natter-turn-model-call.c, natter-turn-tool-call.c)
 * and the diagnostics (natter-turn-state-debug.c) only read them.
 *
 * Nothing outside src/store/natter-turn-*.c includes this header.
 */

#pragma once

#include "natter-json.h"
#include "natter-turn-reducer.h"
#include "natter-undo-log-private.h"

G_BEGIN_DECLS

enum
{
  USAGE_INPUT,
  USAGE_OUTPUT,
  USAGE_TOTAL,
  USAGE_REASONING,
  USAGE_CACHED_INPUT,
  N_USAGE
};

/* The token counts of a `usage` object, by the enum above (natter-turn-state.c). */
extern const char * const natter_turn_usage_fields[N_USAGE];

struct _NatterTurnModelCall
{
  NatterTurnState *state;        /* not owned: the state owns the call */
  guint            index;
  JsonObject      *requested;    /* model_call_requested */
  GPtrArray       *steps;        /* model_step_event objects */
  JsonObject      *completed;    /* model_call_completed, or NULL */
  JsonObject      *failed;       /* model_call_failed, or NULL */
  int              first_tool_call;
  int              n_tool_calls;
};

struct _NatterTurnToolCall
{
  guint       model_call_index;
  guint       order;
  JsonObject *part;              /* the tool-call content part */
  const char *id;                /* owned by part */
  const char *name;              /* owned by part */
  JsonObject *required;          /* tool_permission_required */
  JsonObject *classified;        /* tool_permission_classified */
  JsonObject *classification_failed;
  JsonObject *resolved;          /* tool_permission_resolved */
  JsonObject *invocation;        /* tool_invocation_requested */
  GPtrArray  *progress;          /* tool_progress objects */
  JsonObject *result;            /* tool_result */
};

struct _NatterTurnState
{
  gatomicrefcount  ref_count;

  JsonObject      *definition;        /* turn_created */
  GHashTable      *tools_by_name;     /* name → descriptor, owned by definition */
  GPtrArray       *model_calls;       /* NatterTurnModelCall, by index */
  GPtrArray       *tool_calls;        /* NatterTurnToolCall, in model order */
  GHashTable      *tool_calls_by_id;  /* id → NatterTurnToolCall */
  JsonObject      *last_suspension;
  JsonObject      *terminal;
  JsonObject      *device;            /* the last `device` member, owned by its event */
  gint64           n_events;
  int              last_event_is_suspension;
  int              n_unfinished;      /* tool calls without a result */
  int              n_pending_permissions;
  int              n_pending_async;
  gint64           usage[N_USAGE];
  int              usage_present;     /* bit i set: natter_turn_usage_fields[i] was reported */

  NatterUndoLog   *undo;              /* the event or batch being applied */
};

static inline NatterTurnModelCall *
natter_turn_state_last_model_call (NatterTurnState *state)
{
  if (state->model_calls->len == 0)
    return NULL;
  return g_ptr_array_index (state->model_calls, state->model_calls->len - 1);
}

static inline gboolean
natter_turn_tool_call_awaits_permission (NatterTurnToolCall *call)
{
  return call->required != NULL && call->resolved == NULL && call->result == NULL;
}

static inline gboolean
natter_turn_tool_call_awaits_async_result (NatterTurnToolCall *call)
{
  return call->invocation != NULL && call->result == NULL &&
         g_strcmp0 (natter_json_loose_string (call->invocation, "execution"), "async") == 0;
}

void       natter_turn_model_call_free          (NatterTurnModelCall  *call);
void       natter_turn_tool_call_free           (NatterTurnToolCall   *call);

/* The refs the next model_call_requested must carry (docs/runtime.md §3),
 * or %NULL with %NATTER_STORE_ERROR_INVARIANT saying why there can be no
 * next model call now. @out_previous_turn_id is owned by the state. */
GPtrArray *natter_turn_state_expected_request_refs (NatterTurnState  *state,
                                                    const char      **out_previous_turn_id,
                                                    GError          **error);

G_END_DECLS
