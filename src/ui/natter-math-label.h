/* natter-math-label.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void  natter_math_label_set_markup   (GtkLabel   *label,
                                      const char *markup,
                                      GPtrArray  *formulas);
guint natter_math_label_count_typeset (GtkLabel  *label);
char *natter_math_label_dup_text      (GtkLabel  *label,
                                       int        start,
                                       int        end);

G_END_DECLS
