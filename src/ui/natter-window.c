/* natter-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window (issue 6): the session sidebar and the conversation side
 * by side in an AdwLeaflet, one at a time on a narrow window.
 *
 * The sidebar is a GtkListView over the session index itself, filtered and
 * sorted by GTK list models (newest first) — never a copy — so it follows
 * every write-through update of the index (session-layer-spec.md §8.3)
 * with no refresh call. The conversation is a GtkListView over the
 * session's #NatterTimelineModel; timelines of sessions opened in this
 * window stay alive, so a turn that streams while another session is shown
 * goes on being joined and shows live when the user comes back.
 *
 * Nothing in the list is destroyed by a key press without a chance to undo
 * (pitfall 5): Delete hides the session and shows an undo toast; the file
 * is removed only when the toast goes away. Closing the window with a
 * toast still up keeps the session: losing nothing beats finishing a
 * deletion the user may not have seen through.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

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

/* How close to the end (in pixels) still counts as "at the bottom". */
#define BOTTOM_SLACK 48.0

struct _NatterWindow
{
  AdwApplicationWindow  parent_instance;

  GtkWindow            *help_overlay;     /* weak; only while it shows */

  NatterSettings       *settings;
  NatterSessions       *sessions;
  NatterTurnEventHub   *hub;
  NatterSessionIndex   *index;
  NatterTimeTicker     *ticker;           /* the sidebar rows' minutes */
  char                 *agent_id;
  GCancellable         *cancellable;

  GtkFilterListModel   *filter_model;
  GtkSortListModel     *sort_model;
  GtkSingleSelection   *selection;
  GtkStringFilter      *title_filter;
  GtkCustomFilter      *pending_filter;

  GHashTable           *pending_deletes;  /* session id → AdwToast */
  /* The sidebar's place (see keep_sidebar_scroll()): where it was before
   * a search, and where a change of its rows is to leave it. */
  double                scroll_before_search;  /* < 0: not searching */
  double                pending_scroll;
  guint                 scroll_tick_id;
  guint                 scroll_ticks;
  GHashTable           *drafts;           /* session id → char* */
  GHashTable           *timelines;        /* session id → NatterTimelineModel */
  GHashTable           *chosen_models;    /* session id → {provider, model?} */
  /* The agent chooser (issue 7): the composer's; what was picked per
   * session while the app runs, like drafts. */
  NatterAgentChooser   *agent_chooser;
  GHashTable           *chosen_agents;    /* session id → agent id */
  gboolean              applying_agent;
  char                 *last_agent_toast;

  /* The model picker (issue 7): the registry it resolves providers in,
   * the default {provider, model}, and the provider it was last given. */
  NatterProviderRegistry *registry;
  char                 *provider_id;
  char                 *default_model;
  char                 *listed_provider;

  char                 *session_id;
  NatterSessionIndexEntry *entry;
  NatterTimelineModel  *timeline;
  gboolean              stick_to_bottom;
  /* The bottom to catch up with once the frame's layout is done (see
   * follow_bottom()): the frame clock's "layout" handler on the list. */
  gboolean              follow_pending;
  GdkFrameClock        *layout_clock;
  gulong                layout_handler;
  gboolean              sending;
  gboolean              restored;
  guint                 list_key_id;  /* a key press in the session list is being handled */
  char                 *open_when_loaded; /* natter_window_open_session() before the scan ended */

  /* Keyboard use (issue 7) */
  char                 *last_deleted_id;  /* what Ctrl+Z undoes first */
  gboolean              focus_in_timeline;
  guint                 refocus_id;
  guint                 focus_row_tries;
  char                 *focus_row_id;     /* the row focus_sidebar_position() wants */

  /* Template children */
  AdwToastOverlay      *toast_overlay;
  AdwLeaflet           *leaflet;
  GtkWidget            *sidebar;
  GtkWidget            *content;
  GtkSearchBar         *search_bar;
  GtkSearchEntry       *search_entry;
  GtkStack             *sidebar_stack;
  GtkListView          *session_list;
  AdwWindowTitle       *window_title;
  GtkWidget            *conversation_menu_button;
  GtkStack             *content_stack;
  GtkScrolledWindow    *timeline_scroller;
  GtkListView          *timeline_list;
  GtkWidget            *new_conversation_page;
  NatterComposer       *composer;
  AdwStatusPage        *errored_page;
  GtkButton            *copy_readable_button;
  NatterModelPicker    *model_picker;

  /* The open damaged session: what is left of it */
  NatterSessionDamage  *damage;
  char                 *damage_session_id;

  GtkRevealer          *error_revealer;
  GtkLabel             *error_heading;
  GtkLabel             *error_detail;
  GtkButton            *error_action_button;

  /* The error bar: which session its error is about (NULL: the window's
   * own), and the words a failed send can be retried with. */
  char                 *error_session_id;
  char                 *retry_text;
};

G_DEFINE_FINAL_TYPE (NatterWindow, natter_window, ADW_TYPE_APPLICATION_WINDOW)

static void update_conversation (NatterWindow *self);
static void show_damage (NatterWindow *self);
static void update_model_picker (NatterWindow *self);
static void update_keyboard_actions (NatterWindow *self);
static void focus_sidebar_position (NatterWindow *self,
                                    guint         position);

/* Takes @text. A notice, not an error: errors go to the error bar. */
static void
show_error_toast (NatterWindow *self,
                  char         *text)
{
  /* Toast titles are Pango markup; the text may hold a name. */
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *toast = adw_toast_new (escaped);

  g_free (text);

  adw_toast_set_timeout (toast, 8);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The error bar
 *
 * Errors are not toasts: a toast sits on the composer, goes away on its
 * own (or never, while the pointer rests on it) and cuts a long reason.
 * The bar sits under the header, above everything else; it says what did
 * not happen in plain words, then the whole reason (wrapped, selectable),
 * with the one action that helps, and stays until dismissed, until the
 * next message is sent, or until another conversation is opened. */

typedef enum
{
  ERROR_ACTION_NONE,
  ERROR_ACTION_PREFERENCES,
  ERROR_ACTION_RETRY,
} ErrorAction;

/* What @error means for the person using the window (transfer full),
 * and whether Preferences is where it is fixed. NULL when the error's
 * own message is all there is to say. */
static char *
explain_error (const GError *error,
               gboolean     *in_preferences)
{
  *in_preferences = FALSE;
  if (error->domain == NATTER_RUNTIME_ERROR &&
      (error->code == NATTER_RUNTIME_ERROR_AGENT || error->code == NATTER_RUNTIME_ERROR_MODEL_NOT_FOUND))
    {
      *in_preferences = TRUE;
      return g_strdup (_("The agent or its model is not set up. Choose them in Preferences."));
    }
  if (error->domain == NATTER_PROVIDER_ERROR)
    {
      *in_preferences = TRUE;
      return g_strdup (_("The provider could not be used. Check its address and key in Preferences."));
    }
  if (error->domain == NATTER_SESSION_ERROR)
    switch ((NatterSessionError) error->code)
      {
      case NATTER_SESSION_ERROR_TURN_NOT_SETTLED:
        return g_strdup (_("The previous answer has not finished yet: wait for it, stop it or continue it first."));
      case NATTER_SESSION_ERROR_NOT_FOUND:
        return g_strdup (_("This conversation no longer exists."));
      case NATTER_SESSION_ERROR_CORRUPT:
        return g_strdup (_("The conversation’s file is damaged, so nothing can be added to it. The file was not changed."));
      case NATTER_SESSION_ERROR_LOCKED:
        return g_strdup (_("Another copy of Natter is using the same data folder."));
      case NATTER_SESSION_ERROR_INVALID_ARGUMENT:
      default:
        break;
      }
  if (error->domain == NATTER_STORE_ERROR)
    return g_strdup (_("A conversation file could not be read or written."));
  if (error->domain == G_IO_ERROR)
    return g_strdup (_("A file could not be read or written."));
  return NULL;
}

static void
hide_error (NatterWindow *self)
{
  gtk_revealer_set_reveal_child (self->error_revealer, FALSE);
  g_clear_pointer (&self->error_session_id, g_free);
  g_clear_pointer (&self->retry_text, g_free);
}

/* Shows @heading (what did not happen, plain words) and @error's whole
 * reason in the error bar, about @session_id (NULL: not one conversation).
 * @retry_text, if any, is what the Retry button sends again. */
static void
show_error (NatterWindow *self,
            const char   *session_id,
            const char   *heading,
            const GError *error,
            const char   *retry_text)
{
  gboolean in_preferences;
  g_autofree char *plain = explain_error (error, &in_preferences);
  g_autofree char *detail = NULL;
  ErrorAction action = ERROR_ACTION_NONE;

  if (plain != NULL)
    /* Translators: a plain explanation, then the precise reason */
    detail = g_strdup_printf (_("%s\nDetails: %s"), plain, error->message);
  else
    detail = g_strdup (error->message);

  if (in_preferences)
    action = ERROR_ACTION_PREFERENCES;
  else if (retry_text != NULL)
    action = ERROR_ACTION_RETRY;

  g_free (self->error_session_id);
  self->error_session_id = g_strdup (session_id);
  g_free (self->retry_text);
  self->retry_text = action == ERROR_ACTION_RETRY ? g_strdup (retry_text) : NULL;

  /* Plain text, never markup: the reason may quote a title or a server. */
  gtk_label_set_text (self->error_heading, heading);
  gtk_label_set_text (self->error_detail, detail);
  switch (action)
    {
    case ERROR_ACTION_PREFERENCES:
      gtk_button_set_label (self->error_action_button, _("_Preferences"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->error_action_button), "app.preferences");
      break;
    case ERROR_ACTION_RETRY:
      gtk_button_set_label (self->error_action_button, _("_Retry"));
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->error_action_button), "win.retry-send");
      break;
    case ERROR_ACTION_NONE:
    default:
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->error_action_button), NULL);
      break;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->error_action_button), action != ERROR_ACTION_NONE);
  gtk_revealer_set_reveal_child (self->error_revealer, TRUE);
}

static void
error_close_cb (NatterWindow *self)
{
  hide_error (self);
}

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

static gboolean
natter_window_close_request (GtkWindow *window)
{
  NatterWindow *self = NATTER_WINDOW (window);
  int width, height;

  /* The size to restore is the unmaximized one. */
  gtk_window_get_default_size (window, &width, &height);
  natter_settings_set_window_size (self->settings, width, height, gtk_window_is_maximized (window));

  return GTK_WINDOW_CLASS (natter_window_parent_class)->close_request (window);
}

/* The sidebar */

static const char *
activity_time (NatterSessionIndexEntry *entry)
{
  const char *latest_turn_at = natter_session_index_entry_get_latest_turn_at (entry);

  return latest_turn_at != NULL ? latest_turn_at : natter_session_index_entry_get_created_at (entry);
}

static int
compare_entries (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  NatterSessionIndexEntry *ea = (NatterSessionIndexEntry *) a;
  NatterSessionIndexEntry *eb = (NatterSessionIndexEntry *) b;
  int result;

  /* By the latest activity: the latest turn's time, or the creation time
   * of a session without turns. Not `updatedAt`: a rename is not
   * activity, and a conversation that jumped to the top on a rename
   * would move away from under the pointer. ISO-8601 UTC timestamps of
   * one format sort as strings; newest first, ties by id (ids sort in
   * creation order), so the order is total. */
  result = g_strcmp0 (activity_time (eb), activity_time (ea));
  if (result == 0)
    result = g_strcmp0 (natter_session_index_entry_get_session_id (eb),
                        natter_session_index_entry_get_session_id (ea));
  return result < 0 ? GTK_ORDERING_SMALLER : result > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static gboolean
not_pending_delete (gpointer item,
                    gpointer user_data)
{
  NatterWindow *self = user_data;

  return !g_hash_table_contains (self->pending_deletes,
                                 natter_session_index_entry_get_session_id (item));
}

static void
update_sidebar_page (NatterWindow *self)
{
  const char *page = "list";

  if (self->sort_model == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->sort_model)) == 0)
    {
      const char *search = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

      page = search[0] != '\0' ? "no-results" : "empty";
    }
  gtk_stack_set_visible_child_name (self->sidebar_stack, page);
}

static guint
find_position (NatterWindow *self,
               const char   *session_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sort_model));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->sort_model), i);

      if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static void
sync_selection (NatterWindow *self)
{
  guint position = self->session_id != NULL ? find_position (self, self->session_id) : GTK_INVALID_LIST_POSITION;

  if (gtk_single_selection_get_selected (self->selection) != position)
    gtk_single_selection_set_selected (self->selection, position);
}

static void
sidebar_items_changed_cb (NatterWindow *self)
{
  update_sidebar_page (self);
}

static void
selection_changed_cb (NatterWindow *self)
{
  NatterSessionIndexEntry *entry = gtk_single_selection_get_selected_item (self->selection);

  /* A selection lost to a re-sort or a filter is not the user closing
   * the conversation. */
  if (entry == NULL)
    return;
  if (g_strcmp0 (natter_session_index_entry_get_session_id (entry), self->session_id) == 0)
    return;
  natter_window_open_session (self, natter_session_index_entry_get_session_id (entry));
  /* On a narrow window, arrow keys walk the list and Enter goes to the
   * conversation (session_activate_cb); a click goes at once. */
  if (!(self->list_key_id != 0 && adw_leaflet_get_folded (self->leaflet)))
    adw_leaflet_set_visible_child (self->leaflet, self->content);
}

static gboolean
session_list_key_done_cb (gpointer user_data)
{
  NatterWindow *self = user_data;

  self->list_key_id = 0;
  return G_SOURCE_REMOVE;
}

/* Runs before the list's own key bindings, which change the selection
 * synchronously; the mark lasts until this key press is handled. */
static gboolean
session_list_key_pressed_cb (NatterWindow *self)
{
  if (self->list_key_id == 0)
    self->list_key_id = g_idle_add_full (G_PRIORITY_HIGH, session_list_key_done_cb, self, NULL);
  return GDK_EVENT_PROPAGATE;
}

static void
session_activate_cb (NatterWindow *self,
                     guint         position)
{
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
session_setup_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item,
                  NatterWindow             *self)
{
  gtk_list_item_set_child (list_item, natter_session_row_new (self->sessions, self->hub, self->ticker));
}

static void
session_bind_cb (GtkSignalListItemFactory *factory,
                 GtkListItem              *list_item,
                 NatterWindow             *self)
{
  natter_session_row_set_entry (NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)),
                                gtk_list_item_get_item (list_item));
}

static void
session_unbind_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *list_item,
                   NatterWindow             *self)
{
  natter_session_row_set_entry (NATTER_SESSION_ROW (gtk_list_item_get_child (list_item)), NULL);
}

static GtkAdjustment *
sidebar_adjustment (NatterWindow *self)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (self->session_list));

  return gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
}

static gboolean
sidebar_scroll_tick_cb (GtkWidget     *widget,
                        GdkFrameClock *clock,
                        gpointer       user_data)
{
  NatterWindow *self = user_data;
  GtkAdjustment *adjustment = sidebar_adjustment (self);
  double reachable = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  gtk_adjustment_set_value (adjustment, self->pending_scroll);
  /* The rows that came back are measured over a few frames: until the
   * list is long enough again, the value is clamped and set once more. */
  if ((reachable >= self->pending_scroll &&
       G_APPROX_VALUE (gtk_adjustment_get_value (adjustment), self->pending_scroll, 1.5)) ||
      ++self->scroll_ticks >= 30)
    {
      self->scroll_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Puts the sidebar back at @value once its rows are laid out again. Rows
 * coming back (a search cleared, a deletion undone) must not move the
 * list: the row under the pointer has to stay the one the user saw. */
static void
keep_sidebar_scroll (NatterWindow *self,
                     double        value)
{
  self->pending_scroll = value;
  self->scroll_ticks = 0;
  gtk_adjustment_set_value (sidebar_adjustment (self), value);
  if (self->scroll_tick_id == 0)
    self->scroll_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->session_list),
                                                         sidebar_scroll_tick_cb, self, NULL);
}

static void
search_changed_cb (NatterWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  double restore = -1;

  if (text[0] != '\0' && self->scroll_before_search < 0)
    self->scroll_before_search = gtk_adjustment_get_value (sidebar_adjustment (self));
  else if (text[0] == '\0' && self->scroll_before_search >= 0)
    {
      restore = self->scroll_before_search;
      self->scroll_before_search = -1;
    }
  gtk_string_filter_set_search (self->title_filter, text);
  update_sidebar_page (self);
  /* The search may have dropped the open conversation's row: it is
   * selected again as soon as it is back. */
  sync_selection (self);
  if (restore >= 0)
    keep_sidebar_scroll (self, restore);
}

static void
stop_search_cb (NatterWindow *self)
{
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
}

/* The timeline */

/* Rows read ahead on each side of a row that comes into view: about a
 * window's height of short turns, so that scrolling at a reading pace
 * meets turns already read. */
#define READ_AHEAD_ROWS 4

static void
turn_row_placed_cb (NatterTurnRow *row,
                    NatterWindow  *self)
{
  NatterTurnItem *item = natter_turn_row_get_item (row);

  if (self->timeline != NULL && item != NULL)
    natter_timeline_model_read_around (self->timeline, item, READ_AHEAD_ROWS);
}

static GtkWidget *
turn_row_new (NatterWindow *self)
{
  GtkWidget *row = natter_turn_row_new (self->sessions);

  g_signal_connect_object (row, "placed", G_CALLBACK (turn_row_placed_cb), self, G_CONNECT_DEFAULT);
  return row;
}

static void
timeline_setup_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *list_item,
                   NatterWindow             *self)
{
  gtk_list_item_set_activatable (list_item, FALSE);
  gtk_list_item_set_selectable (list_item, FALSE);
  gtk_list_item_set_child (list_item, turn_row_new (self));
}

/* A branched session's timeline also holds markers (its "Branched from"
 * separator, or why its history cannot be shown): a recycled list item
 * gets the kind of row its new item needs. */
static void
timeline_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item,
                  NatterWindow             *self)
{
  gpointer item = gtk_list_item_get_item (list_item);
  GtkWidget *child = gtk_list_item_get_child (list_item);

  if (NATTER_IS_TIMELINE_MARKER (item))
    {
      if (!NATTER_IS_BRANCH_ROW (child))
        {
          child = natter_branch_row_new ();
          gtk_list_item_set_child (list_item, child);
        }
      natter_branch_row_set_marker (NATTER_BRANCH_ROW (child), item);
      return;
    }
  if (!NATTER_IS_TURN_ROW (child))
    {
      child = turn_row_new (self);
      gtk_list_item_set_child (list_item, child);
    }
  natter_turn_row_set_item (NATTER_TURN_ROW (child), item);
}

static void
timeline_unbind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *list_item,
                    NatterWindow             *self)
{
  GtkWidget *child = gtk_list_item_get_child (list_item);

  if (NATTER_IS_TURN_ROW (child))
    natter_turn_row_set_item (NATTER_TURN_ROW (child), NULL);
  else if (NATTER_IS_BRANCH_ROW (child))
    natter_branch_row_set_marker (NATTER_BRANCH_ROW (child), NULL);
}

static void
scroll_to_bottom (NatterWindow *self)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->timeline_scroller);

  gtk_adjustment_set_value (adjustment,
                            gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment));
}

/* GtkListView (4.8) sets the adjustment from inside its allocation with
 * its own value-changed handler blocked: a value set then moves the
 * scrollbar but not the rows (a long session opened showing its first
 * turns while the adjustment said bottom). So the bottom is caught up with
 * after the frame's layout, where the list follows the new value and lays
 * out again before the frame is painted. */
static void
follow_bottom (NatterWindow *self)
{
  if (!self->stick_to_bottom)
    return;
  self->follow_pending = TRUE;
  if (self->layout_clock != NULL)
    gdk_frame_clock_request_phase (self->layout_clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
}

static void
timeline_after_layout_cb (GdkFrameClock *clock,
                          NatterWindow  *self)
{
  if (!self->follow_pending)
    return;
  self->follow_pending = FALSE;
  if (self->stick_to_bottom)
    scroll_to_bottom (self);
}

static void
timeline_realize_cb (NatterWindow *self)
{
  self->layout_clock = g_object_ref (gtk_widget_get_frame_clock (GTK_WIDGET (self->timeline_list)));
  self->layout_handler = g_signal_connect_after (self->layout_clock, "layout",
                                                 G_CALLBACK (timeline_after_layout_cb), self);
  if (self->follow_pending)
    gdk_frame_clock_request_phase (self->layout_clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
}

static void
timeline_unrealize_cb (NatterWindow *self)
{
  if (self->layout_clock != NULL)
    g_clear_signal_handler (&self->layout_handler, self->layout_clock);
  g_clear_object (&self->layout_clock);
}

/* Follow the bottom while the user is there; once they scroll up, growth
 * below never moves them. */
static void
timeline_value_changed_cb (NatterWindow  *self,
                           GtkAdjustment *adjustment)
{
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  /* The list view moving the value as rows change height, before the
   * bottom is caught up with, is not the user scrolling away. */
  if (self->follow_pending)
    return;
  self->stick_to_bottom = gtk_adjustment_get_value (adjustment) >= bottom - BOTTOM_SLACK;
}

static void
timeline_upper_changed_cb (NatterWindow *self)
{
  follow_bottom (self);
}

/* The conversation */

static gboolean
latest_is_running (NatterWindow *self)
{
  const char *latest = self->entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->entry) : NULL;

  return latest != NULL && natter_sessions_is_turn_running (self->sessions, latest);
}

static void
update_composer (NatterWindow *self)
{
  const char *status;
  const char *reason = NULL;
  gboolean running;

  if (self->entry == NULL)
    return;

  status = natter_session_index_entry_get_latest_turn_status (self->entry);
  running = latest_is_running (self);
  if (natter_session_index_entry_get_error (self->entry) != NULL)
    reason = _("This conversation is damaged and cannot take new messages.");
  else if (!running && g_strcmp0 (status, "suspended") == 0)
    reason = _("Answer the request above before sending a new message.");
  else if (!running && g_strcmp0 (status, "idle") == 0)
    reason = _("The last answer was interrupted. Resume it before sending a new message.");

  natter_composer_set_running (self->composer, running);
  natter_composer_set_blocked_reason (self->composer, reason);
  gtk_widget_set_sensitive (GTK_WIDGET (self->composer), !self->sending);
  update_keyboard_actions (self);
}

/* The agents (issue 7) */

static gboolean
has_agent_store (NatterWindow *self)
{
  return natter_agent_chooser_get_store (self->agent_chooser) != NULL;
}

/* The agent the next message goes to: the chooser's, or without agents
 * to choose from, the window's agent (natter_window_set_agent_id()). */
static const char *
next_agent_id (NatterWindow *self)
{
  return has_agent_store (self) ? natter_agent_chooser_get_agent_id (self->agent_chooser) : self->agent_id;
}

/* The model the chosen agent names itself, if any. */
static JsonObject *
agent_own_model (NatterWindow *self)
{
  if (!has_agent_store (self))
    return NULL;
  return natter_agent_chooser_get_agent_model (self->agent_chooser,
                                               natter_agent_chooser_get_agent_id (self->agent_chooser));
}

/* Takes @text. */
static void
show_agent_toast (NatterWindow *self,
                  char         *text)
{
  g_free (self->last_agent_toast);
  self->last_agent_toast = g_strdup (text);
  show_error_toast (self, text);
}

/* Shows the open session's agent: the one picked for it while the app
 * runs, else its last turn's, else Assistant. An agent that is gone
 * gives way to Assistant, said once per session, never a send to an
 * agent that cannot answer. */
static void
apply_session_agent (NatterWindow *self)
{
  const char *agent_id = NULL;

  if (!has_agent_store (self) || self->session_id == NULL)
    return;
  agent_id = g_hash_table_lookup (self->chosen_agents, self->session_id);
  if (agent_id == NULL && self->entry != NULL)
    agent_id = natter_session_index_entry_get_last_agent_id (self->entry);
  if (agent_id == NULL)
    agent_id = NATTER_WINDOW_DEFAULT_AGENT_ID;

  self->applying_agent = TRUE;
  if (!natter_agent_chooser_set_agent_id (self->agent_chooser, agent_id))
    {
      /* Translators: %s is the id of an agent that was deleted */
      show_agent_toast (self, g_strdup_printf (_("The agent “%s” is gone: messages go to Assistant"), agent_id));
      g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
                            g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID));
    }
  self->applying_agent = FALSE;
}

static void
agent_chosen_cb (NatterWindow *self)
{
  if (!self->applying_agent && self->session_id != NULL)
    g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
                          g_strdup (natter_agent_chooser_get_agent_id (self->agent_chooser)));
  update_model_picker (self);
}

static void
agent_removed_cb (NatterWindow       *self,
                  const char         *agent_id,
                  const char         *name,
                  NatterAgentChooser *chooser)
{
  GHashTableIter iter;
  gpointer value;

  /* No session keeps a choice that is gone; each falls back when shown. */
  g_hash_table_iter_init (&iter, self->chosen_agents);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_str_equal (value, agent_id))
      g_hash_table_iter_remove (&iter);
  if (self->session_id != NULL)
    g_hash_table_replace (self->chosen_agents, g_strdup (self->session_id),
                          g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID));
  /* Translators: %s is the name of an agent that was deleted */
  show_agent_toast (self, g_strdup_printf (_("The agent “%s” was removed: messages go to Assistant"), name));
}

static void
agents_changed_cb (NatterWindow *self)
{
  /* The chosen agent's own model may have changed. */
  update_model_picker (self);
}

/* The {provider, model?} the next message of the open session goes to:
 * the one the user picked for it, else the chosen agent's own model,
 * else its last turn's, else the default. A missing model means the
 * provider's first one. */
static void
current_choice (NatterWindow  *self,
                const char   **provider,
                const char   **model)
{
  JsonObject *chosen = self->session_id != NULL ? g_hash_table_lookup (self->chosen_models, self->session_id) : NULL;
  JsonObject *last = self->entry != NULL ? natter_session_index_entry_get_last_model (self->entry) : NULL;
  JsonObject *own = agent_own_model (self);
  JsonObject *choice = chosen != NULL ? chosen : own != NULL ? own : last;

  if (choice != NULL)
    {
      *provider = json_object_get_string_member_with_default (choice, "provider", NULL);
      *model = json_object_get_string_member_with_default (choice, "model", NULL);
      return;
    }
  *provider = self->provider_id;
  *model = self->default_model;
}

/* What the SendMessageConfig's `agent.model` (§9) carries: the model the
 * picker shows, so a session keeps the model (and provider) of its last
 * turn; %NULL leaves the choice to the agent. An explicit pick wins; an
 * agent naming its own model gets no override, so the resolver uses
 * it. Without a registry the picker offers nothing, and only an
 * explicit pick counts. */
static JsonObject *
next_model_descriptor (NatterWindow *self)
{
  JsonObject *chosen = g_hash_table_lookup (self->chosen_models, self->session_id);
  JsonObject *last = self->entry != NULL ? natter_session_index_entry_get_last_model (self->entry) : NULL;
  JsonObject *choice = chosen != NULL ? chosen : self->registry != NULL ? last : NULL;
  JsonObject *descriptor;

  if (chosen == NULL && agent_own_model (self) != NULL)
    return NULL;

  if (choice == NULL || !json_object_has_member (choice, "model"))
    return NULL;
  descriptor = json_object_new ();
  json_object_set_string_member (descriptor, "provider", json_object_get_string_member (choice, "provider"));
  json_object_set_string_member (descriptor, "model", json_object_get_string_member (choice, "model"));
  return descriptor;
}

/* "Use Ollama Instead": a way out of a provider that is gone, unless
 * the default is that provider or is not configured either. */
static char *
fallback_label (NatterWindow *self,
                const char   *provider_id)
{
  g_autoptr(NatterOpenaiProvider) fallback = NULL;
  g_auto(GStrv) configured = natter_provider_registry_list_providers (self->registry);

  if (self->provider_id == NULL || g_strcmp0 (self->provider_id, provider_id) == 0 ||
      !g_strv_contains ((const char * const *) configured, self->provider_id))
    return NULL;
  fallback = natter_provider_registry_get_provider (self->registry, self->provider_id, NULL);
  if (fallback == NULL)
    return NULL;
  /* Translators: %s is the name of a model provider, e.g. "Ollama" */
  return g_strdup_printf (_("Use %s Instead"), natter_openai_provider_get_display_name (fallback));
}

/* Points the picker at @provider_id's list: a configured provider's (kept
 * by the picker, so this is cheap when switching back), or the unknown
 * state for a removed provider or a bare endpoint URL, never another
 * provider's list in its place. */
static void
list_provider (NatterWindow *self,
               const char   *provider_id)
{
  g_autoptr(NatterOpenaiProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) configured = NULL;
  g_autofree char *fallback = NULL;
  g_autofree char *title = NULL;
  g_autofree char *message = NULL;

  g_free (self->listed_provider);
  self->listed_provider = g_strdup (provider_id);
  if (self->registry == NULL || provider_id == NULL)
    {
      natter_model_picker_set_provider (self->model_picker, NULL, NULL);
      return;
    }

  configured = natter_provider_registry_list_providers (self->registry);
  if (!natter_provider_id_is_endpoint (provider_id) && g_strv_contains ((const char * const *) configured, provider_id))
    provider = natter_provider_registry_get_provider (self->registry, provider_id, &error);
  if (provider != NULL)
    {
      natter_model_picker_set_provider (self->model_picker, provider,
                                        natter_openai_provider_get_display_name (provider));
      return;
    }

  fallback = fallback_label (self, provider_id);
  if (natter_provider_id_is_endpoint (provider_id))
    {
      title = g_strdup (_("Not One of Your Providers"));
      /* Translators: %s is a server address, e.g. "http://localhost:8080/v1" */
      message = g_strdup_printf (_("This conversation’s model was reached at %s directly. "
                                   "Add that server in Preferences to list its models."), provider_id);
    }
  else
    {
      /* Translators: %s is the id of a model provider, e.g. "openrouter" */
      title = g_strdup_printf (_("“%s” Is Not Configured"), provider_id);
      message = g_strdup (_("This conversation’s provider is not among your providers any more. "
                            "Add it again in Preferences to list its models."));
    }
  natter_model_picker_set_unavailable (self->model_picker, title, message, fallback);
}

static void
update_model_picker (NatterWindow *self)
{
  gboolean usable = self->entry != NULL && natter_session_index_entry_get_error (self->entry) == NULL;
  const char *provider = NULL;
  const char *model = NULL;

  gtk_widget_set_visible (GTK_WIDGET (self->model_picker), usable);
  if (!usable)
    {
      natter_model_picker_set_model (self->model_picker, NULL);
      return;
    }
  current_choice (self, &provider, &model);
  /* Resolving looks the key up: only when the provider changes. */
  if (self->listed_provider == NULL || g_strcmp0 (provider, self->listed_provider) != 0)
    list_provider (self, provider);
  natter_model_picker_set_model (self->model_picker, model);
}

static void
model_chosen_cb (NatterWindow *self,
                 const char   *model)
{
  const char *provider = natter_model_picker_get_provider_id (self->model_picker);
  JsonObject *choice;

  /* A model goes with the provider whose list it came from. */
  if (self->session_id == NULL || provider == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", provider);
  json_object_set_string_member (choice, "model", model);
  g_hash_table_replace (self->chosen_models, g_strdup (self->session_id), choice);
}

static void
model_fallback_cb (NatterWindow *self)
{
  JsonObject *choice;

  if (self->session_id == NULL || self->provider_id == NULL)
    return;
  choice = json_object_new ();
  json_object_set_string_member (choice, "provider", self->provider_id);
  if (self->default_model != NULL)
    json_object_set_string_member (choice, "model", self->default_model);
  g_hash_table_replace (self->chosen_models, g_strdup (self->session_id), choice);
  update_model_picker (self);
}

static void
update_title (NatterWindow *self)
{
  const char *title = NULL;
  g_autofree char *model = NULL;

  if (self->entry != NULL)
    {
      title = natter_session_index_entry_get_title (self->entry);
      /* A damaged session keeps the title its readable lines give. */
      if (natter_session_index_entry_get_error (self->entry) != NULL && (title == NULL || title[0] == '\0'))
        title = _("Damaged Conversation");
      else if (title == NULL || title[0] == '\0')
        title = _("New chat");
      model = natter_session_index_entry_dup_last_model_string (self->entry);
    }
  adw_window_title_set_title (self->window_title, title != NULL ? title : "");
  adw_window_title_set_subtitle (self->window_title, model != NULL ? model : "");
  gtk_widget_set_visible (self->conversation_menu_button, self->entry != NULL);
  update_model_picker (self);
}

static void
update_conversation (NatterWindow *self)
{
  const char *error = self->entry != NULL ? natter_session_index_entry_get_error (self->entry) : NULL;
  gboolean has_session = self->session_id != NULL && self->entry != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.rename", has_session && error == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete", has_session);
  update_keyboard_actions (self);
  update_title (self);

  if (!has_session)
    {
      gtk_stack_set_visible_child_name (self->content_stack, "empty");
      return;
    }
  update_composer (self);
  if (error != NULL)
    {
      show_damage (self);
      gtk_stack_set_visible_child_name (self->content_stack, "errored");
      return;
    }
  gtk_stack_set_visible_child_name (self->content_stack, "conversation");
  gtk_widget_set_visible (self->new_conversation_page,
                          self->timeline != NULL && natter_timeline_model_get_loaded (self->timeline) &&
                          g_list_model_get_n_items (G_LIST_MODEL (self->timeline)) == 0);
}

static void
entry_notify_cb (NatterWindow *self)
{
  update_conversation (self);
}

static void
hub_processing_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   NatterWindow       *self)
{
  if (self->entry != NULL &&
      g_strcmp0 (turn_id, natter_session_index_entry_get_latest_turn_id (self->entry)) == 0)
    update_composer (self);
}

static void
set_entry (NatterWindow            *self,
           NatterSessionIndexEntry *entry)
{
  if (self->entry == entry)
    return;
  if (self->entry != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->entry, self);
      g_clear_object (&self->entry);
    }
  if (entry != NULL)
    {
      self->entry = g_object_ref (entry);
      g_signal_connect_swapped (entry, "notify", G_CALLBACK (entry_notify_cb), self);
    }
}

static void
save_draft (NatterWindow *self)
{
  g_autofree char *draft = NULL;

  if (self->session_id == NULL)
    return;
  draft = natter_composer_dup_text (self->composer);
  if (draft[0] != '\0')
    g_hash_table_replace (self->drafts, g_strdup (self->session_id), g_steal_pointer (&draft));
  else
    g_hash_table_remove (self->drafts, self->session_id);
}

/* The latest turns a window showing the bottom reads as soon as they are
 * known: about as many as its viewport shows. */
#define READ_LATEST_TURNS 4

static void
timeline_items_changed_cb (NatterWindow *self)
{
  /* The list view is about to place the latest rows in view: their turns
   * are read now, with its first layout, rather than after it. A window
   * not shown yet reads nothing until it is. */
  if (self->timeline != NULL && self->stick_to_bottom && gtk_widget_get_mapped (GTK_WIDGET (self)))
    natter_timeline_model_read_latest (self->timeline, READ_LATEST_TURNS);
  update_conversation (self);
}

static void
close_session (NatterWindow *self)
{
  /* An error about this conversation does not belong to the next one. */
  if (self->error_session_id != NULL)
    hide_error (self);
  save_draft (self);
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  self->timeline = NULL;
  set_entry (self, NULL);
  g_clear_pointer (&self->session_id, g_free);
  gtk_list_view_set_model (self->timeline_list, NULL);
  natter_composer_set_text (self->composer, NULL);
  update_conversation (self);
}

/**
 * natter_window_open_session:
 * @self: the window
 * @session_id: a session in the index
 *
 * Shows @session_id: its timeline (read lazily, turns on screen first),
 * its draft, and the composer state of its latest turn; remembers it in
 * GSettings `last-session`. An errored session (§8.2) shows its error and
 * cannot take messages. While the startup scan is still running (a Shell
 * search result that launched the app), the session is opened as soon
 * as the index is loaded, in place of the last open one.
 *
 * Returns: %FALSE if @session_id is not in the (loaded) index
 */
gboolean
natter_window_open_session (NatterWindow *self,
                            const char   *session_id)
{
  NatterSessionIndexEntry *entry;
  g_autoptr(GtkNoSelection) selection = NULL;
  NatterTimelineModel *timeline;

  g_return_val_if_fail (NATTER_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  if (self->sessions == NULL)
    return FALSE;
  if (!natter_session_index_get_loaded (self->index) && !self->restored)
    {
      g_free (self->open_when_loaded);
      self->open_when_loaded = g_strdup (session_id);
      return TRUE;
    }
  entry = natter_session_index_lookup (self->index, session_id);
  if (entry == NULL || g_hash_table_contains (self->pending_deletes, session_id))
    return FALSE;
  if (g_strcmp0 (session_id, self->session_id) == 0)
    return TRUE;

  close_session (self);
  self->session_id = g_strdup (session_id);
  set_entry (self, entry);
  apply_session_agent (self);
  natter_settings_set_last_session (self->settings, session_id);

  if (natter_session_index_entry_get_error (entry) == NULL)
    {
      timeline = g_hash_table_lookup (self->timelines, session_id);
      if (timeline == NULL)
        {
          timeline = natter_timeline_model_new (self->sessions, self->hub, session_id);
          g_hash_table_insert (self->timelines, g_strdup (session_id), timeline);
        }
      self->timeline = timeline;
      g_signal_connect_swapped (timeline, "items-changed", G_CALLBACK (timeline_items_changed_cb), self);
      g_signal_connect_swapped (timeline, "notify::loaded", G_CALLBACK (timeline_items_changed_cb), self);
      selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (timeline)));
      self->stick_to_bottom = TRUE;
      gtk_list_view_set_model (self->timeline_list, GTK_SELECTION_MODEL (selection));
      natter_composer_set_text (self->composer, g_hash_table_lookup (self->drafts, session_id));
    }
  update_conversation (self);
  sync_selection (self);
  follow_bottom (self);
  return TRUE;
}

/* Sending */

typedef struct
{
  NatterWindow *self;
  char         *session_id;
  char         *text;
  gboolean      restore_draft;
  gboolean      refocus;
  JsonObject        *input;
  NatterSendOptions *options;
} SendData;

static void
send_data_free (SendData *data)
{
  g_object_unref (data->self);
  g_free (data->session_id);
  g_free (data->text);
  g_clear_pointer (&data->input, json_object_unref);
  g_clear_pointer (&data->options, natter_send_options_free);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SendData, send_data_free)

/* A message that could not go out: its words are not lost (pitfall 9),
 * they go back into the draft unless the user has typed something new
 * meanwhile. */
static void
send_failed (SendData     *data,
             const GError *error)
{
  NatterWindow *self = data->self;

  if (data->restore_draft)
    {
      if (g_strcmp0 (self->session_id, data->session_id) == 0)
        {
          g_autofree char *draft = natter_composer_dup_text (self->composer);

          if (draft[0] == '\0')
            natter_composer_set_text (self->composer, data->text);
        }
      else if (!g_hash_table_contains (self->drafts, data->session_id))
        g_hash_table_insert (self->drafts, g_strdup (data->session_id), g_strdup (data->text));
    }
  show_error (self, data->session_id, _("The message was not sent"), error, data->text);
}

static void
send_done (SendData *data)
{
  NatterWindow *self = data->self;

  update_composer (self);
  /* The composer was insensitive while the message went out, which took
   * its focus: give it back, so the next message is typed at once. */
  if (data->refocus && g_strcmp0 (self->session_id, data->session_id) == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
send_message_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  turn_id = natter_sessions_send_message_finish (NATTER_SESSIONS (source), result, &error);
  self->sending = FALSE;
  if (turn_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    send_failed (data, error);
  send_done (data);
}

/* Takes @data. */
static void
send_with_options (SendData *data)
{
  natter_sessions_send_message_async (data->self->sessions, data->session_id, data->input, data->options,
                                      data->self->cancellable, send_message_cb, data);
}

static void
send_model_resolved_cb (GObject      *source,
                        GAsyncResult *result,
                        gpointer      user_data)
{
  g_autoptr(SendData) data = user_data;
  NatterWindow *self = data->self;
  g_autoptr(GError) error = NULL;
  JsonObject *model;

  model = natter_provider_registry_resolve_model_finish (NATTER_PROVIDER_REGISTRY (source), result, &error);
  if (model == NULL)
    {
      self->sending = FALSE;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        send_failed (data, error);
      send_done (data);
      return;
    }
  natter_send_options_set_model (data->options, json_object_get_string_member (model, "provider"),
                                 json_object_get_string_member (model, "model"));
  json_object_unref (model);
  send_with_options (g_steal_pointer (&data));
}

static void
send_text (NatterWindow *self,
           const char   *text,
           gboolean      restore_draft)
{
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = NULL;
  g_autoptr(JsonObject) model = NULL;
  const char *provider = NULL;
  const char *model_name = NULL;
  gboolean resolve = FALSE;
  SendData *data;

  if (self->session_id == NULL || self->sessions == NULL)
    return;
  /* A new message answers whatever the last error was about. */
  hide_error (self);

  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  options = natter_send_options_new (next_agent_id (self));
  /* The header's model overrides the agent's (§9, agent.model). */
  if ((model = next_model_descriptor (self)) != NULL)
    natter_send_options_set_model (options, json_object_get_string_member (model, "provider"),
                                   json_object_get_string_member (model, "model"));
  else if (self->registry != NULL && agent_own_model (self) == NULL)
    {
      /* No model named anywhere means the provider's first one: the
       * registry asks for it, the same rule the command line uses. */
      current_choice (self, &provider, &model_name);
      resolve = provider != NULL && (model_name == NULL || model_name[0] == '\0');
    }
  natter_send_options_set_auto_permission (options, natter_settings_get_auto_permission (self->settings));
  natter_send_options_set_max_model_calls (options, natter_settings_get_max_model_calls (self->settings));

  data = g_new0 (SendData, 1);
  data->self = g_object_ref (self);
  data->session_id = g_strdup (self->session_id);
  data->text = g_strdup (text);
  data->restore_draft = restore_draft;
  data->refocus = gtk_widget_get_focus_child (GTK_WIDGET (self->composer)) != NULL;
  data->input = g_steal_pointer (&input);
  data->options = g_steal_pointer (&options);

  self->sending = TRUE;
  self->stick_to_bottom = TRUE;
  update_composer (self);
  if (resolve)
    natter_provider_registry_resolve_model_async (self->registry, provider, NULL, self->cancellable,
                                                  send_model_resolved_cb, data);
  else
    send_with_options (data);
}

static void
composer_send_cb (NatterWindow *self,
                  const char   *text)
{
  natter_composer_set_text (self->composer, NULL);
  g_hash_table_remove (self->drafts, self->session_id);
  send_text (self, text, TRUE);
}

static void
stop_turn_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_stop_turn_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, self->session_id, _("The answer could not be stopped"), error, NULL);
}

static void
composer_stop_cb (NatterWindow *self)
{
  const char *latest = self->entry != NULL ? natter_session_index_entry_get_latest_turn_id (self->entry) : NULL;

  if (latest == NULL)
    return;
  natter_sessions_stop_turn_async (self->sessions, latest, NULL, self->cancellable,
                                   stop_turn_cb, g_object_ref (self));
}

/* Actions */

static void
create_session_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  session_id = natter_sessions_create_session_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, NULL, _("A new conversation could not be started"), error, NULL);
      return;
    }
  natter_window_open_session (self, session_id);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
new_chat_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->sessions == NULL)
    return;
  /* An empty conversation is already a new chat: do not pile up more. */
  if (self->entry != NULL && natter_session_index_entry_get_turn_count (self->entry) == 0 &&
      natter_session_index_entry_get_error (self->entry) == NULL)
    {
      adw_leaflet_set_visible_child (self->leaflet, self->content);
      gtk_widget_grab_focus (GTK_WIDGET (self->composer));
      return;
    }
  natter_sessions_create_session_async (self->sessions, NULL, NULL, NULL, NULL, self->cancellable,
                                        create_session_cb, g_object_ref (self));
}

static void
search_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->sidebar);
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
set_title_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_set_title_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, NULL, _("The conversation was not renamed"), error, NULL);
}

static void
rename_response_cb (AdwMessageDialog *dialog,
                    const char       *response,
                    NatterWindow     *self)
{
  GtkEditable *entry = GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog));
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");
  g_autofree char *title = g_strstrip (g_strdup (gtk_editable_get_text (entry)));

  if (g_strcmp0 (response, "rename") != 0 || title[0] == '\0')
    return;
  natter_sessions_set_title_async (self->sessions, session_id, title, self->cancellable,
                                   set_title_cb, g_object_ref (self));
}

static void
rename_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  AdwMessageDialog *dialog;
  GtkWidget *entry;
  const char *title;

  if (self->entry == NULL || natter_session_index_entry_get_error (self->entry) != NULL)
    return;

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (GTK_WINDOW (self), _("Rename Conversation"), NULL));
  entry = gtk_entry_new ();
  title = natter_session_index_entry_get_title (self->entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), title != NULL ? title : "");
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Title"), -1);
  adw_message_dialog_set_extra_child (dialog, entry);
  adw_message_dialog_add_responses (dialog,
                                    "cancel", _("_Cancel"),
                                    "rename", _("_Rename"),
                                    NULL);
  adw_message_dialog_set_response_appearance (dialog, "rename", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (dialog, "rename");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (self->session_id), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (rename_response_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
  gtk_widget_grab_focus (entry);
}

static void
delete_session_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_delete_session_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, NULL, _("The conversation was not deleted"), error, NULL);
}

static void
refilter_pending (NatterWindow *self)
{
  gtk_filter_changed (GTK_FILTER (self->pending_filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_sidebar_page (self);
}

/* The toast went away without Undo: now the file goes. */
static void
delete_toast_dismissed_cb (AdwToast     *toast,
                           NatterWindow *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (toast), "session-id");

  if (g_hash_table_lookup (self->pending_deletes, session_id) != toast)
    return;
  g_hash_table_remove (self->pending_deletes, session_id);
  g_hash_table_remove (self->drafts, session_id);
  g_hash_table_remove (self->timelines, session_id);
  update_keyboard_actions (self);
  natter_sessions_delete_session_async (self->sessions, session_id, NULL,
                                        delete_session_cb, g_object_ref (self));
}

static void
undo_delete_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id = g_variant_get_string (parameter, NULL);
  AdwToast *toast = g_hash_table_lookup (self->pending_deletes, session_id);
  double scroll;

  if (toast == NULL)
    return;
  /* The toast's own button dismisses it; dismissing it here as well
   * would hide it twice (libadwaita 1.2 frees it twice when that happens
   * during its show animation). Without its pending entry, its going away
   * later deletes nothing. */
  g_hash_table_remove (self->pending_deletes, session_id);
  scroll = gtk_adjustment_get_value (sidebar_adjustment (self));
  refilter_pending (self);
  natter_window_open_session (self, session_id);
  keep_sidebar_scroll (self, scroll);
  update_keyboard_actions (self);
}

static void
delete_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *session_id = NULL;
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  const char *title;
  AdwToast *toast;
  guint position;

  if (self->entry == NULL || self->session_id == NULL)
    return;

  session_id = g_strdup (self->session_id);
  position = find_position (self, session_id);
  title = natter_session_index_entry_get_title (self->entry);
  if (title == NULL || title[0] == '\0')
    title = _("New chat");
  /* Translators: %s is a conversation title */
  text = g_strdup_printf (_("“%s” deleted"), title);
  /* A toast's title is Pango markup, and a title is the user's text. */
  escaped = g_markup_escape_text (text, -1);

  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_action_name (toast, "win.undo-delete");
  adw_toast_set_action_target_value (toast, g_variant_new_string (session_id));
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_object_set_data_full (G_OBJECT (toast), "session-id", g_strdup (session_id), g_free);
  g_signal_connect_object (toast, "dismissed", G_CALLBACK (delete_toast_dismissed_cb), self, 0);
  g_hash_table_insert (self->pending_deletes, g_strdup (session_id), g_object_ref (toast));

  g_free (self->last_deleted_id);
  self->last_deleted_id = g_strdup (session_id);

  close_session (self);
  refilter_pending (self);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  update_keyboard_actions (self);
  /* The row below takes the deleted one's place (or the one above, at the
   * end of the list), so a keyboard user goes on from where they were. */
  focus_sidebar_position (self, position);
}

static void
try_again_activated (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  NatterTurnItem *item = self->timeline != NULL
    ? natter_timeline_model_lookup (self->timeline, g_variant_get_string (parameter, NULL)) : NULL;
  g_autofree char *text = item != NULL ? natter_turn_item_dup_input_text (item) : NULL;

  /* A failed turn is terminal: trying again is a new turn with the same
   * words (turn-runtime.md §9). */
  if (text != NULL)
    send_text (self, text, FALSE);
}

static void
fork_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  session_id = natter_sessions_fork_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, NULL, _("The branch could not be made"), error, NULL);
      return;
    }
  natter_window_open_session (self, session_id);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

/* A new session with the history up to and including the turn
 * (session-layer-spec.md, fork); the original stays as it is. */
static void
branch_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);
  NatterTurnItem *item = self->timeline != NULL ? natter_timeline_model_lookup_any (self->timeline, turn_id) : NULL;
  const char *session_id = self->session_id;

  if (self->session_id == NULL || self->sessions == NULL)
    return;
  /* A turn a branch shows from its history belongs to the ancestor. */
  if (item != NULL && natter_turn_item_get_inherited_from (item) != NULL)
    session_id = natter_turn_item_get_inherited_from (item);
  natter_sessions_fork_async (self->sessions, session_id, turn_id,
                              NULL, self->cancellable, fork_cb, g_object_ref (self));
}

/* Damaged conversations: what is left of one, where the damage is, and
 * two ways on (its folder, and a copy of its readable part). */

static void
damage_actions_update (NatterWindow *self)
{
  gboolean current = self->damage != NULL && g_strcmp0 (self->damage_session_id, self->session_id) == 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-damaged-file",
                                 current && self->damage->file != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-readable-part",
                                 current && self->damage->can_copy && self->sessions != NULL);
}

/* The reason in plain words, with the file's name; escaped, since the
 * status page's description is markup. */
static void
damage_describe (NatterWindow *self)
{
  const char *error = natter_session_index_entry_get_error (self->entry);
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;

  if (self->damage != NULL && g_strcmp0 (self->damage_session_id, self->session_id) == 0 &&
      self->damage->reason != NULL)
    {
      g_autofree char *name = g_file_get_basename (self->damage->file);
      g_autofree char *where = NULL;

      if (self->damage->line > 0)
        /* Translators: %u is a line number, the first %s a file name, the second why it cannot be read */
        where = g_strdup_printf (_("Line %u of the file “%s” cannot be read: %s."),
                                 self->damage->line, name, self->damage->reason);
      else
        /* Translators: the first %s is a file name, the second why it cannot be read */
        where = g_strdup_printf (_("The file “%s” cannot be read: %s."), name, self->damage->reason);
      if (self->damage->can_copy)
        text = g_strdup_printf ("%s %s", where,
                                _("The part before the damage can be copied to a new conversation; "
                                  "the file itself is left as it is."));
      else
        text = g_steal_pointer (&where);
    }
  else
    text = g_strdup (error != NULL ? error : "");
  escaped = g_markup_escape_text (text, -1);
  adw_status_page_set_description (self->errored_page, escaped);
}

/* Holds the window weakly: opening a damaged session must not keep a
 * closed window alive until the file has been looked at. */
static void
damage_inspected_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  GWeakRef *weak = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (weak);
  g_autoptr(GError) error = NULL;
  NatterSessionDamage *damage;

  g_weak_ref_clear (weak);
  g_free (weak);
  damage = natter_sessions_inspect_damage_finish (NATTER_SESSIONS (source), result, &error);
  if (damage == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_debug ("Could not inspect the damaged session: %s", error->message);
      return;
    }
  if (self == NULL)
    {
      natter_session_damage_free (damage);
      return;
    }
  g_clear_pointer (&self->damage, natter_session_damage_free);
  self->damage = damage;
  if (self->entry != NULL && natter_session_index_entry_get_error (self->entry) != NULL &&
      g_strcmp0 (self->damage_session_id, self->session_id) == 0)
    damage_describe (self);
  damage_actions_update (self);
}

/* Shows the open damaged session: its reason at once, the details and
 * actions once the readable part has been looked at. */
static void
show_damage (NatterWindow *self)
{
  const char *title = natter_session_index_entry_get_title (self->entry);

  adw_status_page_set_title (self->errored_page,
                             title != NULL && title[0] != '\0' ? title : _("This Conversation Is Damaged"));
  if (g_strcmp0 (self->damage_session_id, self->session_id) != 0)
    {
      g_clear_pointer (&self->damage, natter_session_damage_free);
      g_free (self->damage_session_id);
      self->damage_session_id = g_strdup (self->session_id);
      if (self->sessions != NULL)
        {
          GWeakRef *weak = g_new0 (GWeakRef, 1);

          g_weak_ref_init (weak, self);
          natter_sessions_inspect_damage_async (self->sessions, self->session_id, self->cancellable,
                                                damage_inspected_cb, weak);
        }
    }
  damage_describe (self);
  damage_actions_update (self);
}

static void
file_manager_fallback_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!g_app_info_launch_default_for_uri_finish (result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, NULL, _("The folder could not be opened"), error, NULL);
}

/* No file manager answered ShowItems: open the containing folder with
 * the default application for it (through the portal in a sandbox). */
static void
open_folder (NatterWindow *self,
             GFile        *file)
{
  g_autoptr(GFile) folder = g_file_get_parent (file);
  g_autofree char *uri = g_file_get_uri (folder);
  g_autoptr(GdkAppLaunchContext) context =
    gdk_display_get_app_launch_context (gtk_widget_get_display (GTK_WIDGET (self)));

  g_app_info_launch_default_for_uri_async (uri, G_APP_LAUNCH_CONTEXT (context), self->cancellable,
                                           file_manager_fallback_cb, g_object_ref (self));
}

typedef struct
{
  NatterWindow *self;
  GFile        *file;
} ShowFile;

static void
show_file_free (ShowFile *show)
{
  g_object_unref (show->self);
  g_object_unref (show->file);
  g_free (show);
}

static void
show_items_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  ShowFile *show = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_debug ("FileManager1.ShowItems failed: %s", error->message);
      open_folder (show->self, show->file);
    }
  show_file_free (show);
}

/* "Show File": the file selected in its folder by the desktop's file
 * manager (org.freedesktop.FileManager1), else the folder opened. */
static void
show_damaged_file_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  GDBusConnection *bus = g_application_get_dbus_connection (g_application_get_default ());
  g_autofree char *uri = NULL;
  const char *uris[2] = { NULL, NULL };
  ShowFile *show;

  if (self->damage == NULL || self->damage->file == NULL)
    return;
  if (bus == NULL)
    {
      open_folder (self, self->damage->file);
      return;
    }
  uri = g_file_get_uri (self->damage->file);
  uris[0] = uri;
  show = g_new0 (ShowFile, 1);
  show->self = g_object_ref (self);
  show->file = g_object_ref (self->damage->file);
  g_dbus_connection_call (bus, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                          "org.freedesktop.FileManager1", "ShowItems",
                          g_variant_new ("(^ass)", uris, ""), NULL,
                          G_DBUS_CALL_FLAGS_NONE, -1, self->cancellable, show_items_cb, show);
}

static void
recovered_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *session_id = NULL;

  session_id = natter_sessions_recover_finish (NATTER_SESSIONS (source), result, &error);
  if (session_id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, NULL, _("The readable part could not be copied"), error, NULL);
      return;
    }
  natter_window_open_session (self, session_id);
  adw_leaflet_set_visible_child (self->leaflet, self->content);
}

/* "Copy Readable Part to a New Conversation" (session-layer-spec.md
 * §4.2 stays true: the damaged file is only read). */
static void
copy_readable_part_activated (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->sessions == NULL || self->damage_session_id == NULL)
    return;
  natter_sessions_recover_async (self->sessions, self->damage_session_id, self->cancellable,
                                 recovered_cb, g_object_ref (self));
}

/* The shortcuts window is made when asked for and is destroyed when
 * closed, never kept hidden the way GtkApplication keeps
 * gtk/help-overlay.ui for each window. GTK 4.8's accessibility root
 * answers a request for a child past its visible windows (a screen reader
 * that counted a dialog that has closed since) with the last toplevel,
 * hidden or not, and a hidden window has no object path: a critical, and
 * then a crash. With no window kept hidden, the last toplevel is one that
 * shows. */
static void
show_help_overlay_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autoptr(GtkBuilder) builder = NULL;

  if (self->help_overlay == NULL)
    {
      builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-help-overlay.ui");
      self->help_overlay = GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay"));
      g_object_add_weak_pointer (G_OBJECT (self->help_overlay), (gpointer *) &self->help_overlay);
      gtk_window_set_transient_for (self->help_overlay, GTK_WINDOW (self));
      gtk_window_set_destroy_with_parent (self->help_overlay, TRUE);
    }
  gtk_window_present (self->help_overlay);
}

/* Transient feedback from inside a row, e.g. "Message copied". */
static void
show_toast_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  /* Toast titles are Pango markup; the text may hold a name. */
  g_autofree char *escaped = g_markup_escape_text (g_variant_get_string (parameter, NULL), -1);
  AdwToast *toast = adw_toast_new (escaped);

  adw_toast_set_timeout (toast, 2);
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/* The error bar's Retry: the failed words again, as the composer would
 * send them (they were put back into it). */
static void
retry_send_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *text = g_strdup (self->retry_text);
  g_autofree char *draft = NULL;

  if (text == NULL || g_strcmp0 (self->error_session_id, self->session_id) != 0)
    return;
  draft = natter_composer_dup_text (self->composer);
  if (g_strcmp0 (draft, text) == 0)
    {
      natter_composer_set_text (self->composer, NULL);
      g_hash_table_remove (self->drafts, self->session_id);
    }
  send_text (self, text, TRUE);
}

static void
continue_activated (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  /* The limit's transcript is complete; a new turn picks it up (§9). */
  send_text (NATTER_WINDOW (widget), _("Continue."), FALSE);
}

static void
resume_turn_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *turn_id = NULL;

  turn_id = natter_sessions_resume_turn_finish (NATTER_SESSIONS (source), result, &error);
  if (turn_id == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, self->session_id, _("The answer could not be continued"), error, NULL);
  update_composer (self);
}

static void
resume_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (self->session_id == NULL)
    return;
  self->stick_to_bottom = TRUE;
  natter_sessions_resume_turn_async (self->sessions, self->session_id, self->cancellable,
                                     resume_turn_cb, g_object_ref (self));
}

static void
go_back_cb (NatterWindow *self)
{
  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

/* Keyboard use (issue 7: "keyboard-only use of every feature")
 *
 * The accelerators are the application's (natter-application.c), so the
 * shortcuts window and the tests can list them. What only makes sense
 * next to a focused widget is bound locally: Delete in the session list,
 * and Escape (stop the answer) in the bubble phase of the window, so that
 * an entry, a popover or a dialog that wants Escape gets it first. */

static void
update_keyboard_actions (NatterWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean usable = self->entry != NULL && natter_session_index_entry_get_error (self->entry) == NULL;

  /* A disabled action lets its key through: Ctrl+Z still undoes typing in
   * the composer while no deletion waits for its undo. */
  gtk_widget_action_set_enabled (widget, "win.undo",
                                 self->pending_deletes != NULL &&
                                 g_hash_table_size (self->pending_deletes) > 0);
  gtk_widget_action_set_enabled (widget, "win.stop", latest_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.focus-composer", usable);
  gtk_widget_action_set_enabled (widget, "win.choose-model", usable);
  gtk_widget_action_set_enabled (widget, "win.go-back",
                                 adw_leaflet_get_folded (self->leaflet) &&
                                 adw_leaflet_get_visible_child (self->leaflet) == self->content);
}

/* The list makes the row's widget only when it lays out, a frame after
 * the model changed; until then the list itself holds the focus. */
static gboolean
grab_row (NatterWindow *self)
{
  for (GtkWidget *item = gtk_widget_get_first_child (GTK_WIDGET (self->session_list));
       item != NULL;
       item = gtk_widget_get_next_sibling (item))
    {
      GtkWidget *row = gtk_widget_get_first_child (item);
      NatterSessionIndexEntry *entry;

      if (row == NULL || !NATTER_IS_SESSION_ROW (row) || !gtk_widget_get_child_visible (item))
        continue;
      entry = natter_session_row_get_entry (NATTER_SESSION_ROW (row));
      if (entry != NULL &&
          g_strcmp0 (natter_session_index_entry_get_session_id (entry), self->focus_row_id) == 0)
        return gtk_widget_grab_focus (item);
    }
  return FALSE;
}

static gboolean
focus_row_tick_cb (GtkWidget     *list,
                   GdkFrameClock *clock,
                   gpointer       user_data)
{
  NatterWindow *self = user_data;

  /* The user went elsewhere meanwhile: leave them there. */
  if (gtk_root_get_focus (GTK_ROOT (self)) != list)
    return G_SOURCE_REMOVE;
  if (grab_row (self))
    return G_SOURCE_REMOVE;
  return ++self->focus_row_tries < 10 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/* Gives the keyboard focus to the sidebar row at @position, or to the
 * last row when @position is past the end. */
static void
focus_sidebar_position (NatterWindow *self,
                        guint         position)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sort_model));
  g_autoptr(NatterSessionIndexEntry) entry = NULL;

  if (n == 0)
    {
      /* Nothing left to list: the new-chat button is the next step. */
      gtk_widget_child_focus (self->sidebar, GTK_DIR_TAB_FORWARD);
      return;
    }
  position = MIN (position, n - 1);
  /* Selecting opens the conversation beside the list; on a narrow window
   * that would leave the list, so there the row only takes the focus. */
  if (!adw_leaflet_get_folded (self->leaflet))
    gtk_single_selection_set_selected (self->selection, position);
  entry = g_list_model_get_item (G_LIST_MODEL (self->sort_model), position);
  g_free (self->focus_row_id);
  self->focus_row_id = g_strdup (natter_session_index_entry_get_session_id (entry));
  gtk_widget_activate_action (GTK_WIDGET (self->session_list), "list.scroll-to-item", "u", position);
  if (grab_row (self))
    return;
  /* Until the row's widget exists, the list holds the focus. */
  gtk_widget_grab_focus (GTK_WIDGET (self->session_list));
  self->focus_row_tries = 0;
  gtk_widget_add_tick_callback (GTK_WIDGET (self->session_list), focus_row_tick_cb, self, NULL);
}

/* Focuses the first prompt under @root still waiting for an answer (a
 * permission card not decided yet, a question not answered): the cards
 * take the focus only then. */
static gboolean
focus_pending_prompt_under (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child))
        continue;
      if (NATTER_IS_PERMISSION_CARD (child))
        {
          if (natter_permission_card_focus_default (NATTER_PERMISSION_CARD (child)))
            return TRUE;
          continue;
        }
      if (NATTER_IS_ASK_HUMAN_CARD (child))
        {
          if (natter_ask_human_card_focus_default (NATTER_ASK_HUMAN_CARD (child)))
            return TRUE;
          continue;
        }
      if (focus_pending_prompt_under (child))
        return TRUE;
    }
  return FALSE;
}

static gboolean
focus_pending_prompt (NatterWindow *self)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "conversation") != 0)
    return FALSE;
  return focus_pending_prompt_under (GTK_WIDGET (self->timeline_list));
}

/* Tab in the composer while it is refused because a prompt waits goes to
 * that prompt (Allow, or the answer entry): the next thing to do. */
static gboolean
composer_key_pressed_cb (GtkEventControllerKey *controller,
                         guint                  keyval,
                         guint                  keycode,
                         GdkModifierType        state,
                         NatterWindow          *self)
{
  if ((keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab) ||
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  if (natter_composer_get_blocked_reason (self->composer) == NULL)
    return GDK_EVENT_PROPAGATE;
  return focus_pending_prompt (self) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
}

/* GTK 4.8's list view moves Tab from item to item, so inside a turn only
 * one control could ever be reached (4.12 fixed this), and GtkExpander
 * with a mnemonic title keeps Tab on itself. So the timeline walks Tab
 * itself: through the controls of the focused turn in tree order
 * (message actions, a code block's Copy, expanders, prompt buttons,
 * selectable text), then the neighbouring turn's, and after the last one
 * the window's own Tab leaves the list. */
static void
collect_tab_stops (GtkWidget *widget,
                   GPtrArray *stops)
{
  if (!gtk_widget_get_mapped (widget) || !gtk_widget_get_child_visible (widget) ||
      !gtk_widget_is_sensitive (widget) || !gtk_widget_get_can_focus (widget))
    return;
  if (gtk_widget_get_focusable (widget))
    g_ptr_array_add (stops, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_tab_stops (child, stops);
}

static GtkWidget *
adjacent_item (GtkWidget        *item,
               GtkDirectionType  direction)
{
  return direction == GTK_DIR_TAB_FORWARD ? gtk_widget_get_next_sibling (item)
                                          : gtk_widget_get_prev_sibling (item);
}

static gboolean
timeline_key_pressed_cb (GtkEventControllerKey *controller,
                         guint                  keyval,
                         guint                  keycode,
                         GdkModifierType        state,
                         NatterWindow          *self)
{
  GtkWidget *list = GTK_WIDGET (self->timeline_list);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkDirectionType direction;
  GtkWidget *item;
  guint index;

  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    direction = (state & GDK_SHIFT_MASK) ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
  else if (keyval == GDK_KEY_ISO_Left_Tab)
    direction = GTK_DIR_TAB_BACKWARD;
  else
    return GDK_EVENT_PROPAGATE;

  item = gtk_widget_get_focus_child (list);
  if (item == NULL || focus == NULL)
    return GDK_EVENT_PROPAGATE;

  /* Within the focused turn first; from the item itself, into it. */
  {
    g_autoptr(GPtrArray) stops = g_ptr_array_new ();

    collect_tab_stops (item, stops);
    if (stops->len > 0 && stops->pdata[0] == item)
      g_ptr_array_remove_index (stops, 0);
    if (g_ptr_array_find (stops, focus, &index))
      {
        if (direction == GTK_DIR_TAB_FORWARD && index + 1 < stops->len)
          return gtk_widget_grab_focus (stops->pdata[index + 1]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
        if (direction == GTK_DIR_TAB_BACKWARD && index > 0)
          return gtk_widget_grab_focus (stops->pdata[index - 1]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
      }
    else if (focus == item && direction == GTK_DIR_TAB_FORWARD && stops->len > 0)
      return gtk_widget_grab_focus (stops->pdata[0]) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
  }

  /* On to the neighbouring turn's controls, entering from its near end. */
  for (GtkWidget *next = adjacent_item (item, direction); next != NULL; next = adjacent_item (next, direction))
    {
      g_autoptr(GPtrArray) stops = g_ptr_array_new ();

      collect_tab_stops (next, stops);
      if (stops->len > 0 && stops->pdata[0] == next)
        g_ptr_array_remove_index (stops, 0);
      if (stops->len == 0)
        continue;
      if (gtk_widget_grab_focus (stops->pdata[direction == GTK_DIR_TAB_FORWARD ? 0 : stops->len - 1]))
        return GDK_EVENT_STOP;
    }
  /* Past the last (or first) turn: the window's Tab leaves the list. */
  return GDK_EVENT_PROPAGATE;
}

static gboolean
refocus_cb (gpointer user_data)
{
  NatterWindow *self = user_data;

  self->refocus_id = 0;
  if (gtk_root_get_focus (GTK_ROOT (self)) != NULL)
    return G_SOURCE_REMOVE;
  if (!focus_pending_prompt (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->composer));
  return G_SOURCE_REMOVE;
}

/* A focused control in the conversation that goes away (an answered
 * prompt, the Resume button of a turn that resumed) leaves the keyboard
 * nowhere: send it to the next prompt, or else the composer. */
static void
focus_widget_changed_cb (NatterWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (focus != NULL)
    {
      self->focus_in_timeline = gtk_widget_is_ancestor (focus, GTK_WIDGET (self->timeline_list));
      return;
    }
  if (self->focus_in_timeline && self->refocus_id == 0)
    self->refocus_id = g_idle_add (refocus_cb, self);
  self->focus_in_timeline = FALSE;
}

static void
leaflet_changed_cb (NatterWindow *self)
{
  update_keyboard_actions (self);
}

static void
undo_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  g_autofree char *session_id = NULL;
  g_autoptr(AdwToast) toast = NULL;

  /* Ctrl+Z acts on what has the focus: in a text with typing to undo (the
   * composer) it undoes the typing, even while a deletion waits; the
   * toast's Undo button stays for that. */
  if (GTK_IS_TEXT_VIEW (focus) &&
      gtk_text_buffer_get_can_undo (gtk_text_view_get_buffer (GTK_TEXT_VIEW (focus))))
    {
      gtk_widget_activate_action (focus, "text.undo", NULL);
      return;
    }

  if (self->last_deleted_id != NULL && g_hash_table_contains (self->pending_deletes, self->last_deleted_id))
    session_id = g_strdup (self->last_deleted_id);
  else
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, self->pending_deletes);
      if (g_hash_table_iter_next (&iter, &key, NULL))
        session_id = g_strdup (key);
    }
  if (session_id == NULL)
    return;

  toast = g_object_ref (g_hash_table_lookup (self->pending_deletes, session_id));
  gtk_widget_activate_action (widget, "win.undo-delete", "s", session_id);
  /* No button dismissed this toast, so it is dismissed once here; its
   * pending entry is gone, so going away deletes nothing. Ctrl+Z may come
   * while the toast is still appearing: the guard waits for that to end. */
  natter_toast_guard_dismiss (self->toast_overlay, toast);
  focus_sidebar_position (self, find_position (self, session_id));
}

static void
focus_composer_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
  gtk_widget_grab_focus (GTK_WIDGET (self->composer));
}

static void
stop_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  composer_stop_cb (NATTER_WINDOW (widget));
}

static void
choose_model_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
  natter_model_picker_popup (self->model_picker);
}

static void
go_back_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  guint position = self->session_id != NULL ? find_position (self, self->session_id) : 0;

  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
  /* Back where the user came from: the conversation's row. */
  if (position == GTK_INVALID_LIST_POSITION)
    position = 0;
  focus_sidebar_position (self, position);
}

static void
natter_window_setup_keyboard (NatterWindow *self)
{
  GtkEventController *keys;
  GtkShortcutController *shortcuts;

  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (leaflet_changed_cb), self);
  g_signal_connect_swapped (self->leaflet, "notify::visible-child", G_CALLBACK (leaflet_changed_cb), self);
  g_signal_connect (self, "notify::focus-widget", G_CALLBACK (focus_widget_changed_cb), NULL);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (composer_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->composer), keys);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (timeline_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->timeline_list), keys);

  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("win.stop")));
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (shortcuts));
  update_keyboard_actions (self);
}

/* Startup: the last open session */

static void
restore_last_session (NatterWindow *self)
{
  g_autofree char *requested = NULL;
  g_autofree char *last = NULL;

  if (self->restored || !natter_session_index_get_loaded (self->index))
    return;
  self->restored = TRUE;
  requested = g_steal_pointer (&self->open_when_loaded);
  if (requested != NULL && natter_window_open_session (self, requested))
    return;
  last = g_strdup (natter_settings_get_last_session (self->settings));
  if (last[0] != '\0')
    natter_window_open_session (self, last);
}

static void
index_loaded_cb (NatterWindow *self)
{
  restore_last_session (self);
}

/* Lifetime */

static void
natter_window_dispose (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  /* Toasts still up are dismissed as the overlay goes: forget them first
   * so that closing never finishes a deletion (the session survives). */
  if (self->pending_deletes != NULL)
    g_hash_table_remove_all (self->pending_deletes);
  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->refocus_id, g_source_remove);
  g_clear_handle_id (&self->list_key_id, g_source_remove);
  if (self->scroll_tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self->session_list), self->scroll_tick_id);
      self->scroll_tick_id = 0;
    }
  if (self->hub != NULL)
    g_signal_handlers_disconnect_by_data (self->hub, self);
  if (self->index != NULL)
    g_signal_handlers_disconnect_by_data (self->index, self);
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  self->timeline = NULL;
  set_entry (self, NULL);
  timeline_unrealize_cb (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_WINDOW);

  g_clear_pointer (&self->timelines, g_hash_table_unref);
  g_clear_pointer (&self->chosen_models, g_hash_table_unref);
  g_clear_pointer (&self->chosen_agents, g_hash_table_unref);
  g_clear_pointer (&self->last_agent_toast, g_free);
  g_clear_pointer (&self->error_session_id, g_free);
  g_clear_pointer (&self->retry_text, g_free);
  g_clear_object (&self->selection);
  g_clear_object (&self->sort_model);
  g_clear_object (&self->filter_model);
  g_clear_object (&self->title_filter);
  g_clear_object (&self->pending_filter);

  G_OBJECT_CLASS (natter_window_parent_class)->dispose (object);
}

static void
natter_window_finalize (GObject *object)
{
  NatterWindow *self = NATTER_WINDOW (object);

  if (self->help_overlay != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->help_overlay), (gpointer *) &self->help_overlay);
  g_clear_object (&self->settings);
  g_clear_object (&self->sessions);
  g_clear_object (&self->hub);
  g_clear_object (&self->index);
  g_clear_object (&self->ticker);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->pending_deletes, g_hash_table_unref);
  g_clear_pointer (&self->drafts, g_hash_table_unref);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->open_when_loaded, g_free);
  g_clear_pointer (&self->agent_id, g_free);
  g_clear_object (&self->registry);
  g_clear_pointer (&self->provider_id, g_free);
  g_clear_pointer (&self->default_model, g_free);
  g_clear_pointer (&self->last_deleted_id, g_free);
  g_clear_pointer (&self->focus_row_id, g_free);
  g_clear_pointer (&self->listed_provider, g_free);
  g_clear_pointer (&self->damage, natter_session_damage_free);
  g_clear_pointer (&self->damage_session_id, g_free);

  G_OBJECT_CLASS (natter_window_parent_class)->finalize (object);
}

static void
natter_window_class_init (NatterWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = natter_window_dispose;
  object_class->finalize = natter_window_finalize;
  window_class->close_request = natter_window_close_request;

  g_type_ensure (NATTER_TYPE_COMPOSER);
  g_type_ensure (NATTER_TYPE_MODEL_PICKER);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-window.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, error_revealer);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, error_heading);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, error_detail);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, error_action_button);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, sidebar);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, session_list);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, conversation_menu_button);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, timeline_scroller);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, timeline_list);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, new_conversation_page);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, composer);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, errored_page);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, copy_readable_button);
  gtk_widget_class_bind_template_child (widget_class, NatterWindow, model_picker);
  gtk_widget_class_bind_template_callback (widget_class, model_chosen_cb);
  gtk_widget_class_bind_template_callback (widget_class, model_fallback_cb);
  gtk_widget_class_bind_template_callback (widget_class, go_back_cb);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_bind_template_callback (widget_class, error_close_cb);
  gtk_widget_class_bind_template_callback (widget_class, composer_send_cb);
  gtk_widget_class_bind_template_callback (widget_class, composer_stop_cb);

  gtk_widget_class_install_action (widget_class, "win.new-chat", NULL, new_chat_activated);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_activated);
  gtk_widget_class_install_action (widget_class, "win.rename", NULL, rename_activated);
  gtk_widget_class_install_action (widget_class, "win.delete", NULL, delete_activated);
  gtk_widget_class_install_action (widget_class, "win.undo-delete", "s", undo_delete_activated);
  gtk_widget_class_install_action (widget_class, "win.try-again", "s", try_again_activated);
  gtk_widget_class_install_action (widget_class, "win.continue-turn", "s", continue_activated);
  gtk_widget_class_install_action (widget_class, "win.resume-turn", "s", resume_activated);
  gtk_widget_class_install_action (widget_class, "win.branch-from-turn", "s", branch_activated);
  gtk_widget_class_install_action (widget_class, "win.show-toast", "s", show_toast_activated);
  gtk_widget_class_install_action (widget_class, "win.show-damaged-file", NULL, show_damaged_file_activated);
  gtk_widget_class_install_action (widget_class, "win.copy-readable-part", NULL, copy_readable_part_activated);
  gtk_widget_class_install_action (widget_class, "win.retry-send", NULL, retry_send_activated);
  /* Their keys are the application's accelerators (natter-application.c). */
  gtk_widget_class_install_action (widget_class, "win.undo", NULL, undo_activated);
  gtk_widget_class_install_action (widget_class, "win.focus-composer", NULL, focus_composer_activated);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_activated);
  gtk_widget_class_install_action (widget_class, "win.choose-model", NULL, choose_model_activated);
  gtk_widget_class_install_action (widget_class, "win.go-back", NULL, go_back_activated);
  gtk_widget_class_install_action (widget_class, "win.show-help-overlay", NULL, show_help_overlay_activated);
}

/* Opt-in for bench/bench-app-start.c (NATTER_BENCH_FIRST_FRAME=1): prints
 * the monotonic time of the first painted frame, comparable with the
 * launcher's clock, so app start to first frame is measured from outside. */
static void
bench_after_paint_cb (GdkFrameClock *clock,
                      gpointer       window)
{
  g_printerr ("first-frame %" G_GINT64_FORMAT "\n", g_get_monotonic_time ());
  g_signal_handlers_disconnect_by_func (clock, bench_after_paint_cb, window);
}

static void
bench_realize_cb (GtkWidget *widget)
{
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint",
                    G_CALLBACK (bench_after_paint_cb), widget);
}

static void
natter_window_init (NatterWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The long label wraps rather than widen the window: every page of the
   * content stack counts toward its width, also at 360 px. */
  gtk_label_set_wrap (GTK_LABEL (gtk_button_get_child (self->copy_readable_button)), TRUE);
  gtk_label_set_justify (GTK_LABEL (gtk_button_get_child (self->copy_readable_button)), GTK_JUSTIFY_CENTER);
  natter_toast_guard_attach (self->toast_overlay);

  self->cancellable = g_cancellable_new ();
  self->scroll_before_search = -1;
  self->agent_id = g_strdup (NATTER_WINDOW_DEFAULT_AGENT_ID);
  self->pending_deletes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->drafts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->timelines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->chosen_models = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_object_unref);
  self->chosen_agents = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->agent_chooser = natter_composer_get_agent_chooser (self->composer);
  g_signal_connect_object (self->agent_chooser, "notify::agent-id", G_CALLBACK (agent_chosen_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->agent_chooser, "agent-removed", G_CALLBACK (agent_removed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->agent_chooser, "agents-changed", G_CALLBACK (agents_changed_cb), self,
                           G_CONNECT_SWAPPED);
  natter_window_setup_keyboard (self);
  update_conversation (self);
  if (g_strcmp0 (g_getenv ("NATTER_BENCH_FIRST_FRAME"), "1") == 0)
    g_signal_connect (self, "realize", G_CALLBACK (bench_realize_cb), NULL);
}

static void
natter_window_set_services (NatterWindow       *self,
                            NatterSessions     *sessions,
                            NatterTurnEventHub *hub)
{
  GtkListItemFactory *factory;
  GtkExpression *title;
  GtkEveryFilter *filter;
  GtkShortcutController *shortcuts;
  GtkEventController *keys;
  GtkAdjustment *adjustment;

  self->sessions = g_object_ref (sessions);
  self->hub = g_object_ref (hub);
  self->index = g_object_ref (natter_sessions_list_sessions (sessions));
  self->ticker = natter_time_ticker_new (natter_sessions_get_clock (sessions));

  /* index → filter (search, pending deletes) → sort (newest first) */
  title = gtk_property_expression_new (NATTER_TYPE_SESSION_INDEX_ENTRY, NULL, "title");
  self->title_filter = gtk_string_filter_new (title);
  gtk_string_filter_set_match_mode (self->title_filter, GTK_STRING_FILTER_MATCH_MODE_SUBSTRING);
  gtk_string_filter_set_ignore_case (self->title_filter, TRUE);
  self->pending_filter = gtk_custom_filter_new (not_pending_delete, self, NULL);
  filter = gtk_every_filter_new ();
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (GTK_FILTER (self->title_filter)));
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (GTK_FILTER (self->pending_filter)));
  self->filter_model = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->index)), GTK_FILTER (filter));
  self->sort_model = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (self->filter_model)),
                                              GTK_SORTER (gtk_custom_sorter_new (compare_entries, NULL, NULL)));
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->sort_model)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected-item", G_CALLBACK (selection_changed_cb), self);
  g_signal_connect_swapped (self->sort_model, "items-changed", G_CALLBACK (sidebar_items_changed_cb), self);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (session_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (session_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (session_unbind_cb), self);
  gtk_list_view_set_factory (self->session_list, factory);
  g_object_unref (factory);
  gtk_list_view_set_model (self->session_list, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect_swapped (self->session_list, "activate", G_CALLBACK (session_activate_cb), self);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (session_list_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), keys);

  /* Delete (and a stray BackSpace, which does nothing) in the list only
   * ever leads to the undo toast (pitfall 5). */
  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Delete, 0),
                                                          gtk_named_action_new ("win.delete")));
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_KP_Delete, 0),
                                                          gtk_named_action_new ("win.delete")));
  gtk_widget_add_controller (GTK_WIDGET (self->session_list), GTK_EVENT_CONTROLLER (shortcuts));

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (timeline_setup_cb), self);
  g_signal_connect (factory, "bind", G_CALLBACK (timeline_bind_cb), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (timeline_unbind_cb), self);
  gtk_list_view_set_factory (self->timeline_list, factory);
  g_object_unref (factory);

  adjustment = gtk_scrolled_window_get_vadjustment (self->timeline_scroller);
  g_signal_connect_swapped (adjustment, "value-changed", G_CALLBACK (timeline_value_changed_cb), self);
  g_signal_connect_swapped (adjustment, "notify::upper", G_CALLBACK (timeline_upper_changed_cb), self);
  g_signal_connect_swapped (adjustment, "notify::page-size", G_CALLBACK (timeline_upper_changed_cb), self);
  g_signal_connect_swapped (self->timeline_list, "realize", G_CALLBACK (timeline_realize_cb), self);
  g_signal_connect_swapped (self->timeline_list, "unrealize", G_CALLBACK (timeline_unrealize_cb), self);
  if (gtk_widget_get_realized (GTK_WIDGET (self->timeline_list)))
    timeline_realize_cb (self);

  g_signal_connect (hub, "turn-processing-start", G_CALLBACK (hub_processing_cb), self);
  g_signal_connect (hub, "turn-processing-end", G_CALLBACK (hub_processing_cb), self);
  g_signal_connect_swapped (self->index, "notify::loaded", G_CALLBACK (index_loaded_cb), self);

  update_sidebar_page (self);
  restore_last_session (self);
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
  NatterServices *services;
  NatterWindow *self;

  g_return_val_if_fail (sessions == NULL || NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (sessions == NULL || NATTER_IS_TURN_EVENT_HUB (hub), NULL);

  self = g_object_new (NATTER_TYPE_WINDOW,
                       "application", application,
                       NULL);
  /* The application's settings, so that a change anywhere reaches
   * every window; an application without services (being set up) gets
   * the installed ones. */
  services = application != NULL ? natter_application_get_services (application) : NULL;
  self->settings = services != NULL ? g_object_ref (natter_services_get_settings (services))
                                    : natter_settings_new_default ();
  natter_window_restore_state (self);
  if (sessions != NULL)
    natter_window_set_services (self, sessions, hub);
  return self;
}

/**
 * natter_window_set_agent_id:
 * @self: the window
 * @agent_id: the agent new messages go to
 *
 * Sets the `agentId` of the SendMessageConfig (§9) of every message sent
 * from this window; %NATTER_WINDOW_DEFAULT_AGENT_ID by default.
 */
void
natter_window_set_agent_id (NatterWindow *self,
                            const char   *agent_id)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (agent_id != NULL);

  g_free (self->agent_id);
  self->agent_id = g_strdup (agent_id);
}

/**
 * natter_window_set_agent_store:
 * @self: the window
 * @store: (nullable): the user's agents
 *
 * Shows the composer's agent chooser (issue 7) over Assistant and
 * @store's agents, following them live (the store is watched, so
 * changes from Preferences and by hand show at once). Each session
 * remembers its pick while the app runs; a session opens with the agent
 * of its last turn (`lastAgentId`), else Assistant; a removed agent
 * falls back to Assistant with a toast. The pick is the
 * SendMessageConfig's `agent.agentId` (§9); an agent naming its own
 * model sends no `agent.model` unless the user picked one in the header
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
  natter_agent_chooser_set_store (self->agent_chooser, store);
  gtk_widget_set_visible (GTK_WIDGET (self->agent_chooser), store != NULL);
  apply_session_agent (self);
  update_model_picker (self);
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
 * of the provider of its current model (issue 7): the one picked for the
 * session, else its last turn's (`lastModel`), else @provider_id. The
 * model shown goes with the session's next messages as the
 * SendMessageConfig's `agent.model` `{provider, model}` (§9), with the
 * provider whose list it came from. A provider that is not configured
 * in @registry (removed, or a bare endpoint URL) shows the picker's
 * unknown state with Preferences. Call again when the providers or the
 * defaults change; the lists the picker keeps are reused.
 */
void
natter_window_set_model_provider (NatterWindow           *self,
                                  NatterProviderRegistry *registry,
                                  const char             *provider_id,
                                  const char             *default_model)
{
  g_return_if_fail (NATTER_IS_WINDOW (self));
  g_return_if_fail (registry == NULL || NATTER_IS_PROVIDER_REGISTRY (registry));

  g_set_object (&self->registry, registry);
  g_free (self->provider_id);
  self->provider_id = provider_id != NULL && provider_id[0] != '\0' ? g_strdup (provider_id) : NULL;
  g_free (self->default_model);
  self->default_model = default_model != NULL && default_model[0] != '\0' ? g_strdup (default_model) : NULL;

  /* The providers may have changed under the same id: resolve again. */
  g_clear_pointer (&self->listed_provider, g_free);
  update_model_picker (self);
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
  return self->session_id;
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
  return self->sort_model != NULL ? G_LIST_MODEL (self->sort_model) : NULL;
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
  return self->timeline;
}

/* Test seams (natter-window-private.h) */

void
natter_window_dismiss_pending_deletes (NatterWindow *self)
{
  g_autoptr(GPtrArray) toasts = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  gpointer toast;

  g_hash_table_iter_init (&iter, self->pending_deletes);
  while (g_hash_table_iter_next (&iter, NULL, &toast))
    g_ptr_array_add (toasts, g_object_ref (toast));
  /* What the toast's timeout does, without racing its animations. */
  for (guint i = 0; i < toasts->len; i++)
    delete_toast_dismissed_cb (g_ptr_array_index (toasts, i), self);
}

guint
natter_window_get_n_pending_deletes (NatterWindow *self)
{
  return g_hash_table_size (self->pending_deletes);
}

NatterComposer *
natter_window_get_composer (NatterWindow *self)
{
  return self->composer;
}

GtkWidget *
natter_window_get_session_list (NatterWindow *self)
{
  return GTK_WIDGET (self->session_list);
}

GtkWidget *
natter_window_get_timeline_list (NatterWindow *self)
{
  return GTK_WIDGET (self->timeline_list);
}

GtkAdjustment *
natter_window_get_timeline_adjustment (NatterWindow *self)
{
  return gtk_scrolled_window_get_vadjustment (self->timeline_scroller);
}

NatterModelPicker *
natter_window_get_model_picker (NatterWindow *self)
{
  return self->model_picker;
}

GtkWidget *
natter_window_get_error_bar (NatterWindow *self)
{
  g_return_val_if_fail (NATTER_IS_WINDOW (self), NULL);

  return GTK_WIDGET (self->error_revealer);
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
  return self->last_agent_toast;
}

const char *
natter_window_get_visible_page (NatterWindow *self)
{
  return gtk_stack_get_visible_child_name (self->content_stack);
}
