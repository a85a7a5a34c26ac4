/* natter-window.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-agent-store.h"
#include "natter-blob-store.h"
#include "natter-draft-store.h"
#include "natter-application.h"
#include "natter-folders.h"
#include "natter-provider-registry.h"
#include "natter-search-index.h"
#include "natter-sessions.h"
#include "natter-timeline-model.h"
#include "natter-turn-event-hub.h"

G_BEGIN_DECLS

/**
 * NATTER_WINDOW_DEFAULT_AGENT_ID:
 *
 * The agent new messages are sent to unless natter_window_set_agent_id()
 * says otherwise: the built-in assistant.
 */
#define NATTER_WINDOW_DEFAULT_AGENT_ID "assistant"

#define NATTER_TYPE_WINDOW (natter_window_get_type ())

G_DECLARE_FINAL_TYPE (NatterWindow, natter_window, NATTER, WINDOW, AdwApplicationWindow)

NatterWindow        *natter_window_new                    (NatterApplication  *application,
                                                           NatterSessions     *sessions,
                                                           NatterTurnEventHub *hub);
void                 natter_window_set_draft_store        (NatterWindow       *self,
                                                           NatterDraftStore   *store);
void                 natter_window_set_blob_store         (NatterWindow       *self,
                                                           NatterBlobStore    *blobs);
NatterBlobStore     *natter_window_get_blob_store         (NatterWindow       *self);
void                 natter_window_set_search_index       (NatterWindow       *self,
                                                           NatterSearchIndex  *search);
void                 natter_window_set_agent_id           (NatterWindow       *self,
                                                           const char         *agent_id);
void                 natter_window_set_agent_store        (NatterWindow       *self,
                                                           NatterAgentStore   *store);
gboolean             natter_window_open_session           (NatterWindow       *self,
                                                           const char         *session_id);
gboolean             natter_window_open_session_at        (NatterWindow       *self,
                                                           const char         *session_id,
                                                           const char         *turn_id);
gboolean             natter_window_open_session_when_read (NatterWindow       *self,
                                                           const char         *session_id);
const char          *natter_window_get_opening_session_id (NatterWindow       *self);
void                 natter_window_set_model_provider     (NatterWindow           *self,
                                                           NatterProviderRegistry *registry,
                                                           const char             *provider_id,
                                                           const char             *default_model);
const char          *natter_window_get_session_id         (NatterWindow       *self);
void                 natter_window_report_error           (NatterWindow       *self,
                                                           const char         *heading,
                                                           const GError       *error);
GListModel          *natter_window_get_sidebar_model      (NatterWindow       *self);
void                 natter_window_set_folders            (NatterWindow       *self,
                                                           NatterFolders      *folders);
NatterFolders       *natter_window_get_folders            (NatterWindow       *self);
void                 natter_window_create_folder          (NatterWindow       *self,
                                                           const char         *name,
                                                           const char         *session_id);
NatterTimelineModel *natter_window_get_timeline           (NatterWindow       *self);

G_END_DECLS
