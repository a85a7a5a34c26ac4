/* test-long-words.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A word longer than the window is wide (a pasted hash, a URL, a
 * keyboard smash) in a user message, in a Markdown answer and in a tool
 * result: the text wraps inside the word, the bubble keeps a sane height
 * and shows the whole text, at 800 px and at 360 px, and GTK reports no
 * inconsistent size request (a critical, fatal in these tests).
 */

#include "natter-tool-call-card.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-visible-label.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define LONG_WORD_PART "Averylongwordwithoutanyspaces"
#define LONG_WORD_REPEATS 12

/* Ordinary words around a 348-character word (about 2,800 px in the
 * default font, far wider than any window), about 1,500 characters in
 * all: Pango breaks such a word character by character, and this stays
 * small enough to lay out at several widths under ASan on a loaded
 * machine within the tests' time. */
static char *
long_text (void)
{
  GString *text = g_string_new ("Here is what I found: ");

  for (int i = 0; i < LONG_WORD_REPEATS; i++)
    g_string_append (text, LONG_WORD_PART);
  while (text->len < 1500)
    g_string_append (text, " and then some ordinary words that wrap as usual");
  return g_string_free (text, FALSE);
}

typedef struct
{
  GtkWidget  *window;
  int         width;
  const char *long_word;
  guint       n_labels;  /* labels with the long word laid out */
  int         tallest;   /* px */
  int         widest;    /* px */
} LayoutWait;

/* The labels that show the long word are laid out, within the window's
 * width and at a sane height. */
static gboolean
laid_out (gpointer data)
{
  LayoutWait *w = data;
  g_autoptr(GPtrArray) labels = NULL;

  ui_settle ();
  w->n_labels = 0;
  w->tallest = 0;
  w->widest = 0;
  if (gtk_widget_get_width (w->window) <= 0 || gtk_widget_get_width (w->window) > w->width)
    return FALSE;
  labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (!gtk_widget_get_mapped (label) || strstr (gtk_label_get_text (GTK_LABEL (label)), w->long_word) == NULL)
        continue;
      w->n_labels++;
      w->tallest = MAX (w->tallest, gtk_widget_get_height (label));
      w->widest = MAX (w->widest, gtk_widget_get_width (label));
    }
  /* The user message, the answer, the tool's result (its arguments too). */
  return w->n_labels >= 3 && w->tallest > 0 && w->tallest < 4000 && w->widest <= w->width;
}

static char *
describe_layout (gpointer data)
{
  LayoutWait *w = data;

  return g_strdup_printf ("window %d px wide (want ≤ %d); %u labels show the long word, the tallest %d px, "
                          "the widest %d px", gtk_widget_get_width (w->window), w->width, w->n_labels,
                          w->tallest, w->widest);
}

static void
check_at_width (NatterWindow *window,
                int           width,
                const char   *long_word)
{
  LayoutWait wait = { GTK_WIDGET (window), width, long_word, 0, 0, 0 };

  gtk_window_set_default_size (GTK_WINDOW (window), width, 700);
  if (width < 500)
    adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)),
                          ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until_full (laid_out, describe_layout, &wait);
  g_test_message ("At %d px: %u labels, the tallest %d px", width, wait.n_labels, wait.tallest);
}

static gboolean
card_shown (gpointer data)
{
  ui_settle ();
  return ui_find_first (data, NATTER_TYPE_TOOL_CALL_CARD) != NULL;
}

static char *
describe_cards (gpointer data)
{
  g_autoptr(GPtrArray) labels = ui_find_all (data, GTK_TYPE_LABEL);

  return g_strdup_printf ("no tool card is shown; %u labels in the window", labels->len);
}

/* Opens the tool's card, as a person reading its result has it. */
static void
open_card (NatterWindow *window,
           const char   *result)  /* the start of the result */
{
  NatterToolCallCard *card;

  ui_wait_until_full (card_shown, describe_cards, window);
  card = NATTER_TOOL_CALL_CARD (ui_find_first (window, NATTER_TYPE_TOOL_CALL_CARD));
  /* The card shortens a long result at its end, never inside the word. */
  g_assert_true (strstr (natter_tool_call_card_get_result (card), result) != NULL);
  natter_tool_call_card_set_expanded (card, TRUE);
}

static void
test_long_words_wrap (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Long words");
  g_autofree char *other_id = ui_create_session (u, "Elsewhere");
  g_autofree char *text = long_text ();
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) call_args = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autofree char *args_literal = NULL;
  g_autofree char *tool_step = NULL;
  g_autofree char *answer_literal = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GString) word = g_string_new (NULL);
  const char *long_word;
  NatterWindow *window;

  for (int i = 0; i < LONG_WORD_REPEATS; i++)
    g_string_append (word, LONG_WORD_PART);
  long_word = word->str;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "echo");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  call_args = json_builder_get_root (builder);
  args_literal = json_to_string (call_args, FALSE);
  tool_step = g_strdup_printf (NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "%s")), args_literal);
  json_builder_reset (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "assistant");
  json_builder_set_member_name (builder, "content");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  answer = json_builder_get_root (builder);
  answer_literal = json_to_string (answer, FALSE);
  natter_fake_model_script (u->w->fakes->model, tool_step, answer_literal, NULL);

  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 700);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  turn_id = ui_send (u, session_id, text);
  ui_wait_turn (u, turn_id);

  open_card (window, long_word);
  check_at_width (window, 800, long_word);

  /* The text is whole: the user's message as sent. */
  g_assert_true (ui_label_shown (window, text));

  check_at_width (window, 360, long_word);
  ui_save_window (GTK_WIDGET (window), "long-words-360.png");

  /* Opening the conversation again lays it out again, as well. */
  g_assert_true (natter_window_open_session (window, other_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  open_card (window, long_word);
  check_at_width (window, 360, long_word);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  GtkLabel     *label;
  GtkWidget    *button;
} PreviewWait;

/* The turn's row shows its message, laid out. */
static gboolean
message_shown (gpointer data)
{
  PreviewWait *w = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (w->window, NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnRow *row = g_ptr_array_index (rows, i);
      NatterTurnItem *item = natter_turn_row_get_item (row);
      g_autoptr(GPtrArray) buttons = NULL;

      if (item == NULL || g_strcmp0 (natter_turn_item_get_turn_id (item), w->turn_id) != 0 ||
          natter_turn_item_get_state (item) == NULL || !gtk_widget_get_mapped (GTK_WIDGET (row)))
        continue;
      w->label = NULL;
      w->button = ui_find_button (row, "Show Full Message");
      {
        g_autoptr(GPtrArray) labels = ui_find_all (row, GTK_TYPE_LABEL);

        for (guint j = 0; j < labels->len; j++)
          if (g_str_has_prefix (gtk_label_get_text (g_ptr_array_index (labels, j)), "Line 0001"))
            w->label = g_ptr_array_index (labels, j);
      }
      return w->label != NULL && w->button != NULL && gtk_widget_get_width (GTK_WIDGET (w->label)) > 0;
    }
  return FALSE;
}

static gboolean
text_window_shown (gpointer data)
{
  ui_settle ();
  return ui_find_toplevel (ADW_TYPE_WINDOW) != NULL;
}

/* A message a person pasted a whole file into (about 400 KB, 5,000
 * lines): its row shows the beginning, and the window stays usable (one
 * label with all of it held the window for minutes, every time the
 * conversation opened); Show Full Message opens all of it, as written. */
static void
test_huge_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Pasted");
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  GtkWindow *full;
  GtkTextView *view;
  PreviewWait wait = { 0 };

  for (guint i = 1; i <= 5000; i++)
    g_string_append_printf (text, "Line %04u of the pasted file, with some words to wrap in the bubble, more or less %u\n",
                            i, i * 7);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, text->str);
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 700);
  g_assert_true (natter_window_open_session (window, session_id));
  wait = (PreviewWait) { window, turn_id, NULL, NULL };
  ui_wait_until (message_shown, &wait);
  g_assert_cmpuint (g_utf8_strlen (gtk_label_get_text (wait.label), -1), <=, NATTER_PREVIEW_MAX_CHARS + 1);
  g_assert_true (g_str_has_suffix (gtk_label_get_text (wait.label), "…"));
  g_assert_true (gtk_widget_get_visible (wait.button));

  g_signal_emit_by_name (wait.button, "clicked");
  ui_wait_until (text_window_shown, NULL);
  full = ui_find_toplevel (ADW_TYPE_WINDOW);
  g_assert_cmpstr (gtk_window_get_title (full), ==, "Message");
  view = GTK_TEXT_VIEW (ui_find_first (full, GTK_TYPE_TEXT_VIEW));
  g_assert_cmpint (gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (view)), ==,
                   (int) g_utf8_strlen (text->str, -1));
  gtk_window_destroy (full);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/long-words/wrap", test_long_words_wrap);
  g_test_add_func ("/long-words/huge-message", test_huge_message);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
