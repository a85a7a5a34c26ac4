/* test-timeline.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The timeline (docs/sessions.md §10.3): each turn shows its input
 * and its own answer; live deltas show in an overlay that the canonical
 * model_call_completed replaces; a failed turn offers Try Again, which
 * sends a new turn; a turn streaming while another session is shown is
 * live when the user comes back. A long session opens fast, reading only
 * the turns its rows show, also after scrolling; a turn suspended on a
 * prompt says it waits for the user, live or after a restart. Long
 * sessions are in test-timeline-long.c.
 */

#include <string.h>

#include "natter-provider-error.h"
#include "natter-text-direction.h"
#include "test-timeline.h"

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
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "First question"));
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "Second question"));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==, 2);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The paragraph of an answer in @window whose text is exactly @text. */
static GtkLabel *
label_saying (NatterWindow *window,
              const char   *text)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_timeline_list (window), GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), text) == 0 &&
        gtk_widget_has_css_class (g_ptr_array_index (labels, i), "natter-md-paragraph"))
      return g_ptr_array_index (labels, i);
  g_assert_not_reached ();
}

static gboolean
label_laid_out (gpointer data)
{
  ui_settle ();
  return gtk_widget_get_width (data) > 0 && gtk_widget_get_mapped (data);
}

/* Where @label's text starts from its left edge, and how far its text
 * ends from its right edge, in pixels. */
static void
text_margins (GtkLabel *label,
              int      *left,
              int      *right)
{
  PangoRectangle logical;
  int x;

  ui_wait_until (label_laid_out, label);
  gtk_label_get_layout_offsets (label, &x, NULL);
  pango_layout_get_pixel_extents (gtk_label_get_layout (label), NULL, &logical);
  *left = x + logical.x;
  *right = gtk_widget_get_width (GTK_WIDGET (label)) - (x + logical.x + logical.width);
}

#define ARABIC "مرحبا، كيف يمكنني المساعدة اليوم؟"
#define MIXED_RTL "٣ كتب عن GTK"
#define MIXED_LTR "Natter يجيب بالعربية"

/* A paragraph that starts in Arabic or Hebrew starts at the right, an
 * answer's as the person's message, in a window in English; one that
 * starts in a left-to-right script stays at the left, whatever follows,
 * and one that starts with digits goes by its first letter. */
static void
test_timeline_right_to_left (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Directions");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterWindow *window;
  int left, right;

  g_assert_cmpint (natter_text_direction_of (ARABIC), ==, GTK_TEXT_DIR_RTL);
  g_assert_cmpint (natter_text_direction_of ("«שלום» world"), ==, GTK_TEXT_DIR_RTL);
  g_assert_cmpint (natter_text_direction_of (MIXED_RTL), ==, GTK_TEXT_DIR_RTL);
  g_assert_cmpint (natter_text_direction_of (MIXED_LTR), ==, GTK_TEXT_DIR_LTR);
  g_assert_cmpint (natter_text_direction_of ("42 — !"), ==, GTK_TEXT_DIR_NONE);
  /* A right-to-left mark ahead of neutral text decides it, as in Pango. */
  g_assert_cmpint (natter_text_direction_of ("\u200F1. (x)"), ==, GTK_TEXT_DIR_RTL);

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"" ARABIC "\\n\\n" MIXED_LTR "\"}",
                            "{\"role\":\"assistant\",\"content\":\"" MIXED_RTL "\"}",
                            NULL);
  t1 = ui_send (u, session_id, ARABIC);
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, MIXED_LTR);
  ui_wait_turn (u, t2);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  wait_texts (window, ARABIC "\n\n" MIXED_LTR "|" MIXED_RTL);
  g_assert_cmpint (gtk_widget_get_direction (GTK_WIDGET (window)), ==, GTK_TEXT_DIR_LTR);

  /* The answer's paragraphs: each starts where its text does. */
  text_margins (label_saying (window, ARABIC), &left, &right);
  g_assert_cmpint (right, <=, 1);
  g_assert_cmpint (left, >, 100);
  text_margins (label_saying (window, MIXED_RTL), &left, &right);
  g_assert_cmpint (right, <=, 1);
  g_assert_cmpint (left, >, 100);
  text_margins (label_saying (window, MIXED_LTR), &left, &right);
  g_assert_cmpint (left, <=, 1);

  /* The person's messages: their bubbles are as wide as their words, so
   * it is the label's direction that places a wrapped line. */
  {
    g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_timeline_list (window), GTK_TYPE_LABEL);
    guint rtl = 0, ltr = 0;

    for (guint i = 0; i < labels->len; i++)
      {
        GtkWidget *label = g_ptr_array_index (labels, i);

        if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), ARABIC) == 0)
          rtl += gtk_widget_get_direction (label) == GTK_TEXT_DIR_RTL;
        else if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), MIXED_LTR) == 0)
          ltr += gtk_widget_get_direction (label) == GTK_TEXT_DIR_LTR;
      }
    /* The message and the answer's paragraph, each. */
    g_assert_cmpuint (rtl, ==, 2);
    g_assert_cmpuint (ltr, ==, 2);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Control characters from the server, and in the person's own message,
 * show as the command line's stand-ins (ESC as ␛), not as boxes of hex
 * digits: in the message bubble, in the answer's text, in an HTML block
 * shown as text and in a table cell that is not inline content. What is
 * stored stays as it was written. */
static void
test_timeline_control_pictures (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Controls");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"a\\u001b[31mred\\n\\n"
                            "<div>\\u001b[0m</div>\\n\\n| h |\\n|---|\\n| # b\\u0007 |\\n\\nend\"}",
                            NULL);
  turn_id = ui_send (u, session_id, "Hi \x1b[31mred");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_label (natter_window_get_timeline_list (window), "end");
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "Hi \xe2\x90\x9b[31mred"));
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "a\xe2\x90\x9b[31mred"));
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "<div>\xe2\x90\x9b[0m</div>"));
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "# b\xe2\x90\x87"));
  labels = ui_find_all (natter_window_get_timeline_list (window), GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (g_ptr_array_index (labels, i));

      g_assert_null (strchr (text, '\x1b'));
      g_assert_null (strchr (text, '\x07'));
    }

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_timeline_deltas (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streaming");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Stream please");
  ui_wait_model_held (u);

  /* Sending is Stop while the turn runs. */
  ui_settle ();
  g_assert_true (natter_composer_get_running (natter_window_get_composer (window)));

  natter_fake_model_stream_text (u->w->fakes->model, "Hel");
  natter_fake_model_stream_text (u->w->fakes->model, "lo");
  wait_texts (window, "Hello");

  /* The canonical response replaces the overlay. */
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);
  wait_texts (window, "done");
  g_assert_false (natter_composer_get_running (natter_window_get_composer (window)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
has_code_block (gpointer data)
{
  ui_settle ();
  return ui_find_first (natter_window_get_timeline_list (data), NATTER_TYPE_CODE_BLOCK) != NULL;
}

/* A long streamed answer with code blocks, tables and lists, under a
 * conversation taller than the window (the timeline scrolls and follows
 * the bottom), then the stream ends and the final answer replaces the
 * overlay: no warning (the tests make every warning fatal) in any frame
 * drawn meanwhile. */
static void
test_timeline_stream_ends_clean (void)
{
  static const char *deltas[] = {
    "Here is some code:\n\n", "```c\nint main (void)\n", "{\n  int a = 1;\n  int b = 2;\n",
    "  int c = 3;\n  int d = 4;\n  int e = 5;\n  int f = 6;\n",
    "  printf (\"%d %d %d %d %d %d and a line much wider than the window is, to scroll sideways\", a, b, c, d, e, f);\n",
    "  return 0;\n}\n", "```\n\n",
    "| a | b |\n|---|---|\n", "| 1 | 2 |\n\n", "- one\n- two\n\nAnd a ", "closing line.\n\n",
  };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streaming code");
  g_autofree char *turn_id = NULL;
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(JsonNode) message = natter_test_json ("{\"role\":\"assistant\"}");
  g_autofree char *literal = NULL;
  NatterWindow *window;

  for (guint i = 0; i < 3; i++)
    natter_fake_model_script (u->w->fakes->model,
                              "{\"role\":\"assistant\",\"content\":\"One.\\n\\nTwo.\\n\\nThree.\\n\\nFour.\\n\\n"
                              "```\\na\\nb\\nc\\nd\\ne\\nf\\n```\\n\\nFive.\"}", NULL);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *t = ui_send (u, session_id, "Something long");

      ui_wait_turn (u, t);
    }
  turn_id = ui_send (u, session_id, "Stream some code");
  ui_wait_model_held (u);
  for (guint round = 0; round < 3; round++)
    for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
      {
        natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, deltas[i]);
        g_string_append (answer, deltas[i]);
        ui_wait_painted ();
      }
  ui_wait_until (has_code_block, window);

  json_object_set_string_member (json_node_get_object (message), "content", answer->str);
  literal = json_to_string (message, FALSE);
  natter_fake_model_release_with (u->w->fakes->model, literal);
  ui_wait_turn (u, turn_id);
  for (int i = 0; i < 10; i++)
    ui_wait_painted ();

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

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, a));
  natter_composer_set_text (natter_window_get_composer (window), "a draft for A");
  turn_id = ui_send (u, a, "Long answer");
  ui_wait_model_held (u);
  /* Streamed as the model does, through the advance: the conversation
   * may still be being read when the first words come. */
  natter_fake_model_stream_text (u->w->fakes->model, "Part one. ");

  /* Away: the turn goes on. */
  g_assert_true (natter_window_open_session (window, b));
  natter_fake_model_stream_text (u->w->fakes->model, "Part two.");
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

typedef struct
{
  NatterWindow *window;
  const char   *other_than;
} Opened;

static gboolean
another_session_open (gpointer data)
{
  Opened *o = data;

  return natter_window_get_session_id (o->window) != NULL &&
         g_strcmp0 (natter_window_get_session_id (o->window), o->other_than) != 0;
}

/* A server whose streamed reply is not JSON: the turn fails in plain
 * words, with Try Again; what the parser said, and the bytes it stopped
 * at, are under Details, not in the headline. */
static void
test_timeline_unreadable_reply (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Garbled");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) expanders = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  NatterWindow *window;
  GtkWidget *details = NULL;
  GtkWidget *list;

  g_assert_true (natter_error_is_unreadable_reply ("The provider sent a chunk that is not JSON (1:2: x): '{'"));
  g_assert_false (natter_error_is_unreadable_reply ("provider p: HTTP 500"));
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_BAD_CHUNK, NULL);
  turn_id = ui_send (u, session_id, "Hello?");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  list = natter_window_get_timeline_list (window);
  ui_wait_label (list, "Failed: the server sent a reply Natter could not read.");
  g_assert_nonnull (ui_find_button (list, "_Try Again"));

  /* Nothing shown says what the parser said... */
  labels = ui_find_all (list, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    g_assert_null (strstr (gtk_label_get_text (g_ptr_array_index (labels, i)), "not JSON"));
  /* ...until Details, folded, is opened. */
  expanders = ui_find_all (list, GTK_TYPE_EXPANDER);
  for (guint i = 0; i < expanders->len; i++)
    if (g_strcmp0 (gtk_expander_get_label (g_ptr_array_index (expanders, i)), "Details") == 0 &&
        gtk_widget_get_visible (g_ptr_array_index (expanders, i)))
      details = g_ptr_array_index (expanders, i);
  g_assert_nonnull (details);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (details)));
  gtk_expander_set_expanded (GTK_EXPANDER (details), TRUE);
  ui_settle ();
  g_assert_true (GTK_IS_LABEL (gtk_expander_get_child (GTK_EXPANDER (details))));
  g_assert_true (g_str_has_prefix (gtk_label_get_text (GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (details)))),
                                   "The provider sent a chunk that is not JSON ("));
  g_assert_true (gtk_widget_get_mapped (gtk_expander_get_child (GTK_EXPANDER (details))));
  ui_save_window (GTK_WIDGET (window), "timeline-unreadable-reply.png");

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
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "Failed: provider p: HTTP 500"));

  /* Trying again makes a new version of the failed message, which
   * opens: the message once, answered; the failed try stays in the
   * version before, and the model was asked with the message once. */
  g_signal_emit_by_name (button, "clicked");
  ui_wait_until (another_session_open, &(Opened) { window, session_id });
  timeline = natter_window_get_timeline (window);
  wait_texts (window, "done");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (timeline)), ==, 1);
  g_assert_true (ui_label_shown (natter_window_get_timeline_list (window), "Try me"));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  {
    g_autoptr(JsonNode) request = json_node_init_object (json_node_alloc (),
                                                         natter_fake_model_get_request (u->w->fakes->model, 1));
    g_autofree char *text = json_to_string (request, FALSE);
    const char *first = strstr (text, "Try me");

    g_assert_nonnull (first);
    g_assert_null (strstr (first + 1, "Try me"));
  }
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} LabelWait;

static gboolean
label_is_shown (gpointer data)
{
  LabelWait *w = data;

  ui_settle ();
  return ui_label_shown (natter_window_get_timeline_list (w->window), w->text);
}

/* Sends @question in a window, waits until its turn settles and the
 * timeline shows @status and neither of @not_shown; then restarts the
 * world and checks the same in a new window, which it returns (transfer
 * none: ui_destroy_window()). The turn's id is stored in @turn_id. */
static NatterWindow *
suspend_then_restart (UiWorld     *u,
                      const char  *session_id,
                      const char  *question,
                      const char  *status,
                      const char  *not_shown[2],
                      char       **turn_id)
{
  LabelWait waiting = { NULL, status };
  NatterWindow *window = ui_window_new (app, u);

  g_assert_true (natter_window_open_session (window, session_id));
  *turn_id = ui_send (u, session_id, question);
  ui_wait_turn (u, *turn_id);
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 1)
        {
          ui_destroy_window (window);
          ui_world_restart (u);
          window = ui_window_new (app, u);
          g_assert_true (natter_window_open_session (window, session_id));
        }
      waiting.window = window;
      ui_wait_until (label_is_shown, &waiting);
      for (guint i = 0; i < 2; i++)
        g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), not_shown[i]));
    }
  return window;
}

/* Whether the timeline shows exactly @expected as its texts, and the
 * mark of an answer stopped mid-way. */
typedef struct
{
  NatterWindow *window;
  const char   *expected;
} StoppedWait;

static gboolean
stopped_answer_shown (gpointer data)
{
  StoppedWait *w = data;
  g_autofree char *texts = shown_texts (w->window);

  return g_strcmp0 (texts, w->expected) == 0 &&
         ui_label_shown (natter_window_get_timeline_list (w->window), "Stopped mid-answer");
}

/* Stop keeps the answer being read: what had arrived stays on screen,
 * marked as stopped, right after Stop and after a restart (a new window
 * and service over the same data). */
static void
test_timeline_stop_keeps_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Stopped story");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterWindow *window;
  StoppedWait stopped = { NULL, "Once upon a time" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Tell me a story");
  ui_wait_model_held (u);
  natter_fake_model_stream_text (u->w->fakes->model, "Once upon ");
  natter_fake_model_stream_text (u->w->fakes->model, "a time");
  wait_texts (window, "Once upon a time");

  /* Stop, as the window's Stop does. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  ui_wait_turn (u, turn_id);
  stopped.window = window;
  ui_wait_until (stopped_answer_shown, &stopped);
  /* Said once, under the words: no second "Stopped" in the status. */
  g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), "Stopped"));
  events = ui_get_turn (u, turn_id);
  g_assert_nonnull (json_object_get_member (ui_find_event (events, "model_call_failed", NULL), "partial"));

  ui_destroy_window (window);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  stopped.window = window;
  ui_wait_until (stopped_answer_shown, &stopped);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A turn suspended on a permission waits for the user: its row says so
 * while the turn's runtime is still live in this process, and the same
 * after a restart (it said "Working…" until then). */
static void
test_timeline_suspended_waits_for_user (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Needs permission");
  g_autofree char *turn_id = NULL;
  const char *not_shown[2] = { "Working…", "Waiting for the result of “sa”" };
  NatterWindow *window;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  window = suspend_then_restart (u, session_id, "Run it", "Waiting for you", not_shown, &turn_id);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A turn suspended on an async tool other than ask_human waits for the
 * tool's result, not for the user and not "Working…": live, after a
 * restart, and until the result arrives and the turn completes. */
static void
test_timeline_suspended_on_async_tool (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Async tool");
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;
  const char *status = "Waiting for the result of “ab”";
  const char *not_shown[2] = { "Working…", "Waiting for you" };
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "ab", "{}")),
                            "{\"role\":\"assistant\",\"content\":\"Got the result\"}",
                            NULL);
  window = suspend_then_restart (u, session_id, "Start the job", status, not_shown, &turn_id);

  g_assert_true (json_parser_load_from_data (parser, "{\"output\":\"42\",\"isError\":false}", -1, NULL));
  natter_sessions_deliver_async_tool_result_async (u->sessions, turn_id, "c1",
                                                  json_node_get_object (json_parser_get_root (parser)),
                                                  NULL, ui_result_cb, &result);
  outcome = natter_sessions_deliver_async_tool_result_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpint (outcome->kind, ==, NATTER_TURN_OUTCOME_COMPLETED);
  wait_texts (window, "Got the result");
  g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), status));

  /* The task holds the service, which holds the runtime. */
  g_clear_object (&result);
  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  const char   *reasoning;
} LiveWait;

static gboolean
shown_live (gpointer data)
{
  LiveWait *w = data;
  NatterTurnItem *item = natter_timeline_model_lookup (natter_window_get_timeline (w->window), w->turn_id);

  return item != NULL && natter_turn_item_get_running (item) &&
         g_strcmp0 (natter_turn_item_get_overlay_reasoning (item), w->reasoning) == 0;
}

/* A conversation opened while its answer streams (in a new window, or
 * for the first time since the message was sent) shows the answer from
 * its first word, not from the deltas that come after it opened: those
 * that went by are not in the turn file. The turn shows as running. */
static void
test_timeline_opened_mid_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Story");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  LiveWait live;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  turn_id = ui_send (u, session_id, "Tell me a story");
  ui_wait_model_held (u);
  natter_fake_model_stream_reasoning (u->w->fakes->model, "A short one. ");
  natter_fake_model_stream_text (u->w->fakes->model, "Once upon ");
  natter_fake_model_stream_text (u->w->fakes->model, "a time");

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  wait_texts (window, "Once upon a time");
  live = (LiveWait) { window, turn_id, "A short one. " };
  ui_wait_until (shown_live, &live);

  /* What streams next goes on from there. */
  natter_fake_model_stream_text (u->w->fakes->model, ", there was");
  wait_texts (window, "Once upon a time, there was");

  /* The answer, once complete, replaces what streamed. */
  natter_fake_model_release (u->w->fakes->model);
  ui_wait_turn (u, turn_id);
  wait_texts (window, "done");

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/timeline/turns", test_timeline_turns);
  g_test_add_func ("/timeline/deltas", test_timeline_deltas);
  g_test_add_func ("/timeline/right-to-left", test_timeline_right_to_left);
  g_test_add_func ("/timeline/control-pictures", test_timeline_control_pictures);
  g_test_add_func ("/timeline/stream-ends-clean", test_timeline_stream_ends_clean);
  g_test_add_func ("/timeline/switch-while-streaming", test_timeline_switch_while_streaming);
  g_test_add_func ("/timeline/try-again", test_timeline_try_again);
  g_test_add_func ("/timeline/unreadable-reply", test_timeline_unreadable_reply);
  g_test_add_func ("/timeline/stop-keeps-answer", test_timeline_stop_keeps_answer);
  g_test_add_func ("/timeline/opened-mid-answer", test_timeline_opened_mid_answer);
  g_test_add_func ("/timeline/long-session-reads-visible", test_timeline_long_session_reads_visible);
  g_test_add_func ("/timeline/picked-opens-with-its-turns", test_timeline_picked_opens_with_its_turns);
  g_test_add_func ("/timeline/picked-then-other", test_timeline_picked_then_other);
  g_test_add_func ("/timeline/scroll-loads-rows", test_timeline_scroll_loads_rows);
  g_test_add_func ("/timeline/open-before-shown", test_timeline_open_before_shown);
  g_test_add_func ("/timeline/suspended-waits-for-user", test_timeline_suspended_waits_for_user);
  g_test_add_func ("/timeline/suspended-on-async-tool", test_timeline_suspended_on_async_tool);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
