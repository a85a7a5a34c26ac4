/* natter-ask-human-card.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model's question of a pending `ask_human` call (docs/sessions.md
 * §9.2, §10.4): the question, an entry and Send, which answers through
 * respond_to_ask_human — never through send_message. Rendered from the
 * suspended turn's reduced state, so it survives a restart.
 */

#define G_LOG_DOMAIN "natter-ask-human-card"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-ask-human-card.h"

struct _NatterAskHumanCard
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *turn_id;
  char           *tool_call_id;
  GCancellable   *cancellable;

  /* Template children */
  GtkLabel       *question_label;
  GtkEntry       *entry;
  GtkButton      *send_button;
  GtkLabel       *error_label;
  gboolean        answering;
};

G_DEFINE_FINAL_TYPE (NatterAskHumanCard, natter_ask_human_card, GTK_TYPE_WIDGET)

static void
update_send_sensitivity (NatterAskHumanCard *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->entry));

  gtk_widget_set_sensitive (GTK_WIDGET (self->send_button),
                            gtk_widget_get_sensitive (GTK_WIDGET (self->entry)) && text[0] != '\0');
}

static void
respond_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterAskHumanCard) self = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = natter_sessions_respond_to_ask_human_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (outcome == NULL && error != NULL)
    {
      self->answering = FALSE;
      gtk_label_set_text (self->error_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      gtk_widget_set_sensitive (GTK_WIDGET (self->entry), TRUE);
      update_send_sensitivity (self);
    }
}

static gboolean
holds_focus (NatterAskHumanCard *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  return focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self));
}

/**
 * natter_ask_human_card_send:
 * @self: a card
 *
 * Sends the entry's text as the answer, as the Send button does.
 */
void
natter_ask_human_card_send (NatterAskHumanCard *self)
{
  const char *answer;

  g_return_if_fail (NATTER_IS_ASK_HUMAN_CARD (self));

  answer = gtk_editable_get_text (GTK_EDITABLE (self->entry));
  if (answer[0] == '\0' || !gtk_widget_get_sensitive (GTK_WIDGET (self->entry)))
    return;
  /* The entry goes insensitive under the keyboard: the window places the
   * focus first (the next waiting prompt, else the composer), as GTK's own
   * later move would land anywhere. */
  self->answering = TRUE;
  if (holds_focus (self))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.leave-prompt", NULL);
  gtk_widget_set_sensitive (GTK_WIDGET (self->entry), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  update_send_sensitivity (self);
  natter_sessions_respond_to_ask_human_async (self->sessions, self->turn_id, self->tool_call_id,
                                              answer, self->cancellable,
                                              respond_cb, g_object_ref (self));
}

static void
send_cb (NatterAskHumanCard *self)
{
  natter_ask_human_card_send (self);
}

static void
natter_ask_human_card_dispose (GObject *object)
{
  GtkWidget *child;
  NatterAskHumanCard *self = NATTER_ASK_HUMAN_CARD (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_ASK_HUMAN_CARD);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_ask_human_card_parent_class)->dispose (object);
}

static void
natter_ask_human_card_finalize (GObject *object)
{
  NatterAskHumanCard *self = NATTER_ASK_HUMAN_CARD (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->cancellable);
  g_free (self->turn_id);
  g_free (self->tool_call_id);

  G_OBJECT_CLASS (natter_ask_human_card_parent_class)->finalize (object);
}

static void
natter_ask_human_card_class_init (NatterAskHumanCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_ask_human_card_dispose;
  object_class->finalize = natter_ask_human_card_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-ask-human-card.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAskHumanCard, question_label);
  gtk_widget_class_bind_template_child (widget_class, NatterAskHumanCard, entry);
  gtk_widget_class_bind_template_child (widget_class, NatterAskHumanCard, send_button);
  gtk_widget_class_bind_template_child (widget_class, NatterAskHumanCard, error_label);
  gtk_widget_class_bind_template_callback (widget_class, send_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_send_sensitivity);
  gtk_widget_class_set_css_name (widget_class, "natter-ask-human-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_ask_human_card_init (NatterAskHumanCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  update_send_sensitivity (self);
}

/**
 * natter_ask_human_card_new:
 * @sessions: the session service the answer goes to
 * @turn_id: the suspended turn
 * @tool_call_id: the pending `ask_human` call
 * @question: (nullable): the model's question
 *
 * Creates a card whose Send calls
 * natter_sessions_respond_to_ask_human_async() for this call.
 *
 * Returns: (transfer floating): a new card
 */
GtkWidget *
natter_ask_human_card_new (NatterSessions *sessions,
                           const char     *turn_id,
                           const char     *tool_call_id,
                           const char     *question)
{
  NatterAskHumanCard *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (turn_id != NULL && tool_call_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_ASK_HUMAN_CARD, NULL);
  self->sessions = g_object_ref (sessions);
  self->turn_id = g_strdup (turn_id);
  self->tool_call_id = g_strdup (tool_call_id);
  gtk_label_set_text (self->question_label,
                      question != NULL && question[0] != '\0' ? question : _("The assistant asks for your input."));
  return GTK_WIDGET (self);
}

/**
 * natter_ask_human_card_get_tool_call_id:
 * @self: a card
 *
 * Returns: (transfer none): the `ask_human` tool call this card answers,
 *   the id respond_to_ask_human() is called with (docs/sessions.md §9)
 */
const char *
natter_ask_human_card_get_tool_call_id (NatterAskHumanCard *self)
{
  g_return_val_if_fail (NATTER_IS_ASK_HUMAN_CARD (self), NULL);
  return self->tool_call_id;
}

/**
 * natter_ask_human_card_set_answer:
 * @self: a card
 * @answer: text for the entry
 *
 * Fills the entry, as typing would.
 */
void
natter_ask_human_card_set_answer (NatterAskHumanCard *self,
                                  const char         *answer)
{
  g_return_if_fail (NATTER_IS_ASK_HUMAN_CARD (self));
  gtk_editable_set_text (GTK_EDITABLE (self->entry), answer);
}

/**
 * natter_ask_human_card_focus_default:
 * @self: a question card
 *
 * Gives the keyboard focus to the answer entry, so the answer is typed at
 * once and Enter sends it: a question must be answerable from the
 * keyboard alone. A question already answered takes no focus.
 *
 * Returns: whether the card took the focus
 */
gboolean
natter_ask_human_card_focus_default (NatterAskHumanCard *self)
{
  g_return_val_if_fail (NATTER_IS_ASK_HUMAN_CARD (self), FALSE);

  if (self->answering)
    return FALSE;
  return gtk_widget_grab_focus (GTK_WIDGET (self->entry));
}
