/* test-models.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Manage Models… (docs/runtime.md §13) against the scripted Ollama of
 * tests/support: opened from the model picker, it lists the server's
 * models (a name full of markup shown as text), pulls one with the
 * bytes of the whole and of each file and a Cancel that stops it, says
 * a failure in plain words, deletes after a confirmation, and a pulled
 * or deleted model is in or out of the picker at once.
 */

#include "natter-model-picker.h"
#include "natter-models-dialog.h"
#include "natter-provider-registry.h"
#include "natter-test-ollama.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

#define NBSP "\xc2\xa0"
#define ODD_NAME "odd&<b>name:latest"

static NatterApplication *app;

static NatterModelsDialog *
find_dialog (void)
{
  return (NatterModelsDialog *) ui_find_toplevel (NATTER_TYPE_MODELS_DIALOG);
}

static AdwMessageDialog *
find_confirmation (void)
{
  return (AdwMessageDialog *) ui_find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
}

static gboolean
dialog_listed (gpointer data)
{
  return g_strcmp0 (natter_models_dialog_get_state (data), "models") == 0;
}

/* The model names the dialog's list shows, as the person reads them. */
static GStrv
listed_names (NatterModelsDialog *dialog)
{
  GtkListBox *list = GTK_LIST_BOX (gtk_widget_get_template_child (GTK_WIDGET (dialog), NATTER_TYPE_MODELS_DIALOG,
                                                                   "model_list"));
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (list)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    g_strv_builder_add (names, g_object_get_data (G_OBJECT (row), "model"));
  return g_strv_builder_end (names);
}

static gboolean
picker_lists (NatterModelPicker *picker,
              const char        *name)
{
  GListModel *models = natter_model_picker_get_models (picker);

  for (guint i = 0; i < g_list_model_get_n_items (models); i++)
    if (g_str_equal (gtk_string_list_get_string (GTK_STRING_LIST (models), i), name))
      return TRUE;
  return FALSE;
}

static GtkWidget *
child (NatterModelsDialog *dialog,
       const char         *name)
{
  return GTK_WIDGET (gtk_widget_get_template_child (GTK_WIDGET (dialog), NATTER_TYPE_MODELS_DIALOG, name));
}

static void
click (gpointer    root,
       const char *label)
{
  GtkWidget *button = ui_find_button (root, label);

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_sensitive (button));
  g_signal_emit_by_name (button, "clicked");
}

static void
type_and_pull (NatterModelsDialog *dialog,
               const char         *name)
{
  gtk_editable_set_text (GTK_EDITABLE (child (dialog, "pull_entry")), name);
  click (dialog, "_Pull");
}

typedef struct
{
  NatterModelsDialog *dialog;
  const char         *text;
} Said;

static gboolean
message_says (gpointer data)
{
  Said *said = data;
  GtkLabel *label = GTK_LABEL (child (said->dialog, "message_label"));

  return gtk_widget_get_visible (GTK_WIDGET (label)) && strstr (gtk_label_get_text (label), said->text) != NULL;
}

static gboolean
half_pulled (gpointer data)
{
  GtkProgressBar *bar = GTK_PROGRESS_BAR (child (data, "progress_bar"));

  return gtk_progress_bar_get_fraction (bar) == 0.5;
}

typedef struct
{
  NatterModelPicker *picker;
  const char        *name;
  gboolean           listed;
} PickerHas;

static gboolean
picker_has (gpointer data)
{
  PickerHas *has = data;

  return g_strcmp0 (natter_model_picker_get_state (has->picker), "models") == 0 &&
         picker_lists (has->picker, has->name) == has->listed;
}

typedef struct
{
  NatterModelsDialog *dialog;
  guint               n;
} Listed;

static gboolean
dialog_lists_n (gpointer data)
{
  Listed *listed = data;
  g_auto(GStrv) names = NULL;

  if (!dialog_listed (listed->dialog))
    return FALSE;
  names = listed_names (listed->dialog);
  return g_strv_length (names) == listed->n;
}

static gboolean
manage_button_shown (gpointer data)
{
  return ui_find_button (data, "_Manage Models…") != NULL;
}

static void
test_manage_models (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterTestOllama) ollama = natter_test_ollama_new ("llama3.2:latest", "qwen2.5:7b", ODD_NAME, NULL);
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterWindow *window;
  NatterModelPicker *picker;
  NatterModelsDialog *dialog;
  AdwMessageDialog *confirmation;
  GtkProgressBar *bar;
  GtkListBox *layers;
  g_auto(GStrv) names = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  PickerHas has;
  Said said;
  Listed listed;

  natter_provider_registry_add_provider (registry, "ollama", "Ollama", ollama->server->base_url);
  window = ui_window_new (app, u);
  natter_window_set_model_provider (window, registry, "ollama", "llama3.2:latest");
  picker = natter_window_get_model_picker (window);
  has = (PickerHas) { picker, "llama3.2:latest", TRUE };
  ui_wait_until (picker_has, &has);

  /* From the picker's popover. */
  natter_model_picker_popup (picker);
  ui_wait_until (manage_button_shown, picker);
  click (picker, "_Manage Models…");
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_MODELS_DIALOG));
  dialog = find_dialog ();
  ui_wait_until (dialog_listed, dialog);
  names = listed_names (dialog);
  g_assert_cmpuint (g_strv_length (names), ==, 3);
  g_assert_cmpstr (names[0], ==, "llama3.2:latest");
  g_assert_cmpstr (names[2], ==, ODD_NAME);
  /* The server's name is text: its row reads no markup and shows its
   * markup characters as they are. */
  rows = ui_find_all (child (dialog, "model_list"), ADW_TYPE_ACTION_ROW);
  g_assert_cmpstr (adw_preferences_row_get_title (g_ptr_array_index (rows, 2)), ==, ODD_NAME);
  g_assert_true (ui_label_shown (g_ptr_array_index (rows, 2), ODD_NAME));
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (g_ptr_array_index (rows, 0)),
                            "2.0" NBSP "GB · 3.2B parameters · Q4_K_M · changed "));

  /* A pull, halfway, then cancelled. */
  ollama->pull = NATTER_TEST_PULL_HOLDS_HALFWAY;
  type_and_pull (dialog, "gemma3:1b");
  ui_wait_until (half_pulled, dialog);
  bar = GTK_PROGRESS_BAR (child (dialog, "progress_bar"));
  g_assert_cmpstr (gtk_progress_bar_get_text (bar), ==, "1.0" NBSP "GB of 2.0" NBSP "GB");
  g_assert_true (ui_label_shown (dialog, "Pulling “gemma3:1b”"));
  g_assert_true (ui_label_shown (dialog, "pulling dde5aa3fc5ff"));
  layers = GTK_LIST_BOX (child (dialog, "layer_list"));
  g_assert_nonnull (gtk_list_box_get_row_at_index (layers, 0));
  g_assert_null (gtk_list_box_get_row_at_index (layers, 1));
  g_assert_false (gtk_widget_is_sensitive (child (dialog, "pull_button")));
  ui_save_screen ("models-pull.png");
  {
    /* Each control of the list and of the pull under way, Cancel too,
     * is said by name. */
    g_autoptr(GPtrArray) cycle = ui_tab_cycle (dialog, NULL);

    ui_assert_tab_stops_named (cycle, "the models dialog, pulling");
  }

  click (dialog, "_Cancel");
  said = (Said) { dialog, "The pull of “gemma3:1b” was stopped." };
  ui_wait_until (message_says, &said);
  g_assert_null (natter_models_dialog_get_pull (dialog));
  g_assert_false (gtk_widget_get_visible (child (dialog, "progress_box")));
  g_assert_false (natter_test_ollama_has_model (ollama, "gemma3:1b"));
  g_assert_true (natter_test_ollama_finish_pull (ollama));

  /* Pulled whole: in the dialog's list and in the picker, without a
   * Refresh. */
  ollama->pull = NATTER_TEST_PULL_SUCCEEDS;
  type_and_pull (dialog, "gemma3:1b");
  said = (Said) { dialog, "“gemma3:1b” was pulled" };
  ui_wait_until (message_says, &said);
  listed = (Listed) { dialog, 4 };
  ui_wait_until (dialog_lists_n, &listed);
  has = (PickerHas) { picker, "gemma3:1b", TRUE };
  ui_wait_until (picker_has, &has);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (child (dialog, "pull_entry"))), ==, "");

  /* A pull that fails halfway says why, in plain words. */
  ollama->pull = NATTER_TEST_PULL_FAILS_HALFWAY;
  type_and_pull (dialog, "phi4");
  said = (Said) { dialog, "is full: “phi4” could not be pulled" };
  ui_wait_until (message_says, &said);
  g_assert_true (gtk_widget_has_css_class (child (dialog, "message_label"), "error"));
  g_assert_true (gtk_widget_is_sensitive (child (dialog, "pull_button")));

  /* Deleted after the person confirmed it. */
  rows = (g_ptr_array_unref (rows), ui_find_all (child (dialog, "model_list"), GTK_TYPE_BUTTON));
  g_assert_cmpuint (rows->len, ==, 4);
  g_signal_emit_by_name (g_ptr_array_index (rows, 1), "clicked");
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_MESSAGE_DIALOG));
  confirmation = find_confirmation ();
  g_assert_cmpstr (adw_message_dialog_get_heading (confirmation), ==, "Delete “qwen2.5:7b”?");
  g_assert_true (natter_test_ollama_has_model (ollama, "qwen2.5:7b"));
  adw_message_dialog_response (confirmation, "delete");
  listed = (Listed) { dialog, 3 };
  ui_wait_until (dialog_lists_n, &listed);
  g_assert_false (natter_test_ollama_has_model (ollama, "qwen2.5:7b"));
  has = (PickerHas) { picker, "qwen2.5:7b", FALSE };
  ui_wait_until (picker_has, &has);

  gtk_window_destroy (GTK_WINDOW (dialog));
  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
dialog_problem (gpointer data)
{
  return g_strcmp0 (natter_models_dialog_get_state (data), "problem") == 0;
}

/* A server that is not running is said on the page, as it is. */
static void
test_server_down (void)
{
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  NatterModelsDialog *dialog;
  AdwStatusPage *page;

  natter_provider_registry_add_provider (registry, "ollama", "Ollama", url);
  dialog = NATTER_MODELS_DIALOG (natter_models_dialog_new (NULL, registry, "ollama"));
  gtk_window_present (GTK_WINDOW (dialog));
  ui_wait_until (dialog_problem, dialog);
  page = ADW_STATUS_PAGE (child (dialog, "problem_page"));
  g_assert_cmpstr (adw_status_page_get_title (page), ==, "Could Not List the Models");
  g_assert_nonnull (strstr (adw_status_page_get_description (page), "is it running?"));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

int
main (int   argc,
      char *argv[])
{
  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/models/manage", test_manage_models);
  g_test_add_func ("/models/server-down", test_server_down);

  return g_test_run ();
}
