/* natter-search-provider.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The GNOME Shell search provider: the Activities overview finds
 * conversations by title and by the words said in them, and opens them. The provider only reads the
 * session index and reports activations as signals, so it needs GIO but no
 * window, and the application decides what "open" means.
 */

#define G_LOG_DOMAIN "natter-search-provider"

#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "natter-search-provider.h"
#include "natter-plain-text.h"
#include "natter-search-index.h"
#include "natter-session-families.h"

/* How long a search that arrives before the index is loaded waits for it.
 * D-Bus activation starts Natter for the Shell's first query, so that
 * query normally beats the startup scan; a scan that fails never sets
 * :loaded, and the Shell must still get an answer. */
#define PENDING_TIMEOUT_SECONDS 5

/* The interface as GNOME Shell defines it (its
 * data/dbus-interfaces/org.gnome.ShellSearchProvider2.xml). It is fixed,
 * so it lives here rather than in a generated skeleton. */
static const char introspection_xml[] =
  "<node>"
  "  <interface name='org.gnome.Shell.SearchProvider2'>"
  "    <method name='GetInitialResultSet'>"
  "      <arg type='as' name='terms' direction='in'/>"
  "      <arg type='as' name='results' direction='out'/>"
  "    </method>"
  "    <method name='GetSubsearchResultSet'>"
  "      <arg type='as' name='previous_results' direction='in'/>"
  "      <arg type='as' name='terms' direction='in'/>"
  "      <arg type='as' name='results' direction='out'/>"
  "    </method>"
  "    <method name='GetResultMetas'>"
  "      <arg type='as' name='identifiers' direction='in'/>"
  "      <arg type='aa{sv}' name='metas' direction='out'/>"
  "    </method>"
  "    <method name='ActivateResult'>"
  "      <arg type='s' name='identifier' direction='in'/>"
  "      <arg type='as' name='terms' direction='in'/>"
  "      <arg type='u' name='timestamp' direction='in'/>"
  "    </method>"
  "    <method name='LaunchSearch'>"
  "      <arg type='as' name='terms' direction='in'/>"
  "      <arg type='u' name='timestamp' direction='in'/>"
  "    </method>"
  "  </interface>"
  "</node>";

struct _NatterSearchProvider
{
  GObject             parent_instance;

  NatterSessionIndex *index;
  gulong              loaded_handler_id;
  NatterSearchIndex  *search;        /* nullable: titles only without it */
  GHashTable         *snippets;      /* session id → plain snippet of the last content search */
  GHashTable         *hit_turns;     /* session id → the turn of that snippet */
  NatterClock        *clock;
  GApplication       *application;   /* weak: the application owns us */

  GDBusConnection    *connection;
  guint               registration_id;

  /* Searches waiting for the index (GDBusMethodInvocation, owned). */
  GQueue              pending;
  guint               pending_timeout_id;
};

G_DEFINE_FINAL_TYPE (NatterSearchProvider, natter_search_provider, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_INDEX,
  PROP_CLOCK,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  ACTIVATE_RESULT,
  LAUNCH_SEARCH,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GDBusInterfaceInfo *
get_interface_info (void)
{
  static GDBusInterfaceInfo *info;

  if (g_once_init_enter (&info))
    {
      g_autoptr(GDBusNodeInfo) node = g_dbus_node_info_new_for_xml (introspection_xml, NULL);

      g_assert (node != NULL);
      g_once_init_leave (&info, g_dbus_interface_info_ref (node->interfaces[0]));
    }
  return info;
}

/* Matching */

static gboolean
entry_matches (NatterSessionIndexEntry *entry,
               const char * const      *terms)
{
  const char *title = natter_session_index_entry_get_title (entry);

  /* Errored entries cannot be opened usefully, and untitled ones would
   * only match the words of "New chat", which says nothing about them. */
  if (natter_session_index_entry_get_error (entry) != NULL || title == NULL || title[0] == '\0')
    return FALSE;

  for (guint i = 0; terms[i] != NULL; i++)
    if (!g_str_match_string (terms[i], title, TRUE))
      return FALSE;
  return TRUE;
}

/* A query must contain at least one word: g_str_match_string() accepts
 * any title for a term without one (say "-"). */
static gboolean
terms_have_words (const char * const *terms)
{
  if (terms == NULL)
    return FALSE;

  for (guint i = 0; terms[i] != NULL; i++)
    {
      g_auto(GStrv) tokens = g_str_tokenize_and_fold (terms[i], NULL, NULL);

      if (tokens[0] != NULL)
        return TRUE;
    }
  return FALSE;
}

/* Newest first. updatedAt is always natter_format_ts()'s fixed-width UTC
 * form, so the strings sort as the times do; ids (which begin with their
 * creation time) break ties so the order never depends on the index's. */
static int
compare_newest_first (gconstpointer a,
                      gconstpointer b)
{
  NatterSessionIndexEntry *ea = *(NatterSessionIndexEntry **) a;
  NatterSessionIndexEntry *eb = *(NatterSessionIndexEntry **) b;
  const char *ua = natter_session_index_entry_get_updated_at (ea);
  const char *ub = natter_session_index_entry_get_updated_at (eb);
  int cmp = g_strcmp0 (ub, ua);

  if (cmp != 0)
    return cmp;
  return g_strcmp0 (natter_session_index_entry_get_session_id (eb),
                    natter_session_index_entry_get_session_id (ea));
}

/* Keeps one hit of each family (natter-session-families.c): its head
 * when that matched, as the sidebar lists it; else the newest version
 * that did, which a rename gave words the head does not have. @hits is
 * sorted newest first and stays so. */
static void
once_per_family (GPtrArray             *hits,
                 NatterSessionFamilies *families)
{
  g_autoptr(GHashTable) head_hit = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) kept = g_hash_table_new (g_str_hash, g_str_equal);
  guint i = 0;

  for (guint j = 0; j < hits->len; j++)
    {
      const char *id = natter_session_index_entry_get_session_id (g_ptr_array_index (hits, j));

      if (natter_session_families_is_head (families, id))
        g_hash_table_add (head_hit, (gpointer) natter_session_families_get_original (families, id));
    }
  while (i < hits->len)
    {
      const char *id = natter_session_index_entry_get_session_id (g_ptr_array_index (hits, i));
      const char *original = natter_session_families_get_original (families, id);
      gboolean keep;

      if (original == NULL)
        keep = TRUE;
      else if (g_hash_table_contains (head_hit, original))
        keep = natter_session_families_is_head (families, id);
      else
        keep = g_hash_table_add (kept, (gpointer) original);
      if (keep)
        i++;
      else
        g_ptr_array_remove_index (hits, i);
    }
}

/**
 * natter_search_provider_search:
 * @self: the provider
 * @terms: (array zero-terminated=1): the words the user typed, as the
 *   Shell splits them
 * @previous: (array zero-terminated=1) (nullable): the ids of an earlier
 *   search to narrow (GetSubsearchResultSet), or %NULL to search the
 *   whole index (GetInitialResultSet)
 *
 * The search behind both result-set methods. A session matches when every
 * term matches its title the way g_str_match_string() does: case- and
 * accent-insensitively (titles are casefolded and normalized, and "cafe"
 * finds "Café"), each term a prefix of some word of the title ("uni" finds
 * "Café Ünïcode", "code" does not). Errored and untitled sessions never
 * match, and a conversation with several versions (edits, new tries;
 * natter-session-families.c) is offered once: as its most recently
 * active version, as the sidebar lists it, or when that one's title does
 * not match, as the newest version whose title (a rename) does. The
 * result is sorted by `updatedAt`, newest first, and holds at most
 * %NATTER_SEARCH_PROVIDER_MAX_RESULTS ids. Without an index, or when
 * no term contains a word, nothing matches.
 *
 * Returns: (transfer full) (element-type utf8): the matching session ids
 */
GPtrArray *
natter_search_provider_search (NatterSearchProvider *self,
                               const char * const   *terms,
                               const char * const   *previous)
{
  g_autoptr(GPtrArray) hits = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(NatterSessionFamilies) families = NULL;
  GPtrArray *ids;

  g_return_val_if_fail (NATTER_IS_SEARCH_PROVIDER (self), NULL);

  ids = g_ptr_array_new_with_free_func (g_free);
  if (self->index == NULL || !terms_have_words (terms))
    return ids;
  families = natter_session_families_new (G_LIST_MODEL (self->index));

  if (previous != NULL)
    {
      g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; previous[i] != NULL; i++)
        {
          NatterSessionIndexEntry *entry = natter_session_index_lookup (self->index, previous[i]);

          /* A session deleted since the first search has no entry. */
          if (entry != NULL && g_hash_table_add (seen, (gpointer) previous[i]) && entry_matches (entry, terms))
            g_ptr_array_add (hits, g_object_ref (entry));
        }
    }
  else
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->index));

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->index), i);

          if (entry_matches (entry, terms))
            g_ptr_array_add (hits, g_steal_pointer (&entry));
        }
    }

  g_ptr_array_sort (hits, compare_newest_first);
  once_per_family (hits, families);
  for (guint i = 0; i < hits->len && i < NATTER_SEARCH_PROVIDER_MAX_RESULTS; i++)
    g_ptr_array_add (ids, g_strdup (natter_session_index_entry_get_session_id (g_ptr_array_index (hits, i))));
  return ids;
}

/**
 * natter_search_provider_describe:
 * @self: the provider
 * @entry: an index entry
 *
 * The one line the Shell shows under a result's title: what the session
 * needs when that matters more than when it changed ("Needs you" for a
 * suspended turn, "The last answer failed"), else how long ago it was
 * updated by the provider's clock ("Updated 5 minutes ago", "Updated 3
 * days ago", "Updated on" a date after a week).
 *
 * Returns: (transfer full) (nullable): the description, or %NULL when
 *   the entry has no readable `updatedAt`
 */
char *
natter_search_provider_describe (NatterSearchProvider    *self,
                                 NatterSessionIndexEntry *entry)
{
  const char *status;
  const char *updated_at;
  g_autoptr(GDateTime) then = NULL;
  gint64 seconds;
  guint n;

  g_return_val_if_fail (NATTER_IS_SEARCH_PROVIDER (self), NULL);
  g_return_val_if_fail (NATTER_IS_SESSION_INDEX_ENTRY (entry), NULL);

  status = natter_session_index_entry_get_latest_turn_status (entry);
  if (g_strcmp0 (status, "suspended") == 0)
    /* Translators: a search result's description: the conversation waits
     * for the user to answer a question or grant a permission. */
    return g_strdup (_("Needs you"));
  if (g_strcmp0 (status, "failed") == 0)
    return g_strdup (_("The last answer failed"));

  updated_at = natter_session_index_entry_get_updated_at (entry);
  if (updated_at != NULL)
    then = g_date_time_new_from_iso8601 (updated_at, NULL);
  if (then == NULL)
    return NULL;

  seconds = (natter_clock_now_us (self->clock) - g_date_time_to_unix (then) * G_USEC_PER_SEC) / G_USEC_PER_SEC;
  if (seconds < 60)
    return g_strdup (_("Updated just now"));
  if (seconds < 60 * 60)
    {
      n = seconds / 60;
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Updated %u minute ago", "Updated %u minutes ago", n), n);
    }
  if (seconds < 24 * 60 * 60)
    {
      n = seconds / (60 * 60);
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Updated %u hour ago", "Updated %u hours ago", n), n);
    }
  if (seconds < 7 * 24 * 60 * 60)
    {
      n = seconds / (24 * 60 * 60);
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Updated %u day ago", "Updated %u days ago", n), n);
    }
  else
    {
      g_autoptr(GDateTime) local = g_date_time_to_local (then);
      g_autofree char *date = g_date_time_format (local, "%x");

      /* Translators: %s is a date in the locale's format. */
      return g_strdup_printf (_("Updated on %s"), date);
    }
}

/* The D-Bus side */

/* The terms of a GetInitialResultSet or GetSubsearchResultSet call, and
 * of the latter the results it narrows down (else %NULL): arrays to free
 * with g_free(), of strings @invocation owns. */
static void
call_terms (GDBusMethodInvocation   *invocation,
            const char            ***terms,
            const char            ***previous)
{
  GVariant *parameters = g_dbus_method_invocation_get_parameters (invocation);

  *previous = NULL;
  if (g_str_equal (g_dbus_method_invocation_get_method_name (invocation), "GetSubsearchResultSet"))
    g_variant_get (parameters, "(^a&s^a&s)", previous, terms);
  else
    g_variant_get (parameters, "(^a&s)", terms);
}

/* The answer to a result-set call: @ids, the results' ids. */
static GVariant *
result_set_value (GPtrArray *ids)
{
  return g_variant_new ("(@as)", g_variant_new_strv ((const char * const *) ids->pdata, ids->len));
}

static GVariant *
result_set (NatterSearchProvider *self,
            GDBusMethodInvocation *invocation)
{
  g_autofree const char **terms = NULL;
  g_autofree const char **previous = NULL;
  g_autoptr(GPtrArray) ids = NULL;

  call_terms (invocation, &terms, &previous);
  ids = natter_search_provider_search (self, terms, previous);
  return result_set_value (ids);
}

/* Content search: the words of messages and answers, through the
 * full-text index, added after the title matches. */

typedef struct
{
  NatterSearchProvider  *self;
  GDBusMethodInvocation *invocation;
} ContentSearch;

static void release (NatterSearchProvider *self);
static void hold (NatterSearchProvider *self);

static void
content_searched_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ContentSearch *search = user_data;
  NatterSearchProvider *self = search->self;
  g_autofree const char **terms = NULL;
  g_autofree const char **previous = NULL;
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  hits = natter_search_index_search_finish (NATTER_SEARCH_INDEX (object), result, NULL, NULL, &error);
  if (hits == NULL)
    g_debug ("content search failed, answering with titles only: %s", error->message);
  call_terms (search->invocation, &terms, &previous);

  ids = natter_search_provider_search (self, terms, previous);
  /* What this search found replaces what the last one did: a result
   * found by its title now neither says nor opens at older words. */
  g_hash_table_remove_all (self->snippets);
  g_hash_table_remove_all (self->hit_turns);
  for (guint i = 0; i < ids->len; i++)
    g_hash_table_add (seen, g_ptr_array_index (ids, i));
  for (guint i = 0; hits != NULL && i < hits->len && ids->len < NATTER_SEARCH_PROVIDER_MAX_RESULTS; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);
      NatterSessionIndexEntry *entry = natter_session_index_lookup (self->index, hit->session_id);

      /* One result per session, its best turn; sessions that cannot be
       * opened usefully are not offered, as for titles. */
      if (entry == NULL || natter_session_index_entry_get_error (entry) != NULL ||
          g_hash_table_contains (seen, hit->session_id) ||
          (previous != NULL && !g_strv_contains (previous, hit->session_id)))
        continue;
      g_hash_table_insert (self->snippets, g_strdup (hit->session_id),
                           natter_search_snippet_to_plain (hit->snippet));
      g_hash_table_insert (self->hit_turns, g_strdup (hit->session_id), g_strdup (hit->turn_id));
      g_ptr_array_add (ids, g_strdup (hit->session_id));
      g_hash_table_add (seen, g_ptr_array_index (ids, ids->len - 1));
    }
  g_dbus_method_invocation_return_value (search->invocation, result_set_value (ids));
  release (self);
  g_object_unref (self);
  g_free (search);
}

/* Answers a result-set call (and takes the invocation's reference):
 * at once from the titles, or after the content search. */
static void
answer_result_set (NatterSearchProvider  *self,
                   GDBusMethodInvocation *invocation)
{
  g_autofree const char **terms = NULL;
  g_autofree const char **previous = NULL;
  g_autofree char *text = NULL;
  ContentSearch *search;

  if (self->search == NULL)
    {
      g_dbus_method_invocation_return_value (invocation, result_set (self, invocation));
      return;
    }
  call_terms (invocation, &terms, &previous);
  text = g_strjoinv (" ", (char **) terms);
  search = g_new0 (ContentSearch, 1);
  search->self = g_object_ref (self);
  search->invocation = invocation;
  hold (self);
  natter_search_index_search_async (self->search, text, 200, NULL, content_searched_cb, search);
}

static GVariant *
result_metas (NatterSearchProvider *self,
              GVariant             *parameters)
{
  g_autofree const char **ids = NULL;
  g_autoptr(GIcon) icon = g_themed_icon_new (APP_ID);
  g_autofree char *icon_string = g_icon_to_string (icon);
  GVariantBuilder metas;

  g_variant_get (parameters, "(^a&s)", &ids);
  g_variant_builder_init (&metas, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; ids[i] != NULL; i++)
    {
      NatterSessionIndexEntry *entry = NULL;
      const char *title;
      g_autofree char *shown = NULL;
      g_autofree char *description = NULL;

      if (self->index != NULL)
        entry = natter_session_index_lookup (self->index, ids[i]);
      /* The Shell drops results it gets no meta for. */
      if (entry == NULL)
        continue;

      title = natter_session_index_entry_get_title (entry);
      /* One line with the sidebar's stand-ins: a title an older file or
       * an archive holds may carry a control character or a bidi
       * override, which would ring, break or turn the Shell's line. */
      shown = natter_visible_text (title, NATTER_VISIBLE_KEEP_NONE);
      /* A session found by what was said shows where it was said. */
      description = g_strdup (g_hash_table_lookup (self->snippets, ids[i]));
      if (description == NULL)
        description = natter_search_provider_describe (self, entry);

      g_variant_builder_open (&metas, G_VARIANT_TYPE ("a{sv}"));
      g_variant_builder_add (&metas, "{sv}", "id", g_variant_new_string (ids[i]));
      g_variant_builder_add (&metas, "{sv}", "name",
                             g_variant_new_string (shown[0] != '\0' ? shown : _("New chat")));
      if (description != NULL)
        g_variant_builder_add (&metas, "{sv}", "description", g_variant_new_string (description));
      g_variant_builder_add (&metas, "{sv}", "gicon", g_variant_new_string (icon_string));
      g_variant_builder_close (&metas);
    }
  return g_variant_new ("(aa{sv})", &metas);
}

static gboolean
index_ready (NatterSearchProvider *self)
{
  return self->index != NULL && natter_session_index_get_loaded (self->index);
}

/* Each call holds the application, so a D-Bus-activated Natter with no
 * window stays up while the Shell searches and its inactivity timeout
 * starts over after the last reply. */
static void
hold (NatterSearchProvider *self)
{
  if (self->application != NULL)
    g_application_hold (self->application);
}

static void
release (NatterSearchProvider *self)
{
  if (self->application != NULL)
    g_application_release (self->application);
}

/* Answers every waiting search with what the index has now. */
static void
flush_pending (NatterSearchProvider *self)
{
  GDBusMethodInvocation *invocation;

  g_clear_handle_id (&self->pending_timeout_id, g_source_remove);
  while ((invocation = g_queue_pop_head (&self->pending)) != NULL)
    {
      /* Answering takes the invocation's reference. */
      answer_result_set (self, invocation);
      release (self);
    }
}

static gboolean
pending_timeout_cb (gpointer user_data)
{
  NatterSearchProvider *self = user_data;

  self->pending_timeout_id = 0;
  g_debug ("the index is not loaded after %u s; answering with what it has", PENDING_TIMEOUT_SECONDS);
  flush_pending (self);
  return G_SOURCE_REMOVE;
}

static void
method_call_cb (GDBusConnection       *connection,
                const char            *sender,
                const char            *object_path,
                const char            *interface_name,
                const char            *method_name,
                GVariant              *parameters,
                GDBusMethodInvocation *invocation,
                gpointer               user_data)
{
  NatterSearchProvider *self = user_data;

  hold (self);

  if (g_str_equal (method_name, "GetInitialResultSet") || g_str_equal (method_name, "GetSubsearchResultSet"))
    {
      if (!index_ready (self))
        {
          /* Released in flush_pending(). */
          g_queue_push_tail (&self->pending, invocation);
          if (self->pending_timeout_id == 0)
            self->pending_timeout_id = g_timeout_add_seconds (PENDING_TIMEOUT_SECONDS, pending_timeout_cb, self);
          return;
        }
      answer_result_set (self, invocation);
    }
  else if (g_str_equal (method_name, "GetResultMetas"))
    {
      g_dbus_method_invocation_return_value (invocation, result_metas (self, parameters));
    }
  else if (g_str_equal (method_name, "ActivateResult"))
    {
      const char *id;
      guint32 timestamp;

      g_variant_get (parameters, "(&sasu)", &id, NULL, &timestamp);
      /* Reply first: the handler may present a window, and the Shell
       * waits for nothing more than the call's completion. */
      g_dbus_method_invocation_return_value (invocation, NULL);
      if (self->index != NULL && natter_session_index_lookup (self->index, id) != NULL)
        g_signal_emit (self, signals[ACTIVATE_RESULT], 0, id, timestamp);
      else
        g_debug ("not activating %s: no such session", id);
    }
  else if (g_str_equal (method_name, "LaunchSearch"))
    {
      g_autofree const char **terms = NULL;
      guint32 timestamp;

      g_variant_get (parameters, "(^a&su)", &terms, &timestamp);
      g_dbus_method_invocation_return_value (invocation, NULL);
      g_signal_emit (self, signals[LAUNCH_SEARCH], 0, terms, timestamp);
    }
  else
    {
      /* GDBus checks method names against the introspection data. */
      g_assert_not_reached ();
    }

  release (self);
}

static const GDBusInterfaceVTable vtable = {
  .method_call = method_call_cb,
};

/* Public API */

static void
loaded_cb (NatterSessionIndex   *index,
           GParamSpec           *pspec,
           NatterSearchProvider *self)
{
  if (natter_session_index_get_loaded (index))
    flush_pending (self);
}

/**
 * natter_search_provider_get_hit_turn:
 * @self: the provider
 * @session_id: a result the Shell was given
 *
 * The turn whose words made @session_id a result of the last search by
 * content, where the conversation opens when the result is picked
 * (ActivateResult): the Shell's result is a conversation, its snippet
 * that turn's words.
 *
 * Returns: (transfer none) (nullable): the turn id, or %NULL when
 *   @session_id was found by its title only
 */
const char *
natter_search_provider_get_hit_turn (NatterSearchProvider *self,
                                     const char           *session_id)
{
  g_return_val_if_fail (NATTER_IS_SEARCH_PROVIDER (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  return g_hash_table_lookup (self->hit_turns, session_id);
}

/**
 * natter_search_provider_new:
 * @index: (nullable): the session index to search, or %NULL to set it
 *   later with natter_search_provider_set_index()
 *
 * Creates a provider for GNOME Shell's overview search. An application
 * exports it from its GApplicationClass.dbus_register (before it owns
 * its bus name, so the Shell's first call finds it) — usually before its
 * services and index exist, hence the nullable @index.
 *
 * Returns: (transfer full): a new provider
 */
NatterSearchProvider *
natter_search_provider_new (NatterSessionIndex *index)
{
  g_return_val_if_fail (index == NULL || NATTER_IS_SESSION_INDEX (index), NULL);

  return g_object_new (NATTER_TYPE_SEARCH_PROVIDER, "index", index, NULL);
}

/**
 * natter_search_provider_get_index:
 * @self: the provider
 *
 * Returns: (transfer none) (nullable): the index it searches
 */
NatterSessionIndex *
natter_search_provider_get_index (NatterSearchProvider *self)
{
  g_return_val_if_fail (NATTER_IS_SEARCH_PROVIDER (self), NULL);

  return self->index;
}

/**
 * natter_search_provider_set_index:
 * @self: the provider
 * @index: (nullable): the session index to search
 *
 * Sets the index to search. Searches that arrived earlier wait until it is
 * loaded (#NatterSessionIndex:loaded), at most 5 seconds; then they are
 * answered from whatever it holds.
 */
void
natter_search_provider_set_index (NatterSearchProvider *self,
                                  NatterSessionIndex   *index)
{
  g_return_if_fail (NATTER_IS_SEARCH_PROVIDER (self));
  g_return_if_fail (index == NULL || NATTER_IS_SESSION_INDEX (index));

  if (self->index == index)
    return;

  if (self->index != NULL)
    g_clear_signal_handler (&self->loaded_handler_id, self->index);
  g_set_object (&self->index, index);
  if (index != NULL)
    self->loaded_handler_id = g_signal_connect_object (index, "notify::loaded", G_CALLBACK (loaded_cb), self, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INDEX]);

  if (index_ready (self))
    flush_pending (self);
}

/**
 * natter_search_provider_set_search_index:
 * @self: the provider
 * @search: (nullable): the full-text index, or %NULL to match titles only
 *
 * With a full-text index, a search also finds sessions by the words of
 * their messages and answers (natter_search_index_search_sync()): after
 * the title matches, one result per session in the order of its best
 * turn, at most %NATTER_SEARCH_PROVIDER_MAX_RESULTS in all, and such a
 * result's description is the matching snippet instead of its time.
 */
void
natter_search_provider_set_search_index (NatterSearchProvider *self,
                                         NatterSearchIndex    *search)
{
  g_return_if_fail (NATTER_IS_SEARCH_PROVIDER (self));
  g_return_if_fail (search == NULL || NATTER_IS_SEARCH_INDEX (search));

  g_set_object (&self->search, search);
}

/**
 * natter_search_provider_set_application:
 * @self: the provider
 * @application: (nullable): the application that exports it
 *
 * While a call is being answered the provider holds @application
 * (g_application_hold()), so a Natter started by D-Bus activation for the
 * Shell stays up while it is searched. The provider keeps only a weak
 * pointer: the application owns the provider.
 */
void
natter_search_provider_set_application (NatterSearchProvider *self,
                                        GApplication         *application)
{
  g_return_if_fail (NATTER_IS_SEARCH_PROVIDER (self));
  g_return_if_fail (application == NULL || G_IS_APPLICATION (application));
  /* A waiting call holds the application it was received under. */
  g_return_if_fail (g_queue_is_empty (&self->pending));

  g_set_weak_pointer (&self->application, application);
}

/**
 * natter_search_provider_register:
 * @self: the provider
 * @connection: the connection to export on (the application's)
 * @object_path: where to export, the `ObjectPath` of the search provider
 *   .ini file: `/io/github/natter/Natter/SearchProvider`
 * @error: return location for a #GError
 *
 * Exports the `org.gnome.Shell.SearchProvider2` interface on @connection
 * at @object_path. The provider must not be registered already.
 *
 * Returns: %TRUE on success; %FALSE with @error set from
 *   g_dbus_connection_register_object() (%G_IO_ERROR_EXISTS when the
 *   path already carries the interface)
 */
gboolean
natter_search_provider_register (NatterSearchProvider  *self,
                                 GDBusConnection       *connection,
                                 const char            *object_path,
                                 GError               **error)
{
  guint id;

  g_return_val_if_fail (NATTER_IS_SEARCH_PROVIDER (self), FALSE);
  g_return_val_if_fail (G_IS_DBUS_CONNECTION (connection), FALSE);
  g_return_val_if_fail (g_variant_is_object_path (object_path), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_return_val_if_fail (self->registration_id == 0, FALSE);

  id = g_dbus_connection_register_object (connection, object_path, get_interface_info (),
                                          &vtable, self, NULL, error);
  if (id == 0)
    return FALSE;

  self->registration_id = id;
  self->connection = g_object_ref (connection);
  return TRUE;
}

/**
 * natter_search_provider_unregister:
 * @self: the provider
 *
 * Withdraws the interface from the bus; waiting searches are answered
 * first. Does nothing when not registered.
 */
void
natter_search_provider_unregister (NatterSearchProvider *self)
{
  g_return_if_fail (NATTER_IS_SEARCH_PROVIDER (self));

  flush_pending (self);
  if (self->registration_id != 0)
    {
      g_dbus_connection_unregister_object (self->connection, self->registration_id);
      self->registration_id = 0;
    }
  g_clear_object (&self->connection);
}

/* GObject */

static void
natter_search_provider_constructed (GObject *object)
{
  NatterSearchProvider *self = NATTER_SEARCH_PROVIDER (object);

  G_OBJECT_CLASS (natter_search_provider_parent_class)->constructed (object);

  if (self->clock == NULL)
    self->clock = natter_clock_get_system ();
}

static void
natter_search_provider_dispose (GObject *object)
{
  NatterSearchProvider *self = NATTER_SEARCH_PROVIDER (object);

  natter_search_provider_unregister (self);
  if (self->index != NULL)
    g_clear_signal_handler (&self->loaded_handler_id, self->index);
  g_clear_object (&self->index);
  g_clear_object (&self->search);
  g_clear_weak_pointer (&self->application);

  G_OBJECT_CLASS (natter_search_provider_parent_class)->dispose (object);
}

static void
natter_search_provider_finalize (GObject *object)
{
  NatterSearchProvider *self = NATTER_SEARCH_PROVIDER (object);

  g_clear_object (&self->clock);
  g_clear_pointer (&self->snippets, g_hash_table_unref);
  g_clear_pointer (&self->hit_turns, g_hash_table_unref);

  G_OBJECT_CLASS (natter_search_provider_parent_class)->finalize (object);
}

static void
natter_search_provider_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  NatterSearchProvider *self = NATTER_SEARCH_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      g_value_set_object (value, self->index);
      break;
    case PROP_CLOCK:
      g_value_set_object (value, self->clock);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_search_provider_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  NatterSearchProvider *self = NATTER_SEARCH_PROVIDER (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      natter_search_provider_set_index (self, g_value_get_object (value));
      break;
    case PROP_CLOCK:
      self->clock = g_value_dup_object (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_search_provider_class_init (NatterSearchProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = natter_search_provider_constructed;
  object_class->dispose = natter_search_provider_dispose;
  object_class->finalize = natter_search_provider_finalize;
  object_class->get_property = natter_search_provider_get_property;
  object_class->set_property = natter_search_provider_set_property;

  /**
   * NatterSearchProvider:index:
   *
   * The session index searched; %NULL until the application has one.
   */
  properties[PROP_INDEX] =
    g_param_spec_object ("index", NULL, NULL,
                         NATTER_TYPE_SESSION_INDEX,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * NatterSearchProvider:clock:
   *
   * The clock relative times in descriptions are measured against; the
   * system clock unless a test sets a fake one.
   */
  properties[PROP_CLOCK] =
    g_param_spec_object ("clock", NULL, NULL,
                         NATTER_TYPE_CLOCK,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterSearchProvider::activate-result:
   * @self: the provider
   * @session_id: the session the user picked
   * @timestamp: the X11/Wayland event time of the click, for
   *   gtk_window_present_with_time()
   *
   * The user picked a result in the Shell (ActivateResult): open the
   * session. Only emitted for a session the index has.
   */
  signals[ACTIVATE_RESULT] =
    g_signal_new ("activate-result",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);

  /**
   * NatterSearchProvider::launch-search:
   * @self: the provider
   * @terms: (array zero-terminated=1): the search terms
   * @timestamp: the event time of the click
   *
   * The user asked to see the search in the application (LaunchSearch):
   * present the window, possibly with @terms in its own search.
   */
  signals[LAUNCH_SEARCH] =
    g_signal_new ("launch-search",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRV, G_TYPE_UINT);
}

static void
natter_search_provider_init (NatterSearchProvider *self)
{
  g_queue_init (&self->pending);
  self->snippets = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->hit_turns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}
