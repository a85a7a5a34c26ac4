/* test-data-dir-lock.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The single-writer lock on the storage directory (§8.3): a second open
 * file description, in this process or another, is refused with
 * NATTER_SESSION_ERROR_LOCKED; dropping the lock frees the directory.
 */

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "natter-data-dir-lock.h"
#include "natter-session-error.h"
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/data-dir-lock/second-open-refused-then-free", test_second_fd_refused);
  g_test_add_func ("/data-dir-lock/other-process-refused", test_child_process_refused);

  return g_test_run ();
}
