/* natter-ui-test-world.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The helpers the window tests share (see natter-ui-test-world.h),
 * compiled once into a library rather than copied into every test
 * binary.
 */

#include "natter-ui-test-world.h"

#include <stdlib.h>
#include <string.h>

#include "natter-attachment-intake.h"
#include "natter-preferences-window-private.h"
#include "natter-search-index.h"
#include "natter-session-row.h"
#include "natter-toast-guard.h"
#include "natter-window-private.h"

static gboolean
ui_timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* How many times slower than a plain build the tests may run: the
 * sanitizer pass of .ci/run sets NATTER_TEST_SLOWDOWN (as it sets meson's
 * --timeout-multiplier), since a loaded machine under ASan takes more
 * than 10 s to lay out hundreds of rows. */
guint
ui_slowdown (void)
{
  const char *value = g_getenv ("NATTER_TEST_SLOWDOWN");
  guint64 factor = value != NULL ? g_ascii_strtoull (value, NULL, 10) : 1;

  return (guint) CLAMP (factor, 1, 20);
}

/* Iterates the main context until @condition holds; fails after 10 s
 * (times ui_slowdown()), with what @describe (if any) says of @data. */
void
ui_wait_until_full (UiCondition condition,
                    UiDescribe  describe,
                    gpointer    data)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (10000 * ui_slowdown (), ui_timeout_cb, &timed_out);

  while (!condition (data) && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (!condition (data))
    {
      g_autofree char *what = describe != NULL ? describe (data) : NULL;

      g_error ("Timed out waiting for a condition%s%s", what != NULL ? ": " : "", what != NULL ? what : "");
    }
}

/* Iterates the main context until @condition holds; fails after 10 s
 * (times ui_slowdown()). */
void
ui_wait_until (UiCondition condition,
               gpointer    data)
{
  ui_wait_until_full (condition, NULL, data);
}

/* Iterates the main context until @u's fake model holds a call
 * (NATTER_FAKE_STEP_HOLD); fails after 10 s (times ui_slowdown()). */
void
ui_wait_model_held (UiWorld *u)
{
  natter_fake_model_wait_held (u->w->fakes->model, 1, 10000 * ui_slowdown ());
}

/* Whether @window's error bar is on screen: revealed, and its
 * animation over. */
gboolean
ui_error_bar_shown (gpointer window)
{
  ui_settle ();
  return gtk_revealer_get_child_revealed (GTK_REVEALER (natter_window_get_error_bar (window)));
}

/* Whether @window's error bar is gone from the screen too, not only on
 * its way out. */
gboolean
ui_error_bar_hidden (gpointer window)
{
  GtkRevealer *bar;

  ui_settle ();
  bar = GTK_REVEALER (natter_window_get_error_bar (window));
  return !gtk_revealer_get_reveal_child (bar) && !gtk_revealer_get_child_revealed (bar);
}

/* Lets the window lay out and draw what changed. Bounded: a spinner
 * keeps the frame clock busy forever. */
void
ui_settle (void)
{
  for (int i = 0; i < 200 && g_main_context_iteration (NULL, FALSE); i++)
    ;
}

/* Whether the GAsyncResult pointer at @data has been set. */
gboolean
ui_result_ready (gpointer data)
{
  return *(GAsyncResult **) data != NULL;
}

/* A GAsyncReadyCallback that stores a reference to the result in the
 * GAsyncResult pointer @user_data. */
void
ui_result_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Waits until ui_result_cb() has stored into @result, and returns it
 * (transfer none: @result owns it). */
GAsyncResult *
ui_wait_result (GAsyncResult **result)
{
  ui_wait_until (ui_result_ready, result);
  return *result;
}

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

/* Creates a session titled @title a minute after the last event; returns
 * its id (transfer full). */
char *
ui_create_session (UiWorld    *u,
                   const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *session_id;

  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  natter_sessions_create_session_async (u->sessions, title, NULL, NULL, NULL, NULL, ui_result_cb, &result);
  session_id = natter_sessions_create_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return session_id;
}

/* Renames @session_id to @title, and waits until it is written. */
void
ui_set_title (UiWorld    *u,
              const char *session_id,
              const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  natter_sessions_set_title_async (u->sessions, session_id, title, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_set_title_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
}

/* Sends @text to @session_id through the fake agent "helper", on
 * {@provider, @model} (both may be NULL: the agent's own), a minute of the
 * fake clock after the last send, and returns the turn id at once (the
 * turn runs on). */
char *
ui_send_with_model (UiWorld    *u,
                    const char *session_id,
                    const char *text,
                    const char *provider,
                    const char *model)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) input = json_object_new ();
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", provider, model);
  char *turn_id;

  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  json_object_set_string_member (input, "role", "user");
  json_object_set_string_member (input, "content", text);
  natter_sessions_send_message_async (u->sessions, session_id, input, options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return turn_id;
}

/* Sends @text with the files @first_file, … (NULL-terminated) attached,
 * stored in @blobs as the window stores them, through the fake agent
 * "helper", a minute of the fake clock after the last send; returns the
 * turn id at once (transfer full) and, when @out_parts is not NULL, the
 * message's `blob` parts (transfer full). */
char *
ui_send_with_files (UiWorld          *u,
                    NatterBlobStore  *blobs,
                    const char       *session_id,
                    const char       *text,
                    JsonArray       **out_parts,
                    GFile            *first_file,
                    ...)
{
  g_autoptr(GPtrArray) sources = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_attachment_source_unref);
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) parts = NULL;
  g_autoptr(JsonObject) input = NULL;
  char *turn_id;
  va_list args;

  va_start (args, first_file);
  for (GFile *file = first_file; file != NULL; file = va_arg (args, GFile *))
    g_ptr_array_add (sources, natter_attachment_source_new_for_file (file));
  va_end (args);
  parts = natter_attachments_store_sync (blobs, sources, 1000000, NULL, &error);
  g_assert_no_error (error);
  input = natter_user_message_new (text, parts);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  natter_sessions_send_message_async (u->sessions, session_id, input, options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  if (out_parts != NULL)
    *out_parts = g_steal_pointer (&parts);
  return turn_id;
}

/* ui_send_with_model() on the agent's own model. */
char *
ui_send (UiWorld    *u,
         const char *session_id,
         const char *text)
{
  return ui_send_with_model (u, session_id, text, NULL, NULL);
}

/* The full-text index of @u's conversations in its cache folder,
 * started and caught up (transfer full; let go of it with
 * ui_search_index_drop()). */
NatterSearchIndex *
ui_search_index_start (UiWorld *u)
{
  g_autoptr(GFile) cache = g_file_resolve_relative_path (u->w->dir, "cache/search.sqlite");
  NatterSearchIndex *search = natter_search_index_new (cache, u->w->session_repo, u->w->turn_repo, u->sessions);
  g_autoptr(GAsyncResult) result = NULL;

  natter_search_index_start (search);
  natter_search_index_wait_async (search, NULL, ui_result_cb, &result);
  g_assert_true (natter_search_index_wait_finish (search, ui_wait_result (&result), NULL));
  return search;
}

static gboolean
index_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Lets go of @search (transfer full) and waits until it is gone: it
 * holds the session service, and a search thread may let go of it a
 * moment after its answer arrived. */
void
ui_search_index_drop (NatterSearchIndex *search)
{
  g_object_add_weak_pointer (G_OBJECT (search), (gpointer *) &search);
  g_object_unref (search);
  ui_wait_until (index_gone, &search);
}

/* The contents of @file (transfer full). */
char *
ui_read_file (GFile *file)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_load_contents (file, NULL, &contents, NULL, NULL, &error);
  g_assert_no_error (error);
  return contents;
}

static void
write_file (GFile      *file,
            const char *contents)
{
  g_autoptr(GError) error = NULL;

  g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE, G_FILE_CREATE_NONE,
                           NULL, NULL, &error);
  g_assert_no_error (error);
}

/* What is on disk after the process died while the model was answering
 * @text, sent to @session_id: the turn was appended and its model call
 * requested, and nothing after. Made by running the turn up to that
 * point (the model's script must hold its first step), copying both
 * files, stopping the turn and putting the copies back; then a restart
 * (a new index and service over the same directory). Returns the turn
 * id (transfer full); @turn_file gets the turn file as the crash left
 * it. */
char *
ui_make_interrupted (UiWorld     *u,
                     const char  *session_id,
                     const char  *text,
                     char       **turn_file)
{
  g_autofree char *turn_id = NULL;
  g_autofree char *session_bytes = NULL;
  g_autoptr(GFile) session_file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  turn_id = ui_send (u, session_id, text);
  ui_wait_model_held (u);
  events = ui_get_turn (u, turn_id);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_nonnull (ui_find_event (events, "model_call_requested", NULL));

  file = natter_jsonl_repo_get_file (u->w->turn_repo, turn_id, NULL);
  *turn_file = ui_read_file (file);
  session_bytes = ui_read_file (session_file);

  natter_sessions_stop_turn_async (u->sessions, turn_id, NULL, NULL, ui_result_cb, &result);
  g_assert_true (natter_sessions_stop_turn_finish (u->sessions, ui_wait_result (&result), &error));
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  ui_world_stop_service (u);
  write_file (file, *turn_file);
  write_file (session_file, session_bytes);
  ui_world_start_service (u);
  return g_steal_pointer (&turn_id);
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
} UiTurn;

static gboolean
ui_turn_settled (gpointer data)
{
  UiTurn *t = data;

  return !natter_sessions_is_turn_running (t->u->sessions, t->turn_id);
}

/* Waits until @turn_id has settled and the index has caught up. */
void
ui_wait_turn (UiWorld    *u,
              const char *turn_id)
{
  UiTurn t = { u, turn_id };

  ui_wait_until (ui_turn_settled, &t);
  /* The index entry is refreshed just after the settle. */
  ui_settle ();
}

typedef struct
{
  UiWorld    *u;
  const char *turn_id;
  const char *type;
  const char *tool_call_id;
} UiTurnEvent;

static gboolean
turn_event_written (gpointer data)
{
  UiTurnEvent *w = data;
  g_autoptr(GPtrArray) events = NULL;

  if (natter_sessions_is_turn_running (w->u->sessions, w->turn_id))
    return FALSE;
  events = ui_get_turn (w->u, w->turn_id);
  return ui_find_event (events, w->type, w->tool_call_id) != NULL;
}

/* Waits until @turn_id is not running and its file holds an event of
 * @type (of the tool call @tool_call_id, when not %NULL): a turn that
 * stopped to ask counts only once the event looked for is written. */
void
ui_wait_turn_event (UiWorld    *u,
                    const char *turn_id,
                    const char *type,
                    const char *tool_call_id)
{
  UiTurnEvent w = { u, turn_id, type, tool_call_id };

  ui_wait_until (turn_event_written, &w);
}

/* The session's state, read through the service (transfer full). */
NatterSessionState *
ui_get_session (UiWorld    *u,
                const char *session_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  NatterSessionState *state;

  natter_sessions_get_session_async (u->sessions, session_id, NULL, ui_result_cb, &result);
  state = natter_sessions_get_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return state;
}

/* The turn file's events (JsonNode), read through the service. */
GPtrArray *
ui_get_turn (UiWorld    *u,
             const char *turn_id)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *events;

  natter_sessions_get_turn_async (u->sessions, turn_id, NULL, ui_result_cb, &result);
  events = natter_sessions_get_turn_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return events;
}

/* Finds the event of @type for @tool_call_id, or NULL. */
JsonObject *
ui_find_event (GPtrArray  *events,
               const char *type,
               const char *tool_call_id)
{
  for (guint i = 0; i < events->len; i++)
    {
      JsonObject *event = json_node_get_object (g_ptr_array_index (events, i));

      if (g_strcmp0 (json_object_get_string_member (event, "type"), type) == 0 &&
          (tool_call_id == NULL ||
           g_strcmp0 (json_object_get_string_member_with_default (event, "toolCallId", NULL), tool_call_id) == 0))
        return event;
    }
  return NULL;
}

/* Widgets */

static void
ui_collect (GtkWidget *root,
            GType      type,
            GPtrArray *found)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type) && gtk_widget_get_mapped (root))
    g_ptr_array_add (found, root);
  for (GtkWidget *child = gtk_widget_get_first_child (root);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    ui_collect (child, type, found);
}

/* The mapped widgets of @type under @root, in tree order. */
GPtrArray *
ui_find_all (gpointer root,
             GType    type)
{
  GPtrArray *found = g_ptr_array_new ();

  ui_collect (GTK_WIDGET (root), type, found);
  return found;
}

/* The first mapped widget of @type under @root (itself included), in
 * tree order, for which @match (if any) holds; NULL if there is none. */
GtkWidget *
ui_find_first_full (gpointer      root,
                    GType         type,
                    UiWidgetMatch match)
{
  GtkWidget *widget = GTK_WIDGET (root);

  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type) && gtk_widget_get_mapped (widget) &&
      (match == NULL || match (widget)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = ui_find_first_full (child, type, match);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first mapped widget of @type under @root, in tree order, or NULL. */
GtkWidget *
ui_find_first (gpointer root,
               GType    type)
{
  return ui_find_first_full (root, type, NULL);
}

/* Whether the menu @model, or one of its sections and submenus, has an
 * item that activates @action. */
gboolean
ui_menu_has_action (GMenuModel *model,
                    const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (model, i, G_MENU_LINK_SUBMENU);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return TRUE;
      if ((section != NULL && ui_menu_has_action (section, action)) ||
          (submenu != NULL && ui_menu_has_action (submenu, action)))
        return TRUE;
    }
  return FALSE;
}

/* No toast left on @window's overlay, their hide animations ended: a
 * window that goes with a toast still on it is not finalized
 * (libadwaita 1.2). */
gboolean
ui_no_toasts (gpointer window)
{
  GtkWidget *overlay = GTK_WIDGET (natter_window_get_toast_overlay (window));
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (overlay); child != NULL; child = gtk_widget_get_next_sibling (child))
    n++;
  return n == 1;
}

static gboolean
toasts_settled (gpointer window)
{
  return natter_toast_guard_is_settled (ADW_TOAST_OVERLAY (natter_window_get_toast_overlay (window)));
}

/* Clicks the button labelled @label of the toast on @window, once every
 * toast there has finished appearing, as a person's click comes: the
 * button dismisses its toast past the window's toast guard, and
 * libadwaita 1.2 frees a toast twice when that happens while it is still
 * sliding in. */
void
ui_click_toast_button (gpointer    window,
                       const char *label)
{
  GtkWidget *button;

  ui_wait_until (toasts_settled, window);
  button = ui_find_button (natter_window_get_toast_overlay (window), label);
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
}

/* Whether a mapped label under @root says exactly @text. */
gboolean
ui_label_shown (gpointer    root,
                const char *text)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), text) == 0)
      return TRUE;
  return FALSE;
}

typedef struct
{
  gpointer    root;
  const char *text;
} LabelWait;

static gboolean
label_wait_shown (gpointer data)
{
  LabelWait *w = data;

  ui_settle ();
  return ui_label_shown (w->root, w->text);
}

static char *
describe_labels (gpointer data)
{
  LabelWait *w = data;
  g_autoptr(GPtrArray) labels = ui_find_all (w->root, GTK_TYPE_LABEL);
  GString *seen = g_string_new (NULL);

  g_string_append_printf (seen, "no label says “%s”; the labels:", w->text);
  for (guint i = 0; i < labels->len; i++)
    g_string_append_printf (seen, " “%s”", gtk_label_get_text (g_ptr_array_index (labels, i)));
  return g_string_free (seen, FALSE);
}

/* Waits until a mapped label under @root says exactly @text; a timeout
 * names the labels that were there. */
void
ui_wait_label (gpointer    root,
               const char *text)
{
  LabelWait w = { root, text };

  ui_wait_until_full (label_wait_shown, describe_labels, &w);
}

/* The first mapped button under @root labelled @label, or NULL. */
GtkWidget *
ui_find_button (gpointer    root,
                const char *label)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), label) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

/* The sidebar row of @session_id in @window, or NULL while it is not
 * shown. */
NatterSessionRow *
ui_find_session_row (NatterWindow *window,
                     const char   *session_id)
{
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      NatterSessionIndexEntry *entry = natter_session_row_get_entry (g_ptr_array_index (rows, i));

      if (entry != NULL && g_strcmp0 (natter_session_index_entry_get_session_id (entry), session_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  return NULL;
}

/* The first mapped toplevel window of @type (a dialog the window
 * opened), or NULL. */
GtkWindow *
ui_find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (w, type) && gtk_widget_get_mapped (GTK_WIDGET (w)))
        return GTK_WINDOW (w);
    }
  return NULL;
}

/* Whether a window of the GType in @type (GSIZE_TO_POINTER()) shows. */
gboolean
ui_toplevel_shown (gpointer type)
{
  return ui_find_toplevel (GPOINTER_TO_SIZE (type)) != NULL;
}

/* Whether no window of the GType in @type (GSIZE_TO_POINTER()) shows. */
gboolean
ui_toplevel_gone (gpointer type)
{
  return ui_find_toplevel (GPOINTER_TO_SIZE (type)) == NULL;
}

/* Whether the widget @data is mapped. */
gboolean
ui_is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data));
}

/* Whether the window @data has an open session whose timeline has read
 * its session file. */
gboolean
ui_timeline_loaded (gpointer data)
{
  NatterTimelineModel *timeline = natter_window_get_timeline (data);

  /* A conversation picked in the list is shown once its turns are read:
   * until then the window's timeline is the one it showed before. */
  return timeline != NULL && natter_timeline_model_get_loaded (timeline) &&
         natter_window_get_opening_session_id (data) == NULL;
}

/* A window of @app over @u's service with the fake agent "helper",
 * shown at 1000x700 and mapped. */
NatterWindow *
ui_window_new (NatterApplication *app,
               UiWorld           *u)
{
  NatterWindow *window = natter_window_new (app, u->sessions, u->w->hub);

  natter_window_set_agent_id (window, "helper");
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, window);
  return window;
}

static gboolean
window_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static char *
describe_window_kept (gpointer data)
{
  return g_strdup ("the destroyed window is still referenced");
}

/* Destroys @window and asserts that it is finalized. */
void
ui_destroy_window (NatterWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  /* Work the window started (a read, a stream's end) holds it until its
   * callback runs; it must let go then, or it is a leak. */
  ui_wait_until_full (window_gone, describe_window_kept, &weak);
}

/**
 * ui_find_permissions_list:
 *
 * Finds the Permissions dialog's list on screen, in any toplevel.
 *
 * Returns: (transfer none) (nullable): the mapped list, or %NULL
 */
NatterPermissionsList *
ui_find_permissions_list (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      GtkWidget *list = ui_find_first (w, NATTER_TYPE_PERMISSIONS_LIST);

      if (list != NULL && gtk_widget_get_mapped (list))
        return NATTER_PERMISSIONS_LIST (list);
    }
  return NULL;
}

/**
 * ui_permissions_list_shows:
 * @n_grants: GUINT_TO_POINTER() of the number of grants expected
 *
 * A condition for ui_wait_until(): the Permissions dialog's list is on
 * screen, has read the grants, and lists @n_grants of them.
 *
 * Returns: whether it does
 */
gboolean
ui_permissions_list_shows (gpointer n_grants)
{
  NatterPermissionsList *list;

  ui_settle ();
  list = ui_find_permissions_list ();
  return list != NULL && natter_permissions_list_is_loaded (list) &&
         natter_permissions_list_get_n_grants (list) == GPOINTER_TO_UINT (n_grants);
}

static gboolean
preferences_idle (gpointer window)
{
  return natter_preferences_window_get_n_pending (window) == 0;
}

/**
 * ui_wait_preferences_idle:
 * @window: a Preferences window
 *
 * Waits until @window (and the pages that count their work with it) has
 * nothing under way, and has shown what it did.
 */
void
ui_wait_preferences_idle (NatterPreferencesWindow *window)
{
  ui_wait_until (preferences_idle, window);
  ui_settle ();
}

/**
 * ui_destroy_preferences_window:
 * @window: (transfer none): a Preferences window the test presented
 *
 * Destroys @window, lets the work its pages started (a key read, a
 * server's listing) end, and asserts that it is then finalized.
 */
void
ui_destroy_preferences_window (NatterPreferencesWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  while (weak != NULL && natter_preferences_window_get_n_pending (weak) > 0)
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 100 && g_main_context_iteration (NULL, FALSE); i++)
    ;
  g_assert_null (weak);
}

/* A registered, non-unique application for the tests' windows
 * (transfer full). */
NatterApplication *
ui_app_new (void)
{
  g_autoptr(GError) error = NULL;
  NatterApplication *app;

  app = natter_application_new (natter_cli_get_commands ());
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("Could not register the application: %s", error->message);
  return app;
}

/* Screenshots
 *
 * PNGs for a person to look at, in screenshots/ under the test's build
 * directory: g_test_get_dir (G_TEST_BUILT), which is $G_TEST_BUILDDIR
 * (tests/ui/meson.build sets it to build/tests/ui). */

/* The path of screenshot @name, with its folder made (transfer full). */
char *
ui_screenshot_path (const char *name)
{
  g_autofree char *dir = g_build_filename (g_test_get_dir (G_TEST_BUILT), "screenshots", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  return g_build_filename (dir, name, NULL);
}

/**
 * ui_publish_screenshot:
 * @name: a screenshot ui_save_window() saved
 * @to: the folder of the source tree it belongs in, e.g. "data/screenshots"
 *
 * Copies the screenshot into the source tree when NATTER_UPDATE_SCREENSHOTS
 * is set in the environment (the pictures of the README and the docs);
 * does nothing otherwise.
 */
void
ui_publish_screenshot (const char *name,
                       const char *to)
{
  g_autofree char *from = NULL;
  g_autofree char *path = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  gsize length;

  if (g_getenv ("NATTER_UPDATE_SCREENSHOTS") == NULL)
    return;
  from = ui_screenshot_path (name);
  path = g_test_build_filename (G_TEST_DIST, "..", "..", to, name, NULL);
  g_assert_true (g_file_get_contents (from, &contents, &length, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  g_assert_no_error (error);
  g_test_message ("Published %s", path);
}

typedef struct
{
  GtkWidget  *widget;
  GdkTexture *texture;
} UiShot;

static gboolean
ui_is_unallocated_snapshot (const char *message)
{
  return message != NULL &&
         g_str_has_prefix (message, "Trying to snapshot ") &&
         strstr (message, " without a current allocation") != NULL;
}

/* Says where the widget of GTK's "Trying to snapshot TYPE 0xADDRESS
 * without a current allocation" sits (its ancestors and its first
 * children), which the warning itself does not. */
static void
ui_describe_unallocated (const char *message)
{
  const char *at = strstr (message, " 0x");
  GtkWidget *widget;
  g_autoptr(GString) where = g_string_new (NULL);

  if (at == NULL)
    return;
  widget = GSIZE_TO_POINTER ((gsize) g_ascii_strtoull (at + 3, NULL, 16));
  if (!GTK_IS_WIDGET (widget))
    return;
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    g_string_append_printf (where, "%s%s", w == widget ? "" : " < ", G_OBJECT_TYPE_NAME (w));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_first_child (child))
    g_string_append_printf (where, " > %s", G_OBJECT_TYPE_NAME (child));
  g_printerr ("The widget without an allocation: %s; child-visible %d, focus within %d, its parent's focus child %d, "
              "size %dx%d\n", where->str, gtk_widget_get_child_visible (widget),
              (gtk_widget_get_state_flags (widget) & GTK_STATE_FLAG_FOCUS_WITHIN) != 0,
              gtk_widget_get_parent (widget) != NULL && gtk_widget_get_focus_child (gtk_widget_get_parent (widget)) == widget,
              gtk_widget_get_width (widget), gtk_widget_get_height (widget));
}

/* Whether @message is GTK's or Pango's word that a text given as markup
 * did not parse ("Failed to set text '…' from markup due to error
 * parsing markup: Error on line 1: …"): what a user's or a server's "&"
 * or "<" does where it reaches markup unescaped. */
static gboolean
ui_is_markup_warning (const char *message)
{
  return message != NULL &&
         ((strstr (message, "Failed to set text ") != NULL && strstr (message, " from markup") != NULL) ||
          strstr (message, "Error on line ") != NULL);
}

/* GLib's own writer, after naming the widget of a warning that does not
 * say where it is: a flake seen once under load is then understood from
 * its log alone. A markup warning fails the test even where warnings
 * are not fatal (test-math's software rendering), and says why: the
 * text shown is then empty or wrong, not only logged. */
static GLogWriterOutput
ui_log_writer (GLogLevelFlags   log_level,
               const GLogField *fields,
               gsize            n_fields,
               gpointer         user_data)
{
  const char *message = NULL;
  gboolean markup = FALSE;
  GLogWriterOutput output;

  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
      message = fields[i].value;
  if (ui_is_unallocated_snapshot (message))
    ui_describe_unallocated (message);
  /* Said before GLib's writer, which ends the program on a warning made
   * fatal. */
  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) != 0 &&
      ui_is_markup_warning (message))
    {
      markup = TRUE;
      g_printerr ("%sA user's or a server's text reached markup unescaped: %s\n",
                  g_test_get_path () == NULL ? "Bail out! " : "", message);
      if (g_test_get_path () != NULL)
        g_test_fail_printf ("A user's or a server's text reached markup unescaped: %s", message);
    }
  output = g_log_writer_default (log_level, fields, n_fields, user_data);
  if (markup && g_test_get_path () == NULL)
    abort ();
  return output;
}

/* Right after a frame is painted everything is allocated, so the widget
 * can draw itself into a texture then. */
static void
ui_shot_after_paint_cb (GdkFrameClock *clock,
                        UiShot        *shot)
{
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  int width = gtk_widget_get_width (shot->widget);
  int height = gtk_widget_get_height (shot->widget);

  if (shot->texture != NULL || width <= 0)
    return;
  snapshot = gtk_snapshot_new ();
  /* The class snapshot leaves out a window's own background, and
   * libadwaita's dark cards are translucent over it: paint it first. */
  if (GTK_IS_WINDOW (shot->widget))
    {
      GdkRGBA background = { 0.98f, 0.98f, 0.98f, 1.f };

      gtk_style_context_lookup_color (gtk_widget_get_style_context (shot->widget), "window_bg_color", &background);
      gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, width, height));
    }
  /* GTK 4.8 has no public gtk_widget_snapshot(). */
  GTK_WIDGET_GET_CLASS (shot->widget)->snapshot (shot->widget, snapshot);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  shot->texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (shot->widget)), node,
                                               &GRAPHENE_RECT_INIT (0, 0, width, height));
}

static gboolean
ui_shot_taken (gpointer data)
{
  return ((UiShot *) data)->texture != NULL;
}

/* Saves what @window (a window, or another GtkNative such as a popover)
 * draws, once the main loop has settled, to screenshots/@name (a PNG).
 * It draws through GTK, so it needs no X display; but the window's
 * children keep the render nodes they had before a style change (a
 * sidebar stays light in dark style): ui_save_screen() shows those. */
void
ui_save_window (GtkWidget  *window,
                const char *name)
{
  g_autofree char *file = ui_screenshot_path (name);
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
  UiShot shot = { window, NULL };
  gulong handler;

  for (int i = 0; i < 5; i++)
    ui_settle ();
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (ui_shot_after_paint_cb), &shot);
  gtk_widget_queue_draw (window);
  ui_wait_until (ui_shot_taken, &shot);
  g_signal_handler_disconnect (clock, handler);
  g_assert_true (gdk_texture_save_to_png (shot.texture, file));
  g_object_unref (shot.texture);
  g_test_message ("Saved %s", file);
}

/* Whether ui_save_screen() can take a screenshot: an X display and
 * ImageMagick's import. */
gboolean
ui_can_save_screen (void)
{
  g_autofree char *import = g_find_program_in_path ("import");

  return import != NULL && g_getenv ("DISPLAY") != NULL;
}

static void
ui_painted_cb (GdkFrameClock *clock,
               gboolean      *painted)
{
  *painted = TRUE;
}

/* Whether the gboolean at @data is TRUE. */
gboolean
ui_is_true (gpointer data)
{
  return *(gboolean *) data;
}

/* Waits until every shown window has painted a frame since now, and the
 * X server has what they drew: what changed before is on the screen
 * (settling the main loop alone can end before the frame). */
void
ui_wait_painted (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);
      GdkFrameClock *clock = gtk_widget_get_frame_clock (window);
      gboolean painted = FALSE;
      gulong handler;

      if (!gtk_widget_get_mapped (window) || clock == NULL)
        continue;
      handler = g_signal_connect (clock, "after-paint", G_CALLBACK (ui_painted_cb), &painted);
      gtk_widget_queue_draw (window);
      ui_wait_until (ui_is_true, &painted);
      g_signal_handler_disconnect (clock, handler);
    }
  gdk_display_sync (gdk_display_get_default ());
}

/* Saves the whole X screen, once the main loop has settled, to
 * screenshots/@name (a PNG) with ImageMagick's `import -window root`:
 * what the user sees, after a style change too, and popovers (surfaces
 * of their own) with it. Returns FALSE, saving nothing, without an X
 * display or import (see ui_can_save_screen()). */
gboolean
ui_save_screen (const char *name)
{
  g_autofree char *import = NULL;
  g_autofree char *file = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!ui_can_save_screen ())
    return FALSE;
  import = g_find_program_in_path ("import");
  file = ui_screenshot_path (name);
  for (int i = 0; i < 20; i++)
    ui_settle ();
  ui_wait_painted ();
  g_assert_true (g_spawn_sync (NULL, (char *[]) { import, (char *) "-window", (char *) "root", file, NULL }, NULL,
                               G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("Saved %s", file);
  return TRUE;
}

/* Start-up */

/* The suites run as `dbus-run-session -- xvfb-run …`: the session bus
 * starts before the display, so what it activates has no DISPLAY. The
 * answer view's hidden WebKitGTK view starts the accessibility bus, whose
 * registry then cannot synthesize a key press for the e2e tests that run
 * later on the same bus. Every UI test gives the bus the display first,
 * as dbus-update-activation-environment does. */
static void
give_bus_the_display (void)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autoptr(GVariantBuilder) env = g_variant_builder_new (G_VARIANT_TYPE ("a{ss}"));
  g_autoptr(GVariant) reply = NULL;

  if (bus == NULL || g_getenv ("DISPLAY") == NULL)
    return;
  g_variant_builder_add (env, "{ss}", "DISPLAY", g_getenv ("DISPLAY"));
  if (g_getenv ("XAUTHORITY") != NULL)
    g_variant_builder_add (env, "{ss}", "XAUTHORITY", g_getenv ("XAUTHORITY"));
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "UpdateActivationEnvironment", g_variant_new ("(a{ss})", env), NULL,
                                       G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
}

/**
 * ui_test_init:
 * @argc: the test's argument count
 * @argv: the test's arguments
 *
 * Initialises GLib's test framework, GTK (gtk_test_init()) and
 * libadwaita: what every window test does first; and turns the
 * `auto-title` setting off (the memory backend keeps it for the process).
 */
void
ui_test_init (int    *argc,
              char ***argv)
{
  g_autoptr(GSettings) settings = NULL;

  g_log_set_writer_func (ui_log_writer, NULL, NULL);
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  give_bus_the_display ();
  /* The tests script every model call; the one that names a conversation
   * is asked for only where a test turns automatic titles back on. */
  settings = g_settings_new ("io.github.natter.Natter");
  g_settings_set_boolean (settings, "auto-title", FALSE);
}

/**
 * ui_test_init_with_app:
 * @argc: the test's argument count
 * @argv: the test's arguments
 *
 * ui_test_init(), then a registered application (ui_app_new()) for the
 * test's windows.
 *
 * Returns: (transfer full): the application; the test unrefs it after
 *   g_test_run().
 */
NatterApplication *
ui_test_init_with_app (int    *argc,
                       char ***argv)
{
  ui_test_init (argc, argv);
  return ui_app_new ();
}
