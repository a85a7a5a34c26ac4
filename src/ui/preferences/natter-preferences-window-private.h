/* natter-preferences-window-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inside the preferences window: the struct its facets share (the
 * window itself and natter-preferences-context-window.c, a row of the
 * General page), the functions the window calls of that facet, and what
 * tests reach: the rows and buttons of its pages (to drive them as a
 * user would) and the last toast it showed.
 */

#pragma once

#include "natter-agents-page.h"
#include "natter-mcp-page.h"
#include "natter-sync-page.h"
#include "natter-preferences-toast.h"
#include "natter-preferences-window.h"
#include "natter-provider-choices.h"
#include "natter-provider-row.h"
#include "natter-providers-page.h"

G_BEGIN_DECLS

struct _NatterPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  NatterServices       *services;
  NatterSettings       *settings;
  GCancellable         *cancellable;
  GCancellable         *models_cancellable;

  /* Template widgets */
  NatterProvidersPage  *providers_page;
  AdwComboRow          *provider_row;
  AdwComboRow          *model_row;
  GtkStack             *model_refresh_stack;
  GtkSpinner           *model_spinner;
  GtkSpinButton        *max_calls_spin;
  GtkSwitch            *auto_permission_switch;
  GtkSwitch            *auto_title_switch;
  GtkSwitch            *auto_compact_switch;
  AdwActionRow         *data_dir_row;
  NatterAgentsPage     *agents_page;
  AdwActionRow         *context_window_row; /* natter-preferences-context-window.c */
  GtkSpinButton        *context_window_spin;

  GPtrArray            *provider_ids;    /* of the provider combo */
  GPtrArray            *model_ids;       /* of the model combo; [0] = "" */

  NatterMcpPage        *mcp_page;        /* weak: the Tool Servers page */
  NatterSyncPage       *sync_page;       /* weak: the Sync page */

  char                 *last_toast;
  AdwToast             *undo_toast;      /* weak */
  guint                 n_pending;
  gboolean              updating_combos;
  gboolean              updating_context_window;
};

/* natter-preferences-context-window.c */
void                     natter_preferences_window_add_context_window_row (NatterPreferencesWindow *self);
void                     natter_preferences_window_sync_context_window    (NatterPreferencesWindow *self);

/* The Tool Servers page (natter-mcp-page.c), shown again */
void                     natter_preferences_window_rebuild_mcp            (NatterPreferencesWindow *self);

/* For tests */

/* The Tool Servers page: with @server, its "row", "switch", "edit",
 * "test" or "remove"; without, the "name" and "target" entries, the
 * "save" button and the call "timeout" spin button. */
GtkWidget   *natter_preferences_window_get_mcp_widget     (NatterPreferencesWindow *self,
                                                            const char              *server,
                                                            const char              *field);

NatterProviderRow *natter_preferences_window_get_provider_row (NatterPreferencesWindow *self,
                                                              const char              *provider_id);
/* @field: "name", "url", "key", "test", "remove", "forget", "expander" */
GtkWidget   *natter_preferences_window_get_provider_widget (NatterPreferencesWindow *self,
                                                            const char              *provider_id,
                                                            const char              *field);
gboolean     natter_preferences_window_get_key_stored     (NatterPreferencesWindow *self,
                                                            const char              *provider_id);
/* @name: "provider", "model", "max-calls", "auto-permission", "auto-title", "auto-compact",
 * "context-window" (the spin button; "context-window-row" its row), "data-dir", "add-provider", "add-agent",
 * "assistant" */
GtkWidget   *natter_preferences_window_get_widget         (NatterPreferencesWindow *self,
                                                            const char              *name);
const char  *natter_preferences_window_get_last_toast     (NatterPreferencesWindow *self);
AdwToast    *natter_preferences_window_get_undo_toast     (NatterPreferencesWindow *self);
guint        natter_preferences_window_get_n_pending      (NatterPreferencesWindow *self);
/* The Sync page's "folder", "status", "device", "ignore", "write" or
 * "patterns" (natter_sync_page_get_widget()). */
GtkWidget   *natter_preferences_window_get_sync_widget    (NatterPreferencesWindow *self,
                                                            const char              *name);
NatterSyncPage *natter_preferences_window_get_sync_page   (NatterPreferencesWindow *self);
/* The agent rows (by id) and their "edit"/"delete" buttons. */
GtkWidget   *natter_preferences_window_get_agent_widget   (NatterPreferencesWindow *self,
                                                            const char              *agent_id,
                                                            const char              *field);
/* The open agent editor: "name", "prompt" (GtkTextView), "model-provider",
 * "model-list" (AdwComboRow of the provider's /models), "model-name" (the
 * AdwEntryRow shown when they cannot be listed), "model-group" (its note
 * is the group's description), "save", "tool:<toolId>" (GtkCheckButton). */
GtkWidget   *natter_preferences_window_get_editor_widget  (NatterPreferencesWindow *self,
                                                            const char              *field);

G_END_DECLS
