/* test-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window under a real (virtual) display.
 */

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "natter-branch-row.h"
#include "natter-session-row.h"
#include "natter-test-server.h"
#include "natter-test-support.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

/* One registered application serves every test, as in the real process. */
static NatterApplication *app;

static gboolean
widget_is_mapped (GtkWidget *widget)
{
  return gtk_widget_get_mapped (widget);
}

static void
wait_until_mapped (GtkWidget *widget)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!widget_is_mapped (widget) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (widget_is_mapped (widget));
}

static GtkWidget *
find_status_page (GtkWidget  *root,
                  const char *title)
{
  if (ADW_IS_STATUS_PAGE (root) &&
      g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (root)), title) == 0)
    return root;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_status_page (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_window_empty_state (void)
{
  NatterWindow *window;

  window = natter_window_new (app, NULL, NULL);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));

  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "No Conversations"));
  g_assert_nonnull (find_status_page (GTK_WIDGET (window), "Start a Conversation"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_window_size_is_restored (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  NatterWindow *window;
  int width, height;

  g_settings_set_int (settings, "window-width", 777);
  g_settings_set_int (settings, "window-height", 555);

  window = natter_window_new (app, NULL, NULL);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 777);
  g_assert_cmpint (height, ==, 555);

  /* Closing saves the size for the next start. */
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 640);
  gtk_window_present (GTK_WINDOW (window));
  wait_until_mapped (GTK_WIDGET (window));
  gtk_window_close (GTK_WINDOW (window));
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 900);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 640);
}

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

static void
test_window_narrow (void)
{
  /* GNOME's window buttons (its default gtk-decoration-layout, which the
   * Shell and Phosh set): only Close, at the end. */
  check_narrow ("appmenu:close", NULL, "narrow-360.png");
}

/* At 360 px with a model in the header and the three window buttons that
 * GTK shows outside GNOME: the title still shows whole. */
static void
test_window_narrow_buttons (void)
{
  check_narrow ("menu:minimize,maximize,close", "llama3.2:3b", "narrow-360-buttons.png");
  check_narrow ("appmenu:close", "llama3.2:3b", "narrow-360-model.png");
}

#define MARKUP_TITLE "Tom & Jerry <b>"

typedef struct
{
  GtkWidget  *root;
  const char *text;
} LabelWait;

static gboolean
search_entry_shown (gpointer data)
{
  ui_settle ();
  return ui_find_first (data, GTK_TYPE_SEARCH_ENTRY) != NULL;
}

static gboolean
sidebar_has_one (gpointer data)
{
  ui_settle ();
  return g_list_model_get_n_items (natter_window_get_sidebar_model (data)) == 1;
}

static gboolean
session_row_shown (gpointer data)
{
  LabelWait *w = data;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (w->root, NATTER_TYPE_SESSION_ROW);
  for (guint i = 0; i < rows->len; i++)
    if (g_strcmp0 (natter_session_row_get_title (g_ptr_array_index (rows, i)), w->text) == 0 &&
        ui_label_shown (g_ptr_array_index (rows, i), w->text))
      return TRUE;
  return FALSE;
}

/* Titles are the user's text, never markup: "Tom & Jerry <b>" shows as
 * typed in the sidebar, the header, the delete toast, a search, a
 * branch's separator and a toast that names it, and nothing warns (the
 * tests run with G_DEBUG=fatal-warnings: a Gtk or Pango markup warning
 * ends the test). */
static void
test_window_markup_in_titles (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Plain");
  g_autofree char *session_id = ui_create_session (u, MARKUP_TITLE);
  g_autofree char *turn_id = NULL;
  g_autofree char *branch_id = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  LabelWait row = { NULL, MARKUP_TITLE };
  GtkWidget *search;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send (u, session_id, "Hello");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  row.root = natter_window_get_session_list (window);

  /* The sidebar and the header. */
  ui_wait_until (session_row_shown, &row);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  {
    AdwWindowTitle *title = NULL;
    g_autoptr(GPtrArray) titles = ui_find_all (window, ADW_TYPE_WINDOW_TITLE);

    for (guint i = 0; i < titles->len; i++)
      if (g_strcmp0 (adw_window_title_get_title (g_ptr_array_index (titles, i)), MARKUP_TITLE) == 0)
        title = g_ptr_array_index (titles, i);
    g_assert_nonnull (title);
    g_assert_true (ui_label_shown (title, MARKUP_TITLE));
  }

  /* A search for it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  ui_wait_until (search_entry_shown, window);
  search = ui_find_first (window, GTK_TYPE_SEARCH_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (search), "jerry <b");
  ui_wait_until (sidebar_has_one, window);
  ui_wait_until (session_row_shown, &row);
  gtk_editable_set_text (GTK_EDITABLE (search), "");

  /* The delete toast says which conversation went, and Undo brings it
   * back. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", NULL);
  ui_wait_label (natter_window_get_toast_overlay (window), "“" MARKUP_TITLE "” deleted");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", session_id);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, session_id);

  /* A toast from a row naming it (as "Message copied" does). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-toast", "s", "Copied “" MARKUP_TITLE "”");
  ui_wait_label (natter_window_get_toast_overlay (window), "Copied “" MARKUP_TITLE "”");

  /* A notice naming an agent called so (toasts are markup too). */
  {
    g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
    g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
    g_autoptr(JsonNode) agent = natter_test_json ("{\"agentId\":\"tj\",\"name\":\"" MARKUP_TITLE "\","
                                                  "\"systemPrompt\":\"\",\"tools\":[]}");
    NatterAgentChooser *chooser = natter_composer_get_agent_chooser (natter_window_get_composer (window));

    g_assert_true (natter_agent_store_save (store, json_node_get_object (agent), &error));
    g_assert_no_error (error);
    natter_window_set_agent_store (window, store);
    natter_agent_chooser_set_agent_id (chooser, "tj");
    g_assert_true (natter_agent_store_delete (store, "tj", &error));
    g_assert_no_error (error);
    ui_wait_label (natter_window_get_toast_overlay (window),
                "The agent “" MARKUP_TITLE "” was removed: messages go to Assistant");
  }

  /* A branch of it names it in its separator. */
  natter_sessions_fork_async (u->sessions, session_id, turn_id, NULL, NULL, ui_result_cb, &result);
  branch_id = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_assert_true (natter_window_open_session (window, branch_id));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_label (natter_window_get_timeline_list (window), "Branched from “" MARKUP_TITLE "”");

  ui_destroy_window (window);
  (void) other;
  ui_world_free (u);
}

/* The error bar's labels: its heading, then the reason. */
static GtkLabel *
error_label (NatterWindow *window,
             guint         index)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_LABEL);
  GPtrArray *texts = g_ptr_array_new ();

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      /* A button's own label is not the bar's text. */
      if (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON) == NULL)
        g_ptr_array_add (texts, label);
    }
  g_assert_cmpuint (texts->len, ==, 2);
  {
    GtkLabel *label = g_ptr_array_index (texts, index);

    g_ptr_array_unref (texts);
    return label;
  }
}

static GtkButton *
error_action (NatterWindow *window)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (gtk_button_get_label (g_ptr_array_index (buttons, i)) != NULL)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

/* Whether the whole of @label's text is laid out: wrapped, not cut. */
static gboolean
label_is_whole (GtkLabel *label)
{
  return gtk_label_get_wrap (label) &&
         gtk_label_get_ellipsize (label) == PANGO_ELLIPSIZE_NONE &&
         !pango_layout_is_ellipsized (gtk_label_get_layout (label));
}

static gboolean
composer_has_text (gpointer data)
{
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (data));

  ui_settle ();
  return text[0] != '\0';
}

static gboolean
sends_as_expected (gpointer data)
{
  UiWorld *u = data;

  ui_settle ();
  return natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, g_object_get_data (G_OBJECT (u->index), "test-session"))) == 1;
}

/* A failed send or setup error is not a toast: it shows in a bar under
 * the header — not over the composer — in plain words, with the whole
 * reason (not ellipsized), the action that helps (Preferences for a
 * missing agent or model; no Retry where sending the same again cannot
 * succeed), and it stays until dismissed or answered. */
static void
test_window_errors (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Errors");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *moved = g_strconcat (path, ".moved", NULL);
  NatterWindow *window;
  NatterComposer *composer;
  graphene_rect_t bar_bounds, composer_bounds;
  GtkLabel *detail;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (window))));

  /* An agent that does not resolve: Preferences is where it is fixed. */
  natter_window_set_agent_id (window, "nobody");
  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  detail = error_label (window, 1);
  g_assert_cmpstr (gtk_label_get_text (detail), ==,
                   "The agent or its model is not set up. Choose them in Preferences.\n"
                   "Details: no such agent");
  g_assert_true (label_is_whole (detail));
  g_assert_true (gtk_label_get_selectable (detail));
  g_assert_nonnull (error_action (window));
  g_assert_cmpstr (gtk_button_get_label (error_action (window)), ==, "_Preferences");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (error_action (window))), ==, "app.preferences");
  /* The words are back in the composer, which the bar does not cover. */
  ui_wait_until (composer_has_text, window);
  g_assert_true (gtk_widget_compute_bounds (natter_window_get_error_bar (window), GTK_WIDGET (window), &bar_bounds));
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (composer), GTK_WIDGET (window), &composer_bounds));
  g_assert_false (graphene_rect_intersection (&bar_bounds, &composer_bounds, NULL));
  g_assert_cmpfloat (bar_bounds.origin.y + bar_bounds.size.height, <=, composer_bounds.origin.y);
  /* Nothing takes it away on a timer: it is there until dismissed. */
  for (int i = 0; i < 10; i++)
    ui_settle ();
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (window))));
  {
    g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_BUTTON);
    GtkWidget *dismiss = NULL;

    for (guint i = 0; i < buttons->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Dismiss") == 0)
        dismiss = g_ptr_array_index (buttons, i);
    g_assert_nonnull (dismiss);
    g_signal_emit_by_name (dismiss, "clicked");
  }
  ui_wait_until (ui_error_bar_hidden, window);

  /* The session file is not a file any more: sending the same again
   * cannot succeed until someone mends it, so no Retry is offered; the
   * words are back in the composer, and go once it is mended. */
  natter_window_set_agent_id (window, "helper");
  g_assert_cmpint (g_rename (path, moved), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  g_test_message ("%s", gtk_label_get_text (error_label (window, 1)));
  g_assert_true (label_is_whole (error_label (window, 1)));
  g_assert_null (error_action (window));
  ui_save_window (GTK_WIDGET (window), "error-bar.png");
  ui_wait_until (composer_has_text, window);
  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_cmpint (g_rename (moved, path), ==, 0);
  g_object_set_data_full (G_OBJECT (u->index), "test-session", g_strdup (session_id), g_free);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (sends_as_expected, u);
  ui_wait_until (ui_error_bar_hidden, window);
  {
    g_autofree char *left = natter_composer_dup_text (composer);

    g_assert_cmpstr (left, ==, "");
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

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
static void
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

/* The default provider was deleted (the setting still names it): a
 * message makes no turn, which could only look interrupted forever; the
 * error bar says so in plain words, with Preferences, and the words go
 * back into the composer. */
static void
test_window_missing_default_provider (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "New Chat");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterSessionIndexEntry *entry;
  NatterComposer *composer;
  NatterWindow *window;
  g_autofree char *draft = NULL;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  natter_provider_registry_add_provider (registry, "mock", "Mock", "http://127.0.0.1:9/v1");
  natter_window_set_model_provider (window, registry, "gone", "m");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 1)), ==,
                   "The default provider “gone” no longer exists. Choose another one in Preferences.\n"
                   "Details: No provider “gone” is configured");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (error_action (window))), ==, "app.preferences");
  ui_wait_until (composer_has_text, window);
  draft = natter_composer_dup_text (composer);
  g_assert_cmpstr (draft, ==, "Hello there");

  /* No turn, so nothing runs and nothing spins in the sidebar. */
  entry = natter_session_index_lookup (u->index, session_id);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 0);
  g_assert_null (natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_true (ui_no_advances (u));
  g_assert_false (window->conversation.sending);
  g_assert_false (_natter_window_latest_is_running (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Sets the providers of @settings: each an id and its base URL. */
static void
set_providers (NatterSettings *settings,
               const char     *first_id,
               ...)
{
  g_autoptr(GPtrArray) providers = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_provider_config_free);
  g_autoptr(GError) error = NULL;
  va_list args;

  va_start (args, first_id);
  for (const char *id = first_id; id != NULL; id = va_arg (args, const char *))
    g_ptr_array_add (providers, natter_provider_config_new (id, id, va_arg (args, const char *)));
  va_end (args);
  g_assert_true (natter_settings_set_providers (settings, providers, &error));
  g_assert_no_error (error);
}

/* Sends "Hello there" and waits for the error bar to say that the
 * provider could not be reached. */
static void
send_unreachable (NatterWindow *window)
{
  NatterComposer *composer = natter_window_get_composer (window);

  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_test_message ("%s", gtk_label_get_text (error_label (window, 1)));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label (window, 1)), "is it running?"));
  ui_wait_until (composer_has_text, window);
  natter_composer_set_text (composer, "");
}

/* An error bar saying that a provider could not be reached goes once
 * that provider's settings change — its address edited, its key stored,
 * a connection test in Preferences that succeeds, another default model
 * — as the next send would say whether it still holds; a change of
 * another provider leaves it, and an error about something else (an
 * agent that does not resolve) stays whatever the providers do. */
static void
test_window_provider_error_goes_with_settings (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Unreachable");
  g_autoptr(NatterServices) services = NULL;
  g_autofree char *down = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  g_autofree char *default_provider = NULL;
  g_autofree char *default_model = NULL;
  g_autoptr(GVariant) providers = NULL;
  NatterSettings *settings;
  NatterWindow *window;

  g_object_get (app, "services", &services, NULL);
  g_assert_nonnull (services);
  window = ui_window_new (app, u);
  /* As Preferences would set them; the application gives the window
   * its services' providers. No model named: the send asks the
   * provider for its first one. */
  settings = window->settings;
  providers = g_variant_ref (natter_settings_get_providers (settings));
  default_provider = g_strdup (natter_settings_get_default_provider (settings));
  default_model = g_strdup (natter_settings_get_default_model (settings));
  set_providers (settings, "down", down, "other", "http://127.0.0.1:9/v1", NULL);
  natter_settings_set_default_provider (settings, "down");
  natter_settings_set_default_model (settings, "");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  /* Another provider's address, key or test: the bar stays. */
  send_unreachable (window);
  set_providers (settings, "down", down, "other", "http://127.0.0.1:10/v1", NULL);
  natter_services_provider_changed (services, "other");
  ui_settle ();
  g_assert_true (ui_error_bar_shown (window));
  /* Its own address edited: the bar goes. */
  set_providers (settings, "down", "http://127.0.0.1:11/v1", "other", "http://127.0.0.1:10/v1", NULL);
  ui_wait_until (ui_error_bar_hidden, window);
  set_providers (settings, "down", down, "other", "http://127.0.0.1:10/v1", NULL);

  /* Its key stored, or a test in Preferences that succeeded. */
  send_unreachable (window);
  natter_services_provider_changed (services, "down");
  ui_wait_until (ui_error_bar_hidden, window);

  /* Another default model. */
  send_unreachable (window);
  natter_settings_set_default_model (settings, "m2");
  ui_wait_until (ui_error_bar_hidden, window);
  natter_settings_set_default_model (settings, "");

  /* An error about something else stays: another copy of Natter
   * holding the data folder. */
  {
    g_autoptr(GError) locked = g_error_new_literal (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                                                    "The data directory is locked");

    _natter_window_show_error (window, session_id, "The message was not sent", locked, NULL);
  }
  ui_wait_until (ui_error_bar_shown, window);
  set_providers (settings, "down", "http://127.0.0.1:12/v1", NULL);
  natter_services_provider_changed (services, "down");
  ui_settle ();
  g_assert_true (ui_error_bar_shown (window));

  ui_destroy_window (window);
  g_object_set (settings, "providers", providers, NULL);
  natter_settings_set_default_provider (settings, default_provider);
  natter_settings_set_default_model (settings, default_model);
  ui_world_free (u);
}

static gboolean
a_session_open (gpointer data)
{
  return natter_window_get_session_id (data) != NULL;
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
static void
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

/* New Chat writes nothing: a new conversation is listed, and has a file,
 * from its first message on. Its draft waits while another conversation
 * is open, and it is the conversation that opens once sent. Nothing of
 * an unused new chat is there after a restart. */
static void
test_window_new_chat_writes_nothing (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Other");
  g_autoptr(GPtrArray) before = natter_test_list_files (u->w->dir, "storage/sessions");
  g_autoptr(GPtrArray) after = NULL;
  NatterWindow *window = ui_window_new (app, u);
  NatterComposer *composer = natter_window_get_composer (window);
  g_autofree char *draft = NULL;

  g_assert_true (natter_window_open_session (window, other));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  g_assert_null (natter_window_get_session_id (window));
  natter_composer_set_text (composer, "Half a thought");
  after = natter_test_list_files (u->w->dir, "storage/sessions");
  g_assert_cmpuint (after->len, ==, before->len);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 1);

  /* Away and back: the new chat's draft is still there. */
  g_assert_true (natter_window_open_session (window, other));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  draft = natter_composer_dup_text (composer);
  g_assert_cmpstr (draft, ==, "Half a thought");

  /* Sent: one new conversation, opened, its message answered. */
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  natter_composer_set_text (composer, "A whole thought");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (a_session_open, window);
  g_assert_cmpstr (natter_window_get_session_id (window), !=, other);
  g_assert_cmpuint (g_list_model_get_n_items (natter_window_get_sidebar_model (window)), ==, 2);
  g_ptr_array_unref (after);
  after = natter_test_list_files (u->w->dir, "storage/sessions");
  g_assert_cmpuint (after->len, ==, before->len + 1);
  ui_wait_turn (u, natter_session_index_entry_get_latest_turn_id (
                  natter_session_index_lookup (u->index, natter_window_get_session_id (window))));

  /* An unused new chat, then a restart: nothing of it is listed. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL);
  ui_destroy_window (window);
  ui_world_restart (u);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (u->index)), ==, 2);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/window/empty-state", test_window_empty_state);
  g_test_add_func ("/window/size-is-restored", test_window_size_is_restored);
  g_test_add_func ("/window/narrow", test_window_narrow);
  g_test_add_func ("/window/narrow-buttons", test_window_narrow_buttons);
  g_test_add_func ("/window/markup-in-titles", test_window_markup_in_titles);
  g_test_add_func ("/window/errors", test_window_errors);
  g_test_add_func ("/window/missing-default-provider", test_window_missing_default_provider);
  g_test_add_func ("/window/provider-error-goes-with-settings", test_window_provider_error_goes_with_settings);
  g_test_add_func ("/window/composer", test_window_composer);
  g_test_add_func ("/window/composer-grows", test_window_composer_grows);
  g_test_add_func ("/window/new-chat-writes-nothing", test_window_new_chat_writes_nothing);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
