/* natter-window-state.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every facet of the window asks of the open conversation: the key
 * its draft and choices are kept under, whether its answer has ended,
 * and whether a provider it names is gone; and how a toast quotes a
 * person's name for something. The bottom of the window's facets: it
 * only reads their shared state and calls none of them.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include "natter-plain-text.h"
#include "natter-send-pipeline.h"
#include "natter-window-private.h"

/* The most characters of a name a toast quotes. A toast is one line and
 * cuts what does not fit at its end: a longer name (a title made of a
 * pasted paragraph) would take the words that say what happened. */
#define TOAST_NAME_MAX_CHARS 60

/* @name (a conversation's title, a folder's name) as a toast's sentence
 * quotes it: control characters, bidirectional controls and line
 * separators as their stand-ins, as the sidebar shows them, and a long
 * name cut where a cursor could stop (never inside a character a person
 * sees as one, such as an emoji sequence) and ended with "…". Not
 * escaped for markup. Returns: (transfer full) the text to quote. */
char *
_natter_window_toast_name (const char *name)
{
  g_autofree char *shown = natter_visible_text (name, NATTER_VISIBLE_KEEP_NONE);
  glong n_chars = g_utf8_strlen (shown, -1);
  g_autofree PangoLogAttr *attrs = NULL;
  g_autofree char *head = NULL;
  glong cut = TOAST_NAME_MAX_CHARS;

  if (n_chars <= TOAST_NAME_MAX_CHARS)
    return g_steal_pointer (&shown);
  attrs = g_new0 (PangoLogAttr, n_chars + 1);
  pango_get_log_attrs (shown, -1, -1, pango_language_get_default (), attrs, n_chars + 1);
  while (cut > 1 && !attrs[cut].is_cursor_position)
    cut--;
  head = g_strndup (shown, g_utf8_offset_to_pointer (shown, cut) - shown);
  return g_strconcat (g_strchomp (head), "…", NULL);
}

/* What the open conversation's draft and choices are kept under: its
 * id, or for a new conversation NATTER_WINDOW_NEW_CHAT_KEY; NULL when
 * none is open. */
const char *
_natter_window_choice_key (NatterWindow *self)
{
  if (self->conversation.session_id != NULL)
    return self->conversation.session_id;
  return self->conversation.new_chat ? NATTER_WINDOW_NEW_CHAT_KEY : NULL;
}

/**
 * _natter_window_take_set_aside:
 * @self: the window
 *
 * Takes what was in the open conversation's message field when one of
 * its sent messages was taken there to edit, for the field once the
 * edit is over.
 *
 * Returns: (transfer full) (nullable): those words, or %NULL
 */
char *
_natter_window_take_set_aside (NatterWindow *self)
{
  const char *key = _natter_window_choice_key (self);
  g_autofree char *stolen_key = NULL;
  char *words = NULL;

  if (key != NULL)
    g_hash_table_steal_extended (self->versions.set_aside, key, (gpointer *) &stolen_key, (gpointer *) &words);
  return words;
}

/* Whether a conversation is open and can be used: its file could be read
 * (its index entry names no error), so it can be renamed, exported,
 * compacted, moved and written to. */
gboolean
_natter_window_open_is_usable (NatterWindow *self)
{
  return self->conversation.session_id != NULL && self->conversation.entry != NULL &&
         natter_session_index_entry_get_error (self->conversation.entry) == NULL;
}

gboolean
_natter_window_latest_is_running (NatterWindow *self)
{
  const char *latest = self->conversation.entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->conversation.entry) : NULL;

  return latest != NULL && natter_sessions_is_turn_running (self->sessions, latest);
}

/* Whether the open conversation's answer has not ended: it runs, or it
 * waits for a permission or an answer. A message typed then waits in
 * the queue, and Stop ends the answer. */
gboolean
_natter_window_latest_is_unsettled (NatterWindow *self)
{
  return _natter_window_latest_is_running (self) ||
         (self->conversation.entry != NULL &&
          g_strcmp0 (natter_session_index_entry_get_latest_turn_status (self->conversation.entry), "suspended") == 0);
}

/* Whether @provider_id names a provider that is not configured
 * (natter_send_pipeline_provider_is_missing()). */
gboolean
_natter_window_provider_is_missing (NatterWindow *self,
                                    const char   *provider_id)
{
  return self->pipeline != NULL && natter_send_pipeline_provider_is_missing (self->pipeline, provider_id);
}
