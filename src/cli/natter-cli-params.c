/* natter-cli-params.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Generation parameters on the command line (docs/sessions.md §15): the
 * options `send` takes for one message, and `natter params`, which shows
 * or keeps a conversation's. Their output lines are stable for scripts
 * (README, "Command line").
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-parameters-input.h"
#include "natter-services.h"
#include "natter-sessions-settings.h"

/* Whether any of --temperature, --top-p, --max-tokens, --seed, --system
 * was given. */
gboolean
natter_cli_has_parameters (Run *run)
{
  for (guint i = 0; i < G_N_ELEMENTS (run->parameter_texts); i++)
    if (run->parameter_texts[i] != NULL)
      return TRUE;
  return run->system != NULL;
}

/* Sets on @parameters what the options give, each over what it held.
 * On a value out of its limits, reports it as a usage error, ends the run
 * and returns FALSE. `--system ""` removes the added instruction. */
gboolean
natter_cli_read_parameters (Run                        *run,
                            NatterGenerationParameters *parameters)
{
  for (guint i = 0; i < G_N_ELEMENTS (run->parameter_texts); i++)
    {
      g_autoptr(GError) error = NULL;
      gpointer previous;
      gboolean ok;

      if (run->parameter_texts[i] == NULL)
        continue;
      /* The window's rule says what is wrong; in the caller's language
       * (natter-cli-locale.c), since a forwarded command runs in the
       * window's process. Only a lookup runs in that locale. */
      previous = natter_cli_locale_enter (run->cmdline);
      ok = run->parameter_texts[i][0] != '\0' &&
           natter_parameters_input_set (parameters, (NatterParameter) i, run->parameter_texts[i], &error);
      natter_cli_locale_leave (previous);
      if (!ok)
        {
          natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s", error != NULL ? error->message
                           : natter_cli_tr (run, "A parameter option needs a value"));
          return FALSE;
        }
    }
  if (run->system != NULL)
    natter_generation_parameters_set_system_instruction (parameters, run->system);
  return TRUE;
}

static const char * const wire_names[] = { "temperature", "top_p", "max_tokens", "seed" };

/* `temperature\t0.7` lines, the instruction last as `system\t<text>`
 * (a backslash, line break or tab in it as `\\`, `\n`, `\t`); nothing when none is kept. Or one JSON
 * object: the wire names of docs/format.md §3.5 and `systemInstruction`. */
static void
print_parameters (Run                              *run,
                  const NatterGenerationParameters *parameters)
{
  g_autoptr(NatterGenerationParameters) empty = natter_generation_parameters_new ();

  if (parameters == NULL)
    parameters = empty;
  if (run->json)
    {
      g_autoptr(JsonObject) object = natter_generation_parameters_to_json (parameters);

      if (parameters->system_instruction != NULL)
        json_object_set_string_member (object, "systemInstruction", parameters->system_instruction);
      natter_cli_out_json_object (run, object);
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (wire_names); i++)
    {
      g_autofree char *value = natter_parameters_input_format (parameters, (NatterParameter) i);

      if (value != NULL)
        natter_cli_out (run, "%s\t%s\n", wire_names[i], value);
    }
  if (parameters->system_instruction != NULL)
    {
      g_autoptr(GString) line = g_string_new (parameters->system_instruction);

      /* One line, whatever the instruction holds. */
      g_string_replace (line, "\\", "\\\\", 0);
      g_string_replace (line, "\n", "\\n", 0);
      g_string_replace (line, "\t", "\\t", 0);
      natter_cli_out (run, "system\t%s\n", line->str);
    }
}

static void
kept_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Run *run = user_data;
  NatterSessions *sessions = NATTER_SESSIONS (object);
  GError *error = NULL;

  if (!natter_sessions_set_parameters_finish (sessions, result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  print_parameters (run, natter_sessions_get_kept_parameters (sessions, run->args[0]));
  natter_cli_finish (run, 0);
}

/* natter params SESSION [options] [--clear] [--json]: without options,
 * prints what the conversation keeps; with them, keeps what is given
 * over what was kept (over nothing with --clear) and prints the result.
 * A version's conversation is its original's (docs/sessions.md §15). */
void
natter_cli_command_params (Run *run)
{
  NatterSessions *sessions = natter_services_get_sessions (run->services);
  const NatterGenerationParameters *kept;
  g_autoptr(NatterGenerationParameters) parameters = NULL;

  if (natter_cli_lookup_session (run, run->args[0]) == NULL)
    return;
  kept = natter_sessions_get_kept_parameters (sessions, run->args[0]);
  if (!run->clear && !natter_cli_has_parameters (run))
    {
      print_parameters (run, kept);
      natter_cli_finish (run, 0);
      return;
    }
  parameters = kept != NULL && !run->clear ? natter_generation_parameters_copy (kept)
                                           : natter_generation_parameters_new ();
  if (!natter_cli_read_parameters (run, parameters))
    return;
  natter_sessions_set_parameters_async (sessions, run->args[0], parameters, g_task_get_cancellable (run->task),
                                        kept_cb, run);
}
