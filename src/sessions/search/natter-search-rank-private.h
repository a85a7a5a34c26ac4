/* natter-search-rank-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The FTS5 auxiliary function the search query ranks by
 * (natter-search-rank.c), for natter-search-db.c only.
 */

#pragma once

#include <sqlite3.h>

int natter_search_rank_register (fts5_api *api);
