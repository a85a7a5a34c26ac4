/* natter-ui-test-log.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The log writer every window test runs with (ui_test_init() installs
 * it): it names the widget of GTK's "snapshot without a current
 * allocation" warning, and fails the test on a markup warning, the sign
 * of a user's or a server's text that reached markup unescaped.
 */

#include "natter-ui-test-world.h"

#include <stdlib.h>
#include <string.h>

static gboolean
ui_is_unallocated_snapshot (const char *message)
{
  return message != NULL &&
         g_str_has_prefix (message, "Trying to snapshot ") &&
         strstr (message, " without a current allocation") != NULL;
}

/* Says where the widget of GTK's "Trying to snapshot TYPE 0xADDRESS
 * without a current allocation" sits (its ancestors and its first
 * children), which the warning itself does not. */
static void
ui_describe_unallocated (const char *message)
{
  const char *at = strstr (message, " 0x");
  GtkWidget *widget;
  g_autoptr(GString) where = g_string_new (NULL);

  if (at == NULL)
    return;
  widget = GSIZE_TO_POINTER ((gsize) g_ascii_strtoull (at + 3, NULL, 16));
  if (!GTK_IS_WIDGET (widget))
    return;
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    g_string_append_printf (where, "%s%s", w == widget ? "" : " < ", G_OBJECT_TYPE_NAME (w));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_first_child (child))
    g_string_append_printf (where, " > %s", G_OBJECT_TYPE_NAME (child));
  g_printerr ("The widget without an allocation: %s; child-visible %d, focus within %d, its parent's focus child %d, "
              "size %dx%d\n", where->str, gtk_widget_get_child_visible (widget),
              (gtk_widget_get_state_flags (widget) & GTK_STATE_FLAG_FOCUS_WITHIN) != 0,
              gtk_widget_get_parent (widget) != NULL && gtk_widget_get_focus_child (gtk_widget_get_parent (widget)) == widget,
              gtk_widget_get_width (widget), gtk_widget_get_height (widget));
}

/* Whether @message is GTK's or Pango's word that a text given as markup
 * did not parse ("Failed to set text '…' from markup due to error
 * parsing markup: Error on line 1: …"): what a user's or a server's "&"
 * or "<" does where it reaches markup unescaped. */
static gboolean
ui_is_markup_warning (const char *message)
{
  return message != NULL &&
         ((strstr (message, "Failed to set text ") != NULL && strstr (message, " from markup") != NULL) ||
          strstr (message, "Error on line ") != NULL);
}

/* GLib's own writer, after naming the widget of a warning that does not
 * say where it is: a flake seen once under load is then understood from
 * its log alone. A markup warning fails the test even where warnings
 * are not fatal (test-math's software rendering), and says why: the
 * text shown is then empty or wrong, not only logged. ui_test_init()
 * installs it. */
GLogWriterOutput
ui_log_writer (GLogLevelFlags   log_level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  const char *message = NULL;
  gboolean markup = FALSE;
  GLogWriterOutput output;

  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
      message = fields[i].value;
  if (ui_is_unallocated_snapshot (message))
    ui_describe_unallocated (message);
  /* Said before GLib's writer, which ends the program on a warning made
   * fatal. */
  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0 &&
      ui_is_markup_warning (message))
    {
      markup = TRUE;
      g_printerr ("%sA user's or a server's text reached markup unescaped: %s\n",
                  g_test_get_path () == NULL ? "Bail out! " : "", message);
      if (g_test_get_path () != NULL)
        g_test_fail_printf ("A user's or a server's text reached markup unescaped: %s", message);
    }
  output = g_log_writer_default (log_level, fields, n_fields, user_data);
  if (markup && g_test_get_path () == NULL)
    abort ();
  return output;
}
