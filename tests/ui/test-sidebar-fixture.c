/* test-sidebar-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-sidebar share: the application, and a
 * conversation's row in the sidebar.
 */

#include "test-sidebar.h"

NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *title;   /* NULL: the row is gone */
} RowWait;

static gboolean
row_shows (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row;

  ui_settle ();
  row = ui_find_session_row (w->window, w->session_id);
  if (w->title == NULL)
    return row == NULL;
  return row != NULL && g_strcmp0 (natter_session_row_get_title (row), w->title) == 0;
}

/* Waits until the sidebar of @window shows @session_id titled @title,
 * or, with @title NULL, no longer shows it. */
void
wait_row (NatterWindow *window,
          const char   *session_id,
          const char   *title)
{
  RowWait w = { window, session_id, title };

  ui_wait_until (row_shows, &w);
}

/* The session id of the sidebar's row at @position (transfer none). */
const char *
sidebar_id (NatterWindow *window,
            guint         position)
{
  g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (natter_window_get_sidebar_model (window), position);

  return natter_session_index_entry_get_session_id (entry);
}
