/* natter-markdown-render-private.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pieces of NatterMarkdownView that need no view: cutting a growing
 * Markdown text into top-level chunks, turning one closed chunk into
 * widgets, and a block's inline content into Pango markup.
 */

#pragma once

#include <cmark.h>
#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_MARKDOWN_BLOCK_SPACING 12
#define NATTER_MARKDOWN_ITEM_SPACING 6

typedef struct
{
  gsize    start;
  gsize    end;
  gboolean joined;   /* continues the list of the chunk before it */
} NatterMarkdownRange;

/* Cuts a Markdown text that only ever grows into chunks that cmark can
 * parse on their own. Decisions are made on complete lines only, so the
 * chunks do not depend on how the text was cut into deltas. */
typedef struct
{
  gsize    pos;              /* start of the first line not yet seen */
  gsize    chunk_start;      /* start of the open chunk */
  gboolean chunk_has_content;
  gboolean chunk_joined;     /* it continues the previous chunk's list */
  gboolean prev_blank;
  char     chunk_list;       /* list marker the chunk starts with, or 0 */
  gboolean chunk_is_heading;
  gboolean chunk_is_fence;   /* the chunk starts with a fence opener */
  gsize    fence_body_start; /* where that fence's code starts */
  char    *fence_info;       /* (owned) that fence's info string */
  gboolean in_fence;
  char     fence_char;
  gsize    fence_len;
} NatterMarkdownSplitter;

void       natter_markdown_splitter_init   (NatterMarkdownSplitter *splitter);
void       natter_markdown_splitter_clear  (NatterMarkdownSplitter *splitter);
void       natter_markdown_splitter_feed   (NatterMarkdownSplitter *splitter,
                                            const char             *text,
                                            gsize                   len,
                                            gboolean                final,
                                            GArray                 *closed);

gboolean   natter_markdown_uri_is_allowed  (const char             *uri);
char      *natter_markdown_inline_markup   (cmark_node             *block);
void       natter_markdown_append_plain_text
                                           (GString                *out,
                                            cmark_node             *node);
GtkWidget *natter_markdown_render_chunk    (const char             *text,
                                            gsize                   len);
GtkWidget *natter_markdown_render_plain    (const char             *text,
                                            gsize                   len);
GtkWidget *natter_markdown_new_chunk_box   (void);

G_END_DECLS
