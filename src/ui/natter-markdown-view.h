/* natter-markdown-view.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define NATTER_TYPE_MARKDOWN_VIEW (natter_markdown_view_get_type ())

G_DECLARE_FINAL_TYPE (NatterMarkdownView, natter_markdown_view, NATTER, MARKDOWN_VIEW, GtkWidget)

GtkWidget  *natter_markdown_view_new          (void);
void        natter_markdown_view_set_markdown (NatterMarkdownView *self,
                                               const char         *text);
void        natter_markdown_view_append       (NatterMarkdownView *self,
                                               const char         *delta);
void        natter_markdown_view_finish       (NatterMarkdownView *self);
const char *natter_markdown_view_get_text     (NatterMarkdownView *self);
gboolean    natter_markdown_view_get_ready    (NatterMarkdownView *self);

G_END_DECLS
