/* test-chat-stream.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-chat-stream share (test-chat-stream-fixture.c).
 */

#pragma once

#include <string.h>

#include "natter-chat-stream.h"
#include "natter-json.h"
#include "natter-sse-parser.h"
#include "natter-test-support.h"

#define CASE_SEED "turn1-0"

typedef struct
{
  NatterChatStream *stream;
  GError           *error;
  GString          *text_deltas;
  GString          *reasoning_deltas;
} Outcome;

/* Cases */

typedef enum
{
  MODE_WHOLE,
  MODE_SPLIT_EVERY_BYTE,
  MODE_BYTE_AT_A_TIME,
  MODE_JSON_BODY,
} Mode;

typedef struct
{
  char *name;
  char *input_path;
  char *expect_path;
  Mode  mode;
} Case;

/* Unit tests of the assembler's own rules */

#define CHUNK(delta_json, finish_json) \
  "data: {\"choices\":[{\"index\":0,\"delta\":" delta_json ",\"finish_reason\":" finish_json "}]}\n\n"

#define TOOL(fragment) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[" fragment "]},\"finish_reason\":null}]}\n\n"
#define STOP CHUNK ("{}", "\"stop\"")

void outcome_free (Outcome *outcome);
gboolean sse_event_cb (const char  *event_name,
                       const char  *data,
                       gsize        data_len,
                       gpointer     user_data,
                       GError     **error);
Outcome *run_whole (const char *input,
                    gsize       len);
Outcome *run_json_body (const char *input,
                        gsize       len);
void case_free (gpointer data);
void add_case_tests (GPtrArray *keep_alive);
Outcome *run_text (const char *sse);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Outcome, outcome_free)

/* The scenarios of the other files, registered by main(). */
void chat_stream_add_errors_tests (void);
