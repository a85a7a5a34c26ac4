/* natter-clock.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-clock"

#include "natter-clock.h"

G_DEFINE_INTERFACE (NatterClock, natter_clock, G_TYPE_OBJECT)

static void
natter_clock_default_init (NatterClockInterface *iface)
{
}

/**
 * natter_clock_now_us:
 * @self: a #NatterClock
 *
 * Reads the clock.
 *
 * Returns: wall-clock time in microseconds since the Unix epoch (UTC).
 */
gint64
natter_clock_now_us (NatterClock *self)
{
  g_return_val_if_fail (NATTER_IS_CLOCK (self), 0);

  return NATTER_CLOCK_GET_IFACE (self)->now_us (self);
}

/**
 * natter_format_ts:
 * @unix_us: microseconds since the Unix epoch
 *
 * Formats a time as the `ts` of every event: ISO-8601 UTC with
 * milliseconds, `2026-11-30T09:14:03.123Z` (docs/runtime.md §2).
 *
 * Returns: (transfer full): the timestamp
 */
char *
natter_format_ts (gint64 unix_us)
{
  g_autoptr(GDateTime) time = NULL;
  g_autofree char *seconds = NULL;

  time = g_date_time_new_from_unix_utc (unix_us / G_USEC_PER_SEC);
  g_assert (time != NULL);
  seconds = g_date_time_format (time, "%Y-%m-%dT%H:%M:%S");
  return g_strdup_printf ("%s.%03dZ", seconds,
                          (int) ((unix_us % G_USEC_PER_SEC) / 1000));
}

/**
 * natter_parse_ts:
 * @ts: (nullable): an ISO-8601 UTC timestamp, as an event's `ts`
 * @out_unix_us: (out): microseconds since the Unix epoch
 *
 * The inverse of natter_format_ts(), for any timestamp an event may hold
 * (docs/format.md §1, "Timestamps").
 *
 * Returns: %FALSE when @ts is %NULL or not a timestamp
 */
gboolean
natter_parse_ts (const char *ts,
                 gint64     *out_unix_us)
{
  g_autoptr(GDateTime) time = NULL;

  g_return_val_if_fail (out_unix_us != NULL, FALSE);

  if (ts == NULL || (time = g_date_time_new_from_iso8601 (ts, NULL)) == NULL)
    return FALSE;
  *out_unix_us = g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time);
  return TRUE;
}

/**
 * natter_clock_format_ts:
 * @self: a #NatterClock
 *
 * Reads the clock and formats it with natter_format_ts().
 *
 * Returns: (transfer full): the timestamp
 */
char *
natter_clock_format_ts (NatterClock *self)
{
  return natter_format_ts (natter_clock_now_us (self));
}

#define NATTER_TYPE_SYSTEM_CLOCK (natter_system_clock_get_type ())
G_DECLARE_FINAL_TYPE (NatterSystemClock, natter_system_clock, NATTER, SYSTEM_CLOCK, GObject)

struct _NatterSystemClock
{
  GObject parent_instance;
};

static gint64
natter_system_clock_now_us (NatterClock *clock)
{
  return g_get_real_time ();
}

static void
natter_system_clock_iface_init (NatterClockInterface *iface)
{
  iface->now_us = natter_system_clock_now_us;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterSystemClock, natter_system_clock, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_CLOCK,
                                                      natter_system_clock_iface_init))

static void
natter_system_clock_class_init (NatterSystemClockClass *klass)
{
}

static void
natter_system_clock_init (NatterSystemClock *self)
{
}

/**
 * natter_clock_get_system:
 *
 * The real clock (g_get_real_time()).
 *
 * Returns: (transfer full): a new reference to the process-wide system
 *   clock
 */
NatterClock *
natter_clock_get_system (void)
{
  static gsize system_clock;

  if (g_once_init_enter (&system_clock))
    g_once_init_leave (&system_clock, (gsize) g_object_new (NATTER_TYPE_SYSTEM_CLOCK, NULL));

  return g_object_ref ((NatterClock *) system_clock);
}
