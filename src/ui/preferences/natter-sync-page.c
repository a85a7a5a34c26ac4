/* natter-sync-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Sync page of Preferences (docs/sync.md): which folder to share
 * with Syncthing, whether Natter sees it shared (Syncthing's `.stfolder`
 * at or above the data folder), which device this is, and the ignore
 * patterns of what stays here, with Write for a folder shared from
 * above (natter-sync-ignore.c). What it shows is read off the main
 * thread each time the page is shown; it calls nothing of the window
 * that holds it, and hands its toasts up with ::add-toast, as the other
 * pages do. The page's widgets are declared
 * in natter-sync-page.ui; this file keeps what they do.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-preferences-toast.h"
#include "natter-sync-ignore.h"
#include "natter-sync-page.h"

struct _NatterSyncPage
{
  AdwPreferencesPage       parent_instance;

  NatterServices          *services;
  GCancellable            *cancellable;  /* cancelled when the page goes */
  guint                    n_pending;    /* reads or writes under way */

  /* Template widgets */
  AdwActionRow            *folder_row;
  AdwActionRow            *status_row;
  GtkImage                *status_icon;
  AdwActionRow            *device_row;
  AdwActionRow            *ignore_row;
  GtkWidget               *write_button;
  GtkLabel                *patterns_label;
};

G_DEFINE_FINAL_TYPE (NatterSyncPage, natter_sync_page, ADW_TYPE_PREFERENCES_PAGE)

enum
{
  ADD_TOAST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GFile *
data_dir (NatterSyncPage *self)
{
  return natter_services_get_data_dir (self->services);
}

static void
show_folder (NatterSyncPage   *self,
             NatterSyncFolder *folder)
{
  g_autofree char *path = g_file_get_path (data_dir (self));
  g_autofree char *block = natter_sync_ignore_block (folder->prefix);
  g_autofree char *status = NULL;
  g_autofree char *ignore = NULL;

  adw_action_row_set_subtitle (self->folder_row, path);
  if (folder->root == NULL)
    {
      status = g_strdup (_("Not shared: no Syncthing folder holds it yet"));
      gtk_image_set_from_icon_name (self->status_icon, "dialog-information-symbolic");
    }
  else if (folder->prefix[0] == '\0')
    {
      status = g_strdup (_("Shared with Syncthing"));
      gtk_image_set_from_icon_name (self->status_icon, "emblem-ok-symbolic");
    }
  else
    {
      /* Translators: %s is the folder Syncthing shares, above Natter's */
      status = g_strdup_printf (_("Shared with Syncthing as part of %s"), folder->root);
      gtk_image_set_from_icon_name (self->status_icon, "emblem-ok-symbolic");
    }
  adw_action_row_set_subtitle (self->status_row, status);

  switch (folder->ignore_state)
    {
    case NATTER_SYNC_IGNORE_CURRENT:
      /* Translators: %s is the path of Syncthing's ignore file */
      ignore = g_strdup_printf (_("Written in %s"), folder->ignore_path);
      break;
    case NATTER_SYNC_IGNORE_OUTDATED:
      /* Translators: %s is the path of Syncthing's ignore file */
      ignore = g_strdup_printf (_("An older Natter’s patterns are in %s"), folder->ignore_path);
      break;
    case NATTER_SYNC_IGNORE_MISSING:
    default:
      /* Translators: %s is the path of Syncthing's ignore file */
      ignore = g_strdup_printf (_("Not yet in %s"), folder->ignore_path);
      break;
    }
  adw_action_row_set_subtitle (self->ignore_row, ignore);
  gtk_widget_set_sensitive (self->write_button, folder->ignore_state != NATTER_SYNC_IGNORE_CURRENT);
  /* Plain text: a folder's name may hold anything. */
  gtk_label_set_text (self->patterns_label, g_strchomp (block));
}

static void
inspected_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterSyncPage) self = user_data;
  g_autoptr(NatterSyncFolder) folder = NULL;
  g_autoptr(GError) error = NULL;

  self->n_pending--;
  folder = natter_sync_folder_inspect_finish (result, &error);
  if (g_cancellable_is_cancelled (self->cancellable))
    return;
  if (folder == NULL)
    {
      /* Translators: %s is why, e.g. a file that cannot be written */
      g_autofree char *text = g_strdup_printf (_("The ignore patterns could not be written: %s"), error->message);
      g_autoptr(AdwToast) toast = natter_preferences_toast_new (text);

      g_signal_emit (self, signals[ADD_TOAST], 0, toast);
      natter_sync_page_refresh (self);
      return;
    }
  show_folder (self, folder);
}

static void
start (NatterSyncPage *self,
       gboolean        write)
{
  self->n_pending++;
  natter_sync_folder_inspect_async (data_dir (self), write ? NATTER_SYNC_IGNORE_WRITE_ALWAYS : NATTER_SYNC_IGNORE_WRITE_NONE,
                                    NULL, inspected_cb, g_object_ref (self));
}

static void
write_clicked_cb (NatterSyncPage *self)
{
  start (self, TRUE);
}

static void
map_cb (NatterSyncPage *self)
{
  /* Syncthing may have been set up since the page was last shown. */
  natter_sync_page_refresh (self);
}

static void
natter_sync_page_dispose (GObject *object)
{
  NatterSyncPage *self = NATTER_SYNC_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  G_OBJECT_CLASS (natter_sync_page_parent_class)->dispose (object);
}

static void
natter_sync_page_finalize (GObject *object)
{
  NatterSyncPage *self = NATTER_SYNC_PAGE (object);

  g_clear_object (&self->services);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (natter_sync_page_parent_class)->finalize (object);
}

static void
natter_sync_page_class_init (NatterSyncPageClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = natter_sync_page_dispose;
  G_OBJECT_CLASS (klass)->finalize = natter_sync_page_finalize;

  /**
   * NatterSyncPage::add-toast:
   * @page: the page
   * @toast: a toast built by natter_preferences_toast_new()
   *
   * Asks the window that holds the page to show @toast.
   */
  signals[ADD_TOAST] = g_signal_new ("add-toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                     NULL, G_TYPE_NONE, 1, ADW_TYPE_TOAST);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-sync-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, folder_row);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, status_row);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, status_icon);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, device_row);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, ignore_row);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, write_button);
  gtk_widget_class_bind_template_child (widget_class, NatterSyncPage, patterns_label);
  gtk_widget_class_bind_template_callback (widget_class, write_clicked_cb);
}

static void
natter_sync_page_init (NatterSyncPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  g_signal_connect (self, "map", G_CALLBACK (map_cb), NULL);
}

/**
 * natter_sync_page_new:
 * @services: the services whose data folder the page is about
 *
 * The Sync page (docs/sync.md).
 *
 * Returns: (transfer floating): the page
 */
NatterSyncPage *
natter_sync_page_new (NatterServices *services)
{
  NatterSyncPage *self;
  NatterDevice *device;

  g_return_val_if_fail (NATTER_IS_SERVICES (services), NULL);

  self = g_object_new (NATTER_TYPE_SYNC_PAGE, NULL);
  self->services = g_object_ref (services);
  device = natter_turn_runtime_get_device (natter_services_get_runtime (services));
  adw_action_row_set_subtitle (self->device_row, device != NULL ? natter_device_get_name (device) : _("Unknown"));
  {
    g_autofree char *path = g_file_get_path (data_dir (self));

    adw_action_row_set_subtitle (self->folder_row, path);
  }
  natter_sync_page_refresh (self);
  return self;
}

/**
 * natter_sync_page_refresh:
 * @self: the page
 *
 * Looks again, off the main thread, at whether the data folder is
 * shared and what its ignore file holds.
 */
void
natter_sync_page_refresh (NatterSyncPage *self)
{
  g_return_if_fail (NATTER_IS_SYNC_PAGE (self));
  start (self, FALSE);
}

/**
 * natter_sync_page_get_n_pending:
 * @self: the page
 *
 * Returns: how many reads or writes of the ignore file are under way,
 *   for tests
 */
guint
natter_sync_page_get_n_pending (NatterSyncPage *self)
{
  g_return_val_if_fail (NATTER_IS_SYNC_PAGE (self), 0);
  return self->n_pending;
}

/**
 * natter_sync_page_get_widget:
 * @self: the page
 * @name: "folder", "status", "device", "ignore", "write" or "patterns"
 *
 * For tests.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_sync_page_get_widget (NatterSyncPage *self,
                             const char     *name)
{
  g_return_val_if_fail (NATTER_IS_SYNC_PAGE (self), NULL);

  if (g_str_equal (name, "folder"))
    return GTK_WIDGET (self->folder_row);
  if (g_str_equal (name, "status"))
    return GTK_WIDGET (self->status_row);
  if (g_str_equal (name, "device"))
    return GTK_WIDGET (self->device_row);
  if (g_str_equal (name, "ignore"))
    return GTK_WIDGET (self->ignore_row);
  if (g_str_equal (name, "write"))
    return self->write_button;
  if (g_str_equal (name, "patterns"))
    return GTK_WIDGET (self->patterns_label);
  return NULL;
}
