/* natter-window-menus.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The menus that place a conversation (docs/sessions.md §16): the open
 * conversation's Pin to Top or Unpin and Move to Folder, and each row's
 * own menu in the sidebar, made as it shows. They are built from the
 * index and the folders alone: the actions they name are -folders.c's,
 * -actions.c's and -archive.c's, which call here, never the other way.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-plain-text.h"
#include "natter-sessions-settings.h"
#include "natter-window-private.h"

/**
 * _natter_window_lookup_target:
 * @self: the window
 * @session_id: (nullable): what _natter_window_dup_target() said
 * @writable: whether a conversation that cannot be read (its index entry
 *   has an error) is refused
 *
 * Returns: (transfer none) (nullable): @session_id's index entry, or
 *   %NULL when it is not listed (deleted meanwhile, its undo toast up)
 *   or, with @writable, cannot be read
 */
NatterSessionIndexEntry *
_natter_window_lookup_target (NatterWindow *self,
                              const char   *session_id,
                              gboolean      writable)
{
  NatterSessionIndexEntry *entry;

  if (session_id == NULL || self->sessions == NULL ||
      g_hash_table_contains (self->sidebar.pending_deletes, session_id))
    return NULL;
  entry = natter_session_index_lookup (natter_sessions_list_sessions (self->sessions), session_id);
  if (entry == NULL || (writable && natter_session_index_entry_get_error (entry) != NULL))
    return NULL;
  return entry;
}

static void
place_items_append (NatterWindow *self,
                    GMenu        *section,
                    const char   *session_id,
                    const char   *target,
                    GMenuModel   *folder_menu);
static void
folder_menu_fill (NatterWindow *self,
                  GMenu        *menu,
                  const char   *session_id,
                  const char   *target);

/* What the open conversation's Pin and Move to Folder show depends on:
 * rebuilt only when it changes, not at each change of the index (an
 * answer streaming), which would close a submenu open meanwhile. */
static char *
open_place_key (NatterWindow *self,
                gboolean      usable)
{
  const char *folder_id = usable ? natter_sessions_get_folder_id (self->sessions, self->conversation.session_id) : NULL;

  return g_strdup_printf ("%d\t%d\t%s\t%p", usable,
                          usable && natter_sessions_get_pinned (self->sessions, self->conversation.session_id),
                          folder_id != NULL ? folder_id : "", (gpointer) self->folders.store);
}

/* The position of @action's item in @section, or -1. */
static int
item_position (GMenuModel *section,
               const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (section); i++)
    {
      g_autofree char *name = NULL;

      if (g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return i;
    }
  return -1;
}

/* Rename… is in the open conversation's menu only when it can be
 * renamed: win.rename stays enabled for the rows' menus and F2 in the
 * list, so an item left there would do nothing for a damaged one. */
static void
update_rename_item (NatterWindow *self,
                    gboolean      usable)
{
  GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (self->conversation_menu_button));
  g_autoptr(GMenuModel) first = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  int position;

  if (first == NULL || self->folders.rename_item == NULL)
    return;
  position = item_position (first, "win.rename");
  if (position >= 0 && !usable)
    g_menu_remove (G_MENU (first), position);
  else if (position < 0 && usable)
    g_menu_insert_item (G_MENU (first), 0, self->folders.rename_item);
}

static void
update_open_menu (NatterWindow *self,
                  gboolean      folders_changed)
{
  gboolean usable = self->sessions != NULL && _natter_window_open_is_usable (self);
  g_autofree char *key = NULL;

  if (self->folders.section == NULL)
    return;
  key = open_place_key (self, usable);
  if (!folders_changed && g_strcmp0 (key, g_object_get_data (G_OBJECT (self->folders.section), "key")) == 0)
    return;
  g_object_set_data_full (G_OBJECT (self->folders.section), "key", g_steal_pointer (&key), g_free);
  update_rename_item (self, usable);
  g_menu_remove_all (self->folders.menu);
  folder_menu_fill (self, self->folders.menu, self->conversation.session_id, "");
  g_menu_remove_all (self->folders.section);
  if (usable)
    place_items_append (self, self->folders.section, self->conversation.session_id, "",
                        G_MENU_MODEL (self->folders.menu));
}

/**
 * _natter_window_update_folder_actions:
 * @self: the window
 *
 * The open conversation's menu offers Pin to Top or Unpin, whichever
 * fits it, and Move to Folder, only for a conversation that can be
 * written to. The actions themselves stay enabled: a row's menu, and
 * Ctrl+D in the list, act on other conversations than the open one.
 */
void
_natter_window_update_folder_actions (NatterWindow *self)
{
  gboolean foldable = self->sessions != NULL && self->folders.store != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.pin", self->sessions != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.unpin", self->sessions != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.toggle-pin", self->sessions != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.move-to-folder", foldable);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.move-to-new-folder", foldable);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-folder", self->folders.store != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.current-folder", FALSE);
  _natter_window_disable_writes (self);
  update_open_menu (self, FALSE);
}

/* A folder's name as a menu item's label: a menu reads "_" as the mark
 * of a mnemonic, so each is doubled to stand for itself, and a control
 * character shows as its stand-in, as in the sidebar. */
static char *
folder_menu_label (const char *name)
{
  g_autofree char *shown = natter_visible_text (name, NATTER_VISIBLE_KEEP_NONE);
  g_auto(GStrv) parts = g_strsplit (shown, "_", -1);

  return g_strjoinv ("__", parts);
}

/* Move to Folder's items for @session_id's conversation, each targeting
 * @target (the session id, or "" for the open conversation): No Folder,
 * every folder, New Folder…. The folder it is in already is shown as
 * where it is, not offered as a place to move to: its item's action,
 * win.current-folder, is never enabled, so it shows greyed out. */
static void
folder_menu_fill (NatterWindow *self,
                  GMenu        *menu,
                  const char   *session_id,
                  const char   *target)
{
  guint n = self->folders.store != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->folders.store)) : 0;
  const char *current = session_id != NULL && self->sessions != NULL
                        ? natter_sessions_get_folder_id (self->sessions, session_id) : NULL;
  g_autoptr(GMenu) folders = g_menu_new ();
  g_autoptr(GMenu) none = g_menu_new ();
  g_autoptr(GMenu) create = g_menu_new ();
  g_autoptr(GMenuItem) none_item = g_menu_item_new (_("_No Folder"), NULL);
  g_autoptr(GMenuItem) create_item = g_menu_item_new (_("New _Folder…"), NULL);

  if (current != NULL)
    g_menu_item_set_action_and_target_value (none_item, "win.move-to-folder", g_variant_new ("(ss)", target, ""));
  else
    g_menu_item_set_action_and_target_value (none_item, "win.current-folder", NULL);
  g_menu_append_item (none, none_item);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterFolder) folder = g_list_model_get_item (G_LIST_MODEL (self->folders.store), i);
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;

      if (natter_folder_get_name (folder) == NULL)
        continue;
      label = folder_menu_label (natter_folder_get_name (folder));
      item = g_menu_item_new (label, NULL);
      if (g_strcmp0 (current, natter_folder_get_id (folder)) != 0)
        g_menu_item_set_action_and_target_value (item, "win.move-to-folder",
                                                 g_variant_new ("(ss)", target, natter_folder_get_id (folder)));
      else
        g_menu_item_set_action_and_target_value (item, "win.current-folder", NULL);
      g_menu_append_item (folders, item);
    }
  g_menu_item_set_action_and_target_value (create_item, "win.move-to-new-folder", g_variant_new_string (target));
  g_menu_append_item (create, create_item);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (none));
  if (n > 0)
    g_menu_append_section (menu, NULL, G_MENU_MODEL (folders));
  g_menu_append_section (menu, NULL, G_MENU_MODEL (create));
}

/* Pin to Top or Unpin, whichever fits @session_id's conversation, and
 * Move to Folder, @folder_menu or (NULL) one made for it; each item
 * targets @target. */
static void
place_items_append (NatterWindow *self,
                    GMenu        *section,
                    const char   *session_id,
                    const char   *target,
                    GMenuModel   *folder_menu)
{
  gboolean pinned = natter_sessions_get_pinned (self->sessions, session_id);
  g_autoptr(GMenuItem) item = g_menu_item_new (pinned ? _("_Unpin") : _("_Pin to Top"), NULL);
  g_autoptr(GMenu) made = NULL;

  g_menu_item_set_action_and_target_value (item, pinned ? "win.unpin" : "win.pin", g_variant_new_string (target));
  g_menu_append_item (section, item);
  /* Without folders, its items show disabled. */
  if (folder_menu == NULL)
    {
      made = g_menu_new ();
      folder_menu_fill (self, made, session_id, target);
      folder_menu = G_MENU_MODEL (made);
    }
  g_menu_append_submenu (section, _("Move to _Folder"), folder_menu);
}

static void
export_item_append (GMenu      *section,
                    const char *label,
                    const char *session_id,
                    const char *format)
{
  g_autoptr(GMenuItem) item = g_menu_item_new (label, NULL);

  g_menu_item_set_action_and_target_value (item, "win.export-conversation",
                                           g_variant_new ("(ss)", session_id, format));
  g_menu_append_item (section, item);
}

/**
 * _natter_window_conversation_menu_new:
 * @self: the window
 * @session_id: a conversation listed in the sidebar
 *
 * The menu of @session_id's row in the sidebar: Rename…, Pin to Top or
 * Unpin, Move to Folder, Delete and the two ways to export it, each
 * naming that conversation, so that it is not opened for them. One that
 * cannot be read offers Delete only.
 *
 * Returns: (transfer full): the menu
 */
GMenuModel *
_natter_window_conversation_menu_new (NatterWindow *self,
                                      const char   *session_id)
{
  GMenu *menu = g_menu_new ();
  g_autoptr(GMenu) first = g_menu_new ();
  g_autoptr(GMenu) place = g_menu_new ();
  g_autoptr(GMenu) last = g_menu_new ();
  g_autoptr(GMenu) export = g_menu_new ();
  g_autoptr(GMenuItem) rename = g_menu_item_new (_("_Rename…"), NULL);
  g_autoptr(GMenuItem) delete = g_menu_item_new (_("_Delete"), NULL);

  if (_natter_window_lookup_target (self, session_id, TRUE) != NULL)
    {
      g_menu_item_set_action_and_target_value (rename, "win.rename", g_variant_new_string (session_id));
      g_menu_append_item (first, rename);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (first));
      place_items_append (self, place, session_id, session_id, NULL);
      g_menu_append_section (menu, NULL, G_MENU_MODEL (place));
    }
  g_menu_item_set_action_and_target_value (delete, "win.delete", g_variant_new_string (session_id));
  g_menu_append_item (last, delete);
  g_menu_append_section (menu, NULL, G_MENU_MODEL (last));
  if (_natter_window_lookup_target (self, session_id, TRUE) != NULL)
    {
      /* As in the open conversation's menu, after Delete. */
      export_item_append (export, _("_Export as Markdown…"), session_id, "markdown");
      export_item_append (export, _("Export as _Archive…"), session_id, "json");
      g_menu_append_section (menu, NULL, G_MENU_MODEL (export));
    }
  return G_MENU_MODEL (menu);
}

/**
 * _natter_window_place_menus_init:
 * @self: the window
 *
 * Once, when the window gets its services: the conversation's menu gets
 * its section of Pin to Top or Unpin and Move to Folder, and keeps its
 * Rename… item to put back when the open conversation can be renamed.
 */
void
_natter_window_place_menus_init (NatterWindow *self)
{
  GMenuModel *menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (self->conversation_menu_button));
  g_autoptr(GMenuModel) first = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  int rename = first != NULL ? item_position (first, "win.rename") : -1;

  if (rename >= 0)
    self->folders.rename_item = g_menu_item_new_from_model (first, rename);
  self->folders.menu = g_menu_new ();
  /* What fits the open conversation (_natter_window_update_folder_actions()). */
  self->folders.section = g_menu_new ();
  g_menu_insert_section (G_MENU (menu), 1, NULL, G_MENU_MODEL (self->folders.section));
}

/**
 * _natter_window_update_place_menus:
 * @self: the window
 *
 * The folders changed (one made, renamed, deleted): every Move to
 * Folder offered from now on, and the open conversation's, lists them.
 */
void
_natter_window_update_place_menus (NatterWindow *self)
{
  update_open_menu (self, TRUE);
  _natter_window_update_folder_actions (self);
}
