/* test-branch.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A branched session shows the history it was branched from ("Branch
 * from here"; dsh-session.md, fork): the inherited turns up to
 * the fork point, read-only and dimmed, then "Branched from “…”" with a
 * button to the parent, then its own turns; the parent's files stay as
 * they were; a deleted parent is said so inline and the branch goes on.
 */

#include "config.h"

#include "natter-branch-row.h"
#include "natter-sessions-settings.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  GPtrArray *items;  /* GObject: NatterTurnItem or NatterTimelineMarker */
} Timeline;

static gboolean
rows_read (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item == NULL || natter_turn_item_get_state (item) == NULL)
        return FALSE;
    }
  return TRUE;
}

static char *
answer_of (NatterTurnItem *item)
{
  NatterTurnState *state = natter_turn_item_get_state (item);
  NatterTurnModelCall *call;
  JsonObject *message;

  g_assert_nonnull (state);
  call = natter_turn_state_get_model_call (state, natter_turn_state_get_n_model_calls (state) - 1);
  message = natter_turn_model_call_get_message (call);
  return g_strdup (json_object_get_string_member (message, "content"));
}

static char *
fork_session (UiWorld    *u,
              const char *session_id,
              const char *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *fork_id;

  natter_sessions_fork_async (u->sessions, session_id, turn_id, NULL, NULL, ui_result_cb, &result);
  fork_id = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return fork_id;
}

static char *
read_file (UiWorld    *u,
           NatterJsonlRepo *repo,
           const char *id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, id, NULL);
  char *contents = NULL;

  g_assert_true (g_file_load_contents (file, NULL, &contents, NULL, NULL, NULL));
  return contents;
}

/* A 3-turn "Original", answered "A1" … "A3". */
static char *
make_parent (UiWorld  *u,
             char    **turns)
{
  char *session_id = ui_create_session (u, "Original");
  const char *inputs[] = { "Q1", "Q2", "Q3" };

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"A1\"}",
                            "{\"role\":\"assistant\",\"content\":\"A2\"}",
                            "{\"role\":\"assistant\",\"content\":\"A3\"}", NULL);
  for (guint i = 0; i < 3; i++)
    {
      turns[i] = ui_send (u, session_id, inputs[i]);
      ui_wait_turn (u, turns[i]);
    }
  return session_id;
}

static GObject *
timeline_item (NatterWindow *window,
               guint         position)
{
  GObject *item = g_list_model_get_item (G_LIST_MODEL (natter_window_get_timeline (window)), position);

  g_object_unref (item);  /* the model keeps it */
  return item;
}

static void
assert_inherited (NatterWindow *window,
                  guint         position,
                  const char   *parent_id,
                  const char   *turn_id,
                  const char   *input,
                  const char   *answer)
{
  NatterTurnItem *item = NATTER_TURN_ITEM (timeline_item (window, position));
  g_autofree char *text = natter_turn_item_dup_input_text (item);
  g_autofree char *words = answer_of (item);

  g_assert_cmpstr (natter_turn_item_get_turn_id (item), ==, turn_id);
  g_assert_cmpstr (natter_turn_item_get_inherited_from (item), ==, parent_id);
  g_assert_false (natter_turn_item_get_latest (item));
  g_assert_cmpstr (text, ==, input);
  g_assert_cmpstr (words, ==, answer);
}

static NatterBranchRow *
find_branch_row (NatterWindow *window)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_BRANCH_ROW);

  g_assert_cmpuint (rows->len, ==, 1);
  return g_ptr_array_index (rows, 0);
}

/* The screen in the dark style, as X shows it: a texture of the
 * window's snapshot keeps render nodes from before the style change (the
 * sidebar stays light). Skipped without a display or import. */
static void
save_dark_screenshot (const char *name)
{
  AdwStyleManager *style = adw_style_manager_get_default ();

  if (!ui_can_save_screen ())
    return;
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_true (ui_save_screen (name));
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  ui_settle ();
}

typedef struct
{
  NatterWindow *window;
  guint         n;
} Count;

static gboolean
has_n_items (gpointer data)
{
  Count *c = data;

  return g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (c->window))) == c->n &&
         rows_read (c->window);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
} Opened;

/* A button's activation clicks it after its press animation. */
static gboolean
opened (gpointer data)
{
  Opened *o = data;

  return g_strcmp0 (natter_window_get_session_id (o->window), o->session_id) == 0;
}

typedef struct
{
  gpointer    row;
  const char *text;
} LabelWait;

static gboolean
row_label_shown (gpointer data)
{
  LabelWait *w = data;

  return ui_label_shown (w->row, w->text);
}

static void
test_branch_shows_history (void)
{
  UiWorld *u = ui_world_new ();
  char *turns[3] = { NULL, };
  g_autofree char *parent_id = make_parent (u, turns);
  g_autofree char *fork_id = NULL;
  g_autofree char *own = NULL;
  g_autofree char *parent_before = NULL;
  g_autofree char *parent_after = NULL;
  g_autofree char *own_answer = NULL;
  g_autoptr(GPtrArray) turn_files_before = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) turn_rows = NULL;
  NatterTimelineModel *timeline;
  NatterTimelineMarker *marker;
  NatterBranchRow *branch_row;
  NatterWindow *window;
  GtkWidget *button;
  Opened s;
  Count c;

  fork_id = fork_session (u, parent_id, turns[1]);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, fork_id));
  ui_wait_until (ui_timeline_loaded, window);
  c = (Count) { window, 3 };
  ui_wait_until (has_n_items, &c);

  /* Q1/A1, Q2/A2, the separator, nothing else: Q3 is past the fork point. */
  timeline = natter_window_get_timeline (window);
  g_assert_cmpuint (natter_timeline_model_get_n_inherited (timeline), ==, 2);
  assert_inherited (window, 0, parent_id, turns[0], "Q1", "A1");
  assert_inherited (window, 1, parent_id, turns[1], "Q2", "A2");
  marker = NATTER_TIMELINE_MARKER (timeline_item (window, 2));
  g_assert_cmpint (natter_timeline_marker_get_kind (marker), ==, NATTER_TIMELINE_MARKER_BRANCHED);
  g_assert_cmpstr (natter_timeline_marker_get_session_id (marker), ==, parent_id);
  g_assert_cmpstr (natter_timeline_marker_get_title (marker), ==, "Original");
  g_assert_null (natter_timeline_model_get_latest (timeline));
  g_assert_cmpstr (natter_window_get_visible_page (window), !=, "empty");

  /* On screen: dimmed, Branch from Here but no Try Again, the separator. */
  turn_rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);
  g_assert_cmpuint (turn_rows->len, ==, 2);
  for (guint i = 0; i < turn_rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (turn_rows, i);

      g_assert_true (gtk_widget_has_css_class (row, "natter-inherited"));
      g_assert_null (ui_find_button (row, "_Try Again"));
      g_assert_nonnull (ui_find_button (row, "_Branch from Here"));
    }
  branch_row = find_branch_row (window);
  g_assert_true (natter_branch_row_get_marker (branch_row) == marker);
  {
    LabelWait w = { branch_row, "Branched from “Original”" };

    g_assert_true (row_label_shown (&w));
  }

  /* The parent renamed meanwhile: the separator follows. */
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) error = NULL;
    LabelWait w = { branch_row, "Branched from “Renamed parent”" };

    natter_sessions_set_title_async (u->sessions, parent_id, "Renamed parent", NULL, ui_result_cb, &result);
    g_assert_true (natter_sessions_set_title_finish (u->sessions, ui_wait_result (&result), &error));
    g_assert_no_error (error);
    ui_wait_until (row_label_shown, &w);
    g_assert_cmpstr (natter_timeline_marker_get_title (marker), ==, "Renamed parent");
  }

  /* Sending in the branch: after the separator; the parent untouched. */
  parent_before = read_file (u, u->w->session_repo, parent_id);
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (turn_files_before, read_file (u, u->w->turn_repo, turns[i]));
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"B1\"}", NULL);
  own = ui_send (u, fork_id, "Own question");
  ui_wait_turn (u, own);
  c.n = 4;
  ui_wait_until (has_n_items, &c);
  ui_save_window (GTK_WIDGET (window), "branch.png");
  save_dark_screenshot ("branch-dark.png");
  g_assert_true (NATTER_TURN_ITEM (timeline_item (window, 3)) == natter_timeline_model_get_latest (timeline));
  g_assert_cmpstr (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (timeline_item (window, 3))), ==, own);
  g_assert_null (natter_turn_item_get_inherited_from (NATTER_TURN_ITEM (timeline_item (window, 3))));
  own_answer = answer_of (NATTER_TURN_ITEM (timeline_item (window, 3)));
  g_assert_cmpstr (own_answer, ==, "B1");
  parent_after = read_file (u, u->w->session_repo, parent_id);
  g_assert_cmpstr (parent_after, ==, parent_before);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *after = read_file (u, u->w->turn_repo, turns[i]);

      g_assert_cmpstr (after, ==, g_ptr_array_index (turn_files_before, i));
    }
  /* The model saw the inherited history as context. */
  {
    guint n = natter_fake_model_get_n_requests (u->w->fakes->model);
    JsonObject *request = natter_fake_model_get_request (u->w->fakes->model, n - 1);
    g_autoptr(JsonGenerator) generator = json_generator_new ();
    g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), request);
    g_autofree char *text = NULL;

    json_generator_set_root (generator, node);
    text = json_generator_to_data (generator, NULL);
    g_assert_nonnull (strstr (text, "Q2"));
    g_assert_nonnull (strstr (text, "A2"));
    g_assert_null (strstr (text, "Q3"));
  }

  /* The separator's button opens the parent. */
  button = ui_find_button (find_branch_row (window), "_Open");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  s = (Opened) { window, parent_id };
  ui_wait_until (opened, &s);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, parent_id);

  for (guint i = 0; i < 3; i++)
    g_free (turns[i]);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A fork of a fork: the grandparent's turns, its separator, the parent's,
 * the parent's separator. */
static void
test_branch_of_branch (void)
{
  UiWorld *u = ui_world_new ();
  char *turns[3] = { NULL, };
  g_autofree char *parent_id = make_parent (u, turns);
  g_autofree char *fork_id = fork_session (u, parent_id, turns[0]);
  g_autofree char *mid = NULL;
  g_autofree char *fork2_id = NULL;
  NatterWindow *window;
  Count c;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"M1\"}", NULL);
  mid = ui_send (u, fork_id, "Middle");
  ui_wait_turn (u, mid);
  fork2_id = fork_session (u, fork_id, mid);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, fork2_id));
  ui_wait_until (ui_timeline_loaded, window);
  c = (Count) { window, 4 };
  ui_wait_until (has_n_items, &c);
  assert_inherited (window, 0, parent_id, turns[0], "Q1", "A1");
  g_assert_cmpstr (natter_timeline_marker_get_session_id (NATTER_TIMELINE_MARKER (timeline_item (window, 1))),
                   ==, parent_id);
  assert_inherited (window, 2, fork_id, mid, "Middle", "M1");
  g_assert_cmpstr (natter_timeline_marker_get_session_id (NATTER_TIMELINE_MARKER (timeline_item (window, 3))),
                   ==, fork_id);

  for (guint i = 0; i < 3; i++)
    g_free (turns[i]);
  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_branch_parent_deleted (void)
{
  UiWorld *u = ui_world_new ();
  char *turns[3] = { NULL, };
  g_autofree char *parent_id = make_parent (u, turns);
  g_autofree char *fork_id = fork_session (u, parent_id, turns[1]);
  g_autoptr(GFile) parent_file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *own = NULL;
  g_autofree char *own_answer = NULL;
  NatterTimelineMarker *marker;
  NatterWindow *window;
  Count c;

  /* The parent's session file goes (its turn files stay, as a delete
   * leaves them): a new service over the same directory no longer knows
   * it. */
  parent_file = natter_jsonl_repo_get_file (u->w->session_repo, parent_id, NULL);
  g_assert_true (g_file_delete (parent_file, NULL, &error));
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, fork_id));
  ui_wait_until (ui_timeline_loaded, window);
  /* What the model receives is shown: the parent's turns up to the
   * fork point, from their turn files, below a marker saying where they
   * come from. */
  c = (Count) { window, 3 };
  ui_wait_until (has_n_items, &c);
  marker = NATTER_TIMELINE_MARKER (timeline_item (window, 0));
  g_assert_cmpint (natter_timeline_marker_get_kind (marker), ==, NATTER_TIMELINE_MARKER_NOTE);
  g_assert_cmpstr (natter_timeline_marker_get_error (marker), ==,
                   "The earlier messages come from a conversation that was deleted.");
  assert_inherited (window, 1, parent_id, turns[0], "Q1", "A1");
  assert_inherited (window, 2, parent_id, turns[1], "Q2", "A2");
  g_assert_nonnull (find_branch_row (window));
  g_assert_null (ui_find_button (find_branch_row (window), "_Open"));
  /* Said plainly, not as an error: the delete was the person's own. */
  {
    GtkWidget *label = ui_find_first (find_branch_row (window), GTK_TYPE_LABEL);

    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                     "The earlier messages come from a conversation that was deleted.");
    g_assert_false (gtk_widget_has_css_class (label, "error"));
    g_assert_true (gtk_widget_has_css_class (label, "dim-label"));
  }

  /* The branch's own chain is in the turn files: it still sends, with
   * the history as context. */
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"B1\"}", NULL);
  own = ui_send (u, fork_id, "After the delete");
  ui_wait_turn (u, own);
  c.n = 4;
  ui_wait_until (has_n_items, &c);
  own_answer = answer_of (NATTER_TURN_ITEM (timeline_item (window, 3)));
  g_assert_cmpstr (own_answer, ==, "B1");
  ui_save_window (GTK_WIDGET (window), "branch-parent-deleted.png");

  for (guint i = 0; i < 3; i++)
    g_free (turns[i]);
  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *away_from;
} Away;

static gboolean
opened_other (gpointer data)
{
  Away *a = data;

  return natter_window_get_session_id (a->window) != NULL &&
         g_strcmp0 (natter_window_get_session_id (a->window), a->away_from) != 0;
}

/* Branch from Here on a message a version shows from its deleted
 * original (the person edited the second message, then deleted the
 * original and kept the version): a new conversation opens with what
 * the version showed up to that message, and it starts with the
 * conversation's model settings and folder, unpinned. */
static void
test_branch_from_deleted_original (void)
{
  UiWorld *u = ui_world_new ();
  char *turns[3] = { NULL, };
  g_autofree char *parent_id = make_parent (u, turns);
  g_autofree char *version_id = NULL;
  g_autofree char *answered = NULL;
  g_autofree char *branch_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) turn_rows = NULL;
  const char *folder_id = "2026-11-30T09-14-03Z-0000077-000";
  NatterTurnRow *row = NULL;
  NatterWindow *window;
  GtkWidget *button;
  Away away;
  Count c;

  ui_set_temperature (u, parent_id, 0.5);
  ui_set_pinned (u, parent_id, TRUE);
  ui_set_folder (u, parent_id, folder_id);

  /* The second message edited: a version at the first turn. */
  natter_sessions_fork_async (u->sessions, parent_id, turns[0], "Original", NULL, ui_result_cb, &result);
  version_id = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"V2\"}", NULL);
  answered = ui_send (u, version_id, "Q2, said better");
  ui_wait_turn (u, answered);
  natter_sessions_delete_session_async (u->sessions, parent_id, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_delete_session_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  g_clear_object (&result);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, version_id));
  ui_wait_until (ui_timeline_loaded, window);
  c = (Count) { window, 3 };
  ui_wait_until (has_n_items, &c);
  turn_rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < turn_rows->len; i++)
    if (g_strcmp0 (natter_turn_item_get_turn_id (natter_turn_row_get_item (g_ptr_array_index (turn_rows, i))),
                   turns[0]) == 0)
      row = g_ptr_array_index (turn_rows, i);
  g_assert_nonnull (row);
  g_assert_cmpstr (natter_turn_item_get_inherited_from (natter_turn_row_get_item (row)), ==, parent_id);
  button = ui_find_button (GTK_WIDGET (row), "_Branch from Here");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  away = (Away) { window, version_id };
  ui_wait_until (opened_other, &away);
  g_assert_false (ui_error_bar_shown (window));

  branch_id = g_strdup (natter_window_get_session_id (window));
  state = ui_get_session (u, branch_id);
  g_assert_cmpstr (natter_session_state_get_parent_session (state), ==, parent_id);
  g_assert_cmpstr (natter_session_state_get_forked_from_turn_id (state), ==, turns[0]);
  /* Shown as the version showed it: the note, then Q1/A1. */
  ui_wait_until (ui_timeline_loaded, window);
  c = (Count) { window, 2 };
  ui_wait_until (has_n_items, &c);
  g_assert_cmpint (natter_timeline_marker_get_kind (NATTER_TIMELINE_MARKER (timeline_item (window, 0))), ==,
                   NATTER_TIMELINE_MARKER_NOTE);
  assert_inherited (window, 1, parent_id, turns[0], "Q1", "A1");
  /* The conversation's settings and folder, not its pin. */
  g_assert_nonnull (natter_sessions_get_kept_parameters (u->sessions, branch_id));
  g_assert_cmpfloat (natter_sessions_get_kept_parameters (u->sessions, branch_id)->temperature, ==, 0.5);
  g_assert_cmpstr (natter_sessions_get_folder_id (u->sessions, branch_id), ==, folder_id);
  g_assert_false (natter_sessions_get_pinned (u->sessions, branch_id));
  g_assert_true (natter_sessions_get_pinned (u->sessions, version_id));

  for (guint i = 0; i < 3; i++)
    g_free (turns[i]);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A long parent: opening its branch reads no turn file to find the chain,
 * only the turns shown (lazily, as their rows come into view). */
static void
test_branch_long_parent_lazy (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *parent_id = ui_create_session (u, "Long");
  g_autofree char *last = NULL;
  g_autofree char *fork_id = NULL;
  NatterTimelineModel *timeline;
  NatterWindow *window;
  guint n_read = 0;

  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *question = g_strdup_printf ("Question %u", i);

      natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Answer\"}", NULL);
      g_free (last);
      last = ui_send (u, parent_id, question);
      ui_wait_turn (u, last);
    }
  fork_id = fork_session (u, parent_id, last);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, fork_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (rows_read, window);
  timeline = natter_window_get_timeline (window);
  g_assert_cmpuint (natter_timeline_model_get_n_inherited (timeline), ==, 60);
  for (guint i = 0; i < 60; i++)
    if (natter_turn_item_get_state (NATTER_TURN_ITEM (timeline_item (window, i))) != NULL)
      n_read++;
  /* Only the rows in the viewport (and their neighbours) were read. */
  g_assert_cmpuint (n_read, >, 0);
  g_assert_cmpuint (n_read, <, 20);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/branch/shows-history", test_branch_shows_history);
  g_test_add_func ("/branch/branch-of-branch", test_branch_of_branch);
  g_test_add_func ("/branch/parent-deleted", test_branch_parent_deleted);
  g_test_add_func ("/branch/from-deleted-original", test_branch_from_deleted_original);
  g_test_add_func ("/branch/long-parent-lazy", test_branch_long_parent_lazy);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
