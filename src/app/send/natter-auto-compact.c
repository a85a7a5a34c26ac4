/* natter-auto-compact.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The `auto-compact` setting at work: before a message goes to a session,
 * read the latest turn's last model call; when its prompt (`inputTokens`)
 * passed 80% of the model's context window — the one the user set in
 * `context-windows`, else the one the server reports — compact keeping
 * the last 2 turns. The window stays unknown for a server that does not
 * say, and then nothing happens: guessing could compact too early.
 *
 * A conversation of no more turns than are kept has nothing to summarize:
 * it is not tried (and nothing is told) however full the window. A failed
 * compaction is told once per session while the sessions live: the next
 * sends try again, since the server may be back, but stay quiet about it.
 */

#define G_LOG_DOMAIN "natter-app"

#include "natter-auto-compact.h"

#include "natter-session-archive.h"
#include "natter-turn-reducer.h"

#define KEEP_TURNS 2

/* The sessions whose last automatic compaction failed and was told:
 * a set of session ids kept on the NatterSessions. */
#define FAILED_KEY "natter-auto-compact-failed"

typedef struct
{
  NatterSessions         *sessions;
  NatterProviderRegistry *registry;
  NatterSettings         *settings;
  char           *session_id;
  char           *provider;
  char           *model;
  gint64          prompt_tokens;
  guint           n_chain;     /* turns of the latest's reference chain read so far */
  char           *previous;    /* the next one back, or NULL where the chain starts */
} AutoCompact;

static void
auto_compact_free (AutoCompact *data)
{
  g_object_unref (data->sessions);
  g_clear_object (&data->registry);
  g_object_unref (data->settings);
  g_free (data->session_id);
  g_free (data->provider);
  g_free (data->model);
  g_free (data->previous);
  g_free (data);
}

static GHashTable *
failed_sessions (NatterSessions *sessions)
{
  GHashTable *failed = g_object_get_data (G_OBJECT (sessions), FAILED_KEY);

  if (failed == NULL)
    {
      failed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      g_object_set_data_full (G_OBJECT (sessions), FAILED_KEY, failed, (GDestroyNotify) g_hash_table_unref);
    }
  return failed;
}

static void
compacted_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AutoCompact *data = g_task_get_task_data (task);
  GHashTable *failed = failed_sessions (data->sessions);
  GError *error = NULL;
  char *compaction_id = natter_sessions_compact_finish (NATTER_SESSIONS (source), result, &error);

  if (compaction_id != NULL)
    {
      g_hash_table_remove (failed, data->session_id);
      g_task_return_pointer (task, compaction_id, g_free);
      return;
    }
  /* The user learns once why a full conversation goes whole; telling it
   * again on every message would only repeat it. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || g_hash_table_add (failed, g_strdup (data->session_id)))
    {
      g_task_return_error (task, error);
      return;
    }
  g_debug ("automatic compaction of %s failed again: %s", data->session_id, error->message);
  g_error_free (error);
  g_task_return_pointer (task, NULL, NULL);
}

/* The turn whose transcript @turn's context refers to, or NULL where
 * the context is inline: the chain starts again there. */
static char *
previous_turn_id (NatterTurnState *turn)
{
  return g_strdup (natter_turn_definition_get_previous_turn_id (natter_turn_state_get_definition (turn)));
}

/* The turn natter_sessions_get_turn_async() read, or %NULL where it
 * could not be read or folded. */
static NatterTurnState *
turn_read_finish (GObject      *source,
                  GAsyncResult *result)
{
  return natter_sessions_get_turn_reduced_finish (NATTER_SESSIONS (source), result, NULL);
}

static void check_chain (GTask *task);

static void
chain_turn_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AutoCompact *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = turn_read_finish (source, result);

  g_clear_pointer (&data->previous, g_free);
  /* An unreadable history is the compaction's to report: it is tried. */
  if (turn == NULL)
    data->n_chain = KEEP_TURNS + 1;
  else
    {
      data->n_chain++;
      data->previous = previous_turn_id (turn);
    }
  check_chain (g_steal_pointer (&task));
}

/* Takes @owned. Follows the reference chain back from the latest turn,
 * as the compaction itself does (natter_sessions_compact_async()), until
 * more turns than are kept are found, then compacts; a chain that ends
 * first (a new conversation, or one compacted a turn ago) leaves nothing
 * to summarize, and nothing is tried. At most KEEP_TURNS + 1 turns are
 * read. */
static void
check_chain (GTask *owned)
{
  g_autoptr(GTask) task = owned;
  AutoCompact *data = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (data->n_chain > KEEP_TURNS)
    {
      natter_sessions_compact_async (data->sessions, data->session_id, KEEP_TURNS, cancellable, compacted_cb,
                                     g_steal_pointer (&task));
      return;
    }
  if (data->previous == NULL)
    {
      g_debug ("%s: %u turns since the context restarted, nothing before the last %u",
               data->session_id, data->n_chain, KEEP_TURNS);
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  natter_sessions_get_turn_async (data->sessions, data->previous, cancellable, chain_turn_cb,
                                  g_steal_pointer (&task));
}

static void
decide (GTask  *task,
        gint64  window)
{
  AutoCompact *data = g_task_get_task_data (task);

  g_debug ("%s/%s: last prompt %" G_GINT64_FORMAT " tokens of a %" G_GINT64_FORMAT "-token window",
           data->provider, data->model, data->prompt_tokens, window);
  if (window <= 0 || data->prompt_tokens * 100 <= window * NATTER_AUTO_COMPACT_PERCENT)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  check_chain (g_object_ref (task));
}

static void
window_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  gint64 window = natter_openai_provider_context_window_finish (NATTER_OPENAI_PROVIDER (source), result, &error);

  /* An unreachable server fails the send itself, with its own message. */
  if (window < 0)
    g_debug ("no context window: %s", error->message);
  decide (task, window);
}

static gint64
last_prompt_tokens (NatterTurnState *turn)
{
  gint last = natter_turn_state_get_last_model_call_index (turn);
  JsonObject *usage;

  if (last < 0)
    return 0;
  usage = natter_turn_model_call_get_usage (natter_turn_state_get_model_call (turn, (guint) last));
  return usage != NULL ? json_object_get_int_member_with_default (usage, "inputTokens", 0) : 0;
}

static void
turn_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AutoCompact *data = g_task_get_task_data (task);
  g_autoptr(NatterTurnState) turn = turn_read_finish (source, result);
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  JsonObject *model;
  guint window;

  /* An unreadable or unsettled turn is the send's to report (or to
   * queue behind). */
  data->prompt_tokens = turn != NULL && natter_turn_state_get_terminal_event (turn) != NULL
                        ? last_prompt_tokens (turn) : 0;
  if (data->prompt_tokens <= 0)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  model = natter_turn_definition_get_model (natter_turn_state_get_definition (turn));
  data->provider = g_strdup (json_object_get_string_member (model, "provider"));
  data->model = g_strdup (json_object_get_string_member (model, "model"));
  data->n_chain = 1;
  data->previous = previous_turn_id (turn);

  window = natter_settings_get_context_window (data->settings, data->provider, data->model);
  if (window > 0)
    {
      decide (task, window);
      return;
    }
  provider = data->registry != NULL ? natter_provider_registry_get_provider (data->registry, data->provider, NULL)
                                    : NULL;
  if (provider == NULL)
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  natter_openai_provider_context_window_async (provider, data->model, g_task_get_cancellable (task), window_cb,
                                               g_object_ref (task));
}

static void
session_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  AutoCompact *data = g_task_get_task_data (task);
  g_autoptr(NatterSessionState) state = NULL;
  const char *latest;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, NULL);
  latest = state != NULL ? natter_session_state_get_latest_turn_id (state) : NULL;
  /* Already compacted and nothing sent since: the next request is small. */
  if (latest == NULL || natter_session_state_get_compaction_pending (state))
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  natter_sessions_get_turn_async (data->sessions, latest, g_task_get_cancellable (task), turn_cb,
                                  g_object_ref (task));
}

/**
 * natter_auto_compact_async:
 * @sessions: the session service
 * @registry: (nullable): the providers, asked for the model's window;
 *   %NULL: only a window the user set counts
 * @settings: the settings: `auto-compact` and `context-windows`
 * @session_id: (nullable): the session a message is about to be sent to,
 *   or %NULL for a new one (never compacted)
 * @cancellable: (nullable): cancels the look-ups and the compaction
 * @callback: called when the message may be sent
 * @user_data: data for @callback
 *
 * Compacts @session_id keeping its last 2 turns (docs/sessions.md
 * §5) when the `auto-compact` setting is on and the latest turn's last
 * model call used more than 80% of its model's context window, in prompt
 * tokens. The window is the user's `context-windows` entry
 * "provider/model", else what the server reports
 * (natter_openai_provider_context_window_async()); unknown means no
 * compaction. A conversation whose reference chain holds no more than the
 * 2 kept turns (a new one, or one just compacted) is not tried at all.
 */
void
natter_auto_compact_async (NatterSessions         *sessions,
                           NatterProviderRegistry *registry,
                           NatterSettings         *settings,
                           const char          *session_id,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  AutoCompact *data;

  g_return_if_fail (NATTER_IS_SESSIONS (sessions));
  g_return_if_fail (registry == NULL || NATTER_IS_PROVIDER_REGISTRY (registry));
  g_return_if_fail (NATTER_IS_SETTINGS (settings));

  task = g_task_new (sessions, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_auto_compact_async);
  data = g_new0 (AutoCompact, 1);
  data->sessions = g_object_ref (sessions);
  data->registry = registry != NULL ? g_object_ref (registry) : NULL;
  data->settings = g_object_ref (settings);
  data->session_id = g_strdup (session_id);
  g_task_set_task_data (task, data, (GDestroyNotify) auto_compact_free);

  if (session_id == NULL || !natter_settings_get_auto_compact (settings))
    {
      g_task_return_pointer (task, NULL, NULL);
      return;
    }
  natter_sessions_get_session_async (sessions, session_id, cancellable, session_cb,
                                     g_steal_pointer (&task));
}

/**
 * natter_auto_compact_finish:
 * @sessions: the session service
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes natter_auto_compact_async(). Whatever it returns, the message
 * is still to be sent: a failed compaction must not cost the message.
 *
 * Returns: (transfer full) (nullable): the new compaction's id; %NULL
 *   without an error when none was needed; %NULL with the error of natter_sessions_compact_finish()
 *   (%NATTER_SESSION_ERROR or %NATTER_PROVIDER_ERROR) when it failed for
 *   the first time in this session since the last success (or since
 *   @sessions was made); %NULL without an error when it failed again
 */
char *
natter_auto_compact_finish (NatterSessions  *sessions,
                            GAsyncResult    *result,
                            GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, sessions), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_auto_compact_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
