/* test-titles.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person sees of automatic titles (docs/sessions.md §13):
 * the sidebar row of a new conversation first shows the first message,
 * then the title the model gave once the first answer is there; and of
 * compaction (docs/sessions.md §5): "Compact Conversation", the "Earlier
 * messages summarized" separator with its summary, and "Compact and Continue"
 * on a turn that failed because the conversation outgrew the context window.
 */

#include <string.h>

#include "natter-ask-human-card.h"
#include "natter-permission-card.h"
#include "natter-session-row.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *title;
} RowWait;

static gboolean
row_shows (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row = ui_find_session_row (w->window, w->session_id);

  return row != NULL && g_strcmp0 (natter_session_row_get_title (row), w->title) == 0 &&
         ui_label_shown (row, w->title);
}

static char *
describe_row (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row = ui_find_session_row (w->window, w->session_id);

  return g_strdup_printf ("the row shows “%s”, not “%s”", row != NULL ? natter_session_row_get_title (row) : "(none)",
                          w->title);
}

static void
test_sidebar_title_follows (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  NatterWindow *window;
  NatterComposer *composer;
  g_autoptr(JsonNode) request = NULL;
  g_autofree char *request_text = NULL;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Sunny, 21 degrees.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Weather & <Tomorrow>\"}", NULL);
  g_assert_true (natter_window_open_session (window, session_id));

  natter_composer_set_text (composer, "How will the weather be tomorrow?");
  g_assert_true (natter_composer_send (composer));

  /* The model's title replaces the first message's, shown as text. */
  wait = (RowWait) { window, session_id, "Weather & <Tomorrow>" };
  ui_wait_until_full (row_shows, describe_row, &wait);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  request = json_node_init_object (json_node_alloc (), natter_fake_model_get_request (u->w->fakes->model, 1));
  request_text = json_to_string (request, FALSE);
  g_assert_nonnull (strstr (request_text, "Write a title for the conversation below"));
  g_assert_nonnull (strstr (request_text, "How will the weather be tomorrow?"));

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  GType         type;
} CardWait;

static gboolean
card_shown (gpointer data)
{
  CardWait *w = data;

  ui_settle ();
  return ui_find_first (w->window, w->type) != NULL;
}

/* The card of @type the window shows, once it does (transfer none). */
static GtkWidget *
wait_card (NatterWindow *window,
           GType         type)
{
  CardWait w = { window, type };

  ui_wait_until (card_shown, &w);
  return ui_find_first (window, type);
}

/* Sends @text from the composer of a new window on a new, untitled
 * conversation, waits until the turn waits for the person (a card of
 * @card), then restarts: the window goes, a new service reads the files
 * (nothing of the sending process is left) and a new window reopens the
 * conversation. Returns that window; @session_id gets the conversation. */
static NatterWindow *
send_then_restart (UiWorld     *u,
                   const char  *text,
                   GType        card,
                   char       **session_id)
{
  NatterWindow *window;

  *session_id = ui_create_session (u, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, *session_id));
  natter_composer_set_text (natter_window_get_composer (window), text);
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  wait_card (window, card);
  ui_destroy_window (window);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, *session_id);
  return window;
}

/* The title belongs to the conversation, not to the process that sent
 * its first message: the answer arrives after a restart, through Allow
 * on the permission card, and the sidebar then shows the model's title. */
static void
test_title_after_allow_after_restart (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  NatterWindow *window;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            "{\"role\":\"assistant\",\"content\":\"Done, all read.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Reading the notes\"}", NULL);
  window = send_then_restart (u, "Read my notes", NATTER_TYPE_PERMISSION_CARD, &session_id);
  wait = (RowWait) { window, session_id, "Read my notes" };
  ui_wait_until_full (row_shows, describe_row, &wait);

  g_signal_emit_by_name (ui_find_button (wait_card (window, NATTER_TYPE_PERMISSION_CARD), "_Allow"), "clicked");
  wait = (RowWait) { window, session_id, "Reading the notes" };
  ui_wait_until_full (row_shows, describe_row, &wait);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 3);

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The same through the answer to the model's question. */
static void
test_title_after_answer_after_restart (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  NatterAskHumanCard *card;
  NatterWindow *window;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("q1", "ask_human",
                                                                     "{\"question\":\"Which city?\"}")),
                            "{\"role\":\"assistant\",\"content\":\"Lisbon it is.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A trip to Lisbon\"}", NULL);
  window = send_then_restart (u, "Plan a trip", NATTER_TYPE_ASK_HUMAN_CARD, &session_id);

  card = NATTER_ASK_HUMAN_CARD (wait_card (window, NATTER_TYPE_ASK_HUMAN_CARD));
  natter_ask_human_card_set_answer (card, "Lisbon");
  g_signal_emit_by_name (ui_find_button (card, "_Send"), "clicked");
  wait = (RowWait) { window, session_id, "A trip to Lisbon" };
  ui_wait_until_full (row_shows, describe_row, &wait);

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A first answer cut off by a crash: Resume after the restart brings it,
 * and the conversation is named then. */
static void
test_title_after_resume (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *turn_id = NULL;
  g_autofree char *crashed = NULL;
  NatterWindow *window;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD,
                            "{\"role\":\"assistant\",\"content\":\"Once upon a time.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A bedtime story\"}", NULL);
  turn_id = ui_make_interrupted (u, session_id, "Tell me a story", &crashed);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.resume-turn", "s", turn_id));
  wait = (RowWait) { window, session_id, "A bedtime story" };
  ui_wait_until_full (row_shows, describe_row, &wait);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 3);

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *summary;
} SeparatorWait;

/* The visible separator whose summary is @summary, or NULL. */
static GtkExpander *
find_separator (NatterWindow *window,
                const char   *summary)
{
  g_autoptr(GPtrArray) expanders = ui_find_all (window, GTK_TYPE_EXPANDER);

  for (guint i = 0; i < expanders->len; i++)
    {
      GtkExpander *expander = g_ptr_array_index (expanders, i);
      GtkWidget *child = gtk_expander_get_child (expander);

      if (gtk_widget_get_visible (GTK_WIDGET (expander)) &&
          g_strcmp0 (gtk_expander_get_label (expander), "Earlier messages summarized") == 0 &&
          GTK_IS_LABEL (child) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), summary) == 0)
        return expander;
    }
  return NULL;
}

static gboolean
separator_shown (gpointer data)
{
  SeparatorWait *w = data;

  return find_separator (w->window, w->summary) != NULL;
}

static guint
count_separators (NatterWindow *window)
{
  g_autoptr(GPtrArray) expanders = ui_find_all (window, GTK_TYPE_EXPANDER);
  guint n = 0;

  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (expanders, i)) &&
        g_strcmp0 (gtk_expander_get_label (g_ptr_array_index (expanders, i)), "Earlier messages summarized") == 0)
      n++;
  return n;
}

/* Compact Conversation from the menu: every turn stays on screen, the
 * separator sits on the first kept turn, and its summary (any text, shown
 * as text) opens on a click. */
static void
test_compact_shows_separator (void)
{
  const char *summary = "Decided: <b>plan B</b> & main.c";
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *step = g_strdup_printf ("{\"role\":\"assistant\",\"content\":\"%s\"}", summary);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  GtkExpander *separator;
  NatterTurnRow *row;
  SeparatorWait wait;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A1\"}",
                            "{\"role\":\"assistant\",\"content\":\"A2\"}",
                            "{\"role\":\"assistant\",\"content\":\"A3\"}", step, NULL);
  t1 = ui_send (u, session_id, "Q1");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Q2");
  ui_wait_turn (u, t2);
  t3 = ui_send (u, session_id, "Q3");
  ui_wait_turn (u, t3);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpuint (count_separators (window), ==, 0);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compact", NULL));
  wait = (SeparatorWait) { window, summary };
  ui_wait_until (separator_shown, &wait);
  g_assert_cmpuint (count_separators (window), ==, 1);

  /* On the second turn's row, the first still above it. */
  separator = find_separator (window, summary);
  row = NATTER_TURN_ROW (gtk_widget_get_ancestor (GTK_WIDGET (separator), NATTER_TYPE_TURN_ROW));
  g_assert_cmpstr (natter_turn_item_get_turn_id (natter_turn_row_get_item (row)), ==, t2);
  g_assert_true (ui_label_shown (window, "Q1"));
  g_assert_true (ui_label_shown (window, "Q3"));
  g_assert_false (gtk_expander_get_expanded (separator));
  gtk_expander_set_expanded (separator, TRUE);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (gtk_expander_get_child (separator))));

  natter_sessions_get_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  state = natter_sessions_get_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (natter_session_state_get_compaction (state), "firstKeptTurnId"),
                   ==, t2);
  /* The result holds the service, which must go before the world. */
  g_clear_object (&result);

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
latest_running (gpointer data)
{
  return _natter_window_latest_is_running (data);
}

static gboolean
latest_settled (gpointer data)
{
  NatterWindow *window = data;

  return window->conversation.entry != NULL && natter_session_index_entry_get_turn_count (window->conversation.entry) == 2 &&
         !_natter_window_latest_is_running (window) &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (window->conversation.entry), "completed") == 0;
}

/* While an answer is written Compact Conversation is off: nothing is
 * summarized, no error is shown. Once the answer is there, a compaction
 * that cannot be done says why in plain words, without any ids. */
static void
test_compact_waits_for_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *t1 = NULL;
  NatterWindow *window;
  guint n_requests;
  const char *detail;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A1\"}",
                            NATTER_FAKE_STEP_HOLD, NULL);
  t1 = ui_send (u, session_id, "Q1");
  ui_wait_turn (u, t1);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  natter_composer_set_text (natter_window_get_composer (window), "Q2");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (latest_running, window);
  ui_wait_model_held (u);

  n_requests = natter_fake_model_get_n_requests (u->w->fakes->model);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.compact", NULL);
  ui_settle ();
  natter_fake_model_release_with (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A2\"}");
  ui_wait_until (latest_settled, window);
  ui_settle ();
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (window))));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, n_requests);

  /* Two turns, both kept whole: nothing earlier to summarize. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compact", NULL));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (window->errors.heading), ==, "The conversation could not be compacted");
  detail = gtk_label_get_text (window->errors.detail);
  g_assert_cmpstr (detail, ==, "There are not enough earlier messages to summarize yet.");

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  guint       n_turns;
} TurnsWait;

static gboolean
session_has_completed_turns (gpointer data)
{
  TurnsWait *w = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (w->u->index, w->session_id);

  return entry != NULL && natter_session_index_entry_get_turn_count (entry) == w->n_turns &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

static gboolean
compact_button_shown (gpointer data)
{
  GtkWidget *button = ui_find_button (data, "Compact and _Continue");

  return button != NULL && gtk_widget_is_visible (button);
}

typedef struct
{
  NatterWindow *window;
  const char   *other_than;
} VersionWait;

static gboolean
another_session_open (gpointer data)
{
  VersionWait *v = data;

  return natter_window_get_session_id (v->window) != NULL &&
         g_strcmp0 (natter_window_get_session_id (v->window), v->other_than) != 0;
}

/* A turn that failed because the conversation outgrew the context window
 * offers Compact and Continue instead of Try Again; it sends the message
 * again as a new version of it, compacted first: the model receives the
 * summary, the turn before and the message once. */
static void
test_compact_and_continue (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *version_id = NULL;
  g_autoptr(JsonNode) request = NULL;
  g_autofree char *request_text = NULL;
  NatterWindow *window;
  GtkWidget *button;
  TurnsWait wait;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A1\"}",
                            "{\"role\":\"assistant\",\"content\":\"A2\"}", NATTER_FAKE_STEP_OVERFLOW,
                            "{\"role\":\"assistant\",\"content\":\"Short summary\"}",
                            "{\"role\":\"assistant\",\"content\":\"A3\"}", NULL);
  t1 = ui_send (u, session_id, "Q1");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Q2");
  ui_wait_turn (u, t2);
  t3 = ui_send (u, session_id, "Q3 is long");
  ui_wait_turn (u, t3);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (compact_button_shown, window);
  button = ui_find_button (window, "Compact and _Continue");
  g_assert_null (ui_find_button (window, "_Try Again"));

  /* A new version of the failed message opens, compacted first; the
   * failed turn stays in the version it failed in. */
  gtk_widget_activate (button);
  ui_wait_until (another_session_open, &(VersionWait) { window, session_id });
  version_id = g_strdup (natter_window_get_session_id (window));
  wait = (TurnsWait) { u, version_id, 1 };
  ui_wait_until (session_has_completed_turns, &wait);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 3);

  /* The summarizer, then the message again after the summary, once. */
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 5);
  request = json_node_init_object (json_node_alloc (), natter_fake_model_get_request (u->w->fakes->model, 4));
  request_text = json_to_string (request, FALSE);
  g_assert_nonnull (strstr (request_text, "Short summary"));
  g_assert_null (strstr (request_text, "\"Q1\""));
  g_assert_nonnull (strstr (request_text, "Q2"));
  g_assert_nonnull (strstr (request_text, "Q3 is long"));
  g_assert_null (strstr (strstr (request_text, "Q3 is long") + 1, "Q3 is long"));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld      *u;
  NatterWindow *window;
  const char   *other_than;  /* nullable */
} FailedWait;

/* Another session than @other_than is open, its latest turn failed and
 * Try Again is offered. */
static gboolean
failed_version_open (gpointer data)
{
  FailedWait *w = data;
  const char *open = natter_window_get_session_id (w->window);
  NatterSessionIndexEntry *entry;
  GtkWidget *button;

  if (open == NULL || g_strcmp0 (open, w->other_than) == 0)
    return FALSE;
  entry = natter_session_index_lookup (w->u->index, open);
  button = ui_find_button (w->window, "_Try Again");
  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "failed") == 0 &&
         button != NULL && gtk_widget_is_visible (button);
}

/* The model server was not running yet: the first message fails, Try
 * Again fails, and the next Try Again is answered. The version that
 * answered still has the title its first message derived, so the model
 * names it once and the sidebar shows that title. */
static void
test_title_after_try_again (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *version1 = NULL;
  g_autofree char *version2 = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_ERROR, NATTER_FAKE_STEP_ERROR,
                            "{\"role\":\"assistant\",\"content\":\"Sunny, 21 degrees.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Weather Tomorrow\"}", NULL);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_composer_set_text (composer, "How will the weather be tomorrow?");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (failed_version_open, &(FailedWait) { u, window, NULL });

  g_assert_true (gtk_widget_activate (ui_find_button (window, "_Try Again")));
  ui_wait_until (failed_version_open, &(FailedWait) { u, window, session_id });
  version1 = g_strdup (natter_window_get_session_id (window));

  g_assert_true (gtk_widget_activate (ui_find_button (window, "_Try Again")));
  ui_wait_until (another_session_open, &(VersionWait) { window, version1 });
  version2 = g_strdup (natter_window_get_session_id (window));
  g_assert_cmpstr (version2, !=, session_id);

  wait = (RowWait) { window, version2, "Weather Tomorrow" };
  ui_wait_until_full (row_shows, describe_row, &wait);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 4);

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/titles/sidebar-title-follows", test_sidebar_title_follows);
  g_test_add_func ("/titles/after-allow-after-restart", test_title_after_allow_after_restart);
  g_test_add_func ("/titles/after-answer-after-restart", test_title_after_answer_after_restart);
  g_test_add_func ("/titles/after-resume", test_title_after_resume);
  g_test_add_func ("/titles/after-try-again", test_title_after_try_again);
  g_test_add_func ("/compaction/separator", test_compact_shows_separator);
  g_test_add_func ("/compaction/waits-for-answer", test_compact_waits_for_answer);
  g_test_add_func ("/compaction/compact-and-continue", test_compact_and_continue);
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
