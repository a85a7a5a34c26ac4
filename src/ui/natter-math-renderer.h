/* natter-math-renderer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/**
 * NatterMathStyle:
 * @display: display math (centred, large operators with their limits
 *   above and below) rather than inline math
 * @dark: drawn for a dark style (light ink)
 * @font_px: the size of the text around it, in logical pixels
 * @scale: the device pixels per logical pixel it is drawn for
 *
 * How one formula is typeset; with its TeX, the key of the renderer's
 * cache.
 */
typedef struct
{
  gboolean display;
  gboolean dark;
  double   font_px;
  int      scale;
} NatterMathStyle;

/**
 * NatterMathImage:
 * @texture: (nullable): the typeset formula, transparent around its ink,
 *   or %NULL when it could not be typeset
 * @surface: (nullable): the same pixels for cairo, with its device scale
 *   set
 * @width: its width in logical pixels
 * @height: its height in logical pixels
 * @baseline: the distance from its top to the baseline of the text
 *   around it, in logical pixels
 * @error: (nullable): why it could not be typeset: KaTeX's message
 *
 * One formula as the renderer made it: immutable and reference counted.
 */
typedef struct
{
  GdkTexture      *texture;
  cairo_surface_t *surface;
  double           width;
  double           height;
  double           baseline;
  char            *error;
} NatterMathImage;

#define NATTER_TYPE_MATH_IMAGE (natter_math_image_get_type ())
GType            natter_math_image_get_type (void) G_GNUC_CONST;
NatterMathImage *natter_math_image_ref      (NatterMathImage *image);
void             natter_math_image_unref    (NatterMathImage *image);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterMathImage, natter_math_image_unref)

/**
 * NatterMathReadyFunc:
 * @owner: the object that asked, still alive
 * @image: (transfer none): the formula, typeset or failed
 * @user_data: what was given with the request
 *
 * Called on the main thread when a requested formula is done.
 */
typedef void (*NatterMathReadyFunc) (GObject         *owner,
                                     NatterMathImage *image,
                                     gpointer         user_data);

#define NATTER_TYPE_MATH_RENDERER (natter_math_renderer_get_type ())

G_DECLARE_FINAL_TYPE (NatterMathRenderer, natter_math_renderer, NATTER, MATH_RENDERER, GObject)

NatterMathRenderer *natter_math_renderer_get_default  (void);
gboolean            natter_math_renderer_is_available (NatterMathRenderer    *self);
guint               natter_math_renderer_get_n_pending (NatterMathRenderer   *self);
NatterMathImage    *natter_math_renderer_lookup       (NatterMathRenderer    *self,
                                                       const char            *tex,
                                                       const NatterMathStyle *style);
void                natter_math_renderer_request      (NatterMathRenderer    *self,
                                                       const char            *tex,
                                                       const NatterMathStyle *style,
                                                       GObject               *owner,
                                                       NatterMathReadyFunc    ready,
                                                       gpointer               user_data);
void                natter_math_style_for_widget      (NatterMathStyle       *style,
                                                       GtkWidget             *widget,
                                                       gboolean               display);

G_END_DECLS
