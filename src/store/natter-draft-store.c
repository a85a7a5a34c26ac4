/* natter-draft-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A draft is not part of any conversation's log: it is what the person
 * has typed and may still change, so it is replaced whole, one small file
 * per conversation, and removed once sent or cleared. What was pasted
 * beside it is in no file of its own: its bytes are kept beside the
 * drafts, by their hash, for as long as a draft names them. Each write goes to
 * a new file renamed over the old one after it reached the disk, so that
 * a crash leaves the previous draft or the new one, never half of one.
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "natter-blob-store.h"
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
  /* The keys whose file the last load could not read: set aside before
   * anything is written or removed in its place (set_aside()). */
  GHashTable *unreadable;
};

G_DEFINE_FINAL_TYPE (NatterDraftStore, natter_draft_store, G_TYPE_OBJECT)

static void
attachment_free (NatterDraftAttachment *attachment)
{
  g_free (attachment->uri);
  g_clear_pointer (&attachment->bytes, g_bytes_unref);
  g_free (attachment->name);
  g_free (attachment->media_type);
  g_free (attachment);
}

/**
 * natter_draft_new:
 * @text: (nullable): the words; %NULL is none, which a draft may have
 *   only with attachments (natter_draft_add_file(),
 *   natter_draft_add_bytes())
 * @edits_turn_id: (nullable): the turn whose message they replace
 * @set_aside: (nullable): with @edits_turn_id, the words the field held
 *   when the edit began; empty is none
 *
 * Returns: (transfer full): a new draft holding copies of the three, and
 *   no attachments yet
 */
NatterDraft *
natter_draft_new (const char *text,
                  const char *edits_turn_id,
                  const char *set_aside)
{
  NatterDraft *draft = g_new0 (NatterDraft, 1);

  draft->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) attachment_free);
  g_return_val_if_fail (set_aside == NULL || set_aside[0] == '\0' || edits_turn_id != NULL, draft);

  draft->text = g_strdup (text != NULL ? text : "");
  draft->edits_turn_id = g_strdup (edits_turn_id);
  draft->set_aside = set_aside != NULL && set_aside[0] != '\0' ? g_strdup (set_aside) : NULL;
  return draft;
}

/**
 * natter_draft_copy:
 * @draft: a draft
 *
 * Returns: (transfer full): a copy of @draft, its attachments included
 *   (pasted bytes shared, they never change)
 */
NatterDraft *
natter_draft_copy (const NatterDraft *draft)
{
  NatterDraft *copy;

  g_return_val_if_fail (draft != NULL, NULL);

  copy = natter_draft_new (draft->text, draft->edits_turn_id, draft->set_aside);
  for (guint i = 0; i < draft->attachments->len; i++)
    {
      NatterDraftAttachment *attachment = g_ptr_array_index (draft->attachments, i);

      if (attachment->uri != NULL)
        natter_draft_add_file (copy, attachment->uri);
      else
        natter_draft_add_bytes (copy, attachment->bytes, attachment->name, attachment->media_type);
    }
  return copy;
}

/**
 * natter_draft_add_file:
 * @draft: a draft
 * @uri: the URI of a file attached from the disk (g_file_get_uri())
 *
 * Adds a file to those waiting beside the draft's words; only its URI is
 * kept, and the file is read when the message is sent.
 */
void
natter_draft_add_file (NatterDraft *draft,
                       const char  *uri)
{
  NatterDraftAttachment *attachment;

  g_return_if_fail (draft != NULL);
  g_return_if_fail (uri != NULL && uri[0] != '\0');

  attachment = g_new0 (NatterDraftAttachment, 1);
  attachment->uri = g_strdup (uri);
  g_ptr_array_add (draft->attachments, attachment);
}

/**
 * natter_draft_add_bytes:
 * @draft: a draft
 * @bytes: what was pasted (a reference is taken)
 * @name: the name it is sent with, not empty
 * @media_type: its media type, not empty
 *
 * Adds pasted content to the files waiting beside the draft's words: it
 * is in no file of its own, so the store keeps its bytes beside the
 * draft (docs/format.md §10).
 */
void
natter_draft_add_bytes (NatterDraft *draft,
                        GBytes      *bytes,
                        const char  *name,
                        const char  *media_type)
{
  NatterDraftAttachment *attachment;

  g_return_if_fail (draft != NULL);
  g_return_if_fail (bytes != NULL);
  g_return_if_fail (name != NULL && name[0] != '\0');
  g_return_if_fail (media_type != NULL && media_type[0] != '\0');

  attachment = g_new0 (NatterDraftAttachment, 1);
  attachment->bytes = g_bytes_ref (bytes);
  attachment->name = g_strdup (name);
  attachment->media_type = g_strdup (media_type);
  g_ptr_array_add (draft->attachments, attachment);
}

static gboolean
attachment_equal (const NatterDraftAttachment *a,
                  const NatterDraftAttachment *b)
{
  if (a->uri != NULL || b->uri != NULL)
    return g_strcmp0 (a->uri, b->uri) == 0;
  return g_str_equal (a->name, b->name) && g_str_equal (a->media_type, b->media_type) &&
         g_bytes_equal (a->bytes, b->bytes);
}

/**
 * natter_draft_equal:
 * @a: (nullable): a draft
 * @b: (nullable): a draft
 *
 * Returns: whether @a and @b hold the same words for the same turn, with
 *   the same attachments in the same order (two %NULL are equal)
 */
gboolean
natter_draft_equal (const NatterDraft *a,
                    const NatterDraft *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (g_strcmp0 (a->text, b->text) != 0 || g_strcmp0 (a->edits_turn_id, b->edits_turn_id) != 0 ||
      g_strcmp0 (a->set_aside, b->set_aside) != 0 || a->attachments->len != b->attachments->len)
    return FALSE;
  for (guint i = 0; i < a->attachments->len; i++)
    if (!attachment_equal (g_ptr_array_index (a->attachments, i), g_ptr_array_index (b->attachments, i)))
      return FALSE;
  return TRUE;
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
  g_ptr_array_unref (draft->attachments);
  g_free (draft);
}

static void
natter_draft_store_finalize (GObject *object)
{
  NatterDraftStore *self = NATTER_DRAFT_STORE (object);

  g_clear_object (&self->dir);
  g_clear_error (&self->refusal);
  g_clear_pointer (&self->unreadable, g_hash_table_unref);

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
  self->unreadable = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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

/* What is pasted beside a draft is kept in this folder of the drafts
 * folder, one file per content, named by its SHA-256 in hex as a blob is
 * (natter_blob_hash_is_valid()). */
#define PASTED_DIR "pasted"

static char *
pasted_path (NatterDraftStore *self,
             const char       *hash)
{
  return g_build_filename (g_file_peek_path (self->dir), PASTED_DIR, hash, NULL);
}

/* The pasted content named @hash, checked against its name: a file
 * changed or cut short is no longer what was pasted. */
static GBytes *
read_pasted (NatterDraftStore  *self,
             const char        *hash,
             GError           **error)
{
  g_autofree char *path = pasted_path (self, hash);
  g_autofree char *contents = NULL;
  g_autofree char *sum = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  sum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
  if (!g_str_equal (sum, hash))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                   "“%s” is not what was pasted: its bytes changed", path);
      return NULL;
    }
  return g_bytes_new_take (g_steal_pointer (&contents), length);
}

/* Checks the attachments of the draft @object, adding the object of
 * each to @parsed (may be %NULL); %FALSE with an error when they are no
 * list of attachments as docs/format.md §10 has them. */
static gboolean
parse_attachments (JsonObject  *object,
                   GPtrArray   *parsed,
                   GError     **error)
{
  JsonNode *node = json_object_get_member (object, "attachments");
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, "“attachments” is not a list");
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *item;
      const char *uri = NULL;
      const char *hash = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, "attachment %u is not an object", i + 1);
          return FALSE;
        }
      item = json_node_get_object (element);
      if (!natter_json_optional_string (item, "uri", &uri, error) ||
          !natter_json_optional_string (item, "pasted", &hash, error))
        return FALSE;
      if ((uri == NULL) == (hash == NULL))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                       "attachment %u has neither “uri” nor “pasted”, or both", i + 1);
          return FALSE;
        }
      if (uri != NULL && g_uri_peek_scheme (uri) == NULL)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                       "attachment %u: “%s” is no URI", i + 1, uri);
          return FALSE;
        }
      if (hash != NULL &&
          (!natter_blob_hash_is_valid (hash) || natter_json_require_nonempty_string (item, "name", error) == NULL ||
           natter_json_require_nonempty_string (item, "mediaType", error) == NULL))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                         "attachment %u: “pasted” is no SHA-256 in hex", i + 1);
          return FALSE;
        }
      if (parsed != NULL)
        g_ptr_array_add (parsed, item);
    }
  return TRUE;
}

/* The draft in @contents, read from the file @name, with the content
 * pasted beside it; %NULL with %NATTER_STORE_ERROR_MALFORMED when it is
 * not one, or its pasted content cannot be read. */
static NatterDraft *
parse_draft (NatterDraftStore  *self,
             const char        *name,
             const char        *contents,
             gsize              length,
             GError           **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = natter_json_parse (contents, length, &local_error);
  g_autoptr(GPtrArray) attachments = g_ptr_array_new ();
  g_autoptr(NatterDraft) draft = NULL;
  JsonObject *object;
  const char *text = NULL;
  const char *edits = NULL;
  const char *set_aside = NULL;

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    goto malformed;
  object = json_node_get_object (root);
  if (!natter_json_optional_string (object, "text", &text, &local_error) ||
      !natter_json_optional_string (object, "editsTurnId", &edits, &local_error) ||
      (edits != NULL && !natter_id_validate (edits, &local_error)) ||
      !natter_json_optional_string (object, "setAside", &set_aside, &local_error) ||
      !parse_attachments (object, attachments, &local_error))
    goto malformed;
  /* Words, or files to send: an empty draft is none. */
  if (text == NULL || (text[0] == '\0' && attachments->len == 0))
    {
      g_set_error_literal (&local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                           text == NULL ? "it has no “text”" : "“text” is empty and nothing is attached");
      goto malformed;
    }
  /* Words set aside belong to an edit, and are words. */
  if (set_aside != NULL && (set_aside[0] == '\0' || edits == NULL))
    {
      g_set_error_literal (&local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                           set_aside[0] == '\0' ? "“setAside” is empty" : "“setAside” is there without “editsTurnId”");
      goto malformed;
    }
  draft = natter_draft_new (text, edits, set_aside);
  for (guint i = 0; i < attachments->len; i++)
    {
      JsonObject *item = g_ptr_array_index (attachments, i);
      const char *hash = json_object_get_string_member_with_default (item, "pasted", NULL);
      g_autoptr(GBytes) bytes = NULL;

      if (hash == NULL)
        {
          natter_draft_add_file (draft, json_object_get_string_member (item, "uri"));
          continue;
        }
      if ((bytes = read_pasted (self, hash, &local_error)) == NULL)
        goto malformed;
      natter_draft_add_bytes (draft, bytes, json_object_get_string_member (item, "name"),
                              json_object_get_string_member (item, "mediaType"));
    }
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

  g_hash_table_remove_all (self->unreadable);
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
          (draft = parse_draft (self, g_file_peek_path (file), contents, length, &error)) == NULL)
        {
          if (problems != NULL)
            g_ptr_array_add (problems, g_steal_pointer (&error));
          g_clear_error (&error);
          g_hash_table_add (self->unreadable, g_steal_pointer (&key));
          continue;
        }
      g_hash_table_replace (drafts, g_steal_pointer (&key), draft);
    }
  if (error != NULL && problems != NULL)
    g_ptr_array_add (problems, g_steal_pointer (&error));
  return g_steal_pointer (&drafts);
}

/* Removes the content pasted beside drafts that no draft names any
 * more (its draft sent, cleared, or written without it; or a write cut
 * short by a crash). Nothing goes while some file of the folder that
 * may be a draft (one set aside included) cannot be read: it may name
 * what would go. */
static void
sweep_pasted (NatterDraftStore *self)
{
  g_autofree char *folder = g_build_filename (g_file_peek_path (self->dir), PASTED_DIR, NULL);
  g_autoptr(GHashTable) named = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GDir) drafts = NULL;
  g_autoptr(GDir) pasted = NULL;
  const char *name;

  if ((pasted = g_dir_open (folder, 0, NULL)) == NULL ||
      (drafts = g_dir_open (g_file_peek_path (self->dir), 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (drafts)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *contents = NULL;
      g_autoptr(JsonNode) root = NULL;
      g_autoptr(GPtrArray) attachments = g_ptr_array_new ();
      gsize length = 0;

      /* Every file that may be a draft counts, one set aside too. */
      if (!g_str_has_suffix (name, SUFFIX))
        continue;
      path = g_build_filename (g_file_peek_path (self->dir), name, NULL);
      if (!g_file_get_contents (path, &contents, &length, NULL) ||
          (root = natter_json_parse (contents, length, NULL)) == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
          !parse_attachments (json_node_get_object (root), attachments, NULL))
        return;
      for (guint i = 0; i < attachments->len; i++)
        {
          const char *hash = json_object_get_string_member_with_default (g_ptr_array_index (attachments, i),
                                                                         "pasted", NULL);

          if (hash != NULL)
            g_hash_table_add (named, g_strdup (hash));
        }
    }
  while ((name = g_dir_read_name (pasted)) != NULL)
    {
      /* A write cut short leaves "<hash>.XXXXXX". */
      g_autofree char *hash = g_strndup (name, 64);
      g_autofree char *path = NULL;

      if (!natter_blob_hash_is_valid (hash) || g_hash_table_contains (named, name))
        continue;
      path = g_build_filename (folder, name, NULL);
      if (g_unlink (path) != 0)
        g_message ("“%s”, pasted beside a draft no more, could not be removed: %s", path, g_strerror (errno));
    }
}

/* Keeps the bytes of each pasted attachment of @draft, by their hash;
 * @hashes gets the hash of each attachment (%NULL for a file's). */
static gboolean
keep_pasted (NatterDraftStore   *self,
             const NatterDraft  *draft,
             GPtrArray          *hashes,
             GError            **error)
{
  for (guint i = 0; i < draft->attachments->len; i++)
    {
      NatterDraftAttachment *attachment = g_ptr_array_index (draft->attachments, i);
      g_autofree char *hash = NULL;
      g_autofree char *path = NULL;
      const char *data;
      gsize size = 0;
      GStatBuf st;

      if (attachment->bytes == NULL)
        {
          g_ptr_array_add (hashes, NULL);
          continue;
        }
      data = g_bytes_get_data (attachment->bytes, &size);
      hash = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) data, size);
      path = pasted_path (self, hash);
      /* The same content is the same file, written once; one whose size
       * changed is no longer that content, and is written again. */
      if ((g_stat (path, &st) != 0 || (gsize) st.st_size != size) &&
          !g_file_set_contents_full (path, data != NULL ? data : "", size,
                                     G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0600, error))
        return FALSE;
      g_ptr_array_add (hashes, g_steal_pointer (&hash));
    }
  return TRUE;
}

/* A draft file the last load could not read is never written over nor
 * removed: before anything takes its place, it is renamed
 * `<stem>.unreadable.json` (or `-2`, `-3`… when taken), which a load
 * tells as no draft of Natter's, byte for byte as it was. */
static gboolean
set_aside (NatterDraftStore  *self,
           const char        *key,
           GFile             *file,
           GError           **error)
{
  const char *path = g_file_peek_path (file);
  g_autofree char *stem = NULL;

  if (!g_hash_table_contains (self->unreadable, key) || !g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  stem = g_strndup (path, strlen (path) - strlen (SUFFIX));
  for (guint n = 1; n < 1000; n++)
    {
      g_autofree char *aside = n == 1 ? g_strconcat (stem, ".unreadable" SUFFIX, NULL)
                                      : g_strdup_printf ("%s.unreadable-%u" SUFFIX, stem, n);

      if (g_file_test (aside, G_FILE_TEST_EXISTS))
        continue;
      if (g_rename (path, aside) != 0)
        {
          int saved = errno;

          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                       "The draft in “%s”, which cannot be read, could not be kept aside as “%s”: %s", path,
                       aside, g_strerror (saved));
          return FALSE;
        }
      g_hash_table_remove (self->unreadable, key);
      return TRUE;
    }
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
               "The draft in “%s”, which cannot be read, could not be kept aside: too many are", path);
  return FALSE;
}

/**
 * natter_draft_store_save_sync:
 * @self: the store
 * @key: a session id, or %NATTER_DRAFT_NEW_CHAT
 * @draft: (nullable): what waits in that conversation's message field;
 *   %NULL, or no words and no attachments, removes the draft
 * @error: return location for a #GError
 *
 * Keeps @draft as the draft of @key, in place of any draft kept before
 * (docs/format.md §10): the content pasted beside it first, then the
 * draft written whole to a new file, flushed to the disk and renamed over
 * the old one, readable by this user only; or removes the draft. Pasted
 * content no draft names any more goes after. A draft file of @key that
 * natter_draft_store_load_sync() could not read is renamed aside first,
 * never written over nor removed. Blocks on the disk for a
 * few small files (and what was pasted, once).
 *
 * Returns: %TRUE once the draft is kept (or gone); %FALSE with
 *   %NATTER_STORE_ERROR_INVALID_ID for a @key or an edited turn id that
 *   is no id, the refusal of natter_draft_store_refuse_writes(), or a
 *   #G_FILE_ERROR or #G_IO_ERROR of the disk
 */
gboolean
natter_draft_store_save_sync (NatterDraftStore   *self,
                              const char         *key,
                              const NatterDraft  *draft,
                              GError            **error)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GPtrArray) hashes = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *contents = NULL;
  g_autofree char *pasted_dir = NULL;
  gsize length = 0;
  gboolean kept;

  g_return_val_if_fail (NATTER_IS_DRAFT_STORE (self), FALSE);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (draft == NULL || draft->set_aside == NULL || draft->edits_turn_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->refusal != NULL)
    {
      g_propagate_error (error, g_error_copy (self->refusal));
      return FALSE;
    }
  if ((file = draft_file (self, key, error)) == NULL ||
      (draft != NULL && draft->edits_turn_id != NULL && !natter_id_validate (draft->edits_turn_id, error)) ||
      !set_aside (self, key, file, error))
    return FALSE;
  if (draft == NULL || (draft->text[0] == '\0' && draft->attachments->len == 0))
    {
      g_autoptr(GError) local_error = NULL;

      if (!g_file_delete (file, NULL, &local_error) && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      sweep_pasted (self);
      return TRUE;
    }

  pasted_dir = g_build_filename (g_file_peek_path (self->dir), PASTED_DIR, NULL);
  if (g_mkdir_with_parents (draft->attachments->len > 0 ? pasted_dir : g_file_peek_path (self->dir), 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "The drafts folder “%s” cannot be made: %s",
                   g_file_peek_path (self->dir), g_strerror (saved));
      return FALSE;
    }
  if (!keep_pasted (self, draft, hashes, error))
    return FALSE;

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, draft->text);
  if (draft->edits_turn_id != NULL)
    {
      json_builder_set_member_name (builder, "editsTurnId");
      json_builder_add_string_value (builder, draft->edits_turn_id);
    }
  if (draft->set_aside != NULL)
    {
      json_builder_set_member_name (builder, "setAside");
      json_builder_add_string_value (builder, draft->set_aside);
    }
  if (draft->attachments->len > 0)
    {
      json_builder_set_member_name (builder, "attachments");
      json_builder_begin_array (builder);
      for (guint i = 0; i < draft->attachments->len; i++)
        {
          NatterDraftAttachment *attachment = g_ptr_array_index (draft->attachments, i);

          json_builder_begin_object (builder);
          if (attachment->uri != NULL)
            {
              json_builder_set_member_name (builder, "uri");
              json_builder_add_string_value (builder, attachment->uri);
            }
          else
            {
              json_builder_set_member_name (builder, "pasted");
              json_builder_add_string_value (builder, g_ptr_array_index (hashes, i));
              json_builder_set_member_name (builder, "name");
              json_builder_add_string_value (builder, attachment->name);
              json_builder_set_member_name (builder, "mediaType");
              json_builder_add_string_value (builder, attachment->media_type);
            }
          json_builder_end_object (builder);
        }
      json_builder_end_array (builder);
    }
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  contents = natter_json_to_text (root, FALSE, &length);

  kept = g_file_set_contents_full (g_file_peek_path (file), contents, length,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0600, error);
  if (kept)
    sweep_pasted (self);
  return kept;
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
