/* test-cli-models.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter models [pull NAME | delete NAME]` run as the real binary
 * ($NATTER_BIN) against the scripted Ollama of tests/support, served by
 * this process's main loop while the command runs.
 */

#include <string.h>

#include "natter-json.h"
#include "natter-test-ollama.h"
#include "natter-test-support.h"

#define WAIT_MS 30000

/* g_format_size() keeps a number and its unit together. */
#define NBSP "\xc2\xa0"

typedef struct
{
  GFile            *dir;
  NatterTestOllama *ollama;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->ollama = natter_test_ollama_new ("llama3.2:latest", "qwen2.5:7b", NULL);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_test_ollama_free (f->ollama);
  natter_test_remove_tree (f->dir);
  g_object_unref (f->dir);
}

/* Runs `natter @args…` as @launcher sets it up, while this main loop
 * serves the scripted servers. */
static void
run_launched (GSubprocessLauncher *launcher,
              const char * const  *args,
              NatterTestRun       *result)
{
  g_autoptr(GSubprocess) process = natter_test_cli_spawn (launcher, args);

  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

/* Runs `natter models @args… --base-url <the scripted Ollama>`, with
 * NATTER_STDOUT_IS_TERMINAL set when @terminal. */
static void
run_models (Fixture            *f,
            gboolean            terminal,
            const char * const *args,
            NatterTestRun      *result)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (f->dir);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;

  g_strv_builder_add (builder, "models");
  g_strv_builder_addv (builder, (const char **) args);
  g_strv_builder_add_many (builder, "--base-url", f->ollama->server->base_url, NULL);
  argv = g_strv_builder_end (builder);
  if (terminal)
    g_subprocess_launcher_setenv (launcher, "NATTER_STDOUT_IS_TERMINAL", "1", TRUE);
  else
    g_subprocess_launcher_unsetenv (launcher, "NATTER_STDOUT_IS_TERMINAL");
  run_launched (launcher, (const char * const *) argv, result);
}

#define RUN(f, terminal, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__ }; \
    run_models ((f), (terminal), run_args_, (result)); \
  } G_STMT_END

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_auto(GStrv) lines = NULL;
  g_auto(GStrv) fields = NULL;

  RUN (f, FALSE, &r, NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_cmpstr (lines[2], ==, "");
  fields = g_strsplit (lines[0], "\t", -1);
  g_assert_cmpuint (g_strv_length (fields), ==, 5);
  g_assert_cmpstr (fields[0], ==, "llama3.2:latest");
  g_assert_cmpstr (fields[1], ==, "2.0" NBSP "GB");
  g_assert_cmpstr (fields[2], ==, "3.2B");
  g_assert_cmpstr (fields[3], ==, "Q4_K_M");
  g_assert_true (g_str_has_prefix (fields[4], "2026-11-10 "));
  g_assert_true (g_str_has_prefix (lines[1], "qwen2.5:7b\t"));
}

/* A name is the server's text: what would steer the terminal is shown,
 * not obeyed. */
static void
test_list_control_characters (Fixture       *f,
                              gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  g_ptr_array_add (f->ollama->models, g_strdup ("odd\\u001b[2J\\tname:latest"));
  g_ptr_array_add (f->ollama->models, g_strdup ("photo\\u202egnp.exe"));
  RUN (f, FALSE, &r, NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* The stand-ins every listing uses (README, "Control characters"). */
  g_assert_nonnull (strstr (r.out, "\nodd\u241b[2J\u2409name:latest\t2.0" NBSP "GB\t"));
  g_assert_nonnull (strstr (r.out, "\nphoto\\u202Egnp.exe\t"));
  g_assert_null (strchr (r.out, '\033'));
  g_assert_null (strstr (r.out, "\u202e"));
}

static void
test_list_json (Fixture       *f,
                gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *first;

  RUN (f, FALSE, &r, "--json", NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  root = natter_test_json (r.out);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (root)), ==, 2);
  first = json_array_get_object_element (json_node_get_array (root), 0);
  g_assert_cmpstr (json_object_get_string_member (first, "name"), ==, "llama3.2:latest");
  g_assert_cmpint (json_object_get_int_member (first, "size"), ==, 2019393189);
  g_assert_cmpint (json_object_get_int_member (first, "parameterCount"), ==, 3212749888);
  g_assert_cmpstr (json_object_get_string_member (first, "parameterSize"), ==, "3.2B");
  g_assert_cmpstr (json_object_get_string_member (first, "quantization"), ==, "Q4_K_M");
  g_assert_cmpint (json_object_get_int_member (first, "contextLength"), ==, 131072);
  g_assert_cmpstr (json_object_get_string_member (first, "modified"), ==, "2026-11-10T09:00:00Z");
}

/* Read by another program, a pull says each step on a line of its own. */
static void
test_pull_lines (Fixture       *f,
                 gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  RUN (f, FALSE, &r, "pull", "gemma3:1b", NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==,
                   "pulling manifest\n"
                   "pulling dde5aa3fc5ff (2.0" NBSP "GB)\n"
                   "pulling 966de95ca8a6 (7.7" NBSP "kB)\n"
                   "verifying sha256 digest\n"
                   "writing manifest\n"
                   "success\n");
  g_assert_true (natter_test_ollama_has_model (f->ollama, "gemma3:1b"));
}

/* On a terminal, the bar of each layer is redrawn in place. */
static void
test_pull_terminal (Fixture       *f,
                    gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  RUN (f, TRUE, &r, "pull", "gemma3:1b", NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\r\033[Kpulling dde5aa3fc5ff  50% [############............] "
                                   "1.0" NBSP "GB of 2.0" NBSP "GB"));
  g_assert_nonnull (strstr (r.out, "\r\033[Kpulling dde5aa3fc5ff 100% [########################] "
                                   "2.0" NBSP "GB of 2.0" NBSP "GB\n"));
  g_assert_true (g_str_has_suffix (r.out, "\r\033[Ksuccess\n"));
}

static void
test_pull_fails_halfway (Fixture       *f,
                         gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  f->ollama->pull = NATTER_TEST_PULL_FAILS_HALFWAY;
  RUN (f, FALSE, &r, "pull", "gemma3:1b", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "pulling manifest\npulling dde5aa3fc5ff (2.0" NBSP "GB)\n");
  g_assert_true (g_str_has_prefix (r.err, "natter: The disk of 127.0.0.1 at "));
  g_assert_nonnull (strstr (r.err, " is full: “gemma3:1b” could not be pulled."));
  g_assert_true (g_str_has_suffix (r.err, "no space left on device)\n"));
  g_assert_false (natter_test_ollama_has_model (f->ollama, "gemma3:1b"));
}

static void
test_pull_unknown (Fixture       *f,
                   gconstpointer  data)
{
  g_auto(NatterTestRun) r;

  f->ollama->pull = NATTER_TEST_PULL_UNKNOWN;
  RUN (f, FALSE, &r, "pull", "no-such-model", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "found no model “no-such-model” to pull"));
}

static void
test_delete (Fixture       *f,
             gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) again;

  RUN (f, FALSE, &r, "delete", "qwen2.5:7b", NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "Deleted qwen2.5:7b\n");
  g_assert_false (natter_test_ollama_has_model (f->ollama, "qwen2.5:7b"));

  RUN (f, FALSE, &again, "delete", "qwen2.5:7b", NULL);
  g_assert_cmpint (again.status, ==, 1);
  g_assert_cmpstr (again.out, ==, "");
  g_assert_nonnull (strstr (again.err, "has no model “qwen2.5:7b”"));
}

static void
test_usage (Fixture       *f,
            gconstpointer  data)
{
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) nameless;

  RUN (f, FALSE, &r, "fetch", "x", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "Unknown action “fetch”"));
  RUN (f, FALSE, &nameless, "pull", NULL);
  g_assert_cmpint (nameless.status, ==, 2);
  g_assert_nonnull (strstr (nameless.err, "Name the model"));
  g_assert_cmpuint (f->ollama->server->paths->len, ==, 0);
  /* Blank is no name either, for pull and delete alike: said at once,
   * nothing asked of the server. */
  {
    const char *blanks[] = { "", "   " };

    for (guint i = 0; i < G_N_ELEMENTS (blanks); i++)
      {
        g_auto(NatterTestRun) pull;
        g_auto(NatterTestRun) delete;

        RUN (f, FALSE, &pull, "pull", blanks[i], NULL);
        g_assert_cmpint (pull.status, ==, 2);
        g_assert_nonnull (strstr (pull.err, "Name the model"));
        RUN (f, FALSE, &delete, "delete", blanks[i], NULL);
        g_assert_cmpint (delete.status, ==, 2);
        g_assert_nonnull (strstr (delete.err, "Name the model"));
      }
  }
  g_assert_cmpuint (f->ollama->server->paths->len, ==, 0);

  /* A name with bytes that are not UTF-8 (typed in a Latin-1 terminal)
   * is refused, not pulled under a name with U+FFFD in it. */
  {
    g_auto(NatterTestRun) latin1;

    RUN (f, FALSE, &latin1, "pull", "caf\xe9", NULL);
    g_assert_cmpint (latin1.status, ==, 2);
    g_assert_nonnull (strstr (latin1.err, "A model name must be text in UTF-8"));
    g_assert_cmpuint (f->ollama->server->paths->len, ==, 0);
  }
}

/* Without --base-url, the default provider of the settings; --provider
 * names another of them. */
static void
test_own_providers (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GFile) settings_dir = g_file_resolve_relative_path (f->dir, "glib-2.0/settings");
  g_autoptr(GFile) keyfile = g_file_get_child (settings_dir, "keyfile");
  g_autoptr(NatterTestOllama) other = natter_test_ollama_new ("phi4:latest", NULL);
  g_autofree char *text = g_strdup_printf ("[io/github/natter/Natter]\n"
                                           "providers=[('home', 'Home', '%s'), ('lab', 'Lab', '%s')]\n"
                                           "default-provider='home'\n",
                                           f->ollama->server->base_url, other->server->base_url);
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  const char * const own[] = { "models", NULL };
  const char * const lab[] = { "models", "--provider", "lab", NULL };
  const char * const both[] = { "models", "--provider", "lab", "--base-url", other->server->base_url, NULL };
  g_auto(NatterTestRun) r;
  g_auto(NatterTestRun) r_lab;
  g_auto(NatterTestRun) r_both;

  g_assert_cmpint (g_mkdir_with_parents (g_file_peek_path (settings_dir), 0700), ==, 0);
  g_assert_true (g_file_set_contents (g_file_peek_path (keyfile), text, -1, NULL));

  launcher = natter_test_cli_launcher_new (f->dir);
  g_subprocess_launcher_setenv (launcher, "GSETTINGS_BACKEND", "keyfile", TRUE);
  run_launched (launcher, own, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "llama3.2:latest\t"));

  run_launched (launcher, lab, &r_lab);
  g_assert_cmpint (r_lab.status, ==, 0);
  g_assert_true (g_str_has_prefix (r_lab.out, "phi4:latest\t"));

  run_launched (launcher, both, &r_both);
  g_assert_cmpint (r_both.status, ==, 2);
  g_assert_nonnull (strstr (r_both.err, "not both"));
}

static void
test_server_down (void)
{
  g_autoptr(GFile) dir = natter_test_make_temp_dir ();
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  const char * const args[] = { "models", "--base-url", url, NULL };
  g_auto(NatterTestRun) r;

  natter_test_cli_run (dir, args, &r, WAIT_MS);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is it running?"));
  natter_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL)
    {
      g_test_skip ("NATTER_BIN is not set: the binary is built with the UI only");
      return g_test_run ();
    }

#define ADD(path, fn) g_test_add (path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("/cli-models/list", test_list);
  ADD ("/cli-models/list-json", test_list_json);
  ADD ("/cli-models/list-control-characters", test_list_control_characters);
  ADD ("/cli-models/pull/lines", test_pull_lines);
  ADD ("/cli-models/pull/terminal", test_pull_terminal);
  ADD ("/cli-models/pull/fails-halfway", test_pull_fails_halfway);
  ADD ("/cli-models/pull/unknown", test_pull_unknown);
  ADD ("/cli-models/delete", test_delete);
  ADD ("/cli-models/usage", test_usage);
  ADD ("/cli-models/own-providers", test_own_providers);
  g_test_add_func ("/cli-models/server-down", test_server_down);
#undef ADD

  return g_test_run ();
}
