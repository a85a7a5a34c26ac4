/* natter-ui-test-world.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The world's life cycle: a temp data directory with the fake model and
 * tools, the session index and service over it, their stop and the
 * "restart" (a new index and service over the same directory).
 */

#include "natter-ui-test-world.h"

/* A new index and session service over @u's directory, once the index
 * has read it. */
void
ui_world_start_service (UiWorld *u)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  u->index = natter_session_index_new ();
  u->sessions = natter_sessions_new (u->w->session_repo, u->w->turn_repo, u->w->runtime, u->w->hub,
                                     NATTER_CLOCK (u->w->clock), u->w->ids, u->index);
  /* The service follows the `auto-title` setting as the application's
   * does (natter-services.c); ui_test_init() turns it off. */
  if (u->settings == NULL)
    u->settings = natter_settings_new_default ();
  g_object_bind_property (u->settings, "auto-title", u->sessions, "auto-title", G_BINDING_SYNC_CREATE);
  natter_session_index_load_async (u->index, u->w->session_repo, u->w->turn_repo, NULL,
                                   ui_result_cb, &result);
  g_assert_true (natter_session_index_load_finish (u->index, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* A temp data directory with the fake model and tools, and a session
 * service over it (free with ui_world_free()). */
UiWorld *
ui_world_new (void)
{
  UiWorld *u = g_new0 (UiWorld, 1);

  u->w = natter_test_world_new ();
  ui_world_start_service (u);
  /* A new world is a first run: no model remembered as picked by a
   * window of an earlier test in this process (they share the memory
   * settings backend). */
  natter_settings_set_recent_model (u->settings, NULL, NULL, NULL);
  return u;
}

/* Whether the UiWorld @data's service runs no turn. */
gboolean
ui_no_advances (gpointer data)
{
  return natter_sessions_get_n_advances (((UiWorld *) data)->sessions) == 0;
}

/* Lets running turns end, then drops the service and the index. */
void
ui_world_stop_service (UiWorld *u)
{
  ui_wait_until (ui_no_advances, u);
  ui_settle ();
  g_clear_object (&u->sessions);
  g_clear_object (&u->index);
}

/* What a restart gives: the same directory read by a new index and
 * service (nothing in memory survives). */
void
ui_world_restart (UiWorld *u)
{
  ui_world_stop_service (u);
  ui_world_start_service (u);
}

/* Stops the service and removes the data directory. */
void
ui_world_free (UiWorld *u)
{
  ui_world_stop_service (u);
  g_clear_object (&u->settings);
  natter_test_world_free (u->w);
  g_free (u);
}
