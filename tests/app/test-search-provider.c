/* test-search-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GNOME Shell search provider, called the way the Shell
 * calls it: over D-Bus, here a peer-to-peer connection pair on a socket
 * pair, so no session bus is needed. The index is filled through the
 * session service's write-through path and then has single fields set,
 * which is all the provider reads.
 */

#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "natter-search-provider.h"
#include "natter-session-index-entry-private.h"
#include "natter-session-index-internal.h"
#include "natter-session-reducer.h"
#include "natter-session-schema.h"
#include "natter-test-support.h"
#include "natter-test-fakes.h"
#include "natter-sessions-private.h"

#define NOW_US      (1795000000LL * G_USEC_PER_SEC)
#define OBJECT_PATH "/io/github/natter/Natter/SearchProvider"
#define TIMEOUT_MS  5000

#define LISBON_TRIP "2026-11-30T09-14-03Z-0000001-000"
#define LISBON_FOOD "2026-11-30T09-14-03Z-0000002-000"
#define CAFE        "2026-11-30T09-14-03Z-0000003-000"
#define UNTITLED    "2026-11-30T09-14-03Z-0000004-000"
#define BROKEN      "2026-11-30T09-14-03Z-0000005-000"
#define EGGS        "2026-11-30T09-14-03Z-0000006-000"
#define WAITING     "2026-11-30T09-14-03Z-0000007-000"
#define FAILED      "2026-11-30T09-14-03Z-0000008-000"
#define UNKNOWN     "2026-11-30T09-14-03Z-0000099-000"
#define LISBON_EDIT "2026-11-30T09-14-03Z-0000010-000"
#define LISBON_AGAIN "2026-11-30T09-14-03Z-0000011-000"
#define LISBON_RENAMED "2026-11-30T09-14-03Z-0000009-000"

typedef struct
{
  GFile                *dir;
  NatterFakeClock      *clock;
  NatterSessionIndex   *index;
  NatterSearchProvider *provider;
  GDBusConnection      *server;
  GDBusConnection      *client;
} Fixture;

/* Connection pair */

static void
connection_new_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GDBusConnection **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = g_dbus_connection_new_finish (result, &error);
  g_assert_no_error (error);
}

static GIOStream *
stream_for_fd (int fd)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocket) socket = g_socket_new_from_fd (fd, &error);

  g_assert_no_error (error);
  return G_IO_STREAM (g_socket_connection_factory_create_connection (socket));
}

/* Both ends authenticate at once, so they are created asynchronously and
 * the loop runs until both are up. */
static void
make_connection_pair (GDBusConnection **out_server,
                      GDBusConnection **out_client)
{
  g_autofree char *guid = g_dbus_generate_guid ();
  g_autoptr(GIOStream) server_stream = NULL;
  g_autoptr(GIOStream) client_stream = NULL;
  int fds[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), ==, 0);
  server_stream = stream_for_fd (fds[0]);
  client_stream = stream_for_fd (fds[1]);

  *out_server = NULL;
  *out_client = NULL;
  g_dbus_connection_new (server_stream, guid,
                         G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER |
                         G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS,
                         NULL, NULL, connection_new_cb, out_server);
  g_dbus_connection_new (client_stream, NULL,
                         G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT,
                         NULL, NULL, connection_new_cb, out_client);
  natter_test_wait_for_pointer ((gpointer *) out_server, TIMEOUT_MS);
  natter_test_wait_for_pointer ((gpointer *) out_client, TIMEOUT_MS);
}

/* Index */

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  gboolean *done = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_session_index_load_finish (NATTER_SESSION_INDEX (object), result, &error));
  g_assert_no_error (error);
  *done = TRUE;
}

/* Starts the (empty) startup scan; *done turns TRUE when it is published
 * and the index is :loaded. */
static void
start_loading_index (Fixture  *f,
                     gboolean *done)
{
  g_autoptr(NatterJsonlRepo) sessions = natter_session_repo_new (f->dir);
  g_autoptr(NatterJsonlRepo) turns = natter_turn_repo_new (f->dir);

  *done = FALSE;
  natter_session_index_load_async (f->index, sessions, turns, NULL, load_cb, done);
}

static void
load_index (Fixture *f)
{
  gboolean done;

  start_loading_index (f, &done);
  natter_test_wait_for_flag (&done, TIMEOUT_MS);
  g_assert_true (natter_session_index_get_loaded (f->index));
}

/* Adds a session titled @title (NULL: untitled) last updated
 * @seconds_ago before the fake now; with @parent, a version of it
 * (created with @title, as Edit makes one) or, @renamed, a session
 * created as a version under the title of @parent, since renamed
 * @title; a branch made on purpose is added with @title and not
 * @version (created without a title, named later). */
static NatterSessionIndexEntry *
add_session_full (Fixture    *f,
                  const char *session_id,
                  const char *title,
                  gint64      seconds_ago,
                  const char *status,
                  const char *parent,
                  gboolean    version,
                  gboolean    renamed)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) event = NULL;
  g_autoptr(GPtrArray) events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *updated_at = natter_format_ts (NOW_US - seconds_ago * G_USEC_PER_SEC);
  NatterSessionIndexEntry *entry;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "session_created");
  json_builder_set_member_name (builder, "sessionId");
  json_builder_add_string_value (builder, session_id);
  json_builder_set_member_name (builder, "ts");
  json_builder_add_string_value (builder, "2026-11-01T08:00:00.000Z");
  json_builder_set_member_name (builder, "schemaVersion");
  json_builder_add_int_value (builder, 1);
  if (title != NULL && (parent == NULL || version))
    {
      json_builder_set_member_name (builder, "title");
      json_builder_add_string_value (builder, renamed ? "Trip to Lisbon" : title);
    }
  if (parent != NULL)
    {
      json_builder_set_member_name (builder, "parentSession");
      json_builder_add_string_value (builder, parent);
    }
  json_builder_end_object (builder);
  g_ptr_array_add (events, json_builder_get_root (builder));
  if (title != NULL && ((parent != NULL && !version) || renamed))
    g_ptr_array_add (events, natter_session_event_new_title_changed (session_id, "2026-11-01T08:00:00.000Z", title));

  state = natter_session_reduce (events, &error);
  g_assert_no_error (error);
  entry = natter_session_index_update_from_state (f->index, state, status);
  natter_session_index_entry_set_updated_at (entry, updated_at);
  return entry;
}

static NatterSessionIndexEntry *
add_session (Fixture    *f,
             const char *session_id,
             const char *title,
             gint64      seconds_ago,
             const char *status)
{
  return add_session_full (f, session_id, title, seconds_ago, status, NULL, FALSE, FALSE);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  NatterSessionIndexEntry *broken;

  f->dir = natter_test_make_temp_dir ();
  f->clock = natter_fake_clock_new (NOW_US);
  f->index = natter_session_index_new ();
  load_index (f);

  add_session (f, LISBON_TRIP, "Trip to Lisbon", 60 * 60, "completed");
  add_session (f, LISBON_FOOD, "Lisbon restaurants", 10 * 60, "completed");
  add_session (f, CAFE, "Café Ünïcode notes", 2 * 24 * 60 * 60, "completed");
  add_session (f, UNTITLED, NULL, 30, NATTER_LATEST_TURN_STATUS_NONE);
  broken = add_session (f, BROKEN, "Lisbon, damaged", 5, "completed");
  natter_session_index_entry_set_error (broken, "line 3: not JSON");
  add_session (f, EGGS, "Boiling eggs", 30 * 24 * 60 * 60, "completed");
  add_session (f, WAITING, "Permission to read files", 3 * 60 * 60, "suspended");
  add_session (f, FAILED, "Weather tomorrow", 2 * 60 * 60, "failed");

  f->provider = g_object_new (NATTER_TYPE_SEARCH_PROVIDER,
                              "index", f->index,
                              "clock", f->clock,
                              NULL);
  make_connection_pair (&f->server, &f->client);
  g_assert_true (natter_search_provider_register (f->provider, f->server, OBJECT_PATH, &error));
  g_assert_no_error (error);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  natter_search_provider_unregister (f->provider);
  g_assert_finalize_object (f->provider);
  g_dbus_connection_close_sync (f->client, NULL, NULL);
  g_dbus_connection_close_sync (f->server, NULL, NULL);
  g_clear_object (&f->client);
  g_clear_object (&f->server);
  g_assert_finalize_object (f->index);
  g_clear_object (&f->clock);
  natter_test_remove_tree (f->dir);
  g_clear_object (&f->dir);
}

/* Calls */

static void
call_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GVariant **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = g_dbus_connection_call_finish (G_DBUS_CONNECTION (object), result, &error);
  g_assert_no_error (error);
}

static void
call_async (Fixture    *f,
            const char *method,
            GVariant   *parameters,
            const char *reply_type,
            GVariant  **out_reply)
{
  *out_reply = NULL;
  g_dbus_connection_call (f->client, NULL, OBJECT_PATH, NATTER_SEARCH_PROVIDER_INTERFACE,
                          method, parameters, G_VARIANT_TYPE (reply_type),
                          G_DBUS_CALL_FLAGS_NONE, -1, NULL, call_cb, out_reply);
}

static GVariant *
call (Fixture    *f,
      const char *method,
      GVariant   *parameters,
      const char *reply_type)
{
  GVariant *reply;

  call_async (f, method, parameters, reply_type, &reply);
  natter_test_wait_for_pointer ((gpointer *) &reply, TIMEOUT_MS);
  return reply;
}

static char *
join_result (GVariant *reply)
{
  g_autofree const char **ids = NULL;

  g_variant_get (reply, "(^a&s)", &ids);
  return g_strjoinv (" ", (char **) ids);
}

/* The ids GetInitialResultSet returns for @query (space-separated terms),
 * space-separated. */
static char *
initial (Fixture    *f,
         const char *query)
{
  g_auto(GStrv) terms = g_strsplit (query, " ", -1);
  g_autoptr(GVariant) reply = NULL;

  reply = call (f, "GetInitialResultSet",
                g_variant_new ("(^as)", terms), "(as)");
  return join_result (reply);
}

static char *
subsearch (Fixture    *f,
           const char *previous,
           const char *query)
{
  g_auto(GStrv) previous_ids = g_strsplit (previous, " ", -1);
  g_auto(GStrv) terms = g_strsplit (query, " ", -1);
  g_autoptr(GVariant) reply = NULL;

  reply = call (f, "GetSubsearchResultSet", g_variant_new ("(^as^as)", previous_ids, terms), "(as)");
  return join_result (reply);
}

#define assert_ids(expr, expected) \
  G_STMT_START { \
    g_autofree char *got_ = (expr); \
    g_assert_cmpstr (got_, ==, (expected)); \
  } G_STMT_END

/* Tests */

static void
test_initial_matching (Fixture       *f,
                       gconstpointer  data)
{
  /* Case-insensitive; the errored "Lisbon, damaged" is never offered. */
  assert_ids (initial (f, "lisbon"), LISBON_FOOD " " LISBON_TRIP);
  assert_ids (initial (f, "LISBON"), LISBON_FOOD " " LISBON_TRIP);
  /* Every term must match, in any order. */
  assert_ids (initial (f, "trip LisBon"), LISBON_TRIP);
  assert_ids (initial (f, "lisbon eggs"), "");
  /* Terms are prefixes of the title's words. */
  assert_ids (initial (f, "lis"), LISBON_FOOD " " LISBON_TRIP);
  assert_ids (initial (f, "isbon"), "");
  /* Unicode: casefolded, and an ASCII term finds accented words. */
  assert_ids (initial (f, "ÜNÏ"), CAFE);
  assert_ids (initial (f, "café"), CAFE);
  assert_ids (initial (f, "CAFE unicode"), CAFE);
  assert_ids (initial (f, "boiling"), EGGS);
  /* Untitled sessions do not match the words of "New chat". */
  assert_ids (initial (f, "new"), "");
  assert_ids (initial (f, "chat"), "");
  /* A query without a word matches nothing rather than everything. */
  assert_ids (initial (f, ""), "");
  assert_ids (initial (f, "-"), "");
  assert_ids (initial (f, "nothing-like-this"), "");
}

/* A conversation edited (versions: what Edit and Try Again make) is
 * offered once, as its latest version; a version renamed since is found
 * by its own title when the latest version's title does not match; a
 * branch made on purpose is another conversation. */
static void
test_versions_offered_once (Fixture       *f,
                            gconstpointer  data)
{
  add_session_full (f, LISBON_RENAMED, "Porto detour", 40 * 60, "completed", LISBON_TRIP, TRUE, TRUE);
  add_session_full (f, LISBON_EDIT, "Trip to Lisbon", 5 * 60, "completed", LISBON_TRIP, TRUE, FALSE);
  add_session_full (f, LISBON_AGAIN, "Lisbon again", 20 * 60, "completed", LISBON_TRIP, FALSE, FALSE);

  assert_ids (initial (f, "lisbon"), LISBON_EDIT " " LISBON_FOOD " " LISBON_AGAIN);
  assert_ids (initial (f, "trip"), LISBON_EDIT);
  assert_ids (subsearch (f, LISBON_TRIP " " LISBON_EDIT, "trip"), LISBON_EDIT);
  assert_ids (initial (f, "porto"), LISBON_RENAMED);
  assert_ids (subsearch (f, LISBON_TRIP " " LISBON_EDIT " " LISBON_RENAMED, "porto"), LISBON_RENAMED);
}

static void
test_subsearch_narrows (Fixture       *f,
                        gconstpointer  data)
{
  /* Only ids of the previous result are considered, even when others
   * would match the new terms. */
  assert_ids (subsearch (f, LISBON_TRIP, "lisbon"), LISBON_TRIP);
  assert_ids (subsearch (f, LISBON_TRIP " " LISBON_FOOD, "lisbon r"), LISBON_FOOD);
  /* Re-sorted newest first; unknown (deleted) and duplicate ids dropped;
   * the errored entry stays out even when the Shell passes it back. */
  assert_ids (subsearch (f, LISBON_TRIP " " UNKNOWN " " BROKEN " " LISBON_FOOD " " LISBON_TRIP, "lisbon"),
              LISBON_FOOD " " LISBON_TRIP);
  assert_ids (subsearch (f, LISBON_TRIP, "eggs"), "");
}

static void
test_order_and_limit (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GString) expected = g_string_new (NULL);

  /* Twenty-five notes, note 0 the newest. */
  for (guint i = 0; i < 25; i++)
    {
      g_autofree char *id = g_strdup_printf ("2026-11-30T10-00-00Z-%07u-000", i);
      g_autofree char *title = g_strdup_printf ("Note %u", i);

      add_session (f, id, title, i * 60, "completed");
      if (i < NATTER_SEARCH_PROVIDER_MAX_RESULTS)
        g_string_append_printf (expected, "%s%s", i > 0 ? " " : "", id);
    }
  assert_ids (initial (f, "note"), expected->str);

  /* Equal updatedAt: the later id first, whatever the index order. */
  add_session (f, "2026-11-30T11-00-00Z-0000001-000", "Twin", 0, "completed");
  add_session (f, "2026-11-30T11-00-00Z-0000002-000", "Twin", 0, "completed");
  assert_ids (initial (f, "twin"), "2026-11-30T11-00-00Z-0000002-000 2026-11-30T11-00-00Z-0000001-000");
}

static const char *
meta_string (GVariant   *meta,
             const char *key)
{
  const char *value = NULL;

  if (!g_variant_lookup (meta, key, "&s", &value))
    return NULL;
  return value;
}

static void
test_result_metas (Fixture       *f,
                   gconstpointer  data)
{
  const char *ids[] = { LISBON_FOOD, UNTITLED, UNKNOWN, CAFE, WAITING, FAILED, EGGS, NULL };
  const struct {
    const char *id;
    const char *name;
    const char *description;
  } expected[] = {
    { LISBON_FOOD, "Lisbon restaurants", "Updated 10 minutes ago" },
    { UNTITLED, "New chat", "Updated just now" },
    { CAFE, "Café Ünïcode notes", "Updated 2 days ago" },
    { WAITING, "Permission to read files", "Needs you" },
    { FAILED, "Weather tomorrow", "The last answer failed" },
    { EGGS, "Boiling eggs", NULL /* a date, checked below */ },
  };
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) metas = NULL;

  reply = call (f, "GetResultMetas", g_variant_new ("(^as)", ids), "(aa{sv})");
  metas = g_variant_get_child_value (reply, 0);

  /* The unknown id gets no meta; the others keep their order. */
  g_assert_cmpuint (g_variant_n_children (metas), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(GVariant) meta = g_variant_get_child_value (metas, i);
      g_autoptr(GIcon) icon = NULL;
      g_autoptr(GError) error = NULL;

      g_assert_cmpstr (meta_string (meta, "id"), ==, expected[i].id);
      g_assert_cmpstr (meta_string (meta, "name"), ==, expected[i].name);
      if (expected[i].description != NULL)
        g_assert_cmpstr (meta_string (meta, "description"), ==, expected[i].description);
      else
        g_assert_true (g_str_has_prefix (meta_string (meta, "description"), "Updated on "));

      /* The Shell rebuilds the icon with g_icon_new_for_string(). */
      icon = g_icon_new_for_string (meta_string (meta, "gicon"), &error);
      g_assert_no_error (error);
      g_assert_true (G_IS_THEMED_ICON (icon));
      g_assert_cmpstr (g_themed_icon_get_names (G_THEMED_ICON (icon))[0], ==, APP_ID);
    }
}

/* The Shell shows a result's name as plain text (and escapes it itself
 * before it highlights the terms): a title with markup characters goes
 * out exactly as the user typed it, neither escaped nor dropped. */
/* The name the Shell gets for the session @id titled @title, found by
 * @terms. */
static char *
result_name (Fixture    *f,
             const char *id,
             const char *title,
             const char *terms)
{
  const char *ids[] = { id, NULL };
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) metas = NULL;
  g_autoptr(GVariant) meta = NULL;

  add_session (f, id, title, 60, "completed");
  assert_ids (initial (f, terms), id);
  reply = call (f, "GetResultMetas", g_variant_new ("(^as)", ids), "(aa{sv})");
  metas = g_variant_get_child_value (reply, 0);
  g_assert_cmpuint (g_variant_n_children (metas), ==, 1);
  meta = g_variant_get_child_value (metas, 0);
  return g_strdup (meta_string (meta, "name"));
}

static void
test_markup_title (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *name = result_name (f, "2026-11-30T11-30-00Z-0000009-000", "Tom & Jerry <b>", "tom jerry");

  g_assert_cmpstr (name, ==, "Tom & Jerry <b>");
}

/* The Shell shows a result's name on one line as the sidebar does: a
 * title an older file or an archive holds with a bidirectional override
 * or a control character goes out with their stand-ins, so "photo" RLO
 * "gnp.exe" cannot read "photoexe.png" in the Shell's results. */
static void
test_one_line_title (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *name = result_name (f, "2026-11-30T11-30-00Z-0000010-000", "photo \u202Egnp.exe \x1b[31m",
                                       "photo");

  g_assert_cmpstr (name, ==, "photo \\u202Egnp.exe \u241B[31m");
}

static void
test_describe_times (Fixture       *f,
                     gconstpointer  data)
{
  const struct {
    gint64      seconds_ago;
    const char *description;
  } cases[] = {
    { -30, "Updated just now" },  /* a clock that went back */
    { 59, "Updated just now" },
    { 60, "Updated 1 minute ago" },
    { 59 * 60 + 59, "Updated 59 minutes ago" },
    { 60 * 60, "Updated 1 hour ago" },
    { 23 * 60 * 60, "Updated 23 hours ago" },
    { 24 * 60 * 60, "Updated 1 day ago" },
    { 6 * 24 * 60 * 60, "Updated 6 days ago" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      NatterSessionIndexEntry *entry = add_session (f, UNKNOWN, "Clockwork", cases[i].seconds_ago, "completed");
      g_autofree char *description = natter_search_provider_describe (f->provider, entry);

      g_assert_cmpstr (description, ==, cases[i].description);
    }
}

typedef struct
{
  guint  n_emissions;
  char  *session_id;
  GStrv  terms;
  guint  timestamp;
} Emission;

static void
activate_result_cb (NatterSearchProvider *provider,
                    const char           *session_id,
                    guint                 timestamp,
                    Emission             *emission)
{
  emission->n_emissions++;
  g_free (emission->session_id);
  emission->session_id = g_strdup (session_id);
  emission->timestamp = timestamp;
}

static void
launch_search_cb (NatterSearchProvider *provider,
                  GStrv                 terms,
                  guint                 timestamp,
                  Emission             *emission)
{
  emission->n_emissions++;
  g_strfreev (emission->terms);
  emission->terms = g_strdupv (terms);
  emission->timestamp = timestamp;
}

static void
test_activate_result (Fixture       *f,
                      gconstpointer  data)
{
  const char *terms[] = { "trip", NULL };
  Emission emission = { 0, };
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) unknown_reply = NULL;

  g_signal_connect (f->provider, "activate-result", G_CALLBACK (activate_result_cb), &emission);

  reply = call (f, "ActivateResult", g_variant_new ("(s^asu)", LISBON_TRIP, terms, 4242u), "()");
  g_assert_cmpuint (emission.n_emissions, ==, 1);
  g_assert_cmpstr (emission.session_id, ==, LISBON_TRIP);
  g_assert_cmpuint (emission.timestamp, ==, 4242);

  /* A session deleted since the search: the call succeeds, nothing opens. */
  unknown_reply = call (f, "ActivateResult", g_variant_new ("(s^asu)", UNKNOWN, terms, 4243u), "()");
  g_assert_cmpuint (emission.n_emissions, ==, 1);

  g_signal_handlers_disconnect_by_data (f->provider, &emission);
  g_free (emission.session_id);
}

static void
test_launch_search (Fixture       *f,
                    gconstpointer  data)
{
  const char *terms[] = { "Café", "lisbon", NULL };
  Emission emission = { 0, };
  g_autoptr(GVariant) reply = NULL;

  g_signal_connect (f->provider, "launch-search", G_CALLBACK (launch_search_cb), &emission);

  reply = call (f, "LaunchSearch", g_variant_new ("(^asu)", terms, 17u), "()");
  g_assert_cmpuint (emission.n_emissions, ==, 1);
  g_assert_cmpstrv (emission.terms, terms);
  g_assert_cmpuint (emission.timestamp, ==, 17);

  g_signal_handlers_disconnect_by_data (f->provider, &emission);
  g_strfreev (emission.terms);
}

/* D-Bus activation: the Shell's first query arrives before the index is
 * loaded (or even exists) and is answered once it is. */
static void
test_waits_for_index (Fixture       *f,
                      gconstpointer  data)
{
  const char *terms[] = { "lisbon", NULL };
  const char *no_ids[] = { NULL };
  g_autoptr(GVariant) early = NULL;
  g_autoptr(GVariant) round_trip = NULL;
  g_autofree char *ids = NULL;
  g_autoptr(NatterSessionIndex) index = g_object_ref (f->index);
  gboolean loaded;

  natter_search_provider_set_index (f->provider, NULL);
  call_async (f, "GetInitialResultSet", g_variant_new ("(^as)", terms), "(as)", &early);
  /* A later call's reply proves the first one has been received. */
  round_trip = call (f, "GetResultMetas", g_variant_new ("(^as)", no_ids), "(aa{sv})");
  g_assert_null (early);

  /* An index that is still loading keeps it waiting ... */
  g_clear_object (&f->index);
  f->index = natter_session_index_new ();
  natter_search_provider_set_index (f->provider, f->index);
  g_clear_pointer (&round_trip, g_variant_unref);
  round_trip = call (f, "GetResultMetas", g_variant_new ("(^as)", no_ids), "(aa{sv})");
  g_assert_null (early);

  /* ... until it is loaded (with a session the service wrote meanwhile). */
  start_loading_index (f, &loaded);
  add_session (f, LISBON_TRIP, "Trip to Lisbon", 60, "completed");
  natter_test_wait_for_pointer ((gpointer *) &early, TIMEOUT_MS);
  g_assert_true (loaded);
  ids = join_result (early);
  g_assert_cmpstr (ids, ==, LISBON_TRIP);

  /* A loaded index answers at once. */
  natter_search_provider_set_index (f->provider, index);
  g_assert_true (natter_search_provider_get_index (f->provider) == index);
  assert_ids (initial (f, "lisbon"), LISBON_FOOD " " LISBON_TRIP);
}

/* An unregistered provider answers waiting searches and leaves the bus. */
static void
test_unregister (Fixture       *f,
                 gconstpointer  data)
{
  const char *terms[] = { "lisbon", NULL };
  g_autoptr(GVariant) early = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterSessionIndex) loading = natter_session_index_new ();
  g_autofree char *ids = NULL;

  natter_search_provider_set_index (f->provider, loading);
  call_async (f, "GetInitialResultSet", g_variant_new ("(^as)", terms), "(as)", &early);
  reply = call (f, "GetResultMetas", g_variant_new ("(^as)", terms), "(aa{sv})");
  g_assert_null (early);

  natter_search_provider_unregister (f->provider);
  natter_test_wait_for_pointer ((gpointer *) &early, TIMEOUT_MS);
  ids = join_result (early);
  g_assert_cmpstr (ids, ==, "");

  g_clear_pointer (&reply, g_variant_unref);
  reply = g_dbus_connection_call_sync (f->client, NULL, OBJECT_PATH, NATTER_SEARCH_PROVIDER_INTERFACE,
                                       "GetInitialResultSet", g_variant_new ("(^as)", terms), NULL,
                                       G_DBUS_CALL_FLAGS_NONE, TIMEOUT_MS, NULL, &error);
  g_assert_null (reply);
  g_assert_error (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD);

  /* Registering again works, at the same path. */
  g_clear_error (&error);
  g_assert_true (natter_search_provider_register (f->provider, f->server, OBJECT_PATH, &error));
  g_assert_no_error (error);
}

/* What GNOME Shell reads to find the provider. */
static void
test_ini_file (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "data",
                                                 APP_ID ".search-provider.ini", NULL);
  g_autoptr(GKeyFile) key_file = g_key_file_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) keys = NULL;
  g_autofree char *desktop_id = NULL;
  g_autofree char *bus_name = NULL;
  g_autofree char *object_path = NULL;
  int version;

  g_key_file_load_from_file (key_file, path, G_KEY_FILE_NONE, &error);
  g_assert_no_error (error);

  keys = g_key_file_get_keys (key_file, "Shell Search Provider", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (keys), ==, 4);

  desktop_id = g_key_file_get_string (key_file, "Shell Search Provider", "DesktopId", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (desktop_id, ==, APP_ID ".desktop");
  bus_name = g_key_file_get_string (key_file, "Shell Search Provider", "BusName", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (bus_name, ==, APP_ID);
  object_path = g_key_file_get_string (key_file, "Shell Search Provider", "ObjectPath", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (object_path, ==, OBJECT_PATH);
  version = g_key_file_get_integer (key_file, "Shell Search Provider", "Version", &error);
  g_assert_no_error (error);
  g_assert_cmpint (version, ==, 2);

  /* GApplication exports its objects under the path of its id. */
  g_assert_true (g_variant_is_object_path (object_path));
  {
    g_autofree char *app_path = g_strconcat ("/", APP_ID, NULL);

    g_strdelimit (app_path, ".", '/');
    g_assert_true (g_str_has_prefix (object_path, app_path));
    g_assert_cmpstr (object_path + strlen (app_path), ==, "/SearchProvider");
  }
}

/* Content: sessions found by the words of their messages and answers */

static gboolean
completed (NatterSessionIndex *index,
           const char         *session_id)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (index, session_id);

  return entry != NULL && g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

typedef struct
{
  NatterSessions     *sessions;
  NatterSessionIndex *index;
  const char         *session_id;
} Talked;

static gboolean
talk_settled (gpointer data)
{
  Talked *talked = data;

  return completed (talked->index, talked->session_id) && natter_sessions_get_n_advances (talked->sessions) == 0;
}

/* A session whose one turn asked @text and got @answer. */
static char *
talk (NatterTestWorld    *w,
      NatterSessions     *sessions,
      NatterSessionIndex *index,
      const char         *text,
      const char         *answer)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autofree char *step = g_strdup_printf ("{\"role\":\"assistant\",\"content\":\"%s\"}", answer);
  g_autofree char *turn_id = NULL;
  char *session_id;

  natter_sessions_create_session_async (sessions, NULL, NULL, NULL, NULL, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
  session_id = natter_sessions_create_session_finish (sessions, result, &error);
  g_assert_no_error (error);
  g_clear_object (&result);

  natter_fake_model_script (w->fakes->model, step, NULL);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (sessions, session_id, input, options, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
  turn_id = natter_sessions_send_message_finish (sessions, result, &error);
  g_assert_no_error (error);
  {
    Talked talked = { sessions, index, session_id };

    g_assert_true (natter_test_wait_until (talk_settled, &talked, TIMEOUT_MS));
  }
  return session_id;
}

static void
test_content_hits (Fixture       *f,
                   gconstpointer  data)
{
  NatterTestWorld *w = natter_test_world_new ();
  NatterSessionIndex *index = natter_session_index_new ();
  NatterSessions *sessions = natter_sessions_new (w->session_repo, w->turn_repo, w->runtime, w->hub,
                                                  NATTER_CLOCK (w->clock), w->ids, index);
  g_autoptr(GFile) cache = g_file_resolve_relative_path (w->dir, "cache/search.sqlite");
  NatterSearchIndex *search = natter_search_index_new (cache, w->session_repo, w->turn_repo, sessions);
  g_autofree char *quokkas = NULL;
  g_autofree char *numbats = NULL;
  g_autofree char *both = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) metas = NULL;
  g_autoptr(GVariant) meta = NULL;
  const char *ids[] = { NULL, NULL };
  gboolean loaded = FALSE;

  natter_session_index_load_async (index, w->session_repo, w->turn_repo, NULL, load_cb, &loaded);
  natter_test_wait_for_flag (&loaded, TIMEOUT_MS);
  quokkas = talk (w, sessions, index, "Tell me about quokkas", "Quokkas are small marsupials.");
  numbats = talk (w, sessions, index, "Name another marsupial", "The numbat eats termites.");
  both = g_strconcat (numbats, " ", quokkas, NULL);
  ids[0] = quokkas;

  natter_search_index_start (search);
  natter_search_index_wait_async (search, NULL, natter_test_result_cb, &result);
  natter_test_wait_for_pointer ((gpointer *) &result, TIMEOUT_MS);
  natter_search_provider_set_index (f->provider, index);
  natter_search_provider_set_search_index (f->provider, search);

  /* Not in any title: found by the answer. */
  assert_ids (initial (f, "marsupials"), quokkas);
  assert_ids (initial (f, "TERMITES"), numbats);
  /* A title match comes first, then the sessions found by content. */
  assert_ids (initial (f, "marsupial"), both);
  /* Every term, in one turn. */
  assert_ids (initial (f, "small marsupials"), quokkas);
  assert_ids (initial (f, "quokkas termites"), "");
  /* A subsearch keeps to the previous results. */
  assert_ids (subsearch (f, quokkas, "marsupial"), quokkas);
  assert_ids (subsearch (f, numbats, "small"), "");

  /* A content hit says where the words were said. */
  assert_ids (initial (f, "marsupials"), quokkas);
  reply = call (f, "GetResultMetas", g_variant_new ("(^as)", ids), "(aa{sv})");
  metas = g_variant_get_child_value (reply, 0);
  g_assert_cmpuint (g_variant_n_children (metas), ==, 1);
  meta = g_variant_get_child_value (metas, 0);
  g_assert_cmpstr (meta_string (meta, "name"), ==, "Tell me about quokkas");
  g_assert_cmpstr (meta_string (meta, "description"), ==, "Quokkas are small marsupials.");
  /* ...and opens there when picked (ActivateResult). */
  g_assert_cmpstr (natter_search_provider_get_hit_turn (f->provider, quokkas), ==,
                   natter_session_index_entry_get_latest_turn_id (natter_session_index_lookup (index, quokkas)));
  g_assert_null (natter_search_provider_get_hit_turn (f->provider, numbats));

  natter_search_provider_set_search_index (f->provider, NULL);
  natter_search_provider_set_index (f->provider, f->index);
  /* A search thread may drop its task (and reference) a moment after
   * its answer arrived. */
  g_clear_object (&result);
  natter_test_wait_finalized (g_steal_pointer (&search), TIMEOUT_MS);
  g_object_unref (sessions);
  natter_test_drain_main_context ();
  g_object_unref (index);
  natter_test_world_free (w);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/search-provider/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("initial-matching", test_initial_matching);
  ADD ("subsearch-narrows", test_subsearch_narrows);
  ADD ("versions-offered-once", test_versions_offered_once);
  ADD ("order-and-limit", test_order_and_limit);
  ADD ("result-metas", test_result_metas);
  ADD ("describe-times", test_describe_times);
  ADD ("markup-title", test_markup_title);
  ADD ("one-line-title", test_one_line_title);
  ADD ("activate-result", test_activate_result);
  ADD ("launch-search", test_launch_search);
  ADD ("waits-for-index", test_waits_for_index);
  ADD ("unregister", test_unregister);
  ADD ("content-hits", test_content_hits);
  g_test_add_func ("/search-provider/ini-file", test_ini_file);

  return g_test_run ();
}
