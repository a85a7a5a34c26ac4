/* natter-test-support.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
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

JsonNode *
natter_test_json (const char *literal)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (literal, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
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
