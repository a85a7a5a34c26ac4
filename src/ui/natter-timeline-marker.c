/* natter-timeline-marker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rows of a branched session's timeline that are not turns: the
 * "Branched from" separator below each ancestor's inherited turns, and
 * the error that ends the walk up the ancestors when one cannot be read
 * (see natter-timeline-model.c).
 */

#define G_LOG_DOMAIN "natter-timeline-model"

#include "config.h"

#include "natter-timeline-marker.h"

struct _NatterTimelineMarker
{
  GObject                  parent_instance;

  NatterTimelineMarkerKind kind;
  char                    *session_id;
  char                    *title;
  char                    *error;
};

G_DEFINE_FINAL_TYPE (NatterTimelineMarker, natter_timeline_marker, G_TYPE_OBJECT)

enum
{
  MARKER_PROP_0,
  MARKER_PROP_TITLE,
  N_MARKER_PROPS
};

static GParamSpec *marker_properties[N_MARKER_PROPS];

static void
natter_timeline_marker_finalize (GObject *object)
{
  NatterTimelineMarker *self = NATTER_TIMELINE_MARKER (object);

  g_free (self->session_id);
  g_free (self->title);
  g_free (self->error);

  G_OBJECT_CLASS (natter_timeline_marker_parent_class)->finalize (object);
}

static void
natter_timeline_marker_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  NatterTimelineMarker *self = NATTER_TIMELINE_MARKER (object);

  switch (prop_id)
    {
    case MARKER_PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_timeline_marker_class_init (NatterTimelineMarkerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_timeline_marker_finalize;
  object_class->get_property = natter_timeline_marker_get_property;

  /**
   * NatterTimelineMarker:title:
   *
   * The title of the session a branch was made from: notified when that
   * session is renamed while the timeline lives.
   */
  marker_properties[MARKER_PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_MARKER_PROPS, marker_properties);
}

static void
natter_timeline_marker_init (NatterTimelineMarker *self)
{
}

/**
 * natter_timeline_marker_new:
 * @kind: what the marker says
 * @session_id: (nullable): for %NATTER_TIMELINE_MARKER_BRANCHED, the
 *   session the turns above it belong to
 * @title: (nullable): that session's title
 * @error: (nullable): for %NATTER_TIMELINE_MARKER_ERROR, a translated
 *   sentence saying why the earlier history is not shown; for
 *   %NATTER_TIMELINE_MARKER_NOTE, the sentence saying where it comes from
 *
 * Returns: (transfer full): a new marker row for a branched timeline
 */
NatterTimelineMarker *
natter_timeline_marker_new (NatterTimelineMarkerKind  kind,
                            const char               *session_id,
                            const char               *title,
                            const char               *error)
{
  NatterTimelineMarker *self = g_object_new (NATTER_TYPE_TIMELINE_MARKER, NULL);

  self->kind = kind;
  self->session_id = g_strdup (session_id);
  self->title = g_strdup (title);
  self->error = g_strdup (error);
  return self;
}

/**
 * natter_timeline_marker_get_kind:
 * @self: a marker
 *
 * Returns: whether @self is the "Branched from" separator or an error
 *   about the inherited history
 */
NatterTimelineMarkerKind
natter_timeline_marker_get_kind (NatterTimelineMarker *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MARKER (self), NATTER_TIMELINE_MARKER_ERROR);
  return self->kind;
}

/**
 * natter_timeline_marker_get_session_id:
 * @self: a marker
 *
 * Returns: (nullable): for %NATTER_TIMELINE_MARKER_BRANCHED, the session
 *   the turns above it belong to
 */
const char *
natter_timeline_marker_get_session_id (NatterTimelineMarker *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MARKER (self), NULL);
  return self->session_id;
}

/**
 * natter_timeline_marker_get_title:
 * @self: a marker
 *
 * Returns: (nullable): that session's title, kept up to date while the
 *   timeline lives (%NULL or empty when it has none)
 */
const char *
natter_timeline_marker_get_title (NatterTimelineMarker *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MARKER (self), NULL);
  return self->title;
}

/**
 * natter_timeline_marker_get_error:
 * @self: a marker
 *
 * Returns: (nullable): for %NATTER_TIMELINE_MARKER_ERROR, a translated
 *   sentence saying why the earlier history is not shown; for
 *   %NATTER_TIMELINE_MARKER_NOTE, the sentence of the note
 */
const char *
natter_timeline_marker_get_error (NatterTimelineMarker *self)
{
  g_return_val_if_fail (NATTER_IS_TIMELINE_MARKER (self), NULL);
  return self->error;
}

/**
 * natter_timeline_marker_set_title:
 * @self: a marker
 * @title: (nullable): the branched-from session's title now
 *
 * Keeps the title up to date when that session is renamed while the
 * timeline lives, notifying #NatterTimelineMarker:title when it changes.
 */
void
natter_timeline_marker_set_title (NatterTimelineMarker *self,
                                  const char           *title)
{
  g_return_if_fail (NATTER_IS_TIMELINE_MARKER (self));

  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), marker_properties[MARKER_PROP_TITLE]);
}
