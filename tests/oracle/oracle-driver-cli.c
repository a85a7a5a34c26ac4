/* oracle-driver-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The command line: its readings of the conversations, and operations
 * run by a `natter` process over the same data directory (the services
 * are dropped for it and loaded again, oracle-driver-ops.c).
 */

#include "config.h"

#include <string.h>

#include "natter-blob-store.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-families.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-private.h"
#include "natter-sessions-queue.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

static gboolean
child_done_cb (gpointer data)
{
  OracleDriver *d = data;

  return d->run.done || d->kill_requested;
}

static gboolean
run_done_cb (gpointer data)
{
  return ((NatterTestRun *) data)->done;
}

/* Runs `natter @args` over the data directory while the services are
 * dropped (it takes the directory's writer lock, as a second process
 * would), answering its model calls; kills it (SIGKILL) when the model
 * holds a call it makes. Returns whether it was killed. */
gboolean
run_natter (OracleDriver       *d,
            const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  gboolean killed = FALSE;
  g_autofree char *line = g_strjoinv (" ", (char **) args);

  natter_test_run_clear (&d->run);
  memset (&d->run, 0, sizeof d->run);
  drop_services (d);
  launcher = natter_test_cli_launcher_new (d->f.dir);
  d->child = natter_test_cli_spawn (launcher, args);
  d->kill_requested = FALSE;
  natter_test_communicate (d->child, &d->run);
  if (!oracle_driver_wait (d, child_done_cb, d))
    oracle_driver_fail (d, "stalled", "natter %s did not end", line);
  if (!d->run.done)
    {
      killed = d->kill_requested;
      g_subprocess_force_exit (d->child);
      if (!oracle_driver_wait (d, run_done_cb, &d->run))
        g_error ("natter %s could not be killed", line);
    }
  d->kill_requested = FALSE;
  g_clear_object (&d->child);
  if (killed)
    {
      oracle_log (d->o, "  natter %s: killed (SIGKILL)", line);
      oracle_killed (d->o);
      count (d, "kills");
    }
  else
    {
      g_autofree char *err = g_strescape (d->run.err != NULL ? d->run.err : "", NULL);

      oracle_log (d->o, "  natter %s: exit %d %s", line, d->run.status, err);
      for (guint i = 0; i < d->o->turns->len; i++)
        ((OTurn *) g_ptr_array_index (d->o->turns, i))->in_child = FALSE;
      for (guint i = 0; i < d->o->sessions->len; i++)
        ((OSession *) g_ptr_array_index (d->o->sessions, i))->title_in_child = FALSE;
    }
  load_services (d);
  return killed;
}

/* Runs a reading command; its output, or NULL after a failure. */
static JsonNode *
natter_json (OracleDriver       *d,
             const char * const *args,
             gboolean            may_fail)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (d->f.dir);
  g_autoptr(GSubprocess) process = natter_test_cli_spawn (launcher, args);
  g_auto(NatterTestRun) run = { 0 };
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  natter_test_communicate (process, &run);
  if (!oracle_driver_wait (d, run_done_cb, &run))
    g_error ("natter %s did not end", args[0]);
  check_wire_bytes (d, "the output of natter --json", run.out, strlen (run.out));
  if (run.status != 0)
    {
      if (!may_fail)
        oracle_driver_fail (d, "cli", "natter %s %s failed: %s", args[0], args[1] != NULL ? args[1] : "", run.err);
      return NULL;
    }
  node = json_from_string (run.out, &error);
  if (node == NULL)
    oracle_driver_fail (d, "cli", "natter %s printed no JSON: %s", args[0], error->message);
  return node;
}

static JsonObject *
cli_turn (JsonObject *turn)
{
  JsonObject *view = json_object_new ();
  JsonArray *files = json_array_new ();
  JsonArray *calls = json_array_new ();
  JsonArray *attachments = json_object_get_array_member (turn, "attachments");
  JsonArray *tool_calls = json_object_get_array_member (turn, "toolCalls");

  json_object_set_string_member (view, "input", json_object_get_string_member (turn, "input"));
  for (guint i = 0; attachments != NULL && i < json_array_get_length (attachments); i++)
    json_array_add_string_element (files, json_object_get_string_member (json_array_get_object_element (attachments, i),
                                                                         "name"));
  json_object_set_array_member (view, "files", files);
  json_object_set_string_member (view, "status", json_object_get_string_member (turn, "status"));
  json_object_set_member (view, "answer", json_node_copy (json_object_get_member (turn, "answer")));
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonObject *call = json_array_get_object_element (tool_calls, i);
      JsonObject *item = json_object_new ();

      json_object_set_string_member (item, "name", json_object_get_string_member (call, "toolName"));
      json_object_set_string_member (item, "status", json_object_get_string_member (call, "status"));
      json_array_add_object_element (calls, item);
    }
  json_object_set_array_member (view, "calls", calls);
  return view;
}

/* The command line's reading: `natter sessions --json` for the list, and
 * `show`, `queue` and `grants` for the conversations touched since its
 * last reading. Run while the services are dropped. */
void
check_cli (OracleDriver *d)
{
  const char *list_args[] = { "sessions", "--json", NULL };
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(GHashTable) entries = g_hash_table_new (g_str_hash, g_str_equal);

  count (d, "cli-readings");
  drop_services (d);
  list = natter_json (d, list_args, FALSE);
  for (guint i = 0; list != NULL && i < json_array_get_length (json_node_get_array (list)); i++)
    {
      JsonObject *entry = json_array_get_object_element (json_node_get_array (list), i);

      g_hash_table_insert (entries, (gpointer) json_object_get_string_member (entry, "sessionId"), entry);
    }
  if (list != NULL && g_hash_table_size (entries) != d->o->sessions->len)
    oracle_driver_fail (d, "cli", "natter sessions lists %u sessions, the model has %u", g_hash_table_size (entries),
                        d->o->sessions->len);
  for (guint i = 0; list != NULL && i < d->o->sessions->len; i++)
    {
      OSession *s = g_ptr_array_index (d->o->sessions, i);
      JsonObject *entry = s->id != NULL ? g_hash_table_lookup (entries, s->id) : NULL;
      g_autoptr(JsonNode) expected = oracle_expected_view (d->o, s);
      g_autoptr(JsonObject) view = json_object_new ();
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
      gboolean own_damage = FALSE;

      if (entry == NULL)
        {
          oracle_driver_fail (d, "cli", "natter sessions does not list S%u (%s)", s->n, s->id);
          continue;
        }
      if (s->diverged)
        continue;
      for (guint j = 0; j < s->own->len; j++)
        own_damage |= ((OTurn *) g_ptr_array_index (s->own, j))->damaged;
      if (json_object_has_member (entry, "title"))
        json_object_set_string_member (view, "title", json_object_get_string_member (entry, "title"));
      else
        json_object_set_null_member (view, "title");
      json_object_set_boolean_member (view, "error", json_object_has_member (entry, "error"));
      if (!json_object_has_member (entry, "error"))
        json_object_set_string_member (view, "latest", json_object_get_string_member (entry, "latestTurnStatus"));
      if (json_object_has_member (entry, "versionOf"))
        json_object_set_string_member (view, "versionOf", json_object_get_string_member (entry, "versionOf"));
      else
        json_object_set_null_member (view, "versionOf");
      json_object_set_boolean_member (view, "pinned", json_object_get_boolean_member_with_default (entry, "pinned",
                                                                                                   FALSE));
      if (json_object_has_member (entry, "folder"))
        json_object_set_string_member (view, "folder", json_object_get_string_member (entry, "folder"));
      else
        json_object_set_null_member (view, "folder");

      if (g_hash_table_contains (d->cli_touched, s) || d->cli_all)
        {
          const char *show_args[] = { "show", s->id, "--json", NULL };
          const char *queue_args[] = { "queue", s->id, "--json", NULL };
          const char *grants_args[] = { "grants", s->id, "--json", NULL };
          g_autoptr(JsonNode) shown = natter_json (d, show_args, own_damage);

          if (own_damage && shown != NULL)
            oracle_driver_fail (d, "cli", "natter show reads S%u (%s), whose turn cannot be read", s->n, s->id);
          if (shown != NULL)
            {
              JsonArray *turns = json_object_get_array_member (json_node_get_object (shown), "turns");
              JsonObject *object = json_node_get_object (shown);
              JsonArray *inherited = json_object_has_member (object, "inheritedTurns")
                                     ? json_object_get_array_member (object, "inheritedTurns") : NULL;
              JsonArray *read = json_array_new ();

              /* The history a deleted parent left in the turn files is
               * shown above the own turns; a parent that is there is
               * shown by its own `show`. */
              for (guint j = 0; inherited != NULL && j < json_array_get_length (inherited); j++)
                json_array_add_object_element (read, cli_turn (json_array_get_object_element (inherited, j)));
              for (guint j = 0; j < json_array_get_length (turns); j++)
                json_array_add_object_element (read, cli_turn (json_array_get_object_element (turns, j)));
              json_object_set_array_member (view, "turns", read);
              if (inherited != NULL)
                json_object_set_int_member (view, "inherited", json_array_get_length (inherited));
              else
                json_object_set_boolean_member (view, "only-own", TRUE);
            }
          if (!json_object_has_member (entry, "error"))
            {
              g_autoptr(JsonNode) queue = natter_json (d, queue_args, FALSE);
              g_autoptr(JsonNode) grants = natter_json (d, grants_args, FALSE);

              if (queue != NULL)
                {
                  JsonArray *texts = json_array_new ();

                  for (guint j = 0; j < json_array_get_length (json_node_get_array (queue)); j++)
                    {
                      JsonObject *q = json_array_get_object_element (json_node_get_array (queue), j);
                      g_autofree char *text = message_text (json_object_get_object_member (q, "message"));

                      json_array_add_string_element (texts, text);
                    }
                  json_object_set_array_member (view, "queue", texts);
                }
              if (grants != NULL)
                {
                  JsonArray *tools = json_array_new ();

                  for (guint j = 0; j < json_array_get_length (json_node_get_array (grants)); j++)
                    json_array_add_string_element (tools, json_object_get_string_member (
                      json_array_get_object_element (json_node_get_array (grants), j), "toolId"));
                  json_object_set_array_member (view, "grants", tools);
                }
            }
        }
      json_node_take_object (node, g_steal_pointer (&view));
      compare_view (d, s, "natter (the command line)", expected, node);
    }
  g_hash_table_remove_all (d->cli_touched);
  d->cli_all = FALSE;
  load_services (d);
}

/* ------------------------------------------------------------------ */
/* Operations in a `natter` process                                     */
/* ------------------------------------------------------------------ */

/* The session the model has that the service does not know yet by id:
 * after a `natter` process was killed before it said which it made. */
static void
learn_new_session (OracleDriver *d,
                   OSession     *s)
{
  GListModel *index = G_LIST_MODEL (natter_sessions_list_sessions (d->f.sessions));

  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);
      const char *id = natter_session_index_entry_get_session_id (entry);
      gboolean known = FALSE;

      for (guint j = 0; j < d->o->sessions->len && !known; j++)
        known = g_strcmp0 (((OSession *) g_ptr_array_index (d->o->sessions, j))->id, id) == 0;
      if (!known)
        {
          s->id = g_strdup (id);
          return;
        }
    }
}

static void
expect_exit (OracleDriver *d,
             const char   *what,
             gboolean      killed,
             gboolean      refused,
             OTurn        *last)
{
  int want;

  if (killed)
    return;
  if (refused)
    {
      if (d->run.status == 0)
        oracle_driver_fail (d, "cli", "natter %s succeeded, a refusal was expected", what);
      return;
    }
  if (last == NULL)
    want = 0;
  else
    want = last->status == OT_COMPLETED || last->status == OT_SUSPENDED ? 0 : 1;
  if ((d->run.status == 0) != (want == 0))
    oracle_driver_fail (d, "cli", "natter %s exited with %d, %d expected (T%u %s): %s", what, d->run.status, want,
                        last->n, oracle_status_name (last), d->run.err);
}

/* The turn a `natter` run ended on: the last one it made or advanced. */
static OTurn *
last_turn_since (OracleDriver *d,
                 guint         n_turns,
                 OTurn        *advanced)
{
  if (d->o->turns->len > n_turns)
    return g_ptr_array_index (d->o->turns, d->o->turns->len - 1);
  return advanced;
}

static char *
parse_line (const char *out,
            const char *prefix)
{
  g_auto(GStrv) lines = g_strsplit (out != NULL ? out : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      return g_strdup (lines[i] + strlen (prefix));
  return NULL;
}

/* A message that may wait, to a conversation whose queue is held by an
 * answer that ended (failed, stopped): the documents say it is sent
 * (docs/sessions.md §1 step 7), ahead of the queue that waits for the
 * person (docs/sessions.md §4); whether it should rather join that queue is open, so it
 * is not produced. */
gboolean
queueable (OracleDriver *d,
           OSession     *s)
{
  OTurn *latest = oracle_latest (s);

  return !(s->queue->len > 0 && latest != NULL && oracle_turn_terminal (latest));
}

/* The command line's options for @p (`natter send`, `natter params`),
 * added to @args; the strings are kept in @keep. */
void
params_args (const OParams *p,
             GPtrArray     *args,
             GPtrArray     *keep)
{
  char number[G_ASCII_DTOSTR_BUF_SIZE];

  if (p == NULL)
    return;
  if (p->has_temperature)
    {
      g_ptr_array_add (keep, g_strdup_printf ("--temperature=%s", g_ascii_dtostr (number, sizeof number,
                                                                                 p->temperature)));
      g_ptr_array_add (args, g_ptr_array_index (keep, keep->len - 1));
    }
  if (p->has_top_p)
    {
      g_ptr_array_add (keep, g_strdup_printf ("--top-p=%s", g_ascii_dtostr (number, sizeof number, p->top_p)));
      g_ptr_array_add (args, g_ptr_array_index (keep, keep->len - 1));
    }
  if (p->max_tokens > 0)
    {
      g_ptr_array_add (keep, g_strdup_printf ("--max-tokens=%" G_GINT64_FORMAT, p->max_tokens));
      g_ptr_array_add (args, g_ptr_array_index (keep, keep->len - 1));
    }
  if (p->has_seed)
    {
      g_ptr_array_add (keep, g_strdup_printf ("--seed=%" G_GINT64_FORMAT, p->seed));
      g_ptr_array_add (args, g_ptr_array_index (keep, keep->len - 1));
    }
  if (p->instruction != NULL)
    {
      g_ptr_array_add (keep, g_strdup_printf ("--system=%s", p->instruction));
      g_ptr_array_add (args, g_ptr_array_index (keep, keep->len - 1));
    }
}

/* `natter send`: to a new conversation or one the model has, sometimes
 * queued; with parameters of its own (@own: never queued, docs/format.md
 * §3.5) when given. */
void
cli_send (OracleDriver *d,
          OParams      *own)
{
  OSession *s = chance (d, 30) ? NULL : any_session (d, NULL);
  gboolean fresh = s == NULL;
  gboolean queue = !fresh && own == NULL && chance (d, 30) && queueable (d, s);
  g_autofree char *text = oracle_new_text (d->o, fresh || s->own->len == 0);
  g_autoptr(GPtrArray) files = draw_files (d);
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  OMsg *input = oracle_user_msg (d->o, text, files);
  guint n_turns = d->o->turns->len;
  g_autofree char *escaped = g_strescape (text, NULL);
  g_autofree char *session_id = NULL;
  OSendResult want;
  gboolean killed;

  if (fresh)
    s = oracle_new_session (d->o);
  input->params = own;
  {
    g_autofree char *own_text = oracle_params_text (own);

    oracle_log (d->o, "op %u: natter send%s%s \"%s\" to S%u%s", d->op_number, queue ? " --queue" : "", own_text,
                escaped, s->n, fresh ? " (new)" : "");
  }
  want = oracle_send (d->o, s, input, queue, 0, TRUE);
  g_ptr_array_add (args, "send");
  if (!fresh)
    {
      g_ptr_array_add (args, "--session");
      g_ptr_array_add (args, s->id);
    }
  if (queue)
    g_ptr_array_add (args, "--queue");
  params_args (own, args, keep);
  for (guint i = 0; i < files->len; i++)
    {
      g_ptr_array_add (args, "--attach");
      g_ptr_array_add (args, ((OFile *) g_ptr_array_index (files, i))->path);
    }
  g_ptr_array_add (args, "--base-url");
  g_ptr_array_add (args, (gpointer) d->f.server->base_url);
  g_ptr_array_add (args, "--model");
  g_ptr_array_add (args, "m");
  g_ptr_array_add (args, "--");
  g_ptr_array_add (args, text);
  g_ptr_array_add (args, NULL);
  killed = run_natter (d, (const char * const *) args->pdata);
  session_id = parse_line (d->run.out, "session ");
  if (fresh && want.outcome == OSEND_TURN)
    set_id (&s->id, session_id);
  if (want.queued != NULL)
    {
      g_autofree char *queue_id = parse_line (d->run.out, "queued ");

      set_id (&want.queued->id, queue_id);
    }
  if (fresh && s->id == NULL && !killed)
    {
      oracle_driver_fail (d, "cli", "natter send named no session: %s", d->run.err);
      oracle_forget_session (d->o, s);
      return;
    }
  if (fresh && s->id == NULL)
    {
      /* Killed before it said which: the only session without an id. */
      learn_new_session (d, s);
    }
  expect_exit (d, "send", killed, want.outcome != OSEND_TURN && want.outcome != OSEND_QUEUED,
               want.outcome == OSEND_QUEUED ? NULL : last_turn_since (d, n_turns, want.turn));
  touch (d, s);
}

void
cli_tool (OracleDriver *d,
          OTurn        *t)
{
  OToolCall *call = pending_call (t, OC_AWAIT_PERMISSION);
  g_autoptr(GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  guint n_turns = d->o->turns->len;
  gboolean killed;

  if (call == NULL)
    {
      g_autofree char *text = oracle_new_text (d->o, FALSE);

      call = pending_call (t, OC_AWAIT_ANSWER);
      if (chance (d, 30) && d->o->weird_text)
        {
          /* A result given as JSON may spell a lone surrogate: it becomes
           * U+FFFD (docs/format.md §2). */
          g_ptr_array_add (args, g_strdup ("deliver"));
          g_ptr_array_add (args, g_strdup (t->id));
          g_ptr_array_add (args, g_strdup (call->id));
          g_ptr_array_add (args, g_strdup ("{\"output\":\"r\\ud800 \\u0000x\",\"isError\":false}"));
          oracle_log (d->o, "op %u: natter deliver %s of T%u", d->op_number, call->id, t->n);
          oracle_answer (d->o, t, call, "r\xef\xbf\xbd \xef\xbf\xbdx");
        }
      else
        {
          g_autofree char *escaped = g_strescape (text, NULL);

          g_ptr_array_add (args, g_strdup ("answer"));
          g_ptr_array_add (args, g_strdup (t->id));
          g_ptr_array_add (args, g_strdup (call->id));
          g_ptr_array_add (args, g_strdup (text));
          oracle_log (d->o, "op %u: natter answer %s of T%u \"%s\"", d->op_number, call->id, t->n, escaped);
          oracle_answer (d->o, t, call, text);
        }
    }
  else
    {
      gboolean deny = chance (d, 35);
      gboolean always = !deny && n_pending (t) == 1 && !has_read_grant (t->owner) && chance (d, 30);

      g_ptr_array_add (args, g_strdup (deny ? "deny" : "allow"));
      if (always)
        g_ptr_array_add (args, g_strdup ("--always"));
      g_ptr_array_add (args, g_strdup (t->id));
      g_ptr_array_add (args, g_strdup (call->id));
      oracle_log (d->o, "op %u: natter %s%s %s of T%u", d->op_number, deny ? "deny" : "allow",
                  always ? " --always" : "", call->id, t->n);
      t->in_child = TRUE;
      if (deny)
        oracle_deny (d->o, t, call);
      else
        oracle_allow (d->o, t, call, always);
    }
  t->in_child = TRUE;
  g_ptr_array_add (args, NULL);
  killed = run_natter (d, (const char * const *) args->pdata);
  expect_exit (d, (const char *) g_ptr_array_index (args, 0), killed, FALSE, last_turn_since (d, n_turns, t));
  touch (d, t->owner);
}

void
cli_resume (OracleDriver *d,
            OSession     *s)
{
  const char *args[] = { "resume", s->id, NULL };
  OTurn *t = oracle_latest (s);
  guint n_turns = d->o->turns->len;
  gboolean killed;

  oracle_log (d->o, "op %u: natter resume S%u (T%u)", d->op_number, s->n, t->n);
  oracle_resume (d->o, t, TRUE);
  killed = run_natter (d, args);
  expect_exit (d, "resume", killed, FALSE, last_turn_since (d, n_turns, t));
  touch (d, s);
}

void
cli_retry (OracleDriver *d,
           OTurn        *of)
{
  const char *args[] = { "retry", of->id, NULL };
  guint n_turns = d->o->turns->len;
  g_autofree char *session_id = NULL;
  OSendResult want;
  gboolean killed;

  oracle_log (d->o, "op %u: natter retry T%u (%s) of S%u", d->op_number, of->n, oracle_status_name (of),
              of->owner->n);
  want = oracle_new_version (d->o, of->owner, of, of->input, FALSE, TRUE);
  killed = run_natter (d, args);
  session_id = parse_line (d->run.out, "session ");
  if (want.session != NULL)
    {
      set_id (&want.session->id, session_id);
      if (want.session->id == NULL)
        learn_new_session (d, want.session);
      touch (d, want.session);
    }
  expect_exit (d, "retry", killed, want.outcome != OSEND_TURN, last_turn_since (d, n_turns, want.turn));
}

/* `natter delete`, which deletes at once (docs/sessions.md §9.4), in a
 * process of its own: what the window's services would do, the same
 * way (a turn that waits for the person is stopped). */
void
cli_delete (OracleDriver *d,
            OSession     *s)
{
  const char *args[] = { "delete", s->id, NULL };

  oracle_log (d->o, "op %u: natter delete S%u (%s), its latest turn %s", d->op_number, s->n, s->id,
              oracle_latest_own (s) != NULL ? oracle_status_name (oracle_latest_own (s)) : "none");
  oracle_delete (d->o, s);
  count_delete (d, s);
  if (d->refused_session == s)
    d->can_retry = FALSE;
  if (run_natter (d, args) || d->run.status != 0)
    oracle_driver_fail (d, "outcome", "natter delete S%u failed (exit %d): %s", s->n, d->run.status,
                        d->run.err != NULL ? d->run.err : "");
  check_deleted (d, s);
  touch_all (d);
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

gboolean
sendable (OracleDriver *d,
          OSession     *s)
{
  return TRUE;
}
