/* test-hostile.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What came from a file or a server is trusted for nothing: each case
 * runs the real `natter` binary ($NATTER_BIN) on a data directory with
 * one hostile thing in it (a session file whose events are out of order,
 * a folder where the search cache belongs, a file named like an image
 * that is not one, a damaged PDF, a broken mcp.json) beside a whole
 * conversation, and holds it to the same promises: a clear error on one
 * `natter:` line and nothing else on standard error, a non-zero exit
 * status, no file rewritten, no wait longer than a few seconds (every
 * run is bounded), and the other conversation as it was.
 */

#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "natter-test-server.h"
#include "natter-test-support.h"

/* A command that waits on a pipe, a server or a lock fails the test
 * rather than hanging it. */
#define WAIT_MS 10000

#define WHOLE   "2026-11-30T09-14-03Z-0000001-000"
#define DAMAGED "2026-11-30T09-14-03Z-0000002-000"
#define G1      "2026-11-30T09-14-03Z-0000010-000"
#define TS      "2026-11-30T09:14:03.100Z"
#define HEAD(type, sid) "{\"type\":\"" type "\",\"sessionId\":\"" sid "\",\"ts\":\"" TS "\""

typedef struct
{
  GFile *dir;        /* NATTER_DATA_DIR and XDG_CONFIG_HOME */
  GFile *files;      /* what the user attaches, outside the data directory */
} Fixture;

static void
write_path (const char *path,
            const void *data,
            gssize      length)
{
  g_autofree char *parent = g_path_get_dirname (path);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_file_set_contents (path, data, length, &error);
  g_assert_no_error (error);
}

static char *
session_path (Fixture    *f,
              const char *session_id)
{
  return g_build_filename (g_file_peek_path (f->dir), "storage", "sessions", "2026", "11", "30",
                           session_id, NULL);
}

static void
write_session (Fixture    *f,
               const char *session_id,
               const char *contents)
{
  g_autofree char *base = session_path (f, session_id);
  g_autofree char *path = g_strconcat (base, ".jsonl", NULL);

  write_path (path, contents, -1);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->files = natter_test_make_temp_dir ();
  /* The conversation that must stay as it was. */
  write_session (f, WHOLE, HEAD ("session_created", WHOLE) ",\"schemaVersion\":1,\"title\":\"Koalas\"}\n");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_remove_tree (f->dir);
  natter_test_remove_tree (f->files);
  g_object_unref (f->dir);
  g_object_unref (f->files);
}

#define RUN(f, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    natter_test_cli_run ((f)->dir, run_args_, (result), WAIT_MS); \
  } G_STMT_END

/* Every file of the data directory (but the search cache, which is the
 * index's to rewrite): relative path → contents. */
static GHashTable *
snapshot (Fixture *f)
{
  GHashTable *files = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) paths = natter_test_list_files (f->dir, "storage");

  for (guint i = 0; i < paths->len; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (g_ptr_array_index (paths, i));
      char *contents = NULL;

      g_assert_true (g_file_get_contents (g_ptr_array_index (paths, i), &contents, NULL, NULL));
      g_hash_table_insert (files, g_file_get_relative_path (f->dir, file), contents);
    }
  return files;
}

/* Nothing was written, changed or removed; the lock file aside. */
static void
assert_unchanged (Fixture    *f,
                  GHashTable *before)
{
  g_autoptr(GHashTable) after = snapshot (f);
  GHashTableIter iter;
  gpointer path, contents;

  g_hash_table_remove (after, "storage/.lock");
  g_hash_table_remove (before, "storage/.lock");
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &path, &contents))
    {
      if (!g_hash_table_contains (after, path))
        g_error ("%s went away", (char *) path);
      g_assert_cmpstr (g_hash_table_lookup (after, path), ==, contents);
    }
  g_hash_table_iter_init (&iter, after);
  while (g_hash_table_iter_next (&iter, &path, NULL))
    if (!g_hash_table_contains (before, path))
      g_error ("%s was written", (char *) path);
}

/* A failure said on one `natter:` line, and nothing else said. */
static void
assert_one_error_line (NatterTestRun *r,
                       const char    *part)
{
  g_test_message ("%s", r->err);
  g_assert_cmpint (r->status, ==, 1);
  g_assert_true (g_str_has_prefix (r->err, "natter: "));
  g_assert_cmpint (strchr (r->err, '\n') - r->err, ==, (int) strlen (r->err) - 1);
  if (strstr (r->err, part) == NULL)
    g_error ("“%s” does not say “%s”", r->err, part);
}

/* The other conversation still reads whole. */
static void
assert_whole_unaffected (Fixture *f)
{
  g_auto(NatterTestRun) r;

  RUN (f, &r, "show", WHOLE);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Koalas"));
}

/* Events each well-formed but out of order: the error names the file
 * and the line, as it does for a malformed line. */
static void
test_ordering_error (Fixture       *f,
                     gconstpointer  data)
{
  static const struct { const char *contents; const char *says; } files[] = {
    { HEAD ("session_created", DAMAGED) ",\"schemaVersion\":2}\n"
      HEAD ("permission_grant_added", DAMAGED) ",\"grantId\":\"" G1 "\",\"toolId\":\"read_file\"}\n"
      HEAD ("permission_grant_added", DAMAGED) ",\"grantId\":\"" G1 "\",\"toolId\":\"list_directory\"}\n",
      "used more than once" },
    { HEAD ("session_created", DAMAGED) ",\"schemaVersion\":1}\n"
      HEAD ("title_changed", DAMAGED) ",\"title\":\"T\"}\n"
      HEAD ("permission_grant_added", DAMAGED) ",\"grantId\":\"" G1 "\",\"toolId\":\"read_file\"}\n",
      "needs session schema version 2" },
  };
  g_autofree char *base = session_path (f, DAMAGED);
  g_autofree char *where = g_strdup_printf ("%s.jsonl:3: ", base);

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_auto(NatterTestRun) r;
      g_autoptr(GHashTable) before = NULL;

      write_session (f, DAMAGED, files[i].contents);
      before = snapshot (f);

      RUN (f, &r, "show", DAMAGED);
      assert_one_error_line (&r, where);
      g_assert_nonnull (strstr (r.err, files[i].says));
      natter_test_run_clear (&r);

      RUN (f, &r, "sessions");
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, where));

      assert_unchanged (f, before);
      assert_whole_unaffected (f);
    }
}

/* A folder with something in it where the search cache belongs: it is
 * neither opened nor removed, and the search says so; an empty one is
 * replaced by a private file. A damaged conversation is named, its
 * title's control characters made visible. */
static void
test_search_cache_not_a_file (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (f->dir, "cache/search.sqlite");
  g_autofree char *inside = g_build_filename (g_file_peek_path (cache), "mine.txt", NULL);
  g_auto(NatterTestRun) r;
  struct stat info;

  write_path (inside, "mine", -1);
  RUN (f, &r, "search", "koalas");
  assert_one_error_line (&r, g_file_peek_path (cache));
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
  assert_whole_unaffected (f);

  g_assert_cmpint (g_unlink (inside), ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "koalas");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (g_stat (g_file_peek_path (cache), &info), ==, 0);
  g_assert_true (S_ISREG (info.st_mode));
  g_assert_cmpint (info.st_mode & 0777, ==, 0600);

  /* Its title holds a terminal control: shown, not obeyed. */
  write_session (f, DAMAGED, HEAD ("session_created", DAMAGED) ",\"schemaVersion\":2,\"title\":\"Wombats\\u001b[2J\"}\n"
                 HEAD ("permission_grant_removed", DAMAGED) ",\"grantId\":\"" G1 "\"}\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombats");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "Damaged, not searched in full: " DAMAGED " “Wombats␛[2J”\n");
}

/* A file is what its bytes are, and one that cannot be read is refused
 * when it is attached: before any request, and nothing is stored. */
static void
test_attachment_from_content (Fixture       *f,
                              gconstpointer  data)
{
  static const struct { const char *name; const char *contents; gssize length; const char *says; } files[] = {
    { "fake.png", "not an image at all\n", -1, "“fake.png” is named like a PNG image, but it holds text" },
    { "broken.pdf", "%PDF-1.4\n1 0 obj\n<< /Type /Catalog", -1, "“broken.pdf” is a damaged PDF" },
  };
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(GFile) file = g_file_get_child (f->files, files[i].name);
      g_autoptr(GHashTable) before = snapshot (f);
      g_auto(NatterTestRun) r;

      write_path (g_file_peek_path (file), files[i].contents, files[i].length);
      RUN (f, &r, "ask", "--base-url", url, "--model", "m", "--attach", g_file_peek_path (file), "What is it?");
      assert_one_error_line (&r, files[i].says);
      assert_unchanged (f, before);
    }
  assert_whole_unaffected (f);
}

/* Over the limit by a byte: the two sizes differ where the user reads. */
static void
test_attachment_sizes_differ (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GFile) file = g_file_get_child (f->files, "big.txt");
  g_autofree char *text = g_strnfill (20000001, 'a');
  g_autoptr(GHashTable) before = snapshot (f);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  g_auto(NatterTestRun) r;

  write_path (g_file_peek_path (file), text, 20000001);
  RUN (f, &r, "ask", "--base-url", url, "--model", "m", "--attach", g_file_peek_path (file), "Summarize");
  assert_one_error_line (&r, "“big.txt” weighs");
  g_assert_nonnull (strstr (r.err, "20000001 bytes"));
  g_assert_nonnull (strstr (r.err, "20000000 bytes"));
  assert_unchanged (f, before);
}

/* A broken mcp.json is no log line on a command's standard error. */
static void
test_no_log_lines (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *config = g_build_filename (g_file_peek_path (f->dir), "natter", "mcp.json", NULL);
  g_auto(NatterTestRun) r;

  write_path (config, "{\"mcpServers\": ", -1);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_nonnull (strstr (r.out, WHOLE));
}

/* An archive and a ChatGPT export nested 100,000 deep (the process
 * crashed on them): each refused with its reason, nothing imported. */
static void
test_deep_import (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *open = g_strnfill (100000, '[');
  g_autofree char *close = g_strnfill (100000, ']');
  g_autofree char *archive = g_build_filename (g_file_peek_path (f->files), "deep.natter.json", NULL);
  g_autofree char *export = g_build_filename (g_file_peek_path (f->files), "conversations.json", NULL);
  g_autofree char *archive_text = g_strdup_printf ("{\"format\":\"natter-archive\",\"version\":1,"
                                                   "\"session\":%s%s,\"turns\":[]}", open, close);
  g_autofree char *export_text = g_strdup_printf ("[{\"title\":\"Deep\",\"mapping\":%s%s}]", open, close);
  g_autoptr(GHashTable) before = snapshot (f);
  g_auto(NatterTestRun) imported = { 0 };
  g_auto(NatterTestRun) chatgpt = { 0 };

  write_path (archive, archive_text, -1);
  write_path (export, export_text, -1);
  RUN (f, &imported, "import", archive);
  assert_one_error_line (&imported, "nests deeper than 520 levels");
  RUN (f, &chatgpt, "import", export, "--from", "chatgpt");
  g_test_message ("%s", chatgpt.err);
  g_assert_cmpint (chatgpt.status, ==, 1);
  g_assert_nonnull (strstr (chatgpt.err, "nests deeper than 512 levels"));
  assert_unchanged (f, before);
  assert_whole_unaffected (f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/hostile/ordering-error-names-file-and-line", test_ordering_error);
  ADD ("/hostile/search-cache-not-a-file", test_search_cache_not_a_file);
  ADD ("/hostile/attachment-from-content", test_attachment_from_content);
  ADD ("/hostile/attachment-sizes-differ", test_attachment_sizes_differ);
  ADD ("/hostile/no-log-lines", test_no_log_lines);
  ADD ("/hostile/deep-import", test_deep_import);
#undef ADD

  return g_test_run ();
}
