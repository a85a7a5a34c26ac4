/* natter-preferences-context-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The preferences row that sets the default model's context window, below
 * "Compact Long Conversations Automatically": a spin button in tokens that
 * writes that model's entry of the `context-windows` setting
 * (natter_settings_set_context_window()), 0 meaning "ask the server".
 * Automatic compaction prefers this window to the server's; for a server
 * that reports none it is the only way compaction can start on its own.
 * The row follows the default provider and model, and an entry changed
 * elsewhere (gsettings, another window).
 */

#define G_LOG_DOMAIN "natter-preferences"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-preferences-window-private.h"

/* A window no server has: 10 million tokens. */
#define MAX_WINDOW 10000000

static void
sync_row (NatterPreferencesWindow *self)
{
  const char *provider = natter_settings_get_default_provider (self->settings);
  const char *model = natter_settings_get_default_model (self->settings);
  gboolean known = provider != NULL && *provider != '\0' && model != NULL && *model != '\0';
  g_autofree char *title = NULL;

  self->updating_context_window = TRUE;
  if (known)
    {
      title = g_strdup_printf (_("Context Window of “%s”"), model);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->context_window_row), title);
      adw_action_row_set_subtitle (self->context_window_row,
                                   _("Tokens the model reads at most, to compact in time; 0 uses what the server "
                                     "reports"));
      gtk_spin_button_set_value (self->context_window_spin,
                                 natter_settings_get_context_window (self->settings, provider, model));
    }
  else
    {
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->context_window_row), _("Context Window"));
      adw_action_row_set_subtitle (self->context_window_row,
                                   _("Choose a default model above to set its context window"));
      gtk_spin_button_set_value (self->context_window_spin, 0);
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->context_window_spin), known);
  self->updating_context_window = FALSE;
}

static void
value_changed_cb (NatterPreferencesWindow *self)
{
  const char *provider = natter_settings_get_default_provider (self->settings);
  const char *model = natter_settings_get_default_model (self->settings);

  if (self->updating_context_window || provider == NULL || *provider == '\0' || model == NULL || *model == '\0')
    return;
  natter_settings_set_context_window (self->settings, provider, model,
                                      (guint) gtk_spin_button_get_value_as_int (self->context_window_spin));
}

/**
 * natter_preferences_window_add_context_window_row:
 * @self: the preferences window, its settings set
 *
 * Adds the context window row at the end of the group of the auto-compact
 * switch (which is that group's last row), and keeps it in step with the
 * settings until the window is disposed.
 */
void
natter_preferences_window_add_context_window_row (NatterPreferencesWindow *self)
{
  GtkWidget *group = gtk_widget_get_ancestor (GTK_WIDGET (self->auto_compact_switch), ADW_TYPE_PREFERENCES_GROUP);
  GtkAdjustment *adjustment = gtk_adjustment_new (0, 0, MAX_WINDOW, 1024, 8192, 0);

  g_return_if_fail (group != NULL);

  self->context_window_spin = GTK_SPIN_BUTTON (gtk_spin_button_new (adjustment, 1024, 0));
  gtk_spin_button_set_numeric (self->context_window_spin, TRUE);
  gtk_widget_set_valign (GTK_WIDGET (self->context_window_spin), GTK_ALIGN_CENTER);
  self->context_window_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_action_row_add_suffix (self->context_window_row, GTK_WIDGET (self->context_window_spin));
  adw_action_row_set_activatable_widget (self->context_window_row, GTK_WIDGET (self->context_window_spin));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->context_window_row));
  sync_row (self);

  g_signal_connect_swapped (self->context_window_spin, "value-changed", G_CALLBACK (value_changed_cb), self);
  g_signal_connect_swapped (self->settings, "notify::default-provider", G_CALLBACK (sync_row), self);
  g_signal_connect_swapped (self->settings, "notify::default-model", G_CALLBACK (sync_row), self);
  g_signal_connect_swapped (natter_settings_get_gsettings (self->settings), "changed::context-windows",
                            G_CALLBACK (sync_row), self);
}
