/* test-window-composer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The message field: its placeholder and frame, visible in light and
 * dark style, and its growth with a long message, the cursor kept in
 * view.
 */

#include "test-window.h"

static GtkWidget *
find_with_class (GtkWidget  *root,
                 const char *css_class)
{
  if (gtk_widget_has_css_class (root, css_class))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_with_class (child, css_class);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static double
luminance_at (const guchar *pixels,
              gsize         stride,
              int           x,
              int           y)
{
  /* Cairo's ARGB32 in memory order on a little-endian machine: B G R A. */
  const guchar *p = pixels + y * stride + x * 4;

  return (0.0722 * p[0] + 0.7152 * p[1] + 0.2126 * p[2]) / 255.0;
}

/* How much the composer field's top edge stands out from the window
 * around it, in a window drawn in @dark or light style (0 to 1). */
static double
composer_frame_contrast (gboolean dark)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  UiWorld *u;
  g_autofree char *session_id = NULL;
  g_autofree char *file = NULL;
  g_autofree guchar *pixels = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autoptr(GError) error = NULL;
  const char *name = dark ? "composer-dark.png" : "composer-light.png";
  NatterWindow *window;
  GtkWidget *field;
  graphene_rect_t bounds;
  gsize stride;
  double contrast = 0;
  int x, y;

  /* Before the window exists: nothing of it drawn in the other style. */
  adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
  u = ui_world_new ();
  session_id = ui_create_session (u, "Frames");
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  field = find_with_class (GTK_WIDGET (natter_window_get_composer (window)), "natter-composer-field");
  g_assert_nonnull (field);
  ui_save_window (GTK_WIDGET (window), name);
  g_assert_true (gtk_widget_compute_bounds (field, GTK_WIDGET (window), &bounds));

  file = ui_screenshot_path (name);
  texture = gdk_texture_new_from_filename (file, &error);
  g_assert_no_error (error);
  stride = gdk_texture_get_width (texture) * 4;
  pixels = g_malloc (stride * gdk_texture_get_height (texture));
  gdk_texture_download (texture, pixels, stride);
  /* The middle of the top edge against a few pixels above it, where
   * the composer's background is. */
  x = (int) (bounds.origin.x + bounds.size.width / 2);
  y = (int) bounds.origin.y;
  for (int dy = 0; dy < 2; dy++)
    contrast = MAX (contrast, fabs (luminance_at (pixels, stride, x, y + dy) - luminance_at (pixels, stride, x, y - 4)));

  ui_destroy_window (window);
  ui_world_free (u);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  return contrast;
}

/* The message field: a placeholder that names the agent the message goes
 * to, gone while there is text; a frame that shows in light and dark
 * style; and beside it the agent chooser as a framed button, not a flat
 * label that reads like a heading. */
void
test_window_composer (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Composer");
  g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
  g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
  g_autoptr(JsonNode) poet = natter_test_json ("{\"agentId\":\"poet\",\"name\":\"Poet\","
                                               "\"systemPrompt\":\"Write verse.\",\"tools\":[]}");
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  NatterComposer *composer;
  NatterAgentChooser *chooser;
  GtkWidget *button;
  double light, dark;

  g_assert_true (natter_agent_store_save (store, json_node_get_object (poet), &error));
  g_assert_no_error (error);
  window = ui_window_new (app, u);
  natter_window_set_agent_store (window, store);
  composer = natter_window_get_composer (window);
  chooser = natter_composer_get_agent_chooser (composer);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  g_assert_cmpstr (natter_composer_get_placeholder (composer), ==, "Message Assistant");
  natter_agent_chooser_set_agent_id (chooser, "poet");
  g_assert_cmpstr (natter_composer_get_placeholder (composer), ==, "Message Poet");
  ui_wait_label (composer, "Message Poet");
  natter_composer_set_text (composer, "Roses");
  g_assert_null (natter_composer_get_placeholder (composer));
  ui_settle ();
  g_assert_false (ui_label_shown (composer, "Message Poet"));
  natter_composer_set_text (composer, NULL);
  g_assert_cmpstr (natter_composer_get_placeholder (composer), ==, "Message Poet");

  /* The chooser is a button with a frame, showing the agent's name. */
  button = ui_find_first (chooser, GTK_TYPE_MENU_BUTTON);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  g_assert_false (gtk_widget_has_css_class (button, "flat"));
  g_assert_false (natter_agent_chooser_get_compact (chooser));
  {
    g_autoptr(GPtrArray) labels = ui_find_all (button, GTK_TYPE_LABEL);
    gboolean named = FALSE;

    for (guint i = 0; i < labels->len; i++)
      named |= gtk_widget_get_mapped (labels->pdata[i]) && g_str_equal (gtk_label_get_text (labels->pdata[i]), "Poet");
    g_assert_true (named);
  }
  ui_save_window (GTK_WIDGET (window), "composer-chooser.png");
  ui_destroy_window (window);
  ui_world_free (u);

  /* The field's edge stands out in both styles (the old card-on-window
   * field was all but invisible in dark style). */
  light = composer_frame_contrast (FALSE);
  dark = composer_frame_contrast (TRUE);
  g_test_message ("Frame contrast: light %.3f, dark %.3f", light, dark);
  g_assert_cmpfloat (light, >=, 0.12);
  g_assert_cmpfloat (dark, >=, 0.12);
}

typedef struct
{
  GtkWidget *field;
  int        height;
} FieldHeight;

static gboolean
field_is_tall (gpointer data)
{
  FieldHeight *f = data;

  return gtk_widget_get_height (f->field) == f->height;
}

/* Whether the line of @data's cursor (a GtkTextView) shows whole. */
static gboolean
cursor_in_view (gpointer data)
{
  GtkTextView *view = data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter cursor;
  GdkRectangle cursor_rect, visible;

  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  gtk_text_view_get_iter_location (view, &cursor, &cursor_rect);
  gtk_text_view_get_visible_rect (view, &visible);
  return cursor_rect.y >= visible.y && cursor_rect.y + cursor_rect.height <= visible.y + visible.height;
}

/* A message typed line by line, one frame drawn after each, until the
 * field is as tall as it grows and then well past it: the field stops
 * at its maximum and scrolls, the line typed last in view, and it has
 * no scroll bar: GTK 4.8 draws the bar of a growing field before the bar
 * has a place (a warning, fatal here; e2e-grow types with real keys,
 * where it showed). */
void
test_window_composer_grows (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Growing");
  NatterWindow *window;
  NatterComposer *composer;
  GtkWidget *field;
  GtkTextView *view;
  GtkAdjustment *adjustment;
  int tallest = 0;
  FieldHeight wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *turn_id = ui_send (u, session_id, "A question that takes a line");

      ui_wait_turn (u, turn_id);
    }
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  field = find_with_class (GTK_WIDGET (composer), "natter-composer-field");
  ui_wait_until (ui_is_mapped, field);
  view = GTK_TEXT_VIEW (ui_find_first (field, GTK_TYPE_TEXT_VIEW));
  for (int line = 0; line < 24; line++)
    {
      g_autofree char *text = g_strdup_printf ("%sLine %d of a long message", line > 0 ? "\n" : "", line + 1);

      /* What a key press does: the text in, the cursor kept in view. */
      gtk_text_buffer_insert_interactive_at_cursor (gtk_text_view_get_buffer (view), text, -1, TRUE);
      gtk_text_view_scroll_mark_onscreen (view, gtk_text_buffer_get_insert (gtk_text_view_get_buffer (view)));
      ui_wait_painted ();
      tallest = MAX (tallest, gtk_widget_get_height (field));
    }
  /* At most 200 px of text, and the margins around it. */
  g_assert_cmpint (tallest, <=, 200 + 16 + 4);
  g_assert_cmpint (tallest, >=, 200);
  wait = (FieldHeight) { field, tallest };
  ui_wait_until (field_is_tall, &wait);
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (field));
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), >, gtk_adjustment_get_page_size (adjustment));
  /* No scroll bar of its own (see natter-composer.ui): the text scrolls. */
  g_assert_false (gtk_widget_get_mapped (gtk_scrolled_window_get_vscrollbar (GTK_SCROLLED_WINDOW (field))));
  /* The line typed last, where the cursor is, shows whole. */
  ui_wait_until (cursor_in_view, view);
  ui_save_window (GTK_WIDGET (window), "composer-grown.png");

  ui_destroy_window (window);
  ui_world_free (u);
}
