/* test-clock.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The event timestamp format and the clocks (docs/runtime.md §2: every
 * line carries an ISO-8601 UTC `ts`).
 */

#include <string.h>

#include "natter-clock.h"
#include "natter-json.h"
#include "natter-test-support.h"

/* 2026-11-30T09:14:03Z */
#define T0_US (G_GINT64_CONSTANT (1796030043) * G_USEC_PER_SEC)

static void
test_format_ts (void)
{
  g_autofree char *zero = natter_format_ts (0);
  g_autofree char *t0 = natter_format_ts (T0_US);
  g_autofree char *millis = natter_format_ts (T0_US + 123456);
  g_autofree char *last = natter_format_ts (T0_US + 999999);

  g_assert_cmpstr (zero, ==, "1970-01-01T00:00:00.000Z");
  g_assert_cmpstr (t0, ==, "2026-11-30T09:14:03.000Z");
  /* Milliseconds are truncated, never rounded into the next second. */
  g_assert_cmpstr (millis, ==, "2026-11-30T09:14:03.123Z");
  g_assert_cmpstr (last, ==, "2026-11-30T09:14:03.999Z");

  g_assert_true (natter_json_is_timestamp (t0));
  g_assert_true (natter_json_is_timestamp (millis));
}

static void
test_fake_clock (void)
{
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (T0_US);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;

  g_assert_cmpint (natter_clock_now_us (NATTER_CLOCK (clock)), ==, T0_US);
  before = natter_clock_format_ts (NATTER_CLOCK (clock));
  natter_fake_clock_advance (clock, 1500 * 1000);
  after = natter_clock_format_ts (NATTER_CLOCK (clock));

  g_assert_cmpstr (before, ==, "2026-11-30T09:14:03.000Z");
  g_assert_cmpstr (after, ==, "2026-11-30T09:14:04.500Z");
}

static void
test_system_clock (void)
{
  g_autoptr(NatterClock) clock = natter_clock_get_system ();
  g_autoptr(NatterClock) again = natter_clock_get_system ();
  g_autofree char *ts = NULL;
  gint64 before, now, after;

  /* One process-wide instance. */
  g_assert_true (clock == again);

  before = g_get_real_time ();
  now = natter_clock_now_us (clock);
  after = g_get_real_time ();
  g_assert_cmpint (before, <=, now);
  g_assert_cmpint (now, <=, after);

  ts = natter_clock_format_ts (clock);
  g_assert_true (natter_json_is_timestamp (ts));
  g_assert_cmpuint (strlen (ts), ==, strlen ("2026-11-30T09:14:03.000Z"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/clock/format-ts", test_format_ts);
  g_test_add_func ("/clock/fake-clock", test_fake_clock);
  g_test_add_func ("/clock/system-clock", test_system_clock);

  return g_test_run ();
}
