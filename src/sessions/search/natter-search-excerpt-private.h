/* natter-search-excerpt-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The FTS5 auxiliary function the search query cuts its snippets from
 * (natter-search-excerpt.c), for natter-search-db.c only.
 */

#pragma once

#include <sqlite3.h>

int natter_search_excerpt_register (fts5_api *api);
