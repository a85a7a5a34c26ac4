/* natter-sessions-settings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a conversation keeps about itself: its generation parameters
 * (docs/format.md §3.5), whether it is pinned and which folder it is in
 * (docs/format.md §3.6). A
 * conversation with versions (edits and new tries, docs/sessions.md §3)
 * is one conversation to the person, so these belong to it as a whole:
 * they are written to, and read from, the log of its original — the
 * session that is no version of another (natter-session-families.c).
 * Setting one from any version is one append to one file; every version,
 * new ones included, has the same from then on.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-session-parameters-event.h"
#include "natter-session-placement-event.h"
#include "natter-session-families.h"
#include "natter-sessions-private.h"
#include "natter-sessions-settings.h"
#include "natter-sync-conflict-name.h"

static NatterSessionIndexEntry *
conversation_entry (NatterSessions *self,
                    const char     *session_id)
{
  return natter_session_families_find_original (self->index, session_id);
}

/**
 * natter_sessions_get_conversation_id:
 * @self: the service
 * @session_id: a session
 *
 * The session that holds what @session_id's conversation keeps: its
 * original (natter_session_families_find_original()), or @session_id
 * itself when the index does not list it.
 *
 * Returns: (transfer none): a session id, valid while the index lists it
 *   (or as long as @session_id)
 */
const char *
natter_sessions_get_conversation_id (NatterSessions *self,
                                     const char     *session_id)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  entry = conversation_entry (self, session_id);
  return entry != NULL ? natter_session_index_entry_get_session_id (entry) : session_id;
}

/**
 * natter_sessions_get_kept_parameters:
 * @self: the service
 * @session_id: a session
 *
 * The generation parameters @session_id's conversation keeps: every
 * message of it is sent with them, under its own (docs/sessions.md §15).
 *
 * Returns: (transfer none) (nullable): the parameters, or %NULL when the
 *   conversation keeps none; valid until the index changes
 */
const NatterGenerationParameters *
natter_sessions_get_kept_parameters (NatterSessions *self,
                                     const char     *session_id)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  entry = conversation_entry (self, session_id);
  return entry != NULL ? natter_session_index_entry_get_parameters (entry) : NULL;
}

static void
appended_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;

  if (!natter_sessions_append_events_finish (NATTER_SESSIONS (object), result, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* Builds the event that keeps @value for the conversation
 * @conversation_id at @ts. */
typedef JsonNode *(*SettingEventNew) (const char    *conversation_id,
                                      const char    *ts,
                                      gconstpointer  value);

static JsonNode *
parameters_changed_new (const char    *conversation_id,
                        const char    *ts,
                        gconstpointer  parameters)
{
  return natter_session_event_new_parameters_changed (conversation_id, ts, parameters);
}

static JsonNode *
pin_changed_new (const char    *conversation_id,
                 const char    *ts,
                 gconstpointer  pinned)
{
  return natter_session_event_new_pin_changed (conversation_id, ts, GPOINTER_TO_INT (pinned));
}

static JsonNode *
folder_changed_new (const char    *conversation_id,
                    const char    *ts,
                    gconstpointer  folder_id)
{
  return natter_session_event_new_folder_changed (conversation_id, ts, folder_id);
}

/* Keeps @value for @session_id's conversation: the event @event_new
 * builds, appended to its original; nothing is written when @same (the
 * conversation keeps @value already) and the index lists the
 * conversation. */
static void
append_setting (NatterSessions      *self,
                const char          *session_id,
                SettingEventNew      event_new,
                gconstpointer        value,
                gboolean             same,
                GCancellable        *cancellable,
                GAsyncReadyCallback  callback,
                gpointer             user_data,
                gpointer             source_tag)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  const char *conversation_id = natter_sessions_get_conversation_id (self, session_id);
  g_autofree char *ts = natter_clock_format_ts (self->clock);

  g_task_set_source_tag (task, source_tag);
  if (same && natter_session_index_lookup (self->index, conversation_id) != NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  g_ptr_array_add (events, event_new (conversation_id, ts, value));
  /* The one writer of later-version events: a file at an older version
   * is raised first, in the same write (docs/format.md §3.3). */
  natter_sessions_append_events_async (self, conversation_id, events, cancellable, appended_cb,
                                       g_steal_pointer (&task));
}

static gboolean
setting_finish (NatterSessions  *self,
                GAsyncResult    *result,
                gpointer         source_tag,
                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * natter_sessions_set_parameters_async:
 * @self: the service
 * @session_id: a session of the conversation
 * @parameters: (nullable): the conversation's generation parameters from
 *   now on, in full; %NULL or empty to keep none
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Keeps @parameters for the conversation: `parameters_changed` appended
 * to its original's log (docs/format.md §3.5), after `schema_upgraded`
 * where the file is at an older version. Every later message of the
 * conversation, in any of its versions, is sent with them
 * (docs/sessions.md §15). Nothing is written when they are what the
 * conversation keeps already.
 */
void
natter_sessions_set_parameters_async (NatterSessions                   *self,
                                      const char                       *session_id,
                                      const NatterGenerationParameters *parameters,
                                      GCancellable                     *cancellable,
                                      GAsyncReadyCallback               callback,
                                      gpointer                          user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  append_setting (self, session_id, parameters_changed_new, parameters,
                  natter_generation_parameters_equal (natter_sessions_get_kept_parameters (self, session_id),
                                                      parameters),
                  cancellable, callback, user_data, natter_sessions_set_parameters_async);
}

/**
 * natter_sessions_set_parameters_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once kept; else %FALSE with the errors of a write to the
 *   session (%NATTER_SESSION_ERROR_NOT_FOUND, a damaged file's
 *   %NATTER_STORE_ERROR, …)
 */
gboolean
natter_sessions_set_parameters_finish (NatterSessions  *self,
                                       GAsyncResult    *result,
                                       GError         **error)
{
  return setting_finish (self, result, natter_sessions_set_parameters_async, error);
}

/**
 * natter_sessions_get_pinned:
 * @self: the service
 * @session_id: a session
 *
 * Whether @session_id's conversation is pinned: its original's
 * `pin_changed` (docs/sessions.md §16).
 *
 * Returns: %TRUE when pinned
 */
gboolean
natter_sessions_get_pinned (NatterSessions *self,
                            const char     *session_id)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  entry = conversation_entry (self, session_id);
  return entry != NULL && natter_session_index_entry_get_pinned (entry);
}

/**
 * natter_sessions_get_folder_id:
 * @self: the service
 * @session_id: a session
 *
 * The folder @session_id's conversation was put in: its original's
 * `folder_changed` (docs/sessions.md §16). The folder may have been
 * deleted since; the folder list (natter-folders.c) says.
 *
 * Returns: (transfer none) (nullable): a folder id, or %NULL; valid
 *   until the index changes
 */
const char *
natter_sessions_get_folder_id (NatterSessions *self,
                               const char     *session_id)
{
  NatterSessionIndexEntry *entry;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  entry = conversation_entry (self, session_id);
  return entry != NULL ? natter_session_index_entry_get_folder_id (entry) : NULL;
}

/**
 * natter_sessions_set_pinned_async:
 * @self: the service
 * @session_id: a session of the conversation
 * @pinned: whether the conversation is to be pinned to the top of the list
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Pins or unpins the conversation: `pin_changed` appended to its
 * original's log (docs/format.md §3.6), after `schema_upgraded` where the
 * file is at an older version. Nothing is written when it is so already.
 */
void
natter_sessions_set_pinned_async (NatterSessions      *self,
                                  const char          *session_id,
                                  gboolean             pinned,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  append_setting (self, session_id, pin_changed_new, GINT_TO_POINTER (pinned),
                  natter_sessions_get_pinned (self, session_id) == !!pinned,
                  cancellable, callback, user_data, natter_sessions_set_pinned_async);
}

/**
 * natter_sessions_set_pinned_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once kept; else %FALSE with the errors of a write to the
 *   session (%NATTER_SESSION_ERROR_NOT_FOUND, a damaged file's
 *   %NATTER_STORE_ERROR, …)
 */
gboolean
natter_sessions_set_pinned_finish (NatterSessions  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  return setting_finish (self, result, natter_sessions_set_pinned_async, error);
}

/**
 * natter_sessions_set_folder_async:
 * @self: the service
 * @session_id: a session of the conversation
 * @folder_id: (nullable): the id of the folder to put the conversation
 *   in (natter_folders_create_async()), or %NULL for none
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Moves the conversation to a folder, or out of any: `folder_changed`
 * appended to its original's log (docs/format.md §3.6), after
 * `schema_upgraded` where the file is at an older version. The folder's
 * existence is the caller's to check: the log names a folder only by id.
 * Nothing is written when it is there already.
 */
void
natter_sessions_set_folder_async (NatterSessions      *self,
                                  const char          *session_id,
                                  const char          *folder_id,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_SESSIONS (self));
  g_return_if_fail (session_id != NULL);

  append_setting (self, session_id, folder_changed_new, folder_id,
                  g_strcmp0 (natter_sessions_get_folder_id (self, session_id), folder_id) == 0,
                  cancellable, callback, user_data, natter_sessions_set_folder_async);
}

/**
 * natter_sessions_set_folder_finish:
 * @self: the service
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once kept; else %FALSE with the errors of
 *   natter_sessions_set_pinned_finish()
 */
gboolean
natter_sessions_set_folder_finish (NatterSessions  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  return setting_finish (self, result, natter_sessions_set_folder_async, error);
}

/* What a deleted session hands to the versions made of it */

struct _NatterSessionsHeritage
{
  GStrv                       heirs;      /* the versions made of the deleted session itself */
  NatterGenerationParameters *parameters; /* or NULL: none kept */
  char                       *pinned;     /* the heir that takes the pin, or NULL: not pinned */
  char                       *folder_id;  /* or NULL: in no folder */
  guint                       next;
};

void
natter_sessions_heritage_free (NatterSessionsHeritage *heritage)
{
  if (heritage == NULL)
    return;
  g_strfreev (heritage->heirs);
  g_clear_pointer (&heritage->parameters, natter_generation_parameters_free);
  g_free (heritage->pinned);
  g_free (heritage->folder_id);
  g_free (heritage);
}

/* Which of @heirs takes the pin of @original's conversation: the person
 * pinned one conversation, and one stays pinned once its versions stand
 * alone. It is the heir whose conversation the list shows where the
 * pinned row was: the one holding the most recently active version
 * that stays, which the row showed (or shows once the original is
 * gone, when the original was that version). */
static char *
pinned_heir (NatterSessions *self,
             const char     *original,
             GStrv           heirs)
{
  g_autoptr(GListStore) kept = g_list_store_new (NATTER_TYPE_SESSION_INDEX_ENTRY);
  g_autoptr(NatterSessionFamilies) families = NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->index));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);

      if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), original) != 0)
        g_list_store_append (kept, entry);
    }
  families = natter_session_families_new (G_LIST_MODEL (kept));
  return g_strdup (natter_session_families_find_latest (families, (const char * const *) heirs));
}

/**
 * natter_sessions_dup_pin_heir:
 * @self: the service
 * @original: a session: the original of a conversation's versions
 *
 * Which of the versions made of @original would take its
 * conversation's pin were @original deleted now (docs/sessions.md §9.4):
 * the list shows that already while a deletion's undo toast is up, so
 * that what it shows then is what it shows once the deletion is carried
 * out.
 *
 * Returns: (transfer full) (nullable): the version's session id; %NULL
 *   when the conversation is not pinned, @original is not its original,
 *   or no version would take the pin
 */
char *
natter_sessions_dup_pin_heir (NatterSessions *self,
                              const char     *original)
{
  NatterSessionsHeritage *heritage;
  char *heir;

  g_return_val_if_fail (NATTER_IS_SESSIONS (self), NULL);
  g_return_val_if_fail (original != NULL, NULL);

  heritage = natter_sessions_heritage_new (self, original);
  if (heritage == NULL)
    return NULL;
  heir = g_steal_pointer (&heritage->pinned);
  natter_sessions_heritage_free (heritage);
  return heir;
}

/*
 * natter_sessions_heritage_new:
 * @self: the service
 * @session_id: a session about to be deleted
 *
 * What the versions made of @session_id take once it is deleted: each
 * then stands alone as a conversation of its own (docs/format.md §3.2),
 * and takes what its conversation keeps, so that the conversation the
 * person placed keeps its place and settings. When @session_id is the
 * original of versions, that is what its own file keeps: its generation
 * parameters, folder and pin (docs/format.md §3.5, §3.6), the pin to one
 * of them (pinned_heir()). When it is a version itself, readable, its
 * conversation's original stays and keeps all three: the versions made
 * of it take the parameters and folder, and the pin stays where it is.
 *
 * Returns: (transfer full) (nullable): the heritage, or %NULL when
 *   @session_id's conversation keeps nothing or nothing was made of it
 */
NatterSessionsHeritage *
natter_sessions_heritage_new (NatterSessions *self,
                              const char     *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (self->index, session_id);
  NatterSessionIndexEntry *original = conversation_entry (self, session_id);
  const NatterGenerationParameters *parameters;
  g_autoptr(GStrvBuilder) builder = NULL;
  NatterSessionsHeritage *heritage;
  gboolean pinned;
  guint n;

  if (entry == NULL || original == NULL)
    return NULL;
  /* A damaged version is no part of its conversation already. */
  if (original != entry && natter_session_index_entry_get_error (entry) != NULL)
    return NULL;
  parameters = natter_session_index_entry_get_parameters (original);
  pinned = original == entry && natter_sessions_get_pinned (self, session_id);
  if (parameters == NULL && !pinned && natter_sessions_get_folder_id (self, session_id) == NULL)
    return NULL;
  builder = g_strv_builder_new ();
  n = g_list_model_get_n_items (G_LIST_MODEL (self->index));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) other = g_list_model_get_item (G_LIST_MODEL (self->index), i);
      const char *id = natter_session_index_entry_get_session_id (other);

      /* Another device's copy is never written (docs/format.md §9.1). */
      if (natter_session_index_entry_get_is_version (other) &&
          natter_session_index_entry_get_error (other) == NULL &&
          g_strcmp0 (natter_session_index_entry_get_parent_session (other), session_id) == 0 &&
          !natter_sync_conflict_is_candidate (id))
        g_strv_builder_add (builder, id);
    }
  heritage = g_new0 (NatterSessionsHeritage, 1);
  heritage->heirs = g_strv_builder_end (builder);
  if (heritage->heirs[0] == NULL)
    {
      natter_sessions_heritage_free (heritage);
      return NULL;
    }
  heritage->parameters = parameters != NULL ? natter_generation_parameters_copy (parameters) : NULL;
  if (pinned)
    heritage->pinned = pinned_heir (self, session_id, heritage->heirs);
  heritage->folder_id = g_strdup (natter_sessions_get_folder_id (self, session_id));
  return heritage;
}

static void heritage_next (GTask *task);

static void
heir_appended_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterSessionsHeritage *heritage = g_task_get_task_data (task);
  GError *error = NULL;

  if (!natter_sessions_append_events_finish (NATTER_SESSIONS (object), result, &error))
    {
      g_task_return_error (task, natter_sessions_session_error (error, heritage->heirs[heritage->next]));
      return;
    }
  heritage->next++;
  heritage_next (g_steal_pointer (&task));
}

/* Takes over @owned's reference. */
static void
heritage_next (GTask *owned)
{
  g_autoptr(GTask) task = owned;
  NatterSessions *self = g_task_get_source_object (task);
  NatterSessionsHeritage *heritage = g_task_get_task_data (task);
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree char *ts = NULL;
  const char *heir = heritage->heirs[heritage->next];

  if (heir == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  ts = natter_clock_format_ts (self->clock);
  if (heritage->parameters != NULL)
    g_ptr_array_add (events, natter_session_event_new_parameters_changed (heir, ts, heritage->parameters));
  if (g_strcmp0 (heritage->pinned, heir) == 0)
    g_ptr_array_add (events, natter_session_event_new_pin_changed (heir, ts, TRUE));
  if (heritage->folder_id != NULL)
    g_ptr_array_add (events, natter_session_event_new_folder_changed (heir, ts, heritage->folder_id));
  /* One write per version, raised to the version the events need first
   * (docs/format.md §3.3). */
  natter_sessions_append_events_async (self, heir, events, NULL, heir_appended_cb, g_steal_pointer (&task));
}

/*
 * natter_sessions_heritage_pass_async:
 * @self: the service
 * @heritage: (transfer full): from natter_sessions_heritage_new(), once
 *   the session is deleted
 * @callback: called on the main context
 * @user_data: data for @callback
 *
 * Appends the heritage's events to each heir's own log, one heir after
 * another; the first that cannot be written ends it with its error.
 */
void
natter_sessions_heritage_pass_async (NatterSessions         *self,
                                     NatterSessionsHeritage *heritage,
                                     GAsyncReadyCallback     callback,
                                     gpointer                user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);

  g_task_set_task_data (task, heritage, (GDestroyNotify) natter_sessions_heritage_free);
  heritage_next (task);
}

gboolean
natter_sessions_heritage_pass_finish (NatterSessions  *self,
                                      GAsyncResult    *result,
                                      GError         **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}
