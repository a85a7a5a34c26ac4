/* natter-search-snippet.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words around a search match, as the search index gives them (its
 * marks), and as a front end shows them.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_SEARCH_MARK_START:
 *
 * The byte that opens a matched word in a snippet. Control characters
 * never occur in what a user would search for, so a front end can split a
 * snippet on them and escape each piece before adding its own markup.
 */
#define NATTER_SEARCH_MARK_START "\x02"

/**
 * NATTER_SEARCH_MARK_END:
 *
 * The byte that closes a matched word in a snippet.
 */
#define NATTER_SEARCH_MARK_END "\x03"

/**
 * NATTER_SEARCH_MARK_MORE:
 *
 * At the start or the end of an excerpt (natter_search_excerpt_cut()),
 * says the text goes on beyond it.
 */
#define NATTER_SEARCH_MARK_MORE "\x04"

char *natter_search_snippet_from_highlight (const char *highlighted,
                                            guint       n_words);
char *natter_search_snippet_to_plain       (const char *snippet);
char *natter_search_snippet_to_markup      (const char *snippet);

G_END_DECLS
