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

#include "natter-attachment-intake.h"
#include "natter-auto-compact.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-sessions-queue.h"
#include "natter-store-error.h"
#include "natter-toast-guard.h"
#include "natter-model-choice.h"
#include "natter-window-private.h"

/* The conversation */

gboolean
_natter_window_latest_is_running (NatterWindow *self)
{
  const char *latest = self->entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->entry) : NULL;

  return latest != NULL && natter_sessions_is_turn_running (self->sessions, latest);
}

void
_natter_window_update_composer (NatterWindow *self)
{
  const char *status;
  const char *reason = NULL;
  gboolean running;

  if (self->entry == NULL)
    return;

  status = natter_session_index_entry_get_latest_turn_status (self->entry);
  running = _natter_window_latest_is_running (self);
  if (natter_session_index_entry_get_error (self->entry) != NULL)
    reason = _("This conversation is damaged and cannot take new messages.");
  else if (!running && g_strcmp0 (status, "suspended") == 0)
    reason = _("Answer the request above before sending a new message.");
  else if (!running && g_strcmp0 (status, "idle") == 0)
    reason = _("The last answer was interrupted. Resume it before sending a new message.");

  natter_composer_set_running (self->composer, running);
  natter_composer_set_blocked_reason (self->composer, reason);
  gtk_widget_set_sensitive (GTK_WIDGET (self->composer), !self->sending);
  _natter_window_update_keyboard_actions (self);
}

/* The agents */

static gboolean
has_agent_store (NatterWindow *self)
{
  return natter_agent_chooser_get_store (self->agent_chooser) != NULL;
}

/* The agent the next message goes to: the chooser's, or without agents
 * to choose from, the window's agent (natter_window_set_agent_id()). */
static const char *
next_agent_id (NatterWindow *self)
{
  return has_agent_store (self) ? natter_agent_chooser_get_agent_id (self->agent_chooser) : self->agent_id;
}

/* The model the chosen agent names itself, if any. */
static JsonObject *
agent_own_model (NatterWindow *self)
{
  if (!has_agent_store (self))
    return NULL;
  return natter_agent_chooser_get_agent_model (self->agent_chooser,
                                               natter_agent_chooser_get_agent_id (self->agent_chooser));
}

/* Takes @text. */
static void
show_agent_toast (NatterWindow *self,
                  char         *text)
{
  g_free (self->last_agent_toast);
  self->last_agent_toast = g_strdup (text);
  _natter_window_show_error_toast (self, text);
}

/* Shows the open session's agent: the one picked for it while the app
 * runs, else its last turn's, else Assistant. An agent that is gone
 * gives way to Assistant, said once per session, never a send to an
 * agent that cannot answer. */
void
_natter_window_apply_session_agent (NatterWindow *self)
{
  const char *agent_id = NULL;

  if (!has_agent_store (self) || self->session_id == NULL)
    return;
  agent_id = g_hash_table_lookup (self->chosen_agents, self->session_id);
  if (agent_id == NULL && self->entry != NULL)
    agent_id = natter_session_index_entry_get_last_agent_id (self->entry);
  if (agent_id == NULL)
    agent_id = NATTER_WINDOW_DEFAULT_AGENT_ID;

  self->applying_agent = TRUE;
  if (!natter_agent_chooser_set_agent_id (self->agent_chooser, agent_id))
    {
      /* Translators: %s is the id of an agent that was deleted */
      show_agent_toast (self, g_strdup_printf (_("The agent “%s” is gone: messages go to Assistant"), agent_id));
      g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
                            g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID));
    }
  self->applying_agent = FALSE;
}

static void
agent_chosen_cb (NatterWindow *self)
{
  if (!self->applying_agent && self->session_id != NULL)
    g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
                          g_strdup (natter_agent_chooser_get_agent_id (self->agent_chooser)));
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
  g_hash_table_iter_init (&iter, self->chosen_agents);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_str_equal (value, agent_id))
      g_hash_table_iter_remove (&iter);
  if (self->session_id != NULL)
    g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
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
  JsonObject *last = self->entry != NULL ? natter_session_index_entry_get_last_model (self->entry) : NULL;
  NatterModelChoice choice = {
    .picked = self->session_id != NULL ? g_hash_table_lookup (self->chosen_models, self->session_id) : NULL,
    .agent_own = agent_own_model (self),
    .last = last != NULL || self->session_id == NULL ? last
                                                     : g_hash_table_lookup (self->branch_models, self->session_id),
    .default_provider = self->provider_id,
    .default_model = self->default_model,
    .has_registry = self->registry != NULL,
  };

  return choice;
}

/**
 * _natter_window_provider_is_missing:
 * @self: the window
 * @provider_id: (nullable): a provider id or endpoint URL
 *
 * Whether @provider_id names a provider that is not configured (deleted
 * in Preferences, or a setting naming one that never was). An endpoint
 * URL needs no configuration; without a registry nothing can be told.
 *
 * Returns: %TRUE if nothing can be sent to @provider_id
 */
gboolean
_natter_window_provider_is_missing (NatterWindow *self,
                                    const char   *provider_id)
{
  g_auto(GStrv) configured = NULL;

  if (self->registry == NULL || provider_id == NULL || provider_id[0] == '\0' ||
      natter_provider_id_is_endpoint (provider_id))
    return FALSE;
  configured = natter_provider_registry_list_providers (self->registry);
  return !g_strv_contains ((const char * const *) configured, provider_id);
}

/* The provider a message with @choice would go to, when it is gone: the
 * runtime would refuse the turn, so the window says why before sending.
 * An agent's own model is the runtime's to resolve. */
static const char *
missing_provider (NatterWindow            *self,
                  const NatterModelChoice *choice)
{
  const char *provider = NULL;
  const char *model = NULL;

  if (choice->picked == NULL && choice->agent_own != NULL)
    return NULL;
  natter_model_choice_shown (choice, &provider, &model);
  return _natter_window_provider_is_missing (self, provider) ? provider : NULL;
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
  carried->agent_id = has_agent_store (self) ? g_strdup (natter_agent_chooser_get_agent_id (self->agent_chooser))
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
    g_hash_table_replace (self->chosen_models, g_strdup (session_id), json_object_ref (carried->picked));
  if (carried->last != NULL)
    g_hash_table_replace (self->branch_models, g_strdup (session_id), json_object_ref (carried->last));
  if (carried->agent_id != NULL)
    g_hash_table_replace (self->chosen_agents, g_strdup (session_id), g_strdup (carried->agent_id));
}

/* "Use Ollama Instead": a way out of a provider that is gone, unless
 * the default is that provider or is not configured either. */
static char *
fallback_label (NatterWindow *self,
                const char   *provider_id)
{
  g_autoptr(NatterOpenaiProvider) fallback = NULL;
  g_auto(GStrv) configured = natter_provider_registry_list_providers (self->registry);

  if (self->provider_id == NULL || g_strcmp0 (self->provider_id, provider_id) == 0 ||
      !g_strv_contains ((const char * const *) configured, self->provider_id))
    return NULL;
  fallback = natter_provider_registry_get_provider (self->registry, self->provider_id, NULL);
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

  g_free (self->listed_provider);
  self->listed_provider = g_strdup (provider_id);
  if (self->registry == NULL || provider_id == NULL)
    {
      natter_model_picker_set_provider (self->model_picker, NULL, NULL);
      return;
    }

  configured = natter_provider_registry_list_providers (self->registry);
  if (!natter_provider_id_is_endpoint (provider_id) && g_strv_contains ((const char * const *) configured, provider_id))
    provider = natter_provider_registry_get_provider (self->registry, provider_id, &error);
  if (provider != NULL)
    {
      natter_model_picker_set_provider (self->model_picker, provider,
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
  natter_model_picker_set_unavailable (self->model_picker, title, message, fallback);
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
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->first_models == NULL)
    return;
  if (g_strcmp0 (self->resolving_provider, first->provider) == 0)
    {
      g_clear_pointer (&self->resolving_provider, g_free);
      g_clear_object (&self->first_model_cancellable);
    }
  /* A provider that cannot say is left as it is: the picker's list says
   * why, and sending reports the same error in words. */
  if (descriptor == NULL)
    {
      g_debug ("No first model of %s: %s", first->provider, error->message);
      return;
    }
  g_hash_table_replace (self->first_models, g_strdup (first->provider),
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
  const char *known = g_hash_table_lookup (self->first_models, provider);
  FirstModel *first;

  if (known != NULL || self->registry == NULL || g_strcmp0 (self->resolving_provider, provider) == 0)
    return known;
  g_cancellable_cancel (self->first_model_cancellable);
  g_clear_object (&self->first_model_cancellable);
  self->first_model_cancellable = g_cancellable_new ();
  g_free (self->resolving_provider);
  self->resolving_provider = g_strdup (provider);
  first = g_new0 (FirstModel, 1);
  first->self = g_object_ref (self);
  first->provider = g_strdup (provider);
  natter_provider_registry_resolve_model_async (self->registry, provider, NULL, self->first_model_cancellable,
                                                first_model_resolved_cb, first);
  return NULL;
}

void
_natter_window_update_model_picker (NatterWindow *self)
{
  gboolean usable = self->entry != NULL && natter_session_index_entry_get_error (self->entry) == NULL;
  NatterModelChoice choice;
  const char *provider = NULL;
  const char *model = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->model_picker), usable);
  if (!usable)
    {
      natter_model_picker_set_model (self->model_picker, NULL);
      return;
    }
  choice = model_choice (self);
  natter_model_choice_shown (&choice, &provider, &model);
  /* Resolving looks the key up: only when the provider changes. */
  if (self->listed_provider == NULL || g_strcmp0 (provider, self->listed_provider) != 0)
    list_provider (self, provider);
  if (provider != NULL && (model == NULL || model[0] == '\0') && choice.agent_own == NULL &&
      self->listed_provider != NULL && natter_model_picker_get_provider_id (self->model_picker) != NULL)
    model = first_model (self, provider);
  natter_model_picker_set_model (self->model_picker, model);
}

static void
model_chosen_cb (NatterWindow *self,
                 const char   *model)
{
  const char *provider = natter_model_picker_get_provider_id (self->model_picker);
  JsonObject *choice;

  /* A model goes with the provider whose list it came from. */
  if (self->session_id == NULL || provider == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", provider);
  json_object_set_string_member (choice, "model", model);
  g_hash_table_replace (self->chosen_models, g_strdup (self->session_id), choice);
}

static void
model_fallback_cb (NatterWindow *self)
{
  JsonObject *choice;

  if (self->session_id == NULL || self->provider_id == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", self->provider_id);
  if (self->default_model != NULL)
    json_object_set_string_member (choice, "model", self->default_model);
  g_hash_table_replace (self->chosen_models, g_strdup (self->session_id), choice);
  _natter_window_update_model_picker (self);
}

/* Sending */

typedef struct
{
  NatterWindow *self;
  char         *session_id;
  char         *text;
  gboolean      restore_draft;
  gboolean      queue;          /* an answer runs: queue it after */
  gboolean      refocus;
  gboolean      compact_checked; /* the auto-compact setting had its say */
  JsonObject        *input;
  NatterSendOptions *options;
  GPtrArray         *sources;   /* nullable: the attachments, not yet stored */
} SendData;

static void
send_data_free (SendData *data)
{
  g_object_unref (data->self);
  g_free (data->session_id);
  g_free (data->text);
  g_clear_pointer (&data->input, json_object_unref);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_clear_pointer (&data->sources, g_ptr_array_unref);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendData, send_data_free)

/* A message that could not go out: its words are not lost,
 * they go back into the draft unless the user has typed something new
 * meanwhile. */
static void
send_failed (SendData     *data,
             const GError *error)
{
  NatterWindow *self = data->self;

  if (data->restore_draft)
    {
      if (g_strcmp0 (self->session_id, data->session_id) == 0)
        {
          g_autofree char *draft = natter_composer_dup_text (self->composer);

          if (draft[0] == '\0')
            natter_composer_set_text (self->composer, data->text);
        }
      else if (!g_hash_table_contains (self->drafts, data->session_id))
        g_hash_table_insert (self->drafts, g_strdup (data->session_id), g_strdup (data->text));
    }
  /* Nor are its attachments, while its conversation is open. */
  if (data->sources != NULL && g_strcmp0 (self->session_id, data->session_id) == 0)
    natter_composer_restore_attachments (self->composer, data->sources);
  _natter_window_show_error (self, data->session_id, _("The message was not sent"), error, data->text);
}

static void
send_done (SendData *data)
{
  NatterWindow *self = data->self;

  _natter_window_update_composer (self);
  /* The composer was insensitive while the message went out, which took
   * its focus: give it back, so the next message is typed at once. */
  if (data->refocus && g_strcmp0 (self->session_id, data->session_id) == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
send_message_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  turn_id = natter_sessions_send_message_finish (NATTER_SESSIONS (source), result, &error);
  self->sending = FALSE;
  if (turn_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    send_failed (data, error);
  send_done (data);
}

static void send_with_options (SendData *data);

static void
auto_compacted_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  SendData *data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *compaction_id = natter_auto_compact_finish (NATTER_SESSIONS (source), result, &error);

  /* A failed compaction costs the message nothing: it goes out with the
   * whole history, and the toast says why nothing was summarized. */
  if (compaction_id == NULL && error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error_toast (data->self,
                                     g_strdup_printf (_("The conversation could not be compacted before "
                                                        "sending: %s"), error->message));
  send_with_options (data);
}

/* Whether @input already carries parts (its attachments were stored). */
static gboolean
json_node_holds_array_content (JsonObject *input)
{
  JsonNode *content = json_object_get_member (input, "content");

  return content != NULL && JSON_NODE_HOLDS_ARRAY (content);
}

static void
attachments_stored_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  g_autoptr(JsonArray) parts = NULL;
  g_autoptr(GError) error = NULL;

  parts = natter_attachments_store_finish (result, &error);
  if (parts == NULL)
    {
      data->self->sending = FALSE;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        send_failed (data, error);
      send_done (data);
      return;
    }
  /* The blobs are on disk: only now may a turn reference them. */
  g_clear_pointer (&data->input, json_object_unref);
  data->input = natter_user_message_new (data->text, parts);
  send_with_options (g_steal_pointer (&data));
}

static void
queue_message_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *queue_id = NULL;

  queue_id = natter_sessions_queue_message_finish (NATTER_SESSIONS (source), result, &error);
  /* The answer ended meanwhile: the message goes out as usual. */
  if (queue_id == NULL && error == NULL)
    {
      data->queue = FALSE;
      send_with_options (g_steal_pointer (&data));
      return;
    }
  self->sending = FALSE;
  if (queue_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    send_failed (data, error);
  send_done (data);
}

/* Takes @data. The attachments are stored first; then, while an answer
 * runs, the message is queued to go after it (§12.1; the queue view shows
 * it), or else sent. */
static void
send_with_options (SendData *data)
{
  NatterWindow *self = data->self;

  if (data->sources != NULL && !json_node_holds_array_content (data->input))
    {
      natter_attachments_store_async (self->blobs, data->sources,
                                      natter_settings_get_attachment_size_limit (self->settings),
                                      self->cancellable, attachments_stored_cb, data);
      return;
    }
  /* Only a message sent now: a queued one waits for an answer whose
   * usage is not known yet. */
  if (!data->queue && !data->compact_checked)
    {
      data->compact_checked = TRUE;
      natter_auto_compact_async (self->sessions, self->registry, self->settings, data->session_id,
                                 self->cancellable, auto_compacted_cb, data);
      return;
    }
  if (data->queue)
    {
      natter_sessions_queue_message_async (self->sessions, data->session_id, data->input, data->options,
                                           TRUE, self->cancellable, queue_message_cb, data);
      return;
    }
  natter_sessions_send_message_async (data->self->sessions, data->session_id, data->input, data->options,
                                      data->self->cancellable, send_message_cb, data);
}

static void
send_model_resolved_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  JsonObject *model;

  model = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (source), result, &error);
  if (model == NULL)
    {
      self->sending = FALSE;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        send_failed (data, error);
      send_done (data);
      return;
    }
  natter_send_options_set_model (data->options, json_object_get_string_member (model, "provider"),
                                 json_object_get_string_member (model, "model"));
  json_object_unref (model);
  send_with_options (g_steal_pointer (&data));
}

void
_natter_window_send_text (NatterWindow *self,
                          const char   *text,
                          gboolean      restore_draft)
{
  _natter_window_send_message (self, text, NULL, restore_draft);
}

/* Sends @text with the attachments @sources (nullable, taken): they are
 * stored as blobs first (natter-attachment-intake.c), then the turn that
 * references them is created. */
void
_natter_window_send_message (NatterWindow *self,
                             const char   *text,
                             GPtrArray    *sources,
                             gboolean      restore_draft)
{
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = NULL;
  g_autoptr(JsonObject) model = NULL;
  NatterModelChoice choice;
  const char *provider;
  const char *gone;
  SendData *data;

  if (self->session_id == NULL || self->sessions == NULL)
    {
      g_clear_pointer (&sources, g_ptr_array_unref);
      return;
    }
  /* A new message answers whatever the last error was about. */
  _natter_window_hide_error (self);

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  options = natter_send_options_new (next_agent_id (self));
  /* The header's model overrides the agent's (§9, agent.model); with no
   * model named anywhere, the registry is asked for the provider's first
   * one. */
  choice = model_choice (self);
  if ((model = natter_model_choice_dup_descriptor (&choice)) != NULL)
    natter_send_options_set_model (options, json_object_get_string_member (model, "provider"),
                                   json_object_get_string_member (model, "model"));
  provider = natter_model_choice_provider_to_resolve (&choice);
  natter_send_options_set_auto_permission (options, natter_settings_get_auto_permission (self->settings));
  natter_send_options_set_max_model_calls (options, natter_settings_get_max_model_calls (self->settings));
  natter_send_options_set_auto_title (options, natter_settings_get_auto_title (self->settings));

  data = g_new0 (SendData, 1);
  data->self = g_object_ref (self);
  data->session_id = g_strdup (self->session_id);
  data->text = g_strdup (text);
  data->restore_draft = restore_draft;
  data->queue = restore_draft && _natter_window_latest_is_running (self);
  data->refocus = gtk_widget_get_focus_child (GTK_WIDGET (self->composer)) != NULL;
  data->input = g_steal_pointer (&input);
  data->options = g_steal_pointer (&options);
  if (sources != NULL && sources->len > 0 && self->blobs != NULL)
    data->sources = g_steal_pointer (&sources);
  g_clear_pointer (&sources, g_ptr_array_unref);

  if ((gone = missing_provider (self, &choice)) != NULL)
    {
      g_autoptr(GError) error = g_error_new (NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND,
                                             "No provider “%s” is configured", gone);

      /* No turn is made for a provider that is gone: it could never
       * answer, and would only look interrupted. */
      send_failed (data, error);
      send_done (data);
      send_data_free (data);
      return;
    }
  self->sending = TRUE;
  natter_conversation_view_stick_to_bottom (self->conversation_view);
  _natter_window_update_composer (self);
  if (provider != NULL)
    natter_provider_registry_resolve_model_async (self->registry, provider, NULL, self->cancellable,
                                                  send_model_resolved_cb, data);
  else
    send_with_options (data);
}

static void
composer_send_cb (NatterWindow *self,
                  const char   *text)
{
  g_autofree char *editing = g_steal_pointer (&self->editing_turn_id);

  natter_conversation_view_set_editing (self->conversation_view, FALSE);
  _natter_window_update_keyboard_actions (self);
  natter_composer_set_text (self->composer, NULL);
  g_hash_table_remove (self->drafts, self->session_id);
  /* An edited message is a new version, never a change of the old. */
  if (editing != NULL)
    _natter_window_send_version (self, editing, text, natter_composer_take_attachments (self->composer));
  else
    _natter_window_send_message (self, text, natter_composer_take_attachments (self->composer), TRUE);
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
    _natter_window_show_error (self, self->session_id, _("The answer could not be stopped"), error, NULL);
}

void
_natter_window_stop_latest (NatterWindow *self)
{
  const char *latest = self->entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->entry) : NULL;

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


/* Sends what the composer sends, and follows its agent chooser. */
void
_natter_window_conversation_init (NatterWindow *self)
{
  g_signal_connect_object (self->composer, "send", G_CALLBACK (composer_send_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->composer, "stop", G_CALLBACK (_natter_window_composer_stop_cb), self,
                           G_CONNECT_SWAPPED);
  self->agent_chooser = natter_composer_get_agent_chooser (self->composer);
  g_signal_connect_object (self->agent_chooser, "notify::agent-id", G_CALLBACK (agent_chosen_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->agent_chooser, "agent-removed", G_CALLBACK (agent_removed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->agent_chooser, "agents-changed", G_CALLBACK (agents_changed_cb), self,
                           G_CONNECT_SWAPPED);
  /* Files dropped anywhere on the conversation are attached. */
  natter_composer_add_drop_target (self->composer, GTK_WIDGET (self->conversation_view));
}
