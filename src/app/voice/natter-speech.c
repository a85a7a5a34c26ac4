/* natter-speech.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every speaker shares: which text is being spoken (its owner, an
 * answer's turn id, so that the window can offer Stop on that answer),
 * and the plain words an answer is read as.
 */

#define G_LOG_DOMAIN "natter-speech"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "natter-speech.h"

typedef struct
{
  char *speaking;   /* the owner of what is spoken, or NULL */
} NatterSpeechPrivate;

G_DEFINE_TYPE_WITH_PRIVATE (NatterSpeech, natter_speech, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SPEAKING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
natter_speech_finalize (GObject *object)
{
  NatterSpeechPrivate *priv = natter_speech_get_instance_private (NATTER_SPEECH (object));

  g_free (priv->speaking);

  G_OBJECT_CLASS (natter_speech_parent_class)->finalize (object);
}

static void
natter_speech_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  NatterSpeech *self = NATTER_SPEECH (object);

  switch (prop_id)
    {
    case PROP_SPEAKING:
      g_value_set_string (value, natter_speech_get_speaking (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_speech_class_init (NatterSpeechClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_speech_finalize;
  object_class->get_property = natter_speech_get_property;

  /**
   * NatterSpeech:speaking: (nullable)
   *
   * The owner of the text being spoken (what natter_speech_speak() was
   * given), or %NULL when nothing is.
   */
  properties[PROP_SPEAKING] =
    g_param_spec_string ("speaking", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_speech_init (NatterSpeech *self)
{
}

static void
set_speaking (NatterSpeech *self,
              const char   *owner)
{
  NatterSpeechPrivate *priv = natter_speech_get_instance_private (self);

  if (g_strcmp0 (priv->speaking, owner) == 0)
    return;
  g_free (priv->speaking);
  priv->speaking = g_strdup (owner);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SPEAKING]);
}

/**
 * natter_speech_speak:
 * @self: a speaker
 * @text: the plain text to say (natter_speech_plain_text())
 * @owner: whose text it is, e.g. an answer's turn id
 * @error: return location for a #GError
 *
 * Stops what is spoken, then starts saying @text; #NatterSpeech:speaking
 * is @owner until it has been said or stopped.
 *
 * Returns: %TRUE when speaking started; %FALSE with
 *   %NATTER_VOICE_ERROR_NO_SPEECH_SERVICE when the speech service cannot
 *   be reached
 */
gboolean
natter_speech_speak (NatterSpeech  *self,
                     const char    *text,
                     const char    *owner,
                     GError       **error)
{
  g_return_val_if_fail (NATTER_IS_SPEECH (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (owner != NULL, FALSE);

  natter_speech_stop (self);
  if (!NATTER_SPEECH_GET_CLASS (self)->speak (self, text, error))
    return FALSE;
  set_speaking (self, owner);
  return TRUE;
}

/**
 * natter_speech_stop:
 * @self: a speaker
 *
 * Stops speaking at once; nothing happens when nothing is spoken.
 */
void
natter_speech_stop (NatterSpeech *self)
{
  g_return_if_fail (NATTER_IS_SPEECH (self));

  if (natter_speech_get_speaking (self) == NULL)
    return;
  NATTER_SPEECH_GET_CLASS (self)->stop (self);
  set_speaking (self, NULL);
}

/**
 * natter_speech_get_speaking:
 * @self: a speaker
 *
 * Returns: (transfer none) (nullable): #NatterSpeech:speaking
 */
const char *
natter_speech_get_speaking (NatterSpeech *self)
{
  NatterSpeechPrivate *priv;

  g_return_val_if_fail (NATTER_IS_SPEECH (self), NULL);

  priv = natter_speech_get_instance_private (self);
  return priv->speaking;
}

/**
 * natter_speech_finished:
 * @self: a speaker
 *
 * For subclasses: the text has been said (or the service stopped it),
 * on the main context.
 */
void
natter_speech_finished (NatterSpeech *self)
{
  g_return_if_fail (NATTER_IS_SPEECH (self));

  set_speaking (self, NULL);
}

/* Whether @line opens or closes a fenced code block; its info string
 * (the language) goes to @language. */
static gboolean
is_fence (const char  *line,
          char       **language)
{
  const char *p = line;

  while (*p == ' ')
    p++;
  if (p - line > 3 || (strncmp (p, "```", 3) != 0 && strncmp (p, "~~~", 3) != 0))
    return FALSE;
  p += 3;
  while (*p == '`' || *p == '~')
    p++;
  if (language != NULL)
    *language = g_strstrip (g_strdup (p));
  return TRUE;
}

/* One line of Markdown as words: no heading marks, list marks, quote
 * marks, emphasis, inline code ticks, or link targets. */
static void
append_plain_line (GString    *out,
                   const char *line)
{
  const char *p = line;

  while (*p == ' ' || *p == '\t')
    p++;
  while (*p == '#' || *p == '>')
    p++;
  if ((p[0] == '-' || p[0] == '*' || p[0] == '+') && p[1] == ' ')
    p += 2;
  while (*p == ' ')
    p++;
  for (; *p != '\0'; p++)
    {
      if (*p == '*' || *p == '_' || *p == '`' || *p == '~')
        continue;
      if (*p == '!' && p[1] == '[')
        continue;
      if (*p == '[')
        continue;
      if (*p == ']' && p[1] == '(')
        {
          const char *close = strchr (p, ')');

          if (close != NULL)
            {
              p = close;
              continue;
            }
        }
      g_string_append_c (out, *p);
    }
}

/**
 * natter_speech_plain_text:
 * @markdown: an answer as the model wrote it
 *
 * The words of @markdown as a listener should hear them: Markdown's
 * marks left out, and each code block named ("Code block in Python.")
 * instead of read out symbol by symbol.
 *
 * Returns: (transfer full): the plain text
 */
char *
natter_speech_plain_text (const char *markdown)
{
  g_auto(GStrv) lines = NULL;
  GString *out = g_string_new (NULL);
  gboolean in_code = FALSE;

  g_return_val_if_fail (markdown != NULL, NULL);

  lines = g_strsplit (markdown, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *language = NULL;

      if (is_fence (lines[i], &language))
        {
          if (!in_code)
            {
              if (out->len > 0 && out->str[out->len - 1] != '\n')
                g_string_append_c (out, '\n');
              if (language[0] != '\0')
                /* Translators: read aloud instead of a code block; %s is its language */
                g_string_append_printf (out, _("Code block in %s."), language);
              else
                g_string_append (out, _("Code block."));
              g_string_append_c (out, '\n');
            }
          in_code = !in_code;
          continue;
        }
      if (in_code)
        continue;
      append_plain_line (out, lines[i]);
      g_string_append_c (out, '\n');
    }
  return g_strstrip (g_string_free (out, FALSE));
}
