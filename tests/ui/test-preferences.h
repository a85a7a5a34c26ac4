/* test-preferences.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the files of test-preferences share (test-preferences-fixture.c):
 * the fixture, a Preferences window over NatterServices built on a temp
 * data dir, a temp NATTER_CONFIG_DIR, a fresh memory GSettings backend
 * and the memory secret store, with a localhost SoupServer that plays a
 * provider's `GET /models`; and finding a page's widgets.
 */

#pragma once

#include <string.h>

#include <adwaita.h>
#include <libsoup/soup.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "config.h"
#include "natter-memory-secret-store.h"
#include "natter-models-dialog.h"
#include "natter-preferences-window-private.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"

#define KEY "sk-prefs-SECRET-9"

typedef struct
{
  NatterTestServer        *models;  /* the local server's /models; records each request's key */
  char                    *url;
  char                    *down_url;
  GFile                   *data_dir;
  GFile                   *config_dir;
  GSettings               *settings;
  NatterMemorySecretStore *secrets;
  NatterServices          *services;
  NatterPreferencesWindow *window;
} Fixture;

G_BEGIN_DECLS

/* test-preferences-fixture.c */

void
fixture_set_up (Fixture       *f,
                gconstpointer  data);

void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data);

GtkWidget *
provider_widget (Fixture    *f,
                 const char *id,
                 const char *field);

void
apply_text (GtkWidget  *entry,
            const char *text);

GtkWidget *
editor_widget (Fixture    *f,
               const char *field);

void
save_screenshot (Fixture    *f,
                 const char *name);

/* The scenarios in the files beside test-preferences.c */
/* test-preferences-providers.c */
void test_provider_edit (Fixture *f, gconstpointer data);
void test_api_key (Fixture *f, gconstpointer data);
void test_connection_test (Fixture *f, gconstpointer data);
void test_manage_models (Fixture *f, gconstpointer data);
void test_remove_undo_add (Fixture *f, gconstpointer data);
void test_remove_default (Fixture *f, gconstpointer data);
void test_first_provider_default (Fixture *f, gconstpointer data);
void test_added_provider_keeps_choice (Fixture *f, gconstpointer data);
/* test-preferences-general.c */
void test_default_model (Fixture *f, gconstpointer data);
void test_limit_and_switch (Fixture *f, gconstpointer data);
void test_auto_title_switch (Fixture *f, gconstpointer data);
void test_auto_compact_switch (Fixture *f, gconstpointer data);
void test_context_window (Fixture *f, gconstpointer data);
void test_model_name_whole (Fixture *f, gconstpointer data);
/* test-preferences-agents.c */
void test_agents (Fixture *f, gconstpointer data);
void test_tab_stops_named (Fixture *f, gconstpointer data);
void test_agent_model_picker (Fixture *f, gconstpointer data);

G_END_DECLS
