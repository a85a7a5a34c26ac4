/* test-sync-live.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What another process or device writes into the data directory while
 * Natter runs (docs/sessions.md §8.5), and the turns another device runs
 * (docs/format.md §4.5), through the real services over a temporary data
 * directory and their watch of the store:
 *
 * - the real `natter` command line, another process, sends a message
 *   and renames the conversation: the index follows, without a restart;
 * - files arrive as Syncthing brings them (written beside, renamed into
 *   place): a conversation whose answer another device is writing is
 *   listed as running there; resuming or stopping it here is refused and
 *   writes nothing; its answer, when it arrives, is shown;
 * - "Continue Here" takes such a turn over: its first new event records
 *   this device, and nothing the other device wrote is changed.
 *
 * Every wait runs the main loop until a condition holds, with a timeout.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-runtime-error.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-queue.h"
#include "natter-test-services.h"
#include "natter-test-support.h"

#define SESSION "2026-11-30T09-14-03Z-0000001-000"
#define TURN "2026-11-30T09-14-03Z-0000002-000"
#define WAIT_MS NATTER_TEST_SERVICES_WAIT_MS

#define SESSION_LINES \
  "{\"type\":\"session_created\",\"sessionId\":\"" SESSION "\",\"ts\":\"2026-11-30T09:14:03.100Z\"," \
  "\"schemaVersion\":1,\"title\":\"Written on the laptop\"}\n" \
  "{\"type\":\"turn_appended\",\"sessionId\":\"" SESSION "\",\"ts\":\"2026-11-30T09:14:03.130Z\"," \
  "\"turnId\":\"" TURN "\",\"sessionSeq\":1,\"agentId\":\"assistant\",\"model\":{\"provider\":\"test\",\"model\":\"m\"}}\n"
#define TURN_LINES \
  "{\"type\":\"turn_created\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:03.120Z\",\"schemaVersion\":1," \
  "\"sessionId\":\"" SESSION "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":" \
  "{\"agentId\":\"assistant\",\"systemPrompt\":\"\",\"model\":{\"provider\":\"test\",\"model\":\"m\"},\"tools\":[]}}," \
  "\"context\":[],\"input\":{\"role\":\"user\",\"content\":\"Tell me a story\"},\"config\":{\"autoPermission\":false," \
  "\"humanAvailable\":true,\"maxModelCalls\":50},\"device\":{\"id\":\"laptop-id\",\"name\":\"laptop <3>\"}}\n" \
  "{\"type\":\"model_call_requested\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:03.140Z\"," \
  "\"modelCallIndex\":0,\"request\":{\"messages\":[\"input\"],\"parameters\":{}}}\n"
#define ANSWER_LINES \
  "{\"type\":\"model_call_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:09.000Z\"," \
  "\"modelCallIndex\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Once upon a time.\"}," \
  "\"finishReason\":\"stop\",\"usage\":{}}\n" \
  "{\"type\":\"turn_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:09.001Z\"," \
  "\"output\":{\"role\":\"assistant\",\"content\":\"Once upon a time.\"},\"finishReason\":\"stop\",\"usage\":{}}\n"

typedef NatterTestServices Fixture;

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  g_autoptr(NatterDevice) device = NULL;
  g_autoptr(GError) error = NULL;

  natter_test_services_set_up_without_titles (f, data);
  /* The command line writes the directory while the services read it. */
  f->without_writer_lock = TRUE;
  /* Services that do not take the lock only read this device's identity
   * (docs/sessions.md §8.3): made here, as this device's Natter made it
   * when it last held the folder. */
  device = natter_device_load_or_create_sync (f->dir, &error);
  g_assert_no_error (error);
}

static void
watch (Fixture *f)
{
  natter_services_watch_store (f->services);
  natter_store_watch_set_delay (natter_services_get_store_watch (f->services), 20);
}

static char *
log_path (Fixture    *f,
          const char *tree,
          const char *id)
{
  return g_build_filename (g_file_peek_path (f->dir), "storage", tree, "2026", "11", "30", id, NULL);
}

/* As Syncthing brings a file: its whole new content written beside it
 * under a temporary name, then renamed over it. */
static void
arrive (Fixture    *f,
        const char *tree,
        const char *id,
        const char *contents)
{
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
  g_autofree char *path = log_path (f, tree, name);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *temp = g_build_filename (dir, ".syncthing.incoming.tmp", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (temp, contents, -1, NULL));
  g_assert_cmpint (g_rename (temp, path), ==, 0);
}

static char *
read_log (Fixture    *f,
          const char *tree,
          const char *id)
{
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
  g_autofree char *path = log_path (f, tree, name);
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  return contents;
}

typedef struct
{
  Fixture    *f;
  const char *session_id;
  const char *status;
  const char *title;
} Expect;

static gboolean
entry_is (gpointer data)
{
  Expect *e = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (e->f->sessions),
                                                                e->session_id);

  return entry != NULL &&
         (e->status == NULL ||
          g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), e->status) == 0) &&
         (e->title == NULL || g_strcmp0 (natter_session_index_entry_get_title (entry), e->title) == 0);
}

static void
wait_entry (Fixture    *f,
            const char *session_id,
            const char *status,
            const char *title)
{
  Expect e = { f, session_id, status, title };

  g_assert_true (natter_test_wait_until (entry_is, &e, WAIT_MS));
}

/* Another process — the command line — sends and renames; the running
 * services list it and follow, without a restart. */
static void
test_from_command_line (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) sent = { 0 };
  g_auto(NatterTestRun) renamed = { 0 };
  g_autofree char *session_id = NULL;
  NatterStoreWatch *w;
  guint refreshes;

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_SAY ("From the other process."));
  watch (f);
  w = natter_services_get_store_watch (f->services);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_sessions_list_sessions (f->sessions))), ==, 0);

  natter_test_cli_run (f->dir, (const char * const[]) { "send", "--no-auto-title", "--base-url", f->server->base_url,
                                                        "--model", "m", "Hello from elsewhere", NULL },
                       &sent, WAIT_MS);
  g_assert_cmpint (sent.status, ==, 0);
  session_id = g_strndup (strchr (sent.out, ' ') + 1, 32);

  wait_entry (f, session_id, "completed", "Hello from elsewhere");
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (
                      natter_session_index_lookup (natter_sessions_list_sessions (f->sessions), session_id)), ==, 1);

  natter_test_cli_run (f->dir, (const char * const[]) { "title", session_id, "Renamed", "elsewhere", NULL },
                       &renamed, WAIT_MS);
  g_assert_cmpint (renamed.status, ==, 0);
  wait_entry (f, session_id, "completed", "Renamed elsewhere");

  /* Gathered: a handful of reads for two commands' files, not one per
   * file event. */
  refreshes = natter_store_watch_get_n_refreshes (w);
  g_assert_cmpuint (refreshes, >=, 1);
  g_assert_cmpuint (refreshes, <=, 8);
}

typedef struct
{
  const char *turn_id;
  guint       n;
} Heard;

static void
changed_elsewhere_cb (NatterSessions *sessions,
                      const char     *turn_id,
                      Heard          *heard)
{
  if (g_strcmp0 (turn_id, heard->turn_id) == 0)
    heard->n++;
}

static void
resume_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GError **error = user_data;
  g_autofree char *turn_id = natter_sessions_resume_turn_finish (NATTER_SESSIONS (object), result, error);

  g_assert_null (turn_id);
}

static void
stop_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (natter_sessions_stop_turn_finish (NATTER_SESSIONS (object), result, error));
}

static void
send_refused_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GError **error = user_data;
  g_autofree char *turn_id = natter_sessions_send_message_finish (NATTER_SESSIONS (object), result, error);

  g_assert_null (turn_id);
}

/* A turn the laptop runs, brought by Syncthing: listed as running there,
 * never resumed or stopped here, a message refused in words that name
 * the laptop, and its answer shows when it arrives. */
static void
test_turn_elsewhere (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) resumed = NULL;
  g_autoptr(GError) stopped = NULL;
  g_autoptr(GError) sent = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autofree char *session_before = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  NatterSessionIndexEntry *entry;
  Heard heard = { TURN, 0 };

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_BROKEN);
  g_signal_connect (f->sessions, "turn-changed-elsewhere", G_CALLBACK (changed_elsewhere_cb), &heard);
  watch (f);

  /* The turn file first, then the session that refers to it. */
  arrive (f, "turns", TURN, TURN_LINES);
  arrive (f, "sessions", SESSION, SESSION_LINES);
  wait_entry (f, SESSION, "idle", "Written on the laptop");
  entry = natter_session_index_lookup (natter_sessions_list_sessions (f->sessions), SESSION);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_device_id (entry), ==, "laptop-id");
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_device_name (entry), ==, "laptop <3>");
  g_assert_true (natter_sessions_is_turn_elsewhere (f->sessions, entry));

  /* Never moved on from here: not resumed, not stopped, nothing written. */
  natter_sessions_resume_turn_async (f->sessions, SESSION, NULL, resume_cb, &resumed);
  natter_test_wait_for_pointer ((gpointer *) &resumed, WAIT_MS);
  g_assert_error (resumed, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE);
  g_assert_nonnull (strstr (resumed->message, "laptop <3>"));
  natter_sessions_stop_turn_async (f->sessions, TURN, "Stopped here", NULL, stop_cb, &stopped);
  natter_test_wait_for_pointer ((gpointer *) &stopped, WAIT_MS);
  g_assert_error (stopped, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE);
  /* Not "idle; wait for it to settle or stop it": it cannot be stopped
   * here, and it is not waiting for anything of this device. */
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "And then?");
  natter_sessions_send_message_async (f->sessions, SESSION, input, options, NULL, send_refused_cb, &sent);
  natter_test_wait_for_pointer ((gpointer *) &sent, WAIT_MS);
  g_assert_error (sent, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_TURN_NOT_SETTLED);
  g_assert_cmpstr (sent->message, ==, "The answer is being written on another device (“laptop <3>”); a message can "
                                      "be sent here once it has ended");
  session_before = read_log (f, "sessions", SESSION);
  g_assert_cmpstr (session_before, ==, SESSION_LINES);
  before = read_log (f, "turns", TURN);
  g_assert_cmpstr (before, ==, TURN_LINES);
  g_assert_cmpuint (f->server->paths->len, ==, 0);

  /* The laptop finishes; Syncthing brings the grown file. */
  arrive (f, "turns", TURN, TURN_LINES ANSWER_LINES);
  wait_entry (f, SESSION, "completed", NULL);
  g_assert_null (natter_session_index_entry_get_latest_turn_device_id (entry));
  g_assert_false (natter_sessions_is_turn_elsewhere (f->sessions, entry));
  g_assert_cmpuint (heard.n, >=, 1);
  after = read_log (f, "turns", TURN);
  g_assert_cmpstr (after, ==, TURN_LINES ANSWER_LINES);
}

static void
any_turn_cb (NatterSessions *sessions,
             const char     *turn_id,
             GPtrArray      *heard)
{
  g_ptr_array_add (heard, g_strdup (turn_id));
}

/* This process's own writes are not read back: a conversation sent here
 * is never announced as changed elsewhere (which made the window read
 * its turn again); another writer's change after it is. */
static void
test_own_writes (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) heard = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_SAY ("Written here."));
  watch (f);
  g_signal_connect (f->sessions, "turn-changed-elsewhere", G_CALLBACK (any_turn_cb), heard);

  session_id = natter_test_services_create_session (f);
  turn_id = natter_test_services_send (f, session_id, "Hello");
  natter_test_services_wait_turn (f, turn_id);

  /* Another device's conversation, listed with its turn running there;
   * then that turn's answer arrives. Once the answer is listed, the watch
   * has seen every change before it. (A turn file and its session file
   * arriving together may be listed in one go, which announces no
   * change of a turn already known: the answer comes after.) */
  arrive (f, "turns", TURN, TURN_LINES);
  arrive (f, "sessions", SESSION, SESSION_LINES);
  wait_entry (f, SESSION, "idle", "Written on the laptop");
  arrive (f, "turns", TURN, TURN_LINES ANSWER_LINES);
  wait_entry (f, SESSION, "completed", NULL);
  g_assert_cmpuint (heard->len, >=, 1);
  for (guint i = 0; i < heard->len; i++)
    g_assert_cmpstr (g_ptr_array_index (heard, i), ==, TURN);
}

#define COPY_MARK ".sync-conflict-20261130-101500-ABCDEF2"
#define FOLDER "2026-11-30T09-14-03Z-0000009-000"
#define FOLDER_LINE(type, name, ts) \
  "{\"type\":\"" type "\",\"folderId\":\"" FOLDER "\",\"ts\":\"2026-11-30T" ts "Z\"," \
  "\"schemaVersion\":1,\"name\":\"" name "\"}\n"

typedef struct
{
  Fixture    *f;
  const char *name;
} Folder;

static gboolean
folder_named (gpointer data)
{
  Folder *d = data;
  GListModel *folders = G_LIST_MODEL (natter_services_get_folders (d->f->services));

  for (guint i = 0; i < g_list_model_get_n_items (folders); i++)
    {
      g_autoptr(NatterFolder) folder = g_list_model_get_item (folders, i);

      if (g_strcmp0 (natter_folder_get_id (folder), FOLDER) == 0)
        return g_strcmp0 (natter_folder_get_name (folder), d->name) == 0;
    }
  return FALSE;
}

static gboolean
entry_gone (gpointer data)
{
  Expect *e = data;

  return natter_session_index_lookup (natter_sessions_list_sessions (e->f->sessions), e->session_id) == NULL;
}

/* The copies Syncthing keeps of a log two devices changed at once
 * (docs/format.md §9) show while Natter runs, without a restart: a copy
 * of a session file as a version of the conversation, a copy of a turn
 * file (in a shared folder) as another answer, a copy of a folder log by
 * the name given last; a copy deleted there goes here too. */
static void
test_copies_arrive (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *marker = g_build_filename (g_file_peek_path (f->dir), ".stfolder", NULL);
  NatterSessionIndexEntry *copy;
  Folder folder = { f, "Trips" };
  Expect gone = { f, SESSION COPY_MARK, NULL, NULL };

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_BROKEN);
  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
  watch (f);
  arrive (f, "turns", TURN, TURN_LINES ANSWER_LINES);
  arrive (f, "sessions", SESSION, SESSION_LINES);
  arrive (f, "folders", FOLDER, FOLDER_LINE ("folder_created", "Trips", "09:14:03.000"));
  wait_entry (f, SESSION, "completed", "Written on the laptop");
  g_assert_true (natter_test_wait_until (folder_named, &folder, WAIT_MS));

  /* The desktop renamed the conversation while apart. */
  arrive (f, "sessions", SESSION COPY_MARK,
          SESSION_LINES "{\"type\":\"title_changed\",\"sessionId\":\"" SESSION "\","
          "\"ts\":\"2026-11-30T10:00:00.000Z\",\"title\":\"Renamed on the desktop\"}\n");
  wait_entry (f, SESSION COPY_MARK, NULL, "Renamed on the desktop");
  copy = natter_session_index_lookup (natter_sessions_list_sessions (f->sessions), SESSION COPY_MARK);
  g_assert_null (natter_session_index_entry_get_error (copy));
  g_assert_true (natter_session_index_entry_get_is_version (copy));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (copy), ==, SESSION);

  /* And answered the same turn on its own: another answer. */
  arrive (f, "turns", TURN COPY_MARK, TURN_LINES
          "{\"type\":\"model_call_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:09.000Z\","
          "\"modelCallIndex\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Long ago.\"},"
          "\"finishReason\":\"stop\",\"usage\":{}}\n"
          "{\"type\":\"turn_completed\",\"turnId\":\"" TURN "\",\"ts\":\"2026-11-30T09:14:09.001Z\","
          "\"output\":{\"role\":\"assistant\",\"content\":\"Long ago.\"},\"finishReason\":\"stop\",\"usage\":{}}\n");
  wait_entry (f, TURN COPY_MARK, "completed", NULL);
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (
                     natter_session_index_lookup (natter_sessions_list_sessions (f->sessions), TURN COPY_MARK)),
                   ==, SESSION);

  /* And renamed the folder later than the laptop did. */
  arrive (f, "folders", FOLDER, FOLDER_LINE ("folder_created", "Trips", "09:14:03.000")
          "{\"type\":\"folder_renamed\",\"folderId\":\"" FOLDER "\",\"ts\":\"2026-11-30T10:00:00.000Z\","
          "\"name\":\"Journeys\"}\n");
  folder.name = "Journeys";
  g_assert_true (natter_test_wait_until (folder_named, &folder, WAIT_MS));
  arrive (f, "folders", FOLDER COPY_MARK, FOLDER_LINE ("folder_created", "Trips", "09:14:03.000")
          "{\"type\":\"folder_renamed\",\"folderId\":\"" FOLDER "\",\"ts\":\"2026-11-30T11:00:00.000Z\","
          "\"name\":\"Travels\"}\n");
  folder.name = "Travels";
  g_assert_true (natter_test_wait_until (folder_named, &folder, WAIT_MS));

  /* Deleted there: gone here. */
  {
    g_autofree char *path = log_path (f, "sessions", SESSION COPY_MARK ".jsonl");

    g_assert_cmpint (g_unlink (path), ==, 0);
  }
  g_assert_true (natter_test_wait_until (entry_gone, &gone, WAIT_MS));
}

#define QUEUE_ID "2026-11-30T09-14-04Z-0000003-000"
#define QUEUED_LINES \
  "{\"type\":\"schema_upgraded\",\"sessionId\":\"" SESSION "\",\"ts\":\"2026-11-30T09:14:04.000Z\"," \
  "\"schemaVersion\":2}\n" \
  "{\"type\":\"message_queued\",\"sessionId\":\"" SESSION "\",\"ts\":\"2026-11-30T09:14:04.000Z\"," \
  "\"queueId\":\"" QUEUE_ID "\",\"message\":{\"role\":\"user\",\"content\":\"And then?\"}," \
  "\"options\":{\"agentId\":\"assistant\",\"autoPermission\":false}}\n"

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (natter_sessions_remove_queued_message_finish (NATTER_SESSIONS (object), result, error));
}

static void
queued_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GError **error = user_data;
  g_autofree char *queue_id = natter_sessions_queue_message_finish (NATTER_SESSIONS (object), result, error);

  g_assert_null (queue_id);
}

typedef struct
{
  GError   *error;
  gboolean  done;
  char     *turn_id;
} Promoted;

static void
promoted_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Promoted *p = user_data;

  p->turn_id = natter_sessions_promote_queue_finish (NATTER_SESSIONS (object), result, &p->error);
  p->done = TRUE;
}

/* A message the laptop queued behind the answer it is writing is the
 * laptop's (docs/format.md §4.5): here it cannot be removed or joined by
 * another while the answer runs there — refused in plain words naming
 * the device, nothing written — and nothing here sends it, not even once
 * the laptop's answer has completed: the laptop sends it, and what it
 * sent shows here when it arrives. */
static void
test_queue_elsewhere (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) removed = NULL;
  g_autoptr(GError) queued = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("assistant");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  Promoted promoted = { 0 };

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_BROKEN);
  watch (f);
  arrive (f, "turns", TURN, TURN_LINES);
  arrive (f, "sessions", SESSION, SESSION_LINES QUEUED_LINES);
  wait_entry (f, SESSION, "idle", "Written on the laptop");
  before = read_log (f, "sessions", SESSION);

  natter_sessions_remove_queued_message_async (f->sessions, SESSION, QUEUE_ID, NULL, removed_cb, &removed);
  natter_test_wait_for_pointer ((gpointer *) &removed, WAIT_MS);
  g_assert_error (removed, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE);
  g_assert_nonnull (strstr (removed->message, "“laptop <3>”"));
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", "Me too");
  natter_sessions_queue_message_async (f->sessions, SESSION, input, options, FALSE, NULL, queued_cb, &queued);
  natter_test_wait_for_pointer ((gpointer *) &queued, WAIT_MS);
  g_assert_error (queued, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_ELSEWHERE);

  /* The laptop's answer completes: still the laptop's to send on. */
  arrive (f, "turns", TURN, TURN_LINES ANSWER_LINES);
  wait_entry (f, SESSION, "completed", NULL);
  natter_sessions_promote_queue_async (f->sessions, SESSION, NULL, promoted_cb, &promoted);
  natter_test_wait_for_flag (&promoted.done, WAIT_MS);
  g_assert_no_error (promoted.error);
  g_assert_null (promoted.turn_id);
  after = read_log (f, "sessions", SESSION);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (f->server->paths->len, ==, 0);
}

static void
take_over_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **turn_id = user_data;
  g_autoptr(GError) error = NULL;

  *turn_id = natter_sessions_take_over_turn_finish (NATTER_SESSIONS (object), result, &error);
  g_assert_no_error (error);
}

/* The laptop stopped in the middle: "Continue Here" takes the turn over.
 * Its first new event says it runs here; what the laptop wrote stays. */
static void
test_continue_here (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *after = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(JsonNode) first_new = NULL;
  JsonObject *device;
  NatterDevice *here;

  NATTER_TEST_SERVE (f, NULL, NATTER_TEST_SAY ("The rest of the story."));
  arrive (f, "turns", TURN, TURN_LINES);
  arrive (f, "sessions", SESSION, SESSION_LINES);
  /* Found by the next start, as well as by the watch. */
  natter_test_services_reload (f);
  here = natter_sessions_get_device (f->sessions);
  g_assert_nonnull (here);
  wait_entry (f, SESSION, "idle", NULL);

  natter_sessions_take_over_turn_async (f->sessions, SESSION, NULL, take_over_cb, &turn_id);
  natter_test_wait_for_pointer ((gpointer *) &turn_id, WAIT_MS);
  g_assert_cmpstr (turn_id, ==, TURN);
  wait_entry (f, SESSION, "completed", NULL);

  after = read_log (f, "turns", TURN);
  g_assert_true (g_str_has_prefix (after, TURN_LINES));
  lines = g_strsplit (after + strlen (TURN_LINES), "\n", -1);
  first_new = natter_test_json (lines[0]);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (first_new), "type"), ==, "model_call_failed");
  device = json_object_get_object_member (json_node_get_object (first_new), "device");
  g_assert_nonnull (device);
  g_assert_cmpstr (json_object_get_string_member (device, "id"), ==, natter_device_get_id (here));
  /* Said once: the events after it run here as well. */
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
    g_assert_null (strstr (lines[i], "\"device\""));
  g_assert_nonnull (strstr (after, "The rest of the story."));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#define ADD(path, func) g_test_add (path, Fixture, NULL, set_up, func, natter_test_services_tear_down)
  ADD ("/sync-live/from-command-line", test_from_command_line);
  ADD ("/sync-live/turn-elsewhere", test_turn_elsewhere);
  ADD ("/sync-live/continue-here", test_continue_here);
  ADD ("/sync-live/own-writes", test_own_writes);
  ADD ("/sync-live/copies-arrive", test_copies_arrive);
  ADD ("/sync-live/queue-elsewhere", test_queue_elsewhere);
#undef ADD
  return g_test_run ();
}
