/* natter-timeline-model.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The turns of one session as a GListModel of #NatterTurnItem, oldest
 * first (docs/sessions.md §10.3). The session file gives the list of
 * turns; each item reads its own turn only when a row shows it. The model
 * listens to the process-wide turn event hub for the whole time it lives,
 * so a turn that streams while another session is shown goes on being
 * joined, and a window coming back to it shows it live.
 *
 * A branched session (dsh-session.md, fork) shows, above its own turns,
 * the history its first turn's context references: the turns of its
 * ancestors up to each fork point, read-only, each ancestor followed by
 * a "Branched from" marker. The chain is found from session files, not
 * turn files: a session's turn N+1 always refers to its turn N and a
 * fork's first turn to its fork point (docs/sessions.md §9.1 step
 * 3), so the chain through an ancestor is its turn list up to the fork
 * point. That is one session file per ancestor, and no turn file: the
 * inherited items read their turns lazily like the session's own, so a
 * branch of a 1,000-turn session reads one session file and the turns on
 * screen. An ancestor that cannot be read ends the walk with an error
 * marker above what could be read. An ancestor that was deleted left its
 * turn files, which the model still gets: its history is read from them
 * (natter_sessions_read_history_async()), below a marker that says so.
 */

#define G_LOG_DOMAIN "natter-timeline-model"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-timeline-model.h"

/* A branch of a branch of …: the walk gives up this many ancestors up. */
#define MAX_ANCESTORS 64

struct _NatterTimelineModel
{
  GObject             parent_instance;

  NatterSessions     *sessions;
  NatterTurnEventHub *hub;
  char               *session_id;

  GPtrArray          *items;    /* NatterTurnItem, by session_seq */
  GHashTable         *by_turn;  /* turn id → NatterTurnItem (borrowed) */
  /* The inherited history and its markers, shown before the items; set
   * before the model says it is loaded, and again when a session it
   * comes from is deleted (its turns are then read from their files,
   * below a line that says so). */
  GPtrArray          *prefix;   /* NatterTurnItem or NatterTimelineMarker */
  GHashTable         *inherited; /* turn id → inherited NatterTurnItem (borrowed) */
  guint               n_inherited;
  GHashTable         *ancestors; /* the sessions the last walk visited */
  /* The ancestor walk in flight: levels found so far, child first, each
   * a GPtrArray of the level's rows; the sessions visited. */
  GPtrArray          *walk_levels;
  GHashTable         *walk_seen;
  char               *walk_turn;
  gboolean            walk_version;   /* the session walked from is a version of this one */

  /* The session's last compaction: the turn it keeps first, and the
   * summary its row shows before it. */
  char               *compaction_turn;
  char               *compaction_summary;
  char               *compaction_seen_at;   /* updatedAt of the last reload for it */

  gboolean            loaded;
  gboolean            reloading;
  gboolean            reload_again;
  char               *error;
  GCancellable       *cancellable;
};

static void natter_timeline_model_list_model_init (GListModelInterface *iface);
static void apply_compaction (NatterTimelineModel *self);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterTimelineModel, natter_timeline_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      natter_timeline_model_list_model_init))

enum
{
  PROP_0,
  PROP_LOADED,
  PROP_N_ITEMS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Items are #NatterTurnItem, and #NatterTimelineMarker in a branched
 * session's inherited history. */
static GType
natter_timeline_model_get_item_type (GListModel *model)
{
  return G_TYPE_OBJECT;
}

static guint
natter_timeline_model_get_n_items (GListModel *model)
{
  NatterTimelineModel *self = NATTER_TIMELINE_MODEL (model);

  return self->prefix->len + self->items->len;
}

static gpointer
natter_timeline_model_get_item (GListModel *model,
                                guint       position)
{
  NatterTimelineModel *self = NATTER_TIMELINE_MODEL (model);

  if (position < self->prefix->len)
    return g_object_ref (g_ptr_array_index (self->prefix, position));
  position -= self->prefix->len;
  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
natter_timeline_model_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = natter_timeline_model_get_item_type;
  iface->get_n_items = natter_timeline_model_get_n_items;
  iface->get_item = natter_timeline_model_get_item;
}

static void
natter_timeline_model_dispose (GObject *object)
{
  NatterTimelineModel *self = NATTER_TIMELINE_MODEL (object);

  g_cancellable_cancel (self->cancellable);
  if (self->hub != NULL)
    g_signal_handlers_disconnect_by_data (self->hub, self);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  g_clear_object (&self->hub);
  g_clear_object (&self->sessions);

  G_OBJECT_CLASS (natter_timeline_model_parent_class)->dispose (object);
}

static void
natter_timeline_model_finalize (GObject *object)
{
  NatterTimelineModel *self = NATTER_TIMELINE_MODEL (object);

  g_clear_pointer (&self->by_turn, g_hash_table_unref);
  g_clear_pointer (&self->items, g_ptr_array_unref);
  g_clear_pointer (&self->inherited, g_hash_table_unref);
  g_clear_pointer (&self->prefix, g_ptr_array_unref);
  g_clear_pointer (&self->walk_levels, g_ptr_array_unref);
  g_clear_pointer (&self->walk_seen, g_hash_table_unref);
  g_clear_pointer (&self->ancestors, g_hash_table_unref);
  g_clear_pointer (&self->walk_turn, g_free);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->compaction_turn, g_free);
  g_clear_pointer (&self->compaction_summary, g_free);
  g_clear_pointer (&self->compaction_seen_at, g_free);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (natter_timeline_model_parent_class)->finalize (object);
}

static void
natter_timeline_model_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  NatterTimelineModel *self = NATTER_TIMELINE_MODEL (object);

  switch (prop_id)
    {
    case PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->prefix->len + self->items->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_timeline_model_class_init (NatterTimelineModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_timeline_model_dispose;
  object_class->finalize = natter_timeline_model_finalize;
  object_class->get_property = natter_timeline_model_get_property;

  /**
   * NatterTimelineModel:loaded:
   *
   * Whether the session file was read once (successfully or not), and
   * for a branched session the history it was branched from.
   */
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_timeline_model_init (NatterTimelineModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_turn = g_hash_table_new (g_str_hash, g_str_equal);
  self->prefix = g_ptr_array_new_with_free_func (g_object_unref);
  self->inherited = g_hash_table_new (g_str_hash, g_str_equal);
  self->cancellable = g_cancellable_new ();
}

/* A turn listed while it runs here is marked running from the start,
 * and shows what its streaming model call has sent so far: the deltas
 * that went by before its item existed are not in its file
 * (docs/sessions.md §10.3). */
static void
catch_up_live (NatterTimelineModel *self,
               NatterTurnItem      *item)
{
  const char *turn_id = natter_turn_item_get_turn_id (item);
  const char *text;
  const char *reasoning;
  guint index;

  if (!natter_sessions_is_turn_running (self->sessions, turn_id))
    return;
  natter_turn_item_set_running (item, TRUE);
  if (!natter_sessions_get_streamed (self->sessions, turn_id, &index, &text, &reasoning))
    return;
  if (reasoning[0] != '\0')
    natter_turn_item_add_delta (item, index, NATTER_DELTA_REASONING, reasoning);
  if (text[0] != '\0')
    natter_turn_item_add_delta (item, index, NATTER_DELTA_TEXT, text);
}

static void
append_turns (NatterTimelineModel *self,
              guint                first_new,
              const char * const  *turn_ids,
              guint                n_turns)
{
  guint old_len = self->items->len;

  if (n_turns == 0)
    return;
  if (old_len > 0)
    natter_turn_item_set_latest (g_ptr_array_index (self->items, old_len - 1), FALSE);
  for (guint i = 0; i < n_turns; i++)
    {
      NatterTurnItem *item = natter_turn_item_new (self->sessions, turn_ids[i], first_new + i + 1);

      g_ptr_array_add (self->items, item);
      g_hash_table_insert (self->by_turn, (gpointer) natter_turn_item_get_turn_id (item), item);
      catch_up_live (self, item);
    }
  natter_turn_item_set_latest (g_ptr_array_index (self->items, self->items->len - 1), TRUE);
  g_list_model_items_changed (G_LIST_MODEL (self), self->prefix->len + old_len, 0, n_turns);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

static void reload (NatterTimelineModel *self);

static void
set_loaded (NatterTimelineModel *self)
{
  if (self->loaded)
    return;
  self->loaded = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
}

/* Puts the levels found, oldest ancestor first, before the items, below
 * a marker of @kind saying @text when there is one; in place of an
 * earlier walk's, in one change, so that a view keeps its rows below. */
static void
walk_end (NatterTimelineModel      *self,
          NatterTimelineMarkerKind  kind,
          const char               *text)
{
  g_autoptr(GPtrArray) levels = g_steal_pointer (&self->walk_levels);
  NatterSessionIndexEntry *entry;
  guint removed = self->prefix->len;
  guint added;

  g_clear_pointer (&self->ancestors, g_hash_table_unref);
  self->ancestors = g_steal_pointer (&self->walk_seen);
  g_clear_pointer (&self->walk_turn, g_free);
  /* The table borrows its keys from the rows: emptied first. */
  g_hash_table_remove_all (self->inherited);
  self->n_inherited = 0;
  g_ptr_array_set_size (self->prefix, 0);

  if (text != NULL)
    g_ptr_array_add (self->prefix, natter_timeline_marker_new (kind, NULL, NULL, text));
  for (guint i = levels->len; i > 0; i--)
    {
      GPtrArray *level = g_ptr_array_index (levels, i - 1);

      for (guint j = 0; j < level->len; j++)
        {
          GObject *row = g_ptr_array_index (level, j);

          if (NATTER_IS_TURN_ITEM (row))
            {
              g_hash_table_insert (self->inherited,
                                   (gpointer) natter_turn_item_get_turn_id (NATTER_TURN_ITEM (row)), row);
              self->n_inherited++;
            }
          g_ptr_array_add (self->prefix, g_object_ref (row));
        }
    }
  added = self->prefix->len;
  if (removed > 0 || added > 0)
    {
      g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, added);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
    }
  /* A branch's compaction may keep an inherited turn first. */
  if (self->compaction_turn != NULL)
    apply_compaction (self);
  set_loaded (self);
  /* Turns sent while the walk ran were not followed (see
   * session_index_changed_cb()): catch up. */
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), self->session_id);
  if (entry != NULL && natter_session_index_entry_get_turn_count (entry) > self->items->len)
    reload (self);
}

/* Ends the walk; @error (nullable) says why what lies further back is
 * not shown. */
static void
walk_done (NatterTimelineModel *self,
           const char          *error)
{
  walk_end (self, NATTER_TIMELINE_MARKER_ERROR, error);
}

static void walk_step (NatterTimelineModel *self,
                       const char          *session_id,
                       const char          *turn_id);

/* The history of a deleted ancestor, read from its turn files: shown
 * below a marker that says where it comes from, and the walk ends, as
 * the turns reach back to the start of what the model receives. */
static void
history_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterTimelineModel) self = user_data;
  g_autoptr(GPtrArray) turns = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) level = NULL;
  g_autofree char *text = NULL;

  turns = natter_sessions_read_history_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (turns == NULL)
    {
      /* Translators: %s is the reason, e.g. a file that cannot be parsed */
      text = g_strdup_printf (_("The conversation this was branched from was deleted, and its messages cannot be read: %s"),
                              error->message);
      walk_done (self, text);
      return;
    }
  level = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < turns->len; i++)
    {
      NatterTurnState *turn = g_ptr_array_index (turns, i);
      JsonObject *definition = natter_turn_state_get_definition (turn);
      const char *from = json_object_get_string_member_with_default (definition, "sessionId", NULL);
      NatterTurnItem *item = natter_turn_item_new_inherited (self->sessions, natter_turn_state_get_turn_id (turn),
                                                             i + 1, from);

      natter_turn_item_set_shared_history (item, self->walk_version);
      g_ptr_array_add (level, item);
    }
  g_ptr_array_add (self->walk_levels, g_steal_pointer (&level));
  /* Where they come from, plainly: a deleted original is the person's
   * own doing, not damage. */
  walk_end (self, NATTER_TIMELINE_MARKER_NOTE,
            self->walk_version ? _("The earlier messages come from a deleted version of this conversation.")
                               : _("The earlier messages come from a conversation that was deleted."));
}

static void
ancestor_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(NatterTimelineModel) self = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) level = NULL;
  const NatterSessionTurn *fork_point;
  const char *session_id;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (state == NULL)
    {
      g_autofree char *text = NULL;

      if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND))
        {
          /* A delete keeps the turn files, and the model still receives
           * the turns they chain to: those are shown, from the turns. */
          natter_sessions_read_history_async (self->sessions, self->walk_turn, self->cancellable,
                                              history_cb, g_object_ref (self));
          return;
        }
      else
        /* Translators: %s is the reason, e.g. a file that cannot be parsed */
        text = g_strdup_printf (_("The conversation this was branched from cannot be read: %s"), error->message);
      walk_done (self, text);
      return;
    }

  session_id = natter_session_state_get_session_id (state);
  fork_point = natter_session_state_find_turn (state, self->walk_turn);
  if (fork_point == NULL)
    {
      walk_done (self, _("The conversation this was branched from no longer has the message it was branched at."));
      return;
    }

  /* Turns 1 … fork point: each refers to the one before it
   * (docs/sessions.md §9.1 step 3). */
  level = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (state, i);

      NatterTurnItem *item = natter_turn_item_new_inherited (self->sessions, turn->turn_id,
                                                             (guint) turn->session_seq, session_id);

      /* A version's history is the conversation's own, one arrow from
       * the other versions: shown as such, not as a branch's. */
      natter_turn_item_set_shared_history (item, self->walk_version);
      g_ptr_array_add (level, item);
      if (turn == fork_point)
        break;
    }
  if (!self->walk_version)
    g_ptr_array_add (level, natter_timeline_marker_new (NATTER_TIMELINE_MARKER_BRANCHED, session_id,
                                        natter_session_state_get_title (state), NULL));
  g_ptr_array_add (self->walk_levels, g_steal_pointer (&level));

  /* Once a branch is passed, what lies before it is a branch's history. */
  self->walk_version = self->walk_version && natter_session_state_get_is_version (state);
  walk_step (self, natter_session_state_get_parent_session (state),
             natter_session_state_get_forked_from_turn_id (state));
}

/* Reads the session @turn_id belongs to, or ends the walk at a session
 * that was not branched (no fork point: its first turn's context is
 * its own). */
static void
walk_step (NatterTimelineModel *self,
           const char          *session_id,
           const char          *turn_id)
{
  if (session_id == NULL || turn_id == NULL)
    {
      walk_done (self, NULL);
      return;
    }
  if (!g_hash_table_add (self->walk_seen, g_strdup (session_id)) ||
      g_hash_table_size (self->walk_seen) > MAX_ANCESTORS)
    {
      walk_done (self, _("The history this was branched from goes back too far to be shown."));
      return;
    }
  g_free (self->walk_turn);
  self->walk_turn = g_strdup (turn_id);
  natter_sessions_get_session_async (self->sessions, session_id, self->cancellable,
                                     ancestor_cb, g_object_ref (self));
}

static void
start_walk (NatterTimelineModel *self,
            NatterSessionState  *state)
{
  self->walk_levels = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  self->walk_seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_add (self->walk_seen, g_strdup (self->session_id));
  self->walk_version = natter_session_state_get_is_version (state);
  walk_step (self, natter_session_state_get_parent_session (state),
             natter_session_state_get_forked_from_turn_id (state));
}

static void
rewalk_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterTimelineModel) self = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  if (state == NULL)
    {
      /* What was shown stays: the session's own reading reports it. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Could not read the session to walk its history again: %s", error->message);
      return;
    }
  if (self->walk_levels == NULL)
    start_walk (self, state);
}

/* A session the inherited history comes from was deleted: its turns are
 * still what the model receives, now read from their files, and the line
 * above them says where they come from rather than name the session
 * (which could no longer be opened). */
static void
rewalk (NatterTimelineModel *self)
{
  natter_sessions_get_session_async (self->sessions, self->session_id, self->cancellable,
                                     rewalk_cb, g_object_ref (self));
}

/* Shows the summary before the first kept turn, wherever it is (a
 * branch's may be an inherited one); a later compaction moves it. */
static void
apply_compaction (NatterTimelineModel *self)
{
  NatterTurnItem *item;

  for (guint i = 0; i < self->items->len; i++)
    if (g_strcmp0 (natter_turn_item_get_turn_id (g_ptr_array_index (self->items, i)), self->compaction_turn) != 0)
      natter_turn_item_set_compaction_summary (g_ptr_array_index (self->items, i), NULL);
  item = natter_timeline_model_lookup_any (self, self->compaction_turn);
  if (item != NULL)
    natter_turn_item_set_compaction_summary (item, self->compaction_summary);
}

static void
get_session_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(NatterTimelineModel) self = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) new_ids = NULL;
  guint n_turns;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->reloading = FALSE;

  if (state == NULL)
    {
      g_free (self->error);
      self->error = g_strdup (error->message);
    }
  else
    {
      /* Turns are only ever appended to a session (docs/format.md §3.2:
       * sessionSeq has no gaps), so what is new is the tail. */
      n_turns = natter_session_state_get_n_turns (state);
      new_ids = g_ptr_array_new ();
      for (guint i = self->items->len; i < n_turns; i++)
        g_ptr_array_add (new_ids, (gpointer) natter_session_state_get_turn (state, i)->turn_id);
      append_turns (self, self->items->len, (const char * const *) new_ids->pdata, new_ids->len);
      if (natter_session_state_get_compaction (state) != NULL)
        {
          JsonObject *compaction = natter_session_state_get_compaction (state);

          g_free (self->compaction_turn);
          self->compaction_turn = g_strdup (json_object_get_string_member (compaction, "firstKeptTurnId"));
          g_free (self->compaction_summary);
          self->compaction_summary = g_strdup (json_object_get_string_member (compaction, "summary"));
          apply_compaction (self);
        }
    }

  /* A branched session is loaded once its inherited history is known,
   * so it never shows as an empty conversation meanwhile. */
  if (!self->loaded && state != NULL && self->walk_levels == NULL)
    start_walk (self, state);
  else if (state == NULL)
    set_loaded (self);
  if (self->reload_again)
    {
      self->reload_again = FALSE;
      reload (self);
    }
}

static void
reload (NatterTimelineModel *self)
{
  if (self->reloading)
    {
      self->reload_again = TRUE;
      return;
    }
  self->reloading = TRUE;
  natter_sessions_get_session_async (self->sessions, self->session_id, self->cancellable,
                                     get_session_cb, g_object_ref (self));
}

/* A session this branch was made from was renamed: its separator says
 * the new title (its row follows the marker's notify::title). */
static void
update_marker_titles (NatterTimelineModel     *self,
                      const char              *session_id,
                      NatterSessionIndexEntry *entry)
{
  const char *title = natter_session_index_entry_get_title (entry);

  for (guint i = 0; i < self->prefix->len; i++)
    {
      NatterTimelineMarker *marker = g_ptr_array_index (self->prefix, i);

      if (NATTER_IS_TIMELINE_MARKER (marker) &&
          natter_timeline_marker_get_kind (marker) == NATTER_TIMELINE_MARKER_BRANCHED &&
          g_strcmp0 (natter_timeline_marker_get_session_id (marker), session_id) == 0)
        natter_timeline_marker_set_title (marker, title);
    }
}

/* The hub says a turn's processing ended before the service lets go of
 * its advance, so an item can still read as running then; the service
 * announces the settled turn with the index change that follows. */
static void
refresh_running (NatterTimelineModel *self)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, self->by_turn);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (natter_turn_item_get_running (value))
      natter_turn_item_set_running (value, natter_sessions_is_turn_running (self->sessions, key));
}

/* The index entry is updated before the signal, and send_message starts
 * the advance right after it: adding the new turn here, synchronously,
 * means its first events and deltas find their item. */
static void
session_index_changed_cb (NatterSessions      *sessions,
                          const char          *session_id,
                          NatterTimelineModel *self)
{
  NatterSessionIndexEntry *entry;
  guint turn_count;
  const char *latest;

  if (g_strcmp0 (session_id, self->session_id) != 0)
    {
      entry = natter_session_index_lookup (natter_sessions_list_sessions (sessions), session_id);
      if (entry != NULL && self->loaded)
        update_marker_titles (self, session_id, entry);
      else if (entry == NULL && self->loaded && self->walk_levels == NULL && self->ancestors != NULL &&
               g_hash_table_contains (self->ancestors, session_id))
        rewalk (self);
      return;
    }
  if (!self->loaded)
    return;
  refresh_running (self);
  entry = natter_session_index_lookup (natter_sessions_list_sessions (sessions), session_id);
  if (entry == NULL)
    return;
  turn_count = natter_session_index_entry_get_turn_count (entry);
  latest = natter_session_index_entry_get_latest_turn_id (entry);
  if (turn_count == self->items->len + 1 && latest != NULL &&
      !g_hash_table_contains (self->by_turn, latest) && !self->reloading)
    append_turns (self, self->items->len, &latest, 1);
  else if (turn_count > self->items->len)
    reload (self);
  else if (g_strcmp0 (natter_session_index_entry_get_updated_at (entry), self->compaction_seen_at) != 0)
    {
      /* A session event that adds no turn (a compaction among them, whose
       * summary the timeline shows) changes updatedAt: read the session. */
      g_free (self->compaction_seen_at);
      self->compaction_seen_at = g_strdup (natter_session_index_entry_get_updated_at (entry));
      reload (self);
    }
}

/* Another device wrote to a turn (docs/sessions.md §8.5): its item reads
 * it again, and shows the answer as far as it has arrived. */
static void
turn_changed_elsewhere_cb (NatterSessions      *sessions,
                           const char          *turn_id,
                           NatterTimelineModel *self)
{
  NatterTurnItem *item = g_hash_table_lookup (self->by_turn, turn_id);

  if (item != NULL && !natter_turn_item_get_running (item))
    natter_turn_item_reload (item);
}

static void
hub_event_cb (NatterTurnEventHub  *hub,
              const char          *turn_id,
              JsonObject          *event,
              guint64              offset,
              NatterTimelineModel *self)
{
  NatterTurnItem *item = g_hash_table_lookup (self->by_turn, turn_id);

  if (item != NULL)
    natter_turn_item_join_event (item, event, offset);
}

static void
hub_delta_cb (NatterTurnEventHub  *hub,
              const char          *turn_id,
              guint                model_call_index,
              int                  kind,
              const char          *text,
              NatterTimelineModel *self)
{
  NatterTurnItem *item = g_hash_table_lookup (self->by_turn, turn_id);

  if (item != NULL)
    natter_turn_item_add_delta (item, model_call_index, kind, text);
}

static void
hub_start_cb (NatterTurnEventHub  *hub,
              const char          *turn_id,
              NatterTimelineModel *self)
{
  NatterTurnItem *item = g_hash_table_lookup (self->by_turn, turn_id);

  if (item != NULL)
    natter_turn_item_set_running (item, TRUE);
}

static void
hub_end_cb (NatterTurnEventHub  *hub,
            const char          *turn_id,
            NatterTimelineModel *self)
{
  NatterTurnItem *item = g_hash_table_lookup (self->by_turn, turn_id);

  if (item != NULL)
    natter_turn_item_set_running (item, natter_sessions_is_turn_running (self->sessions, turn_id));
}

/**
 * natter_timeline_model_new:
 * @sessions: the session service
 * @hub: the process-wide turn event hub
 * @session_id: the session to show
 *
 * Creates the timeline of @session_id and starts reading the session
 * file (only the session file: turns are read by their items when shown).
 * Items are appended when the session gains turns, without a refresh.
 *
 * Returns: (transfer full): a new model
 */
NatterTimelineModel *
natter_timeline_model_new (NatterSessions     *sessions,
                           NatterTurnEventHub *hub,
                           const char         *session_id)
{
  NatterTimelineModel *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_EVENT_HUB (hub), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_TIMELINE_MODEL, NULL);
  self->sessions = g_object_ref (sessions);
  self->hub = g_object_ref (hub);
  self->session_id = g_strdup (session_id);

  g_signal_connect (sessions, "session-index-changed", G_CALLBACK (session_index_changed_cb), self);
  g_signal_connect (sessions, "turn-changed-elsewhere", G_CALLBACK (turn_changed_elsewhere_cb), self);
  g_signal_connect (hub, "event", G_CALLBACK (hub_event_cb), self);
  g_signal_connect (hub, "delta", G_CALLBACK (hub_delta_cb), self);
  g_signal_connect (hub, "turn-processing-start", G_CALLBACK (hub_start_cb), self);
  g_signal_connect (hub, "turn-processing-end", G_CALLBACK (hub_end_cb), self);
  reload (self);
  return self;
}

/**
 * natter_timeline_model_get_session_id:
 * @self: a model
 *
 * Returns: (transfer none): the session whose turns @self lists
 */
const char *
natter_timeline_model_get_session_id (NatterTimelineModel *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);
  return self->session_id;
}

/**
 * natter_timeline_model_get_loaded:
 * @self: a model
 *
 * Returns: whether the session file (and a branch's inherited history)
 *   has been read, so an empty list means an empty conversation
 */
gboolean
natter_timeline_model_get_loaded (NatterTimelineModel *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), FALSE);
  return self->loaded;
}

/**
 * natter_timeline_model_get_error:
 * @self: a model
 *
 * Returns: (nullable): why the session file could not be read
 */
const char *
natter_timeline_model_get_error (NatterTimelineModel *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);
  return self->error;
}

/**
 * natter_timeline_model_lookup:
 * @self: a model
 * @turn_id: a turn
 *
 * Returns: (transfer none) (nullable): the item of @turn_id
 */
NatterTurnItem *
natter_timeline_model_lookup (NatterTimelineModel *self,
                              const char          *turn_id)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);
  return turn_id != NULL ? g_hash_table_lookup (self->by_turn, turn_id) : NULL;
}

/**
 * natter_timeline_model_lookup_any:
 * @self: a model
 * @turn_id: a turn
 *
 * Like natter_timeline_model_lookup(), but also finds the turns a
 * branched session shows from its history (see
 * natter_turn_item_get_inherited_from()).
 *
 * Returns: (transfer none) (nullable): the item of @turn_id
 */
NatterTurnItem *
natter_timeline_model_lookup_any (NatterTimelineModel *self,
                                  const char          *turn_id)
{
  NatterTurnItem *item;

  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);

  item = natter_timeline_model_lookup (self, turn_id);
  if (item == NULL && turn_id != NULL)
    item = g_hash_table_lookup (self->inherited, turn_id);
  return item;
}

/**
 * natter_timeline_model_get_n_inherited:
 * @self: a model
 *
 * Returns: how many turns of its ancestors a branched session shows
 *   before its own (the model's first rows also hold their markers)
 */
guint
natter_timeline_model_get_n_inherited (NatterTimelineModel *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), 0);
  return self->n_inherited;
}

/**
 * natter_timeline_model_get_latest:
 * @self: a model
 *
 * Returns: (transfer none) (nullable): the newest turn's item
 */
NatterTurnItem *
natter_timeline_model_get_latest (NatterTimelineModel *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);
  return self->items->len > 0 ? g_ptr_array_index (self->items, self->items->len - 1) : NULL;
}

/* "The latest n turns" is the session's own: a branch's inherited turns
 * sit above them and are never what its view opens on. */
static guint
latest_start (NatterTimelineModel *self,
              guint                n)
{
  return self->items->len - MIN (self->items->len, n);
}

/**
 * natter_timeline_model_read_latest:
 * @self: a model
 * @n: how many of the latest turns to read
 *
 * Starts reading the session's own latest @n turns (turns read or being
 * read are left as they are). A window showing the bottom of a
 * conversation calls it as soon as the turns are known, so that the rows
 * the list view is about to place there have their turns by the first
 * frame rather than after it; they are the turns those rows would read
 * anyway.
 */
void
natter_timeline_model_read_latest (NatterTimelineModel *self,
                                   guint                n)
{
  g_return_if_fail (NATTER_IS_TIMELINE_MODEL (self));

  for (guint i = latest_start (self, n); i < self->items->len; i++)
    natter_turn_item_ensure_loaded (g_ptr_array_index (self->items, i));
}

/**
 * natter_timeline_model_latest_read:
 * @self: a model
 * @n: how many of the latest turns
 *
 * Whether the session's own latest @n turns (all of them when it has
 * fewer) have been read: each has its state, or the error its read
 * ended with. A model not loaded yet has none read.
 *
 * Returns: %TRUE when they are all read
 */
gboolean
natter_timeline_model_latest_read (NatterTimelineModel *self,
                                   guint                n)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), FALSE);

  if (!self->loaded)
    return FALSE;
  for (guint i = latest_start (self, n); i < self->items->len; i++)
    {
      NatterTurnItem *item = g_ptr_array_index (self->items, i);

      if (natter_turn_item_get_state (item) == NULL && natter_turn_item_get_error (item) == NULL)
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_timeline_model_dup_latest:
 * @self: a model
 * @n: how many of the latest turns
 *
 * The items of the session's own latest @n turns (all of them when it
 * has fewer; none before the model is loaded), oldest first: the ones
 * natter_timeline_model_read_latest() reads and
 * natter_timeline_model_latest_read() looks at, for a caller that wants
 * to hear when their reads end.
 *
 * Returns: (transfer full) (element-type NatterTurnItem): the items
 */
GPtrArray *
natter_timeline_model_dup_latest (NatterTimelineModel *self,
                                  guint                n)
{
  GPtrArray *latest;

  g_return_val_if_fail (NATTER_IS_TIMELINE_MODEL (self), NULL);

  latest = g_ptr_array_new_with_free_func (g_object_unref);
  if (!self->loaded)
    return latest;
  for (guint i = latest_start (self, n); i < self->items->len; i++)
    g_ptr_array_add (latest, g_object_ref (g_ptr_array_index (self->items, i)));
  return latest;
}

/**
 * natter_timeline_model_read_around:
 * @self: a model
 * @item: one of its turn items, just placed in view
 * @radius: how many rows before and after @item to read
 *
 * Starts reading the turns of the rows within @radius positions of @item
 * (a long session reads only the turns on screen and near it),
 * so that the rows scrolled into view next are there rather than
 * "Loading…". Turns read or being read are left as they are; markers and
 * an @item not in @self are ignored.
 */
void
natter_timeline_model_read_around (NatterTimelineModel *self,
                                   NatterTurnItem      *item,
                                   guint                radius)
{
  guint position;
  guint n_items;

  g_return_if_fail (NATTER_IS_TIMELINE_MODEL (self));
  g_return_if_fail (NATTER_IS_TURN_ITEM (item));

  /* An own turn sits at its session_seq; an inherited one in the prefix. */
  position = natter_turn_item_get_session_seq (item) - 1;
  if (natter_turn_item_get_inherited_from (item) == NULL &&
      position < self->items->len &&
      g_ptr_array_index (self->items, position) == item)
    position += self->prefix->len;
  else if (!g_ptr_array_find (self->prefix, item, &position))
    return;

  n_items = self->prefix->len + self->items->len;
  for (guint i = position - MIN (position, radius); i <= position + radius && i < n_items; i++)
    {
      gpointer other = i < self->prefix->len ? g_ptr_array_index (self->prefix, i)
                                             : g_ptr_array_index (self->items, i - self->prefix->len);

      if (NATTER_IS_TURN_ITEM (other))
        natter_turn_item_ensure_loaded (other);
    }
}
