/* test-draft-store.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The drafts kept on disk (docs/format.md §10): a draft read back as
 * written, replaced whole, removed once empty; the new chat's beside the
 * conversations'; a key that is no id refused before any path is built;
 * a file that is no draft left as it is and told; what a write cut short
 * leaves beside a draft passed over, the draft still whole; files waiting
 * beside a draft kept with it, pasted bytes beside the drafts; a process
 * that is not the writer refused; the files readable by their owner only.
 */

#include <sys/stat.h>

#include <glib/gstdio.h>

#include "natter-draft-store.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

#define SESSION "2026-12-07T10-00-00Z-0000001-000"
#define OTHER   "2026-12-07T10-00-01Z-0000002-000"
#define TURN    "2026-12-07T10-00-02Z-0000003-000"

typedef struct
{
  GFile            *data_dir;
  NatterDraftStore *store;
} Fixture;

static void
set_up (Fixture       *f,
        gconstpointer  data)
{
  f->data_dir = natter_test_make_temp_dir ();
  f->store = natter_draft_store_new (f->data_dir);
}

static void
tear_down (Fixture       *f,
           gconstpointer  data)
{
  g_clear_object (&f->store);
  natter_test_remove_tree (f->data_dir);
  g_clear_object (&f->data_dir);
}

static char *
draft_path (Fixture    *f,
            const char *name)
{
  return g_build_filename (g_file_peek_path (f->data_dir), NATTER_DRAFTS_DIR_NAME, name, NULL);
}

static GHashTable *
load (Fixture   *f,
      GPtrArray *problems)
{
  return natter_draft_store_load_sync (f->store, problems);
}

/* Written, read back (by a store made afresh, as after a restart),
 * replaced whole, removed once empty. */
static void
test_round_trip (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) drafts = NULL;
  g_autoptr(NatterDraftStore) again = NULL;
  g_autofree char *path = draft_path (f, SESSION ".json");
  NatterDraft *draft;
  struct stat st;

  drafts = load (f, NULL);
  g_assert_cmpuint (g_hash_table_size (drafts), ==, 0);
  g_clear_pointer (&drafts, g_hash_table_unref);

  g_assert_true (natter_test_save_draft (f->store, SESSION, "Half a thought\nand a \"quote\" ✓", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (natter_test_save_draft (f->store, NATTER_DRAFT_NEW_CHAT, "Something new", NULL, NULL, &error));
  g_assert_true (natter_test_save_draft (f->store, OTHER, "A better question", TURN, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);

  again = natter_draft_store_new (f->data_dir);
  drafts = natter_draft_store_load_sync (again, NULL);
  g_assert_cmpuint (g_hash_table_size (drafts), ==, 3);
  draft = g_hash_table_lookup (drafts, SESSION);
  g_assert_cmpstr (draft->text, ==, "Half a thought\nand a \"quote\" ✓");
  g_assert_null (draft->edits_turn_id);
  draft = g_hash_table_lookup (drafts, NATTER_DRAFT_NEW_CHAT);
  g_assert_cmpstr (draft->text, ==, "Something new");
  draft = g_hash_table_lookup (drafts, OTHER);
  g_assert_cmpstr (draft->text, ==, "A better question");
  g_assert_cmpstr (draft->edits_turn_id, ==, TURN);
  g_clear_pointer (&drafts, g_hash_table_unref);

  /* Replaced whole: the edit becomes a plain message. */
  g_assert_true (natter_test_save_draft (f->store, OTHER, "Plain", NULL, NULL, &error));
  drafts = load (f, NULL);
  draft = g_hash_table_lookup (drafts, OTHER);
  g_assert_cmpstr (draft->text, ==, "Plain");
  g_assert_null (draft->edits_turn_id);
  g_clear_pointer (&drafts, g_hash_table_unref);

  /* Emptied: gone, and removing what is gone is no error. */
  g_assert_true (natter_test_save_draft (f->store, SESSION, "", NULL, NULL, &error));
  g_assert_true (natter_test_save_draft (f->store, SESSION, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  drafts = load (f, NULL);
  g_assert_false (g_hash_table_contains (drafts, SESSION));
  g_assert_cmpuint (g_hash_table_size (drafts), ==, 2);
}

/* A key becomes a file name: what is no id never reaches the disk. */
static void
test_bad_key_refused (Fixture       *f,
                      gconstpointer  data)
{
  const char *bad[] = { "../escape", "new-chat", "a/b", "2026-13-07T10-00-00Z-0000001-000" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (natter_test_save_draft (f->store, bad[i], "text", NULL, NULL, &error));
      g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
    }
  {
    g_autoptr(GError) error = NULL;

    g_assert_false (natter_test_save_draft (f->store, SESSION, "text", "../turn", NULL, &error));
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
  }
  {
    g_autofree char *dir = draft_path (f, "");

    g_assert_false (g_file_test (dir, G_FILE_TEST_EXISTS));
  }
}

/* A file that is no draft is told, with its path, and left byte for
 * byte; the drafts beside it are read. A write cut short leaves a file
 * that is not a draft's name: the draft it was to replace is whole. */
static void
test_damaged_told_and_kept (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GHashTable) drafts = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *broken = draft_path (f, OTHER ".json");
  g_autofree char *empty_text = draft_path (f, TURN ".json");
  g_autofree char *stranger = draft_path (f, "notes.json");
  g_autofree char *torn = draft_path (f, SESSION ".json.Q7X2ZB");
  g_autofree char *contents = NULL;
  gboolean told_broken = FALSE;

  g_assert_true (natter_test_save_draft (f->store, SESSION, "Whole", NULL, NULL, &error));
  g_assert_true (g_file_set_contents (broken, "{\"text\": \"cut", -1, NULL));
  g_assert_true (g_file_set_contents (empty_text, "{\"text\": \"\"}", -1, NULL));
  g_assert_true (g_file_set_contents (stranger, "{}", -1, NULL));
  g_assert_true (g_file_set_contents (torn, "{\"text\": \"Wh", -1, NULL));

  drafts = load (f, problems);
  g_assert_cmpuint (g_hash_table_size (drafts), ==, 1);
  g_assert_cmpstr (((NatterDraft *) g_hash_table_lookup (drafts, SESSION))->text, ==, "Whole");
  g_assert_cmpuint (problems->len, ==, 3);
  for (guint i = 0; i < problems->len; i++)
    {
      const GError *problem = g_ptr_array_index (problems, i);

      g_assert_error (problem, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
      g_assert_null (strstr (problem->message, SESSION));
      told_broken = told_broken || strstr (problem->message, broken) != NULL;
    }
  g_assert_true (told_broken);
  g_assert_true (g_file_get_contents (broken, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\": \"cut");
  g_assert_true (g_file_test (stranger, G_FILE_TEST_EXISTS));
}

/* An edit keeps the words it set aside, read back with it; they belong
 * to an edit and are words, so a file that has them otherwise is told
 * and kept as it is. */
static void
test_set_aside (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GHashTable) drafts = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *without_edit = draft_path (f, OTHER ".json");
  g_autofree char *empty_aside = draft_path (f, TURN ".json");
  NatterDraft *draft;

  g_assert_true (natter_test_save_draft (f->store, SESSION, "A better wording", TURN,
                                               "Words of a next\nmessage", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (without_edit, "{\"text\": \"a\", \"setAside\": \"b\"}", -1, NULL));
  g_assert_true (g_file_set_contents (empty_aside, "{\"text\": \"a\", \"editsTurnId\": \"" TURN "\", "
                                      "\"setAside\": \"\"}", -1, NULL));

  drafts = load (f, problems);
  g_assert_cmpuint (g_hash_table_size (drafts), ==, 1);
  draft = g_hash_table_lookup (drafts, SESSION);
  g_assert_cmpstr (draft->text, ==, "A better wording");
  g_assert_cmpstr (draft->edits_turn_id, ==, TURN);
  g_assert_cmpstr (draft->set_aside, ==, "Words of a next\nmessage");
  g_assert_cmpuint (problems->len, ==, 2);
  for (guint i = 0; i < problems->len; i++)
    {
      const GError *problem = g_ptr_array_index (problems, i);

      g_assert_error (problem, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
      g_assert_nonnull (strstr (problem->message, "setAside"));
    }
  g_assert_true (g_file_test (without_edit, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (empty_aside, G_FILE_TEST_EXISTS));

  /* Written again as a plain message: nothing set aside any more. */
  g_assert_true (natter_test_save_draft (f->store, SESSION, "Words of a next\nmessage", NULL, NULL, &error));
  g_clear_pointer (&drafts, g_hash_table_unref);
  drafts = load (f, NULL);
  draft = g_hash_table_lookup (drafts, SESSION);
  g_assert_null (draft->edits_turn_id);
  g_assert_null (draft->set_aside);
}

/* Files waiting beside a draft are kept with it: a file by its URI,
 * what was pasted by its bytes beside the drafts (named by their
 * SHA-256, one file for the same bytes in two drafts), removed once no
 * draft names them; a draft of files alone has empty words. Pasted
 * bytes that changed, or attachments that are not as the format has
 * them, make the draft unreadable: told, and left as it is with what it
 * names. */
static void
test_attachments (Fixture       *f,
                  gconstpointer  data)
{
  static const char png[] = "\x89PNG not really an image";
  g_autoptr(GBytes) pasted = g_bytes_new_static (png, sizeof png - 1);
  g_autoptr(NatterDraft) draft = natter_draft_new ("Look at these", NULL, NULL);
  g_autoptr(NatterDraft) files_only = natter_draft_new (NULL, NULL, NULL);
  g_autoptr(NatterDraft) other = NULL;
  g_autoptr(GHashTable) drafts = NULL;
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *hash = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, pasted);
  g_autofree char *pasted_dir = draft_path (f, "pasted");
  g_autofree char *pasted_path = g_build_filename (pasted_dir, hash, NULL);
  g_autofree char *path = draft_path (f, SESSION ".json");
  g_autofree char *bad = draft_path (f, TURN ".json");
  g_autofree char *contents = NULL;
  NatterDraft *read;
  NatterDraftAttachment *attachment;

  natter_draft_add_file (draft, "file:///home/someone/Report%20final.pdf");
  natter_draft_add_bytes (draft, pasted, "Pasted image.png", "image/png");
  natter_draft_add_bytes (files_only, pasted, "Pasted image.png", "image/png");
  g_assert_true (natter_draft_store_save_sync (f->store, SESSION, draft, &error));
  g_assert_no_error (error);
  g_assert_true (natter_draft_store_save_sync (f->store, OTHER, files_only, &error));
  g_assert_true (g_file_test (pasted_path, G_FILE_TEST_IS_REGULAR));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_nonnull (strstr (contents, "\"uri\":\"file:///home/someone/Report%20final.pdf\""));
  g_assert_nonnull (strstr (contents, hash));

  drafts = load (f, problems);
  g_assert_cmpuint (problems->len, ==, 0);
  read = g_hash_table_lookup (drafts, SESSION);
  g_assert_true (natter_draft_equal (read, draft));
  attachment = g_ptr_array_index (read->attachments, 1);
  g_assert_true (g_bytes_equal (attachment->bytes, pasted));
  g_assert_cmpstr (attachment->name, ==, "Pasted image.png");
  g_assert_cmpstr (attachment->media_type, ==, "image/png");
  read = g_hash_table_lookup (drafts, OTHER);
  g_assert_cmpstr (read->text, ==, "");
  g_assert_true (natter_draft_equal (read, files_only));
  g_clear_pointer (&drafts, g_hash_table_unref);

  /* One draft lets go of the pasted bytes: the other still names them. */
  other = natter_draft_new ("Look at this", NULL, NULL);
  natter_draft_add_file (other, "file:///home/someone/Report%20final.pdf");
  g_assert_true (natter_draft_store_save_sync (f->store, SESSION, other, &error));
  g_assert_true (g_file_test (pasted_path, G_FILE_TEST_IS_REGULAR));
  /* Sent: no draft names them any more. */
  g_assert_true (natter_draft_store_save_sync (f->store, OTHER, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (g_file_test (pasted_path, G_FILE_TEST_EXISTS));

  /* Pasted bytes changed on disk: the draft is told, and nothing it
   * names goes, even when another draft is written. */
  g_assert_true (natter_draft_store_save_sync (f->store, OTHER, files_only, &error));
  g_assert_true (g_file_set_contents (pasted_path, "something else", -1, NULL));
  g_assert_true (g_file_set_contents (bad, "{\"text\": \"\", \"attachments\": [{\"uri\": \"no uri\"}]}", -1, NULL));
  drafts = load (f, problems);
  g_assert_false (g_hash_table_contains (drafts, OTHER));
  g_assert_false (g_hash_table_contains (drafts, TURN));
  g_assert_cmpuint (problems->len, ==, 2);
  for (guint i = 0; i < problems->len; i++)
    g_assert_error ((GError *) g_ptr_array_index (problems, i), NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED);
  g_assert_true (natter_draft_store_save_sync (f->store, SESSION, NULL, &error));
  g_assert_true (g_file_test (pasted_path, G_FILE_TEST_IS_REGULAR));
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (pasted_path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "something else");
}

/* A draft file that cannot be read is never written over nor removed:
 * a draft saved (or removed) in its place first renames it
 * `<stem>.unreadable.json`, byte for byte, which the next load tells as
 * no draft of Natter's. */
static void
test_unreadable_set_aside (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GHashTable) drafts = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *typed_over = draft_path (f, SESSION ".json");
  g_autofree char *aside = draft_path (f, SESSION ".unreadable.json");
  g_autofree char *cleared = draft_path (f, OTHER ".json");
  g_autofree char *cleared_aside = draft_path (f, OTHER ".unreadable.json");
  g_autofree char *second_aside = draft_path (f, SESSION ".unreadable-2.json");
  g_autofree char *contents = NULL;

  g_assert_true (natter_test_save_draft (f->store, SESSION, "Before", NULL, NULL, &error));
  g_assert_true (g_file_set_contents (typed_over, "{\"text\": \"cut", -1, NULL));
  g_assert_true (g_file_set_contents (cleared, "[]", -1, NULL));
  drafts = load (f, problems);
  g_assert_cmpuint (problems->len, ==, 2);
  g_clear_pointer (&drafts, g_hash_table_unref);
  g_ptr_array_set_size (problems, 0);

  /* Words typed where it was, and a draft cleared where the other was. */
  g_assert_true (natter_test_save_draft (f->store, SESSION, "Typed over", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (natter_test_save_draft (f->store, OTHER, NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (aside, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "{\"text\": \"cut");
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (cleared_aside, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "[]");
  g_assert_false (g_file_test (cleared, G_FILE_TEST_EXISTS));

  /* Read again: the new words, and both set aside still told. */
  drafts = load (f, problems);
  g_assert_cmpstr (((NatterDraft *) g_hash_table_lookup (drafts, SESSION))->text, ==, "Typed over");
  g_assert_cmpuint (problems->len, ==, 2);
  /* Once set aside, a draft written there again replaces its own. */
  g_assert_true (natter_test_save_draft (f->store, SESSION, "Again", NULL, NULL, &error));
  g_assert_false (g_file_test (second_aside, G_FILE_TEST_EXISTS));
}

/* A process that does not hold the writer lock keeps no draft, until it
 * may. */
static void
test_refused_while_reading (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GError) refusal = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_BUSY, "Another Natter writes here");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = draft_path (f, SESSION ".json");

  natter_draft_store_refuse_writes (f->store, refusal);
  g_assert_false (natter_test_save_draft (f->store, SESSION, "text", NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  natter_draft_store_refuse_writes (f->store, NULL);
  g_assert_true (natter_test_save_draft (f->store, SESSION, "text", NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/draft-store/round-trip", Fixture, NULL, set_up, test_round_trip, tear_down);
  g_test_add ("/draft-store/bad-key-refused", Fixture, NULL, set_up, test_bad_key_refused, tear_down);
  g_test_add ("/draft-store/damaged-told-and-kept", Fixture, NULL, set_up, test_damaged_told_and_kept, tear_down);
  g_test_add ("/draft-store/set-aside", Fixture, NULL, set_up, test_set_aside, tear_down);
  g_test_add ("/draft-store/attachments", Fixture, NULL, set_up, test_attachments, tear_down);
  g_test_add ("/draft-store/unreadable-set-aside", Fixture, NULL, set_up, test_unreadable_set_aside, tear_down);
  g_test_add ("/draft-store/refused-while-reading", Fixture, NULL, set_up, test_refused_while_reading, tear_down);

  return g_test_run ();
}
