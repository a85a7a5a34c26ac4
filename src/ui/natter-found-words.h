/* natter-found-words.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the words of a search are in a turn shown on screen: the text a
 * conversation opened from a search result is scrolled to and marks.
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

gboolean  natter_found_words_find       (const char *text,
                                         const char *query,
                                         int        *start,
                                         int        *end);
GtkLabel *natter_found_words_find_label (GtkWidget  *root,
                                         const char *query,
                                         int        *start,
                                         int        *end);

G_END_DECLS
