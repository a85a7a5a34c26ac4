/* natter-tool.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "natter-tool"

#include <locale.h>
#include <string.h>

#include "natter-tool.h"

G_DEFINE_INTERFACE (NatterTool, natter_tool, G_TYPE_OBJECT)

/* The process's locale with untranslated messages: what a tool says is
 * stored in the turn and read by the model, whatever language the
 * window speaks. Made once, kept for the process. (locale_t) 0 when the
 * C library cannot make it. */
static locale_t
untranslated_locale (void)
{
  static gsize made = 0;
  static locale_t locale = (locale_t) 0;

  if (g_once_init_enter (&made))
    {
      locale_t base = duplocale (LC_GLOBAL_LOCALE);

      if (base != (locale_t) 0)
        {
          locale = newlocale (LC_MESSAGES_MASK, "C", base);
          if (locale == (locale_t) 0)
            freelocale (base);
        }
      g_once_init_leave (&made, 1);
    }
  return locale;
}

/* Switches this thread's messages to untranslated_locale() for a tool's
 * run; returns what leave_untranslated() restores, (locale_t)
 * 0 when nothing was switched. */
static locale_t
enter_untranslated (void)
{
  return untranslated_locale () != (locale_t) 0 ? uselocale (untranslated_locale ()) : (locale_t) 0;
}

static void
leave_untranslated (locale_t previous)
{
  if (previous != (locale_t) 0)
    uselocale (previous);
}

/**
 * natter_tool_strerror:
 * @errnum: an errno value
 *
 * The C library's description of @errnum, untranslated, for a tool's
 * error (docs/runtime.md §8: stored and read by the model, so in no
 * UI's language). g_strerror() translates, and keeps the first
 * translation for the whole process.
 *
 * Returns: (transfer none): the description; valid until the thread
 *   calls it again
 */
const char *
natter_tool_strerror (int errnum)
{
  locale_t locale = untranslated_locale ();

  return locale != (locale_t) 0 ? strerror_l (errnum, locale) : g_strerror (errnum);
}

static void
natter_tool_default_init (NatterToolInterface *iface)
{
}

/**
 * natter_tool_get_descriptor:
 * @self: a #NatterTool
 *
 * Returns: (transfer none): the tool's descriptor (docs/runtime.md §1)
 */
JsonObject *
natter_tool_get_descriptor (NatterTool *self)
{
  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  return NATTER_TOOL_GET_IFACE (self)->get_descriptor (self);
}

/**
 * natter_tool_get_id:
 * @self: a #NatterTool
 *
 * The descriptor key of docs/runtime.md §1.
 *
 * Returns: (transfer none): the registry key, `toolId`
 */
const char *
natter_tool_get_id (NatterTool *self)
{
  return json_object_get_string_member (natter_tool_get_descriptor (self), "toolId");
}

/**
 * natter_tool_is_async:
 * @self: a #NatterTool
 *
 * The execution kind of docs/runtime.md §1 and §8.
 *
 * Returns: whether the descriptor says `execution: "async"`
 */
gboolean
natter_tool_is_async (NatterTool *self)
{
  return g_strcmp0 (json_object_get_string_member_with_default (natter_tool_get_descriptor (self),
                                                                "execution", ""),
                    "async") == 0;
}

/**
 * natter_tool_run:
 * @self: a sync #NatterTool
 * @input: (transfer none): the parsed arguments
 * @progress: (nullable): the progress reporter
 * @progress_data: data for @progress
 * @cancellable: (nullable): cancelled when the turn is cancelled
 * @error: return location for a #GError
 *
 * Runs a sync tool (docs/runtime.md §8). Blocks: call it from a worker
 * thread. The tool runs with untranslated messages in that thread
 * (uselocale()), so that the errors libraries give it, which become its
 * result, are in no UI's language.
 *
 * Returns: (transfer full) (nullable): `{output, isError, metadata?}`, or
 *   %NULL with the tool's error, which the runtime turns into an error
 *   result (tool failures never fail the turn)
 */
JsonObject *
natter_tool_run (NatterTool              *self,
                 JsonObject              *input,
                 NatterToolProgressFunc   progress,
                 gpointer                 progress_data,
                 GCancellable            *cancellable,
                 GError                 **error)
{
  NatterToolInterface *iface;
  JsonObject *result;
  locale_t previous;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->run == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "Tool “%s” has no executor", natter_tool_get_id (self));
      return NULL;
    }
  previous = enter_untranslated ();
  result = iface->run (self, input, progress, progress_data, cancellable, error);
  leave_untranslated (previous);
  return result;
}

/**
 * natter_tool_run_in:
 * @self: a sync #NatterTool
 * @input: (transfer none): the parsed arguments
 * @cwd: (nullable): the turn's working directory (`config.cwd`), an
 *   absolute path; relative paths in @input resolve against it
 * @progress: (nullable): the progress reporter
 * @progress_data: data for @progress
 * @cancellable: (nullable): cancelled when the turn is cancelled
 * @error: return location for a #GError
 *
 * Runs a sync tool in a turn's working directory (docs/runtime.md §8).
 * Tools without a @run_in implementation ignore @cwd and run as with
 * natter_tool_run(). Blocks: call it from a worker thread; the tool
 * runs with untranslated messages, as in natter_tool_run().
 *
 * Returns: (transfer full) (nullable): `{output, isError, metadata?}`, or
 *   %NULL with the tool's error (%G_IO_ERROR_NOT_SUPPORTED for a tool
 *   without an executor)
 */
JsonObject *
natter_tool_run_in (NatterTool              *self,
                    JsonObject              *input,
                    const char              *cwd,
                    NatterToolProgressFunc   progress,
                    gpointer                 progress_data,
                    GCancellable            *cancellable,
                    GError                 **error)
{
  NatterToolInterface *iface;
  JsonObject *result;
  locale_t previous;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->run_in == NULL)
    return natter_tool_run (self, input, progress, progress_data, cancellable, error);
  previous = enter_untranslated ();
  result = iface->run_in (self, input, cwd, progress, progress_data, cancellable, error);
  leave_untranslated (previous);
  return result;
}

/**
 * natter_tool_describe_request:
 * @self: a #NatterTool
 * @input: (transfer none): the parsed arguments
 * @cwd: (nullable): the turn's working directory
 *
 * What one call of the tool would do, as the permission request shown to
 * a human (docs/runtime.md §7), e.g. `{"action":"read","path":"/abs"}`.
 *
 * Returns: (transfer full) (nullable): the request, or %NULL when the
 *   tool does not describe its calls (the checker then shows the
 *   generic `{tool, arguments}`)
 */
JsonNode *
natter_tool_describe_request (NatterTool *self,
                              JsonObject *input,
                              const char *cwd)
{
  NatterToolInterface *iface;

  g_return_val_if_fail (NATTER_IS_TOOL (self), NULL);

  iface = NATTER_TOOL_GET_IFACE (self);
  if (iface->describe_request == NULL)
    return NULL;
  return iface->describe_request (self, input, cwd);
}

/**
 * natter_tool_output_cut:
 * @text: a tool's result as the model would read it, valid UTF-8
 * @length: its length in bytes
 * @out_cut: (out) (optional): whether it was cut
 *
 * What a model is given of @text: all of it when it is at most
 * %NATTER_TOOL_OUTPUT_MAX_BYTES long, else its start up to the last
 * character that ends within the limit, then a line
 * `[truncated: N of M bytes shown]` (the form read_file uses), so the
 * model knows it was cut and how long the whole was. The note is at most
 * %NATTER_TOOL_OUTPUT_NOTE_MAX_BYTES long.
 *
 * Returns: (transfer full): the text the model reads
 */
char *
natter_tool_output_cut (const char *text,
                        gsize       length,
                        gboolean   *out_cut)
{
  const char *end;

  g_return_val_if_fail (text != NULL, NULL);

  if (out_cut != NULL)
    *out_cut = length > NATTER_TOOL_OUTPUT_MAX_BYTES;
  if (length <= NATTER_TOOL_OUTPUT_MAX_BYTES)
    return g_strndup (text, length);
  /* Back from the first byte past the limit to the start of its
   * character: that character is left out whole. */
  end = text + NATTER_TOOL_OUTPUT_MAX_BYTES;
  while (end > text && ((guchar) *end & 0xC0) == 0x80)
    end--;
  return g_strdup_printf ("%.*s\n[truncated: %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes shown]",
                          (int) (end - text), text, (gsize) (end - text), length);
}
