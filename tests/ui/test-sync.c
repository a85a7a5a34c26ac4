/* test-sync.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window over a data folder a synchroniser shares (docs/format.md
 * §9), showing what `natter sessions` and `natter show` say: a turn that
 * has not arrived is shown arriving from another device (in the list,
 * in the conversation, in the composer, which does not send on it), not
 * as damage, and shows as usual once it is there; the copy Syncthing
 * kept of a conversation both devices continued opens as its other
 * version, read only.
 */

#include <glib/gstdio.h>

#include "natter-markdown-view.h"
#include "natter-session-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static const char *arriving_text = "Arriving from another device…";
static const char *arriving_blocked = "The last answer has not arrived from another device yet.";
static const char *copy_blocked = "This version is another device’s copy of the conversation, kept when both "
                                  "devices changed it at once. It is read only.";

static NatterSessionRow *
find_row (NatterWindow *window,
          const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/* The texts of the timeline's Markdown views, joined by "|". */
static char *
shown_texts (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_MARKDOWN_VIEW);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "|" : "",
                            natter_markdown_view_get_text (g_ptr_array_index (views, i)));
  return g_string_free (text, FALSE);
}

static gboolean
arriving_shown (gpointer data)
{
  ui_settle ();
  return ui_timeline_loaded (data) && ui_label_shown (natter_window_get_timeline_list (data), arriving_text);
}

typedef struct
{
  NatterWindow *window;
  const char   *texts;
} Shown;

static gboolean
texts_shown (gpointer data)
{
  Shown *s = data;
  g_autofree char *texts = NULL;

  ui_settle ();
  if (!ui_timeline_loaded (s->window))
    return FALSE;
  texts = shown_texts (s->window);
  return g_strcmp0 (texts, s->texts) == 0;
}

static char *
describe_texts (gpointer data)
{
  Shown *s = data;

  return shown_texts (s->window);
}

static char *
turn_path (UiWorld    *u,
           const char *turn_id)
{
  return natter_jsonl_repo_dup_path (u->w->turn_repo, turn_id, NULL);
}

static void
share_folder (UiWorld *u)
{
  g_autofree char *dir = g_file_get_path (u->w->dir);
  g_autofree char *marker = g_build_filename (dir, ".stfolder", NULL);

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
}

/* A conversation whose last turn has not arrived: listed, shown and
 * refused as arriving; once it is there, as on the device that wrote
 * it. */
static void
test_turn_arriving (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Week");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *path = NULL;
  g_autofree char *aside = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Monday works.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Tuesday works too.\"}",
                            NULL);
  first = ui_send (u, session_id, "Monday?");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Tuesday?");
  ui_wait_turn (u, second);
  share_folder (u);
  path = turn_path (u, second);
  aside = g_strconcat (path, ".aside", NULL);
  g_assert_cmpint (g_rename (path, aside), ==, 0);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (arriving_shown, window);
  g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), "This turn cannot be read"));
  g_assert_cmpstr (natter_session_row_get_status_mark (find_row (window, session_id)), ==, "arriving");
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, arriving_blocked);
  natter_composer_set_text (composer, "Wednesday?");
  g_assert_false (natter_composer_send (composer));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  ui_destroy_window (window);

  g_assert_cmpint (g_rename (aside, path), ==, 0);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  shown = (Shown) { window, "Monday works.|Tuesday works too." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_null (natter_session_row_get_status_mark (find_row (window, session_id)));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The copy Syncthing kept of a conversation both devices continued opens
 * as its other version: the shared turn, then the other device's answer;
 * read only. The conversation shows this device's answer. */
static void
test_conflict_copy (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *first = NULL;
  g_autofree char *there = NULL;
  g_autofree char *here = NULL;
  g_autofree char *log = NULL;
  g_autofree char *before = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Anywhere you like.\"}",
                            "{\"role\":\"assistant\",\"content\":\"The train it is.\"}",
                            "{\"role\":\"assistant\",\"content\":\"The car it is.\"}",
                            NULL);
  first = ui_send (u, session_id, "Where to?");
  ui_wait_turn (u, first);
  log = natter_jsonl_repo_dup_path (u->w->session_repo, session_id, NULL);
  g_assert_true (g_file_get_contents (log, &before, NULL, NULL));
  there = ui_send (u, session_id, "By train, then");
  ui_wait_turn (u, there);
  g_assert_true (g_file_get_contents (log, &theirs, NULL, NULL));
  g_assert_true (g_file_set_contents (log, before, -1, NULL));
  ui_world_restart (u);
  here = ui_send (u, session_id, "By car, then");
  ui_wait_turn (u, here);
  copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, copy));
  shown = (Shown) { window, "Anywhere you like.|The train it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, copy_blocked);
  natter_composer_set_text (composer, "And back?");
  g_assert_false (natter_composer_send (composer));

  g_assert_true (natter_window_open_session (window, session_id));
  shown = (Shown) { window, "Anywhere you like.|The car it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 3);
  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/sync/turn-arriving", test_turn_arriving);
  g_test_add_func ("/sync/conflict-copy", test_conflict_copy);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
