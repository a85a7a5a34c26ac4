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

  /* Template widgets */
  AdwEntryRow      *rows[N_FIELDS];   /* by NatterParameter */
  GtkLabel         *problem_label;    /* why Save waits */
  GtkTextView      *instruction;
};

G_DEFINE_FINAL_TYPE (NatterParametersDialog, natter_parameters_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* Reads every field into new parameters; NULL when one cannot be read,
 * with each such row marked, its reason as its tooltip and every reason
 * under the fields (a decimal comma reads as a point). */
static NatterGenerationParameters *
read_fields (NatterParametersDialog *self)
{
  g_autoptr(NatterGenerationParameters) parameters = natter_generation_parameters_new ();
  g_autofree char *instruction = NULL;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->instruction);
  GtkTextIter start, end;
  g_autoptr(GString) problems = g_string_new (NULL);

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
      if (problems->len > 0)
        g_string_append_c (problems, '\n');
      g_string_append (problems, error->message);
    }
  gtk_label_set_text (self->problem_label, problems->str);
  gtk_widget_set_visible (GTK_WIDGET (self->problem_label), problems->len > 0);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  instruction = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  natter_generation_parameters_set_system_instruction (parameters, instruction);
  return problems->len == 0 ? g_steal_pointer (&parameters) : NULL;
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
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-parameters-dialog.ui");
  gtk_widget_class_bind_template_child_full (widget_class, "temperature_row", FALSE,
                                             G_STRUCT_OFFSET (NatterParametersDialog,
                                                              rows[NATTER_PARAMETER_TEMPERATURE]));
  gtk_widget_class_bind_template_child_full (widget_class, "top_p_row", FALSE,
                                             G_STRUCT_OFFSET (NatterParametersDialog, rows[NATTER_PARAMETER_TOP_P]));
  gtk_widget_class_bind_template_child_full (widget_class, "max_tokens_row", FALSE,
                                             G_STRUCT_OFFSET (NatterParametersDialog,
                                                              rows[NATTER_PARAMETER_MAX_TOKENS]));
  gtk_widget_class_bind_template_child_full (widget_class, "seed_row", FALSE,
                                             G_STRUCT_OFFSET (NatterParametersDialog, rows[NATTER_PARAMETER_SEED]));
  gtk_widget_class_bind_template_child (widget_class, NatterParametersDialog, problem_label);
  gtk_widget_class_bind_template_child (widget_class, NatterParametersDialog, instruction);
  gtk_widget_class_bind_template_callback (widget_class, field_changed_cb);
}

static void
natter_parameters_dialog_init (NatterParametersDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_parameters_dialog_new:
 * @parent: the window it belongs to
 * @kept: (nullable): what the conversation keeps now, shown in the fields
 *
 * Returns: (transfer none): the dialog, not shown yet, kept by GTK as
 *   every toplevel window is until it closes; its responses
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

static char *
instruction_text (NatterParametersDialog *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->instruction);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/**
 * natter_parameters_dialog_follow:
 * @self: the dialog
 * @shown: (nullable): what the fields were last set to (at opening, or
 *   by the last call)
 * @now: (nullable): what the conversation keeps now
 *
 * The conversation's settings changed while the dialog was open (`natter
 * params`, another window): each field that still says what it was set
 * to is set to what is kept now; a field the person changed keeps their
 * words, which Save will keep.
 */
void
natter_parameters_dialog_follow (NatterParametersDialog           *self,
                                 const NatterGenerationParameters *shown,
                                 const NatterGenerationParameters *now)
{
  g_autofree char *instruction = NULL;
  const char *was_instruction = shown != NULL && shown->system_instruction != NULL ? shown->system_instruction : "";

  g_return_if_fail (NATTER_IS_PARAMETERS_DIALOG (self));

  for (guint i = 0; i < N_FIELDS; i++)
    {
      g_autofree char *was = shown != NULL ? natter_parameters_input_format (shown, (NatterParameter) i) : NULL;
      g_autofree char *will = now != NULL ? natter_parameters_input_format (now, (NatterParameter) i) : NULL;
      GtkEditable *field = GTK_EDITABLE (self->rows[i]);

      if (g_strcmp0 (gtk_editable_get_text (field), was != NULL ? was : "") == 0 &&
          g_strcmp0 (was, will) != 0)
        gtk_editable_set_text (field, will != NULL ? will : "");
    }
  instruction = instruction_text (self);
  if (g_strcmp0 (instruction, was_instruction) == 0)
    gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->instruction),
                              now != NULL && now->system_instruction != NULL ? now->system_instruction : "", -1);
}
