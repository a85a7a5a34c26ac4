/* natter-sync-conflict.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How a reader takes the copy a file synchroniser kept of a log changed
 * on two devices at once: as a version of the conversation
 * (docs/format.md §9).
 */

#pragma once

#include <gio/gio.h>

#include "natter-jsonl-repo.h"
#include "natter-session-reducer.h"
#include "natter-sync-conflict-name.h"

G_BEGIN_DECLS

NatterSessionState *natter_sync_conflict_reduce_sync (NatterJsonlRepo  *session_repo,
                                                      const char       *name,
                                                      GCancellable     *cancellable,
                                                      GError          **error);

G_END_DECLS
