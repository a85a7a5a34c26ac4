/* natter-dictation.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recording made text by the provider's transcription model
 * (docs/runtime.md §14), for the composer's microphone and `natter
 * transcribe`.
 */

#pragma once

#include <gio/gio.h>

#include "natter-provider-registry.h"
#include "natter-settings.h"

G_BEGIN_DECLS

void  natter_dictation_transcribe_async  (NatterSettings       *settings,
                                          NatterProviderRegistry *registry,
                                          const char           *provider,
                                          GBytes               *wav,
                                          GCancellable         *cancellable,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
char *natter_dictation_transcribe_finish (GAsyncResult         *result,
                                          GError              **error);

G_END_DECLS
