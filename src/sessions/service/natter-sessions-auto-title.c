/* natter-sessions-auto-title.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Automatic titles (docs/sessions.md §13): once a session's first
 * answer is there, a standalone turn (docs/sessions.md §11) asks the same
 * provider and model for a short title, and its answer is appended as an
 * ordinary `title_changed`. The title belongs to the conversation: whichever
 * advance completes the session's first completed turn asks for it (a
 * send, an answer to a prompt or a question, a resume, in the process
 * that sent the message or in a later one), when the service's
 * `auto-title` setting is on. What was asked before needs no memory: the
 * log says whether the title is still the one derived from the first
 * message (natter_session_state_get_title_is_default(): never renamed,
 * never named automatically) and whether an earlier turn of the session
 * completed (then its answer had the chance, and nothing is asked
 * again). A new version of the first message (Try Again, an edit:
 * docs/sessions.md §3) is created with its conversation's title, so its
 * log holds no default title of its own; its title is still the default
 * while it was never renamed, the conversation it was made from got its
 * title from its first message (it was created without one) and never
 * had a completed first answer, and the title is the one that same
 * message derives (version_title_may_be_default(), then
 * version_check_parent()). It never replaces a title the user set,
 * before the answer or while the title request runs; it never holds the
 * session lock while the model thinks, so the next message is never
 * delayed; and a failure is silent: the derived title simply stays.
 */

#define G_LOG_DOMAIN "natter-sessions"

#include "natter-headless-runner.h"
#include "natter-session-archive.h"
#include "natter-session-default-title.h"
#include "natter-session-schema.h"
#include "natter-session-index-internal.h"
#include "natter-sessions-private.h"

/* How much of the first message and of the first answer the title
 * request quotes, in characters: a title needs the gist, not the text. */
#define QUOTE_MAX_CHARS 1000
/* The answer needs only a few words; reasoning models get some room. */
#define TITLE_MAX_TOKENS 64
#define TITLE_MAX_WORDS 6

#define TITLE_PROMPT \
  "Write a title for the conversation below: at most 6 words, in the " \
  "language of the conversation, that says what it is about. Answer " \
  "with the title alone, without quotes, markup or a final period."

typedef struct
{
  NatterSessions     *self;
  char               *session_id;
  char               *turn_id;
  guint64             op;        /* keeps a flush waiting until the title is written or given up */
  NatterSessionState *state;     /* the session, once read */
  guint               earlier;   /* the next earlier turn to look at */
  guint               position;  /* the completed turn's, among the session's own */
  gboolean            version;   /* a version of the first message, its title inherited */
  char               *derived;   /* a version: the default title of its first message */
  NatterTurnState    *turn;      /* a version: the completed turn, while the parent is read */
} TitleJob;

static void
title_job_free (TitleJob *job)
{
  if (job->op != 0)
    natter_sessions_end_op (job->self, job->op);
  g_clear_pointer (&job->state, natter_session_state_unref);
  g_clear_pointer (&job->turn, natter_turn_state_unref);
  g_free (job->derived);
  g_free (job->session_id);
  g_free (job->turn_id);
  g_object_unref (job->self);
  g_free (job);
}

/* Ends @job without a title. @error, when set, is the read that left no
 * certainty, said at debug level: a failure is silent by design. */
static void
title_give_up (TitleJob     *job,
               const GError *error)
{
  if (error != NULL)
    g_debug ("No automatic title for session %s: %s", job->session_id, error->message);
  title_job_free (job);
}

/* The text of a message's content (a string or `{type: "text"}` parts),
 * cut to QUOTE_MAX_CHARS with "…" when longer. */
static char *
quoted_text (JsonNode *content)
{
  g_autofree char *valid = natter_session_message_text (content);
  char *stripped;

  stripped = g_strstrip (valid);
  if (g_utf8_strlen (stripped, -1) <= QUOTE_MAX_CHARS)
    return g_strdup (stripped);
  {
    g_autofree char *cut = g_utf8_substring (stripped, 0, QUOTE_MAX_CHARS);

    return g_strconcat (cut, "…", NULL);
  }
}

/**
 * natter_title_request_text:
 * @question: (transfer none): the first user message's content
 * @answer: (nullable): the first answer's text
 *
 * The user message of the title request of docs/sessions.md §13:
 * the instruction, then the first message and the first answer, each
 * cut to 1,000 characters. Pure.
 *
 * Returns: (transfer full): the message text
 */
char *
natter_title_request_text (JsonNode   *question,
                           const char *answer)
{
  g_autofree char *asked = quoted_text (question);
  g_autoptr(JsonNode) answer_node = json_node_init_string (json_node_alloc (), answer != NULL ? answer : "");
  g_autofree char *answered = quoted_text (answer_node);

  return g_strdup_printf ("%s\n\nUser: %s\n\nAssistant: %s", TITLE_PROMPT, asked, answered);
}

static gboolean
is_wrapping (gunichar c)
{
  return c == '"' || c == '\'' || c == '*' || c == '#' || c == '`' || c == '_' ||
         c == 0x201C || c == 0x201D || c == 0x201E || c == 0x2018 || c == 0x2019 ||
         c == 0x00AB || c == 0x00BB;
}

/* Drops wrapping quotes and markup at both ends of @line, in place. */
static char *
unwrap (char *line)
{
  char *end;

  while (*line != '\0' && (is_wrapping (g_utf8_get_char (line)) || g_unichar_isspace (g_utf8_get_char (line))))
    line = g_utf8_next_char (line);
  end = line + strlen (line);
  while (end > line)
    {
      char *previous = g_utf8_prev_char (end);
      gunichar c = g_utf8_get_char (previous);

      if (!is_wrapping (c) && !g_unichar_isspace (c) && c != '.')
        break;
      end = previous;
    }
  *end = '\0';
  return line;
}

/**
 * natter_title_from_answer:
 * @answer: (nullable): what the model answered to the title request
 *
 * Makes a title of a model's answer (docs/sessions.md §13): its
 * first non-empty line without a "Title:" label, wrapping quotes or
 * markup and a final period, cut to six words and to
 * %NATTER_SESSION_TITLE_MAX_CHARS characters, its control characters
 * made spaces (natter_session_title_clean()). Pure.
 *
 * Returns: (transfer full) (nullable): the title, or %NULL when the
 *   answer holds none
 */
char *
natter_title_from_answer (const char *answer)
{
  g_autofree char *valid = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GString) title = g_string_new (NULL);
  char *line = NULL;
  g_auto(GStrv) words = NULL;
  guint n_words = 0;

  if (answer == NULL)
    return NULL;
  valid = g_utf8_make_valid (answer, -1);
  lines = g_strsplit_set (valid, "\r\n", -1);
  for (guint i = 0; lines[i] != NULL && line == NULL; i++)
    {
      char *candidate = unwrap (lines[i]);

      if (g_ascii_strncasecmp (candidate, "title:", 6) == 0)
        candidate = unwrap (candidate + 6);
      if (*candidate != '\0')
        line = candidate;
    }
  if (line == NULL)
    return NULL;

  words = g_strsplit_set (line, " \t", -1);
  for (guint i = 0; words[i] != NULL && n_words < TITLE_MAX_WORDS; i++)
    {
      if (*words[i] == '\0')
        continue;
      g_string_append_printf (title, "%s%s", n_words > 0 ? " " : "", words[i]);
      n_words++;
    }
  if (g_utf8_strlen (title->str, -1) > NATTER_SESSION_TITLE_MAX_CHARS)
    {
      g_autofree char *cut = g_utf8_substring (title->str, 0, NATTER_SESSION_TITLE_MAX_CHARS);

      g_string_assign (title, g_strchomp (cut));
    }
  {
    g_autofree char *copy = g_strdup (title->str);
    char *unwrapped = unwrap (copy);

    /* A model's control characters never reach the log (docs/format.md
     * "title_changed"). */
    return natter_session_title_clean (unwrapped);
  }
}

/* Whether @state may be a new version of its conversation's first
 * message whose title, given at creation (docs/format.md §3.2), is the
 * conversation's default title: a version (`parentSession` with a
 * `title`) of the first message (no `forkedFromTurnId`), never renamed
 * or named since. The rest (the title is the one its first message
 * derives, the parent derived its own) is checked against the turn and
 * the parent. */
static gboolean
version_title_may_be_default (NatterSessionState *state)
{
  return !natter_session_state_get_title_is_explicit (state) &&
         natter_session_state_get_title (state) != NULL &&
         natter_session_state_get_parent_session (state) != NULL &&
         natter_session_state_get_forked_from_turn_id (state) == NULL;
}

/* Writing the title, under the session lock */

typedef struct
{
  NatterSessionsOp  base;
  char             *title;
  gboolean          version;   /* the title checked was a version's inherited one */
} AutoTitleData;

NATTER_SESSIONS_DEFINE_OP (AutoTitleData, auto_title_data)

static void
auto_title_data_clear (AutoTitleData *data)
{
  g_free (data->title);
}

static void
auto_title_session_read (GTask *task)
{
  AutoTitleData *data = auto_title_data_get (task);

  /* Read again under the lock: a rename while the model was asked wins. */
  if (!natter_session_state_get_title_is_default (data->base.state) &&
      !(data->version && version_title_may_be_default (data->base.state)))
    {
      natter_sessions_op_finish (task);
      g_task_return_boolean (task, FALSE);
      return;
    }
  natter_sessions_op_write_title (task, data->title);
}

static void
auto_title_written_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(GError) error = NULL;

  /* Silent by design: the derived title stays. */
  if (!g_task_propagate_boolean (G_TASK (result), &error) && error != NULL)
    g_debug ("The automatic title was not written: %s", error->message);
  title_job_free (job);
}

static void
title_ran_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(NatterTurnOutcome) outcome = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *title = NULL;
  g_autoptr(GError) error = NULL;
  GTask *task;

  outcome = natter_headless_runner_run_finish (NATTER_HEADLESS_RUNNER (object), result, NULL, &answer, &error);
  if (outcome == NULL || outcome->kind != NATTER_TURN_OUTCOME_COMPLETED ||
      (title = natter_title_from_answer (answer)) == NULL)
    {
      g_debug ("No automatic title for session %s: %s", job->session_id,
               error != NULL ? error->message : outcome != NULL && outcome->error != NULL ? outcome->error
                                                                                        : "no title in the answer");
      title_job_free (job);
      return;
    }
  /* The job's operation lives on until the title is written, so that a
   * flush begun before it never returns in between. */
  task = auto_title_data_task_new (job->self, job->session_id, NULL, auto_title_written_cb, job,
                                   natter_sessions_title_completed);
  auto_title_data_get (task)->title = g_steal_pointer (&title);
  auto_title_data_get (task)->version = job->version;
  natter_sessions_op_lock_and_read (task, auto_title_session_read);
}

/* Asks for the title with the first turn's agent and exactly its model. */
static void
title_ask (TitleJob        *job,
           NatterTurnState *turn)
{
  JsonObject *definition = natter_turn_state_get_definition (turn);
  JsonObject *resolved = natter_turn_definition_get_resolved_agent (definition);
  JsonObject *model = natter_turn_definition_get_model (definition);
  g_autoptr(NatterSendOptions) options = natter_send_options_new (json_object_get_string_member (resolved, "agentId"));
  g_autoptr(NatterHeadlessRunner) runner = natter_headless_runner_new (job->self->runtime);
  g_autoptr(JsonObject) input = json_object_new ();
  g_autofree char *answer = natter_turn_state_dup_final_text (turn);
  g_autofree char *text = NULL;

  text = natter_title_request_text (json_object_get_member (json_object_get_object_member (definition, "input"),
                                                            "content"),
                                    answer);
  natter_send_options_set_model_descriptor (options, model);
  natter_send_options_set_max_model_calls (options, 1);
  natter_send_options_set_max_tokens (options, TITLE_MAX_TOKENS);
  /* A title is text: offered no tool, the model answers in words. */
  natter_send_options_set_no_tools (options, TRUE);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_headless_runner_run_async (runner, options, NULL, input, NULL, title_ran_cb, job);
}

/* The default title of @turn's message (docs/sessions.md §9.1 step 6). */
static char *
first_message_title (NatterTurnState *turn)
{
  JsonObject *input = json_object_get_object_member (natter_turn_state_get_definition (turn), "input");

  return input != NULL ? natter_derive_session_title (input) : NULL;
}

static void
version_parent_turn_read_cb (GObject      *object,
                             GAsyncResult *result,
                             gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(NatterTurnState) parent_turn = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterTurnState) turn = g_steal_pointer (&job->turn);

  /* The conversation's own first answer had its chance to name it: a
   * new try at an answer that completed is not asked about again. */
  parent_turn = natter_sessions_read_turn_finish (object, result, &error);
  if (parent_turn == NULL || natter_derive_turn_status (parent_turn) == NATTER_TURN_STATUS_COMPLETED)
    {
      title_give_up (job, error);
      return;
    }
  title_ask (job, turn);
}

static void
version_parent_read_cb (GObject      *object,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(NatterSessionState) parent = NULL;
  g_autoptr(GError) error = NULL;

  /* A parent created with a title (`natter send --no-auto-title`, or a
   * branch renamed before its first message) gave the version a title
   * somebody chose; a parent that cannot be read gives no certainty. */
  parent = natter_sessions_read_session_finish (result, &error);
  if (parent == NULL ||
      json_object_has_member (natter_session_state_get_definition (parent), "title") ||
      natter_session_state_get_forked_from_turn_id (parent) != NULL ||
      natter_session_state_get_n_turns (parent) == 0)
    {
      title_give_up (job, error);
      return;
    }
  natter_sessions_read_turn_async (job->self, natter_session_state_get_turn (parent, 0)->turn_id, NULL,
                                   version_parent_turn_read_cb, job);
}

/* A version of the first message (version_title_may_be_default()) is
 * asked about only when its title is the one its first message derives
 * and the conversation it was made from derived its own and never
 * completed its first answer. */
static void
version_check_parent (TitleJob        *job,
                      NatterTurnState *turn)
{
  if (job->position == 0)
    job->derived = first_message_title (turn);
  if (g_strcmp0 (job->derived, natter_session_state_get_title (job->state)) != 0)
    {
      title_job_free (job);
      return;
    }
  job->turn = natter_turn_state_ref (turn);
  natter_sessions_read_session_async (job->self, natter_session_state_get_parent_session (job->state), NULL,
                                      version_parent_read_cb, job);
}

static void
title_turn_read_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GError) error = NULL;

  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL)
    {
      title_give_up (job, error);
      return;
    }
  if (job->version)
    {
      version_check_parent (job, turn);
      return;
    }
  title_ask (job, turn);
}

static void title_check_earlier (TitleJob *job);

static void
title_earlier_read_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(NatterTurnState) turn = NULL;
  g_autoptr(GError) error = NULL;

  /* An earlier answer that completed had its chance to name the
   * conversation (in this process or another): asked at most once. An
   * earlier turn that cannot be read gives no certainty either way:
   * nothing is asked. */
  turn = natter_sessions_read_turn_finish (object, result, &error);
  if (turn == NULL || natter_derive_turn_status (turn) == NATTER_TURN_STATUS_COMPLETED)
    {
      title_give_up (job, error);
      return;
    }
  if (job->version && job->earlier == 0)
    job->derived = first_message_title (turn);
  job->earlier++;
  title_check_earlier (job);
}

/* Whether any of the session's own turns before the completed one
 * completed, one turn file at a time; a first turn has none to read. */
static void
title_check_earlier (TitleJob *job)
{
  if (job->earlier < job->position)
    {
      natter_sessions_read_turn_async (job->self, natter_session_state_get_turn (job->state, job->earlier)->turn_id,
                                       NULL, title_earlier_read_cb, job);
      return;
    }
  natter_sessions_read_turn_async (job->self, job->turn_id, NULL, title_turn_read_cb, job);
}

static void
title_session_read_cb (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  TitleJob *job = user_data;
  g_autoptr(GError) error = NULL;
  guint n;

  /* A rename before the answer came means no request at all. */
  job->state = natter_sessions_read_session_finish (result, &error);
  if (job->state != NULL && !natter_session_state_get_title_is_default (job->state))
    job->version = version_title_may_be_default (job->state);
  if (job->state == NULL || (!natter_session_state_get_title_is_default (job->state) && !job->version))
    {
      title_job_free (job);
      return;
    }
  n = natter_session_state_get_n_turns (job->state);
  for (job->position = 0; job->position < n; job->position++)
    if (g_strcmp0 (natter_session_state_get_turn (job->state, job->position)->turn_id, job->turn_id) == 0)
      break;
  if (job->position == n)
    {
      title_job_free (job);
      return;
    }
  title_check_earlier (job);
}

/**
 * natter_sessions_title_completed: (skip)
 * @self: the service
 * @session_id: the turn's session
 * @turn_id: a turn an advance of this service just completed
 * @op: (transfer full): the operation that keeps a flush waiting; ended
 *   once the title is written or given up
 *
 * Asks for the title when @turn_id is @session_id's first completed
 * turn and the title is still the derived default; else gives up
 * quietly.
 */
void
natter_sessions_title_completed (NatterSessions *self,
                                 const char     *session_id,
                                 const char     *turn_id,
                                 guint64         op)
{
  TitleJob *job = g_new0 (TitleJob, 1);

  job->self = g_object_ref (self);
  job->session_id = g_strdup (session_id);
  job->turn_id = g_strdup (turn_id);
  job->op = op;
  natter_sessions_read_session_async (self, session_id, NULL, title_session_read_cb, job);
}
