/* natter-cli-search.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * `natter search QUERY [--json]`: the turns whose user message or answer
 * contain the words, best first, from the full-text search index.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <string.h>

#include "natter-cli-private.h"
#include "natter-json.h"
#include "natter-search-index.h"

/* More than anyone reads in a terminal; a script that needs more narrows
 * the words. */
#define SEARCH_LIMIT 200

static void
print_hits (Run       *run,
            GPtrArray *hits)
{
  NatterSessionIndex *index = natter_services_get_index (run->services);

  if (run->json)
    {
      g_autoptr(JsonArray) array = json_array_new ();

      for (guint i = 0; i < hits->len; i++)
        {
          NatterSearchHit *hit = g_ptr_array_index (hits, i);
          NatterSessionIndexEntry *entry = natter_session_index_lookup (index, hit->session_id);
          JsonObject *object = json_object_new ();
          g_autofree char *snippet = natter_search_snippet_to_plain (hit->snippet);
          const char *title = entry != NULL ? natter_session_index_entry_get_title (entry) : NULL;

          json_object_set_string_member (object, "sessionId", hit->session_id);
          json_object_set_string_member (object, "turnId", hit->turn_id);
          if (title != NULL)
            json_object_set_string_member (object, "title", title);
          else
            json_object_set_null_member (object, "title");
          json_object_set_string_member (object, "snippet", snippet);
          json_array_add_object_element (array, object);
        }
      natter_cli_out_json_array (run, array);
      return;
    }

  for (guint i = 0; i < hits->len; i++)
    {
      NatterSearchHit *hit = g_ptr_array_index (hits, i);
      g_autofree char *snippet = natter_search_snippet_to_plain (hit->snippet);
      g_autofree char *line = natter_cli_one_line (snippet);

      natter_cli_out (run, "%s\t%s\t%s\n", hit->session_id, hit->turn_id, line);
    }
}

/* A damaged conversation is not in the index as if it were whole (its
 * log reads all or nothing, docs/format.md §2), nor is a turn whose file
 * the index could not read: the words the search missed may be there,
 * so each such conversation is named rather than silently missing. */
static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  NatterSessionIndexEntry *const *x = a;
  NatterSessionIndexEntry *const *y = b;

  return strcmp (natter_session_index_entry_get_session_id (*x), natter_session_index_entry_get_session_id (*y));
}

static void
print_damaged (Run                *run,
               const char * const *unreadable)
{
  NatterSessionIndex *index = natter_services_get_index (run->services);
  g_autoptr(GPtrArray) damaged = natter_session_index_dup_damaged (index);

  for (guint i = 0; unreadable[i] != NULL; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_index_lookup (index, unreadable[i]);

      /* One listed as damaged already is named once. */
      if (entry != NULL && natter_session_index_entry_get_error (entry) == NULL)
        g_ptr_array_add (damaged, g_object_ref (entry));
    }
  g_ptr_array_sort (damaged, compare_entries);
  for (guint i = 0; i < damaged->len; i++)
    {
      NatterSessionIndexEntry *entry = g_ptr_array_index (damaged, i);
      const char *title = natter_session_index_entry_get_title (entry);

      /* A damaged file's title is whatever its damaged lines hold: made
       * one visible line, as every listed title is. */
      if (title != NULL)
        {
          g_autofree char *shown = natter_cli_one_line (title);

          g_application_command_line_printerr (run->cmdline,
                                               natter_cli_tr (run, "Damaged, not searched in full: %s “%s”\n"),
                                               natter_session_index_entry_get_session_id (entry), shown);
        }
      else
        g_application_command_line_printerr (run->cmdline, natter_cli_tr (run, "Damaged, not searched in full: %s\n"),
                                             natter_session_index_entry_get_session_id (entry));
    }
}

static void index_current_cb (GObject      *object,
                              GAsyncResult *result,
                              gpointer      user_data);

static void
searched_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GPtrArray) hits = NULL;
  g_auto(GStrv) unreadable = NULL;
  GError *error = NULL;
  gboolean still_indexing = FALSE;

  hits = natter_search_index_search_finish (NATTER_SEARCH_INDEX (object), result, &still_indexing, NULL, &error);
  if (hits == NULL)
    {
      natter_cli_fail_error (run, error);
      return;
    }
  /* Another Natter writes the directory and its index is behind what
   * is on disk: the answer is what it has indexed, said to be so. */
  if (still_indexing && !natter_services_has_writer_lock (run->services))
    g_application_command_line_printerr (run->cmdline, "%s\n",
                                         natter_cli_tr (run, "The other Natter using this data folder is still "
                                                        "building the search index: conversations it has not "
                                                        "indexed yet are not searched."));
  /* The index was current, so a search that says indexing goes on
   * found the file damaged and had it rebuilt: as for a missing file,
   * the answer waits for the build. Once: a file damaged again at once
   * gets the partial answer, said to be one. */
  else if (still_indexing && run->searches == 1)
    {
      natter_search_index_wait_async (NATTER_SEARCH_INDEX (object), g_task_get_cancellable (run->task),
                                      index_current_cb, run);
      return;
    }
  else if (still_indexing)
    g_application_command_line_printerr (run->cmdline, "%s\n",
                                         natter_cli_tr (run, "Still indexing: conversations not indexed yet "
                                                        "are not searched."));
  unreadable = natter_search_index_dup_unreadable (NATTER_SEARCH_INDEX (object));
  print_damaged (run, (const char * const *) unreadable);
  print_hits (run, hits);
  natter_cli_finish (run, 0);
}

static void
index_current_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Run *run = user_data;
  GError *error = NULL;

  if (!natter_search_index_wait_finish (NATTER_SEARCH_INDEX (object), result, &error))
    {
      natter_cli_fail_error (run, error);
      return;
    }
  run->searches++;
  natter_search_index_search_async (NATTER_SEARCH_INDEX (object), run->text, SEARCH_LIMIT,
                                    g_task_get_cancellable (run->task), searched_cb, run);
}

void
natter_cli_command_search (Run *run)
{
  NatterSearchIndex *search = natter_services_get_search_index (run->services);

  /* Another Natter writes the directory (docs/sessions.md §8.3): its
   * index is read as it is, never built or brought up to date here; a
   * missing one is an error that says the other Natter is building it,
   * and one behind what is on disk gives what it has, said to be so
   * (searched_cb()). */
  if (!natter_services_has_writer_lock (run->services))
    {
      run->searches++;
      natter_search_index_search_async (search, run->text, SEARCH_LIMIT, g_task_get_cancellable (run->task),
                                        searched_cb, run);
      return;
    }
  /* A one-off command answers from an index brought up to date first (in
   * a running window it usually is already): a first build takes a
   * while, but a partial answer would look like a wrong one. A file
   * that only the search finds damaged is rebuilt, and waited for, too
   * (searched_cb()). */
  natter_search_index_start (search);
  natter_search_index_wait_async (search, g_task_get_cancellable (run->task), index_current_cb, run);
}
