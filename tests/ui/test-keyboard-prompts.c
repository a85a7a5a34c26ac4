/* test-keyboard-prompts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Prompts and the conversation's controls on the Tab path: a permission
 * card, a question, tool cards, code blocks and the message actions.
 */

#include "test-keyboard.h"

/* Prompts */

typedef struct
{
  NatterWindow *window;
  GType         type;
} CardWait;

static gboolean
card_shown (gpointer data)
{
  CardWait *w = data;
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (w->window, w->type);
  return cards->len > 0;
}

static GtkWidget *
wait_card (NatterWindow *window,
           GType         type)
{
  CardWait w = { window, type };
  g_autoptr(GPtrArray) cards = NULL;

  ui_wait_until (card_shown, &w);
  cards = ui_find_all (window, type);
  return g_ptr_array_index (cards, 0);
}

static gboolean
reached (GPtrArray *cycle,
         GtkWidget *widget)
{
  for (guint i = 0; i < cycle->len; i++)
    {
      GtkWidget *focus = g_ptr_array_index (cycle, i);

      if (focus == widget || gtk_widget_is_ancestor (focus, widget))
        return TRUE;
    }
  return FALSE;
}

static void
assert_reachable (GPtrArray  *cycle,
                  GtkWidget  *widget,
                  const char *what)
{
  g_assert_true (gtk_widget_get_focusable (widget) || gtk_widget_get_first_child (widget) != NULL);
  if (!reached (cycle, widget))
    g_error ("Tab never reaches %s", what);
}

static gboolean
is_insensitive (gpointer widget)
{
  return !gtk_widget_is_sensitive (widget);
}

/* A button's activate (Space, Enter) presses it for a moment before it
 * clicks: the decision is taken once the card's buttons go insensitive. */
static void
wait_insensitive (GtkWidget *widget)
{
  ui_wait_until (is_insensitive, widget);
}

void
test_keyboard_permission_prompt (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *card, *allow, *deny;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Tools");
  turn_id = ui_send (u, session_id, "Run it");
  ui_wait_turn (u, turn_id);

  window = window_new (u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  card = wait_card (window, NATTER_TYPE_PERMISSION_CARD);
  allow = ui_find_button (card, "_Allow");
  deny = ui_find_button (card, "_Deny");
  g_assert_true (gtk_widget_get_focusable (allow));
  g_assert_true (gtk_widget_get_focusable (deny));
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (allow)));
  g_assert_true (gtk_button_get_use_underline (GTK_BUTTON (deny)));

  /* Both buttons are on the Tab path, and Tab goes on round the window:
   * the composer, reached from the card by Tab, does not send Tab back
   * to the card, which would keep it going round between the two. */
  cycle = tab_cycle (window);
  assert_reachable (cycle, allow, "Allow");
  assert_reachable (cycle, deny, "Deny");
  ui_assert_tab_stops_named (cycle, "a permission card");

  /* From the composer (which would queue a message, and offers Stop),
   * Tab goes straight to Allow; Shift+Tab from there is Deny. */
  g_assert_true (press (window, "<Control>l"));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_true (natter_composer_get_running (composer));
  g_assert_true (press_key_controllers (window, GDK_KEY_Tab));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == allow);
  tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == deny);
  tab (window, GTK_DIR_TAB_FORWARD);

  /* Space/Enter on Allow (the button's activate) decides; the focus,
   * gone with the card's buttons, is back in the composer at once, not
   * wherever GTK would move it on the next frame. */
  gtk_widget_activate (allow);
  wait_insensitive (allow);
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (composer)));
  ui_wait_turn_event (u, turn_id, "turn_completed", NULL);
  events = ui_get_turn (u, turn_id);
  g_assert_cmpstr (json_object_get_string_member (ui_find_event (events, "tool_permission_resolved", "c1"), "decision"),
                   ==, "allow");
  wait_focus_in (window, composer);

  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_keyboard_ask_human_prompt (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  NatterWindow *window;
  GtkWidget *card, *entry, *send;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("q1", "ask_human",
                                                                     "{\"question\":\"Which colour?\"}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Question");
  turn_id = ui_send (u, session_id, "Ask me");
  ui_wait_turn (u, turn_id);

  window = window_new (u);
  g_assert_true (natter_window_open_session (window, session_id));
  card = wait_card (window, NATTER_TYPE_ASK_HUMAN_CARD);
  entries = ui_find_all (card, GTK_TYPE_ENTRY);
  g_assert_cmpuint (entries->len, ==, 1);
  entry = g_ptr_array_index (entries, 0);
  send = ui_find_button (card, "_Send");
  g_assert_nonnull (send);

  cycle = tab_cycle (window);
  assert_reachable (cycle, entry, "the answer entry");
  /* Send is insensitive until there is an answer; then it is reachable. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "Blue");
  g_ptr_array_unref (g_steal_pointer (&cycle));
  cycle = tab_cycle (window);
  assert_reachable (cycle, send, "Send");
  ui_assert_tab_stops_named (cycle, "a question");
  gtk_editable_set_text (GTK_EDITABLE (entry), "");

  /* Composer → Tab → the entry; type; Enter sends. */
  g_assert_true (press (window, "<Control>l"));
  g_assert_true (press_key_controllers (window, GDK_KEY_Tab));
  g_assert_true (has_focus_in (GTK_WIDGET (window), entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Blue");
  /* Enter in the entry's text sends. */
  g_assert_true (GTK_IS_TEXT (gtk_root_get_focus (GTK_ROOT (window))));
  g_signal_emit_by_name (gtk_root_get_focus (GTK_ROOT (window)), "activate");
  g_assert_true (has_focus_in (GTK_WIDGET (window), GTK_WIDGET (natter_window_get_composer (window))));
  ui_wait_turn_event (u, turn_id, "turn_completed", NULL);
  wait_focus_in (window, natter_window_get_composer (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The conversation's controls */

static gboolean
has_turn_rows (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  return rows->len > 0;
}

static GtkWidget *
find_button_with_icon_or_label (GtkWidget  *root,
                                const char *label)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      const char *tooltip = gtk_widget_get_tooltip_text (button);

      if (g_strcmp0 (gtk_button_get_label (GTK_BUTTON (button)), label) == 0 ||
          g_strcmp0 (tooltip, label) == 0)
        return button;
    }
  return NULL;
}

static gboolean
has_code_copy (gpointer data)
{
  ui_settle ();
  return find_button_with_icon_or_label (data, "Copy Message") != NULL &&
         find_button_with_icon_or_label (data, "Copy code") != NULL;
}

#define RICH_STEP \
  "{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"reasoning\",\"text\":\"Thinking.\"}," \
  NATTER_FAKE_CALL ("c1", "sa", "{\"path\":\"notes.txt\"}") "]}"

void
test_keyboard_conversation_controls (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Rich");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) cycle = NULL;
  g_autoptr(GPtrArray) expanders = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) blocks = NULL;
  NatterWindow *window;
  GtkWidget *timeline;
  GtkWidget *copy, *branch, *retry, *code_copy, *read_aloud;

  natter_fake_model_script (u->w->fakes->model, RICH_STEP,
                            "{\"role\":\"assistant\",\"content\":\"Here:\\n\\n```c\\nint x;\\n```\\n\"}", NULL);
  window = window_new (u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Show me");
  ui_wait_turn (u, turn_id);
  ui_wait_until (has_turn_rows, window);
  timeline = natter_window_get_timeline_list (window);
  ui_wait_until (has_code_copy, timeline);

  copy = find_button_with_icon_or_label (timeline, "Copy Message");
  branch = find_button_with_icon_or_label (timeline, "_Branch from Here");
  retry = find_button_with_icon_or_label (timeline, "_Try Again");
  code_copy = find_button_with_icon_or_label (timeline, "Copy code");
  read_aloud = find_button_with_icon_or_label (timeline, "Read Aloud");
  expanders = ui_find_all (timeline, GTK_TYPE_EXPANDER);
  cards = ui_find_all (timeline, NATTER_TYPE_TOOL_CALL_CARD);
  blocks = ui_find_all (timeline, NATTER_TYPE_CODE_BLOCK);
  g_assert_nonnull (copy);
  g_assert_nonnull (branch);
  g_assert_nonnull (retry);
  g_assert_nonnull (code_copy);
  g_assert_nonnull (read_aloud);
  g_assert_cmpuint (cards->len, ==, 1);
  g_assert_cmpuint (blocks->len, ==, 1);
  g_assert_cmpuint (expanders->len, >=, 2);   /* reasoning + the tool card */

  /* Always shown (not on hover only), focusable, and on the Tab path;
   * Read Aloud, which shows while the focus is in its answer, too. */
  cycle = tab_cycle (window);
  assert_reachable (cycle, copy, "Copy Message");
  assert_reachable (cycle, branch, "Branch from Here");
  assert_reachable (cycle, retry, "Try Again");
  assert_reachable (cycle, read_aloud, "Read Aloud");
  assert_reachable (cycle, code_copy, "the code block's Copy");
  for (guint i = 0; i < expanders->len; i++)
    assert_reachable (cycle, g_ptr_array_index (expanders, i), "an expander (reasoning, tool call)");
  ui_assert_tab_stops_named (cycle, "an answer with reasoning, a tool call and code");

  /* The tool card opens from the keyboard: its expander's activate is
   * what Enter and Space do. */
  g_assert_false (natter_tool_call_card_get_expanded (g_ptr_array_index (cards, 0)));
  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_is_ancestor (g_ptr_array_index (expanders, i), g_ptr_array_index (cards, 0)))
      gtk_widget_activate (g_ptr_array_index (expanders, i));
  g_assert_true (natter_tool_call_card_get_expanded (g_ptr_array_index (cards, 0)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static const char *
focused_turn_id (NatterWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_ancestor (focus, NATTER_TYPE_TURN_ROW) : NULL;

  return row != NULL ? natter_turn_item_get_turn_id (natter_turn_row_get_item (NATTER_TURN_ROW (row))) : NULL;
}

/* Shift+Tab from the message field goes up into the conversation at its
 * newest turn, the one just read, through that turn's last control; not
 * to the first turn of the conversation, where GTK's list would go. */
void
test_keyboard_shift_tab_enters_newest_turn (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Several");
  char *turn_ids[4] = { NULL };
  const char *messages[] = { "one", "two", "three", "four" };
  NatterWindow *window;
  GtkWidget *timeline;
  GtkWidget *composer;
  GtkWidget *item;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (turn_ids); i++)
    {
      turn_ids[i] = ui_send (u, session_id, messages[i]);
      ui_wait_turn (u, turn_ids[i]);
    }
  window = window_new (u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (has_turn_rows, window);
  timeline = natter_window_get_timeline_list (window);
  composer = GTK_WIDGET (natter_window_get_composer (window));
  gtk_widget_grab_focus (composer);
  wait_focus_in (window, composer);

  /* Out of the message field, past the attach button. */
  while (has_focus_in (GTK_WIDGET (window), composer))
    tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_cmpstr (focused_turn_id (window), ==, turn_ids[3]);
  g_assert_true (gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (window)), timeline));
  /* A screen reader names the turn by the message that began it. */
  item = ui_list_item_of (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (gtk_widget_get_parent (item) == timeline);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (item), GTK_ACCESSIBLE_PROPERTY_LABEL, "Your message: four");

  /* On up from there, through the newest turn's controls to the turn
   * above it. */
  while (g_strcmp0 (focused_turn_id (window), turn_ids[3]) == 0)
    tab (window, GTK_DIR_TAB_BACKWARD);
  g_assert_cmpstr (focused_turn_id (window), ==, turn_ids[2]);

  ui_destroy_window (window);
  ui_world_free (u);
  for (guint i = 0; i < G_N_ELEMENTS (turn_ids); i++)
    g_free (turn_ids[i]);
}
