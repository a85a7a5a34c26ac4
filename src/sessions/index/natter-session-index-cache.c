/* natter-session-index-cache.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The persisted index cache (docs/sessions.md §8.4): one file,
 * `cache/session-index`, that holds every session's index entry beside
 * the identity (size, mtime, ctime, inode) of the session file and of its
 * latest turn file it was read from. At start the scan stats both files
 * of each session and takes the cached entry only when both identities
 * are unchanged; any other session is read as before. It is a cache and
 * never a source of truth: a missing, damaged, truncated, foreign or
 * older file is ignored whole and rewritten after the scan, and a
 * session whose files changed — by this process, by another, by hand —
 * is read again. The format is in docs/format.md §1.
 *
 * Identities are taken before the files are read, so an entry is never
 * newer than the identity it is filed under: a change that lands between
 * the stat and the read is read again at the next start. The logs are
 * append-only, so every write changes a file's size; the change time
 * catches anything else that writes in place, since no program can set
 * it back.
 *
 * The file is checked whole by an MD5 digest before anything in it is
 * used: the digest is there to find accidental damage (a torn write, a
 * flipped block), not an attacker, who could as well edit the logs beside
 * it. Its records are plain length-prefixed fields rather than GVariant:
 * reading 100,000 records through g_variant_get() cost more than the
 * stat() calls the cache is there to limit the start to. Every length is
 * still checked against the end of the file.
 */

#define G_LOG_DOMAIN "natter-session-index"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "natter-session-index-cache.h"
#include "natter-session-index-entry-private.h"

/* 16 bytes: the name, the version of the format and the byte order the
 * numbers are in (a data directory copied to another machine is simply
 * read again). */
#define MAGIC_NAME     "natter-index"
#define FORMAT_VERSION 6
#define HEADER_SIZE    32   /* magic, then the MD5 digest of the payload */
#define DIGEST_SIZE    16

/* A record: the identities of the session file and of its latest turn
 * file, the turn count, the entry's marks (FLAG_*), then the entry's
 * strings in this order, each a 32-bit length + 1 (0 for none) and its
 * bytes with a final NUL. */
enum
{
  S_SESSION_ID,
  S_TITLE,
  S_CREATED_AT,
  S_UPDATED_AT,
  S_LAST_AGENT_ID,
  S_PROVIDER,
  S_MODEL,
  S_LATEST_TURN_ID,
  S_LATEST_TURN_AT,
  S_LATEST_TURN_STATUS,
  S_ERROR,
  S_CWD,
  S_PARENT_SESSION,
  S_PARAMETERS,         /* natter_generation_parameters_to_text() */
  S_FOLDER_ID,
  S_DEVICE_ID,          /* the device an unended latest turn runs on */
  S_DEVICE_NAME,
  S_FIRST_TURN_ID,
  N_STRINGS
};

/* The entry's boolean properties: a record with another bit set is not
 * this version's. */
#define FLAG_IS_VERSION           (1u << 0)
#define FLAG_LATEST_TURN_IMPORTED (1u << 1)
#define FLAG_PINNED               (1u << 2)
#define ALL_FLAGS                 (FLAG_IS_VERSION | FLAG_LATEST_TURN_IMPORTED | FLAG_PINNED)

/* exists (1 byte), size, mtime, ctime, inode (8 bytes each) */
#define IDENTITY_SIZE (1 + 4 * 8)

typedef struct
{
  NatterFileIdentity session;
  NatterFileIdentity turn;
  guint32            turn_count;
  guint32            flags;
  const char        *strings[N_STRINGS];   /* into the cache's bytes; NULL for none */
} CacheRecord;

struct _NatterSessionIndexCache
{
  GBytes      *bytes;
  CacheRecord *records;
  guint        n_records;
  GHashTable  *by_id;       /* session id (in bytes) → CacheRecord */
};

void
natter_session_index_record_clear (NatterSessionIndexRecord *record)
{
  g_clear_object (&record->entry);
  memset (record, 0, sizeof *record);
}

static void
header_magic (guint8 magic[16])
{
  memset (magic, 0, 16);
  memcpy (magic, MAGIC_NAME, strlen (MAGIC_NAME));
  magic[13] = FORMAT_VERSION;
  magic[14] = G_BYTE_ORDER == G_LITTLE_ENDIAN ? 'l' : 'B';
}

static void
payload_digest (const guint8 *payload,
                gsize         length,
                guint8        digest[DIGEST_SIZE])
{
  g_autoptr(GChecksum) checksum = g_checksum_new (G_CHECKSUM_MD5);
  gsize digest_length = DIGEST_SIZE;

  g_checksum_update (checksum, payload, length);
  g_checksum_get_digest (checksum, digest, &digest_length);
}

/* Reading the payload: every read is checked against its end. */
typedef struct
{
  const guint8 *p;
  const guint8 *end;
} Reader;

static gboolean
read_u32 (Reader  *r,
          guint32 *out)
{
  if (r->end - r->p < 4)
    return FALSE;
  memcpy (out, r->p, 4);
  r->p += 4;
  return TRUE;
}

static gboolean
read_u64 (Reader  *r,
          guint64 *out)
{
  if (r->end - r->p < 8)
    return FALSE;
  memcpy (out, r->p, 8);
  r->p += 8;
  return TRUE;
}

static gboolean
read_identity (Reader             *r,
               NatterFileIdentity *out)
{
  guint64 mtime, ctime;

  if (r->p == r->end || *r->p > 1)
    return FALSE;
  out->exists = *r->p++;
  if (!read_u64 (r, &out->size) || !read_u64 (r, &mtime) || !read_u64 (r, &ctime) || !read_u64 (r, &out->inode))
    return FALSE;
  out->mtime_ns = (gint64) mtime;
  out->ctime_ns = (gint64) ctime;
  return TRUE;
}

/* A string of the record: its bytes, NUL-terminated in the file. */
static gboolean
read_string (Reader      *r,
             const char **out)
{
  guint32 length;

  if (!read_u32 (r, &length))
    return FALSE;
  *out = NULL;
  if (length == 0)
    return TRUE;
  if ((gsize) (r->end - r->p) < length || r->p[length - 1] != '\0' ||
      memchr (r->p, '\0', length - 1) != NULL)
    return FALSE;
  *out = (const char *) r->p;
  r->p += length;
  return TRUE;
}

static gboolean
read_record (Reader      *r,
             CacheRecord *record)
{
  if (!read_identity (r, &record->session) || !read_identity (r, &record->turn) ||
      !read_u32 (r, &record->turn_count) || !read_u32 (r, &record->flags) || (record->flags & ~ALL_FLAGS) != 0)
    return FALSE;
  for (guint i = 0; i < N_STRINGS; i++)
    if (!read_string (r, &record->strings[i]))
      return FALSE;
  /* What every entry has. */
  return record->strings[S_SESSION_ID] != NULL && record->strings[S_LATEST_TURN_STATUS] != NULL &&
         g_utf8_validate (record->strings[S_TITLE] != NULL ? record->strings[S_TITLE] : "", -1, NULL);
}

/**
 * natter_session_index_cache_load:
 * @file: the cache file
 *
 * Reads the cache whole and checks it: its header names this format
 * version and byte order, its digest matches, and every record reads to
 * the end. Anything else is a cache to ignore, never an error: the scan
 * then reads every session.
 *
 * Returns: (transfer full) (nullable): the cache, or %NULL when there is
 *   none to use
 */
NatterSessionIndexCache *
natter_session_index_cache_load (GFile *file)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionIndexCache) cache = NULL;
  guint8 magic[16];
  guint8 digest[DIGEST_SIZE];
  const guint8 *data;
  guint32 n_records;
  gsize length;
  Reader r;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  cache = g_new0 (NatterSessionIndexCache, 1);
  /* Read, not mapped: a file cut short under a mapping would fault. */
  cache->bytes = g_file_load_bytes (file, NULL, NULL, &error);
  if (cache->bytes == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_debug ("Ignoring the session index cache: %s", error->message);
      return NULL;
    }
  data = g_bytes_get_data (cache->bytes, &length);
  header_magic (magic);
  if (length < HEADER_SIZE || memcmp (data, magic, sizeof magic) != 0)
    {
      g_debug ("Ignoring the session index cache %s: not this version's", g_file_peek_path (file));
      return NULL;
    }
  payload_digest (data + HEADER_SIZE, length - HEADER_SIZE, digest);
  if (memcmp (data + sizeof magic, digest, DIGEST_SIZE) != 0)
    {
      g_debug ("Ignoring the session index cache %s: damaged", g_file_peek_path (file));
      return NULL;
    }

  r.p = data + HEADER_SIZE;
  r.end = data + length;
  if (!read_u32 (&r, &n_records) || n_records > (gsize) (r.end - r.p) / (2 * IDENTITY_SIZE))
    return NULL;
  cache->records = g_new0 (CacheRecord, n_records);
  cache->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint32 i = 0; i < n_records; i++)
    {
      if (!read_record (&r, &cache->records[i]))
        {
          g_debug ("Ignoring the session index cache %s: record %u is not whole", g_file_peek_path (file), i);
          return NULL;
        }
      g_hash_table_replace (cache->by_id, (gpointer) cache->records[i].strings[S_SESSION_ID], &cache->records[i]);
    }
  cache->n_records = n_records;
  if (r.p != r.end)
    return NULL;
  return g_steal_pointer (&cache);
}

void
natter_session_index_cache_free (NatterSessionIndexCache *cache)
{
  if (cache == NULL)
    return;
  g_clear_pointer (&cache->by_id, g_hash_table_unref);
  g_free (cache->records);
  g_clear_pointer (&cache->bytes, g_bytes_unref);
  g_free (cache);
}

/* Returns: how many sessions the cache holds */
guint
natter_session_index_cache_get_size (NatterSessionIndexCache *cache)
{
  g_return_val_if_fail (cache != NULL, 0);

  return g_hash_table_size (cache->by_id);
}

static NatterSessionIndexEntry *
entry_from_record (const CacheRecord *record)
{
  const char * const *s = record->strings;
  NatterSessionIndexEntry *entry = natter_session_index_entry_new (s[S_SESSION_ID]);

  natter_session_index_entry_set_title (entry, s[S_TITLE]);
  natter_session_index_entry_set_created_at (entry, s[S_CREATED_AT]);
  natter_session_index_entry_set_updated_at (entry, s[S_UPDATED_AT]);
  natter_session_index_entry_set_turn_count (entry, record->turn_count);
  natter_session_index_entry_set_last_agent_id (entry, s[S_LAST_AGENT_ID]);
  if (s[S_PROVIDER] != NULL && s[S_MODEL] != NULL)
    natter_session_index_entry_set_last_model_names (entry, s[S_PROVIDER], s[S_MODEL]);
  natter_session_index_entry_set_latest_turn_id (entry, s[S_LATEST_TURN_ID]);
  natter_session_index_entry_set_latest_turn_at (entry, s[S_LATEST_TURN_AT]);
  natter_session_index_entry_set_latest_turn_status (entry, s[S_LATEST_TURN_STATUS]);
  natter_session_index_entry_set_error (entry, s[S_ERROR]);
  natter_session_index_entry_set_cwd (entry, s[S_CWD]);
  natter_session_index_entry_set_parent_session (entry, s[S_PARENT_SESSION]);
  natter_session_index_entry_set_first_turn_id (entry, s[S_FIRST_TURN_ID]);
  if (s[S_PARAMETERS] != NULL)
    {
      g_autoptr(NatterGenerationParameters) parameters =
        natter_generation_parameters_new_from_text (s[S_PARAMETERS], NULL);

      /* The digest vouches for the bytes; what this process wrote reads. */
      g_warn_if_fail (parameters != NULL);
      natter_session_index_entry_set_parameters (entry, parameters);
    }
  natter_session_index_entry_set_is_version (entry, (record->flags & FLAG_IS_VERSION) != 0);
  natter_session_index_entry_set_latest_turn_imported (entry, (record->flags & FLAG_LATEST_TURN_IMPORTED) != 0);
  natter_session_index_entry_set_pinned (entry, (record->flags & FLAG_PINNED) != 0);
  natter_session_index_entry_set_folder_id (entry, s[S_FOLDER_ID]);
  natter_session_index_entry_set_latest_turn_device (entry, s[S_DEVICE_ID], s[S_DEVICE_NAME]);
  return entry;
}

/**
 * natter_session_index_cache_lookup:
 * @cache: the cache
 * @turn_cursor: a cursor over the turn repository (where the latest
 *   turn file is), of the calling thread
 * @session_id: a session
 * @record: (inout): holds the session file's identity, just read; gets
 *   the cached entry and the latest turn file's identity when they are
 *   still good
 *
 * The cached entry of @session_id, when the session file still has the
 * identity the cache holds for it, and its latest turn file (stat()ed
 * now) too. Thread-safe.
 *
 * Returns: %TRUE when @record got the entry; %FALSE when the session must
 *   be read
 */
gboolean
natter_session_index_cache_lookup (NatterSessionIndexCache  *cache,
                                   NatterJsonlCursor        *turn_cursor,
                                   const char               *session_id,
                                   NatterSessionIndexRecord *record)
{
  const CacheRecord *cached = g_hash_table_lookup (cache->by_id, session_id);
  const char *latest;

  if (cached == NULL || !natter_file_identity_equal (&cached->session, &record->session))
    return FALSE;
  latest = cached->strings[S_LATEST_TURN_ID];
  if (latest != NULL)
    {
      NatterFileIdentity now;

      if (!natter_jsonl_cursor_identify (turn_cursor, latest, &now) || !natter_file_identity_equal (&cached->turn, &now))
        return FALSE;
    }
  else if (cached->turn.exists)
    return FALSE;

  record->entry = entry_from_record (cached);
  record->turn = cached->turn;
  record->cacheable = TRUE;
  return TRUE;
}

static void
write_u32 (GByteArray *out,
           guint32     value)
{
  g_byte_array_append (out, (const guint8 *) &value, 4);
}

static void
write_u64 (GByteArray *out,
           guint64     value)
{
  g_byte_array_append (out, (const guint8 *) &value, 8);
}

static void
write_identity (GByteArray               *out,
                const NatterFileIdentity *identity)
{
  guint8 exists = identity->exists ? 1 : 0;

  g_byte_array_append (out, &exists, 1);
  write_u64 (out, identity->size);
  write_u64 (out, (guint64) identity->mtime_ns);
  write_u64 (out, (guint64) identity->ctime_ns);
  write_u64 (out, identity->inode);
}

static void
write_string (GByteArray *out,
              const char *text)
{
  gsize length = text != NULL ? strlen (text) + 1 : 0;

  write_u32 (out, (guint32) length);
  g_byte_array_append (out, (const guint8 *) text, length);
}

static void
write_record (GByteArray                     *out,
              const NatterSessionIndexRecord *record)
{
  NatterSessionIndexEntry *entry = record->entry;
  const char *provider, *model;

  natter_session_index_entry_get_last_model_names (entry, &provider, &model);
  write_identity (out, &record->session);
  write_identity (out, &record->turn);
  write_u32 (out, natter_session_index_entry_get_turn_count (entry));
  write_u32 (out, (natter_session_index_entry_get_is_version (entry) ? FLAG_IS_VERSION : 0) |
                  (natter_session_index_entry_get_latest_turn_imported (entry) ? FLAG_LATEST_TURN_IMPORTED : 0) |
                  (natter_session_index_entry_get_pinned (entry) ? FLAG_PINNED : 0));
  write_string (out, natter_session_index_entry_get_session_id (entry));
  write_string (out, natter_session_index_entry_get_title (entry));
  write_string (out, natter_session_index_entry_get_created_at (entry));
  write_string (out, natter_session_index_entry_get_updated_at (entry));
  write_string (out, natter_session_index_entry_get_last_agent_id (entry));
  write_string (out, provider);
  write_string (out, model);
  write_string (out, natter_session_index_entry_get_latest_turn_id (entry));
  write_string (out, natter_session_index_entry_get_latest_turn_at (entry));
  write_string (out, natter_session_index_entry_get_latest_turn_status (entry));
  write_string (out, natter_session_index_entry_get_error (entry));
  write_string (out, natter_session_index_entry_get_cwd (entry));
  write_string (out, natter_session_index_entry_get_parent_session (entry));
  {
    const NatterGenerationParameters *parameters = natter_session_index_entry_get_parameters (entry);
    g_autofree char *text = parameters != NULL ? natter_generation_parameters_to_text (parameters) : NULL;

    write_string (out, text);
  }
  write_string (out, natter_session_index_entry_get_folder_id (entry));
  write_string (out, natter_session_index_entry_get_latest_turn_device_id (entry));
  write_string (out, natter_session_index_entry_get_latest_turn_device_name (entry));
  write_string (out, natter_session_index_entry_get_first_turn_id (entry));
}

/**
 * natter_session_index_cache_save:
 * @file: the cache file
 * @records: (array length=n_records): the scan's records
 * @n_records: how many
 * @error: return location for a #GError
 *
 * Writes the cacheable records to @file, replacing it atomically (a new
 * file renamed over the old one, mode 0600, its folder made 0700 if
 * missing). Blocks.
 *
 * Returns: %TRUE if written; else %FALSE with a #GIOError
 */
gboolean
natter_session_index_cache_save (GFile                    *file,
                                 NatterSessionIndexRecord *records,
                                 guint                     n_records,
                                 GError                  **error)
{
  g_autoptr(GByteArray) out = g_byte_array_sized_new (HEADER_SIZE + 4 + n_records * 320);
  g_autoptr(GFile) folder = g_file_get_parent (file);
  guint8 header[HEADER_SIZE] = { 0 };
  guint32 n_written = 0;

  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  g_byte_array_append (out, header, sizeof header);
  write_u32 (out, 0);
  for (guint i = 0; i < n_records; i++)
    if (records[i].entry != NULL && records[i].cacheable)
      {
        write_record (out, &records[i]);
        n_written++;
      }
  memcpy (out->data + HEADER_SIZE, &n_written, 4);
  header_magic (out->data);
  payload_digest (out->data + HEADER_SIZE, out->len - HEADER_SIZE, out->data + 16);

  if (g_mkdir_with_parents (g_file_peek_path (folder), 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno), "Could not create %s: %s",
                   g_file_peek_path (folder), g_strerror (saved_errno));
      return FALSE;
    }
  return g_file_replace_contents (file, (const char *) out->data, out->len, NULL, FALSE,
                                  G_FILE_CREATE_PRIVATE | G_FILE_CREATE_REPLACE_DESTINATION, NULL, NULL, error);
}
