/* natter-voice-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "natter-voice-error.h"

G_DEFINE_QUARK (natter-voice-error-quark, natter_voice_error)
