/* natter-speech-dispatcher.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Speech Dispatcher through libspeechd. The connection is opened on the
 * first text spoken, not at start: most sessions never read aloud, and
 * opening it may start the service (autospawn). libspeechd tells the end
 * of a message on its own thread, with no user data but the client's
 * id, so a table of live speakers by client id takes the news to the
 * right one, on the main context it was made on. Built without
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
  NatterSpeech   parent_instance;

#ifdef HAVE_SPEECHD
  SPDConnection *connection;
  int            client_id;
  int            message_id;   /* the message being spoken, or -1 */
  GMainContext  *context;
#endif
};

G_DEFINE_FINAL_TYPE (NatterSpeechDispatcher, natter_speech_dispatcher, NATTER_TYPE_SPEECH)

#ifdef HAVE_SPEECHD

/* client id → GWeakRef of the speaker, for libspeechd's thread. */
static GMutex speakers_lock;
static GHashTable *speakers;

typedef struct
{
  GWeakRef speaker;
  int      message_id;
} Ended;

static void
ended_free (gpointer data)
{
  Ended *ended = data;

  g_weak_ref_clear (&ended->speaker);
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

/* On libspeechd's thread. */
static void
message_ended_cb (size_t              msg_id,
                  size_t              client_id,
                  SPDNotificationType state)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&speakers_lock);
  NatterSpeechDispatcher *self;
  Ended *ended;
  GWeakRef *ref;

  ref = speakers != NULL ? g_hash_table_lookup (speakers, GSIZE_TO_POINTER (client_id)) : NULL;
  self = ref != NULL ? g_weak_ref_get (ref) : NULL;
  if (self == NULL)
    return;
  ended = g_new0 (Ended, 1);
  g_weak_ref_init (&ended->speaker, self);
  ended->message_id = (int) msg_id;
  g_main_context_invoke_full (self->context, G_PRIORITY_DEFAULT, ended_cb, ended, ended_free);
  g_object_unref (self);
}

static void
weak_ref_free (gpointer data)
{
  g_weak_ref_clear (data);
  g_free (data);
}

static gboolean
ensure_connection (NatterSpeechDispatcher  *self,
                   GError                 **error)
{
  char *reason = NULL;
  GWeakRef *ref;

  if (self->connection != NULL)
    return TRUE;
  self->connection = spd_open2 ("natter", "main", NULL, SPD_MODE_THREADED, NULL, TRUE, &reason);
  if (self->connection == NULL)
    {
      g_debug ("Speech Dispatcher: %s", reason != NULL ? reason : "no reason given");
      free (reason);
      g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                           _("Cannot read aloud: the speech service (Speech Dispatcher) is not running "
                             "or not installed"));
      return FALSE;
    }
  self->client_id = spd_get_client_id (self->connection);
  ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (ref, self);
  g_mutex_lock (&speakers_lock);
  if (speakers == NULL)
    speakers = g_hash_table_new_full (NULL, NULL, NULL, weak_ref_free);
  g_hash_table_replace (speakers, GINT_TO_POINTER (self->client_id), ref);
  g_mutex_unlock (&speakers_lock);
  self->connection->callback_end = message_ended_cb;
  self->connection->callback_cancel = message_ended_cb;
  spd_set_notification_on (self->connection, SPD_END);
  spd_set_notification_on (self->connection, SPD_CANCEL);
  return TRUE;
}

static gboolean
natter_speech_dispatcher_speak (NatterSpeech  *speech,
                                const char    *text,
                                GError       **error)
{
  NatterSpeechDispatcher *self = NATTER_SPEECH_DISPATCHER (speech);
  int id;

  if (!ensure_connection (self, error))
    return FALSE;
  id = spd_say (self->connection, SPD_TEXT, text);
  if (id < 0)
    {
      g_set_error_literal (error, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_SPEECH_SERVICE,
                           _("Cannot read aloud: the speech service (Speech Dispatcher) refused the text"));
      return FALSE;
    }
  self->message_id = id;
  return TRUE;
}

static void
natter_speech_dispatcher_stop (NatterSpeech *speech)
{
  NatterSpeechDispatcher *self = NATTER_SPEECH_DISPATCHER (speech);

  self->message_id = -1;
  if (self->connection != NULL)
    spd_cancel (self->connection);
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
#ifdef HAVE_SPEECHD
  NatterSpeechDispatcher *self = NATTER_SPEECH_DISPATCHER (object);

  if (self->connection != NULL)
    {
      g_mutex_lock (&speakers_lock);
      g_hash_table_remove (speakers, GINT_TO_POINTER (self->client_id));
      g_mutex_unlock (&speakers_lock);
      spd_cancel (self->connection);
      spd_close (self->connection);
      self->connection = NULL;
    }
  g_clear_pointer (&self->context, g_main_context_unref);
#endif

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
#ifdef HAVE_SPEECHD
  self->message_id = -1;
  self->context = g_main_context_ref_thread_default ();
#endif
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
