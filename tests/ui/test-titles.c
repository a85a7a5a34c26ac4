/* test-titles.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a person sees of automatic titles (session-layer-spec.md §12.6):
 * the sidebar row of a new conversation first shows the first message,
 * then the title the model gave once the first answer is there.
 */

#include <string.h>

#include "natter-session-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  const char   *title;
} RowWait;

static NatterSessionRow *
find_row (NatterWindow *window,
          const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

static gboolean
row_shows (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row = find_row (w->window, w->session_id);

  return row != NULL && g_strcmp0 (natter_session_row_get_title (row), w->title) == 0 &&
         ui_label_shown (row, w->title);
}

static char *
describe_row (gpointer data)
{
  RowWait *w = data;
  NatterSessionRow *row = find_row (w->window, w->session_id);

  return g_strdup_printf ("the row shows “%s”, not “%s”", row != NULL ? natter_session_row_get_title (row) : "(none)",
                          w->title);
}

static void
test_sidebar_title_follows (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("io.github.natter.Natter");
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, NULL);
  NatterWindow *window;
  NatterComposer *composer;
  g_autoptr(JsonNode) request = NULL;
  g_autofree char *request_text = NULL;
  RowWait wait;

  g_settings_set_boolean (settings, "auto-title", TRUE);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  natter_fake_model_script (u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Sunny, 21 degrees.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Weather & <Tomorrow>\"}", NULL);
  g_assert_true (natter_window_open_session (window, session_id));

  natter_composer_set_text (composer, "How will the weather be tomorrow?");
  g_assert_true (natter_composer_send (composer));

  /* The model's title replaces the first message's, shown as text. */
  wait = (RowWait) { window, session_id, "Weather & <Tomorrow>" };
  ui_wait_until_full (row_shows, describe_row, &wait);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  request = json_node_init_object (json_node_alloc (), natter_fake_model_get_request (u->w->fakes->model, 1));
  request_text = json_to_string (request, FALSE);
  g_assert_nonnull (strstr (request_text, "Write a title for the conversation below"));
  g_assert_nonnull (strstr (request_text, "How will the weather be tomorrow?"));

  g_settings_set_boolean (settings, "auto-title", FALSE);
  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);
  g_test_add_func ("/titles/sidebar-title-follows", test_sidebar_title_follows);
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
