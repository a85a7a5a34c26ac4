/* test-prompts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prompts of a suspended turn (docs/sessions.md §10.4): a card per
 * pending permission and per ask-human question, rendered from the
 * reduced state only, whose buttons call the right API with the right ids,
 * and which are there again after a restart.
 */

#include "natter-ask-human-card.h"
#include "natter-permission-card.h"
#include "natter-tool-call-card.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  GType         type;
  guint         n;
} CardWait;

static gboolean
has_n_cards (gpointer data)
{
  CardWait *w = data;
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (w->window, w->type);
  return cards->len == w->n;
}

static GPtrArray *
wait_cards (NatterWindow *window,
            GType         type,
            guint         n)
{
  CardWait w = { window, type, n };

  ui_wait_until (has_n_cards, &w);
  return ui_find_all (window, type);
}

/* The answered question of /prompts/ask-human, shown as a question and
 * its answer, with no ask_human tool card (whose JSON hid them). */
static gboolean
question_and_answer_shown (gpointer data)
{
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  if (!ui_label_shown (natter_window_get_timeline_list (data), "Which colour?") ||
      !ui_label_shown (natter_window_get_timeline_list (data), "Blue"))
    return FALSE;
  cards = ui_find_all (data, NATTER_TYPE_TOOL_CALL_CARD);
  for (guint i = 0; i < cards->len; i++)
    if (g_strcmp0 (natter_tool_call_card_get_name (g_ptr_array_index (cards, i)), "ask_human") == 0)
      return FALSE;
  return TRUE;
}

/* Whether a mapped tool card of @window shows the call @name. */
static gboolean
tool_card_shown (NatterWindow *window,
                 const char   *name)
{
  g_autoptr(GPtrArray) cards = ui_find_all (window, NATTER_TYPE_TOOL_CALL_CARD);

  for (guint i = 0; i < cards->len; i++)
    if (g_strcmp0 (natter_tool_call_card_get_name (g_ptr_array_index (cards, i)), name) == 0)
      return TRUE;
  return FALSE;
}

static void
test_prompts_permission (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterPermissionCard *first;
  NatterWindow *window;
  JsonObject *resolved;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sc"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}") ","
                                                   NATTER_FAKE_CALL ("c2", "sc", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Tools");
  turn_id = ui_send (u, session_id, "Run both");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  cards = wait_cards (window, NATTER_TYPE_PERMISSION_CARD, 2);
  first = g_ptr_array_index (cards, 0);
  g_assert_cmpstr (natter_permission_card_get_turn_id (first), ==, turn_id);
  g_assert_cmpstr (natter_permission_card_get_tool_call_id (first), ==, "c1");
  g_assert_cmpstr (natter_permission_card_get_tool_call_id (g_ptr_array_index (cards, 1)), ==, "c2");
  g_assert_nonnull (ui_find_button (g_ptr_array_index (cards, 1), "_Deny"));

  /* The card says in words what the call will do, the raw arguments and
   * the checker's request behind Details; the pending call has no second
   * row of its own. */
  g_assert_cmpstr (natter_permission_card_get_description (first), ==, "Use the tool “sa”");
  g_assert_true (ui_label_shown (first, "Use the tool “sa”"));
  g_assert_nonnull (strstr (natter_permission_card_get_details (first), "may I?"));
  g_assert_false (ui_label_shown (first, natter_permission_card_get_details (first)));
  g_assert_false (tool_card_shown (window, "sa"));
  g_assert_false (tool_card_shown (window, "sc"));
  natter_permission_card_set_details_expanded (first, TRUE);
  ui_save_window (GTK_WIDGET (window), "permission-card.png");
  natter_permission_card_set_details_expanded (first, FALSE);

  /* Allow on the first card decides c1 only; c2's card stays. */
  g_signal_emit_by_name (ui_find_button (first, "_Allow"), "clicked");
  ui_wait_turn_event (u, turn_id, "tool_result", "c1");
  events = ui_get_turn (u, turn_id);
  resolved = ui_find_event (events, "tool_permission_resolved", "c1");
  g_assert_cmpstr (json_object_get_string_member (resolved, "decision"), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (resolved, "source"), ==, "human");
  g_assert_null (ui_find_event (events, "tool_permission_resolved", "c2"));
  g_ptr_array_unref (cards);
  cards = wait_cards (window, NATTER_TYPE_PERMISSION_CARD, 1);
  g_assert_cmpstr (natter_permission_card_get_tool_call_id (g_ptr_array_index (cards, 0)), ==, "c2");

  /* Deny on the second finishes the batch and the turn goes on. */
  g_signal_emit_by_name (ui_find_button (g_ptr_array_index (cards, 0), "_Deny"), "clicked");
  ui_wait_turn_event (u, turn_id, "turn_completed", NULL);
  g_ptr_array_unref (events);
  events = ui_get_turn (u, turn_id);
  resolved = ui_find_event (events, "tool_permission_resolved", "c2");
  g_assert_cmpstr (json_object_get_string_member (resolved, "decision"), ==, "deny");
  g_ptr_array_unref (cards);
  cards = wait_cards (window, NATTER_TYPE_PERMISSION_CARD, 0);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_prompts_ask_human (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  NatterAskHumanCard *card;
  NatterWindow *window;
  JsonObject *result;
  gboolean question_shown = FALSE;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("q1", "ask_human",
                                                                     "{\"question\":\"Which colour?\"}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Question");
  turn_id = ui_send (u, session_id, "Ask me");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  cards = wait_cards (window, NATTER_TYPE_ASK_HUMAN_CARD, 1);
  card = g_ptr_array_index (cards, 0);
  g_assert_cmpstr (natter_ask_human_card_get_tool_call_id (card), ==, "q1");
  labels = ui_find_all (card, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    question_shown |= g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), "Which colour?") == 0;
  g_assert_true (question_shown);

  natter_ask_human_card_set_answer (card, "Blue");
  g_signal_emit_by_name (ui_find_button (card, "_Send"), "clicked");
  ui_wait_turn_event (u, turn_id, "turn_completed", NULL);
  events = ui_get_turn (u, turn_id);
  result = ui_find_event (events, "tool_result", "q1");
  g_assert_cmpstr (json_object_get_string_member (result, "source"), ==, "async");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (result, "result"), "output"),
                   ==, "Blue");
  g_ptr_array_unref (cards);
  cards = wait_cards (window, NATTER_TYPE_ASK_HUMAN_CARD, 0);

  /* The question and its answer stay in the conversation, in words, not
   * folded into a tool card; after a restart too. */
  ui_wait_until (question_and_answer_shown, window);
  ui_save_window (GTK_WIDGET (window), "answered-question.png");
  ui_destroy_window (window);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (question_and_answer_shown, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_prompts_survive_restart (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) permissions = NULL;
  g_autoptr(GPtrArray) questions = NULL;
  NatterWindow *window;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sc"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sc", "{}") ","
                                                   NATTER_FAKE_CALL ("q1", "ask_human",
                                                                     "{\"question\":\"Sure?\"}")),
                            NULL);
  session_id = ui_create_session (u, "Both");
  turn_id = ui_send (u, session_id, "Go");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  permissions = wait_cards (window, NATTER_TYPE_PERMISSION_CARD, 1);
  questions = wait_cards (window, NATTER_TYPE_ASK_HUMAN_CARD, 1);
  ui_destroy_window (window);
  g_ptr_array_unref (permissions);
  g_ptr_array_unref (questions);

  /* A new process: nothing but the files. The window reopens the last
   * session by itself. */
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);
  permissions = wait_cards (window, NATTER_TYPE_PERMISSION_CARD, 1);
  questions = wait_cards (window, NATTER_TYPE_ASK_HUMAN_CARD, 1);
  g_assert_cmpstr (natter_permission_card_get_turn_id (g_ptr_array_index (permissions, 0)), ==, turn_id);
  g_assert_cmpstr (natter_permission_card_get_tool_call_id (g_ptr_array_index (permissions, 0)), ==, "c1");
  g_assert_cmpstr (natter_ask_human_card_get_tool_call_id (g_ptr_array_index (questions, 0)), ==, "q1");

  /* The answer has not ended: a message typed now waits in the queue,
   * and Stop ends the turn (the prompts are not the only way out). */
  g_assert_null (natter_composer_get_blocked_reason (natter_window_get_composer (window)));
  g_assert_true (natter_composer_get_running (natter_window_get_composer (window)));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* What a permission card says for the built-in tools, a checker's own
 * sentence, a tool server's tool (naming the server) and any other tool;
 * text with markup characters stays text. */
static void
test_prompts_permission_words (void)
{
  static const struct {
    const char *tool;
    const char *request;
    const char *arguments;
    const char *expected;
  } cases[] = {
    { "read_file", "{\"action\":\"read\",\"path\":\"/etc/hostname\"}", "{\"path\":\"/etc/hostname\"}",
      "Read /etc/hostname" },
    { "read_file", NULL, "{\"path\":\"notes.txt\"}", "Read notes.txt" },
    { "list_directory", "{\"action\":\"list\",\"path\":\"/tmp\"}", "{\"path\":\"/tmp\"}", "List /tmp" },
    { "current_time", "{\"tool\":\"current_time\",\"arguments\":{}}", "{}", "Get the current time" },
    { "fetch_url", "{\"tool\":\"fetch_url\",\"arguments\":{\"url\":\"x\"}}", "{\"url\":\"x\"}",
      "Use the tool “fetch_url”" },
    { "sa", "\"Send the report to <b>Tom & Jerry</b>\"", "{}", "Send the report to <b>Tom & Jerry</b>" },
    { "read_file", "{\"action\":\"read\",\"path\":\"/tmp/<b>&amp;\"}", "{}", "Read /tmp/<b>&amp;" },
    { "mcp__fs__read", "{\"server\":\"fs <i>\",\"tool\":\"read\",\"arguments\":{\"path\":\"/a\"}}",
      "{\"path\":\"/a\"}", "Use “read” of the tool server “fs <i>”" },
  };
  UiWorld *u = ui_world_new ();

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) request = cases[i].request != NULL ? natter_test_json (cases[i].request) : NULL;
      g_autoptr(JsonNode) arguments = natter_test_json (cases[i].arguments);
      g_autofree char *text = natter_permission_card_describe (cases[i].tool, request, arguments);
      GtkWidget *window = gtk_window_new ();
      GtkWidget *card = natter_permission_card_new (u->sessions, "t", "c", cases[i].tool, request, arguments);

      g_assert_cmpstr (text, ==, cases[i].expected);
      gtk_window_set_child (GTK_WINDOW (window), card);
      gtk_window_present (GTK_WINDOW (window));
      ui_wait_until (ui_is_mapped, card);
      g_assert_true (ui_label_shown (card, cases[i].expected));
      g_assert_nonnull (strstr (natter_permission_card_get_details (NATTER_PERMISSION_CARD (card)),
                                cases[i].arguments[1] == '}' ? "{" : "\""));
      /* A screen reader names the expander by its title, not "GtkExpander". */
      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_find_first (card, GTK_TYPE_EXPANDER)),
                                           GTK_ACCESSIBLE_PROPERTY_LABEL, "Details");
      gtk_window_destroy (GTK_WINDOW (window));
    }
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/prompts/permission", test_prompts_permission);
  g_test_add_func ("/prompts/permission-words", test_prompts_permission_words);
  g_test_add_func ("/prompts/ask-human", test_prompts_ask_human);
  g_test_add_func ("/prompts/survive-restart", test_prompts_survive_restart);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
