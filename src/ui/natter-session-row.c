/* natter-session-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One session in the sidebar, bound to its index entry
 * (docs/sessions.md §8.1): the title (or "New chat"), when it last
 * changed, and a mark from latestTurnStatus — plus "processing", which is
 * bus state and never in the index (docs/sessions.md §8.1), taken from the hub.
 * An errored entry (docs/sessions.md §8.2) shows its error instead of a time.
 *
 * How long ago a session changed goes stale while the window stays open,
 * so the rows share one NatterTimeTicker: a single timeout per window (not
 * one per row) that says "a minute has passed" to the rows that are bound
 * right now; a row that shows nothing does not listen, and with no row
 * bound the timeout is not even scheduled. "Now" comes from the clock
 * that stamped updatedAt (the session service's), so a test can move it.
 */

#define G_LOG_DOMAIN "natter-session-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-plain-text.h"
#include "natter-session-row.h"

struct _NatterSessionRow
{
  GtkWidget                parent_instance;

  NatterSessions          *sessions;
  NatterTurnEventHub      *hub;
  NatterTimeTicker        *ticker;
  gulong                   tick_id;
  NatterSessionIndexEntry *entry;
  const char              *mark;

  /* Template children */
  GtkLabel                *title_label;
  GtkLabel                *subtitle_label;
  GtkLabel                *snippet_label;
  GtkBox                  *more_hits;
  GtkLabel                *versions_label;
  guint                    n_versions;
  gboolean                 earlier_version;   /* a search hit in a version not listed */
  gboolean                 damaged_message;   /* a turn the search index could not read */
  GtkSpinner              *spinner;
  GtkLabel                *mark_label;
  GtkImage                *mark_icon;
};

G_DEFINE_FINAL_TYPE (NatterSessionRow, natter_session_row, GTK_TYPE_WIDGET)

/* The shared minute ticker */

struct _NatterTimeTicker
{
  GObject      parent_instance;

  NatterClock *clock;
  guint        holds;
  guint        timeout_id;
};

enum
{
  TICK,
  N_TICKER_SIGNALS
};

static guint ticker_signals[N_TICKER_SIGNALS];

G_DEFINE_FINAL_TYPE (NatterTimeTicker, natter_time_ticker, G_TYPE_OBJECT)

static gboolean ticker_timeout_cb (gpointer data);

/* Wakes at the next whole minute of the clock rather than 60 s from
 * whenever the first row was bound, so that every window's times turn
 * over together; re-aimed at each tick, so it never drifts. */
static void
ticker_schedule (NatterTimeTicker *self)
{
  gint64 now_s = natter_clock_now_us (self->clock) / G_USEC_PER_SEC;
  guint delay = 60 - (guint) (((now_s % 60) + 60) % 60);

  self->timeout_id = g_timeout_add_seconds (delay, ticker_timeout_cb, self);
  g_source_set_name_by_id (self->timeout_id, "[natter] relative time ticker");
}

static gboolean
ticker_timeout_cb (gpointer data)
{
  g_autoptr(NatterTimeTicker) self = g_object_ref (data);

  self->timeout_id = 0;
  g_signal_emit (self, ticker_signals[TICK], 0);
  /* A handler may have released the last hold (and so scheduled nothing). */
  if (self->holds > 0 && self->timeout_id == 0)
    ticker_schedule (self);
  return G_SOURCE_REMOVE;
}

static void
natter_time_ticker_dispose (GObject *object)
{
  NatterTimeTicker *self = NATTER_TIME_TICKER (object);

  g_clear_handle_id (&self->timeout_id, g_source_remove);

  G_OBJECT_CLASS (natter_time_ticker_parent_class)->dispose (object);
}

static void
natter_time_ticker_finalize (GObject *object)
{
  NatterTimeTicker *self = NATTER_TIME_TICKER (object);

  g_clear_object (&self->clock);

  G_OBJECT_CLASS (natter_time_ticker_parent_class)->finalize (object);
}

static void
natter_time_ticker_class_init (NatterTimeTickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_time_ticker_dispose;
  object_class->finalize = natter_time_ticker_finalize;

  /**
   * NatterTimeTicker::tick:
   * @ticker: the ticker
   *
   * A minute of the ticker's clock has passed (or natter_time_ticker_tick()
   * was called): whatever shows a time relative to now should redo it.
   */
  ticker_signals[TICK] = g_signal_new ("tick",
                                       G_TYPE_FROM_CLASS (klass),
                                       G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL,
                                       G_TYPE_NONE, 0);
}

static void
natter_time_ticker_init (NatterTimeTicker *self)
{
}

/**
 * natter_time_ticker_new:
 * @clock: the clock "now" is read from; the one that stamps the times
 *   shown (natter_sessions_get_clock())
 *
 * Creates the ticker the sidebar rows share, so that relative times such
 * as "5 min ago" stay true while the window is open. It schedules
 * nothing until held.
 *
 * Returns: (transfer full): a new ticker
 */
NatterTimeTicker *
natter_time_ticker_new (NatterClock *clock)
{
  NatterTimeTicker *self;

  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);

  self = g_object_new (NATTER_TYPE_TIME_TICKER, NULL);
  self->clock = g_object_ref (clock);
  return self;
}

/**
 * natter_time_ticker_get_clock:
 * @self: a ticker
 *
 * Returns: (transfer none): the clock the ticker reads
 */
NatterClock *
natter_time_ticker_get_clock (NatterTimeTicker *self)
{
  g_return_val_if_fail (NATTER_IS_TIME_TICKER (self), NULL);

  return self->clock;
}

/**
 * natter_time_ticker_hold:
 * @self: a ticker
 *
 * Says that someone shows a relative time and wants #NatterTimeTicker::tick;
 * the first hold schedules the once-a-minute timeout. Balance with
 * natter_time_ticker_release().
 */
void
natter_time_ticker_hold (NatterTimeTicker *self)
{
  g_return_if_fail (NATTER_IS_TIME_TICKER (self));

  if (self->holds++ == 0 && self->timeout_id == 0)
    ticker_schedule (self);
}

/**
 * natter_time_ticker_release:
 * @self: a ticker
 *
 * Undoes one natter_time_ticker_hold(); the last release removes the
 * timeout, so a window whose list shows no row costs no wake-ups.
 */
void
natter_time_ticker_release (NatterTimeTicker *self)
{
  g_return_if_fail (NATTER_IS_TIME_TICKER (self));
  g_return_if_fail (self->holds > 0);

  if (--self->holds == 0)
    g_clear_handle_id (&self->timeout_id, g_source_remove);
}

/**
 * natter_time_ticker_get_active:
 * @self: a ticker
 *
 * Returns: whether the once-a-minute timeout is scheduled (someone holds
 *   the ticker)
 */
gboolean
natter_time_ticker_get_active (NatterTimeTicker *self)
{
  g_return_val_if_fail (NATTER_IS_TIME_TICKER (self), FALSE);

  return self->timeout_id != 0;
}

/**
 * natter_time_ticker_tick:
 * @self: a ticker
 *
 * Emits #NatterTimeTicker::tick now, without waiting for the minute: for
 * a clock that jumped (a test's fake clock, a resume from suspend). The
 * schedule is left as it was.
 */
void
natter_time_ticker_tick (NatterTimeTicker *self)
{
  g_return_if_fail (NATTER_IS_TIME_TICKER (self));

  g_signal_emit (self, ticker_signals[TICK], 0);
}

/* GLib 2.74 has no g_date_time_new_from_unix_utc_usec(); keep the
 * microseconds so that a time stamped a moment ago never looks like the
 * future. */
static GDateTime *
ticker_dup_now (NatterTimeTicker *self)
{
  gint64 now_us = natter_clock_now_us (self->clock);
  g_autoptr(GDateTime) seconds = g_date_time_new_from_unix_utc (now_us / G_USEC_PER_SEC);

  return g_date_time_add (seconds, now_us % G_USEC_PER_SEC);
}

/* The row */

/**
 * natter_format_relative_time:
 * @iso8601: (nullable): an ISO-8601 timestamp
 * @now: the present
 *
 * Says when something happened the way a person would: "just now",
 * "5 min ago", "3 h ago", "Yesterday", else the date.
 *
 * Returns: (transfer full): the text ("" for a missing or bad timestamp)
 */
char *
natter_format_relative_time (const char *iso8601,
                             GDateTime  *now)
{
  g_autoptr(GDateTime) then_utc = NULL;
  g_autoptr(GDateTime) then = NULL;
  g_autoptr(GDateTime) now_local = NULL;
  GTimeSpan span;
  int days;

  g_return_val_if_fail (now != NULL, NULL);

  if (iso8601 == NULL || (then_utc = g_date_time_new_from_iso8601 (iso8601, NULL)) == NULL)
    return g_strdup ("");
  then = g_date_time_to_local (then_utc);
  now_local = g_date_time_to_local (now);
  span = g_date_time_difference (now_local, then);

  if (span >= 0 && span < G_TIME_SPAN_MINUTE)
    return g_strdup (_("just now"));
  if (span >= 0 && span < G_TIME_SPAN_HOUR)
    {
      int minutes = span / G_TIME_SPAN_MINUTE;

      /* Translators: a time in the sidebar */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d min ago", "%d min ago", minutes), minutes);
    }

  days = g_date_time_get_day_of_year (now_local) - g_date_time_get_day_of_year (then);
  if (g_date_time_get_year (now_local) != g_date_time_get_year (then))
    days = -1;
  if (span >= 0 && days == 0)
    {
      int hours = span / G_TIME_SPAN_HOUR;

      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d h ago", "%d h ago", hours), hours);
    }
  if (span >= 0 && days == 1)
    return g_strdup (_("Yesterday"));
  if (g_date_time_get_year (now_local) == g_date_time_get_year (then))
    /* Translators: a date in the sidebar, see g_date_time_format() */
    return g_date_time_format (then, _("%e %b"));
  /* Translators: a date of another year in the sidebar */
  return g_date_time_format (then, _("%e %b %Y"));
}

static void
set_mark (NatterSessionRow *self,
          const char       *mark,
          const char       *label,
          const char       *icon_name,
          const char       *description)
{
  self->mark = mark;
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), g_strcmp0 (mark, "running") == 0);
  gtk_spinner_set_spinning (self->spinner, g_strcmp0 (mark, "running") == 0);
  gtk_label_set_text (self->mark_label, label != NULL ? label : "");
  gtk_widget_set_visible (GTK_WIDGET (self->mark_label), label != NULL);
  gtk_image_set_from_icon_name (self->mark_icon, icon_name);
  gtk_widget_set_visible (GTK_WIDGET (self->mark_icon), icon_name != NULL);
  /* Red says something went wrong: a damaged conversation or message,
   * or a failed answer, never an answer being written on another device. */
  if (g_strcmp0 (mark, "errored") == 0 || g_strcmp0 (mark, "damaged-message") == 0 ||
      g_strcmp0 (mark, "failed") == 0)
    gtk_widget_add_css_class (GTK_WIDGET (self->mark_icon), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->mark_icon), "error");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->mark_icon), description);
  if (description != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->mark_icon),
                                    GTK_ACCESSIBLE_PROPERTY_LABEL, description, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->spinner),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Working"), -1);
}

/* Also the ::tick handler: only the time can have changed. */
/* The row's list item is named as the row reads: its title, then the
 * time or the damage, and its mark ("needs you", "The last answer
 * failed"). */
static void
update_accessible (NatterSessionRow *self)
{
  g_autoptr(GString) description = g_string_new (gtk_label_get_text (self->subtitle_label));
  const char *mark = NULL;

  if (gtk_widget_get_visible (GTK_WIDGET (self->mark_label)))
    mark = gtk_label_get_text (self->mark_label);
  else if (gtk_widget_get_visible (GTK_WIDGET (self->mark_icon)))
    mark = gtk_widget_get_tooltip_text (GTK_WIDGET (self->mark_icon));
  else if (gtk_widget_get_visible (GTK_WIDGET (self->spinner)))
    mark = _("Working");
  if (mark != NULL && mark[0] != '\0')
    {
      if (description->len > 0)
        /* Translators: between the parts of what a screen reader says of
         * a conversation in the list: "5 minutes ago, needs you" */
        g_string_append (description, _(", "));
      g_string_append (description, mark);
    }
  natter_accessible_name_list_item (GTK_WIDGET (self), gtk_label_get_text (self->title_label), description->str);
}

static void
update_time (NatterSessionRow *self)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *when = NULL;
  const char *activity;

  if (self->entry == NULL || natter_session_index_entry_get_error (self->entry) != NULL)
    return;
  now = ticker_dup_now (self->ticker);
  /* The time the list is ordered by: the latest turn's (a rename is
   * not activity), or the creation time of a session without turns. */
  activity = natter_session_index_entry_get_latest_turn_at (self->entry);
  if (activity == NULL)
    activity = natter_session_index_entry_get_created_at (self->entry);
  when = natter_format_relative_time (activity, now);
  gtk_label_set_text (self->subtitle_label, when);
  update_accessible (self);
}

/**
 * natter_session_dup_damaged_title:
 * @sessions: the session service
 * @entry: the index entry of a damaged session whose readable lines give
 *   it no title
 *
 * The name such a session goes by, in the list and in the header alike
 * (docs/sessions.md §8.1): never "New chat", which it may well not be. A
 * version is known by its original's title, as the other versions are;
 * a session nothing is known of is a damaged conversation. Its control
 * characters are their stand-ins.
 *
 * Returns: (transfer full): the name
 */
char *
natter_session_dup_damaged_title (NatterSessions          *sessions,
                                  NatterSessionIndexEntry *entry)
{
  const char *parent_id = natter_session_index_entry_get_parent_session (entry);
  NatterSessionIndexEntry *parent = NULL;

  if (natter_session_index_entry_get_is_version (entry) && parent_id != NULL && sessions != NULL)
    parent = natter_session_index_lookup (natter_sessions_list_sessions (sessions), parent_id);
  if (parent != NULL && natter_session_index_entry_get_title (parent) != NULL &&
      natter_session_index_entry_get_title (parent)[0] != '\0')
    return natter_visible_text (natter_session_index_entry_get_title (parent), NATTER_VISIBLE_KEEP_NONE);
  return g_strdup (_("Damaged conversation"));
}

static void
update (NatterSessionRow *self)
{
  const char *title;
  const char *error;
  const char *status;
  const char *latest;
  g_autofree char *visible = NULL;

  if (self->entry == NULL)
    return;

  title = natter_session_index_entry_get_title (self->entry);
  error = natter_session_index_entry_get_error (self->entry);
  status = natter_session_index_entry_get_latest_turn_status (self->entry);
  latest = natter_session_index_entry_get_latest_turn_id (self->entry);

  /* An older file's title may hold control characters: shown as their
   * stand-ins (docs/format.md "title_changed"), never as tofu boxes. */
  visible = natter_visible_text (title, NATTER_VISIBLE_KEEP_NONE);
  if (visible[0] == '\0' && error != NULL)
    {
      g_free (visible);
      visible = natter_session_dup_damaged_title (self->sessions, self->entry);
    }
  gtk_label_set_text (self->title_label, visible[0] != '\0' ? visible : _("New chat"));
  gtk_widget_remove_css_class (GTK_WIDGET (self->subtitle_label), "error");
  if (error != NULL)
    {
      /* The reason names files and turn ids, too long for a subtitle and
       * cut where it would matter: the row says what to do, the tooltip
       * (and the opened conversation) says why. */
      gtk_label_set_text (self->subtitle_label, _("Damaged: open it for details"));
      gtk_widget_add_css_class (GTK_WIDGET (self->subtitle_label), "error");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->subtitle_label), error);
      set_mark (self, "errored", NULL, "dialog-error-symbolic", _("This conversation cannot be read"));
      update_accessible (self);
      return;
    }

  update_time (self);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->subtitle_label), NULL);

  if (latest != NULL && natter_sessions_is_turn_running (self->sessions, latest))
    set_mark (self, "running", NULL, NULL, NULL);
  else if (g_strcmp0 (status, "suspended") == 0)
    set_mark (self, "needs-you", _("needs you"), NULL, NULL);
  else if (self->damaged_message)
    set_mark (self, "damaged-message", NULL, "dialog-error-symbolic",
              _("A message in this conversation cannot be read"));
  else if (g_strcmp0 (status, "idle") == 0 && natter_sessions_is_turn_elsewhere (self->sessions, self->entry))
    {
      /* Translators: %s is the name of another computer the answer is written on */
      g_autofree char *where = g_strdup_printf (_("Answering on “%s”"),
                                                natter_session_index_entry_get_latest_turn_device_name (self->entry));

      set_mark (self, "elsewhere", _("on another device"), "network-transmit-receive-symbolic", where);
    }
  else if (g_strcmp0 (status, "idle") == 0 && natter_sessions_get_write_refusal (self->sessions) != NULL)
    /* This process writes nothing (docs/sessions.md §8.3): the Natter
     * that does may be writing this answer right now, so it is not
     * called interrupted, as the conversation view does not either. */
    set_mark (self, "other-window", _("in another window"), NULL, NULL);
  else if (g_strcmp0 (status, "idle") == 0)
    set_mark (self, "interrupted", _("interrupted"), NULL, NULL);
  else if (g_strcmp0 (status, NATTER_LATEST_TURN_STATUS_ARRIVING) == 0)
    set_mark (self, "arriving", _("arriving"), NULL, NULL);
  else if (g_strcmp0 (status, "failed") == 0)
    set_mark (self, "failed", NULL, "dialog-warning-symbolic", _("The last answer failed"));
  else
    set_mark (self, NULL, NULL, NULL, NULL);
  update_accessible (self);
}

static void
hub_processing_cb (NatterTurnEventHub *hub,
                   const char         *turn_id,
                   NatterSessionRow   *self)
{
  if (self->entry != NULL &&
      g_strcmp0 (turn_id, natter_session_index_entry_get_latest_turn_id (self->entry)) == 0)
    update (self);
}

static void
natter_session_row_dispose (GObject *object)
{
  GtkWidget *child;
  NatterSessionRow *self = NATTER_SESSION_ROW (object);

  natter_session_row_set_entry (self, NULL);
  if (self->hub != NULL)
    g_signal_handlers_disconnect_by_data (self->hub, self);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  g_clear_object (&self->hub);
  g_clear_object (&self->ticker);
  g_clear_object (&self->sessions);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_SESSION_ROW);
  /* Template children without an id are not unparented by
   * gtk_widget_dispose_template(). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);

  G_OBJECT_CLASS (natter_session_row_parent_class)->dispose (object);
}

static void
natter_session_row_class_init (NatterSessionRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_session_row_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-session-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, title_label);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, subtitle_label);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, snippet_label);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, more_hits);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, versions_label);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, mark_label);
  gtk_widget_class_bind_template_child (widget_class, NatterSessionRow, mark_icon);
  gtk_widget_class_set_css_name (widget_class, "natter-session-row");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_session_row_init (NatterSessionRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_session_row_new:
 * @sessions: the session service (for whether a turn runs)
 * @hub: the turn event hub (for processing start/end)
 * @ticker: the ticker shared by the list's rows: where "now" and the
 *   minute refresh of the relative time come from
 *
 * Returns: (transfer floating): an empty row; see natter_session_row_set_entry()
 */
GtkWidget *
natter_session_row_new (NatterSessions     *sessions,
                        NatterTurnEventHub *hub,
                        NatterTimeTicker   *ticker)
{
  NatterSessionRow *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (NATTER_IS_TURN_EVENT_HUB (hub), NULL);
  g_return_val_if_fail (NATTER_IS_TIME_TICKER (ticker), NULL);

  self = g_object_new (NATTER_TYPE_SESSION_ROW, NULL);
  self->sessions = g_object_ref (sessions);
  self->hub = g_object_ref (hub);
  self->ticker = g_object_ref (ticker);
  g_signal_connect (hub, "turn-processing-start", G_CALLBACK (hub_processing_cb), self);
  g_signal_connect (hub, "turn-processing-end", G_CALLBACK (hub_processing_cb), self);
  /* An unfinished answer is the other window's only while this process
   * writes nothing: once it writes, it is interrupted. */
  g_signal_connect_swapped (sessions, "notify::read-only", G_CALLBACK (update), self);
  return GTK_WIDGET (self);
}

/**
 * natter_session_row_set_entry:
 * @self: a row
 * @entry: (nullable): the index entry to show
 *
 * Binds the row; it follows the entry's property notifications itself,
 * and the ticker's minutes while bound (only then).
 */
void
natter_session_row_set_entry (NatterSessionRow        *self,
                              NatterSessionIndexEntry *entry)
{
  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  if (self->entry == entry)
    return;
  if (self->entry != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->entry, self);
      g_clear_object (&self->entry);
      g_clear_signal_handler (&self->tick_id, self->ticker);
      natter_time_ticker_release (self->ticker);
    }
  if (entry != NULL)
    {
      self->entry = g_object_ref (entry);
      g_signal_connect_swapped (entry, "notify", G_CALLBACK (update), self);
      self->tick_id = g_signal_connect_swapped (self->ticker, "tick", G_CALLBACK (update_time), self);
      natter_time_ticker_hold (self->ticker);
      update (self);
    }
}

/**
 * natter_session_row_set_snippet:
 * @self: a row
 * @markup: (nullable): Pango markup of where a search found its words,
 *   already escaped (natter_search_snippet_to_markup()); %NULL hides it
 *
 * Shows, under the title, the words of the conversation a search matched.
 */
void
natter_session_row_set_snippet (NatterSessionRow *self,
                                const char       *markup)
{
  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  gtk_label_set_markup (self->snippet_label, markup != NULL ? markup : "");
  gtk_widget_set_visible (GTK_WIDGET (self->snippet_label), markup != NULL);
}

/**
 * natter_session_row_set_more_hits:
 * @self: a row, with its entry
 * @turn_ids: (nullable) (array zero-terminated=1): the conversation's
 *   other turns where a search found its words, best first
 * @markups: (array zero-terminated=1): the words found in each, as for
 *   natter_session_row_set_snippet()
 * @texts: (array zero-terminated=1): the same words as plain text, for
 *   a screen reader
 *
 * Shows, under the snippet, a button for each of @turn_ids that opens the
 * conversation at that message (win.open-search-hit); none for %NULL.
 */
void
natter_session_row_set_more_hits (NatterSessionRow   *self,
                                  const char * const *turn_ids,
                                  const char * const *markups,
                                  const char * const *texts)
{
  GtkWidget *child;
  guint n = 0;

  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->more_hits))) != NULL)
    gtk_box_remove (self->more_hits, child);
  for (; turn_ids != NULL && turn_ids[n] != NULL && self->entry != NULL; n++)
    {
      GtkWidget *button = gtk_button_new ();
      GtkWidget *label = gtk_label_new (NULL);
      /* Translators: the accessible name of a button in the sidebar that
       * goes to a message a search found; %s is the words found there */
      g_autofree char *name = g_strdup_printf (_("Go to “%s”"), texts[n]);

      gtk_label_set_markup (GTK_LABEL (label), markups[n]);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
      gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "caption");
      gtk_button_set_child (GTK_BUTTON (button), label);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_add_css_class (button, "natter-search-hit");
      gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
      gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "(ss)",
                                        natter_session_index_entry_get_session_id (self->entry), turn_ids[n]);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.open-search-hit");
      gtk_box_append (self->more_hits, button);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->more_hits), n > 0);
}

/**
 * natter_session_row_set_n_versions:
 * @self: a row
 * @n_versions: how many versions the conversation has (edits, new
 *   tries), the one shown included
 *
 * Says under the title that the conversation has other versions, which
 * the "‹ n/N ›" of its messages reach; nothing for 1 (or 0).
 */
static void
show_versions (NatterSessionRow *self)
{
  g_autofree char *text = NULL;
  guint n_versions = self->n_versions;

  if (n_versions > 1 && self->earlier_version)
    /* Translators: under a conversation's title in the sidebar's search:
     * the words were found in a version other than the one the list
     * shows, so its mark and time are that version's */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Found in an earlier version (%u in all)",
                                         "Found in an earlier version (%u in all)", n_versions), n_versions);
  else if (n_versions > 1)
    /* Translators: under a conversation's title in the sidebar: it was
     * edited or tried again, and has this many versions */
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u version", "%u versions", n_versions), n_versions);
  gtk_label_set_text (self->versions_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->versions_label), text != NULL);
}

void
natter_session_row_set_n_versions (NatterSessionRow *self,
                                   guint             n_versions)
{
  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  self->n_versions = n_versions;
  show_versions (self);
}

/**
 * natter_session_row_set_earlier_version:
 * @self: a row
 * @earlier: whether the row is a search hit in a version of its
 *   conversation other than the one the list shows
 *
 * Such a row says so beside the number of versions: its status mark
 * and time are that version's, not those of the conversation's row
 * outside the search.
 */
void
natter_session_row_set_earlier_version (NatterSessionRow *self,
                                        gboolean          earlier)
{
  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  self->earlier_version = !!earlier;
  show_versions (self);
}

/**
 * natter_session_row_set_damaged_message:
 * @self: a row
 * @damaged: whether a message of the conversation cannot be read
 *
 * The session's own file and its latest turn may read while an earlier
 * turn's file does not: the startup scan reads only the latest turn
 * (docs/sessions.md §8.2), and the search index, which reads them all,
 * is what finds it (natter_search_index_dup_unreadable()). The row
 * then shows the damage mark, under a running answer's and one that
 * waits for the person.
 */
void
natter_session_row_set_damaged_message (NatterSessionRow *self,
                                        gboolean          damaged)
{
  g_return_if_fail (NATTER_IS_SESSION_ROW (self));

  if (self->damaged_message == !!damaged)
    return;
  self->damaged_message = !!damaged;
  update (self);
}

/**
 * natter_session_row_get_versions_text:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the "n versions" shown, or %NULL
 */
const char *
natter_session_row_get_versions_text (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->versions_label)))
    return NULL;
  return gtk_label_get_text (self->versions_label);
}

/**
 * natter_session_row_get_snippet:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the markup of the snippet shown,
 *   or %NULL when none is
 */
const char *
natter_session_row_get_snippet (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);

  if (!gtk_widget_get_visible (GTK_WIDGET (self->snippet_label)))
    return NULL;
  return gtk_label_get_label (self->snippet_label);
}

/**
 * natter_session_row_get_entry:
 * @self: a row
 *
 * Returns: (transfer none) (nullable): the bound entry
 */
NatterSessionIndexEntry *
natter_session_row_get_entry (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);
  return self->entry;
}

/**
 * natter_session_row_get_title:
 * @self: a row
 *
 * Returns: the title as shown
 */
const char *
natter_session_row_get_title (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);
  return gtk_label_get_text (self->title_label);
}

/**
 * natter_session_row_get_status_mark:
 * @self: a row
 *
 * Returns: (nullable): the mark shown: `running`, `needs-you`,
 *   `damaged-message`, `elsewhere`, `other-window` (an unfinished answer
 *   in a process that may not write, which the writer may be writing),
 *   `interrupted`, `arriving`, `failed`,
 *   `errored`, or %NULL for none
 */
const char *
natter_session_row_get_status_mark (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);
  return self->mark;
}

/**
 * natter_session_row_get_time_text:
 * @self: a row
 *
 * Returns: the subtitle as shown: the relative time of the last change,
 *   or for a damaged session its error
 */
const char *
natter_session_row_get_time_text (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);
  return gtk_label_get_text (self->subtitle_label);
}

/**
 * natter_session_row_get_ticker:
 * @self: a row
 *
 * Returns: (transfer none): the ticker the row was made with
 */
NatterTimeTicker *
natter_session_row_get_ticker (NatterSessionRow *self)
{
  g_return_val_if_fail (NATTER_IS_SESSION_ROW (self), NULL);
  return self->ticker;
}
