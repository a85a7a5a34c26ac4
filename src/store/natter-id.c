/* natter-id.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-id"

#include <string.h>

#include "natter-id.h"
#include "natter-json.h"
#include "natter-store-error.h"

/* An id is `YYYY-MM-DDTHH-MM-SSZ-CCCCCCC-SSS`: the UTC second it was made,
 * a 7-digit counter and a 3-digit suffix. The counter is the 100 ns slot
 * within that second (ten per microsecond), and the pair (second, counter)
 * never goes backwards within a process: an id that would not sort after
 * the previous one takes the next slot instead. So ids sort in creation
 * order as plain strings, and a process that starts right after another
 * wrote (the data-dir lock orders writers) makes later ids, not the same
 * ones again, even within the same second. */

struct _NatterIdGenerator
{
  GObject      parent_instance;

  NatterClock *clock;
  gint64       last_second;
  guint        counter;
};

#define SLOTS_PER_SECOND 10000000

G_DEFINE_FINAL_TYPE (NatterIdGenerator, natter_id_generator, G_TYPE_OBJECT)

static void
natter_id_generator_finalize (GObject *object)
{
  NatterIdGenerator *self = (NatterIdGenerator *) object;

  g_clear_object (&self->clock);

  G_OBJECT_CLASS (natter_id_generator_parent_class)->finalize (object);
}

static void
natter_id_generator_class_init (NatterIdGeneratorClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_id_generator_finalize;
}

static void
natter_id_generator_init (NatterIdGenerator *self)
{
  self->last_second = G_MININT64;
}

/**
 * natter_id_generator_new:
 * @clock: (transfer none) (nullable): the clock to read, or %NULL for the
 *   system clock
 *
 * Creates the monotonic, time-based id generator of docs/runtime.md §2
 * (docs/sessions.md §6.1: turn and session ids come from one
 * generator).
 *
 * Returns: (transfer full): a new generator
 */
NatterIdGenerator *
natter_id_generator_new (NatterClock *clock)
{
  NatterIdGenerator *self;

  g_return_val_if_fail (clock == NULL || NATTER_IS_CLOCK (clock), NULL);

  self = g_object_new (NATTER_TYPE_ID_GENERATOR, NULL);
  self->clock = clock != NULL ? g_object_ref (clock) : natter_clock_get_system ();
  return self;
}

/**
 * natter_id_generator_next:
 * @self: a #NatterIdGenerator
 *
 * Makes the next id: the UTC second and the 100 ns slot within it. Ids
 * from one generator are unique and strictly increasing as strings, even
 * if the clock steps backwards (the last slot seen is kept until the clock
 * passes it, each id taking the next slot); a generator created after
 * another one stopped makes ids that sort after the other's as long as the
 * clock did not step back.
 *
 * Returns: (transfer full): a new id that natter_id_validate() accepts
 */
char *
natter_id_generator_next (NatterIdGenerator *self)
{
  g_autoptr(GDateTime) time = NULL;
  g_autofree char *stamp = NULL;
  gint64 now_us;
  gint64 second;
  guint slot;

  g_return_val_if_fail (NATTER_IS_ID_GENERATOR (self), NULL);

  now_us = natter_clock_now_us (self->clock);
  second = now_us / G_USEC_PER_SEC;
  slot = (guint) (now_us % G_USEC_PER_SEC) * 10;

  if (second > self->last_second ||
      (second == self->last_second && slot > self->counter))
    {
      self->last_second = second;
      self->counter = slot;
    }
  else if (self->counter + 1 < SLOTS_PER_SECOND)
    {
      self->counter++;
    }
  else
    {
      self->last_second++;
      self->counter = 0;
    }

  time = g_date_time_new_from_unix_utc (self->last_second);
  g_assert (time != NULL);
  stamp = g_date_time_format (time, "%Y-%m-%dT%H-%M-%SZ");
  return g_strdup_printf ("%s-%07u-000", stamp, self->counter);
}

/**
 * natter_id_read_digits:
 * @s: text of at least @n bytes
 * @n: how many decimal digits to read
 * @out: (out): their value
 *
 * Reads exactly @n ASCII decimal digits, for the fields of an id and
 * of the other names the store checks by hand (a conflict copy's,
 * docs/format.md §9).
 *
 * Returns: %TRUE when the @n bytes are all digits
 */
gboolean
natter_id_read_digits (const char *s,
                       guint       n,
                       guint      *out)
{
  guint value = 0;

  for (guint i = 0; i < n; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        return FALSE;
      value = value * 10 + (guint) (s[i] - '0');
    }
  *out = value;
  return TRUE;
}

/**
 * natter_id_validate:
 * @id: (nullable): a candidate turn or session id
 * @error: return location for a #GError
 *
 * Checks @id against the strict id pattern before any path is built from
 * it: exactly %NATTER_ID_LENGTH ASCII bytes of the form
 * `YYYY-MM-DDTHH-MM-SSZ-CCCCCCC-SSS` with a real calendar date and time.
 * Anything path-like (`/`, `..`, NUL, absolute paths) is rejected because it
 * cannot match. Implements docs/runtime.md §2 and docs/sessions.md
 * §6.1.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_INVALID_ID.
 */
gboolean
natter_id_validate (const char  *id,
                    GError     **error)
{
  guint year, month, day, hour, minute, second, counter, suffix;

  if (id == NULL)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID,
                           "The id is missing");
      return FALSE;
    }

  /* strnlen bounds the scan: an overlong id is refused without reading it whole. */
  if (strnlen (id, NATTER_ID_LENGTH + 1) != NATTER_ID_LENGTH ||
      !natter_id_read_digits (id, 4, &year) || id[4] != '-' ||
      !natter_id_read_digits (id + 5, 2, &month) || id[7] != '-' ||
      !natter_id_read_digits (id + 8, 2, &day) || id[10] != 'T' ||
      !natter_id_read_digits (id + 11, 2, &hour) || id[13] != '-' ||
      !natter_id_read_digits (id + 14, 2, &minute) || id[16] != '-' ||
      !natter_id_read_digits (id + 17, 2, &second) || id[19] != 'Z' || id[20] != '-' ||
      !natter_id_read_digits (id + 21, 7, &counter) || id[28] != '-' ||
      !natter_id_read_digits (id + 29, 3, &suffix))
    goto invalid;

  if (year < 1970 || month < 1 || month > 12 || day < 1 ||
      day > g_date_get_days_in_month (month, year) ||
      hour > 23 || minute > 59 || second > 59)
    goto invalid;

  return TRUE;

invalid:
  {
    /* Never echo raw bytes: the id may be invalid UTF-8 or huge. */
    g_autofree char *shown = g_utf8_make_valid (id, MIN (strnlen (id, 64), 64));

    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID,
                 "“%s” is not a valid id", shown);
    return FALSE;
  }
}

/**
 * natter_id_partition:
 * @id: a valid id
 *
 * The date partition of @id: `YYYY/MM/DD` (docs/runtime.md §2). @id must
 * already have passed natter_id_validate().
 *
 * Returns: (transfer full): the relative partition path
 */
char *
natter_id_partition (const char *id)
{
  g_return_val_if_fail (natter_id_validate (id, NULL), NULL);

  return g_strdup_printf ("%.4s/%.2s/%.2s", id, id + 5, id + 8);
}

/**
 * natter_id_validate_field:
 * @member: the name of the field that holds @value, for the message
 * @value: a candidate id found inside an event
 * @error: return location for a #GError
 *
 * natter_id_validate() for an id stored inside an event: a bad one makes
 * the event malformed, so it is reported as a schema error, not as
 * %NATTER_STORE_ERROR_INVALID_ID (which means a caller passed a bad id to
 * the repository). Shared by the turn and session schemas
 * (docs/runtime.md §3, docs/format.md §3.1).
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA.
 */
gboolean
natter_id_validate_field (const char  *member,
                          const char  *value,
                          GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (natter_id_validate (value, &local_error))
    return TRUE;
  g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
               "Field “%s” is not a valid id: %s", member, local_error->message);
  return FALSE;
}

/**
 * natter_id_require_field:
 * @object: (transfer none): an event or nested object
 * @member: the field name
 * @error: return location for a #GError
 *
 * Schema helper: @member must be present and a valid id
 * (natter_id_validate_field()).
 *
 * Returns: (transfer none) (nullable): the id, owned by @object, or %NULL
 *   with %NATTER_STORE_ERROR_SCHEMA.
 */
const char *
natter_id_require_field (JsonObject  *object,
                         const char  *member,
                         GError     **error)
{
  const char *value = natter_json_require_string (object, member, error);

  if (value == NULL || !natter_id_validate_field (member, value, error))
    return NULL;
  return value;
}
