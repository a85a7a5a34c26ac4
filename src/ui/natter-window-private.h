/* natter-window-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window's shared state, split by facet the way GNOME Text
 * Editor splits its window: natter-window.c (lifetime and the public API
 * that sets the window up), -opening.c (the open conversation: opening
 * one, at once or once its latest turns are read, a new one, closing
 * it), -sidebar.c (the window's side of its #NatterSidebar: picking,
 * deleting, going to a conversation), -search.c (a search result opened
 * at its turn), -choice.c (the composer's state, which agent and model
 * the next message goes to), -conversation.c (sending it), -versions.c
 * and -editing.c (a message's versions, and Edit), -actions.c (the
 * win.* actions), -keyboard.c (tab stops and focus), -errors.c (the
 * error bar and the damaged-conversation page), -recovery.c (its
 * readable part copied), -voice.c (Read Aloud and dictation) and
 * -menus.c (the menus that pin a conversation and move it to a folder). Each facet installs its own actions and
 * template callbacks from natter_window_class_init(); the order in
 * which they call each other is the order of their functions below.
 *
 * The getters at the end are test seams.
 */

#pragma once

#include "natter-agent-chooser.h"
#include "natter-composer.h"
#include "natter-model-picker.h"
#include "natter-queue-view.h"
#include "natter-recorder.h"
#include "natter-session-row.h"
#include "natter-send-pipeline.h"
#include "natter-services.h"
#include "natter-settings.h"
#include "natter-conversation-view.h"
#include "natter-sidebar.h"
#include "natter-speech.h"
#include "natter-window.h"

G_BEGIN_DECLS

/* What a new conversation's draft, model and agent are kept under
 * before it has a session id: no id is ever "". */
#define NATTER_WINDOW_NEW_CHAT_KEY ""

/* Each facet keeps its state in a struct of its own, named by the file
 * that owns it; the window's struct holds one of each. Other facets still
 * read the open conversation's id and parts (self->conversation). */

/* natter-window-sidebar.c and -actions.c: deleting with undo */
typedef struct
{
  NatterTimeTicker     *ticker;           /* the sidebar rows' minutes */
  GHashTable           *pending_deletes;  /* session id → AdwToast */
  char                 *last_deleted_id;  /* what Ctrl+Z undoes first */
} NatterWindowSidebar;

/* natter-window-folders.c */
typedef struct
{
  NatterFolders        *store;            /* nullable: no folders */
  GMenu                *menu;             /* Move to Folder's items, for the open conversation */
  GMenu                *section;          /* Pin or Unpin, and Move to Folder, in its menu */
  GMenuItem            *rename_item;      /* its Rename…, there only when it can be renamed */
  /* The deleted folder whose toast still offers its undo, for Ctrl+Z */
  AdwToast             *undo_toast;       /* nullable */
  GVariant             *undo_target;      /* (ss): its id and name */
  gboolean              deleted_last;     /* deleted after any conversation */
} NatterWindowFolders;

/* natter-window-conversation.c: the agent and the model the next
 * message goes to. */
typedef struct
{
  char                 *agent_id;
  /* The agent chooser: the composer's; what was picked per session
   * while the app runs, like drafts. */
  NatterAgentChooser   *agent_chooser;
  GHashTable           *chosen_agents;    /* session id → agent id */
  gboolean              applying_agent;
  char                 *last_agent_toast;
  GHashTable           *chosen_models;    /* session id → {provider, model?} */
  /* A new version's conversation has no turn of its own until its first
   * message: it goes on with the last model of the one it was made from. */
  GHashTable           *branch_models;    /* session id → {provider, model?} */
  /* The model picker: the registry it resolves providers in,
   * the default {provider, model}, and the provider it was last given. */
  NatterModelPicker    *model_picker;     /* template child */
  NatterProviderRegistry *registry;
  char                 *provider_id;
  char                 *default_model;
  char                 *listed_provider;
  /* A provider's first model, as the send path resolves it, once known:
   * what the picker shows when no model is named (provider id → model). */
  GHashTable           *first_models;
  GCancellable         *first_model_cancellable;
  char                 *resolving_provider;
  /* The {provider, model?} last picked or sent with here, which a new
   * conversation goes on with while Preferences name no default. */
  JsonObject           *recent;           /* nullable */
  /* The same as an earlier run left it (the settings' `recent-model`),
   * and when it was picked: it stands in for @recent until this run
   * picks or sends, if no conversation was active after it. */
  JsonObject           *remembered;       /* nullable */
  char                 *remembered_at;    /* nullable */
} NatterWindowChoice;

/* natter-window.c and -conversation.c: the open conversation */
typedef struct
{
  char                 *session_id;
  /* A new conversation being written: no session exists until its first
   * message is sent (natter-send-pipeline.c makes it then); its draft,
   * model and agent are kept under NATTER_WINDOW_NEW_CHAT_KEY. */
  gboolean              new_chat;
  NatterSessionIndexEntry *entry;
  NatterTimelineModel  *timeline;
  GHashTable           *timelines;        /* session id → NatterTimelineModel */
  gboolean              sending;
  gboolean              restored;
  char                 *open_when_loaded; /* natter_window_open_session() before the scan ended */
  GHashTable           *drafts;           /* session id → char* */
  GHashTable           *draft_attachments; /* session id → GPtrArray of NatterAttachmentSource */
  GHashTable           *draft_edits;      /* session id → char*: the turn whose message the draft edits */
  /* The message field holds the open conversation's draft: it was put
   * there when the conversation showed (_natter_window_restore_draft()).
   * A conversation that cannot be read shows no field, and its draft
   * stays where it is kept. */
  gboolean              draft_in_field;
  /* What Copy Readable Part left out of a copy, said above the copy's
   * message field until a message is sent there (natter-window-recovery.c):
   * it goes where the draft goes (_natter_window_move_draft()). */
  GHashTable           *recovery_notes;   /* session id → char* */
  /* The conversation view (a template child) and its parts the facets
   * work with, looked up once. */
  NatterConversationView *view;
  GtkListView          *timeline_list;
  NatterComposer       *composer;
  NatterQueueView      *queue_view;
} NatterWindowConversation;

/* natter-window-opening.c: a conversation the user picked, shown once
 * its latest turns are read; the timeline and the turns being read. */
typedef struct
{
  char                 *id;
  NatterTimelineModel  *timeline;
  GPtrArray            *items;
  guint                 timeout_id;
  guint                 wait_ms;
} NatterWindowOpening;

/* natter-window-queue.c: the queue's read, waiting for the first frame
 * of the conversation. */
typedef struct
{
  GdkFrameClock        *clock;
  gulong                paint_handler;
} NatterWindowQueue;

/* natter-window.c: answers being stopped before the window closes, and
 * words that cannot be kept */
typedef struct
{
  GtkWindow            *stop_dialog;      /* weak; "Stop the Answer?" while it asks */
  guint                 stops;
  gboolean              failed;
  gboolean              losing_words;     /* the person chose to close without words that cannot be kept */
} NatterWindowClosing;

/* natter-window-keyboard.c */
typedef struct
{
  GtkWindow            *help_overlay;     /* weak; only while it shows */
  gboolean              focus_in_timeline;
  /* The focus went from the timeline into the composer and has stayed
   * in it: Tab there goes on round the window, not back to a prompt. */
  gboolean              composer_from_timeline;
  guint                 refocus_id;
} NatterWindowKeyboard;

/* natter-window-errors.c: the error bar and the damaged-conversation page */
typedef struct
{
  GtkRevealer          *revealer;         /* template children */
  GtkLabel             *heading;
  GtkLabel             *detail;
  GtkButton            *action_button;
  AdwStatusPage        *errored_page;
  GtkButton            *copy_readable_button;
  /* The damaged message's words on that page, when they read */
  GtkWidget            *damaged_message_box;
  GtkLabel             *damaged_message_heading;
  GtkLabel             *damaged_message_label;
  /* Which session the bar's error is about (NULL: the window's own),
   * and the words a failed send can be retried with. */
  char                 *session_id;
  NatterMessageRequest *retry_request;
  /* An error about reaching a provider, or about its model: which
   * provider (NULL: not known), its base URL then, and whether it was
   * the default one; a change of these settings takes the bar away. */
  gboolean              about_provider;
  char                 *provider_id;
  char                 *provider_url;
  gboolean              provider_is_default;
  /* The open damaged session: what is left of it */
  NatterSessionDamage  *damage;
  char                 *damage_session_id;
  /* The notice of a window that can only read (template children), and
   * why it can: the session service's refusal, NULL when it writes. */
  GtkRevealer          *read_only_revealer;
  GtkLabel             *read_only_heading;
  GtkLabel             *read_only_detail;
  const GError         *read_only;
  /* What the Details of the last notice with details say */
  char                 *last_notice_details;
} NatterWindowErrors;

/* natter-window-versions.c: the sent message being edited in the
 * composer, and the open conversation's versions. */
typedef struct
{
  char                 *editing_turn_id;
  /* What was in a conversation's message field when a sent message of it
   * was taken there to edit: back in the field once the edit is sent or
   * cancelled (natter-window-editing.c). */
  GHashTable           *set_aside;        /* session id → char* */
  GHashTable           *of_turn;          /* turn id → GPtrArray of NatterTurnVersion */
  /* The version an arrow asked for, opened once the click that asked is
   * over: opening it replaces the rows the arrow is in. */
  guint                 open_id;
  char                 *open_session;
  char                 *open_turn;
  /* The arrow that asked had the keyboard focus: -1 the previous one,
   * 1 the next, 0 neither; it goes to that arrow of the version opened,
   * once its row is there. */
  int                   refocus_arrow;
  char                 *refocus_turn;
  guint                 refocus_frames;
  /* Frames since the arrow got the focus, while the rows may still be
   * made anew under it; 0 before. */
  guint                 refocus_kept_frames;
} NatterWindowVersions;

/* natter-window-voice.c: who reads aloud and which answer, the
 * provider the next message goes to (its transcription model makes
 * dictation text), and the dictations under way: the one the composer
 * shows, and any whose conversation was left before its words came
 * (they go there). */
typedef struct _NatterWindowDictation NatterWindowDictation;

typedef struct
{
  NatterSpeech         *speech;
  char                 *speaking_turn_id;
  char                 *provider;         /* nullable: none to go to */
  NatterWindowDictation *dictation;       /* nullable: the composer's */
  GPtrArray            *dictations;       /* every one under way */
  guint                 dictation_tick_id;
} NatterWindowVoice;

/* natter-window-archive.c */
typedef struct
{
  char                 *last_import_details;   /* what the last import's Details dialog says */
} NatterWindowArchive;

/* natter-window-drafts.c: the drafts kept on disk, so that quitting or
 * a crash loses no word waiting in a message field (docs/format.md §10) */
typedef struct
{
  NatterDraftStore     *store;            /* nullable: drafts live while the window does */
  GHashTable           *kept;             /* key → NatterDraft*: what is on disk */
  GHashTable           *in_flight;        /* key → NatterDraft*: messages sent, not in a log yet */
  guint                 save_id;
  char                 *last_error;       /* nullable: said once, not at every key press */
} NatterWindowDrafts;

struct _NatterWindow
{
  AdwApplicationWindow  parent_instance;

  /* What the window works with */
  NatterSettings       *settings;
  NatterBlobStore      *blobs;            /* nullable: attachments */
  NatterSessions       *sessions;
  NatterSendPipeline   *pipeline;         /* every message goes through it */
  NatterTurnEventHub   *hub;
  NatterSessionIndex   *index;
  GCancellable         *cancellable;

  /* Template children of the window's frame */
  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkWidget            *sidebar_pane;     /* "sidebar" in the template */
  GtkWidget            *content;
  NatterSidebar        *session_sidebar;
  AdwHeaderBar         *content_header;
  AdwWindowTitle       *window_title;
  GtkWidget            *conversation_menu_button;
  GtkStack             *content_stack;

  /* The facets */
  NatterWindowConversation conversation;
  NatterWindowChoice    choice;
  NatterWindowOpening   opening;
  NatterWindowSidebar   sidebar;
  NatterWindowFolders   folders;
  NatterWindowQueue     queue;
  NatterWindowVersions  versions;
  NatterWindowErrors    errors;
  NatterWindowKeyboard  keyboard;
  NatterWindowClosing   closing;
  NatterWindowArchive   archive;
  NatterWindowVoice     voice;
  NatterWindowDrafts    drafts;
};

/* The facets' functions, from the bottom up: a facet calls only those
 * of the facets before it here (tests/check-folder-calls.py fails on a
 * call back up), and natter-window.c, above them all, calls any of them.
 * Where a facet below has to reach one above, it goes through an action
 * the facet above installs (win.open-branched-from, win.show-toast). */

/* natter-window-state.c: what every facet asks of the open conversation */
char *
_natter_window_toast_name (const char *name);
const char *
_natter_window_choice_key (NatterWindow *self);
char *
_natter_window_take_set_aside (NatterWindow *self);
gboolean
_natter_window_open_is_usable (NatterWindow *self);
gboolean
_natter_window_latest_is_running (NatterWindow *self);
gboolean
_natter_window_latest_is_unsettled (NatterWindow *self);
gboolean
_natter_window_provider_is_missing (NatterWindow *self,
                                    const char   *provider_id);

/* natter-window-menus.c */
NatterSessionIndexEntry *
_natter_window_lookup_target (NatterWindow *self,
                              const char   *session_id,
                              gboolean      writable);
void
_natter_window_update_folder_actions (NatterWindow *self);
GMenuModel *
_natter_window_conversation_menu_new (NatterWindow *self,
                                      const char   *session_id);
void
_natter_window_place_menus_init (NatterWindow *self);
void
_natter_window_update_place_menus (NatterWindow *self);

/* natter-window-errors.c */
void
_natter_window_show_details (NatterWindow *self,
                             const char   *heading,
                             const char   *details);
void
_natter_window_show_notice (NatterWindow *self,
                            const char   *title,
                            const char   *details);
void
_natter_window_hide_error (NatterWindow *self);
void
_natter_window_hide_provider_error (NatterWindow *self);
void
_natter_window_show_error (NatterWindow *self,
                           const char *session_id,
                           const char *heading,
                           const GError *error,
                           const NatterMessageRequest *retry);
void
_natter_window_set_error_provider (NatterWindow *self,
                                   const char *provider_id);
void
_natter_window_errors_watch (NatterWindow *self,
                             NatterServices *services);
void
_natter_window_show_damage (NatterWindow *self);
void
_natter_window_show_read_only (NatterWindow *self);
void
_natter_window_enable_writes (NatterWindow *self);
void
_natter_window_disable_writes (NatterWindow *self);
void
_natter_window_class_errors_init (GtkWidgetClass *widget_class);

/* natter-window-queue.c */
void
_natter_window_open_queue (NatterWindow *self);
void
_natter_window_close_queue (NatterWindow *self);
void
_natter_window_stop_latest (NatterWindow *self);
void
_natter_window_composer_stop_cb (NatterWindow *self);

/* natter-window-keyboard.c */
void
_natter_window_update_keyboard_actions (NatterWindow *self);
void
_natter_window_focus_sidebar_position (NatterWindow *self,
                                       guint position);
void
_natter_window_setup_keyboard (NatterWindow *self);
void
_natter_window_class_keyboard_init (GtkWidgetClass *widget_class);

/* natter-window-voice.c */
void
_natter_window_set_dictation_provider (NatterWindow *self,
                                       const char   *provider_id);
void
_natter_window_voice_conversation_closed (NatterWindow *self);
void
_natter_window_voice_rekey (NatterWindow *self,
                            const char   *old_key,
                            const char   *new_key);
void
_natter_window_voice_init (NatterWindow *self);
void
_natter_window_voice_dispose (NatterWindow *self);
void
_natter_window_class_voice_init (GtkWidgetClass *widget_class);

/* natter-window-folders.c */
gboolean
_natter_window_undo_folder_delete (NatterWindow *self,
                                   gboolean      latest_only);
void
_natter_window_folders_init (NatterWindow *self);
void
_natter_window_class_folders_init (GtkWidgetClass *widget_class);

/* natter-window-versions.c */
void
_natter_window_apply_versions (NatterWindow *self);
void
_natter_window_refresh_versions (NatterWindow *self);
void
_natter_window_versions_session_changed (NatterWindow *self,
                                         const char   *session_id);
void
_natter_window_versions_items_changed_cb (NatterWindow *self,
                                          guint         position,
                                          guint         removed,
                                          guint         added);

/* natter-window-choice.c */
void
_natter_window_update_composer (NatterWindow *self);
void
_natter_window_apply_session_agent (NatterWindow *self);
void
_natter_window_update_model_picker (NatterWindow *self);
void
_natter_window_choose_for (NatterWindow         *self,
                           NatterMessageRequest *request);
/* What a new version of the open conversation's message goes on with:
 * its model pick, its last turn's model and its agent (all nullable). */
typedef struct
{
  JsonObject *picked;
  JsonObject *last;
  char       *agent_id;
} NatterWindowCarriedChoice;
void
_natter_window_carried_choice_clear (NatterWindowCarriedChoice *carried);
void
_natter_window_dup_choice (NatterWindow              *self,
                           NatterWindowCarriedChoice *carried);
void
_natter_window_carry_choice (NatterWindow                    *self,
                             const char                      *session_id,
                             const NatterWindowCarriedChoice *carried);
void
_natter_window_carry_shown_choice (NatterWindow                    *self,
                                   const char                      *session_id,
                                   const NatterWindowCarriedChoice *carried);
void
_natter_window_class_choice_init (GtkWidgetClass *widget_class);
void
_natter_window_choice_init (NatterWindow *self);
void
_natter_window_load_remembered_model (NatterWindow *self);

/* natter-window-opening.c */
void
_natter_window_update_conversation (NatterWindow *self);
void
_natter_window_update_subtitle (NatterWindow *self);
void
_natter_window_close_session (NatterWindow *self);
void
_natter_window_open_new_chat (NatterWindow *self);
void
_natter_window_restore_draft (NatterWindow *self,
                              const char   *key);
void
_natter_window_leave_deleted (NatterWindow *self);
gboolean
_natter_window_open_in_place (NatterWindow *self,
                              const char   *session_id);
void
_natter_window_move_draft (NatterWindow *self,
                           const char   *from,
                           const char   *to);
NatterTimelineModel *
_natter_window_ensure_timeline (NatterWindow *self,
                                const char   *session_id);
void
_natter_window_restore_last_session (NatterWindow *self);
void
_natter_window_opening_dispose (NatterWindow *self);
void
_natter_window_cancel_opening (NatterWindow *self);
void
_natter_window_finish_opening (NatterWindow *self);
void
_natter_window_opening_init (NatterWindow *self);
void
_natter_window_set_opening_wait (NatterWindow *self,
                                 guint         wait_ms);

/* natter-window-search.c */
void
_natter_window_reveal_turn (NatterWindow *self,
                            const char *turn_id);

/* natter-window-conversation.c */
void
_natter_window_send_text (NatterWindow *self,
                          const char *text,
                          gboolean restore_draft);
void
_natter_window_send_message (NatterWindow *self,
                             const char *text,
                             GPtrArray *sources,
                             gboolean restore_draft);
void
_natter_window_send_version (NatterWindow *self,
                             const char   *turn_id,
                             const char   *text,
                             GPtrArray    *sources);
void
_natter_window_send_again (NatterWindow *self,
                           const char   *turn_id,
                           gboolean      compact_first);
void
_natter_window_send_request_again (NatterWindow               *self,
                                   const NatterMessageRequest *request);
void
_natter_window_conversation_init (NatterWindow *self);

/* natter-window-editing.c */
void
_natter_window_class_editing_init (GtkWidgetClass *widget_class);

/* natter-window-recovery.c */
void
_natter_window_class_recovery_init (GtkWidgetClass *widget_class);

/* natter-window-sidebar.c */
void
_natter_window_class_sidebar_init (GtkWidgetClass *widget_class);
void
_natter_window_sidebar_init (NatterWindow *self);
char *
_natter_window_dup_target (NatterWindow *self,
                           GVariant     *parameter);

/* natter-window-archive.c */
void
_natter_window_export_to (NatterWindow *self,
                          const char   *session_id,
                          const char   *format,
                          GFile        *file);
void
_natter_window_import_from (NatterWindow *self,
                            GFile        *file,
                            const char   *from);
void
_natter_window_class_archive_init (GtkWidgetClass *widget_class);

/* natter-window-compaction.c */
void
_natter_window_class_compaction_init (GtkWidgetClass *widget_class);

/* natter-window-drafts.c */
void
_natter_window_drafts_load (NatterWindow     *self,
                            NatterDraftStore *store);
void
_natter_window_drafts_changed (NatterWindow *self);
gboolean
_natter_window_drafts_save (NatterWindow *self);
void
_natter_window_drafts_take_over (NatterWindow *self);
void
_natter_window_drafts_hold (NatterWindow *self,
                            const char   *key,
                            const char   *text,
                            const char   *edits_turn_id,
                            GPtrArray    *sources);
void
_natter_window_drafts_release (NatterWindow *self,
                               const char   *key);
void
_natter_window_drafts_dispose (NatterWindow *self);

/* natter-window-actions.c */
void
_natter_window_delete_toast_dismissed_cb (AdwToast *toast,
                                          NatterWindow *self);
void
_natter_window_finish_pending_deletes (NatterWindow *self);
void
_natter_window_class_actions_init (GtkWidgetClass *widget_class);

/* Test seams */
void            natter_window_set_speech              (NatterWindow *self,
                                                       NatterSpeech *speech);
void            natter_window_dismiss_pending_deletes (NatterWindow *self);
guint           natter_window_get_n_pending_deletes   (NatterWindow *self);
NatterComposer *natter_window_get_composer            (NatterWindow *self);
GtkWidget      *natter_window_get_session_list        (NatterWindow *self);
GtkWidget      *natter_window_get_timeline_list       (NatterWindow *self);
GtkAdjustment  *natter_window_get_timeline_adjustment (NatterWindow *self);
const char     *natter_window_get_visible_page        (NatterWindow *self);
NatterModelPicker *natter_window_get_model_picker     (NatterWindow *self);
const char     *natter_window_get_last_agent_toast    (NatterWindow *self);
GtkWidget      *natter_window_get_error_bar           (NatterWindow *self);
GtkWidget      *natter_window_get_read_only_notice    (NatterWindow *self);
GtkWidget      *natter_window_get_toast_overlay       (NatterWindow *self);

G_END_DECLS
