/* natter-store-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-store-error.h"

G_DEFINE_QUARK (natter-store-error-quark, natter_store_error)

/**
 * natter_set_error_false:
 * @error: (nullable): where the error goes, or %NULL
 * @domain: its #GError domain
 * @code: its code in @domain
 * @format: printf() format of the message
 * @...: its arguments
 *
 * Sets @error (when @error is not %NULL) to a new error of @domain and
 * @code with the formatted message, and returns %FALSE, so that a
 * validator can `return natter_set_error_false (...)` in one line. It is
 * the one place every layer's parsers and validators (the store, the
 * provider's request encoder, agent files, archives and imports) build
 * such an error; an error already in @error is kept and warned about, as
 * g_propagate_error() does.
 *
 * Returns: %FALSE, always
 */
gboolean
natter_set_error_false (GError     **error,
                        GQuark       domain,
                        int          code,
                        const char  *format,
                        ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (domain, code, format, args));
  va_end (args);
  return FALSE;
}
