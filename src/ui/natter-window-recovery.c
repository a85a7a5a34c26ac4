/* natter-window-recovery.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The way out of a conversation whose history cannot be read: the part
 * before the damage, copied into a new conversation that opens, from the
 * damaged conversation's page or from the error bar.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-window-private.h"

typedef struct
{
  NatterWindow *self;
  char         *damaged;   /* the conversation copied from */
} Recovery;

static void
recovery_free (Recovery *recovery)
{
  g_object_unref (recovery->self);
  g_free (recovery->damaged);
  g_free (recovery);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Recovery, recovery_free)

/* Says where the copy ends, so that a copy that holds nothing (the
 * damage is in the first message) is not taken for a failure. */
static void
say_where_copy_ends (NatterWindow *self,
                     const char   *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions),
                                                                session_id);
  AdwToast *toast;

  if (entry == NULL)
    return;
  toast = adw_toast_new (natter_session_index_entry_get_parent_session (entry) == NULL &&
                         natter_session_index_entry_get_turn_count (entry) == 0
                         ? _("Nothing could be copied: the damage is in the first message. "
                             "The new conversation starts empty.")
                         : _("Copied the messages before the damage into a new conversation"));
  adw_toast_set_timeout (toast, 5);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

static void
recovered_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Recovery) recovery = user_data;
  NatterWindow *self = recovery->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  session_id = natter_sessions_recover_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The readable part could not be copied"), error, NULL);
      return;
    }
  /* The message the damaged history refused waits in the field, and is
   * meant for where the conversation goes on: the copy. */
  if (g_strcmp0 (self->conversation.session_id, recovery->damaged) == 0)
    _natter_window_close_session (self);
  _natter_window_move_draft (self, recovery->damaged, session_id);
  natter_window_open_session (self, session_id);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  say_where_copy_ends (self, session_id);
}

static void
recover (NatterWindow *self,
         const char   *session_id)
{
  Recovery *recovery = g_new0 (Recovery, 1);

  recovery->self = g_object_ref (self);
  recovery->damaged = g_strdup (session_id);
  natter_sessions_recover_async (self->sessions, session_id, self->cancellable, recovered_cb, recovery);
}

/* "Copy Readable Part to a New Conversation" (docs/sessions.md
 * §6.2 stays true: the damaged file is only read). */
static void
copy_readable_part_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->sessions == NULL || self->errors.damage_session_id == NULL)
    return;
  recover (self, self->errors.damage_session_id);
}

/* The error bar's way out of a history that cannot be read: the part
 * before the damage, copied into a new conversation that opens. */
static void
recover_from_error_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = g_strdup (self->errors.session_id);

  if (self->sessions == NULL || session_id == NULL)
    return;
  _natter_window_hide_error (self);
  recover (self, session_id);
}

/* A turn row's way out of a history one of its earlier turns broke:
 * the open conversation's readable part (the parameter, the row's turn,
 * only says which row asked). */
static void
recover_conversation_activated (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = g_strdup (self->conversation.session_id);

  if (self->sessions == NULL || session_id == NULL)
    return;
  recover (self, session_id);
}

void
_natter_window_class_recovery_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.recover-from-error", NULL, recover_from_error_activated);
  gtk_widget_class_install_action (widget_class, "win.copy-readable-part", NULL, copy_readable_part_activated);
  gtk_widget_class_install_action (widget_class, "win.recover-conversation", "s", recover_conversation_activated);
}
