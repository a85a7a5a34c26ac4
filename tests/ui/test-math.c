/* test-math.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TeX formulas in an answer (docs/math.md): a fraction inline, a sum and
 * a matrix on lines of their own are typeset by KaTeX into non-empty
 * textures, a formula KaTeX refuses shows its source, Copy TeX and a
 * copied selection give the TeX back, and the dark style typesets them
 * again in light ink; a screen reader is given the TeX. Built without
 * the math renderer, every formula shows its source and the rest is
 * skipped.
 */

#include <string.h>

#include <adwaita.h>

#include "natter-formula.h"
#include "natter-markdown-view.h"
#include "natter-math-label.h"
#include "natter-math-renderer.h"
#include "natter-ui-test-world.h"

static const char answer[] =
  "The mean is $\\frac{a}{b}$ here, and costs $5 and $10.\n"
  "\n"
  "$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$\n"
  "\n"
  "A matrix:\n"
  "\\[\n"
  "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}\n"
  "\\]\n"
  "and a broken one:\n"
  "$$\\frac{1}{$$\n";

typedef struct
{
  GtkWidget *window;
  GtkWidget *view;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->window = gtk_window_new ();
  f->view = natter_markdown_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 700, 600);
  gtk_window_set_child (GTK_WINDOW (f->window), f->view);
  gtk_window_present (GTK_WINDOW (f->window));
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (f->view), answer);
  ui_wait_until ((UiCondition) natter_markdown_view_get_ready, f->view);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
  gtk_window_destroy (GTK_WINDOW (f->window));
}

static NatterFormula *
formula (Fixture *f,
         guint    i)
{
  g_autoptr(GPtrArray) all = ui_find_all (f->view, NATTER_TYPE_FORMULA);

  g_assert_cmpuint (all->len, ==, 3);
  return g_ptr_array_index (all, i);
}

static GtkLabel *
inline_label (Fixture *f)
{
  g_autoptr(GPtrArray) labels = ui_find_all (f->view, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_str_has_prefix (gtk_label_get_text (g_ptr_array_index (labels, i)), "The mean is"))
      return g_ptr_array_index (labels, i);
  g_assert_not_reached ();
}

/* Whether the first two display formulas are typeset and the inline
 * one too. */
static gboolean
typeset (gpointer data)
{
  Fixture *f = data;

  return natter_formula_get_texture (formula (f, 0)) != NULL &&
         natter_formula_get_texture (formula (f, 1)) != NULL &&
         natter_math_label_count_typeset (inline_label (f)) == 1;
}

/* The largest red of a pixel with ink: dark ink is near 0, light near
 * 255. Also checks there is ink at all. */
static guint
ink_red (GdkTexture *texture)
{
  int width = gdk_texture_get_width (texture), height = gdk_texture_get_height (texture);
  g_autofree guchar *data = g_malloc (width * height * 4);
  guint red = 0, inked = 0;

  gdk_texture_download (texture, data, width * 4);
  for (int i = 0; i < width * height; i++)
    if (data[i * 4 + 3] > 120)
      {
        inked++;
        /* Premultiplied BGRA: red is the third byte. */
        red = MAX (red, data[i * 4 + 2] * 255u / data[i * 4 + 3]);
      }
  g_assert_cmpuint (inked, >, 20);
  return red;
}

/* How much ink @texture has: the sum of its alpha, in whole pixels. The
 * same formula at the same size has the same ink in either style, but
 * for its colour's own alpha (Adwaita's light text is 80 % black). */
static double
ink_coverage (GdkTexture *texture)
{
  int width = gdk_texture_get_width (texture), height = gdk_texture_get_height (texture);
  g_autofree guchar *data = g_malloc (width * height * 4);
  double sum = 0;

  gdk_texture_download (texture, data, width * 4);
  for (int i = 0; i < width * height; i++)
    sum += data[i * 4 + 3] / 255.0;
  return sum;
}

static void
test_without_renderer (Fixture       *f,
                       gconstpointer  data)
{
  if (natter_math_renderer_is_available (natter_math_renderer_get_default ()))
    {
      g_test_skip ("built with the math renderer");
      return;
    }
  for (guint i = 0; i < 3; i++)
    g_assert_null (natter_formula_get_texture (formula (f, i)));
  g_assert_true (ui_label_shown (f->view, "$$\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}$$"));
  g_assert_cmpuint (natter_math_label_count_typeset (inline_label (f)), ==, 0);
  g_assert_nonnull (strstr (gtk_label_get_text (inline_label (f)), "$\\frac{a}{b}$"));
}

static char *clipboard_text;

static void
clipboard_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  clipboard_text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
}

static char *
read_clipboard (GtkWidget *widget)
{
  g_clear_pointer (&clipboard_text, g_free);
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (widget), NULL, clipboard_cb, NULL);
  ui_wait_until ((UiCondition) ui_result_ready, &clipboard_text);
  return g_steal_pointer (&clipboard_text);
}

typedef struct
{
  NatterFormula *formula;
  GdkTexture    *before;
} Change;

static gboolean
texture_changed (gpointer data)
{
  Change *change = data;
  GdkTexture *now = natter_formula_get_texture (change->formula);

  return now != NULL && now != change->before;
}

static void
test_typeset (Fixture       *f,
              gconstpointer  data)
{
  NatterFormula *sum, *matrix, *bad;
  g_autofree char *copied = NULL;
  g_autofree char *selection = NULL;
  double light_ink, dark_ink;
  Change change;

  if (!natter_math_renderer_is_available (natter_math_renderer_get_default ()))
    {
      g_test_skip ("built without the math renderer (WebKitGTK 6.0 and KaTeX)");
      return;
    }
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_LIGHT);
  ui_wait_until (typeset, f);
  sum = formula (f, 0);
  matrix = formula (f, 1);
  bad = formula (f, 2);

  if (ui_can_save_screen ())
    g_assert_true (ui_save_screen ("math-light.png"));

  /* Typeset: textures with dark ink, as tall as a fraction or a matrix. */
  g_assert_cmpuint (ink_red (natter_formula_get_texture (sum)), <, 100);
  g_assert_cmpuint (ink_red (natter_formula_get_texture (matrix)), <, 100);
  g_assert_cmpint (gdk_texture_get_height (natter_formula_get_texture (matrix)), >, 30);
  g_assert_cmpstr (natter_formula_get_source (bad), ==, "$$\\frac{1}{$$");
  g_assert_null (natter_formula_get_texture (bad));
  g_assert_true (ui_label_shown (bad, "$$\\frac{1}{$$"));
  /* Prices stay text; the inline fraction is one object in its label. */
  g_assert_nonnull (strstr (gtk_label_get_text (inline_label (f)), "costs $5 and $10."));
  /* A screen reader reads the fraction as its TeX. */
  gtk_test_accessible_assert_property (inline_label (f), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "The mean is $\\frac{a}{b}$ here, and costs $5 and $10.");

  /* Copy TeX, from the formula's menu action. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (matrix), "formula.copy-tex", NULL));
  copied = read_clipboard (GTK_WIDGET (matrix));
  g_assert_cmpstr (copied, ==, "\\[\n\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}\n\\]");
  /* A selection over the inline formula copies its TeX. */
  gtk_label_select_region (inline_label (f), 0, 14);
  g_signal_emit_by_name (inline_label (f), "copy-clipboard");
  selection = read_clipboard (GTK_WIDGET (inline_label (f)));
  g_assert_cmpstr (selection, ==, "The mean is $\\frac{a}{b}$ ");

  /* The dark style typesets them again in light ink, of the same weight:
   * glyphs no heavier than in light style. */
  light_ink = ink_coverage (natter_formula_get_texture (sum)) / 0.8;
  change.formula = sum;
  change.before = natter_formula_get_texture (sum);
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  ui_wait_until (texture_changed, &change);
  g_assert_cmpuint (ink_red (natter_formula_get_texture (sum)), >, 200);
  dark_ink = ink_coverage (natter_formula_get_texture (sum));
  g_test_message ("ink: %.1f px light (at full alpha), %.1f px dark", light_ink, dark_ink);
  g_assert_cmpfloat (dark_ink, <=, light_ink * 1.05);
  g_assert_cmpfloat (dark_ink, >=, light_ink * 0.95);
  ui_wait_until (typeset, f);
  if (ui_can_save_screen ())
    g_assert_true (ui_save_screen ("math-dark.png"));
}

/* A formula wider than the answer: typeset whole (not cut at the width
 * of the page it is laid out in), a display one scrolled sideways in its
 * place, an inline one drawn smaller rather
 * than make the window wider than GNOME's narrowest (360 px). */
static const char wide_answer[] =
  "Short: $$a_1+a_2+a_3+a_4+a_5+a_6+a_7+a_8+a_9+a_{10}+a_{11}$$\n"
  "\n"
  "$$a_1+a_2+a_3+a_4+a_5+a_6+a_7+a_8+a_9+a_{10}+a_{11}+a_{12}+a_{13}+a_{14}+a_{15}+a_{16}+a_{17}+a_{18}+a_{19}"
  "+a_{20}+a_{21}+a_{22}+a_{23}+a_{24}+a_{25}+a_{26}+a_{27}+a_{28}+a_{29}+a_{30}+a_{31}+a_{32}+a_{33}$$\n"
  "\n"
  "Inline $b_1+b_2+b_3+b_4+b_5+b_6+b_7+b_8+b_9+b_{10}+b_{11}+b_{12}+b_{13}+b_{14}+b_{15}+b_{16}$ too.\n";

static gboolean
wide_typeset (gpointer data)
{
  GtkWidget *view = data;
  g_autoptr(GPtrArray) all = ui_find_all (view, NATTER_TYPE_FORMULA);
  g_autoptr(GPtrArray) labels = ui_find_all (view, GTK_TYPE_LABEL);
  guint inline_typeset = 0;

  for (guint i = 0; i < labels->len; i++)
    inline_typeset += natter_math_label_count_typeset (g_ptr_array_index (labels, i));
  return all->len == 2 && natter_formula_get_texture (g_ptr_array_index (all, 0)) != NULL &&
         natter_formula_get_texture (g_ptr_array_index (all, 1)) != NULL && inline_typeset == 1;
}

static gboolean
scrolls_sideways (gpointer data)
{
  GtkAdjustment *sideways = data;

  return gtk_adjustment_get_upper (sideways) > gtk_adjustment_get_page_size (sideways) + 100;
}

static void
test_wide (void)
{
  GtkWidget *window;
  GtkWidget *view;
  g_autoptr(GPtrArray) all = NULL;
  GtkWidget *scroller;
  GtkAdjustment *sideways;
  int short_width, long_width, minimum;

  if (!natter_math_renderer_is_available (natter_math_renderer_get_default ()))
    {
      g_test_skip ("built without the math renderer (WebKitGTK 6.0 and KaTeX)");
      return;
    }
  window = gtk_window_new ();
  view = natter_markdown_view_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 600);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), wide_answer);
  ui_wait_until (wide_typeset, view);
  ui_settle ();
  all = ui_find_all (view, NATTER_TYPE_FORMULA);

  /* Three times the terms, about three times as wide: all of it. */
  short_width = gdk_texture_get_width (natter_formula_get_texture (g_ptr_array_index (all, 0)));
  long_width = gdk_texture_get_width (natter_formula_get_texture (g_ptr_array_index (all, 1)));
  g_test_message ("11 terms %d px, 33 terms %d px", short_width, long_width);
  g_assert_cmpint (long_width, >, short_width * 5 / 2);

  /* Wider than the answer: scrolled sideways, all of it reachable. */
  scroller = gtk_widget_get_ancestor (g_ptr_array_index (all, 1), GTK_TYPE_SCROLLED_WINDOW);
  sideways = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  ui_wait_until (scrolls_sideways, sideways);

  /* Nothing in the answer asks for more than the narrowest window. */
  gtk_widget_measure (view, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  g_test_message ("the answer's minimum width: %d px", minimum);
  g_assert_cmpint (minimum, <=, 360);
  g_assert_cmpint (gtk_widget_get_width (window), <=, 360);
  if (ui_can_save_screen ())
    g_assert_true (ui_save_screen ("math-wide-360.png"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);
  /* Where GTK has no GL (GDK_DEBUG=gl-disable, as the sanitizer pass runs
   * the UI tests), WebKit warns once, as it makes its first view, that it
   * renders without hardware acceleration, which the formulas do anyway.
   * There, and only there, a warning does not end this test; a critical
   * still does. */
  if (strstr (g_getenv ("GDK_DEBUG") != NULL ? g_getenv ("GDK_DEBUG") : "", "gl-disable") != NULL)
    g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL);

  g_test_add ("/math/typeset", Fixture, NULL, fixture_set_up, test_typeset, fixture_tear_down);
  g_test_add ("/math/without-renderer", Fixture, NULL, fixture_set_up, test_without_renderer, fixture_tear_down);
  g_test_add_func ("/math/wide", test_wide);

  return g_test_run ();
}
