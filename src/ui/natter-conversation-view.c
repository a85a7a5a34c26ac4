/* natter-conversation-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One conversation on screen: its timeline of turns, kept at the bottom
 * while the user reads there (and scrolled to a turn a search result
 * names), the messages queued behind a running answer, and the composer.
 * The window decides which conversation is shown and what a message
 * does; this widget shows it.
 */

#define G_LOG_DOMAIN "natter-conversation-view"

#include "config.h"

#include "natter-accessible.h"
#include "natter-branch-row.h"
#include "natter-conversation-view.h"
#include "natter-scrolled-tab.h"
#include "natter-timeline-tab.h"
#include "natter-turn-item.h"
#include "natter-turn-row.h"

/* How close to the end (in pixels) still counts as "at the bottom". */
#define BOTTOM_SLACK 48.0

/* Rows read ahead on each side of a row that comes into view: about a
 * window's height of short turns, so that scrolling at a reading pace
 * meets turns already read. */
#define READ_AHEAD_ROWS 4

/* Frames during which the timeline keeps to a revealed turn rather than
 * to its bottom: its rows are read and laid out meanwhile, and the list,
 * anchored at the turn, keeps it in view while they grow. */
#define REVEAL_HOLD_FRAMES 30

/* The list view can only scroll to an item it has laid out rows around:
 * the request is made again on the frames after the model is set, until
 * the list holds it (once in view, asking again moves nothing). */
#define REVEAL_ASK_FRAMES 10

struct _NatterConversationView
{
  GtkBox               parent_instance;

  NatterSessions      *sessions;
  NatterBlobStore     *blobs;      /* nullable: given to each turn row */
  NatterTimelineModel *timeline;

  /* Following the bottom: while stuck to it, growth below scrolls; the
   * catch-up waits for the frame's layout (follow_bottom()). */
  gboolean             stick_to_bottom;
  gboolean             follow_pending;
  GdkFrameClock       *layout_clock;
  gulong               layout_handler;
  gint64               rows_checked_frame; /* see check_row_sizes() */
  guint                rows_requeued;

  char                *reveal_turn_id;   /* scrolled to once the timeline has it */
  guint                reveal_tick_id;   /* while set, the bottom is not followed */
  guint                reveal_ticks;
  guint                reveal_position;

  /* Template widgets */
  GtkScrolledWindow   *timeline_scroller;
  GtkListView         *timeline_list;
  GtkWidget           *new_chat_page;
  GtkRevealer         *editing_bar;
  GtkRevealer         *reading_bar;
  NatterQueueView     *queue_view;
  NatterComposer      *composer;
};

G_DEFINE_FINAL_TYPE (NatterConversationView, natter_conversation_view, GTK_TYPE_BOX)

enum {
  PROP_0,
  PROP_STICKS_TO_BOTTOM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
set_stick_to_bottom (NatterConversationView *self,
                     gboolean                stick)
{
  if (self->stick_to_bottom == stick)
    return;
  self->stick_to_bottom = stick;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STICKS_TO_BOTTOM]);
}

/* The rows */

static void
turn_row_placed_cb (NatterTurnRow          *row,
                    NatterConversationView *self)
{
  NatterTurnItem *item = natter_turn_row_get_item (row);

  if (self->timeline != NULL && item != NULL)
    natter_timeline_model_read_around (self->timeline, item, READ_AHEAD_ROWS);
}

static GtkWidget *
turn_row_new (NatterConversationView *self)
{
  GtkWidget *row = natter_turn_row_new (self->sessions, self->blobs);

  g_signal_connect_object (row, "placed", G_CALLBACK (turn_row_placed_cb), self, G_CONNECT_DEFAULT);
  return row;
}

/* The factory is declared in the template but stays a signal factory: a
 * turn row needs the sessions service, which a builder factory's
 * template cannot be given, and a recycled list item must become a
 * branch marker or a turn row as its new item needs. */
static void
timeline_setup_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *list_item,
                   NatterConversationView   *self)
{
  gtk_list_item_set_activatable (list_item, FALSE);
  gtk_list_item_set_selectable (list_item, FALSE);
  gtk_list_item_set_child (list_item, turn_row_new (self));
}

/* A branched session's timeline also holds markers (its "Branched from"
 * separator, or why its history cannot be shown). */
static void
timeline_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *list_item,
                  NatterConversationView   *self)
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
                    NatterConversationView   *self)
{
  GtkWidget *child = gtk_list_item_get_child (list_item);

  if (NATTER_IS_TURN_ROW (child))
    natter_turn_row_set_item (NATTER_TURN_ROW (child), NULL);
  else if (NATTER_IS_BRANCH_ROW (child))
    natter_branch_row_set_marker (NATTER_BRANCH_ROW (child), NULL);
}

/* Following the bottom */

static GQuark row_height_quark;
static GQuark row_wanted_quark;

static void
scroll_to_bottom (NatterConversationView *self)
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
follow_bottom (NatterConversationView *self)
{
  /* A search result scrolled to its turn stays there while the rows
   * around it are read and grow. */
  if (!self->stick_to_bottom || self->reveal_tick_id != 0)
    return;
  self->follow_pending = TRUE;
  if (self->layout_clock != NULL)
    gdk_frame_clock_request_phase (self->layout_clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
}

/* GTK 4.8 loses a row's pending allocation when the row's contents ask
 * for a new size while the list view is still allocating (a resize
 * queued then marks the row, but the list view clears its own note of it
 * when its allocation ends): the row is then painted with no allocation
 * ("Trying to snapshot GtkListItemWidget … without a current
 * allocation"), and may keep a stale size. A row whose height changed in
 * this frame's layout is the one that can have been caught so; each such
 * row is allocated once more, within the same frame, before it is
 * painted. A row whose contents grew without its height changing (a
 * code block that learnt its first line) asks for more than it was
 * given: the list view, which alone decides a row's height, then lays
 * out again and measures it anew. */
static void
check_row_sizes (NatterConversationView *self,
                 GdkFrameClock          *clock)
{
  gint64 frame = gdk_frame_clock_get_frame_counter (clock);
  gboolean requeued = FALSE;

  /* At most twice a frame: GTK gives up on a frame's layout after four
   * rounds, and rows that keep changing height are laid out again in the
   * next frame anyway. */
  if (self->rows_checked_frame != frame)
    {
      self->rows_checked_frame = frame;
      self->rows_requeued = 0;
    }
  if (self->rows_requeued >= 2)
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->timeline_list));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int height = gtk_widget_get_height (child);
      int seen = GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (child), row_height_quark));
      int minimum, natural;

      if (!gtk_widget_get_mapped (child))
        continue;
      if (height != seen)
        {
          g_object_set_qdata (G_OBJECT (child), row_height_quark, GINT_TO_POINTER (height));
          gtk_widget_queue_allocate (child);
          requeued = TRUE;
          continue;
        }
      gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (child),
                          &minimum, &natural, NULL, NULL);
      /* Once per height asked for: a row the list view then still gives
       * another height is not one it lost track of, and asking again
       * would lay the list out in every frame. */
      if (height != minimum && height != natural &&
          GPOINTER_TO_INT (g_object_get_qdata (G_OBJECT (child), row_wanted_quark)) != natural + 1)
        {
          g_object_set_qdata (G_OBJECT (child), row_wanted_quark, GINT_TO_POINTER (natural + 1));
          gtk_widget_queue_allocate (GTK_WIDGET (self->timeline_list));
          requeued = TRUE;
        }
    }
  if (requeued)
    self->rows_requeued++;
}

static void
after_layout_cb (GdkFrameClock          *clock,
                 NatterConversationView *self)
{
  check_row_sizes (self, clock);
  if (!self->follow_pending)
    return;
  self->follow_pending = FALSE;
  if (self->stick_to_bottom)
    scroll_to_bottom (self);
}

static void
timeline_realize_cb (NatterConversationView *self)
{
  self->layout_clock = g_object_ref (gtk_widget_get_frame_clock (GTK_WIDGET (self->timeline_list)));
  self->layout_handler = g_signal_connect_after (self->layout_clock, "layout", G_CALLBACK (after_layout_cb), self);
  if (self->follow_pending)
    gdk_frame_clock_request_phase (self->layout_clock, GDK_FRAME_CLOCK_PHASE_LAYOUT);
}

static void
timeline_unrealize_cb (NatterConversationView *self)
{
  if (self->layout_clock != NULL)
    g_clear_signal_handler (&self->layout_handler, self->layout_clock);
  g_clear_object (&self->layout_clock);
}

/* Follow the bottom while the user is there; once they scroll up, growth
 * below never moves them. */
static void
value_changed_cb (NatterConversationView *self,
                  GtkAdjustment          *adjustment)
{
  double bottom = gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment);

  /* The list view moving the value as rows change height, before the
   * bottom is caught up with, is not the user scrolling away. */
  if (self->follow_pending || self->reveal_tick_id != 0)
    return;
  set_stick_to_bottom (self, gtk_adjustment_get_value (adjustment) >= bottom - BOTTOM_SLACK);
}

/* Revealing a turn */

static guint
turn_position (NatterTimelineModel *timeline,
               const char          *turn_id)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (timeline));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (timeline), i);

      if (NATTER_IS_TURN_ITEM (item) && g_strcmp0 (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (item)), turn_id) == 0)
        return i;
    }
  return GTK_INVALID_LIST_POSITION;
}

static GtkWidget *
row_of_turn (GtkWidget  *widget,
             const char *turn_id)
{
  if (NATTER_IS_TURN_ROW (widget))
    {
      NatterTurnItem *item = natter_turn_row_get_item (NATTER_TURN_ROW (widget));

      return item != NULL && g_strcmp0 (natter_turn_item_get_turn_id (item), turn_id) == 0 ? widget : NULL;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = row_of_turn (child, turn_id);

      if (row != NULL)
        return row;
    }
  return NULL;
}

static gboolean
reveal_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  NatterConversationView *self = user_data;

  if (self->reveal_ticks < REVEAL_ASK_FRAMES)
    gtk_widget_activate_action (widget, "list.scroll-to-item", "u", self->reveal_position);
  if (++self->reveal_ticks < REVEAL_HOLD_FRAMES)
    return G_SOURCE_CONTINUE;
  self->reveal_tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
stop_reveal_hold (NatterConversationView *self)
{
  if (self->reveal_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->timeline_list), self->reveal_tick_id);
  self->reveal_tick_id = 0;
}

/* Scrolls to the turn asked for once the timeline lists it. */
static void
try_reveal (NatterConversationView *self)
{
  guint position;

  if (self->reveal_turn_id == NULL || self->timeline == NULL || !natter_timeline_model_get_loaded (self->timeline))
    return;
  position = turn_position (self->timeline, self->reveal_turn_id);
  g_clear_pointer (&self->reveal_turn_id, g_free);
  if (position == GTK_INVALID_LIST_POSITION)
    return;
  /* GTK 4.8 has no gtk_list_view_scroll_to(); its list action anchors the
   * item in view (reveal_tick_cb()). */
  set_stick_to_bottom (self, FALSE);
  self->follow_pending = FALSE;
  stop_reveal_hold (self);
  self->reveal_ticks = 0;
  self->reveal_position = position;
  self->reveal_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->timeline_list), reveal_tick_cb, self, NULL);
}

static void
timeline_changed_cb (NatterConversationView *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  /* The list view is about to place the latest rows in view: their turns
   * are read now, with its first layout, rather than after it. A window
   * not shown yet reads nothing until it is; a narrow one showing its
   * list of conversations reads them now, for the view it opens next. */
  if (self->stick_to_bottom && root != NULL && gtk_widget_get_mapped (GTK_WIDGET (root)))
    natter_timeline_model_read_latest (self->timeline, NATTER_TIMELINE_LATEST_TURNS);
  try_reveal (self);
}

/* GObject */

static void
natter_conversation_view_dispose (GObject *object)
{
  NatterConversationView *self = NATTER_CONVERSATION_VIEW (object);

  if (self->timeline_list != NULL)
    stop_reveal_hold (self);
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_clear_object (&self->timeline);
  timeline_unrealize_cb (self);
  g_clear_object (&self->sessions);
  g_clear_object (&self->blobs);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_CONVERSATION_VIEW);

  G_OBJECT_CLASS (natter_conversation_view_parent_class)->dispose (object);
}

static void
natter_conversation_view_finalize (GObject *object)
{
  NatterConversationView *self = NATTER_CONVERSATION_VIEW (object);

  g_free (self->reveal_turn_id);

  G_OBJECT_CLASS (natter_conversation_view_parent_class)->finalize (object);
}

static void
natter_conversation_view_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  NatterConversationView *self = NATTER_CONVERSATION_VIEW (object);

  switch (prop_id)
    {
    case PROP_STICKS_TO_BOTTOM:
      g_value_set_boolean (value, self->stick_to_bottom);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static gboolean
enter_timeline (GtkWidget        *part,
                GtkDirectionType  direction,
                gpointer          user_data)
{
  NatterConversationView *self = user_data;

  return natter_timeline_tab_enter (self->timeline_list, direction);
}

/* Tab into, through and out of the conversation, in the order it reads:
 * the timeline, then what is under it (the editing and reading bars, the
 * queue, the composer). Its scrolled window is no Tab stop: the timeline
 * is entered at the turn shown nearest to where the focus comes from
 * (natter_timeline_tab_enter()), never through the scrolled window,
 * which would keep the focus where it was when the list does not take
 * it (natter-scrolled-tab.c): in a new chat, and once the first turn is
 * scrolled away. */
static gboolean
natter_conversation_view_focus (GtkWidget        *widget,
                                GtkDirectionType  direction)
{
  NatterConversationView *self = NATTER_CONVERSATION_VIEW (widget);

  if (direction != GTK_DIR_TAB_FORWARD && direction != GTK_DIR_TAB_BACKWARD)
    return GTK_WIDGET_CLASS (natter_conversation_view_parent_class)->focus (widget, direction);
  return natter_scrolled_tab_focus (widget, direction, gtk_widget_get_parent (GTK_WIDGET (self->timeline_scroller)),
                                    enter_timeline, self);
}

static void
natter_conversation_view_class_init (NatterConversationViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  row_height_quark = g_quark_from_static_string ("natter-conversation-view-row-height");
  row_wanted_quark = g_quark_from_static_string ("natter-conversation-view-row-wanted");

  object_class->dispose = natter_conversation_view_dispose;
  object_class->finalize = natter_conversation_view_finalize;
  object_class->get_property = natter_conversation_view_get_property;
  widget_class->focus = natter_conversation_view_focus;

  /**
   * NatterConversationView:sticks-to-bottom:
   *
   * Whether the timeline follows its bottom as turns grow: true while the
   * user reads at the bottom, false once they scroll up or a turn was
   * revealed.
   */
  properties[PROP_STICKS_TO_BOTTOM] =
    g_param_spec_boolean ("sticks-to-bottom", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (NATTER_TYPE_COMPOSER);
  g_type_ensure (NATTER_TYPE_QUEUE_VIEW);
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-conversation-view.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, timeline_scroller);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, timeline_list);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, new_chat_page);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, editing_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, reading_bar);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, queue_view);
  gtk_widget_class_bind_template_child (widget_class, NatterConversationView, composer);
  gtk_widget_class_bind_template_callback (widget_class, timeline_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, timeline_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, timeline_unbind_cb);
  gtk_widget_class_bind_template_callback (widget_class, timeline_realize_cb);
  gtk_widget_class_bind_template_callback (widget_class, timeline_unrealize_cb);
}

static void
natter_conversation_view_init (NatterConversationView *self)
{
  GtkAdjustment *adjustment;

  self->stick_to_bottom = TRUE;
  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));
  natter_timeline_tab_attach (self->timeline_list);

  adjustment = gtk_scrolled_window_get_vadjustment (self->timeline_scroller);
  g_signal_connect_object (adjustment, "value-changed", G_CALLBACK (value_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "notify::upper", G_CALLBACK (follow_bottom), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "notify::page-size", G_CALLBACK (follow_bottom), self, G_CONNECT_SWAPPED);
}

/**
 * natter_conversation_view_new:
 *
 * Creates an empty conversation view: no timeline yet, an empty composer.
 *
 * Returns: (transfer floating): the new view
 */
GtkWidget *
natter_conversation_view_new (void)
{
  return g_object_new (NATTER_TYPE_CONVERSATION_VIEW, NULL);
}

/**
 * natter_conversation_view_set_sessions:
 * @self: the view
 * @sessions: (transfer none): the session layer the turn rows act on
 *
 * Gives the view the sessions service its turn rows answer prompts,
 * retry and branch through. Set it once, before a timeline.
 */
void
natter_conversation_view_set_sessions (NatterConversationView *self,
                                       NatterSessions         *sessions)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (sessions == NULL || NATTER_IS_SESSIONS (sessions));

  g_set_object (&self->sessions, sessions);
}

/**
 * natter_conversation_view_set_blob_store:
 * @self: the view
 * @blobs: (nullable) (transfer none): where sent attachments are read
 *
 * Gives the view the store its turn rows read attachments from. Set it
 * before a timeline: rows made earlier keep the store they were made
 * with.
 */
void
natter_conversation_view_set_blob_store (NatterConversationView *self,
                                         NatterBlobStore        *blobs)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (blobs == NULL || NATTER_IS_BLOB_STORE (blobs));

  g_set_object (&self->blobs, blobs);
}

/**
 * natter_conversation_view_set_timeline:
 * @self: the view
 * @timeline: (transfer none) (nullable): the conversation to show, or %NULL
 *
 * Shows @timeline's turns, opened at the bottom (the latest turn) and
 * following it as turns grow; %NULL empties the list. A reveal asked for
 * with natter_conversation_view_reveal_turn() before or after this call
 * wins over the bottom once the timeline lists the turn.
 */
void
natter_conversation_view_set_timeline (NatterConversationView *self,
                                       NatterTimelineModel    *timeline)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (timeline == NULL || NATTER_IS_TIMELINE_MODEL (timeline));

  natter_conversation_view_release_focus (self);
  if (self->timeline != NULL)
    g_signal_handlers_disconnect_by_data (self->timeline, self);
  g_set_object (&self->timeline, timeline);
  stop_reveal_hold (self);
  if (timeline == NULL)
    {
      g_clear_pointer (&self->reveal_turn_id, g_free);
      gtk_list_view_set_model (self->timeline_list, NULL);
      return;
    }
  g_signal_connect_object (timeline, "items-changed", G_CALLBACK (timeline_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (timeline, "notify::loaded", G_CALLBACK (timeline_changed_cb), self, G_CONNECT_SWAPPED);
  selection = gtk_no_selection_new (g_object_ref (G_LIST_MODEL (timeline)));
  set_stick_to_bottom (self, self->reveal_turn_id == NULL);
  gtk_list_view_set_model (self->timeline_list, GTK_SELECTION_MODEL (selection));
  try_reveal (self);
  follow_bottom (self);
}

/**
 * natter_conversation_view_release_focus:
 * @self: the view
 *
 * Moves the keyboard focus from the timeline's rows, which are about to
 * go (another conversation opens: a version's arrow or Try Again was just
 * clicked), to the composer. Otherwise the list would hand the focus to
 * the first row of the next conversation, and GTK would still compare
 * the going row's button with what is focused next.
 */
void
natter_conversation_view_release_focus (NatterConversationView *self)
{
  GtkRoot *root;
  GtkWidget *focus;

  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));

  root = gtk_widget_get_root (GTK_WIDGET (self));
  focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->timeline_list)))
    return;
  /* A composer that cannot take the focus now (insensitive) must not
   * leave it on a row that goes: then nothing has it for a moment. */
  if (!gtk_widget_grab_focus (GTK_WIDGET (self->composer)))
    gtk_root_set_focus (root, NULL);
}

/**
 * natter_conversation_view_get_timeline:
 * @self: the view
 *
 * Returns: (transfer none) (nullable): the timeline shown
 */
NatterTimelineModel *
natter_conversation_view_get_timeline (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);

  return self->timeline;
}

/**
 * natter_conversation_view_stick_to_bottom:
 * @self: the view
 *
 * Goes back to the bottom and follows it: a message just sent, a turn
 * resumed, is what the user wants to watch.
 */
void
natter_conversation_view_stick_to_bottom (NatterConversationView *self)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));

  stop_reveal_hold (self);
  g_clear_pointer (&self->reveal_turn_id, g_free);
  set_stick_to_bottom (self, TRUE);
  follow_bottom (self);
}

/**
 * natter_conversation_view_get_sticks_to_bottom:
 * @self: the view
 *
 * Returns: whether the timeline follows its bottom
 */
gboolean
natter_conversation_view_get_sticks_to_bottom (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), FALSE);

  return self->stick_to_bottom;
}

/**
 * natter_conversation_view_reveal_turn:
 * @self: the view
 * @turn_id: the turn to show
 *
 * Scrolls to @turn_id rather than the latest turn: at once if the
 * timeline lists it, else as soon as it does (the timeline set next, or
 * the current one once loaded). The turn is kept in view while the rows
 * around it are read; the bottom is no longer followed.
 */
void
natter_conversation_view_reveal_turn (NatterConversationView *self,
                                      const char             *turn_id)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));
  g_return_if_fail (turn_id != NULL);

  g_free (self->reveal_turn_id);
  self->reveal_turn_id = g_strdup (turn_id);
  set_stick_to_bottom (self, FALSE);
  self->follow_pending = FALSE;
  try_reveal (self);
}

/**
 * natter_conversation_view_find_turn_row:
 * @self: the view
 * @turn_id: a turn
 *
 * The row the timeline has made for @turn_id: in view or near it (the
 * list makes rows around what it shows), and recycled for another turn
 * as it scrolls, so it is only good until the next layout.
 *
 * Returns: (transfer none) (nullable): the #NatterTurnRow, or %NULL when
 *   the list has none for @turn_id now
 */
GtkWidget *
natter_conversation_view_find_turn_row (NatterConversationView *self,
                                        const char             *turn_id)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);
  g_return_val_if_fail (turn_id != NULL, NULL);

  return row_of_turn (GTK_WIDGET (self->timeline_list), turn_id);
}

/**
 * natter_conversation_view_set_new_chat_hint:
 * @self: the view
 * @visible: whether the timeline is an empty new chat
 *
 * Shows "New Chat — Type a message below to begin" over an empty
 * timeline, so that a new conversation is not a blank area.
 */
void
natter_conversation_view_set_new_chat_hint (NatterConversationView *self,
                                            gboolean                visible)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));

  gtk_widget_set_visible (self->new_chat_page, visible);
}

/**
 * natter_conversation_view_set_editing:
 * @self: the view
 * @editing: whether the composer holds a sent message being edited
 *
 * Says so above the composer, with a Cancel button (`win.cancel-edit`),
 * for as long as the edit lasts: sending the composer's words makes a new
 * version of that message rather than a new message.
 */
void
natter_conversation_view_set_editing (NatterConversationView *self,
                                      gboolean                editing)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));

  gtk_revealer_set_reveal_child (self->editing_bar, editing);
}

/**
 * natter_conversation_view_get_editing:
 * @self: the view
 *
 * Returns: whether the view says a sent message is being edited
 */
gboolean
natter_conversation_view_get_editing (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), FALSE);

  return gtk_revealer_get_reveal_child (self->editing_bar);
}

/**
 * natter_conversation_view_set_reading_aloud:
 * @self: the view
 * @reading: whether an answer is being read aloud
 *
 * Says so above the composer, with Stop (`win.stop-reading`), for as
 * long as it reads: the answer's own Stop may be scrolled away, or in
 * another conversation.
 */
void
natter_conversation_view_set_reading_aloud (NatterConversationView *self,
                                            gboolean                reading)
{
  g_return_if_fail (NATTER_IS_CONVERSATION_VIEW (self));

  gtk_revealer_set_reveal_child (self->reading_bar, reading);
}

/**
 * natter_conversation_view_get_reading_aloud:
 * @self: the view
 *
 * Returns: whether the view says an answer is being read aloud
 */
gboolean
natter_conversation_view_get_reading_aloud (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), FALSE);

  return gtk_revealer_get_reveal_child (self->reading_bar);
}

/**
 * natter_conversation_view_get_list:
 * @self: the view
 *
 * Returns: (transfer none): the timeline's list view
 */
GtkListView *
natter_conversation_view_get_list (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);

  return self->timeline_list;
}

/**
 * natter_conversation_view_get_scroller:
 * @self: the view
 *
 * Returns: (transfer none): the scrolled window around the timeline
 */
GtkScrolledWindow *
natter_conversation_view_get_scroller (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);

  return self->timeline_scroller;
}

/**
 * natter_conversation_view_get_composer:
 * @self: the view
 *
 * Returns: (transfer none): the composer under the timeline
 */
NatterComposer *
natter_conversation_view_get_composer (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);

  return self->composer;
}

/**
 * natter_conversation_view_get_queue_view:
 * @self: the view
 *
 * Returns: (transfer none): the list of messages queued behind the
 *   running answer
 */
NatterQueueView *
natter_conversation_view_get_queue_view (NatterConversationView *self)
{
  g_return_val_if_fail (NATTER_IS_CONVERSATION_VIEW (self), NULL);

  return self->queue_view;
}
