/* natter-sessions-damage.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a damaged session still tells (natter_sessions_inspect_damage_async())
 * and the way out of it: a copy of its readable part as a new session
 * (natter_sessions_recover_async()). Damaged files are only read.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-blob-store.h"
#include "natter-log-read.h"
#include "natter-plain-text.h"
#include "natter-session-default-title.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-internal.h"
#include "natter-session-parameters-event.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema.h"
#include "natter-session-schema-upgrade.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"
#include "natter-turn-reducer.h"

/* Damage: what a damaged session still tells, and a copy of it */

/**
 * natter_session_damage_free:
 * @damage: (transfer full) (nullable): a damage report
 *
 * Frees @damage.
 */
void
natter_session_damage_free (NatterSessionDamage *damage)
{
  if (damage == NULL)
    return;
  g_free (damage->title);
  g_clear_object (&damage->file);
  g_free (damage->reason);
  g_free (damage->message);
  g_free (damage->last_agent_id);
  g_clear_pointer (&damage->last_model, json_object_unref);
  g_free (damage);
}

G_DEFINE_BOXED_TYPE (NatterSessionDamage, natter_session_damage, natter_session_damage_copy,
                     natter_session_damage_free)

/**
 * natter_session_damage_copy:
 * @damage: a damage report
 *
 * Returns: (transfer full): a copy of @damage
 */
NatterSessionDamage *
natter_session_damage_copy (const NatterSessionDamage *damage)
{
  NatterSessionDamage *copy = g_new0 (NatterSessionDamage, 1);

  copy->title = g_strdup (damage->title);
  copy->file = damage->file != NULL ? g_object_ref (damage->file) : NULL;
  copy->line = damage->line;
  copy->reason = g_strdup (damage->reason);
  copy->n_turns = damage->n_turns;
  copy->can_copy = damage->can_copy;
  copy->message = g_strdup (damage->message);
  copy->left_out = damage->left_out;
  copy->message_read = damage->message_read;
  copy->last_agent_id = g_strdup (damage->last_agent_id);
  copy->last_model = damage->last_model != NULL ? json_object_ref (damage->last_model) : NULL;
  return copy;
}

/* The first problem of the log @id in @repo: %FALSE with @line and
 * @reason set (line 0: the file as a whole; @missing when it does not
 * exist), or %TRUE when it reads and folds whole. Folds the readable
 * prefix into @state when it is a session log (@state not %NULL), else
 * into a turn state, returned in @out_turn (nullable) when it folds
 * whole. */
static gboolean
check_log (NatterJsonlRepo     *repo,
           const char          *id,
           NatterSessionState  *state,
           guint               *line,
           char               **reason,
           gboolean            *missing,
           NatterTurnState    **out_turn,
           GCancellable        *cancellable)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GError) error = NULL;

  *missing = FALSE;
  events = natter_jsonl_repo_read_prefix_sync (repo, id, line, reason, cancellable, &error);
  if (events == NULL)
    {
      *line = 0;
      *missing = g_error_matches (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
      *reason = g_strdup (*missing ? "the file is missing" : error->message);
      return FALSE;
    }
  if (state == NULL)
    turn = natter_turn_state_new ();
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));
      gboolean applied = state != NULL ? natter_session_state_apply (state, event, &error)
                                       : natter_turn_state_apply (turn, event, &error);

      if (!applied)
        {
          g_free (*reason);
          *line = i + 1;
          *reason = g_strdup (error->message);
          return FALSE;
        }
    }
  if (*line != 0)
    return FALSE;
  if (out_turn != NULL)
    *out_turn = g_steal_pointer (&turn);
  return TRUE;
}

/* The damage of a file beside the logs that holds the conflict mark but
 * is no conflict copy's name (docs/format.md §9: a copy of a copy, a
 * date that does not exist): listed as damaged under that name. Its
 * name is the damage; the file is found beside the log of the id it
 * begins with, and nothing of it is read. Else (no id to begin with)
 * the name's %NATTER_STORE_ERROR_INVALID_ID. */
static NatterSessionDamage *
inspect_bad_name (NatterJsonlRepo  *session_repo,
                  const char       *name,
                  GError          **error)
{
  g_autofree char *id = NULL;
  g_autofree char *basename = NULL;
  g_autoptr(GFile) log = NULL;
  g_autoptr(GFile) parent = NULL;
  NatterSessionDamage *damage;

  if (natter_sync_conflict_is_candidate (name) && strlen (name) > NATTER_ID_LENGTH &&
      strchr (name, G_DIR_SEPARATOR) == NULL)
    id = g_strndup (name, NATTER_ID_LENGTH);
  if (id == NULL || !natter_id_validate (id, NULL))
    {
      natter_store_name_validate (name, error);
      return NULL;
    }
  log = natter_jsonl_repo_get_file (session_repo, id, NULL);
  parent = g_file_get_parent (log);
  basename = g_strconcat (name, ".jsonl", NULL);
  damage = g_new0 (NatterSessionDamage, 1);
  damage->file = g_file_get_child (parent, basename);
  if (!g_file_query_exists (damage->file, NULL))
    {
      natter_session_damage_free (damage);
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND, "No session %s", name);
      return NULL;
    }
  damage->reason = g_strdup ("its name is not that of a synchroniser’s conflict copy, "
                             "<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>.jsonl");
  return damage;
}

static NatterSessionDamage *inspect_lineage (NatterJsonlRepo     *session_repo,
                                             NatterJsonlRepo     *turn_repo,
                                             const char          *session_id,
                                             GHashTable          *seen,
                                             NatterSessionState **out_state,
                                             gboolean            *out_inherited,
                                             GCancellable        *cancellable,
                                             GError             **error);

/* Whether the turn @turn_id reads whole and has ended. */
static gboolean
turn_ended (NatterJsonlRepo *turn_repo,
            const char      *turn_id,
            GCancellable    *cancellable)
{
  g_autoptr(NatterTurnState) turn = NULL;
  g_autofree char *reason = NULL;
  gboolean missing;
  guint line = 0;

  return check_log (turn_repo, turn_id, NULL, &line, &reason, &missing, &turn, cancellable) &&
         natter_turn_state_get_terminal_event (turn) != NULL;
}

static gboolean
find_turn_index (NatterSessionState *state,
                 const char         *turn_id,
                 guint              *out_index)
{
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    if (g_strcmp0 (natter_session_state_get_turn (state, i)->turn_id, turn_id) == 0)
      {
        *out_index = i;
        return TRUE;
      }
  return FALSE;
}

/* The damage of the history that @state's session inherits from the one
 * it was branched from (a version, a branch): %NULL when that history
 * reads whole up to the fork point, or cannot be looked at (no fork
 * point, the parent's log gone or unreadable). Else the damage report of
 * the session whose turn cannot be read, with that session's readable
 * prefix in @out_state: every turn of @state comes after the damage, so
 * the readable part of @state's history is that prefix, and a copy of
 * @state's own turns would be as damaged as @state. */
static NatterSessionDamage *
inherited_damage (NatterJsonlRepo     *session_repo,
                  NatterJsonlRepo     *turn_repo,
                  NatterSessionState  *state,
                  GHashTable          *seen,
                  NatterSessionState **out_state,
                  GCancellable        *cancellable)
{
  const char *parent_id = natter_session_state_get_parent_session (state);
  const char *fork_id = natter_session_state_get_forked_from_turn_id (state);
  g_autoptr(NatterSessionState) prefix = NULL;
  NatterSessionDamage *damage;
  gboolean inherited = FALSE;
  guint fork_index;

  if (parent_id == NULL || fork_id == NULL || g_hash_table_contains (seen, parent_id))
    return NULL;
  damage = inspect_lineage (session_repo, turn_repo, parent_id, seen, &prefix, &inherited, cancellable, NULL);
  if (damage == NULL)
    return NULL;
  if (!inherited)
    {
      if (!damage->can_copy || !find_turn_index (prefix, fork_id, &fork_index))
        {
          natter_session_damage_free (damage);
          return NULL;
        }
      /* The parent reads past the fork point: the history is whole if
       * the turn it was branched at has ended. A branch is only made at
       * an ended turn, so one without its end lost its last lines. */
      if (damage->reason == NULL || damage->n_turns > fork_index)
        {
          if (turn_ended (turn_repo, fork_id, cancellable))
            {
              natter_session_damage_free (damage);
              return NULL;
            }
          g_clear_object (&damage->file);
          damage->file = natter_jsonl_repo_get_file (turn_repo, fork_id, NULL);
          damage->line = 0;
          g_free (damage->reason);
          damage->reason = g_strdup ("the file ends before the turn does (its last lines are lost), "
                                     "yet the conversation goes on after it");
          damage->n_turns = fork_index;
        }
    }
  *out_state = g_steal_pointer (&prefix);
  return damage;
}

/* Finds where @session_id is damaged: its session log's first bad line,
 * else the first of its turns whose log cannot be read. Returns the
 * readable prefix in @out_state. Blocks: it reads every turn of the
 * session, which only an explicit look at damage asks for. */
static NatterSessionDamage *
inspect_sync (NatterJsonlRepo     *session_repo,
              NatterJsonlRepo     *turn_repo,
              const char          *session_id,
              NatterSessionState **out_state,
              GCancellable        *cancellable,
              GError             **error)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean inherited;

  return inspect_lineage (session_repo, turn_repo, session_id, seen, out_state, &inherited, cancellable, error);
}

/* inspect_sync() of @session_id and the history it inherits, none of
 * the sessions in @seen looked at twice (a lineage that loops back is
 * damaged, not endless). @out_inherited: whether the damage found is in
 * a session @session_id was branched from, whose prefix @out_state is. */
static NatterSessionDamage *
inspect_lineage (NatterJsonlRepo     *session_repo,
                 NatterJsonlRepo     *turn_repo,
                 const char          *session_id,
                 GHashTable          *seen,
                 NatterSessionState **out_state,
                 gboolean            *out_inherited,
                 GCancellable        *cancellable,
                 GError             **error)
{
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  g_autoptr(NatterSessionState) inherited_prefix = NULL;
  g_autoptr(GHashTable) unended = NULL;  /* turn id → its index, of turns that have not ended */
  guint first_unended;                    /* the index of the first of them */
  NatterSessionDamage *damage;
  NatterSessionDamage *inherited;
  gboolean missing;

  *out_inherited = FALSE;
  if (!natter_store_name_validate (session_id, NULL))
    return inspect_bad_name (session_repo, session_id, error);
  damage = g_new0 (NatterSessionDamage, 1);
  damage->file = natter_jsonl_repo_get_file (session_repo, session_id, NULL);
  if (!check_log (session_repo, session_id, state, &damage->line, &damage->reason, &missing, NULL, cancellable) &&
      missing)
    {
      natter_session_damage_free (damage);
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND,
                   "No session %s", session_id);
      return NULL;
    }
  damage->can_copy = natter_session_state_get_definition (state) != NULL;
  damage->title = g_strdup (damage->can_copy ? natter_session_state_get_title (state) : NULL);
  damage->n_turns = damage->can_copy ? natter_session_state_get_n_turns (state) : 0;

  g_hash_table_add (seen, g_strdup (session_id));
  inherited = damage->can_copy ? inherited_damage (session_repo, turn_repo, state, seen, &inherited_prefix,
                                                   cancellable)
                               : NULL;
  if (inherited != NULL)
    {
      natter_session_damage_free (damage);
      *out_inherited = TRUE;
      if (out_state != NULL)
        *out_state = g_steal_pointer (&inherited_prefix);
      return inherited;
    }

  /* Every turn of the readable part, oldest first: a later turn's
   * history runs through every earlier one, so the copy ends before the
   * first turn that cannot be read, never leaving a hole in a history.
   * A turn that has not ended cannot be read as history either: one that
   * a later turn continues lost its last lines (docs/runtime.md §11). */
  unended = g_hash_table_new (g_str_hash, g_str_equal);
  first_unended = G_MAXUINT;
  for (guint i = 0; i < damage->n_turns; i++)
    {
      const char *turn_id = natter_session_state_get_turn (state, i)->turn_id;
      g_autoptr(NatterTurnState) turn = NULL;
      const char *previous = NULL;
      gpointer unended_index;
      guint line = 0;
      char *reason = NULL;

      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (check_log (turn_repo, turn_id, NULL, &line, &reason, &missing, &turn, cancellable))
        {
          previous = natter_turn_definition_get_previous_turn_id (natter_turn_state_get_definition (turn));
          if (previous != NULL && g_hash_table_lookup_extended (unended, previous, NULL, &unended_index))
            {
              if (damage->reason == NULL)
                {
                  g_clear_object (&damage->file);
                  damage->file = natter_jsonl_repo_get_file (turn_repo, previous, NULL);
                  damage->line = 0;
                  damage->reason = g_strdup ("the file ends before the turn does (its last lines are lost), "
                                             "yet the conversation goes on after it");
                }
              damage->n_turns = GPOINTER_TO_UINT (unended_index);
              break;
            }
          if (natter_turn_state_get_terminal_event (turn) == NULL)
            {
              g_hash_table_insert (unended, (gpointer) turn_id, GUINT_TO_POINTER (i));
              first_unended = MIN (first_unended, i);
            }
        }
      else if (first_unended < i)
        {
          /* This turn goes on after one that has not ended, which lost
           * its last lines: the copy ends before that one, the first
           * damage. */
          g_free (reason);
          if (damage->reason == NULL)
            {
              g_clear_object (&damage->file);
              damage->file = natter_jsonl_repo_get_file (turn_repo, natter_session_state_get_turn (state, first_unended)->turn_id,
                                                         NULL);
              damage->line = 0;
              damage->reason = g_strdup ("the file ends before the turn does (its last lines are lost), "
                                         "yet the conversation goes on after it");
            }
          damage->n_turns = first_unended;
          break;
        }
      else
        {
          /* A damaged session log names its own line first. */
          if (damage->reason == NULL)
            {
              g_clear_object (&damage->file);
              damage->file = natter_jsonl_repo_get_file (turn_repo, turn_id, NULL);
              damage->line = line;
              damage->reason = reason;
            }
          else
            g_free (reason);
          damage->n_turns = i;
          break;
        }
    }
  if (out_state != NULL)
    *out_state = g_steal_pointer (&state);
  return damage;
}

typedef struct
{
  NatterJsonlRepo    *session_repo;
  NatterJsonlRepo    *turn_repo;
  NatterBlobStore    *blobs;          /* nullable */
  char               *session_id;
  char               *new_id;
  char               *ts;
  NatterSessionState *copy;           /* recover: the new session */
  char               *latest_status;  /* recover: its latest turn's */
  NatterGenerationParameters *parameters; /* recover: what the copy takes, or NULL */
  char               *folder_id;      /* recover: likewise */
  NatterSessionDamage *damage;        /* recover: the report the copy was made by */
  GHashTable         *titles;         /* recover: the titles listed when it began, a set */
} DamageData;

static void
damage_data_free (DamageData *data)
{
  g_clear_object (&data->session_repo);
  g_clear_object (&data->turn_repo);
  g_clear_object (&data->blobs);
  g_free (data->session_id);
  g_free (data->new_id);
  g_free (data->ts);
  g_clear_pointer (&data->copy, natter_session_state_unref);
  g_free (data->latest_status);
  g_clear_pointer (&data->parameters, natter_generation_parameters_free);
  g_free (data->folder_id);
  g_clear_pointer (&data->damage, natter_session_damage_free);
  g_clear_pointer (&data->titles, g_hash_table_unref);
  g_free (data);
}

static DamageData *
damage_data_new (NatterSessions *self,
                 const char     *session_id)
{
  DamageData *data = g_new0 (DamageData, 1);

  data->session_repo = g_object_ref (self->session_repo);
  data->turn_repo = g_object_ref (self->turn_repo);
  if (natter_turn_runtime_get_blob_store (self->runtime) != NULL)
    data->blobs = g_object_ref (natter_turn_runtime_get_blob_store (self->runtime));
  data->session_id = g_strdup (session_id);
  return data;
}

/* The first attachment of the message of turn @turn_id that cannot be
 * read whole (missing, damaged, not arrived): %FALSE with @damage's file
 * and reason set to it. */
static gboolean
check_turn_attachments (NatterJsonlRepo     *turn_repo,
                        NatterBlobStore     *blobs,
                        const char          *turn_id,
                        NatterSessionDamage *damage,
                        GCancellable        *cancellable)
{
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GPtrArray) parts = NULL;
  JsonObject *input;

  turn = natter_turn_reduce_file_sync (turn_repo, turn_id, NULL, cancellable, NULL);
  input = turn != NULL ? json_object_get_object_member (natter_turn_state_get_definition (turn), "input") : NULL;
  if (input == NULL)
    return TRUE;
  parts = natter_message_dup_blob_parts (input);
  for (guint p = 0; p < parts->len; p++)
    {
      JsonObject *part = g_ptr_array_index (parts, p);
      const char *sha256 = json_object_get_string_member (part, "sha256");
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *path = NULL;

      bytes = natter_blob_store_read_sync (blobs, sha256, &error);
      if (bytes != NULL)
        continue;
      path = natter_blob_store_dup_path (blobs, sha256);
      g_clear_object (&damage->file);
      damage->file = path != NULL ? g_file_new_for_path (path) : natter_jsonl_repo_get_file (turn_repo, turn_id, NULL);
      damage->line = 0;
      g_free (damage->reason);
      damage->reason = g_strdup_printf ("the attachment “%s” of turn %s cannot be read: %s",
                                        json_object_get_string_member_with_default (part, "name", ""),
                                        turn_id, error->message);
      return FALSE;
    }
  return TRUE;
}

/* An attachment of the readable part that cannot be read is damage too:
 * every message after it would fail on it (docs/sessions.md §2). The
 * readable part then ends before the first turn whose message has one,
 * the attachment named as the damage. */
static void
check_attachments (NatterJsonlRepo     *turn_repo,
                   NatterBlobStore     *blobs,
                   NatterSessionState  *prefix,
                   NatterSessionDamage *damage,
                   GCancellable        *cancellable)
{
  if (blobs == NULL || prefix == NULL || !damage->can_copy)
    return;
  for (guint i = 0; i < damage->n_turns && !g_cancellable_is_cancelled (cancellable); i++)
    if (!check_turn_attachments (turn_repo, blobs, natter_session_state_get_turn (prefix, i)->turn_id, damage,
                                 cancellable))
      {
        damage->n_turns = i;
        return;
      }
}

/* Reads the message of the turn @turn_id as far as its log reads: the
 * message is the turn's first line, readable when the damage is further
 * on. %FALSE when its first line does not read (or the file is
 * missing); else %TRUE, with its text in @out_text, read as every other
 * place reads a message's text (natter_session_message_text(), so valid
 * UTF-8 for the message field), its text parts joined by line breaks:
 * %NULL for a message without text (files only). */
static gboolean
read_turn_message (NatterJsonlRepo  *turn_repo,
                   const char       *turn_id,
                   char            **out_text,
                   GCancellable     *cancellable)
{
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *text = NULL;
  JsonObject *first;
  JsonNode *content;
  gsize len;
  guint line;

  *out_text = NULL;
  events = natter_jsonl_repo_read_prefix_sync (turn_repo, turn_id, &line, &reason, cancellable, NULL);
  if (events == NULL || events->len == 0)
    return FALSE;
  first = json_node_get_object (g_ptr_array_index (events, 0));
  if (g_strcmp0 (json_object_get_string_member_with_default (first, "type", NULL), "turn_created") != 0 ||
      !json_object_has_member (first, "input") ||
      !JSON_NODE_HOLDS_OBJECT (json_object_get_member (first, "input")))
    return FALSE;
  content = json_object_get_member (json_object_get_object_member (first, "input"), "content");
  text = natter_session_message_text (content);
  /* Each text part is followed by a line break: the last one ends the
   * message, and is no line of it. */
  len = strlen (text);
  if (content != NULL && JSON_NODE_HOLDS_ARRAY (content) && len > 0 && text[len - 1] == '\n')
    text[len - 1] = '\0';
  if (text[0] != '\0')
    *out_text = g_steal_pointer (&text);
  return TRUE;
}

/* read_turn_message() of the turn at @index of @prefix, the first one a
 * copy leaves out; %FALSE when there is no such turn. */
static gboolean
read_left_out (NatterJsonlRepo    *turn_repo,
               NatterSessionState *prefix,
               guint               index,
               char              **out_text,
               GCancellable       *cancellable)
{
  *out_text = NULL;
  if (prefix == NULL || index >= natter_session_state_get_n_turns (prefix))
    return FALSE;
  return read_turn_message (turn_repo, natter_session_state_get_turn (prefix, index)->turn_id, out_text,
                            cancellable);
}

/* What the conversation @session_id was going on with: the agent and
 * model of the latest turn its own log lists, on @damage. A version
 * whose damage is inherited has a readable part that is another
 * session's, but its own latest turn is the one its header showed. */
static void
add_latest_choice (NatterSessionState  *own,
                   NatterSessionDamage *damage)
{
  const NatterSessionTurn *latest;
  const char *provider;
  const char *model;

  if (natter_session_state_get_n_turns (own) == 0)
    return;
  latest = natter_session_state_get_turn (own, natter_session_state_get_n_turns (own) - 1);
  damage->last_agent_id = g_strdup (latest->agent_id);
  provider = latest->model != NULL ? json_object_get_string_member_with_default (latest->model, "provider", NULL)
                                   : NULL;
  model = latest->model != NULL ? json_object_get_string_member_with_default (latest->model, "model", NULL) : NULL;
  if (provider == NULL)
    return;
  /* A new object, not the state's: the report outlives the state, and
   * goes from the worker thread to the main one. */
  damage->last_model = json_object_new ();
  json_object_set_string_member (damage->last_model, "provider", provider);
  if (model != NULL)
    json_object_set_string_member (damage->last_model, "model", model);
}

/* The whole damage report of @data's session: where the damage is
 * (inspect_sync()), the readable part ended before an attachment that
 * cannot be read, the turn that a copy leaves out and its message, and
 * what the conversation was going on with. The readable part in
 * @out_state, and the session's own log as far as it reads in
 * @out_own (both nullable). What natter_sessions_inspect_damage_async()
 * reports, and what natter_sessions_recover_async() copies by. */
static NatterSessionDamage *
report_sync (DamageData          *data,
             NatterSessionState **out_state,
             NatterSessionState **out_own,
             GCancellable        *cancellable,
             GError             **error)
{
  g_autoptr(NatterSessionState) prefix = NULL;
  g_autoptr(NatterSessionState) own = natter_session_state_new ();
  g_autofree char *reason = NULL;
  NatterSessionDamage *damage;
  gboolean missing;
  guint line = 0;

  damage = inspect_sync (data->session_repo, data->turn_repo, data->session_id, &prefix, cancellable, error);
  if (damage == NULL)
    return NULL;
  check_attachments (data->turn_repo, data->blobs, prefix, damage, cancellable);
  /* A turn the log lists after the copy's last is left out: said, with
   * its message when that reads, never dropped without a word. */
  if (damage->can_copy && damage->n_turns < natter_session_state_get_n_turns (prefix))
    {
      damage->left_out = TRUE;
      damage->message_read = read_left_out (data->turn_repo, prefix, damage->n_turns, &damage->message,
                                            cancellable);
    }
  if (natter_store_name_validate (data->session_id, NULL))
    check_log (data->session_repo, data->session_id, own, &line, &reason, &missing, NULL, cancellable);
  add_latest_choice (own, damage);
  if (out_state != NULL)
    *out_state = g_steal_pointer (&prefix);
  if (out_own != NULL)
    *out_own = g_steal_pointer (&own);
  return damage;
}

static void
inspect_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  DamageData *data = task_data;
  NatterSessionDamage *damage;
  GError *error = NULL;

  damage = report_sync (data, NULL, NULL, cancellable, &error);
  if (damage == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, damage, (GDestroyNotify) natter_session_damage_free);
}

/**
 * natter_sessions_inspect_damage_async:
 * @self: the service
 * @session_id: a session, usually one the index lists with an error
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Finds what is left of a damaged session and where the damage is: the
 * first line of its session log that cannot be read (or that breaks a
 * rule of the session reducer, docs/format.md §3.2), else the first of
 * its turns whose log cannot be read — the latest one (what the index
 * reads) or an earlier one, which every later turn's history runs
 * through. Reads only; nothing is written, nothing repaired.
 */
void
natter_sessions_inspect_damage_async (NatterSessions      *self,
                                      const char          *session_id,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_inspect_damage_async);
  g_task_set_task_data (task, damage_data_new (self, session_id), (GDestroyNotify) damage_data_free);
  g_task_run_in_thread (task, inspect_thread);
}

/**
 * natter_sessions_inspect_damage_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the damage report; its `reason`
 *   is %NULL when nothing is damaged after all. %NULL with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session file) or the id's
 *   %NATTER_STORE_ERROR_INVALID_ID
 */
NatterSessionDamage *
natter_sessions_inspect_damage_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_inspect_damage_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Adds to @events, for the copy @copy_id, the messages still queued in
 * the damaged session's own log @own as far as it reads: each waits in
 * the copy, in the order queued, with its id and options, since the
 * damaged log can no longer send them and is never written. For a
 * version whose damage is inherited, the readable part is another
 * session's, but the queue is still this one's. Raises the copy's
 * version before the first. */
static void
add_queue (NatterSessionState *own,
           const char         *copy_id,
           const char         *ts,
           GPtrArray          *events)
{
  if (natter_session_state_get_definition (own) == NULL || natter_session_state_get_n_queued (own) == 0)
    return;
  for (guint i = 0; i < natter_session_state_get_n_queued (own); i++)
    {
      const NatterSessionQueuedMessage *queued = natter_session_state_get_queued (own, i);

      g_ptr_array_add (events, natter_session_event_new_message_queued (copy_id, ts, queued->queue_id,
                                                                        queued->message, queued->options));
    }
  natter_session_events_raise (events, 1, NULL);
}

/* @title as every title Natter makes is written: without the control
 * characters an older version wrote (docs/format.md §3.1). Takes @title. */
static char *
clean_title (char *title)
{
  if (natter_text_has_control (title))
    {
      char *clean = natter_session_title_clean (title);

      g_free (title);
      return clean;
    }
  return title;
}

/* Whether @title ends with @format's words around its "%s" at the
 * start, a number in place of its one "%u" when @numbered: how a title
 * that is a copy's already is told (transfer full: the title before the
 * mark, or %NULL). */
static char *
strip_mark (const char *title,
            const char *format,
            gboolean    numbered)
{
  const char *number;
  const char *end;
  gsize title_len = strlen (title);
  gsize before_len;
  gsize end_len;

  if (!g_str_has_prefix (format, "%s"))
    return NULL;
  format += 2;
  number = numbered ? strstr (format, "%u") : NULL;
  if (numbered && number == NULL)
    return NULL;
  end = numbered ? number + 2 : format;
  end_len = strlen (end);
  if (title_len <= end_len || strcmp (title + title_len - end_len, end) != 0)
    return NULL;
  title_len -= end_len;
  if (numbered)
    {
      gsize digits = 0;

      while (digits < title_len && g_ascii_isdigit (title[title_len - digits - 1]))
        digits++;
      if (digits == 0)
        return NULL;
      title_len -= digits;
    }
  before_len = numbered ? (gsize) (number - format) : 0;
  if (title_len <= before_len || strncmp (title + title_len - before_len, format, before_len) != 0)
    return NULL;
  return g_strndup (title, title_len - before_len);
}

/* The title of the copy of a conversation titled @title (nullable: one
 * without a title has none either): the same, marked as the copy. A
 * second copy of the same conversation is told from the first by a
 * number, as GNOME's file managers tell a second copy of a file from
 * the first: "… (recovered 2)", the first title none of @taken (the
 * titles listed now) has. */
static char *
recovered_title (const char *title,
                 GHashTable *taken)
{
  g_autofree char *base = NULL;
  char *marked;

  if (title == NULL)
    return NULL;
  /* A copy of a copy is another copy of the first, never "… (recovered)
   * (recovered)". */
  base = strip_mark (title, _("%s (recovered)"), FALSE);
  if (base == NULL)
    base = strip_mark (title, _("%s (recovered %u)"), TRUE);
  if (base != NULL)
    title = base;
  /* Translators: the title of the copy of a damaged conversation's
   * readable part; %s is that conversation's title */
  marked = clean_title (g_strdup_printf (_("%s (recovered)"), title));
  for (guint n = 2; taken != NULL && g_hash_table_contains (taken, marked) && n < G_MAXUINT; n++)
    {
      g_free (marked);
      /* Translators: the title of another copy of a damaged
       * conversation's readable part, when one with the title "%s
       * (recovered)" is listed already; %s is that conversation's title,
       * %u the number of the copy (2, 3, …) */
      marked = clean_title (g_strdup_printf (_("%s (recovered %u)"), title, n));
    }
  return marked;
}

static void
recover_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  DamageData *data = task_data;
  g_autoptr(NatterSessionState) prefix = NULL;
  g_autoptr(NatterSessionState) own = NULL;
  g_autoptr(NatterSessionState) copy = natter_session_state_new ();
  NatterSessionDamage *damage;
  g_autoptr(GPtrArray) rest = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(JsonNode) created = NULL;
  JsonObject *definition;
  g_autofree char *title = NULL;
  GError *error = NULL;

  /* The copy is made by the same report that the caller gets back
   * (natter_sessions_recover_finish()): what it says is left out is
   * what was left out, never a second look at a file that may have
   * changed since. */
  damage = data->damage = report_sync (data, &prefix, &own, cancellable, &error);
  if (damage == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  if (!damage->can_copy)
    {
      g_autofree char *path = g_file_get_path (damage->file);

      g_task_return_new_error (task, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                               "Nothing of session %s can be read: %s: %s",
                               data->session_id, path, damage->reason);
      return;
    }

  /* The same lineage and title; the turns are referenced, not
   * copied: turns are found only by reference (docs/sessions.md §7) and a
   * settled turn never changes, so the copy can share them, as a fork shares
   * its parent's. */
  definition = natter_session_state_get_definition (prefix);
  created = natter_session_event_new_created (data->new_id, data->ts,
                                              json_object_get_string_member_with_default (definition, "title", NULL),
                                              natter_session_state_get_cwd (prefix),
                                              natter_session_state_get_parent_session (prefix),
                                              natter_session_state_get_forked_from_turn_id (prefix));
  /* The title comes before the turns: right after the first
   * turn_appended it would read as the default title derived from the
   * first message (docs/sessions.md §13), and the copy's first completed
   * answer would replace the damaged conversation's title with an
   * automatic one. It says it is the copy: the damaged conversation
   * stays listed beside it under its own. */
  title = recovered_title (natter_session_state_get_title (prefix), data->titles);
  if (title != NULL)
    g_ptr_array_add (rest, natter_session_event_new_title_changed (data->new_id, data->ts, title));
  for (guint i = 0; i < damage->n_turns; i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (prefix, i);

      g_ptr_array_add (rest, natter_session_event_new_turn_appended (data->new_id, data->ts, turn->turn_id,
                                                                     (gint64) i + 1, turn->agent_id,
                                                                     turn->model));
    }
  add_queue (own, data->new_id, data->ts, rest);
  /* What the conversation keeps about itself, as a branch takes it
   * (docs/format.md §3.5, §3.6): the copy stands in for it. */
  if (data->parameters != NULL)
    g_ptr_array_add (rest, natter_session_event_new_parameters_changed (data->new_id, data->ts, data->parameters));
  if (data->folder_id != NULL)
    g_ptr_array_add (rest, natter_session_event_new_folder_changed (data->new_id, data->ts, data->folder_id));
  natter_session_events_raise (rest, 1, NULL);

  if (!natter_session_state_apply (copy, json_node_get_object (created), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  for (guint i = 0; i < rest->len; i++)
    if (!natter_session_state_apply (copy, json_node_get_object (g_ptr_array_index (rest, i)), &error))
      {
        g_task_return_error (task, error);
        return;
      }

  /* The damaged log is only ever read; the copy is a new file. */
  if (!natter_jsonl_repo_create_sync (data->session_repo, data->new_id, created, cancellable, &error) ||
      (rest->len > 0 && !natter_jsonl_repo_append_sync (data->session_repo, data->new_id, rest, cancellable, &error)))
    {
      g_task_return_error (task, error);
      return;
    }

  data->latest_status = g_strdup (NATTER_LATEST_TURN_STATUS_NONE);
  if (natter_session_state_get_latest_turn_id (copy) != NULL)
    {
      g_autoptr(NatterTurnState) turn = NULL;

      turn = natter_turn_reduce_file_sync (data->turn_repo, natter_session_state_get_latest_turn_id (copy),
                                           NULL, cancellable, NULL);
      g_free (data->latest_status);
      data->latest_status = g_strdup (turn != NULL
                                      ? natter_latest_turn_status_from_turn_status (natter_derive_turn_status (turn))
                                      : "idle");
    }
  data->copy = g_steal_pointer (&copy);
  g_task_return_boolean (task, TRUE);
}

/* What a recovery hands back: the copy, and the report it was made by. */
typedef struct
{
  char                *session_id;
  NatterSessionDamage *damage;
} Recovered;

static void
recovered_free (Recovered *recovered)
{
  g_free (recovered->session_id);
  natter_session_damage_free (recovered->damage);
  g_free (recovered);
}

static void
recovered_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsOp *data = g_task_get_task_data (task);
  DamageData *damage_data = g_task_get_task_data (G_TASK (result));
  NatterSessions *self = data->self;
  Recovered *recovered;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      natter_sessions_op_return_error (task, error);
      return;
    }
  natter_session_index_update_from_state (self->index, damage_data->copy, damage_data->latest_status);
  natter_sessions_op_finish (task);
  g_signal_emit (self, natter_sessions_signals[NATTER_SESSIONS_SIGNAL_SESSION_INDEX_CHANGED], 0, damage_data->new_id);
  recovered = g_new0 (Recovered, 1);
  recovered->session_id = g_strdup (damage_data->new_id);
  recovered->damage = g_steal_pointer (&damage_data->damage);
  g_task_return_pointer (task, recovered, (GDestroyNotify) recovered_free);
}

/**
 * natter_sessions_recover_async:
 * @self: the service
 * @session_id: a damaged session
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Copies the readable part of a damaged session to a new session, the
 * way out of a log that can no longer be used (docs/sessions.md §6.2: reads
 * never repair or skip). The new session has the damaged one's title marked
 * as the copy's ("… (recovered)", in the language of the process; "…
 * (recovered 2)" and on when a conversation of that title is listed
 * already, so each copy is told from the others), the
 * generation parameters and folder of its conversation (when it is the
 * original: a copy of a version shares its original's), its lineage,
 * and as its turns the turns of the readable prefix
 * (natter_sessions_inspect_damage_async()), referenced like a fork's:
 * without the turn whose log is damaged, when that is the latest turn's.
 * The messages still queued in the damaged session wait in the copy's
 * queue, in the order queued (docs/sessions.md §2). The damaged
 * session's files are only read, never modified. The damage report the
 * copy was made by comes back with it (natter_sessions_recover_finish()):
 * a caller learns from it what the copy left out, without reading the
 * damage again.
 */
void
natter_sessions_recover_async (NatterSessions      *self,
                               const char          *session_id,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GTask) thread = NULL;
  DamageData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  task = natter_sessions_op_task_new (self, session_id, sizeof (NatterSessionsOp), NULL,
                                      cancellable, callback, user_data, natter_sessions_recover_async);
  if (natter_sessions_op_refuse_write (task))
    return;
  data = damage_data_new (self, session_id);
  data->new_id = natter_id_generator_next (self->ids);
  data->ts = natter_clock_format_ts (self->clock);
  /* A copy of a version is a version of the same conversation (its
   * lineage is the damaged one's) and shares what the original keeps;
   * a copy of a conversation's original stands alone and takes a copy
   * of its parameters and folder, never its pin. */
  if (g_strcmp0 (natter_sessions_get_conversation_id (self, session_id), session_id) == 0)
    {
      const NatterGenerationParameters *kept = natter_sessions_get_kept_parameters (self, session_id);

      data->parameters = kept != NULL ? natter_generation_parameters_copy (kept) : NULL;
      data->folder_id = g_strdup (natter_sessions_get_folder_id (self, session_id));
    }
  /* The titles listed now, which the copy's is told from; read here,
   * where the index lives. */
  data->titles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->index)); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);
      const char *title = natter_session_index_entry_get_title (entry);

      if (title != NULL)
        g_hash_table_add (data->titles, g_strdup (title));
    }
  thread = g_task_new (self, cancellable, recovered_cb, g_object_ref (task));
  g_task_set_task_data (thread, data, (GDestroyNotify) damage_data_free);
  g_task_run_in_thread (thread, recover_thread);
}

/**
 * natter_sessions_recover_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @out_damage: (out) (optional) (transfer full): the damage report the
 *   copy was made by (natter_sessions_inspect_damage_async() describes
 *   its fields): where the copy ends, which message it left out and its
 *   words, what the conversation was going on with. It is the report of
 *   the read that made the copy, so what it says was left out is what
 *   was, even if the file changed since (docs/sessions.md §2)
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new session's id; %NULL with
 *   %NATTER_SESSION_ERROR_NOT_FOUND (no such session),
 *   %NATTER_SESSION_ERROR_CORRUPT (not even its first line can be read),
 *   or a %NATTER_STORE_ERROR from writing the copy, and @out_damage
 *   set to %NULL
 */
char *
natter_sessions_recover_finish (NatterSessions       *self,
                                GAsyncResult         *result,
                                NatterSessionDamage **out_damage,
                                GError              **error)
{
  Recovered *recovered;
  char *session_id;

  if (out_damage != NULL)
    *out_damage = NULL;
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_recover_async, NULL);

  recovered = g_task_propagate_pointer (G_TASK (result), error);
  if (recovered == NULL)
    return NULL;
  session_id = g_steal_pointer (&recovered->session_id);
  if (out_damage != NULL)
    *out_damage = g_steal_pointer (&recovered->damage);
  recovered_free (recovered);
  return session_id;
}

typedef struct
{
  NatterJsonlRepo *turn_repo;
  char            *turn_id;
} TurnMessageData;

static void
turn_message_data_free (TurnMessageData *data)
{
  g_object_unref (data->turn_repo);
  g_free (data->turn_id);
  g_free (data);
}

/* What natter_sessions_read_turn_message_async() found. */
typedef struct
{
  gboolean  read;
  char     *text;
} TurnMessage;

static void
turn_message_free (TurnMessage *message)
{
  g_free (message->text);
  g_free (message);
}

static void
read_message_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  TurnMessageData *data = task_data;
  TurnMessage *message = g_new0 (TurnMessage, 1);

  message->read = read_turn_message (data->turn_repo, data->turn_id, &message->text, cancellable);
  g_task_return_pointer (task, message, (GDestroyNotify) turn_message_free);
}

/**
 * natter_sessions_read_turn_message_async:
 * @self: the service
 * @turn_id: a turn whose file cannot be read whole
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when done
 * @user_data: data for @callback
 *
 * Reads what a damaged turn still tells of its message: its first line,
 * which holds the message and reads when the damage is further on
 * (docs/sessions.md §2). For showing the person the words of a message
 * whose turn cannot be read; nothing is repaired, and nothing of the
 * rest of the turn is read as if it were whole. Reads only.
 */
void
natter_sessions_read_turn_message_async (NatterSessions      *self,
                                         const char          *turn_id,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  TurnMessageData *data;

  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (turn_id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_sessions_read_turn_message_async);
  data = g_new0 (TurnMessageData, 1);
  data->turn_repo = g_object_ref (self->turn_repo);
  data->turn_id = g_strdup (turn_id);
  g_task_set_task_data (task, data, (GDestroyNotify) turn_message_data_free);
  g_task_run_in_thread (task, read_message_thread);
}

/**
 * natter_sessions_read_turn_message_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @out_text: (out) (optional) (transfer full) (nullable): the message's
 *   words (its text parts joined by line breaks, not its attachments),
 *   %NULL for a message of files only
 * @error: return location for a #GError
 *
 * Returns: %TRUE when the message reads; %FALSE with
 *   %NATTER_SESSION_ERROR_CORRUPT when not even the turn's first line
 *   does (or its file is missing)
 */
gboolean
natter_sessions_read_turn_message_finish (NatterSessions  *self,
                                          GAsyncResult    *result,
                                          char           **out_text,
                                          GError         **error)
{
  TurnMessage *message;
  gboolean read;

  if (out_text != NULL)
    *out_text = NULL;
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_sessions_read_turn_message_async, FALSE);

  message = g_task_propagate_pointer (G_TASK (result), error);
  if (message == NULL)
    return FALSE;
  read = message->read;
  if (!read)
    g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT,
                         "Not even the message of the turn can be read");
  else if (out_text != NULL)
    *out_text = g_steal_pointer (&message->text);
  turn_message_free (message);
  return read;
}
