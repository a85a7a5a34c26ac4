/* test-cli.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-cli share (test-cli-fixture.c): the scripted
 * model, a responder of tests/support's server; running the binary; and
 * readers of what it wrote.
 */

#pragma once

#include <string.h>

#include "natter-data-dir-lock.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-jsonl-repo.h"
#include "natter-test-server.h"
#include "natter-test-support.h"

#define API_KEY "sk-cli-SECRET-7"
#define WAIT_MS 30000

/* ------------------------------------------------------------------ */
/* The scripted model                                                  */
/* ------------------------------------------------------------------ */

#define SSE "text/event-stream"
#define CHUNK(delta) "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" delta "\"}}]}\n\n"
#define FINISH(reason) "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"" reason "\"}]}\n\n"
#define DONE "data: [DONE]\n\n"
#define TOOL_CALL(id, name, args) \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"" id "\"," \
  "\"type\":\"function\",\"function\":{\"name\":\"" name "\",\"arguments\":\"" args "\"}}]}}]}\n\n"

typedef struct
{
  const char *chunks;      /* one SSE body */
  gboolean    keep_open;   /* never finish: the child is killed meanwhile */
} Step;

extern const Step ANSWER;
extern const Step HANG;
extern const Step TITLE;
extern const Step ASK_COLOUR;

/* The scripted model: tests/support's server, answering the chat
 * requests with the steps of the script in order and GET /v1/models with
 * @models. */
typedef struct
{
  NatterTestServer *http;
  const char       *base_url;   /* the server's */
  GPtrArray        *script;     /* const Step* */
  GPtrArray        *bodies;     /* const char*: each chat request's body (the server's string) */
  char             *read_call;  /* the read_file tool call step, built per test */
  Step              read_step;
  const char       *models;     /* the body of GET /v1/models, or NULL: not asked */
  guint             n_models;   /* how often it was asked */
  const char       *chunks[2];  /* the answer being written */
} Server;

/* ------------------------------------------------------------------ */
/* Running the binary                                                  */
/* ------------------------------------------------------------------ */

typedef struct
{
  GFile    *dir;           /* NATTER_DATA_DIR */
  Server   *server;
  char     *file;          /* a file for read_file to read */
  gboolean  own_provider;  /* the server is the configured default (use_own_provider()) */
  const char *test_point;  /* an environment variable set for the command, or NULL */
} Fixture;

#define RUN(f, result, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    run_argv ((f), run_args_, (result)); \
  } G_STMT_END

/* Runs natter with the arguments after @session_id and @turn_id into
 * @result (as RUN does: clear it first if it holds a run), asserts it succeeded with nothing on stderr,
 * and keeps the "session X\nturn Y" it printed (either may be NULL). */
#define RUN_IDS(f, result, session_id, turn_id, ...) \
  G_STMT_START { \
    const char * const run_args_[] = { __VA_ARGS__, NULL }; \
    run_ids ((f), run_args_, (result), (session_id), (turn_id)); \
  } G_STMT_END

/* The first message of a new conversation with the scripted server's
 * "m1", untitled: the start of most scenarios. */
#define NEW_SESSION(f) "send", "--no-auto-title", "--base-url", (f)->server->base_url, "--model", "m1"

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

void use_own_provider (Fixture *f);
void use_own_provider_listed (Fixture *f);
void run_argv (Fixture            *f,
               const char * const *args,
               NatterTestRun      *result);
void run_ids (Fixture            *f,
              const char * const *args,
              NatterTestRun      *result,
              char              **session_id,
              char              **turn_id);
void parse_ids (const char  *out,
                char       **session_id,
                char       **turn_id);
void script (Fixture *f,
             ...);
guint count_turn_files (Fixture *f);
void fixture_set_up (Fixture       *f,
                     gconstpointer  data);
void fixture_tear_down (Fixture       *f,
                        gconstpointer  data);
guint count_lines (const char *text);
JsonObject *request_body (Fixture *f,
                          guint    index);
char *session_file_contents (Fixture    *f,
                             const char *session_id);
char *session_types (const char *contents);
char *turn_file_path (Fixture    *f,
                      const char *turn_id);
void keep_first_line_of_turn_file (Fixture    *f,
                                   const char *turn_id);
void append_to_turn_file (Fixture    *f,
                          const char *turn_id,
                          const char *text);
guint count_substring (const char *text,
                       const char *part);
JsonObject *listed_entry (Fixture    *f,
                          const char *session_id);
char *lose_a_promotion (Fixture    *f,
                        const char *text);
char *session_status (Fixture    *f,
                      const char *session_id);
char *send_killed_mid_answer (Fixture    *f,
                              const char *extra);
char *send_killed_after_words_kept (Fixture    *f,
                                    const char *extra);
char *listed_title (Fixture    *f,
                    const char *session_id);

/* The scenarios of the other files, registered by main(). */
void cli_add_organise_tests (void);
void cli_add_titles_tests (void);
void cli_add_archive_tests (void);
void cli_add_control_tests (void);
