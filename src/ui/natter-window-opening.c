/* natter-window-opening.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The open conversation: opening one (at once, or once its latest turns
 * are read), a new one that nothing is written for yet, closing it with
 * its draft kept, and what the window shows of it (its page, title and
 * the state of what acts on it). It tells the facets below it of the
 * change (the composer and the choice, the versions, the queue, the
 * error bar, the keyboard's actions); those that open a conversation
 * (the sidebar, sending, the actions) are above it.
 *
 * A conversation the user picked: the window goes on showing what it
 * shows until the turns the new conversation opens on are read, and
 * then switches in one frame. Switching at once drew a frame of empty
 * rows first; with a software renderer that frame alone costs about as
 * long as reading the turns, and the turns then waited for it. The wait
 * is bounded, and a key press or a click during it switches at once, so
 * what the user does next goes to the conversation they chose.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-plain-text.h"
#include "natter-timeline-model.h"
#include "natter-session-row.h"
#include "natter-window-private.h"

/* What the window shows of the open conversation */

/* The header names the model of the next message in its picker, which
 * needs the room: the subtitle names the model the last answer came from
 * only when that is another one (the picker then shows a name the
 * conversation has not used yet). */
void
_natter_window_update_subtitle (NatterWindow *self)
{
  g_autofree char *last = self->conversation.entry != NULL ? natter_session_index_entry_dup_last_model_string (self->conversation.entry) : NULL;
  const char *next = natter_model_picker_get_model (self->choice.model_picker);
  const char *last_model = last != NULL ? strchr (last, '/') : NULL;

  if (last != NULL && next != NULL && last_model != NULL && g_strcmp0 (last_model + 1, next) == 0 &&
      gtk_widget_get_visible (GTK_WIDGET (self->choice.model_picker)))
    g_clear_pointer (&last, g_free);
  /* "provider/model" names the provider by its id: the person knows it
   * by the name they gave it. */
  if (last != NULL && last_model != NULL && self->settings != NULL)
    {
      g_autofree char *provider_id = g_strndup (last, last_model - last);
      g_autoptr(GPtrArray) providers = natter_settings_dup_providers (self->settings);

      for (guint i = 0; providers != NULL && i < providers->len; i++)
        {
          NatterProviderConfig *config = g_ptr_array_index (providers, i);

          if (g_strcmp0 (config->id, provider_id) == 0 && config->name != NULL && config->name[0] != '\0')
            {
              char *named = g_strdup_printf ("%s/%s", config->name, last_model + 1);

              g_free (last);
              last = named;
              break;
            }
        }
    }
  adw_window_title_set_subtitle (self->window_title, last != NULL ? last : "");
}

static void
update_title (NatterWindow *self)
{
  const char *title = NULL;
  gboolean untitled = FALSE;
  g_autofree char *visible = NULL;

  if (self->conversation.entry != NULL)
    {
      title = natter_session_index_entry_get_title (self->conversation.entry);
      untitled = title == NULL || title[0] == '\0';
      if (untitled)
        title = _("New chat");
    }
  /* A damaged session keeps the title its readable lines give, else the
   * name the list gives it. */
  if (untitled && natter_session_index_entry_get_error (self->conversation.entry) != NULL)
    visible = natter_session_dup_damaged_title (self->sessions, self->conversation.entry);
  else
    /* Its control characters as their stand-ins (docs/format.md
     * "title_changed"). */
    visible = natter_visible_text (title, NATTER_VISIBLE_KEEP_NONE);
  adw_window_title_set_title (self->window_title, visible);
  gtk_widget_set_visible (self->conversation_menu_button, self->conversation.entry != NULL);
  _natter_window_update_model_picker (self);
  _natter_window_update_subtitle (self);
}

void
_natter_window_update_conversation (NatterWindow *self)
{
  const char *error = self->conversation.entry != NULL ? natter_session_index_entry_get_error (self->conversation.entry) : NULL;
  gboolean has_session = self->conversation.session_id != NULL && self->conversation.entry != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.parameters", has_session && error == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compact", has_session && error == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.permissions", has_session && error == NULL);
  _natter_window_update_keyboard_actions (self);
  _natter_window_update_folder_actions (self);
  update_title (self);

  if (!has_session && self->conversation.new_chat)
    {
      /* Nothing is written for a new conversation before its first
       * message: the conversation page, empty, with the composer. */
      _natter_window_update_composer (self);
      gtk_stack_set_visible_child_name (self->content_stack, "conversation");
      natter_conversation_view_set_new_chat_hint (self->conversation.view, TRUE);
      return;
    }
  if (!has_session)
    {
      gtk_stack_set_visible_child_name (self->content_stack, "empty");
      return;
    }
  _natter_window_update_composer (self);
  if (error != NULL)
    {
      _natter_window_show_damage (self);
      gtk_stack_set_visible_child_name (self->content_stack, "errored");
      return;
    }
  gtk_stack_set_visible_child_name (self->content_stack, "conversation");
  natter_conversation_view_set_new_chat_hint (self->conversation.view,
                                              self->conversation.timeline != NULL && natter_timeline_model_get_loaded (self->conversation.timeline) &&
                                              g_list_model_get_n_items (G_LIST_MODEL (self->conversation.timeline)) == 0);
}

static void timeline_items_changed_cb (NatterWindow *self);

/* The open conversation's turns, its draft, versions and queue: shown
 * once it reads. */
static void
show_timeline (NatterWindow *self)
{
  NatterTimelineModel *timeline = _natter_window_ensure_timeline (self, self->conversation.session_id);

  self->conversation.timeline = timeline;
  g_signal_connect_swapped (timeline, "items-changed", G_CALLBACK (timeline_items_changed_cb), self);
  g_signal_connect_swapped (timeline, "notify::loaded", G_CALLBACK (timeline_items_changed_cb), self);
  g_signal_connect_swapped (timeline, "items-changed", G_CALLBACK (_natter_window_versions_items_changed_cb), self);
  natter_conversation_view_set_timeline (self->conversation.view, timeline);
  _natter_window_restore_draft (self, self->conversation.session_id);
  _natter_window_refresh_versions (self);
  _natter_window_open_queue (self);
}

static void
entry_notify_cb (NatterWindow *self)
{
  /* Opened damaged, it had no turns to show; its file mended since
   * (put back from a backup, say), it reads now and shows them. */
  if (self->conversation.timeline == NULL && self->conversation.session_id != NULL &&
      natter_session_index_entry_get_error (self->conversation.entry) == NULL)
    show_timeline (self);
  _natter_window_update_conversation (self);
}

static void
set_entry (NatterWindow            *self,
           NatterSessionIndexEntry *entry)
{
  if (self->conversation.entry == entry)
    return;
  if (self->conversation.entry != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->conversation.entry, self);
      g_clear_object (&self->conversation.entry);
    }
  if (entry != NULL)
    {
      self->conversation.entry = g_object_ref (entry);
      g_signal_connect_swapped (entry, "notify", G_CALLBACK (entry_notify_cb), self);
    }
}

static void
save_draft (NatterWindow *self)
{
  const char *key = _natter_window_choice_key (self);
  g_autofree char *draft = NULL;

  if (key == NULL || !self->conversation.draft_in_field)
    return;
  draft = natter_composer_dup_text (self->conversation.composer);
  if (draft[0] != '\0')
    g_hash_table_replace (self->conversation.drafts, g_strdup (key), g_steal_pointer (&draft));
  else
    g_hash_table_remove (self->conversation.drafts, key);
  /* Attachments belong to their conversation's draft, too. */
  if (natter_composer_get_n_attachments (self->conversation.composer) > 0)
    g_hash_table_replace (self->conversation.draft_attachments, g_strdup (key), natter_composer_take_attachments (self->conversation.composer));
  else
    g_hash_table_remove (self->conversation.draft_attachments, key);
  /* An edit stays an edit: sent as a plain message once its banner had
   * gone, it would repeat the message and its attachments. */
  if (self->versions.editing_turn_id != NULL)
    g_hash_table_replace (self->conversation.draft_edits, g_strdup (key), g_strdup (self->versions.editing_turn_id));
  else
    g_hash_table_remove (self->conversation.draft_edits, key);
}

/* Puts the draft kept under @key into the composer, with its files, and
 * the banner of an edit when it is one. */
void
_natter_window_restore_draft (NatterWindow *self,
                              const char   *key)
{
  g_autoptr(GPtrArray) attachments = NULL;
  g_autofree char *stolen_key = NULL;
  g_autofree char *edits_key = NULL;
  g_autofree char *editing = NULL;

  natter_composer_set_text (self->conversation.composer, g_hash_table_lookup (self->conversation.drafts, key));
  self->conversation.draft_in_field = TRUE;
  g_hash_table_steal_extended (self->conversation.draft_attachments, key, (gpointer *) &stolen_key, (gpointer *) &attachments);
  g_ptr_array_unref (natter_composer_take_attachments (self->conversation.composer));
  if (attachments != NULL)
    natter_composer_restore_attachments (self->conversation.composer, attachments);
  if (g_hash_table_steal_extended (self->conversation.draft_edits, key, (gpointer *) &edits_key, (gpointer *) &editing))
    {
      g_free (self->versions.editing_turn_id);
      self->versions.editing_turn_id = g_steal_pointer (&editing);
      natter_conversation_view_set_editing (self->conversation.view, TRUE);
      _natter_window_update_keyboard_actions (self);
    }
}

static void
timeline_items_changed_cb (NatterWindow *self)
{
  _natter_window_apply_versions (self);
  _natter_window_update_conversation (self);
}

void
_natter_window_close_session (NatterWindow *self)
{
  /* What went wrong is said where it went wrong: the next conversation
   * opens without it. */
  _natter_window_hide_error (self);
  /* A dictation under way goes on for this conversation, never into the
   * next one's message. */
  _natter_window_voice_conversation_closed (self);
  save_draft (self);
  self->conversation.draft_in_field = FALSE;
  self->conversation.new_chat = FALSE;
  if (self->conversation.timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->conversation.timeline, self);
  self->conversation.timeline = NULL;
  set_entry (self, NULL);
  g_clear_pointer (&self->conversation.session_id, g_free);
  g_clear_pointer (&self->versions.editing_turn_id, g_free);
  natter_conversation_view_set_editing (self->conversation.view, FALSE);
  g_clear_pointer (&self->versions.of_turn, g_hash_table_unref);
  natter_conversation_view_set_timeline (self->conversation.view, NULL);
  natter_composer_set_text (self->conversation.composer, NULL);
  _natter_window_close_queue (self);
  natter_queue_view_set_session (self->conversation.queue_view, NULL, NULL);
  _natter_window_update_conversation (self);
}

/* The timeline of @session_id this window keeps (transfer none),
 * made (and so starting to read) on first use. */
NatterTimelineModel *
_natter_window_ensure_timeline (NatterWindow *self,
                                const char   *session_id)
{
  NatterTimelineModel *timeline = g_hash_table_lookup (self->conversation.timelines, session_id);

  if (timeline == NULL)
    {
      timeline = natter_timeline_model_new (self->sessions, self->hub, session_id);
      g_hash_table_insert (self->conversation.timelines, g_strdup (session_id), timeline);
    }
  return timeline;
}

static void
reread_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_refresh_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("Could not read the conversation again: %s", error->message);
}

/* The search's start-up check looks only at each conversation's latest
 * turn file: an earlier one damaged or mended while Natter was closed is
 * looked at again when its conversation is opened (docs/sessions.md
 * §8.4), so that the search names it rather than find words it no
 * longer has. */
static void
recheck_search (NatterWindow *self,
                const char   *session_id)
{
  NatterSearchIndex *search = natter_sidebar_get_search_index (self->session_sidebar);

  if (search != NULL)
    natter_search_index_recheck_session (search, session_id);
}

/**
 * natter_window_open_session:
 * @self: the window
 * @session_id: a session in the index
 *
 * Shows @session_id: its timeline (read lazily, turns on screen first),
 * its draft, and the composer state of its latest turn; remembers it in
 * GSettings `last-session`. An errored session (docs/sessions.md §8.2) shows
 * its error and cannot take messages. While the startup scan is still running
 * (a Shell search result that launched the app), the session is opened as soon
 * as the index is loaded, in place of the last open one. It opens at
 * once, before its turns are read, and drops the wait of a conversation
 * natter_window_open_session_when_read() was about to show. Its file is
 * read again as it opens, so that what another program did to it (a
 * damage included) shows.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
natter_window_open_session (NatterWindow *self,
                            const char   *session_id)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  if (self->sessions == NULL)
    return FALSE;
  if (!natter_session_index_get_loaded (self->index) && !self->conversation.restored)
    {
      g_free (self->conversation.open_when_loaded);
      self->conversation.open_when_loaded = g_strdup (session_id);
      return TRUE;
    }
  entry = natter_session_index_lookup (self->index, session_id);
  if (entry == NULL || g_hash_table_contains (self->sidebar.pending_deletes, session_id))
    return FALSE;
  /* Asked for now: a conversation still being read for an earlier
   * request is not shown after this one. */
  _natter_window_cancel_opening (self);
  if (g_strcmp0 (session_id, self->conversation.session_id) == 0)
    return TRUE;

  natter_conversation_view_release_focus (self->conversation.view);
  _natter_window_close_session (self);
  self->conversation.session_id = g_strdup (session_id);
  recheck_search (self, session_id);
  set_entry (self, entry);
  _natter_window_apply_session_agent (self);
  natter_settings_set_last_session (self->settings, session_id);

  /* Opened, it is read again, off the main thread: another program may
   * have changed or damaged its file since, which what the window keeps
   * would not show (docs/sessions.md §8.5). What changed comes through
   * its entry, like any other change. */
  natter_sessions_refresh_async (self->sessions, (const char * const[]) { session_id, NULL }, NULL,
                                 self->cancellable, reread_cb, NULL);
  if (natter_session_index_entry_get_error (entry) == NULL)
    show_timeline (self);
  _natter_window_update_conversation (self);
  natter_sidebar_select (self->session_sidebar, self->conversation.session_id);
  return TRUE;
}

/**
 * _natter_window_open_in_place:
 * @self: the window
 * @session_id: a new version of the open conversation's message (Try
 *   Again, an edit), made from the window
 *
 * Opens @session_id in place of the open conversation, with what was
 * being written there: the draft (its text, files and dictation, and
 * what a recovered copy says of the words it offered) goes to the
 * version now shown, whose message field the person is looking at,
 * rather than stay behind with the version one arrow away.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
_natter_window_open_in_place (NatterWindow *self,
                              const char   *session_id)
{
  g_autofree char *from = g_strdup (self->conversation.session_id);

  if (from == NULL || g_strcmp0 (from, session_id) == 0 ||
      natter_session_index_lookup (self->index, session_id) == NULL)
    return natter_window_open_session (self, session_id);
  _natter_window_cancel_opening (self);
  natter_conversation_view_release_focus (self->conversation.view);
  /* Closing keeps the draft under the conversation's key. */
  _natter_window_close_session (self);
  _natter_window_move_draft (self, from, session_id);
  return natter_window_open_session (self, session_id);
}

/**
 * _natter_window_open_new_chat:
 * @self: the window
 *
 * Shows a new, empty conversation: the composer with the new
 * conversation's draft, the default agent and model. Nothing is
 * written: the conversation exists from its first message, when the
 * send pipeline makes it (docs/sessions.md §1).
 */
void
_natter_window_open_new_chat (NatterWindow *self)
{
  _natter_window_cancel_opening (self);
  if (self->conversation.new_chat)
    return;
  _natter_window_close_session (self);
  self->conversation.new_chat = TRUE;
  _natter_window_restore_draft (self, NATTER_WINDOW_NEW_CHAT_KEY);
  _natter_window_apply_session_agent (self);
  _natter_window_update_conversation (self);
  _natter_window_update_model_picker (self);
  natter_sidebar_select (self->session_sidebar, NULL);
}

/**
 * _natter_window_move_draft:
 * @self: the window
 * @from: the key a draft is kept under (a session id, or
 *   %NATTER_WINDOW_NEW_CHAT_KEY)
 * @to: the key it goes to
 *
 * Joins the draft kept under @from to the one kept under @to: the text
 * after a blank line, the attachments after @to's, words still being
 * dictated, and what a recovered copy says of its offered words. The
 * open conversation's draft is kept under its key only once it is
 * closed (_natter_window_close_session()).
 */
void
_natter_window_move_draft (NatterWindow *self,
                           const char   *from,
                           const char   *to)
{
  g_autofree char *text = NULL;
  g_autofree char *text_key = NULL;
  g_autofree char *attachments_key = NULL;
  g_autofree char *note_key = NULL;
  g_autofree char *note = NULL;
  g_autoptr(GPtrArray) attachments = NULL;
  const char *kept;

  /* Stolen, the keys are ours to free as well. */
  if (g_hash_table_steal_extended (self->conversation.drafts, from, (gpointer *) &text_key, (gpointer *) &text))
    {
      kept = g_hash_table_lookup (self->conversation.drafts, to);
      g_hash_table_replace (self->conversation.drafts, g_strdup (to),
                            kept != NULL ? g_strconcat (kept, "\n\n", text, NULL) : g_steal_pointer (&text));
    }
  if (g_hash_table_steal_extended (self->conversation.draft_attachments, from, (gpointer *) &attachments_key,
                                   (gpointer *) &attachments))
    {
      GPtrArray *kept_attachments = g_hash_table_lookup (self->conversation.draft_attachments, to);

      if (kept_attachments != NULL)
        g_ptr_array_extend_and_steal (kept_attachments, g_steal_pointer (&attachments));
      else
        g_hash_table_replace (self->conversation.draft_attachments, g_strdup (to), g_steal_pointer (&attachments));
    }
  /* Joined to another draft, the words are a message of their own. */
  g_hash_table_remove (self->conversation.draft_edits, from);
  /* What a recovered copy says of the words in its field goes with
   * them to another conversation; a new chat is no copy. */
  if (g_hash_table_steal_extended (self->conversation.recovery_notes, from, (gpointer *) &note_key,
                                   (gpointer *) &note) &&
      g_strcmp0 (to, NATTER_WINDOW_NEW_CHAT_KEY) != 0)
    g_hash_table_replace (self->conversation.recovery_notes, g_strdup (to), g_steal_pointer (&note));
  /* Words still being dictated go where the rest of the draft went. */
  _natter_window_voice_rekey (self, from, to);
}

/* The keyboard was in what went with the conversation (its row, its
 * turns), and GTK handed it on to the nearest stop, a header button:
 * it goes to the new conversation's message field, where what was
 * being written went. Typing a search, it stays. */
static void
keep_keyboard_after_delete (NatterWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *search = natter_sidebar_get_search_entry (self->session_sidebar);

  if (focus != NULL && (gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation.composer)) ||
                        focus == search || gtk_widget_is_ancestor (focus, search)))
    return;
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

/**
 * _natter_window_leave_deleted:
 * @self: the window
 *
 * The open conversation was deleted elsewhere (`natter delete`, another
 * window, another device: docs/sessions.md §9.4, §8.5). The window leaves
 * it as it leaves one deleted here, so nothing of it stays to act on,
 * and opens a new conversation; what was being written (the text, the
 * attachments, a dictation) is not lost with it but moves to the new
 * conversation's message field. A toast says what happened.
 */
void
_natter_window_leave_deleted (NatterWindow *self)
{
  g_autofree char *session_id = g_strdup (self->conversation.session_id);
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  const char *stored;
  AdwToast *toast;

  g_assert (session_id != NULL && self->conversation.entry != NULL);

  /* Named as the header named it: an older title's control characters
   * as their stand-ins. */
  stored = natter_session_index_entry_get_title (self->conversation.entry);
  title = _natter_window_toast_name (stored != NULL && stored[0] != '\0' ? stored : _("New chat"));
  /* Closing keeps the draft under the conversation's key. */
  _natter_window_close_session (self);
  g_hash_table_remove (self->conversation.timelines, session_id);
  _natter_window_move_draft (self, session_id, NATTER_WINDOW_NEW_CHAT_KEY);
  _natter_window_open_new_chat (self);
  _natter_window_update_keyboard_actions (self);
  keep_keyboard_after_delete (self);

  /* Translators: %s is a conversation title */
  text = g_strdup_printf (_("“%s” was deleted elsewhere"), title);
  /* A toast's title is Pango markup, and a title is the user's text. */
  escaped = g_markup_escape_text (text, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* Startup: the last open session, once the index is loaded (and again
 * each time it says it is: the first call that finds it loaded acts). */

void
_natter_window_restore_last_session (NatterWindow *self)
{
  g_autofree char *requested = NULL;
  g_autofree char *last = NULL;

  if (self->conversation.restored || !natter_session_index_get_loaded (self->index))
    return;
  self->conversation.restored = TRUE;
  requested = g_steal_pointer (&self->conversation.open_when_loaded);
  if (requested != NULL && natter_window_open_session_when_read (self, requested))
    return;
  last = g_strdup (natter_settings_get_last_session (self->settings));
  if (last[0] != '\0' && natter_window_open_session_when_read (self, last))
    return;
  /* Nothing to go back to: the window starts on a new conversation with
   * the keyboard in its message field, so that what is typed first is
   * the message, not keys for a button. It writes nothing until sent.
   * Not when something was asked for while the index was read (a
   * conversation, a first message sent): that stays. */
  if (requested != NULL || self->conversation.session_id != NULL || self->conversation.new_chat || self->conversation.sending)
    return;
  _natter_window_open_new_chat (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

/* Lets go of the open conversation's timeline and entry as the window
 * goes. */
void
_natter_window_opening_dispose (NatterWindow *self)
{
  if (self->conversation.timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->conversation.timeline, self);
  self->conversation.timeline = NULL;
  set_entry (self, NULL);
}

/* Opening once the latest turns are read */

/* The longest a picked conversation waits for its turns before it is
 * shown with "Loading…" rows: a slow disk or a very long session must not
 * make the click look ignored. */
#define OPENING_WAIT_MS 120

/* Tests set a longer wait where a loaded machine could outlast this one;
 * 0 means the default. */
void
_natter_window_set_opening_wait (NatterWindow *self,
                                 guint         wait_ms)
{
  self->opening.wait_ms = wait_ms;
}

static void
check_opening (NatterWindow *self);

void
_natter_window_cancel_opening (NatterWindow *self)
{
  if (self->opening.timeline != NULL)
    g_signal_handlers_disconnect_by_func (self->opening.timeline, check_opening, self);
  g_clear_object (&self->opening.timeline);
  if (self->opening.items != NULL)
    {
      for (guint i = 0; i < self->opening.items->len; i++)
        g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->opening.items, i),
                                              check_opening, self);
      g_clear_pointer (&self->opening.items, g_ptr_array_unref);
    }
  g_clear_handle_id (&self->opening.timeout_id, g_source_remove);
  g_clear_pointer (&self->opening.id, g_free);
}

static void
finish_opening (NatterWindow *self)
{
  g_autofree char *session_id = g_strdup (self->opening.id);

  if (session_id == NULL)
    return;
  /* Ended before opening: a session deleted meanwhile is not opened, and
   * nothing waits for it any more. */
  _natter_window_cancel_opening (self);
  natter_window_open_session (self, session_id);
}

/* What waits to be shown is shown now: an action on the open
 * conversation (from the menu of the row just picked) is meant for it. */
void
_natter_window_finish_opening (NatterWindow *self)
{
  finish_opening (self);
}

/* Once the turn list is known: read the latest turns, as the view
 * showing the bottom would, and hear when each read ends. */
static void
watch_latest (NatterWindow *self)
{
  if (self->opening.items != NULL)
    return;
  natter_timeline_model_read_latest (self->opening.timeline, NATTER_TIMELINE_LATEST_TURNS);
  self->opening.items = natter_timeline_model_dup_latest (self->opening.timeline,
                                                          NATTER_TIMELINE_LATEST_TURNS);
  for (guint i = 0; i < self->opening.items->len; i++)
    g_signal_connect_swapped (g_ptr_array_index (self->opening.items, i), "changed",
                              G_CALLBACK (check_opening), self);
}

static void
check_opening (NatterWindow *self)
{
  if (self->opening.timeline == NULL)
    return;
  if (!natter_timeline_model_get_loaded (self->opening.timeline))
    return;
  watch_latest (self);
  if (natter_timeline_model_latest_read (self->opening.timeline, NATTER_TIMELINE_LATEST_TURNS))
    finish_opening (self);
}

static gboolean
opening_timeout_cb (gpointer data)
{
  NatterWindow *self = data;

  self->opening.timeout_id = 0;
  finish_opening (self);
  return G_SOURCE_REMOVE;
}

/**
 * natter_window_open_session_when_read:
 * @self: the window
 * @session_id: a session in the index
 *
 * Opens @session_id as natter_window_open_session() does, the way a
 * conversation the user picked is opened: when its latest turns (those
 * the view opens on, at the bottom) are not read yet, the window keeps
 * showing what it shows until they are, for at most 120 ms, or until the
 * user presses a key or clicks, and then switches to it. So the first
 * frame of the conversation shows its turns instead of placeholders. A
 * request for another session, or natter_window_open_session(), drops
 * the wait. Sessions whose latest turns are read already, those with no
 * turns, errored ones, and any in a window not shown are opened at once.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
natter_window_open_session_when_read (NatterWindow *self,
                                      const char   *session_id)
{
  NatterSessionIndexEntry *entry;
  NatterTimelineModel *timeline;
  g_autoptr(GSource) timeout = NULL;

  g_return_val_if_fail (NATTER_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  if (g_strcmp0 (session_id, self->opening.id) == 0)
    return TRUE;
  if (self->sessions == NULL || !natter_session_index_get_loaded (self->index) ||
      !gtk_widget_get_mapped (GTK_WIDGET (self)) || g_strcmp0 (session_id, self->conversation.session_id) == 0)
    return natter_window_open_session (self, session_id);
  entry = natter_session_index_lookup (self->index, session_id);
  /* A conversation with no turns has no rows to wait for. */
  if (entry == NULL || g_hash_table_contains (self->sidebar.pending_deletes, session_id) ||
      natter_session_index_entry_get_error (entry) != NULL ||
      natter_session_index_entry_get_turn_count (entry) == 0)
    return natter_window_open_session (self, session_id);

  timeline = _natter_window_ensure_timeline (self, session_id);
  if (natter_timeline_model_latest_read (timeline, NATTER_TIMELINE_LATEST_TURNS))
    return natter_window_open_session (self, session_id);

  _natter_window_cancel_opening (self);
  self->opening.id = g_strdup (session_id);
  self->opening.timeline = g_object_ref (timeline);
  g_signal_connect_swapped (timeline, "notify::loaded", G_CALLBACK (check_opening), self);
  timeout = g_timeout_source_new (self->opening.wait_ms > 0 ? self->opening.wait_ms : OPENING_WAIT_MS);
  g_source_set_callback (timeout, opening_timeout_cb, self, NULL);
  g_source_set_static_name (timeout, "[natter] conversation opening");
  self->opening.timeout_id = g_source_attach (timeout, NULL);
  check_opening (self);
  return TRUE;
}

/**
 * natter_window_get_opening_session_id:
 * @self: the window
 *
 * Returns: (nullable): the session natter_window_open_session_when_read()
 *   is waiting to show, or %NULL
 */
const char *
natter_window_get_opening_session_id (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return self->opening.id;
}

/* Input during the wait is meant for the conversation the user chose:
 * switch before it is delivered. Both controllers only look. */
static gboolean
opening_key_pressed_cb (GtkEventControllerKey *controller,
                        guint                  keyval,
                        guint                  keycode,
                        GdkModifierType        state,
                        NatterWindow          *self)
{
  finish_opening (self);
  return GDK_EVENT_PROPAGATE;
}

static void
opening_pressed_cb (GtkGestureClick *gesture,
                    int              n_press,
                    double           x,
                    double           y,
                    NatterWindow    *self)
{
  finish_opening (self);
}

void
_natter_window_opening_init (NatterWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (opening_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), keys);

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect (click, "pressed", G_CALLBACK (opening_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
}
