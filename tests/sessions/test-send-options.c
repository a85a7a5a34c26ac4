/* test-send-options.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The typed send options and the one conversion to the JSON the turn
 * runtime takes: the wire shape must stay what the turn files hold
 * (docs/format.md), member for member.
 */

#include "natter-send-options-private.h"
#include "natter-test-support.h"

static void
assert_json (JsonObject *object,
             const char *expected)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *text = json_to_string (node, FALSE);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_new_defaults (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  g_autoptr(JsonObject) agent = natter_send_options_to_requested_agent (options);
  g_autoptr(JsonObject) config = natter_send_options_to_turn_config (options, TRUE, NULL);

  g_assert_cmpstr (natter_send_options_get_agent_id (options), ==, "helper");
  g_assert_false (natter_send_options_has_model (options));
  g_assert_null (natter_send_options_get_provider (options));
  g_assert_null (natter_send_options_get_model (options));
  g_assert_false (natter_send_options_get_auto_permission (options));
  g_assert_cmpuint (natter_send_options_get_max_model_calls (options), ==, 0);
  /* No model override and no limit: the runtime's defaults decide. */
  assert_json (agent, "{\"agentId\":\"helper\"}");
  assert_json (config, "{\"humanAvailable\":true,\"autoPermission\":false}");
}

static void
test_full (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("writer");
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(JsonObject) config = NULL;

  natter_send_options_set_model (options, "https://example.invalid/v1", "m-1");
  natter_send_options_set_auto_permission (options, TRUE);
  natter_send_options_set_max_model_calls (options, 7);
  agent = natter_send_options_to_requested_agent (options);
  config = natter_send_options_to_turn_config (options, FALSE, "/home/a/project");

  assert_json (agent, "{\"agentId\":\"writer\",\"model\":{\"provider\":\"https://example.invalid/v1\",\"model\":\"m-1\"}}");
  assert_json (config, "{\"humanAvailable\":false,\"cwd\":\"/home/a/project\",\"autoPermission\":true,\"maxModelCalls\":7}");
}

/* A turn's resolved model, as the compaction and the titles take it. */
static void
test_model_descriptor (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  g_autoptr(JsonObject) descriptor = json_object_new ();

  json_object_set_string_member (descriptor, "provider", "p");
  json_object_set_string_member (descriptor, "model", "m");
  natter_send_options_set_model_descriptor (options, descriptor);

  g_assert_true (natter_send_options_has_model (options));
  g_assert_cmpstr (natter_send_options_get_provider (options), ==, "p");
  g_assert_cmpstr (natter_send_options_get_model (options), ==, "m");
}

static void
test_copy_is_independent (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  g_autoptr(NatterSendOptions) copy = NULL;

  natter_send_options_set_model (options, "p", "m");
  natter_send_options_set_max_model_calls (options, 3);
  copy = natter_send_options_copy (options);
  natter_send_options_set_model (options, NULL, NULL);
  natter_send_options_set_auto_permission (options, TRUE);

  g_assert_cmpstr (natter_send_options_get_agent_id (copy), ==, "helper");
  g_assert_cmpstr (natter_send_options_get_provider (copy), ==, "p");
  g_assert_cmpstr (natter_send_options_get_model (copy), ==, "m");
  g_assert_false (natter_send_options_get_auto_permission (copy));
  g_assert_cmpuint (natter_send_options_get_max_model_calls (copy), ==, 3);
  g_assert_false (natter_send_options_has_model (options));
}

/* Helper turns bound their answer, and a copy keeps the bound. */
static void
test_max_tokens (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  g_autoptr(NatterSendOptions) copy = NULL;
  g_autoptr(JsonObject) config = NULL;

  g_assert_cmpuint (natter_send_options_get_max_tokens (options), ==, 0);
  natter_send_options_set_max_tokens (options, 64);
  copy = natter_send_options_copy (options);
  g_assert_cmpuint (natter_send_options_get_max_tokens (copy), ==, 64);
  config = natter_send_options_to_turn_config (copy, FALSE, NULL);
  assert_json (config, "{\"humanAvailable\":false,\"autoPermission\":false,\"parameters\":{\"max_tokens\":64}}");
}

static void
test_boxed_type (void)
{
  g_autoptr(NatterSendOptions) options = natter_send_options_new ("helper");
  NatterSendOptions *boxed;

  g_assert_true (G_TYPE_IS_BOXED (NATTER_TYPE_SEND_OPTIONS));
  boxed = g_boxed_copy (NATTER_TYPE_SEND_OPTIONS, options);
  g_assert_true (boxed != options);
  g_assert_cmpstr (natter_send_options_get_agent_id (boxed), ==, "helper");
  g_boxed_free (NATTER_TYPE_SEND_OPTIONS, boxed);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/send-options/new-defaults", test_new_defaults);
  g_test_add_func ("/send-options/full", test_full);
  g_test_add_func ("/send-options/model-descriptor", test_model_descriptor);
  g_test_add_func ("/send-options/copy-is-independent", test_copy_is_independent);
  g_test_add_func ("/send-options/boxed-type", test_boxed_type);
  g_test_add_func ("/send-options/max-tokens", test_max_tokens);

  return g_test_run ();
}
