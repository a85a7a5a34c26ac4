/* natter-folders.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The folders conversations can be put in, as a list model sorted by
 * name, for the sidebar and the command line alike. Each folder is a log
 * of its own (natter-folder-log.c, docs/format.md §8), so each change
 * is one write to one file: creating a folder creates its log, renaming
 * it appends one line, deleting it removes its log. No conversation's
 * log is ever touched by any of them — a conversation names its folder
 * by id, and one whose folder is gone is simply in none. The list
 * changes only once its write is on disk.
 */

#define G_LOG_DOMAIN "natter-folders"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-folder-log.h"
#include "natter-id.h"
#include "natter-sync-conflict-name.h"
#include "natter-folder-private.h"
#include "natter-folders.h"
#include "natter-plain-text.h"
#include "natter-session-error.h"
#include "natter-store-error.h"

struct _NatterFolders
{
  GObject            parent_instance;

  NatterJsonlRepo   *repo;
  NatterClock       *clock;
  NatterIdGenerator *ids;
  GPtrArray         *folders;   /* of NatterFolder, sorted by name */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterFolders, natter_folders, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

/* The list model */

static GType
get_item_type (GListModel *model)
{
  return NATTER_TYPE_FOLDER;
}

static guint
get_n_items (GListModel *model)
{
  return NATTER_FOLDERS (model)->folders->len;
}

static gpointer
get_item (GListModel *model,
          guint       position)
{
  NatterFolders *self = NATTER_FOLDERS (model);

  if (position >= self->folders->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->folders, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* By name as people read it; a folder that cannot be read comes last,
 * ties by id so that the order is total. */
static int
compare_folders (NatterFolder *a,
                 NatterFolder *b)
{
  const char *name_a = natter_folder_get_name (a);
  const char *name_b = natter_folder_get_name (b);
  int result;

  if ((name_a == NULL) != (name_b == NULL))
    return name_a == NULL ? 1 : -1;
  result = name_a != NULL ? g_utf8_collate (name_a, name_b) : 0;
  return result != 0 ? result : g_strcmp0 (natter_folder_get_id (a), natter_folder_get_id (b));
}

static int
compare_folder_pointers (gconstpointer a,
                         gconstpointer b)
{
  return compare_folders (*(NatterFolder * const *) a, *(NatterFolder * const *) b);
}

static void
insert_sorted (NatterFolders *self,
               NatterFolder  *folder)
{
  guint position = 0;

  while (position < self->folders->len &&
         compare_folders (g_ptr_array_index (self->folders, position), folder) < 0)
    position++;
  g_ptr_array_insert (self->folders, position, folder);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

static gboolean
find (NatterFolders *self,
      const char    *folder_id,
      guint         *out_position)
{
  for (guint i = 0; i < self->folders->len; i++)
    if (g_str_equal (natter_folder_get_id (g_ptr_array_index (self->folders, i)), folder_id))
      {
        *out_position = i;
        return TRUE;
      }
  return FALSE;
}

static NatterFolder *
take_out (NatterFolders *self,
          const char    *folder_id)
{
  NatterFolder *folder;
  guint position;

  if (!find (self, folder_id, &position))
    return NULL;
  folder = g_ptr_array_steal_index (self->folders, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  return folder;
}

/* Lifetime */

static void
natter_folders_finalize (GObject *object)
{
  NatterFolders *self = NATTER_FOLDERS (object);

  g_clear_pointer (&self->folders, g_ptr_array_unref);
  g_clear_object (&self->repo);
  g_clear_object (&self->clock);
  g_clear_object (&self->ids);

  G_OBJECT_CLASS (natter_folders_parent_class)->finalize (object);
}

static void
natter_folders_class_init (NatterFoldersClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_folders_finalize;
}

static void
natter_folders_init (NatterFolders *self)
{
  self->folders = g_ptr_array_new_with_free_func (g_object_unref);
}

/**
 * natter_folders_new:
 * @repo: the folder repository (natter_folder_repo_new())
 * @clock: the clock that stamps events
 * @ids: the id generator new folders take their ids from
 *
 * An empty list until natter_folders_load_async().
 *
 * Returns: (transfer full): the folder list
 */
NatterFolders *
natter_folders_new (NatterJsonlRepo   *repo,
                    NatterClock       *clock,
                    NatterIdGenerator *ids)
{
  NatterFolders *self;

  g_return_val_if_fail (NATTER_IS_JSONL_REPO (repo), NULL);
  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);
  g_return_val_if_fail (ids != NULL, NULL);

  self = g_object_new (NATTER_TYPE_FOLDERS, NULL);
  self->repo = g_object_ref (repo);
  self->clock = g_object_ref (clock);
  self->ids = g_object_ref (ids);
  return self;
}

/**
 * natter_folders_lookup:
 * @self: the folder list
 * @folder_id: (nullable): a folder id
 *
 * Returns: (transfer none) (nullable): the folder, or %NULL when there is
 *   none of that id (never was, or deleted)
 */
NatterFolder *
natter_folders_lookup (NatterFolders *self,
                       const char    *folder_id)
{
  guint position;

  g_return_val_if_fail (NATTER_IS_FOLDERS (self), NULL);

  if (folder_id == NULL || !find (self, folder_id, &position))
    return NULL;
  return g_ptr_array_index (self->folders, position);
}

/* Names compare without case, surrounding space, invisible format
 * characters (a zero-width space, a joiner) and the way an accent is
 * encoded: “Work” and “work ”, “Café” with a composed é and with e and a
 * combining accent, or “Work” with a zero-width space inside, would be
 * two folders nobody can tell apart. */
static char *
name_key (const char *name)
{
  g_autoptr(GString) visible = g_string_new (NULL);
  g_autofree char *folded = NULL;
  /* Only a key to compare: bytes that are not UTF-8 (check_name()
   * refuses such a name) must not make it NULL. */
  g_autofree char *valid = g_utf8_make_valid (name, -1);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_type (c) != G_UNICODE_FORMAT)
        g_string_append_unichar (visible, c);
    }
  g_strstrip (visible->str);
  folded = g_utf8_casefold (visible->str, -1);
  return g_utf8_normalize (folded, -1, G_NORMALIZE_DEFAULT_COMPOSE);
}

/**
 * natter_folders_find_by_name:
 * @self: the folder list
 * @name: a folder name
 *
 * Finds a folder by name, ignoring case, the space around it, invisible
 * format characters and how its accents are encoded.
 *
 * Returns: (transfer none) (nullable): the folder, or %NULL
 */
NatterFolder *
natter_folders_find_by_name (NatterFolders *self,
                             const char    *name)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (NATTER_IS_FOLDERS (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  key = name_key (name);
  for (guint i = 0; i < self->folders->len; i++)
    {
      NatterFolder *folder = g_ptr_array_index (self->folders, i);
      g_autofree char *other = NULL;

      if (natter_folder_get_name (folder) == NULL)
        continue;
      other = name_key (natter_folder_get_name (folder));
      if (g_str_equal (key, other))
        return folder;
    }
  return NULL;
}

/**
 * natter_folders_unused_name:
 * @self: the folder list
 * @name: a folder's name
 *
 * @name when no folder has it (as natter_folders_find_by_name() compares
 * names), else @name followed by the first number from 2 that makes it
 * no folder's: "Work (2)", "Work (3)", … A deleted folder whose name a
 * new folder took meanwhile is brought back under it, since two folders
 * are never called the same.
 *
 * Returns: (transfer full): a name no folder has
 */
char *
natter_folders_unused_name (NatterFolders *self,
                            const char    *name)
{
  g_autofree char *stripped = NULL;

  g_return_val_if_fail (NATTER_IS_FOLDERS (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  if (natter_folders_find_by_name (self, name) == NULL)
    return g_strdup (name);
  stripped = g_strstrip (g_strdup (name));
  for (guint n = 2;; n++)
    {
      /* Translators: a folder's name told apart from another folder's
       * of the same name: %s is the name, %u a number from 2 on */
      g_autofree char *numbered = g_strdup_printf (_("%s (%u)"), stripped, n);

      if (natter_folders_find_by_name (self, numbered) == NULL)
        return g_steal_pointer (&numbered);
    }
}

/* Loading */

/* The conflict copies of each folder log (docs/format.md §9.4): folder
 * id → names of its copies. A copy whose name is not a conflict copy's,
 * or whose folder has no log here, is listed in @folders as a folder with
 * that error, under its own name: never passed over in silence. */
static GHashTable *
copies_by_folder (NatterFolders      *self,
                  const char * const *ids,
                  const char * const *conflicts,
                  GPtrArray          *folders)
{
  GHashTable *copies = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_ptr_array_unref);

  for (guint i = 0; ids[i] != NULL; i++)
    g_hash_table_insert (copies, g_strdup (ids[i]), g_ptr_array_new_with_free_func (g_free));
  for (guint i = 0; conflicts[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *folder_id = NULL;
      GPtrArray *names;

      if (!natter_sync_conflict_validate (conflicts[i], &error))
        {
          g_ptr_array_add (folders, natter_folder_new (conflicts[i], NULL, error->message));
          continue;
        }
      folder_id = g_strndup (conflicts[i], NATTER_ID_LENGTH);
      names = g_hash_table_lookup (copies, folder_id);
      if (names == NULL)
        {
          g_autofree char *text = g_strdup_printf ("%s.jsonl is a copy of folder %s, whose log is not here",
                                                   conflicts[i], folder_id);

          g_ptr_array_add (folders, natter_folder_new (conflicts[i], NULL, text));
          continue;
        }
      g_ptr_array_add (names, g_strdup (conflicts[i]));
    }
  return copies;
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  NatterFolders *self = source_object;
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_object_unref);
  g_auto(GStrv) ids = NULL;
  GError *error = NULL;

  g_auto(GStrv) conflicts = NULL;
  g_autoptr(GHashTable) copies = NULL;

  ids = natter_jsonl_repo_list_ids_sync (self->repo, cancellable, &error);
  if (ids == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  conflicts = natter_jsonl_repo_list_conflicts_sync (self->repo, cancellable, &error);
  if (conflicts == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  copies = copies_by_folder (self, (const char * const *) ids, (const char * const *) conflicts, folders);
  for (guint i = 0; ids[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) events = NULL;
      g_autoptr(GPtrArray) copy_events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
      g_autoptr(GError) read_error = NULL;
      g_autofree char *name = NULL;
      GPtrArray *names = g_hash_table_lookup (copies, ids[i]);

      events = natter_jsonl_repo_read_sync (self->repo, ids[i], cancellable, &read_error);
      /* A folder renamed on two devices at once: its copies are read
       * too, and one that cannot be is the folder's error
       * (docs/format.md §9.4). */
      for (guint c = 0; names != NULL && c < names->len && read_error == NULL; c++)
        {
          GPtrArray *copy = natter_jsonl_repo_read_sync (self->repo, g_ptr_array_index (names, c), cancellable,
                                                         &read_error);

          if (copy != NULL)
            g_ptr_array_add (copy_events, copy);
        }
      if (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, g_steal_pointer (&read_error));
          return;
        }
      /* Listed with its reason, never skipped: the conversations in it
       * must not vanish without a word. */
      if (read_error == NULL)
        name = natter_folder_reduce_name_with_copies (events, copy_events);
      g_ptr_array_add (folders, natter_folder_new (ids[i], name, read_error != NULL ? read_error->message : NULL));
    }
  g_task_return_pointer (task, g_steal_pointer (&folders), (GDestroyNotify) g_ptr_array_unref);
}

/**
 * natter_folders_load_async:
 * @self: the folder list
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Reads every folder log, in a worker thread, and replaces the list with
 * what they say. A log that cannot be read gives a folder with an error
 * (natter_folder_get_error()) rather than failing the load.
 */
void
natter_folders_load_async (NatterFolders       *self,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (NATTER_IS_FOLDERS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_folders_load_async);
  g_task_run_in_thread (task, load_thread);
}

/**
 * natter_folders_load_finish:
 * @self: the folder list
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once the list holds every folder; else %FALSE with the
 *   store's error listing them (%NATTER_STORE_ERROR_IO) or
 *   %G_IO_ERROR_CANCELLED, the list unchanged
 */
gboolean
natter_folders_load_finish (NatterFolders  *self,
                            GAsyncResult   *result,
                            GError        **error)
{
  g_autoptr(GPtrArray) folders = NULL;
  guint removed;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_folders_load_async, FALSE);

  folders = g_task_propagate_pointer (G_TASK (result), error);
  if (folders == NULL)
    return FALSE;
  g_ptr_array_sort (folders, compare_folder_pointers);
  removed = self->folders->len;
  g_ptr_array_set_size (self->folders, 0);
  for (guint i = 0; i < folders->len; i++)
    g_ptr_array_add (self->folders, g_object_ref (g_ptr_array_index (folders, i)));
  g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, self->folders->len);
  return TRUE;
}

/* Writing */

typedef struct
{
  char *folder_id;
  char *name;
} Change;

static void
change_free (Change *change)
{
  g_free (change->folder_id);
  g_free (change->name);
  g_free (change);
}

static GTask *
change_task_new (NatterFolders       *self,
                 const char          *folder_id,
                 const char          *name,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data,
                 gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Change *change = g_new0 (Change, 1);

  change->folder_id = g_strdup (folder_id);
  change->name = name != NULL ? g_strstrip (g_strdup (name)) : NULL;
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, change, (GDestroyNotify) change_free);
  return task;
}

/* natter_folders_check_name(), but for a name the folder had, which an
 * undo brings back as it was: one an older version let through with a
 * control character, or of invisible characters only, is kept
 * (@may_hold_controls), never a second folder's. */
static gboolean
check_name (NatterFolders  *self,
            const char     *name,
            const char     *folder_id,
            gboolean        may_hold_controls,
            GError        **error)
{
  NatterFolder *other;

  if (name == NULL || (may_hold_controls ? name[0] == '\0' : natter_text_is_blank (name)))
    {
      g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                           _("A folder needs a name"));
      return FALSE;
    }
  if (!g_utf8_validate (name, -1, NULL))
    {
      g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                           _("A folder name must be text in UTF-8"));
      return FALSE;
    }
  if (!may_hold_controls && natter_text_has_control (name))
    {
      g_set_error_literal (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                           _("A folder name cannot hold line breaks, tabs or other control characters"));
      return FALSE;
    }
  other = natter_folders_find_by_name (self, name);
  if (other != NULL && g_strcmp0 (natter_folder_get_id (other), folder_id) != 0)
    {
      g_autofree char *shown = natter_visible_text (natter_folder_get_name (other), NATTER_VISIBLE_KEEP_NONE);

      /* Translators: %s is a folder's name */
      g_set_error (error, NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_INVALID_ARGUMENT,
                   _("There is a folder “%s” already"), shown);
      return FALSE;
    }
  return TRUE;
}

/**
 * natter_folders_check_name:
 * @self: the folder list
 * @name: a name typed for a new folder, or a new name for @folder_id
 * @folder_id: (nullable): the folder being renamed, %NULL for a new one
 * @error: return location for a #GError
 *
 * Whether @name may be given to a folder (docs/format.md §8): not blank,
 * one line (no control character: a newline, a tab, ESC, …, refused,
 * never cleaned behind the person's back, as a title is), and no other
 * folder's, without regard to case or the space around it. The rename
 * and New Folder dialogs ask as the name is typed; create and rename
 * ask again before writing.
 *
 * Returns: %TRUE when @name may be kept; %FALSE with
 *   %NATTER_SESSION_ERROR_INVALID_ARGUMENT, whose message says why
 */
gboolean
natter_folders_check_name (NatterFolders  *self,
                           const char     *name,
                           const char     *folder_id,
                           GError        **error)
{
  g_return_val_if_fail (NATTER_IS_FOLDERS (self), FALSE);

  return check_name (self, name, folder_id, FALSE, error);
}

static void
created_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterFolders *self = g_task_get_source_object (task);
  Change *change = g_task_get_task_data (task);
  GError *error = NULL;

  if (!natter_jsonl_repo_create_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  insert_sorted (self, natter_folder_new (change->folder_id, change->name, NULL));
  g_task_return_pointer (task, g_strdup (change->folder_id), g_free);
}

static void
create_with_id (NatterFolders *self,
                GTask         *task)
{
  Change *change = g_task_get_task_data (task);
  g_autofree char *ts = natter_clock_format_ts (self->clock);
  g_autoptr(JsonNode) event = NULL;
  gboolean restoring = g_task_get_source_tag (task) == natter_folders_restore_async;
  GError *error = NULL;

  if (!check_name (self, change->name, NULL, restoring, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  event = natter_folder_event_new_created (change->folder_id, ts, change->name);
  natter_jsonl_repo_create_async (self->repo, change->folder_id, event, g_task_get_cancellable (task),
                                  created_cb, task);
}

/**
 * natter_folders_create_async:
 * @self: the folder list
 * @name: the new folder's name; the space around it is dropped
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Creates a folder: writes its log, then adds it to the list.
 */
void
natter_folders_create_async (NatterFolders       *self,
                             const char          *name,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autofree char *folder_id = NULL;

  g_return_if_fail (NATTER_IS_FOLDERS (self));
  g_return_if_fail (name != NULL);

  folder_id = natter_id_generator_next (self->ids);
  create_with_id (self, change_task_new (self, folder_id, name, cancellable, callback, user_data,
                                         natter_folders_create_async));
}

/**
 * natter_folders_create_finish:
 * @self: the folder list
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the new folder's id; else %NULL
 *   with %NATTER_SESSION_ERROR_INVALID_ARGUMENT (a name
 *   natter_folders_check_name() refuses: blank, with a control
 *   character, or another folder's) or the store's error
 */
char *
natter_folders_create_finish (NatterFolders  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_folders_create_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * natter_folders_restore_async:
 * @self: the folder list
 * @folder_id: the id of a deleted folder
 * @name: the name it had
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Undoes natter_folders_delete_async(): creates the folder again under
 * its old id, so the conversations that still name it are in it again.
 * A name another folder has now is refused as natter_folders_create_async()
 * refuses it; natter_folders_unused_name() gives one that is not.
 */
void
natter_folders_restore_async (NatterFolders       *self,
                              const char          *folder_id,
                              const char          *name,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_return_if_fail (NATTER_IS_FOLDERS (self));
  g_return_if_fail (folder_id != NULL && name != NULL);

  create_with_id (self, change_task_new (self, folder_id, name, cancellable, callback, user_data,
                                         natter_folders_restore_async));
}

/**
 * natter_folders_restore_finish:
 * @self: the folder list
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once the folder is back; else %FALSE with the errors of
 *   natter_folders_create_finish() (a folder of that id that exists:
 *   %NATTER_STORE_ERROR_EXISTS)
 */
gboolean
natter_folders_restore_finish (NatterFolders  *self,
                               GAsyncResult   *result,
                               GError        **error)
{
  g_autofree char *folder_id = NULL;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_folders_restore_async, FALSE);

  folder_id = g_task_propagate_pointer (G_TASK (result), error);
  return folder_id != NULL;
}

static GError *
not_found (const char *folder_id)
{
  return g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_NOT_FOUND, "There is no folder %s", folder_id);
}

static void
renamed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterFolders *self = g_task_get_source_object (task);
  Change *change = g_task_get_task_data (task);
  g_autoptr(NatterFolder) folder = NULL;
  GError *error = NULL;

  if (!natter_jsonl_repo_append_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  /* Out and in again, at its new place in the order. */
  folder = take_out (self, change->folder_id);
  if (folder != NULL)
    {
      natter_folder_set_name (folder, change->name);
      insert_sorted (self, g_steal_pointer (&folder));
    }
  g_task_return_boolean (task, TRUE);
}

/**
 * natter_folders_rename_async:
 * @self: the folder list
 * @folder_id: a folder of the list
 * @name: its new name; the space around it is dropped
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Renames a folder: one line appended to its log (docs/format.md §8),
 * none to any conversation's.
 */
void
natter_folders_rename_async (NatterFolders       *self,
                             const char          *folder_id,
                             const char          *name,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Change *change;
  NatterFolder *folder;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *ts = NULL;
  GError *error = NULL;

  g_return_if_fail (NATTER_IS_FOLDERS (self));
  g_return_if_fail (folder_id != NULL && name != NULL);

  task = change_task_new (self, folder_id, name, cancellable, callback, user_data, natter_folders_rename_async);
  change = g_task_get_task_data (task);
  folder = natter_folders_lookup (self, folder_id);
  if (folder == NULL)
    error = not_found (folder_id);
  else if (natter_folder_get_error (folder) != NULL)
    error = g_error_new (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_CORRUPT, "The folder cannot be read: %s",
                         natter_folder_get_error (folder));
  else
    natter_folders_check_name (self, change->name, folder_id, &error);
  if (error != NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  if (g_strcmp0 (natter_folder_get_name (folder), change->name) == 0)
    {
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
      return;
    }
  ts = natter_clock_format_ts (self->clock);
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_ptr_array_add (events, natter_folder_event_new_renamed (folder_id, ts, change->name));
  natter_jsonl_repo_append_async (self->repo, folder_id, events, cancellable, renamed_cb, task);
}

/**
 * natter_folders_rename_finish:
 * @self: the folder list
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once renamed; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND, %NATTER_SESSION_ERROR_CORRUPT (its
 *   log cannot be read), %NATTER_SESSION_ERROR_INVALID_ARGUMENT (a name
 *   natter_folders_check_name() refuses) or the store's error
 */
gboolean
natter_folders_rename_finish (NatterFolders  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_folders_rename_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
deleted_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  NatterFolders *self = g_task_get_source_object (task);
  Change *change = g_task_get_task_data (task);
  NatterFolder *gone;
  GError *error = NULL;

  if (!natter_jsonl_repo_delete_finish (NATTER_JSONL_REPO (object), result, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  gone = take_out (self, change->folder_id);
  g_clear_object (&gone);
  g_task_return_boolean (task, TRUE);
}

/**
 * natter_folders_delete_async:
 * @self: the folder list
 * @folder_id: a folder of the list
 * @cancellable: (nullable): a #GCancellable
 * @callback: called on the caller's main context
 * @user_data: data for @callback
 *
 * Deletes a folder, never its conversations: its log is removed, and the
 * conversations that name it are in no folder from then on (their logs
 * are not touched; natter_folders_restore_async() puts them back).
 */
void
natter_folders_delete_async (NatterFolders       *self,
                             const char          *folder_id,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (NATTER_IS_FOLDERS (self));
  g_return_if_fail (folder_id != NULL);

  task = change_task_new (self, folder_id, NULL, cancellable, callback, user_data, natter_folders_delete_async);
  if (natter_folders_lookup (self, folder_id) == NULL)
    {
      g_task_return_error (task, not_found (folder_id));
      g_object_unref (task);
      return;
    }
  natter_jsonl_repo_delete_async (self->repo, folder_id, cancellable, deleted_cb, task);
}

/**
 * natter_folders_delete_finish:
 * @self: the folder list
 * @result: the #GAsyncResult
 * @error: return location for a #GError
 *
 * Returns: %TRUE once deleted; else %FALSE with
 *   %NATTER_SESSION_ERROR_NOT_FOUND or the store's error
 */
gboolean
natter_folders_delete_finish (NatterFolders  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == natter_folders_delete_async, FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
