/* test-data-dir-lock.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The single-writer lock on the storage directory (docs/sessions.md §8.3): a
 * second open file description, in this process or another, is refused with
 * NATTER_SESSION_ERROR_LOCKED; dropping the lock frees the directory.
 * The writer that takes it removes the temporary files that killed
 * creates left, and no one else does.
 */

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "natter-data-dir-lock.h"
#include "natter-device.h"
#include "natter-services.h"
#include "natter-session-error.h"
#include "natter-store-temp.h"
#include "natter-test-support.h"

static void
test_second_fd_refused (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_file_get_path (storage);
  NatterDataDirLock *first;
  NatterDataDirLock *second;
  NatterDataDirLock *again;

  first = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  g_assert_true (natter_data_dir_lock_get_dir (first) == storage);

  /* flock belongs to the open file description: a second open conflicts
   * even inside one process. */
  second = natter_data_dir_lock_acquire (storage, &error);
  g_assert_null (second);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_assert_nonnull (strstr (error->message, "Another Natter process is using"));
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);

  g_assert_finalize_object (first);
  again = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  g_assert_finalize_object (again);
  natter_test_remove_tree (dir);
}

static void
test_child_process_refused (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GError) error = NULL;
  NatterDataDirLock *lock;
  int status = 0;
  pid_t pid;

  lock = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      GError *child_error = NULL;
      NatterDataDirLock *child;
      int fd;

      /* The inherited descriptor is closed on exec only; drop it so this
       * child behaves like an unrelated process. */
      for (fd = 3; fd < 256; fd++)
        close (fd);
      child = natter_data_dir_lock_acquire (storage, &child_error);
      _exit (child == NULL && g_error_matches (child_error, NATTER_SESSION_ERROR,
                                               NATTER_SESSION_ERROR_LOCKED) ? 0 : 1);
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  g_assert_finalize_object (lock);
  natter_test_remove_tree (dir);
}

/* Leftovers of killed creates */

#define TURN_ID "2026-11-30T09-14-03Z-0000000-000"
#define SESSION_ID "2026-11-30T09-14-04Z-0000000-000"

typedef struct
{
  GFile *dir;
  char  *live;       /* a turn log */
  char  *live_bytes;
  char  *linked;     /* a second name of it, left by a kill after the link */
  char  *orphan;     /* a session's first line, left by a kill before it */
  char  *blob_orphan;  /* an attachment never linked into place */
  char  *blob;       /* a blob, and a second name of it left by a kill after the link */
  char  *blob_linked;
} Leftovers;

#define BLOB_SHA256 "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

/* Sets @path's modification time @seconds from now. */
static void
age_file (const char *path,
          int         seconds)
{
  struct utimbuf times;

  times.actime = times.modtime = time (NULL) + seconds;
  g_assert_cmpint (utime (path, &times), ==, 0);
}

static void
leftovers_make (Leftovers *l)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *turns = NULL;
  g_autofree char *sessions = NULL;
  g_autofree char *blobs = NULL;

  l->dir = natter_test_make_temp_dir ();
  root = g_file_get_path (l->dir);
  turns = g_build_filename (root, "storage", "turns", "2026", "11", "30", NULL);
  sessions = g_build_filename (root, "storage", "sessions", "2026", "11", "30", NULL);
  g_assert_cmpint (g_mkdir_with_parents (turns, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (sessions, 0700), ==, 0);

  l->live = g_build_filename (turns, TURN_ID ".jsonl", NULL);
  l->live_bytes = g_strdup ("{\"type\":\"turn_created\",\"turnId\":\"" TURN_ID "\"}\n");
  g_file_set_contents (l->live, l->live_bytes, -1, &error);
  g_assert_no_error (error);
  l->linked = g_build_filename (turns, "." TURN_ID ".jsonl.q1W2e3", NULL);
  g_assert_cmpint (link (l->live, l->linked), ==, 0);
  l->orphan = g_build_filename (sessions, "." SESSION_ID ".jsonl.R4t5Y6", NULL);
  g_file_set_contents (l->orphan, "{\"type\":\"session_cr", -1, &error);
  g_assert_no_error (error);

  blobs = g_build_filename (root, "storage", "blobs", "sha256", "9f", NULL);
  g_assert_cmpint (g_mkdir_with_parents (blobs, 0700), ==, 0);
  l->blob = g_build_filename (blobs, BLOB_SHA256, NULL);
  g_file_set_contents (l->blob, "test", -1, &error);
  g_assert_no_error (error);
  l->blob_linked = g_build_filename (blobs, "." BLOB_SHA256 ".aB3dE5", NULL);
  g_assert_cmpint (link (l->blob, l->blob_linked), ==, 0);
  /* A second write of the same content, killed before its link. */
  l->blob_orphan = g_build_filename (blobs, "." BLOB_SHA256 ".zZ9yY8", NULL);
  g_file_set_contents (l->blob_orphan, "fo", -1, &error);
  g_assert_no_error (error);
  /* Left by a run an hour ago. */
  age_file (l->linked, -3600);
  age_file (l->orphan, -3600);
}

typedef struct
{
  gboolean done;
  int      removed;
} Removal;

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Removal *removal = user_data;
  g_autoptr(GError) error = NULL;

  removal->removed = natter_services_remove_leftover_temp_files_finish (NULL, result, &error);
  g_assert_no_error (error);
  removal->done = TRUE;
}

/* Runs the services' removal of leftovers and returns how many it removed. */
static int
remove_leftovers (NatterServices *services)
{
  Removal removal = { FALSE, -1 };

  natter_services_remove_leftover_temp_files_async (services, NULL, removed_cb, &removal);
  natter_test_wait_for_flag (&removal.done, 10000);
  return removal.removed;
}

/* The live log is whole and has one name again. */
static void
assert_live_intact (Leftovers *l,
                    guint      links)
{
  g_autofree char *bytes = natter_test_read_file (l->live, NULL);
  struct stat st;

  g_assert_cmpstr (bytes, ==, l->live_bytes);
  g_assert_cmpint (stat (l->live, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, links);
}

static void
leftovers_free (Leftovers *l)
{
  natter_test_remove_tree (l->dir);
  g_clear_object (&l->dir);
  g_clear_pointer (&l->live, g_free);
  g_clear_pointer (&l->live_bytes, g_free);
  g_clear_pointer (&l->linked, g_free);
  g_clear_pointer (&l->orphan, g_free);
  g_clear_pointer (&l->blob_orphan, g_free);
  g_clear_pointer (&l->blob, g_free);
  g_clear_pointer (&l->blob_linked, g_free);
}

/* Every leftover is gone; the log and the blob are whole, under their
 * one name. */
static void
assert_leftovers_gone (Leftovers *l)
{
  g_autofree char *blob = natter_test_read_file (l->blob, NULL);
  struct stat st;

  g_assert_false (g_file_test (l->linked, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (l->orphan, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (l->blob_orphan, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (l->blob_linked, G_FILE_TEST_EXISTS));
  assert_live_intact (l, 1);
  g_assert_cmpstr (blob, ==, "test");
  g_assert_cmpint (stat (l->blob, &st), ==, 0);
  g_assert_cmpuint (st.st_nlink, ==, 1);
}

static void
test_writer_removes_leftovers (void)
{
  Leftovers l = { 0 };
  g_autoptr(GError) error = NULL;
  NatterServices *services;

  leftovers_make (&l);
  services = natter_services_new (l.dir, NULL, NULL, NULL, NULL);
  /* Nothing is touched before the lock is held. */
  g_assert_true (g_file_test (l.linked, G_FILE_TEST_IS_REGULAR));

  g_assert_true (natter_services_acquire_writer_lock (services, &error));
  g_assert_no_error (error);
  g_assert_cmpint (remove_leftovers (services), ==, 4);
  assert_leftovers_gone (&l);

  g_assert_finalize_object (services);
  leftovers_free (&l);
}

typedef struct
{
  char     *path;     /* the live write's temporary file */
  GMutex    mutex;
  GCond     cond;
  gboolean  made;
  gboolean  go;
  gboolean  removed_own;
} LiveWrite;

/* A write of this process, in another thread, between making its
 * temporary file and removing it, as a create or a blob's write is. */
static gpointer
live_write_thread (gpointer data)
{
  LiveWrite *live = data;

  natter_store_temp_begin ();
  g_file_set_contents (live->path, "{\"type\":\"turn_cr", -1, NULL);
  /* Its clock says it is old: the wall clock was set back since. */
  age_file (live->path, -3600);
  g_mutex_lock (&live->mutex);
  live->made = TRUE;
  g_cond_broadcast (&live->cond);
  while (!live->go)
    g_cond_wait (&live->cond, &live->mutex);
  g_mutex_unlock (&live->mutex);
  live->removed_own = g_unlink (live->path) == 0;
  natter_store_temp_end ();
  return NULL;
}

/* A write of this process in progress keeps its temporary file, however
 * old the file looks, while the leftovers of dead writes around it go:
 * whatever moment the sweep comes, the write removes its own file
 * itself. */
static void
test_live_write_kept (void)
{
  Leftovers l = { 0 };
  LiveWrite live = { 0 };
  g_autoptr(GError) error = NULL;
  NatterServices *services;
  Removal removal = { FALSE, -1 };
  GThread *thread;

  leftovers_make (&l);
  live.path = g_build_filename (g_file_peek_path (l.dir), "storage", "turns", "2026", "11", "30",
                                "." TURN_ID ".jsonl.L1v3W0", NULL);
  g_mutex_init (&live.mutex);
  g_cond_init (&live.cond);
  thread = g_thread_new ("live-write", live_write_thread, &live);
  g_mutex_lock (&live.mutex);
  while (!live.made)
    g_cond_wait (&live.cond, &live.mutex);
  g_mutex_unlock (&live.mutex);

  services = natter_services_new (l.dir, NULL, NULL, NULL, NULL);
  g_assert_true (natter_services_acquire_writer_lock (services, &error));
  g_assert_no_error (error);
  natter_services_remove_leftover_temp_files_async (services, NULL, removed_cb, &removal);
  g_mutex_lock (&live.mutex);
  live.go = TRUE;
  g_cond_broadcast (&live.cond);
  g_mutex_unlock (&live.mutex);
  natter_test_wait_for_flag (&removal.done, 10000);
  g_thread_join (thread);

  g_assert_true (live.removed_own);
  g_assert_cmpint (removal.removed, ==, 4);
  assert_leftovers_gone (&l);

  g_assert_finalize_object (services);
  g_mutex_clear (&live.mutex);
  g_cond_clear (&live.cond);
  g_free (live.path);
  leftovers_free (&l);
}

/* While another process holds the lock, it may be between writing a
 * temporary file and linking it: a second process leaves every one alone. */
static void
test_leftovers_kept_while_another_process_writes (void)
{
  Leftovers l = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) storage = NULL;
  NatterServices *services;
  int ready[2];
  int go[2];
  int status = 0;
  char byte = 0;
  pid_t pid;

  leftovers_make (&l);
  storage = g_file_get_child (l.dir, "storage");
  g_assert_cmpint (pipe (ready), ==, 0);
  g_assert_cmpint (pipe (go), ==, 0);

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      NatterDataDirLock *lock;

      close (ready[0]);
      close (go[1]);
      lock = natter_data_dir_lock_acquire (storage, NULL);
      if (lock == NULL || write (ready[1], "l", 1) != 1)
        _exit (1);
      /* Held until the parent has tried. */
      _exit (read (go[0], &byte, 1) == 1 ? 0 : 1);
    }
  close (ready[1]);
  close (go[0]);
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);

  services = natter_services_new (l.dir, NULL, NULL, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&error);
  g_assert_true (g_file_test (l.linked, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (l.orphan, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_test (l.blob_orphan, G_FILE_TEST_IS_REGULAR));
  assert_live_intact (&l, 2);

  /* Once that process is gone, the next writer clears them. */
  g_assert_cmpint (write (go[1], "g", 1), ==, 1);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  close (ready[0]);
  close (go[1]);

  g_assert_true (natter_services_acquire_writer_lock (services, &error));
  g_assert_no_error (error);
  g_assert_cmpint (remove_leftovers (services), ==, 4);
  assert_leftovers_gone (&l);

  g_assert_finalize_object (services);
  leftovers_free (&l);
}

/* This device's identity is the writer's to make (docs/sessions.md
 * §8.3): services that have not taken the lock, or could not, read it
 * and write no `device` file; they make it once they hold the lock. */
static void
test_device_made_by_the_writer_only (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (g_file_peek_path (dir), NATTER_DEVICE_FILE_NAME, NULL);
  NatterDataDirLock *other;
  NatterServices *services;
  NatterDevice *device;

  other = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  services = natter_services_new (dir, NULL, NULL, NULL, NULL);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (natter_services_acquire_writer_lock (services, &error));
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
  g_clear_error (&error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_null (natter_turn_runtime_get_device (natter_services_get_runtime (services)));

  /* The other process is gone: these services write, and this device
   * has its identity from then on. */
  g_assert_finalize_object (other);
  g_assert_true (natter_services_acquire_writer_lock (services, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  device = natter_turn_runtime_get_device (natter_services_get_runtime (services));
  g_assert_nonnull (device);
  g_assert_finalize_object (services);

  /* A reader started later reads the identity the writer made. */
  other = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);
  services = natter_services_new (dir, NULL, NULL, NULL, NULL);
  g_assert_false (natter_services_acquire_writer_lock (services, NULL));
  g_assert_nonnull (natter_turn_runtime_get_device (natter_services_get_runtime (services)));
  g_assert_finalize_object (services);
  g_assert_finalize_object (other);
  natter_test_remove_tree (dir);
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 gpointer    user_data)
{
  (*(guint *) user_data)++;
}

/* Services that could not take the lock, because another process holds
 * it, take it once that process is killed (docs/sessions.md §8.3): they
 * say so once, their session service writes from then on, and nothing
 * was written before. */
static void
test_reader_takes_lock_of_killed_writer (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) storage = g_file_get_child (dir, "storage");
  g_autoptr(GError) error = NULL;
  NatterServices *services;
  NatterSessions *sessions;
  guint lock_notified = 0;
  guint read_only_notified = 0;
  int ready[2];
  int status = 0;
  char byte = 0;
  pid_t pid;

  g_assert_cmpint (pipe (ready), ==, 0);
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      NatterDataDirLock *lock;

      close (ready[0]);
      lock = natter_data_dir_lock_acquire (storage, NULL);
      if (lock == NULL || write (ready[1], "l", 1) != 1)
        _exit (1);
      /* Holds it until it is killed. */
      for (;;)
        pause ();
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
  close (ready[0]);

  services = natter_services_new (dir, NULL, NULL, NULL, NULL);
  sessions = natter_services_get_sessions (services);
  g_assert_false (natter_services_acquire_writer_lock (services, NULL));
  g_assert_nonnull (natter_sessions_get_write_refusal (sessions));
  g_signal_connect (services, "notify::has-writer-lock", G_CALLBACK (count_notify_cb), &lock_notified);
  g_signal_connect (sessions, "notify::read-only", G_CALLBACK (count_notify_cb), &read_only_notified);
  natter_services_watch_writer_lock (services);

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status));

  natter_test_wait_for_count (&lock_notified, 1, 10000);
  g_assert_true (natter_services_has_writer_lock (services));
  g_assert_cmpuint (read_only_notified, ==, 1);
  g_assert_null (natter_sessions_get_write_refusal (sessions));
  {
    gboolean read_only = TRUE;

    g_object_get (sessions, "read-only", &read_only, NULL);
    g_assert_false (read_only);
  }
  /* This process holds it now: another is refused. */
  {
    NatterDataDirLock *other = natter_data_dir_lock_acquire (storage, &error);

    g_assert_null (other);
    g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED);
    g_clear_error (&error);
  }

  g_signal_handlers_disconnect_by_data (services, &lock_notified);
  g_signal_handlers_disconnect_by_data (sessions, &read_only_notified);
  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
}

/* Whether another process's directory is the services' own: the same
 * path, written otherwise or through a link, is; another folder, or one
 * that does not exist, is not. */
static void
test_uses_data_dir (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autoptr(GFile) other = natter_test_make_temp_dir ();
  g_autoptr(GFile) links = natter_test_make_temp_dir ();
  g_autoptr(GFile) link = g_file_get_child (links, "to-dir");
  g_autoptr(GFile) missing = g_file_get_child (links, "missing");
  g_autofree char *path = g_file_get_path (dir);
  g_autofree char *dotted = g_build_filename (path, ".", NULL);
  g_autoptr(GFile) same = g_file_new_for_commandline_arg (dotted);
  g_autoptr(GError) error = NULL;
  NatterServices *services;

  g_file_make_symbolic_link (link, path, NULL, &error);
  g_assert_no_error (error);
  services = natter_services_new (dir, NULL, NULL, NULL, NULL);

  g_assert_true (natter_services_uses_data_dir (services, dir));
  g_assert_true (natter_services_uses_data_dir (services, same));
  g_assert_true (natter_services_uses_data_dir (services, link));
  g_assert_false (natter_services_uses_data_dir (services, other));
  g_assert_false (natter_services_uses_data_dir (services, missing));

  g_assert_finalize_object (services);
  natter_test_remove_tree (dir);
  natter_test_remove_tree (other);
  natter_test_remove_tree (links);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/data-dir-lock/second-open-refused-then-free", test_second_fd_refused);
  g_test_add_func ("/data-dir-lock/uses-data-dir", test_uses_data_dir);
  g_test_add_func ("/data-dir-lock/other-process-refused", test_child_process_refused);
  g_test_add_func ("/data-dir-lock/device-made-by-the-writer-only", test_device_made_by_the_writer_only);
  g_test_add_func ("/data-dir-lock/reader-takes-lock-of-killed-writer", test_reader_takes_lock_of_killed_writer);
  g_test_add_func ("/data-dir-lock/writer-removes-leftover-temp-files", test_writer_removes_leftovers);
  g_test_add_func ("/data-dir-lock/live-write-kept", test_live_write_kept);
  g_test_add_func ("/data-dir-lock/leftovers-kept-while-another-process-writes",
                   test_leftovers_kept_while_another_process_writes);

  return g_test_run ();
}
