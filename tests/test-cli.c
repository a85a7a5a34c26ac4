/* test-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The `natter` command line, end to end: every case runs the
 * REAL built binary ($NATTER_BIN) as a child process against a localhost
 * SoupServer in this process that plays a scripted OpenAI-compatible
 * model. The child has no display and no session bus, so each invocation
 * is its own primary instance (the display-free NatterCliApplication),
 * builds NatterServices over a temporary data directory, takes the
 * single-writer lock, runs one command and exits. The test's main loop
 * keeps serving HTTP while it waits for the child.
 */

#include <string.h>

#include <libsoup/soup.h>

#include "natter-data-dir-lock.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-cli-SECRET-7"
#define WAIT_MS 30000

/* ------------------------------------------------------------------ */
/* The scripted model                                                  */
/* ------------------------------------------------------------------ */

#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define DONE "data: [DONE]\n\n"
#define TOOL_CALL(id, name, args) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"" name "\",\"arguments\":\"" args "\"}}]}}]}\n\n"

typedef struct
{
  const char *chunks;      /* one SSE body */
  gboolean    keep_open;   /* never finish: the child is killed meanwhile */
} Step;

static const Step ANSWER = { CHUNK ("Hello") CHUNK (" world") FINISH ("stop") DONE, FALSE };
static const Step HANG = { CHUNK ("Hel"), TRUE };
static const Step TITLE = { CHUNK ("Greeting the World") FINISH ("stop") DONE, FALSE };
static const Step ASK_COLOUR = {
  TOOL_CALL ("call_1", "ask_human", "{\\\"question\\\":\\\"Which colour?\\\"}") FINISH ("tool_calls") DONE, FALSE
};

typedef struct
{
  SoupServer *server;
  char       *base_url;
  GPtrArray  *script;     /* const Step* */
  GPtrArray  *bodies;     /* char*: every request body */
  GPtrArray  *auths;      /* char*: every Authorization header */
  char       *read_call;  /* the read_file tool call step, built per test */
  Step        read_step;
  const char *models;     /* the body of GET /v1/models, or NULL: not asked */
  guint       n_models;   /* how often it was asked */
} Server;

static void
server_cb (SoupServer        *soup,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Server *server = user_data;
  g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  const char *auth = soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                   "Authorization");
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *response = soup_server_message_get_response_body (msg);
  guint index = server->bodies->len;
  const Step *step;

  if (server->models != NULL && g_str_equal (path, "/v1/models"))
    {
      server->n_models++;
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, server->models,
                                        strlen (server->models));
      soup_server_message_set_status (msg, 200, NULL);
      return;
    }
  g_assert_cmpstr (path, ==, "/v1/chat/completions");
  g_ptr_array_add (server->bodies, g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body)));
  g_ptr_array_add (server->auths, g_strdup (auth != NULL ? auth : ""));
  g_assert_cmpuint (index, <, server->script->len);
  step = g_ptr_array_index (server->script, index);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_set_content_type (headers, SSE, NULL);
  soup_message_body_append (response, SOUP_MEMORY_COPY, step->chunks, strlen (step->chunks));
  if (!step->keep_open)
    soup_message_body_complete (response);
}

static Server *
server_new (void)
{
  Server *server = g_new0 (Server, 1);
  g_autoptr(GError) error = NULL;
  GSList *uris;

  server->script = g_ptr_array_new ();
  server->bodies = g_ptr_array_new_with_free_func (g_free);
  server->auths = g_ptr_array_new_with_free_func (g_free);
  server->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server->server, NULL, server_cb, server, NULL);
  soup_server_listen_local (server->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (server->server);
  server->base_url = g_strdup_printf ("http://127.0.0.1:%d/v1", g_uri_get_port (uris->data));
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  return server;
}

static void
server_free (Server *server)
{
  soup_server_disconnect (server->server);
  g_object_unref (server->server);
  g_ptr_array_unref (server->script);
  g_ptr_array_unref (server->bodies);
  g_ptr_array_unref (server->auths);
  g_free (server->base_url);
  g_free (server->read_call);
  g_free (server);
}


/* ------------------------------------------------------------------ */
/* Running the binary                                                  */
/* ------------------------------------------------------------------ */

typedef struct
{
  GFile    *dir;           /* NATTER_DATA_DIR */
  Server   *server;
  char     *file;          /* a file for read_file to read */
  gboolean  own_provider;  /* the server is the configured default (use_own_provider()) */
  const char *test_point;  /* an environment variable set for the command, or NULL */
} Fixture;

static GSubprocess *
spawn (Fixture            *f,
       const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (f->dir);

  g_subprocess_launcher_setenv (launcher, "NATTER_API_KEY", API_KEY, TRUE);
  if (f->own_provider)
    g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "keyfile", TRUE);
  if (f->test_point != NULL)
    g_subprocess_launcher_setenv (launcher, f->test_point, "1", TRUE);
  return natter_test_cli_spawn (launcher, args);
}

/* Makes the scripted server the person's own provider "mine", the
 * default with model "m1", as Preferences would: settings the command
 * reads from a key file under its XDG_CONFIG_HOME. */
static void
use_own_provider (Fixture *f)
{
  g_autoptr(GFile) dir = g_file_resolve_relative_path (f->dir, "glib-2.0/settings");
  g_autoptr(GFile) keyfile = g_file_get_child (dir, "keyfile");
  g_autofree char *text = g_strdup_printf ("[io/github/natter/Natter]\n"
                                           "providers=[('mine', 'Mine', '%s')]\n"
                                           "default-provider='mine'\n"
                                           "default-model='m1'\n", f->server->base_url);

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (dir), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (keyfile), text, -1, NULL));
  f->own_provider = TRUE;
}

/* Runs natter with @args while this main loop serves the model. */
static void
run_argv (Fixture            *f,
          const char * const *args,
          NatterTestRun      *result)
{
  g_autoptr(GSubprocess) process = spawn (f, args);

  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

#define RUN(f, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    run_argv ((f), run_args_, (result)); \
  } G_STMT_END

/* Splits "session X\nturn Y\n…" into its ids. */
static void
parse_ids (const char  *out,
           char       **session_id,
           char       **turn_id)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  g_assert_true (g_str_has_prefix (lines[0], "session "));
  g_assert_true (g_str_has_prefix (lines[1], "turn "));
  if (session_id != NULL)
    *session_id = g_strdup (lines[0] + strlen ("session "));
  if (turn_id != NULL)
    *turn_id = g_strdup (lines[1] + strlen ("turn "));
  g_assert_true (natter_id_validate (lines[0] + strlen ("session "), NULL));
  g_assert_true (natter_id_validate (lines[1] + strlen ("turn "), NULL));
}

static void
script (Fixture *f,
        ...)
{
  va_list args;
  const Step *step;

  va_start (args, f);
  while ((step = va_arg (args, const Step *)) != NULL)
    g_ptr_array_add (f->server->script, (gpointer) step);
  va_end (args);
}

static guint
count_files (GFile *dir)
{
  g_autoptr(GFileEnumerator) children = NULL;
  GFileInfo *info;
  GFile *child;
  guint n = 0;

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_TYPE, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS,
                                        NULL, NULL);
  if (children == NULL)
    return 0;
  while (g_file_enumerator_iterate (children, &info, &child, NULL, NULL) && info != NULL)
    n += g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY ? count_files (child) : 1;
  return n;
}

static guint
count_turn_files (Fixture *f)
{
  g_autoptr(GFile) turns = g_file_resolve_relative_path (f->dir, "storage/turns");

  return count_files (turns);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *escaped = NULL;

  f->dir = natter_test_make_temp_dir ();
  f->server = server_new ();
  file = g_file_get_child (f->dir, "notes.txt");
  f->file = g_file_get_path (file);
  g_file_set_contents (f->file, "the secret word is plum\n", -1, &error);
  g_assert_no_error (error);

  escaped = g_strescape (f->file, NULL);
  f->server->read_call = g_strdup_printf (TOOL_CALL ("call_1", "read_file", "{\\\"path\\\":\\\"%s\\\"}")
                                          FINISH ("tool_calls") DONE, escaped);
  f->server->read_step.chunks = f->server->read_call;
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Every call carried the key; no file holds it. */
  for (guint i = 0; i < f->server->auths->len; i++)
    g_assert_cmpstr (g_ptr_array_index (f->server->auths, i), ==, "Bearer " API_KEY);
  server_free (f->server);
  natter_test_remove_tree (f->dir);
  g_object_unref (f->dir);
  g_free (f->file);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static void
test_ask_completed (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "ask", "--base-url", f->server->base_url, "--model", "m1", "Say", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "Hello world\n");
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m1\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "Say hello"));

  /* A standalone turn is in no session. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
}

static void
test_ask_unreachable (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());

  RUN (f, &r, "ask", "--base-url", url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: Could not reach "));
  g_assert_nonnull (strstr (r.err, "127.0.0.1"));
  /* One line. */
  g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (int) strlen (r.err) - 1);
}

static void
test_send_list_show (Fixture       *f,
                     gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *entry;
  JsonObject *shown;
  JsonObject *turn;
  g_autoptr(GList) members = NULL;
  const char *names[] = { "createdAt", "lastAgentId", "lastModel", "latestTurnId", "latestTurnStatus",
                          "pinned", "sessionId", "title", "turnCount", "updatedAt" };
  guint i = 0;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  expected = g_strdup_printf ("session %s\nturn %s\n\nHello world\n", session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, session_id));
  g_assert_true (g_str_has_suffix (r.out, "\thello\n"));
  g_assert_nonnull (strstr (r.out, "\tcompleted\t"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 1);
  entry = json_array_get_object_element (json_node_get_array (json), 0);
  /* Exactly the spec's SessionIndexEntry field names
   * (docs/sessions.md §8.1), and whether the conversation is pinned
   * (docs/sessions.md §16; `folder` only when it is in one). */
  members = json_object_get_members (entry);
  members = g_list_sort (members, (GCompareFunc) strcmp);
  g_assert_cmpuint (g_list_length (members), ==, G_N_ELEMENTS (names));
  for (GList *l = members; l != NULL; l = l->next)
    g_assert_cmpstr (l->data, ==, names[i++]);
  g_assert_cmpstr (json_object_get_string_member (entry, "sessionId"), ==, session_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnId"), ==, turn_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "latestTurnStatus"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (entry, "lastAgentId"), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "lastModel"), "provider"),
                   ==, f->server->base_url);
  g_assert_cmpint (json_object_get_int_member (entry, "turnCount"), ==, 1);
  g_clear_pointer (&json, json_node_unref);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "user: hello\n"));
  g_assert_nonnull (strstr (r.out, "assistant: Hello world\n"));
  g_assert_nonnull (strstr (r.out, " completed "));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  shown = json_node_get_object (json);
  g_assert_cmpstr (json_object_get_string_member (shown, "sessionId"), ==, session_id);
  turn = json_array_get_object_element (json_object_get_array_member (shown, "turns"), 0);
  g_assert_cmpstr (json_object_get_string_member (turn, "turnId"), ==, turn_id);
  g_assert_cmpstr (json_object_get_string_member (turn, "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (turn, "input"), ==, "hello");
  g_assert_cmpstr (json_object_get_string_member (turn, "answer"), ==, "Hello world");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (turn, "toolCalls")), ==, 0);
  /* Its speed, as the turn file lets it be read (docs/format.md §4.2):
   * the text streamed, so the time to its first token is known; the
   * server reported no usage, so no tokens per second is made up. The
   * exact figures under a fake clock are test-speed's. */
  g_assert_cmpint (json_node_get_value_type (json_object_get_member (turn, "timeToFirstTokenMs")), ==, G_TYPE_INT64);
  g_assert_cmpint (json_object_get_int_member (turn, "timeToFirstTokenMs"), >=, 0);
  g_assert_false (json_object_has_member (turn, "tokensPerSecond"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (turn, "modelCalls")), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (
                     json_object_get_array_member (turn, "modelCalls"), 0), "timeToFirstTokenMs"), ==,
                   json_object_get_int_member (turn, "timeToFirstTokenMs"));

  /* A second message continues the session with the same model and
   * without repeating an option; its context is the first turn. */
  g_ptr_array_add (f->server->script, (gpointer) &ANSWER);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "and", "again");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "and again"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Hello world"));
}

/* The read_file call needs permission: send suspends and prints what it
 * waits for; a new message is refused; allow continues the turn with the
 * endpoint recorded in the turn, no option repeated. */
static void
test_permission_allow (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *expected = NULL;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  waiting = g_strdup_printf ("session %s\nturn %s\nwaiting: permission call_1 read_file ", session_id, turn_id);
  g_assert_true (g_str_has_prefix (r.out, waiting));
  g_assert_nonnull (strstr (r.out, "notes.txt"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tsuspended\t"));

  /* Turn not settled. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hurry");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: The latest turn "));
  g_assert_nonnull (strstr (r.err, "suspended"));

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("session %s\nturn %s\n\nHello world\n", session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  /* The same model, and the tool really ran. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"model\":\"m1\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "plum"));

  /* A second decision for the same call is the runtime's error. */
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = strchr (text, '\n'); p != NULL; p = strchr (p + 1, '\n'))
    n++;
  return n;
}

/* "Always allow": allow --always answers the call and grants its tool;
 * the next call of the tool in the session runs without asking; grants
 * lists it (text and JSON); revoke removes it; ask_human and unknown
 * tools cannot be granted. */
static void
test_grants (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *grant_id = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *listed = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *entry;

  script (f, &f->server->read_step, &ANSWER, &f->server->read_step, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", "--always", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "grant "));
  grant_id = g_strndup (r.out + strlen ("grant "), strcspn (r.out + strlen ("grant "), "\n"));
  g_assert_true (natter_id_validate (grant_id, NULL));
  expected = g_strdup_printf ("grant %s\nsession %s\nturn %s\n\nHello world\n", grant_id, session_id, turn_id);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id);
  g_assert_cmpint (r.status, ==, 0);
  listed = g_strdup_printf ("%s\tnatter.read_file\t", grant_id);
  g_assert_true (g_str_has_prefix (r.out, listed));
  g_assert_true (g_str_has_suffix (r.out, "Z\n"));
  g_assert_cmpuint (count_lines (r.out), ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = natter_test_json (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 1);
  entry = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "grantId"), ==, grant_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "toolId"), ==, "natter.read_file");
  g_assert_true (json_object_has_member (entry, "ts"));

  /* The next read runs at once: the turn completes. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "again");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_null (strstr (r.out, "waiting:"));

  natter_test_run_clear (&r);
  RUN (f, &r, "revoke", session_id, grant_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "grants", session_id);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "revoke", session_id, grant_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));

  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "ask_human");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: ask_human can never be always allowed"));
  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "no_such_tool");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "natter: There is no tool “no_such_tool”\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "grant", session_id, "read_file");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "grant "));
}

/* The JSON body of the model request @index. */
static JsonObject *
request_body (Fixture *f,
              guint    index)
{
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  return json_object_ref (json_node_get_object (node));
}

static char *
session_file_contents (Fixture    *f,
                       const char *session_id)
{
  g_autofree char *relative = g_strdup_printf ("storage/sessions/%.4s/%.2s/%.2s/%s.jsonl", session_id,
                                               session_id + 5, session_id + 8, session_id);
  g_autoptr(GFile) file = g_file_resolve_relative_path (f->dir, relative);
  char *contents = NULL;

  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, NULL, NULL));
  return contents;
}

/* The event types of a session file, in order, space-separated with a
 * space at each end; `schema_upgraded:N` with its version. */
static char *
session_types (const char *contents)
{
  g_auto(GStrv) lines = g_strsplit (contents, "\n", -1);
  GString *types = g_string_new (" ");

  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_autoptr(JsonNode) node = natter_test_json (lines[i]);
      JsonObject *event = json_node_get_object (node);
      const char *type = json_object_get_string_member (event, "type");

      if (g_str_equal (type, "schema_upgraded"))
        g_string_append_printf (types, "%s:%" G_GINT64_FORMAT " ", type,
                                json_object_get_int_member (event, "schemaVersion"));
      else
        g_string_append_printf (types, "%s ", type);
    }
  return g_string_free (types, FALSE);
}

static guint
count_substring (const char *text,
                 const char *part)
{
  guint n = 0;

  for (const char *at = strstr (text, part); at != NULL; at = strstr (at + 1, part))
    n++;
  return n;
}

/* Generation parameters: `send --temperature …` reaches the server for
 * that message only; `params` keeps a conversation's, which every later
 * message sends under its own, prints them as text or JSON, refuses a
 * value out of range without writing, and --clear forgets them. The file
 * is raised one version at a time before its first parameters_changed. */
static void
test_params (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(JsonObject) third = NULL;
  g_autoptr(JsonNode) json = NULL;
  JsonObject *system;
  g_autofree char *types = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--temperature", "0,5", "--seed", "7", "hi");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  first = request_body (f, 0);
  g_assert_cmpfloat (json_object_get_double_member (first, "temperature"), ==, 0.5);
  g_assert_cmpint (json_object_get_int_member (first, "seed"), ==, 7);
  g_assert_false (json_object_has_member (first, "top_p"));

  /* The message's own were not kept. */
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "1.2", "--max-tokens", "64", "--system", "Answer in French.");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "temperature\t1.2\nmax_tokens\t64\nsystem\tAnswer in French.\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--top-p", "0.9", "again");
  g_assert_cmpint (r.status, ==, 0);
  second = request_body (f, 1);
  g_assert_cmpfloat (json_object_get_double_member (second, "temperature"), ==, 1.2);
  g_assert_cmpfloat (json_object_get_double_member (second, "top_p"), ==, 0.9);
  g_assert_cmpint (json_object_get_int_member (second, "max_tokens"), ==, 64);
  g_assert_false (json_object_has_member (second, "seed"));
  system = json_array_get_object_element (json_object_get_array_member (second, "messages"), 0);
  g_assert_cmpstr (json_object_get_string_member (system, "role"), ==, "system");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (system, "content"), "\n\nAnswer in French."));

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpfloat (json_object_get_double_member (json_node_get_object (json), "temperature"), ==, 1.2);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (json), "max_tokens"), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (json), "systemInstruction"), ==,
                   "Answer in French.");

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--temperature", "3");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Temperature must be a number from 0 to 2\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--seed", "x", "never sent");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: The seed must be a whole number\n");
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  contents = session_file_contents (f, session_id);
  types = session_types (contents);
  g_assert_nonnull (strstr (types, " schema_upgraded:2 schema_upgraded:3 parameters_changed "));
  g_assert_cmpuint (count_substring (types, "parameters_changed"), ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--clear", "--seed", "3");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "seed\t3\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "params", session_id, "--clear");
  g_assert_cmpstr (r.out, ==, "");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 0);
  third = request_body (f, 2);
  g_assert_false (json_object_has_member (third, "temperature"));
  g_assert_false (json_object_has_member (third, "seed"));
  system = json_array_get_object_element (json_object_get_array_member (third, "messages"), 0);
  g_assert_null (strstr (json_object_get_string_member_with_default (system, "content", ""), "French"));
}

/* The entry of `natter sessions --json` for @session_id (transfer full). */
static JsonObject *
listed_entry (Fixture    *f,
              const char *session_id)
{
  g_auto(NatterTestRun) r;
  g_autoptr(JsonNode) json = NULL;
  JsonArray *array;

  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = natter_test_json (r.out);
  array = json_node_get_array (json);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *entry = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (entry, "sessionId"), session_id) == 0)
        return json_object_ref (entry);
    }
  g_assert_not_reached ();
}

/* pin, unpin and folder (docs/sessions.md §16): each is one event in the
 * conversation's file, raised to version 4 one step at a time before the
 * first; `folder SESSION NAME` makes the folder when none of that name
 * (whatever its case) exists, and the folder outlives the process, also
 * once nothing is in it; `sessions --json` says `pinned` and `folder`. */
static void
test_pins_folders (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *types = NULL;
  g_autoptr(JsonObject) entry = NULL;
  g_autoptr(GPtrArray) folders = NULL;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hi");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  entry = listed_entry (f, session_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_false (json_object_has_member (entry, "folder"));
  g_clear_pointer (&entry, json_object_unref);

  natter_test_run_clear (&r);
  RUN (f, &r, "pin", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Work Stuff");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_true (json_object_get_boolean_member (entry, "pinned"));
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work Stuff");
  g_clear_pointer (&entry, json_object_unref);
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id);
  g_assert_cmpstr (r.out, ==, "Work Stuff\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "Work", "--none");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Give a folder name or --none, not both\n");
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "--none");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "unpin", session_id);
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_false (json_object_get_boolean_member (entry, "pinned"));
  g_assert_false (json_object_has_member (entry, "folder"));
  g_clear_pointer (&entry, json_object_unref);

  /* The empty folder is still there: the same name, in other case,
   * finds it rather than making a second. */
  natter_test_run_clear (&r);
  RUN (f, &r, "folder", session_id, "work stuff");
  g_assert_cmpint (r.status, ==, 0);
  entry = listed_entry (f, session_id);
  g_assert_cmpstr (json_object_get_string_member (entry, "folder"), ==, "Work Stuff");
  folders = natter_test_list_files (f->dir, "storage/folders");
  g_assert_cmpuint (folders->len, ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "pin", "not-an-id");
  g_assert_cmpint (r.status, !=, 0);
  g_assert_cmpstr (r.out, ==, "");

  contents = session_file_contents (f, session_id);
  types = session_types (contents);
  g_assert_nonnull (strstr (types, " schema_upgraded:2 schema_upgraded:3 schema_upgraded:4 pin_changed "
                                   "folder_changed folder_changed pin_changed folder_changed "));
}

/* Queued messages: send --queue while the turn waits prints `queued
 * <id>`; queue lists them (text and JSON); unqueue removes one; when the
 * turn completes the oldest is sent and reported after it; send --queue
 * on a settled session sends at once. */
static void
test_queue (Fixture       *f,
            gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *listed = NULL;
  g_autofree char *promoted = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_auto(GStrv) reports = NULL;
  JsonObject *entry;

  script (f, &f->server->read_step, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "first", "queued");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  first = g_strndup (r.out + strlen ("queued "), strlen (r.out) - strlen ("queued ") - 1);
  g_assert_true (natter_id_validate (first, NULL));
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "second");
  second = g_strndup (r.out + strlen ("queued "), strlen (r.out) - strlen ("queued ") - 1);
  g_assert_true (natter_id_validate (second, NULL));

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpint (r.status, ==, 0);
  listed = g_strdup_printf ("%s\t", first);
  g_assert_true (g_str_has_prefix (r.out, listed));
  g_assert_nonnull (strstr (r.out, "\tfirst queued\n"));
  g_assert_cmpuint (count_lines (r.out), ==, 2);

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id, "--json");
  json = natter_test_json (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 2);
  entry = json_array_get_object_element (json_node_get_array (json), 1);
  g_assert_cmpstr (json_object_get_string_member (entry, "queueId"), ==, second);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "message"), "content"),
                   ==, "second");
  g_assert_true (json_object_has_member (entry, "ts"));

  natter_test_run_clear (&r);
  RUN (f, &r, "unqueue", session_id, second);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  /* Allowing completes the turn; the queued message is sent after it and
   * reported too. */
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 2);
  parse_ids (r.out, NULL, NULL);
  g_assert_true (g_str_has_suffix (reports[0], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world\n"));
  promoted = g_strdup_printf ("session %s", reports[1]);
  parse_ids (promoted, NULL, NULL);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "first queued"));

  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpstr (r.out, ==, "");

  /* Settled: --queue sends at once. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "right", "away");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
}

/* A completed first turn and, behind it, a message its process queued
 * but was killed before sending: what a crash between the answer and
 * the promotion of the queue leaves. Returns the session. */
static char *
lose_a_promotion (Fixture    *f,
                  const char *text)
{
  g_auto(NatterTestRun) r;
  char *session_id = NULL;

  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  g_free (natter_test_store_queued (f->dir, session_id, text, f->server->base_url, "m1"));
  return session_id;
}

/* The session's line of `natter sessions`: its status and turn count
 * ("completed 3"). */
static char *
session_status (Fixture    *f,
                const char *session_id)
{
  g_auto(NatterTestRun) r;
  g_autoptr(JsonNode) json = NULL;
  JsonArray *entries;

  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  json = natter_test_json (r.out);
  entries = json_node_get_array (json);
  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (g_str_equal (json_object_get_string_member (entry, "sessionId"), session_id))
        return g_strdup_printf ("%s %" G_GINT64_FORMAT, json_object_get_string_member (entry, "latestTurnStatus"),
                                json_object_get_int_member (entry, "turnCount"));
    }
  g_assert_not_reached ();
}

/* A plain send finds the queue first in line: it is refused, and the
 * oldest queued message, sent instead, runs to its answer before the
 * command exits (never left interrupted for `resume`). */
static void
test_queue_first_send_refused (Fixture       *f,
                               gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *promoted = NULL;
  g_autofree char *status = NULL;

  script (f, &ANSWER, &ANSWER, NULL);
  session_id = lose_a_promotion (f, "left behind");

  RUN (f, &r, "send", "--session", session_id, "not", "sent");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: The latest turn "));
  g_assert_nonnull (strstr (r.err, "queued messages"));
  g_assert_true (g_str_has_prefix (r.out, "session "));
  parse_ids (r.out, &promoted, NULL);
  g_assert_cmpstr (promoted, ==, session_id);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "left behind"));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 1), "not sent"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 2");
}

/* send --queue behind what a crash left queued: the message is queued
 * after it, and both are sent, each after the answer before it, and
 * reported, before the command exits. */
static void
test_queue_first_send_queue (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *status = NULL;
  g_auto(GStrv) reports = NULL;

  script (f, &ANSWER, &ANSWER, &ANSWER, NULL);
  session_id = lose_a_promotion (f, "left behind");

  RUN (f, &r, "send", "--session", session_id, "--queue", "next");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "queued "));
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 3);
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[2], "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "left behind"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "next"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 3");
  natter_test_run_clear (&r);
  RUN (f, &r, "queue", session_id);
  g_assert_cmpstr (r.out, ==, "");
}

/* Allowing a turn with two messages queued behind it, on a machine so
 * loaded that the command reads the session only after the first turn
 * the queue made has answered and made the second: every turn is
 * reported and the command stays until the last one settles, instead of
 * leaving it mid-call with no process to finish it. The test point
 * NATTER_TEST_FOLLOW_LATE makes the command read the session that late. */
static void
test_queue_follow_late (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *status = NULL;
  g_auto(GStrv) reports = NULL;

  script (f, &f->server->read_step, &ANSWER, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "first");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "--queue", "second");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  f->test_point = "NATTER_TEST_FOLLOW_LATE";
  RUN (f, &r, "allow", turn_id, "call_1");
  f->test_point = NULL;
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  reports = g_strsplit (r.out, "\n\nsession ", -1);
  g_assert_cmpuint (g_strv_length (reports), ==, 3);
  g_assert_true (g_str_has_suffix (reports[1], "\n\nHello world"));
  g_assert_true (g_str_has_suffix (reports[2], "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 4);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "first"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "second"));

  status = session_status (f, session_id);
  g_assert_cmpstr (status, ==, "completed 3");
}

static void
test_permission_deny (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *turn;
  JsonObject *call;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "deny", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 1), "plum"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turn = json_array_get_object_element (json_object_get_array_member (json_node_get_object (json), "turns"), 0);
  call = json_array_get_object_element (json_object_get_array_member (turn, "toolCalls"), 0);
  g_assert_cmpstr (json_object_get_string_member (call, "toolCallId"), ==, "call_1");
  g_assert_cmpstr (json_object_get_string_member (call, "toolName"), ==, "read_file");
  g_assert_cmpstr (json_object_get_string_member (call, "status"), ==, "denied");
}

static void
test_ask_human_answer (Fixture       *f,
                       gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;

  script (f, &ASK_COLOUR, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "paint", "it");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  g_assert_true (g_str_has_suffix (r.out, "\nwaiting: question call_1 Which colour?\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "answer", turn_id, "call_1", "deep", "blue");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "deep blue"));
}

static void
test_stop (Fixture       *f,
           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;

  script (f, &f->server->read_step, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "stop", turn_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\ncancelled\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tcancelled\t"));
}

/* A process killed mid-stream leaves its turn idle; `resume` re-issues the
 * interrupted call against the endpoint recorded in the turn. */
/* Runs `natter send @extra… --base-url … --model m1 hello` and kills it
 * once the model was asked (the script must hang there): its new
 * session's only turn is left idle. Returns that session. */
static char *
send_killed_mid_answer (Fixture    *f,
                        const char *extra)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autoptr(GSubprocess) process = NULL;
  const char * const args[] = { "send", "--base-url", f->server->base_url, "--model", "m1", "hello", extra, NULL };
  g_auto(GStrv) fields = NULL;

  process = spawn (f, args);
  natter_test_communicate (process, &r);
  while (f->server->bodies->len == 0)
    g_main_context_iteration (NULL, TRUE);
  g_subprocess_force_exit (process);
  natter_test_wait_for_flag (&r.done, WAIT_MS);
  g_assert_cmpint (r.status, ==, -1);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  fields = g_strsplit (r.out, "\t", -1);
  g_assert_cmpstr (fields[1], ==, "idle");
  return g_strdup (fields[0]);
}

static void
test_resume_idle (Fixture       *f,
                  gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;

  script (f, &HANG, &ANSWER, NULL);
  session_id = send_killed_mid_answer (f, "--no-auto-title");

  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  /* Only an idle turn can be resumed. */
  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));
}

static void
test_title_fork_delete (Fixture       *f,
                        gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *fork_id = NULL;
  guint n_turn_files;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Greetings", "and", "more");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_true (g_str_has_suffix (r.out, "\tGreetings and more\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "fork", session_id, turn_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  fork_id = g_strndup (r.out + strlen ("session "), strlen (r.out) - strlen ("session ") - 1);
  g_assert_true (natter_id_validate (fork_id, NULL));
  g_assert_cmpstr (fork_id, !=, session_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", fork_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, session_id));

  n_turn_files = count_turn_files (f);
  g_assert_cmpuint (n_turn_files, ==, 1);
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  /* docs/sessions.md §9.4: the turn files stay. */
  g_assert_cmpuint (count_turn_files (f), ==, n_turn_files);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_true (g_str_has_prefix (r.out, fork_id));
  g_assert_null (strstr (r.out, session_id));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: No session "));
}

/* A new session is named by its model after the first answer, before
 * `send` exits (the auto-title setting is on by default); with
 * --no-auto-title nothing is asked and the first message stays the title. */
static void
test_send_auto_title (Fixture       *f,
                      gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *plain_id = NULL;
  g_autofree char *expected = NULL;

  script (f, &ANSWER, &TITLE, &ANSWER, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Write a title for the conversation below"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"max_tokens\":64"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "\"model\":\"m1\""));

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello", "again");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &plain_id, NULL);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t", session_id);
  g_assert_nonnull (strstr (r.out, "\tGreeting the World\n"));
  g_assert_nonnull (strstr (r.out, "\thello again\n"));
  g_assert_nonnull (strstr (r.out, expected));
}

/* The title `natter sessions` lists for @session_id ("-" for none). */
static char *
listed_title (Fixture    *f,
              const char *session_id)
{
  g_auto(NatterTestRun) r;
  g_auto(GStrv) lines = NULL;

  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], session_id))
      {
        g_auto(GStrv) fields = g_strsplit (lines[i], "\t", -1);

        g_assert_cmpuint (g_strv_length (fields), >=, 4);
        return g_strdup (fields[3]);
      }
  g_assert_not_reached ();
}

/* The title belongs to the conversation: its first answer arrives
 * through `allow`, in another process than the `send` that started it,
 * and that process asks the model for the title (once) before it
 * exits. */
static void
test_auto_title_after_allow (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &f->server->read_step, &ANSWER, &TITLE, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_suffix (r.out, "\n\nHello world\n"));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Write a title for the conversation below"));
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* The same when the first answer comes with the answer to the model's
 * question. */
static void
test_auto_title_after_answer (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &ASK_COLOUR, &ANSWER, &TITLE, NULL);
  RUN (f, &r, "send", "--base-url", f->server->base_url, "--model", "m1", "paint", "it");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  natter_test_run_clear (&r);
  RUN (f, &r, "answer", turn_id, "call_1", "deep", "blue");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* The process that sent the first message was killed mid-answer; the
 * `resume` that finishes the answer names the conversation. */
static void
test_auto_title_after_resume (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autofree char *session_id = NULL;
  g_autofree char *title = NULL;

  script (f, &HANG, &ANSWER, &TITLE, NULL);
  session_id = send_killed_mid_answer (f, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "resume", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "Greeting the World");
}

/* `send --no-auto-title` keeps the first line as the conversation's
 * title for good: the `allow` that brings the first answer asks for
 * nothing. */
static void
test_no_auto_title_after_allow (Fixture       *f,
                                gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *title = NULL;

  script (f, &f->server->read_step, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "read", "my", "notes");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "allow", turn_id, "call_1");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  title = listed_title (f, session_id);
  g_assert_cmpstr (title, ==, "read my notes");
}

/* `natter compact SESSION [--keep N]` summarizes the earlier turns and
 * prints `compacted <id>`; the next send carries the summary. */
static void
test_compact (Fixture       *f,
              gconstpointer  data)
{
  static const Step SUMMARY = { CHUNK ("They said hello twice.") FINISH ("stop") DONE, FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  script (f, &ANSWER, &ANSWER, &SUMMARY, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "again");
  g_assert_cmpint (r.status, ==, 0);

  natter_test_run_clear (&r);
  RUN (f, &r, "compact", session_id, "--keep", "0");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: --keep must be at least 1\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "compact", session_id, "--keep", "1");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "compacted "));
  g_assert_true (natter_id_validate (g_strstrip (r.out + strlen ("compacted ")), NULL));
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 2), "Summarize the conversation below"));

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "They said hello twice."));
}

/* `send` follows the auto-compact setting (on by default): the last
 * prompt took 900 of the 1,000 tokens the server reports for m1, so the
 * earlier turns are summarized first, said on stderr, and the message
 * goes out with the summary; stdout stays the ids. */
static void
test_send_auto_compact (Fixture       *f,
                        gconstpointer  data)
{
#define USAGE(prompt) "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":" #prompt ",\"completion_tokens\":2}}\n\n"
  static const Step SMALL = { CHUNK ("Hello") FINISH ("stop") USAGE (10) DONE, FALSE };
  static const Step LARGE = { CHUNK ("Hello") FINISH ("stop") USAGE (900) DONE, FALSE };
  static const Step SUMMARY = { CHUNK ("They said hello thrice.") FINISH ("stop") DONE, FALSE };
#undef USAGE
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  f->server->models = "{\"object\":\"list\",\"data\":[{\"id\":\"m1\",\"max_model_len\":1000}]}";
  script (f, &SMALL, &SMALL, &LARGE, &SUMMARY, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "again");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "hello", "thrice");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (f->server->bodies->len, ==, 3);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "fourth");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.err, "Compacted the conversation before sending ("));
  g_assert_true (g_str_has_prefix (r.out, "session "));
  /* Each process asks once: the window is kept in memory only. */
  g_assert_cmpuint (f->server->n_models, ==, 3);
  g_assert_cmpuint (f->server->bodies->len, ==, 5);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 3), "Summarize the conversation below"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "They said hello thrice."));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 4), "fourth"));
}

/* A turn that fails because the conversation no longer fits the model's
 * context window says that `natter compact SESSION` helps. */
static void
test_overflow_hint (Fixture       *f,
                    gconstpointer  data)
{
  static const Step OVERFLOW = {
    "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens.\","
    "\"code\":\"context_length_exceeded\"}}\n\n", FALSE
  };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *hint = NULL;

  script (f, &OVERFLOW, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, &session_id, &turn_id);
  g_assert_true (g_str_has_prefix (r.err, "natter: The turn failed: "));
  g_assert_nonnull (strstr (r.err, "maximum context length"));
  hint = g_strdup_printf ("“natter retry --compact %s” summarizes its earlier turns and sends the message again)\n",
                          turn_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  /* One line. */
  g_assert_cmpint (strchr (r.err, '\n') - r.err, ==, (int) strlen (r.err) - 1);
}

/* A failed message tried again from the command line is a new version
 * of it, as in the window: `natter retry TURN` sends it once more, and
 * the model receives it once. */
static void
test_retry_failed (Fixture       *f,
                   gconstpointer  data)
{
  static const Step DOWN = { "data: {\"error\":{\"message\":\"The server is overloaded\"}}\n\n", FALSE };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *failed_id = NULL;
  g_autofree char *version_id = NULL;
  g_autofree char *hint = NULL;
  const char *body;

  script (f, &ANSWER, &DOWN, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "first");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "second");
  g_assert_cmpint (r.status, ==, 1);
  parse_ids (r.out, NULL, &failed_id);
  hint = g_strdup_printf ("(“natter retry %s” sends the message again)\n", failed_id);
  g_assert_true (g_str_has_suffix (r.err, hint));

  natter_test_run_clear (&r);
  RUN (f, &r, "retry", failed_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &version_id, NULL);
  g_assert_cmpstr (version_id, !=, session_id);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
  body = g_ptr_array_index (f->server->bodies, 2);
  g_assert_nonnull (strstr (body, "\"first\""));
  g_assert_nonnull (strstr (body, "\"second\""));
  g_assert_null (strstr (strstr (body, "\"second\"") + 1, "\"second\""));

  /* The failed try stays in its version. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_nonnull (strstr (r.out, "\tfailed\t"));
  g_assert_nonnull (strstr (r.out, "\tcompleted\t"));
}

/* An earlier turn's file damaged: `send` is refused, naming the file and
 * the way out, and nothing is sent; recover copies the part before. */
static void
test_send_damaged_history (Fixture       *f,
                           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *path = NULL;
  g_autofree char *hint = NULL;
  g_autoptr(GFile) file = NULL;

  script (f, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "first");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "second");
  g_assert_cmpint (r.status, ==, 0);

  relative = g_strdup_printf ("storage/turns/%.4s/%.2s/%.2s/%s.jsonl", turn_id, turn_id + 5, turn_id + 8, turn_id);
  file = g_file_resolve_relative_path (f->dir, relative);
  path = g_file_get_path (file);
  natter_test_append_file (path, "{\"type\":\"turn_comp");

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "third");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: The history of session "));
  g_assert_nonnull (strstr (r.err, path));
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
}

/* `natter recover SESSION` copies what can be read of a damaged session
 * to a new one and prints it; the damaged file stays as it was. */
/* search finds words of messages and answers, best first, one line per
 * turn; --json adds the title; a deleted session is no longer found. */
static void
test_search (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *wombat_session = NULL;
  g_autofree char *wombat_turn = NULL;
  g_autofree char *koala_session = NULL;
  g_autofree char *koala_turn = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *hit;

  script (f, &ANSWER, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "Tell me about wombats");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &wombat_session, &wombat_turn);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "And\tkoalas?");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &koala_session, &koala_turn);

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombat");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  expected = g_strdup_printf ("%s\t%s\tTell me about wombats\n", wombat_session, wombat_turn);
  g_assert_cmpstr (r.out, ==, expected);

  /* The answer's words, in both sessions; a tab in a message is no
   * column of its own. */
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "koalas", "world");
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s\t%s\tAnd koalas?\n", koala_session, koala_turn);
  g_assert_cmpstr (r.out, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "search", "--json", "hello");
  g_assert_cmpint (r.status, ==, 0);
  json = json_from_string (r.out, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (json)), ==, 2);
  hit = json_array_get_object_element (json_node_get_array (json), 0);
  g_assert_cmpuint (json_object_get_size (hit), ==, 4);
  g_assert_true (g_str_equal (json_object_get_string_member (hit, "sessionId"), wombat_session) ||
                 g_str_equal (json_object_get_string_member (hit, "sessionId"), koala_session));
  g_assert_nonnull (json_object_get_string_member (hit, "turnId"));
  g_assert_nonnull (json_object_get_string_member (hit, "title"));
  g_assert_cmpstr (json_object_get_string_member (hit, "snippet"), ==, "Hello world");

  natter_test_run_clear (&r);
  RUN (f, &r, "delete", wombat_session);
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "wombats");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");

  /* Syntax of the index's query language is only words. */
  natter_test_run_clear (&r);
  RUN (f, &r, "search", "\"koalas", "(", "*");
  g_assert_cmpint (r.status, ==, 0);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s\t%s\tAnd koalas?\n", koala_session, koala_turn);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpstr (r.out, ==, expected);
}

static void
test_recover (Fixture       *f,
              gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *relative = NULL;
  g_autofree char *path = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *torn = NULL;
  g_autoptr(GFile) file = NULL;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);

  relative = g_strdup_printf ("storage/sessions/%.4s/%.2s/%.2s/%s.jsonl", session_id, session_id + 5,
                              session_id + 8, session_id);
  file = g_file_resolve_relative_path (f->dir, relative);
  path = g_file_get_path (file);
  g_assert_true (g_file_get_contents (path, &before, NULL, NULL));
  torn = g_strconcat (before, "{\"type\":\"title_ch", NULL);
  g_assert_true (g_file_set_contents (path, torn, -1, NULL));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 1);

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  copy_id = g_strndup (r.out + strlen ("session "), strlen (r.out) - strlen ("session ") - 1);
  g_assert_true (natter_id_validate (copy_id, NULL));
  g_assert_cmpstr (copy_id, !=, session_id);

  g_assert_true (g_file_get_contents (path, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, torn);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", copy_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "hello"));
  g_assert_nonnull (strstr (r.out, "Hello world"));
  g_assert_nonnull (strstr (r.out, turn_id));

  natter_test_run_clear (&r);
  RUN (f, &r, "recover", "../../etc");
  g_assert_cmpint (r.status, ==, 1);
}

/* `natter export` prints Markdown or writes a JSON archive; `natter
 * import` brings the archive back as a new session and prints it; a
 * damaged archive is refused, naming the problem. */
static void
test_export_import (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autoptr(GFile) archive = g_file_get_child (f->dir, "out.json");
  g_autoptr(GFile) broken = g_file_get_child (f->dir, "broken.json");
  g_autofree char *archive_path = g_file_get_path (archive);
  g_autofree char *broken_path = g_file_get_path (broken);
  g_autofree char *contents = NULL;
  guint n_turn_files;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "export", session_id, "--format", "markdown");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "# hello\n\n## You\n\nhello\n\n## Answer\n\nHello world\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "export", session_id, "--format", "json", "--output", archive_path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_file_get_contents (archive_path, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "{\"format\":\"natter-archive\",\"version\":1,"));

  /* An archive is data from wherever it came from: the address the
   * conversation was sent to and its working folder stay behind, and the
   * command says so. */
  natter_test_run_clear (&r);
  RUN (f, &r, "import", archive_path);
  g_assert_cmpstr (r.err, ==,
                   "natter: 1 answer came from a server address named in the file: it is shown as a label and never "
                   "contacted; new messages go to your own providers.\n"
                   "natter: 1 working folder named in the file was not brought over: tools work in your own "
                   "folders.\n");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  copy_id = g_strndup (r.out + strlen ("session "), strlen (r.out) - strlen ("session ") - 1);
  g_assert_true (natter_id_validate (copy_id, NULL));
  g_assert_cmpstr (copy_id, !=, session_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "show", copy_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Hello world"));

  n_turn_files = count_turn_files (f);
  g_assert_true (g_file_set_contents (broken_path, "{\"format\":\"natter-archive\",\"version\":1}", -1, NULL));
  natter_test_run_clear (&r);
  RUN (f, &r, "import", broken_path);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "natter: The archive lacks its “session” array\n");
  g_assert_cmpuint (count_turn_files (f), ==, n_turn_files);

  natter_test_run_clear (&r);
  RUN (f, &r, "export", session_id, "--format", "pdf");
  g_assert_cmpint (r.status, ==, 2);
}

/* `sessions --json` writes its array an entry at a time; what it prints
 * is still one document, spelled exactly as the whole array would be,
 * across the pieces it is written in (1,000 titled sessions are several),
 * a damaged session's entry included, and with no session at all. */
static void
test_sessions_json_streamed (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(NatterJsonlRepo) repo = natter_session_repo_new (storage);
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autofree char *damaged = NULL;
  g_autofree char *whole = NULL;
  g_autoptr(JsonNode) printed = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *entries;
  guint n_errors = 0;

  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "[]\n");

  for (guint i = 0; i < 1000; i++)
    {
      g_autofree char *id = natter_id_generator_next (ids);
      g_autofree char *line = g_strdup_printf ("{\"type\":\"session_created\",\"sessionId\":\"%s\","
                                               "\"ts\":\"2026-11-01T10:00:00.000Z\",\"schemaVersion\":1,"
                                               "\"title\":\"Conversation %u about \\\"quotes\\\" and "
                                               "new\\nlines, long enough to take some room\"}", id, i);
      g_autoptr(JsonNode) event = natter_test_json (line);

      g_assert_true (natter_jsonl_repo_create_sync (repo, id, event, NULL, &error));
      g_assert_no_error (error);
      if (i == 123)
        damaged = g_steal_pointer (&id);
    }
  {
    g_autoptr(GFile) file = natter_jsonl_repo_get_file (repo, damaged, NULL);

    natter_test_append_file (g_file_peek_path (file), "{\"type\":\"nonsense\"");
  }

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--json");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpuint (strlen (r.out), >, 4 * 64 * 1024);
  printed = json_from_string (r.out, &error);
  g_assert_no_error (error);
  entries = json_node_get_array (printed);
  g_assert_cmpuint (json_array_get_length (entries), ==, 1000);
  for (guint i = 0; i < 1000; i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (json_object_has_member (entry, "error"))
        {
          g_assert_cmpstr (json_object_get_string_member (entry, "sessionId"), ==, damaged);
          n_errors++;
        }
      else
        g_assert_nonnull (strstr (json_object_get_string_member (entry, "title"), "\"quotes\" and new\nlines"));
    }
  g_assert_cmpuint (n_errors, ==, 1);
  whole = natter_json_to_text (printed, TRUE, NULL);
  g_assert_true (g_str_has_suffix (r.out, "\n"));
  g_assert_cmpuint (strlen (r.out), ==, strlen (whole) + 1);
  g_assert_true (strncmp (r.out, whole, strlen (whole)) == 0);
}

/* Someone else's archive, imported in a fresh data directory: its
 * "Always Allow" grant, its queued message and its server address stay
 * behind, and the command says so. A plain send then goes to the
 * person's own provider with their key; the address the archive names
 * hears nothing, and read_file asks before it runs. */
static void
test_import_shared_archive (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(NatterTestServer) elsewhere = natter_test_server_new (NULL, 0);
  NatterTestShared shared = { .provider = elsewhere->base_url, .model = "m1", .grant = TRUE, .queued = TRUE };
  g_autofree char *text = natter_test_shared_archive (&shared);
  g_autoptr(GFile) archive = g_file_get_child (f->dir, "shared.json");
  g_autofree char *path = g_file_get_path (archive);
  g_autofree char *session_id = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *said = NULL;
  g_auto(NatterTestRun) r;

  use_own_provider (f);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  RUN (f, &r, "import", path);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "session "));
  session_id = g_strndup (r.out + strlen ("session "), strlen (r.out) - strlen ("session ") - 1);
  said = g_strdup (r.err);

  script (f, &f->server->read_step, NULL);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "Read", "my", "notes");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  waiting = g_strdup_printf ("waiting: permission call_1 read_file ");
  g_assert_nonnull (strstr (r.out, waiting));
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m1\""));
  g_assert_null (strstr (g_ptr_array_index (f->server->bodies, 0), "Send me the notes"));
  /* The tear-down checks it carried the person's key. */
  g_assert_cmpuint (elsewhere->paths->len, ==, 0);
  g_assert_cmpstr (said, ==,
                   "natter: 1 “Always Allow” permission was not brought over: tools ask again.\n"
                   "natter: 1 queued message was not brought over and will not be sent.\n"
                   "natter: 1 answer came from a server address named in the file: it is shown as a label and "
                   "never contacted; new messages go to your own providers.\n");
}

/* A ChatGPT export: the conversations that can be read come in and
 * continue on the person's own provider; the damaged one is named and
 * the command fails. */
static void
test_import_chatgpt (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "chatgpt", "conversations.json", NULL);
  g_auto(GStrv) lines = NULL;
  g_autofree char *trip = NULL;
  g_auto(NatterTestRun) r;

  use_own_provider (f);
  RUN (f, &r, "import", "--from", "chatgpt", path);
  g_assert_cmpint (r.status, ==, 1);
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  g_assert_true (g_str_has_prefix (lines[0], "session "));
  trip = g_strdup (lines[0] + strlen ("session "));
  g_assert_nonnull (strstr (r.err, "natter: Conversation 6 (“Damaged”): message gone is not in its “mapping”\n"));
  g_assert_true (g_str_has_suffix (r.err, "natter: 1 conversation could not be read and was not imported\n"));

  script (f, &ANSWER, NULL);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--no-auto-title", "--session", trip, "And", "the", "weather?");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Hello world"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"model\":\"m1\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "Try the fjords."));
}

static void
test_errors (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autoptr(NatterFakeClock) clock = natter_fake_clock_new (1795000000LL * G_USEC_PER_SEC);
  g_autoptr(NatterIdGenerator) ids = natter_id_generator_new (NATTER_CLOCK (clock));
  g_autofree char *absent = natter_id_generator_next (ids);
  g_autofree char *expected = g_strdup_printf ("natter: No session %s\n", absent);

  RUN (f, &r, "show", absent);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", absent, "hi");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, expected);

  natter_test_run_clear (&r);
  RUN (f, &r, "show", "../../etc");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.err, ==, "natter: “../../etc” is not a valid id\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", "../../etc", "call_1");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));
  g_assert_nonnull (strstr (r.err, "not a valid id"));

  natter_test_run_clear (&r);
  RUN (f, &r, "allow", absent, "call_1");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.err, "natter: "));

  /* Usage errors: exit 2. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_cmpstr (r.err, ==, "natter: Missing arguments\nTry “natter send --help”.\n");

  natter_test_run_clear (&r);
  RUN (f, &r, "frobnicate");
  g_assert_cmpint (r.status, ==, 2);
  g_assert_true (g_str_has_prefix (r.err, "natter: Unknown command “frobnicate”\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--bogus");
  g_assert_cmpint (r.status, ==, 2);

  natter_test_run_clear (&r);
  RUN (f, &r, "ask", "--max-model-calls", "0", "hi");
  g_assert_cmpint (r.status, ==, 2);

  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--help");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--base-url"));
  g_assert_nonnull (strstr (r.out, "--auto-permission"));

  natter_test_run_clear (&r);
  RUN (f, &r, "help");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "natter deliver TURN CALL JSON"));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);
}

/* Single writer: with the data directory locked by another process (here
 * this test), a command that writes is refused with a clear message. */
static void
test_lock_refused (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autoptr(GFile) storage = g_file_get_child (f->dir, "storage");
  g_autoptr(NatterDataDirLock) lock = NULL;
  g_autoptr(GError) error = NULL;

  lock = natter_data_dir_lock_acquire (storage, &error);
  g_assert_no_error (error);

  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_true (g_str_has_prefix (r.err, "natter: Another Natter process is using "));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);

  /* Help still works. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions", "--help");
  g_assert_cmpint (r.status, ==, 0);
}

/* A tool server's tool is offered by `send` and runs once allowed. */
static void
test_send_mcp_tool (Fixture       *f,
                    gconstpointer  data)
{
  static const Step MCP_ECHO = {
    TOOL_CALL ("call_1", "mcp__fake__echo", "{\\\"message\\\":\\\"hi\\\"}") FINISH ("tool_calls") DONE, FALSE
  };
  g_autofree char *python = g_find_program_in_path ("python3");
  g_autofree char *script_path = g_test_build_filename (G_TEST_DIST, "data", "mcp", "fake_mcp_server.py", NULL);
  g_autofree char *config_dir = g_build_filename (g_file_peek_path (f->dir), "natter", NULL);
  g_autofree char *config = g_build_filename (config_dir, "mcp.json", NULL);
  g_autofree char *text = g_strdup_printf ("{\"mcpServers\": {\"fake\": {\"command\": \"%s\", \"args\": [\"%s\"]}}}",
                                           python, script_path);
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) allowed;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *waiting = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (config_dir, 0700), ==, 0);
  g_file_set_contents (config, text, -1, &error);
  g_assert_no_error (error);
  script (f, &MCP_ECHO, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "echo", "hi");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  waiting = g_strdup_printf ("session %s\nturn %s\nwaiting: permission call_1 mcp__fake__echo ", session_id, turn_id);
  g_assert_true (g_str_has_prefix (r.out, waiting));
  /* The model was offered the tool, with the server's description. */
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "\"name\":\"mcp__fake__echo\""));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 0), "Says the message back"));

  RUN (f, &allowed, "allow", turn_id, "call_1");
  g_assert_cmpstr (allowed.err, ==, "");
  g_assert_cmpint (allowed.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "echo: hi"));
}

/* The "version of" mark of `natter sessions` for @id: the original's id,
 * or "" when @id is listed as a conversation of its own. */
static char *
listed_version_of (const char *out,
                   const char *id)
{
  g_auto(GStrv) lines = g_strsplit (out, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], id))
      {
        const char *mark = strstr (lines[i], "\tversion of ");

        return g_strdup (mark != NULL ? mark + strlen ("\tversion of ") : "");
      }
  g_assert_not_reached ();
}

/* The `versionOf` of @id in `natter sessions --json`, "" without one. */
static char *
json_version_of (const char *out,
                 const char *id)
{
  g_autoptr(JsonNode) json = natter_test_json (out);
  JsonArray *entries = json_node_get_array (json);

  for (guint i = 0; i < json_array_get_length (entries); i++)
    {
      JsonObject *entry = json_array_get_object_element (entries, i);

      if (g_str_equal (json_object_get_string_member (entry, "sessionId"), id))
        return g_strdup (json_object_get_string_member_with_default (entry, "versionOf", ""));
    }
  g_assert_not_reached ();
}

#define assert_version_of(out, json_out, id, expected) \
  G_STMT_START { \
    g_autofree char *text_ = listed_version_of ((out), (id)); \
    g_autofree char *json_ = json_version_of ((json_out), (id)); \
    g_assert_cmpstr (text_, ==, (expected)); \
    g_assert_cmpstr (json_, ==, (expected)); \
  } G_STMT_END

/* `natter sessions` says which conversation a version (what Edit and
 * Try Again make in the window: a branch created with the title of the
 * conversation it was made from) continues, from the stored lineage: a
 * fork made on purpose is a conversation of its own even under its
 * parent's title; a renamed version and a version of a version still
 * say where they came from. */
static void
test_sessions_mark_versions (Fixture       *f,
                             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) j;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *fork_id = NULL;
  g_autofree char *version = NULL;
  g_autofree char *inner = NULL;

  script (f, &ANSWER, NULL);
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "hello");
  g_assert_cmpint (r.status, ==, 0);
  parse_ids (r.out, &session_id, &turn_id);
  natter_test_run_clear (&r);
  RUN (f, &r, "title", session_id, "Greetings");
  g_assert_cmpint (r.status, ==, 0);
  natter_test_run_clear (&r);
  RUN (f, &r, "fork", session_id, turn_id);
  g_assert_cmpint (r.status, ==, 0);
  fork_id = g_strndup (r.out + strlen ("session "), strlen (r.out) - strlen ("session ") - 1);
  /* An edit of the first message, as the window makes one. */
  version = natter_test_store_session (f->dir, "Greetings", session_id, NULL);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  RUN (f, &j, "sessions", "--json");
  g_assert_cmpint (j.status, ==, 0);
  assert_version_of (r.out, j.out, session_id, "");
  assert_version_of (r.out, j.out, fork_id, "");
  assert_version_of (r.out, j.out, version, session_id);

  /* The fork under its parent's title is still its own. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", fork_id, "Greetings");
  g_assert_cmpint (r.status, ==, 0);
  /* The version renamed is still a version. */
  natter_test_run_clear (&r);
  RUN (f, &r, "title", version, "Salutations");
  g_assert_cmpint (r.status, ==, 0);
  /* An edit made in the version: a version of the version. */
  inner = natter_test_store_session (f->dir, "Salutations", version, NULL);

  natter_test_run_clear (&r);
  natter_test_run_clear (&j);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  RUN (f, &j, "sessions", "--json");
  assert_version_of (r.out, j.out, fork_id, "");
  assert_version_of (r.out, j.out, version, session_id);
  assert_version_of (r.out, j.out, inner, session_id);
  assert_version_of (r.out, j.out, session_id, "");
  g_assert_nonnull (strstr (r.out, "\tGreetings\n"));
  g_assert_nonnull (strstr (r.out, "\tSalutations\tversion of "));
}

/* Writes killed half-way leave temporary files: a log's first line and
 * a whole attachment never linked into place. The next command that
 * writes removes them before it exits; the conversations read as
 * before. */
static void
test_leftovers_removed (Fixture       *f,
                        gconstpointer  data)
{
  const char *root = g_file_peek_path (f->dir);
  g_autofree char *turns = g_build_filename (root, "storage", "turns", "2026", "11", "30", NULL);
  g_autofree char *blobs = g_build_filename (root, "storage", "blobs", "sha256", "9f", NULL);
  g_autofree char *log = g_build_filename (turns, ".2026-11-30T09-14-03Z-0000000-000.jsonl.q1W2e3", NULL);
  g_autofree char *blob = g_build_filename (blobs, ".9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
                                            ".zZ9yY8", NULL);
  g_autofree char *other = g_build_filename (turns, "notes.txt", NULL);
  g_auto(NatterTestRun) r;

  g_assert_cmpint (g_mkdir_with_parents (turns, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (blobs, 0700), ==, 0);
  g_assert_true (g_file_set_contents (log, "{\"type\":\"turn_cr", -1, NULL));
  g_assert_true (g_file_set_contents (blob, "half an attachment", -1, NULL));
  g_assert_true (g_file_set_contents (other, "not ours", -1, NULL));

  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (g_file_test (log, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (blob, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (other, G_FILE_TEST_IS_REGULAR));
}

/* A build that is not installed (build-aux/run-app, `meson devenv`)
 * speaks the user's language: NATTER_LOCALEDIR points at the build's
 * catalogs, where the installed LOCALEDIR has none. */
static void
test_language_uninstalled (void)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                        G_SUBPROCESS_FLAGS_STDERR_MERGE);
  g_autofree char *catalogs = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "..", "po", NULL);
  g_autoptr(GSubprocess) natter = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;

  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  g_subprocess_launcher_setenv (launcher, "LANGUAGE", "de", TRUE);
  g_subprocess_launcher_setenv (launcher, "NATTER_LOCALEDIR", catalogs, TRUE);
  natter = g_subprocess_launcher_spawn (launcher, &error, g_getenv ("NATTER_BIN"), "send", "--help", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (natter, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (strstr (out, "Eine Nachricht an eine Sitzung senden"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL || g_getenv ("NATTER_SCHEMA_DIR") == NULL)
    {
      g_test_skip ("NATTER_BIN is not set: the binary is only built with -Dui=true");
      return g_test_run ();
    }

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/cli/ask/completed", test_ask_completed);
  ADD ("/cli/ask/provider-unreachable", test_ask_unreachable);
  ADD ("/cli/send/new-session-list-show", test_send_list_show);
  ADD ("/cli/sessions/json-streamed", test_sessions_json_streamed);
  ADD ("/cli/send/permission-allow", test_permission_allow);
  ADD ("/cli/grants/allow-always-grant-list-revoke", test_grants);
  ADD ("/cli/params/send-keep-clear", test_params);
  ADD ("/cli/pins-folders", test_pins_folders);
  ADD ("/cli/queue/send-queue-list-unqueue-promote", test_queue);
  ADD ("/cli/queue/first-send-refused", test_queue_first_send_refused);
  ADD ("/cli/queue/first-send-queue", test_queue_first_send_queue);
  ADD ("/cli/queue/follow-late", test_queue_follow_late);
  ADD ("/cli/send/permission-deny", test_permission_deny);
  ADD ("/cli/send/mcp-tool", test_send_mcp_tool);
  ADD ("/cli/send/ask-human-answer", test_ask_human_answer);
  ADD ("/cli/stop", test_stop);
  ADD ("/cli/resume-idle", test_resume_idle);
  ADD ("/cli/title-fork-delete", test_title_fork_delete);
  ADD ("/cli/sessions-mark-versions", test_sessions_mark_versions);
  ADD ("/cli/send/auto-title", test_send_auto_title);
  ADD ("/cli/auto-title/after-allow", test_auto_title_after_allow);
  ADD ("/cli/auto-title/after-answer", test_auto_title_after_answer);
  ADD ("/cli/auto-title/after-resume", test_auto_title_after_resume);
  ADD ("/cli/auto-title/not-after-no-auto-title", test_no_auto_title_after_allow);
  ADD ("/cli/compact", test_compact);
  ADD ("/cli/send-auto-compact", test_send_auto_compact);
  ADD ("/cli/overflow-hint", test_overflow_hint);
  ADD ("/cli/recover", test_recover);
  ADD ("/cli/retry/failed-message-once", test_retry_failed);
  ADD ("/cli/send/damaged-history-refused", test_send_damaged_history);
  ADD ("/cli/export-import", test_export_import);
  ADD ("/cli/import-shared-archive", test_import_shared_archive);
  ADD ("/cli/import-chatgpt", test_import_chatgpt);
  ADD ("/cli/search", test_search);
  ADD ("/cli/errors", test_errors);
  ADD ("/cli/lock-refused", test_lock_refused);
  ADD ("/cli/leftovers-removed", test_leftovers_removed);
#undef ADD
  g_test_add_func ("/cli/language-uninstalled", test_language_uninstalled);

  return g_test_run ();
}
