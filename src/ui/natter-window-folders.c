/* natter-window-folders.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Pins and folders in the window (docs/sessions.md §16): Pin to Top and
 * Move to Folder (their menus are -menus.c's), a row dragged onto a
 * header of the sidebar, and the folders themselves — New Folder…, and each
 * folder's Rename Folder… and Delete Folder, whose toast undoes it. A
 * deleted folder takes no conversation with it: they are in no folder
 * until its undo brings it back under its old id, which they still name.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-name-dialog.h"
#include "natter-sessions-settings.h"
#include "natter-toast-guard.h"
#include "natter-window-private.h"

/* What a change of a conversation's place failed with, where a change
 * that took shows itself in the list. */
static void
placed_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean done;

  if (g_async_result_is_tagged (result, natter_sessions_set_pinned_async))
    done = natter_sessions_set_pinned_finish (NATTER_SESSIONS (source), result, &error);
  else
    done = natter_sessions_set_folder_finish (NATTER_SESSIONS (source), result, &error);
  if (!done && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, NULL, _("The conversation was not moved"), error, NULL);
}

static void
pin (NatterWindow *self,
     const char   *session_id,
     gboolean      pinned)
{
  natter_sessions_set_pinned_async (self->sessions, session_id, pinned, self->cancellable, placed_cb,
                                    g_object_ref (self));
}

static void
move (NatterWindow *self,
      const char   *session_id,
      const char   *folder_id)
{
  natter_sessions_set_folder_async (self->sessions, session_id, folder_id, self->cancellable, placed_cb,
                                    g_object_ref (self));
}

/* The conversation an action names (_natter_window_dup_target()), if it
 * can be written to; NULL otherwise. */
static char *
writable_target (NatterWindow *self,
                 GVariant     *parameter)
{
  g_autofree char *session_id = _natter_window_dup_target (self, parameter);

  if (_natter_window_lookup_target (self, session_id, TRUE) == NULL)
    return NULL;
  return g_steal_pointer (&session_id);
}

/* win.pin, win.unpin and Ctrl+D's win.toggle-pin. */
static void
pin_activated (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = writable_target (self, parameter);
  gboolean pinned;

  if (session_id == NULL)
    return;
  if (g_str_equal (action_name, "win.toggle-pin"))
    pinned = !natter_sessions_get_pinned (self->sessions, session_id);
  else
    pinned = g_str_equal (action_name, "win.pin");
  pin (self, session_id, pinned);
}

static void
move_to_folder_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autoptr(GVariant) target = g_variant_get_child_value (parameter, 0);
  g_autofree char *session_id = writable_target (self, target);
  const char *folder_id;

  g_variant_get_child (parameter, 1, "&s", &folder_id);
  if (session_id != NULL)
    move (self, session_id, folder_id[0] != '\0' ? folder_id : NULL);
}

/* The folder names the person types: one dialog for a new folder and a
 * renamed one. */

typedef void (*NameChosen) (NatterWindow *self,
                            const char   *name,
                            const char   *folder_id,
                            const char   *session_id);

static void
name_response_cb (NatterNameDialog *dialog,
                  const char       *response,
                  NatterWindow     *self)
{
  NameChosen chosen = g_object_get_data (G_OBJECT (dialog), "chosen");
  g_autofree char *name = natter_name_dialog_dup_name (dialog);

  if (!g_str_equal (response, "accept") || name == NULL)
    return;
  chosen (self, name, g_object_get_data (G_OBJECT (dialog), "folder-id"),
          g_object_get_data (G_OBJECT (dialog), "session-id"));
}

/* What a name dialog asks as the name is typed: the rule the folder list
 * applies when it writes (natter_folders_check_name()), so that a name
 * it would refuse never closes the dialog with what was typed. */
typedef struct
{
  NatterFolders *folders;
  char          *folder_id;   /* the folder renamed, or NULL */
} NameCheck;

static void
name_check_free (NameCheck *check)
{
  g_object_unref (check->folders);
  g_free (check->folder_id);
  g_free (check);
}

static gboolean
name_check (const char  *name,
            gpointer     user_data,
            GError     **error)
{
  NameCheck *check = user_data;

  return natter_folders_check_name (check->folders, name, check->folder_id, error);
}

static void
ask_name (NatterWindow *self,
          const char   *heading,
          const char   *button,
          const char   *name,
          const char   *folder_id,
          const char   *session_id,
          NameChosen    chosen)
{
  NameCheck *check = g_new0 (NameCheck, 1);
  GtkWidget *dialog;

  check->folders = g_object_ref (self->folders.store);
  check->folder_id = g_strdup (folder_id);
  dialog = natter_name_dialog_new (GTK_WINDOW (self), heading, button, _("Folder Name"), name,
                                   name_check, check, (GDestroyNotify) name_check_free);
  g_object_set_data (G_OBJECT (dialog), "chosen", chosen);
  g_object_set_data_full (G_OBJECT (dialog), "folder-id", g_strdup (folder_id), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (session_id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (name_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (adw_message_dialog_get_extra_child (ADW_MESSAGE_DIALOG (dialog)));
}

typedef struct
{
  NatterWindow *window;
  char         *session_id;   /* to move into the new folder, or NULL */
} CreateRequest;

static void
create_request_free (CreateRequest *request)
{
  g_object_unref (request->window);
  g_free (request->session_id);
  g_free (request);
}

static void
folder_created_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  CreateRequest *request = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *folder_id = natter_folders_create_finish (NATTER_FOLDERS (source), result, &error);

  if (folder_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (request->window, NULL, _("The folder was not made"), error, NULL);
    }
  else if (request->session_id != NULL)
    /* Its row keeps the focus as it moves in (natter-sidebar.c). */
    move (request->window, request->session_id, folder_id);
  else
    /* The dialog gone, the keyboard is on what it made, not nowhere. */
    natter_sidebar_focus_folder (request->window->session_sidebar, folder_id);
  create_request_free (request);
}

static void
create_named (NatterWindow *self,
              const char   *name,
              const char   *folder_id,
              const char   *session_id)
{
  CreateRequest *request = g_new0 (CreateRequest, 1);

  request->window = g_object_ref (self);
  request->session_id = g_strdup (session_id);
  natter_folders_create_async (self->folders.store, name, self->cancellable, folder_created_cb, request);
}

/**
 * natter_window_create_folder:
 * @self: the window
 * @name: the new folder's name
 * @session_id: (nullable): a conversation to move into it once it exists
 *
 * What New Folder… does once named: makes the folder, and moves
 * @session_id's conversation into it.
 */
void
natter_window_create_folder (NatterWindow *self,
                             const char   *name,
                             const char   *session_id)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (self->folders.store != NULL);

  create_named (self, name, NULL, session_id);
}

static void
new_folder_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  gboolean move = g_str_equal (action_name, "win.move-to-new-folder");
  g_autofree char *session_id = move ? writable_target (self, parameter) : NULL;

  if (self->folders.store == NULL || (move && session_id == NULL))
    return;
  ask_name (self, _("New Folder"), _("C_reate"), NULL, NULL, session_id, create_named);
}

static void
folder_renamed_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_folders_rename_finish (NATTER_FOLDERS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _natter_window_show_error (self, NULL, _("The folder was not renamed"), error, NULL);
}

static void
rename_named (NatterWindow *self,
              const char   *name,
              const char   *folder_id,
              const char   *session_id)
{
  natter_folders_rename_async (self->folders.store, folder_id, name, self->cancellable, folder_renamed_cb,
                               g_object_ref (self));
}

static void
rename_folder_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  NatterFolder *folder = self->folders.store != NULL ? natter_folders_lookup (self->folders.store,
                                                                       g_variant_get_string (parameter, NULL)) : NULL;

  if (folder == NULL || natter_folder_get_error (folder) != NULL)
    return;
  ask_name (self, _("Rename Folder"), _("_Rename"), natter_folder_get_name (folder), natter_folder_get_id (folder),
            NULL, rename_named);
}

/* Deleting a folder, and its undo */

typedef struct
{
  NatterWindow *window;
  char         *name;     /* the name it had */
  char         *restored; /* the name it is brought back under */
} RestoreFolder;

static void
restore_folder_free (RestoreFolder *request)
{
  g_object_unref (request->window);
  g_free (request->name);
  g_free (request->restored);
  g_free (request);
}

static void
folder_restored_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  RestoreFolder *request = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_folders_restore_finish (NATTER_FOLDERS (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (request->window, NULL, _("The folder was not brought back"), error, NULL);
    }
  else if (!g_str_equal (request->name, request->restored))
    {
      g_autofree char *name = _natter_window_toast_name (request->name);
      g_autofree char *restored = _natter_window_toast_name (request->restored);

      /* Translators: the first %s is a folder's name, which a new folder
       * took while the deleted one was gone; the second the name it
       * is back under, e.g. "Work (2)" */
      g_autofree char *why = g_strdup_printf (_("There is a folder “%s” already: the deleted one is back as “%s”"),
                                              name, restored);
      /* Translators: %s is the name a deleted folder is back under, e.g. "Work (2)" */
      g_autofree char *title = g_strdup_printf (_("Folder back as “%s”"), restored);

      _natter_window_show_notice (request->window, title, why);
    }
  restore_folder_free (request);
}

/* The deletion's undo is no longer waiting for Ctrl+Z. */
static void
forget_undo (NatterWindow *self)
{
  g_clear_object (&self->folders.undo_toast);
  g_clear_pointer (&self->folders.undo_target, g_variant_unref);
  self->folders.deleted_last = FALSE;
  _natter_window_update_keyboard_actions (self);
}

static void
undo_toast_dismissed_cb (AdwToast     *toast,
                         NatterWindow *self)
{
  if (self->folders.undo_toast == toast)
    forget_undo (self);
}

static void
undo_delete_folder_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *folder_id;
  const char *name;
  RestoreFolder *request;

  g_variant_get (parameter, "(&s&s)", &folder_id, &name);
  if (self->folders.undo_target != NULL && g_variant_equal (parameter, self->folders.undo_target))
    forget_undo (self);
  if (self->folders.store == NULL || natter_folders_lookup (self->folders.store, folder_id) != NULL)
    return;
  /* A folder made meanwhile may have taken the name: the deleted one
   * comes back all the same, named apart, and the toast says so. */
  request = g_new0 (RestoreFolder, 1);
  request->window = g_object_ref (self);
  request->name = g_strdup (name);
  request->restored = natter_folders_unused_name (self->folders.store, name);
  natter_folders_restore_async (self->folders.store, folder_id, request->restored, self->cancellable,
                                folder_restored_cb, request);
}

typedef struct
{
  NatterWindow *window;
  char         *folder_id;
  char         *name;
} DeleteFolder;

static void
delete_folder_free (DeleteFolder *request)
{
  g_object_unref (request->window);
  g_free (request->folder_id);
  g_free (request->name);
  g_free (request);
}

static void
folder_deleted_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  DeleteFolder *request = user_data;
  NatterWindow *self = request->window;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *shown = NULL;
  AdwToast *toast;

  if (!natter_folders_delete_finish (NATTER_FOLDERS (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The folder was not deleted"), error, NULL);
      delete_folder_free (request);
      return;
    }
  shown = _natter_window_toast_name (request->name);
  /* Translators: %s is a folder's name */
  text = g_strdup_printf (_("Folder “%s” deleted; its conversations stay"), shown);
  /* A toast's title is Pango markup, and the name is the user's text. */
  escaped = g_markup_escape_text (text, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-delete-folder");
  adw_toast_set_action_target_value (toast, g_variant_new ("(ss)", request->folder_id, request->name));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (undo_toast_dismissed_cb), self, 0);
  /* Ctrl+Z undoes the latest deletion, this one until another comes or
   * the toast goes. */
  forget_undo (self);
  self->folders.undo_toast = g_object_ref (toast);
  self->folders.undo_target = g_variant_ref_sink (g_variant_new ("(ss)", request->folder_id, request->name));
  self->folders.deleted_last = TRUE;
  natter_toast_guard_add (self->toast_overlay, toast);
  _natter_window_update_keyboard_actions (self);
  delete_folder_free (request);
}

/**
 * _natter_window_undo_folder_delete:
 * @self: the window
 * @latest_only: only if the folder went after any conversation did
 *
 * What Ctrl+Z does to a deleted folder whose toast still shows: the
 * toast's Undo, and the toast goes.
 *
 * Returns: whether a folder's deletion was undone
 */
gboolean
_natter_window_undo_folder_delete (NatterWindow *self,
                                   gboolean      latest_only)
{
  g_autoptr(AdwToast) toast = NULL;
  g_autoptr(GVariant) target = NULL;

  if (self->folders.undo_toast == NULL || (latest_only && !self->folders.deleted_last))
    return FALSE;
  toast = g_object_ref (self->folders.undo_toast);
  target = g_variant_ref (self->folders.undo_target);
  gtk_widget_activate_action_variant (GTK_WIDGET (self), "win.undo-delete-folder", target);
  /* No button dismissed this toast: it is dismissed once here. */
  natter_toast_guard_dismiss (self->toast_overlay, toast);
  return TRUE;
}

static void
delete_folder_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  NatterFolder *folder = self->folders.store != NULL ? natter_folders_lookup (self->folders.store,
                                                                       g_variant_get_string (parameter, NULL)) : NULL;
  DeleteFolder *request;

  if (folder == NULL)
    return;
  request = g_new0 (DeleteFolder, 1);
  request->window = g_object_ref (self);
  request->folder_id = g_strdup (natter_folder_get_id (folder));
  request->name = g_strdup (natter_folder_get_name (folder) != NULL ? natter_folder_get_name (folder)
                                                                    : _("Damaged folder"));
  natter_folders_delete_async (self->folders.store, request->folder_id, self->cancellable, folder_deleted_cb, request);
}

/* The sidebar: a row dropped on a header */

static void
move_requested_cb (NatterWindow *self,
                   const char   *session_id,
                   const char   *folder_id)
{
  move (self, session_id, folder_id);
}

static void
pin_requested_cb (NatterWindow *self,
                  const char   *session_id)
{
  pin (self, session_id, TRUE);
}

static void
folders_changed_cb (NatterWindow *self)
{
  _natter_window_update_place_menus (self);
}

/**
 * natter_window_set_folders:
 * @self: the window, given its services
 * @folders: (nullable): the folders conversations can be put in
 *
 * Shows the folders in the sidebar and offers them in Move to Folder. A
 * window made with an application's services uses theirs. Only for a
 * window with a session service.
 */
void
natter_window_set_folders (NatterWindow  *self,
                           NatterFolders *folders)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (folders == NULL || NATTER_IS_FOLDERS (folders));
  /* An inert window, without a session service, has no list to show
   * them in. */
  g_return_if_fail (self->folders.menu != NULL);

  if (self->folders.store != NULL)
    g_signal_handlers_disconnect_by_data (self->folders.store, self);
  g_set_object (&self->folders.store, folders);
  if (folders != NULL)
    g_signal_connect_swapped (folders, "items-changed", G_CALLBACK (folders_changed_cb), self);
  natter_sidebar_set_folders (self->session_sidebar, folders);
  folders_changed_cb (self);
}

/**
 * natter_window_get_folders:
 * @self: the window
 *
 * Returns: (transfer none) (nullable): the folders it shows
 */
NatterFolders *
natter_window_get_folders (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);
  return self->folders.store;
}

/* Once, when the window gets its services: the submenu of the
 * conversation's menu and the sidebar's requests. */
void
_natter_window_folders_init (NatterWindow *self)
{
  _natter_window_place_menus_init (self);
  g_signal_connect_swapped (self->session_sidebar, "move-requested", G_CALLBACK (move_requested_cb), self);
  g_signal_connect_swapped (self->session_sidebar, "pin-requested", G_CALLBACK (pin_requested_cb), self);
  _natter_window_update_folder_actions (self);
}

/* The folder a conversation is in, in its Move to Folder: never enabled,
 * so never activated; the item only shows where it is. */
static void
current_folder_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
}

/* Ctrl+Z: the typing in the composer first, then a folder deleted after
 * the last conversation, then the last conversation deleted (the
 * sidebar's), then any folder still waiting. Here, above the keyboard
 * facet, since it undoes a folder's deletion. */
static void
undo_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  g_autofree char *session_id = NULL;
  g_autoptr(AdwToast) toast = NULL;

  /* Ctrl+Z acts on what has the focus: in a text with typing to undo (the
   * composer) it undoes the typing, even while a deletion waits; the
   * toast's Undo button stays for that. */
  if (GTK_IS_TEXT_VIEW (focus) &&
      gtk_text_buffer_get_can_undo (gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus))))
    {
      gtk_widget_activate_action (focus, "text.undo", NULL);
      return;
    }
  /* A folder deleted after the last conversation is undone first. */
  if (_natter_window_undo_folder_delete (self, TRUE))
    return;

  if (self->sidebar.last_deleted_id != NULL && g_hash_table_contains (self->sidebar.pending_deletes, self->sidebar.last_deleted_id))
    session_id = g_strdup (self->sidebar.last_deleted_id);
  else
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->sidebar.pending_deletes);
      if (g_hash_table_iter_next (&iter, &key, NULL))
        session_id = g_strdup (key);
    }
  if (session_id == NULL)
    {
      _natter_window_undo_folder_delete (self, FALSE);
      return;
    }

  toast = g_object_ref (g_hash_table_lookup (self->sidebar.pending_deletes, session_id));
  /* The undo takes the toast away (through the guard, as Ctrl+Z may come
   * while the toast is still appearing). */
  gtk_widget_activate_action (widget, "win.undo-delete", "s", session_id);
  /* The keyboard goes to the row back in the list; one deleted beside
   * the open conversation is not opened for that. */
  if (g_object_get_data (G_OBJECT (toast), "was-open") != NULL)
    _natter_window_focus_sidebar_position (self, natter_sidebar_find_position (self->session_sidebar, session_id));
  else
    natter_sidebar_focus_position (self->session_sidebar,
                                   natter_sidebar_find_position (self->session_sidebar, session_id), FALSE);
}

void
_natter_window_class_folders_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_activated);
  gtk_widget_class_install_action (widget_class, "win.pin", "s", pin_activated);
  gtk_widget_class_install_action (widget_class, "win.unpin", "s", pin_activated);
  gtk_widget_class_install_action (widget_class, "win.toggle-pin", "s", pin_activated);
  gtk_widget_class_install_action (widget_class, "win.move-to-folder", "(ss)", move_to_folder_activated);
  /* Never enabled: the item of the folder a conversation is in. */
  gtk_widget_class_install_action (widget_class, "win.current-folder", NULL, current_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.move-to-new-folder", "s", new_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.new-folder", NULL, new_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.rename-folder", "s", rename_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.delete-folder", "s", delete_folder_activated);
  gtk_widget_class_install_action (widget_class, "win.undo-delete-folder", "(ss)", undo_delete_folder_activated);
}
