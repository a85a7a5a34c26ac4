/* natter-formula.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One display formula of an answer (docs/math.md §4): typeset by the
 * math renderer, or shown as its TeX source in monospace until then, and
 * for good when it cannot be typeset, so a formula is never a blank. A
 * right click (or Menu, or a long press) offers Copy TeX; a screen
 * reader is given the TeX. It follows the application's dark style and
 * the display's scale by typesetting itself again.
 */

#define G_LOG_DOMAIN "natter-formula"

#include "config.h"

#include <math.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "natter-formula.h"
#include "natter-math-renderer.h"
#include "natter-sideways-scroll.h"

struct _NatterFormula
{
  GtkWidget        parent_instance;

  char            *tex;
  char            *source;
  NatterMathStyle  style;
  gboolean         requested;
  NatterMathImage *image;       /* the latest typeset or failed result */
  GtkWidget       *source_label;
  GtkWidget       *menu;
};

G_DEFINE_FINAL_TYPE (NatterFormula, natter_formula, GTK_TYPE_WIDGET)

static gboolean
typeset (NatterFormula *self)
{
  return self->image != NULL && self->image->texture != NULL;
}

static void
image_ready (GObject         *owner,
             NatterMathImage *image,
             gpointer         user_data)
{
  NatterFormula *self = NATTER_FORMULA (owner);
  g_autofree char *tooltip = NULL;

  /* A failure of ours (the renderer stopped) never replaces a formula
   * that is already typeset. */
  if (image->texture == NULL && typeset (self))
    return;
  g_clear_pointer (&self->image, natter_math_image_unref);
  self->image = natter_math_image_ref (image);
  gtk_widget_set_visible (self->source_label, !typeset (self));
  if (image->error != NULL)
    tooltip = g_strdup_printf (_("This formula could not be typeset: %s"), image->error);
  gtk_widget_set_tooltip_text (self->source_label, tooltip);
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

/* Asks for the formula in the style the widget is in now, unless it
 * already has it. */
static void
refresh (NatterFormula *self)
{
  NatterMathStyle style;

  natter_math_style_for_widget (&style, GTK_WIDGET (self), TRUE);
  if (self->requested && memcmp (&style, &self->style, sizeof style) == 0)
    return;
  self->style = style;
  self->requested = TRUE;
  natter_math_renderer_request (natter_math_renderer_get_default (), self->tex, &style,
                                G_OBJECT (self), image_ready, NULL);
}

static void
natter_formula_measure (GtkWidget      *widget,
                        GtkOrientation  orientation,
                        int             for_size,
                        int            *minimum,
                        int            *natural,
                        int            *minimum_baseline,
                        int            *natural_baseline)
{
  NatterFormula *self = NATTER_FORMULA (widget);

  if (!typeset (self))
    {
      gtk_widget_measure (self->source_label, orientation, for_size,
                          minimum, natural, minimum_baseline, natural_baseline);
      return;
    }
  *minimum = *natural = (int) ceil (orientation == GTK_ORIENTATION_HORIZONTAL ? self->image->width
                                                                               : self->image->height);
}

static void
natter_formula_size_allocate (GtkWidget *widget,
                              int        width,
                              int        height,
                              int        baseline)
{
  NatterFormula *self = NATTER_FORMULA (widget);

  if (gtk_widget_get_visible (self->source_label))
    gtk_widget_allocate (self->source_label, width, height, baseline, NULL);
  if (self->menu != NULL)
    gtk_popover_present (GTK_POPOVER (self->menu));
}

static void
natter_formula_snapshot (GtkWidget   *widget,
                         GtkSnapshot *snapshot)
{
  NatterFormula *self = NATTER_FORMULA (widget);

  if (!typeset (self))
    {
      gtk_widget_snapshot_child (widget, self->source_label, snapshot);
      return;
    }
  gtk_snapshot_append_texture (snapshot, self->image->texture,
                               &GRAPHENE_RECT_INIT (0, 0, self->image->width, self->image->height));
}

static void
natter_formula_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (natter_formula_parent_class)->map (widget);
  /* Placed now: its font and scale are the window's. */
  refresh (NATTER_FORMULA (widget));
}

static void
popup_menu (NatterFormula *self,
            double         x,
            double         y)
{
  if (self->menu == NULL)
    {
      g_autoptr(GMenu) model = g_menu_new ();

      g_menu_append (model, _("Copy TeX"), "formula.copy-tex");
      self->menu = gtk_popover_menu_new_from_model (G_MENU_MODEL (model));
      gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
      gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
      gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
    }
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu), &(GdkRectangle) { (int) x, (int) y, 1, 1 });
  gtk_popover_popup (GTK_POPOVER (self->menu));
}

static void
pressed_cb (GtkGestureClick *gesture,
            int              n_press,
            double           x,
            double           y,
            NatterFormula   *self)
{
  popup_menu (self, x, y);
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
long_pressed_cb (GtkGestureLongPress *gesture,
                 double               x,
                 double               y,
                 NatterFormula       *self)
{
  popup_menu (self, x, y);
}

static void
menu_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  popup_menu (NATTER_FORMULA (widget), gtk_widget_get_width (widget) / 2.0, gtk_widget_get_height (widget) / 2.0);
}

static void
copy_tex_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  natter_formula_copy_tex (NATTER_FORMULA (widget));
}

static void
dark_changed_cb (NatterFormula *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    refresh (self);
}

static void
natter_formula_dispose (GObject *object)
{
  NatterFormula *self = NATTER_FORMULA (object);

  g_clear_pointer (&self->source_label, gtk_widget_unparent);
  g_clear_pointer (&self->menu, gtk_widget_unparent);

  G_OBJECT_CLASS (natter_formula_parent_class)->dispose (object);
}

static void
natter_formula_finalize (GObject *object)
{
  NatterFormula *self = NATTER_FORMULA (object);

  g_free (self->tex);
  g_free (self->source);
  g_clear_pointer (&self->image, natter_math_image_unref);

  G_OBJECT_CLASS (natter_formula_parent_class)->finalize (object);
}

static void
natter_formula_class_init (NatterFormulaClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_formula_dispose;
  object_class->finalize = natter_formula_finalize;
  widget_class->measure = natter_formula_measure;
  widget_class->size_allocate = natter_formula_size_allocate;
  widget_class->snapshot = natter_formula_snapshot;
  widget_class->map = natter_formula_map;

  gtk_widget_class_install_action (widget_class, "formula.copy-tex", NULL, copy_tex_action);
  gtk_widget_class_install_action (widget_class, "formula.menu", NULL, menu_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, "formula.menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Menu, 0, "formula.menu", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK, "formula.copy-tex", NULL);
  gtk_widget_class_set_css_name (widget_class, "formula");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
natter_formula_init (NatterFormula *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkGesture *press = gtk_gesture_long_press_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (press), TRUE);
  g_signal_connect (press, "pressed", G_CALLBACK (long_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (press));
  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_halign (GTK_WIDGET (self), GTK_ALIGN_CENTER);

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::scale-factor", G_CALLBACK (dark_changed_cb), NULL);
}

/**
 * natter_formula_new:
 * @tex: the formula's TeX, without delimiters
 * @source: the formula as written, with its delimiters: what is shown
 *   while it is not typeset and what Copy TeX copies
 *
 * A display formula. It is typeset at once when the renderer has it
 * already, otherwise shows @source until it is.
 *
 * Returns: (transfer floating): a new #NatterFormula
 */
GtkWidget *
natter_formula_new (const char *tex,
                    const char *source)
{
  NatterFormula *self = g_object_new (NATTER_TYPE_FORMULA, NULL);

  self->tex = g_strdup (tex);
  self->source = g_strdup (source);
  self->source_label = gtk_label_new (source);
  gtk_label_set_wrap (GTK_LABEL (self->source_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->source_label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (self->source_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (self->source_label), 0.0);
  gtk_widget_add_css_class (self->source_label, "monospace");
  gtk_widget_add_css_class (self->source_label, "natter-md-math-source");
  gtk_widget_set_parent (self->source_label, GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, source, -1);
  /* A cached formula is shown typeset from the first frame. */
  refresh (self);
  return GTK_WIDGET (self);
}

/**
 * natter_formula_new_block:
 * @tex: the formula's TeX, without delimiters
 * @source: the formula as written, with its delimiters
 *
 * A display formula as a block of an answer: centred, and scrolled
 * sideways when wider than the answer.
 *
 * Returns: (transfer floating): the block, whose child is the formula
 */
GtkWidget *
natter_formula_new_block (const char *tex,
                          const char *source)
{
  GtkWidget *scroller = gtk_scrolled_window_new ();

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), natter_formula_new (tex, source));
  gtk_widget_add_css_class (scroller, "natter-md-math");
  natter_sideways_scroll_attach (GTK_SCROLLED_WINDOW (scroller));
  return scroller;
}

/**
 * natter_formula_get_source:
 * @self: a formula
 *
 * Returns: (transfer none): the formula as written, with its delimiters
 */
const char *
natter_formula_get_source (NatterFormula *self)
{
  g_return_val_if_fail (NATTER_IS_FORMULA (self), NULL);

  return self->source;
}

/**
 * natter_formula_get_texture:
 * @self: a formula
 *
 * Returns: (transfer none) (nullable): the typeset formula, or %NULL
 *   while it shows its source
 */
GdkTexture *
natter_formula_get_texture (NatterFormula *self)
{
  g_return_val_if_fail (NATTER_IS_FORMULA (self), NULL);

  return typeset (self) ? self->image->texture : NULL;
}

/**
 * natter_formula_copy_tex:
 * @self: a formula
 *
 * Puts the formula as written, with its delimiters, on the clipboard of
 * the widget's display (the Copy TeX item of its menu).
 */
void
natter_formula_copy_tex (NatterFormula *self)
{
  g_return_if_fail (NATTER_IS_FORMULA (self));

  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), self->source);
}
