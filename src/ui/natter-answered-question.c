/* natter-answered-question.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An answered ask_human call in a turn row, read as what it was: the
 * question the assistant asked and the person's answer. Its widgets are
 * declared in natter-answered-question.ui.
 */

#define G_LOG_DOMAIN "natter-turn-row"

#include "config.h"

#include "natter-answered-question.h"

struct _NatterAnsweredQuestion
{
  GtkBox    parent_instance;

  /* Template widgets */
  GtkLabel *question_label;
  GtkLabel *answer_label;
};

G_DEFINE_FINAL_TYPE (NatterAnsweredQuestion, natter_answered_question, GTK_TYPE_BOX)

static void
natter_answered_question_class_init (NatterAnsweredQuestionClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-answered-question.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAnsweredQuestion, question_label);
  gtk_widget_class_bind_template_child (widget_class, NatterAnsweredQuestion, answer_label);
}

static void
natter_answered_question_init (NatterAnsweredQuestion *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_answered_question_new:
 * @question: what the assistant asked
 * @answer: what the person answered
 *
 * Returns: (transfer floating): the question and its answer
 */
GtkWidget *
natter_answered_question_new (const char *question,
                              const char *answer)
{
  NatterAnsweredQuestion *self = g_object_new (NATTER_TYPE_ANSWERED_QUESTION, NULL);

  gtk_label_set_text (self->question_label, question);
  gtk_label_set_text (self->answer_label, answer);
  return GTK_WIDGET (self);
}
