/* test-permission-classifier.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterModelPermissionClassifier (turn-runtime.md §7) against a fake
 * model that answers with a fixed text: good JSON, garbage, partial
 * answers, and a failing model.
 */

#include <string.h>

#include "natter-model-permission-classifier.h"
#include "natter-runtime-error.h"
#include "natter-test-support.h"

#define FAKE_TYPE_MODEL (fake_model_get_type ())
G_DECLARE_FINAL_TYPE (FakeModel, fake_model, FAKE, MODEL, GObject)

struct _FakeModel
{
  GObject     parent_instance;
  char       *answer;     /* the assistant text; NULL: the provider fails */
  JsonObject *request;    /* the last request */
};

static void fake_model_iface_init (NatterModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FakeModel, fake_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_MODEL, fake_model_iface_init))

static void
fake_model_stream_step_async (NatterModel               *model,
                              JsonObject                *request,
                              const NatterModelStepSink *sink,
                              gpointer                   sink_data,
                              GCancellable              *cancellable,
                              GAsyncReadyCallback        callback,
                              gpointer                   user_data)
{
  FakeModel *self = FAKE_MODEL (model);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(JsonObject) message = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_clear_pointer (&self->request, json_object_unref);
  self->request = json_object_ref (request);
  if (self->answer == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "provider p: HTTP 500");
      return;
    }
  sink->text_delta (self->answer, sink_data);
  message = json_object_new ();
  json_object_set_string_member (message, "role", "assistant");
  json_object_set_string_member (message, "content", self->answer);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, message);
  g_task_return_pointer (task, natter_model_step_result_new (node, "stop", NULL),
                         (GDestroyNotify) natter_model_step_result_free);
}

static NatterModelStepResult *
fake_model_stream_step_finish (NatterModel   *model,
                               GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
fake_model_iface_init (NatterModelInterface *iface)
{
  iface->stream_step_async = fake_model_stream_step_async;
  iface->stream_step_finish = fake_model_stream_step_finish;
}

static void
fake_model_finalize (GObject *object)
{
  FakeModel *self = FAKE_MODEL (object);

  g_free (self->answer);
  g_clear_pointer (&self->request, json_object_unref);
  G_OBJECT_CLASS (fake_model_parent_class)->finalize (object);
}

static void
fake_model_class_init (FakeModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = fake_model_finalize;
}

static void
fake_model_init (FakeModel *self)
{
}

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
  g_autoptr(FakeModel) model = g_object_new (FAKE_TYPE_MODEL, NULL);
  g_autoptr(JsonNode) calls = natter_test_json (CALLS);
  g_autoptr(GString) text = g_string_new (NULL);
  Result r = { 0 };

  model->answer = g_strdup (answer);
  natter_permission_classifier_classify_in_async (NATTER_PERMISSION_CLASSIFIER (classifier),
                                                  with_model ? NATTER_MODEL (model) : NULL,
                                                  json_node_get_array (calls), NULL,
                                                  classified_cb, &r);
  natter_test_wait_for_flag (&r.done, 5000);
  if (out_request != NULL && model->request != NULL)
    *out_request = json_object_ref (model->request);
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
