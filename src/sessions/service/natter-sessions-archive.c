/* natter-sessions-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Taking a conversation out (export, as Markdown or as a JSON archive)
 * and bringing conversations in (a Natter archive, or a ChatGPT data
 * export) through the session service. Files are read and written in
 * worker threads; ids are made on the main thread, where the generator
 * lives. An import never touches an existing file: everything it writes
 * has a fresh id, and it writes nothing until the whole input is checked.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-blob-store.h"
#include "natter-chatgpt-import.h"
#include "natter-id.h"
#include "natter-json-array-reader.h"
#include "natter-json.h"
#include "natter-log-read.h"
#include "natter-session-archive.h"
#include "natter-session-markdown.h"
#include "natter-session-index-internal.h"
#include "natter-session-grants-queue.h"
#include "natter-session-parameters-event.h"
#include "natter-session-parameters-state.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"

/* Export */

typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  NatterBlobStore *blobs;
  char            *session_id;
  char            *format;
  char            *ts;
  /* A version's: the parameters its original keeps for the conversation */
  NatterGenerationParameters *kept;
} ExportData;

static void
export_data_free (ExportData *data)
{
  g_clear_object (&data->session_repo);
  g_clear_object (&data->turn_repo);
  g_clear_object (&data->blobs);
  g_free (data->session_id);
  g_free (data->format);
  g_free (data->ts);
  g_clear_pointer (&data->kept, natter_generation_parameters_free);
  g_free (data);
}

static gboolean
read_turn (ExportData    *data,
           const char    *turn_id,
           GPtrArray     *turn_ids,
           GPtrArray     *turn_events,
           guint          position,
           GCancellable  *cancellable,
           GError       **error)
{
  GPtrArray *events = natter_jsonl_repo_read_sync (data->turn_repo, turn_id, cancellable, error);

  if (events == NULL)
    {
      g_prefix_error (error, _("Turn %s of the conversation cannot be read: "), turn_id);
      return FALSE;
    }
  g_ptr_array_insert (turn_ids, position, g_strdup (turn_id));
  g_ptr_array_insert (turn_events, position, events);
  return TRUE;
}

/* Every turn the archive holds but its last is gone on from, so it has
 * ended: one without its end lost its last lines (docs/runtime.md §11),
 * and an archive of that history would carry the damage on as if it were
 * whole. */
static gboolean
check_ended (ExportData  *data,
             GPtrArray   *turn_ids,
             GPtrArray   *turn_events,
             GError     **error)
{
  for (guint i = 0; i + 1 < turn_events->len; i++)
    {
      g_autoptr(NatterTurnState) state = natter_turn_reduce (g_ptr_array_index (turn_events, i), NULL);
      GError *lost;

      if (state == NULL || natter_turn_state_get_terminal_event (state) != NULL)
        continue;
      lost = natter_jsonl_repo_end_lost_error (data->turn_repo, g_ptr_array_index (turn_ids, i));
      g_propagate_prefixed_error (error, lost, _("Turn %s of the conversation cannot be read: "),
                                  (const char *) g_ptr_array_index (turn_ids, i));
      return FALSE;
    }
  return TRUE;
}

/* The attachments the turns carry, by name (none without a blob store). */
static GHashTable *
read_blobs (ExportData    *data,
            GPtrArray     *turn_events,
            GCancellable  *cancellable,
            GError       **error)
{
  g_autoptr(GHashTable) blobs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_bytes_unref);

  for (guint i = 0; data->blobs != NULL && i < turn_events->len; i++)
    {
      g_autoptr(GPtrArray) names = natter_turn_events_dup_blob_names (g_ptr_array_index (turn_events, i));

      for (guint j = 0; j < names->len; j++)
        {
          const char *name = g_ptr_array_index (names, j);
          GBytes *bytes;

          if (g_hash_table_contains (blobs, name))
            continue;
          bytes = natter_blob_store_read_sync (data->blobs, name, error);
          if (bytes == NULL)
            {
              g_prefix_error (error, _("An attachment of the conversation cannot be read: "));
              return NULL;
            }
          g_hash_table_insert (blobs, g_strdup (name), bytes);
        }
    }
  return g_steal_pointer (&blobs);
}

static void
export_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ExportData *data = task_data;
  g_autoptr(GPtrArray) session_events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) turn_ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) turn_events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr(JsonNode) archive = NULL;
  g_autoptr(GHashTable) blobs = NULL;
  GError *error = NULL;
  guint n_inherited = 0;

  state = natter_session_reduce_file_sync (data->session_repo, data->session_id, &session_events,
                                           cancellable, &error);
  if (state == NULL)
    {
      g_task_return_error (task, natter_sessions_session_error (error, data->session_id));
      return;
    }
  /* A version is sent with what its original keeps, which its own log
   * does not hold: the archive says it, as the version's own, at the
   * export's time (docs/format.md §7.1). */
  if (data->kept != NULL && !natter_generation_parameters_equal (natter_session_state_get_parameters (state),
                                                                  data->kept))
    {
      g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

      g_ptr_array_add (added, natter_session_event_new_parameters_changed (data->session_id, data->ts, data->kept));
      natter_session_events_raise (added, natter_session_state_get_schema_version (state), NULL);
      for (guint i = 0; i < added->len; i++)
        g_ptr_array_add (session_events, json_node_ref (g_ptr_array_index (added, i)));
    }
  /* A branch shows its parent's turns up to the fork point: the archive
   * holds them, so that it is whole on its own. */
  for (const char *turn_id = natter_session_state_get_forked_from_turn_id (state); turn_id != NULL;
       turn_id = natter_turn_definition_get_previous_turn_id (
         json_node_get_object (g_ptr_array_index ((GPtrArray *) g_ptr_array_index (turn_events, 0), 0))))
    {
      if (n_inherited > 100000 || !read_turn (data, turn_id, turn_ids, turn_events, 0, cancellable, &error))
        {
          g_task_return_error (task, error != NULL ? error
                               : g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                                              _("The history of session %s continues itself"), data->session_id));
          return;
        }
      n_inherited++;
    }
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    if (!read_turn (data, natter_session_state_get_turn (state, i)->turn_id, turn_ids, turn_events,
                    turn_ids->len, cancellable, &error))
      {
        g_task_return_error (task, error);
        return;
      }

  if (!check_ended (data, turn_ids, turn_events, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  blobs = read_blobs (data, turn_events, cancellable, &error);
  if (blobs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  archive = natter_session_archive_new (session_events, turn_ids, turn_events, blobs, data->ts);
  if (g_str_equal (data->format, "markdown"))
    {
      g_task_return_pointer (task, natter_session_archive_to_markdown (json_node_get_object (archive)), g_free);
    }
  else
    {
      g_autofree char *line = natter_json_to_line (archive, NULL, &error);

      if (line == NULL)
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, g_strconcat (line, "\n", NULL), g_free);
    }
}

/**
 * natter_sessions_export_async:
 * @self: the service
 * @session_id: the session to export
 * @format: "markdown" or "json"
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Exports a session as text: "json" is the self-contained archive of
 * docs/format.md §7 (its log and the log of every turn it shows, a
 * branch's inherited turns included), "markdown" the same conversation
 * for people to read (natter_session_archive_to_markdown()). Only reads.
 */
void
natter_sessions_export_async (NatterSessions      *self,
                              const char          *session_id,
                              const char          *format,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  ExportData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);
  g_return_if_fail (format != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_export_async);
  if (!g_str_equal (format, "markdown") && !g_str_equal (format, "json"))
    {
      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                               _("Unknown export format “%s”: use markdown or json"), format);
      return;
    }
  if (!natter_id_validate (session_id, NULL))
    {
      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                               _("There is no session %s"), session_id);
      return;
    }
  data = g_new0 (ExportData, 1);
  data->session_repo = g_object_ref (self->session_repo);
  data->turn_repo = g_object_ref (self->turn_repo);
  /* The runtime's store: the one the turns' attachments were read from. */
  if (natter_turn_runtime_get_blob_store (self->runtime) != NULL)
    data->blobs = g_object_ref (natter_turn_runtime_get_blob_store (self->runtime));
  data->session_id = g_strdup (session_id);
  data->format = g_strdup (format);
  data->ts = natter_clock_format_ts (self->clock);
  if (g_strcmp0 (natter_sessions_get_conversation_id (self, session_id), session_id) != 0 &&
      natter_sessions_get_kept_parameters (self, session_id) != NULL)
    data->kept = natter_generation_parameters_copy (natter_sessions_get_kept_parameters (self, session_id));
  g_task_set_task_data (task, data, (GDestroyNotify) export_data_free);
  g_task_run_in_thread (task, export_thread);
}

/**
 * natter_sessions_export_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the exported text, ending in a
 *   newline; %NULL with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (unknown
 *   format), %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT
 *   or a %NATTER_STORE_ERROR naming a turn that cannot be read
 */
char *
natter_sessions_export_finish (NatterSessions  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_export_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Import */

/* The largest ChatGPT conversation read: far beyond any real one, small
 * enough that a file that is one huge element cannot take the memory. */
#define MAX_CONVERSATION_SIZE (256 * 1024 * 1024)

/* Ids are asked of the main thread in blocks of this many. */
#define ID_BLOCK 256

/* A session an import wrote, for the index (on the main thread). */
typedef struct
{
  NatterSessionState *state;
  char               *status;
} Written;

static void
written_free (Written *written)
{
  natter_session_state_unref (written->state);
  g_free (written->status);
  g_free (written);
}

typedef struct
{
  NatterSessionsOp    base;
  GFile              *file;
  gboolean            chatgpt;
  char               *ts;          /* the import's time, for the events it adds */
  NatterJsonlRepo    *session_repo;
  NatterJsonlRepo    *turn_repo;
  NatterImportReport *report;
  GMainContext       *context;     /* the caller's: ids are made and the index is kept there */

  /* A Natter archive: one plan, checked whole before anything is
   * written, its ids made between the reading and the writing. */
  GPtrArray          *plans;       /* NatterImportPlan */
  GHashTable         *new_ids;

  /* A ChatGPT export, read, checked and written one conversation at a
   * time in chatgpt_thread(). */
  GHashTable         *known;       /* created_at → GPtrArray of session ids that may be imports of it */
  GMutex              mutex;
  GCond               cond;
  GQueue              ids;         /* fresh ids made on the main thread, not used yet */
  gboolean            ids_asked;
  GQueue              written;     /* Written, for the index */
} ImportData;

NATTER_SESSIONS_DEFINE_OP (ImportData, import_data)

static void
import_data_clear (ImportData *data)
{
  g_clear_object (&data->file);
  g_free (data->ts);
  g_clear_object (&data->session_repo);
  g_clear_object (&data->turn_repo);
  g_clear_pointer (&data->report, natter_import_report_free);
  g_clear_pointer (&data->context, g_main_context_unref);
  g_clear_pointer (&data->plans, g_ptr_array_unref);
  g_clear_pointer (&data->new_ids, g_hash_table_unref);
  g_clear_pointer (&data->known, g_hash_table_unref);
  g_queue_clear_full (&data->ids, g_free);
  g_queue_clear_full (&data->written, (GDestroyNotify) written_free);
  g_mutex_clear (&data->mutex);
  g_cond_clear (&data->cond);
}

/* Every attachment a turn of @plan carries is either in @plan or
 * already stored here. Run before the plan is given its new ids: a turn
 * is named by the archive's id, which the person can find in the file,
 * and by its place in the conversation. */
static gboolean
check_blobs (NatterBlobStore   *blobs,
             NatterImportPlan  *plan,
             GError           **error)
{
  for (guint i = 0; i < plan->turn_events->len; i++)
    {
      g_autoptr(GPtrArray) names = natter_turn_events_dup_blob_names (g_ptr_array_index (plan->turn_events, i));

      for (guint j = 0; j < names->len; j++)
        {
          const char *name = g_ptr_array_index (names, j);

          if (g_hash_table_contains (plan->blobs, name))
            continue;
          if (blobs == NULL || !natter_blob_store_check_present (blobs, name, -1, NULL))
            {
              /* Translators: %u is a message's place in the conversation
               * (1 for its first), the first %s the id of its turn in the
               * archive, the second an attachment's SHA-256 */
              g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                           _("Message %u (turn %s in the archive) has attachment %s, "
                             "which is neither in the archive nor stored here"),
                           i + 1, (const char *) g_ptr_array_index (plan->turn_ids, i), name);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
write_plan (ImportData        *data,
            NatterBlobStore   *blobs,
            NatterImportPlan  *plan,
            GCancellable      *cancellable,
            GError           **error)
{
  g_autoptr(GPtrArray) rest = NULL;
  GHashTableIter iter;
  gpointer value;

  /* Attachments before the turns that carry them (docs/format.md §1);
   * a blob is named by its bytes, so storing one never changes another. */
  g_hash_table_iter_init (&iter, plan->blobs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      g_autofree char *name = NULL;

      if (blobs == NULL)
        {
          g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                               _("Attachments cannot be stored here"));
          return FALSE;
        }
      name = natter_blob_store_put_sync (blobs, value, error);
      if (name == NULL)
        return FALSE;
    }

  for (guint i = 0; i < plan->turn_ids->len; i++)
    {
      GPtrArray *events = g_ptr_array_index (plan->turn_events, i);
      const char *turn_id = g_ptr_array_index (plan->turn_ids, i);
      g_autoptr(GPtrArray) tail = g_ptr_array_new ();

      for (guint j = 1; j < events->len; j++)
        g_ptr_array_add (tail, g_ptr_array_index (events, j));
      if (!natter_jsonl_repo_create_sync (data->turn_repo, turn_id, g_ptr_array_index (events, 0), cancellable, error) ||
          (tail->len > 0 && !natter_jsonl_repo_append_sync (data->turn_repo, turn_id, tail, cancellable, error)))
        return FALSE;
    }
  /* The session last: until it exists, the turns are unreferenced and
   * inert (docs/sessions.md §7), so an import cut short shows nothing. */
  rest = g_ptr_array_new ();
  for (guint j = 1; j < plan->session_events->len; j++)
    g_ptr_array_add (rest, g_ptr_array_index (plan->session_events, j));
  return natter_jsonl_repo_create_sync (data->session_repo, plan->session_id,
                                        g_ptr_array_index (plan->session_events, 0), cancellable, error) &&
         (rest->len == 0 ||
          natter_jsonl_repo_append_sync (data->session_repo, plan->session_id, rest, cancellable, error));
}

/* Checks @plan again under its new ids and keeps what the index needs
 * once it is written. */
static Written *
check_remapped (NatterImportPlan  *plan,
                GError           **error)
{
  Written *written = g_new0 (Written, 1);

  if (!natter_import_plan_check (plan, &written->state, &written->status, error))
    {
      g_free (written);
      return NULL;
    }
  return written;
}

/* On the main thread: the sessions written so far join the index, each
 * announced. Every turn an import writes is imported (docs/format.md
 * §7.3), so a session's latest turn is, if it has one. */
static void
publish_written (ImportData *data)
{
  NatterSessions *self = data->base.self;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  Written *written;

  g_mutex_lock (&data->mutex);
  while ((written = g_queue_pop_head (&data->written)) != NULL)
    {
      natter_session_index_add_imported (self->index, written->state, written->status,
                                         natter_session_state_get_n_turns (written->state) > 0);
      g_ptr_array_add (ids, g_strdup (natter_session_state_get_session_id (written->state)));
      written_free (written);
    }
  g_mutex_unlock (&data->mutex);
  for (guint i = 0; i < ids->len; i++)
    g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0,
                   g_ptr_array_index (ids, i));
}

static gboolean
publish_written_cb (gpointer user_data)
{
  GTask *task = user_data;

  publish_written (import_data_get (task));
  return G_SOURCE_REMOVE;
}

/* From the worker: runs @func on the caller's context, never at once in
 * the worker (g_main_context_invoke() would, when nobody iterates the
 * context at that moment): the id generator and the index belong to the
 * main thread alone. */
static void
run_on_main (ImportData  *data,
             GSourceFunc  func,
             GTask       *task)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, func, g_object_ref (task), g_object_unref);
  g_source_set_static_name (source, "[natter] import");
  g_source_attach (source, data->context);
}

/* From the worker: hands @written to the main thread's index. */
static void
push_written (GTask   *task,
              Written *written)
{
  ImportData *data = import_data_get (task);

  g_mutex_lock (&data->mutex);
  g_queue_push_tail (&data->written, written);
  g_mutex_unlock (&data->mutex);
  run_on_main (data, publish_written_cb, task);
}

static void
imported_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ImportData *data = import_data_get (task);
  GError *error = NULL;

  /* Whatever was written is listed, even when the import then failed. */
  publish_written (data);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_sessions_op_finish (task);
  /* Nothing could be read: the file as a whole is refused, naming why. */
  if (data->report->defective->len > 0 && data->report->session_ids->len == 0 &&
      data->report->already->len == 0 && data->report->n_empty == 0)
    {
      g_autofree char *reasons = NULL;

      g_ptr_array_add (data->report->defective, NULL);
      reasons = g_strjoinv ("\n", (char **) data->report->defective->pdata);
      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE, "%s", reasons);
      return;
    }
  g_task_return_pointer (task, g_steal_pointer (&data->report), (GDestroyNotify) natter_import_report_free);
}

/* A Natter archive */

static GPtrArray *
plan_archive (ImportData    *data,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autofree char *contents = NULL;
  gsize length;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) local = NULL;
  GPtrArray *plans;
  NatterImportPlan *plan;

  if (!g_file_load_contents (data->file, cancellable, &contents, &length, NULL, error))
    return NULL;
  /* json-glib recurses once per level: a file nested deeper than any
   * archive (stored events four levels down) is refused before it is
   * parsed, by the guarded load. */
  if (!g_utf8_validate_len (contents, length, NULL) ||
      !natter_json_parser_load_external (parser, contents, (gssize) length, &local))
    {
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                   _("The file is not valid JSON: %s"),
                   local != NULL ? local->message : _("it is not UTF-8"));
      return NULL;
    }
  plan = natter_session_archive_plan_import (json_parser_get_root (parser), data->ts, error);
  if (plan == NULL)
    return NULL;
  plans = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_import_plan_free);
  g_ptr_array_add (plans, plan);
  return plans;
}

static void
archive_plan_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  ImportData *data = task_data;
  GError *error = NULL;

  data->plans = plan_archive (data, cancellable, &error);
  if (data->plans == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
archive_write_thread (GTask        *task,
                      gpointer      source_object,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  GTask *op = task_data;
  ImportData *data = import_data_get (op);
  NatterBlobStore *blobs = natter_turn_runtime_get_blob_store (data->base.self->runtime);
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func ((GDestroyNotify) written_free);
  GError *error = NULL;

  /* Everything is checked again with its new ids before the first
   * write, so a failing check leaves nothing behind. */
  for (guint i = 0; i < data->plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (data->plans, i);
      Written *checked;

      if (!check_blobs (blobs, plan, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      natter_import_plan_remap (plan, data->new_ids);
      checked = check_remapped (plan, &error);
      if (checked == NULL)
        {
          g_clear_pointer (&checked, written_free);
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_add (written, checked);
    }
  for (guint i = 0; i < data->plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (data->plans, i);

      if (!write_plan (data, blobs, plan, cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      natter_import_report_add (data->report, plan->report);
      g_ptr_array_add (data->report->session_ids, g_strdup (plan->session_id));
      push_written (op, g_ptr_array_steal_index (written, 0));
    }
  g_task_return_boolean (task, TRUE);
}

static void
archive_planned_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ImportData *data = import_data_get (task);
  NatterSessions *self = data->base.self;
  g_autoptr(GTask) thread = NULL;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  /* Fresh ids in the order of writing, so they sort as the files were
   * made: each session before its turns. */
  data->new_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < data->plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (data->plans, i);

      g_hash_table_insert (data->new_ids, g_strdup (plan->session_id), natter_id_generator_next (self->ids));
      for (guint j = 0; j < plan->turn_ids->len; j++)
        g_hash_table_insert (data->new_ids, g_strdup (g_ptr_array_index (plan->turn_ids, j)),
                             natter_id_generator_next (self->ids));
    }
  thread = g_task_new (self, g_task_get_cancellable (task), imported_cb, g_object_ref (task));
  g_task_set_task_data (thread, g_object_ref (task), g_object_unref);
  g_task_run_in_thread (thread, archive_write_thread);
}

/* A ChatGPT export */

static gboolean
make_ids_cb (gpointer user_data)
{
  GTask *task = user_data;
  ImportData *data = import_data_get (task);

  g_mutex_lock (&data->mutex);
  for (guint i = 0; i < ID_BLOCK; i++)
    g_queue_push_tail (&data->ids, natter_id_generator_next (data->base.self->ids));
  data->ids_asked = FALSE;
  g_cond_broadcast (&data->cond);
  g_mutex_unlock (&data->mutex);
  return G_SOURCE_REMOVE;
}

/* From the worker: a fresh id of the service's generator, which lives
 * on the main thread; %NULL when cancelled while waiting for it. */
static char *
next_id (GTask        *task,
         GCancellable *cancellable)
{
  ImportData *data = import_data_get (task);
  char *id = NULL;

  g_mutex_lock (&data->mutex);
  while ((id = g_queue_pop_head (&data->ids)) == NULL)
    {
      if (!data->ids_asked)
        {
          data->ids_asked = TRUE;
          run_on_main (data, make_ids_cb, task);
        }
      /* Waking now and then only to notice a cancellation. */
      g_cond_wait_until (&data->cond, &data->mutex, g_get_monotonic_time () + G_TIME_SPAN_SECOND / 4);
      if (g_cancellable_is_cancelled (cancellable))
        break;
    }
  g_mutex_unlock (&data->mutex);
  return id;
}

static gboolean
read_definition (ImportData   *data,
                 const char   *session_id,
                 JsonObject  **definition)
{
  g_autoptr(GPtrArray) session = natter_jsonl_repo_read_sync (data->session_repo, session_id, NULL, NULL);
  g_autoptr(NatterSessionState) state = session != NULL ? natter_session_reduce (session, NULL) : NULL;
  g_autoptr(GPtrArray) turn = NULL;

  if (state == NULL || natter_session_state_get_n_turns (state) == 0)
    return FALSE;
  turn = natter_jsonl_repo_read_sync (data->turn_repo, natter_session_state_get_turn (state, 0)->turn_id, NULL,
                                      NULL);
  if (turn == NULL)
    return FALSE;
  *definition = json_object_ref (json_node_get_object (g_ptr_array_index (turn, 0)));
  return TRUE;
}

/* Whether ChatGPT's conversation @id, created at @created_at, was
 * imported here before: a session made at that very time whose first
 * turn says it came from it. */
static gboolean
imported_before (ImportData *data,
                 const char *id,
                 const char *created_at)
{
  GPtrArray *candidates = created_at != NULL ? g_hash_table_lookup (data->known, created_at) : NULL;

  for (guint i = 0; candidates != NULL && i < candidates->len; i++)
    {
      g_autoptr(JsonObject) definition = NULL;
      JsonObject *imported;

      if (!read_definition (data, g_ptr_array_index (candidates, i), &definition))
        continue;
      imported = json_object_get_object_member (json_object_get_object_member (definition, "config"), "imported");
      if (imported != NULL && json_object_has_member (imported, "conversationId") &&
          g_strcmp0 (json_object_get_string_member (imported, "conversationId"), id) == 0)
        return TRUE;
    }
  return FALSE;
}

/* Gives every placeholder of @plans a fresh id, in the order of
 * writing. FALSE when cancelled. */
static gboolean
give_ids (GTask        *task,
          GPtrArray    *plans,
          GCancellable *cancellable)
{
  g_autoptr(GHashTable) new_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  for (guint i = 0; i < plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (plans, i);
      char *id = next_id (task, cancellable);

      if (id == NULL)
        return FALSE;
      g_hash_table_insert (new_ids, g_strdup (plan->session_id), id);
      for (guint j = 0; j < plan->turn_ids->len; j++)
        {
          if ((id = next_id (task, cancellable)) == NULL)
            return FALSE;
          g_hash_table_insert (new_ids, g_strdup (g_ptr_array_index (plan->turn_ids, j)), id);
        }
    }
  for (guint i = 0; i < plans->len; i++)
    natter_import_plan_remap (g_ptr_array_index (plans, i), new_ids);
  return TRUE;
}

static void
add_defective (ImportData *data,
               const char *name,
               const char *why)
{
  g_ptr_array_add (data->report->defective, g_strdup_printf ("%s: %s", name, why));
}

/* Imports one conversation: skipped when it was imported before or has
 * no message, else checked under fresh ids and written. FALSE with
 * @error only when writing failed or the import was cancelled. */
static gboolean
import_conversation (GTask         *task,
                     JsonObject    *conversation,
                     guint          number,
                     GHashTable    *seen,
                     guint         *counter,
                     GCancellable  *cancellable,
                     GError       **error)
{
  ImportData *data = import_data_get (task);
  g_autofree char *name = natter_chatgpt_conversation_dup_name (conversation, number);
  g_autofree char *created_at = natter_chatgpt_conversation_dup_created_at (conversation);
  const char *id = natter_chatgpt_conversation_get_id (conversation);
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(GPtrArray) written = g_ptr_array_new_with_free_func ((GDestroyNotify) written_free);
  g_autoptr(GError) local = NULL;

  if (id != NULL && id[0] != '\0' && (g_hash_table_contains (seen, id) || imported_before (data, id, created_at)))
    {
      g_ptr_array_add (data->report->already, g_steal_pointer (&name));
      return TRUE;
    }
  plans = natter_chatgpt_plan_conversation (conversation, counter, &local);
  if (plans == NULL)
    {
      add_defective (data, name, local->message);
      return TRUE;
    }
  if (plans->len == 0)
    {
      data->report->n_empty++;
      return TRUE;
    }
  if (!give_ids (task, plans, cancellable))
    return !g_cancellable_set_error_if_cancelled (cancellable, error);
  for (guint i = 0; i < plans->len; i++)
    {
      Written *checked = check_remapped (g_ptr_array_index (plans, i), &local);

      if (checked == NULL)
        {
          add_defective (data, name, local->message);
          return TRUE;
        }
      g_ptr_array_add (written, checked);
    }
  for (guint i = 0; i < plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (plans, i);

      if (!write_plan (data, NULL, plan, cancellable, error))
        {
          g_prefix_error (error, "%s: ", name);
          return FALSE;
        }
      natter_import_report_add (data->report, plan->report);
      /* Its versions are listed with it, not as conversations. */
      if (i == 0)
        g_ptr_array_add (data->report->session_ids, g_strdup (plan->session_id));
      push_written (task, g_ptr_array_steal_index (written, 0));
    }
  if (id != NULL && id[0] != '\0')
    g_hash_table_add (seen, g_strdup (id));
  return TRUE;
}

static void
chatgpt_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  GTask *op = task_data;
  ImportData *data = import_data_get (op);
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(NatterJsonArrayReader) reader = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint counter = 0;
  GError *error = NULL;

  stream = g_file_read (data->file, cancellable, &error);
  if (stream == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  reader = natter_json_array_reader_new (G_INPUT_STREAM (stream), MAX_CONVERSATION_SIZE);
  for (;;)
    {
      g_autoptr(JsonNode) element = NULL;
      g_autoptr(GError) local = NULL;
      guint number;

      if (g_cancellable_set_error_if_cancelled (cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      if (!natter_json_array_reader_next (reader, &element, cancellable, &local))
        {
          number = natter_json_array_reader_get_index (reader);
          if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
              (natter_json_array_reader_is_broken (reader) && number == 0))
            {
              /* Not a list of conversations at all (or cancelled). */
              if (local->domain != G_IO_ERROR)
                g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                                         _("This is not a ChatGPT conversations.json: %s"), local->message);
              else
                g_task_return_error (task, g_steal_pointer (&local));
              return;
            }
          if (natter_json_array_reader_is_broken (reader))
            {
              g_autofree char *rest = g_strdup_printf (_("The rest of the file, from conversation %u"), number);

              add_defective (data, rest, local->message);
              break;
            }
          {
            g_autofree char *name = natter_chatgpt_conversation_dup_name (NULL, number);

            add_defective (data, name, local->message);
          }
          continue;
        }
      if (element == NULL)
        break;
      number = natter_json_array_reader_get_index (reader);
      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          g_autofree char *name = natter_chatgpt_conversation_dup_name (NULL, number);

          add_defective (data, name, _("it is not a JSON object"));
          continue;
        }
      if (!import_conversation (op, json_node_get_object (element), number, seen, &counter, cancellable, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }
  g_task_return_boolean (task, TRUE);
}

/* The stored sessions an import of a ChatGPT conversation could be: by
 * the time they were made, which such an import takes from ChatGPT. */
static GHashTable *
known_sessions (NatterSessions *self)
{
  GHashTable *known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->index));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);
      const char *created_at = natter_session_index_entry_get_created_at (entry);
      GPtrArray *ids;

      if (natter_session_index_entry_get_error (entry) != NULL || created_at == NULL ||
          natter_session_index_entry_get_parent_session (entry) != NULL)
        continue;
      ids = g_hash_table_lookup (known, created_at);
      if (ids == NULL)
        {
          ids = g_ptr_array_new_with_free_func (g_free);
          g_hash_table_insert (known, g_strdup (created_at), ids);
        }
      g_ptr_array_add (ids, g_strdup (natter_session_index_entry_get_session_id (entry)));
    }
  return known;
}

/**
 * natter_sessions_import_async:
 * @self: the service
 * @file: the file to import
 * @from: (nullable): %NULL for a Natter JSON archive (docs/format.md §7),
 *   "chatgpt" for the `conversations.json` of a ChatGPT data export
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Imports @file as new sessions, each with new ids for it and its
 * turns, so nothing stored is ever overwritten. An imported conversation
 * is data, never authority: what it names as agent, provider or server
 * address is a label (its turns are marked imported, docs/format.md
 * §7.3), and its grants, queued messages and working folder stay behind.
 *
 * An archive becomes one session (natter_session_archive_plan_import()),
 * read and checked whole before anything is written: a damaged archive
 * writes nothing. A ChatGPT export becomes a session per conversation,
 * with a version for every other branch of it
 * (natter_chatgpt_plan_conversation()), read one conversation at a time
 * so that a large export costs the memory of its largest conversation:
 * each conversation is checked, then written; one that cannot be read is
 * named in the report and the others are imported; one imported here
 * before is not imported again. The index gains the sessions as they
 * are written and #NatterSessions::session-index-changed is emitted for
 * each.
 */
void
natter_sessions_import_async (NatterSessions      *self,
                              GFile               *file,
                              const char          *from,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) thread = NULL;
  ImportData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (G_IS_FILE (file));

  task = import_data_task_new (self, NULL, cancellable, callback, user_data, natter_sessions_import_async);
  data = import_data_get (task);
  g_mutex_init (&data->mutex);
  g_cond_init (&data->cond);
  if (natter_sessions_op_refuse_write (task))
    return;
  if (from != NULL && !g_str_equal (from, "chatgpt"))
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          _("Cannot import from “%s”: only chatgpt is known"), from));
      return;
    }
  data->file = g_object_ref (file);
  data->chatgpt = from != NULL;
  data->ts = natter_clock_format_ts (self->clock);
  data->session_repo = g_object_ref (self->session_repo);
  data->turn_repo = g_object_ref (self->turn_repo);
  data->report = natter_import_report_new ();
  data->context = g_main_context_ref_thread_default ();
  if (data->chatgpt)
    {
      data->known = known_sessions (self);
      thread = g_task_new (self, cancellable, imported_cb, g_object_ref (task));
      g_task_set_task_data (thread, g_object_ref (task), g_object_unref);
      g_task_run_in_thread (thread, chatgpt_thread);
      return;
    }
  thread = g_task_new (self, cancellable, archive_planned_cb, g_object_ref (task));
  g_task_set_task_data (thread, data, NULL);
  g_task_run_in_thread (thread, archive_plan_thread);
}

/**
 * natter_sessions_import_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): what was imported and what was
 *   left out (#NatterImportReport: the new conversations in the order of
 *   the file, the conversations that could not be read, what the import
 *   did not bring over); %NULL with %NATTER_SESSION_ERROR_INVALID_ARCHIVE
 *   (the file is damaged or not of its kind, or none of its
 *   conversations can be read; nothing was written),
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (an unknown @from), a
 *   %G_IO_ERROR from reading @file or a %NATTER_STORE_ERROR from writing
 *   (the conversations written before it stay, and are listed)
 */
NatterImportReport *
natter_sessions_import_finish (NatterSessions  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_import_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
