/* test-narrow.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GNOME's mobile width, 360 px, with a conversation as people have them,
 * not an empty chat: a tool card, a code block, a sent attachment, a
 * message with two versions and a message queued behind a running
 * answer. Nothing asks for more than 360 px, and nothing is cut off at
 * either side: the turns, the usage line, the composer's Send button and
 * the agent chooser are all inside the window, and the chooser shows an
 * agent's whole name or, where there is no room for it, an icon — never
 * a name cut to "…".
 */

#include <string.h>

#include "natter-action-box.h"
#include "natter-agent-chooser.h"
#include "natter-agent-store.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-version-switcher.h"
#include "natter-window-private.h"

static NatterApplication *app;

#define WIDTH 360

/* Every mapped widget under @widget whose minimum width is over @limit,
 * deepest first, as "Type(min)" (a description for a failure). */
static void
collect_wide (GtkWidget *widget,
              int        limit,
              GString   *out)
{
  int minimum = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_wide (child, limit, out);
  if (!gtk_widget_get_visible (widget))
    return;
  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  if (minimum > limit)
    {
      g_string_append_printf (out, "%s%s(%d)[", out->len > 0 ? " " : "", G_OBJECT_TYPE_NAME (widget), minimum);
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        {
          int child_min = 0;
          const char *text = GTK_IS_LABEL (child) ? gtk_label_get_text (GTK_LABEL (child))
                           : GTK_IS_BUTTON (child) ? gtk_button_get_label (GTK_BUTTON (child)) : NULL;

          if (!gtk_widget_get_visible (child))
            continue;
          gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &child_min, NULL, NULL, NULL);
          g_string_append_printf (out, "%s:%d:%s:%s ", G_OBJECT_TYPE_NAME (child), child_min,
                                  text != NULL ? text : "", gtk_widget_get_css_classes (child)[0] != NULL ? gtk_widget_get_css_classes (child)[0] : "");
        }
      g_string_append (out, "]");
    }
}

static void
save_agent (NatterAgentStore *store,
            const char       *literal)
{
  g_autoptr(JsonNode) node = natter_test_json (literal);
  g_autoptr(GError) error = NULL;

  g_assert_true (natter_agent_store_save (store, json_node_get_object (node), &error));
  g_assert_no_error (error);
}

/* The widest the window asked to be at any frame, and what asked. */
typedef struct
{
  int   widest;
  char *culprits;
} Widest;

typedef struct
{
  NatterWindow *window;
  const char   *problem;
  Widest       *widest;
} NarrowWait;

/* @widget is mapped and lies within the window's width. */
static gboolean
inside (NatterWindow *window,
        GtkWidget    *widget)
{
  graphene_rect_t bounds;

  if (!gtk_widget_get_mapped (widget) || !gtk_widget_compute_bounds (widget, GTK_WIDGET (window), &bounds))
    return FALSE;
  return bounds.origin.x >= 0 && bounds.origin.x + bounds.size.width <= gtk_widget_get_width (GTK_WIDGET (window)) + 0.5;
}

/* What is wrong with the agent chooser as shown, or %NULL: it is hidden,
 * outside the window, or a label on it is cut short. */
static const char *
chooser_problem (NatterWindow *window)
{
  GtkWidget *chooser = GTK_WIDGET (natter_composer_get_agent_chooser (natter_window_get_composer (window)));
  g_autoptr(GPtrArray) labels = ui_find_all (chooser, GTK_TYPE_LABEL);

  if (!inside (window, chooser))
    return "the agent chooser is not inside the window";
  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_mapped (labels->pdata[i]) &&
        pango_layout_is_ellipsized (gtk_label_get_layout (labels->pdata[i])))
      return "the agent's name is cut short";
  return NULL;
}

static gboolean
fits (gpointer data)
{
  NarrowWait *w = data;
  int minimum = 0;
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  gtk_widget_measure (GTK_WIDGET (w->window), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  if (minimum > WIDTH)
    return (w->problem = "the window asks for more than 360 px"), FALSE;
  if (gtk_widget_get_width (GTK_WIDGET (w->window)) > WIDTH)
    return (w->problem = "the window is wider than 360 px"), FALSE;
  rows = ui_find_all (natter_window_get_timeline_list (w->window), NATTER_TYPE_TURN_ROW);
  if (rows->len < 3)
    return (w->problem = "the turns are not shown"), FALSE;
  for (guint i = 0; i < rows->len; i++)
    if (gtk_widget_get_mapped (rows->pdata[i]) && !inside (w->window, rows->pdata[i]))
      return (w->problem = "a turn is cut off"), FALSE;
  {
    g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_composer (w->window), GTK_TYPE_BUTTON);

    for (guint i = 0; i < buttons->len; i++)
      if (gtk_widget_get_mapped (buttons->pdata[i]) && !inside (w->window, buttons->pdata[i]))
        return (w->problem = "a button of the composer is cut off"), FALSE;
  }
  if ((w->problem = chooser_problem (w->window)) != NULL)
    return FALSE;
  return TRUE;
}

static char *
describe (gpointer data)
{
  NarrowWait *w = data;
  g_autoptr(GString) wide = g_string_new (NULL);

  int min_h = 0, min_w_740 = 0, min_h_child = 0;
  GtkWidget *content = w->window->content;

  collect_wide (GTK_WIDGET (w->window), WIDTH - 60, wide);
  gtk_widget_measure (GTK_WIDGET (w->window), GTK_ORIENTATION_VERTICAL, WIDTH, &min_h, NULL, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (w->window), GTK_ORIENTATION_HORIZONTAL, 740, &min_w_740, NULL, NULL, NULL);
  gtk_widget_measure (content, GTK_ORIENTATION_VERTICAL, WIDTH, &min_h_child, NULL, NULL, NULL);
  return g_strdup_printf ("%s; at most %d px asked for by %s; window %d×%d px; min height at 360: %d (content %d); min width at 740: %d; "
                          "wider than %d px: %s", w->problem, w->widest->widest, w->widest->culprits,
                          gtk_widget_get_width (GTK_WIDGET (w->window)), gtk_widget_get_height (GTK_WIDGET (w->window)),
                          min_h, min_h_child, min_w_740, WIDTH - 60, wide->str);
}

static gboolean
watch_width_cb (GtkWidget     *window,
                GdkFrameClock *clock,
                gpointer       data)
{
  Widest *widest = data;
  int minimum = 0;

  gtk_widget_measure (window, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  if (minimum > widest->widest)
    {
      g_autoptr(GString) wide = g_string_new (NULL);

      collect_wide (window, WIDTH, wide);
      widest->widest = minimum;
      g_free (widest->culprits);
      widest->culprits = g_string_free (g_steal_pointer (&wide), FALSE);
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
queue_shows (gpointer data)
{
  return natter_queue_view_get_n_queued (((NatterWindow *) data)->conversation.queue_view) == 1;
}

static void
test_full_conversation_at_360 (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterBlobStore) blobs = natter_blob_store_new (u->w->storage);
  g_autofree char *original = ui_create_session (u, "A conversation with everything in it");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *t3 = NULL;
  g_autofree char *branch = NULL;
  g_autofree char *running = NULL;
  g_autoptr(GFile) notes = g_file_get_child (u->w->dir, "meeting-notes-for-the-quarterly-review.txt");
  g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
  g_autoptr(NatterAgentStore) agents = natter_agent_store_new (agents_dir);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;
  NarrowWait wait;
  Widest widest = { 0, NULL };

  natter_turn_runtime_set_blob_store (u->w->runtime, blobs);
  /* The agent the fake world answers with, as the chooser lists it. */
  save_agent (agents, "{\"agentId\":\"helper\",\"name\":\"Helper\",\"systemPrompt\":\"Help.\",\"tools\":[]}");
  natter_fake_model_set_usage (u->w->fakes->model,
                               "{\"inputTokens\":123456,\"outputTokens\":65432,\"totalTokens\":188888}");
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "read_file",
                                                                     "{\"path\":\"/home/someone/projects/natter/src/ui/natter-window-conversation.c\"}")),
                            "{\"role\":\"assistant\",\"content\":\"Run this:\\n\\n"
                            "```sh\\nmeson setup build --buildtype=debugoptimized -Db_sanitize=address && meson compile -C build\\n```\\n\"}",
                            "{\"role\":\"assistant\",\"content\":\"The notes say the review is on Friday.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Tomorrow.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Thursday, then.\"}",
                            NATTER_FAKE_STEP_HOLD, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  t1 = ui_send (u, original, "How do I build it? Read the window's conversation file first.");
  ui_wait_turn (u, t1);
  g_file_replace_contents (notes, "Review on Friday.", 17, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  t2 = ui_send_with_files (u, blobs, original, "When is the review?", NULL, notes, NULL);
  ui_wait_turn (u, t2);
  t3 = ui_send (u, original, "And the next meeting?");
  ui_wait_turn (u, t3);
  /* The last message edited: a second version of it. */
  natter_sessions_fork_async (u->sessions, original, t2, "A conversation with everything in it", NULL,
                              ui_result_cb, &result);
  branch = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  g_clear_object (&result);
  g_free (t3);
  t3 = ui_send (u, branch, "And the next meeting, on which day?");
  ui_wait_turn (u, t3);

  window = ui_window_new (app, u);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), watch_width_cb, &widest, NULL);
  natter_window_set_blob_store (window, blobs);
  natter_window_set_agent_store (window, agents);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 740);
  g_assert_true (natter_window_open_session (window, branch));
  ui_wait_until (ui_timeline_loaded, window);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);

  /* An answer running, a message queued behind it. */
  running = ui_send (u, branch, "Write it all up, please.");
  ui_wait_model_held (u);
  natter_composer_set_text (natter_window_get_composer (window), "And make it short.");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (queue_shows, window);

  wait = (NarrowWait) { window, NULL, &widest };
  ui_wait_until_full (fits, describe, &wait);
  ui_save_window (GTK_WIDGET (window), "narrow-full.png");
  /* Not even for a frame: a window that grew does not shrink back. */
  if (widest.widest > WIDTH)
    g_error ("At one frame the window asked for %d px: %s", widest.widest, widest.culprits);
  g_free (widest.culprits);

  natter_fake_model_release (u->w->fakes->model);
  ui_wait_until (ui_no_advances, u);
  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  int           width;
  gboolean      compact;
} ChooserWait;

static gboolean
chooser_shows (gpointer data)
{
  ChooserWait *w = data;
  NatterAgentChooser *chooser = natter_composer_get_agent_chooser (natter_window_get_composer (w->window));

  ui_settle ();
  return ABS (gtk_widget_get_width (GTK_WIDGET (w->window)) - w->width) <= 10 &&
         natter_agent_chooser_get_compact (chooser) == w->compact && chooser_problem (w->window) == NULL;
}

static char *
describe_chooser (gpointer data)
{
  ChooserWait *w = data;
  NatterAgentChooser *chooser = natter_composer_get_agent_chooser (natter_window_get_composer (w->window));
  const char *problem = chooser_problem (w->window);

  return g_strdup_printf ("at %d px (wanted %d) the chooser shows %s (wanted %s)%s%s",
                          gtk_widget_get_width (GTK_WIDGET (w->window)), w->width,
                          natter_agent_chooser_get_compact (chooser) ? "an icon" : "the name",
                          w->compact ? "an icon" : "the name", problem != NULL ? "; " : "",
                          problem != NULL ? problem : "");
}

/* The agent chooser beside the message field: at 360 px an icon (its
 * name in the placeholder, the tooltip and the list), at a desktop width
 * the whole name, even with a long draft that wants the width, and back
 * to the icon when the window is made narrow again. */
static void
test_agent_chooser_name_or_icon (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
  g_autoptr(NatterAgentStore) agents = natter_agent_store_new (agents_dir);
  NatterAgentChooser *chooser;
  NatterWindow *window;
  ChooserWait wait;

  save_agent (agents, "{\"agentId\":\"reviewer\",\"name\":\"Code Reviewer\",\"systemPrompt\":\"Review code.\",\"tools\":[]}");
  window = ui_window_new (app, u);
  natter_window_set_agent_store (window, agents);
  chooser = natter_composer_get_agent_chooser (natter_window_get_composer (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  natter_agent_chooser_set_agent_id (chooser, "reviewer");

  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 700);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  wait = (ChooserWait) { window, WIDTH, TRUE };
  ui_wait_until_full (chooser_shows, describe_chooser, &wait);
  ui_save_window (GTK_WIDGET (window), "narrow-agent-chooser.png");

  natter_composer_set_text (natter_window_get_composer (window),
                            "A draft long enough to want every pixel of the window's width for itself, and then some more.");
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 700);
  wait = (ChooserWait) { window, 900, FALSE };
  ui_wait_until_full (chooser_shows, describe_chooser, &wait);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (GTK_WIDGET (chooser))), ==,
                   "Agent for the Next Message: Code Reviewer");

  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 700);
  wait = (ChooserWait) { window, WIDTH, TRUE };
  ui_wait_until_full (chooser_shows, describe_chooser, &wait);

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *model;
  int           width;      /* the window's, once it is there */
  int           min_chars;  /* of the name, at least, on screen */
} PickerWait;

/* The label of the picker's button, not its popover's. */
static GtkLabel *
picker_name_label (NatterModelPicker *picker)
{
  GtkWidget *button = gtk_widget_get_first_child (GTK_WIDGET (picker));

  for (GtkWidget *w = gtk_widget_get_first_child (button); w != NULL;
       w = gtk_widget_get_first_child (w) != NULL ? gtk_widget_get_first_child (w) : gtk_widget_get_next_sibling (w))
    if (GTK_IS_LABEL (w))
      return GTK_LABEL (w);
  return NULL;
}

/* How wide @label would draw the first @n_chars characters of @text. */
static int
text_width (GtkLabel   *label,
            const char *text,
            int         n_chars)
{
  g_autofree char *start = g_utf8_substring (text, 0, n_chars);
  g_autoptr(PangoLayout) layout = gtk_widget_create_pango_layout (GTK_WIDGET (label), start);
  int width = 0;

  pango_layout_get_pixel_size (layout, &width, NULL);
  return width;
}

static gboolean
picker_named (gpointer data)
{
  PickerWait *w = data;
  NatterModelPicker *picker = natter_window_get_model_picker (w->window);
  GtkLabel *label = picker_name_label (picker);

  ui_settle ();
  return g_strcmp0 (natter_model_picker_get_model (picker), w->model) == 0 &&
         gtk_widget_get_width (GTK_WIDGET (w->window)) <= w->width &&
         label != NULL && gtk_widget_get_mapped (GTK_WIDGET (label)) &&
         g_strcmp0 (gtk_label_get_text (label), w->model) == 0 &&
         gtk_widget_get_width (GTK_WIDGET (label)) >= text_width (label, w->model, w->min_chars);
}

static char *
describe_picker (gpointer data)
{
  PickerWait *w = data;
  NatterModelPicker *picker = natter_window_get_model_picker (w->window);
  AdwWindowTitle *title = ADW_WINDOW_TITLE (ui_find_first (w->window, ADW_TYPE_WINDOW_TITLE));
  GtkLabel *label = picker_name_label (picker);
  int nat = 0, min = 0, hnat = 0;

  g_autoptr(GString) wide = g_string_new (NULL);
  int window_min = 0;

  gtk_widget_measure (GTK_WIDGET (picker), GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (title), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &hnat, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (w->window), GTK_ORIENTATION_HORIZONTAL, -1, &window_min, NULL, NULL, NULL);
  if (window_min > w->width)
    collect_wide (GTK_WIDGET (w->window), w->width - 60, wide);
  return g_strdup_printf ("(%s, label %s; window min %d: %s) the picker (min %d, natural %d, given %d; title natural %d given %d; window %d) shows %s "
                          "in %d px (%d wanted), the subtitle “%s”",
                          adw_leaflet_get_folded (ADW_LEAFLET (ui_find_first (w->window, ADW_TYPE_LEAFLET))) ? "folded" : "unfolded",
                          label != NULL && gtk_widget_get_mapped (GTK_WIDGET (label)) ? "mapped" : "unmapped",
                          window_min, wide->str, min, nat, gtk_widget_get_width (GTK_WIDGET (picker)), hnat, gtk_widget_get_width (GTK_WIDGET (title)),
                          gtk_widget_get_width (GTK_WIDGET (w->window)),
                          natter_model_picker_get_model (picker),
                          label != NULL ? gtk_widget_get_width (GTK_WIDGET (label)) : 0,
                          label != NULL ? text_width (label, w->model, w->min_chars) : 0,
                          adw_window_title_get_subtitle (title));
}

/* A conversation answered by a model: the header names that model in its
 * picker, where a person changes it, not only as a subtitle. */
static void
test_header_names_the_model (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Header");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  PickerWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send_with_model (u, session_id, "Hello", "p", "llama3.2:3b-instruct");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (PickerWait) { window, "llama3.2:3b-instruct", 800, 20 };
  ui_wait_until_full (picker_named, describe_picker, &wait);
  g_assert_cmpstr (adw_window_title_get_subtitle (ADW_WINDOW_TITLE (ui_find_first (window, ADW_TYPE_WINDOW_TITLE))),
                   ==, "");
  ui_save_window (GTK_WIDGET (window), "header-model.png");

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
leaflet_folded (gpointer window)
{
  ui_settle ();
  return adw_leaflet_get_folded (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)));
}

static void
save_both_styles (NatterWindow *window,
                  const char   *name)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  g_autofree char *light = g_strdup_printf ("%s-light.png", name);
  g_autofree char *dark = g_strdup_printf ("%s-dark.png", name);

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  if (!ui_save_screen (light))
    ui_save_window (GTK_WIDGET (window), light);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  if (!ui_save_screen (dark))
    ui_save_window (GTK_WIDGET (window), dark);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

/* A long title does not push the model's name out of the header, wide
 * or at 360 px: the name keeps room for its first ten characters at
 * least (a longer one cut in its middle), and the title is the one that
 * gives way. */
static void
test_header_model_beside_long_title (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Planning the long weekend trip to the mountains with the "
                                                      "whole family, the dog and far too much luggage");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  PickerWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send_with_model (u, session_id, "Hello", "p", "qwen2.5-coder:32b-instruct");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 640);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  wait = (PickerWait) { window, "qwen2.5-coder:32b-instruct", 1000, 10 };
  ui_wait_until_full (picker_named, describe_picker, &wait);
  save_both_styles (window, "header-long-title-wide");

  /* As a person drags the edge: narrow enough to fold, where the header
   * has fewer window buttons and a smaller least width, then on down to
   * 360 px. */
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 640);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (leaflet_folded, window);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 640);
  wait = (PickerWait) { window, "qwen2.5-coder:32b-instruct", WIDTH, 10 };
  ui_wait_until_full (picker_named, describe_picker, &wait);
  save_both_styles (window, "header-long-title-360");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* A short name, "m", beside a long title at 360 px: shown whole, never
 * as a lone "…" (ten characters of room are counted in average widths,
 * and an "m" is wider than the average). */
static void
test_header_short_model_at_360 (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Planning the long weekend trip to the mountains");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  PickerWait wait;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = ui_send_with_model (u, session_id, "Hello", "p", "m");
  ui_wait_turn (u, turn_id);
  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), 500, 640);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (leaflet_folded, window);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 640);
  wait = (PickerWait) { window, "m", WIDTH, 1 };
  ui_wait_until_full (picker_named, describe_picker, &wait);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (picker_name_label (natter_window_get_model_picker (window)))));

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  int           width;
  gboolean      below;
} StatusWait;

#define DAMAGED_SAYS "This turn cannot be read: its file is damaged."

/* The damaged turn's status line: its words, its box and its button. */
static GtkWidget *
damaged_status (NatterWindow  *window,
                GtkWidget    **out_button)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_timeline_list (window), GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_get_mapped (labels->pdata[i]) &&
        g_strcmp0 (gtk_label_get_text (labels->pdata[i]), DAMAGED_SAYS) == 0)
      {
        GtkWidget *box = gtk_widget_get_ancestor (labels->pdata[i], NATTER_TYPE_ACTION_BOX);

        *out_button = gtk_widget_get_last_child (box);
        return labels->pdata[i];
      }
  return NULL;
}

/* Where the words have room and the button is whole: the button under
 * the words at phone width, beside them at a desktop's. */
static gboolean
status_laid_out (gpointer data)
{
  StatusWait *w = data;
  GtkWidget *button = NULL;
  GtkWidget *words;
  GtkWidget *box;

  ui_settle ();
  if (ABS (gtk_widget_get_width (GTK_WIDGET (w->window)) - w->width) > 10 ||
      (words = damaged_status (w->window, &button)) == NULL)
    return FALSE;
  box = gtk_widget_get_parent (words);
  return natter_action_box_get_action_below (NATTER_ACTION_BOX (box)) == w->below &&
         gtk_widget_get_width (words) >= MIN (200, gtk_widget_get_width (box) - 40) &&
         inside (w->window, button) && inside (w->window, words);
}

static char *
describe_status (gpointer data)
{
  StatusWait *w = data;
  GtkWidget *button = NULL;
  GtkWidget *words = damaged_status (w->window, &button);

  ui_save_window (GTK_WIDGET (w->window), "narrow-damaged-turn-failed.png");
  if (words == NULL)
    return g_strdup_printf ("at %d px (wanted %d) no damaged turn is shown",
                            gtk_widget_get_width (GTK_WIDGET (w->window)), w->width);
  return g_strdup_printf ("at %d px (wanted %d): words %d px wide, button %s (wanted %s)",
                          gtk_widget_get_width (GTK_WIDGET (w->window)), w->width, gtk_widget_get_width (words),
                          natter_action_box_get_action_below (NATTER_ACTION_BOX (gtk_widget_get_parent (words)))
                            ? "under them" : "beside them",
                          w->below ? "under them" : "beside them");
}

/* An earlier turn damaged, at phone width: its words are said across the row, not
 * in a column a few letters wide beside Copy Readable Part, which goes
 * under them; at a desktop width the button is beside them again. The
 * reader's own words (file path, line, turn id) are under Details, not
 * in the sentence. */
static void
test_damaged_turn_at_360 (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *sid = ui_create_session (u, "Damaged at phone width");
  g_autofree char *turn = NULL;
  g_autofree char *later = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *damaged = NULL;
  const char *second;
  NatterWindow *window;
  StatusWait wait;

  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Fine.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Still fine.\"}", NULL);
  turn = ui_send (u, sid, "How are you?");
  ui_wait_turn (u, turn);
  later = ui_send (u, sid, "And now?");
  ui_wait_turn (u, later);
  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn, NULL);
  /* A line in the middle another program garbled: every line after it
   * still reads, so nothing passes it for a write cut short. */
  g_assert_true (g_file_get_contents (g_file_peek_path (file), &contents, NULL, NULL));
  second = strchr (contents, '\n') + 1;
  damaged = g_strdup_printf ("%.*s{\"garbled\n%s", (int) (second - contents), contents, second);
  g_assert_true (g_file_set_contents (g_file_peek_path (file), damaged, -1, NULL));
  ui_world_restart (u);

  window = ui_window_new (app, u);
  gtk_window_set_default_size (GTK_WINDOW (window), WIDTH, 700);
  g_assert_true (natter_window_open_session (window, sid));
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  wait = (StatusWait) { window, WIDTH, TRUE };
  ui_wait_until_full (status_laid_out, describe_status, &wait);
  g_assert_false (ui_label_shown (window, turn));
  ui_save_window (GTK_WIDGET (window), "narrow-damaged-turn.png");

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  wait = (StatusWait) { window, 1000, FALSE };
  ui_wait_until_full (status_laid_out, describe_status, &wait);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/narrow/full-conversation-at-360", test_full_conversation_at_360);
  g_test_add_func ("/narrow/header-names-the-model", test_header_names_the_model);
  g_test_add_func ("/narrow/header-short-model-at-360", test_header_short_model_at_360);
  g_test_add_func ("/narrow/header-model-beside-long-title", test_header_model_beside_long_title);
  g_test_add_func ("/narrow/agent-chooser-name-or-icon", test_agent_chooser_name_or_icon);
  g_test_add_func ("/narrow/damaged-turn-at-360", test_damaged_turn_at_360);
  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
