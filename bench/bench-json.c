/* bench-json.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Strict line read throughput (issue "session index startup scan": every
 * line validated at >= ~100 MB/s, tree included): the fast canonical
 * parser behind natter_json_from_line() against the reference it replaced,
 * json-glib's JsonParser alone, and a plain loop over the bytes — all on
 * the lines of one generated 100,000-event turn file.
 */

#include <string.h>
#include <time.h>

#include "natter-bench.h"
#include "natter-json-private.h"

#define TURN_ID "2026-11-30T09-14-03Z-0000042-000"
#define N_EVENTS 100000

static const char * const texts[] = {
  "Let me check the time.",
  "Sure — here is the plan:\n1. read the file\n2. fix the \"bug\"\n3. run the tests",
  "Ça marche, je regarde ça 👀",
  "def f(x):\n\treturn x * 2  # doubles\n",
  "C:\\Users\\natter\\notes.txt / ~/notes.txt",
  "The answer is 42.",
};

/* One event line of kind @i % 4, with varied text, numbers and nesting,
 * serialized the way the store writes it. */
static char *
make_line (guint  i,
           GRand *rand)
{
  g_autoptr(JsonBuilder) builder = json_builder_new_immutable ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *ts = g_strdup_printf ("2026-11-30T09:%02u:%02u.%03uZ", (i / 60000) % 60,
                                         (i / 1000) % 60, i % 1000);
  g_autofree char *call_id = g_strdup_printf ("call_%u_%08x", i, g_rand_int (rand));
  const char *text = texts[g_rand_int_range (rand, 0, G_N_ELEMENTS (texts))];

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  switch (i % 4)
    {
    case 0:
      json_builder_add_string_value (builder, "model_call_requested");
      break;
    case 1:
      json_builder_add_string_value (builder, "model_call_completed");
      break;
    case 2:
      json_builder_add_string_value (builder, "tool_invocation_requested");
      break;
    default:
      json_builder_add_string_value (builder, "tool_result");
      break;
    }
  json_builder_set_member_name (builder, "turnId");
  json_builder_add_string_value (builder, TURN_ID);
  json_builder_set_member_name (builder, "ts");
  json_builder_add_string_value (builder, ts);

  switch (i % 4)
    {
    case 0:
      json_builder_set_member_name (builder, "modelCallIndex");
      json_builder_add_int_value (builder, i / 4);
      json_builder_set_member_name (builder, "request");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "messages");
      json_builder_begin_array (builder);
      json_builder_add_string_value (builder, "input");
      json_builder_add_string_value (builder, call_id);
      json_builder_end_array (builder);
      json_builder_set_member_name (builder, "parameters");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "temperature");
      json_builder_add_double_value (builder, 0.7);
      json_builder_set_member_name (builder, "maxTokens");
      json_builder_add_int_value (builder, 4096);
      json_builder_end_object (builder);
      json_builder_end_object (builder);
      break;

    case 1:
      json_builder_set_member_name (builder, "modelCallIndex");
      json_builder_add_int_value (builder, i / 4);
      json_builder_set_member_name (builder, "message");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "role");
      json_builder_add_string_value (builder, "assistant");
      json_builder_set_member_name (builder, "content");
      json_builder_begin_array (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "text");
      json_builder_set_member_name (builder, "text");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "type");
      json_builder_add_string_value (builder, "tool-call");
      json_builder_set_member_name (builder, "toolCallId");
      json_builder_add_string_value (builder, call_id);
      json_builder_set_member_name (builder, "toolName");
      json_builder_add_string_value (builder, "read_file");
      json_builder_set_member_name (builder, "arguments");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "path");
      json_builder_add_string_value (builder, "/home/natter/src/main.c");
      json_builder_set_member_name (builder, "limit");
      json_builder_add_int_value (builder, g_rand_int_range (rand, 1, 100000));
      json_builder_end_object (builder);
      json_builder_end_object (builder);
      json_builder_end_array (builder);
      json_builder_end_object (builder);
      json_builder_set_member_name (builder, "finishReason");
      json_builder_add_string_value (builder, "tool_calls");
      json_builder_set_member_name (builder, "usage");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "inputTokens");
      json_builder_add_int_value (builder, g_rand_int_range (rand, 100, 100000));
      json_builder_set_member_name (builder, "outputTokens");
      json_builder_add_int_value (builder, g_rand_int_range (rand, 1, 4000));
      json_builder_end_object (builder);
      break;

    case 2:
      json_builder_set_member_name (builder, "toolCallId");
      json_builder_add_string_value (builder, call_id);
      json_builder_set_member_name (builder, "toolId");
      json_builder_add_string_value (builder, "builtin.read_file");
      json_builder_set_member_name (builder, "toolName");
      json_builder_add_string_value (builder, "read_file");
      json_builder_set_member_name (builder, "execution");
      json_builder_add_string_value (builder, "sync");
      json_builder_set_member_name (builder, "input");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "path");
      json_builder_add_string_value (builder, "/home/natter/src/main.c");
      json_builder_set_member_name (builder, "follow");
      json_builder_add_boolean_value (builder, g_rand_boolean (rand));
      json_builder_end_object (builder);
      break;

    default:
      json_builder_set_member_name (builder, "toolCallId");
      json_builder_add_string_value (builder, call_id);
      json_builder_set_member_name (builder, "toolName");
      json_builder_add_string_value (builder, "read_file");
      json_builder_set_member_name (builder, "source");
      json_builder_add_string_value (builder, "sync");
      json_builder_set_member_name (builder, "result");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "output");
      json_builder_add_string_value (builder, text);
      json_builder_set_member_name (builder, "isError");
      json_builder_add_boolean_value (builder, FALSE);
      json_builder_set_member_name (builder, "elapsed");
      json_builder_add_double_value (builder, g_rand_double_range (rand, 0, 3));
      json_builder_set_member_name (builder, "meta");
      json_builder_add_null_value (builder);
      json_builder_end_object (builder);
      break;
    }
  json_builder_end_object (builder);

  root = json_builder_get_root (builder);
  return natter_json_to_line (root, NULL, NULL);
}

typedef struct
{
  char   *contents;   /* the whole file, lines separated by \n */
  gsize   length;
  GArray *starts;     /* gsize offsets of each line */
} Lines;

static void
make_lines (Lines *lines)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);
  GString *file = g_string_new (NULL);

  lines->starts = g_array_new (FALSE, FALSE, sizeof (gsize));
  for (guint i = 0; i < N_EVENTS; i++)
    {
      g_autofree char *line = make_line (i, rand);

      g_array_append_val (lines->starts, file->len);
      g_string_append (file, line);
      g_string_append_c (file, '\n');
    }
  lines->length = file->len;
  lines->contents = g_string_free (file, FALSE);
}

typedef enum
{
  MODE_BYTE_LOOP,
  MODE_JSON_GLIB_PARSE,
  MODE_REFERENCE,
  MODE_FAST,
} Mode;

static volatile guint sink;

/* CPU seconds of this thread: the benchmarks share a small machine with
 * builds and test runs, and wall time would charge their load to us. */
static double
cpu_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds for one pass over every line in @mode; the best of a few
 * runs, so a cold cache or a scheduler hiccup does not count. */
static double
run (Lines *lines,
     Mode   mode)
{
  double best = G_MAXDOUBLE;

  for (guint round = 0; round < 5; round++)
    {
      double start = cpu_now ();
      guint checksum = 0;

      for (guint i = 0; i < lines->starts->len; i++)
        {
          gsize from = g_array_index (lines->starts, gsize, i);
          gsize to = (i + 1 < lines->starts->len ? g_array_index (lines->starts, gsize, i + 1)
                                                 : lines->length) - 1;
          const char *line = lines->contents + from;
          gsize length = to - from;

          switch (mode)
            {
            case MODE_BYTE_LOOP:
              /* Touch every byte the way a scanner must: find the quotes. */
              for (gsize j = 0; j < length; j++)
                checksum += line[j] == '"';
              break;

            case MODE_JSON_GLIB_PARSE:
              {
                g_autoptr(JsonParser) parser = json_parser_new_immutable ();

                checksum += json_parser_load_from_data (parser, line, length, NULL);
              }
              break;

            case MODE_REFERENCE:
              {
                g_autoptr(JsonNode) node = natter_json_from_line_reference (line, length, NULL);

                if (node == NULL)
                  g_error ("reference refused line %u", i);
                checksum++;
              }
              break;

            case MODE_FAST:
            default:
              {
                g_autoptr(JsonNode) node = natter_json_from_line (line, length, NULL);

                if (node == NULL)
                  g_error ("fast path refused line %u", i);
                checksum++;
              }
              break;
            }
        }
      sink = checksum;
      best = MIN (best, cpu_now () - start);
    }
  return best;
}

static void
bench_strict_read (void)
{
  const char *bench = "strict line read (100,000 events)";
  Lines lines = { 0 };
  double mb, loop_s, parse_s, reference_s, fast_s;

  make_lines (&lines);
  mb = lines.length / 1e6;

  loop_s = run (&lines, MODE_BYTE_LOOP);
  parse_s = run (&lines, MODE_JSON_GLIB_PARSE);
  reference_s = run (&lines, MODE_REFERENCE);
  fast_s = run (&lines, MODE_FAST);

  natter_bench_row (bench, "file size", mb, "MB");
  natter_bench_row (bench, "floor: byte loop", mb / loop_s, "MB/s");
  natter_bench_row (bench, "json-glib JsonParser alone", mb / parse_s, "MB/s");
  natter_bench_row (bench, "reference (parse + regenerate)", mb / reference_s, "MB/s");
  natter_bench_row (bench, "natter_json_from_line (fast)", mb / fast_s, "MB/s");
  natter_bench_row (bench, "fast vs reference", reference_s / fast_s, "x");
  natter_bench_row (bench, "fast vs JsonParser alone", parse_s / fast_s, "x");

  g_array_unref (lines.starts);
  g_free (lines.contents);
}

static const NatterBenchCase cases[] = {
  { "strict-read-100k", bench_strict_read },
};

int
main (int   argc,
      char *argv[])
{
  return natter_bench_main (argc, argv, cases, G_N_ELEMENTS (cases));
}
