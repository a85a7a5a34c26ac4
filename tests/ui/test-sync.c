/* test-sync.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window over a data folder a synchroniser shares (docs/format.md
 * §9), showing what `natter sessions` and `natter show` say: a turn that
 * has not arrived is shown arriving from another device (in the list,
 * in the conversation, in the composer, which does not send on it), not
 * as damage, and shows as usual once it is there; the copy Syncthing
 * kept of a conversation both devices continued opens as its other
 * version, never written: a message sent there goes on from it as a new
 * version, which opens.
 */

#include <string.h>

#include <glib/gstdio.h>

#include "natter-markdown-view.h"
#include "natter-store-watch.h"
#include "natter-turn-item.h"
#include "natter-session-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static const char *arriving_text = "Arriving from another device…";
static const char *arriving_blocked = "The last answer has not arrived from another device yet.";
static const char *turn_copy_blocked = "This version is another device’s copy of one answer, kept when both "
                                       "devices went on with it at once. It is read only.";
static const char *copy_note = "This version is another device’s copy of the conversation, kept when both "
                               "devices changed it at once. A message sent here goes on from it as a new version; "
                               "the copy stays as it is.";

/* The texts of the timeline's Markdown views, joined by "|". */
static char *
shown_texts (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_MARKDOWN_VIEW);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "|" : "",
                            natter_markdown_view_get_text (g_ptr_array_index (views, i)));
  return g_string_free (text, FALSE);
}

static gboolean
arriving_shown (gpointer data)
{
  ui_settle ();
  return ui_timeline_loaded (data) && ui_label_shown (natter_window_get_timeline_list (data), arriving_text);
}

typedef struct
{
  NatterWindow *window;
  const char   *texts;
} Shown;

static gboolean
texts_shown (gpointer data)
{
  Shown *s = data;
  g_autofree char *texts = NULL;

  ui_settle ();
  if (!ui_timeline_loaded (s->window))
    return FALSE;
  texts = shown_texts (s->window);
  return g_strcmp0 (texts, s->texts) == 0;
}

static char *
describe_texts (gpointer data)
{
  Shown *s = data;

  return shown_texts (s->window);
}

static char *
turn_path (UiWorld    *u,
           const char *turn_id)
{
  return natter_jsonl_repo_dup_path (u->w->turn_repo, turn_id, NULL);
}

static void
share_folder (UiWorld *u)
{
  g_autofree char *dir = g_file_get_path (u->w->dir);
  g_autofree char *marker = g_build_filename (dir, ".stfolder", NULL);

  g_assert_cmpint (g_mkdir (marker, 0700), ==, 0);
}

/* A conversation whose last turn has not arrived: listed, shown and
 * refused as arriving; once it is there, as on the device that wrote
 * it. */
static void
test_turn_arriving (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Week");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *path = NULL;
  g_autofree char *aside = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Monday works.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Tuesday works too.\"}",
                            NULL);
  first = ui_send (u, session_id, "Monday?");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Tuesday?");
  ui_wait_turn (u, second);
  share_folder (u);
  path = turn_path (u, second);
  aside = g_strconcat (path, ".aside", NULL);
  g_assert_cmpint (g_rename (path, aside), ==, 0);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (arriving_shown, window);
  g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), "This turn cannot be read"));
  g_assert_cmpstr (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)), ==, "arriving");
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, arriving_blocked);
  natter_composer_set_text (composer, "Wednesday?");
  g_assert_false (natter_composer_send (composer));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  ui_destroy_window (window);

  g_assert_cmpint (g_rename (aside, path), ==, 0);
  ui_world_restart (u);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  shown = (Shown) { window, "Monday works.|Tuesday works too." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_null (natter_session_row_get_status_mark (ui_find_session_row (window, session_id)));
  g_assert_null (natter_composer_get_blocked_reason (composer));
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A conversation both devices continued while apart: "Where to?" on
 * both, then "By train, then" there and "By car, then" here. The log is
 * this device's; returns the bytes of the other device's log, which
 * Syncthing would keep as the copy. *@here is this device's last turn. */
static char *
diverge (UiWorld    *u,
         const char *session_id,
         char      **here)
{
  g_autofree char *first = NULL;
  g_autofree char *there = NULL;
  g_autofree char *log = NULL;
  g_autofree char *before = NULL;
  char *theirs = NULL;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Anywhere you like.\"}",
                            "{\"role\":\"assistant\",\"content\":\"The train it is.\"}",
                            "{\"role\":\"assistant\",\"content\":\"The car it is.\"}",
                            NULL);
  first = ui_send (u, session_id, "Where to?");
  ui_wait_turn (u, first);
  log = natter_jsonl_repo_dup_path (u->w->session_repo, session_id, NULL);
  g_assert_true (g_file_get_contents (log, &before, NULL, NULL));
  there = ui_send (u, session_id, "By train, then");
  ui_wait_turn (u, there);
  g_assert_true (g_file_get_contents (log, &theirs, NULL, NULL));
  g_assert_true (g_file_set_contents (log, before, -1, NULL));
  ui_world_restart (u);
  *here = ui_send (u, session_id, "By car, then");
  ui_wait_turn (u, *here);
  return theirs;
}

/* The copy Syncthing kept of a conversation both devices continued opens
 * as its other version: the shared turn, then the other device's answer,
 * and a plain word on what a message there does. The conversation shows
 * this device's answer. */
static void
test_conflict_copy (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, copy));
  shown = (Shown) { window, "Anywhere you like.|The train it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_cmpstr (natter_composer_get_note (composer), ==, copy_note);
  g_assert_true (ui_label_shown (GTK_WIDGET (composer), copy_note));

  g_assert_true (natter_window_open_session (window, session_id));
  shown = (Shown) { window, "Anywhere you like.|The car it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_null (natter_composer_get_blocked_reason (composer));
  g_assert_null (natter_composer_get_note (composer));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 3);
  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
opened_elsewhere (gpointer data)
{
  Shown *s = data;

  ui_settle ();
  return natter_window_get_session_id (s->window) != NULL &&
         strstr (natter_window_get_session_id (s->window), ".sync-conflict-") == NULL && texts_shown (s);
}

/* A message sent in the copy goes on from it: a new version opens with
 * the copy's turns and the new answer, the model having been sent the
 * copy's history; neither the copy nor the log is written. */
static void
test_conflict_copy_continue (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *log_before = NULL;
  g_autofree char *log_after = NULL;
  g_autofree char *copy_after = NULL;
  g_autoptr(NatterSessionState) version = NULL;
  JsonArray *messages;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  log_path = natter_jsonl_repo_dup_path (u->w->session_repo, session_id, NULL);
  g_assert_true (g_file_get_contents (log_path, &log_before, NULL, NULL));
  ui_world_restart (u);
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"And back by train.\"}",
                            NULL);

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, copy));
  shown = (Shown) { window, "Anywhere you like.|The train it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  natter_composer_set_text (composer, "And back?");
  g_assert_true (natter_composer_send (composer));
  shown = (Shown) { window, "Anywhere you like.|The train it is.|And back by train." };
  ui_wait_until_full (opened_elsewhere, describe_texts, &shown);
  ui_wait_until (ui_no_advances, u);

  /* The model was sent the copy's history, then the message. */
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 4);
  messages = json_object_get_array_member (natter_fake_model_get_request (u->w->fakes->model, 3), "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages,
                                                                                 json_array_get_length (messages) - 3),
                                                  "content"), ==, "By train, then");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages,
                                                                                 json_array_get_length (messages) - 1),
                                                  "content"), ==, "And back?");
  version = ui_get_session (u, natter_window_get_session_id (window));
  g_assert_cmpstr (natter_session_state_get_parent_session (version), ==, session_id);
  g_assert_cmpuint (natter_session_state_get_n_turns (version), ==, 2);
  g_assert_null (natter_composer_get_note (composer));
  g_assert_null (natter_composer_get_blocked_reason (composer));

  g_assert_true (g_file_get_contents (copy_path, &copy_after, NULL, NULL));
  g_assert_cmpstr (copy_after, ==, theirs);
  g_assert_true (g_file_get_contents (log_path, &log_after, NULL, NULL));
  g_assert_cmpstr (log_after, ==, log_before);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The status page on screen. */
static AdwStatusPage *
shown_status_page (NatterWindow *window)
{
  g_autoptr(GPtrArray) pages = ui_find_all (window, ADW_TYPE_STATUS_PAGE);

  for (guint i = 0; i < pages->len; i++)
    if (gtk_widget_get_mapped (g_ptr_array_index (pages, i)))
      return g_ptr_array_index (pages, i);
  return NULL;
}

typedef struct
{
  NatterWindow *window;
  const char   *text;     /* what the description says once looked at */
  const char   *button;   /* a button that is then sensitive */
} PageWait;

static gboolean
damage_described (gpointer data)
{
  PageWait *w = data;
  AdwStatusPage *page = shown_status_page (w->window);
  GtkWidget *button = page != NULL ? ui_find_button (page, w->button) : NULL;

  ui_settle ();
  return button != NULL && gtk_widget_get_sensitive (button) && adw_status_page_get_description (page) != NULL &&
         strstr (adw_status_page_get_description (page), w->text) != NULL;
}

static char *
describe_page (gpointer data)
{
  PageWait *w = data;
  AdwStatusPage *page = shown_status_page (w->window);

  return g_strdup (page != NULL ? adw_status_page_get_description (page) : "(no status page)");
}

static gboolean
moved_on (gpointer data)
{
  PageWait *w = data;

  ui_settle ();
  return g_strcmp0 (natter_window_get_session_id (w->window), w->text) != 0 && ui_timeline_loaded (w->window);
}

/* A conflict copy that cannot be read whole is a damaged conversation
 * like any other: titled from its readable lines, the reason in plain
 * words with the file's name, and both ways on; its readable part
 * copies to a new conversation, the copy left as it is. */
static void
test_conflict_copy_damaged (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *copy = g_strconcat (session_id, ".sync-conflict-20261205-114000-ABCDEFG", NULL);
  g_autofree char *copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  g_autofree char *torn = NULL;
  g_autofree char *after = NULL;
  g_autofree char *line = NULL;
  NatterWindow *window;
  AdwStatusPage *page;
  PageWait wait;

  /* Its first line, then a second that is not JSON. */
  torn = g_strndup (theirs, strchr (theirs, '\n') + 1 - theirs);
  line = g_strconcat (torn, "{\"type\":\n", NULL);
  g_assert_true (g_file_set_contents (copy_path, line, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (u->index, copy)), ==, "Trip");
  g_assert_true (natter_window_open_session (window, copy));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  g_free (torn);
  torn = g_strdup_printf ("Line 2 of the file “%s.jsonl” cannot be read", copy);
  wait = (PageWait) { window, torn, "Copy Readable Part to a New Conversation" };
  ui_wait_until_full (damage_described, describe_page, &wait);
  page = shown_status_page (window);
  g_assert_cmpstr (adw_status_page_get_title (page), ==, "Trip");
  g_assert_null (strstr (adw_status_page_get_description (page), copy_path));
  g_assert_true (gtk_widget_get_sensitive (ui_find_button (page, "Show File")));

  g_signal_emit_by_name (ui_find_button (page, "Copy Readable Part to a New Conversation"), "clicked");
  wait.text = copy;
  ui_wait_until (moved_on, &wait);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_cmpstr (natter_session_index_entry_get_title (natter_session_index_lookup (u->index,
                                                                                       natter_window_get_session_id (window))),
                   ==, "Trip (recovered)");
  g_assert_true (g_file_get_contents (copy_path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, line);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* A file beside the log whose name has the conflict mark but a date
 * that does not exist is listed as damaged, and its page says so in
 * plain words, naming the file, which Show File shows. */
static void
test_conflict_copy_bad_name (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *log_path = natter_jsonl_repo_dup_path (u->w->session_repo, session_id, NULL);
  g_autofree char *dir = g_path_get_dirname (log_path);
  g_autofree char *name = g_strconcat (session_id, ".sync-conflict-20261345-114000-ABCDEFG", NULL);
  g_autofree char *basename = g_strconcat (name, ".jsonl", NULL);
  g_autofree char *path = g_build_filename (dir, basename, NULL);
  g_autofree char *said = g_strdup_printf ("The file “%s” cannot be read: its name is not", basename);
  NatterWindow *window;
  AdwStatusPage *page;
  PageWait wait;

  g_assert_true (g_file_set_contents (path, theirs, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_nonnull (natter_session_index_lookup (u->index, name));
  g_assert_true (natter_window_open_session (window, name));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  wait = (PageWait) { window, said, "Show File" };
  ui_wait_until_full (damage_described, describe_page, &wait);
  page = shown_status_page (window);
  g_assert_null (strstr (adw_status_page_get_description (page), dir));
  ui_destroy_window (window);
  ui_world_free (u);
}

static const char *copy_refused = "This version is another device’s copy of the conversation, kept when both "
                                   "devices changed it at once, and is never changed: nothing was written. Send a "
                                   "message in it first: in the new version that makes, every message can be "
                                   "edited, tried again and branched from.";

/* The error bar's labels that are not a button's: its heading, then
 * the reason. */
static const char *
error_text (NatterWindow *window,
            guint         index)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_LABEL);
  guint seen = 0;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON) == NULL && seen++ == index)
        return gtk_label_get_text (GTK_LABEL (label));
    }
  return NULL;
}

/* A branch from an answer of the copy would write a session naming the
 * copy as its parent, which it has no id for: refused, and the window
 * says in plain words what to do instead (send a message in the copy
 * first, docs/sync.md), without a details line saying it again. */
static void
test_conflict_copy_branch_refused (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  g_autofree char *copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  const char *answer;
  NatterWindow *window;
  Shown shown;

  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, copy));
  shown = (Shown) { window, "Anywhere you like.|The train it is." };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  answer = natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index, copy));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.branch-from-turn", "s", answer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (error_text (window, 0), ==, "The branch could not be made");
  g_assert_cmpstr (error_text (window, 1), ==, copy_refused);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, copy);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The copy Syncthing kept of one answer both devices went on with
 * opens as another answer to the message; it has no turn a conversation
 * could go on from, so the message field says it is read only and
 * sends nothing. */
static void
test_turn_copy_read_only (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Poem");
  g_autofree char *turn = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *theirs = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  g_auto(GStrv) parts = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  Shown shown;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Violets are blue\"}", NULL);
  turn = ui_send (u, session_id, "A poem, please");
  ui_wait_turn (u, turn);
  path = turn_path (u, turn);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  parts = g_strsplit (contents, "Violets are blue", -1);
  theirs = g_strjoinv ("Roses are red", parts);
  copy = g_strconcat (turn, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = natter_jsonl_repo_dup_path (u->w->turn_repo, copy, NULL);
  g_assert_true (g_file_set_contents (copy_path, theirs, -1, NULL));
  share_folder (u);
  ui_world_restart (u);
  g_assert_nonnull (natter_session_index_lookup (u->index, copy));

  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, copy));
  shown = (Shown) { window, "Roses are red" };
  ui_wait_until_full (texts_shown, describe_texts, &shown);
  g_assert_cmpstr (natter_composer_get_blocked_reason (composer), ==, turn_copy_blocked);
  natter_composer_set_text (composer, "Another one?");
  g_assert_false (natter_composer_send (composer));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 1);
  ui_destroy_window (window);
  ui_world_free (u);
}

/* The versions the open timeline gives the turn @turn_id. */
static guint
n_versions (NatterWindow *window,
            const char   *turn_id)
{
  GListModel *timeline = G_LIST_MODEL (natter_window_get_timeline (window));

  for (guint i = 0; timeline != NULL && i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (timeline, i);

      if (NATTER_IS_TURN_ITEM (item) && g_strcmp0 (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (item)), turn_id) == 0)
        {
          GPtrArray *versions = natter_turn_item_get_versions (NATTER_TURN_ITEM (item));

          return versions != NULL ? versions->len : 1;
        }
    }
  return 0;
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  guint         n;
} Versions;

static gboolean
versions_are (gpointer data)
{
  Versions *v = data;

  ui_settle ();
  return ui_timeline_loaded (v->window) && n_versions (v->window, v->turn_id) == v->n;
}

/* The copy Syncthing keeps arrives while the window shows the
 * conversation: its version is listed and the message where the devices
 * parted gets its arrows at once, without a restart or opening the
 * conversation again; the copy deleted there takes them away. */
static void
test_conflict_copy_arrives (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Trip");
  g_autofree char *here = NULL;
  g_autofree char *theirs = diverge (u, session_id, &here);
  g_autofree char *copy = NULL;
  g_autofree char *copy_path = NULL;
  g_autofree char *incoming = NULL;
  g_autoptr(NatterStoreWatch) watch = NULL;
  NatterWindow *window;
  Versions versions;

  watch = natter_store_watch_new (u->sessions, NULL, u->w->storage);
  natter_store_watch_set_delay (watch, 20);
  natter_store_watch_start (watch);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  versions = (Versions) { window, here, 1 };
  ui_wait_until (versions_are, &versions);

  /* Brought as Syncthing brings it: written beside, renamed into place. */
  copy = g_strconcat (session_id, ".sync-conflict-20261205-011213-ABCDEF2", NULL);
  copy_path = natter_jsonl_repo_dup_path (u->w->session_repo, copy, NULL);
  incoming = g_strconcat (copy_path, ".syncthing.tmp", NULL);
  g_assert_true (g_file_set_contents (incoming, theirs, -1, NULL));
  g_assert_cmpint (g_rename (incoming, copy_path), ==, 0);
  versions.n = 2;
  ui_wait_until (versions_are, &versions);
  g_assert_nonnull (natter_session_index_lookup (u->index, copy));
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 3);

  g_assert_cmpint (g_unlink (copy_path), ==, 0);
  versions.n = 1;
  ui_wait_until (versions_are, &versions);
  g_assert_null (natter_session_index_lookup (u->index, copy));

  ui_destroy_window (window);
  g_clear_object (&watch);
  ui_world_free (u);
}

typedef struct
{
  NatterTurnItem *item;
  guint           changed;
} Watched;

static void
item_changed_cb (NatterTurnItem *item,
                 Watched        *w)
{
  w->changed++;
}

static gboolean
item_read (gpointer data)
{
  Watched *w = data;

  return !natter_turn_item_get_loading (w->item) &&
         (natter_turn_item_get_state (w->item) != NULL || natter_turn_item_get_error (w->item) != NULL);
}

static gboolean
item_changed (gpointer data)
{
  Watched *w = data;

  return w->changed > 0 && !natter_turn_item_get_loading (w->item);
}

/* A turn read again because its file changed, but holding nothing it
 * did not have (this process's own write, already joined from the bus),
 * keeps its state — and so every widget shown for it, a prompt's
 * buttons under the pointer among them; a turn that did grow is shown
 * anew. */
static void
test_turn_item_reread (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Week");
  g_autofree char *turn_id = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *stripped = NULL;
  g_autoptr(NatterTurnItem) item = NULL;
  NatterTurnState *state;
  Watched w = { 0 };
  char *last;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Monday.\"}", NULL);
  turn_id = ui_send (u, session_id, "When?");
  ui_wait_turn (u, turn_id);
  /* Read while its last line was not there yet. */
  path = natter_jsonl_repo_dup_path (u->w->turn_repo, turn_id, NULL);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (g_str_has_suffix (contents, "\n"));
  stripped = g_strndup (contents, strlen (contents) - 1);
  last = strrchr (stripped, '\n');
  g_assert_nonnull (last);
  last[1] = '\0';
  g_assert_true (g_file_set_contents (path, stripped, -1, NULL));

  item = natter_turn_item_new (u->sessions, turn_id, 1);
  w.item = item;
  g_signal_connect (item, "changed", G_CALLBACK (item_changed_cb), &w);
  natter_turn_item_ensure_loaded (item);
  ui_wait_until (item_read, &w);
  state = natter_turn_state_ref (natter_turn_item_get_state (item));

  /* Nothing new: the same state, no change told. */
  w.changed = 0;
  natter_turn_item_reload (item);
  g_assert_true (natter_turn_item_get_loading (item));
  ui_wait_until (item_read, &w);
  g_assert_true (natter_turn_item_get_state (item) == state);
  g_assert_cmpuint (w.changed, ==, 0);

  /* The last line arrives: read and told. */
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  natter_turn_item_reload (item);
  ui_wait_until (item_changed, &w);
  g_assert_true (natter_turn_item_get_state (item) != state);
  g_assert_cmpuint (natter_turn_state_get_n_events (natter_turn_item_get_state (item)), ==,
                    natter_turn_state_get_n_events (state) + 1);

  natter_turn_state_unref (state);
  g_signal_handlers_disconnect_by_data (item, &w);
  g_clear_object (&item);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/sync/turn-arriving", test_turn_arriving);
  g_test_add_func ("/sync/conflict-copy", test_conflict_copy);
  g_test_add_func ("/sync/conflict-copy-continue", test_conflict_copy_continue);
  g_test_add_func ("/sync/turn-copy-read-only", test_turn_copy_read_only);
  g_test_add_func ("/sync/conflict-copy-damaged", test_conflict_copy_damaged);
  g_test_add_func ("/sync/conflict-copy-bad-name", test_conflict_copy_bad_name);
  g_test_add_func ("/sync/conflict-copy-branch-refused", test_conflict_copy_branch_refused);
  g_test_add_func ("/sync/conflict-copy-arrives", test_conflict_copy_arrives);
  g_test_add_func ("/sync/turn-item-reread", test_turn_item_reread);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
