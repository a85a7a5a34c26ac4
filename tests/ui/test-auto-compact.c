/* test-auto-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person sees of compacting before a send (docs/sessions.md
 * §5): with the last prompt past 80% of the window the user set for
 * the model, a message typed in the window goes out after a summary; a
 * summary that fails costs the message nothing, and a toast says why.
 */

#include <string.h>

#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  guint       n_turns;
} TurnsWait;

static gboolean
session_has_completed_turns (gpointer data)
{
  TurnsWait *w = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (w->u->index, w->session_id);

  return entry != NULL && natter_session_index_entry_get_turn_count (entry) == w->n_turns &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

static char *
request_text (UiWorld *u,
              guint    index)
{
  g_autoptr(JsonNode) request = json_node_init_object (json_node_alloc (),
                                                       natter_fake_model_get_request (u->w->fakes->model, index));

  return json_to_string (request, FALSE);
}

/* Three turns whose calls each took 900 prompt tokens of the 1,000 the
 * user set for p/m, then the window: @summary_step answers the
 * summarizer. Returns the window, showing the session. */
static NatterWindow *
full_conversation (UiWorld    *u,
                   const char *session_id,
                   const char *summary_step)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  NatterWindow *window;

  g_settings_set_value (settings, "context-windows", g_variant_new_parsed ("{'p/m': 1000}"));
  natter_fake_model_set_usage (u->w->fakes->model, "{\"inputTokens\":900,\"outputTokens\":20}");
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A1\"}",
                            "{\"role\":\"assistant\",\"content\":\"A2\"}",
                            "{\"role\":\"assistant\",\"content\":\"A3\"}", summary_step,
                            "{\"role\":\"assistant\",\"content\":\"A4\"}", NULL);
  for (guint i = 1; i <= 3; i++)
    {
      g_autofree char *text = g_strdup_printf ("Q%u", i);
      g_autofree char *turn_id = ui_send (u, session_id, text);

      ui_wait_turn (u, turn_id);
    }
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  return window;
}

static void
reset_windows (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");

  g_settings_reset (settings, "context-windows");
}

/* The toast's title, a label in the toast overlay, and its Details. */
static gboolean
toast_says_why (gpointer data)
{
  NatterWindow *window = data;

  return ui_label_shown (natter_window_get_toast_overlay (window), "Not compacted") &&
         window->errors.last_notice_details != NULL &&
         g_str_has_prefix (window->errors.last_notice_details,
                           "The conversation could not be compacted before sending, so the message went with the "
                           "whole history: ");
}

static gboolean
separator_shown (gpointer data)
{
  g_autoptr(GPtrArray) expanders = ui_find_all (data, GTK_TYPE_EXPANDER);

  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (expanders, i)) &&
        g_strcmp0 (gtk_expander_get_label (g_ptr_array_index (expanders, i)), "Earlier messages summarized") == 0)
      return TRUE;
  return FALSE;
}

/* The message typed after a full conversation is sent after a summary of
 * the first turn: the separator appears, and the model sees the summary,
 * not Q1. */
static void
test_compacts_before_send (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *sent = NULL;
  NatterWindow *window = full_conversation (u, session_id, "{\"role\":\"assistant\",\"content\":\"Short summary\"}");
  TurnsWait wait = { u, session_id, 4 };

  _natter_window_send_text (window, "Q4", FALSE);
  ui_wait_until (session_has_completed_turns, &wait);

  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 5);
  sent = request_text (u, 4);
  g_assert_nonnull (strstr (sent, "Short summary"));
  g_assert_nonnull (strstr (sent, "Q4"));
  g_assert_null (strstr (sent, "\"Q1\""));
  ui_wait_until (separator_shown, window);

  ui_destroy_window (window);
  ui_world_free (u);
  reset_windows ();
}

/* The summarizer fails: the message still goes out, whole, and a toast
 * says why nothing was summarized. */
static void
test_failed_summary_still_sends (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *sent = NULL;
  NatterWindow *window = full_conversation (u, session_id, NATTER_FAKE_STEP_ERROR);
  TurnsWait wait = { u, session_id, 4 };

  _natter_window_send_text (window, "Q4", FALSE);
  ui_wait_until (session_has_completed_turns, &wait);
  ui_wait_until (toast_says_why, window);

  sent = request_text (u, 4);
  g_assert_nonnull (strstr (sent, "\"Q1\""));
  g_assert_nonnull (strstr (sent, "Q4"));

  ui_destroy_window (window);
  ui_world_free (u);
  reset_windows ();
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/auto-compact/compacts-before-send", test_compacts_before_send);
  g_test_add_func ("/auto-compact/failed-summary-still-sends", test_failed_summary_still_sends);
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
