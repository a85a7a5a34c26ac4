/* oracle-model.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An independent model of Natter's conversations, written from the
 * documents (docs/sessions.md, docs/format.md, docs/runtime.md,
 * and the design notes they were written from) and not from the code, so that
 * it can disagree with it. It knows which sessions exist, what each shows
 * (its inherited and own turns), every turn's message, context, answers,
 * tool calls and status, the queues, grants, pending compactions, titles
 * and versions; it says what the model must receive in every call
 * (oracle_expected_request()) and what every reading of a session must
 * show (oracle_expected_view()). It uses GLib and json-glib only: nothing
 * of Natter's.
 *
 * The driver (oracle-driver.c) applies to it every operation it runs on
 * the real services, and every model call the scripted server answers.
 */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* read_file's registry id (its descriptor's toolId): what a grant names
 * (docs/format.md §3.3). */
#define ORACLE_READ_FILE_ID "natter.read_file"

typedef struct _Oracle        Oracle;
typedef struct _OSession      OSession;
typedef struct _OTurn         OTurn;
typedef struct _OMsg          OMsg;
typedef struct _OToolCall     OToolCall;
typedef struct _OFolder       OFolder;

/* Generation parameters (docs/format.md §3.5): what a conversation keeps,
 * what a message carries of its own, what a turn is sent with. Owned by
 * the oracle (oracle_params_new()). */
typedef struct
{
  gboolean  has_temperature;
  double    temperature;
  gboolean  has_top_p;
  double    top_p;
  gint64    max_tokens;     /* 0: not set */
  gboolean  has_seed;
  gint64    seed;
  char     *instruction;    /* the words added to the system prompt, or NULL */
} OParams;

/* A folder of conversations (docs/format.md §8), named by its id. */
struct _OFolder
{
  char     *id;
  char     *name;
  gboolean  deleted;
};

/* A file a message carries, or that `read_file` reads. */
typedef struct
{
  char *name;
  char *path;
  char *content;   /* NULL: not UTF-8 (read_file reports it as binary) */
  gboolean damaged; /* an attachment whose blob no longer reads whole */
} OFile;

typedef enum
{
  OMSG_USER,
  OMSG_SUMMARY,     /* the user message standing for a compacted past */
  OMSG_ASSISTANT,
  OMSG_TOOL,
} OMsgKind;

/* One tool call as the model wrote it. */
typedef struct
{
  char     *id;
  char     *name;
  char     *args;  /* JSON text, or the raw text of unusable arguments */
  gboolean  raw;
} OCall;

struct _OMsg
{
  OMsgKind   kind;
  /* user: the words; summary: the summary; assistant: the text; tool:
   * the content, or NULL while a text the runtime makes up (a denial, a
   * stop, a failed read) is still to be learned from the first request
   * that carries it. */
  char      *text;
  GPtrArray *files;    /* user: OFile* (owned by the oracle) */
  GPtrArray *calls;    /* assistant: OCall* */
  char      *call_id;  /* tool */
  OParams   *params;   /* user: the message's own parameters (`natter send --temperature …`), or NULL */
};

typedef enum
{
  OCALL_READ,     /* read_file: needs permission */
  OCALL_ASK,      /* ask_human: needs an answer */
  OCALL_BAD,      /* arguments that do not parse: never run */
} OCallKind;

typedef enum
{
  OC_AWAIT_PERMISSION,
  OC_AWAIT_ANSWER,
  OC_DONE,
  OC_ERROR,
  OC_DENIED,
} OCallState;

struct _OToolCall
{
  OCallKind   kind;
  char       *id;
  char       *name;
  OCallState  state;
  OFile      *file;       /* read: the file asked for, or NULL: a missing one */
  char       *question;   /* ask */
  OMsg       *result;     /* once it has one */
  guint       round;
};

typedef enum
{
  OT_WAITING_CALL,  /* its next model call is due */
  OT_HELD,          /* a model call streams and has not ended */
  OT_SUSPENDED,
  OT_COMPLETED,
  OT_FAILED,
  OT_CANCELLED,
  OT_IDLE,          /* interrupted: resumed only by the person */
} OTStatus;

typedef enum
{
  OCTX_NONE,
  OCTX_PREV,
  OCTX_INLINE,
} OCtxKind;

struct _OTurn
{
  guint      n;            /* the oracle's number, for the log */
  char      *id;           /* the real id, once known */
  OSession  *owner;
  OMsg      *input;
  OCtxKind   ctx;
  OTurn     *prev;         /* OCTX_PREV */
  GPtrArray *inline_msgs;  /* OCTX_INLINE: OMsg* */
  GPtrArray *own;          /* OMsg*: the input, then what the turn produced */
  GPtrArray *calls;        /* OToolCall*, in model order */
  OTStatus   status;
  guint      max_calls;
  guint      n_calls;      /* model calls requested so far (re-issues count) */
  guint      rounds;       /* responses with tool calls */
  gboolean   open_call;    /* a model call was requested and has no result */
  char      *answer;       /* the final answer of a completed turn */
  char      *fail_code;
  gboolean   damaged;      /* its file breaks the history: torn, or its end lost */
  gboolean   end_lost;     /* damaged by losing every line after its first: each line reads */
  gboolean   in_child;     /* a `natter` process runs it */
  gint       held_index;   /* the server's request index while HELD */
  gboolean   forgotten;    /* its conversation was removed again */
  OTurn     *copy_of;      /* an imported copy: the turn it copies */
  OParams   *sent;         /* the parameters its model calls carry (NULL: none) */
  gboolean   params_open;  /* what it is sent with is not determined */
};

typedef enum
{
  OTITLE_NONE,
  OTITLE_DEFAULT,    /* derived from the first message */
  OTITLE_SET,        /* given at creation, renamed, imported */
  OTITLE_AUTO,       /* asked of the model */
  OTITLE_UNKNOWN,    /* not determined by the documents */
} OTitleKind;

typedef struct
{
  char  *id;          /* NULL until known */
  OMsg  *input;
  guint  max_calls;   /* its own options' maxModelCalls, 0: the default */
} OQueued;

typedef struct
{
  char *id;
  char *tool;
} OGrant;

struct _OSession
{
  guint       n;
  char       *id;
  OSession   *parent;
  OTurn      *fork_turn;     /* NULL: a first message's version, or no parent */
  GPtrArray  *own;           /* OTurn* */
  char       *title;
  OTitleKind  title_kind;
  gboolean    title_wanted;  /* a title request is due */
  gboolean    title_asked;   /* one was: it is asked once */
  gboolean    title_in_child; /* answered to a `natter` process, which may die before writing it */
  gboolean    untitled;      /* turns and no title (an imported branch): the next message names it */
  GPtrArray  *queue;         /* OQueued* */
  GPtrArray  *grants;        /* OGrant* */
  char       *compaction;    /* a pending compaction's summary */
  OTurn      *first_kept;
  char       *last_compaction;  /* the last compaction of the log, used or not */
  OTurn      *last_first_kept;
  OSession   *version_of;    /* made as a new version of a message shown in this one */
  gboolean    created_titled; /* session_created carried a title */
  gboolean    version_default; /* a version of the first message created with its conversation's default title */
  gboolean    created_title_unknown; /* whether it did is not determined */
  gboolean    recovered;     /* a copy of a damaged session's readable part */
  gboolean    lineage_open;  /* its parent is not determined (a version made in a recovered copy's first turns) */
  guint       n_recovered;   /* its first visible turns, copied or referenced */
  gboolean    imported;
  GPtrArray  *not_imported;  /* OMsg*: the queued messages its archive held */
  gboolean    no_versions;   /* versions are not determined (recovery) */
  gboolean    diverged;      /* a deferred failure left it unlike the model: left alone */
  gboolean    deleted;       /* deleted (docs/sessions.md §9.4): in Oracle.gone, its turns still shown by its versions */
  /* What its own file keeps for its conversation (docs/format.md §3.5,
   * §3.6): read through its original (oracle_settings_holder()). */
  OParams    *params;
  gboolean    pinned;
  OFolder    *folder;
  gboolean    settings_open; /* not determined by the documents */
  guint       active;        /* when a turn was last appended (or it was created), in the oracle's clock */
};

/* What became of a message (oracle_send() and the versions). */
typedef enum
{
  OSEND_TURN,
  OSEND_QUEUED,
  OSEND_NOT_SETTLED,
  OSEND_HISTORY_DAMAGED,
  OSEND_CORRUPT,
  OSEND_INVALID,        /* a compaction with nothing to summarize */
  OSEND_REFUSED,        /* refused, for a reason the documents do not name */
} OSendOutcome;

typedef struct
{
  OSendOutcome  outcome;
  OSession     *session;    /* where it went (a new one for a version) */
  OTurn        *turn;       /* OSEND_TURN */
  OQueued      *queued;     /* OSEND_QUEUED */
  OTurn        *promoted;   /* a queued message sent first */
  gboolean      created;    /* @session was made for the message */
} OSendResult;

/* How the scripted model answers one call. */
typedef enum
{
  ORESP_ANSWER,
  ORESP_TOOLS,
  ORESP_FAIL,
  ORESP_HOLD,
  ORESP_TITLE,
  ORESP_SUMMARY,
  ORESP_UNEXPECTED,
} ORespKind;

typedef struct
{
  ORespKind  kind;
  OTurn     *turn;        /* the turn whose call it is, if any */
  char      *wire_text;   /* the answer's text as a JSON string body (escaped) */
  GPtrArray *wire_calls;  /* OCall*: tool calls as sent (args raw JSON text) */
  char      *error_body;  /* ORESP_FAIL: the HTTP body */
  gboolean   overflow;    /* the failure says the context is too long */
  char      *mismatch;    /* the body was not what the oracle expected: why */
  OSession  *mismatch_session;
  const char *mismatch_kind;
} OResponse;

struct _Oracle
{
  GRand      *rand;
  GPtrArray  *sessions;   /* OSession*, in creation order */
  GPtrArray  *gone;       /* OSession* removed again: a refused message's, or deleted */
  GPtrArray  *turns;      /* OTurn*, every one */
  GPtrArray  *msgs;       /* OMsg*, owned */
  GPtrArray  *files;      /* OFile*, owned */
  GPtrArray  *read_files; /* OFile*: what read_file may read */
  GPtrArray  *attachable; /* OFile*: what a message may carry */
  char       *missing_path;
  guint       next_session;
  guint       next_text;
  guint       next_call;
  guint       next_title;
  guint       next_summary;
  GPtrArray  *summaries;  /* char*: summaries handed out, for a compaction to find */
  OSession   *compacting; /* the session a summary is being made for */
  guint       compact_keep;
  OMsg       *deferred_input;   /* Compact and Continue: sent once the summary is made */
  gboolean    deferred_in_child;
  OSession   *deferred_queue_from; /* whose queue goes on to the deferred turn's session */
  guint       n_title_requests;
  guint       n_summary_requests;
  guint       n_model_calls;
  gboolean    weird_text; /* answers may hold control characters, NUL, lone surrogates */
  guint       max_held;   /* streams held open at once */
  GString    *log;        /* what happened, for a failure's report */
  GPtrArray  *params;     /* OParams*, owned */
  GPtrArray  *folders;    /* OFolder*, owned, in creation order (deleted ones too) */
  guint       clock;
  guint       next_instruction;
};

Oracle     *oracle_new                 (guint32       seed,
                                        const char   *dir);
void        oracle_free                (Oracle       *o);
void        oracle_log                 (Oracle       *o,
                                        const char   *format,
                                        ...) G_GNUC_PRINTF (2, 3);

char       *oracle_new_text            (Oracle       *o,
                                        gboolean      plain);
OMsg       *oracle_user_msg            (Oracle       *o,
                                        const char   *text,
                                        GPtrArray    *files);

GPtrArray  *oracle_visible             (OSession     *s);
GPtrArray  *oracle_history_from_files  (OSession     *s);
gboolean    oracle_shown_from_files    (Oracle       *o,
                                        OTurn        *t);
GPtrArray  *oracle_search_owners       (Oracle       *o,
                                        OTurn        *t);
OTurn      *oracle_latest              (OSession     *s);
OTurn      *oracle_latest_own          (OSession     *s);
gboolean    oracle_turn_settled        (OTurn        *t);
gboolean    oracle_turn_terminal       (OTurn        *t);
gboolean    oracle_history_damaged     (OSession     *s);
gboolean    oracle_session_shows_damage (OSession    *s);
gboolean    oracle_carries_damaged     (OTurn        *t);
gboolean    oracle_history_unreadable  (OSession     *s);
gboolean    oracle_shows_damaged_attachment (OSession *s);
gboolean    oracle_attachment_needed   (Oracle       *o,
                                        OFile        *file);
gboolean    oracle_session_quiet       (OSession     *s);
gboolean    oracle_turn_is_depended_on (Oracle       *o,
                                        OTurn        *t);
OSession   *oracle_original            (OSession     *s);
gboolean    oracle_named_by_copy       (Oracle       *o,
                                        OTurn        *t);
gboolean    oracle_from_import         (OSession     *s);

/* Operations: each applies the documented behaviour and says what must
 * happen. */
OSession   *oracle_new_session         (Oracle       *o);
void        oracle_forget_session      (Oracle       *o,
                                        OSession     *s);
gboolean    oracle_deletable           (Oracle       *o,
                                        OSession     *s);
void        oracle_delete              (Oracle       *o,
                                        OSession     *s);
OSendResult oracle_send                (Oracle       *o,
                                        OSession     *s,
                                        OMsg         *input,
                                        gboolean      queue,
                                        guint         max_calls,
                                        gboolean      in_child);
OSendResult oracle_new_version         (Oracle       *o,
                                        OSession     *shown_in,
                                        OTurn        *of,
                                        OMsg         *input,
                                        gboolean      compact_first,
                                        gboolean      in_child);
gboolean    oracle_can_compact         (Oracle       *o,
                                        OSession     *s,
                                        guint         keep);
void        oracle_begin_compaction    (Oracle       *o,
                                        OSession     *s,
                                        guint         keep);
/* A branch of @s at @at, asked of @asked (which shows it); NULL when it
 * is refused (a damaged history). */
OSession   *oracle_fork                (Oracle       *o,
                                        OSession     *s,
                                        OTurn        *at,
                                        OSession     *asked);
void        oracle_stop                (Oracle       *o,
                                        OTurn        *t);
void        oracle_allow               (Oracle       *o,
                                        OTurn        *t,
                                        OToolCall    *call,
                                        gboolean      always);
void        oracle_deny                (Oracle       *o,
                                        OTurn        *t,
                                        OToolCall    *call);
void        oracle_answer              (Oracle       *o,
                                        OTurn        *t,
                                        OToolCall    *call,
                                        const char   *text);
void        oracle_resume              (Oracle       *o,
                                        OTurn        *t,
                                        gboolean      in_child);
void        oracle_release             (Oracle       *o,
                                        OTurn        *t);
void        oracle_killed              (Oracle       *o);
void        oracle_unqueue             (Oracle       *o,
                                        OSession     *s,
                                        OQueued      *q);
OGrant     *oracle_grant               (Oracle       *o,
                                        OSession     *s,
                                        const char   *tool);
void        oracle_revoke              (Oracle       *o,
                                        OSession     *s,
                                        OGrant       *g);
void        oracle_rename              (Oracle       *o,
                                        OSession     *s,
                                        const char   *title);
OSession   *oracle_import              (Oracle       *o,
                                        OSession     *s);
gboolean    oracle_end_may_be_lost     (Oracle       *o,
                                        OTurn        *t);
void        oracle_lose_end            (Oracle       *o,
                                        OTurn        *t);
void        oracle_damage              (Oracle       *o,
                                        OTurn        *t);
void        oracle_damage_attachment   (Oracle       *o,
                                        OFile        *file);
OSession   *oracle_recover             (Oracle       *o,
                                        OSession     *s);
OTurn      *oracle_crash_appended      (Oracle       *o,
                                        OSession     *s,
                                        OMsg         *input);

/* Pins, folders and generation parameters (oracle-model-settings.c) */
OParams    *oracle_params_new          (Oracle       *o);
OParams    *oracle_params_copy         (Oracle       *o,
                                        const OParams *p,
                                        gboolean      with_instruction);
OParams    *oracle_params_overlay      (Oracle       *o,
                                        const OParams *under,
                                        const OParams *top);
gboolean    oracle_params_empty        (const OParams *p);
char       *oracle_params_text         (const OParams *p);
OParams    *oracle_draw_params         (Oracle       *o,
                                        gboolean      with_instruction);
OSession   *oracle_settings_holder     (OSession     *s);
gboolean    oracle_settings_known      (OSession     *s);
void        oracle_set_pinned          (Oracle       *o,
                                        OSession     *s,
                                        gboolean      pinned);
void        oracle_set_folder          (Oracle       *o,
                                        OSession     *s,
                                        OFolder      *folder);
void        oracle_set_params          (Oracle       *o,
                                        OSession     *s,
                                        OParams      *params);
OFolder    *oracle_folder_new          (Oracle       *o,
                                        const char   *id,
                                        const char   *name);
OFolder    *oracle_folder_find         (Oracle       *o,
                                        const char   *name);
void        oracle_folder_rename       (Oracle       *o,
                                        OFolder      *folder,
                                        const char   *name);
void        oracle_folder_delete       (Oracle       *o,
                                        OFolder      *folder);
const char *oracle_folder_restore      (Oracle       *o,
                                        OFolder      *folder);
void        oracle_settings_expected   (Oracle       *o,
                                        OSession     *s,
                                        JsonObject   *view);
char       *oracle_check_request_params (OTurn       *t,
                                         JsonObject  *body);

/* Model calls, as the server sees them arrive. */
GPtrArray  *oracle_waiting_turns       (Oracle       *o);
gboolean    oracle_quiet               (Oracle       *o);
OResponse  *oracle_answer_request      (Oracle       *o,
                                        const char   *body,
                                        gboolean      child_running);
void        oracle_response_free       (OResponse    *r);
char       *oracle_request_kind        (const char   *body);

/* What a request and a reading must show. */
GPtrArray  *oracle_expected_request    (OTurn        *t);
JsonNode   *oracle_expected_view       (Oracle       *o,
                                        OSession     *s);
GPtrArray  *oracle_expected_versions   (Oracle       *o,
                                        OSession     *s);
const char *oracle_status_name         (OTurn        *t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Oracle, oracle_free)

G_END_DECLS
