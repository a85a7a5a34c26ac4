/* natter-session-index.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The in-memory session index of docs/sessions.md §8: a GListModel
 * of NatterSessionIndexEntry in session id order (ids are time-ordered, so
 * this is creation order; the UI sorts with a GtkSortListModel), built by
 * one startup scan and kept current write-through by the session service.
 * Never a source of truth.
 */

#define G_LOG_DOMAIN "natter-session-index"

#include <string.h>

#include "natter-session-index-cache.h"
#include "natter-log-read.h"
#include "natter-session-index-entry-private.h"
#include "natter-session-index-internal.h"
#include "natter-session-reducer.h"
#include "natter-session-scan.h"
#include "natter-store-error.h"
#include "natter-turn-reducer.h"
#include "natter-turn-scan.h"

struct _NatterSessionIndex
{
  GObject     parent_instance;

  GPtrArray  *entries;        /* NatterSessionIndexEntry, sorted by session id */
  GHashTable *by_id;          /* session id (owned by the entry) → entry */
  GHashTable *by_latest_turn; /* latest turn id (owned) → session id (owned) */

  gboolean    loaded;
  gboolean    loading;
  /* Write-through changes made while the scan runs win over the scan's
   * older view of the same sessions. */
  GHashTable *touched_while_loading;  /* session id → TRUE (kept) / FALSE (removed) */

  GFile      *cache_file;     /* the persisted cache the scan uses, or NULL */

  /* Which write-through came last for each session, so that a re-read
   * of files another process changed never undoes a newer write of this
   * one (natter_session_index_put_folded()). */
  guint64     generation;
  GHashTable *written_at;     /* session id → generation (guint64 *) */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterSessionIndex, natter_session_index, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum
{
  PROP_0,
  PROP_LOADED,
  PROP_N_ITEMS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
natter_session_index_get_item_type (GListModel *model)
{
  return NATTER_TYPE_SESSION_INDEX_ENTRY;
}

static guint
natter_session_index_get_n_items (GListModel *model)
{
  return NATTER_SESSION_INDEX (model)->entries->len;
}

static gpointer
natter_session_index_get_item (GListModel *model,
                               guint       position)
{
  NatterSessionIndex *self = NATTER_SESSION_INDEX (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->entries, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = natter_session_index_get_item_type;
  iface->get_n_items = natter_session_index_get_n_items;
  iface->get_item = natter_session_index_get_item;
}

static void
natter_session_index_finalize (GObject *object)
{
  NatterSessionIndex *self = NATTER_SESSION_INDEX (object);

  g_clear_pointer (&self->by_id, g_hash_table_unref);
  g_clear_pointer (&self->by_latest_turn, g_hash_table_unref);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->touched_while_loading, g_hash_table_unref);
  g_clear_pointer (&self->written_at, g_hash_table_unref);
  g_clear_object (&self->cache_file);

  G_OBJECT_CLASS (natter_session_index_parent_class)->finalize (object);
}

static void
natter_session_index_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  NatterSessionIndex *self = NATTER_SESSION_INDEX (object);

  switch (prop_id)
    {
    case PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->entries->len);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_session_index_class_init (NatterSessionIndexClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_session_index_finalize;
  object_class->get_property = natter_session_index_get_property;

  /**
   * NatterSessionIndex:loaded:
   *
   * Whether the startup scan has been published.
   */
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterSessionIndex:n-items:
   *
   * The number of entries.
   */
  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

/* The index's two lookups (struct _NatterSessionIndex). */
static GHashTable *
new_by_id (void)
{
  return g_hash_table_new (g_str_hash, g_str_equal);
}

static GHashTable *
new_by_latest_turn (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
natter_session_index_init (NatterSessionIndex *self)
{
  self->entries = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = new_by_id ();
  self->by_latest_turn = new_by_latest_turn ();
  self->touched_while_loading = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->written_at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * natter_session_index_new:
 *
 * Creates an empty index. Fill it with natter_session_index_load_async()
 * at startup; the session service keeps it current afterwards.
 *
 * Returns: (transfer full): a new index
 */
NatterSessionIndex *
natter_session_index_new (void)
{
  return g_object_new (NATTER_TYPE_SESSION_INDEX, NULL);
}

/* The position of @session_id, or where it would go. */
static guint
find_position (NatterSessionIndex *self,
               const char         *session_id,
               gboolean           *out_found)
{
  guint lo = 0;
  guint hi = self->entries->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int cmp = strcmp (natter_session_index_entry_get_session_id (g_ptr_array_index (self->entries, mid)),
                        session_id);

      if (cmp == 0)
        {
          *out_found = TRUE;
          return mid;
        }
      if (cmp < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  *out_found = FALSE;
  return lo;
}

/**
 * natter_session_index_lookup:
 * @self: the index
 * @session_id: a session id
 *
 * Looks an entry up by session id in constant time.
 *
 * Returns: (transfer none) (nullable): the entry, or %NULL
 */
NatterSessionIndexEntry *
natter_session_index_lookup (NatterSessionIndex *self,
                             const char         *session_id)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  return g_hash_table_lookup (self->by_id, session_id);
}

/**
 * natter_session_index_lookup_session_for_turn:
 * @self: the index
 * @turn_id: a turn id
 *
 * The session whose latest turn is @turn_id. Only a session's latest turn
 * can be non-terminal (docs/sessions.md §9.1), so this is how external inputs
 * find the session to tag and update.
 *
 * Returns: (transfer none) (nullable): the session id, or %NULL
 */
const char *
natter_session_index_lookup_session_for_turn (NatterSessionIndex *self,
                                              const char         *turn_id)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  return g_hash_table_lookup (self->by_latest_turn, turn_id);
}

/**
 * natter_session_index_set_cache_file:
 * @self: the index
 * @file: (nullable): the persisted index cache (docs/sessions.md
 *   §8.4, docs/format.md §1), or %NULL for none
 *
 * Where natter_session_index_load_async() keeps the entries it read
 * between runs, so that the next start reads only the sessions whose
 * files changed. A cache only: it is checked against every file's
 * identity and rebuilt when missing or unusable.
 */
void
natter_session_index_set_cache_file (NatterSessionIndex *self,
                                     GFile              *file)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX (self));
  g_return_if_fail (file == NULL || G_IS_FILE (file));

  g_set_object (&self->cache_file, file);
}

/**
 * natter_session_index_dup_damaged:
 * @self: the index
 *
 * The sessions listed as damaged (natter_session_index_entry_get_error()
 * is set): a search by content cannot look into them, and says so
 * (docs/format.md, "The search cache").
 *
 * Returns: (transfer container) (element-type NatterSessionIndexEntry):
 *   the entries, in session id order
 */
GPtrArray *
natter_session_index_dup_damaged (NatterSessionIndex *self)
{
  GPtrArray *damaged;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);

  damaged = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < self->entries->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (self->entries, i);

      if (natter_session_index_entry_get_error (entry) != NULL)
        g_ptr_array_add (damaged, g_object_ref (entry));
    }
  return damaged;
}

/* The conversation with the latest activity that has a model of its
 * own to go on with, or NULL. */
static NatterSessionIndexEntry *
find_recent (NatterSessionIndex *self)
{
  NatterSessionIndexEntry *recent = NULL;
  const char *recent_at = NULL;

  for (guint i = 0; i < self->entries->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (self->entries, i);
      const char *at = natter_session_index_entry_get_latest_turn_at (entry);

      /* Natter writes its timestamps in UTC, all of one width
       * (natter_format_ts()): they sort as text. Of two at the same
       * moment, the later session (ids are in time order) wins. */
      if (at == NULL || natter_session_index_entry_get_error (entry) != NULL ||
          natter_session_index_entry_get_latest_turn_imported (entry) ||
          natter_session_index_entry_get_last_model (entry) == NULL ||
          (recent_at != NULL && strcmp (at, recent_at) < 0))
        continue;
      recent = entry;
      recent_at = at;
    }
  return recent;
}

/**
 * natter_session_index_get_recent_model:
 * @self: the index
 * @out_at: (out) (optional) (transfer none) (nullable): when that model
 *   was used: the latest turn's time of its conversation, as
 *   natter_format_ts() writes it, or %NULL with no model. A model picked
 *   in the window is weighed against it (docs/sessions.md §1, "Who
 *   answers"): the later of the two is what a new conversation goes on
 *   with.
 *
 * The model of the conversation with the latest activity
 * (natter_session_index_entry_get_latest_turn_at()): what was used last,
 * which a new conversation goes on with when Preferences name no default
 * model. A damaged conversation, or one whose latest turn was imported
 * (its model is a label of where it came from), is passed over. One
 * walk of the list gives both.
 *
 * Returns: (transfer none) (nullable): the `{provider, model}` of that
 *   conversation's last turn, or %NULL when no conversation has one
 */
JsonObject *
natter_session_index_get_recent_model (NatterSessionIndex  *self,
                                       const char         **out_at)
{
  NatterSessionIndexEntry *recent;

  if (out_at != NULL)
    *out_at = NULL;
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);

  recent = find_recent (self);
  if (recent == NULL)
    return NULL;
  if (out_at != NULL)
    *out_at = natter_session_index_entry_get_latest_turn_at (recent);
  return natter_session_index_entry_get_last_model (recent);
}

/**
 * natter_session_index_get_loaded:
 * @self: the index
 *
 * Returns: whether the startup scan has been published
 */
gboolean
natter_session_index_get_loaded (NatterSessionIndex *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), FALSE);

  return self->loaded;
}

static void
forget_latest_turn (NatterSessionIndex      *self,
                    NatterSessionIndexEntry *entry)
{
  const char *turn_id = natter_session_index_entry_get_latest_turn_id (entry);

  if (turn_id != NULL)
    g_hash_table_remove (self->by_latest_turn, turn_id);
}

static void
remember_latest_turn (NatterSessionIndex      *self,
                      NatterSessionIndexEntry *entry)
{
  const char *turn_id = natter_session_index_entry_get_latest_turn_id (entry);

  if (turn_id != NULL)
    g_hash_table_insert (self->by_latest_turn, g_strdup (turn_id),
                         g_strdup (natter_session_index_entry_get_session_id (entry)));
}

/* Puts @entry (taken) at @position of the list and in its lookups, and
 * tells the list's observers. */
static void
insert_entry (NatterSessionIndex      *self,
              guint                    position,
              NatterSessionIndexEntry *entry)
{
  g_ptr_array_insert (self->entries, position, entry);
  g_hash_table_insert (self->by_id, (gpointer) natter_session_index_entry_get_session_id (entry), entry);
  remember_latest_turn (self, entry);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

/* Takes @entry, at @position of the list, out of the list and its
 * lookups, and tells the list's observers. */
static void
remove_entry (NatterSessionIndex      *self,
              guint                    position,
              NatterSessionIndexEntry *entry)
{
  forget_latest_turn (self, entry);
  g_hash_table_remove (self->by_id, natter_session_index_entry_get_session_id (entry));
  g_ptr_array_remove_index (self->entries, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

/* A write-through of @session_id happened now. */
static void
touch (NatterSessionIndex *self,
       const char         *session_id)
{
  guint64 *at = g_new (guint64, 1);

  *at = ++self->generation;
  g_hash_table_replace (self->written_at, g_strdup (session_id), at);
}

/* A write-through is about to change @session_id's entry: @kept, or
 * remove it. */
static void
written_through (NatterSessionIndex *self,
                 const char         *session_id,
                 gboolean            kept)
{
  if (self->loading)
    g_hash_table_insert (self->touched_while_loading, g_strdup (session_id), GINT_TO_POINTER (kept));
  touch (self, session_id);
}

/* Tells the list's watchers that @session_id's row changed in place. */
static void
row_changed (NatterSessionIndex *self,
             const char         *session_id)
{
  gboolean found;
  guint position = find_position (self, session_id, &found);

  g_assert (found);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
}

/* What the writer knows of the latest turn beyond @entry's state: its
 * status unless %NULL, its imported mark unless @imported is -1. */
static void
set_latest_turn_known (NatterSessionIndexEntry *entry,
                       const char              *latest_turn_status,
                       int                      imported)
{
  if (latest_turn_status != NULL)
    natter_session_index_entry_set_latest_turn_status (entry, latest_turn_status);
  if (imported >= 0)
    natter_session_index_entry_set_latest_turn_imported (entry, imported);
}

/* Write-through of @state; @imported: -1 to keep the mark of the latest
 * turn as apply_state() leaves it, else the mark itself. */
static NatterSessionIndexEntry *
update (NatterSessionIndex *self,
        NatterSessionState *state,
        const char         *latest_turn_status,
        int                 imported)
{
  const char *session_id = natter_session_state_get_session_id (state);
  NatterSessionIndexEntry *entry;
  gboolean found;
  guint position;

  written_through (self, session_id, TRUE);

  position = find_position (self, session_id, &found);
  if (found)
    {
      entry = g_ptr_array_index (self->entries, position);
      forget_latest_turn (self, entry);
      g_object_freeze_notify (G_OBJECT (entry));
      natter_session_index_entry_apply_state (entry, state);
      set_latest_turn_known (entry, latest_turn_status, imported);
      g_object_thaw_notify (G_OBJECT (entry));
      remember_latest_turn (self, entry);
      g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
      return entry;
    }

  entry = natter_session_index_entry_new_from_state (state);
  set_latest_turn_known (entry, latest_turn_status, imported);
  insert_entry (self, position, entry);
  return entry;
}

/**
 * natter_session_index_update_from_state: (skip)
 * @self: the index
 * @state: the session's state after an append
 * @latest_turn_status: (nullable): the latest turn's status if known
 *   (a new turn is `idle` until its advance settles), else %NULL to keep
 *
 * Write-through (docs/sessions.md §8.3): inserts the session's entry or updates
 * it in place. Emits items-changed for the row either way — an update as
 * (position, 1, 1) with the same object — so sort and filter models on
 * top re-evaluate it.
 *
 * Returns: (transfer none): the entry
 */
NatterSessionIndexEntry *
natter_session_index_update_from_state (NatterSessionIndex *self,
                                        NatterSessionState *state,
                                        const char         *latest_turn_status)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);
  g_return_val_if_fail (natter_session_state_get_session_id (state) != NULL, NULL);

  return update (self, state, latest_turn_status, -1);
}

/**
 * natter_session_index_add_imported: (skip)
 * @self: the index
 * @state: a session an import just wrote
 * @latest_turn_status: its latest turn's status
 * @latest_turn_imported: whether that turn is one of the imported ones
 *   (docs/format.md §7.3)
 *
 * natter_session_index_update_from_state() for a session an import
 * wrote, with the mark the startup scan would read from its latest
 * turn file.
 *
 * Returns: (transfer none): the entry
 */
NatterSessionIndexEntry *
natter_session_index_add_imported (NatterSessionIndex *self,
                                   NatterSessionState *state,
                                   const char         *latest_turn_status,
                                   gboolean            latest_turn_imported)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), NULL);
  g_return_val_if_fail (natter_session_state_get_session_id (state) != NULL, NULL);

  return update (self, state, latest_turn_status, latest_turn_imported ? 1 : 0);
}

/**
 * natter_session_index_set_latest_turn_status: (skip)
 * @self: the index
 * @session_id: the session
 * @turn_id: the turn whose status this is
 * @status: a `latestTurnStatus` string
 *
 * Records a settled outcome (docs/sessions.md §8.3, §10.2) — only if @turn_id
 * is still the session's latest turn.
 *
 * Returns: %TRUE if the entry changed
 */
gboolean
natter_session_index_set_latest_turn_status (NatterSessionIndex *self,
                                             const char         *session_id,
                                             const char         *turn_id,
                                             const char         *status)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), FALSE);

  entry = g_hash_table_lookup (self->by_id, session_id);
  if (entry == NULL ||
      g_strcmp0 (natter_session_index_entry_get_latest_turn_id (entry), turn_id) != 0 ||
      natter_session_index_entry_get_latest_turn_status (entry) == g_intern_string (status))
    return FALSE;

  written_through (self, session_id, TRUE);
  natter_session_index_entry_set_latest_turn_status (entry, status);
  /* An ended turn runs nowhere (docs/format.md §4.5). */
  if (g_strcmp0 (status, "idle") != 0 && g_strcmp0 (status, "suspended") != 0)
    natter_session_index_entry_set_latest_turn_device (entry, NULL, NULL);
  row_changed (self, session_id);
  return TRUE;
}

/**
 * natter_session_index_set_latest_turn_device: (skip)
 * @self: the index
 * @session_id: the session
 * @id: (nullable): the device its latest turn runs on from now on, or
 *   %NULL for this one
 * @name: (nullable): that device's name
 *
 * Records which device runs the session's latest turn (docs/format.md
 * §4.5): after this device took it over, %NULL.
 *
 * Returns: %TRUE if the entry changed
 */
gboolean
natter_session_index_set_latest_turn_device (NatterSessionIndex *self,
                                             const char         *session_id,
                                             const char         *id,
                                             const char         *name)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), FALSE);

  entry = g_hash_table_lookup (self->by_id, session_id);
  if (entry == NULL ||
      (g_strcmp0 (natter_session_index_entry_get_latest_turn_device_id (entry), id) == 0 &&
       g_strcmp0 (natter_session_index_entry_get_latest_turn_device_name (entry), name) == 0))
    return FALSE;
  written_through (self, session_id, TRUE);
  natter_session_index_entry_set_latest_turn_device (entry, id, name);
  row_changed (self, session_id);
  return TRUE;
}

/**
 * natter_session_index_remove: (skip)
 * @self: the index
 * @session_id: the session
 *
 * Drops a deleted session's entry (docs/sessions.md §9.4).
 *
 * Returns: %TRUE if there was one
 */
gboolean
natter_session_index_remove (NatterSessionIndex *self,
                             const char         *session_id)
{
  NatterSessionIndexEntry *entry;
  gboolean found;
  guint position;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), FALSE);

  written_through (self, session_id, FALSE);

  entry = g_hash_table_lookup (self->by_id, session_id);
  if (entry == NULL)
    return FALSE;
  position = find_position (self, session_id, &found);
  g_assert (found);
  remove_entry (self, position, entry);
  return TRUE;
}

/**
 * natter_session_index_get_generation: (skip)
 * @self: the index
 *
 * Returns: a number that grows with every write-through, for
 *   natter_session_index_put_folded()
 */
guint64
natter_session_index_get_generation (NatterSessionIndex *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), 0);
  return self->generation;
}

/* Another process's change (docs/sessions.md §8.5) */

/**
 * natter_session_index_put_folded: (skip)
 * @self: the index
 * @session_id: the session that was read again
 * @folded: (nullable) (transfer none): its entry as
 *   natter_session_index_fold_one_sync() read it from its files, or
 *   %NULL when its session file is gone
 * @since: natter_session_index_get_generation() before the files were
 *   read
 *
 * Brings a session's entry up to date with files another process wrote
 * (docs/sessions.md §8.5): adds it, changes it in place (the same object,
 * so rows bound to it follow) or removes it. A session this process
 * wrote through after @since keeps what it wrote: its own write is newer
 * than what was read, and being a change of the files as well, is read
 * again after it.
 *
 * Returns: %TRUE when the index changed
 */
gboolean
natter_session_index_put_folded (NatterSessionIndex      *self,
                                 const char              *session_id,
                                 NatterSessionIndexEntry *folded,
                                 guint64                  since)
{
  NatterSessionIndexEntry *entry;
  guint64 *written;
  gboolean found;
  guint position;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  written = g_hash_table_lookup (self->written_at, session_id);
  if (self->loading || (written != NULL && *written > since))
    return FALSE;
  entry = g_hash_table_lookup (self->by_id, session_id);
  if (folded == NULL)
    {
      if (entry == NULL)
        return FALSE;
      position = find_position (self, session_id, &found);
      remove_entry (self, position, entry);
      return TRUE;
    }
  if (entry != NULL && natter_session_index_entry_equal (entry, folded))
    return FALSE;

  position = find_position (self, session_id, &found);
  if (entry != NULL)
    {
      forget_latest_turn (self, entry);
      natter_session_index_entry_assign (entry, folded);
      remember_latest_turn (self, entry);
      g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
      return TRUE;
    }
  entry = g_object_ref (folded);
  insert_entry (self, position, entry);
  return TRUE;
}

/* The startup scan (docs/sessions.md §8.2) */

static int compare_entries (gconstpointer a,
                            gconstpointer b);

/* natter_session_index_entry_new_from_state() for the scan's fields. */
static NatterSessionIndexEntry *
entry_new_from_scan (const char                    *session_id,
                     const NatterSessionScanResult *scan)
{
  NatterSessionIndexEntry *entry = natter_session_index_entry_new (session_id);

  natter_session_index_entry_set_title (entry, scan->title);
  natter_session_index_entry_set_created_at (entry, scan->created_at);
  natter_session_index_entry_set_updated_at (entry, scan->updated_at);
  natter_session_index_entry_set_turn_count (entry, scan->turn_count);
  natter_session_index_entry_set_last_agent_id (entry, scan->last_agent_id);
  natter_session_index_entry_set_last_model (entry, scan->last_model);
  natter_session_index_entry_set_latest_turn_id (entry, scan->latest_turn_id);
  natter_session_index_entry_set_latest_turn_at (entry, scan->latest_turn_at);
  if (scan->turn_count == 0)
    natter_session_index_entry_set_latest_turn_status (entry, NATTER_LATEST_TURN_STATUS_NONE);
  natter_session_index_entry_set_cwd (entry, scan->cwd);
  natter_session_index_entry_set_parent_session (entry, scan->parent_session);
  natter_session_index_entry_set_first_turn_id (entry, scan->first_turn_id);
  natter_session_index_entry_set_is_version (entry, scan->is_version);
  natter_session_index_entry_set_parameters (entry, scan->parameters);
  natter_session_index_entry_set_pinned (entry, scan->pinned);
  natter_session_index_entry_set_folder_id (entry, scan->folder_id);
  return entry;
}

/* What the readable lines of a damaged session log say of it, so that
 * the session is still known by its name and by the conversation it is
 * a version of (docs/sessions.md §8.1): its title, its parent and
 * whether it is a version, on @entry. Nothing when they do not even say
 * which session it is. */
static void
apply_readable_lines (NatterJsonlRepo         *session_repo,
                      const char              *session_id,
                      GCancellable            *cancellable,
                      NatterSessionIndexEntry *entry)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  g_autofree char *reason = NULL;
  guint line;

  events = natter_jsonl_repo_read_prefix_sync (session_repo, session_id, &line, &reason, cancellable, NULL);
  if (events == NULL)
    return;
  for (guint i = 0; i < events->len; i++)
    if (!natter_session_state_apply (state, json_node_get_object (g_ptr_array_index (events, i)), NULL))
      break;
  if (natter_session_state_get_definition (state) == NULL)
    return;
  natter_session_index_entry_set_title (entry, natter_session_state_get_title (state));
  natter_session_index_entry_set_parent_session (entry, natter_session_state_get_parent_session (state));
  natter_session_index_entry_set_is_version (entry, natter_session_state_get_is_version (state));
}

/* Whether a failure says something about the files (damage, a missing
 * turn: a cacheable verdict) or only about this attempt to read them. */
static gboolean
is_passing (const GError *error)
{
  return g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO) ||
         error->domain == G_IO_ERROR;
}

/* docs/sessions.md §8.2 steps 2–3 for one session into @record, each
 * file's identity taken from the descriptor it is read from, before the
 * read (natter-session-index-cache.c). */
static void
fold_record (NatterJsonlCursor        *session_cursor,
             NatterJsonlCursor        *turn_cursor,
             const char               *session_id,
             GCancellable             *cancellable,
             NatterSessionIndexRecord *record)
{
  NatterJsonlRepo *session_repo = natter_jsonl_cursor_get_repo (session_cursor);
  g_auto(NatterSessionScanResult) scan = { 0 };
  g_autoptr(GError) error = NULL;
  NatterTurnStatus status;
  gboolean imported;
  gboolean known;
  g_autofree char *device_id = NULL;
  g_autofree char *device_name = NULL;
  const char *latest;

  /* The session file without a JSON tree per line: the verdict, fields
   * and errors of natter_session_reduce_file_sync(), at a fraction of
   * the cost. */
  if (!natter_session_scan_file_at (session_cursor, session_id, &record->session, &known, &scan, cancellable,
                                    &error))
    {
      record->entry = natter_session_index_entry_new_errored (session_id, error->message);
      apply_readable_lines (session_repo, session_id, cancellable, record->entry);
      /* Vanished since it was listed: next time it is not listed. */
      record->cacheable = known && record->session.exists && !is_passing (error);
      return;
    }
  record->cacheable = known && record->session.exists;

  record->entry = entry_new_from_scan (session_id, &scan);
  latest = scan.latest_turn_id;
  if (latest == NULL)
    return;

  /* The latest turn only for its status, tree-free as well. */
  if (!natter_turn_scan_file_at (turn_cursor, latest, &record->turn, &known, &status, &imported, &device_id,
                                 &device_name, cancellable, &error))
    {
      g_autofree char *text = NULL;

      record->cacheable = record->cacheable && known;
      /* A turn a synchroniser has not brought yet is no damage
       * (docs/format.md §9.3): the session is usable once it is there,
       * so the verdict is not one to keep. */
      if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        {
          natter_session_index_entry_set_latest_turn_status (record->entry, NATTER_LATEST_TURN_STATUS_ARRIVING);
          record->cacheable = FALSE;
          return;
        }
      /* A turn_appended whose file is not there is a dangling reference:
       * corruption (docs/sessions.md §7), not a missing detail. */
      if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
        text = g_strdup_printf ("The session is damaged: it refers to turn %s, but %s",
                                latest, error->message);
      else
        text = g_strdup_printf ("Latest turn %s: %s", latest, error->message);

      /* Not known to be settled, and excluded from interaction anyway. */
      natter_session_index_entry_set_latest_turn_status (record->entry, "idle");
      natter_session_index_entry_set_error (record->entry, text);
      record->cacheable = record->cacheable && !is_passing (error);
      return;
    }
  record->cacheable = record->cacheable && known;
  natter_session_index_entry_set_latest_turn_status (record->entry,
                                                     natter_latest_turn_status_from_turn_status (status));
  natter_session_index_entry_set_latest_turn_imported (record->entry, imported);
  natter_session_index_entry_set_latest_turn_device (record->entry, device_id, device_name);
}

/**
 * natter_session_index_fold_conflict_sync: (skip)
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @name: a conflict copy's name as a repository lists it
 *   (natter_jsonl_repo_list_conflicts_sync()), well formed or not
 * @cancellable: (nullable): a #GCancellable
 *
 * The entry of another device's copy of a session file or turn file
 * (docs/format.md §9): the version of its conversation it is read as,
 * with its latest turn's status; errored, with the reason, when the copy
 * cannot be read or its name is not a conflict copy's (never passed over
 * in silence). Blocks.
 *
 * Returns: (transfer full): the entry, whose session id is @name
 */
NatterSessionIndexEntry *
natter_session_index_fold_conflict_sync (NatterJsonlRepo *session_repo,
                                         NatterJsonlRepo *turn_repo,
                                         const char      *name,
                                         GCancellable    *cancellable)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *entry;
  const char *latest;

  state = natter_session_reduce_file_sync (session_repo, name, NULL, cancellable, &error);
  if (state == NULL)
    {
      /* Known by what its readable lines say, as a damaged log is. */
      entry = natter_session_index_entry_new_errored (name, error->message);
      apply_readable_lines (session_repo, name, cancellable, entry);
      return entry;
    }
  entry = natter_session_index_entry_new_from_state (state);
  latest = natter_session_state_get_latest_turn_id (state);
  if (latest == NULL)
    return entry;
  turn = natter_turn_reduce_file_sync (turn_repo, latest, NULL, cancellable, &error);
  if (turn != NULL)
    natter_session_index_entry_set_latest_turn_status (entry,
                                                       natter_latest_turn_status_from_turn_status (
                                                         natter_derive_turn_status (turn)));
  else if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
    natter_session_index_entry_set_latest_turn_status (entry, NATTER_LATEST_TURN_STATUS_ARRIVING);
  else
    {
      g_autofree char *text = g_strdup_printf ("Latest turn %s: %s", latest, error->message);

      natter_session_index_entry_set_latest_turn_status (entry, "idle");
      natter_session_index_entry_set_error (entry, text);
    }
  return entry;
}

/* Adds to @entries, in session id order, the entries of the conflict
 * copies beside the session files (@session_copies, found by the walk
 * that listed the sessions) and, in a folder a synchroniser shares, the
 * turn files (docs/format.md §9): the only place a turn's copy can come
 * from, and the walk of every turn is spared to everyone else. They are
 * few and each is read with the log it is a copy of, so none is cached:
 * every scan reads them. */
static void
add_conflicts (NatterJsonlRepo    *session_repo,
               NatterJsonlRepo    *turn_repo,
               const char * const *session_copies,
               GPtrArray          *entries,
               GCancellable       *cancellable)
{
  g_auto(GStrv) turn_copies = NULL;
  gboolean added = FALSE;

  if (natter_jsonl_repo_is_shared (turn_repo))
    {
      g_autoptr(GError) error = NULL;

      turn_copies = natter_jsonl_repo_list_conflicts_sync (turn_repo, cancellable, &error);
      if (turn_copies == NULL)
        g_debug ("Could not list the conflict copies of turns: %s", error->message);
    }
  for (guint i = 0; session_copies[i] != NULL; i++, added = TRUE)
    g_ptr_array_add (entries, natter_session_index_fold_conflict_sync (session_repo, turn_repo, session_copies[i],
                                                                       cancellable));
  for (guint i = 0; turn_copies != NULL && turn_copies[i] != NULL; i++, added = TRUE)
    g_ptr_array_add (entries, natter_session_index_fold_conflict_sync (session_repo, turn_repo, turn_copies[i],
                                                                       cancellable));
  if (added)
    g_ptr_array_sort (entries, compare_entries);
}

/**
 * natter_session_index_fold_one_sync: (skip)
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @session_id: the session
 * @cancellable: (nullable): a #GCancellable
 *
 * docs/sessions.md §8.2 steps 2–3 for one session, blocking: reads and reduces the session
 * file and, if it has turns, the latest turn file only (both tree-free
 * where they can be: natter_session_scan_file_sync(),
 * natter_turn_scan_file_sync()). A file that fails gives an errored
 * entry; nothing is thrown.
 *
 * Returns: (transfer full): the entry
 */
NatterSessionIndexEntry *
natter_session_index_fold_one_sync (NatterJsonlRepo *session_repo,
                                    NatterJsonlRepo *turn_repo,
                                    const char      *session_id,
                                    GCancellable    *cancellable)
{
  g_autoptr(NatterJsonlCursor) session_cursor = natter_jsonl_cursor_new (session_repo);
  g_autoptr(NatterJsonlCursor) turn_cursor = natter_jsonl_cursor_new (turn_repo);
  NatterSessionIndexRecord record = { 0 };
  NatterSessionIndexEntry *entry;

  fold_record (session_cursor, turn_cursor, session_id, cancellable, &record);
  entry = g_steal_pointer (&record.entry);
  natter_session_index_record_clear (&record);
  return entry;
}

typedef struct
{
  NatterJsonlRepo          *session_repo;
  NatterJsonlRepo          *turn_repo;
  NatterSessionIndexCache  *cache;       /* nullable */
  GStrv                     ids;
  guint                     n_ids;
  gint                      next;        /* atomic */
  gint                      n_read;      /* atomic: sessions read, not taken from the cache */
  GCancellable             *cancellable;
  NatterSessionIndexRecord *records;
} ScanJob;

static gpointer
scan_worker (gpointer data)
{
  ScanJob *job = data;
  /* Each thread its own: a cursor holds the directory it is in. */
  g_autoptr(NatterJsonlCursor) session_cursor = natter_jsonl_cursor_new (job->session_repo);
  g_autoptr(NatterJsonlCursor) turn_cursor = natter_jsonl_cursor_new (job->turn_repo);

  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&job->next, 1);
      NatterSessionIndexRecord *record;

      if (i >= job->n_ids || g_cancellable_is_cancelled (job->cancellable))
        break;
      record = &job->records[i];
      if (job->cache != NULL &&
          natter_jsonl_cursor_identify (session_cursor, job->ids[i], &record->session) && record->session.exists &&
          natter_session_index_cache_lookup (job->cache, turn_cursor, job->ids[i], record))
        continue;
      g_atomic_int_inc (&job->n_read);
      fold_record (session_cursor, turn_cursor, job->ids[i], job->cancellable, record);
    }
  return NULL;
}

/**
 * natter_session_index_scan_cached_sync: (skip)
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @cache_file: (nullable): the persisted index cache
 *   (natter-session-index-cache.c), or %NULL to read every session
 * @n_threads: how many threads fold sessions; 0 for one per processor
 *   (at most 4)
 * @background: whether the scan leaves a processor to the main thread
 *   (of a window that starts meanwhile): with @n_threads 0, one thread
 *   per processor but one
 * @out_n_read: (out) (optional): how many sessions were read rather than
 *   taken from the cache
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The whole startup scan of docs/sessions.md §8.2 steps 1–3, blocking; for a worker thread.
 * With @cache_file, a session whose session file and latest turn file
 * still have the identities the cache holds for them is taken from it
 * without reading either file (docs/sessions.md §8.4); the cache is
 * then rewritten when anything in it was missing, stale or unusable,
 * unless @session_repo refuses writes (natter_jsonl_repo_refuse_writes():
 * a process without the writer lock reads the cache, never writes it).
 * Only listing the sessions can fail the scan: every other failure is an
 * errored entry and the scan goes on; a cache that cannot be read or
 * written changes nothing but the time it takes.
 *
 * Returns: (transfer full) (element-type NatterSessionIndexEntry): the
 *   entries in session id order, or %NULL with the repo's
 *   %NATTER_STORE_ERROR or %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_session_index_scan_cached_sync (NatterJsonlRepo  *session_repo,
                                       NatterJsonlRepo  *turn_repo,
                                       GFile            *cache_file,
                                       guint             n_threads,
                                       gboolean          background,
                                       guint            *out_n_read,
                                       GCancellable     *cancellable,
                                       GError          **error)
{
  g_auto(GStrv) ids = NULL;
  g_auto(GStrv) copies = NULL;
  g_autoptr(NatterSessionIndexCache) cache = NULL;
  g_autoptr(GPtrArray) threads = NULL;
  GPtrArray *entries;
  ScanJob job = { 0 };
  guint n_cached = 0;

  ids = natter_jsonl_repo_list_ids_and_conflicts_sync (session_repo, &copies, cancellable, error);
  if (ids == NULL)
    return NULL;
  if (cache_file != NULL)
    {
      cache = natter_session_index_cache_load (cache_file);
      if (cache != NULL)
        n_cached = natter_session_index_cache_get_size (cache);
    }

  job.session_repo = session_repo;
  job.turn_repo = turn_repo;
  job.cache = cache;
  job.ids = ids;
  job.n_ids = g_strv_length (ids);
  job.cancellable = cancellable;
  job.records = g_new0 (NatterSessionIndexRecord, job.n_ids + 1);

  if (n_threads == 0)
    n_threads = CLAMP (g_get_num_processors () - (background ? 1 : 0), 1, 4);
  n_threads = MIN (n_threads, MAX (job.n_ids / 64, 1));

  /* The calling thread is one of the workers. */
  threads = g_ptr_array_new ();
  for (guint t = 1; t < n_threads; t++)
    g_ptr_array_add (threads, g_thread_new ("natter-index-scan", scan_worker, &job));
  scan_worker (&job);
  for (guint t = 0; t < threads->len; t++)
    g_thread_join (g_ptr_array_index (threads, t));

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    entries = NULL;
  else
    {
      g_autoptr(GError) save_error = NULL;

      entries = g_ptr_array_new_full (job.n_ids, g_object_unref);
      for (guint i = 0; i < job.n_ids; i++)
        if (job.records[i].entry != NULL)
          g_ptr_array_add (entries, g_object_ref (job.records[i].entry));
      add_conflicts (session_repo, turn_repo, (const char * const *) copies, entries, cancellable);
      /* Rewritten when a session was read, or one the cache held is gone;
       * never by a process that may not write the data directory (the
       * repository refuses its writes, docs/sessions.md §8.3): the cache
       * is the writer's, and this scan's entries serve this process
       * from memory. */
      if (cache_file != NULL && (job.n_read > 0 || n_cached != job.n_ids) &&
          natter_jsonl_repo_get_write_refusal (session_repo) == NULL &&
          !natter_session_index_cache_save (cache_file, job.records, job.n_ids, &save_error))
        g_debug ("Could not write the session index cache: %s", save_error->message);
    }
  if (out_n_read != NULL)
    *out_n_read = (guint) job.n_read;
  for (guint i = 0; i < job.n_ids; i++)
    natter_session_index_record_clear (&job.records[i]);
  g_free (job.records);
  return entries;
}

/**
 * natter_session_index_scan_sync: (skip)
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @n_threads: how many threads fold sessions; 0 for one per processor
 *   (at most 4)
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * natter_session_index_scan_cached_sync() without a cache: the whole
 * startup scan of docs/sessions.md §8.2 steps 1–3, every session read.
 *
 * Returns: (transfer full) (element-type NatterSessionIndexEntry): the
 *   entries in session id order, or %NULL with the repo's
 *   %NATTER_STORE_ERROR or %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_session_index_scan_sync (NatterJsonlRepo  *session_repo,
                                NatterJsonlRepo  *turn_repo,
                                guint             n_threads,
                                GCancellable     *cancellable,
                                GError          **error)
{
  return natter_session_index_scan_cached_sync (session_repo, turn_repo, NULL, n_threads, FALSE, NULL, cancellable,
                                                error);
}

typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  GFile           *cache_file;
} LoadData;

static void
load_data_free (LoadData *data)
{
  g_clear_object (&data->session_repo);
  g_clear_object (&data->turn_repo);
  g_clear_object (&data->cache_file);
  g_free (data);
}

/* What a scan hands to the main context: the entries in session id
 * order and their two lookups, built in the worker, so that publishing
 * 100,000 entries is a swap rather than 300,000 insertions on the main
 * thread while the window waits. */
typedef struct
{
  GPtrArray  *entries;
  GHashTable *by_id;
  GHashTable *by_latest_turn;
} Scanned;

static void
scanned_free (Scanned *scanned)
{
  g_clear_pointer (&scanned->entries, g_ptr_array_unref);
  g_clear_pointer (&scanned->by_id, g_hash_table_unref);
  g_clear_pointer (&scanned->by_latest_turn, g_hash_table_unref);
  g_free (scanned);
}

/* Fills @by_id and @by_latest_turn (as the index keeps them) with
 * @entries. */
static void
fill_lookups (GPtrArray  *entries,
              GHashTable *by_id,
              GHashTable *by_latest_turn)
{
  for (guint i = 0; i < entries->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (entries, i);
      const char *session_id = natter_session_index_entry_get_session_id (entry);
      const char *turn_id = natter_session_index_entry_get_latest_turn_id (entry);

      g_hash_table_insert (by_id, (gpointer) session_id, entry);
      if (turn_id != NULL)
        g_hash_table_insert (by_latest_turn, g_strdup (turn_id), g_strdup (session_id));
    }
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *data = task_data;
  GError *error = NULL;
  GPtrArray *entries;
  Scanned *scanned;

  /* In the background of a window that starts: one core is its own. */
  entries = natter_session_index_scan_cached_sync (data->session_repo, data->turn_repo, data->cache_file, 0,
                                                   TRUE, NULL, cancellable, &error);
  if (entries == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  scanned = g_new0 (Scanned, 1);
  scanned->entries = entries;
  scanned->by_id = new_by_id ();
  scanned->by_latest_turn = new_by_latest_turn ();
  fill_lookups (entries, scanned->by_id, scanned->by_latest_turn);
  g_task_return_pointer (task, scanned, (GDestroyNotify) scanned_free);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  NatterSessionIndexEntry *ea = *(NatterSessionIndexEntry **) a;
  NatterSessionIndexEntry *eb = *(NatterSessionIndexEntry **) b;

  return strcmp (natter_session_index_entry_get_session_id (ea),
                 natter_session_index_entry_get_session_id (eb));
}

/* docs/sessions.md §8.2 step 4: one batch on the main context, one
 * items-changed. */
static void
publish (NatterSessionIndex *self,
         Scanned            *scanned)
{
  g_autoptr(GPtrArray) old = self->entries;
  guint old_n = old->len;

  if (g_hash_table_size (self->touched_while_loading) == 0)
    {
      /* Nothing changed while the scan ran (nearly always): its entries,
       * in id order as the scan lists them, and its lookups are the
       * index. */
      self->entries = g_steal_pointer (&scanned->entries);
      g_hash_table_unref (self->by_id);
      self->by_id = g_steal_pointer (&scanned->by_id);
      g_hash_table_unref (self->by_latest_turn);
      self->by_latest_turn = g_steal_pointer (&scanned->by_latest_turn);
    }
  else
    {
      GPtrArray *merged = g_ptr_array_new_full (scanned->entries->len, g_object_unref);
      GHashTableIter iter;
      gpointer key, value;

      for (guint i = 0; i < scanned->entries->len; i++)
        {
          NatterSessionIndexEntry *entry = g_ptr_array_index (scanned->entries, i);
          const char *id = natter_session_index_entry_get_session_id (entry);

          if (!g_hash_table_contains (self->touched_while_loading, id))
            g_ptr_array_add (merged, g_object_ref (entry));
        }
      /* Sessions the service changed or created while the scan ran. */
      g_hash_table_iter_init (&iter, self->touched_while_loading);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          NatterSessionIndexEntry *live = g_hash_table_lookup (self->by_id, key);

          if (GPOINTER_TO_INT (value) && live != NULL)
            g_ptr_array_add (merged, g_object_ref (live));
        }
      g_ptr_array_sort (merged, compare_entries);

      self->entries = merged;
      g_hash_table_remove_all (self->by_id);
      g_hash_table_remove_all (self->by_latest_turn);
      fill_lookups (merged, self->by_id, self->by_latest_turn);
      g_hash_table_remove_all (self->touched_while_loading);
    }
  self->loading = FALSE;
  self->loaded = TRUE;

  g_list_model_items_changed (G_LIST_MODEL (self), 0, old_n, self->entries->len);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionIndex *self = g_task_get_source_object (task);
  Scanned *scanned;
  GError *error = NULL;

  scanned = g_task_propagate_pointer (G_TASK (result), &error);
  if (scanned == NULL)
    {
      self->loading = FALSE;
      g_hash_table_remove_all (self->touched_while_loading);
      g_task_return_error (task, error);
      return;
    }
  publish (self, scanned);
  scanned_free (scanned);
  g_task_return_boolean (task, TRUE);
}

/**
 * natter_session_index_load_async:
 * @self: the index
 * @session_repo: the session repository
 * @turn_repo: the turn repository
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context when published
 * @user_data: data for @callback
 *
 * The startup scan of docs/sessions.md §8.2: lists the sessions,
 * reads and reduces each session file and, for a session with turns, only
 * its latest turn file (→ `latestTurnStatus`), in worker threads —
 * except the sessions the cache file (natter_session_index_set_cache_file())
 * holds for files that have not changed since. The
 * result replaces the index's contents on the main context in one batch
 * (a single items-changed). A corrupt session file or latest turn gives an
 * errored entry (#NatterSessionIndexEntry:error) and the scan goes on.
 * Changes the session service makes while the scan runs are kept.
 */
void
natter_session_index_load_async (NatterSessionIndex  *self,
                                 NatterJsonlRepo     *session_repo,
                                 NatterJsonlRepo     *turn_repo,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) worker = NULL;
  LoadData *data;

  g_return_if_fail (NATTER_IS_SESSION_INDEX (self));
  g_return_if_fail (NATTER_IS_JSONL_REPO (session_repo));
  g_return_if_fail (NATTER_IS_JSONL_REPO (turn_repo));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_session_index_load_async);

  if (self->loading)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PENDING,
                               "The session index is already loading");
      return;
    }
  self->loading = TRUE;

  data = g_new0 (LoadData, 1);
  data->session_repo = g_object_ref (session_repo);
  data->turn_repo = g_object_ref (turn_repo);
  data->cache_file = self->cache_file != NULL ? g_object_ref (self->cache_file) : NULL;
  worker = g_task_new (self, cancellable, load_cb, g_steal_pointer (&task));
  g_task_set_source_tag (worker, load_thread);
  g_task_set_task_data (worker, data, (GDestroyNotify) load_data_free);
  g_task_run_in_thread (worker, load_thread);
}

/**
 * natter_session_index_load_finish:
 * @self: the index
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once published; %FALSE with the repo's
 *   %NATTER_STORE_ERROR if the sessions could not be listed,
 *   %G_IO_ERROR_CANCELLED, or %G_IO_ERROR_PENDING if a scan was running
 */
gboolean
natter_session_index_load_finish (NatterSessionIndex  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_session_index_load_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
