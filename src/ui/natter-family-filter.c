/* natter-family-filter.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar's filter that lists a conversation once however many
 * versions it has (natter-session-families.c): only the most recently
 * active version of each family passes, so an edit shows as the
 * conversation going on rather than as a second conversation of the
 * same name. The families are worked out again whenever the index
 * changes; the filter says it changed only when the sessions it lets
 * through (or their numbers of versions) did. A search still lists a
 * conversation once, but as a version it finds: words said only in an
 * older version must find it too, and words said in several versions
 * (the message a new try sent again) must not list it twice.
 */

#define G_LOG_DOMAIN "natter-sidebar"

#include "config.h"

#include "natter-family-filter.h"
#include "natter-session-families.h"
#include "natter-session-index-entry.h"

struct _NatterFamilyFilter
{
  GtkFilter              parent_instance;

  GListModel            *index;
  GHashTable            *hidden;    /* session ids left out, or NULL */
  NatterSessionFamilies *families;
  GtkFilter             *search;    /* what a search finds, or NULL */
  gboolean               enabled;
};

G_DEFINE_FINAL_TYPE (NatterFamilyFilter, natter_family_filter, GTK_TYPE_FILTER)

static gboolean
found_by_search (NatterSessionIndexEntry *entry,
                 gpointer                 user_data)
{
  return gtk_filter_match (GTK_FILTER (user_data), entry);
}

/* While searching: the version of @session_id's conversation that the
 * list shows, or NULL when the search finds none of it. */
static const char *
found_version (NatterFamilyFilter *self,
               const char         *session_id)
{
  if (self->search == NULL)
    return session_id;
  return natter_session_families_find_head_among (self->families, session_id, found_by_search, self->search);
}

static gboolean
natter_family_filter_match (GtkFilter *filter,
                            gpointer   item)
{
  NatterFamilyFilter *self = NATTER_FAMILY_FILTER (filter);
  const char *session_id = natter_session_index_entry_get_session_id (item);

  if (!self->enabled)
    {
      const char *found = found_version (self, session_id);

      /* A session the families do not know (not worked out yet) is its
       * own row, as when the filter is on. */
      return found == NULL ? natter_session_families_get_head (self->families, session_id) == NULL
                           : g_strcmp0 (found, session_id) == 0;
    }
  return natter_session_families_is_head (self->families, session_id);
}

static GtkFilterMatch
natter_family_filter_get_strictness (GtkFilter *filter)
{
  NatterFamilyFilter *self = NATTER_FAMILY_FILTER (filter);

  return self->enabled || self->search != NULL ? GTK_FILTER_MATCH_SOME : GTK_FILTER_MATCH_ALL;
}

/* The families of the sessions the list may show: a version hidden
 * (deleted, its undo toast still up) is worked out as gone already, so
 * its conversation keeps its row, showing the version that stays, and
 * the number of versions the toast says are kept. */
static NatterSessionFamilies *
families_new (NatterFamilyFilter *self)
{
  g_autoptr(GListStore) shown = NULL;

  if (self->hidden == NULL || g_hash_table_size (self->hidden) == 0)
    return natter_session_families_new (self->index);
  shown = g_list_store_new (NATTER_TYPE_SESSION_INDEX_ENTRY);
  for (guint i = 0; i < g_list_model_get_n_items (self->index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (self->index, i);

      if (!g_hash_table_contains (self->hidden, natter_session_index_entry_get_session_id (entry)))
        g_list_store_append (shown, entry);
    }
  return natter_session_families_new (G_LIST_MODEL (shown));
}

static void
index_changed_cb (NatterFamilyFilter *self)
{
  g_autoptr(NatterSessionFamilies) families = families_new (self);
  gboolean same = natter_session_families_equal_heads (self->families, families);

  natter_session_families_free (self->families);
  self->families = g_steal_pointer (&families);
  if (!same && (self->enabled || self->search != NULL))
    gtk_filter_changed (GTK_FILTER (self), GTK_FILTER_CHANGE_DIFFERENT);
}

static void
natter_family_filter_dispose (GObject *object)
{
  NatterFamilyFilter *self = NATTER_FAMILY_FILTER (object);

  g_clear_object (&self->index);
  if (self->search != NULL)
    g_signal_handlers_disconnect_by_data (self->search, self);
  g_clear_object (&self->search);
  g_clear_pointer (&self->hidden, g_hash_table_unref);
  g_clear_pointer (&self->families, natter_session_families_free);

  G_OBJECT_CLASS (natter_family_filter_parent_class)->dispose (object);
}

static void
natter_family_filter_class_init (NatterFamilyFilterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkFilterClass *filter_class = GTK_FILTER_CLASS (klass);

  object_class->dispose = natter_family_filter_dispose;
  filter_class->match = natter_family_filter_match;
  filter_class->get_strictness = natter_family_filter_get_strictness;
}

static void
natter_family_filter_init (NatterFamilyFilter *self)
{
  self->enabled = TRUE;
}

/**
 * natter_family_filter_new:
 * @index: (element-type NatterSessionIndexEntry): the session index the
 *   filtered list shows
 *
 * Returns: (transfer full): a filter passing each family's most recently
 *   active version, following @index
 */
NatterFamilyFilter *
natter_family_filter_new (GListModel *index)
{
  NatterFamilyFilter *self;

  g_return_val_if_fail (G_IS_LIST_MODEL (index), NULL);

  self = g_object_new (NATTER_TYPE_FAMILY_FILTER, NULL);
  self->index = g_object_ref (index);
  self->families = natter_session_families_new (index);
  /* After the filter model has taken the change in (a session it does
   * not know yet passes): a change of the filter in the middle of it
   * would count the new rows twice. */
  g_signal_connect_object (index, "items-changed", G_CALLBACK (index_changed_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  return self;
}

/**
 * natter_family_filter_set_enabled:
 * @self: the filter
 * @enabled: %FALSE to pass every session (while searching)
 */
void
natter_family_filter_set_enabled (NatterFamilyFilter *self,
                                  gboolean            enabled)
{
  g_return_if_fail (NATTER_IS_FAMILY_FILTER (self));

  if (self->enabled == !!enabled)
    return;
  self->enabled = !!enabled;
  if (self->search != NULL)
    gtk_filter_changed (GTK_FILTER (self), GTK_FILTER_CHANGE_DIFFERENT);
  else
    gtk_filter_changed (GTK_FILTER (self), enabled ? GTK_FILTER_CHANGE_MORE_STRICT : GTK_FILTER_CHANGE_LESS_STRICT);
}

/* What the search finds changed: which version a conversation is listed
 * as may have, in either direction (its listed version found no more,
 * an older one found now). */
static void
search_changed_cb (NatterFamilyFilter *self)
{
  if (!self->enabled)
    gtk_filter_changed (GTK_FILTER (self), GTK_FILTER_CHANGE_DIFFERENT);
}

/**
 * natter_family_filter_set_search:
 * @self: the filter
 * @search: (nullable): what a search finds: the filter of the list's
 *   search, which the list applies as well
 *
 * While the filter is off (natter_family_filter_set_enabled()), it lists
 * each conversation @search finds once: as its listed version when
 * @search finds that, else as the most recently active version it finds.
 * Without @search, every session passes while the filter is off.
 */
void
natter_family_filter_set_search (NatterFamilyFilter *self,
                                 GtkFilter          *search)
{
  g_return_if_fail (NATTER_IS_FAMILY_FILTER (self));
  g_return_if_fail (search == NULL || GTK_IS_FILTER (search));

  if (self->search != NULL)
    g_signal_handlers_disconnect_by_data (self->search, self);
  g_set_object (&self->search, search);
  if (search != NULL)
    g_signal_connect_object (search, "changed", G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  if (!self->enabled)
    gtk_filter_changed (GTK_FILTER (self), GTK_FILTER_CHANGE_DIFFERENT);
}

/**
 * natter_family_filter_set_hidden:
 * @self: the filter
 * @hidden: (nullable) (transfer none): a set of session ids (a
 *   #GHashTable of strings) the list leaves out; the filter keeps a
 *   reference and reads it again at natter_family_filter_hidden_changed()
 *
 * Which sessions the families leave out, as if they were deleted: a
 * conversation whose listed version is hidden is listed as its next
 * version, with one version less.
 */
void
natter_family_filter_set_hidden (NatterFamilyFilter *self,
                                 GHashTable         *hidden)
{
  g_return_if_fail (NATTER_IS_FAMILY_FILTER (self));

  if (hidden != NULL)
    g_hash_table_ref (hidden);
  g_clear_pointer (&self->hidden, g_hash_table_unref);
  self->hidden = hidden;
  natter_family_filter_hidden_changed (self);
}

/**
 * natter_family_filter_hidden_changed:
 * @self: the filter
 *
 * The set given to natter_family_filter_set_hidden() changed: the
 * families are worked out again, and the filter says it changed when
 * the versions it lets through (or their numbers) did.
 */
void
natter_family_filter_hidden_changed (NatterFamilyFilter *self)
{
  g_return_if_fail (NATTER_IS_FAMILY_FILTER (self));
  index_changed_cb (self);
}

/**
 * natter_family_filter_is_hidden:
 * @self: the filter
 * @session_id: a session id
 *
 * Returns: whether the families leave @session_id out, as if deleted
 *   (natter_family_filter_set_hidden())
 */
gboolean
natter_family_filter_is_hidden (NatterFamilyFilter *self,
                                const char         *session_id)
{
  g_return_val_if_fail (NATTER_IS_FAMILY_FILTER (self), FALSE);

  return self->hidden != NULL && session_id != NULL && g_hash_table_contains (self->hidden, session_id);
}

/**
 * natter_family_filter_dup_versions:
 * @self: the filter
 * @session_id: a session of the index, not hidden
 *
 * Returns: (transfer full): the sessions of @session_id's conversation
 *   that can be written to, @session_id first (only itself without
 *   versions; empty for a session the index does not have)
 */
GStrv
natter_family_filter_dup_versions (NatterFamilyFilter *self,
                                   const char         *session_id)
{
  g_return_val_if_fail (NATTER_IS_FAMILY_FILTER (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  return natter_session_families_dup_members (self->families, session_id);
}

/**
 * natter_family_filter_get_n_versions:
 * @self: the filter
 * @session_id: a session of the index
 *
 * Returns: how many versions @session_id's conversation has, itself
 *   included (1 without others)
 */
guint
natter_family_filter_get_n_versions (NatterFamilyFilter *self,
                                     const char         *session_id)
{
  g_return_val_if_fail (NATTER_IS_FAMILY_FILTER (self), 0);
  return natter_session_families_get_n_versions (self->families, session_id);
}

/**
 * natter_family_filter_is_listed_version:
 * @self: the filter
 * @session_id: a session of the index
 *
 * Whether @session_id is the version of its conversation the list
 * shows while the filter is on (the latest), on or off.
 *
 * Returns: %TRUE for the listed version or a session the filter does
 *   not know
 */
gboolean
natter_family_filter_is_listed_version (NatterFamilyFilter *self,
                                        const char         *session_id)
{
  const char *head;

  g_return_val_if_fail (NATTER_IS_FAMILY_FILTER (self), TRUE);
  g_return_val_if_fail (session_id != NULL, TRUE);

  head = natter_session_families_get_head (self->families, session_id);
  return head == NULL || g_str_equal (head, session_id);
}

/**
 * natter_family_filter_get_listed:
 * @self: the filter
 * @session_id: a session of the index
 *
 * Which session's row stands for @session_id: while the filter is on,
 * @session_id itself when it is the latest version of its conversation,
 * else that latest version. Off (while searching), the version the
 * search lists (natter_family_filter_set_search()), or @session_id
 * itself when it finds none (or there is no search).
 *
 * Returns: (transfer none): the session id of the row, @session_id when
 *   the filter does not know it
 */
const char *
natter_family_filter_get_listed (NatterFamilyFilter *self,
                                 const char         *session_id)
{
  const char *head;

  g_return_val_if_fail (NATTER_IS_FAMILY_FILTER (self), session_id);

  if (session_id == NULL)
    return session_id;
  if (!self->enabled)
    {
      head = found_version (self, session_id);
      return head != NULL ? head : session_id;
    }
  head = natter_session_families_get_head (self->families, session_id);
  return head != NULL ? head : session_id;
}
