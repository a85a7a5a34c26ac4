/* natter-write-refusal.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Why a store writes nothing (natter-write-refusal.c); zero-filled is
 * "it writes". */
typedef struct
{
  GError *current;  /* read atomically from any thread */
  GSList *lifted;   /* GError: refusals lifted since, kept for readers */
} NatterWriteRefusal;

void          natter_write_refusal_set   (NatterWriteRefusal *self,
                                          const GError       *reason);
const GError *natter_write_refusal_get   (NatterWriteRefusal *self);
gboolean      natter_write_refusal_check (NatterWriteRefusal *self,
                                          GError            **error);
void          natter_write_refusal_clear (NatterWriteRefusal *self);

G_END_DECLS
