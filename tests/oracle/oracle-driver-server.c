/* oracle-driver-server.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The scripted model: answers the model decides, streamed by the test
 * server, held where an operation needs a turn in the middle of a call,
 * and the ends of its streams.
 */

#include "config.h"

#include <string.h>

#include "natter-blob-store.h"
#include "natter-id.h"
#include "natter-jsonl-repo.h"
#include "natter-session-families.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"
#include "natter-sessions-private.h"
#include "natter-sessions-queue.h"
#include "natter-test-support.h"
#include "natter-turn-reducer.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

const char *
keep (OracleDriver *d,
      char         *text)
{
  g_ptr_array_add (d->scratch, text);
  return text;
}

static char *
quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);

  return json_to_string (node, FALSE);
}

/* RFC 8259: a control character is never raw inside a string, and
 * outside strings only the four whitespace characters may appear. */
void
check_wire_bytes (OracleDriver *d,
                  const char   *what,
                  const char   *text,
                  gsize         length)
{
  gboolean in_string = FALSE;

  for (gsize i = 0; i < length; i++)
    {
      guchar c = (guchar) text[i];

      if (in_string && c == '\\')
        {
          i++;
          continue;
        }
      if (c == '"')
        in_string = !in_string;
      if (c < 0x20 && (in_string || (c != ' ' && c != '\t' && c != '\n' && c != '\r')))
        {
          g_autofree char *excerpt = g_strndup (text + (i > 40 ? i - 40 : 0), 80);
          g_autofree char *shown = g_strescape (excerpt, NULL);

          oracle_driver_fail (d, "control-bytes", "%s holds the raw byte 0x%02x at %" G_GSIZE_FORMAT ": …%s…", what,
                              c, i, shown);
          return;
        }
    }
}

void
responder (NatterTestServer   *server,
           guint               index,
           const char         *path,
           const char         *body,
           NatterTestResponse *response,
           gpointer            user_data)
{
  OracleDriver *d = user_data;
  OResponse *r;
  GPtrArray *chunks;

  g_ptr_array_set_size (d->scratch, 0);
  if (!g_str_has_suffix (path, "/chat/completions"))
    {
      response->status = 404;
      response->content_type = "application/json";
      response->body = "{\"error\":{\"message\":\"no such path\"}}";
      return;
    }
  check_wire_bytes (d, "a request body", body, strlen (body));
  r = oracle_answer_request (d->o, body, d->child != NULL);
  if (r->mismatch != NULL)
    {
      oracle_driver_fail (d, r->mismatch_kind, "%s", r->mismatch);
      diverge (d, r->mismatch_kind, r->mismatch_session);
    }
  chunks = g_ptr_array_new ();
  response->status = 200;
  response->content_type = "text/event-stream";
  switch (r->kind)
    {
    case ORESP_ANSWER:
    case ORESP_TITLE:
    case ORESP_SUMMARY:
    case ORESP_HOLD:
      g_ptr_array_add (chunks, (gpointer) keep (d, g_strdup_printf ("data: {\"choices\":[{\"index\":0,\"delta\":"
                                                                    "{\"content\":\"%s\"}}]}\n\n", r->wire_text)));
      if (r->kind == ORESP_HOLD)
        {
          response->keep_open = TRUE;
          r->turn->held_index = (gint) index;
          if (r->turn->in_child)
            d->kill_requested = TRUE;
        }
      else
        {
          g_ptr_array_add (chunks, (gpointer) sse_finish ("stop"));
          g_ptr_array_add (chunks, (gpointer) SSE_DONE);
        }
      break;
    case ORESP_TOOLS:
      for (guint i = 0; i < r->wire_calls->len; i++)
        {
          OCall *call = g_ptr_array_index (r->wire_calls, i);
          g_autofree char *args = quote (call->args);

          g_ptr_array_add (chunks, (gpointer) keep (d, g_strdup_printf (
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%u,\"id\":\"%s\","
            "\"type\":\"function\",\"function\":{\"name\":\"%s\",\"arguments\":%s}}]}}]}\n\n",
            i, call->id, call->name, args)));
        }
      g_ptr_array_add (chunks, (gpointer) sse_finish ("tool_calls"));
      g_ptr_array_add (chunks, (gpointer) SSE_DONE);
      break;
    case ORESP_FAIL:
    case ORESP_UNEXPECTED:
      response->status = 500;
      response->content_type = "application/json";
      response->body = keep (d, g_strdup (r->error_body != NULL ? r->error_body
                                                                : "{\"error\":{\"message\":\"unexpected\"}}"));
      break;
    }
  g_ptr_array_add (chunks, NULL);
  if (response->body == NULL)
    response->chunks = (const char *const *) chunks->pdata;
  g_ptr_array_add (d->scratch, chunks->pdata);
  g_ptr_array_free (chunks, FALSE);
  oracle_response_free (r);
}

/* ------------------------------------------------------------------ */
/* Streams                                                              */
/* ------------------------------------------------------------------ */

const char *
sse_finish (const char *reason)
{
  return g_str_equal (reason, "stop")
         ? "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
         : "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n";
}
