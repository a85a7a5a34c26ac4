/* test-timeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The timeline (session-layer-spec.md §10.3): each turn shows its input
 * and its own answer; live deltas show in an overlay that the canonical
 * model_call_completed replaces; a failed turn offers Try Again, which
 * sends a new turn; a turn streaming while another session is shown is
 * live when the user comes back.
 */

#include "natter-markdown-view.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* The texts of the mapped markdown views, joined by "|". */
static char *
shown_texts (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = NULL;
  GString *text = g_string_new (NULL);

  ui_settle ();
  views = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_MARKDOWN_VIEW);
  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "|" : "",
                            natter_markdown_view_get_text (g_ptr_array_index (views, i)));
  return g_string_free (text, FALSE);
}

typedef struct
{
  NatterWindow *window;
  const char   *expected;
} TextWait;

static gboolean
texts_are (gpointer data)
{
  TextWait *w = data;
  g_autofree char *texts = shown_texts (w->window);

  return g_strcmp0 (texts, w->expected) == 0;
}

static void
wait_texts (NatterWindow *window,
            const char   *expected)
{
  TextWait w = { window, expected };

  ui_wait_until (texts_are, &w);
}

static gboolean
label_shown (GtkWidget  *root,
             const char *text)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), text) == 0)
      return TRUE;
  return FALSE;
}

static void
test_timeline_turns (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Two turns");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"First answer\"}",
                            "{\"role\":\"assistant\",\"content\":\"Second answer\"}",
                            NULL);
  t1 = ui_send (u, session_id, "First question");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Second question");
  ui_wait_turn (u, t2);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  /* Each turn once, with its own answer: the second turn's context (the
   * first turn) is not shown again. */
  wait_texts (window, "First answer|Second answer");
  g_assert_true (label_shown (natter_window_get_timeline_list (window), "First question"));
  g_assert_true (label_shown (natter_window_get_timeline_list (window), "Second question"));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==, 2);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld *u;
} Held;

static gboolean
model_held (gpointer data)
{
  return natter_fake_model_get_n_held (((Held *) data)->u->w->fakes->model) == 1;
}

static void
test_timeline_deltas (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streaming");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  Held held = { u };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Stream please");
  ui_wait_until (model_held, &held);

  /* Sending is Stop while the turn runs. */
  ui_settle ();
  g_assert_true (natter_composer_get_running (natter_window_get_composer (window)));

  natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, "Hel");
  natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, "lo");
  wait_texts (window, "Hello");

  /* The canonical response replaces the overlay. */
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);
  wait_texts (window, "done");
  g_assert_false (natter_composer_get_running (natter_window_get_composer (window)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_timeline_switch_while_streaming (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *a = ui_create_session (u, "A");
  g_autofree char *b = ui_create_session (u, "B");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  Held held = { u };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, a));
  natter_composer_set_text (natter_window_get_composer (window), "a draft for A");
  turn_id = ui_send (u, a, "Long answer");
  ui_wait_until (model_held, &held);
  natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, "Part one. ");

  /* Away: the turn goes on. */
  g_assert_true (natter_window_open_session (window, b));
  natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, "Part two.");
  g_assert_true (natter_window_open_session (window, a));
  wait_texts (window, "Part one. Part two.");
  {
    g_autofree char *draft = natter_composer_dup_text (natter_window_get_composer (window));

    g_assert_cmpstr (draft, ==, "a draft for A");
  }

  g_assert_true (natter_window_open_session (window, b));
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);
  g_assert_true (natter_window_open_session (window, a));
  wait_texts (window, "done");

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_timeline_try_again (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Flaky");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  GtkWidget *button = NULL;
  NatterTimelineModel *timeline;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_ERROR, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Try me");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  while (button == NULL)
    {
      ui_settle ();
      button = ui_find_button (natter_window_get_timeline_list (window), "_Try Again");
      if (button == NULL)
        g_main_context_iteration (NULL, TRUE);
    }
  g_assert_true (label_shown (natter_window_get_timeline_list (window), "Failed: provider p: HTTP 500"));

  g_signal_emit_by_name (button, "clicked");
  timeline = natter_window_get_timeline (window);
  wait_texts (window, "done");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (timeline)), ==, 2);
  g_assert_true (label_shown (natter_window_get_timeline_list (window), "Try me"));

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  app = ui_app_new ();

  g_test_add_func ("/timeline/turns", test_timeline_turns);
  g_test_add_func ("/timeline/deltas", test_timeline_deltas);
  g_test_add_func ("/timeline/switch-while-streaming", test_timeline_switch_while_streaming);
  g_test_add_func ("/timeline/try-again", test_timeline_try_again);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
