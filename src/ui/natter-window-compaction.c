/* natter-window-compaction.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's compaction (docs/sessions.md §5): "Compact
 * Conversation" in the conversation menu (win.compact) and "Compact and
 * Continue" on a turn that failed because the conversation no longer
 * fits the model's context window (win.compact-and-continue), which
 * sends the failed message again as a new version of it, compacted
 * first (natter-send-pipeline.c).
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-window-private.h"

/* The latest turns a compaction from the window keeps whole. */
#define KEEP_TURNS 2

typedef struct
{
  NatterWindow *self;
  char         *session_id;
} Compaction;

static void
compaction_free (Compaction *compaction)
{
  g_object_unref (compaction->self);
  g_free (compaction->session_id);
  g_free (compaction);
}

/* The service's compaction errors name the turn and the session for the
 * command line; the window says the same in plain words (transfer full).
 * A summary that failed keeps its reason, which names no ids. */
static GError *
plain_error (const GError *error)
{
  const char *text = NULL;

  if (error->domain == NATTER_SESSION_ERROR)
    switch (error->code)
      {
      case NATTER_SESSION_ERROR_TURN_NOT_SETTLED:
        text = _("An answer is still being written, or the conversation changed meanwhile. "
                 "Wait for the answer or stop it, then try again.");
        break;
      case NATTER_SESSION_ERROR_INVALID_ARGUMENT:
        if (!g_str_has_prefix (error->message, "The summary could not be made"))
          text = _("There are not enough earlier messages to summarize yet.");
        break;
      case NATTER_SESSION_ERROR_NOT_FOUND:
        text = _("The conversation no longer exists.");
        break;
      case NATTER_SESSION_ERROR_CORRUPT:
        text = _("The conversation's history is damaged.");
        break;
      case NATTER_SESSION_ERROR_LOCKED:
        text = _("Another Natter is writing to this conversation. Try again in a moment.");
        break;
      default:
        break;
      }
  return g_error_new_literal (error->domain, error->code, text != NULL ? text : error->message);
}

static void
compacted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Compaction *compaction = user_data;
  NatterWindow *self = compaction->self;
  g_autofree char *compaction_id = NULL;
  g_autoptr(GError) error = NULL;

  compaction_id = natter_sessions_compact_finish (NATTER_SESSIONS (source), result, &error);
  if (compaction_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autoptr(GError) plain = plain_error (error);

          _natter_window_show_error (self, compaction->session_id, _("The conversation could not be compacted"),
                                     plain, NULL);
        }
    }
  else
    gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", _("Earlier messages summarized"));
  compaction_free (compaction);
}

static void
start (NatterWindow *self)
{
  Compaction *compaction;

  /* The actions are off while the latest turn runs (see
   * _natter_window_update_keyboard_actions()); a compaction then could
   * only fail, so it never starts nor says it is summarizing. */
  if (!_natter_window_open_is_usable (self) || _natter_window_latest_is_running (self))
    return;
  compaction = g_new0 (Compaction, 1);
  compaction->self = g_object_ref (self);
  compaction->session_id = g_strdup (self->conversation.session_id);
  _natter_window_hide_error (self);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", _("Summarizing earlier messages…"));
  natter_sessions_compact_async (self->sessions, compaction->session_id, KEEP_TURNS, self->cancellable,
                                 compacted_cb, compaction);
}

static void
compact_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  start (NATTER_WINDOW (widget));
}

/* After an answer overflowed the model's window: the same message again,
 * as a new version of it, once the earlier turns are summarized. The
 * failed turn stays in its version; the model receives the message once. */
static void
compact_and_continue_activated (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);

  if (!_natter_window_open_is_usable (self) || _natter_window_latest_is_running (self) ||
      self->conversation.timeline == NULL ||
      natter_timeline_model_lookup_any (self->conversation.timeline, turn_id) == NULL)
    return;
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", _("Summarizing earlier messages…"));
  _natter_window_send_again (self, turn_id, TRUE);
}

void
_natter_window_class_compaction_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.compact", NULL, compact_activated);
  gtk_widget_class_install_action (widget_class, "win.compact-and-continue", "s", compact_and_continue_activated);
}
