/* test-rich-code-blocks.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Code blocks in an answer: a whole one, and one that streams in a
 * piece at a time.
 */

#include "test-rich.h"

/* Code blocks */

static gboolean
ui_has_code_block (gpointer data)
{
  return ui_find_first (data, NATTER_TYPE_CODE_BLOCK) != NULL;
}

/* A fenced block of @n_lines numbered lines, as a model's JSON message. */
static char *
code_answer (guint n_lines)
{
  g_autoptr(GString) json = g_string_new ("{\"role\":\"assistant\",\"content\":\"Here:\\n\\n```c\\n");

  for (guint i = 1; i <= n_lines; i++)
    g_string_append_printf (json, "int line_%u = %u;\\n", i, i);
  g_string_append (json, "```\\n\"}");
  return g_string_free (g_steal_pointer (&json), FALSE);
}

typedef struct
{
  GtkWidget *block;
  guint      n_lines;
} BlockShown;

/* Whether every one of the @n_lines lines of the code block's view is
 * inside its allocation, with nothing to scroll vertically. */
static gboolean
code_lines_shown (gpointer data)
{
  BlockShown *b = data;
  GtkTextView *view = GTK_TEXT_VIEW (ui_find_first (b->block, GTK_TYPE_TEXT_VIEW));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (GTK_WIDGET (view),
                                                                              GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *vadj = gtk_scrolled_window_get_vadjustment (scroller);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter first, last;
  int first_y, line_height, last_y, last_height;

  if (gtk_text_buffer_get_line_count (buffer) < (int) b->n_lines)
    return FALSE;
  gtk_text_buffer_get_start_iter (buffer, &first);
  gtk_text_buffer_get_iter_at_line (buffer, &last, b->n_lines - 1);
  gtk_text_view_get_line_yrange (view, &first, &first_y, &line_height);
  gtk_text_view_get_line_yrange (view, &last, &last_y, &last_height);
  return line_height > 0 &&
         gtk_widget_get_height (GTK_WIDGET (scroller)) >= (int) b->n_lines * line_height &&
         gtk_widget_get_height (GTK_WIDGET (view)) >= last_y + last_height &&
         gtk_adjustment_get_upper (vadj) - gtk_adjustment_get_page_size (vadj) < 1 &&
         !gtk_widget_get_child_visible (gtk_scrolled_window_get_vscrollbar (scroller));
}

static char *
describe_block (gpointer data)
{
  BlockShown *b = data;
  GtkTextView *view = GTK_TEXT_VIEW (ui_find_first (b->block, GTK_TYPE_TEXT_VIEW));
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *vadj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

  return g_strdup_printf ("code block of %u lines: scroller %d px high, view %d px, %d lines in the view, "
                          "vadjustment upper %.0f page %.0f",
                          b->n_lines, gtk_widget_get_height (scroller), gtk_widget_get_height (GTK_WIDGET (view)),
                          gtk_text_buffer_get_line_count (gtk_text_view_get_buffer (view)),
                          gtk_adjustment_get_upper (vadj), gtk_adjustment_get_page_size (vadj));
}

/* The code block of @turn_id's row, once the row shows it. */
static GtkWidget *
code_block_of (NatterWindow *window,
               const char   *turn_id)
{
  NatterTurnRow *row = row_for_turn (window, turn_id);
  GtkWidget *block;

  ui_wait_until (ui_has_code_block, row);
  block = ui_find_first (row, NATTER_TYPE_CODE_BLOCK);
  g_assert_nonnull (block);
  return block;
}

/* A block that arrives a piece at a time, as a server streams it (the
 * fence first, its one line after), is as tall as its code once the
 * answer is in: its height follows what was appended. */
void
test_rich_code_block_streamed (void)
{
  static const char *deltas[] = {
    "Here is code:\n\n", "```python\n", "print('hi')\n", "```\n\n", "Done.",
  };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streamed code");
  g_autofree char *turn_id = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(JsonNode) message = natter_test_json ("{\"role\":\"assistant\"}");
  NatterWindow *window;
  BlockShown b;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Some Python");
  ui_wait_model_held (u);
  for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
    {
      natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, deltas[i]);
      g_string_append (answer, deltas[i]);
      ui_wait_painted ();
    }
  json_object_set_string_member (json_node_get_object (message), "content", answer->str);
  literal = json_to_string (message, FALSE);
  natter_fake_model_release_with (u->w->fakes->model, literal);
  ui_wait_turn (u, turn_id);
  /* The conversation is then named (automatic titles), which the
   * timeline hears of as well. */
  {
    g_autoptr(GAsyncResult) result = NULL;

    natter_sessions_set_title_async (u->sessions, session_id, "Printing hi", NULL, ui_result_cb, &result);
    ui_wait_until (ui_result_ready, &result);
    g_assert_true (natter_sessions_set_title_finish (u->sessions, result, NULL));
  }
  for (int i = 0; i < 5; i++)
    ui_wait_painted ();

  b = (BlockShown) { code_block_of (window, turn_id), 1 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);

  ui_destroy_window (window);
  ui_world_free (u);
}

void
test_rich_code_block_whole (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *short_session = ui_create_session (u, "Code");
  g_autofree char *long_session = ui_create_session (u, "Long code");
  g_autofree char *short_answer = code_answer (10);
  g_autofree char *long_answer = code_answer (100);
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *code = NULL;
  NatterWindow *window;
  GtkWidget *expander;
  BlockShown b;

  natter_fake_model_script (u->w->fakes->model, short_answer, long_answer, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, short_session));
  t1 = ui_send (u, short_session, "Ten lines of C");
  ui_wait_turn (u, t1);

  /* Live: all ten lines, no scrollbar of its own, nothing to expand. */
  b = (BlockShown) { code_block_of (window, t1), 10 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  g_assert_null (ui_find_first (b.block, GTK_TYPE_EXPANDER));
  save_screenshots (GTK_WIDGET (window), "code-block");

  g_assert_true (natter_window_open_session (window, long_session));
  t2 = ui_send (u, long_session, "A hundred lines of C");
  ui_wait_turn (u, t2);

  /* A very long block is capped, and its expander shows all of it; Copy
   * still copies all of it. */
  b = (BlockShown) { code_block_of (window, t2), 100 };
  expander = ui_find_first (b.block, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  g_assert_false (code_lines_shown (&b));
  code = natter_code_block_dup_code (NATTER_CODE_BLOCK (b.block));
  g_assert_true (g_str_has_suffix (code, "\nint line_100 = 100;"));
  save_screenshots (GTK_WIDGET (window), "code-block-capped");
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  ui_destroy_window (window);

  /* After a restart, the same. */
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, short_session));
  b = (BlockShown) { code_block_of (window, t1), 10 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  g_assert_true (natter_window_open_session (window, long_session));
  b = (BlockShown) { code_block_of (window, t2), 100 };
  expander = ui_find_first (b.block, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (code_lines_shown (&b));
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_wait_until_full (code_lines_shown, describe_block, &b);

  ui_destroy_window (window);
  ui_world_free (u);
}
