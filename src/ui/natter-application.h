/* natter-application.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-command-line.h"
#include "natter-services.h"

G_BEGIN_DECLS

#define NATTER_TYPE_APPLICATION (natter_application_get_type ())

G_DECLARE_FINAL_TYPE (NatterApplication, natter_application, NATTER, APPLICATION, AdwApplication)

NatterApplication *natter_application_new               (const NatterCommands *commands);
NatterApplication *natter_application_new_beside_command (const NatterCommands *commands);
gboolean           natter_application_primary_is_command (void);
NatterServices    *natter_application_get_services      (NatterApplication *self);
const GError      *natter_application_get_startup_error (NatterApplication *self);
void               natter_application_refuse_data_dir   (NatterApplication *self,
                                                         GFile             *theirs);

G_END_DECLS
