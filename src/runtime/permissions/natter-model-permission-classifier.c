/* natter-model-permission-classifier.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The permission classifier of docs/runtime.md §7 that asks the turn's own
 * model. It sends one tool-free request listing the calls and expects
 * `{"decisions":[{"toolCallId","decision":"allow|deny|defer","reason"}]}`.
 * Its answer is only an opinion: an unusable answer fails the whole
 * classification and a call it does not answer is left out, and the
 * runtime counts both as `defer` — a model can never allow something by
 * answering badly.
 */

#define G_LOG_DOMAIN "natter-model-permission-classifier"

#include <string.h>

#include "natter-json.h"
#include "natter-model-permission-classifier.h"
#include "natter-runtime-error.h"

struct _NatterModelPermissionClassifier
{
  GObject parent_instance;
};

static void classifier_iface_init (NatterPermissionClassifierInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterModelPermissionClassifier, natter_model_permission_classifier,
                               G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_PERMISSION_CLASSIFIER,
                                                      classifier_iface_init))

static const char system_prompt[] =
  "You review tool calls that an AI assistant wants to make on the user's computer. "
  "For each call decide: \"allow\" if it is clearly safe and matches what the user asked, "
  "\"deny\" if it is harmful or clearly unwanted, \"defer\" if a human should decide. "
  "When unsure, answer \"defer\". Reply with JSON only, no prose, exactly: "
  "{\"decisions\":[{\"toolCallId\":\"…\",\"decision\":\"allow|deny|defer\",\"reason\":\"…\"}]}";

/**
 * natter_model_permission_classifier_build_request:
 * @calls: (transfer none): `[{toolCallId, toolName, input, request}]`
 *
 * The model request of one classification (docs/runtime.md §7): the
 * classifier's system prompt, one user message holding the calls as JSON, no
 * tools. Pure.
 *
 * Returns: (transfer full): `{systemPrompt, messages, tools, parameters}`
 */
JsonObject *
natter_model_permission_classifier_build_request (JsonArray *calls)
{
  JsonObject *request = json_object_new ();
  g_autoptr(JsonObject) wrapper = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *listing = NULL;
  g_autofree char *content = NULL;
  JsonArray *messages = json_array_new ();
  JsonObject *message = json_object_new ();

  json_object_set_array_member (wrapper, "calls", json_array_ref (calls));
  json_node_set_object (node, wrapper);
  listing = natter_json_to_text (node, FALSE, NULL);
  content = g_strdup_printf ("Classify these tool calls:\n%s", listing);

  json_object_set_string_member (message, "role", "user");
  json_object_set_string_member (message, "content", content);
  json_array_add_object_element (messages, message);
  json_object_set_string_member (request, "systemPrompt", system_prompt);
  json_object_set_array_member (request, "messages", messages);
  json_object_set_array_member (request, "tools", json_array_new ());
  json_object_set_object_member (request, "parameters", json_object_new ());
  return request;
}

/* The answer's text: a string content, or its text parts joined. The
 * answer is untrusted and may put any type anywhere: it is read loosely
 * (natter_json_content_text(), natter_json_loose_string()). */
static char *
message_text (JsonObject *message)
{
  return natter_json_content_text (message != NULL ? json_object_get_member (message, "content") : NULL, "");
}

/**
 * natter_model_permission_classifier_parse_answer:
 * @message: (transfer none): the model's assistant message
 * @calls: (transfer none): the calls that were asked about
 * @error: return location for a #GError
 *
 * Reads the decisions out of a classifier answer (docs/runtime.md §7). The JSON
 * object may be wrapped in prose or a code fence. Entries for calls that were
 * not asked about, or with another decision than allow/deny/defer, are
 * dropped; a call left without a decision counts as `defer` in the
 * runtime. Pure.
 *
 * Returns: (transfer full) (nullable): `[{toolCallId, decision, reason}]`
 *   (possibly partial), or %NULL with %NATTER_RUNTIME_ERROR_CLASSIFIER
 *   when the answer holds no `{"decisions": [...]}` object
 */
JsonArray *
natter_model_permission_classifier_parse_answer (JsonObject  *message,
                                                 JsonArray   *calls,
                                                 GError     **error)
{
  g_autofree char *text = message_text (message);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GHashTable) asked = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *decisions;
  JsonArray *answer;
  JsonNode *member = NULL;
  JsonNode *root;
  char *start = strchr (text, '{');
  char *end = strrchr (text, '}');

  if (start == NULL || end == NULL || end < start ||
      !natter_json_parser_load_external (parser, start, end - start + 1, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (root = json_parser_get_root (parser)) ||
      (member = json_object_get_member (json_node_get_object (root), "decisions")) == NULL ||
      !JSON_NODE_HOLDS_ARRAY (member))
    {
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER,
                   "The classifier's answer is not {\"decisions\": [...]} JSON");
      return NULL;
    }

  decisions = json_node_get_array (member);
  for (guint i = 0; i < json_array_get_length (calls); i++)
    g_hash_table_add (asked, (gpointer) json_object_get_string_member (json_array_get_object_element (calls, i),
                                                                       "toolCallId"));
  answer = json_array_new ();
  for (guint i = 0; i < json_array_get_length (decisions); i++)
    {
      JsonNode *node = json_array_get_element (decisions, i);
      JsonObject *entry;
      JsonObject *decision;
      const char *id;
      const char *verdict;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        continue;
      entry = json_node_get_object (node);
      id = natter_json_loose_string (entry, "toolCallId");
      verdict = natter_json_loose_string (entry, "decision");
      if (id == NULL || verdict == NULL || !g_hash_table_remove (asked, id) ||
          (!g_str_equal (verdict, "allow") && !g_str_equal (verdict, "deny") &&
           !g_str_equal (verdict, "defer")))
        continue;
      decision = json_object_new ();
      json_object_set_string_member (decision, "toolCallId", id);
      json_object_set_string_member (decision, "decision", verdict);
      json_object_set_string_member (decision, "reason",
                                     natter_json_loose_string (entry, "reason") != NULL
                                     ? natter_json_loose_string (entry, "reason") : "");
      json_array_add_object_element (answer, decision);
    }
  return answer;
}

static void
ignore_text (const char *delta,
             gpointer    user_data)
{
}

static void
ignore_event (JsonObject *event,
              gpointer    user_data)
{
}

/* The classification is not part of the turn's stream: nothing of it is
 * shown or written except the decisions. */
static const NatterModelStepSink quiet_sink = { ignore_text, ignore_text, ignore_event };

static void
step_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(NatterModelStepResult) step = NULL;
  GError *error = NULL;
  JsonArray *answer;

  step = natter_model_stream_step_finish (NATTER_MODEL (object), result, &error);
  if (step == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  answer = natter_model_permission_classifier_parse_answer (JSON_NODE_HOLDS_OBJECT (step->message)
                                                            ? json_node_get_object (step->message)
                                                            : NULL,
                                                            g_task_get_task_data (task), &error);
  if (answer == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, answer, (GDestroyNotify) json_array_unref);
}

static void
natter_model_permission_classifier_classify_in_async (NatterPermissionClassifier *classifier,
                                                      NatterModel                *model,
                                                      JsonArray                  *calls,
                                                      GCancellable               *cancellable,
                                                      GAsyncReadyCallback         callback,
                                                      gpointer                    user_data)
{
  g_autoptr(GTask) task = g_task_new (classifier, cancellable, callback, user_data);
  g_autoptr(JsonObject) request = NULL;

  g_task_set_source_tag (task, natter_model_permission_classifier_classify_in_async);
  g_task_set_task_data (task, json_array_ref (calls), (GDestroyNotify) json_array_unref);
  if (model == NULL)
    {
      g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CLASSIFIER,
                               "The classifier has no model to ask");
      return;
    }
  request = natter_model_permission_classifier_build_request (calls);
  natter_model_stream_step_async (model, request, &quiet_sink, NULL, cancellable, step_cb,
                                  g_steal_pointer (&task));
}

static void
natter_model_permission_classifier_classify_async (NatterPermissionClassifier *classifier,
                                                   JsonArray                  *calls,
                                                   GCancellable               *cancellable,
                                                   GAsyncReadyCallback         callback,
                                                   gpointer                    user_data)
{
  natter_model_permission_classifier_classify_in_async (classifier, NULL, calls, cancellable,
                                                        callback, user_data);
}

static JsonArray *
natter_model_permission_classifier_classify_finish (NatterPermissionClassifier  *classifier,
                                                    GAsyncResult                *result,
                                                    GError                     **error)
{
  g_return_val_if_fail (g_task_is_valid (result, classifier), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
classifier_iface_init (NatterPermissionClassifierInterface *iface)
{
  iface->classify_async = natter_model_permission_classifier_classify_async;
  iface->classify_finish = natter_model_permission_classifier_classify_finish;
  iface->classify_in_async = natter_model_permission_classifier_classify_in_async;
}

static void
natter_model_permission_classifier_class_init (NatterModelPermissionClassifierClass *klass)
{
}

static void
natter_model_permission_classifier_init (NatterModelPermissionClassifier *self)
{
}

/**
 * natter_model_permission_classifier_new:
 *
 * The classifier of docs/runtime.md §7 that asks the turn's model
 * (through natter_permission_classifier_classify_in_async()); without a
 * model every classification fails, which the runtime counts as `defer`.
 *
 * Returns: (transfer full): the classifier
 */
NatterModelPermissionClassifier *
natter_model_permission_classifier_new (void)
{
  return g_object_new (NATTER_TYPE_MODEL_PERMISSION_CLASSIFIER, NULL);
}
