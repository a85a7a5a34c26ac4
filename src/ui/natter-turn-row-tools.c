/* natter-turn-row-tools.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How a turn row presents its tool calls (docs/sessions.md §10.3,
 * §10.4): runs of identical calls folded into one line, answered
 * ask_human calls as a question and its answer, and what a suspended
 * turn waits for. Kept apart from natter-turn-row.c, which builds and
 * updates the row itself.
 */

#define G_LOG_DOMAIN "natter-turn-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-answered-question.h"
#include "natter-tool-call-card.h"
#include "natter-tool-call-group.h"
#include "natter-turn-row-private.h"

/* Strings as they are, anything else as JSON. */
static char *
output_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("");
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return g_strdup (json_node_get_string (node));
  return json_to_string (node, TRUE);
}

/**
 * natter_turn_row_ask_human_question:
 * @call: an ask_human tool call
 *
 * The question an ask_human call put to the person, as the model wrote it
 * in its arguments.
 *
 * Returns: (transfer full) (nullable): the question, or %NULL when the
 *   arguments hold none
 */
char *
natter_turn_row_ask_human_question (NatterTurnToolCall *call)
{
  JsonNode *arguments = natter_turn_tool_call_get_arguments (call);
  JsonObject *object;

  if (arguments == NULL || !JSON_NODE_HOLDS_OBJECT (arguments))
    return NULL;
  object = json_node_get_object (arguments);
  return g_strdup (json_object_get_string_member_with_default (object, "question", NULL));
}

/**
 * natter_turn_row_answered_question_new:
 * @call: a tool call of the turn
 *
 * An answered ask_human call reads as what it was, a question and its
 * answer, not as a tool card with JSON inside. NULL for any other call
 * (also an ask_human that failed or was denied: its card says why).
 *
 * Returns: (transfer floating) (nullable): the question and its answer
 */
GtkWidget *
natter_turn_row_answered_question_new (NatterTurnToolCall *call)
{
  JsonObject *result = natter_turn_tool_call_get_result (call);
  g_autofree char *question = NULL;
  g_autofree char *answer = NULL;

  if (g_strcmp0 (natter_turn_tool_call_get_name (call), "ask_human") != 0 || result == NULL ||
      json_object_get_boolean_member_with_default (result, "isError", FALSE) ||
      g_strcmp0 (natter_turn_tool_call_get_decision (call), "deny") == 0)
    return NULL;

  question = natter_turn_row_ask_human_question (call);
  answer = output_text (json_object_get_member (result, "output"));

  return natter_answered_question_new (question != NULL && question[0] != '\0'
                                       ? question : _("The assistant asked for your input."),
                                       answer);
}

/* What makes two tool calls in a row the same for the eye: name,
 * arguments and state. */
static char *
tool_card_key (NatterToolCallCard *card)
{
  return g_strdup_printf ("%s\n%s\n%s", natter_tool_call_card_get_name (card),
                          natter_tool_call_card_get_status (card),
                          natter_tool_call_card_get_arguments (card));
}

/**
 * natter_turn_row_append_tool_call_card:
 * @activity_box: the turn's activity box
 * @card: (transfer floating): a #NatterToolCallCard
 *
 * Appends @card (floating) to the activity, or to the run of identical
 * calls just before it.
 */
void
natter_turn_row_append_tool_call_card (GtkBox    *activity_box,
                                       GtkWidget *card)
{
  GtkWidget *last = gtk_widget_get_last_child (GTK_WIDGET (activity_box));
  g_autofree char *key = tool_card_key (NATTER_TOOL_CALL_CARD (card));

  if (NATTER_IS_TOOL_CALL_GROUP (last) && g_str_equal (natter_tool_call_group_get_key (NATTER_TOOL_CALL_GROUP (last)), key))
    {
      natter_tool_call_group_add (NATTER_TOOL_CALL_GROUP (last), NATTER_TOOL_CALL_CARD (card));
      return;
    }
  if (last != NULL && NATTER_IS_TOOL_CALL_CARD (last))
    {
      g_autofree char *last_key = tool_card_key (NATTER_TOOL_CALL_CARD (last));

      if (g_str_equal (key, last_key))
        {
          /* One collapsed line for the run, the cards themselves inside. */
          GtkWidget *group = natter_tool_call_group_new (NATTER_TOOL_CALL_CARD (last), key);

          g_object_ref (last);
          gtk_box_remove (activity_box, last);
          gtk_box_append (activity_box, group);
          natter_tool_call_group_add (NATTER_TOOL_CALL_GROUP (group), NATTER_TOOL_CALL_CARD (last));
          g_object_unref (last);
          natter_tool_call_group_add (NATTER_TOOL_CALL_GROUP (group), NATTER_TOOL_CALL_CARD (card));
          return;
        }
    }
  gtk_box_append (activity_box, card);
}

/**
 * natter_turn_row_waits_for_user:
 * @state: a suspended turn's state
 *
 * Whether the suspended turn waits on the person at the keyboard: a
 * permission to decide or an ask_human question to answer. Other async
 * tools get their results from elsewhere.
 *
 * Returns: %TRUE when a prompt waits for the person
 */
gboolean
natter_turn_row_waits_for_user (NatterTurnState *state)
{
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (state);
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (state);

  if (permissions->len > 0)
    return TRUE;
  for (guint i = 0; i < async_tools->len; i++)
    if (g_strcmp0 (natter_turn_tool_call_get_name (g_ptr_array_index (async_tools, i)), "ask_human") == 0)
      return TRUE;
  return FALSE;
}

/**
 * natter_turn_row_pending_async_tool_names:
 * @state: a suspended turn's state
 *
 * The async tools a suspended turn waits for, as “a”, “b” (transfer full).
 *
 * Returns: (transfer full): the quoted names, or “a tool” when none is known
 */
char *
natter_turn_row_pending_async_tool_names (NatterTurnState *state)
{
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (state);
  GString *names = g_string_new (NULL);

  for (guint i = 0; i < async_tools->len; i++)
    {
      if (i > 0)
        g_string_append (names, _(", "));
      /* Translators: a tool's name, quoted */
      g_string_append_printf (names, _("“%s”"), natter_turn_tool_call_get_name (g_ptr_array_index (async_tools, i)));
    }
  if (async_tools->len == 0)
    g_string_append (names, _("a tool"));
  return g_string_free (names, FALSE);
}

/**
 * natter_turn_row_prompted_calls:
 * @state: a suspended turn's state
 *
 * The ids of the calls show_prompts() gives a card: a permission to
 * decide or a question to answer (transfer full).
 *
 * Returns: (transfer full) (element-type utf8 utf8): a set of tool call
 *   ids, borrowed from @state
 */
GHashTable *
natter_turn_row_prompted_calls (NatterTurnState *state)
{
  g_autoptr(GPtrArray) permissions = natter_turn_state_get_pending_permissions (state);
  g_autoptr(GPtrArray) async_tools = natter_turn_state_get_pending_async_tools (state);
  GHashTable *ids = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < permissions->len; i++)
    g_hash_table_add (ids, (gpointer) natter_turn_tool_call_get_id (g_ptr_array_index (permissions, i)));
  for (guint i = 0; i < async_tools->len; i++)
    if (g_strcmp0 (natter_turn_tool_call_get_name (g_ptr_array_index (async_tools, i)), "ask_human") == 0)
      g_hash_table_add (ids, (gpointer) natter_turn_tool_call_get_id (g_ptr_array_index (async_tools, i)));
  return ids;
}
