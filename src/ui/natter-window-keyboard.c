/* natter-window-keyboard.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Keyboard use: Tab from the composer to a waiting prompt, where focus
 * goes after a deletion or a sent message, and the actions only keys
 * reach. Tab through the timeline's turns is natter-timeline-tab.c's.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-ask-human-card.h"
#include "natter-branch-row.h"
#include "natter-permission-card.h"
#include "natter-provider-error.h"
#include "natter-runtime-error.h"
#include "natter-session-error.h"
#include "natter-session-row.h"
#include "natter-store-error.h"
#include "natter-toast-guard.h"
#include "natter-turn-row.h"
#include "natter-window-private.h"

/* Keyboard use: every feature can be reached without a pointer.
 *
 * The accelerators are the application's (natter-application.c), so the
 * shortcuts window and the tests can list them. What only makes sense
 * next to a focused widget is bound locally: Delete in the session list,
 * and Escape (stop the answer) in the bubble phase of the window, so that
 * an entry, a popover or a dialog that wants Escape gets it first. */

void
_natter_window_update_keyboard_actions (NatterWindow *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  gboolean usable = _natter_window_open_is_usable (self);
  gboolean writable = usable || (self->conversation.entry == NULL && self->conversation.new_chat);

  /* A disabled action lets its key through: Ctrl+Z still undoes typing in
   * the composer while no deletion waits for its undo. */
  gtk_widget_action_set_enabled (widget, "win.undo",
                                 (self->sidebar.pending_deletes != NULL &&
                                  g_hash_table_size (self->sidebar.pending_deletes) > 0) ||
                                 self->folders.undo_toast != NULL);
  gtk_widget_action_set_enabled (widget, "win.stop", _natter_window_latest_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.cancel-edit", self->versions.editing_turn_id != NULL);
  gtk_widget_action_set_enabled (widget, "win.focus-composer", writable);
  gtk_widget_action_set_enabled (widget, "win.choose-model", writable);
  /* Compaction waits for the latest turn: it summarizes settled turns. */
  gtk_widget_action_set_enabled (widget, "win.compact", usable && !_natter_window_latest_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.compact-and-continue",
                                 usable && !_natter_window_latest_is_running (self));
  gtk_widget_action_set_enabled (widget, "win.go-back",
                                 adw_leaflet_get_folded (self->leaflet) &&
                                 adw_leaflet_get_visible_child (self->leaflet) == self->content);
  _natter_window_disable_writes (self);
}

/* Gives the keyboard focus to the sidebar row at @position, or to the
 * last row when @position is past the end. */
void
_natter_window_focus_sidebar_position (NatterWindow *self,
                                       guint         position)
{
  /* Selecting opens the conversation beside the list; on a narrow window
   * that would leave the list, so there the row only takes the focus. */
  if (!natter_sidebar_focus_position (self->session_sidebar, position, !adw_leaflet_get_folded (self->leaflet)))
    /* Nothing left to list: the new-chat button is the next step. */
    gtk_widget_child_focus (self->sidebar_pane, GTK_DIR_TAB_FORWARD);
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
  return focus_pending_prompt_under (GTK_WIDGET (self->conversation.timeline_list));
}

/* Tab in the composer while a prompt waits goes to that prompt (Allow,
 * or the answer entry): the next thing to do. A message typed meanwhile
 * waits in the queue. Not when the focus came into the composer from the
 * timeline, by Tab past its last turn: the prompt was passed on the way,
 * and going back to it would keep Tab going round between the two,
 * never reaching the rest of the window. */
static gboolean
composer_key_pressed_cb (GtkEventControllerKey *controller,
                         guint                  keyval,
                         guint                  keycode,
                         GdkModifierType        state,
                         NatterWindow          *self)
{
  if ((keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab) ||
      (state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0 ||
      self->keyboard.composer_from_timeline)
    return GDK_EVENT_PROPAGATE;
  return focus_pending_prompt (self) ? GDK_EVENT_STOP : GDK_EVENT_PROPAGATE;
}

/* Gives the composer the focus to type in, a start from which Tab goes
 * to a waiting prompt again. */
static void
focus_composer (NatterWindow *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
  self->keyboard.composer_from_timeline = FALSE;
}

static gboolean
refocus_cb (gpointer user_data)
{
  NatterWindow *self = user_data;

  self->keyboard.refocus_id = 0;
  if (gtk_root_get_focus (GTK_ROOT (self)) != NULL)
    return G_SOURCE_REMOVE;
  if (!focus_pending_prompt (self))
    focus_composer (self);
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
      /* Kept while the focus goes from control to control of the
       * composer: the whole composer was reached from the timeline. */
      if (gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation.composer)))
        self->keyboard.composer_from_timeline |= self->keyboard.focus_in_timeline;
      else
        self->keyboard.composer_from_timeline = FALSE;
      self->keyboard.focus_in_timeline = gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation.timeline_list));
      return;
    }
  if (self->keyboard.focus_in_timeline && self->keyboard.refocus_id == 0)
    self->keyboard.refocus_id = g_idle_add (refocus_cb, self);
  self->keyboard.focus_in_timeline = FALSE;
  self->keyboard.composer_from_timeline = FALSE;
}

static void
leaflet_changed_cb (NatterWindow *self)
{
  _natter_window_update_keyboard_actions (self);
}

static void
focus_composer_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
  focus_composer (self);
}

/* A prompt was answered from the keyboard: on to the next waiting prompt,
 * else back to the composer to type on. */
static void
leave_prompt_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (!focus_pending_prompt (self))
    focus_composer (self);
}

static void
stop_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  _natter_window_composer_stop_cb (NATTER_WINDOW (widget));
}

static void
choose_model_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  adw_leaflet_set_visible_child (self->leaflet, self->content);
  natter_model_picker_popup (self->choice.model_picker);
}

static void
go_back_activated (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  guint position = self->conversation.session_id != NULL ? natter_sidebar_find_position (self->session_sidebar, self->conversation.session_id) : 0;

  adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
  /* Back where the user came from: the conversation's row. */
  if (position == GTK_INVALID_LIST_POSITION)
    position = 0;
  _natter_window_focus_sidebar_position (self, position);
}

void
_natter_window_setup_keyboard (NatterWindow *self)
{
  GtkEventController *keys;
  GtkShortcutController *shortcuts;

  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (leaflet_changed_cb), self);
  g_signal_connect_swapped (self->leaflet, "notify::visible-child", G_CALLBACK (leaflet_changed_cb), self);
  g_signal_connect (self, "notify::focus-widget", G_CALLBACK (focus_widget_changed_cb), NULL);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (composer_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->conversation.composer), keys);

  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("win.stop")));
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (shortcuts));

  /* Escape in the composer ends an edit of a sent message first; with no
   * edit (the action disabled) it goes on to Stop. */
  shortcuts = GTK_SHORTCUT_CONTROLLER (gtk_shortcut_controller_new ());
  gtk_shortcut_controller_add_shortcut (shortcuts,
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("win.cancel-edit")));
  gtk_widget_add_controller (GTK_WIDGET (self->conversation.composer), GTK_EVENT_CONTROLLER (shortcuts));
  _natter_window_update_keyboard_actions (self);
}

void
_natter_window_class_keyboard_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.focus-composer", NULL, focus_composer_activated);
  gtk_widget_class_install_action (widget_class, "win.leave-prompt", NULL, leave_prompt_activated);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_activated);
  gtk_widget_class_install_action (widget_class, "win.choose-model", NULL, choose_model_activated);
  gtk_widget_class_install_action (widget_class, "win.go-back", NULL, go_back_activated);
}

