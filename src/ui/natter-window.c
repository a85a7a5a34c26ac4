/* natter-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-window.h"

struct _NatterWindow
{
  AdwApplicationWindow  parent_instance;

  GSettings            *settings;

  /* Template children */
  AdwLeaflet           *leaflet;
  GtkWidget            *sidebar;
  GtkWidget            *content;
};

G_DEFINE_FINAL_TYPE (NatterWindow, natter_window, ADW_TYPE_APPLICATION_WINDOW)

static void
natter_window_restore_state (NatterWindow *self)
{
  int width = g_settings_get_int (self->settings, "window-width");
  int height = g_settings_get_int (self->settings, "window-height");

  gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
natter_window_close_request (GtkWindow *window)
{
  NatterWindow *self = NATTER_WINDOW (window);
  int width, height;

  /* The size to restore is the unmaximized one. */
  gtk_window_get_default_size (window, &width, &height);
  g_settings_set_int (self->settings, "window-width", width);
  g_settings_set_int (self->settings, "window-height", height);
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));

  return GTK_WINDOW_CLASS (natter_window_parent_class)->close_request (window);
}

static void
go_back_cb (NatterWindow *self)
{
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

static void
natter_window_dispose (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_WINDOW);

  G_OBJECT_CLASS (natter_window_parent_class)->dispose (object);
}

static void
natter_window_finalize (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (natter_window_parent_class)->finalize (object);
}

static void
natter_window_class_init (NatterWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = natter_window_dispose;
  object_class->finalize = natter_window_finalize;
  window_class->close_request = natter_window_close_request;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content);
  gtk_widget_class_bind_template_callback (widget_class, go_back_cb);
}

static void
natter_window_init (NatterWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  natter_window_restore_state (self);
}

/**
 * natter_window_new:
 * @application: the application that owns the window
 *
 * Creates the main window: the session sidebar and the conversation side
 * by side in an #AdwLeaflet (one at a time when narrow).
 *
 * Returns: (transfer full): a new #NatterWindow
 */
NatterWindow *
natter_window_new (NatterApplication *application)
{
  return g_object_new (NATTER_TYPE_WINDOW,
                       "application", application,
                       NULL);
}
