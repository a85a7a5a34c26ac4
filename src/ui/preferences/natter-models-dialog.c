/* natter-models-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "Manage Models…": the models on the server of one provider
 * (docs/runtime.md §13), opened from the model picker and from a
 * provider's row in Preferences. Every model is a
 * row with its size, parameters, quantization and when it changed; on
 * Ollama a name can be pulled, with the bytes of the whole and of each
 * file as they come and a Cancel, and a model deleted once the person
 * confirmed it. Another server's models are only listed. Everything the
 * server says (names, statuses, its reasons) is text: its rows read no
 * markup, and it is escaped wherever another widget does. Closing the window stops a pull; Ollama keeps
 * what came, so pulling the name again goes on from there.
 */

#define G_LOG_DOMAIN "natter-models-dialog"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-builder-part.h"
#include "natter-error-words.h"
#include "natter-models-dialog.h"
#include "natter-plain-text.h"

/* The parts this file builds by id (natter_builder_part()). */
#define PARTS_UI "natter-models-dialog-parts.ui"

struct _NatterModelsDialog
{
  AdwWindow           parent_instance;

  NatterModelLibrary *library;
  GCancellable       *cancellable;   /* everything of the window; the pull has its own */
  GCancellable       *listing;       /* the latest listing: a newer one replaces it */
  NatterModelPull    *pull;
  GPtrArray          *layer_rows;    /* AdwActionRow, by layer */

  /* Template children */
  AdwWindowTitle     *window_title;
  GtkWidget          *refresh_button;
  AdwPreferencesGroup *pull_group;
  AdwEntryRow        *pull_entry;
  GtkWidget          *pull_button;
  GtkWidget          *progress_box;
  GtkLabel           *pull_title;
  GtkLabel           *pull_status;
  GtkWidget          *cancel_button;
  GtkProgressBar     *progress_bar;
  GtkListBox         *layer_list;
  GtkLabel           *message_label;
  AdwPreferencesGroup *models_group;
  GtkStack           *stack;
  GtkSpinner         *spinner;
  GtkListBox         *model_list;
  AdwStatusPage      *problem_page;
};

G_DEFINE_FINAL_TYPE (NatterModelsDialog, natter_models_dialog, ADW_TYPE_WINDOW)

static void list_models (NatterModelsDialog *self);

static void
set_page (NatterModelsDialog *self,
          const char         *page)
{
  gtk_stack_set_visible_child_name (self->stack, page);
  gtk_spinner_set_spinning (self->spinner, g_strcmp0 (page, "loading") == 0);
}

/* A line under the pull: what became of it, or what went wrong. */
static void
say (NatterModelsDialog *self,
     const char         *text,
     gboolean            problem)
{
  /* A failure is made of untranslated words (natter-error-words.c). */
  g_autofree char *local = problem ? natter_error_words_local (text) : g_strdup (text);

  gtk_label_set_text (self->message_label, local);
  gtk_widget_set_visible (GTK_WIDGET (self->message_label), text != NULL);
  if (problem)
    gtk_widget_add_css_class (GTK_WIDGET (self->message_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->message_label), "error");
}

static void
show_problem (NatterModelsDialog *self,
              const char         *title,
              const char         *message)
{
  /* A status page's description is markup; the server's words are not. */
  g_autofree char *local = natter_error_words_local (message);
  g_autofree char *escaped = g_markup_escape_text (local, -1);

  adw_status_page_set_title (self->problem_page, title);
  adw_status_page_set_description (self->problem_page, escaped);
  set_page (self, "problem");
}

/* ---- the list ----------------------------------------------------- */

/* "2.0 GB · 3.2B parameters · Q4_K_M · changed 10 Nov 2026", of what
 * the server said. */
static char *
describe_model (const NatterModelInfo *info)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  if (info->size >= 0)
    g_ptr_array_add (parts, g_format_size (info->size));
  if (info->parameter_size != NULL)
    /* Translators: %s is a model's size in parameters, e.g. "3.2B" */
    g_ptr_array_add (parts, g_strdup_printf (_("%s parameters"), info->parameter_size));
  else if (info->parameter_count > 0)
    {
      g_autofree char *billions = g_strdup_printf ("%.1fB", info->parameter_count / 1e9);

      g_ptr_array_add (parts, g_strdup_printf (_("%s parameters"), billions));
    }
  if (info->quantization != NULL)
    g_ptr_array_add (parts, g_strdup (info->quantization));
  if (info->modified != NULL)
    {
      g_autoptr(GDateTime) local = g_date_time_to_local (info->modified);
      g_autofree char *date = g_date_time_format (local, "%x");

      /* Translators: %s is a date */
      g_ptr_array_add (parts, g_strdup_printf (_("changed %s"), date));
    }
  g_ptr_array_add (parts, NULL);
  return g_strjoinv (" · ", (char **) parts->pdata);
}

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterModelsDialog) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_model_library_delete_finish (NATTER_MODEL_LIBRARY (object), result, &error))
    {
      if (!g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED))
        say (self, error->message, TRUE);
      return;
    }
  /* The registry's models-changed lists again. */
}

static void
delete_response_cb (AdwMessageDialog   *dialog,
                    const char         *response,
                    NatterModelsDialog *self)
{
  const char *name = g_object_get_data (G_OBJECT (dialog), "model");

  if (!g_str_equal (response, "delete"))
    return;
  say (self, NULL, FALSE);
  natter_model_library_delete_async (self->library, name, self->cancellable, deleted_cb, g_object_ref (self));
}

static void
delete_clicked_cb (GtkButton          *button,
                   NatterModelsDialog *self)
{
  const char *name = g_object_get_data (G_OBJECT (button), "model");
  NatterOpenaiProvider *provider = natter_model_library_get_provider (self->library);
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  g_autofree char *heading = NULL;
  g_autofree char *body = NULL;
  g_autofree char *shown = natter_visible_text (name, NATTER_VISIBLE_KEEP_NONE);
  GtkWidget *dialog;

  /* Translators: %s is a model name */
  heading = g_strdup_printf (_("Delete “%s”?"), shown);
  /* Translators: %s is the name of a model provider, e.g. "Ollama" */
  body = g_strdup_printf (_("Its files are removed from %s. Using it again means pulling it again, whole."),
                          natter_openai_provider_get_display_name (provider));
  dialog = natter_builder_part (builder, PARTS_UI, "delete_dialog");
  gtk_window_set_transient_for (GTK_WINDOW (dialog), GTK_WINDOW (self));
  /* Heading and body are plain text: a name is the server's. */
  adw_message_dialog_set_heading (ADW_MESSAGE_DIALOG (dialog), heading);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog), body);
  g_object_set_data_full (G_OBJECT (dialog), "model", g_strdup (name), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (delete_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Adds @info's row to the list. */
static void
add_model_row (NatterModelsDialog    *self,
               const NatterModelInfo *info,
               gboolean               deletable)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  GtkWidget *row = natter_builder_part (builder, PARTS_UI, "model_row");
  g_autofree char *description = describe_model (info);
  /* The server's name, one line: a bidi override would turn it around. */
  g_autofree char *shown = natter_visible_text (info->name, NATTER_VISIBLE_KEEP_NONE);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), shown);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), description);
  g_object_set_data_full (G_OBJECT (row), "model", g_strdup (info->name), g_free);
  if (deletable)
    {
      GtkWidget *button = natter_builder_part (builder, PARTS_UI, "delete_button");
      /* Translators: %s is a model name; what a screen reader says of its delete button */
      g_autofree char *label = g_strdup_printf (_("Delete %s"), shown);

      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
      g_object_set_data_full (G_OBJECT (button), "model", g_strdup (info->name), g_free);
      g_signal_connect_object (button, "clicked", G_CALLBACK (delete_clicked_cb), self, 0);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
    }
  gtk_list_box_append (self->model_list, row);
}

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterModelsDialog) self = user_data;
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ollama;
  GtkWidget *child;

  models = natter_model_library_list_finish (NATTER_MODEL_LIBRARY (object), result, &error);
  if (g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED) ||
      g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_widget_set_sensitive (self->refresh_button, TRUE);
  if (models == NULL)
    {
      show_problem (self, _("Could Not List the Models"), error->message);
      return;
    }

  ollama = natter_model_library_get_kind (self->library) == NATTER_MODEL_SERVER_OLLAMA;
  gtk_widget_set_visible (GTK_WIDGET (self->pull_group), ollama);
  adw_preferences_group_set_description (self->models_group,
                                         ollama ? NULL
                                                : _("This server is not Ollama: its models are listed "
                                                    "here, and pulled or deleted with its own tools"));
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->model_list))) != NULL)
    gtk_list_box_remove (self->model_list, child);
  for (guint i = 0; i < models->len; i++)
    add_model_row (self, g_ptr_array_index (models, i), ollama);
  set_page (self, models->len > 0 ? "models" : "empty");
}

static void
list_models (NatterModelsDialog *self)
{
  gtk_widget_set_sensitive (self->refresh_button, FALSE);
  set_page (self, "loading");
  g_cancellable_cancel (self->listing);
  g_clear_object (&self->listing);
  self->listing = g_cancellable_new ();
  natter_model_library_list_async (self->library, self->listing, listed_cb, g_object_ref (self));
}

/* A model pulled or deleted on the server through Natter, here or
 * elsewhere (a forwarded `natter models pull`): the list follows. */
static void
models_changed_cb (NatterModelsDialog *self,
                   const char         *provider_id)
{
  if (g_strcmp0 (provider_id, natter_openai_provider_get_id (natter_model_library_get_provider (self->library))) == 0)
    list_models (self);
}

static void
refresh_clicked_cb (NatterModelsDialog *self)
{
  list_models (self);
}

/* ---- a pull ------------------------------------------------------- */

/* "1.0 GB of 2.0 GB" */
static char *
describe_bytes (gint64 completed,
                gint64 total)
{
  g_autofree char *done = g_format_size (completed);
  g_autofree char *whole = g_format_size (total);

  /* Translators: bytes of a download, e.g. "1.0 GB of 2.0 GB" */
  return g_strdup_printf (_("%s of %s"), done, whole);
}

/* Adds a row for the next layer of a pull, its bar as its "bar". */
static void
add_layer_row (NatterModelsDialog *self)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  GtkWidget *row = natter_builder_part (builder, PARTS_UI, "layer_row");

  g_object_set_data (G_OBJECT (row), "bar", gtk_builder_get_object (builder, "layer_bar"));
  g_ptr_array_add (self->layer_rows, row);
  gtk_list_box_append (self->layer_list, row);
}

static void
update_progress (NatterModelsDialog *self)
{
  NatterModelPull *pull = self->pull;
  g_autofree char *status = natter_model_pull_dup_short_status (pull);
  gint64 total = natter_model_pull_get_total (pull);
  gint64 completed = natter_model_pull_get_completed (pull);

  gtk_label_set_text (self->pull_status, status != NULL ? status : _("Starting…"));
  if (total > 0)
    {
      g_autofree char *bytes = describe_bytes (completed, total);

      gtk_progress_bar_set_fraction (self->progress_bar, (double) completed / (double) total);
      gtk_progress_bar_set_text (self->progress_bar, bytes);
    }
  else
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      gtk_progress_bar_set_text (self->progress_bar, _("Waiting for the server…"));
    }

  for (guint i = 0; i < natter_model_pull_get_n_layers (pull); i++)
    {
      const NatterModelPullLayer *layer = natter_model_pull_get_layer (pull, i);
      const char *hex = g_str_has_prefix (layer->digest, "sha256:") ? layer->digest + strlen ("sha256:")
                                                                    : layer->digest;
      g_autofree char *short_digest = g_strndup (hex, 12);
      g_autofree char *bytes = describe_bytes (layer->completed, layer->total);
      GtkWidget *row;

      if (i == self->layer_rows->len)
        add_layer_row (self);
      row = g_ptr_array_index (self->layer_rows, i);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), short_digest);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), bytes);
      gtk_progress_bar_set_fraction (g_object_get_data (G_OBJECT (row), "bar"),
                                     layer->total > 0 ? (double) layer->completed / (double) layer->total : 0);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->layer_list), self->layer_rows->len > 0);
}

static void
progress_cb (NatterModelPull    *pull,
             NatterModelsDialog *self)
{
  update_progress (self);
}

static void
pull_controls_set_busy (NatterModelsDialog *self,
                        gboolean            busy)
{
  /* The entry stays as it is: taking it away under the keyboard focus
   * would leave its cursor blinking; Enter in it does nothing while a
   * pull runs. */
  gtk_widget_set_sensitive (self->pull_button,
                            !busy && gtk_editable_get_text (GTK_EDITABLE (self->pull_entry))[0] != '\0');
  gtk_widget_set_visible (self->progress_box, busy);
}

static void
forget_pull (NatterModelsDialog *self)
{
  GtkWidget *child;

  if (self->pull == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->pull, self);
  g_clear_object (&self->pull);
  g_ptr_array_set_size (self->layer_rows, 0);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->layer_list))) != NULL)
    gtk_list_box_remove (self->layer_list, child);
}

static void
state_cb (NatterModelPull    *pull,
          GParamSpec         *pspec,
          NatterModelsDialog *self)
{
  g_autofree char *message = NULL;
  const char *name = natter_model_pull_get_name (pull);

  switch (natter_model_pull_get_state (pull))
    {
    case NATTER_MODEL_PULL_SUCCEEDED:
      /* Translators: %s is a model name */
      message = g_strdup_printf (_("“%s” was pulled"), name);
      say (self, message, FALSE);
      gtk_editable_set_text (GTK_EDITABLE (self->pull_entry), "");
      break;
    case NATTER_MODEL_PULL_FAILED:
      say (self, natter_model_pull_get_error (pull)->message, TRUE);
      break;
    case NATTER_MODEL_PULL_CANCELLED:
      /* Translators: %s is a model name */
      message = g_strdup_printf (_("The pull of “%s” was stopped. Pulling it again goes on where it stopped."),
                                 name);
      say (self, message, FALSE);
      break;
    case NATTER_MODEL_PULL_RUNNING:
    default:
      return;
    }
  forget_pull (self);
  pull_controls_set_busy (self, FALSE);
}

static void
pull_started_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(NatterModelsDialog) self = user_data;
  g_autoptr(GError) error = NULL;
  NatterModelPull *pull;

  pull = natter_model_library_pull_finish (NATTER_MODEL_LIBRARY (object), result, &error);
  if (pull == NULL)
    {
      if (!g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED))
        say (self, error->message, TRUE);
      pull_controls_set_busy (self, FALSE);
      return;
    }
  /* The window closed while the server was asked what it is. */
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      natter_model_pull_cancel (pull);
      g_object_unref (pull);
      return;
    }
  self->pull = pull;
  g_signal_connect (pull, "progress", G_CALLBACK (progress_cb), self);
  g_signal_connect (pull, "notify::state", G_CALLBACK (state_cb), self);
  update_progress (self);
}

/**
 * natter_models_dialog_pull:
 * @self: the dialog
 * @name: a model name from the Ollama library
 *
 * What Pull does with @name typed: starts pulling it and shows its
 * progress. Does nothing while a pull runs or for a blank name.
 */
void
natter_models_dialog_pull (NatterModelsDialog *self,
                           const char         *name)
{
  g_autofree char *stripped = NULL;
  g_autofree char *title = NULL;

  g_return_if_fail (NATTER_IS_MODELS_DIALOG (self));
  g_return_if_fail (name != NULL);

  stripped = g_strstrip (g_strdup (name));
  if (self->pull != NULL || gtk_widget_get_visible (self->progress_box) || stripped[0] == '\0')
    return;
  say (self, NULL, FALSE);
  /* Translators: %s is a model name */
  title = g_strdup_printf (_("Pulling “%s”"), stripped);
  gtk_label_set_text (self->pull_title, title);
  gtk_label_set_text (self->pull_status, _("Starting…"));
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, _("Waiting for the server…"));
  gtk_widget_set_visible (GTK_WIDGET (self->layer_list), FALSE);
  pull_controls_set_busy (self, TRUE);
  natter_model_library_pull_async (self->library, stripped, self->cancellable, pull_started_cb,
                                   g_object_ref (self));
}

static void
pull_clicked_cb (NatterModelsDialog *self)
{
  natter_models_dialog_pull (self, gtk_editable_get_text (GTK_EDITABLE (self->pull_entry)));
}

static void
pull_entry_changed_cb (NatterModelsDialog *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->pull_entry));
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  gtk_widget_set_sensitive (self->pull_button, stripped[0] != '\0' && self->pull == NULL);
}

static void
cancel_clicked_cb (NatterModelsDialog *self)
{
  if (self->pull != NULL)
    natter_model_pull_cancel (self->pull);
}

/* ---- the object --------------------------------------------------- */

static void
natter_models_dialog_dispose (GObject *object)
{
  NatterModelsDialog *self = NATTER_MODELS_DIALOG (object);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->listing);
  if (self->pull != NULL)
    natter_model_pull_cancel (self->pull);
  forget_pull (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_MODELS_DIALOG);

  G_OBJECT_CLASS (natter_models_dialog_parent_class)->dispose (object);
}

static void
natter_models_dialog_finalize (GObject *object)
{
  NatterModelsDialog *self = NATTER_MODELS_DIALOG (object);

  g_clear_object (&self->library);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->listing);
  g_clear_pointer (&self->layer_rows, g_ptr_array_unref);

  G_OBJECT_CLASS (natter_models_dialog_parent_class)->finalize (object);
}

/* Closing stops what runs: a pull is not left without a way to stop it. */
static gboolean
natter_models_dialog_close_request (GtkWindow *window)
{
  NatterModelsDialog *self = NATTER_MODELS_DIALOG (window);

  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->listing);
  if (self->pull != NULL)
    natter_model_pull_cancel (self->pull);
  return GTK_WINDOW_CLASS (natter_models_dialog_parent_class)->close_request (window);
}

static void
natter_models_dialog_class_init (NatterModelsDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = natter_models_dialog_dispose;
  object_class->finalize = natter_models_dialog_finalize;
  window_class->close_request = natter_models_dialog_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-models-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, window_title);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, pull_group);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, pull_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, pull_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, progress_box);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, pull_title);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, pull_status);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, layer_list);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, message_label);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, models_group);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, stack);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, model_list);
  gtk_widget_class_bind_template_child (widget_class, NatterModelsDialog, problem_page);
  gtk_widget_class_bind_template_callback (widget_class, refresh_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, pull_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, pull_entry_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, cancel_clicked_cb);
}

static void
natter_models_dialog_init (NatterModelsDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->layer_rows = g_ptr_array_new ();
}

/**
 * natter_models_dialog_new:
 * @parent: (nullable): the window it belongs to
 * @registry: the provider registry
 * @provider_id: a configured provider's id, or an endpoint URL
 *
 * Opens the models of @provider_id's server and lists them at once. A
 * provider the registry does not know is said on the page, as a server
 * that cannot be reached is.
 *
 * Returns: (transfer floating): the dialog, not yet shown
 */
GtkWidget *
natter_models_dialog_new (GtkWindow              *parent,
                          NatterProviderRegistry *registry,
                          const char             *provider_id)
{
  NatterModelsDialog *self;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (NATTER_IS_PROVIDER_REGISTRY (registry), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_MODELS_DIALOG, "transient-for", parent, NULL);
  self->library = natter_provider_registry_new_library (registry, provider_id, &error);
  if (self->library == NULL)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->pull_group), FALSE);
      gtk_widget_set_sensitive (self->refresh_button, FALSE);
      show_problem (self, _("Not One of Your Providers"), error->message);
      return GTK_WIDGET (self);
    }
  g_signal_connect_object (registry, "models-changed", G_CALLBACK (models_changed_cb), self, G_CONNECT_SWAPPED);
  adw_window_title_set_subtitle (self->window_title,
                                 natter_openai_provider_get_display_name (natter_model_library_get_provider (self->library)));
  list_models (self);
  return GTK_WIDGET (self);
}

/**
 * natter_models_dialog_get_state:
 * @self: the dialog
 *
 * Returns: what the list shows: "loading", "models", "empty" or
 *   "problem" (the server could not be asked, or is not known)
 */
const char *
natter_models_dialog_get_state (NatterModelsDialog *self)
{
  g_return_val_if_fail (NATTER_IS_MODELS_DIALOG (self), NULL);
  return gtk_stack_get_visible_child_name (self->stack);
}

/**
 * natter_models_dialog_get_pull:
 * @self: the dialog
 *
 * Returns: (transfer none) (nullable): the pull shown, while it runs
 */
NatterModelPull *
natter_models_dialog_get_pull (NatterModelsDialog *self)
{
  g_return_val_if_fail (NATTER_IS_MODELS_DIALOG (self), NULL);
  return self->pull;
}
