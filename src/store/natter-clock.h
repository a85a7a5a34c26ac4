/* natter-clock.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

#include "natter-types.h"

G_BEGIN_DECLS

#define NATTER_TYPE_CLOCK (natter_clock_get_type ())

G_DECLARE_INTERFACE (NatterClock, natter_clock, NATTER, CLOCK, GObject)

/**
 * NatterClockInterface:
 * @now_us: the current wall-clock time in microseconds since the Unix
 *   epoch (UTC).
 *
 * The injected clock of docs/runtime.md §5: ids and event timestamps come
 * from it, so tests can use a fake one.
 */
struct _NatterClockInterface
{
  GTypeInterface parent_iface;

  gint64 (*now_us) (NatterClock *self);
};

gint64       natter_clock_now_us         (NatterClock *self);
char        *natter_clock_format_ts      (NatterClock *self);
char        *natter_format_ts            (gint64       unix_us);
gboolean     natter_parse_ts             (const char  *ts,
                                          gint64      *out_unix_us);
NatterClock *natter_clock_get_system     (void);

G_END_DECLS
