/* test-cli-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scripted model, running the binary and reading what it wrote:
 * what the files of test-cli share.
 */

#include "test-cli.h"

const Step ANSWER = { CHUNK ("Hello") CHUNK (" world") FINISH ("stop") DONE, FALSE };

const Step HANG = { CHUNK ("Hel"), TRUE };

const Step TITLE = { CHUNK ("Greeting the World") FINISH ("stop") DONE, FALSE };

const Step ASK_COLOUR = {
  TOOL_CALL ("call_1", "ask_human", "{\\\"question\\\":\\\"Which colour?\\\"}") FINISH ("tool_calls") DONE, FALSE
};

static void
respond_cb (NatterTestServer   *http,
            guint               index,
            const char         *path,
            const char         *body,
            NatterTestResponse *response,
            gpointer            user_data)
{
  Server *server = user_data;
  const Step *step;

  response->status = 200;
  if (server->models != NULL && g_str_equal (path, "/v1/models"))
    {
      server->n_models++;
      response->content_type = "application/json";
      response->body = server->models;
      return;
    }
  g_assert_cmpstr (path, ==, "/v1/chat/completions");
  g_assert_cmpuint (server->bodies->len, <, server->script->len);
  step = g_ptr_array_index (server->script, server->bodies->len);
  g_ptr_array_add (server->bodies, (gpointer) body);
  server->chunks[0] = step->chunks;
  response->content_type = SSE;
  response->chunks = server->chunks;
  response->keep_open = step->keep_open;
}

static Server *
server_new (void)
{
  Server *server = g_new0 (Server, 1);

  server->script = g_ptr_array_new ();
  server->bodies = g_ptr_array_new ();
  server->http = natter_test_server_new_responder (respond_cb, server);
  server->base_url = server->http->base_url;
  return server;
}

static void
server_free (Server *server)
{
  natter_test_server_free (server->http);
  g_ptr_array_unref (server->script);
  g_ptr_array_unref (server->bodies);
  g_free (server->read_call);
  g_free (server);
}

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

/* Writes the settings the command reads from a key file under its
 * XDG_CONFIG_HOME: the scripted server as the person's own provider
 * "mine" with model "m1", and @default_provider when not NULL. */
static void
write_own_provider (Fixture    *f,
                    const char *default_provider)
{
  g_autoptr(GFile) dir = g_file_resolve_relative_path (f->dir, "glib-2.0/settings");
  g_autoptr(GFile) keyfile = g_file_get_child (dir, "keyfile");
  g_autoptr(GString) text = g_string_new ("[io/github/natter/Natter]\n");

  g_string_append_printf (text, "providers=[('mine', 'Mine', '%s')]\n", f->server->base_url);
  if (default_provider != NULL)
    g_string_append_printf (text, "default-provider='%s'\n", default_provider);
  g_string_append (text, "default-model='m1'\n");
  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (dir), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (keyfile), text->str, -1, NULL));
  f->own_provider = TRUE;
}

/* Makes the scripted server the person's own provider "mine", the
 * default with model "m1", as Preferences would. */
void
use_own_provider (Fixture *f)
{
  write_own_provider (f, "mine");
}

/* Like use_own_provider(), with "mine" only listed: no default chosen,
 * as a person who set the list by hand leaves it. */
void
use_own_provider_listed (Fixture *f)
{
  write_own_provider (f, NULL);
}

/* Runs natter with @args while this main loop serves the model. */
void
run_argv (Fixture            *f,
          const char * const *args,
          NatterTestRun      *result)
{
  g_autoptr(GSubprocess) process = spawn (f, args);

  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

/* Splits "session X\nturn Y\n…" into its ids. */
void
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

void
run_ids (Fixture            *f,
         const char * const *args,
         NatterTestRun      *result,
         char              **session_id,
         char              **turn_id)
{
  run_argv (f, args, result);
  g_assert_cmpstr (result->err, ==, "");
  g_assert_cmpint (result->status, ==, 0);
  parse_ids (result->out, session_id, turn_id);
}

void
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

guint
count_turn_files (Fixture *f)
{
  g_autoptr(GFile) turns = g_file_resolve_relative_path (f->dir, "storage/turns");

  return count_files (turns);
}

void
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

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Every call carried the key; no file holds it. */
  for (guint i = 0; i < f->server->http->authorizations->len; i++)
    g_assert_cmpstr (g_ptr_array_index (f->server->http->authorizations, i), ==, "Bearer " API_KEY);
  server_free (f->server);
  natter_test_remove_tree (f->dir);
  g_object_unref (f->dir);
  g_free (f->file);
}

guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = strchr (text, '\n'); p != NULL; p = strchr (p + 1, '\n'))
    n++;
  return n;
}

/* The JSON body of the model request @index. */
JsonObject *
request_body (Fixture *f,
              guint    index)
{
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpuint (index, <, f->server->bodies->len);
  node = natter_test_json (g_ptr_array_index (f->server->bodies, index));
  return json_object_ref (json_node_get_object (node));
}

char *
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

/* The path of the file of @turn_id (transfer full). */
char *
turn_file_path (Fixture    *f,
                const char *turn_id)
{
  g_autofree char *relative = g_strdup_printf ("storage/turns/%.4s/%.2s/%.2s/%s.jsonl", turn_id,
                                               turn_id + 5, turn_id + 8, turn_id);
  g_autoptr(GFile) file = g_file_resolve_relative_path (f->dir, relative);

  return g_file_get_path (file);
}

/* Appends @text to the file of @turn_id, as a torn write would leave it. */
void
append_to_turn_file (Fixture    *f,
                     const char *turn_id,
                     const char *text)
{
  g_autofree char *path = turn_file_path (f, turn_id);

  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));
  natter_test_append_file (path, text);
}

/* Cuts the file of @turn_id back to its first line, as a file that lost
 * its last lines at a line's end is. */
void
keep_first_line_of_turn_file (Fixture    *f,
                              const char *turn_id)
{
  g_autofree char *path = turn_file_path (f, turn_id);
  g_autofree char *contents = NULL;
  char *end;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  end = strchr (contents, '\n');
  g_assert_nonnull (end);
  end[1] = '\0';
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
}

/* The event types of a session file, in order, space-separated with a
 * space at each end; `schema_upgraded:N` with its version. */
char *
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

guint
count_substring (const char *text,
                 const char *part)
{
  guint n = 0;

  for (const char *at = strstr (text, part); at != NULL; at = strstr (at + 1, part))
    n++;
  return n;
}

/* The entry of `natter sessions --json` for @session_id (transfer full). */
JsonObject *
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

/* A completed first turn and, behind it, a message its process queued
 * but was killed before sending: what a crash between the answer and
 * the promotion of the queue leaves. Returns the session. */
char *
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
char *
session_status (Fixture    *f,
                const char *session_id)
{
  g_autoptr(JsonObject) entry = listed_entry (f, session_id);

  return g_strdup_printf ("%s %" G_GINT64_FORMAT, json_object_get_string_member (entry, "latestTurnStatus"),
                          json_object_get_int_member (entry, "turnCount"));
}

/* Whether the process running a turn has kept the words it streamed
 * (docs/format.md §11): a file under its own name, not the temporary
 * one a write renames into place. */
static gboolean
words_kept (gpointer data)
{
  Fixture *f = data;
  g_autoptr(GPtrArray) kept = natter_test_list_files (f->dir, "streams");

  for (guint i = 0; i < kept->len; i++)
    if (g_str_has_suffix (g_ptr_array_index (kept, i), ".json"))
      return TRUE;
  return FALSE;
}

static char *
kill_send (Fixture    *f,
           const char *extra,
           gboolean    once_words_kept)
{
  g_auto(NatterTestRun) r = { 0 };
  g_autoptr(GSubprocess) process = NULL;
  const char * const args[] = { "send", "--base-url", f->server->base_url, "--model", "m1", "hello", extra, NULL };
  g_auto(GStrv) fields = NULL;

  process = spawn (f, args);
  natter_test_communicate (process, &r);
  natter_test_wait_for_count (&f->server->bodies->len, 1, WAIT_MS);
  if (once_words_kept)
    g_assert_true (natter_test_poll_until (words_kept, f, WAIT_MS));
  g_subprocess_force_exit (process);
  natter_test_wait_for_flag (&r.done, WAIT_MS);
  g_assert_cmpint (r.status, ==, -1);

  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  fields = g_strsplit (r.out, "\t", -1);
  g_assert_cmpstr (fields[1], ==, "idle");
  return g_strdup (fields[0]);
}

/* Runs `natter send @extra… --base-url … --model m1 hello` and kills it
 * once the model was asked (the script must hang there): its new
 * session's only turn is left idle. Returns that session. */
char *
send_killed_mid_answer (Fixture    *f,
                        const char *extra)
{
  return kill_send (f, extra, FALSE);
}

/* send_killed_mid_answer(), killed only once the words streamed so far
 * are kept on disk. */
char *
send_killed_after_words_kept (Fixture    *f,
                              const char *extra)
{
  return kill_send (f, extra, TRUE);
}

/* The title `natter sessions` lists for @session_id ("-" for none). */
char *
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
