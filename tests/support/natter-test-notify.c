/* natter-test-notify.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Property notifications: counting the notify signals of a property, and
 * the checks that a property notifies once per change and never for an
 * equal value.
 */

#include "natter-test-support.h"

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
