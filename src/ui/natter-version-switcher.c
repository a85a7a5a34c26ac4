/* natter-version-switcher.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "‹ 1/2 ›" under a message that has versions (an edit, a new try): the
 * arrows open the conversation of the version before or after this one
 * at that version of the message (win.open-version, with the session and
 * the turn), the label says which one this is. The versions are
 * the session service's (natter_sessions_list_versions_async()). Its
 * widgets are declared in natter-version-switcher.ui.
 */

#define G_LOG_DOMAIN "natter-version-switcher"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-sessions.h"
#include "natter-version-switcher.h"

struct _NatterVersionSwitcher
{
  GtkWidget  parent_instance;

  GtkWidget *previous;
  GtkWidget *label;
  GtkWidget *next;
  guint      position;     /* 0-based */
  guint      n_versions;
};

G_DEFINE_FINAL_TYPE (NatterVersionSwitcher, natter_version_switcher, GTK_TYPE_WIDGET)

static void
natter_version_switcher_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_VERSION_SWITCHER);
  G_OBJECT_CLASS (natter_version_switcher_parent_class)->dispose (object);
}

static void
natter_version_switcher_class_init (NatterVersionSwitcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_version_switcher_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "versionswitcher");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-version-switcher.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterVersionSwitcher, previous);
  gtk_widget_class_bind_template_child (widget_class, NatterVersionSwitcher, label);
  gtk_widget_class_bind_template_child (widget_class, NatterVersionSwitcher, next);
}

static void
natter_version_switcher_init (NatterVersionSwitcher *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_version_switcher_new:
 *
 * Returns: (transfer floating): a switcher, hidden until it has versions
 */
GtkWidget *
natter_version_switcher_new (void)
{
  return g_object_new (NATTER_TYPE_VERSION_SWITCHER, NULL);
}

static void
point_at (GtkWidget  *button,
          GPtrArray  *versions,
          int         index)
{
  NatterTurnVersion *version;

  if (versions == NULL || index < 0 || (guint) index >= versions->len)
    {
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), NULL);
      gtk_widget_set_sensitive (button, FALSE);
      return;
    }
  version = g_ptr_array_index (versions, index);
  /* The target first: an action name without its target warns. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(ss)", version->session_id, version->turn_id);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open-version");
  gtk_widget_set_sensitive (button, TRUE);
}

/**
 * natter_version_switcher_set_versions:
 * @self: a switcher
 * @versions: (nullable) (element-type NatterTurnVersion): the versions of
 *   the message, the original first
 * @turn_id: (nullable): the message shown, one of @versions
 *
 * Shows "‹ n/N ›" for @turn_id among @versions, or nothing when there is
 * no other version (or @turn_id is not among them).
 */
void
natter_version_switcher_set_versions (NatterVersionSwitcher *self,
                                      GPtrArray             *versions,
                                      const char            *turn_id)
{
  g_autofree char *text = NULL;
  int position = -1;

  g_return_if_fail (NATTER_IS_VERSION_SWITCHER (self));

  for (guint i = 0; versions != NULL && turn_id != NULL && i < versions->len; i++)
    if (g_strcmp0 (((NatterTurnVersion *) g_ptr_array_index (versions, i))->turn_id, turn_id) == 0)
      position = (int) i;
  if (position < 0 || versions->len < 2)
    {
      self->n_versions = 0;
      self->position = 0;
      gtk_widget_set_visible (GTK_WIDGET (self), FALSE);
      return;
    }
  self->n_versions = versions->len;
  self->position = (guint) position;
  /* Translators: which version of a message this is, e.g. "1/2" */
  text = g_strdup_printf (_("%u/%u"), self->position + 1, self->n_versions);
  gtk_label_set_text (GTK_LABEL (self->label), text);
  point_at (self->previous, versions, position - 1);
  point_at (self->next, versions, position + 1);
  gtk_widget_set_visible (GTK_WIDGET (self), TRUE);
}

/**
 * natter_version_switcher_get_position:
 * @self: a switcher
 *
 * Returns: the 0-based position of the shown version
 */
guint
natter_version_switcher_get_position (NatterVersionSwitcher *self)
{
  g_return_val_if_fail (NATTER_IS_VERSION_SWITCHER (self), 0);
  return self->position;
}

/**
 * natter_version_switcher_get_n_versions:
 * @self: a switcher
 *
 * Returns: how many versions the message has (0 when it shows none)
 */
guint
natter_version_switcher_get_n_versions (NatterVersionSwitcher *self)
{
  g_return_val_if_fail (NATTER_IS_VERSION_SWITCHER (self), 0);
  return self->n_versions;
}
