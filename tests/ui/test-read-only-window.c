/* test-read-only-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window whose services could not take the data folder's single-writer
 * lock, because another Natter holds it (docs/sessions.md §8.3): it shows
 * the conversations, says at the top of the conversation why it cannot
 * change them, and the composer says why nothing is sent and sends
 * nothing. An answer that looks interrupted there may be running in the
 * other Natter: it is not called a crash and offers no Resume, in the
 * conversation or in the list. Nothing of the conversation's files
 * changes, and no cache is written.
 */

#include "natter-data-dir-lock.h"
#include "natter-test-server.h"
#include "natter-services.h"
#include "natter-session-row.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static const char *heading_text = "Another Natter is using this data folder";
static const char *blocked_text = "Another Natter is using this data folder, so nothing can be sent from this window "
                                  "until it is closed.";
static const char *unfinished_text = "Not finished here. The other Natter using this data folder may still be "
                                     "writing it.";
static const char *interrupted_text = "Interrupted before it finished, perhaps by a crash.";

static char *
no_key (const char *provider,
        gpointer    user_data)
{
  return NULL;
}

static gboolean
notice_shown (gpointer data)
{
  GtkRevealer *notice = GTK_REVEALER (natter_window_get_read_only_notice (data));

  ui_settle ();
  return gtk_revealer_get_child_revealed (notice) && ui_label_shown (GTK_WIDGET (notice), heading_text);
}

static gboolean
unfinished_shown (gpointer data)
{
  GtkWidget *timeline = natter_window_get_timeline_list (data);

  ui_settle ();
  return ui_timeline_loaded (data) && ui_label_shown (timeline, unfinished_text);
}

/* Whether a label of @root begins with @prefix. */
static gboolean
label_begins (GtkWidget  *root,
              const char *prefix)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_str_has_prefix (gtk_label_get_text (g_ptr_array_index (labels, i)), prefix))
      return TRUE;
  return FALSE;
}

/* Every button of @root bound to @action, sensitive or not. */
static guint
count_sensitive (GtkWidget  *root,
                 const char *action,
                 guint      *out_total)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);
  guint sensitive = 0;

  *out_total = 0;
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);

      if (g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), action) != 0)
        continue;
      (*out_total)++;
      if (gtk_widget_is_sensitive (button))
        sensitive++;
    }
  return sensitive;
}

static void
test_window_read_only (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Interrupted story");
  g_autofree char *crashed = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *session_before = NULL;
  g_autofree char *turn_after = NULL;
  g_autofree char *session_after = NULL;
  g_autoptr(GFile) turn_file = NULL;
  g_autoptr(GFile) session_file = NULL;
  g_autoptr(GFile) index_cache = NULL;
  g_autoptr(NatterDataDirLock) other = NULL;
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *timeline;
  NatterSessionRow *row;
  guint total;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_STEP_HOLD,
                            "{\"role\":\"assistant\",\"content\":\"Never asked for\"}",
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  turn_id = ui_make_interrupted (u, session_id, "Tell me a story", &crashed);
  turn_file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  session_file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  session_before = ui_read_file (session_file);

  /* The other Natter holds the folder; this one's services find it taken. */
  index_cache = g_file_resolve_relative_path (u->w->dir, "cache/session-index");
  g_assert_false (g_file_query_exists (index_cache, NULL));
  other = natter_data_dir_lock_acquire (u->w->storage, &error);
  g_assert_no_error (error);
  services = natter_services_new (u->w->dir, NULL, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&error);
  natter_services_load_async (services, NULL, ui_result_cb, &result);
  g_assert_true (natter_services_load_finish (services, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  /* The index cache is the writer's: this process scanned into memory
   * and wrote none. */
  g_assert_false (g_file_query_exists (index_cache, NULL));

  window = natter_window_new (app, natter_services_get_sessions (services), natter_services_get_hub (services));
  natter_window_set_blob_store (window, natter_services_get_blob_store (services));
  natter_window_set_folders (window, natter_services_get_folders (services));
  natter_window_set_agent_id (window, "helper");
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  composer = natter_window_get_composer (window);
  timeline = natter_window_get_timeline_list (window);

  /* The list does not call the unfinished answer interrupted either: the
   * other Natter may be writing it. */
  row = ui_find_session_row (window, session_id);
  g_assert_nonnull (row);
  g_assert_cmpstr (natter_session_row_get_status_mark (row), ==, "other-window");
  g_assert_true (ui_label_shown (GTK_WIDGET (row), "in another window"));
  g_assert_false (ui_label_shown (GTK_WIDGET (row), "interrupted"));

  /* Said at once, before any conversation is open, and for good: there
   * is no button to dismiss it. */
  ui_wait_until (notice_shown, window);
  g_assert_true (label_begins (natter_window_get_read_only_notice (window),
                               "This window can show your conversations but not change them until the other "
                               "Natter is closed. Then it can, without a restart.\nDetails: Another Natter "
                               "process is using "));
  g_assert_null (ui_find_first (natter_window_get_read_only_notice (window), GTK_TYPE_BUTTON));

  /* The conversation reads; its unfinished answer is no crash here, and
   * there is nothing to resume. */
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (unfinished_shown, window);
  g_assert_false (ui_label_shown (timeline, interrupted_text));
  g_assert_null (ui_find_button (timeline, "_Resume"));
  g_assert_true (notice_shown (window));

  /* The composer says why, and sends nothing. */
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, blocked_text);
  g_assert_true (ui_label_shown (GTK_WIDGET (composer), blocked_text));
  natter_composer_set_text (composer, "Anything new?");
  g_assert_false (natter_composer_send (composer));

  /* What would write is off: a new conversation, among others. */
  g_assert_cmpuint (count_sensitive (GTK_WIDGET (window), "win.new-chat", &total), ==, 0);
  g_assert_cmpuint (total, >, 0);

  /* Nothing was asked of a model or written; no error had to be said. */
  ui_settle ();
  g_assert_true (ui_error_bar_hidden (window));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);
  turn_after = ui_read_file (turn_file);
  session_after = ui_read_file (session_file);
  g_assert_cmpstr (turn_after, ==, crashed);
  g_assert_cmpstr (session_after, ==, session_before);

  ui_destroy_window (window);
  g_assert_true (natter_services_flush_blocking (services, 5000));
  g_clear_object (&services);
  g_clear_object (&other);
  ui_world_free (u);
}

/* A torn last line: the whole file is damaged. */
static void
tear (GFile *file)
{
  g_autoptr(GFileOutputStream) out = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, NULL);

  g_assert_nonnull (out);
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (out), "{\"type\":\"tool_res", 17, NULL, NULL, NULL));
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (out), NULL, NULL));
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *mark;
} MarkWait;

static gboolean
marked (gpointer data)
{
  MarkWait *w = data;
  NatterSessionRow *row = ui_find_session_row (w->window, w->session_id);

  ui_settle ();
  return row != NULL && g_strcmp0 (natter_session_row_get_status_mark (row), w->mark) == 0;
}

static void
wait_mark (NatterWindow *window,
           const char   *session_id,
           const char   *mark)
{
  MarkWait w = { window, session_id, mark };

  ui_wait_until (marked, &w);
}

/* A window that only reads marks damaged conversations as the writer's
 * window does: one whose file is damaged as damaged, and one with an
 * earlier message that cannot be read as the writer's search index
 * found it, when the window opens and whenever the writer's index finds
 * another later — it writes nothing to know it. */
static void
test_window_read_only_damaged (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *bad = ui_create_session (u, "Bad");
  g_autofree char *trip = ui_create_session (u, "Trip");
  g_autofree char *later = ui_create_session (u, "Later");
  g_autoptr(GFile) bad_file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GFile) trip_turn = ui_send_two_exchanges (u, trip);
  g_autoptr(GFile) later_turn = ui_send_two_exchanges (u, later);
  g_autoptr(NatterDataDirLock) other = NULL;
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSearchIndex *writers = NULL;
  NatterWindow *window;

  tear (bad_file);
  tear (trip_turn);
  /* The writer's search index found the damaged message, and is open. */
  writers = ui_search_index_start (u);
  other = natter_data_dir_lock_acquire (u->w->storage, &error);
  g_assert_no_error (error);

  services = natter_services_new (u->w->dir, NULL, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, NULL));
  natter_services_load_async (services, NULL, ui_result_cb, &result);
  g_assert_true (natter_services_load_finish (services, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  natter_search_index_start (natter_services_get_search_index (services));
  g_assert_false (natter_search_index_get_started (natter_services_get_search_index (services)));

  window = natter_window_new (app, natter_services_get_sessions (services), natter_services_get_hub (services));
  natter_window_set_search_index (window, natter_services_get_search_index (services));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);

  wait_mark (window, bad, "errored");
  wait_mark (window, trip, "damaged-message");
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, later)));

  /* Damaged while both run: once the writer's index has looked at it
   * again, this window marks it too. */
  tear (later_turn);
  natter_search_index_recheck_session (writers, later);
  wait_mark (window, later, "damaged-message");

  ui_destroy_window (window);
  g_assert_true (natter_services_flush_blocking (services, 5000));
  g_clear_object (&services);
  ui_search_index_drop (writers);
  g_clear_object (&other);
  ui_world_free (u);
}

static gboolean
request_arrived (gpointer data)
{
  NatterTestServer *server = data;

  return server->bodies->len >= 1;
}

typedef struct
{
  NatterWindow   *window;
  NatterServices *services;
  const char     *session_id;
} TakeOver;

/* This window writes now: its notice gone, the answer the dead writer
 * left interrupted in the list and in the conversation, with Resume. */
static gboolean
taken_over (gpointer data)
{
  TakeOver *t = data;
  NatterSessionRow *row = ui_find_session_row (t->window, t->session_id);
  GtkRevealer *notice = GTK_REVEALER (natter_window_get_read_only_notice (t->window));
  GtkWidget *timeline = natter_window_get_timeline_list (t->window);

  ui_settle ();
  return natter_services_has_writer_lock (t->services) && row != NULL &&
         g_strcmp0 (natter_session_row_get_status_mark (row), "interrupted") == 0 &&
         !gtk_revealer_get_reveal_child (notice) && ui_label_shown (timeline, interrupted_text) &&
         ui_find_button (timeline, "_Resume") != NULL;
}

static gboolean
completed (gpointer data)
{
  TakeOver *t = data;
  NatterSessionRow *row = ui_find_session_row (t->window, t->session_id);

  ui_settle ();
  return row != NULL && natter_session_row_get_status_mark (row) == NULL &&
         ui_label_shown (natter_window_get_timeline_list (t->window), "Once upon a time.");
}

/* A window that only reads while another Natter, a real process, writes
 * an answer: the list and the conversation say it is being written in
 * another window. The writer is killed (SIGKILL, nothing of it runs
 * again): within seconds this window takes the data folder's lock and
 * is the writer, as a Natter started then would be (docs/sessions.md
 * §8.3): it says so, the answer the writer left is interrupted, with
 * Resume, in the list and the conversation, nothing that writes is off
 * any longer, and Resume answers it here. */
static void
test_window_takes_over_from_killed_writer (void)
{
  const NatterTestResponse script[] = {
    { .status = 200, .content_type = "text/event-stream",
      .chunks = NATTER_TEST_CHUNKS ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once\"}}]}\n\n"),
      .keep_open = TRUE },
    { .status = 200, .content_type = "text/event-stream",
      .chunks = NATTER_TEST_CHUNKS ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Once upon a "
                                    "time.\"}}]}\n\n",
                                    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
                                    "\n\ndata: [DONE]\n\n") },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (dir);
  g_autoptr(GSubprocess) writer = NULL;
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;
  const char * const send[] = { "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m",
                                "Tell me a story", NULL };
  NatterTestRun run = { 0 };
  NatterWindow *window;
  NatterSessionIndex *index;
  TakeOver t;

  writer = natter_test_cli_spawn (launcher, send);
  natter_test_communicate (writer, &run);
  ui_wait_until (request_arrived, server);

  services = natter_services_new (dir, NULL, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&error);
  natter_services_load_async (services, NULL, ui_result_cb, &result);
  g_assert_true (natter_services_load_finish (services, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  natter_services_watch_store (services);
  natter_services_watch_writer_lock (services);
  index = natter_services_get_index (services);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (index)), ==, 1);
  {
    g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (index), 0);

    session_id = g_strdup (natter_session_index_entry_get_session_id (entry));
  }

  window = natter_window_new (app, natter_services_get_sessions (services), natter_services_get_hub (services));
  natter_window_set_blob_store (window, natter_services_get_blob_store (services));
  natter_window_set_folders (window, natter_services_get_folders (services));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  ui_wait_until (notice_shown, window);
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)), ==, "other-window");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (unfinished_shown, window);
  g_assert_cmpstr (natter_composer_get_blocked_reason (natter_window_get_composer (window)), ==, blocked_text);

  /* The writer dies mid-answer. */
  g_subprocess_force_exit (writer);
  natter_test_wait_for_flag (&run.done, 10000);
  g_assert_cmpint (run.status, ==, -1);

  t.window = window;
  t.services = services;
  t.session_id = session_id;
  ui_wait_until (taken_over, &t);
  ui_wait_label (window, "You can edit now");
  g_assert_cmpstr (window->errors.last_notice_details, ==,
                   "The other Natter using this data folder has closed. This window can change your conversations now.");
  g_assert_cmpstr (natter_composer_get_blocked_reason (natter_window_get_composer (window)), ==,
                   "The last answer was interrupted. Resume it before sending a new message.");
  {
    guint total;

    g_assert_cmpuint (count_sensitive (GTK_WIDGET (window), "win.new-chat", &total), >, 0);
  }
  /* This device's identity, which the writer made, is the one read. */
  g_assert_nonnull (natter_sessions_get_device (natter_services_get_sessions (services)));

  /* It answers here now. */
  gtk_widget_activate (ui_find_button (natter_window_get_timeline_list (window), "_Resume"));
  ui_wait_until (completed, &t);
  g_assert_cmpuint (server->bodies->len, ==, 2);

  ui_destroy_window (window);
  g_assert_true (natter_services_flush_blocking (services, 5000));
  g_clear_object (&services);
  natter_test_run_clear (&run);
  natter_test_remove_tree (dir);
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} FieldWait;

static gboolean
field_says (gpointer data)
{
  FieldWait *wait = data;
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (wait->window));

  return g_strcmp0 (text, wait->text) == 0;
}

static gboolean
writes (gpointer data)
{
  return natter_services_has_writer_lock (data);
}

static char *
read_draft (GFile      *dir,
            const char *key)
{
  g_autofree char *name = g_strconcat (key, ".json", NULL);
  g_autofree char *path = g_build_filename (g_file_peek_path (dir), NATTER_DRAFTS_DIR_NAME, name, NULL);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return NULL;
  return contents;
}

/* Words typed in a window that only reads are not lost: closing it asks
 * first, since it cannot keep them; once the other Natter has closed
 * and this window writes, it keeps them, over the other's draft of that
 * conversation, and takes the other's drafts it did not change here: a
 * draft changed there shows its new words, one sent there is gone. */
static void
test_window_read_only_drafts (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autofree char *typed_here = natter_test_store_session (dir, "Typed here", NULL, NULL);
  g_autofree char *changed_there = natter_test_store_session (dir, "Changed there", NULL, NULL);
  g_autofree char *sent_there = natter_test_store_session (dir, "Sent there", NULL, NULL);
  g_autoptr(NatterDataDirLock) other = NULL;
  g_autoptr(NatterDraftStore) theirs = natter_draft_store_new (dir);
  g_autoptr(NatterServices) services = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *kept = NULL;
  NatterWindow *window;
  AdwMessageDialog *dialog;
  FieldWait wait;

  /* The other Natter writes, with drafts of its own. */
  other = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  g_assert_true (natter_test_save_draft (theirs, typed_here, "Their words", NULL, NULL, &error));
  g_assert_true (natter_test_save_draft (theirs, changed_there, "Before", NULL, NULL, &error));
  g_assert_true (natter_test_save_draft (theirs, sent_there, "To be sent", NULL, NULL, &error));
  g_assert_no_error (error);

  services = natter_services_new (dir, NULL, no_key, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, NULL));
  natter_services_load_async (services, NULL, ui_result_cb, &result);
  g_assert_true (natter_services_load_finish (services, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  natter_services_watch_writer_lock (services);
  window = natter_window_new (app, natter_services_get_sessions (services), natter_services_get_hub (services));
  natter_window_set_draft_store (window, natter_services_get_draft_store (services));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  ui_wait_until (notice_shown, window);
  g_assert_true (natter_window_open_session (window, typed_here));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (FieldWait) { window, "Their words" };
  ui_wait_until (field_says, &wait);
  natter_composer_set_text (natter_window_get_composer (window), "Words typed while reading");

  /* Closing asks; the window stays open. */
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  dialog = ADW_MESSAGE_DIALOG (ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Close Without Your Typed Words?");
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  g_assert_true (gtk_widget_activate (ui_find_button (GTK_WIDGET (dialog), "_Keep Window Open")));
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  g_object_unref (window);

  /* The other Natter changes one draft, sends another, then closes. */
  g_assert_true (natter_test_save_draft (theirs, changed_there, "After", NULL, NULL, &error));
  g_assert_true (natter_test_save_draft (theirs, sent_there, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_clear_object (&other);
  ui_wait_until (writes, services);
  ui_settle ();

  kept = read_draft (dir, typed_here);
  g_assert_nonnull (strstr (kept, "Words typed while reading"));
  g_assert_null (read_draft (dir, sent_there));
  g_assert_true (natter_window_open_session (window, changed_there));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (FieldWait) { window, "After" };
  ui_wait_until (field_says, &wait);
  g_assert_true (natter_window_open_session (window, sent_there));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (FieldWait) { window, "" };
  ui_wait_until (field_says, &wait);
  g_assert_true (natter_window_open_session (window, typed_here));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (FieldWait) { window, "Words typed while reading" };
  ui_wait_until (field_says, &wait);

  /* Writing, it closes without asking. */
  g_object_ref (window);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_null (ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
  g_object_unref (window);
  g_assert_true (natter_services_flush_blocking (services, 5000));
  g_clear_object (&services);
  natter_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/read-only/window", test_window_read_only);
  g_test_add_func ("/read-only/window-damaged", test_window_read_only_damaged);
  g_test_add_func ("/read-only/window-takes-over-from-killed-writer", test_window_takes_over_from_killed_writer);
  g_test_add_func ("/read-only/window-drafts", test_window_read_only_drafts);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
