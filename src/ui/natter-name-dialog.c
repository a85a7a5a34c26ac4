/* natter-name-dialog.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A dialog that asks for one name: a conversation's new title, a new or
 * renamed folder. A dialog closes on any response, so a name the layer
 * that keeps it would refuse must never get as far as the button, or
 * what was typed would be lost with the dialog: the name is checked as
 * it is typed, with the rule that layer applies when it writes, and the
 * button waits, the reason shown, until the name can be kept.
 */

#define G_LOG_DOMAIN "natter-name-dialog"

#include "config.h"

#include "natter-error-words.h"
#include "natter-name-dialog.h"
#include "natter-plain-text.h"

struct _NatterNameDialog
{
  AdwMessageDialog  parent_instance;

  NatterNameCheck   check;
  gpointer          check_data;
  GDestroyNotify    check_data_free;

  /* Template widgets */
  GtkEntry         *entry;
};

G_DEFINE_FINAL_TYPE (NatterNameDialog, natter_name_dialog, ADW_TYPE_MESSAGE_DIALOG)

/* The typed name without the space around it. */
static char *
typed_name (NatterNameDialog *self)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->entry))));
}

/* Why the typed name cannot be kept, or NULL; a blank name has no reason
 * to be told, it only cannot be accepted yet. */
static char *
refusal (NatterNameDialog *self,
         gboolean         *blank)
{
  g_autofree char *name = typed_name (self);
  g_autoptr(GError) error = NULL;

  *blank = natter_text_is_blank (name);
  if (*blank || self->check == NULL || self->check (name, self->check_data, &error))
    return NULL;
  return natter_error_words_local (error->message);
}

static void
name_changed_cb (NatterNameDialog *self)
{
  GtkWidget *entry = GTK_WIDGET (self->entry);
  gboolean blank;
  g_autofree char *why = refusal (self, &blank);

  adw_message_dialog_set_response_enabled (ADW_MESSAGE_DIALOG (self), "accept", why == NULL && !blank);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (self), why != NULL ? why : "");
  if (why != NULL)
    {
      gtk_widget_add_css_class (entry, "error");
      gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, why, -1);
    }
  else
    {
      gtk_widget_remove_css_class (entry, "error");
      gtk_accessible_reset_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
    }
}

static void
natter_name_dialog_finalize (GObject *object)
{
  NatterNameDialog *self = NATTER_NAME_DIALOG (object);

  if (self->check_data_free != NULL)
    g_clear_pointer (&self->check_data, self->check_data_free);
  G_OBJECT_CLASS (natter_name_dialog_parent_class)->finalize (object);
}

static void
natter_name_dialog_class_init (NatterNameDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = natter_name_dialog_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-name-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterNameDialog, entry);
  gtk_widget_class_bind_template_callback (widget_class, name_changed_cb);
}

static void
natter_name_dialog_init (NatterNameDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_name_dialog_new:
 * @parent: the window it belongs to
 * @heading: what is named ("Rename Conversation")
 * @accept_label: the suggested button's label, with its mnemonic
 * @name_label: what the entry is called for a screen reader
 * @text: (nullable): the name shown at first, ready to be typed over
 * @check: (nullable): the rule a name must meet, asked as it is typed
 *   (a name the person has not changed yet is asked too: an older file
 *   may hold one that cannot be kept)
 * @check_data: (nullable): given to @check
 * @check_data_free: (nullable): frees @check_data with the dialog
 *
 * Returns: (transfer none): the dialog, not shown yet, kept by GTK as
 *   every toplevel window is until it closes; its responses
 *   are "cancel" and "accept", which is enabled only while the name is
 *   neither blank nor refused by @check (natter_name_dialog_dup_name())
 */
GtkWidget *
natter_name_dialog_new (GtkWindow       *parent,
                        const char      *heading,
                        const char      *accept_label,
                        const char      *name_label,
                        const char      *text,
                        NatterNameCheck  check,
                        gpointer         check_data,
                        GDestroyNotify   check_data_free)
{
  NatterNameDialog *self;

  g_return_val_if_fail (GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (heading != NULL && accept_label != NULL && name_label != NULL, NULL);

  self = g_object_new (NATTER_TYPE_NAME_DIALOG, "transient-for", parent, "modal", TRUE, "heading", heading, NULL);
  self->check = check;
  self->check_data = check_data;
  self->check_data_free = check_data_free;
  adw_message_dialog_set_response_label (ADW_MESSAGE_DIALOG (self), "accept", accept_label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->entry), GTK_ACCESSIBLE_PROPERTY_LABEL, name_label, -1);
  gtk_editable_set_text (GTK_EDITABLE (self->entry), text != NULL ? text : "");
  name_changed_cb (self);
  return GTK_WIDGET (self);
}

/**
 * natter_name_dialog_dup_name:
 * @self: the dialog
 *
 * The name typed, once it may be kept: what "accept" answers.
 *
 * Returns: (transfer full) (nullable): the name without the space around
 *   it, or %NULL while it is blank or refused
 */
char *
natter_name_dialog_dup_name (NatterNameDialog *self)
{
  gboolean blank;
  g_autofree char *why = NULL;

  g_return_val_if_fail (NATTER_IS_NAME_DIALOG (self), NULL);

  why = refusal (self, &blank);
  return why == NULL && !blank ? typed_name (self) : NULL;
}
