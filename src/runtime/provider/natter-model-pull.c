/* natter-model-pull.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A model pulled onto an Ollama server: `POST {root}/api/pull` with
 * `"stream": true`, whose answer is one JSON object per line — a status
 * ("pulling manifest", "pulling sha256:…" with the layer's `digest`,
 * `total` and `completed` bytes, "verifying sha256 digest", "writing
 * manifest", "success"), or `{"error": …}` when the server gives up
 * (docs/runtime.md §13). Each line is read with the
 * guarded parse for outside input and changes the pull's properties; the
 * pull succeeds only once the server said "success".
 */

#define G_LOG_DOMAIN "natter-model-library"

#include <string.h>

#include "natter-enum-types.h"
#include "natter-json.h"
#include "natter-model-pull.h"
#include "natter-openai-provider-private.h"

struct _NatterModelPull
{
  GObject               parent_instance;

  NatterOpenaiProvider *provider;
  char                 *name;
  NatterModelPullState  state;
  char                 *status;
  GArray               *layers;      /* NatterModelPullLayer */
  gboolean              said_success;
  GError               *error;
  GCancellable         *cancellable;
};

G_DEFINE_FINAL_TYPE (NatterModelPull, natter_model_pull, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_STATE,
  PROP_STATUS,
  PROP_COMPLETED,
  PROP_TOTAL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  PROGRESS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
layer_clear (gpointer data)
{
  NatterModelPullLayer *layer = data;

  g_free (layer->digest);
}

static void
natter_model_pull_finalize (GObject *object)
{
  NatterModelPull *self = NATTER_MODEL_PULL (object);

  g_clear_object (&self->provider);
  g_free (self->name);
  g_free (self->status);
  g_array_unref (self->layers);
  g_clear_error (&self->error);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (natter_model_pull_parent_class)->finalize (object);
}

static void
natter_model_pull_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  NatterModelPull *self = NATTER_MODEL_PULL (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_STATUS:
      g_value_set_string (value, self->status);
      break;
    case PROP_COMPLETED:
      g_value_set_int64 (value, natter_model_pull_get_completed (self));
      break;
    case PROP_TOTAL:
      g_value_set_int64 (value, natter_model_pull_get_total (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_model_pull_class_init (NatterModelPullClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_model_pull_finalize;
  object_class->get_property = natter_model_pull_get_property;

  /**
   * NatterModelPull:name:
   *
   * The model being pulled, as it was asked for ("llama3.2").
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterModelPull:state:
   *
   * Where the pull stands; it leaves %NATTER_MODEL_PULL_RUNNING once.
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL, NATTER_TYPE_MODEL_PULL_STATE, NATTER_MODEL_PULL_RUNNING,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterModelPull:status:
   *
   * The server's last status, in its words ("pulling manifest"); %NULL
   * before the first.
   */
  properties[PROP_STATUS] =
    g_param_spec_string ("status", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterModelPull:completed:
   *
   * Bytes downloaded so far, over every layer reported.
   */
  properties[PROP_COMPLETED] =
    g_param_spec_int64 ("completed", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * NatterModelPull:total:
   *
   * The size in bytes of every layer reported so far; 0 before the
   * first. Ollama names a layer when it starts on it, so this may grow.
   */
  properties[PROP_TOTAL] =
    g_param_spec_int64 ("total", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterModelPull::progress:
   * @self: the pull
   *
   * The server reported something: a status, a layer, bytes. Emitted
   * after the properties changed, once per line of the stream.
   */
  signals[PROGRESS] =
    g_signal_new ("progress", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
natter_model_pull_init (NatterModelPull *self)
{
  self->layers = g_array_new (FALSE, TRUE, sizeof (NatterModelPullLayer));
  g_array_set_clear_func (self->layers, layer_clear);
  self->cancellable = g_cancellable_new ();
}

static gint64
count_member (JsonObject *object,
              const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return -1;
  return json_node_get_int (node);
}

static NatterModelPullLayer *
find_layer (NatterModelPull *self,
            const char      *digest)
{
  NatterModelPullLayer fresh = { 0 };

  for (guint i = 0; i < self->layers->len; i++)
    {
      NatterModelPullLayer *layer = &g_array_index (self->layers, NatterModelPullLayer, i);

      if (g_str_equal (layer->digest, digest))
        return layer;
    }
  fresh.digest = g_strdup (digest);
  g_array_append_val (self->layers, fresh);
  return &g_array_index (self->layers, NatterModelPullLayer, self->layers->len - 1);
}

/* The server's `{"error"}` line in plain words, its own after them: the
 * two a person can act on are told apart by the words Ollama passes on
 * from its registry and its file system. */
static GError *
describe_failure (NatterModelPull *self,
                  const char      *failure)
{
  g_autofree char *quoted = natter_openai_quote_server_text (failure, -1);
  g_autofree char *lower = g_ascii_strdown (failure, -1);
  NatterOpenaiProvider *provider = self->provider;

  if (strstr (lower, "no space left on device") != NULL || strstr (lower, "disk full") != NULL)
    return natter_openai_provider_error (provider, NATTER_PROVIDER_ERROR_DISK_FULL,
                                         "The disk of %s at %s is full: “%s” could not be pulled. "
                                         "Delete a model there or free space, then pull it again (%s)",
                                         provider->display_name, provider->display_base, self->name, quoted);
  if (strstr (lower, "file does not exist") != NULL || strstr (lower, "not found") != NULL)
    return natter_openai_provider_error (provider, NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND,
                                         "%s found no model “%s” to pull: check the name in the Ollama "
                                         "library (%s)", provider->display_name, self->name, quoted);
  return natter_openai_provider_error (provider, NATTER_PROVIDER_ERROR_STREAM_ERROR,
                                       "%s could not pull “%s”: %s", provider->display_name, self->name, quoted);
}

/* One line of the stream: a status with its bytes, or the server's
 * error. */
static void
line_cb (const char  *line,
         gsize        len,
         gpointer     user_data,
         GError     **error)
{
  NatterModelPull *self = user_data;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *object;
  const char *status;
  const char *failure;
  const char *digest;

  if (!natter_json_parser_load_external (parser, line, len, NULL)
      || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      *error = natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_BAD_RESPONSE,
                                             "%s sent a progress line that is not a JSON object",
                                             self->provider->display_name);
      return;
    }
  object = json_node_get_object (json_parser_get_root (parser));
  failure = natter_json_loose_string (object, "error");
  if (failure != NULL)
    {
      *error = describe_failure (self, failure);
      return;
    }

  g_object_freeze_notify (G_OBJECT (self));
  status = natter_json_loose_string (object, "status");
  if (status != NULL)
    {
      g_autofree char *quoted = natter_openai_quote_server_text (status, -1);

      if (g_strcmp0 (quoted, self->status) != 0)
        {
          g_free (self->status);
          self->status = g_steal_pointer (&quoted);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
        }
    }
  if (g_strcmp0 (status, "success") == 0)
    self->said_success = TRUE;
  digest = natter_json_loose_string (object, "digest");
  if (digest != NULL && digest[0] != '\0' && count_member (object, "total") > 0)
    {
      NatterModelPullLayer *layer = find_layer (self, digest);
      gint64 total = count_member (object, "total");
      /* Ollama leaves `completed` out until the first bytes arrived. */
      gint64 completed = CLAMP (count_member (object, "completed"), 0, total);

      if (layer->total != total)
        {
          layer->total = total;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOTAL]);
        }
      if (layer->completed != completed)
        {
          layer->completed = completed;
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPLETED]);
        }
    }
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit (self, signals[PROGRESS], 0);
}

static void
settle (NatterModelPull      *self,
        NatterModelPullState  state,
        GError               *error)
{
  g_assert (self->state == NATTER_MODEL_PULL_RUNNING);

  g_debug ("Pull of %s from %s: %s", self->name, self->provider->id,
           error != NULL ? error->message : state == NATTER_MODEL_PULL_SUCCEEDED ? "done" : "cancelled");
  self->error = error;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static void
pulled_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterModelPull) self = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_CANCELLED))
        {
          g_error_free (error);
          settle (self, NATTER_MODEL_PULL_CANCELLED, NULL);
          return;
        }
      if (g_error_matches (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM))
        {
          /* The call's words are about an answer; this was a download. */
          g_clear_error (&error);
          error = natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                                                "The connection to %s at %s was lost while pulling “%s”; "
                                                "pulling it again goes on where it stopped",
                                                self->provider->display_name, self->provider->display_base,
                                                self->name);
        }
      settle (self, NATTER_MODEL_PULL_FAILED, error);
      return;
    }
  if (!self->said_success)
    {
      settle (self, NATTER_MODEL_PULL_FAILED,
              natter_openai_provider_error (self->provider, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                                            "%s stopped answering before “%s” was pulled; "
                                            "pulling it again goes on where it stopped",
                                            self->provider->display_name, self->name));
      return;
    }
  settle (self, NATTER_MODEL_PULL_SUCCEEDED, NULL);
}

/**
 * natter_model_pull_start:
 * @provider: the provider whose server pulls (its session, key, idle
 *   timeout and name for messages are used)
 * @native_root: the root of the server's own API, e.g.
 *   "http://localhost:11434" for Ollama's OpenAI API at ".../v1"
 * @name: the model to pull, as Ollama's library names it ("llama3.2",
 *   "qwen2.5:7b")
 *
 * Starts `POST {native_root}/api/pull` at once: the pull runs whether or
 * not anyone holds the returned object, until the server is done, fails
 * or natter_model_pull_cancel() stops it. Its properties follow the
 * stream; #NatterModelPull::progress is emitted per line and
 * #NatterModelPull:state is notified once when it settles. Ollama keeps
 * what a stopped pull downloaded: pulling the same model again goes on
 * where it stopped.
 *
 * Returns: (transfer full): the running pull
 */
NatterModelPull *
natter_model_pull_start (NatterOpenaiProvider *provider,
                         const char           *native_root,
                         const char           *name)
{
  NatterModelPull *self;
  g_autoptr(JsonObject) request = json_object_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *url = NULL;
  GBytes *body;
  char *text;
  gsize len;
  GTask *task;

  g_return_val_if_fail (NATTER_IS_OPENAI_PROVIDER (provider), NULL);
  g_return_val_if_fail (native_root != NULL, NULL);
  g_return_val_if_fail (name != NULL && name[0] != '\0', NULL);

  self = g_object_new (NATTER_TYPE_MODEL_PULL, NULL);
  self->provider = g_object_ref (provider);
  self->name = g_strdup (name);

  /* `model` is the documented name; Ollama before 0.1.32 read `name`. */
  json_object_set_string_member (request, "model", name);
  json_object_set_string_member (request, "name", name);
  json_object_set_boolean_member (request, "stream", TRUE);
  node = json_node_init_object (json_node_alloc (), request);
  text = natter_json_to_text (node, FALSE, &len);
  body = g_bytes_new_take (text, len);
  url = g_strconcat (native_root, "/api/pull", NULL);

  task = g_task_new (provider, self->cancellable, pulled_cb, g_object_ref (self));
  natter_openai_call_start_lines (provider, task, SOUP_METHOD_POST, url, body, line_cb, self, self->cancellable);
  g_bytes_unref (body);
  return self;
}

/**
 * natter_model_pull_get_name:
 * @self: a pull
 *
 * Returns: (transfer none): the model being pulled
 */
const char *
natter_model_pull_get_name (NatterModelPull *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NULL);
  return self->name;
}

/**
 * natter_model_pull_get_state:
 * @self: a pull
 *
 * Returns: where the pull stands
 */
NatterModelPullState
natter_model_pull_get_state (NatterModelPull *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NATTER_MODEL_PULL_FAILED);
  return self->state;
}

/**
 * natter_model_pull_get_status:
 * @self: a pull
 *
 * Returns: (transfer none) (nullable): the server's last status, one
 *   line of at most 300 characters
 */
const char *
natter_model_pull_get_status (NatterModelPull *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NULL);
  return self->status;
}

/**
 * natter_model_pull_dup_short_status:
 * @self: a pull
 *
 * The server's last status as Ollama's own command line shows it: a
 * layer's digest cut to its first 12 hexadecimal digits ("pulling
 * dde5aa3fc5ff"), anything else as the server said it.
 *
 * Returns: (transfer full) (nullable): the status, %NULL before the first
 */
char *
natter_model_pull_dup_short_status (NatterModelPull *self)
{
  const char *digest;

  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NULL);

  if (self->status == NULL)
    return NULL;
  digest = strstr (self->status, "sha256:");
  if (digest == NULL || strlen (digest) < strlen ("sha256:") + 12)
    return g_strdup (self->status);
  return g_strdup_printf ("%.*s%.12s", (int) (digest - self->status), self->status, digest + strlen ("sha256:"));
}

/**
 * natter_model_pull_get_completed:
 * @self: a pull
 *
 * Returns: bytes downloaded over every layer reported so far
 */
gint64
natter_model_pull_get_completed (NatterModelPull *self)
{
  gint64 sum = 0;

  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), 0);

  for (guint i = 0; i < self->layers->len; i++)
    sum += g_array_index (self->layers, NatterModelPullLayer, i).completed;
  return sum;
}

/**
 * natter_model_pull_get_total:
 * @self: a pull
 *
 * Returns: the size in bytes of every layer reported so far; 0 before
 *   the first
 */
gint64
natter_model_pull_get_total (NatterModelPull *self)
{
  gint64 sum = 0;

  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), 0);

  for (guint i = 0; i < self->layers->len; i++)
    sum += g_array_index (self->layers, NatterModelPullLayer, i).total;
  return sum;
}

/**
 * natter_model_pull_get_n_layers:
 * @self: a pull
 *
 * Returns: how many layers the server has reported, in the order it
 *   started them
 */
guint
natter_model_pull_get_n_layers (NatterModelPull *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), 0);
  return self->layers->len;
}

/**
 * natter_model_pull_get_layer:
 * @self: a pull
 * @index: a layer's position, below natter_model_pull_get_n_layers()
 *
 * Returns: (transfer none): the layer as last reported; valid until the
 *   next #NatterModelPull::progress
 */
const NatterModelPullLayer *
natter_model_pull_get_layer (NatterModelPull *self,
                             guint            index)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NULL);
  g_return_val_if_fail (index < self->layers->len, NULL);
  return &g_array_index (self->layers, NatterModelPullLayer, index);
}

/**
 * natter_model_pull_get_error:
 * @self: a pull
 *
 * Returns: (transfer none) (nullable): why a %NATTER_MODEL_PULL_FAILED
 *   pull failed: a %NATTER_PROVIDER_ERROR whose message names the server
 *   and, where it said one, its reason (%NATTER_PROVIDER_ERROR_STREAM_ERROR
 *   for the server's `{"error"}` line, or %NATTER_PROVIDER_ERROR_DISK_FULL
 *   and %NATTER_PROVIDER_ERROR_MODEL_NOT_FOUND where it says so;
 *   %NATTER_PROVIDER_ERROR_HTTP for a
 *   refusal, %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM for a stream that
 *   ended or broke before "success", …); %NULL otherwise
 */
const GError *
natter_model_pull_get_error (NatterModelPull *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PULL (self), NULL);
  return self->error;
}

/**
 * natter_model_pull_cancel:
 * @self: a pull
 *
 * Stops a running pull: the request is aborted at once, no progress is
 * reported after this, and the state becomes
 * %NATTER_MODEL_PULL_CANCELLED. Does nothing once the pull settled.
 */
void
natter_model_pull_cancel (NatterModelPull *self)
{
  g_return_if_fail (NATTER_IS_MODEL_PULL (self));

  g_cancellable_cancel (self->cancellable);
}
