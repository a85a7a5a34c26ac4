/* test-grants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Session permission grants in the window (docs/sessions.md §12):
 * "Always Allow in This Conversation" on the permission card, the tool
 * card of a call a grant allowed, and the conversation menu's
 * "Permissions" with Revoke.
 */

#include "natter-permission-card.h"
#include "natter-permissions-list.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-tool-call-card.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *name;
  const char   *rule;
} RuleWait;

/* Whether the tool card of the call @name shows the rule text. */
static gboolean
rule_shown (gpointer data)
{
  RuleWait *w = data;
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (w->window, NATTER_TYPE_TOOL_CALL_CARD);
  for (guint i = 0; i < cards->len; i++)
    {
      NatterToolCallCard *card = g_ptr_array_index (cards, i);

      if (g_strcmp0 (natter_tool_call_card_get_name (card), w->name) == 0 &&
          g_strcmp0 (natter_tool_call_card_get_rule (card), w->rule) == 0 &&
          ui_label_shown (card, w->rule))
        return TRUE;
    }
  return FALSE;
}

/* The button whose (wrapping) label is "Always Allow in This
 * Conversation". */
static GtkWidget *
always_button (gpointer card)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (card, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *child = gtk_button_get_child (g_ptr_array_index (buttons, i));

      if (GTK_IS_LABEL (child) &&
          g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), "Always Allow in This Conversation") == 0)
        return g_ptr_array_index (buttons, i);
    }
  g_error ("No “Always Allow in This Conversation” button");
}

static gboolean
has_permission_card (gpointer data)
{
  ui_settle ();
  return ui_find_first (data, NATTER_TYPE_PERMISSION_CARD) != NULL;
}

static void
test_always_allow (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *next_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) next_events = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterPermissionCard *card;
  NatterWindow *window;
  JsonObject *resolved;
  const char *grant_id;
  RuleWait rule = { NULL, "sa", "Allowed by your rule for sa" };

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sa"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  session_id = ui_create_session (u, "Tools");
  turn_id = ui_send (u, session_id, "Run it");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (has_permission_card, window);
  card = NATTER_PERMISSION_CARD (ui_find_first (window, NATTER_TYPE_PERMISSION_CARD));
  g_assert_nonnull (ui_find_button (card, "_Allow"));
  g_assert_nonnull (ui_find_button (card, "_Deny"));

  ui_save_window (GTK_WIDGET (window), "permission-card-always.png");
  g_signal_emit_by_name (always_button (card), "clicked");
  ui_wait_turn_event (u, turn_id, "turn_completed", NULL);

  /* The call was allowed, and said which grant. */
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 1);
  grant_id = natter_session_state_get_grant (state, 0)->grant_id;
  events = ui_get_turn (u, turn_id);
  resolved = ui_find_event (events, "tool_permission_resolved", "c1");
  g_assert_cmpstr (json_object_get_string_member (resolved, "decision"), ==, "allow");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (resolved, "metadata"), "grantId"),
                   ==, grant_id);

  /* The next call of the tool runs without a card and says why. */
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c2", "sa", "{}")),
                            NATTER_FAKE_TEXT_STEP,
                            NULL);
  next_id = ui_send (u, session_id, "Again");
  ui_wait_turn_event (u, next_id, "turn_completed", NULL);
  next_events = ui_get_turn (u, next_id);
  g_assert_null (ui_find_event (next_events, "tool_permission_required", "c2"));
  g_assert_cmpstr (json_object_get_string_member (ui_find_event (next_events, "tool_invocation_requested", "c2"),
                                                  "grantId"), ==, grant_id);
  rule.window = window;
  ui_wait_until (rule_shown, &rule);
  ui_save_window (GTK_WIDGET (window), "tool-card-rule.png");
  g_assert_null (ui_find_first (window, NATTER_TYPE_PERMISSION_CARD));

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_permissions_list_revoke (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Rules");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *grant_id = NULL;
  g_autoptr(NatterSessionState) state = NULL;
  NatterPermissionsList *list;
  GtkWidget *dialog;
  NatterWindow *window;
  int width;

  natter_sessions_add_grant_async (u->sessions, session_id, "sa", NULL, ui_result_cb, &result);
  grant_id = natter_sessions_add_grant_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  /* The result holds the service. */
  g_clear_object (&result);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.permissions", NULL));
  ui_wait_until (ui_permissions_list_shows, GUINT_TO_POINTER (1));
  list = ui_find_permissions_list ();
  g_assert_true (ui_label_shown (list, "sa"));
  dialog = gtk_widget_get_ancestor (GTK_WIDGET (list), GTK_TYPE_WINDOW);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  ui_save_window (dialog, "permissions-dialog.png");
  /* Each Revoke is named by its tool, as it was made, after the dialog
   * showed (its other buttons lose their written mnemonics then). */
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (ui_find_button (list, "_Revoke")),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Revoke the rule for sa");
  ui_assert_named_as_shown (ui_find_button (dialog, "_Close"), "Close");

  /* As wide as it settles once shown. */
  ui_settle ();
  ui_wait_painted ();
  width = gtk_widget_get_width (dialog);

  g_signal_emit_by_name (ui_find_button (list, "_Revoke"), "clicked");
  ui_wait_until (ui_permissions_list_shows, GUINT_TO_POINTER (0));
  g_assert_true (ui_label_shown (ui_find_permissions_list (), "No tool is always allowed in this conversation. "
                                 "Use “Always Allow in This Conversation” when the assistant asks."));
  /* The dialog keeps its width: the buttons stay under the pointer. */
  ui_settle ();
  ui_wait_painted ();
  ui_save_window (dialog, "permissions-dialog-revoked.png");
  g_assert_cmpint (gtk_widget_get_width (dialog), ==, width);
  state = ui_get_session (u, session_id);
  g_assert_cmpuint (natter_session_state_get_n_grants (state), ==, 0);

  gtk_window_destroy (GTK_WINDOW (dialog));
  ui_settle ();
  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/grants/always-allow", test_always_allow);
  g_test_add_func ("/grants/permissions-list-revoke", test_permissions_list_revoke);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
