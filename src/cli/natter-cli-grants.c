/* natter-cli-grants.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The subcommands of session permission grants (docs/sessions.md
 * §12): grant, grants, revoke, and allow --always. Their output lines
 * are stable for scripts (README, "Command line").
 */

#define G_LOG_DOMAIN "natter-cli"


#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-services.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-tool-registry.h"

static void
granted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *grant_id = NULL;
  GError *error = NULL;

  grant_id = natter_sessions_add_grant_finish (NATTER_SESSIONS (object), result, &error);
  if (grant_id == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_out (run, "grant %s\n", grant_id);
  natter_cli_finish (run, 0);
}

static void
add_grant (Run *run)
{
  natter_sessions_add_grant_async (natter_services_get_sessions (run->services), run->args[0], run->args[1],
                                   g_task_get_cancellable (run->task), granted_cb, run);
}

/* natter grant SESSION TOOL: prints `grant <grantId>`. A tool server's
 * tools are only known once the enabled servers have listed them, so a
 * tool the registry does not hold yet (mcp__server__tool, or its toolId
 * mcp:server/tool) is looked for again after that; one no enabled server
 * offers is still refused. A built-in tool starts no server. */
void
natter_cli_command_grant (Run *run)
{
  if (natter_tool_registry_lookup_id_or_name (natter_services_get_tools (run->services), run->args[1]) != NULL)
    add_grant (run);
  else
    natter_cli_mcp_refresh (run, add_grant);
}

static void
print_grants (Run                *run,
              NatterSessionState *state)
{
  guint n = natter_session_state_get_n_grants (state);

  if (run->json)
    {
      g_autoptr(JsonArray) array = json_array_new ();

      for (guint i = 0; i < n; i++)
        {
          const NatterSessionGrant *grant = natter_session_state_get_grant (state, i);
          JsonObject *object = json_object_new ();

          json_object_set_string_member (object, "grantId", grant->grant_id);
          json_object_set_string_member (object, "toolId", grant->tool_id);
          json_object_set_string_member (object, "ts", grant->ts);
          json_array_add_object_element (array, object);
        }
      natter_cli_out_json_array (run, array);
      return;
    }
  for (guint i = 0; i < n; i++)
    {
      const NatterSessionGrant *grant = natter_session_state_get_grant (state, i);

      natter_cli_out (run, "%s\t%s\t%s\n", grant->grant_id, grant->tool_id, grant->ts);
    }
}

/* natter grants SESSION [--json]: one `<grantId>\t<toolId>\t<ts>` line per
 * active grant, or `[{grantId, toolId, ts}]`. */
void
natter_cli_command_grants (Run *run)
{
  natter_cli_print_session (run, print_grants);
}

static void
revoked_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_sessions_remove_grant_finish (NATTER_SESSIONS (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_finish (run, 0);
}

/* natter revoke SESSION GRANT: prints nothing. */
void
natter_cli_command_revoke (Run *run)
{
  natter_sessions_remove_grant_async (natter_services_get_sessions (run->services), run->args[0], run->args[1],
                                      g_task_get_cancellable (run->task), revoked_cb, run);
}

static void
allowed_always_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *grant_id = NULL;
  GError *error = NULL;

  outcome = natter_sessions_allow_always_finish (NATTER_SESSIONS (object), result, &grant_id, &error);
  if (outcome == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  natter_cli_out (run, "grant %s\n", grant_id);
  natter_cli_report_turn_id (run);
}

/* natter allow --always TURN CALL: `grant <grantId>`, then what `allow`
 * prints. */
void
natter_cli_command_allow_always (Run *run)
{
  run->turn_id = g_strdup (run->args[0]);
  natter_sessions_allow_always_async (natter_services_get_sessions (run->services), run->args[0], run->args[1],
                                      g_task_get_cancellable (run->task), allowed_always_cb, run);
}
