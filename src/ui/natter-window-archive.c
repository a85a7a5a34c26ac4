/* natter-window-archive.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's way in and out: "Export as Markdown…" and "Export as
 * Archive…" in the conversation menu, "Import…" and "Import from
 * ChatGPT…" in the main menu, each through the file chooser portal
 * (GtkFileChooserNative); the work is the session service's
 * (natter_sessions_export_async(), natter_sessions_import_async()).
 */

#define G_LOG_DOMAIN "natter-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-toast-guard.h"
#include "natter-window-private.h"

static void
show_toast (NatterWindow *self,
            const char   *text)
{
  /* Toast titles are Pango markup; the text may hold a file name. */
  g_autofree char *escaped = g_markup_escape_text (text, -1);
  AdwToast *toast = adw_toast_new (escaped);

  /* The result of what the person just asked for comes first: queued
   * behind an earlier toast it could wait for as long as that one is
   * held on screen, which a pointer over it or the keyboard focus on its
   * close button does indefinitely. */
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  natter_toast_guard_add (self->toast_overlay, toast);
}

/* Export */

typedef struct
{
  NatterWindow *self;
  GFile        *file;
} ExportData;

static void
export_data_free (ExportData *data)
{
  g_object_unref (data->self);
  g_object_unref (data->file);
  g_free (data);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ExportData, export_data_free)

static void
export_written_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(ExportData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *text = NULL;

  if (!g_file_replace_contents_finish (G_FILE (source), result, NULL, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (data->self, NULL, _("The conversation was not exported"), error, NULL);
      return;
    }
  name = g_file_get_basename (data->file);
  /* Translators: %s is a file name */
  text = g_strdup_printf (_("Exported to “%s”"), name);
  show_toast (data->self, text);
}

static void
exported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(ExportData) data = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GCancellable *cancellable;
  char *text;
  GFile *file;

  text = natter_sessions_export_finish (NATTER_SESSIONS (source), result, &error);
  if (text == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (data->self, NULL, _("The conversation was not exported"), error, NULL);
      return;
    }
  file = data->file;
  bytes = g_bytes_new_take (text, strlen (text));
  cancellable = data->self->cancellable;
  g_file_replace_contents_bytes_async (file, bytes, NULL, FALSE,
                                       G_FILE_CREATE_REPLACE_DESTINATION, cancellable,
                                       export_written_cb, g_steal_pointer (&data));
}

/**
 * _natter_window_export_to:
 * @self: the window
 * @session_id: the session to export
 * @format: "markdown" or "json" (natter_sessions_export_async())
 * @file: where to write it; replaced if it exists
 *
 * Exports a session to @file, then says so in a toast; a failure shows
 * in the error bar. What the file chooser's answer starts.
 */
void
_natter_window_export_to (NatterWindow *self,
                          const char   *session_id,
                          const char   *format,
                          GFile        *file)
{
  ExportData *data = g_new0 (ExportData, 1);

  data->self = g_object_ref (self);
  data->file = g_object_ref (file);
  natter_sessions_export_async (self->sessions, session_id, format, self->cancellable, exported_cb, data);
}

static void
export_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    NatterWindow    *self)
{
  const char *session_id = g_object_get_data (G_OBJECT (dialog), "session-id");
  const char *format = g_object_get_data (G_OBJECT (dialog), "format");
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  if (file != NULL && self->sessions != NULL)
    _natter_window_export_to (self, session_id, format, file);
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

/* A modal file chooser over the window that offers the files of one
 * filter: @filter_name, by @mime_type or by @pattern. */
static GtkFileChooserNative *
chooser_new (NatterWindow         *self,
             const char           *title,
             GtkFileChooserAction  action,
             const char           *accept_label,
             const char           *filter_name,
             const char           *mime_type,
             const char           *pattern)
{
  GtkFileChooserNative *dialog;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  dialog = gtk_file_chooser_native_new (title, GTK_WINDOW (self), action, accept_label, _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  gtk_file_filter_set_name (filter, filter_name);
  gtk_file_filter_add_mime_type (filter, mime_type);
  gtk_file_filter_add_pattern (filter, pattern);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  return dialog;
}

/* Whether @c turns text around or breaks its line: a control
 * character, a line or paragraph separator, a bidirectional embedding,
 * override or isolate. */
static gboolean
reorders_or_breaks (gunichar c)
{
  return g_unichar_iscntrl (c) || c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

/* A file name from the title: what a file system refuses in a name
 * becomes a dash, and so does what would make the name read otherwise
 * in Files ("Photo" RLO "gnp.exe.md" reads "Photo dm.exe.png"). */
static char *
suggested_name (NatterSessionIndexEntry *entry,
                const char              *extension)
{
  const char *title = natter_session_index_entry_get_title (entry);
  g_autofree char *valid = g_utf8_make_valid (title != NULL && title[0] != '\0' ? title : _("Conversation"), -1);
  g_autoptr(GString) base = g_string_new (NULL);

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_string_append_unichar (base, reorders_or_breaks (c) ? '-' : c);
    }
  g_strdelimit (base->str, "/\\:*?\"<>|", '-');
  return g_strdup_printf ("%s.%s", g_strstrip (base->str), extension);
}

/* Asks where to write @session_id's conversation as @format
 * ("markdown" or "json"), then writes it there (_natter_window_export_to()). */
static void
choose_export_file (NatterWindow            *self,
                    const char              *session_id,
                    NatterSessionIndexEntry *entry,
                    const char              *format)
{
  gboolean json = g_str_equal (format, "json");
  g_autofree char *name = NULL;
  GtkFileChooserNative *dialog;

  if (!json && !g_str_equal (format, "markdown"))
    return;
  dialog = json ? chooser_new (self, _("Export as Archive"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                               _("Natter archives"), "application/json", "*.json")
                : chooser_new (self, _("Export as Markdown"), GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"),
                               _("Markdown"), "text/markdown", "*.md");
  name = suggested_name (entry, json ? "json" : "md");
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name);
  g_object_set_data_full (G_OBJECT (dialog), "session-id", g_strdup (session_id), g_free);
  g_object_set_data_full (G_OBJECT (dialog), "format", g_strdup (format), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (export_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

/* The open conversation's menu: the format is the target. */
static void
export_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);

  if (!_natter_window_open_is_usable (self))
    return;
  choose_export_file (self, self->conversation.session_id, self->conversation.entry,
                      g_variant_get_string (parameter, NULL));
}

/* A row's menu in the sidebar: the conversation and the format are the
 * target, and the conversation is not opened to be exported. */
static void
export_conversation_activated (GtkWidget  *widget,
                               const char *action_name,
                               GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *session_id = NULL;
  const char *format = NULL;
  NatterSessionIndexEntry *entry;

  g_variant_get (parameter, "(&s&s)", &session_id, &format);
  entry = _natter_window_lookup_target (self, session_id, TRUE);
  if (entry != NULL)
    choose_export_file (self, session_id, entry, format);
}

/* Import */

/* What the Details of an import's toast say: what it left out, and the
 * conversations it could not read. */
static char *
import_details (const NatterImportReport *report)
{
  g_auto(GStrv) notes = natter_import_report_dup_notes (report);
  GString *text = g_string_new (NULL);

  for (guint i = 0; notes[i] != NULL; i++)
    g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "", notes[i]);
  if (report->defective->len > 0)
    g_string_append_printf (text, "%s%s", text->len > 0 ? "\n\n" : "",
                            ngettext ("This conversation could not be read and was not imported:",
                                      "These conversations could not be read and were not imported:",
                                      report->defective->len));
  for (guint i = 0; i < report->defective->len; i++)
    g_string_append_printf (text, "\n• %s", (const char *) g_ptr_array_index (report->defective, i));
  return g_string_free (text, FALSE);
}

static void
details_clicked_cb (AdwToast     *toast,
                    NatterWindow *self)
{
  _natter_window_show_details (self, _("What the Import Left Out"), g_object_get_data (G_OBJECT (toast), "details"));
}

static void
imported_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(NatterWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(NatterImportReport) report = NULL;
  g_autofree char *text = NULL;
  g_autofree char *escaped = NULL;
  g_autofree char *details = NULL;
  AdwToast *toast;
  guint n;

  report = natter_sessions_import_finish (NATTER_SESSIONS (source), result, &error);
  if (report == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _natter_window_show_error (self, NULL, _("Nothing was imported"), error, NULL);
      return;
    }
  n = report->session_ids->len;
  details = import_details (report);
  g_free (self->archive.last_import_details);
  self->archive.last_import_details = g_strdup (details);
  if (n == 0 && details[0] == '\0')
    {
      show_toast (self, _("The file holds no conversations"));
      return;
    }
  if (n > 0)
    natter_window_open_session (self, g_ptr_array_index (report->session_ids, 0));
  if (report->defective->len > 0)
    {
      guint unread = report->defective->len;
      g_autofree char *imported = g_strdup_printf (ngettext ("Imported %u conversation.",
                                                             "Imported %u conversations.", n), n);
      g_autofree char *failed = g_strdup_printf (ngettext ("%u could not be read.", "%u could not be read.", unread),
                                                 unread);

      text = g_strdup_printf ("%s %s", imported, failed);
    }
  else
    text = g_strdup_printf (ngettext ("Imported %u conversation", "Imported %u conversations", n), n);
  escaped = g_markup_escape_text (text, -1);
  toast = adw_toast_new (escaped);
  if (details[0] != '\0')
    {
      adw_toast_set_button_label (toast, _("_Details"));
      g_object_set_data_full (G_OBJECT (toast), "details", g_steal_pointer (&details), g_free);
      g_signal_connect_object (toast, "button-clicked", G_CALLBACK (details_clicked_cb), self, 0);
    }
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

/**
 * _natter_window_import_from:
 * @self: the window
 * @file: the file to import
 * @from: (nullable): %NULL for a Natter archive, "chatgpt" for a ChatGPT
 *   `conversations.json`
 *
 * Imports @file as new conversations and opens the first; a damaged file
 * shows in the error bar, naming what is wrong (nothing is written then).
 */
void
_natter_window_import_from (NatterWindow *self,
                            GFile        *file,
                            const char   *from)
{
  natter_sessions_import_async (self->sessions, file, from, self->cancellable, imported_cb, g_object_ref (self));
}

static void
import_response_cb (GtkNativeDialog *dialog,
                    int              response,
                    NatterWindow    *self)
{
  const char *from = g_object_get_data (G_OBJECT (dialog), "from");
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
  if (file != NULL && self->sessions != NULL)
    _natter_window_import_from (self, file, from);
  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
import_activated (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  NatterWindow *self = NATTER_WINDOW (widget);
  const char *source = g_variant_get_string (parameter, NULL);
  gboolean chatgpt = g_str_equal (source, "chatgpt");
  GtkFileChooserNative *dialog;

  if (self->sessions == NULL || (!chatgpt && !g_str_equal (source, "natter")))
    return;
  dialog = chooser_new (self, chatgpt ? _("Import from ChatGPT") : _("Import Conversation"),
                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Import"),
                        chatgpt ? _("ChatGPT conversations.json") : _("Natter archives"), "application/json", "*.json");
  if (chatgpt)
    g_object_set_data (G_OBJECT (dialog), "from", (gpointer) "chatgpt");
  g_signal_connect_object (dialog, "response", G_CALLBACK (import_response_cb), self, 0);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
_natter_window_class_archive_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.export", "s", export_activated);
  gtk_widget_class_install_action (widget_class, "win.export-conversation", "(ss)", export_conversation_activated);
  gtk_widget_class_install_action (widget_class, "win.import", "s", import_activated);
}
