/* natter-headless-runner.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-send-options.h"
#include "natter-turn-runtime.h"

G_BEGIN_DECLS

#define NATTER_TYPE_HEADLESS_RUNNER (natter_headless_runner_get_type ())

G_DECLARE_FINAL_TYPE (NatterHeadlessRunner, natter_headless_runner, NATTER, HEADLESS_RUNNER, GObject)

NatterHeadlessRunner *natter_headless_runner_new        (NatterTurnRuntime     *runtime);

void                  natter_headless_runner_run_async  (NatterHeadlessRunner  *self,
                                                         const NatterSendOptions *options,
                                                         JsonArray             *context,
                                                         JsonObject            *input,
                                                         GCancellable          *cancellable,
                                                         GAsyncReadyCallback    callback,
                                                         gpointer               user_data);
NatterTurnOutcome    *natter_headless_runner_run_finish (NatterHeadlessRunner  *self,
                                                         GAsyncResult          *result,
                                                         char                 **out_turn_id,
                                                         char                 **out_final_text,
                                                         GError               **error);

G_END_DECLS
