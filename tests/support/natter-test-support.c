/* natter-test-support.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The basics every test uses: a fake clock, temporary data directories,
 * and the waits that drive the main loop until something holds (never a
 * sleep), each with a timeout.
 */

#include <glib/gstdio.h>

#include "natter-test-support.h"

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
  gboolean held;
  guint id = g_timeout_add (timeout_ms, timeout_cb, &timed_out);

  /* The answer that ended the loop is the result: asking once more could
   * see a later state and contradict it. */
  while (!(held = condition (data)) && !timed_out)
    g_main_context_iteration (NULL, TRUE);

  if (!timed_out)
    g_source_remove (id);
  return held;
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

gboolean
natter_test_poll_until (NatterTestCheck condition,
                        gpointer        data,
                        guint           timeout_ms)
{
  guint tick = g_timeout_add (50, wake_cb, NULL);
  gboolean held = natter_test_wait_until (condition, data, timeout_ms);

  g_source_remove (tick);
  return held;
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
 * natter_test_result_cb:
 * @object: the source object
 * @result: the result
 * @user_data: a `GAsyncResult **`, NULL until the call ends
 *
 * A #GAsyncReadyCallback that stores a reference to @result in
 * *@user_data, for a test to wait for and then finish the call with.
 */
void
natter_test_result_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
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
