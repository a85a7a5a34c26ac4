/* natter-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The `natter` command line: one subcommand per session-layer
 * operation, run against the services of whichever process is primary.
 * Everything is printed through the GApplicationCommandLine, so when a
 * second `natter` forwards its command line to a running window, the
 * output still reaches the terminal that typed it. Errors are one line
 * "natter: <message>" on stderr; exit 0 on success, 1 on failure, 2 on a
 * command line that cannot be understood.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-cli-private.h"
#include "natter-plain-text.h"
#include "natter-parameters-input.h"

static void
run_free (Run *run)
{
  g_clear_object (&run->services);
  g_clear_object (&run->cmdline);
  g_free (run->session_id);
  g_free (run->base_url);
  g_free (run->provider);
  g_free (run->model);
  g_strfreev (run->args);
  g_strfreev (run->attach);
  g_clear_pointer (&run->attachments, json_array_unref);
  g_free (run->text);
  g_free (run->format);
  g_free (run->output);
  g_free (run->from);
  for (guint i = 0; i < G_N_ELEMENTS (run->parameter_texts); i++)
    g_free (run->parameter_texts[i]);
  g_free (run->system);
  g_free (run->turn_id);
  g_free (run->latest_before);
  g_clear_pointer (&run->descriptor, json_object_unref);
  g_clear_pointer (&run->session, natter_session_state_unref);
  g_clear_pointer (&run->shown_turns, json_array_unref);
  g_clear_pointer (&run->inherited_turns, json_array_unref);
  g_free (run);
}

/* ------------------------------------------------------------------ */
/* The command table and the parsing                                   */
/* ------------------------------------------------------------------ */

#define JOINED G_MAXUINT

static void command_help (Run *run);

static const Command commands[] = {
  { "ask", N_("[--attach FILE]… [MODEL-OPTIONS] MESSAGE"),
    N_("Run a standalone turn and print the answer"), 1, JOINED, OPT_MODEL | OPT_ATTACH | OPT_TOOLS,
    natter_cli_command_ask },
  { "send", N_("[--session ID [--queue]] [--auto-permission] [--no-auto-title] [--attach FILE]… [MODEL-OPTIONS] "
               "[--temperature T] [--top-p P] [--max-tokens N] [--seed S] [--system TEXT] MESSAGE"),
    N_("Send a message to a session (a new one without --session) and wait until the turn settles"),
    1, JOINED, OPT_MODEL | OPT_SESSION | OPT_ATTACH | OPT_QUEUE | OPT_TOOLS | OPT_PARAMS,
    natter_cli_command_send },
  { "sessions", N_("[--json]"), N_("List the sessions"), 0, 0, OPT_JSON, natter_cli_command_sessions },
  { "search", N_("QUERY [--json]"),
    N_("Find the turns whose message or answer contain every word, best match first"),
    1, JOINED, OPT_JSON | OPT_READ_ONLY, natter_cli_command_search },
  { "show", N_("SESSION [--json]"), N_("Show a session’s turns: inputs, answers, tool calls and status"),
    1, 1, OPT_JSON, natter_cli_command_show },
  { "allow", N_("[--always] TURN CALL"), N_("Allow a tool call that waits for permission"), 2, 2,
    OPT_ALWAYS | OPT_TOOLS, natter_cli_command_permission },
  { "deny", N_("TURN CALL"), N_("Deny a tool call that waits for permission"), 2, 2, OPT_TOOLS, natter_cli_command_permission },
  { "answer", N_("TURN CALL TEXT"), N_("Answer a question the model asked"), 3, JOINED, OPT_TOOLS, natter_cli_command_answer },
  { "deliver", N_("TURN CALL JSON"), N_("Deliver the result of an asynchronous tool call"), 3, 3, OPT_TOOLS,
    natter_cli_command_deliver },
  { "stop", N_("TURN"), N_("Stop a turn"), 1, 1, 0, natter_cli_command_stop },
  { "resume", N_("[--here] SESSION"), N_("Resume a session’s interrupted latest turn"), 1, 1, OPT_TOOLS | OPT_HERE,
    natter_cli_command_resume },
  { "title", N_("SESSION TITLE"), N_("Rename a session"), 2, JOINED, 0, natter_cli_command_title },
  { "delete", N_("SESSION"), N_("Delete a session (its turn files stay)"), 1, 1, 0, natter_cli_command_delete },
  { "fork", N_("SESSION TURN"), N_("Start a new session from a session’s history up to a turn"), 2, 2, 0,
    natter_cli_command_fork },
  { "recover", N_("SESSION [--json]"), N_("Copy the readable part of a damaged session to a new session"), 1, 1,
    OPT_JSON, natter_cli_command_recover },
  { "retry", N_("[--compact] [--session ID] TURN"),
    N_("Send a turn's message again, with its attachments, as a new version of it, and wait until the turn settles"),
    1, 1, OPT_MODEL | OPT_COMPACT | OPT_TOOLS | OPT_IN, natter_cli_command_retry },
  { "compact", N_("SESSION [--keep N]"),
    N_("Summarize a session's earlier turns so the conversation fits the model's context window"), 1, 1, OPT_KEEP,
    natter_cli_command_compact },
  { "mcp", N_("list | tools SERVER | call SERVER TOOL JSON"),
    N_("List the tool servers of mcp.json, a server’s tools, or call a tool to check a server"), 1, 4, 0,
    natter_cli_command_mcp },
  { "export", N_("SESSION [--format markdown|json] [--output FILE]"),
    N_("Export a session as Markdown or as a JSON archive"), 1, 1, OPT_EXPORT, natter_cli_command_export },
  { "import", N_("FILE [--from chatgpt]"),
    N_("Import a JSON archive (or a ChatGPT conversations.json) as new sessions"), 1, 1, OPT_IMPORT,
    natter_cli_command_import },
  { "grant", N_("SESSION TOOL"), N_("Always allow a tool in a session, without asking"), 2, 2, 0,
    natter_cli_command_grant },
  { "grants", N_("SESSION [--json]"), N_("List a session’s active grants"), 1, 1, OPT_JSON,
    natter_cli_command_grants },
  { "revoke", N_("SESSION GRANT"), N_("Revoke a grant: the tool asks again"), 2, 2, 0, natter_cli_command_revoke },
  { "queue", N_("SESSION [--json]"), N_("List a session’s queued messages, oldest first"), 1, 1, OPT_JSON,
    natter_cli_command_queue },
  { "unqueue", N_("SESSION QUEUEID"), N_("Remove a queued message before it is sent"), 2, 2, 0,
    natter_cli_command_unqueue },
  { "params", N_("SESSION [--temperature T] [--top-p P] [--max-tokens N] [--seed S] [--system TEXT] [--clear] [--json]"),
    N_("Show or keep the generation parameters every later message of a session is sent with"), 1, 1,
    OPT_PARAMS | OPT_CLEAR | OPT_JSON, natter_cli_command_params },
  { "pin", N_("SESSION"), N_("Pin a conversation to the top of the list"), 1, 1, 0, natter_cli_command_pin },
  { "unpin", N_("SESSION"), N_("Unpin a conversation"), 1, 1, 0, natter_cli_command_pin },
  { "folder", N_("SESSION [NAME | --none]"),
    N_("Put a conversation in the folder NAME (made if there is none), take it out of its folder, or print it"),
    1, 2, OPT_NONE, natter_cli_command_folder },
  { "models", N_("[pull NAME | delete NAME] [--provider ID | --base-url URL] [--json]"),
    N_("List the models on a provider’s server, or pull one onto an Ollama server, or delete one from it"),
    0, 2, OPT_PROVIDER | OPT_JSON, natter_cli_command_models },
  { "sync", N_("[--write-ignore] [--json]"),
    N_("Say whether the data folder is synchronised with other devices (Syncthing), and what stays on this one"),
    0, 0, OPT_WRITE | OPT_JSON, natter_cli_command_sync },
  { "transcribe", N_("FILE.wav [--provider ID]"),
    N_("Print what is said in a recording, as the provider’s transcription model hears it"),
    1, 1, OPT_PROVIDER, natter_cli_command_transcribe },
  { "help", N_("[COMMAND]"), N_("Show this help, or a command’s help"), 0, 1, 0, command_help },
};

static const Command *
find_command (const char *name)
{
  for (guint i = 0; name != NULL && i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, name))
      return &commands[i];
  return NULL;
}

/**
 * natter_cli_is_command:
 * @word: (nullable): the first argument of a command line
 *
 * Whether @word names a subcommand, so that `main()` can choose the
 * display-free application before GTK needs a display.
 *
 * Returns: %TRUE for a subcommand of the command line
 */
gboolean
natter_cli_is_command (const char *word)
{
  return find_command (word) != NULL;
}

/**
 * natter_cli_needs_services:
 * @arguments: (array zero-terminated=1): the whole command line, with
 *   the program name first
 *
 * Whether running @arguments touches the data directory. Help and
 * command lines that cannot be understood do not, so they work (and are
 * refused) without taking the single-writer lock.
 *
 * Returns: %TRUE when the command needs #NatterServices
 */
gboolean
natter_cli_needs_services (const char * const *arguments)
{
  const Command *command;

  g_return_val_if_fail (arguments != NULL, FALSE);

  if (arguments[0] == NULL)
    return FALSE;
  command = find_command (arguments[1]);
  if (command == NULL || command->start == command_help)
    return FALSE;
  for (guint i = 2; arguments[i] != NULL; i++)
    {
      if (g_str_equal (arguments[i], "--"))
        break;
      if (g_str_equal (arguments[i], "--help") || g_str_equal (arguments[i], "-h"))
        return FALSE;
    }
  return TRUE;
}

/**
 * natter_cli_reads_only:
 * @arguments: (array zero-terminated=1): the whole command line, with
 *   the program name first
 *
 * Whether running @arguments only reads the data directory: then a
 * process that could not take the directory's writer lock, because
 * another Natter writes it, runs the command read only (docs/sessions.md
 * §8.3) instead of refusing it. `natter search` does.
 *
 * Returns: %TRUE for a command that writes nothing
 */
gboolean
natter_cli_reads_only (const char * const *arguments)
{
  const Command *command;

  g_return_val_if_fail (arguments != NULL, FALSE);

  if (arguments[0] == NULL)
    return FALSE;
  command = find_command (arguments[1]);
  return command != NULL && (command->options & OPT_READ_ONLY) != 0;
}

/* The overview in the language of @cmdline's caller (%NULL: this
 * process's). */
static char *
dup_summary_for (GApplicationCommandLine *cmdline)
{
  GString *text = g_string_new (NULL);

  g_string_append_printf (text, "%s\n",
                          natter_cli_gettext (cmdline, "Commands (headless; forwarded to the running Natter "
                                                       "if there is one):"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *usage = g_strdup_printf ("%s %s", commands[i].name,
                                                natter_cli_gettext (cmdline, commands[i].parameters));

      g_string_append_printf (text, "  natter %s\n      %s\n", usage, natter_cli_gettext (cmdline, commands[i].summary));
    }
  g_string_append_printf (text, "\n%s\n", natter_cli_gettext (cmdline, "Model options:"));
  g_string_append_printf (text, "  --base-url URL         %s\n",
                          natter_cli_gettext (cmdline, "An OpenAI-compatible endpoint instead of the default provider"));
  g_string_append_printf (text, "  --model NAME           %s\n", natter_cli_gettext (cmdline, "The model to use"));
  g_string_append_printf (text, "  --max-model-calls N    %s\n",
                          natter_cli_gettext (cmdline, "The most model calls of the turn"));
  g_string_append_printf (text, "\n%s\n", natter_cli_gettext (cmdline, "Environment:"));
  g_string_append_printf (text, "  NATTER_API_KEY         %s\n",
                          natter_cli_gettext (cmdline, "The API key when the Secret Service has none for the provider"));
  g_string_append_printf (text, "  NATTER_DATA_DIR        %s\n", natter_cli_gettext (cmdline, "The data directory"));
  return g_string_free (text, FALSE);
}

/**
 * natter_cli_dup_summary:
 *
 * The overview of the subcommands, the model options and the
 * environment, as `natter --help` and `natter help` print it.
 *
 * Returns: (transfer full): translated text ending in a newline
 */
char *
natter_cli_dup_summary (void)
{
  return dup_summary_for (NULL);
}

static GOptionContext *option_context_new (Run *run);
static char *option_context_get_help (Run *run, GOptionContext *context);

static void
command_help (Run *run)
{
  g_autofree char *summary = NULL;

  if (run->args[0] != NULL)
    {
      const Command *command = find_command (run->args[0]);
      g_autoptr(GOptionContext) context = NULL;
      g_autofree char *help = NULL;

      if (command == NULL)
        {
          natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, natter_cli_tr (run, "Unknown command “%s”"), run->args[0]);
          return;
        }
      run->command = command;
      context = option_context_new (run);
      help = option_context_get_help (run, context);
      natter_cli_out (run, "%s", help);
      natter_cli_finish (run, 0);
      return;
    }
  summary = dup_summary_for (run->cmdline);
  natter_cli_out (run, "%s", summary);
  natter_cli_finish (run, 0);
}

static GOptionContext *
option_context_new (Run *run)
{
  const Command *command = run->command;
  g_autofree char *parameters = g_strdup_printf ("%s %s", command->name, natter_cli_tr (run, command->parameters));
  GOptionContext *context = g_option_context_new (parameters);
  GOptionEntry entries[20];
  guint n = 0;

  memset (entries, 0, sizeof entries);
  entries[n++] = (GOptionEntry) { "help", 'h', 0, G_OPTION_ARG_NONE, &run->help, N_("Show this help"), NULL };
  if (command->options & OPT_SESSION)
    {
      entries[n++] = (GOptionEntry) { "session", 0, 0, G_OPTION_ARG_STRING, &run->session_id,
                                      N_("The session to continue; without it a new session starts"),
                                      N_("ID") };
      entries[n++] = (GOptionEntry) { "auto-permission", 0, 0, G_OPTION_ARG_NONE, &run->auto_permission,
                                      N_("Let the permission classifier decide before asking"), NULL };
      entries[n++] = (GOptionEntry) { "no-auto-title", 0, 0, G_OPTION_ARG_NONE, &run->no_auto_title,
                                      N_("Keep the title taken from the first message instead of asking the model for one"),
                                      NULL };
    }
  if (command->options & OPT_IN)
    entries[n++] = (GOptionEntry) { "session", 0, 0, G_OPTION_ARG_STRING, &run->session_id,
                                    N_("The conversation to try the turn again in, when several hold it"),
                                    N_("ID") };
  if (command->options & OPT_MODEL)
    {
      entries[n++] = (GOptionEntry) { "provider", 0, 0, G_OPTION_ARG_STRING, &run->provider,
                                      N_("One of your providers, by its id, instead of the default one"),
                                      N_("ID") };
      entries[n++] = (GOptionEntry) { "base-url", 0, 0, G_OPTION_ARG_STRING, &run->base_url,
                                      N_("An OpenAI-compatible endpoint instead of the default provider"),
                                      N_("URL") };
      entries[n++] = (GOptionEntry) { "model", 0, 0, G_OPTION_ARG_STRING, &run->model,
                                      N_("The model to use"), N_("NAME") };
      entries[n++] = (GOptionEntry) { "max-model-calls", 0, 0, G_OPTION_ARG_INT, &run->max_model_calls,
                                      N_("The most model calls of the turn"), N_("N") };
    }
  if (command->options & OPT_PROVIDER)
    {
      entries[n++] = (GOptionEntry) { "provider", 0, 0, G_OPTION_ARG_STRING, &run->provider,
                                      N_("One of your providers, by its id, instead of the default one"),
                                      N_("ID") };
      entries[n++] = (GOptionEntry) { "base-url", 0, 0, G_OPTION_ARG_STRING, &run->base_url,
                                      N_("An OpenAI-compatible endpoint instead of the default provider"),
                                      N_("URL") };
    }
  if (command->options & OPT_KEEP)
    entries[n++] = (GOptionEntry) { "keep", 0, 0, G_OPTION_ARG_INT, &run->keep,
                                    N_("How many of the latest turns stay whole (default 2)"), N_("N") };
  if (command->options & OPT_ATTACH)
    entries[n++] = (GOptionEntry) { "attach", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &run->attach,
                                    N_("Attach an image, a text file or a PDF (repeat for more)"),
                                    N_("FILE") };
  if (command->options & OPT_QUEUE)
    entries[n++] = (GOptionEntry) { "queue", 0, 0, G_OPTION_ARG_NONE, &run->queue,
                                    N_("While the session’s latest turn runs or waits, queue the message "
                                       "to be sent after it"), NULL };
  if (command->options & OPT_COMPACT)
    entries[n++] = (GOptionEntry) { "compact", 0, 0, G_OPTION_ARG_NONE, &run->compact,
                                    N_("Summarize the earlier turns first, for a message that overflowed the "
                                       "model’s context window"), NULL };
  if (command->options & OPT_ALWAYS)
    entries[n++] = (GOptionEntry) { "always", 0, 0, G_OPTION_ARG_NONE, &run->always,
                                    N_("Also allow every later call of the tool in this session"), NULL };
  if (command->options & OPT_HERE)
    entries[n++] = (GOptionEntry) { "here", 0, 0, G_OPTION_ARG_NONE, &run->here,
                                    N_("Continue here a turn that another device was running (only when that "
                                       "device stopped in the middle of it)"), NULL };
  if (command->options & OPT_WRITE)
    entries[n++] = (GOptionEntry) { "write-ignore", 0, 0, G_OPTION_ARG_NONE, &run->write_ignore,
                                    N_("Write the ignore patterns of what stays on this device into the "
                                       "synchronised folder’s .stignore"), NULL };
  if (command->options & OPT_JSON)
    entries[n++] = (GOptionEntry) { "json", 0, 0, G_OPTION_ARG_NONE, &run->json,
                                    N_("Print JSON instead of text"), NULL };
  if (command->options & OPT_EXPORT)
    {
      entries[n++] = (GOptionEntry) { "format", 0, 0, G_OPTION_ARG_STRING, &run->format,
                                      N_("markdown (the default) or json"), N_("FORMAT") };
      entries[n++] = (GOptionEntry) { "output", 'o', 0, G_OPTION_ARG_FILENAME, &run->output,
                                      N_("Write to FILE instead of printing"), N_("FILE") };
    }
  if (command->options & OPT_PARAMS)
    {
      entries[n++] = (GOptionEntry) { "temperature", 0, 0, G_OPTION_ARG_STRING,
                                      &run->parameter_texts[NATTER_PARAMETER_TEMPERATURE],
                                      N_("How varied the answer is, from 0 to 2"), N_("T") };
      entries[n++] = (GOptionEntry) { "top-p", 0, 0, G_OPTION_ARG_STRING, &run->parameter_texts[NATTER_PARAMETER_TOP_P],
                                      N_("Sample only from the likeliest words making up this share, from 0 to 1"),
                                      N_("P") };
      entries[n++] = (GOptionEntry) { "max-tokens", 0, 0, G_OPTION_ARG_STRING,
                                      &run->parameter_texts[NATTER_PARAMETER_MAX_TOKENS],
                                      N_("The most tokens one answer may have"), N_("N") };
      entries[n++] = (GOptionEntry) { "seed", 0, 0, G_OPTION_ARG_STRING, &run->parameter_texts[NATTER_PARAMETER_SEED],
                                      N_("A seed, for answers that repeat where the model allows"), N_("S") };
      entries[n++] = (GOptionEntry) { "system", 0, 0, G_OPTION_ARG_STRING, &run->system,
                                      N_("An instruction added to the agent’s system prompt"), N_("TEXT") };
    }
  if (command->options & OPT_CLEAR)
    entries[n++] = (GOptionEntry) { "clear", 0, 0, G_OPTION_ARG_NONE, &run->clear,
                                    N_("Forget the kept parameters first (the others given are then kept alone)"),
                                    NULL };
  if (command->options & OPT_NONE)
    entries[n++] = (GOptionEntry) { "none", 0, 0, G_OPTION_ARG_NONE, &run->none,
                                    N_("Take the conversation out of its folder"), NULL };
  if (command->options & OPT_IMPORT)
    entries[n++] = (GOptionEntry) { "from", 0, 0, G_OPTION_ARG_STRING, &run->from,
                                    N_("chatgpt: the file is a ChatGPT conversations.json"), N_("SOURCE") };
  g_assert (n < G_N_ELEMENTS (entries));

  /* GOption's own --help would exit() the process, which may be the
   * running window's: help is an ordinary option here. */
  g_option_context_set_help_enabled (context, FALSE);
  g_option_context_set_summary (context, natter_cli_tr (run, command->summary));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  return context;
}

/* GOption's help, its own texts and the entries', in the caller's
 * language. */
static char *
option_context_get_help (Run            *run,
                         GOptionContext *context)
{
  gpointer previous = natter_cli_locale_enter (run->cmdline);
  char *help = g_option_context_get_help (context, TRUE, NULL);

  natter_cli_locale_leave (previous);
  return help;
}

static void
usage_error (Run        *run,
             const char *message)
{
  g_application_command_line_printerr (run->cmdline, "natter: %s\n", message);
  if (run->command != NULL)
    g_application_command_line_printerr (run->cmdline, natter_cli_tr (run, "Try “natter %s --help”.\n"),
                                         run->command->name);
  else
    g_application_command_line_printerr (run->cmdline, "%s\n", natter_cli_tr (run, "Try “natter help”."));
  natter_cli_finish (run, NATTER_CLI_EXIT_USAGE);
}

/* Parses the command's options and arguments into @run; on a usage
 * error, reports it and ends the run. */
static gboolean
parse (Run   *run,
       GStrv  arguments)
{
  g_autoptr(GOptionContext) context = option_context_new (run);
  g_autoptr(GError) error = NULL;
  g_autofree char *program = g_strdup_printf ("natter %s", run->command->name);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  guint argc, n_args;
  const Command *command = run->command;
  gpointer previous;
  gboolean parsed;

  g_strv_builder_add (builder, program);
  for (guint i = 2; arguments[i] != NULL; i++)
    g_strv_builder_add (builder, arguments[i]);
  argv = g_strv_builder_end (builder);
  /* Tells "--keep" left out (the default) from a wrong value. */
  if (command->options & OPT_KEEP)
    run->keep = G_MININT;

  /* GOption's errors in the caller's language. */
  previous = natter_cli_locale_enter (run->cmdline);
  parsed = g_option_context_parse_strv (context, &argv, &error);
  natter_cli_locale_leave (previous);
  if (!parsed)
    {
      usage_error (run, error->message);
      return FALSE;
    }
  if (run->help)
    {
      g_autofree char *help = option_context_get_help (run, context);

      natter_cli_out (run, "%s", help);
      natter_cli_finish (run, 0);
      return FALSE;
    }

  argc = g_strv_length (argv);
  /* GOption keeps a "--" that ends the options; it is no argument. */
  n_args = argc - 1;
  if (n_args > 0 && g_str_equal (argv[1], "--"))
    {
      g_free (argv[1]);
      memmove (&argv[1], &argv[2], sizeof (char *) * (argc - 1));
      n_args--;
    }
  if (n_args < command->min_args || n_args > command->max_args)
    {
      usage_error (run, n_args < command->min_args ? natter_cli_tr (run, "Missing arguments")
                                                   : natter_cli_tr (run, "Too many arguments"));
      return FALSE;
    }
  if (command->options & OPT_MODEL && run->provider != NULL && run->base_url != NULL)
    {
      usage_error (run, natter_cli_tr (run, "Give --provider or --base-url, not both"));
      return FALSE;
    }
  if (run->max_model_calls < 0 || (command->options & OPT_MODEL && run->max_model_calls == 0 &&
                                    g_strv_contains ((const char * const *) arguments, "--max-model-calls")))
    {
      usage_error (run, natter_cli_tr (run, "--max-model-calls must be at least 1"));
      return FALSE;
    }
  if (run->keep == G_MININT)
    run->keep = 2;
  else if (command->options & OPT_KEEP && run->keep < 1)
    {
      usage_error (run, natter_cli_tr (run, "--keep must be at least 1"));
      return FALSE;
    }
  if (run->base_url != NULL && !natter_provider_id_is_endpoint (run->base_url))
    {
      usage_error (run, natter_cli_tr (run, "--base-url must be an http:// or https:// URL"));
      return FALSE;
    }

  run->args = g_new0 (char *, n_args + 1);
  for (guint i = 0; i < n_args; i++)
    run->args[i] = g_strdup (argv[i + 1]);
  if (command->max_args == JOINED)
    run->text = g_strjoinv (" ", &run->args[command->min_args - 1]);
  else if (command->min_args == 3)
    run->text = g_strdup (run->args[2]);
  /* Blank is empty, for a message as in the window's composer. */
  if (run->text != NULL && natter_text_is_blank (run->text))
    {
      usage_error (run, natter_cli_tr (run, "The text is empty"));
      return FALSE;
    }
  return TRUE;
}

/* A command that may advance a turn first lists the tool servers'
 * tools: a turn that offered one can only go on with it registered. */
static void
start_command (Run *run)
{
  if (run->command->options & OPT_TOOLS)
    natter_cli_mcp_refresh (run, run->command->start);
  else
    run->command->start (run);
}

static void
loaded_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_services_load_finish (NATTER_SERVICES (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  start_command (run);
}

/* A command forwarded by another process must act on the data directory
 * that process was given, never on this one's in its place: it runs here
 * only when both are the same. The other process forwards only when its
 * directory is in use (it runs the command itself otherwise), so a
 * different directory means two Natters on two directories: say so,
 * naming both. */
static gboolean
check_data_dir (Run *run)
{
  GFile *ours = natter_services_get_data_dir (run->services);
  g_autofree char *our_path = g_file_get_parse_name (ours);
  g_autoptr(GFile) theirs = NULL;
  g_autofree char *their_path = NULL;
  const char *given;

  if (!g_application_command_line_get_is_remote (run->cmdline))
    return TRUE;
  given = g_application_command_line_getenv (run->cmdline, NATTER_DATA_DIR_ENV);
  if (given == NULL || given[0] == '\0')
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                       natter_cli_tr (run, "The command did not say which data directory it is for; "
                                      "the running Natter uses %s"),
                       our_path);
      return FALSE;
    }
  theirs = g_application_command_line_create_file_for_arg (run->cmdline, given);
  if (natter_services_uses_data_dir (run->services, theirs))
    return TRUE;
  their_path = g_file_get_parse_name (theirs);
  natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE,
                   natter_cli_tr (run, "The command was given the data directory %s, which another Natter "
                                  "process is using, and the running Natter uses %s; nothing was done. "
                                  "Run it again when %s is free"),
                   their_path, our_path, their_path);
  return FALSE;
}

/**
 * natter_cli_run_async:
 * @services: (nullable): the services to run against; %NULL only when
 *   natter_cli_needs_services() says the command line needs none
 * @cmdline: the command line, local or forwarded from another process;
 *   all output goes through it
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the main context when the command is done
 * @user_data: data for @callback
 *
 * Runs one `natter` subcommand: parses its options, executes it
 * against @services (loading the index first), waits for a turn to
 * settle where the command starts or continues one, and prints the
 * result. Errors are printed as one "natter: …" line on stderr; the
 * result is the exit status for the command line.
 *
 * A command line forwarded from another process runs only when that
 * process's data directory (its `NATTER_DATA_DIR`, which
 * natter_cli_application_run() always sends) is @services' own;
 * otherwise it fails, naming both directories, and nothing is written.
 */
void
natter_cli_run_async (NatterServices          *services,
                      GApplicationCommandLine *cmdline,
                      GCancellable            *cancellable,
                      GAsyncReadyCallback      callback,
                      gpointer                 user_data)
{
  Run *run;
  g_auto(GStrv) arguments = NULL;
  int argc;

  g_return_if_fail (services == NULL || NATTER_IS_SERVICES (services));
  g_return_if_fail (G_IS_APPLICATION_COMMAND_LINE (cmdline));

  run = g_new0 (Run, 1);
  run->task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (run->task, natter_cli_run_async);
  g_task_set_task_data (run->task, run, (GDestroyNotify) run_free);
  run->services = services != NULL ? g_object_ref (services) : NULL;
  run->cmdline = g_object_ref (cmdline);

  arguments = g_application_command_line_get_arguments (cmdline, &argc);
  if (argc < 2)
    {
      usage_error (run, natter_cli_tr (run, "No command given"));
      return;
    }
  run->command = find_command (arguments[1]);
  if (run->command == NULL)
    {
      g_autofree char *message = g_strdup_printf (natter_cli_tr (run, "Unknown command “%s”"), arguments[1]);

      usage_error (run, message);
      return;
    }
  if (!parse (run, arguments))
    return;
  if (run->command->start == command_help)
    {
      command_help (run);
      return;
    }
  if (run->services == NULL)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", natter_cli_tr (run, "The data directory is not available"));
      return;
    }
  if (!check_data_dir (run))
    return;
  if (run->command->start == natter_cli_command_ask)
    {
      start_command (run);
      return;
    }
  natter_services_load_async (run->services, cancellable, loaded_cb, run);
}

/**
 * natter_cli_run_finish:
 * @result: the #GAsyncResult
 *
 * Returns: the exit status: 0 on success, %NATTER_CLI_EXIT_FAILURE,
 *   %NATTER_CLI_EXIT_USAGE
 */
int
natter_cli_run_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NATTER_CLI_EXIT_FAILURE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_cli_run_async, NATTER_CLI_EXIT_FAILURE);

  return (int) g_task_propagate_int (G_TASK (result), NULL);
}

/**
 * natter_cli_get_commands:
 *
 * The `natter SUBCOMMAND` commands of this file, for the applications
 * that run command lines (natter_command_line_run()).
 *
 * Returns: (transfer none): the commands, valid for the process's life
 */
const NatterCommands *
natter_cli_get_commands (void)
{
  static const NatterCommands cli_commands = {
    natter_cli_needs_services,
    natter_cli_reads_only,
    natter_cli_dup_summary,
    natter_cli_run_async,
    natter_cli_run_finish,
  };

  return &cli_commands;
}
