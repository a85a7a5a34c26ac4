/* natter-model-library.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The models on a provider's server (docs/runtime.md §13). Whether the
 * server is Ollama is asked, not guessed from its
 * port or name: Ollama answers `GET {root}/api/version` beside its
 * OpenAI API with `{"version": …}`, where {root} is the base URL without
 * its "/v1". Ollama's models are listed from `GET /api/tags` (name,
 * size, parameter size, quantization, modified), described by `POST
 * /api/show`, pulled with a streamed `POST /api/pull` and removed with
 * `DELETE /api/delete`; any other server's come from `GET {baseUrl}/models`.
 * Every answer is read with the guarded parse for outside input; every
 * call goes through the provider's own session, key and error wording.
 */

#define G_LOG_DOMAIN "natter-model-library"

#include <string.h>

#include "natter-json.h"
#include "natter-model-library.h"
#include "natter-openai-provider-private.h"

struct _NatterModelLibrary
{
  GObject                parent_instance;

  NatterOpenaiProvider  *provider;
  char                  *native_root;
  NatterModelServerKind  kind;
};

G_DEFINE_FINAL_TYPE (NatterModelLibrary, natter_model_library, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
natter_model_library_finalize (GObject *object)
{
  NatterModelLibrary *self = NATTER_MODEL_LIBRARY (object);

  g_clear_object (&self->provider);
  g_free (self->native_root);

  G_OBJECT_CLASS (natter_model_library_parent_class)->finalize (object);
}

static void
natter_model_library_class_init (NatterModelLibraryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_model_library_finalize;

  /**
   * NatterModelLibrary::changed:
   * @self: the library
   *
   * The server's models changed through this library: a pull succeeded
   * or a model was deleted. Whoever lists them should list again.
   */
  signals[CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
natter_model_library_init (NatterModelLibrary *self)
{
}

/**
 * natter_model_library_new:
 * @provider: the provider whose server holds the models
 *
 * Creates the view of @provider's models. Nothing is asked until a
 * call: the first one finds out whether the server is Ollama
 * (natter_model_library_get_kind()).
 *
 * Returns: (transfer full): a new library
 */
NatterModelLibrary *
natter_model_library_new (NatterOpenaiProvider *provider)
{
  NatterModelLibrary *self;
  const char *base;

  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (provider), NULL);

  self = g_object_new (NATTER_TYPE_MODEL_LIBRARY, NULL);
  self->provider = g_object_ref (provider);
  base = natter_openai_provider_get_base_url (provider);
  /* Ollama serves its OpenAI API under /v1 and its own API beside it. */
  if (g_str_has_suffix (base, "/v1"))
    self->native_root = g_strndup (base, strlen (base) - strlen ("/v1"));
  else
    self->native_root = g_strdup (base);
  return self;
}

/**
 * natter_model_library_get_provider:
 * @self: a library
 *
 * Returns: (transfer none): its provider
 */
NatterOpenaiProvider *
natter_model_library_get_provider (NatterModelLibrary *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_LIBRARY (self), NULL);
  return self->provider;
}

/**
 * natter_model_library_get_native_root:
 * @self: a library
 *
 * Returns: (transfer none): where the server's own API would be: the
 *   base URL without a trailing "/v1"
 */
const char *
natter_model_library_get_native_root (NatterModelLibrary *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_LIBRARY (self), NULL);
  return self->native_root;
}

/**
 * natter_model_library_get_kind:
 * @self: a library
 *
 * Returns: what the server is, once a call found out;
 *   %NATTER_MODEL_SERVER_UNKNOWN before
 */
NatterModelServerKind
natter_model_library_get_kind (NatterModelLibrary *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_LIBRARY (self), NATTER_MODEL_SERVER_UNKNOWN);
  return self->kind;
}

static GBytes *
model_body (const char *name)
{
  g_autoptr(JsonObject) request = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  gsize len;
  char *text;

  json_object_set_string_member (request, "model", name);
  node = json_node_init_object (json_node_alloc (), request);
  text = natter_json_to_text (node, FALSE, &len);
  return g_bytes_new_take (text, len);
}

static char *
native_url (NatterModelLibrary *self,
            const char         *path)
{
  return g_strconcat (self->native_root, path, NULL);
}

/* Finding out what the server is */

/* What to do once the kind is known: the operation's own step. */
typedef void (*KindKnownFunc) (NatterModelLibrary *self,
                               GTask              *task);

static void
version_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterModelLibrary *self = g_task_get_source_object (task);
  KindKnownFunc then = g_object_get_data (G_OBJECT (task), "natter-then");
  g_autoptr(JsonNode) root = NULL;
  GError *error = NULL;

  root = g_task_propagate_pointer (G_TASK (result), &error);
  if (root != NULL)
    {
      const char *version = natter_json_loose_string (json_node_get_object (root), "version");

      self->kind = version != NULL ? NATTER_MODEL_SERVER_OLLAMA : NATTER_MODEL_SERVER_OPENAI;
      g_debug ("%s is %s%s", self->provider->id, version != NULL ? "Ollama " : "not Ollama",
               version != NULL ? version : "");
    }
  else if (g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_HTTP) ||
           g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_BAD_RESPONSE))
    {
      /* It answered, but not as Ollama does. */
      g_clear_error (&error);
      self->kind = NATTER_MODEL_SERVER_OPENAI;
    }
  else
    {
      g_task_return_error (task, error);
      return;
    }
  then (self, task);
}

/* Runs @then with @task once the kind is known, asking the server the
 * first time; a server that cannot be reached fails @task. Takes
 * @task. */
static void
with_kind (NatterModelLibrary *self,
           GTask              *task,
           KindKnownFunc       then)
{
  g_autofree char *url = NULL;
  GTask *version;

  if (self->kind != NATTER_MODEL_SERVER_UNKNOWN)
    {
      then (self, task);
      g_object_unref (task);
      return;
    }
  g_object_set_data (G_OBJECT (task), "natter-then", then);
  url = native_url (self, "/api/version");
  version = g_task_new (self->provider, g_task_get_cancellable (task), version_cb, task);
  natter_openai_call_start_json (self->provider, version, SOUP_METHOD_GET, url, NULL, g_task_get_cancellable (task));
}

/* Starts an operation on the model @name: its task, tagged @tag and
 * holding the name, goes to @then once the kind is known. */
static void
start_on_model (NatterModelLibrary  *self,
                const char          *name,
                gpointer             tag,
                KindKnownFunc        then,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, g_strdup (name), g_free);
  with_kind (self, task, then);
}

/* Fails @task unless the server is Ollama. */
static gboolean
require_ollama (NatterModelLibrary *self,
                GTask              *task)
{
  if (self->kind == NATTER_MODEL_SERVER_OLLAMA)
    return TRUE;
  g_task_return_error (task,
                       natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_UNSUPPORTED,
                                                     "%s at %s is not an Ollama server: its models can be "
                                                     "listed here, but pulled and deleted only with its "
                                                     "own tools",
                                                     self->provider->display_name, self->provider->display_base));
  return FALSE;
}

/* Ollama answers 404 for a model it does not have: said in plain words,
 * with the server's own after them. Takes @error. */
static GError *
word_missing_model (NatterModelLibrary *self,
                    GAsyncResult       *result,
                    const char         *name,
                    GError             *error)
{
  GError *worded;

  if (natter_openai_call_get_status (result) != SOUP_STATUS_NOT_FOUND)
    return error;
  worded = natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND,
                                         "%s at %s has no model “%s” (%s)", self->provider->display_name,
                                         self->provider->display_base, name, error->message);
  g_error_free (error);
  return worded;
}

/* Listing */

static GPtrArray *
read_list (JsonNode   *root,
           const char *member,
           NatterModelInfo *(*read) (JsonObject *entry))
{
  GPtrArray *models = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_model_info_free);
  JsonNode *list = json_object_get_member (json_node_get_object (root), member);

  if (list == NULL || !JSON_NODE_HOLDS_ARRAY (list))
    {
      g_ptr_array_unref (models);
      return NULL;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (list), i);
      NatterModelInfo *info = JSON_NODE_HOLDS_OBJECT (element) ? read (json_node_get_object (element)) : NULL;

      if (info != NULL)
        g_ptr_array_add (models, info);
    }
  return models;
}

/* A listing under way: Ollama's tags, then each model described. */
typedef struct
{
  GPtrArray *models;     /* NatterModelInfo */
  guint      pending;    /* descriptions not yet back */
} Listing;

static void
listing_free (gpointer data)
{
  Listing *listing = data;

  g_clear_pointer (&listing->models, g_ptr_array_unref);
  g_free (listing);
}

static void
described_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Listing *listing = g_task_get_task_data (task);
  NatterModelInfo *info = g_object_get_data (G_OBJECT (result), "natter-model-info");
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  root = g_task_propagate_pointer (G_TASK (result), &error);
  /* A description is what the list adds to; a model the server cannot
   * describe is still listed, with what its tag says. */
  if (root != NULL)
    natter_model_info_add_show (info, json_node_get_object (root));
  else
    g_debug ("No description of %s: %s", info->name, error->message);
  if (--listing->pending > 0)
    return;
  if (g_task_return_error_if_cancelled (task))
    return;
  g_task_return_pointer (task, g_steal_pointer (&listing->models), (GDestroyNotify) g_ptr_array_unref);
}

/* Asks `/api/show` of every listed model at once; the list returns when
 * the last answer is in. */
static void
describe_all (NatterModelLibrary *self,
              GTask              *task)
{
  Listing *listing = g_task_get_task_data (task);
  g_autofree char *url = native_url (self, "/api/show");

  listing->pending = listing->models->len;
  for (guint i = 0; i < listing->models->len; i++)
    {
      NatterModelInfo *info = g_ptr_array_index (listing->models, i);
      g_autoptr(GBytes) body = model_body (info->name);
      GTask *call = g_task_new (self->provider, g_task_get_cancellable (task), described_cb, g_object_ref (task));

      g_object_set_data (G_OBJECT (call), "natter-model-info", info);
      natter_openai_call_start_json (self->provider, call, SOUP_METHOD_POST, url, body,
                                     g_task_get_cancellable (task));
    }
}

static void
listed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterModelLibrary *self = g_task_get_source_object (task);
  Listing *listing = g_task_get_task_data (task);
  g_autoptr(JsonNode) root = NULL;
  GPtrArray *models = NULL;
  GError *error = NULL;

  root = g_task_propagate_pointer (G_TASK (result), &error);
  if (root == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Ollama's own list, or an OpenAI list (which some servers give in
   * Ollama's shape). */
  models = read_list (root, "models", natter_model_info_from_tag);
  if (models == NULL)
    models = read_list (root, "data", natter_model_info_from_openai);
  if (models == NULL)
    {
      g_task_return_error (task,
                           natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                                         "%s sent a model list without “data” or “models”",
                                                         self->provider->display_name));
      return;
    }
  if (self->kind != NATTER_MODEL_SERVER_OLLAMA || models->len == 0)
    {
      g_task_return_pointer (task, models, (GDestroyNotify) g_ptr_array_unref);
      return;
    }
  listing->models = models;
  describe_all (self, task);
}

static void
list_known_kind (NatterModelLibrary *self,
                 GTask              *task)
{
  g_autofree char *url = NULL;
  GTask *call;

  if (self->kind == NATTER_MODEL_SERVER_OLLAMA)
    url = native_url (self, "/api/tags");
  else
    url = g_strconcat (natter_openai_provider_get_base_url (self->provider), "/models", NULL);
  call = g_task_new (self->provider, g_task_get_cancellable (task), listed_cb, g_object_ref (task));
  natter_openai_call_start_json (self->provider, call, SOUP_METHOD_GET, url, NULL, g_task_get_cancellable (task));
}

/**
 * natter_model_library_list_async:
 * @self: a library
 * @cancellable: (nullable): cancels the requests at once
 * @callback: called with the list
 * @user_data: data for @callback
 *
 * Lists the server's models: Ollama's `GET /api/tags` (name, size,
 * parameter size, quantization, family, modified), each described by
 * `POST /api/show` (the exact parameter count and the context length; a
 * model it cannot describe keeps what its tag said), else `GET
 * {baseUrl}/models` (names, and when they were created where the server
 * says). Finds out first, the first time, whether the server is Ollama.
 */
void
natter_model_library_list_async (NatterModelLibrary  *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_MODEL_LIBRARY (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_model_library_list_async);
  g_task_set_task_data (task, g_new0 (Listing, 1), listing_free);
  with_kind (self, task, list_known_kind);
}

/**
 * natter_model_library_list_finish:
 * @self: a library
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (element-type NatterModelInfo) (nullable): the
 *   models in the server's order; or %NULL with a %NATTER_PROVIDER_ERROR
 *   (unreachable, HTTP error, %NATTER_PROVIDER_ERROR_BAD_RESPONSE for a
 *   list of an unknown shape, …)
 */
GPtrArray *
natter_model_library_list_finish (NatterModelLibrary  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_model_library_list_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Describing one */

static void
shown_cb (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonNode) root = NULL;
  NatterModelInfo *info;
  GError *error = NULL;

  root = g_task_propagate_pointer (G_TASK (result), &error);
  if (root == NULL)
    {
      g_task_return_error (task, word_missing_model (g_task_get_source_object (task), result,
                                                     g_task_get_task_data (task), error));
      return;
    }
  info = natter_model_info_new (g_task_get_task_data (task));
  natter_model_info_add_show (info, json_node_get_object (root));
  g_task_return_pointer (task, info, (GDestroyNotify) natter_model_info_free);
}

/* Asks Ollama's @method @path about the model @task holds, and gives
 * the answer to @done (its root #JsonNode, or %TRUE when @status_only);
 * fails @task unless the server is Ollama. */
static void
ask_about_model (NatterModelLibrary  *self,
                 GTask               *task,
                 const char          *method,
                 const char          *path,
                 gboolean             status_only,
                 GAsyncReadyCallback  done)
{
  g_autofree char *url = NULL;
  g_autoptr(GBytes) body = NULL;
  GCancellable *cancellable = g_task_get_cancellable (task);
  GTask *call;

  if (!require_ollama (self, task))
    return;
  url = native_url (self, path);
  body = model_body (g_task_get_task_data (task));
  call = g_task_new (self->provider, cancellable, done, g_object_ref (task));
  if (status_only)
    natter_openai_call_start_status (self->provider, call, method, url, body, cancellable);
  else
    natter_openai_call_start_json (self->provider, call, method, url, body, cancellable);
}

static void
show_known_kind (NatterModelLibrary *self,
                 GTask              *task)
{
  ask_about_model (self, task, SOUP_METHOD_POST, "/api/show", FALSE, shown_cb);
}

/**
 * natter_model_library_show_async:
 * @self: a library
 * @name: a model of the server
 * @cancellable: (nullable): cancels the request at once
 * @callback: called with the description
 * @user_data: data for @callback
 *
 * Describes one model with Ollama's `POST /api/show`: its exact
 * parameter count, context length, parameter size, quantization and
 * family (not its size on disk or when it was pulled, which only the
 * list says).
 */
void
natter_model_library_show_async (NatterModelLibrary  *self,
                                 const char          *name,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_MODEL_LIBRARY (self));
  g_return_if_fail (name != NULL && name[0] != '\0');

  start_on_model (self, name, natter_model_library_show_async, show_known_kind, cancellable, callback, user_data);
}

/**
 * natter_model_library_show_finish:
 * @self: a library
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the description; or %NULL with a
 *   %NATTER_PROVIDER_ERROR: %NATTER_PROVIDER_ERROR_UNSUPPORTED when the
 *   server is not Ollama, %NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND when it
 *   does not have the model, …
 */
NatterModelInfo *
natter_model_library_show_finish (NatterModelLibrary  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_model_library_show_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Deleting one */

static void
deleted_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterModelLibrary *self = g_task_get_source_object (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, word_missing_model (self, result, g_task_get_task_data (task), error));
      return;
    }
  g_debug ("Deleted %s from %s", (const char *) g_task_get_task_data (task), self->provider->id);
  g_signal_emit (self, signals[CHANGED], 0);
  g_task_return_boolean (task, TRUE);
}

static void
delete_known_kind (NatterModelLibrary *self,
                   GTask              *task)
{
  ask_about_model (self, task, SOUP_METHOD_DELETE, "/api/delete", TRUE, deleted_cb);
}

/**
 * natter_model_library_delete_async:
 * @self: a library
 * @name: a model of the server
 * @cancellable: (nullable): cancels the request
 * @callback: called when the server answered
 * @user_data: data for @callback
 *
 * Deletes a model from an Ollama server with `DELETE /api/delete`: its
 * files are gone from the server; there is no undo short of pulling it
 * again, so ask first. Emits #NatterModelLibrary::changed on success.
 */
void
natter_model_library_delete_async (NatterModelLibrary  *self,
                                   const char          *name,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_MODEL_LIBRARY (self));
  g_return_if_fail (name != NULL && name[0] != '\0');

  start_on_model (self, name, natter_model_library_delete_async, delete_known_kind, cancellable, callback, user_data);
}

/**
 * natter_model_library_delete_finish:
 * @self: a library
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the server deleted the model; %FALSE with a
 *   %NATTER_PROVIDER_ERROR: %NATTER_PROVIDER_ERROR_UNSUPPORTED when the
 *   server is not Ollama, %NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND with the
 *   server's words when it has no such model (Ollama answers 404), …
 */
gboolean
natter_model_library_delete_finish (NatterModelLibrary  *self,
                                    GAsyncResult        *result,
                                    GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_model_library_delete_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* Pulling one */

static void
pull_state_cb (NatterModelPull    *pull,
               GParamSpec         *pspec,
               NatterModelLibrary *self)
{
  if (natter_model_pull_get_state (pull) == NATTER_MODEL_PULL_SUCCEEDED)
    g_signal_emit (self, signals[CHANGED], 0);
}

static void
pull_known_kind (NatterModelLibrary *self,
                 GTask              *task)
{
  NatterModelPull *pull;

  if (!require_ollama (self, task))
    return;
  pull = natter_model_pull_start (self->provider, self->native_root, g_task_get_task_data (task));
  /* The library lives at least as long as its pulls run. */
  g_signal_connect_object (pull, "notify::state", G_CALLBACK (pull_state_cb), self, 0);
  g_object_set_data_full (G_OBJECT (pull), "natter-model-library", g_object_ref (self), g_object_unref);
  g_task_return_pointer (task, pull, g_object_unref);
}

/**
 * natter_model_library_pull_async:
 * @self: a library
 * @name: the model to pull, as Ollama's library names it ("llama3.2")
 * @cancellable: (nullable): cancels finding out what the server is; the
 *   pull itself is stopped with natter_model_pull_cancel()
 * @callback: called once the pull runs
 * @user_data: data for @callback
 *
 * Starts pulling @name onto an Ollama server (natter_model_pull_start()).
 * When the pull succeeds, #NatterModelLibrary::changed is emitted.
 */
void
natter_model_library_pull_async (NatterModelLibrary  *self,
                                 const char          *name,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_MODEL_LIBRARY (self));
  g_return_if_fail (name != NULL && name[0] != '\0');

  start_on_model (self, name, natter_model_library_pull_async, pull_known_kind, cancellable, callback, user_data);
}

/**
 * natter_model_library_pull_finish:
 * @self: a library
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the running pull; or %NULL with a
 *   %NATTER_PROVIDER_ERROR: %NATTER_PROVIDER_ERROR_UNSUPPORTED when the
 *   server is not Ollama, or why it could not be asked
 */
NatterModelPull *
natter_model_library_pull_finish (NatterModelLibrary  *self,
                                  GAsyncResult        *result,
                                  GError             **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_model_library_pull_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
