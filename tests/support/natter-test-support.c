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
 * GSettings over the build's schema (NATTER_SCHEMA_DIR), and the C locale
 * in UTF-8 so that messages are the untranslated ones. Add what a test
 * needs on top (an API key, a crash point).
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
