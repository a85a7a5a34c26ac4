/* test-search-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-search share: the application, a message
 * exchanged with the fake model, the search typed in the sidebar, and
 * waits for what the sidebar lists and the note under its entry says.
 */

#include "test-search.h"

/* One registered application serves every test, as in the real process. */
NatterApplication *app;

/* Sends @text to @session_id, the fake model answering @answer, and
 * waits until the turn settled. */
char *
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

/* The sidebar lists only @session_id, its row showing @snippet. */
gboolean
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

NatterSessionRow *
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

/* Opens @window's search and types @text in it. */
void
search_for (NatterWindow *window,
            const char   *text)
{
  gtk_editable_set_text (ui_open_search (window), text);
}

gboolean
note_says (GtkWidget *widget,
           gpointer   text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
         strstr (gtk_label_get_label (GTK_LABEL (widget)), text) != NULL;
}

gboolean
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
gboolean
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

char *
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

/* A word said more often than the search ranks: the sidebar lists the
 * best of the newest matches, and the note says in plain words that only
 * those were looked at; a search within the cap says nothing of it. */
gboolean
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
