/* natter-mcp-stdio.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stdio transport of the Model Context Protocol: the server is a
 * child process; each message is one line of JSON on its standard input
 * and output. A line of output that is not a message is logged and
 * skipped. Its standard error is only kept (its last lines) to explain
 * why it stopped.
 */

#define G_LOG_DOMAIN "natter-mcp"

#include "natter-error-words.h"
#include "natter-json.h"
#include "natter-mcp-error.h"
#include "natter-mcp-transport-private.h"

/* How much of the server's standard error is kept for the message that
 * says why it stopped. */
#define STDERR_TAIL_BYTES 512

/* How much of a skipped line of standard output is logged. */
#define LOGGED_LINE_BYTES 200

typedef struct
{
  NatterMcpTransport  parent;
  char               *name;
  GSubprocess        *process;
  GOutputStream      *input;
  GDataInputStream   *output;
  GDataInputStream   *errors;
  GCancellable       *cancellable;
  GQueue              writes;     /* GBytes, each one line */
  GBytes             *writing;    /* the line being written, or NULL */
  GString            *stderr_tail;
} Stdio;

static void
stdio_clear (gpointer data)
{
  Stdio *self = data;

  g_free (self->name);
  g_clear_object (&self->process);
  g_clear_object (&self->output);
  g_clear_object (&self->errors);
  g_clear_object (&self->cancellable);
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  g_clear_pointer (&self->writing, g_bytes_unref);
  g_string_free (self->stderr_tail, TRUE);
}

static Stdio *
stdio_ref (Stdio *self)
{
  return g_rc_box_acquire (self);
}

static void
stdio_unref (Stdio *self)
{
  g_rc_box_release_full (self, stdio_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Stdio, stdio_unref)

static void write_next (Stdio *self);

static void
write_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Stdio) self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->writing, g_bytes_unref);
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error))
    {
      /* A server that closed its input is dying; reading its output
       * reports that, with its exit status. */
      g_debug ("writing to tool server %s failed: %s", self->name, error->message);
      g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
      return;
    }
  write_next (self);
}

static void
write_next (Stdio *self)
{
  if (self->writing != NULL || self->parent.closed)
    return;
  self->writing = g_queue_pop_head (&self->writes);
  if (self->writing == NULL)
    return;
  g_output_stream_write_all_async (self->input, g_bytes_get_data (self->writing, NULL),
                                   g_bytes_get_size (self->writing), G_PRIORITY_DEFAULT, self->cancellable,
                                   write_done_cb, stdio_ref (self));
}

static void
stdio_send (NatterMcpTransport *transport,
            JsonNode           *message,
            gint64              request_id)
{
  Stdio *self = (Stdio *) transport;
  g_autofree char *text = NULL;
  GString *line;

  /* Compact JSON holds no raw control character (they are escaped in
   * strings), so one message is one line, as the stdio transport
   * requires, and a server reading it strictly accepts it. */
  text = natter_json_to_text (message, FALSE, NULL);
  line = g_string_new (text);
  g_string_append_c (line, '\n');
  g_queue_push_tail (&self->writes, g_string_free_to_bytes (line));
  write_next (self);
}

static void
exited_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Stdio) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *why = NULL;
  GSubprocess *process = G_SUBPROCESS (object);

  if (!g_subprocess_wait_finish (process, result, NULL) || self->parent.closed)
    return;
  if (g_subprocess_get_if_exited (process))
    why = g_strdup_printf ("Tool server “%s” stopped (exit status %d)",
                           self->name, g_subprocess_get_exit_status (process));
  else
    why = g_strdup_printf ("Tool server “%s” stopped (killed by signal %d)",
                           self->name, g_subprocess_get_term_sig (process));
  g_strstrip (self->stderr_tail->str);
  self->stderr_tail->len = strlen (self->stderr_tail->str);
  if (self->stderr_tail->len > 0)
    error = g_error_new (NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED, "%s: %s", why, self->stderr_tail->str);
  else
    error = g_error_new_literal (NATTER_MCP_ERROR, NATTER_MCP_ERROR_CLOSED, why);
  natter_mcp_transport_die (&self->parent, error);
}

static void
output_line_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(Stdio) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  gsize length = 0;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, &length, &error);
  if (self->parent.closed)
    return;
  if (line == NULL && g_error_matches (error, G_CONVERT_ERROR, G_CONVERT_ERROR_ILLEGAL_SEQUENCE))
    {
      /* A line that is not even UTF-8 was read whole: it is no message
       * either. */
      g_message ("Tool server “%s” printed a line that is not UTF-8, skipped", self->name);
      g_data_input_stream_read_line_async (self->output, G_PRIORITY_DEFAULT, self->cancellable,
                                           output_line_cb, stdio_ref (self));
      return;
    }
  if (line == NULL)
    {
      /* End of output (or a read error): the server is gone or going;
       * its exit status says how. */
      if (error != NULL)
        g_debug ("reading tool server %s: %s", self->name, error->message);
      g_subprocess_force_exit (self->process);
      g_subprocess_wait_async (self->process, NULL, exited_cb, stdio_ref (self));
      return;
    }
  g_strstrip (line);
  if (*line != '\0' && !natter_mcp_transport_deliver_text (&self->parent, line, strlen (line), &error)
      && g_error_matches (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_NOT_A_MESSAGE))
    {
      /* A server that prints a banner or a log line on its standard
       * output is common; the official SDKs skip such a line, and so does
       * Natter, saying so. Only the start of it is logged, escaped: it
       * came from the server. */
      g_autofree char *start = g_utf8_make_valid (line, MIN (strlen (line), LOGGED_LINE_BYTES));
      g_autofree char *shown = g_strescape (start, NULL);

      g_message ("Tool server “%s” printed a line that is not a message, skipped: %s%s (%s)", self->name,
                 shown, strlen (line) > LOGGED_LINE_BYTES ? "…" : "", error->message);
      g_clear_error (&error);
    }
  if (error != NULL)
    {
      g_prefix_error (&error, "Tool server “%s”: ", self->name);
      g_subprocess_force_exit (self->process);
      natter_mcp_transport_die (&self->parent, error);
      return;
    }
  if (!self->parent.closed)
    g_data_input_stream_read_line_async (self->output, G_PRIORITY_DEFAULT, self->cancellable,
                                         output_line_cb, stdio_ref (self));
}

static void
error_line_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(Stdio) self = user_data;
  g_autofree char *line = NULL;

  line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, NULL, NULL);
  if (line == NULL || self->parent.closed)
    return;
  if (*line != '\0')
    {
      g_string_append (self->stderr_tail, line);
      g_string_append_c (self->stderr_tail, '\n');
      if (self->stderr_tail->len > STDERR_TAIL_BYTES)
        {
          const char *start = self->stderr_tail->str + self->stderr_tail->len - STDERR_TAIL_BYTES;

          start = g_utf8_find_next_char (start, NULL);
          g_string_erase (self->stderr_tail, 0, start - self->stderr_tail->str);
        }
    }
  g_data_input_stream_read_line_async (self->errors, G_PRIORITY_DEFAULT, self->cancellable,
                                       error_line_cb, stdio_ref (self));
}

static void
stdio_close (NatterMcpTransport *transport)
{
  Stdio *self = (Stdio *) transport;

  g_cancellable_cancel (self->cancellable);
  g_subprocess_force_exit (self->process);
  stdio_unref (self);
}

static GSubprocessLauncher *
make_launcher (NatterMcpServerConfig *config)
{
  GSubprocessLauncher *launcher;
  g_autoptr(GList) names = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (config->env != NULL)
    names = json_object_get_members (config->env);
  for (GList *l = names; l != NULL; l = l->next)
    g_subprocess_launcher_setenv (launcher, l->data, json_object_get_string_member (config->env, l->data), TRUE);
  return launcher;
}

/**
 * natter_mcp_stdio_transport_start:
 * @config: a stdio server
 * @callbacks: the client's callbacks
 * @user_data: their data
 * @error: return location for a %NATTER_MCP_ERROR_START error
 *
 * Starts the server's program with its arguments and extra environment
 * (MCP 2025-11-25, Transports, stdio).
 *
 * Returns: (transfer full) (nullable): the running transport
 */
NatterMcpTransport *
natter_mcp_stdio_transport_start (NatterMcpServerConfig              *config,
                                  const NatterMcpTransportCallbacks  *callbacks,
                                  gpointer                            user_data,
                                  GError                            **error)
{
  g_autoptr(GSubprocessLauncher) launcher = make_launcher (config);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  Stdio *self;

  g_strv_builder_add (builder, config->command);
  g_strv_builder_addv (builder, (const char **) config->args);
  argv = g_strv_builder_end (builder);
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &local_error);
  if (process == NULL)
    {
      /* Stored in a tool's result and printed to a forwarded command:
       * Natter's untranslated words, not GLib's in this process's
       * language. */
      g_autofree char *reason = natter_error_reason (local_error);

      g_set_error (error, NATTER_MCP_ERROR, NATTER_MCP_ERROR_START,
                   "Cannot start tool server “%s” with “%s”: %s", config->name, config->command, reason);
      return NULL;
    }

  self = g_rc_box_new0 (Stdio);
  self->parent.callbacks = callbacks;
  self->parent.user_data = user_data;
  self->parent.send = stdio_send;
  self->parent.close = stdio_close;
  self->name = g_strdup (config->name);
  self->process = g_steal_pointer (&process);
  self->input = g_subprocess_get_stdin_pipe (self->process);
  self->output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->process));
  self->errors = g_data_input_stream_new (g_subprocess_get_stderr_pipe (self->process));
  g_data_input_stream_set_newline_type (self->output, G_DATA_STREAM_NEWLINE_TYPE_LF);
  self->cancellable = g_cancellable_new ();
  self->stderr_tail = g_string_new (NULL);
  g_queue_init (&self->writes);

  g_data_input_stream_read_line_async (self->output, G_PRIORITY_DEFAULT, self->cancellable,
                                       output_line_cb, stdio_ref (self));
  g_data_input_stream_read_line_async (self->errors, G_PRIORITY_DEFAULT, self->cancellable,
                                       error_line_cb, stdio_ref (self));
  return &self->parent;
}
