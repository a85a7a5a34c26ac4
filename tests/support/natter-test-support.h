/* natter-test-support.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared helpers for the core tests: temp data directories, a fake clock,
 * main-loop driving with a timeout, and JSON literals.
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-clock.h"
#include "natter-send-options.h"

G_BEGIN_DECLS

#define NATTER_TYPE_FAKE_CLOCK (natter_fake_clock_get_type ())
G_DECLARE_FINAL_TYPE (NatterFakeClock, natter_fake_clock, NATTER, FAKE_CLOCK, GObject)

NatterFakeClock *natter_fake_clock_new        (gint64           start_us);
void             natter_fake_clock_set        (NatterFakeClock *self,
                                               gint64           now_us);
void             natter_fake_clock_advance    (NatterFakeClock *self,
                                               gint64           delta_us);

GFile           *natter_test_make_temp_dir    (void);
void             natter_test_remove_tree      (GFile           *dir);

/* Iterates the default main context until *flag is TRUE; fails the test
 * after timeout_ms. Never sleeps. */
void             natter_test_wait_for_flag    (gboolean        *flag,
                                               guint            timeout_ms);
/* Iterates the default main context until the pointer is non-NULL. */
void             natter_test_wait_for_pointer (gpointer        *pointer,
                                               guint            timeout_ms);

JsonNode        *natter_test_json             (const char      *literal);
GPtrArray       *natter_test_json_array       (const char      *first_literal,
                                               ...) G_GNUC_NULL_TERMINATED;
char            *natter_test_read_file        (const char      *path,
                                               gsize           *length);

/* Send options for @agent_id, with the model override @provider/@model
 * when both are given. */
NatterSendOptions *natter_test_send_options   (const char      *agent_id,
                                               const char      *provider,
                                               const char      *model);

G_END_DECLS
