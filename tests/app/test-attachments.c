/* test-attachments.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Stored attachments below the command line: the content-addressed blob
 * store (layout, modes, hash check), reading files into blobs (types,
 * the size limit that writes nothing), what a model receives for each
 * kind (an image as a data: URL, a text file and a PDF's extracted text
 * as text parts headed by the name) and the runtime's rule that a turn
 * is written only after its blobs, at turn schema version 2.
 */

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <glib/gstdio.h>

#include "natter-attachment-content.h"
#include "natter-attachment-intake.h"
#include "natter-attachment-reuse.h"
#include "natter-blob-store.h"
#include "natter-openai-provider.h"
#include "natter-services.h"
#include "natter-store-error.h"
#include "natter-test-support.h"

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
  GFile           *dir;
  GFile           *storage;
  NatterBlobStore *blobs;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = natter_test_make_temp_dir ();
  f->storage = g_file_get_child (f->dir, "storage");
  f->blobs = natter_blob_store_new (f->storage);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_object_unref (f->blobs);
  g_object_unref (f->storage);
  natter_test_remove_tree (f->dir);
  g_object_unref (f->dir);
}

static char *
write_file (Fixture    *f,
            const char *name,
            const void *data,
            gssize      length)
{
  g_autoptr(GFile) file = g_file_get_child (f->dir, name);
  char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, length, &error);
  g_assert_no_error (error);
  return path;
}

/* A one-page PDF whose text is @text, written by cairo. */
static char *
write_pdf (Fixture    *f,
           const char *name,
           const char *text)
{
  g_autoptr(GFile) file = g_file_get_child (f->dir, name);
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
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  return path;
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

static JsonArray *
store_paths (Fixture     *f,
             guint64      limit,
             GError     **error,
             ...)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  const char *path;
  va_list args;

  va_start (args, error);
  while ((path = va_arg (args, const char *)) != NULL)
    {
      g_autoptr(GFile) file = g_file_new_for_path (path);

      g_ptr_array_add (sources, natter_attachment_source_new_for_file (file));
    }
  va_end (args);
  return natter_attachments_store_sync (f->blobs, sources, limit, NULL, error);
}

/* ------------------------------------------------------------------ */
/* The blob store                                                      */
/* ------------------------------------------------------------------ */

static void
test_blob_round_trip (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("test", 4);
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_autofree char *again = NULL;
  g_autofree char *expected_path = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GBytes) read = NULL;
  g_autofree char *storage = g_file_get_path (f->storage);
  struct stat st;

  g_assert_no_error (error);
  g_assert_cmpstr (sha256, ==, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  path = natter_blob_store_dup_path (f->blobs, sha256);
  expected_path = g_build_filename (storage, "blobs", "sha256", "9f", sha256, NULL);
  g_assert_cmpstr (path, ==, expected_path);

  /* Private like the logs: the file 0600, every folder 0700. */
  g_assert_cmpint (stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  for (guint i = 0; i < 3; i++)
    {
      char *dir = g_path_get_dirname (path);

      g_free (path);
      path = dir;
      g_assert_cmpint (stat (path, &st), ==, 0);
      g_assert_cmpint (st.st_mode & 0777, ==, 0700);
    }

  read = natter_blob_store_read_sync (f->blobs, sha256, &error);
  g_assert_no_error (error);
  g_assert_true (g_bytes_equal (read, bytes));
  g_assert_true (natter_blob_store_check_present (f->blobs, sha256, 4, &error));
  g_assert_no_error (error);

  /* The same content is stored once; no temporary file is left. */
  again = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again, ==, sha256);
  g_assert_cmpuint (count_files (f->storage), ==, 1);
}

static void
test_blob_hash_check (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("test", 4);
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_autofree char *path = natter_blob_store_dup_path (f->blobs, sha256);
  g_autoptr(GBytes) read = NULL;

  g_assert_no_error (error);

  /* Damaged: refused on read, and never referenced again by a put. */
  g_assert_cmpint (chmod (path, 0600), ==, 0);
  g_file_set_contents (path, "tesT", 4, &error);
  g_assert_no_error (error);
  read = natter_blob_store_read_sync (f->blobs, sha256, &error);
  g_assert_null (read);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  g_assert_null (natter_blob_store_put_sync (f->blobs, bytes, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_clear_error (&error);

  /* Missing. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  read = natter_blob_store_read_sync (f->blobs, sha256, &error);
  g_assert_null (read);
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  g_assert_false (natter_blob_store_check_present (f->blobs, sha256, 4, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A name that is not a hash is never made into a path. */
  g_assert_null (natter_blob_store_read_sync (f->blobs, "../../turns", &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID);
}

/* The whole check hashes a blob once as its file is, and again when the
 * file changed, even in place and to the same size. */
static void
test_blob_whole_check (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static ("test", 4);
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_autofree char *path = natter_blob_store_dup_path (f->blobs, sha256);
  int fd;

  g_assert_no_error (error);
  g_assert_true (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_no_error (error);
  g_assert_true (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_no_error (error);

  /* Written over in place: the same file, the same size, other bytes. */
  fd = open (path, O_WRONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, "tesT", 4), ==, 4);
  g_assert_cmpint (close (fd), ==, 0);
  g_assert_true (natter_blob_store_check_present (f->blobs, sha256, 4, &error));
  g_assert_false (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_assert_nonnull (strstr (error->message, path));
  g_clear_error (&error);
  /* Still damaged when asked again: a failed check is not remembered as
   * whole. */
  g_assert_false (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_clear_error (&error);

  /* Mended: whole again. Of another size, or missing: said so. */
  g_file_set_contents (path, "test", 4, &error);
  g_assert_no_error (error);
  g_assert_true (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_no_error (error);
  g_assert_false (natter_blob_store_check_whole_sync (f->blobs, sha256, 5, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
  g_clear_error (&error);
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_false (natter_blob_store_check_whole_sync (f->blobs, sha256, 4, &error));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
}

/* ------------------------------------------------------------------ */
/* Files into blobs                                                    */
/* ------------------------------------------------------------------ */

static void
test_store_files (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
  g_autofree char *text = write_file (f, "notes.txt", "the word is plum\n", -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = store_paths (f, 1000, &error, png, text, NULL);
  g_autoptr(JsonObject) message = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *png_sha = g_compute_checksum_for_data (G_CHECKSUM_SHA256, PNG, sizeof PNG);
  g_autofree char *text_sha = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "the word is plum\n", -1);
  g_autofree char *expected = NULL;

  g_assert_no_error (error);
  message = natter_user_message_new ("Look", parts);
  json_node_set_object (node, message);
  expected = g_strdup_printf ("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Look\"},"
                              "{\"type\":\"blob\",\"sha256\":\"%s\",\"mediaType\":\"image/png\",\"name\":\"dot.png\","
                              "\"size\":%u},"
                              "{\"type\":\"blob\",\"sha256\":\"%s\",\"mediaType\":\"text/plain\","
                              "\"name\":\"notes.txt\",\"size\":17}]}",
                              png_sha, (guint) sizeof PNG, text_sha);
  natter_test_assert_json_equal (node, expected);
  g_assert_cmpuint (count_files (f->storage), ==, 2);

  /* Without attachments the message stays a plain string. */
  {
    g_autoptr(JsonObject) plain = natter_user_message_new ("Hi", NULL);

    g_assert_cmpstr (json_object_get_string_member (plain, "content"), ==, "Hi");
  }
}

static void
test_size_limit_writes_nothing (Fixture       *f,
                                gconstpointer  data)
{
  g_autofree char *text = write_file (f, "notes.txt", "0123456789", -1);
  g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = NULL;

  /* Each alone fits; together they do not. */
  parts = store_paths (f, sizeof PNG + 9, &error, png, text, NULL);
  g_assert_null (parts);
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE);
  g_assert_false (g_file_query_exists (f->storage, NULL));
}

static void
test_unsupported_writes_nothing (Fixture       *f,
                                 gconstpointer  data)
{
  static const guint8 zip[] = { 'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0 };
  static const char latin1[] = { 'c', 'a', 'f', (char) 0xe9, '\n', 0 };
  g_autofree char *text = write_file (f, "notes.txt", "fine", -1);
  g_autofree char *archive = write_file (f, "a.zip", zip, sizeof zip);
  g_autofree char *old_text = write_file (f, "old.txt", latin1, -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = NULL;

  parts = store_paths (f, 1000, &error, text, archive, NULL);
  g_assert_null (parts);
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (error->message, "a.zip"));
  g_clear_error (&error);

  parts = store_paths (f, 1000, &error, old_text, NULL);
  g_assert_null (parts);
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
  g_clear_error (&error);

  /* Text no stored string can hold, a NUL or a surrogate encoded as
   * UTF-8 would be, is refused, never cut or changed (docs/format.md
   * §2). */
  {
    static const char nul[] = { 'a', 0, 'b', '\n' };
    static const char surrogate[] = { 'a', (char) 0xed, (char) 0xa0, (char) 0x80, 'b', '\n' };
    g_autofree char *with_nul = write_file (f, "nul.txt", nul, sizeof nul);
    g_autofree char *with_surrogate = write_file (f, "surrogate.txt", surrogate, sizeof surrogate);

    parts = store_paths (f, 1000, &error, with_nul, NULL);
    g_assert_null (parts);
    g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
    g_clear_error (&error);
    parts = store_paths (f, 1000, &error, with_surrogate, NULL);
    g_assert_null (parts);
    g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
    g_clear_error (&error);
  }

  /* A folder is no attachment. */
  {
    g_autofree char *dir = g_file_get_path (f->dir);

    parts = store_paths (f, 1000, &error, dir, NULL);
    g_assert_null (parts);
    g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE);
  }
  g_assert_false (g_file_query_exists (f->storage, NULL));
}

/* The type is what the bytes are: the name only refines text. A file
 * named like an image or a PDF that is not one, a PDF that cannot be
 * opened and an image cut short are refused when attached, in words that
 * say why; nothing is written. */
static void
test_type_from_content (Fixture       *f,
                        gconstpointer  data)
{
  static const guint8 noise[] = { 0x00, 0xff, 0x13, 0x37, 0x00, 0x80, 0x81, 0xfe };
  g_autofree char *text_png = write_file (f, "fake.png", "not an image at all\n", -1);
  g_autofree char *noise_png = write_file (f, "noise.png", noise, sizeof noise);
  g_autofree char *broken_pdf = write_file (f, "broken.pdf", "%PDF-1.4\n1 0 obj\n<< /Type /Catalog", -1);
  g_autofree char *cut_png = write_file (f, "cut.png", PNG, 40);
  g_autofree char *png_as_txt = write_file (f, "dot.txt", PNG, sizeof PNG);
  g_autofree char *script = write_file (f, "tool.py", "print ('hi')\n", -1);
  g_autofree char *real_pdf = write_pdf (f, "real.pdf", "Plums");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = NULL;
  struct { const char *path; const char *name; const char *says; } refused[] = {
    { text_png, "fake.png", "holds text" },
    { noise_png, "noise.png", "it is not one" },
    { broken_pdf, "broken.pdf", "damaged PDF" },
    { cut_png, "cut.png", "damaged image" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      parts = store_paths (f, 1000, &error, refused[i].path, NULL);
      g_assert_null (parts);
      g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, refused[i].name));
      g_assert_nonnull (strstr (error->message, refused[i].says));
      g_clear_error (&error);
    }
  g_assert_false (g_file_query_exists (f->storage, NULL));

  /* Pasted content claimed to be an image is held to it too. */
  {
    g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
    g_autoptr(GBytes) bytes = g_bytes_new_static ("<html>", 6);

    g_ptr_array_add (sources, natter_attachment_source_new_for_bytes (bytes, "Pasted image.png", "image/png"));
    g_assert_null (natter_attachments_store_sync (f->blobs, sources, 1000, NULL, &error));
    g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
    g_clear_error (&error);
  }

  /* The bytes decide; the name refines text. */
  parts = store_paths (f, 100000, &error, png_as_txt, script, real_pdf, NULL);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (parts, 0), "mediaType"), ==,
                   "image/png");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (parts, 1), "mediaType"), ==,
                   "text/x-python");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (parts, 2), "mediaType"), ==,
                   "application/pdf");
}

/* Rounded sizes that look the same are given to the byte. */
static void
test_size_message_shows_difference (Fixture       *f,
                                    gconstpointer  data)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  g_autofree char *over = g_malloc0 (20000001);
  g_autoptr(GBytes) a = NULL;
  g_autoptr(GBytes) b = NULL;
  g_autofree char *total = g_format_size_full (20000001, G_FORMAT_SIZE_LONG_FORMAT);
  g_autofree char *limit = g_format_size_full (20000000, G_FORMAT_SIZE_LONG_FORMAT);
  g_autoptr(GError) error = NULL;

  memset (over, 'a', 20000001);
  a = g_bytes_new_static (over, 10000000);
  b = g_bytes_new_static (over + 10000000, 10000001);
  g_ptr_array_add (sources, natter_attachment_source_new_for_bytes (a, "a.txt", "text/plain"));
  g_ptr_array_add (sources, natter_attachment_source_new_for_bytes (b, "b.txt", "text/plain"));
  g_assert_null (natter_attachments_store_sync (f->blobs, sources, 20000000, NULL, &error));
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE);
  g_test_message ("%s", error->message);
  g_assert_cmpstr (total, !=, limit);
  g_assert_nonnull (strstr (error->message, total));
  g_assert_nonnull (strstr (error->message, limit));
  g_clear_error (&error);

  /* Sizes that differ when rounded stay short. */
  g_ptr_array_set_size (sources, 1);
  g_assert_null (natter_attachments_store_sync (f->blobs, sources, 1000000, NULL, &error));
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE);
  g_assert_null (strstr (error->message, "bytes"));
  g_assert_nonnull (strstr (error->message, "a.txt"));
  g_assert_false (g_file_query_exists (f->storage, NULL));
}

static void
checked_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static gboolean
check_path (const char  *path,
            guint64      limit,
            guint64     *out_size,
            GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(NatterAttachmentSource) source = natter_attachment_source_new_for_file (file);
  g_autoptr(GAsyncResult) result = NULL;

  natter_attachment_source_check_async (source, limit, NULL, checked_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  return natter_attachment_source_check_finish (result, out_size, error);
}

/* What the window asks of each file as it is attached. */
static void
test_check_one_file (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
  g_autofree char *fake = write_file (f, "fake.png", "text", -1);
  g_autofree char *dir = g_file_get_path (f->dir);
  g_autoptr(GError) error = NULL;
  guint64 size = 0;

  g_assert_true (check_path (png, 1000, &size, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (size, ==, sizeof PNG);

  g_assert_false (check_path (png, 10, NULL, &error));
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_TOO_LARGE);
  g_assert_nonnull (strstr (error->message, "dot.png"));
  g_clear_error (&error);
  g_assert_false (check_path (fake, 1000, NULL, &error));
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNSUPPORTED);
  g_clear_error (&error);
  g_assert_false (check_path (dir, 1000, NULL, &error));
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE);
  g_assert_false (g_file_query_exists (f->storage, NULL));
}

/* ------------------------------------------------------------------ */
/* What the model receives                                             */
/* ------------------------------------------------------------------ */

static void
test_pdf_text (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *pdf = write_pdf (f, "report.pdf", "Quarterly plum harvest");
  g_autofree char *contents = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  g_file_get_contents (pdf, &contents, &length, &error);
  g_assert_no_error (error);
  bytes = g_bytes_new (contents, length);
  text = natter_attachment_pdf_extract_text (bytes, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (text, "Quarterly plum harvest"));

  /* Not a PDF: an error, not an empty text. */
  {
    g_autoptr(GBytes) junk = g_bytes_new_static ("%PDF-nonsense", 13);

    g_assert_null (natter_attachment_pdf_extract_text (junk, &error));
    g_assert_nonnull (error);
  }
}

static gboolean
poppler_mapped (void)
{
  g_autofree char *maps = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  return strstr (maps, "libpoppler") != NULL;
}

/* poppler-glib is mapped by the first PDF read (attached or expanded),
 * not by linking the core library: a process that attaches and expands
 * only images and text never maps it.
 * In a subprocess, so that no earlier case has loaded it. */
static void
test_pdf_loads_poppler (Fixture       *f,
                        gconstpointer  data)
{
  if (g_test_subprocess ())
    {
      g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
      g_autofree char *text = write_file (f, "notes.txt", "the word is plum", -1);
      g_autofree char *pdf = write_pdf (f, "report.pdf", "Quarterly plum harvest");
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonArray) parts = store_paths (f, 1000000, &error, png, text, NULL);
      g_autoptr(JsonArray) pdf_parts = NULL;
      g_autoptr(JsonArray) messages = json_array_new ();
      g_autoptr(JsonArray) pdf_messages = json_array_new ();
      g_autoptr(JsonArray) expanded = NULL;
      g_autofree char *read = NULL;

      g_assert_no_error (error);
      g_assert_false (poppler_mapped ());
      json_array_add_object_element (messages, natter_user_message_new ("Look", parts));
      expanded = natter_attachments_expand_sync (f->blobs, messages, &error);
      g_assert_no_error (error);
      g_assert_false (poppler_mapped ());

      /* Attaching a PDF reads it (to refuse a damaged or locked one). */
      pdf_parts = store_paths (f, 1000000, &error, pdf, NULL);
      g_assert_no_error (error);
      g_assert_true (poppler_mapped ());
      g_clear_pointer (&expanded, json_array_unref);
      json_array_add_object_element (pdf_messages, natter_user_message_new ("Read", pdf_parts));
      expanded = natter_attachments_expand_sync (f->blobs, pdf_messages, &error);
      g_assert_no_error (error);
      read = json_to_string (json_array_get_element (expanded, 0), FALSE);
      g_assert_nonnull (strstr (read, "plum harvest"));
      g_assert_true (poppler_mapped ());
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_expand_and_encode (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
  g_autofree char *text = write_file (f, "notes.txt", "the word is plum", -1);
  g_autofree char *pdf = write_pdf (f, "report.pdf", "Quarterly plum harvest");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = store_paths (f, 1000000, &error, png, text, pdf, NULL);
  g_autoptr(JsonObject) message = natter_user_message_new ("Look", parts);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(JsonArray) expanded = NULL;
  g_autoptr(JsonObject) composed = json_object_new ();
  g_autoptr(NatterOpenaiProvider) provider = natter_openai_provider_new ("t", "T", "http://127.0.0.1:1/v1",
                                                                         NULL, 0, 0);
  g_autoptr(JsonNode) body = NULL;
  g_autofree char *base64 = g_base64_encode (PNG, sizeof PNG);
  g_autofree char *url = g_strconcat ("data:image/png;base64,", base64, NULL);
  JsonArray *content;
  JsonObject *wire_message;

  g_assert_no_error (error);
  json_array_add_object_element (messages, json_object_ref (message));
  expanded = natter_attachments_expand_sync (f->blobs, messages, &error);
  g_assert_no_error (error);
  /* The stored message is left as it was. */
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (message, "content"), 1), "type"), ==, "blob");

  json_object_set_string_member (composed, "systemPrompt", "");
  json_object_set_array_member (composed, "messages", json_array_ref (expanded));
  body = natter_openai_provider_encode_request (provider, composed, "m", &error);
  g_assert_no_error (error);
  wire_message = json_array_get_object_element (json_object_get_array_member (json_node_get_object (body),
                                                                              "messages"), 0);
  content = json_object_get_array_member (wire_message, "content");
  g_assert_cmpuint (json_array_get_length (content), ==, 4);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 0), "text"), ==, "Look");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 1), "type"), ==,
                   "image_url");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_array_get_object_element (content, 1), "image_url"), "url"), ==, url);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 2), "type"), ==, "text");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (content, 2), "text"), ==,
                   "File: notes.txt\n\nthe word is plum");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (json_array_get_object_element (content, 3), "text"),
                                   "File: report.pdf (text extracted from the PDF)\n\n"));
  g_assert_nonnull (strstr (json_object_get_string_member (json_array_get_object_element (content, 3), "text"),
                            "Quarterly plum harvest"));

  /* A damaged blob fails the whole request, naming the file. */
  {
    JsonObject *part = json_array_get_object_element (parts, 1);
    g_autofree char *path = natter_blob_store_dup_path (f->blobs, json_object_get_string_member (part, "sha256"));
    g_autoptr(JsonArray) again = NULL;

    g_file_set_contents (path, "the word is pear", -1, &error);
    g_assert_no_error (error);
    again = natter_attachments_expand_sync (f->blobs, messages, &error);
    g_assert_null (again);
    g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_CORRUPT);
    g_assert_nonnull (strstr (error->message, "notes.txt"));
    g_assert_nonnull (strstr (error->message, path));
  }
}

/* ------------------------------------------------------------------ */
/* Blob before turn                                                    */
/* ------------------------------------------------------------------ */

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GError **out = user_data;
  g_autoptr(NatterTurnCreated) created = NULL;
  GError *error = NULL;

  created = natter_turn_runtime_create_turn_finish (NATTER_TURN_RUNTIME (object), result, &error);
  *out = error != NULL ? error : g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "created");
}

static GError *
create_turn (NatterServices *services,
             JsonObject     *input)
{
  g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"assistant\","
                                                "\"overrides\":{\"model\":{\"provider\":\"http://127.0.0.1:1/v1\","
                                                "\"model\":\"m\"}}}");
  g_autoptr(JsonNode) config = natter_test_json ("{\"humanAvailable\":true}");
  GError *error = NULL;

  natter_turn_runtime_create_turn_async (natter_services_get_runtime (services), json_node_get_object (agent),
                                         NULL, NULL, input, json_node_get_object (config), NULL,
                                         created_cb, &error);
  natter_test_wait_for_pointer ((gpointer *) &error, 5000);
  return error;
}

static void
test_turn_after_blob (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(NatterServices) services = natter_services_new (f->dir, NULL, NULL, NULL, NULL);
  g_autoptr(GBytes) bytes = g_bytes_new_static ("test", 4);
  g_autoptr(JsonNode) input = natter_test_json (
    "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Look\"},"
    "{\"type\":\"blob\",\"sha256\":\"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\","
    "\"mediaType\":\"text/plain\",\"name\":\"t.txt\",\"size\":4}]}");
  g_autoptr(GFile) turns = g_file_resolve_relative_path (f->dir, "storage/turns");
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = NULL;

  /* No blob yet: the turn is refused and no turn file is written. */
  error = create_turn (services, json_node_get_object (input));
  g_assert_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "t.txt"));
  g_assert_cmpuint (count_files (turns), ==, 0);
  g_clear_error (&error);

  /* Once the blob is stored the turn is created, at version 2. */
  sha256 = natter_blob_store_put_sync (natter_services_get_blob_store (services), bytes, &error);
  g_assert_no_error (error);
  error = create_turn (services, json_node_get_object (input));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
  g_clear_error (&error);
  g_assert_cmpuint (count_files (turns), ==, 1);

  /* A turn without attachments stays at version 1. */
  {
    g_autoptr(JsonNode) plain = natter_test_json ("{\"role\":\"user\",\"content\":\"hi\"}");

    g_assert_false (natter_attachments_in_turn (json_node_get_object (plain), NULL));
    g_assert_true (natter_attachments_in_turn (json_node_get_object (input), NULL));
  }
}

static void
loaded_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* The attachments of a sent message read back for a new one (an edit)
 * keep their names and types, and stored again are the same blobs: the
 * new message references what the old one did. */
static void
test_load_for_new_message (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *png = write_file (f, "dot.png", PNG, sizeof PNG);
  g_autofree char *text = write_file (f, "notes.txt", "the word is plum\n", -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = store_paths (f, 1000, &error, png, text, NULL);
  g_autoptr(JsonObject) message = natter_user_message_new ("Look", parts);
  g_autoptr(GPtrArray) blob_parts = natter_message_dup_blob_parts (message);
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(JsonArray) again = NULL;
  g_autoptr(JsonNode) before = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonNode) after = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GAsyncResult) result = NULL;
  g_autofree char *blob_path = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (blob_parts->len, ==, 2);
  sources = natter_attachments_load_sync (f->blobs, blob_parts, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sources->len, ==, 2);
  g_assert_cmpstr (natter_attachment_source_get_name (sources->pdata[0]), ==, "dot.png");
  g_assert_cmpstr (natter_attachment_source_get_media_type (sources->pdata[0]), ==, "image/png");
  g_assert_cmpstr (natter_attachment_source_get_name (sources->pdata[1]), ==, "notes.txt");
  g_assert_cmpstr (natter_attachment_source_get_media_type (sources->pdata[1]), ==, "text/plain");

  again = natter_attachments_store_sync (f->blobs, sources, 1000, NULL, &error);
  g_assert_no_error (error);
  json_node_set_array (before, parts);
  json_node_set_array (after, again);
  g_assert_true (json_node_equal (before, after));
  g_assert_cmpuint (count_files (f->storage), ==, 2);

  /* In a worker thread, the same. */
  g_clear_pointer (&sources, g_ptr_array_unref);
  natter_attachments_load_async (f->blobs, blob_parts, NULL, loaded_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, 10000);
  sources = natter_attachments_load_finish (result, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sources->len, ==, 2);
  g_clear_object (&result);

  /* A blob gone: the message's attachments cannot be carried, and the
   * error names the one missing. */
  g_clear_pointer (&sources, g_ptr_array_unref);
  blob_path = natter_blob_store_dup_path (f->blobs, json_object_get_string_member (blob_parts->pdata[1], "sha256"));
  g_assert_cmpint (g_unlink (blob_path), ==, 0);
  sources = natter_attachments_load_sync (f->blobs, blob_parts, NULL, &error);
  g_assert_null (sources);
  g_assert_error (error, NATTER_ATTACHMENT_ERROR, NATTER_ATTACHMENT_ERROR_UNREADABLE);
  g_assert_nonnull (strstr (error->message, "notes.txt"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/attachments/blob-round-trip", test_blob_round_trip);
  ADD ("/attachments/blob-hash-check", test_blob_hash_check);
  ADD ("/attachments/blob-whole-check", test_blob_whole_check);
  ADD ("/attachments/store-files", test_store_files);
  ADD ("/attachments/size-limit-writes-nothing", test_size_limit_writes_nothing);
  ADD ("/attachments/unsupported-writes-nothing", test_unsupported_writes_nothing);
  ADD ("/attachments/type-from-content", test_type_from_content);
  ADD ("/attachments/size-message-shows-difference", test_size_message_shows_difference);
  ADD ("/attachments/check-one-file", test_check_one_file);
  ADD ("/attachments/pdf-text", test_pdf_text);
  ADD ("/attachments/pdf-loads-poppler", test_pdf_loads_poppler);
  ADD ("/attachments/expand-and-encode", test_expand_and_encode);
  ADD ("/attachments/turn-after-blob", test_turn_after_blob);
  ADD ("/attachments/load-for-new-message", test_load_for_new_message);
#undef ADD

  return g_test_run ();
}
