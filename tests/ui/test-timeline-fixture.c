/* test-timeline-fixture.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the scenarios of test-timeline share: the application, and the
 * texts a window's timeline shows.
 */

#include "test-timeline.h"

NatterApplication *app;

/* The texts of the mapped markdown views, joined by "|". */
char *
shown_texts (NatterWindow *window)
{
  g_autoptr(GPtrArray) views = NULL;
  GString *text = g_string_new (NULL);

  ui_settle ();
  views = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_MARKDOWN_VIEW);
  for (guint i = 0; i < views->len; i++)
    g_string_append_printf (text, "%s%s", i > 0 ? "|" : "",
                            natter_markdown_view_get_text (g_ptr_array_index (views, i)));
  return g_string_free (text, FALSE);
}

typedef struct
{
  NatterWindow *window;
  const char   *expected;
} TextWait;

static gboolean
texts_are (gpointer data)
{
  TextWait *w = data;
  g_autofree char *texts = shown_texts (w->window);

  return g_strcmp0 (texts, w->expected) == 0;
}

static char *
describe_texts (gpointer data)
{
  TextWait *w = data;
  g_autofree char *texts = shown_texts (w->window);

  return g_strdup_printf ("wanted \"%s\", shown \"%s\"", w->expected, texts);
}

void
wait_texts (NatterWindow *window,
            const char   *expected)
{
  TextWait w = { window, expected };

  ui_wait_until_full (texts_are, describe_texts, &w);
}
