/* natter-recorder.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GStreamer pipeline from a source to an appsink, converted on the way
 * to what transcription servers take (16 kHz, mono, signed 16-bit):
 *
 *   SOURCE ! audioconvert ! audioresample ! audio/x-raw,… ! level ! appsink
 *
 * The source is PipeWire's (pipewiresrc) where its plugin is installed,
 * else whatever autoaudiosrc finds; in the Flatpak, autoaudiosrc, which
 * reaches the microphone through the PulseAudio socket the sandbox is
 * given (PipeWire's own socket is not in it). A test names a WAV file in
 * %NATTER_RECORDING_SOURCE_ENV instead (filesrc ! wavparse). The samples
 * are gathered as they come and framed as a WAV file when the stream
 * ends: natter_recorder_stop() sends end-of-stream through the pipeline,
 * so the last samples are kept; a file source ends by itself.
 */

#define G_LOG_DOMAIN "natter-recorder"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#ifdef HAVE_GSTREAMER
#include <gst/gst.h>
#endif

#include "natter-recorder.h"
#include "natter-voice-error.h"

#define RATE 16000

struct _NatterRecorder
{
  GObject     parent_instance;

#ifdef HAVE_GSTREAMER
  GstElement *pipeline;
  guint       bus_watch;
#endif
  GTask      *task;       /* the recording under way */
  gulong      cancel_id;
  GMutex      lock;
  GByteArray *samples;    /* under lock: the appsink's thread adds */
  double      level;
};

G_DEFINE_FINAL_TYPE (NatterRecorder, natter_recorder, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_LEVEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/**
 * natter_wav_new_from_pcm:
 * @samples: (array length=n_bytes): 16 kHz mono signed 16-bit
 *   little-endian samples
 * @n_bytes: their size in bytes
 *
 * Returns: (transfer full): a whole WAV file holding @samples
 */
GBytes *
natter_wav_new_from_pcm (const guint8 *samples,
                         gsize         n_bytes)
{
  GByteArray *wav = g_byte_array_sized_new (44 + n_bytes);
  guint8 header[44];
  guint32 u32;
  guint16 u16;

  g_return_val_if_fail (n_bytes <= G_MAXUINT32 - 36, NULL);

  memcpy (header, "RIFF", 4);
  memcpy (header + 8, "WAVEfmt ", 8);
  memcpy (header + 36, "data", 4);
#define PUT32(offset, value) (u32 = GUINT32_TO_LE (value), memcpy (header + (offset), &u32, 4))
#define PUT16(offset, value) (u16 = GUINT16_TO_LE (value), memcpy (header + (offset), &u16, 2))
  PUT32 (4, 36 + (guint32) n_bytes);
  PUT32 (16, 16);           /* the size of the fmt chunk */
  PUT16 (20, 1);            /* PCM */
  PUT16 (22, 1);            /* mono */
  PUT32 (24, RATE);
  PUT32 (28, RATE * 2);     /* bytes per second */
  PUT16 (32, 2);            /* bytes per frame */
  PUT16 (34, 16);           /* bits per sample */
  PUT32 (40, (guint32) n_bytes);
#undef PUT32
#undef PUT16
  g_byte_array_append (wav, header, sizeof header);
  g_byte_array_append (wav, samples, n_bytes);
  return g_byte_array_free_to_bytes (wav);
}

static void
natter_recorder_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  switch (prop_id)
    {
    case PROP_LEVEL:
      g_value_set_double (value, NATTER_RECORDER (object)->level);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void teardown (NatterRecorder *self);

static void
natter_recorder_dispose (GObject *object)
{
  NatterRecorder *self = NATTER_RECORDER (object);

  teardown (self);
  G_OBJECT_CLASS (natter_recorder_parent_class)->dispose (object);
}

static void
natter_recorder_finalize (GObject *object)
{
  NatterRecorder *self = NATTER_RECORDER (object);

  g_mutex_clear (&self->lock);
  g_clear_pointer (&self->samples, g_byte_array_unref);
  G_OBJECT_CLASS (natter_recorder_parent_class)->finalize (object);
}

static void
natter_recorder_class_init (NatterRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = natter_recorder_get_property;
  object_class->dispose = natter_recorder_dispose;
  object_class->finalize = natter_recorder_finalize;

  /**
   * NatterRecorder:level:
   *
   * How loud the sound is now, from 0 (silence) to 1 (full scale), a
   * few times a second while recording.
   */
  properties[PROP_LEVEL] =
    g_param_spec_double ("level", NULL, NULL, 0.0, 1.0, 0.0,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
natter_recorder_init (NatterRecorder *self)
{
  g_mutex_init (&self->lock);
  self->samples = g_byte_array_new ();
}

/**
 * natter_recorder_new:
 *
 * Returns: (transfer full): a recorder, not recording
 */
NatterRecorder *
natter_recorder_new (void)
{
  return g_object_new (NATTER_TYPE_RECORDER, NULL);
}

/**
 * natter_recorder_get_level:
 * @self: a recorder
 *
 * Returns: #NatterRecorder:level
 */
double
natter_recorder_get_level (NatterRecorder *self)
{
  g_return_val_if_fail (NATTER_IS_RECORDER (self), 0.0);
  return self->level;
}

#ifdef HAVE_GSTREAMER

/* Ends the recording under way with @bytes or @error (taken). */
static void
settle (NatterRecorder *self,
        GBytes         *bytes,
        GError         *error)
{
  g_autoptr(GTask) task = NULL;

  if (self->cancel_id != 0)
    g_cancellable_disconnect (g_task_get_cancellable (self->task), self->cancel_id);
  self->cancel_id = 0;
  task = g_steal_pointer (&self->task);
  teardown (self);
  if (task == NULL)
    {
      g_clear_pointer (&bytes, g_bytes_unref);
      g_clear_error (&error);
      return;
    }
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, bytes, (GDestroyNotify) g_bytes_unref);
}

/**
 * natter_recorder_is_available:
 *
 * Returns: whether this Natter can record (it was built with GStreamer,
 *   and GStreamer starts)
 */
gboolean
natter_recorder_is_available (void)
{
  return gst_init_check (NULL, NULL, NULL);
}

static void
teardown (NatterRecorder *self)
{
  g_clear_handle_id (&self->bus_watch, g_source_remove);
  if (self->pipeline != NULL)
    {
      gst_element_set_state (self->pipeline, GST_STATE_NULL);
      g_clear_pointer (&self->pipeline, gst_object_unref);
    }
  if (self->level != 0.0)
    {
      self->level = 0.0;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEVEL]);
    }
}

/* On the streaming thread. */
static GstFlowReturn
new_sample_cb (GstElement     *sink,
               NatterRecorder *self)
{
  GstSample *sample = NULL;
  GstBuffer *buffer;
  GstMapInfo map;

  g_signal_emit_by_name (sink, "pull-sample", &sample);
  if (sample == NULL)
    return GST_FLOW_EOS;
  buffer = gst_sample_get_buffer (sample);
  if (buffer != NULL && gst_buffer_map (buffer, &map, GST_MAP_READ))
    {
      g_mutex_lock (&self->lock);
      g_byte_array_append (self->samples, map.data, map.size);
      g_mutex_unlock (&self->lock);
      gst_buffer_unmap (buffer, &map);
    }
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static void
finish_recording (NatterRecorder *self)
{
  g_autoptr(GByteArray) samples = NULL;

  g_mutex_lock (&self->lock);
  samples = g_steal_pointer (&self->samples);
  self->samples = g_byte_array_new ();
  g_mutex_unlock (&self->lock);
  if (samples->len == 0)
    {
      settle (self, NULL, g_error_new_literal (NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_SILENCE,
                                               _("Nothing was recorded")));
      return;
    }
  settle (self, natter_wav_new_from_pcm (samples->data, samples->len), NULL);
}

static gboolean
bus_cb (GstBus         *bus,
        GstMessage     *message,
        NatterRecorder *self)
{
  switch (GST_MESSAGE_TYPE (message))
    {
    case GST_MESSAGE_EOS:
      self->bus_watch = 0;
      finish_recording (self);
      return G_SOURCE_REMOVE;

    case GST_MESSAGE_ERROR:
      {
        g_autoptr(GError) gst_error = NULL;
        g_autofree char *debug = NULL;

        gst_message_parse_error (message, &gst_error, &debug);
        g_debug ("recording failed: %s (%s)", gst_error->message, debug != NULL ? debug : "");
        self->bus_watch = 0;
        settle (self, NULL,
                /* Translators: %s is GStreamer's reason */
                g_error_new (NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_RECORDING,
                             _("The recording stopped: %s"), gst_error->message));
        return G_SOURCE_REMOVE;
      }

    case GST_MESSAGE_ELEMENT:
      {
        const GstStructure *structure = gst_message_get_structure (message);
        const GValue *peaks;

        if (!gst_structure_has_name (structure, "level"))
          break;
        peaks = gst_structure_get_value (structure, "peak");
        /* level still posts a GValueArray, GLib's deprecated type. */
        G_GNUC_BEGIN_IGNORE_DEPRECATIONS
        if (peaks != NULL && G_VALUE_HOLDS_BOXED (peaks))
          {
            GValueArray *array = g_value_get_boxed (peaks);
            double db = array->n_values > 0 ? g_value_get_double (g_value_array_get_nth (array, 0)) : -100;

            /* dB of full scale to 0…1 over the 60 dB a voice spans. */
            self->level = CLAMP ((db + 60.0) / 60.0, 0.0, 1.0);
            g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LEVEL]);
          }
        G_GNUC_END_IGNORE_DEPRECATIONS
      }
      break;

    default:
      break;
    }
  return G_SOURCE_CONTINUE;
}

/* natter_recorder_stop() before anything came: the recording ends with
 * whatever came meanwhile, most likely nothing. */
static gboolean
stop_early_cb (gpointer data)
{
  NatterRecorder *self = data;

  if (self->task != NULL)
    finish_recording (self);
  return G_SOURCE_REMOVE;
}

static gboolean
cancel_idle_cb (gpointer data)
{
  NatterRecorder *self = data;

  if (self->task != NULL && g_cancellable_is_cancelled (g_task_get_cancellable (self->task)))
    settle (self, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The recording was cancelled")));
  return G_SOURCE_REMOVE;
}

/* Settles on the main context, outside the cancellable's handler (which
 * may not disconnect itself). */
static void
cancelled_cb (GCancellable   *cancellable,
              NatterRecorder *self)
{
  g_idle_add_full (G_PRIORITY_DEFAULT, cancel_idle_cb, g_object_ref (self), g_object_unref);
}

/* The source's description: the test's WAV file, PipeWire, or what
 * autoaudiosrc finds. */
static char *
source_description (void)
{
  const char *file = g_getenv (NATTER_RECORDING_SOURCE_ENV);
  g_autoptr(GstElementFactory) pipewire = NULL;

  if (file != NULL && file[0] != '\0')
    {
      g_autofree char *quoted = g_strescape (file, NULL);

      return g_strdup_printf ("filesrc location=\"%s\" ! wavparse", quoted);
    }
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    return g_strdup ("autoaudiosrc");
  pipewire = gst_element_factory_find ("pipewiresrc");
  return g_strdup (pipewire != NULL ? "pipewiresrc" : "autoaudiosrc");
}

#else

gboolean
natter_recorder_is_available (void)
{
  return FALSE;
}

static void
teardown (NatterRecorder *self)
{
}

#endif

/**
 * natter_recorder_record_async:
 * @self: a recorder, not recording
 * @cancellable: (nullable): cancels the recording; what was recorded is
 *   dropped
 * @callback: called with the recording once it ended
 * @user_data: data for @callback
 *
 * Starts recording from the microphone (or the file named by
 * %NATTER_RECORDING_SOURCE_ENV) until natter_recorder_stop(), the end of
 * the file, or a failure.
 */
void
natter_recorder_record_async (NatterRecorder      *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
#ifdef HAVE_GSTREAMER
  g_autoptr(GError) error = NULL;
  g_autofree char *source = NULL;
  g_autofree char *description = NULL;
  GstElement *sink;
  g_autoptr(GstBus) bus = NULL;
#endif

  g_return_if_fail (NATTER_IS_RECORDER (self));
  g_return_if_fail (self->task == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, natter_recorder_record_async);

#ifdef HAVE_GSTREAMER
  if (!gst_init_check (NULL, NULL, &error))
    {
      g_task_return_new_error (task, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_MICROPHONE,
                               _("Cannot record: %s"), error->message);
      return;
    }
  source = source_description ();
  description = g_strdup_printf ("%s ! audioconvert ! audioresample ! "
                                 "audio/x-raw,format=S16LE,rate=%d,channels=1,layout=interleaved ! "
                                 "level interval=100000000 post-messages=true ! "
                                 "appsink name=sink sync=false emit-signals=true",
                                 source, RATE);
  self->pipeline = gst_parse_launch (description, &error);
  if (self->pipeline == NULL || error != NULL)
    {
      g_debug ("no pipeline “%s”: %s", description, error != NULL ? error->message : "");
      g_clear_pointer (&self->pipeline, gst_object_unref);
      g_task_return_new_error (task, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_MICROPHONE, "%s",
                               _("Cannot record: the sound system’s recording parts (GStreamer plugins) "
                                 "are missing"));
      return;
    }
  sink = gst_bin_get_by_name (GST_BIN (self->pipeline), "sink");
  g_signal_connect (sink, "new-sample", G_CALLBACK (new_sample_cb), self);
  gst_object_unref (sink);
  bus = gst_element_get_bus (self->pipeline);
  self->bus_watch = gst_bus_add_watch (bus, (GstBusFunc) bus_cb, self);
  self->task = g_steal_pointer (&task);
  if (cancellable != NULL)
    self->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (cancelled_cb), self, NULL);
  if (gst_element_set_state (self->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    {
      settle (self, NULL, g_error_new_literal (NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_MICROPHONE,
                                               _("Cannot record: no microphone could be opened")));
      return;
    }
#else
  g_task_return_new_error (task, NATTER_VOICE_ERROR, NATTER_VOICE_ERROR_NO_MICROPHONE, "%s",
                           _("Cannot record: this Natter was built without GStreamer"));
#endif
}

/**
 * natter_recorder_stop:
 * @self: a recorder
 *
 * Ends the recording under way; it settles with what was recorded once
 * the last samples went through (stopped before the first came, at once,
 * with %NATTER_VOICE_ERROR_SILENCE unless some came meanwhile). Nothing
 * happens when nothing is recorded.
 */
void
natter_recorder_stop (NatterRecorder *self)
{
#ifdef HAVE_GSTREAMER
  gboolean empty;
#endif

  g_return_if_fail (NATTER_IS_RECORDER (self));

#ifdef HAVE_GSTREAMER
  if (self->pipeline == NULL)
    return;
  g_mutex_lock (&self->lock);
  empty = self->samples->len == 0;
  g_mutex_unlock (&self->lock);
  /* Before the first samples the pipeline may not know their rate yet,
   * and an end of stream then makes the level meter divide by it (a
   * critical). There is nothing to wait for: it ends with what came. */
  if (empty)
    g_idle_add_full (G_PRIORITY_DEFAULT, stop_early_cb, g_object_ref (self), g_object_unref);
  else
    gst_element_send_event (self->pipeline, gst_event_new_eos ());
#endif
}

/**
 * natter_recorder_record_finish:
 * @self: a recorder
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the recording, a whole WAV file
 *   of 16 kHz mono 16-bit PCM; or %NULL with
 *   %NATTER_VOICE_ERROR_NO_MICROPHONE (nothing to record from, or built
 *   without GStreamer), %NATTER_VOICE_ERROR_RECORDING (it failed while
 *   running), %NATTER_VOICE_ERROR_SILENCE (nothing came), or
 *   %G_IO_ERROR_CANCELLED
 */
GBytes *
natter_recorder_record_finish (NatterRecorder  *self,
                               GAsyncResult    *result,
                               GError         **error)
{
  g_return_val_if_fail (NATTER_IS_RECORDER (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
