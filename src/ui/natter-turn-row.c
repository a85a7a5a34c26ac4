/* natter-turn-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One turn in the timeline (docs/sessions.md §10.3): its input and
 * its own activity — reasoning, assistant text, tool calls with their
 * status — the live overlay of the streaming call, the prompts of a
 * suspended turn (docs/sessions.md §10.4), and what happened at the end with
 * the next step to take. The referenced prefix (the context) is never shown
 * again: each turn shows only what it added. Rows are recycled by the list
 * view. A row in a window reads its turn only once the list view places it in
 * the viewport, and says so (#NatterTurnRow::placed) for the rows near it to
 * be read ahead (a long session must open fast); a row outside
 * any window reads it when bound.
 */

#define G_LOG_DOMAIN "natter-turn-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-action-box.h"
#include "natter-ask-human-card.h"
#include "natter-attachment-chip.h"
#include "natter-builder-part.h"
#include "natter-markdown-view.h"
#include "natter-permission-card.h"
#include "natter-plain-text.h"
#include "natter-error-words.h"
#include "natter-provider-error.h"
#include "natter-tool-call-card.h"
#include "natter-text-direction.h"
#include "natter-text-window.h"
#include "natter-turn-row-private.h"
#include "natter-version-switcher.h"
#include "natter-visible-label.h"

/* The parts this file builds by id (natter_builder_part()). */
#define PARTS_UI "natter-turn-row-parts.ui"

struct _NatterTurnRow
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  NatterBlobStore *blobs;   /* nullable: where sent attachments are read */
  NatterTurnItem *item;
  /* The markdown view the current overlay streams into, if any. */
  GtkWidget      *streaming_view;
  /* The assistant's words in this turn, for Copy. */
  GString        *assistant_text;
  gboolean        stopped_mid_answer;  /* a "Stopped mid-answer" mark is shown */
  /* The read of the words a killed process kept of the interrupted
   * answer (show_kept_words()), cancelled by the next update. */
  GCancellable   *kept_cancellable;
  /* The item's read waits until the list view places this row in the
   * viewport: a 1,000-turn session binds about 200 rows, of which a
   * handful are seen. placed_id is the idle that starts the read and
   * emits ::placed. */
  gboolean        placed_pending;
  guint           placed_id;
  /* The template is instantiated when the row first has something to
   * show: a long session binds about 200 rows and shows a handful, and
   * building 200 templates was most of the time it took to open. */
  gboolean        built;

  /* Template children */
  GtkWidget      *input_bubble;
  GtkExpander    *summary_expander;
  GtkLabel       *summary_label;
  GtkLabel       *input_label;
  GtkWidget      *full_message_button;
  GtkWidget      *attachments_box;
  char           *attachments_turn_id;   /* whose attachments it shows */
  GtkWidget      *input_actions;
  GtkWidget      *edit_button;
  NatterVersionSwitcher *version_switcher;
  GtkWidget      *activity_box;
  GtkLabel       *streaming_reasoning;
  GtkWidget      *streaming_box;
  GtkWidget      *prompts_box;
  GtkWidget      *status_box;
  GtkSpinner     *spinner;
  GtkImage       *status_icon;
  GtkLabel       *status_label;
  GtkButton      *action_button;
  GtkExpander    *status_details;
  GtkLabel       *status_details_label;
  GtkWidget      *read_aloud_button;
  GtkWidget      *actions_line;
  GtkWidget      *copy_button;
  GtkWidget      *branch_button;
  GtkWidget      *retry_button;
  GtkLabel       *usage_label;

  /* Whether the pointer, or the focus, is in the row: Read Aloud shows
   * then (update_read_aloud()). */
  gboolean        pointer_in;
  gboolean        focus_in;
};

G_DEFINE_FINAL_TYPE (NatterTurnRow, natter_turn_row, GTK_TYPE_WIDGET)

enum
{
  PLACED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

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

/* Finished reasoning is tucked away: it is there for who wants it, and
 * does not push the answer down. */
static void
append_reasoning (GtkBox     *box,
                  const char *text)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  GtkWidget *expander = natter_builder_part (builder, PARTS_UI, "reasoning_expander");

  natter_label_set_visible_text (GTK_LABEL (gtk_builder_get_object (builder, "reasoning_label")), text);
  gtk_box_append (box, expander);
}

/* Under the answer a call had streamed when it was stopped or broke off:
 * the text above it is all there is, and says why. */
static void
append_partial_mark (GtkBox   *box,
                     gboolean  stopped)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new ();
  GtkWidget *mark = natter_builder_part (builder, PARTS_UI, "partial_mark");

  gtk_image_set_from_icon_name (GTK_IMAGE (gtk_builder_get_object (builder, "partial_icon")),
                                stopped ? "process-stop-symbolic" : "dialog-warning-symbolic");
  gtk_label_set_text (GTK_LABEL (gtk_builder_get_object (builder, "partial_label")),
                      stopped ? _("Stopped mid-answer") : _("Cut off mid-answer"));
  gtk_box_append (box, mark);
}

/* The text and reasoning of an assistant @message, at the end of the
 * activity, its text kept for Copy. */
static void
append_message (NatterTurnRow *self,
                JsonObject    *message)
{
  JsonNode *content = json_object_get_member (message, "content");
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
            append_reasoning (GTK_BOX (self->activity_box),
                              json_object_get_string_member_with_default (part, "text", ""));
        }
    }
  if (text->len > 0)
    {
      GtkWidget *view = text_view_new (text->str);

      /* See update(): the text is built over the next frames. */
      g_signal_connect_object (view, "notify::ready", G_CALLBACK (gtk_widget_queue_resize), self,
                               G_CONNECT_SWAPPED);
      gtk_box_append (GTK_BOX (self->activity_box), view);
      if (self->assistant_text->len > 0)
        g_string_append (self->assistant_text, "\n\n");
      g_string_append_len (self->assistant_text, text->str, text->len);
    }
  g_string_free (text, TRUE);
}

static void
add_message_parts (NatterTurnRow       *self,
                   NatterTurnModelCall *call,
                   GHashTable          *prompted)
{
  JsonObject *message = natter_turn_model_call_get_message (call);
  /* A call stopped or broken mid-answer keeps what had arrived; it stays
   * on screen, marked, live and after a restart. */
  JsonObject *partial = message == NULL ? natter_turn_model_call_get_partial (call) : NULL;

  if (partial != NULL)
    message = partial;
  if (message != NULL)
    append_message (self, message);
  if (partial != NULL)
    {
      append_partial_mark (GTK_BOX (self->activity_box), natter_turn_model_call_was_stopped (call));
      if (natter_turn_model_call_was_stopped (call))
        self->stopped_mid_answer = TRUE;
    }

  for (guint i = 0; i < natter_turn_model_call_get_n_tool_calls (call); i++)
    {
      NatterTurnToolCall *tool_call = natter_turn_model_call_get_tool_call (call, i);
      GtkWidget *answered;

      /* A call with a prompt below is shown by its prompt alone. */
      if (prompted != NULL && g_hash_table_contains (prompted, natter_turn_tool_call_get_id (tool_call)))
        continue;
      if ((answered = natter_turn_row_answered_question_new (tool_call)) != NULL)
        gtk_box_append (GTK_BOX (self->activity_box), answered);
      else
        natter_turn_row_append_tool_call_card (GTK_BOX (self->activity_box), natter_tool_call_card_new (tool_call));
    }
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
                                                  request,
                                                  natter_turn_tool_call_get_arguments (call)));
    }
  for (guint i = 0; i < async_tools->len; i++)
    {
      NatterTurnToolCall *call = g_ptr_array_index (async_tools, i);
      g_autofree char *question = NULL;

      /* Other async tools get their results from elsewhere, not from the
       * person at the keyboard. */
      if (g_strcmp0 (natter_turn_tool_call_get_name (call), "ask_human") != 0)
        continue;
      question = natter_turn_row_ask_human_question (call);
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
  gtk_widget_set_visible (GTK_WIDGET (self->status_details), FALSE);
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

/* A failed turn's status: what failed in the window's language, with
 * the way on that fits it. */
static void
show_failure (NatterTurnRow   *self,
              NatterTurnState *state,
              JsonObject      *terminal,
              gboolean         latest)
{
  const char *stored = json_object_get_string_member_with_default (terminal, "error", "");
  const char *code = json_object_get_string_member_with_default (terminal, "code", NULL);
  /* Stored in no one's language; shown in the window's. */
  g_autofree char *error = natter_error_words_local (stored);

  if (g_strcmp0 (code, "model-call-limit") == 0)
    {
      /* The runtime stops when the calls reach the limit, so their
       * number is the limit this turn ran under. */
      guint n = natter_turn_state_get_n_model_calls (state);
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "Stopped after %u model call for one message, "
                                                            "the limit set in Preferences.",
                                                            "Stopped after %u model calls for one message, "
                                                            "the limit set in Preferences.", n), n);

      set_status (self, FALSE, "dialog-information-symbolic", text,
                  _("_Continue"), latest ? "win.continue-turn" : NULL);
    }
  else if (natter_error_is_context_overflow (stored))
    {
      /* Trying again would overflow again; compacting is the way on. */
      g_autofree char *text = g_strdup_printf (_("Failed: %s"), error);

      set_status (self, FALSE, "dialog-error-symbolic", text,
                  _("Compact and _Continue"), latest ? "win.compact-and-continue" : NULL);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
  else if (natter_error_is_unreadable_reply (stored))
    {
      /* The parser's words and the bytes it stopped at mean
       * nothing to most people: said plainly, kept underneath. */
      set_status (self, FALSE, "dialog-error-symbolic",
                  _("Failed: the server sent a reply Natter could not read."),
                  _("_Try Again"), latest ? "win.try-again" : NULL);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
      natter_label_set_visible_text (self->status_details_label, error);
      gtk_widget_set_visible (GTK_WIDGET (self->status_details), TRUE);
    }
  else
    {
      g_autofree char *text = g_strdup_printf (_("Failed: %s"), error);

      set_status (self, FALSE, "dialog-error-symbolic", text,
                  _("_Try Again"), latest ? "win.try-again" : NULL);
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
    }
}

static void
kept_words_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(NatterTurnRow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) partial = natter_sessions_read_kept_words_finish (NATTER_SESSIONS (source), result, &error);

  /* Another update came first: the row shows something else now. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (partial != NULL)
    {
      append_message (self, json_node_get_object (partial));
      append_partial_mark (GTK_BOX (self->activity_box), FALSE);
    }
  else if (error != NULL)
    {
      /* Said before Resume goes on without them; the file is left
       * for whoever looks into it. */
      natter_label_set_visible_text (self->status_details_label, error->message);
      gtk_widget_set_visible (GTK_WIDGET (self->status_details), TRUE);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/* A turn this device was answering when its process was killed: the
 * words that had arrived were kept beside its file (docs/format.md §11),
 * and a resume or a stop writes them into it. Shown before that, under
 * the turn, so that the person sees what is there before choosing. */
static void
show_kept_words (NatterTurnRow   *self,
                 NatterTurnState *state)
{
  if (!natter_turn_state_has_open_model_call (state))
    return;
  self->kept_cancellable = g_cancellable_new ();
  natter_sessions_read_kept_words_async (self->sessions, natter_turn_state_get_turn_id (state),
                                         natter_turn_state_get_last_model_call_index (state), self->kept_cancellable,
                                         kept_words_cb, g_object_ref (self));
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
      show_failure (self, state, terminal, latest);
      break;
    case NATTER_TURN_STATUS_CANCELLED:
      /* Said once: under the words that had arrived, when there were any. */
      if (!self->stopped_mid_answer)
        set_status (self, FALSE, "process-stop-symbolic", _("Stopped"), NULL, NULL);
      break;
    case NATTER_TURN_STATUS_SUSPENDED:
      /* A turn suspended on a prompt waits for the user whether its
       * runtime is still live (the bus says it is processing) or it was
       * read back after a restart: only the prompt moves it on. One
       * suspended on an async tool waits for the tool's result, which
       * arrives from outside (docs/runtime.md §8), live or not. */
      if (natter_turn_row_waits_for_user (state))
        set_status (self, FALSE, "dialog-information-symbolic", _("Waiting for you"), NULL, NULL);
      else
        {
          g_autofree char *names = natter_turn_row_pending_async_tool_names (state);
          g_autofree char *text = g_strdup_printf (_("Waiting for the result of %s"), names);

          set_status (self, FALSE, "content-loading-symbolic", text, NULL, NULL);
        }
      break;
    case NATTER_TURN_STATUS_IDLE:
    default:
      if (running)
        set_status (self, TRUE, NULL, _("Working…"), NULL, NULL);
      else if (!latest && natter_sessions_is_shared (self->sessions))
        /* Or an older copy of a file whose whole copy is on its way
         * (docs/format.md §9.3): shown as a missing one is. */
        set_status (self, TRUE, NULL, _("Arriving from another device…"), NULL, NULL);
      else if (!latest)
        {
          /* A turn is only gone on from once it has ended: an earlier
           * one without its end lost it after the conversation went on,
           * and no message can be sent on that history
           * (docs/runtime.md §11). Said here, before a send is refused. */
          set_status (self, FALSE, "dialog-error-symbolic",
                      _("The end of this answer is missing from its file, though the conversation went on "
                        "after it: the file is damaged, so nothing more can be sent here."),
                      _("_Copy Readable Part"), "win.recover-conversation");
          gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
        }
      else if (!natter_device_is_this (natter_sessions_get_device (self->sessions),
                                       natter_turn_state_get_device_id (state)))
        {
          /* Another device writes this answer (docs/format.md §4.5): it
           * shows when it arrives, and nothing here moves it on but the
           * person's confirmed take-over. */
          /* Translators: %s is the name of another computer */
          g_autofree char *text = g_strdup_printf (_("Answering on “%s”…"),
                                                   natter_turn_state_get_device_name (state));

          /* No spinner: that device may have stopped for good, which
           * nothing here can tell. */
          set_status (self, FALSE, "network-transmit-receive-symbolic", text, _("Continue _Here…"),
                      latest ? "win.continue-turn-here" : NULL);
        }
      else if (natter_sessions_get_write_refusal (self->sessions) != NULL)
        /* This process writes nothing (docs/sessions.md §8.3): the
         * answer may well be running in the Natter that does, and only
         * that one may resume or stop it. */
        set_status (self, FALSE, "dialog-information-symbolic",
                    _("Not finished here. The other Natter using this data folder may still be writing it."),
                    NULL, NULL);
      else
        {
          set_status (self, FALSE, "dialog-warning-symbolic",
                      _("Interrupted before it finished, perhaps by a crash."),
                      _("_Resume"), latest ? "win.resume-turn" : NULL);
          show_kept_words (self, state);
        }
      break;
    }
  gtk_button_set_use_underline (self->action_button, TRUE);
}

static char *
format_count (gint64 count)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT, count);
}

/* "… · 42.5 tokens/s · first token after 0.8 s": the answer's speed
 * (docs/format.md §4.2) after @line, in the person's number format;
 * @line alone when neither figure is known. */
static char *
append_speed (const char      *line,
              NatterTurnState *state)
{
  gint64 first_ms;
  double speed;
  char *text = g_strdup (line);

  natter_turn_state_get_speed (state, &first_ms, &speed);
  if (speed > 0)
    {
      g_autofree char *before = text;

      /* Translators: the usage line of an answer, "120 tokens · 42.5 tokens/s" */
      text = g_strdup_printf (_("%s · %.1f tokens/s"), before, speed);
    }
  if (first_ms >= 0)
    {
      g_autofree char *before = text;

      /* Translators: the usage line of an answer, "… · first token after 0.8 s" */
      text = g_strdup_printf (_("%s · first token after %.1f s"), before, (double) first_ms / 1000.0);
    }
  return text;
}

/* The turn's token usage (the sum over its model calls) and its speed:
 * the total and the speed on the row, the breakdown in the tooltip. */
static void
show_usage (NatterTurnRow   *self,
            NatterTurnState *state)
{
  g_autoptr(JsonObject) usage = natter_turn_state_dup_usage (state);
  gint64 input = json_object_get_int_member_with_default (usage, "inputTokens", -1);
  gint64 output = json_object_get_int_member_with_default (usage, "outputTokens", -1);
  gint64 total = json_object_get_int_member_with_default (usage, "totalTokens", -1);
  gint64 reasoning = json_object_get_int_member_with_default (usage, "reasoningTokens", -1);
  gint64 cached = json_object_get_int_member_with_default (usage, "cachedInputTokens", -1);
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;
  GString *details;

  if (total < 0 && input >= 0 && output >= 0)
    total = input + output;
  gtk_widget_set_visible (GTK_WIDGET (self->usage_label), total >= 0);
  if (total < 0)
    return;

  count = format_count (total);
  /* Translators: %s is a number of tokens, e.g. "1234 tokens" */
  text = g_strdup_printf (ngettext ("%s token", "%s tokens", (gulong) total), count);
  {
    g_autofree char *line = append_speed (text, state);

    gtk_label_set_text (self->usage_label, line);
  }

  details = g_string_new (NULL);
  if (input >= 0)
    {
      g_autofree char *n = format_count (input);

      /* Translators: a line of the token usage tooltip */
      g_string_append_printf (details, _("Input: %s"), n);
    }
  if (cached >= 0)
    {
      g_autofree char *n = format_count (cached);

      g_string_append_c (details, '\n');
      /* Translators: a line of the token usage tooltip */
      g_string_append_printf (details, _("Cached input: %s"), n);
    }
  if (output >= 0)
    {
      g_autofree char *n = format_count (output);

      g_string_append_c (details, '\n');
      /* Translators: a line of the token usage tooltip */
      g_string_append_printf (details, _("Output: %s"), n);
    }
  if (reasoning >= 0)
    {
      g_autofree char *n = format_count (reasoning);

      g_string_append_c (details, '\n');
      /* Translators: a line of the token usage tooltip */
      g_string_append_printf (details, _("Reasoning: %s"), n);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->usage_label),
                               g_strchug (details->str)[0] != '\0' ? details->str : NULL);
  g_string_free (details, TRUE);
}

/* Read Aloud, or Stop while this answer is being read (the same action
 * toggles). It lies over the turn's part (place_read_aloud()) and
 * shows only while the pointer or the focus is in the turn, or while it
 * reads: a code block's Copy in other apps does the same. Hidden, it stays on the Tab
 * path (the focus then shows it) and is never clicked by mistake. */
static void
update_read_aloud (NatterTurnRow *self)
{
  gboolean speaking = self->item != NULL && natter_turn_item_get_speaking (self->item);
  const char *label = speaking ? _("Stop Reading Aloud") : _("Read Aloud");
  gboolean revealed = speaking || self->pointer_in || self->focus_in;

  if (!self->built)
    return;
  gtk_button_set_icon_name (GTK_BUTTON (self->read_aloud_button),
                            speaking ? "media-playback-stop-symbolic" : "audio-speakers-symbolic");
  gtk_widget_set_tooltip_text (self->read_aloud_button, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->read_aloud_button),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  if (revealed)
    gtk_widget_add_css_class (self->read_aloud_button, "revealed");
  else
    gtk_widget_remove_css_class (self->read_aloud_button, "revealed");
  gtk_widget_set_can_target (self->read_aloud_button, revealed);
}

static void
pointer_changed_cb (NatterTurnRow            *self,
                    GParamSpec               *pspec,
                    GtkEventControllerMotion *motion)
{
  self->pointer_in = gtk_event_controller_motion_contains_pointer (motion);
  update_read_aloud (self);
}

static void
focus_changed_cb (NatterTurnRow           *self,
                  GParamSpec              *pspec,
                  GtkEventControllerFocus *focus)
{
  self->focus_in = gtk_event_controller_focus_contains_focus (focus);
  update_read_aloud (self);
}

/* The room Read Aloud wants beside the last of the actions, and the
 * spacing of the turn's lines (natter-turn-row.ui). */
#define READ_ALOUD_GAP 6
#define LINE_SPACING   8

/* Where Read Aloud lies over the turn's own part (the overlay's
 * ::get-child-position): at the end of the actions' line where its
 * buttons leave room, else just above that end, its icon on the
 * answer's last line of text, whose end a paragraph's last line seldom
 * reaches. */
static gboolean
place_read_aloud (NatterTurnRow *self,
                  GtkWidget     *button,
                  GdkRectangle  *allocation,
                  GtkOverlay    *overlay)
{
  int width = gtk_widget_get_width (GTK_WIDGET (overlay));
  int height = gtk_widget_get_height (GTK_WIDGET (overlay));
  graphene_rect_t line;
  int used = 0;

  gtk_widget_measure (button, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &allocation->width, NULL, NULL);
  gtk_widget_measure (button, GTK_ORIENTATION_VERTICAL, allocation->width, NULL, &allocation->height, NULL, NULL);
  allocation->x = gtk_widget_get_direction (button) == GTK_TEXT_DIR_RTL ? 0 : width - allocation->width;
  allocation->y = MAX (0, height - allocation->height);
  if (!gtk_widget_get_visible (self->actions_line) ||
      !gtk_widget_compute_bounds (self->actions_line, GTK_WIDGET (overlay), &line))
    return TRUE;
  gtk_widget_measure (self->actions_line, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &used, NULL, NULL);
  if (used + READ_ALOUD_GAP + allocation->width <= width)
    allocation->y = (int) (line.origin.y + (line.size.height - allocation->height) / 2);
  else
    {
      PangoFontMetrics *metrics = pango_context_get_metrics (gtk_widget_get_pango_context (GTK_WIDGET (self)),
                                                             NULL, NULL);
      int text_line = PANGO_PIXELS (pango_font_metrics_get_height (metrics));

      pango_font_metrics_unref (metrics);
      allocation->y = MAX (0, (int) line.origin.y - LINE_SPACING - text_line / 2 - allocation->height / 2);
    }
  return TRUE;
}

/**
 * natter_turn_row_get_read_aloud_revealed:
 * @self: a turn row
 *
 * Whether the row's Read Aloud (or Stop) shows: while the pointer or the
 * focus is in the row, or while its answer is read aloud.
 *
 * Returns: %TRUE if it shows
 */
gboolean
natter_turn_row_get_read_aloud_revealed (NatterTurnRow *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ROW (self), FALSE);

  return self->built && gtk_widget_has_css_class (self->read_aloud_button, "revealed");
}

/* Copy, Branch from Here and (on the latest turn) Try Again, once the turn
 * has ended: an unfinished turn has no final words to copy or fork at. */
static void
show_actions (NatterTurnRow   *self,
              NatterTurnState *state)
{
  NatterTurnStatus status = natter_derive_turn_status (state);
  const char *turn_id = natter_turn_item_get_turn_id (self->item);
  /* A terminal event is final, whatever the running flag still says. */
  gboolean settled = status == NATTER_TURN_STATUS_COMPLETED ||
                     status == NATTER_TURN_STATUS_FAILED ||
                     status == NATTER_TURN_STATUS_CANCELLED;

  gtk_widget_set_visible (self->actions_line, settled);
  if (!settled)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->usage_label), FALSE);
      return;
    }

  /* With no words to copy (a failed or stopped turn) the button is not
   * shown but keeps its place, so that Branch from Here stands where it
   * does on every other turn. */
  gtk_widget_set_visible (self->copy_button, TRUE);
  gtk_widget_set_child_visible (self->copy_button, self->assistant_text->len > 0);
  /* Nothing to read on a turn without words. */
  gtk_widget_set_visible (self->read_aloud_button, self->assistant_text->len > 0);
  update_read_aloud (self);
  /* The target first: an action name without its target warns. */
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->branch_button), "s", turn_id);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->branch_button), "win.branch-from-turn");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->retry_button), "s", turn_id);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->retry_button), "win.try-again");
  /* A failed turn offers Try Again in its status already. */
  gtk_widget_set_visible (self->retry_button,
                          natter_turn_item_get_latest (self->item) && status != NATTER_TURN_STATUS_FAILED);
  show_usage (self, state);
}

/**
 * natter_turn_row_read_aloud:
 * @self: a turn row
 *
 * Reads the row's answer aloud, or stops it if it is being read: the
 * window's `win.read-aloud` with the turn's id and its words. Does
 * nothing on a row without an answer's words.
 *
 * Returns: whether the row has words to read
 */
gboolean
natter_turn_row_read_aloud (NatterTurnRow *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ROW (self), FALSE);

  if (self->item == NULL || self->assistant_text->len == 0)
    return FALSE;
  gtk_widget_activate_action (GTK_WIDGET (self), "win.read-aloud", "(ss)",
                              natter_turn_item_get_turn_id (self->item), self->assistant_text->str);
  return TRUE;
}

static void
copy_clicked_cb (NatterTurnRow *self)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (self));

  if (self->assistant_text->len == 0)
    return;
  gdk_clipboard_set_text (clipboard, self->assistant_text->str);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", _("Message copied"));
}

/* The words of the message the row shows: the turn's, or for a turn
 * that cannot be read, what its first line still says. */
static char *
dup_shown_input (NatterTurnRow *self)
{
  char *input = natter_turn_item_dup_input_text (self->item);

  return input != NULL ? input : g_strdup (natter_turn_item_get_damaged_input (self->item));
}

/* The whole of a message whose row shows only its beginning. */
static void
full_message_clicked_cb (NatterTurnRow *self)
{
  g_autofree char *input = self->item != NULL ? dup_shown_input (self) : NULL;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (input == NULL)
    return;
  gtk_window_present (natter_text_window_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, _("Message"), input));
}

static void
show_overlay (NatterTurnRow *self)
{
  const char *reasoning = natter_turn_item_get_overlay_reasoning (self->item);
  const char *text = natter_turn_item_get_overlay_text (self->item);

  natter_label_set_visible_text (self->streaming_reasoning, reasoning);
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
ensure_built (NatterTurnRow *self)
{
  if (self->built)
    return;
  self->built = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
  /* The template's GtkBinLayout would take the allocation from
   * natter_turn_row_size_allocate(). */
  gtk_widget_set_layout_manager (GTK_WIDGET (self), NULL);
}

/* The separator before the first turn a compaction keeps: the earlier
 * turns stay above it, the summary the model sees instead is one click
 * away (plain text, never markup). */
static void
update_summary (NatterTurnRow *self)
{
  const char *summary = self->item != NULL ? natter_turn_item_get_compaction_summary (self->item) : NULL;

  /* An unbuilt placeholder gets it from update() once it is built. */
  if (!self->built)
    return;

  gtk_widget_set_visible (GTK_WIDGET (self->summary_expander), summary != NULL);
  natter_label_set_visible_text (self->summary_label, summary);
}

/* The message's attachments below it, built once per turn: an image
 * decodes only once, however often the turn changes. */
static void
show_attachments (NatterTurnRow *self)
{
  g_autoptr(GPtrArray) parts = natter_turn_item_dup_attachments (self->item);
  const char *turn_id = natter_turn_item_get_turn_id (self->item);

  if (parts->len > 0 && g_strcmp0 (self->attachments_turn_id, turn_id) == 0)
    return;
  remove_children (self->attachments_box);
  g_free (self->attachments_turn_id);
  self->attachments_turn_id = parts->len > 0 ? g_strdup (turn_id) : NULL;
  for (guint i = 0; i < parts->len; i++)
    gtk_box_append (GTK_BOX (self->attachments_box), natter_attachment_view_new (g_ptr_array_index (parts, i), self->blobs));
  gtk_widget_set_visible (self->attachments_box, parts->len > 0);
}

/* Under a sent message: its versions, and Edit once its turn has
 * settled (an edit branches at the turn before it, win.edit-message). */
static void
show_input_actions (NatterTurnRow   *self,
                    NatterTurnState *state,
                    const char      *input)
{
  const char *turn_id = natter_turn_item_get_turn_id (self->item);
  gboolean can_edit = state != NULL && natter_turn_state_get_terminal_event (state) != NULL &&
                      !natter_turn_item_get_running (self->item) && input != NULL && input[0] != '\0';

  natter_version_switcher_set_versions (self->version_switcher, natter_turn_item_get_versions (self->item), turn_id);
  gtk_actionable_set_action_target (GTK_ACTIONABLE (self->edit_button), "s", turn_id);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->edit_button), "win.edit-message");
  gtk_widget_set_visible (self->edit_button, can_edit);
  gtk_widget_set_visible (self->input_actions,
                          can_edit || gtk_widget_get_visible (GTK_WIDGET (self->version_switcher)));
}

/* Longest start of a message a screen reader says as its turn's name;
 * the whole message is the row's to read. */
#define SPOKEN_MESSAGE_CHARS 80

/* The list item showing this turn is named by the message that began it,
 * and described by the turn's status line when it shows one ("This turn
 * cannot be read: …", "Loading…"). */
static void
update_accessible (NatterTurnRow *self,
                   const char    *input)
{
  g_autofree char *visible = natter_visible_text (input != NULL ? input : "", NATTER_VISIBLE_KEEP_NONE);
  g_autofree char *name = NULL;
  const char *status = NULL;

  g_strstrip (visible);
  if (g_utf8_strlen (visible, -1) > SPOKEN_MESSAGE_CHARS)
    {
      g_autofree char *start = g_utf8_substring (visible, 0, SPOKEN_MESSAGE_CHARS);

      g_free (visible);
      visible = g_strconcat (start, "…", NULL);
    }
  if (visible[0] != '\0')
    /* Translators: what a screen reader says of a turn in the
     * conversation; %s is the start of the message that began it */
    name = g_strdup_printf (_("Your message: %s"), visible);
  else
    name = g_strdup (_("Answer"));
  if (gtk_widget_get_visible (self->status_box))
    status = gtk_label_get_text (self->status_label);
  natter_accessible_name_list_item (GTK_WIDGET (self), name, status);
}

static void
update (NatterTurnRow *self)
{
  NatterTurnState *state;
  const char *error;
  g_autofree char *input = NULL;

  /* A placeholder that nobody has seen yet needs no widgets: its
   * measure gives it the placeholder's height. */
  if (!self->built &&
      (self->item == NULL ||
       (natter_turn_item_get_state (self->item) == NULL && natter_turn_item_get_error (self->item) == NULL)))
    return;
  ensure_built (self);
  update_summary (self);

  if (self->kept_cancellable != NULL)
    g_cancellable_cancel (self->kept_cancellable);
  g_clear_object (&self->kept_cancellable);
  remove_children (self->activity_box);
  remove_children (self->prompts_box);
  g_string_truncate (self->assistant_text, 0);
  self->stopped_mid_answer = FALSE;
  gtk_widget_set_visible (self->prompts_box, FALSE);
  gtk_widget_set_visible (self->status_box, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->status_details), FALSE);
  gtk_widget_set_visible (self->actions_line, FALSE);
  gtk_widget_set_visible (self->read_aloud_button, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->usage_label), FALSE);
  gtk_widget_set_visible (self->input_actions, FALSE);
  if (self->item == NULL)
    return;

  /* A branched session's history is shown read-only and dimmed: it is
   * the parent's, referenced, not this conversation's own (Branch from
   * Here still forks it; it is never the latest, so no next step). A
   * version's is its own as much as the other versions': not dimmed. */
  if (natter_turn_item_get_inherited_from (self->item) != NULL &&
      !natter_turn_item_get_shared_history (self->item))
    {
      gtk_widget_add_css_class (GTK_WIDGET (self), "dim-label");
      gtk_widget_add_css_class (GTK_WIDGET (self), "natter-inherited");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self), "dim-label");
      gtk_widget_remove_css_class (GTK_WIDGET (self), "natter-inherited");
    }

  state = natter_turn_item_get_state (self->item);
  error = natter_turn_item_get_error (self->item);
  input = dup_shown_input (self);
  /* Stand-ins for control characters; Edit and Copy take the words as
   * they were written. */
  gtk_widget_set_visible (self->full_message_button, natter_label_set_visible_preview (self->input_label, input));
  natter_label_follow_text_direction (self->input_label);
  gtk_widget_set_visible (self->input_bubble, input != NULL && input[0] != '\0');
  show_attachments (self);
  show_input_actions (self, state, input);

  if (state != NULL)
    {
      g_autoptr(GHashTable) prompted = natter_turn_row_prompted_calls (state);

      for (guint i = 0; i < natter_turn_state_get_n_model_calls (state); i++)
        {
          NatterTurnModelCall *call = natter_turn_state_get_model_call (state, i);

          if (call != NULL && !natter_turn_model_call_is_open (call))
            add_message_parts (self, call, prompted);
        }
      show_prompts (self, state);
      show_terminal (self, state);
      show_actions (self, state);
    }
  show_overlay (self);

  if (error != NULL && natter_turn_item_get_arriving (self->item))
    /* On its way from another device, not damaged (docs/format.md §9.3). */
    set_status (self, TRUE, NULL, _("Arriving from another device…"), NULL, NULL);
  else if (error != NULL)
    {
      /* The way out is where the damage is said, as for an answer
       * whose file lost its end. The reader's words name a file path, a
       * line and a turn id, which mean nothing to most people: kept
       * under Details for whoever looks into the file. */
      set_status (self, FALSE, "dialog-error-symbolic", _("This turn cannot be read: its file is damaged."),
                  _("_Copy Readable Part"), "win.recover-conversation");
      gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
      natter_label_set_visible_text (self->status_details_label, error);
      gtk_widget_set_visible (GTK_WIDGET (self->status_details), TRUE);
    }
  else if (state == NULL)
    set_status (self, TRUE, NULL, _("Loading…"), NULL, NULL);
  update_accessible (self, input);

  /* A row read while on screen (see natter_turn_row_set_item()) changes
   * height: the row asks for its new size itself, here and when one of
   * its markdown views has finished building, rather than count on its
   * children's requests (GTK 4.8 clears a widget's pending resize when
   * its own allocation ends, also one that a descendant queued during
   * that allocation). */
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

static void
item_changed_cb (NatterTurnRow *self)
{
  update (self);
}

static void
read_only_changed_cb (NatterTurnRow *self)
{
  if (self->item != NULL)
    update (self);
}

static void
item_delta_cb (NatterTurnRow  *self,
               int             kind,
               const char     *text)
{
  /* Not built: nothing of the turn is shown yet; the overlay is shown
   * whole once it is. */
  if (!self->built)
    return;
  if (kind == NATTER_DELTA_REASONING)
    {
      natter_label_set_visible_text (self->streaming_reasoning, natter_turn_item_get_overlay_reasoning (self->item));
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

/* About the height of a short turn (a question, a few lines of answer and
 * the actions): rows not read yet take this much room, so the list view's
 * first layout places about as many rows in the viewport as there will be
 * once they are read, and scrolling over unread rows moves at a
 * plausible pace. */
#define PLACEHOLDER_HEIGHT 160

static gboolean
shows_placeholder (NatterTurnRow *self)
{
  return self->item != NULL &&
         natter_turn_item_get_state (self->item) == NULL &&
         natter_turn_item_get_error (self->item) == NULL;
}

static void
cancel_placed (NatterTurnRow *self)
{
  g_clear_handle_id (&self->placed_id, g_source_remove);
  self->placed_pending = FALSE;
}

static gboolean
placed_cb (gpointer user_data)
{
  NatterTurnRow *self = user_data;

  self->placed_id = 0;
  self->placed_pending = FALSE;
  /* Seen: it says it is loading until its turn is read. */
  if (!self->built)
    {
      ensure_built (self);
      update (self);
    }
  natter_turn_item_ensure_loaded (self->item);
  g_signal_emit (self, signals[PLACED], 0);
  return G_SOURCE_REMOVE;
}

/* The row is its template's one child, as a bin: measured and allocated
 * here rather than by a GtkBinLayout, because the allocation is what
 * tells that the list view placed the row where it is seen. */
static GtkSizeRequestMode
natter_turn_row_get_request_mode (GtkWidget *widget)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  return child != NULL ? gtk_widget_get_request_mode (child) : GTK_SIZE_REQUEST_CONSTANT_SIZE;
}

static void
natter_turn_row_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  NatterTurnRow *self = NATTER_TURN_ROW (widget);

  *minimum = *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int child_min, child_nat;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, orientation, for_size, &child_min, &child_nat, NULL, NULL);
      *minimum = MAX (*minimum, child_min);
      *natural = MAX (*natural, child_nat);
    }
  if (orientation == GTK_ORIENTATION_VERTICAL && shows_placeholder (self))
    {
      *minimum = MAX (*minimum, PLACEHOLDER_HEIGHT);
      *natural = MAX (*natural, PLACEHOLDER_HEIGHT);
    }
}

static void
natter_turn_row_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  NatterTurnRow *self = NATTER_TURN_ROW (widget);

  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_should_layout (child))
      gtk_widget_allocate (child, width, height, baseline, NULL);

  /* GtkListView (4.8) allocates only the rows that intersect the
   * viewport, and a row when it first comes into view (a row that was
   * allocated once is not again when it only moves, or comes back with
   * the same size): this is where a row learns that its item is seen.
   * Every allocated row is read — even one the list scrolls away from in
   * the same frame (the first layout of a long session shows its top
   * before it scrolls to the bottom) — because the geometry read here can
   * be a layout behind, and a row judged "far" would never be allocated
   * again to be read when it comes back. The read starts from an idle,
   * not in the middle of the layout. */
  if (self->placed_pending && self->placed_id == 0)
    self->placed_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, placed_cb, self, NULL);
}

static void
natter_turn_row_dispose (GObject *object)
{
  GtkWidget *child;
  NatterTurnRow *self = NATTER_TURN_ROW (object);

  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  if (self->kept_cancellable != NULL)
    g_cancellable_cancel (self->kept_cancellable);
  g_clear_object (&self->kept_cancellable);
  natter_turn_row_set_item (self, NULL);
  if (self->built)
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
  g_clear_object (&self->blobs);
  g_string_free (self->assistant_text, TRUE);
  g_free (self->attachments_turn_id);

  G_OBJECT_CLASS (natter_turn_row_parent_class)->finalize (object);
}

static void
natter_turn_row_class_init (NatterTurnRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_turn_row_dispose;
  object_class->finalize = natter_turn_row_finalize;
  widget_class->get_request_mode = natter_turn_row_get_request_mode;
  widget_class->measure = natter_turn_row_measure;
  widget_class->size_allocate = natter_turn_row_size_allocate;

  /**
   * NatterTurnRow::placed:
   * @self: the row
   *
   * Emitted once per bound item, when the list view first places the row
   * in its viewport (the row has then started reading its item). The
   * timeline reads the turns around it ahead of the scroll
   * (natter_timeline_model_read_around()).
   */
  signals[PLACED] =
    g_signal_new ("placed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  g_type_ensure (NATTER_TYPE_ACTION_BOX);
  g_type_ensure (NATTER_TYPE_VERSION_SWITCHER);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-turn-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, input_bubble);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, summary_expander);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, input_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, full_message_button);
  gtk_widget_class_bind_template_callback (widget_class, full_message_clicked_cb);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, attachments_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, input_actions);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, edit_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, version_switcher);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, activity_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, streaming_reasoning);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, streaming_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, prompts_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_box);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_icon);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, action_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_details);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, status_details_label);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, actions_line);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, read_aloud_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, copy_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, branch_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, retry_button);
  gtk_widget_class_bind_template_child (widget_class, NatterTurnRow, usage_label);
  gtk_widget_class_bind_template_callback (widget_class, copy_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, natter_turn_row_read_aloud);
  gtk_widget_class_bind_template_callback (widget_class, place_read_aloud);
  gtk_widget_class_set_css_name (widget_class, "natter-turn-row");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_turn_row_init (NatterTurnRow *self)
{
  GtkEventController *motion = gtk_event_controller_motion_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();

  self->assistant_text = g_string_new (NULL);
  /* The template waits for ensure_built(). */
  g_signal_connect_swapped (motion, "notify::contains-pointer", G_CALLBACK (pointer_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), motion);
  g_signal_connect_swapped (focus, "notify::contains-focus", G_CALLBACK (focus_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), focus);
}

/**
 * natter_turn_row_new:
 * @sessions: the session service that prompts answer through
 * @blobs: (nullable): the store the message's attachments are read from
 *
 * Returns: (transfer floating): an empty row; see natter_turn_row_set_item()
 */
GtkWidget *
natter_turn_row_new (NatterSessions  *sessions,
                     NatterBlobStore *blobs)
{
  NatterTurnRow *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (blobs == NULL || NATTER_IS_BLOB_STORE (blobs), NULL);

  self = g_object_new (NATTER_TYPE_TURN_ROW, NULL);
  self->sessions = g_object_ref (sessions);
  self->blobs = blobs != NULL ? g_object_ref (blobs) : NULL;
  /* An unfinished answer may be the other window's only while this
   * process writes nothing: once it writes, it is interrupted, with
   * Resume. */
  g_signal_connect_swapped (sessions, "notify::read-only", G_CALLBACK (read_only_changed_cb), self);
  return GTK_WIDGET (self);
}

/**
 * natter_turn_row_set_item:
 * @self: a row
 * @item: (nullable): the turn to show
 *
 * Binds the row to @item and reads the turn if nobody has yet: in a
 * window (shown now or later) once the list view places the row in its
 * viewport, then emitting #NatterTurnRow::placed (until then it shows a
 * placeholder); outside any window at once, since no layout would place
 * it. The row follows the item's changes and deltas until it is unbound.
 */
void
natter_turn_row_set_item (NatterTurnRow  *self,
                          NatterTurnItem *item)
{
  GtkRoot *root;

  g_return_if_fail (NATTER_IS_TURN_ROW (self));
  g_return_if_fail (item == NULL || NATTER_IS_TURN_ITEM (item));

  if (self->item == item)
    return;
  cancel_placed (self);
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
      g_signal_connect_swapped (item, "notify::compaction-summary", G_CALLBACK (update_summary), self);
      g_signal_connect_swapped (item, "notify::versions", G_CALLBACK (item_changed_cb), self);
      g_signal_connect_swapped (item, "notify::speaking", G_CALLBACK (update_read_aloud), self);
      root = gtk_widget_get_root (GTK_WIDGET (self));
      if (root == NULL)
        {
          ensure_built (self);
          natter_turn_item_ensure_loaded (item);
        }
      else
        {
          /* Also a row already read: its ::placed reads ahead. A window
           * not shown yet (the last session restored at startup) places
           * its rows when it is. */
          self->placed_pending = TRUE;
          /* An allocation tells where the list view put the row, even if
           * the new item's placeholder is no different from the last. */
          gtk_widget_queue_allocate (GTK_WIDGET (self));
        }
    }
  update_summary (self);
  update (self);
}

/**
 * natter_turn_row_get_version_switcher:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the switcher between the versions
 *   of the row's message, or %NULL while the row shows a placeholder (it
 *   is built once its turn is read)
 */
GtkWidget *
natter_turn_row_get_version_switcher (NatterTurnRow *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_ROW (self), NULL);
  return self->built ? GTK_WIDGET (self->version_switcher) : NULL;
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
