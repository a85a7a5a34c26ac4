/* natter-code-block.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_CODE_BLOCK (natter_code_block_get_type ())

G_DECLARE_FINAL_TYPE (NatterCodeBlock, natter_code_block, NATTER, CODE_BLOCK, GtkWidget)

GtkWidget  *natter_code_block_new                (const char      *info,
                                                  const char      *code);
void        natter_code_block_set_code           (NatterCodeBlock *self,
                                                  const char      *code);
char       *natter_code_block_dup_code           (NatterCodeBlock *self);
const char *natter_code_block_get_info           (NatterCodeBlock *self);
const char *natter_code_block_get_language_label (NatterCodeBlock *self);
const char *natter_code_block_get_language_id    (NatterCodeBlock *self);
const char *natter_code_block_get_scheme_id      (NatterCodeBlock *self);
void        natter_code_block_copy               (NatterCodeBlock *self);

G_END_DECLS
