/* natter-turn-item.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One turn of the timeline (docs/sessions.md §10.3): its reduced
 * state, read lazily the first time a row shows it, so that opening a long
 * session reads only the turns on screen; live durable events joined by
 * file offset; and the ephemeral overlay of text and reasoning deltas that
 * the canonical model_call_completed replaces.
 */

#define G_LOG_DOMAIN "natter-turn-item"

#include "config.h"

#include "natter-blob-store.h"
#include "natter-store-error.h"
#include "natter-turn-item.h"

typedef struct
{
  JsonObject *event;
  guint64     offset;
} PendingEvent;

struct _NatterTurnItem
{
  GObject          parent_instance;

  NatterSessions  *sessions;
  char            *turn_id;
  guint            session_seq;
  /* For a turn a branched session shows from its history: the session
   * the turn belongs to. NULL for the session's own turns. */
  char            *inherited_from;
  gboolean         shared_history;

  NatterTurnState *state;
  char            *error;
  gboolean         arriving;        /* the error is a file still on its way */
  /* A damaged turn's message, as far as its first line reads, to show
   * with the error; NULL while not read or when it does not read. */
  char            *damaged_input;
  gboolean         loading;
  GCancellable    *cancellable;
  /* Live events that arrive while the file is being read: joined by
   * offset once the read is reduced, so nothing between the read and the
   * subscription is lost. */
  GArray          *pending;

  gboolean         running;
  gboolean         latest;
  gboolean         speaking;
  /* The summary of a compaction that keeps this turn and the later ones
   * whole; the timeline shows it before the turn. */
  char            *compaction_summary;
  GPtrArray       *versions;   /* NatterTurnVersion; NULL: no other version */

  int              overlay_index;
  GString         *overlay_text;
  GString         *overlay_reasoning;
};

G_DEFINE_FINAL_TYPE (NatterTurnItem, natter_turn_item, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_TURN_ID,
  PROP_RUNNING,
  PROP_LATEST,
  PROP_LOADING,
  PROP_COMPACTION_SUMMARY,
  PROP_VERSIONS,
  PROP_SPEAKING,
  N_PROPS
};

enum
{
  CHANGED,
  DELTA,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
pending_event_clear (PendingEvent *pending)
{
  g_clear_pointer (&pending->event, json_object_unref);
}

static void
natter_turn_item_dispose (GObject *object)
{
  NatterTurnItem *self = NATTER_TURN_ITEM (object);

  g_cancellable_cancel (self->cancellable);

  G_OBJECT_CLASS (natter_turn_item_parent_class)->dispose (object);
}

static void
natter_turn_item_finalize (GObject *object)
{
  NatterTurnItem *self = NATTER_TURN_ITEM (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->turn_id, g_free);
  g_clear_pointer (&self->inherited_from, g_free);
  g_clear_pointer (&self->state, natter_turn_state_unref);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->damaged_input, g_free);
  g_clear_pointer (&self->compaction_summary, g_free);
  g_clear_pointer (&self->versions, g_ptr_array_unref);
  g_clear_pointer (&self->pending, g_array_unref);
  g_string_free (self->overlay_text, TRUE);
  g_string_free (self->overlay_reasoning, TRUE);

  G_OBJECT_CLASS (natter_turn_item_parent_class)->finalize (object);
}

static void
natter_turn_item_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  NatterTurnItem *self = NATTER_TURN_ITEM (object);

  switch (prop_id)
    {
    case PROP_TURN_ID:
      g_value_set_string (value, self->turn_id);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_LATEST:
      g_value_set_boolean (value, self->latest);
      break;
    case PROP_SPEAKING:
      g_value_set_boolean (value, self->speaking);
      break;
    case PROP_LOADING:
      g_value_set_boolean (value, self->loading);
      break;
    case PROP_COMPACTION_SUMMARY:
      g_value_set_string (value, self->compaction_summary);
      break;
    case PROP_VERSIONS:
      g_value_set_boxed (value, self->versions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/**
 * natter_turn_item_get_speaking:
 * @self: a turn item
 *
 * Returns: #NatterTurnItem:speaking
 */
gboolean
natter_turn_item_get_speaking (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->speaking;
}

/**
 * natter_turn_item_set_speaking:
 * @self: a turn item
 * @speaking: whether its answer is being read aloud
 */
void
natter_turn_item_set_speaking (NatterTurnItem *self,
                               gboolean        speaking)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  speaking = !!speaking;
  if (self->speaking == speaking)
    return;
  self->speaking = speaking;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPEAKING]);
}

static void
natter_turn_item_class_init (NatterTurnItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_turn_item_dispose;
  object_class->finalize = natter_turn_item_finalize;
  object_class->get_property = natter_turn_item_get_property;

  properties[PROP_TURN_ID] =
    g_param_spec_string ("turn-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LATEST] =
    g_param_spec_boolean ("latest", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterTurnItem:speaking:
   *
   * Whether the answer is being read aloud (natter-speech.h): its row
   * offers Stop instead of Read Aloud.
   */
  properties[PROP_SPEAKING] =
    g_param_spec_boolean ("speaking", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterTurnItem:compaction-summary: (nullable)
   *
   * The summary of the earlier messages when a compaction keeps this turn
   * as its first whole one (docs/sessions.md §5), else %NULL.
   */
  properties[PROP_COMPACTION_SUMMARY] =
    g_param_spec_string ("compaction-summary", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterTurnItem:versions: (type GPtrArray(NatterTurnVersion))
   *
   * The versions of the turn's message (natter_sessions_list_versions_async()),
   * the original first; %NULL when it has no other.
   */
  properties[PROP_VERSIONS] =
    g_param_spec_boxed ("versions", NULL, NULL, G_TYPE_PTR_ARRAY,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterTurnItem::changed:
   *
   * The reduced state, the error or the overlay was replaced or extended
   * by a durable event: a row shows the turn again.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterTurnItem::delta:
   * @kind: a #NatterDeltaKind
   * @text: the piece appended to the overlay
   *
   * A live delta joined the overlay of the streaming model call.
   */
  signals[DELTA] =
    g_signal_new ("delta", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);
}

static void
natter_turn_item_init (NatterTurnItem *self)
{
  self->cancellable = g_cancellable_new ();
  self->pending = g_array_new (FALSE, FALSE, sizeof (PendingEvent));
  g_array_set_clear_func (self->pending, (GDestroyNotify) pending_event_clear);
  self->overlay_index = -1;
  self->overlay_text = g_string_new (NULL);
  self->overlay_reasoning = g_string_new (NULL);
}

/**
 * natter_turn_item_new:
 * @sessions: the session service to read the turn through
 * @turn_id: the turn
 * @session_seq: its 1-based position in the session
 *
 * Creates an item that has not read its turn yet; see
 * natter_turn_item_ensure_loaded().
 *
 * Returns: (transfer full): a new item
 */
NatterTurnItem *
natter_turn_item_new (NatterSessions *sessions,
                      const char     *turn_id,
                      guint           session_seq)
{
  NatterTurnItem *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_TURN_ITEM, NULL);
  self->sessions = g_object_ref (sessions);
  self->turn_id = g_strdup (turn_id);
  self->session_seq = session_seq;
  self->running = natter_sessions_is_turn_running (sessions, turn_id);
  return self;
}

/**
 * natter_turn_item_new_inherited:
 * @sessions: the session service to read the turn through
 * @turn_id: a turn of @session_id that a branched session's context
 *   chain goes through
 * @session_seq: its 1-based position in @session_id
 * @session_id: the (ancestor) session the turn belongs to
 *
 * Creates an item for a turn that a branched session shows read-only
 * above its own (dsh-session.md, fork: history is referenced, never
 * copied). It reads its turn lazily like any other item and is never the
 * latest turn, so rows offer no next step on it.
 *
 * Returns: (transfer full): a new item
 */
NatterTurnItem *
natter_turn_item_new_inherited (NatterSessions *sessions,
                                const char     *turn_id,
                                guint           session_seq,
                                const char     *session_id)
{
  NatterTurnItem *self;

  g_return_val_if_fail (session_id != NULL, NULL);

  self = natter_turn_item_new (sessions, turn_id, session_seq);
  self->inherited_from = g_strdup (session_id);
  return self;
}

/**
 * natter_turn_item_set_shared_history:
 * @self: an inherited item (natter_turn_item_new_inherited())
 * @shared: whether the conversation shown is a version of the one the
 *   turn belongs to, so the turn is its history as much as theirs
 *
 * A version's history is shown as the conversation's own; a branch's
 * is dimmed below a "Branched from" marker (docs/sessions.md §3).
 */
void
natter_turn_item_set_shared_history (NatterTurnItem *self,
                                     gboolean        shared)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));
  self->shared_history = !!shared;
}

/**
 * natter_turn_item_get_shared_history:
 * @self: the item
 *
 * Returns: whether the turn is a version's history shared with it
 *   (natter_turn_item_set_shared_history())
 */
gboolean
natter_turn_item_get_shared_history (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->shared_history;
}

/**
 * natter_turn_item_get_inherited_from:
 * @self: an item
 *
 * Returns: (nullable): the session an inherited turn belongs to, or
 *   %NULL for a turn of the session the timeline shows
 */
const char *
natter_turn_item_get_inherited_from (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->inherited_from;
}

/**
 * natter_turn_item_get_turn_id:
 * @self: an item
 *
 * Returns: (transfer none): the turn's id
 */
const char *
natter_turn_item_get_turn_id (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->turn_id;
}

/**
 * natter_turn_item_get_session_seq:
 * @self: an item
 *
 * Returns: the turn's `sessionSeq`, its 1-based position in the session
 *   (docs/format.md §3.1, §3.2)
 */
guint
natter_turn_item_get_session_seq (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), 0);
  return self->session_seq;
}

/**
 * natter_turn_item_get_state:
 * @self: an item
 *
 * Returns: (transfer none) (nullable): the reduced turn, or %NULL before
 *   the first read finished or when it failed
 */
NatterTurnState *
natter_turn_item_get_state (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->state;
}

/**
 * natter_turn_item_get_arriving:
 * @self: an item
 *
 * Whether the turn could not be read because its file has not arrived
 * from another device yet (docs/format.md §9.3): no damage; reading it
 * again once it is there shows it.
 *
 * Returns: %TRUE when natter_turn_item_get_error() says so
 */
gboolean
natter_turn_item_get_arriving (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->error != NULL && self->arriving;
}

/**
 * natter_turn_item_get_error:
 * @self: an item
 *
 * Returns: (nullable): why the turn could not be read or reduced
 */
const char *
natter_turn_item_get_error (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->error;
}

/**
 * natter_turn_item_get_loading:
 * @self: an item
 *
 * Returns: whether the turn file is being read
 */
gboolean
natter_turn_item_get_loading (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->loading;
}

/**
 * natter_turn_item_get_running:
 * @self: an item
 *
 * Returns: whether an advance of the turn is live in this process (bus
 *   state, not derivable from the file)
 */
gboolean
natter_turn_item_get_running (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->running;
}

/**
 * natter_turn_item_set_running:
 * @self: an item
 * @running: whether the turn is processing (bus state, never durable)
 *
 * Set from the hub's turn-processing-start/-end.
 */
void
natter_turn_item_set_running (NatterTurnItem *self,
                              gboolean        running)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/**
 * natter_turn_item_get_latest:
 * @self: an item
 *
 * Returns: whether this is the session's latest turn, the one that offers
 *   Try again, Continue or Resume
 */
gboolean
natter_turn_item_get_latest (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), FALSE);
  return self->latest;
}

/**
 * natter_turn_item_set_latest:
 * @self: an item
 * @latest: whether this is the session's latest turn
 *
 * Only the latest turn offers a next step (Try again, Continue, Resume).
 */
void
natter_turn_item_set_latest (NatterTurnItem *self,
                             gboolean        latest)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  latest = !!latest && self->inherited_from == NULL;
  if (self->latest == latest)
    return;
  self->latest = latest;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LATEST]);
}

/**
 * natter_turn_item_get_overlay_text:
 * @self: an item
 *
 * Returns: the streamed text of the open model call so far ("" if none)
 */
const char *
natter_turn_item_get_overlay_text (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->overlay_text->str;
}

/**
 * natter_turn_item_get_overlay_reasoning:
 * @self: an item
 *
 * Returns: the streamed reasoning of the open model call so far
 */
const char *
natter_turn_item_get_overlay_reasoning (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->overlay_reasoning->str;
}

static void
set_loading (NatterTurnItem *self,
             gboolean        loading)
{
  if (self->loading == loading)
    return;
  self->loading = loading;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
clear_overlay (NatterTurnItem *self)
{
  self->overlay_index = -1;
  g_string_truncate (self->overlay_text, 0);
  g_string_truncate (self->overlay_reasoning, 0);
}

/* The canonical response of a model call replaces its deltas. */
static void
drop_covered_overlay (NatterTurnItem *self)
{
  NatterTurnModelCall *call;

  if (self->overlay_index < 0 || self->state == NULL)
    return;
  call = natter_turn_state_get_model_call (self->state, self->overlay_index);
  if (call != NULL && !natter_turn_model_call_is_open (call))
    clear_overlay (self);
}

static void load (NatterTurnItem *self);

/* Joins one durable event by its offset (docs/sessions.md §10.3): drop what the
 * state already covers, apply the next line, re-read on a gap. Returns whether
 * the state changed. */
static gboolean
join (NatterTurnItem *self,
      JsonObject     *event,
      guint64         offset)
{
  g_autoptr(GError) error = NULL;
  guint64 n_events = natter_turn_state_get_n_events (self->state);

  if (offset <= n_events)
    return FALSE;
  if (offset > n_events + 1)
    {
      load (self);
      return FALSE;
    }
  if (!natter_turn_state_apply (self->state, event, &error))
    {
      g_free (self->error);
      self->error = g_strdup (error->message);
      return TRUE;
    }
  drop_covered_overlay (self);
  return TRUE;
}

static void
damaged_message_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(NatterTurnItem) self = user_data;
  g_autofree char *text = NULL;

  if (!natter_sessions_read_turn_message_finish (NATTER_SESSIONS (source), result, &text, NULL) || text == NULL ||
      self->error == NULL || self->state != NULL || g_strcmp0 (text, self->damaged_input) == 0)
    return;
  g_free (self->damaged_input);
  self->damaged_input = g_steal_pointer (&text);
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
get_turn_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(NatterTurnItem) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) pending = NULL;
  NatterTurnState *state;

  state = natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  pending = g_steal_pointer (&self->pending);
  self->pending = g_array_new (FALSE, FALSE, sizeof (PendingEvent));
  g_array_set_clear_func (self->pending, (GDestroyNotify) pending_event_clear);
  set_loading (self, FALSE);

  if (state != NULL && self->state != NULL && self->error == NULL && pending->len == 0 &&
      natter_turn_state_get_n_events (state) == natter_turn_state_get_n_events (self->state))
    {
      /* Read again for a change the store's watch saw, which was this
       * process's own write, already joined from the bus: nothing is
       * new, and rebuilding the turn's widgets would take a prompt's
       * buttons away from under the pointer. */
      natter_turn_state_unref (state);
      return;
    }
  if (state == NULL)
    {
      g_free (self->error);
      self->error = g_strdup (error->message);
      self->arriving = g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED);
      /* The message of a damaged turn is its first line: shown when it
       * reads, read only, so the person sees which message it was. */
      if (!self->arriving)
        natter_sessions_read_turn_message_async (self->sessions, self->turn_id, self->cancellable,
                                                 damaged_message_cb, g_object_ref (self));
      else
        g_clear_pointer (&self->damaged_input, g_free);
    }
  else
    {
      g_clear_pointer (&self->state, natter_turn_state_unref);
      g_clear_pointer (&self->error, g_free);
      g_clear_pointer (&self->damaged_input, g_free);
      self->arriving = FALSE;
      self->state = state;
      for (guint i = 0; i < pending->len && self->state != NULL && !self->loading; i++)
        {
          PendingEvent *p = &g_array_index (pending, PendingEvent, i);

          join (self, p->event, p->offset);
        }
      drop_covered_overlay (self);
    }
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
load (NatterTurnItem *self)
{
  if (self->loading)
    return;
  set_loading (self, TRUE);
  natter_sessions_get_turn_async (self->sessions, self->turn_id, self->cancellable,
                                  get_turn_cb, g_object_ref (self));
}

/**
 * natter_turn_item_ensure_loaded:
 * @self: an item
 *
 * Starts reading and reducing the turn unless it was read or is being
 * read. #NatterTurnItem::changed tells when it is there. Rows call this
 * once the list view places them where they are seen (see
 * natter_turn_row_set_item()), so only turns on screen are read.
 */
void
natter_turn_item_ensure_loaded (NatterTurnItem *self)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  if (self->state != NULL || self->error != NULL)
    return;
  load (self);
}

/**
 * natter_turn_item_reload:
 * @self: an item
 *
 * Reads the turn again, once it was read: its file changed by the hand
 * of another process or device (docs/sessions.md §8.5), which the
 * event bus of this one does not carry. A turn never read is left to
 * natter_turn_item_ensure_loaded().
 */
void
natter_turn_item_reload (NatterTurnItem *self)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  if (self->state == NULL && self->error == NULL)
    return;
  load (self);
}

/**
 * natter_turn_item_join_event:
 * @self: an item
 * @event: (transfer none): a durable event of this turn, from the bus
 * @offset: its 1-based line number in the turn file
 *
 * Joins a live event (docs/sessions.md §10.3). Before the turn was ever read
 * the event is ignored: the read that showing the turn starts will include it.
 * While a read is in flight it waits and is joined by offset afterwards.
 */
void
natter_turn_item_join_event (NatterTurnItem *self,
                             JsonObject     *event,
                             guint64         offset)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));
  g_return_if_fail (event != NULL);

  if (self->loading)
    {
      PendingEvent pending = { json_object_ref (event), offset };

      g_array_append_val (self->pending, pending);
      return;
    }
  if (self->state == NULL)
    return;
  if (join (self, event, offset))
    g_signal_emit (self, signals[CHANGED], 0);
}

/**
 * natter_turn_item_add_delta:
 * @self: an item
 * @model_call_index: the streaming model call
 * @kind: text or reasoning
 * @text: the piece
 *
 * Adds a live delta to the ephemeral overlay. Deltas of a model call the
 * state already closed are late and dropped.
 */
void
natter_turn_item_add_delta (NatterTurnItem  *self,
                            guint            model_call_index,
                            NatterDeltaKind  kind,
                            const char      *text)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  if (self->state != NULL)
    {
      NatterTurnModelCall *call = natter_turn_state_get_model_call (self->state, model_call_index);

      if (call != NULL && !natter_turn_model_call_is_open (call))
        return;
    }
  if (self->overlay_index != (int) model_call_index)
    {
      gboolean had_overlay = self->overlay_index >= 0;

      clear_overlay (self);
      self->overlay_index = model_call_index;
      if (had_overlay)
        g_signal_emit (self, signals[CHANGED], 0);
    }
  g_string_append (kind == NATTER_DELTA_REASONING ? self->overlay_reasoning : self->overlay_text, text);
  g_signal_emit (self, signals[DELTA], 0, (int) kind, text);
}

/**
 * natter_turn_item_dup_attachments:
 * @self: an item
 *
 * The stored attachments of the turn's user message (docs/format.md
 * §4.4), which the row shows below the text.
 *
 * Returns: (transfer container) (element-type JsonObject): the `blob`
 *   parts, in order; empty before the turn was read
 */
GPtrArray *
natter_turn_item_dup_attachments (NatterTurnItem *self)
{
  JsonObject *definition;

  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);

  definition = self->state != NULL ? natter_turn_state_get_definition (self->state) : NULL;
  return natter_message_dup_blob_parts (definition != NULL ? json_object_get_object_member (definition, "input")
                                                           : NULL);
}

/**
 * natter_turn_item_get_damaged_input:
 * @self: an item
 *
 * The words of the message of a turn that cannot be read
 * (natter_turn_item_get_error()), as far as its first line, which holds
 * the message, reads (natter_sessions_read_turn_message_async()): for
 * showing which message it was, never for sending or editing. Read after
 * the error is known, with #NatterTurnItem::changed.
 *
 * Returns: (transfer none) (nullable): the words, or %NULL while not
 *   read, when they cannot be read, or for a turn that reads
 */
const char *
natter_turn_item_get_damaged_input (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);

  return self->damaged_input;
}

/**
 * natter_turn_item_dup_input_text:
 * @self: an item
 *
 * Returns: (transfer full) (nullable): the text of the turn's user message
 *   (its text parts joined), or %NULL before the turn was read
 */
char *
natter_turn_item_dup_input_text (NatterTurnItem *self)
{
  JsonObject *definition;
  JsonNode *content;
  JsonObject *input;
  GString *text;

  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);

  if (self->state == NULL)
    return NULL;
  definition = natter_turn_state_get_definition (self->state);
  input = definition != NULL ? json_object_get_object_member (definition, "input") : NULL;
  content = input != NULL ? json_object_get_member (input, "content") : NULL;
  if (content == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (content))
    return g_strdup (json_node_get_string (content));

  text = g_string_new (NULL);
  if (JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);

          if (part == NULL)
            continue;
          if (g_strcmp0 (json_object_get_string_member_with_default (part, "type", NULL), "text") == 0)
            {
              if (text->len > 0)
                g_string_append_c (text, '\n');
              g_string_append (text, json_object_get_string_member_with_default (part, "text", ""));
            }
          else if (g_strcmp0 (json_object_get_string_member_with_default (part, "type", NULL), "attachment") == 0)
            {
              if (text->len > 0)
                g_string_append_c (text, '\n');
              g_string_append_printf (text, "📎 %s",
                                      json_object_get_string_member_with_default (part, "filename", ""));
            }

        }
    }
  return g_string_free (text, FALSE);
}

/**
 * natter_turn_item_get_compaction_summary:
 * @self: an item
 *
 * Returns: (nullable): the summary shown before this turn, see
 *   #NatterTurnItem:compaction-summary
 */
const char *
natter_turn_item_get_compaction_summary (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->compaction_summary;
}

/**
 * natter_turn_item_set_compaction_summary:
 * @self: an item
 * @summary: (nullable): the summary of the messages before this turn,
 *   or %NULL when no compaction starts here
 */
void
natter_turn_item_set_compaction_summary (NatterTurnItem *self,
                                         const char     *summary)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  if (g_strcmp0 (self->compaction_summary, summary) == 0)
    return;
  g_free (self->compaction_summary);
  self->compaction_summary = g_strdup (summary);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPACTION_SUMMARY]);
}

/**
 * natter_turn_item_set_versions:
 * @self: an item
 * @versions: (nullable) (transfer none) (element-type NatterTurnVersion):
 *   the versions of the message, the original first
 *
 * What the row's version switcher shows.
 */
void
natter_turn_item_set_versions (NatterTurnItem *self,
                               GPtrArray      *versions)
{
  g_return_if_fail (NATTER_IS_TURN_ITEM (self));

  if (self->versions == versions)
    return;
  g_clear_pointer (&self->versions, g_ptr_array_unref);
  self->versions = versions != NULL ? g_ptr_array_ref (versions) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VERSIONS]);
}

/**
 * natter_turn_item_get_versions:
 * @self: an item
 *
 * Returns: (transfer none) (nullable) (element-type NatterTurnVersion):
 *   the versions of the message, or %NULL
 */
GPtrArray *
natter_turn_item_get_versions (NatterTurnItem *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ITEM (self), NULL);
  return self->versions;
}
