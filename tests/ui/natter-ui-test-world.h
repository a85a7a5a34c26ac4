/* natter-ui-test-world.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window tests share, compiled once into the natter-ui-test
 * library that every test of tests/ui links, one file a purpose; the
 * sections below follow them, each file calling only those listed
 * before it:
 *
 *   natter-ui-test-log.c          the log writer that fails a test on a
 *                                 markup warning
 *   natter-ui-test-init.c         the process's start: GTK, libadwaita,
 *                                 the bus, the application
 *   natter-ui-test-wait.c         main-loop waiting without sleeps
 *   natter-ui-test-world.c        a session service over a temp data
 *                                 directory with the fake model and tools,
 *                                 and its "restart" (a new index and
 *                                 service over the same directory)
 *   natter-ui-test-sessions.c     generating sessions and turns, reading
 *                                 them back, the full-text index
 *   natter-ui-test-find.c         finding widgets
 *   natter-ui-test-window.c       the main window and its dialogs
 *   natter-ui-test-preferences.c  the Preferences window
 *   natter-ui-test-screenshot.c   screenshots
 *
 * Each function says what it does at its definition.
 */

#pragma once

#include <adwaita.h>

#include "natter-folders.h"
#include "natter-permissions-list.h"
#include "natter-preferences-window.h"
#include "natter-search-index.h"
#include "natter-sessions-private.h"
#include "natter-session-row.h"
#include "natter-settings.h"
#include "natter-test-fakes.h"
#include "natter-cli.h"
#include "natter-window.h"

G_BEGIN_DECLS

typedef struct
{
  NatterTestWorld    *w;
  NatterSessionIndex *index;
  NatterSessions     *sessions;
  NatterSettings     *settings;   /* the installed ones, as the window's */
} UiWorld;

typedef gboolean (*UiCondition) (gpointer data);

/* Says what a condition saw when it did not hold (transfer full). */
typedef char *(*UiDescribe) (gpointer data);

/* Whether ui_find_first_full() takes @widget. */
typedef gboolean (*UiWidgetMatch) (GtkWidget *widget);

/* Presses Tab in @window, for ui_tab_cycle(). */
typedef void (*UiTab) (gpointer window);

/* The log writer (natter-ui-test-log.c), which ui_test_init() installs */

GLogWriterOutput   ui_log_writer          (GLogLevelFlags      log_level,
                                           const GLogField    *fields,
                                           gsize               n_fields,
                                           gpointer            user_data);

/* Start-up (natter-ui-test-init.c) */

void               ui_test_init           (int                *argc,
                                           char             ***argv);
NatterApplication *ui_test_init_with_app  (int                *argc,
                                           char             ***argv);
NatterApplication *ui_app_new             (void);

/* Waiting on the main loop (natter-ui-test-wait.c) */

guint              ui_slowdown            (void);
void               ui_wait_until_at       (UiCondition         condition,
                                           UiDescribe          describe,
                                           gpointer            data,
                                           const char         *condition_name,
                                           const char         *location);
/* A wait that times out names the condition and where it was waited
 * for: a failure seen once on a loaded machine must say which wait. */
#define ui_wait_until_full(condition, describe, ...) \
  ui_wait_until_at ((condition), (describe), (__VA_ARGS__), #condition, G_STRLOC)
#define ui_wait_until(condition, ...) \
  ui_wait_until_at ((condition), NULL, (__VA_ARGS__), #condition, G_STRLOC)
void               ui_settle              (void);
gboolean           ui_result_ready        (gpointer            data);
void               ui_result_cb           (GObject            *source,
                                           GAsyncResult       *result,
                                           gpointer            user_data);
GAsyncResult      *ui_wait_result         (GAsyncResult      **result);
gboolean           ui_is_true             (gpointer            data);
gboolean           ui_is_mapped           (gpointer            data);
void               ui_wait_painted        (void);

/* The session service over a temp data directory (natter-ui-test-world.c) */

UiWorld           *ui_world_new           (void);
void               ui_world_free          (UiWorld            *u);
void               ui_world_start_service (UiWorld            *u);
void               ui_world_stop_service  (UiWorld            *u);
void               ui_world_restart       (UiWorld            *u);
gboolean           ui_no_advances         (gpointer            data);

/* Its conversations (natter-ui-test-sessions.c) */

void               ui_wait_model_held     (UiWorld            *u);
char              *ui_create_session      (UiWorld            *u,
                                           const char         *title);
void               ui_set_title           (UiWorld            *u,
                                           const char         *session_id,
                                           const char         *title);
void               ui_set_pinned          (UiWorld            *u,
                                           const char         *session_id,
                                           gboolean            pinned);
void               ui_set_folder          (UiWorld            *u,
                                           const char         *session_id,
                                           const char         *folder_id);
NatterFolders     *ui_folders_new         (UiWorld            *u);
char              *ui_create_folder       (NatterFolders      *folders,
                                           const char         *name);
void               ui_set_temperature     (UiWorld            *u,
                                           const char         *session_id,
                                           double              temperature);
char              *ui_send_with_model     (UiWorld            *u,
                                           const char         *session_id,
                                           const char         *text,
                                           const char         *provider,
                                           const char         *model);
char              *ui_send_with_files     (UiWorld            *u,
                                           NatterBlobStore    *blobs,
                                           const char         *session_id,
                                           const char         *text,
                                           JsonArray         **out_parts,
                                           GFile              *first_file,
                                           ...) G_GNUC_NULL_TERMINATED;
char              *ui_send                (UiWorld            *u,
                                           const char         *session_id,
                                           const char         *text);
GFile             *ui_send_two_exchanges  (UiWorld            *u,
                                           const char         *sid);
void               ui_wait_turn           (UiWorld            *u,
                                           const char         *turn_id);
void               ui_wait_turn_event     (UiWorld            *u,
                                           const char         *turn_id,
                                           const char         *type,
                                           const char         *tool_call_id);
GPtrArray         *ui_get_turn            (UiWorld            *u,
                                           const char         *turn_id);
NatterSessionState *ui_get_session        (UiWorld            *u,
                                           const char         *session_id);
JsonObject        *ui_find_event          (GPtrArray          *events,
                                           const char         *type,
                                           const char         *tool_call_id);
char              *ui_read_file           (GFile              *file);
char              *ui_make_interrupted    (UiWorld            *u,
                                           const char         *session_id,
                                           const char         *text,
                                           char              **turn_file);
NatterSearchIndex *ui_search_index_start  (UiWorld            *u);
void               ui_search_index_drop   (NatterSearchIndex  *search);

/* Widgets (natter-ui-test-find.c) */

GPtrArray         *ui_find_all            (gpointer            root,
                                           GType               type);
GtkWidget         *ui_find_first_full     (gpointer            root,
                                           GType               type,
                                           UiWidgetMatch       match);
GtkWidget         *ui_find_first          (gpointer            root,
                                           GType               type);
gboolean           ui_label_shown         (gpointer            root,
                                           const char         *text);
void               ui_wait_label          (gpointer            root,
                                           const char         *text);
GtkWidget         *ui_find_button         (gpointer            root,
                                           const char         *label);
void               ui_assert_named_as_shown (GtkWidget        *button,
                                           const char         *name);
GtkWidget         *ui_list_item_of        (GtkWidget          *widget);
GtkWindow         *ui_find_toplevel       (GType               type);
gboolean           ui_toplevel_shown      (gpointer            type);
gboolean           ui_toplevel_gone       (gpointer            type);
gboolean           ui_menu_has_action     (GMenuModel         *model,
                                           const char         *action);
gboolean           ui_menu_item_has_target (GMenuModel        *model,
                                            const char        *action,
                                            GVariant          *target);
GtkShortcut       *ui_find_shortcut       (GtkWidget          *widget,
                                           guint               keyval);
void               ui_press_enter         (GtkWidget          *entry);
void               ui_click               (GtkWidget          *widget);
gboolean           ui_no_button_activating (gpointer           dialog);
void               ui_move_focus          (gpointer            window,
                                           GtkDirectionType    direction);
GPtrArray         *ui_tab_cycle           (gpointer            window,
                                           UiTab               tab);
GPtrArray         *ui_tab_cycle_from_focus (gpointer           window,
                                           UiTab               tab);
void               ui_assert_tab_stops_named (GPtrArray       *cycle,
                                           const char         *where);

/* The main window and its dialogs (natter-ui-test-window.c) */

NatterWindow      *ui_window_new          (NatterApplication  *app,
                                           UiWorld            *u);
gboolean           ui_timeline_loaded     (gpointer            data);
void               ui_wait_turn_read      (NatterWindow       *window,
                                           const char         *turn_id);
GtkEditable       *ui_open_search         (NatterWindow       *window);
gboolean           ui_error_bar_shown     (gpointer            window);
gboolean           ui_error_bar_hidden    (gpointer            window);
gboolean           ui_no_toasts           (gpointer            window);
void               ui_wait_toasts_settled (gpointer            window);
void               ui_click_toast_button  (gpointer            window,
                                           const char         *label);
NatterSessionRow  *ui_find_session_row    (NatterWindow       *window,
                                           const char         *session_id);
NatterPermissionsList *ui_find_permissions_list (void);
gboolean           ui_permissions_list_shows (gpointer n_grants);
void               ui_destroy_window      (NatterWindow       *window);

/* The Preferences window (natter-ui-test-preferences.c) */

void               ui_wait_preferences_idle (NatterPreferencesWindow *window);
void               ui_destroy_preferences_window (NatterPreferencesWindow *window);

/* Screenshots (natter-ui-test-screenshot.c) */

char              *ui_screenshot_path     (const char         *name);
void               ui_publish_screenshot  (const char         *name,
                                           const char         *to);
void               ui_save_window         (GtkWidget          *window,
                                           const char         *name);
gboolean           ui_can_save_screen     (void);
gboolean           ui_save_screen         (const char         *name);

G_END_DECLS
