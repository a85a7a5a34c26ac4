/* natter-provider-choices.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The providers a person picks from in Preferences, the same on every
 * page that offers them: the default model's Provider combo and the
 * agent editor's. They are the entries of the `providers` setting, and
 * a default that is not among them (removed meanwhile, or the built-in
 * Ollama) as itself, so that no choice is silently changed.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <gtk/gtk.h>

#include "natter-provider-choices.h"

/**
 * natter_provider_choices_collect:
 * @settings: the settings whose `providers` and `default-provider` are read
 *   (the default as natter_settings_dup_effective_provider() resolves it)
 * @ids: (element-type utf8): filled with the providers' ids, in order; it
 *   must free its elements with g_free()
 * @names: (element-type utf8): filled with the names shown for them (a
 *   default that is not a configured provider shows its id); it must free
 *   its elements with g_free()
 *
 * Appends the providers to choose from to @ids and @names.
 *
 * Returns: the position of the default provider in @ids, or
 *   %GTK_INVALID_LIST_POSITION when there is none
 */
guint
natter_provider_choices_collect (NatterSettings *settings,
                                 GPtrArray      *ids,
                                 GPtrArray      *names)
{
  g_autoptr(GPtrArray) providers = NULL;
  g_autofree char *current = NULL;
  guint selected = GTK_INVALID_LIST_POSITION;
  guint start;

  g_return_val_if_fail (NATTER_IS_SETTINGS (settings), GTK_INVALID_LIST_POSITION);
  g_return_val_if_fail (ids != NULL && names != NULL, GTK_INVALID_LIST_POSITION);

  providers = natter_settings_dup_providers (settings);
  /* The provider messages go to, a default left unset too. */
  current = natter_settings_dup_effective_provider (settings);
  start = ids->len;
  for (guint i = 0; i < providers->len; i++)
    {
      NatterProviderConfig *entry = g_ptr_array_index (providers, i);

      g_ptr_array_add (ids, g_strdup (entry->id));
      g_ptr_array_add (names, g_strdup (entry->name));
      if (g_strcmp0 (entry->id, current) == 0)
        selected = ids->len - 1 - start;
    }
  if (selected == GTK_INVALID_LIST_POSITION && current != NULL && current[0] != '\0')
    {
      g_ptr_array_add (ids, g_strdup (current));
      g_ptr_array_add (names, g_strdup (current));
      selected = ids->len - 1 - start;
    }
  return selected;
}

/**
 * natter_provider_choices_find:
 * @providers: (element-type NatterProviderConfig): the entries of the
 *   `providers` setting (natter_settings_dup_providers())
 * @id: a provider's id
 *
 * Returns: the position of the provider @id in @providers, or -1
 */
int
natter_provider_choices_find (GPtrArray  *providers,
                              const char *id)
{
  g_return_val_if_fail (providers != NULL && id != NULL, -1);

  for (guint i = 0; i < providers->len; i++)
    if (g_str_equal (((NatterProviderConfig *) g_ptr_array_index (providers, i))->id, id))
      return (int) i;
  return -1;
}
