/* natter-device.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_DEVICE_MEMBER:
 *
 * The member of a turn event that says which device runs the turn from
 * that event on: `{id, name}` (docs/format.md §4.5).
 */
#define NATTER_DEVICE_MEMBER "device"

/**
 * NATTER_DEVICE_FILE_NAME:
 *
 * The file at the top of the data directory that holds this device's
 * identity (docs/format.md §4.5). It is never synchronised.
 */
#define NATTER_DEVICE_FILE_NAME "device"

#define NATTER_TYPE_DEVICE (natter_device_get_type ())

G_DECLARE_FINAL_TYPE (NatterDevice, natter_device, NATTER, DEVICE, GObject)

NatterDevice *natter_device_new                (const char    *id,
                                                const char    *name);
NatterDevice *natter_device_load_sync          (GFile        *data_dir,
                                                 GError      **error);
NatterDevice *natter_device_load_or_create_sync (GFile        *data_dir,
                                                 GError      **error);
const char   *natter_device_get_id             (NatterDevice  *self);
const char   *natter_device_get_name           (NatterDevice  *self);
JsonObject   *natter_device_to_member          (NatterDevice  *self);
gboolean      natter_device_is_this            (NatterDevice  *self,
                                                const char    *id);

gboolean      natter_device_member_validate    (JsonObject    *event,
                                                GError       **error);

G_END_DECLS
