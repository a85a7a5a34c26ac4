/* natter-window-editing.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Versions of a message in the window. Edit puts a sent message into the
 * composer; sending it then makes a new version: the send pipeline
 * branches at the turn before the message, created with the
 * conversation's title (what marks a branch as a version,
 * docs/format.md §3.2), so the sidebar shows the branch as this
 * conversation going on, and sends the new words there
 * (_natter_window_send_version()). Try Again does the same with the
 * same message. Nothing is discarded: every message that has versions
 * shows "‹ n/N ›" (natter-window-versions.c), and the arrows open the
 * conversation of the other version scrolled to that version of the
 * message.
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-attachment-reuse.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"
#include "natter-version-switcher.h"
#include "natter-window-private.h"

typedef struct
{
  GWeakRef  self;
  char     *turn_id;
} CarryData;

static void
carry_data_free (CarryData *data)
{
  g_weak_ref_clear (&data->self);
  g_free (data->turn_id);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (CarryData, carry_data_free)

static void
attachments_loaded_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(CarryData) data = user_data;
  g_autoptr(NatterWindow) self = g_weak_ref_get (&data->self);
  g_autoptr(GPtrArray) sources = NULL;
  g_autoptr(GError) error = NULL;

  sources = natter_attachments_load_finish (result, &error);
  /* The edit was sent or given up meanwhile: nothing to carry into. */
  if (self == NULL || g_strcmp0 (self->versions.editing_turn_id, data->turn_id) != 0)
    return;
  if (sources == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("The attachments of the message could not be added to the edit"),
                                   error, NULL);
      return;
    }
  natter_composer_restore_attachments (self->conversation.composer, sources);
}

/* The edit starts with the attachments the message was sent with, as
 * chips the user can remove: the new version references the same
 * blobs unless they do. */
static void
carry_attachments (NatterWindow   *self,
                   NatterTurnItem *item,
                   const char     *turn_id)
{
  g_autoptr(GPtrArray) parts = natter_turn_item_dup_attachments (item);
  CarryData *data;

  g_ptr_array_unref (natter_composer_take_attachments (self->conversation.composer));
  if (parts->len == 0 || self->blobs == NULL)
    return;
  data = g_new0 (CarryData, 1);
  g_weak_ref_init (&data->self, self);
  data->turn_id = g_strdup (turn_id);
  natter_attachments_load_async (self->blobs, parts, self->cancellable, attachments_loaded_cb, data);
}

static void
edit_message_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *turn_id = g_variant_get_string (parameter, NULL);
  NatterTurnItem *item = self->conversation.timeline != NULL ? natter_timeline_model_lookup_any (self->conversation.timeline, turn_id) : NULL;
  g_autofree char *text = item != NULL ? natter_turn_item_dup_input_text (item) : NULL;

  if (text == NULL)
    return;
  /* Words being written there are put aside, not lost to the edit. */
  if (self->versions.editing_turn_id == NULL && _natter_window_choice_key (self) != NULL)
    {
      g_autofree char *draft = natter_composer_dup_text (self->conversation.composer);

      if (draft[0] != '\0')
        g_hash_table_replace (self->versions.set_aside, g_strdup (_natter_window_choice_key (self)),
                              g_steal_pointer (&draft));
    }
  g_free (self->versions.editing_turn_id);
  self->versions.editing_turn_id = g_strdup (turn_id);
  natter_composer_set_text (self->conversation.composer, text);
  carry_attachments (self, item, turn_id);
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
  natter_conversation_view_set_editing (self->conversation.view, TRUE);
  _natter_window_update_keyboard_actions (self);
}

/* Back to an ordinary message: the edited words and attachments go,
 * nothing was sent; the words put aside for the edit come back. */
static void
cancel_edit_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  g_autofree char *set_aside = NULL;

  if (self->versions.editing_turn_id == NULL)
    return;
  g_clear_pointer (&self->versions.editing_turn_id, g_free);
  natter_conversation_view_set_editing (self->conversation.view, FALSE);
  set_aside = _natter_window_take_set_aside (self);
  natter_composer_set_text (self->conversation.composer, set_aside);
  g_ptr_array_unref (natter_composer_take_attachments (self->conversation.composer));
  gtk_widget_grab_focus (GTK_WIDGET (self->conversation.composer));
  _natter_window_update_keyboard_actions (self);
}

/* How many frames the arrow's row is watched once it has the focus:
 * the list may still make that row anew (scrolled to the message, or
 * its turn read again), and the focus would then stay on the list. */
#define REFOCUS_KEEP_FRAMES 60

/* Gives the focus back to the arrow that was pressed, in the version it
 * opened (its rows are new ones, made over the frames after its turns
 * are read). Opening sent the focus to the composer meanwhile; if it
 * went elsewhere since, the person moved it, and it stays. The frames
 * are counted from the read: on a busy machine reading alone can take
 * longer than the frames allowed for laying the rows out. Once given,
 * it is given again for a few frames if the row is made anew under it,
 * which leaves the focus on the list itself (never where a person
 * puts it). */
static gboolean
refocus_arrow_tick_cb (GtkWidget     *list,
                       GdkFrameClock *clock,
                       gpointer       user_data)
{
  NatterWindow *self = user_data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  NatterTimelineModel *timeline = self->conversation.timeline;
  GtkWidget *row;
  GtkWidget *switcher;
  GtkWidget *previous;
  GtkWidget *next;
  GtkWidget *arrow;

  if (timeline == NULL)
    return G_SOURCE_REMOVE;
  if (self->versions.refocus_kept_frames > 0)
    {
      if (++self->versions.refocus_kept_frames > REFOCUS_KEEP_FRAMES)
        return G_SOURCE_REMOVE;
      if (focus != NULL && focus != list)
        return gtk_widget_get_ancestor (focus, NATTER_TYPE_VERSION_SWITCHER) != NULL ? G_SOURCE_CONTINUE
                                                                                      : G_SOURCE_REMOVE;
    }
  else
    {
      if (focus != NULL && !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation.composer)))
        return G_SOURCE_REMOVE;
      if (!natter_timeline_model_get_loaded (timeline))
        return G_SOURCE_CONTINUE;
      if (++self->versions.refocus_frames > 120)
        return G_SOURCE_REMOVE;
    }
  /* NULL while the row is not made yet. */
  row = natter_conversation_view_find_turn_row (self->conversation.view, self->versions.refocus_turn);
  switcher = row != NULL ? natter_turn_row_get_version_switcher (NATTER_TURN_ROW (row)) : NULL;
  if (switcher == NULL || !gtk_widget_get_mapped (switcher))
    return G_SOURCE_CONTINUE;
  previous = gtk_widget_get_first_child (switcher);
  next = gtk_widget_get_last_child (switcher);
  arrow = self->versions.refocus_arrow < 0 ? previous : next;
  /* At the first (or last) version that arrow goes nowhere: the other. */
  if (!gtk_widget_is_sensitive (arrow))
    arrow = arrow == previous ? next : previous;
  gtk_widget_grab_focus (arrow);
  if (self->versions.refocus_kept_frames == 0)
    self->versions.refocus_kept_frames = 1;
  return G_SOURCE_CONTINUE;
}

static gboolean
open_version_cb (gpointer user_data)
{
  NatterWindow *self = user_data;
  g_autofree char *session_id = g_steal_pointer (&self->versions.open_session);
  g_autofree char *turn_id = g_steal_pointer (&self->versions.open_turn);

  self->versions.open_id = 0;
  if (!natter_window_open_session (self, session_id))
    return G_SOURCE_REMOVE;
  _natter_window_reveal_turn (self, turn_id);
  if (self->versions.refocus_arrow != 0)
    {
      g_free (self->versions.refocus_turn);
      self->versions.refocus_turn = g_strdup (turn_id);
      self->versions.refocus_frames = 0;
      self->versions.refocus_kept_frames = 0;
      gtk_widget_add_tick_callback (GTK_WIDGET (self->conversation.timeline_list), refocus_arrow_tick_cb, self,
                                    NULL);
    }
  return G_SOURCE_REMOVE;
}

/* Which arrow of a version switcher has the keyboard focus: -1 the
 * previous version's, 1 the next one's, 0 none. */
static int
focused_arrow (NatterWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *switcher = focus != NULL ? gtk_widget_get_ancestor (focus, NATTER_TYPE_VERSION_SWITCHER) : NULL;
  GtkWidget *previous;

  if (switcher == NULL)
    return 0;
  previous = gtk_widget_get_first_child (switcher);
  return focus == previous || gtk_widget_is_ancestor (focus, previous) ? -1 : 1;
}

/* Another version opens where the one left was: at its version of the
 * message, not at the bottom of its conversation. Not from inside the
 * arrow's click: GTK is still handling the press and the release of the
 * button, and opening the other conversation now would take the button
 * away under it (GTK then asks a freed widget where the pointer and the
 * focus are). The last arrow pressed wins. */
static void
open_version_activated (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id;
  const char *turn_id;

  g_variant_get (parameter, "(&s&s)", &session_id, &turn_id);
  g_free (self->versions.open_session);
  g_free (self->versions.open_turn);
  self->versions.open_session = g_strdup (session_id);
  self->versions.open_turn = g_strdup (turn_id);
  /* Pressed from the keyboard, the arrow keeps the focus: the next press
   * goes on to the version after. */
  self->versions.refocus_arrow = focused_arrow (self);
  if (self->versions.open_id == 0)
    self->versions.open_id = g_idle_add (open_version_cb, self);
}

void
_natter_window_class_editing_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.edit-message", "s", edit_message_activated);
  gtk_widget_class_install_action (widget_class, "win.open-version", "(ss)", open_version_activated);
  gtk_widget_class_install_action (widget_class, "win.cancel-edit", NULL, cancel_edit_activated);
}
