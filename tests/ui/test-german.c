/* test-german.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window in German (LANGUAGE=de over the build's own catalog, as a
 * German desktop has it). A provider's failure is stored in no one's
 * language, because the model reads it and a script may print it; the
 * window shows it in German all the same, its parts (the provider's
 * name, its address) as they were.
 */

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define STORED "Could not reach Ollama at http://127.0.0.1:9 — is it running?"

/* A failed turn says why in German, under the answer; the turn file
 * keeps the provider's own words. */
static void
test_provider_failure_in_german (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Unterwegs");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *failed;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_UNREACHABLE, NULL);
  turn_id = ui_send (u, session_id, "Wie wird das Wetter?");
  ui_wait_turn (u, turn_id);
  events = ui_get_turn (u, turn_id);
  failed = ui_find_event (events, "turn_failed", NULL);
  g_assert_nonnull (failed);
  g_assert_cmpstr (json_object_get_string_member (failed, "error"), ==, STORED);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_settle ();
  if (!ui_label_shown (natter_window_get_timeline_list (window),
                       "Fehlgeschlagen: Ollama unter http://127.0.0.1:9 ist nicht erreichbar – läuft der Dienst?"))
    g_error ("The failure is not said in German");
  g_assert_false (ui_label_shown (natter_window_get_timeline_list (window), "Failed: " STORED));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Compact Conversation when the provider cannot be reached: the error
 * bar's details line says the summary's and the provider's failure in
 * German. */
static void
test_error_bar_details_in_german (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Unterwegs");
  g_autofree char *expected = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_STEP_UNREACHABLE, NULL);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *turn_id = ui_send (u, session_id, "Und dann?");

      ui_wait_turn (u, turn_id);
    }
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compact", NULL));
  ui_wait_until (ui_error_bar_shown, window);
  expected = g_strdup_printf ("Die Zusammenfassung konnte nicht erstellt werden: %s",
                              "Ollama unter http://127.0.0.1:9 ist nicht erreichbar – läuft der Dienst?");
  g_assert_cmpstr (gtk_label_get_text (window->errors.detail), ==, expected);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *catalogs = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "..", "po", NULL);
  int status;

  /* A German desktop, whatever the test's environment. */
  g_setenv ("LC_ALL", "C.UTF-8", TRUE);
  g_setenv ("LANGUAGE", "de", TRUE);
  app = ui_test_init_with_app (&argc, &argv);
  /* gtk_test_init() sets a locale of its own (en_US, C where that is not
   * installed, which translates nothing). */
  setlocale (LC_ALL, "");
  /* As main.c sets it up, over the build's catalogs. */
  bindtextdomain (GETTEXT_PACKAGE, catalogs);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_assert_cmpstr (_("Failed: %s"), ==, "Fehlgeschlagen: %s");

  g_test_add_func ("/german/provider-failure", test_provider_failure_in_german);
  g_test_add_func ("/german/error-bar-details", test_error_bar_details_in_german);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
