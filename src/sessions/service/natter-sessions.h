/* natter-sessions.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-import-report.h"
#include "natter-session-default-title.h"
#include "natter-session-error.h"
#include "natter-session-index.h"
#include "natter-session-reducer.h"
#include "natter-provider-registry.h"
#include "natter-send-options.h"
#include "natter-turn-runtime.h"

G_BEGIN_DECLS

/**
 * NatterSessionDamage:
 * @title: (nullable): the title the readable lines give
 * @file: the damaged file: the session's log, or the first of its
 *   turns' logs that cannot be read
 * @line: the 1-based number of the first line of @file that cannot be
 *   read (or breaks a rule), 0 when @file cannot be read at all
 * @reason: (nullable): why, in the words of the reader, without the
 *   path; %NULL when nothing is damaged
 * @n_turns: how many turns a copy (natter_sessions_recover_async())
 *   would have: those before the first one that cannot be read
 * @can_copy: whether anything can be copied (the first line reads)
 * @message: (nullable): the words of the message of the first turn a
 *   copy leaves out, when that turn's first line reads (its text parts;
 *   not its attachments): for the person to send again in the copy,
 *   since the copy cannot hold them
 * @left_out: whether a copy leaves out a turn the conversation lists:
 *   the one after its @n_turns, whose message is the conversation's
 *   (@n_turns + 1)th; %FALSE when the damage is in the session's own
 *   log, past its last readable turn, or when nothing is damaged
 * @message_read: whether the left-out turn's message reads (its first
 *   line); @message is then its words, or %NULL for a message of files
 *   only. %FALSE when @left_out is, or when not even the message can be
 *   read: then nothing of it can be offered again
 * @last_agent_id: (nullable): the agent of the conversation's latest
 *   turn as its own log lists it, readable or not: the one the
 *   conversation was going on with
 * @last_model: (nullable): that turn's `{provider, model}`: the model
 *   the conversation was going on with, which its header showed; the
 *   window's copy goes on with it, whatever its last copied turn used
 *   (docs/sessions.md §2)
 *
 * What is left of a damaged session, and where the damage is
 * (natter_sessions_inspect_damage_async(), and the report a copy was
 * made by, natter_sessions_recover_finish()).
 */
typedef struct
{
  char       *title;
  GFile      *file;
  guint       line;
  char       *reason;
  guint       n_turns;
  gboolean    can_copy;
  char       *message;
  gboolean    left_out;
  gboolean    message_read;
  char       *last_agent_id;
  JsonObject *last_model;
} NatterSessionDamage;

#define NATTER_TYPE_SESSION_DAMAGE (natter_session_damage_get_type ())

GType                natter_session_damage_get_type (void) G_GNUC_CONST;
NatterSessionDamage *natter_session_damage_copy     (const NatterSessionDamage *damage);
void                 natter_session_damage_free     (NatterSessionDamage       *damage);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSessionDamage, natter_session_damage_free)

/**
 * NatterTurnVersion:
 * @session_id: the session whose own turn it is
 * @turn_id: the turn
 *
 * One version of a message (natter_sessions_list_versions_async()).
 */
typedef struct
{
  char *session_id;
  char *turn_id;
} NatterTurnVersion;

void natter_turn_version_free (NatterTurnVersion *version);

/* The `reason` a stop records on `turn_cancelled` (docs/format.md §4.2)
 * when it is not the person's own: words stored as they are, untranslated,
 * like every text of a turn file. */
#define NATTER_CANCEL_REASON_DELETED "The conversation was deleted"
#define NATTER_CANCEL_REASON_CLOSED  "Natter was closed"

#define NATTER_TYPE_SESSIONS (natter_sessions_get_type ())

G_DECLARE_FINAL_TYPE (NatterSessions, natter_sessions, NATTER, SESSIONS, GObject)

NatterSessions     *natter_sessions_new                          (NatterJsonlRepo     *session_repo,
                                                                  NatterJsonlRepo     *turn_repo,
                                                                  NatterTurnRuntime   *runtime,
                                                                  NatterTurnEventHub  *hub,
                                                                  NatterClock         *clock,
                                                                  NatterIdGenerator   *ids,
                                                                  NatterSessionIndex  *index);

void                natter_sessions_set_own_model                (NatterSessions         *self,
                                                                  NatterProviderRegistry *registry,
                                                                  const char             *provider,
                                                                  const char             *model);
NatterSessionIndex *natter_sessions_list_sessions                (NatterSessions      *self);
NatterClock        *natter_sessions_get_clock                    (NatterSessions      *self);
void                natter_sessions_set_auto_title               (NatterSessions      *self,
                                                                  gboolean             auto_title);
gboolean            natter_sessions_get_auto_title               (NatterSessions      *self);

void                natter_sessions_create_session_async         (NatterSessions      *self,
                                                                  const char          *title,
                                                                  const char          *cwd,
                                                                  const char          *parent_session,
                                                                  const char          *forked_from_turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_create_session_finish        (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_fork_async                   (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  const char          *turn_id,
                                                                  const char          *title,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_fork_finish                  (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_create_first_version_async   (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  const char          *parent_session,
                                                                  const char          *title,
                                                                  const char          *cwd,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_create_first_version_finish  (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_continue_copy_async          (NatterSessions      *self,
                                                                  const char          *copy,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_continue_copy_finish         (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_get_session_async            (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
NatterSessionState *natter_sessions_get_session_finish           (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_find_turn_async              (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char              **natter_sessions_find_turn_finish             (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_get_turn_async               (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
GPtrArray          *natter_sessions_get_turn_finish              (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
NatterTurnState    *natter_sessions_get_turn_reduced_finish      (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_read_history_async           (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
GPtrArray          *natter_sessions_read_history_finish          (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_send_message_async           (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  JsonObject          *input,
                                                                  const NatterSendOptions *options,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_send_message_finish          (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_respond_to_permission_async  (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  const char          *tool_call_id,
                                                                  const char          *decision,
                                                                  JsonNode            *metadata,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
NatterTurnOutcome  *natter_sessions_respond_to_permission_finish (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_respond_to_ask_human_async   (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  const char          *tool_call_id,
                                                                  const char          *answer,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
NatterTurnOutcome  *natter_sessions_respond_to_ask_human_finish  (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_deliver_async_tool_result_async  (NatterSessions      *self,
                                                                      const char          *turn_id,
                                                                      const char          *tool_call_id,
                                                                      JsonObject          *result,
                                                                      GCancellable        *cancellable,
                                                                      GAsyncReadyCallback  callback,
                                                                      gpointer             user_data);
NatterTurnOutcome  *natter_sessions_deliver_async_tool_result_finish (NatterSessions      *self,
                                                                      GAsyncResult        *result,
                                                                      GError             **error);

void                natter_sessions_stop_turn_async              (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  const char          *reason,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_stop_turn_finish             (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_resume_turn_async            (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_resume_turn_finish           (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_read_kept_words_async        (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  guint                model_call_index,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
JsonNode           *natter_sessions_read_kept_words_finish       (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_take_over_turn_async         (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_take_over_turn_finish        (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_set_title_async              (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  const char          *title,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_set_title_finish             (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_set_conversation_title_async  (NatterSessions      *self,
                                                                   const char          *session_id,
                                                                   const char          *title,
                                                                   GCancellable        *cancellable,
                                                                   GAsyncReadyCallback  callback,
                                                                   gpointer             user_data);
gboolean            natter_sessions_set_conversation_title_finish (NatterSessions      *self,
                                                                   GAsyncResult        *result,
                                                                   GError             **error);

void                natter_sessions_delete_session_async         (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_delete_session_finish        (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_wait_for_turn_async          (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_wait_for_turn_finish         (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_flush_async                  (NatterSessions      *self,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_flush_finish                 (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

gboolean            natter_sessions_is_turn_running              (NatterSessions      *self,
                                                                  const char          *turn_id);
gboolean            natter_sessions_get_streamed                 (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  guint               *model_call_index,
                                                                  const char         **text,
                                                                  const char         **reasoning);
NatterDevice       *natter_sessions_get_device                   (NatterSessions      *self);
gboolean            natter_sessions_is_shared                    (NatterSessions      *self);
const GError       *natter_sessions_get_write_refusal            (NatterSessions      *self);
void                natter_sessions_refuse_writes                (NatterSessions      *self,
                                                                  const GError        *refusal);

void                natter_sessions_refresh_async                (NatterSessions      *self,
                                                                  const char * const  *session_names,
                                                                  const char * const  *turn_names,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_refresh_finish               (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
gboolean            natter_sessions_is_turn_elsewhere            (NatterSessions      *self,
                                                                  NatterSessionIndexEntry *entry);

void                natter_sessions_inspect_damage_async         (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
NatterSessionDamage *natter_sessions_inspect_damage_finish       (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_read_turn_message_async      (NatterSessions      *self,
                                                                  const char          *turn_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
gboolean            natter_sessions_read_turn_message_finish     (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  char               **out_text,
                                                                  GError             **error);
void                natter_sessions_recover_async                (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_recover_finish               (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  NatterSessionDamage **out_damage,
                                                                  GError             **error);

void                natter_sessions_compact_async                (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  guint                keep,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_compact_finish               (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_export_async                 (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  const char          *format,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
char               *natter_sessions_export_finish                (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);
void                natter_sessions_import_async                 (NatterSessions      *self,
                                                                  GFile               *file,
                                                                  const char          *from,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
NatterImportReport *natter_sessions_import_finish                (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

void                natter_sessions_list_versions_async          (NatterSessions      *self,
                                                                  const char          *session_id,
                                                                  GCancellable        *cancellable,
                                                                  GAsyncReadyCallback  callback,
                                                                  gpointer             user_data);
GHashTable         *natter_sessions_list_versions_finish         (NatterSessions      *self,
                                                                  GAsyncResult        *result,
                                                                  GError             **error);

G_END_DECLS
