/* natter-math-label.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Inline formulas inside the label of a paragraph (docs/math.md §4): each
 * typeset formula is one U+FFFC in the label's text, given the formula's
 * size and baseline by a Pango shape attribute and drawn by the shape
 * renderer of the label's Pango context. The paragraph stays one label:
 * it wraps, selects and reads as one text, and copying a selection gives
 * each formula back as the TeX it was written as. Until a formula is
 * typeset, and for good when it cannot be, it shows its source in
 * monospace.
 */

#define G_LOG_DOMAIN "natter-math-label"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <pango/pangocairo.h>

#include "natter-math-label.h"
#include "natter-math-renderer.h"
#include "natter-math-scan.h"
#include "natter-visible-label.h"

#define OBJECT_CHAR "\xEF\xBF\xBC"

/* The widest an inline formula is drawn, in pixels: the room a line of
 * an answer has in GNOME's narrowest window (360 px wide). A wider one
 * is drawn smaller, to this width; Copy TeX and a selection still give
 * all of it (docs/math.md §4). */
#define INLINE_MAX_WIDTH 280.0
#define OBJECT_CHAR_LEN 3

typedef struct _MathLabel MathLabel;

typedef struct
{
  MathLabel       *owner;
  char            *tex;
  char            *source;
  gboolean         display;
  NatterMathStyle  style;
  gboolean         requested;
  NatterMathImage *image;
} Item;

struct _MathLabel
{
  GtkLabel  *label;
  GPtrArray *pieces;    /* markup between formulas: one more than items */
  GPtrArray *items;
  gboolean   refreshing;
  guint      apply_id;  /* formulas arrived: apply once for all of them */
};

static void
item_free (Item *item)
{
  g_free (item->tex);
  g_free (item->source);
  g_clear_pointer (&item->image, natter_math_image_unref);
  g_free (item);
}

static void
math_label_free (MathLabel *ml)
{
  g_clear_handle_id (&ml->apply_id, g_source_remove);
  g_ptr_array_unref (ml->pieces);
  g_ptr_array_unref (ml->items);
  g_free (ml);
}

static gboolean
item_typeset (Item *item)
{
  return item->image != NULL && item->image->texture != NULL;
}

static MathLabel *
get_math_label (GtkLabel *label)
{
  return g_object_get_data (G_OBJECT (label), "natter-math-label");
}

/* The label's markup with each formula typeset as U+FFFC or as its
 * source, then the shape of each U+FFFC. */
static void
apply (MathLabel *ml)
{
  g_autoptr(GString) markup = g_string_new (g_ptr_array_index (ml->pieces, 0));
  g_autoptr(PangoAttrList) attrs = pango_attr_list_new ();
  const char *text, *p;
  guint next = 0;

  for (guint i = 0; i < ml->items->len; i++)
    {
      Item *item = g_ptr_array_index (ml->items, i);

      if (item_typeset (item))
        {
          g_string_append (markup, OBJECT_CHAR);
        }
      else
        {
          /* Its control characters as stand-ins, as in the text around it. */
          g_autofree char *escaped = natter_visible_markup (item->source);

          g_string_append_printf (markup, "<tt>%s</tt>", escaped);
        }
      g_string_append (markup, g_ptr_array_index (ml->pieces, i + 1));
    }
  gtk_label_set_markup (ml->label, markup->str);

  text = gtk_label_get_text (ml->label);
  for (p = strstr (text, OBJECT_CHAR); p != NULL; p = strstr (p + OBJECT_CHAR_LEN, OBJECT_CHAR))
    {
      Item *item = NULL;
      PangoRectangle rect;
      PangoAttribute *attr;
      double fit;

      while (next < ml->items->len && !item_typeset (item = g_ptr_array_index (ml->items, next)))
        next++;
      if (next >= ml->items->len)
        break;
      next++;
      /* A shape is never broken across lines: one wider than GNOME's
       * narrowest window leaves room for would widen the window. */
      fit = MIN (1.0, INLINE_MAX_WIDTH / MAX (item->image->width, 1.0));
      rect.x = 0;
      rect.y = (int) (-item->image->baseline * fit * PANGO_SCALE);
      rect.width = (int) (item->image->width * fit * PANGO_SCALE);
      rect.height = (int) (item->image->height * fit * PANGO_SCALE);
      attr = pango_attr_shape_new_with_data (&rect, &rect, natter_math_image_ref (item->image),
                                             (PangoAttrDataCopyFunc) natter_math_image_ref,
                                             (GDestroyNotify) natter_math_image_unref);
      attr->start_index = (guint) (p - text);
      attr->end_index = attr->start_index + OBJECT_CHAR_LEN;
      pango_attr_list_insert (attrs, attr);
    }
  gtk_label_set_attributes (ml->label, attrs);

  /* A screen reader reads each formula as its TeX, not as U+FFFC. */
  {
    g_autofree char *spoken = natter_math_label_dup_text (ml->label, 0, g_utf8_strlen (text, -1));

    gtk_accessible_update_property (GTK_ACCESSIBLE (ml->label), GTK_ACCESSIBLE_PROPERTY_LABEL, spoken, -1);
  }
}

static gboolean
apply_cb (gpointer user_data)
{
  MathLabel *ml = user_data;

  ml->apply_id = 0;
  apply (ml);
  return G_SOURCE_REMOVE;
}

static void
image_ready (GObject         *owner,
             NatterMathImage *image,
             gpointer         user_data)
{
  Item *item = user_data;

  /* A failure of ours (the renderer stopped) never replaces a formula
   * that is already typeset. */
  if (image->texture == NULL && item_typeset (item))
    return;
  g_clear_pointer (&item->image, natter_math_image_unref);
  item->image = natter_math_image_ref (image);
  /* A batch brings several formulas of a label at once. */
  if (!item->owner->refreshing && item->owner->apply_id == 0)
    item->owner->apply_id = g_idle_add_full (G_PRIORITY_DEFAULT, apply_cb, item->owner, NULL);
}

/* Asks for each formula in the style the label is in now, unless it has
 * it; the label is marked up once for everything the cache had. */
static void
refresh (MathLabel *ml)
{
  ml->refreshing = TRUE;
  for (guint i = 0; i < ml->items->len; i++)
    {
      Item *item = g_ptr_array_index (ml->items, i);
      NatterMathStyle style;

      natter_math_style_for_widget (&style, GTK_WIDGET (ml->label), item->display);
      if (item->requested && memcmp (&style, &item->style, sizeof style) == 0)
        continue;
      item->style = style;
      item->requested = TRUE;
      natter_math_renderer_request (natter_math_renderer_get_default (), item->tex, &style,
                                    G_OBJECT (ml->label), image_ready, item);
    }
  ml->refreshing = FALSE;
  g_clear_handle_id (&ml->apply_id, g_source_remove);
  apply (ml);
}

static void
changed_cb (GtkLabel *label)
{
  MathLabel *ml = get_math_label (label);

  if (ml != NULL && gtk_widget_get_mapped (GTK_WIDGET (label)))
    refresh (ml);
}

/* Drawn where Pango placed the U+FFFC: the current point is on its
 * baseline. */
static void
draw_shape (cairo_t        *cr,
            PangoAttrShape *attr,
            gboolean        do_path,
            gpointer        data)
{
  NatterMathImage *image = attr->data;
  double x, y, fit;

  if (do_path || image == NULL || image->surface == NULL)
    return;
  /* Drawn to the size it was given (set_markup(), INLINE_MAX_WIDTH). */
  fit = image->width > 0 ? (double) attr->logical_rect.width / PANGO_SCALE / image->width : 1.0;
  cairo_get_current_point (cr, &x, &y);
  cairo_save (cr);
  cairo_translate (cr, x, y - image->baseline * fit);
  cairo_scale (cr, fit, fit);
  cairo_set_source_surface (cr, image->surface, 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
}

static void
copy_clipboard_cb (GtkLabel *label)
{
  int start, end;
  g_autofree char *text = NULL;

  if (!gtk_label_get_selection_bounds (label, &start, &end))
    return;
  text = natter_math_label_dup_text (label, start, end);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (label)), text);
}

/**
 * natter_math_label_set_markup:
 * @label: a label
 * @markup: Pango markup (with GtkLabel's links) that may hold the
 *   placeholders of natter_math_protect()
 * @formulas: (element-type NatterMathFormula) (nullable): the formulas
 *   the placeholders name
 *
 * Sets @markup on @label, with each formula typeset inline
 * (docs/math.md §4). A label whose markup has no formula is an
 * ordinary label.
 */
void
natter_math_label_set_markup (GtkLabel   *label,
                              const char *markup,
                              GPtrArray  *formulas)
{
  MathLabel *ml;
  const char *p = markup, *at, *after;
  guint index;
  gboolean display;

  g_return_if_fail (GTK_IS_LABEL (label));
  g_return_if_fail (get_math_label (label) == NULL);

  if (formulas == NULL || natter_math_next_placeholder (markup, &index, &display, &after) == NULL)
    {
      gtk_label_set_markup (label, markup);
      return;
    }

  ml = g_new0 (MathLabel, 1);
  ml->label = label;
  ml->pieces = g_ptr_array_new_with_free_func (g_free);
  ml->items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  while ((at = natter_math_next_placeholder (p, &index, &display, &after)) != NULL)
    {
      NatterMathFormula *formula = index < formulas->len ? g_ptr_array_index (formulas, index) : NULL;
      Item *item;

      if (formula == NULL)
        {
          p = after;
          continue;
        }
      item = g_new0 (Item, 1);
      item->owner = ml;
      item->tex = g_strdup (formula->tex);
      item->source = g_strdup (formula->source);
      item->display = display;
      g_ptr_array_add (ml->pieces, g_strndup (p, at - p));
      g_ptr_array_add (ml->items, item);
      p = after;
    }
  g_ptr_array_add (ml->pieces, g_strdup (p));
  g_object_set_data_full (G_OBJECT (label), "natter-math-label", ml, (GDestroyNotify) math_label_free);

  pango_cairo_context_set_shape_renderer (gtk_widget_get_pango_context (GTK_WIDGET (label)),
                                          draw_shape, NULL, NULL);
  g_signal_connect_after (label, "copy-clipboard", G_CALLBACK (copy_clipboard_cb), NULL);
  g_signal_connect (label, "map", G_CALLBACK (changed_cb), NULL);
  g_signal_connect (label, "notify::scale-factor", G_CALLBACK (changed_cb), NULL);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (changed_cb), label, G_CONNECT_SWAPPED);
  refresh (ml);
}

/**
 * natter_math_label_count_typeset:
 * @label: a label
 *
 * Returns: how many of @label's formulas are shown typeset
 */
guint
natter_math_label_count_typeset (GtkLabel *label)
{
  MathLabel *ml = get_math_label (label);
  guint n = 0;

  for (guint i = 0; ml != NULL && i < ml->items->len; i++)
    n += item_typeset (g_ptr_array_index (ml->items, i));
  return n;
}

/**
 * natter_math_label_dup_text:
 * @label: a label
 * @start: the first character, as gtk_label_get_selection_bounds()
 *   counts
 * @end: the character after the last
 *
 * The text between @start and @end with each typeset formula written
 * back as the TeX it came from, delimiters and all: what copying a
 * selection gives.
 *
 * Returns: (transfer full): the text
 */
char *
natter_math_label_dup_text (GtkLabel *label,
                            int       start,
                            int       end)
{
  MathLabel *ml = get_math_label (label);
  const char *text = gtk_label_get_text (label);
  const char *from = g_utf8_offset_to_pointer (text, start);
  const char *to = g_utf8_offset_to_pointer (text, end);
  GString *out = g_string_new (NULL);
  guint next = 0;

  for (const char *p = text; p < to; p = g_utf8_next_char (p))
    {
      gboolean object = strncmp (p, OBJECT_CHAR, OBJECT_CHAR_LEN) == 0;
      Item *item = NULL;

      if (object && ml != NULL)
        {
          while (next < ml->items->len && !item_typeset (item = g_ptr_array_index (ml->items, next)))
            next++;
          next++;
        }
      if (p < from)
        continue;
      if (object && item != NULL && item_typeset (item))
        g_string_append (out, item->source);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  return g_string_free (out, FALSE);
}
