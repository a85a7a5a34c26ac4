/* natter-builder-part.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The parts a widget adds while it runs (a row per model, a part of an
 * answer, a sent attachment) are kept in a .ui of their own in data/ui/,
 * and C builds each by its id, one at a time, as it needs it.
 */

#include "config.h"

#include "natter-builder-part.h"

/**
 * natter_builder_part:
 * @builder: the builder that holds the part, and whatever else of
 *   @ui_file was built with it
 * @ui_file: the file's name in the application's resources, such as
 *   "natter-turn-row-parts.ui"
 * @id: the part's id in @ui_file
 *
 * Builds the part @id of @ui_file (and what it refers to) into
 * @builder. The file is the program's own, compiled in: a part it does
 * not have, or cannot build, is a bug, and aborts with the file's name
 * and GtkBuilder's message.
 *
 * Returns: (transfer none): the part, which lives as long as @builder,
 *   or as what it is added to
 */
GtkWidget *
natter_builder_part (GtkBuilder *builder,
                     const char *ui_file,
                     const char *id)
{
  const char *ids[] = { id, NULL };
  g_autofree char *path = g_strconcat ("/io/github/natter/Natter/ui/", ui_file, NULL);
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (GTK_IS_BUILDER (builder), NULL);
  g_return_val_if_fail (ui_file != NULL && id != NULL, NULL);

  if (!gtk_builder_add_objects_from_resource (builder, path, ids, &error))
    g_error ("%s: %s", ui_file, error->message);
  return GTK_WIDGET (gtk_builder_get_object (builder, id));
}
