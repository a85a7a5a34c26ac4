/* natter-settings-context-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writing the `context-windows` key: the context window the user sets
 * for one model, which automatic compaction (natter-auto-compact.c)
 * prefers to what the server reports.
 */

#define G_LOG_DOMAIN "natter-settings"

#include "natter-settings.h"

/**
 * natter_settings_set_context_window:
 * @self: the settings
 * @provider: a provider id
 * @model: a model name (not empty)
 * @tokens: the window in tokens, at most %G_MAXINT32; 0 forgets the
 *   user's window, so that the server's counts again
 *
 * Sets the entry "@provider/@model" of the `context-windows` key
 * (docs/sessions.md §5: "or the user set it for the model"),
 * keeping every other entry. Does nothing on the built-in defaults
 * (settings without a #GSettings).
 */
void
natter_settings_set_context_window (NatterSettings *self,
                                    const char     *provider,
                                    const char     *model,
                                    guint           tokens)
{
  GSettings *settings;
  g_autoptr(GVariant) windows = NULL;
  g_autofree char *key = NULL;
  GVariantBuilder builder;
  GVariantIter iter;
  const char *name;
  gint32 value;

  g_return_if_fail (NATTER_IS_SETTINGS (self));
  g_return_if_fail (provider != NULL && model != NULL && *model != '\0');
  g_return_if_fail (tokens <= G_MAXINT32);

  settings = natter_settings_get_gsettings (self);
  if (settings == NULL)
    return;
  key = g_strconcat (provider, "/", model, NULL);
  windows = g_settings_get_value (settings, "context-windows");
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a{si}"));
  g_variant_iter_init (&iter, windows);
  while (g_variant_iter_next (&iter, "{&si}", &name, &value))
    if (!g_str_equal (name, key))
      g_variant_builder_add (&builder, "{si}", name, value);
  if (tokens > 0)
    g_variant_builder_add (&builder, "{si}", key, (gint32) tokens);
  g_settings_set_value (settings, "context-windows", g_variant_builder_end (&builder));
}
