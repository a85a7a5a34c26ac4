/* natter-ui-test-init.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The start of every window test's process: GLib's test framework, GTK
 * and libadwaita, the session bus given the display, the log writer of
 * natter-ui-test-log.c installed, the `auto-title` setting off; and the
 * application the test's windows belong to.
 */

#include "natter-ui-test-world.h"

/* The suites run as `dbus-run-session -- xvfb-run …`: the session bus
 * starts before the display, so what it activates has no DISPLAY. The
 * answer view's hidden WebKitGTK view starts the accessibility bus, whose
 * registry then cannot synthesize a key press for the e2e tests that run
 * later on the same bus. Every UI test gives the bus the display first,
 * as dbus-update-activation-environment does. */
static void
give_bus_the_display (void)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariantBuilder) env = g_variant_builder_new (G_VARIANT_TYPE ("a{ss}"));
  g_autoptr(GVariant) reply = NULL;

  if (bus == NULL || g_getenv ("DISPLAY") == NULL)
    return;
  g_variant_builder_add (env, "{ss}", "DISPLAY", g_getenv ("DISPLAY"));
  if (g_getenv ("XAUTHORITY") != NULL)
    g_variant_builder_add (env, "{ss}", "XAUTHORITY", g_getenv ("XAUTHORITY"));
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "UpdateActivationEnvironment", g_variant_new ("(a{ss})", env), NULL,
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
}

/**
 * ui_test_init:
 * @argc: the test's argument count
 * @argv: the test's arguments
 *
 * Initialises GLib's test framework, GTK (gtk_test_init()) and
 * libadwaita: what every window test does first; and turns the
 * `auto-title` setting off (the memory backend keeps it for the process).
 */
void
ui_test_init (int    *argc,
              char ***argv)
{
  g_autoptr(GSettings) settings = NULL;

  g_log_set_writer_func (ui_log_writer, NULL, NULL);
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  give_bus_the_display ();
  /* The tests script every model call; the one that names a conversation
   * is asked for only where a test turns automatic titles back on. */
  settings = g_settings_new ("io.github.natter.Natter");
  g_settings_set_boolean (settings, "auto-title", FALSE);
}

/**
 * ui_test_init_with_app:
 * @argc: the test's argument count
 * @argv: the test's arguments
 *
 * ui_test_init(), then a registered application (ui_app_new()) for the
 * test's windows.
 *
 * Returns: (transfer full): the application; the test unrefs it after
 *   g_test_run().
 */
NatterApplication *
ui_test_init_with_app (int    *argc,
                       char ***argv)
{
  ui_test_init (argc, argv);
  return ui_app_new ();
}

/* A registered, non-unique application for the tests' windows
 * (transfer full). */
NatterApplication *
ui_app_new (void)
{
  g_autoptr(GError) error = NULL;
  NatterApplication *app;

  app = natter_application_new (natter_cli_get_commands ());
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("Could not register the application: %s", error->message);
  return app;
}
