/* natter-json-array-reader.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A JSON document that is one large array (another program's export,
 * such as ChatGPT's `conversations.json`) read one element at a time, so
 * that reading it costs the memory of its largest element, not of the
 * whole document as a tree. A small scanner walks the bytes as they come
 * from the stream (strings, escapes and nesting, nothing more) to find
 * where each element ends; json-glib parses the element. Because the
 * scanner knows the nesting, an element deeper than json-glib can parse
 * without exhausting the stack is refused before it is parsed, and an
 * element that is not valid JSON costs only itself: the scanner has
 * already found where the next one starts.
 */

#define G_LOG_DOMAIN "natter-store"

#include "config.h"

#include "natter-json-array-reader.h"
#include "natter-json-private.h"
#include "natter-json.h"
#include "natter-store-error.h"

#define CHUNK_SIZE (64 * 1024)

typedef enum
{
  BEFORE_ARRAY,
  BEFORE_ELEMENT,    /* after `[` or `,` */
  IN_ELEMENT,
  AFTER_ELEMENT,
  AFTER_ARRAY,
} Where;

struct _NatterJsonArrayReader
{
  GInputStream *stream;
  gsize         max_element_size;
  guchar       *chunk;
  gsize         chunk_length;
  gsize         chunk_position;
  gboolean      eof;
  gboolean      broken;
  Where         where;
  guint         index;         /* elements begun so far */
  guint64       offset;        /* bytes of the stream consumed */
  /* The element being read. */
  GByteArray   *element;
  guint         depth;
  guint         max_depth;
  gboolean      in_string;
  gboolean      escaped;
  gboolean      scalar;        /* a number, true, false or null: ends at a delimiter */
  gboolean      too_large;
};

/**
 * natter_json_array_reader_new:
 * @stream: the document, from its first byte
 * @max_element_size: the largest element read, in bytes; a larger one is
 *   skipped with an error and the reading goes on
 *
 * Returns: (transfer full): a reader of @stream's top-level array
 */
NatterJsonArrayReader *
natter_json_array_reader_new (GInputStream *stream,
                              gsize         max_element_size)
{
  NatterJsonArrayReader *self;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  self = g_new0 (NatterJsonArrayReader, 1);
  self->stream = g_object_ref (stream);
  self->max_element_size = max_element_size;
  self->chunk = g_malloc (CHUNK_SIZE);
  self->element = g_byte_array_new ();
  return self;
}

/**
 * natter_json_array_reader_free:
 * @self: (transfer full) (nullable): a reader
 */
void
natter_json_array_reader_free (NatterJsonArrayReader *self)
{
  if (self == NULL)
    return;
  g_object_unref (self->stream);
  g_free (self->chunk);
  g_byte_array_unref (self->element);
  g_free (self);
}

/**
 * natter_json_array_reader_is_broken:
 * @self: a reader
 *
 * Whether the document cannot be read any further: after an error of
 * natter_json_array_reader_next() that is not about one element alone
 * (it is not an array, it ends in the middle, the stream failed).
 *
 * Returns: %TRUE when no next element can be found
 */
gboolean
natter_json_array_reader_is_broken (NatterJsonArrayReader *self)
{
  g_return_val_if_fail (self != NULL, TRUE);
  return self->broken;
}

/**
 * natter_json_array_reader_get_index:
 * @self: a reader
 *
 * Returns: the position of the last element begun, from 1; 0 before the
 *   first
 */
guint
natter_json_array_reader_get_index (NatterJsonArrayReader *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->index;
}

static gboolean G_GNUC_PRINTF (3, 4)
broken (NatterJsonArrayReader  *self,
        GError                **error,
        const char             *format,
        ...)
{
  va_list args;

  self->broken = TRUE;
  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, format, args));
  va_end (args);
  return FALSE;
}

static gboolean
is_space (guchar c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
begin_element (NatterJsonArrayReader *self)
{
  g_byte_array_set_size (self->element, 0);
  self->depth = 0;
  self->max_depth = 0;
  self->in_string = FALSE;
  self->escaped = FALSE;
  self->scalar = FALSE;
  self->too_large = FALSE;
  self->index++;
  self->where = IN_ELEMENT;
}

/* Takes one byte of an element; returns TRUE when it was the element's
 * last. A scalar ends before its delimiter, which is not taken. */
static gboolean
element_byte (NatterJsonArrayReader *self,
              guchar                 c,
              gboolean              *taken)
{
  *taken = TRUE;
  if (self->in_string)
    {
      if (self->escaped)
        self->escaped = FALSE;
      else if (c == '\\')
        self->escaped = TRUE;
      else if (c == '"')
        {
          self->in_string = FALSE;
          return self->depth == 0;
        }
      return FALSE;
    }
  if (self->scalar && (is_space (c) || c == ',' || c == ']'))
    {
      *taken = FALSE;
      return TRUE;
    }
  switch (c)
    {
    case '"':
      self->in_string = TRUE;
      break;
    case '{':
    case '[':
      self->depth++;
      self->max_depth = MAX (self->max_depth, self->depth);
      break;
    case '}':
    case ']':
      /* An unbalanced closer is left for the parser to name. */
      if (self->depth > 0)
        self->depth--;
      return self->depth == 0;
    default:
      if (self->depth == 0)
        self->scalar = TRUE;
      break;
    }
  return FALSE;
}

/* Parses the element read; FALSE with an error about it alone. */
static gboolean
parse_element (NatterJsonArrayReader  *self,
               JsonNode              **out,
               GError                **error)
{
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;

  if (self->too_large)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                   "It is larger than %" G_GSIZE_FORMAT " MiB", self->max_element_size / (1024 * 1024));
      return FALSE;
    }
  if (self->max_depth > NATTER_JSON_MAX_DEPTH)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED,
                   "It nests deeper than %u levels", NATTER_JSON_MAX_DEPTH);
      return FALSE;
    }
  if (!g_utf8_validate_len ((const char *) self->element->data, self->element->len, NULL))
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, "It is not valid UTF-8");
      return FALSE;
    }
  parser = json_parser_new_immutable ();
  if (!natter_json_parser_load_external (parser, (const char *) self->element->data, (gssize) self->element->len,
                                         &local))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_MALFORMED, "It is not valid JSON: %s", local->message);
      return FALSE;
    }
  *out = json_node_ref (json_parser_get_root (parser));
  return TRUE;
}

static gboolean
fill (NatterJsonArrayReader  *self,
      GCancellable           *cancellable,
      GError                **error)
{
  gssize n = g_input_stream_read (self->stream, self->chunk, CHUNK_SIZE, cancellable, error);

  if (n < 0)
    {
      self->broken = TRUE;
      return FALSE;
    }
  self->chunk_length = (gsize) n;
  self->chunk_position = 0;
  self->eof = n == 0;
  return TRUE;
}

/**
 * natter_json_array_reader_next:
 * @self: a reader
 * @element: (out) (transfer full) (optional) (nullable): the next
 *   element, or %NULL after the last
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * Reads the next element of the document's top-level array, blocking
 * (for a worker thread). An element that cannot be used — not valid JSON
 * or UTF-8, nested deeper than %NATTER_JSON_MAX_DEPTH, larger than the
 * reader's limit — is an error about that element alone: the next call
 * goes on with the element after it. Otherwise the reader is broken
 * (natter_json_array_reader_is_broken()): the document is not an array,
 * ends in the middle or goes on after it, or the stream failed.
 *
 * Returns: %TRUE with *@element set (to %NULL at the end); %FALSE with
 *   %NATTER_STORE_ERROR_MALFORMED, or the stream's #GIOError
 */
gboolean
natter_json_array_reader_next (NatterJsonArrayReader  *self,
                               JsonNode              **element,
                               GCancellable           *cancellable,
                               GError                **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (!self->broken, FALSE);

  if (element != NULL)
    *element = NULL;
  for (;;)
    {
      guchar c;

      if (self->chunk_position == self->chunk_length)
        {
          if (self->eof || !fill (self, cancellable, error))
            {
              if (!self->eof)
                return FALSE;
            }
          if (self->eof)
            {
              if (self->where == AFTER_ARRAY)
                return TRUE;
              if (self->where == IN_ELEMENT && self->scalar && self->depth == 0 && !self->in_string)
                return broken (self, error, "The file ends before its list is closed");
              if (self->where == BEFORE_ARRAY)
                return broken (self, error, "The file is empty");
              if (self->where == IN_ELEMENT)
                return broken (self, error, "The file ends in the middle of entry %u", self->index);
              return broken (self, error, "The file ends before its list is closed");
            }
          continue;
        }
      c = self->chunk[self->chunk_position];
      switch (self->where)
        {
        case BEFORE_ARRAY:
          /* A byte-order mark, then the array. */
          if (self->offset == 0 && self->chunk_length - self->chunk_position >= 3 &&
              c == 0xef && self->chunk[self->chunk_position + 1] == 0xbb && self->chunk[self->chunk_position + 2] == 0xbf)
            {
              self->chunk_position += 3;
              self->offset += 3;
              continue;
            }
          if (c == '[')
            self->where = BEFORE_ELEMENT;
          else if (!is_space (c))
            return broken (self, error, "It is not a list: it does not start with “[”");
          break;
        case BEFORE_ELEMENT:
          if (c == ']' && self->index == 0)
            self->where = AFTER_ARRAY;
          else if (c == ']' || c == ',')
            return broken (self, error, "Entry %u of the list is missing", self->index + 1);
          else if (!is_space (c))
            {
              begin_element (self);
              continue;
            }
          break;
        case IN_ELEMENT:
          {
            gboolean taken;
            gboolean done = element_byte (self, c, &taken);

            if (taken)
              {
                if (self->element->len < self->max_element_size)
                  g_byte_array_append (self->element, &c, 1);
                else
                  self->too_large = TRUE;
                self->chunk_position++;
                self->offset++;
              }
            if (!done)
              continue;
            self->where = AFTER_ELEMENT;
            if (!parse_element (self, element, error))
              return FALSE;
            return TRUE;
          }
        case AFTER_ELEMENT:
          if (c == ',')
            self->where = BEFORE_ELEMENT;
          else if (c == ']')
            self->where = AFTER_ARRAY;
          else if (!is_space (c))
            return broken (self, error, "Entry %u of the list is not followed by “,” or “]”", self->index);
          break;
        case AFTER_ARRAY:
          if (!is_space (c))
            return broken (self, error, "The file goes on after its list");
          break;
        default:
          g_assert_not_reached ();
        }
      self->chunk_position++;
      self->offset++;
    }
}
