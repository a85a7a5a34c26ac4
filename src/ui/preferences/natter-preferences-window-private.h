/* natter-preferences-window-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What tests reach inside the preferences window: its rows and buttons
 * (to drive them as a user would) and the last toast it showed.
 */

#pragma once

#include "natter-preferences-window.h"

G_BEGIN_DECLS

/* @field: "name", "url", "key", "test", "remove", "forget", "expander" */
GtkWidget   *natter_preferences_window_get_provider_widget (NatterPreferencesWindow *self,
                                                            const char              *provider_id,
                                                            const char              *field);
gboolean     natter_preferences_window_get_key_stored     (NatterPreferencesWindow *self,
                                                            const char              *provider_id);
/* @name: "provider", "model", "max-calls", "auto-permission", "data-dir",
 * "add-provider", "add-agent", "assistant" */
GtkWidget   *natter_preferences_window_get_widget         (NatterPreferencesWindow *self,
                                                            const char              *name);
const char  *natter_preferences_window_get_last_toast     (NatterPreferencesWindow *self);
AdwToast    *natter_preferences_window_get_undo_toast     (NatterPreferencesWindow *self);
guint        natter_preferences_window_get_n_pending      (NatterPreferencesWindow *self);
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
