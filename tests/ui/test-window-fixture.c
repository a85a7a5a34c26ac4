/* test-window-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-window share: the application.
 */

#include "test-window.h"

/* One registered application serves every test, as in the real process. */
NatterApplication *app;
