/* natter-cli-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the parts of the command line share: one run of a subcommand,
 * the command table's row, the output helpers (natter-cli-output.c), the
 * subcommands (natter-cli-commands.c) and the reporting of their results
 * (natter-cli-report.c). Not installed, not used outside src/cli.
 */

#pragma once

#include <json-glib/json-glib.h>

#include "natter-cli.h"
#include "natter-cli-locale.h"
#include "natter-device.h"
#include "natter-generation-parameters.h"
#include "natter-turn-reducer.h"

G_BEGIN_DECLS

typedef struct _Run Run;

typedef enum
{
  OPT_MODEL      = 1 << 0,   /* --provider, --base-url, --model, --max-model-calls */
  OPT_SESSION    = 1 << 1,   /* --session, --auto-permission, --no-auto-title */
  OPT_JSON       = 1 << 2,   /* --json */
  OPT_KEEP       = 1 << 3,   /* --keep */
  OPT_ATTACH     = 1 << 4,   /* --attach FILE… */
  OPT_EXPORT     = 1 << 5,   /* --format, --output */
  OPT_IMPORT     = 1 << 6,   /* --from */
  OPT_ALWAYS     = 1 << 7,   /* --always */
  OPT_QUEUE      = 1 << 8,   /* --queue */
  OPT_TOOLS      = 1 << 9,   /* may advance a turn: the tool servers' tools are listed first */
  OPT_COMPACT    = 1 << 10,  /* --compact */
  OPT_PARAMS     = 1 << 11,  /* --temperature, --top-p, --max-tokens, --seed, --system */
  OPT_CLEAR      = 1 << 12,  /* --clear */
  OPT_NONE       = 1 << 13,  /* --none */
  OPT_PROVIDER   = 1 << 14,  /* --provider, --base-url: whose server, without a model */
  OPT_HERE       = 1 << 15,  /* --here */
  OPT_WRITE      = 1 << 16,  /* --write-ignore */
  OPT_IN         = 1 << 17,  /* --session: where a turn is used, when several conversations hold it */
  OPT_READ_ONLY  = 1 << 18,  /* only reads the data directory: runs without the writer lock too */
} OptionSet;

typedef struct
{
  const char *name;
  const char *parameters;   /* translatable */
  const char *summary;      /* translatable */
  guint       min_args;
  guint       max_args;     /* G_MAXUINT: the rest is one text joined by spaces */
  OptionSet   options;
  void      (*start) (Run *run);
} Command;

/* The _finish of a sessions operation that returns only success. */
typedef gboolean (*BooleanFinish) (NatterSessions  *sessions,
                                   GAsyncResult    *result,
                                   GError         **error);

struct _Run
{
  GTask                   *task;
  NatterServices          *services;
  GApplicationCommandLine *cmdline;
  const Command           *command;

  /* Options */
  char                    *session_id;
  gboolean                 auto_permission;
  gboolean                 no_auto_title;
  int                      keep;        /* --keep; 0 when not given */
  char                    *base_url;
  char                    *provider;    /* --provider */
  char                    *model;
  int                      max_model_calls;
  gboolean                 json;
  gboolean                 always;
  gboolean                 here;
  gboolean                 write_ignore;
  gboolean                 queue;
  gboolean                 compact;     /* retry --compact */
  gboolean                 help;
  char                    *format;      /* export */
  char                    *output;      /* export */
  char                    *from;        /* import */
  char                    *parameter_texts[4]; /* --temperature, --top-p, --max-tokens, --seed
                                                * as typed, by NatterParameter */
  char                    *system;      /* --system */
  gboolean                 clear;       /* params --clear */
  gboolean                 none;        /* folder --none */
  GStrv                    args;        /* positional arguments */
  GStrv                    attach;      /* --attach FILE, as given */
  char                    *text;        /* the joined message, for MESSAGE commands */

  /* Progress */
  JsonArray               *attachments; /* the stored `blob` parts */
  void                   (*after_attachments) (Run *run);
  void                   (*print_session) (Run *run, NatterSessionState *state);
  char                    *turn_id;
  JsonObject              *descriptor;
  gboolean                 cancel_is_success;
  NatterSessionState      *session;
  guint                    next_turn;
  JsonArray                *shown_turns;
  JsonArray                *inherited_turns; /* show: a deleted parent's, from the turn files */
  char                    *latest_before;  /* send: the session's latest turn when it began */
  int                      exit_floor;     /* the least exit status the run ends with */
  guint                    searches;       /* search: the searches run, one more after a rebuild */
  BooleanFinish            boolean_finish; /* for boolean_done_cb() */
};

/* A text of the command line, in its caller's language
 * (natter-cli-locale.c): mark texts with these, not _(). */
#define natter_cli_tr(run, text) natter_cli_gettext ((run)->cmdline, (text))
#define natter_cli_ntr(run, text, plural, n) natter_cli_ngettext ((run)->cmdline, (text), (plural), (n))

/* natter-cli-output.c: output, always through the command line object */
void natter_cli_out        (Run        *run,
                            const char *format,
                            ...) G_GNUC_PRINTF (2, 3);
void natter_cli_out_exact  (Run        *run,
                            const char *text);
void natter_cli_out_json   (Run        *run,
                            JsonNode   *node);
void natter_cli_out_json_array (Run       *run,
                                JsonArray *array);
void natter_cli_out_json_object (Run        *run,
                                 JsonObject *object);
char *natter_cli_one_line  (const char *text);
void natter_cli_finish     (Run        *run,
                            int         status);
void natter_cli_fail       (Run        *run,
                            int         status,
                            const char *format,
                            ...) G_GNUC_PRINTF (3, 4);
void natter_cli_fail_error (Run        *run,
                            GError     *error);
void natter_cli_fail_cancelled (Run        *run,
                                const char *reason);
gboolean natter_cli_is_damage_refusal (const GError *error);
void natter_cli_fail_send_error (Run    *run,
                                 GError *error);
void natter_cli_fail_damaged (Run        *run,
                              GError     *error,
                              const char *session_id);
void natter_cli_fail_turn_error (Run        *run,
                                 GError     *error,
                                 const char *session_id);

/* natter-cli-session.c: the session a command names */
NatterSessionIndexEntry *natter_cli_find_session   (Run        *run,
                                                   const char *session_id);
NatterSessionIndexEntry *natter_cli_lookup_session (Run        *run,
                                                    const char *session_id);
void natter_cli_print_session (Run  *run,
                               void (*print) (Run *run, NatterSessionState *state));

/* natter-cli-report.c */
void        natter_cli_report_turn_id   (Run                     *run);
void        natter_cli_wait_and_report  (Run                     *run);
void        natter_cli_print_sessions   (Run                     *run);
JsonObject *natter_cli_arriving_turn_summary (const NatterSessionTurn *turn);
void        natter_cli_add_partial_answer (JsonObject *summary,
                                           const char *text,
                                           const char *end);
JsonObject *natter_cli_turn_summary     (const NatterSessionTurn *turn,
                                        NatterTurnState         *state,
                                        NatterDevice            *here);
void        natter_cli_print_show_text  (Run                     *run);
void        natter_cli_follow_queue     (Run                     *run);

/* natter-cli-commands.c: the subcommands, started from the command table */
void natter_cli_command_ask        (Run *run);
void natter_cli_command_send       (Run *run);
void natter_cli_command_sessions   (Run *run);
void natter_cli_command_show       (Run *run);
void natter_cli_command_permission (Run *run);
void natter_cli_command_answer     (Run *run);
void natter_cli_command_deliver    (Run *run);
void natter_cli_command_stop       (Run *run);
void natter_cli_command_resume     (Run *run);
void natter_cli_command_sync       (Run *run);
void natter_cli_command_title      (Run *run);
void natter_cli_command_delete     (Run *run);
void natter_cli_command_fork       (Run *run);
void natter_cli_command_recover    (Run *run);
void natter_cli_command_compact    (Run *run);
void natter_cli_command_retry      (Run *run);

/* natter-cli-mcp.c */
void natter_cli_command_mcp        (Run *run);
void natter_cli_mcp_refresh        (Run  *run,
                                    void (*then) (Run *run));

/* natter-cli-archive.c */
void natter_cli_command_export     (Run *run);
void natter_cli_command_import     (Run *run);

/* natter-cli-search.c */
void natter_cli_command_search     (Run *run);

/* natter-cli-queue.c */
void natter_cli_command_queue        (Run *run);
void natter_cli_command_unqueue      (Run *run);
void natter_cli_note_latest          (Run *run);
void natter_cli_queued               (Run        *run,
                                      const char *queue_id);
void natter_cli_fail_after_promotion (Run    *run,
                                      GError *error);

/* natter-cli-params.c */
void     natter_cli_command_params     (Run                         *run);
gboolean natter_cli_read_parameters    (Run                         *run,
                                        NatterGenerationParameters  *parameters);
gboolean natter_cli_has_parameters     (Run                         *run);

/* natter-cli-folders.c */
void natter_cli_command_pin          (Run *run);
void natter_cli_command_folder       (Run *run);

/* natter-cli-models.c */
void natter_cli_command_models       (Run *run);

/* natter-cli-transcribe.c */
void natter_cli_command_transcribe   (Run *run);

/* natter-cli-grants.c */
void natter_cli_command_grant        (Run *run);
void natter_cli_command_grants       (Run *run);
void natter_cli_command_revoke       (Run *run);
void natter_cli_command_allow_always (Run *run);

G_END_DECLS
