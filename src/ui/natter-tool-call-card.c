/* natter-tool-call-card.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One tool call of a turn as a compact card: its name and state
 * on one line, and — collapsed until asked for, so a turn with many calls
 * stays short — its arguments, its latest progress, and its result or
 * error. The card copies what it shows out of the call: the turn state
 * that owns the call may be replaced while the card is on screen.
 */

#define G_LOG_DOMAIN "natter-tool-call-card"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-tool-call-card.h"
#include "natter-visible-label.h"

/* Longer arguments and results are cut: a label is no place for a file. */
#define MAX_SHOWN_CHARS 4000

struct _NatterToolCallCard
{
  GtkWidget    parent_instance;

  gboolean     failed;

  /* Template children */
  GtkExpander *expander;
  GtkImage    *status_icon;
  GtkLabel    *name_label;
  GtkLabel    *status_label;
  GtkLabel    *rule_label;
  GtkLabel    *arguments_label;
  GtkWidget   *progress_heading;
  GtkLabel    *progress_label;
  GtkLabel    *result_heading;
  GtkLabel    *result_label;
  GtkBox      *media_box;
};

G_DEFINE_FINAL_TYPE (NatterToolCallCard, natter_tool_call_card, GTK_TYPE_WIDGET)

/* Strings as they are, anything else as pretty JSON; cut when long. */
static char *
node_to_text (JsonNode *node)
{
  g_autofree char *text = NULL;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    text = g_strdup (json_node_get_string (node));
  else
    text = json_to_string (node, TRUE);
  if (g_utf8_strlen (text, -1) > MAX_SHOWN_CHARS)
    {
      char *end = g_utf8_offset_to_pointer (text, MAX_SHOWN_CHARS);

      *end = '\0';
      return g_strconcat (text, "…", NULL);
    }
  return g_steal_pointer (&text);
}

/* What a tool call is doing, in the user's words. */
static const char *
tool_call_status (NatterTurnToolCall *call,
                  const char        **icon_name,
                  gboolean           *failed)
{
  JsonObject *result = natter_turn_tool_call_get_result (call);

  *failed = FALSE;
  if (result != NULL)
    {
      if (g_strcmp0 (natter_turn_tool_call_get_decision (call), "deny") == 0)
        {
          *icon_name = "action-unavailable-symbolic";
          return _("Denied");
        }
      if (json_object_get_boolean_member_with_default (result, "isError", FALSE))
        {
          *icon_name = "dialog-warning-symbolic";
          *failed = TRUE;
          return _("Failed");
        }
      *icon_name = "object-select-symbolic";
      return _("Done");
    }
  if (natter_turn_tool_call_is_awaiting_permission (call))
    {
      *icon_name = "dialog-password-symbolic";
      return _("Waiting for your permission");
    }
  if (natter_turn_tool_call_is_awaiting_async_result (call))
    {
      *icon_name = "content-loading-symbolic";
      return _("Waiting for an answer");
    }
  if (natter_turn_tool_call_get_invocation (call) != NULL)
    {
      *icon_name = "content-loading-symbolic";
      return _("Running");
    }
  *icon_name = "content-loading-symbolic";
  return _("Pending");
}

/* One image of a tool server's result, decoded from its base64; a
 * label that says why when it cannot be shown. */
static GtkWidget *
media_image (JsonObject *item)
{
  const char *data = json_object_get_string_member_with_default (item, "data", "");
  gsize length = 0;
  g_autofree guchar *bytes = g_base64_decode (data, &length);
  g_autoptr(GBytes) wrapped = g_bytes_new_take (g_steal_pointer (&bytes), length);
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  GtkWidget *picture;

  texture = length > 0 ? gdk_texture_new_from_bytes (wrapped, &error) : NULL;
  if (texture == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Cannot show the image: %s"),
                                               error != NULL ? error->message : _("it is empty"));
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_widget_add_css_class (label, "error");
      return label;
    }
  picture = gtk_picture_new_for_paintable (GDK_PAINTABLE (texture));
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_widget_set_halign (picture, GTK_ALIGN_START);
  gtk_widget_set_size_request (picture, -1, MIN (gdk_texture_get_height (texture), 240));
  gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Image from the tool"), -1);
  return picture;
}

/* A tool server's content that text does not carry (docs/runtime.md §3,
 * `metadata.mcp`): images as images, resource links as links. */
static void
set_media (NatterToolCallCard *self,
           JsonObject         *result)
{
  JsonObject *metadata = NULL;
  JsonObject *mcp = NULL;
  JsonArray *content = NULL;
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->media_box))) != NULL)
    gtk_box_remove (self->media_box, child);
  if (result != NULL && json_object_has_member (result, "metadata")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (result, "metadata")))
    metadata = json_object_get_object_member (result, "metadata");
  if (metadata != NULL && json_object_has_member (metadata, "mcp")
      && JSON_NODE_HOLDS_OBJECT (json_object_get_member (metadata, "mcp")))
    mcp = json_object_get_object_member (metadata, "mcp");
  if (mcp != NULL && json_object_has_member (mcp, "content")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (mcp, "content")))
    content = json_object_get_array_member (mcp, "content");

  for (guint i = 0; content != NULL && i < json_array_get_length (content); i++)
    {
      JsonNode *node = json_array_get_element (content, i);
      JsonObject *item = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *type = item != NULL ? json_object_get_string_member_with_default (item, "type", "") : "";

      if (g_str_equal (type, "image"))
        gtk_box_append (self->media_box, media_image (item));
      else if (g_str_equal (type, "resource_link"))
        {
          const char *uri = json_object_get_string_member_with_default (item, "uri", "");
          const char *label = json_object_get_string_member_with_default (item, "title", NULL);
          GtkWidget *link;

          if (label == NULL)
            label = json_object_get_string_member_with_default (item, "name", uri);
          link = gtk_link_button_new_with_label (uri, label);
          gtk_widget_set_halign (link, GTK_ALIGN_START);
          gtk_widget_set_tooltip_text (link, uri);
          gtk_box_append (self->media_box, link);
        }
    }
  gtk_widget_set_visible (GTK_WIDGET (self->media_box),
                          gtk_widget_get_first_child (GTK_WIDGET (self->media_box)) != NULL);
}

static void
set_call (NatterToolCallCard *self,
          NatterTurnToolCall *call)
{
  const char *icon_name = NULL;
  const char *status = tool_call_status (call, &icon_name, &self->failed);
  const char *name = natter_turn_tool_call_get_name (call);
  JsonObject *result = natter_turn_tool_call_get_result (call);
  GPtrArray *progress = natter_turn_tool_call_get_progress (call);
  g_autofree char *arguments = node_to_text (natter_turn_tool_call_get_arguments (call));
  g_autofree char *accessible = NULL;

  JsonObject *invocation = natter_turn_tool_call_get_invocation (call);
  g_autofree char *rule = NULL;

  gtk_image_set_from_icon_name (self->status_icon, icon_name);
  natter_label_set_visible_text (self->name_label, name);
  gtk_label_set_text (self->status_label, status);
  /* tool_invocation_requested.grantId: a grant of the session allowed the
   * call without asking (docs/format.md §3.4). */
  if (invocation != NULL && json_object_get_string_member_with_default (invocation, "grantId", NULL) != NULL)
    /* Translators: %s is the name of a tool, e.g. read_file */
    rule = g_strdup_printf (_("Allowed by your rule for %s"), name != NULL ? name : "");
  gtk_label_set_text (self->rule_label, rule != NULL ? rule : "");
  gtk_widget_set_visible (GTK_WIDGET (self->rule_label), rule != NULL);
  natter_label_set_visible_text (self->arguments_label, arguments[0] != '\0' ? arguments : "{}");

  if (progress != NULL && progress->len > 0)
    {
      JsonObject *last = g_ptr_array_index (progress, progress->len - 1);
      g_autofree char *text = node_to_text (json_object_get_member (last, "progress"));

      natter_label_set_visible_text (self->progress_label, text);
    }
  gtk_widget_set_visible (self->progress_heading, progress != NULL && progress->len > 0 && result == NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->progress_label), progress != NULL && progress->len > 0 && result == NULL);

  if (result != NULL)
    {
      g_autofree char *output = node_to_text (json_object_get_member (result, "output"));

      gtk_label_set_text (self->result_heading, self->failed ? _("Error") : _("Result"));
      natter_label_set_visible_text (self->result_label, output);
      if (self->failed)
        gtk_widget_add_css_class (GTK_WIDGET (self->result_label), "error");
    }
  set_media (self, result);
  gtk_widget_set_visible (GTK_WIDGET (self->result_heading), result != NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->result_label), result != NULL);

  /* Translators: a tool call and its state, e.g. "read_file: Done" */
  accessible = g_strdup_printf (_("%s: %s"), name != NULL ? name : "", status);
  if (rule != NULL)
    {
      g_autofree char *with_rule = g_strdup_printf ("%s. %s", accessible, rule);

      g_free (accessible);
      accessible = g_steal_pointer (&with_rule);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->expander),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

static void
natter_tool_call_card_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_TOOL_CALL_CARD);

  G_OBJECT_CLASS (natter_tool_call_card_parent_class)->dispose (object);
}

static void
natter_tool_call_card_class_init (NatterToolCallCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_tool_call_card_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-tool-call-card.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, expander);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, status_icon);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, name_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, status_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, rule_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, arguments_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, progress_heading);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, progress_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, result_heading);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, result_label);
  gtk_widget_class_bind_template_child (widget_class, NatterToolCallCard, media_box);
  gtk_widget_class_set_css_name (widget_class, "natter-tool-call-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_tool_call_card_init (NatterToolCallCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_tool_call_card_new:
 * @call: the tool call to show (docs/runtime.md §5: its arguments,
 *   `tool_progress` and `tool_result`)
 *
 * Creates a collapsed card for @call. What it shows is copied: the card
 * keeps no reference to @call, so a new turn state replaces the card.
 *
 * Returns: (transfer floating): a new #NatterToolCallCard
 */
GtkWidget *
natter_tool_call_card_new (NatterTurnToolCall *call)
{
  NatterToolCallCard *self;

  g_return_val_if_fail (call != NULL, NULL);

  self = g_object_new (NATTER_TYPE_TOOL_CALL_CARD, NULL);
  set_call (self, call);
  return GTK_WIDGET (self);
}

/**
 * natter_tool_call_card_get_name:
 * @self: a card
 *
 * Returns: (transfer none): the tool's name as shown
 */
const char *
natter_tool_call_card_get_name (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  return gtk_label_get_text (self->name_label);
}

/**
 * natter_tool_call_card_get_status:
 * @self: a card
 *
 * Returns: (transfer none): the state shown next to the name, translated
 *   ("Done", "Failed", "Running", …)
 */
const char *
natter_tool_call_card_get_status (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  return gtk_label_get_text (self->status_label);
}

/**
 * natter_tool_call_card_get_rule:
 * @self: a card
 *
 * Returns: (transfer none) (nullable): "Allowed by your rule for …" when a
 *   permission grant of the session let the call run without asking, else
 *   %NULL
 */
const char *
natter_tool_call_card_get_rule (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->rule_label)))
    return NULL;
  return gtk_label_get_text (self->rule_label);
}

/**
 * natter_tool_call_card_get_icon_name:
 * @self: a card
 *
 * Returns: (transfer none): the icon shown for the call's state
 */
const char *
natter_tool_call_card_get_icon_name (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  return gtk_image_get_icon_name (self->status_icon);
}

/**
 * natter_tool_call_card_get_arguments:
 * @self: a card
 *
 * Returns: (transfer none): the arguments as shown (pretty JSON)
 */
const char *
natter_tool_call_card_get_arguments (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  return gtk_label_get_text (self->arguments_label);
}

/**
 * natter_tool_call_card_get_progress:
 * @self: a card
 *
 * Returns: (transfer none) (nullable): the latest progress of an
 *   unfinished call, or %NULL when none is shown
 */
const char *
natter_tool_call_card_get_progress (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->progress_label)))
    return NULL;
  return gtk_label_get_text (self->progress_label);
}

/**
 * natter_tool_call_card_get_result:
 * @self: a card
 *
 * Returns: (transfer none) (nullable): the result's `output` as shown (an
 *   error's text when natter_tool_call_card_get_failed()), or %NULL
 *   before the result
 */
const char *
natter_tool_call_card_get_result (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), NULL);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->result_label)))
    return NULL;
  return gtk_label_get_text (self->result_label);
}

/**
 * natter_tool_call_card_get_failed:
 * @self: a card
 *
 * Returns: whether the result is an error (`isError`)
 */
gboolean
natter_tool_call_card_get_failed (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), FALSE);
  return self->failed;
}

/**
 * natter_tool_call_card_get_expanded:
 * @self: a card
 *
 * Returns: whether the details (arguments, progress, result) are shown;
 *   %FALSE for a new card
 */
gboolean
natter_tool_call_card_get_expanded (NatterToolCallCard *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL_CALL_CARD (self), FALSE);
  return gtk_expander_get_expanded (self->expander);
}

/**
 * natter_tool_call_card_set_expanded:
 * @self: a card
 * @expanded: whether to show the details
 *
 * Shows or hides the arguments, progress and result, as a click or
 * Space/Enter on the card's title does.
 */
void
natter_tool_call_card_set_expanded (NatterToolCallCard *self,
                                    gboolean            expanded)
{
  g_return_if_fail (NATTER_IS_TOOL_CALL_CARD (self));
  gtk_expander_set_expanded (self->expander, expanded);
}
