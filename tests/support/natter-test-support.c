/* natter-test-support.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-json.h"
#include "natter-test-support.h"

#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-grants-queue.h"
#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-session-schema-upgrade.h"

struct _NatterFakeClock
{
  GObject parent_instance;
  gint64  now_us;
};

static gint64
natter_fake_clock_now_us (NatterClock *clock)
{
  return NATTER_FAKE_CLOCK (clock)->now_us;
}

static void
natter_fake_clock_iface_init (NatterClockInterface *iface)
{
  iface->now_us = natter_fake_clock_now_us;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterFakeClock, natter_fake_clock, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_CLOCK,
                                                      natter_fake_clock_iface_init))

static void
natter_fake_clock_class_init (NatterFakeClockClass *klass)
{
}

static void
natter_fake_clock_init (NatterFakeClock *self)
{
}

NatterFakeClock *
natter_fake_clock_new (gint64 start_us)
{
  NatterFakeClock *self = g_object_new (NATTER_TYPE_FAKE_CLOCK, NULL);

  self->now_us = start_us;
  return self;
}

void
natter_fake_clock_set (NatterFakeClock *self,
                       gint64           now_us)
{
  self->now_us = now_us;
}

void
natter_fake_clock_advance (NatterFakeClock *self,
                           gint64           delta_us)
{
  self->now_us += delta_us;
}

GFile *
natter_test_make_temp_dir (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_dir_make_tmp ("natter-test-XXXXXX", &error);

  g_assert_no_error (error);
  return g_file_new_for_path (path);
}

static void
remove_path (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);

  if (dir != NULL)
    {
      const char *name;

      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          if (g_file_test (child, G_FILE_TEST_IS_DIR) &&
              !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            remove_path (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
      g_rmdir (path);
    }
}

void
natter_test_remove_tree (GFile *dir)
{
  g_autofree char *path = g_file_get_path (dir);

  /* Directories are made 0700 and some tests make them read-only; restore
   * write access so the tree can go. */
  g_chmod (path, 0700);
  remove_path (path);
}

static gboolean
timeout_cb (gpointer data)
{
  gboolean *timed_out = data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

void
natter_test_wait_for_flag (gboolean *flag,
                           guint     timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  while (!*flag && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);
  if (!*flag)
    g_error ("Timed out after %u ms waiting for a condition", timeout_ms);
}

/**
 * natter_test_wait_until:
 * @condition: what to wait for
 * @data: data for @condition
 * @timeout_ms: the longest wait
 *
 * Iterates the default main context until @condition holds or
 * @timeout_ms pass, never sleeping; for a test that reports a timeout
 * itself (with what it was doing) instead of failing at once.
 *
 * Returns: whether @condition held
 */
gboolean
natter_test_wait_until (NatterTestCheck condition,
                        gpointer        data,
                        guint           timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);
  return condition (data);
}

void
natter_test_wait_for_pointer (gpointer *pointer,
                              guint     timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  while (*pointer == NULL && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);
  if (*pointer == NULL)
    g_error ("Timed out after %u ms waiting for a result", timeout_ms);
}

/**
 * natter_test_drain_main_context:
 *
 * Dispatches every source of the default main context that is ready,
 * without blocking: what a test runs before it asserts that something
 * did NOT happen, or before it drops an object that pending idles hold.
 */
void
natter_test_drain_main_context (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/**
 * natter_test_wait_for_count:
 * @counter: a count the code under test raises
 * @n: the count to wait for
 * @timeout_ms: the longest wait
 *
 * Iterates the default main context until *@counter is at least @n;
 * fails the test after @timeout_ms. Never sleeps.
 */
void
natter_test_wait_for_count (guint *counter,
                            guint  n,
                            guint  timeout_ms)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  while (*counter < n && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);
  if (*counter < n)
    g_error ("Timed out after %u ms waiting for %u (got %u)", timeout_ms, n, *counter);
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/**
 * natter_test_wait_finalized:
 * @object: (transfer full): a #GObject
 * @timeout_ms: the longest wait
 *
 * Drops the caller's reference to @object and iterates the default main
 * context until @object is finalized; fails the test after @timeout_ms.
 * A worker thread may drop the last reference of a finished #GTask (and
 * with it the task's source object) just after its callback ran on the
 * main thread, without waking the main context: a periodic wake-up
 * makes the check run again; it never decides anything.
 */
void
natter_test_wait_finalized (gpointer object,
                            guint    timeout_ms)
{
  gpointer weak = object;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint id = g_timeout_add (10, wake_cb, NULL);

  g_object_add_weak_pointer (object, &weak);
  g_object_unref (object);
  while (weak != NULL)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("Timed out after %u ms waiting for an object to be finalized", timeout_ms);
      g_main_context_iteration (NULL, TRUE);
    }
  g_source_remove (id);
}

JsonNode *
natter_test_json (const char *literal)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (literal, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* Checks one session event line against the session schema: valid when
 * @code is 0, else refused with that %NATTER_STORE_ERROR code. */
void
natter_test_assert_session_event (const char *line,
                                  const char *session_id,
                                  int         code)
{
  g_autoptr(JsonNode) event = natter_test_json (line);
  g_autoptr(GError) error = NULL;
  gboolean ok = natter_session_event_validate (json_node_get_object (event), session_id, &error);

  g_test_message ("%s", line);
  if (code == 0)
    {
      g_assert_no_error (error);
      g_assert_true (ok);
    }
  else
    {
      g_assert_false (ok);
      g_assert_error (error, NATTER_STORE_ERROR, code);
    }
}

GPtrArray *
natter_test_json_array (const char *first_literal,
                        ...)
{
  GPtrArray *array = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  va_list args;

  va_start (args, first_literal);
  for (const char *literal = first_literal; literal != NULL; literal = va_arg (args, const char *))
    g_ptr_array_add (array, natter_test_json (literal));
  va_end (args);
  return array;
}

static void
list_files_into (GFile     *folder,
                 GPtrArray *paths)
{
  g_autoptr(GFileEnumerator) children = NULL;
  GFileInfo *info;
  GFile *child;

  children = g_file_enumerate_children (folder, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, NULL);
  if (children == NULL)
    return;
  while (g_file_enumerator_iterate (children, &info, &child, NULL, NULL) && info != NULL)
    if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
      list_files_into (child, paths);
    else
      g_ptr_array_add (paths, g_file_get_path (child));
}

/**
 * natter_test_list_files:
 * @dir: a folder
 * @relative: a path under @dir, e.g. "storage/sessions"
 *
 * Returns: (transfer full) (element-type utf8): the paths of every file
 *   under @relative, at any depth, in no particular order; empty when
 *   it does not exist
 */
GPtrArray *
natter_test_list_files (GFile      *dir,
                        const char *relative)
{
  g_autoptr(GFile) folder = g_file_resolve_relative_path (dir, relative);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);

  list_files_into (folder, paths);
  return paths;
}

/**
 * natter_test_append_file:
 * @path: an existing file
 * @text: what to add at its end, e.g. half a line, as a crash or another
 *   program would leave it
 */
void
natter_test_append_file (const char *path,
                         const char *text)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;

  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (G_OUTPUT_STREAM (stream), text, strlen (text), NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error));
}

char *
natter_test_read_file (const char *path,
                       gsize      *length)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, length, &error);
  g_assert_no_error (error);
  return contents;
}

/**
 * natter_test_run_clear:
 * @run: a run
 *
 * Frees what @run holds (its output and error text) and marks it not
 * done, ready for the next run.
 */
void
natter_test_run_clear (NatterTestRun *run)
{
  g_clear_pointer (&run->out, g_free);
  g_clear_pointer (&run->err, g_free);
  run->done = FALSE;
}

static void
communicated_cb (GObject      *object,
                 GAsyncResult *res,
                 gpointer      user_data)
{
  NatterTestRun *run = user_data;
  GSubprocess *process = G_SUBPROCESS (object);
  g_autoptr(GError) error = NULL;

  g_subprocess_communicate_utf8_finish (process, res, &run->out, &run->err, &error);
  g_assert_no_error (error);
  run->status = g_subprocess_get_if_exited (process) ? g_subprocess_get_exit_status (process) : -1;
  run->done = TRUE;
}

/**
 * natter_test_cli_launcher_new:
 * @dir: the data directory the command works in
 *
 * A launcher for `natter` subcommands with their stdout and stderr piped,
 * working in @dir alone: no display and no session bus (so each
 * invocation is its own primary and never forwards to a running window),
 * @dir as NATTER_DATA_DIR, XDG_RUNTIME_DIR and XDG_CONFIG_HOME (tool
 * servers come from the test's own mcp.json, never the user's), memory
 * GSettings over the build's schema (NATTER_SCHEMA_DIR), the C locale
 * in UTF-8 so that messages are the untranslated ones, and no
 * G_MESSAGES_DEBUG. Add what a test needs on top (an API key, a crash
 * point).
 *
 * Returns: (transfer full): the launcher
 */
GSubprocessLauncher *
natter_test_cli_launcher_new (GFile *dir)
{
  GSubprocessLauncher *launcher;
  const char *path = g_file_peek_path (dir);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_unsetenv (launcher, "DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "WAYLAND_DISPLAY");
  g_subprocess_launcher_unsetenv (launcher, "DBUS_SESSION_BUS_ADDRESS");
  g_subprocess_launcher_setenv (launcher, "XDG_RUNTIME_DIR", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "XDG_CONFIG_HOME", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "NATTER_DATA_DIR", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "memory", TRUE);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_SCHEMA_DIR", g_getenv ("NATTER_SCHEMA_DIR"), TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "LANGUAGE");
  /* Its standard error is compared whole: no debug log on it. */
  g_subprocess_launcher_unsetenv (launcher, "G_MESSAGES_DEBUG");
  return launcher;
}

/**
 * natter_test_cli_spawn:
 * @launcher: from natter_test_cli_launcher_new()
 * @args: (array zero-terminated=1): the subcommand and its arguments
 *
 * Starts `$NATTER_BIN @args…`; fails the test if it cannot start.
 *
 * Returns: (transfer full): the process
 */
GSubprocess *
natter_test_cli_spawn (GSubprocessLauncher *launcher,
                       const char * const  *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  g_ptr_array_add (argv, (gpointer) g_getenv ("NATTER_BIN"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

/**
 * natter_test_cli_run:
 * @dir: the data directory (natter_test_cli_launcher_new())
 * @args: (array zero-terminated=1): the subcommand and its arguments
 * @result: (out caller-allocates): what the run said and how it ended
 * @timeout_ms: fail the test when it has not ended by then
 *
 * Runs `$NATTER_BIN @args…` to its end while the main context runs.
 */
void
natter_test_cli_run (GFile              *dir,
                     const char * const *args,
                     NatterTestRun      *result,
                     guint               timeout_ms)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (dir);
  g_autoptr(GSubprocess) process = natter_test_cli_spawn (launcher, args);

  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, timeout_ms);
}

/**
 * natter_test_store_session:
 * @dir: a data directory no process holds
 * @title: (nullable): `session_created.title`
 * @parent_session: (nullable): `parentSession`
 * @forked_from_turn_id: (nullable): `forkedFromTurnId`
 *
 * Writes a new session file into @dir's store (docs/format.md §3), as a
 * window or another Natter would have: for the tests that run the real
 * binary on a store it did not make all of (a version made by Edit in
 * the window, say).
 *
 * Returns: (transfer full): the new session's id
 */
char *
natter_test_store_session (GFile      *dir,
                           const char *title,
                           const char *parent_session,
                           const char *forked_from_turn_id)
{
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (natter_clock_get_system ());
  g_autofree char *ts = natter_clock_format_ts (natter_clock_get_system ());
  g_autoptr(JsonNode) created = NULL;
  g_autoptr(GError) error = NULL;
  char *session_id = natter_id_generator_next (ids);

  created = natter_session_event_new_created (session_id, ts, title, NULL, parent_session, forked_from_turn_id);
  g_assert_true (natter_jsonl_repo_create_sync (repo, session_id, created, NULL, &error));
  g_assert_no_error (error);
  return session_id;
}

/**
 * natter_test_message_queued_new:
 * @session_id: the session
 * @ts: the event's timestamp
 * @queue_id: the new queue id
 * @text: the message
 * @agent_id: the agent its turn is to run
 * @provider: (nullable): the provider its turn is to use (an endpoint URL
 *   will do); %NULL for the agent's own model
 * @model: (nullable): the model, with @provider
 *
 * A `message_queued` event (docs/format.md §3.3) as a front end queues
 * one: the message and the options its turn will be created with.
 *
 * Returns: (transfer full): the event
 */
JsonNode *
natter_test_message_queued_new (const char *session_id,
                                const char *ts,
                                const char *queue_id,
                                const char *text,
                                const char *agent_id,
                                const char *provider,
                                const char *model)
{
  g_autoptr(JsonObject) message = json_object_new ();
  g_autoptr(JsonObject) options = json_object_new ();

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", text);
  json_object_set_string_member (options, "agentId", agent_id);
  if (provider != NULL)
    {
      JsonObject *model_object = json_object_new ();

      json_object_set_string_member (model_object, "provider", provider);
      json_object_set_string_member (model_object, "model", model);
      json_object_set_object_member (options, "model", model_object);
    }
  json_object_set_boolean_member (options, "autoPermission", FALSE);
  return natter_session_event_new_message_queued (session_id, ts, queue_id, message, options);
}

/**
 * natter_test_store_queued:
 * @dir: a data directory no process holds
 * @session_id: a session of it (raised to session schema version 2 first
 *   when it is at 1)
 * @text: the message
 * @provider: the provider its turn is to use (an endpoint URL will do)
 * @model: the model
 *
 * Appends `message_queued` for the built-in agent to @session_id's file
 * (docs/format.md §3.3) as the process that queued it wrote it: after a
 * completed latest turn, what a process killed between settling that
 * turn and promoting the queue leaves behind.
 *
 * Returns: (transfer full): the queued message's id
 */
char *
natter_test_store_queued (GFile      *dir,
                          const char *session_id,
                          const char *text,
                          const char *provider,
                          const char *model)
{
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (storage);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (natter_clock_get_system ());
  g_autofree char *ts = natter_clock_format_ts (natter_clock_get_system ());
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  char *queue_id = natter_id_generator_next (ids);

  before = natter_jsonl_repo_read_sync (repo, session_id, NULL, &error);
  g_assert_no_error (error);
  state = natter_session_reduce (before, &error);
  g_assert_no_error (error);
  g_ptr_array_add (events, natter_test_message_queued_new (session_id, ts, queue_id, text, "assistant",
                                                           provider, model));
  /* A file still at version 1 is raised first, as Natter's one writer of
   * version-2 events does (docs/format.md §3.3). */
  natter_session_events_raise (events, natter_session_state_get_schema_version (state), NULL);
  g_assert_true (natter_jsonl_repo_append_sync (repo, session_id, events, NULL, &error));
  g_assert_no_error (error);
  return queue_id;
}

/**
 * natter_test_communicate:
 * @process: a process spawned with its stdout and stderr piped
 * @run: (out caller-allocates): zeroed; filled in when @process ends
 *
 * Reads all @process writes (as UTF-8) while the main context runs; when
 * it has ended, sets @run's output, error text and exit status, then
 * @run->done (wait for it with natter_test_wait_for_flag()).
 */
void
natter_test_communicate (GSubprocess   *process,
                         NatterTestRun *run)
{
  g_subprocess_communicate_utf8_async (process, NULL, NULL, communicated_cb, run);
}

/**
 * natter_test_assert_json_equal:
 * @actual: what the code under test made
 * @expected_literal: what it should be, a JSON literal
 *
 * Fails the test, printing both documents, unless @actual equals
 * @expected_literal as JSON (json_node_equal(): members in any order,
 * 1 and 1.0 differ).
 */
void
natter_test_assert_json_equal (JsonNode   *actual,
                               const char *expected_literal)
{
  g_autoptr(JsonNode) expected = natter_test_json (expected_literal);

  if (!json_node_equal (actual, expected))
    {
      g_autofree char *a = json_to_string (actual, TRUE);
      g_autofree char *e = json_to_string (expected, TRUE);

      g_error ("JSON differs.\nactual:\n%s\nexpected:\n%s", a, e);
    }
}

/* Property notifications */

struct _NatterTestNotify
{
  GObject *object;
  gulong   handler;
  guint    count;
};

static void
notified_cb (GObject          *object,
             GParamSpec       *pspec,
             NatterTestNotify *watch)
{
  watch->count++;
}

/**
 * natter_test_notify_watch:
 * @object: a #GObject
 * @property: the name of one of its properties
 *
 * Starts counting @object's notify::@property signals; check the count
 * with natter_test_assert_notified().
 *
 * Returns: (transfer full): the watch; natter_test_notify_free() it
 */
NatterTestNotify *
natter_test_notify_watch (gpointer    object,
                          const char *property)
{
  NatterTestNotify *watch = g_new0 (NatterTestNotify, 1);
  g_autofree char *signal = g_strconcat ("notify::", property, NULL);

  g_assert_nonnull (g_object_class_find_property (G_OBJECT_GET_CLASS (object), property));
  watch->object = g_object_ref (object);
  watch->handler = g_signal_connect (object, signal, G_CALLBACK (notified_cb), watch);
  return watch;
}

/**
 * natter_test_notify_take:
 * @watch: a watch
 *
 * Returns: how many notifications came since the watch began or was last
 *   taken; starts counting again from zero
 */
guint
natter_test_notify_take (NatterTestNotify *watch)
{
  guint count = watch->count;

  watch->count = 0;
  return count;
}

/**
 * natter_test_notify_free:
 * @watch: a watch
 *
 * Stops counting and frees @watch.
 */
void
natter_test_notify_free (NatterTestNotify *watch)
{
  g_signal_handler_disconnect (watch->object, watch->handler);
  g_object_unref (watch->object);
  g_free (watch);
}

static void
assert_property_is (GObject      *object,
                    GParamSpec   *pspec,
                    const GValue *expected)
{
  g_auto(GValue) value = G_VALUE_INIT;

  g_value_init (&value, pspec->value_type);
  g_object_get_property (object, pspec->name, &value);
  if (g_param_values_cmp (pspec, &value, expected) != 0)
    {
      g_autofree char *got = g_strdup_value_contents (&value);
      g_autofree char *want = g_strdup_value_contents (expected);

      g_error ("%s:%s is %s, not %s", G_OBJECT_TYPE_NAME (object), pspec->name, got, want);
    }
}

/**
 * natter_test_property_notify:
 * @object: a #GObject
 * @property: a writable property of @object with %G_PARAM_EXPLICIT_NOTIFY
 * @a: a value of the property's type
 * @b: another value, different from @a
 *
 * Checks what every setter owes its listeners: setting @property to a
 * new value notifies once and the getter returns it; setting it to the
 * value it has does not notify. Sets @a, then @a again, @b, @b again and
 * @a; leaves @object with @a.
 */
void
natter_test_property_notify (gpointer      object,
                             const char   *property,
                             const GValue *a,
                             const GValue *b)
{
  GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (object), property);
  g_autoptr(NatterTestNotify) watch = NULL;

  g_assert_nonnull (pspec);
  g_assert_true (pspec->flags & G_PARAM_WRITABLE);
  g_assert_false (pspec->flags & G_PARAM_CONSTRUCT_ONLY);
  /* Without it GObject notifies on every set, equal or not. */
  g_assert_true (pspec->flags & G_PARAM_EXPLICIT_NOTIFY);
  g_assert_cmpint (g_param_values_cmp (pspec, a, b), !=, 0);

  watch = natter_test_notify_watch (object, property);
  g_object_set_property (object, property, a);
  (void) natter_test_notify_take (watch);
  assert_property_is (object, pspec, a);

  g_object_set_property (object, property, a);
  natter_test_assert_notified (watch, 0);
  g_object_set_property (object, property, b);
  natter_test_assert_notified (watch, 1);
  assert_property_is (object, pspec, b);
  g_object_set_property (object, property, b);
  natter_test_assert_notified (watch, 0);
  g_object_set_property (object, property, a);
  natter_test_assert_notified (watch, 1);
  assert_property_is (object, pspec, a);
}

/**
 * natter_test_property_notify_string:
 * @object: a #GObject
 * @property: a writable string property with %G_PARAM_EXPLICIT_NOTIFY
 * @a: (nullable): a value
 * @b: (nullable): another value
 *
 * natter_test_property_notify() for a string property.
 */
void
natter_test_property_notify_string (gpointer    object,
                                    const char *property,
                                    const char *a,
                                    const char *b)
{
  g_auto(GValue) va = G_VALUE_INIT;
  g_auto(GValue) vb = G_VALUE_INIT;

  g_value_set_string (g_value_init (&va, G_TYPE_STRING), a);
  g_value_set_string (g_value_init (&vb, G_TYPE_STRING), b);
  natter_test_property_notify (object, property, &va, &vb);
}

/**
 * natter_test_property_notify_boolean:
 * @object: a #GObject
 * @property: a writable boolean property with %G_PARAM_EXPLICIT_NOTIFY
 *
 * natter_test_property_notify() with %FALSE and %TRUE; leaves %FALSE.
 */
void
natter_test_property_notify_boolean (gpointer    object,
                                     const char *property)
{
  g_auto(GValue) va = G_VALUE_INIT;
  g_auto(GValue) vb = G_VALUE_INIT;

  g_value_set_boolean (g_value_init (&va, G_TYPE_BOOLEAN), FALSE);
  g_value_set_boolean (g_value_init (&vb, G_TYPE_BOOLEAN), TRUE);
  natter_test_property_notify (object, property, &va, &vb);
}

NatterSendOptions *
natter_test_send_options (const char *agent_id,
                          const char *provider,
                          const char *model)
{
  NatterSendOptions *options = natter_send_options_new (agent_id);

  if (provider != NULL && model != NULL)
    natter_send_options_set_model (options, provider, model);
  return options;
}

/**
 * natter_test_serialize_events:
 * @events: (element-type JsonObject): events
 *
 * Returns: (transfer full): the events as the lines of a log, each in
 *   its canonical form (natter_json_to_line()) and ended by a newline
 */
GString *
natter_test_serialize_events (GPtrArray *events)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      g_autofree char *line = NULL;
      gsize length = 0;

      json_node_set_object (node, g_ptr_array_index (events, i));
      line = natter_json_to_line (node, &length, NULL);
      g_assert_nonnull (line);
      g_string_append_len (text, line, length);
      g_string_append_c (text, '\n');
    }
  return text;
}

/* A command line whose output the test reads */

struct _NatterTestCommandLine
{
  GApplicationCommandLine  parent_instance;
  GString                 *out;
  GString                 *err;
};

G_DEFINE_FINAL_TYPE (NatterTestCommandLine, natter_test_command_line, G_TYPE_APPLICATION_COMMAND_LINE)

static void
natter_test_command_line_print_literal (GApplicationCommandLine *cmdline,
                                        const char              *message)
{
  g_string_append (NATTER_TEST_COMMAND_LINE (cmdline)->out, message);
}

static void
natter_test_command_line_printerr_literal (GApplicationCommandLine *cmdline,
                                           const char              *message)
{
  g_string_append (NATTER_TEST_COMMAND_LINE (cmdline)->err, message);
}

static void
natter_test_command_line_finalize (GObject *object)
{
  NatterTestCommandLine *self = NATTER_TEST_COMMAND_LINE (object);

  g_string_free (self->out, TRUE);
  g_string_free (self->err, TRUE);
  G_OBJECT_CLASS (natter_test_command_line_parent_class)->finalize (object);
}

static void
natter_test_command_line_class_init (NatterTestCommandLineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationCommandLineClass *cmdline_class = G_APPLICATION_COMMAND_LINE_CLASS (klass);

  object_class->finalize = natter_test_command_line_finalize;
  cmdline_class->print_literal = natter_test_command_line_print_literal;
  cmdline_class->printerr_literal = natter_test_command_line_printerr_literal;
}

static void
natter_test_command_line_init (NatterTestCommandLine *self)
{
  self->out = g_string_new (NULL);
  self->err = g_string_new (NULL);
}

/**
 * natter_test_command_line_new:
 * @arguments: (array zero-terminated=1): the whole command line, the
 *   program name first
 * @environment: (array zero-terminated=1) (nullable): `NAME=value`
 *   entries: the environment of the process the command line comes
 *   from (GIO calls every such subclass remote), which is in this
 *   process's working directory; %NULL for neither
 *
 * Returns: (transfer full): a command line for natter_cli_run_async()
 *   and the like
 */
NatterTestCommandLine *
natter_test_command_line_new (const char * const *arguments,
                              const char * const *environment)
{
  GVariant *platform_data = NULL;

  if (environment != NULL)
    {
      g_autoptr(GVariantBuilder) builder = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);
      g_autofree char *cwd = g_get_current_dir ();

      g_variant_builder_add (builder, "{sv}", "environ", g_variant_new_bytestring_array (environment, -1));
      /* GApplication sends the caller's working directory too. */
      g_variant_builder_add (builder, "{sv}", "cwd", g_variant_new_bytestring (cwd));
      platform_data = g_variant_builder_end (builder);
    }
  return g_object_new (NATTER_TYPE_TEST_COMMAND_LINE,
                       "arguments", g_variant_new_bytestring_array (arguments, -1),
                       "platform-data", platform_data,
                       NULL);
}

/**
 * natter_test_command_line_get_out:
 * @self: a test command line
 *
 * Returns: (transfer none): all it printed to standard output
 */
const char *
natter_test_command_line_get_out (NatterTestCommandLine *self)
{
  return self->out->str;
}

/**
 * natter_test_command_line_get_err:
 * @self: a test command line
 *
 * Returns: (transfer none): all it printed to standard error
 */
const char *
natter_test_command_line_get_err (NatterTestCommandLine *self)
{
  return self->err->str;
}

/* Archives */

#define S_ID "2026-01-01T00-00-00Z-0000001-000"
#define TS "2026-01-01T00:00:00.000Z"

static void
append_turn (GString    *turns,
             const char *turn_id,
             const char *previous,
             const char *provider,
             const char *model,
             const char *question,
             const char *answer)
{
  g_autofree char *context = previous != NULL ? g_strdup_printf ("{\"previousTurnId\":\"%s\"}", previous)
                                              : g_strdup ("[]");
  g_autofree char *ref = previous != NULL ? g_strdup_printf ("\"contextRef\":{\"previousTurnId\":\"%s\"},", previous)
                                          : g_strdup ("");

  g_string_append_printf (turns,
    "%s{\"turnId\":\"%s\",\"events\":["
    "{\"type\":\"turn_created\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"schemaVersion\":1,\"sessionId\":\"" S_ID "\","
    "\"agent\":{\"requested\":{\"agentId\":\"assistant\"},\"resolved\":{\"agentId\":\"assistant\","
    "\"model\":{\"provider\":\"%s\",\"model\":\"%s\"},\"systemPrompt\":\"\",\"tools\":[]}},"
    "\"context\":%s,\"input\":{\"role\":\"user\",\"content\":\"%s\"},"
    "\"config\":{\"autoPermission\":true,\"humanAvailable\":true,\"maxModelCalls\":50}},"
    "{\"type\":\"model_call_requested\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"request\":{%s\"messages\":[\"input\"],\"parameters\":{}}},"
    "{\"type\":\"model_call_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\",\"modelCallIndex\":0,"
    "\"message\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finishReason\":\"stop\",\"usage\":{}},"
    "{\"type\":\"turn_completed\",\"turnId\":\"%s\",\"ts\":\"" TS "\","
    "\"output\":{\"role\":\"assistant\",\"content\":\"%s\"},\"finishReason\":\"stop\",\"usage\":{}}]}",
    turns->len > 0 ? "," : "", turn_id, turn_id, provider, model, context, question, turn_id, ref, turn_id, answer,
    turn_id, answer);
}

static void
append_appended (GString    *session,
                 const char *turn_id,
                 guint       seq,
                 const char *provider,
                 const char *model)
{
  g_string_append_printf (session,
    ",{\"type\":\"turn_appended\",\"sessionId\":\"" S_ID "\",\"ts\":\"" TS "\",\"turnId\":\"%s\",\"sessionSeq\":%u,"
    "\"agentId\":\"assistant\",\"model\":{\"provider\":\"%s\",\"model\":\"%s\"}}",
    turn_id, seq, provider, model);
}

/**
 * natter_test_shared_archive:
 * @shared: what the archive holds
 *
 * A Natter archive (docs/format.md §7.1) of a conversation made
 * elsewhere: session "2026-01-01T00-00-00Z-0000001-000" titled "Shared",
 * a first turn "Hello" → "Hello from elsewhere." on @shared's provider
 * and model, and what @shared asks for besides.
 *
 * Returns: (transfer full): the archive's text
 */
char *
natter_test_shared_archive (const NatterTestShared *shared)
{
  g_autoptr(GString) session = g_string_new (NULL);
  g_autoptr(GString) turns = g_string_new (NULL);
  const char *latest = "2026-01-01T00-00-00Z-0000002-000";
  guint seq = 1;

  g_string_append_printf (session,
    "{\"type\":\"session_created\",\"sessionId\":\"" S_ID "\",\"ts\":\"" TS "\",\"schemaVersion\":2,"
    "\"title\":\"Shared\"%s}", shared->cwd ? ",\"cwd\":\"/home/someone/.ssh\"" : "");
  append_turn (turns, latest, NULL, shared->provider, shared->model, "Hello", "Hello from elsewhere.");
  append_appended (session, latest, seq++, shared->provider, shared->model);
  if (shared->compacted)
    {
      append_turn (turns, "2026-01-01T00-00-00Z-0000004-000", latest, shared->provider, shared->model,
                   "Second", "Second answer.");
      append_appended (session, "2026-01-01T00-00-00Z-0000004-000", seq++, shared->provider, shared->model);
      append_turn (turns, "2026-01-01T00-00-00Z-0000005-000", "2026-01-01T00-00-00Z-0000004-000",
                   shared->provider, shared->model, "Third", "Third answer.");
      append_appended (session, "2026-01-01T00-00-00Z-0000005-000", seq++, shared->provider, shared->model);
      g_string_append (session,
        ",{\"type\":\"conversation_compacted\",\"sessionId\":\"" S_ID "\",\"ts\":\"" TS "\","
        "\"compactionId\":\"2026-01-01T00-00-00Z-0000006-000\",\"summary\":\"They said hello twice.\","
        "\"firstKeptTurnId\":\"2026-01-01T00-00-00Z-0000005-000\"}");
    }
  if (shared->waiting)
    {
      g_string_append_printf (turns,
        ",{\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"events\":["
        "{\"type\":\"turn_created\",\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"ts\":\"" TS "\","
        "\"schemaVersion\":1,\"sessionId\":\"" S_ID "\",\"agent\":{\"requested\":{\"agentId\":\"assistant\"},"
        "\"resolved\":{\"agentId\":\"assistant\",\"model\":{\"provider\":\"%s\",\"model\":\"%s\"},"
        "\"systemPrompt\":\"\",\"tools\":[{\"toolId\":\"natter.read_file\",\"name\":\"read_file\","
        "\"description\":\"\",\"inputSchema\":{\"type\":\"object\"},\"execution\":\"sync\",\"requiresHuman\":false}]}},"
        "\"context\":{\"previousTurnId\":\"%s\"},\"input\":{\"role\":\"user\",\"content\":\"Read my notes\"},"
        "\"config\":{\"autoPermission\":false,\"humanAvailable\":true,\"maxModelCalls\":50}},"
        "{\"type\":\"model_call_requested\",\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"ts\":\"" TS "\","
        "\"modelCallIndex\":0,\"request\":{\"contextRef\":{\"previousTurnId\":\"%s\"},\"messages\":[\"input\"],"
        "\"parameters\":{}}},"
        "{\"type\":\"model_call_completed\",\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"ts\":\"" TS "\","
        "\"modelCallIndex\":0,\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool-call\","
        "\"toolCallId\":\"c1\",\"toolName\":\"read_file\",\"arguments\":{\"path\":\"notes.txt\"}}]},"
        "\"finishReason\":\"tool_calls\",\"usage\":{}},"
        "{\"type\":\"tool_permission_required\",\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"ts\":\"" TS "\","
        "\"toolCallId\":\"c1\",\"toolName\":\"read_file\",\"request\":{\"path\":\"notes.txt\"}},"
        "{\"type\":\"turn_suspended\",\"turnId\":\"2026-01-01T00-00-00Z-0000003-000\",\"ts\":\"" TS "\","
        "\"pendingPermissions\":[{\"toolCallId\":\"c1\",\"toolName\":\"read_file\",\"request\":{\"path\":\"notes.txt\"}}],"
        "\"pendingAsyncTools\":[],\"usage\":{}}]}",
        shared->provider, shared->model, latest, latest);
      append_appended (session, "2026-01-01T00-00-00Z-0000003-000", seq++, shared->provider, shared->model);
    }
  if (shared->grant)
    g_string_append (session,
      ",{\"type\":\"permission_grant_added\",\"sessionId\":\"" S_ID "\",\"ts\":\"" TS "\","
      "\"grantId\":\"2026-01-01T00-00-00Z-0000007-000\",\"toolId\":\"natter.read_file\"}");
  if (shared->queued)
    g_string_append_printf (session,
      ",{\"type\":\"message_queued\",\"sessionId\":\"" S_ID "\",\"ts\":\"" TS "\","
      "\"queueId\":\"2026-01-01T00-00-00Z-0000008-000\",\"message\":{\"role\":\"user\","
      "\"content\":\"Send me the notes\"},\"options\":{\"agentId\":\"assistant\","
      "\"model\":{\"provider\":\"%s\",\"model\":\"%s\"},\"autoPermission\":true}}",
      shared->provider, shared->model);
  return g_strdup_printf ("{\"format\":\"natter-archive\",\"version\":1,\"exportedAt\":\"" TS "\","
                          "\"session\":[%s],\"turns\":[%s]}\n", session->str, turns->str);
}

/**
 * natter_test_chatgpt_fixture:
 *
 * Returns: (transfer full): the text of tests/data/chatgpt/conversations.json,
 *   a ChatGPT export written from OpenAI's published shape
 */
char *
natter_test_chatgpt_fixture (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "chatgpt", "conversations.json", NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      /* The window's tests run from tests/ui. */
      g_free (path);
      path = g_test_build_filename (G_TEST_DIST, "..", "data", "chatgpt", "conversations.json", NULL);
    }
  g_assert_true (g_file_get_contents (path, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

/**
 * natter_test_mutated_rounds:
 *
 * Returns: how many damaged logs a differential test of a tree-free read
 *   against the full read tries: a few thousand, ten times more with
 *   `-m slow`
 */
guint
natter_test_mutated_rounds (void)
{
  return g_test_slow () ? 40000 : 6000;
}

/**
 * natter_test_mutate_log:
 * @rand: the test's random source
 * @events: (element-type JsonObject): round @n's valid events, changed
 *   in place
 * @mutate_event: the test's schema-level change to one event
 * @n: the round
 *
 * One round's input of a differential test: @events damaged at the
 * schema level (one or two calls of @mutate_event), at the byte level
 * (natter_test_mutate_bytes()), both, or not at all, in equal shares.
 *
 * Returns: (transfer full): the log's lines
 */
GString *
natter_test_mutate_log (GRand                     *rand,
                        GPtrArray                 *events,
                        NatterTestMutateEventFunc  mutate_event,
                        guint                      n)
{
  /* 0: schema-level changes, 1: byte-level, 2: both, 3: none. */
  guint kind = g_rand_int_range (rand, 0, 4);
  GString *text;

  if (kind == 0 || kind == 2)
    for (guint i = g_rand_int_range (rand, 1, 3); i > 0; i--)
      mutate_event (rand, events, n);
  text = natter_test_serialize_events (events);
  if (kind == 1 || kind == 2)
    natter_test_mutate_bytes (rand, text);
  return text;
}

/**
 * natter_test_mutate_bytes:
 * @rand: the test's random source
 * @text: the lines of a log, changed in place
 *
 * One byte-level change to a log, for the line grammar and the file
 * framing: a byte replaced, inserted or removed, the file cut short or
 * emptied, its last newline dropped or a blank line added, a member
 * repeated, a valid but non-canonical spelling, a number made longer.
 * For the differential tests of a tree-free read against the full one.
 */
void
natter_test_mutate_bytes (GRand   *rand,
                          GString *text)
{
  static const char interesting[] = "\"\\,:{}[]01-. aeE\n\x7f\x1f";
  guint pos = text->len > 0 ? g_rand_int_range (rand, 0, text->len) : 0;

  switch (g_rand_int_range (rand, 0, 11))
    {
    case 0:
      if (text->len > 0)
        text->str[pos] = interesting[g_rand_int_range (rand, 0, sizeof interesting - 1)];
      break;
    case 1:
      if (text->len > 0)
        text->str[pos] = (char) g_rand_int_range (rand, 0, 256);
      break;
    case 2: g_string_insert_c (text, pos, ' '); break;
    case 3:
      if (text->len > 0)
        g_string_erase (text, pos, 1);
      break;
    case 4: g_string_truncate (text, pos); break;
    case 5:
      if (text->len > 0 && text->str[text->len - 1] == '\n')
        g_string_truncate (text, text->len - 1);
      break;
    case 6: g_string_truncate (text, 0); break;
    case 7: g_string_append (text, "\n"); break;
    case 8:
      {
        /* The same member twice. */
        const char *ts = strstr (text->str, "\"ts\":");

        if (ts != NULL)
          g_string_insert (text, ts - text->str, "\"ts\":\"2024-01-01T00:00:00Z\",");
      }
      break;
    case 9:
      {
        /* A valid but non-canonical spelling. */
        const char *escape = strstr (text->str, "\\n");

        if (escape != NULL)
          {
            gsize at = escape - text->str;

            g_string_erase (text, at, 2);
            g_string_insert (text, at, "\\u000a");
          }
        else
          g_string_insert (text, pos, "\\/");
      }
      break;
    default:
      {
        /* A count or an index one digit longer: another value, or a
         * leading zero. */
        const char *number = strstr (text->str + pos, "\":1");

        if (number == NULL)
          number = strstr (text->str, "\":0");
        if (number != NULL)
          g_string_insert_c (text, number - text->str + 3, '0');
      }
      break;
    }
}

/**
 * natter_test_chatgpt_fixture_subset:
 * @first: the position of a conversation of the fixture, from 1
 * @...: more positions, then 0
 *
 * Returns: (transfer full): those conversations of
 *   natter_test_chatgpt_fixture(), as an export of their own
 */
char *
natter_test_chatgpt_fixture_subset (guint first,
                                    ...)
{
  g_autofree char *text = natter_test_chatgpt_fixture ();
  g_autoptr(JsonNode) all = natter_test_json (text);
  g_autoptr(JsonNode) subset = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();
  va_list args;

  va_start (args, first);
  for (guint n = first; n != 0; n = va_arg (args, guint))
    json_array_add_element (array, json_node_copy (json_array_get_element (json_node_get_array (all), n - 1)));
  va_end (args);
  json_node_take_array (subset, array);
  return json_to_string (subset, FALSE);
}
