/* natter-markdown-view.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Assistant text as Markdown, built so that a long answer never stalls
 * the window: parsing a whole long answer at once on the main thread is
 * what freezes other chat apps when an answer ends. The text is cut into
 * top-level chunks (natter-markdown-render.c); a chunk is parsed and
 * turned into widgets once, when it is closed. Only the trailing open
 * chunk is rebuilt while an answer streams, at most once per frame, so
 * the work per frame is bounded by the size of that chunk, never by the
 * whole answer. Closed chunks are built a few milliseconds at a time, so
 * even a complete long text given at once lets the main loop breathe
 * between steps.
 */

#define G_LOG_DOMAIN "natter-markdown-view"

#include "config.h"

#include <string.h>
#include <time.h>

#include "natter-code-block.h"
#include "natter-markdown-render-private.h"
#include "natter-markdown-view.h"

/* Time one step may spend building widgets. A frame leaves about 8 ms of
 * the main thread at 120 Hz, and GTK still has to style, measure and draw
 * what we built, which costs many times what building it did, and not in
 * proportion to it: measured under Xvfb, 29 paragraphs built in 1.6 ms
 * made a 48 ms frame (each new wrapping label is shaped by Pango several
 * times on its first layout), while tables cost about four times their
 * build time. What GTK spends follows the amount of text better, so a
 * step is also bounded in bytes: each frame that ran one of our steps is
 * timed from its tick to its paint in the main thread's CPU time, which
 * gives what a byte of new text costs this thread now, and the next step
 * gets the bytes that fit in TARGET_FRAME_CPU_US. CPU time, not wall
 * time: on a loaded machine or with a software GL renderer's threads,
 * the wall time measures the scheduler and other threads, not the work
 * this thread can spread over frames. The first step of a view, before
 * any frame was timed, is a guess that fits a slow machine. */
#define STEP_BUDGET_US 1500
#define TARGET_FRAME_CPU_US 6000
#define FIRST_STEP_BYTES 512
#define MIN_STEP_BYTES 128
#define MAX_STEP_BYTES (64 * 1024)

/* What a byte of new text costs the main thread, in microseconds of CPU
 * per frame (0: not measured yet). Shared by every view: it is this
 * machine's cost now, and a new answer's first step need not guess
 * again. Only the main thread touches it. */
static double us_per_byte;

static gsize
step_budget_bytes (void)
{
  if (us_per_byte <= 0)
    return FIRST_STEP_BYTES;
  return CLAMP ((gsize) (TARGET_FRAME_CPU_US / MAX (us_per_byte, 0.01)), MIN_STEP_BYTES, MAX_STEP_BYTES);
}

/* An open chunk larger than this is shown as plain text until it closes:
 * parsing it again on every frame would cost more than a frame. */
#define MAX_OPEN_PARSE_BYTES (16 * 1024)

struct _NatterMarkdownView
{
  GtkWidget               parent_instance;

  GString                *source;
  /* Bytes of a UTF-8 character that a delta cut in two. */
  char                    tail[4];
  guint                   tail_len;
  gboolean                finished;
  gboolean                ready;

  NatterMarkdownSplitter  splitter;
  GArray                 *closed;        /* NatterMarkdownRange to build */
  guint                   closed_next;

  /* The trailing open chunk: always the last child while it exists. */
  GtkWidget              *open_widget;
  gsize                   open_start;
  gsize                   open_len;
  NatterCodeBlock        *open_code;     /* set when it is an open fence */
  gboolean                open_parsed;   /* rendered as Markdown, not plain */
  gboolean                open_joined;

  guint                   tick_id;
  guint                   idle_id;

  /* Pacing (see STEP_BUDGET_US). */
  gint64                  step_frame_start;  /* tick of a timed frame, or 0 */
  gint64                  step_frame_cpu;    /* the thread's CPU time at that tick */
  gsize                   step_bytes;        /* text built in that frame */
  gint64                  open_built_at;
  gint64                  open_cost_us;      /* last frame that rebuilt it */
  gboolean                open_rebuilt;
  GdkFrameClock          *paint_clock;
  gulong                  after_paint_id;
};

G_DEFINE_FINAL_TYPE (NatterMarkdownView, natter_markdown_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_READY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  ACTIVATE_LINK,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static const char css[] =
  ".natter-md-blockquote {"
  "  border-left: 3px solid alpha(currentColor, 0.25);"
  "  padding-left: 12px;"
  "}"
  /* A quote in a right-to-left text has its bar at the right. */
  ".natter-md-blockquote:dir(rtl) {"
  "  border-left: none;"
  "  padding-left: 0;"
  "  border-right: 3px solid alpha(currentColor, 0.25);"
  "  padding-right: 12px;"
  "}"
  ".natter-md-bullet { min-width: 1.2em; }"
  /* Tables as GNOME draws lists: a rounded frame, lines between the
   * cells, the header row shaded above a stronger rule. Colours come
   * from the text colour, so light and dark alike. */
  ".natter-md-table {"
  "  border: 1px solid alpha(currentColor, 0.15);"
  "  border-radius: 6px;"
  "}"
  ".natter-md-table-header, .natter-md-table-cell { padding: 4px 10px; }"
  ".natter-md-table-header {"
  "  background-color: alpha(currentColor, 0.05);"
  "  border-bottom: 1px solid alpha(currentColor, 0.3);"
  "}"
  ".natter-md-table-cell.natter-md-table-below { border-top: 1px solid alpha(currentColor, 0.15); }"
  ".natter-md-table-header.natter-md-table-after,"
  ".natter-md-table-cell.natter-md-table-after { border-left: 1px solid alpha(currentColor, 0.15); }";

static void
ensure_css (GtkWidget *widget)
{
  GdkDisplay *display = gtk_widget_get_display (widget);
  g_autoptr(GtkCssProvider) provider = NULL;

  if (display == NULL || g_object_get_data (G_OBJECT (display), "natter-markdown-css") != NULL)
    return;

  provider = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (provider, css, -1);
  gtk_style_context_add_provider_for_display (display, GTK_STYLE_PROVIDER (provider),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_object_set_data_full (G_OBJECT (display), "natter-markdown-css",
                          g_steal_pointer (&provider), g_object_unref);
}

/* How many bytes at the end of @text start a UTF-8 character that is not
 * complete yet (0 to 3). */
static guint
incomplete_tail_len (const char *text,
                     gsize       len)
{
  for (guint i = 1; i <= 3 && i <= len; i++)
    {
      guchar c = (guchar) text[len - i];
      guint need;

      if ((c & 0xC0) == 0x80)
        continue;
      if (c >= 0xC2 && c <= 0xDF)
        need = 2;
      else if (c >= 0xE0 && c <= 0xEF)
        need = 3;
      else if (c >= 0xF0 && c <= 0xF4)
        need = 4;
      else
        return 0;
      return i < need ? i : 0;
    }
  return 0;
}

/* Appends @bytes to the source as valid UTF-8: invalid sequences become
 * U+FFFD, and a character cut at the end waits for the next delta. */
static void
append_bytes (NatterMarkdownView *self,
              const char         *bytes,
              gsize               len,
              gboolean            final)
{
  g_autoptr(GString) buf = g_string_new_len (self->tail, self->tail_len);
  gsize keep, use;

  g_string_append_len (buf, bytes, len);
  keep = final ? 0 : incomplete_tail_len (buf->str, buf->len);
  use = buf->len - keep;

  if (g_utf8_validate_len (buf->str, use, NULL))
    {
      g_string_append_len (self->source, buf->str, use);
    }
  else
    {
      g_autofree char *valid = g_utf8_make_valid (buf->str, use);

      g_string_append (self->source, valid);
    }

  memcpy (self->tail, buf->str + use, keep);
  self->tail_len = keep;
}

/* The calling thread's CPU time in microseconds. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return g_get_monotonic_time ();
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
set_ready (NatterMarkdownView *self,
           gboolean            ready)
{
  if (self->ready == ready)
    return;
  self->ready = ready;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_READY]);
}

static void
drop_open_widget (NatterMarkdownView *self)
{
  if (self->open_widget == NULL)
    return;
  gtk_widget_unparent (self->open_widget);
  self->open_widget = NULL;
  self->open_code = NULL;
  self->open_len = 0;
}

/* Chunks are spaced like the blocks inside them; the items of a tight
 * list that the splitter cut apart like the items of one list. */
static void
insert_chunk (NatterMarkdownView *self,
              GtkWidget          *chunk,
              GtkWidget          *before,
              gboolean            joined)
{
  GtkWidget *prev = before != NULL ? gtk_widget_get_prev_sibling (before)
                                   : gtk_widget_get_last_child (GTK_WIDGET (self));

  gtk_widget_set_margin_top (chunk, prev == NULL ? 0 :
                             joined ? NATTER_MARKDOWN_ITEM_SPACING : NATTER_MARKDOWN_BLOCK_SPACING);
  gtk_widget_insert_before (chunk, GTK_WIDGET (self), before);
}

/* The only code block of a chunk that is one fenced block, or NULL. */
static NatterCodeBlock *
single_code_block (GtkWidget *chunk)
{
  GtkWidget *child = gtk_widget_get_first_child (chunk);

  if (child != NULL && gtk_widget_get_next_sibling (child) == NULL && NATTER_IS_CODE_BLOCK (child))
    return NATTER_CODE_BLOCK (child);
  return NULL;
}

static gboolean open_widget_matches (NatterMarkdownView        *self,
                                     const NatterMarkdownRange *range);

static void
build_closed_chunk (NatterMarkdownView        *self,
                    const NatterMarkdownRange *range)
{
  const char *text = self->source->str + range->start;
  gsize len = range->end - range->start;
  GtkWidget *chunk;
  NatterCodeBlock *built;

  if (open_widget_matches (self, range))
    {
      self->open_widget = NULL;
      self->open_len = 0;
      return;
    }

  chunk = natter_markdown_render_chunk (text, len);
  built = single_code_block (chunk);

  /* A streamed code block keeps its widget when its fence closes: only the
   * final text goes in, so a long block is not highlighted twice. */
  if (self->open_code != NULL && range->start == self->open_start && built != NULL &&
      g_strcmp0 (natter_code_block_get_info (built), natter_code_block_get_info (self->open_code)) == 0)
    {
      g_autofree char *code = natter_code_block_dup_code (built);

      g_object_ref_sink (chunk);
      g_object_unref (chunk);
      natter_code_block_set_code (self->open_code, code);
      self->open_widget = NULL;
      self->open_code = NULL;
      return;
    }

  drop_open_widget (self);
  insert_chunk (self, chunk, NULL, range->joined);
}

static gsize
trim_trailing_space (const char *text,
                     gsize       len)
{
  while (len > 0 && g_ascii_isspace (text[len - 1]))
    len--;
  return len;
}

/* Whether the open chunk's widgets already show the closed @range: the
 * same text (a chunk closes when the blank line after it arrives, which
 * renders the same) parsed the same way. Reusing them saves building and
 * laying out every closing table twice. */
static gboolean
open_widget_matches (NatterMarkdownView        *self,
                     const NatterMarkdownRange *range)
{
  const char *text = self->source->str + range->start;

  if (self->open_widget == NULL || self->open_code != NULL || !self->open_parsed ||
      range->start != self->open_start || range->joined != self->open_joined ||
      range->end - range->start > self->open_len)
    return FALSE;
  return trim_trailing_space (text, range->end - range->start) == trim_trailing_space (text, self->open_len);
}

/* The code of the open fence so far; a last line that may be the closing
 * fence arriving is left out so it does not flash in the code. */
static char *
open_fence_code (NatterMarkdownView *self)
{
  const char *body;
  gsize len, last;

  if (self->splitter.fence_body_start > self->source->len)
    return g_strdup ("");
  body = self->source->str + self->splitter.fence_body_start;
  len = self->source->len - self->splitter.fence_body_start;

  last = len;
  while (last > 0 && body[last - 1] != '\n')
    last--;
  if (last < len)
    {
      gsize i = last;

      while (i < len && body[i] == ' ')
        i++;
      if (i < len && body[i] == self->splitter.fence_char)
        len = last;
    }
  if (len > 0 && body[len - 1] == '\n')
    len--;
  return g_strndup (body, len);
}

static void
update_open_chunk (NatterMarkdownView *self)
{
  gsize start = self->splitter.chunk_start;
  const char *text;
  gsize len;
  GtkWidget *chunk;
  gboolean parsed = FALSE;

  if (self->finished || start >= self->source->len)
    {
      drop_open_widget (self);
      return;
    }
  text = self->source->str + start;
  len = self->source->len - start;

  if (self->open_widget != NULL && self->open_start == start && self->open_len == len)
    return;

  if (self->splitter.chunk_is_fence)
    {
      g_autofree char *code = open_fence_code (self);

      if (self->open_code != NULL && self->open_start == start)
        {
          natter_code_block_set_code (self->open_code, code);
          self->open_len = len;
          return;
        }
      drop_open_widget (self);
      chunk = natter_markdown_new_chunk_box ();
      self->open_code = NATTER_CODE_BLOCK (natter_code_block_new (self->splitter.fence_info, code));
      gtk_box_append (GTK_BOX (chunk), GTK_WIDGET (self->open_code));
    }
  else
    {
      gboolean blank = TRUE;

      for (gsize i = 0; i < len && blank; i++)
        blank = g_ascii_isspace (text[i]);
      drop_open_widget (self);
      if (blank)
        return;
      parsed = len <= MAX_OPEN_PARSE_BYTES;
      if (parsed)
        chunk = natter_markdown_render_chunk (text, len);
      else
        chunk = natter_markdown_render_plain (text, len);
    }

  insert_chunk (self, chunk, NULL, self->splitter.chunk_joined);
  self->open_widget = chunk;
  self->open_start = start;
  self->open_len = len;
  self->open_parsed = parsed;
  self->open_joined = self->splitter.chunk_joined;
  self->open_rebuilt = TRUE;
}

/* Rebuilding the open chunk on every frame is what makes a growing table
 * expensive: each rebuild costs a frame's worth of styling and measuring.
 * So it is rebuilt at most once per frame, and after a rebuild whose frame
 * took T, not again before 2T passed: it then uses at most a third of the
 * time, however slow the machine. */
static gboolean
open_chunk_due (NatterMarkdownView *self,
                gint64              now)
{
  return self->open_built_at == 0 || now - self->open_built_at >= 2 * self->open_cost_us;
}

/* One bounded step of work. Returns whether more remains. */
static gboolean
process (NatterMarkdownView *self,
         gsize               budget_bytes,
         gboolean            paced)
{
  gint64 now = g_get_monotonic_time ();
  gint64 deadline = now + STEP_BUDGET_US;
  gsize bytes = 0;
  gboolean built = FALSE;

  natter_markdown_splitter_feed (&self->splitter, self->source->str, self->source->len,
                                 self->finished, self->closed);

  while (self->closed_next < self->closed->len)
    {
      /* Always make progress, then stop when the budget is spent. */
      const NatterMarkdownRange *range = &g_array_index (self->closed, NatterMarkdownRange, self->closed_next);

      bytes += range->end - range->start;
      build_closed_chunk (self, range);
      self->closed_next++;
      built = TRUE;
      self->step_bytes = bytes;
      if (self->closed_next < self->closed->len &&
          (g_get_monotonic_time () >= deadline || bytes >= budget_bytes))
        return TRUE;
    }
  g_array_set_size (self->closed, 0);
  self->closed_next = 0;

  /* The open chunk waits for a frame of its own when closed chunks were
   * built in this one, and for its turn (open_chunk_due()); its text is
   * kept, so nothing is lost by waiting. */
  if (paced && !self->finished && (built || !open_chunk_due (self, now)))
    return self->splitter.chunk_start < self->source->len &&
           (self->open_widget == NULL || self->open_len != self->source->len - self->splitter.chunk_start);

  update_open_chunk (self);
  if (self->open_rebuilt)
    self->step_bytes += self->open_len;
  if (self->finished)
    set_ready (self, TRUE);
  return FALSE;
}

static void schedule (NatterMarkdownView *self);

/* The end of a frame that ran one of our steps: how long the whole frame
 * took (our step, then GTK styling, measuring and drawing what it built)
 * sets the next step's budget. */
static void
after_paint_cb (GdkFrameClock      *frame_clock,
                NatterMarkdownView *self)
{
  gint64 cost;

  if (self->step_frame_start == 0)
    return;
  cost = thread_cpu_us () - self->step_frame_cpu;
  self->step_frame_start = 0;

  /* Small steps say little about the cost of a byte. */
  if (self->step_bytes >= MIN_STEP_BYTES)
    {
      double per_byte = (double) cost / (double) self->step_bytes;

      us_per_byte = us_per_byte > 0 ? (us_per_byte + per_byte) / 2 : per_byte;
    }
  /* The open chunk's pause is a share of the wall time (open_chunk_due()). */
  if (self->open_rebuilt)
    {
      self->open_cost_us = g_get_monotonic_time () - self->open_built_at;
      self->open_rebuilt = FALSE;
    }
}

static void
disconnect_paint_clock (NatterMarkdownView *self)
{
  if (self->paint_clock == NULL)
    return;
  g_clear_signal_handler (&self->after_paint_id, self->paint_clock);
  g_clear_object (&self->paint_clock);
  self->step_frame_start = 0;
}

static void
watch_paint_clock (NatterMarkdownView *self,
                   GdkFrameClock      *frame_clock)
{
  if (self->paint_clock == frame_clock)
    return;
  disconnect_paint_clock (self);
  self->paint_clock = g_object_ref (frame_clock);
  self->after_paint_id = g_signal_connect (frame_clock, "after-paint",
                                           G_CALLBACK (after_paint_cb), self);
}

static gboolean
tick_cb (GtkWidget     *widget,
         GdkFrameClock *frame_clock,
         gpointer       user_data)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (widget);
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();
  gboolean more;

  watch_paint_clock (self, frame_clock);
  self->open_rebuilt = FALSE;
  self->step_bytes = 0;
  more = process (self, step_budget_bytes (), TRUE);
  self->step_frame_start = now;
  self->step_frame_cpu = cpu;
  if (self->open_rebuilt)
    self->open_built_at = now;
  if (more)
    return G_SOURCE_CONTINUE;
  self->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static gboolean
idle_cb (gpointer user_data)
{
  NatterMarkdownView *self = user_data;

  self->idle_id = 0;
  if (process (self, MAX_STEP_BYTES, FALSE))
    schedule (self);
  return G_SOURCE_REMOVE;
}

/* Work runs once per frame while the view is on screen, which coalesces
 * the many deltas of a frame into one update; off screen an idle does it. */
static void
schedule (NatterMarkdownView *self)
{
  if (self->tick_id != 0 || self->idle_id != 0)
    return;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    self->tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), tick_cb, NULL, NULL);
  else
    self->idle_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, idle_cb, self, NULL);
}

static void
cancel_work (NatterMarkdownView *self)
{
  if (self->tick_id != 0)
    {
      gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->tick_id);
      self->tick_id = 0;
    }
  g_clear_handle_id (&self->idle_id, g_source_remove);
}

static void
remove_children (NatterMarkdownView *self)
{
  GtkWidget *child;

  self->open_widget = NULL;
  self->open_code = NULL;
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
}

static void
reset (NatterMarkdownView *self)
{
  cancel_work (self);
  remove_children (self);
  g_string_truncate (self->source, 0);
  self->tail_len = 0;
  self->finished = FALSE;
  natter_markdown_splitter_clear (&self->splitter);
  g_array_set_size (self->closed, 0);
  self->closed_next = 0;
  self->open_start = self->open_len = 0;
  self->open_built_at = 0;
  self->open_cost_us = 0;
}

static gboolean
natter_markdown_view_real_activate_link (NatterMarkdownView *self,
                                         const char         *uri)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (natter_markdown_uri_is_allowed (uri))
    gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, uri, GDK_CURRENT_TIME);
  return TRUE;
}

static void
natter_markdown_view_root (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (natter_markdown_view_parent_class)->root (widget);
  ensure_css (widget);
}

static void
natter_markdown_view_map (GtkWidget *widget)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (widget);

  GTK_WIDGET_CLASS (natter_markdown_view_parent_class)->map (widget);

  /* Work scheduled off screen (a view is built before it is placed) runs
   * from an idle, which frames starve while the frame clock keeps busy (a
   * loaded machine, a spinner): on screen, it runs once per frame. */
  if (self->idle_id != 0)
    {
      cancel_work (self);
      schedule (self);
    }
}

static void
natter_markdown_view_unmap (GtkWidget *widget)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (widget);
  gboolean pending = self->tick_id != 0;

  GTK_WIDGET_CLASS (natter_markdown_view_parent_class)->unmap (widget);
  disconnect_paint_clock (self);

  /* Frame ticks stop off screen; an idle finishes the work instead. */
  if (pending)
    {
      cancel_work (self);
      schedule (self);
    }
}

static void
natter_markdown_view_dispose (GObject *object)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (object);

  cancel_work (self);
  disconnect_paint_clock (self);
  remove_children (self);

  G_OBJECT_CLASS (natter_markdown_view_parent_class)->dispose (object);
}

static void
natter_markdown_view_finalize (GObject *object)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (object);

  natter_markdown_splitter_clear (&self->splitter);
  g_clear_pointer (&self->closed, g_array_unref);
  g_string_free (self->source, TRUE);

  G_OBJECT_CLASS (natter_markdown_view_parent_class)->finalize (object);
}

static void
natter_markdown_view_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  NatterMarkdownView *self = NATTER_MARKDOWN_VIEW (object);

  switch (prop_id)
    {
    case PROP_READY:
      g_value_set_boolean (value, self->ready);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
activate_link_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  gboolean handled = FALSE;

  g_signal_emit (widget, signals[ACTIVATE_LINK], 0, g_variant_get_string (parameter, NULL), &handled);
}

static void
natter_markdown_view_class_init (NatterMarkdownViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_markdown_view_dispose;
  object_class->finalize = natter_markdown_view_finalize;
  object_class->get_property = natter_markdown_view_get_property;
  widget_class->root = natter_markdown_view_root;
  widget_class->map = natter_markdown_view_map;
  widget_class->unmap = natter_markdown_view_unmap;

  /**
   * NatterMarkdownView:ready:
   *
   * Whether the complete text has been turned into widgets: %TRUE after
   * natter_markdown_view_set_markdown() or natter_markdown_view_finish()
   * once the last step ran, %FALSE while work is pending.
   */
  properties[PROP_READY] =
    g_param_spec_boolean ("ready", NULL, NULL,
                          TRUE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterMarkdownView::activate-link:
   * @self: the view
   * @uri: the link's target
   *
   * Emitted when a link in the text is activated. The default handler
   * opens http, https and mailto links through the desktop and ignores
   * every other scheme.
   *
   * Returns: %TRUE when the link was handled
   */
  signals[ACTIVATE_LINK] =
    g_signal_new_class_handler ("activate-link",
                                G_TYPE_FROM_CLASS (klass),
                                G_SIGNAL_RUN_LAST,
                                G_CALLBACK (natter_markdown_view_real_activate_link),
                                g_signal_accumulator_true_handled, NULL,
                                NULL,
                                G_TYPE_BOOLEAN, 1, G_TYPE_STRING);

  /* A link activated in one of the view's labels (natter-markdown-render.c):
   * the view's own ::activate-link decides. */
  gtk_widget_class_install_action (widget_class, "markdown.activate-link", "s", activate_link_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "markdown");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_markdown_view_init (NatterMarkdownView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);

  self->source = g_string_new (NULL);
  self->closed = g_array_new (FALSE, FALSE, sizeof (NatterMarkdownRange));
  self->ready = TRUE;
  natter_markdown_splitter_init (&self->splitter);
}

/**
 * natter_markdown_view_new:
 *
 * Creates an empty view for one answer's Markdown.
 *
 * Returns: (transfer floating): a new #NatterMarkdownView
 */
GtkWidget *
natter_markdown_view_new (void)
{
  return g_object_new (NATTER_TYPE_MARKDOWN_VIEW, NULL);
}

/**
 * natter_markdown_view_set_markdown:
 * @self: a #NatterMarkdownView
 * @text: (nullable): the complete Markdown; invalid UTF-8 is replaced by
 *   U+FFFD
 *
 * Shows @text in place of whatever the view showed. Returns at once: the
 * widgets are built over the following main-loop iterations, a few
 * milliseconds at a time; #NatterMarkdownView:ready turns %TRUE when done.
 */
void
natter_markdown_view_set_markdown (NatterMarkdownView *self,
                                   const char         *text)
{
  g_return_if_fail (NATTER_IS_MARKDOWN_VIEW (self));

  reset (self);
  if (text != NULL)
    append_bytes (self, text, strlen (text), TRUE);
  self->finished = TRUE;
  set_ready (self, FALSE);
  schedule (self);
}

/**
 * natter_markdown_view_append:
 * @self: a #NatterMarkdownView
 * @delta: the next piece of a streaming answer; it may end in the middle
 *   of a UTF-8 character, whose first bytes wait for the next delta
 *
 * Adds @delta to the text. The view updates at most once per frame, and
 * only the trailing open block is rebuilt. Call
 * natter_markdown_view_finish() when the answer is complete.
 */
void
natter_markdown_view_append (NatterMarkdownView *self,
                             const char         *delta)
{
  g_return_if_fail (NATTER_IS_MARKDOWN_VIEW (self));
  g_return_if_fail (delta != NULL);
  g_return_if_fail (!self->finished);

  if (*delta == '\0')
    return;
  append_bytes (self, delta, strlen (delta), FALSE);
  set_ready (self, FALSE);
  schedule (self);
}

/**
 * natter_markdown_view_finish:
 * @self: a #NatterMarkdownView
 *
 * Marks the streamed text as complete: the trailing block is closed (an
 * unclosed fence stays a code block to the end) and incomplete UTF-8 left
 * by the last delta becomes U+FFFD. #NatterMarkdownView:ready turns %TRUE
 * once the widgets match those of natter_markdown_view_set_markdown() with
 * the same text.
 */
void
natter_markdown_view_finish (NatterMarkdownView *self)
{
  g_return_if_fail (NATTER_IS_MARKDOWN_VIEW (self));

  if (self->finished)
    return;
  append_bytes (self, "", 0, TRUE);
  self->finished = TRUE;
  set_ready (self, FALSE);
  schedule (self);
}

/**
 * natter_markdown_view_get_text:
 * @self: a #NatterMarkdownView
 *
 * Returns: (transfer none): the valid UTF-8 text received so far
 */
const char *
natter_markdown_view_get_text (NatterMarkdownView *self)
{
  g_return_val_if_fail (NATTER_IS_MARKDOWN_VIEW (self), NULL);

  return self->source->str;
}

/**
 * natter_markdown_view_get_ready:
 * @self: a #NatterMarkdownView
 *
 * Returns: whether the complete text has been turned into widgets
 */
gboolean
natter_markdown_view_get_ready (NatterMarkdownView *self)
{
  g_return_val_if_fail (NATTER_IS_MARKDOWN_VIEW (self), FALSE);

  return self->ready;
}
