/* natter-math-renderer.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * TeX formulas typeset by KaTeX in a WebKitGTK 6.0 view that is never
 * shown (docs/math.md §3). The typesetting runs in WebKit's web process,
 * never on our main thread: what the main thread does per batch is one
 * script call, one snapshot of the page and cutting it into one texture
 * per formula. Formulas are typeset a batch at a time and kept by their
 * TeX and style, so a streamed answer that rebuilds its last block on
 * every frame asks for each formula once.
 *
 * Without WebKitGTK or KaTeX at build time, the renderer is never
 * available and formulas show as their TeX source.
 */

#define G_LOG_DOMAIN "natter-math"

#include "config.h"

#include <adwaita.h>
#include <json-glib/json-glib.h>
#include <string.h>

#if NATTER_HAVE_MATH
#include <webkit/webkit.h>
#endif

#include "natter-math-renderer.h"

/* Formulas typeset by one script call and one snapshot: copying the
 * pixels out of the snapshot is main-thread work (about 2 ms for 8). */
#define MAX_BATCH 8
/* The cache starts again past this many formulas: an answer holds far
 * fewer, and a formula typesets in milliseconds. */
#define MAX_CACHED 1000
/* After this many crashes of the web process, formulas stay source. */
#define MAX_CRASHES 3

G_DEFINE_BOXED_TYPE (NatterMathImage, natter_math_image,
                     natter_math_image_ref, natter_math_image_unref)

static NatterMathImage *
math_image_new (void)
{
  return g_atomic_rc_box_new0 (NatterMathImage);
}

static void
math_image_clear (NatterMathImage *image)
{
  g_clear_object (&image->texture);
  g_clear_pointer (&image->surface, cairo_surface_destroy);
  g_clear_pointer (&image->error, g_free);
}

/**
 * natter_math_image_ref:
 * @image: a formula's image
 *
 * Returns: (transfer full): @image
 */
NatterMathImage *
natter_math_image_ref (NatterMathImage *image)
{
  return g_atomic_rc_box_acquire (image);
}

/**
 * natter_math_image_unref:
 * @image: (transfer full): a formula's image
 *
 * Drops a reference; the last one frees it.
 */
void
natter_math_image_unref (NatterMathImage *image)
{
  g_atomic_rc_box_release_full (image, (GDestroyNotify) math_image_clear);
}

typedef struct
{
  GWeakRef            owner;
  NatterMathReadyFunc ready;
  gpointer            user_data;
} Waiter;

typedef struct
{
  char            *key;
  char            *tex;
  NatterMathStyle  style;
  GPtrArray       *waiters;
} Job;

struct _NatterMathRenderer
{
  GObject     parent_instance;

  GHashTable *cache;    /* key → NatterMathImage */
  GHashTable *pending;  /* key → Job, queued or in flight */
  GQueue      queue;    /* Job not yet sent */
  GPtrArray  *batch;    /* Job in flight */
#if NATTER_HAVE_MATH
  WebKitWebView *view;
  gboolean       loaded;
  guint          crashes;
#endif
};

G_DEFINE_FINAL_TYPE (NatterMathRenderer, natter_math_renderer, G_TYPE_OBJECT)

static void
waiter_free (Waiter *waiter)
{
  g_weak_ref_clear (&waiter->owner);
  g_free (waiter);
}

static void
job_free (Job *job)
{
  g_free (job->key);
  g_free (job->tex);
  g_ptr_array_unref (job->waiters);
  g_free (job);
}

static char *
make_key (const char            *tex,
          const NatterMathStyle *style)
{
  return g_strdup_printf ("%c%c%d@%d:%s", style->display ? 'd' : 'i', style->dark ? 'D' : 'L',
                          (int) (style->font_px * 10 + 0.5), style->scale, tex);
}

/* Hands @image to everyone who waits for @job, and keeps it unless it
 * failed for a reason of ours rather than of the formula's. */
static void
finish_job (NatterMathRenderer *self,
            Job                *job,
            NatterMathImage    *image,
            gboolean            keep)
{
  if (keep)
    {
      if (g_hash_table_size (self->cache) >= MAX_CACHED)
        g_hash_table_remove_all (self->cache);
      g_hash_table_replace (self->cache, g_strdup (job->key), natter_math_image_ref (image));
    }
  for (guint i = 0; i < job->waiters->len; i++)
    {
      Waiter *waiter = g_ptr_array_index (job->waiters, i);
      g_autoptr(GObject) owner = g_weak_ref_get (&waiter->owner);

      if (owner != NULL)
        waiter->ready (owner, image, waiter->user_data);
    }
  g_hash_table_remove (self->pending, job->key);
}

static void
fail_job (NatterMathRenderer *self,
          Job                *job,
          const char         *message,
          gboolean            keep)
{
  g_autoptr(NatterMathImage) image = math_image_new ();

  image->error = g_strdup (message);
  finish_job (self, job, image, keep);
}

#if NATTER_HAVE_MATH

/* The page KaTeX runs in. render() typesets each formula into a row of
 * its own, with room above and below for what KaTeX draws past its
 * boxes (a fraction's denominator in a line of text), waits for the
 * fonts it needs (all of KaTeX's are loaded on the first call: a glyph
 * of a font not loaded yet would be missing from the snapshot), and
 * answers each row's box and the baseline in CSS pixels, which are
 * device pixels here: the view is never shown, and the requested scale
 * is applied to the font size instead. The formula is then cut out of
 * its row by its ink (cut_image()). */
static const char page[] =
  "<!DOCTYPE html><html><head><meta charset='utf-8'>"
  "<link rel='stylesheet' href='katex.min.css'>"
  "<script src='katex.min.js'></script>"
  "<style>"
  "html,body{margin:0;padding:0;background:transparent}"
  "body{width:max-content}"
  ".row{display:block;white-space:nowrap;padding:1em 4px}"
  ".f{display:inline-block;white-space:nowrap}"
  ".f .katex-display{margin:0}"
  ".b{display:inline-block;width:0;height:0}"
  "</style></head><body>"
  "<script>"
  "var fonts=null;"
  "function loadFonts(){"
  "  if(fonts===null)fonts=Promise.all(Array.from(document.fonts).map(function(f){return f.load().catch(function(){});}));"
  "  return fonts;"
  "}"
  "async function render(jobs){"
  "  await loadFonts();"
  "  document.body.textContent='';"
  "  var made=[];"
  "  for(var j of jobs){"
  "    var row=document.createElement('div');row.className='row';"
  "    var f=document.createElement('span');f.className='f';"
  "    f.style.fontSize=j.px+'px';f.style.color=j.color;"
  "    var b=document.createElement('span');b.className='b';"
  "    row.appendChild(f);row.appendChild(b);document.body.appendChild(row);"
  "    var error=null;"
  "    try{katex.render(j.tex,f,{displayMode:j.display,throwOnError:true,strict:'ignore',trust:false,maxSize:50,maxExpand:500});}"
  "    catch(e){error=String(e.message||e);row.remove();}"
  "    made.push({row:row,b:b,error:error});"
  "  }"
  "  void document.body.offsetHeight;"
  "  await document.fonts.ready;"
  "  return JSON.stringify(made.map(function(m){"
  "    if(m.error!==null)return {error:m.error};"
  "    var r=m.row.getBoundingClientRect(),b=m.b.getBoundingClientRect();"
  "    return {x:r.left,y:r.top,w:r.width,h:r.height,baseline:b.top};"
  "  }));"
  "}"
  "</script></body></html>";

static void pump (NatterMathRenderer *self);

/* Where the ink (any pixel not fully transparent) of the region of
 * @data from (@x0, @y0) to (@x1, @y1) is; FALSE when there is none. */
static gboolean
ink_bounds (const guchar *data,
            gsize         stride,
            int          *x0,
            int          *y0,
            int          *x1,
            int          *y1)
{
  int left = *x1, top = *y1, right = *x0 - 1, bottom = *y0 - 1;

  for (int row = *y0; row < *y1; row++)
    {
      const guint32 *pixels = (const guint32 *) (data + (gsize) row * stride);

      for (int col = *x0; col < *x1; col++)
        if (pixels[col] != 0)
          {
            left = MIN (left, col);
            right = MAX (right, col);
            top = MIN (top, row);
            bottom = MAX (bottom, row);
          }
    }
  if (right < left)
    return FALSE;
  *x0 = left;
  *y0 = top;
  *x1 = right + 1;
  *y1 = bottom + 1;
  return TRUE;
}

/* Gives @pixels, a formula typeset in black, the colour @ink: each
 * pixel's alpha is how much of it the glyphs cover, the same in either
 * style. WebKit's text rendering weighs a glyph by its colour (white
 * glyphs come out about half again as heavy as black ones), so the
 * formulas are always typeset in black and coloured here, once. */
static void
tint (guchar        *pixels,
      gsize          stride,
      int            width,
      int            height,
      const GdkRGBA *ink)
{
  for (int row = 0; row < height; row++)
    {
      guint32 *line = (guint32 *) (pixels + (gsize) row * stride);

      for (int col = 0; col < width; col++)
        {
          /* Premultiplied ARGB32, as cairo and GDK_MEMORY_DEFAULT have it. */
          double alpha = (line[col] >> 24) / 255.0 * ink->alpha;
          guint32 a = (guint32) lround (alpha * 255);

          line[col] = a << 24 | (guint32) lround (ink->red * alpha * 255) << 16 |
                      (guint32) lround (ink->green * alpha * 255) << 8 | (guint32) lround (ink->blue * alpha * 255);
        }
    }
}

/* The formula typeset in the row (@x, @y, @w, @h) of the snapshot
 * @data (cairo's ARGB32, which is GDK_MEMORY_DEFAULT), in black, cut to
 * its ink and a pixel around it and coloured @ink: a texture and a cairo
 * surface sharing one copy of the pixels. @baseline is the row's
 * baseline, in the snapshot too. */
static void
cut_image (NatterMathImage *image,
           const guchar    *data,
           gsize            stride,
           int              full_width,
           int              full_height,
           double           x,
           double           y,
           double           w,
           double           h,
           double           baseline,
           int              scale,
           const GdkRGBA   *ink)
{
  int x0 = CLAMP ((int) floor (x), 0, full_width);
  int y0 = CLAMP ((int) floor (y), 0, full_height);
  int x1 = CLAMP ((int) ceil (x + w), x0, full_width);
  int y1 = CLAMP ((int) ceil (y + h), y0, full_height);
  int width, height;
  gsize out_stride;
  guchar *pixels;
  g_autoptr(GBytes) bytes = NULL;

  if (!ink_bounds (data, stride, &x0, &y0, &x1, &y1))
    return;
  x0 = MAX (x0 - 1, 0);
  y0 = MAX (y0 - 1, 0);
  x1 = MIN (x1 + 1, full_width);
  y1 = MIN (y1 + 1, full_height);
  width = x1 - x0;
  height = y1 - y0;
  out_stride = (gsize) cairo_format_stride_for_width (CAIRO_FORMAT_ARGB32, width);
  pixels = g_malloc (out_stride * height);
  for (int row = 0; row < height; row++)
    memcpy (pixels + row * out_stride, data + (gsize) (y0 + row) * stride + (gsize) x0 * 4, (gsize) width * 4);
  tint (pixels, out_stride, width, height, ink);
  bytes = g_bytes_new_take (pixels, out_stride * height);
  image->texture = gdk_memory_texture_new (width, height, GDK_MEMORY_DEFAULT, bytes, out_stride);
  image->surface = cairo_image_surface_create_for_data (pixels, CAIRO_FORMAT_ARGB32, width, height, (int) out_stride);
  cairo_surface_set_user_data (image->surface, (const cairo_user_data_key_t *) &image->surface,
                               g_bytes_ref (bytes), (cairo_destroy_func_t) g_bytes_unref);
  cairo_surface_set_device_scale (image->surface, scale, scale);
  image->width = (double) width / scale;
  image->height = (double) height / scale;
  image->baseline = (baseline - y0) / scale;
}

static void
finish_batch (NatterMathRenderer *self,
              JsonArray          *results,
              GdkTexture         *snapshot)
{
  int full_width = snapshot != NULL ? gdk_texture_get_width (snapshot) : 0;
  int full_height = snapshot != NULL ? gdk_texture_get_height (snapshot) : 0;
  gsize stride = (gsize) full_width * 4;
  g_autofree guchar *data = g_malloc0 (MAX (stride * (gsize) full_height, 1));
  g_autoptr(GPtrArray) batch = g_steal_pointer (&self->batch);

  if (snapshot != NULL)
    gdk_texture_download (snapshot, data, stride);
  for (guint i = 0; i < batch->len; i++)
    {
      Job *job = g_ptr_array_index (batch, i);
      JsonObject *result = i < json_array_get_length (results) ? json_array_get_object_element (results, i) : NULL;
      g_autoptr(NatterMathImage) image = math_image_new ();
      int scale = MAX (job->style.scale, 1);
      /* Adwaita's text colours (view_fg_color). */
      const GdkRGBA ink = job->style.dark ? (GdkRGBA) { 1, 1, 1, 1 } : (GdkRGBA) { 0, 0, 0, 0.8f };

      if (result == NULL)
        {
          fail_job (self, job, "no result", FALSE);
          continue;
        }
      if (json_object_has_member (result, "error"))
        {
          fail_job (self, job, json_object_get_string_member_with_default (result, "error", ""), TRUE);
          continue;
        }
      cut_image (image, data, stride, full_width, full_height,
                 json_object_get_double_member_with_default (result, "x", 0),
                 json_object_get_double_member_with_default (result, "y", 0),
                 json_object_get_double_member_with_default (result, "w", 0),
                 json_object_get_double_member_with_default (result, "h", 0),
                 json_object_get_double_member_with_default (result, "baseline", 0),
                 scale, &ink);
      if (image->texture == NULL)
        image->error = g_strdup ("empty");
      finish_job (self, job, image, TRUE);
    }
}

static void
fail_batch (NatterMathRenderer *self,
            const char         *message)
{
  g_autoptr(GPtrArray) batch = g_steal_pointer (&self->batch);

  g_debug ("Formulas could not be typeset: %s", message);
  for (guint i = 0; batch != NULL && i < batch->len; i++)
    fail_job (self, g_ptr_array_index (batch, i), message, FALSE);
}

typedef struct
{
  NatterMathRenderer *self;
  JsonArray          *results;
} SnapshotData;

static void
snapshot_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  SnapshotData *data = user_data;
  g_autoptr(NatterMathRenderer) self = data->self;
  g_autoptr(JsonArray) results = data->results;
  g_autoptr(GError) error = NULL;
  g_autoptr(GdkTexture) snapshot = webkit_web_view_get_snapshot_finish (WEBKIT_WEB_VIEW (source), result, &error);

  g_free (data);
  /* No ink at all (every formula failed) is no snapshot, not an error. */
  if (snapshot == NULL && !g_error_matches (error, WEBKIT_SNAPSHOT_ERROR, WEBKIT_SNAPSHOT_ERROR_FAILED_TO_CREATE))
    fail_batch (self, error->message);
  else
    finish_batch (self, results, snapshot);
  pump (self);
}

static void
script_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(NatterMathRenderer) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JSCValue) value = webkit_web_view_call_async_javascript_function_finish (WEBKIT_WEB_VIEW (source), result, &error);
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) node = NULL;
  SnapshotData *data;

  if (value == NULL || !jsc_value_is_string (value))
    {
      fail_batch (self, error != NULL ? error->message : "no answer");
      pump (self);
      return;
    }
  json = jsc_value_to_string (value);
  node = json_from_string (json, &error);
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    {
      fail_batch (self, error != NULL ? error->message : "not an array");
      pump (self);
      return;
    }
  data = g_new0 (SnapshotData, 1);
  data->self = g_object_ref (self);
  data->results = json_array_ref (json_node_get_array (node));
  webkit_web_view_get_snapshot (self->view, WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT,
                                WEBKIT_SNAPSHOT_OPTIONS_TRANSPARENT_BACKGROUND,
                                NULL, snapshot_cb, data);
}

static char *
batch_json (GPtrArray *batch)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_array (builder);
  for (guint i = 0; i < batch->len; i++)
    {
      Job *job = g_ptr_array_index (batch, i);

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "tex");
      json_builder_add_string_value (builder, job->tex);
      json_builder_set_member_name (builder, "display");
      json_builder_add_boolean_value (builder, job->style.display);
      /* Black in either style: cut_image() colours it (tint()). */
      json_builder_set_member_name (builder, "color");
      json_builder_add_string_value (builder, "#000000");
      json_builder_set_member_name (builder, "px");
      json_builder_add_double_value (builder, job->style.font_px * MAX (job->style.scale, 1));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
send_batch (NatterMathRenderer *self)
{
  g_autofree char *jobs = NULL;
  GVariantDict args;

  self->batch = g_ptr_array_new ();
  while (self->batch->len < MAX_BATCH && !g_queue_is_empty (&self->queue))
    g_ptr_array_add (self->batch, g_queue_pop_head (&self->queue));
  jobs = batch_json (self->batch);
  g_variant_dict_init (&args, NULL);
  g_variant_dict_insert (&args, "jobs", "s", jobs);
  webkit_web_view_call_async_javascript_function (self->view, "return await render(JSON.parse(jobs));", -1,
                                                  g_variant_dict_end (&args), NULL, NULL, NULL,
                                                  script_cb, g_object_ref (self));
}

/* The page may only ever show what we loaded into it. */
static gboolean
decide_policy_cb (WebKitWebView            *view,
                  WebKitPolicyDecision     *decision,
                  WebKitPolicyDecisionType  type,
                  NatterMathRenderer       *self)
{
  if (type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE || !self->loaded)
    return FALSE;
  webkit_policy_decision_ignore (decision);
  return TRUE;
}

static void
load_changed_cb (WebKitWebView      *view,
                 WebKitLoadEvent     event,
                 NatterMathRenderer *self)
{
  if (event != WEBKIT_LOAD_FINISHED)
    return;
  self->loaded = TRUE;
  pump (self);
}

static void drop_view (NatterMathRenderer *self);

static void
web_process_terminated_cb (WebKitWebView                     *view,
                           WebKitWebProcessTerminationReason  reason,
                           NatterMathRenderer                *self)
{
  g_warning ("The web process that typesets formulas stopped (reason %d)", reason);
  self->crashes++;
  fail_batch (self, "the typesetting process stopped");
  drop_view (self);
  if (self->crashes >= MAX_CRASHES)
    {
      Job *job;

      while ((job = g_queue_pop_head (&self->queue)) != NULL)
        fail_job (self, job, "the typesetting process stopped", FALSE);
    }
  else
    {
      pump (self);
    }
}

static void
drop_view (NatterMathRenderer *self)
{
  if (self->view == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->view, self);
  g_clear_object (&self->view);
  self->loaded = FALSE;
}

static void
ensure_view (NatterMathRenderer *self)
{
  g_autoptr(WebKitNetworkSession) session = NULL;
  WebKitSettings *settings;
  GdkRGBA transparent = { 0, 0, 0, 0 };

  if (self->view != NULL)
    return;
  /* Nothing of it is kept on disk, and it never goes on line. */
  session = webkit_network_session_new_ephemeral ();
  self->view = g_object_ref_sink (g_object_new (WEBKIT_TYPE_WEB_VIEW, "network-session", session, NULL));
  settings = webkit_web_view_get_settings (self->view);
  webkit_settings_set_enable_html5_local_storage (settings, FALSE);
  webkit_settings_set_enable_html5_database (settings, FALSE);
  webkit_settings_set_enable_webaudio (settings, FALSE);
  webkit_settings_set_enable_webgl (settings, FALSE);
  webkit_settings_set_enable_media (settings, FALSE);
  /* A few glyphs on a transparent page need no GL; where GTK has none
   * (GDK_DEBUG=gl-disable, software-only machines) WebKit would warn as
   * it gave up on it. */
  webkit_settings_set_hardware_acceleration_policy (settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER);
  webkit_web_view_set_background_color (self->view, &transparent);
  g_signal_connect (self->view, "decide-policy", G_CALLBACK (decide_policy_cb), self);
  g_signal_connect (self->view, "load-changed", G_CALLBACK (load_changed_cb), self);
  g_signal_connect (self->view, "web-process-terminated", G_CALLBACK (web_process_terminated_cb), self);
  webkit_web_view_load_html (self->view, page, "file://" NATTER_KATEX_DIR "/");
}

static void
pump (NatterMathRenderer *self)
{
  if (self->batch != NULL || g_queue_is_empty (&self->queue) || self->crashes >= MAX_CRASHES)
    return;
  ensure_view (self);
  if (self->loaded)
    send_batch (self);
}

#endif /* NATTER_HAVE_MATH */

static void
natter_math_renderer_finalize (GObject *object)
{
  NatterMathRenderer *self = NATTER_MATH_RENDERER (object);

#if NATTER_HAVE_MATH
  drop_view (self);
#endif
  g_queue_clear (&self->queue);
  g_clear_pointer (&self->batch, g_ptr_array_unref);
  g_hash_table_unref (self->pending);
  g_hash_table_unref (self->cache);

  G_OBJECT_CLASS (natter_math_renderer_parent_class)->finalize (object);
}

static void
natter_math_renderer_class_init (NatterMathRendererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_math_renderer_finalize;
}

static void
natter_math_renderer_init (NatterMathRenderer *self)
{
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) natter_math_image_unref);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) job_free);
  g_queue_init (&self->queue);
}

/**
 * natter_math_renderer_get_default:
 *
 * The process's renderer: one hidden view and one cache for every
 * window (docs/math.md §3).
 *
 * Returns: (transfer none): the renderer
 */
NatterMathRenderer *
natter_math_renderer_get_default (void)
{
  static NatterMathRenderer *renderer;

  if (renderer == NULL)
    renderer = g_object_new (NATTER_TYPE_MATH_RENDERER, NULL);
  return renderer;
}

/**
 * natter_math_renderer_is_available:
 * @self: the renderer
 *
 * Returns: whether formulas can be typeset: Natter was built with
 *   WebKitGTK and KaTeX, and its web process has not kept stopping
 */
gboolean
natter_math_renderer_is_available (NatterMathRenderer *self)
{
  g_return_val_if_fail (NATTER_IS_MATH_RENDERER (self), FALSE);

#if NATTER_HAVE_MATH
  return self->crashes < MAX_CRASHES;
#else
  return FALSE;
#endif
}

/**
 * natter_math_renderer_get_n_pending:
 * @self: the renderer
 *
 * Returns: how many formulas are queued or being typeset
 */
guint
natter_math_renderer_get_n_pending (NatterMathRenderer *self)
{
  g_return_val_if_fail (NATTER_IS_MATH_RENDERER (self), 0);

  return g_hash_table_size (self->pending);
}

/**
 * natter_math_renderer_lookup:
 * @self: the renderer
 * @tex: a formula's TeX, without delimiters
 * @style: how it is typeset
 *
 * Returns: (transfer none) (nullable): the formula as typeset before
 *   (or as failed before), or %NULL when it has not been
 */
NatterMathImage *
natter_math_renderer_lookup (NatterMathRenderer    *self,
                             const char            *tex,
                             const NatterMathStyle *style)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (NATTER_IS_MATH_RENDERER (self), NULL);

  key = make_key (tex, style);
  return g_hash_table_lookup (self->cache, key);
}

/**
 * natter_math_renderer_request:
 * @self: the renderer
 * @tex: a formula's TeX, without delimiters
 * @style: how it is typeset
 * @owner: the object that waits; @ready is not called once it is gone
 * @ready: (scope async): called on the main thread when done, and at
 *   once when the formula is cached or cannot be typeset in this build
 * @user_data: for @ready
 *
 * Typesets @tex unless it is cached; asking again for a formula under
 * way only adds a waiter. A formula KaTeX refuses gives an image with
 * its error and no texture.
 */
void
natter_math_renderer_request (NatterMathRenderer    *self,
                              const char            *tex,
                              const NatterMathStyle *style,
                              GObject               *owner,
                              NatterMathReadyFunc    ready,
                              gpointer               user_data)
{
  g_autofree char *key = NULL;
  NatterMathImage *cached;
  Job *job;
  Waiter *waiter;

  g_return_if_fail (NATTER_IS_MATH_RENDERER (self));
  g_return_if_fail (G_IS_OBJECT (owner));

  key = make_key (tex, style);
  cached = g_hash_table_lookup (self->cache, key);
  if (cached != NULL)
    {
      ready (owner, cached, user_data);
      return;
    }
  if (!natter_math_renderer_is_available (self))
    {
      g_autoptr(NatterMathImage) image = math_image_new ();

      image->error = g_strdup ("Natter was built without a math renderer");
      ready (owner, image, user_data);
      return;
    }

  waiter = g_new0 (Waiter, 1);
  g_weak_ref_init (&waiter->owner, owner);
  waiter->ready = ready;
  waiter->user_data = user_data;

  job = g_hash_table_lookup (self->pending, key);
  if (job == NULL)
    {
      job = g_new0 (Job, 1);
      job->key = g_steal_pointer (&key);
      job->tex = g_strdup (tex);
      job->style = *style;
      job->waiters = g_ptr_array_new_with_free_func ((GDestroyNotify) waiter_free);
      g_hash_table_insert (self->pending, job->key, job);
      g_queue_push_tail (&self->queue, job);
    }
  g_ptr_array_add (job->waiters, waiter);
#if NATTER_HAVE_MATH
  pump (self);
#endif
}

/**
 * natter_math_style_for_widget:
 * @style: (out caller-allocates): receives the style
 * @widget: the widget a formula is shown in
 * @display: whether it is display math
 *
 * The style a formula in @widget is typeset in: the size of @widget's
 * font, the application's dark or light style, @widget's scale.
 */
void
natter_math_style_for_widget (NatterMathStyle *style,
                              GtkWidget       *widget,
                              gboolean         display)
{
  PangoContext *context = gtk_widget_get_pango_context (widget);
  const PangoFontDescription *font = pango_context_get_font_description (context);
  double size = font != NULL ? pango_font_description_get_size (font) / (double) PANGO_SCALE : 11;

  if (font != NULL && !pango_font_description_get_size_is_absolute (font))
    size = size * 96.0 / 72.0;
  style->display = display;
  style->dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  style->font_px = size > 0 ? size : 14.0;
  style->scale = MAX (gtk_widget_get_scale_factor (widget), 1);
}
