/* natter-preferences-context-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The preferences row that sets the context window of the model a message
 * goes to when none is chosen (the default model, else the provider's
 * first as the model list shows it), below
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

/* The model a new message goes to when none is chosen: the default model,
 * else the provider's first, once the model list has it (NULL before). */
static const char *
effective_model (NatterPreferencesWindow *self)
{
  const char *model = natter_settings_get_default_model (self->settings);

  if (model != NULL && *model != '\0')
    return model;
  if (self->model_ids != NULL && self->model_ids->len > 1)
    return g_ptr_array_index (self->model_ids, 1);
  return NULL;
}

/* Tokens are whole numbers: "128,000" or "128 000" as people write them
 * is 128000, not 128 (the spin button's own parsing stops at the comma). */
static int
spin_input_cb (GtkSpinButton *spin,
               double        *new_value)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (spin));
  g_autoptr(GString) digits = g_string_new (NULL);

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isdigit (c) && c < 0x80)
        g_string_append_c (digits, (char) c);
      else if (!(c == ',' || c == '.' || c == '\'' || g_unichar_isspace (c) || c == 0x202F || c == 0x2009))
        return GTK_INPUT_ERROR;
    }
  if (digits->len == 0)
    return GTK_INPUT_ERROR;
  *new_value = g_ascii_strtod (digits->str, NULL);
  return TRUE;
}

static void
sync_row (NatterPreferencesWindow *self)
{
  g_autofree char *provider = natter_settings_dup_effective_provider (self->settings);
  const char *model = effective_model (self);
  gboolean known = provider != NULL && *provider != '\0' && model != NULL;
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
  g_autofree char *provider = natter_settings_dup_effective_provider (self->settings);
  const char *model = effective_model (self);

  if (self->updating_context_window || provider == NULL || *provider == '\0' || model == NULL)
    return;
  natter_settings_set_context_window (self->settings, provider, model,
                                      (guint) gtk_spin_button_get_value_as_int (self->context_window_spin));
}

/**
 * natter_preferences_window_sync_context_window:
 * @self: the preferences window
 *
 * Shows the context window of the model that now goes first, after the
 * model list changed (with no default model, the provider's first).
 */
void
natter_preferences_window_sync_context_window (NatterPreferencesWindow *self)
{
  if (self->context_window_row != NULL)
    sync_row (self);
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
  g_signal_connect (self->context_window_spin, "input", G_CALLBACK (spin_input_cb), NULL);
  gtk_widget_set_valign (GTK_WIDGET (self->context_window_spin), GTK_ALIGN_CENTER);
  self->context_window_row = ADW_ACTION_ROW (adw_action_row_new ());
  /* Its title names the model, which is the server's text, not markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->context_window_row), FALSE);
  adw_action_row_add_suffix (self->context_window_row, GTK_WIDGET (self->context_window_spin));
  adw_action_row_set_activatable_widget (self->context_window_row, GTK_WIDGET (self->context_window_spin));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->context_window_row));
  sync_row (self);

  g_signal_connect_swapped (self->context_window_spin, "value-changed", G_CALLBACK (value_changed_cb), self);
  g_signal_connect_swapped (self->settings, "notify::default-provider", G_CALLBACK (sync_row), self);
  /* With no default set, the list's first provider is the default. */
  g_signal_connect_swapped (self->settings, "notify::providers", G_CALLBACK (sync_row), self);
  g_signal_connect_swapped (self->settings, "notify::default-model", G_CALLBACK (sync_row), self);
  g_signal_connect_swapped (natter_settings_get_gsettings (self->settings), "changed::context-windows",
                            G_CALLBACK (sync_row), self);
}
