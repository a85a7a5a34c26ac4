/* natter-composer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The message entry: multi-line, Enter sends and Shift+Enter starts a
 * new line; Send becomes Stop while the turn runs; when the
 * latest turn is suspended or idle, sending is refused before the user
 * tries, with the reason shown — the spec's TurnNotSettledError
 * (session-layer-spec.md §9.1 step 2) surfaced ahead of time. Beside
 * Send sits the agent chooser (hidden until it has a store); Tab goes
 * from the text to it, then to Send.
 */

#define G_LOG_DOMAIN "natter-composer"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-chooser.h"
#include "natter-composer.h"

struct _NatterComposer
{
  GtkWidget           parent_instance;

  gboolean            running;
  char               *blocked_reason;

  /* Template children */
  GtkLabel           *reason_label;
  GtkLabel           *placeholder_label;
  GtkTextView        *text_view;
  GtkTextBuffer      *buffer;
  NatterAgentChooser *agent_chooser;
  GtkButton          *send_button;
};

G_DEFINE_FINAL_TYPE (NatterComposer, natter_composer, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_RUNNING,
  PROP_BLOCKED_REASON,
  N_PROPS
};

enum
{
  SEND,
  STOP,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static gboolean
buffer_is_blank (NatterComposer *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  text = gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
  return g_strstrip (text)[0] == '\0';
}

static void
update_button (NatterComposer *self)
{
  const char *label;

  if (self->running)
    {
      gtk_button_set_icon_name (self->send_button, "media-playback-stop-symbolic");
      label = _("Stop");
      gtk_widget_remove_css_class (GTK_WIDGET (self->send_button), "suggested-action");
      gtk_widget_add_css_class (GTK_WIDGET (self->send_button), "destructive-action");
      gtk_widget_set_sensitive (GTK_WIDGET (self->send_button), TRUE);
    }
  else
    {
      gtk_button_set_icon_name (self->send_button, "go-up-symbolic");
      label = _("Send");
      gtk_widget_remove_css_class (GTK_WIDGET (self->send_button), "destructive-action");
      gtk_widget_add_css_class (GTK_WIDGET (self->send_button), "suggested-action");
      gtk_widget_set_sensitive (GTK_WIDGET (self->send_button),
                                self->blocked_reason == NULL && !buffer_is_blank (self));
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->send_button), label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->send_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  gtk_label_set_text (self->reason_label, self->blocked_reason != NULL ? self->blocked_reason : "");
  gtk_widget_set_visible (GTK_WIDGET (self->reason_label), self->blocked_reason != NULL && !self->running);
}

/* GtkTextView has no placeholder: a label over the empty field says
 * who the message goes to, and follows the agent chooser. */
static void
update_placeholder (NatterComposer *self)
{
  const char *name = natter_agent_chooser_get_agent_name (self->agent_chooser,
                                                          natter_agent_chooser_get_agent_id (self->agent_chooser));
  g_autofree char *text = NULL;

  /* Translators: the empty message field's placeholder; %s is an agent's
   * name, e.g. "Assistant" */
  text = g_strdup_printf (_("Message %s"), name);
  gtk_label_set_text (self->placeholder_label, text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text_view),
                                  GTK_ACCESSIBLE_PROPERTY_PLACEHOLDER, text, -1);
  gtk_widget_set_visible (GTK_WIDGET (self->placeholder_label),
                          gtk_text_buffer_get_char_count (self->buffer) == 0);
}

/**
 * natter_composer_send:
 * @self: a composer
 *
 * What Enter and the Send button do: emits #NatterComposer::send with the
 * text unless it is blank or sending is blocked. While a turn runs the
 * button is Stop, but Enter still sends: the window queues the message
 * to go after the running answer.
 *
 * Returns: whether ::send was emitted
 */
gboolean
natter_composer_send (NatterComposer *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), FALSE);

  if (self->blocked_reason != NULL || buffer_is_blank (self))
    return FALSE;
  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  text = gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
  g_signal_emit (self, signals[SEND], 0, text);
  return TRUE;
}

static void
button_clicked_cb (NatterComposer *self)
{
  if (self->running)
    g_signal_emit (self, signals[STOP], 0);
  else
    natter_composer_send (self);
}

static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                NatterComposer        *self)
{
  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return GDK_EVENT_PROPAGATE;
  /* Shift+Enter (and Ctrl+Enter) insert a newline the usual way. */
  if (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK))
    return GDK_EVENT_PROPAGATE;
  natter_composer_send (self);
  /* Enter never inserts a newline, even when sending is refused. */
  return GDK_EVENT_STOP;
}

static void
natter_composer_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_COMPOSER);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_composer_parent_class)->dispose (object);
}

static void
natter_composer_finalize (GObject *object)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  g_free (self->blocked_reason);

  G_OBJECT_CLASS (natter_composer_parent_class)->finalize (object);
}

static void
natter_composer_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;
    case PROP_BLOCKED_REASON:
      g_value_set_string (value, self->blocked_reason);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_composer_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  NatterComposer *self = NATTER_COMPOSER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      natter_composer_set_running (self, g_value_get_boolean (value));
      break;
    case PROP_BLOCKED_REASON:
      natter_composer_set_blocked_reason (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
natter_composer_grab_focus (GtkWidget *widget)
{
  return gtk_widget_grab_focus (GTK_WIDGET (NATTER_COMPOSER (widget)->text_view));
}

static void
natter_composer_class_init (NatterComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_composer_dispose;
  object_class->finalize = natter_composer_finalize;
  object_class->get_property = natter_composer_get_property;
  object_class->set_property = natter_composer_set_property;
  widget_class->grab_focus = natter_composer_grab_focus;

  /**
   * NatterComposer:running:
   *
   * Whether the session's latest turn is processing: the button stops it.
   */
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterComposer:blocked-reason:
   *
   * Why sending is refused right now (a suspended or interrupted turn, a
   * damaged session), shown above the entry; %NULL when it is allowed.
   */
  properties[PROP_BLOCKED_REASON] =
    g_param_spec_string ("blocked-reason", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterComposer::send:
   * @text: the message
   *
   * The user sent a message.
   */
  signals[SEND] = g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterComposer::stop:
   *
   * The user asked to stop the running turn.
   */
  signals[STOP] = g_signal_new ("stop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (NATTER_TYPE_AGENT_CHOOSER);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, reason_label);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, placeholder_label);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, text_view);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, send_button);
  gtk_widget_class_bind_template_child (widget_class, NatterComposer, agent_chooser);
  gtk_widget_class_bind_template_callback (widget_class, button_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, update_button);
  gtk_widget_class_set_css_name (widget_class, "natter-composer");
}

static void
natter_composer_init (NatterComposer *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->buffer = gtk_text_view_get_buffer (self->text_view);
  g_signal_connect_swapped (self->buffer, "changed", G_CALLBACK (update_button), self);
  g_signal_connect_swapped (self->buffer, "changed", G_CALLBACK (update_placeholder), self);
  g_signal_connect_swapped (self->agent_chooser, "notify::agent-id", G_CALLBACK (update_placeholder), self);
  g_signal_connect_swapped (self->agent_chooser, "agents-changed", G_CALLBACK (update_placeholder), self);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->text_view), keys);

  gtk_accessible_update_property (GTK_ACCESSIBLE (self->text_view),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message"), -1);
  update_button (self);
  update_placeholder (self);
}

/**
 * natter_composer_new:
 *
 * Returns: (transfer floating): a new composer
 */
GtkWidget *
natter_composer_new (void)
{
  return g_object_new (NATTER_TYPE_COMPOSER, NULL);
}

/**
 * natter_composer_dup_text:
 * @self: a composer
 *
 * Returns: (transfer full): the draft
 */
char *
natter_composer_dup_text (NatterComposer *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  gtk_text_buffer_get_bounds (self->buffer, &start, &end);
  return gtk_text_buffer_get_text (self->buffer, &start, &end, FALSE);
}

/**
 * natter_composer_set_text:
 * @self: a composer
 * @text: (nullable): the draft to show
 */
void
natter_composer_set_text (NatterComposer *self,
                          const char     *text)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));
  gtk_text_buffer_set_text (self->buffer, text != NULL ? text : "", -1);
}

/**
 * natter_composer_get_running:
 * @self: a composer
 *
 * Returns: whether the open session's latest turn runs, so that Send is
 *   Stop (#NatterComposer:running)
 */
gboolean
natter_composer_get_running (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), FALSE);
  return self->running;
}

/**
 * natter_composer_set_running:
 * @self: a composer
 * @running: whether the open session's latest turn runs
 *
 * Turns Send into Stop while @running, so the running turn can be
 * cancelled from where it was sent.
 */
void
natter_composer_set_running (NatterComposer *self,
                             gboolean        running)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  update_button (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

/**
 * natter_composer_get_blocked_reason:
 * @self: a composer
 *
 * Returns: (transfer none) (nullable): why sending is refused (the
 *   latest turn is suspended, idle or the session is damaged), or %NULL
 */
const char *
natter_composer_get_blocked_reason (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);
  return self->blocked_reason;
}

/**
 * natter_composer_set_blocked_reason:
 * @self: a composer
 * @reason: (nullable): why sending is refused, shown to the user; %NULL
 *   allows sending
 *
 * Surfaces the spec's TurnNotSettledError (session-layer-spec.md §9.1
 * step 2) before the user hits it; the string is copied.
 */
void
natter_composer_set_blocked_reason (NatterComposer *self,
                                    const char     *reason)
{
  g_return_if_fail (NATTER_IS_COMPOSER (self));

  if (g_strcmp0 (self->blocked_reason, reason) == 0)
    return;
  g_free (self->blocked_reason);
  self->blocked_reason = g_strdup (reason);
  update_button (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BLOCKED_REASON]);
}

/**
 * natter_composer_get_agent_chooser:
 * @self: a composer
 *
 * The chooser beside Send of the agent the next message goes to (issue
 * 7). It is hidden until the owner gives it a store and shows it.
 *
 * Returns: (transfer none): the chooser
 */
NatterAgentChooser *
natter_composer_get_agent_chooser (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);
  return self->agent_chooser;
}

/**
 * natter_composer_get_placeholder:
 * @self: a composer
 *
 * What the empty message field shows: "Message " and the name of the
 * agent the next message goes to.
 *
 * Returns: (transfer none) (nullable): the placeholder text, or %NULL
 *   while the field holds text (the placeholder is hidden then)
 */
const char *
natter_composer_get_placeholder (NatterComposer *self)
{
  g_return_val_if_fail (NATTER_IS_COMPOSER (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->placeholder_label)))
    return NULL;
  return gtk_label_get_text (self->placeholder_label);
}
