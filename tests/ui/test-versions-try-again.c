/* test-versions-try-again.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Try Again: another answer as a new version, the first one kept as the
 * other version, never shown as a branch; the conversation's row, grown
 * by a line ("2 versions"), shows whole.
 */

#include "test-versions.h"

/* Try Again on an answer: another answer, the first one kept as the
 * other version. */
void
test_try_again_keeps_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Jokes");
  g_autofree char *turn_id = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  GtkWidget *button;
  NewVersion v;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  turn_id = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, turn_id, NULL);

  button = ui_find_button (find_row (window, turn_id), "_Try Again");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, session_id);
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");
  /* The first answer's conversation still has it, and only it. */
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
second_request_made (gpointer data)
{
  UiWorld *u = data;

  return natter_fake_model_get_n_requests (u->w->fakes->model) >= 2;
}

/* Try Again on a message that failed, sent with parameters of its own
 * (as `natter send --temperature` sends one): the new version goes with
 * them, as `natter retry` sends it (one pipeline). */
void
test_try_again_keeps_message_parameters (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Numbers");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(NatterGenerationParameters) own = natter_generation_parameters_new ();
  g_autoptr(JsonObject) input = natter_user_message_new ("Pick a number", NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *parameters;
  NatterWindow *window;
  NewVersion v;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_ERROR, NATTER_FAKE_TEXT_STEP, NULL);
  own->has_temperature = TRUE;
  own->temperature = 0.2;
  own->has_seed = TRUE;
  own->seed = 7;
  natter_send_options_set_parameters (options, own);
  natter_sessions_send_message_async (u->sessions, session_id, input, options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  /* It holds the sessions, which go with the world. */
  g_clear_object (&result);
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, turn_id, NULL);

  g_assert_true (gtk_widget_activate (ui_find_button (find_row (window, turn_id), "_Try Again")));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  ui_wait_until (second_request_made, u);
  parameters = json_object_get_object_member (natter_fake_model_get_request (u->w->fakes->model, 1), "parameters");
  g_assert_true (json_object_has_member (parameters, "temperature"));
  g_assert_cmpfloat (json_object_get_double_member (parameters, "temperature"), ==, 0.2);
  g_assert_cmpint (json_object_get_int_member (parameters, "seed"), ==, 7);
  ui_wait_until (ui_no_advances, u);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Try Again on the second message of two: the new version shows the
 * first exchange as its own, as README says (one arrow away), never as
 * a branch's: no "Branched from" marker, nothing dimmed. */
void
test_try_again_not_a_branch (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Jokes");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  NatterSessionIndexEntry *entry;
  GListModel *timeline;
  NatterWindow *window;
  NewVersion v;
  guint n_inherited = 0;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Hello.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  first = ui_send (u, session_id, "Hi");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, second);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, NULL);

  g_assert_true (gtk_widget_activate (ui_find_button (find_row (window, second), "_Try Again")));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  ui_wait_until (ui_timeline_loaded, window);
  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");

  timeline = G_LIST_MODEL (window->conversation.timeline);
  for (guint i = 0; i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (timeline, i);

      g_assert_false (NATTER_IS_TIMELINE_MARKER (item));
      if (NATTER_IS_TURN_ITEM (item) && natter_turn_item_get_inherited_from (NATTER_TURN_ITEM (item)) != NULL)
        n_inherited++;
    }
  g_assert_cmpuint (n_inherited, ==, 1);
  wait_switcher (window, first, NULL);
  rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    g_assert_false (gtk_widget_has_css_class (g_ptr_array_index (rows, i), "dim-label"));
  g_assert_false (ui_label_shown (window, "Branched from “Jokes”"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The top row of the sidebar shows whole: the list is at its top and
 * the row's top edge is in view. */
static gboolean
top_row_whole (gpointer data)
{
  GtkWidget *list = natter_window_get_session_list (data);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  g_autoptr(GPtrArray) rows = ui_find_all (list, NATTER_TYPE_SESSION_ROW);
  double top = G_MAXDOUBLE;

  ui_settle ();
  for (guint i = 0; i < rows->len; i++)
    {
      graphene_rect_t bounds;

      if (gtk_widget_get_mapped (g_ptr_array_index (rows, i)) &&
          gtk_widget_compute_bounds (g_ptr_array_index (rows, i), scroller, &bounds))
        top = MIN (top, bounds.origin.y);
    }
  return top >= 0 &&
         gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))) == 0;
}

static gboolean
row_says_versions (gpointer data)
{
  ui_settle ();
  return ui_label_shown (natter_window_get_session_list (data), "2 versions");
}

/* The open conversation's row, at the top of a long list, grows a line
 * ("2 versions") after Try Again: the list stays at its top, the row
 * shows whole. */
void
test_grown_row_stays_whole (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NewVersion v;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Notes %02u", i);

      g_free (ui_create_session (u, title));
    }
  session_id = ui_create_session (u, "Jokes");
  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  turn_id = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (top_row_whole, window);

  g_assert_true (gtk_widget_activate (ui_find_button (find_row (window, turn_id), "_Try Again")));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  ui_wait_until (row_says_versions, window);
  ui_wait_painted ();
  ui_save_window (GTK_WIDGET (window), "sidebar-grown-row.png");
  ui_wait_until (top_row_whole, window);

  ui_destroy_window (window);
  ui_world_free (u);
}
