/* natter-search-db.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The file behind full-text search: an SQLite database with an FTS5 table
 * of every session turn's user message and answer, and the size and mtime
 * of each file it was read from. It is a cache (docs/sessions.md
 * §8.4), never a source of truth: everything in it can be rebuilt from
 * the logs, so any doubt about it (damage, another layout) is reported as
 * NATTER_SEARCH_DB_ERROR_CORRUPT and the caller starts over. Only this
 * file talks to SQLite (and, inside a query, the auxiliary function of
 * natter-search-rank.c and the table's tokenizer in
 * natter-search-excerpt.c); a connection is used by one thread at a
 * time.
 */

#define G_LOG_DOMAIN "natter-search"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "natter-search-db.h"
#include "natter-search-excerpt-private.h"
#include "natter-search-rank-private.h"

/* The layout of the tables; another value in user_version means a file
 * of another Natter, rebuilt rather than read. 2: FTS5 merges its
 * segments 16 at a time. 3: a turn whose file could not be read is
 * recorded as such, so that a search names its conversation (a file of
 * layout 2 kept such a turn as if it had no words). 4: the words of an
 * answer stopped or cut off mid-way are indexed too (layout 3 left them
 * out, though the window shows them). 5: a session whose parent was
 * deleted is indexed with the turns it shows from it, and the index
 * keeps each session's parent and each turn's predecessor to know when
 * (layout 4 indexed a session's own turns only, so those words were
 * found nowhere). */
#define SCHEMA_VERSION 5

/* How many terms a typed word may stand for (prefix_terms()) before it
 * is searched as the prefix it is. */
#define MAX_TERMS 16

/* The prefix indexes of the table (its `prefix=` option), in
 * characters, the shorter first. */
#define PREFIX_INDEX_0 2
#define PREFIX_INDEX_1 3

/* How many words a snippet shows. */
#define SNIPPET_WORDS 16

/* The table's tokenizer, as its `tokenize=` option says it (the schema)
 * and as natter_search_excerpt_cut() is given it: the two must agree
 * for the token indexes FTS5 reports to find their words. */
#define TOKENIZER       "unicode61"
#define TOKENIZER_ARG_0 "remove_diacritics"
#define TOKENIZER_ARG_1 "2"

static const char schema_sql[] =
  "CREATE TABLE sessions(session_id TEXT PRIMARY KEY, size INTEGER NOT NULL,"
  " mtime INTEGER NOT NULL, latest_turn_id TEXT, parent_session TEXT,"
  " parent_gone INTEGER NOT NULL) WITHOUT ROWID;"
  /* The heirs of a deleted session are found without a pass over all. */
  "CREATE INDEX sessions_parent ON sessions(parent_session) WHERE parent_session IS NOT NULL;"
  "CREATE TABLE turns(id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, turn_id TEXT NOT NULL,"
  " size INTEGER NOT NULL, mtime INTEGER NOT NULL, readable INTEGER NOT NULL, previous_turn_id TEXT,"
  " UNIQUE(session_id, turn_id));"
  /* Nearly every turn reads: the few that do not are found without a
   * pass over the others. */
  "CREATE INDEX turns_unreadable ON turns(session_id) WHERE readable = 0;"
  /* remove_diacritics 2: "cafe" finds "café", as the title search did. */
  /* Every term is searched as a prefix (search as you type): prefix
   * indexes of 2 and 3 characters spare short prefixes a scan of every
   * word they begin (without the one of 2, a two-letter prefix of a
   * common word took 270 ms to rank over bench-search's 200,000 turns,
   * against 11 with it). */
  "CREATE VIRTUAL TABLE turn_text USING fts5(user, answer,"
  " tokenize='" TOKENIZER " " TOKENIZER_ARG_0 " " TOKENIZER_ARG_1 "',"
  " prefix='" G_STRINGIFY (PREFIX_INDEX_0) " " G_STRINGIFY (PREFIX_INDEX_1) "');"
  /* FTS5 writes each commit as a new segment and merges segments as they
   * pile up, by default 4 of a size at a time: building the index of
   * 200,000 turns then rewrote every word several times, and merging was
   * most of the build. 16 at a time rewrites each word about half as
   * often; a query then reads a few more segments, which cost nothing
   * measurable in bench-search. Kept in the file (turn_text_config). */
  "INSERT INTO turn_text(turn_text, rank) VALUES('automerge', 16);"
  "PRAGMA user_version = " G_STRINGIFY (SCHEMA_VERSION) ";";

/* FTS5 keeps the words of a transaction in memory and writes them as a
 * new segment when they pass 'hashsize' bytes (1 MB by default) and at
 * the commit: a transaction of a build (BATCH conversations,
 * natter-search-index.c) was written as several segments, each to be
 * merged again. At 16 MB the build of bench-search's 200,000 turns takes
 * about a fifth less CPU time (11.0-12.3 s against 14.2-14.4 s, the same
 * load); the writer holds at most that much more memory. The option is
 * FTS5's own (fts5_config.c) but not on its documentation page, so a
 * SQLite without it only builds more slowly. Kept in the file
 * (turn_text_config), like automerge. */
static const char hashsize_sql[] =
  "INSERT INTO turn_text(turn_text, rank) VALUES('hashsize', 16777216);";

typedef enum
{
  STMT_BEGIN,
  STMT_BEGIN_READ,
  STMT_COMMIT,
  STMT_LOAD_SESSIONS,
  STMT_LOAD_TURNS,
  STMT_PUT_SESSION,
  STMT_FIND_TURN,
  STMT_INSERT_TURN,
  STMT_UPDATE_TURN,
  STMT_DELETE_TEXT,
  STMT_DELETE_TURN,
  STMT_INSERT_TEXT,
  STMT_REMOVE_TEXTS,
  STMT_REMOVE_TURNS,
  STMT_REMOVE_SESSION,
  STMT_LIST_UNREADABLE,
  STMT_LIST_HEIRS,
  STMT_LIST_STALE_HEIRS,
  STMT_DATA_VERSION,
  STMT_NEXT_TERM,
  STMT_MATCHES,
  STMT_HIT,
  N_STMTS
} Stmt;

static const char * const stmt_sql[N_STMTS] = {
  [STMT_BEGIN] = "BEGIN IMMEDIATE",
  /* One snapshot for a query's statements, and one lock for them all. */
  [STMT_BEGIN_READ] = "BEGIN",
  [STMT_COMMIT] = "COMMIT",
  [STMT_LOAD_SESSIONS] =
    "SELECT s.session_id, s.size, s.mtime, s.latest_turn_id, t.size, t.mtime FROM sessions s"
    " LEFT JOIN turns t ON t.session_id = s.session_id AND t.turn_id = s.latest_turn_id",
  [STMT_LOAD_TURNS] = "SELECT turn_id, size, mtime, previous_turn_id FROM turns WHERE session_id = ?1",
  [STMT_PUT_SESSION] = "INSERT OR REPLACE INTO sessions VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
  [STMT_FIND_TURN] = "SELECT id FROM turns WHERE session_id = ?1 AND turn_id = ?2",
  [STMT_INSERT_TURN] =
    "INSERT INTO turns(session_id, turn_id, size, mtime, readable, previous_turn_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
  [STMT_UPDATE_TURN] = "UPDATE turns SET size = ?2, mtime = ?3, readable = ?4, previous_turn_id = ?5 WHERE id = ?1",
  [STMT_DELETE_TEXT] = "DELETE FROM turn_text WHERE rowid = ?1",
  [STMT_DELETE_TURN] = "DELETE FROM turns WHERE id = ?1",
  [STMT_INSERT_TEXT] = "INSERT INTO turn_text(rowid, user, answer) VALUES (?1, ?2, ?3)",
  [STMT_REMOVE_TEXTS] = "DELETE FROM turn_text WHERE rowid IN (SELECT id FROM turns WHERE session_id = ?1)",
  [STMT_REMOVE_TURNS] = "DELETE FROM turns WHERE session_id = ?1",
  [STMT_REMOVE_SESSION] = "DELETE FROM sessions WHERE session_id = ?1",
  [STMT_LIST_UNREADABLE] = "SELECT DISTINCT session_id FROM turns WHERE readable = 0 ORDER BY session_id",
  /* The sessions indexed as if their parent were there when it is not,
   * or the other way round: of one parent (?1), or of any. */
  [STMT_LIST_HEIRS] =
    "SELECT s.session_id FROM sessions s LEFT JOIN sessions p ON p.session_id = s.parent_session"
    " WHERE s.parent_session = ?1 AND s.parent_gone != (p.session_id IS NULL)",
  [STMT_LIST_STALE_HEIRS] =
    "SELECT s.session_id FROM sessions s LEFT JOIN sessions p ON p.session_id = s.parent_session"
    " WHERE s.parent_session IS NOT NULL AND s.parent_gone != (p.session_id IS NULL)",
  /* Changes when another connection committed: the counts a query keeps
   * (NatterSearchDb.phrase_counts) are then out of date. In a read
   * transaction it is the snapshot's. */
  [STMT_DATA_VERSION] = "PRAGMA data_version",
  /* The first term of the table from ?1 on (temp.turn_terms, made by
   * seek_terms()): a seek, not a walk of its rows. */
  [STMT_NEXT_TERM] = "SELECT term FROM temp.turn_terms WHERE term >= ?1 LIMIT 1",
  /* The newest RANKED_MATCHES matching turns, in one pass, each ranked
   * and its matched tokens noted by natter_match() (natter-search-rank.c,
   * bm25()'s order at less cost); natter_search_db_query() keeps the best.
   * Ranking costs a few microseconds per matching row, so a word said in
   * most of 200,000 turns would take a second to rank in full; capping
   * the candidates by rowid (turns are indexed roughly in the order they
   * were said) keeps every query within milliseconds, and is exact for
   * any word found fewer times. FTS5 walks a MATCH in rowid order, so
   * ORDER BY rowid DESC costs no sort, and LIMIT stops the walk. ?3 is
   * the cap and one more row, which only tells that the cap applied. */
  [STMT_MATCHES] =
    "SELECT natter_match(turn_text, ?2) FROM turn_text WHERE turn_text MATCH ?1"
    " ORDER BY rowid DESC LIMIT ?3",
  /* A kept match: its turn and its text, which the excerpt is cut from
   * (natter-search-excerpt.c, natter-search-snippet.c): SQLite's
   * snippet() cuts and marks its tokens, not the words a reader sees, and
   * highlight() grew quadratic with the matches of a long text. */
  [STMT_HIT] =
    "SELECT t.session_id, t.turn_id, x.user, x.answer FROM turns t, turn_text x"
    " WHERE t.id = ?1 AND x.rowid = ?1",
};

/* What a connection knows of the files it reads, taken just before it
 * opened them (natter_search_db_get_file_current()). */
typedef struct
{
  gboolean exists;
  dev_t    dev;
  ino_t    ino;
  gint64   size;
  gint64   mtime_ns;
  gboolean has_wal;
  gboolean has_shm;
} FileState;

struct _NatterSearchDb
{
  sqlite3               *handle;
  char                  *path;
  NatterSearchDbOpen     mode;
  /* FOREIGN only: SQLite reads through the writer's `-shm`, which it
   * never writes; else the file is read as immutable. */
  gboolean               shared_memory;
  FileState              opened;
  sqlite3_stmt          *stmts[N_STMTS];
  NatterSearchTokenizer *tokenizer;  /* the table's, for the excerpts */
  /* A phrase of a query ("word"*) → the rows that hold it, counted up to
   * half the table (natter-search-rank.c), for the table as of
   * data_version: a word typed after another does not count the first
   * again. */
  GHashTable            *phrase_counts;
  gint64                 counts_version;
  /* A folded prefix → its terms (GPtrArray; empty: more than MAX_TERMS),
   * as of the same data_version: a word typed a letter further has its
   * terms among those of the word before. */
  GHashTable            *prefix_terms;
  gboolean               has_terms;  /* temp.turn_terms is made: cleared by a failed query */
};

G_DEFINE_QUARK (natter-search-db-error-quark, natter_search_db_error)

static gboolean
set_error (NatterSearchDb  *db,
           int              rc,
           const char      *what,
           GError         **error)
{
  int primary = rc & 0xff;
  const char *message = db->handle != NULL ? sqlite3_errmsg (db->handle) : sqlite3_errstr (rc);

  g_set_error (error, NATTER_SEARCH_DB_ERROR,
               primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? NATTER_SEARCH_DB_ERROR_CORRUPT
                                                                      : NATTER_SEARCH_DB_ERROR_FAILED,
               "Search index %s: %s: %s", db->path, what, message);
  return FALSE;
}

static sqlite3_stmt *
stmt (NatterSearchDb  *db,
      Stmt             which,
      GError         **error)
{
  int rc;

  if (db->stmts[which] != NULL)
    {
      sqlite3_reset (db->stmts[which]);
      sqlite3_clear_bindings (db->stmts[which]);
      return db->stmts[which];
    }
  rc = sqlite3_prepare_v3 (db->handle, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &db->stmts[which], NULL);
  if (rc != SQLITE_OK)
    {
      set_error (db, rc, "preparing a statement", error);
      return NULL;
    }
  return db->stmts[which];
}

/* Steps @s to its end; rows are not expected. */
static gboolean
run (NatterSearchDb  *db,
     sqlite3_stmt    *s,
     GError         **error)
{
  int rc = sqlite3_step (s);

  sqlite3_reset (s);
  if (rc != SQLITE_DONE && rc != SQLITE_ROW)
    return set_error (db, rc, "writing", error);
  return TRUE;
}

static gboolean
exec (NatterSearchDb  *db,
      const char      *sql,
      GError         **error)
{
  int rc = sqlite3_exec (db->handle, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return set_error (db, rc, sql, error);
  return TRUE;
}

static gboolean
check_layout (NatterSearchDb  *db,
              gboolean         create,
              GError         **error)
{
  sqlite3_stmt *s = NULL;
  int rc;
  int version = -1;
  int n_tables = -1;

  /* Reading the schema is what finds a file that is not a database. */
  rc = sqlite3_prepare_v2 (db->handle,
                           "SELECT (SELECT count(*) FROM sqlite_master), user_version FROM pragma_user_version",
                           -1, &s, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step (s)) == SQLITE_ROW)
    {
      n_tables = sqlite3_column_int (s, 0);
      version = sqlite3_column_int (s, 1);
      rc = SQLITE_OK;
    }
  sqlite3_finalize (s);
  if (rc != SQLITE_OK)
    return set_error (db, rc, "reading the layout", error);

  if (n_tables == 0 && version == 0 && create)
    {
      /* One transaction: a query connection that opens the file
       * meanwhile sees no layout or all of it, never a part it would
       * take for another layout (and have the file rebuilt). */
      if (!exec (db, "BEGIN IMMEDIATE", error))
        return FALSE;
      if (!exec (db, schema_sql, error) || !exec (db, "COMMIT", error))
        {
          sqlite3_exec (db->handle, "ROLLBACK", NULL, NULL, NULL);
          return FALSE;
        }
      if (sqlite3_exec (db->handle, hashsize_sql, NULL, NULL, NULL) != SQLITE_OK)
        g_debug ("Search index %s: FTS5 keeps its default hashsize: %s", db->path, sqlite3_errmsg (db->handle));
      return TRUE;
    }
  /* Not laid out yet: the writer that just made the file is about to,
   * which is no damage. */
  if (n_tables == 0 && version == 0)
    {
      g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING,
                   "Search index %s is not laid out yet", db->path);
      return FALSE;
    }
  if (version != SCHEMA_VERSION)
    {
      g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_CORRUPT,
                   "Search index %s has layout %d, not %d", db->path, version, SCHEMA_VERSION);
      return FALSE;
    }
  return TRUE;
}

/* Makes sure that what is at @path is a file SQLite may open, before it
 * does: it would open a pipe and wait on it, and report a folder as
 * "unable to open database file" on every search. Nothing is there: a
 * writer creates the file, mode 0600 like every file of the data
 * directory (docs/format.md §1), which SQLite gives its -wal and -shm
 * files too. An empty folder holds nothing and is removed; anything else
 * that is not a file is left alone and reported. A file of an older
 * Natter, created 0644, is made private. */
static gboolean
prepare_path (const char  *path,
              gboolean     read_only,
              GError     **error)
{
  GStatBuf info;
  int fd;

  if (g_stat (path, &info) == 0)
    {
      if (S_ISDIR (info.st_mode) && !read_only && g_rmdir (path) == 0)
        return prepare_path (path, read_only, error);
      if (S_ISDIR (info.st_mode))
        {
          g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_NOT_A_FILE,
                       _("The search index %s is a folder with files in it, not a file. "
                         "Remove the folder to search what was said again."), path);
          return FALSE;
        }
      if (!S_ISREG (info.st_mode))
        {
          g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_NOT_A_FILE,
                       _("The search index %s is not a regular file. "
                         "Remove it to search what was said again."), path);
          return FALSE;
        }
      if (!read_only && (info.st_mode & 077) != 0 && g_chmod (path, 0600) != 0)
        g_debug ("The search index %s stays readable by others: %s", path, g_strerror (errno));
      return TRUE;
    }
  if (errno != ENOENT || read_only)
    return TRUE;  /* SQLite says what is wrong. */

  fd = g_open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0)
    close (fd);
  return TRUE;
}

static void
take_file_state (const char *path,
                 FileState  *out)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);
  GStatBuf info;

  memset (out, 0, sizeof *out);
  if (g_stat (path, &info) == 0)
    {
      out->exists = TRUE;
      out->dev = info.st_dev;
      out->ino = info.st_ino;
      out->size = info.st_size;
      out->mtime_ns = (gint64) info.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + info.st_mtim.tv_nsec;
    }
  out->has_wal = g_file_test (wal, G_FILE_TEST_EXISTS);
  out->has_shm = g_file_test (shm, G_FILE_TEST_EXISTS);
}

/* The file system a FOREIGN connection reads through: the default one,
 * but that it opens a `-wal` read only and never makes one. SQLite opens
 * the `-wal` of a read-only connection to read and write, making it when
 * it is missing (it falls back to read only when it cannot): a writer
 * that closed the file between the look at it and the open
 * (natter_search_db_open()) would find an empty `-wal` of this process's
 * beside it. Without the file, the open fails, and is tried again. */
#define FOREIGN_VFS "natter-foreign"

static sqlite3_vfs *foreign_base;

static int
foreign_open (sqlite3_vfs      *vfs,
              const char       *name,
              sqlite3_file     *file,
              int               flags,
              int              *out_flags)
{
  if ((flags & SQLITE_OPEN_WAL) != 0)
    flags = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
  /* The default file system's own object: its methods find their
   * settings there. */
  return foreign_base->xOpen (foreign_base, name, file, flags, out_flags);
}

static gpointer
register_foreign_vfs (gpointer data)
{
  static sqlite3_vfs vfs;

  foreign_base = sqlite3_vfs_find (NULL);
  if (foreign_base == NULL)
    return NULL;
  vfs = *foreign_base;
  vfs.zName = FOREIGN_VFS;
  vfs.pNext = NULL;
  vfs.xOpen = foreign_open;
  return sqlite3_vfs_register (&vfs, 0) == SQLITE_OK ? (gpointer) FOREIGN_VFS : NULL;
}

/* The name of the file system of FOREIGN connections, registered once;
 * %NULL (the default one) where it could not be. */
static const char *
foreign_vfs (void)
{
  static GOnce once = G_ONCE_INIT;

  return g_once (&once, register_foreign_vfs, NULL);
}

/* The URI a FOREIGN connection opens @path by (natter_search_db_open()):
 * read only, and either through the writer's shared memory, read only
 * too, or as a file nobody changes. */
static char *
foreign_uri (const char *path,
             gboolean    shared_memory)
{
  g_autofree char *escaped = g_uri_escape_string (path, "/", FALSE);

  return g_strdup_printf ("file:%s?mode=ro&%s", escaped, shared_memory ? "readonly_shm=1" : "immutable=1");
}

/* Makes the auxiliary function of the queries (natter-search-rank.c)
 * known on @db's connection, and makes the table's tokenizer for the
 * excerpts (natter-search-excerpt.c). */
static int
register_functions (NatterSearchDb *db)
{
  sqlite3 *handle = db->handle;
  const char *args[] = { TOKENIZER_ARG_0, TOKENIZER_ARG_1 };
  fts5_api *api = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc;

  /* The documented way to reach the FTS5 API of a connection. */
  rc = sqlite3_prepare_v2 (handle, "SELECT fts5(?1)", -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return rc;
  sqlite3_bind_pointer (stmt, 1, &api, "fts5_api_ptr", NULL);
  sqlite3_step (stmt);
  rc = sqlite3_finalize (stmt);
  if (rc != SQLITE_OK)
    return rc;
  if (api == NULL || api->iVersion < 2)
    return SQLITE_ERROR;
  db->tokenizer = natter_search_tokenizer_new (api, TOKENIZER, args, G_N_ELEMENTS (args), &rc);
  if (rc == SQLITE_OK)
    rc = natter_search_rank_register (api);
  return rc;
}

/* One try of natter_search_db_open(). */
static NatterSearchDb *
open_once (const char          *path,
           NatterSearchDbOpen   mode,
           GError             **error)
{
  g_autoptr(NatterSearchDb) db = g_new0 (NatterSearchDb, 1);
  const char *vfs = NULL;
  g_autofree char *uri = NULL;
  gboolean read_only = mode != NATTER_SEARCH_DB_OPEN_WRITE;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  int rc;

  if (!prepare_path (path, read_only, error))
    return NULL;
  db->path = g_strdup (path);
  db->mode = mode;
  /* Taken before the open: a file changed in between reads as changed
   * at the next question, never as the one opened. */
  take_file_state (path, &db->opened);
  if (read_only && !db->opened.exists)
    {
      g_set_error (error, NATTER_SEARCH_DB_ERROR, NATTER_SEARCH_DB_ERROR_MISSING,
                   "Search index %s: there is no such file yet", path);
      return NULL;
    }
  if (mode == NATTER_SEARCH_DB_OPEN_WRITE)
    flags |= SQLITE_OPEN_CREATE;
  if (mode == NATTER_SEARCH_DB_OPEN_FOREIGN)
    {
      /* Both, or SQLite would create the one that is missing. */
      db->shared_memory = db->opened.has_wal && db->opened.has_shm;
      uri = foreign_uri (path, db->shared_memory);
      flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
      vfs = foreign_vfs ();
    }
  rc = sqlite3_open_v2 (uri != NULL ? uri : path, &db->handle, flags, vfs);
  if (rc == SQLITE_OK)
    rc = register_functions (db);
  if (rc != SQLITE_OK)
    {
      set_error (db, rc, "opening", error);
      return NULL;
    }
  sqlite3_busy_timeout (db->handle, 5000);
  /* A query connection writes nothing, not even when it closes last:
   * closing a connection to a file that was thrown away meanwhile would
   * otherwise fold its log into it and then delete the `-wal` and
   * `-shm` of that name, which are the new file's. */
  if (read_only)
    sqlite3_db_config (db->handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
  if (!check_layout (db, !read_only, error))
    return NULL;
  /* WAL lets a query read while the index is being built; NORMAL
   * synchronous is enough for a cache that is rebuilt when in doubt. OFF
   * would save little: in WAL mode NORMAL syncs only at checkpoints
   * (about 90 for a build of 2,000 conversations, and no CPU time
   * measurable in bench-search), and after a power cut it could leave a
   * file that reads as whole but whose stamps say turns are indexed whose
   * words were lost — a cache nothing would ever find wrong. */
  if (!read_only && (!exec (db, "PRAGMA journal_mode = WAL", error) ||
                     !exec (db, "PRAGMA synchronous = NORMAL", error)))
    return NULL;
  return g_steal_pointer (&db);
}

/* How often a FOREIGN connection is opened at most while the file keeps
 * changing under the open. */
#define FOREIGN_OPENS 3

/* Whether the file at @path, or its `-wal` or `-shm`, is not as @before
 * says. */
static gboolean
file_changed (const char      *path,
              const FileState *before)
{
  FileState now;

  take_file_state (path, &now);
  return now.exists != before->exists || now.dev != before->dev || now.ino != before->ino ||
         now.size != before->size || now.mtime_ns != before->mtime_ns || now.has_wal != before->has_wal ||
         now.has_shm != before->has_shm;
}

/**
 * natter_search_db_open:
 * @path: the index file, in the file system's encoding
 * @mode: whose connection it is (#NatterSearchDbOpen)
 * @error: return location for a #GError
 *
 * Opens the search index at @path, creating it (and its tables) when it
 * does not exist and @mode is %NATTER_SEARCH_DB_OPEN_WRITE. The file is
 * in WAL mode, so a query connection reads while another connection
 * writes.
 *
 * A new file is created with mode 0600 (docs/format.md "The search
 * cache"); an empty folder at @path is removed first. A connection that
 * only queries never checkpoints, not even when it closes last.
 *
 * A %NATTER_SEARCH_DB_OPEN_FOREIGN connection, of a process that may not
 * write the data directory (docs/sessions.md §8.3), leaves every file as
 * it found it. SQLite opens even a read-only connection to a WAL file
 * through its `-wal` and `-shm`, creating them when they are missing,
 * and writes its place in the `-shm`. So when the writer has the file
 * open (both are there), the connection reads through them without
 * writing either (SQLite's `readonly_shm`, which reads the `-shm` as the
 * writer keeps it and, without a writer, rebuilds what it needs in
 * memory); otherwise no connection writes the file at this moment and it
 * is read as `immutable`: without locks or the `-wal`, as of the
 * writer's last checkpoint. An immutable read is only right while the
 * file stays as it was, so the caller asks
 * natter_search_db_get_file_current() before and after each query and
 * opens the file again when it changed. Such a connection never makes a
 * `-wal` (its file system opens one read only), and one whose open
 * failed while the writer opened, closed or built the file is opened
 * again, a few times, the way the file then is.
 *
 * Returns: (transfer full) (nullable): the connection; else %NULL with
 *   %NATTER_SEARCH_DB_ERROR_CORRUPT (not a readable index of this
 *   layout: delete the file and rebuild),
 *   %NATTER_SEARCH_DB_ERROR_NOT_A_FILE (something else is at @path; its
 *   message says so in plain words), %NATTER_SEARCH_DB_ERROR_MISSING (no
 *   index there yet, when @mode only reads) or
 *   %NATTER_SEARCH_DB_ERROR_FAILED (cannot open otherwise)
 */
NatterSearchDb *
natter_search_db_open (const char          *path,
                       NatterSearchDbOpen   mode,
                       GError             **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  for (guint opens = 1;; opens++)
    {
      g_autoptr(GError) local_error = NULL;
      FileState before;
      NatterSearchDb *db;

      take_file_state (path, &before);
      db = open_once (path, mode, &local_error);
      if (db != NULL)
        return db;
      /* The writer opened, closed or built the file while this opened it
       * the way it was before: opened again the way it is now. */
      if (mode != NATTER_SEARCH_DB_OPEN_FOREIGN || opens == FOREIGN_OPENS || !file_changed (path, &before))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
    }
}

/**
 * natter_search_db_get_file_current:
 * @db: a connection
 *
 * Whether what @db reads is still the file at its path: the same file
 * (a rebuild replaces it with a new one, which a connection to the old
 * one would never see), and for a %NATTER_SEARCH_DB_OPEN_FOREIGN
 * connection also read the way it was opened for (natter_search_db_open()):
 * one reading through the writer's `-shm` needs it there still, and an
 * immutable one needs the file unchanged, byte count and modification
 * time, with no `-wal` or `-shm` come or gone beside it. Blocks on a few
 * stat() calls.
 *
 * Returns: %FALSE when the caller should open the file again
 */
gboolean
natter_search_db_get_file_current (NatterSearchDb *db)
{
  FileState now;

  g_return_val_if_fail (db != NULL, FALSE);

  take_file_state (db->path, &now);
  if (!now.exists || now.dev != db->opened.dev || now.ino != db->opened.ino)
    return FALSE;
  if (db->mode != NATTER_SEARCH_DB_OPEN_FOREIGN)
    return TRUE;
  if (db->shared_memory)
    return now.has_wal && now.has_shm;
  /* Beside the file as it was: a lone `-wal` or `-shm` that a writer
   * left is no writer, but one that comes or goes is. */
  return now.size == db->opened.size && now.mtime_ns == db->opened.mtime_ns &&
         now.has_wal == db->opened.has_wal && now.has_shm == db->opened.has_shm;
}

/**
 * natter_search_db_get_shares_memory:
 * @db: a connection
 *
 * Whether @db, a %NATTER_SEARCH_DB_OPEN_FOREIGN connection, reads
 * through the writer's `-shm` (natter_search_db_open()). SQLite holds a
 * lock on it for as long as the connection is open, and a writer that
 * closes the file meanwhile finds itself not the last connection and
 * leaves its `-wal` and `-shm` behind, which this connection can never
 * remove: such a connection is best closed after each question.
 *
 * Returns: %TRUE for a connection through the writer's shared memory
 */
gboolean
natter_search_db_get_shares_memory (NatterSearchDb *db)
{
  g_return_val_if_fail (db != NULL, FALSE);

  return db->shared_memory;
}

/**
 * natter_search_db_close:
 * @db: (transfer full) (nullable): a connection
 *
 * Closes the connection and frees @db.
 */
void
natter_search_db_close (NatterSearchDb *db)
{
  if (db == NULL)
    return;
  for (guint i = 0; i < N_STMTS; i++)
    sqlite3_finalize (db->stmts[i]);
  natter_search_tokenizer_free (db->tokenizer);
  g_clear_pointer (&db->phrase_counts, g_hash_table_unref);
  g_clear_pointer (&db->prefix_terms, g_hash_table_unref);
  sqlite3_close (db->handle);
  g_free (db->path);
  g_free (db);
}

/**
 * natter_search_db_begin:
 * @db: a writing connection
 * @error: return location for a #GError
 *
 * Starts a write transaction; the writes up to natter_search_db_commit()
 * become visible to queries together.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_begin (NatterSearchDb  *db,
                        GError         **error)
{
  sqlite3_stmt *s = stmt (db, STMT_BEGIN, error);

  return s != NULL && run (db, s, error);
}

/**
 * natter_search_db_commit:
 * @db: a writing connection in a transaction
 * @error: return location for a #GError
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_commit (NatterSearchDb  *db,
                         GError         **error)
{
  sqlite3_stmt *s = stmt (db, STMT_COMMIT, error);

  return s != NULL && run (db, s, error);
}

/**
 * natter_search_session_record_free:
 * @record: (transfer full) (nullable): a record
 */
void
natter_search_session_record_free (NatterSearchSessionRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->latest_turn_id);
  g_free (record);
}

/**
 * natter_search_db_load_sessions:
 * @db: a connection
 * @error: return location for a #GError
 *
 * Every session the index holds, with the stamps the start-up check
 * compares: the session file's and its latest turn file's.
 *
 * Returns: (transfer full) (element-type utf8 NatterSearchSessionRecord):
 *   session id → record; %NULL with a %NATTER_SEARCH_DB_ERROR
 */
GHashTable *
natter_search_db_load_sessions (NatterSearchDb  *db,
                                GError         **error)
{
  g_autoptr(GHashTable) sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          (GDestroyNotify) natter_search_session_record_free);
  sqlite3_stmt *s = stmt (db, STMT_LOAD_SESSIONS, error);
  int rc;

  if (s == NULL)
    return NULL;
  while ((rc = sqlite3_step (s)) == SQLITE_ROW)
    {
      NatterSearchSessionRecord *record = g_new0 (NatterSearchSessionRecord, 1);

      record->stamp.size = sqlite3_column_int64 (s, 1);
      record->stamp.mtime_ns = sqlite3_column_int64 (s, 2);
      record->latest_turn_id = g_strdup ((const char *) sqlite3_column_text (s, 3));
      record->latest_turn.size = sqlite3_column_int64 (s, 4);
      record->latest_turn.mtime_ns = sqlite3_column_int64 (s, 5);
      g_hash_table_replace (sessions, g_strdup ((const char *) sqlite3_column_text (s, 0)), record);
    }
  sqlite3_reset (s);
  if (rc != SQLITE_DONE)
    {
      set_error (db, rc, "reading", error);
      return NULL;
    }
  return g_steal_pointer (&sessions);
}

/**
 * natter_search_turn_record_free:
 * @record: (transfer full) (nullable): a record
 */
void
natter_search_turn_record_free (NatterSearchTurnRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->previous_turn_id);
  g_free (record);
}

/**
 * natter_search_db_load_turns:
 * @db: a connection
 * @session_id: a session
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type utf8 NatterSearchTurnRecord):
 *   turn id → the turn as it was indexed for @session_id (its own turns
 *   and those it shows from a deleted parent); %NULL with a
 *   %NATTER_SEARCH_DB_ERROR
 */
GHashTable *
natter_search_db_load_turns (NatterSearchDb  *db,
                             const char      *session_id,
                             GError         **error)
{
  g_autoptr(GHashTable) turns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) natter_search_turn_record_free);
  sqlite3_stmt *s = stmt (db, STMT_LOAD_TURNS, error);
  int rc;

  if (s == NULL)
    return NULL;
  sqlite3_bind_text (s, 1, session_id, -1, SQLITE_STATIC);
  while ((rc = sqlite3_step (s)) == SQLITE_ROW)
    {
      NatterSearchTurnRecord *record = g_new0 (NatterSearchTurnRecord, 1);

      record->stamp.size = sqlite3_column_int64 (s, 1);
      record->stamp.mtime_ns = sqlite3_column_int64 (s, 2);
      record->previous_turn_id = g_strdup ((const char *) sqlite3_column_text (s, 3));
      g_hash_table_replace (turns, g_strdup ((const char *) sqlite3_column_text (s, 0)), record);
    }
  sqlite3_reset (s);
  if (rc != SQLITE_DONE)
    {
      set_error (db, rc, "reading", error);
      return NULL;
    }
  return g_steal_pointer (&turns);
}

/**
 * natter_search_db_put_session:
 * @db: a writing connection
 * @session_id: the session
 * @stamp: its file's stamp as it was read
 * @latest_turn_id: (nullable): its latest turn
 * @parent_session: (nullable): the session it was branched from
 * @parent_gone: whether @parent_session's file was not there when
 *   @session_id was read, so that the turns it shows from it were
 *   indexed as its own
 * @error: return location for a #GError
 *
 * Records that @session_id was indexed from a file with @stamp.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_put_session (NatterSearchDb           *db,
                              const char               *session_id,
                              const NatterSearchStamp  *stamp,
                              const char               *latest_turn_id,
                              const char               *parent_session,
                              gboolean                  parent_gone,
                              GError                  **error)
{
  sqlite3_stmt *s = stmt (db, STMT_PUT_SESSION, error);

  if (s == NULL)
    return FALSE;
  sqlite3_bind_text (s, 1, session_id, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (s, 2, stamp->size);
  sqlite3_bind_int64 (s, 3, stamp->mtime_ns);
  sqlite3_bind_text (s, 4, latest_turn_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (s, 5, parent_session, -1, SQLITE_STATIC);
  sqlite3_bind_int (s, 6, parent_gone ? 1 : 0);
  return run (db, s, error);
}

static gint64
find_turn (NatterSearchDb  *db,
           const char      *session_id,
           const char      *turn_id,
           GError         **error)
{
  sqlite3_stmt *s = stmt (db, STMT_FIND_TURN, error);
  gint64 id = 0;
  int rc;

  if (s == NULL)
    return -1;
  sqlite3_bind_text (s, 1, session_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (s, 2, turn_id, -1, SQLITE_STATIC);
  rc = sqlite3_step (s);
  if (rc == SQLITE_ROW)
    id = sqlite3_column_int64 (s, 0);
  sqlite3_reset (s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      set_error (db, rc, "reading", error);
      return -1;
    }
  return id;
}

/**
 * natter_search_db_put_turn:
 * @db: a writing connection
 * @session_id: the session
 * @turn_id: one of its turns
 * @indexed_before: whether the index may hold @turn_id of @session_id
 *   already (natter_search_db_load_turns() listed it); %FALSE
 *   spares a new turn, every turn of a build, the look-up of its row
 * @stamp: the turn file's stamp as it was read
 * @readable: whether the turn file could be read; one that could not is
 *   kept with no words, listed by natter_search_db_list_unreadable()
 * @previous_turn_id: (nullable): the turn its context refers to
 * @user_text: the text of the user's message
 * @answer_text: the text of the answers
 * @error: return location for a #GError
 *
 * Indexes (or indexes again) the words of one turn of a session: of its
 * own, or one it shows from a deleted parent.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_put_turn (NatterSearchDb           *db,
                           const char               *session_id,
                           const char               *turn_id,
                           gboolean                  indexed_before,
                           const NatterSearchStamp  *stamp,
                           gboolean                  readable,
                           const char               *previous_turn_id,
                           const char               *user_text,
                           const char               *answer_text,
                           GError                  **error)
{
  sqlite3_stmt *s;
  gint64 id = indexed_before ? find_turn (db, session_id, turn_id, error) : 0;

  if (id < 0)
    return FALSE;
  if (id > 0)
    {
      if ((s = stmt (db, STMT_UPDATE_TURN, error)) == NULL)
        return FALSE;
      sqlite3_bind_int64 (s, 1, id);
      sqlite3_bind_int64 (s, 2, stamp->size);
      sqlite3_bind_int64 (s, 3, stamp->mtime_ns);
      sqlite3_bind_int (s, 4, readable ? 1 : 0);
      sqlite3_bind_text (s, 5, previous_turn_id, -1, SQLITE_STATIC);
      if (!run (db, s, error) || (s = stmt (db, STMT_DELETE_TEXT, error)) == NULL)
        return FALSE;
      sqlite3_bind_int64 (s, 1, id);
      if (!run (db, s, error))
        return FALSE;
    }
  else
    {
      if ((s = stmt (db, STMT_INSERT_TURN, error)) == NULL)
        return FALSE;
      sqlite3_bind_text (s, 1, session_id, -1, SQLITE_STATIC);
      sqlite3_bind_text (s, 2, turn_id, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (s, 3, stamp->size);
      sqlite3_bind_int64 (s, 4, stamp->mtime_ns);
      sqlite3_bind_int (s, 5, readable ? 1 : 0);
      sqlite3_bind_text (s, 6, previous_turn_id, -1, SQLITE_STATIC);
      if (!run (db, s, error))
        return FALSE;
      id = sqlite3_last_insert_rowid (db->handle);
    }

  if ((s = stmt (db, STMT_INSERT_TEXT, error)) == NULL)
    return FALSE;
  sqlite3_bind_int64 (s, 1, id);
  sqlite3_bind_text (s, 2, user_text != NULL ? user_text : "", -1, SQLITE_STATIC);
  sqlite3_bind_text (s, 3, answer_text != NULL ? answer_text : "", -1, SQLITE_STATIC);
  return run (db, s, error);
}

/**
 * natter_search_db_remove_turn:
 * @db: a writing connection
 * @session_id: a session
 * @turn_id: a turn indexed for it
 * @error: return location for a #GError
 *
 * Removes the row of @turn_id of @session_id and its words: a turn the
 * session showed from a deleted parent that is there again. Nothing to
 * remove is no error.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_remove_turn (NatterSearchDb  *db,
                              const char      *session_id,
                              const char      *turn_id,
                              GError         **error)
{
  static const Stmt order[] = { STMT_DELETE_TEXT, STMT_DELETE_TURN };
  gint64 id = find_turn (db, session_id, turn_id, error);

  if (id < 0)
    return FALSE;
  for (guint i = 0; id > 0 && i < G_N_ELEMENTS (order); i++)
    {
      sqlite3_stmt *s = stmt (db, order[i], error);

      if (s == NULL)
        return FALSE;
      sqlite3_bind_int64 (s, 1, id);
      if (!run (db, s, error))
        return FALSE;
    }
  return TRUE;
}

/* The first column of every row @s gives, as session ids; @s is reset. */
static GStrv
list_ids (NatterSearchDb  *db,
          sqlite3_stmt    *s,
          GError         **error)
{
  g_autoptr(GStrvBuilder) ids = g_strv_builder_new ();
  int rc;

  while ((rc = sqlite3_step (s)) == SQLITE_ROW)
    g_strv_builder_add (ids, (const char *) sqlite3_column_text (s, 0));
  sqlite3_reset (s);
  if (rc != SQLITE_DONE)
    {
      set_error (db, rc, "reading", error);
      return NULL;
    }
  return g_strv_builder_end (ids);
}

/**
 * natter_search_db_list_stale_heirs:
 * @db: a connection
 * @parent_session: (nullable): only the sessions branched from this one
 * @error: return location for a #GError
 *
 * The sessions indexed as their parent's existence was then, not as it
 * is now (natter_search_db_put_session()'s @parent_gone): those to
 * index again, with or without the turns they show from it. A parent
 * is there when the index holds it, so ask once every session is in.
 *
 * Returns: (transfer full): the session ids; %NULL with a
 *   %NATTER_SEARCH_DB_ERROR
 */
GStrv
natter_search_db_list_stale_heirs (NatterSearchDb  *db,
                                   const char      *parent_session,
                                   GError         **error)
{
  sqlite3_stmt *s = stmt (db, parent_session != NULL ? STMT_LIST_HEIRS : STMT_LIST_STALE_HEIRS, error);

  if (s == NULL)
    return NULL;
  if (parent_session != NULL)
    sqlite3_bind_text (s, 1, parent_session, -1, SQLITE_STATIC);
  return list_ids (db, s, error);
}

/**
 * natter_search_db_list_unreadable:
 * @db: a connection
 * @error: return location for a #GError
 *
 * The sessions with a turn whose file could not be read when it was
 * indexed (natter_search_db_put_turn()): their words may be in that
 * turn, which no search finds.
 *
 * Returns: (transfer full): the session ids, sorted; %NULL with a
 *   %NATTER_SEARCH_DB_ERROR
 */
GStrv
natter_search_db_list_unreadable (NatterSearchDb  *db,
                                  GError         **error)
{
  sqlite3_stmt *s = stmt (db, STMT_LIST_UNREADABLE, error);

  return s != NULL ? list_ids (db, s, error) : NULL;
}

/**
 * natter_search_db_remove_session:
 * @db: a writing connection
 * @session_id: a session
 * @error: return location for a #GError
 *
 * Removes every row of @session_id. Nothing to remove is no error.
 *
 * Returns: %TRUE on success; else %FALSE with a %NATTER_SEARCH_DB_ERROR
 */
gboolean
natter_search_db_remove_session (NatterSearchDb  *db,
                                 const char      *session_id,
                                 GError         **error)
{
  static const Stmt order[] = { STMT_REMOVE_TEXTS, STMT_REMOVE_TURNS, STMT_REMOVE_SESSION };

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      sqlite3_stmt *s = stmt (db, order[i], error);

      if (s == NULL)
        return FALSE;
      sqlite3_bind_text (s, 1, session_id, -1, SQLITE_STATIC);
      if (!run (db, s, error))
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_search_hit_free:
 * @hit: (transfer full) (nullable): a hit
 */
void
natter_search_hit_free (NatterSearchHit *hit)
{
  if (hit == NULL)
    return;
  g_free (hit->session_id);
  g_free (hit->turn_id);
  g_free (hit->snippet);
  g_free (hit);
}

/* Better first: higher score, then newer. */
static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const NatterSearchMatch *x = a;
  const NatterSearchMatch *y = b;

  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  return x->rowid > y->rowid ? -1 : x->rowid < y->rowid;
}

/* The hit of a kept @match: its turn, and the words around its first
 * match (natter-search-excerpt.c, natter-search-snippet.c). %NULL without
 * an error when the turn is gone. */
static NatterSearchHit *
hit_of (NatterSearchDb              *db,
        const NatterSearchMatches   *matches,
        const NatterSearchMatch     *match,
        GError                     **error)
{
  g_autoptr(NatterSearchHit) hit = NULL;
  g_autofree char *excerpt = NULL;
  sqlite3_stmt *s = stmt (db, STMT_HIT, error);
  int rc;

  if (s == NULL)
    return NULL;
  sqlite3_bind_int64 (s, 1, match->rowid);
  rc = sqlite3_step (s);
  if (rc == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (s, 2 + match->column);

      excerpt = natter_search_excerpt_cut (db->tokenizer, text, sqlite3_column_bytes (s, 2 + match->column),
                                           &g_array_index (matches->tokens, int, match->first), match->n_tokens,
                                           &rc);
      if (excerpt != NULL)
        {
          hit = g_new0 (NatterSearchHit, 1);
          hit->session_id = g_strdup ((const char *) sqlite3_column_text (s, 0));
          hit->turn_id = g_strdup ((const char *) sqlite3_column_text (s, 1));
          hit->snippet = natter_search_snippet_from_highlight (excerpt, SNIPPET_WORDS);
          rc = SQLITE_DONE;
        }
    }
  sqlite3_reset (s);
  if (rc != SQLITE_DONE)
    set_error (db, rc, "searching", error);
  return g_steal_pointer (&hit);
}

static GPtrArray *match_phrases (const char *text);

/* natter_search_db_query() inside its read transaction. */
/* The counts @db knows of the @phrases, -1 where it knows none, as of
 * the snapshot of the running read transaction. */
static gint64 *
known_counts (NatterSearchDb  *db,
              GPtrArray       *phrases,
              GError         **error)
{
  sqlite3_stmt *s = stmt (db, STMT_DATA_VERSION, error);
  gint64 *counts;
  gint64 version;
  int rc;

  if (s == NULL)
    return NULL;
  rc = sqlite3_step (s);
  version = rc == SQLITE_ROW ? sqlite3_column_int64 (s, 0) : -1;
  sqlite3_reset (s);
  if (rc != SQLITE_ROW)
    {
      set_error (db, rc, "searching", error);
      return NULL;
    }
  if (db->phrase_counts == NULL || version != db->counts_version)
    {
      g_clear_pointer (&db->phrase_counts, g_hash_table_unref);
      g_clear_pointer (&db->prefix_terms, g_hash_table_unref);
      db->phrase_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
      db->prefix_terms = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                (GDestroyNotify) g_ptr_array_unref);
      db->counts_version = version;
    }
  counts = g_new (gint64, MAX (phrases->len, 1));
  for (guint i = 0; i < phrases->len; i++)
    {
      gint64 *known = g_hash_table_lookup (db->phrase_counts, g_ptr_array_index (phrases, i));

      counts[i] = known != NULL ? *known : -1;
    }
  return counts;
}

/* The text a phrase of match_phrases() quotes. */
static char *
phrase_text (const char *phrase)
{
  GString *text = g_string_new (NULL);

  /* Between the opening quote and the closing quote and star. */
  for (const char *p = phrase + 1; p[2] != '\0'; p++)
    {
      g_string_append_c (text, *p);
      if (*p == '"')
        p++;
    }
  return g_string_free (text, FALSE);
}

/* The terms of the table that begin with @prefix, each found by a seek
 * in the index; none when there are more than MAX_TERMS (the prefix is
 * then searched as it is). %NULL with an error. */
static GPtrArray *
seek_terms (NatterSearchDb  *db,
            const char      *prefix,
            GError         **error)
{
  g_autoptr(GPtrArray) terms = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) from = g_string_new (prefix);

  /* What the terms are sought in; TEMP, nothing in the file. Made when
   * first needed, so that a connection that never seeks does not. */
  if (!db->has_terms &&
      !exec (db, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.turn_terms USING fts5vocab(main, turn_text, instance)",
             error))
    return NULL;
  db->has_terms = TRUE;
  while (terms->len <= MAX_TERMS)
    {
      sqlite3_stmt *s = stmt (db, STMT_NEXT_TERM, error);
      const char *term;
      int rc;

      if (s == NULL)
        return NULL;
      sqlite3_bind_text (s, 1, from->str, (int) from->len, SQLITE_STATIC);
      rc = sqlite3_step (s);
      term = rc == SQLITE_ROW ? (const char *) sqlite3_column_text (s, 0) : NULL;
      if (term != NULL && g_str_has_prefix (term, prefix))
        {
          g_ptr_array_add (terms, g_strdup (term));
          /* Past it: no term goes on with a control character. */
          g_string_assign (from, term);
          g_string_append_c (from, '\x01');
        }
      else if (rc == SQLITE_ROW)
        rc = SQLITE_DONE;
      sqlite3_reset (s);
      if (rc == SQLITE_DONE)
        return g_steal_pointer (&terms);
      if (rc != SQLITE_ROW)
        {
          set_error (db, rc, "searching", error);
          return NULL;
        }
    }
  g_ptr_array_set_size (terms, 0);
  return g_steal_pointer (&terms);
}

/* The terms of @prefix kept for a shorter prefix of it, when all of
 * them were, or %NULL. */
static GPtrArray *
terms_from_shorter (NatterSearchDb *db,
                    const char     *prefix)
{
  for (const char *end = g_utf8_find_prev_char (prefix, prefix + strlen (prefix));
       end != NULL && end > prefix;
       end = g_utf8_find_prev_char (prefix, end))
    {
      g_autofree char *shorter = g_strndup (prefix, end - prefix);
      GPtrArray *known = g_hash_table_lookup (db->prefix_terms, shorter);

      if (known != NULL && known->len > 0)
        {
          GPtrArray *terms = g_ptr_array_new_with_free_func (g_free);

          for (guint i = 0; i < known->len; i++)
            if (g_str_has_prefix (g_ptr_array_index (known, i), prefix))
              g_ptr_array_add (terms, g_strdup (g_ptr_array_index (known, i)));
          return terms;
        }
    }
  return NULL;
}

/* The terms of the table that begin with the word of @phrase, when there
 * are at most MAX_TERMS; else (or when the word is not one token, or no
 * longer than a prefix index, which serves it better; a shorter one
 * begins too many terms) %NULL without an error. A seek in the index
 * finds each, which is cheaper than FTS5's own way with a prefix it
 * keeps no index of: it gathers the rows of every such term, with their
 * positions, into one list before the first row, and again for each
 * count of the prefix's rows. A prefix of many rare terms loses a little
 * (bench/README.md, "Two-word query, first run"). */
static GPtrArray *
prefix_terms (NatterSearchDb  *db,
              const char      *phrase,
              gboolean        *failed,
              GError         **error)
{
  g_autofree char *text = phrase_text (phrase);
  g_autofree char *prefix = NULL;
  GPtrArray *terms;
  glong n_chars;
  int rc = SQLITE_OK;

  *failed = FALSE;
  prefix = natter_search_tokenizer_only_token (db->tokenizer, text, &rc);
  if (rc != SQLITE_OK)
    {
      *failed = TRUE;
      set_error (db, rc, "searching", error);
      return NULL;
    }
  n_chars = prefix != NULL ? g_utf8_strlen (prefix, -1) : 0;
  if (prefix == NULL || n_chars <= PREFIX_INDEX_1)
    return NULL;
  terms = g_hash_table_lookup (db->prefix_terms, prefix);
  if (terms != NULL)
    g_ptr_array_ref (terms);
  else if ((terms = terms_from_shorter (db, prefix)) != NULL ||
           (terms = seek_terms (db, prefix, error)) != NULL)
    g_hash_table_insert (db->prefix_terms, g_strdup (prefix), g_ptr_array_ref (terms));
  else
    {
      *failed = TRUE;
      return NULL;
    }
  return terms;
}

/* The match expression of @phrases: each as it is, or as the few terms
 * of the table it is a prefix of (prefix_terms()), ORed; @words gets the
 * phrase each of the expression's phrases stands for
 * (NatterSearchMatches.words). */
static char *
match_expression (NatterSearchDb  *db,
                  GPtrArray       *phrases,
                  GArray          *words,
                  GError         **error)
{
  g_autoptr(GString) match = g_string_new (NULL);

  for (guint i = 0; i < phrases->len; i++)
    {
      const char *phrase = g_ptr_array_index (phrases, i);
      gboolean failed = FALSE;
      g_autoptr(GPtrArray) terms = prefix_terms (db, phrase, &failed, error);

      if (failed)
        return NULL;
      if (i > 0)
        g_string_append (match, " AND ");
      /* No term, or too many: the prefix as it is (FTS5 finds no term
       * fast). */
      if (terms == NULL || terms->len == 0)
        {
          g_string_append (match, phrase);
          g_array_append_val (words, i);
          continue;
        }
      if (terms->len > 1)
        g_string_append_c (match, '(');
      for (guint t = 0; t < terms->len; t++)
        {
          g_auto(GStrv) parts = g_strsplit (g_ptr_array_index (terms, t), "\"", -1);
          g_autofree char *quoted = g_strjoinv ("\"\"", parts);

          g_string_append_printf (match, "%s\"%s\"", t > 0 ? " OR " : "", quoted);
          g_array_append_val (words, i);
        }
      if (terms->len > 1)
        g_string_append_c (match, ')');
    }
  return g_string_free (g_steal_pointer (&match), FALSE);
}

static GPtrArray *
query_snapshot (NatterSearchDb  *db,
                GPtrArray       *phrases,
                guint            limit,
                guint            cap,
                gboolean        *out_capped,
                GError         **error)
{
  g_autoptr(GPtrArray) hits = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_search_hit_free);
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (NatterSearchMatch));
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) answer = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) words = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint64 *counts = known_counts (db, phrases, error);
  g_autofree char *match = counts != NULL ? match_expression (db, phrases, words, error) : NULL;
  NatterSearchMatches matches = { rows, tokens, answer, counts, phrases->len, (guint *) words->data, words->len };
  sqlite3_stmt *s;
  int rc;

  if (match == NULL || (s = stmt (db, STMT_MATCHES, error)) == NULL)
    return NULL;
  sqlite3_bind_text (s, 1, match, -1, SQLITE_STATIC);
  sqlite3_bind_pointer (s, 2, &matches, NATTER_SEARCH_MATCHES_POINTER, NULL);
  sqlite3_bind_int64 (s, 3, (sqlite3_int64) cap + 1);
  while ((rc = sqlite3_step (s)) == SQLITE_ROW)
    ;
  sqlite3_reset (s);
  if (rc != SQLITE_DONE)
    {
      set_error (db, rc, "searching", error);
      return NULL;
    }
  /* A query of one phrase counts nothing (it is ranked without), but
   * one that the cap did not stop walked every row that holds it: its
   * count comes free, so that a word typed after it is the only one
   * left to count. */
  if (phrases->len == 1 && counts[0] < 0 && rows->len <= cap)
    counts[0] = rows->len;
  /* What natter_match() counted, for the next query on this snapshot's
   * table. */
  for (guint i = 0; i < phrases->len; i++)
    if (counts[i] >= 0 && !g_hash_table_contains (db->phrase_counts, g_ptr_array_index (phrases, i)))
      g_hash_table_insert (db->phrase_counts, g_strdup (g_ptr_array_index (phrases, i)),
                           g_memdup2 (&counts[i], sizeof counts[i]));

  /* The row past the cap, the oldest, only says that there are more. */
  *out_capped = rows->len > cap;
  if (rows->len > cap)
    g_array_set_size (rows, cap);

  g_array_sort (rows, compare_matches);
  for (guint i = 0; i < rows->len && hits->len < limit; i++)
    {
      GError *local = NULL;
      NatterSearchHit *hit = hit_of (db, &matches, &g_array_index (rows, NatterSearchMatch, i), &local);

      if (local != NULL)
        {
          g_propagate_error (error, local);
          return NULL;
        }
      if (hit != NULL)
        g_ptr_array_add (hits, hit);
    }
  return g_steal_pointer (&hits);
}

/**
 * natter_search_db_query:
 * @db: a connection
 * @text: what the user typed
 * @limit: at most this many hits
 * @cap: how many of the newest matching turns are ranked at most
 *   (%NATTER_SEARCH_MATCH_CAP but in tests)
 * @out_capped: (out) (optional): set to whether more turns than @cap
 *   matched, so that the older ones were not ranked
 * @error: return location for a #GError
 *
 * Searches the user messages and answers for every word of @text (each a
 * prefix of a word, case and accents ignored; see
 * natter_search_build_match_expression()), best match first (BM25)
 * among the newest @cap matching turns (a word found more often than
 * that is ranked within its most recent uses, so that no query takes
 * longer than a few milliseconds). A @text without any word matches
 * nothing.
 *
 * Returns: (transfer full) (element-type NatterSearchHit): the hits;
 *   %NULL with a %NATTER_SEARCH_DB_ERROR
 */
GPtrArray *
natter_search_db_query (NatterSearchDb  *db,
                        const char      *text,
                        guint            limit,
                        guint            cap,
                        gboolean        *out_capped,
                        GError         **error)
{
  g_autoptr(GPtrArray) phrases = match_phrases (text);
  g_autoptr(GPtrArray) hits = NULL;
  GError *end_error = NULL;
  gboolean capped = FALSE;
  sqlite3_stmt *s;

  g_return_val_if_fail (cap > 0, NULL);

  if (out_capped != NULL)
    *out_capped = FALSE;
  if (phrases == NULL)
    return g_ptr_array_new_with_free_func ((GDestroyNotify) natter_search_hit_free);
  if ((s = stmt (db, STMT_BEGIN_READ, error)) == NULL || !run (db, s, error))
    return NULL;
  hits = query_snapshot (db, phrases, limit, cap, &capped, error);
  /* Ends the read, whether the query failed or not. */
  if ((s = stmt (db, STMT_COMMIT, &end_error)) == NULL || !run (db, s, &end_error))
    {
      if (hits != NULL)
        g_propagate_error (error, end_error);
      else
        g_clear_error (&end_error);
      g_clear_pointer (&hits, g_ptr_array_unref);
    }
  /* temp.turn_terms is made inside the read transaction (seek_terms()),
   * and SQLite takes it back with a transaction that a damaged page
   * ends: after a failure it is made again (IF NOT EXISTS) rather than
   * believed there. Else every later search on the connection said "no
   * such table", which hid that the file is damaged and is to be
   * rebuilt. */
  if (hits == NULL)
    {
      db->has_terms = FALSE;
      return NULL;
    }
  if (out_capped != NULL)
    *out_capped = capped;
  return g_steal_pointer (&hits);
}

/* Query text and snippets */

static gboolean
has_word_character (const char *term)
{
  for (const char *p = term; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_isalnum (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

/* The phrases of natter_search_build_match_expression(), in order, each
 * a quoted term and a prefix query; %NULL when there is none. */
static GPtrArray *
match_phrases (const char *text)
{
  g_autoptr(GPtrArray) phrases = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) terms = NULL;

  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    return NULL;
  terms = g_strsplit_set (text, " \t\n\r\f\v", -1);
  for (guint i = 0; terms[i] != NULL; i++)
    {
      GString *phrase;

      if (!has_word_character (terms[i]))
        continue;
      phrase = g_string_new ("\"");
      for (const char *p = terms[i]; *p != '\0'; p++)
        {
          if (*p == '"')
            g_string_append_c (phrase, '"');
          g_string_append_c (phrase, *p);
        }
      g_string_append (phrase, "\"*");
      g_ptr_array_add (phrases, g_string_free (phrase, FALSE));
    }
  if (phrases->len == 0)
    return NULL;
  return g_steal_pointer (&phrases);
}

/**
 * natter_search_build_match_expression:
 * @text: what the user typed (UTF-8)
 *
 * Turns free text into an FTS5 match expression that cannot be read as
 * FTS5 syntax: every whitespace-separated term becomes a quoted string
 * (inner `"` doubled) and a prefix query, and all terms must match.
 * `AND`, `NEAR(`, `col:`, `*` or a lone `"` are therefore only words.
 * Terms without a letter or digit are dropped.
 *
 * Returns: (transfer full) (nullable): the expression, or %NULL when
 *   @text has no term with a word in it
 */
char *
natter_search_build_match_expression (const char *text)
{
  g_autoptr(GPtrArray) phrases = match_phrases (text);

  if (phrases == NULL)
    return NULL;
  g_ptr_array_add (phrases, NULL);
  return g_strjoinv (" ", (char **) phrases->pdata);
}
