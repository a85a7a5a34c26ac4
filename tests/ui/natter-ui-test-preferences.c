/* natter-ui-test-preferences.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Preferences window: waiting until it has nothing under way, and
 * destroying it once the work its pages started has ended.
 */

#include "natter-ui-test-world.h"

#include "natter-preferences-window-private.h"

static gboolean
preferences_idle (gpointer window)
{
  return natter_preferences_window_get_n_pending (window) == 0;
}

/**
 * ui_wait_preferences_idle:
 * @window: a Preferences window
 *
 * Waits until @window (and the pages that count their work with it) has
 * nothing under way, and has shown what it did.
 */
void
ui_wait_preferences_idle (NatterPreferencesWindow *window)
{
  ui_wait_until (preferences_idle, window);
  ui_settle ();
}

/**
 * ui_destroy_preferences_window:
 * @window: (transfer none): a Preferences window the test presented
 *
 * Destroys @window, lets the work its pages started (a key read, a
 * server's listing) end, and asserts that it is then finalized.
 */
void
ui_destroy_preferences_window (NatterPreferencesWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  while (weak != NULL && natter_preferences_window_get_n_pending (weak) > 0)
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 100 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (weak);
}
