/* natter-turn-context-resolver.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The context resolver over the turn repository (docs/runtime.md §11).
 *
 * The walk runs on the main context; only the file reads go to the repo's
 * worker threads. JSON objects are therefore never shared across threads
 * (json-glib's reference counts are not atomic).
 *
 * Terminal turns are immutable, so each one's *segment* — its own input
 * and the messages it produced (plus the inline context when it is the
 * base of a chain), and the turn it continues — is cached by turn id for
 * the life of the resolver. A materialization walks the chain through the
 * cache and reads only turns it has not seen, so the next message of a
 * long session reads one file; assembling the transcript is one linear
 * copy. Caching segments rather than whole transcripts keeps the cache
 * linear in the session's length. Every turn of a chain has ended: a turn
 * is only ever continued once it has (a message waits for the answer
 * before it, a branch or a version for the turn it goes on from), so one
 * that has not is a file that lost its last lines (or an older copy of
 * it), and its transcript would be the history without its answer: the
 * chain is refused, as for any damaged link. A terminal turn's file can still be changed by
 * someone else (a synchroniser, a damaged disk, a person's editor): its
 * segment is then forgotten (natter_context_resolver_forget()) and the
 * file read again, so a history that can no longer be read is refused
 * rather than sent from memory.
 */

#define G_LOG_DOMAIN "natter-turn-context-resolver"

#include "natter-json.h"
#include "natter-log-read.h"
#include "natter-request-composer.h"
#include "natter-runtime-error.h"
#include "natter-store-error.h"
#include "natter-turn-context-resolver.h"
#include "natter-turn-reducer.h"

struct _NatterTurnContextResolver
{
  GObject          parent_instance;

  NatterJsonlRepo *repo;
  GHashTable      *cache;    /* turn id → Segment, terminal turns only */
  GPtrArray       *retired;  /* Segment: forgotten, kept for walks in flight */
  guint            n_reads;
};

static void context_resolver_iface_init (NatterContextResolverInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterTurnContextResolver, natter_turn_context_resolver, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_CONTEXT_RESOLVER,
                                                      context_resolver_iface_init))

/* One turn's contribution to a transcript. Immutable once built. */
typedef struct
{
  char      *previous;   /* the turn it continues, or NULL at a chain's base */
  JsonArray *base;       /* the inline context at a chain's base, else NULL */
  JsonArray *own;        /* its input, answers and tool results */
} Segment;

static void
segment_free (Segment *segment)
{
  g_free (segment->previous);
  g_clear_pointer (&segment->base, json_array_unref);
  g_clear_pointer (&segment->own, json_array_unref);
  g_free (segment);
}

typedef struct
{
  char       *next_id;    /* the turn to look up next, NULL when done */
  GPtrArray  *segments;   /* Segment, from the requested turn down; not owned */
  GHashTable *seen;       /* turn ids on the chain */
} Materialize;

static void
materialize_free (Materialize *m)
{
  g_free (m->next_id);
  g_clear_pointer (&m->segments, g_ptr_array_unref);
  g_clear_pointer (&m->seen, g_hash_table_unref);
  g_free (m);
}

static void step (GTask *task);

/* Concatenates the segments from the base of the chain up. */
static void
assemble (GTask *task)
{
  Materialize *m = g_task_get_task_data (task);
  JsonArray *transcript = json_array_new ();

  for (guint i = m->segments->len; i > 0; i--)
    {
      Segment *segment = g_ptr_array_index (m->segments, i - 1);

      natter_json_array_add_copies (transcript, segment->base);
      natter_json_array_add_copies (transcript, segment->own);
    }
  g_task_return_pointer (task, transcript, (GDestroyNotify) json_array_unref);
}

static void
read_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterTurnContextResolver *self = g_task_get_source_object (task);
  Materialize *m = g_task_get_task_data (task);
  g_autofree char *turn_id = g_steal_pointer (&m->next_id);
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) state = NULL;
  g_autoptr(GError) error = NULL;
  Segment *segment;
  JsonNode *context;

  state = natter_turn_reduce_file_finish (NATTER_JSONL_REPO (object), result, &events, &error);
  if (state == NULL)
    {
      /* A missing or corrupt link breaks the transcript: an
       * infrastructure error, never a silently shorter context. A link
       * still on its way from another device (docs/format.md §9.3) is
       * no damage: its own error says so. */
      if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        g_task_return_error (task, g_steal_pointer (&error));
      else if (g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND))
        g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                                 "The history is damaged: it refers to turn %s, but %s",
                                 turn_id, error->message);
      else
        g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                                 "Earlier turn %s cannot be read: %s", turn_id, error->message);
      return;
    }

  if (natter_turn_state_get_terminal_event (state) == NULL)
    {
      /* An earlier link that never ended lost its last lines; in a
       * folder a synchroniser shares it may be an older copy of a file
       * on its way (docs/format.md §9.3), no damage: its own error says
       * so. */
      GError *lost = natter_jsonl_repo_end_lost_error (NATTER_JSONL_REPO (object), turn_id);

      if (g_error_matches (lost, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_ARRIVED))
        g_task_return_error (task, lost);
      else
        {
          g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                                   "Earlier turn %s cannot be read: %s", turn_id, lost->message);
          g_error_free (lost);
        }
      return;
    }

  segment = g_new0 (Segment, 1);
  segment->own = natter_build_closed_transcript (state, NULL, &error);
  if (segment->own == NULL)
    {
      segment_free (segment);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  context = json_object_get_member (natter_turn_state_get_definition (state), "context");
  if (JSON_NODE_HOLDS_ARRAY (context))
    segment->base = json_array_ref (json_node_get_array (context));
  else
    segment->previous = g_strdup (json_object_get_string_member (json_node_get_object (context),
                                                                 "previousTurnId"));

  if (g_hash_table_contains (self->cache, turn_id))
    {
      /* A concurrent materialization cached it meanwhile; segments in
       * the cache are never replaced, since walks in flight point at
       * them. */
      segment_free (segment);
      segment = g_hash_table_lookup (self->cache, turn_id);
    }
  else
    {
      g_hash_table_insert (self->cache, g_strdup (turn_id), segment);
    }
  g_ptr_array_add (m->segments, segment);
  m->next_id = g_strdup (segment->previous);
  step (task);
}

static void
step (GTask *task)
{
  NatterTurnContextResolver *self = g_task_get_source_object (task);
  Materialize *m = g_task_get_task_data (task);

  /* Cached links cost no I/O; walk them here. */
  while (m->next_id != NULL)
    {
      Segment *cached;

      if (!g_hash_table_add (m->seen, g_strdup (m->next_id)))
        {
          g_task_return_new_error (task, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_CONTEXT,
                                   "The context chain returns to turn “%s”", m->next_id);
          return;
        }
      cached = g_hash_table_lookup (self->cache, m->next_id);
      if (cached == NULL)
        {
          self->n_reads++;
          natter_turn_reduce_file_async (self->repo, m->next_id, g_task_get_cancellable (task),
                                        read_cb, g_object_ref (task));
          return;
        }
      g_ptr_array_add (m->segments, cached);
      g_free (m->next_id);
      m->next_id = g_strdup (cached->previous);
    }
  assemble (task);
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
  m->next_id = g_strdup (previous_turn_id);
  m->segments = g_ptr_array_new ();
  m->seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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

/* A walk in flight may hold the segment: it is kept, unreachable, for the
 * resolver's life. Files changed under it are few (each one a change
 * another writer made to an ended turn). */
static void
natter_turn_context_resolver_forget (NatterContextResolver *resolver,
                                     const char            *turn_id)
{
  NatterTurnContextResolver *self = NATTER_TURN_CONTEXT_RESOLVER (resolver);
  gpointer key, segment;

  if (g_hash_table_steal_extended (self->cache, turn_id, &key, &segment))
    {
      g_free (key);
      g_ptr_array_add (self->retired, segment);
    }
}

static void
context_resolver_iface_init (NatterContextResolverInterface *iface)
{
  iface->materialize_async = natter_turn_context_resolver_materialize_async;
  iface->materialize_finish = natter_turn_context_resolver_materialize_finish;
  iface->forget = natter_turn_context_resolver_forget;
}

static void
natter_turn_context_resolver_finalize (GObject *object)
{
  NatterTurnContextResolver *self = NATTER_TURN_CONTEXT_RESOLVER (object);

  g_clear_object (&self->repo);
  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_clear_pointer (&self->retired, g_ptr_array_unref);

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
                                       (GDestroyNotify) segment_free);
  self->retired = g_ptr_array_new_with_free_func ((GDestroyNotify) segment_free);
}

/**
 * natter_turn_context_resolver_new:
 * @turn_repo: the turn repository
 *
 * Implements docs/runtime.md §11, with its cache of terminal turns.
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
 * Part of docs/runtime.md §11.
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
