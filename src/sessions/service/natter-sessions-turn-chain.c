/* natter-sessions-turn-chain.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A conversation's history as its turn files hold it: each turn's
 * context names the turn before it, back to a turn whose context is
 * inline (docs/sessions.md §9.1). Walking that chain backwards is what
 * compaction summarizes and keeps (docs/sessions.md §5), and what a
 * version shows above its own turns once the conversation it was made
 * from is deleted (the turn files stay).
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-archive.h"
#include "natter-sessions-private.h"

/* Walking a conversation's reference chain backwards */

typedef struct
{
  NatterSessions *self;
  char           *next;        /* the turn to read next, or NULL at the chain's start */
  char           *stop_at;     /* read up to and including this turn, or NULL */
  guint           max_turns;   /* or at most this many (with stop_at NULL) */
  gboolean        must_reach;  /* a chain that ends before stop_at is an error */
  gboolean        reached;     /* stop_at was read */
  GPtrArray      *turns;       /* NatterTurnState, newest first */
} Walk;

static void
walk_free (Walk *walk)
{
  g_object_unref (walk->self);
  g_free (walk->next);
  g_free (walk->stop_at);
  g_ptr_array_unref (walk->turns);
  g_free (walk);
}

static void walk_step (GTask *task);

static void
walk_read_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Walk *walk = g_task_get_task_data (task);
  NatterTurnState *turn;
  GError *error = NULL;
  gboolean reached;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Every turn but the first read is gone on from: one without its end
   * lost its answer, and a summary or a context built on it would be
   * silently short (docs/runtime.md §11). The first, the latest, is
   * the caller's to judge. */
  if (walk->turns->len > 0 && natter_turn_state_get_terminal_event (turn) == NULL)
    {
      g_task_return_error (task, natter_sessions_end_lost_error (walk->self, natter_turn_state_get_turn_id (turn)));
      natter_turn_state_unref (turn);
      return;
    }
  g_ptr_array_add (walk->turns, turn);
  reached = walk->stop_at != NULL && g_str_equal (walk->stop_at, natter_turn_state_get_turn_id (turn));
  walk->reached = reached;
  g_clear_pointer (&walk->next, g_free);
  walk->next = g_strdup (natter_turn_definition_get_previous_turn_id (natter_turn_state_get_definition (turn)));
  if (reached || (walk->stop_at == NULL && walk->turns->len >= walk->max_turns))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  walk_step (g_steal_pointer (&task));
}

/* Takes over @owned's reference. */
static void
walk_step (GTask *owned)
{
  g_autoptr(GTask) task = owned;
  Walk *walk = g_task_get_task_data (task);

  if (walk->next == NULL)
    {
      if (walk->stop_at != NULL && walk->must_reach)
        g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                                 "The compaction keeps turn %s, which is not in this conversation's history",
                                 walk->stop_at);
      else
        g_task_return_boolean (task, TRUE);
      return;
    }
  natter_sessions_read_turn_async (walk->self, walk->next, NULL, walk_read_cb, g_steal_pointer (&task));
}

/**
 * natter_sessions_walk_back_async: (skip)
 * @self: the service
 * @from: the newest turn to read
 * @stop_at: (nullable): read up to and including this turn, which must
 *   be on the chain
 * @max_turns: with @stop_at %NULL, read at most this many
 * @must_reach: whether a chain that ends before @stop_at is an error
 * @callback: called when the turns are read
 * @user_data: for @callback
 *
 * Reads turns backwards along the reference chain from @from (each
 * turn's context names the turn before it): up to and including
 * @stop_at (or to the chain's start, when @must_reach is %FALSE), or
 * @max_turns of them. Only those turn files are read.
 * Every turn read but the first must have ended (docs/sessions.md §5).
 */
void
natter_sessions_walk_back_async (NatterSessions      *self,
                                 const char          *from,
                                 const char          *stop_at,
                                 guint                max_turns,
                                 gboolean             must_reach,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  Walk *walk = g_new0 (Walk, 1);

  walk->self = g_object_ref (self);
  walk->next = g_strdup (from);
  walk->stop_at = g_strdup (stop_at);
  walk->max_turns = max_turns;
  walk->must_reach = must_reach;
  walk->turns = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_state_unref);
  g_task_set_task_data (task, walk, (GDestroyNotify) walk_free);
  walk_step (task);
}

/**
 * natter_sessions_walk_back_finish: (skip)
 * @result: the result passed to the callback
 * @out_previous: (out) (optional) (nullable) (transfer full): the turn
 *   before the oldest read, %NULL at the chain's start
 * @out_reached: (out) (optional): whether @stop_at was read
 * @error: return location for a #GError: a turn that cannot be read, an
 *   earlier turn that lost its end, or %NATTER_SESSION_ERROR_CORRUPT for
 *   a chain that ends before @stop_at
 *
 * Returns: (transfer container) (element-type NatterTurnState): the
 *   turns read, newest first, or %NULL with @error set
 */
GPtrArray *
natter_sessions_walk_back_finish (GAsyncResult  *result,
                                  char         **out_previous,
                                  gboolean      *out_reached,
                                  GError       **error)
{
  Walk *walk = g_task_get_task_data (G_TASK (result));

  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  if (out_previous != NULL)
    *out_previous = g_strdup (walk->next);
  if (out_reached != NULL)
    *out_reached = walk->reached;
  return g_ptr_array_ref (walk->turns);
}

/* A chain longer than this is taken for a loop in damaged files. */
#define MAX_HISTORY_TURNS 100000

static void
read_history_cb (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GPtrArray) turns = NULL;
  g_autofree char *previous = NULL;
  GError *error = NULL;
  GPtrArray *oldest_first;

  turns = natter_sessions_walk_back_finish (result, &previous, NULL, &error);
  if (turns == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (previous != NULL)
    {
      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                               "The history before turn %s goes back more than %u turns",
                               natter_turn_state_get_turn_id (g_ptr_array_index (turns, turns->len - 1)),
                               MAX_HISTORY_TURNS);
      return;
    }
  oldest_first = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_turn_state_unref);
  for (guint i = turns->len; i > 0; i--)
    g_ptr_array_add (oldest_first, natter_turn_state_ref (g_ptr_array_index (turns, i - 1)));
  g_task_return_pointer (task, oldest_first, (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_sessions_read_history_async:
 * @self: a #NatterSessions
 * @turn_id: the newest turn of the history
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the history is read
 * @user_data: data for @callback
 *
 * Reads the history a model receives up to and including @turn_id from
 * the turn files alone: @turn_id, then each turn its context refers to,
 * back to a turn whose context is inline (docs/sessions.md §9.1). This
 * is what a fork shows above its own turns once the session it was made
 * from is deleted: a delete keeps the turn files, so the model still
 * receives these turns.
 */
void
natter_sessions_read_history_async (NatterSessions      *self,
                                    const char          *turn_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  natter_sessions_walk_back_async (self, turn_id, NULL, MAX_HISTORY_TURNS, TRUE, read_history_cb, task);
}

/**
 * natter_sessions_read_history_finish:
 * @self: a #NatterSessions
 * @result: the result passed to the callback
 * @error: return location for an error: a turn that cannot be read, an
 *   earlier turn that lost its end, or a chain too long to be real
 *
 * Returns: (transfer container) (element-type NatterTurnState): the
 *   turns, oldest first, or %NULL with @error set
 */
GPtrArray *
natter_sessions_read_history_finish (NatterSessions  *self,
                                     GAsyncResult    *result,
                                     GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
