/* natter-name-dialog.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/**
 * NatterNameCheck:
 * @name: the name as typed, the space around it dropped; never blank
 * @user_data: the data given with the check
 * @error: return location for a #GError saying why @name cannot be kept
 *
 * The rule a name dialog asks as the name is typed: the same rule the
 * layer that keeps the name applies when it is written.
 *
 * Returns: %TRUE when @name may be kept
 */
typedef gboolean (*NatterNameCheck) (const char  *name,
                                     gpointer     user_data,
                                     GError     **error);

#define NATTER_TYPE_NAME_DIALOG (natter_name_dialog_get_type ())

G_DECLARE_FINAL_TYPE (NatterNameDialog, natter_name_dialog, NATTER, NAME_DIALOG, AdwMessageDialog)

GtkWidget *natter_name_dialog_new      (GtkWindow        *parent,
                                        const char       *heading,
                                        const char       *accept_label,
                                        const char       *name_label,
                                        const char       *text,
                                        NatterNameCheck   check,
                                        gpointer          check_data,
                                        GDestroyNotify    check_data_free);
char      *natter_name_dialog_dup_name (NatterNameDialog *self);

G_END_DECLS
