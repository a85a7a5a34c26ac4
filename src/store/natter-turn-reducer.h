/* natter-turn-reducer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pure turn reducer of docs/runtime.md §4 and the one status
 * derivation (docs/runtime.md §4, docs/sessions.md §8.1).
 *
 * All types here are opaque. #NatterTurnModelCall and #NatterTurnToolCall
 * are borrowed views owned by their #NatterTurnState: they stay valid as
 * long as the state is alive (a failed apply never removes entries that
 * existed before it). JSON returned by the accessors is owned by the state
 * and must be treated as read-only.
 *
 * A state is not thread-safe: one thread applies events at a time.
 */

#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_TURN_FAILED_CONTEXT_UNREADABLE:
 *
 * The `code` of a `turn_failed` (docs/runtime.md §3) whose context could
 * not be materialized (docs/runtime.md §11): an earlier turn's file is damaged
 * or missing. The error names the file (and line). Such a turn's own history is
 * not a usable context, so the turn after it starts from an empty one.
 */
#define NATTER_TURN_FAILED_CONTEXT_UNREADABLE "context-unreadable"

typedef struct _NatterTurnModelCall NatterTurnModelCall;
typedef struct _NatterTurnToolCall  NatterTurnToolCall;

#define NATTER_TYPE_TURN_STATE (natter_turn_state_get_type ())

GType                natter_turn_state_get_type                 (void) G_GNUC_CONST;

NatterTurnState     *natter_turn_state_new                      (void);
NatterTurnState     *natter_turn_state_ref                      (NatterTurnState  *state);
void                 natter_turn_state_unref                    (NatterTurnState  *state);

gboolean             natter_turn_state_apply                    (NatterTurnState  *state,
                                                                 JsonObject       *event,
                                                                 GError          **error);
gboolean             natter_turn_state_apply_batch              (NatterTurnState  *state,
                                                                 GPtrArray        *events,
                                                                 GError          **error);
NatterTurnState     *natter_turn_reduce                         (GPtrArray        *events,
                                                                 GError          **error);

NatterTurnStatus     natter_derive_turn_status                  (NatterTurnState  *state);
NatterTurnStatus     natter_turn_status_derive                  (const char       *terminal_type,
                                                                 gboolean          suspended_with_work);
const char          *natter_turn_status_to_string               (NatterTurnStatus  status);

/* The turn as a whole */
const char          *natter_turn_state_get_turn_id              (NatterTurnState  *state);
JsonObject          *natter_turn_state_get_definition           (NatterTurnState  *state);
gboolean             natter_turn_state_is_imported              (NatterTurnState  *state);
gboolean             natter_turn_definition_is_imported         (JsonObject       *definition);
const char          *natter_turn_definition_get_previous_turn_id (JsonObject      *definition);
const char          *natter_turn_state_get_device_id            (NatterTurnState  *state);
const char          *natter_turn_state_get_device_name          (NatterTurnState  *state);
guint64              natter_turn_state_get_n_events             (NatterTurnState  *state);
JsonObject          *natter_turn_state_get_last_suspension      (NatterTurnState  *state);
JsonObject          *natter_turn_state_get_terminal_event       (NatterTurnState  *state);
JsonObject          *natter_turn_state_dup_usage                (NatterTurnState  *state);
gboolean             natter_turn_state_get_speed                (NatterTurnState  *state,
                                                                 gint64           *out_time_to_first_token_ms,
                                                                 double           *out_tokens_per_second);
char                *natter_turn_state_dup_final_text           (NatterTurnState  *state);
GStrv                natter_turn_state_dup_next_request_refs    (NatterTurnState  *state,
                                                                 char            **out_previous_turn_id,
                                                                 GError          **error);

/* Model calls */
guint                natter_turn_state_get_n_model_calls        (NatterTurnState  *state);
NatterTurnModelCall *natter_turn_state_get_model_call           (NatterTurnState  *state,
                                                                 guint             index);
gint                 natter_turn_state_get_last_model_call_index (NatterTurnState *state);
gboolean             natter_turn_state_has_open_model_call      (NatterTurnState  *state);

guint                natter_turn_model_call_get_index           (NatterTurnModelCall *call);
JsonObject          *natter_turn_model_call_get_request         (NatterTurnModelCall *call);
GPtrArray           *natter_turn_model_call_get_step_events     (NatterTurnModelCall *call);
gboolean             natter_turn_model_call_is_open             (NatterTurnModelCall *call);
JsonObject          *natter_turn_model_call_get_message         (NatterTurnModelCall *call);
const char          *natter_turn_model_call_get_finish_reason   (NatterTurnModelCall *call);
JsonObject          *natter_turn_model_call_get_usage           (NatterTurnModelCall *call);
const char          *natter_turn_model_call_get_error           (NatterTurnModelCall *call);
JsonObject          *natter_turn_model_call_get_partial         (NatterTurnModelCall *call);
gboolean             natter_turn_model_call_was_stopped         (NatterTurnModelCall *call);
guint                natter_turn_model_call_get_n_tool_calls    (NatterTurnModelCall *call);
gint64               natter_turn_model_call_get_time_to_first_token_ms (NatterTurnModelCall *call);
double               natter_turn_model_call_get_tokens_per_second (NatterTurnModelCall *call);
NatterTurnToolCall  *natter_turn_model_call_get_tool_call       (NatterTurnModelCall *call,
                                                                 guint             order);

/* Tool calls */
guint                natter_turn_state_get_n_tool_calls         (NatterTurnState  *state);
NatterTurnToolCall  *natter_turn_state_get_tool_call            (NatterTurnState  *state,
                                                                 guint             index);
NatterTurnToolCall  *natter_turn_state_lookup_tool_call         (NatterTurnState  *state,
                                                                 const char       *tool_call_id);
GPtrArray           *natter_turn_state_get_unfinished_tool_calls (NatterTurnState *state);
GPtrArray           *natter_turn_state_get_pending_permissions  (NatterTurnState  *state);
GPtrArray           *natter_turn_state_get_pending_async_tools  (NatterTurnState  *state);
guint                natter_turn_state_get_n_pending_permissions (NatterTurnState *state);
guint                natter_turn_state_get_n_pending_async_tools (NatterTurnState *state);

guint                natter_turn_tool_call_get_model_call_index (NatterTurnToolCall *call);
guint                natter_turn_tool_call_get_order            (NatterTurnToolCall *call);
const char          *natter_turn_tool_call_get_id               (NatterTurnToolCall *call);
const char          *natter_turn_tool_call_get_name             (NatterTurnToolCall *call);
JsonNode            *natter_turn_tool_call_get_arguments        (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_permission_required (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_classification   (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_classification_failure (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_resolution       (NatterTurnToolCall *call);
const char          *natter_turn_tool_call_get_decision         (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_invocation       (NatterTurnToolCall *call);
const char          *natter_turn_tool_call_get_execution        (NatterTurnToolCall *call);
GPtrArray           *natter_turn_tool_call_get_progress         (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_result_event     (NatterTurnToolCall *call);
JsonObject          *natter_turn_tool_call_get_result           (NatterTurnToolCall *call);
const char          *natter_turn_tool_call_get_result_source    (NatterTurnToolCall *call);
gboolean             natter_turn_tool_call_is_awaiting_permission (NatterTurnToolCall *call);
gboolean             natter_turn_tool_call_is_awaiting_async_result (NatterTurnToolCall *call);

/* Comparison and diagnostics */
JsonNode            *natter_turn_state_to_debug_json            (NatterTurnState  *state);
gboolean             natter_turn_state_equal                    (NatterTurnState  *a,
                                                                 NatterTurnState  *b);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterTurnState, natter_turn_state_unref)

G_END_DECLS
