/* natter-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-application"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-application.h"
#include "natter-window.h"

struct _NatterApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (NatterApplication, natter_application, ADW_TYPE_APPLICATION)

/* GApplication uniqueness (architecture.md, "Process and data"): a second
 * `natter` activates this primary instance, which presents its window. */
static void
natter_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (natter_window_new (NATTER_APPLICATION (app)));

  gtk_window_present (window);
}

static int
natter_application_handle_local_options (GApplication *app,
                                         GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("natter %s\n", PACKAGE_VERSION);
      return 0;
    }

  return -1;
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  const char *developers[] = { "The Natter developers", NULL };

  adw_show_about_window (parent,
                         "application-name", _("Natter"),
                         "application-icon", APP_ID,
                         "version", PACKAGE_VERSION,
                         "comments", _("Chat with language models, and never lose a word"),
                         "developers", developers,
                         "license-type", GTK_LICENSE_GPL_3_0,
                         NULL);
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
  { "about", about_activated },
};

static void
natter_application_startup (GApplication *app)
{
  const char *quit_accels[] = { "<Control>q", NULL };

  G_APPLICATION_CLASS (natter_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
}

static void
natter_application_class_init (NatterApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = natter_application_activate;
  app_class->startup = natter_application_startup;
  app_class->handle_local_options = natter_application_handle_local_options;
}

static void
natter_application_init (NatterApplication *self)
{
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}

/**
 * natter_application_new:
 *
 * Creates the Natter application (id `io.github.natter.Natter`, unique on
 * the session bus: architecture.md, "Process and data").
 *
 * Returns: (transfer full): a new #NatterApplication
 */
NatterApplication *
natter_application_new (void)
{
  return g_object_new (NATTER_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_DEFAULT_FLAGS,
                       "resource-base-path", "/io/github/natter/Natter",
                       NULL);
}
