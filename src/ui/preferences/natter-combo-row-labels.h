/* natter-combo-row-labels.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

void natter_combo_row_show_whole_names (AdwComboRow *row);

G_END_DECLS
