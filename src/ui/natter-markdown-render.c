/* natter-markdown-render.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Markdown to widgets for assistant text. cmark parses CommonMark;
 * GitHub-style tables, which cmark does not know, are found here line by
 * line and only their cells go through cmark. Every piece of text is
 * escaped before it becomes Pango markup, so nothing in an answer is ever
 * interpreted as markup or HTML.
 */

#define G_LOG_DOMAIN "natter-markdown"

#include "config.h"

#include <string.h>

#include <cmark.h>
#include <glib/gi18n.h>

#include "natter-code-block.h"
#include "natter-formula.h"
#include "natter-math-label.h"
#include "natter-math-scan.h"
#include "natter-markdown-render-private.h"
#include "natter-markdown-view.h"
#include "natter-sideways-scroll.h"
#include "natter-text-direction.h"
#include "natter-visible-label.h"

/* Deeper nesting than this is shown as plain text: no answer needs it, and
 * it keeps both our recursion and GTK's widget depth bounded. */
#define MAX_BLOCK_DEPTH 24

/* Space between blocks, and between list items. The view spaces chunks
 * the same way, so where the splitter cut does not show. */
#define BLOCK_SPACING NATTER_MARKDOWN_BLOCK_SPACING
#define ITEM_SPACING NATTER_MARKDOWN_ITEM_SPACING

/* ---------------------------------------------------------------------- */
/* Lines                                                                  */
/* ---------------------------------------------------------------------- */

static gboolean
is_blank (const char *line,
          gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
      return FALSE;
  return TRUE;
}

/* Columns of leading white space (a tab counts as four), and the bytes. */
static gsize
leading_indent (const char *line,
                gsize       len,
                gsize      *bytes)
{
  gsize cols = 0, i = 0;

  for (; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
    cols += line[i] == '\t' ? 4 : 1;
  if (bytes != NULL)
    *bytes = i;
  return cols;
}

static gboolean
parse_fence_open (const char  *line,
                  gsize        len,
                  char        *fence_char,
                  gsize       *fence_len,
                  const char **info,
                  gsize       *info_len)
{
  gsize skip, n = 0;
  char c;

  if (leading_indent (line, len, &skip) > 3 || skip >= len)
    return FALSE;
  c = line[skip];
  if (c != '`' && c != '~')
    return FALSE;
  while (skip + n < len && line[skip + n] == c)
    n++;
  if (n < 3)
    return FALSE;
  /* A backtick fence's info string may not contain backticks. */
  if (c == '`' && memchr (line + skip + n, '`', len - skip - n) != NULL)
    return FALSE;

  *fence_char = c;
  *fence_len = n;
  if (info != NULL)
    {
      *info = line + skip + n;
      *info_len = len - skip - n;
    }
  return TRUE;
}

static gboolean
is_fence_close (const char *line,
                gsize       len,
                char        fence_char,
                gsize       fence_len)
{
  gsize skip, n = 0;

  if (leading_indent (line, len, &skip) > 3)
    return FALSE;
  while (skip + n < len && line[skip + n] == fence_char)
    n++;
  return n >= fence_len && is_blank (line + skip + n, len - skip - n);
}

static gboolean
is_thematic_break (const char *line,
                   gsize       len)
{
  gsize skip, count = 0;
  char c = 0;

  if (leading_indent (line, len, &skip) > 3)
    return FALSE;
  for (gsize i = skip; i < len; i++)
    {
      if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')
        continue;
      if (c == 0 && (line[i] == '-' || line[i] == '*' || line[i] == '_'))
        c = line[i];
      if (line[i] != c)
        return FALSE;
      count++;
    }
  return count >= 3;
}

static gboolean
is_atx_heading (const char *line,
                gsize       len)
{
  gsize skip, n = 0;

  if (leading_indent (line, len, &skip) > 3)
    return FALSE;
  while (skip + n < len && line[skip + n] == '#')
    n++;
  return n >= 1 && n <= 6 &&
         (skip + n == len || line[skip + n] == ' ' || line[skip + n] == '\t');
}

/* The list marker a line at column 0 starts with: '-', '*' or '+' for
 * bullets, '.' or ')' for ordered items, 0 for none. */
static char
list_marker (const char *line,
             gsize       len)
{
  gsize i = 0;

  if (len == 0 || is_thematic_break (line, len))
    return 0;
  if (line[0] == '-' || line[0] == '*' || line[0] == '+')
    return (len == 1 || line[1] == ' ' || line[1] == '\t') ? line[0] : 0;
  while (i < len && i < 9 && g_ascii_isdigit (line[i]))
    i++;
  if (i == 0 || i >= len || (line[i] != '.' && line[i] != ')'))
    return 0;
  return (i + 1 == len || line[i + 1] == ' ' || line[i + 1] == '\t') ? line[i] : 0;
}

/* ---------------------------------------------------------------------- */
/* Splitter                                                               */
/* ---------------------------------------------------------------------- */

void
natter_markdown_splitter_init (NatterMarkdownSplitter *splitter)
{
  memset (splitter, 0, sizeof *splitter);
}

void
natter_markdown_splitter_clear (NatterMarkdownSplitter *splitter)
{
  g_clear_pointer (&splitter->fence_info, g_free);
  natter_markdown_splitter_init (splitter);
}

static void
start_empty_chunk (NatterMarkdownSplitter *sp,
                   gsize                   at)
{
  sp->chunk_start = at;
  sp->chunk_has_content = FALSE;
  sp->chunk_joined = FALSE;
  sp->prev_blank = FALSE;
  sp->chunk_list = 0;
  sp->chunk_is_heading = FALSE;
  sp->chunk_is_fence = FALSE;
  g_clear_pointer (&sp->fence_info, g_free);
}

static void
close_chunk (NatterMarkdownSplitter *sp,
             gsize                   end,
             GArray                 *closed)
{
  NatterMarkdownRange range = { sp->chunk_start, end, sp->chunk_joined };

  g_array_append_val (closed, range);
  start_empty_chunk (sp, end);
}

static void
begin_chunk (NatterMarkdownSplitter *sp,
             const char             *line,
             gsize                   len,
             gsize                   start,
             gsize                   next,
             gboolean                joined)
{
  const char *info;
  gsize info_len;

  start_empty_chunk (sp, start);
  sp->chunk_has_content = TRUE;
  sp->chunk_joined = joined;
  sp->chunk_list = list_marker (line, len);
  sp->chunk_is_heading = is_atx_heading (line, len);
  if (parse_fence_open (line, len, &sp->fence_char, &sp->fence_len, &info, &info_len))
    {
      sp->in_fence = TRUE;
      sp->chunk_is_fence = TRUE;
      sp->fence_body_start = next;
      sp->fence_info = g_strstrip (g_strndup (info, info_len));
    }
}

static void
feed_line (NatterMarkdownSplitter *sp,
           const char             *line,
           gsize                   len,
           gsize                   start,
           gsize                   next,
           GArray                 *closed)
{
  char c;
  gsize n;

  if (sp->in_fence)
    {
      if (is_fence_close (line, len, sp->fence_char, sp->fence_len))
        {
          sp->in_fence = FALSE;
          /* A top-level fence ends its chunk by itself. */
          if (sp->chunk_is_fence)
            close_chunk (sp, next, closed);
        }
      return;
    }

  if (!sp->chunk_has_content)
    {
      if (is_blank (line, len))
        sp->chunk_start = next;
      else
        begin_chunk (sp, line, len, start, next, FALSE);
      return;
    }

  if (is_blank (line, len))
    {
      sp->prev_blank = TRUE;
      return;
    }

  if (line[0] != ' ' && line[0] != '\t')
    {
      /* A line at column 0 belongs to no container of the chunk when a
       * blank line came before it, or when it starts a block that always
       * interrupts: then cmark would end every open block here too. */
      gboolean next_item = sp->chunk_list != 0 && list_marker (line, len) == sp->chunk_list;

      if (sp->prev_blank || sp->chunk_is_heading ||
          is_atx_heading (line, len) ||
          parse_fence_open (line, len, &c, &n, NULL, NULL) ||
          next_item)
        {
          /* The next item of a tight list: its own chunk, drawn as close
           * to the one before as items of one list are. */
          gboolean joined = next_item && !sp->prev_blank;

          close_chunk (sp, start, closed);
          begin_chunk (sp, line, len, start, next, joined);
          return;
        }
    }
  else if (parse_fence_open (line, len, &sp->fence_char, &sp->fence_len, NULL, NULL))
    {
      /* A fence inside a list item: blank lines in it end nothing. */
      sp->in_fence = TRUE;
    }
  sp->prev_blank = FALSE;
}

/**
 * natter_markdown_splitter_feed:
 * @splitter: the splitter state
 * @text: the whole text so far (it only ever grows)
 * @len: its length in bytes
 * @final: whether the text is complete
 * @closed: (element-type NatterMarkdownRange): receives the closed chunks
 *
 * Reads the complete lines of @text not seen yet (and the last, partial
 * one when @final) and appends every chunk they close to @closed. The open
 * chunk starts at @splitter->chunk_start. Cost: linear in the new text.
 */
void
natter_markdown_splitter_feed (NatterMarkdownSplitter *splitter,
                               const char             *text,
                               gsize                   len,
                               gboolean                final,
                               GArray                 *closed)
{
  while (splitter->pos < len)
    {
      const char *nl = memchr (text + splitter->pos, '\n', len - splitter->pos);
      gsize line_end, next;

      if (nl != NULL)
        {
          line_end = nl - text;
          next = line_end + 1;
        }
      else if (final)
        {
          line_end = next = len;
        }
      else
        {
          break;
        }

      feed_line (splitter, text + splitter->pos, line_end - splitter->pos,
                 splitter->pos, next, closed);
      splitter->pos = next;
    }

  if (final)
    {
      if (splitter->chunk_has_content)
        close_chunk (splitter, len, closed);
      splitter->in_fence = FALSE;
      splitter->chunk_start = len;
    }
}

/* ---------------------------------------------------------------------- */
/* Widgets                                                                */
/* ---------------------------------------------------------------------- */

static gboolean
activate_link_cb (GtkLabel   *label,
                  const char *uri)
{
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (label));

  /* To the view the label is in (markdown.activate-link), which emits
   * its ::activate-link. Asked from the label's parent: a label has
   * actions of its own, and the muxer it made before it was put into
   * the view does not know the view's. */
  if (parent != NULL)
    gtk_widget_activate_action (parent, "markdown.activate-link", "s", uri);

  /* Never fall through to GtkLabel's own handler, which opens any scheme. */
  return TRUE;
}

static GtkWidget *
new_label (const char *text,
           gboolean    is_markup,
           const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  if (is_markup)
    gtk_label_set_markup (GTK_LABEL (label), text);
  else
    natter_label_set_visible_text (GTK_LABEL (label), text);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_yalign (GTK_LABEL (label), 0.0);
  /* An Arabic or Hebrew paragraph starts at the right. */
  natter_label_follow_text_direction (GTK_LABEL (label));
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  g_signal_connect (label, "activate-link", G_CALLBACK (activate_link_cb), NULL);
  return label;
}

static GtkWidget *
new_vbox (int         spacing,
          const char *css_class)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, spacing);

  if (css_class != NULL)
    gtk_widget_add_css_class (box, css_class);
  return box;
}

/**
 * natter_markdown_new_chunk_box:
 *
 * Returns: (transfer floating): the empty box one chunk renders into
 */
GtkWidget *
natter_markdown_new_chunk_box (void)
{
  return new_vbox (BLOCK_SPACING, "natter-md-chunk");
}

static char *
dup_without_final_newline (const char *literal)
{
  gsize len = literal != NULL ? strlen (literal) : 0;

  if (len > 0 && literal[len - 1] == '\n')
    len--;
  return g_strndup (literal != NULL ? literal : "", len);
}

/* A label of inline content whose formulas are typeset in it. */
static GtkWidget *
new_math_label (const char *markup,
                GPtrArray  *formulas,
                const char *css_class)
{
  GtkWidget *label = new_label ("", FALSE, css_class);

  natter_math_label_set_markup (GTK_LABEL (label), markup, formulas);
  natter_label_follow_text_direction (GTK_LABEL (label));
  return label;
}

static GtkWidget *render_block (cmark_node *node,
                                int         depth,
                                int         list_level,
                                GPtrArray  *formulas);

static void
render_children (cmark_node *parent,
                 GtkWidget  *box,
                 int         depth,
                 int         list_level,
                 GPtrArray  *formulas)
{
  for (cmark_node *child = cmark_node_first_child (parent);
       child != NULL;
       child = cmark_node_next (child))
    {
      GtkWidget *widget = render_block (child, depth, list_level, formulas);

      if (widget != NULL)
        gtk_box_append (GTK_BOX (box), widget);
    }
}

/* The direction @node's text reads in: that of the first of its text
 * pieces that has a letter (natter_text_direction_of()), or
 * %GTK_TEXT_DIR_NONE. A list item or a quote takes it, so that in a
 * right-to-left text its marker or its bar is beside it, at the right. */
static GtkTextDirection
node_direction (cmark_node *node)
{
  cmark_iter *iter = cmark_iter_new (node);
  GtkTextDirection direction = GTK_TEXT_DIR_NONE;
  cmark_event_type event;

  while (direction == GTK_TEXT_DIR_NONE && (event = cmark_iter_next (iter)) != CMARK_EVENT_DONE)
    {
      cmark_node *current = cmark_iter_get_node (iter);

      if (event == CMARK_EVENT_ENTER && cmark_node_get_type (current) == CMARK_NODE_TEXT)
        direction = natter_text_direction_of (cmark_node_get_literal (current));
    }
  cmark_iter_free (iter);
  return direction;
}

/* A task list item, "- [ ] to do" or "- [x] done" as GitHub writes them
 * and models copy: cmark knows no such items and leaves the box in the
 * item's first words. Takes the box off them and says which it was:
 * 0 for no task, 1 for one to do, 2 for one done. */
static int
take_task_box (cmark_node *item)
{
  cmark_node *paragraph = cmark_node_first_child (item);
  cmark_node *text = NULL;
  const char *literal;
  int state;

  if (paragraph != NULL && cmark_node_get_type (paragraph) == CMARK_NODE_PARAGRAPH)
    text = cmark_node_first_child (paragraph);
  if (text == NULL || cmark_node_get_type (text) != CMARK_NODE_TEXT ||
      (literal = cmark_node_get_literal (text)) == NULL || strlen (literal) < 4 ||
      literal[0] != '[' || literal[2] != ']' || (literal[3] != ' ' && literal[3] != '\t'))
    return 0;
  if (literal[1] == ' ')
    state = 1;
  else if (literal[1] == 'x' || literal[1] == 'X')
    state = 2;
  else
    return 0;
  {
    g_autofree char *rest = g_strdup (literal + 4);

    cmark_node_set_literal (text, rest);
  }
  return state;
}

static GtkWidget *
render_list (cmark_node *list,
             int         depth,
             int         list_level,
             GPtrArray  *formulas)
{
  static const char * const bullets[] = { "•", "◦", "▪" };
  GtkWidget *box = new_vbox (ITEM_SPACING, "natter-md-list");
  gboolean ordered = cmark_node_get_list_type (list) == CMARK_ORDERED_LIST;
  char delim = cmark_node_get_list_delim (list) == CMARK_PAREN_DELIM ? ')' : '.';
  int number = cmark_node_get_list_start (list);

  for (cmark_node *item = cmark_node_first_child (list);
       item != NULL;
       item = cmark_node_next (item), number++)
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *content = new_vbox (6, NULL);
      g_autofree char *marker = NULL;
      GtkWidget *bullet;
      int task = take_task_box (item);

      /* A task's box stands for its marker, as GitHub draws it. */
      if (task != 0)
        marker = g_strdup (task == 2 ? "☑" : "☐");
      else if (ordered)
        marker = g_strdup_printf ("%d%c", number, delim);
      else
        marker = g_strdup (bullets[list_level % G_N_ELEMENTS (bullets)]);
      bullet = gtk_label_new (marker);
      if (task != 0)
        gtk_accessible_update_property (GTK_ACCESSIBLE (bullet), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                        task == 2 ? _("Done") : _("To do"), -1);
      gtk_widget_add_css_class (bullet, "natter-md-bullet");
      gtk_widget_set_valign (bullet, GTK_ALIGN_START);
      gtk_label_set_xalign (GTK_LABEL (bullet), 1.0);

      gtk_widget_add_css_class (row, "natter-md-list-item");
      gtk_widget_set_direction (row, node_direction (item));
      /* Its start is where its marker is: the right, right to left. */
      gtk_widget_set_margin_start (row, 6);
      gtk_widget_set_hexpand (content, TRUE);
      render_children (item, content, depth + 1, list_level + 1, formulas);
      gtk_box_append (GTK_BOX (row), bullet);
      gtk_box_append (GTK_BOX (row), content);
      gtk_box_append (GTK_BOX (box), row);
    }
  return box;
}

/* Whether a text node holds a display formula's placeholder. */
static gboolean
has_display_formula (cmark_node *node)
{
  const char *p = cmark_node_get_literal (node), *after;
  guint index;
  gboolean display = FALSE;

  if (cmark_node_get_type (node) != CMARK_NODE_TEXT || p == NULL)
    return FALSE;
  while (!display && natter_math_next_placeholder (p, &index, &display, &after) != NULL)
    p = after;
  return display;
}

/* The inline nodes gathered into @piece as one label, if they show
 * anything; @piece is emptied. */
static void
flush_piece (cmark_node *piece,
             GtkWidget  *box,
             GPtrArray  *formulas)
{
  g_autofree char *markup = NULL;
  cmark_node *child;

  markup = natter_markdown_inline_markup (piece);
  g_strstrip (markup);
  if (*markup != '\0')
    gtk_box_append (GTK_BOX (box), new_math_label (markup, formulas, "natter-md-paragraph"));
  while ((child = cmark_node_first_child (piece)) != NULL)
    cmark_node_free (child);
}

static void
append_text_node (cmark_node *piece,
                  const char *text,
                  gsize       len)
{
  cmark_node *node = cmark_node_new (CMARK_NODE_TEXT);
  g_autofree char *copy = g_strndup (text, len);

  cmark_node_set_literal (node, copy);
  cmark_node_append_child (piece, node);
}

/* A paragraph is one label, but for its display formulas ("text \[x\]
 * text" with no blank line is one paragraph): each is a block of its
 * own between the labels of the text around it. */
static GtkWidget *
render_paragraph (cmark_node *node,
                  GPtrArray  *formulas)
{
  g_autofree char *markup = NULL;
  cmark_node *piece, *child, *next;
  GtkWidget *box;
  gboolean split = FALSE;

  for (child = cmark_node_first_child (node); child != NULL && !split; child = cmark_node_next (child))
    split = has_display_formula (child);
  if (!split)
    {
      markup = natter_markdown_inline_markup (node);
      return new_math_label (markup, formulas, "natter-md-paragraph");
    }

  box = new_vbox (ITEM_SPACING, "natter-md-math-paragraph");
  piece = cmark_node_new (CMARK_NODE_PARAGRAPH);
  for (child = cmark_node_first_child (node); child != NULL; child = next)
    {
      const char *p, *at, *after;
      guint index;
      gboolean display;

      next = cmark_node_next (child);
      if (!has_display_formula (child))
        {
          cmark_node_unlink (child);
          cmark_node_append_child (piece, child);
          continue;
        }
      p = cmark_node_get_literal (child);
      while ((at = natter_math_next_placeholder (p, &index, &display, &after)) != NULL)
        {
          NatterMathFormula *formula = index < formulas->len ? g_ptr_array_index (formulas, index) : NULL;

          if (!display || formula == NULL)
            {
              append_text_node (piece, p, after - p);
              p = after;
              continue;
            }
          append_text_node (piece, p, at - p);
          flush_piece (piece, box, formulas);
          gtk_box_append (GTK_BOX (box), natter_formula_new_block (formula->tex, formula->source));
          p = after;
        }
      append_text_node (piece, p, strlen (p));
    }
  flush_piece (piece, box, formulas);
  cmark_node_free (piece);
  return box;
}

static GtkWidget *
render_block (cmark_node *node,
              int         depth,
              int         list_level,
              GPtrArray  *formulas)
{
  g_autofree char *text = NULL;
  GtkWidget *widget;

  if (depth > MAX_BLOCK_DEPTH)
    {
      g_autoptr(GString) plain = g_string_new (NULL);

      natter_markdown_append_plain_text (plain, node);
      return new_label (plain->str, FALSE, "natter-md-paragraph");
    }

  switch (cmark_node_get_type (node))
    {
    case CMARK_NODE_PARAGRAPH:
      return render_paragraph (node, formulas);

    case CMARK_NODE_HEADING:
      {
        static const char * const classes[] = { "title-1", "title-2", "title-3", "title-4", "heading", "heading" };
        int level = CLAMP (cmark_node_get_heading_level (node), 1, 6);

        text = natter_markdown_inline_markup (node);
        widget = new_math_label (text, formulas, "natter-md-heading");
        gtk_widget_add_css_class (widget, classes[level - 1]);
        gtk_accessible_update_property (GTK_ACCESSIBLE (widget),
                                        GTK_ACCESSIBLE_PROPERTY_LEVEL, level,
                                        -1);
        return widget;
      }

    case CMARK_NODE_BLOCK_QUOTE:
      widget = new_vbox (BLOCK_SPACING, "natter-md-blockquote");
      gtk_widget_set_direction (widget, node_direction (node));
      render_children (node, widget, depth + 1, list_level, formulas);
      return widget;

    case CMARK_NODE_LIST:
      return render_list (node, depth, list_level, formulas);

    case CMARK_NODE_CODE_BLOCK:
      text = dup_without_final_newline (cmark_node_get_literal (node));
      return natter_code_block_new (cmark_node_get_fence_info (node), text);

    case CMARK_NODE_HTML_BLOCK:
      /* Shown as the text it is, never interpreted. */
      text = dup_without_final_newline (cmark_node_get_literal (node));
      widget = new_label (text, FALSE, "natter-md-html");
      gtk_widget_add_css_class (widget, "monospace");
      return widget;

    case CMARK_NODE_THEMATIC_BREAK:
      widget = gtk_separator_new (GTK_ORIENTATION_HORIZONTAL);
      gtk_widget_add_css_class (widget, "natter-md-rule");
      return widget;

    default:
      return NULL;
    }
}

/* The formulas are taken out before cmark parses the text, which would
 * read their backslashes and underscores as Markdown (docs/math.md §2). */
static void
render_markdown (GtkWidget  *box,
                 const char *text,
                 gsize       len)
{
  g_autoptr(GPtrArray) formulas = NULL;
  g_autofree char *protected = NULL;
  cmark_node *doc;

  if (is_blank (text, len))
    return;
  formulas = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_math_formula_free);
  protected = natter_math_protect (text, len, formulas);
  doc = cmark_parse_document (protected, strlen (protected), CMARK_OPT_VALIDATE_UTF8);
  render_children (doc, box, 0, 0, formulas);
  cmark_node_free (doc);
}

/* ---------------------------------------------------------------------- */
/* Tables (GitHub style; cmark has no table extension)                    */
/* ---------------------------------------------------------------------- */

static GPtrArray *
split_row (const char *line,
           gsize       len)
{
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) cell = g_string_new (NULL);
  gsize i = 0;

  while (len > 0 && g_ascii_isspace (line[len - 1]))
    len--;
  while (i < len && g_ascii_isspace (line[i]))
    i++;
  if (i < len && line[i] == '|')
    i++;
  if (len > i && line[len - 1] == '|' && (len < 2 || line[len - 2] != '\\'))
    len--;

  for (; i <= len; i++)
    {
      if (i == len || line[i] == '|')
        {
          g_ptr_array_add (cells, g_strstrip (g_strdup (cell->str)));
          g_string_truncate (cell, 0);
        }
      else if (line[i] == '\\' && i + 1 < len && line[i + 1] == '|')
        {
          g_string_append_c (cell, '|');
          i++;
        }
      else
        {
          g_string_append_c (cell, line[i]);
        }
    }
  return cells;
}

/* Fills @aligns with one xalign per column if @line is a delimiter row. */
static gboolean
parse_delimiter_row (const char *line,
                     gsize       len,
                     GArray     *aligns)
{
  g_autoptr(GPtrArray) cells = NULL;

  if (memchr (line, '|', len) == NULL && memchr (line, '-', len) == NULL)
    return FALSE;
  cells = split_row (line, len);
  g_array_set_size (aligns, 0);
  for (guint i = 0; i < cells->len; i++)
    {
      const char *cell = g_ptr_array_index (cells, i);
      gsize n = strlen (cell), dashes = 0;
      gboolean left = n > 0 && cell[0] == ':';
      gboolean right = n > 0 && cell[n - 1] == ':';
      float xalign;

      for (gsize j = left ? 1 : 0; j < (right ? n - 1 : n); j++)
        {
          if (cell[j] != '-')
            return FALSE;
          dashes++;
        }
      if (dashes == 0)
        return FALSE;
      xalign = left && right ? 0.5f : right ? 1.0f : 0.0f;
      g_array_append_val (aligns, xalign);
    }
  return aligns->len > 0;
}

static char *
cell_markup (const char *cell,
             GPtrArray  *formulas)
{
  g_autofree char *protected = natter_math_protect (cell, strlen (cell), formulas);
  cmark_node *doc;
  cmark_node *first;
  char *markup;

  doc = cmark_parse_document (protected, strlen (protected), CMARK_OPT_VALIDATE_UTF8);
  first = cmark_node_first_child (doc);
  /* A cell is inline content; "1. x" or "# x" stay what they look like. */
  if (first != NULL && cmark_node_get_type (first) == CMARK_NODE_PARAGRAPH &&
      cmark_node_next (first) == NULL)
    markup = natter_markdown_inline_markup (first);
  else
    markup = natter_visible_markup (protected);
  cmark_node_free (doc);
  return markup;
}

static void
add_table_row (GtkGrid    *grid,
               GPtrArray  *cells,
               GArray     *aligns,
               int         row,
               gboolean    header)
{
  for (guint col = 0; col < aligns->len; col++)
    {
      const char *cell = col < cells->len ? g_ptr_array_index (cells, col) : "";
      g_autoptr(GPtrArray) formulas = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_math_formula_free);
      g_autofree char *markup = cell_markup (cell, formulas);
      g_autofree char *bold = NULL;
      GtkWidget *label;
      int chars = (int) g_utf8_strlen (cell, -1);

      if (header)
        bold = g_strconcat ("<b>", markup, "</b>", NULL);
      label = new_math_label (header ? bold : markup, formulas,
                              header ? "natter-md-table-header" : "natter-md-table-cell");
      /* A column is aligned as its delimiter row says, whatever its
       * cells are written in. */
      gtk_widget_set_direction (label, GTK_TEXT_DIR_NONE);
      gtk_label_set_xalign (GTK_LABEL (label), g_array_index (aligns, float, col));
      /* A cell is as wide as its text up to a readable width, where a
       * longer one wraps; a wide table scrolls sideways instead of
       * squeezing. Its least width is that width too: the table's
       * scroller measures its height at the cells' least width, and a
       * cell wrapped narrower there than it is drawn left an empty band
       * under the last row. `width-chars` counts average characters, so
       * a cell that fits in it does not wrap at all (a word in bold or
       * of wide letters is wider than its count). */
      gtk_label_set_width_chars (GTK_LABEL (label), MIN (chars, 40));
      gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
      if (chars <= 40)
        gtk_label_set_wrap (GTK_LABEL (label), FALSE);
      /* The lines between cells: each draws the one above and before it. */
      if (col > 0)
        gtk_widget_add_css_class (label, "natter-md-table-after");
      if (row > 1)
        gtk_widget_add_css_class (label, "natter-md-table-below");
      gtk_grid_attach (grid, label, (int) col, row, 1, 1);
    }
}

static GtkWidget *
render_table (const char *text,
              gsize       header_start,
              gsize       header_end,
              GArray     *aligns,
              GPtrArray  *rows)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *grid = gtk_grid_new ();
  g_autoptr(GPtrArray) header = split_row (text + header_start, header_end - header_start);

  /* No spacing: the cells' padding and lines space them. */
  gtk_widget_add_css_class (grid, "natter-md-table");
  gtk_widget_set_halign (grid, GTK_ALIGN_START);
  gtk_widget_set_overflow (grid, GTK_OVERFLOW_HIDDEN);
  add_table_row (GTK_GRID (grid), header, aligns, 0, TRUE);
  for (guint i = 0; i < rows->len; i++)
    add_table_row (GTK_GRID (grid), g_ptr_array_index (rows, i), aligns, (int) i + 1, FALSE);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller),
                                  GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), grid);
  gtk_widget_add_css_class (scroller, "natter-md-table-scroller");
  natter_sideways_scroll_attach (GTK_SCROLLED_WINDOW (scroller));
  return scroller;
}

/* Where the line starting at @start ends (before its newline), and where
 * the next one starts. */
static gsize
line_end (const char *text,
          gsize       len,
          gsize       start,
          gsize      *next)
{
  const char *nl = memchr (text + start, '\n', len - start);
  gsize end = nl != NULL ? (gsize) (nl - text) : len;

  *next = nl != NULL ? end + 1 : len;
  return end;
}

static gboolean
ends_table (const char *line,
            gsize       len)
{
  char c;
  gsize n, skip;

  leading_indent (line, len, &skip);
  return is_blank (line, len) || is_atx_heading (line, len) ||
         (skip < len && line[skip] == '>') ||
         parse_fence_open (line, len, &c, &n, NULL, NULL);
}

/**
 * natter_markdown_render_chunk:
 * @text: a closed chunk from #NatterMarkdownSplitter, valid UTF-8
 * @len: its length in bytes
 *
 * Turns one chunk into widgets. Cost: linear in @len, never more.
 *
 * Returns: (transfer floating): a vertical box with one widget per block
 */
GtkWidget *
natter_markdown_render_chunk (const char *text,
                              gsize       len)
{
  GtkWidget *box = natter_markdown_new_chunk_box ();
  g_autoptr(GArray) aligns = g_array_new (FALSE, FALSE, sizeof (float));
  gsize segment = 0, pos = 0, next;
  gboolean in_fence = FALSE;
  char fence_char = 0;
  gsize fence_len = 0;

  while (pos < len)
    {
      gsize end = line_end (text, len, pos, &next);
      gsize delim_end, delim_next, indent;
      char c;
      gsize n;

      if (in_fence)
        {
          in_fence = !is_fence_close (text + pos, end - pos, fence_char, fence_len);
          pos = next;
          continue;
        }
      if (parse_fence_open (text + pos, end - pos, &c, &n, NULL, NULL))
        {
          in_fence = TRUE;
          fence_char = c;
          fence_len = n;
          pos = next;
          continue;
        }

      indent = leading_indent (text + pos, end - pos, NULL);
      if (indent <= 3 && next < len && memchr (text + pos, '|', end - pos) != NULL)
        {
          delim_end = line_end (text, len, next, &delim_next);
          if (parse_delimiter_row (text + next, delim_end - next, aligns))
            {
              g_autoptr(GPtrArray) header = split_row (text + pos, end - pos);

              if (header->len == aligns->len)
                {
                  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
                  gsize row = delim_next, row_next;

                  while (row < len)
                    {
                      gsize row_end = line_end (text, len, row, &row_next);

                      if (ends_table (text + row, row_end - row))
                        break;
                      g_ptr_array_add (rows, split_row (text + row, row_end - row));
                      row = row_next;
                    }

                  render_markdown (box, text + segment, pos - segment);
                  gtk_box_append (GTK_BOX (box), render_table (text, pos, end, aligns, rows));
                  segment = pos = row;
                  continue;
                }
            }
        }
      pos = next;
    }

  render_markdown (box, text + segment, len - segment);
  return box;
}

/**
 * natter_markdown_render_plain:
 * @text: valid UTF-8
 * @len: its length in bytes
 *
 * A chunk shown as it was typed, for an open block too large to parse
 * again on every frame.
 *
 * Returns: (transfer floating): a chunk box with one label
 */
GtkWidget *
natter_markdown_render_plain (const char *text,
                              gsize       len)
{
  GtkWidget *box = natter_markdown_new_chunk_box ();
  g_autofree char *copy = g_strndup (text, len);

  gtk_box_append (GTK_BOX (box), new_label (copy, FALSE, "natter-md-paragraph"));
  return box;
}
