/* natter-tool-call-group.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One collapsed line in a turn row for a run of identical tool calls (a
 * model that calls current_time fifty times): "name × n" and the calls'
 * state, the cards themselves inside. Its widgets are declared in
 * natter-tool-call-group.ui.
 */

#define G_LOG_DOMAIN "natter-turn-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-tool-call-group.h"

struct _NatterToolCallGroup
{
  GtkBox       parent_instance;

  char        *key;

  /* Template widgets */
  GtkWidget   *expander;
  GtkImage    *icon;
  GtkLabel    *name_label;
  GtkLabel    *status_label;
  GtkWidget   *cards;
};

G_DEFINE_FINAL_TYPE (NatterToolCallGroup, natter_tool_call_group, GTK_TYPE_BOX)

static void
natter_tool_call_group_finalize (GObject *object)
{
  g_free (NATTER_TOOL_CALL_GROUP (object)->key);
  G_OBJECT_CLASS (natter_tool_call_group_parent_class)->finalize (object);
}

static void
natter_tool_call_group_class_init (NatterToolCallGroupClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = natter_tool_call_group_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-tool-call-group.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallGroup, expander);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallGroup, icon);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallGroup, name_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallGroup, status_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallGroup, cards);
}

static void
natter_tool_call_group_init (NatterToolCallGroup *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_tool_call_group_new:
 * @first: the first call of the run, for its icon and state (not added)
 * @key: what makes calls the same for the eye (name, state, arguments)
 *
 * Returns: (transfer floating): an empty group; see
 *   natter_tool_call_group_add()
 */
GtkWidget *
natter_tool_call_group_new (NatterToolCallCard *first,
                            const char         *key)
{
  NatterToolCallGroup *self = g_object_new (NATTER_TYPE_TOOL_CALL_GROUP, NULL);

  self->key = g_strdup (key);
  gtk_image_set_from_icon_name (self->icon, natter_tool_call_card_get_icon_name (first));
  gtk_label_set_text (self->status_label, natter_tool_call_card_get_status (first));
  return GTK_WIDGET (self);
}

/**
 * natter_tool_call_group_get_key:
 * @self: the group
 *
 * Returns: (transfer none): what its calls have in common
 */
const char *
natter_tool_call_group_get_key (NatterToolCallGroup *self)
{
  return self->key;
}

/**
 * natter_tool_call_group_add:
 * @self: the group
 * @card: (transfer floating): one more call of the run
 *
 * Puts @card inside the group and counts it in the group's line.
 */
void
natter_tool_call_group_add (NatterToolCallGroup *self,
                            NatterToolCallCard  *card)
{
  NatterToolCallCard *first;
  guint n = 0;
  g_autofree char *text = NULL;

  /* Inside the group's card, a card of its own would be a frame in a
   * frame. */
  gtk_widget_remove_css_class (GTK_WIDGET (card), "card");
  gtk_box_append (GTK_BOX (self->cards), GTK_WIDGET (card));
  first = NATTER_TOOL_CALL_CARD (gtk_widget_get_first_child (self->cards));
  for (GtkWidget *child = gtk_widget_get_first_child (self->cards); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    n++;
  /* Translators: a tool called several times in a row, e.g. "current_time × 50" */
  text = g_strdup_printf (_("%s × %u"), natter_tool_call_card_get_name (first), n);
  gtk_label_set_text (self->name_label, text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
}
