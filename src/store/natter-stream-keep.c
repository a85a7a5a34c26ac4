/* natter-stream-keep.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The log of a turn gets an answer's words only when its model call
 * closes: a line per streamed piece would grow every log by thousands of
 * lines. Until then the words live in the process, so a kill or a power
 * cut would lose all of them. This keeps them in one small file per turn,
 * replaced whole while the answer streams and removed once the call is
 * closed; the recovery of an interrupted call writes them into the log
 * as its `partial` (docs/format.md §11).
 *
 * The writes run in worker threads, never on the main thread: a frame of
 * a streaming answer must stay cheap. One turn's writes and its removal
 * are applied in the order they were asked, and only the last one asked
 * while another was running is applied after it: each write replaces the
 * whole file, so the ones in between would be overwritten anyway.
 */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-store-error.h"
#include "natter-stream-keep.h"
#include "natter-turn-reducer.h"
#include "natter-turn-schema.h"

#define SUFFIX ".json"

/* One turn whose file is being written or removed in a worker, and
 * what was asked for it meanwhile: the file's new text, or with @next
 * NULL its removal. */
typedef struct
{
  gboolean has_next;
  char    *next;
} Slot;

struct _NatterStreamKeep
{
  GObject     parent_instance;

  GFile      *dir;
  GError     *refusal;   /* nullable: natter_stream_keep_refuse_writes() */
  GHashTable *running;   /* turn id → Slot: a worker has it */
};

G_DEFINE_FINAL_TYPE (NatterStreamKeep, natter_stream_keep, G_TYPE_OBJECT)

static void
slot_free (Slot *slot)
{
  g_free (slot->next);
  g_free (slot);
}

static void
natter_stream_keep_finalize (GObject *object)
{
  NatterStreamKeep *self = NATTER_STREAM_KEEP (object);

  g_clear_object (&self->dir);
  g_clear_error (&self->refusal);
  g_clear_pointer (&self->running, g_hash_table_unref);

  G_OBJECT_CLASS (natter_stream_keep_parent_class)->finalize (object);
}

static void
natter_stream_keep_class_init (NatterStreamKeepClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_stream_keep_finalize;
}

static void
natter_stream_keep_init (NatterStreamKeep *self)
{
  self->running = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) slot_free);
}

/**
 * natter_stream_keep_new:
 * @data_dir: the data directory (docs/format.md §1)
 *
 * The words of the answers streaming, kept in @data_dir's `streams`
 * folder (docs/format.md §11). Nothing is read or made until asked.
 *
 * Returns: (transfer full): a new #NatterStreamKeep
 */
NatterStreamKeep *
natter_stream_keep_new (GFile *data_dir)
{
  NatterStreamKeep *self;

  g_return_val_if_fail (G_IS_FILE (data_dir), NULL);

  self = g_object_new (NATTER_TYPE_STREAM_KEEP, NULL);
  self->dir = g_file_get_child (data_dir, NATTER_STREAMS_DIR_NAME);
  return self;
}

static char *
keep_path (GFile      *dir,
           const char *turn_id)
{
  g_autofree char *name = g_strconcat (turn_id, SUFFIX, NULL);

  return g_build_filename (g_file_peek_path (dir), name, NULL);
}

/* Workers */

typedef struct
{
  char *dir;
  char *path;
  char *contents;   /* NULL: remove */
} Work;

static void
work_free (Work *work)
{
  g_free (work->dir);
  g_free (work->path);
  g_free (work->contents);
  g_free (work);
}

static void
work_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Work *work = task_data;
  GError *error = NULL;

  if (work->contents == NULL)
    {
      if (g_unlink (work->path) != 0 && errno != ENOENT)
        {
          int saved = errno;

          g_task_return_new_error (task, G_FILE_ERROR, g_file_error_from_errno (saved),
                                   "“%s” cannot be removed: %s", work->path, g_strerror (saved));
          return;
        }
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (g_mkdir_with_parents (work->dir, 0700) != 0)
    {
      int saved = errno;

      g_task_return_new_error (task, G_FILE_ERROR, g_file_error_from_errno (saved),
                               "The folder “%s” cannot be made: %s", work->dir, g_strerror (saved));
      return;
    }
  /* Written whole and renamed into place: a kill in the middle leaves
   * the words kept before, never half a file. */
  if (!g_file_set_contents_full (work->path, work->contents, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

static void start (NatterStreamKeep *self,
                   const char       *turn_id,
                   char             *contents);

static void
work_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  NatterStreamKeep *self = NATTER_STREAM_KEEP (object);
  g_autofree char *turn_id = user_data;
  g_autoptr(GError) error = NULL;
  Slot *slot;
  gboolean has_next;
  char *next;

  /* The answer streams on whatever happens here; only what a crash would
   * keep of it is less. A disk that refuses a write is no bug: logged
   * as a message, as every other such failure. */
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_message ("The words streaming for turn %s could not be kept: %s", turn_id, error->message);

  slot = g_hash_table_lookup (self->running, turn_id);
  g_assert (slot != NULL);
  has_next = slot->has_next;
  next = g_steal_pointer (&slot->next);
  g_hash_table_remove (self->running, turn_id);
  if (has_next)
    start (self, turn_id, next);
}

/* Runs @contents (transfer full; NULL: removal) for @turn_id now, or
 * after the write or removal running for it. */
static void
start (NatterStreamKeep *self,
       const char       *turn_id,
       char             *contents)
{
  g_autoptr(GTask) task = NULL;
  Slot *slot = g_hash_table_lookup (self->running, turn_id);
  Work *work;

  if (slot != NULL)
    {
      g_free (slot->next);
      slot->next = contents;
      slot->has_next = TRUE;
      return;
    }
  g_hash_table_insert (self->running, g_strdup (turn_id), g_new0 (Slot, 1));
  work = g_new0 (Work, 1);
  work->dir = g_file_get_path (self->dir);
  work->path = keep_path (self->dir, turn_id);
  work->contents = contents;
  task = g_task_new (self, NULL, work_done_cb, g_strdup (turn_id));
  g_task_set_source_tag (task, start);
  g_task_set_task_data (task, work, (GDestroyNotify) work_free);
  g_task_run_in_thread (task, work_thread);
}

/**
 * natter_stream_keep_save:
 * @self: the keep
 * @turn_id: the turn whose model call streams
 * @model_call_index: the call's `modelCallIndex`
 * @partial: (transfer none): the words streamed so far, an assistant
 *   message as `model_call_failed.partial` holds one (docs/format.md §4.2)
 *
 * Keeps @partial in place of what was kept for @turn_id before
 * (docs/format.md §11): the text is made now, the file written in a
 * worker thread, so this never waits for the disk. A write that fails is
 * logged; the answer goes on. Does nothing in a process that may not
 * write (natter_stream_keep_refuse_writes()) or for a @turn_id that is
 * no id.
 */
void
natter_stream_keep_save (NatterStreamKeep *self,
                         const char       *turn_id,
                         guint             model_call_index,
                         JsonNode         *partial)
{
  g_autoptr(JsonObject) kept = NULL;
  g_autoptr(JsonNode) root = NULL;

  g_return_if_fail (NATTER_IS_STREAM_KEEP (self));
  g_return_if_fail (partial != NULL);

  if (self->refusal != NULL || !natter_id_validate (turn_id, NULL))
    return;
  kept = json_object_new ();
  json_object_set_string_member (kept, "turnId", turn_id);
  json_object_set_int_member (kept, "modelCallIndex", model_call_index);
  json_object_set_member (kept, "partial", json_node_ref (partial));
  root = json_node_init_object (json_node_alloc (), kept);
  start (self, turn_id, natter_json_to_text (root, FALSE, NULL));
}

/**
 * natter_stream_keep_forget:
 * @self: the keep
 * @turn_id: a turn
 *
 * Removes what was kept for @turn_id, after any write of it still
 * running: its model call is closed in the log, which holds the words
 * now (or never will, for a completed call, which holds the whole
 * answer). In a worker thread; a removal that fails is logged, and
 * natter_stream_keep_sweep_sync() removes the file later.
 */
void
natter_stream_keep_forget (NatterStreamKeep *self,
                           const char       *turn_id)
{
  g_return_if_fail (NATTER_IS_STREAM_KEEP (self));

  if (self->refusal != NULL || !natter_id_validate (turn_id, NULL))
    return;
  start (self, turn_id, NULL);
}

/**
 * natter_stream_keep_is_busy:
 * @self: the keep
 *
 * Whether a write or a removal asked of @self is still running. Each
 * one's end is dispatched on the main context of the thread that asked
 * it, so a process about to exit iterates that context while this holds
 * (natter_services_flush_blocking()).
 *
 * Returns: %TRUE while work is running
 */
gboolean
natter_stream_keep_is_busy (NatterStreamKeep *self)
{
  g_return_val_if_fail (NATTER_IS_STREAM_KEEP (self), FALSE);

  return g_hash_table_size (self->running) > 0;
}

/* The words kept at @path for @turn_id: the `partial` and in
 * @out_index its call; %NULL with a #G_FILE_ERROR when the file cannot
 * be read (%G_FILE_ERROR_NOENT: none is kept), or with
 * %NATTER_STORE_ERROR_CORRUPT when it is not such a record. */
static JsonNode *
read_kept (const char  *path,
           const char  *turn_id,
           gint64      *out_index,
           GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize length = 0;
  JsonObject *kept;
  const char *kept_turn;
  JsonNode *partial;

  if (!g_file_get_contents (path, &contents, &length, &local_error))
    {
      /* GLib's message ends with the system's reason, after the path;
       * said here as every other reason the words cannot be read is. */
      const char *reason = strrchr (local_error->message, ':');

      reason = reason != NULL ? reason + 1 : local_error->message;
      while (*reason == ' ')
        reason++;
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, local_error->domain, local_error->code, "The words kept in “%s” cannot be read: %s",
                     path, reason);
      return NULL;
    }
  if ((root = natter_json_parse (contents, length, &local_error)) == NULL)
    goto corrupt;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (&local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT, "it is not a JSON object");
      goto corrupt;
    }
  kept = json_node_get_object (root);
  if ((kept_turn = natter_json_require_string (kept, "turnId", &local_error)) == NULL ||
      !natter_json_require_int_at_least (kept, "modelCallIndex", 0, out_index, &local_error) ||
      (partial = natter_json_require_member (kept, "partial", &local_error)) == NULL ||
      !natter_turn_assistant_message_validate (partial, &local_error))
    goto corrupt;
  if (g_strcmp0 (kept_turn, turn_id) != 0)
    {
      g_set_error (&local_error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
                   "it holds the words of turn %s", kept_turn);
      goto corrupt;
    }
  return json_node_ref (partial);

corrupt:
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT,
               "The words kept in “%s” cannot be read: %s", path, local_error->message);
  return NULL;
}

/**
 * natter_stream_keep_load_sync:
 * @self: the keep
 * @turn_id: the turn whose model call was interrupted
 * @model_call_index: that call's `modelCallIndex`
 * @error: return location for a #GError
 *
 * The words kept for the model call @model_call_index of @turn_id
 * (docs/format.md §11), for the recovery that closes that call. Blocks
 * on the disk for one small file.
 *
 * Returns: (transfer full) (nullable): the assistant message kept;
 *   %NULL without an error when nothing is kept for that call (no file,
 *   or the words of another call); %NULL with %NATTER_STORE_ERROR_CORRUPT
 *   for a file that is no such record (it is left as it is), or a
 *   #G_FILE_ERROR when it cannot be read
 */
JsonNode *
natter_stream_keep_load_sync (NatterStreamKeep  *self,
                              const char        *turn_id,
                              guint              model_call_index,
                              GError           **error)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) partial = NULL;
  gint64 index = -1;

  g_return_val_if_fail (NATTER_IS_STREAM_KEEP (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!natter_id_validate (turn_id, error))
    return NULL;
  path = keep_path (self->dir, turn_id);
  partial = read_kept (path, turn_id, &index, &local_error);
  if (partial == NULL)
    {
      if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  if (index != (gint64) model_call_index)
    return NULL;
  return g_steal_pointer (&partial);
}

/* Whether the file kept for @turn_id at @path still belongs to an open
 * model call: one of a turn that is there, readable, and has that call
 * open. A file that cannot be read, or a turn that cannot be, keeps it:
 * the words may be all that is left of that answer. */
static gboolean
still_needed (NatterJsonlRepo *turn_repo,
              const char      *turn_id,
              const char      *path,
              GCancellable    *cancellable)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(JsonNode) partial = NULL;
  gint64 index = -1;

  if ((partial = read_kept (path, turn_id, &index, NULL)) == NULL)
    return TRUE;
  events = natter_jsonl_repo_read_sync (turn_repo, turn_id, cancellable, &error);
  if (events == NULL)
    return !g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  if ((state = natter_turn_reduce (events, NULL)) == NULL)
    return TRUE;
  return natter_turn_state_has_open_model_call (state) &&
         natter_turn_state_get_n_model_calls (state) == index + 1;
}

/**
 * natter_stream_keep_sweep_sync:
 * @self: the keep
 * @turn_repo: the turns the kept words belong to
 * @out_removed: (out) (optional): how many files were removed
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Removes the kept words no recovery will read (docs/format.md §11):
 * those of a call the log has closed, or of a turn that is gone (a
 * process can exit between closing a call and removing its words), and
 * the temporary files of writes killed half-way. Words that cannot be
 * read, or whose turn cannot, stay. For the process holding the writer
 * lock, at its start, in a worker thread: a turn it starts meanwhile
 * writes its words again within moments should its file go.
 *
 * Returns: %TRUE when the folder was walked (also when it does not
 *   exist); %FALSE with a #G_IO_ERROR when it cannot be listed
 */
gboolean
natter_stream_keep_sweep_sync (NatterStreamKeep  *self,
                               NatterJsonlRepo   *turn_repo,
                               guint             *out_removed,
                               GCancellable      *cancellable,
                               GError           **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GError) local_error = NULL;
  GFileInfo *info;
  guint removed = 0;

  g_return_val_if_fail (NATTER_IS_STREAM_KEEP (self), FALSE);
  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), FALSE);

  if (out_removed != NULL)
    *out_removed = 0;
  children = g_file_enumerate_children (self->dir, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        cancellable, &local_error);
  if (children == NULL)
    {
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  while ((info = g_file_enumerator_next_file (children, cancellable, &local_error)) != NULL)
    {
      g_autoptr(GFileInfo) owned = info;
      const char *name = g_file_info_get_name (info);
      g_autofree char *path = g_build_filename (g_file_peek_path (self->dir), name, NULL);
      g_autofree char *turn_id = NULL;
      const char *dot = strstr (name, SUFFIX);
      gboolean leftover;

      if (dot == NULL)
        continue;
      turn_id = g_strndup (name, dot - name);
      if (!natter_id_validate (turn_id, NULL))
        continue;
      /* g_file_set_contents_full() writes `<name>.json.XXXXXX` first. */
      leftover = dot[strlen (SUFFIX)] == '.';
      if (!leftover && (dot[strlen (SUFFIX)] != '\0' || still_needed (turn_repo, turn_id, path, cancellable)))
        continue;
      if (g_unlink (path) == 0)
        removed++;
      else if (errno != ENOENT)
        g_message ("“%s” cannot be removed: %s", path, g_strerror (errno));
    }
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  if (out_removed != NULL)
    *out_removed = removed;
  return TRUE;
}

/**
 * natter_stream_keep_refuse_writes:
 * @self: the keep
 * @refusal: (nullable): why this process writes nothing in the data
 *   directory (docs/sessions.md §8.3); %NULL once it may
 *
 * Makes natter_stream_keep_save() and natter_stream_keep_forget() do
 * nothing, or lifts that: a process without the writer lock runs no
 * turn, and must not touch the words of the one that does.
 */
void
natter_stream_keep_refuse_writes (NatterStreamKeep *self,
                                  const GError     *refusal)
{
  g_return_if_fail (NATTER_IS_STREAM_KEEP (self));

  g_clear_error (&self->refusal);
  if (refusal != NULL)
    self->refusal = g_error_copy (refusal);
}
