/* natter-session-scan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The startup scan's read of a session file (docs/sessions.md §8.2
 * step 2) without a JsonNode tree per line. The full read
 * (natter_session_reduce_file_sync())
 * builds, seals and frees a tree for every line only to keep a few
 * strings; at 10,000 sessions that was most of the scan. Here each line
 * goes through natter_json_line_scan_object(), which accepts exactly the
 * lines the tree builder accepts, and the session schema
 * (natter_session_event_validate()), the repository's line rules and the
 * reducer's invariants are applied to its spans, folding straight into
 * the index entry's fields.
 *
 * The rules are the same, so a file is accepted here exactly when the
 * full read accepts it — tests/store/test-session-scan.c and
 * fuzz/fuzz-session-scan.c hold the two paths to it. Only the verdict is
 * computed here: a refused file is read again by the full path, which
 * gives the error (code and `<path>:<line>: <reason>` message) the rest
 * of Natter reports for it. Corrupt files are rare, and one error text
 * is better than two that drift apart.
 */

#define G_LOG_DOMAIN "natter-session-scan"

#include <string.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-json-private.h"
#include "natter-jsonl-repo-private.h"
#include "natter-log-read.h"
#include "natter-session-reducer.h"
#include "natter-session-reducer-private.h"
#include "natter-session-scan.h"
#include "natter-session-schema.h"
#include "natter-session-parameters-state.h"
#include "natter-session-placement-state.h"

/* session_created and turn_appended with consumedQueueIds have the most
 * members (8); a line with more is refused
 * whatever they are, since duplicates are refused and the set is closed. */
#define MAX_EVENT_MEMBERS 8

typedef enum
{
  F_TYPE,
  F_SESSION_ID,
  F_TS,
  F_SCHEMA_VERSION,
  F_TITLE,
  F_CWD,
  F_PARENT_SESSION,
  F_FORKED_FROM,
  F_TURN_ID,
  F_SESSION_SEQ,
  F_AGENT_ID,
  F_MODEL,
  F_CONSUMED,
  N_FIELDS
} Field;

#define FIELD(name) { name, sizeof (name) - 1 }

static const struct
{
  const char *name;
  gsize       length;
} field_names[N_FIELDS] = {
  FIELD ("type"), FIELD ("sessionId"), FIELD ("ts"), FIELD ("schemaVersion"), FIELD ("title"),
  FIELD ("cwd"), FIELD ("parentSession"), FIELD ("forkedFromTurnId"), FIELD ("turnId"),
  FIELD ("sessionSeq"), FIELD ("agentId"), FIELD ("model"), FIELD ("consumedQueueIds"),
};

#undef FIELD

#define BIT(f) (1u << (f))
#define COMMON_FIELDS (BIT (F_TYPE) | BIT (F_SESSION_ID) | BIT (F_TS))
/* The closed member sets of natter-session-schema.c. */
#define CREATED_FIELDS (COMMON_FIELDS | BIT (F_SCHEMA_VERSION) | BIT (F_TITLE) | BIT (F_CWD) | \
                        BIT (F_PARENT_SESSION) | BIT (F_FORKED_FROM))
#define TURN_FIELDS (COMMON_FIELDS | BIT (F_TURN_ID) | BIT (F_SESSION_SEQ) | BIT (F_AGENT_ID) | \
                     BIT (F_MODEL) | BIT (F_CONSUMED))
#define TITLE_FIELDS (COMMON_FIELDS | BIT (F_TITLE))

typedef struct
{
  const char *data;
  gsize       length;
} Span;

static int
field_of (const NatterJsonMember *member)
{
  if (member->name_escaped)
    return -1;
  for (int f = 0; f < N_FIELDS; f++)
    if (natter_json_span_equals (member->name, member->name_length, field_names[f].name, field_names[f].length))
      return f;
  return -1;
}

/* A string member whose raw text is the string itself. Ids, timestamps
 * and the event type never hold a character the generator escapes (they
 * are ASCII letters, digits and punctuation other than `"` and `\`), so
 * an escaped one is invalid whatever it decodes to. */
static gboolean
plain_string (const NatterJsonMember *member)
{
  return member->kind == NATTER_JSON_SPAN_STRING && !member->escaped;
}

static gboolean
span_is_id (const NatterJsonMember *member)
{
  char id[NATTER_ID_LENGTH + 1];

  if (!plain_string (member) || member->value_length != NATTER_ID_LENGTH)
    return FALSE;
  memcpy (id, member->value, NATTER_ID_LENGTH);
  id[NATTER_ID_LENGTH] = '\0';
  return natter_id_validate (id, NULL);
}

static gboolean
span_is_timestamp (const NatterJsonMember *member)
{
  char stack[64];
  g_autofree char *heap = NULL;
  char *text = stack;

  if (!plain_string (member))
    return FALSE;
  if (member->value_length >= sizeof stack)
    text = heap = g_malloc (member->value_length + 1);
  memcpy (text, member->value, member->value_length);
  text[member->value_length] = '\0';
  return natter_json_is_timestamp (text);
}

static char *
span_dup (Span span,
          gboolean escaped)
{
  if (span.data == NULL)
    return NULL;
  if (escaped)
    return natter_json_span_dup_string (span.data, span.length);
  return g_strndup (span.data, span.length);
}

static gboolean
cwd_is_valid (const NatterJsonMember *member)
{
  g_autofree char *cwd = NULL;

  if (member->kind != NATTER_JSON_SPAN_STRING)
    return FALSE;
  cwd = span_dup ((Span) { member->value, member->value_length }, member->escaped);
  return natter_session_cwd_validate (cwd, NULL);
}

/* The model descriptor of docs/runtime.md §12: exactly `provider` and
 * `model`, both non-empty strings. */
static gboolean
scan_model (const NatterJsonMember *member,
            Span                   *provider,
            gboolean               *provider_escaped,
            Span                   *model,
            gboolean               *model_escaped)
{
  NatterJsonMember members[2];
  guint n = 0;

  if (member->kind != NATTER_JSON_SPAN_OBJECT)
    return FALSE;
  /* A value inside an accepted line is itself canonical, its names
   * unique: it only needs to be taken apart. */
  if (!natter_json_span_walk (member->value, member->value_length, members, G_N_ELEMENTS (members), &n) ||
      n != 2)
    return FALSE;

  provider->data = model->data = NULL;
  for (guint i = 0; i < n; i++)
    {
      const NatterJsonMember *m = &members[i];
      Span *target;
      gboolean *escaped;

      if (m->name_escaped)
        return FALSE;
      if (natter_json_span_is (m->name, m->name_length, "provider"))
        target = provider, escaped = provider_escaped;
      else if (natter_json_span_is (m->name, m->name_length, "model"))
        target = model, escaped = model_escaped;
      else
        return FALSE;
      if (m->kind != NATTER_JSON_SPAN_STRING || m->value_length == 0)
        return FALSE;
      target->data = m->value;
      target->length = m->value_length;
      *escaped = m->escaped;
    }
  return provider->data != NULL && model->data != NULL;
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return memcmp (*(const char * const *) a, *(const char * const *) b, NATTER_ID_LENGTH);
}

/* What the scan folds from the lines read so far: spans into the file's
 * bytes, copied out only once the whole file is accepted. */
typedef struct
{
  const char *session_id;
  gsize       session_id_length;
  guint       line_number;
  guint       turn_count;
  /* Every turn id, once there is more than one. */
  GArray     *turn_ids;
  Span        title, created_at, updated_at, cwd, parent;
  Span        agent, provider, model, turn_id, turn_at;
  Span        first_turn;
  gboolean    title_escaped, title_is_explicit, cwd_escaped;
  gboolean    created_with_title;
  gboolean    agent_escaped, provider_escaped, model_escaped;
  /* Schema version 2: the version, grants and queue, folded by the
   * reducer's own code so that both paths keep the same rules. */
  NatterSessionV2Fold v2;
  NatterSessionV3Fold v3;
  NatterSessionV4Fold v4;
} ScanState;

/* Sorts the members of one line into @field by their fields (@fields,
 * field_of() of each), each at most once (the line scanner already
 * refused duplicates); an unknown member refuses the line. */
static gboolean
scan_fields (const NatterJsonMember  *members,
             const int               *fields,
             guint                    n_members,
             const NatterJsonMember **field,
             guint                   *seen)
{
  *seen = 0;
  for (guint i = 0; i < n_members; i++)
    {
      if (fields[i] < 0)
        return FALSE;
      field[fields[i]] = &members[i];
      *seen |= BIT (fields[i]);
    }
  return TRUE;
}

/* The fields every event has: a plain `type`, the file's own
 * `sessionId` and a valid `ts`, which is the session's latest update. */
static gboolean
scan_common_fields (ScanState               *state,
                    const NatterJsonMember **field)
{
  const NatterJsonMember *session = field[F_SESSION_ID];

  if (field[F_TYPE] == NULL || !plain_string (field[F_TYPE]))
    return FALSE;
  if (session == NULL || !plain_string (session) ||
      !natter_json_span_equals (session->value, session->value_length, state->session_id, state->session_id_length))
    return FALSE;
  if (field[F_TS] == NULL || !span_is_timestamp (field[F_TS]))
    return FALSE;
  state->updated_at = (Span) { field[F_TS]->value, field[F_TS]->value_length };
  return TRUE;
}

static gboolean
scan_session_created (ScanState               *state,
                      const NatterJsonMember **field,
                      guint                    seen)
{
  const NatterJsonMember *m;

  /* Only line 1, and then exactly once (repository and reducer). */
  if (state->line_number != 1)
    return FALSE;
  if ((seen & ~CREATED_FIELDS) != 0)
    return FALSE;
  m = field[F_SCHEMA_VERSION];
  if (m == NULL || m->kind != NATTER_JSON_SPAN_INT ||
      m->int_value < 1 || m->int_value > NATTER_SESSION_SCHEMA_VERSION)
    return FALSE;
  state->v2.schema_version = m->int_value;
  if ((m = field[F_TITLE]) != NULL)
    {
      if (m->kind != NATTER_JSON_SPAN_STRING)
        return FALSE;
      state->title = (Span) { m->value, m->value_length };
      state->title_escaped = m->escaped;
      state->created_with_title = TRUE;
    }
  if ((m = field[F_CWD]) != NULL)
    {
      if (!cwd_is_valid (m))
        return FALSE;
      state->cwd = (Span) { m->value, m->value_length };
      state->cwd_escaped = m->escaped;
    }
  if ((m = field[F_PARENT_SESSION]) != NULL)
    {
      if (!span_is_id (m))
        return FALSE;
      state->parent = (Span) { m->value, m->value_length };
    }
  if ((m = field[F_FORKED_FROM]) != NULL)
    {
      /* A fork point needs the session it was taken from. */
      if (state->parent.data == NULL || !span_is_id (m))
        return FALSE;
    }
  state->created_at = state->updated_at;
  return TRUE;
}

static gboolean
scan_turn_appended (ScanState               *state,
                    const NatterJsonMember **field,
                    guint                    seen)
{
  const NatterJsonMember *m;

  if ((seen & ~TURN_FIELDS) != 0)
    return FALSE;
  if (field[F_TURN_ID] == NULL || !span_is_id (field[F_TURN_ID]))
    return FALSE;
  /* ≥ 1 (schema) and contiguous from 1 (reducer). */
  m = field[F_SESSION_SEQ];
  if (m == NULL || m->kind != NATTER_JSON_SPAN_INT ||
      m->int_value != (gint64) state->turn_count + 1)
    return FALSE;
  m = field[F_AGENT_ID];
  if (m == NULL || m->kind != NATTER_JSON_SPAN_STRING || m->value_length == 0)
    return FALSE;
  state->agent = (Span) { m->value, m->value_length };
  state->agent_escaped = m->escaped;
  if (field[F_MODEL] == NULL ||
      !scan_model (field[F_MODEL], &state->provider, &state->provider_escaped,
                   &state->model, &state->model_escaped))
    return FALSE;

  state->turn_id = (Span) { field[F_TURN_ID]->value, field[F_TURN_ID]->value_length };
  state->turn_at = state->updated_at;
  /* Unique turn ids: sorted and compared once at the end, and only
   * when there is more than one. */
  if (state->turn_count == 1)
    {
      state->turn_ids = g_array_sized_new (FALSE, FALSE, sizeof (const char *), 32);
      g_array_append_val (state->turn_ids, state->first_turn.data);
    }
  if (state->turn_count == 0)
    state->first_turn = state->turn_id;
  else
    g_array_append_val (state->turn_ids, state->turn_id.data);
  state->turn_count++;
  return TRUE;
}

static gboolean
scan_title_changed (ScanState               *state,
                    const NatterJsonMember **field,
                    guint                    seen)
{
  const NatterJsonMember *m = field[F_TITLE];

  if ((seen & ~TITLE_FIELDS) != 0)
    return FALSE;
  if (m == NULL || m->kind != NATTER_JSON_SPAN_STRING)
    return FALSE;
  state->title = (Span) { m->value, m->value_length };
  state->title_escaped = m->escaped;
  state->title_is_explicit = TRUE;
  return TRUE;
}

/* A line the span checks do not cover (an event of schema version 2 or
 * 3, or a turn_appended with consumedQueueIds, all rare): it is parsed
 * into a tree and checked by the schema and the reducer's own folds. */
static gboolean
scan_tree_line (ScanState  *state,
                const char *line,
                gsize       line_length)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *session_id = NULL;
  JsonObject *event;
  const char *type;

  node = natter_json_from_line (line, line_length, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  event = json_node_get_object (node);
  session_id = g_strndup (state->session_id, state->session_id_length);
  if (!natter_session_event_validate (event, session_id, NULL))
    return FALSE;
  type = json_object_get_string_member (event, "type");
  if (!natter_session_v2_fold_check (&state->v2, event, type, NULL))
    return FALSE;
  natter_session_v2_fold_commit (&state->v2, event, type);
  natter_session_v3_fold_commit (&state->v3, event, type);
  natter_session_v4_fold_commit (&state->v4, event, type);
  return TRUE;
}

static gboolean
is_v1_type (const NatterJsonMember *type)
{
  return natter_json_span_is (type->value, type->value_length, "session_created") ||
         natter_json_span_is (type->value, type->value_length, "turn_appended") ||
         natter_json_span_is (type->value, type->value_length, "title_changed");
}

/* Checks one complete line (without its newline) and folds it. */
static gboolean
scan_line (const char *line,
           gsize       line_length,
           gpointer    user_data)
{
  ScanState *state = user_data;
  NatterJsonMember members[MAX_EVENT_MEMBERS];
  int fields[MAX_EVENT_MEMBERS];
  const NatterJsonMember *field[N_FIELDS] = { NULL };
  const NatterJsonMember *type;
  guint n_members = 0;
  guint seen = 0;

  if (!natter_json_line_scan_object (line, line_length, members, G_N_ELEMENTS (members),
                                     &n_members))
    return FALSE;
  for (guint i = 0; i < n_members; i++)
    fields[i] = field_of (&members[i]);

  /* Any type other than the three of version 1 is a version-2 event or
   * unknown: the tree path decides, and keeps the ts the span checks
   * would have kept. */
  for (guint i = 0; i < n_members; i++)
    if (fields[i] == F_TYPE && plain_string (&members[i]) && !is_v1_type (&members[i]))
      {
        for (guint j = 0; j < n_members; j++)
          if (fields[j] == F_TS)
            state->updated_at = (Span) { members[j].value, members[j].value_length };
        return state->line_number > 1 && scan_tree_line (state, line, line_length);
      }

  if (!scan_fields (members, fields, n_members, field, &seen) ||
      !scan_common_fields (state, field))
    return FALSE;

  type = field[F_TYPE];
  if (natter_json_span_is (type->value, type->value_length, "session_created"))
    return scan_session_created (state, field, seen);
  /* The first event must be session_created. */
  if (state->line_number == 1)
    return FALSE;
  if (natter_json_span_is (type->value, type->value_length, "turn_appended"))
    return scan_turn_appended (state, field, seen) &&
           (field[F_CONSUMED] == NULL || scan_tree_line (state, line, line_length));
  if (natter_json_span_is (type->value, type->value_length, "title_changed"))
    return scan_title_changed (state, field, seen);
  /* An unknown type. */
  return FALSE;
}

static gboolean
scan_lines (ScanState  *state,
            const char *contents,
            gsize       length)
{
  /* An empty file has no session_created. */
  if (length == 0)
    return FALSE;
  return natter_jsonl_each_line (contents, length, &state->line_number, scan_line, state);
}

static gboolean
turn_ids_are_unique (GArray *turn_ids)
{
  if (turn_ids == NULL)
    return TRUE;

  g_array_sort (turn_ids, compare_ids);
  for (guint i = 1; i < turn_ids->len; i++)
    if (memcmp (g_array_index (turn_ids, const char *, i - 1),
                g_array_index (turn_ids, const char *, i), NATTER_ID_LENGTH) == 0)
      return FALSE;
  return TRUE;
}

static void
scan_state_fill_result (const ScanState         *state,
                        NatterSessionScanResult *out)
{
  out->title = span_dup (state->title, state->title_escaped);
  out->title_is_explicit = state->title_is_explicit;
  out->created_at = span_dup (state->created_at, FALSE);
  out->updated_at = span_dup (state->updated_at, FALSE);
  out->turn_count = state->turn_count;
  out->cwd = span_dup (state->cwd, state->cwd_escaped);
  out->parent_session = span_dup (state->parent, FALSE);
  /* natter_session_state_get_is_version(), read from the spans. */
  out->is_version = state->parent.data != NULL && state->created_with_title;
  if (state->v3.parameters != NULL)
    out->parameters = natter_generation_parameters_copy (state->v3.parameters);
  out->pinned = state->v4.pinned;
  out->folder_id = g_strdup (state->v4.folder_id);
  if (state->turn_count > 0)
    {
      g_autofree char *provider_text = span_dup (state->provider, state->provider_escaped);
      g_autofree char *model_text = span_dup (state->model, state->model_escaped);

      out->last_agent_id = span_dup (state->agent, state->agent_escaped);
      out->first_turn_id = span_dup (state->first_turn, FALSE);
      out->latest_turn_id = span_dup (state->turn_id, FALSE);
      out->latest_turn_at = span_dup (state->turn_at, FALSE);
      out->last_model = json_object_new ();
      json_object_set_string_member (out->last_model, "provider", provider_text);
      json_object_set_string_member (out->last_model, "model", model_text);
      json_object_seal (out->last_model);
    }
}

/**
 * natter_session_scan_contents:
 * @contents: the bytes of a session file
 * @length: their length
 * @session_id: the id of the session the file belongs to (a valid id)
 * @out: (out caller-allocates): the folded fields, on success
 *
 * The verdict half of natter_session_scan_file_sync(): decides whether
 * the full read of a file with these bytes
 * (natter_session_reduce_file_sync()) succeeds, and if so folds the index entry's fields as
 * natter_session_index_entry_new_from_state() would from its state.
 * Allocates only the results (and a little for long timestamps, escaped
 * paths and files with several turns).
 *
 * Returns: %TRUE if the file is valid (then @out is set and must be
 *   cleared); %FALSE if the full read refuses it (@out is left zeroed)
 */
gboolean
natter_session_scan_contents (const char              *contents,
                              gsize                    length,
                              const char              *session_id,
                              NatterSessionScanResult *out)
{
  ScanState state = { 0 };
  gboolean ok;

  g_return_val_if_fail (contents != NULL || length == 0, FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (!natter_id_validate (session_id, NULL))
    return FALSE;
  state.session_id = session_id;
  state.session_id_length = strlen (session_id);

  ok = scan_lines (&state, contents, length) && turn_ids_are_unique (state.turn_ids);
  if (ok)
    scan_state_fill_result (&state, out);
  g_clear_pointer (&state.turn_ids, g_array_unref);
  natter_session_v2_fold_clear (&state.v2);
  natter_session_v3_fold_clear (&state.v3);
  natter_session_v4_fold_clear (&state.v4);
  return ok;
}

/**
 * natter_session_scan_result_clear:
 * @result: a #NatterSessionScanResult
 *
 * Frees the members of @result and zeroes it. Safe on a zeroed result.
 */
void
natter_session_scan_result_clear (NatterSessionScanResult *result)
{
  g_return_if_fail (result != NULL);

  g_free (result->title);
  g_free (result->created_at);
  g_free (result->updated_at);
  g_free (result->last_agent_id);
  g_clear_pointer (&result->last_model, json_object_unref);
  g_free (result->first_turn_id);
  g_free (result->latest_turn_id);
  g_free (result->latest_turn_at);
  g_free (result->cwd);
  g_free (result->parent_session);
  natter_generation_parameters_free (result->parameters);
  g_free (result->folder_id);
  memset (result, 0, sizeof *result);
}

static void
fill_from_state (NatterSessionScanResult *out,
                 NatterSessionState      *state)
{
  guint n_turns = natter_session_state_get_n_turns (state);

  out->title = g_strdup (natter_session_state_get_title (state));
  out->title_is_explicit = natter_session_state_get_title_is_explicit (state);
  out->created_at = g_strdup (natter_session_state_get_created_at (state));
  out->updated_at = g_strdup (natter_session_state_get_updated_at (state));
  out->turn_count = n_turns;
  out->cwd = g_strdup (natter_session_state_get_cwd (state));
  out->parent_session = g_strdup (natter_session_state_get_parent_session (state));
  out->is_version = natter_session_state_get_is_version (state);
  if (natter_session_state_get_parameters (state) != NULL)
    out->parameters = natter_generation_parameters_copy (natter_session_state_get_parameters (state));
  out->pinned = natter_session_state_get_pinned (state);
  out->folder_id = g_strdup (natter_session_state_get_folder_id (state));
  if (n_turns > 0)
    {
      const NatterSessionTurn *last = natter_session_state_get_turn (state, n_turns - 1);

      out->last_agent_id = g_strdup (last->agent_id);
      out->first_turn_id = g_strdup (natter_session_state_get_turn (state, 0)->turn_id);
      out->latest_turn_id = g_strdup (last->turn_id);
      out->latest_turn_at = g_strdup (last->ts);
      out->last_model = json_object_ref (last->model);
    }
}

/**
 * natter_session_scan_file_sync:
 * @repo: the session repository
 * @session_id: the session
 * @out: (out caller-allocates): the folded fields, on success
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * natter_session_scan_file_at() with a cursor of its own, for a single
 * file. Blocks.
 *
 * Returns: as natter_session_scan_file_at()
 */
gboolean
natter_session_scan_file_sync (NatterJsonlRepo          *repo,
                               const char               *session_id,
                               NatterSessionScanResult  *out,
                               GCancellable             *cancellable,
                               GError                  **error)
{
  g_autoptr(NatterJsonlCursor) cursor = NULL;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), FALSE);

  cursor = natter_jsonl_cursor_new (repo);
  return natter_session_scan_file_at (cursor, session_id, NULL, NULL, out, cancellable, error);
}

/**
 * natter_session_scan_file_at:
 * @cursor: a cursor over the session repository
 * @session_id: the session
 * @out_identity: (out caller-allocates) (optional): the session file's
 *   identity, taken before it was read (docs/sessions.md §8.4)
 * @out_identity_known: (out) (optional): whether @out_identity could be
 *   told (natter_jsonl_cursor_identify())
 * @out: (out caller-allocates): the folded fields, on success
 * @cancellable: (nullable): a #GCancellable
 * @error: return location for a #GError
 *
 * The startup scan's read of one session file (docs/sessions.md
 * §8.2 step 2): reads the file once and validates every line as strictly
 * as natter_session_reduce_file_sync() does, without building JSON trees,
 * folding the index entry's fields. A file it refuses is read by that
 * full path, whose error is returned, so errors are exactly the full
 * path's. Blocks.
 *
 * Returns: %TRUE with @out set (clear it with
 *   natter_session_scan_result_clear()); else %FALSE with the full read's
 *   error: a %NATTER_STORE_ERROR (INVALID_ID, NOT_FOUND, IO, CORRUPT, or
 *   the reducer's INVARIANT, SCHEMA, UNKNOWN_TYPE or UNSUPPORTED_VERSION;
 *   about a line always as `<path>:<line>: <reason>`), or
 *   %G_IO_ERROR_CANCELLED.
 */
gboolean
natter_session_scan_file_at (NatterJsonlCursor        *cursor,
                             const char               *session_id,
                             NatterFileIdentity       *out_identity,
                             gboolean                 *out_identity_known,
                             NatterSessionScanResult  *out,
                             GCancellable             *cancellable,
                             GError                  **error)
{
  g_autoptr(NatterSessionState) state = NULL;
  g_autofree char *heap = NULL;
  char stack_buffer[NATTER_JSONL_READ_STACK_SIZE];
  char *contents = NULL;
  gsize length = 0;

  g_return_val_if_fail (cursor != NULL, FALSE);
  g_return_val_if_fail (out != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  memset (out, 0, sizeof *out);
  if (out_identity_known != NULL)
    *out_identity_known = FALSE;
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return FALSE;

  if (natter_jsonl_cursor_load (cursor, session_id, stack_buffer, &contents, &length, &heap, out_identity,
                                out_identity_known) &&
      natter_session_scan_contents (contents, length, session_id, out))
    return TRUE;

  /* Refused, or unreadable: the full read says why. */
  state = natter_session_reduce_file_sync (natter_jsonl_cursor_get_repo (cursor), session_id, NULL, cancellable,
                                           error);
  if (state == NULL)
    return FALSE;

  /* The file changed between the reads, or (a bug the differential tests
   * exist to catch) the two paths disagree: the full read is the truth. */
  g_debug ("Session %s: the scan refused what the full read accepts", session_id);
  fill_from_state (out, state);
  return TRUE;
}
