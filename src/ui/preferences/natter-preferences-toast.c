/* natter-preferences-toast.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The toasts of the Preferences pages. A page builds one here and hands
 * it up with its ::add-toast signal; the window that holds the page shows
 * it. Toast titles are markup in libadwaita 1.2 and what a toast says
 * (names, a server's reasons) is not, so the title is escaped here, once
 * for every page, and the words as they were are kept on the toast.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-preferences-toast.h"

#define TEXT_KEY "natter-preferences-toast-text"

/**
 * natter_preferences_toast_new:
 * @text: what the toast says, plain text (not markup)
 *
 * Builds a toast whose title shows @text as it is.
 *
 * Returns: (transfer full): the toast, for an ::add-toast signal
 */
AdwToast *
natter_preferences_toast_new (const char *text)
{
  g_autofree char *escaped = NULL;
  AdwToast *toast;

  g_return_val_if_fail (text != NULL, NULL);

  escaped = g_markup_escape_text (text, -1);
  toast = adw_toast_new (escaped);
  g_object_set_data_full (G_OBJECT (toast), TEXT_KEY, g_strdup (text), g_free);
  return toast;
}

/**
 * natter_preferences_toast_new_undo:
 * @text: what was done, plain text (not markup)
 *
 * Builds a toast that offers to undo what @text says was done: an Undo
 * button, and a high priority so that the next toast does not push it
 * away. The caller connects to its #AdwToast::button-clicked.
 *
 * Returns: (transfer full): the toast, for an ::add-toast signal
 */
AdwToast *
natter_preferences_toast_new_undo (const char *text)
{
  AdwToast *toast = natter_preferences_toast_new (text);

  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  return toast;
}

/**
 * natter_preferences_toast_set_text:
 * @toast: a toast built by natter_preferences_toast_new()
 * @text: what it says now, plain text (not markup)
 *
 * Changes what @toast says, on screen too if it shows, escaped as
 * natter_preferences_toast_new() escapes it.
 */
void
natter_preferences_toast_set_text (AdwToast   *toast,
                                   const char *text)
{
  g_autofree char *escaped = NULL;

  g_return_if_fail (ADW_IS_TOAST (toast));
  g_return_if_fail (text != NULL);

  escaped = g_markup_escape_text (text, -1);
  g_object_set_data_full (G_OBJECT (toast), TEXT_KEY, g_strdup (text), g_free);
  adw_toast_set_title (toast, escaped);
}

/**
 * natter_preferences_toast_get_text:
 * @toast: a toast
 *
 * Returns: (transfer none) (nullable): what a toast built by
 *   natter_preferences_toast_new() says, as plain text; NULL for another
 *   toast
 */
const char *
natter_preferences_toast_get_text (AdwToast *toast)
{
  g_return_val_if_fail (ADW_IS_TOAST (toast), NULL);
  return g_object_get_data (G_OBJECT (toast), TEXT_KEY);
}
