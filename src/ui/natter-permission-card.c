/* natter-permission-card.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One pending permission of a suspended turn (docs/sessions.md
 * §10.4): what the tool will do, in words, the raw arguments behind an
 * expander, and Allow / Deny, or Always Allow in This Conversation (a
 * permission grant of the session, docs/sessions.md §12). Built only
 * from the turn's reduced state, so the card is there again after a
 * restart. Each pending call has its own card; deciding one leaves the
 * others.
 */

#define G_LOG_DOMAIN "natter-permission-card"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-permission-card.h"
#include "natter-sessions-grants.h"

struct _NatterPermissionCard
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *turn_id;
  char           *tool_call_id;
  GCancellable   *cancellable;

  /* Template children */
  GtkLabel       *title_label;
  GtkLabel       *tool_label;
  GtkExpander    *details_expander;
  GtkLabel       *request_label;
  GtkLabel       *error_label;
  GtkWidget      *buttons;
  GtkWidget      *allow_button;
  GtkWidget      *always_button;
  gboolean        answering;
};

G_DEFINE_FINAL_TYPE (NatterPermissionCard, natter_permission_card, GTK_TYPE_WIDGET)

/* A refusal says why on the card; the buttons are usable again. */
static void
show_refusal (NatterPermissionCard *self,
              const GError         *error)
{
  self->answering = FALSE;
  gtk_label_set_text (self->error_label, error->message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
  gtk_widget_set_sensitive (self->buttons, TRUE);
}

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
    show_refusal (self, error);
}

static void
always_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterPermissionCard) self = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autoptr(GError) error = NULL;

  outcome = natter_sessions_allow_always_finish (NATTER_SESSIONS (source), result, NULL, &error);
  if (outcome == NULL && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_refusal (self, error);
}

/* Answering takes the buttons away from under the keyboard. Left to
 * itself GTK moves the focus on to whatever follows in the window, later
 * and not always to the same place; the window decides instead (the next
 * waiting prompt, else the composer), before the buttons go insensitive,
 * while this card already counts as answered. */
static void
begin_answer (NatterPermissionCard *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  self->answering = TRUE;
  if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self)))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.leave-prompt", NULL);
  gtk_widget_set_sensitive (self->buttons, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
}

static void
always_clicked_cb (NatterPermissionCard *self)
{
  begin_answer (self);
  natter_sessions_allow_always_async (self->sessions, self->turn_id, self->tool_call_id, self->cancellable,
                                      always_cb, g_object_ref (self));
}

static void
decide (NatterPermissionCard *self,
        const char           *decision)
{
  begin_answer (self);
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
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, tool_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, details_expander);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, request_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, error_label);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, buttons);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, allow_button);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionCard, always_button);
  gtk_widget_class_bind_template_callback (widget_class, allow_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, deny_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, always_clicked_cb);
  gtk_widget_class_set_css_name (widget_class, "natter-permission-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_permission_card_init (NatterPermissionCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}

static const char *
string_member (JsonNode   *node,
               const char *name)
{
  JsonObject *object;
  JsonNode *member;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  object = json_node_get_object (node);
  member = json_object_get_member (object, name);
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (member);
}

/**
 * natter_permission_card_describe:
 * @tool_name: (nullable): the tool's name, as the model sees it
 * @request: (nullable): the `request` of `tool_permission_required`
 *   (docs/runtime.md §5): the built-in file tools describe their request as
 *   `{"action": "read" | "list", "path": …}`, a checker may give a sentence
 *   of its own as a string
 * @arguments: (nullable): the call's arguments
 *
 * Says in words what a tool call will do if allowed: “Read /etc/hostname”
 * for read_file, “List /tmp” for list_directory, “Get the current time”,
 * the checker's own sentence when it gave one, “Use “x” of the tool
 * server “y”” for a tool server's tool (its request is `{server, tool,
 * arguments}`), and “Use the tool “x”” for any other tool. The text is plain, never markup.
 *
 * Returns: (transfer full): the sentence, translated
 */
char *
natter_permission_card_describe (const char *tool_name,
                                 JsonNode   *request,
                                 JsonNode   *arguments)
{
  const char *action = string_member (request, "action");
  const char *path = string_member (request, "path");

  if (request != NULL && JSON_NODE_HOLDS_VALUE (request) &&
      json_node_get_value_type (request) == G_TYPE_STRING && json_node_get_string (request)[0] != '\0')
    return g_strdup (json_node_get_string (request));

  /* The request names the resolved path; the arguments are the fallback
   * of a request that did not say. */
  if (action == NULL && g_strcmp0 (tool_name, "read_file") == 0)
    action = "read";
  else if (action == NULL && g_strcmp0 (tool_name, "list_directory") == 0)
    action = "list";
  if (path == NULL)
    path = string_member (arguments, "path");

  if (g_strcmp0 (action, "read") == 0 && path != NULL)
    /* Translators: what a tool will do; %s is a file's path */
    return g_strdup_printf (_("Read %s"), path);
  if (g_strcmp0 (action, "list") == 0 && path != NULL)
    /* Translators: what a tool will do; %s is a folder's path */
    return g_strdup_printf (_("List %s"), path);
  if (g_strcmp0 (tool_name, "current_time") == 0)
    return g_strdup (_("Get the current time"));
  if (string_member (request, "server") != NULL && string_member (request, "tool") != NULL)
    /* Translators: what an MCP tool call will do; the first %s is the
     * tool's name at its server, the second the server's name */
    return g_strdup_printf (_("Use “%s” of the tool server “%s”"), string_member (request, "tool"),
                            string_member (request, "server"));
  /* Translators: what a tool will do; %s is the tool's name, e.g. fetch_url */
  return g_strdup_printf (_("Use the tool “%s”"), tool_name != NULL ? tool_name : "");
}

/* Strings as they are, anything else as pretty JSON. */
static char *
node_to_text (JsonNode *node)
{
  if (node == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, TRUE);
}

/**
 * natter_permission_card_new:
 * @sessions: the session service the decision goes to
 * @turn_id: the suspended turn
 * @tool_call_id: the pending call
 * @tool_name: the tool's name, as the model sees it
 * @request: (nullable): the `request` of `tool_permission_required`
 * @arguments: (nullable): the call's arguments, shown raw behind an
 *   expander
 *
 * Creates a card that says what the call will do
 * (natter_permission_card_describe()) and whose Allow / Deny buttons call
 * natter_sessions_respond_to_permission_async() for this call
 * (docs/sessions.md §9.2).
 *
 * Returns: (transfer floating): a new card
 */
GtkWidget *
natter_permission_card_new (NatterSessions *sessions,
                            const char     *turn_id,
                            const char     *tool_call_id,
                            const char     *tool_name,
                            JsonNode       *request,
                            JsonNode       *arguments)
{
  NatterPermissionCard *self;
  g_autofree char *title = NULL;
  g_autofree char *tool = NULL;
  g_autofree char *raw_arguments = NULL;
  g_autoptr(GString) details = g_string_new (NULL);

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (turn_id != NULL && tool_call_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_PERMISSION_CARD, NULL);
  self->sessions = g_object_ref (sessions);
  self->turn_id = g_strdup (turn_id);
  self->tool_call_id = g_strdup (tool_call_id);

  title = natter_permission_card_describe (tool_name, request, arguments);
  gtk_label_set_text (self->title_label, title);
  /* Translators: %s is the name of a tool, e.g. read_file */
  tool = g_strdup_printf (_("The assistant asks to use “%s”. Allow it?"), tool_name != NULL ? tool_name : "");
  gtk_label_set_text (self->tool_label, tool);

  raw_arguments = node_to_text (arguments);
  g_string_append (details, raw_arguments != NULL ? raw_arguments : "{}");
  /* What a checker asked beyond the arguments is for the human to judge
   * too, unless the sentence above already says it. */
  if (request != NULL && string_member (request, "action") == NULL &&
      !(JSON_NODE_HOLDS_VALUE (request) && json_node_get_value_type (request) == G_TYPE_STRING))
    {
      g_autofree char *raw_request = node_to_text (request);

      g_string_append_printf (details, "\n\n%s\n%s", _("Request:"), raw_request);
    }
  gtk_label_set_text (self->request_label, details->str);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  -1);
  return GTK_WIDGET (self);
}

/**
 * natter_permission_card_get_description:
 * @self: a card
 *
 * Returns: (transfer none): the sentence the card shows for what the tool
 *   will do
 */
const char *
natter_permission_card_get_description (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), NULL);
  return gtk_label_get_text (self->title_label);
}

/**
 * natter_permission_card_get_details:
 * @self: a card
 *
 * Returns: (transfer none): the raw arguments (and a checker's request)
 *   shown behind the Details expander
 */
const char *
natter_permission_card_get_details (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), NULL);
  return gtk_label_get_text (self->request_label);
}

/**
 * natter_permission_card_set_details_expanded:
 * @self: a card
 * @expanded: whether to show the raw arguments
 *
 * Opens or closes the Details expander, as a click on it does.
 */
void
natter_permission_card_set_details_expanded (NatterPermissionCard *self,
                                             gboolean              expanded)
{
  g_return_if_fail (NATTER_IS_PERMISSION_CARD (self));
  gtk_expander_set_expanded (self->details_expander, expanded);
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
 *   (docs/sessions.md §9)
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
 * Gives the keyboard focus to Allow, the suggested answer, so that a
 * prompt can be answered from the keyboard alone: Tab from the composer
 * lands here while the turn waits; Deny is one Shift+Tab away. A card
 * already decided takes no focus.
 *
 * Returns: whether the card took the focus
 */
gboolean
natter_permission_card_focus_default (NatterPermissionCard *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSION_CARD (self), FALSE);

  if (self->answering)
    return FALSE;
  return gtk_widget_grab_focus (self->allow_button);
}
