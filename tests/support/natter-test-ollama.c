/* natter-test-ollama.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <string.h>

#include <json-glib/json-glib.h>

#include "natter-test-ollama.h"

#define NDJSON "application/x-ndjson"
#define JSON "application/json"

#define STATUS(text) "{\"status\":\"" text "\"}\n"
#define LAYER(digest, total, completed) \
  "{\"status\":\"pulling " digest "\",\"digest\":\"" digest "\",\"total\":" G_STRINGIFY (total) \
  ",\"completed\":" G_STRINGIFY (completed) "}\n"
/* Ollama leaves `completed` out until the first bytes of a layer came. */
#define LAYER_START(digest, total) \
  "{\"status\":\"pulling " digest "\",\"digest\":\"" digest "\",\"total\":" G_STRINGIFY (total) "}\n"

#define HALF 1009688688

/* The first half of every pull, then each script's end. */
#define PULL_START \
  STATUS ("pulling manifest"), \
  LAYER_START (NATTER_TEST_OLLAMA_DIGEST, 2019377376), \
  LAYER (NATTER_TEST_OLLAMA_DIGEST, 2019377376, 504844344), \
  LAYER (NATTER_TEST_OLLAMA_DIGEST, 2019377376, 1009688688)

static const char *const PULL_WHOLE[] = {
  PULL_START,
  LAYER (NATTER_TEST_OLLAMA_DIGEST, 2019377376, 2019377376),
  LAYER (NATTER_TEST_OLLAMA_SMALL_DIGEST, 7711, 7711),
  STATUS ("verifying sha256 digest"),
  STATUS ("writing manifest"),
  STATUS ("success"),
  NULL
};

static const char *const PULL_FAILING[] = {
  PULL_START,
  "{\"error\":\"write /root/.ollama/models/blobs/sha256-dde5aa3fc5ff-partial-3: no space left on device\"}\n",
  NULL
};

static const char *const PULL_HALF[] = { PULL_START, NULL };

static const char *const PULL_UNKNOWN[] = {
  STATUS ("pulling manifest"),
  "{\"error\":\"pull model manifest: file does not exist\"}\n",
  NULL
};

/* What the scripted server reads from a request body: its `model` (or
 * the older `name`). */
static char *
requested_model (const char *body)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;

  if (!json_parser_load_from_data (parser, body, -1, NULL) || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return NULL;
  object = json_node_get_object (json_parser_get_root (parser));
  if (json_object_has_member (object, "model"))
    return g_strdup (json_object_get_string_member (object, "model"));
  return g_strdup (json_object_get_string_member_with_default (object, "name", NULL));
}

static char *
tags_body (NatterTestOllama *ollama)
{
  g_autoptr(GString) body = g_string_new ("{\"models\":[");

  for (guint i = 0; i < ollama->models->len; i++)
    {
      const char *name = g_ptr_array_index (ollama->models, i);

      g_string_append_printf (body, "%s{\"name\":\"%s\",\"model\":\"%s\","
                              "\"modified_at\":\"2026-11-%02uT10:00:00.000000+01:00\","
                              "\"size\":%u,\"digest\":\"a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72\","
                              "\"details\":{\"format\":\"gguf\",\"family\":\"llama\",\"families\":[\"llama\"],"
                              "\"parameter_size\":\"3.2B\",\"quantization_level\":\"Q4_K_M\"}}",
                              i > 0 ? "," : "", name, name, 10 + i, 2019393189u + i);
    }
  g_string_append (body, "]}");
  return g_string_free (g_steal_pointer (&body), FALSE);
}

static char *
openai_body (NatterTestOllama *ollama)
{
  g_autoptr(GString) body = g_string_new ("{\"object\":\"list\",\"data\":[");

  for (guint i = 0; i < ollama->models->len; i++)
    g_string_append_printf (body, "%s{\"id\":\"%s\",\"object\":\"model\",\"created\":1763000000,\"owned_by\":\"library\"}",
                            i > 0 ? "," : "", (const char *) g_ptr_array_index (ollama->models, i));
  g_string_append (body, "]}");
  return g_string_free (g_steal_pointer (&body), FALSE);
}

static gint
find_model (NatterTestOllama *ollama,
            const char       *name)
{
  for (guint i = 0; name != NULL && i < ollama->models->len; i++)
    if (g_str_equal (g_ptr_array_index (ollama->models, i), name))
      return (gint) i;
  return -1;
}

static void
not_found (NatterTestResponse *response,
           char              **scratch,
           const char         *name)
{
  *scratch = g_strdup_printf ("{\"error\":\"model '%s' not found\"}", name != NULL ? name : "");
  response->status = 404;
  response->content_type = JSON;
  response->body = *scratch;
}

/* Ollama's answers, by path; the strings live in @scratch until the
 * server copied them. */
static void
answer (NatterTestOllama   *ollama,
        guint               index,
        const char         *path,
        const char         *body,
        NatterTestResponse *response,
        char              **scratch)
{
  g_autofree char *model = NULL;

  response->status = 200;
  response->content_type = JSON;
  if (g_str_equal (path, "/api/version"))
    response->body = "{\"version\":\"0.5.7\"}";
  else if (g_str_equal (path, "/api/tags"))
    response->body = *scratch = tags_body (ollama);
  else if (g_str_equal (path, "/v1/models"))
    response->body = *scratch = openai_body (ollama);
  else if (g_str_equal (path, "/api/show"))
    {
      model = requested_model (body);
      if (find_model (ollama, model) < 0)
        not_found (response, scratch, model);
      else
        response->body = "{\"license\":\"…\",\"modelfile\":\"FROM llama\",\"template\":\"{{ .Prompt }}\","
                         "\"details\":{\"parent_model\":\"\",\"format\":\"gguf\",\"family\":\"llama\","
                         "\"parameter_size\":\"3.2B\",\"quantization_level\":\"Q4_K_M\"},"
                         "\"model_info\":{\"general.architecture\":\"llama\","
                         "\"general.parameter_count\":3212749888,\"llama.context_length\":131072}}";
    }
  else if (g_str_equal (path, "/api/delete"))
    {
      gint found;

      model = requested_model (body);
      found = find_model (ollama, model);
      if (found < 0)
        not_found (response, scratch, model);
      else
        {
          g_ptr_array_remove_index (ollama->models, found);
          response->body = "";
        }
    }
  else if (g_str_equal (path, "/api/pull"))
    {
      ollama->last_pull = index;
      response->content_type = NDJSON;
      switch (ollama->pull)
        {
        case NATTER_TEST_PULL_SUCCEEDS:
          response->chunks = PULL_WHOLE;
          model = requested_model (body);
          if (model != NULL && find_model (ollama, model) < 0)
            g_ptr_array_add (ollama->models, g_steal_pointer (&model));
          break;
        case NATTER_TEST_PULL_FAILS_HALFWAY:
          response->chunks = PULL_FAILING;
          break;
        case NATTER_TEST_PULL_DROPS_HALFWAY:
          response->chunks = PULL_HALF;
          response->disconnect = TRUE;
          break;
        case NATTER_TEST_PULL_HOLDS_HALFWAY:
          response->chunks = PULL_HALF;
          response->keep_open = TRUE;
          break;
        case NATTER_TEST_PULL_UNKNOWN:
          response->chunks = PULL_UNKNOWN;
          break;
        default:
          g_assert_not_reached ();
        }
    }
  else
    {
      response->status = 404;
      response->body = "404 page not found";
      response->content_type = "text/plain";
    }
}

static void
respond_cb (NatterTestServer   *server,
            guint               index,
            const char         *path,
            const char         *body,
            NatterTestResponse *response,
            gpointer            user_data)
{
  NatterTestOllama *ollama = user_data;

  /* The server copied the previous response before this request came. */
  g_clear_pointer (&ollama->scratch, g_free);
  answer (ollama, index, path, body, response, &ollama->scratch);
}

/**
 * natter_test_ollama_new:
 * @first_model: (nullable): the first installed model
 * @...: more, then %NULL
 *
 * Listens on a free loopback port as Ollama with these models installed;
 * pulls succeed until the test sets `pull`.
 *
 * Returns: (transfer full): the server
 */
NatterTestOllama *
natter_test_ollama_new (const char *first_model,
                        ...)
{
  NatterTestOllama *ollama = g_new0 (NatterTestOllama, 1);
  va_list args;

  ollama->models = g_ptr_array_new_with_free_func (g_free);
  va_start (args, first_model);
  for (const char *name = first_model; name != NULL; name = va_arg (args, const char *))
    g_ptr_array_add (ollama->models, g_strdup (name));
  va_end (args);
  ollama->last_pull = G_MAXUINT;
  ollama->server = natter_test_server_new_responder (respond_cb, ollama);
  ollama->root = g_strndup (ollama->server->base_url, strlen (ollama->server->base_url) - strlen ("/v1"));
  return ollama;
}

/* Whether @name is installed now. */
gboolean
natter_test_ollama_has_model (NatterTestOllama *ollama,
                              const char       *name)
{
  return find_model (ollama, name) >= 0;
}

/* Whether the latest pull's stream is still held open: FALSE once its
 * client went away (a cancelled pull closes the connection). */
gboolean
natter_test_ollama_pull_is_held (NatterTestOllama *ollama)
{
  return ollama->last_pull != G_MAXUINT && natter_test_server_is_held (ollama->server, ollama->last_pull);
}

/* Sends the rest of a held pull, as a server that did not notice its
 * client leave would; %FALSE when it was not held any more. */
gboolean
natter_test_ollama_finish_pull (NatterTestOllama *ollama)
{
  static const char *const rest[] = {
    LAYER (NATTER_TEST_OLLAMA_DIGEST, 2019377376, 2019377376),
    STATUS ("success"),
    NULL
  };

  return natter_test_server_release (ollama->server, ollama->last_pull, rest);
}

/* How many requests asked for @path. */
guint
natter_test_ollama_count (NatterTestOllama *ollama,
                          const char       *path)
{
  guint n = 0;

  for (guint i = 0; i < ollama->server->paths->len; i++)
    n += g_str_equal (g_ptr_array_index (ollama->server->paths, i), path);
  return n;
}

void
natter_test_ollama_free (NatterTestOllama *ollama)
{
  natter_test_server_free (ollama->server);
  g_ptr_array_unref (ollama->models);
  g_free (ollama->root);
  g_free (ollama->scratch);
  g_free (ollama);
}
