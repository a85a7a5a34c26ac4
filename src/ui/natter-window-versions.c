/* natter-window-versions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Versions of a message in the window. Edit puts a sent message into the
 * composer; sending it then branches at the turn before the message
 * (natter_sessions_fork_async(), with the conversation's title, so the
 * sidebar shows the branch as this conversation going on) and sends the
 * new words there. Try Again on an answer does the same with the same
 * words. Nothing is discarded: every message that has versions shows
 * "‹ n/N ›", and the arrows open the conversation of the other version
 * scrolled to that version of the message
 * (natter_sessions_list_versions_async()).
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-attachment-reuse.h"
#include "natter-session-error.h"
#include "natter-turn-item.h"
#include "natter-window-private.h"

/* The versions of the open conversation's messages */

/* Gives every item of the open timeline its versions (NULL for none),
 * also items that were not there when the versions were read. */
void
_natter_window_apply_versions (NatterWindow *self)
{
  guint n;

  if (self->timeline == NULL)
    return;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->timeline));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) object = g_list_model_get_item (G_LIST_MODEL (self->timeline), i);
      NatterTurnItem *item;

      if (!NATTER_IS_TURN_ITEM (object))
        continue;
      item = NATTER_TURN_ITEM (object);
      natter_turn_item_set_versions (item, self->versions != NULL
                                           ? g_hash_table_lookup (self->versions, natter_turn_item_get_turn_id (item))
                                           : NULL);
    }
}

/* The window is held weakly: reading versions is never a reason to keep
 * a closed window alive. */
typedef struct
{
  GWeakRef  self;
  char     *session_id;
} ListData;

static void
list_data_free (ListData *data)
{
  g_weak_ref_clear (&data->self);
  g_free (data->session_id);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ListData, list_data_free)

static void
versions_listed_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(ListData) data = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&data->self);
  g_autoptr(GHashTable) versions = NULL;

  versions = natter_sessions_list_versions_finish (NATTER_SESSIONS (source), result, NULL);
  /* Not finding them only means no switcher; the conversation itself
   * says what is wrong with it. */
  if (versions == NULL || self == NULL || g_strcmp0 (data->session_id, self->session_id) != 0)
    return;
  g_clear_pointer (&self->versions, g_hash_table_unref);
  self->versions = g_steal_pointer (&versions);
  _natter_window_apply_versions (self);
}

/* Reads the versions of the open conversation's messages again. */
void
_natter_window_refresh_versions (NatterWindow *self)
{
  ListData *data;

  g_clear_pointer (&self->versions, g_hash_table_unref);
  if (self->session_id == NULL || self->sessions == NULL || self->timeline == NULL)
    return;
  data = g_new0 (ListData, 1);
  g_weak_ref_init (&data->self, self);
  data->session_id = g_strdup (self->session_id);
  natter_sessions_list_versions_async (self->sessions, self->session_id, self->cancellable,
                                       versions_listed_cb, data);
}

/* A message added to the open conversation (the first of a new
 * version, or another): the versions are read again. The first items of
 * a timeline that is loading need nothing new: its read comes after. */
void
_natter_window_versions_items_changed_cb (NatterWindow *self,
                                          guint         position,
                                          guint         removed,
                                          guint         added)
{
  if (added > 0 && self->timeline != NULL && natter_timeline_model_get_loaded (self->timeline))
    _natter_window_refresh_versions (self);
}

/* Sending a new version */

typedef struct
{
  NatterWindow *self;
  char         *text;
  GPtrArray    *sources;   /* nullable: NatterAttachmentSource */
  NatterWindowCarriedChoice carried;
} VersionData;

static void
version_data_free (VersionData *data)
{
  g_object_unref (data->self);
  g_free (data->text);
  g_clear_pointer (&data->sources, g_ptr_array_unref);
  _natter_window_carried_choice_clear (&data->carried);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (VersionData, version_data_free)

static void
branched_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(VersionData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  if (g_task_get_source_tag (G_TASK (result)) == natter_sessions_fork_async)
    session_id = natter_sessions_fork_finish (NATTER_SESSIONS (source), result, &error);
  else
    session_id = natter_sessions_create_session_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          /* The words are not lost: they go back into the composer. */
          _natter_window_show_error (self, NULL, _("The new version could not be made"), error, NULL);
          natter_composer_set_text (self->composer, data->text);
          if (data->sources != NULL)
            natter_composer_restore_attachments (self->composer, data->sources);
        }
      return;
    }
  /* The new version goes on with the model and agent of the
   * conversation it was made from, as its next message would. */
  _natter_window_carry_choice (self, session_id, &data->carried);
  natter_window_open_session (self, session_id);
  _natter_window_send_message (self, data->text, g_steal_pointer (&data->sources), TRUE);
}

/**
 * _natter_window_send_version:
 * @self: the window
 * @turn_id: a settled turn of the open conversation (its own or one it
 *   shows from the conversation it branched from)
 * @text: the message's new words
 * @sources: (transfer full) (nullable) (element-type NatterAttachmentSource):
 *   its attachments
 *
 * Makes a new version of @turn_id's message: a branch at the turn before
 * it, with the open conversation's title, opened, with @text and
 * @sources sent there. The first message has no turn before it: its
 * branch starts from nothing.
 */
void
_natter_window_send_version (NatterWindow *self,
                             const char   *turn_id,
                             const char   *text,
                             GPtrArray    *sources)
{
  NatterTurnItem *item = self->timeline != NULL ? natter_timeline_model_lookup_any (self->timeline, turn_id) : NULL;
  NatterTurnState *state = item != NULL ? natter_turn_item_get_state (item) : NULL;
  const char *owner;
  const char *previous = NULL;
  const char *title;
  VersionData *data;
  JsonNode *context;

  if (state == NULL || self->session_id == NULL || self->entry == NULL)
    {
      g_clear_pointer (&sources, g_ptr_array_unref);
      return;
    }
  owner = natter_turn_item_get_inherited_from (item) != NULL ? natter_turn_item_get_inherited_from (item)
                                                               : self->session_id;
  context = json_object_get_member (natter_turn_state_get_definition (state), "context");
  if (context != NULL && JSON_NODE_HOLDS_OBJECT (context))
    previous = json_object_get_string_member_with_default (json_node_get_object (context), "previousTurnId", NULL);
  title = natter_session_index_entry_get_title (self->entry);

  data = g_new0 (VersionData, 1);
  data->self = g_object_ref (self);
  data->text = g_strdup (text);
  data->sources = sources;
  _natter_window_dup_choice (self, &data->carried);
  if (previous != NULL)
    {
      NatterTurnItem *before = natter_timeline_model_lookup_any (self->timeline, previous);
      const char *before_owner = before != NULL && natter_turn_item_get_inherited_from (before) != NULL
                                 ? natter_turn_item_get_inherited_from (before) : owner;

      natter_sessions_fork_async (self->sessions, before_owner, previous, title, self->cancellable,
                                  branched_cb, data);
    }
  else
    {
      NatterSessionIndexEntry *entry = natter_session_index_lookup (self->index, owner);
      const char *parent = entry != NULL ? natter_session_index_entry_get_parent_session (entry) : NULL;

      /* A first message's versions all branch from the conversation that
       * had it first. */
      natter_sessions_create_session_async (self->sessions, title,
                                            entry != NULL ? natter_session_index_entry_get_cwd (entry) : NULL,
                                            parent != NULL ? parent : owner, NULL, self->cancellable,
                                            branched_cb, data);
    }
}

/* Actions */

typedef struct
{
  GWeakRef  self;
  char     *turn_id;
} CarryData;

static void
carry_data_free (CarryData *data)
{
  g_weak_ref_clear (&data->self);
  g_free (data->turn_id);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CarryData, carry_data_free)

static void
attachments_loaded_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(CarryData) data = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&data->self);
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(GError) error = NULL;

  sources = natter_attachments_load_finish (result, &error);
  /* The edit was sent or given up meanwhile: nothing to carry into. */
  if (self == NULL || g_strcmp0 (self->editing_turn_id, data->turn_id) != 0)
    return;
  if (sources == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The attachments of the message could not be added to the edit"),
                                   error, NULL);
      return;
    }
  natter_composer_restore_attachments (self->composer, sources);
}

/* The edit starts with the attachments the message was sent with, as
 * chips the user can remove: the new version references the same
 * blobs unless they do. */
static void
carry_attachments (NatterWindow   *self,
                   NatterTurnItem *item,
                   const char     *turn_id)
{
  g_autoptr(GPtrArray) parts = natter_turn_item_dup_attachments (item);
  CarryData *data;

  g_ptr_array_unref (natter_composer_take_attachments (self->composer));
  if (parts->len == 0 || self->blobs == NULL)
    return;
  data = g_new0 (CarryData, 1);
  g_weak_ref_init (&data->self, self);
  data->turn_id = g_strdup (turn_id);
  natter_attachments_load_async (self->blobs, parts, self->cancellable, attachments_loaded_cb, data);
}

typedef struct
{
  GWeakRef  self;
  char     *turn_id;
  char     *text;
} RetryData;

static void
retry_data_free (RetryData *data)
{
  g_weak_ref_clear (&data->self);
  g_free (data->turn_id);
  g_free (data->text);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (RetryData, retry_data_free)

static void
retry_loaded_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(RetryData) data = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&data->self);
  g_autoptr(GError) error = NULL;
  GPtrArray *sources = natter_attachments_load_finish (result, &error);

  if (self == NULL)
    {
      g_clear_pointer (&sources, g_ptr_array_unref);
      return;
    }
  /* Another answer to the message without its attachments would answer
   * another question: nothing is sent. */
  if (sources == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The message could not be sent again"), error, NULL);
      return;
    }
  _natter_window_send_version (self, data->turn_id, data->text, sources);
}

/**
 * _natter_window_try_again_version:
 * @self: the window
 * @turn_id: a completed turn of the open conversation
 * @text: its message's words
 *
 * Another answer to @turn_id's message as a new version of it, with the
 * same words and the same attachments (read back from their blobs
 * first), so that the answer shown stays one arrow away.
 */
void
_natter_window_try_again_version (NatterWindow *self,
                                  const char   *turn_id,
                                  const char   *text)
{
  NatterTurnItem *item = self->timeline != NULL ? natter_timeline_model_lookup_any (self->timeline, turn_id) : NULL;
  g_autoptr(GPtrArray) parts = item != NULL ? natter_turn_item_dup_attachments (item) : NULL;
  RetryData *data;

  if (parts == NULL || parts->len == 0 || self->blobs == NULL)
    {
      _natter_window_send_version (self, turn_id, text, NULL);
      return;
    }
  data = g_new0 (RetryData, 1);
  g_weak_ref_init (&data->self, self);
  data->turn_id = g_strdup (turn_id);
  data->text = g_strdup (text);
  natter_attachments_load_async (self->blobs, parts, self->cancellable, retry_loaded_cb, data);
}

static void
edit_message_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);
  NatterTurnItem *item = self->timeline != NULL ? natter_timeline_model_lookup_any (self->timeline, turn_id) : NULL;
  g_autofree char *text = item != NULL ? natter_turn_item_dup_input_text (item) : NULL;

  if (text == NULL)
    return;
  g_free (self->editing_turn_id);
  self->editing_turn_id = g_strdup (turn_id);
  natter_composer_set_text (self->composer, text);
  carry_attachments (self, item, turn_id);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
  natter_conversation_view_set_editing (self->conversation_view, TRUE);
  _natter_window_update_keyboard_actions (self);
}

/* Back to an ordinary message: the edited words and attachments go,
 * nothing was sent. */
static void
cancel_edit_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->editing_turn_id == NULL)
    return;
  g_clear_pointer (&self->editing_turn_id, g_free);
  natter_conversation_view_set_editing (self->conversation_view, FALSE);
  natter_composer_set_text (self->composer, NULL);
  g_ptr_array_unref (natter_composer_take_attachments (self->composer));
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
  _natter_window_update_keyboard_actions (self);
}

static gboolean
open_version_cb (gpointer user_data)
{
  NatterWindow *self = user_data;
  g_autofree char *session_id = g_steal_pointer (&self->open_version_session);
  g_autofree char *turn_id = g_steal_pointer (&self->open_version_turn);

  self->open_version_id = 0;
  if (natter_window_open_session (self, session_id))
    _natter_window_reveal_turn (self, turn_id);
  return G_SOURCE_REMOVE;
}

/* Another version opens where the one left was: at its version of the
 * message, not at the bottom of its conversation. Not from inside the
 * arrow's click: GTK is still handling the press and the release of the
 * button, and opening the other conversation now would take the button
 * away under it (GTK then asks a freed widget where the pointer and the
 * focus are). The last arrow pressed wins. */
static void
open_version_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id;
  const char *turn_id;

  g_variant_get (parameter, "(&s&s)", &session_id, &turn_id);
  g_free (self->open_version_session);
  g_free (self->open_version_turn);
  self->open_version_session = g_strdup (session_id);
  self->open_version_turn = g_strdup (turn_id);
  if (self->open_version_id == 0)
    self->open_version_id = g_idle_add (open_version_cb, self);
}

void
_natter_window_class_versions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.edit-message", "s", edit_message_activated);
  gtk_widget_class_install_action (widget_class, "win.open-version", "(ss)", open_version_activated);
  gtk_widget_class_install_action (widget_class, "win.cancel-edit", NULL, cancel_edit_activated);
}
