/* natter-jsonl-file.c
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

#include "natter-fd-private.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-store-error.h"
#include "natter-sync-folder.h"
#include "natter-store-temp.h"

#include "natter-jsonl-repo-private.h"

/* The I/O on one append-only log: create it with its first line through a
 * temporary file and link(), append whole batches of lines with one
 * write() after checking the tail, and read it strictly (or up to its
 * first bad line). Events are checked on the way in and on the way out. */

static gboolean
close_fd (int          fd,
          const char  *path,
          GError     **error)
{
  if (close (fd) < 0 && errno != EINTR)
    return natter_store_set_io_error (error, errno, "close", path);
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
GBytes *
natter_jsonl_file_serialize_events (NatterJsonlRepo  *self,
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

/* Writes @line to a temporary file beside @path and links it into
 * place; the temporary file is gone afterwards, whatever happened. */
static gboolean
create_through_temp (NatterJsonlRepo  *self,
                     const char       *path,
                     const char       *id,
                     GBytes           *line,
                     GError          **error)
{
  struct stat written;
  struct stat placed;
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *temp_path = g_strdup_printf ("%s/.%s.jsonl.XXXXXX", dir, id);
  const char *data;
  gsize length;
  gboolean linked;
  int saved_errno;
  int fd;

  fd = g_mkstemp_full (temp_path, O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return natter_store_set_io_error (error, errno, "create", temp_path);

  data = g_bytes_get_data (line, &length);
  if (fchmod (fd, 0600) < 0)
    {
      saved_errno = errno;
      close (fd);
      g_unlink (temp_path);
      return natter_store_set_io_error (error, saved_errno, "set the mode of", temp_path);
    }
  if (!natter_fd_write_all (fd, data, length))
    {
      saved_errno = errno;
      close (fd);
      g_unlink (temp_path);
      return natter_store_set_io_error (error, saved_errno, "write to", temp_path);
    }
  if (fstat (fd, &written) < 0)
    written.st_ino = 0;
  if (!close_fd (fd, temp_path, error))
    {
      g_unlink (temp_path);
      return FALSE;
    }

  linked = link (temp_path, path) == 0;
  saved_errno = errno;
  g_unlink (temp_path);
  /* The log as this write left it is seen (natter-jsonl-seen.c): taken
   * from its name once the temporary one is gone, which changed its
   * change time, and only while it is still the file written here,
   * unchanged. */
  if (linked)
    {
      NatterFileIdentity after;

      if (written.st_ino != 0 && stat (path, &placed) == 0 && placed.st_ino == written.st_ino &&
          placed.st_dev == written.st_dev && (gsize) placed.st_size == length)
        {
          natter_file_identity_from_stat (&placed, &after);
          natter_jsonl_seen_note_write (self, id, NULL, &after);
        }
      else
        natter_jsonl_seen_forget (self, id);
    }

  if (!linked)
    {
      if (saved_errno == EEXIST)
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_EXISTS,
                       "%s already exists", path);
          return FALSE;
        }
      return natter_store_set_io_error (error, saved_errno, "create", path);
    }

  return TRUE;
}

gboolean
natter_jsonl_file_create (NatterJsonlRepo  *self,
                          const char       *id,
                          GBytes           *line,
                          GError          **error)
{
  g_autofree char *path = NULL;

  if (!natter_write_refusal_check (&self->write_refusal, error))
    return FALSE;
  path = natter_jsonl_layout_file_path (self, id, error);
  if (path == NULL)
    return FALSE;

  if (!natter_jsonl_layout_ensure_partition_dir (self, id, error))
    return FALSE;

  /* The first line is written to a temporary file beside the log, then
   * link()ed into place: link fails if the log exists, which makes "create
   * fails if the file exists" atomic, and a kill at any moment leaves
   * either no log or a log with its whole first line, never a log that
   * reads as corrupt for ever. A stray temporary file is not a `.jsonl`
   * name, so no listing ever sees it, and the next writer to start
   * removes it (natter_jsonl_repo_remove_leftover_temp_files_sync()). */
  {
    gboolean created;

    /* A sweep of leftovers never takes this temporary file for one. */
    natter_store_temp_begin ();
    created = create_through_temp (self, path, id, line, error);
    natter_store_temp_end ();
    return created;
  }
}

/* Records what an append of @length bytes to @fd, which was @before,
 * left (natter-jsonl-seen.c): seen only when the file grew by exactly
 * those bytes, so that another process's append to the same file in
 * the meantime is read by the watch rather than taken for ours. */
static void
note_append (NatterJsonlRepo   *self,
             const char        *id,
             int                fd,
             const struct stat *before,
             gsize              length)
{
  NatterFileIdentity was;
  NatterFileIdentity now;
  struct stat after;

  if (fstat (fd, &after) < 0 || (guint64) after.st_size != (guint64) before->st_size + length)
    {
      natter_jsonl_seen_forget (self, id);
      return;
    }
  natter_file_identity_from_stat (before, &was);
  natter_file_identity_from_stat (&after, &now);
  natter_jsonl_seen_note_write (self, id, &was, &now);
}

static gboolean
append_to_file_locked (NatterJsonlRepo  *self,
                       const char       *id,
                       GBytes           *lines,
                       GError          **error)
{
  g_autofree char *path = natter_jsonl_layout_file_path (self, id, error);
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
    return natter_store_set_file_error (error, errno, "open", path);

  if (fstat (fd, &st) < 0)
    {
      natter_store_set_io_error (error, errno, "inspect", path);
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
          natter_store_set_io_error (error, errno, "read", path);
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
  if (!natter_fd_write_all (fd, data, length))
    {
      int saved_errno = errno;

      natter_jsonl_seen_forget (self, id);
      close (fd);
      return natter_store_set_io_error (error, saved_errno, "write to", path);
    }
  note_append (self, id, fd, &st, length);

  return close_fd (fd, path, error);
}

gboolean
natter_jsonl_file_append (NatterJsonlRepo  *self,
                          const char       *id,
                          GBytes           *lines,
                          GError          **error)
{
  gboolean ok;

  if (!natter_write_refusal_check (&self->write_refusal, error))
    return FALSE;
  g_mutex_lock (&self->append_lock);
  ok = append_to_file_locked (self, id, lines, error);
  g_mutex_unlock (&self->append_lock);

  return ok;
}

/* Reads all of @path into @stack_buffer (NATTER_JSONL_READ_STACK_SIZE
 * bytes) or, if it does not fit, into *@out_heap (then owned by the
 * caller). Shared with the startup scan's tree-free reads, which leave
 * any failure to the full read to report. Most logs fit in the stack
 * buffer, so reading one costs no heap buffer: a fresh multi-kilobyte
 * malloc per file also made glibc consolidate the previous file's freed
 * JSON nodes every time. */
gboolean
natter_jsonl_file_load (const char  *path,
                        char        *stack_buffer,
                        char       **out_contents,
                        gsize       *out_length,
                        char       **out_heap,
                        GError     **error)
{
  struct stat info;
  int fd;

  *out_heap = NULL;
  do
    fd = open (path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return natter_store_set_file_error (error, errno, "read", path);
  return natter_jsonl_file_load_fd (fd, path, &info, stack_buffer, out_contents, out_length, out_heap, error);
}

/* The rest of natter_jsonl_file_load() once @fd is open: checks that it
 * is a regular file, reads it whole and closes @fd whatever happens.
 * *@info is its fstat(), taken before the read. @path only names the
 * file in errors. */
gboolean
natter_jsonl_file_load_fd (int          fd,
                           const char  *path,
                           struct stat *info,
                           char        *stack_buffer,
                           char       **out_contents,
                           gsize       *out_length,
                           char       **out_heap,
                           GError     **error)
{
  *out_heap = NULL;
  if (fstat (fd, info) < 0)
    {
      int saved_errno = errno;

      close (fd);
      return natter_store_set_io_error (error, saved_errno, "inspect", path);
    }
  if (!S_ISREG (info->st_mode))
    {
      close (fd);
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   S_ISDIR (info->st_mode) ? "%s is a directory, not a file"
                                           : "%s is not a regular file",
                   path);
      return FALSE;
    }

  if (!natter_fd_read_all (fd, (gsize) info->st_size, stack_buffer, NATTER_JSONL_READ_STACK_SIZE, out_heap,
                           out_contents, out_length))
    {
      int saved_errno = errno;

      close (fd);
      return natter_store_set_io_error (error, saved_errno, "read", path);
    }
  close (fd);
  return TRUE;
}

/* The one place a log's errors get their file and line: every reason a
 * strict read refuses a log — its bytes, its schema or the fold of its
 * reader — becomes `<path>:<line>: <reason>`, keeping @domain and @code;
 * a reader of the readable prefix gets the line and the bare reason in
 * @bad instead. Returns %FALSE for the caller to pass on. */
static gboolean
refuse_line (GError             **error,
             NatterJsonlBadLine  *bad,
             const char          *path,
             guint                line_number,
             GQuark               domain,
             int                  code,
             const char          *reason)
{
  if (bad != NULL)
    {
      bad->line = line_number;
      bad->reason = g_strdup (reason);
    }
  else
    g_set_error (error, domain, code, "%s:%u: %s", path, line_number, reason);
  return FALSE;
}

GPtrArray *
natter_jsonl_file_read_full (NatterJsonlRepo     *self,
                             const char          *id,
                             NatterJsonlBadLine  *bad,
                             NatterEventFold      fold,
                             gpointer             fold_data,
                             GCancellable        *cancellable,
                             GError             **error)
{
  g_autofree char *path = natter_jsonl_layout_file_path (self, id, error);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *heap = NULL;
  char stack_buffer[NATTER_JSONL_READ_STACK_SIZE];
  char owner[NATTER_ID_LENGTH + 1];
  const char *contents = NULL;
  gsize length = 0;
  gsize pos = 0;
  guint line_number = 0;

  if (path == NULL)
    return NULL;
  /* Every event names the log's id; a conflict copy's name begins with
   * the id of the log it is a copy of (docs/format.md §9), whose events
   * it holds. */
  g_strlcpy (owner, id, sizeof owner);

  if (!natter_jsonl_file_load (path, stack_buffer, (char **) &contents, &length, &heap, &local_error))
    {
      /* A turn a session names that is not there yet, in a folder a
       * synchroniser shares, is on its way (docs/format.md §9.3). */
      if (self->missing_may_arrive &&
          g_error_matches (local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND) &&
          natter_sync_folder_is_shared (self->storage_path))
        {
          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED,
                       "%s has not arrived from another device yet", path);
          return NULL;
        }
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  if (length == 0)
    {
      refuse_line (error, bad, path, 1, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "the file is empty (the first line is missing)");
      return bad != NULL ? g_steal_pointer (&events) : NULL;
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
          refuse_line (error, bad, path, line_number, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                       "the last line is torn (no newline at the end)");
          break;
        }

      node = natter_json_from_line (line, end - line, &local_error);
      if (node == NULL ||
          !check_event (self, node, owner, line_number == 1, &local_error))
        {
          refuse_line (error, bad, path, line_number, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                       local_error->message);
          break;
        }
      /* The reader's own rules (a reducer's order of events) keep their
       * error code: only the place is added. */
      if (fold != NULL && !fold (json_node_get_object (node), fold_data, &local_error))
        {
          refuse_line (error, bad, path, line_number, local_error->domain, local_error->code,
                       local_error->message);
          break;
        }

      g_ptr_array_add (events, g_steal_pointer (&node));
      pos = (end - contents) + 1;
    }

  if (pos < length && bad == NULL)
    return NULL;
  return g_steal_pointer (&events);
}

GPtrArray *
natter_jsonl_file_read (NatterJsonlRepo  *self,
                        const char       *id,
                        GCancellable     *cancellable,
                        GError          **error)
{
  return natter_jsonl_file_read_full (self, id, NULL, NULL, NULL, cancellable, error);
}

gboolean
natter_jsonl_file_delete (NatterJsonlRepo  *self,
                          const char       *id,
                          GError          **error)
{
  g_autofree char *path = NULL;

  if (!natter_write_refusal_check (&self->write_refusal, error))
    return FALSE;
  path = natter_jsonl_layout_file_path (self, id, error);
  if (path == NULL)
    return FALSE;

  /* Only this file: the partition directories stay even when empty, and
   * nothing that the file refers to is touched (docs/sessions.md §6.3,
   * §9.4). */
  if (g_unlink (path) < 0)
    return natter_store_set_file_error (error, errno, "delete", path);
  /* Gone by this process's hand: nothing of it is left to read. */
  natter_jsonl_seen_mark (self, id, &(NatterFileIdentity) { .exists = FALSE });
  return TRUE;
}
