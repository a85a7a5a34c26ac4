/* natter-sse-parser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-sse-parser"

#include <string.h>

#include "natter-sse-parser.h"

/* A plain struct rather than a GObject: it sits on the hot path of every
 * streamed byte and has no properties or signals worth the weight. The
 * three GStrings are reused for every event, so a steady stream costs no
 * allocation per event once they have grown to the largest event seen. */
struct _NatterSseParser
{
  gsize              max_event_bytes;
  NatterSseEventFunc event_func;
  gpointer           user_data;
  GDestroyNotify     user_data_destroy;

  GString           *line;   /* an unterminated line carried across feeds */
  GString           *data;   /* the data buffer of the event being read */
  GString           *event;  /* the event type buffer */

  GError            *failure;     /* sticky: the first error, if any */
  guint8             bom_matched; /* bytes of a leading UTF-8 BOM seen */
  guint              bom_done : 1;
  guint              has_data : 1;
  /* The previous feed ended on a CR; a LF opening the next one belongs to
   * the same line break (CRLF split across reads). */
  guint              skip_lf : 1;
};

static const guint8 utf8_bom[3] = { 0xEF, 0xBB, 0xBF };

/**
 * natter_sse_parser_new:
 * @max_event_bytes: the largest event (the joined data of one event) and
 *   the longest single line accepted, in bytes; 0 means
 *   %NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES
 * @event_func: (scope notified): called for every complete event
 * @user_data: (closure): data for @event_func
 * @user_data_destroy: (nullable): frees @user_data with the parser
 *
 * Creates a parser for one event stream (docs/runtime.md §12). It follows
 * the WHATWG EventSource rules: lines end with CR, LF or CRLF (also when a
 * CRLF is split between two feeds); a leading UTF-8 BOM is skipped;
 * `data` lines are joined with '\n' (one space after the colon is
 * dropped, none is required); `event` names the event; `id`, `retry` and
 * unknown fields are ignored; lines starting with ':' are comments; a
 * blank line dispatches; an event without `data` lines is not dispatched.
 * An empty `data:` line does make an event, with empty data.
 *
 * Two lines the standard would ignore are how some servers report a
 * failure inside a streamed response, so they are handed over at once as
 * events of their own (the event being read is left as it is): an
 * `error` field, as an event of type "error" whose data is the field's
 * value, and a line that starts with '{' (a bare JSON object where `data`
 * lines were expected), as an event of type %NATTER_SSE_BARE_JSON_EVENT
 * whose data is the whole line.
 *
 * Returns: (transfer full): a new parser; free with natter_sse_parser_free()
 */
NatterSseParser *
natter_sse_parser_new (gsize              max_event_bytes,
                       NatterSseEventFunc event_func,
                       gpointer           user_data,
                       GDestroyNotify     user_data_destroy)
{
  NatterSseParser *self;

  g_return_val_if_fail (event_func != NULL, NULL);

  self = g_new0 (NatterSseParser, 1);
  self->max_event_bytes = max_event_bytes > 0 ? max_event_bytes
                                              : NATTER_SSE_PARSER_DEFAULT_MAX_EVENT_BYTES;
  self->event_func = event_func;
  self->user_data = user_data;
  self->user_data_destroy = user_data_destroy;
  self->line = g_string_sized_new (256);
  self->data = g_string_sized_new (256);
  self->event = g_string_sized_new (16);

  return self;
}

/**
 * natter_sse_parser_free:
 * @self: (transfer full) (nullable): a parser
 *
 * Frees @self, dropping any partial event, and destroys the user data.
 */
void
natter_sse_parser_free (NatterSseParser *self)
{
  if (self == NULL)
    return;

  g_string_free (self->line, TRUE);
  g_string_free (self->data, TRUE);
  g_string_free (self->event, TRUE);
  g_clear_error (&self->failure);
  if (self->user_data_destroy != NULL)
    self->user_data_destroy (self->user_data);
  g_free (self);
}

static gboolean
fail (NatterSseParser  *self,
      GError          **error,
      GError           *failure)
{
  return natter_provider_error_keep (&self->failure, failure, error);
}

static void
reset_event (NatterSseParser *self)
{
  g_string_truncate (self->data, 0);
  g_string_truncate (self->event, 0);
  self->has_data = FALSE;
}

/* What the event function answered: @ok, or the stream ends with the
 * function's @handler_error (transfer full), a generic
 * %NATTER_PROVIDER_ERROR_STREAM_ERROR when it set none. */
static gboolean
handler_answered (NatterSseParser  *self,
                  gboolean          ok,
                  GError           *handler_error,
                  GError          **error)
{
  if (ok)
    {
      g_assert (handler_error == NULL);
      return TRUE;
    }
  if (handler_error == NULL)
    handler_error = g_error_new_literal (NATTER_PROVIDER_ERROR,
                                         NATTER_PROVIDER_ERROR_STREAM_ERROR,
                                         "The event handler stopped the stream");
  return fail (self, error, handler_error);
}

static gboolean
dispatch (NatterSseParser  *self,
          GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean ok;

  if (!self->has_data)
    {
      /* WHATWG: an event with an empty data buffer is dropped, its type
       * with it. */
      reset_event (self);
      return TRUE;
    }

  ok = self->event_func (self->event->len > 0 ? self->event->str : NULL,
                         self->data->str, self->data->len,
                         self->user_data, &local_error);
  reset_event (self);
  return handler_answered (self, ok, g_steal_pointer (&local_error), error);
}

/* Hands over one line as an event of its own, outside the event being
 * read (which stays as it is). */
static gboolean
dispatch_now (NatterSseParser  *self,
              const char       *event_name,
              const char       *value,
              gsize             len,
              GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *copy = g_malloc (len + 1);
  gboolean ok;

  /* The data handed over is NUL-terminated at @len, like an event's. */
  memcpy (copy, value, len);
  copy[len] = '\0';

  ok = self->event_func (event_name, copy, len, self->user_data, &local_error);
  return handler_answered (self, ok, g_steal_pointer (&local_error), error);
}

static gboolean
too_large (NatterSseParser  *self,
           GError          **error,
           const char       *what)
{
  return fail (self, error,
               g_error_new (NATTER_PROVIDER_ERROR,
                            NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE,
                            "A server-sent %s is larger than the limit of %"
                            G_GSIZE_FORMAT " bytes",
                            what, self->max_event_bytes));
}

/* One complete line, without its terminator. */
static gboolean
process_line (NatterSseParser  *self,
              const char       *line,
              gsize             len,
              GError          **error)
{
  const char *colon;
  const char *value;
  gsize field_len;
  gsize value_len;

  if (len == 0)
    return dispatch (self, error);

  if (line[0] == ':')
    return TRUE;

  /* Not a field at all: some servers write a failure as a bare JSON
   * object where `data:` lines were expected. The standard would ignore
   * it as an unknown field; it is handed over at once, under its own
   * type, so the reader can tell the server's reason. */
  if (line[0] == '{')
    return dispatch_now (self, NATTER_SSE_BARE_JSON_EVENT, line, len, error);

  colon = memchr (line, ':', len);
  if (colon != NULL)
    {
      field_len = colon - line;
      value = colon + 1;
      value_len = len - field_len - 1;
      if (value_len > 0 && value[0] == ' ')
        {
          value++;
          value_len--;
        }
    }
  else
    {
      field_len = len;
      value = line + len;
      value_len = 0;
    }

  if (field_len == 4 && memcmp (line, "data", 4) == 0)
    {
      gsize separator = self->has_data ? 1 : 0;

      if (self->data->len + separator + value_len > self->max_event_bytes)
        return too_large (self, error, "event");
      if (separator)
        g_string_append_c (self->data, '\n');
      g_string_append_len (self->data, value, value_len);
      self->has_data = TRUE;
    }
  else if (field_len == 5 && memcmp (line, "event", 5) == 0)
    {
      g_string_truncate (self->event, 0);
      g_string_append_len (self->event, value, value_len);
    }
  else if (field_len == 5 && memcmp (line, "error", 5) == 0)
    {
      /* Not a standard field, but servers use it for their failure
       * reason: an "error" event of its own, so the reason is not lost. */
      return dispatch_now (self, "error", value, value_len, error);
    }
  /* "id" and "retry" steer reconnection, which a chat completion never
   * does; unknown fields are ignored by the standard. */

  return TRUE;
}

static gboolean
process_bytes (NatterSseParser  *self,
               const char       *p,
               const char       *end,
               GError          **error)
{
  while (p < end)
    {
      const char *q;
      gsize span;

      if (self->skip_lf)
        {
          self->skip_lf = FALSE;
          if (*p == '\n')
            {
              p++;
              continue;
            }
        }

      for (q = p; q < end && *q != '\r' && *q != '\n'; q++)
        ;
      span = q - p;

      if (self->line->len + span > self->max_event_bytes)
        return too_large (self, error, "line");

      if (q == end)
        {
          g_string_append_len (self->line, p, span);
          break;
        }

      if (self->line->len == 0)
        {
          /* The common case: the whole line is in this feed, so it is
           * parsed in place without a copy. */
          if (!process_line (self, p, span, error))
            return FALSE;
        }
      else
        {
          g_string_append_len (self->line, p, span);
          if (!process_line (self, self->line->str, self->line->len, error))
            return FALSE;
          g_string_truncate (self->line, 0);
        }

      if (*q == '\r')
        {
          if (q + 1 == end)
            self->skip_lf = TRUE;
          else if (q[1] == '\n')
            q++;
        }
      p = q + 1;
    }

  return TRUE;
}

/**
 * natter_sse_parser_feed:
 * @self: a parser
 * @data: (array length=len): the next bytes of the stream, as read; they
 *   may end anywhere, including inside a line or a UTF-8 sequence
 * @len: the number of bytes in @data
 * @error: return location for a #GError
 *
 * Parses @data, calling the event function for every event it completes
 * (docs/runtime.md §12).
 *
 * Returns: %TRUE on success. %FALSE with
 *   %NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE when an event or a line grows
 *   past the cap (never truncated silently), or with the error returned by
 *   the event function. After a failure every later call fails again with
 *   a copy of the same error.
 */
gboolean
natter_sse_parser_feed (NatterSseParser  *self,
                        const guint8     *data,
                        gsize             len,
                        GError          **error)
{
  const char *p = (const char *) data;
  const char *end = p + len;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  if (!self->bom_done)
    {
      while (p < end && self->bom_matched < sizeof utf8_bom
             && (guint8) *p == utf8_bom[self->bom_matched])
        {
          self->bom_matched++;
          p++;
        }

      if (self->bom_matched == sizeof utf8_bom)
        self->bom_done = TRUE;
      else if (p < end)
        {
          /* Not a BOM after all: the bytes taken for one are content. */
          self->bom_done = TRUE;
          if (!process_bytes (self, (const char *) utf8_bom,
                              (const char *) utf8_bom + self->bom_matched, error))
            return FALSE;
        }
    }

  return process_bytes (self, p, end, error);
}

/**
 * natter_sse_parser_finish:
 * @self: a parser
 * @error: return location for a #GError
 *
 * Ends the stream. As the standard requires, a partial event (data lines
 * not yet followed by a blank line, or an unterminated line) is dropped,
 * never dispatched; this reports whether there was one. A server's
 * failure reason is the exception: an unterminated `error` field or bare
 * JSON line, and an "error" event that lacks its blank line, are still
 * handed to the event function first. The parser is then reset and may
 * read a new stream.
 *
 * Returns: %TRUE if nothing was pending; %FALSE with
 *   %NATTER_PROVIDER_ERROR_TRUNCATED_STREAM if the stream ended inside an
 *   event, with the error returned by the event function for a failure
 *   reason handed over here, or with a copy of an earlier feed error.
 */
gboolean
natter_sse_parser_finish (NatterSseParser  *self,
                          GError          **error)
{
  gboolean pending;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (natter_provider_error_repeat (self->failure, error))
    return FALSE;

  /* A server that fails often closes the stream at once: an unterminated
   * `error` field or bare JSON line, or an unterminated "error" event,
   * still carries its reason and is handed over. Anything else pending
   * is dropped, as the standard says. */
  if (self->line->len > 0 &&
      (self->line->str[0] == '{' ||
       (self->line->len >= 6 && memcmp (self->line->str, "error:", 6) == 0) ||
       (self->line->len == 5 && memcmp (self->line->str, "error", 5) == 0) ||
       (self->event->len == 5 && memcmp (self->event->str, "error", 5) == 0 &&
        self->line->len >= 4 && memcmp (self->line->str, "data", 4) == 0 &&
        (self->line->len == 4 || self->line->str[4] == ':'))))
    {
      gboolean ok = process_line (self, self->line->str, self->line->len, error);

      g_string_truncate (self->line, 0);
      if (!ok)
        return FALSE;
    }
  if (self->has_data && self->event->len == 5 && memcmp (self->event->str, "error", 5) == 0 &&
      !dispatch (self, error))
    return FALSE;

  pending = self->has_data
            || (self->line->len > 0 && self->line->str[0] != ':')
            || (!self->bom_done && self->bom_matched > 0);

  reset_event (self);
  g_string_truncate (self->line, 0);
  self->skip_lf = FALSE;
  self->bom_done = FALSE;
  self->bom_matched = 0;

  if (pending)
    {
      g_set_error_literal (error, NATTER_PROVIDER_ERROR,
                           NATTER_PROVIDER_ERROR_TRUNCATED_STREAM,
                           "The stream was truncated inside an event");
      return FALSE;
    }

  return TRUE;
}
