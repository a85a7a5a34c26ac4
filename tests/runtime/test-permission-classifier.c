/* test-permission-classifier.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterModelPermissionClassifier (docs/runtime.md §7) against the fake
 * model that answers with a fixed text: good JSON, garbage, partial
 * answers, and a failing model.
 */

#include <string.h>

#include "natter-model-permission-classifier.h"
#include "natter-runtime-error.h"
#include "natter-test-fakes.h"

#define CALLS \
  "[{\"toolCallId\":\"A\",\"toolName\":\"read_file\",\"input\":{\"path\":\"a\"},\"request\":{}}," \
  "{\"toolCallId\":\"B\",\"toolName\":\"shell\",\"input\":{\"cmd\":\"rm -rf /\"},\"request\":{}}]"

typedef struct
{
  gboolean   done;
  JsonArray *decisions;
  GError    *error;
} Result;

static void
classified_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  Result *r = user_data;

  r->decisions = natter_permission_classifier_classify_finish (NATTER_PERMISSION_CLASSIFIER (object),
                                                               result, &r->error);
  r->done = TRUE;
}

/* Classifies CALLS with a model answering @answer; returns the decisions
 * as "id=decision" pairs, or NULL with @error. */
static char *
classify (const char  *answer,
          gboolean     with_model,
          JsonObject **out_request,
          GError     **error)
{
  g_autoptr(NatterModelPermissionClassifier) classifier = natter_model_permission_classifier_new ();
  g_autoptr(NatterFakeModel) model = g_object_new (NATTER_TYPE_FAKE_MODEL, NULL);
  g_autoptr(JsonNode) calls = natter_test_json (CALLS);
  g_autoptr(GString) text = g_string_new (NULL);
  Result r = { 0 };

  if (answer != NULL)
    {
      g_autoptr(JsonNode) content = json_node_init_string (json_node_alloc (), answer);
      g_autofree char *quoted = json_to_string (content, FALSE);
      g_autofree char *step = g_strdup_printf ("{\"role\":\"assistant\",\"content\":%s}", quoted);

      natter_fake_model_script (model, step, NULL);
    }
  else
    natter_fake_model_script (model, NATTER_FAKE_STEP_ERROR, NULL);
  natter_permission_classifier_classify_in_async (NATTER_PERMISSION_CLASSIFIER (classifier),
                                                  with_model ? NATTER_MODEL (model) : NULL,
                                                  json_node_get_array (calls), NULL,
                                                  classified_cb, &r);
  natter_test_wait_for_flag (&r.done, 5000);
  if (out_request != NULL && natter_fake_model_get_n_requests (model) > 0)
    *out_request = json_object_ref (natter_fake_model_get_request (model, 0));
  if (r.decisions == NULL)
    {
      g_propagate_error (error, r.error);
      return NULL;
    }
  g_assert_no_error (r.error);
  for (guint i = 0; i < json_array_get_length (r.decisions); i++)
    {
      JsonObject *decision = json_array_get_object_element (r.decisions, i);

      g_string_append_printf (text, "%s%s=%s(%s)", i > 0 ? " " : "",
                              json_object_get_string_member (decision, "toolCallId"),
                              json_object_get_string_member (decision, "decision"),
                              json_object_get_string_member (decision, "reason"));
    }
  json_array_unref (r.decisions);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
test_good_json (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) request = NULL;
  g_autofree char *decisions = NULL;
  JsonArray *messages;
  const char *content;

  /* Prose and a code fence around the object are tolerated. */
  decisions = classify ("Here you go:\n```json\n{\"decisions\":["
                        "{\"toolCallId\":\"A\",\"decision\":\"allow\",\"reason\":\"reads\"},"
                        "{\"toolCallId\":\"B\",\"decision\":\"deny\",\"reason\":\"destroys\"}]}\n```",
                        TRUE, &request, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (decisions, ==, "A=allow(reads) B=deny(destroys)");

  /* The model saw every call, and no tools. */
  messages = json_object_get_array_member (request, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 1);
  content = json_object_get_string_member (json_array_get_object_element (messages, 0), "content");
  g_assert_nonnull (strstr (content, "\"toolCallId\":\"A\""));
  g_assert_nonnull (strstr (content, "rm -rf /"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (request, "tools")), ==, 0);
  g_assert_nonnull (strstr (json_object_get_string_member (request, "systemPrompt"), "defer"));
}

static void
test_garbage (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *decisions = NULL;

  decisions = classify ("Sure, looks fine to me!", TRUE, NULL, &error);
  g_assert_null (decisions);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER);
  g_clear_error (&error);

  decisions = classify ("{\"decisions\": \"allow all\"}", TRUE, NULL, &error);
  g_assert_null (decisions);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER);
  g_clear_error (&error);

  decisions = classify ("{\"decisions\": [", TRUE, NULL, &error);
  g_assert_null (decisions);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER);
}

static void
test_partial (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *decisions = NULL;

  /* B is missing, an unknown call and a made-up verdict are dropped, and
   * a second answer for A does not override the first: the runtime
   * counts every call without a decision as defer. */
  decisions = classify ("{\"decisions\":["
                        "{\"toolCallId\":\"A\",\"decision\":\"defer\"},"
                        "{\"toolCallId\":\"A\",\"decision\":\"allow\",\"reason\":\"again\"},"
                        "{\"toolCallId\":\"Z\",\"decision\":\"allow\",\"reason\":\"?\"},"
                        "{\"toolCallId\":\"B\",\"decision\":\"yes\"},"
                        "{\"toolCallId\":{},\"decision\":5,\"reason\":[]},"
                        "{\"toolCallId\":\"B\",\"decision\":[\"allow\"]},"
                        "42]}",
                        TRUE, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (decisions, ==, "A=defer()");
}

static void
test_model_failure (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *decisions = NULL;

  decisions = classify (NULL, TRUE, NULL, &error);
  g_assert_null (decisions);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_clear_error (&error);

  decisions = classify ("{}", FALSE, NULL, &error);
  g_assert_null (decisions);
  g_assert_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/model-permission-classifier/good-json", test_good_json);
  g_test_add_func ("/model-permission-classifier/garbage", test_garbage);
  g_test_add_func ("/model-permission-classifier/partial", test_partial);
  g_test_add_func ("/model-permission-classifier/model-failure", test_model_failure);

  return g_test_run ();
}
