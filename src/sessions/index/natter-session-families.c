/* natter-session-families.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which conversations are versions of one another, for the lists that
 * show conversations (the sidebar, the Shell search provider, `natter
 * sessions`). Editing a sent message or trying an answer again makes a
 * new version of the conversation: a branch (docs/sessions.md §9)
 * that is stored as a version (docs/format.md §3.2). A branch the user
 * makes on purpose is a conversation of its own. The sessions joined by
 * that stored lineage are one family: the original (the one that is no
 * version of another) and its versions, versions of versions included.
 * Titles play no part: a version the user renamed is still one, and a
 * branch named like its parent is still its own. A list shows a family
 * once, as its most recently active version (its head), which is where
 * the user left it, and says how many versions it has: as many as the
 * window's arrows reach. Another device's copy that a version went on
 * from (docs/format.md §9.1) is shown as that version, so it is not
 * counted again. Nothing is stored for the family itself; it is read
 * from the index entries.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include "natter-session-families.h"
#include "natter-session-index.h"
#include "natter-session-index-entry.h"
#include "natter-sync-conflict-name.h"

typedef struct
{
  char      *original;
  char      *head;
  char      *head_activity;
  guint      n_versions;
  GPtrArray *ids;           /* every session of it, copies included (owned by the entries) */
} Family;

/* Most sessions are versions of nothing and have none: they are their
 * own family and get no Family, so that an index of 100,000 sessions
 * (worked out again at every change of the index) costs a table of its
 * ids, not 100,000 allocations. */
struct _NatterSessionFamilies
{
  GHashTable *members;    /* session id (owned by the entry) → entry: every session */
  GHashTable *families;   /* session id → Family (owned by originals), in a family of two or more */
  GHashTable *originals;  /* original id → Family */
};

static void
family_free (Family *family)
{
  g_free (family->original);
  g_free (family->head);
  g_free (family->head_activity);
  g_ptr_array_unref (family->ids);
  g_free (family);
}

static const char *
activity_time (NatterSessionIndexEntry *entry)
{
  const char *latest_turn_at = natter_session_index_entry_get_latest_turn_at (entry);

  return latest_turn_at != NULL ? latest_turn_at : natter_session_index_entry_get_created_at (entry);
}

typedef NatterSessionIndexEntry *(*EntryLookup) (gpointer    entries,
                                                 const char *session_id);

static NatterSessionIndexEntry *
lookup_in_table (gpointer    entries,
                 const char *session_id)
{
  return g_hash_table_lookup (entries, session_id);
}

static NatterSessionIndexEntry *
lookup_in_index (gpointer    entries,
                 const char *session_id)
{
  return natter_session_index_lookup (entries, session_id);
}

/* The entry @entry is a version of, or %NULL. A parent that is gone or
 * damaged leaves its versions standing on their own. */
static NatterSessionIndexEntry *
continued_in (EntryLookup              lookup_entry,
              gpointer                 entries,
              NatterSessionIndexEntry *entry)
{
  NatterSessionIndexEntry *parent;

  if (!natter_session_index_entry_get_is_version (entry) || natter_session_index_entry_get_error (entry) != NULL)
    return NULL;
  parent = lookup_entry (entries, natter_session_index_entry_get_parent_session (entry));
  if (parent == NULL || natter_session_index_entry_get_error (parent) != NULL)
    return NULL;
  return parent;
}

static NatterSessionIndexEntry *
continued (GHashTable              *entries,
           NatterSessionIndexEntry *entry)
{
  return continued_in (lookup_in_table, entries, entry);
}

/* Whether @copy, another device's copy, is shown as @other: a session
 * that is no copy, a version of the same parent, that begins with the
 * copy's turns (docs/format.md §9.1). The entries hold only the first
 * turn; a session that names the copy's first turn file in the copy's
 * place began from the copy, and one that went on has at least its
 * turns. */
static gboolean
shows_copy (NatterSessionIndexEntry *other,
            NatterSessionIndexEntry *copy)
{
  const char *first = natter_session_index_entry_get_first_turn_id (copy);

  return other != copy && first != NULL &&
         !natter_sync_conflict_is_candidate (natter_session_index_entry_get_session_id (other)) &&
         natter_session_index_entry_get_is_version (other) &&
         g_strcmp0 (natter_session_index_entry_get_parent_session (other),
                    natter_session_index_entry_get_parent_session (copy)) == 0 &&
         g_strcmp0 (natter_session_index_entry_get_first_turn_id (other), first) == 0 &&
         natter_session_index_entry_get_turn_count (other) >= natter_session_index_entry_get_turn_count (copy);
}

/**
 * natter_session_families_find_original:
 * @index: the session index
 * @session_id: a session
 *
 * The entry of the original of @session_id's conversation, by the rule
 * natter_session_families_new() applies, without building every family:
 * the session itself when it is no version of another (or its parent is
 * gone or damaged). What a conversation keeps — its
 * generation parameters — is the original's (docs/sessions.md §15).
 *
 * Returns: (transfer none) (nullable): the entry, or %NULL when @index
 *   does not list @session_id
 */
NatterSessionIndexEntry *
natter_session_families_find_original (NatterSessionIndex *index,
                                       const char         *session_id)
{
  NatterSessionIndexEntry *original;
  NatterSessionIndexEntry *parent;
  guint depth = 0;
  guint n;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX (index), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  original = natter_session_index_lookup (index, session_id);
  if (original == NULL)
    return NULL;
  n = g_list_model_get_n_items (G_LIST_MODEL (index));
  /* Parents are older than their versions; the bound guards against a
   * damaged store naming a cycle. */
  while ((parent = continued_in (lookup_in_index, index, original)) != NULL && depth++ < n)
    original = parent;
  return original;
}

/* Whether a session of @versions shows the copy @entry (shows_copy()). */
static gboolean
copy_shown_elsewhere (GPtrArray               *versions,
                      NatterSessionIndexEntry *entry)
{
  for (guint i = 0; i < versions->len; i++)
    if (shows_copy (g_ptr_array_index (versions, i), entry))
      return TRUE;
  return FALSE;
}

/**
 * natter_session_families_new:
 * @index: (element-type NatterSessionIndexEntry): the session index (or
 *   any list of its entries)
 *
 * Works out the families of the sessions of @index as they are now: a
 * snapshot, to be made again when the index changes.
 *
 * Returns: (transfer full): the families
 */
NatterSessionFamilies *
natter_session_families_new (GListModel *index)
{
  NatterSessionFamilies *self = g_new0 (NatterSessionFamilies, 1);
  g_autoptr(GPtrArray) versions = g_ptr_array_new ();
  guint n;

  g_return_val_if_fail (G_IS_LIST_MODEL (index), NULL);

  self->members = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  self->families = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->originals = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) family_free);
  n = g_list_model_get_n_items (index);
  for (guint i = 0; i < n; i++)
    {
      NatterSessionIndexEntry *entry = g_list_model_get_item (index, i);

      g_hash_table_replace (self->members, (gpointer) natter_session_index_entry_get_session_id (entry), entry);
    }

  /* The sessions that continue another: they and the sessions they
   * continue, up to their originals, are all there is to work out. */
  for (guint i = 0; i < n; i++)
    {
      NatterSessionIndexEntry *entry = g_list_model_get_item (index, i);

      if (continued (self->members, entry) != NULL)
        g_ptr_array_add (versions, entry);
      g_object_unref (entry);
    }

  for (guint i = 0; i < versions->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (versions, i);
      NatterSessionIndexEntry *original = entry;
      NatterSessionIndexEntry *parent;
      guint depth = 0;
      Family *family;

      /* Parents are older than their branches, so the chain ends; the
       * bound only guards against a damaged store naming a cycle. */
      while ((parent = continued (self->members, original)) != NULL && depth++ < n)
        original = parent;
      family = g_hash_table_lookup (self->originals, natter_session_index_entry_get_session_id (original));
      if (family == NULL)
        {
          family = g_new0 (Family, 1);
          family->original = g_strdup (natter_session_index_entry_get_session_id (original));
          g_hash_table_insert (self->originals, family->original, family);
          /* The original itself, once. */
          g_hash_table_insert (self->families, g_strdup (family->original), family);
          family->n_versions = 1;
          family->head = g_strdup (family->original);
          family->head_activity = g_strdup (activity_time (original));
          family->ids = g_ptr_array_new ();
          g_ptr_array_add (family->ids, (gpointer) natter_session_index_entry_get_session_id (original));
        }
      g_hash_table_insert (self->families, g_strdup (natter_session_index_entry_get_session_id (entry)), family);
      g_ptr_array_add (family->ids, (gpointer) natter_session_index_entry_get_session_id (entry));
      if (!natter_sync_conflict_is_candidate (natter_session_index_entry_get_session_id (entry)) ||
          !copy_shown_elsewhere (versions, entry))
        family->n_versions++;
      /* The most recent activity; equal times go to the later session.
       * Another device's copy (docs/format.md §9) is never the head: it
       * takes no message, and the conversation opens where one can go
       * on. */
      {
        const char *id = natter_session_index_entry_get_session_id (entry);
        const char *activity = activity_time (entry);
        int order = g_strcmp0 (activity, family->head_activity);

        if (!natter_sync_conflict_is_candidate (id) &&
            (order > 0 || (order == 0 && g_strcmp0 (id, family->head) > 0)))
          {
            g_free (family->head);
            g_free (family->head_activity);
            family->head = g_strdup (id);
            family->head_activity = g_strdup (activity);
          }
      }
    }
  return self;
}

/**
 * natter_session_families_free:
 * @self: (transfer full) (nullable): families
 */
void
natter_session_families_free (NatterSessionFamilies *self)
{
  if (self == NULL)
    return;
  /* The values of families belong to originals. */
  g_hash_table_unref (self->families);
  g_hash_table_unref (self->originals);
  g_hash_table_unref (self->members);
  g_free (self);
}

static Family *
lookup (NatterSessionFamilies *self,
        const char            *session_id)
{
  g_return_val_if_fail (self != NULL, NULL);
  return session_id != NULL ? g_hash_table_lookup (self->families, session_id) : NULL;
}

/* A session of the index in no family but its own: @session_id's key in
 * members, or NULL. */
static const char *
lone_member (NatterSessionFamilies *self,
             const char            *session_id)
{
  gpointer key = NULL;

  if (session_id == NULL || !g_hash_table_lookup_extended (self->members, session_id, &key, NULL))
    return NULL;
  return key;
}

/**
 * natter_session_families_get_head:
 * @self: families
 * @session_id: a session of the index
 *
 * Returns: (transfer none) (nullable): the most recently active version
 *   of @session_id's family (@session_id itself when it has no other),
 *   or %NULL for a session the index did not have
 */
const char *
natter_session_families_get_head (NatterSessionFamilies *self,
                                  const char            *session_id)
{
  Family *family = lookup (self, session_id);

  return family != NULL ? family->head : lone_member (self, session_id);
}

/**
 * natter_session_families_dup_members:
 * @self: families
 * @session_id: a session of the index
 *
 * The sessions of @session_id's family that can be written to: the
 * original and its versions, @session_id first, without another device's
 * copies (docs/format.md §9.1: a copy is never written). What the lists
 * show as one conversation is renamed as one (docs/sessions.md §13).
 *
 * Returns: (transfer full): the ids; empty for a session the index did
 *   not have
 */
GStrv
natter_session_families_dup_members (NatterSessionFamilies *self,
                                     const char            *session_id)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  Family *family = lookup (self, session_id);
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  if (family == NULL)
    {
      if (lone_member (self, session_id) != NULL)
        g_strv_builder_add (builder, session_id);
      return g_strv_builder_end (builder);
    }
  g_strv_builder_add (builder, session_id);
  g_hash_table_iter_init (&iter, self->families);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (value == family && g_strcmp0 (key, session_id) != 0 && !natter_sync_conflict_is_candidate (key))
      g_strv_builder_add (builder, key);
  return g_strv_builder_end (builder);
}

/**
 * natter_session_families_find_head_among:
 * @self: families
 * @session_id: a session of the index
 * @accept: which sessions may be shown
 * @user_data: data for @accept
 *
 * The version of @session_id's family that a list showing each family
 * once shows when it may show only the sessions @accept accepts (a
 * search): the head when accepted, else the most recently active one
 * accepted, equal times going to the later session, as for the head.
 * Another device's copy is shown only when no other version is accepted.
 *
 * Returns: (transfer none) (nullable): a session of the family, or %NULL
 *   when @accept accepts none of it (or the index did not have it)
 */
const char *
natter_session_families_find_head_among (NatterSessionFamilies      *self,
                                         const char                 *session_id,
                                         NatterSessionFamiliesAccept accept,
                                         gpointer                    user_data)
{
  Family *family = lookup (self, session_id);
  const char *best = NULL;
  const char *best_activity = NULL;
  gboolean best_copy = FALSE;

  g_return_val_if_fail (accept != NULL, NULL);

  if (family == NULL)
    {
      const char *lone = lone_member (self, session_id);

      return lone != NULL && accept (g_hash_table_lookup (self->members, lone), user_data) ? lone : NULL;
    }
  if (accept (g_hash_table_lookup (self->members, family->head), user_data))
    return family->head;
  for (guint i = 0; i < family->ids->len; i++)
    {
      const char *id = g_ptr_array_index (family->ids, i);
      NatterSessionIndexEntry *entry = g_hash_table_lookup (self->members, id);
      gboolean copy = natter_sync_conflict_is_candidate (id);
      const char *activity = activity_time (entry);
      int order = g_strcmp0 (activity, best_activity);

      if (!accept (entry, user_data))
        continue;
      if (best == NULL || (best_copy && !copy) ||
          (best_copy == copy && (order > 0 || (order == 0 && g_strcmp0 (id, best) > 0))))
        {
          best = id;
          best_activity = activity;
          best_copy = copy;
        }
    }
  return best;
}

/**
 * natter_session_families_get_original:
 * @self: families
 * @session_id: a session of the index
 *
 * Returns: (transfer none) (nullable): the session @session_id's family
 *   started from (@session_id itself when it is not a version of
 *   another), or %NULL for a session the index did not have
 */
const char *
natter_session_families_get_original (NatterSessionFamilies *self,
                                      const char            *session_id)
{
  Family *family = lookup (self, session_id);

  return family != NULL ? family->original : lone_member (self, session_id);
}

/**
 * natter_session_families_get_n_versions:
 * @self: families
 * @session_id: a session of the index
 *
 * Returns: how many sessions @session_id's family has, itself included
 *   (1 without versions; 0 for a session the index did not have)
 */
guint
natter_session_families_get_n_versions (NatterSessionFamilies *self,
                                        const char            *session_id)
{
  Family *family = lookup (self, session_id);

  if (family != NULL)
    return family->n_versions;
  return lone_member (self, session_id) != NULL ? 1 : 0;
}

/**
 * natter_session_families_find_latest:
 * @self: families
 * @session_ids: sessions of the index
 *
 * The one of @session_ids whose family a list showing each family once
 * shows highest: the one whose head was most recently active, equal
 * times going to the later head, as between the versions of a family.
 *
 * Returns: (transfer none) (nullable): an element of @session_ids, or
 *   %NULL when the index has none of them
 */
const char *
natter_session_families_find_latest (NatterSessionFamilies *self,
                                     const char * const    *session_ids)
{
  const char *latest = NULL;
  const char *latest_head = NULL;
  const char *latest_activity = NULL;

  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; session_ids != NULL && session_ids[i] != NULL; i++)
    {
      const char *head = natter_session_families_get_head (self, session_ids[i]);
      NatterSessionIndexEntry *entry = head != NULL ? g_hash_table_lookup (self->members, head) : NULL;
      const char *activity;
      int order;

      if (entry == NULL)
        continue;
      activity = activity_time (entry);
      order = g_strcmp0 (activity, latest_activity);
      if (latest == NULL || order > 0 || (order == 0 && g_strcmp0 (head, latest_head) > 0))
        {
          latest = session_ids[i];
          latest_head = head;
          latest_activity = activity;
        }
    }
  return latest;
}

/**
 * natter_session_families_is_head:
 * @self: families
 * @session_id: a session
 *
 * Returns: whether a list showing each family once shows @session_id:
 *   %TRUE for its family's head and for a session the index did not have
 *   (nothing is known to hide it)
 */
gboolean
natter_session_families_is_head (NatterSessionFamilies *self,
                                 const char            *session_id)
{
  Family *family = lookup (self, session_id);

  return family == NULL || g_strcmp0 (family->head, session_id) == 0;
}

/**
 * natter_session_families_equal_heads:
 * @a: families
 * @b: families
 *
 * Returns: whether @a and @b show the same sessions, with the same
 *   numbers of versions: a list built on @a needs no change for @b.
 *   Sessions without versions are shown by both alike, whether or not
 *   both have them: the list hears of those through the index itself.
 */
gboolean
natter_session_families_equal_heads (NatterSessionFamilies *a,
                                     NatterSessionFamilies *b)
{
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  if (g_hash_table_size (a->families) != g_hash_table_size (b->families))
    return FALSE;
  g_hash_table_iter_init (&iter, a->families);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      Family *fa = value;
      Family *fb = g_hash_table_lookup (b->families, key);

      if (fb == NULL || g_strcmp0 (fa->head, fb->head) != 0 || fa->n_versions != fb->n_versions)
        return FALSE;
    }
  return TRUE;
}
