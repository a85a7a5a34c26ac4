/* test-stream-end.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window shows when a streamed answer ends at the bottom of a
 * conversation long enough to scroll: the whole answer, laid out and
 * painted, without a warning from GTK (the UI tests run with
 * G_DEBUG=fatal-warnings, so "Trying to snapshot … without a current
 * allocation" fails the test).
 */

#include "natter-code-block.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* The code block of the latest row: its text is in the view, laid out at
 * least one line tall, inside a block as tall as its view. */
static gboolean
code_laid_out (gpointer data)
{
  g_autoptr(GPtrArray) blocks = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_CODE_BLOCK);
  GtkWidget *view;
  GtkTextBuffer *buffer;
  GtkTextIter first;
  g_autofree char *text = NULL;
  int y, line_height;

  if (blocks->len == 0)
    return FALSE;
  view = ui_find_first (g_ptr_array_index (blocks, blocks->len - 1), GTK_TYPE_TEXT_VIEW);
  if (view == NULL)
    return FALSE;
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  g_object_get (buffer, "text", &text, NULL);
  gtk_text_buffer_get_start_iter (buffer, &first);
  gtk_text_view_get_line_yrange (GTK_TEXT_VIEW (view), &first, &y, &line_height);
  return g_str_has_prefix (text, "ls -la ~/Documents") && line_height > 0 &&
         gtk_widget_get_height (view) >= y + line_height &&
         gtk_widget_get_height (g_ptr_array_index (blocks, blocks->len - 1)) > gtk_widget_get_height (view);
}

static void
describe_unmapped (GtkWidget *widget,
                   GString   *out)
{
  if (NATTER_IS_CODE_BLOCK (widget))
    {
      g_string_append_printf (out, " block mapped=%d visible=%d child-visible=%d h=%d;", gtk_widget_get_mapped (widget),
                              gtk_widget_get_visible (widget), gtk_widget_get_child_visible (widget),
                              gtk_widget_get_height (widget));
      for (GtkWidget *a = gtk_widget_get_parent (widget); a != NULL; a = gtk_widget_get_parent (a))
        g_string_append_printf (out, " < %s%s%s", G_OBJECT_TYPE_NAME (a), gtk_widget_get_mapped (a) ? "" : "(unmapped)",
                                gtk_widget_get_child_visible (a) ? "" : "(child-invisible)");
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    describe_unmapped (c, out);
}

static char *
describe_code (gpointer data)
{
  g_autoptr(GPtrArray) blocks = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_CODE_BLOCK);
  GtkWidget *view;
  GtkTextIter first;
  g_autofree char *text = NULL;
  int y = -1, line_height = -1;

  if (blocks->len == 0)
    {
      GString *out = g_string_new ("no code block is shown; unmapped:");

      describe_unmapped (GTK_WIDGET (data), out);
      return g_string_free (out, FALSE);
    }
  view = ui_find_first (g_ptr_array_index (blocks, blocks->len - 1), GTK_TYPE_TEXT_VIEW);
  if (view == NULL)
    return g_strdup ("the code block has no mapped view");
  g_object_get (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), "text", &text, NULL);
  gtk_text_buffer_get_start_iter (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), &first);
  gtk_text_view_get_line_yrange (GTK_TEXT_VIEW (view), &first, &y, &line_height);
  return g_strdup_printf ("%u blocks; the last one %d px high, its view %d px, its first line at %d, %d px high: %s",
                          blocks->len, gtk_widget_get_height (g_ptr_array_index (blocks, blocks->len - 1)),
                          gtk_widget_get_height (view), y, line_height, text);
}

#define EARLIER_ANSWER \
  "{\"role\":\"assistant\",\"content\":\"An earlier answer, long enough to take some room:\\n\\n" \
  "- one point that is made at some length so that it wraps in the window\\n" \
  "- another point, also long enough to wrap at least once in the window\\n\\n" \
  "And a closing paragraph.\"}"

/* @away: mid-stream, the title changes and another conversation is
 * looked at, then this one again, as a user does while a first answer
 * streams. */
static void
check_stream_end (int      width,
                  int      height,
                  gboolean away)
{
  g_autofree char *other = NULL;
  static const char *deltas[] = {
    "Here ", "is ", "the ", "command:\n\n", "``", "`sh", "\n", "ls", " -la", " ~/Doc", "uments",
    "\nfind . -name '*.txt' -newer ", "reference.txt -exec grep -l 'something long' {} + ", "| sort | uniq -c | sort -rn | head -n 20",
    "\n``", "`\n", "\nIt ", "lists ", "them, ", "one ", "per ", "line.\n\n",
    "A second paragraph ", "follows, long enough to wrap in the window at least once or twice.\n\n",
    "- a list item\n", "- another item\n",
  };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;

  other = ui_create_session (u, "Another conversation");
  session_id = ui_create_session (u, "Long conversation");
  g_autofree char *turn_id = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(JsonNode) message = natter_test_json ("{\"role\":\"assistant\"}");
  NatterWindow *window;

  for (int i = 0; i < 8; i++)
    {
      g_autofree char *question = g_strdup_printf ("Question %d", i);
      g_autofree char *id = NULL;

      natter_fake_model_script (u->w->fakes->model, EARLIER_ANSWER, NULL);
      id = ui_send (u, session_id, question);
      ui_wait_turn (u, id);
    }

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  /* What choosing the conversation does on a narrow (folded) window. */
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (ui_is_mapped, natter_window_get_timeline_list (window));
  turn_id = ui_send (u, session_id, "Which command lists files?");
  ui_wait_model_held (u);
  for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
    {
      natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, deltas[i]);
      g_string_append (answer, deltas[i]);
      ui_wait_painted ();
      if (away && i == 8)
        {
          ui_set_title (u, session_id, "Listing files");
          g_assert_true (natter_window_open_session (window, other));
          ui_wait_painted ();
        }
      if (away && i == 12)
        {
          g_assert_true (natter_window_open_session (window, session_id));
          adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)),
                                ADW_NAVIGATION_DIRECTION_FORWARD);
          ui_wait_painted ();
        }
    }
  json_object_set_string_member (json_node_get_object (message), "content", answer->str);
  literal = json_to_string (message, FALSE);
  natter_fake_model_release_with (u->w->fakes->model, literal);
  ui_wait_turn (u, turn_id);
  for (int i = 0; i < 10; i++)
    ui_wait_painted ();
  /* Without any resize: the block shows its code at its height. */
  ui_wait_until_full (code_laid_out, describe_code, window);
  {
    g_autofree char *name = g_strdup_printf ("stream-end-%d%s.png", width, away ? "-away" : "");

    ui_save_window (GTK_WIDGET (window), name);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_stream_end_scrolling (void)
{
  check_stream_end (800, 500, FALSE);
  check_stream_end (360, 640, FALSE);
  check_stream_end (800, 500, TRUE);
  check_stream_end (360, 640, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/stream-end/scrolling", test_stream_end_scrolling);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
