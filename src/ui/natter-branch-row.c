/* natter-branch-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The row of a branched session's timeline between the history it
 * inherited and its own turns: "Branched from “…”" with a button that
 * opens that conversation, or, when the history cannot be read any
 * further back, why (dsh-session.md, fork). The history is referenced,
 * never copied, so a deleted parent is said so here rather than the
 * branch silently starting empty. Its widgets are declared in
 * natter-branch-row.ui.
 */

#define G_LOG_DOMAIN "natter-branch-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-branch-row.h"
#include "natter-plain-text.h"

struct _NatterBranchRow
{
  GtkWidget             parent_instance;

  NatterTimelineMarker *marker;

  /* Template widgets */
  GtkWidget            *icon;
  GtkWidget            *label;
  GtkWidget            *open_button;
};

G_DEFINE_FINAL_TYPE (NatterBranchRow, natter_branch_row, GTK_TYPE_WIDGET)

/* The window opens it (win.open-branched-from), or says it is gone. */
static void
open_clicked_cb (NatterBranchRow *self)
{
  const char *session_id = self->marker != NULL ? natter_timeline_marker_get_session_id (self->marker) : NULL;

  if (session_id != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "win.open-branched-from", "s", session_id);
}

static void
update (NatterBranchRow *self)
{
  NatterTimelineMarkerKind kind = self->marker != NULL ? natter_timeline_marker_get_kind (self->marker)
                                                      : NATTER_TIMELINE_MARKER_BRANCHED;
  gboolean error = self->marker != NULL && kind == NATTER_TIMELINE_MARKER_ERROR;
  gboolean sentence = self->marker != NULL && (error || kind == NATTER_TIMELINE_MARKER_NOTE);

  gtk_widget_set_visible (self->icon, error);
  gtk_widget_set_visible (self->open_button, self->marker != NULL && !sentence);
  if (sentence)
    {
      /* A sentence: wrapped in full; red only when something is wrong. */
      gtk_label_set_wrap (GTK_LABEL (self->label), TRUE);
      gtk_label_set_ellipsize (GTK_LABEL (self->label), PANGO_ELLIPSIZE_NONE);
      gtk_label_set_text (GTK_LABEL (self->label), natter_timeline_marker_get_error (self->marker));
      gtk_widget_set_tooltip_text (self->label, NULL);
      gtk_widget_remove_css_class (self->label, error ? "dim-label" : "error");
      gtk_widget_add_css_class (self->label, error ? "error" : "dim-label");
    }
  else if (self->marker != NULL)
    {
      g_autofree char *visible = natter_visible_text (natter_timeline_marker_get_title (self->marker),
                                                      NATTER_VISIBLE_KEEP_NONE);
      const char *title = visible;
      g_autofree char *text = NULL;

      if (title[0] == '\0')
        title = _("New chat");
      /* Translators: %s is the title of the conversation a branch was made from */
      text = g_strdup_printf (_("Branched from “%s”"), title);
      /* One line between the rules (a wrapping label was squeezed to its
       * longest word); a long title is ellipsized, whole in the tooltip. */
      gtk_label_set_wrap (GTK_LABEL (self->label), FALSE);
      gtk_label_set_ellipsize (GTK_LABEL (self->label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_tooltip_text (self->label, text);
      gtk_label_set_text (GTK_LABEL (self->label), text);
      gtk_widget_remove_css_class (self->label, "error");
      gtk_widget_add_css_class (self->label, "dim-label");
    }
  else
    gtk_label_set_text (GTK_LABEL (self->label), "");
}

static void
natter_branch_row_dispose (GObject *object)
{
  NatterBranchRow *self = NATTER_BRANCH_ROW (object);

  GtkWidget *child;

  natter_branch_row_set_marker (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_BRANCH_ROW);
  /* The clamp has no name in the template, so nothing unparents it. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_branch_row_parent_class)->dispose (object);
}

static void
natter_branch_row_class_init (NatterBranchRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_branch_row_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "natter-branch-row");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-branch-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterBranchRow, icon);
  gtk_widget_class_bind_template_child (widget_class, NatterBranchRow, label);
  gtk_widget_class_bind_template_child (widget_class, NatterBranchRow, open_button);
  gtk_widget_class_bind_template_callback (widget_class, open_clicked_cb);
}

static void
natter_branch_row_init (NatterBranchRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (self->open_button);
  update (self);
}

/**
 * natter_branch_row_new:
 *
 * Returns: (transfer floating): an empty row; see natter_branch_row_set_marker()
 */
GtkWidget *
natter_branch_row_new (void)
{
  return g_object_new (NATTER_TYPE_BRANCH_ROW, NULL);
}

/**
 * natter_branch_row_set_marker:
 * @self: a row
 * @marker: (nullable): what to show
 *
 * Shows "Branched from “title”" with an Open button (it activates
 * win.open-branched-from on the window the row is in) for a
 * %NATTER_TIMELINE_MARKER_BRANCHED marker (following a rename of that
 * conversation), or the error of a %NATTER_TIMELINE_MARKER_ERROR one.
 */
void
natter_branch_row_set_marker (NatterBranchRow      *self,
                              NatterTimelineMarker *marker)
{
  g_return_if_fail (NATTER_IS_BRANCH_ROW (self));
  g_return_if_fail (marker == NULL || NATTER_IS_TIMELINE_MARKER (marker));

  if (self->marker == marker)
    return;
  if (self->marker != NULL)
    g_signal_handlers_disconnect_by_func (self->marker, update, self);
  g_set_object (&self->marker, marker);
  if (marker != NULL)
    g_signal_connect_swapped (marker, "notify::title", G_CALLBACK (update), self);
  update (self);
}

/**
 * natter_branch_row_get_marker:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the marker shown
 */
NatterTimelineMarker *
natter_branch_row_get_marker (NatterBranchRow *self)
{
  g_return_val_if_fail (NATTER_IS_BRANCH_ROW (self), NULL);
  return self->marker;
}
