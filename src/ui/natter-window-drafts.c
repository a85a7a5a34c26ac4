/* natter-window-drafts.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's drafts kept on disk (docs/format.md §10). While the window
 * runs, its drafts live in its tables (natter-window-opening.c keeps the
 * open conversation's there when another opens); this facet writes what
 * they hold, with the words and files in the message field for the
 * conversation open, a second after the last key press and when the
 * window closes, so that quitting, a crash or a power cut loses at most
 * that second's typing; the words a field held when one of its sent messages was taken
 * there to edit are kept with the edit, and a message sent stays its
 * field's draft until it is in the conversation's log (a send may wait on
 * a slow server first, and a crash then would lose it). It compares with
 * what it kept last, so that each save writes only the drafts that
 * changed and removes only those that went (sent, cleared, or their
 * conversation deleted).
 */

#include "config.h"

#include <glib/gi18n.h>

#include "natter-window-private.h"

/* How long after the last change the drafts are kept. */
#define SAVE_DELAY_MS 1000

/* Adds the files of @sources (nullable) to @draft: a file by its URI,
 * something pasted by its bytes. */
static void
add_sources (NatterDraft *draft,
             GPtrArray   *sources)
{
  for (guint i = 0; sources != NULL && i < sources->len; i++)
    {
      NatterAttachmentSource *source = g_ptr_array_index (sources, i);
      GFile *file = natter_attachment_source_get_file (source);

      if (file != NULL)
        {
          g_autofree char *uri = g_file_get_uri (file);

          natter_draft_add_file (draft, uri);
        }
      else
        natter_draft_add_bytes (draft, natter_attachment_source_get_bytes (source),
                                natter_attachment_source_get_name (source),
                                natter_attachment_source_get_media_type (source));
    }
}

/* The files waiting beside @draft, as the composer takes them; %NULL
 * when there are none. */
static GPtrArray *
sources_of (const NatterDraft *draft)
{
  GPtrArray *sources;

  if (draft->attachments->len == 0)
    return NULL;
  sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  for (guint i = 0; i < draft->attachments->len; i++)
    {
      NatterDraftAttachment *attachment = g_ptr_array_index (draft->attachments, i);

      if (attachment->uri != NULL)
        {
          g_autoptr(GFile) file = g_file_new_for_uri (attachment->uri);

          g_ptr_array_add (sources, natter_attachment_source_new_for_file (file));
        }
      else
        g_ptr_array_add (sources, natter_attachment_source_new_for_bytes (attachment->bytes, attachment->name,
                                                                          attachment->media_type));
    }
  return sources;
}

/* Puts @draft under @key in the window's tables: its words, its files,
 * the message it edits and the words that edit set aside. */
static void
put_draft (NatterWindow      *self,
           const char        *key,
           const NatterDraft *draft)
{
  GPtrArray *sources = sources_of (draft);

  if (draft->text[0] != '\0')
    g_hash_table_replace (self->conversation.drafts, g_strdup (key), g_strdup (draft->text));
  else
    g_hash_table_remove (self->conversation.drafts, key);
  if (sources != NULL)
    g_hash_table_replace (self->conversation.draft_attachments, g_strdup (key), sources);
  else
    g_hash_table_remove (self->conversation.draft_attachments, key);
  if (draft->edits_turn_id != NULL)
    g_hash_table_replace (self->conversation.draft_edits, g_strdup (key), g_strdup (draft->edits_turn_id));
  else
    g_hash_table_remove (self->conversation.draft_edits, key);
  if (draft->set_aside != NULL)
    g_hash_table_replace (self->versions.set_aside, g_strdup (key), g_strdup (draft->set_aside));
  else
    g_hash_table_remove (self->versions.set_aside, key);
}

/* The draft of a field holding @text and the files @sources (nullable),
 * editing @edits_turn_id's message or not, with @set_aside the words it
 * held before that edit (transfer full; %NULL for none). An edit
 * emptied is kept as the words it set aside: those are what wait in that
 * field. */
static NatterDraft *
draft_of (const char *text,
          const char *edits_turn_id,
          const char *set_aside,
          GPtrArray  *sources)
{
  NatterDraft *draft;

  if ((text != NULL && text[0] != '\0') || (sources != NULL && sources->len > 0))
    {
      draft = natter_draft_new (text, edits_turn_id, edits_turn_id != NULL ? set_aside : NULL);
      add_sources (draft, sources);
      return draft;
    }
  if (set_aside != NULL && set_aside[0] != '\0')
    return natter_draft_new (set_aside, NULL, NULL);
  return NULL;
}

/**
 * _natter_window_drafts_load:
 * @self: the window, before it opens any conversation
 * @store: (nullable): where drafts are kept; %NULL keeps none
 *
 * Puts the drafts kept on disk into the window's tables, where opening a
 * conversation finds its draft (and whether it edits a sent message). A
 * draft file that cannot be read stays on disk, and a toast says so.
 */
void
_natter_window_drafts_load (NatterWindow     *self,
                            NatterDraftStore *store)
{
  g_autoptr(GPtrArray) problems = g_ptr_array_new_with_free_func ((GDestroyNotify) g_error_free);
  g_autoptr(GHashTable) drafts = NULL;
  const char *open_key;
  GHashTableIter iter;
  gpointer key, value;

  g_set_object (&self->drafts.store, store);
  if (store == NULL)
    return;
  drafts = natter_draft_store_load_sync (store, problems);
  g_hash_table_iter_init (&iter, drafts);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      /* Words typed in this window already are newer. */
      if (g_hash_table_contains (self->conversation.drafts, key) ||
          g_hash_table_contains (self->conversation.draft_attachments, key))
        continue;
      put_draft (self, key, value);
      g_hash_table_replace (self->drafts.kept, g_strdup (key), natter_draft_copy (value));
    }
  /* A conversation already open shows its draft (an edit as an edit),
   * unless something was put in its field meanwhile: that would be kept
   * over the draft otherwise. */
  open_key = self->conversation.draft_in_field ? _natter_window_choice_key (self) : NULL;
  if (open_key != NULL && g_hash_table_contains (drafts, open_key) &&
      natter_composer_is_empty (self->conversation.composer) && self->versions.editing_turn_id == NULL &&
      natter_composer_get_n_attachments (self->conversation.composer) == 0)
    _natter_window_restore_draft (self, open_key);
  if (problems->len > 0)
    {
      GString *details = g_string_new (ngettext ("It stays on disk as it is.", "They stay on disk as they are.",
                                                 problems->len));
      g_autofree char *title = g_strdup_printf (ngettext ("Unreadable draft", "%u unreadable drafts",
                                                          problems->len),
                                                problems->len);

      for (guint i = 0; i < problems->len; i++)
        g_string_append_printf (details, "\n\n%s", ((GError *) g_ptr_array_index (problems, i))->message);
      _natter_window_show_notice (self, title, details->str);
      g_string_free (details, TRUE);
    }
}

/* The drafts as they should be on disk now: the window's tables, with
 * the message field's words for the conversation open. */
static GHashTable *
current_drafts (NatterWindow *self)
{
  GHashTable *current = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) natter_draft_free);
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  /* Only a field that shows the open conversation's draft holds it. */
  const char *open_key = self->conversation.draft_in_field ? _natter_window_choice_key (self) : NULL;
  GHashTable *tables[] = { self->conversation.drafts, self->conversation.draft_attachments, self->versions.set_aside };
  GHashTableIter iter;
  gpointer key, value;
  NatterDraft *draft;

  /* Words, files, or only the words an edit set aside. */
  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    {
      g_hash_table_iter_init (&iter, tables[i]);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_hash_table_add (keys, key);
    }
  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      if (open_key != NULL && g_str_equal (key, open_key))
        continue;
      if ((draft = draft_of (g_hash_table_lookup (self->conversation.drafts, key),
                             g_hash_table_lookup (self->conversation.draft_edits, key),
                             g_hash_table_lookup (self->versions.set_aside, key),
                             g_hash_table_lookup (self->conversation.draft_attachments, key))) != NULL)
        g_hash_table_replace (current, g_strdup (key), draft);
    }
  if (open_key != NULL)
    {
      g_autofree char *text = natter_composer_dup_text (self->conversation.composer);
      g_autoptr(GPtrArray) sources = natter_composer_dup_attachments (self->conversation.composer);

      if ((draft = draft_of (text, self->versions.editing_turn_id,
                             g_hash_table_lookup (self->versions.set_aside, open_key), sources)) != NULL)
        g_hash_table_replace (current, g_strdup (open_key), draft);
    }
  /* A message on its way is its field's draft until it is in the log;
   * an edit keeps the words its field holds meanwhile (the words it had
   * set aside) as set aside once more. */
  g_hash_table_iter_init (&iter, self->drafts.in_flight);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      NatterDraft *sent = value;
      NatterDraft *there = g_hash_table_lookup (current, key);

      draft = natter_draft_copy (sent);
      if (sent->edits_turn_id != NULL && there != NULL && there->text[0] != '\0')
        draft->set_aside = g_strdup (there->text);
      g_hash_table_replace (current, g_strdup (key), draft);
    }
  return current;
}

/* Writes @draft as the draft of @key, or removes the draft for %NULL;
 * says what went wrong once. */
static gboolean
keep (NatterWindow      *self,
      const char        *key,
      const NatterDraft *draft)
{
  g_autoptr(GError) error = NULL;

  if (natter_draft_store_save_sync (self->drafts.store, key, draft, &error))
    return TRUE;
  /* A window that only reads keeps nothing until it writes, and says so
   * before it closes with words it could not keep. */
  if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED))
    return FALSE;
  if (g_strcmp0 (error->message, self->drafts.last_error) != 0)
    {
      g_autofree char *why = g_strdup_printf (_("Your draft could not be kept on disk: %s"), error->message);

      g_free (self->drafts.last_error);
      self->drafts.last_error = g_strdup (error->message);
      _natter_window_show_notice (self, _("Draft not saved"), why);
    }
  return FALSE;
}

/**
 * _natter_window_drafts_save:
 * @self: the window
 *
 * Keeps the window's drafts on disk now: writes each one that changed
 * since the last save and removes each one that went.
 *
 * Returns: whether every word in the window's fields is on disk now;
 *   %FALSE when a draft could not be written (a window that only reads
 *   writes none), so that closing would lose it
 */
gboolean
_natter_window_drafts_save (NatterWindow *self)
{
  g_autoptr(GHashTable) current = NULL;
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  gboolean all_kept = TRUE;
  GHashTableIter iter;
  gpointer key, value;

  g_clear_handle_id (&self->drafts.save_id, g_source_remove);
  if (self->drafts.store == NULL)
    return TRUE;
  current = current_drafts (self);
  g_hash_table_iter_init (&iter, current);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (natter_draft_equal (g_hash_table_lookup (self->drafts.kept, key), value))
        continue;
      if (keep (self, key, value))
        g_hash_table_replace (self->drafts.kept, g_strdup (key), natter_draft_copy (value));
      else
        all_kept = FALSE;
    }
  g_hash_table_iter_init (&iter, self->drafts.kept);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (current, key))
      g_ptr_array_add (gone, g_strdup (key));
  for (guint i = 0; i < gone->len; i++)
    if (keep (self, g_ptr_array_index (gone, i), NULL))
      g_hash_table_remove (self->drafts.kept, g_ptr_array_index (gone, i));
  return all_kept;
}

/**
 * _natter_window_drafts_take_over:
 * @self: a window that only read, and writes now (docs/sessions.md §8.3)
 *
 * Brings the drafts up to date with those the other Natter kept while
 * this window only read, then keeps this window's own. A draft this
 * window did not change since it read it becomes the other's (changed,
 * or gone once its message was sent there); one it changed stays as
 * typed here, and is written over the other's.
 */
void
_natter_window_drafts_take_over (NatterWindow *self)
{
  g_autoptr(GHashTable) on_disk = NULL;
  g_autoptr(GHashTable) current = NULL;
  g_autoptr(GHashTable) keys = g_hash_table_new (g_str_hash, g_str_equal);
  const char *open_key = self->conversation.draft_in_field ? _natter_window_choice_key (self) : NULL;
  GHashTableIter iter;
  gpointer key, value;

  if (self->drafts.store == NULL)
    return;
  on_disk = natter_draft_store_load_sync (self->drafts.store, NULL);
  current = current_drafts (self);
  g_hash_table_iter_init (&iter, on_disk);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (keys, key);
  g_hash_table_iter_init (&iter, current);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (keys, key);

  g_hash_table_iter_init (&iter, keys);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      NatterDraft *theirs = g_hash_table_lookup (on_disk, key);
      gboolean changed_here = !natter_draft_equal (g_hash_table_lookup (current, key),
                                                   g_hash_table_lookup (self->drafts.kept, key));
      gboolean open = open_key != NULL && g_str_equal (key, open_key);

      if (!changed_here && theirs != NULL)
        put_draft (self, key, theirs);
      else if (!changed_here)
        {
          g_hash_table_remove (self->conversation.drafts, key);
          g_hash_table_remove (self->conversation.draft_attachments, key);
          g_hash_table_remove (self->conversation.draft_edits, key);
          g_hash_table_remove (self->versions.set_aside, key);
        }
      /* The field open shows the other's draft, files and all. */
      if (!changed_here && open)
        {
          g_clear_pointer (&self->versions.editing_turn_id, g_free);
          natter_conversation_view_set_editing (self->conversation.view, FALSE);
          _natter_window_restore_draft (self, key);
        }
    }
  /* What is on disk now is the other's: the save writes what differs. */
  g_hash_table_remove_all (self->drafts.kept);
  g_hash_table_iter_init (&iter, on_disk);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_replace (self->drafts.kept, g_strdup (key), natter_draft_copy (value));
    }
  _natter_window_drafts_save (self);
}

/**
 * _natter_window_drafts_hold:
 * @self: the window
 * @key: the choice key of the field @text was sent from
 * @text: the words sent
 * @edits_turn_id: (nullable): the turn whose message they replace, for
 *   an edit
 * @sources: (nullable) (element-type NatterAttachmentSource): the files
 *   sent with them
 *
 * A message leaves @key's field: until _natter_window_drafts_release(),
 * its words and files stay that field's draft on disk, for a crash
 * before they reach the log. Call it before the field is emptied.
 */
void
_natter_window_drafts_hold (NatterWindow *self,
                            const char   *key,
                            const char   *text,
                            const char   *edits_turn_id,
                            GPtrArray    *sources)
{
  NatterDraft *held;

  if (self->drafts.store == NULL || (held = draft_of (text, edits_turn_id, NULL, sources)) == NULL)
    return;
  g_hash_table_replace (self->drafts.in_flight, g_strdup (key), held);
}

/**
 * _natter_window_drafts_release:
 * @self: the window
 * @key: a key given to _natter_window_drafts_hold()
 *
 * The message held for @key is in the log now, or back in a field (it
 * could not be sent): its draft is what the tables say from now on, kept
 * at once.
 */
void
_natter_window_drafts_release (NatterWindow *self,
                               const char   *key)
{
  if (self->drafts.store != NULL && g_hash_table_remove (self->drafts.in_flight, key))
    _natter_window_drafts_save (self);
}

static gboolean
save_cb (gpointer user_data)
{
  NatterWindow *self = user_data;

  self->drafts.save_id = 0;
  _natter_window_drafts_save (self);
  return G_SOURCE_REMOVE;
}

/**
 * _natter_window_drafts_changed:
 * @self: the window
 *
 * The words of the message field changed: the drafts are kept a moment
 * after the last change, or at once when the field was emptied.
 */
void
_natter_window_drafts_changed (NatterWindow *self)
{
  if (self->drafts.store == NULL)
    return;
  g_clear_handle_id (&self->drafts.save_id, g_source_remove);
  /* An emptied field is most often a message just sent: its draft goes
   * at once, so that a crash cannot offer it again to be sent twice. */
  if (natter_composer_is_empty (self->conversation.composer))
    _natter_window_drafts_save (self);
  else
    self->drafts.save_id = g_timeout_add (SAVE_DELAY_MS, save_cb, self);
}

/**
 * _natter_window_drafts_dispose:
 * @self: the window
 *
 * Lets go of the store, keeping nothing more: a window closed has kept
 * its drafts (natter_window_close_request()); one destroyed without
 * closing, by the tests, keeps what it kept last.
 */
void
_natter_window_drafts_dispose (NatterWindow *self)
{
  g_clear_handle_id (&self->drafts.save_id, g_source_remove);
  g_clear_object (&self->drafts.store);
  g_clear_pointer (&self->drafts.kept, g_hash_table_unref);
  g_clear_pointer (&self->drafts.in_flight, g_hash_table_unref);
  g_clear_pointer (&self->drafts.last_error, g_free);
}
