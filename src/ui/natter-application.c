/* natter-application.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-application"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-application.h"
#include "natter-command-line.h"
#include "natter-first-frame-probe.h"
#include "natter-preferences-window.h"
#include "natter-window.h"
#include "natter-search-provider.h"

/* How long quitting may wait for writes in flight. */
#define FLUSH_TIMEOUT_MS 5000

struct _NatterApplication
{
  AdwApplication  parent_instance;

  NatterServices       *services;
  GError               *startup_error;
  NatterSearchProvider *search_provider;
  const NatterCommands *commands;
  AdwMessageDialog     *other_data_dir_dialog;  /* weak: shown while up */
  guint                 name_id;   /* the bus name asked for late (claim_bus_name()) */
};

G_DEFINE_FINAL_TYPE (NatterApplication, natter_application, ADW_TYPE_APPLICATION)

enum {
  PROP_0,
  PROP_SERVICES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* GApplication uniqueness (architecture.md, "Process and data"): a second
 * `natter` activates this primary instance, which presents its window;
 * one started for another data directory is refused, the window saying
 * so (refuse_other_data_dir()). */
/* The header's model picker resolves each session's provider in the
 * services' registry, with the defaults of the settings. */
static void
set_model_provider (NatterApplication *self,
                    NatterWindow      *window)
{
  g_autofree char *provider = natter_services_dup_default_provider (self->services);
  g_autofree char *model = natter_services_dup_default_model (self->services);

  natter_window_set_model_provider (window, natter_services_get_provider_registry (self->services),
                                    provider, model);
}

/* Preferences changed the providers or the defaults: the services have
 * already updated the registry (their handler was connected first), so
 * every window's picker resolves its provider again. */
static void
model_settings_changed_cb (NatterApplication *self)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (NATTER_IS_WINDOW (l->data))
      set_model_provider (self, l->data);
}

static void
natter_application_activate (GApplication *app)
{
  NatterApplication *self = NATTER_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    {
      window = GTK_WINDOW (natter_window_new (self,
                                              natter_services_get_sessions (self->services),
                                              natter_services_get_hub (self->services)));
      set_model_provider (self, NATTER_WINDOW (window));
      natter_window_set_agent_store (NATTER_WINDOW (window), natter_services_get_agent_store (self->services));
      natter_window_set_search_index (NATTER_WINDOW (window), natter_services_get_search_index (self->services));
    }

  gtk_window_present (window);
}

/* The key, in the platform data of a forwarded command line, of the data
 * directory the forwarding process was started for
 * (natter_application_add_platform_data()). */
#define PLATFORM_DATA_DIR "natter-data-dir"

/* The data directory a plain `natter` forwarded here was started for, or
 * %NULL when it did not say (a launch by D-Bus activation, or by an older
 * Natter). */
static GFile *
dup_forwarded_data_dir (GApplicationCommandLine *cmdline)
{
  g_autoptr(GVariant) platform_data = g_application_command_line_get_platform_data (cmdline);
  g_autoptr(GVariantDict) dict = NULL;
  const char *path = NULL;

  if (platform_data == NULL)
    return NULL;
  dict = g_variant_dict_new (platform_data);
  if (!g_variant_dict_lookup (dict, PLATFORM_DATA_DIR, "^&ay", &path) || path[0] == '\0')
    return NULL;
  return g_file_new_for_path (path);
}

/* A second `natter` started for another data directory than this one's
 * (NATTER_DATA_DIR) cannot be served by this window, which would show
 * its own conversations as if they were the other folder's; nor can it
 * run beside it, since both would be the one application to the desktop
 * (its name, its search provider, its settings). The window comes up and
 * says which folder it has open and how to open the other one
 * (natter_application_refuse_data_dir()); the second process fails,
 * saying the same on its standard error. Returns whether it was refused
 * so. */
static gboolean
refuse_other_data_dir (NatterApplication       *self,
                       GApplicationCommandLine *cmdline)
{
  g_autoptr(GFile) theirs = NULL;
  g_autofree char *our_path = NULL;
  g_autofree char *their_path = NULL;
  g_autofree char *message = NULL;

  if (!g_application_command_line_get_is_remote (cmdline) || self->services == NULL)
    return FALSE;
  theirs = dup_forwarded_data_dir (cmdline);
  if (theirs == NULL || natter_services_uses_data_dir (self->services, theirs))
    return FALSE;

  our_path = g_file_get_parse_name (natter_services_get_data_dir (self->services));
  their_path = g_file_get_parse_name (theirs);
  /* Translators: both %s are folders */
  message = g_strdup_printf (_("Natter is already open with the data folder %s; close it to open %s"),
                             our_path, their_path);
  g_application_command_line_printerr (cmdline, "natter: %s\n", message);
  natter_application_refuse_data_dir (self, theirs);
  return TRUE;
}

/* A plain `natter` presents the window; `natter SUBCOMMAND …`, typed here
 * or forwarded by a second process, runs headless against this window's
 * services, so the window shows its effects live and no second process
 * ever writes the data directory. */
static int
natter_application_command_line (GApplication            *app,
                                 GApplicationCommandLine *cmdline)
{
  NatterApplication *self = NATTER_APPLICATION (app);
  g_auto(GStrv) arguments = g_application_command_line_get_arguments (cmdline, NULL);

  if (arguments[0] == NULL || arguments[1] == NULL)
    {
      if (refuse_other_data_dir (self, cmdline))
        return 1;
      g_application_activate (app);
      return 0;
    }

  /* This window only reads (another process writes the directory): a
   * command that only reads runs here read only, as in the window. */
  if (self->startup_error != NULL && self->commands->needs_services ((const char * const *) arguments) &&
      !self->commands->reads_only ((const char * const *) arguments))
    {
      g_application_command_line_printerr (cmdline, "natter: %s\n", self->startup_error->message);
      return 1;
    }

  natter_command_line_run (self->commands, app, self->services, cmdline, NULL);
  return 0;
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

/* Every launch says which data directory it was started for (its
 * NATTER_DATA_DIR, else the default), as an absolute path, so that the
 * running Natter it is forwarded to can tell whether that is its own
 * (refuse_other_data_dir()). */
static void
natter_application_add_platform_data (GApplication    *app,
                                      GVariantBuilder *builder)
{
  g_autoptr(GFile) dir = natter_services_get_default_data_dir ();
  g_autofree char *path = g_file_get_path (dir);

  G_APPLICATION_CLASS (natter_application_parent_class)->add_platform_data (app, builder);
  if (path != NULL)
    g_variant_builder_add (builder, "{sv}", PLATFORM_DATA_DIR, g_variant_new_bytestring (path));
}

/* Quitting closes the windows, as their close buttons would: a window
 * first stops the answers still streaming, keeping what they said, and
 * the application ends with its last window. */
static void
quit_activated (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  g_autoptr(GPtrArray) windows = g_ptr_array_new_with_free_func (g_object_unref);

  /* A window may go as it closes: the list is taken first. */
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (user_data)); l != NULL; l = l->next)
    g_ptr_array_add (windows, g_object_ref (l->data));
  if (windows->len == 0)
    g_application_quit (G_APPLICATION (user_data));
  for (guint i = 0; i < windows->len; i++)
    gtk_window_close (windows->pdata[i]);
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

/* Preferences open for the services of this instance, over its window. */
static void
preferences_activated (GSimpleAction *action,
                       GVariant      *parameter,
                       gpointer       user_data)
{
  NatterApplication *self = NATTER_APPLICATION (user_data);
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  NatterPreferencesWindow *preferences;

  /* Without the schema there is nothing to edit (an uninstalled run). */
  if (self->services == NULL ||
      natter_settings_get_gsettings (natter_services_get_settings (self->services)) == NULL)
    return;
  preferences = natter_preferences_window_new (parent, self->services);
  gtk_window_present (GTK_WINDOW (preferences));
}

static const GActionEntry app_actions[] = {
  { "quit", quit_activated },
  { "about", about_activated },
  { "preferences", preferences_activated },
};

static void
index_loaded_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GApplication) app = user_data;
  g_autoptr(GError) error = NULL;
  NatterServices *services = NATTER_SERVICES (object);

  if (!natter_services_load_finish (services, result, &error))
    g_printerr ("natter: %s\n", error->message);
  else
    /* What another device brings shows while the window runs. */
    natter_services_watch_store (services);
  /* The search index's check of the files starts after the session scan,
   * so as not to slow the list down; only the data directory's writer
   * writes the cache, and removes what writes killed half-way left. A
   * window that only reads follows the writer's cache instead, which
   * says which conversations could not be read in full. */
  if (error == NULL)
    natter_search_index_start (natter_services_get_search_index (services));
  if (error == NULL && natter_services_has_writer_lock (services))
    natter_services_clean_up_leftovers (services, app);
  /* A window that only reads becomes the writer the moment the process
   * that writes ends (writer_lock_taken_cb()). */
  else if (error == NULL)
    natter_services_watch_writer_lock (services);
}

/* A window started beside a `natter` command
 * (natter_application_new_beside_command()) did not ask for the bus
 * name, which the command held. Once it writes the data folder (the
 * command has ended) it asks for the name, so that the `natter` commands
 * and launches that follow are handed to it, as to a window that started
 * first; run on their own, they would find the folder taken. Its objects
 * are on the bus already (a non-unique application exports them); the
 * request waits in the bus's queue for as long as the ended command's
 * connection is still going. */
static void
claim_bus_name (NatterApplication *self)
{
  GApplication *app = G_APPLICATION (self);
  GDBusConnection *bus = g_application_get_dbus_connection (app);

  if (self->name_id != 0 || bus == NULL || (g_application_get_flags (app) & G_APPLICATION_NON_UNIQUE) == 0)
    return;
  self->name_id = g_bus_own_name_on_connection (bus, g_application_get_application_id (app),
                                                G_BUS_NAME_OWNER_FLAGS_NONE, NULL, NULL, NULL, NULL);
}

/* The process that held the data folder ended, and this one took its
 * writer lock (natter_services_watch_writer_lock(), docs/sessions.md
 * §8.3): it does what a writer does at its start, as if it had just
 * started. Its windows follow the session service's read-only. */
static void
writer_lock_taken_cb (NatterApplication *self)
{
  NatterServices *services = self->services;

  if (!natter_services_has_writer_lock (services))
    return;
  g_clear_error (&self->startup_error);
  natter_search_index_start (natter_services_get_search_index (services));
  natter_services_clean_up_leftovers (services, G_APPLICATION (self));
  claim_bus_name (self);
}

/* GNOME Shell's overview search picked one of our conversations. */
static void
search_activate_result_cb (NatterSearchProvider *provider,
                           const char           *session_id,
                           guint                 timestamp,
                           NatterApplication    *self)
{
  g_application_activate (G_APPLICATION (self));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    if (NATTER_IS_WINDOW (l->data))
      {
        /* At the words found, not at the bottom. */
        natter_window_open_session_at (l->data, session_id,
                                       natter_search_provider_get_hit_turn (provider, session_id));
        gtk_window_present_with_time (l->data, timestamp);
        break;
      }
}

/* The primary instance owns the services and is the data directory's
 * only writer. Without the lock (another process, e.g. one without a
 * session bus or on another bus, writes it) the services refuse every
 * write and the window can still read, and shows why it cannot write:
 * natter_sessions_get_write_refusal() (docs/sessions.md §8.3), the same
 * error as natter_application_get_startup_error().
 *
 * The lock is taken before the bus name is owned, so that whoever finds
 * the name owned finds the directory taken too: a `natter` command that
 * finds the directory free while a Natter owns the name runs on its
 * own, taking that Natter for one on another directory
 * (natter_cli_application_run()). Taken at startup, once GTK is up, it
 * would leave a gap in which a command run then holds the directory
 * and this window stays unable to write for as long as it runs. */
static void
take_data_dir (NatterApplication *self)
{
  if (self->services != NULL)
    return;
  self->services = natter_services_new (NULL, NULL, NULL, NULL, NULL);
  natter_services_acquire_writer_lock (self->services, &self->startup_error);
  g_signal_connect_object (self->services, "notify::has-writer-lock", G_CALLBACK (writer_lock_taken_cb), self,
                           G_CONNECT_SWAPPED);
}

/* Exported before the bus name is owned, so the Shell's first call (which
 * may be what D-Bus-activated us) finds the provider; the index comes at
 * startup. The data directory is taken first (take_data_dir()). */
static gboolean
natter_application_dbus_register (GApplication     *app,
                                  GDBusConnection  *connection,
                                  const char       *object_path,
                                  GError          **error)
{
  NatterApplication *self = NATTER_APPLICATION (app);
  g_autofree char *path = g_strconcat (object_path, "/SearchProvider", NULL);

  if (!G_APPLICATION_CLASS (natter_application_parent_class)->dbus_register (app, connection, object_path, error))
    return FALSE;

  take_data_dir (self);
  self->search_provider = natter_search_provider_new (NULL);
  natter_search_provider_set_application (self->search_provider, app);
  g_signal_connect_object (self->search_provider, "activate-result",
                           G_CALLBACK (search_activate_result_cb), self, 0);
  g_signal_connect_object (self->search_provider, "launch-search",
                           G_CALLBACK (g_application_activate), self, G_CONNECT_SWAPPED);
  return natter_search_provider_register (self->search_provider, connection, path, error);
}

static void
natter_application_dbus_unregister (GApplication    *app,
                                    GDBusConnection *connection,
                                    const char      *object_path)
{
  NatterApplication *self = NATTER_APPLICATION (app);

  if (self->search_provider != NULL)
    natter_search_provider_unregister (self->search_provider);
  if (self->name_id != 0)
    {
      g_bus_unown_name (self->name_id);
      self->name_id = 0;
    }
  /* Another Natter owns the name: this process only hands it the
   * activation, and the directory (this one's lock, if it was free) is
   * not its to hold. */
  if (!g_application_get_is_registered (app))
    {
      g_clear_object (&self->services);
      g_clear_error (&self->startup_error);
    }

  G_APPLICATION_CLASS (natter_application_parent_class)->dbus_unregister (app, connection, object_path);
}

/* Every accelerator of the application, in one place, because every
 * feature must be usable from the keyboard alone:
 * data/gtk/help-overlay.ui lists each of them and
 * tests/ui/test-keyboard.c checks that the two agree. A window action
 * that does not apply right now is disabled, and its key then goes on to
 * the focused widget (Ctrl+Z undoes typing unless a deletion waits). */
static const struct
{
  const char *action;
  const char *accels[3];
} app_accels[] = {
  { "app.quit", { "<Control>q", NULL } },
  { "app.preferences", { "<Control>comma", NULL } },
  { "win.show-help-overlay", { "<Control>question", NULL } },
  { "win.new-chat", { "<Control>n", NULL } },
  { "win.search", { "<Control>f", NULL } },
  { "win.rename('')", { "F2", NULL } },
  { "win.undo", { "<Control>z", NULL } },
  { "win.focus-composer", { "<Control>l", NULL } },
  { "win.choose-model", { "<Control>m", NULL } },
  { "win.go-back", { "<Alt>Left", NULL } },
  { "win.next-conversation", { "<Alt>Down", "<Control>Page_Down", NULL } },
  { "win.previous-conversation", { "<Alt>Up", "<Control>Page_Up", NULL } },
  { "win.dictate", { "<Shift><Control>d", NULL } },
  { "win.read-aloud-focused", { "<Shift><Control>r", NULL } },
  /* Pins the conversation meant, or unpins it if pinned. */
  { "win.toggle-pin('')", { "<Control>d", NULL } },
};

static void
natter_application_startup (GApplication *app)
{
  NatterApplication *self = NATTER_APPLICATION (app);
  NatterSettings *settings;

  G_APPLICATION_CLASS (natter_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);
  for (gsize i = 0; i < G_N_ELEMENTS (app_accels); i++)
    gtk_application_set_accels_for_action (GTK_APPLICATION (app), app_accels[i].action,
                                           app_accels[i].accels);
  natter_first_frame_probe_attach (GTK_APPLICATION (app));

  /* Without a session bus, the lock was not taken before the name. */
  take_data_dir (self);
  if (self->startup_error != NULL)
    g_printerr ("natter: %s\n", self->startup_error->message);
  natter_services_load_async (self->services, NULL, index_loaded_cb, g_object_ref (self));
  /* The tool servers start now, so their tools are listed by the time a
   * first message is sent. */
  natter_mcp_manager_refresh_async (natter_services_get_mcp_manager (self->services), NULL, NULL, NULL);
  /* Servers added, changed or removed in mcp.json while Natter runs are
   * taken up without a restart. */
  natter_mcp_manager_watch (natter_services_get_mcp_manager (self->services));
  settings = natter_services_get_settings (self->services);
  g_signal_connect_object (settings, "notify::providers", G_CALLBACK (model_settings_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "notify::default-provider", G_CALLBACK (model_settings_changed_cb),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "notify::default-model", G_CALLBACK (model_settings_changed_cb),
                           self, G_CONNECT_SWAPPED);
  if (self->search_provider != NULL)
    {
      natter_search_provider_set_index (self->search_provider, natter_services_get_index (self->services));
      natter_search_provider_set_search_index (self->search_provider,
                                               natter_services_get_search_index (self->services));
    }
}

static void
natter_application_shutdown (GApplication *app)
{
  NatterApplication *self = NATTER_APPLICATION (app);

  /* Every session-layer write in flight lands before the process ends. */
  if (self->services != NULL && self->startup_error == NULL)
    natter_services_flush_blocking (self->services, FLUSH_TIMEOUT_MS);

  G_APPLICATION_CLASS (natter_application_parent_class)->shutdown (app);
}

static void
natter_application_finalize (GObject *object)
{
  NatterApplication *self = NATTER_APPLICATION (object);

  g_clear_weak_pointer (&self->other_data_dir_dialog);
  g_clear_object (&self->services);
  g_clear_object (&self->search_provider);
  g_clear_error (&self->startup_error);

  G_OBJECT_CLASS (natter_application_parent_class)->finalize (object);
}

static void
natter_application_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  NatterApplication *self = NATTER_APPLICATION (object);

  switch (prop_id)
    {
    case PROP_SERVICES:
      g_value_set_object (value, self->services);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_application_class_init (NatterApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->finalize = natter_application_finalize;
  object_class->get_property = natter_application_get_property;
  app_class->activate = natter_application_activate;
  app_class->startup = natter_application_startup;
  app_class->shutdown = natter_application_shutdown;
  app_class->dbus_register = natter_application_dbus_register;
  app_class->dbus_unregister = natter_application_dbus_unregister;
  app_class->command_line = natter_application_command_line;
  app_class->handle_local_options = natter_application_handle_local_options;
  app_class->add_platform_data = natter_application_add_platform_data;

  /**
   * NatterApplication:services:
   *
   * The services of the primary instance (natter_application_get_services()),
   * for what knows the application only as a #GtkApplication: its windows.
   */
  properties[PROP_SERVICES] =
    g_param_spec_object ("services", NULL, NULL, NATTER_TYPE_SERVICES, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_application_init (NatterApplication *self)
{
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Print the version and exit"), NULL },
    { NULL }
  };

  g_application_add_main_option_entries (G_APPLICATION (self), entries);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[COMMAND …]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Without a command, open the window."));
}

/**
 * natter_application_new:
 * @commands: the `natter SUBCOMMAND` commands (natter_cli_get_commands()),
 *   which must outlive the application
 *
 * Creates the Natter application (id `io.github.natter.Natter`, unique on
 * the session bus: architecture.md, "Process and data"). It handles
 * command lines: none opens the window, a subcommand runs headless
 * against this instance's services through @commands.
 *
 * Returns: (transfer full): a new #NatterApplication
 */
NatterApplication *
natter_application_new (const NatterCommands *commands)
{
  NatterApplication *self;
  g_autofree char *summary = NULL;

  g_return_val_if_fail (commands != NULL, NULL);

  self = g_object_new (NATTER_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/io/github/natter/Natter",
                       NULL);
  self->commands = commands;
  summary = commands->dup_summary ();
  g_application_set_option_context_description (G_APPLICATION (self), summary);
  return self;
}

/**
 * natter_application_new_beside_command:
 * @commands: as for natter_application_new()
 *
 * Creates the Natter application for a window that opens while a
 * `natter` command is the primary instance on the session bus
 * (natter_application_primary_is_command()): it does not ask to be
 * unique, so it runs beside the command instead of handing its launch
 * to it. While the command writes the data folder the window only reads
 * it; it becomes the writer once the command has ended, as any window
 * that only reads does (docs/sessions.md §8.3).
 *
 * Returns: (transfer full): a new #NatterApplication
 */
NatterApplication *
natter_application_new_beside_command (const NatterCommands *commands)
{
  NatterApplication *self = natter_application_new (commands);

  g_application_set_flags (G_APPLICATION (self), G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_NON_UNIQUE);
  return self;
}

/**
 * natter_application_primary_is_command:
 *
 * Says whether the primary instance on the session bus is a `natter`
 * command rather than a window: such a primary has no window to
 * present, so a launch handed to it would show nothing. The command's
 * exported action (%NATTER_COMMAND_RUNNING_ACTION) tells it. Asked before
 * any application registers, since one that registered as a remote
 * instance cannot run on its own any more. Blocks on the bus for one
 * call, without starting anything that is not running.
 *
 * Returns: %TRUE when a command is primary: then run
 *   natter_application_new_beside_command(); %FALSE when no one is, a
 *   window is, or there is no session bus
 */
gboolean
natter_application_primary_is_command (void)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariant) reply = NULL;
  g_autofree char *path = NULL;
  g_autofree const char **actions = NULL;

  if (bus == NULL)
    return FALSE;
  path = g_strconcat ("/", APP_ID, NULL);
  g_strdelimit (path, ".", '/');
  reply = g_dbus_connection_call_sync (bus, APP_ID, path, "org.gtk.Actions", "List", NULL, G_VARIANT_TYPE ("(as)"),
                                       G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, NULL, NULL);
  if (reply == NULL)
    return FALSE;
  g_variant_get (reply, "(^a&s)", &actions);
  return g_strv_contains (actions, NATTER_COMMAND_RUNNING_ACTION);
}

/**
 * natter_application_get_services:
 * @self: the application
 *
 * The services of the primary instance, created as it registers on the
 * bus (at startup without a bus), with the index loading from startup;
 * %NULL before.
 *
 * Returns: (transfer none) (nullable): the services
 */
NatterServices *
natter_application_get_services (NatterApplication *self)
{
  g_return_val_if_fail (NATTER_IS_APPLICATION (self), NULL);

  return self->services;
}

/**
 * natter_application_get_startup_error:
 * @self: the application
 *
 * Why this instance may not write the data directory — typically
 * %NATTER_SESSION_ERROR_LOCKED because another Natter process holds it —
 * for the window to show. Headless commands needing the data directory
 * are refused with it, but for those that only read. Cleared once this
 * instance took the lock after all, the other process having ended
 * (natter_services_watch_writer_lock()).
 *
 * Returns: (transfer none) (nullable): the error, or %NULL when all is well
 */
const GError *
natter_application_get_startup_error (NatterApplication *self)
{
  g_return_val_if_fail (NATTER_IS_APPLICATION (self), NULL);

  return self->startup_error;
}

/**
 * natter_application_refuse_data_dir:
 * @self: the application
 * @theirs: the data folder a launch forwarded here was started for, not
 *   this application's own
 *
 * Brings the window up and says in a dialog which data folder it has
 * open, and that @theirs opens once it is closed (architecture.md,
 * "Process and data"). One dialog says it however many launches were
 * refused while it is up: a later one names its own folder in it and
 * raises it, rather than stacking a dialog per launch.
 */
void
natter_application_refuse_data_dir (NatterApplication *self,
                                    GFile             *theirs)
{
  g_autofree char *our_path = NULL;
  g_autofree char *their_path = NULL;
  g_autofree char *body = NULL;
  GtkWindow *window;

  g_return_if_fail (NATTER_IS_APPLICATION (self));
  g_return_if_fail (G_IS_FILE (theirs));
  g_return_if_fail (self->services != NULL);

  our_path = g_file_get_parse_name (natter_services_get_data_dir (self->services));
  their_path = g_file_get_parse_name (theirs);
  /* Translators: both %s are folders */
  body = g_strdup_printf (_("Natter is already open with the data folder “%s”. To open “%s”, "
                            "close this window and start Natter again."),
                          our_path, their_path);
  g_application_activate (G_APPLICATION (self));
  if (self->other_data_dir_dialog != NULL)
    adw_message_dialog_set_body (self->other_data_dir_dialog, body);
  else
    {
      window = gtk_application_get_active_window (GTK_APPLICATION (self));
      self->other_data_dir_dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (window, _("Natter Is Already Open"),
                                                                                body));
      g_object_add_weak_pointer (G_OBJECT (self->other_data_dir_dialog),
                                 (gpointer *) &self->other_data_dir_dialog);
      adw_message_dialog_add_response (self->other_data_dir_dialog, "close", _("_Close"));
    }
  gtk_window_present (GTK_WINDOW (self->other_data_dir_dialog));
}
