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
  char         *copy;      /* the copy, once made */
  /* What the damaged conversation's header showed when it was asked
   * for, when it was open and usable (its picker shown). */
  gboolean      shown;
  NatterWindowCarriedChoice carried;
} Recovery;

static void
recovery_free (Recovery *recovery)
{
  g_object_unref (recovery->self);
  g_free (recovery->damaged);
  g_free (recovery->copy);
  _natter_window_carried_choice_clear (&recovery->carried);
  g_free (recovery);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Recovery, recovery_free)

/* What the copy of a damaged conversation says above its message field
 * (transfer full), from the report it was made by: where it ends (so
 * that a copy that holds nothing, the damage being in the first
 * message, is not taken for a failure), which message it left out, and
 * where that message's words are — in the field below, or nowhere,
 * since they cannot be read either. Said there rather than in a toast,
 * which at the bottom of the window would cover the very words it
 * speaks of. */
static char *
copy_note (const NatterSessionDamage *damage)
{
  guint position = damage->n_turns + 1;

  if (!damage->left_out && damage->n_turns == 0)
    return g_strdup (_("Nothing could be copied: the damage is before the first message."));
  if (!damage->left_out)
    return g_strdup (_("Copied the messages before the damage."));
  if (damage->message != NULL && damage->n_turns == 0)
    return g_strdup (_("Nothing could be copied: the damage is in the first message. Its words are in the "
                       "message field below, not sent."));
  if (damage->message != NULL)
    /* Translators: %u is the damaged message's place in the conversation (2 for the second) */
    return g_strdup_printf (_("Message %u could not be copied. Its words are in the message field below, not "
                              "sent."), position);
  if (damage->message_read && damage->n_turns == 0)
    return g_strdup (_("Nothing could be copied: the damage is in the first message, which had files and no "
                       "words to offer again."));
  if (damage->message_read)
    /* Translators: %u is the damaged message's place in the conversation (2 for the second) */
    return g_strdup_printf (_("Message %u could not be copied. It had files and no words to offer again."),
                            position);
  if (damage->n_turns == 0)
    return g_strdup (_("Nothing could be copied: the first message is damaged, and its words cannot be read "
                       "either."));
  /* Translators: %u is the damaged message's place in the conversation (2 for the second) */
  return g_strdup_printf (_("Message %u could not be copied, and its words cannot be read either."), position);
}

/* The copy goes on with the model and agent the damaged conversation
 * was going on with, not those of its last copied turn: what its header
 * showed, when it was open and usable; else (a conversation shown as
 * damaged, whose header shows none) a pick made for it in this window,
 * or the agent and model of its latest turn as its log lists them. */
static void
carry_choice (NatterWindow              *self,
              Recovery                  *recovery,
              const NatterSessionDamage *damage)
{
  NatterWindowCarriedChoice carried = { 0 };
  JsonObject *picked;
  const char *agent_id;

  if (recovery->shown)
    {
      _natter_window_carry_shown_choice (self, recovery->copy, &recovery->carried);
      return;
    }
  picked = g_hash_table_lookup (self->choice.chosen_models, recovery->damaged);
  agent_id = g_hash_table_lookup (self->choice.chosen_agents, recovery->damaged);
  carried.picked = picked != NULL ? json_object_ref (picked) : NULL;
  carried.last = damage->last_model != NULL ? json_object_ref (damage->last_model) : NULL;
  carried.agent_id = g_strdup (agent_id != NULL ? agent_id : damage->last_agent_id);
  _natter_window_carry_shown_choice (self, recovery->copy, &carried);
  _natter_window_carried_choice_clear (&carried);
}

/* The copy is made, and the report it was made by says what the damage
 * left out of it: the copy opens, with the words of the message it
 * could not hold (the first one after its end, whose turn is damaged
 * further on) in the message field, before any draft the damaged
 * conversation refused. Nothing is sent: the person reads it first. */
static void
recovered_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Recovery) recovery = user_data;
  NatterWindow *self = recovery->self;
  g_autoptr(NatterSessionDamage) damage = NULL;
  g_autoptr(GError) error = NULL;

  recovery->copy = natter_sessions_recover_finish (NATTER_SESSIONS (source), result, &damage, &error);
  if (recovery->copy == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The readable part could not be copied"), error, NULL);
      return;
    }
  if (damage->message != NULL)
    {
      const char *kept = g_hash_table_lookup (self->conversation.drafts, recovery->copy);

      g_hash_table_replace (self->conversation.drafts, g_strdup (recovery->copy),
                            kept != NULL ? g_strconcat (damage->message, "\n\n", kept, NULL)
                                         : g_strdup (damage->message));
    }
  /* The message the damaged history refused waits in the field, and is
   * meant for where the conversation goes on: the copy. */
  if (g_strcmp0 (self->conversation.session_id, recovery->damaged) == 0)
    _natter_window_close_session (self);
  _natter_window_move_draft (self, recovery->damaged, recovery->copy);
  g_hash_table_replace (self->conversation.recovery_notes, g_strdup (recovery->copy), copy_note (damage));
  carry_choice (self, recovery, damage);
  natter_window_open_session (self, recovery->copy);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static void
recover (NatterWindow *self,
         const char   *session_id)
{
  Recovery *recovery = g_new0 (Recovery, 1);

  recovery->self = g_object_ref (self);
  recovery->damaged = g_strdup (session_id);
  if (g_strcmp0 (self->conversation.session_id, session_id) == 0 && _natter_window_open_is_usable (self))
    {
      recovery->shown = TRUE;
      _natter_window_dup_choice (self, &recovery->carried);
    }
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
