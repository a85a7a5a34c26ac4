/* natter-sessions-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the facets of the session service share (natter-sessions.c,
 * -conversations.c, -turns.c, -advances.c, -op.c, -damage.c and the
 * others): the instance struct, the
 * per-operation task data and the internal entry points; and the test
 * seams: crash simulation between the steps of send_message
 * (docs/sessions.md §9.1, §7) and a view of the live advances it
 * tracks (docs/sessions.md §9.3).
 */

#pragma once

#include "natter-session-grant-view.h"
#include "natter-sessions.h"
#include "natter-sessions-queue.h"
#include "natter-turn-reducer.h"

G_BEGIN_DECLS

/**
 * NatterSessionsStep:
 * @NATTER_SESSIONS_STEP_READ_SESSION: after step 1 (session read and reduced)
 * @NATTER_SESSIONS_STEP_CHECK_LATEST: after step 2 (latest turn settled)
 * @NATTER_SESSIONS_STEP_CREATE_TURN: after step 4 (turn file created),
 *   before step 5 — the docs/sessions.md §7 crash window that leaves an orphan
 *   turn
 * @NATTER_SESSIONS_STEP_APPEND: after steps 5–6 (turn_appended and the
 *   default title are on disk), before step 7
 * @NATTER_SESSIONS_STEP_ADVANCE: after step 7 (the advance started),
 *   before step 8
 *
 * Points of send_message where a fault function may simulate a crash.
 */
typedef enum
{
  NATTER_SESSIONS_STEP_READ_SESSION,
  NATTER_SESSIONS_STEP_CHECK_LATEST,
  NATTER_SESSIONS_STEP_CREATE_TURN,
  NATTER_SESSIONS_STEP_APPEND,
  NATTER_SESSIONS_STEP_ADVANCE,
} NatterSessionsStep;

/* Returns FALSE with @error set to stop send_message at @step as if the
 * process had died there: nothing after the step happens, the lock is
 * released and the error is returned. */
typedef gboolean (*NatterSessionsFaultFunc) (NatterSessionsStep   step,
                                             const char          *session_id,
                                             gpointer             user_data,
                                             GError             **error);

void   natter_sessions_set_fault_func         (NatterSessions          *self,
                                               NatterSessionsFaultFunc  func,
                                               gpointer                 user_data);
guint  natter_sessions_get_n_live_advances    (NatterSessions          *self,
                                               const char              *turn_id);
guint  natter_sessions_get_n_advances         (NatterSessions          *self);
guint  natter_sessions_get_n_session_reads    (NatterSessions          *self);

/* Below: internal to the session layer. */

struct _NatterSessions
{
  GObject                  parent_instance;

  NatterJsonlRepo         *session_repo;
  NatterJsonlRepo         *turn_repo;     /* damage inspection only; turns are read through the runtime */
  NatterTurnRuntime       *runtime;
  NatterTurnEventHub      *hub;
  NatterClock             *clock;
  NatterIdGenerator       *ids;
  NatterSessionIndex      *index;
  /* What the runtime consults (docs/sessions.md §12). */
  NatterSessionGrantView  *grants;

  /* docs/sessions.md §9.3: every live advance this service started, per
   * turn. */
  GHashTable              *live;          /* turn id → GPtrArray of NatterSessionsAdvance */
  GHashTable              *turn_waiters;  /* turn id → GPtrArray of NatterSessionsTurnWaiter */
  guint                    n_advances;    /* advances alive, settled or not */

  /* flush_async(): session-layer operations still running. */
  guint64                  next_op;
  GHashTable              *ops;           /* op number (guint64*) → itself */
  GPtrArray               *flushes;       /* GTask; task data = target op */

  NatterSessionsFaultFunc  fault;
  gpointer                 fault_data;

  /* docs/sessions.md §13: whether a session's first completed answer asks its
   * model for a title (natter-sessions-auto-title.c). */
  gboolean                 auto_title;

  /* getSession reads not yet begun, which later requests join
   * (natter-sessions-op.c): session id → SharedRead. */
  GHashTable              *shared_reads;

  /* The person's own model, for summaries of imported conversations
   * (natter_sessions_set_own_model()). */
  NatterProviderRegistry  *own_registry;
  char                    *own_provider;
  char                    *own_model;
  /* Queues that are not to go on for now (natter_sessions_hold_queue()):
   * session id → number of holds; and how many holds each session's
   * queue has had since the service started, so that a promotion learns
   * that one began while it read (session id → count). */
  GHashTable              *held_queues;
  GHashTable              *queue_holds_begun;
  /* How many messages each session had queued when its file was last
   * read or written under its lock (session id → count + 1; absent: not
   * known), so that a settled turn learns that nothing is queued without
   * taking the lock and reading the file (natter-sessions-op.c). */
  GHashTable              *queue_lengths;
  guint                    n_session_reads; /* session files read and reduced, for tests and benchmarks */
};

enum
{
  NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED,
  NATTER_SESSIONS_SIGNAL_TURN_EVENT,
  NATTER_SESSIONS_SIGNAL_TURN_DELTA,
  NATTER_SESSIONS_SIGNAL_TURN_CHANGED_ELSEWHERE,
  NATTER_SESSIONS_SIGNAL_DAMAGE_FOUND,
  NATTER_SESSIONS_N_SIGNALS
};

extern guint natter_sessions_signals[NATTER_SESSIONS_N_SIGNALS];

/* What a session does once an advance of one of its turns settles
 * (natter_sessions_start_advance()). */
typedef void (*NatterSessionsSettledFunc) (NatterSessions *self,
                                           const char     *session_id);

/* What a waiter for a turn's live advances (@task, transfer full) does
 * when the last of them settled leaving the turn waiting for a
 * permission, an answer or a tool's result; it completes @task. */
typedef void (*NatterSessionsRestingFunc) (NatterSessions *self,
                                           const char     *turn_id,
                                           GTask          *task);

/* One waiter for a turn's live advances (docs/sessions.md §9.3): told
 * once none is left. */
typedef struct
{
  GTask                     *task;
  NatterSessionsRestingFunc  resting;  /* nullable: the task is told at once */
} NatterSessionsTurnWaiter;

/* One advance this service started and tracks (docs/sessions.md §9.3). */
typedef struct
{
  NatterSessions      *self;
  NatterTurnExecution *execution;
  GCancellable        *cancellable;
  char                *session_id;   /* nullable: standalone */
  char                *turn_id;
  gboolean             completed;    /* this advance wrote turn_completed */
  guint64              title_op;     /* in flight while a title may follow, else 0 */
  NatterSessionsSettledFunc settled; /* nullable */
} NatterSessionsAdvance;

typedef struct _NatterSessionsOp NatterSessionsOp;

/* The steps an operation takes once it holds the lock and the session is
 * read (docs/sessions.md §9.1 step 1), and once the latest turn is read (step
 * 2). */
typedef void (*NatterSessionsOpStep)       (GTask           *task);
typedef void (*NatterSessionsOpLatestStep) (GTask           *task,
                                            NatterTurnState *turn);

/* What every session-locked operation holds. An operation's task data
 * begins with it and adds the operation's own members after it. */
struct _NatterSessionsOp
{
  NatterSessions             *self;
  guint64                     op;          /* in flight, for flush_async(); 0 once finished */
  char                       *session_id;
  NatterLockGuard            *guard;
  NatterSessionState         *state;       /* the session, read under the lock */
  NatterSessionsOpStep        on_session;  /* natter_sessions_op_lock_and_read() */
  NatterSessionsOpLatestStep  on_latest;   /* natter_sessions_op_read_latest() */
  GPtrArray                  *appending;   /* natter_sessions_op_append_v2_async() */
  GDestroyNotify              clear;       /* frees the operation's own members */
};

/* Declares the typed task data TypeName of one operation (a struct whose
 * first member is `NatterSessionsOp base`): type_name_task_new() makes
 * its task, type_name_get() returns it, and the file defines
 * type_name_clear() to free its own members. */
#define NATTER_SESSIONS_DEFINE_OP(TypeName, type_name)                                       \
  G_STATIC_ASSERT (G_STRUCT_OFFSET (TypeName, base) == 0);                                  \
  static void type_name##_clear (TypeName *data);                                           \
  static inline GTask *                                                                     \
  type_name##_task_new (NatterSessions      *self,                                          \
                        const char          *session_id,                                    \
                        GCancellable        *cancellable,                                   \
                        GAsyncReadyCallback  callback,                                      \
                        gpointer             user_data,                                     \
                        gpointer             source_tag)                                    \
  {                                                                                         \
    return natter_sessions_op_task_new (self, session_id, sizeof (TypeName),                \
                                        (GDestroyNotify) type_name##_clear,                 \
                                        cancellable, callback, user_data, source_tag);      \
  }                                                                                         \
  static inline TypeName *                                                                  \
  type_name##_get (GTask *task)                                                             \
  {                                                                                         \
    return g_task_get_task_data (task);                                                     \
  }

/* natter-sessions-settings.c: what a deleted session hands to the
 * versions made of it (docs/sessions.md §9.4) */
typedef struct _NatterSessionsHeritage NatterSessionsHeritage;

NatterSessionsHeritage *natter_sessions_heritage_new         (NatterSessions         *self,
                                                              const char             *session_id);
void                    natter_sessions_heritage_free        (NatterSessionsHeritage *heritage);
void                    natter_sessions_heritage_pass_async  (NatterSessions         *self,
                                                              NatterSessionsHeritage *heritage,
                                                              GAsyncReadyCallback     callback,
                                                              gpointer                user_data);
gboolean                natter_sessions_heritage_pass_finish (NatterSessions         *self,
                                                              GAsyncResult           *result,
                                                              GError                **error);

/* natter-sessions-op.c */
GError             *natter_sessions_session_error      (GError                *error,
                                                        const char            *session_id);
GError             *natter_sessions_latest_turn_error  (GError                *error,
                                                        const char            *session_id,
                                                        const char            *turn_id);
GError             *natter_sessions_history_error      (GError                *error,
                                                        const char            *session_id,
                                                        const char            *turn_id);
GError             *natter_sessions_arriving_error     (GError                *error,
                                                        const char            *session_id,
                                                        const char            *turn_id);
GError             *natter_sessions_read_only_error    (const char            *session_id);
GError             *natter_sessions_end_lost_error     (NatterSessions        *self,
                                                        const char            *turn_id);
void                natter_sessions_read_session_async (NatterSessions        *self,
                                                        const char            *session_id,
                                                        GCancellable          *cancellable,
                                                        GAsyncReadyCallback    callback,
                                                        gpointer               user_data);
NatterSessionState *natter_sessions_read_session_finish (GAsyncResult         *result,
                                                         GError              **error);
void                natter_sessions_join_session_read  (NatterSessions        *self,
                                                        const char            *session_id,
                                                        GTask                 *task);
void                natter_sessions_read_turn_async    (NatterSessions        *self,
                                                        const char            *turn_id,
                                                        GCancellable          *cancellable,
                                                        GAsyncReadyCallback    callback,
                                                        gpointer               user_data);
NatterTurnState    *natter_sessions_read_turn_finish   (GObject               *runtime,
                                                        GAsyncResult          *result,
                                                        GError               **error);
gboolean            natter_sessions_knows_nothing_queued (NatterSessions      *self,
                                                          const char          *session_id);
void                natter_sessions_forget_queue       (NatterSessions        *self,
                                                        const char            *session_id);
guint64             natter_sessions_begin_op           (NatterSessions        *self);
void                natter_sessions_end_op             (NatterSessions        *self,
                                                        guint64                op);
gboolean            natter_sessions_ops_done_up_to     (NatterSessions        *self,
                                                        guint64                target);
GTask              *natter_sessions_op_task_new        (NatterSessions        *self,
                                                        const char            *session_id,
                                                        gsize                  size,
                                                        GDestroyNotify         clear,
                                                        GCancellable          *cancellable,
                                                        GAsyncReadyCallback    callback,
                                                        gpointer               user_data,
                                                        gpointer               source_tag);
void                natter_sessions_op_finish          (GTask                 *task);
void                natter_sessions_op_publish         (GTask                 *task);
void                natter_sessions_op_write_title     (GTask                 *task,
                                                        const char            *title);
void                natter_sessions_op_return_error    (GTask                 *task,
                                                        GError                *error);
gboolean            natter_sessions_op_check_cancelled (GTask                 *task);
gboolean            natter_sessions_op_fault           (GTask                 *task,
                                                        NatterSessionsStep     step);
void                natter_sessions_op_lock            (GTask                 *task,
                                                        GAsyncReadyCallback    callback);
gboolean            natter_sessions_op_lock_finish     (GTask                 *task,
                                                        GAsyncResult          *result);
gboolean            natter_sessions_op_refuse_write    (GTask                 *task);
void                natter_sessions_op_lock_and_read   (GTask                 *task,
                                                        NatterSessionsOpStep   on_session);
void                natter_sessions_op_read_latest     (GTask                 *task,
                                                        NatterSessionsOpLatestStep on_latest);
gboolean            natter_sessions_op_apply_appended  (NatterSessionsOp      *data,
                                                        GPtrArray             *events,
                                                        GError               **error);

/* natter-sessions-auto-title.c */
void                natter_sessions_title_completed    (NatterSessions        *self,
                                                        const char            *session_id,
                                                        const char            *turn_id,
                                                        guint64                op);
char               *natter_title_request_text          (JsonNode              *question,
                                                        const char            *answer);
char               *natter_title_from_answer           (const char            *answer);

/* natter-sessions-append.c */
void                natter_sessions_op_append_v2_async (GTask                 *task,
                                                        GPtrArray             *events,
                                                        GAsyncReadyCallback    callback);
gboolean            natter_sessions_op_append_v2_finish (GTask                *task,
                                                         GAsyncResult         *result,
                                                         GError              **error);
gboolean            natter_sessions_op_appended         (GTask                *task,
                                                         GAsyncResult         *result);
void                natter_sessions_append_events_async (NatterSessions      *self,
                                                         const char          *session_id,
                                                         GPtrArray           *events,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
gboolean            natter_sessions_append_events_finish (NatterSessions     *self,
                                                          GAsyncResult       *result,
                                                          GError            **error);

/* natter-sessions-compaction.c */
char               *natter_compaction_request_text     (JsonArray             *messages);
JsonObject         *natter_compaction_summary_message  (JsonObject            *compaction);
void                natter_sessions_compaction_context_async  (NatterSessions      *self,
                                                               JsonObject          *compaction,
                                                               const char          *latest_turn_id,
                                                               GAsyncReadyCallback  callback,
                                                               gpointer             user_data);
JsonArray          *natter_sessions_compaction_context_finish (GAsyncResult        *result,
                                                               GError             **error);
void                natter_sessions_fork_compaction_async     (NatterSessions      *self,
                                                               JsonObject          *compaction,
                                                               const char          *fork_turn_id,
                                                               GAsyncReadyCallback  callback,
                                                               gpointer             user_data);
JsonObject         *natter_sessions_fork_compaction_finish    (GAsyncResult        *result,
                                                               GError             **error);
JsonNode           *natter_sessions_compaction_copy           (NatterSessions      *self,
                                                               const char          *session_id,
                                                               JsonObject          *compaction);
/* natter-sessions-turn-chain.c */
void                natter_sessions_walk_back_async   (NatterSessions      *self,
                                                       const char          *from,
                                                       const char          *stop_at,
                                                       guint                max_turns,
                                                       gboolean             must_reach,
                                                       GAsyncReadyCallback  callback,
                                                       gpointer             user_data);
GPtrArray          *natter_sessions_walk_back_finish  (GAsyncResult        *result,
                                                       char               **out_previous,
                                                       gboolean            *out_reached,
                                                       GError             **error);

/* natter-sessions-history-check.c */
gboolean            natter_sessions_history_attachments_need_check   (NatterSessions      *self,
                                                                      JsonArray           *history);
void                natter_sessions_check_history_attachments_async  (NatterSessions      *self,
                                                                      JsonArray           *history,
                                                                      const char          *session_id,
                                                                      GCancellable        *cancellable,
                                                                      GAsyncReadyCallback  callback,
                                                                      gpointer             user_data);
gboolean            natter_sessions_check_history_attachments_finish (NatterSessions      *self,
                                                                      GAsyncResult        *result,
                                                                      GError             **error);

/* natter-sessions-turns.c */
void                natter_sessions_take_queued         (NatterSessionState  *state,
                                                         guint                index,
                                                         char               **out_queue_id,
                                                         JsonObject         **inout_input,
                                                         NatterSendOptions  **inout_options);
void                natter_sessions_promote_soon        (NatterSessions      *self,
                                                         const char          *session_id);
void                natter_sessions_stop_session_turns_async  (NatterSessions      *self,
                                                               const char          *session_id,
                                                               GAsyncReadyCallback  callback,
                                                               gpointer             user_data);
gboolean            natter_sessions_stop_session_turns_finish (NatterSessions      *self,
                                                               GAsyncResult        *result,
                                                               GError             **error);

/* natter-sessions-advances.c */
NatterTurnExecution *natter_sessions_start_advance     (NatterSessions            *self,
                                                        const char                *session_id,
                                                        const char                *turn_id,
                                                        JsonObject                *input,
                                                        NatterSessionsSettledFunc  settled);
NatterTurnExecution *natter_sessions_start_take_over   (NatterSessions            *self,
                                                        const char                *session_id,
                                                        const char                *turn_id,
                                                        NatterSessionsSettledFunc  settled);

const char *natter_sessions_answering_device      (NatterSessions  *self,
                                                  NatterTurnState *turn);
GError     *natter_sessions_queue_elsewhere_error (NatterSessions  *self,
                                                  NatterTurnState *turn);

G_END_DECLS
