/* natter-window-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's side of the search by content: the sidebar is given the
 * full-text index, and a conversation opened from a search result
 * scrolls to the turn where the words were said.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-window-private.h"

/**
 * natter_window_set_search_index:
 * @self: the window
 * @search: (nullable): the full-text index, or %NULL to search titles only
 *
 * Lets the sidebar search (Ctrl+F) find conversations by the words of
 * their messages and answers as well as by title: each such row shows
 * the matching words, and opening it scrolls to the turn they are in.
 * Each conversation opened (and the one open now) is looked at again by
 * the index (natter_search_index_recheck_session()).
 */
void
natter_window_set_search_index (NatterWindow      *self,
                                NatterSearchIndex *search)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  natter_sidebar_set_search_index (self->session_sidebar, search);
  /* A conversation restored before the index came is looked at again
   * as one opened after it is (natter_window_open_session()). */
  if (search != NULL && self->conversation.session_id != NULL)
    natter_search_index_recheck_session (search, self->conversation.session_id);
}

/**
 * natter_window_open_session_at:
 * @self: the window
 * @session_id: a session in the index
 * @turn_id: (nullable): one of its turns
 *
 * Opens @session_id as natter_window_open_session() does, scrolled to
 * @turn_id rather than to its bottom (a search result picked in the
 * Shell, where its words were said); the same when it is open already.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
natter_window_open_session_at (NatterWindow *self,
                               const char   *session_id,
                               const char   *turn_id)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), FALSE);

  if (!natter_window_open_session (self, session_id))
    return FALSE;
  if (turn_id != NULL)
    _natter_window_reveal_turn (self, turn_id);
  return TRUE;
}

/* The open conversation is to show @turn_id rather than its latest turn. */
void
_natter_window_reveal_turn (NatterWindow *self,
                            const char   *turn_id)
{
  natter_conversation_view_reveal_turn (self->conversation.view, turn_id);
}
