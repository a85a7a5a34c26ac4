/* natter-parameters-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation menu's "Model Settings": the generation parameters a
 * conversation keeps (docs/sessions.md §15), one field each, empty for the
 * model's default, and the instruction added to the agent's prompt. What
 * is typed is read as the command line reads its options
 * (natter-parameters-input.c); a field that cannot be read is marked and
 * Save waits until it can, so nothing typed is lost to a closed dialog.
 * The window keeps what the person saved (natter-window-actions.c).
 */

#define G_LOG_DOMAIN "natter-parameters-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-parameters-dialog.h"
#include "natter-parameters-input.h"

#define N_FIELDS 4

struct _NatterParametersDialog
{
  AdwMessageDialog  parent_instance;

  AdwEntryRow      *rows[N_FIELDS];   /* by NatterParameter */
  GtkTextView      *instruction;
};

G_DEFINE_FINAL_TYPE (NatterParametersDialog, natter_parameters_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Reads every field into new parameters; NULL when one cannot be read,
 * with each such row marked and its reason as its tooltip. */
static NatterGenerationParameters *
read_fields (NatterParametersDialog *self)
{
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autofree char *instruction = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->instruction);
  GtkTextIter start, end;
  gboolean ok = TRUE;

  for (guint i = 0; i < N_FIELDS; i++)
    {
      GtkWidget *row = GTK_WIDGET (self->rows[i]);
      g_autoptr(GError) error = NULL;

      if (natter_parameters_input_set (parameters, (NatterParameter) i,
                                       gtk_editable_get_text (GTK_EDITABLE (row)), &error))
        {
          gtk_widget_remove_css_class (row, "error");
          gtk_widget_set_tooltip_text (row, NULL);
          gtk_accessible_reset_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_INVALID);
          continue;
        }
      gtk_widget_add_css_class (row, "error");
      gtk_widget_set_tooltip_text (row, error->message);
      gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_INVALID,
                                   GTK_ACCESSIBLE_INVALID_TRUE, -1);
      ok = FALSE;
    }
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  instruction = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  natter_generation_parameters_set_system_instruction (parameters, instruction);
  return ok ? g_steal_pointer (&parameters) : NULL;
}

static void
field_changed_cb (NatterParametersDialog *self)
{
  g_autoptr(NatterGenerationParameters) parameters = read_fields (self);

  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (self), "save", parameters != NULL);
}

static void
natter_parameters_dialog_class_init (NatterParametersDialogClass *klass)
{
}

static AdwEntryRow *
add_row (GtkListBox *list,
         const char *title)
{
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_entry_row_set_activates_default (ADW_ENTRY_ROW (row), TRUE);
  gtk_list_box_append (list, row);
  return ADW_ENTRY_ROW (row);
}

static void
natter_parameters_dialog_init (NatterParametersDialog *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *list = gtk_list_box_new ();
  GtkWidget *label;
  GtkWidget *scrolled;

  gtk_list_box_set_selection_mode (GTK_LIST_BOX (list), GTK_SELECTION_NONE);
  gtk_widget_add_css_class (list, "boxed-list");
  self->rows[NATTER_PARAMETER_TEMPERATURE] = add_row (GTK_LIST_BOX (list), _("Temperature (0 to 2)"));
  self->rows[NATTER_PARAMETER_TOP_P] = add_row (GTK_LIST_BOX (list), _("Top-p (0 to 1)"));
  self->rows[NATTER_PARAMETER_MAX_TOKENS] = add_row (GTK_LIST_BOX (list), _("Most Tokens per Answer"));
  self->rows[NATTER_PARAMETER_SEED] = add_row (GTK_LIST_BOX (list), _("Seed"));
  gtk_box_append (GTK_BOX (box), list);

  label = gtk_label_new_with_mnemonic (_("_Added Instruction"));
  gtk_widget_set_halign (label, GTK_ALIGN_START);
  gtk_widget_add_css_class (label, "heading");
  gtk_box_append (GTK_BOX (box), label);
  self->instruction = GTK_TEXT_VIEW (gtk_text_view_new ());
  gtk_text_view_set_wrap_mode (self->instruction, GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_accepts_tab (self->instruction, FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->instruction), "inline");
  gtk_text_view_set_top_margin (self->instruction, 8);
  gtk_text_view_set_bottom_margin (self->instruction, 8);
  gtk_text_view_set_left_margin (self->instruction, 8);
  gtk_text_view_set_right_margin (self->instruction, 8);
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->instruction));
  scrolled = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 90);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->instruction));
  gtk_widget_add_css_class (scrolled, "card");
  gtk_box_append (GTK_BOX (box), scrolled);

  adw_message_dialog_set_heading (ADW_MESSAGE_DIALOG (self), _("Model Settings"));
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (self),
                               _("Every later message of this conversation is sent with these. "
                                 "Leave a field empty for the model’s default."));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (self), box);
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (self),
                                    "cancel", _("_Cancel"),
                                    "defaults", _("Use _Defaults"),
                                    "save", _("_Save"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (self), "save", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (self), "save");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (self), "cancel");

  for (guint i = 0; i < N_FIELDS; i++)
    g_signal_connect_object (self->rows[i], "changed", G_CALLBACK (field_changed_cb), self, G_CONNECT_SWAPPED);
}

/**
 * natter_parameters_dialog_new:
 * @parent: the window it belongs to
 * @kept: (nullable): what the conversation keeps now, shown in the fields
 *
 * Returns: (transfer floating): the dialog, not shown yet; its responses
 *   are "cancel", "defaults" (keep none) and "save"
 *   (natter_parameters_dialog_dup_parameters())
 */
GtkWidget *
natter_parameters_dialog_new (GtkWindow                        *parent,
                              const NatterGenerationParameters *kept)
{
  NatterParametersDialog *self;

  g_return_val_if_fail (GTK_IS_WINDOW (parent), NULL);

  self = g_object_new (NATTER_TYPE_PARAMETERS_DIALOG, "transient-for", parent, "modal", TRUE, NULL);
  if (kept != NULL)
    {
      for (guint i = 0; i < N_FIELDS; i++)
        {
          g_autofree char *text = natter_parameters_input_format (kept, (NatterParameter) i);

          gtk_editable_set_text (GTK_EDITABLE (self->rows[i]), text != NULL ? text : "");
        }
      if (kept->system_instruction != NULL)
        gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->instruction), kept->system_instruction, -1);
    }
  return GTK_WIDGET (self);
}

/**
 * natter_parameters_dialog_dup_parameters:
 * @self: the dialog
 *
 * What the fields say now.
 *
 * Returns: (transfer full) (nullable): the parameters (empty when every
 *   field is), or %NULL while a field cannot be read (Save is then
 *   disabled and the field marked)
 */
NatterGenerationParameters *
natter_parameters_dialog_dup_parameters (NatterParametersDialog *self)
{
  g_return_val_if_fail (NATTER_IS_PARAMETERS_DIALOG (self), NULL);

  return read_fields (self);
}
