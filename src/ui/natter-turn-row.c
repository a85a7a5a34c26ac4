/* natter-turn-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One turn in the timeline (session-layer-spec.md §10.3): its input and
 * its own activity — reasoning, assistant text, tool calls with their
 * status — the live overlay of the streaming call, the prompts of a
 * suspended turn (§10.4), and what happened at the end with the next step
 * to take. The referenced prefix (the context) is never shown again: each
 * turn shows only what it added. Rows are recycled by the list view; a row
 * reads its turn when bound.
 */

#define G_LOG_DOMAIN "natter-turn-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-ask-human-card.h"
#include "natter-markdown-view.h"
#include "natter-permission-card.h"
#include "natter-turn-row.h"

struct _NatterTurnRow
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  NatterTurnItem *item;
  /* The markdown view the current overlay streams into, if any. */
  GtkWidget      *streaming_view;

  /* Template children */
  GtkWidget      *input_bubble;
  GtkLabel       *input_label;
  GtkWidget      *activity_box;
  GtkLabel       *streaming_reasoning;
  GtkWidget      *streaming_box;
  GtkWidget      *prompts_box;
  GtkWidget      *status_box;
  GtkSpinner     *spinner;
  GtkImage       *status_icon;
  GtkLabel       *status_label;
  GtkButton      *action_button;
};

G_DEFINE_FINAL_TYPE (NatterTurnRow, natter_turn_row, GTK_TYPE_WIDGET)

static void
remove_children (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    gtk_box_remove (GTK_BOX (box), child);
}

static GtkWidget *
text_view_new (const char *markdown)
{
  GtkWidget *view = natter_markdown_view_new ();

  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), markdown);
  return view;
}

static GtkWidget *
reasoning_label_new (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "natter-reasoning");
  return label;
}

/* What a tool call is doing, in the user's words. */
static const char *
tool_call_status (NatterTurnToolCall *call,
                  const char        **icon_name)
{
  JsonObject *result = natter_turn_tool_call_get_result (call);

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

static GtkWidget *
tool_call_widget_new (NatterTurnToolCall *call)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  const char *icon_name = NULL;
  const char *status = tool_call_status (call, &icon_name);
  GtkWidget *image;
  GtkWidget *name;
  GtkWidget *status_label;
  g_autofree char *accessible = NULL;

  gtk_widget_add_css_class (box, "natter-tool-call");
  image = g_object_new (GTK_TYPE_IMAGE,
                        "icon-name", icon_name,
                        "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                        NULL);
  name = gtk_label_new (natter_turn_tool_call_get_name (call));
  gtk_widget_add_css_class (name, "monospace");
  gtk_label_set_ellipsize (GTK_LABEL (name), PANGO_ELLIPSIZE_END);
  status_label = gtk_label_new (status);
  gtk_widget_add_css_class (status_label, "dim-label");
  gtk_box_append (GTK_BOX (box), image);
  gtk_box_append (GTK_BOX (box), name);
  gtk_box_append (GTK_BOX (box), status_label);
  /* Translators: a tool call and its state, e.g. "read_file: Done" */
  accessible = g_strdup_printf (_("%s: %s"), natter_turn_tool_call_get_name (call), status);
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  return box;
}

static void
add_message_parts (NatterTurnRow       *self,
                   NatterTurnModelCall *call)
{
  JsonObject *message = natter_turn_model_call_get_message (call);
  JsonNode *content = message != NULL ? json_object_get_member (message, "content") : NULL;
  GString *text = g_string_new (NULL);

  if (content != NULL && JSON_NODE_HOLDS_VALUE (content))
    g_string_append (text, json_node_get_string (content));
  else if (content != NULL && JSON_NODE_HOLDS_ARRAY (content))
    {
      JsonArray *parts = json_node_get_array (content);

      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonObject *part = json_array_get_object_element (parts, i);
          const char *type = part != NULL ? json_object_get_string_member_with_default (part, "type", "") : "";

          if (g_str_equal (type, "text"))
            g_string_append (text, json_object_get_string_member_with_default (part, "text", ""));
          else if (g_str_equal (type, "reasoning"))
            gtk_box_append (GTK_BOX (self->activity_box),
                            reasoning_label_new (json_object_get_string_member_with_default (part, "text", "")));
        }
    }
  if (text->len > 0)
    gtk_box_append (GTK_BOX (self->activity_box), text_view_new (text->str));
  g_string_free (text, TRUE);

  for (guint i = 0; i < natter_turn_model_call_get_n_tool_calls (call); i++)
    gtk_box_append (GTK_BOX (self->activity_box),
                    tool_call_widget_new (natter_turn_model_call_get_tool_call (call, i)));
}

static char *
ask_human_question (NatterTurnToolCall *call)
{
  JsonNode *arguments = natter_turn_tool_call_get_arguments (call);
  JsonObject *object;

  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
    return NULL;
  object = json_node_get_object (arguments);
  return g_strdup (json_object_get_string_member_with_default (object, "question", NULL));
}

static void
show_prompts (NatterTurnRow   *self,
              NatterTurnState *state)
{
  const char *turn_id = natter_turn_state_get_turn_id (state);
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (state);
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (state);

  remove_children (self->prompts_box);
  for (guint i = 0; i < permissions->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (permissions, i);
      JsonObject *required = natter_turn_tool_call_get_permission_required (call);
      JsonNode *request = required != NULL ? json_object_get_member (required, "request") : NULL;

      gtk_box_append (GTK_BOX (self->prompts_box),
                      natter_permission_card_new (self->sessions, turn_id,
                                                  natter_turn_tool_call_get_id (call),
                                                  natter_turn_tool_call_get_name (call),
                                                  request));
    }
  for (guint i = 0; i < async_tools->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (async_tools, i);
      g_autofree char *question = NULL;

      /* Other async tools get their results from elsewhere, not from the
       * person at the keyboard. */
      if (g_strcmp0 (natter_turn_tool_call_get_name (call), "ask_human") != 0)
        continue;
      question = ask_human_question (call);
      gtk_box_append (GTK_BOX (self->prompts_box),
                      natter_ask_human_card_new (self->sessions, turn_id,
                                                 natter_turn_tool_call_get_id (call), question));
    }
  gtk_widget_set_visible (self->prompts_box, gtk_widget_get_first_child (self->prompts_box) != NULL);
}

static void
set_status (NatterTurnRow *self,
            gboolean       spinning,
            const char    *icon_name,
            const char    *text,
            const char    *action_label,
            const char    *action_name)
{
  gtk_widget_set_visible (self->status_box, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), spinning);
  gtk_spinner_set_spinning (self->spinner, spinning);
  gtk_widget_set_visible (GTK_WIDGET (self->status_icon), icon_name != NULL);
  gtk_image_set_from_icon_name (self->status_icon, icon_name);
  gtk_label_set_text (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->action_button), action_name != NULL);
  if (action_name != NULL)
    {
      gtk_button_set_label (self->action_button, action_label);
      gtk_actionable_set_action_target (GTK_ACTIONABLE (self->action_button), "s",
                                        natter_turn_item_get_turn_id (self->item));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->action_button), action_name);
    }
  else
    gtk_actionable_set_action_name (GTK_ACTIONABLE (self->action_button), NULL);
}

static void
show_terminal (NatterTurnRow   *self,
               NatterTurnState *state)
{
  gboolean latest = natter_turn_item_get_latest (self->item);
  gboolean running = natter_turn_item_get_running (self->item);
  JsonObject *terminal = natter_turn_state_get_terminal_event (state);

  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  switch (natter_derive_turn_status (state))
    {
    case NATTER_TURN_STATUS_COMPLETED:
      gtk_widget_set_visible (self->status_box, FALSE);
      break;
    case NATTER_TURN_STATUS_FAILED:
      {
        const char *error = json_object_get_string_member_with_default (terminal, "error", "");
        const char *code = json_object_get_string_member_with_default (terminal, "code", NULL);

        if (g_strcmp0 (code, "model-call-limit") == 0)
          set_status (self, FALSE, "dialog-information-symbolic",
                      _("The assistant stopped after the most model calls one message may make."),
                      _("_Continue"), latest ? "win.continue-turn" : NULL);
        else
          {
            g_autofree char *text = g_strdup_printf (_("Failed: %s"), error);

            set_status (self, FALSE, "dialog-error-symbolic", text,
                        _("_Try Again"), latest ? "win.try-again" : NULL);
            gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
          }
      }
      break;
    case NATTER_TURN_STATUS_CANCELLED:
      set_status (self, FALSE, "process-stop-symbolic", _("Stopped"), NULL, NULL);
      break;
    case NATTER_TURN_STATUS_SUSPENDED:
      if (running)
        set_status (self, TRUE, NULL, _("Working…"), NULL, NULL);
      else
        set_status (self, FALSE, "dialog-information-symbolic", _("Waiting for you"), NULL, NULL);
      break;
    case NATTER_TURN_STATUS_IDLE:
    default:
      if (running)
        set_status (self, TRUE, NULL, _("Working…"), NULL, NULL);
      else
        set_status (self, FALSE, "dialog-warning-symbolic",
                    _("Interrupted before it finished, perhaps by a crash."),
                    _("_Resume"), latest ? "win.resume-turn" : NULL);
      break;
    }
  gtk_button_set_use_underline (self->action_button, TRUE);
}

static void
show_overlay (NatterTurnRow *self)
{
  const char *reasoning = natter_turn_item_get_overlay_reasoning (self->item);
  const char *text = natter_turn_item_get_overlay_text (self->item);

  gtk_label_set_text (self->streaming_reasoning, reasoning);
  gtk_widget_set_visible (GTK_WIDGET (self->streaming_reasoning), reasoning[0] != '\0');

  remove_children (self->streaming_box);
  self->streaming_view = NULL;
  if (text[0] != '\0')
    {
      self->streaming_view = natter_markdown_view_new ();
      natter_markdown_view_append (NATTER_MARKDOWN_VIEW (self->streaming_view), text);
      gtk_box_append (GTK_BOX (self->streaming_box), self->streaming_view);
    }
  gtk_widget_set_visible (self->streaming_box, self->streaming_view != NULL);
}

static void
update (NatterTurnRow *self)
{
  NatterTurnState *state;
  const char *error;
  g_autofree char *input = NULL;

  remove_children (self->activity_box);
  remove_children (self->prompts_box);
  gtk_widget_set_visible (self->prompts_box, FALSE);
  gtk_widget_set_visible (self->status_box, FALSE);
  if (self->item == NULL)
    return;

  state = natter_turn_item_get_state (self->item);
  error = natter_turn_item_get_error (self->item);
  input = natter_turn_item_dup_input_text (self->item);
  gtk_label_set_text (self->input_label, input != NULL ? input : "");
  gtk_widget_set_visible (self->input_bubble, input != NULL && input[0] != '\0');

  if (state != NULL)
    {
      for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
        {
          NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);

          if (call != NULL && !natter_turn_model_call_is_open (call))
            add_message_parts (self, call);
        }
      show_prompts (self, state);
      show_terminal (self, state);
    }
  show_overlay (self);

  if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("This turn cannot be read: %s"), error);

      set_status (self, FALSE, "dialog-error-symbolic", text, NULL, NULL);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
  else if (state == NULL)
    set_status (self, TRUE, NULL, _("Loading…"), NULL, NULL);
}

static void
item_changed_cb (NatterTurnRow *self)
{
  update (self);
}

static void
item_delta_cb (NatterTurnRow  *self,
               int             kind,
               const char     *text)
{
  if (kind == NATTER_DELTA_REASONING)
    {
      gtk_label_set_text (self->streaming_reasoning, natter_turn_item_get_overlay_reasoning (self->item));
      gtk_widget_set_visible (GTK_WIDGET (self->streaming_reasoning), TRUE);
      return;
    }
  if (self->streaming_view == NULL)
    {
      show_overlay (self);
      return;
    }
  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (self->streaming_view), text);
}

static void
natter_turn_row_dispose (GObject *object)
{
  GtkWidget *child;
  NatterTurnRow *self = NATTER_TURN_ROW (object);

  natter_turn_row_set_item (self, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_TURN_ROW);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_turn_row_parent_class)->dispose (object);
}

static void
natter_turn_row_finalize (GObject *object)
{
  NatterTurnRow *self = NATTER_TURN_ROW (object);

  g_clear_object (&self->sessions);

  G_OBJECT_CLASS (natter_turn_row_parent_class)->finalize (object);
}

static void
natter_turn_row_class_init (NatterTurnRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_turn_row_dispose;
  object_class->finalize = natter_turn_row_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-turn-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, input_bubble);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, input_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, activity_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, streaming_reasoning);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, streaming_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, prompts_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_icon);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, action_button);
  gtk_widget_class_set_css_name (widget_class, "natter-turn-row");
}

static void
natter_turn_row_init (NatterTurnRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_turn_row_new:
 * @sessions: the session service that prompts answer through
 *
 * Returns: (transfer floating): an empty row; see natter_turn_row_set_item()
 */
GtkWidget *
natter_turn_row_new (NatterSessions *sessions)
{
  NatterTurnRow *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);

  self = g_object_new (NATTER_TYPE_TURN_ROW, NULL);
  self->sessions = g_object_ref (sessions);
  return GTK_WIDGET (self);
}

/**
 * natter_turn_row_set_item:
 * @self: a row
 * @item: (nullable): the turn to show
 *
 * Binds the row to @item and starts reading the turn if nobody has yet;
 * the row follows the item's changes and deltas until it is unbound.
 */
void
natter_turn_row_set_item (NatterTurnRow  *self,
                          NatterTurnItem *item)
{
  g_return_if_fail (NATTER_IS_TURN_ROW (self));
  g_return_if_fail (item == NULL || NATTER_IS_TURN_ITEM (item));

  if (self->item == item)
    return;
  if (self->item != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->item, self);
      g_clear_object (&self->item);
    }
  if (item != NULL)
    {
      self->item = g_object_ref (item);
      g_signal_connect_swapped (item, "changed", G_CALLBACK (item_changed_cb), self);
      g_signal_connect_swapped (item, "delta", G_CALLBACK (item_delta_cb), self);
      g_signal_connect_swapped (item, "notify::running", G_CALLBACK (item_changed_cb), self);
      g_signal_connect_swapped (item, "notify::latest", G_CALLBACK (item_changed_cb), self);
      natter_turn_item_ensure_loaded (item);
    }
  update (self);
}

/**
 * natter_turn_row_get_item:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the bound item
 */
NatterTurnItem *
natter_turn_row_get_item (NatterTurnRow *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ROW (self), NULL);
  return self->item;
}
