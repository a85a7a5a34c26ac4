/* natter-session-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session taken out of the store and brought back in: the JSON archive
 * (docs/format.md §7) that holds a session's log and the logs of every
 * turn it shows, and the import plan that turns an archive (or another
 * program's export, natter-chatgpt-import.c) into new files. A plan is
 * checked whole, with the same schemas and reducers that guard every
 * write, before anything is written, and its ids are replaced by fresh
 * ones so nothing already stored can be overwritten. Beside them, the
 * readers of a turn's definition (its resolved agent and model, the turn
 * its context refers to) that the export, the import and the operations
 * above them share. Pure: no I/O.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-blob-store.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-plain-text.h"
#include "natter-provider-registry.h"
#include "natter-session-archive.h"
#include "natter-session-default-title.h"
#include "natter-session-error.h"
#include "natter-session-grants-queue.h"
#include "natter-session-index-entry.h"
#include "natter-session-placement-event.h"
#include "natter-session-schema.h"
#include "natter-session-schema-upgrade.h"
#include "natter-turn-reducer.h"
#include "natter-turn-step.h"
#include "natter-store-error.h"

/* Plans */

/**
 * natter_import_plan_new:
 * @session_id: the session's (placeholder) id
 *
 * Returns: (transfer full): an empty plan
 */
NatterImportPlan *
natter_import_plan_new (const char *session_id)
{
  NatterImportPlan *plan = g_new0 (NatterImportPlan, 1);

  plan->session_id = g_strdup (session_id);
  plan->session_events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  plan->turn_ids = g_ptr_array_new_with_free_func (g_free);
  plan->turn_events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  plan->blobs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_bytes_unref);
  plan->report = natter_import_report_new ();
  return plan;
}

/**
 * natter_import_plan_free:
 * @plan: (transfer full) (nullable): a plan
 *
 * Frees @plan and its events.
 */
void
natter_import_plan_free (NatterImportPlan *plan)
{
  if (plan == NULL)
    return;
  g_free (plan->session_id);
  g_ptr_array_unref (plan->session_events);
  g_ptr_array_unref (plan->turn_ids);
  g_ptr_array_unref (plan->turn_events);
  g_hash_table_unref (plan->blobs);
  g_clear_pointer (&plan->earlier_turns, g_hash_table_unref);
  natter_import_report_free (plan->report);
  g_free (plan);
}

/**
 * natter_import_plan_add_turn:
 * @plan: a plan
 * @turn_id: the turn's (placeholder) id
 *
 * Adds a turn to be written after the ones already added.
 *
 * Returns: (transfer none) (element-type JsonNode): the turn's event
 *   array, to be filled in order
 */
GPtrArray *
natter_import_plan_add_turn (NatterImportPlan *plan,
                             const char       *turn_id)
{
  GPtrArray *events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  g_ptr_array_add (plan->turn_ids, g_strdup (turn_id));
  g_ptr_array_add (plan->turn_events, events);
  return events;
}

/**
 * natter_import_plan_add_earlier_turn:
 * @plan: a plan
 * @turn_id: the (placeholder) id of a turn of a plan written before
 *   @plan
 *
 * Lets @plan name @turn_id: a version of a message branches at a turn of
 * the conversation it is a version of (its `forkedFromTurnId`, and the
 * `previousTurnId` of its first turn).
 */
void
natter_import_plan_add_earlier_turn (NatterImportPlan *plan,
                                     const char       *turn_id)
{
  g_return_if_fail (plan != NULL && turn_id != NULL);

  if (plan->earlier_turns == NULL)
    plan->earlier_turns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_add (plan->earlier_turns, g_strdup (turn_id));
}

static gboolean
is_earlier_turn (NatterImportPlan *plan,
                 const char       *turn_id)
{
  return plan->earlier_turns != NULL && g_hash_table_contains (plan->earlier_turns, turn_id);
}

static gboolean
check_lossless (GPtrArray   *events,
                const char  *what,
                GError     **error)
{
  for (guint i = 0; i < events->len; i++)
    {
      g_autoptr(GError) local = NULL;

      if (!natter_json_check_lossless (g_ptr_array_index (events, i), &local))
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("%s, event %u: %s"), what, i + 1, local->message);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_turns (NatterImportPlan  *plan,
             GHashTable        *turns,
             GError           **error)
{
  for (guint i = 0; i < plan->turn_ids->len; i++)
    {
      const char *turn_id = g_ptr_array_index (plan->turn_ids, i);
      GPtrArray *events = g_ptr_array_index (plan->turn_events, i);
      g_autofree char *what = g_strdup_printf (_("Turn %s"), turn_id);
      g_autoptr(GError) local = NULL;
      NatterTurnState *turn;
      const char *previous;

      if (!check_lossless (events, what, error))
        return FALSE;
      turn = natter_turn_reduce (events, &local);
      if (turn == NULL)
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       "%s: %s", what, local->message);
          return FALSE;
        }
      g_hash_table_insert (turns, (gpointer) turn_id, turn);
      if (g_strcmp0 (natter_turn_state_get_turn_id (turn), turn_id) != 0)
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("%s: its events name turn %s"), what, natter_turn_state_get_turn_id (turn));
          return FALSE;
        }
      previous = natter_turn_definition_get_previous_turn_id (natter_turn_state_get_definition (turn));
      /* Turns are written in order, so a turn continues only one that
       * is written before it. */
      if (previous != NULL && !g_hash_table_contains (turns, previous) && !is_earlier_turn (plan, previous))
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("%s continues turn %s, which does not come before it in the archive"),
                       what, previous);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
check_named_turns (NatterImportPlan    *plan,
                   GHashTable          *turns,
                   NatterSessionState  *state,
                   GError             **error)
{
  const char *fork_point = natter_session_state_get_forked_from_turn_id (state);

  if (fork_point != NULL && !is_earlier_turn (plan, fork_point))
    {
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                   _("The session branches at turn %s, which is not in the archive"), fork_point);
      return FALSE;
    }
  for (guint i = 0; i < plan->session_events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (plan->session_events, i));
      const char *kept = json_object_get_string_member_with_default (event, "firstKeptTurnId", NULL);

      if (kept != NULL && !g_hash_table_contains (turns, kept) && !is_earlier_turn (plan, kept))
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("The session, event %u: its summary keeps turn %s, which is not in the archive"), i + 1,
                       kept);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * natter_import_plan_check:
 * @plan: a plan
 * @out_state: (out) (optional) (transfer full): the session as it will read
 * @out_latest_status: (out) (optional) (transfer full): the index status
 *   of its latest turn (#NATTER_LATEST_TURN_STATUS_NONE without turns)
 * @error: return location for a #GError
 *
 * Checks every event of @plan as the store would on writing it: lossless
 * JSON, the schemas and the reducer rules of both logs; every turn the
 * session appends or names (its fork point, a summary's
 * `firstKeptTurnId`) and every turn a turn continues is in the plan,
 * before it, or one of its earlier turns. Nothing of @plan is changed.
 *
 * Returns: %TRUE when @plan can be written; %FALSE with
 *   %NATTER_SESSION_ERROR_INVALID_ARCHIVE naming the turn or session
 *   event that is wrong and why
 */
gboolean
natter_import_plan_check (NatterImportPlan    *plan,
                          NatterSessionState **out_state,
                          char               **out_latest_status,
                          GError             **error)
{
  g_autoptr(GHashTable) turns = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                       (GDestroyNotify) natter_turn_state_unref);
  g_autoptr(NatterSessionState) state = natter_session_state_new ();
  const char *latest;

  g_return_val_if_fail (plan != NULL, FALSE);

  if (!check_turns (plan, turns, error) ||
      !check_lossless (plan->session_events, _("The session"), error))
    return FALSE;
  for (guint i = 0; i < plan->session_events->len; i++)
    {
      g_autoptr(GError) local = NULL;

      if (!natter_session_state_apply (state, json_node_get_object (g_ptr_array_index (plan->session_events, i)),
                                       &local))
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("The session, event %u: %s"), i + 1, local->message);
          return FALSE;
        }
    }
  if (plan->session_events->len == 0 ||
      g_strcmp0 (natter_session_state_get_session_id (state), plan->session_id) != 0)
    {
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                   _("The session has no events of its own"));
      return FALSE;
    }
  for (guint i = 0; i < natter_session_state_get_n_turns (state); i++)
    {
      const NatterSessionTurn *turn = natter_session_state_get_turn (state, i);

      if (!g_hash_table_contains (turns, turn->turn_id))
        {
          g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE,
                       _("The session refers to turn %s, which is not in the archive"), turn->turn_id);
          return FALSE;
        }
    }
  /* Every other turn the session names is one it brings too, or one an
   * earlier plan wrote: nothing may point at a file of the store. */
  if (!check_named_turns (plan, turns, state, error))
    return FALSE;

  latest = natter_session_state_get_latest_turn_id (state);
  if (out_latest_status != NULL)
    *out_latest_status = g_strdup (latest == NULL
                                   ? NATTER_LATEST_TURN_STATUS_NONE
                                   : natter_latest_turn_status_from_turn_status (
                                       natter_derive_turn_status (g_hash_table_lookup (turns, latest))));
  if (out_state != NULL)
    *out_state = g_steal_pointer (&state);
  return TRUE;
}

static void
remap_member (JsonObject *object,
              const char *member,
              GHashTable *new_ids)
{
  const char *old;
  const char *new;

  if (object == NULL || !json_object_has_member (object, member))
    return;
  old = json_object_get_string_member_with_default (object, member, NULL);
  new = old != NULL ? g_hash_table_lookup (new_ids, old) : NULL;
  if (new != NULL)
    json_object_set_string_member (object, member, new);
}

static JsonObject *
object_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/**
 * natter_turn_definition_get_resolved_agent:
 * @definition: (transfer none): a turn's `turn_created` event (its
 *   definition, natter_turn_state_get_definition())
 *
 * The agent the turn runs with, as it was resolved (`agent.resolved`,
 * docs/format.md §4.2): its `model`, `systemPrompt`, `tools` and
 * `agentId`. Pure.
 *
 * Returns: (transfer none) (nullable): the object, owned by @definition;
 *   %NULL where an event not checked yet (an archive's) lacks it
 */
JsonObject *
natter_turn_definition_get_resolved_agent (JsonObject *definition)
{
  JsonObject *agent;

  g_return_val_if_fail (definition != NULL, NULL);

  agent = object_member (definition, "agent");
  return agent != NULL ? object_member (agent, "resolved") : NULL;
}

/**
 * natter_turn_definition_get_model:
 * @definition: (transfer none): a turn's `turn_created` event (its
 *   definition, natter_turn_state_get_definition())
 *
 * The model the turn runs with (`agent.resolved.model`, docs/format.md
 * §4.2), `{provider, model}`. Pure.
 *
 * Returns: (transfer none) (nullable): the object, owned by @definition;
 *   %NULL where an event not checked yet (an archive's) lacks it
 */
JsonObject *
natter_turn_definition_get_model (JsonObject *definition)
{
  JsonObject *resolved = natter_turn_definition_get_resolved_agent (definition);

  return resolved != NULL ? object_member (resolved, "model") : NULL;
}

/**
 * natter_import_plan_remap:
 * @plan: a checked plan
 * @new_ids: (element-type utf8 utf8): placeholder id → new id, for the
 *   session and every turn of @plan
 *
 * Replaces every id of @plan by its new one, wherever the format holds
 * one: the session's and turns' own ids, `turn_appended.turnId`,
 * `session_created.parentSession` and `forkedFromTurnId`,
 * `conversation_compacted.firstKeptTurnId`, a turn's `sessionId`, a
 * context's and a request's `previousTurnId`, and @plan's earlier
 * turns.
 */
void
natter_import_plan_remap (NatterImportPlan *plan,
                          GHashTable       *new_ids)
{
  const char *session_id = g_hash_table_lookup (new_ids, plan->session_id);

  g_return_if_fail (session_id != NULL);

  g_free (plan->session_id);
  plan->session_id = g_strdup (session_id);
  for (guint i = 0; i < plan->session_events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (plan->session_events, i));

      remap_member (event, "sessionId", new_ids);
      remap_member (event, "turnId", new_ids);
      remap_member (event, "parentSession", new_ids);
      remap_member (event, "forkedFromTurnId", new_ids);
      remap_member (event, "firstKeptTurnId", new_ids);
    }
  if (plan->earlier_turns != NULL)
    {
      GHashTable *earlier = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, plan->earlier_turns);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        {
          const char *new = g_hash_table_lookup (new_ids, key);

          g_hash_table_add (earlier, g_strdup (new != NULL ? new : key));
        }
      g_hash_table_unref (plan->earlier_turns);
      plan->earlier_turns = earlier;
    }
  for (guint i = 0; i < plan->turn_ids->len; i++)
    {
      GPtrArray *events = g_ptr_array_index (plan->turn_events, i);
      const char *turn_id = g_hash_table_lookup (new_ids, g_ptr_array_index (plan->turn_ids, i));

      g_return_if_fail (turn_id != NULL);
      g_free (plan->turn_ids->pdata[i]);
      plan->turn_ids->pdata[i] = g_strdup (turn_id);
      for (guint j = 0; j < events->len; j++)
        {
          JsonObject *event = json_node_get_object (g_ptr_array_index (events, j));
          JsonObject *request = object_member (event, "request");

          remap_member (event, "turnId", new_ids);
          remap_member (event, "sessionId", new_ids);
          remap_member (object_member (event, "context"), "previousTurnId", new_ids);
          if (request != NULL)
            remap_member (object_member (request, "contextRef"), "previousTurnId", new_ids);
        }
    }
}

/* Archives */

static JsonArray *
node_array (GPtrArray *events)
{
  JsonArray *array = json_array_sized_new (events->len);

  for (guint i = 0; i < events->len; i++)
    json_array_add_element (array, json_node_copy (g_ptr_array_index (events, i)));
  return array;
}

static int
compare_names (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
take_string_member (JsonObject *object,
                                       const char *member,
                                       char       *value)
{
  json_object_set_string_member (object, member, value);
  g_free (value);
}

/**
 * natter_turn_events_dup_blob_names:
 * @events: (element-type JsonNode): a turn's log
 *
 * The attachments the turn carries: the `blob` parts of its input and of
 * its inline context (docs/format.md §4.4).
 *
 * Returns: (transfer full) (element-type utf8): their SHA-256 names, each
 *   once
 */
GPtrArray *
natter_turn_events_dup_blob_names (GPtrArray *events)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  JsonObject *created;
  g_autoptr(GPtrArray) messages = g_ptr_array_new ();
  JsonNode *context;

  if (events->len == 0)
    return names;
  created = json_node_get_object (g_ptr_array_index (events, 0));
  if (object_member (created, "input") != NULL)
    g_ptr_array_add (messages, object_member (created, "input"));
  context = json_object_get_member (created, "context");
  if (context != NULL && JSON_NODE_HOLDS_ARRAY (context))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (context)); i++)
      {
        JsonNode *message = json_array_get_element (json_node_get_array (context), i);

        if (JSON_NODE_HOLDS_OBJECT (message))
          g_ptr_array_add (messages, json_node_get_object (message));
      }
  for (guint i = 0; i < messages->len; i++)
    {
      g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (g_ptr_array_index (messages, i));

      for (guint j = 0; j < parts->len; j++)
        {
          const char *sha256 = json_object_get_string_member_with_default (g_ptr_array_index (parts, j), "sha256", NULL);

          if (sha256 != NULL && !g_ptr_array_find_with_equal_func (names, sha256, g_str_equal, NULL))
            g_ptr_array_add (names, g_strdup (sha256));
        }
    }
  return names;
}

/**
 * natter_session_archive_new:
 * @session_events: (element-type JsonNode): the session's log
 * @turn_ids: (element-type utf8): the turns the session shows, in the
 *   order of the conversation (a branch's inherited turns first)
 * @turn_events: (element-type GPtrArray): the log of each of @turn_ids
 * @blobs: (nullable) (element-type utf8 GBytes): the attachments the
 *   turns carry, by SHA-256
 * @exported_at: the timestamp of the export
 *
 * Builds the JSON archive of docs/format.md §7.
 *
 * Returns: (transfer full): the archive, an object node
 */
JsonNode *
natter_session_archive_new (GPtrArray  *session_events,
                            GPtrArray  *turn_ids,
                            GPtrArray  *turn_events,
                            GHashTable *blobs,
                            const char *exported_at)
{
  JsonObject *archive = json_object_new ();
  JsonArray *turns = json_array_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (turn_ids->len == turn_events->len, NULL);

  json_object_set_string_member (archive, "format", NATTER_ARCHIVE_FORMAT);
  json_object_set_int_member (archive, "version", NATTER_ARCHIVE_VERSION);
  json_object_set_string_member (archive, "exportedAt", exported_at);
  json_object_set_array_member (archive, "session", node_array (session_events));
  for (guint i = 0; i < turn_ids->len; i++)
    {
      JsonObject *turn = json_object_new ();

      json_object_set_string_member (turn, "turnId", g_ptr_array_index (turn_ids, i));
      json_object_set_array_member (turn, "events", node_array (g_ptr_array_index (turn_events, i)));
      json_array_add_object_element (turns, turn);
    }
  json_object_set_array_member (archive, "turns", turns);
  if (blobs != NULL && g_hash_table_size (blobs) > 0)
    {
      g_autofree const char **names = (const char **) g_hash_table_get_keys_as_array (blobs, NULL);
      JsonArray *array = json_array_new ();

      /* In name order, so that the same conversation exports the same. */
      g_qsort_with_data (names, g_hash_table_size (blobs), sizeof (char *), compare_names, NULL);
      for (guint i = 0; names[i] != NULL; i++)
        {
          GBytes *bytes = g_hash_table_lookup (blobs, names[i]);
          JsonObject *blob = json_object_new ();
          gsize size;
          const guchar *data = g_bytes_get_data (bytes, &size);

          json_object_set_string_member (blob, "sha256", names[i]);
          take_string_member (blob, "data", g_base64_encode (data, size));
          json_array_add_object_element (array, blob);
        }
      json_object_set_array_member (archive, "blobs", array);
    }
  json_node_take_object (node, archive);
  return node;
}

/* An archive that breaks its shape (docs/format.md §7.1). */
#define archive_error(error, ...) \
  natter_set_error_false ((error), NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARCHIVE, __VA_ARGS__)

/* Copies the objects of @array (the member @what of the archive). */
static GPtrArray *
copy_objects (JsonArray   *array,
              const char  *what,
              GError     **error)
{
  g_autoptr(GPtrArray) copies = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_OBJECT (element))
        {
          archive_error (error, _("%s, event %u is not a JSON object"), what, i + 1);
          return NULL;
        }
      g_ptr_array_add (copies, json_node_copy (element));
    }
  return g_steal_pointer (&copies);
}

static JsonArray *
array_member (JsonObject *object,
              const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  return node != NULL && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;
}

/* The turns of the archive, by id, each its copied events. */
static GHashTable *
read_turns (JsonArray   *turns,
            GPtrArray   *order,
            GError     **error)
{
  g_autoptr(GHashTable) by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                       (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; i < json_array_get_length (turns); i++)
    {
      JsonNode *element = json_array_get_element (turns, i);
      JsonObject *turn = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *turn_id = turn != NULL ? json_object_get_string_member_with_default (turn, "turnId", NULL) : NULL;
      JsonArray *events = turn != NULL ? array_member (turn, "events") : NULL;
      g_autofree char *what = NULL;
      GPtrArray *copies;

      if (turn_id == NULL || !natter_id_validate (turn_id, NULL) || events == NULL)
        {
          archive_error (error, _("Entry %u of “turns” is not {turnId, events}"), i + 1);
          return NULL;
        }
      if (g_hash_table_contains (by_id, turn_id))
        {
          archive_error (error, _("Turn %s is in the archive twice"), turn_id);
          return NULL;
        }
      what = g_strdup_printf (_("Turn %s"), turn_id);
      copies = copy_objects (events, what, error);
      if (copies == NULL)
        return NULL;
      if (copies->len == 0)
        {
          g_ptr_array_unref (copies);
          archive_error (error, _("Turn %s has no events"), turn_id);
          return NULL;
        }
      g_hash_table_insert (by_id, g_strdup (turn_id), copies);
      g_ptr_array_add (order, g_strdup (turn_id));
    }
  return g_steal_pointer (&by_id);
}

/* The turns a branch shows before its own: the chain of contexts from
 * its fork point back to the first turn, oldest first. */
static GPtrArray *
inherited_chain (GHashTable  *turns,
                 const char  *fork_point,
                 GError     **error)
{
  g_autoptr(GPtrArray) chain = g_ptr_array_new_with_free_func (g_free);

  for (const char *turn_id = fork_point; turn_id != NULL;)
    {
      GPtrArray *events = g_hash_table_lookup (turns, turn_id);

      if (events == NULL)
        {
          archive_error (error, _("The archive lacks turn %s, which the conversation continues"), turn_id);
          return NULL;
        }
      if (chain->len > g_hash_table_size (turns))
        {
          archive_error (error, _("The turns of the archive continue each other in a circle"));
          return NULL;
        }
      g_ptr_array_insert (chain, 0, g_strdup (turn_id));
      turn_id = natter_turn_definition_get_previous_turn_id (json_node_get_object (g_ptr_array_index (events, 0)));
    }
  return g_steal_pointer (&chain);
}

/* turn_appended for an inherited turn, from its definition. Whatever is
 * missing is left for the check to name. */
static JsonNode *
appended_for (const char *session_id,
              const char *ts,
              const char *turn_id,
              gint64      seq,
              JsonObject *created)
{
  JsonObject *agent = object_member (created, "agent");
  JsonObject *resolved = natter_turn_definition_get_resolved_agent (created);
  JsonObject *requested = agent != NULL ? object_member (agent, "requested") : NULL;
  JsonObject *model = natter_turn_definition_get_model (created);
  const char *agent_id = resolved != NULL ? json_object_get_string_member_with_default (resolved, "agentId", NULL) : NULL;
  g_autoptr(JsonObject) empty = json_object_new ();

  if (agent_id == NULL && requested != NULL)
    agent_id = json_object_get_string_member_with_default (requested, "agentId", NULL);
  return natter_session_event_new_turn_appended (session_id, ts, turn_id, seq,
                                                 agent_id != NULL ? agent_id : "",
                                                 model != NULL ? model : empty);
}

static gboolean is_authority (JsonObject *event,
                              GHashTable *grants,
                              GHashTable *queued);

/* The grants still active and the queued messages still pending at the
 * end of the session's log as exported, whose events the import leaves
 * behind (docs/format.md §7.1). */
static void
find_authority (NatterSessionState *state,
                GHashTable         *grants,
                GHashTable         *queued)
{
  for (guint i = 0; i < natter_session_state_get_n_grants (state); i++)
    g_hash_table_add (grants, g_strdup (natter_session_state_get_grant (state, i)->grant_id));
  for (guint i = 0; i < natter_session_state_get_n_queued (state); i++)
    g_hash_table_add (queued, g_strdup (natter_session_state_get_queued (state, i)->queue_id));
}

/* The position in @events of the conversation's settings in force at the
 * end of its log (its last `parameters_changed`), when they add an
 * instruction to the agent's system prompt; else 0 (the first event is
 * always `session_created`). */
static guint
find_instruction (GPtrArray *events)
{
  for (guint i = events->len; i > 1; i--)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i - 1));

      if (g_strcmp0 (json_object_get_string_member_with_default (event, "type", NULL), "parameters_changed") == 0)
        return json_object_has_member (event, "systemInstruction") ? i - 1 : 0;
    }
  return 0;
}

/* A title is one line of text (docs/format.md "title_changed"), and an
 * older file may hold one that is not: the title of @event (a
 * `session_created` or a `title_changed`) comes in with each run of
 * control characters and white space made one space, as a title Natter
 * makes. A title without control characters stays exactly as it is. */
static void
clean_title (JsonObject *event)
{
  const char *title = json_object_get_string_member_with_default (event, "title", NULL);
  g_autofree char *clean = NULL;

  if (title == NULL || !natter_text_has_control (title))
    return;
  clean = natter_session_title_clean (title);
  json_object_set_string_member (event, "title", clean != NULL ? clean : "");
}

/* The session's log for the plan: a branch becomes a conversation of its
 * own, whose first turns are the ones it inherited. Like every new file
 * it starts at schema version 1 and is raised right before its first
 * event of a later version (docs/format.md §3.3), whatever version the
 * exported file had: the archive's own `schema_upgraded` events are not
 * copied, nor are its pin and folder. What is data, never authority, stays behind: the events of
 * grants still active and of queued messages still pending at the end of
 * the log, the working folder, and the instruction the conversation's
 * settings add to every prompt (its numbers, such as the temperature,
 * only tune answers and come along), each counted in the plan's report. A
 * log that does not read as exported (an unknown version among its
 * faults) is copied as it is, for the check to refuse. */
static gboolean
plan_session (NatterImportPlan  *plan,
              GPtrArray         *events,
              GPtrArray         *inherited,
              GHashTable        *turns,
              GError           **error)
{
  JsonObject *created = json_node_get_object (g_ptr_array_index (events, 0));
  const char *ts = json_object_get_string_member_with_default (created, "ts", "");
  JsonNode *first = json_node_copy (g_ptr_array_index (events, 0));
  g_autoptr(NatterSessionState) as_exported = natter_session_reduce (events, NULL);
  g_autoptr(GHashTable) grants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) queued = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean lowest = as_exported != NULL;
  guint instruction = lowest ? find_instruction (events) : 0;

  clean_title (json_node_get_object (first));
  json_object_remove_member (json_node_get_object (first), "parentSession");
  json_object_remove_member (json_node_get_object (first), "forkedFromTurnId");
  if (json_object_has_member (json_node_get_object (first), "cwd"))
    {
      json_object_remove_member (json_node_get_object (first), "cwd");
      plan->report->n_working_folders++;
    }
  if (lowest)
    {
      find_authority (as_exported, grants, queued);
      plan->report->n_grants += g_hash_table_size (grants);
      plan->report->n_queued += g_hash_table_size (queued);
    }
  if (lowest)
    json_object_set_int_member (json_node_get_object (first), "schemaVersion", 1);
  g_ptr_array_add (plan->session_events, first);
  for (guint i = 0; i < inherited->len; i++)
    {
      const char *turn_id = g_ptr_array_index (inherited, i);
      GPtrArray *turn = g_hash_table_lookup (turns, turn_id);

      g_ptr_array_add (plan->session_events,
                       appended_for (plan->session_id, ts, turn_id, (gint64) i + 1,
                                     json_node_get_object (g_ptr_array_index (turn, 0))));
    }
  for (guint i = 1; i < events->len; i++)
    {
      JsonNode *copy;
      JsonObject *event;

      const char *type = json_object_get_string_member_with_default (json_node_get_object (g_ptr_array_index (events, i)),
                                                                     "type", "");

      /* Where the conversation sat in the sender's list (a pin, a folder
       * of theirs) is no place in this one: it comes in unpinned and in
       * no folder (docs/format.md §7.1). */
      if (lowest &&
          (g_str_equal (type, "schema_upgraded") || natter_session_event_is_v4_type (type) ||
           is_authority (json_node_get_object (g_ptr_array_index (events, i)), grants, queued)))
        continue;
      copy = json_node_copy (g_ptr_array_index (events, i));
      event = json_node_get_object (copy);
      if (g_str_equal (type, "title_changed"))
        clean_title (event);
      /* Words that would steer every later answer, which the person never
       * wrote: left out, and said. One replaced in the archive is
       * history, like a revoked grant. */
      if (i == instruction)
        {
          json_object_remove_member (event, "systemInstruction");
          plan->report->n_instructions++;
        }
      if (json_object_has_member (event, "sessionSeq") && inherited->len > 0)
        json_object_set_int_member (event, "sessionSeq",
                                    json_object_get_int_member (event, "sessionSeq") + inherited->len);
      g_ptr_array_add (plan->session_events, copy);
    }
  if (lowest)
    natter_session_events_raise (plan->session_events, 1, NULL);
  return TRUE;
}

/* The archive's attachments, each checked against its name: bytes that
 * do not hash to it are damage, never stored. */
static gboolean
read_blobs (JsonObject  *root,
            GHashTable  *blobs,
            GError     **error)
{
  JsonArray *array = array_member (root, "blobs");

  if (array == NULL)
    {
      if (json_object_has_member (root, "blobs"))
        return archive_error (error, _("The archive’s “blobs” is not an array"));
      return TRUE;
    }
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      JsonObject *blob = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *sha256 = blob != NULL ? json_object_get_string_member_with_default (blob, "sha256", NULL) : NULL;
      const char *data = blob != NULL ? json_object_get_string_member_with_default (blob, "data", NULL) : NULL;
      g_autofree guchar *bytes = NULL;
      g_autofree char *actual = NULL;
      gsize size = 0;

      if (sha256 == NULL || !natter_blob_hash_is_valid (sha256) || data == NULL)
        return archive_error (error, _("Entry %u of “blobs” is not {sha256, data}"), i + 1);
      bytes = g_base64_decode (data, &size);
      actual = g_compute_checksum_for_data (G_CHECKSUM_SHA256, bytes, size);
      if (!g_str_equal (actual, sha256))
        return archive_error (error, _("Attachment %s in the archive is damaged: its bytes do not match its name"),
                              sha256);
      g_hash_table_insert (blobs, g_strdup (sha256), g_bytes_new_take (g_steal_pointer (&bytes), size));
    }
  return TRUE;
}

/* Whether @event gives the session authority the import leaves behind:
 * an active grant, or a queued message still to be sent. */
static gboolean
is_authority (JsonObject *event,
              GHashTable *grants,
              GHashTable *queued)
{
  const char *type = json_object_get_string_member_with_default (event, "type", "");

  if (g_str_equal (type, "permission_grant_added"))
    return g_hash_table_contains (grants, json_object_get_string_member_with_default (event, "grantId", ""));
  if (g_str_equal (type, "message_queued") || g_str_equal (type, "queued_message_replaced"))
    return g_hash_table_contains (queued, json_object_get_string_member_with_default (event, "queueId", ""));
  return FALSE;
}

/* The mark of an imported turn (docs/format.md §7.3), unless the turn
 * already carries one (an archive of a conversation imported before
 * keeps where it first came from). */
static void
mark_imported (JsonObject *created,
               const char *from)
{
  JsonObject *config = object_member (created, "config");
  JsonObject *imported;

  if (config == NULL || json_object_has_member (config, "imported"))
    return;
  imported = json_object_new ();
  json_object_set_string_member (imported, "from", from);
  json_object_set_object_member (config, "imported", imported);
}

/* Whether the turn's model was reached at an address rather than
 * through one of the person's providers. */
static gboolean
names_endpoint (JsonObject *created)
{
  JsonObject *model = natter_turn_definition_get_model (created);
  const char *provider = model != NULL ? json_object_get_string_member_with_default (model, "provider", NULL) : NULL;

  return provider != NULL && natter_provider_id_is_endpoint (provider);
}

/* What an archive's turns bring is data, never authority (docs/format.md
 * §7.1): every turn is marked imported (what it names as agent, provider
 * or address is a label from then on), and a turn that had not ended
 * (waiting for a permission, a tool or a resume) is brought in stopped,
 * since the work it waits for is not brought. The session's grants,
 * queued messages and working folder stay behind in plan_session(). What
 * is left out is counted in the plan's report. */
static void
leave_authority_behind (NatterImportPlan *plan,
                        const char       *ts)
{
  for (guint i = 0; i < plan->turn_events->len; i++)
    {
      GPtrArray *events = g_ptr_array_index (plan->turn_events, i);
      JsonObject *definition = json_node_get_object (g_ptr_array_index (events, 0));
      g_autoptr(NatterTurnState) turn = NULL;

      mark_imported (definition, "natter-archive");
      if (names_endpoint (definition))
        plan->report->n_endpoints++;
      turn = natter_turn_reduce (events, NULL);
      if (turn != NULL && natter_turn_state_get_terminal_event (turn) == NULL)
        {
          g_autoptr(GPtrArray) stop = natter_turn_step_dup_cancellation (
            turn, ts, "Imported: what this answer was waiting for was not brought over");

          for (guint j = 0; j < stop->len; j++)
            g_ptr_array_add (events, json_node_ref (g_ptr_array_index (stop, j)));
          plan->report->n_stopped++;
        }
    }
}

/**
 * natter_session_archive_plan_import:
 * @archive: a parsed archive (docs/format.md §7)
 * @ts: the time of the import, for the events it adds
 * @error: return location for a #GError
 *
 * The plan that imports @archive, still with the archive's ids (give it
 * new ones with natter_import_plan_remap()). A branch comes in as a
 * conversation of its own: the turns it inherited become its first turns
 * and it no longer names a parent (which may not exist where it is
 * imported). Every turn's `sessionId` becomes the session's. What the
 * archive brings is data, never authority: its active grants, pending
 * queued messages, working folder and the system instruction its
 * settings add are left behind, its turns are
 * marked imported and those that had not ended are stopped; the plan's
 * report counts it all. The plan is checked with
 * natter_import_plan_check().
 *
 * Returns: (transfer full) (nullable): the plan, or %NULL with
 *   %NATTER_SESSION_ERROR_INVALID_ARCHIVE saying what is wrong
 */
NatterImportPlan *
natter_session_archive_plan_import (JsonNode    *archive,
                                    const char  *ts,
                                    GError     **error)
{
  g_autoptr(NatterImportPlan) plan = NULL;
  g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) session = NULL;
  g_autoptr(GHashTable) turns = NULL;
  g_autoptr(GHashTable) appended = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GPtrArray) inherited = NULL;
  JsonObject *root;
  JsonObject *created;
  JsonArray *session_array;
  JsonArray *turn_array;
  const char *session_id;
  JsonNode *version;

  g_return_val_if_fail (archive != NULL, NULL);

  root = JSON_NODE_HOLDS_OBJECT (archive) ? json_node_get_object (archive) : NULL;
  if (root == NULL ||
      g_strcmp0 (json_object_get_string_member_with_default (root, "format", NULL), NATTER_ARCHIVE_FORMAT) != 0)
    {
      archive_error (error, _("This is not a Natter archive: it has no “format”: “%s”"), NATTER_ARCHIVE_FORMAT);
      return NULL;
    }
  version = json_object_get_member (root, "version");
  if (version == NULL || json_node_get_value_type (version) != G_TYPE_INT64 ||
      json_node_get_int (version) != NATTER_ARCHIVE_VERSION)
    {
      archive_error (error, _("The archive’s “version” is not %d, the only one this Natter reads"),
                     NATTER_ARCHIVE_VERSION);
      return NULL;
    }
  session_array = array_member (root, "session");
  turn_array = array_member (root, "turns");
  if (session_array == NULL || turn_array == NULL)
    {
      archive_error (error, _("The archive lacks its “%s” array"), session_array == NULL ? "session" : "turns");
      return NULL;
    }
  session = copy_objects (session_array, _("The session"), error);
  if (session == NULL)
    return NULL;
  if (session->len == 0)
    {
      archive_error (error, _("The archive’s session has no events"));
      return NULL;
    }
  created = json_node_get_object (g_ptr_array_index (session, 0));
  session_id = json_object_get_string_member_with_default (created, "sessionId", NULL);
  if (session_id == NULL || !natter_id_validate (session_id, NULL))
    {
      archive_error (error, _("The session’s first event has no valid “sessionId”"));
      return NULL;
    }
  turns = read_turns (turn_array, order, error);
  if (turns == NULL)
    return NULL;

  inherited = inherited_chain (turns, json_object_get_string_member_with_default (created, "forkedFromTurnId", NULL),
                               error);
  if (inherited == NULL)
    return NULL;
  for (guint i = 0; i < session->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (session, i));
      const char *turn_id = json_object_get_string_member_with_default (event, "turnId", NULL);

      if (turn_id != NULL)
        g_hash_table_add (appended, (gpointer) turn_id);
    }
  for (guint i = 0; i < order->len; i++)
    {
      const char *turn_id = g_ptr_array_index (order, i);

      if (!g_hash_table_contains (appended, turn_id) &&
          !g_ptr_array_find_with_equal_func (inherited, turn_id, g_str_equal, NULL))
        {
          archive_error (error, _("Turn %s is in the archive but not in its conversation"), turn_id);
          return NULL;
        }
    }

  plan = natter_import_plan_new (session_id);
  if (!plan_session (plan, session, inherited, turns, error) ||
      !read_blobs (root, plan->blobs, error))
    return NULL;
  /* Inherited turns first, then the session's own in the order they
   * were appended; their files are written in this order. */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < order->len; i++)
      {
        const char *turn_id = g_ptr_array_index (order, i);
        gboolean is_inherited = g_ptr_array_find_with_equal_func (inherited, turn_id, g_str_equal, NULL);
        GPtrArray *events;
        GPtrArray *source;

        if (is_inherited != (pass == 0))
          continue;
        source = g_hash_table_lookup (turns, turn_id);
        events = natter_import_plan_add_turn (plan, turn_id);
        for (guint j = 0; j < source->len; j++)
          g_ptr_array_add (events, json_node_ref (g_ptr_array_index (source, j)));
        json_object_set_string_member (json_node_get_object (g_ptr_array_index (events, 0)), "sessionId", session_id);
      }
  leave_authority_behind (plan, ts);
  if (!natter_import_plan_check (plan, NULL, NULL, error))
    return NULL;
  return g_steal_pointer (&plan);
}
