/* natter-error-words.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NatterTranslateFunc:
 * @msgid: a text of Natter's message catalogue
 * @user_data: whose language it is looked up in
 *
 * Returns: (transfer none): the translation of @msgid, or @msgid
 */
typedef const char *(*NatterTranslateFunc) (const char *msgid,
                                            gpointer    user_data);

char *natter_error_reason           (const GError        *error);
char *natter_error_words_translate  (const char          *message,
                                     NatterTranslateFunc  translate,
                                     gpointer             user_data);
char *natter_error_words_local      (const char          *message);

G_END_DECLS
