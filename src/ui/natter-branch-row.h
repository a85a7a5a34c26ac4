/* natter-branch-row.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-timeline-model.h"

G_BEGIN_DECLS

#define NATTER_TYPE_BRANCH_ROW (natter_branch_row_get_type ())

G_DECLARE_FINAL_TYPE (NatterBranchRow, natter_branch_row, NATTER, BRANCH_ROW, GtkWidget)

GtkWidget            *natter_branch_row_new        (void);
void                  natter_branch_row_set_marker (NatterBranchRow      *self,
                                                    NatterTimelineMarker *marker);
NatterTimelineMarker *natter_branch_row_get_marker (NatterBranchRow      *self);

G_END_DECLS
