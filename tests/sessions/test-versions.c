/* test-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The versions of a message (natter_sessions_list_versions_async()):
 * an edit or a new try is a branch at the turn before the message, and
 * the original and every such branch are found from each other through
 * parentSession and the fork point, in the order they were made.
 */

#include <string.h>

#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"
#include "natter-session-families.h"
#include "natter-session-placement-state.h"
#include "natter-sessions-settings.h"
#include "natter-test-sessions.h"
#include "natter-turn-reducer.h"

typedef NatterTestSessions Fixture;

static char *
branch_at_start (Fixture    *f,
                 const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  natter_sessions_create_session_async (f->sessions, NULL, NULL, session_id, NULL, NULL, natter_test_result_cb,
                                        &result);
  id = natter_sessions_create_session_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return id;
}

static GHashTable *
versions (Fixture    *f,
          const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GHashTable *table;

  natter_sessions_list_versions_async (f->sessions, session_id, NULL, natter_test_result_cb, &result);
  table = natter_sessions_list_versions_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  return table;
}

/* "session:turn session:turn …" for @turn_id, "" without versions. */
static char *
versions_of (GHashTable *table,
             const char *turn_id)
{
  GPtrArray *list = g_hash_table_lookup (table, turn_id);
  GString *out = g_string_new (NULL);

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      NatterTurnVersion *version = g_ptr_array_index (list, i);

      g_string_append_printf (out, "%s%s:%s", i > 0 ? " " : "", version->session_id, version->turn_id);
    }
  return g_string_free (out, FALSE);
}

#define assert_versions(table, turn, expected) \
  G_STMT_START { \
    g_autofree char *v_ = versions_of ((table), (turn)); \
    g_autofree char *e_ = (expected); \
    g_assert_cmpstr (v_, ==, e_); \
  } G_STMT_END

typedef struct
{
  char *session;
  char *turns[3];
} Conversation;

static void
conversation_clear (Conversation *c)
{
  g_free (c->session);
  for (guint i = 0; i < 3; i++)
    g_free (c->turns[i]);
}

static void
make_conversation (Fixture      *f,
                   Conversation *c)
{
  c->session = natter_test_sessions_create_titled (f, "Three");
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  c->turns[0] = natter_test_sessions_send_and_wait (f, c->session, "Q1");
  c->turns[1] = natter_test_sessions_send_and_wait (f, c->session, "Q2");
  c->turns[2] = natter_test_sessions_send_and_wait (f, c->session, "Q3");
}

/* An edit of the second message, then another: three versions, found
 * from the original and from each edit alike. */
static void
test_versions_edit (Fixture       *f,
                    gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *edit1 = NULL;
  g_autofree char *edit2 = NULL;
  g_autofree char *edit1_turn = NULL;
  g_autofree char *edit2_turn = NULL;
  g_autofree char *empty = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) from_original = NULL;
  g_autoptr(GHashTable) from_edit = NULL;

  make_conversation (f, &c);
  before = versions (f, c.session);
  g_assert_cmpuint (g_hash_table_size (before), ==, 0);

  edit1 = natter_test_sessions_fork (f, c.session, c.turns[0], NULL);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  edit1_turn = natter_test_sessions_send_and_wait (f, edit1, "Q2, said better");
  edit2 = natter_test_sessions_fork (f, c.session, c.turns[0], NULL);
  edit2_turn = natter_test_sessions_send_and_wait (f, edit2, "Q2, said best");
  /* A branch nobody wrote in yet is no version. */
  empty = natter_test_sessions_fork (f, c.session, c.turns[0], NULL);

  from_original = versions (f, c.session);
  g_assert_cmpuint (g_hash_table_size (from_original), ==, 1);
  assert_versions (from_original, c.turns[1],
                   g_strdup_printf ("%s:%s %s:%s %s:%s", c.session, c.turns[1], edit1, edit1_turn, edit2, edit2_turn));
  assert_versions (from_original, c.turns[0], g_strdup (""));
  assert_versions (from_original, c.turns[2], g_strdup (""));

  from_edit = versions (f, edit2);
  assert_versions (from_edit, edit2_turn,
                   g_strdup_printf ("%s:%s %s:%s %s:%s", c.session, c.turns[1], edit1, edit1_turn, edit2, edit2_turn));
  /* The turn the edit shows from the original has none. */
  assert_versions (from_edit, c.turns[0], g_strdup (""));
  conversation_clear (&c);
}

/* The first message has no turn before it: its edit is a branch
 * without a fork point. */
static void
test_versions_first_message (Fixture       *f,
                             gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *edit = NULL;
  g_autofree char *edit_turn = NULL;
  g_autoptr(GHashTable) table = NULL;
  g_autoptr(GHashTable) from_edit = NULL;

  make_conversation (f, &c);
  edit = branch_at_start (f, c.session);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  edit_turn = natter_test_sessions_send_and_wait (f, edit, "Q1 again");
  table = versions (f, c.session);
  assert_versions (table, c.turns[0], g_strdup_printf ("%s:%s %s:%s", c.session, c.turns[0], edit, edit_turn));
  from_edit = versions (f, edit);
  assert_versions (from_edit, edit_turn, g_strdup_printf ("%s:%s %s:%s", c.session, c.turns[0], edit, edit_turn));
  conversation_clear (&c);
}

/* An edit inside an edit is a version of the edit's own message. */
static void
test_versions_nested (Fixture       *f,
                      gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *edit = NULL;
  g_autofree char *edit_first = NULL;
  g_autofree char *edit_second = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *inner_turn = NULL;
  g_autoptr(GHashTable) table = NULL;

  make_conversation (f, &c);
  edit = natter_test_sessions_fork (f, c.session, c.turns[1], NULL);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  edit_first = natter_test_sessions_send_and_wait (f, edit, "Q3 edited");
  edit_second = natter_test_sessions_send_and_wait (f, edit, "Q4");
  inner = natter_test_sessions_fork (f, edit, edit_first, NULL);
  inner_turn = natter_test_sessions_send_and_wait (f, inner, "Q4 edited");

  table = versions (f, inner);
  assert_versions (table, inner_turn, g_strdup_printf ("%s:%s %s:%s", edit, edit_second, inner, inner_turn));
  assert_versions (table, edit_first, g_strdup_printf ("%s:%s %s:%s", c.session, c.turns[2], edit, edit_first));
  assert_versions (table, c.turns[1], g_strdup (""));
  conversation_clear (&c);
}

static void
set_title (Fixture    *f,
           const char *session_id,
           const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (f->sessions, session_id, title, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* A new version of the message after @turn_id (%NULL: of the first
 * message) of @session_id, made as the window's Edit and Try Again make
 * one: a branch at the turn before the message, created with the title
 * of the conversation it was made from. */
static char *
version_at (Fixture    *f,
            const char *session_id,
            const char *turn_id)
{
  g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, session_id);
  const char *title = natter_session_state_get_title (state);
  const char *parent = natter_session_state_get_parent_session (state);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *id;

  if (turn_id != NULL)
    {
      natter_sessions_fork_async (f->sessions, session_id, turn_id, title, NULL, natter_test_result_cb, &result);
      id = natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
    }
  else
    {
      /* A first message's versions all branch from the conversation
       * that had it first. */
      natter_sessions_create_session_async (f->sessions, title, NULL,
                                            parent != NULL ? parent : session_id,
                                            NULL, NULL, natter_test_result_cb, &result);
      id = natter_sessions_create_session_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
    }
  g_assert_no_error (error);
  return id;
}

/* Families: the versions made by Edit and Try Again (and versions of
 * those) are one conversation; a branch made on purpose is not; the head
 * is the version with the latest activity. */
static void
test_families (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *original = natter_test_sessions_create_titled (f, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *apart = NULL;
  g_autofree char *again = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;
  g_autoptr(NatterSessionFamilies) same = NULL;

  natter_test_sessions_script (f, "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                               "{\"role\":\"assistant\",\"content\":\"Rice.\"}",
                               "{\"role\":\"assistant\",\"content\":\"Soup.\"}", NULL);
  first = natter_test_sessions_send_and_wait (f, original, "What to cook?");
  edit = version_at (f, original, NULL);
  apart = natter_test_sessions_fork (f, original, first, NULL);
  /* A version of the version is still one conversation. */
  again = version_at (f, edit, NULL);
  /* The edit goes on last: it is the one to show. */
  natter_fake_clock_advance (f->w->clock, 60 * G_USEC_PER_SEC);
  g_free (natter_test_sessions_send_and_wait (f, edit, "What to cook tonight?"));

  families = natter_session_families_new (G_LIST_MODEL (f->index));
  g_assert_cmpuint (natter_session_families_get_n_versions (families, original), ==, 3);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, edit), ==, 3);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, apart), ==, 1);
  g_assert_cmpstr (natter_session_families_get_original (families, again), ==, original);
  g_assert_cmpstr (natter_session_families_get_original (families, apart), ==, apart);
  g_assert_cmpstr (natter_session_families_get_head (families, original), ==, edit);
  g_assert_true (natter_session_families_is_head (families, edit));
  g_assert_false (natter_session_families_is_head (families, original));
  g_assert_false (natter_session_families_is_head (families, again));
  g_assert_true (natter_session_families_is_head (families, apart));
  g_assert_true (natter_session_families_is_head (families, "2026-01-01T00-00-00Z-0000000-000"));
  g_assert_cmpuint (natter_session_families_get_n_versions (families, "2026-01-01T00-00-00Z-0000000-000"), ==, 0);
  same = natter_session_families_new (G_LIST_MODEL (f->index));
  g_assert_true (natter_session_families_equal_heads (families, same));
}

/* A branch made on purpose ("Branch from here", `natter fork`) is a
 * conversation of its own, also when the user gives it its parent's
 * title: versions are what the stored lineage says, never a title that
 * happens to match. */
static void
test_families_fork_with_parents_title (Fixture       *f,
                                       gconstpointer  data)
{
  g_autofree char *original = natter_test_sessions_create_titled (f, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *apart = NULL;
  g_autofree char *apart_turn = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, original, "What to cook?");
  apart = natter_test_sessions_fork (f, original, first, NULL);
  apart_turn = natter_test_sessions_send_and_wait (f, apart, "And for dessert?");
  set_title (f, apart, "Dinner");

  families = natter_session_families_new (G_LIST_MODEL (f->index));
  g_assert_cmpstr (natter_session_families_get_original (families, apart), ==, apart);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, apart), ==, 1);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, original), ==, 1);
  g_assert_true (natter_session_families_is_head (families, apart));
  g_assert_true (natter_session_families_is_head (families, original));
}

/* A version the user renamed is still a version of the conversation it
 * was made from: a rename changes the title, not where it came from. */
static void
test_families_renamed_version (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *original = natter_test_sessions_create_titled (f, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, original, "What to cook?");
  edit = version_at (f, original, NULL);
  natter_fake_clock_advance (f->w->clock, 60 * G_USEC_PER_SEC);
  g_free (natter_test_sessions_send_and_wait (f, edit, "What to cook tonight?"));
  set_title (f, edit, "Supper");

  families = natter_session_families_new (G_LIST_MODEL (f->index));
  g_assert_cmpstr (natter_session_families_get_original (families, edit), ==, original);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, original), ==, 2);
  g_assert_cmpstr (natter_session_families_get_head (families, original), ==, edit);
  g_assert_false (natter_session_families_is_head (families, original));
}

/* An edit of an edit: a version made in a version (of its own later
 * message, or of the message it changed) belongs to the first
 * conversation, however the titles went since. */
static void
test_families_edit_of_an_edit (Fixture       *f,
                               gconstpointer  data)
{
  g_autofree char *original = natter_test_sessions_create_titled (f, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edit_first = NULL;
  g_autofree char *edit_second = NULL;
  g_autofree char *inner = NULL;
  g_autofree char *again = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                               NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, original, "What to cook?");
  second = natter_test_sessions_send_and_wait (f, original, "With what?");
  edit = version_at (f, original, first);
  edit_first = natter_test_sessions_send_and_wait (f, edit, "With which wine?");
  edit_second = natter_test_sessions_send_and_wait (f, edit, "Red or white?");
  set_title (f, edit, "Wine");
  /* Edits of the edit's own message and of its later message. */
  again = version_at (f, original, first);
  inner = version_at (f, edit, edit_first);
  set_title (f, inner, "Dinner");

  families = natter_session_families_new (G_LIST_MODEL (f->index));
  g_assert_cmpstr (natter_session_families_get_original (families, inner), ==, original);
  g_assert_cmpstr (natter_session_families_get_original (families, again), ==, original);
  g_assert_cmpstr (natter_session_families_get_original (families, edit), ==, original);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, inner), ==, 4);
}

/* A rename names the conversation the lists show: every version takes
 * it, the one renamed first, whichever is the most recently active; a
 * branch made on purpose keeps its own title. */
static void
test_families_renamed_together (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *original = natter_test_sessions_create_titled (f, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *again = NULL;
  g_autofree char *apart = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;
  g_auto(GStrv) members = NULL;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = natter_test_sessions_send_and_wait (f, original, "What to cook?");
  edit = version_at (f, original, NULL);
  again = version_at (f, edit, NULL);
  apart = natter_test_sessions_fork (f, original, first, NULL);
  set_title (f, apart, "Dinner");
  natter_fake_clock_advance (f->w->clock, 60 * G_USEC_PER_SEC);
  g_free (natter_test_sessions_send_and_wait (f, edit, "What to cook tonight?"));

  families = natter_session_families_new (G_LIST_MODEL (f->index));
  members = natter_session_families_dup_members (families, original);
  g_assert_cmpuint (g_strv_length (members), ==, 3);
  g_assert_cmpstr (members[0], ==, original);
  g_assert_true (g_strv_contains ((const char *const *) members, edit));
  g_assert_true (g_strv_contains ((const char *const *) members, again));

  /* Renamed on a version that is not the one the lists show. */
  natter_sessions_set_conversation_title_async (f->sessions, original, "Supper", NULL, natter_test_result_cb,
                                                &result);
  g_assert_true (natter_sessions_set_conversation_title_finish (f->sessions,
                                                                natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  for (guint i = 0; members[i] != NULL; i++)
    {
      g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, members[i]);

      g_assert_cmpstr (natter_session_state_get_title (state), ==, "Supper");
      g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (f->index, members[i])),
                       ==, "Supper");
    }
  {
    g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, apart);

    g_assert_cmpstr (natter_session_state_get_title (state), ==, "Dinner");
  }
}

#define FOLDER_ID "2026-11-30T09-14-03Z-0000077-000"

static void
delete_session (Fixture    *f,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_delete_session_async (f->sessions, session_id, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
}

/* Two versions of the second message of a three-message conversation,
 * each answered once: their ids and their turns. */
static void
make_versions (Fixture      *f,
               Conversation *c,
               char        **v1,
               char        **v1_turn,
               char        **v2,
               char        **v2_turn)
{
  make_conversation (f, c);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  *v1 = version_at (f, c->session, c->turns[0]);
  *v1_turn = natter_test_sessions_send_and_wait (f, *v1, "Q2, said better");
  *v2 = version_at (f, c->session, c->turns[0]);
  *v2_turn = natter_test_sessions_send_and_wait (f, *v2, "Q2, said best");
}

/* A version of the message after @v1_turn of the version @v1 (a
 * version of a version), answered once. */
static char *
answered_version_of_version (Fixture    *f,
                             const char *v1,
                             const char *v1_turn)
{
  char *nested;

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  nested = version_at (f, v1, v1_turn);
  g_free (natter_test_sessions_send_and_wait (f, nested, "Q3, after the better Q2"));
  return nested;
}

/* Once the original is deleted, its versions stand alone: the lists show
 * each as a conversation of its own, and no arrows join them. */
static void
test_original_deleted_no_arrows (Fixture       *f,
                                 gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) after = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  before = versions (f, v1);
  assert_versions (before, v1_turn,
                   g_strdup_printf ("%s:%s %s:%s %s:%s", c.session, c.turns[1], v1, v1_turn, v2, v2_turn));

  delete_session (f, c.session);
  families = natter_session_families_new (G_LIST_MODEL (natter_sessions_list_sessions (f->sessions)));
  g_assert_cmpuint (natter_session_families_get_n_versions (families, v1), ==, 1);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, v2), ==, 1);
  after = versions (f, v1);
  assert_versions (after, v1_turn, g_strdup (""));
  g_assert_cmpuint (g_hash_table_size (after), ==, 0);
  conversation_clear (&c);
}

/* The conversation's pin, folder and model settings live in the
 * original's file; deleting it hands them to each version, which now
 * stands alone, in its own file. */
static void
test_original_deleted_keeps_place (Fixture       *f,
                                   gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *heirs[3];

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  parameters->has_temperature = TRUE;
  parameters->temperature = 0.25;
  natter_sessions_set_parameters_async (f->sessions, v1, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_sessions_set_pinned_async (f->sessions, v1, TRUE, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_sessions_set_folder_async (f->sessions, v1, FOLDER_ID, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);

  delete_session (f, c.session);
  /* One conversation was pinned, and one stays so: the version the
   * list showed for it, the last answered (v2). Both stay in the
   * folder, with the settings. */
  heirs[0] = v1;
  heirs[1] = v2;
  heirs[2] = NULL;
  for (guint i = 0; heirs[i] != NULL; i++)
    {
      g_autoptr(NatterSessionState) state = natter_test_sessions_get (f, heirs[i]);
      g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->session_repo, heirs[i]);
      gboolean shown = heirs[i] == v2;

      g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, heirs[i]), ==, heirs[i]);
      g_assert_cmpint (natter_session_state_get_pinned (state), ==, shown);
      g_assert_cmpuint (natter_test_count_type (events, "pin_changed"), ==, shown ? 1 : 0);
      g_assert_cmpstr (natter_session_state_get_folder_id (state), ==, FOLDER_ID);
      g_assert_cmpint (natter_sessions_get_pinned (f->sessions, heirs[i]), ==, shown);
      g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, heirs[i]), ==, FOLDER_ID);
      g_assert_nonnull (natter_sessions_get_kept_parameters (f->sessions, heirs[i]));
      g_assert_cmpfloat (natter_sessions_get_kept_parameters (f->sessions, heirs[i])->temperature, ==, 0.25);
    }
  conversation_clear (&c);
}

/* The pinned row showed the conversation's most recently active
 * version; when that is a version of a version, the version it was made
 * of takes the pin, and with it the row, which shows the same version
 * as before. */
static void
test_original_deleted_pin_follows_row (Fixture       *f,
                                       gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autofree char *nested = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  nested = answered_version_of_version (f, v1, v1_turn);
  natter_sessions_set_pinned_async (f->sessions, v2, TRUE, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  families = natter_session_families_new (G_LIST_MODEL (natter_sessions_list_sessions (f->sessions)));
  g_assert_cmpstr (natter_session_families_get_head (families, c.session), ==, nested);

  delete_session (f, c.session);
  g_assert_true (natter_sessions_get_pinned (f->sessions, v1));
  g_assert_true (natter_sessions_get_pinned (f->sessions, nested));
  g_assert_false (natter_sessions_get_pinned (f->sessions, v2));
  conversation_clear (&c);
}

/* "Branch from Here" on a message a version shows from its deleted
 * original: the branch names the original and the turn, as one made
 * before the delete would, and the model receives what the version
 * showed up to that message. */
static void
test_original_deleted_branch (Fixture       *f,
                              gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *before_delete = NULL;
  g_autofree char *own = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) refused = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) turns = NULL;
  char *none;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  /* Before the delete: asked of the version, made of the original. */
  before_delete = natter_test_sessions_fork (f, v1, c.turns[0], NULL);
  state = natter_test_sessions_get (f, before_delete);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, c.session);
  g_clear_pointer (&state, natter_session_state_unref);

  delete_session (f, c.session);
  branch = natter_test_sessions_fork (f, v1, c.turns[0], NULL);
  state = natter_test_sessions_get (f, branch);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, c.session);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, c.turns[0]);
  g_assert_false (natter_session_state_get_is_version (state));

  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  own = natter_test_sessions_send_and_wait (f, branch, "Q2, asked elsewhere");
  natter_sessions_read_history_async (f->sessions, own, NULL, natter_test_result_cb, &result);
  turns = natter_sessions_read_history_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (turns->len, ==, 2);
  g_assert_cmpstr (natter_turn_state_get_turn_id (g_ptr_array_index (turns, 0)), ==, c.turns[0]);

  /* A turn the version does not show is no place to branch from. */
  natter_sessions_fork_async (f->sessions, v1, c.turns[1], NULL, NULL, natter_test_result_cb, &refused);
  none = natter_sessions_fork_finish (f->sessions, natter_test_sessions_wait_result (&refused), &error);
  g_assert_null (none);
  g_assert_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND);
  conversation_clear (&c);
}

/* The settings, pin and folder a version stands alone with once its
 * original is gone: @pinned says whether it holds the pin. */
static void
assert_takes_conversation (Fixture    *f,
                           const char *session_id,
                           gboolean    pinned)
{
  g_autoptr(GPtrArray) events = natter_test_sessions_read (f->w->session_repo, session_id);

  g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, session_id), ==, session_id);
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, session_id), ==, FOLDER_ID);
  g_assert_nonnull (natter_sessions_get_kept_parameters (f->sessions, session_id));
  g_assert_cmpfloat (natter_sessions_get_kept_parameters (f->sessions, session_id)->temperature, ==, 0.25);
  g_assert_cmpint (natter_sessions_get_pinned (f->sessions, session_id), ==, pinned);
  g_assert_cmpuint (natter_test_count_type (events, "pin_changed"), ==, pinned ? 1 : 0);
}

static void
place_conversation (Fixture    *f,
                    const char *session_id)
{
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  parameters->has_temperature = TRUE;
  parameters->temperature = 0.25;
  natter_sessions_set_parameters_async (f->sessions, session_id, parameters, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_parameters_finish (f->sessions, natter_test_sessions_wait_result (&result),
                                                        &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_sessions_set_pinned_async (f->sessions, session_id, TRUE, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_pinned_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_sessions_set_folder_async (f->sessions, session_id, FOLDER_ID, NULL, natter_test_result_cb, &result);
  g_assert_true (natter_sessions_set_folder_finish (f->sessions, natter_test_sessions_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* A version deleted while a version was made of it: the original stays,
 * and keeps the conversation's pin, folder and settings; the version made
 * of the deleted one stands alone, and takes the folder and settings (not
 * the pin: the conversation the person pinned is still listed, pinned). */
static void
test_version_deleted_keeps_place (Fixture       *f,
                                  gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autofree char *nested = NULL;
  g_autoptr(GPtrArray) events = NULL;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  nested = answered_version_of_version (f, v1, v1_turn);
  place_conversation (f, v2);
  g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, nested), ==, c.session);

  delete_session (f, v1);
  g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, nested), ==, nested);
  assert_takes_conversation (f, nested, FALSE);
  events = natter_test_sessions_read (f->w->session_repo, nested);
  g_assert_cmpuint (natter_test_count_type (events, "parameters_changed"), ==, 1);
  g_assert_cmpuint (natter_test_count_type (events, "folder_changed"), ==, 1);
  /* The conversation the person placed is where it was. */
  g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, v2), ==, c.session);
  g_assert_true (natter_sessions_get_pinned (f->sessions, c.session));
  g_assert_cmpstr (natter_sessions_get_folder_id (f->sessions, v2), ==, FOLDER_ID);
  g_assert_cmpfloat (natter_sessions_get_kept_parameters (f->sessions, v2)->temperature, ==, 0.25);
  conversation_clear (&c);
}

/* A version deleted with nothing made of it hands nothing on, and one
 * whose conversation keeps nothing writes nothing to what was made of
 * it. */
static void
test_version_deleted_nothing_kept (Fixture       *f,
                                   gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autofree char *nested = NULL;
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  nested = answered_version_of_version (f, v1, v1_turn);
  before = natter_test_sessions_read (f->w->session_repo, nested);
  delete_session (f, v1);
  after = natter_test_sessions_read (f->w->session_repo, nested);
  g_assert_cmpuint (after->len, ==, before->len);
  g_assert_cmpstr (natter_sessions_get_conversation_id (f->sessions, nested), ==, nested);
  g_assert_null (natter_sessions_get_folder_id (f->sessions, nested));
  conversation_clear (&c);
}

/* An edit of a message a version shows from its deleted original: the
 * new version is made as one made before the delete would be (the
 * original as its parent, at the turn before the message; for the
 * first message, without a fork point), so it stands alone too, and
 * takes the settings and folder of the conversation it was made from,
 * not its pin. */
static void
test_original_deleted_edit (Fixture       *f,
                            gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v3 = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *second_turn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) created = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GPtrArray) turns = NULL;
  g_autoptr(NatterSessionFamilies) families = NULL;

  make_conversation (f, &c);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  v1 = version_at (f, c.session, c.turns[0]);
  v1_turn = natter_test_sessions_send_and_wait (f, v1, "Q2, said better");
  /* A version of the third message, which shows the first two. */
  v3 = version_at (f, c.session, c.turns[1]);
  g_free (natter_test_sessions_send_and_wait (f, v3, "Q3, said better"));
  place_conversation (f, c.session);
  delete_session (f, c.session);
  g_assert_true (natter_sessions_get_pinned (f->sessions, v3));

  /* The second message, edited in the version that shows it. */
  second = version_at (f, v3, c.turns[0]);
  state = natter_test_sessions_get (f, second);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, c.session);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, c.turns[0]);
  g_assert_true (natter_session_state_get_is_version (state));
  g_assert_cmpstr (natter_session_state_get_title (state), ==, "Three");
  assert_takes_conversation (f, second, FALSE);
  natter_test_sessions_script (f, NATTER_FAKE_TEXT_STEP, NULL);
  second_turn = natter_test_sessions_send_and_wait (f, second, "Q2, said best");
  natter_sessions_read_history_async (f->sessions, second_turn, NULL, natter_test_result_cb, &result);
  turns = natter_sessions_read_history_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (turns->len, ==, 2);
  g_assert_cmpstr (natter_turn_state_get_turn_id (g_ptr_array_index (turns, 0)), ==, c.turns[0]);

  /* The first message, edited in the version that shows it. */
  natter_sessions_create_first_version_async (f->sessions, v1, c.session, "Three", NULL, NULL,
                                              natter_test_result_cb, &created);
  first = natter_sessions_create_first_version_finish (f->sessions, natter_test_sessions_wait_result (&created),
                                                       &error);
  g_assert_no_error (error);
  g_clear_pointer (&state, natter_session_state_unref);
  state = natter_test_sessions_get (f, first);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, c.session);
  g_assert_null (natter_session_state_get_forked_from_turn_id (state));
  g_assert_true (natter_session_state_get_is_version (state));
  assert_takes_conversation (f, first, FALSE);

  /* Like the versions made before the delete, each stands alone. */
  families = natter_session_families_new (G_LIST_MODEL (natter_sessions_list_sessions (f->sessions)));
  g_assert_cmpuint (natter_session_families_get_n_versions (families, first), ==, 1);
  g_assert_cmpuint (natter_session_families_get_n_versions (families, second), ==, 1);
  conversation_clear (&c);
}

/* What a version of a deleted original still sends is read back from
 * the turn files: the fork point, then each turn its context refers to,
 * oldest first. */
static void
test_original_deleted_history (Fixture       *f,
                               gconstpointer  data)
{
  Conversation c = { 0 };
  g_autofree char *v1 = NULL;
  g_autofree char *v1_turn = NULL;
  g_autofree char *v2 = NULL;
  g_autofree char *v2_turn = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) turns = NULL;

  make_versions (f, &c, &v1, &v1_turn, &v2, &v2_turn);
  delete_session (f, c.session);
  natter_sessions_read_history_async (f->sessions, v1_turn, NULL, natter_test_result_cb, &result);
  turns = natter_sessions_read_history_finish (f->sessions, natter_test_sessions_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (turns->len, ==, 2);
  g_assert_cmpstr (natter_turn_state_get_turn_id (g_ptr_array_index (turns, 0)), ==, c.turns[0]);
  g_assert_cmpstr (natter_turn_state_get_turn_id (g_ptr_array_index (turns, 1)), ==, v1_turn);
  conversation_clear (&c);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, natter_test_sessions_set_up, func, natter_test_sessions_tear_down)
  ADD ("/versions/edit", test_versions_edit);
  ADD ("/versions/first-message", test_versions_first_message);
  ADD ("/versions/nested", test_versions_nested);
  ADD ("/versions/families", test_families);
  ADD ("/versions/families/fork-with-parents-title", test_families_fork_with_parents_title);
  ADD ("/versions/families/renamed-version", test_families_renamed_version);
  ADD ("/versions/families/edit-of-an-edit", test_families_edit_of_an_edit);
  ADD ("/versions/families/renamed-together", test_families_renamed_together);
  ADD ("/versions/original-deleted/no-arrows", test_original_deleted_no_arrows);
  ADD ("/versions/original-deleted/keeps-place", test_original_deleted_keeps_place);
  ADD ("/versions/original-deleted/history", test_original_deleted_history);
  ADD ("/versions/original-deleted/pin-follows-row", test_original_deleted_pin_follows_row);
  ADD ("/versions/original-deleted/branch", test_original_deleted_branch);
  ADD ("/versions/original-deleted/edit", test_original_deleted_edit);
  ADD ("/versions/version-deleted/keeps-place", test_version_deleted_keeps_place);
  ADD ("/versions/version-deleted/nothing-kept", test_version_deleted_nothing_kept);
#undef ADD

  return g_test_run ();
}
