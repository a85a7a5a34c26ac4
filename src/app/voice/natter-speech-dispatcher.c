/* natter-speech-dispatcher.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech Dispatcher through libspeechd. The connection is opened on the
 * first text spoken, not at start: most sessions never read aloud, and
 * opening it may start the service (autospawn). libspeechd tells the end
 * of a message on its own thread, with no user data but the message's
 * id, so a table of messages by id takes the news to the speaker that
 * said it, on the main context it spoke from. Built without
 * libspeechd, every text is refused with the same plain error as when
 * the service cannot be reached.
 */

#define G_LOG_DOMAIN "natter-speech"

#include "config.h"

#include <glib/gi18n.h>

#ifdef HAVE_SPEECHD
#include <libspeechd.h>
#endif

#include "natter-speech-dispatcher.h"
#include "natter-voice-error.h"

struct _NatterSpeechDispatcher
{
  NatterSpeech parent_instance;

  int          message_id;   /* the message being spoken, or -1 */
};

G_DEFINE_FINAL_TYPE (NatterSpeechDispatcher, natter_speech_dispatcher, NATTER_TYPE_SPEECH)

#ifdef HAVE_SPEECHD

/* One connection for the process, opened on the first text and never
 * closed: spd_close() of a threaded connection cancels libspeechd's event
 * thread, which may hold its stream's lock at that moment, and then
 * waits on that lock for good. Every speaker shares it; the end of each
 * message is taken to the speaker that said it by the message's id. */
static GMutex speech_lock;
static SPDConnection *connection;
static GHashTable *messages;   /* message id → Ended (its speaker) */
static GHashTable *early_ends; /* ids whose end came before spd_say() returned */

typedef struct
{
  GWeakRef      speaker;
  GMainContext *context;
  int           message_id;
} Ended;

static void
ended_free (gpointer data)
{
  Ended *ended = data;

  g_weak_ref_clear (&ended->speaker);
  g_main_context_unref (ended->context);
  g_free (ended);
}

static gboolean
ended_cb (gpointer data)
{
  Ended *ended = data;
  g_autoptr(NatterSpeechDispatcher) self = g_weak_ref_get (&ended->speaker);

  /* A message stopped to make way for the next one ends late: only the
   * end of the one being spoken counts. */
  if (self != NULL && self->message_id == ended->message_id)
    {
      self->message_id = -1;
      natter_speech_finished (NATTER_SPEECH (self));
    }
  return G_SOURCE_REMOVE;
}

/* Takes @ended to its speaker's thread, always later: an end known
 * while spd_say() was still on its way comes back inside the speak call,
 * before natter_speech_speak() has recorded what is spoken, and reported
 * then (g_main_context_invoke() runs at once on the owner's thread) it
 * would be forgotten, leaving the text "speaking" for good. */
static void
ended_dispatch (Ended *ended)
{
  g_autoptr(GSource) source = g_idle_source_new ();

  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, ended_cb, ended, ended_free);
  g_source_set_static_name (source, "[natter] speech ended");
  g_source_attach (source, ended->context);
}

/* On libspeechd's thread. */
static void
message_ended_cb (size_t              msg_id,
                  size_t              client_id,
                  SPDNotificationType state)
{
  Ended *ended;

  g_mutex_lock (&speech_lock);
  ended = messages != NULL ? g_hash_table_lookup (messages, GSIZE_TO_POINTER (msg_id)) : NULL;
  if (ended != NULL)
    g_hash_table_steal (messages, GSIZE_TO_POINTER (msg_id));
  else if (early_ends != NULL)
    g_hash_table_add (early_ends, GSIZE_TO_POINTER (msg_id));
  g_mutex_unlock (&speech_lock);
  if (ended != NULL)
    ended_dispatch (ended);
}

/* The process's connection, opened the first time; NULL when the
 * service cannot be reached (asked again next time). Under speech_lock. */
static SPDConnection *
ensure_connection (GError **error)
{
  char *reason = NULL;

  if (connection != NULL)
    return connection;
  connection = spd_open2 ("natter", "main", NULL, SPD_MODE_THREADED, NULL, TRUE, &reason);
  if (connection == NULL)
    {
      g_debug ("Speech Dispatcher: %s", reason != NULL ? reason : "no reason given");
      free (reason);
      g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                           _("Cannot read aloud: the speech service (Speech Dispatcher) is not running "
                             "or not installed"));
      return NULL;
    }
  messages = g_hash_table_new_full (NULL, NULL, NULL, ended_free);
  early_ends = g_hash_table_new (NULL, NULL);
  connection->callback_end = message_ended_cb;
  connection->callback_cancel = message_ended_cb;
  spd_set_notification_on (connection, SPD_END);
  spd_set_notification_on (connection, SPD_CANCEL);
  return connection;
}

static gboolean
natter_speech_dispatcher_speak (NatterSpeech  *speech,
                                const char    *text,
                                GError       **error)
{
  NatterSpeechDispatcher *self = NATTER_SPEECH_DISPATCHER (speech);
  SPDConnection *open;
  Ended *ended;
  int id;

  g_mutex_lock (&speech_lock);
  open = ensure_connection (error);
  g_mutex_unlock (&speech_lock);
  if (open == NULL)
    return FALSE;
  /* Not under the lock: libspeechd's thread reads spd_say()'s reply, and
   * may be waiting for the lock with the end of an earlier message. An
   * end that comes before the id is known is kept in early_ends. */
  id = spd_say (open, SPD_TEXT, text);
  if (id < 0)
    {
      g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                           _("Cannot read aloud: the speech service (Speech Dispatcher) refused the text"));
      return FALSE;
    }
  ended = g_new0 (Ended, 1);
  g_weak_ref_init (&ended->speaker, self);
  ended->context = g_main_context_ref_thread_default ();
  ended->message_id = id;
  self->message_id = id;
  g_mutex_lock (&speech_lock);
  if (g_hash_table_remove (early_ends, GINT_TO_POINTER (id)))
    ended_dispatch (ended);
  else
    g_hash_table_replace (messages, GINT_TO_POINTER (id), ended);
  g_mutex_unlock (&speech_lock);
  return TRUE;
}

static void
natter_speech_dispatcher_stop (NatterSpeech *speech)
{
  NatterSpeechDispatcher *self = NATTER_SPEECH_DISPATCHER (speech);
  SPDConnection *open;

  self->message_id = -1;
  g_mutex_lock (&speech_lock);
  open = connection;
  g_mutex_unlock (&speech_lock);
  /* Not under the lock either, as for spd_say(). */
  if (open != NULL)
    spd_cancel (open);
}

#else

static gboolean
natter_speech_dispatcher_speak (NatterSpeech  *speech,
                                const char    *text,
                                GError       **error)
{
  g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                       _("Cannot read aloud: this Natter was built without the speech service "
                         "(Speech Dispatcher)"));
  return FALSE;
}

static void
natter_speech_dispatcher_stop (NatterSpeech *speech)
{
}

#endif

static void
natter_speech_dispatcher_dispose (GObject *object)
{
  NatterSpeech *speech = NATTER_SPEECH (object);

  natter_speech_stop (speech);

  G_OBJECT_CLASS (natter_speech_dispatcher_parent_class)->dispose (object);
}

static void
natter_speech_dispatcher_class_init (NatterSpeechDispatcherClass *klass)
{
  NatterSpeechClass *speech_class = NATTER_SPEECH_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = natter_speech_dispatcher_dispose;
  speech_class->speak = natter_speech_dispatcher_speak;
  speech_class->stop = natter_speech_dispatcher_stop;
}

static void
natter_speech_dispatcher_init (NatterSpeechDispatcher *self)
{
  self->message_id = -1;
}

/**
 * natter_speech_dispatcher_new:
 *
 * Creates a speaker for Speech Dispatcher; the connection is opened on
 * the first natter_speech_speak(), which fails with
 * %NATTER_VOICE_ERROR_NO_SPEECH_SERVICE when the service cannot be
 * reached (or Natter was built without libspeechd).
 *
 * Returns: (transfer full): the speaker
 */
NatterSpeech *
natter_speech_dispatcher_new (void)
{
  return g_object_new (NATTER_TYPE_SPEECH_DISPATCHER, NULL);
}
