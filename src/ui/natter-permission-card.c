/* natter-permission-card.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One pending permission of a suspended turn (session-layer-spec.md
 * §10.4): which tool, what it wants to do, and Allow / Deny. Built only
 * from the turn's reduced state, so the card is there again after a
 * restart. Each pending call has its own card; deciding one leaves the
 * others.
 */

#define G_LOG_DOMAIN "natter-permission-card"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-permission-card.h"

struct _NatterPermissionCard
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *turn_id;
  char           *tool_call_id;
  GCancellable   *cancellable;

  /* Template children */
  GtkLabel       *title_label;
  GtkLabel       *request_label;
  GtkLabel       *error_label;
  GtkWidget      *buttons;
  GtkWidget      *allow_button;
};

G_DEFINE_FINAL_TYPE (NatterPermissionCard, natter_permission_card, GTK_TYPE_WIDGET)

static void
respond_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterPermissionCard) self = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = natter_sessions_respond_to_permission_finish (NATTER_SESSIONS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  /* A decision that reached the file is shown by the timeline when the
   * resolution event arrives; only a refusal needs saying here. */
  if (outcome == NULL && error != NULL)
    {
      gtk_label_set_text (self->error_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
      gtk_widget_set_sensitive (self->buttons, TRUE);
    }
}

static void
decide (NatterPermissionCard *self,
        const char           *decision)
{
  gtk_widget_set_sensitive (self->buttons, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  natter_sessions_respond_to_permission_async (self->sessions, self->turn_id, self->tool_call_id,
                                               decision, NULL, self->cancellable,
                                               respond_cb, g_object_ref (self));
}

static void
allow_clicked_cb (NatterPermissionCard *self)
{
  decide (self, "allow");
}

static void
deny_clicked_cb (NatterPermissionCard *self)
{
  decide (self, "deny");
}

static void
natter_permission_card_dispose (GObject *object)
{
  GtkWidget *child;
  NatterPermissionCard *self = NATTER_PERMISSION_CARD (object);

  /* The decision itself is not cancelled (it is the turn's business once
   * sent); only our interest in its answer. */
  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_PERMISSION_CARD);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_permission_card_parent_class)->dispose (object);
}

static void
natter_permission_card_finalize (GObject *object)
{
  NatterPermissionCard *self = NATTER_PERMISSION_CARD (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->cancellable);
  g_free (self->turn_id);
  g_free (self->tool_call_id);

  G_OBJECT_CLASS (natter_permission_card_parent_class)->finalize (object);
}

static void
natter_permission_card_class_init (NatterPermissionCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_permission_card_dispose;
  object_class->finalize = natter_permission_card_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-permission-card.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, title_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, request_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, error_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, buttons);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, allow_button);
  gtk_widget_class_bind_template_callback (widget_class, allow_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, deny_clicked_cb);
  gtk_widget_class_set_css_name (widget_class, "natter-permission-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_permission_card_init (NatterPermissionCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

/**
 * natter_permission_card_new:
 * @sessions: the session service the decision goes to
 * @turn_id: the suspended turn
 * @tool_call_id: the pending call
 * @tool_name: the tool's name, as the model sees it
 * @request: (nullable): the `request` of `tool_permission_required`, the
 *   JSON shown to the human
 *
 * Creates a card whose Allow / Deny buttons call
 * natter_sessions_respond_to_permission_async() for this call (§9.2).
 *
 * Returns: (transfer floating): a new card
 */
GtkWidget *
natter_permission_card_new (NatterSessions *sessions,
                            const char     *turn_id,
                            const char     *tool_call_id,
                            const char     *tool_name,
                            JsonNode       *request)
{
  NatterPermissionCard *self;
  g_autofree char *title = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (turn_id != NULL && tool_call_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_PERMISSION_CARD, NULL);
  self->sessions = g_object_ref (sessions);
  self->turn_id = g_strdup (turn_id);
  self->tool_call_id = g_strdup (tool_call_id);

  /* Translators: %s is the name of a tool, e.g. read_file */
  title = g_strdup_printf (_("Allow “%s”?"), tool_name != NULL ? tool_name : "");
  gtk_label_set_text (self->title_label, title);
  if (request != NULL && JSON_NODE_HOLDS_VALUE (request) &&
      json_node_get_value_type (request) == G_TYPE_STRING)
    text = g_strdup (json_node_get_string (request));
  else if (request != NULL)
    text = json_to_string (request, TRUE);
  gtk_label_set_text (self->request_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->request_label), text != NULL);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  -1);
  return GTK_WIDGET (self);
}

/**
 * natter_permission_card_get_turn_id:
 * @self: a card
 *
 * Returns: (transfer none): the suspended turn the decision goes to
 */
const char *
natter_permission_card_get_turn_id (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), NULL);
  return self->turn_id;
}

/**
 * natter_permission_card_get_tool_call_id:
 * @self: a card
 *
 * Returns: (transfer none): the tool call respond_to_permission() decides
 *   (session-layer-spec.md §9)
 */
const char *
natter_permission_card_get_tool_call_id (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), NULL);
  return self->tool_call_id;
}

/**
 * natter_permission_card_focus_default:
 * @self: a permission card
 *
 * Gives the keyboard focus to Allow, the suggested answer (issue 7,
 * keyboard-only use: Tab from the composer lands here while the turn
 * waits); Deny is one Shift+Tab away. A card already decided takes no
 * focus.
 *
 * Returns: whether the card took the focus
 */
gboolean
natter_permission_card_focus_default (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), FALSE);

  return gtk_widget_grab_focus (self->allow_button);
}
