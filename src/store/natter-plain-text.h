/* natter-plain-text.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NatterVisibleKeep:
 * @NATTER_VISIBLE_KEEP_NONE: every control character is made visible
 *   (one line of a listing: a title, a snippet)
 * @NATTER_VISIBLE_KEEP_NEWLINE: newlines stay (a message body)
 * @NATTER_VISIBLE_KEEP_TAB: tabs stay (the columns of a listing)
 *
 * Which control characters natter_visible_text() lets through.
 */
typedef enum
{
  NATTER_VISIBLE_KEEP_NONE    = 0,
  NATTER_VISIBLE_KEEP_NEWLINE = 1 << 0,
  NATTER_VISIBLE_KEEP_TAB     = 1 << 1,
} NatterVisibleKeep;

gboolean natter_text_is_blank    (const char        *text);
gboolean natter_text_has_control (const char        *text);
char    *natter_visible_text     (const char        *text,
                                  NatterVisibleKeep  keep);

G_END_DECLS
