/* test-attachments-cli.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Attachments end to end through the real `natter` binary ($NATTER_BIN)
 * against the scripted OpenAI-compatible server of tests/support: what
 * `send --attach` and `ask --attach` put in the request body, what is on
 * disk afterwards (blobs, a version-2 turn), what `show` says about
 * missing and damaged blobs, the size limit that writes nothing, and a
 * kill between the blobs and the turn.
 */

#include <string.h>
#include <sys/stat.h>

#include <cairo-pdf.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "natter-test-server.h"
#include "natter-test-support.h"

#define WAIT_MS 30000

#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
#define DONE "data: [DONE]\n\n"
#define ANSWER { .status = 200, .content_type = SSE, .chunks = NATTER_TEST_CHUNKS (CHUNK ("Seen") FINISH DONE) }

/* A 1×1 PNG. */
static const guint8 PNG[] = {
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
  0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
  0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
  0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
  0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
};

typedef struct
{
  GFile            *dir;      /* NATTER_DATA_DIR */
  GFile            *files;    /* what the user attaches */
  NatterTestServer *server;
  char             *png;
  char             *text;
  char             *pdf;
} Fixture;

static char *
write_file (Fixture    *f,
            const char *name,
            const void *data,
            gssize      length)
{
  g_autoptr(GFile) file = g_file_get_child (f->files, name);
  char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, length, &error);
  g_assert_no_error (error);
  return path;
}

static char *
write_pdf (Fixture    *f,
           const char *name,
           const char *text)
{
  g_autoptr(GFile) file = g_file_get_child (f->files, name);
  char *path = g_file_get_path (file);
  cairo_surface_t *surface = cairo_pdf_surface_create (path, 300, 100);
  cairo_t *cr = cairo_create (surface);

  cairo_select_font_face (cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size (cr, 14);
  cairo_move_to (cr, 10, 50);
  cairo_show_text (cr, text);
  cairo_show_page (cr);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);
  return path;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->files = natter_test_make_temp_dir ();
  f->png = write_file (f, "dot.png", PNG, sizeof PNG);
  f->text = write_file (f, "notes.txt", "the word is plum", -1);
  f->pdf = write_pdf (f, "report.pdf", "Quarterly plum harvest");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_pointer (&f->server, natter_test_server_free);
  natter_test_remove_tree (f->dir);
  natter_test_remove_tree (f->files);
  g_object_unref (f->dir);
  g_object_unref (f->files);
  g_free (f->png);
  g_free (f->text);
  g_free (f->pdf);
}

static void
run_natter (Fixture            *f,
            const char         *crash_env,
            const char * const *args,
            NatterTestRun      *result)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (f->dir);
  g_autoptr(GSubprocess) process = NULL;

  if (crash_env != NULL)
    g_subprocess_launcher_setenv (launcher, crash_env, "1", TRUE);
  process = natter_test_cli_spawn (launcher, args);
  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);
}

#define RUN(f, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    run_natter ((f), NULL, run_args_, (result)); \
  } G_STMT_END

/* Runs `natter @args…` with the dynamic linker reporting every object it
 * maps, those opened later by dlopen() included (glibc's LD_DEBUG=files),
 * and returns that report: the libraries the real binary loaded. */
static char *
run_natter_traced (Fixture            *f,
                   const char         *name,
                   const char * const *args,
                   NatterTestRun      *result)
{
  g_autoptr(GSubprocessLauncher) launcher = natter_test_cli_launcher_new (f->dir);
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GFile) trace = g_file_get_child (f->files, name);
  g_autofree char *prefix = g_strconcat (name, ".", NULL);
  g_autoptr(GString) report = g_string_new (NULL);
  g_autoptr(GPtrArray) traces = NULL;

  g_subprocess_launcher_setenv (launcher, "LD_DEBUG", "files", TRUE);
  /* The report goes to NAME.PID, apart from the command's own output. */
  g_subprocess_launcher_setenv (launcher, "LD_DEBUG_OUTPUT", g_file_peek_path (trace), TRUE);
  process = natter_test_cli_spawn (launcher, args);
  memset (result, 0, sizeof *result);
  natter_test_communicate (process, result);
  natter_test_wait_for_flag (&result->done, WAIT_MS);

  traces = natter_test_list_files (f->files, ".");
  for (guint i = 0; i < traces->len; i++)
    {
      const char *path = g_ptr_array_index (traces, i);
      g_autofree char *base = g_path_get_basename (path);
      g_autofree char *contents = NULL;

      if (!g_str_has_prefix (base, prefix))
        continue;
      g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
      g_string_append (report, contents);
    }
  /* The report itself worked: it names what every run maps. */
  g_assert_nonnull (strstr (report->str, "libglib-2.0.so"));
  return g_string_free (g_steal_pointer (&report), FALSE);
}

#define RUN_TRACED(f, name, result, report, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    *(report) = run_natter_traced ((f), (name), run_args_, (result)); \
  } G_STMT_END

static guint
count_files (GFile      *dir,
             const char *relative)
{
  g_autoptr(GPtrArray) paths = natter_test_list_files (dir, relative);

  return paths->len;
}

static char *
blob_path (Fixture    *f,
           const void *data,
           gsize       length)
{
  g_autofree char *sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data, length);
  g_autofree char *dir = g_file_get_path (f->dir);
  char prefix[3] = { sha[0], sha[1], '\0' };

  return g_build_filename (dir, "storage", "blobs", "sha256", prefix, sha, NULL);
}

static char *
turn_of (const char *out)
{
  const char *line = strstr (out, "\nturn ");

  g_assert_nonnull (line);
  return g_strndup (line + strlen ("\nturn "), 32);
}

/* The content array of the last message of request @index. */
static JsonArray *
last_user_content (Fixture *f,
                   guint    index,
                   JsonNode **out_root)
{
  g_autoptr(GError) error = NULL;
  JsonNode *root = json_from_string (g_ptr_array_index (f->server->bodies, index), &error);
  JsonArray *messages;
  JsonObject *last;

  g_assert_no_error (error);
  *out_root = root;
  messages = json_object_get_array_member (json_node_get_object (root), "messages");
  for (guint i = json_array_get_length (messages); i > 0; i--)
    {
      last = json_array_get_object_element (messages, i - 1);
      if (g_str_equal (json_object_get_string_member (last, "role"), "user") &&
          JSON_NODE_HOLDS_ARRAY (json_object_get_member (last, "content")))
        return json_object_get_array_member (last, "content");
    }
  g_assert_not_reached ();
}

static const char *
part_string (JsonArray  *content,
             guint       index,
             const char *member)
{
  return json_object_get_string_member (json_array_get_object_element (content, index), member);
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static void
test_send_image_text_pdf (Fixture       *f,
                          gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER, ANSWER };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *base64 = g_base64_encode (PNG, sizeof PNG);
  g_autofree char *url = g_strconcat ("data:image/png;base64,", base64, NULL);
  g_autofree char *png_blob = blob_path (f, PNG, sizeof PNG);
  g_autofree char *turn_file = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) root2 = NULL;
  g_autoptr(JsonNode) shown = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *content;
  JsonArray *turns;
  JsonArray *attachments;
  struct stat st;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--attach", f->png, "--attach", f->text, "--attach", f->pdf, "Look", "at", "these");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  session_id = natter_test_session_of (r.out);
  turn_id = turn_of (r.out);

  /* The request: the text, the image as a data: URL, the text file and
   * the PDF's text, each headed by its name. */
  g_assert_cmpuint (f->server->bodies->len, ==, 1);
  content = last_user_content (f, 0, &root);
  g_assert_cmpuint (json_array_get_length (content), ==, 4);
  g_assert_cmpstr (part_string (content, 0, "type"), ==, "text");
  g_assert_cmpstr (part_string (content, 0, "text"), ==, "Look at these");
  g_assert_cmpstr (part_string (content, 1, "type"), ==, "image_url");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_array_get_object_element (content, 1), "image_url"), "url"), ==, url);
  g_assert_cmpstr (part_string (content, 2, "type"), ==, "text");
  g_assert_cmpstr (part_string (content, 2, "text"), ==, "File: notes.txt\n\nthe word is plum");
  g_assert_cmpstr (part_string (content, 3, "type"), ==, "text");
  g_assert_true (g_str_has_prefix (part_string (content, 3, "text"), "File: report.pdf"));
  g_assert_nonnull (strstr (part_string (content, 3, "text"), "Quarterly plum harvest"));

  /* On disk: three blobs, private, and a turn at schema version 2. */
  g_assert_cmpuint (count_files (f->dir, "storage/blobs"), ==, 3);
  g_assert_cmpint (stat (png_blob, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  {
    g_autofree char *dir = g_file_get_path (f->dir);
    g_autofree char *contents = NULL;

    turn_file = g_strdup_printf ("%s/storage/turns/%.4s/%.2s/%.2s/%s.jsonl", dir, turn_id, turn_id + 5,
                                 turn_id + 8, turn_id);
    g_file_get_contents (turn_file, &contents, NULL, &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (contents, "\"schemaVersion\":2"));
    g_assert_nonnull (strstr (contents, "\"type\":\"blob\""));
    g_assert_null (strstr (contents, base64));
  }

  /* The next turn's context carries the attachments again. */
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "and", "now?");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  content = last_user_content (f, 1, &root2);
  g_assert_cmpstr (part_string (content, 1, "type"), ==, "image_url");
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "and now?"));
  g_assert_nonnull (strstr (g_ptr_array_index (f->server->bodies, 1), "Quarterly plum harvest"));

  /* show --json lists each turn's attachments. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  shown = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turns = json_object_get_array_member (json_node_get_object (shown), "turns");
  attachments = json_object_get_array_member (json_array_get_object_element (turns, 0), "attachments");
  g_assert_cmpuint (json_array_get_length (attachments), ==, 3);
  {
    g_autofree char *sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, PNG, sizeof PNG);
    g_autofree char *expected = g_strdup_printf ("{\"sha256\":\"%s\",\"mediaType\":\"image/png\","
                                                 "\"name\":\"dot.png\",\"size\":%u}", sha, (guint) sizeof PNG);
    g_autoptr(JsonNode) first = json_node_new (JSON_NODE_OBJECT);

    json_node_set_object (first, json_array_get_object_element (attachments, 0));
    natter_test_assert_json_equal (first, expected);
  }
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (attachments, 2), "mediaType"),
                   ==, "application/pdf");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (turns, 0), "input"),
                   ==, "Look at these");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (json_array_get_object_element (turns, 1),
                                                                         "attachments")), ==, 0);

  /* Deleting the session deletes no blob. */
  natter_test_run_clear (&r);
  RUN (f, &r, "delete", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/sessions"), ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/blobs"), ==, 3);
}

static void
test_ask_attach (Fixture       *f,
                 gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER };
  g_auto(NatterTestRun) r;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *content;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "ask", "--base-url", f->server->base_url, "--model", "m1", "--attach", f->text, "Read", "it");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "Seen\n");
  content = last_user_content (f, 0, &root);
  g_assert_cmpstr (part_string (content, 0, "text"), ==, "Read it");
  g_assert_cmpstr (part_string (content, 1, "text"), ==, "File: notes.txt\n\nthe word is plum");
}

static void
test_size_limit (Fixture       *f,
                 gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER };
  g_auto(NatterTestRun) r;
  g_autoptr(GFile) big = g_file_get_child (f->files, "big.txt");
  g_autofree char *big_path = g_file_get_path (big);
  FILE *stream;

  /* 21 MB of nothing (sparse): refused on its size, before any read. */
  stream = fopen (big_path, "w");
  g_assert_nonnull (stream);
  g_assert_cmpint (ftruncate (fileno (stream), 21 * 1000 * 1000), ==, 0);
  fclose (stream);

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "--attach", f->text,
       "--attach", big_path, "too", "much");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_cmpstr (r.out, ==, "");
  g_assert_nonnull (strstr (r.err, "21.0\u00a0MB"));
  g_assert_nonnull (strstr (r.err, "20.0\u00a0MB"));
  g_assert_cmpuint (f->server->bodies->len, ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/blobs"), ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/sessions"), ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/turns"), ==, 0);
}

/* A file's name is one line of `show`: a newline in it would start a
 * line of its own, and a bidirectional override would turn the rest of
 * the line around ("photo" RLO "gnp.txt" reads "phototxt.png"); both
 * get their stand-ins, as a title's do. */
static void
test_show_names_one_line (Fixture       *f,
                          gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *odd = write_file (f, "photo\u202Egnp.txt\nrest", "plum", -1);

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--attach", odd, "Look");
  g_assert_cmpint (r.status, ==, 0);
  session_id = natter_test_session_of (r.out);
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "attachment: photo\\u202Egnp.txt\u2424rest 4 bytes text/plain\n"));
}

static void
test_missing_and_damaged_blob (Fixture       *f,
                               gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER, ANSWER, ANSWER };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *copy_id = NULL;
  g_autofree char *hint = NULL;
  g_autofree char *note = NULL;
  guint turns_before;
  g_autofree char *png_blob = blob_path (f, PNG, sizeof PNG);
  g_autofree char *text_blob = blob_path (f, "the word is plum", 16);
  g_autofree char *missing = NULL;
  g_autofree char *damaged = NULL;
  g_autoptr(JsonNode) shown = NULL;
  g_autoptr(GError) error = NULL;
  JsonArray *turns;
  JsonArray *attachments;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--attach", f->png, "--attach", f->text, "Look");
  g_assert_cmpint (r.status, ==, 0);
  session_id = natter_test_session_of (r.out);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "Thanks");
  g_assert_cmpint (r.status, ==, 0);

  g_assert_cmpint (g_unlink (png_blob), ==, 0);
  g_file_set_contents (text_blob, "the word is pear", -1, &error);
  g_assert_no_error (error);

  /* show says which attachment of which turn; the other turn is fine. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  missing = g_strdup_printf ("attachment-error: The attachment file %s is missing\n", png_blob);
  damaged = g_strdup_printf ("attachment-error: The attachment file %s is damaged", text_blob);
  g_assert_nonnull (strstr (r.out, "attachment: dot.png"));
  g_assert_nonnull (strstr (r.out, missing));
  g_assert_nonnull (strstr (r.out, damaged));
  g_assert_nonnull (strstr (r.out, "user: Thanks\n"));
  g_assert_nonnull (strstr (r.out, "assistant: Seen\n"));

  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id, "--json");
  g_assert_cmpint (r.status, ==, 0);
  shown = json_from_string (r.out, &error);
  g_assert_no_error (error);
  turns = json_object_get_array_member (json_node_get_object (shown), "turns");
  g_assert_cmpuint (json_array_get_length (turns), ==, 2);
  attachments = json_object_get_array_member (json_array_get_object_element (turns, 0), "attachments");
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (attachments, 0), "error"),
                            png_blob));
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (attachments, 1), "error"),
                            text_blob));

  /* Going on would send the history without them: refused as a history
   * that cannot be read, naming the attachment and its file and the way
   * out; no request is made and no turn written. */
  turns_before = count_files (f->dir, "storage/turns");
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "More");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, png_blob));
  g_assert_nonnull (strstr (r.err, "“dot.png”"));
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  g_assert_true (g_str_has_suffix (r.err, hint));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_cmpuint (count_files (f->dir, "storage/turns"), ==, turns_before);

  /* The way out is a copy that does not carry the unreadable
   * attachments: it ends before the message they came with, and a
   * message goes on from it. */
  natter_test_run_clear (&r);
  RUN (f, &r, "recover", session_id);
  g_assert_cmpint (r.status, ==, 0);
  copy_id = natter_test_session_of (r.out);
  note = g_strdup_printf ("The copy ends where the session cannot be read: %s: the attachment “dot.png” of turn ",
                          png_blob);
  g_assert_true (g_str_has_prefix (r.err, note));
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", copy_id, "--base-url", f->server->base_url, "--model", "m1", "Again");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpuint (f->server->bodies->len, ==, 3);
}

/* An attachment of the history whose bytes changed but kept their size:
 * the first message after it is refused like a missing one, not sent to
 * fail on it, and so is every other until the readable part is copied;
 * no request is made and no turn written. */
static void
test_same_size_damaged_blob (Fixture       *f,
                             gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER, ANSWER };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;
  g_autofree char *hint = NULL;
  g_autofree char *text_blob = blob_path (f, "the word is plum", 16);
  g_autofree char *second = NULL;
  g_autofree char *named = NULL;
  g_autoptr(GError) error = NULL;
  guint turns_before;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1",
       "--attach", f->text, "Read this");
  g_assert_cmpint (r.status, ==, 0);
  session_id = natter_test_session_of (r.out);
  natter_test_run_clear (&r);
  RUN (f, &r, "send", "--session", session_id, "And then");
  g_assert_cmpint (r.status, ==, 0);
  second = g_strndup (strstr (r.out, "\nturn ") + strlen ("\nturn "), 32);
  g_file_set_contents (text_blob, "the word is pear", -1, &error);
  g_assert_no_error (error);

  turns_before = count_files (f->dir, "storage/turns");
  hint = g_strdup_printf ("natter recover %s\n", session_id);
  for (guint i = 0; i < 2; i++)
    {
      natter_test_run_clear (&r);
      RUN (f, &r, "send", "--session", session_id, "More");
      g_assert_cmpint (r.status, ==, 1);
      g_assert_nonnull (strstr (r.err, text_blob));
      g_assert_nonnull (strstr (r.err, "is damaged"));
      g_assert_true (g_str_has_suffix (r.err, hint));
      g_assert_cmpuint (f->server->bodies->len, ==, 2);
      g_assert_cmpuint (count_files (f->dir, "storage/turns"), ==, turns_before);
    }

  /* Another answer to the second message goes on from the first, whose
   * attachment it carries: refused the same way, naming this
   * conversation, not the version made for it and removed again. */
  natter_test_run_clear (&r);
  RUN (f, &r, "retry", second);
  g_assert_cmpint (r.status, ==, 1);
  named = g_strdup_printf ("natter: The history of session %s cannot be read", session_id);
  g_assert_true (g_str_has_prefix (r.err, named));
  g_assert_cmpuint (f->server->bodies->len, ==, 2);
  g_assert_cmpuint (count_files (f->dir, "storage/sessions"), ==, 1);
}

static void
test_kill_between_blob_and_turn (Fixture       *f,
                                 gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER };
  const char * const args[] = { "send", "--base-url", "http://127.0.0.1:1/v1", "--model", "m1",
                                "--attach", f->png, "Look", NULL };
  g_auto(NatterTestRun) r;
  g_autofree char *png_blob = blob_path (f, PNG, sizeof PNG);
  g_autofree char *contents = NULL;
  gsize length;
  g_autoptr(GError) error = NULL;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  run_natter (f, "NATTER_TEST_CRASH_AFTER_BLOBS", args, &r);
  /* Killed by SIGKILL, not exited. */
  g_assert_cmpint (r.status, ==, -1);

  /* An orphan blob, whole, and nothing else. */
  g_assert_cmpuint (count_files (f->dir, "storage/blobs"), ==, 1);
  g_file_get_contents (png_blob, &contents, &length, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (contents, length, PNG, sizeof PNG);
  g_assert_cmpuint (count_files (f->dir, "storage/sessions"), ==, 0);
  g_assert_cmpuint (count_files (f->dir, "storage/turns"), ==, 0);

  /* It is benign: the next run lists nothing and goes on. */
  natter_test_run_clear (&r);
  RUN (f, &r, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "");
}

/* poppler-glib (and what it pulls in) is mapped into the real binary only
 * when a PDF is read: a command that reads none, a listing or a message
 * with a text file, starts without it; the PDF is still read. */
static void
test_poppler_only_for_pdf (Fixture       *f,
                           gconstpointer  data)
{
  const NatterTestResponse script[] = { ANSWER, ANSWER };
  g_auto(NatterTestRun) r;
  g_autofree char *listed = NULL;
  g_autofree char *texted = NULL;
  g_autofree char *pdfed = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *content;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN_TRACED (f, "ld-sessions", &r, &listed, "sessions");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (listed, "poppler"));

  natter_test_run_clear (&r);
  RUN_TRACED (f, "ld-text", &r, &texted, "send", "--no-auto-title", "--base-url", f->server->base_url,
              "--model", "m1", "--attach", f->text, "Read", "it");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (texted, "poppler"));

  natter_test_run_clear (&r);
  RUN_TRACED (f, "ld-pdf", &r, &pdfed, "send", "--no-auto-title", "--base-url", f->server->base_url,
              "--model", "m1", "--attach", f->pdf, "Read", "this");
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (pdfed, "libpoppler-glib.so"));
  content = last_user_content (f, 1, &root);
  g_assert_true (g_str_has_prefix (part_string (content, 1, "text"), "File: report.pdf (text extracted"));
  g_assert_nonnull (strstr (part_string (content, 1, "text"), "Quarterly plum harvest"));
}

static void
test_server_rejects_images (Fixture       *f,
                            gconstpointer  data)
{
  const NatterTestResponse script[] = {
    { .status = 400, .content_type = "application/json",
      .body = "{\"error\":{\"message\":\"this model cannot read images\"}}" },
  };
  g_auto(NatterTestRun) r;
  g_autofree char *session_id = NULL;

  f->server = natter_test_server_new (script, G_N_ELEMENTS (script));
  RUN (f, &r, "send", "--no-auto-title", "--base-url", f->server->base_url, "--model", "m1", "--attach", f->png, "Look");
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "this model cannot read images"));
  session_id = natter_test_session_of (r.out);

  /* The user's message is kept, attachment and all. */
  natter_test_run_clear (&r);
  RUN (f, &r, "show", session_id);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "user: Look\n"));
  g_assert_nonnull (strstr (r.out, "attachment: dot.png"));
  g_assert_null (strstr (r.out, "attachment-error"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL)
    {
      g_test_skip ("NATTER_BIN is not set");
      return g_test_run ();
    }

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/attachments-cli/send-image-text-pdf", test_send_image_text_pdf);
  ADD ("/attachments-cli/ask-attach", test_ask_attach);
  ADD ("/attachments-cli/size-limit", test_size_limit);
  ADD ("/attachments-cli/missing-and-damaged-blob", test_missing_and_damaged_blob);
  ADD ("/attachments-cli/show-names-one-line", test_show_names_one_line);
  ADD ("/attachments-cli/same-size-damaged-blob", test_same_size_damaged_blob);
  ADD ("/attachments-cli/kill-between-blob-and-turn", test_kill_between_blob_and_turn);
  ADD ("/attachments-cli/server-rejects-images", test_server_rejects_images);
  ADD ("/attachments-cli/poppler-only-for-pdf", test_poppler_only_for_pdf);
#undef ADD

  return g_test_run ();
}
