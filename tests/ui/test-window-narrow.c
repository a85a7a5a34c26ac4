/* test-window-narrow.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window at GNOME's mobile width: it goes down to 360 px, and the
 * open conversation's title shows whole there, whatever window buttons
 * the desktop puts beside it and with a model in the header too.
 */

#include "test-window.h"

/* The widest minimum width among @root's descendants, for a failure
 * message that names what holds the window wide. */
static void
describe_min_widths (GtkWidget *root,
                     GString   *out,
                     int        depth)
{
  int min = 0;

  if (!gtk_widget_get_visible (root))
    return;
  gtk_widget_measure (root, GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  if (min > 20)
    g_string_append_printf (out, "%*s%s %d\n", depth * 2, "", G_OBJECT_TYPE_NAME (root), min);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    describe_min_widths (child, out, depth + 1);
}

typedef struct
{
  GtkWidget *window;
  int        width;
} WidthWait;

static gboolean
window_width_is (gpointer data)
{
  WidthWait *w = data;

  ui_settle ();
  /* The surface is @width wide; the widget is that without the frame. */
  return gtk_widget_get_width (w->window) > 0 && gtk_widget_get_width (w->window) <= w->width;
}

static char *
describe_width (gpointer data)
{
  WidthWait *w = data;

  return g_strdup_printf ("the window is %d px wide", gtk_widget_get_width (w->window));
}

static gboolean
leaflet_settled (gpointer data)
{
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (data, ADW_TYPE_LEAFLET));

  guint n_shown = 0;

  ui_settle ();
  /* Folded, and done moving: one page alone is on screen. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (leaflet)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_child_visible (child) && gtk_widget_get_width (child) > 0)
      n_shown++;
  return !adw_leaflet_get_child_transition_running (leaflet) && adw_leaflet_get_folded (leaflet) && n_shown == 1;
}

/* GNOME's mobile width: the window goes down to 360 px, and the open
 * conversation's title is shown whole there, not cut to a few letters,
 * whatever window buttons the desktop puts beside it (@layout), also
 * when the header has a model to show (@model, nullable). */
static void
check_narrow (const char *layout_wanted,
              const char *model,
              const char *screenshot)
{
  GtkSettings *settings = gtk_settings_get_default ();
  g_autofree char *layout = NULL;
  UiWorld *u;
  g_autofree char *session_id = NULL;
  g_autoptr(GString) why = g_string_new (NULL);
  g_autoptr(NatterProviderRegistry) registry = NULL;
  NatterWindow *window;
  WidthWait wait = { NULL, 360 };
  AdwWindowTitle *title = NULL;
  GtkWidget *title_label = NULL;
  int min = 0, natural = 0;

  g_object_get (settings, "gtk-decoration-layout", &layout, NULL);
  g_object_set (settings, "gtk-decoration-layout", layout_wanted, NULL);
  u = ui_world_new ();
  session_id = ui_create_session (u, "Weekend plans");
  window = ui_window_new (app, u);
  wait.window = GTK_WIDGET (window);
  if (model != NULL)
    {
      /* Nobody listens there: the name shows all the same. */
      registry = natter_provider_registry_new (NULL, NULL, NULL);
      natter_provider_registry_add_provider (registry, "local", "Local", "http://127.0.0.1:9/v1");
      natter_window_set_model_provider (window, registry, "local", model);
    }

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_settle ();

  /* As a person drags its edge: narrow enough to fold, where the header
   * gives up the desktop's other window buttons and its least width with
   * them, then on down to 360 px. */
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 640);
  /* What choosing the conversation in the list does on a narrow window. */
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (leaflet_settled, window);
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 640);
  ui_wait_until_full (window_width_is, describe_width, &wait);
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min, NULL, NULL, NULL);
  describe_min_widths (GTK_WIDGET (window), why, 0);
  if (min > 360)
    g_test_message ("Minimum widths:\n%s", why->str);
  g_assert_cmpint (min, <=, 360);

  /* The conversation's header: its title label is laid out whole, or
   * beside a model's name, at least begun: the name comes first. */
  {
    g_autoptr(GPtrArray) titles = ui_find_all (window, ADW_TYPE_WINDOW_TITLE);

    for (guint i = 0; i < titles->len; i++)
      if (g_strcmp0 (adw_window_title_get_title (g_ptr_array_index (titles, i)), "Weekend plans") == 0)
        title = g_ptr_array_index (titles, i);
  }
  g_assert_nonnull (title);
  title_label = ui_find_first (title, GTK_TYPE_LABEL);
  g_assert_nonnull (title_label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (title_label)), ==, "Weekend plans");
  {
    g_autoptr(PangoLayout) whole = gtk_widget_create_pango_layout (title_label, "Weekend plans");
    g_autoptr(PangoLayout) begun = gtk_widget_create_pango_layout (title_label, "We…");
    int begun_width = 0;

    pango_layout_get_pixel_size (whole, &natural, NULL);
    pango_layout_get_pixel_size (begun, &begun_width, NULL);
    g_test_message ("%s: the title is %d px wide, its text %d px", layout_wanted,
                    gtk_widget_get_width (title_label), natural);
    if (model == NULL)
      {
        g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (title_label))));
        /* Its allocation holds the whole title, not just a layout that would. */
        g_assert_cmpint (gtk_widget_get_width (title_label), >=, natural);
      }
    else
      g_assert_cmpint (gtk_widget_get_width (title_label), >=, begun_width);
  }
  if (model != NULL)
    {
      NatterModelPicker *picker = natter_window_get_model_picker (window);
      GtkWidget *name = NULL;

      g_autoptr(PangoLayout) ten = NULL;
      g_autofree char *start = g_utf8_substring (model, 0, 10);
      int ten_width = 0;

      /* The model's name, not an icon: at least its first ten
       * characters' room, the title giving way. */
      for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (picker)); w != NULL;
           w = gtk_widget_get_first_child (w) != NULL ? gtk_widget_get_first_child (w) : gtk_widget_get_next_sibling (w))
        if (GTK_IS_LABEL (w) && gtk_widget_get_mapped (w))
          name = w;
      g_assert_nonnull (name);
      ten = gtk_widget_create_pango_layout (name, start);
      pango_layout_get_pixel_size (ten, &ten_width, NULL);
      g_test_message ("The picker shows “%s”, %d px wide", gtk_label_get_text (GTK_LABEL (name)),
                      gtk_widget_get_width (name));
      g_assert_false (natter_model_picker_get_compact (picker));
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (name)), ==, model);
      g_assert_cmpint (gtk_widget_get_width (name), >=, ten_width);
      g_assert_cmpstr (natter_model_picker_get_model (picker), ==, model);
      g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (GTK_WIDGET (picker))),
                                model));
    }
  ui_save_window (GTK_WIDGET (window), screenshot);

  ui_destroy_window (window);
  ui_world_free (u);
  g_object_set (settings, "gtk-decoration-layout", layout, NULL);
}

void
test_window_narrow (void)
{
  /* GNOME's window buttons (its default gtk-decoration-layout, which the
   * Shell and Phosh set): only Close, at the end. */
  check_narrow ("appmenu:close", NULL, "narrow-360.png");
}

/* At 360 px with a model in the header and the three window buttons that
 * GTK shows outside GNOME: the title still shows whole. */
void
test_window_narrow_buttons (void)
{
  check_narrow ("menu:minimize,maximize,close", "llama3.2:3b", "narrow-360-buttons.png");
  check_narrow ("appmenu:close", "llama3.2:3b", "narrow-360-model.png");
}

static gboolean
shows_conversation (gpointer data)
{
  NatterWindow *window = data;

  ui_settle ();
  return leaflet_settled (window) && adw_leaflet_get_visible_child (window->leaflet) == window->content;
}

static gboolean
shows_list (gpointer data)
{
  NatterWindow *window = data;

  ui_settle ();
  return leaflet_settled (window) && adw_leaflet_get_visible_child (window->leaflet) != window->content;
}

/* On a narrow window the list is a page of its own: Back from the open
 * conversation, then a click on its row (selected still, so the click
 * selects nothing new) goes back to it, as a click on any other row
 * goes to that one. */
void
test_window_narrow_back_to_open (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Weekend plans");
  NatterWindow *window = ui_window_new (app, u);
  WidthWait wait = { GTK_WIDGET (window), 360 };
  g_autoptr(GPtrArray) rows = NULL;
  GtkWidget *row = NULL;

  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_settle ();
  /* Narrow enough to fold, on the conversation, then on down to 360 px. */
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 640);
  adw_leaflet_navigate (window->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (leaflet_settled, window);
  adw_leaflet_set_visible_child (window->leaflet, window->content);
  ui_wait_until (shows_conversation, window);
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 640);
  ui_wait_until_full (window_width_is, describe_width, &wait);

  adw_leaflet_navigate (window->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
  ui_wait_until (shows_list, window);
  rows = ui_find_all (window, NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        row = g_ptr_array_index (rows, i);
    }
  g_assert_nonnull (row);
  ui_click (GTK_WIDGET (row));
  ui_wait_until (shows_conversation, window);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  ui_destroy_window (window);
  ui_world_free (u);
}
