/* test-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The sidebar search (Ctrl+F) by what was said: a conversation whose
 * title does not match is found by a word of an answer, its row shows
 * the matching words (escaped), and opening it scrolls to that turn
 * instead of the bottom. The scenarios of indexing and of damage are in
 * the files beside this one.
 */

#include "test-search.h"

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
 * is an earlier version, unlike the conversation's own row. Words said
 * in both versions list the conversation once, as its own row. */
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
  ListWait list_wait;
  g_autofree char *version = NULL;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A banana.\"}", NULL);
  search = ui_search_index_start (u);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  g_assert_true (natter_window_open_session (window, fruit));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", turn_id));
  wait = (VersionsWait) { window, fruit, NULL };
  ui_wait_until (other_version_open, &wait);
  version = g_strdup (natter_window_get_session_id (window));
  ui_wait_turn (u, natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (u->index, version)));
  /* Outside a search, the conversation's one row is the new version's. */
  wait = (VersionsWait) { window, version, "2 versions" };
  ui_wait_until (versions_text_is, &wait);

  search_for (window, "pineapple");
  wait = (VersionsWait) { window, fruit, "Found in an earlier version (2 in all)" };
  ui_wait_until (versions_text_is, &wait);

  /* Words both versions have (the message the new try sent again): the
   * conversation is listed once, as the version it is listed as outside
   * a search, with the words found there. */
  search_for (window, "name");
  list_wait = (ListWait) { window, version, "<b>Name</b> a fruit" };
  ui_wait_until (lists_only, &list_wait);
  wait = (VersionsWait) { window, version, "2 versions" };
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

static GtkAdjustment *
list_adjustment (NatterWindow *window)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (natter_window_get_session_list (window), GTK_TYPE_SCROLLED_WINDOW);

  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
}

typedef struct
{
  NatterWindow *window;
  GPtrArray    *ids;
  double        value;
} PlaceWait;

static gboolean
all_found (gpointer data)
{
  PlaceWait *w = data;

  ui_settle ();
  for (guint i = 0; i < w->ids->len; i++)
    if (natter_sidebar_get_hit_turn (NATTER_SIDEBAR (w->window->session_sidebar), g_ptr_array_index (w->ids, i)) == NULL)
      return FALSE;
  return TRUE;
}

/* The list has its rows and is laid out taller than its window, so it
 * can be scrolled far down. */
static gboolean
list_scrollable (gpointer data)
{
  PlaceWait *w = data;
  GtkAdjustment *adjustment = list_adjustment (w->window);

  ui_settle ();
  return g_list_model_get_n_items (natter_window_get_sidebar_model (w->window)) >= w->ids->len &&
         gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) > 300;
}

static gboolean
back_in_place (gpointer data)
{
  PlaceWait *w = data;

  ui_settle ();
  /* A few pixels either way keep the row under the pointer (a row is
   * about 50 px): the list anchors its rows by whole pixels. */
  return !natter_sidebar_get_search_mode (NATTER_SIDEBAR (w->window->session_sidebar)) &&
         G_APPROX_VALUE (gtk_adjustment_get_value (list_adjustment (w->window)), w->value, 4);
}

static char *
describe_place (gpointer data)
{
  PlaceWait *w = data;

  return g_strdup_printf ("the list is scrolled to %.1f, not %.1f",
                          gtk_adjustment_get_value (list_adjustment (w->window)), w->value);
}

/* Far down the list, a search whose rows are taller (each shows the
 * words it found), closed as Escape closes it: the rows that come back
 * are measured anew, the search bar slides away, and the list is where
 * it was before the bar opened, with no warning from the list about a
 * place it could not scroll to. */
static void
test_search_closed_far_down (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  NatterSearchIndex *search;
  GtkAdjustment *adjustment;
  NatterWindow *window;
  GtkEditable *entry;
  PlaceWait wait;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Notes %02u", i);
      char *id = ui_create_session (u, title);

      g_ptr_array_add (ids, id);
      g_free (say (u, id, "Where do herons live?", "Herons wade in shallow water, by rivers and lakes."));
    }
  search = ui_search_index_start (u);
  window = ui_window_new (app, u);
  natter_window_set_search_index (window, search);
  wait = (PlaceWait) { window, ids, 0 };
  ui_wait_until (list_scrollable, &wait);
  adjustment = list_adjustment (window);
  gtk_adjustment_set_value (adjustment, (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment)) * 0.8);
  ui_settle ();
  wait = (PlaceWait) { window, ids, gtk_adjustment_get_value (adjustment) };
  g_assert_cmpfloat (wait.value, >, 200);

  entry = ui_open_search (window);
  gtk_editable_set_text (entry, "herons");
  ui_wait_until (all_found, &wait);
  g_signal_emit_by_name (entry, "stop-search");
  ui_wait_until_full (back_in_place, describe_place, &wait);

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
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
  g_test_add_func ("/search/cache-damaged-while-searching", test_cache_damaged_while_searching);
  g_test_add_func ("/search/capped", test_search_capped);
  g_test_add_func ("/search/closed-far-down", test_search_closed_far_down);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
