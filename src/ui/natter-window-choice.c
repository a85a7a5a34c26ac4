/* natter-window-choice.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the next message goes to, and whether it can go now: the
 * composer's state (running, blocked, insensitive while a message goes
 * out), the agent of its agent chooser and the model of the header's
 * picker, per conversation while the app runs. Sending itself is
 * natter-window-conversation.c's.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-clock.h"
#include "natter-model-choice.h"
#include "natter-send-pipeline.h"
#include "natter-sync-conflict-name.h"
#include "natter-window-private.h"

/* The composer */

/* The name of the device the latest turn of @entry runs on, for people
 * to read: its name, else its id. */
static const char *
device_name (NatterSessionIndexEntry *entry)
{
  const char *name = natter_session_index_entry_get_latest_turn_device_name (entry);

  return name != NULL && name[0] != '\0' ? name : natter_session_index_entry_get_latest_turn_device_id (entry);
}

/* Why nothing can be sent in a window that can only read
 * (_natter_window_show_read_only()); NULL in one that writes. */
static const char *
read_only_reason (NatterWindow *self)
{
  if (self->errors.read_only == NULL)
    return NULL;
  return _("Another Natter is using this data folder, so nothing can be sent from this window until it is "
           "closed.");
}

void
_natter_window_update_composer (NatterWindow *self)
{
  const char *status;
  const char *reason = NULL;
  const char *note = NULL;
  g_autofree char *elsewhere = NULL;
  gboolean conflict_copy;
  gboolean running;

  if (self->conversation.entry == NULL && self->conversation.new_chat)
    {
      /* A new conversation: nothing runs, anything may be sent. */
      natter_composer_set_running (self->conversation.composer, FALSE);
      natter_composer_set_blocked_reason (self->conversation.composer, read_only_reason (self));
      natter_composer_set_note (self->conversation.composer, NULL);
      gtk_widget_set_sensitive (GTK_WIDGET (self->conversation.composer), !self->conversation.sending);
      _natter_window_update_keyboard_actions (self);
      return;
    }
  if (self->conversation.entry == NULL)
    return;

  status = natter_session_index_entry_get_latest_turn_status (self->conversation.entry);
  running = _natter_window_latest_is_unsettled (self);
  conflict_copy = natter_sync_conflict_is_candidate (natter_session_index_entry_get_session_id (self->conversation.entry));
  /* Another device's copy is never written: a message there goes on
   * from it as a new version (docs/format.md §9.1) — but a copy of one
   * answer, whose turn is the copy itself, has no turn to go on from. */
  if (conflict_copy)
    note = _("This version is another device’s copy of the conversation, kept when both devices changed it at "
             "once. A message sent here goes on from it as a new version; the copy stays as it is.");
  /* A copy of a damaged conversation's readable part says what it left
   * out, above the field that holds that message's words: a toast
   * there would cover them. */
  else if (self->conversation.session_id != NULL)
    note = g_hash_table_lookup (self->conversation.recovery_notes, self->conversation.session_id);
  if (natter_session_index_entry_get_error (self->conversation.entry) != NULL)
    reason = _("This conversation is damaged and cannot take new messages.");
  else if (conflict_copy && natter_session_index_entry_get_latest_turn_id (self->conversation.entry) != NULL &&
           natter_sync_conflict_is_candidate (natter_session_index_entry_get_latest_turn_id (self->conversation.entry)))
    reason = _("This version is another device’s copy of one answer, kept when both devices went on with it at "
               "once. It is read only.");
  else if (g_strcmp0 (status, NATTER_LATEST_TURN_STATUS_ARRIVING) == 0)
    reason = _("The last answer has not arrived from another device yet.");
  else if (!running && g_strcmp0 (status, "idle") == 0 &&
           natter_sessions_is_turn_elsewhere (self->sessions, self->conversation.entry))
    /* Translators: %s is the name of another computer the answer is written on */
    reason = elsewhere = g_strdup_printf (_("The answer is being written on another device (“%s”); a message can be "
                                            "sent or queued here once it has ended."),
                                          device_name (self->conversation.entry));
  else if (!running && g_strcmp0 (status, "idle") == 0)
    reason = _("The last answer was interrupted. Resume it before sending a new message.");
  /* Whatever else holds it back, nothing is sent from here. */
  if (read_only_reason (self) != NULL)
    {
      reason = read_only_reason (self);
      note = NULL;
    }

  natter_composer_set_running (self->conversation.composer, running);
  natter_composer_set_blocked_reason (self->conversation.composer, reason);
  natter_composer_set_note (self->conversation.composer, note);
  gtk_widget_set_sensitive (GTK_WIDGET (self->conversation.composer), !self->conversation.sending);
  _natter_window_update_keyboard_actions (self);
}

/* The agents */

static gboolean
has_agent_store (NatterWindow *self)
{
  return natter_agent_chooser_get_store (self->choice.agent_chooser) != NULL;
}

/* The agent the next message goes to: the chooser's, or without agents
 * to choose from, the window's agent (natter_window_set_agent_id()). */
static const char *
next_agent_id (NatterWindow *self)
{
  return has_agent_store (self) ? natter_agent_chooser_get_agent_id (self->choice.agent_chooser) : self->choice.agent_id;
}

/* The model the chosen agent names itself, if any. */
static JsonObject *
agent_own_model (NatterWindow *self)
{
  if (!has_agent_store (self))
    return NULL;
  return natter_agent_chooser_get_agent_model (self->choice.agent_chooser,
                                               natter_agent_chooser_get_agent_id (self->choice.agent_chooser));
}

/* Takes @text. */
static void
show_agent_toast (NatterWindow *self,
                  char         *text)
{
  g_free (self->choice.last_agent_toast);
  self->choice.last_agent_toast = g_strdup (text);
  _natter_window_show_notice (self, text, NULL);
  g_free (text);
}

/* Shows the open session's agent: the one picked for it while the app
 * runs, else its last turn's, else Assistant. An agent that is gone
 * gives way to Assistant, said once per session, never a send to an
 * agent that cannot answer. An imported conversation's agent is only a
 * record of where it came from (natter_send_pipeline_dup_agent()):
 * Assistant takes its place without a word. */
void
_natter_window_apply_session_agent (NatterWindow *self)
{
  const char *key = _natter_window_choice_key (self);
  g_autofree char *continued = NULL;
  const char *agent_id = NULL;

  if (!has_agent_store (self) || key == NULL)
    return;
  agent_id = g_hash_table_lookup (self->choice.chosen_agents, key);
  if (agent_id == NULL && self->conversation.entry != NULL && natter_session_index_entry_get_latest_turn_imported (self->conversation.entry) &&
      self->pipeline != NULL)
    agent_id = continued = natter_send_pipeline_dup_agent (self->pipeline, self->conversation.session_id, NULL);
  if (agent_id == NULL && self->conversation.entry != NULL)
    agent_id = natter_session_index_entry_get_last_agent_id (self->conversation.entry);
  if (agent_id == NULL)
    agent_id = NATTER_WINDOW_DEFAULT_AGENT_ID;

  self->choice.applying_agent = TRUE;
  if (!natter_agent_chooser_set_agent_id (self->choice.agent_chooser, agent_id))
    {
      /* Translators: %s is the id of an agent that was deleted */
      show_agent_toast (self, g_strdup_printf (_("The agent “%s” is gone: messages go to Assistant"), agent_id));
      g_hash_table_replace (self->choice.chosen_agents, g_strdup (key), g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID));
    }
  self->choice.applying_agent = FALSE;
}

static void
agent_chosen_cb (NatterWindow *self)
{
  if (!self->choice.applying_agent && _natter_window_choice_key (self) != NULL)
    g_hash_table_replace (self->choice.chosen_agents, g_strdup (_natter_window_choice_key (self)),
                          g_strdup (natter_agent_chooser_get_agent_id (self->choice.agent_chooser)));
  _natter_window_update_model_picker (self);
}

static void
agent_removed_cb (NatterWindow       *self,
                  const char         *agent_id,
                  const char         *name,
                  NatterAgentChooser *chooser)
{
  GHashTableIter iter;
  gpointer value;

  /* No session keeps a choice that is gone; each falls back when shown. */
  g_hash_table_iter_init (&iter, self->choice.chosen_agents);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_str_equal (value, agent_id))
      g_hash_table_iter_remove (&iter);
  if (_natter_window_choice_key (self) != NULL)
    g_hash_table_replace (self->choice.chosen_agents, g_strdup (_natter_window_choice_key (self)),
                          g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID));
  /* Translators: %s is the name of an agent that was deleted */
  show_agent_toast (self, g_strdup_printf (_("The agent “%s” was removed: messages go to Assistant"), name));
}

static void
agents_changed_cb (NatterWindow *self)
{
  /* The chosen agent's own model may have changed. */
  _natter_window_update_model_picker (self);
}

/* Whether Preferences name a default provider or model: then a new
 * conversation goes to it, whatever was used last. */
static gboolean
default_is_set (NatterWindow *self)
{
  const char *provider = natter_settings_get_default_provider (self->settings);
  const char *model = natter_settings_get_default_model (self->settings);

  return (provider != NULL && provider[0] != '\0') || (model != NULL && model[0] != '\0');
}

/* What a new conversation goes on with when Preferences name no
 * default: the model last picked or sent with in this window; before
 * this run picks or sends, the later of the one an earlier run
 * remembered and the last model of the conversation with the latest
 * activity, so that a model a person chose in one chat is the next
 * chat's too, after a restart as well (on a first run, the provider
 * they added rather than a built-in one that may not run). A provider
 * no longer configured is no way to go on: then the default. */
static JsonObject *
recent_model (NatterWindow *self)
{
  g_auto(GStrv) configured = NULL;
  JsonObject *recent = self->choice.recent;
  const char *provider;

  if (self->conversation.entry != NULL || !self->conversation.new_chat || self->choice.registry == NULL ||
      default_is_set (self))
    return NULL;
  if (recent == NULL && self->index != NULL)
    {
      const char *used_at = NULL;
      JsonObject *used = natter_session_index_get_recent_model (self->index, &used_at);

      recent = natter_model_choice_later_recent (self->choice.remembered, self->choice.remembered_at, used, used_at);
    }
  else if (recent == NULL)
    recent = self->choice.remembered;
  if (recent == NULL)
    return NULL;
  provider = json_object_get_string_member_with_default (recent, "provider", NULL);
  configured = natter_provider_registry_list_providers (self->choice.registry);
  if (provider == NULL || natter_provider_id_is_endpoint (provider) ||
      !g_strv_contains ((const char * const *) configured, provider))
    return NULL;
  return recent;
}

/* {provider, model} of a model remembered for new conversations,
 * without `model` for the provider's first (@model %NULL or empty). */
static JsonObject *
recent_new (const char *provider,
            const char *model)
{
  JsonObject *recent = json_object_new ();

  json_object_set_string_member (recent, "provider", provider);
  if (model != NULL && model[0] != '\0')
    json_object_set_string_member (recent, "model", model);
  return recent;
}

/* Remembers @provider's @model (%NULL: its first) as the one a new
 * conversation goes on with (recent_model()), in this run and the
 * next: a model picked in an empty conversation is the one offered
 * after a restart, as the README promises. */
static void
remember_recent (NatterWindow *self,
                 const char   *provider,
                 const char   *model)
{
  JsonObject *recent = NULL;

  /* The names may be the old object's own. */
  if (provider != NULL)
    {
      g_autofree char *at = natter_format_ts (g_get_real_time ());

      recent = recent_new (provider, model);
      natter_settings_set_recent_model (self->settings, provider, model, at);
    }
  g_clear_pointer (&self->choice.recent, json_object_unref);
  self->choice.recent = recent;
}

/* Reads the model an earlier run remembered (remember_recent()), once,
 * when the window gets its settings. */
void
_natter_window_load_remembered_model (NatterWindow *self)
{
  g_autofree char *provider = NULL;
  g_autofree char *model = NULL;

  g_clear_pointer (&self->choice.remembered, json_object_unref);
  g_clear_pointer (&self->choice.remembered_at, g_free);
  if (!natter_settings_dup_recent_model (self->settings, &provider, &model, &self->choice.remembered_at))
    return;
  self->choice.remembered = recent_new (provider, model);
}

/* What the model choice (natter-model-choice.c) is made from, for the
 * open session. */
static NatterModelChoice
model_choice (NatterWindow *self)
{
  JsonObject *last = NULL;
  NatterModelChoice choice;

  /* An imported latest turn's model is a label unless the person has it
   * (natter_send_pipeline_get_continued_model()). */
  if (self->conversation.entry != NULL)
    last = self->pipeline != NULL ? natter_send_pipeline_get_continued_model (self->pipeline, self->conversation.entry)
           : natter_session_index_entry_get_latest_turn_imported (self->conversation.entry) ? NULL
           : natter_session_index_entry_get_last_model (self->conversation.entry);
  choice = (NatterModelChoice) {
    .picked = _natter_window_choice_key (self) != NULL
              ? g_hash_table_lookup (self->choice.chosen_models, _natter_window_choice_key (self)) : NULL,
    .agent_own = agent_own_model (self),
    .last = last != NULL || self->conversation.session_id == NULL ? last
                                                     : g_hash_table_lookup (self->choice.branch_models, self->conversation.session_id),
    .default_provider = self->choice.provider_id,
    .default_model = self->choice.default_model,
    .has_registry = self->choice.registry != NULL,
    .recent = recent_model (self),
  };

  return choice;
}

void
_natter_window_carried_choice_clear (NatterWindowCarriedChoice *carried)
{
  g_clear_pointer (&carried->picked, json_object_unref);
  g_clear_pointer (&carried->last, json_object_unref);
  g_clear_pointer (&carried->agent_id, g_free);
}

/* Fills @carried (cleared) with what the next message of the open
 * session would go out with, before its new version is made: the
 * version is a new session, which has none of it yet. */
void
_natter_window_dup_choice (NatterWindow              *self,
                           NatterWindowCarriedChoice *carried)
{
  NatterModelChoice choice = model_choice (self);

  carried->picked = choice.picked != NULL ? json_object_ref (choice.picked) : NULL;
  carried->last = choice.last != NULL ? json_object_ref (choice.last) : NULL;
  carried->agent_id = has_agent_store (self) ? g_strdup (natter_agent_chooser_get_agent_id (self->choice.agent_chooser))
                                             : NULL;
}

/* Gives @session_id, a new version not opened yet, the choice its
 * conversation had, so its messages go where that conversation's would
 * (natter-model-choice.c), not to the default. */
void
_natter_window_carry_choice (NatterWindow                    *self,
                             const char                      *session_id,
                             const NatterWindowCarriedChoice *carried)
{
  if (carried->picked != NULL)
    g_hash_table_replace (self->choice.chosen_models, g_strdup (session_id), json_object_ref (carried->picked));
  if (carried->last != NULL)
    g_hash_table_replace (self->choice.branch_models, g_strdup (session_id), json_object_ref (carried->last));
  if (carried->agent_id != NULL)
    g_hash_table_replace (self->choice.chosen_agents, g_strdup (session_id), g_strdup (carried->agent_id));
}

/**
 * _natter_window_carry_shown_choice:
 * @self: the window
 * @session_id: a new conversation that stands in for another, not
 *   opened yet: the copy of a damaged conversation's readable part
 * @carried: what the other conversation's header showed, or went on
 *   with: its pick, its latest turn's model, its agent (each nullable)
 *
 * Makes @carried what @session_id goes on with, over what its own last
 * turn used: the copy's last turn is an earlier one than the damaged
 * conversation's, perhaps of another model, and the person goes on where
 * the header was (docs/sessions.md §2). The model is kept as a pick for
 * @session_id, as one made in its header would be, unless the agent
 * names its own model and nothing was picked: then the agent shows it.
 * A provider that is no longer configured is no way to go on: the copy
 * then keeps its own.
 */
void
_natter_window_carry_shown_choice (NatterWindow                    *self,
                                   const char                      *session_id,
                                   const NatterWindowCarriedChoice *carried)
{
  JsonObject *model = carried->picked;

  if (carried->agent_id != NULL)
    g_hash_table_replace (self->choice.chosen_agents, g_strdup (session_id), g_strdup (carried->agent_id));
  if (model == NULL && carried->last != NULL &&
      (!has_agent_store (self) || carried->agent_id == NULL ||
       natter_agent_chooser_get_agent_model (self->choice.agent_chooser, carried->agent_id) == NULL))
    model = carried->last;
  if (model == NULL ||
      _natter_window_provider_is_missing (self, json_object_get_string_member_with_default (model, "provider", NULL)))
    return;
  g_hash_table_replace (self->choice.chosen_models, g_strdup (session_id), json_object_ref (model));
}

/* "Use Ollama Instead": a way out of a provider that is gone, unless
 * the default is that provider or is not configured either. */
static char *
fallback_label (NatterWindow *self,
                const char   *provider_id)
{
  g_autoptr(NatterOpenaiProvider) fallback = NULL;
  g_auto(GStrv) configured = natter_provider_registry_list_providers (self->choice.registry);

  if (self->choice.provider_id == NULL || g_strcmp0 (self->choice.provider_id, provider_id) == 0 ||
      !g_strv_contains ((const char * const *) configured, self->choice.provider_id))
    return NULL;
  fallback = natter_provider_registry_get_provider (self->choice.registry, self->choice.provider_id, NULL);
  if (fallback == NULL)
    return NULL;
  /* Translators: %s is the name of a model provider, e.g. "Ollama" */
  return g_strdup_printf (_("Use %s Instead"), natter_openai_provider_get_display_name (fallback));
}

/* Points the picker at @provider_id's list: a configured provider's (kept
 * by the picker, so this is cheap when switching back), or the unknown
 * state for a removed provider or a bare endpoint URL, never another
 * provider's list in its place. */
static void
list_provider (NatterWindow *self,
               const char   *provider_id)
{
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) configured = NULL;
  g_autofree char *fallback = NULL;
  g_autofree char *title = NULL;
  g_autofree char *message = NULL;

  g_free (self->choice.listed_provider);
  self->choice.listed_provider = g_strdup (provider_id);
  if (self->choice.registry == NULL || provider_id == NULL)
    {
      natter_model_picker_set_others (self->choice.model_picker, NULL);
      natter_model_picker_set_provider (self->choice.model_picker, NULL, NULL);
      return;
    }

  configured = natter_provider_registry_list_providers (self->choice.registry);
  if (!natter_provider_id_is_endpoint (provider_id) && g_strv_contains ((const char * const *) configured, provider_id))
    provider = natter_provider_registry_get_provider (self->choice.registry, provider_id, &error);
  if (provider != NULL)
    {
      g_autoptr(GPtrArray) others = g_ptr_array_new_with_free_func (g_object_unref);

      natter_model_picker_set_provider (self->choice.model_picker, provider,
                                        natter_openai_provider_get_display_name (provider));
      /* The other providers' models are a pick away, each under its
       * provider's name: the person's providers, not the default kept
       * only so that it goes on working. */
      for (guint i = 0; configured[i] != NULL; i++)
        {
          NatterOpenaiProvider *other = NULL;

          if (g_str_equal (configured[i], provider_id) ||
              !natter_provider_registry_is_offered (self->choice.registry, configured[i]) ||
              (other = natter_provider_registry_get_provider (self->choice.registry, configured[i], NULL)) == NULL)
            continue;
          g_ptr_array_add (others, other);
        }
      natter_model_picker_set_others (self->choice.model_picker, others);
      return;
    }
  natter_model_picker_set_others (self->choice.model_picker, NULL);

  fallback = fallback_label (self, provider_id);
  if (natter_provider_id_is_endpoint (provider_id))
    {
      title = g_strdup (_("Not One of Your Providers"));
      /* Translators: %s is a server address, e.g. "http://localhost:8080/v1" */
      message = g_strdup_printf (_("This conversation’s model was reached at %s directly. "
                                   "Add that server in Preferences to list its models."), provider_id);
    }
  else
    {
      /* Translators: %s is the id of a model provider, e.g. "openrouter" */
      title = g_strdup_printf (_("“%s” Is Not Configured"), provider_id);
      message = g_strdup (_("This conversation’s provider is not among your providers any more. "
                            "Add it again in Preferences to list its models."));
    }
  natter_model_picker_set_unavailable (self->choice.model_picker, title, message, fallback);
}

typedef struct
{
  NatterWindow *self;
  char         *provider;
} FirstModel;

static void
first_model_free (FirstModel *first)
{
  g_object_unref (first->self);
  g_free (first->provider);
  g_free (first);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FirstModel, first_model_free)

static void
first_model_resolved_cb (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(FirstModel) first = user_data;
  NatterWindow *self = first->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) descriptor = NULL;

  descriptor = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (source), result, &error);
  /* Cancelled: the providers changed or the window went away. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->choice.first_models == NULL)
    return;
  if (g_strcmp0 (self->choice.resolving_provider, first->provider) == 0)
    {
      g_clear_pointer (&self->choice.resolving_provider, g_free);
      g_clear_object (&self->choice.first_model_cancellable);
    }
  /* A provider that cannot say is left as it is: the picker's list says
   * why, and sending reports the same error in words. */
  if (descriptor == NULL)
    {
      g_debug ("No first model of %s: %s", first->provider, error->message);
      return;
    }
  g_hash_table_replace (self->choice.first_models, g_strdup (first->provider),
                        g_strdup (json_object_get_string_member (descriptor, "model")));
  _natter_window_update_model_picker (self);
}

/* The model a message goes to when none is named: the provider's first,
 * asked for through the same resolution the send path uses, so the
 * header never shows another model than the one that answers. Known
 * once resolved; until then (or if it cannot be), NULL. */
static const char *
first_model (NatterWindow *self,
             const char   *provider)
{
  const char *known = g_hash_table_lookup (self->choice.first_models, provider);
  FirstModel *first;

  if (known != NULL || self->choice.registry == NULL || g_strcmp0 (self->choice.resolving_provider, provider) == 0)
    return known;
  g_cancellable_cancel (self->choice.first_model_cancellable);
  g_clear_object (&self->choice.first_model_cancellable);
  self->choice.first_model_cancellable = g_cancellable_new ();
  g_free (self->choice.resolving_provider);
  self->choice.resolving_provider = g_strdup (provider);
  first = g_new0 (FirstModel, 1);
  first->self = g_object_ref (self);
  first->provider = g_strdup (provider);
  natter_provider_registry_resolve_model_async (self->choice.registry, provider, NULL, self->choice.first_model_cancellable,
                                                first_model_resolved_cb, first);
  return NULL;
}

void
_natter_window_update_model_picker (NatterWindow *self)
{
  gboolean usable = _natter_window_open_is_usable (self) ||
                    (self->conversation.entry == NULL && self->conversation.new_chat);
  NatterModelChoice choice = model_choice (self);
  const char *provider = NULL;
  const char *model = NULL;

  natter_model_choice_shown (&choice, &provider, &model);
  /* Dictation goes to the provider of the model shown. */
  _natter_window_set_dictation_provider (self, provider);
  gtk_widget_set_visible (GTK_WIDGET (self->choice.model_picker), usable);
  if (!usable)
    {
      natter_model_picker_set_model (self->choice.model_picker, NULL);
      return;
    }
  /* Resolving looks the key up: only when the provider changes. */
  if (self->choice.listed_provider == NULL || g_strcmp0 (provider, self->choice.listed_provider) != 0)
    list_provider (self, provider);
  if (provider != NULL && (model == NULL || model[0] == '\0') && choice.agent_own == NULL &&
      self->choice.listed_provider != NULL && natter_model_picker_get_provider_id (self->choice.model_picker) != NULL)
    model = first_model (self, provider);
  natter_model_picker_set_model (self->choice.model_picker, model);
}

static void
model_chosen_cb (NatterWindow *self,
                 const char   *provider,
                 const char   *model)
{
  JsonObject *choice;
  gboolean other = g_strcmp0 (provider, natter_model_picker_get_provider_id (self->choice.model_picker)) != 0;

  /* A model goes with the provider whose list it came from. */
  if (_natter_window_choice_key (self) == NULL || provider == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", provider);
  json_object_set_string_member (choice, "model", model);
  g_hash_table_replace (self->choice.chosen_models, g_strdup (_natter_window_choice_key (self)), choice);
  remember_recent (self, provider, model);
  _natter_window_hide_provider_error (self);
  /* Another provider's model: the picker follows it to that provider. */
  if (other)
    _natter_window_update_model_picker (self);
}

static void
model_fallback_cb (NatterWindow *self)
{
  JsonObject *choice;

  if (_natter_window_choice_key (self) == NULL || self->choice.provider_id == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", self->choice.provider_id);
  if (self->choice.default_model != NULL)
    json_object_set_string_member (choice, "model", self->choice.default_model);
  g_hash_table_replace (self->choice.chosen_models, g_strdup (_natter_window_choice_key (self)), choice);
  _natter_window_update_model_picker (self);
}

/* Gives @request the agent the agent chooser shows and the model picked
 * in the header bar for the open conversation. */
void
_natter_window_choose_for (NatterWindow         *self,
                           NatterMessageRequest *request)
{
  NatterModelChoice choice = model_choice (self);
  JsonObject *chosen = NULL;
  const char *provider = NULL;
  const char *model = NULL;

  if (has_agent_store (self) || self->choice.agent_id != NULL)
    natter_message_request_set_agent (request, next_agent_id (self));
  /* The send path knows the conversation's own models, not what was used
   * elsewhere: the recent model goes with the message as if picked. */
  if (choice.picked != NULL)
    chosen = choice.picked;
  else if (choice.agent_own == NULL && choice.last == NULL)
    chosen = choice.recent;
  if (chosen != NULL)
    natter_message_request_set_model (request, json_object_get_string_member_with_default (chosen, "provider", NULL),
                                      json_object_get_string_member_with_default (chosen, "model", NULL));
  /* What a message goes to is what was used last, unless the agent
   * chose it, or nothing was chosen at all: a message that went to the
   * default is no choice of a model, and must not stop the first
   * provider a person adds from becoming the default
   * (natter_settings_adopt_first_provider()). */
  if ((choice.picked != NULL || choice.agent_own == NULL) &&
      (choice.picked != NULL || choice.last != NULL || choice.recent != NULL))
    {
      natter_model_choice_shown (&choice, &provider, &model);
      if (model == NULL || model[0] == '\0')
        model = provider != NULL ? g_hash_table_lookup (self->choice.first_models, provider) : NULL;
      remember_recent (self, provider, model);
    }
}

void
_natter_window_class_choice_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, model_chosen_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_fallback_cb);
}

/* Follows the composer's agent chooser. */
void
_natter_window_choice_init (NatterWindow *self)
{
  self->choice.agent_chooser = natter_composer_get_agent_chooser (self->conversation.composer);
  g_signal_connect_object (self->choice.agent_chooser, "notify::agent-id", G_CALLBACK (agent_chosen_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->choice.agent_chooser, "agent-removed", G_CALLBACK (agent_removed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->choice.agent_chooser, "agents-changed", G_CALLBACK (agents_changed_cb), self,
                           G_CONNECT_SWAPPED);
}
