/* natter-folder.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One folder of the folder list: its id, which conversations name
 * (`folder_changed`, docs/format.md §3.6), and its name, which its own
 * log keeps (docs/format.md §8). A folder whose log cannot be read is listed with the
 * reason, so that nothing in it goes missing without a word.
 */

#define G_LOG_DOMAIN "natter-folders"

#include "natter-folder-private.h"

struct _NatterFolder
{
  GObject  parent_instance;

  char    *id;
  char    *name;
  char    *error;
};

G_DEFINE_FINAL_TYPE (NatterFolder, natter_folder, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ID,
  PROP_NAME,
  PROP_ERROR,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_folder_finalize (GObject *object)
{
  NatterFolder *self = NATTER_FOLDER (object);

  g_free (self->id);
  g_free (self->name);
  g_free (self->error);

  G_OBJECT_CLASS (natter_folder_parent_class)->finalize (object);
}

static void
natter_folder_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  NatterFolder *self = NATTER_FOLDER (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_ERROR:
      g_value_set_string (value, self->error);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_folder_class_init (NatterFolderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_folder_finalize;
  object_class->get_property = natter_folder_get_property;

  /**
   * NatterFolder:id:
   *
   * The folder's id (`folderId`). Never changes.
   */
  properties[PROP_ID] =
    g_param_spec_string ("id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /**
   * NatterFolder:name:
   *
   * What the folder is called: the `name` of its log's last event. %NULL
   * when the log cannot be read.
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * NatterFolder:error:
   *
   * Why the folder's log cannot be read, or %NULL.
   */
  properties[PROP_ERROR] =
    g_param_spec_string ("error", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_folder_init (NatterFolder *self)
{
}

NatterFolder *
natter_folder_new (const char *folder_id,
                   const char *name,
                   const char *error)
{
  NatterFolder *self;

  g_return_val_if_fail (folder_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_FOLDER, NULL);
  self->id = g_strdup (folder_id);
  self->name = g_strdup (name);
  self->error = g_strdup (error);
  return self;
}

void
natter_folder_set_name (NatterFolder *self,
                        const char   *name)
{
  g_return_if_fail (NATTER_IS_FOLDER (self));

  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

/**
 * natter_folder_get_id:
 * @self: a folder
 *
 * Returns: (transfer none): the folder's id
 */
const char *
natter_folder_get_id (NatterFolder *self)
{
  g_return_val_if_fail (NATTER_IS_FOLDER (self), NULL);
  return self->id;
}

/**
 * natter_folder_get_name:
 * @self: a folder
 *
 * Returns: (transfer none) (nullable): its name; %NULL when its log
 *   cannot be read (natter_folder_get_error())
 */
const char *
natter_folder_get_name (NatterFolder *self)
{
  g_return_val_if_fail (NATTER_IS_FOLDER (self), NULL);
  return self->name;
}

/**
 * natter_folder_get_error:
 * @self: a folder
 *
 * Returns: (transfer none) (nullable): why its log cannot be read
 *   (`<path>:<line>: <reason>`), or %NULL
 */
const char *
natter_folder_get_error (NatterFolder *self)
{
  g_return_val_if_fail (NATTER_IS_FOLDER (self), NULL);
  return self->error;
}
