/* natter-cli-locale.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

const char *natter_cli_gettext      (GApplicationCommandLine *cmdline,
                                     const char              *msgid) G_GNUC_FORMAT (2);
const char *natter_cli_ngettext     (GApplicationCommandLine *cmdline,
                                     const char              *msgid,
                                     const char              *msgid_plural,
                                     gulong                   n) G_GNUC_FORMAT (3);
char       *natter_cli_error_words  (GApplicationCommandLine *cmdline,
                                     const char              *message);
gpointer    natter_cli_locale_enter (GApplicationCommandLine *cmdline);
void        natter_cli_locale_leave (gpointer                 previous);

G_END_DECLS
