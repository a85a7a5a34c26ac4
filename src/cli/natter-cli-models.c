/* natter-cli-models.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter models [pull NAME | delete NAME]`: the models on a provider's
 * server (docs/runtime.md §13), seen and changed from the command line.
 * The list is a line per model (or `--json`); a pull prints the server's
 * progress as it comes — a line per step when its output is read by
 * another program, a bar redrawn in place on a terminal — and ends with
 * the server's "success" or its reason.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <string.h>

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-model-library.h"
#include "natter-plain-text.h"
#include "natter-provider-registry.h"
#include "natter-services.h"

/* Set by natter_cli_application_run() when the standard output of the
 * process that typed the command is a terminal; it travels with a
 * command forwarded to a running Natter, whose own output is not. */
#define TERMINAL_ENV "NATTER_STDOUT_IS_TERMINAL"

#define BAR_WIDTH 24

typedef struct
{
  Run                *run;
  NatterModelLibrary *library;
  NatterModelPull    *pull;
  char               *status;    /* the last status printed */
  char               *name;      /* the model pulled or deleted, trimmed */
  gboolean            terminal;
  gboolean            drawn;     /* a bar is on the terminal's last line */
} ModelsRun;

static void
models_run_free (ModelsRun *models)
{
  if (models->pull != NULL)
    g_signal_handlers_disconnect_by_data (models->pull, models);
  g_clear_object (&models->pull);
  g_clear_object (&models->library);
  g_free (models->status);
  g_free (models->name);
  g_free (models);
}

static void
models_finish (ModelsRun *models)
{
  Run *run = models->run;

  models_run_free (models);
  natter_cli_finish (run, 0);
}

static void
models_fail (ModelsRun    *models,
             const GError *error)
{
  Run *run = models->run;

  g_autofree char *words = natter_cli_error_words (run->cmdline, error->message);

  if (models->drawn)
    natter_cli_out (run, "\n");
  models_run_free (models);
  natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s", words);
}

/* ---- list ------------------------------------------------------------ */

/* What the list says of a model's size in parameters: the server's own
 * words ("3.2B"), else the exact count in the same style. */
static char *
describe_parameters (const NatterModelInfo *info)
{
  if (info->parameter_size != NULL)
    return g_strdup (info->parameter_size);
  if (info->parameter_count > 0)
    return g_strdup_printf ("%.1fB", info->parameter_count / 1e9);
  return g_strdup ("-");
}

static void
print_models (ModelsRun *models,
              GPtrArray *list)
{
  Run *run = models->run;

  if (run->json)
    {
      g_autoptr(JsonArray) array = json_array_new ();

      for (guint i = 0; i < list->len; i++)
        json_array_add_element (array, natter_model_info_to_json (g_ptr_array_index (list, i)));
      natter_cli_out_json_array (run, array);
      return;
    }
  if (list->len == 0)
    {
      natter_cli_out (run, "%s\n", natter_cli_tr (run, "The server has no models"));
      return;
    }
  for (guint i = 0; i < list->len; i++)
    {
      const NatterModelInfo *info = g_ptr_array_index (list, i);
      g_autofree char *size = info->size >= 0 ? g_format_size (info->size) : g_strdup ("-");
      g_autofree char *parameters = describe_parameters (info);
      g_autoptr(GDateTime) local = info->modified != NULL ? g_date_time_to_local (info->modified) : NULL;
      g_autofree char *modified = local != NULL ? g_date_time_format (local, "%Y-%m-%d %H:%M") : g_strdup ("-");

      g_autofree char *name = natter_cli_one_line (info->name);
      g_autofree char *quantization = natter_cli_one_line (info->quantization != NULL ? info->quantization : "-");
      g_autofree char *shown_parameters = natter_cli_one_line (parameters);

      natter_cli_out (run, "%s\t%s\t%s\t%s\t%s\n", name, size, shown_parameters, quantization, modified);
    }
}

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  ModelsRun *models = user_data;
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;

  list = natter_model_library_list_finish (NATTER_MODEL_LIBRARY (object), result, &error);
  if (list == NULL)
    {
      models_fail (models, error);
      return;
    }
  print_models (models, list);
  models_finish (models);
}

/* ---- pull ------------------------------------------------------------ */

/* A layer's bytes: "1.0 GB of 2.0 GB". */
static char *
describe_bytes (Run    *run,
                gint64  completed,
                gint64  total)
{
  g_autofree char *done = g_format_size (completed);
  g_autofree char *whole = g_format_size (total);

  /* Translators: bytes of a download, e.g. "1.0 GB of 2.0 GB" */
  return g_strdup_printf (natter_cli_tr (run, "%s of %s"), done, whole);
}

static const NatterModelPullLayer *
current_layer (NatterModelPull *pull)
{
  guint n = natter_model_pull_get_n_layers (pull);

  return n > 0 ? natter_model_pull_get_layer (pull, n - 1) : NULL;
}

static void
draw_bar (ModelsRun *models)
{
  const NatterModelPullLayer *layer = current_layer (models->pull);
  g_autofree char *status = natter_model_pull_dup_short_status (models->pull);
  g_autofree char *bytes = NULL;
  char bar[BAR_WIDTH + 1];
  guint filled;

  if (layer == NULL || !g_str_has_suffix (natter_model_pull_get_status (models->pull), layer->digest))
    {
      natter_cli_out_exact (models->run, "\r\033[K");
      natter_cli_out (models->run, "%s", status);
      models->drawn = TRUE;
      return;
    }
  filled = layer->total > 0 ? (guint) (BAR_WIDTH * layer->completed / layer->total) : 0;
  memset (bar, '#', filled);
  memset (bar + filled, '.', BAR_WIDTH - filled);
  bar[BAR_WIDTH] = '\0';
  bytes = describe_bytes (models->run, layer->completed, layer->total);
  natter_cli_out_exact (models->run, "\r\033[K");
  natter_cli_out (models->run, "%s %3d%% [%s] %s", status,
                  layer->total > 0 ? (int) (100 * layer->completed / layer->total) : 0, bar, bytes);
  models->drawn = TRUE;
}

static void
progress_cb (NatterModelPull *pull,
             ModelsRun       *models)
{
  const char *status = natter_model_pull_get_status (pull);
  gboolean new_step = g_strcmp0 (status, models->status) != 0;

  if (status == NULL)
    return;
  if (models->terminal)
    {
      /* The bar of a finished step stays on its own line. */
      if (new_step && models->drawn)
        natter_cli_out (models->run, "\n");
      models->drawn = FALSE;
      draw_bar (models);
    }
  else if (new_step)
    {
      const NatterModelPullLayer *layer = current_layer (pull);
      g_autofree char *text = natter_model_pull_dup_short_status (pull);

      if (layer != NULL && g_str_has_suffix (status, layer->digest))
        {
          g_autofree char *size = g_format_size (layer->total);

          natter_cli_out (models->run, "%s (%s)\n", text, size);
        }
      else
        natter_cli_out (models->run, "%s\n", text);
    }
  g_free (models->status);
  models->status = g_strdup (status);
}

static void
state_cb (NatterModelPull *pull,
          GParamSpec      *pspec,
          ModelsRun       *models)
{
  switch (natter_model_pull_get_state (pull))
    {
    case NATTER_MODEL_PULL_SUCCEEDED:
      if (models->drawn)
        natter_cli_out (models->run, "\n");
      models_finish (models);
      break;
    case NATTER_MODEL_PULL_FAILED:
      models_fail (models, natter_model_pull_get_error (pull));
      break;
    case NATTER_MODEL_PULL_CANCELLED:
    case NATTER_MODEL_PULL_RUNNING:
    default:
      break;
    }
}

static void
pull_started_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  ModelsRun *models = user_data;
  g_autoptr(GError) error = NULL;

  models->pull = natter_model_library_pull_finish (NATTER_MODEL_LIBRARY (object), result, &error);
  if (models->pull == NULL)
    {
      models_fail (models, error);
      return;
    }
  g_signal_connect (models->pull, "progress", G_CALLBACK (progress_cb), models);
  g_signal_connect (models->pull, "notify::state", G_CALLBACK (state_cb), models);
}

/* ---- delete ---------------------------------------------------------- */

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  ModelsRun *models = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_model_library_delete_finish (NATTER_MODEL_LIBRARY (object), result, &error))
    {
      models_fail (models, error);
      return;
    }
  /* Translators: %s is a model name */
  natter_cli_out (models->run, natter_cli_tr (models->run, "Deleted %s\n"), models->name);
  models_finish (models);
}

/* ---- the command ----------------------------------------------------- */

/* Whose server: --base-url, else --provider, else the default provider. */
static char *
chosen_provider (Run *run)
{
  if (run->base_url != NULL)
    return g_strdup (run->base_url);
  if (run->provider != NULL)
    return g_strdup (run->provider);
  return natter_services_dup_default_provider (run->services);
}

void
natter_cli_command_models (Run *run)
{
  const char *action = run->args[0];
  g_autofree char *provider = NULL;
  g_autoptr(GError) error = NULL;
  const char *terminal;
  gboolean listing;
  ModelsRun *models;

  if (action != NULL && !g_str_equal (action, "pull") && !g_str_equal (action, "delete") &&
      !g_str_equal (action, "list"))
    {
      /* Translators: %s is what was typed after "natter models" */
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE,
                       natter_cli_tr (run, "Unknown action “%s”: say pull NAME or delete NAME, "
                                      "or nothing to list the models"), action);
      return;
    }
  listing = action == NULL || g_str_equal (action, "list");
  if (listing && action != NULL && run->args[1] != NULL)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s", natter_cli_tr (run, "Too many arguments"));
      return;
    }
  if (!listing && run->args[1] == NULL)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s", natter_cli_tr (run, "Name the model"));
      return;
    }
  /* Never sent repaired: the server would get a name with U+FFFD in it. */
  if (!listing && !g_utf8_validate (run->args[1], -1, NULL))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s", natter_cli_tr (run, "A model name must be text in UTF-8"));
      return;
    }
  /* Blank is no name, as in the window (an empty one would ask the
   * server for nothing); spaces around a name are not part of it. */
  if (!listing && natter_text_is_blank (run->args[1]))
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s", natter_cli_tr (run, "Name the model"));
      return;
    }
  if (run->base_url != NULL && run->provider != NULL)
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_USAGE, "%s",
                       natter_cli_tr (run, "Give --provider or --base-url, not both"));
      return;
    }
  provider = chosen_provider (run);
  if (provider == NULL || provider[0] == '\0')
    {
      natter_cli_fail (run, NATTER_CLI_EXIT_FAILURE, "%s",
                       natter_cli_tr (run, "No provider is set up: add one in Preferences, "
                                      "or name a server with --base-url"));
      return;
    }

  models = g_new0 (ModelsRun, 1);
  models->run = run;
  models->name = listing ? NULL : g_strstrip (g_strdup (run->args[1]));
  terminal = g_application_command_line_getenv (run->cmdline, TERMINAL_ENV);
  models->terminal = terminal != NULL && g_str_equal (terminal, "1") && !run->json;
  models->library = natter_provider_registry_new_library (natter_services_get_provider_registry (run->services),
                                                          provider, &error);
  if (models->library == NULL)
    {
      models_fail (models, error);
      return;
    }
  if (listing)
    natter_model_library_list_async (models->library, NULL, listed_cb, models);
  else if (g_str_equal (action, "pull"))
    natter_model_library_pull_async (models->library, models->name, NULL, pull_started_cb, models);
  else
    natter_model_library_delete_async (models->library, models->name, NULL, deleted_cb, models);
}
