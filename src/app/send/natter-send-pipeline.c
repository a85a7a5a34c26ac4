/* natter-send-pipeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one way a person's message becomes a turn, for the window and the
 * command line alike (docs/sessions.md §1). From a
 * NatterMessageRequest it decides, in this order and before anything is
 * written:
 *
 *   - what is sent: new words, or a message sent again as it was (its
 *     words and its attachments, read from its turn);
 *   - where: the conversation asked for, a new one (a conversation
 *     exists from its first message), a new version of a message (a
 *     branch at the turn before it), or for another device's copy of a
 *     conversation, a new version that goes on from it;
 *   - to whom: the agent (the one asked for, else the conversation's)
 *     and the model, by the one rule of natter-model-choice.c;
 *
 * then stores the attachments, makes the new conversation or version,
 * compacts when asked or when the conversation fills the model's window,
 * and queues the message behind an answer that has not ended or sends
 * it. The session layer under it refuses what cannot be sent (a turn
 * that has not settled, a history that cannot be read whole); a
 * conversation made for a message that was then refused is removed
 * again, so no empty conversation is left behind.
 */

#define G_LOG_DOMAIN "natter-app"

#include "config.h"

#include "natter-send-pipeline.h"

#include <signal.h>

#include "natter-auto-compact.h"
#include "natter-builtin-agent-resolver.h"
#include "natter-model-choice.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-archive.h"
#include "natter-session-error.h"
#include "natter-sessions-queue.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"
#include "natter-turn-reducer.h"

/* The turns a Compact and Continue keeps whole: the message sent again
 * and the one turn before it, the same two a compaction of the
 * conversation keeps (the failed turn is not among them: its message
 * goes once, in the new version). */
#define KEEP_TURNS_BEFORE 1

/* How many sessions a new version's message is looked for in, past its
 * own: the conversation it was typed in and those it branched from (a
 * bound against a damaged store naming a cycle). */
#define MAX_OWNER_HOPS 64

struct _NatterSendPipeline
{
  GObject                 parent_instance;

  NatterSessions         *sessions;
  NatterSettings         *settings;
  NatterProviderRegistry *registry;        /* nullable */
  char                   *default_provider;
  char                   *default_model;
  NatterBlobStore        *blobs;           /* nullable: no attachments */
  NatterAgentStore       *agents;          /* nullable: Assistant only */
};

G_DEFINE_FINAL_TYPE (NatterSendPipeline, natter_send_pipeline, G_TYPE_OBJECT)

/* Results */

/**
 * natter_send_result_copy:
 * @result: a result
 *
 * Returns: (transfer full): a copy of @result
 */
NatterSendResult *
natter_send_result_copy (const NatterSendResult *result)
{
  NatterSendResult *copy = g_new0 (NatterSendResult, 1);

  copy->session_id = g_strdup (result->session_id);
  copy->turn_id = g_strdup (result->turn_id);
  copy->queue_id = g_strdup (result->queue_id);
  copy->created = result->created;
  copy->compaction_id = g_strdup (result->compaction_id);
  copy->compaction_error = result->compaction_error != NULL ? g_error_copy (result->compaction_error) : NULL;
  copy->n_moved = result->n_moved;
  copy->move_error = result->move_error != NULL ? g_error_copy (result->move_error) : NULL;
  return copy;
}

/**
 * natter_send_result_free:
 * @result: (transfer full) (nullable): a result
 */
void
natter_send_result_free (NatterSendResult *result)
{
  if (result == NULL)
    return;
  g_free (result->session_id);
  g_free (result->turn_id);
  g_free (result->queue_id);
  g_free (result->compaction_id);
  g_clear_error (&result->compaction_error);
  g_clear_error (&result->move_error);
  g_free (result);
}

G_DEFINE_BOXED_TYPE (NatterSendResult, natter_send_result, natter_send_result_copy, natter_send_result_free)

/* The object */

static void
natter_send_pipeline_finalize (GObject *object)
{
  NatterSendPipeline *self = NATTER_SEND_PIPELINE (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->settings);
  g_clear_object (&self->registry);
  g_free (self->default_provider);
  g_free (self->default_model);
  g_clear_object (&self->blobs);
  g_clear_object (&self->agents);

  G_OBJECT_CLASS (natter_send_pipeline_parent_class)->finalize (object);
}

static void
natter_send_pipeline_class_init (NatterSendPipelineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_send_pipeline_finalize;
}

static void
natter_send_pipeline_init (NatterSendPipeline *self)
{
}

/**
 * natter_send_pipeline_new:
 * @sessions: the session service the messages go through
 * @settings: the settings whose defaults a message follows
 *   (`auto-permission`, `max-model-calls`, `auto-title`, `auto-compact`,
 *   `attachment-size-limit`)
 *
 * A pipeline without providers, attachments or agents: give it those
 * with the setters; without a registry only a model named by the request
 * or the conversation can be used.
 *
 * Returns: (transfer full): a new pipeline
 */
NatterSendPipeline *
natter_send_pipeline_new (NatterSessions *sessions,
                          NatterSettings *settings)
{
  NatterSendPipeline *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (NATTER_IS_SETTINGS (settings), NULL);

  self = g_object_new (NATTER_TYPE_SEND_PIPELINE, NULL);
  self->sessions = g_object_ref (sessions);
  self->settings = g_object_ref (settings);
  return self;
}

/**
 * natter_send_pipeline_set_provider_registry:
 * @self: the pipeline
 * @registry: (nullable): the configured providers
 * @default_provider: (nullable): the provider a message goes to when
 *   nothing else names one (the `default-provider` setting)
 * @default_model: (nullable): its model; %NULL or "" for the provider's
 *   first (the `default-model` setting)
 */
void
natter_send_pipeline_set_provider_registry (NatterSendPipeline     *self,
                                            NatterProviderRegistry *registry,
                                            const char             *default_provider,
                                            const char             *default_model)
{
  g_return_if_fail (NATTER_IS_SEND_PIPELINE (self));
  g_return_if_fail (registry == NULL || NATTER_IS_PROVIDER_REGISTRY (registry));

  g_set_object (&self->registry, registry);
  g_free (self->default_provider);
  self->default_provider = g_strdup (default_provider);
  g_free (self->default_model);
  self->default_model = g_strdup (default_model);
}

/**
 * natter_send_pipeline_set_blob_store:
 * @self: the pipeline
 * @blobs: (nullable): where attachments are stored; without it a
 *   request with attachments is refused
 */
void
natter_send_pipeline_set_blob_store (NatterSendPipeline *self,
                                     NatterBlobStore    *blobs)
{
  g_return_if_fail (NATTER_IS_SEND_PIPELINE (self));
  g_set_object (&self->blobs, blobs);
}

/**
 * natter_send_pipeline_set_agent_store:
 * @self: the pipeline
 * @agents: (nullable): the user's agents; without it only Assistant
 *   answers
 */
void
natter_send_pipeline_set_agent_store (NatterSendPipeline *self,
                                      NatterAgentStore   *agents)
{
  g_return_if_fail (NATTER_IS_SEND_PIPELINE (self));
  g_set_object (&self->agents, agents);
}

/**
 * natter_send_pipeline_get_sessions:
 * @self: the pipeline
 *
 * Returns: (transfer none): the session service
 */
NatterSessions *
natter_send_pipeline_get_sessions (NatterSendPipeline *self)
{
  g_return_val_if_fail (NATTER_IS_SEND_PIPELINE (self), NULL);
  return self->sessions;
}

/* The agent */

/* The agent file of @agent_id, or NULL for Assistant, without an agent
 * store (the runtime's resolver alone knows the agents then), or for an
 * agent that is gone or cannot be read (then *@gone). */
static JsonObject *
load_agent (NatterSendPipeline *self,
            const char         *agent_id,
            gboolean           *gone)
{
  g_autoptr(GError) error = NULL;
  JsonObject *agent;

  *gone = FALSE;
  if (agent_id == NULL || g_str_equal (agent_id, NATTER_BUILTIN_AGENT_ID) || self->agents == NULL)
    return NULL;
  agent = natter_agent_store_load (self->agents, agent_id, &error);
  if (agent == NULL)
    {
      *gone = TRUE;
      g_debug ("Agent %s cannot be used: %s", agent_id, error->message);
    }
  return agent;
}

/* Whether @model, recorded by an imported turn, is one of the person's
 * own (natter_provider_registry_offers_model()). */
static gboolean
model_is_offered (NatterSendPipeline *self,
                  JsonObject         *model)
{
  return self->registry != NULL && natter_provider_registry_offers_model (self->registry, model);
}

/**
 * natter_send_pipeline_dup_agent:
 * @self: the pipeline
 * @session_id: (nullable): a conversation, or %NULL for a new one
 * @gone: (out) (optional): set to whether the conversation's agent no
 *   longer exists (deleted, or not readable), so Assistant answers
 *
 * The agent a conversation's next message goes to when none is chosen:
 * the agent of its latest turn while it exists, else Assistant. The
 * window's agent chooser shows the same. An imported latest turn's agent
 * is a record of where the conversation came from (docs/format.md §7.3):
 * it answers only when it is one of the person's own agents, and
 * otherwise Assistant takes over without @gone being set, since nothing
 * the person had was lost.
 *
 * Returns: (transfer full): the agent id
 */
char *
natter_send_pipeline_dup_agent (NatterSendPipeline *self,
                                const char         *session_id,
                                gboolean           *gone)
{
  NatterSessionIndexEntry *entry;
  g_autoptr(JsonObject) agent = NULL;
  const char *last = NULL;
  gboolean is_gone = FALSE;
  gboolean imported = FALSE;

  g_return_val_if_fail (NATTER_IS_SEND_PIPELINE (self), NULL);

  entry = session_id != NULL ? natter_session_index_lookup (natter_sessions_list_sessions (self->sessions),
                                                            session_id)
                             : NULL;
  if (entry != NULL)
    {
      last = natter_session_index_entry_get_last_agent_id (entry);
      imported = natter_session_index_entry_get_latest_turn_imported (entry);
    }
  agent = load_agent (self, last, &is_gone);
  /* Without the person's agents to look in, only Assistant is known to
   * be theirs. */
  if (imported && agent == NULL && g_strcmp0 (last, NATTER_BUILTIN_AGENT_ID) != 0)
    {
      if (gone != NULL)
        *gone = FALSE;
      return g_strdup (NATTER_BUILTIN_AGENT_ID);
    }
  if (gone != NULL)
    *gone = is_gone;
  return g_strdup (last != NULL && !is_gone ? last : NATTER_BUILTIN_AGENT_ID);
}

/**
 * natter_send_pipeline_get_continued_model:
 * @self: the pipeline
 * @entry: a conversation's index entry
 *
 * The `{provider, model}` a conversation goes on with when its next
 * message names none: its latest turn's. An imported latest turn's model
 * (#NatterSessionIndexEntry:latest-turn-imported) is a label of where
 * the conversation came from: it is offered only when the person has it
 * (natter_provider_registry_offers_model(): one of their configured
 * providers, never an address the file recorded); otherwise the message
 * goes where a new conversation's would.
 *
 * Returns: (transfer none) (nullable): the model, or %NULL for the
 *   defaults
 */
JsonObject *
natter_send_pipeline_get_continued_model (NatterSendPipeline      *self,
                                          NatterSessionIndexEntry *entry)
{
  JsonObject *last;

  g_return_val_if_fail (NATTER_IS_SEND_PIPELINE (self), NULL);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (entry), NULL);

  last = natter_session_index_entry_get_last_model (entry);
  if (last == NULL || !natter_session_index_entry_get_latest_turn_imported (entry))
    return last;
  return model_is_offered (self, last) ? last : NULL;
}

/**
 * natter_send_pipeline_provider_is_missing:
 * @self: the pipeline
 * @provider: (nullable): a provider id or endpoint URL
 *
 * Whether @provider names a provider that is not configured (deleted in
 * Preferences, or a setting naming one that never was). An endpoint URL
 * needs no configuration; without a registry nothing can be told.
 *
 * Returns: %TRUE if nothing can be sent to @provider
 */
gboolean
natter_send_pipeline_provider_is_missing (NatterSendPipeline *self,
                                          const char         *provider)
{
  g_auto(GStrv) configured = NULL;

  g_return_val_if_fail (NATTER_IS_SEND_PIPELINE (self), FALSE);

  if (self->registry == NULL || provider == NULL || provider[0] == '\0' || natter_provider_id_is_endpoint (provider))
    return FALSE;
  configured = natter_provider_registry_list_providers (self->registry);
  return !g_strv_contains ((const char * const *) configured, provider);
}

/* Sending */

typedef struct
{
  NatterMessageRequest *request;
  JsonObject           *input;        /* the user message, once its attachments are stored */
  GPtrArray            *sources;      /* attachments still to store, or NULL */
  /* Whose choices the message follows: the conversation it was typed
   * in, or for a new version without one, the message's own. */
  char                 *origin;
  /* A new version: the conversation the message was in, and where the
   * branch starts (the turn before the message, which @origin shows), or for
   * a first message, the conversation it descends from. */
  char                 *version_owner;
  gboolean              owner_searched;  /* the turn's own session did not have it */
  guint                 owner_hops;
  /* While the conversation the message is shown in, and those it shows
   * turns of, are asked first whether they name the turn: the one read. */
  char                 *holder_walk;
  guint                 holder_hops;
  /* While the search goes up the sessions shown: the fork point of the
   * last one read, whose parent is looked in next, and the cwd of the
   * conversation the message was typed in. */
  char                 *shown_point;
  char                 *shown_cwd;
  gboolean              parent_gone;   /* @parent was deleted */
  char                 *fork_turn;
  char                 *parent;
  char                 *title;
  char                 *cwd;
  JsonObject           *last_model;   /* the conversation's last {provider, model}, if known */
  NatterSendOptions    *options;
  NatterSendResult     *result;
  GError               *refused;      /* kept while a conversation made for the message goes */
} SendState;

static void
send_state_free (SendState *state)
{
  natter_message_request_free (state->request);
  g_clear_pointer (&state->input, json_object_unref);
  g_clear_pointer (&state->sources, g_ptr_array_unref);
  g_free (state->origin);
  g_free (state->version_owner);
  g_free (state->holder_walk);
  g_free (state->shown_point);
  g_free (state->shown_cwd);
  g_free (state->fork_turn);
  g_free (state->parent);
  g_free (state->title);
  g_free (state->cwd);
  g_clear_pointer (&state->last_model, json_object_unref);
  g_clear_pointer (&state->options, natter_send_options_free);
  natter_send_result_free (state->result);
  g_clear_error (&state->refused);
  g_free (state);
}

static NatterSendPipeline *
pipeline_of (GTask *task)
{
  return g_task_get_source_object (task);
}

static SendState *
state_of (GTask *task)
{
  return g_task_get_task_data (task);
}

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SendState *state = state_of (task);
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_delete_session_finish (NATTER_SESSIONS (object), result, &error))
    g_debug ("The conversation made for a refused message stays: %s", error->message);
  g_task_return_error (task, g_steal_pointer (&state->refused));
}

/* @error names the conversation made for the message, which goes with
 * it: it names the one the message was typed in instead, which the
 * person knows and can recover (a version refused for a damaged
 * history said "session <an id that no longer exists>"). */
static void
name_shown_session (SendState *state,
                    GError    *error)
{
  const char *shown = state->origin != NULL ? state->origin : state->version_owner;
  g_auto(GStrv) pieces = NULL;

  if (shown == NULL || error->domain != NATTER_SESSION_ERROR ||
      strstr (error->message, state->result->session_id) == NULL)
    return;
  pieces = g_strsplit (error->message, state->result->session_id, -1);
  g_free (error->message);
  error->message = g_strjoinv (shown, pieces);
}

/* Fails @owned with @error (taken). A conversation made for the message
 * holds nothing then, and is removed: a conversation exists from its
 * first message. */
static void
fail (GTask  *owned,
      GError *error)
{
  g_autoptr(GTask) task = owned;
  SendState *state = state_of (task);

  if (state->result->created)
    {
      NatterSessions *sessions = pipeline_of (task)->sessions;

      name_shown_session (state, error);
      state->refused = error;
      natter_sessions_delete_session_async (sessions, state->result->session_id, NULL, deleted_cb,
                                            g_steal_pointer (&task));
      return;
    }
  g_task_return_error (task, error);
}

static void
succeed (GTask *owned)
{
  g_autoptr(GTask) task = owned;
  SendState *state = state_of (task);

  g_task_return_pointer (task, g_steal_pointer (&state->result), (GDestroyNotify) natter_send_result_free);
}

static void send_or_queue (GTask *task);
static void compact_then_send (GTask *task);

static void
queue_moved_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  gint moved;

  moved = natter_sessions_move_queue_finish (NATTER_SESSIONS (object), result, &state->result->move_error);
  state->result->n_moved = MAX (moved, 0);
  succeed (task);
}

static void
sent_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  GError *error = NULL;

  state->result->turn_id = natter_sessions_send_message_finish (NATTER_SESSIONS (object), result, &error);
  if (state->result->turn_id == NULL)
    {
      fail (task, error);
      return;
    }
  /* Messages typed behind an answer that failed or was stopped waited
   * for the person; trying that message again (or editing it) is their
   * answer, and the messages wait behind the new try instead of staying
   * behind the old one, unseen in the version left behind. */
  if (state->version_owner != NULL && state->origin != NULL)
    {
      natter_sessions_move_queue_async (NATTER_SESSIONS (object), state->origin,
                                        natter_message_request_get_version_of (state->request),
                                        state->result->session_id, queue_moved_cb, task);
      return;
    }
  succeed (task);
}

static void
queued_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  GError *error = NULL;

  state->result->queue_id = natter_sessions_queue_message_finish (NATTER_SESSIONS (object), result, &error);
  if (state->result->queue_id != NULL)
    {
      succeed (task);
      return;
    }
  if (error != NULL)
    {
      fail (task, error);
      return;
    }
  /* The answer ended meanwhile: the message goes out now, as one sent
   * at once would. */
  natter_message_request_set_queue (state->request, FALSE);
  compact_then_send (task);
}

/* The last step: behind an answer that has not ended, the queue (when
 * the request allows it); else a turn. */
static void
send_or_queue (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (natter_message_request_get_queue (state->request))
    natter_sessions_queue_message_async (self->sessions, state->result->session_id, state->input, state->options,
                                         TRUE, cancellable, queued_cb, task);
  else
    natter_sessions_send_message_async (self->sessions, state->result->session_id, state->input, state->options,
                                        cancellable, sent_cb, task);
}

static void
compacted_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  GError *error = NULL;

  state->result->compaction_id = natter_sessions_compact_finish (NATTER_SESSIONS (object), result, &error);
  /* Asked for, a compaction is the point: without it the message would
   * overflow the model's window again. */
  if (state->result->compaction_id == NULL)
    {
      fail (task, error);
      return;
    }
  send_or_queue (task);
}

static void
auto_compacted_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  GError *error = NULL;

  state->result->compaction_id = natter_auto_compact_finish (NATTER_SESSIONS (object), result, &error);
  /* A failed automatic compaction costs the message nothing: it goes
   * with the whole history, and the front end says why once. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      fail (task, error);
      return;
    }
  state->result->compaction_error = error;
  send_or_queue (task);
}

/* The conversation exists: compact it first when asked, or when the
 * `auto-compact` setting finds it full (only for a message sent now: a
 * queued one waits for an answer whose usage is not known yet). */
static void
compact_then_send (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (natter_message_request_get_compact_first (state->request))
    natter_sessions_compact_async (self->sessions, state->result->session_id, KEEP_TURNS_BEFORE, cancellable,
                                   compacted_cb, task);
  else if (!natter_message_request_get_queue (state->request) && !state->result->created)
    natter_auto_compact_async (self->sessions, self->registry, self->settings, state->result->session_id,
                               cancellable, auto_compacted_cb, task);
  else
    send_or_queue (task);
}

static void
placed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  GError *error = NULL;

  if (g_task_get_source_tag (G_TASK (result)) == natter_sessions_fork_async)
    state->result->session_id = natter_sessions_fork_finish (NATTER_SESSIONS (object), result, &error);
  else if (g_task_get_source_tag (G_TASK (result)) == natter_sessions_create_first_version_async)
    state->result->session_id = natter_sessions_create_first_version_finish (NATTER_SESSIONS (object), result,
                                                                             &error);
  else if (g_task_get_source_tag (G_TASK (result)) == natter_sessions_continue_copy_async)
    state->result->session_id = natter_sessions_continue_copy_finish (NATTER_SESSIONS (object), result, &error);
  else
    state->result->session_id = natter_sessions_create_session_finish (NATTER_SESSIONS (object), result, &error);
  if (state->result->session_id == NULL)
    {
      fail (task, error);
      return;
    }
  state->result->created = TRUE;
  compact_then_send (task);
}

/* Where the message goes: a new version branches at the turn before its
 * message (a first message's version starts a conversation of the same
 * family); a message to no conversation starts one; a message to
 * another device's copy of the conversation, which is never written,
 * goes on in a new version with the copy's history (docs/format.md
 * §9.1); else the conversation asked for. */
static void
place (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autofree char *title = NULL;

  /* Kept for good: a title given at creation is one the automatic title
   * never replaces, whichever process brings the first answer. */
  if (state->origin == NULL && !natter_message_request_get_auto_title (state->request))
    title = natter_derive_session_title (state->input);
  /* Both are asked of the session the message is shown in: without a
   * title to make it a version, the new session is a branch, which
   * starts with what that conversation keeps (docs/format.md §3.5). */
  if (state->version_owner != NULL && state->fork_turn != NULL)
    natter_sessions_fork_async (self->sessions, state->origin, state->fork_turn, state->title, cancellable,
                                placed_cb, task);
  else if (state->version_owner != NULL)
    natter_sessions_create_first_version_async (self->sessions, state->origin, state->parent, state->title,
                                                state->cwd, cancellable, placed_cb, task);
  else if (state->origin == NULL)
    natter_sessions_create_session_async (self->sessions, title, natter_message_request_get_cwd (state->request),
                                          NULL, NULL, cancellable, placed_cb, task);
  else if (natter_sync_conflict_is_candidate (state->origin))
    natter_sessions_continue_copy_async (self->sessions, state->origin, cancellable, placed_cb, task);
  else
    {
      state->result->session_id = g_strdup (state->origin);
      compact_then_send (task);
    }
}

static void
stored_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  g_autoptr(JsonArray) parts = NULL;
  GError *error = NULL;

  parts = natter_attachments_store_finish (result, &error);
  if (parts == NULL)
    {
      fail (task, error);
      return;
    }
  /* A crash point for the test that kills the process between storing
   * the blobs and writing anything that references them: what is left
   * on disk must be an orphan blob and nothing else. */
  if (g_getenv ("NATTER_TEST_CRASH_AFTER_BLOBS") != NULL)
    raise (SIGKILL);
  /* The blobs are on disk: only now may a turn reference them. */
  g_clear_pointer (&state->input, json_object_unref);
  state->input = natter_user_message_new (natter_message_request_get_text (state->request), parts);
  place (task);
}

/* The attachments are stored before anything that references them is
 * written; a message over the size limit, or with a file no model can
 * read, is refused whole. */
static void
store_attachments (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);

  if (state->sources == NULL)
    {
      place (task);
      return;
    }
  if (self->blobs == NULL)
    {
      fail (task, g_error_new_literal (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                                       "Attachments cannot be stored here"));
      return;
    }
  natter_attachments_store_async (self->blobs, state->sources,
                                  natter_settings_get_attachment_size_limit (self->settings),
                                  g_task_get_cancellable (task), stored_cb, task);
}

static void
model_resolved_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  g_autoptr(JsonObject) model = NULL;
  GError *error = NULL;

  model = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (object), result, &error);
  if (model == NULL)
    {
      fail (task, error);
      return;
    }
  natter_send_options_set_model_descriptor (state->options, model);
  store_attachments (task);
}

/* Who answers: the agent asked for, else the conversation's; the model
 * by the rule of natter-model-choice.c, with what is known of the
 * conversation. A provider that is gone makes no turn: it could never
 * answer, and would only look interrupted. */
static void
choose (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  NatterMessageRequest *request = state->request;
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) picked = NULL;
  g_autoptr(JsonObject) descriptor = NULL;
  g_autofree char *agent_id = NULL;
  NatterModelChoice choice = { 0 };
  const char *provider = NULL;
  const char *model = NULL;
  gboolean gone;

  /* An agent chosen for the message is the one that answers (the
   * runtime says so if it cannot); the conversation's own gives way to
   * Assistant once it is gone. */
  agent_id = natter_message_request_get_agent (request) != NULL
             ? g_strdup (natter_message_request_get_agent (request))
             : natter_send_pipeline_dup_agent (self, state->origin, NULL);
  agent = load_agent (self, agent_id, &gone);

  if (natter_message_request_get_provider (request) != NULL || natter_message_request_get_model (request) != NULL)
    {
      picked = json_object_new ();
      json_object_set_string_member (picked, "provider",
                                     natter_message_request_get_provider (request) != NULL
                                     ? natter_message_request_get_provider (request)
                                     : self->default_provider != NULL ? self->default_provider : "");
      if (natter_message_request_get_model (request) != NULL && natter_message_request_get_model (request)[0] != '\0')
        json_object_set_string_member (picked, "model", natter_message_request_get_model (request));
    }
  choice.picked = picked;
  choice.agent_own = agent != NULL && json_object_has_member (agent, "model")
                     ? json_object_get_object_member (agent, "model") : NULL;
  choice.last = state->last_model;
  choice.default_provider = self->default_provider;
  choice.default_model = self->default_model;
  choice.has_registry = self->registry != NULL;

  if (choice.picked != NULL || choice.agent_own == NULL)
    {
      natter_model_choice_shown (&choice, &provider, &model);
      if (natter_send_pipeline_provider_is_missing (self, provider))
        {
          fail (task, g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
                                   "No provider “%s” is configured", provider));
          return;
        }
    }

  /* What the message chose, its generation parameters among them (the
   * session layer adds the conversation's under those when it makes the
   * turn, docs/sessions.md §15); then what it left to the rules. */
  state->options = natter_send_options_copy (natter_message_request_get_choices (request));
  natter_send_options_set_agent_id (state->options, agent_id);
  if (natter_settings_get_auto_permission (self->settings))
    natter_send_options_set_auto_permission (state->options, TRUE);
  if (natter_send_options_get_max_model_calls (state->options) == 0)
    natter_send_options_set_max_model_calls (state->options, natter_settings_get_max_model_calls (self->settings));

  descriptor = natter_model_choice_dup_descriptor (&choice);
  if (descriptor != NULL)
    natter_send_options_set_model_descriptor (state->options, descriptor);
  if ((provider = natter_model_choice_provider_to_resolve (&choice)) != NULL)
    {
      natter_provider_registry_resolve_model_async (self->registry, provider, NULL, g_task_get_cancellable (task),
                                                    model_resolved_cb, task);
      return;
    }
  store_attachments (task);
}

/* The model of a turn, from its definition (`agent.resolved.model`). */
static JsonObject *
dup_turn_model (NatterTurnState *turn)
{
  JsonObject *model = natter_turn_definition_get_model (natter_turn_state_get_definition (turn));

  return model != NULL ? json_object_ref (model) : NULL;
}

static void
fork_point_read_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  g_autoptr(NatterTurnState) turn = NULL;

  turn = natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (object), result, NULL);
  /* Unreadable, the history is the send's to refuse, with its reason.
   * An imported fork point's model is a label unless the person has it
   * (natter_send_pipeline_get_continued_model()). */
  if (turn != NULL)
    state->last_model = dup_turn_model (turn);
  if (turn != NULL && natter_turn_state_is_imported (turn) && state->last_model != NULL &&
      !model_is_offered (pipeline_of (task), state->last_model))
    g_clear_pointer (&state->last_model, json_object_unref);
  choose (task);
}

static void
origin_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(NatterSessionState) session = NULL;
  const char *fork_point;

  session = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, NULL);
  fork_point = session != NULL ? natter_session_state_get_forked_from_turn_id (session) : NULL;
  if (fork_point == NULL || natter_session_state_get_n_turns (session) > 0)
    {
      choose (task);
      return;
    }
  natter_sessions_get_turn_async (NATTER_SESSIONS (object), fork_point, g_task_get_cancellable (task),
                                  fork_point_read_cb, task);
}

/* What is known of the conversation whose choices the message follows:
 * it must be usable, and its last model is the one it goes on with. A
 * branch without turns of its own goes on with its fork point's. */
static void
read_origin (GTask *task)
{
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  NatterSessionIndexEntry *entry;
  JsonObject *last;

  if (state->origin == NULL)
    {
      choose (task);
      return;
    }
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), state->origin);
  if (entry == NULL)
    {
      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND, "No session %s",
                               state->origin));
      return;
    }
  if (natter_session_index_entry_get_error (entry) != NULL)
    {
      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT, "Session %s cannot be used: %s",
                               state->origin, natter_session_index_entry_get_error (entry)));
      return;
    }
  last = natter_send_pipeline_get_continued_model (self, entry);
  if (last != NULL || natter_session_index_entry_get_latest_turn_imported (entry))
    {
      state->last_model = last != NULL ? json_object_ref (last) : NULL;
      choose (task);
      return;
    }
  natter_sessions_get_session_async (self->sessions, state->origin, g_task_get_cancellable (task), origin_read_cb,
                                     task);
}

/* The message is in the history read from the turn files of a deleted
 * session: the new version starts at the turn before it there, asked
 * of the conversation that shows it; a first message's names the
 * session that had it as its parent. Either stands alone, as a version
 * made before the delete does (docs/sessions.md §9.4). */
static void
deleted_history_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  const char *turn_id = natter_message_request_get_version_of (state->request);
  g_autoptr(GPtrArray) turns = NULL;
  NatterSessionIndexEntry *entry;
  NatterTurnState *turn;
  const char *title;
  GError *error = NULL;
  guint i;

  turns = natter_sessions_read_history_finish (NATTER_SESSIONS (object), result, &error);
  if (turns == NULL)
    {
      fail (task, error);
      return;
    }
  for (i = 0; i < turns->len && g_strcmp0 (natter_turn_state_get_turn_id (g_ptr_array_index (turns, i)), turn_id) != 0; i++)
    ;
  if (i == turns->len)
    {
      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                               "Turn %s is not in session %s", turn_id, state->origin));
      return;
    }
  turn = g_ptr_array_index (turns, i);
  if (i > 0)
    state->fork_turn = g_strdup (natter_turn_state_get_turn_id (g_ptr_array_index (turns, i - 1)));
  else
    {
      state->parent = g_strdup (json_object_get_string_member_with_default (natter_turn_state_get_definition (turn),
                                                                            "sessionId", state->version_owner));
      state->parent_gone = TRUE;
    }
  /* The title makes it a version (docs/format.md §3.2), whatever it is. */
  entry = natter_session_index_lookup (natter_sessions_list_sessions (pipeline_of (task)->sessions), state->origin);
  title = entry != NULL ? natter_session_index_entry_get_title (entry) : NULL;
  state->title = g_strdup (title != NULL ? title : "");
  state->cwd = g_strdup (state->shown_cwd);
  read_origin (task);
}

static void version_session_read_cb (GObject      *object,
                                     GAsyncResult *result,
                                     gpointer      user_data);

/* The session looked in is gone: deleted since the message was sent.
 * The conversation the message was typed in shows it all the same,
 * from the turn files (docs/sessions.md §9.4): the search goes on
 * there and up the sessions it shows turns of, and reaching the deleted
 * one, reads that history. */
static gboolean
search_past_deleted (GTask *task)
{
  SendState *state = state_of (task);
  NatterSessions *sessions = pipeline_of (task)->sessions;

  if (!state->owner_searched && state->origin != NULL && g_strcmp0 (state->origin, state->version_owner) != 0)
    {
      state->owner_searched = TRUE;
      g_free (state->version_owner);
      state->version_owner = g_strdup (state->origin);
      natter_sessions_get_session_async (sessions, state->version_owner, g_task_get_cancellable (task),
                                         version_session_read_cb, task);
      return TRUE;
    }
  if (!state->owner_searched || state->shown_point == NULL)
    return FALSE;
  natter_sessions_read_history_async (sessions, state->shown_point, g_task_get_cancellable (task),
                                      deleted_history_cb, task);
  return TRUE;
}

static void version_session_found (GTask              *task,
                                   NatterSessionState *session);

static void
version_session_read_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  const char *turn_id = natter_message_request_get_version_of (state->request);
  g_autoptr(NatterSessionState) session = NULL;
  GError *error = NULL;

  session = natter_sessions_get_session_finish (NATTER_SESSIONS (object), result, &error);
  if (session == NULL && g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND) &&
      search_past_deleted (task))
    {
      g_error_free (error);
      return;
    }
  /* Named without a conversation, a turn whose session was deleted is
   * held by none: only the conversations made from that session still
   * show it, and which history the new version goes on from is the
   * person's to say. */
  if (session == NULL && state->origin == NULL &&
      g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
    {
      g_clear_error (&error);
      error = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                           "Turn %s was sent in session %s, which was deleted: name with --session the "
                           "conversation that shows it, for the new version to go on from there",
                           turn_id, state->version_owner);
    }
  if (session == NULL)
    {
      fail (task, error);
      return;
    }
  version_session_found (task, session);
}

/* Whether @session names @turn_id in its own file. */
static gboolean
session_names_turn (NatterSessionState *session,
                    const char         *turn_id)
{
  guint n = natter_session_state_get_n_turns (session);

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (natter_session_state_get_turn (session, i)->turn_id, turn_id) == 0)
      return TRUE;
  return FALSE;
}

/* Where the new version starts, read from @session, the one the search
 * for the message's turn is at. */
static void
version_session_found (GTask              *task,
                       NatterSessionState *session)
{
  SendState *state = state_of (task);
  const char *turn_id = natter_message_request_get_version_of (state->request);
  NatterSessionIndexEntry *entry;
  guint n;
  guint i;

  if (state->shown_cwd == NULL && g_strcmp0 (state->version_owner, state->origin) == 0)
    state->shown_cwd = g_strdup (natter_session_state_get_cwd (session));
  n = natter_session_state_get_n_turns (session);
  for (i = 0; i < n && g_strcmp0 (natter_session_state_get_turn (session, i)->turn_id, turn_id) != 0; i++)
    ;
  if (i == n)
    {
      /* A turn is usually its own session's (`turn_created.sessionId`),
       * but a session may name turns first sent in another: a copy of
       * a damaged session's readable part, a version that went on from
       * another device's copy (docs/format.md §3.1). Then the
       * conversation it was typed in is looked in, and the ones it
       * shows turns of. */
      const char *next = NULL;

      if (!state->owner_searched && state->origin != NULL && g_strcmp0 (state->origin, state->version_owner) != 0)
        next = state->origin;
      else if (state->owner_searched)
        {
          next = natter_session_state_get_parent_session (session);
          g_free (state->shown_point);
          state->shown_point = g_strdup (natter_session_state_get_forked_from_turn_id (session));
        }
      state->owner_searched = TRUE;
      if (next != NULL && state->owner_hops++ < MAX_OWNER_HOPS)
        {
          g_free (state->version_owner);
          state->version_owner = g_strdup (next);
          natter_sessions_get_session_async (pipeline_of (task)->sessions, state->version_owner,
                                             g_task_get_cancellable (task), version_session_read_cb, task);
          return;
        }
      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                               "Turn %s is not in session %s", turn_id, state->version_owner));
      return;
    }
  /* The branch starts at the turn before the message: the session's own,
   * or for its first turn, the turn it was itself forked from. */
  if (i > 0)
    state->fork_turn = g_strdup (natter_session_state_get_turn (session, i - 1)->turn_id);
  else if (natter_session_state_get_forked_from_turn_id (session) != NULL)
    {
      /* The fork is asked of the session that shows that turn, not of
       * its parent: the service finds the parent that has it as its
       * own, and one deleted since too, whose history the session
       * still shows from the turn files (docs/sessions.md §9.4). */
      state->fork_turn = g_strdup (natter_session_state_get_forked_from_turn_id (session));
    }
  else
    {
      /* A first message's versions all branch from the conversation
       * that had it first; one deleted since is named all the same
       * (docs/sessions.md §9.4). */
      state->parent = g_strdup (natter_session_state_get_parent_session (session) != NULL
                                ? natter_session_state_get_parent_session (session) : state->version_owner);
      state->parent_gone = natter_session_index_lookup (natter_sessions_list_sessions (pipeline_of (task)->sessions),
                                                        state->parent) == NULL;
    }
  entry = natter_session_index_lookup (natter_sessions_list_sessions (pipeline_of (task)->sessions),
                                       state->origin != NULL ? state->origin : state->version_owner);
  state->title = g_strdup (entry != NULL ? natter_session_index_entry_get_title (entry)
                                         : natter_session_state_get_title (session));
  state->cwd = g_strdup (natter_session_state_get_cwd (session));
  if (state->origin == NULL)
    state->origin = g_strdup (state->version_owner);
  read_origin (task);
}

static void
holders_found_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  g_auto(GStrv) holders = NULL;
  GError *error = NULL;

  holders = natter_sessions_find_turn_finish (NATTER_SESSIONS (object), result, &error);
  if (holders == NULL)
    {
      fail (task, error);
      return;
    }
  /* Tried again in one of several conversations, the message would go
   * on from a history the person did not choose: they say which. */
  if (g_strv_length (holders) > 1)
    {
      g_autofree char *list = g_strjoinv (", ", holders);

      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                               "Turn %s is in several conversations (%s): say which one with --session",
                               natter_message_request_get_version_of (state->request), list));
      return;
    }
  if (holders[0] != NULL)
    {
      g_free (state->version_owner);
      state->version_owner = g_strdup (holders[0]);
    }
  natter_sessions_get_session_async (pipeline_of (task)->sessions, state->version_owner,
                                     g_task_get_cancellable (task), version_session_read_cb, task);
}

static void
holder_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  SendState *state = state_of (task);
  NatterSessions *sessions = NATTER_SESSIONS (object);
  g_autoptr(NatterSessionState) session = NULL;
  g_autoptr(GError) error = NULL;
  const char *parent;

  session = natter_sessions_get_session_finish (sessions, result, &error);
  if (session != NULL && session_names_turn (session, natter_message_request_get_version_of (state->request)))
    {
      g_free (state->version_owner);
      state->version_owner = g_steal_pointer (&state->holder_walk);
      state->owner_searched = TRUE;
      version_session_found (task, session);
      return;
    }
  parent = session != NULL ? natter_session_state_get_parent_session (session) : NULL;
  if (parent != NULL && g_strcmp0 (parent, state->version_owner) != 0 && state->holder_hops++ < MAX_OWNER_HOPS)
    {
      g_free (state->holder_walk);
      state->holder_walk = g_strdup (parent);
      natter_sessions_get_session_async (sessions, state->holder_walk, g_task_get_cancellable (task),
                                         holder_read_cb, task);
      return;
    }
  /* None of them names it (or one is gone, deleted since): the session
   * the turn was first sent in is where it is found. */
  g_clear_pointer (&state->holder_walk, g_free);
  natter_sessions_get_session_async (sessions, state->version_owner, g_task_get_cancellable (task),
                                     version_session_read_cb, task);
}

/* The conversation the new version is made in: the one the request
 * names, else the one that holds the message's turn. A turn is usually
 * its own session's, but a recovered copy and a version that went on
 * from another device's copy hold turns first sent in another
 * (docs/format.md §3.1, §9.1), so without a conversation every one that
 * holds it is found. With one, the nearest that names the turn in its
 * own file is where the version starts, going up from the conversation
 * the message is shown in before the session the turn was first sent in
 * (docs/sessions.md §3): a message shown in a recovered copy makes a
 * version of the copy, the conversation the person goes on with, whether
 * it is the first message or a later one. */
static void
read_version_owner (GTask *task)
{
  SendState *state = state_of (task);
  NatterSessions *sessions = pipeline_of (task)->sessions;

  if (state->origin == NULL)
    natter_sessions_find_turn_async (sessions, natter_message_request_get_version_of (state->request),
                                     g_task_get_cancellable (task), holders_found_cb, task);
  else if (g_strcmp0 (state->origin, state->version_owner) != 0)
    {
      state->holder_walk = g_strdup (state->origin);
      natter_sessions_get_session_async (sessions, state->holder_walk, g_task_get_cancellable (task),
                                         holder_read_cb, task);
    }
  else
    natter_sessions_get_session_async (sessions, state->version_owner, g_task_get_cancellable (task),
                                       version_session_read_cb, task);
}

static void
verified_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(JsonArray) checked = natter_attachments_verify_finish (result);

  /* Sent again without one of its files, the message would ask another
   * question: nothing is sent. */
  for (guint i = 0; i < json_array_get_length (checked); i++)
    {
      JsonObject *part = json_array_get_object_element (checked, i);

      if (json_object_has_member (part, "error"))
        {
          fail (task, g_error_new (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                                   "The attachment “%s” of the message cannot be read: %s",
                                   json_object_get_string_member_with_default (part, "name", ""),
                                   json_object_get_string_member (part, "error")));
          return;
        }
    }
  read_version_owner (task);
}

/* A message sent again goes with the generation parameters it had of its
 * own (`natter send --temperature …`), which its turn keeps apart
 * (`config.messageParameters`, docs/format.md §4.2), laid over the
 * conversation's as they are now: the window's Try Again and `natter
 * retry` alike. An imported turn's instruction is words of the file, not
 * the person's: it stays behind, as on import (docs/format.md §7.1). */
static gboolean
carry_message_parameters (SendState   *state,
                          JsonObject  *definition,
                          GError     **error)
{
  JsonObject *config = json_object_get_object_member (definition, "config");
  JsonNode *own = config != NULL ? json_object_get_member (config, "messageParameters") : NULL;
  g_autoptr(NatterGenerationParameters) parameters = NULL;

  if (own == NULL || natter_message_request_get_parameters (state->request) != NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (own))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "The turn's “config.messageParameters” is not an object");
      return FALSE;
    }
  parameters = natter_generation_parameters_new_from_object (json_node_get_object (own), error);
  if (parameters == NULL)
    return FALSE;
  if (natter_turn_definition_is_imported (definition))
    natter_generation_parameters_set_system_instruction (parameters, NULL);
  natter_message_request_set_parameters (state->request, parameters);
  return TRUE;
}

/* A new version of a message starts from the message's own turn: the
 * conversation it belongs to, and, sent again, its words and files and
 * its own parameters. */
static void
version_turn_read_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  GTask *task = user_data;
  NatterSendPipeline *self = pipeline_of (task);
  SendState *state = state_of (task);
  g_autoptr(NatterTurnState) turn = NULL;
  JsonObject *definition;
  GError *error = NULL;

  turn = natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (object), result, &error);
  if (turn == NULL)
    {
      fail (task, error);
      return;
    }
  definition = natter_turn_state_get_definition (turn);
  if (!json_object_has_member (definition, "sessionId") || json_object_get_null_member (definition, "sessionId"))
    {
      fail (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                               "Turn %s belongs to no conversation", natter_message_request_get_version_of (state->request)));
      return;
    }
  state->version_owner = g_strdup (json_object_get_string_member (definition, "sessionId"));
  if (natter_message_request_get_again (state->request) != NULL)
    {
      g_autoptr(GPtrArray) parts = NULL;
      g_autoptr(JsonArray) array = json_array_new ();

      state->input = json_object_ref (json_object_get_object_member (definition, "input"));
      if (!carry_message_parameters (state, definition, &error))
        {
          fail (task, error);
          return;
        }
      parts = natter_message_dup_blob_parts (state->input);
      if (parts->len > 0)
        {
          for (guint i = 0; i < parts->len; i++)
            json_array_add_object_element (array, json_object_ref (g_ptr_array_index (parts, i)));
          if (self->blobs == NULL)
            {
              fail (task, g_error_new_literal (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE,
                                               "Attachments cannot be read here"));
              return;
            }
          natter_attachments_verify_async (self->blobs, array, g_task_get_cancellable (task), verified_cb, task);
          return;
        }
    }
  read_version_owner (task);
}

/**
 * natter_send_pipeline_send_async:
 * @self: the pipeline
 * @request: (transfer none): the message and the choices made for it
 * @cancellable: (nullable): cancels the steps before the turn or the
 *   queued message is written; never the turn (stop it with
 *   natter_sessions_stop_turn_async())
 * @callback: called on the main context when the message is sent,
 *   queued or refused
 * @user_data: data for @callback
 *
 * Sends a message the one way both front ends share (docs/sessions.md
 * §1): reads the message again from its turn for a
 * request made with natter_message_request_new_again(); finds the
 * conversation whose choices it follows and refuses a damaged one;
 * chooses the agent and the model (natter-model-choice.c); stores the
 * attachments; makes the new conversation or the new version; compacts
 * (asked for, or by the `auto-compact` setting); and queues the message
 * behind an answer that has not ended, when the request allows it, or
 * makes its turn (docs/sessions.md §9.1, §4).
 */
void
natter_send_pipeline_send_async (NatterSendPipeline   *self,
                                 NatterMessageRequest *request,
                                 GCancellable         *cancellable,
                                 GAsyncReadyCallback   callback,
                                 gpointer              user_data)
{
  GTask *task;
  SendState *state;
  GPtrArray *attachments;

  g_return_if_fail (NATTER_IS_SEND_PIPELINE (self));
  g_return_if_fail (request != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_send_pipeline_send_async);
  state = g_new0 (SendState, 1);
  state->request = natter_message_request_copy (request);
  state->result = g_new0 (NatterSendResult, 1);
  state->origin = g_strdup (natter_message_request_get_session (request));
  attachments = natter_message_request_get_attachments (request);
  if (attachments->len > 0)
    state->sources = g_ptr_array_ref (attachments);
  if (natter_message_request_get_text (request) != NULL)
    state->input = natter_user_message_new (natter_message_request_get_text (request), NULL);
  g_task_set_task_data (task, state, (GDestroyNotify) send_state_free);

  if (natter_message_request_get_version_of (request) != NULL)
    natter_sessions_get_turn_async (self->sessions, natter_message_request_get_version_of (request), cancellable,
                                    version_turn_read_cb, task);
  else
    read_origin (task);
}

/**
 * natter_send_pipeline_send_finish:
 * @self: the pipeline
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): what became of the message; or
 *   %NULL with the reason nothing was sent: %NATTER_SESSION_ERROR
 *   (`TURN_NOT_SETTLED`, `HISTORY_DAMAGED`, `CORRUPT`, `NOT_FOUND`, …),
 *   %NATTER_ATTACHMENT_ERROR (a file too large, of a type no model
 *   reads, or unreadable), %NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND (a
 *   provider that is not configured) or %NATTER_RUNTIME_ERROR_AGENT, the
 *   provider's %NATTER_PROVIDER_ERROR (resolving its first model), a
 *   %NATTER_STORE_ERROR, or %G_IO_ERROR_CANCELLED
 */
NatterSendResult *
natter_send_pipeline_send_finish (NatterSendPipeline  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_send_pipeline_send_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_send_error_can_retry:
 * @error: why a message was not sent (natter_send_pipeline_send_finish())
 *
 * Whether sending the same message again can succeed without the person
 * changing anything: a server that did not answer, another writer, an
 * answer that had not ended, a turn still on its way from another
 * device. Not for a file that is too large or cannot
 * be read, a damaged history, a provider to set up in Preferences.
 *
 * Returns: %TRUE if a Retry is worth offering
 */
gboolean
natter_send_error_can_retry (const GError *error)
{
  g_return_val_if_fail (error != NULL, FALSE);

  if (error->domain == NATTER_PROVIDER_ERROR)
    return TRUE;
  if (error->domain == NATTER_SESSION_ERROR)
    return error->code == NATTER_SESSION_ERROR_TURN_NOT_SETTLED || error->code == NATTER_SESSION_ERROR_LOCKED ||
           /* Once the file has arrived from the other device. */
           error->code == NATTER_SESSION_ERROR_ARRIVING;
  if (error->domain == NATTER_STORE_ERROR)
    return error->code == NATTER_STORE_ERROR_IO;
  if (error->domain == G_IO_ERROR)
    return !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
           !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  return FALSE;
}
