/* natter-window-errors.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The error bar (what went wrong, in plain words, and one way on) and the
 * page of a damaged conversation (what is left of it, where the damage
 * is, and its folder). Copying the readable part of a damaged
 * conversation, which opens the copy, is natter-window-recovery.c's.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-error-words.h"
#include "natter-permission-card.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"
#include "natter-text-direction.h"
#include "natter-toast-guard.h"
#include "natter-visible-label.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

/* A damaged conversation's heading: two lines of the status page. */
#define DAMAGED_HEADING_CHARS 60

/* Notices
 *
 * A notice is a toast: something the person may want to know, not an
 * error (those go to the error bar). A toast keeps its title to one
 * line, cut short in a narrow window, so a notice is said in a few
 * words; the whole of it, a path or a reason included, is behind its
 * Details button, in a dialog. */

/**
 * _natter_window_show_details:
 * @self: the window
 * @heading: the dialog's heading, plain text
 * @details: the whole of what is to be said, plain text (it may quote a
 *   name, a path or a server's words)
 *
 * Shows @details in a dialog, wrapped and selectable, so that a path or
 * a reason can be copied.
 */
void
_natter_window_show_details (NatterWindow *self,
                             const char   *heading,
                             const char   *details)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, NULL);
  GtkWidget *label = gtk_label_new (details);

  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), label);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
notice_details_cb (AdwToast     *toast,
                   NatterWindow *self)
{
  _natter_window_show_details (self, g_object_get_data (G_OBJECT (toast), "title"),
                               g_object_get_data (G_OBJECT (toast), "details"));
}

/* Shows @title (a few words, plain text) in a toast; @details, when
 * not %NULL, are the whole of it, shown by the toast's Details button. */
void
_natter_window_show_notice (NatterWindow *self,
                            const char   *title,
                            const char   *details)
{
  /* Toast titles are Pango markup; the text may hold a name. */
  g_autofree char *escaped = g_markup_escape_text (title, -1);
  AdwToast *toast = adw_toast_new (escaped);

  if (details != NULL)
    {
      adw_toast_set_button_label (toast, _("_Details"));
      g_object_set_data_full (G_OBJECT (toast), "title", g_strdup (title), g_free);
      g_object_set_data_full (G_OBJECT (toast), "details", g_strdup (details), g_free);
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (notice_details_cb), self, 0);
      g_free (self->errors.last_notice_details);
      self->errors.last_notice_details = g_strdup (details);
    }
  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The error bar
 *
 * Errors are not toasts: a toast sits on the composer, goes away on its
 * own (or never, while the pointer rests on it) and cuts a long reason.
 * The bar sits under the header, above everything else; it says what did
 * not happen in plain words, then the whole reason (wrapped, selectable),
 * with the one action that helps, and stays until dismissed, until the
 * next message is sent, or until another conversation is opened. */

typedef enum
{
  ERROR_ACTION_NONE,
  ERROR_ACTION_PREFERENCES,
  ERROR_ACTION_RETRY,
  ERROR_ACTION_RECOVER,
} ErrorAction;

/* What @error means for the person using the window (transfer full),
 * and whether Preferences is where it is fixed. NULL when the error's
 * own message is all there is to say. */
static char *
explain_error (NatterWindow *self,
               const GError *error,
               gboolean     *in_preferences)
{
  *in_preferences = FALSE;
  if (error->domain == NATTER_RUNTIME_ERROR && error->code == NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND &&
      _natter_window_provider_is_missing (self, self->choice.provider_id))
    {
      g_autofree char *quoted = g_strdup_printf ("“%s”", self->choice.provider_id);

      /* The default names a provider that was deleted: say so, rather
       * than that something is "not set up". */
      if (strstr (error->message, quoted) != NULL)
        {
          *in_preferences = TRUE;
          /* Translators: %s is the id of a model provider that was deleted */
          return g_strdup_printf (_("The default provider “%s” no longer exists. Choose another one in Preferences."),
                                  self->choice.provider_id);
        }
    }
  if (error->domain == NATTER_RUNTIME_ERROR &&
      (error->code == NATTER_RUNTIME_ERROR_AGENT || error->code == NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND))
    {
      *in_preferences = TRUE;
      return g_strdup (_("The agent or its model is not set up. Choose them in Preferences."));
    }
  if (error->domain == NATTER_PROVIDER_ERROR)
    {
      *in_preferences = TRUE;
      return g_strdup (_("The provider could not be used. Check its address and key in Preferences."));
    }
  if (error->domain == NATTER_SESSION_ERROR)
    switch ((NatterSessionError) error->code)
      {
      case NATTER_SESSION_ERROR_TURN_NOT_SETTLED:
        return g_strdup (_("The previous answer has not finished yet: wait for it, stop it or continue it first."));
      case NATTER_SESSION_ERROR_NOT_FOUND:
        return g_strdup (_("This conversation no longer exists."));
      case NATTER_SESSION_ERROR_CORRUPT:
        return g_strdup (_("The conversation’s file is damaged, so nothing can be added to it. The file was not changed."));
      case NATTER_SESSION_ERROR_LOCKED:
        return g_strdup (_("Another Natter is using this data folder, so this window can show your conversations "
                           "but not change them: nothing was written."));
      case NATTER_SESSION_ERROR_HISTORY_DAMAGED:
        return g_strdup (_("An earlier message of this conversation cannot be read, so nothing was sent: the "
                           "model would not get the whole conversation. Copy the part before the damage into a "
                           "new conversation to go on; the damaged file is left as it is."));
      case NATTER_SESSION_ERROR_READ_ONLY:
        /* A copy of a conversation can be gone on from (docs/sync.md);
         * a copy of one answer cannot. */
        if (self->conversation.entry != NULL &&
            natter_sync_conflict_is_candidate (natter_session_index_entry_get_session_id (self->conversation.entry)) &&
            !natter_sync_conflict_is_candidate (natter_session_index_entry_get_latest_turn_id (self->conversation.entry)))
          return g_strdup (_("This version is another device’s copy of the conversation, kept when both devices "
                             "changed it at once, and is never changed: nothing was written. Send a message in it "
                             "first: in the new version that makes, every message can be edited, tried again and "
                             "branched from."));
        return g_strdup (_("This version is another device’s copy of the conversation, kept when both devices "
                           "changed it at once. It is read only: nothing was written."));
      case NATTER_SESSION_ERROR_ARRIVING:
        return g_strdup (_("A message of this conversation has not arrived from another device yet. Send again "
                           "once it has: nothing was written."));
      case NATTER_SESSION_ERROR_INVALID_ARGUMENT:
      default:
        break;
      }
  if (error->domain == NATTER_STORE_ERROR)
    return g_strdup (_("A conversation file could not be read or written."));
  /* What GIO says when the desktop has no application for a file or a
   * folder: nothing was read or written. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    return g_strdup (_("No application on this computer is set up to open it."));
  if (error->domain == G_IO_ERROR)
    return g_strdup (_("A file could not be read or written."));
  return NULL;
}

/* The error bar's one way on. */
static void
set_action (NatterWindow *self,
            ErrorAction   action)
{
  switch (action)
    {
    case ERROR_ACTION_PREFERENCES:
      gtk_button_set_label (self->errors.action_button, _("_Preferences"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->errors.action_button), "app.preferences");
      break;
    case ERROR_ACTION_RETRY:
      gtk_button_set_label (self->errors.action_button, _("_Retry"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->errors.action_button), "win.retry-send");
      break;
    case ERROR_ACTION_RECOVER:
      gtk_button_set_label (self->errors.action_button, _("_Copy Readable Part"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->errors.action_button), "win.recover-from-error");
      break;
    case ERROR_ACTION_NONE:
    default:
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->errors.action_button), NULL);
      break;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->errors.action_button), action != ERROR_ACTION_NONE);
}

typedef struct
{
  GWeakRef  window;
  char     *session_id;
} CorruptCheck;

static void
corrupt_check_free (CorruptCheck *check)
{
  g_weak_ref_clear (&check->window);
  g_free (check->session_id);
  g_free (check);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CorruptCheck, corrupt_check_free)

/* A send refused because the conversation's file is damaged (another
 * program wrote it while it was open) gets the damaged page's way on,
 * Copy Readable Part, once the file is known to have a readable part:
 * a file with none (a folder in its place) has nothing to copy. */
static void
corrupt_inspected_cb (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(CorruptCheck) check = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&check->window);
  NatterSessionDamage *damage = natter_sessions_inspect_damage_finish (NATTER_SESSIONS (source), result, NULL);
  gboolean can_copy = damage != NULL && damage->can_copy;

  g_clear_pointer (&damage, natter_session_damage_free);
  if (self == NULL || !can_copy || !gtk_revealer_get_reveal_child (self->errors.revealer) ||
      g_strcmp0 (self->errors.session_id, check->session_id) != 0 ||
      gtk_widget_get_visible (GTK_WIDGET (self->errors.action_button)))
    return;
  set_action (self, ERROR_ACTION_RECOVER);
}

/* Forgets which provider the bar's error is about. */
static void
clear_error_provider (NatterWindow *self)
{
  self->errors.about_provider = FALSE;
  self->errors.provider_is_default = FALSE;
  g_clear_pointer (&self->errors.provider_id, g_free);
  g_clear_pointer (&self->errors.provider_url, g_free);
}

void
_natter_window_hide_error (NatterWindow *self)
{
  gtk_revealer_set_reveal_child (self->errors.revealer, FALSE);
  g_clear_pointer (&self->errors.session_id, g_free);
  g_clear_pointer (&self->errors.retry_request, natter_message_request_free);
  clear_error_provider (self);
}

/* Whether @error is about reaching a provider or about its model, which
 * its settings in Preferences fix: not about a file, a conversation or
 * an agent. */
static gboolean
is_about_provider (const GError *error)
{
  return error->domain == NATTER_PROVIDER_ERROR ||
         g_error_matches (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND);
}

/* The base URL the settings give @provider_id now (transfer full), NULL
 * for a provider they no longer have. */
static char *
dup_provider_url (NatterWindow *self,
                  const char   *provider_id)
{
  g_autoptr(GPtrArray) providers = NULL;

  if (self->settings == NULL || provider_id == NULL)
    return NULL;
  providers = natter_settings_dup_providers (self->settings);
  for (guint i = 0; providers != NULL && i < providers->len; i++)
    {
      NatterProviderConfig *config = g_ptr_array_index (providers, i);

      if (g_strcmp0 (config->id, provider_id) == 0)
        return g_strdup (config->base_url);
    }
  return NULL;
}

/**
 * _natter_window_set_error_provider:
 * @self: the window
 * @provider_id: the provider the message went to
 *
 * Says which provider the error just shown is about, when it is not the
 * default one (a conversation's own model): its settings changing is
 * what takes the bar away.
 */
void
_natter_window_set_error_provider (NatterWindow *self,
                                   const char   *provider_id)
{
  if (!self->errors.about_provider || provider_id == NULL)
    return;
  g_free (self->errors.provider_id);
  self->errors.provider_id = g_strdup (provider_id);
  g_free (self->errors.provider_url);
  self->errors.provider_url = dup_provider_url (self, provider_id);
  self->errors.provider_is_default = FALSE;
}

/* The bar said a provider could not be reached or used, and what a
 * request to it goes out with changed: what was said may no longer be
 * true, and the next send says what is. An error about anything else
 * stays. */
static void
provider_settings_changed (NatterWindow *self,
                           gboolean      changed_default,
                           const char   *provider_id)
{
  g_autofree char *url = NULL;

  if (!self->errors.about_provider || !gtk_revealer_get_reveal_child (self->errors.revealer))
    return;
  if (provider_id != NULL)
    {
      /* That provider's key, or a successful test of it. */
      if (self->errors.provider_id != NULL && g_strcmp0 (provider_id, self->errors.provider_id) != 0)
        return;
    }
  else if (changed_default)
    {
      /* Another default provider or model: the default's error goes. */
      if (!self->errors.provider_is_default)
        return;
    }
  else
    {
      /* The list of providers: only a change of this one's address (or
       * its removal) counts. */
      url = dup_provider_url (self, self->errors.provider_id);
      if (self->errors.provider_id != NULL && url != NULL && g_strcmp0 (url, self->errors.provider_url) == 0)
        return;
    }
  _natter_window_hide_error (self);
}

/**
 * _natter_window_hide_provider_error:
 * @self: the window
 *
 * The person picked a model in the header: a bar saying a provider
 * could not be reached or used was about where the last message went,
 * which the next one no longer goes to; it goes, and the next send says
 * what is true of the new model. An error about anything else stays.
 */
void
_natter_window_hide_provider_error (NatterWindow *self)
{
  if (self->errors.about_provider && gtk_revealer_get_reveal_child (self->errors.revealer))
    _natter_window_hide_error (self);
}

static void
providers_changed_cb (NatterWindow *self)
{
  provider_settings_changed (self, FALSE, NULL);
}

static void
default_changed_cb (NatterWindow *self)
{
  provider_settings_changed (self, TRUE, NULL);
}

static void
provider_changed_cb (NatterWindow *self,
                     const char   *provider_id)
{
  provider_settings_changed (self, FALSE, provider_id);
}

/**
 * _natter_window_errors_watch:
 * @self: the window
 * @services: (nullable): the application's services
 *
 * Watches the provider settings (the window's settings, and @services
 * for keys and connection tests), so that an error bar about reaching a
 * provider goes once they change.
 */
void
_natter_window_errors_watch (NatterWindow   *self,
                             NatterServices *services)
{
  g_signal_connect_object (self->settings, "notify::providers", G_CALLBACK (providers_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "notify::default-provider", G_CALLBACK (default_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "notify::default-model", G_CALLBACK (default_changed_cb), self,
                           G_CONNECT_SWAPPED);
  if (services != NULL)
    g_signal_connect_object (services, "provider-changed", G_CALLBACK (provider_changed_cb), self,
                             G_CONNECT_SWAPPED);
}

/* Shows @heading (what did not happen, plain words) and @error's whole
 * reason in the error bar, about @session_id (NULL: not one conversation).
 * @retry, if any, is the message the Retry button sends again, files
 * included; offered only where sending it again can succeed. */
void
_natter_window_show_error (NatterWindow               *self,
                           const char                 *session_id,
                           const char                 *heading,
                           const GError               *error,
                           const NatterMessageRequest *retry)
{
  gboolean in_preferences;
  g_autofree char *plain = explain_error (self, error, &in_preferences);
  /* A provider's or a tool server's failure is in no one's language
   * (it may be stored); shown, it is in the window's. */
  g_autofree char *reason = natter_error_words_local (error->message);
  g_autofree char *detail = NULL;
  ErrorAction action = ERROR_ACTION_NONE;

  /* A copy's refusal says all its reason says, in plain words. */
  if (plain != NULL && g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_READ_ONLY))
    detail = g_steal_pointer (&plain);
  else if (plain != NULL)
    /* Translators: a plain explanation, then the precise reason */
    detail = g_strdup_printf (_("%s\nDetails: %s"), plain, reason);
  else
    detail = g_steal_pointer (&reason);

  if (in_preferences)
    action = ERROR_ACTION_PREFERENCES;
  else if (g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_HISTORY_DAMAGED) && session_id != NULL)
    action = ERROR_ACTION_RECOVER;
  else if (retry != NULL)
    action = ERROR_ACTION_RETRY;

  g_free (self->errors.session_id);
  self->errors.session_id = g_strdup (session_id);
  g_clear_pointer (&self->errors.retry_request, natter_message_request_free);
  clear_error_provider (self);
  if (is_about_provider (error))
    {
      g_autofree char *provider_id = self->choice.provider_id != NULL ? g_strdup (self->choice.provider_id)
                                     : self->settings != NULL ? natter_settings_dup_effective_provider (self->settings)
                                                              : NULL;

      /* The default provider, unless the sender says otherwise
       * (_natter_window_set_error_provider()). */
      self->errors.about_provider = TRUE;
      self->errors.provider_is_default = TRUE;
      self->errors.provider_id = g_strdup (provider_id);
      self->errors.provider_url = dup_provider_url (self, provider_id);
    }
  if (action == ERROR_ACTION_RETRY)
    self->errors.retry_request = natter_message_request_copy (retry);

  /* Plain text, never markup: the reason may quote a title or a server. */
  gtk_label_set_text (self->errors.heading, heading);
  gtk_label_set_text (self->errors.detail, detail);
  set_action (self, action);
  gtk_revealer_set_reveal_child (self->errors.revealer, TRUE);
  if (action == ERROR_ACTION_NONE && session_id != NULL && self->sessions != NULL &&
      g_error_matches (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT))
    {
      CorruptCheck *check = g_new0 (CorruptCheck, 1);

      g_weak_ref_init (&check->window, self);
      check->session_id = g_strdup (session_id);
      natter_sessions_inspect_damage_async (self->sessions, session_id, self->cancellable, corrupt_inspected_cb, check);
    }
}

/* The notice of a window that can only read
 *
 * A Natter started while another one uses the same data folder (one
 * without the session bus, or on another bus) cannot take its
 * single-writer lock: its services read and never write
 * (natter_sessions_get_write_refusal(), docs/sessions.md §8.3). The
 * window says so at the top of the conversation for as long as that
 * holds (it cannot be dismissed), the composer says why it cannot send,
 * and the actions that would write are off. A write asked another way
 * is refused by the services, and the error bar says so. Once the other
 * Natter has ended, these services take the lock: the notice goes, the
 * actions come back, and a toast says why (natter-window.c). */

/* Every window action that writes a conversation, a turn, a folder or
 * an attachment. */
static const char *const write_actions[] = {
  "win.new-chat", "win.rename", "win.parameters", "win.delete", "win.undo-delete", "win.permissions",
  "win.try-again", "win.continue-turn", "win.resume-turn", "win.continue-turn-here", "win.branch-from-turn",
  "win.retry-send", "win.import", "win.compact", "win.compact-and-continue", "win.edit-message", "win.stop",
  "win.pin", "win.unpin", "win.toggle-pin", "win.move-to-folder", "win.move-to-new-folder", "win.new-folder",
  "win.rename-folder", "win.delete-folder", "win.undo-delete-folder", "win.recover-from-error",
  "win.copy-readable-part", "win.recover-conversation",
};

/**
 * _natter_window_disable_writes:
 * @self: the window
 *
 * In a window that can only read, turns off every action that writes;
 * called last by whatever turns actions on. Does nothing otherwise.
 */
void
_natter_window_disable_writes (NatterWindow *self)
{
  if (self->errors.read_only == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (write_actions); i++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), write_actions[i], FALSE);
}

/**
 * _natter_window_show_read_only:
 * @self: the window, with its session service
 *
 * Shows the notice of a window that can only read, once its session
 * service says it writes nothing, and turns the writing actions off;
 * nothing when it writes. The caller then says in the composer why
 * nothing can be sent (_natter_window_update_composer()).
 */
void
_natter_window_show_read_only (NatterWindow *self)
{
  g_autofree char *detail = NULL;

  self->errors.read_only = self->sessions != NULL ? natter_sessions_get_write_refusal (self->sessions) : NULL;
  gtk_revealer_set_reveal_child (self->errors.read_only_revealer, self->errors.read_only != NULL);
  if (self->errors.read_only == NULL)
    return;
  /* Plain text, never markup: the reason names the data folder. */
  /* Translators: a plain explanation, then the precise reason */
  detail = g_strdup_printf (_("%s\nDetails: %s"),
                            _("This window can show your conversations but not change them until the other "
                              "Natter is closed. Then it can, without a restart."),
                            self->errors.read_only->message);
  gtk_label_set_text (self->errors.read_only_heading, _("Another Natter is using this data folder"));
  gtk_label_set_text (self->errors.read_only_detail, detail);
  _natter_window_disable_writes (self);
}

/**
 * natter_window_get_read_only_notice:
 * @self: the window
 *
 * The notice a window that can only read shows at the top of the
 * conversation (_natter_window_show_read_only()), for the tests.
 *
 * Returns: (transfer none): its revealer, revealed while it shows
 */
GtkWidget *
natter_window_get_read_only_notice (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->errors.read_only_revealer);
}

/**
 * natter_window_report_error:
 * @self: the window
 * @heading: what did not happen, in plain words (a translated sentence)
 * @error: why
 *
 * Shows @heading and @error's reason in the window's error bar, about
 * the open conversation: for what a widget of the conversation could not
 * do (an attachment that could not be opened).
 */
void
natter_window_report_error (NatterWindow *self,
                            const char   *heading,
                            const GError *error)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (heading != NULL && error != NULL);

  _natter_window_show_error (self, self->conversation.session_id, heading, error, NULL);
}

/* What a widget of the conversation could not do, said to the window
 * without knowing it (natter-attachment-chip.c): the heading, and the
 * error as its domain, code and message, so that it is explained as the
 * error itself would be. */
static void
report_error_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *heading, *domain, *message;
  int code;
  g_autoptr(GError) error = NULL;

  g_variant_get (parameter, "(&s&si&s)", &heading, &domain, &code, &message);
  error = g_error_new_literal (g_quark_from_string (domain), code, message);
  natter_window_report_error (self, heading, error);
}

static void
error_close_cb (NatterWindow *self)
{
  _natter_window_hide_error (self);
}

/* Damaged conversations: what is left of one, where the damage is, and
 * two ways on (its folder, and a copy of its readable part). */

static void
damage_actions_update (NatterWindow *self)
{
  gboolean current = self->errors.damage != NULL && g_strcmp0 (self->errors.damage_session_id, self->conversation.session_id) == 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-damaged-file",
                                 current && self->errors.damage->file != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-readable-part",
                                 current && self->errors.damage->can_copy && self->sessions != NULL);
  _natter_window_disable_writes (self);
}

/* What a copy would hold, and what becomes of the message it leaves
 * out (transfer full): said on the damaged page before the person
 * copies, so that a copy that holds nothing, or a message whose words
 * cannot be read, comes as no surprise. */
static char *
damage_copy_says (const NatterSessionDamage *damage)
{
  g_autofree char *holds = NULL;
  g_autofree char *left_out = NULL;
  guint position = damage->n_turns + 1;

  if (damage->n_turns > 0)
    holds = g_strdup (_("The part before the damage can be copied to a new conversation; "
                        "the file itself is left as it is."));
  else if (damage->left_out)
    holds = g_strdup (_("Nothing before the damage can be copied, since it is in the first message: a copy "
                        "starts empty. The file itself is left as it is."));
  else
    holds = g_strdup (_("No message before the damage can be read: a copy starts empty. The file itself is "
                        "left as it is."));
  if (!damage->left_out)
    return g_steal_pointer (&holds);
  if (damage->message != NULL)
    /* Translators: %u is the damaged message's place in the conversation (1 for the first) */
    left_out = g_strdup_printf (_("Message %u cannot be copied; its words, below, go to the copy’s message field, "
                                  "not sent."), position);
  else if (damage->message_read)
    /* Translators: %u is the damaged message's place in the conversation (1 for the first) */
    left_out = g_strdup_printf (_("Message %u cannot be copied; it has files and no words."), position);
  else
    /* Translators: %u is the damaged message's place in the conversation (1 for the first) */
    left_out = g_strdup_printf (_("Message %u cannot be copied, and not even its words can be read."), position);
  return g_strdup_printf ("%s %s", holds, left_out);
}

/* The damaged message's words, shown on the page as far as they read:
 * only to read (and select), never sent from here. */
static void
damage_show_message (NatterWindow *self)
{
  const NatterSessionDamage *damage = self->errors.damage;
  gboolean shown = damage != NULL && g_strcmp0 (self->errors.damage_session_id, self->conversation.session_id) == 0 &&
                   damage->reason != NULL && damage->left_out && damage->message != NULL;

  gtk_widget_set_visible (self->errors.damaged_message_box, shown);
  if (!shown)
    {
      gtk_label_set_text (self->errors.damaged_message_label, "");
      return;
    }
  {
    /* Translators: the heading above a damaged message's words; %u is its place in the conversation */
    g_autofree char *heading = g_strdup_printf (_("The Words of Message %u"), damage->n_turns + 1);

    gtk_label_set_text (self->errors.damaged_message_heading, heading);
  }
  natter_label_set_visible_text (self->errors.damaged_message_label, damage->message);
  natter_label_follow_text_direction (self->errors.damaged_message_label);
}

/**
 * _natter_window_enable_writes:
 * @self: the window, which writes now
 *
 * Turns every action that writes on again, then off again those that
 * what is shown here does not allow (the damaged conversation's); the
 * caller brings the others up to date (natter-window.c). For a window
 * that only read until the process that wrote the data folder ended
 * (docs/sessions.md §8.3).
 */
void
_natter_window_enable_writes (NatterWindow *self)
{
  for (gsize i = 0; i < G_N_ELEMENTS (write_actions); i++)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), write_actions[i], TRUE);
  damage_actions_update (self);
}

/* The reason in plain words, with the file's name; escaped, since the
 * status page's description is markup. */
static void
damage_describe (NatterWindow *self)
{
  const char *error = natter_session_index_entry_get_error (self->conversation.entry);
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;

  if (self->errors.damage != NULL && g_strcmp0 (self->errors.damage_session_id, self->conversation.session_id) == 0 &&
      self->errors.damage->reason != NULL)
    {
      g_autofree char *name = g_file_get_basename (self->errors.damage->file);
      g_autofree char *where = NULL;

      if (self->errors.damage->line > 0)
        /* Translators: %u is a line number, the first %s a file name, the second why it cannot be read */
        where = g_strdup_printf (_("Line %u of the file “%s” cannot be read: %s."),
                                 self->errors.damage->line, name, self->errors.damage->reason);
      else
        /* Translators: the first %s is a file name, the second why it cannot be read */
        where = g_strdup_printf (_("The file “%s” cannot be read: %s."), name, self->errors.damage->reason);
      if (self->errors.damage->can_copy)
        {
          g_autofree char *copy = damage_copy_says (self->errors.damage);

          text = g_strdup_printf ("%s %s", where, copy);
        }
      else
        text = g_steal_pointer (&where);
    }
  else
    text = g_strdup (error != NULL ? error : "");
  escaped = g_markup_escape_text (text, -1);
  adw_status_page_set_description (self->errors.errored_page, escaped);
  damage_show_message (self);
}

/* Holds the window weakly: opening a damaged session must not keep a
 * closed window alive until the file has been looked at. */
/* The page's way out became usable. Opening the conversation left the
 * keyboard nowhere, or on the page's own scrolled area (the message
 * field it was in went insensitive, and the buttons were not usable
 * yet): it goes to the first way out. Anywhere else (a row of the list)
 * it stays. */
static void
damage_focus_way_out (NatterWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *page = GTK_WIDGET (self->errors.errored_page);

  GtkWidget *copy = GTK_WIDGET (self->errors.copy_readable_button);
  GtkWidget *show_file = gtk_widget_get_next_sibling (copy);

  if (!gtk_widget_get_mapped (page) ||
      (focus != NULL && (!gtk_widget_is_ancestor (focus, page) || GTK_IS_BUTTON (focus))))
    return;
  /* Copy Readable Part, or Show File where nothing can be copied. */
  if (!gtk_widget_grab_focus (copy) && show_file != NULL)
    gtk_widget_grab_focus (show_file);
}

static void
damage_inspected_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GWeakRef *weak = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (weak);
  g_autoptr(GError) error = NULL;
  NatterSessionDamage *damage;

  g_weak_ref_clear (weak);
  g_free (weak);
  damage = natter_sessions_inspect_damage_finish (NATTER_SESSIONS (source), result, &error);
  if (damage == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Could not inspect the damaged session: %s", error->message);
      return;
    }
  if (self == NULL)
    {
      natter_session_damage_free (damage);
      return;
    }
  g_clear_pointer (&self->errors.damage, natter_session_damage_free);
  self->errors.damage = damage;
  if (self->conversation.entry != NULL && natter_session_index_entry_get_error (self->conversation.entry) != NULL &&
      g_strcmp0 (self->errors.damage_session_id, self->conversation.session_id) == 0)
    damage_describe (self);
  damage_actions_update (self);
  damage_focus_way_out (self);
}

/* Shows the open damaged session: its reason at once, the details and
 * actions once the readable part has been looked at. */
void
_natter_window_show_damage (NatterWindow *self)
{
  const char *title = natter_session_index_entry_get_title (self->conversation.entry);
  g_autofree char *heading = NULL;

  /* The heading stays a heading: a long title is shortened, whole in the
   * tooltip, so the explanation and the way out are in view. */
  if (title == NULL || title[0] == '\0')
    heading = g_strdup (_("This Conversation Is Damaged"));
  else if (g_utf8_strlen (title, -1) > DAMAGED_HEADING_CHARS)
    {
      g_autofree char *start = g_utf8_substring (title, 0, DAMAGED_HEADING_CHARS - 1);

      heading = g_strconcat (start, "…", NULL);
    }
  else
    heading = g_strdup (title);
  adw_status_page_set_title (self->errors.errored_page, heading);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->errors.errored_page),
                               title != NULL && g_strcmp0 (title, heading) != 0 ? title : NULL);
  if (g_strcmp0 (self->errors.damage_session_id, self->conversation.session_id) != 0)
    {
      g_clear_pointer (&self->errors.damage, natter_session_damage_free);
      g_free (self->errors.damage_session_id);
      self->errors.damage_session_id = g_strdup (self->conversation.session_id);
      if (self->sessions != NULL)
        {
          GWeakRef *weak = g_new0 (GWeakRef, 1);

          g_weak_ref_init (weak, self);
          natter_sessions_inspect_damage_async (self->sessions, self->conversation.session_id, self->cancellable,
                                                damage_inspected_cb, weak);
        }
    }
  damage_describe (self);
  damage_actions_update (self);
}

static void
file_manager_fallback_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, NULL, _("The folder could not be opened"), error, NULL);
}

/* No file manager answered ShowItems: open the containing folder with
 * the default application for it (through the portal in a sandbox). */
static void
open_folder (NatterWindow *self,
             GFile        *file)
{
  g_autoptr(GFile) folder = g_file_get_parent (file);
  g_autofree char *uri = g_file_get_uri (folder);
  g_autoptr(GdkAppLaunchContext) context =
    gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (self)));

  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           file_manager_fallback_cb, g_object_ref (self));
}

typedef struct
{
  NatterWindow *self;
  GFile        *file;
} ShowFile;

static void
show_file_free (ShowFile *show)
{
  g_object_unref (show->self);
  g_object_unref (show->file);
  g_free (show);
}

static void
show_items_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ShowFile *show = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_debug ("FileManager1.ShowItems failed: %s", error->message);
      open_folder (show->self, show->file);
    }
  show_file_free (show);
}

/* "Show File": the file selected in its folder by the desktop's file
 * manager (org.freedesktop.FileManager1), else the folder opened. */
static void
show_damaged_file_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  GDBusConnection *bus = g_application_get_dbus_connection (g_application_get_default ());
  g_autofree char *uri = NULL;
  const char *uris[2] = { NULL, NULL };
  ShowFile *show;

  if (self->errors.damage == NULL || self->errors.damage->file == NULL)
    return;
  if (bus == NULL)
    {
      open_folder (self, self->errors.damage->file);
      return;
    }
  uri = g_file_get_uri (self->errors.damage->file);
  uris[0] = uri;
  show = g_new0 (ShowFile, 1);
  show->self = g_object_ref (self);
  show->file = g_object_ref (self->errors.damage->file);
  g_dbus_connection_call (bus, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                          "org.freedesktop.FileManager1", "ShowItems",
                          g_variant_new ("(^ass)", uris, ""), NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, show_items_cb, show);
}

void
_natter_window_class_errors_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.report-error", "(ssis)", report_error_activated);
  gtk_widget_class_bind_template_callback (widget_class, error_close_cb);
  gtk_widget_class_install_action (widget_class, "win.show-damaged-file", NULL, show_damaged_file_activated);
}

