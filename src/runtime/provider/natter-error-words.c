/* natter-error-words.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a failure of a provider or a tool server says is written in
 * English and in no one's language: it is stored in a turn file and read
 * by the model (docs/runtime.md §8 and §9), and a command forwarded to
 * the running window must not print the window's language to a script.
 * So the failures are made from untranslated
 * words, and each reader translates them where they are shown: the
 * window in its language, a command line in its caller's.
 *
 * Two halves. natter_error_reason() puts the failure of a lower layer
 * (GLib spawning a program, GIO connecting, TLS) in Natter's own words,
 * which GLib would have given in the language of the process the error
 * happened in, whoever reads it. natter_error_words_translate() finds
 * which of the sentences below a stored message is and writes the same
 * sentence in the reader's language, its parts (a name, an address, a
 * reason) put back where the translation has them; a reason is itself
 * one of these sentences. A message that is none of them is shown as it
 * is.
 */

#define G_LOG_DOMAIN "natter-runtime"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <string.h>

#include "natter-error-words.h"

/* The sentences, exactly as the providers and tool servers write them
 * (their arguments: %s for text, %u or %d for a number). More particular
 * ones first: the first that matches wins. */
static const char *const sentences[] = {
  /* natter-openai-errors.c */
  N_("%s refused the API key (%s)%s — check the key in the provider settings"),
  N_("%s needs an API key (%s)%s — set one in the provider settings"),
  N_("%s is limiting requests (%s)%s; try again in %s s"),
  N_("%s is limiting requests (%s)%s; try again later"),
  N_("The connection to %s at %s was lost mid-answer: the response ended before the model finished"),
  N_("The connection to %s at %s was lost mid-answer (%s)"),
  N_("%s at %s stopped sending for %u s"),
  N_("%s at %s did not answer within %u s"),
  N_("%s at %s did not answer in time"),
  N_("The request to %s was cancelled"),
  N_("Could not reach %s at %s — is it running?"),
  N_("Could not reach %s at %s: the host name was not found — check the address and the network connection"),
  N_("Could not make a secure connection to %s at %s (%s)"),
  N_("Could not reach %s at %s (%s)"),
  /* natter-model-library.c, natter-model-pull.c */
  N_("%s at %s is not an Ollama server: its models can be listed here, but pulled and deleted only with its own tools"),
  N_("%s at %s has no model “%s” (%s)"),
  N_("The disk of %s at %s is full: “%s” could not be pulled. Delete a model there or free space, then pull it again (%s)"),
  N_("%s found no model “%s” to pull: check the name in the Ollama library (%s)"),
  N_("The connection to %s at %s was lost while pulling “%s”; pulling it again goes on where it stopped"),
  N_("%s stopped answering before “%s” was pulled; pulling it again goes on where it stopped"),
  N_("%s could not pull “%s”: %s"),
  /* src/mcp/ */
  N_("Cannot start tool server “%s” with “%s”: %s"),
  N_("Cannot reach tool server “%s”: %s"),
  N_("Tool server “%s” did not answer “%s” within %u s"),
  N_("Tool server “%s” was stopped"),
  /* natter-turn-loop.c */
  N_("The model sent an empty answer"),
  /* src/sessions/: a compaction's model call that failed */
  N_("The summary could not be made: %s"),
  N_("the model gave no answer"),
  /* natter_error_reason() */
  N_("there is no such program"),
  N_("permission to run the program was denied"),
  N_("the file is not a program that can be run"),
  N_("the program is a folder"),
  N_("the program’s working folder cannot be entered"),
  N_("the connection was refused"),
  N_("the host name was not found"),
  N_("the connection timed out"),
  N_("the network cannot be reached"),
  N_("the host cannot be reached"),
  N_("the connection was closed"),
  N_("the server’s certificate is not trusted"),
  N_("the server does not speak TLS"),
  N_("the secure connection could not be set up"),
  /* natter-sessions-turns.c, natter-sessions-conversations.c,
   * natter-turn-execution-start.c: another device writes the answer */
  N_("The answer is being written on another device (“%s”); a message can be sent here once it has ended"),
  N_("The answer is being written on another device (“%s”); the conversation can be renamed here once it has ended"),
  N_("The answer is being written on another device (“%s”); the messages waiting behind it are sent or changed "
     "there until it ends"),
  N_("Turn %s runs on another device (“%s”)"),
  /* The most general last: it would match the others. ("%s returned
   * %s%s" with the status "HTTP …" as the second part.) */
  N_("%s returned HTTP %s"),
};

/* At most this many sentences inside one another: a reason in a reason. */
#define MAX_NESTING 3

/**
 * natter_error_reason:
 * @error: a failure of GLib, GIO or TLS (spawning a program, reaching a
 *   server)
 *
 * Why @error happened, in Natter's own untranslated words (one of the
 * sentences natter_error_words_translate() knows), for a message that is
 * stored or sent (module comment). GLib's own message is in the language
 * of the process it happened in (a running window's, for a forwarded
 * command), and g_strerror() keeps its first translation for the whole
 * process; it is used only for a failure without words of Natter's.
 *
 * Returns: (transfer full): the reason, lower case, no final stop
 */
char *
natter_error_reason (const GError *error)
{
  const char *words = NULL;

  g_return_val_if_fail (error != NULL, NULL);

  if (error->domain == G_SPAWN_ERROR)
    switch (error->code)
      {
      case G_SPAWN_ERROR_NOENT: words = "there is no such program"; break;
      case G_SPAWN_ERROR_ACCES:
      case G_SPAWN_ERROR_PERM: words = "permission to run the program was denied"; break;
      case G_SPAWN_ERROR_NOEXEC:
      case G_SPAWN_ERROR_LIBBAD: words = "the file is not a program that can be run"; break;
      case G_SPAWN_ERROR_ISDIR: words = "the program is a folder"; break;
      case G_SPAWN_ERROR_CHDIR: words = "the program’s working folder cannot be entered"; break;
      default: break;
      }
  else if (error->domain == G_RESOLVER_ERROR)
    words = "the host name was not found";
  else if (error->domain == G_IO_ERROR)
    switch (error->code)
      {
      case G_IO_ERROR_CONNECTION_REFUSED: words = "the connection was refused"; break;
      case G_IO_ERROR_HOST_NOT_FOUND: words = "the host name was not found"; break;
      case G_IO_ERROR_TIMED_OUT: words = "the connection timed out"; break;
      case G_IO_ERROR_NETWORK_UNREACHABLE: words = "the network cannot be reached"; break;
      case G_IO_ERROR_HOST_UNREACHABLE: words = "the host cannot be reached"; break;
      case G_IO_ERROR_CONNECTION_CLOSED: words = "the connection was closed"; break;
      default: break;
      }
  else if (error->domain == G_TLS_ERROR)
    switch (error->code)
      {
      case G_TLS_ERROR_BAD_CERTIFICATE: words = "the server’s certificate is not trusted"; break;
      case G_TLS_ERROR_NOT_TLS: words = "the server does not speak TLS"; break;
      default: words = "the secure connection could not be set up"; break;
      }
  return g_strdup (words != NULL ? words : error->message);
}

/* Each sentence as a pattern matching the messages made from it, its
 * arguments captured in order. */
static GRegex **
patterns (void)
{
  static gsize made = 0;
  static GRegex **compiled = NULL;

  if (g_once_init_enter (&made))
    {
      GRegex **list = g_new0 (GRegex *, G_N_ELEMENTS (sentences));

      for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
        {
          g_autoptr(GString) pattern = g_string_new ("\\A");
          const char *literal = sentences[i];

          for (const char *p = sentences[i]; ; p++)
            {
              gboolean conversion = p[0] == '%' && p[1] != '\0' && strchr ("sud", p[1]) != NULL;
              char *escaped;

              if (!conversion && p[0] != '\0')
                continue;
              escaped = g_regex_escape_string (literal, (gint) (p - literal));
              g_string_append (pattern, escaped);
              g_free (escaped);
              if (p[0] == '\0')
                break;
              g_string_append (pattern, p[1] == 's' ? "(.*?)" : "(-?[0-9]+)");
              p++;
              literal = p + 1;
            }
          g_string_append (pattern, "\\z");
          list[i] = g_regex_new (pattern->str, G_REGEX_DOTALL | G_REGEX_OPTIMIZE, 0, NULL);
          g_assert (list[i] != NULL);
        }
      compiled = list;
      g_once_init_leave (&made, 1);
    }
  return compiled;
}

static char *translate_nested (const char *message, NatterTranslateFunc translate, gpointer user_data, guint depth);

/* @format (a translation) with its conversions replaced by @parts, in
 * order or as numbered (`%2$s`); NULL when it asks for a part there is
 * not. */
static char *
fill_in (const char  *format,
         GPtrArray   *parts)
{
  g_autoptr(GString) out = g_string_new (NULL);
  guint next = 0;

  for (const char *p = format; *p != '\0'; p++)
    {
      guint index;

      if (p[0] != '%')
        {
          g_string_append_c (out, *p);
          continue;
        }
      if (p[1] == '%')
        {
          g_string_append_c (out, '%');
          p++;
          continue;
        }
      index = next++;
      if (g_ascii_isdigit (p[1]) && p[2] == '$')
        {
          index = (guint) (p[1] - '1');
          p += 2;
        }
      if (p[1] == '\0' || strchr ("sud", p[1]) == NULL || index >= parts->len)
        return NULL;
      g_string_append (out, g_ptr_array_index (parts, index));
      p++;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static char *
translate_nested (const char          *message,
                  NatterTranslateFunc  translate,
                  gpointer             user_data,
                  guint                depth)
{
  GRegex **list = patterns ();

  for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
    {
      g_autoptr(GMatchInfo) match = NULL;
      g_autoptr(GPtrArray) parts = NULL;
      const char *translated;
      char *filled;

      if (!g_regex_match (list[i], message, 0, &match))
        continue;
      translated = translate (sentences[i], user_data);
      if (translated == sentences[i])
        return g_strdup (message);
      parts = g_ptr_array_new_with_free_func (g_free);
      for (int group = 1; group < g_match_info_get_match_count (match); group++)
        {
          g_autofree char *part = g_match_info_fetch (match, group);

          /* A part may be a sentence too: a reason, a server's failure. */
          g_ptr_array_add (parts, depth < MAX_NESTING && part[0] != '\0'
                                  ? translate_nested (part, translate, user_data, depth + 1)
                                  : g_steal_pointer (&part));
        }
      filled = fill_in (translated, parts);
      return filled != NULL ? filled : g_strdup (message);
    }
  return g_strdup (message);
}

/**
 * natter_error_words_translate:
 * @message: (nullable): a failure's message, as stored or as an error
 *   said it
 * @translate: looks a sentence up in the reader's language
 * @user_data: for @translate
 *
 * @message in the reader's language, when it is one of the sentences a
 * provider or a tool server writes (module comment); its parts are put
 * back as they were, those that are sentences themselves translated in
 * turn. Any other message is returned as it is.
 *
 * Returns: (transfer full) (nullable): the message to show; %NULL for
 *   none
 */
char *
natter_error_words_translate (const char          *message,
                              NatterTranslateFunc  translate,
                              gpointer             user_data)
{
  g_return_val_if_fail (translate != NULL, NULL);

  if (message == NULL)
    return NULL;
  return translate_nested (message, translate, user_data, 0);
}

static const char *
translate_here (const char *msgid,
                gpointer    user_data)
{
  return g_dgettext (GETTEXT_PACKAGE, msgid);
}

/**
 * natter_error_words_local:
 * @message: (nullable): a failure's message, as stored or as an error
 *   said it
 *
 * natter_error_words_translate() in this process's own language: the
 * window's, for what it shows.
 *
 * Returns: (transfer full) (nullable): the message to show; %NULL for
 *   none
 */
char *
natter_error_words_local (const char *message)
{
  return natter_error_words_translate (message, translate_here, NULL);
}
