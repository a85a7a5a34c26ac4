/* test-usage-speed.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An answer's usage line shows its speed (docs/format.md §4.2): the
 * tokens per second and the time to its first token, read from the turn
 * file, here under the fake clock so the figures are exact.
 */

#include "natter-test-sessions.h"
#include "natter-ui-test-world.h"

static NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *text;
} Shown;

static gboolean
line_shown (gpointer data)
{
  Shown *shown = data;

  ui_settle ();
  return ui_label_shown (shown->window, shown->text);
}

static void
test_usage_line_speed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Fast");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  Shown shown;

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  natter_fake_model_set_usage (u->w->fakes->model, "{\"inputTokens\":20,\"outputTokens\":90,\"totalTokens\":110}");
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  turn_id = ui_send (u, session_id, "Count");
  ui_wait_model_held (u);
  natter_fake_clock_advance (u->w->clock, 800 * 1000);
  natter_fake_model_stream_text (u->w->fakes->model, "One");
  natter_fake_clock_advance (u->w->clock, 2000 * 1000);
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);

  shown.window = window;
  shown.text = "110 tokens · 45.0 tokens/s · first token after 0.8 s";
  ui_wait_until (line_shown, &shown);
  ui_save_window (GTK_WIDGET (window), "usage-speed.png");

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/usage-speed/usage-line", test_usage_line_speed);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
