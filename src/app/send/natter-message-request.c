/* natter-message-request.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person asked to send, as the front end knows it: the words and
 * the files, which conversation (or a new one), whether it is a new
 * version of a message, and the choices made for it (agent, model,
 * queueing, compaction, permissions, generation parameters). The window fills one from its
 * composer, the command line from its options; the send pipeline
 * (natter-send-pipeline.c) makes it a turn. Everything a front end did
 * not choose is left to the pipeline's rules, so both front ends send
 * the same message the same way.
 */

#define G_LOG_DOMAIN "natter-app"

#include "config.h"

#include "natter-message-request.h"

struct _NatterMessageRequest
{
  char      *text;             /* NULL for `again` */
  char      *again;            /* the turn whose message goes again */
  char      *session_id;       /* NULL: a new conversation */
  char      *cwd;
  GPtrArray *attachments;      /* NatterAttachmentSource, not stored yet */
  char      *version_of;
  char      *agent_id;
  char      *provider;         /* both NULL, or provider set */
  char      *model;
  gboolean   auto_permission;
  guint      max_model_calls;
  gboolean   auto_title;
  gboolean   queue;
  gboolean   compact_first;
  NatterGenerationParameters *parameters;  /* NULL: none of its own */
};

G_DEFINE_BOXED_TYPE (NatterMessageRequest, natter_message_request,
                     natter_message_request_copy, natter_message_request_free)

static NatterMessageRequest *
request_new (void)
{
  NatterMessageRequest *self = g_new0 (NatterMessageRequest, 1);

  self->attachments = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  self->auto_title = TRUE;
  return self;
}

/**
 * natter_message_request_new:
 * @text: the message's words (may be empty when files are attached)
 *
 * A new message to a new conversation (natter_message_request_set_session()
 * names an existing one), with every choice left to the send pipeline's
 * rules: the conversation's agent and model, the settings' permissions,
 * model-call limit and titles, sent now (not queued).
 *
 * Returns: (transfer full): a new request
 */
NatterMessageRequest *
natter_message_request_new (const char *text)
{
  NatterMessageRequest *self;

  g_return_val_if_fail (text != NULL, NULL);

  self = request_new ();
  self->text = g_strdup (text);
  return self;
}

/**
 * natter_message_request_new_again:
 * @turn_id: a settled turn
 *
 * The message of @turn_id once more, with its words and its attachments
 * as they were sent, as a new version of that message: Try Again, and
 * Compact and Continue. The turn itself stays where it is, one arrow
 * away, and the history the model receives holds the message once. The
 * pipeline reads the message from the turn's file.
 *
 * Returns: (transfer full): a new request
 */
NatterMessageRequest *
natter_message_request_new_again (const char *turn_id)
{
  NatterMessageRequest *self;

  g_return_val_if_fail (turn_id != NULL, NULL);

  self = request_new ();
  self->again = g_strdup (turn_id);
  self->version_of = g_strdup (turn_id);
  return self;
}

/**
 * natter_message_request_copy:
 * @self: a request
 *
 * Returns: (transfer full): an independent copy; the attachment sources
 *   are shared (they are immutable)
 */
NatterMessageRequest *
natter_message_request_copy (const NatterMessageRequest *self)
{
  NatterMessageRequest *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = request_new ();
  copy->text = g_strdup (self->text);
  copy->again = g_strdup (self->again);
  copy->session_id = g_strdup (self->session_id);
  copy->cwd = g_strdup (self->cwd);
  for (guint i = 0; i < self->attachments->len; i++)
    g_ptr_array_add (copy->attachments, natter_attachment_source_ref (g_ptr_array_index (self->attachments, i)));
  copy->version_of = g_strdup (self->version_of);
  copy->agent_id = g_strdup (self->agent_id);
  copy->provider = g_strdup (self->provider);
  copy->model = g_strdup (self->model);
  copy->auto_permission = self->auto_permission;
  copy->max_model_calls = self->max_model_calls;
  copy->auto_title = self->auto_title;
  copy->queue = self->queue;
  copy->compact_first = self->compact_first;
  natter_message_request_set_parameters (copy, self->parameters);
  return copy;
}

/**
 * natter_message_request_free:
 * @self: (transfer full) (nullable): a request
 */
void
natter_message_request_free (NatterMessageRequest *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_free (self->again);
  g_free (self->session_id);
  g_free (self->cwd);
  g_ptr_array_unref (self->attachments);
  g_free (self->version_of);
  g_free (self->agent_id);
  g_free (self->provider);
  g_free (self->model);
  natter_generation_parameters_free (self->parameters);
  g_free (self);
}

/**
 * natter_message_request_get_text:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the words; %NULL for a message
 *   sent again (natter_message_request_new_again())
 */
const char *
natter_message_request_get_text (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->text;
}

/**
 * natter_message_request_get_again:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the turn whose message is sent
 *   again, or %NULL for new words
 */
const char *
natter_message_request_get_again (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->again;
}

/**
 * natter_message_request_set_session:
 * @self: a request
 * @session_id: (nullable): the conversation the message goes to; %NULL
 *   for a new one, which exists from this message on
 *
 * Ignored for a new version (natter_message_request_set_version_of()),
 * which goes to a new conversation branched from the message's own.
 */
void
natter_message_request_set_session (NatterMessageRequest *self,
                                    const char           *session_id)
{
  g_return_if_fail (self != NULL);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
}

/**
 * natter_message_request_get_session:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the conversation, or %NULL for a
 *   new one
 */
const char *
natter_message_request_get_session (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->session_id;
}

/**
 * natter_message_request_set_cwd:
 * @self: a request
 * @cwd: (nullable): an absolute directory: a new conversation's working
 *   directory (`session_created.cwd`, docs/format.md §3.1)
 */
void
natter_message_request_set_cwd (NatterMessageRequest *self,
                                const char           *cwd)
{
  g_return_if_fail (self != NULL);
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
}

/**
 * natter_message_request_get_cwd:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): a new conversation's directory
 */
const char *
natter_message_request_get_cwd (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->cwd;
}

/**
 * natter_message_request_add_attachment:
 * @self: a request for new words
 * @source: (transfer none): a file or bytes to attach, not stored yet
 *
 * The pipeline stores the attachments as blobs before anything that
 * references them is written; a message whose files cannot all be sent
 * is refused whole, never sent without one of them.
 */
void
natter_message_request_add_attachment (NatterMessageRequest   *self,
                                       NatterAttachmentSource *source)
{
  g_return_if_fail (self != NULL && source != NULL);
  g_return_if_fail (self->again == NULL);
  g_ptr_array_add (self->attachments, natter_attachment_source_ref (source));
}

/**
 * natter_message_request_get_attachments:
 * @self: a request
 *
 * Returns: (transfer none) (element-type NatterAttachmentSource): the
 *   files added with natter_message_request_add_attachment()
 */
GPtrArray *
natter_message_request_get_attachments (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->attachments;
}

/**
 * natter_message_request_set_version_of:
 * @self: a request
 * @turn_id: (nullable): a settled turn whose message this one replaces
 *
 * Makes the message a new version of @turn_id's (an edit): a new
 * conversation branched at the turn before it (docs/format.md §3.1,
 * `parentSession` and `forkedFromTurnId`), with the title of the
 * conversation it was made from. Nothing of the old version changes.
 */
void
natter_message_request_set_version_of (NatterMessageRequest *self,
                                       const char           *turn_id)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (self->again == NULL);
  g_free (self->version_of);
  self->version_of = g_strdup (turn_id);
}

/**
 * natter_message_request_get_version_of:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the turn this message is a new
 *   version of
 */
const char *
natter_message_request_get_version_of (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->version_of;
}

/**
 * natter_message_request_set_agent:
 * @self: a request
 * @agent_id: (nullable): the agent that answers; %NULL for the
 *   conversation's (natter_send_pipeline_dup_agent())
 */
void
natter_message_request_set_agent (NatterMessageRequest *self,
                                  const char           *agent_id)
{
  g_return_if_fail (self != NULL);
  g_free (self->agent_id);
  self->agent_id = g_strdup (agent_id);
}

/**
 * natter_message_request_get_agent:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the agent chosen for the message
 */
const char *
natter_message_request_get_agent (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->agent_id;
}

/**
 * natter_message_request_set_model:
 * @self: a request
 * @provider: (nullable): a configured provider's id or an endpoint URL;
 *   %NULL for no choice (and then @model must be %NULL or is the default
 *   provider's)
 * @model: (nullable): the model; %NULL or "" for the provider's first
 *
 * The model picked for the message (the window's model picker, the
 * command line's `--base-url` and `--model`). It wins over every rule of
 * natter-model-choice.c. A model without a provider is the default
 * provider's.
 */
void
natter_message_request_set_model (NatterMessageRequest *self,
                                  const char           *provider,
                                  const char           *model)
{
  g_return_if_fail (self != NULL);
  g_free (self->provider);
  g_free (self->model);
  self->provider = g_strdup (provider);
  self->model = g_strdup (model);
}

/**
 * natter_message_request_get_provider:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the picked provider
 */
const char *
natter_message_request_get_provider (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->provider;
}

/**
 * natter_message_request_get_model:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the picked model
 */
const char *
natter_message_request_get_model (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->model;
}

/**
 * natter_message_request_set_auto_permission:
 * @self: a request
 * @auto_permission: %TRUE to classify tool calls automatically for this
 *   message even when the setting is off (`natter send --auto-permission`);
 *   %FALSE leaves it to the `auto-permission` setting
 */
void
natter_message_request_set_auto_permission (NatterMessageRequest *self,
                                            gboolean              auto_permission)
{
  g_return_if_fail (self != NULL);
  self->auto_permission = !!auto_permission;
}

/**
 * natter_message_request_get_auto_permission:
 * @self: a request
 *
 * Returns: whether automatic permission was asked for this message
 */
gboolean
natter_message_request_get_auto_permission (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->auto_permission;
}

/**
 * natter_message_request_set_max_model_calls:
 * @self: a request
 * @max_model_calls: the most model calls the turn may make; 0 for the
 *   `max-model-calls` setting
 */
void
natter_message_request_set_max_model_calls (NatterMessageRequest *self,
                                            guint                 max_model_calls)
{
  g_return_if_fail (self != NULL);
  self->max_model_calls = max_model_calls;
}

/**
 * natter_message_request_get_max_model_calls:
 * @self: a request
 *
 * Returns: the model-call limit asked for, 0 for the setting's
 */
guint
natter_message_request_get_max_model_calls (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->max_model_calls;
}

/**
 * natter_message_request_set_auto_title:
 * @self: a request
 * @auto_title: %FALSE to keep the title derived from the first message
 *   (`natter send --no-auto-title`); %TRUE (the default) leaves it to the
 *   `auto-title` setting
 */
void
natter_message_request_set_auto_title (NatterMessageRequest *self,
                                       gboolean              auto_title)
{
  g_return_if_fail (self != NULL);
  self->auto_title = !!auto_title;
}

/**
 * natter_message_request_get_auto_title:
 * @self: a request
 *
 * Returns: whether the conversation may be named by its model
 */
gboolean
natter_message_request_get_auto_title (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, TRUE);
  return self->auto_title;
}

/**
 * natter_message_request_set_queue:
 * @self: a request
 * @queue: %TRUE to queue the message behind an answer that has not
 *   ended (running, or waiting for a permission or an answer) instead of
 *   refusing it (docs/sessions.md §4)
 */
void
natter_message_request_set_queue (NatterMessageRequest *self,
                                  gboolean              queue)
{
  g_return_if_fail (self != NULL);
  self->queue = !!queue;
}

/**
 * natter_message_request_get_queue:
 * @self: a request
 *
 * Returns: whether the message may wait in the queue
 */
gboolean
natter_message_request_get_queue (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->queue;
}

/**
 * natter_message_request_set_compact_first:
 * @self: a request
 * @compact_first: %TRUE to summarize the conversation's earlier turns
 *   before the message is sent, whatever the `auto-compact` setting says
 *   (Compact and Continue, after an answer overflowed the model's window)
 */
void
natter_message_request_set_compact_first (NatterMessageRequest *self,
                                          gboolean              compact_first)
{
  g_return_if_fail (self != NULL);
  self->compact_first = !!compact_first;
}

/**
 * natter_message_request_get_compact_first:
 * @self: a request
 *
 * Returns: whether the conversation is compacted before sending
 */
gboolean
natter_message_request_get_compact_first (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->compact_first;
}

/**
 * natter_message_request_set_parameters:
 * @self: a request
 * @parameters: (nullable): generation parameters for this message alone
 *   (`natter send --temperature …`); %NULL or empty for none
 *
 * What this message asks of the model beside what its conversation
 * keeps: each member set here wins over the conversation's for this
 * message only (docs/sessions.md §15). A copy is kept. A message with
 * parameters of its own is never queued: the queue keeps none.
 */
void
natter_message_request_set_parameters (NatterMessageRequest             *self,
                                       const NatterGenerationParameters *parameters)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->parameters, natter_generation_parameters_free);
  if (!natter_generation_parameters_is_empty (parameters))
    self->parameters = natter_generation_parameters_copy (parameters);
}

/**
 * natter_message_request_get_parameters:
 * @self: a request
 *
 * Returns: (transfer none) (nullable): the message's own generation
 *   parameters, or %NULL
 */
const NatterGenerationParameters *
natter_message_request_get_parameters (const NatterMessageRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->parameters;
}
