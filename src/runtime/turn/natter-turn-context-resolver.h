/* natter-turn-context-resolver.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "natter-context-resolver.h"
#include "natter-jsonl-repo.h"

G_BEGIN_DECLS

#define NATTER_TYPE_TURN_CONTEXT_RESOLVER (natter_turn_context_resolver_get_type ())

G_DECLARE_FINAL_TYPE (NatterTurnContextResolver, natter_turn_context_resolver, NATTER, TURN_CONTEXT_RESOLVER, GObject)

NatterTurnContextResolver *natter_turn_context_resolver_new         (NatterJsonlRepo           *turn_repo);
guint                      natter_turn_context_resolver_get_n_reads (NatterTurnContextResolver *self);

G_END_DECLS
