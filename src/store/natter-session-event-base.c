/* natter-session-event-base.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every session event is checked by and built from, whichever
 * schema version added it: the refusal of a member outside the event's
 * schema, the common head (type, sessionId, ts), and the check of a
 * working directory, which turn files share. The validators of each
 * version (natter-session-schema.c, natter-session-schema-upgrade.c,
 * natter-session-parameters-event.c) call down to it, never the other
 * way.
 */

#define G_LOG_DOMAIN "natter-session-schema"

#include <string.h>

#include "natter-session-schema.h"
#include "natter-session-schema-private.h"
#include "natter-store-error.h"

/* Refuses a member of @object outside @allowed, naming it and @what. */
gboolean
natter_session_schema_check_members (JsonObject         *object,
                                     const char * const *allowed,
                                     const char         *what,
                                     GError            **error)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &name, &member))
    {
      if (!g_strv_contains (allowed, name))
        {
          g_autofree char *shown = g_utf8_make_valid (name, MIN (strlen (name), 64));

          g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                       "%s has the unknown field “%s”", what, shown);
          return FALSE;
        }
    }
  return TRUE;
}

/**
 * natter_session_cwd_validate:
 * @cwd: (nullable): a candidate working directory
 * @error: return location for a #GError
 *
 * Checks a session's `cwd` (dsh-session.md: a validated absolute path): it
 * must be valid UTF-8, start with `/`, be at most %NATTER_SESSION_CWD_MAX
 * bytes, and be normalized — no empty component (`//`, a trailing `/`
 * except for `/` itself) and no `.` or `..` component. A NUL cannot occur
 * inside a C string, and a JSON `\u0000` escape is refused by the lossless
 * line check before any schema runs.
 *
 * Returns: %TRUE if valid; else %FALSE with %NATTER_STORE_ERROR_SCHEMA.
 */
gboolean
natter_session_cwd_validate (const char  *cwd,
                             GError     **error)
{
  const char *reason = NULL;
  gsize length;

  if (cwd == NULL)
    {
      g_set_error_literal (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                           "Field “cwd” is missing");
      return FALSE;
    }

  length = strnlen (cwd, NATTER_SESSION_CWD_MAX + 1);
  if (length > NATTER_SESSION_CWD_MAX)
    reason = "is too long";
  else if (!g_utf8_validate_len (cwd, length, NULL))
    reason = "is not valid UTF-8";
  else if (cwd[0] != '/')
    reason = "is not an absolute path";
  else if (length > 1)
    {
      /* Walk the components after the leading slash. */
      const char *p = cwd + 1;

      while (reason == NULL)
        {
          const char *end = strchr (p, '/');
          gsize n = end != NULL ? (gsize) (end - p) : strlen (p);

          if (n == 0)
            reason = "has an empty component (not normalized)";
          else if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            reason = "has a “.” or “..” component (not normalized)";
          if (end == NULL)
            break;
          p = end + 1;
        }
    }

  if (reason != NULL)
    {
      g_set_error (error, NATTER_STORE_ERROR, NATTER_STORE_ERROR_SCHEMA,
                   "Field “cwd” %s", reason);
      return FALSE;
    }
  return TRUE;
}

/* The common head of every session event the builders make (type,
 * sessionId, ts), shared by the builders of each schema version
 * (natter-session-schema-private.h). */
JsonObject *
natter_session_event_begin (const char *type,
                            const char *session_id,
                            const char *ts)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  json_object_set_string_member (object, "sessionId", session_id);
  json_object_set_string_member (object, "ts", ts);
  return object;
}

/* @object (taken) as a node. */
JsonNode *
natter_session_event_wrap (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}
