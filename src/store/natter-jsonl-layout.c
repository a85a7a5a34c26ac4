/* natter-jsonl-layout.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-jsonl-repo"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <glib/gstdio.h>

#include "natter-fd-private.h"
#include "natter-id.h"
#include "natter-json.h"
#include "natter-store-error.h"

#include "natter-jsonl-repo-private.h"
#include "natter-store-temp.h"
#include "natter-sync-conflict-name.h"

/* Where the logs live: `storage/<kind>/YYYY/MM/DD/<id>.jsonl`
 * (docs/runtime.md §2, docs/sessions.md §6.1). Builds the path of
 * an id, makes its private partition directories, lists the ids on disk
 * and removes the temporary files an interrupted create left behind. */

/* Validates @id first: no path is ever built from an unchecked id. Put
 * together by hand, `<kind>/YYYY/MM/DD/<id>.jsonl` from the id's date:
 * the startup scan builds two paths a session. @id may also be a
 * conflict copy's name (docs/format.md §9), which begins with the id of
 * the log it is a copy of and sits in its partition; the writes refuse
 * such a name before they get here. */
char *
natter_jsonl_layout_file_path (NatterJsonlRepo  *self,
                               const char       *id,
                               GError          **error)
{
  static const char suffix[] = ".jsonl";
  gsize kind_length;
  gsize name_length;
  char *path;
  char *p;

  if (!natter_store_name_validate (id, error))
    return NULL;

  kind_length = strlen (self->kind_path);
  name_length = strlen (id);
  p = path = g_malloc (kind_length + strlen ("/YYYY/MM/DD/") + name_length + sizeof suffix);
  memcpy (p, self->kind_path, kind_length);
  p += kind_length;
  *p++ = '/';
  memcpy (p, id, 4);            /* YYYY */
  p += 4;
  *p++ = '/';
  memcpy (p, id + 5, 2);        /* MM */
  p += 2;
  *p++ = '/';
  memcpy (p, id + 8, 2);        /* DD */
  p += 2;
  *p++ = '/';
  memcpy (p, id, name_length);
  p += name_length;
  memcpy (p, suffix, sizeof suffix);
  return path;
}

/* Makes @path (one component below an existing directory) with mode 0700,
 * and forces 0700 on it when this call created it: the umask must not
 * widen or narrow a directory that holds private conversations. An
 * existing directory is left as the user set it. */
static gboolean
make_private_dir (const char  *path,
                  GError     **error)
{
  if (g_mkdir (path, 0700) == 0)
    {
      if (g_chmod (path, 0700) < 0)
        return natter_store_set_io_error (error, errno, "set the mode of", path);
      return TRUE;
    }
  if (errno == EEXIST && g_file_test (path, G_FILE_TEST_IS_DIR))
    return TRUE;
  return natter_store_set_io_error (error, errno == EEXIST ? ENOTDIR : errno, "create the directory", path);
}

gboolean
natter_jsonl_layout_ensure_partition_dir (NatterJsonlRepo  *self,
                                          const char       *id,
                                          GError          **error)
{
  g_autofree char *partition = natter_id_partition (id);
  g_auto(GStrv) parts = g_strsplit (partition, "/", -1);
  g_autofree char *path = NULL;

  if (!g_file_test (self->storage_path, G_FILE_TEST_IS_DIR))
    {
      if (g_mkdir_with_parents (self->storage_path, 0700) < 0)
        return natter_store_set_io_error (error, errno, "create the directory", self->storage_path);
      if (g_chmod (self->storage_path, 0700) < 0)
        return natter_store_set_io_error (error, errno, "set the mode of", self->storage_path);
    }

  if (!make_private_dir (self->kind_path, error))
    return FALSE;

  path = g_strdup (self->kind_path);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *next = g_build_filename (path, parts[i], NULL);

      g_free (path);
      path = next;
      if (!make_private_dir (path, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
is_digits (const char *name,
           gsize       n)
{
  if (strlen (name) != n)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isdigit (name[i]))
      return FALSE;
  return TRUE;
}

/* Opens one partition level; a missing or unreadable level is skipped with
 * a debug message only, so that one odd directory never hides the rest of
 * the history (pitfalls.md 2). The top level is the caller's business. */
static GDir *
open_level (const char *path)
{
  g_autoptr(GError) error = NULL;
  GDir *dir = g_dir_open (path, 0, &error);

  if (dir == NULL)
    g_debug ("Skipping %s: %s", path, error->message);
  return dir;
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* What walk_days() calls for each day directory of the partitions:
 * @day_path is the directory, @year, @month and @day its partition's
 * names. Returns %FALSE with @error set to end the walk. */
typedef gboolean (*DayFunc) (const char    *day_path,
                             const char    *year,
                             const char    *month,
                             const char    *day,
                             gpointer       data,
                             GCancellable  *cancellable,
                             GError       **error);

/* Calls @func for every day directory of the kind's partitions
 * (`YYYY/MM/DD`), the one walk both the listing and the sweep of
 * leftovers make. A missing kind directory is an empty walk; one that
 * cannot be listed is %NATTER_STORE_ERROR_IO; a lower level that cannot
 * be opened is skipped (open_level()). Cancellation is checked once a
 * year. Returns %FALSE with @error set when the walk did not finish. */
static gboolean
walk_days (NatterJsonlRepo  *self,
           DayFunc           func,
           gpointer          data,
           GCancellable     *cancellable,
           GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  GDir *top;
  const char *year;
  gboolean ok = TRUE;

  top = g_dir_open (self->kind_path, 0, &local_error);
  if (top == NULL)
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE;
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "Could not list %s: %s", self->kind_path, local_error->message);
      return FALSE;
    }

  while (ok && (year = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *year_path = NULL;
      GDir *year_dir;
      const char *month;

      if (!is_digits (year, 4))
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          ok = FALSE;
          break;
        }

      year_path = g_build_filename (self->kind_path, year, NULL);
      if ((year_dir = open_level (year_path)) == NULL)
        continue;

      while (ok && (month = g_dir_read_name (year_dir)) != NULL)
        {
          g_autofree char *month_path = NULL;
          GDir *month_dir;
          const char *day;

          if (!is_digits (month, 2))
            continue;
          month_path = g_build_filename (year_path, month, NULL);
          if ((month_dir = open_level (month_path)) == NULL)
            continue;

          while (ok && (day = g_dir_read_name (month_dir)) != NULL)
            {
              g_autofree char *day_path = NULL;

              if (!is_digits (day, 2))
                continue;
              day_path = g_build_filename (month_path, day, NULL);
              ok = func (day_path, year, month, day, data, cancellable, error);
            }
          g_dir_close (month_dir);
        }
      g_dir_close (year_dir);
    }
  g_dir_close (top);
  return ok;
}

typedef struct
{
  GPtrArray *ids;       /* NULL unless the ids are wanted */
  GPtrArray *conflicts; /* nullable */
} ListNames;

/* list_names()'s look at one day directory. */
static gboolean
list_day (const char    *day_path,
          const char    *year,
          const char    *month,
          const char    *day,
          gpointer       data,
          GCancellable  *cancellable,
          GError       **error)
{
  ListNames *list = data;
  GDir *day_dir;
  const char *name;

  if ((day_dir = open_level (day_path)) == NULL)
    return TRUE;

  while ((name = g_dir_read_name (day_dir)) != NULL)
    {
      g_autofree char *id = NULL;

      if (!g_str_has_suffix (name, ".jsonl"))
        continue;

      id = g_strndup (name, strlen (name) - strlen (".jsonl"));
      if (natter_sync_conflict_is_candidate (id))
        {
          if (list->conflicts != NULL)
            g_ptr_array_add (list->conflicts, g_steal_pointer (&id));
          continue;
        }
      if (list->ids == NULL)
        continue;
      if (!natter_id_validate (id, NULL))
        {
          g_debug ("Ignoring %s/%s: the name is not a valid id", day_path, name);
          continue;
        }
      /* The id's partition is its date: YYYY-MM-DD… */
      if (memcmp (id, year, 4) != 0 || memcmp (id + 5, month, 2) != 0 || memcmp (id + 8, day, 2) != 0)
        {
          g_debug ("Ignoring %s/%s: it is not in its id's partition %.4s/%.2s/%.2s",
                   day_path, name, id, id + 5, id + 8);
          continue;
        }
      /* Something else where the file should be (a
       * directory, say) is still this id: listed, so that
       * reading it reports the damage instead of the log
       * vanishing without a word. */
      g_ptr_array_add (list->ids, g_steal_pointer (&id));
    }
  g_dir_close (day_dir);
  return TRUE;
}

/* The names of the logs of every partition, in one walk: the valid ids
 * in their own partition (none unless @want_ids), and into @conflicts
 * (when not %NULL) the names that say they are conflict copies
 * (natter_sync_conflict_is_candidate(), whether or not they are well
 * formed, so that a malformed one is reported rather than passed over). */
static GStrv
list_names (NatterJsonlRepo  *self,
            gboolean          want_ids,
            GPtrArray        *conflicts,
            GCancellable     *cancellable,
            GError          **error)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  ListNames list = { want_ids ? ids : NULL, conflicts };

  if (!walk_days (self, list_day, &list, cancellable, error))
    return NULL;

  /* Ids sort in creation order as plain strings (natter-id.c). */
  g_ptr_array_sort (ids, compare_ids);
  g_ptr_array_add (ids, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&ids), FALSE);
}

GStrv
natter_jsonl_layout_list_ids (NatterJsonlRepo  *self,
                              GPtrArray        *conflicts,
                              GCancellable     *cancellable,
                              GError          **error)
{
  GStrv ids = list_names (self, TRUE, conflicts, cancellable, error);

  if (ids != NULL && conflicts != NULL)
    g_ptr_array_sort (conflicts, compare_ids);
  return ids;
}

GStrv
natter_jsonl_layout_list_conflicts (NatterJsonlRepo  *self,
                                    GCancellable     *cancellable,
                                    GError          **error)
{
  g_autoptr(GPtrArray) conflicts = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) none = list_names (self, FALSE, conflicts, cancellable, error);

  if (none == NULL)
    return NULL;
  g_ptr_array_sort (conflicts, compare_ids);
  g_ptr_array_add (conflicts, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&conflicts), FALSE);
}

/* The temporary name natter_jsonl_file_create() gives a log's first line before the
 * link: `.<id>.jsonl.XXXXXX`, the X being g_mkstemp()'s letters and
 * digits. Returns the id, or NULL for any other name. */
static char *
leftover_temp_id (const char *name)
{
  static const char suffix[] = ".jsonl.";
  gsize length = strlen (name);
  gsize id_length;
  g_autofree char *id = NULL;

  if (name[0] != '.' || length < 1 + strlen (suffix) + 6)
    return NULL;
  for (gsize i = length - 6; i < length; i++)
    if (!g_ascii_isalnum (name[i]))
      return NULL;
  id_length = length - 6 - strlen (suffix) - 1;
  if (strncmp (name + 1 + id_length, suffix, strlen (suffix)) != 0)
    return NULL;
  id = g_strndup (name + 1, id_length);
  if (!natter_id_validate (id, NULL))
    return NULL;
  return g_steal_pointer (&id);
}

/* Adds to @found the leftover temporary files of one day directory
 * (partition @partition). Only regular files of exactly the temporary
 * name, in their id's own partition, are taken: nothing else there was
 * made by natter_jsonl_file_create(). */
static gboolean
find_leftovers_in (const char    *day_path,
                   const char    *partition,
                   GPtrArray     *found,
                   GCancellable  *cancellable,
                   GError       **error)
{
  GDir *dir = open_level (day_path);
  const char *name;

  if (dir == NULL)
    return TRUE;

  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *id = leftover_temp_id (name);
      g_autofree char *id_partition = NULL;
      g_autofree char *path = NULL;
      struct stat st;

      if (id == NULL)
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          g_dir_close (dir);
          return FALSE;
        }
      id_partition = natter_id_partition (id);
      if (strcmp (id_partition, partition) != 0)
        continue;
      path = g_build_filename (day_path, name, NULL);
      if (lstat (path, &st) < 0 || !S_ISREG (st.st_mode))
        continue;
      g_ptr_array_add (found, g_steal_pointer (&path));
    }
  g_dir_close (dir);
  return TRUE;
}

/* natter_jsonl_layout_remove_leftovers()'s sweep of one day directory:
 * one day's leftovers at a time, so the writes of this process wait for
 * a sweep of a few files at most. */
static gboolean
remove_leftovers_in_day (const char    *day_path,
                         const char    *year,
                         const char    *month,
                         const char    *day,
                         gpointer       data,
                         GCancellable  *cancellable,
                         GError       **error)
{
  guint *removed = data;
  g_autofree char *partition = g_strdup_printf ("%s/%s/%s", year, month, day);
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);

  return find_leftovers_in (day_path, partition, found, cancellable, error) &&
         natter_store_temp_remove_leftovers (found, removed, error);
}

gboolean
natter_jsonl_layout_remove_leftovers (NatterJsonlRepo  *self,
                                      guint            *removed,
                                      GCancellable     *cancellable,
                                      GError          **error)
{
  return walk_days (self, remove_leftovers_in_day, removed, cancellable, error);
}
