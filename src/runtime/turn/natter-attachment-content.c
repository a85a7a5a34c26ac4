/* natter-attachment-content.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a model receives for a stored attachment (docs/format.md §4.1,
 * docs/runtime.md §12). The turn file keeps only the reference `{type:
 * "blob", sha256, mediaType, name, size}`; the bytes are read from the
 * blob store each time a request is built, so every later turn's context
 * carries the attachment again, exactly as stored. The composed request
 * then holds parts that exist only on the way to the wire:
 *
 * - `{type: "attachment-image", url}`: an image as a `data:` URL;
 * - `{type: "attachment-text", text}`: a text file, or a PDF's extracted
 *   text, headed by the file's name.
 *
 * A blob that is missing or no longer matches its hash fails the request
 * with an error naming the file: the model is never sent a message with
 * an attachment silently left out.
 */

#define G_LOG_DOMAIN "natter-attachments"

#include "config.h"

#include <string.h>

#include <gmodule.h>
/* The header only, for the prototypes the symbols are checked against:
 * the library itself is loaded when the first PDF is read (below). */
#include <poppler.h>

#include "natter-attachment-content.h"
#include "natter-runtime-error.h"

/**
 * natter_attachment_kind_for_media_type:
 * @media_type: (nullable): a MIME type such as `image/png`
 *
 * Which of the shapes of docs/runtime.md §12 a type is sent in.
 *
 * Returns: the kind; %NATTER_ATTACHMENT_KIND_NONE for a type no model
 *   reads (archives, audio, office documents…)
 */
NatterAttachmentKind
natter_attachment_kind_for_media_type (const char *media_type)
{
  static const char * const images[] = { "image/png", "image/jpeg", "image/gif", "image/webp", NULL };
  static const char * const texts[] = {
    "application/json", "application/xml", "application/javascript", "application/x-shellscript",
    "application/x-yaml", "application/toml", "application/sql", "application/x-python",
    "application/x-perl", "application/x-ruby", "application/x-php", "application/ld+json", NULL
  };

  if (media_type == NULL)
    return NATTER_ATTACHMENT_KIND_NONE;
  if (g_strv_contains (images, media_type))
    return NATTER_ATTACHMENT_KIND_IMAGE;
  if (g_str_equal (media_type, "application/pdf"))
    return NATTER_ATTACHMENT_KIND_PDF;
  if (g_str_has_prefix (media_type, "text/") || g_strv_contains (texts, media_type))
    return NATTER_ATTACHMENT_KIND_TEXT;
  {
    g_autofree char *type = g_content_type_from_mime_type (media_type);

    if (type != NULL && g_content_type_is_a (type, "text/plain"))
      return NATTER_ATTACHMENT_KIND_TEXT;
  }
  return NATTER_ATTACHMENT_KIND_NONE;
}

/* poppler-glib and the libraries under it (poppler itself, its font,
 * image and colour libraries) are mapped only into a process that reads a
 * PDF: every `natter` command and every window that never sees one starts
 * without them. The library is opened by its soname (checked by the
 * configure step, NATTER_POPPLER_GLIB_SONAME), so the dynamic linker's own
 * search finds it the same way uninstalled, installed and in the Flatpak
 * (/app/lib), and each symbol is typed by its prototype in poppler.h. It
 * stays loaded: it registers GTypes. */
typedef struct
{
  __typeof__ (poppler_document_new_from_bytes) *document_new_from_bytes;
  __typeof__ (poppler_document_get_n_pages) *document_get_n_pages;
  __typeof__ (poppler_document_get_page) *document_get_page;
  __typeof__ (poppler_page_get_text) *page_get_text;
  __typeof__ (poppler_error_quark) *error_quark;
} Poppler;

static gboolean
poppler_symbol (GModule     *module,
                const char  *name,
                gpointer    *symbol,
                char       **failure)
{
  if (*failure != NULL)
    return FALSE;
  if (!g_module_symbol (module, name, symbol) || *symbol == NULL)
    *failure = g_strdup_printf ("%s has no %s", NATTER_POPPLER_GLIB_SONAME, name);
  return *failure == NULL;
}

/* The loaded library, or NULL with why it could not be loaded: tried once
 * per process, from whichever thread reads the first PDF. */
static const Poppler *
poppler_get (GError **error)
{
  static gsize once;
  static Poppler poppler;
  static char *failure;

  if (g_once_init_enter (&once))
    {
      GModule *module = g_module_open (NATTER_POPPLER_GLIB_SONAME, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);

      if (module == NULL)
        failure = g_strdup (g_module_error ());
      else
        {
          poppler_symbol (module, "poppler_document_new_from_bytes",
                          (gpointer *) &poppler.document_new_from_bytes, &failure);
          poppler_symbol (module, "poppler_document_get_n_pages",
                          (gpointer *) &poppler.document_get_n_pages, &failure);
          poppler_symbol (module, "poppler_document_get_page",
                          (gpointer *) &poppler.document_get_page, &failure);
          poppler_symbol (module, "poppler_page_get_text",
                          (gpointer *) &poppler.page_get_text, &failure);
          poppler_symbol (module, "poppler_error_quark",
                          (gpointer *) &poppler.error_quark, &failure);
          g_module_make_resident (module);
        }
      g_once_init_leave (&once, 1);
    }
  if (failure != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "PDF text cannot be read: poppler-glib could not be loaded (%s)", failure);
      return NULL;
    }
  return &poppler;
}

/**
 * natter_attachment_pdf_extract_text:
 * @bytes: the bytes of a PDF
 * @error: return location for a #GError
 *
 * The text of every page of a PDF (poppler-glib), pages separated by an
 * empty line. poppler-glib is loaded into the process on the first call
 * (docs/runtime.md, "Decisions worth knowing"). Blocks: for worker
 * threads.
 *
 * Returns: (transfer full) (nullable): the text, possibly empty (a
 *   scanned PDF has none), or %NULL with a `POPPLER_ERROR` when the bytes
 *   are not a readable PDF, or %G_IO_ERROR_NOT_SUPPORTED when
 *   poppler-glib cannot be loaded
 */
char *
natter_attachment_pdf_extract_text (GBytes  *bytes,
                                    GError **error)
{
  const Poppler *poppler;
  g_autoptr(GObject) document = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  int n_pages;

  g_return_val_if_fail (bytes != NULL, NULL);

  poppler = poppler_get (error);
  if (poppler == NULL)
    return NULL;
  /* poppler-glib 22 declares no autoptr cleanups: hold it as a GObject.
   * Plain casts: the checked-cast macros would call poppler's get_type
   * functions, which this library does not link. */
  document = (GObject *) poppler->document_new_from_bytes (bytes, NULL, error);
  if (document == NULL)
    return NULL;
  n_pages = poppler->document_get_n_pages ((PopplerDocument *) document);
  for (int i = 0; i < n_pages; i++)
    {
      g_autoptr(GObject) page = (GObject *) poppler->document_get_page ((PopplerDocument *) document, i);
      g_autofree char *page_text = page != NULL ? poppler->page_get_text ((PopplerPage *) page) : NULL;

      if (page_text == NULL || page_text[0] == '\0')
        continue;
      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append (text, page_text);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/**
 * natter_attachment_pdf_check:
 * @bytes: bytes that look like a PDF
 * @error: return location for a #GError
 *
 * Whether poppler-glib can open the PDF, as a model request will when it
 * extracts its text (natter_attachment_pdf_extract_text()): checked when
 * the file is attached, so that a damaged or locked PDF is refused then
 * rather than failing every later turn of the conversation. Blocks: for
 * worker threads.
 *
 * Like natter_attachment_pdf_extract_text(), it loads poppler-glib on
 * the first call.
 *
 * Returns: %TRUE when it opens; else %FALSE with a `POPPLER_ERROR`
 *   (natter_attachment_pdf_error_is_locked() tells one that needs a
 *   password), or %G_IO_ERROR_NOT_SUPPORTED when poppler-glib cannot be
 *   loaded
 */
gboolean
natter_attachment_pdf_check (GBytes  *bytes,
                             GError **error)
{
  const Poppler *poppler;
  g_autoptr(GObject) document = NULL;

  g_return_val_if_fail (bytes != NULL, FALSE);

  poppler = poppler_get (error);
  if (poppler == NULL)
    return FALSE;
  document = (GObject *) poppler->document_new_from_bytes (bytes, NULL, error);
  return document != NULL;
}

/**
 * natter_attachment_pdf_error_is_locked:
 * @error: an error of natter_attachment_pdf_check() or
 *   natter_attachment_pdf_extract_text()
 *
 * Whether poppler-glib refused the PDF because it needs a password
 * (`POPPLER_ERROR_ENCRYPTED`). The error domain is poppler's, which this
 * library only knows once poppler-glib is loaded: an error that came from
 * it means it is.
 *
 * Returns: %TRUE for a PDF locked with a password
 */
gboolean
natter_attachment_pdf_error_is_locked (const GError *error)
{
  const Poppler *poppler;

  g_return_val_if_fail (error != NULL, FALSE);

  if (error->domain == G_IO_ERROR || (poppler = poppler_get (NULL)) == NULL)
    return FALSE;
  return g_error_matches (error, poppler->error_quark (), POPPLER_ERROR_ENCRYPTED);
}

/**
 * natter_attachments_in_turn:
 * @input: (transfer none): the turn's user message
 * @context: (transfer none) (nullable): the turn's context
 *
 * Returns: whether the `turn_created` of this input and context carries a
 *   stored attachment, and is therefore written at turn schema version 2
 */
gboolean
natter_attachments_in_turn (JsonObject *input,
                            JsonNode   *context)
{
  g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (input);

  return parts->len > 0 ||
         (context != NULL && JSON_NODE_HOLDS_ARRAY (context) &&
          natter_messages_have_blob_parts (json_node_get_array (context)));
}

static gboolean
check_message (NatterBlobStore  *blobs,
               JsonObject       *message,
               GError          **error)
{
  g_autoptr(GPtrArray) parts = natter_message_dup_blob_parts (message);

  for (guint i = 0; i < parts->len; i++)
    {
      JsonObject *part = g_ptr_array_index (parts, i);
      const char *name = json_object_get_string_member_with_default (part, "name", "");

      if (blobs == NULL)
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                       "The attachment “%s” cannot be used: no attachment store", name);
          return FALSE;
        }
      if (!natter_blob_store_check_present (blobs, json_object_get_string_member_with_default (part, "sha256", ""),
                                            json_object_get_int_member_with_default (part, "size", -1), error))
        {
          g_prefix_error (error, "Attachment “%s”: ", name);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * natter_attachments_check_stored:
 * @blobs: (nullable): the blob store
 * @input: (transfer none): the user message of a turn to create
 * @context: (transfer none) (nullable): its context
 * @error: return location for a #GError
 *
 * Checks that every attachment the new turn references is already a blob
 * of the right size (one stat each): the turn is written only after its
 * blobs, so a reference never dangles (docs/sessions.md §7).
 *
 * Returns: %TRUE when all are stored; else %FALSE with
 *   %NATTER_RUNTIME_ERROR_INVALID_ARGUMENT (no store) or the
 *   %NATTER_STORE_ERROR of natter_blob_store_check_present(), prefixed
 *   with the attachment's name
 */
gboolean
natter_attachments_check_stored (NatterBlobStore  *blobs,
                                 JsonObject       *input,
                                 JsonNode         *context,
                                 GError          **error)
{
  if (!check_message (blobs, input, error))
    return FALSE;
  if (context != NULL && JSON_NODE_HOLDS_ARRAY (context))
    {
      JsonArray *messages = json_node_get_array (context);

      for (guint i = 0; i < json_array_get_length (messages); i++)
        {
          JsonNode *node = json_array_get_element (messages, i);

          if (JSON_NODE_HOLDS_OBJECT (node) && !check_message (blobs, json_node_get_object (node), error))
            return FALSE;
        }
    }
  return TRUE;
}

/* The wire part of one stored attachment. */
static JsonObject *
expand_part (NatterBlobStore  *blobs,
             JsonObject       *part,
             GError          **error)
{
  const char *name = json_object_get_string_member (part, "name");
  const char *media_type = json_object_get_string_member (part, "mediaType");
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonObject) out = json_object_new ();
  g_autofree char *text = NULL;
  gsize length;
  const char *data;

  bytes = natter_blob_store_read_sync (blobs, json_object_get_string_member (part, "sha256"), error);
  if (bytes == NULL)
    return NULL;
  data = g_bytes_get_data (bytes, &length);

  switch (natter_attachment_kind_for_media_type (media_type))
    {
    case NATTER_ATTACHMENT_KIND_IMAGE:
      {
        g_autofree char *base64 = g_base64_encode ((const guchar *) data, length);
        g_autofree char *url = g_strdup_printf ("data:%s;base64,%s", media_type, base64);

        json_object_set_string_member (out, "type", "attachment-image");
        json_object_set_string_member (out, "url", url);
        return g_steal_pointer (&out);
      }
    case NATTER_ATTACHMENT_KIND_TEXT:
      if (!g_utf8_validate_len (data, length, NULL))
        {
          g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                       "“%s” is not UTF-8 text", name);
          return NULL;
        }
      text = g_strdup_printf ("File: %s\n\n%.*s", name, (int) length, data);
      break;
    case NATTER_ATTACHMENT_KIND_PDF:
      {
        g_autofree char *extracted = natter_attachment_pdf_extract_text (bytes, error);

        if (extracted == NULL)
          return NULL;
        if (extracted[0] == '\0')
          text = g_strdup_printf ("File: %s (a PDF without extractable text)", name);
        else
          text = g_strdup_printf ("File: %s (text extracted from the PDF)\n\n%s", name, extracted);
      }
      break;
    case NATTER_ATTACHMENT_KIND_NONE:
    default:
      g_set_error (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                   "Natter cannot send “%s” (%s) to a model", name, media_type);
      return NULL;
    }
  json_object_set_string_member (out, "type", "attachment-text");
  json_object_set_string_member (out, "text", text);
  return g_steal_pointer (&out);
}

/* A new user message whose blob parts are replaced by their wire parts;
 * the stored message is shared with the turn's state and never changed. */
static JsonNode *
expand_message (NatterBlobStore  *blobs,
                JsonObject       *message,
                GError          **error)
{
  JsonArray *parts = json_object_get_array_member (message, "content");
  g_autoptr(JsonObject) copy = json_object_new ();
  g_autoptr(JsonArray) content = json_array_new ();
  JsonNode *node;

  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *part = json_array_get_element (parts, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (part) ? json_node_get_object (part) : NULL;

      if (object != NULL &&
          g_strcmp0 (json_object_get_string_member_with_default (object, "type", NULL),
                     NATTER_TURN_BLOB_PART_TYPE) == 0)
        {
          JsonObject *wire = expand_part (blobs, object, error);

          if (wire == NULL)
            {
              g_prefix_error (error, "Attachment “%s”: ", json_object_get_string_member (object, "name"));
              return NULL;
            }
          json_array_add_object_element (content, wire);
        }
      else
        json_array_add_element (content, json_node_copy (part));
    }
  json_object_set_string_member (copy, "role", "user");
  json_object_set_array_member (copy, "content", g_steal_pointer (&content));
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, copy);
  return node;
}

/**
 * natter_attachments_expand_sync:
 * @blobs: (nullable): the blob store
 * @messages: (transfer none): composed request messages
 * @error: return location for a #GError
 *
 * Replaces every stored attachment of @messages by what the model reads
 * (docs/runtime.md §12): images as `attachment-image` parts with a
 * `data:` URL, text files and PDFs as `attachment-text` parts headed by
 * the file name. @messages is not changed. Blocks (reads and hashes every
 * blob, extracts PDF text): call it from a worker thread.
 *
 * Returns: (transfer full) (nullable): the new messages, or %NULL with the
 *   %NATTER_STORE_ERROR of natter_blob_store_read_sync() (missing or
 *   damaged blob, the message naming its file), a %POPPLER_ERROR, or
 *   %NATTER_RUNTIME_ERROR_INVALID_ARGUMENT (no store, a type no model
 *   reads, text that is not UTF-8), each prefixed with the attachment's
 *   name
 */
JsonArray *
natter_attachments_expand_sync (NatterBlobStore  *blobs,
                                JsonArray        *messages,
                                GError          **error)
{
  g_autoptr(JsonArray) out = json_array_new ();

  g_return_val_if_fail (messages != NULL, NULL);

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autoptr(GPtrArray) parts = JSON_NODE_HOLDS_OBJECT (node)
                                   ? natter_message_dup_blob_parts (json_node_get_object (node)) : NULL;
      JsonNode *expanded;

      if (parts == NULL || parts->len == 0)
        {
          json_array_add_element (out, json_node_copy (node));
          continue;
        }
      if (blobs == NULL)
        {
          g_set_error_literal (error, NATTER_RUNTIME_ERROR, NATTER_RUNTIME_ERROR_INVALID_ARGUMENT,
                               "The conversation has attachments but no attachment store");
          return NULL;
        }
      expanded = expand_message (blobs, json_node_get_object (node), error);
      if (expanded == NULL)
        return NULL;
      json_array_add_element (out, expanded);
    }
  return g_steal_pointer (&out);
}

static void
expand_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  JsonObject *payload = task_data;
  NatterBlobStore *blobs = g_object_get_data (G_OBJECT (task), "natter-blobs");
  g_autoptr(JsonObject) copy = json_object_new ();
  GError *error = NULL;
  JsonArray *messages;
  JsonObjectIter iter;
  const char *member;
  JsonNode *value;

  messages = natter_attachments_expand_sync (blobs, json_object_get_array_member (payload, "messages"), &error);
  if (messages == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  json_object_iter_init (&iter, payload);
  while (json_object_iter_next (&iter, &member, &value))
    if (!g_str_equal (member, "messages"))
      json_object_set_member (copy, member, json_node_copy (value));
  json_object_set_array_member (copy, "messages", messages);
  g_task_return_pointer (task, g_steal_pointer (&copy), (GDestroyNotify) json_object_unref);
}

/**
 * natter_attachments_expand_async:
 * @blobs: (nullable): the blob store
 * @payload: (transfer none): a composed request (natter_compose_request())
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * natter_attachments_expand_sync() on the payload's messages, in a worker
 * thread, so that reading, hashing and PDF extraction never block the
 * main loop.
 */
void
natter_attachments_expand_async (NatterBlobStore     *blobs,
                                 JsonObject          *payload,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_return_if_fail (payload != NULL);

  g_task_set_source_tag (task, natter_attachments_expand_async);
  g_task_set_task_data (task, json_object_ref (payload), (GDestroyNotify) json_object_unref);
  if (blobs != NULL)
    g_object_set_data_full (G_OBJECT (task), "natter-blobs", g_object_ref (blobs), g_object_unref);
  g_task_run_in_thread (task, expand_thread);
}

/**
 * natter_attachments_expand_finish:
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): a new payload whose messages carry
 *   the attachments' wire parts, or %NULL with the errors of
 *   natter_attachments_expand_sync()
 */
JsonObject *
natter_attachments_expand_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
