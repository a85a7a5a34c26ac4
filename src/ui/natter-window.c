/* natter-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window: the session sidebar and the conversation side
 * by side in an AdwLeaflet, one at a time on a narrow window.
 *
 * The sidebar is a #NatterSidebar over the session index itself (it
 * follows every write-through update with no refresh call). The
 * conversation is a GtkListView over the session's #NatterTimelineModel;
 * timelines of sessions opened in this window stay alive, so a turn that
 * streams while another session is shown goes on being joined and shows
 * live when the user comes back.
 *
 * Nothing in the list is destroyed by a key press without a chance to
 * undo: Delete hides the session and shows an undo toast; the file
 * is removed only when the toast goes away. Closing the window with a
 * toast still up keeps the session: losing nothing beats finishing a
 * deletion the user may not have seen through.
 *
 * This file holds the window's lifetime and the public API that sets it
 * up; opening a conversation, the sidebar, sending, the actions,
 * keyboard use and the error bar are facets of their own over
 * natter-window-private.h. This file is the top of them: it calls any
 * facet, and no facet calls it.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-composer.h"
#include "natter-model-picker.h"
#include "natter-permission-card.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-store-error.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

G_DEFINE_FINAL_TYPE (NatterWindow, natter_window, ADW_TYPE_APPLICATION_WINDOW)


/* Window state */

static void
natter_window_restore_state (NatterWindow *self)
{
  int width, height;
  gboolean maximized;

  natter_settings_get_window_size (self->settings, &width, &height, &maximized);

  gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (maximized)
    gtk_window_maximize (GTK_WINDOW (self));
}

/* Closing (or quitting) while answers stream ends them as Stop does: what
 * was streamed so far is kept, and the next start finds a stopped answer,
 * not one cut off by a crash. The window goes once every answer has
 * stopped; one that could not be stopped keeps it open and says why. */
static void
close_stopped_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (source), result, &error))
    {
      self->closing.failed = TRUE;
      _natter_window_show_error (self, NULL, _("An answer could not be stopped, so the window stays open"),
                                 error, NULL);
    }
  if (--self->closing.stops > 0)
    return;
  if (!self->closing.failed)
    gtk_window_close (GTK_WINDOW (self));
  self->closing.failed = FALSE;
}

/* Stops every answer this process is running; returns how many. */
static guint
stop_running_answers (NatterWindow *self)
{
  GListModel *sessions;
  guint n, stopping = 0;

  if (self->sessions == NULL)
    return 0;
  sessions = G_LIST_MODEL (natter_sessions_list_sessions (self->sessions));
  n = g_list_model_get_n_items (sessions);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (sessions, i);
      const char *latest = natter_session_index_entry_get_latest_turn_id (entry);

      if (latest == NULL || !natter_sessions_is_turn_running (self->sessions, latest))
        continue;
      stopping++;
      self->closing.stops++;
      natter_sessions_stop_turn_async (self->sessions, latest, NATTER_CANCEL_REASON_CLOSED, NULL, close_stopped_cb,
                                       g_object_ref (self));
    }
  return stopping;
}

static void
unkept_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    NatterWindow     *self)
{
  if (!g_str_equal (response, "close"))
    return;
  self->closing.losing_words = TRUE;
  gtk_window_close (GTK_WINDOW (self));
}

/* Asks before closing a window whose typed words cannot be kept, since
 * it only reads the data folder (docs/format.md §10). Returns whether it
 * asked: the window stays open until the answer. */
static gboolean
ask_before_losing_words (NatterWindow *self)
{
  AdwMessageDialog *dialog;

  if (_natter_window_drafts_save (self) || self->closing.losing_words)
    return FALSE;
  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Close Without Your Typed Words?"),
                                                       _("Another Natter is using this data folder, so this window "
                                                         "cannot keep what you typed in its message field. Copy "
                                                         "the words elsewhere first, or keep the window open: once "
                                                         "the other Natter has closed, this one keeps them.")));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Keep Window Open"), "close", _("_Close Anyway"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "close", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (unkept_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  return TRUE;
}

static gboolean
natter_window_close_request (GtkWindow *window)
{
  NatterWindow *self = NATTER_WINDOW (window);
  int width, height;

  if (self->closing.stops > 0 || stop_running_answers (self) > 0)
    return TRUE;
  /* Closing (or quitting) with an undo toast up is no Undo: the
   * deletion the person asked for is carried out. */
  _natter_window_finish_pending_deletes (self);
  if (ask_before_losing_words (self))
    return TRUE;

  /* The size to restore is the unmaximized one. */
  gtk_window_get_default_size (window, &width, &height);
  natter_settings_set_window_size (self->settings, width, height, gtk_window_is_maximized (window));

  return GTK_WINDOW_CLASS (natter_window_parent_class)->close_request (window);
}

static void
hub_processing_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   NatterWindow       *self)
{
  if (self->conversation.entry != NULL &&
      g_strcmp0 (turn_id, natter_session_index_entry_get_latest_turn_id (self->conversation.entry)) == 0)
    _natter_window_update_composer (self);
}

/* The service tells of a settled answer once it no longer runs it (the
 * entry's status may have said "completed" before that, unchanged since):
 * the composer stops showing an answer in progress. */
static void
session_index_changed_cb (NatterSessions *sessions,
                          const char     *session_id,
                          NatterWindow   *self)
{
  /* The open conversation's entry is gone: it was deleted elsewhere (this
   * window closes one before deleting it). */
  if (self->conversation.entry != NULL && g_strcmp0 (session_id, self->conversation.session_id) == 0 &&
      natter_session_index_lookup (self->index, session_id) == NULL)
    _natter_window_leave_deleted (self);
  else if (self->conversation.entry != NULL && g_strcmp0 (session_id, self->conversation.session_id) == 0)
    _natter_window_update_composer (self);
  /* A new conversation goes on with the model used last, maybe just now
   * in another window. */
  else if (self->conversation.entry == NULL && self->conversation.new_chat)
    _natter_window_update_model_picker (self);
  _natter_window_versions_session_changed (self, session_id);
  /* A pin lives in the conversation's original, which may be another
   * session than the one open. */
  _natter_window_update_folder_actions (self);
}

/* Lifetime */

static void
natter_window_dispose (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  /* Toasts still up are dismissed as the overlay goes: forget them
   * first. Closing has carried out their deletions already
   * (natter_window_close_request()); a window destroyed without being
   * closed, by the tests, deletes nothing. */
  if (self->sidebar.pending_deletes != NULL)
    g_hash_table_remove_all (self->sidebar.pending_deletes);
  /* So is a folder's deletion toast: dismissed as the overlay goes, it
   * would update the actions of a window whose widgets are gone. */
  if (self->folders.undo_toast != NULL)
    g_signal_handlers_disconnect_by_data (self->folders.undo_toast, self);
  _natter_window_cancel_opening (self);
  _natter_window_close_queue (self);
  g_cancellable_cancel (self->cancellable);
  g_cancellable_cancel (self->choice.first_model_cancellable);
  g_clear_object (&self->choice.first_model_cancellable);
  g_clear_handle_id (&self->keyboard.refocus_id, g_source_remove);
  g_clear_handle_id (&self->versions.open_id, g_source_remove);
  if (self->hub != NULL)
    g_signal_handlers_disconnect_by_data (self->hub, self);
  if (self->index != NULL)
    g_signal_handlers_disconnect_by_data (self->index, self);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  _natter_window_opening_dispose (self);

  /* GTK 4.8 now and then keeps a reference on the conversation view
   * after its window is gone (seen when a window goes soon after it was
   * shown, with the keyboard in the message field, and when the focus
   * moved inside the view before its conversation was left: a reference
   * its focus handling took on the view as a focus child). Whatever
   * holds it, the view and the queue inside it let go of the
   * conversation and the session service here, so that they never
   * outlive the window. */
  if (self->conversation.view != NULL)
    {
      natter_conversation_view_set_timeline (self->conversation.view, NULL);
      natter_conversation_view_set_sessions (self->conversation.view, NULL);
      natter_conversation_view_set_blob_store (self->conversation.view, NULL);
    }
  if (self->conversation.queue_view != NULL)
    natter_queue_view_set_session (self->conversation.queue_view, NULL, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_WINDOW);

  g_clear_pointer (&self->conversation.timelines, g_hash_table_unref);
  g_clear_pointer (&self->choice.chosen_models, g_hash_table_unref);
  g_clear_pointer (&self->choice.branch_models, g_hash_table_unref);
  g_clear_pointer (&self->choice.first_models, g_hash_table_unref);
  g_clear_pointer (&self->choice.recent, json_object_unref);
  g_clear_pointer (&self->choice.remembered, json_object_unref);
  g_clear_pointer (&self->choice.remembered_at, g_free);
  g_clear_pointer (&self->choice.chosen_agents, g_hash_table_unref);
  g_clear_pointer (&self->choice.last_agent_toast, g_free);
  g_clear_pointer (&self->archive.last_import_details, g_free);
  g_clear_pointer (&self->errors.session_id, g_free);
  g_clear_pointer (&self->errors.retry_request, natter_message_request_free);
  g_clear_pointer (&self->errors.provider_id, g_free);
  g_clear_pointer (&self->errors.provider_url, g_free);
  g_clear_pointer (&self->errors.last_notice_details, g_free);
  g_clear_pointer (&self->versions.editing_turn_id, g_free);
  g_clear_pointer (&self->versions.of_turn, g_hash_table_unref);
  g_clear_pointer (&self->versions.set_aside, g_hash_table_unref);
  g_clear_pointer (&self->versions.open_session, g_free);
  g_clear_pointer (&self->versions.open_turn, g_free);
  g_clear_pointer (&self->versions.refocus_turn, g_free);
  _natter_window_voice_dispose (self);
  _natter_window_drafts_dispose (self);

  G_OBJECT_CLASS (natter_window_parent_class)->dispose (object);
}

static void
natter_window_finalize (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  if (self->keyboard.help_overlay != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->keyboard.help_overlay), (gpointer *) &self->keyboard.help_overlay);
  if (self->closing.stop_dialog != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->closing.stop_dialog), (gpointer *) &self->closing.stop_dialog);
  g_clear_object (&self->settings);
  g_clear_object (&self->blobs);
  if (self->folders.store != NULL)
    g_signal_handlers_disconnect_by_data (self->folders.store, self);
  g_clear_object (&self->folders.store);
  g_clear_object (&self->folders.menu);
  g_clear_object (&self->folders.section);
  g_clear_object (&self->folders.rename_item);
  g_clear_object (&self->folders.undo_toast);
  g_clear_pointer (&self->folders.undo_target, g_variant_unref);
  g_clear_object (&self->sessions);
  g_clear_object (&self->pipeline);
  g_clear_object (&self->hub);
  g_clear_object (&self->index);
  g_clear_object (&self->sidebar.ticker);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->sidebar.pending_deletes, g_hash_table_unref);
  g_clear_pointer (&self->conversation.drafts, g_hash_table_unref);
  g_clear_pointer (&self->conversation.draft_attachments, g_hash_table_unref);
  g_clear_pointer (&self->conversation.draft_edits, g_hash_table_unref);
  g_clear_pointer (&self->conversation.recovery_notes, g_hash_table_unref);
  g_clear_pointer (&self->conversation.session_id, g_free);
  g_clear_pointer (&self->conversation.open_when_loaded, g_free);
  g_clear_pointer (&self->choice.agent_id, g_free);
  g_clear_object (&self->choice.registry);
  g_clear_pointer (&self->choice.provider_id, g_free);
  g_clear_pointer (&self->choice.default_model, g_free);
  g_clear_pointer (&self->sidebar.last_deleted_id, g_free);
  g_clear_pointer (&self->choice.listed_provider, g_free);
  g_clear_pointer (&self->choice.resolving_provider, g_free);
  g_clear_pointer (&self->errors.damage, natter_session_damage_free);
  g_clear_pointer (&self->errors.damage_session_id, g_free);

  G_OBJECT_CLASS (natter_window_parent_class)->finalize (object);
}

/* The template's children that live in one of the window's parts
 * (natter-window-private.h), not at its top level. */
static const struct
{
  const char *name;
  gssize      offset;
} part_children[] = {
  { "error_revealer", G_STRUCT_OFFSET (NatterWindow, errors.revealer) },
  { "read_only_revealer", G_STRUCT_OFFSET (NatterWindow, errors.read_only_revealer) },
  { "read_only_heading", G_STRUCT_OFFSET (NatterWindow, errors.read_only_heading) },
  { "read_only_detail", G_STRUCT_OFFSET (NatterWindow, errors.read_only_detail) },
  { "error_heading", G_STRUCT_OFFSET (NatterWindow, errors.heading) },
  { "error_detail", G_STRUCT_OFFSET (NatterWindow, errors.detail) },
  { "error_action_button", G_STRUCT_OFFSET (NatterWindow, errors.action_button) },
  { "sidebar", G_STRUCT_OFFSET (NatterWindow, sidebar_pane) },
  { "conversation_view", G_STRUCT_OFFSET (NatterWindow, conversation.view) },
  { "errored_page", G_STRUCT_OFFSET (NatterWindow, errors.errored_page) },
  { "copy_readable_button", G_STRUCT_OFFSET (NatterWindow, errors.copy_readable_button) },
  { "damaged_message_box", G_STRUCT_OFFSET (NatterWindow, errors.damaged_message_box) },
  { "damaged_message_heading", G_STRUCT_OFFSET (NatterWindow, errors.damaged_message_heading) },
  { "damaged_message_label", G_STRUCT_OFFSET (NatterWindow, errors.damaged_message_label) },
  { "model_picker", G_STRUCT_OFFSET (NatterWindow, choice.model_picker) },
};

static void
natter_window_class_init (NatterWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = natter_window_dispose;
  object_class->finalize = natter_window_finalize;
  window_class->close_request = natter_window_close_request;

  g_type_ensure (NATTER_TYPE_CONVERSATION_VIEW);
  g_type_ensure (NATTER_TYPE_MODEL_PICKER);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content_header);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, conversation_menu_button);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content_stack);
  for (gsize i = 0; i < G_N_ELEMENTS (part_children); i++)
    gtk_widget_class_bind_template_child_full (widget_class, part_children[i].name, FALSE,
                                               part_children[i].offset);

  _natter_window_class_errors_init (widget_class);
  _natter_window_class_sidebar_init (widget_class);
  _natter_window_class_actions_init (widget_class);
  _natter_window_class_compaction_init (widget_class);
  _natter_window_class_archive_init (widget_class);
  _natter_window_class_folders_init (widget_class);
  _natter_window_class_editing_init (widget_class);
  _natter_window_class_recovery_init (widget_class);
  _natter_window_class_choice_init (widget_class);
  _natter_window_class_keyboard_init (widget_class);
  _natter_window_class_voice_init (widget_class);
}

/* The desktop's window buttons without Minimize and Maximize: on a
 * window as narrow as a phone (360 px) they took the room the
 * conversation's title needs, and neither means much there. The
 * remaining order (and the side Close is on) stays the desktop's. */
static char *
narrow_decoration_layout (const char *layout)
{
  g_auto(GStrv) sides = g_strsplit (layout != NULL ? layout : "", ":", 2);
  GString *out = g_string_new (NULL);

  for (guint i = 0; sides[i] != NULL; i++)
    {
      g_auto(GStrv) buttons = g_strsplit (sides[i], ",", -1);
      gboolean first = TRUE;

      if (i > 0)
        g_string_append_c (out, ':');
      for (guint j = 0; buttons[j] != NULL; j++)
        if (!g_str_equal (buttons[j], "minimize") && !g_str_equal (buttons[j], "maximize"))
          {
            g_string_append_printf (out, "%s%s", first ? "" : ",", buttons[j]);
            first = FALSE;
          }
    }
  return g_string_free (out, FALSE);
}

/* Folded, the window may be as narrow as a phone: fewer buttons beside
 * the title, as GNOME's adaptive apps have. Unfolded, the desktop's
 * buttons again. */
static void
update_narrow_header (NatterWindow *self)
{
  g_autofree char *layout = NULL;
  g_autofree char *narrow = NULL;

  if (!adw_leaflet_get_folded (self->leaflet))
    {
      adw_header_bar_set_decoration_layout (self->content_header, NULL);
      return;
    }
  g_object_get (gtk_widget_get_settings (GTK_WIDGET (self)), "gtk-decoration-layout", &layout, NULL);
  narrow = narrow_decoration_layout (layout);
  if (g_strcmp0 (narrow, adw_header_bar_get_decoration_layout (self->content_header)) != 0)
    adw_header_bar_set_decoration_layout (self->content_header, narrow);
}

static void
natter_window_init (NatterWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
  /* Its dialogs, and the windows they open, as they show. */
  natter_accessible_plain_mnemonics_in_windows ();
  natter_accessible_name_stack_pages (self->content_stack);
  self->conversation.timeline_list = natter_conversation_view_get_list (self->conversation.view);
  self->conversation.composer = natter_conversation_view_get_composer (self->conversation.view);
  self->conversation.queue_view = natter_conversation_view_get_queue_view (self->conversation.view);
  /* The long label wraps rather than widen the window: every page of the
   * content stack counts toward its width, also at 360 px. */
  gtk_label_set_wrap (GTK_LABEL (gtk_button_get_child (self->errors.copy_readable_button)), TRUE);
  gtk_label_set_justify (GTK_LABEL (gtk_button_get_child (self->errors.copy_readable_button)), GTK_JUSTIFY_CENTER);
  natter_toast_guard_attach (self->toast_overlay);
  natter_accessible_plain_mnemonics_follow (GTK_WIDGET (self->toast_overlay));
  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (update_narrow_header), self);
  g_signal_connect_swapped (self->choice.model_picker, "notify::model", G_CALLBACK (_natter_window_update_subtitle), self);
  g_signal_connect_swapped (self->choice.model_picker, "notify::visible", G_CALLBACK (_natter_window_update_subtitle), self);
  g_signal_connect_object (gtk_widget_get_settings (GTK_WIDGET (self)), "notify::gtk-decoration-layout",
                           G_CALLBACK (update_narrow_header), self, G_CONNECT_SWAPPED);
  update_narrow_header (self);

  self->cancellable = g_cancellable_new ();
  self->choice.agent_id = g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID);
  self->sidebar.pending_deletes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->conversation.drafts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->conversation.draft_attachments = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                   (GDestroyNotify) g_ptr_array_unref);
  self->conversation.draft_edits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->conversation.recovery_notes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->drafts.kept = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) natter_draft_free);
  self->drafts.in_flight = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                  (GDestroyNotify) natter_draft_free);
  self->versions.set_aside = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->conversation.timelines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->choice.chosen_models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  self->choice.branch_models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  self->choice.first_models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->choice.chosen_agents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  _natter_window_choice_init (self);
  _natter_window_conversation_init (self);
  _natter_window_setup_keyboard (self);
  _natter_window_opening_init (self);
  _natter_window_update_conversation (self);
  g_signal_connect_object (self->conversation.composer, "text-changed", G_CALLBACK (_natter_window_drafts_changed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->conversation.composer, "attachments-changed",
                           G_CALLBACK (_natter_window_drafts_changed), self, G_CONNECT_SWAPPED);
}

/* Files are checked as they are attached, against the limit of the
 * settings. */
static void
attachment_limit_cb (NatterWindow *self)
{
  natter_composer_set_attachment_limit (self->conversation.composer, natter_settings_get_attachment_size_limit (self->settings));
}

/* Follows #NatterSessions:read-only. When the process that wrote the
 * data folder has ended and this one took its lock
 * (natter_services_watch_writer_lock(), docs/sessions.md §8.3), the
 * notice goes, every action that writes is on again as far as what is
 * shown allows, the composer sends, and a toast says why. The rows
 * follow on their own (natter-session-row.c, natter-turn-row.c): an
 * answer the other Natter left unfinished is interrupted now, with
 * Resume, as after a restart. */
static void
read_only_changed_cb (NatterWindow *self)
{
  gboolean was_read_only = self->errors.read_only != NULL;

  _natter_window_show_read_only (self);
  if (self->errors.read_only != NULL || !was_read_only)
    return;
  _natter_window_enable_writes (self);
  _natter_window_drafts_take_over (self);
  _natter_window_update_conversation (self);
  _natter_window_update_composer (self);
  _natter_window_show_notice (self, _("You can edit now"),
                              _("The other Natter using this data folder has closed. "
                                "This window can change your conversations now."));
}

static void
natter_window_set_services (NatterWindow       *self,
                            NatterSessions     *sessions,
                            NatterTurnEventHub *hub)
{
  self->sessions = g_object_ref (sessions);
  /* Known before anything else is set up, so that no action that writes
   * is ever on in a window that can only read. */
  self->errors.read_only = natter_sessions_get_write_refusal (sessions);
  self->pipeline = natter_send_pipeline_new (sessions, self->settings);
  natter_send_pipeline_set_blob_store (self->pipeline, self->blobs);
  natter_send_pipeline_set_agent_store (self->pipeline, natter_agent_chooser_get_store (self->choice.agent_chooser));
  natter_send_pipeline_set_provider_registry (self->pipeline, self->choice.registry, self->choice.provider_id, self->choice.default_model);
  self->hub = g_object_ref (hub);
  self->index = g_object_ref (natter_sessions_list_sessions (sessions));
  self->sidebar.ticker = natter_time_ticker_new (natter_sessions_get_clock (sessions));

  _natter_window_sidebar_init (self);
  _natter_window_folders_init (self);
  natter_conversation_view_set_sessions (self->conversation.view, sessions);

  g_signal_connect (hub, "turn-processing-start", G_CALLBACK (hub_processing_cb), self);
  g_signal_connect (hub, "turn-processing-end", G_CALLBACK (hub_processing_cb), self);
  g_signal_connect (sessions, "session-index-changed", G_CALLBACK (session_index_changed_cb), self);
  g_signal_connect_swapped (sessions, "notify::read-only", G_CALLBACK (read_only_changed_cb), self);
  g_signal_connect_swapped (self->index, "notify::loaded", G_CALLBACK (_natter_window_restore_last_session), self);

  _natter_window_show_read_only (self);
  _natter_window_update_composer (self);
  _natter_window_restore_last_session (self);
}

/**
 * natter_window_new:
 * @application: the application that owns the window
 * @sessions: (nullable): the session service; %NULL gives an inert shell
 *   (no data directory could be opened)
 * @hub: (nullable): the process-wide turn event hub; required with
 *   @sessions
 *
 * Creates the main window: the session sidebar and the conversation side
 * by side in an #AdwLeaflet (one at a time when narrow). Size and the last
 * open session come from GSettings.
 *
 * Returns: (transfer full): a new #NatterWindow
 */
NatterWindow *
natter_window_new (NatterApplication  *application,
                   NatterSessions     *sessions,
                   NatterTurnEventHub *hub)
{
  g_autoptr(NatterServices) services = NULL;
  NatterWindow *self;

  g_return_val_if_fail (sessions == NULL || NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (sessions == NULL || NATTER_IS_TURN_EVENT_HUB (hub), NULL);

  self = g_object_new (NATTER_TYPE_WINDOW,
                       "application", application,
                       NULL);
  /* The application's settings, so that a change anywhere reaches
   * every window; an application without services (being set up) gets
   * the installed ones. */
  if (application != NULL)
    g_object_get (application, "services", &services, NULL);
  self->settings = services != NULL ? g_object_ref (natter_services_get_settings (services))
                                    : natter_settings_new_default ();
  attachment_limit_cb (self);
  _natter_window_load_remembered_model (self);
  g_signal_connect_object (self->settings, "notify::attachment-size-limit", G_CALLBACK (attachment_limit_cb), self,
                           G_CONNECT_SWAPPED);
  _natter_window_voice_init (self);
  if (services != NULL)
    natter_window_set_blob_store (self, natter_services_get_blob_store (services));
  _natter_window_errors_watch (self, services);
  /* Before a conversation opens, so that it opens with its draft. The
   * drafts are those of the data folder whose conversations it shows. */
  if (services != NULL && sessions == natter_services_get_sessions (services))
    natter_window_set_draft_store (self, natter_services_get_draft_store (services));
  natter_window_restore_state (self);
  if (sessions != NULL)
    natter_window_set_services (self, sessions, hub);
  if (sessions != NULL && services != NULL)
    natter_window_set_folders (self, natter_services_get_folders (services));
  return self;
}

/**
 * natter_window_set_draft_store:
 * @self: the window
 * @store: (nullable): where the drafts of the window's data folder are
 *   kept (docs/format.md §10)
 *
 * Keeps the words waiting in the window's message field on disk from now
 * on, and takes the drafts kept there: a conversation opened later opens
 * with its draft. A window made with an application's services uses
 * theirs; without a store, drafts live while the window does.
 */
void
natter_window_set_draft_store (NatterWindow     *self,
                               NatterDraftStore *store)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (store == NULL || NATTER_IS_DRAFT_STORE (store));

  _natter_window_drafts_load (self, store);
}

/**
 * natter_window_set_blob_store:
 * @self: the window
 * @blobs: (nullable): where attachments are stored (docs/format.md §1)
 *
 * The store the window writes the attachments of a message to before
 * sending it, and reads sent attachments from. A window made with an
 * application's services uses theirs; without one, attaching is off.
 */
void
natter_window_set_blob_store (NatterWindow    *self,
                              NatterBlobStore *blobs)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (blobs == NULL || NATTER_IS_BLOB_STORE (blobs));

  g_set_object (&self->blobs, blobs);
  natter_conversation_view_set_blob_store (self->conversation.view, blobs);
  if (self->pipeline != NULL)
    natter_send_pipeline_set_blob_store (self->pipeline, blobs);
  natter_composer_set_can_attach (self->conversation.composer, blobs != NULL);
}

/**
 * natter_window_get_blob_store:
 * @self: the window
 *
 * Returns: (transfer none) (nullable): the store of attachments
 */
NatterBlobStore *
natter_window_get_blob_store (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);
  return self->blobs;
}

/**
 * natter_window_set_agent_id:
 * @self: the window
 * @agent_id: the agent new messages go to
 *
 * Sets the `agentId` of the SendMessageConfig (docs/sessions.md §9) of every
 * message sent from this window; %NATTER_WINDOW_DEFAULT_AGENT_ID by default.
 */
void
natter_window_set_agent_id (NatterWindow *self,
                            const char   *agent_id)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (agent_id != NULL);

  g_free (self->choice.agent_id);
  self->choice.agent_id = g_strdup (agent_id);
}

/**
 * natter_window_set_agent_store:
 * @self: the window
 * @store: (nullable): the user's agents
 *
 * Shows the composer's agent chooser over Assistant and
 * @store's agents, following them live (the store is watched, so
 * changes from Preferences and by hand show at once). Each session
 * remembers its pick while the app runs; a session opens with the agent
 * of its last turn (`lastAgentId`), else Assistant; a removed agent
 * falls back to Assistant with a toast. The pick is the
 * SendMessageConfig's `agent.agentId` (docs/sessions.md §9); an agent naming
 * its own model sends no `agent.model` unless the user picked one in the header
 * for the session, and the header shows the model that will be used.
 * %NULL hides the chooser: messages go to natter_window_set_agent_id()'s
 * agent.
 */
void
natter_window_set_agent_store (NatterWindow     *self,
                               NatterAgentStore *store)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (store == NULL || NATTER_IS_AGENT_STORE (store));

  if (store != NULL)
    natter_agent_store_watch (store);
  natter_agent_chooser_set_store (self->choice.agent_chooser, store);
  if (self->pipeline != NULL)
    natter_send_pipeline_set_agent_store (self->pipeline, store);
  gtk_widget_set_visible (GTK_WIDGET (self->choice.agent_chooser), store != NULL);
  _natter_window_apply_session_agent (self);
  _natter_window_update_model_picker (self);
}

/* A model pulled or deleted on a provider's server, in this window or
 * any other: the picker's list of it follows at once. */
static void
models_changed_cb (NatterWindow *self,
                   const char   *provider_id)
{
  natter_model_picker_models_changed (self->choice.model_picker, provider_id);
}

/**
 * natter_window_set_model_provider:
 * @self: the window
 * @registry: (nullable): the provider registry; %NULL shows that no
 *   provider can be asked
 * @provider_id: (nullable): the default provider (settings
 *   `default-provider`)
 * @default_model: (nullable): the model of a session without turns
 *   (settings `default-model`); %NULL or "" for the provider's first
 *
 * Lets the header's model picker list, for the open session, the models
 * of the provider of its current model: the one picked for the
 * session, else its last turn's (`lastModel`), else @provider_id. The
 * model shown goes with the session's next messages as the
 * SendMessageConfig's `agent.model` `{provider, model}` (docs/sessions.md §9),
 * with the provider whose list it came from. A provider that is not configured
 * in @registry (removed, or a bare endpoint URL) shows the picker's
 * unknown state with Preferences. Call again when the providers or the
 * defaults change; the lists the picker keeps are reused, but for a
 * provider whose models @registry says changed
 * (#NatterProviderRegistry::models-changed), which is listed again.
 */
void
natter_window_set_model_provider (NatterWindow           *self,
                                  NatterProviderRegistry *registry,
                                  const char             *provider_id,
                                  const char             *default_model)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (registry == NULL || NATTER_IS_PROVIDER_REGISTRY (registry));

  if (self->choice.registry != registry)
    {
      if (self->choice.registry != NULL)
        g_signal_handlers_disconnect_by_func (self->choice.registry, models_changed_cb, self);
      if (registry != NULL)
        g_signal_connect_object (registry, "models-changed", G_CALLBACK (models_changed_cb), self,
                                 G_CONNECT_SWAPPED);
    }
  g_set_object (&self->choice.registry, registry);
  g_free (self->choice.provider_id);
  self->choice.provider_id = provider_id != NULL && provider_id[0] != '\0' ? g_strdup (provider_id) : NULL;
  g_free (self->choice.default_model);
  self->choice.default_model = default_model != NULL && default_model[0] != '\0' ? g_strdup (default_model) : NULL;
  if (self->pipeline != NULL)
    natter_send_pipeline_set_provider_registry (self->pipeline, registry, self->choice.provider_id, self->choice.default_model);

  /* The providers may have changed under the same id: resolve again. */
  g_clear_pointer (&self->choice.listed_provider, g_free);
  g_hash_table_remove_all (self->choice.first_models);
  g_cancellable_cancel (self->choice.first_model_cancellable);
  g_clear_object (&self->choice.first_model_cancellable);
  g_clear_pointer (&self->choice.resolving_provider, g_free);
  _natter_window_update_model_picker (self);
}

/**
 * natter_window_get_session_id:
 * @self: the window
 *
 * Returns: (nullable): the open session
 */
const char *
natter_window_get_session_id (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);
  return self->conversation.session_id;
}

/**
 * natter_window_get_sidebar_model:
 * @self: the window
 *
 * Returns: (transfer none) (nullable): what the sidebar lists, in its
 *   order: the index, searched, without pending deletions, newest first
 */
GListModel *
natter_window_get_sidebar_model (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);
  return natter_sidebar_get_model (self->session_sidebar);
}

/**
 * natter_window_get_timeline:
 * @self: the window
 *
 * Returns: (transfer none) (nullable): the open session's timeline
 */
NatterTimelineModel *
natter_window_get_timeline (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);
  return self->conversation.timeline;
}

/* Test seams (natter-window-private.h) */

void
natter_window_dismiss_pending_deletes (NatterWindow *self)
{
  g_autoptr(GPtrArray) toasts = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer toast;

  g_hash_table_iter_init (&iter, self->sidebar.pending_deletes);
  while (g_hash_table_iter_next (&iter, NULL, &toast))
    g_ptr_array_add (toasts, g_object_ref (toast));
  /* What the toast's timeout does, without racing its animations. */
  for (guint i = 0; i < toasts->len; i++)
    _natter_window_delete_toast_dismissed_cb (g_ptr_array_index (toasts, i), self);
}

guint
natter_window_get_n_pending_deletes (NatterWindow *self)
{
  return g_hash_table_size (self->sidebar.pending_deletes);
}

NatterComposer *
natter_window_get_composer (NatterWindow *self)
{
  return self->conversation.composer;
}

GtkWidget *
natter_window_get_session_list (NatterWindow *self)
{
  return natter_sidebar_get_list (self->session_sidebar);
}

GtkWidget *
natter_window_get_timeline_list (NatterWindow *self)
{
  return GTK_WIDGET (self->conversation.timeline_list);
}

GtkAdjustment *
natter_window_get_timeline_adjustment (NatterWindow *self)
{
  return gtk_scrolled_window_get_vadjustment (natter_conversation_view_get_scroller (self->conversation.view));
}

NatterModelPicker *
natter_window_get_model_picker (NatterWindow *self)
{
  return self->choice.model_picker;
}

GtkWidget *
natter_window_get_error_bar (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->errors.revealer);
}

GtkWidget *
natter_window_get_toast_overlay (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->toast_overlay);
}

const char *
natter_window_get_last_agent_toast (NatterWindow *self)
{
  return self->choice.last_agent_toast;
}

const char *
natter_window_get_visible_page (NatterWindow *self)
{
  return gtk_stack_get_visible_child_name (self->content_stack);
}

