/* natter-search-db.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "natter-search-snippet.h"

G_BEGIN_DECLS

/**
 * NatterSearchStamp:
 * @size: the file's size in bytes
 * @mtime_ns: its modification time, nanoseconds since the epoch
 *
 * What the index remembers of a file to tell, without reading it, that it
 * has not changed since it was indexed.
 */
typedef struct
{
  gint64 size;
  gint64 mtime_ns;
} NatterSearchStamp;

/**
 * NatterSearchSessionRecord:
 * @stamp: the session file's stamp when it was indexed
 * @latest_turn_id: (nullable): its latest turn then
 * @latest_turn: the latest turn file's stamp then (zeroes without one)
 *
 * One session as the index last saw it.
 */
typedef struct
{
  NatterSearchStamp  stamp;
  char              *latest_turn_id;
  NatterSearchStamp  latest_turn;
} NatterSearchSessionRecord;

/**
 * NatterSearchTurnRecord:
 * @stamp: the turn file's stamp when it was indexed
 * @previous_turn_id: (nullable): the turn its context referred to then
 *
 * One turn of a session as the index last saw it.
 */
typedef struct
{
  NatterSearchStamp  stamp;
  char              *previous_turn_id;
} NatterSearchTurnRecord;

/**
 * NatterSearchHit:
 * @session_id: the session
 * @turn_id: the turn whose user message or answer matched
 * @snippet: the matching words with some context, each match between
 *   %NATTER_SEARCH_MARK_START and %NATTER_SEARCH_MARK_END; not escaped
 *
 * One match, a turn of a session.
 */
typedef struct
{
  char *session_id;
  char *turn_id;
  char *snippet;
} NatterSearchHit;

/**
 * NATTER_SEARCH_MATCH_CAP:
 *
 * How many of the newest turns that match a query are ranked at most
 * (natter_search_db_query()): a word said in most of 200,000 turns would
 * take a second to rank in full.
 */
#define NATTER_SEARCH_MATCH_CAP 2000

void             natter_search_hit_free                (NatterSearchHit   *hit);
char            *natter_search_build_match_expression  (const char        *text);

/**
 * NatterSearchDbError:
 * @NATTER_SEARCH_DB_ERROR_CORRUPT: the index file is not a readable index
 *   (damaged, not SQLite, or of another layout): throw it away and rebuild
 * @NATTER_SEARCH_DB_ERROR_FAILED: SQLite failed otherwise (disk full,
 *   permissions, busy)
 * @NATTER_SEARCH_DB_ERROR_NOT_A_FILE: something other than a file is where
 *   the index file belongs (a folder with something in it, a pipe, a
 *   device), which Natter does not remove: search by content is
 *   unavailable until someone does
 * @NATTER_SEARCH_DB_ERROR_MISSING: there is no index yet: no file at the
 *   path, or one its writer has not laid out yet; a connection that only
 *   reads makes none
 *
 * Errors of the search index file (%NATTER_SEARCH_DB_ERROR).
 */
typedef enum
{
  NATTER_SEARCH_DB_ERROR_CORRUPT,
  NATTER_SEARCH_DB_ERROR_FAILED,
  NATTER_SEARCH_DB_ERROR_NOT_A_FILE,
  NATTER_SEARCH_DB_ERROR_MISSING,
} NatterSearchDbError;

#define NATTER_SEARCH_DB_ERROR (natter_search_db_error_quark ())
GQuark           natter_search_db_error_quark          (void);

/**
 * NatterSearchDbOpen:
 * @NATTER_SEARCH_DB_OPEN_WRITE: the writing connection of the process
 *   that holds the data directory's writer lock: it creates the file and
 *   its tables when they are missing
 * @NATTER_SEARCH_DB_OPEN_QUERY: a connection of that same process that
 *   only queries: the file must exist, and it never checkpoints
 * @NATTER_SEARCH_DB_OPEN_FOREIGN: a connection of a process without the
 *   writer lock (docs/sessions.md §8.3), reading the writer's file: it
 *   creates, writes and changes no file, the `-wal` and `-shm` that SQLite
 *   keeps beside the file included (natter_search_db_open())
 *
 * Whose connection natter_search_db_open() opens, and so what it may do
 * to the file.
 */
typedef enum
{
  NATTER_SEARCH_DB_OPEN_WRITE,
  NATTER_SEARCH_DB_OPEN_QUERY,
  NATTER_SEARCH_DB_OPEN_FOREIGN,
} NatterSearchDbOpen;

typedef struct _NatterSearchDb NatterSearchDb;

NatterSearchDb  *natter_search_db_open                 (const char        *path,
                                                        NatterSearchDbOpen mode,
                                                        GError           **error);
gboolean         natter_search_db_get_file_current     (NatterSearchDb    *db);
gboolean         natter_search_db_get_shares_memory    (NatterSearchDb    *db);
void             natter_search_db_close                (NatterSearchDb    *db);
gboolean         natter_search_db_begin                (NatterSearchDb    *db,
                                                        GError           **error);
gboolean         natter_search_db_commit               (NatterSearchDb    *db,
                                                        GError           **error);
GHashTable      *natter_search_db_load_sessions        (NatterSearchDb    *db,
                                                        GError           **error);
GHashTable      *natter_search_db_load_turns           (NatterSearchDb    *db,
                                                        const char        *session_id,
                                                        GError           **error);
gboolean         natter_search_db_put_session          (NatterSearchDb    *db,
                                                        const char        *session_id,
                                                        const NatterSearchStamp *stamp,
                                                        const char        *latest_turn_id,
                                                        const char        *parent_session,
                                                        gboolean           parent_gone,
                                                        GError           **error);
gboolean         natter_search_db_put_turn             (NatterSearchDb    *db,
                                                        const char        *session_id,
                                                        const char        *turn_id,
                                                        gboolean           indexed_before,
                                                        const NatterSearchStamp *stamp,
                                                        gboolean           readable,
                                                        const char        *previous_turn_id,
                                                        const char        *user_text,
                                                        const char        *answer_text,
                                                        GError           **error);
gboolean         natter_search_db_remove_turn          (NatterSearchDb    *db,
                                                        const char        *session_id,
                                                        const char        *turn_id,
                                                        GError           **error);
GStrv            natter_search_db_list_stale_heirs     (NatterSearchDb    *db,
                                                        const char        *parent_session,
                                                        GError           **error);
GStrv            natter_search_db_list_unreadable      (NatterSearchDb    *db,
                                                        GError           **error);
gboolean         natter_search_db_remove_session       (NatterSearchDb    *db,
                                                        const char        *session_id,
                                                        GError           **error);
GPtrArray       *natter_search_db_query                (NatterSearchDb    *db,
                                                        const char        *text,
                                                        guint              limit,
                                                        guint              cap,
                                                        gboolean          *out_capped,
                                                        GError           **error);

void             natter_search_session_record_free     (NatterSearchSessionRecord *record);
void             natter_search_turn_record_free        (NatterSearchTurnRecord    *record);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSearchHit, natter_search_hit_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterSearchDb, natter_search_db_close)

G_END_DECLS
