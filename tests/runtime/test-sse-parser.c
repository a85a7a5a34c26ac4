/* test-sse-parser.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The byte-exact Server-Sent Events reader (docs/runtime.md §12; the
 * WHATWG EventSource parsing rules).
 */

#include <string.h>

#include "natter-sse-parser.h"
#include "natter-test-support.h"

/* Every dispatched event is recorded as "name|data" ("-" for no name). */
typedef struct
{
  GPtrArray *events;
  guint      fail_at; /* 1-based event that makes the handler fail; 0: never */
} Recorder;

static gboolean
event_cb (const char  *event_name,
          const char  *data,
          gsize        data_len,
          gpointer     user_data,
          GError     **error)
{
  Recorder *rec = user_data;
  GString *entry = g_string_new (event_name ? event_name : "-");

  g_assert_cmpint (data[data_len], ==, '\0');
  g_string_append_c (entry, '|');
  /* Embedded NULs are shown as "\\0" so that they are compared too. */
  for (gsize i = 0; i < data_len; i++)
    if (data[i] == '\0')
      g_string_append (entry, "\\0");
    else
      g_string_append_c (entry, data[i]);
  g_ptr_array_add (rec->events, g_string_free (entry, FALSE));
  if (rec->fail_at == rec->events->len)
    {
      g_set_error_literal (error, NATTER_PROVIDER_ERROR,
                           NATTER_PROVIDER_ERROR_STREAM_ERROR, "handler says no");
      return FALSE;
    }
  return TRUE;
}

static void
recorder_init (Recorder *rec)
{
  rec->events = g_ptr_array_new_with_free_func (g_free);
  rec->fail_at = 0;
}

static char *
recorder_join (Recorder *rec)
{
  g_ptr_array_add (rec->events, NULL);
  g_ptr_array_set_size (rec->events, rec->events->len - 1);
  return g_strjoinv ("\n---\n", (char **) rec->events->pdata);
}

/* Parses @input whole, split in two at every byte, and byte by byte, and
 * checks each time that the same events come out and that finish()
 * reports @expect_pending. */
static void
assert_events (const char *input,
               gssize      input_len,
               gboolean    expect_pending,
               const char *expected)
{
  gsize len = input_len < 0 ? strlen (input) : (gsize) input_len;

  /* split == len + 1 means "one byte at a time". */
  for (gsize split = 0; split <= len + 1; split++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NatterSseParser) parser = NULL;
      g_autofree char *joined = NULL;
      Recorder rec;
      gboolean ok;

      recorder_init (&rec);
      parser = natter_sse_parser_new (0, event_cb, &rec, NULL);

      if (split <= len)
        {
          g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) input, split, &error));
          g_assert_no_error (error);
          g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) input + split,
                                                 len - split, &error));
          g_assert_no_error (error);
        }
      else
        {
          for (gsize i = 0; i < len; i++)
            {
              g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) input + i, 1, &error));
              g_assert_no_error (error);
            }
        }

      ok = natter_sse_parser_finish (parser, &error);
      if (expect_pending)
        {
          g_assert_false (ok);
          g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_TRUNCATED_STREAM);
        }
      else
        {
          g_assert_no_error (error);
          g_assert_true (ok);
        }

      joined = recorder_join (&rec);
      g_assert_cmpstr (joined, ==, expected);
      g_ptr_array_unref (rec.events);
    }
}

static void
test_line_endings (void)
{
  assert_events ("data: a\n\ndata: b\n\n", -1, FALSE, "-|a\n---\n-|b");
  assert_events ("data: a\r\n\r\ndata: b\r\n\r\n", -1, FALSE, "-|a\n---\n-|b");
  assert_events ("data: a\r\rdata: b\r\r", -1, FALSE, "-|a\n---\n-|b");
  /* Mixed in one stream, as case 04 does. */
  assert_events ("data: a\r\n\ndata: b\r\rdata: c\n\r\n", -1, FALSE,
                 "-|a\n---\n-|b\n---\n-|c");
}

static void
test_cr_at_chunk_boundary (void)
{
  Recorder rec;
  g_autoptr(NatterSseParser) parser = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *joined = NULL;

  recorder_init (&rec);
  parser = natter_sse_parser_new (0, event_cb, &rec, NULL);

  /* A CR ends one read and the LF of the same CRLF opens the next: that
   * is one line break, not a line break plus a blank line. */
  g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) "data: a\r", 8, &error));
  g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) "\ndata: b\r", 9, &error));
  g_assert_cmpuint (rec.events->len, ==, 0);
  g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) "\n\r", 2, &error));
  g_assert_cmpuint (rec.events->len, ==, 1);
  g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) "\n", 1, &error));
  g_assert_true (natter_sse_parser_finish (parser, &error));
  g_assert_no_error (error);

  joined = recorder_join (&rec);
  g_assert_cmpstr (joined, ==, "-|a\nb");
  g_ptr_array_unref (rec.events);
}

static void
test_data_fields (void)
{
  /* With or without the one optional space; only one space is dropped. */
  assert_events ("data:x\n\ndata: y\n\ndata:  z\n\n", -1, FALSE,
                 "-|x\n---\n-|y\n---\n-| z");
  /* Multi-line data joins with LF. */
  assert_events ("data: {\"a\":\ndata: 1}\n\n", -1, FALSE, "-|{\"a\":\n1}");
  /* An empty data line makes an event with empty data; two make "\n". */
  assert_events ("data:\n\ndata\n\ndata:\ndata:\n\n", -1, FALSE, "-|\n---\n-|\n---\n-|\n");
  /* A colon in the value is kept. */
  assert_events ("data: a: b\n\n", -1, FALSE, "-|a: b");
}

static void
test_comments_and_ignored_fields (void)
{
  assert_events (": keep-alive\n\n:\n\n: OPENROUTER PROCESSING\n\n"
                 "id: 7\nretry: 10\nfoo: bar\ndata: ok\n: inner comment\n\n",
                 -1, FALSE, "-|ok");
  /* Blank lines and events without data dispatch nothing. */
  assert_events ("\n\n\r\nevent: ping\n\n", -1, FALSE, "");
}

static void
test_event_name (void)
{
  assert_events ("event: error\ndata: {\"error\":\"x\"}\n\ndata: next\n\n", -1, FALSE,
                 "error|{\"error\":\"x\"}\n---\n-|next");
  /* The last event field wins; an empty one is the default type. */
  assert_events ("event: a\nevent: b\ndata: 1\n\nevent:\ndata: 2\n\n", -1, FALSE,
                 "b|1\n---\n-|2");
  /* The name of an event that is not dispatched does not leak. */
  assert_events ("event: error\n\ndata: 3\n\n", -1, FALSE, "-|3");
}

/* Servers that fail inside a 200 stream write their reason in lines the
 * standard would ignore; each is handed over as an event of its own. */
static void
test_error_reports (void)
{
  /* An `error` field, between events and inside one. */
  assert_events ("data: a\n\nerror: boom\n\ndata: b\n\n", -1, FALSE,
                 "-|a\n---\nerror|boom\n---\n-|b");
  assert_events ("data: a\nerror: {\"message\":\"e\"}\ndata: b\n\n", -1, FALSE,
                 "error|{\"message\":\"e\"}\n---\n-|a\nb");
  /* A bare JSON object where data lines were expected. */
  assert_events ("data: a\n\n{\"error\":{\"message\":\"too long\"}}\n\n", -1, FALSE,
                 "-|a\n---\n" NATTER_SSE_BARE_JSON_EVENT "|{\"error\":{\"message\":\"too long\"}}");
  /* The stream closes right after the reason, without a line end or the
   * blank line: the reason is still handed over, nothing is pending. */
  assert_events ("data: a\n\nerror: boom", -1, FALSE, "-|a\n---\nerror|boom");
  assert_events ("data: a\n\n{\"error\":\"x\"}", -1, FALSE,
                 "-|a\n---\n" NATTER_SSE_BARE_JSON_EVENT "|{\"error\":\"x\"}");
  assert_events ("data: a\n\nevent: error\ndata: {\"message\":\"x\"}\n", -1, FALSE,
                 "-|a\n---\nerror|{\"message\":\"x\"}");
  assert_events ("data: a\n\nevent: error\ndata: {\"message\":\"x\"}", -1, FALSE,
                 "-|a\n---\nerror|{\"message\":\"x\"}");
  /* Other unterminated events stay dropped. */
  assert_events ("data: a\n\nevent: other\ndata: x\n", -1, TRUE, "-|a");
}

static void
test_utf8_and_bom (void)
{
  /* Split inside a multi-byte sequence comes back whole. */
  assert_events ("data: h\xc3\xa9llo \xf0\x9f\x98\x80\n\n", -1, FALSE,
                 "-|h\xc3\xa9llo \xf0\x9f\x98\x80");
  /* A leading BOM is not part of the first field name. */
  assert_events ("\xef\xbb\xbf" "data: a\n\n", -1, FALSE, "-|a");
  /* A BOM prefix that is not a BOM is content (an unknown field here). */
  assert_events ("\xef\xbb" "x\ndata: a\n\n", -1, FALSE, "-|a");
}

static void
test_embedded_nul (void)
{
  static const char input[] = "data: a\0b\n\n";

  assert_events (input, sizeof input - 1, FALSE, "-|a\\0b");
}

static void
test_partial_at_end (void)
{
  /* Never dispatched, but reported. */
  assert_events ("data: a\n\ndata: b\n", -1, TRUE, "-|a");
  assert_events ("data: a\n\ndata: b", -1, TRUE, "-|a");
  /* A trailing comment or a lone event line is not a pending event... */
  assert_events ("data: a\n\n: bye", -1, FALSE, "-|a");
  /* ...but an unterminated field line is. */
  assert_events ("data: a\n\nevent: x", -1, TRUE, "-|a");
}

static void
test_oversize (void)
{
  static const char *inputs[] = {
    /* One huge line. */
    "data: 0123456789abcdefghij\n\n",
    /* Many small data lines adding up. */
    "data: 01234\ndata: 56789\ndata: abcde\ndata: fghij\n\n",
    /* A comment line without end. */
    ": 0123456789abcdefghijklmn",
  };

  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    for (gsize split = 0; split <= strlen (inputs[i]); split++)
      {
        g_autoptr(GError) error = NULL;
        g_autoptr(NatterSseParser) parser = NULL;
        Recorder rec;
        gboolean ok;

        recorder_init (&rec);
        parser = natter_sse_parser_new (16, event_cb, &rec, NULL);

        ok = natter_sse_parser_feed (parser, (const guint8 *) inputs[i], split, &error)
             && natter_sse_parser_feed (parser, (const guint8 *) inputs[i] + split,
                                        strlen (inputs[i]) - split, &error);
        g_assert_false (ok);
        g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE);
        g_assert_cmpuint (rec.events->len, ==, 0);
        g_clear_error (&error);

        /* Sticky: the stream cannot go on after lost bytes. */
        g_assert_false (natter_sse_parser_feed (parser, (const guint8 *) "data: x\n\n", 9, &error));
        g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE);
        g_clear_error (&error);
        g_assert_false (natter_sse_parser_finish (parser, &error));
        g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_EVENT_TOO_LARGE);
        g_assert_cmpuint (rec.events->len, ==, 0);
        g_ptr_array_unref (rec.events);
      }
}

static void
test_exact_cap (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSseParser) parser = NULL;
  Recorder rec;
  /* "data:" + 11 bytes is a 16-byte line, and the data is 11 bytes. */
  static const char input[] = "data:0123456789a\n\n";

  recorder_init (&rec);
  parser = natter_sse_parser_new (16, event_cb, &rec, NULL);
  g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) input, sizeof input - 1, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rec.events->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (rec.events, 0), ==, "-|0123456789a");
  g_ptr_array_unref (rec.events);
}

typedef struct
{
  gsize  count;
  gsize  len;
  guint8 first;
  guint8 last;
} BigEvent;

static gboolean
big_event_cb (const char  *event_name,
              const char  *data,
              gsize        data_len,
              gpointer     user_data,
              GError     **error)
{
  BigEvent *big = user_data;

  big->count++;
  big->len = data_len;
  big->first = data[0];
  big->last = data[data_len - 1];
  return TRUE;
}

static void
test_large_event_under_cap (void)
{
  const gsize payload = 1024 * 1024;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSseParser) parser = NULL;
  g_autoptr(GString) input = g_string_new ("data: <");
  BigEvent big = { 0, };

  for (gsize i = 0; i < payload - 2; i++)
    g_string_append_c (input, 'a' + i % 26);
  g_string_append (input, ">\r\n\r\n");

  parser = natter_sse_parser_new (2 * 1024 * 1024, big_event_cb, &big, NULL);

  /* Fed in the odd-sized reads of a socket. */
  for (gsize off = 0; off < input->len; off += 4093)
    {
      gsize n = MIN (4093, input->len - off);

      g_assert_true (natter_sse_parser_feed (parser, (const guint8 *) input->str + off, n, &error));
      g_assert_no_error (error);
    }
  g_assert_true (natter_sse_parser_finish (parser, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (big.count, ==, 1);
  g_assert_cmpuint (big.len, ==, payload);
  g_assert_cmpint (big.first, ==, '<');
  g_assert_cmpint (big.last, ==, '>');
}

static void
test_handler_error_stops (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSseParser) parser = NULL;
  Recorder rec;
  static const char input[] = "data: 1\n\ndata: 2\n\ndata: 3\n\n";

  recorder_init (&rec);
  rec.fail_at = 2;
  parser = natter_sse_parser_new (0, event_cb, &rec, NULL);

  g_assert_false (natter_sse_parser_feed (parser, (const guint8 *) input, sizeof input - 1, &error));
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
  g_assert_cmpstr (error->message, ==, "handler says no");
  /* Event 3 was never delivered. */
  g_assert_cmpuint (rec.events->len, ==, 2);
  g_clear_error (&error);

  g_assert_false (natter_sse_parser_finish (parser, &error));
  g_assert_error (error, NATTER_PROVIDER_ERROR, NATTER_PROVIDER_ERROR_STREAM_ERROR);
  g_ptr_array_unref (rec.events);
}

static void
destroy_cb (gpointer data)
{
  (*(int *) data)++;
}

static void
test_user_data_destroyed (void)
{
  int destroyed = 0;
  NatterSseParser *parser = natter_sse_parser_new (0, event_cb, &destroyed, destroy_cb);

  natter_sse_parser_free (parser);
  g_assert_cmpint (destroyed, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/sse-parser/line-endings", test_line_endings);
  g_test_add_func ("/sse-parser/cr-at-chunk-boundary", test_cr_at_chunk_boundary);
  g_test_add_func ("/sse-parser/data-fields", test_data_fields);
  g_test_add_func ("/sse-parser/comments-and-ignored-fields", test_comments_and_ignored_fields);
  g_test_add_func ("/sse-parser/event-name", test_event_name);
  g_test_add_func ("/sse-parser/error-reports", test_error_reports);
  g_test_add_func ("/sse-parser/utf8-and-bom", test_utf8_and_bom);
  g_test_add_func ("/sse-parser/embedded-nul", test_embedded_nul);
  g_test_add_func ("/sse-parser/partial-at-end", test_partial_at_end);
  g_test_add_func ("/sse-parser/oversize", test_oversize);
  g_test_add_func ("/sse-parser/exact-cap", test_exact_cap);
  g_test_add_func ("/sse-parser/large-event-under-cap", test_large_event_under_cap);
  g_test_add_func ("/sse-parser/handler-error-stops", test_handler_error_stops);
  g_test_add_func ("/sse-parser/user-data-destroyed", test_user_data_destroyed);

  return g_test_run ();
}
