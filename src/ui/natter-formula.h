/* natter-formula.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_FORMULA (natter_formula_get_type ())

G_DECLARE_FINAL_TYPE (NatterFormula, natter_formula, NATTER, FORMULA, GtkWidget)

GtkWidget  *natter_formula_new         (const char    *tex,
                                        const char    *source);
GtkWidget  *natter_formula_new_block   (const char    *tex,
                                        const char    *source);
const char *natter_formula_get_source  (NatterFormula *self);
GdkTexture *natter_formula_get_texture (NatterFormula *self);
void        natter_formula_copy_tex    (NatterFormula *self);

G_END_DECLS
