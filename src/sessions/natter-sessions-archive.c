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
#include "natter-json.h"
#include "natter-session-archive.h"
#include "natter-session-index-private.h"
#include "natter-sessions-private.h"

/* Export */

typedef struct
{
  NatterJsonlRepo *session_repo;
  NatterJsonlRepo *turn_repo;
  NatterBlobStore *blobs;
  char            *session_id;
  char            *format;
  char            *ts;
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
  g_free (data);
}

static const char *
context_previous (GPtrArray *events)
{
  JsonObject *created = json_node_get_object (g_ptr_array_index (events, 0));
  JsonNode *context = json_object_get_member (created, "context");

  if (context == NULL || !JSON_NODE_HOLDS_OBJECT (context))
    return NULL;
  return json_object_get_string_member_with_default (json_node_get_object (context), "previousTurnId", NULL);
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

  session_events = natter_jsonl_repo_read_sync (data->session_repo, data->session_id, cancellable, &error);
  if (session_events != NULL)
    state = natter_session_reduce (session_events, &error);
  if (state == NULL)
    {
      g_task_return_error (task, natter_sessions_session_error (error, data->session_id));
      return;
    }
  /* A branch shows its parent's turns up to the fork point: the archive
   * holds them, so that it is whole on its own. */
  for (const char *turn_id = natter_session_state_get_forked_from_turn_id (state); turn_id != NULL;
       turn_id = context_previous (g_ptr_array_index (turn_events, 0)))
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

typedef struct
{
  NatterSessionsOp  base;
  GFile            *file;
  gboolean          chatgpt;
  GPtrArray        *plans;     /* NatterImportPlan */
  GPtrArray        *states;    /* NatterSessionState, one per plan, once written */
  GPtrArray        *statuses;  /* char*, one per plan */
  GHashTable       *new_ids;
} ImportData;

NATTER_SESSIONS_DEFINE_OP (ImportData, import_data)

static void
import_data_clear (ImportData *data)
{
  g_clear_object (&data->file);
  g_clear_pointer (&data->plans, g_ptr_array_unref);
  g_clear_pointer (&data->states, g_ptr_array_unref);
  g_clear_pointer (&data->statuses, g_ptr_array_unref);
  g_clear_pointer (&data->new_ids, g_hash_table_unref);
}

static GPtrArray *
plan_file (ImportData    *data,
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
  if (!g_utf8_validate_len (contents, length, NULL) ||
      !natter_json_parser_load_external (parser, contents, (gssize) length, &local))
    {
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                   _("The file is not valid JSON: %s"), local != NULL ? local->message : _("it is not UTF-8"));
      return NULL;
    }
  if (data->chatgpt)
    return natter_chatgpt_plan_import (json_parser_get_root (parser), error);
  plan = natter_session_archive_plan_import (json_parser_get_root (parser), error);
  if (plan == NULL)
    return NULL;
  plans = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_import_plan_free);
  g_ptr_array_add (plans, plan);
  return plans;
}

static void
plan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  ImportData *data = task_data;
  GError *error = NULL;

  data->plans = plan_file (data, cancellable, &error);
  if (data->plans == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Every attachment a turn of @plan carries is either in @plan or
 * already stored here. */
static gboolean
check_blobs (NatterSessions    *self,
             NatterImportPlan  *plan,
             GError           **error)
{
  NatterBlobStore *blobs = natter_turn_runtime_get_blob_store (self->runtime);

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
              g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                           _("Turn %s has attachment %s, which is neither in the archive nor stored here"),
                           (const char *) g_ptr_array_index (plan->turn_ids, i), name);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
write_plan (NatterSessions    *self,
            NatterImportPlan  *plan,
            GCancellable      *cancellable,
            GError           **error)
{
  g_autoptr(GPtrArray) rest = NULL;
  NatterBlobStore *blobs = natter_turn_runtime_get_blob_store (self->runtime);
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
      if (!natter_jsonl_repo_create_sync (self->turn_repo, turn_id, g_ptr_array_index (events, 0), cancellable, error) ||
          (tail->len > 0 && !natter_jsonl_repo_append_sync (self->turn_repo, turn_id, tail, cancellable, error)))
        return FALSE;
    }
  /* The session last: until it exists, the turns are unreferenced and
   * inert (§7), so an import cut short shows nothing. */
  rest = g_ptr_array_new ();
  for (guint j = 1; j < plan->session_events->len; j++)
    g_ptr_array_add (rest, g_ptr_array_index (plan->session_events, j));
  return natter_jsonl_repo_create_sync (self->session_repo, plan->session_id,
                                        g_ptr_array_index (plan->session_events, 0), cancellable, error) &&
         (rest->len == 0 ||
          natter_jsonl_repo_append_sync (self->session_repo, plan->session_id, rest, cancellable, error));
}

static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  ImportData *data = task_data;
  GError *error = NULL;

  data->states = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_session_state_unref);
  data->statuses = g_ptr_array_new_with_free_func (g_free);
  /* Everything is checked again with its new ids before the first
   * write, so a failing check leaves nothing behind. */
  for (guint i = 0; i < data->plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (data->plans, i);
      NatterSessionState *state = NULL;
      char *status = NULL;

      natter_import_plan_remap (plan, data->new_ids);
      if (!natter_import_plan_check (plan, &state, &status, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      g_ptr_array_add (data->states, state);
      g_ptr_array_add (data->statuses, status);
      if (!check_blobs (NATTER_SESSIONS (source_object), plan, &error))
        {
          g_task_return_error (task, error);
          return;
        }
    }
  for (guint i = 0; i < data->plans->len; i++)
    if (!write_plan (NATTER_SESSIONS (source_object), g_ptr_array_index (data->plans, i), cancellable, &error))
      {
        g_task_return_error (task, error);
        return;
      }
  g_task_return_boolean (task, TRUE);
}

static void
written_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ImportData *data = import_data_get (task);
  NatterSessions *self = data->base.self;
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  for (guint i = 0; i < data->plans->len; i++)
    {
      NatterImportPlan *plan = g_ptr_array_index (data->plans, i);

      natter_session_index_update_from_state (self->index, g_ptr_array_index (data->states, i),
                                              g_ptr_array_index (data->statuses, i));
      g_strv_builder_add (ids, plan->session_id);
    }
  natter_sessions_op_finish (task);
  for (guint i = 0; i < data->plans->len; i++)
    g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0,
                   ((NatterImportPlan *) g_ptr_array_index (data->plans, i))->session_id);
  g_task_return_pointer (task, g_strv_builder_end (ids), (GDestroyNotify) g_strfreev);
}

static void
planned_cb (GObject      *object,
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
  thread = g_task_new (self, g_task_get_cancellable (task), written_cb, g_object_ref (task));
  g_task_set_task_data (thread, data, NULL);
  g_task_run_in_thread (thread, write_thread);
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
 * turns, so nothing stored is ever overwritten: an archive becomes one
 * session (natter_session_archive_plan_import()), a ChatGPT export one per
 * conversation (natter_chatgpt_plan_import()). The whole file is read
 * and checked before anything is written; a damaged file writes nothing.
 * The index gains the sessions and #NatterSessions::session-index-changed
 * is emitted for each.
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
  if (from != NULL && !g_str_equal (from, "chatgpt"))
    {
      natter_sessions_op_return_error (task, g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                                                          _("Cannot import from “%s”: only chatgpt is known"), from));
      return;
    }
  data->file = g_object_ref (file);
  data->chatgpt = from != NULL;
  thread = g_task_new (self, cancellable, planned_cb, g_object_ref (task));
  g_task_set_task_data (thread, data, NULL);
  g_task_run_in_thread (thread, plan_thread);
}

/**
 * natter_sessions_import_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new sessions' ids, in the
 *   order of the file; %NULL with %NATTER_SESSION_ERROR_INVALID_ARCHIVE
 *   (the file is damaged or not of its kind; nothing was written),
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT (an unknown @from), a
 *   %G_IO_ERROR from reading @file or a %NATTER_STORE_ERROR from writing
 */
GStrv
natter_sessions_import_finish (NatterSessions  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_import_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
