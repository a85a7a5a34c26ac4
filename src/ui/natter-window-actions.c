/* natter-window-actions.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's win.* actions: new, search, rename, model settings, delete
 * with an undo toast, try again, branch, continue, resume, retry, the
 * shortcuts window.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-models-dialog.h"
#include "natter-name-dialog.h"
#include "natter-parameters-dialog.h"
#include "natter-permission-card.h"
#include "natter-permissions-list.h"
#include "natter-plain-text.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-default-title.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-sessions-settings.h"
#include "natter-store-error.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

/* Actions */

/* A new conversation, shown empty: nothing is written before its first
 * message, so unused new chats never pile up in the list. */
static void
new_chat_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->sessions == NULL)
    return;
  _natter_window_open_new_chat (self);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

static void
search_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->sidebar_pane);
  natter_sidebar_start_search (self->session_sidebar);
}

static void
set_title_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_set_conversation_title_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, NULL, _("The conversation was not renamed"), error, NULL);
}

/* natter_session_title_check() as a name dialog asks it. */
static gboolean
title_check (const char  *title,
             gpointer     user_data,
             GError     **error)
{
  return natter_session_title_check (title, error);
}

static void
rename_response_cb (NatterNameDialog *dialog,
                    const char       *response,
                    NatterWindow     *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");
  g_autofree char *title = natter_name_dialog_dup_name (dialog);

  if (g_strcmp0 (response, "accept") != 0 || title == NULL)
    return;
  natter_sessions_set_conversation_title_async (self->sessions, session_id, title, self->cancellable,
                                                set_title_cb, g_object_ref (self));
}

/* Checked as it is typed with the session layer's own rule, so that a
 * title it would refuse never closes the dialog and loses what was typed
 * (natter-name-dialog.c); a title an older file holds may already be one
 * that cannot be kept. The conversation renamed is the target's
 * (_natter_window_dup_target()), which is not opened for it. */
static void
rename_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = _natter_window_dup_target (self, parameter);
  NatterSessionIndexEntry *entry = _natter_window_lookup_target (self, session_id, TRUE);
  GtkWidget *dialog;

  if (entry == NULL)
    return;
  dialog = natter_name_dialog_new (GTK_WINDOW (self), _("Rename Conversation"), _("_Rename"), _("Title"),
                                   natter_session_index_entry_get_title (entry), title_check, NULL, NULL);
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_steal_pointer (&session_id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog)));
}

static void
set_parameters_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_set_parameters_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, NULL, _("The model settings were not kept"), error, NULL);
}

/* Each member of @saved the person left as the dialog showed it (@shown)
 * takes what the conversation keeps @now: a setting changed elsewhere
 * while the dialog was open (`natter params`, another window) is not
 * undone by a Save that did not touch it. */
static void
keep_untouched (NatterGenerationParameters       *saved,
                const NatterGenerationParameters *shown,
                const NatterGenerationParameters *now)
{
  g_autoptr(NatterGenerationParameters) none = natter_generation_parameters_new ();

  shown = shown != NULL ? shown : none;
  now = now != NULL ? now : none;
  if (saved->has_temperature == shown->has_temperature &&
      (!saved->has_temperature || saved->temperature == shown->temperature))
    {
      saved->has_temperature = now->has_temperature;
      saved->temperature = now->temperature;
    }
  if (saved->has_top_p == shown->has_top_p && (!saved->has_top_p || saved->top_p == shown->top_p))
    {
      saved->has_top_p = now->has_top_p;
      saved->top_p = now->top_p;
    }
  if (saved->max_tokens == shown->max_tokens)
    saved->max_tokens = now->max_tokens;
  if (saved->has_seed == shown->has_seed && (!saved->has_seed || saved->seed == shown->seed))
    {
      saved->has_seed = now->has_seed;
      saved->seed = now->seed;
    }
  if (g_strcmp0 (saved->system_instruction, shown->system_instruction) == 0)
    natter_generation_parameters_set_system_instruction (saved, now->system_instruction);
}

static void
parameters_response_cb (NatterParametersDialog *dialog,
                        const char             *response,
                        NatterWindow           *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");
  g_autoptr(NatterGenerationParameters) parameters = NULL;

  if (g_strcmp0 (response, "save") == 0)
    {
      parameters = natter_parameters_dialog_dup_parameters (dialog);
      /* Save is disabled while a field cannot be read. */
      g_return_if_fail (parameters != NULL);
      keep_untouched (parameters, g_object_get_data (G_OBJECT (dialog), "shown"),
                      natter_sessions_get_kept_parameters (self->sessions, session_id));
    }
  else if (g_strcmp0 (response, "defaults") != 0)
    return;
  natter_sessions_set_parameters_async (self->sessions, session_id, parameters, self->cancellable,
                                        set_parameters_cb, g_object_ref (self));
}

/* The conversation's settings changed while its dialog is open: the
 * fields the person left as they were follow, and Save compares with
 * what they show now. */
static void
kept_changed_cb (NatterSessions         *sessions,
                 const char             *changed_id,
                 NatterParametersDialog *dialog)
{
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");
  const NatterGenerationParameters *now = natter_sessions_get_kept_parameters (sessions, session_id);
  const NatterGenerationParameters *shown = g_object_get_data (G_OBJECT (dialog), "shown");

  if (natter_generation_parameters_equal (shown, now))
    return;
  natter_parameters_dialog_follow (dialog, shown, now);
  g_object_set_data_full (G_OBJECT (dialog), "shown", now != NULL ? natter_generation_parameters_copy (now) : NULL,
                          (GDestroyNotify) natter_generation_parameters_free);
}

/* The conversation's generation parameters (docs/sessions.md §15), for
 * the session shown: a version's are its original's. */
static void
parameters_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const NatterGenerationParameters *kept;
  GtkWidget *dialog;

  if (!_natter_window_open_is_usable (self))
    return;
  kept = natter_sessions_get_kept_parameters (self->sessions, self->conversation.session_id);
  dialog = natter_parameters_dialog_new (GTK_WINDOW (self), kept);
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (self->conversation.session_id), g_free);
  /* What the fields began with: Save changes only what was changed. */
  if (kept != NULL)
    g_object_set_data_full (G_OBJECT (dialog), "shown", natter_generation_parameters_copy (kept),
                            (GDestroyNotify) natter_generation_parameters_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (parameters_response_cb), self, 0);
  g_signal_connect_object (self->sessions, "session-index-changed", G_CALLBACK (kept_changed_cb), dialog, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

typedef struct
{
  NatterWindow *window;
  char         *session_id;
} DeleteRequest;

static void
delete_request_free (DeleteRequest *request)
{
  g_object_unref (request->window);
  g_free (request->session_id);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DeleteRequest, delete_request_free)

static void
delete_session_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(DeleteRequest) request = user_data;
  g_autoptr(GError) error = NULL;
  gboolean deleted = natter_sessions_delete_session_finish (NATTER_SESSIONS (source), result, &error);

  /* The index entry is gone once deleted; a session that could not be
   * deleted is listed again, beside the error saying so. */
  if (request->window->session_sidebar != NULL)
    natter_sidebar_set_hidden (request->window->session_sidebar, request->session_id, FALSE);
  if (!deleted && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (request->window, NULL, _("The conversation was not deleted"), error, NULL);
}

/* A conversation's title in a toast's sentence, as the sidebar shows it:
 * an older file's control characters and a title's bidirectional
 * overrides as their stand-ins (natter-plain-text.c), so that neither
 * breaks or turns around the sentence it is in, and a long one cut so
 * that the sentence is read to its end. */
static char *
toast_title (NatterSessionIndexEntry *entry)
{
  const char *title = natter_session_index_entry_get_title (entry);

  if (title == NULL || title[0] == '\0')
    return g_strdup (_("New chat"));
  return _natter_window_toast_name (title);
}

/* Where @session_id's conversation sits in the list: pinned or not, and
 * its folder. */
static char *
placement_of (NatterWindow *self,
              const char   *session_id)
{
  const char *folder_id = natter_sessions_get_folder_id (self->sessions, session_id);

  return g_strdup_printf ("%d\t%s", natter_sessions_get_pinned (self->sessions, session_id),
                          folder_id != NULL ? folder_id : "");
}

/* Whether the conversation, the deleted session its only version, was
 * pinned, unpinned or moved while its toast was up (`natter pin`,
 * `natter folder`): the change, which the command reported done, would
 * go with it. A conversation with versions left keeps the change. */
static gboolean
placed_since (NatterWindow *self,
              AdwToast     *toast,
              const char   *session_id)
{
  g_autofree char *placement = NULL;

  if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (toast), "n-versions")) > 1)
    return FALSE;
  placement = placement_of (self, session_id);
  return g_strcmp0 (placement, g_object_get_data (G_OBJECT (toast), "placement")) != 0;
}

typedef enum
{
  DELETE_GOES,
  KEPT_GROWN,
  KEPT_ANSWERED,
  KEPT_PLACED,
} DeleteFate;

/* What becomes of a deletion whose toast goes (or whose window closes):
 * a message came to the conversation while the toast was up (`natter
 * send` from a script, a queued message, another device), its answer
 * that waited for the person was let go on (`natter allow`, `deny`,
 * `answer`: a tool may have run for it), or it was pinned or moved:
 * deleting it now would take away an answer nobody saw go, or what a
 * command reported done, so it is kept. */
static DeleteFate
delete_fate (NatterWindow            *self,
             AdwToast                *toast,
             const char              *session_id,
             NatterSessionIndexEntry *entry)
{
  guint n_turns = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (toast), "turn-count"));

  if (natter_session_index_entry_get_turn_count (entry) != n_turns)
    return KEPT_GROWN;
  if (g_object_get_data (G_OBJECT (toast), "waited") != NULL &&
      g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "suspended") != 0)
    return KEPT_ANSWERED;
  if (placed_since (self, toast, session_id))
    return KEPT_PLACED;
  return DELETE_GOES;
}

/* A conversation kept (delete_fate()) is listed again, and a toast says
 * why. */
static gboolean
relist_if_kept (NatterWindow *self,
                AdwToast     *toast,
                const char   *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), session_id);
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  DeleteFate fate;
  AdwToast *kept;

  if (entry == NULL)
    return FALSE;
  fate = delete_fate (self, toast, session_id, entry);
  if (fate == DELETE_GOES)
    return FALSE;
  natter_sidebar_set_hidden (self->session_sidebar, session_id, FALSE);
  title = toast_title (entry);
  if (fate == KEPT_GROWN)
    /* Translators: %s is a conversation title */
    text = g_strdup_printf (_("“%s” was kept: a message came to it after you deleted it"), title);
  else if (fate == KEPT_ANSWERED)
    /* Translators: %s is a conversation title */
    text = g_strdup_printf (_("“%s” was kept: what its answer waited for was given after you deleted it"),
                            title);
  else
    /* Translators: %s is a conversation title */
    text = g_strdup_printf (_("“%s” was kept: it was pinned or moved after you deleted it"), title);
  escaped = g_markup_escape_text (text, -1);
  kept = adw_toast_new (escaped);
  natter_toast_guard_add (self->toast_overlay, kept);
  return TRUE;
}

/* The toast went away without Undo: now the file goes. */
void
_natter_window_delete_toast_dismissed_cb (AdwToast     *toast,
                                          NatterWindow *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (toast), "session-id");
  DeleteRequest *request;

  if (g_hash_table_lookup (self->sidebar.pending_deletes, session_id) != toast)
    return;
  g_hash_table_remove (self->sidebar.pending_deletes, session_id);
  if (relist_if_kept (self, toast, session_id))
    {
      _natter_window_update_keyboard_actions (self);
      return;
    }
  g_hash_table_remove (self->conversation.drafts, session_id);
  g_hash_table_remove (self->conversation.draft_edits, session_id);
  g_hash_table_remove (self->conversation.timelines, session_id);
  _natter_window_update_keyboard_actions (self);
  request = g_new0 (DeleteRequest, 1);
  request->window = g_object_ref (self);
  request->session_id = g_strdup (session_id);
  natter_sessions_delete_session_async (self->sessions, session_id, NULL, delete_session_cb, request);
}

/* A deletion carried out as the window closes: the application is held
 * until it is done, so that quitting does not end the process under it. */
typedef struct
{
  GApplication *application;  /* nullable */
  char         *session_id;
} ClosingDelete;

static void
closing_delete_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ClosingDelete *closing = user_data;
  g_autoptr(GError) error = NULL;

  /* No window is left to say it in: the log says it. A conversation
   * that stays is listed again the next time. */
  if (!natter_sessions_delete_session_finish (NATTER_SESSIONS (source), result, &error))
    g_message ("Could not delete the conversation %s you deleted before closing: %s",
               closing->session_id, error->message);
  if (closing->application != NULL)
    {
      g_application_release (closing->application);
      g_object_unref (closing->application);
    }
  g_free (closing->session_id);
  g_free (closing);
}

/**
 * _natter_window_finish_pending_deletes:
 * @self: the window, closing
 *
 * Carries out every deletion whose undo toast is still up, as the
 * toasts going would: the person asked for it, and closing is not an
 * Undo. A conversation a message came to, or pinned or moved meanwhile,
 * is kept, as it is when its toast goes (delete_fate()). The window's application is held until each
 * deletion is done; one that fails is logged, the conversation staying.
 */
void
_natter_window_finish_pending_deletes (NatterWindow *self)
{
  g_autoptr(GHashTable) pending = NULL;
  GtkApplication *application = gtk_window_get_application (GTK_WINDOW (self));
  GHashTableIter iter;
  const char *session_id;
  AdwToast *toast;

  if (self->sidebar.pending_deletes == NULL || g_hash_table_size (self->sidebar.pending_deletes) == 0)
    return;
  /* Taken first: the toasts, dismissed as the window goes, then find no
   * deletion of theirs to carry out a second time. */
  pending = g_steal_pointer (&self->sidebar.pending_deletes);
  self->sidebar.pending_deletes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, (gpointer *) &session_id, (gpointer *) &toast))
    {
      NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions),
                                                                    session_id);
      ClosingDelete *closing;

      if (entry == NULL)
        continue;
      switch (delete_fate (self, toast, session_id, entry))
        {
        case KEPT_GROWN:
          g_message ("The conversation %s you deleted was kept: a message came to it after you deleted it",
                     session_id);
          continue;
        case KEPT_ANSWERED:
          g_message ("The conversation %s you deleted was kept: what its answer waited for was given "
                     "after you deleted it", session_id);
          continue;
        case KEPT_PLACED:
          g_message ("The conversation %s you deleted was kept: it was pinned or moved after you deleted it",
                     session_id);
          continue;
        case DELETE_GOES:
        default:
          break;
        }
      closing = g_new0 (ClosingDelete, 1);
      closing->session_id = g_strdup (session_id);
      if (application != NULL)
        {
          closing->application = g_object_ref (G_APPLICATION (application));
          g_application_hold (closing->application);
        }
      natter_sessions_delete_session_async (self->sessions, session_id, NULL, closing_delete_cb, closing);
    }
}

static void
undo_delete_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id = g_variant_get_string (parameter, NULL);
  g_autoptr(AdwToast) toast = NULL;
  gboolean was_open;

  toast = g_hash_table_lookup (self->sidebar.pending_deletes, session_id);
  if (toast == NULL)
    return;
  g_object_ref (toast);
  was_open = g_object_get_data (G_OBJECT (toast), "was-open") != NULL;
  /* Undone, the deletion takes its toast with it, whichever way the Undo
   * came: its button (which dismisses the toast itself as well), Ctrl+Z,
   * or the action activated from anywhere else, which left the toast up
   * over the conversation that was back. The guard dismisses it once it
   * has finished appearing (libadwaita 1.2 frees a toast twice when it is
   * dismissed during its show animation), and leaves a toast its button
   * has dismissed meanwhile alone. Without its pending entry, its going
   * away deletes nothing. */
  g_hash_table_remove (self->sidebar.pending_deletes, session_id);
  natter_toast_guard_dismiss (self->toast_overlay, toast);
  natter_sidebar_set_hidden (self->session_sidebar, session_id, FALSE);
  /* What was open comes back open; a row deleted beside it comes back
   * to the list, the conversation open now staying so. */
  if (was_open)
    natter_window_open_session (self, session_id);
  _natter_window_update_keyboard_actions (self);
}

/* The position of the row that lists one of @versions (the first is
 * the one just hidden), or GTK_INVALID_LIST_POSITION. */
static guint
kept_version_position (NatterWindow *self,
                       GStrv         versions)
{
  for (guint i = 1; versions != NULL && versions[i] != NULL; i++)
    {
      guint position = natter_sidebar_find_position (self->session_sidebar, versions[i]);

      if (position != GTK_INVALID_LIST_POSITION)
        return position;
    }
  return GTK_INVALID_LIST_POSITION;
}

/* The undo toast of @session_id's deletion, which remembers what the
 * conversation was as it went (delete_fate()) and whether it was the
 * open one, which its undo opens again. */
static AdwToast *
delete_toast_new (NatterWindow            *self,
                  const char              *session_id,
                  NatterSessionIndexEntry *entry,
                  guint                    n_versions,
                  gboolean                 was_open)
{
  g_autofree char *title = toast_title (entry);
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  /* Delete takes the version shown; a conversation with others stays
   * listed, and the toast says so rather than that it is gone. */
  if (n_versions > 1)
    /* Translators: %s is a conversation title, %u a number */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                         "This version of “%s” deleted; its %u other version is kept",
                                         "This version of “%s” deleted; its %u other versions are kept",
                                         n_versions - 1),
                            title, n_versions - 1);
  else
    /* Translators: %s is a conversation title */
    text = g_strdup_printf (_("“%s” deleted"), title);
  /* A toast's title is Pango markup, and a title is the user's text. */
  escaped = g_markup_escape_text (text, -1);

  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-delete");
  adw_toast_set_action_target_value (toast, g_variant_new_string (session_id));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "session-id", g_strdup (session_id), g_free);
  g_object_set_data (G_OBJECT (toast), "turn-count",
                     GUINT_TO_POINTER (natter_session_index_entry_get_turn_count (entry)));
  g_object_set_data (G_OBJECT (toast), "n-versions", GUINT_TO_POINTER (n_versions));
  g_object_set_data (G_OBJECT (toast), "was-open", GINT_TO_POINTER (was_open));
  if (g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "suspended") == 0)
    g_object_set_data (G_OBJECT (toast), "waited", GINT_TO_POINTER (TRUE));
  g_object_set_data_full (G_OBJECT (toast), "placement", placement_of (self, session_id), g_free);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (_natter_window_delete_toast_dismissed_cb), self, 0);
  return toast;
}

/* The target's conversation (_natter_window_dup_target()) is hidden
 * behind an undo toast; the file goes when the toast does. Another
 * conversation than the open one is deleted without being opened: the
 * open one stays as it is. */
static void
delete_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = _natter_window_dup_target (self, parameter);
  g_auto(GStrv) versions = NULL;
  NatterSessionIndexEntry *entry;
  AdwToast *toast;
  gboolean open;
  guint position;
  guint n_versions;

  /* The row an arrow selected just now is the open one, even while its
   * turns are still being read. */
  if (session_id != NULL && g_strcmp0 (session_id, self->opening.id) == 0)
    _natter_window_finish_opening (self);
  entry = _natter_window_lookup_target (self, session_id, FALSE);
  if (entry == NULL)
    return;
  open = g_strcmp0 (session_id, self->conversation.session_id) == 0;
  position = natter_sidebar_find_position (self->session_sidebar, session_id);
  n_versions = natter_sidebar_get_n_versions (self->session_sidebar, session_id);
  versions = natter_sidebar_dup_versions (self->session_sidebar, session_id);
  toast = delete_toast_new (self, session_id, entry, n_versions, open);
  g_hash_table_insert (self->sidebar.pending_deletes, g_strdup (session_id), g_object_ref (toast));

  g_free (self->sidebar.last_deleted_id);
  self->sidebar.last_deleted_id = g_strdup (session_id);
  /* Ctrl+Z undoes this one before a folder deleted earlier. */
  self->folders.deleted_last = FALSE;

  if (open)
    _natter_window_close_session (self);
  natter_sidebar_set_hidden (self->session_sidebar, session_id, TRUE);
  if (open)
    natter_sidebar_select (self->session_sidebar, NULL);
  /* High priority replaces the toast on screen: only once it has
   * finished appearing (libadwaita 1.2). */
  natter_toast_guard_add (self->toast_overlay, toast);
  _natter_window_update_keyboard_actions (self);
  /* The row below takes the deleted one's place (or the one above, at the
   * end of the list), so a keyboard user goes on from where they were.
   * A conversation with versions kept stays listed, as the toast says,
   * its row showing a version that stays: the focus stays on it, and a
   * second Delete takes that version, never the next conversation. */
  if (n_versions > 1 && kept_version_position (self, versions) != GTK_INVALID_LIST_POSITION)
    position = kept_version_position (self, versions);
  if (open)
    _natter_window_focus_sidebar_position (self, position);
  /* Another row than the open one's: the focus goes on down the list,
   * opening nothing. */
  else if (!natter_sidebar_focus_position (self->session_sidebar, position, FALSE))
    gtk_widget_child_focus (self->sidebar_pane, GTK_DIR_TAB_FORWARD);
}

/* Another answer to the same message is a new version of it, answered
 * or failed alike: the turn shown stays one arrow away, and the history
 * the model receives holds the message once. */
static void
try_again_activated (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);

  if (self->conversation.timeline == NULL || natter_timeline_model_lookup_any (self->conversation.timeline, turn_id) == NULL)
    return;
  _natter_window_send_again (self, turn_id, FALSE);
}

static void
fork_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  session_id = natter_sessions_fork_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The branch could not be made"), error, NULL);
      return;
    }
  natter_window_open_session (self, session_id);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

/* A new session with the history up to and including the turn
 * (a branch, docs/sessions.md §3); the original stays as it is. It is
 * asked of the conversation shown, whose settings it takes, also
 * for a turn shown from the history it was branched from: the session
 * service finds the turn's owner, a deleted one too. */
static void
branch_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);

  if (self->conversation.session_id == NULL || self->sessions == NULL)
    return;
  natter_sessions_fork_async (self->sessions, self->conversation.session_id, turn_id,
                              NULL, self->cancellable, fork_cb, g_object_ref (self));
}

/* The shortcuts window is made when asked for and is destroyed when
 * closed, never kept hidden the way GtkApplication keeps
 * gtk/help-overlay.ui for each window. GTK 4.8's accessibility root
 * answers a request for a child past its visible windows (a screen reader
 * that counted a dialog that has closed since) with the last toplevel,
 * hidden or not, and a hidden window has no object path: a critical, and
 * then a crash. With no window kept hidden, the last toplevel is one that
 * shows. */
/* GTK fills in the keys of an entry named by its action only for the
 * window it keeps hidden (gtk_application_window_set_help_overlay());
 * this one is made here, so its entries get the application's keys
 * here, the same ones natter-application.c binds. */
static void
fill_in_action_keys (GtkBuilder     *builder,
                     GtkApplication *application)
{
  g_autoptr(GSList) objects = gtk_builder_get_objects (builder);

  for (GSList *l = objects; l != NULL && application != NULL; l = l->next)
    {
      g_autofree char *action_name = NULL;
      g_auto(GStrv) accels = NULL;
      g_autofree char *accelerator = NULL;

      if (!GTK_IS_SHORTCUTS_SHORTCUT (l->data))
        continue;
      g_object_get (l->data, "action-name", &action_name, NULL);
      if (action_name == NULL)
        continue;
      accels = gtk_application_get_accels_for_action (application, action_name);
      accelerator = g_strjoinv (" ", accels);
      g_object_set (l->data, "accelerator", accelerator, NULL);
    }
}

/* A message a search found, from its button in the sidebar. */
static void
open_search_hit_activated (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id;
  const char *turn_id;

  g_variant_get (parameter, "(&s&s)", &session_id, &turn_id);
  if (natter_window_open_session_at (self, session_id, turn_id))
    adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static void
show_help_overlay_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autoptr(GtkBuilder) builder = NULL;

  if (self->keyboard.help_overlay == NULL)
    {
      builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-help-overlay.ui");
      self->keyboard.help_overlay = GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
      fill_in_action_keys (builder, gtk_window_get_application (GTK_WINDOW (self)));
      g_object_add_weak_pointer (G_OBJECT (self->keyboard.help_overlay), (gpointer *) &self->keyboard.help_overlay);
      gtk_window_set_transient_for (self->keyboard.help_overlay, GTK_WINDOW (self));
      gtk_window_set_destroy_with_parent (self->keyboard.help_overlay, TRUE);
    }
  gtk_window_present (self->keyboard.help_overlay);
}

/* Transient feedback from inside a row, e.g. "Message copied". */
static void
show_toast_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  /* Toast titles are Pango markup; the text may hold a name. */
  g_autofree char *escaped = g_markup_escape_text (g_variant_get_string (parameter, NULL), -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 2);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* A branch's "Open": the conversation it was made from, if it is still
 * there (natter-branch-row.c). */
static void
open_branched_from_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (!natter_window_open_session (self, g_variant_get_string (parameter, NULL)))
    gtk_widget_activate_action (widget, "win.show-toast", "s",
                                _("The conversation this was branched from is no longer available."));
}

/* A conversation named by a facet that cannot open one itself (a toast's
 * Open: words dictated for it, natter-window-voice.c), shown with the
 * conversation side in view when the window is narrow. */
static void
open_conversation_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (!natter_window_open_session (self, g_variant_get_string (parameter, NULL)))
    {
      gtk_widget_activate_action (widget, "win.show-toast", "s", _("The conversation is no longer available."));
      return;
    }
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

/* The error bar's Retry: the message that was not sent, again, with its
 * files. Its words and files were put back into the composer: they go
 * from there now. */
static void
retry_send_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autoptr(NatterMessageRequest) request = NULL;
  g_autofree char *draft = NULL;

  if (self->errors.retry_request == NULL || g_strcmp0 (self->errors.session_id, self->conversation.session_id) != 0)
    return;
  request = natter_message_request_copy (self->errors.retry_request);
  draft = natter_composer_dup_text (self->conversation.composer);
  if (g_strcmp0 (draft, natter_message_request_get_text (request)) == 0)
    {
      natter_composer_set_text (self->conversation.composer, NULL);
      g_ptr_array_unref (natter_composer_take_attachments (self->conversation.composer));
      g_hash_table_remove (self->conversation.drafts, self->conversation.session_id);
    }
  _natter_window_send_request_again (self, request);
}

static void
continue_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  /* The limit's transcript is complete; a new turn picks it up
   * (docs/sessions.md §9). */
  _natter_window_send_text (NATTER_WINDOW (widget), _("Continue."), FALSE);
}

static void
resume_turn_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  turn_id = natter_sessions_resume_turn_finish (NATTER_SESSIONS (source), result, &error);
  if (turn_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, self->conversation.session_id, _("The answer could not be continued"), error, NULL);
  _natter_window_update_composer (self);
}

static void
resume_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->conversation.session_id == NULL)
    return;
  natter_conversation_view_stick_to_bottom (self->conversation.view);
  natter_sessions_resume_turn_async (self->sessions, self->conversation.session_id, self->cancellable,
                                     resume_turn_cb, g_object_ref (self));
}

static void
take_over_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  turn_id = natter_sessions_take_over_turn_finish (NATTER_SESSIONS (source), result, &error);
  if (turn_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, self->conversation.session_id, _("The answer could not be continued"), error, NULL);
  _natter_window_update_composer (self);
}

static void
take_over_response_cb (AdwMessageDialog *dialog,
                       const char       *response,
                       NatterWindow     *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");

  if (!g_str_equal (response, "continue") || g_strcmp0 (session_id, self->conversation.session_id) != 0)
    return;
  natter_conversation_view_stick_to_bottom (self->conversation.view);
  natter_sessions_take_over_turn_async (self->sessions, session_id, self->cancellable, take_over_cb,
                                        g_object_ref (self));
}

/* "Continue Here…" of an answer another device was writing
 * (docs/sync.md): never without asking, since were that device still
 * at it, both would write the answer. */
static void
continue_here_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  NatterSessionIndexEntry *entry;
  const char *device;
  g_autofree char *body = NULL;
  AdwMessageDialog *dialog;

  if (self->conversation.session_id == NULL)
    return;
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), self->conversation.session_id);
  device = entry != NULL ? natter_session_index_entry_get_latest_turn_device_name (entry) : NULL;
  /* Translators: %s is the name of another computer */
  body = g_strdup_printf (_("This answer is being written on “%s”. Continue it here only if that device stopped "
                            "in the middle of it: it was switched off, or Natter closed there before the answer "
                            "was done. If it is still at work, both devices would write the answer."),
                          device != NULL ? device : _("another device"));
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Continue the Answer Here?"), body));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "continue", _("Continue _Here"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "continue", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (self->conversation.session_id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (take_over_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* The conversation's permission grants, with Revoke (docs/sessions.md §12). */
static void
permissions_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->conversation.session_id == NULL)
    return;
  gtk_window_present (GTK_WINDOW (natter_permissions_dialog_new (GTK_WINDOW (self), self->sessions,
                                                                 self->conversation.session_id)));
}

/* The models on the server of the provider the picker lists, else the
 * default one (docs/runtime.md §13). */
static void
manage_models_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *provider = natter_model_picker_get_provider_id (self->choice.model_picker);

  if (provider == NULL)
    provider = self->choice.provider_id;
  if (self->choice.registry == NULL || provider == NULL)
    {
      AdwToast *toast = adw_toast_new (_("No provider is set up: add one in Preferences"));

      adw_toast_overlay_add_toast (self->toast_overlay, toast);
      return;
    }
  gtk_window_present (GTK_WINDOW (natter_models_dialog_new (GTK_WINDOW (self), self->choice.registry, provider)));
}

static void
go_back_cb (NatterWindow *self)
{
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

void
_natter_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, go_back_cb);
  gtk_widget_class_install_action (widget_class, "win.new-chat", NULL, new_chat_activated);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_activated);
  gtk_widget_class_install_action (widget_class, "win.rename", "s", rename_activated);
  gtk_widget_class_install_action (widget_class, "win.parameters", NULL, parameters_activated);
  gtk_widget_class_install_action (widget_class, "win.delete", "s", delete_activated);
  gtk_widget_class_install_action (widget_class, "win.permissions", NULL, permissions_activated);
  gtk_widget_class_install_action (widget_class, "win.manage-models", NULL, manage_models_activated);
  gtk_widget_class_install_action (widget_class, "win.undo-delete", "s", undo_delete_activated);
  gtk_widget_class_install_action (widget_class, "win.try-again", "s", try_again_activated);
  gtk_widget_class_install_action (widget_class, "win.continue-turn", "s", continue_activated);
  gtk_widget_class_install_action (widget_class, "win.resume-turn", "s", resume_activated);
  gtk_widget_class_install_action (widget_class, "win.continue-turn-here", "s", continue_here_activated);
  gtk_widget_class_install_action (widget_class, "win.branch-from-turn", "s", branch_activated);
  gtk_widget_class_install_action (widget_class, "win.show-toast", "s", show_toast_activated);
  gtk_widget_class_install_action (widget_class, "win.open-branched-from", "s", open_branched_from_activated);
  gtk_widget_class_install_action (widget_class, "win.open-conversation", "s", open_conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.retry-send", NULL, retry_send_activated);
  gtk_widget_class_install_action (widget_class, "win.show-help-overlay", NULL, show_help_overlay_activated);
  gtk_widget_class_install_action (widget_class, "win.open-search-hit", "(ss)", open_search_hit_activated);
}

