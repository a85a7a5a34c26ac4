/* natter-code-block.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One fenced code block of an answer: a header with the language and a Copy
 * button over a read-only GtkSourceView.
 */

#define G_LOG_DOMAIN "natter-code-block"

#include "config.h"

#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "natter-code-block.h"
#include "natter-plain-text.h"
#include "natter-sideways-scroll.h"

/* How long the Copy button shows that it worked. */
#define COPIED_FEEDBACK_MS 1000

/* A block of more lines than this is capped: it shows its first
 * PREVIEW_LINES and an expander for the rest, so that one huge block
 * neither takes over the conversation nor makes the text view lay out
 * thousands of lines nobody asked to see. Anything shorter is shown
 * whole. */
#define MAX_UNCAPPED_LINES 40
#define PREVIEW_LINES      24

struct _NatterCodeBlock
{
  GtkWidget        parent_instance;

  char            *info;
  char            *language_label;
  guint            copied_source;

  /* Template children */
  GtkWidget       *header;
  GtkLabel        *language_label_widget;
  GtkButton       *copy_button;
  GtkWidget       *scroller;
  GtkSourceView   *view;
  GtkExpander     *expander;

  GtkSourceBuffer *buffer;
  GString         *code;         /* all of it; the buffer may hold a prefix */
  guint            n_newlines;
  guint            n_lines;
  gsize            preview_len;  /* bytes of the first PREVIEW_LINES lines */
  gsize            shown_len;    /* bytes of @code in the buffer */
};

G_DEFINE_FINAL_TYPE (NatterCodeBlock, natter_code_block, GTK_TYPE_WIDGET)

/* What models write after the fence, mapped to GtkSourceView language ids.
 * Anything not listed is tried as an id, then as a file extension. */
static const struct {
  const char *alias;
  const char *id;
} language_aliases[] = {
  { "bash", "sh" },
  { "c++", "cpp" },
  { "console", "sh" },
  { "cs", "c-sharp" },
  { "csharp", "c-sharp" },
  { "golang", "go" },
  { "h", "chdr" },
  { "hpp", "cpphdr" },
  { "htm", "html" },
  { "javascript", "js" },
  { "jsx", "jsx" },
  { "jsonc", "json" },
  { "kt", "kotlin" },
  { "md", "markdown" },
  { "patch", "diff" },
  { "py", "python3" },
  { "python", "python3" },
  { "rb", "ruby" },
  { "rs", "rust" },
  { "shell", "sh" },
  { "ts", "typescript" },
  { "tsx", "typescript-jsx" },
  { "yml", "yaml" },
  { "zsh", "sh" },
};

static GtkSourceLanguage *
guess_language (const char *word)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  g_autofree char *lower = NULL;
  g_autofree char *filename = NULL;
  GtkSourceLanguage *language;

  if (word == NULL || *word == '\0')
    return NULL;

  lower = g_ascii_strdown (word, -1);
  for (guint i = 0; i < G_N_ELEMENTS (language_aliases); i++)
    {
      if (g_str_equal (lower, language_aliases[i].alias))
        {
          language = gtk_source_language_manager_get_language (manager, language_aliases[i].id);
          if (language != NULL)
            return language;
        }
    }

  language = gtk_source_language_manager_get_language (manager, lower);
  if (language != NULL)
    return language;

  /* "Makefile", "CMakeLists.txt" or "x.toml"-style hints. */
  filename = g_strconcat ("file.", lower, NULL);
  language = gtk_source_language_manager_guess_language (manager, filename, NULL);
  if (language == NULL)
    language = gtk_source_language_manager_guess_language (manager, word, NULL);
  return language;
}

/* GtkSourceView reads, validates and compiles a language's definitions
 * (its .lang file, against a RELAX NG schema, and its regular expressions)
 * when a buffer first highlights in it, and drops them again when the
 * last buffer that did is gone: every answer's first code block of a
 * language would pay that again on the main thread (the largest single
 * cost of building a long answer's widgets). An empty buffer per language
 * used keeps them for the process; there are only as many as languages
 * answers were written in. */
static void
keep_highlighting_loaded (GtkSourceLanguage *language)
{
  static GHashTable *keepers;   /* language id -> GtkSourceBuffer */
  const char *id;

  if (language == NULL)
    return;
  if (keepers == NULL)
    keepers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  id = gtk_source_language_get_id (language);
  if (!g_hash_table_contains (keepers, id))
    g_hash_table_insert (keepers, g_strdup (id), gtk_source_buffer_new_with_language (language));
}

static void
update_style_scheme (NatterCodeBlock *self)
{
  AdwStyleManager *style_manager = adw_style_manager_get_default ();
  GtkSourceStyleSchemeManager *schemes = gtk_source_style_scheme_manager_get_default ();
  const char *id = adw_style_manager_get_dark (style_manager) ? "Adwaita-dark" : "Adwaita";
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (schemes, id);

  /* Keep whatever we had if the scheme is not installed. */
  if (scheme != NULL)
    gtk_source_buffer_set_style_scheme (self->buffer, scheme);
}

static void
dark_changed_cb (NatterCodeBlock *self)
{
  update_style_scheme (self);
}

static gboolean
copied_timeout_cb (gpointer user_data)
{
  NatterCodeBlock *self = user_data;

  self->copied_source = 0;
  gtk_button_set_icon_name (self->copy_button, "edit-copy-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->copy_button), _("Copy code"));
  return G_SOURCE_REMOVE;
}

static void
copy_clicked_cb (NatterCodeBlock *self)
{
  natter_code_block_copy (self);
}

static gboolean
is_capped (NatterCodeBlock *self)
{
  return self->n_lines > MAX_UNCAPPED_LINES;
}

/* Counts the lines of the code from byte @from on (what was appended),
 * the last one even without its newline, and notes where the preview of
 * a capped block ends. */
static void
count_lines (NatterCodeBlock *self,
             gsize            from)
{
  const char *str = self->code->str;
  gsize len = self->code->len;

  for (gsize i = from; i < len; i++)
    if (str[i] == '\n' && ++self->n_newlines == PREVIEW_LINES)
      self->preview_len = i;
  self->n_lines = self->n_newlines + (len > 0 && str[len - 1] != '\n');
}

/* Brings the buffer, the expander and its label in line with the code:
 * the whole code, or the preview of a capped block that is not expanded.
 * Text already in the buffer stays, so highlighting is not redone. */
static void
sync_shown (NatterCodeBlock *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (self->buffer);
  gboolean capped = is_capped (self);
  gsize want = capped && !gtk_expander_get_expanded (self->expander) ? self->preview_len : self->code->len;
  GtkTextIter start, end;

  /* A model's control characters show as the text around the block
   * shows them (natter-plain-text.c), not as boxes or raw bytes; the
   * code itself, and what Copy gives, stays exactly what it wrote. */
  if (want > self->shown_len)
    {
      g_autofree char *tail = g_strndup (self->code->str + self->shown_len, want - self->shown_len);
      g_autofree char *visible = natter_visible_text (tail, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);

      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_insert (buffer, &end, visible, -1);
    }
  else if (want < self->shown_len)
    {
      g_autofree char *head = g_strndup (self->code->str, want);
      g_autofree char *visible = natter_visible_text (head, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);
      /* A C1 character's stand-in is longer than it. */
      glong n_chars = g_utf8_strlen (visible, -1);

      gtk_text_buffer_get_iter_at_offset (buffer, &start, n_chars);
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_delete (buffer, &start, &end);
    }
  self->shown_len = want;

  gtk_widget_set_visible (GTK_WIDGET (self->expander), capped);
  if (capped)
    {
      g_autofree char *label = NULL;

      if (gtk_expander_get_expanded (self->expander))
        label = g_strdup (_("Show Fewer Lines"));
      else
        label = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Show All %u Line", "Show All %u Lines",
                                              self->n_lines),
                                 self->n_lines);
      gtk_expander_set_label (self->expander, label);
    }
}

static void
expanded_cb (NatterCodeBlock *self)
{
  sync_shown (self);
}

static void
natter_code_block_dispose (GObject *object)
{
  NatterCodeBlock *self = NATTER_CODE_BLOCK (object);
  GtkWidget *child;

  g_clear_handle_id (&self->copied_source, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_CODE_BLOCK);
  /* The template's unnamed separator is ours to drop too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->buffer);

  G_OBJECT_CLASS (natter_code_block_parent_class)->dispose (object);
}

static void
natter_code_block_finalize (GObject *object)
{
  NatterCodeBlock *self = NATTER_CODE_BLOCK (object);

  g_clear_pointer (&self->info, g_free);
  g_clear_pointer (&self->language_label, g_free);
  if (self->code != NULL)
    g_string_free (self->code, TRUE);

  G_OBJECT_CLASS (natter_code_block_parent_class)->finalize (object);
}

static void
natter_code_block_class_init (NatterCodeBlockClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_code_block_dispose;
  object_class->finalize = natter_code_block_finalize;

  /* Registers GtkSourceView's types before the template needs them. */
  gtk_source_init ();
  g_type_ensure (GTK_SOURCE_TYPE_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-code-block.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterCodeBlock, header);
  gtk_widget_class_bind_template_child_full (widget_class, "language_label", FALSE,
                                             G_STRUCT_OFFSET (NatterCodeBlock, language_label_widget));
  gtk_widget_class_bind_template_child (widget_class, NatterCodeBlock, copy_button);
  gtk_widget_class_bind_template_child (widget_class, NatterCodeBlock, scroller);
  gtk_widget_class_bind_template_child (widget_class, NatterCodeBlock, view);
  gtk_widget_class_bind_template_child (widget_class, NatterCodeBlock, expander);
  gtk_widget_class_bind_template_callback (widget_class, copy_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, expanded_cb);
  gtk_widget_class_set_css_name (widget_class, "codeblock");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_code_block_init (NatterCodeBlock *self)
{
  self->code = g_string_new (NULL);
  gtk_widget_init_template (GTK_WIDGET (self));

  self->buffer = g_object_ref (GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view))));
  gtk_source_buffer_set_highlight_matching_brackets (self->buffer, FALSE);
  gtk_text_buffer_set_enable_undo (GTK_TEXT_BUFFER (self->buffer), FALSE);
  natter_sideways_scroll_attach (GTK_SCROLLED_WINDOW (self->scroller));

  update_style_scheme (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
}

/**
 * natter_code_block_new:
 * @info: (nullable): the info string after the opening fence, e.g. "py"
 * @code: (nullable): the code, valid UTF-8, without the fences
 *
 * Creates the widget for one code block of an answer: the first
 * word of @info names the language, which picks the highlighting and is
 * shown in the header ("Text" when there is none).
 *
 * Returns: (transfer floating): a new #NatterCodeBlock
 */
GtkWidget *
natter_code_block_new (const char *info,
                       const char *code)
{
  NatterCodeBlock *self = g_object_new (NATTER_TYPE_CODE_BLOCK, NULL);
  g_autofree char *word = NULL;
  GtkSourceLanguage *language;

  g_return_val_if_fail (info == NULL || g_utf8_validate (info, -1, NULL), NULL);

  self->info = g_strdup (info != NULL ? info : "");
  word = g_strstrip (g_strdup (self->info));
  /* Only the first word names the language ("python title=x.py"). */
  word[strcspn (word, " \t")] = '\0';

  language = guess_language (word);
  keep_highlighting_loaded (language);
  gtk_source_buffer_set_language (self->buffer, language);
  gtk_source_buffer_set_highlight_syntax (self->buffer, language != NULL);

  self->language_label = *word != '\0' ? g_steal_pointer (&word) : g_strdup (_("Text"));
  gtk_label_set_text (self->language_label_widget, self->language_label);

  natter_code_block_set_code (self, code);
  return GTK_WIDGET (self);
}

/**
 * natter_code_block_set_code:
 * @self: a #NatterCodeBlock
 * @code: (nullable): the code, valid UTF-8
 *
 * Replaces the code. When @code extends the current code (a block that is
 * still streaming), only the new tail is inserted, so highlighting and
 * layout work stay proportional to what arrived. A block of more than 40
 * lines shows its first lines and an expander that shows the rest; the
 * Copy button and natter_code_block_dup_code() always have all of it.
 * Control characters are shown as their stand-ins, by the rule of the
 * text around the block (natter-plain-text.c); Copy gives them as they
 * are, since code is copied to be run or pasted where it came from.
 */
void
natter_code_block_set_code (NatterCodeBlock *self,
                            const char      *code)
{
  gsize len;

  g_return_if_fail (NATTER_IS_CODE_BLOCK (self));
  g_return_if_fail (code == NULL || g_utf8_validate (code, -1, NULL));

  if (code == NULL)
    code = "";
  len = strlen (code);

  if (self->code->len > 0 && len >= self->code->len && memcmp (code, self->code->str, self->code->len) == 0)
    {
      gsize from = self->code->len;

      if (len == from)
        return;
      g_string_append_len (self->code, code + from, len - from);
      count_lines (self, from);
    }
  else
    {
      g_string_assign (self->code, code);
      self->n_newlines = 0;
      self->preview_len = 0;
      self->shown_len = 0;
      gtk_text_buffer_set_text (GTK_TEXT_BUFFER (self->buffer), "", 0);
      count_lines (self, 0);
    }
  sync_shown (self);
}

/**
 * natter_code_block_dup_code:
 * @self: a #NatterCodeBlock
 *
 * Returns: (transfer full): the whole code, as the Copy button copies it
 *   (also the lines a capped block does not show)
 */
char *
natter_code_block_dup_code (NatterCodeBlock *self)
{
  g_return_val_if_fail (NATTER_IS_CODE_BLOCK (self), NULL);

  return g_strndup (self->code->str, self->code->len);
}

/**
 * natter_code_block_get_info:
 * @self: a #NatterCodeBlock
 *
 * Returns: (transfer none): the fence's info string as given ("" if none)
 */
const char *
natter_code_block_get_info (NatterCodeBlock *self)
{
  g_return_val_if_fail (NATTER_IS_CODE_BLOCK (self), NULL);

  return self->info;
}

/**
 * natter_code_block_get_language_label:
 * @self: a #NatterCodeBlock
 *
 * Returns: (transfer none): the language name shown in the header
 */
const char *
natter_code_block_get_language_label (NatterCodeBlock *self)
{
  g_return_val_if_fail (NATTER_IS_CODE_BLOCK (self), NULL);

  return self->language_label;
}

/**
 * natter_code_block_get_language_id:
 * @self: a #NatterCodeBlock
 *
 * Returns: (transfer none) (nullable): the GtkSourceView language id used
 *   for highlighting, or %NULL when the block is plain text
 */
const char *
natter_code_block_get_language_id (NatterCodeBlock *self)
{
  GtkSourceLanguage *language;

  g_return_val_if_fail (NATTER_IS_CODE_BLOCK (self), NULL);

  language = gtk_source_buffer_get_language (self->buffer);
  return language != NULL ? gtk_source_language_get_id (language) : NULL;
}

/**
 * natter_code_block_get_scheme_id:
 * @self: a #NatterCodeBlock
 *
 * Returns: (transfer none) (nullable): the id of the style scheme in use;
 *   it follows the light or dark style of the application
 */
const char *
natter_code_block_get_scheme_id (NatterCodeBlock *self)
{
  GtkSourceStyleScheme *scheme;

  g_return_val_if_fail (NATTER_IS_CODE_BLOCK (self), NULL);

  scheme = gtk_source_buffer_get_style_scheme (self->buffer);
  return scheme != NULL ? gtk_source_style_scheme_get_id (scheme) : NULL;
}

/**
 * natter_code_block_copy:
 * @self: a #NatterCodeBlock
 *
 * Puts the code on the clipboard of the widget's display, as the Copy
 * button does, and shows for a second that it worked.
 */
void
natter_code_block_copy (NatterCodeBlock *self)
{
  g_autofree char *code = NULL;

  g_return_if_fail (NATTER_IS_CODE_BLOCK (self));

  code = natter_code_block_dup_code (self);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), code);

  gtk_button_set_icon_name (self->copy_button, "object-select-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->copy_button), _("Copied"));
  g_clear_handle_id (&self->copied_source, g_source_remove);
  self->copied_source = g_timeout_add (COPIED_FEEDBACK_MS, copied_timeout_cb, self);
}
