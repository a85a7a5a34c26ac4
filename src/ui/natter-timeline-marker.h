/* natter-timeline-marker.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/**
 * NatterTimelineMarkerKind:
 * @NATTER_TIMELINE_MARKER_BRANCHED: the inherited turns above were
 *   branched from, in the session the marker names
 * @NATTER_TIMELINE_MARKER_ERROR: the inherited history could not be read
 *   (any further back); the marker carries the reason
 * @NATTER_TIMELINE_MARKER_NOTE: the inherited turns below come from a
 *   conversation that was deleted; the marker carries the sentence
 *
 * What a non-turn row of a branched session's timeline says.
 */
typedef enum
{
  NATTER_TIMELINE_MARKER_BRANCHED,
  NATTER_TIMELINE_MARKER_ERROR,
  NATTER_TIMELINE_MARKER_NOTE,
} NatterTimelineMarkerKind;

#define NATTER_TYPE_TIMELINE_MARKER (natter_timeline_marker_get_type ())

G_DECLARE_FINAL_TYPE (NatterTimelineMarker, natter_timeline_marker, NATTER, TIMELINE_MARKER, GObject)

NatterTimelineMarkerKind natter_timeline_marker_get_kind       (NatterTimelineMarker *self);
const char              *natter_timeline_marker_get_session_id (NatterTimelineMarker *self);
const char              *natter_timeline_marker_get_title      (NatterTimelineMarker *self);
const char              *natter_timeline_marker_get_error      (NatterTimelineMarker *self);

NatterTimelineMarker    *natter_timeline_marker_new            (NatterTimelineMarkerKind  kind,
                                                                const char               *session_id,
                                                                const char               *title,
                                                                const char               *error);
void                     natter_timeline_marker_set_title      (NatterTimelineMarker     *self,
                                                                const char               *title);

G_END_DECLS
