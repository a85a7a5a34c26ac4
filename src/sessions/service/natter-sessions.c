/* natter-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session service of docs/sessions.md §9 on top of the turn
 * runtime: conversations as ordered turns, one active turn per session,
 * each turn's context a reference to the previous one, external inputs
 * routed to their turn, and the index kept write-through
 * (docs/sessions.md §8.3).
 *
 * Translation from the spec's TypeScript: promises are GTask
 * _async/_finish pairs on the main context; `withLock` is the session
 * repo's keyed lock held in the operation's state; the application bus is
 * this object's signals; an AbortSignal per live advance is a
 * GCancellable per advance. Blocking reads and reductions run in worker
 * threads (the repo's or ours).
 *
 * The service is split by facet over natter-sessions-private.h, and the
 * calls between its files run one way (src/README.md, "The order within
 * a folder"): this file holds the object, which every facet uses and
 * which calls none; natter-sessions-conversations.c the session-level
 * operations (create, fork, get, title, delete, flush);
 * natter-sessions-turns.c the turn-level ones (send, inputs, stop, wait,
 * resume, the queue's promotion); natter-sessions-advances.c the live
 * advances; natter-sessions-op.c the lock-and-read machinery every
 * session-locked operation runs on; natter-sessions-damage.c the
 * inspection and recovery of damaged sessions; natter-sessions-copies.c
 * the new version that goes on from another device's copy.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-index-internal.h"
#include "natter-session-schema.h"
#include "natter-sessions-private.h"
#include "natter-store-error.h"

G_DEFINE_FINAL_TYPE (NatterSessions, natter_sessions, G_TYPE_OBJECT)

guint natter_sessions_signals[NATTER_SESSIONS_N_SIGNALS];

enum
{
  PROP_0,
  PROP_AUTO_TITLE,
  PROP_READ_ONLY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_sessions_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  switch (prop_id)
    {
    case PROP_AUTO_TITLE:
      g_value_set_boolean (value, self->auto_title);
      break;
    case PROP_READ_ONLY:
      g_value_set_boolean (value, natter_jsonl_repo_get_write_refusal (self->session_repo) != NULL);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_sessions_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  switch (prop_id)
    {
    case PROP_AUTO_TITLE:
      natter_sessions_set_auto_title (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_sessions_dispose (GObject *object)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  /* Every live advance holds a reference to the service, so none is
   * left here. */
  g_assert (g_hash_table_size (self->live) == 0);

  G_OBJECT_CLASS (natter_sessions_parent_class)->dispose (object);
}

static void
natter_sessions_finalize (GObject *object)
{
  NatterSessions *self = NATTER_SESSIONS (object);

  g_clear_object (&self->session_repo);
  g_clear_object (&self->turn_repo);
  g_clear_object (&self->runtime);
  g_clear_object (&self->hub);
  g_clear_object (&self->clock);
  g_clear_object (&self->ids);
  g_clear_object (&self->index);
  g_clear_object (&self->grants);
  g_clear_pointer (&self->live, g_hash_table_unref);
  g_clear_pointer (&self->turn_waiters, g_hash_table_unref);
  g_clear_pointer (&self->ops, g_hash_table_unref);
  g_clear_pointer (&self->flushes, g_ptr_array_unref);
  g_clear_pointer (&self->held_queues, g_hash_table_unref);
  g_clear_pointer (&self->queue_holds_begun, g_hash_table_unref);
  g_clear_pointer (&self->shared_reads, g_hash_table_unref);
  g_clear_pointer (&self->queue_lengths, g_hash_table_unref);
  g_clear_object (&self->own_registry);
  g_clear_pointer (&self->own_provider, g_free);
  g_clear_pointer (&self->own_model, g_free);

  G_OBJECT_CLASS (natter_sessions_parent_class)->finalize (object);
}

static void
natter_sessions_class_init (NatterSessionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_sessions_dispose;
  object_class->finalize = natter_sessions_finalize;
  object_class->get_property = natter_sessions_get_property;
  object_class->set_property = natter_sessions_set_property;

  /**
   * NatterSessions:auto-title:
   *
   * Whether a conversation is named by its model once its first answer
   * is there (docs/sessions.md §13): the person's `auto-title`
   * setting, which the application binds here. Off until it does.
   */
  properties[PROP_AUTO_TITLE] = g_param_spec_boolean ("auto-title", NULL, NULL, FALSE,
                                                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
                                                      G_PARAM_STATIC_STRINGS);
  /**
   * NatterSessions:read-only:
   *
   * Whether this process writes no conversation: it could not take the
   * data directory's writer lock (docs/sessions.md §8.3), and every write
   * fails with natter_sessions_get_write_refusal(). It changes when the
   * lock is taken after all, once the process that held it has ended
   * (natter_sessions_refuse_writes()), so that a front end offers what it
   * held back.
   */
  properties[PROP_READ_ONLY] = g_param_spec_boolean ("read-only", NULL, NULL, FALSE,
                                                     G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY |
                                                     G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterSessions::session-index-changed:
   * @self: the service
   * @session_id: the session whose entry changed (or was removed)
   *
   * The application bus entry of docs/sessions.md §8.3/§10.2: emitted after
   * every session mutation (the index entry is already updated) and every
   * settled advance of a session turn.
   */
  natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED] =
    g_signal_new ("session-index-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterSessions::turn-event:
   * @self: the service
   * @session_id: (nullable): the turn's session, %NULL for a standalone turn
   * @turn_id: the turn
   * @event: a durable event, emitted after it is written
   * @offset: its 1-based line number in the turn file
   *
   * Durable events of every advance this service started, tagged with
   * their session, in file order (docs/sessions.md §10). The same events also
   * go out on the runtime's #NatterTurnEventHub untagged.
   */
  natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_EVENT] =
    g_signal_new ("turn-event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 4,
                  G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_OBJECT, G_TYPE_UINT64);
  /**
   * NatterSessions::turn-delta:
   * @self: the service
   * @session_id: (nullable): the turn's session
   * @turn_id: the turn
   * @model_call_index: the streaming model call
   * @kind: a #NatterDeltaKind
   * @text: the piece of text; live only, never written
   *
   * Text and reasoning deltas of the advances this service started.
   */
  natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_DELTA] =
    g_signal_new ("turn-delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 5,
                  G_TYPE_STRING, G_TYPE_STRING, G_TYPE_UINT, G_TYPE_INT, G_TYPE_STRING);
  /**
   * NatterSessions::turn-changed-elsewhere:
   * @self: the service
   * @turn_id: the turn
   *
   * A turn's file changed by the hand of another process or device
   * (docs/sessions.md §8.5): whoever shows it reads it again. Emitted by
   * natter_sessions_refresh_async(), after the session's entry is
   * updated and its #NatterSessions::session-index-changed emitted.
   */
  natter_sessions_signals[NATTER_SESSIONS_SIGNAL_TURN_CHANGED_ELSEWHERE] =
    g_signal_new ("turn-changed-elsewhere", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterSessions::damage-found:
   * @self: the service
   * @session_id: the session
   *
   * An operation on @session_id was refused because a file of it cannot
   * be read (%NATTER_SESSION_ERROR_HISTORY_DAMAGED or
   * %NATTER_SESSION_ERROR_CORRUPT): a file damaged while Natter runs,
   * which no watch reported. Whoever keeps something read from its files
   * (the search index, docs/sessions.md §8.4) looks at them again.
   * Emitted before the operation returns its error.
   */
  natter_sessions_signals[NATTER_SESSIONS_SIGNAL_DAMAGE_FOUND] =
    g_signal_new ("damage-found", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
natter_sessions_init (NatterSessions *self)
{
  self->live = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify) g_ptr_array_unref);
  self->turn_waiters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                              (GDestroyNotify) g_ptr_array_unref);
  self->ops = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->flushes = g_ptr_array_new_with_free_func (g_object_unref);
  self->held_queues = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->queue_holds_begun = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->shared_reads = g_hash_table_new (g_str_hash, g_str_equal);
  self->queue_lengths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/**
 * natter_sessions_new:
 * @session_repo: the session repository (natter_session_repo_new())
 * @turn_repo: the turn repository the runtime writes; the service reads
 *   turns through @runtime and uses this only to inspect and recover
 *   damaged sessions line by line
 * @runtime: the turn runtime
 * @hub: the process-wide turn event hub (the runtime's)
 * @clock: the clock for event timestamps
 * @ids: the id generator shared with the runtime (docs/sessions.md §6.1)
 * @index: the index to keep write-through; load it with
 *   natter_session_index_load_async() at startup
 *
 * Creates the session service (docs/sessions.md §9). Every dependency is
 * injected; the service holds a reference to each. It gives @runtime its view
 * of the sessions' permission grants
 * (natter_turn_runtime_set_permission_grants()).
 *
 * Returns: (transfer full): a new service
 */
NatterSessions *
natter_sessions_new (NatterJsonlRepo    *session_repo,
                     NatterJsonlRepo    *turn_repo,
                     NatterTurnRuntime  *runtime,
                     NatterTurnEventHub *hub,
                     NatterClock        *clock,
                     NatterIdGenerator  *ids,
                     NatterSessionIndex *index)
{
  NatterSessions *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (session_repo), NULL);
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_RUNTIME (runtime), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_EVENT_HUB (hub), NULL);
  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);
  g_return_val_if_fail (NATTER_IS_ID_GENERATOR (ids), NULL);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (index), NULL);

  self = g_object_new (NATTER_TYPE_SESSIONS, NULL);
  self->session_repo = g_object_ref (session_repo);
  self->turn_repo = g_object_ref (turn_repo);
  self->runtime = g_object_ref (runtime);
  self->hub = g_object_ref (hub);
  self->clock = g_object_ref (clock);
  self->ids = g_object_ref (ids);
  self->index = g_object_ref (index);
  self->grants = natter_session_grant_view_new (session_repo);
  natter_turn_runtime_set_permission_grants (runtime, NATTER_PERMISSION_GRANTS (self->grants));
  return self;
}

/**
 * natter_sessions_set_own_model:
 * @self: the service
 * @registry: (nullable): the person's providers
 * @provider: (nullable): their default provider's id
 * @model: (nullable): their default model; %NULL or empty for the
 *   provider's first
 *
 * The model the session layer asks on the person's behalf when a
 * conversation's own is only a record of where it came from: the
 * summary of a conversation whose latest turn was imported
 * (natter_sessions_compact_async(), docs/format.md §7.3). Without it,
 * such a summary goes to Assistant on the runtime's default model.
 */
void
natter_sessions_set_own_model (NatterSessions         *self,
                               NatterProviderRegistry *registry,
                               const char             *provider,
                               const char             *model)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (registry == NULL || NATTER_IS_PROVIDER_REGISTRY (registry));

  g_set_object (&self->own_registry, registry);
  g_free (self->own_provider);
  self->own_provider = provider != NULL && provider[0] != '\0' ? g_strdup (provider) : NULL;
  g_free (self->own_model);
  self->own_model = model != NULL && model[0] != '\0' ? g_strdup (model) : NULL;
}

/**
 * natter_sessions_list_sessions:
 * @self: the service
 *
 * listSessions of docs/sessions.md §9: the in-memory index, a #GListModel of
 * #NatterSessionIndexEntry. Synchronous; never reads a file.
 *
 * Returns: (transfer none): the index
 */
NatterSessionIndex *
natter_sessions_list_sessions (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);

  return self->index;
}

/**
 * natter_sessions_get_clock:
 * @self: the service
 *
 * The clock that stamps this service's events (createdAt, updatedAt of
 * docs/sessions.md §8.1), so that whoever shows how long ago something happened
 * measures with the same clock that wrote it (a fake one in tests).
 *
 * Returns: (transfer none): the clock
 */
NatterClock *
natter_sessions_get_clock (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);

  return self->clock;
}

/**
 * natter_sessions_set_auto_title:
 * @self: the service
 * @auto_title: whether conversations are named automatically
 *
 * Sets #NatterSessions:auto-title. It belongs to the conversation, not
 * to whoever sent its first message: whichever advance brings a
 * session's first completed answer (a send, an answer to a permission
 * prompt or a question, a delivered result, a resume, in this process
 * or after a restart) asks for the title then, while the title is still
 * the one derived from the first message (natter-sessions-auto-title.c).
 */
void
natter_sessions_set_auto_title (NatterSessions *self,
                                gboolean        auto_title)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));

  if (self->auto_title == !!auto_title)
    return;
  self->auto_title = !!auto_title;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_AUTO_TITLE]);
}

/**
 * natter_sessions_get_auto_title:
 * @self: the service
 *
 * Returns: #NatterSessions:auto-title
 */
gboolean
natter_sessions_get_auto_title (NatterSessions *self)
{
  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);

  return self->auto_title;
}

/**
 * natter_sessions_set_fault_func: (skip)
 * @self: the service
 * @func: (nullable): the fault function, or %NULL
 * @user_data: data for @func
 *
 * Test seam: see #NatterSessionsFaultFunc.
 */
void
natter_sessions_set_fault_func (NatterSessions          *self,
                                NatterSessionsFaultFunc  func,
                                gpointer                 user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));

  self->fault = func;
  self->fault_data = user_data;
}

/**
 * natter_sessions_refuse_writes:
 * @self: the service
 * @refusal: (nullable): why this process writes no conversation, a
 *   %NATTER_SESSION_ERROR_LOCKED; %NULL once it may
 *
 * Makes the session and turn repositories refuse every write with
 * @refusal (natter_jsonl_repo_refuse_writes()), or lifts the refusal:
 * the outcome of the data directory's writer lock (docs/sessions.md
 * §8.3), which the services set (natter_services_acquire_writer_lock()).
 * Notifies #NatterSessions:read-only when that changes.
 */
void
natter_sessions_refuse_writes (NatterSessions *self,
                               const GError   *refusal)
{
  gboolean was_read_only;

  g_return_if_fail (NATTER_IS_SESSIONS (self));

  was_read_only = natter_jsonl_repo_get_write_refusal (self->session_repo) != NULL;
  natter_jsonl_repo_refuse_writes (self->session_repo, refusal);
  natter_jsonl_repo_refuse_writes (self->turn_repo, refusal);
  if (was_read_only != (refusal != NULL))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READ_ONLY]);
}
