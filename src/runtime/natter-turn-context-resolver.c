/* natter-turn-context-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The context resolver over the turn repository (turn-runtime.md §11).
 *
 * The walk runs on the main context; only the file reads go to the repo's
 * worker threads. JSON objects are therefore never shared across threads
 * (json-glib's reference counts are not atomic).
 *
 * Terminal turns are immutable, so their closed transcripts are cached by
 * turn id for the life of the resolver; a long session then reads only
 * the turns it has not materialized before. Non-terminal turns are read
 * every time.
 */

#define G_LOG_DOMAIN "natter-turn-context-resolver"

#include "natter-request-composer.h"
#include "natter-runtime-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"

struct _NatterTurnContextResolver
{
  GObject          parent_instance;

  NatterJsonlRepo *repo;
  GHashTable      *cache;    /* turn id → JsonArray, terminal turns only */
  guint            n_reads;
};

static void context_resolver_iface_init (NatterContextResolverInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterTurnContextResolver, natter_turn_context_resolver, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_CONTEXT_RESOLVER,
                                                      context_resolver_iface_init))

typedef struct
{
  GPtrArray  *chain;      /* turn ids from the requested one down, owned */
  GPtrArray  *states;     /* NatterTurnState per chain entry, NULL if cached */
  GHashTable *seen;       /* turn ids on the chain */
  JsonArray  *base;       /* the transcript below the last chain entry */
} Materialize;

static void
materialize_free (Materialize *m)
{
  g_clear_pointer (&m->chain, g_ptr_array_unref);
  g_clear_pointer (&m->states, g_ptr_array_unref);
  g_clear_pointer (&m->seen, g_hash_table_unref);
  g_clear_pointer (&m->base, json_array_unref);
  g_free (m);
}

static void step (GTask *task);

/* Builds the transcripts from the base of the chain up to the requested
 * turn, caching each terminal one. */
static void
unwind (GTask *task)
{
  NatterTurnContextResolver *self = g_task_get_source_object (task);
  Materialize *m = g_task_get_task_data (task);
  g_autoptr(JsonArray) transcript = m->base != NULL ? json_array_ref (m->base) : NULL;

  for (guint i = m->states->len; i > 0; i--)
    {
      NatterTurnState *state = g_ptr_array_index (m->states, i - 1);
      JsonObject *definition = natter_turn_state_get_definition (state);
      JsonNode *context = json_object_get_member (definition, "context");
      g_autoptr(GError) error = NULL;
      JsonArray *next;

      /* The base of the chain has inline context; every other turn is
       * prefixed by the transcript below it. */
      next = natter_build_closed_transcript (state,
                                             JSON_NODE_HOLDS_ARRAY (context)
                                             ? json_node_get_array (context) : transcript,
                                             &error);
      if (next == NULL)
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      g_clear_pointer (&transcript, json_array_unref);
      transcript = next;
      if (natter_turn_state_get_terminal_event (state) != NULL)
        g_hash_table_replace (self->cache, g_strdup (g_ptr_array_index (m->chain, i - 1)),
                              json_array_ref (transcript));
    }
  g_task_return_pointer (task, g_steal_pointer (&transcript), (GDestroyNotify) json_array_unref);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Materialize *m = g_task_get_task_data (task);
  const char *turn_id = g_ptr_array_index (m->chain, m->chain->len - 1);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *context;

  events = natter_jsonl_repo_read_finish (NATTER_JSONL_REPO (object), result, &error);
  if (events != NULL)
    state = natter_turn_reduce (events, &error);
  if (state == NULL)
    {
      /* A missing or corrupt link breaks the transcript: an
       * infrastructure error, never a silently shorter context. */
      g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                               "Context turn “%s” cannot be read: %s", turn_id, error->message);
      return;
    }

  context = json_object_get_member (natter_turn_state_get_definition (state), "context");
  g_ptr_array_add (m->states, g_steal_pointer (&state));
  if (JSON_NODE_HOLDS_ARRAY (context))
    {
      unwind (task);
      return;
    }
  g_ptr_array_add (m->chain,
                   g_strdup (json_object_get_string_member (json_node_get_object (context),
                                                            "previousTurnId")));
  step (task);
}

static void
step (GTask *task)
{
  NatterTurnContextResolver *self = g_task_get_source_object (task);
  Materialize *m = g_task_get_task_data (task);
  const char *turn_id = g_ptr_array_index (m->chain, m->chain->len - 1);
  JsonArray *cached;

  if (!g_hash_table_add (m->seen, (gpointer) turn_id))
    {
      g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                               "The context chain returns to turn “%s”", turn_id);
      return;
    }

  cached = g_hash_table_lookup (self->cache, turn_id);
  if (cached != NULL)
    {
      /* The chain entry is served by the cache: it is the base. */
      g_free (g_ptr_array_steal_index (m->chain, m->chain->len - 1));
      m->base = json_array_ref (cached);
      unwind (task);
      return;
    }

  self->n_reads++;
  natter_jsonl_repo_read_async (self->repo, turn_id, g_task_get_cancellable (task),
                                read_cb, g_object_ref (task));
}

static void
natter_turn_context_resolver_materialize_async (NatterContextResolver *resolver,
                                                const char            *previous_turn_id,
                                                GCancellable          *cancellable,
                                                GAsyncReadyCallback    callback,
                                                gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (resolver, cancellable, callback, user_data);
  Materialize *m = g_new0 (Materialize, 1);

  g_task_set_source_tag (task, natter_turn_context_resolver_materialize_async);
  m->chain = g_ptr_array_new_with_free_func (g_free);
  m->states = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_state_unref);
  m->seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (m->chain, g_strdup (previous_turn_id));
  g_task_set_task_data (task, m, (GDestroyNotify) materialize_free);
  step (task);
}

static JsonArray *
natter_turn_context_resolver_materialize_finish (NatterContextResolver  *resolver,
                                                 GAsyncResult           *result,
                                                 GError                **error)
{
  g_return_val_if_fail (g_task_is_valid (result, resolver), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
context_resolver_iface_init (NatterContextResolverInterface *iface)
{
  iface->materialize_async = natter_turn_context_resolver_materialize_async;
  iface->materialize_finish = natter_turn_context_resolver_materialize_finish;
}

static void
natter_turn_context_resolver_finalize (GObject *object)
{
  NatterTurnContextResolver *self = NATTER_TURN_CONTEXT_RESOLVER (object);

  g_clear_object (&self->repo);
  g_clear_pointer (&self->cache, g_hash_table_unref);

  G_OBJECT_CLASS (natter_turn_context_resolver_parent_class)->finalize (object);
}

static void
natter_turn_context_resolver_class_init (NatterTurnContextResolverClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_turn_context_resolver_finalize;
}

static void
natter_turn_context_resolver_init (NatterTurnContextResolver *self)
{
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) json_array_unref);
}

/**
 * natter_turn_context_resolver_new:
 * @turn_repo: the turn repository
 *
 * Returns: (transfer full): a context resolver reading @turn_repo, with
 *   an empty cache
 */
NatterTurnContextResolver *
natter_turn_context_resolver_new (NatterJsonlRepo *turn_repo)
{
  NatterTurnContextResolver *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (turn_repo), NULL);

  self = g_object_new (NATTER_TYPE_TURN_CONTEXT_RESOLVER, NULL);
  self->repo = g_object_ref (turn_repo);
  return self;
}

/**
 * natter_turn_context_resolver_get_n_reads:
 * @self: a #NatterTurnContextResolver
 *
 * Returns: how many turn files this resolver has read, for tests and
 *   benchmarks of the cache
 */
guint
natter_turn_context_resolver_get_n_reads (NatterTurnContextResolver *self)
{
  g_return_val_if_fail (NATTER_IS_TURN_CONTEXT_RESOLVER (self), 0);

  return self->n_reads;
}
