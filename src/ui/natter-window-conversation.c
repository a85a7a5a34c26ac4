/* natter-window-conversation.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation: the composer's state, which agent and model the
 * next message goes to, and sending it. The timeline itself is shown by
 * NatterConversationView.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-model-choice.h"
#include "natter-send-pipeline.h"
#include "natter-window-private.h"

/* The conversation */

gboolean
_natter_window_latest_is_running (NatterWindow *self)
{
  const char *latest = self->conversation.entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->conversation.entry) : NULL;

  return latest != NULL && natter_sessions_is_turn_running (self->sessions, latest);
}

/* Whether the open conversation's answer has not ended: it runs, or it
 * waits for a permission or an answer. A message typed then waits in
 * the queue, and Stop ends the answer. */
gboolean
_natter_window_latest_is_unsettled (NatterWindow *self)
{
  return _natter_window_latest_is_running (self) ||
         (self->conversation.entry != NULL &&
          g_strcmp0 (natter_session_index_entry_get_latest_turn_status (self->conversation.entry), "suspended") == 0);
}

void
_natter_window_update_composer (NatterWindow *self)
{
  const char *status;
  const char *reason = NULL;
  gboolean running;

  if (self->conversation.entry == NULL && self->conversation.new_chat)
    {
      /* A new conversation: nothing runs, anything may be sent. */
      natter_composer_set_running (self->conversation.composer, FALSE);
      natter_composer_set_blocked_reason (self->conversation.composer, NULL);
      gtk_widget_set_sensitive (GTK_WIDGET (self->conversation.composer), !self->conversation.sending);
      _natter_window_update_keyboard_actions (self);
      return;
    }
  if (self->conversation.entry == NULL)
    return;

  status = natter_session_index_entry_get_latest_turn_status (self->conversation.entry);
  running = _natter_window_latest_is_unsettled (self);
  if (natter_session_index_entry_get_error (self->conversation.entry) != NULL)
    reason = _("This conversation is damaged and cannot take new messages.");
  else if (!running && g_strcmp0 (status, "idle") == 0)
    reason = _("The last answer was interrupted. Resume it before sending a new message.");

  natter_composer_set_running (self->conversation.composer, running);
  natter_composer_set_blocked_reason (self->conversation.composer, reason);
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
  _natter_window_show_error_toast (self, text);
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
  };

  return choice;
}

/* Whether @provider_id names a provider that is not configured
 * (natter_send_pipeline_provider_is_missing()). */
gboolean
_natter_window_provider_is_missing (NatterWindow *self,
                                    const char   *provider_id)
{
  return self->pipeline != NULL && natter_send_pipeline_provider_is_missing (self->pipeline, provider_id);
}

/* The provider the open conversation's next message goes to, the one
 * the model picker shows (natter_model_choice_shown()): the model picked
 * in it, else its agent's own, else its last turn's, else the default.
 * Transfer full; NULL when there is none. */
char *
_natter_window_dup_next_provider (NatterWindow *self)
{
  NatterModelChoice choice = model_choice (self);
  const char *provider = NULL;
  const char *model = NULL;

  natter_model_choice_shown (&choice, &provider, &model);
  return g_strdup (provider);
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
      natter_model_picker_set_provider (self->choice.model_picker, NULL, NULL);
      return;
    }

  configured = natter_provider_registry_list_providers (self->choice.registry);
  if (!natter_provider_id_is_endpoint (provider_id) && g_strv_contains ((const char * const *) configured, provider_id))
    provider = natter_provider_registry_get_provider (self->choice.registry, provider_id, &error);
  if (provider != NULL)
    {
      natter_model_picker_set_provider (self->choice.model_picker, provider,
                                        natter_openai_provider_get_display_name (provider));
      return;
    }

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
  gboolean usable = (self->conversation.entry != NULL && natter_session_index_entry_get_error (self->conversation.entry) == NULL) ||
                    (self->conversation.entry == NULL && self->conversation.new_chat);
  NatterModelChoice choice;
  const char *provider = NULL;
  const char *model = NULL;

  /* Dictation goes to the provider of the model shown. */
  _natter_window_update_dictation_hint (self);
  gtk_widget_set_visible (GTK_WIDGET (self->choice.model_picker), usable);
  if (!usable)
    {
      natter_model_picker_set_model (self->choice.model_picker, NULL);
      return;
    }
  choice = model_choice (self);
  natter_model_choice_shown (&choice, &provider, &model);
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
                 const char   *model)
{
  const char *provider = natter_model_picker_get_provider_id (self->choice.model_picker);
  JsonObject *choice;

  /* A model goes with the provider whose list it came from. */
  if (_natter_window_choice_key (self) == NULL || provider == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", provider);
  json_object_set_string_member (choice, "model", model);
  g_hash_table_replace (self->choice.chosen_models, g_strdup (_natter_window_choice_key (self)), choice);
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

/* Sending: every message goes through the send pipeline the command
 * line uses too (natter-send-pipeline.c); the window only asks and
 * shows. */

typedef struct
{
  NatterWindow         *self;
  NatterMessageRequest *request;
  char                 *session_id;    /* the open conversation when it was sent: its
                                        * choice key (NATTER_WINDOW_NEW_CHAT_KEY: a new one) */
  gboolean              restore_draft;
  gboolean              refocus;
  NatterWindowCarriedChoice carried;   /* for a new version */
} SendData;

static void
send_data_free (SendData *data)
{
  g_object_unref (data->self);
  natter_message_request_free (data->request);
  g_free (data->session_id);
  _natter_window_carried_choice_clear (&data->carried);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendData, send_data_free)

/* A message that could not go out: its words and files are not lost.
 * Typed ones go back into the draft unless the user has typed something
 * new meanwhile; the error bar offers Retry where sending the same again
 * can succeed. */
static void
send_failed (SendData     *data,
             const GError *error)
{
  NatterWindow *self = data->self;
  const char *text = natter_message_request_get_text (data->request);
  GPtrArray *sources = natter_message_request_get_attachments (data->request);
  const char *heading;

  if (data->restore_draft && text != NULL)
    {
      if (g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
        {
          g_autofree char *draft = natter_composer_dup_text (self->conversation.composer);

          if (draft[0] == '\0')
            natter_composer_set_text (self->conversation.composer, text);
        }
      else if (!g_hash_table_contains (self->conversation.drafts, data->session_id))
        g_hash_table_insert (self->conversation.drafts, g_strdup (data->session_id), g_strdup (text));
    }
  if (data->restore_draft && sources->len > 0 && g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
    natter_composer_restore_attachments (self->conversation.composer, sources);
  if (natter_message_request_get_compact_first (data->request))
    heading = _("The conversation could not be compacted");
  else if (natter_message_request_get_version_of (data->request) != NULL)
    heading = _("The new version could not be made");
  else
    heading = _("The message was not sent");
  _natter_window_show_error (self, data->session_id[0] != '\0' ? data->session_id : NULL, heading, error,
                             natter_send_error_can_retry (error) ? data->request : NULL);
}

static void
send_done (SendData *data)
{
  NatterWindow *self = data->self;

  self->conversation.sending = FALSE;
  _natter_window_update_composer (self);
  /* The composer was insensitive while the message went out, which took
   * its focus: give it back, so the next message is typed at once. */
  if (data->refocus && g_strcmp0 (_natter_window_choice_key (self), data->session_id) == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
}

/* The new conversation made for a first message takes over what was
 * chosen for it while it was new. */
static void
adopt_new_chat (NatterWindow *self,
                const char   *session_id)
{
  gpointer value;

  if (g_hash_table_steal_extended (self->choice.chosen_models, NATTER_WINDOW_NEW_CHAT_KEY, NULL, &value))
    g_hash_table_replace (self->choice.chosen_models, g_strdup (session_id), value);
  if (g_hash_table_steal_extended (self->choice.chosen_agents, NATTER_WINDOW_NEW_CHAT_KEY, NULL, &value))
    g_hash_table_replace (self->choice.chosen_agents, g_strdup (session_id), value);
  g_hash_table_remove (self->conversation.drafts, NATTER_WINDOW_NEW_CHAT_KEY);
  g_hash_table_remove (self->conversation.draft_attachments, NATTER_WINDOW_NEW_CHAT_KEY);
  /* Words still being dictated for it go to it too. */
  _natter_window_voice_rekey (self, NATTER_WINDOW_NEW_CHAT_KEY, session_id);
}

static void
sent_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(NatterSendResult) sent = NULL;
  g_autoptr(GError) error = NULL;

  sent = natter_send_pipeline_send_finish (NATTER_SEND_PIPELINE (source), result, &error);
  if (sent == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        send_failed (data, error);
      send_done (data);
      return;
    }
  /* The composer takes messages again before another conversation
   * opens: it is where the keyboard goes when the rows it was in go (a
   * Try Again button clicked), and an insensitive one cannot take it. */
  self->conversation.sending = FALSE;
  _natter_window_update_composer (self);
  /* Said once per conversation: the message went with the whole
   * history all the same. */
  if (sent->compaction_error != NULL)
    _natter_window_show_error_toast (self, g_strdup_printf (_("The conversation could not be compacted before "
                                                              "sending: %s"), sent->compaction_error->message));
  /* A new version goes on with the model and agent of the conversation
   * it was made from, and is shown where it differs. */
  if (sent->created && natter_message_request_get_version_of (data->request) != NULL)
    {
      _natter_window_carry_choice (self, sent->session_id, &data->carried);
      if (g_strcmp0 (self->conversation.session_id, data->session_id) == 0)
        {
          natter_window_open_session (self, sent->session_id);
          g_free (data->session_id);
          data->session_id = g_strdup (sent->session_id);
        }
    }
  /* A first message made its conversation, which opens where the new
   * one was, its row scrolled into view at the top of the list. */
  else if (sent->created)
    {
      gboolean still_new = self->conversation.new_chat && self->conversation.session_id == NULL;

      adopt_new_chat (self, sent->session_id);
      if (still_new)
        {
          g_autofree char *typed = natter_composer_dup_text (self->conversation.composer);

          /* Words typed while the first message went out are the new
           * conversation's draft now. */
          if (typed[0] != '\0')
            g_hash_table_replace (self->conversation.drafts, g_strdup (sent->session_id), g_steal_pointer (&typed));
          if (natter_composer_get_n_attachments (self->conversation.composer) > 0)
            g_hash_table_replace (self->conversation.draft_attachments, g_strdup (sent->session_id),
                                  natter_composer_take_attachments (self->conversation.composer));
          self->conversation.new_chat = FALSE;
          natter_window_open_session (self, sent->session_id);
          natter_sidebar_scroll_to (self->session_sidebar, sent->session_id);
        }
      g_free (data->session_id);
      data->session_id = g_strdup (sent->session_id);
    }
  send_done (data);
}

/* Takes @request. Sends it from the open conversation, with what the
 * window shows as chosen for it: the agent chooser's agent and the model
 * picked in the header bar. */
static void
send_request (NatterWindow         *self,
              NatterMessageRequest *request,
              gboolean              restore_draft)
{
  JsonObject *picked;
  SendData *data;

  if (_natter_window_choice_key (self) == NULL || self->pipeline == NULL)
    {
      natter_message_request_free (request);
      return;
    }
  /* A new message answers whatever the last error was about. */
  _natter_window_hide_error (self);

  /* A new conversation's first message makes it (session NULL). */
  natter_message_request_set_session (request, self->conversation.session_id);
  if (has_agent_store (self) || self->choice.agent_id != NULL)
    natter_message_request_set_agent (request, next_agent_id (self));
  picked = g_hash_table_lookup (self->choice.chosen_models, _natter_window_choice_key (self));
  if (picked != NULL)
    natter_message_request_set_model (request, json_object_get_string_member_with_default (picked, "provider", NULL),
                                      json_object_get_string_member_with_default (picked, "model", NULL));

  data = g_new0 (SendData, 1);
  data->self = g_object_ref (self);
  data->request = request;
  data->session_id = g_strdup (_natter_window_choice_key (self));
  data->restore_draft = restore_draft;
  data->refocus = gtk_widget_get_focus_child (GTK_WIDGET (self->conversation.composer)) != NULL;
  _natter_window_dup_choice (self, &data->carried);

  self->conversation.sending = TRUE;
  natter_conversation_view_stick_to_bottom (self->conversation.view);
  _natter_window_update_composer (self);
  natter_send_pipeline_send_async (self->pipeline, data->request, self->cancellable, sent_cb, data);
}

void
_natter_window_send_text (NatterWindow *self,
                          const char   *text,
                          gboolean      restore_draft)
{
  _natter_window_send_message (self, text, NULL, restore_draft);
}

/* Sends @text with the attachments @sources (nullable, taken). A message
 * typed while the answer has not ended (it runs, or waits for a
 * permission or an answer) waits in the queue (docs/sessions.md
 * §4; the queue view shows it). */
void
_natter_window_send_message (NatterWindow *self,
                             const char   *text,
                             GPtrArray    *sources,
                             gboolean      restore_draft)
{
  NatterMessageRequest *request = natter_message_request_new (text);

  for (guint i = 0; sources != NULL && i < sources->len; i++)
    natter_message_request_add_attachment (request, g_ptr_array_index (sources, i));
  g_clear_pointer (&sources, g_ptr_array_unref);
  natter_message_request_set_queue (request, restore_draft && _natter_window_latest_is_unsettled (self));
  send_request (self, request, restore_draft);
}

/**
 * _natter_window_send_version:
 * @self: the window
 * @turn_id: a settled turn of the open conversation (its own or one it
 *   shows from the conversation it branched from)
 * @text: the message's new words
 * @sources: (transfer full) (nullable) (element-type NatterAttachmentSource):
 *   its attachments
 *
 * Makes a new version of @turn_id's message with @text and @sources (an
 * edit): the pipeline branches at the turn before it, with the open
 * conversation's title, and the new version opens.
 */
void
_natter_window_send_version (NatterWindow *self,
                             const char   *turn_id,
                             const char   *text,
                             GPtrArray    *sources)
{
  NatterMessageRequest *request = natter_message_request_new (text);

  for (guint i = 0; sources != NULL && i < sources->len; i++)
    natter_message_request_add_attachment (request, g_ptr_array_index (sources, i));
  g_clear_pointer (&sources, g_ptr_array_unref);
  natter_message_request_set_version_of (request, turn_id);
  send_request (self, request, TRUE);
}

/**
 * _natter_window_send_again:
 * @self: the window
 * @turn_id: a settled turn of the open conversation
 * @compact_first: whether to summarize the earlier turns first
 *
 * Try Again (and, with @compact_first, Compact and Continue): @turn_id's
 * message once more, with its words and attachments as they were sent,
 * as a new version of it. The turn, answered or failed, stays one arrow
 * away, and the history the model receives holds the message once.
 */
void
_natter_window_send_again (NatterWindow *self,
                           const char   *turn_id,
                           gboolean      compact_first)
{
  NatterMessageRequest *request = natter_message_request_new_again (turn_id);

  natter_message_request_set_compact_first (request, compact_first);
  send_request (self, request, FALSE);
}

/**
 * _natter_window_send_request_again:
 * @self: the window
 * @request: (transfer none): a message that was not sent
 *
 * The error bar's Retry: the same message, files included.
 */
void
_natter_window_send_request_again (NatterWindow               *self,
                                   const NatterMessageRequest *request)
{
  send_request (self, natter_message_request_copy (request), TRUE);
}

static void
composer_send_cb (NatterWindow *self,
                  const char   *text)
{
  g_autofree char *editing = g_steal_pointer (&self->versions.editing_turn_id);

  natter_conversation_view_set_editing (self->conversation.view, FALSE);
  _natter_window_update_keyboard_actions (self);
  natter_composer_set_text (self->conversation.composer, NULL);
  if (_natter_window_choice_key (self) != NULL)
    g_hash_table_remove (self->conversation.drafts, _natter_window_choice_key (self));
  /* An edited message is a new version, never a change of the old. */
  if (editing != NULL)
    _natter_window_send_version (self, editing, text, natter_composer_take_attachments (self->conversation.composer));
  else
    _natter_window_send_message (self, text, natter_composer_take_attachments (self->conversation.composer), TRUE);
}

static void
stop_turn_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, self->conversation.session_id, _("The answer could not be stopped"), error, NULL);
}

void
_natter_window_stop_latest (NatterWindow *self)
{
  const char *latest = self->conversation.entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->conversation.entry) : NULL;

  if (latest == NULL)
    return;
  natter_sessions_stop_turn_async (self->sessions, latest, NULL, self->cancellable,
                                   stop_turn_cb, g_object_ref (self));
}

void
_natter_window_class_conversation_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, model_chosen_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_fallback_cb);
}


/* A file the composer would not attach: said in the error bar, about
 * the conversation being written. */
static void
attachment_refused_cb (NatterWindow *self,
                       const char   *reason)
{
  g_autoptr(GError) error = g_error_new_literal (NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED, reason);

  _natter_window_show_error (self, self->conversation.session_id, _("The file was not attached"), error, NULL);
}

/* Sends what the composer sends, and follows its agent chooser. */
void
_natter_window_conversation_init (NatterWindow *self)
{
  g_signal_connect_object (self->conversation.composer, "attachment-refused", G_CALLBACK (attachment_refused_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->conversation.composer, "send", G_CALLBACK (composer_send_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->conversation.composer, "stop", G_CALLBACK (_natter_window_composer_stop_cb), self,
                           G_CONNECT_SWAPPED);
  self->choice.agent_chooser = natter_composer_get_agent_chooser (self->conversation.composer);
  g_signal_connect_object (self->choice.agent_chooser, "notify::agent-id", G_CALLBACK (agent_chosen_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->choice.agent_chooser, "agent-removed", G_CALLBACK (agent_removed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->choice.agent_chooser, "agents-changed", G_CALLBACK (agents_changed_cb), self,
                           G_CONNECT_SWAPPED);
  /* Files dropped anywhere on the conversation are attached. */
  natter_composer_add_drop_target (self->conversation.composer, GTK_WIDGET (self->conversation.view));
}
