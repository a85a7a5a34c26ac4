/* natter-turn-runtime-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the execution (the loop) reads from its runtime.
 */

#pragma once

#include "natter-blob-store.h"
#include "natter-turn-runtime.h"

G_BEGIN_DECLS

struct _NatterTurnRuntime
{
  GObject                     parent_instance;

  NatterJsonlRepo            *repo;
  NatterIdGenerator          *ids;
  NatterClock                *clock;
  NatterAgentResolver        *agents;
  NatterModelRegistry        *models;
  NatterToolRegistry         *tools;
  NatterContextResolver      *contexts;
  NatterPermissionChecker    *checker;
  NatterPermissionGrants     *grants;       /* nullable: no session grants */
  NatterPermissionClassifier *classifier;   /* nullable */
  NatterTurnEventHub         *hub;
  NatterBlobStore            *blobs;         /* nullable */
  NatterStreamKeep           *keep;          /* nullable: streamed words die with the process */
  NatterDevice               *device;        /* nullable: every turn counts as here */
  JsonObject                 *default_model; /* nullable */
  guint                       max_model_calls;
  guint                       n_state_reads;  /* get_turn_state calls, for benchmarks */
};

NatterTurnExecution *_natter_turn_execution_start (NatterTurnRuntime *runtime,
                                                   const char        *turn_id,
                                                   JsonObject        *input,
                                                   gboolean           take_over,
                                                   GCancellable      *cancellable);

G_END_DECLS
