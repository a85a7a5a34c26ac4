/* natter-draft-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A draft is not part of any conversation's log: it is what the person
 * has typed and may still change, so it is replaced whole, one small file
 * per conversation, and removed once sent or cleared. Each write goes to
 * a new file renamed over the old one after it reached the disk, so that
 * a crash leaves the previous draft or the new one, never half of one.
 */

#include "config.h"

#include <glib/gstdio.h>

#include "natter-draft-store.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-store-error.h"

/* The file name of the draft kept under NATTER_DRAFT_NEW_CHAT: no id
 * has this shape, so it cannot be a conversation's. */
#define NEW_CHAT_STEM "new-chat"
#define SUFFIX        ".json"

struct _NatterDraftStore
{
  GObject  parent_instance;

  GFile   *dir;
  GError  *refusal;   /* nullable: natter_draft_store_refuse_writes() */
};

G_DEFINE_FINAL_TYPE (NatterDraftStore, natter_draft_store, G_TYPE_OBJECT)

/**
 * natter_draft_new:
 * @text: the words, not empty
 * @edits_turn_id: (nullable): the turn whose message they replace
 * @set_aside: (nullable): with @edits_turn_id, the words the field held
 *   when the edit began; empty is none
 *
 * Returns: (transfer full): a new draft holding copies of the three
 */
NatterDraft *
natter_draft_new (const char *text,
                  const char *edits_turn_id,
                  const char *set_aside)
{
  NatterDraft *draft = g_new0 (NatterDraft, 1);

  g_return_val_if_fail (text != NULL && text[0] != '\0', draft);
  g_return_val_if_fail (set_aside == NULL || set_aside[0] == '\0' || edits_turn_id != NULL, draft);

  draft->text = g_strdup (text);
  draft->edits_turn_id = g_strdup (edits_turn_id);
  draft->set_aside = set_aside != NULL && set_aside[0] != '\0' ? g_strdup (set_aside) : NULL;
  return draft;
}

/**
 * natter_draft_equal:
 * @a: (nullable): a draft
 * @b: (nullable): a draft
 *
 * Returns: whether @a and @b hold the same words for the same turn (two
 *   %NULL are equal)
 */
gboolean
natter_draft_equal (const NatterDraft *a,
                    const NatterDraft *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  return g_strcmp0 (a->text, b->text) == 0 && g_strcmp0 (a->edits_turn_id, b->edits_turn_id) == 0 &&
         g_strcmp0 (a->set_aside, b->set_aside) == 0;
}

/**
 * natter_draft_free:
 * @draft: (transfer full) (nullable): a draft
 */
void
natter_draft_free (NatterDraft *draft)
{
  if (draft == NULL)
    return;
  g_free (draft->text);
  g_free (draft->edits_turn_id);
  g_free (draft->set_aside);
  g_free (draft);
}

static void
natter_draft_store_finalize (GObject *object)
{
  NatterDraftStore *self = NATTER_DRAFT_STORE (object);

  g_clear_object (&self->dir);
  g_clear_error (&self->refusal);

  G_OBJECT_CLASS (natter_draft_store_parent_class)->finalize (object);
}

static void
natter_draft_store_class_init (NatterDraftStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_draft_store_finalize;
}

static void
natter_draft_store_init (NatterDraftStore *self)
{
}

/**
 * natter_draft_store_new:
 * @data_dir: the data directory (docs/format.md §1)
 *
 * The drafts kept in @data_dir's `drafts` folder (docs/format.md §10).
 * Nothing is read or made until asked.
 *
 * Returns: (transfer full): a new #NatterDraftStore
 */
NatterDraftStore *
natter_draft_store_new (GFile *data_dir)
{
  NatterDraftStore *self;

  g_return_val_if_fail (G_IS_FILE (data_dir), NULL);

  self = g_object_new (NATTER_TYPE_DRAFT_STORE, NULL);
  self->dir = g_file_get_child (data_dir, NATTER_DRAFTS_DIR_NAME);
  return self;
}

/* The file a draft kept under @key is in, or %NULL with
 * %NATTER_STORE_ERROR_INVALID_ID when @key is neither an id nor the new
 * chat's key: the key becomes a file name, so nothing else may. */
static GFile *
draft_file (NatterDraftStore  *self,
            const char        *key,
            GError           **error)
{
  g_autofree char *name = NULL;

  if (g_strcmp0 (key, NATTER_DRAFT_NEW_CHAT) == 0)
    return g_file_get_child (self->dir, NEW_CHAT_STEM SUFFIX);
  if (!natter_id_validate (key, error))
    return NULL;
  name = g_strconcat (key, SUFFIX, NULL);
  return g_file_get_child (self->dir, name);
}

/* The draft in @contents, read from the file @name; %NULL with
 * %NATTER_STORE_ERROR_MALFORMED when it is not one. */
static NatterDraft *
parse_draft (const char  *name,
             const char  *contents,
             gsize        length,
             GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = natter_json_parse (contents, length, &local_error);
  g_autoptr(NatterDraft) draft = g_new0 (NatterDraft, 1);
  const char *text;
  const char *edits = NULL;
  const char *set_aside = NULL;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto malformed;
  text = natter_json_require_nonempty_string (json_node_get_object (root), "text", &local_error);
  if (text == NULL ||
      !natter_json_optional_string (json_node_get_object (root), "editsTurnId", &edits, &local_error) ||
      (edits != NULL && !natter_id_validate (edits, &local_error)) ||
      !natter_json_optional_string (json_node_get_object (root), "setAside", &set_aside, &local_error))
    goto malformed;
  /* Words set aside belong to an edit, and are words. */
  if (set_aside != NULL && (set_aside[0] == '\0' || edits == NULL))
    {
      g_set_error_literal (&local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                           set_aside[0] == '\0' ? "“setAside” is empty" : "“setAside” is there without “editsTurnId”");
      goto malformed;
    }
  draft->text = g_strdup (text);
  draft->edits_turn_id = g_strdup (edits);
  draft->set_aside = g_strdup (set_aside);
  return g_steal_pointer (&draft);

malformed:
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
               "The draft in “%s” cannot be read: %s", name,
               local_error != NULL ? local_error->message : "it is not a JSON object");
  return NULL;
}

/* The key of the draft file @name, or %NULL when @name is no draft's
 * file name. */
static char *
key_of (const char *name)
{
  g_autofree char *stem = NULL;

  if (!g_str_has_suffix (name, SUFFIX))
    return NULL;
  stem = g_strndup (name, strlen (name) - strlen (SUFFIX));
  if (g_str_equal (stem, NEW_CHAT_STEM))
    return g_strdup (NATTER_DRAFT_NEW_CHAT);
  if (!natter_id_validate (stem, NULL))
    return NULL;
  return g_steal_pointer (&stem);
}

/**
 * natter_draft_store_load_sync:
 * @self: the store
 * @problems: (element-type GError) (nullable): where a #GError is added
 *   for each file of the drafts folder that is no draft Natter can read
 *
 * Reads every draft kept (docs/format.md §10). A file that cannot be
 * read, or is not a draft, stays as it is on disk and is told in
 * @problems (its path in the message), so that a front end can say so:
 * nothing in it is lost, nor silently passed over. The files a write cut
 * short leaves beside the drafts (`<name>.json.XXXXXX`) are not drafts:
 * the draft they were to replace is still whole.
 *
 * Blocks on the disk: the folder holds a few small files.
 *
 * Returns: (transfer full) (element-type utf8 NatterDraft): the drafts
 *   by key (a session id, or %NATTER_DRAFT_NEW_CHAT); empty when there
 *   are none, also when the folder does not exist
 */
GHashTable *
natter_draft_store_load_sync (NatterDraftStore *self,
                              GPtrArray        *problems)
{
  g_autoptr(GHashTable) drafts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify) natter_draft_free);
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) error = NULL;
  GFileInfo *info;

  g_return_val_if_fail (NATTER_IS_DRAFT_STORE (self), NULL);

  children = g_file_enumerate_children (self->dir, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, &error);
  if (children == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && problems != NULL)
        g_ptr_array_add (problems, g_steal_pointer (&error));
      return g_steal_pointer (&drafts);
    }
  while ((info = g_file_enumerator_next_file (children, NULL, &error)) != NULL)
    {
      g_autoptr(GFileInfo) owned = info;
      const char *name = g_file_info_get_name (info);
      g_autofree char *key = key_of (name);
      g_autoptr(GFile) file = g_file_get_child (self->dir, name);
      g_autofree char *contents = NULL;
      gsize length = 0;
      NatterDraft *draft;

      if (key == NULL)
        {
          /* A name that ends like a draft's but is none of Natter's. */
          if (g_str_has_suffix (name, SUFFIX) && problems != NULL)
            g_ptr_array_add (problems, g_error_new (NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                                                    "“%s” in the drafts folder is no draft of Natter’s: "
                                                    "its name is neither a conversation’s id nor “%s”",
                                                    g_file_peek_path (file), NEW_CHAT_STEM SUFFIX));
          continue;
        }
      if (!g_file_load_contents (file, NULL, &contents, &length, NULL, &error) ||
          (draft = parse_draft (g_file_peek_path (file), contents, length, &error)) == NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_steal_pointer (&error));
          g_clear_error (&error);
          continue;
        }
      g_hash_table_replace (drafts, g_steal_pointer (&key), draft);
    }
  if (error != NULL && problems != NULL)
    g_ptr_array_add (problems, g_steal_pointer (&error));
  return g_steal_pointer (&drafts);
}

/**
 * natter_draft_store_save_sync:
 * @self: the store
 * @key: a session id, or %NATTER_DRAFT_NEW_CHAT
 * @text: (nullable): the words waiting in that conversation's message
 *   field; %NULL or empty removes the draft
 * @edits_turn_id: (nullable): the turn whose message @text replaces, for
 *   an edit of a sent message
 * @set_aside: (nullable): with @edits_turn_id only: the words the field
 *   held when that edit began; %NULL or empty is none
 * @error: return location for a #GError
 *
 * Keeps @text as the draft of @key, in place of any draft kept before
 * (docs/format.md §10): written whole to a new file, flushed to the disk
 * and renamed over the old one, readable by this user only; or removes
 * the draft. Blocks on the disk for one small file.
 *
 * Returns: %TRUE once the draft is kept (or gone); %FALSE with
 *   %NATTER_STORE_ERROR_INVALID_ID for a @key or @edits_turn_id that is
 *   no id, the refusal of natter_draft_store_refuse_writes(), or a
 *   #G_FILE_ERROR or #G_IO_ERROR of the disk
 */
gboolean
natter_draft_store_save_sync (NatterDraftStore  *self,
                              const char        *key,
                              const char        *text,
                              const char        *edits_turn_id,
                              const char        *set_aside,
                              GError           **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *contents = NULL;
  gsize length = 0;

  g_return_val_if_fail (NATTER_IS_DRAFT_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (set_aside == NULL || set_aside[0] == '\0' || edits_turn_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->refusal != NULL)
    {
      g_propagate_error (error, g_error_copy (self->refusal));
      return FALSE;
    }
  if ((file = draft_file (self, key, error)) == NULL ||
      (edits_turn_id != NULL && !natter_id_validate (edits_turn_id, error)))
    return FALSE;
  if (text == NULL || text[0] == '\0')
    {
      g_autoptr(GError) local_error = NULL;

      if (!g_file_delete (file, NULL, &local_error) && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      return TRUE;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  if (edits_turn_id != NULL)
    {
      json_builder_set_member_name (builder, "editsTurnId");
      json_builder_add_string_value (builder, edits_turn_id);
    }
  if (set_aside != NULL && set_aside[0] != '\0')
    {
      json_builder_set_member_name (builder, "setAside");
      json_builder_add_string_value (builder, set_aside);
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  contents = natter_json_to_text (root, FALSE, &length);

  if (g_mkdir_with_parents (g_file_peek_path (self->dir), 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "The drafts folder “%s” cannot be made: %s",
                   g_file_peek_path (self->dir), g_strerror (saved));
      return FALSE;
    }
  return g_file_set_contents_full (g_file_peek_path (file), contents, length,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0600, error);
}

/**
 * natter_draft_store_refuse_writes:
 * @self: the store
 * @refusal: (nullable): why this process writes nothing in the data
 *   directory (docs/sessions.md §8.3); %NULL once it may
 *
 * Makes natter_draft_store_save_sync() fail with a copy of @refusal, or
 * lifts that: a process that does not hold the data directory's writer
 * lock leaves the drafts to the one that does.
 */
void
natter_draft_store_refuse_writes (NatterDraftStore *self,
                                  const GError     *refusal)
{
  g_return_if_fail (NATTER_IS_DRAFT_STORE (self));

  g_clear_error (&self->refusal);
  if (refusal != NULL)
    self->refusal = g_error_copy (refusal);
}
