/* natter-blob-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Attachments are stored once, by content, beside the logs:
 * `storage/blobs/sha256/<first 2 hex>/<64 hex>` (docs/format.md §1). A
 * blob is immutable like a log line: it is written whole to a temporary
 * file and link()ed into place, so a kill at any moment leaves either no
 * blob or a whole one under its hash, never a short file named by a hash
 * it does not have. Reads check the hash: a blob whose bytes changed is
 * reported, never sent. Nothing here deletes a blob; a blob no turn
 * references (a send that died before its turn was written) is benign,
 * exactly like an orphan turn file (docs/sessions.md §7).
 */

#define G_LOG_DOMAIN "natter-blob-store"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-blob-store.h"
#include "natter-write-refusal.h"
#include "natter-fd-private.h"
#include "natter-json.h"
#include "natter-store-error.h"
#include "natter-sync-folder.h"
#include "natter-store-temp.h"

struct _NatterBlobStore
{
  GObject  parent_instance;

  char    *storage_path;   /* <data dir>/storage */
  char    *root;           /* <storage>/blobs/sha256 */
  /* natter_blob_store_check_whole_sync(): the blobs whose bytes were
   * hashed and matched, each with the file's identity then (a
   * FileIdentity), so that an unchanged file is not hashed again. Any
   * thread may ask: the lock guards the table. */
  GMutex      lock;
  GHashTable *whole;
  /* Why this process writes no blob (natter_blob_store_refuse_writes()). */
  NatterWriteRefusal write_refusal;
};

/* What stat() says of a blob's file: the same values mean the same
 * bytes, short of a change that also kept its modification and status
 * change times to the nanosecond. */
typedef struct
{
  dev_t  dev;
  ino_t  ino;
  off_t  size;
  struct timespec mtime;
  struct timespec ctime;
} FileIdentity;

G_DEFINE_FINAL_TYPE (NatterBlobStore, natter_blob_store, G_TYPE_OBJECT)

static void
natter_blob_store_finalize (GObject *object)
{
  NatterBlobStore *self = NATTER_BLOB_STORE (object);

  g_free (self->storage_path);
  g_free (self->root);
  g_hash_table_unref (self->whole);
  g_mutex_clear (&self->lock);
  natter_write_refusal_clear (&self->write_refusal);
  G_OBJECT_CLASS (natter_blob_store_parent_class)->finalize (object);
}

static void
natter_blob_store_class_init (NatterBlobStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_blob_store_finalize;
}

static void
natter_blob_store_init (NatterBlobStore *self)
{
  g_mutex_init (&self->lock);
  self->whole = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * natter_blob_store_new:
 * @storage_dir: the `storage` folder of the data directory
 *
 * The content-addressed store of attachments under
 * `@storage_dir/blobs/sha256` (docs/format.md §1). Nothing is created
 * until the first blob is put.
 *
 * Returns: (transfer full): a new blob store
 */
NatterBlobStore *
natter_blob_store_new (GFile *storage_dir)
{
  NatterBlobStore *self;

  g_return_val_if_fail (G_IS_FILE (storage_dir), NULL);

  self = g_object_new (NATTER_TYPE_BLOB_STORE, NULL);
  self->storage_path = g_file_get_path (storage_dir);
  self->root = g_build_filename (self->storage_path, "blobs", "sha256", NULL);
  return self;
}

/**
 * natter_blob_store_refuse_writes:
 * @self: the blob store
 * @reason: (transfer none) (nullable): why this process may not write,
 *   e.g. %NATTER_SESSION_ERROR_LOCKED when another process holds the data
 *   directory's single-writer lock (architecture.md, "Process and
 *   data"); %NULL when it may write again
 *
 * Makes @self read only, as natter_jsonl_repo_refuse_writes() does a
 * repository: every put and every removal of leftover temporary files
 * fails with a copy of @reason and touches no file; reads go on. Call it
 * from the main thread; while one reason holds, another is ignored.
 */
void
natter_blob_store_refuse_writes (NatterBlobStore *self,
                                 const GError    *reason)
{
  g_return_if_fail (NATTER_IS_BLOB_STORE (self));

  natter_write_refusal_set (&self->write_refusal, reason);
}

/**
 * natter_blob_hash_is_valid:
 * @sha256: (nullable): a string
 *
 * Whether @sha256 is a blob's name: exactly 64 lowercase hexadecimal
 * digits. Hashes are built into paths, so nothing else is accepted.
 *
 * Returns: %TRUE if valid
 */
gboolean
natter_blob_hash_is_valid (const char *sha256)
{
  if (sha256 == NULL || strlen (sha256) != 64)
    return FALSE;
  for (guint i = 0; i < 64; i++)
    if (!g_ascii_isdigit (sha256[i]) && !(sha256[i] >= 'a' && sha256[i] <= 'f'))
      return FALSE;
  return TRUE;
}

/**
 * natter_blob_store_dup_path:
 * @self: the blob store
 * @sha256: a valid hash (natter_blob_hash_is_valid())
 *
 * Returns: (transfer full) (nullable): the path of the blob (whether it
 *   exists or not), or %NULL when @sha256 is not a valid hash
 */
char *
natter_blob_store_dup_path (NatterBlobStore *self,
                            const char      *sha256)
{
  char prefix[3];

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), NULL);

  if (!natter_blob_hash_is_valid (sha256))
    return NULL;
  memcpy (prefix, sha256, 2);
  prefix[2] = '\0';
  return g_build_filename (self->root, prefix, sha256, NULL);
}

/* natter_blob_store_dup_path() of a hash a caller gave, which may be
 * anything: %NULL with %NATTER_STORE_ERROR_INVALID_ID when it is not a
 * hash. */
static char *
dup_checked_path (NatterBlobStore  *self,
                  const char       *sha256,
                  GError          **error)
{
  if (!natter_blob_hash_is_valid (sha256))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID,
                   "“%s” is not a SHA-256 hash", sha256 != NULL ? sha256 : "(null)");
      return NULL;
    }
  return natter_blob_store_dup_path (self, sha256);
}

static gboolean
make_private_dir (const char  *path,
                  GError     **error)
{
  if (g_mkdir (path, 0700) == 0)
    return TRUE;
  if (errno == EEXIST && g_file_test (path, G_FILE_TEST_IS_DIR))
    return TRUE;
  return natter_store_set_io_error (error, errno == EEXIST ? ENOTDIR : errno, "create the directory", path);
}

static char *
hash_bytes (GBytes *bytes)
{
  return g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);
}

static gboolean
write_through_temp (const char  *dir,
                     const char  *path,
                     const char  *sha256,
                     GBytes      *bytes,
                     gboolean    *out_exists,
                     GError     **error)
{
  g_autofree char *temp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, sha256);
  gsize length;
  const guint8 *data = g_bytes_get_data (bytes, &length);
  int saved_errno;
  gboolean linked;
  int fd;

  *out_exists = FALSE;
  fd = g_mkstemp_full (temp_path, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return natter_store_set_io_error (error, errno, "create", temp_path);
  if (fchmod (fd, 0600) < 0 || !natter_fd_write_all (fd, data, length) || fsync (fd) < 0)
    {
      saved_errno = errno;
      close (fd);
      g_unlink (temp_path);
      return error == NULL || *error != NULL ? FALSE : natter_store_set_io_error (error, saved_errno, "write", temp_path);
    }
  if (close (fd) < 0)
    {
      saved_errno = errno;
      g_unlink (temp_path);
      return natter_store_set_io_error (error, saved_errno, "close", temp_path);
    }
  linked = link (temp_path, path) == 0;
  saved_errno = errno;
  g_unlink (temp_path);
  if (!linked && saved_errno == EEXIST)
    *out_exists = TRUE;
  else if (!linked)
    return natter_store_set_io_error (error, saved_errno, "create", path);
  return TRUE;
}

/* write_through_temp() where a sweep of leftovers never takes its
 * temporary file for one. */
static gboolean
write_temp_and_link (const char  *dir,
                     const char  *path,
                     const char  *sha256,
                     GBytes      *bytes,
                     gboolean    *out_exists,
                     GError     **error)
{
  gboolean written;

  natter_store_temp_begin ();
  written = write_through_temp (dir, path, sha256, bytes, out_exists, error);
  natter_store_temp_end ();
  return written;
}

/**
 * natter_blob_store_put_sync:
 * @self: the blob store
 * @bytes: the whole content
 * @error: return location for a #GError
 *
 * Stores @bytes under their SHA-256 (docs/format.md §1): written complete
 * to a temporary file in the blob's folder (mode 0600, folders 0700) and
 * link()ed into place. Content already stored is not written again; an
 * existing blob is first checked, so a damaged copy is reported instead
 * of referenced. Blocks: call it from a worker thread.
 *
 * Returns: (transfer full) (nullable): the hash (64 lowercase hex), or
 *   %NULL with %NATTER_STORE_ERROR_IO, or %NATTER_STORE_ERROR_CORRUPT when
 *   the blob already on disk no longer matches its hash, or a copy of the
 *   refusal of natter_blob_store_refuse_writes() (nothing written)
 */
char *
natter_blob_store_put_sync (NatterBlobStore  *self,
                            GBytes           *bytes,
                            GError          **error)
{
  g_autofree char *sha256 = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *blobs = NULL;
  gboolean exists;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), NULL);
  g_return_val_if_fail (bytes != NULL, NULL);

  if (!natter_write_refusal_check (&self->write_refusal, error))
    return NULL;
  sha256 = hash_bytes (bytes);
  path = natter_blob_store_dup_path (self, sha256);
  dir = g_path_get_dirname (path);
  blobs = g_build_filename (self->storage_path, "blobs", NULL);

  if (!make_private_dir (self->storage_path, error) || !make_private_dir (blobs, error) ||
      !make_private_dir (self->root, error) || !make_private_dir (dir, error))
    return NULL;
  if (!write_temp_and_link (dir, path, sha256, bytes, &exists, error))
    return NULL;
  if (exists)
    {
      g_autoptr(GBytes) stored = natter_blob_store_read_sync (self, sha256, error);

      if (stored == NULL)
        return NULL;
    }
  return g_steal_pointer (&sha256);
}

/* A blob a turn names that is not there: on its way from another
 * device in a folder a synchroniser shares, else missing
 * (docs/format.md §9.3). */
static void
set_missing (NatterBlobStore  *self,
             const char       *path,
             GError          **error)
{
  if (natter_sync_folder_is_shared (self->storage_path))
    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED,
                 "The attachment file %s has not arrived from another device yet", path);
  else
    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND,
                 "The attachment file %s is missing", path);
}

/**
 * natter_blob_store_read_sync:
 * @self: the blob store
 * @sha256: the blob's hash
 * @error: return location for a #GError
 *
 * Reads a whole blob and checks that its bytes still have their hash.
 * Blocks: call it from a worker thread.
 *
 * Returns: (transfer full) (nullable): the content, or %NULL with
 *   %NATTER_STORE_ERROR and %NATTER_STORE_ERROR_INVALID_ID (not a hash),
 *   %NATTER_STORE_ERROR_NOT_FOUND (no such blob),
 *   %NATTER_STORE_ERROR_NOT_ARRIVED (none yet, in a folder a synchroniser
 *   shares: docs/format.md §9.3),
 *   %NATTER_STORE_ERROR_CORRUPT (the bytes do not match the hash) or
 *   %NATTER_STORE_ERROR_IO; each message names the blob's path
 */
GBytes *
natter_blob_store_read_sync (NatterBlobStore  *self,
                             const char       *sha256,
                             GError          **error)
{
  g_autofree char *path = NULL;
  g_autofree char *actual = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local_error = NULL;
  char *data = NULL;
  gsize length = 0;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), NULL);

  path = dup_checked_path (self, sha256, error);
  if (path == NULL)
    return NULL;
  if (!g_file_get_contents (path, &data, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        set_missing (self, path, error);
      else
        g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                     "Could not read %s: %s", path, local_error->message);
      return NULL;
    }
  bytes = g_bytes_new_take (data, length);
  actual = hash_bytes (bytes);
  if (!g_str_equal (actual, sha256))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "The attachment file %s is damaged: its content no longer matches its hash", path);
      return NULL;
    }
  return g_steal_pointer (&bytes);
}

/**
 * natter_blob_store_check_present:
 * @self: the blob store
 * @sha256: the blob's hash
 * @size: the size the reference gives, in bytes
 * @error: return location for a #GError
 *
 * A cheap check (one stat, no hashing) that a blob is on disk with the
 * size a reference gives: what the runtime asks before it writes a turn
 * that references the blob, so that a turn never points at a blob that
 * was never stored (the ordering rule of docs/sessions.md §7).
 *
 * Returns: %TRUE when present; else %FALSE with %NATTER_STORE_ERROR and
 *   %NATTER_STORE_ERROR_INVALID_ID, %NATTER_STORE_ERROR_NOT_FOUND,
 *   %NATTER_STORE_ERROR_NOT_ARRIVED (in a folder a synchroniser shares)
 *   or %NATTER_STORE_ERROR_CORRUPT (another size)
 */
gboolean
natter_blob_store_check_present (NatterBlobStore  *self,
                                 const char       *sha256,
                                 gint64            size,
                                 GError          **error)
{
  g_autofree char *path = NULL;
  GStatBuf st;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), FALSE);

  path = dup_checked_path (self, sha256, error);
  if (path == NULL)
    return FALSE;
  if (g_stat (path, &st) < 0)
    {
      set_missing (self, path, error);
      return FALSE;
    }
  if ((gint64) st.st_size != size)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "The attachment file %s has %" G_GINT64_FORMAT " bytes, not %" G_GINT64_FORMAT,
                   path, (gint64) st.st_size, size);
      return FALSE;
    }
  return TRUE;
}

static void
identity_of (const struct stat *st,
             FileIdentity      *out)
{
  memset (out, 0, sizeof *out);
  out->dev = st->st_dev;
  out->ino = st->st_ino;
  out->size = st->st_size;
  out->mtime = st->st_mtim;
  out->ctime = st->st_ctim;
}

static gboolean
identity_equal (const FileIdentity *a,
                const FileIdentity *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
         a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

static gboolean
known_whole (NatterBlobStore    *self,
             const char         *sha256,
             const FileIdentity *identity)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  const FileIdentity *known = g_hash_table_lookup (self->whole, sha256);

  return known != NULL && identity_equal (known, identity);
}

/**
 * natter_blob_store_check_whole_sync:
 * @self: the blob store
 * @sha256: the blob's hash
 * @size: the size the reference gives, in bytes
 * @error: return location for a #GError
 *
 * Whether a blob is on disk with the size a reference gives and bytes
 * that still have their hash: natter_blob_store_check_present() and then
 * the hash, which is computed once per file as it is (its device, inode,
 * size, modification and status change times, remembered by @self) —
 * so a blob changed in place, even to the same size, is found before a
 * turn is made on a history that would send it (docs/sessions.md §2),
 * and an unchanged one costs one stat. Blocks: call it from a worker
 * thread; any thread may.
 *
 * Returns: %TRUE when whole; else %FALSE with the errors of
 *   natter_blob_store_check_present() and natter_blob_store_read_sync()
 *   (%NATTER_STORE_ERROR_CORRUPT for bytes that no longer match)
 */
gboolean
natter_blob_store_check_whole_sync (NatterBlobStore  *self,
                                    const char       *sha256,
                                    gint64            size,
                                    GError          **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GBytes) bytes = NULL;
  FileIdentity *identity;
  struct stat st;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), FALSE);

  if (!natter_blob_store_check_present (self, sha256, size, error))
    return FALSE;
  path = natter_blob_store_dup_path (self, sha256);
  if (stat (path, &st) < 0)
    {
      set_missing (self, path, error);
      return FALSE;
    }
  identity = g_new (FileIdentity, 1);
  identity_of (&st, identity);
  if (known_whole (self, sha256, identity))
    {
      g_free (identity);
      return TRUE;
    }
  /* The identity is taken before the read: a change while it reads
   * leaves an identity that no longer matches, so it is hashed again. */
  bytes = natter_blob_store_read_sync (self, sha256, error);
  if (bytes == NULL || (gint64) g_bytes_get_size (bytes) != size)
    {
      g_free (identity);
      if (bytes != NULL)
        g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                     "The attachment file %s has %" G_GSIZE_FORMAT " bytes, not %" G_GINT64_FORMAT,
                     path, g_bytes_get_size (bytes), size);
      return FALSE;
    }
  g_mutex_lock (&self->lock);
  g_hash_table_replace (self->whole, g_strdup (sha256), identity);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/**
 * natter_blob_part_validate:
 * @part: (transfer none): a content part whose `type` is "blob"
 * @error: return location for a #GError
 *
 * Checks the members of a stored-attachment part (docs/format.md §4.1):
 * `sha256` (64 lowercase hex), `mediaType` and `name` (non-empty
 * strings), `size` (an integer ≥ 0, in bytes).
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_blob_part_validate (JsonObject  *part,
                           GError     **error)
{
  const char *sha256 = natter_json_require_string (part, "sha256", error);

  if (sha256 == NULL)
    return FALSE;
  if (!natter_blob_hash_is_valid (sha256))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "Field “sha256” must be 64 lowercase hexadecimal digits");
      return FALSE;
    }
  return natter_json_require_nonempty_string (part, "mediaType", error) &&
         natter_json_require_nonempty_string (part, "name", error) &&
         natter_json_require_int_at_least (part, "size", 0, NULL, error);
}

static gboolean
is_blob_part (JsonNode *node)
{
  return JSON_NODE_HOLDS_OBJECT (node) &&
         g_strcmp0 (json_object_get_string_member_with_default (json_node_get_object (node), "type", NULL),
                    NATTER_TURN_BLOB_PART_TYPE) == 0;
}

/**
 * natter_message_dup_blob_parts:
 * @message: (transfer none) (nullable): a message object
 *
 * The stored-attachment parts of a user message, in order.
 *
 * Returns: (transfer container) (element-type JsonObject): the parts,
 *   possibly empty; each is owned by @message
 */
GPtrArray *
natter_message_dup_blob_parts (JsonObject *message)
{
  GPtrArray *parts = g_ptr_array_new ();
  JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;

  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    return parts;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (content), i);

      if (is_blob_part (node))
        g_ptr_array_add (parts, json_node_get_object (node));
    }
  return parts;
}

static gboolean
is_text_part (JsonNode *node)
{
  return JSON_NODE_HOLDS_OBJECT (node) &&
         g_strcmp0 (natter_json_loose_string (json_node_get_object (node), "type"), "text") == 0;
}

/**
 * natter_user_message_dup_words:
 * @message: (transfer none): a user message (docs/format.md §4.1)
 *
 * What the person wrote in @message, without its attachments: a string
 * content as it is, else its text parts joined by newlines. Bytes are
 * the message's own.
 *
 * Returns: (transfer full): the words; empty when there are none
 */
char *
natter_user_message_dup_words (JsonObject *message)
{
  JsonNode *content;
  GString *words;

  g_return_val_if_fail (message != NULL, NULL);

  content = json_object_get_member (message, "content");
  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    return natter_json_content_text (content, "");
  words = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (content), i);
      const char *text = is_text_part (node) ? natter_json_loose_string (json_node_get_object (node), "text") : NULL;

      if (text == NULL)
        continue;
      if (words->len > 0)
        g_string_append_c (words, '\n');
      g_string_append (words, text);
    }
  return g_string_free (words, FALSE);
}

/**
 * natter_user_message_with_words:
 * @message: (transfer none): a user message (docs/format.md §4.1)
 * @words: the new words (may be empty when @message has attachments)
 *
 * @message with its words replaced and everything else kept: the edit of
 * a queued message changes what the person wrote, never which files go
 * with it. The result has the shape natter_user_message_new() writes: a
 * string content when nothing but words remain, else one text part
 * (left out when @words is empty) followed by every other part of
 * @message, copied, in its order.
 *
 * Returns: (transfer full): the new message
 */
JsonObject *
natter_user_message_with_words (JsonObject *message,
                                const char *words)
{
  JsonObject *edited;
  JsonNode *content;
  JsonArray *parts;

  g_return_val_if_fail (message != NULL, NULL);
  g_return_val_if_fail (words != NULL, NULL);

  edited = json_object_new ();
  json_object_set_string_member (edited, "role", "user");
  content = json_object_get_member (message, "content");
  parts = json_array_new ();
  if (words[0] != '\0')
    {
      JsonObject *part = json_object_new ();

      json_object_set_string_member (part, "type", "text");
      json_object_set_string_member (part, "text", words);
      json_array_add_object_element (parts, part);
    }
  for (guint i = 0; content != NULL && JSON_NODE_HOLDS_ARRAY (content) &&
                    i < json_array_get_length (json_node_get_array (content)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (content), i);

      if (!is_text_part (node))
        json_array_add_element (parts, json_node_copy (node));
    }
  if (json_array_get_length (parts) == 1 && words[0] != '\0')
    {
      json_array_unref (parts);
      json_object_set_string_member (edited, "content", words);
    }
  else
    json_object_set_array_member (edited, "content", parts);
  return edited;
}

/**
 * natter_messages_have_blob_parts:
 * @messages: (transfer none) (nullable): an array of messages
 *
 * Returns: whether any message of @messages has a stored-attachment part
 */
gboolean
natter_messages_have_blob_parts (JsonArray *messages)
{
  for (guint i = 0; messages != NULL && i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autoptr(GPtrArray) parts = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      parts = natter_message_dup_blob_parts (json_node_get_object (node));
      if (parts->len > 0)
        return TRUE;
    }
  return FALSE;
}

/**
 * natter_turn_created_check_blob_version:
 * @event: (transfer none): a `turn_created` event whose fields are valid
 * @error: return location for a #GError
 *
 * Stored attachments exist only from turn schema version 2 on: a `blob`
 * part in the input or the inline context of a version-1 turn is refused
 * (docs/format.md §6). The version is what makes a reader that does not
 * know attachments fail instead of sending or showing the message
 * without them.
 *
 * Returns: %TRUE when the event's parts fit its version; else %FALSE with
 *   %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_turn_created_check_blob_version (JsonObject  *event,
                                        GError     **error)
{
  JsonNode *context = json_object_get_member (event, "context");
  g_autoptr(GPtrArray) parts = NULL;
  gboolean has_blobs;

  if (json_object_get_int_member_with_default (event, "schemaVersion", 1) >= 2)
    return TRUE;
  parts = natter_message_dup_blob_parts (json_object_get_object_member (event, "input"));
  has_blobs = parts->len > 0 ||
              (context != NULL && JSON_NODE_HOLDS_ARRAY (context) &&
               natter_messages_have_blob_parts (json_node_get_array (context)));
  if (has_blobs)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "A “blob” content part needs turn schema version 2; the turn is at version 1");
      return FALSE;
    }
  return TRUE;
}

/* The temporary name write_through_temp() gives a blob before the link:
 * `.<64 hex>.XXXXXX`, the X being g_mkstemp()'s letters and digits. */
static gboolean
is_leftover_name (const char *name)
{
  g_autofree char *hash = NULL;

  if (strlen (name) != 1 + 64 + 1 + 6 || name[0] != '.' || name[65] != '.')
    return FALSE;
  for (guint i = 66; i < 72; i++)
    if (!g_ascii_isalnum (name[i]))
      return FALSE;
  hash = g_strndup (name + 1, 64);
  return natter_blob_hash_is_valid (hash);
}

/**
 * natter_blob_store_remove_leftover_temp_files_sync:
 * @self: the blob store
 * @out_removed: (out) (optional): how many files were removed
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the temporary files that writes of blobs interrupted by a kill
 * left: `.<hash>.XXXXXX` in the blob's folder (docs/format.md §1), whole
 * attachments that were never linked into place, or second names of
 * blobs that were. Nothing else is touched: no blob, no other name,
 * nothing that is not a regular file. As for
 * natter_jsonl_repo_remove_leftover_temp_files_sync(), call it only
 * while holding the storage directory's lock; the writes of this process
 * are kept apart by natter-store-temp.c, so it may run in a worker
 * thread beside them. Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with %NATTER_STORE_ERROR_IO (a
 *   folder could not be listed or a file removed; files removed before
 *   that stay removed) or %G_IO_ERROR_CANCELLED, or a copy of the
 *   refusal of natter_blob_store_refuse_writes() (nothing removed).
 */
gboolean
natter_blob_store_remove_leftover_temp_files_sync (NatterBlobStore  *self,
                                                   guint            *out_removed,
                                                   GCancellable     *cancellable,
                                                   GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  GDir *top;
  const char *prefix;
  guint removed = 0;
  gboolean ok = TRUE;

  g_return_val_if_fail (NATTER_IS_BLOB_STORE (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (out_removed != NULL)
    *out_removed = 0;
  if (!natter_write_refusal_check (&self->write_refusal, error))
    return FALSE;
  top = g_dir_open (self->root, 0, &local_error);
  if (top == NULL)
    {
      if (out_removed != NULL)
        *out_removed = 0;
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO, "Could not list %s: %s", self->root,
                   local_error->message);
      return FALSE;
    }
  while (ok && (prefix = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *dir_path = g_build_filename (self->root, prefix, NULL);
      g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
      GDir *dir;
      const char *name;

      if (strlen (prefix) != 2 || !g_ascii_isxdigit (prefix[0]) || !g_ascii_isxdigit (prefix[1]))
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }
      if ((dir = g_dir_open (dir_path, 0, NULL)) == NULL)
        continue;
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = NULL;
          struct stat st;

          if (!is_leftover_name (name) || strncmp (name + 1, prefix, 2) != 0)
            continue;
          path = g_build_filename (dir_path, name, NULL);
          if (lstat (path, &st) == 0 && S_ISREG (st.st_mode))
            g_ptr_array_add (found, g_steal_pointer (&path));
        }
      g_dir_close (dir);
      ok = natter_store_temp_remove_leftovers (found, &removed, error);
    }
  g_dir_close (top);
  if (out_removed != NULL)
    *out_removed = removed;
  return ok;
}
