/* test-preferences-general.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The settings beside the providers: the default model (its name shown
 * whole), the model-call limit and automatic permission, automatic
 * titles and compaction, the context window.
 */

#include "test-preferences.h"

static guint
combo_n_items (GtkWidget *combo)
{
  return g_list_model_get_n_items (adw_combo_row_get_model (ADW_COMBO_ROW (combo)));
}

static const char *
combo_item (GtkWidget *combo,
            guint      position)
{
  g_autoptr(GtkStringObject) item = g_list_model_get_item (adw_combo_row_get_model (ADW_COMBO_ROW (combo)),
                                                           position);

  return gtk_string_object_get_string (item);
}

void
test_default_model (Fixture       *f,
                    gconstpointer  data)
{
  GtkWidget *model = natter_preferences_window_get_widget (f->window, "model");
  GtkWidget *provider = natter_preferences_window_get_widget (f->window, "provider");
  g_autofree char *chosen = NULL;
  g_autofree char *default_provider = NULL;
  g_autofree char *reset = NULL;

  /* Filled from the default provider's /models, after "first model". */
  g_assert_cmpuint (combo_n_items (model), ==, 4);
  g_assert_cmpstr (combo_item (model, 1), ==, "alpha");
  g_assert_cmpstr (combo_item (model, 3), ==, "gamma");
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (model)), ==, 0);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (model)), ==, "");

  adw_combo_row_set_selected (ADW_COMBO_ROW (model), 2);
  chosen = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (chosen, ==, "beta");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (model)), ==, 2);

  /* The provider combo lists the providers by name. */
  g_assert_cmpuint (combo_n_items (provider), ==, 2);
  g_assert_cmpstr (combo_item (provider, 1), ==, "Down Server");
  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 1);
  default_provider = g_settings_get_string (f->settings, "default-provider");
  g_assert_cmpstr (default_provider, ==, "down");
  reset = g_settings_get_string (f->settings, "default-model");
  g_assert_cmpstr (reset, ==, "");
  ui_wait_preferences_idle (f->window);

  /* Unreachable: a clear state, the refresh button back. */
  g_test_message ("Model row: %s", adw_action_row_get_subtitle (ADW_ACTION_ROW (model)));
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (model)),
                                   "Could not list the models: "));
  g_assert_true (gtk_widget_has_css_class (model, "error"));
  g_assert_cmpuint (combo_n_items (model), ==, 1);

  /* Back to the reachable one: the error clears. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 0);
  ui_wait_preferences_idle (f->window);
  g_assert_cmpuint (combo_n_items (model), ==, 4);
  g_assert_false (gtk_widget_has_css_class (model, "error"));
}

void
test_limit_and_switch (Fixture       *f,
                       gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (natter_preferences_window_get_widget (f->window, "max-calls"));
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-permission"));
  g_autofree char *data_dir = g_file_get_path (f->data_dir);

  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 50);
  gtk_spin_button_set_value (spin, 7);
  g_assert_cmpuint (g_settings_get_uint (f->settings, "max-model-calls"), ==, 7);
  g_assert_cmpuint (natter_services_get_max_model_calls (f->services), ==, 7);
  g_settings_set_uint (f->settings, "max-model-calls", 120);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 120);

  g_assert_false (gtk_switch_get_active (toggle));
  gtk_switch_set_active (toggle, TRUE);
  g_assert_true (g_settings_get_boolean (f->settings, "auto-permission"));
  g_settings_set_boolean (f->settings, "auto-permission", FALSE);
  g_assert_false (gtk_switch_get_active (toggle));

  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (natter_preferences_window_get_widget (f->window, "data-dir"))),
                   ==, data_dir);
}

/* "Name Conversations Automatically" is the auto-title key, on by default,
 * both ways; the services (which the window and the command line ask) follow. */
void
test_auto_title_switch (Fixture       *f,
                        gconstpointer  data)
{
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-title"));

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle),
                                                                                           ADW_TYPE_ACTION_ROW))),
                   ==, "Name Conversations Automatically");
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (natter_services_get_auto_title (f->services));
  gtk_switch_set_active (toggle, FALSE);
  g_assert_false (g_settings_get_boolean (f->settings, "auto-title"));
  g_assert_false (natter_services_get_auto_title (f->services));
  g_settings_set_boolean (f->settings, "auto-title", TRUE);
  g_assert_true (gtk_switch_get_active (toggle));
}

/* "Compact Long Conversations Automatically" is the auto-compact key, on
 * by default, both ways; the settings the window and the command line ask
 * before a send follow. */
void
test_auto_compact_switch (Fixture       *f,
                          gconstpointer  data)
{
  GtkSwitch *toggle = GTK_SWITCH (natter_preferences_window_get_widget (f->window, "auto-compact"));
  NatterSettings *settings = natter_services_get_settings (f->services);

  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (gtk_widget_get_ancestor (GTK_WIDGET (toggle),
                                                                                           ADW_TYPE_ACTION_ROW))),
                   ==, "Compact Long Conversations Automatically");
  g_assert_true (gtk_switch_get_active (toggle));
  g_assert_true (natter_settings_get_auto_compact (settings));
  gtk_switch_set_active (toggle, FALSE);
  g_assert_false (g_settings_get_boolean (f->settings, "auto-compact"));
  g_assert_false (natter_settings_get_auto_compact (settings));
  g_settings_set_boolean (f->settings, "auto-compact", TRUE);
  g_assert_true (gtk_switch_get_active (toggle));
}

/* Below "Compact Long Conversations Automatically", the context window in
 * tokens of the model a message goes to when none is chosen: what the
 * spin button shows is that model's `context-windows` entry, both ways
 * (auto-compact reads the entry, see test-auto-compact); 0 forgets it;
 * each model has its own; with no default model, the provider's first
 * (the README's first-run settings). A number typed with thousands
 * separators is read whole. */
void
test_context_window (Fixture       *f,
                     gconstpointer  data)
{
  GtkSpinButton *spin = GTK_SPIN_BUTTON (natter_preferences_window_get_widget (f->window, "context-window"));
  AdwPreferencesRow *row = ADW_PREFERENCES_ROW (natter_preferences_window_get_widget (f->window,
                                                                                     "context-window-row"));
  GtkWidget *compact = natter_preferences_window_get_widget (f->window, "auto-compact");
  NatterSettings *settings = natter_services_get_settings (f->services);
  g_autoptr(GVariant) windows = NULL;
  gint32 value = 0;

  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (row), ADW_TYPE_PREFERENCES_GROUP) ==
                 gtk_widget_get_ancestor (compact, ADW_TYPE_PREFERENCES_GROUP));
  g_assert_true (gtk_widget_get_ancestor (GTK_WIDGET (spin), ADW_TYPE_ACTION_ROW) == GTK_WIDGET (row));
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “alpha”");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  gtk_editable_set_text (GTK_EDITABLE (spin), "128,000");
  gtk_spin_button_update (spin);
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 128000);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "alpha"), ==, 128000);
  gtk_spin_button_set_value (spin, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "alpha"), ==, 0);

  g_settings_set_string (f->settings, "default-model", "beta");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “beta”");
  g_assert_true (gtk_widget_get_sensitive (GTK_WIDGET (spin)));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 0);

  gtk_spin_button_set_value (spin, 8192);
  windows = g_settings_get_value (f->settings, "context-windows");
  g_assert_true (g_variant_lookup (windows, "local/beta", "i", &value));
  g_assert_cmpint (value, ==, 8192);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "beta"), ==, 8192);

  /* Changed elsewhere: the row follows. */
  g_settings_set_value (f->settings, "context-windows", g_variant_new_parsed ("{'local/beta': 4096, 'local/gamma': 100}"));
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 4096);

  /* Another model shows and sets its own. */
  g_settings_set_string (f->settings, "default-model", "gamma");
  ui_wait_preferences_idle (f->window);
  g_assert_cmpstr (adw_preferences_row_get_title (row), ==, "Context Window of “gamma”");
  g_assert_cmpint (gtk_spin_button_get_value_as_int (spin), ==, 100);
  gtk_spin_button_set_value (spin, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "gamma"), ==, 0);
  g_assert_cmpuint (natter_settings_get_context_window (settings, "local", "beta"), ==, 4096);
  g_clear_pointer (&windows, g_variant_unref);
  windows = g_settings_get_value (f->settings, "context-windows");
  g_assert_cmpuint (g_variant_n_children (windows), ==, 1);
}

typedef struct
{
  GtkWidget *window;
  int        width;
} WidthWait;

static gboolean
window_is_wide (gpointer data)
{
  WidthWait *w = data;

  /* The default size holds the window's frame (its shadow, under
   * Xvfb's no window manager): a few pixels more than the widget. */
  return gtk_widget_get_width (w->window) <= w->width && gtk_widget_get_width (w->window) >= w->width - 20;
}

static char *
describe_width (gpointer data)
{
  WidthWait *w = data;

  return g_strdup_printf ("the window is %d px wide, not %d", gtk_widget_get_width (w->window), w->width);
}

/* Resizes the window to @width px and waits until it is laid out. */
static void
resize (Fixture *f,
        int      width)
{
  WidthWait w = { GTK_WIDGET (f->window), width };

  gtk_window_set_default_size (GTK_WINDOW (f->window), width, 700);
  ui_wait_until_full (window_is_wide, describe_width, &w);
  ui_wait_preferences_idle (f->window);
  for (guint i = 0; i < 3; i++)
    ui_wait_painted ();
}

/* Asserts that @row shows the chosen @name, whole when @whole, else
 * cut with the whole name as its tooltip; on one line, within the row,
 * and that the row's title keeps its one line. */
static void
assert_name_shown (GtkWidget  *row,
                   const char *name,
                   gboolean    whole)
{
  g_autoptr(GPtrArray) labels = ui_find_all (row, GTK_TYPE_LABEL);
  GtkWidget *shown = NULL, *title = NULL;
  PangoLayout *layout;
  graphene_rect_t bounds;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (!gtk_widget_get_mapped (label))
        continue;
      if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), name) == 0)
        shown = label;
      else if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row))) == 0)
        title = label;
    }
  g_assert_nonnull (shown);
  g_assert_nonnull (title);
  layout = gtk_label_get_layout (GTK_LABEL (shown));
  g_assert_true (gtk_widget_compute_bounds (shown, row, &bounds));
  g_test_message ("“%s”: %d px wide, %d lines, ellipsized %d, in a row of %d px", name,
                  gtk_widget_get_width (shown), pango_layout_get_line_count (layout),
                  pango_layout_is_ellipsized (layout), gtk_widget_get_width (row));
  g_assert_cmpint (pango_layout_is_ellipsized (layout), ==, !whole);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (shown), ==, name);
  g_assert_cmpint (pango_layout_get_line_count (layout), ==, 1);
  g_assert_cmpfloat (bounds.origin.x, >=, 0);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (row));
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (title))), ==, 1);
}

/* The default model's name shows whole where the row has room for it
 * (640 px, and 360 px for a short one), and is cut only where it has
 * not (an id of fifty characters at 360 px), the row's title never;
 * in light and dark style. */
void
test_model_name_whole (Fixture       *f,
                       gconstpointer  data)
{
  static const char *long_id = "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo-128k";
  GtkWidget *model = natter_preferences_window_get_widget (f->window, "model");
  AdwStyleManager *style = adw_style_manager_get_default ();

  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (f->window), "general");
  resize (f, 640);
  assert_name_shown (model, "The Provider’s First Model", TRUE);
  save_screenshot (f, "preferences-model-640-light.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  save_screenshot (f, "preferences-model-640-dark.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);

  resize (f, 360);
  assert_name_shown (model, "The Provider’s First Model", TRUE);
  save_screenshot (f, "preferences-model-360-light.png");

  g_settings_set_string (f->settings, "default-model", long_id);
  ui_wait_preferences_idle (f->window);
  resize (f, 640);
  assert_name_shown (model, long_id, TRUE);
  save_screenshot (f, "preferences-model-long-640-light.png");
  resize (f, 360);
  assert_name_shown (model, long_id, FALSE);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  save_screenshot (f, "preferences-model-long-360-dark.png");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

static void
check_tab_stops (Fixture    *f,
                 const char *where)
{
  g_autoptr(GPtrArray) cycle = NULL;

  ui_settle ();
  cycle = ui_tab_cycle (f->window, NULL);
  ui_assert_tab_stops_named (cycle, where);
}

/* Whatever Tab reaches in Preferences has a name a screen reader can
 * say: each page, a provider's row opened, and the agent editor. */
void
test_tab_stops_named (Fixture       *f,
                      gconstpointer  data)
{
  AdwPreferencesWindow *window = ADW_PREFERENCES_WINDOW (f->window);
  GtkWidget *stack = ui_find_first (f->window, ADW_TYPE_VIEW_STACK);
  guint n_pages = 0;

  for (GtkWidget *page = gtk_widget_get_first_child (stack); page != NULL; page = gtk_widget_get_next_sibling (page))
    {
      adw_preferences_window_set_visible_page (window, ADW_PREFERENCES_PAGE (page));
      check_tab_stops (f, adw_preferences_page_get_title (ADW_PREFERENCES_PAGE (page)));
      n_pages++;
    }
  g_assert_cmpuint (n_pages, ==, 5);

  adw_preferences_window_set_visible_page_name (window, "providers");
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (provider_widget (f, "local", "expander")), TRUE);
  check_tab_stops (f, "a provider opened");

  adw_preferences_window_set_visible_page_name (window, "agents");
  g_signal_emit_by_name (natter_preferences_window_get_widget (f->window, "add-agent"), "activated");
  g_assert_nonnull (natter_preferences_window_get_editor_widget (f->window, "name"));
  check_tab_stops (f, "the agent editor");
}
