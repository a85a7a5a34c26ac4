/* natter-cli-locale.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The language of a command's output: the caller's. A `natter` command
 * forwarded to the running window (architecture.md, "Process and data")
 * runs in the window's process, whose locale is the desktop's; a script
 * that ran it under LC_ALL=C must still read "connected", not the
 * window's "verbunden". GApplication sends the caller's environment with
 * the command line, so each command line gets the locale its own process
 * would have had, and the command's texts are looked up in it
 * (uselocale(), per thread, around each lookup only, so the window's own
 * texts stay in the window's language).
 *
 * gettext also reads LANGUAGE, from the process's environment only: the
 * caller's LANGUAGE decides whether the output is translated at all, but
 * which translation a translated output gets follows the caller's locale
 * and, where the window has one, the window's LANGUAGE.
 */

#define G_LOG_DOMAIN "natter-cli"

#include "config.h"

#include <libintl.h>
#include <locale.h>
#include <string.h>

#include "natter-cli-locale.h"
#include "natter-error-words.h"

#define LOCALE_KEY "natter-cli-locale"

typedef struct
{
  locale_t locale;  /* (locale_t) 0: the process's own */
} CallerLocale;

static void
caller_locale_free (CallerLocale *caller)
{
  if (caller->locale != (locale_t) 0)
    freelocale (caller->locale);
  g_free (caller);
}

/* gettext translates nothing in these. */
static gboolean
is_c_locale (const char *name)
{
  return g_str_equal (name, "C") || g_str_equal (name, "POSIX");
}

/* The language the messages are written in, or no language at all. */
static gboolean
is_untranslated (const char *language)
{
  return is_c_locale (language) || g_str_has_prefix (language, "C.") ||
         (g_str_has_prefix (language, "en") && (language[2] == '\0' || strchr ("_.@", language[2]) != NULL));
}

/* The locale the caller's process would have translated in: LC_ALL,
 * LC_MESSAGES, LANG, in gettext's order. One it does not translate in
 * (C, POSIX, English, or none installed here) is the C locale. */
static locale_t
caller_locale_new (GApplicationCommandLine *cmdline)
{
  static const char * const variables[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
  const char *name = "C";
  const char *language;
  g_autofree char *first = NULL;
  locale_t locale;

  for (guint i = 0; i < G_N_ELEMENTS (variables); i++)
    {
      const char *value = g_application_command_line_getenv (cmdline, variables[i]);

      if (value != NULL && value[0] != '\0')
        {
          name = value;
          break;
        }
    }
  language = g_application_command_line_getenv (cmdline, "LANGUAGE");
  if (!is_c_locale (name) && language != NULL && language[0] != '\0')
    first = g_strndup (language, strcspn (language, ":"));
  else
    first = g_strdup (name);

  if (is_c_locale (name) || is_untranslated (first))
    return newlocale (LC_MESSAGES_MASK, "C", (locale_t) 0);
  locale = newlocale (LC_MESSAGES_MASK, name, (locale_t) 0);
  if (locale == (locale_t) 0)
    {
      g_debug ("The caller's locale %s is not installed here: its output stays untranslated", name);
      locale = newlocale (LC_MESSAGES_MASK, "C", (locale_t) 0);
    }
  return locale;
}

static locale_t
cmdline_locale (GApplicationCommandLine *cmdline)
{
  CallerLocale *caller;

  /* A local command line is this process's own caller. */
  if (cmdline == NULL || !g_application_command_line_get_is_remote (cmdline))
    return (locale_t) 0;
  caller = g_object_get_data (G_OBJECT (cmdline), LOCALE_KEY);
  if (caller == NULL)
    {
      caller = g_new0 (CallerLocale, 1);
      caller->locale = caller_locale_new (cmdline);
      g_object_set_data_full (G_OBJECT (cmdline), LOCALE_KEY, caller, (GDestroyNotify) caller_locale_free);
    }
  return caller->locale;
}

/**
 * natter_cli_locale_enter:
 * @cmdline: (nullable): the command line being answered
 *
 * Makes the calling thread translate in @cmdline's caller's locale, for
 * a synchronous call that translates inside a library (GOption's errors
 * and help). Leave it with natter_cli_locale_leave() before the main
 * loop runs again, so that nothing else is translated in it.
 *
 * Returns: (transfer none): what to give natter_cli_locale_leave()
 */
gpointer
natter_cli_locale_enter (GApplicationCommandLine *cmdline)
{
  locale_t locale = cmdline_locale (cmdline);

  return locale != (locale_t) 0 ? (gpointer) uselocale (locale) : NULL;
}

/**
 * natter_cli_locale_leave:
 * @previous: what natter_cli_locale_enter() returned
 *
 * Restores the thread's locale from before natter_cli_locale_enter().
 */
void
natter_cli_locale_leave (gpointer previous)
{
  if (previous != NULL)
    uselocale ((locale_t) previous);
}

/**
 * natter_cli_gettext:
 * @cmdline: (nullable): the command line being answered; %NULL for this
 *   process's own output
 * @msgid: a translatable text of the command line
 *
 * The translation of @msgid the caller of @cmdline reads: in the locale
 * its environment names, which may not be this process's (module
 * comment).
 *
 * Returns: (transfer none): the translation, or @msgid
 */
const char *
natter_cli_gettext (GApplicationCommandLine *cmdline,
                    const char              *msgid)
{
  gpointer previous = natter_cli_locale_enter (cmdline);
  const char *text = dgettext (GETTEXT_PACKAGE, msgid);

  natter_cli_locale_leave (previous);
  return text;
}

/**
 * natter_cli_ngettext:
 * @cmdline: (nullable): the command line being answered
 * @msgid: the singular
 * @msgid_plural: the plural
 * @n: the number that chooses
 *
 * natter_cli_gettext() for a text with a number.
 *
 * Returns: (transfer none): the translation, or @msgid or @msgid_plural
 */
const char *
natter_cli_ngettext (GApplicationCommandLine *cmdline,
                     const char              *msgid,
                     const char              *msgid_plural,
                     gulong                   n)
{
  gpointer previous = natter_cli_locale_enter (cmdline);
  const char *text = dngettext (GETTEXT_PACKAGE, msgid, msgid_plural, n);

  natter_cli_locale_leave (previous);
  return text;
}

static const char *
translate_for_caller (const char *msgid,
                      gpointer    user_data)
{
  return natter_cli_gettext (user_data, msgid);
}

/**
 * natter_cli_error_words:
 * @cmdline: (nullable): the command line being answered
 * @message: a failure of a provider or a tool server, as stored or as
 *   its error said it (in no one's language)
 *
 * @message in the words of @cmdline's caller (natter_error_words_translate()):
 * a forwarded command prints neither the window's language nor, for a
 * caller who reads German, English where Natter knows the German.
 *
 * Returns: (transfer full): the message to print
 */
char *
natter_cli_error_words (GApplicationCommandLine *cmdline,
                        const char              *message)
{
  return natter_error_words_translate (message, translate_for_caller, cmdline);
}
