/* test-cli-forward.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Single writer through GApplication uniqueness (architecture.md,
 * "Process and data"): with the window running as the primary instance, a
 * second `natter SUBCOMMAND` is forwarded to it and answered by the
 * window's services. The window holds the data directory's writer lock,
 * so a second process that ran the command itself would be refused; an
 * exit status of 0 with the window's answer proves the forwarding. Runs
 * the real binary under the UI suite's display and private session bus.
 */

#include <signal.h>
#include <string.h>

#include <gio/gio.h>

#include "natter-data-dir-lock.h"
#include "natter-session-error.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define APP_ID "io.github.natter.Natter"
#define WAIT_MS 30000

/* Runs the binary on @dir with @args; @environment (nullable,
 * NULL-terminated) sets NAME=VALUE or unsets NAME after the defaults. */
static GSubprocess *
spawn_in (GFile              *dir,
          const char * const *environment,
          const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (NULL);
  g_autofree char *path = g_file_get_path (dir);
  g_autofree char *binary = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "..", "src", "ui",
                                              "natter", NULL);
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "NATTER_DATA_DIR", path, TRUE);
  g_subprocess_launcher_setenv (launcher, "GDK_DEBUG", "gl-disable", TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  for (guint i = 0; environment != NULL && environment[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (environment[i], "=", 2);

      if (pair[1] != NULL)
        g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
      else
        g_subprocess_launcher_unsetenv (launcher, pair[0]);
    }
  g_ptr_array_add (argv, binary);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  return process;
}

static GSubprocess *
spawn (GFile              *dir,
       const char * const *args)
{
  return spawn_in (dir, NULL, args);
}

typedef struct
{
  guint32  pid;       /* the window we started */
  gboolean vanished;  /* no one owns the name */
  gboolean ours;      /* the window we started owns it */
  GFile   *storage;   /* its data directory's storage */
  GError  *taken;     /* why the directory could not be locked then */
} NameWait;

static void
name_vanished_cb (GDBusConnection *connection,
                  const char      *name,
                  gpointer         user_data)
{
  ((NameWait *) user_data)->vanished = TRUE;
}

static void
name_appeared_cb (GDBusConnection *connection,
                  const char      *name,
                  const char      *owner,
                  gpointer         user_data)
{
  NameWait *wait = user_data;
  g_autoptr(GVariant) reply = NULL;
  guint32 pid = 0;

  wait->vanished = FALSE;
  reply = g_dbus_connection_call_sync (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "GetConnectionUnixProcessID",
                                       g_variant_new ("(s)", owner), G_VARIANT_TYPE ("(u)"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  wait->ours = wait->pid != 0 && pid == wait->pid;
  /* The moment its name is seen owned, the window must hold its data
   * directory already: a command run then that found it free would run
   * on its own, and leave the window unable to write. */
  if (wait->ours)
    {
      g_autoptr(NatterDataDirLock) lock = NULL;

      g_clear_error (&wait->taken);
      lock = natter_data_dir_lock_acquire (wait->storage, &wait->taken);
    }
}

/* Starts the window on @dir and waits until the application's name is
 * its own, checking that it held @dir by then. A window an earlier test
 * quit may still own the name for a moment after its process ended (the
 * bus has not seen it go yet): a window started then would hand its
 * activation to that one and exit, and the commands would reach a window
 * on another directory. */
static GSubprocess *
spawn_window_in (GDBusConnection    *bus,
                 GFile              *dir,
                 const char * const *environment,
                 NatterTestRun      *run)
{
  const char * const no_args[] = { NULL };
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  NameWait wait = { 0, FALSE, FALSE, storage, NULL };
  g_autoptr(GStrvBuilder) window_environment = g_strv_builder_new ();
  g_auto(GStrv) window_env = NULL;
  GSubprocess *window;
  guint watch;

  if (environment != NULL)
    g_strv_builder_addv (window_environment, (const char **) environment);
  /* Built with AddressSanitizer, the window (more than 2,048 quarks) ends
   * with GLib's first quark table retired, a block LeakSanitizer's fast
   * unwinder cannot tell from a leak (tests/ui/natter-ui-test-lsan.c keeps
   * it reachable in the test programs, not in the application). Leaks are
   * the in-process window tests' job; here AddressSanitizer still stops at
   * any memory error. */
  if (g_getenv ("ASAN_OPTIONS") != NULL)
    {
      g_autofree char *asan = g_strdup_printf ("ASAN_OPTIONS=%s:detect_leaks=0", g_getenv ("ASAN_OPTIONS"));

      g_strv_builder_add (window_environment, asan);
    }
  window_env = g_strv_builder_end (window_environment);

  watch = g_bus_watch_name_on_connection (bus, APP_ID, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                          name_appeared_cb, name_vanished_cb, &wait, NULL);
  natter_test_wait_for_flag (&wait.vanished, WAIT_MS);
  window = spawn_in (dir, (const char * const *) window_env, no_args);
  wait.pid = (guint32) g_ascii_strtoull (g_subprocess_get_identifier (window), NULL, 10);
  natter_test_communicate (window, run);
  natter_test_wait_for_flag (&wait.ours, WAIT_MS);
  g_bus_unwatch_name (watch);
  g_assert_error (wait.taken, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&wait.taken);
  return window;
}

/* Quits the window through its app.quit action and waits for it to
 * exit, successfully. */
static void
quit_window (GDBusConnection *bus,
             NatterTestRun   *gui)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_sync (bus, APP_ID, "/io/github/natter/Natter", "org.gtk.Actions",
                                       "Activate", g_variant_new ("(sava{sv})", "quit", NULL, NULL),
                                       NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  natter_test_wait_for_flag (&gui->done, WAIT_MS);
  g_assert_cmpint (gui->status, ==, 0);
}

static GSubprocess *
spawn_window (GDBusConnection *bus,
              GFile           *dir,
              NatterTestRun   *run)
{
  return spawn_window_in (bus, dir, NULL, run);
}

static void
test_forwarded_to_window (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  const char * const sessions[] = { "sessions", "--json", NULL };
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);

  window = spawn_window (bus, dir, &gui);

  {
    g_autoptr(GSubprocess) second = spawn (dir, sessions);

    natter_test_communicate (second, &cli);
    natter_test_wait_for_flag (&cli.done, WAIT_MS);
  }
  g_assert_cmpstr (cli.err, ==, "");
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_cmpstr (cli.out, ==, "[]\n");

  /* A usage error and help need no data directory: the command answers
   * them itself, with its exit status, in its own language from its
   * own catalogs (the window here has none). */
  {
    const char * const bad[] = { "frobnicate", NULL };
    g_autoptr(GSubprocess) third = spawn (dir, bad);
    NatterTestRun usage = { 0 };

    natter_test_communicate (third, &usage);
    natter_test_wait_for_flag (&usage.done, WAIT_MS);
    g_assert_cmpint (usage.status, ==, 2);
    g_assert_true (g_str_has_prefix (usage.err, "natter: Unknown command"));
    g_free (usage.out);
    g_free (usage.err);
  }
  {
    g_autofree char *catalogs = g_strdup_printf ("NATTER_LOCALEDIR=%s/../../po", g_getenv ("G_TEST_BUILDDIR"));
    const char * const german_caller[] = { "LANGUAGE=de", catalogs, NULL };
    const char * const help[] = { "send", "--help", NULL };
    g_autoptr(GSubprocess) fourth = spawn_in (dir, german_caller, help);
    NatterTestRun usage = { 0 };

    natter_test_communicate (fourth, &usage);
    natter_test_wait_for_flag (&usage.done, WAIT_MS);
    g_assert_cmpint (usage.status, ==, 0);
    g_assert_nonnull (strstr (usage.out, "Eine Nachricht an eine Sitzung senden"));
    natter_test_run_clear (&usage);
  }

  quit_window (bus, &gui);

  g_free (gui.out);
  g_free (gui.err);
  g_free (cli.out);
  g_free (cli.err);
  natter_test_remove_tree (dir);
}

/* Runs `natter ARGS…` on @dir and waits for it. */
static void
run_cli (GFile              *dir,
         const char * const *args,
         NatterTestRun      *result)
{
  g_autoptr(GSubprocess) process = spawn (dir, args);

  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

/* A command acts on the data directory it was given: with the window on
 * A, a command on a free B runs on its own and writes B, never A; a
 * command on a B that another process holds fails, naming both. */
static void
test_other_data_dir (void)
{
  g_autoptr(GFile) a = natter_test_make_temp_dir ();
  g_autoptr(GFile) b = natter_test_make_temp_dir ();
  g_autoptr(GFile) c = natter_test_make_temp_dir ();
  g_autoptr(GFile) c_storage = g_file_get_child (c, "storage");
  g_autoptr(NatterDataDirLock) c_lock = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  g_autofree char *a_path = g_file_get_path (a);
  g_autofree char *c_path = g_file_get_path (c);
  const char * const sessions[] = { "sessions", "--json", NULL };
  const char * const send[] = { "send", "--base-url", base_url, "--model", "m", "Written where I point", NULL };
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);

  window = spawn_window (bus, a, &gui);

  /* B is free: the command runs there (its model cannot be reached, but
   * the session is written) and not in the window's A. */
  run_cli (b, send, &cli);
  g_assert_nonnull (strstr (cli.out, "session "));
  natter_test_run_clear (&cli);

  run_cli (b, sessions, &cli);
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_nonnull (strstr (cli.out, "Written where I point"));
  natter_test_run_clear (&cli);

  /* A's sessions, answered by the window: still none. */
  run_cli (a, sessions, &cli);
  g_assert_cmpstr (cli.err, ==, "");
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_cmpstr (cli.out, ==, "[]\n");
  natter_test_run_clear (&cli);

  /* C is held by another process (this test): the command goes to the
   * window, which does not use C, and fails naming both directories. */
  c_lock = natter_data_dir_lock_acquire (c_storage, &error);
  g_assert_no_error (error);
  run_cli (c, sessions, &cli);
  g_assert_cmpint (cli.status, ==, 1);
  g_assert_cmpstr (cli.out, ==, "");
  g_assert_nonnull (strstr (cli.err, a_path));
  g_assert_nonnull (strstr (cli.err, c_path));
  g_assert_true (g_str_has_prefix (cli.err, "natter: "));
  natter_test_run_clear (&cli);

  quit_window (bus, &gui);

  natter_test_run_clear (&gui);
  g_clear_object (&c_lock);
  natter_test_remove_tree (a);
  natter_test_remove_tree (b);
  natter_test_remove_tree (c);
}

/* A second window launched on another data directory than the running
 * window's is not silently shown the running one's data: it fails,
 * naming both folders (the running window says the same in a dialog),
 * and the window goes on. Launched on the window's own directory, or on
 * a link to it, it brings the window up as ever. */
static void
test_window_other_data_dir (void)
{
  g_autoptr(GFile) a = natter_test_make_temp_dir ();
  g_autoptr(GFile) b = natter_test_make_temp_dir ();
  g_autoptr(GFile) links = natter_test_make_temp_dir ();
  g_autoptr(GFile) link = g_file_get_child (links, "to-a");
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a_path = g_file_get_path (a);
  g_autofree char *b_path = g_file_get_path (b);
  const char * const no_args[] = { NULL };
  NatterTestRun gui = { 0 };
  NatterTestRun second = { 0 };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  g_file_make_symbolic_link (link, a_path, NULL, &error);
  g_assert_no_error (error);

  window = spawn_window (bus, a, &gui);

  run_cli (b, no_args, &second);
  g_assert_cmpint (second.status, ==, 1);
  g_assert_true (g_str_has_prefix (second.err, "natter: "));
  g_assert_nonnull (strstr (second.err, a_path));
  g_assert_nonnull (strstr (second.err, b_path));
  natter_test_run_clear (&second);

  run_cli (a, no_args, &second);
  g_assert_cmpint (second.status, ==, 0);
  g_assert_cmpstr (second.err, ==, "");
  natter_test_run_clear (&second);

  run_cli (link, no_args, &second);
  g_assert_cmpint (second.status, ==, 0);
  g_assert_cmpstr (second.err, ==, "");
  natter_test_run_clear (&second);

  quit_window (bus, &gui);
  /* The dialog came up on the window without a complaint. */
  g_assert_null (strstr (gui.err, "CRITICAL"));
  natter_test_run_clear (&gui);
  natter_test_remove_tree (a);
  natter_test_remove_tree (b);
  natter_test_remove_tree (links);
}

#define SAY_HELLO \
  { .status = 200, .content_type = "text/event-stream", \
    .chunks = NATTER_TEST_CHUNKS ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n", \
                                  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" \
                                  "data: [DONE]\n\n") }

/* A session whose first turn completed, with a message behind it that
 * was queued but never sent: a process killed between the answer and
 * the promotion of the queue leaves that. Made before the window runs. */
static char *
lose_a_promotion (GFile            *dir,
                  NatterTestServer *server)
{
  const char * const send[] = { "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1",
                                "hello", NULL };
  NatterTestRun run = { 0 };
  char *session_id;

  run_cli (dir, send, &run);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "session "));
  session_id = natter_test_session_of (run.out);
  natter_test_run_clear (&run);
  g_free (natter_test_store_queued (dir, session_id, "left behind", server->base_url, "m1"));
  return session_id;
}

/* "status count" of @session_id in the window's `natter sessions --json`. */
static char *
forwarded_status (GFile      *dir,
                  const char *session_id)
{
  const char * const sessions[] = { "sessions", "--json", NULL };
  NatterTestRun run = { 0 };
  g_autoptr(JsonNode) json = NULL;
  JsonArray *entries;
  char *status = NULL;

  run_cli (dir, sessions, &run);
  g_assert_cmpint (run.status, ==, 0);
  json = natter_test_json (run.out);
  entries = json_node_get_array (json);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (g_str_equal (json_object_get_string_member (entry, "sessionId"), session_id))
        status = g_strdup_printf ("%s %" G_GINT64_FORMAT, json_object_get_string_member (entry, "latestTurnStatus"),
                                  json_object_get_int_member (entry, "turnCount"));
    }
  natter_test_run_clear (&run);
  g_assert_nonnull (status);
  return status;
}

/* In the window's process too, a queued message the queue sends on
 * behalf of a forwarded command runs to its answer, and the command
 * reports it: `send --queue` behind a message a crash left queued, and a
 * plain `send` that the queue goes before. */
static void
test_forwarded_queue_runs_to_settle (void)
{
  const NatterTestResponse script[] = { SAY_HELLO, SAY_HELLO, SAY_HELLO, SAY_HELLO, SAY_HELLO };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *queued = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *status = NULL;
  g_auto(GStrv) reports = NULL;
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  queued = lose_a_promotion (dir, server);
  refused = lose_a_promotion (dir, server);
  window = spawn_window (bus, dir, &gui);

  {
    const char * const send[] = { "send", "--session", queued, "--queue", "next", NULL };

    run_cli (dir, send, &cli);
  }
  g_assert_cmpstr (cli.err, ==, "");
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_true (g_str_has_prefix (cli.out, "queued "));
  reports = g_strsplit (cli.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 3);
  g_assert_true (g_str_has_suffix (reports[2], "\n\nHello\n"));
  natter_test_run_clear (&cli);
  status = forwarded_status (dir, queued);
  g_assert_cmpstr (status, ==, "completed 3");
  g_clear_pointer (&status, g_free);

  {
    const char * const send[] = { "send", "--session", refused, "not", "sent", NULL };

    run_cli (dir, send, &cli);
  }
  g_assert_cmpint (cli.status, ==, 1);
  g_assert_nonnull (strstr (cli.err, "queued messages"));
  g_assert_true (g_str_has_prefix (cli.out, "session "));
  g_assert_true (g_str_has_suffix (cli.out, "\n\nHello\n"));
  natter_test_run_clear (&cli);
  status = forwarded_status (dir, refused);
  g_assert_cmpstr (status, ==, "completed 2");
  g_assert_cmpuint (server->bodies->len, ==, 5);
  g_assert_nonnull (strstr (g_ptr_array_index (server->bodies, 4), "left behind"));

  quit_window (bus, &gui);
  natter_test_run_clear (&gui);
  natter_test_remove_tree (dir);
}

/* A window that only reads, because another process (this test) holds
 * its data folder: `natter search` forwarded to it is answered read only
 * from the writer's search index (docs/sessions.md §8.3); a command that
 * writes is refused with the reason the window gives. */
static void
test_forwarded_search_read_only (void)
{
  const NatterTestResponse script[] = { SAY_HELLO };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(NatterDataDirLock) lock = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *expected = NULL;
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  {
    const char * const send[] = { "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m",
                                  "Tell me about wombats", NULL };
    const char * const search[] = { "search", "wombat", NULL };

    run_cli (dir, send, &cli);
    g_assert_cmpint (cli.status, ==, 0);
    session_id = natter_test_session_of (cli.out);
    natter_test_run_clear (&cli);
    /* Run by its writer, which builds the index. */
    run_cli (dir, search, &cli);
    g_assert_cmpint (cli.status, ==, 0);
    g_assert_nonnull (strstr (cli.out, "Tell me about wombats"));
    expected = g_strdup (cli.out);
    natter_test_run_clear (&cli);

    lock = natter_data_dir_lock_acquire (storage, &error);
    g_assert_no_error (error);
    window = spawn_window (bus, dir, &gui);
    run_cli (dir, search, &cli);
  }
  g_assert_cmpstr (cli.err, ==, "");
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_cmpstr (cli.out, ==, expected);
  natter_test_run_clear (&cli);

  {
    const char * const title[] = { "title", session_id, "Wombats", NULL };

    run_cli (dir, title, &cli);
  }
  g_assert_cmpint (cli.status, ==, 1);
  g_assert_true (g_str_has_prefix (cli.err, "natter: Another Natter process is using "));
  natter_test_run_clear (&cli);

  quit_window (bus, &gui);
  natter_test_run_clear (&gui);
  g_clear_object (&lock);
  natter_test_remove_tree (dir);
}

static gboolean
second_request_arrived (gpointer data)
{
  NatterTestServer *server = data;

  return server->bodies->len >= 2;
}

/* A turn the window is running reads, in its file, as interrupted:
 * `natter show` forwarded to the window says running, as `sessions`
 * does, not idle (which `resume` would then refuse as running). */
static void
test_forwarded_show_running (void)
{
  const NatterTestResponse script[] = {
    SAY_HELLO,
    { .status = 200, .content_type = "text/event-stream", .keep_open = TRUE,
      .chunks = NATTER_TEST_CHUNKS ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n") },
  };
  g_autoptr(NatterTestServer) server = natter_test_server_new (script, G_N_ELEMENTS (script));
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GSubprocess) waiting = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autofree char *session_id = NULL;
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };
  NatterTestRun sent = { 0 };
  JsonArray *turns;

  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  window = spawn_window (bus, dir, &gui);
  {
    const char * const send[] = { "send", "--no-auto-title", "--base-url", server->base_url, "--model", "m1",
                                  "hello", NULL };

    run_cli (dir, send, &cli);
  }
  g_assert_cmpint (cli.status, ==, 0);
  session_id = natter_test_session_of (cli.out);
  natter_test_run_clear (&cli);
  {
    const char * const send[] = { "send", "--session", session_id, "take your time", NULL };

    waiting = spawn (dir, send);
    natter_test_communicate (waiting, &sent);
  }
  g_assert_true (natter_test_wait_until (second_request_arrived, server, WAIT_MS));
  {
    const char * const show[] = { "show", session_id, "--json", NULL };

    run_cli (dir, show, &cli);
  }
  g_assert_cmpint (cli.status, ==, 0);
  json = natter_test_json (cli.out);
  turns = json_object_get_array_member (json_node_get_object (json), "turns");
  g_assert_cmpuint (json_array_get_length (turns), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (turns, 0), "status"), ==,
                   "completed");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (turns, 1), "status"), ==,
                   "running");
  natter_test_run_clear (&cli);

  /* Quitting stops the answer; the waiting command hears of it. */
  quit_window (bus, &gui);
  natter_test_wait_for_flag (&sent.done, WAIT_MS);
  g_assert_cmpint (sent.status, !=, 0);
  natter_test_run_clear (&sent);
  natter_test_run_clear (&gui);
  natter_test_remove_tree (dir);
}

/* The window runs in German; a tool server's program is missing. A
 * script under LC_ALL=C (or C.UTF-8) that runs `natter mcp list`,
 * forwarded over the bus to the window, which starts the servers, reads
 * why in English: Natter's words, never GLib's from the window's
 * process, never the window's language. (A German caller reading German
 * is tested in test-language.) */
static void
test_forwarded_in_callers_language (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_file_get_path (dir);
  g_autofree char *config = g_build_filename (path, "mcp.json", NULL);
  g_autofree char *config_dir = g_strdup_printf ("NATTER_CONFIG_DIR=%s", path);
  g_autofree char *catalogs = g_strdup_printf ("NATTER_LOCALEDIR=%s/../../po", g_getenv ("G_TEST_BUILDDIR"));
  const char * const german_window[] = { "LANGUAGE=de", catalogs, config_dir, NULL };
  const char * const c_caller[] = { "LC_ALL=C", "LANGUAGE", config_dir, NULL };
  const char * const c_utf8_caller[] = { "LANGUAGE", config_dir, NULL };
  const char * const list[] = { "mcp", "list", NULL };
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };

  g_file_set_contents (config, "{\"mcpServers\": {\"ghost\": {\"command\": \"/nonexistent/natter-no-server\"}}}",
                       -1, &error);
  g_assert_no_error (error);
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  window = spawn_window_in (bus, dir, german_window, &gui);

  {
    g_autoptr(GSubprocess) process = spawn_in (dir, c_caller, list);

    natter_test_communicate (process, &cli);
    natter_test_wait_for_flag (&cli.done, WAIT_MS);
  }
  /* English; the caller's terminal has no “ ” in the C locale. */
  g_assert_cmpstr (cli.err, ==, "");
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_cmpstr (cli.out, ==, "ghost\terror\tCannot start tool server ?ghost? with ?/nonexistent/natter-no-server?: "
                                "there is no such program\n");
  natter_test_run_clear (&cli);

  {
    g_autoptr(GSubprocess) process = spawn_in (dir, c_utf8_caller, list);

    natter_test_communicate (process, &cli);
    natter_test_wait_for_flag (&cli.done, WAIT_MS);
  }
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_cmpstr (cli.out, ==, "ghost\terror\tCannot start tool server “ghost” with “/nonexistent/natter-no-server”: "
                                "there is no such program\n");
  natter_test_run_clear (&cli);


  quit_window (bus, &gui);
  natter_test_run_clear (&gui);
  natter_test_remove_tree (dir);
}

/* The pid of the process that owns @name on @bus, 0 when none does. */
static guint32
owner_pid (GDBusConnection *bus,
           const char      *name)
{
  g_autoptr(GVariant) reply = NULL;
  guint32 pid = 0;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetConnectionUnixProcessID", g_variant_new ("(s)", name),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply != NULL)
    g_variant_get (reply, "(u)", &pid);
  return pid;
}

typedef struct
{
  GDBusConnection *bus;
  guint32          pid;    /* in: the process whose connection is looked for; 0 for any window */
  guint32          found;  /* out: the process found */
  guint32          not;    /* a process that does not count (the command) */
} ConnectionWait;

/* Whether a process that runs Natter's binary is on the bus (besides
 * @wait->not): a window that registered its application there, which it
 * does after it tried the data folder's lock. */
static gboolean
natter_on_bus (gpointer data)
{
  ConnectionWait *wait = data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariantIter) names = NULL;
  const char *name;

  reply = g_dbus_connection_call_sync (wait->bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "ListNames", NULL, G_VARIANT_TYPE ("(as)"),
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(as)", &names);
  while (g_variant_iter_next (names, "&s", &name))
    {
      guint32 pid = name[0] == ':' ? owner_pid (wait->bus, name) : 0;
      g_autofree char *exe_link = g_strdup_printf ("/proc/%u/exe", pid);
      g_autofree char *exe = NULL;

      if (pid == 0 || pid == wait->not || (wait->pid != 0 && pid != wait->pid))
        continue;
      exe = g_file_read_link (exe_link, NULL);
      if (exe != NULL && g_str_has_suffix (exe, "/src/ui/natter"))
        {
          wait->found = pid;
          return TRUE;
        }
    }
  return FALSE;
}

/* Whether some process holds @data (a data folder's storage) locked. */
static gboolean
storage_locked (gpointer data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterDataDirLock) lock = natter_data_dir_lock_acquire (data, &error);

  return lock == NULL && g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
}

/* Every answer starts, then waits for the test (natter_test_server_release()). */
static void
hold_answers (NatterTestServer   *server,
              guint               index,
              const char         *path,
              const char         *body,
              NatterTestResponse *response,
              gpointer            user_data)
{
  static const char * const start[] = { "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"}}]}\n\n",
                                        NULL };

  *response = (NatterTestResponse) {
    .status = 200, .content_type = "text/event-stream", .keep_open = TRUE, .chunks = start,
  };
}

static const char * const ANSWER_END[] = {
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}}]}\n\n",
  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
  "data: [DONE]\n\n",
  NULL
};

/* A `natter send` is the primary instance on the bus, its answer held:
 * what a launch of the window then does. */
typedef struct
{
  NatterTestServer *server;
  GFile            *dir;
  GFile            *storage;
  GDBusConnection  *bus;
  NatterTestRun     sent;
  GSubprocess      *command;
  guint32           command_pid;
  guint             held;         /* the index of the request whose answer is held */
  char             *session_id;   /* the command's, once it ended */
} BesideCommand;

static gboolean
answer_held (gpointer data)
{
  BesideCommand *b = data;

  return natter_test_server_is_held (b->server, b->held);
}

static void
start_command (BesideCommand *b)
{
  const char * const send[] = { "send", "--no-auto-title", "--base-url", b->server->base_url, "--model", "m1",
                                "hello", NULL };
  b->held = b->server->bodies->len;
  b->command = spawn (b->dir, send);
  b->command_pid = (guint32) g_ascii_strtoull (g_subprocess_get_identifier (b->command), NULL, 10);
  natter_test_communicate (b->command, &b->sent);
  g_assert_true (natter_test_wait_until (answer_held, b, WAIT_MS));
  g_assert_cmpuint (owner_pid (b->bus, APP_ID), ==, b->command_pid);
}

/* Lets the command's answer end; the command exits, and the window that
 * read beside it becomes the writer (docs/sessions.md §8.3). */
static void
end_command (BesideCommand *b,
             guint32        window_pid)
{
  g_autofree char *proc = g_strdup_printf ("/proc/%u", window_pid);

  g_assert_true (natter_test_server_release (b->server, b->held, ANSWER_END));
  natter_test_wait_for_flag (&b->sent.done, WAIT_MS);
  g_assert_cmpint (b->sent.status, ==, 0);
  g_free (b->session_id);
  b->session_id = natter_test_session_of (b->sent.out);
  natter_test_run_clear (&b->sent);
  g_clear_object (&b->command);
  if (!natter_test_poll_until (storage_locked, b->storage, WAIT_MS))
    g_error ("The window %u did not take the data folder; it %s", window_pid,
             g_file_test (proc, G_FILE_TEST_IS_DIR) ? "runs" : "has ended");
}

typedef struct
{
  GDBusConnection *bus;
  guint32          pid;
} OwnerWait;

/* Whether the application's bus name is @data's process's. */
static gboolean
owned_by (gpointer data)
{
  OwnerWait *wait = data;

  return owner_pid (wait->bus, APP_ID) == wait->pid;
}

/* The window launched while a command is the primary instance: it used
 * to hand its launch to the command, which had no window to show and
 * said so on standard error only, so that from the app's icon nothing
 * happened. It opens beside the command, reading, and writes once the
 * command has ended, taking the bus name then, so that the commands
 * that follow are handed to it; so does the window the command opens
 * when the Shell activates Natter (its icon, a search result)
 * meanwhile. */
static void
test_window_beside_command (void)
{
  g_autoptr(NatterTestServer) server = natter_test_server_new_responder (hold_answers, NULL);
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) window = NULL;
  g_autoptr(GVariant) reply = NULL;
  const char * const no_args[] = { NULL };
  const char * const quiet_leaks[] = { "ASAN_OPTIONS=detect_leaks=0", NULL };
  const char *pin[] = { "pin", NULL, NULL };
  const char * const sessions[] = { "sessions", "--json", NULL };
  BesideCommand b = { server, dir, storage, NULL, { 0 }, NULL, 0, 0, NULL };
  NatterTestRun gui = { 0 };
  NatterTestRun cli = { 0 };
  ConnectionWait wait = { 0 };
  OwnerWait name;

  b.bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  g_assert_no_error (error);
  {
    NameWait gone = { 0 };
    guint watch = g_bus_watch_name_on_connection (b.bus, APP_ID, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                  name_appeared_cb, name_vanished_cb, &gone, NULL);

    natter_test_wait_for_flag (&gone.vanished, WAIT_MS);
    g_bus_unwatch_name (watch);
  }

  /* Launched as from a terminal or the desktop file's Exec line. */
  start_command (&b);
  window = spawn_in (dir, g_getenv ("ASAN_OPTIONS") != NULL ? quiet_leaks : NULL, no_args);
  natter_test_communicate (window, &gui);
  wait = (ConnectionWait) { b.bus, (guint32) g_ascii_strtoull (g_subprocess_get_identifier (window), NULL, 10), 0,
                            b.command_pid };
  if (!natter_test_poll_until (natter_on_bus, &wait, WAIT_MS))
    g_error ("No window on the bus; it %s: %s", gui.done ? "ended" : "runs", gui.err != NULL ? gui.err : "");
  g_assert_false (gui.done);
  g_assert_cmpuint (owner_pid (b.bus, APP_ID), ==, b.command_pid);
  end_command (&b, wait.found);
  g_assert_false (gui.done);
  /* Writing now, it is the one the commands that follow are handed to:
   * on their own they would find the folder taken. */
  name = (OwnerWait) { b.bus, wait.found };
  g_assert_true (natter_test_poll_until (owned_by, &name, WAIT_MS));
  pin[1] = b.session_id;
  run_cli (dir, pin, &cli);
  g_assert_cmpint (cli.status, ==, 0);
  natter_test_run_clear (&cli);
  run_cli (dir, sessions, &cli);
  g_assert_cmpint (cli.status, ==, 0);
  g_assert_nonnull (strstr (cli.out, "\"pinned\" : true"));
  natter_test_run_clear (&cli);
  g_subprocess_force_exit (window);
  natter_test_wait_for_flag (&gui.done, WAIT_MS);
  g_assert_null (strstr (gui.err, "A natter command is running"));
  g_assert_null (strstr (gui.err, "CRITICAL"));
  natter_test_run_clear (&gui);

  /* Activated by the Shell: the command opens the window. */
  start_command (&b);
  reply = g_dbus_connection_call_sync (b.bus, APP_ID, "/io/github/natter/Natter", "org.freedesktop.Application",
                                       "Activate", g_variant_new ("(a{sv})", NULL), NULL, G_DBUS_CALL_FLAGS_NONE,
                                       -1, NULL, &error);
  g_assert_no_error (error);
  wait = (ConnectionWait) { b.bus, 0, 0, b.command_pid };
  g_assert_true (natter_test_poll_until (natter_on_bus, &wait, WAIT_MS));
  end_command (&b, wait.found);
  name = (OwnerWait) { b.bus, wait.found };
  g_assert_true (natter_test_poll_until (owned_by, &name, WAIT_MS));
  g_assert_cmpint (kill ((pid_t) wait.found, SIGKILL), ==, 0);

  g_clear_object (&b.bus);
  g_free (b.session_id);
  natter_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/cli/forwarded-to-window", test_forwarded_to_window);
  g_test_add_func ("/cli/other-data-dir", test_other_data_dir);
  g_test_add_func ("/cli/window-other-data-dir", test_window_other_data_dir);
  g_test_add_func ("/cli/forwarded-queue-runs-to-settle", test_forwarded_queue_runs_to_settle);
  g_test_add_func ("/cli/forwarded-show-running", test_forwarded_show_running);
  g_test_add_func ("/cli/forwarded-in-callers-language", test_forwarded_in_callers_language);
  g_test_add_func ("/cli/forwarded-search-read-only", test_forwarded_search_read_only);
  g_test_add_func ("/cli/window-beside-command", test_window_beside_command);

  return g_test_run ();
}
