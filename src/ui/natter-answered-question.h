/* natter-answered-question.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_ANSWERED_QUESTION (natter_answered_question_get_type ())

G_DECLARE_FINAL_TYPE (NatterAnsweredQuestion, natter_answered_question, NATTER, ANSWERED_QUESTION, GtkBox)

GtkWidget *natter_answered_question_new (const char *question,
                                         const char *answer);

G_END_DECLS
