/* natter-window-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The versions of the open conversation's messages: read when the
 * conversation opens and again when a message is added to it, and given
 * to each of its items, whose rows then show "‹ n/N ›"
 * (natter_sessions_list_versions_async()). Editing a message and the
 * arrows between its versions are natter-window-editing.c's.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-turn-item.h"
#include "natter-window-private.h"

/* The versions of a message the window offers: one whose deletion waits
 * behind its undo toast is gone for the person, and an arrow to it would
 * lead nowhere. A message left with one version offers none. Returns
 * (transfer full) (nullable) a copy, or @versions itself. */
static GPtrArray *
offered_versions (NatterWindow *self,
                  GPtrArray    *versions)
{
  GPtrArray *offered;

  if (versions == NULL)
    return NULL;
  if (self->sidebar.pending_deletes == NULL || g_hash_table_size (self->sidebar.pending_deletes) == 0)
    return g_ptr_array_ref (versions);
  offered = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_version_free);
  for (guint i = 0; i < versions->len; i++)
    {
      NatterTurnVersion *version = g_ptr_array_index (versions, i);
      NatterTurnVersion *copy;

      if (g_hash_table_contains (self->sidebar.pending_deletes, version->session_id))
        continue;
      copy = g_new0 (NatterTurnVersion, 1);
      copy->session_id = g_strdup (version->session_id);
      copy->turn_id = g_strdup (version->turn_id);
      g_ptr_array_add (offered, copy);
    }
  if (offered->len < 2)
    g_clear_pointer (&offered, g_ptr_array_unref);
  return offered;
}

/* Gives every item of the open timeline its versions (NULL for none),
 * also items that were not there when the versions were read. */
void
_natter_window_apply_versions (NatterWindow *self)
{
  guint n;

  if (self->conversation.timeline == NULL)
    return;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->conversation.timeline));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) object = g_list_model_get_item (G_LIST_MODEL (self->conversation.timeline), i);
      g_autoptr(GPtrArray) offered = NULL;
      NatterTurnItem *item;

      if (!NATTER_IS_TURN_ITEM (object))
        continue;
      item = NATTER_TURN_ITEM (object);
      offered = offered_versions (self, self->versions.of_turn != NULL
                                        ? g_hash_table_lookup (self->versions.of_turn,
                                                               natter_turn_item_get_turn_id (item))
                                        : NULL);
      natter_turn_item_set_versions (item, offered);
    }
}

/* The window is held weakly: reading versions is never a reason to keep
 * a closed window alive. */
typedef struct
{
  GWeakRef  self;
  char     *session_id;
} ListData;

static void
list_data_free (ListData *data)
{
  g_weak_ref_clear (&data->self);
  g_free (data->session_id);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ListData, list_data_free)

static void
versions_listed_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(ListData) data = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&data->self);
  g_autoptr(GHashTable) versions = NULL;

  versions = natter_sessions_list_versions_finish (NATTER_SESSIONS (source), result, NULL);
  /* Not finding them only means no switcher; the conversation itself
   * says what is wrong with it. */
  if (versions == NULL || self == NULL || g_strcmp0 (data->session_id, self->conversation.session_id) != 0)
    return;
  g_clear_pointer (&self->versions.of_turn, g_hash_table_unref);
  self->versions.of_turn = g_steal_pointer (&versions);
  _natter_window_apply_versions (self);
}

/* Reads the versions of the open conversation's messages again. */
void
_natter_window_refresh_versions (NatterWindow *self)
{
  ListData *data;

  g_clear_pointer (&self->versions.of_turn, g_hash_table_unref);
  if (self->conversation.session_id == NULL || self->sessions == NULL || self->conversation.timeline == NULL)
    return;
  data = g_new0 (ListData, 1);
  g_weak_ref_init (&data->self, self);
  data->session_id = g_strdup (self->conversation.session_id);
  natter_sessions_list_versions_async (self->sessions, self->conversation.session_id, self->cancellable,
                                       versions_listed_cb, data);
}

/* A message added to the open conversation (the first of a new
 * version, or another): the versions are read again. The first items of
 * a timeline that is loading need nothing new: its read comes after. */
void
_natter_window_versions_items_changed_cb (NatterWindow *self,
                                          guint         position,
                                          guint         removed,
                                          guint         added)
{
  if (added > 0 && self->conversation.timeline != NULL && natter_timeline_model_get_loaded (self->conversation.timeline))
    _natter_window_refresh_versions (self);
}

/* Whether @session_id is the open conversation or one it shows messages
 * of (the sessions it branched from, up the chain). */
static gboolean
shows_from (NatterWindow *self,
            const char   *session_id)
{
  const char *id = self->conversation.session_id;

  /* Bounded: a chain of parents in files could loop. */
  for (guint depth = 0; id != NULL && depth < 64; depth++)
    {
      NatterSessionIndexEntry *entry;

      if (g_strcmp0 (id, session_id) == 0)
        return TRUE;
      entry = natter_session_index_lookup (self->index, id);
      id = entry != NULL ? natter_session_index_entry_get_parent_session (entry) : NULL;
    }
  return FALSE;
}

/* A session changed in the index: one made, read or gone that may be a
 * version of a message the open conversation shows — another device's
 * copy arriving (docs/format.md §9.1), a version written by the command
 * line — has the versions read again, so that its arrows show without
 * opening the conversation again. */
void
_natter_window_versions_session_changed (NatterWindow *self,
                                         const char   *session_id)
{
  NatterSessionIndexEntry *entry;
  const char *parent;

  if (self->conversation.session_id == NULL || self->conversation.timeline == NULL ||
      !natter_timeline_model_get_loaded (self->conversation.timeline) ||
      g_strcmp0 (session_id, self->conversation.session_id) == 0)
    return;
  entry = natter_session_index_lookup (self->index, session_id);
  if (entry == NULL)
    {
      /* Gone: it matters only if it was one of the versions shown. */
      if (self->versions.of_turn != NULL && g_hash_table_size (self->versions.of_turn) > 0)
        _natter_window_refresh_versions (self);
      return;
    }
  parent = natter_session_index_entry_get_parent_session (entry);
  if (parent != NULL && shows_from (self, parent))
    _natter_window_refresh_versions (self);
}
