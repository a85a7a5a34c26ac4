/* natter-text-window.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A long text shown whole, in a window of its own: what a label shows
 * only the beginning of (natter_label_set_visible_preview()). A text
 * view lays out only what is in view, so a text of megabytes opens at
 * once and scrolls; a label would lay all of it out.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "natter-plain-text.h"
#include "natter-text-window.h"

static void
copy_clicked_cb (GtkButton  *button,
                 const char *text)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (button)), text);
}

/**
 * natter_text_window_new:
 * @parent: (nullable): the window it belongs to
 * @title: what the text is, for the header ("Message")
 * @text: the text, plain (never markup)
 *
 * A window that shows @text whole, read-only and selectable, its control
 * characters other than newline and tab as their stand-ins (as the
 * label that showed its beginning did), with a Copy button that copies
 * @text as it was written. Escape closes it.
 *
 * Returns: (transfer none): the window, not yet presented; it is
 *   destroyed when closed
 */
GtkWindow *
natter_text_window_new (GtkWindow  *parent,
                        const char *title,
                        const char *text)
{
  g_autofree char *visible = NULL;
  GtkWidget *window;
  GtkWidget *box;
  GtkWidget *header;
  GtkWidget *copy;
  GtkWidget *scroller;
  GtkWidget *view;
  GtkEventController *shortcuts;

  g_return_val_if_fail (parent == NULL || GTK_IS_WINDOW (parent), NULL);
  g_return_val_if_fail (title != NULL && text != NULL, NULL);

  window = adw_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 560);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  header = adw_header_bar_new ();
  copy = gtk_button_new_with_mnemonic (_("_Copy"));
  gtk_widget_set_tooltip_text (copy, _("Copy the whole text"));
  g_signal_connect_data (copy, "clicked", G_CALLBACK (copy_clicked_cb), g_strdup (text),
                         (GClosureNotify) (void (*) (void)) g_free, 0);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), copy);
  gtk_box_append (GTK_BOX (box), header);

  visible = natter_visible_text (text, NATTER_VISIBLE_KEEP_NEWLINE | NATTER_VISIBLE_KEEP_TAB);
  view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), visible, -1);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_box_append (GTK_BOX (box), scroller);
  adw_window_set_content (ADW_WINDOW (window), box);

  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Escape, 0),
                                                          gtk_named_action_new ("window.close")));
  gtk_widget_add_controller (window, shortcuts);
  gtk_widget_grab_focus (view);
  return GTK_WINDOW (window);
}
