/* oracle-driver-settings.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The operations on what a conversation keeps about itself: its pin, its
 * folder (and the folders themselves) and its generation parameters,
 * through the services or a `natter` process (docs/sessions.md §15,
 * §16). The model says where each lands (oracle-model-settings.c); the
 * readings and the model calls check it.
 */

#include "config.h"

#include "natter-folders.h"
#include "natter-sessions-settings.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

/* Whether @s's conversation may be pinned, moved or given parameters
 * here with a known outcome: listed, readable, and what it keeps known. */
gboolean
settable (OracleDriver *d,
          OSession     *s)
{
  return s->id != NULL && !oracle_session_shows_damage (s) && oracle_settings_known (s) &&
         oracle_settings_holder (s)->id != NULL;
}

static void
cli_run (OracleDriver       *d,
         const char         *what,
         const char * const *args)
{
  if (run_natter (d, args) || d->run.status != 0)
    oracle_driver_fail (d, "cli", "natter %s failed (exit %d): %s", what, d->run.status,
                        d->run.err != NULL ? d->run.err : "");
}

/* Pin or unpin @s's conversation: sometimes by `natter pin|unpin` (when
 * @cli: no stream is held, which a `natter` process would end). */
void
op_pin (OracleDriver *d,
        OSession     *s,
        gboolean      cli)
{
  gboolean pinned = !oracle_settings_holder (s)->pinned || chance (d, 10);

  oracle_log (d->o, "op %u: %s S%u", d->op_number, pinned ? "pin" : "unpin", s->n);
  oracle_set_pinned (d->o, s, pinned);
  if (cli && chance (d, 30))
    {
      const char *args[] = { pinned ? "pin" : "unpin", s->id, NULL };

      count (d, "natter-pin");
      cli_run (d, args[0], args);
    }
  else
    {
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(GError) error = NULL;

      natter_sessions_set_pinned_async (d->f.sessions, s->id, pinned, NULL, natter_test_result_cb, &result);
      if (!natter_sessions_set_pinned_finish (d->f.sessions, wait_result (d, &result, "pin"), &error))
        oracle_driver_fail (d, "outcome", "pinning S%u failed: %s", s->n, error->message);
    }
  touch_all (d);
}

/* The id of @f, learned from the folders by its name when a `natter`
 * process made it. */
static const char *
folder_id (OracleDriver *d,
           OFolder      *f)
{
  if (f->id == NULL)
    {
      NatterFolder *found = natter_folders_find_by_name (natter_services_get_folders (d->f.services), f->name);

      if (found == NULL)
        oracle_driver_fail (d, "settings", "the folder \"%s\" is not listed", f->name);
      else
        f->id = g_strdup (natter_folder_get_id (found));
    }
  return f->id;
}

static OFolder *
any_folder (OracleDriver *d)
{
  g_autoptr(GPtrArray) live = g_ptr_array_new ();

  for (guint i = 0; d->o->folders != NULL && i < d->o->folders->len; i++)
    if (!((OFolder *) g_ptr_array_index (d->o->folders, i))->deleted)
      g_ptr_array_add (live, g_ptr_array_index (d->o->folders, i));
  return live->len > 0 ? g_ptr_array_index (live, pick (d, live->len)) : NULL;
}

static OFolder *
deleted_folder (OracleDriver *d)
{
  for (guint i = 0; d->o->folders != NULL && i < d->o->folders->len; i++)
    {
      OFolder *f = g_ptr_array_index (d->o->folders, i);

      if (f->deleted && f->id != NULL)
        return f;
    }
  return NULL;
}

/* A name no folder has, sometimes with space around it (kept apart
 * without it, docs/format.md §8), sometimes a deleted folder's (which
 * its undo must then tell apart). */
static char *
new_folder_name (OracleDriver *d)
{
  static guint next;

  if (deleted_folder (d) != NULL && oracle_folder_find (d->o, deleted_folder (d)->name) == NULL && chance (d, 30))
    return g_strdup (deleted_folder (d)->name);
  return g_strdup_printf (chance (d, 20) ? " Folder %u " : "Folder %u", ++next);
}

static OFolder *
create_folder (OracleDriver *d,
               const char   *name)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;

  natter_folders_create_async (natter_services_get_folders (d->f.services), name, NULL, natter_test_result_cb,
                               &result);
  id = natter_folders_create_finish (natter_services_get_folders (d->f.services),
                                     wait_result (d, &result, "a new folder"), &error);
  if (id == NULL)
    {
      oracle_driver_fail (d, "outcome", "making the folder \"%s\" failed: %s", name, error->message);
      return NULL;
    }
  return oracle_folder_new (d->o, id, name);
}

/* Renames a folder: to a new name, or to another's in other case, which
 * is refused (docs/format.md §8). */
static void
rename_folder (OracleDriver *d,
               OFolder      *f)
{
  OFolder *other = any_folder (d);
  gboolean clash = other != NULL && other != f && chance (d, 30);
  g_autofree char *name = clash ? g_utf8_strup (other->name, -1) : new_folder_name (d);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gboolean ok;

  oracle_log (d->o, "op %u: rename folder \"%s\" to \"%s\"%s", d->op_number, f->name, name,
              clash ? " (another's)" : "");
  count (d, "folder-rename");
  natter_folders_rename_async (natter_services_get_folders (d->f.services), folder_id (d, f), name, NULL,
                               natter_test_result_cb, &result);
  ok = natter_folders_rename_finish (natter_services_get_folders (d->f.services),
                                     wait_result (d, &result, "a folder's rename"), &error);
  if (clash && ok)
    oracle_driver_fail (d, "settings", "renaming folder \"%s\" to \"%s\", another's name, was not refused",
                        f->name, name);
  else if (!clash && !ok)
    oracle_driver_fail (d, "outcome", "renaming folder \"%s\" failed: %s", f->name, error->message);
  if (!clash)
    oracle_folder_rename (d->o, f, name);
}

static void
delete_folder (OracleDriver *d,
               OFolder      *f)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  oracle_log (d->o, "op %u: delete folder \"%s\"", d->op_number, f->name);
  count (d, "folder-delete");
  natter_folders_delete_async (natter_services_get_folders (d->f.services), folder_id (d, f), NULL,
                               natter_test_result_cb, &result);
  if (!natter_folders_delete_finish (natter_services_get_folders (d->f.services),
                                     wait_result (d, &result, "a folder's delete"), &error))
    oracle_driver_fail (d, "outcome", "deleting folder \"%s\" failed: %s", f->name, error->message);
  oracle_folder_delete (d->o, f);
}

/* Undo of a folder's deletion, as the window's toast offers it: under
 * the name the model says. */
static void
restore_folder (OracleDriver *d,
                OFolder      *f)
{
  NatterFolders *folders = natter_services_get_folders (d->f.services);
  g_autofree char *old = g_strdup (f->name);
  g_autofree char *unused = natter_folders_unused_name (folders, f->name);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;

  oracle_log (d->o, "op %u: undo the deletion of folder \"%s\"", d->op_number, f->name);
  count (d, "folder-restore");
  name = oracle_folder_restore (d->o, f);
  if (g_strcmp0 (unused, name) != 0)
    oracle_driver_fail (d, "settings", "the folder \"%s\" comes back as \"%s\", the model says \"%s\"", old, unused,
                        name);
  natter_folders_restore_async (folders, f->id, name, NULL, natter_test_result_cb, &result);
  if (!natter_folders_restore_finish (folders, wait_result (d, &result, "a folder's restore"), &error))
    oracle_driver_fail (d, "outcome", "bringing back folder \"%s\" failed: %s", name, error->message);
}

/* `natter folder SESSION NAME|--none`: a folder of that name, without
 * regard to case, or a new one. */
static void
cli_folder (OracleDriver *d,
            OSession     *s,
            OFolder      *to,
            gboolean      none)
{
  g_autofree char *name = NULL;
  const char *args[] = { "folder", s->id, NULL, NULL };

  if (none)
    name = g_strdup ("--none");
  else if (to != NULL)
    name = chance (d, 30) ? g_utf8_strdown (to->name, -1) : g_strdup (to->name);
  else
    name = new_folder_name (d);
  args[2] = name;
  oracle_log (d->o, "op %u: natter folder S%u \"%s\"", d->op_number, s->n, name);
  count (d, "natter-folder");
  if (!none && to == NULL)
    to = oracle_folder_new (d->o, NULL, name);
  oracle_set_folder (d->o, s, none ? NULL : to);
  cli_run (d, "folder", args);
}

/* Moves @s's conversation to a folder (one there is, or a new one) or
 * out of any; sometimes renames or deletes a folder instead. */
void
op_folder (OracleDriver *d,
           OSession     *s,
           gboolean      cli)
{
  OFolder *f = any_folder (d);
  gboolean none = chance (d, 20);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  if (deleted_folder (d) != NULL && chance (d, 30))
    restore_folder (d, deleted_folder (d));
  else if (f != NULL && chance (d, 15))
    rename_folder (d, f);
  else if (f != NULL && chance (d, 25))
    delete_folder (d, f);
  else if (cli && chance (d, 30))
    cli_folder (d, s, chance (d, 50) ? f : NULL, none);
  else
    {
      if (!none && (f == NULL || chance (d, 40)))
        {
          g_autofree char *name = new_folder_name (d);

          oracle_log (d->o, "op %u: new folder \"%s\"", d->op_number, name);
          f = create_folder (d, name);
        }
      oracle_log (d->o, "op %u: move S%u to %s", d->op_number, s->n, none || f == NULL ? "no folder" : f->name);
      oracle_set_folder (d->o, s, none ? NULL : f);
      natter_sessions_set_folder_async (d->f.sessions, s->id, none || f == NULL ? NULL : folder_id (d, f), NULL,
                                        natter_test_result_cb, &result);
      if (!natter_sessions_set_folder_finish (d->f.sessions, wait_result (d, &result, "a move"), &error))
        oracle_driver_fail (d, "outcome", "moving S%u failed: %s", s->n, error->message);
    }
  touch_all (d);
}

static NatterGenerationParameters *
natter_params (const OParams *p)
{
  NatterGenerationParameters *n = natter_generation_parameters_new ();

  if (p == NULL)
    return n;
  n->has_temperature = p->has_temperature;
  n->temperature = p->temperature;
  n->has_top_p = p->has_top_p;
  n->top_p = p->top_p;
  n->max_tokens = p->max_tokens;
  n->has_seed = p->has_seed;
  n->seed = p->seed;
  natter_generation_parameters_set_system_instruction (n, p->instruction);
  return n;
}

/* `natter params SESSION …`: the members given over those kept, or in
 * their place with --clear. */
static void
cli_params (OracleDriver *d,
            OSession     *s,
            OParams      *given,
            gboolean      clear)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *text = oracle_params_text (given);
  OParams *kept = oracle_settings_holder (s)->params;

  oracle_log (d->o, "op %u: natter params S%u%s%s", d->op_number, s->n, text, clear ? " --clear" : "");
  count (d, "natter-params");
  g_ptr_array_add (args, "params");
  g_ptr_array_add (args, s->id);
  params_args (given, args, keep);
  if (clear)
    g_ptr_array_add (args, "--clear");
  g_ptr_array_add (args, NULL);
  oracle_set_params (d->o, s, clear ? given : oracle_params_overlay (d->o, kept, given));
  cli_run (d, "params", (const char * const *) args->pdata);
}

/* Keeps (or clears) @s's conversation's parameters, through the
 * service or `natter params`; sometimes sends one message with
 * parameters of its own instead (`natter send --temperature …`). */
void
op_params (OracleDriver *d,
           OSession     *s,
           gboolean      cli)
{
  gboolean clear = chance (d, 20);
  OParams *given = clear && chance (d, 50) ? NULL : oracle_draw_params (d->o, TRUE);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  if (cli && chance (d, 25))
    {
      count (d, "natter-send-params");
      cli_send (d, given != NULL ? given : oracle_draw_params (d->o, TRUE));
      return;
    }
  if (cli && chance (d, 35))
    cli_params (d, s, given, clear);
  else
    {
      g_autoptr(NatterGenerationParameters) wanted = natter_params (given);
      g_autofree char *text = oracle_params_text (given);

      oracle_log (d->o, "op %u: keep parameters of S%u:%s", d->op_number, s->n, given != NULL ? text : " none");
      oracle_set_params (d->o, s, given);
      natter_sessions_set_parameters_async (d->f.sessions, s->id, wanted, NULL, natter_test_result_cb, &result);
      if (!natter_sessions_set_parameters_finish (d->f.sessions, wait_result (d, &result, "parameters"), &error))
        oracle_driver_fail (d, "outcome", "keeping the parameters of S%u failed: %s", s->n, error->message);
    }
  touch_all (d);
}
