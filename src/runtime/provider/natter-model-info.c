/* natter-model-info.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A server's description of one model, read from the shapes servers
 * answer with: Ollama's `/api/tags` entries and `/api/show` answers, and
 * OpenAI's `/models` entries. Whatever a server leaves out or sends in
 * another type stays unknown; nothing is guessed.
 */

#define G_LOG_DOMAIN "natter-model-library"

#include "natter-json.h"
#include "natter-model-info.h"

G_DEFINE_BOXED_TYPE (NatterModelInfo, natter_model_info, natter_model_info_copy, natter_model_info_free)

/**
 * natter_model_info_new:
 * @name: the model's name
 *
 * Returns: (transfer full): a description that knows only the name
 */
NatterModelInfo *
natter_model_info_new (const char *name)
{
  NatterModelInfo *info;

  g_return_val_if_fail (name != NULL, NULL);

  info = g_new0 (NatterModelInfo, 1);
  info->name = g_strdup (name);
  info->size = -1;
  return info;
}

/**
 * natter_model_info_copy:
 * @info: a description
 *
 * Returns: (transfer full): a copy of @info
 */
NatterModelInfo *
natter_model_info_copy (const NatterModelInfo *info)
{
  NatterModelInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = natter_model_info_new (info->name);
  copy->size = info->size;
  copy->parameter_size = g_strdup (info->parameter_size);
  copy->parameter_count = info->parameter_count;
  copy->quantization = g_strdup (info->quantization);
  copy->family = g_strdup (info->family);
  copy->context_length = info->context_length;
  copy->modified = info->modified != NULL ? g_date_time_ref (info->modified) : NULL;
  copy->digest = g_strdup (info->digest);
  return copy;
}

/**
 * natter_model_info_free:
 * @info: (nullable): a description
 *
 * Frees @info.
 */
void
natter_model_info_free (NatterModelInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->name);
  g_free (info->parameter_size);
  g_free (info->quantization);
  g_free (info->family);
  g_clear_pointer (&info->modified, g_date_time_unref);
  g_free (info->digest);
  g_free (info);
}

/* A non-empty string member, or NULL. */
static const char *
string_member (JsonObject *object,
               const char *member)
{
  const char *value = natter_json_loose_string (object, member);

  return value != NULL && value[0] != '\0' ? value : NULL;
}

/* A whole non-negative number member, or -1. */
static gint64
count_member (JsonObject *object,
              const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return -1;
  return json_node_get_int (node) >= 0 ? json_node_get_int (node) : -1;
}

/* Ollama's details object, in `/api/tags` and `/api/show` alike. */
static void
add_details (NatterModelInfo *info,
             JsonObject      *details)
{
  if (info->parameter_size == NULL)
    info->parameter_size = g_strdup (string_member (details, "parameter_size"));
  if (info->quantization == NULL)
    info->quantization = g_strdup (string_member (details, "quantization_level"));
  if (info->family == NULL)
    info->family = g_strdup (string_member (details, "family"));
}

/**
 * natter_model_info_from_tag:
 * @entry: an entry of Ollama's `GET /api/tags` list: `{name, model,
 *   modified_at, size, digest, details: {family, parameter_size,
 *   quantization_level, …}}`
 *
 * Returns: (transfer full) (nullable): its description, or %NULL when
 *   the entry names no model
 */
NatterModelInfo *
natter_model_info_from_tag (JsonObject *entry)
{
  const char *name = string_member (entry, "name");
  const char *modified = string_member (entry, "modified_at");
  NatterModelInfo *info;

  g_return_val_if_fail (entry != NULL, NULL);

  if (name == NULL)
    name = string_member (entry, "model");
  if (name == NULL)
    return NULL;
  info = natter_model_info_new (name);
  info->size = count_member (entry, "size");
  info->digest = g_strdup (string_member (entry, "digest"));
  if (modified != NULL)
    {
      g_autoptr(GDateTime) parsed = g_date_time_new_from_iso8601 (modified, NULL);

      info->modified = parsed != NULL ? g_date_time_to_utc (parsed) : NULL;
    }
  add_details (info, natter_json_loose_object (entry, "details"));
  return info;
}

/**
 * natter_model_info_from_openai:
 * @entry: an entry of an OpenAI-compatible `GET /models` list: `{id,
 *   created, owned_by}`
 *
 * Returns: (transfer full) (nullable): its description (a name, and when
 *   it was created if the entry says), or %NULL when it names no model
 */
NatterModelInfo *
natter_model_info_from_openai (JsonObject *entry)
{
  const char *name = string_member (entry, "id");
  gint64 created = count_member (entry, "created");
  NatterModelInfo *info;

  g_return_val_if_fail (entry != NULL, NULL);

  if (name == NULL)
    return NULL;
  info = natter_model_info_new (name);
  /* 0 is what servers send when they do not know. */
  if (created > 0)
    info->modified = g_date_time_new_from_unix_utc (created);
  return info;
}

/**
 * natter_model_info_add_show:
 * @info: a description
 * @show: Ollama's answer to `POST /api/show`: `{details: {…}, model_info:
 *   {"general.parameter_count": N, …}}`
 *
 * Adds what `/api/show` says that `/api/tags` does not: the exact
 * parameter count and the context length (`model_info`'s
 * "<general.architecture>.context_length"); and its details where the
 * tag had none.
 */
void
natter_model_info_add_show (NatterModelInfo *info,
                            JsonObject      *show)
{
  JsonObject *model_info;
  const char *architecture;
  gint64 count;

  g_return_if_fail (info != NULL);
  g_return_if_fail (show != NULL);

  model_info = natter_json_loose_object (show, "model_info");
  count = count_member (model_info, "general.parameter_count");
  if (count > 0)
    info->parameter_count = count;
  architecture = string_member (model_info, "general.architecture");
  if (architecture != NULL)
    {
      g_autofree char *member = g_strconcat (architecture, ".context_length", NULL);

      count = count_member (model_info, member);
      if (count > 0)
        info->context_length = count;
    }
  add_details (info, natter_json_loose_object (show, "details"));
}

/**
 * natter_model_info_to_json:
 * @info: a description
 *
 * The description as `natter models --json` prints it: `{name, size,
 * parameterSize, parameterCount, quantization, family, contextLength,
 * modified, digest}`, each member only when known (`modified` as an RFC 3339 UTC
 * timestamp).
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_model_info_to_json (const NatterModelInfo *info)
{
  g_autoptr(JsonObject) object = json_object_new ();

  g_return_val_if_fail (info != NULL, NULL);

  json_object_set_string_member (object, "name", info->name);
  if (info->size >= 0)
    json_object_set_int_member (object, "size", info->size);
  if (info->parameter_size != NULL)
    json_object_set_string_member (object, "parameterSize", info->parameter_size);
  if (info->parameter_count > 0)
    json_object_set_int_member (object, "parameterCount", info->parameter_count);
  if (info->quantization != NULL)
    json_object_set_string_member (object, "quantization", info->quantization);
  if (info->family != NULL)
    json_object_set_string_member (object, "family", info->family);
  if (info->context_length > 0)
    json_object_set_int_member (object, "contextLength", info->context_length);
  if (info->modified != NULL)
    {
      g_autofree char *text = g_date_time_format (info->modified, "%Y-%m-%dT%H:%M:%SZ");

      json_object_set_string_member (object, "modified", text);
    }
  if (info->digest != NULL)
    json_object_set_string_member (object, "digest", info->digest);
  return json_node_init_object (json_node_alloc (), object);
}
