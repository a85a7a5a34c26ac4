/* natter-math-scan.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The TeX formulas in an answer's Markdown, found before a Markdown
 * parser sees the text (which would read a formula's backslashes,
 * underscores and stars as its own): docs/math.md §2.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NatterMathFormula:
 * @tex: the formula between its delimiters, as written
 * @source: the formula with its delimiters, as written
 * @display: whether it is display math (`$$…$$`, `\[…\]`) rather than
 *   inline math (`$…$`, `\(…\)`)
 *
 * One formula found by natter_math_protect().
 */
typedef struct
{
  char     *tex;
  char     *source;
  gboolean  display;
} NatterMathFormula;

void       natter_math_formula_free      (NatterMathFormula *formula);

char      *natter_math_protect           (const char        *text,
                                          gsize              len,
                                          GPtrArray         *formulas);
const char *natter_math_next_placeholder (const char        *text,
                                          guint             *index,
                                          gboolean          *display,
                                          const char       **after);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterMathFormula, natter_math_formula_free)

G_END_DECLS
