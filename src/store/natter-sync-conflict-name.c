/* natter-sync-conflict-name.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The name of a conflict copy (docs/format.md §9). When a log was
 * changed on two devices while they were apart, Syncthing keeps one
 * version under the log's name and the other beside it as
 * `<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>.jsonl`, the same on
 * both devices once they are in step. Such a name is read, never written:
 * the store accepts it wherever a log is only read (and removed, on a
 * person's word), and refuses it for every create and append.
 */

#define G_LOG_DOMAIN "natter-store"

#include <string.h>

#include "natter-id.h"
#include "natter-store-error.h"
#include "natter-sync-conflict-name.h"

/**
 * natter_sync_conflict_is_candidate:
 * @name: a file's name without `.jsonl`
 *
 * Whether @name says it is a synchroniser's conflict copy: it holds
 * %NATTER_SYNC_CONFLICT_MARK. Such a file is never passed over in
 * silence: one whose name natter_sync_conflict_validate() refuses is an
 * error naming it (docs/format.md §9).
 *
 * Returns: %TRUE when @name holds the mark
 */
gboolean
natter_sync_conflict_is_candidate (const char *name)
{
  g_return_val_if_fail (name != NULL, FALSE);

  return strstr (name, NATTER_SYNC_CONFLICT_MARK) != NULL;
}

/* Syncthing's short device id: the first seven characters of the
 * device's id, in base32 (capital letters and the digits 2 to 7). */
static gboolean
is_short_device_id (const char *text)
{
  for (guint i = 0; i < 7; i++)
    if (!g_ascii_isupper (text[i]) && !(text[i] >= '2' && text[i] <= '7'))
      return FALSE;
  return TRUE;
}

/**
 * natter_sync_conflict_validate:
 * @name: a file's name without `.jsonl`
 * @error: return location for a #GError
 *
 * Checks that @name is exactly a conflict copy's name:
 * `<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>`, a valid id
 * (docs/format.md §1, "Ids"), a real date and time, and a 7-character
 * short device id. Nothing else is taken for one: not a copy of a copy,
 * not a copy of a file that is not a log. (docs/format.md §9)
 *
 * Returns: %TRUE for a conflict copy's name; else %FALSE with
 *   %NATTER_STORE_ERROR_INVALID_ID
 */
gboolean
natter_sync_conflict_validate (const char  *name,
                               GError     **error)
{
  static const gsize mark_length = sizeof NATTER_SYNC_CONFLICT_MARK - 1;
  char id[NATTER_ID_LENGTH + 1];
  const char *stamp;
  guint year, month, day, hour, minute, second;

  if (name == NULL || strnlen (name, NATTER_SYNC_CONFLICT_NAME_LENGTH + 1) != NATTER_SYNC_CONFLICT_NAME_LENGTH)
    goto invalid;
  memcpy (id, name, NATTER_ID_LENGTH);
  id[NATTER_ID_LENGTH] = '\0';
  if (!natter_id_validate (id, NULL) || memcmp (name + NATTER_ID_LENGTH, NATTER_SYNC_CONFLICT_MARK, mark_length) != 0)
    goto invalid;
  stamp = name + NATTER_ID_LENGTH + mark_length;
  if (!natter_id_read_digits (stamp, 4, &year) || !natter_id_read_digits (stamp + 4, 2, &month) ||
      !natter_id_read_digits (stamp + 6, 2, &day) || stamp[8] != '-' ||
      !natter_id_read_digits (stamp + 9, 2, &hour) || !natter_id_read_digits (stamp + 11, 2, &minute) ||
      !natter_id_read_digits (stamp + 13, 2, &second) || stamp[15] != '-' || !is_short_device_id (stamp + 16))
    goto invalid;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > g_date_get_days_in_month (month, year) ||
      hour > 23 || minute > 59 || second > 60)
    goto invalid;
  return TRUE;

invalid:
  {
    /* Never echo raw bytes: the name came from a directory listing. */
    g_autofree char *shown = name != NULL ? g_utf8_make_valid (name, MIN (strnlen (name, 128), 128))
                                          : g_strdup ("");

    g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_INVALID_ID,
                 "“%s.jsonl” is not a conflict copy Natter can read: a synchroniser’s copy of a log is named "
                 "<id>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<device>.jsonl",
                 shown);
    return FALSE;
  }
}

/**
 * natter_sync_conflict_is_name:
 * @name: a file's name without `.jsonl`, or an id
 *
 * Returns: whether @name is exactly a conflict copy's name
 *   (natter_sync_conflict_validate())
 */
gboolean
natter_sync_conflict_is_name (const char *name)
{
  return name != NULL && natter_sync_conflict_validate (name, NULL);
}

/**
 * natter_store_name_validate:
 * @name: the name of a log to read: an id, or a conflict copy's name
 * @error: return location for a #GError
 *
 * What may name a log that is read: a valid id (docs/format.md §1), or a
 * conflict copy's name (docs/format.md §9). Creates and appends take ids
 * only (natter_id_validate()).
 *
 * Returns: %TRUE when @name may be read; else %FALSE with
 *   %NATTER_STORE_ERROR_INVALID_ID (the conflict copy's error when @name
 *   holds its mark, the id's otherwise)
 */
gboolean
natter_store_name_validate (const char  *name,
                            GError     **error)
{
  if (name != NULL && natter_sync_conflict_is_candidate (name))
    return natter_sync_conflict_validate (name, error);
  return natter_id_validate (name, error);
}
