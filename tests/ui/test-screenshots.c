/* test-screenshots.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Renders the window in its main states to PNGs in
 * $G_TEST_BUILDDIR/screenshots/ for a person to look at: the empty state,
 * a conversation, a pending permission prompt, a damaged session; and the
 * README's pictures, a real conversation (a file attached, Markdown, a
 * code block, a tool card) and the search in light and dark style, wide
 * and at 360 px; an answer being read aloud (its Stop over its actions
 * and the bar above the composer) in both styles, wide and at 360 px. With
 * NATTER_UPDATE_SCREENSHOTS=1 in the environment the README's pictures
 * are also written to data/screenshots/ in the source tree.
 */

#include <string.h>

#include "natter-blob-store.h"
#include "natter-markdown-view.h"
#include "natter-permission-card.h"
#include "natter-test-speech.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

static gboolean
markdown_ready (gpointer data)
{
  g_autoptr(GPtrArray) views = ui_find_all (data, NATTER_TYPE_MARKDOWN_VIEW);

  ui_settle ();
  for (guint i = 0; i < views->len; i++)
    if (!natter_markdown_view_get_ready (g_ptr_array_index (views, i)))
      return FALSE;
  return TRUE;
}

/* Once the conversation's Markdown is laid out. */
static void
save_screenshot (NatterWindow *window,
                 const char   *name)
{
  ui_wait_until (markdown_ready, window);
  ui_save_window (GTK_WIDGET (window), name);
}

static void
test_screenshot_empty (void)
{
  UiWorld *u = ui_world_new ();
  NatterWindow *window = ui_window_new (app, u);

  /* Nothing to restore: a new conversation, ready to type into. */
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "conversation");
  g_assert_null (natter_window_get_session_id (window));
  save_screenshot (window, "empty.png");
  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_screenshot_conversation (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Trip to Lisbon");
  g_autofree char *session_id = ui_create_session (u, NULL);
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            /* No fenced code here: GtkSourceView registers enough
                             * quarks for GLib to retire its first quark block,
                             * which LeakSanitizer then reports (a GLib-internal,
                             * intentional leak). test-markdown covers code. */
                            "{\"role\":\"assistant\",\"content\":\"A **binary search** halves the range each step:\\n\\n"
                            "1. Look at the middle element `a[mid]`.\\n"
                            "2. If it is smaller than the key, search the right half.\\n"
                            "3. Otherwise search the left half.\\n\\n"
                            "It needs a sorted array and takes *O(log n)* steps.\"}",
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            "{\"role\":\"assistant\",\"content\":\"The tool ran; everything is in order.\"}",
                            NULL);
  t1 = ui_send (u, session_id, "How does binary search work?");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Check it with the tool, please.");
  ui_wait_turn (u, t2);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  save_screenshot (window, "conversation.png");
  ui_destroy_window (window);
  (void) other;
  ui_world_free (u);
}

static gboolean
has_card (gpointer data)
{
  g_autoptr(GPtrArray) cards = NULL;

  ui_settle ();
  cards = ui_find_all (data, NATTER_TYPE_PERMISSION_CARD);
  return cards->len == 1;
}

static void
test_screenshot_permission (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Read my notes");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;

  g_hash_table_add (u->w->fakes->needs_permission, g_strdup ("sc"));
  natter_fake_model_script (u->w->fakes->model,
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sc", "{\"path\":\"notes.txt\"}")),
                            NULL);
  turn_id = ui_send (u, session_id, "Summarize notes.txt for me.");
  ui_wait_turn (u, turn_id);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (has_card, window);
  save_screenshot (window, "permission.png");
  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_screenshot_errored (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *good = ui_create_session (u, "Recipes");
  g_autofree char *bad = ui_create_session (u, "Damaged notes");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, bad, NULL);
  g_autoptr(GFileOutputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  NatterWindow *window;

  stream = g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (G_OUTPUT_STREAM (stream), "{\"type\":", 8, NULL, NULL, &error);
  g_output_stream_close (G_OUTPUT_STREAM (stream), NULL, &error);
  g_assert_no_error (error);
  ui_world_restart (u);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, bad));
  g_assert_cmpstr (natter_window_get_visible_page (window), ==, "errored");
  save_screenshot (window, "errored.png");
  ui_destroy_window (window);
  (void) good;
  ui_world_free (u);
}

/* Folded, and done moving: one page alone is on screen. */
static gboolean
leaflet_settled (gpointer data)
{
  AdwLeaflet *leaflet = ADW_LEAFLET (ui_find_first (data, ADW_TYPE_LEAFLET));
  guint n_shown = 0;

  ui_settle ();
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (leaflet)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_child_visible (child) && gtk_widget_get_width (child) > 0)
      n_shown++;
  return !adw_leaflet_get_child_transition_running (leaflet) && adw_leaflet_get_folded (leaflet) && n_shown == 1;
}

/* A model as people run one, not the fixtures' "p"/"m": the README's
 * pictures show it in the header. */
#define README_PROVIDER "ollama"
#define README_MODEL    "llama3.2:3b"

/* The README's conversation: a file attached to the first message, then
 * a question whose answer reads a file with a tool and shows Markdown
 * and a code block; three other conversations in the list. */
static char *
readme_conversation (UiWorld         *u,
                     NatterBlobStore *blobs)
{
  char *session_id;
  g_autofree char *t0 = NULL;
  g_autofree char *t1 = NULL;
  g_autofree char *other = NULL;
  g_autoptr(GFile) notes = g_file_get_child (u->w->dir, "notes.py");
  g_autoptr(GError) error = NULL;
  static const char notes_text[] = "numbers = [1, 2, 3, 4]\n";

  other = ui_create_session (u, "Trip to Lisbon");
  g_free (other);
  other = ui_create_session (u, "Birthday card ideas");
  g_free (other);
  other = ui_create_session (u, "Weekly report");
  session_id = ui_create_session (u, "Reverse a list in Python");
  g_assert_true (g_file_replace_contents (notes, notes_text, sizeof notes_text - 1, NULL, FALSE,
                                          G_FILE_CREATE_NONE, NULL, NULL, &error));
  g_assert_no_error (error);
  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Got it: a list of four numbers.\"}",
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "read_file", "{\"path\":\"notes.py\"}")),
                            "{\"role\":\"assistant\",\"content\":\"There are **two** idiomatic ways:\\n\\n"
                            "1. `reversed()` gives an iterator and leaves the list alone.\\n"
                            "2. Slicing with a step of *-1* makes a reversed copy:\\n\\n"
                            "```python\\nnumbers = [1, 2, 3, 4]\\nprint(numbers[::-1])  # [4, 3, 2, 1]\\n"
                            "numbers.reverse()        # in place\\n```\\n\\n"
                            "Use `list.reverse()` when you do not need the original order any more.\"}",
                            NULL);
  t0 = ui_send_with_files (u, blobs, session_id, "Here are my notes.", NULL, notes, NULL);
  ui_wait_turn (u, t0);
  t1 = ui_send_with_model (u, session_id, "How do I reverse a list in Python? Look at notes.py first.",
                           README_PROVIDER, README_MODEL);
  ui_wait_turn (u, t1);
  return session_id;
}

/* Copies screenshot @name into the source tree's data/screenshots/ when
 * NATTER_UPDATE_SCREENSHOTS is set. */
static void
publish_screenshot (const char *name)
{
  ui_publish_screenshot (name, "data/screenshots");
}

static gboolean
is_snippet (GtkWidget *widget)
{
  return gtk_widget_get_mapped (widget) && strstr (gtk_label_get_label (GTK_LABEL (widget)), "<b>Slicing</b>") != NULL;
}

/* The sidebar lists the one conversation the search found, with the
 * words it found. */
static gboolean
search_shows_snippet (gpointer window)
{
  ui_settle ();
  return g_list_model_get_n_items (natter_window_get_sidebar_model (window)) == 1 &&
         ui_find_first_full (natter_window_get_session_list (window), GTK_TYPE_LABEL, is_snippet) != NULL;
}

static gboolean
is_read_aloud (GtkWidget *widget)
{
  return gtk_widget_get_mapped (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Read Aloud") == 0;
}

static gboolean
reading_bar_shown (gpointer window)
{
  g_autoptr(GPtrArray) revealers = ui_find_all (((NatterWindow *) window)->conversation.view, GTK_TYPE_REVEALER);

  ui_settle ();
  for (guint i = 0; i < revealers->len; i++)
    if (gtk_revealer_get_child_revealed (revealers->pdata[i]) &&
        ui_label_shown (revealers->pdata[i], "Reading an answer aloud"))
      return TRUE;
  return FALSE;
}

/* The last answer read aloud (by a fake speaker): its Stop over its
 * actions and the bar above the composer; then stopped. */
static void
save_read_aloud_screenshot (NatterWindow *window,
                            const char   *name)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_timeline_list (window), GTK_TYPE_BUTTON);
  GtkWidget *last = NULL;

  for (guint i = 0; i < buttons->len; i++)
    if (is_read_aloud (buttons->pdata[i]))
      last = buttons->pdata[i];
  g_assert_nonnull (last);
  g_signal_emit_by_name (last, "clicked");
  ui_wait_until (reading_bar_shown, window);
  save_screenshot (window, name);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop-reading", NULL);
}

static void
save_readme_screenshots (gboolean dark)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  UiWorld *u = ui_world_new ();
  g_autoptr(GFile) agents_dir = g_file_get_child (u->w->dir, "agents");
  g_autoptr(NatterSpeech) speech = natter_fake_speech_new ();
  g_autoptr(NatterAgentStore) store = natter_agent_store_new (agents_dir);
  g_autoptr(NatterBlobStore) blobs = natter_blob_store_new (u->w->storage);
  g_autofree char *session_id = NULL;
  NatterSearchIndex *search;
  GtkEditable *entry;
  NatterWindow *window;

  g_autoptr(JsonNode) tutor = natter_test_json ("{\"agentId\":\"helper\",\"name\":\"Python Tutor\","
                                                "\"systemPrompt\":\"Teach Python.\",\"tools\":[]}");
  g_autoptr(GError) error = NULL;

  /* The fake world's agent, by a name, for the chooser to show. */
  g_assert_true (natter_agent_store_save (store, json_node_get_object (tutor), &error));
  g_assert_no_error (error);
  /* Before the window exists, so that nothing of it was drawn in the
   * other style. */
  adw_style_manager_set_color_scheme (style, dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
  natter_turn_runtime_set_blob_store (u->w->runtime, blobs);
  session_id = readme_conversation (u, blobs);
  search = ui_search_index_start (u);

  window = ui_window_new (app, u);
  natter_window_set_blob_store (window, blobs);
  natter_window_set_search_index (window, search);
  /* The agent chooser shows once there is an agent store. */
  natter_window_set_agent_store (window, store);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  /* The header names the model as a person's setup would. */
  g_assert_cmpstr (natter_model_picker_get_model (natter_window_get_model_picker (window)), ==, README_MODEL);
  save_screenshot (window, dark ? "main-dark.png" : "main.png");
  publish_screenshot (dark ? "main-dark.png" : "main.png");
  natter_window_set_speech (window, speech);
  save_read_aloud_screenshot (window, dark ? "read-aloud-dark.png" : "read-aloud.png");

  /* The search by what was said: the conversation found by a word of an
   * answer, the words around it under its title. */
  entry = ui_open_search (window);
  gtk_editable_set_text (entry, "slicing");
  ui_wait_until (search_shows_snippet, window);
  save_screenshot (window, dark ? "search-dark.png" : "search.png");
  publish_screenshot (dark ? "search-dark.png" : "search.png");
  gtk_editable_set_text (entry, "");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  ui_settle ();

  /* GNOME's mobile width: the conversation alone, its title readable;
   * then the list. */
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 720);
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_FORWARD);
  ui_wait_until (leaflet_settled, window);
  save_screenshot (window, dark ? "narrow-dark.png" : "narrow.png");
  publish_screenshot (dark ? "narrow-dark.png" : "narrow.png");
  save_read_aloud_screenshot (window, dark ? "read-aloud-narrow-dark.png" : "read-aloud-narrow.png");
  adw_leaflet_navigate (ADW_LEAFLET (ui_find_first (window, ADW_TYPE_LEAFLET)), ADW_NAVIGATION_DIRECTION_BACK);
  ui_wait_until (leaflet_settled, window);
  save_screenshot (window, dark ? "narrow-sidebar-dark.png" : "narrow-sidebar.png");

  ui_destroy_window (window);
  ui_search_index_drop (search);
  ui_world_free (u);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

static void
test_screenshot_readme_light (void)
{
  save_readme_screenshots (FALSE);
}

static void
test_screenshot_readme_dark (void)
{
  save_readme_screenshots (TRUE);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/screenshots/empty", test_screenshot_empty);
  g_test_add_func ("/screenshots/conversation", test_screenshot_conversation);
  g_test_add_func ("/screenshots/permission", test_screenshot_permission);
  g_test_add_func ("/screenshots/errored", test_screenshot_errored);
  g_test_add_func ("/screenshots/readme-light", test_screenshot_readme_light);
  g_test_add_func ("/screenshots/readme-dark", test_screenshot_readme_dark);

  status = g_test_run ();
  g_clear_object (&app);
  return status;
}
