/* test-markdown.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * NatterMarkdownView and NatterCodeBlock under a real (virtual) display:
 * the widget tree each Markdown construct becomes, streaming that ends in
 * the same tree as the complete text, text that must never reach GTK
 * broken, and a long answer that never stalls the window (parsing it all
 * at once on the main thread is what froze other chat apps when an answer
 * ended).
 */

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "natter-code-block.h"
#include "natter-markdown-view.h"
#include "natter-ui-test-world.h"

static gboolean
view_is_ready (gpointer data)
{
  return natter_markdown_view_get_ready (data);
}

static void
wait_ready (GtkWidget *view)
{
  ui_wait_until (view_is_ready, view);
}

/* A floating view, sunk so the test owns it and can check it dies. */
static GtkWidget *
new_view (void)
{
  return g_object_ref_sink (natter_markdown_view_new ());
}

static GtkWidget *
render (const char *markdown)
{
  GtkWidget *view = new_view ();

  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), markdown);
  wait_ready (view);
  return view;
}

static void
collect (GtkWidget *root,
         GType      type,
         const char *css_class,
         GPtrArray  *out)
{
  if ((type == G_TYPE_NONE || g_type_is_a (G_OBJECT_TYPE (root), type)) &&
      (css_class == NULL || gtk_widget_has_css_class (root, css_class)))
    g_ptr_array_add (out, root);

  /* A code block is one thing, not its template's insides. */
  if (NATTER_IS_CODE_BLOCK (root))
    return;

  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, type, css_class, out);
}

static GPtrArray *
find_all (GtkWidget  *root,
          GType       type,
          const char *css_class)
{
  GPtrArray *out = g_ptr_array_new ();

  collect (root, type, css_class, out);
  return out;
}

static guint
count_all (GtkWidget  *root,
           GType       type,
           const char *css_class)
{
  g_autoptr(GPtrArray) all = find_all (root, type, css_class);

  return all->len;
}

static GtkWidget *
find_one (GtkWidget  *root,
          GType       type,
          const char *css_class)
{
  g_autoptr(GPtrArray) all = find_all (root, type, css_class);

  g_assert_cmpuint (all->len, ==, 1);
  return g_ptr_array_index (all, 0);
}

/* The one widget of @type inside a code block's template. */
static GtkWidget *
find_in_code_block (GtkWidget *block,
                    GType      type)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  for (GtkWidget *w = gtk_widget_get_first_child (block); w != NULL; w = gtk_widget_get_next_sibling (w))
    collect (w, type, NULL, all);
  g_assert_cmpuint (all->len, ==, 1);
  return g_ptr_array_index (all, 0);
}

static GtkWidget *
find_label_containing (GtkWidget  *root,
                       const char *needle)
{
  g_autoptr(GPtrArray) labels = find_all (root, GTK_TYPE_LABEL, NULL);

  for (guint i = 0; i < labels->len; i++)
    if (strstr (gtk_label_get_label (g_ptr_array_index (labels, i)), needle) != NULL)
      return g_ptr_array_index (labels, i);
  return NULL;
}

/* A text dump of the tree: types, our classes, label sources, code. */
static void
dump (GtkWidget *widget,
      GString   *out,
      int        depth)
{
  g_auto(GStrv) classes = gtk_widget_get_css_classes (widget);

  g_string_append_printf (out, "%*s%s", depth * 2, "", G_OBJECT_TYPE_NAME (widget));
  for (guint i = 0; classes[i] != NULL; i++)
    if (g_str_has_prefix (classes[i], "natter-md-") || g_str_has_prefix (classes[i], "title-"))
      g_string_append_printf (out, " .%s", classes[i]);
  if (GTK_IS_LABEL (widget))
    g_string_append_printf (out, " [%s]", gtk_label_get_label (GTK_LABEL (widget)));
  if (NATTER_IS_CODE_BLOCK (widget))
    {
      g_autofree char *code = natter_code_block_dup_code (NATTER_CODE_BLOCK (widget));

      g_string_append_printf (out, " info=%s code=[%s]\n",
                              natter_code_block_get_info (NATTER_CODE_BLOCK (widget)), code);
      return;
    }
  g_string_append_c (out, '\n');
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    dump (child, out, depth + 1);
}

static char *
dump_tree (GtkWidget *view)
{
  GString *out = g_string_new (NULL);

  dump (view, out, 0);
  return g_string_free (out, FALSE);
}

static gboolean
has_ancestor_with_class (GtkWidget  *widget,
                         const char *css_class)
{
  for (GtkWidget *w = gtk_widget_get_parent (widget); w != NULL; w = gtk_widget_get_parent (w))
    if (gtk_widget_has_css_class (w, css_class))
      return TRUE;
  return FALSE;
}

static const char sample[] =
  "# Title\n"
  "\n"
  "Some *em* **strong** `co<de>` [link](https://example.org/?a=1&b=2) <b>html</b>\n"
  "and a soft break.\n"
  "\n"
  "- a\n"
  "- b\n"
  "  - nested\n"
  "\n"
  "| Name | Mid | Right |\n"
  "|------|:---:|------:|\n"
  "| `x` | *y* | 3 |\n"
  "| 4 | 5 \\| 6 | |\n"
  "\n"
  "```python\n"
  "print(\"<hi>\")\n"
  "```\n"
  "\n"
  "> quoted\n"
  "\n"
  "---\n"
  "\n"
  "<div onclick=\"x\">raw</div>\n"
  "\n"
  "![alt text](https://example.org/x.png) [bad](file:///etc/passwd) [js](javascript:alert(1))\n";

/* ~~Struck~~ words are struck through, as GitHub's Markdown shows them;
 * tildes that strike nothing stay as typed, and the markup always nests. */
static void
test_markdown_strikethrough (void)
{
  static const struct
  {
    const char *markdown;
    const char *markup;
  } cases[] = {
    { "It is ~~wrong~~ right.", "It is <s>wrong</s> right." },
    { "~~a & b~~ and ~~c~~", "<s>a &amp; b</s> and <s>c</s>" },
    { "About ~~ 5 ~~ km, ~~not closed", "About ~~ 5 ~~ km, ~~not closed" },
    { "~~a *b* c~~", "~~a <i>b</i> c~~" },
    { "`~~code~~` ~~~x~~~", "<tt>~~code~~</tt> ~~~x~~~" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GtkWidget *view = render (cases[i].markdown);
      GtkWidget *label = find_label_containing (view, cases[i].markup);

      if (label == NULL)
        g_error ("%s: no label shows %s", cases[i].markdown, cases[i].markup);
      /* What the label shows: the words, without the tildes. */
      if (strstr (cases[i].markup, "<s>") != NULL)
        g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "~~"));
      g_assert_finalize_object (view);
    }
}

static void
test_markdown_structure (void)
{
  GtkWidget *view = render (sample);
  GtkWidget *label, *grid, *code;
  g_autoptr(GPtrArray) lists = NULL;
  g_autoptr(GPtrArray) cells = NULL;
  guint nested = 0;

  label = find_one (view, GTK_TYPE_LABEL, "natter-md-heading");
  g_assert_true (gtk_widget_has_css_class (label, "title-1"));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Title");
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (label)));

  label = find_label_containing (view, "<i>em</i>");
  g_assert_nonnull (label);
  g_assert_true (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_true (gtk_label_get_wrap (GTK_LABEL (label)));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "<b>strong</b>"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "<tt>co&lt;de&gt;</tt>"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)),
                            "<a href=\"https://example.org/?a=1&amp;b=2\">link</a>"));
  /* Inline HTML is text, and a soft break is a space. */
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "&lt;b&gt;html&lt;/b&gt; and a soft"));

  g_assert_cmpuint (count_all (view, GTK_TYPE_BOX, "natter-md-list-item"), ==, 3);
  lists = find_all (view, GTK_TYPE_BOX, "natter-md-list");
  for (guint i = 0; i < lists->len; i++)
    nested += has_ancestor_with_class (g_ptr_array_index (lists, i), "natter-md-list-item");
  g_assert_cmpuint (nested, ==, 1);

  grid = find_one (view, GTK_TYPE_GRID, "natter-md-table");
  cells = find_all (grid, GTK_TYPE_LABEL, NULL);
  g_assert_cmpuint (cells->len, ==, 3 * 3);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 0, 0))), ==, "<b>Name</b>");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 0, 1))), ==, "<tt>x</tt>");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 1, 2))), ==, "5 | 6");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 2, 2))), ==, "");
  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 1, 1))), ==, 0.5);
  g_assert_cmpfloat (gtk_label_get_xalign (GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (grid), 2, 1))), ==, 1.0);
  g_assert_true (GTK_IS_SCROLLED_WINDOW (gtk_widget_get_ancestor (grid, GTK_TYPE_SCROLLED_WINDOW)));

  code = find_one (view, NATTER_TYPE_CODE_BLOCK, NULL);
  {
    g_autofree char *text = natter_code_block_dup_code (NATTER_CODE_BLOCK (code));

    g_assert_cmpstr (text, ==, "print(\"<hi>\")");
    g_assert_cmpstr (natter_code_block_get_language_label (NATTER_CODE_BLOCK (code)), ==, "python");
    g_assert_cmpstr (natter_code_block_get_language_id (NATTER_CODE_BLOCK (code)), ==, "python3");
  }

  label = find_one (find_one (view, GTK_TYPE_BOX, "natter-md-blockquote"), GTK_TYPE_LABEL, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "quoted");
  find_one (view, GTK_TYPE_SEPARATOR, "natter-md-rule");

  label = find_one (view, GTK_TYPE_LABEL, "natter-md-html");
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "<div onclick=\"x\">raw</div>");

  /* Images are their alt text; only web and mail links are links. */
  label = find_label_containing (view, "alt text");
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==,
                   "<a href=\"https://example.org/x.png\">alt text</a> bad js");

  g_assert_finalize_object (view);
}

static void
test_markdown_code_languages (void)
{
  static const struct { const char *info, *label, *id; } cases[] = {
    { "", "Text", NULL },
    { "js", "js", "js" },
    { "javascript", "javascript", "js" },
    { "py", "py", "python3" },
    { "bash", "bash", "sh" },
    { "C++", "C++", "cpp" },
    { "rs", "rs", "rust" },
    { "ts", "ts", "typescript" },
    { "json", "json", "json" },
    { "yml", "yml", "yaml" },
    { "go", "go", "go" },
    { "diff", "diff", "diff" },
    { "meson", "meson", "meson" },
    { "sql", "sql", "sql" },
    { "toml", "toml", "toml" },
    { "rust title=\"main.rs\"", "rust", "rust" },
    { "no-such-language", "no-such-language", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GtkWidget *block = g_object_ref_sink (natter_code_block_new (cases[i].info, "x"));

      g_assert_cmpstr (natter_code_block_get_language_label (NATTER_CODE_BLOCK (block)), ==, cases[i].label);
      g_assert_cmpstr (natter_code_block_get_language_id (NATTER_CODE_BLOCK (block)), ==, cases[i].id);
      g_assert_finalize_object (block);
    }
}

static GtkWidget *
single_code_block (GtkWidget *view)
{
  return find_one (view, NATTER_TYPE_CODE_BLOCK, NULL);
}

static void
test_markdown_unclosed_fence (void)
{
  static const char start[] = "Intro\n\n```c\nint x;\n\n# not a heading\n";
  GtkWidget *view = render (start);
  GtkWidget *code;
  g_autofree char *text = NULL;
  g_autofree char *streamed = NULL;
  g_autofree char *whole = NULL;
  GtkWidget *reference;

  /* The rest of the text is code, as cmark has it. */
  text = natter_code_block_dup_code (NATTER_CODE_BLOCK (single_code_block (view)));
  g_assert_cmpstr (text, ==, "int x;\n\n# not a heading");
  g_assert_null (find_label_containing (view, "heading"));
  g_assert_finalize_object (view);

  /* Streamed, the open fence is a code block that grows; closing it keeps
   * that one block. */
  view = new_view ();
  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), start);
  while (g_main_context_iteration (NULL, FALSE));
  code = single_code_block (view);
  g_clear_pointer (&text, g_free);
  text = natter_code_block_dup_code (NATTER_CODE_BLOCK (code));
  g_assert_cmpstr (text, ==, "int x;\n\n# not a heading");

  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), "return 0;\n``");
  while (g_main_context_iteration (NULL, FALSE));
  g_clear_pointer (&text, g_free);
  text = natter_code_block_dup_code (NATTER_CODE_BLOCK (single_code_block (view)));
  g_assert_cmpstr (text, ==, "int x;\n\n# not a heading\nreturn 0;");

  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), "`\n\nAfter.\n");
  natter_markdown_view_finish (NATTER_MARKDOWN_VIEW (view));
  wait_ready (view);
  g_assert_true (single_code_block (view) == code);
  g_clear_pointer (&text, g_free);
  text = natter_code_block_dup_code (NATTER_CODE_BLOCK (code));
  g_assert_cmpstr (text, ==, "int x;\n\n# not a heading\nreturn 0;");
  g_assert_nonnull (find_label_containing (view, "After."));

  reference = render (natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view)));
  streamed = dump_tree (view);
  whole = dump_tree (reference);
  g_assert_cmpstr (streamed, ==, whole);

  g_assert_finalize_object (view);
  g_assert_finalize_object (reference);
}

/* Task items, as GitHub writes them: the box is the item's marker,
 * ticked or not, named for a screen reader, and no longer in its words;
 * a bracket that is no box, or a box with nothing after it, is text. */
static void
test_markdown_task_lists (void)
{
  GtkWidget *view = render ("- [ ] buy milk\n"
                            "- [x] call Sam\n"
                            "- [X] **bold** done\n"
                            "- [y] not a box\n"
                            "- [ ]\n"
                            "1. [ ] numbered task\n");
  g_autoptr(GPtrArray) bullets = find_all (view, GTK_TYPE_LABEL, "natter-md-bullet");
  g_autoptr(GString) seen = g_string_new (NULL);

  for (guint i = 0; i < bullets->len; i++)
    g_string_append_printf (seen, "%s ", gtk_label_get_text (g_ptr_array_index (bullets, i)));
  g_assert_cmpstr (seen->str, ==, "☐ ☑ ☑ • • ☐ ");
  g_assert_nonnull (find_label_containing (view, "buy milk"));
  g_assert_null (find_label_containing (view, "[ ] buy"));
  g_assert_null (find_label_containing (view, "[x]"));
  g_assert_nonnull (find_label_containing (view, "[y] not a box"));
  g_assert_nonnull (find_label_containing (view, "numbered task"));
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (g_ptr_array_index (bullets, 0)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "To do");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (g_ptr_array_index (bullets, 1)),
                                       GTK_ACCESSIBLE_PROPERTY_LABEL, "Done");

  g_assert_finalize_object (view);
}

static void
test_markdown_nested_lists (void)
{
  GtkWidget *view = render ("3. three\n"
                            "4. four\n"
                            "   - a\n"
                            "     - b\n"
                            "       - c\n"
                            "       - d\n"
                            "   - e\n"
                            "\n"
                            "   more of four\n"
                            "5) x\n");
  g_autoptr(GPtrArray) bullets = find_all (view, GTK_TYPE_LABEL, "natter-md-bullet");
  g_autoptr(GString) seen = g_string_new (NULL);
  g_autoptr(GPtrArray) lists = find_all (view, GTK_TYPE_BOX, "natter-md-list");
  GtkWidget *deepest = NULL;
  int depth = 0;

  for (guint i = 0; i < bullets->len; i++)
    g_string_append_printf (seen, "%s ", gtk_label_get_text (g_ptr_array_index (bullets, i)));
  g_assert_cmpstr (seen->str, ==, "3. 4. ◦ ▪ • • ◦ 5) ");

  /* Each level sits inside an item of the level above. */
  for (guint i = 0; i < lists->len; i++)
    {
      int d = 0;

      for (GtkWidget *w = g_ptr_array_index (lists, i); w != NULL; w = gtk_widget_get_parent (w))
        d += gtk_widget_has_css_class (w, "natter-md-list-item");
      if (d > depth)
        {
          depth = d;
          deepest = g_ptr_array_index (lists, i);
        }
    }
  g_assert_cmpint (depth, ==, 3);
  g_assert_nonnull (find_label_containing (deepest, "d"));
  g_assert_nonnull (find_label_containing (view, "more of four"));

  g_assert_finalize_object (view);
}

static void
test_markdown_long_code_block (void)
{
  g_autoptr(GString) text = g_string_new ("```c\n");
  GtkWidget *view = new_view ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkTextView *source_view;
  g_autofree char *code = NULL;
  g_auto(GStrv) lines = NULL;
  gint64 start, elapsed;
  int height;

  for (int i = 0; i < 10000; i++)
    g_string_append_printf (text, "int line_%05d = %d; /* a comment */\n", i, i);
  g_string_append (text, "```\n");

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_present (GTK_WINDOW (window));

  start = g_get_monotonic_time ();
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), text->str);
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("set_markdown of a 10,000-line block returned in %.2f ms", elapsed / 1000.0);
  g_assert_cmpint (elapsed, <, 50 * 1000);

  start = g_get_monotonic_time ();
  wait_ready (view);
  g_test_message ("ready after %.2f ms", (g_get_monotonic_time () - start) / 1000.0);

  /* All of the code is kept (and copied), but the view holds only the
   * first lines of a block this long: it is capped behind an expander
   * instead of being 10,000 lines tall. */
  code = natter_code_block_dup_code (NATTER_CODE_BLOCK (single_code_block (view)));
  lines = g_strsplit (code, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 10000);
  source_view = GTK_TEXT_VIEW (find_in_code_block (single_code_block (view), GTK_SOURCE_TYPE_VIEW));
  g_assert_cmpint (gtk_text_buffer_get_line_count (gtk_text_view_get_buffer (source_view)), <, 100);

  gtk_widget_measure (single_code_block (view), GTK_ORIENTATION_VERTICAL, 700, NULL, &height, NULL, NULL);
  g_assert_cmpint (height, <=, 700);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
}

/* Always ready, below the frame clock's priority and above idles: what a
 * frame clock that never rests (a loaded machine, a spinner beside) does
 * to the main loop's idles. */
static gboolean
busy_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
test_markdown_built_before_shown (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = new_view ();
  guint busy_id;

  /* A timeline row builds its answer's view before the list view places
   * it: the work is scheduled off screen, as an idle. */
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), "An *answer*.\n\nIn two paragraphs.");
  g_assert_false (natter_markdown_view_get_ready (NATTER_MARKDOWN_VIEW (view)));
  busy_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE + 30, busy_cb, NULL, NULL);

  /* Once on screen, it finishes with the frames, even while no idle gets
   * to run (it once waited for one, drawn 0 px high meanwhile). */
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  wait_ready (view);
  g_assert_nonnull (find_label_containing (view, "two paragraphs"));
  g_assert_cmpint (gtk_widget_get_height (view), >, 0);

  g_source_remove (busy_id);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
}

static void
test_markdown_invalid_utf8 (void)
{
  GtkWidget *view = render ("bad \xff\xfe bytes \xc3(\n\n```\n\xed\xa0\x80 surrogate\n```\n");
  const char *text = natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view));
  GtkWidget *label = find_label_containing (view, "bytes");
  g_autofree char *code = natter_code_block_dup_code (NATTER_CODE_BLOCK (single_code_block (view)));

  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "bad \xef\xbf\xbd\xef\xbf\xbd bytes \xef\xbf\xbd(");
  g_assert_true (g_utf8_validate (code, -1, NULL));
  g_assert_true (g_str_has_suffix (code, " surrogate"));

  g_assert_finalize_object (view);
}

/* A model's ESC and BEL show as their control pictures, as on the
 * command line, not as boxes; the markup around them stays intact. */
static void
test_markdown_control_pictures (void)
{
  GtkWidget *view = render ("red \x1b[31m*X*\x07 & end\n");
  GtkWidget *label = find_label_containing (view, "end");

  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (label)), ==, "red \xe2\x90\x9b[31m<i>X</i>\xe2\x90\x87 &amp; end");
  g_assert_finalize_object (view);
}

static void
test_markdown_split_utf8 (void)
{
  /* é (2 bytes), € (3) and 😀 (4) cut at every inner byte. */
  static const char * const deltas[] = {
    "caf", "\xc3", "\xa9 costs 5 \xe2", "\x82", "\xac ", "\xf0\x9f", "\x98", "\x80", "\n",
  };
  GtkWidget *view = new_view ();
  GtkWidget *label;

  for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
    {
      natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), deltas[i]);
      while (g_main_context_iteration (NULL, FALSE));
      g_assert_true (g_utf8_validate (natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view)), -1, NULL));
    }
  natter_markdown_view_finish (NATTER_MARKDOWN_VIEW (view));
  wait_ready (view);

  g_assert_cmpstr (natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view)), ==, "café costs 5 € 😀\n");
  label = find_one (view, GTK_TYPE_LABEL, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "café costs 5 € 😀");
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "\xef\xbf\xbd"));

  /* A character still cut when the answer ends is replaced, not dropped
   * silently and not passed on. */
  g_clear_object (&view);
  view = new_view ();
  natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), "end \xe2\x82");
  natter_markdown_view_finish (NATTER_MARKDOWN_VIEW (view));
  wait_ready (view);
  g_assert_cmpstr (natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view)), ==, "end \xef\xbf\xbd\xef\xbf\xbd");
  g_assert_finalize_object (view);
}

/* A long answer of the kind that must not stall the window: prose, lists,
 * tables and code, with loose and tight lists and blocks that touch. */
static char *
long_answer (int sections)
{
  GString *out = g_string_new ("Here is the overview you asked for.\n\n");

  for (int s = 0; s < sections; s++)
    {
      g_string_append_printf (out, "## Section %d\n\n", s);
      g_string_append_printf (out, "Paragraph with *emphasis*, **strong**, `code %d` and a "
                                   "[link](https://example.org/%d).\nIt goes on for a second line.\n\n", s, s);
      g_string_append (out, "| Option | Default | Effect |\n|---|:---:|---:|\n");
      for (int r = 0; r < 8; r++)
        g_string_append_printf (out, "| `opt_%d_%d` | %d | Changes **%d** things |\n", s, r, r, r * s);
      g_string_append (out, "\n1. First\n2. Second\n   - nested *a*\n   - nested b\n3. Third\n\n");
      g_string_append_printf (out, "```python\ndef f_%d(x):\n\n    return x * %d\n```\n", s, s);
      g_string_append (out, "> A quote\n> over two lines\n\n- loose\n\n- list\n# Heading right after\n");
      g_string_append (out, "Text\n---\n\n");
    }
  g_string_append (out, "That is all.");
  return g_string_free (out, FALSE);
}

static void
test_markdown_streaming_matches_whole (void)
{
  g_autofree char *answer = long_answer (8);
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *view = new_view ();
  GtkWidget *reference;
  g_autofree char *streamed = NULL;
  g_autofree char *whole = NULL;
  gsize len = strlen (answer);

  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_window_set_child (GTK_WINDOW (window), scroller);
  gtk_window_set_default_size (GTK_WINDOW (window), 700, 500);
  gtk_window_present (GTK_WINDOW (window));

  for (gsize i = 0; i < len; i += 5)
    {
      g_autofree char *delta = g_strndup (answer + i, 5);

      natter_markdown_view_append (NATTER_MARKDOWN_VIEW (view), delta);
      /* Let some frames and idles run mid-stream, at varying points. */
      if (i % 35 == 0)
        while (g_main_context_iteration (NULL, FALSE));
    }
  natter_markdown_view_finish (NATTER_MARKDOWN_VIEW (view));
  wait_ready (view);
  g_assert_cmpstr (natter_markdown_view_get_text (NATTER_MARKDOWN_VIEW (view)), ==, answer);

  reference = render (answer);
  streamed = dump_tree (view);
  whole = dump_tree (reference);
  g_assert_cmpstr (streamed, ==, whole);

  /* The whole answer is there: 8 tables, 8 code blocks, every heading. */
  g_assert_cmpuint (count_all (reference, GTK_TYPE_GRID, "natter-md-table"), ==, 8);
  g_assert_cmpuint (count_all (reference, NATTER_TYPE_CODE_BLOCK, NULL), ==, 8);
  g_assert_cmpuint (count_all (reference, GTK_TYPE_LABEL, "natter-md-heading"), ==, 8 * 3);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
  g_assert_finalize_object (reference);
}

static void
read_text_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **text = user_data;
  g_autoptr(GError) error = NULL;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, &error);
  g_assert_no_error (error);
}

static gboolean
string_is_set (gpointer data)
{
  return *(char **) data != NULL;
}

static void
test_markdown_copy_button (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = new_view ();
  GtkWidget *block;
  GtkWidget *button;
  g_autofree char *text = NULL;

  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), "```sh\necho 'hi' && ls\n```");
  wait_ready (view);
  block = single_code_block (view);

  button = find_in_code_block (block, GTK_TYPE_BUTTON);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "Copy code");
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (button)), ==, "edit-copy-symbolic");

  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpstr (gtk_button_get_icon_name (GTK_BUTTON (button)), ==, "object-select-symbolic");

  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (view), NULL, read_text_cb, &text);
  ui_wait_until (string_is_set, &text);
  g_assert_cmpstr (text, ==, "echo 'hi' && ls");

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
}

/* A code block follows the same rule as the text around it: a model's
 * control characters show as their control pictures (a C1 one as its
 * escape), tabs and newlines stay; Copy gives the code exactly as the
 * model wrote it, control characters and all. A capped block folded
 * back keeps its first lines whole. */
static void
test_markdown_code_control_pictures (void)
{
  g_autoptr(GString) markdown = g_string_new ("```sh\nprintf '\x1b[31mred\x07'\n\tdone \xc2\x9b x\n");
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = new_view ();
  GtkWidget *block;
  GtkTextBuffer *buffer;
  GtkTextIter start, end;
  GtkExpander *expander;
  g_autofree char *shown = NULL;
  g_autofree char *folded = NULL;
  g_autofree char *copied = NULL;
  g_autofree char *code = NULL;

  for (int i = 0; i < 60; i++)
    g_string_append_printf (markdown, "line %d\x07\n", i);
  g_string_append (markdown, "```\n");
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view), markdown->str);
  wait_ready (view);
  block = single_code_block (view);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (find_in_code_block (block, GTK_SOURCE_TYPE_VIEW)));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  shown = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_true (g_str_has_prefix (shown, "printf '\xe2\x90\x9b[31mred\xe2\x90\x87'\n\tdone \\u009B x\nline 0\xe2\x90\x87\n"));
  g_assert_null (strchr (shown, '\x1b'));
  g_assert_null (strchr (shown, '\x07'));
  /* For a person to look at, in both styles. */
  ui_save_window (window, "code-control-pictures-light.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  ui_save_window (window, "code-control-pictures-dark.png");
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);

  /* Unfolded and folded again: the same first lines, nothing cut. */
  expander = GTK_EXPANDER (find_in_code_block (block, GTK_TYPE_EXPANDER));
  gtk_expander_set_expanded (expander, TRUE);
  gtk_expander_set_expanded (expander, FALSE);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  folded = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (folded, ==, shown);

  code = natter_code_block_dup_code (NATTER_CODE_BLOCK (block));
  g_assert_true (g_str_has_prefix (code, "printf '\x1b[31mred\x07'\n\tdone \xc2\x9b x\n"));
  g_signal_emit_by_name (find_in_code_block (block, GTK_TYPE_BUTTON), "clicked");
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (view), NULL, read_text_cb, &copied);
  ui_wait_until (string_is_set, &copied);
  g_assert_cmpstr (copied, ==, code);

  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_finalize_object (view);
}

static void
test_markdown_dark_style (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  GtkWidget *block = g_object_ref_sink (natter_code_block_new ("c", "int x;"));

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_cmpstr (natter_code_block_get_scheme_id (NATTER_CODE_BLOCK (block)), ==, "Adwaita");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  g_assert_cmpstr (natter_code_block_get_scheme_id (NATTER_CODE_BLOCK (block)), ==, "Adwaita-dark");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_assert_cmpstr (natter_code_block_get_scheme_id (NATTER_CODE_BLOCK (block)), ==, "Adwaita");
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);

  g_assert_finalize_object (block);
}

static gboolean
record_link_cb (NatterMarkdownView *view,
                const char         *uri,
                GPtrArray          *seen)
{
  g_ptr_array_add (seen, g_strdup (uri));
  return TRUE;
}

static void
test_markdown_links (void)
{
  GtkWidget *view = render ("[site](https://example.org) and [mail](mailto:a@example.org)\n");
  GtkWidget *label = find_one (view, GTK_TYPE_LABEL, NULL);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  gboolean handled = FALSE;

  g_signal_connect (view, "activate-link", G_CALLBACK (record_link_cb), seen);
  g_signal_emit_by_name (label, "activate-link", "https://example.org", &handled);
  g_assert_true (handled);
  g_signal_emit_by_name (label, "activate-link", "mailto:a@example.org", &handled);
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "https://example.org");
  g_assert_cmpstr (g_ptr_array_index (seen, 1), ==, "mailto:a@example.org");

  g_assert_finalize_object (view);
}

static gboolean
frames_drawn (gpointer data)
{
  return *(int *) data >= 10;
}

static gboolean
count_frame_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       data)
{
  (*(int *) data)++;
  return G_SOURCE_CONTINUE;
}

/* Waits until @window has drawn some frames, so what it shows is
 * settled. */
static void
wait_frames_drawn (GtkWidget *window)
{
  int frames = 0;
  guint tick = gtk_widget_add_tick_callback (window, count_frame_cb, &frames, NULL);

  ui_wait_until (frames_drawn, &frames);
  gtk_widget_remove_tick_callback (window, tick);
}

static void
save_screenshot (AdwColorScheme scheme,
                 const char    *name)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = natter_markdown_view_new ();

  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
  gtk_widget_set_margin_start (view, 18);
  gtk_widget_set_margin_end (view, 18);
  gtk_widget_set_margin_top (view, 18);
  gtk_widget_set_margin_bottom (view, 18);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 720);
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view),
    "# Release notes\n\n"
    "Natter renders *Markdown* with **cmark**; see [the spec](https://commonmark.org).\n\n"
    "## Steps\n\n"
    "1. Install `libcmark-dev`\n2. Build\n   - with meson\n   - or with `ninja`\n\n"
    "> Quoted advice, kept short.\n\n"
    "| Library | `pkg-config` name | Status |\n|---|:---:|---:|\n"
    "| cmark | `libcmark` | **ok** |\n| GtkSourceView | `gtksourceview-5` | ok |\n\n"
    "### The `natter` command\n\n"
    "```c\n#include <stdio.h>\n\nint\nmain (void)\n{\n  printf (\"hello\\n\");\n  return 0;\n}\n```\n");
  gtk_window_present (GTK_WINDOW (window));
  wait_ready (view);
  wait_frames_drawn (window);

  ui_save_window (window, name);

  gtk_window_destroy (GTK_WINDOW (window));
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
}

/* The family of the font @label draws the text @word with. */
static char *
font_family_of (GtkWidget  *label,
                const char *word)
{
  PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (label));
  const char *text = pango_layout_get_text (layout);
  const char *at = strstr (text, word);
  PangoLayoutIter *iter;
  char *family = NULL;

  g_assert_nonnull (at);
  iter = pango_layout_get_iter (layout);
  do
    {
      PangoLayoutRun *run = pango_layout_iter_get_run_readonly (iter);

      if (run != NULL && run->item->offset <= at - text && at - text < run->item->offset + run->item->length)
        {
          PangoFontDescription *desc = pango_font_describe (run->item->analysis.font);

          family = g_strdup (pango_font_description_get_family (desc));
          pango_font_description_free (desc);
          break;
        }
    }
  while (pango_layout_iter_next_run (iter));
  pango_layout_iter_free (iter);
  g_assert_nonnull (family);
  return family;
}

/* Inline code is monospace wherever it is: in a paragraph, a table's
 * cells and header, a heading. */
static void
test_markdown_code_everywhere (void)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = natter_markdown_view_new ();
  g_autofree char *para = NULL;
  g_autofree char *cell = NULL;
  g_autofree char *header = NULL;
  g_autofree char *heading = NULL;
  GtkWidget *grid;

  gtk_window_set_child (GTK_WINDOW (window), view);
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (view),
                                     "Para `inpara` here.\n\n| col `inheader` |\n|---|\n| cell `incell` |\n\n"
                                     "# Heading `inheading`\n");
  gtk_window_present (GTK_WINDOW (window));
  wait_ready (view);
  grid = find_one (view, GTK_TYPE_GRID, "natter-md-table");
  para = font_family_of (find_label_containing (view, "inpara"), "inpara");
  header = font_family_of (gtk_grid_get_child_at (GTK_GRID (grid), 0, 0), "inheader");
  cell = font_family_of (gtk_grid_get_child_at (GTK_GRID (grid), 0, 1), "incell");
  heading = font_family_of (find_one (view, GTK_TYPE_LABEL, "natter-md-heading"), "inheading");
  g_assert_nonnull (strstr (para, "Mono"));
  g_assert_cmpstr (header, ==, para);
  g_assert_cmpstr (cell, ==, para);
  g_assert_cmpstr (heading, ==, para);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
widget_allocated (gpointer data)
{
  return gtk_widget_get_height (data) > 0;
}

/* Where @widget is, in @ancestor's coordinates. */
static graphene_rect_t
bounds_in (GtkWidget *widget,
           GtkWidget *ancestor)
{
  graphene_rect_t bounds;

  g_assert_true (gtk_widget_compute_bounds (widget, ancestor, &bounds));
  return bounds;
}

/* A 640 × 480 window showing @markdown, built, laid out and drawn, the
 * view in @view; its widget of @type with @css_class allocated. Saved
 * as @screenshot. */
static GtkWidget *
show_drawn (const char  *markdown,
            GType        type,
            const char  *css_class,
            const char  *screenshot,
            GtkWidget  **view)
{
  GtkWidget *window = gtk_window_new ();

  *view = natter_markdown_view_new ();
  gtk_window_set_child (GTK_WINDOW (window), *view);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  natter_markdown_view_set_markdown (NATTER_MARKDOWN_VIEW (*view), markdown);
  gtk_window_present (GTK_WINDOW (window));
  wait_ready (*view);
  ui_wait_until (widget_allocated, find_one (*view, type, css_class));
  wait_frames_drawn (window);
  ui_save_window (window, screenshot);
  return window;
}

/* A table ends with its last row: no empty band under it, inside its
 * frame or below it, and the block after it is as far from it as the
 * block before it is. So for cells of one character, and for words,
 * bold in the header, a width a cell's `width-chars` does not measure
 * exactly (it was laid out as if wrapped, a line taller than it is
 * drawn). */
static void
assert_table_ends_at_last_row (const char *table,
                               int         last_row)
{
  g_autofree char *markdown = g_strconcat ("Before the table.\n\n", table, "\nAfter the table.\n", NULL);
  GtkWidget *view;
  GtkWidget *window = show_drawn (markdown, GTK_TYPE_GRID, "natter-md-table", "markdown-table.png", &view);
  GtkWidget *grid = find_one (view, GTK_TYPE_GRID, "natter-md-table");
  GtkWidget *scroller, *last, *before, *after;
  graphene_rect_t grid_box, scroller_box, last_box, before_box, after_box;

  scroller = gtk_widget_get_ancestor (grid, GTK_TYPE_SCROLLED_WINDOW);
  last = gtk_grid_get_child_at (GTK_GRID (grid), 0, last_row);
  before = find_label_containing (view, "Before the table.");
  after = find_label_containing (view, "After the table.");
  grid_box = bounds_in (grid, view);
  scroller_box = bounds_in (scroller, view);
  last_box = bounds_in (last, view);
  before_box = bounds_in (before, view);
  after_box = bounds_in (after, view);

  /* The frame closes one border's width under the last row... */
  g_assert_cmpfloat_with_epsilon (grid_box.origin.y + grid_box.size.height,
                                  last_box.origin.y + last_box.size.height + 1, 0.5);
  /* ...and the table takes no room below its frame... */
  g_assert_cmpfloat_with_epsilon (scroller_box.origin.y + scroller_box.size.height,
                                  grid_box.origin.y + grid_box.size.height, 0.5);
  /* ...so the paragraphs around it are equally far from it. */
  g_assert_cmpfloat_with_epsilon (after_box.origin.y - (scroller_box.origin.y + scroller_box.size.height),
                                  scroller_box.origin.y - (before_box.origin.y + before_box.size.height), 0.5);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_markdown_table_ends_at_last_row (void)
{
  assert_table_ends_at_last_row ("| A | B |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n", 2);
  assert_table_ends_at_last_row ("| Name | Value |\n|---|---:|\n| alpha | 1 |\n| gamma | 333 |\n", 2);
  assert_table_ends_at_last_row ("| Quantity measured | Typical value |\n|---|---|\n"
                                 "| wavelength of visible light | 400 to 700 nanometres |\n", 1);
  assert_table_ends_at_last_row ("| Note |\n|---|\n| A cell this long wraps at a readable width, some forty "
                                 "characters, into lines of its own. |\n", 1);
}

/* A list item or a quote written right to left has its marker or its
 * bar beside its text, at the right; one in a left-to-right language
 * keeps them at the left. */
static void
test_markdown_right_to_left_blocks (void)
{
  GtkWidget *view;
  GtkWidget *window = show_drawn ("- عنصر أول\n- English item\n\n"
                                  "1. **البند** الأول\n\n"
                                  "> اقتباس بالعربية\n",
                                  GTK_TYPE_BOX, "natter-md-blockquote", "markdown-right-to-left.png", &view);
  GtkWidget *quote = find_one (view, GTK_TYPE_BOX, "natter-md-blockquote");
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GPtrArray) bullets = NULL;

  items = find_all (view, GTK_TYPE_BOX, "natter-md-list-item");
  bullets = find_all (view, GTK_TYPE_LABEL, "natter-md-bullet");
  g_assert_cmpuint (items->len, ==, 3);
  g_assert_cmpuint (bullets->len, ==, 3);
  for (guint i = 0; i < items->len; i++)
    {
      GtkWidget *bullet = g_ptr_array_index (bullets, i);
      GtkWidget *content = gtk_widget_get_next_sibling (bullet);
      graphene_rect_t bullet_box = bounds_in (bullet, view);
      graphene_rect_t content_box = bounds_in (content != NULL ? content : gtk_widget_get_prev_sibling (bullet),
                                               view);
      gboolean rtl = i != 1;

      g_assert_cmpint (gtk_widget_get_direction (g_ptr_array_index (items, i)), ==,
                       rtl ? GTK_TEXT_DIR_RTL : GTK_TEXT_DIR_LTR);
      graphene_rect_t item_box = bounds_in (g_ptr_array_index (items, i), view);

      /* The marker is beside the text, the item's margin before it. */
      if (rtl)
        {
          g_assert_cmpfloat (bullet_box.origin.x, >, content_box.origin.x);
          g_assert_cmpfloat (item_box.origin.x + item_box.size.width, <=, gtk_widget_get_width (view) - 6);
        }
      else
        {
          g_assert_cmpfloat (bullet_box.origin.x, <, content_box.origin.x);
          g_assert_cmpfloat (item_box.origin.x, >=, 6);
        }
    }
  g_assert_cmpint (gtk_widget_get_direction (quote), ==, GTK_TEXT_DIR_RTL);
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_markdown_screenshots (void)
{
  save_screenshot (ADW_COLOR_SCHEME_FORCE_LIGHT, "markdown-light.png");
  save_screenshot (ADW_COLOR_SCHEME_FORCE_DARK, "markdown-dark.png");
}

int
main (int   argc,
      char *argv[])
{
  ui_test_init (&argc, &argv);

  g_test_add_func ("/markdown/structure", test_markdown_structure);
  g_test_add_func ("/markdown/strikethrough", test_markdown_strikethrough);
  g_test_add_func ("/markdown/code-languages", test_markdown_code_languages);
  g_test_add_func ("/markdown/unclosed-fence", test_markdown_unclosed_fence);
  g_test_add_func ("/markdown/nested-lists", test_markdown_nested_lists);
  g_test_add_func ("/markdown/task-lists", test_markdown_task_lists);
  g_test_add_func ("/markdown/long-code-block", test_markdown_long_code_block);
  g_test_add_func ("/markdown/built-before-shown", test_markdown_built_before_shown);
  g_test_add_func ("/markdown/invalid-utf8", test_markdown_invalid_utf8);
  g_test_add_func ("/markdown/split-utf8", test_markdown_split_utf8);
  g_test_add_func ("/markdown/control-pictures", test_markdown_control_pictures);
  g_test_add_func ("/markdown/code-control-pictures", test_markdown_code_control_pictures);
  g_test_add_func ("/markdown/streaming-matches-whole", test_markdown_streaming_matches_whole);
  g_test_add_func ("/markdown/copy-button", test_markdown_copy_button);
  g_test_add_func ("/markdown/dark-style", test_markdown_dark_style);
  g_test_add_func ("/markdown/links", test_markdown_links);
  g_test_add_func ("/markdown/code-everywhere", test_markdown_code_everywhere);
  g_test_add_func ("/markdown/table-ends-at-last-row", test_markdown_table_ends_at_last_row);
  g_test_add_func ("/markdown/right-to-left-blocks", test_markdown_right_to_left_blocks);
  g_test_add_func ("/markdown/screenshots", test_markdown_screenshots);

  return g_test_run ();
}
