/* oracle-model-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of the oracle's model (oracle-model*.c) share. Their
 * calls run one way: oracle-model-calls.c calls oracle-model-turns.c,
 * which with oracle-model-readings.c calls oracle-model-settings.c, which
 * calls oracle-model.c, which calls none of them.
 */

#pragma once

#include "oracle-model.h"

G_BEGIN_DECLS

#define DEFAULT_MAX_CALLS 50
#define MAX_ROUNDS 2
#define TITLE_MAX_CHARS 60

extern const char *const WORDS[20];

void call_free (OCall *c);
void tool_call_free (OToolCall *c);
void queued_free (OQueued *q);
void move_queue (Oracle   *o,
                 OSession *from,
                 OSession *to);
void grant_free (OGrant *g);
OMsg *new_msg (Oracle   *o,
               OMsgKind  kind,
               const char *text);
guint index_in (GPtrArray *array,
                gpointer   item);
gboolean is_version (OSession *s);
gboolean lineage_known (OSession *s);
OSession *add_session (Oracle *o);
OTurn *make_turn (Oracle   *o,
                  OSession *s,
                  OMsg     *input,
                  guint     max_calls);
void completed (Oracle *o,
                OTurn  *t);
void set_compaction (OSession   *s,
                     const char *summary,
                     OTurn      *first_kept);
OSession *branch (Oracle   *o,
                  OSession *parent,
                  OTurn    *at);
GPtrArray *compactable_chain (OSession *s);
void compaction_made (Oracle     *o,
                      OSession   *s,
                      guint       keep,
                      const char *summary);
OMsg *tool_msg (Oracle     *o,
                OToolCall  *call,
                const char *content);
void run_read (Oracle    *o,
               OToolCall *call);
gboolean has_grant (OSession   *s,
                    const char *tool);
void settle_round (Oracle *o,
                   OTurn  *t);
void settings_turn_made (Oracle *o,
                         OTurn  *t);
void settings_copied (Oracle   *o,
                      OSession *made,
                      OSession *from);
void settings_imported (Oracle   *o,
                        OSession *made,
                        OSession *from);
void settings_deleting (Oracle   *o,
                        OSession *s);

G_END_DECLS
