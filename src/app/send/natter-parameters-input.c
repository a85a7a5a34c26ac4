/* natter-parameters-input.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads what a person typed for one generation parameter into a
 * #NatterGenerationParameters, with the limits of docs/format.md §3.5,
 * and writes a set member back as text. A decimal comma is read like a
 * point, so "0,7" is what a German keyboard types for 0.7; numbers are
 * always shown with a point, as the command line prints them.
 */

#define G_LOG_DOMAIN "natter-app"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "natter-parameters-input.h"

static gboolean
read_number (const char *text,
             double      max,
             double     *out_value)
{
  g_autofree char *point = g_strdup (text);
  char *end = NULL;
  double value;

  g_strdelimit (point, ",", '.');
  /* Decimal numbers only: strtod() also reads C's hexadecimal floats
   * ("0x1p0"), which nobody types for a temperature. */
  if (strspn (point, "0123456789.eE+-") != strlen (point))
    return FALSE;
  value = g_ascii_strtod (point, &end);
  if (end == point || *end != '\0' || !isfinite (value) || value < 0 || value > max)
    return FALSE;
  /* "-0" is 0, and is said so. */
  *out_value = value == 0 ? 0 : value;
  return TRUE;
}

static gboolean
read_integer (const char *text,
              gint64      min,
              gint64     *out_value)
{
  return g_ascii_string_to_signed (text, 10, min, G_MAXINT64, out_value, NULL);
}

static const char *
describe_limits (NatterParameter which)
{
  switch (which)
    {
    case NATTER_PARAMETER_TEMPERATURE:
      return _("Temperature must be a number from 0 to 2");
    case NATTER_PARAMETER_TOP_P:
      return _("Top-p must be a number from 0 to 1");
    case NATTER_PARAMETER_MAX_TOKENS:
      return _("The most tokens of an answer must be a whole number of at least 1");
    case NATTER_PARAMETER_SEED:
    default:
      return _("The seed must be a whole number");
    }
}

/**
 * natter_parameters_input_set:
 * @self: parameters, changed only on success
 * @which: the member
 * @text: what the person typed; empty (or only white space) leaves the
 *   member to the model's default
 * @error: return location for a #GError
 *
 * Sets one sampling member of @self from text: `temperature` 0 to 2,
 * `top_p` 0 to 1 (numbers with a decimal point or comma), `max_tokens` a
 * whole number ≥ 1, `seed` any whole number (docs/format.md §3.5).
 *
 * Returns: %TRUE if @text was read; else %FALSE with
 *   %G_IO_ERROR_INVALID_ARGUMENT, whose message says the limits in plain
 *   words (translated)
 */
gboolean
natter_parameters_input_set (NatterGenerationParameters  *self,
                             NatterParameter              which,
                             const char                  *text,
                             GError                     **error)
{
  g_autofree char *stripped = NULL;
  gboolean unset, ok = TRUE;
  double number = 0;
  gint64 integer = 0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  stripped = g_strstrip (g_strdup (text));
  unset = stripped[0] == '\0';
  switch (which)
    {
    case NATTER_PARAMETER_TEMPERATURE:
      ok = unset || read_number (stripped, NATTER_TEMPERATURE_MAX, &number);
      if (ok)
        {
          self->has_temperature = !unset;
          self->temperature = number;
        }
      break;
    case NATTER_PARAMETER_TOP_P:
      ok = unset || read_number (stripped, 1.0, &number);
      if (ok)
        {
          self->has_top_p = !unset;
          self->top_p = number;
        }
      break;
    case NATTER_PARAMETER_MAX_TOKENS:
      ok = unset || read_integer (stripped, 1, &integer);
      if (ok)
        self->max_tokens = integer;
      break;
    case NATTER_PARAMETER_SEED:
      ok = unset || read_integer (stripped, G_MININT64, &integer);
      if (ok)
        {
          self->has_seed = !unset;
          self->seed = integer;
        }
      break;
    default:
      g_return_val_if_reached (FALSE);
    }
  if (!ok)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, describe_limits (which));
  return ok;
}

/**
 * natter_parameters_input_format:
 * @self: parameters
 * @which: the member
 *
 * Returns: (transfer full) (nullable): the member as text ("0.7",
 *   "1024"), or %NULL when @self leaves it to the model
 */
char *
natter_parameters_input_format (const NatterGenerationParameters *self,
                                NatterParameter                   which)
{
  char buffer[G_ASCII_DTOSTR_BUF_SIZE];

  g_return_val_if_fail (self != NULL, NULL);

  switch (which)
    {
    case NATTER_PARAMETER_TEMPERATURE:
      return self->has_temperature ? g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", self->temperature))
                                   : NULL;
    case NATTER_PARAMETER_TOP_P:
      return self->has_top_p ? g_strdup (g_ascii_formatd (buffer, sizeof buffer, "%g", self->top_p)) : NULL;
    case NATTER_PARAMETER_MAX_TOKENS:
      return self->max_tokens > 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, self->max_tokens) : NULL;
    case NATTER_PARAMETER_SEED:
      return self->has_seed ? g_strdup_printf ("%" G_GINT64_FORMAT, self->seed) : NULL;
    default:
      g_return_val_if_reached (NULL);
    }
}
