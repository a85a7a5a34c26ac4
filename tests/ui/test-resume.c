/* test-resume.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A turn interrupted by a crash (docs/sessions.md §8.1 "idle",
 * docs/sessions.md §9.3 resumeTurn): after a restart the window shows it
 * interrupted with a Resume button, the composer says why it cannot send,
 * and clicking Resume finishes the turn on disk and on screen and frees
 * the composer. Nothing resumes by itself (docs/sessions.md §9.3: recovery
 * re-issues model calls, so it must be the user's choice). The words the
 * killed process kept of the answer (docs/format.md §11) show under the
 * turn before Resume, and stay above the answer after it; a kept file
 * that cannot be read is said under Details, and Resume goes on.
 */

#include "natter-markdown-view.h"
#include "natter-session-row.h"
#include "natter-stream-keep.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static const char *interrupted_text = "Interrupted before it finished, perhaps by a crash.";
static const char *blocked_text = "The last answer was interrupted. Resume it before sending a new message.";
static const char *answer_text = "Finished after the resume";

/* The event types of @events, joined by spaces. */
static char *
types_of (GPtrArray *events)
{
  GString *types = g_string_new (NULL);

  for (guint i = 0; i < events->len; i++)
    g_string_append_printf (types, "%s%s", i > 0 ? " " : "",
                            json_object_get_string_member (json_node_get_object (g_ptr_array_index (events, i)),
                                                           "type"));
  return g_string_free (types, FALSE);
}

static gboolean
interrupted_shown (gpointer data)
{
  GtkWidget *timeline = natter_window_get_timeline_list (data);

  ui_settle ();
  return ui_label_shown (timeline, interrupted_text) && ui_find_button (timeline, "_Resume") != NULL;
}

/* The texts of the timeline's mapped Markdown views, joined by "|". */
static char *
shown_texts (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = NULL;
  GString *text = g_string_new (NULL);

  views = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_MARKDOWN_VIEW);
  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "|" : "",
                            natter_markdown_view_get_text (g_ptr_array_index (views, i)));
  return g_string_free (text, FALSE);
}

typedef struct
{
  UiWorld                 *u;
  NatterWindow            *window;
  NatterSessionIndexEntry *entry;
  guint                    turns;
  const char              *texts;
} Resumed;

static gboolean
resumed_and_shown (gpointer data)
{
  Resumed *r = data;
  const char *latest = natter_session_index_entry_get_latest_turn_id (r->entry);
  g_autofree char *texts = NULL;

  ui_settle ();
  texts = shown_texts (r->window);
  return natter_session_index_entry_get_turn_count (r->entry) == r->turns &&
         !natter_sessions_is_turn_running (r->u->sessions, latest) &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (r->entry), "completed") == 0 &&
         g_strcmp0 (texts, r->texts) == 0;
}

/* A turn of @session_id interrupted by a crash, as the session's only
 * one, its model answering "Finished after the resume" when asked again;
 * @out_crashed gets its file as the crash left it. */
static char *
make_interrupted (UiWorld     *u,
                  const char  *session_id,
                  char       **out_crashed)
{
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_STEP_HOLD,
                            "{\"role\":\"assistant\",\"content\":\"Finished after the resume\"}",
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  return ui_make_interrupted (u, session_id, "Tell me a story", out_crashed);
}

static void
test_timeline_resume_clicked (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Interrupted story");
  g_autofree char *turn_id = NULL;
  g_autofree char *crashed = NULL;
  g_autofree char *after = NULL;
  g_autofree char *types = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) events = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *timeline;
  GtkWidget *resume;
  Resumed resumed;

  turn_id = make_interrupted (u, session_id, &crashed);
  entry = natter_session_index_lookup (u->index, session_id);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, turn_id);
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_status (entry), ==, "idle");

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  timeline = natter_window_get_timeline_list (window);
  g_assert_true (natter_window_open_session (window, session_id));

  /* Interrupted, with the next step offered; sending is refused with the
   * reason, before the user hits TurnNotSettled; the sidebar agrees. */
  ui_wait_until (interrupted_shown, window);
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)), ==, "interrupted");
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, blocked_text);
  g_assert_true (ui_label_shown (GTK_WIDGET (composer), blocked_text));
  natter_composer_set_text (composer, "Anything new?");
  g_assert_false (natter_composer_send (composer));
  /* Nothing resumed by itself: the model was asked once, before the crash. */
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);

  /* Click the real button. */
  resume = ui_find_button (timeline, "_Resume");
  g_assert_nonnull (resume);
  g_assert_true (gtk_widget_is_sensitive (resume));
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (resume)), ==, "win.resume-turn");
  g_assert_true (gtk_widget_activate (resume));

  resumed = (Resumed) { u, window, entry, 1, answer_text };
  ui_wait_until (resumed_and_shown, &resumed);

  /* On disk: the same turn (no new one), the crash's lines untouched, the
   * interrupted call closed, re-issued and completed, the turn completed. */
  g_assert_cmpstr (natter_session_index_entry_get_latest_turn_id (entry), ==, turn_id);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 1);
  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  after = ui_read_file (file);
  g_assert_true (g_str_has_prefix (after, crashed));
  events = ui_get_turn (u, turn_id);
  types = types_of (events);
  g_assert_cmpstr (types, ==,
                   "turn_created model_call_requested model_call_failed "
                   "model_call_requested model_call_completed turn_completed");
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);

  /* On screen: the answer, no interruption, no Resume; the composer
   * takes the next message. */
  g_assert_false (ui_label_shown (timeline, interrupted_text));
  g_assert_null (ui_find_button (timeline, "_Resume"));
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_false (natter_composer_get_running (composer));
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (composer)));
  natter_composer_set_text (composer, "And another one");
  g_assert_true (natter_composer_send (composer));
  resumed = (Resumed) { u, window, entry, 2, "Finished after the resume|done" };
  ui_wait_until (resumed_and_shown, &resumed);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
keep_settled (gpointer data)
{
  return !natter_stream_keep_is_busy (data);
}

typedef struct
{
  NatterWindow *window;
  const char   *texts;    /* the Markdown views' texts, joined by "|" */
  const char   *label;    /* a part of a label shown with them */
} Shown;

/* Whether a label under @root, its Details opened, says @part. */
static gboolean
label_says (GtkWidget  *root,
            const char *part)
{
  g_autoptr(GPtrArray) expanders = ui_find_all (root, GTK_TYPE_EXPANDER);
  g_autoptr(GPtrArray) labels = NULL;

  for (guint i = 0; i < expanders->len; i++)
    gtk_expander_set_expanded (g_ptr_array_index (expanders, i), TRUE);
  ui_settle ();
  labels = ui_find_all (root, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_text (g_ptr_array_index (labels, i)), part) != NULL)
      return TRUE;
  return FALSE;
}

static gboolean
shown (gpointer data)
{
  Shown *s = data;
  g_autofree char *texts = NULL;

  ui_settle ();
  texts = shown_texts (s->window);
  return interrupted_shown (s->window) && g_strcmp0 (texts, s->texts) == 0 &&
         label_says (natter_window_get_timeline_list (s->window), s->label);
}

/* A turn whose process was killed mid-answer, its words kept beside the
 * logs as that process kept them; @kept_file is written over the kept
 * record when not %NULL (a file that cannot be read). */
static void
kept_words_case (const char *kept_file,
                 const char *before,
                 const char *label,
                 const char *after)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterStreamKeep) keep = natter_stream_keep_new (u->w->dir);
  g_autofree char *session_id = ui_create_session (u, "Interrupted story");
  g_autofree char *turn_id = NULL;
  g_autofree char *crashed = NULL;
  g_autoptr(JsonNode) partial = json_from_string ("{\"role\":\"assistant\",\"content\":\"Once upon a time\"}", NULL);
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *types = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  Shown shown_before;
  Resumed resumed;

  natter_turn_runtime_set_stream_keep (u->w->runtime, keep);
  turn_id = make_interrupted (u, session_id, &crashed);
  entry = natter_session_index_lookup (u->index, session_id);
  natter_stream_keep_save (keep, turn_id, 0, partial);
  g_assert_true (natter_test_poll_until (keep_settled, keep, 10000));
  if (kept_file != NULL)
    {
      g_autofree char *name = g_strconcat (turn_id, ".json", NULL);
      g_autofree char *path = g_build_filename (g_file_peek_path (u->w->dir), NATTER_STREAMS_DIR_NAME, name, NULL);

      g_assert_true (g_file_set_contents (path, kept_file, -1, NULL));
    }

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  shown_before = (Shown) { window, before, label };
  ui_wait_until (shown, &shown_before);
  /* Shown only: the turn's file is as the crash left it, and nothing
   * was asked of the model again. */
  {
    g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
    g_autofree char *now = ui_read_file (file);

    g_assert_cmpstr (now, ==, crashed);
  }
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);

  g_assert_true (gtk_widget_activate (ui_find_button (natter_window_get_timeline_list (window), "_Resume")));
  resumed = (Resumed) { u, window, entry, 1, after };
  ui_wait_until (resumed_and_shown, &resumed);
  events = ui_get_turn (u, turn_id);
  types = types_of (events);
  g_assert_cmpstr (types, ==,
                   "turn_created model_call_requested model_call_failed "
                   "model_call_requested model_call_completed turn_completed");

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_timeline_kept_words_before_resume (void)
{
  kept_words_case (NULL, "Once upon a time", "Cut off mid-answer", "Once upon a time|Finished after the resume");
}

static void
test_timeline_kept_words_unreadable (void)
{
  kept_words_case ("{\"turnId\": \"cut", "", "cannot be read", "Finished after the resume");
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/timeline/resume-clicked", test_timeline_resume_clicked);
  g_test_add_func ("/timeline/kept-words-before-resume", test_timeline_kept_words_before_resume);
  g_test_add_func ("/timeline/kept-words-unreadable", test_timeline_kept_words_unreadable);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
