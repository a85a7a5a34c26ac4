/* natter-tool-current-time.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * current_time {}: the time now, in UTC and in the local time zone
 * (docs/runtime.md §8). Harmless, so it needs no permission.
 */

#define G_LOG_DOMAIN "natter-tool-current-time"

#include "natter-builtin-tools.h"
#include "natter-tool-path.h"

struct _NatterToolCurrentTime
{
  GObject      parent_instance;
  JsonObject  *descriptor;
  NatterClock *clock;
};

static void tool_iface_init (NatterToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (NatterToolCurrentTime, natter_tool_current_time, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (NATTER_TYPE_TOOL, tool_iface_init))

static JsonObject *
natter_tool_current_time_get_descriptor (NatterTool *tool)
{
  return NATTER_TOOL_CURRENT_TIME (tool)->descriptor;
}

static JsonObject *
natter_tool_current_time_run (NatterTool              *tool,
                              JsonObject              *input,
                              NatterToolProgressFunc   progress,
                              gpointer                 progress_data,
                              GCancellable            *cancellable,
                              GError                 **error)
{
  NatterToolCurrentTime *self = NATTER_TOOL_CURRENT_TIME (tool);
  gint64 now_us = natter_clock_now_us (self->clock);
  g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (now_us / G_USEC_PER_SEC);
  g_autoptr(GDateTime) local = NULL;
  g_autofree char *utc_text = NULL;
  g_autofree char *local_text = NULL;
  g_autofree char *output = NULL;
  JsonObject *metadata;

  if (utc == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "The clock is out of range");
      return NULL;
    }
  local = g_date_time_to_local (utc);
  utc_text = g_date_time_format (utc, "%Y-%m-%dT%H:%M:%SZ");
  local_text = g_date_time_format (local, "%Y-%m-%dT%H:%M:%S%:z (%Z, %A)");
  output = g_strdup_printf ("UTC: %s\nLocal: %s", utc_text, local_text);
  metadata = json_object_new ();
  json_object_set_int_member (metadata, "unixSeconds", now_us / G_USEC_PER_SEC);
  return natter_tool_result_new (output, metadata);
}

static void
tool_iface_init (NatterToolInterface *iface)
{
  iface->get_descriptor = natter_tool_current_time_get_descriptor;
  iface->run = natter_tool_current_time_run;
}

static void
natter_tool_current_time_finalize (GObject *object)
{
  NatterToolCurrentTime *self = NATTER_TOOL_CURRENT_TIME (object);

  g_clear_pointer (&self->descriptor, json_object_unref);
  g_clear_object (&self->clock);
  G_OBJECT_CLASS (natter_tool_current_time_parent_class)->finalize (object);
}

static void
natter_tool_current_time_class_init (NatterToolCurrentTimeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = natter_tool_current_time_finalize;
}

static void
natter_tool_current_time_init (NatterToolCurrentTime *self)
{
  self->descriptor = natter_tool_descriptor_new (NATTER_TOOL_ID_CURRENT_TIME, "current_time",
                                                 "The current date and time, in UTC and local time.",
                                                 "{\"type\":\"object\",\"properties\":{}}",
                                                 FALSE, FALSE);
}

/**
 * natter_tool_current_time_new:
 * @clock: the clock to read; called from a worker thread
 *
 * The current_time tool of docs/runtime.md §8: sync, input `{}`, needs
 * no permission.
 *
 * Returns: (transfer full): the tool
 */
NatterTool *
natter_tool_current_time_new (NatterClock *clock)
{
  NatterToolCurrentTime *self;

  g_return_val_if_fail (NATTER_IS_CLOCK (clock), NULL);

  self = g_object_new (NATTER_TYPE_TOOL_CURRENT_TIME, NULL);
  self->clock = g_object_ref (clock);
  return NATTER_TOOL (self);
}
