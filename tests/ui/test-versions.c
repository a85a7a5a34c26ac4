/* test-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Versions of a message on screen: the "‹ n/N ›" switcher, Edit (the
 * sent message into the composer; sending branches at the turn before
 * it, under the conversation's title) and Try Again (another answer as a
 * new version), with every version one arrow away from the others and
 * nothing written over.
 */

#include "config.h"

#include <string.h>

#include "natter-session-row.h"
#include "natter-timeline-marker.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-version-switcher.h"
#include "natter-window-private.h"

static NatterApplication *app;

static GPtrArray *
make_versions (const char *first,
               ...)
{
  GPtrArray *versions = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_version_free);
  va_list args;

  va_start (args, first);
  for (const char *session = first; session != NULL; session = va_arg (args, const char *))
    {
      NatterTurnVersion *version = g_new0 (NatterTurnVersion, 1);

      version->session_id = g_strdup (session);
      version->turn_id = g_strdup (va_arg (args, const char *));
      g_ptr_array_add (versions, version);
    }
  va_end (args);
  return versions;
}

static GtkWidget *
child_at (GtkWidget *widget,
          guint      index)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  for (guint i = 0; i < index; i++)
    child = gtk_widget_get_next_sibling (child);
  return child;
}

/* The session a switcher arrow opens. */
static const char *
target_of (GtkWidget *button)
{
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  const char *session_id = NULL;

  if (target != NULL)
    g_variant_get (target, "(&s&s)", &session_id, NULL);
  return session_id;
}

/* The message an arrow opens the other version at. */
static const char *
turn_target_of (GtkWidget *button)
{
  GVariant *target = gtk_actionable_get_action_target_value (GTK_ACTIONABLE (button));
  const char *turn_id = NULL;

  if (target != NULL)
    g_variant_get (target, "(&s&s)", NULL, &turn_id);
  return turn_id;
}

static void
test_switcher_widget (void)
{
  GtkWidget *switcher = g_object_ref_sink (natter_version_switcher_new ());
  g_autoptr(GPtrArray) three = make_versions ("s1", "t1", "s2", "t2", "s3", "t3", NULL);
  g_autoptr(GPtrArray) one = make_versions ("s1", "t1", NULL);
  GtkWidget *previous = child_at (switcher, 0);
  GtkWidget *label = child_at (switcher, 1);
  GtkWidget *next = child_at (switcher, 2);

  g_assert_false (gtk_widget_get_visible (switcher));

  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t2");
  g_assert_true (gtk_widget_get_visible (switcher));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "2/3");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (previous)), ==, "win.open-version");
  g_assert_cmpstr (target_of (previous), ==, "s1");
  g_assert_cmpstr (target_of (next), ==, "s3");
  g_assert_cmpstr (turn_target_of (previous), ==, "t1");
  g_assert_cmpstr (turn_target_of (next), ==, "t3");
  g_assert_true (gtk_widget_get_sensitive (previous));
  g_assert_true (gtk_widget_get_sensitive (next));

  /* The first has nothing before it, the last nothing after. */
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t1");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "1/3");
  g_assert_false (gtk_widget_get_sensitive (previous));
  g_assert_cmpstr (target_of (next), ==, "s2");
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t3");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "3/3");
  g_assert_false (gtk_widget_get_sensitive (next));
  g_assert_cmpuint (natter_version_switcher_get_position (NATTER_VERSION_SWITCHER (switcher)), ==, 2);

  /* One version, or a message not among them: no switcher. */
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), one, "t1");
  g_assert_false (gtk_widget_get_visible (switcher));
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), three, "t9");
  g_assert_false (gtk_widget_get_visible (switcher));
  natter_version_switcher_set_versions (NATTER_VERSION_SWITCHER (switcher), NULL, "t1");
  g_assert_false (gtk_widget_get_visible (switcher));
  g_object_unref (switcher);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
  const char   *label;     /* the switcher's, NULL: none shown */
} RowSwitcher;

static NatterTurnRow *
find_row (NatterWindow *window,
          const char   *turn_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item != NULL && g_strcmp0 (natter_turn_item_get_turn_id (item), turn_id) == 0 &&
          natter_turn_item_get_state (item) != NULL)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/* Shown or not: a hidden switcher is still in the row. */
static GtkWidget *
find_any (GtkWidget *widget,
          GType      type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_any (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static NatterVersionSwitcher *
switcher_of (NatterTurnRow *row)
{
  GtkWidget *switcher = find_any (GTK_WIDGET (row), NATTER_TYPE_VERSION_SWITCHER);

  g_assert_nonnull (switcher);
  return NATTER_VERSION_SWITCHER (switcher);
}

static gboolean
row_switcher_is (gpointer data)
{
  RowSwitcher *r = data;
  NatterTurnRow *row;
  NatterVersionSwitcher *switcher;

  ui_settle ();
  row = find_row (r->window, r->turn_id);
  if (row == NULL)
    return FALSE;
  switcher = switcher_of (row);
  if (r->label == NULL)
    return !gtk_widget_get_visible (GTK_WIDGET (switcher));
  return gtk_widget_get_mapped (GTK_WIDGET (switcher)) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (child_at (GTK_WIDGET (switcher), 1))), r->label) == 0;
}

static void
wait_switcher (NatterWindow *window,
               const char   *turn_id,
               const char   *label)
{
  RowSwitcher r = { window, turn_id, label };

  ui_wait_until (row_switcher_is, &r);
}

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *not;
} NewVersion;

/* The window shows another session than @not, with its one turn settled. */
static gboolean
new_version_open (gpointer data)
{
  NewVersion *v = data;
  const char *open = natter_window_get_session_id (v->window);
  NatterSessionIndexEntry *entry = open != NULL ? natter_session_index_lookup (v->u->index, open) : NULL;

  return open != NULL && g_strcmp0 (open, v->not) != 0 && entry != NULL &&
         natter_session_index_entry_get_turn_count (entry) == 1 &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0 &&
         ui_no_advances (v->u);
}

static gboolean
session_open (gpointer data)
{
  NewVersion *v = data;

  return g_strcmp0 (natter_window_get_session_id (v->window), v->not) == 0;
}

static gboolean
composer_has_text (gpointer data)
{
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (data));

  return text != NULL && text[0] != '\0';
}

static gboolean
editing_said (gpointer window)
{
  return ui_label_shown (window, "Editing a sent message");
}

static void
test_edit_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *draft = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  NatterSessionIndexEntry *entry;
  const char *branch;
  g_autofree char *branch_id = NULL;
  NatterTurnRow *row;
  GtkWidget *edit;
  NatterWindow *window;
  NewVersion v;
  NatterTurnItem *item;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With basil.\"}",
                            "{\"role\":\"assistant\",\"content\":\"With lemon.\"}", NULL);
  first = ui_send (u, session_id, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Which sauce?");
  ui_wait_turn (u, second);
  g_assert_true (g_file_load_contents (file, NULL, &before, NULL, NULL, NULL));

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, NULL);

  /* Edit is on the sent message; it puts the words into the composer. */
  row = find_row (window, second);
  edit = NULL;
  {
    g_autoptr(GPtrArray) buttons = ui_find_all (row, GTK_TYPE_BUTTON);

    for (guint i = 0; i < buttons->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Edit Message") == 0)
        edit = g_ptr_array_index (buttons, i);
  }
  g_assert_nonnull (edit);
  g_assert_true (gtk_widget_get_visible (edit));
  g_assert_true (gtk_widget_activate (edit));
  ui_wait_until (composer_has_text, window);
  draft = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (draft, ==, "Which sauce?");
  /* Said above the composer, with its Cancel, not in a toast over it. */
  g_assert_true (natter_conversation_view_get_editing (window->conversation.view));
  ui_wait_until (editing_said, window);
  {
    /* The bar slides in and out: a revealer that slides measures the bar's
     * width at heights far from its real one, and a wrapping label there
     * gave GTK answers it stopped on (a critical, seen once in many runs).
     * Nothing in the bar may depend on its height. */
    GtkWidget *bar = ui_find_first (window->conversation.view, GTK_TYPE_REVEALER);
    int min_free, min_tall, min_short, nat;

    g_assert_nonnull (bar);
    g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (bar)));
    bar = gtk_revealer_get_child (GTK_REVEALER (bar));
    g_assert_cmpint (gtk_widget_get_request_mode (bar), ==, GTK_SIZE_REQUEST_CONSTANT_SIZE);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, -1, &min_free, &nat, NULL, NULL);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, 1 << 20, &min_tall, &nat, NULL, NULL);
    gtk_widget_measure (bar, GTK_ORIENTATION_HORIZONTAL, 1, &min_short, &nat, NULL, NULL);
    g_assert_cmpint (min_tall, ==, min_free);
    g_assert_cmpint (min_short, ==, min_free);
  }

  /* Cancelled, the edit leaves an ordinary message behind. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-edit", NULL));
  g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
  g_free (draft);
  draft = natter_composer_dup_text (natter_window_get_composer (window));
  g_assert_cmpstr (draft, ==, "");
  g_assert_null (window->versions.editing_turn_id);
  g_assert_true (gtk_widget_activate (edit));
  ui_wait_until (composer_has_text, window);

  natter_composer_set_text (natter_window_get_composer (window), "Which sauce, without tomatoes?");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  g_assert_false (natter_conversation_view_get_editing (window->conversation.view));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);

  /* The branch continues the conversation under its title, from the
   * turn before the edited message. */
  branch = natter_window_get_session_id (window);
  branch_id = g_strdup (branch);
  entry = natter_session_index_lookup (u->index, branch_id);
  g_assert_cmpstr (natter_session_index_entry_get_title (entry), ==, "Dinner");
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, session_id);
  item = natter_timeline_model_lookup (natter_window_get_timeline (window),
                                       natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_nonnull (item);
  {
    g_autofree char *input = natter_turn_item_dup_input_text (item);

    g_assert_cmpstr (input, ==, "Which sauce, without tomatoes?");
  }
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");

  /* The original is untouched, and one arrow away. */
  g_assert_true (g_file_load_contents (file, NULL, &after, NULL, NULL, NULL));
  g_assert_cmpstr (after, ==, before);
  row = find_row (window, natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 0)));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (session_open, &v);
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, "1/2");
  wait_switcher (window, first, NULL);
  row = find_row (window, second);
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 2)));
  v = (NewVersion) { window, u, branch_id };
  ui_wait_until (session_open, &v);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *turn_id;
} TurnWait;

/* @session_id is open and the row of @turn_id is on screen, within the
 * timeline's viewport. */
static gboolean
turn_in_view (gpointer data)
{
  TurnWait *w = data;
  GtkWidget *list = natter_window_get_timeline_list (w->window);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  NatterTurnRow *row;
  graphene_rect_t bounds;

  ui_settle ();
  if (g_strcmp0 (natter_window_get_session_id (w->window), w->session_id) != 0)
    return FALSE;
  row = find_row (w->window, w->turn_id);
  if (row == NULL || !gtk_widget_get_mapped (GTK_WIDGET (row)) ||
      !gtk_widget_compute_bounds (GTK_WIDGET (row), scroller, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (scroller);
}

static char *
describe_view (gpointer data)
{
  TurnWait *w = data;
  GtkAdjustment *adjustment = natter_window_get_timeline_adjustment (w->window);

  return g_strdup_printf ("%s open, turn %s of %s not in view; scrolled to %.0f of %.0f (page %.0f)",
                          natter_window_get_session_id (w->window), w->turn_id, w->session_id,
                          gtk_adjustment_get_value (adjustment), gtk_adjustment_get_upper (adjustment),
                          gtk_adjustment_get_page_size (adjustment));
}

/* An arrow of the switcher opens the other version at the same message,
 * however far up the conversation it is, not at its bottom. */
static void
test_switch_shows_message (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Long");
  g_autoptr(GPtrArray) turns = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) answer = g_string_new ("{\"role\":\"assistant\",\"content\":\"");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *edited = NULL;
  GtkAdjustment *adjustment;
  NatterWindow *window;
  NatterTurnRow *row;
  TurnWait w;

  for (guint i = 0; i < 30; i++)
    g_string_append_printf (answer, "Line %u of a long answer.\\n\\n", i);
  g_string_append (answer, "\"}");
  natter_fake_model_script (u->w->fakes->model, answer->str, answer->str, answer->str, answer->str,
                            answer->str, answer->str, answer->str, NULL);
  for (guint i = 0; i < 6; i++)
    {
      g_autofree char *text = g_strdup_printf ("Question %u", i);

      g_ptr_array_add (turns, ui_send (u, session_id, text));
      ui_wait_turn (u, g_ptr_array_index (turns, i));
    }
  /* The second message edited: a branch at the first turn. */
  natter_sessions_fork_async (u->sessions, session_id, g_ptr_array_index (turns, 0), "Long", NULL,
                              ui_result_cb, &result);
  branch = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  edited = ui_send (u, branch, "Question 1, edited");
  ui_wait_turn (u, edited);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, branch));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, edited, "2/2");

  /* To the original: its second message in view, five long turns below. */
  row = find_row (window, edited);
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 0)));
  w = (TurnWait) { window, session_id, g_ptr_array_index (turns, 1) };
  ui_wait_until_full (turn_in_view, describe_view, &w);
  wait_switcher (window, g_ptr_array_index (turns, 1), "1/2");
  g_assert_true (turn_in_view (&w));
  adjustment = natter_window_get_timeline_adjustment (window);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), <,
                     gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) - 1);

  /* And back to the edit. */
  row = find_row (window, g_ptr_array_index (turns, 1));
  g_assert_true (gtk_widget_activate (child_at (GTK_WIDGET (switcher_of (row)), 2)));
  w = (TurnWait) { window, branch, edited };
  ui_wait_until_full (turn_in_view, describe_view, &w);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *session_id;
} LiveEdit;

/* The latest turn of the open session has settled (no advance left)
 * and its row shows Edit under the sent message. */
static gboolean
live_edit_shown (gpointer data)
{
  LiveEdit *l = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (l->u->index, l->session_id);
  const char *latest = entry != NULL ? natter_session_index_entry_get_latest_turn_id (entry) : NULL;
  NatterTurnRow *row;
  g_autoptr(GPtrArray) buttons = NULL;

  ui_settle ();
  if (latest == NULL || !ui_no_advances (l->u))
    return FALSE;
  row = find_row (l->window, latest);
  if (row == NULL)
    return FALSE;
  buttons = ui_find_all (row, GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Edit Message") == 0)
      return gtk_widget_get_mapped (g_ptr_array_index (buttons, i));
  return FALSE;
}

/* A message sent while the window is open gets Edit as soon as its turn
 * settles, not only after the window is opened again. */
static void
test_edit_shown_live (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Live");
  NatterWindow *window;
  LiveEdit l;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Soup.\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  natter_composer_set_text (natter_window_get_composer (window), "What for lunch?");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  l = (LiveEdit) { window, u, session_id };
  ui_wait_until (live_edit_shown, &l);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Try Again on an answer: another answer, the first one kept as the
 * other version. */
static void
test_try_again_keeps_answer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Jokes");
  g_autofree char *turn_id = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  GtkWidget *button;
  NewVersion v;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  turn_id = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, turn_id, NULL);

  button = ui_find_button (find_row (window, turn_id), "_Try Again");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, session_id);
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");
  /* The first answer's conversation still has it, and only it. */
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)),
                    ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Try Again on the second message of two: the new version shows the
 * first exchange as its own, as README says (one arrow away), never as
 * a branch's: no "Branched from" marker, nothing dimmed. */
static void
test_try_again_not_a_branch (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Jokes");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  NatterSessionIndexEntry *entry;
  GListModel *timeline;
  NatterWindow *window;
  NewVersion v;
  guint n_inherited = 0;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Hello.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  first = ui_send (u, session_id, "Hi");
  ui_wait_turn (u, first);
  second = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, second);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, second, NULL);

  g_assert_true (gtk_widget_activate (ui_find_button (find_row (window, second), "_Try Again")));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  ui_wait_until (ui_timeline_loaded, window);
  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  wait_switcher (window, natter_session_index_entry_get_latest_turn_id (entry), "2/2");

  timeline = G_LIST_MODEL (window->conversation.timeline);
  for (guint i = 0; i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (timeline, i);

      g_assert_false (NATTER_IS_TIMELINE_MARKER (item));
      if (NATTER_IS_TURN_ITEM (item) && natter_turn_item_get_inherited_from (NATTER_TURN_ITEM (item)) != NULL)
        n_inherited++;
    }
  g_assert_cmpuint (n_inherited, ==, 1);
  wait_switcher (window, first, NULL);
  rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    g_assert_false (gtk_widget_has_css_class (g_ptr_array_index (rows, i), "dim-label"));
  g_assert_false (ui_label_shown (window, "Branched from “Jokes”"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The top row of the sidebar shows whole: the list is at its top and
 * the row's top edge is in view. */
static gboolean
top_row_whole (gpointer data)
{
  GtkWidget *list = natter_window_get_session_list (data);
  GtkWidget *scroller = gtk_widget_get_ancestor (list, GTK_TYPE_SCROLLED_WINDOW);
  g_autoptr(GPtrArray) rows = ui_find_all (list, NATTER_TYPE_SESSION_ROW);
  double top = G_MAXDOUBLE;

  ui_settle ();
  for (guint i = 0; i < rows->len; i++)
    {
      graphene_rect_t bounds;

      if (gtk_widget_get_mapped (g_ptr_array_index (rows, i)) &&
          gtk_widget_compute_bounds (g_ptr_array_index (rows, i), scroller, &bounds))
        top = MIN (top, bounds.origin.y);
    }
  return top >= 0 &&
         gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))) == 0;
}

static gboolean
row_says_versions (gpointer data)
{
  ui_settle ();
  return ui_label_shown (natter_window_get_session_list (data), "2 versions");
}

/* The open conversation's row, at the top of a long list, grows a line
 * ("2 versions") after Try Again: the list stays at its top, the row
 * shows whole. */
static void
test_grown_row_stays_whole (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  NewVersion v;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *title = g_strdup_printf ("Notes %02u", i);

      g_free (ui_create_session (u, title));
    }
  session_id = ui_create_session (u, "Jokes");
  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"A joke.\"}",
                            "{\"role\":\"assistant\",\"content\":\"A better joke.\"}", NULL);
  turn_id = ui_send (u, session_id, "Tell me a joke");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (top_row_whole, window);

  g_assert_true (gtk_widget_activate (ui_find_button (find_row (window, turn_id), "_Try Again")));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);
  ui_wait_until (row_says_versions, window);
  ui_wait_painted ();
  ui_save_window (GTK_WIDGET (window), "sidebar-grown-row.png");
  ui_wait_until (top_row_whole, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* What the sidebar lists, in its order, as "id id …", and the versions
 * text of each row shown ("-" for none). */
typedef struct
{
  NatterWindow *window;
  const char   *ids;
  const char   *versions;
} SidebarWait;

static char *
sidebar_ids (NatterWindow *window)
{
  GListModel *model = natter_window_get_sidebar_model (window);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (model, i);

      g_string_append_printf (out, "%s%s", i > 0 ? " " : "", natter_session_index_entry_get_session_id (entry));
    }
  return g_string_free (out, FALSE);
}

static char *
sidebar_versions (NatterWindow *window)
{
  GListModel *model = natter_window_get_sidebar_model (window);
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (model, i);
      const char *text = NULL;

      for (guint r = 0; r < rows->len; r++)
        if (natter_session_row_get_entry (rows->pdata[r]) == entry)
          text = natter_session_row_get_versions_text (rows->pdata[r]);
      g_string_append_printf (out, "%s%s", i > 0 ? "|" : "", text != NULL ? text : "-");
    }
  return g_string_free (out, FALSE);
}

static gboolean
sidebar_is (gpointer data)
{
  SidebarWait *w = data;
  g_autofree char *ids = NULL;
  g_autofree char *versions = NULL;

  ui_settle ();
  ids = sidebar_ids (w->window);
  versions = sidebar_versions (w->window);
  return g_strcmp0 (ids, w->ids) == 0 && (w->versions == NULL || g_strcmp0 (versions, w->versions) == 0);
}

static char *
describe_sidebar (gpointer data)
{
  SidebarWait *w = data;
  g_autofree char *ids = sidebar_ids (w->window);
  g_autofree char *versions = sidebar_versions (w->window);

  return g_strdup_printf ("the sidebar lists \"%s\" (%s), not \"%s\" (%s)", ids, versions, w->ids,
                          w->versions != NULL ? w->versions : "any");
}

static void
wait_sidebar (NatterWindow *window,
              const char   *versions,
              const char   *first,
              ...)
{
  g_autoptr(GString) ids = g_string_new (NULL);
  SidebarWait w;
  va_list args;

  va_start (args, first);
  for (const char *id = first; id != NULL; id = va_arg (args, const char *))
    g_string_append_printf (ids, "%s%s", ids->len > 0 ? " " : "", id);
  va_end (args);
  w = (SidebarWait) { window, ids->str, versions };
  ui_wait_until_full (sidebar_is, describe_sidebar, &w);
}

static gboolean
search_entry_shown (gpointer data)
{
  ui_settle ();
  return ui_find_first (data, GTK_TYPE_SEARCH_ENTRY) != NULL;
}

static char *
fork_titled (UiWorld    *u,
             const char *session_id,
             const char *turn_id,
             const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *branch;

  natter_sessions_fork_async (u->sessions, session_id, turn_id, title, NULL, ui_result_cb, &result);
  branch = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return branch;
}

/* An edit is the conversation going on, not another conversation: the
 * sidebar lists it once, as its latest version, saying how many versions
 * it has; a branch made on purpose stays a conversation of its own, and
 * a search finds every version. Titles change none of that: the branch
 * named like the conversation is still its own, the renamed version
 * still one of its versions. */
static void
test_sidebar_lists_conversation_once (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *apart = NULL;
  g_autofree char *apart_turn = NULL;
  g_autofree char *later = NULL;
  GtkSelectionModel *selection;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Tomato sauce.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Pesto.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Rice.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Basil.\"}", NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, original, "Which sauce?");
  ui_wait_turn (u, second);
  /* The second message edited (the window gives the branch the title),
   * and a branch made on purpose after it (no title). */
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  edit = fork_titled (u, original, first, "Dinner");
  edited = ui_send (u, edit, "Which sauce, no tomatoes?");
  ui_wait_turn (u, edited);
  apart = fork_titled (u, original, second, NULL);
  apart_turn = ui_send (u, apart, "Something else then");
  ui_wait_turn (u, apart_turn);

  window = ui_window_new (app, u);
  wait_sidebar (window, "-|2 versions", apart, edit, NULL);

  /* A search finds every version by its words. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL));
  ui_wait_until (search_entry_shown, window);
  gtk_editable_set_text (GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY)), "Dinner");
  wait_sidebar (window, NULL, edit, original, NULL);
  gtk_editable_set_text (GTK_EDITABLE (ui_find_first (window, GTK_TYPE_SEARCH_ENTRY)), "");
  wait_sidebar (window, "-|2 versions", apart, edit, NULL);

  /* The row opens the latest version, whose message has ‹ 2/2 ›. */
  selection = gtk_list_view_get_model (GTK_LIST_VIEW (natter_window_get_session_list (window)));
  gtk_selection_model_select_item (selection, 1, TRUE);
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, edit);
  wait_switcher (window, edited, "2/2");

  /* Going on in the original makes it the one listed. */
  later = ui_send (u, original, "And for dessert?");
  ui_wait_turn (u, later);
  wait_sidebar (window, "2 versions|-", original, apart, NULL);

  ui_set_title (u, apart, "Dinner");
  ui_set_title (u, edit, "Supper");
  ui_settle ();
  wait_sidebar (window, "2 versions|-", original, apart, NULL);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *turn_id;
} TurnShown;

/* Whether the open conversation's timeline has read the turn: the index
 * may say it completed before the timeline of a just opened version has
 * its item. */
static gboolean
turn_read (gpointer data)
{
  TurnShown *t = data;
  NatterTurnItem *item = natter_timeline_model_lookup (natter_window_get_timeline (t->window), t->turn_id);

  if (item != NULL)
    natter_turn_item_ensure_loaded (item);
  return item != NULL && natter_turn_item_get_state (item) != NULL;
}

/* The `{provider, model}` a turn of the open conversation ran with, as
 * its definition records it (transfer none). */
static JsonObject *
turn_model (NatterWindow *window,
            const char   *turn_id)
{
  TurnShown wanted = { window, turn_id };
  NatterTurnItem *item;
  JsonObject *definition;

  ui_wait_until (turn_read, &wanted);
  item = natter_timeline_model_lookup (natter_window_get_timeline (window), turn_id);
  definition = natter_turn_state_get_definition (natter_turn_item_get_state (item));
  return json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (definition,
                                                                                                       "agent"),
                                                                       "resolved"),
                                        "model");
}

/* A new version, made by Edit or by Try Again, goes on with the
 * conversation's provider and model, not the default one of
 * Preferences, as its next message would. */
static void
check_version_keeps_model (gboolean edit)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Providers");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterSessionIndexEntry *entry;
  NatterWindow *window;
  JsonObject *model;
  NewVersion v;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Red.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Blue.\"}", NULL);
  turn_id = ui_send_with_model (u, session_id, "A colour?", "mock", "m");
  ui_wait_turn (u, turn_id);

  /* Nobody listens there: a named model needs no answer from them. */
  window = ui_window_new (app, u);
  natter_provider_registry_add_provider (registry, "mock", "Mock", "http://127.0.0.1:9/v1");
  natter_provider_registry_add_provider (registry, "scripted", "Scripted", "http://127.0.0.1:9/v1");
  natter_window_set_model_provider (window, registry, "scripted", "m");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait_switcher (window, turn_id, NULL);

  if (edit)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.edit-message", "s", turn_id));
      ui_wait_until (composer_has_text, window);
      natter_composer_set_text (natter_window_get_composer (window), "Another colour?");
      g_assert_true (natter_composer_send (natter_window_get_composer (window)));
    }
  else
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.try-again", "s", turn_id));
  v = (NewVersion) { window, u, session_id };
  ui_wait_until (new_version_open, &v);

  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  model = turn_model (window, natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_cmpstr (json_object_get_string_member (model, "provider"), ==, "mock");
  g_assert_cmpstr (json_object_get_string_member (model, "model"), ==, "m");

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_edit_keeps_model (void)
{
  check_version_keeps_model (TRUE);
}

static void
test_try_again_keeps_model (void)
{
  check_version_keeps_model (FALSE);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/versions/switcher", test_switcher_widget);
  g_test_add_func ("/versions/edit-message", test_edit_message);
  g_test_add_func ("/versions/edit-shown-live", test_edit_shown_live);
  g_test_add_func ("/versions/switch-shows-message", test_switch_shows_message);
  g_test_add_func ("/versions/sidebar-lists-conversation-once", test_sidebar_lists_conversation_once);
  g_test_add_func ("/versions/try-again", test_try_again_keeps_answer);
  g_test_add_func ("/versions/try-again-not-a-branch", test_try_again_not_a_branch);
  g_test_add_func ("/versions/grown-row-stays-whole", test_grown_row_stays_whole);
  g_test_add_func ("/versions/edit-keeps-model", test_edit_keeps_model);
  g_test_add_func ("/versions/try-again-keeps-model", test_try_again_keeps_model);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
