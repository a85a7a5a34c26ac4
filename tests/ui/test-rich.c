/* test-rich.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The richer conversation view: reasoning in a collapsed expander,
 * one collapsed card per tool call, token usage, the message actions
 * (copy, branch, try again) and the model-call limit here; in the files
 * beside it the header's model picker (test-rich-model-picker.c), code
 * blocks (test-rich-code-blocks.c), the shortcuts window and labelled
 * icon-only buttons (test-rich-shortcuts.c); screenshots of each in
 * light and dark style.
 */

#include "test-rich.h"

/* Reasoning, tool cards, usage */

#define REASONING_STEP \
  "{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"reasoning\",\"text\":\"The user wants two tools run.\"}," \
  NATTER_FAKE_CALL ("c1", "sa", "{\"path\":\"notes.txt\"}") "," \
  NATTER_FAKE_CALL ("c2", "fail", "{}") "]}"

static void
test_rich_turn (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Rich turn");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) expanders = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  NatterToolCallCard *card;
  NatterTurnRow *row;
  NatterWindow *window;
  GtkLabel *usage;
  GtkWidget *reasoning = NULL;

  natter_fake_model_set_usage (u->w->fakes->model,
                               "{\"inputTokens\":100,\"outputTokens\":20,\"totalTokens\":120}");
  natter_fake_model_script (u->w->fakes->model, REASONING_STEP,
                            "{\"role\":\"assistant\",\"content\":\"Both tools ran; one failed.\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Run the tools");
  ui_wait_turn (u, turn_id);
  row = row_for_turn (window, turn_id);

  /* Reasoning: collapsed, the text inside. */
  expanders = ui_find_all (row, GTK_TYPE_EXPANDER);
  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_has_css_class (g_ptr_array_index (expanders, i), "natter-reasoning-expander"))
      reasoning = g_ptr_array_index (expanders, i);
  g_assert_nonnull (reasoning);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (reasoning)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (reasoning)))), ==,
                   "The user wants two tools run.");

  /* One collapsed card per call, with name, arguments, status, result. */
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 2);
  card = g_ptr_array_index (cards, 0);
  g_assert_cmpstr (natter_tool_call_card_get_name (card), ==, "sa");
  g_assert_cmpstr (natter_tool_call_card_get_status (card), ==, "Done");
  g_assert_nonnull (strstr (natter_tool_call_card_get_arguments (card), "\"notes.txt\""));
  g_assert_cmpstr (natter_tool_call_card_get_result (card), ==, "t.a");
  g_assert_false (natter_tool_call_card_get_failed (card));
  g_assert_false (natter_tool_call_card_get_expanded (card));
  card = g_ptr_array_index (cards, 1);
  g_assert_cmpstr (natter_tool_call_card_get_name (card), ==, "fail");
  g_assert_cmpstr (natter_tool_call_card_get_status (card), ==, "Failed");
  g_assert_true (natter_tool_call_card_get_failed (card));
  g_assert_nonnull (natter_tool_call_card_get_result (card));
  g_assert_false (natter_tool_call_card_get_expanded (card));

  /* Usage of both model calls, the breakdown in the tooltip; the fake
   * clock stands still, so the first token came at once and no speed
   * can be known (docs/format.md §4.2). */
  usage = find_label_with_class (row, "numeric");
  g_assert_nonnull (usage);
  g_assert_cmpstr (gtk_label_get_text (usage), ==, "240 tokens · first token after 0.0 s");
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (usage)), "Input: 200"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (usage)), "Output: 40"));

  /* The screenshot shows a card open, as a user would. */
  natter_tool_call_card_set_expanded (g_ptr_array_index (cards, 1), TRUE);
  gtk_expander_set_expanded (GTK_EXPANDER (reasoning), TRUE);
  save_screenshots (GTK_WIDGET (window), "rich-turn");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Copy */

typedef struct
{
  char     *text;
  gboolean  done;
} ClipboardRead;

static void
clipboard_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ClipboardRead *read = user_data;
  g_autoptr(GError) error = NULL;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, &error);
  g_assert_no_error (error);
  read->done = TRUE;
}

static gboolean
clipboard_read (gpointer data)
{
  return ((ClipboardRead *) data)->done;
}

static void
test_rich_copy (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Copy");
  g_autofree char *turn_id = NULL;
  ClipboardRead read = { NULL, FALSE };
  NatterWindow *window;
  GtkWidget *button;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Copy *these* words\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Say something");
  ui_wait_turn (u, turn_id);

  button = find_button_with_tooltip (row_for_turn (window, turn_id), "Copy Message");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (GTK_WIDGET (window)), NULL,
                                 clipboard_read_cb, &read);
  ui_wait_until (clipboard_read, &read);
  g_assert_cmpstr (read.text, ==, "Copy *these* words");
  g_free (read.text);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Branch from here */

typedef struct
{
  NatterWindow *window;
  const char   *original;
} Switched;

static gboolean
switched_away (gpointer data)
{
  Switched *s = data;

  return g_strcmp0 (natter_window_get_session_id (s->window), s->original) != 0;
}

static void
test_rich_branch (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Original");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterSessionIndexEntry *fork;
  NatterWindow *window;
  GtkWidget *button;
  Switched s;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"One\"}",
                            "{\"role\":\"assistant\",\"content\":\"Two\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  t1 = ui_send (u, session_id, "First");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Second");
  ui_wait_turn (u, t2);

  button = ui_find_button (row_for_turn (window, t1), "_Branch from Here");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  s = (Switched) { window, session_id };
  ui_wait_until (switched_away, &s);

  fork = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  g_assert_nonnull (fork);
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (fork), ==, session_id);
  /* The fork copies nothing: its first message continues from t1. */
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (fork), ==, 0);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)), ==, 2);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Try again on the latest (completed) turn: the same words again, as a
 * new version of the message (a branch at the turn before it), so the
 * first answer stays where it was. */

static gboolean
has_second_version (gpointer data)
{
  UiWorld *u = data;
  GListModel *index = G_LIST_MODEL (u->index);

  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      if (natter_session_index_entry_get_parent_session (entry) != NULL &&
          natter_session_index_entry_get_turn_count (entry) == 1 &&
          g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_rich_try_again_latest (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Again");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  GtkWidget *button;
  JsonObject *request;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Once more");
  ui_wait_turn (u, turn_id);

  button = ui_find_button (row_for_turn (window, turn_id), "_Try Again");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  ui_wait_until (has_second_version, u);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)), ==, 1);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  request = natter_fake_model_get_request (u->w->fakes->model, 1);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, request);
  text = json_to_string (node, FALSE);
  g_assert_nonnull (strstr (text, "Once more"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The model-call limit: how many calls, why; identical calls grouped;
 * Branch from Here where it is on a completed turn */

static char *
send_with_limit (UiWorld    *u,
                 const char *session_id,
                 const char *text,
                 guint       max_model_calls)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\"}");
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  char *turn_id;

  natter_send_options_set_max_model_calls (options, max_model_calls);
  json_object_set_string_member (json_node_get_object (input), "content", text);
  natter_sessions_send_message_async (u->sessions, session_id, json_node_get_object (input),
                                      options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  return turn_id;
}

/* The x of @row's Branch from Here in the row's own coordinates. */
static double
branch_x (NatterTurnRow *row)
{
  GtkWidget *button = ui_find_button (row, "_Branch from Here");
  graphene_point_t point;

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_compute_point (button, GTK_WIDGET (row), &GRAPHENE_POINT_INIT (0, 0), &point));
  return point.x;
}

static void
check_limit_turn (NatterWindow *window,
                  const char   *done_turn,
                  const char   *limit_turn)
{
  NatterTurnRow *row = row_for_turn (window, limit_turn);
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) groups = NULL;
  GtkWidget *expander;

  g_assert_true (ui_label_shown (row, "Stopped after 5 model calls for one message, the limit set in Preferences."));
  g_assert_nonnull (ui_find_button (row, "_Continue"));

  /* Five identical calls are one line; its expander shows the five. */
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 0);
  g_assert_true (ui_label_shown (row, "sa × 5"));
  expander = ui_find_first (row, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_settle ();
  g_ptr_array_unref (cards);
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 5);
  for (guint i = 0; i < cards->len; i++)
    g_assert_cmpstr (natter_tool_call_card_get_status (g_ptr_array_index (cards, i)), ==, "Done");

  /* The row's actions line up with those of a completed turn, once the
   * expanded group has been laid out: settling the main loop can end
   * before the frame that allocates it, on a loaded machine. */
  ui_wait_painted ();
  g_assert_cmpfloat_with_epsilon (branch_x (row), branch_x (row_for_turn (window, done_turn)), 0.5);
}

static void
test_rich_limit_and_groups (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Limit");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Fine.\"}",
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c2", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c3", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c4", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c5", "sa", "{}")),
                            NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  t1 = send_with_limit (u, session_id, "Hello", 5);
  t2 = send_with_limit (u, session_id, "Call sa until you stop", 5);

  check_limit_turn (window, t1, t2);
  save_screenshots (GTK_WIDGET (window), "limit-turn");
  ui_destroy_window (window);

  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  check_limit_turn (window, t1, t2);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/rich/turn", test_rich_turn);
  g_test_add_func ("/rich/copy", test_rich_copy);
  g_test_add_func ("/rich/code-block-whole", test_rich_code_block_whole);
  g_test_add_func ("/rich/code-block-streamed", test_rich_code_block_streamed);
  g_test_add_func ("/rich/branch", test_rich_branch);
  g_test_add_func ("/rich/limit-and-groups", test_rich_limit_and_groups);
  g_test_add_func ("/rich/try-again-latest", test_rich_try_again_latest);
  g_test_add_func ("/rich/model-picker", test_rich_model_picker);
  g_test_add_func ("/rich/model-picker-unreachable", test_rich_model_picker_unreachable);
  g_test_add_func ("/rich/model-picker-first-model", test_rich_model_picker_first_model);
  g_test_add_func ("/rich/model-picker-per-session", test_rich_model_picker_per_session);
  g_test_add_func ("/rich/model-picker-unknown-provider", test_rich_model_picker_unknown_provider);
  g_test_add_func ("/rich/model-picker-other-providers", test_rich_model_picker_other_providers);
  g_test_add_func ("/rich/model-picker-odd-names", test_rich_model_picker_odd_names);
  g_test_add_func ("/rich/model-picker-model-gone", test_rich_model_picker_model_gone);
  g_test_add_func ("/rich/model-picker-new-chat-goes-on", test_rich_model_picker_new_chat_goes_on);
  g_test_add_func ("/rich/model-picker-pick-survives-restart", test_rich_model_picker_pick_survives_restart);
  g_test_add_func ("/rich/model-picker-arrows-in-order", test_rich_model_picker_arrows_in_order);
  g_test_add_func ("/rich/shortcuts", test_rich_shortcuts);
  g_test_add_func ("/rich/icon-buttons-labelled", test_rich_icon_buttons_labelled);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
