/* natter-session-index-entry.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One row of the in-memory session index: SessionIndexEntry of
 * docs/sessions.md §8.1, plus an error text for an entry the startup
 * scan could not fold (docs/sessions.md §8.2), the dsh session header
 * extras `cwd` and `parentSession`, and the generation parameters the
 * session keeps (docs/format.md §3.5), its pin and its folder (docs/format.md §3.6).
 */

#define G_LOG_DOMAIN "natter-session-index-entry"

#include <string.h>

#include "natter-session-index-entry-private.h"
#include "natter-session-reducer.h"
#include "natter-session-parameters-state.h"
#include "natter-session-placement-state.h"
#include "natter-turn-reducer.h"

struct _NatterSessionIndexEntry
{
  GObject     parent_instance;

  char       *session_id;
  char       *title;
  char       *created_at;
  char       *updated_at;
  guint       turn_count;
  char       *last_agent_id;
  /* lastModel: the two strings, and the sealed object made of them the
   * first time it is asked for (an index of 100,000 entries builds none
   * until a row shows one). */
  char       *last_provider;
  char       *last_model_name;
  JsonObject *last_model;
  char       *latest_turn_id;
  char       *latest_turn_at;
  const char *latest_turn_status;   /* interned */
  gboolean    latest_turn_imported;
  char       *latest_turn_device_id;    /* NULL: here, or ended */
  char       *latest_turn_device_name;
  char       *error;
  char       *cwd;
  char       *parent_session;
  char       *first_turn_id;
  gboolean    is_version;
  NatterGenerationParameters *parameters;   /* NULL: none kept */
  gboolean    pinned;
  char       *folder_id;
};

G_DEFINE_FINAL_TYPE (NatterSessionIndexEntry, natter_session_index_entry, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_SESSION_ID,
  PROP_TITLE,
  PROP_CREATED_AT,
  PROP_UPDATED_AT,
  PROP_TURN_COUNT,
  PROP_LAST_AGENT_ID,
  PROP_LAST_MODEL,
  PROP_LATEST_TURN_ID,
  PROP_LATEST_TURN_AT,
  PROP_LATEST_TURN_STATUS,
  PROP_LATEST_TURN_IMPORTED,
  PROP_LATEST_TURN_DEVICE_ID,
  PROP_ERROR,
  PROP_CWD,
  PROP_PARENT_SESSION,
  PROP_FIRST_TURN_ID,
  PROP_IS_VERSION,
  PROP_PINNED,
  PROP_FOLDER_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_session_index_entry_finalize (GObject *object)
{
  NatterSessionIndexEntry *self = NATTER_SESSION_INDEX_ENTRY (object);

  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->created_at, g_free);
  g_clear_pointer (&self->updated_at, g_free);
  g_clear_pointer (&self->latest_turn_at, g_free);
  g_clear_pointer (&self->last_agent_id, g_free);
  g_clear_pointer (&self->last_model, json_object_unref);
  g_clear_pointer (&self->last_provider, g_free);
  g_clear_pointer (&self->last_model_name, g_free);
  g_clear_pointer (&self->latest_turn_id, g_free);
  g_clear_pointer (&self->error, g_free);
  g_clear_pointer (&self->cwd, g_free);
  g_clear_pointer (&self->parent_session, g_free);
  g_clear_pointer (&self->first_turn_id, g_free);
  g_clear_pointer (&self->parameters, natter_generation_parameters_free);
  g_clear_pointer (&self->folder_id, g_free);
  g_clear_pointer (&self->latest_turn_device_id, g_free);
  g_clear_pointer (&self->latest_turn_device_name, g_free);

  G_OBJECT_CLASS (natter_session_index_entry_parent_class)->finalize (object);
}

static void
natter_session_index_entry_get_property (GObject    *object,
                                         guint       prop_id,
                                         GValue     *value,
                                         GParamSpec *pspec)
{
  NatterSessionIndexEntry *self = NATTER_SESSION_INDEX_ENTRY (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_CREATED_AT:
      g_value_set_string (value, self->created_at);
      break;
    case PROP_UPDATED_AT:
      g_value_set_string (value, self->updated_at);
      break;
    case PROP_TURN_COUNT:
      g_value_set_uint (value, self->turn_count);
      break;
    case PROP_LAST_AGENT_ID:
      g_value_set_string (value, self->last_agent_id);
      break;
    case PROP_LAST_MODEL:
      g_value_set_boxed (value, natter_session_index_entry_get_last_model (self));
      break;
    case PROP_LATEST_TURN_ID:
      g_value_set_string (value, self->latest_turn_id);
      break;
    case PROP_LATEST_TURN_AT:
      g_value_set_string (value, self->latest_turn_at);
      break;
    case PROP_LATEST_TURN_STATUS:
      g_value_set_static_string (value, self->latest_turn_status);
      break;
    case PROP_LATEST_TURN_IMPORTED:
      g_value_set_boolean (value, self->latest_turn_imported);
      break;
    case PROP_LATEST_TURN_DEVICE_ID:
      g_value_set_string (value, self->latest_turn_device_id);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    case PROP_CWD:
      g_value_set_string (value, self->cwd);
      break;
    case PROP_PARENT_SESSION:
      g_value_set_string (value, self->parent_session);
      break;
    case PROP_FIRST_TURN_ID:
      g_value_set_string (value, self->first_turn_id);
      break;
    case PROP_IS_VERSION:
      g_value_set_boolean (value, self->is_version);
      break;
    case PROP_PINNED:
      g_value_set_boolean (value, self->pinned);
      break;
    case PROP_FOLDER_ID:
      g_value_set_string (value, self->folder_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_session_index_entry_set_property (GObject      *object,
                                         guint         prop_id,
                                         const GValue *value,
                                         GParamSpec   *pspec)
{
  NatterSessionIndexEntry *self = NATTER_SESSION_INDEX_ENTRY (object);

  switch (prop_id)
    {
    case PROP_SESSION_ID:
      self->session_id = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static GParamSpec *
string_property (const char *name)
{
  return g_param_spec_string (name, NULL, NULL, NULL,
                              G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

static GParamSpec *
boolean_property (const char *name)
{
  return g_param_spec_boolean (name, NULL, NULL, FALSE,
                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
}

static void
install_device_property (void)
{
  /**
   * NatterSessionIndexEntry:latest-turn-device-id:
   *
   * The device that runs the latest turn, when it has not ended and
   * records one (docs/format.md §4.5); %NULL otherwise. Whether that is
   * another device is natter_sessions_is_turn_elsewhere()'s to say.
   */
  properties[PROP_LATEST_TURN_DEVICE_ID] = string_property ("latest-turn-device-id");
}

/* Which session this one descends from, and how. */
static void
install_lineage_properties (void)
{
  /**
   * NatterSessionIndexEntry:parent-session:
   *
   * The session this one was forked from, or %NULL.
   */
  properties[PROP_PARENT_SESSION] = string_property ("parent-session");
  /**
   * NatterSessionIndexEntry:first-turn-id:
   *
   * The `turnId` of the session's first turn, or %NULL without turns: a
   * version that went on from another device's copy begins with the
   * copy's turns (docs/format.md §9.1), which is how the lists tell that
   * the copy is shown as that version.
   */
  properties[PROP_FIRST_TURN_ID] = string_property ("first-turn-id");
  /**
   * NatterSessionIndexEntry:is-version:
   *
   * Whether the session is a version of #NatterSessionIndexEntry:parent-session
   * (an edit or another try, not a branch made on purpose; docs/format.md
   * §3.2, natter_session_state_get_is_version()).
   */
  properties[PROP_IS_VERSION] = boolean_property ("is-version");
}

/* Where the session's own log places it in the list. */
static void
install_placement_properties (void)
{
  /**
   * NatterSessionIndexEntry:pinned:
   *
   * Whether the session's own log pins it (its last `pin_changed`,
   * docs/format.md §3.6). A conversation with versions is pinned when its
   * original is (docs/sessions.md §16).
   */
  properties[PROP_PINNED] = boolean_property ("pinned");
  /**
   * NatterSessionIndexEntry:folder-id:
   *
   * The folder the session's own log puts it in (its last
   * `folder_changed`, docs/format.md §3.6), or %NULL. The folder may be
   * gone since.
   */
  properties[PROP_FOLDER_ID] = string_property ("folder-id");
}

static void
natter_session_index_entry_class_init (NatterSessionIndexEntryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_session_index_entry_finalize;
  object_class->get_property = natter_session_index_entry_get_property;
  object_class->set_property = natter_session_index_entry_set_property;

  /**
   * NatterSessionIndexEntry:session-id:
   *
   * `sessionId`: the session this entry describes. Never changes.
   */
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterSessionIndexEntry:title:
   *
   * `title?`: the folded title (last `title_changed`, else the created
   * title), or %NULL.
   */
  properties[PROP_TITLE] = string_property ("title");
  /**
   * NatterSessionIndexEntry:created-at:
   *
   * `createdAt`: the ISO timestamp of `session_created`. For an entry
   * whose session file could not be read, the time encoded in the id.
   */
  properties[PROP_CREATED_AT] = string_property ("created-at");
  /**
   * NatterSessionIndexEntry:updated-at:
   *
   * `updatedAt`: the ISO timestamp of the session's last event.
   */
  properties[PROP_UPDATED_AT] = string_property ("updated-at");
  /**
   * NatterSessionIndexEntry:turn-count:
   *
   * `turnCount`: the number of `turn_appended` events.
   */
  properties[PROP_TURN_COUNT] =
    g_param_spec_uint ("turn-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterSessionIndexEntry:last-agent-id:
   *
   * `lastAgentId?`: the agent of the latest turn, denormalized.
   */
  properties[PROP_LAST_AGENT_ID] = string_property ("last-agent-id");
  /**
   * NatterSessionIndexEntry:last-model:
   *
   * `lastModel?`: the latest turn's `{provider, model}` descriptor (a
   * sealed #JsonObject), denormalized.
   */
  properties[PROP_LAST_MODEL] =
    g_param_spec_boxed ("last-model", NULL, NULL, JSON_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterSessionIndexEntry:latest-turn-id:
   *
   * `latestTurnId?`: the latest turn's id.
   */
  properties[PROP_LATEST_TURN_ID] = string_property ("latest-turn-id");
  /**
   * NatterSessionIndexEntry:latest-turn-at:
   *
   * The ISO timestamp of the latest turn's `turn_appended`, or %NULL with
   * no turns: when the conversation last had activity. Unlike `updatedAt`
   * it does not move on a rename. Derived, like every field, from the
   * session file (docs/sessions.md §8.1 lists it with `latestTurnId`'s turn).
   */
  properties[PROP_LATEST_TURN_AT] = string_property ("latest-turn-at");
  /**
   * NatterSessionIndexEntry:latest-turn-status:
   *
   * `latestTurnStatus`: one of `none`, `completed`, `failed`,
   * `cancelled`, `suspended`, `idle` (docs/sessions.md §8.1). Whether a turn is
   * processing right now is not here: that is the turn event hub's
   * `turn-processing-start`/`-end`.
   */
  properties[PROP_LATEST_TURN_STATUS] = string_property ("latest-turn-status");
  /**
   * NatterSessionIndexEntry:latest-turn-imported:
   *
   * Whether the latest turn was imported (docs/format.md §7.3): its agent
   * and model are then a label, never where the next message goes.
   */
  properties[PROP_LATEST_TURN_IMPORTED] = boolean_property ("latest-turn-imported");
  install_device_property ();
  /**
   * NatterSessionIndexEntry:error:
   *
   * Not %NULL for an errored entry (docs/sessions.md §8.2): why the session
   * file or its latest turn could not be folded. Such a session is shown but
   * excluded from normal interaction.
   */
  properties[PROP_ERROR] = string_property ("error");
  /**
   * NatterSessionIndexEntry:cwd:
   *
   * The session header's absolute working directory, or %NULL.
   */
  properties[PROP_CWD] = string_property ("cwd");
  install_lineage_properties ();
  install_placement_properties ();

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_session_index_entry_init (NatterSessionIndexEntry *self)
{
  self->latest_turn_status = g_intern_static_string (NATTER_LATEST_TURN_STATUS_NONE);
}

/* Setters: compare before notifying, so a write-through update that
 * changes one field notifies one property. */

static void
set_string (NatterSessionIndexEntry  *self,
            char                    **field,
            const char               *value,
            guint                     prop_id)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

NatterSessionIndexEntry *
natter_session_index_entry_new (const char *session_id)
{
  g_return_val_if_fail (session_id != NULL, NULL);

  return g_object_new (NATTER_TYPE_SESSION_INDEX_ENTRY, "session-id", session_id, NULL);
}

/* Ids look like 2026-11-30T09-14-03Z-0000000-000: the creation second. */
static char *
created_at_from_id (const char *session_id)
{
  if (strlen (session_id) < 20 || session_id[19] != 'Z')
    return g_strdup ("");
  return g_strdup_printf ("%.13s:%.2s:%.2s.000Z", session_id, session_id + 14, session_id + 17);
}

NatterSessionIndexEntry *
natter_session_index_entry_new_errored (const char *session_id,
                                        const char *error)
{
  NatterSessionIndexEntry *self = natter_session_index_entry_new (session_id);

  self->created_at = created_at_from_id (session_id);
  self->updated_at = g_strdup (self->created_at);
  self->error = g_strdup (error);
  return self;
}

NatterSessionIndexEntry *
natter_session_index_entry_new_from_state (NatterSessionState *state)
{
  NatterSessionIndexEntry *self;

  g_return_val_if_fail (state != NULL, NULL);

  self = natter_session_index_entry_new (natter_session_state_get_session_id (state));
  natter_session_index_entry_apply_state (self, state);
  return self;
}

/**
 * natter_session_index_entry_apply_state: (skip)
 * @self: an entry
 * @state: the session's reduced state
 *
 * Sets every session-derived field from @state (docs/sessions.md §8.2 step 2);
 * leaves `latestTurnStatus` alone unless the session has no turns (then
 * `none`). An error stays while the latest turn it was about stays the
 * latest: a write to the session file (a rename, a grant) makes no turn
 * file readable again (docs/sessions.md §8.2).
 */
void
natter_session_index_entry_apply_state (NatterSessionIndexEntry *self,
                                        NatterSessionState      *state)
{
  guint n_turns;
  const NatterSessionTurn *last = NULL;
  gboolean keep_error;

  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  g_return_if_fail (g_strcmp0 (natter_session_state_get_session_id (state), self->session_id) == 0);

  n_turns = natter_session_state_get_n_turns (state);
  if (n_turns > 0)
    last = natter_session_state_get_turn (state, n_turns - 1);
  /* The session file read: only an unreadable latest turn can still be
   * wrong, and only while it is the latest. */
  keep_error = last != NULL && self->latest_turn_id != NULL && g_str_equal (last->turn_id, self->latest_turn_id);

  g_object_freeze_notify (G_OBJECT (self));
  natter_session_index_entry_set_title (self, natter_session_state_get_title (state));
  natter_session_index_entry_set_created_at (self, natter_session_state_get_created_at (state));
  natter_session_index_entry_set_updated_at (self, natter_session_state_get_updated_at (state));
  natter_session_index_entry_set_turn_count (self, n_turns);
  /* A new latest turn is one this application made: an import sets
   * the mark of its own turns after it (and the scan from the file). */
  if (g_strcmp0 (self->latest_turn_id, last != NULL ? last->turn_id : NULL) != 0)
    {
      natter_session_index_entry_set_latest_turn_imported (self, FALSE);
      natter_session_index_entry_set_latest_turn_device (self, NULL, NULL);
    }
  natter_session_index_entry_set_last_agent_id (self, last != NULL ? last->agent_id : NULL);
  natter_session_index_entry_set_last_model (self, last != NULL ? last->model : NULL);
  natter_session_index_entry_set_first_turn_id (self, n_turns > 0 ? natter_session_state_get_turn (state, 0)->turn_id
                                                                 : NULL);
  natter_session_index_entry_set_latest_turn_id (self, last != NULL ? last->turn_id : NULL);
  natter_session_index_entry_set_latest_turn_at (self, last != NULL ? last->ts : NULL);
  if (last == NULL)
    natter_session_index_entry_set_latest_turn_status (self, NATTER_LATEST_TURN_STATUS_NONE);
  natter_session_index_entry_set_cwd (self, natter_session_state_get_cwd (state));
  natter_session_index_entry_set_parent_session (self, natter_session_state_get_parent_session (state));
  natter_session_index_entry_set_is_version (self, natter_session_state_get_is_version (state));
  natter_session_index_entry_set_parameters (self, natter_session_state_get_parameters (state));
  natter_session_index_entry_set_pinned (self, natter_session_state_get_pinned (state));
  natter_session_index_entry_set_folder_id (self, natter_session_state_get_folder_id (state));
  if (!keep_error)
    natter_session_index_entry_set_error (self, NULL);
  g_object_thaw_notify (G_OBJECT (self));
}

void
natter_session_index_entry_set_title (NatterSessionIndexEntry *self,
                                      const char              *title)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->title, title, PROP_TITLE);
}

void
natter_session_index_entry_set_created_at (NatterSessionIndexEntry *self,
                                           const char              *created_at)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->created_at, created_at, PROP_CREATED_AT);
}

void
natter_session_index_entry_set_updated_at (NatterSessionIndexEntry *self,
                                           const char              *updated_at)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->updated_at, updated_at, PROP_UPDATED_AT);
}

void
natter_session_index_entry_set_latest_turn_at (NatterSessionIndexEntry *self,
                                               const char              *latest_turn_at)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->latest_turn_at, latest_turn_at, PROP_LATEST_TURN_AT);
}

void
natter_session_index_entry_set_turn_count (NatterSessionIndexEntry *self,
                                           guint                    turn_count)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  if (self->turn_count == turn_count)
    return;
  self->turn_count = turn_count;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TURN_COUNT]);
}

void
natter_session_index_entry_set_last_agent_id (NatterSessionIndexEntry *self,
                                              const char              *last_agent_id)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->last_agent_id, last_agent_id, PROP_LAST_AGENT_ID);
}

/* Keeps exactly {provider, model}: the spec's ModelDescriptor. */
static JsonObject *
model_new (const char *provider,
           const char *model)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "provider", provider);
  json_object_set_string_member (object, "model", model);
  json_object_seal (object);
  return object;
}

static gboolean
model_equal (NatterSessionIndexEntry *a,
             NatterSessionIndexEntry *b)
{
  return g_strcmp0 (a->last_provider, b->last_provider) == 0 &&
         g_strcmp0 (a->last_model_name, b->last_model_name) == 0;
}

/* natter_session_index_entry_set_last_model() from the two strings, for
 * the index cache, which holds no JsonObject; both %NULL for none. */
void
natter_session_index_entry_set_last_model_names (NatterSessionIndexEntry *self,
                                                 const char              *provider,
                                                 const char              *model)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  g_return_if_fail ((provider == NULL) == (model == NULL));

  if (g_strcmp0 (self->last_provider, provider) == 0 && g_strcmp0 (self->last_model_name, model) == 0)
    return;
  g_free (self->last_provider);
  self->last_provider = g_strdup (provider);
  g_free (self->last_model_name);
  self->last_model_name = g_strdup (model);
  g_clear_pointer (&self->last_model, json_object_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LAST_MODEL]);
}

void
natter_session_index_entry_set_last_model (NatterSessionIndexEntry *self,
                                           JsonObject              *last_model)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  if (last_model == NULL)
    natter_session_index_entry_set_last_model_names (self, NULL, NULL);
  else
    natter_session_index_entry_set_last_model_names (self,
                                                     json_object_get_string_member_with_default (last_model, "provider", ""),
                                                     json_object_get_string_member_with_default (last_model, "model", ""));
}

void
natter_session_index_entry_set_latest_turn_id (NatterSessionIndexEntry *self,
                                               const char              *latest_turn_id)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->latest_turn_id, latest_turn_id, PROP_LATEST_TURN_ID);
}

void
natter_session_index_entry_set_latest_turn_status (NatterSessionIndexEntry *self,
                                                   const char              *status)
{
  const char *interned;

  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  g_return_if_fail (status != NULL);

  interned = g_intern_string (status);
  if (interned == self->latest_turn_status)
    return;
  self->latest_turn_status = interned;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LATEST_TURN_STATUS]);
}

void
natter_session_index_entry_set_latest_turn_imported (NatterSessionIndexEntry *self,
                                                     gboolean                 imported)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  imported = !!imported;
  if (self->latest_turn_imported == imported)
    return;
  self->latest_turn_imported = imported;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LATEST_TURN_IMPORTED]);
}

/**
 * natter_session_index_entry_set_latest_turn_device:
 * @self: an entry
 * @id: (nullable): the device that runs the latest turn (docs/format.md
 *   §4.5), or %NULL when the turn ended, records none or runs here
 * @name: (nullable): that device's name
 *
 * Sets #NatterSessionIndexEntry:latest-turn-device-id and the name
 * beside it.
 */
void
natter_session_index_entry_set_latest_turn_device (NatterSessionIndexEntry *self,
                                                   const char              *id,
                                                   const char              *name)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  if (g_strcmp0 (self->latest_turn_device_id, id) == 0 && g_strcmp0 (self->latest_turn_device_name, name) == 0)
    return;
  g_free (self->latest_turn_device_id);
  g_free (self->latest_turn_device_name);
  self->latest_turn_device_id = g_strdup (id);
  self->latest_turn_device_name = id != NULL ? g_strdup (name) : NULL;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LATEST_TURN_DEVICE_ID]);
}

void
natter_session_index_entry_set_error (NatterSessionIndexEntry *self,
                                      const char              *error)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->error, error, PROP_ERROR);
}

void
natter_session_index_entry_set_cwd (NatterSessionIndexEntry *self,
                                    const char              *cwd)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->cwd, cwd, PROP_CWD);
}

void
natter_session_index_entry_set_parent_session (NatterSessionIndexEntry *self,
                                               const char              *parent_session)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->parent_session, parent_session, PROP_PARENT_SESSION);
}

void
natter_session_index_entry_set_first_turn_id (NatterSessionIndexEntry *self,
                                              const char              *first_turn_id)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->first_turn_id, first_turn_id, PROP_FIRST_TURN_ID);
}

void
natter_session_index_entry_set_is_version (NatterSessionIndexEntry *self,
                                           gboolean                 is_version)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  if (self->is_version == !!is_version)
    return;
  self->is_version = !!is_version;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IS_VERSION]);
}

void
natter_session_index_entry_set_parameters (NatterSessionIndexEntry          *self,
                                           const NatterGenerationParameters *parameters)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  if (natter_generation_parameters_is_empty (parameters))
    parameters = NULL;
  if (natter_generation_parameters_equal (self->parameters, parameters))
    return;
  g_clear_pointer (&self->parameters, natter_generation_parameters_free);
  if (parameters != NULL)
    self->parameters = natter_generation_parameters_copy (parameters);
}

void
natter_session_index_entry_set_pinned (NatterSessionIndexEntry *self,
                                       gboolean                 pinned)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  if (self->pinned == !!pinned)
    return;
  self->pinned = !!pinned;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PINNED]);
}

void
natter_session_index_entry_set_folder_id (NatterSessionIndexEntry *self,
                                          const char              *folder_id)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  set_string (self, &self->folder_id, folder_id, PROP_FOLDER_ID);
}

/**
 * natter_session_index_entry_get_session_id:
 * @self: an entry
 *
 * Returns: (transfer none): `sessionId`
 */
const char *
natter_session_index_entry_get_session_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->session_id;
}

/**
 * natter_session_index_entry_get_title:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): `title?`
 */
const char *
natter_session_index_entry_get_title (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->title;
}

/**
 * natter_session_index_entry_get_created_at:
 * @self: an entry
 *
 * Returns: (transfer none): `createdAt`, an ISO-8601 UTC timestamp
 */
const char *
natter_session_index_entry_get_created_at (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->created_at;
}

/**
 * natter_session_index_entry_get_updated_at:
 * @self: an entry
 *
 * Returns: (transfer none): `updatedAt`, an ISO-8601 UTC timestamp
 */
const char *
natter_session_index_entry_get_updated_at (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->updated_at;
}

/**
 * natter_session_index_entry_get_latest_turn_at:
 * @self: an entry
 *
 * When the conversation last had activity: the ISO-8601 UTC timestamp of
 * its latest `turn_appended` event. A rename changes `updatedAt`, not
 * this, so lists ordered by activity use it (falling back to `createdAt`
 * for a session with no turns).
 *
 * Returns: (transfer none) (nullable): the timestamp, or %NULL when the
 *   session has no turns (or its file could not be read)
 */
const char *
natter_session_index_entry_get_latest_turn_at (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->latest_turn_at;
}

/**
 * natter_session_index_entry_get_turn_count:
 * @self: an entry
 *
 * Returns: `turnCount`
 */
guint
natter_session_index_entry_get_turn_count (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), 0);
  return self->turn_count;
}

/**
 * natter_session_index_entry_get_last_agent_id:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): `lastAgentId?`
 */
const char *
natter_session_index_entry_get_last_agent_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->last_agent_id;
}

/**
 * natter_session_index_entry_get_last_model:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): `lastModel?`, a sealed
 *   `{provider, model}` object
 */
JsonObject *
natter_session_index_entry_get_last_model (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);

  if (self->last_model == NULL && self->last_provider != NULL)
    self->last_model = model_new (self->last_provider, self->last_model_name);
  return self->last_model;
}

/* The two strings of lastModel (both %NULL without turns), without
 * building the object: for the index cache. */
void
natter_session_index_entry_get_last_model_names (NatterSessionIndexEntry  *self,
                                                 const char              **out_provider,
                                                 const char              **out_model)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));

  *out_provider = self->last_provider;
  *out_model = self->last_model_name;
}

/**
 * natter_session_index_entry_dup_last_model_string:
 * @self: an entry
 *
 * `lastModel` as one display string, `provider/model`.
 *
 * Returns: (transfer full) (nullable): the string, or %NULL without turns
 */
char *
natter_session_index_entry_dup_last_model_string (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);

  if (self->last_provider == NULL)
    return NULL;
  return g_strdup_printf ("%s/%s", self->last_provider, self->last_model_name);
}

/**
 * natter_session_index_entry_get_latest_turn_id:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): `latestTurnId?`
 */
const char *
natter_session_index_entry_get_latest_turn_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->latest_turn_id;
}

/**
 * natter_session_index_entry_get_latest_turn_status:
 * @self: an entry
 *
 * Returns: (transfer none): `latestTurnStatus`, an interned string:
 *   `none`, `completed`, `failed`, `cancelled`, `suspended` or `idle`
 */
const char *
natter_session_index_entry_get_latest_turn_status (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->latest_turn_status;
}

/**
 * natter_session_index_entry_get_latest_turn_device_id:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the device that runs the latest
 *   turn (#NatterSessionIndexEntry:latest-turn-device-id)
 */
const char *
natter_session_index_entry_get_latest_turn_device_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->latest_turn_device_id;
}

/**
 * natter_session_index_entry_get_latest_turn_device_name:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the name of that device, as it
 *   wrote it (text from another machine: escape it before markup)
 */
const char *
natter_session_index_entry_get_latest_turn_device_name (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->latest_turn_device_name;
}

/**
 * natter_session_index_entry_get_latest_turn_imported:
 * @self: an entry
 *
 * Returns: whether the latest turn was imported
 *   (#NatterSessionIndexEntry:latest-turn-imported)
 */
gboolean
natter_session_index_entry_get_latest_turn_imported (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), FALSE);
  return self->latest_turn_imported;
}

/**
 * natter_session_index_entry_get_error:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the error text of an errored entry
 */
const char *
natter_session_index_entry_get_error (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->error;
}

/**
 * natter_session_index_entry_get_cwd:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the header's `cwd`
 */
const char *
natter_session_index_entry_get_cwd (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->cwd;
}

/**
 * natter_session_index_entry_get_parent_session:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the header's `parentSession`
 */
const char *
natter_session_index_entry_get_parent_session (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->parent_session;
}

/**
 * natter_session_index_entry_get_first_turn_id:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the `turnId` of the session's
 *   first turn (#NatterSessionIndexEntry:first-turn-id)
 */
const char *
natter_session_index_entry_get_first_turn_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->first_turn_id;
}

/**
 * natter_session_index_entry_get_is_version:
 * @self: an entry
 *
 * Returns: whether the session is a version of its parent session (an
 *   edit or another try; docs/format.md §3.2), read from its stored
 *   lineage: never from its title
 */
gboolean
natter_session_index_entry_get_is_version (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), FALSE);
  return self->is_version;
}

/**
 * natter_session_index_entry_get_parameters:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the generation parameters the
 *   session itself keeps (its last `parameters_changed`), or %NULL
 *   when none are; no property: nothing shown follows them
 */
const NatterGenerationParameters *
natter_session_index_entry_get_parameters (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->parameters;
}

/**
 * natter_session_index_entry_get_pinned:
 * @self: an entry
 *
 * Returns: whether the session's own log pins it
 *   (#NatterSessionIndexEntry:pinned)
 */
gboolean
natter_session_index_entry_get_pinned (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), FALSE);
  return self->pinned;
}

/**
 * natter_session_index_entry_get_folder_id:
 * @self: an entry
 *
 * Returns: (transfer none) (nullable): the id of the folder the
 *   session's own log puts it in (#NatterSessionIndexEntry:folder-id)
 */
const char *
natter_session_index_entry_get_folder_id (NatterSessionIndexEntry *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);
  return self->folder_id;
}

/**
 * natter_session_index_entry_to_json:
 * @self: an entry
 *
 * The entry as the spec's SessionIndexEntry object (docs/sessions.md §8.1):
 * exactly the members `sessionId`, `title?`, `createdAt`, `updatedAt`,
 * `turnCount`, `lastAgentId?`, `lastModel?`, `latestTurnId?`,
 * `latestTurnStatus`, plus `latestTurnImported: true` when the latest turn was
 * imported (#NatterSessionIndexEntry:latest-turn-imported),
 * `latestTurnDevice: {id, name}` for an unended latest turn that records
 * its device (docs/format.md §4.5) and `error` for an
 * errored entry. Optional members are absent, not null, when unset.
 * What `natter list --json` prints.
 *
 * Returns: (transfer full): a JSON object node
 */
JsonNode *
natter_session_index_entry_to_json (NatterSessionIndexEntry *self)
{
  JsonObject *object;
  JsonNode *node;

  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "sessionId", self->session_id);
  if (self->title != NULL)
    json_object_set_string_member (object, "title", self->title);
  json_object_set_string_member (object, "createdAt", self->created_at != NULL ? self->created_at : "");
  json_object_set_string_member (object, "updatedAt", self->updated_at != NULL ? self->updated_at : "");
  json_object_set_int_member (object, "turnCount", self->turn_count);
  if (self->last_agent_id != NULL)
    json_object_set_string_member (object, "lastAgentId", self->last_agent_id);
  if (self->last_provider != NULL)
    json_object_set_object_member (object, "lastModel", model_new (self->last_provider, self->last_model_name));
  if (self->latest_turn_id != NULL)
    json_object_set_string_member (object, "latestTurnId", self->latest_turn_id);
  json_object_set_string_member (object, "latestTurnStatus", self->latest_turn_status);
  if (self->latest_turn_imported)
    json_object_set_boolean_member (object, "latestTurnImported", TRUE);
  if (self->latest_turn_device_id != NULL)
    {
      JsonObject *device = json_object_new ();

      json_object_set_string_member (device, "id", self->latest_turn_device_id);
      json_object_set_string_member (device, "name", self->latest_turn_device_name != NULL
                                                     ? self->latest_turn_device_name : "");
      json_object_set_object_member (object, "latestTurnDevice", device);
    }
  if (self->error != NULL)
    json_object_set_string_member (object, "error", self->error);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;
}

/**
 * natter_session_index_entry_equal:
 * @a: an entry
 * @b: another entry
 *
 * Whether every property of @a equals that of @b (the startup fold and
 * the write-through state must agree, docs/sessions.md §8).
 *
 * Returns: %TRUE if equal
 */
gboolean
natter_session_index_entry_equal (NatterSessionIndexEntry *a,
                                  NatterSessionIndexEntry *b)
{
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (a), FALSE);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (b), FALSE);

  return g_strcmp0 (a->session_id, b->session_id) == 0 &&
         g_strcmp0 (a->title, b->title) == 0 &&
         g_strcmp0 (a->created_at, b->created_at) == 0 &&
         g_strcmp0 (a->updated_at, b->updated_at) == 0 &&
         a->turn_count == b->turn_count &&
         g_strcmp0 (a->last_agent_id, b->last_agent_id) == 0 &&
         model_equal (a, b) &&
         g_strcmp0 (a->latest_turn_id, b->latest_turn_id) == 0 &&
         g_strcmp0 (a->latest_turn_at, b->latest_turn_at) == 0 &&
         a->latest_turn_status == b->latest_turn_status &&
         a->latest_turn_imported == b->latest_turn_imported &&
         g_strcmp0 (a->latest_turn_device_id, b->latest_turn_device_id) == 0 &&
         g_strcmp0 (a->latest_turn_device_name, b->latest_turn_device_name) == 0 &&
         g_strcmp0 (a->error, b->error) == 0 &&
         g_strcmp0 (a->cwd, b->cwd) == 0 &&
         g_strcmp0 (a->parent_session, b->parent_session) == 0 &&
         g_strcmp0 (a->first_turn_id, b->first_turn_id) == 0 &&
         a->is_version == b->is_version &&
         natter_generation_parameters_equal (a->parameters, b->parameters) &&
         a->pinned == b->pinned &&
         g_strcmp0 (a->folder_id, b->folder_id) == 0;
}

/**
 * natter_session_index_entry_assign: (skip)
 * @self: an entry
 * @other: an entry of the same session, read again from its files
 *
 * Makes every property of @self that of @other (notifying those that
 * change), so that what is bound to @self follows files another process
 * wrote (docs/sessions.md §8.5).
 */
void
natter_session_index_entry_assign (NatterSessionIndexEntry *self,
                                   NatterSessionIndexEntry *other)
{
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (self));
  g_return_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (other));
  g_return_if_fail (g_strcmp0 (self->session_id, other->session_id) == 0);

  g_object_freeze_notify (G_OBJECT (self));
  natter_session_index_entry_set_title (self, other->title);
  natter_session_index_entry_set_created_at (self, other->created_at);
  natter_session_index_entry_set_updated_at (self, other->updated_at);
  natter_session_index_entry_set_turn_count (self, other->turn_count);
  natter_session_index_entry_set_last_agent_id (self, other->last_agent_id);
  if (other->last_provider != NULL && other->last_model_name != NULL)
    natter_session_index_entry_set_last_model_names (self, other->last_provider, other->last_model_name);
  else
    natter_session_index_entry_set_last_model (self, NULL);
  natter_session_index_entry_set_latest_turn_id (self, other->latest_turn_id);
  natter_session_index_entry_set_latest_turn_at (self, other->latest_turn_at);
  natter_session_index_entry_set_latest_turn_status (self, other->latest_turn_status);
  natter_session_index_entry_set_latest_turn_imported (self, other->latest_turn_imported);
  natter_session_index_entry_set_latest_turn_device (self, other->latest_turn_device_id,
                                                     other->latest_turn_device_name);
  natter_session_index_entry_set_error (self, other->error);
  natter_session_index_entry_set_cwd (self, other->cwd);
  natter_session_index_entry_set_parent_session (self, other->parent_session);
  natter_session_index_entry_set_first_turn_id (self, other->first_turn_id);
  natter_session_index_entry_set_is_version (self, other->is_version);
  natter_session_index_entry_set_parameters (self, other->parameters);
  natter_session_index_entry_set_pinned (self, other->pinned);
  natter_session_index_entry_set_folder_id (self, other->folder_id);
  g_object_thaw_notify (G_OBJECT (self));
}

/**
 * natter_latest_turn_status_from_turn_status:
 * @status: a derived turn status (natter_derive_turn_status())
 *
 * The same derivation everywhere (docs/sessions.md §8.1): the index's string
 * for a turn status.
 *
 * Returns: (transfer none): an interned status string
 */
const char *
natter_latest_turn_status_from_turn_status (NatterTurnStatus status)
{
  return g_intern_static_string (natter_turn_status_to_string (status));
}
