/* test-keyboard-cycle.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tab and Shift+Tab go round the whole window and back to where they
 * started: from the message field through the header, the sidebar's
 * rows and the conversation's controls, in a conversation scrolled to
 * its newest answers and in a new chat. Each press is the key as GTK
 * handles it (test-keyboard-fixture.c), so a widget that claims the
 * focus without taking it shows up as the focus staying put.
 */

#include "natter-agent-store.h"
#include "test-keyboard.h"

/* An answer a few screens long: the conversation opens at its bottom,
 * its first turns scrolled away above. */
static char *
long_answer_step (guint n)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint p = 0; p < 40; p++)
    g_string_append_printf (text, "Answer %u, paragraph %u: words enough for a line of the window or two.\\n\\n", n, p);
  return g_strdup_printf ("{\"role\":\"assistant\",\"content\":\"%s\"}", text->str);
}

static void
tab_forward (gpointer window)
{
  tab (window, GTK_DIR_TAB_FORWARD);
}

static void
tab_backward (gpointer window)
{
  tab (window, GTK_DIR_TAB_BACKWARD);
}

/* A window as the application makes it: its composer offers the agents
 * of @agents (Assistant alone while the folder is empty). */
static NatterWindow *
window_with_agents (UiWorld          *u,
                    NatterAgentStore *agents)
{
  NatterWindow *window = window_new (u);

  natter_window_set_agent_store (window, agents);
  return window;
}

static NatterAgentStore *
agent_store_new (UiWorld *u)
{
  g_autoptr(GFile) dir = g_file_get_child (u->w->dir, "agents");

  return natter_agent_store_new (dir);
}

static gboolean
has_turn_rows (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  return rows->len > 0;
}

/* Whether a widget of @cycle is @widget or inside it. */
static gboolean
reached_in (GPtrArray *cycle,
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

/* Whether @cycle reached a button inside @root named @name: its tooltip
 * (an icon button) or its label. */
static gboolean
reached_button (GPtrArray  *cycle,
                GtkWidget  *root,
                const char *name)
{
  for (guint i = 0; i < cycle->len; i++)
    {
      GtkWidget *focus = g_ptr_array_index (cycle, i);

      if (GTK_IS_BUTTON (focus) && gtk_widget_is_ancestor (focus, root) &&
          (g_strcmp0 (gtk_widget_get_tooltip_text (focus), name) == 0 ||
           g_strcmp0 (gtk_button_get_label (GTK_BUTTON (focus)), name) == 0))
        return TRUE;
    }
  return FALSE;
}

/* Every conversation's row the sidebar shows is reached, those under
 * a title ("Recent") too. */
static void
assert_every_row (NatterWindow *window,
                  GPtrArray    *cycle,
                  const char   *where)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (rows, i);
      gboolean reached = FALSE;

      for (guint j = 0; !reached && j < cycle->len; j++)
        reached = gtk_widget_is_ancestor (row, g_ptr_array_index (cycle, j));
      if (!reached)
        g_error ("%s: Tab never reaches the row of %s", where,
                 natter_session_index_entry_get_title (natter_session_row_get_entry (NATTER_SESSION_ROW (row))));
    }
}

/* The parts of the window every way round must go through: the header
 * over the sidebar, the header over the conversation and the composer's
 * buttons, the agent chooser's too; a row of the sidebar when it lists
 * any. */
static void
assert_whole_window (NatterWindow *window,
                     GPtrArray    *cycle,
                     const char   *where)
{
  GtkWidget *composer = GTK_WIDGET (natter_window_get_composer (window));

  if (!reached_button (cycle, GTK_WIDGET (window), "New Chat"))
    g_error ("%s: Tab never reaches New Chat", where);
  if (g_list_model_get_n_items (natter_window_get_sidebar_model (window)) > 0 &&
      !reached_in (cycle, natter_window_get_session_list (window)))
    g_error ("%s: Tab never reaches the sidebar's rows", where);
  assert_every_row (window, cycle, where);
  if (!reached_in (cycle, GTK_WIDGET (natter_window_get_model_picker (window))))
    g_error ("%s: Tab never reaches the model picker", where);
  if (!reached_button (cycle, composer, "Attach Files"))
    g_error ("%s: Tab never reaches Attach Files", where);
  if (!reached_in (cycle, GTK_WIDGET (natter_composer_get_agent_chooser (NATTER_COMPOSER (composer)))))
    g_error ("%s: Tab never reaches the agent chooser", where);
}

/* The newest answer's actions, on screen at the bottom of the
 * conversation. */
static void
assert_answer_actions (NatterWindow *window,
                       GPtrArray    *cycle,
                       const char   *where)
{
  GtkWidget *timeline = natter_window_get_timeline_list (window);
  const char *actions[] = { "Copy Message", "_Branch from Here", "_Try Again" };

  for (gsize i = 0; i < G_N_ELEMENTS (actions); i++)
    if (!reached_button (cycle, timeline, actions[i]))
      g_error ("%s: Tab never reaches the answer's %s", where, actions[i]);
}

/* Tab and Shift+Tab from the message field of a conversation whose
 * first turns are scrolled away come back to it, through the
 * answers' actions, the sidebar and the headers. GTK's list enters at
 * the turn it last focused, the first of the conversation, which has no
 * widget while it is scrolled away; the list then refused the focus and
 * its scrolled window kept Tab on the header's last button. */
void
test_keyboard_tab_around_answers (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterAgentStore) agents = agent_store_new (u);
  g_autofree char *session_id = ui_create_session (u, "Long answers");
  g_autoptr(GPtrArray) forward = NULL;
  g_autoptr(GPtrArray) backward = NULL;
  NatterWindow *window;
  GtkWidget *timeline;
  GtkWidget *message;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *step = long_answer_step (i);
      g_autofree char *question = g_strdup_printf ("Question %u", i);
      g_autofree char *turn_id = NULL;

      natter_fake_model_script (u->w->fakes->model, step, NULL);
      turn_id = ui_send (u, session_id, question);
      ui_wait_turn (u, turn_id);
    }
  window = window_with_agents (u, agents);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (has_turn_rows, window);
  ui_wait_painted ();
  timeline = natter_window_get_timeline_list (window);
  /* What this is about: the first turn is not on screen. */
  g_assert_false (gtk_widget_get_mapped (gtk_widget_get_first_child (timeline)));

  g_assert_true (press (window, "<Control>l"));
  message = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (gtk_widget_is_ancestor (message, GTK_WIDGET (natter_window_get_composer (window))));

  forward = ui_tab_cycle_from_focus (window, tab_forward);
  assert_whole_window (window, forward, "Tab in a conversation");
  assert_answer_actions (window, forward, "Tab in a conversation");

  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == message);
  backward = ui_tab_cycle_from_focus (window, tab_backward);
  assert_whole_window (window, backward, "Shift+Tab in a conversation");
  assert_answer_actions (window, backward, "Shift+Tab in a conversation");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Whether the sidebar's first row is a title ("Pinned"), not a
 * conversation. */
static gboolean
sidebar_lists_title (gpointer data)
{
  g_autoptr(GObject) first = NULL;

  ui_settle ();
  first = g_list_model_get_item (natter_window_get_sidebar_model (data), 0);
  return first != NULL && !NATTER_IS_SESSION_INDEX_ENTRY (first);
}

static gboolean
sidebar_lists_no_title (gpointer data)
{
  g_autoptr(GObject) first = NULL;

  ui_settle ();
  first = g_list_model_get_item (natter_window_get_sidebar_model (data), 0);
  return first != NULL && NATTER_IS_SESSION_INDEX_ENTRY (first);
}

/* Tab, then Shift+Tab, from the message field of a new chat round the
 * window and back to it. */
static void
assert_around_new_chat (NatterWindow *window,
                        const char   *where)
{
  GtkWidget *composer = GTK_WIDGET (natter_window_get_composer (window));
  g_autofree char *backwards = g_strdup_printf ("Shift+Tab %s", where);
  g_autofree char *forwards = g_strdup_printf ("Tab %s", where);
  g_autoptr(GPtrArray) forward = NULL;
  g_autoptr(GPtrArray) backward = NULL;
  GtkWidget *message;

  g_assert_true (press (window, "<Control>n"));
  wait_focus_in (window, composer);
  g_assert_null (natter_window_get_session_id (window));
  message = gtk_root_get_focus (GTK_ROOT (window));

  forward = ui_tab_cycle_from_focus (window, tab_forward);
  assert_whole_window (window, forward, forwards);
  ui_assert_tab_stops_named (forward, forwards);

  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == message);
  backward = ui_tab_cycle_from_focus (window, tab_backward);
  assert_whole_window (window, backward, backwards);
}

/* In a new chat, whose timeline is empty, Tab and Shift+Tab from the
 * message field come back to it through the headers and the sidebar:
 * the empty timeline's scrolled window used to keep Tab on the model
 * picker, and Shift+Tab on the attach button; the agent chooser kept
 * Shift+Tab on itself. With nothing listed yet, as for a new user, with
 * a conversation pinned under a title in the sidebar, and with it
 * unpinned. */
void
test_keyboard_tab_around_new_chat (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterAgentStore) agents = agent_store_new (u);
  NatterWindow *window = window_with_agents (u, agents);
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *other_id = NULL;
  g_autofree char *other_turn_id = NULL;

  assert_around_new_chat (window, "in a new chat, nothing listed");
  ui_destroy_window (window);

  /* "Pinned", a title that takes no focus, heads the list: GTK's list
   * entered at it, its first item, and took no focus, and its scrolled
   * window kept Tab on the main menu. From the pinned row, GTK's list
   * left at the next title, never reaching the rows under it. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  session_id = ui_create_session (u, "Listed");
  turn_id = ui_send (u, session_id, "Hello");
  ui_wait_turn (u, turn_id);
  other_id = ui_create_session (u, "Recent one");
  other_turn_id = ui_send (u, other_id, "Hello again");
  ui_wait_turn (u, other_turn_id);
  ui_set_pinned (u, session_id, TRUE);
  window = window_with_agents (u, agents);
  ui_wait_until (sidebar_lists_title, window);
  assert_around_new_chat (window, "in a new chat beside a pinned one");

  ui_set_pinned (u, session_id, FALSE);
  ui_wait_until (sidebar_lists_no_title, window);
  assert_around_new_chat (window, "in a new chat beside a listed one");

  ui_destroy_window (window);
  ui_world_free (u);
}
