/* test-sidebar-recovered.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Copy Readable Part as the person sees it: the damaged message shown
 * where it can be read, the copy going on with the model the header
 * showed, what the copy left out said above its message field (not in a
 * toast over it), and the offered words staying in the field of the
 * conversation shown after Try Again.
 */

#include <string.h>

#include "test-sidebar.h"

#define NOTE_MESSAGE_2 "Message 2 could not be copied. Its words are in the message field below, not sent."

/* Two exchanges in @sid, the first answered by @first_model, the second
 * by @second_model (both of provider "q"); the second's turn id. */
static char *
two_exchanges_on (UiWorld    *u,
                  const char *sid,
                  const char *first_model,
                  const char *second_model,
                  char      **out_first)
{
  g_autofree char *one = NULL;
  char *two;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"First answer.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Second answer.\"}", NULL);
  one = ui_send_with_model (u, sid, "First question", "q", first_model);
  ui_wait_turn (u, one);
  two = ui_send_with_model (u, sid, "Second question", "q", second_model);
  ui_wait_turn (u, two);
  if (out_first != NULL)
    *out_first = g_steal_pointer (&one);
  return two;
}

/* Tears the last line of @turn_id's file: its first line, the message,
 * still reads. */
static void
tear_turn (UiWorld    *u,
           const char *turn_id)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);

  natter_test_append_file (g_file_peek_path (file), "{\"type\":\"tool_res");
}

typedef struct
{
  NatterWindow *window;
  const char   *text;
} Wait;

static gboolean
page_shows_message (gpointer data)
{
  Wait *w = data;

  ui_settle ();
  return gtk_widget_get_mapped (w->window->errors.damaged_message_box) &&
         g_strcmp0 (gtk_label_get_text (w->window->errors.damaged_message_label), w->text) == 0;
}

static gboolean
moved_to_copy (gpointer data)
{
  Wait *w = data;
  const char *open = natter_window_get_session_id (w->window);

  return open != NULL && g_strcmp0 (open, w->text) != 0 && ui_timeline_loaded (w->window);
}

static gboolean
picker_shows (gpointer data)
{
  Wait *w = data;

  return g_strcmp0 (natter_model_picker_get_model (natter_window_get_model_picker (w->window)), w->text) == 0;
}

static char *
describe_picker (gpointer data)
{
  Wait *w = data;

  return g_strdup_printf ("the header shows the model “%s” for %s",
                          natter_model_picker_get_model (natter_window_get_model_picker (w->window)),
                          natter_window_get_session_id (w->window));
}

static gboolean
composer_says (gpointer data)
{
  Wait *w = data;

  return g_strcmp0 (natter_composer_get_note (natter_window_get_composer (w->window)), w->text) == 0;
}

/* The copy opened after Try Again: a new version of the copy, shown. */
static gboolean
version_open (gpointer data)
{
  gpointer *pair = data;
  const char *open = natter_window_get_session_id (pair[0]);
  NatterSessionIndexEntry *entry = open != NULL ? natter_session_index_lookup (((UiWorld *) pair[2])->index, open)
                                                : NULL;

  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_parent_session (entry), pair[1]) == 0 &&
         ui_timeline_loaded (pair[0]);
}

/* The latest answer's file torn: the damaged page shows the words of
 * its message (read only: a label to select, no field), and says the
 * copy leaves it out. The copy goes on with the model the conversation
 * was going on with (the damaged turn's, not the last copied one's),
 * says what it left out above its message field, where the words wait,
 * with no toast over them; and after Try Again on its first answer the
 * words and the note are in the field of the version shown. */
void
test_sidebar_recovered_words_stay_in_view (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autofree char *first = NULL;
  g_autofree char *second = two_exchanges_on (u, sid, "first-model", "second-model", &first);
  g_autofree char *copy = NULL;
  g_autofree char *text = NULL;
  NatterComposer *composer;
  NatterWindow *window;
  gpointer triple[3];
  graphene_rect_t note_bounds, field_bounds;
  Wait wait;

  tear_turn (u, second);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");

  /* The damaged message, shown where the damage is said. */
  wait = (Wait) { window, "Second question" };
  ui_wait_until (page_shows_message, &wait);
  g_assert_cmpstr (gtk_label_get_text (window->errors.damaged_message_heading), ==, "The Words of Message 2");
  g_assert_true (gtk_label_get_selectable (window->errors.damaged_message_label));
  g_assert_nonnull (strstr (adw_status_page_get_description (window->errors.errored_page),
                            "Message 2 cannot be copied; its words, below, go to the copy’s message field, not sent."));
  ui_save_window (GTK_WIDGET (window), "damaged-page-message.png");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-readable-part", NULL));
  wait = (Wait) { window, sid };
  ui_wait_until (moved_to_copy, &wait);
  copy = g_strdup (natter_window_get_session_id (window));
  composer = natter_window_get_composer (window);
  text = natter_composer_dup_text (composer);
  g_assert_cmpstr (text, ==, "Second question");
  /* Said above the field, and nothing over it. */
  g_assert_cmpstr (natter_composer_get_note (composer), ==, NOTE_MESSAGE_2);
  ui_wait_label (window, NOTE_MESSAGE_2);
  g_assert_true (ui_no_toasts (window));
  {
    GtkWidget *note = NULL;
    g_autoptr(GPtrArray) labels = ui_find_all (composer, GTK_TYPE_LABEL);
    GtkWidget *field = ui_find_first (composer, GTK_TYPE_TEXT_VIEW);

    for (guint i = 0; i < labels->len; i++)
      if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), NOTE_MESSAGE_2) == 0)
        note = g_ptr_array_index (labels, i);
    g_assert_nonnull (note);
    g_assert_nonnull (field);
    ui_settle ();
    g_assert_true (gtk_widget_compute_bounds (note, GTK_WIDGET (window), &note_bounds));
    g_assert_true (gtk_widget_compute_bounds (field, GTK_WIDGET (window), &field_bounds));
    g_assert_cmpfloat (note_bounds.origin.y + note_bounds.size.height, <=, field_bounds.origin.y);
    g_assert_cmpfloat (field_bounds.origin.y + field_bounds.size.height, <=, gtk_widget_get_height (GTK_WIDGET (window)));
  }
  ui_save_window (GTK_WIDGET (window), "copy-readable-part-note.png");
  /* The header shows what the damaged conversation was going on with. */
  wait = (Wait) { window, "second-model" };
  ui_wait_until_full (picker_shows, describe_picker, &wait);

  /* Try Again on the copy's first answer opens a new version of it, in
   * place: the words and what is said of them are in its field. */
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Another answer.\"}", NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", first));
  triple[0] = window;
  triple[1] = copy;
  triple[2] = u;
  ui_wait_until (version_open, triple);
  g_free (text);
  text = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (text, ==, "Second question");
  wait = (Wait) { window, NOTE_MESSAGE_2 };
  ui_wait_until (composer_says, &wait);
  wait = (Wait) { window, "second-model" };
  ui_wait_until_full (picker_shows, describe_picker, &wait);

  /* Sent, the words are past: the note goes. */
  ui_wait_until (ui_no_advances, u);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  g_assert_null (natter_composer_get_note (natter_window_get_composer (window)));

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
row_shows_message (gpointer data)
{
  Wait *w = data;

  ui_settle ();
  return ui_label_shown (w->window, w->text) && ui_find_button (w->window, "_Copy Readable Part") != NULL;
}

/* An earlier answer's file torn while the later ones read: the
 * conversation opens, and the damaged turn's row shows its message (it
 * reads) beside the damage. Its copy goes on with the model the header
 * showed for the conversation — its latest turn's — not with the model
 * of the copy's own last turn. */
void
test_sidebar_recovered_goes_on_with_shown_model (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autofree char *first = NULL;
  g_autofree char *second = two_exchanges_on (u, sid, "first-model", "second-model", &first);
  g_autofree char *third = NULL;
  NatterWindow *window;
  Wait wait;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Third answer.\"}", NULL);
  third = ui_send_with_model (u, sid, "Third question", "q", "third-model");
  ui_wait_turn (u, third);
  tear_turn (u, second);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (Wait) { window, "third-model" };
  ui_wait_until_full (picker_shows, describe_picker, &wait);
  ui_wait_turn_read (window, third);
  wait = (Wait) { window, "Second question" };
  ui_wait_until (row_shows_message, &wait);

  g_assert_true (gtk_widget_activate (ui_find_button (window, "_Copy Readable Part")));
  wait = (Wait) { window, sid };
  ui_wait_until (moved_to_copy, &wait);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index,
                                                                natter_window_get_session_id (window))), ==, 1);
  wait = (Wait) { window, "third-model" };
  ui_wait_until_full (picker_shows, describe_picker, &wait);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
description_has (gpointer data)
{
  Wait *w = data;
  const char *description = adw_status_page_get_description (w->window->errors.errored_page);

  return description != NULL && strstr (description, w->text) != NULL;
}

/* The first message's file torn in its very first line: not even its
 * words can be read. The page says which message and that nothing of
 * it can be read; the copy says nothing could be copied and that the
 * message's words cannot be read either, and its field stays empty. */
void
test_sidebar_recovered_unreadable_first_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip");
  g_autofree char *turn_id = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *text = NULL;
  NatterWindow *window;
  Wait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, sid, "First question");
  ui_wait_turn (u, turn_id);
  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), "{\"type\":\"turn_cr", -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, sid));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  wait = (Wait) { window, "Message 1" };
  ui_wait_until (description_has, &wait);
  g_assert_nonnull (strstr (adw_status_page_get_description (window->errors.errored_page),
                            "Nothing before the damage can be copied, since it is in the first message: a copy "
                            "starts empty."));
  g_assert_nonnull (strstr (adw_status_page_get_description (window->errors.errored_page),
                            "Message 1 cannot be copied, and not even its words can be read."));
  g_assert_false (gtk_widget_get_visible (window->errors.damaged_message_box));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.copy-readable-part", NULL));
  wait = (Wait) { window, sid };
  ui_wait_until (moved_to_copy, &wait);
  wait = (Wait) { window, "Nothing could be copied: the first message is damaged, and its words cannot be read "
                          "either." };
  ui_wait_until (composer_says, &wait);
  ui_wait_label (window, wait.text);
  text = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (text, ==, "");

  ui_destroy_window (window);
  ui_world_free (u);
}
