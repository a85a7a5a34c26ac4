/* natter-search-excerpt-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The excerpt a search hit's snippet is cut from
 * (natter-search-excerpt.c), for natter-search-db.c only.
 */

#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

typedef struct _NatterSearchTokenizer NatterSearchTokenizer;

NatterSearchTokenizer *natter_search_tokenizer_new  (fts5_api               *api,
                                                     const char             *name,
                                                     const char            **args,
                                                     int                     n_args,
                                                     int                    *rc);
void                   natter_search_tokenizer_free (NatterSearchTokenizer  *tokenizer);
char                  *natter_search_tokenizer_only_token (NatterSearchTokenizer *tokenizer,
                                                           const char            *text,
                                                           int                   *rc);
char                  *natter_search_excerpt_cut    (NatterSearchTokenizer  *tokenizer,
                                                     const char             *text,
                                                     int                     length,
                                                     const int              *matched,
                                                     guint                   n_matched,
                                                     int                    *rc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSearchTokenizer, natter_search_tokenizer_free)

G_END_DECLS
