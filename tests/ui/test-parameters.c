/* test-parameters.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation menu's Model Settings (docs/sessions.md §15): the
 * dialog shows what the conversation keeps, refuses a value out of range
 * without closing, keeps what is saved as `parameters_changed`, and the
 * next message sent from the window's composer carries it to the model;
 * Use Defaults forgets it.
 */

#include "natter-composer.h"
#include "natter-parameters-dialog.h"
#include "natter-session-grants-queue.h"
#include "natter-session-parameters-state.h"
#include "natter-sessions-settings.h"
#include "natter-test-sessions.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static NatterParametersDialog *
find_dialog (void)
{
  GtkWindow *dialog = ui_find_toplevel (NATTER_TYPE_PARAMETERS_DIALOG);

  return dialog != NULL ? NATTER_PARAMETERS_DIALOG (dialog) : NULL;
}

/* The entry row titled @title in @dialog. */
static GtkEditable *
field (NatterParametersDialog *dialog,
       const char             *title)
{
  g_autoptr(GPtrArray) rows = ui_find_all (dialog, ADW_TYPE_ENTRY_ROW);

  for (guint i = 0; i < rows->len; i++)
    if (g_str_equal (adw_preferences_row_get_title (g_ptr_array_index (rows, i)), title))
      return GTK_EDITABLE (g_ptr_array_index (rows, i));
  g_error ("no field “%s”", title);
}

/* Clicks the dialog's button @label, as a person would. */
static void
click (NatterParametersDialog *dialog,
       const char             *label)
{
  GtkWidget *button = ui_find_button (dialog, label);

  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  gboolean    expect_kept;
} Kept;

static gboolean
kept_is (gpointer data)
{
  Kept *kept = data;

  return (natter_sessions_get_kept_parameters (kept->u->sessions, kept->session_id) != NULL) == kept->expect_kept;
}

static gboolean
requests_reach (gpointer data)
{
  UiWorld *u = data;

  return natter_fake_model_get_n_requests (u->w->fakes->model) >= 1;
}

static void
test_model_settings (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Tuned");
  NatterParametersDialog *dialog;
  NatterWindow *window;
  GtkWidget *temperature;
  g_autoptr(NatterGenerationParameters) expected = natter_generation_parameters_new ();
  g_autoptr(NatterSessionState) state = NULL;
  JsonObject *request;
  JsonObject *parameters;
  Kept kept = { u, session_id, TRUE };

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.parameters", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  dialog = find_dialog ();
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "Temperature (0 to 2)")), ==, "");
  /* Its buttons are named as they show, not "_Cancel Cancel". */
  ui_assert_named_as_shown (ui_find_button (dialog, "_Cancel"), "Cancel");
  ui_assert_named_as_shown (ui_find_button (dialog, "_Save"), "Save");

  /* Out of range: marked, Save waits, nothing lost. */
  temperature = GTK_WIDGET (field (dialog, "Temperature (0 to 2)"));
  gtk_editable_set_text (GTK_EDITABLE (temperature), "7");
  g_assert_true (gtk_widget_has_css_class (temperature, "error"));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (temperature), ==, "Temperature must be a number from 0 to 2");
  g_assert_false (adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "save"));
  g_assert_null (natter_parameters_dialog_dup_parameters (dialog));
  /* A decimal comma reads as a point; out of range, the dialog says in
   * words what the field expects, not only in a tooltip. */
  gtk_editable_set_text (GTK_EDITABLE (temperature), "2,5");
  g_assert_true (gtk_widget_has_css_class (temperature, "error"));
  g_assert_false (adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "save"));
  g_assert_true (ui_label_shown (dialog, "Temperature must be a number from 0 to 2"));
  gtk_editable_set_text (GTK_EDITABLE (temperature), "1,5");
  g_assert_false (gtk_widget_has_css_class (temperature, "error"));
  g_assert_false (ui_label_shown (dialog, "Temperature must be a number from 0 to 2"));
  g_assert_true (adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "save"));

  gtk_editable_set_text (GTK_EDITABLE (temperature), "0,5");
  g_assert_false (gtk_widget_has_css_class (temperature, "error"));
  g_assert_true (adw_message_dialog_get_response_enabled (ADW_MESSAGE_DIALOG (dialog), "save"));
  gtk_editable_set_text (field (dialog, "Seed"), "11");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (ui_find_first (dialog, GTK_TYPE_TEXT_VIEW))),
                            "Answer in haiku.", -1);
  ui_save_window (GTK_WIDGET (dialog), "model-settings-dialog.png");
  click (dialog, "_Save");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  ui_wait_until (kept_is, &kept);

  expected->has_temperature = TRUE;
  expected->temperature = 0.5;
  expected->has_seed = TRUE;
  expected->seed = 11;
  natter_generation_parameters_set_system_instruction (expected, "Answer in haiku.");
  state = ui_get_session (u, session_id);
  g_assert_cmpint (natter_session_state_get_schema_version (state), ==, 3);
  g_assert_true (natter_generation_parameters_equal (natter_session_state_get_parameters (state), expected));

  /* The dialog opens with what is kept. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.parameters", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  dialog = find_dialog ();
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "Temperature (0 to 2)")), ==, "0.5");
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "Seed")), ==, "11");
  click (dialog, "_Cancel");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));

  /* The window's next message carries them to the model. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  natter_composer_set_text (natter_window_get_composer (window), "A poem, please");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (requests_reach, u);
  request = natter_fake_model_get_request (u->w->fakes->model, 0);
  parameters = json_object_get_object_member (request, "parameters");
  g_assert_cmpfloat (json_object_get_double_member (parameters, "temperature"), ==, 0.5);
  g_assert_cmpint (json_object_get_int_member (parameters, "seed"), ==, 11);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (request, "systemPrompt"), "Answer in haiku."));
  ui_wait_until (ui_no_advances, u);

  /* Use Defaults forgets them. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.parameters", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  click (find_dialog (), "Use _Defaults");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  kept.expect_kept = FALSE;
  ui_wait_until (kept_is, &kept);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld                          *u;
  const char                       *session_id;
  const NatterGenerationParameters *expected;
} KeptAs;

static gboolean
kept_as (gpointer data)
{
  KeptAs *k = data;

  return natter_generation_parameters_equal (natter_sessions_get_kept_parameters (k->u->sessions, k->session_id),
                                             k->expected);
}

static gboolean
seed_shows_7 (gpointer dialog)
{
  return g_strcmp0 (gtk_editable_get_text (field (dialog, "Seed")), "7") == 0;
}

static char *
instruction_of (NatterParametersDialog *dialog)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (ui_find_first (dialog, GTK_TYPE_TEXT_VIEW)));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* Settings changed elsewhere (`natter params`) while the dialog is open:
 * Save keeps what the person changed in it, and leaves the others as
 * they are now, never as the dialog first showed them. */
static void
test_save_keeps_changes_made_elsewhere (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Tuned twice");
  g_autoptr(NatterGenerationParameters) first = natter_generation_parameters_new ();
  g_autoptr(NatterGenerationParameters) elsewhere = NULL;
  g_autoptr(NatterGenerationParameters) expected = NULL;
  g_autoptr(GAsyncResult) set_first = NULL;
  g_autoptr(GAsyncResult) set_elsewhere = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *instruction = NULL;
  NatterParametersDialog *dialog;
  NatterWindow *window;
  KeptAs kept;

  first->has_temperature = TRUE;
  first->temperature = 0.5;
  natter_sessions_set_parameters_async (u->sessions, session_id, first, NULL, ui_result_cb, &set_first);
  g_assert_true (natter_sessions_set_parameters_finish (u->sessions, ui_wait_result (&set_first), &error));
  g_assert_no_error (error);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.parameters", NULL));
  ui_wait_until (ui_toplevel_shown, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  dialog = find_dialog ();
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "Temperature (0 to 2)")), ==, "0.5");

  /* Meanwhile, elsewhere: a seed and an instruction. */
  elsewhere = natter_generation_parameters_copy (first);
  elsewhere->has_seed = TRUE;
  elsewhere->seed = 7;
  natter_generation_parameters_set_system_instruction (elsewhere, "Answer in French.");
  gtk_editable_set_text (field (dialog, "Temperature (0 to 2)"), "0.9");
  natter_sessions_set_parameters_async (u->sessions, session_id, elsewhere, NULL, ui_result_cb, &set_elsewhere);
  g_assert_true (natter_sessions_set_parameters_finish (u->sessions, ui_wait_result (&set_elsewhere), &error));
  g_assert_no_error (error);

  /* The fields left as they were follow (the window learns of the
   * change); a field changed in the dialog keeps the person's words. */
  ui_wait_until (seed_shows_7, dialog);
  g_assert_cmpstr (gtk_editable_get_text (field (dialog, "Temperature (0 to 2)")), ==, "0.9");
  instruction = instruction_of (dialog);
  g_assert_cmpstr (instruction, ==, "Answer in French.");
  click (dialog, "_Save");
  ui_wait_until (ui_toplevel_gone, GSIZE_TO_POINTER (NATTER_TYPE_PARAMETERS_DIALOG));
  expected = natter_generation_parameters_copy (elsewhere);
  expected->temperature = 0.9;
  kept = (KeptAs) { u, session_id, expected };
  ui_wait_until (kept_as, &kept);

  g_clear_object (&set_first);
  g_clear_object (&set_elsewhere);
  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/parameters/model-settings", test_model_settings);
  g_test_add_func ("/parameters/save-keeps-changes-made-elsewhere", test_save_keeps_changes_made_elsewhere);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
