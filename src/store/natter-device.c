/* natter-device.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Which device this is, for a store that other devices share through a
 * file synchroniser (docs/sync.md). A turn runs on one device; its file
 * says which (the `device` member of docs/format.md §4.5), so that the
 * others show it as running there and never advance it themselves.
 *
 * The identity is a random id and the host's name, kept in the file
 * `device` at the top of the data directory: beside `storage/`, never a
 * log, and listed in the ignore patterns Natter writes (docs/sync.md),
 * so it stays on this device. A data directory copied whole to another
 * machine (a backup restored, a folder shared without those patterns)
 * would bring the file along and make two devices one; the file
 * therefore also keeps a digest of the machine's id (systemd's
 * `/etc/machine-id`, never stored itself: it is meant to stay private),
 * and a file made on another machine is replaced by a new identity.
 */

#define G_LOG_DOMAIN "natter-store"

#include <errno.h>

#include <glib/gstdio.h>

#include "natter-device.h"
#include "natter-json.h"
#include "natter-store-error.h"

#define GROUP "Device"

struct _NatterDevice
{
  GObject parent_instance;

  char   *id;
  char   *name;
};

G_DEFINE_FINAL_TYPE (NatterDevice, natter_device, G_TYPE_OBJECT)

static void
natter_device_finalize (GObject *object)
{
  NatterDevice *self = NATTER_DEVICE (object);

  g_free (self->id);
  g_free (self->name);
  G_OBJECT_CLASS (natter_device_parent_class)->finalize (object);
}

static void
natter_device_class_init (NatterDeviceClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_device_finalize;
}

static void
natter_device_init (NatterDevice *self)
{
}

/**
 * natter_device_new:
 * @id: a non-empty id, unique to the device
 * @name: what the device is called where other devices name it
 *
 * A device of the given identity, for tests and for
 * natter_device_load_or_create_sync().
 *
 * Returns: (transfer full): a new device
 */
NatterDevice *
natter_device_new (const char *id,
                   const char *name)
{
  NatterDevice *self;

  g_return_val_if_fail (id != NULL && id[0] != '\0', NULL);
  g_return_val_if_fail (name != NULL, NULL);

  self = g_object_new (NATTER_TYPE_DEVICE, NULL);
  self->id = g_strdup (id);
  self->name = g_strdup (name);
  return self;
}

/* A digest of the machine's id, or NULL where there is none to read. */
static char *
machine_digest (void)
{
  static const char * const paths[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *contents = NULL;

      if (g_file_get_contents (paths[i], &contents, NULL, NULL))
        {
          g_autofree char *salted = g_strconcat ("natter-device:", g_strstrip (contents), NULL);

          if (contents[0] != '\0')
            return g_compute_checksum_for_string (G_CHECKSUM_SHA256, salted, -1);
        }
    }
  return NULL;
}

/* The identity kept at @path, or NULL with the reason when there is
 * none to keep: no file, one that is not a key file or lacks its id or
 * name, or one made on another machine than @machine (nullable: none
 * known). */
static NatterDevice *
load_kept (const char  *path,
           const char  *machine,
           GError     **error)
{
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *made_on = NULL;
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GError) local_error = NULL;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &local_error))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "This device has no identity in %s yet: %s", path, local_error->message);
      return NULL;
    }
  made_on = g_key_file_get_string (file, GROUP, "Machine", NULL);
  id = g_key_file_get_string (file, GROUP, "Id", NULL);
  name = g_key_file_get_string (file, GROUP, "Name", NULL);
  if (id == NULL || id[0] == '\0' || name == NULL)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "%s holds no device id and name", path);
      return NULL;
    }
  if (machine != NULL && made_on != NULL && !g_str_equal (machine, made_on))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "%s was made on another machine", path);
      return NULL;
    }
  return natter_device_new (id, name);
}

/**
 * natter_device_load_sync:
 * @data_dir: the data directory
 * @error: return location for a #GError
 *
 * This device's identity as kept in `@data_dir/device` (docs/format.md
 * §4.5), written nowhere: for a process that may not write the data
 * directory (docs/sessions.md §8.3), which reads the identity the
 * writer made. Blocks, as natter_device_load_or_create_sync() does.
 *
 * Returns: (transfer full) (nullable): the device; %NULL with
 *   %NATTER_STORE_ERROR_IO when the file is missing, unreadable, lacks
 *   an id or a name, or was made on another machine: the identity
 *   natter_device_load_or_create_sync() would make anew
 */
NatterDevice *
natter_device_load_sync (GFile   *data_dir,
                         GError **error)
{
  g_autofree char *path = NULL;
  g_autofree char *machine = machine_digest ();

  g_return_val_if_fail (G_IS_FILE (data_dir), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  path = g_build_filename (g_file_peek_path (data_dir), NATTER_DEVICE_FILE_NAME, NULL);
  return load_kept (path, machine, error);
}

/**
 * natter_device_load_or_create_sync:
 * @data_dir: the data directory
 * @error: return location for a #GError
 *
 * This device's identity (docs/format.md §4.5): read from
 * `@data_dir/device`, or made and written there (mode 0600) when the
 * file is missing, unreadable as a key file, or was made on another
 * machine. Only the process that holds the data directory's writer
 * lock may call it (docs/sessions.md §8.3); any other reads the file
 * with natter_device_load_sync(). Blocks: for a worker thread or a
 * command's start.
 *
 * Returns: (transfer full) (nullable): the device; %NULL with
 *   %NATTER_STORE_ERROR_IO when a new identity cannot be written
 */
NatterDevice *
natter_device_load_or_create_sync (GFile   *data_dir,
                                   GError **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *machine = machine_digest ();
  g_autoptr(GKeyFile) file = g_key_file_new ();
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  NatterDevice *kept;

  g_return_val_if_fail (G_IS_FILE (data_dir), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  dir = g_file_get_path (data_dir);
  path = g_build_filename (dir, NATTER_DEVICE_FILE_NAME, NULL);
  kept = load_kept (path, machine, NULL);
  if (kept != NULL)
    return kept;

  /* Whatever else the file holds stays, beside the new identity. */
  g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, NULL);
  id = g_uuid_string_random ();
  name = g_strdup (g_get_host_name ());
  g_key_file_set_string (file, GROUP, "Id", id);
  g_key_file_set_string (file, GROUP, "Name", name);
  if (machine != NULL)
    g_key_file_set_string (file, GROUP, "Machine", machine);
  contents = g_key_file_to_data (file, NULL, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, contents, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0600, &local_error))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_IO,
                   "Cannot write this device's identity to %s: %s", path,
                   local_error != NULL ? local_error->message : g_strerror (errno));
      return NULL;
    }
  return natter_device_new (id, name);
}

/**
 * natter_device_get_id:
 * @self: a device
 *
 * Returns: (transfer none): the device's id
 */
const char *
natter_device_get_id (NatterDevice *self)
{
  g_return_val_if_fail (NATTER_IS_DEVICE (self), NULL);
  return self->id;
}

/**
 * natter_device_get_name:
 * @self: a device
 *
 * Returns: (transfer none): the device's name (its host name when it was
 *   made); text from the system, to be escaped before markup
 */
const char *
natter_device_get_name (NatterDevice *self)
{
  g_return_val_if_fail (NATTER_IS_DEVICE (self), NULL);
  return self->name;
}

/**
 * natter_device_is_this:
 * @self: (nullable): this device, or %NULL where none is known
 * @id: (nullable): the id of the device a turn records
 *
 * Whether a turn that records @id runs here as far as this process can
 * tell: a turn that records no device (every turn written before devices
 * were recorded) and a process that knows no device of its own count as
 * here, as before (docs/format.md §4.5).
 *
 * Returns: %FALSE only when @id names another device
 */
gboolean
natter_device_is_this (NatterDevice *self,
                       const char   *id)
{
  g_return_val_if_fail (self == NULL || NATTER_IS_DEVICE (self), TRUE);

  return self == NULL || id == NULL || g_str_equal (self->id, id);
}

/**
 * natter_device_to_member:
 * @self: a device
 *
 * The value of a turn event's `device` member (docs/format.md §4.5).
 *
 * Returns: (transfer full): `{id, name}`
 */
JsonObject *
natter_device_to_member (NatterDevice *self)
{
  JsonObject *object;

  g_return_val_if_fail (NATTER_IS_DEVICE (self), NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "id", self->id);
  json_object_set_string_member (object, "name", self->name);
  return object;
}

/**
 * natter_device_member_validate:
 * @event: a turn event
 * @error: return location for a #GError
 *
 * Checks the optional `device` member of a turn event (docs/format.md
 * §4.5): absent, or an object with a non-empty string `id` and a string
 * `name`; other members of it are ignored, like those of the event.
 *
 * Returns: %TRUE when valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA
 */
gboolean
natter_device_member_validate (JsonObject  *event,
                               GError     **error)
{
  JsonNode *node;
  JsonObject *device;

  g_return_val_if_fail (event != NULL, FALSE);

  node = json_object_get_member (event, NATTER_DEVICE_MEMBER);
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA, "“device” is not an object");
      return FALSE;
    }
  device = json_node_get_object (node);
  if (natter_json_require_nonempty_string (device, "id", error) == NULL ||
      natter_json_require_string (device, "name", error) == NULL)
    {
      g_prefix_error (error, "“device”: ");
      return FALSE;
    }
  return TRUE;
}
