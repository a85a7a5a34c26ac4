/* natter-ui-test-sessions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The world's conversations, made and read through its session service:
 * creating, renaming, sending (with files too), waiting for a turn or one
 * of its events, reading a session or a turn back, the files a crash
 * leaves; and the full-text index over them.
 */

#include "natter-ui-test-world.h"

#include <string.h>
#include "natter-attachment-intake.h"
#include "natter-folder-log.h"
#include "natter-search-index.h"
#include "natter-sessions-settings.h"

/* Iterates the main context until @u's fake model holds a call
 * (NATTER_FAKE_STEP_HOLD); fails after 10 s (times ui_slowdown()). */
void
ui_wait_model_held (UiWorld *u)
{
  natter_fake_model_wait_held (u->w->fakes->model, 1, 10000 * ui_slowdown ());
}

/* Creates a session titled @title a minute after the last event; returns
 * its id (transfer full). */
char *
ui_create_session (UiWorld    *u,
                   const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *session_id;

  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  natter_sessions_create_session_async (u->sessions, title, NULL, NULL, NULL, NULL, ui_result_cb, &result);
  session_id = natter_sessions_create_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return session_id;
}

/* Renames @session_id to @title, and waits until it is written. */
void
ui_set_title (UiWorld    *u,
              const char *session_id,
              const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (u->sessions, session_id, title, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* Pins or unpins @session_id. */
void
ui_set_pinned (UiWorld    *u,
               const char *session_id,
               gboolean    pinned)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_pinned_async (u->sessions, session_id, pinned, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* Puts @session_id in the folder @folder_id (NULL: none). */
void
ui_set_folder (UiWorld    *u,
               const char *session_id,
               const char *folder_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_folder_async (u->sessions, session_id, folder_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* A folder service over @u's data, as the application makes one, its
 * folders read (transfer full). */
NatterFolders *
ui_folders_new (UiWorld *u)
{
  g_autoptr(NatterJsonlRepo) repo = natter_folder_repo_new (u->w->storage);
  NatterFolders *folders = natter_folders_new (repo, NATTER_CLOCK (u->w->clock), u->w->ids);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_folders_load_async (folders, NULL, ui_result_cb, &result);
  g_assert_true (natter_folders_load_finish (folders, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  return folders;
}

/* Makes a folder named @name in @folders; returns its id (transfer full). */
char *
ui_create_folder (NatterFolders *folders,
                  const char    *name)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *folder_id;

  natter_folders_create_async (folders, name, NULL, ui_result_cb, &result);
  folder_id = natter_folders_create_finish (folders, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return folder_id;
}

/* Keeps @temperature as @session_id's Model Settings. */
void
ui_set_temperature (UiWorld    *u,
                    const char *session_id,
                    double      temperature)
{
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  parameters->has_temperature = TRUE;
  parameters->temperature = temperature;
  natter_sessions_set_parameters_async (u->sessions, session_id, parameters, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* Sends @text to @session_id through the fake agent "helper", on
 * {@provider, @model} (both may be NULL: the agent's own), a minute of the
 * fake clock after the last send, and returns the turn id at once (the
 * turn runs on). */
char *
ui_send_with_model (UiWorld    *u,
                    const char *session_id,
                    const char *text,
                    const char *provider,
                    const char *model)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", provider, model);
  char *turn_id;

  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (u->sessions, session_id, input, options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return turn_id;
}

/* Sends @text with the files @first_file, … (NULL-terminated) attached,
 * stored in @blobs as the window stores them, through the fake agent
 * "helper", a minute of the fake clock after the last send; returns the
 * turn id at once (transfer full) and, when @out_parts is not NULL, the
 * message's `blob` parts (transfer full). */
char *
ui_send_with_files (UiWorld          *u,
                    NatterBlobStore  *blobs,
                    const char       *session_id,
                    const char       *text,
                    JsonArray       **out_parts,
                    GFile            *first_file,
                    ...)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = NULL;
  g_autoptr(JsonObject) input = NULL;
  char *turn_id;
  va_list args;

  va_start (args, first_file);
  for (GFile *file = first_file; file != NULL; file = va_arg (args, GFile *))
    g_ptr_array_add (sources, natter_attachment_source_new_for_file (file));
  va_end (args);
  parts = natter_attachments_store_sync (blobs, sources, 1000000, NULL, &error);
  g_assert_no_error (error);
  input = natter_user_message_new (text, parts);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  natter_sessions_send_message_async (u->sessions, session_id, input, options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  if (out_parts != NULL)
    *out_parts = g_steal_pointer (&parts);
  return turn_id;
}

/* ui_send_with_model() on the agent's own model. */
char *
ui_send (UiWorld    *u,
         const char *session_id,
         const char *text)
{
  return ui_send_with_model (u, session_id, text, NULL, NULL);
}

/* Two exchanges in @sid, each answered ("First question" and "Second
 * question"); returns the first turn's file (transfer full). */
GFile *
ui_send_two_exchanges (UiWorld    *u,
                       const char *sid)
{
  g_autofree char *one = NULL;
  g_autofree char *two = NULL;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"First answer.\"}", NULL);
  one = ui_send (u, sid, "First question");
  ui_wait_turn (u, one);
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Second answer.\"}", NULL);
  two = ui_send (u, sid, "Second question");
  ui_wait_turn (u, two);
  return natter_jsonl_repo_get_file (u->w->turn_repo, one, NULL);
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
} UiTurn;

static gboolean
ui_turn_settled (gpointer data)
{
  UiTurn *t = data;

  return !natter_sessions_is_turn_running (t->u->sessions, t->turn_id);
}

/* Waits until @turn_id has settled and the index has caught up. */
void
ui_wait_turn (UiWorld    *u,
              const char *turn_id)
{
  UiTurn t = { u, turn_id };

  ui_wait_until (ui_turn_settled, &t);
  /* The index entry is refreshed just after the settle. */
  ui_settle ();
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
  const char *type;
  const char *tool_call_id;
} UiTurnEvent;

static gboolean
turn_event_written (gpointer data)
{
  UiTurnEvent *w = data;
  g_autoptr(GPtrArray) events = NULL;

  if (natter_sessions_is_turn_running (w->u->sessions, w->turn_id))
    return FALSE;
  events = ui_get_turn (w->u, w->turn_id);
  return ui_find_event (events, w->type, w->tool_call_id) != NULL;
}

/* Waits until @turn_id is not running and its file holds an event of
 * @type (of the tool call @tool_call_id, when not %NULL): a turn that
 * stopped to ask counts only once the event looked for is written. */
void
ui_wait_turn_event (UiWorld    *u,
                    const char *turn_id,
                    const char *type,
                    const char *tool_call_id)
{
  UiTurnEvent w = { u, turn_id, type, tool_call_id };

  ui_wait_until (turn_event_written, &w);
}

/* The session's state, read through the service (transfer full). */
NatterSessionState *
ui_get_session (UiWorld    *u,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionState *state;

  natter_sessions_get_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  state = natter_sessions_get_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return state;
}

/* The turn file's events (JsonNode), read through the service. */
GPtrArray *
ui_get_turn (UiWorld    *u,
             const char *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *events;

  natter_sessions_get_turn_async (u->sessions, turn_id, NULL, ui_result_cb, &result);
  events = natter_sessions_get_turn_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return events;
}

/* Finds the event of @type for @tool_call_id, or NULL. */
JsonObject *
ui_find_event (GPtrArray  *events,
               const char *type,
               const char *tool_call_id)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      if (g_strcmp0 (json_object_get_string_member (event, "type"), type) == 0 &&
          (tool_call_id == NULL ||
           g_strcmp0 (json_object_get_string_member_with_default (event, "toolCallId", NULL), tool_call_id) == 0))
        return event;
    }
  return NULL;
}

/* The contents of @file (transfer full). */
char *
ui_read_file (GFile *file)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_load_contents (file, NULL, &contents, NULL, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

static void
write_file (GFile      *file,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE, G_FILE_CREATE_NONE,
                           NULL, NULL, &error);
  g_assert_no_error (error);
}

/* What is on disk after the process died while the model was answering
 * @text, sent to @session_id: the turn was appended and its model call
 * requested, and nothing after. Made by running the turn up to that
 * point (the model's script must hold its first step), copying both
 * files, stopping the turn and putting the copies back; then a restart
 * (a new index and service over the same directory). Returns the turn
 * id (transfer full); @turn_file gets the turn file as the crash left
 * it. */
char *
ui_make_interrupted (UiWorld     *u,
                     const char  *session_id,
                     const char  *text,
                     char       **turn_file)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *session_bytes = NULL;
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  turn_id = ui_send (u, session_id, text);
  ui_wait_model_held (u);
  events = ui_get_turn (u, turn_id);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_nonnull (ui_find_event (events, "model_call_requested", NULL));

  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  *turn_file = ui_read_file (file);
  session_bytes = ui_read_file (session_file);

  natter_sessions_stop_turn_async (u->sessions, turn_id, NULL, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_stop_turn_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  ui_world_stop_service (u);
  write_file (file, *turn_file);
  write_file (session_file, session_bytes);
  ui_world_start_service (u);
  return g_steal_pointer (&turn_id);
}

/* The full-text index */

/* The full-text index of @u's conversations in its cache folder,
 * started and caught up (transfer full; let go of it with
 * ui_search_index_drop()). */
NatterSearchIndex *
ui_search_index_start (UiWorld *u)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  NatterSearchIndex *search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  g_autoptr(GAsyncResult) result = NULL;

  natter_search_index_start (search);
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  return search;
}

static gboolean
index_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Lets go of @search (transfer full) and waits until it is gone: it
 * holds the session service, and a search thread may let go of it a
 * moment after its answer arrived. */
void
ui_search_index_drop (NatterSearchIndex *search)
{
  g_object_add_weak_pointer (G_OBJECT (search), (gpointer *) &search);
  g_object_unref (search);
  ui_wait_until (index_gone, &search);
}
