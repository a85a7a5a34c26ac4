/* natter-jsonl-repo.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <glib/gstdio.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-session-schema.h"
#include "natter-store-error.h"
#include "natter-turn-schema.h"

/* One append-only JSONL file per turn or session
 * (`storage/<kind>/YYYY/MM/DD/<id>.jsonl`, turn-runtime.md §2,
 * session-layer-spec.md §4). The repo never rewrites a file: it creates it
 * with its first line, appends whole batches of complete lines with a
 * single write(), and reads it strictly. A kill at any moment therefore
 * leaves every earlier line intact (pitfalls.md 1); a torn tail makes that
 * one file corrupt and nothing else (pitfalls.md 2).
 *
 * Every field is set once in the constructor and never changed, so worker
 * threads read the object without locking. */

struct _NatterJsonlRepo
{
  GObject               parent_instance;

  GFile                *storage_dir;
  char                 *storage_path;
  char                 *kind;
  char                 *kind_path;
  char                 *created_type;
  /* The member that names the file's id in every event ("turnId",
   * "sessionId"), or NULL when the kind does not have a known one. */
  char                 *owner_member;
  NatterEventValidator  validator;

  NatterKeyedMutex     *locks;

  /* Held by a worker only around "check the tail, then write": another
   * thread's append could otherwise be caught half-written by the check
   * and look like a torn line. Never held across a main-loop iteration. */
  GMutex                append_lock;
};

G_DEFINE_FINAL_TYPE (NatterJsonlRepo, natter_jsonl_repo, G_TYPE_OBJECT)

static void
natter_jsonl_repo_finalize (GObject *object)
{
  NatterJsonlRepo *self = (NatterJsonlRepo *) object;

  g_clear_object (&self->storage_dir);
  g_clear_pointer (&self->storage_path, g_free);
  g_clear_pointer (&self->kind, g_free);
  g_clear_pointer (&self->kind_path, g_free);
  g_clear_pointer (&self->created_type, g_free);
  g_clear_pointer (&self->owner_member, g_free);
  g_clear_object (&self->locks);
  g_mutex_clear (&self->append_lock);

  G_OBJECT_CLASS (natter_jsonl_repo_parent_class)->finalize (object);
}

static void
natter_jsonl_repo_class_init (NatterJsonlRepoClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_jsonl_repo_finalize;
}

static void
natter_jsonl_repo_init (NatterJsonlRepo *self)
{
  self->locks = natter_keyed_mutex_new ();
  g_mutex_init (&self->append_lock);
}

static gboolean
is_kind_name (const char *kind)
{
  if (kind == NULL || *kind == '\0' || strcmp (kind, ".") == 0 || strcmp (kind, "..") == 0)
    return FALSE;
  for (const char *p = kind; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return TRUE;
}

/**
 * natter_jsonl_repo_new:
 * @storage_dir: (transfer none): the `storage` directory, e.g.
 *   `$XDG_DATA_HOME/natter/storage`; it need not exist yet
 * @kind: the subdirectory of one kind of log, `turns` or `sessions`
 *   (letters, digits, `-` and `_` only)
 * @created_type: the `type` of the mandatory first line, e.g.
 *   `turn_created`
 * @validator: checks one event against its schema
 *
 * Creates a repository of append-only JSONL logs, the repository contract
 * of session-layer-spec.md §4.3 shared by turns (turn-runtime.md §2). For
 * the kinds `turns` and `sessions` the repo also checks, independently of
 * @validator, that every event's `turnId` / `sessionId` is the file's id.
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_jsonl_repo_new (GFile                *storage_dir,
                       const char           *kind,
                       const char           *created_type,
                       NatterEventValidator  validator)
{
  NatterJsonlRepo *self;
  g_autofree char *storage_path = NULL;

  g_return_val_if_fail (G_IS_FILE (storage_dir), NULL);
  g_return_val_if_fail (is_kind_name (kind), NULL);
  g_return_val_if_fail (created_type != NULL, NULL);
  g_return_val_if_fail (validator != NULL, NULL);

  /* The repo works on local paths (open, O_EXCL, O_APPEND). */
  storage_path = g_file_get_path (storage_dir);
  g_return_val_if_fail (storage_path != NULL, NULL);

  self = g_object_new (NATTER_TYPE_JSONL_REPO, NULL);
  self->storage_dir = g_object_ref (storage_dir);
  self->storage_path = g_steal_pointer (&storage_path);
  self->kind = g_strdup (kind);
  self->kind_path = g_build_filename (self->storage_path, kind, NULL);
  self->created_type = g_strdup (created_type);
  self->validator = validator;

  if (strcmp (kind, "turns") == 0)
    self->owner_member = g_strdup ("turnId");
  else if (strcmp (kind, "sessions") == 0)
    self->owner_member = g_strdup ("sessionId");

  return self;
}

/**
 * natter_turn_repo_new:
 * @storage_dir: (transfer none): the `storage` directory
 *
 * The turn repository of turn-runtime.md §2: kind `turns`, first line
 * `turn_created`, events checked by natter_turn_event_validate().
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_turn_repo_new (GFile *storage_dir)
{
  return natter_jsonl_repo_new (storage_dir, "turns", "turn_created",
                                natter_turn_event_validate);
}

/**
 * natter_session_repo_new:
 * @storage_dir: (transfer none): the `storage` directory
 *
 * The session repository of session-layer-spec.md §4: kind `sessions`,
 * first line `session_created`, events checked by
 * natter_session_event_validate().
 *
 * Returns: (transfer full): a new repository
 */
NatterJsonlRepo *
natter_session_repo_new (GFile *storage_dir)
{
  return natter_jsonl_repo_new (storage_dir, "sessions", "session_created",
                                natter_session_event_validate);
}

/* Paths and I/O helpers. */

static char *
dir_path_for (NatterJsonlRepo *self,
              const char      *id)
{
  g_autofree char *partition = natter_id_partition (id);

  return g_build_filename (self->kind_path, partition, NULL);
}

/* Validates @id first: no path is ever built from an unchecked id. */
static char *
file_path_for (NatterJsonlRepo  *self,
               const char       *id,
               GError          **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;

  if (!natter_id_validate (id, error))
    return NULL;

  dir = dir_path_for (self, id);
  name = g_strconcat (id, ".jsonl", NULL);
  return g_build_filename (dir, name, NULL);
}

static gboolean
set_io_error (GError     **error,
              int          saved_errno,
              const char  *what,
              const char  *path)
{
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
               "Could not %s %s: %s", what, path, g_strerror (saved_errno));
  return FALSE;
}

static gboolean
write_all (int          fd,
           const char  *data,
           gsize        length,
           const char  *path,
           GError     **error)
{
  /* One write() for the whole buffer in practice; the loop only covers a
   * short write (disk full, signal) so no byte is silently dropped. */
  while (length > 0)
    {
      gssize written = write (fd, data, length);

      if (written < 0)
        {
          if (errno == EINTR)
            continue;
          return set_io_error (error, errno, "write to", path);
        }
      data += written;
      length -= written;
    }
  return TRUE;
}

static gboolean
close_fd (int          fd,
          const char  *path,
          GError     **error)
{
  if (close (fd) < 0 && errno != EINTR)
    return set_io_error (error, errno, "close", path);
  return TRUE;
}

/* Makes @path (one component below an existing directory) with mode 0700,
 * and forces 0700 on it when this call created it: the umask must not
 * widen or narrow a directory that holds private conversations. An
 * existing directory is left as the user set it. */
static gboolean
make_private_dir (const char  *path,
                  GError     **error)
{
  if (g_mkdir (path, 0700) == 0)
    {
      if (g_chmod (path, 0700) < 0)
        return set_io_error (error, errno, "set the mode of", path);
      return TRUE;
    }
  if (errno == EEXIST && g_file_test (path, G_FILE_TEST_IS_DIR))
    return TRUE;
  return set_io_error (error, errno == EEXIST ? ENOTDIR : errno, "create the directory", path);
}

static gboolean
ensure_partition_dir (NatterJsonlRepo  *self,
                      const char       *id,
                      GError          **error)
{
  g_autofree char *partition = natter_id_partition (id);
  g_auto(GStrv) parts = g_strsplit (partition, "/", -1);
  g_autofree char *path = NULL;

  if (!g_file_test (self->storage_path, G_FILE_TEST_IS_DIR))
    {
      if (g_mkdir_with_parents (self->storage_path, 0700) < 0)
        return set_io_error (error, errno, "create the directory", self->storage_path);
      if (g_chmod (self->storage_path, 0700) < 0)
        return set_io_error (error, errno, "set the mode of", self->storage_path);
    }

  if (!make_private_dir (self->kind_path, error))
    return FALSE;

  path = g_strdup (self->kind_path);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *next = g_build_filename (path, parts[i], NULL);

      g_free (path);
      path = next;
      if (!make_private_dir (path, error))
        return FALSE;
    }
  return TRUE;
}

/* Validation of events on the way in and out. */

static gboolean
check_event (NatterJsonlRepo  *self,
             JsonNode         *node,
             const char       *id,
             gboolean          must_be_created,
             GError          **error)
{
  JsonObject *object;
  const char *type;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "The event is not a JSON object");
      return FALSE;
    }

  object = json_node_get_object (node);
  type = natter_json_require_string (object, "type", error);
  if (type == NULL)
    return FALSE;

  if (must_be_created && strcmp (type, self->created_type) != 0)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "The first event must be “%s”, not “%s”", self->created_type, type);
      return FALSE;
    }
  if (!must_be_created && strcmp (type, self->created_type) == 0)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "“%s” may only be the first event", self->created_type);
      return FALSE;
    }

  if (!self->validator (object, id, error))
    return FALSE;

  /* Defence in depth: the validator checks this too, but an event filed
   * under another id would corrupt two histories at once. */
  if (self->owner_member != NULL)
    {
      const char *owner = natter_json_require_string (object, self->owner_member, error);

      if (owner == NULL)
        return FALSE;
      if (strcmp (owner, id) != 0)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "Field “%s” is “%s”, not the file's id “%s”",
                       self->owner_member, owner, id);
          return FALSE;
        }
    }

  return TRUE;
}

/* Serializes @events into one buffer of complete "\n"-terminated lines,
 * or fails without side effects. Runs on the caller's thread: the nodes
 * belong to the caller and are not safe to read from a worker while the
 * caller may go on using them. */
static GBytes *
serialize_events (NatterJsonlRepo  *self,
                  const char       *id,
                  JsonNode * const *events,
                  guint             n_events,
                  gboolean          is_create,
                  GError          **error)
{
  g_autoptr(GString) buffer = g_string_new (NULL);

  for (guint i = 0; i < n_events; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *line = NULL;
      gsize length = 0;

      if (!check_event (self, events[i], id, is_create, &local_error) ||
          (line = natter_json_to_line (events[i], &length, &local_error)) == NULL)
        {
          if (n_events > 1)
            g_prefix_error (&local_error, "Event %u of %u: ", i + 1, n_events);
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      g_string_append_len (buffer, line, length);
      g_string_append_c (buffer, '\n');
    }

  return g_string_free_to_bytes (g_steal_pointer (&buffer));
}

static gboolean
create_file (NatterJsonlRepo  *self,
             const char       *id,
             GBytes           *line,
             GError          **error)
{
  g_autofree char *path = file_path_for (self, id, error);
  gsize length;
  const char *data;
  int fd;

  if (path == NULL)
    return FALSE;

  if (!ensure_partition_dir (self, id, error))
    return FALSE;

  /* The first line is written to a temporary file beside the log, then
   * link()ed into place: link fails if the log exists, which makes "create
   * fails if the file exists" atomic, and a kill at any moment leaves
   * either no log or a log with its whole first line, never a log that
   * reads as corrupt for ever. A stray temporary file is not a `.jsonl`
   * name, so no listing ever sees it, and the next writer to start
   * removes it (natter_jsonl_repo_remove_leftover_temp_files_sync()). */
  {
    g_autofree char *dir = g_path_get_dirname (path);
    g_autofree char *temp_path = g_strdup_printf ("%s/.%s.jsonl.XXXXXX", dir, id);
    gboolean linked;
    int saved_errno;

    fd = g_mkstemp_full (temp_path, O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
      return set_io_error (error, errno, "create", temp_path);

    data = g_bytes_get_data (line, &length);
    if (fchmod (fd, 0600) < 0)
      {
        saved_errno = errno;
        close (fd);
        g_unlink (temp_path);
        return set_io_error (error, saved_errno, "set the mode of", temp_path);
      }
    if (!write_all (fd, data, length, temp_path, error) ||
        !close_fd (fd, temp_path, error))
      {
        g_unlink (temp_path);
        return FALSE;
      }

    linked = link (temp_path, path) == 0;
    saved_errno = errno;
    g_unlink (temp_path);

    if (!linked)
      {
        if (saved_errno == EEXIST)
          {
            g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_EXISTS,
                         "%s already exists", path);
            return FALSE;
          }
        return set_io_error (error, saved_errno, "create", path);
      }
  }

  return TRUE;
}

static gboolean
append_to_file_locked (NatterJsonlRepo  *self,
                       const char       *id,
                       GBytes           *lines,
                       GError          **error)
{
  g_autofree char *path = file_path_for (self, id, error);
  struct stat st;
  gsize length;
  const char *data;
  char last = '\0';
  gssize got;
  int fd;

  if (path == NULL)
    return FALSE;

  /* Read access only to look at the last byte; O_APPEND puts every write
   * at the end whatever the file offset says. Never O_CREAT: appending to
   * a log that was never created is an error, not a new log. */
  do
    fd = open (path, O_RDWR | O_APPEND | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);

  if (fd < 0)
    {
      if (errno == ENOENT)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND,
                       "%s does not exist", path);
          return FALSE;
        }
      return set_io_error (error, errno, "open", path);
    }

  if (fstat (fd, &st) < 0)
    {
      set_io_error (error, errno, "inspect", path);
      close (fd);
      return FALSE;
    }

  /* Gluing new lines to a torn tail would turn one damaged line into a
   * valid-looking but wrong one, or damage the new lines too. */
  if (st.st_size > 0)
    {
      do
        got = pread (fd, &last, 1, st.st_size - 1);
      while (got < 0 && errno == EINTR);

      if (got < 0)
        {
          set_io_error (error, errno, "read", path);
          close (fd);
          return FALSE;
        }
    }
  if (st.st_size == 0 || last != '\n')
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "%s: %s; refusing to append", path,
                   st.st_size == 0 ? "the file is empty" : "the last line is torn (no newline)");
      close (fd);
      return FALSE;
    }

  data = g_bytes_get_data (lines, &length);
  if (!write_all (fd, data, length, path, error))
    {
      close (fd);
      return FALSE;
    }

  return close_fd (fd, path, error);
}

static gboolean
append_to_file (NatterJsonlRepo  *self,
                const char       *id,
                GBytes           *lines,
                GError          **error)
{
  gboolean ok;

  g_mutex_lock (&self->append_lock);
  ok = append_to_file_locked (self, id, lines, error);
  g_mutex_unlock (&self->append_lock);

  return ok;
}

/* Most logs fit here, so reading one costs no heap buffer: a fresh
 * multi-kilobyte malloc per file also made glibc consolidate the
 * previous file's freed JSON nodes every time. */
#define READ_STACK_SIZE (16 * 1024)

/* Reads all of @path into @stack_buffer (READ_STACK_SIZE bytes) or, if it
 * does not fit, into *@out_heap (then owned by the caller). */
static gboolean
load_file (const char  *path,
           char        *stack_buffer,
           char       **out_contents,
           gsize       *out_length,
           char       **out_heap,
           GError     **error)
{
  char *buffer = stack_buffer;
  gsize capacity = READ_STACK_SIZE;
  gsize length = 0;
  struct stat info;
  int fd;

  *out_heap = NULL;
  do
    fd = open (path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND,
                       "%s does not exist", path);
          return FALSE;
        }
      return set_io_error (error, saved_errno, "read", path);
    }

  if (fstat (fd, &info) < 0)
    {
      int saved_errno = errno;

      close (fd);
      return set_io_error (error, saved_errno, "inspect", path);
    }
  if (!S_ISREG (info.st_mode))
    {
      close (fd);
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   S_ISDIR (info.st_mode) ? "%s is a directory, not a file"
                                          : "%s is not a regular file",
                   path);
      return FALSE;
    }

  /* One more byte than the size, so that the read that finds the end
   * needs no reallocation. */
  if ((guint64) info.st_size + 1 > capacity)
    {
      capacity = (gsize) info.st_size + 1;
      buffer = *out_heap = g_malloc (capacity);
    }

  for (;;)
    {
      gssize n;

      if (length == capacity)
        {
          capacity *= 2;
          if (buffer == stack_buffer)
            {
              buffer = *out_heap = g_malloc (capacity);
              memcpy (buffer, stack_buffer, length);
            }
          else
            buffer = *out_heap = g_realloc (buffer, capacity);
        }
      n = read (fd, buffer + length, capacity - length);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved_errno = errno;

          close (fd);
          g_clear_pointer (out_heap, g_free);
          return set_io_error (error, saved_errno, "read", path);
        }
      if (n == 0)
        break;
      length += n;
    }
  close (fd);

  *out_contents = buffer;
  *out_length = length;
  return TRUE;
}

/* The first line that cannot be read, for a reader of the readable
 * prefix; NULL for a strict read. */
typedef struct
{
  guint  line;     /* 0 while every line read */
  char  *reason;   /* why that line cannot be read, without the path */
} BadLine;

static GPtrArray *
read_file_full (NatterJsonlRepo  *self,
                const char       *id,
                BadLine          *bad,
                GCancellable     *cancellable,
                GError          **error)
{
  g_autofree char *path = file_path_for (self, id, error);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *heap = NULL;
  char stack_buffer[READ_STACK_SIZE];
  const char *contents = NULL;
  gsize length = 0;
  gsize pos = 0;
  guint line_number = 0;

  if (path == NULL)
    return NULL;

  if (!load_file (path, stack_buffer, (char **) &contents, &length, &heap, error))
    return NULL;

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (length == 0)
    {
      if (bad != NULL)
        {
          bad->line = 1;
          bad->reason = g_strdup ("the file is empty (the first line is missing)");
          return g_steal_pointer (&events);
        }
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "%s:1: the file is empty (the first line is missing)", path);
      return NULL;
    }

  while (pos < length)
    {
      const char *line = contents + pos;
      const char *end = memchr (line, '\n', length - pos);
      g_autoptr(JsonNode) node = NULL;

      line_number++;

      if ((line_number & 1023) == 0 &&
          g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;

      if (end == NULL)
        {
          if (bad != NULL)
            {
              bad->line = line_number;
              bad->reason = g_strdup ("the last line is torn (no newline at the end)");
              break;
            }
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                       "%s:%u: the last line is torn (no newline at the end)",
                       path, line_number);
          return NULL;
        }

      node = natter_json_from_line (line, end - line, &local_error);
      if (node == NULL ||
          !check_event (self, node, id, line_number == 1, &local_error))
        {
          if (bad != NULL)
            {
              bad->line = line_number;
              bad->reason = g_strdup (local_error->message);
              break;
            }
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                       "%s:%u: %s", path, line_number, local_error->message);
          return NULL;
        }

      g_ptr_array_add (events, g_steal_pointer (&node));
      pos = (end - contents) + 1;
    }

  return g_steal_pointer (&events);
}

static GPtrArray *
read_file (NatterJsonlRepo  *self,
           const char       *id,
           GCancellable     *cancellable,
           GError          **error)
{
  return read_file_full (self, id, NULL, cancellable, error);
}

static gboolean
is_digits (const char *name,
           gsize       n)
{
  if (strlen (name) != n)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isdigit (name[i]))
      return FALSE;
  return TRUE;
}

/* Opens one partition level; a missing or unreadable level is skipped with
 * a debug message only, so that one odd directory never hides the rest of
 * the history (pitfalls.md 2). The top level is the caller's business. */
static GDir *
open_level (const char *path)
{
  g_autoptr(GError) error = NULL;
  GDir *dir = g_dir_open (path, 0, &error);

  if (dir == NULL)
    g_debug ("Skipping %s: %s", path, error->message);
  return dir;
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static GStrv
list_ids (NatterJsonlRepo  *self,
          GCancellable     *cancellable,
          GError          **error)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) local_error = NULL;
  GDir *top;
  const char *year;

  top = g_dir_open (self->kind_path, 0, &local_error);
  if (top == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          g_ptr_array_add (ids, NULL);
          return (GStrv) g_ptr_array_free (g_steal_pointer (&ids), FALSE);
        }
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "Could not list %s: %s", self->kind_path, local_error->message);
      return NULL;
    }

  while ((year = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *year_path = NULL;
      GDir *year_dir;
      const char *month;

      if (!is_digits (year, 4))
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_dir_close (top);
          return NULL;
        }

      year_path = g_build_filename (self->kind_path, year, NULL);
      if ((year_dir = open_level (year_path)) == NULL)
        continue;

      while ((month = g_dir_read_name (year_dir)) != NULL)
        {
          g_autofree char *month_path = NULL;
          GDir *month_dir;
          const char *day;

          if (!is_digits (month, 2))
            continue;
          month_path = g_build_filename (year_path, month, NULL);
          if ((month_dir = open_level (month_path)) == NULL)
            continue;

          while ((day = g_dir_read_name (month_dir)) != NULL)
            {
              g_autofree char *day_path = NULL;
              g_autofree char *partition = NULL;
              GDir *day_dir;
              const char *name;

              if (!is_digits (day, 2))
                continue;
              day_path = g_build_filename (month_path, day, NULL);
              if ((day_dir = open_level (day_path)) == NULL)
                continue;
              partition = g_strdup_printf ("%s/%s/%s", year, month, day);

              while ((name = g_dir_read_name (day_dir)) != NULL)
                {
                  g_autofree char *id = NULL;
                  g_autofree char *id_partition = NULL;
                  g_autofree char *file_path = NULL;

                  if (!g_str_has_suffix (name, ".jsonl"))
                    continue;

                  id = g_strndup (name, strlen (name) - strlen (".jsonl"));
                  file_path = g_build_filename (day_path, name, NULL);

                  if (!natter_id_validate (id, NULL))
                    {
                      g_debug ("Ignoring %s: the name is not a valid id", file_path);
                      continue;
                    }
                  id_partition = natter_id_partition (id);
                  if (strcmp (id_partition, partition) != 0)
                    {
                      g_debug ("Ignoring %s: it is not in its id's partition %s",
                               file_path, id_partition);
                      continue;
                    }
                  /* Something else where the file should be (a
                   * directory, say) is still this id: listed, so that
                   * reading it reports the damage instead of the log
                   * vanishing without a word. */
                  g_ptr_array_add (ids, g_steal_pointer (&id));
                }
              g_dir_close (day_dir);
            }
          g_dir_close (month_dir);
        }
      g_dir_close (year_dir);
    }
  g_dir_close (top);

  /* Ids sort in creation order as plain strings (natter-id.c). */
  g_ptr_array_sort (ids, compare_ids);
  g_ptr_array_add (ids, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&ids), FALSE);
}

static gboolean
delete_file (NatterJsonlRepo  *self,
             const char       *id,
             GError          **error)
{
  g_autofree char *path = file_path_for (self, id, error);

  if (path == NULL)
    return FALSE;

  /* Only this file: the partition directories stay even when empty, and
   * nothing that the file refers to is touched (spec §4.3, §9.4). */
  if (g_unlink (path) < 0)
    {
      if (errno == ENOENT)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND,
                       "%s does not exist", path);
          return FALSE;
        }
      return set_io_error (error, errno, "delete", path);
    }
  return TRUE;
}

/* The temporary name create_file() gives a log's first line before the
 * link: `.<id>.jsonl.XXXXXX`, the X being g_mkstemp()'s letters and
 * digits. Returns the id, or NULL for any other name. */
static char *
leftover_temp_id (const char *name)
{
  static const char suffix[] = ".jsonl.";
  gsize length = strlen (name);
  gsize id_length;
  g_autofree char *id = NULL;

  if (name[0] != '.' || length < 1 + strlen (suffix) + 6)
    return NULL;
  for (gsize i = length - 6; i < length; i++)
    if (!g_ascii_isalnum (name[i]))
      return NULL;
  id_length = length - 6 - strlen (suffix) - 1;
  if (strncmp (name + 1 + id_length, suffix, strlen (suffix)) != 0)
    return NULL;
  id = g_strndup (name + 1, id_length);
  if (!natter_id_validate (id, NULL))
    return NULL;
  return g_steal_pointer (&id);
}

/* Removes the leftover temporary files of one day directory (partition
 * @partition). Only regular files of exactly the temporary name, in their
 * id's own partition, are touched: nothing else there was made by
 * create_file(). */
static gboolean
remove_leftovers_in (const char    *day_path,
                     const char    *partition,
                     gint64         modified_before,
                     guint         *removed,
                     GCancellable  *cancellable,
                     GError       **error)
{
  GDir *dir = open_level (day_path);
  const char *name;

  if (dir == NULL)
    return TRUE;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *id = leftover_temp_id (name);
      g_autofree char *id_partition = NULL;
      g_autofree char *path = NULL;
      struct stat st;

      if (id == NULL)
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_dir_close (dir);
          return FALSE;
        }
      id_partition = natter_id_partition (id);
      if (strcmp (id_partition, partition) != 0)
        continue;

      path = g_build_filename (day_path, name, NULL);
      if (lstat (path, &st) < 0 || !S_ISREG (st.st_mode))
        continue;
      /* Made since the caller's writing began: a create of its own that
       * may still be in progress. */
      if ((gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000 >= modified_before)
        continue;

      /* A kill after the link leaves this name as a second link to the
       * live log (st_nlink 2): unlink() takes away this name only, and the
       * log keeps every byte under `<id>.jsonl`. A kill before the link
       * leaves the only name of a first line that was never committed. */
      if (g_unlink (path) < 0)
        {
          int saved_errno = errno;

          if (saved_errno == ENOENT)
            continue;
          g_dir_close (dir);
          return set_io_error (error, saved_errno, "remove the leftover temporary file", path);
        }
      g_debug ("Removed %s, left by an interrupted create%s", path,
               st.st_nlink > 1 ? " (a second name of the log)" : "");
      (*removed)++;
    }
  g_dir_close (dir);
  return TRUE;
}

static gboolean
remove_leftovers (NatterJsonlRepo  *self,
                  gint64            modified_before,
                  guint            *removed,
                  GCancellable     *cancellable,
                  GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  GDir *top;
  const char *year;
  gboolean ok = TRUE;

  top = g_dir_open (self->kind_path, 0, &local_error);
  if (top == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "Could not list %s: %s", self->kind_path, local_error->message);
      return FALSE;
    }

  /* The same partition levels as list_ids(). */
  while (ok && (year = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *year_path = NULL;
      GDir *year_dir;
      const char *month;

      if (!is_digits (year, 4))
        continue;
      year_path = g_build_filename (self->kind_path, year, NULL);
      if ((year_dir = open_level (year_path)) == NULL)
        continue;

      while (ok && (month = g_dir_read_name (year_dir)) != NULL)
        {
          g_autofree char *month_path = NULL;
          GDir *month_dir;
          const char *day;

          if (!is_digits (month, 2))
            continue;
          month_path = g_build_filename (year_path, month, NULL);
          if ((month_dir = open_level (month_path)) == NULL)
            continue;

          while (ok && (day = g_dir_read_name (month_dir)) != NULL)
            {
              g_autofree char *day_path = NULL;
              g_autofree char *partition = NULL;

              if (!is_digits (day, 2))
                continue;
              day_path = g_build_filename (month_path, day, NULL);
              partition = g_strdup_printf ("%s/%s/%s", year, month, day);
              ok = remove_leftovers_in (day_path, partition, modified_before, removed, cancellable, error);
            }
          g_dir_close (month_dir);
        }
      g_dir_close (year_dir);
    }
  g_dir_close (top);
  return ok;
}

/* Public synchronous API. */

/**
 * natter_jsonl_repo_get_file:
 * @self: a #NatterJsonlRepo
 * @id: a turn or session id
 * @error: return location for a #GError
 *
 * The file of @id: `storage/<kind>/YYYY/MM/DD/<id>.jsonl`
 * (turn-runtime.md §2, session-layer-spec.md §4.1). Touches nothing on
 * disk.
 *
 * Returns: (transfer full) (nullable): the file, or %NULL with
 *   %NATTER_STORE_ERROR_INVALID_ID.
 */
GFile *
natter_jsonl_repo_get_file (NatterJsonlRepo  *self,
                            const char       *id,
                            GError          **error)
{
  g_autofree char *path = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);

  path = file_path_for (self, id, error);
  if (path == NULL)
    return NULL;
  return g_file_new_for_path (path);
}

/**
 * natter_jsonl_repo_create_sync:
 * @self: a #NatterJsonlRepo
 * @id: the new log's id
 * @created_event: (transfer none): the first event, of the repo's created
 *   type
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Creates the log of @id with @created_event as its only line
 * (session-layer-spec.md §4.3 `create`). The partition directories are
 * made with mode 0700 and the file with mode 0600. Blocks: call it from a
 * worker thread.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID (nothing touched), EXISTS (the file is left unchanged), IO,
 *   or the event's validation error (SCHEMA, UNKNOWN_TYPE,
 *   UNSUPPORTED_VERSION, NOT_LOSSLESS; nothing written); or
 *   %G_IO_ERROR_CANCELLED.
 */
gboolean
natter_jsonl_repo_create_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               JsonNode         *created_event,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(GBytes) line = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (created_event != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_id_validate (id, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  line = serialize_events (self, id, &created_event, 1, TRUE, error);
  if (line == NULL)
    return FALSE;

  return create_file (self, id, line, error);
}

/**
 * natter_jsonl_repo_read_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads and validates the whole log of @id strictly (turn-runtime.md §2,
 * session-layer-spec.md §4.2): line 1 must be the created event, no later
 * line may be, every line must be a canonical lossless JSON object that
 * passes the validator, and the file must end with a newline. Any failure
 * rejects the whole file; nothing is repaired or skipped. Blocks.
 *
 * Returns: (transfer full) (element-type JsonNode): the events, element i
 *   being line i + 1 (the event's 1-based `offset`). %NULL with a
 *   %NATTER_STORE_ERROR code: INVALID_ID, NOT_FOUND, IO, or CORRUPT with a
 *   message `<path>:<line>: <reason>`; or %G_IO_ERROR_CANCELLED.
 */
GPtrArray *
natter_jsonl_repo_read_sync (NatterJsonlRepo  *self,
                             const char       *id,
                             GCancellable     *cancellable,
                             GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!natter_id_validate (id, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return read_file (self, id, cancellable, error);
}

/**
 * natter_jsonl_repo_read_prefix_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @out_line: (out): the 1-based number of the first line that cannot be
 *   read, 0 when every line reads
 * @out_reason: (out) (transfer full) (nullable): why that line cannot be
 *   read, without the path; %NULL when every line reads
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the readable prefix of a damaged log, for showing and copying
 * what is left of it (never for using the log itself: that stays
 * natter_jsonl_repo_read_sync()'s all-or-nothing verdict,
 * session-layer-spec.md §4.2). Each line is checked exactly as
 * natter_jsonl_repo_read_sync() does; the read stops at the first line
 * that fails. The file is only read, never changed. Blocks.
 *
 * Returns: (transfer full) (element-type JsonNode): the events of the
 *   lines before the first bad one (possibly none); %NULL when the file
 *   cannot be read at all, with a %NATTER_STORE_ERROR (INVALID_ID,
 *   NOT_FOUND, IO, CORRUPT for something that is not a regular file) or
 *   %G_IO_ERROR_CANCELLED
 */
GPtrArray *
natter_jsonl_repo_read_prefix_sync (NatterJsonlRepo  *self,
                                    const char       *id,
                                    guint            *out_line,
                                    char            **out_reason,
                                    GCancellable     *cancellable,
                                    GError          **error)
{
  BadLine bad = { 0, NULL };
  GPtrArray *events;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (out_line != NULL, NULL);
  g_return_val_if_fail (out_reason != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  *out_line = 0;
  *out_reason = NULL;
  if (!natter_id_validate (id, error))
    return NULL;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  events = read_file_full (self, id, &bad, cancellable, error);
  if (events == NULL)
    {
      g_free (bad.reason);
      return NULL;
    }
  *out_line = bad.line;
  *out_reason = bad.reason;
  return events;
}

/**
 * natter_jsonl_repo_append_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @events: (element-type JsonNode) (transfer none): the events to append,
 *   none of the created type
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Appends @events as one batch (session-layer-spec.md §4.3 `append`):
 * every event is validated and serialized first, then all lines go to the
 * end of the existing file with a single write(). If any event is invalid
 * nothing is written. The file is not fsynced (spec §4.2). An empty batch
 * does nothing. Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID, NOT_FOUND (never created), CORRUPT (the file is empty or
 *   ends in a torn line), IO, or the validation error of the first invalid
 *   event; or %G_IO_ERROR_CANCELLED.
 */
gboolean
natter_jsonl_repo_append_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               GPtrArray        *events,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_autoptr(GBytes) lines = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (events != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_id_validate (id, error))
    return FALSE;
  if (events->len == 0)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  lines = serialize_events (self, id, (JsonNode * const *) events->pdata, events->len,
                            FALSE, error);
  if (lines == NULL)
    return FALSE;

  return append_to_file (self, id, lines, error);
}

/**
 * natter_jsonl_repo_list_ids_sync:
 * @self: a #NatterJsonlRepo
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Enumerates the ids of all logs across the `YYYY/MM/DD` partitions
 * (session-layer-spec.md §4.3 `listSessionIds`, for the startup scan).
 * Files whose name is not a valid id or that sit in the wrong partition
 * are left out (with a debug message), as are directories that are not
 * partitions. A missing kind directory is an empty list. Blocks.
 *
 * Returns: (transfer full): the ids, sorted ascending (creation order).
 *   %NULL with %NATTER_STORE_ERROR_IO if the kind directory cannot be
 *   read, or %G_IO_ERROR_CANCELLED.
 */
GStrv
natter_jsonl_repo_list_ids_sync (NatterJsonlRepo  *self,
                                 GCancellable     *cancellable,
                                 GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  return list_ids (self, cancellable, error);
}

/**
 * natter_jsonl_repo_delete_sync:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the log of @id and nothing else (session-layer-spec.md §4.3
 * `delete`, §9.4): no directory, no referenced file. Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with a %NATTER_STORE_ERROR code:
 *   INVALID_ID, NOT_FOUND, IO; or %G_IO_ERROR_CANCELLED.
 */
gboolean
natter_jsonl_repo_delete_sync (NatterJsonlRepo  *self,
                               const char       *id,
                               GCancellable     *cancellable,
                               GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!natter_id_validate (id, error))
    return FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  return delete_file (self, id, error);
}

/**
 * natter_jsonl_repo_remove_leftover_temp_files_sync:
 * @self: a #NatterJsonlRepo
 * @modified_before: only files last modified before this wall-clock time
 *   are removed, in microseconds since the Unix epoch (g_get_real_time())
 * @out_removed: (out) (optional): how many files were removed
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the temporary files that creates interrupted by a kill left
 * beside the logs: `.<id>.jsonl.XXXXXX` in the id's partition directory,
 * the name a create writes the first line under before linking it into
 * place (natter_jsonl_repo_create_sync()). No listing or read ever sees
 * them; they only take room. Nothing else is touched: no `.jsonl` file,
 * no other name, nothing that is not a regular file. When the kill came
 * after the link, the temporary name is a second hard link to the live
 * log; removing it removes that name only, and the log keeps every byte.
 *
 * Removing the temporary file of a create still in progress would make
 * that create fail, so the caller must know that none is: call it only
 * while holding the storage directory's single-writer lock (no other
 * process writes), with @modified_before the time the lock was taken.
 * Files modified since then are left alone: they may be this process's
 * own creates in progress, so the removal may run in a worker thread
 * while the process writes. The services do so once the index is loaded
 * (natter_services_remove_leftover_temp_files_async()). Blocks.
 *
 * Returns: %TRUE on success. Else %FALSE with %NATTER_STORE_ERROR_IO (a
 *   directory could not be listed or a file removed; files removed before
 *   that stay removed) or %G_IO_ERROR_CANCELLED.
 */
gboolean
natter_jsonl_repo_remove_leftover_temp_files_sync (NatterJsonlRepo  *self,
                                                   gint64            modified_before,
                                                   guint            *out_removed,
                                                   GCancellable     *cancellable,
                                                   GError          **error)
{
  guint removed = 0;
  gboolean ok;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  ok = !g_cancellable_set_error_if_cancelled (cancellable, error) &&
       remove_leftovers (self, modified_before, &removed, cancellable, error);
  if (out_removed != NULL)
    *out_removed = removed;
  return ok;
}

/* Asynchronous forms. */

typedef enum
{
  OP_CREATE,
  OP_READ,
  OP_APPEND,
  OP_LIST_IDS,
  OP_DELETE,
} Op;

typedef struct
{
  Op      op;
  char   *id;
  /* The serialized lines of a create or append, made on the caller's
   * thread. */
  GBytes *lines;
} RepoTaskData;

static void
repo_task_data_free (RepoTaskData *data)
{
  g_clear_pointer (&data->id, g_free);
  g_clear_pointer (&data->lines, g_bytes_unref);
  g_free (data);
}

static void
repo_thread_func (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  NatterJsonlRepo *self = source_object;
  RepoTaskData *data = task_data;
  g_autoptr(GError) error = NULL;

  if (g_task_return_error_if_cancelled (task))
    return;

  switch (data->op)
    {
    case OP_CREATE:
      if (create_file (self, data->id, data->lines, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_APPEND:
      if (append_to_file (self, data->id, data->lines, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_DELETE:
      if (delete_file (self, data->id, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      break;

    case OP_READ:
      {
        GPtrArray *events = read_file (self, data->id, cancellable, &error);

        if (events != NULL)
          g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
        else
          g_task_return_error (task, g_steal_pointer (&error));
      }
      break;

    case OP_LIST_IDS:
      {
        GStrv ids = list_ids (self, cancellable, &error);

        if (ids != NULL)
          g_task_return_pointer (task, ids, (GDestroyNotify) g_strfreev);
        else
          g_task_return_error (task, g_steal_pointer (&error));
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

/* Starts the task in a worker, or completes it at once (from an idle, as
 * GTask does for results returned in the creating iteration) when the
 * request is already known to fail. */
static void
start_task (NatterJsonlRepo     *self,
            Op                   op,
            const char          *id,
            GBytes              *lines,
            GError              *early_error,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data,
            gpointer             source_tag)
{
  g_autoptr(GTask) task = NULL;
  RepoTaskData *data;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, source_tag);

  if (early_error != NULL)
    {
      g_task_return_error (task, early_error);
      return;
    }

  data = g_new0 (RepoTaskData, 1);
  data->op = op;
  data->id = g_strdup (id);
  data->lines = lines != NULL ? g_bytes_ref (lines) : NULL;
  g_task_set_task_data (task, data, (GDestroyNotify) repo_task_data_free);

  g_task_run_in_thread (task, repo_thread_func);
}

static gboolean
finish_boolean (NatterJsonlRepo  *self,
                GAsyncResult     *result,
                gpointer          source_tag,
                GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static gpointer
finish_pointer (NatterJsonlRepo  *self,
                GAsyncResult     *result,
                gpointer          source_tag,
                GError          **error)
{
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_jsonl_repo_create_async:
 * @self: a #NatterJsonlRepo
 * @id: the new log's id
 * @created_event: (transfer none): the first event
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_create_sync(). @created_event is
 * validated and serialized before this returns, so the caller may reuse it
 * at once; the file system work runs in a worker thread.
 */
void
natter_jsonl_repo_create_async (NatterJsonlRepo     *self,
                                const char          *id,
                                JsonNode            *created_event,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GBytes) line = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));
  g_return_if_fail (created_event != NULL);

  if (natter_id_validate (id, &error))
    line = serialize_events (self, id, &created_event, 1, TRUE, &error);

  start_task (self, OP_CREATE, id, line, error, cancellable, callback, user_data,
              natter_jsonl_repo_create_async);
}

/**
 * natter_jsonl_repo_create_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_create_async().
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_create_sync().
 */
gboolean
natter_jsonl_repo_create_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_create_async, error);
}

/**
 * natter_jsonl_repo_read_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_read_sync(); reading and validation
 * run in a worker thread.
 */
void
natter_jsonl_repo_read_async (NatterJsonlRepo     *self,
                              const char          *id,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  natter_id_validate (id, &error);
  start_task (self, OP_READ, id, NULL, error, cancellable, callback, user_data,
              natter_jsonl_repo_read_async);
}

/**
 * natter_jsonl_repo_read_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_read_async().
 *
 * Returns: (transfer full) (element-type JsonNode) (nullable): the events;
 *   errors as natter_jsonl_repo_read_sync().
 */
GPtrArray *
natter_jsonl_repo_read_finish (NatterJsonlRepo  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_read_async, error);
}

/**
 * natter_jsonl_repo_append_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @events: (element-type JsonNode) (transfer none): the batch
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_append_sync(). The batch is validated
 * and serialized before this returns (an invalid batch fails without a
 * worker and writes nothing); the single write runs in a worker thread.
 * Batches started one after another on one id are not ordered with each
 * other: hold the id's lock (natter_jsonl_repo_lock_async()) and await
 * each append when the order matters.
 */
void
natter_jsonl_repo_append_async (NatterJsonlRepo     *self,
                                const char          *id,
                                GPtrArray           *events,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GBytes) lines = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));
  g_return_if_fail (events != NULL);

  if (natter_id_validate (id, &error))
    {
      if (events->len == 0)
        {
          g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

          g_task_set_source_tag (task, natter_jsonl_repo_append_async);
          g_task_return_boolean (task, TRUE);
          return;
        }
      lines = serialize_events (self, id, (JsonNode * const *) events->pdata, events->len,
                                FALSE, &error);
    }

  start_task (self, OP_APPEND, id, lines, error, cancellable, callback, user_data,
              natter_jsonl_repo_append_async);
}

/**
 * natter_jsonl_repo_append_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_append_async(). Success means the write
 * returned; the data is in the page cache, not necessarily on disk.
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_append_sync().
 */
gboolean
natter_jsonl_repo_append_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_append_async, error);
}

/**
 * natter_jsonl_repo_list_ids_async:
 * @self: a #NatterJsonlRepo
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_list_ids_sync(), in a worker thread.
 */
void
natter_jsonl_repo_list_ids_async (NatterJsonlRepo     *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  start_task (self, OP_LIST_IDS, NULL, NULL, NULL, cancellable, callback, user_data,
              natter_jsonl_repo_list_ids_async);
}

/**
 * natter_jsonl_repo_list_ids_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_list_ids_async().
 *
 * Returns: (transfer full) (nullable): the sorted ids; errors as
 *   natter_jsonl_repo_list_ids_sync().
 */
GStrv
natter_jsonl_repo_list_ids_finish (NatterJsonlRepo  *self,
                                   GAsyncResult     *result,
                                   GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_list_ids_async, error);
}

/**
 * natter_jsonl_repo_delete_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * The asynchronous natter_jsonl_repo_delete_sync(), in a worker thread.
 */
void
natter_jsonl_repo_delete_async (NatterJsonlRepo     *self,
                                const char          *id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  natter_id_validate (id, &error);
  start_task (self, OP_DELETE, id, NULL, error, cancellable, callback, user_data,
              natter_jsonl_repo_delete_async);
}

/**
 * natter_jsonl_repo_delete_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_delete_async().
 *
 * Returns: %TRUE on success; errors as natter_jsonl_repo_delete_sync().
 */
gboolean
natter_jsonl_repo_delete_finish (NatterJsonlRepo  *self,
                                 GAsyncResult     *result,
                                 GError          **error)
{
  return finish_boolean (self, result, natter_jsonl_repo_delete_async, error);
}

/* with_lock */

static void
lock_acquired_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  NatterLockGuard *guard;

  guard = natter_keyed_mutex_acquire_finish (NATTER_KEYED_MUTEX (source), result, &error);
  if (guard == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, guard, (GDestroyNotify) natter_lock_guard_release);
}

/**
 * natter_jsonl_repo_lock_async:
 * @self: a #NatterJsonlRepo
 * @id: the log's id
 * @cancellable: (nullable): cancels the wait while queued
 * @callback: called on the current thread-default main context
 * @user_data: data for @callback
 *
 * Waits for the in-process lock of @id (`with_lock`, turn-runtime.md §2,
 * session-layer-spec.md §4.3): a FIFO per id, held across any number of
 * main-loop iterations until the guard is released. It orders this
 * process's read-modify-append cycles; it does not lock the file against
 * other processes.
 */
void
natter_jsonl_repo_lock_async (NatterJsonlRepo     *self,
                              const char          *id,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_JSONL_REPO (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_jsonl_repo_lock_async);

  if (!natter_id_validate (id, &error))
    {
      g_task_return_error (task, error);
      return;
    }

  natter_keyed_mutex_acquire_async (self->locks, id, cancellable,
                                    lock_acquired_cb, g_steal_pointer (&task));
}

/**
 * natter_jsonl_repo_lock_finish:
 * @self: a #NatterJsonlRepo
 * @result: the result passed to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_jsonl_repo_lock_async().
 *
 * Returns: (transfer full) (nullable): the guard; release it with
 *   natter_lock_guard_release(). %NULL with
 *   %NATTER_STORE_ERROR_INVALID_ID or %G_IO_ERROR_CANCELLED.
 */
NatterLockGuard *
natter_jsonl_repo_lock_finish (NatterJsonlRepo  *self,
                               GAsyncResult     *result,
                               GError          **error)
{
  return finish_pointer (self, result, natter_jsonl_repo_lock_async, error);
}
