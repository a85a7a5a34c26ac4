/* test-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar search (Ctrl+F) by what was said: a conversation whose
 * title does not match is found by a word of an answer, its row shows
 * the matching words (escaped), and opening it scrolls to that turn
 * instead of the bottom. What the search cannot look at (a damaged
 * conversation, an index file it cannot open) it says.
 */

#include <string.h>

#include <sqlite3.h>

#include "natter-folder-log.h"
#include "natter-search-index.h"
#include "natter-search-index-private.h"
#include "natter-sessions-settings.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* Sends @text to @session_id, the fake model answering @answer, and
 * waits until the turn settled. */
static char *
say (UiWorld    *u,
     const char *session_id,
     const char *text,
     const char *answer)
{
  g_autoptr(JsonObject) step = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *literal = NULL;
  char *turn_id;

  json_object_set_string_member (step, "role", "assistant");
  json_object_set_string_member (step, "content", answer);
  json_node_set_object (node, step);
  literal = json_to_string (node, FALSE);
  natter_fake_model_script (u->w->fakes->model, literal, NULL);
  turn_id = ui_send (u, session_id, text);
  ui_wait_turn (u, turn_id);
  return turn_id;
}

/* Thirty exchanges in @session_id, the sixteenth @question and @answer,
 * whose turn is returned (transfer full). */
static char *
long_conversation (UiWorld    *u,
                   const char *session_id,
                   const char *question,
                   const char *answer)
{
  char *target = NULL;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *other_question = g_strdup_printf ("Question number %u about the route", i);
      g_autofree char *other_answer = g_strdup_printf ("Answer number %u, with enough words to take some room.", i);

      if (i == 15)
        target = say (u, session_id, question, answer);
      else
        g_free (say (u, session_id, other_question, other_answer));
    }
  return target;
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *snippet;     /* NULL: the row shows none */
} ListWait;

/* The sidebar lists only @session_id, its row showing @snippet. */
static gboolean
lists_only (gpointer data)
{
  ListWait *w = data;
  GListModel *model = natter_window_get_sidebar_model (w->window);
  g_autoptr(NatterSessionIndexEntry) entry = NULL;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  if (g_list_model_get_n_items (model) != 1)
    return FALSE;
  entry = g_list_model_get_item (model, 0);
  if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), w->session_id) != 0)
    return FALSE;
  rows = ui_find_all (natter_window_get_session_list (w->window), NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionRow *row = g_ptr_array_index (rows, i);

      if (natter_session_row_get_entry (row) == entry && gtk_widget_get_mapped (GTK_WIDGET (row)))
        return g_strcmp0 (natter_session_row_get_snippet (row), w->snippet) == 0;
    }
  return FALSE;
}

static NatterSessionRow *
find_listed_row (NatterWindow *window,
                 const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionRow *row = g_ptr_array_index (rows, i);
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);

      if (entry != NULL && g_str_equal (natter_session_index_entry_get_session_id (entry), session_id))
        return row;
    }
  g_error ("No row for %s", session_id);
}

static void
search_for (NatterWindow *window,
            const char   *text)
{
  gtk_editable_set_text (ui_open_search (window), text);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
} TurnWait;

/* The row of the turn is on screen, within the timeline's viewport. */
static gboolean
turn_in_view (gpointer data)
{
  TurnWait *w = data;
  GtkWidget *list = natter_window_get_timeline_list (w->window);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (list, NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnRow *row = g_ptr_array_index (rows, i);
      NatterTurnItem *item = natter_turn_row_get_item (row);
      graphene_rect_t bounds;

      if (item == NULL || g_strcmp0 (natter_turn_item_get_turn_id (item), w->turn_id) != 0 ||
          !gtk_widget_get_mapped (GTK_WIDGET (row)) ||
          !gtk_widget_compute_bounds (GTK_WIDGET (row), scroller, &bounds))
        continue;
      return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (scroller);
    }
  return FALSE;
}

static char *
describe_view (gpointer data)
{
  TurnWait *w = data;
  GtkAdjustment *adjustment = natter_window_get_timeline_adjustment (w->window);
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_timeline_list (w->window), NATTER_TYPE_TURN_ROW);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "turn %s not in view; scrolled to %.0f of %.0f (page %.0f); rows:", w->turn_id,
                          gtk_adjustment_get_value (adjustment), gtk_adjustment_get_upper (adjustment),
                          gtk_adjustment_get_page_size (adjustment));
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item != NULL && gtk_widget_get_mapped (g_ptr_array_index (rows, i)))
        g_string_append_printf (out, " %u", natter_turn_item_get_session_seq (item));
    }
  return g_string_free (out, FALSE);
}

static gboolean
index_idle (gpointer data)
{
  return !natter_search_index_get_indexing (data);
}

static void
test_search_by_content (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *groceries = ui_create_session (u, "Groceries");
  g_autofree char *target = NULL;
  g_autofree char *last = NULL;
  NatterSearchIndex *search = NULL;
  GtkAdjustment *adjustment;
  GtkSelectionModel *selection;
  NatterWindow *window;
  ListWait list_wait;
  TurnWait turn_wait;

  /* A long conversation: the turn that matches is in its middle, far
   * from its first turns and from the bottom it opens at. */
  target = long_conversation (u, trip, "What lives in the savanna?", "Zebras & <lions> roam there.");
  last = say (u, groceries, "Apples or pears?", "Pears.");
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);

  /* Found by a word of an answer, not of its title; the matching words
   * shown under the title, escaped, the match in bold. */
  search_for (window, "zebra");
  list_wait = (ListWait) { window, trip, "<b>Zebras</b> &amp; &lt;lions&gt; roam there." };
  ui_wait_until (lists_only, &list_wait);

  /* A title match alone shows no snippet. */
  search_for (window, "groceries");
  list_wait = (ListWait) { window, groceries, NULL };
  ui_wait_until (lists_only, &list_wait);

  /* Opening the result shows the turn where the words were said. */
  search_for (window, "savanna");
  list_wait = (ListWait) { window, trip, "What lives in the <b>savanna</b>?" };
  ui_wait_until (lists_only, &list_wait);
  selection = gtk_list_view_get_model (GTK_LIST_VIEW (natter_window_get_session_list (window)));
  gtk_selection_model_select_item (selection, 0, TRUE);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, trip);
  turn_wait = (TurnWait) { window, target };
  ui_wait_until_full (turn_in_view, describe_view, &turn_wait);
  /* ...and not the bottom, where a conversation opens otherwise. */
  adjustment = natter_window_get_timeline_adjustment (window);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <,
                     gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) - 1);

  /* From the keyboard: Down from the search focuses the hit without
   * selecting it, Enter activates it, which opens it at its turn too. */
  g_assert_true (natter_window_open_session (window, groceries));
  search_for (window, "savanna");
  ui_wait_until (lists_only, &list_wait);
  g_signal_emit_by_name (natter_window_get_session_list (window), "activate", 0);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, trip);
  ui_wait_until_full (turn_in_view, describe_view, &turn_wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}

/* Words said only in an earlier version of a conversation: the hit is
 * that version's row, with that version's mark and time, so it says it
 * is an earlier version, unlike the conversation's own row. */
typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *text;
} VersionsWait;

static gboolean
versions_text_is (gpointer data)
{
  VersionsWait *w = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_session_list (w->window), NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionRow *row = g_ptr_array_index (rows, i);
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);

      if (entry != NULL && gtk_widget_get_mapped (GTK_WIDGET (row)) &&
          g_str_equal (natter_session_index_entry_get_session_id (entry), w->session_id))
        return g_strcmp0 (natter_session_row_get_versions_text (row), w->text) == 0;
    }
  return FALSE;
}

static gboolean
other_version_open (gpointer data)
{
  VersionsWait *w = data;

  return g_strcmp0 (natter_window_get_session_id (w->window), w->session_id) != 0 &&
         natter_window_get_session_id (w->window) != NULL && ui_timeline_loaded (w->window);
}

static void
test_search_hit_in_earlier_version (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *fruit = ui_create_session (u, "Fruit");
  g_autofree char *turn_id = say (u, fruit, "Name a fruit", "The secret word is pineapple.");
  NatterSearchIndex *search;
  NatterWindow *window;
  VersionsWait wait;
  const char *version;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A banana.\"}", NULL);
  search = ui_search_index_start (u);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, fruit));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", turn_id));
  wait = (VersionsWait) { window, fruit, NULL };
  ui_wait_until (other_version_open, &wait);
  version = natter_window_get_session_id (window);
  ui_wait_turn (u, natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index, version)));
  /* Outside a search, the conversation's one row is the new version's. */
  wait = (VersionsWait) { window, version, "2 versions" };
  ui_wait_until (versions_text_is, &wait);

  search_for (window, "pineapple");
  wait = (VersionsWait) { window, fruit, "Found in an earlier version (2 in all)" };
  ui_wait_until (versions_text_is, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}

static gboolean
has_width (gpointer widget)
{
  ui_settle ();
  return gtk_widget_get_width (widget) > 0;
}

/* The label of @row that shows @markup. */
static GtkWidget *
snippet_label_of (NatterSessionRow *row,
                  const char       *markup)
{
  g_autoptr(GPtrArray) labels = ui_find_all (row, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_label (g_ptr_array_index (labels, i)), markup) == 0)
      return g_ptr_array_index (labels, i);
  g_error ("No label shows %s", markup);
}

/* The conversation open already, found again by a search: a click on
 * its row (selected already) goes to the words found; a search result
 * picked in the Shell opens its conversation at its words too. The row
 * shows the match, not the words before it, however long they are. */
static void
test_search_in_open_conversation (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *groceries = ui_create_session (u, "Groceries");
  g_autofree char *target = NULL;
  g_autofree char *last = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NatterSessionRow *row;
  GtkWidget *label;
  PangoLayout *layout;
  int shown_width = 0;
  ListWait list_wait;
  TurnWait turn_wait;

  target = long_conversation (u, trip, "Any birds on the way?",
                              "Unfortunately, internationalisation considerations complicated geese migrations.");
  last = say (u, groceries, "Apples or pears?", "Pears.");
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, trip));
  ui_wait_until (ui_timeline_loaded, window);

  search_for (window, "geese");
  list_wait = (ListWait) { window, trip, "… complicated <b>geese</b> migrations." };
  ui_wait_until (lists_only, &list_wait);
  row = find_listed_row (window, trip);
  label = snippet_label_of (row, list_wait.snippet);
  ui_wait_until (has_width, label);
  /* The words up to the end of the match fit the row: none is cut. */
  layout = gtk_widget_create_pango_layout (label, NULL);
  pango_layout_set_markup (layout, "… complicated <b>geese</b>", -1);
  pango_layout_get_pixel_size (layout, &shown_width, NULL);
  g_object_unref (layout);
  g_assert_cmpint (shown_width, <=, gtk_widget_get_width (label));

  /* The row is the open conversation's, selected already: a click on it
   * goes to the words. */
  g_assert_cmpstr (natter_window_get_session_id (window), ==, trip);
  turn_wait = (TurnWait) { window, target };
  g_assert_false (turn_in_view (&turn_wait));
  ui_click (GTK_WIDGET (row));
  ui_wait_until_full (turn_in_view, describe_view, &turn_wait);

  /* A Shell result: another conversation open, the result opens at its
   * words, not at the bottom. */
  g_assert_true (natter_window_open_session (window, groceries));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (natter_window_open_session_at (window, trip, target));
  ui_wait_until_full (turn_in_view, describe_view, &turn_wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}

static gboolean
is_hit_button (GtkWidget *widget)
{
  return gtk_widget_has_css_class (widget, "natter-search-hit");
}

static gboolean
hit_buttons_shown (gpointer data)
{
  g_autoptr(GPtrArray) buttons = NULL;

  ui_settle ();
  buttons = ui_find_all (natter_window_get_session_list (data), GTK_TYPE_BUTTON);
  for (guint i = buttons->len; i > 0; i--)
    if (!is_hit_button (g_ptr_array_index (buttons, i - 1)) || !gtk_widget_get_mapped (g_ptr_array_index (buttons, i - 1)))
      g_ptr_array_remove_index (buttons, i - 1);
  return buttons->len == 2;
}

/* Every message a search found in a conversation can be reached: the
 * row shows the best one's words, and a button for each other message
 * found, which opens the conversation at that message. */
static void
test_search_hits_per_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  char *targets[3] = { NULL, NULL, NULL };
  NatterSearchIndex *search;
  g_autoptr(GPtrArray) buttons = NULL;
  NatterWindow *window;
  TurnWait turn_wait;
  guint n = 0;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *question = g_strdup_printf ("Question number %u about the route", i);
      g_autofree char *answer = i % 10 == 5 ? g_strdup_printf ("Flamingos stop at lake %u on the way.", i)
                                            : g_strdup_printf ("Answer number %u, with enough words.", i);
      char *turn_id = say (u, trip, question, answer);

      if (i % 10 == 5)
        targets[n++] = turn_id;
      else
        g_free (turn_id);
    }
  search = ui_search_index_start (u);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, trip));
  ui_wait_until (ui_timeline_loaded, window);

  search_for (window, "flamingos");
  ui_wait_until (hit_buttons_shown, window);
  buttons = ui_find_all (natter_window_get_session_list (window), GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      GVariant *target;
      const char *turn_id;

      if (!is_hit_button (button))
        continue;
      target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
      g_variant_get (target, "(&s&s)", NULL, &turn_id);
      turn_wait = (TurnWait) { window, turn_id };
      g_assert_true (gtk_widget_activate (button));
      ui_wait_until_full (turn_in_view, describe_view, &turn_wait);
      g_assert_cmpstr (natter_window_get_session_id (window), ==, trip);
      /* One of the found messages, not the best one the row's words are of. */
      g_assert_true (g_strcmp0 (turn_id, targets[0]) == 0 || g_strcmp0 (turn_id, targets[1]) == 0 ||
                     g_strcmp0 (turn_id, targets[2]) == 0);
      g_assert_cmpstr (turn_id, !=, natter_sidebar_get_hit_turn (NATTER_SIDEBAR (window->session_sidebar), trip));
    }
  ui_save_window (GTK_WIDGET (window), "search-hits.png");

  ui_destroy_window (window);
  ui_search_index_drop (search);
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    g_free (targets[i]);
  ui_world_free (u);
}

/* The sidebar's note that the index is still being brought up to date. */
static gboolean
is_indexing_note (GtkWidget *widget)
{
  return GTK_IS_LABEL (widget) &&
         gtk_widget_get_visible (widget) &&
         g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), "Indexing");
}

static gboolean
indexing_note_shown (gpointer window)
{
  ui_settle ();
  return ui_find_first_full (window, GTK_TYPE_LABEL, is_indexing_note) != NULL;
}

static gboolean
indexing_note_hidden (gpointer window)
{
  return !indexing_note_shown (window);
}

/* While the index is being brought up to date, a search says so (and
 * shows what is indexed); once it is, the notice goes. The index's writer
 * is held back by a write lock this test takes on the file. */
static void
test_search_while_indexing (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Trip planning");
  g_autofree char *turn = say (u, sid, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autofree char *path = g_file_get_path (cache);
  NatterSearchIndex *search = ui_search_index_start (u);
  NatterWindow *window;
  ListWait list_wait;
  sqlite3 *db = NULL;

  ui_search_index_drop (search);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "BEGIN IMMEDIATE", NULL, NULL, NULL), ==, SQLITE_OK);

  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  natter_search_index_start (search);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  /* What the earlier build indexed is found meanwhile. */
  list_wait = (ListWait) { window, sid, "<b>Zebras</b>." };
  ui_wait_until (lists_only, &list_wait);
  ui_wait_until (indexing_note_shown, window);
  g_assert_true (natter_search_index_get_indexing (search));

  g_assert_cmpint (sqlite3_exec (db, "COMMIT", NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);
  ui_wait_until (index_idle, search);
  search_for (window, "savanna");
  ui_wait_until (indexing_note_hidden, window);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

typedef struct
{
  NatterWindow *window;
  const char   *first;   /* listed, in any order */
  const char   *second;
  const char   *note;    /* a part of the note under the entry */
} NoteWait;

static gboolean
note_says (GtkWidget *widget,
           gpointer   text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
         strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL;
}

static gboolean
is_listed (GListModel *model,
           const char *session_id)
{
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (model, i);

      if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The sidebar lists exactly @first and @second (when set), and the note
 * says @note. */
static gboolean
lists_with_note (gpointer data)
{
  NoteWait *w = data;
  GListModel *model = natter_window_get_sidebar_model (w->window);
  g_autoptr(GPtrArray) labels = NULL;

  ui_settle ();
  if (g_list_model_get_n_items (model) != (w->second != NULL ? 2u : 1u) || !is_listed (model, w->first) ||
      (w->second != NULL && !is_listed (model, w->second)))
    return FALSE;
  labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    if (note_says (g_ptr_array_index (labels, i), (gpointer) w->note))
      return TRUE;
  return FALSE;
}

static char *
describe_note (gpointer data)
{
  NoteWait *w = data;
  g_autoptr(GPtrArray) labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "%u listed; labels:", g_list_model_get_n_items (natter_window_get_sidebar_model (w->window)));
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (labels, i)))
      g_string_append_printf (out, " [%s]", gtk_label_get_label (g_ptr_array_index (labels, i)));
  return g_string_free (out, FALSE);
}

typedef struct
{
  NatterWindow *window;
  guint         n_listed;
  const char   *note;    /* the note under the entry; NULL: no note on indexing */
} ProgressWait;

/* The sidebar lists @n_listed conversations, and the note says how far
 * indexing has come, or says nothing of it. */
static gboolean
lists_with_progress (gpointer data)
{
  ProgressWait *w = data;
  g_autoptr(GPtrArray) labels = NULL;
  gboolean noted = FALSE;

  ui_settle ();
  if (g_list_model_get_n_items (natter_window_get_sidebar_model (w->window)) != w->n_listed)
    return FALSE;
  labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    if (w->note != NULL ? note_says (g_ptr_array_index (labels, i), (gpointer) w->note)
                        : is_indexing_note (g_ptr_array_index (labels, i)))
      noted = TRUE;
  return w->note != NULL ? noted : !noted;
}

static char *
describe_progress (gpointer data)
{
  ProgressWait *w = data;
  NoteWait note = { w->window, NULL, NULL, NULL };

  return describe_note (&note);
}

/* A word said more often than the search ranks: the sidebar lists the
 * best of the newest matches, and the note says in plain words that only
 * those were looked at; a search within the cap says nothing of it. */
static gboolean
lists_without_cap_note (gpointer data)
{
  NoteWait *w = data;
  g_autoptr(GPtrArray) labels = NULL;

  ui_settle ();
  if (g_list_model_get_n_items (natter_window_get_sidebar_model (w->window)) != 1 ||
      !is_listed (natter_window_get_sidebar_model (w->window), w->first))
    return FALSE;
  labels = ui_find_all (w->window, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    if (note_says (g_ptr_array_index (labels, i), (gpointer) w->note))
      return FALSE;
  return TRUE;
}

static void
test_search_capped (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *old = ui_create_session (u, "Trip planning");
  g_autofree char *recent = ui_create_session (u, "Wildlife notes");
  g_autofree char *first = say (u, old, "What lives in the savanna?", "Zebras, mostly.");
  g_autofree char *second = say (u, recent, "And near the river?", "Zebras drink there.");
  g_autofree char *third = say (u, recent, "At night?", "Zebras sleep standing.");
  NatterSearchIndex *search = ui_search_index_start (u);
  NatterWindow *window;
  NoteWait wait;

  natter_search_index_set_match_cap (search, 2);
  g_assert_cmpuint (natter_search_index_get_match_cap (search), ==, 2);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);

  /* Three messages say it, two are ranked: the older conversation's
   * message is not among them, and the note says why. */
  search_for (window, "zebras");
  wait = (NoteWait) { window, recent, NULL, "More than 2 messages have these words: the best of the newest 2 are shown" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  /* Within the cap: no such note. */
  search_for (window, "savanna");
  wait = (NoteWait) { window, old, NULL, "More than" };
  ui_wait_until_full (lists_without_cap_note, describe_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) first;
  (void) second;
  (void) third;
}

/* A search while the index is built from nothing says how far indexing
 * has come, and finds what is indexed so far; the note follows the
 * build, and once it is done the search is run again and finds
 * everything. The worker stops after each commit of 2 sessions
 * (natter_search_index_pause_after_batches()) until the test lets it go
 * on, so nothing races. */
static gboolean
first_batch_in (gpointer search)
{
  guint n_checked = 0;

  natter_search_index_get_progress (search, &n_checked, NULL);
  return n_checked == 2;
}

static void
test_search_progress (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  ProgressWait wait;
  guint n_checked = 0;
  guint n_sessions = 0;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *title = g_strdup_printf ("Trip %u", i);
      g_autofree char *sid = ui_create_session (u, title);
      g_autofree char *answer = g_strdup_printf ("Zebras, %u of them.", i);

      g_free (say (u, sid, "What lives in the savanna?", answer));
    }

  search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  natter_search_index_pause_after_batches (search, 2);
  natter_search_index_start (search);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  /* The search is typed once the first batch is in: while indexing, a
   * search runs again only when the index is done, so one typed before
   * would find none of the first two until then. */
  ui_wait_until (first_batch_in, search);
  search_for (window, "zebras");

  /* The first batch is in: two are found, and the note says so. */
  wait = (ProgressWait) { window, 2, "Indexing 2 of 5 conversations…" };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);
  natter_search_index_get_progress (search, &n_checked, &n_sessions);
  g_assert_cmpuint (n_checked, ==, 2);
  g_assert_cmpuint (n_sessions, ==, 5);
  g_assert_true (natter_search_index_get_indexing (search));

  /* The next batch moves the note on; the search shows what it found. */
  natter_search_index_resume (search, TRUE);
  wait = (ProgressWait) { window, 2, "Indexing 4 of 5 conversations…" };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);

  /* Done: the search runs again and finds all five; the note goes. */
  natter_search_index_resume (search, FALSE);
  wait = (ProgressWait) { window, 5, NULL };
  ui_wait_until_full (lists_with_progress, describe_progress, &wait);
  g_assert_false (natter_search_index_get_indexing (search));
  natter_search_index_get_progress (search, &n_checked, &n_sessions);
  g_assert_cmpuint (n_checked, ==, 5);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
}

/* A damaged conversation is not searched as if it were whole, but does
 * not vanish from the search either: it stays listed, marked damaged,
 * and the note says how many could not be searched. */
static void
test_damaged_stays_listed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *bad = ui_create_session (u, "Wombat notes");
  g_autofree char *other = ui_create_session (u, "Groceries");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":", 8, NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);
  g_assert_cmpstr (natter_session_row_get_status_mark (find_listed_row (window, bad)), ==, "errored");

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
  (void) other;
}

/* The search narrowed to a folder lists only the folder's conversations:
 * the note counts only the damaged ones it lists, and says nothing of one
 * outside the folder, which is not listed. */
static void
test_damaged_note_follows_scope (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *bad = ui_create_session (u, "Wombat notes");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(NatterJsonlRepo) repo = NULL;
  g_autoptr(NatterFolders) folders = NULL;
  g_autoptr(GAsyncResult) loaded = NULL;
  g_autoptr(GAsyncResult) created = NULL;
  g_autoptr(GAsyncResult) moved = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *work_id = NULL;
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  repo = natter_folder_repo_new (u->w->storage);
  folders = natter_folders_new (repo, NATTER_CLOCK (u->w->clock), u->w->ids);
  natter_folders_load_async (folders, NULL, ui_result_cb, &loaded);
  g_assert_true (natter_folders_load_finish (folders, ui_wait_result (&loaded), &error));
  g_assert_no_error (error);
  natter_folders_create_async (folders, "Work", NULL, ui_result_cb, &created);
  work_id = natter_folders_create_finish (folders, ui_wait_result (&created), &error);
  g_assert_no_error (error);
  natter_sessions_set_folder_async (u->sessions, trip, work_id, NULL, ui_result_cb, &moved);
  g_assert_true (natter_sessions_set_folder_finish (u->sessions, ui_wait_result (&moved), &error));
  g_assert_no_error (error);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_folders (window, folders);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  natter_sidebar_set_search_scope (window->session_sidebar, work_id);
  wait = (NoteWait) { window, trip, NULL, "damaged" };
  ui_wait_until_full (lists_without_cap_note, describe_note, &wait);

  /* Every conversation again: the damaged one is listed and counted. */
  natter_sidebar_set_search_scope (window->session_sidebar, NULL);
  wait = (NoteWait) { window, trip, bad, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  /* Its task holds the session service, which must go with the world. */
  g_clear_object (&moved);
  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

/* A conversation with an earlier message whose file lost its end is not
 * whole either: the search cannot find that message's words, so the
 * conversation stays listed, its row says why, and the note counts it. */
static void
test_unreadable_turn_listed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "zebras");
  wait = (NoteWait) { window, trip, notes, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);
  g_assert_cmpstr (natter_session_row_get_snippet (find_listed_row (window, notes)), ==,
                   "A message here cannot be read: it was not searched");
  g_assert_nonnull (strstr (natter_session_row_get_snippet (find_listed_row (window, trip)), "Zebras"));

  /* Its other words are found as ever; it is named once. */
  search_for (window, "grasses");
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until (lists_with_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
  (void) latest;
}

/* Whether the window of @data (a window and a session id) shows that
 * session. */
static gboolean
shows_session (gpointer data)
{
  gpointer *pair = data;

  return g_strcmp0 (natter_window_get_session_id (pair[0]), pair[1]) == 0;
}

/* An earlier message's file damaged while Natter was closed, after the
 * index had its words: the start-up check looks only at each latest
 * turn, so the words are still found until the conversation is opened;
 * then it is looked at again, and the search names it instead. */
static void
test_damaged_while_closed (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = ui_search_index_start (u);
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  NatterWindow *window;
  NoteWait wait;

  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);
  g_clear_pointer (&hits, g_ptr_array_unref);
  ui_search_index_drop (search);

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  ui_world_restart (u);
  search = ui_search_index_start (u);
  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 1);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, notes));
  ui_wait_until (shows_session, (gpointer[]) { window, notes });
  /* The look it asked for is done before the search, which reads the
   * index as it is. */
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  /* The result holds the index, which must go before the world. */
  g_clear_object (&result);
  search_for (window, "grasses");
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);
  g_clear_pointer (&hits, g_ptr_array_unref);
  hits = natter_search_index_search_sync (search, "burrows", 10, NULL, NULL, NULL);
  g_assert_cmpuint (hits->len, ==, 0);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) latest;
}

/* Whether the row of the session pair[1] in the window pair[0] shows
 * the words pair[2] as what the search found. */
static gboolean
row_shows_found (gpointer data)
{
  gpointer *triple = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_session_list (triple[0]), NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionRow *row = g_ptr_array_index (rows, i);
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (row);
      const char *snippet = natter_session_row_get_snippet (row);

      if (entry != NULL && g_str_equal (natter_session_index_entry_get_session_id (entry), triple[1]) &&
          snippet != NULL && strstr (snippet, triple[2]) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The note under the entry follows the index, not only the next search:
 * a search is on when an earlier message's file is found damaged by the
 * recheck of its conversation (a job of its own, as when it is opened),
 * and the note counts it at once, the search still the same. */
static void
test_note_follows_recheck (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *notes = ui_create_session (u, "Wombat notes");
  g_autofree char *lost = say (u, notes, "Where do wombats live?", "In burrows.");
  g_autofree char *latest = say (u, notes, "What do they eat?", "Grasses.");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->turn_repo, lost, NULL);
  NatterSearchIndex *search = ui_search_index_start (u);
  g_autoptr(GAsyncResult) result = NULL;
  NatterWindow *window;
  NoteWait wait;

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  g_clear_object (&result);
  search_for (window, "grasses");
  /* The search has come back: the row shows the words it found. */
  ui_wait_until (row_shows_found, (gpointer[]) { window, notes, "Grasses" });
  {
    g_autoptr(GPtrArray) labels = ui_find_all (window, GTK_TYPE_LABEL);

    for (guint i = 0; i < labels->len; i++)
      g_assert_false (note_says (g_ptr_array_index (labels, i), "damaged conversation"));
  }

  natter_test_append_file (g_file_peek_path (file), "{\"type\":");
  natter_search_index_recheck_session (search, notes);
  wait = (NoteWait) { window, notes, NULL, "1 damaged conversation stays listed" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) latest;
}

/* A folder where the index file belongs: titles are still searched, and
 * the note says why words are not, naming the folder; nothing is logged. */
static void
test_cache_not_a_file (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *trip = ui_create_session (u, "Trip planning");
  g_autofree char *turn = say (u, trip, "What lives in the savanna?", "Zebras.");
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  g_autofree char *inside = g_build_filename (g_file_peek_path (cache), "mine.txt", NULL);
  NatterSearchIndex *search = NULL;
  NatterWindow *window;
  NoteWait wait;

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (cache), 0700), ==, 0);
  g_assert_true (g_file_set_contents (inside, "mine", -1, NULL));
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  search_for (window, "trip");
  wait = (NoteWait) { window, trip, NULL, "is a folder with files in it" };
  ui_wait_until_full (lists_with_note, describe_note, &wait);
  g_assert_true (g_file_test (inside, G_FILE_TEST_IS_REGULAR));

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  (void) turn;
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/search/by-content", test_search_by_content);
  g_test_add_func ("/search/hit-in-earlier-version", test_search_hit_in_earlier_version);
  g_test_add_func ("/search/in-open-conversation", test_search_in_open_conversation);
  g_test_add_func ("/search/hits-per-message", test_search_hits_per_message);
  g_test_add_func ("/search/while-indexing", test_search_while_indexing);
  g_test_add_func ("/search/progress", test_search_progress);
  g_test_add_func ("/search/damaged-stays-listed", test_damaged_stays_listed);
  g_test_add_func ("/search/damaged-note-follows-scope", test_damaged_note_follows_scope);
  g_test_add_func ("/search/unreadable-turn-listed", test_unreadable_turn_listed);
  g_test_add_func ("/search/damaged-while-closed", test_damaged_while_closed);
  g_test_add_func ("/search/note-follows-recheck", test_note_follows_recheck);
  g_test_add_func ("/search/cache-not-a-file", test_cache_not_a_file);
  g_test_add_func ("/search/capped", test_search_capped);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
