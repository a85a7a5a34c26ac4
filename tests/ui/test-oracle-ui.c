/* test-oracle-ui.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model-based test of the session layer (tests/oracle/) with the
 * window as one more reader: a real NatterWindow over the same services
 * shows, after every operation, the conversation the operation touched,
 * and its timeline (one NatterTurnItem per turn, inherited ones first)
 * and its list must read as the model says. The window stays on a
 * conversation from one operation to the next, so what it shows is what
 * it followed live, not only what it read when it opened; a restart (or a
 * `natter` process) closes it and opens a new one over the new services.
 * Each seed runs twice: with the send pipeline as the front end, and with
 * the window's composer and actions (Try Again, Compact and Continue,
 * edits, the error bar's Retry) sending. Fewer seeds than the core
 * variant (test-oracle): a window is slow. ORACLE_SEED=N runs one seed,
 * as there (ORACLE_WINDOW_SENDS=1: with the window sending).
 */

#include <string.h>

#include "natter-composer.h"
#include "natter-session-grants-queue.h"
#include "natter-sidebar.h"
#include "natter-sidebar-sections.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"
#include "oracle-driver.h"
#include "oracle-driver-private.h"

#define UI_OPS 30

static const guint32 ui_seeds[] = { 3, 7 };

/* One registered application for every seed: a second one registered in
 * the same process finds the first one's object path still exported. */
static NatterApplication *test_app;

typedef struct
{
  NatterApplication *app;
  NatterWindow      *window;
  OracleDriver      *d;
  GSettings         *settings;   /* the window's (the default ones) */
} Ui;

static void
restart_cb (OracleDriver *d,
            gboolean      loaded,
            gpointer      data)
{
  Ui *ui = data;
  NatterServices *services = oracle_driver_get_services (d);

  if (!loaded)
    {
      if (ui->window != NULL)
        ui_destroy_window (g_steal_pointer (&ui->window));
      return;
    }
  ui->window = natter_window_new (ui->app, natter_services_get_sessions (services), natter_services_get_hub (services));
  natter_window_set_blob_store (ui->window, natter_services_get_blob_store (services));
  natter_window_set_model_provider (ui->window, natter_services_get_provider_registry (services), "test", "m");
  /* The folders the services keep, as an application's window shows
   * them: the sidebar lists each conversation under its folder. */
  natter_window_set_folders (ui->window, natter_services_get_folders (services));
  gtk_window_set_default_size (GTK_WINDOW (ui->window), 1000, 700);
  gtk_window_present (GTK_WINDOW (ui->window));
  ui_wait_until (ui_is_mapped, ui->window);
}

typedef struct
{
  Ui         *ui;
  const char *session_id;
} Opening;

/* The window shows @session_id and every turn row of its timeline has
 * read its turn. */
static gboolean
timeline_read (gpointer data)
{
  Opening *opening = data;
  NatterTimelineModel *timeline = natter_window_get_timeline (opening->ui->window);
  guint n;

  if (g_strcmp0 (natter_window_get_session_id (opening->ui->window), opening->session_id) != 0)
    return FALSE;
  /* A conversation that cannot be read is shown without a timeline. */
  if (timeline == NULL)
    {
      NatterServices *services = oracle_driver_get_services (opening->ui->d);
      NatterSessionIndexEntry *entry = natter_session_index_lookup (
        natter_sessions_list_sessions (natter_services_get_sessions (services)), opening->session_id);

      return entry != NULL && natter_session_index_entry_get_error (entry) != NULL;
    }
  if (!natter_timeline_model_get_loaded (timeline))
    return FALSE;
  n = g_list_model_get_n_items (G_LIST_MODEL (timeline));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (timeline), i);

      if (!NATTER_IS_TURN_ITEM (item))
        continue;
      natter_turn_item_ensure_loaded (NATTER_TURN_ITEM (item));
      if (natter_turn_item_get_loading (NATTER_TURN_ITEM (item)))
        return FALSE;
    }
  return TRUE;
}

/* Where the sidebar lists @s, by the header above its row
 * (docs/sessions.md §16): under Pinned it is pinned (its folder is not
 * shown), under a folder in that one, under Recent or in a plain list
 * in none. Nothing when the list does not show its row (a version behind
 * its conversation's head, a collapsed folder's). */
static void
read_window_place (Ui         *ui,
                   OSession   *s,
                   JsonObject *view)
{
  GtkSelectionModel *selection = gtk_list_view_get_model (GTK_LIST_VIEW (natter_sidebar_get_list (ui->window->session_sidebar)));
  GListModel *rows = selection != NULL ? G_LIST_MODEL (selection) : NULL;
  NatterSidebarHeader *above = NULL;

  for (guint i = 0; rows != NULL && i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (rows, i);

      if (NATTER_IS_SIDEBAR_HEADER (item))
        above = NATTER_SIDEBAR_HEADER (item);
      else if (NATTER_IS_SESSION_INDEX_ENTRY (item) &&
               g_strcmp0 (natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item)), s->id) == 0)
        {
          NatterSidebarHeaderKind kind = above != NULL ? natter_sidebar_header_get_kind (above)
                                                       : NATTER_SIDEBAR_HEADER_RECENT;

          json_object_set_boolean_member (view, "pinned", kind == NATTER_SIDEBAR_HEADER_PINNED);
          if (kind == NATTER_SIDEBAR_HEADER_FOLDER)
            json_object_set_string_member (view, "folder",
                                           natter_folder_get_name (natter_sidebar_header_get_folder (above)));
          else if (kind == NATTER_SIDEBAR_HEADER_RECENT)
            json_object_set_null_member (view, "folder");
          return;
        }
    }
}

/* What the window shows of @s: its list row's title, and its timeline's
 * turns (each reduced from the item's state, the way the rows show it). */
static JsonNode *
read_window (OracleDriver *d,
             OSession     *s,
             gpointer      data)
{
  Ui *ui = data;
  g_autoptr(JsonObject) view = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  GListModel *sidebar = natter_window_get_sidebar_model (ui->window);
  NatterTimelineModel *timeline;
  Opening opening = { ui, s->id };
  JsonArray *turns;

  for (guint i = 0; sidebar != NULL && i < g_list_model_get_n_items (sidebar); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (sidebar, i);

      if (NATTER_IS_SESSION_INDEX_ENTRY (item) &&
          g_strcmp0 (natter_session_index_entry_get_session_id (NATTER_SESSION_INDEX_ENTRY (item)), s->id) == 0)
        {
          const char *title = natter_session_index_entry_get_title (NATTER_SESSION_INDEX_ENTRY (item));

          if (title != NULL)
            json_object_set_string_member (view, "title", title);
          else
            json_object_set_null_member (view, "title");
        }
    }
  read_window_place (ui, s, view);
  if (oracle_latest_own (s) != NULL && oracle_latest_own (s)->damaged)
    {
      /* A conversation the list shows as damaged is not opened. */
      json_node_take_object (node, g_steal_pointer (&view));
      return node;
    }
  if (g_strcmp0 (natter_window_get_session_id (ui->window), s->id) != 0)
    natter_window_open_session (ui->window, s->id);
  if (!timeline_read (&opening))
    {
      /* Not yet: the driver reads again until it matches or time is up. */
      json_object_set_string_member (view, "unreadable", "the window has not read the conversation yet");
      json_node_take_object (node, g_steal_pointer (&view));
      return node;
    }
  timeline = natter_window_get_timeline (ui->window);
  turns = json_array_new ();
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (timeline)); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (G_LIST_MODEL (timeline), i);
      NatterTurnItem *turn;
      gboolean own;

      if (!NATTER_IS_TURN_ITEM (item))
        continue;
      turn = NATTER_TURN_ITEM (item);
      own = natter_turn_item_get_inherited_from (turn) == NULL;
      if (natter_turn_item_get_error (turn) != NULL || natter_turn_item_get_state (turn) == NULL)
        {
          JsonObject *damaged = json_object_new ();

          json_object_set_boolean_member (damaged, "own", own);
          json_object_set_boolean_member (damaged, "damaged", TRUE);
          json_array_add_object_element (turns, damaged);
          continue;
        }
      json_array_add_object_element (turns, oracle_turn_reading (natter_turn_item_get_state (turn), own,
                                                                 natter_turn_item_get_running (turn)));
    }
  json_object_set_array_member (view, "turns", turns);
  json_object_set_int_member (view, "inherited", natter_timeline_model_get_n_inherited (timeline));
  json_node_take_object (node, g_steal_pointer (&view));
  return node;
}


/* ------------------------------------------------------------------ */
/* The window as the front end                                          */
/* ------------------------------------------------------------------ */

/* What an action of the person led to: the service's conversations
 * before it, and what is new after. */
typedef struct
{
  Ui         *ui;
  char       *target;           /* the conversation typed in, or NULL */
  GHashTable *before;           /* session id → its turn count */
  guint       n_queued;         /* the target's queue before */
  gboolean    refused_at_once;  /* the composer did not take the message */
  gboolean    dirty;            /* the index changed since the last look */
  gboolean    done;             /* something came of it (the look is not repeated) */
  OracleSent *out;
} Watch;

static void
index_changed_cb (Watch    *watch,
                  guint     position,
                  guint     removed,
                  guint     added)
{
  watch->dirty = TRUE;
}

static guint
n_queued (Ui         *ui,
          const char *session_id)
{
  g_autoptr(NatterSessionState) state = session_id != NULL ? oracle_driver_read_session (ui->d, session_id) : NULL;

  return state != NULL ? natter_session_state_get_n_queued (state) : 0;
}

static void
watch_begin (Watch      *watch,
             Ui         *ui,
             const char *target,
             OracleSent *out)
{
  GListModel *index = G_LIST_MODEL (natter_sessions_list_sessions (
    natter_services_get_sessions (oracle_driver_get_services (ui->d))));

  memset (watch, 0, sizeof *watch);
  watch->ui = ui;
  watch->out = out;
  watch->target = g_strdup (target);
  watch->before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      g_hash_table_insert (watch->before, g_strdup (natter_session_index_entry_get_session_id (entry)),
                           GUINT_TO_POINTER (natter_session_index_entry_get_turn_count (entry)));
    }
  watch->n_queued = n_queued (ui, target);
  /* Every write to a session file updates its list entry. */
  g_signal_connect_swapped (index, "items-changed", G_CALLBACK (index_changed_cb), watch);
  /* An error shown from now on is this action's. */
  gtk_revealer_set_reveal_child (GTK_REVEALER (natter_window_get_error_bar (ui->window)), FALSE);
}

static char *
error_text (Ui *ui)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_error_bar (ui->window), GTK_TYPE_LABEL);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < labels->len; i++)
    g_string_append_printf (text, "%s%s", text->len > 0 ? ": " : "",
                            gtk_label_get_text (g_ptr_array_index (labels, i)));
  return g_string_free (text, FALSE);
}

static gboolean
retry_offered (Ui *ui)
{
  GtkWidget *button = ui_find_button (natter_window_get_error_bar (ui->window), "_Retry");

  return button != NULL && gtk_widget_get_visible (button);
}

/* Something came of the action: a new conversation with a turn (a new
 * one, a version), a new turn or queued message in the conversation, or
 * an error shown. */
static gboolean watch_look (Watch *watch);

static gboolean
watch_done_cb (gpointer data)
{
  Watch *watch = data;

  if (!watch->done)
    watch->done = watch_look (watch);
  return watch->done;
}

static gboolean
watch_look (Watch *watch)
{
  Ui *ui = watch->ui;
  GListModel *index = G_LIST_MODEL (natter_sessions_list_sessions (
    natter_services_get_sessions (oracle_driver_get_services (ui->d))));

  if (watch->refused_at_once)
    return TRUE;
  if (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (ui->window))))
    {
      g_autofree char *text = error_text (ui);

      watch->out->error = g_error_new_literal (ORACLE_SHOWN_REFUSAL, 0, text);
      watch->out->retry_offered = retry_offered (ui);
      return TRUE;
    }
  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);
      const char *id = natter_session_index_entry_get_session_id (entry);
      guint n = natter_session_index_entry_get_turn_count (entry);
      gpointer was;
      gboolean known = g_hash_table_lookup_extended (watch->before, id, NULL, &was);

      if ((!known && n > 0) || (known && n > GPOINTER_TO_UINT (was) && g_strcmp0 (id, watch->target) == 0))
        {
          watch->out->session_id = g_strdup (id);
          watch->out->turn_id = g_strdup (natter_session_index_entry_get_latest_turn_id (entry));
          return TRUE;
        }
    }
  if (watch->target != NULL && watch->dirty)
    {
      g_autoptr(NatterSessionState) state = oracle_driver_read_session (ui->d, watch->target);

      watch->dirty = FALSE;
      if (state != NULL && natter_session_state_get_n_queued (state) > watch->n_queued)
        {
          watch->out->session_id = g_strdup (watch->target);
          watch->out->queue_id = g_strdup (natter_session_state_get_queued (
            state, natter_session_state_get_n_queued (state) - 1)->queue_id);
          return TRUE;
        }
    }
  return FALSE;
}

static void
watch_end (Watch *watch)
{
  Ui *ui = watch->ui;

  if (!watch->refused_at_once && !oracle_driver_wait (ui->d, watch_done_cb, watch))
    watch->out->error = g_error_new_literal (ORACLE_SHOWN_REFUSAL, 0, "the window did nothing with the message");
  else if (watch->refused_at_once)
    watch->out->error = g_error_new_literal (ORACLE_SHOWN_REFUSAL, 0,
                                             natter_composer_get_blocked_reason (natter_window_get_composer (ui->window))
                                             ? natter_composer_get_blocked_reason (natter_window_get_composer (ui->window))
                                             : "the composer did not take the message");
  g_signal_handlers_disconnect_by_data (natter_sessions_list_sessions (
    natter_services_get_sessions (oracle_driver_get_services (ui->d))), watch);
  g_hash_table_unref (watch->before);
  g_free (watch->target);
}

static void
open_in_window (Ui         *ui,
                const char *session_id)
{
  Opening opening = { ui, session_id };

  if (g_strcmp0 (natter_window_get_session_id (ui->window), session_id) != 0)
    natter_window_open_session (ui->window, session_id);
  oracle_driver_wait (ui->d, timeline_read, &opening);
}

typedef struct
{
  Ui         *ui;
  GHashTable *before;
} NewChat;

static gboolean
new_chat_open_cb (gpointer data)
{
  NewChat *chat = data;
  const char *id = natter_window_get_session_id (chat->ui->window);

  /* The window opens a draft (no session until its first message is
   * sent) or, as it used to, a new empty session. */
  return chat->ui->window->conversation.new_chat || (id != NULL && !g_hash_table_contains (chat->before, id));
}

/* A new conversation, as the person starts one: New Chat, which opens an
 * empty conversation to type in. (New Chat on a conversation that has no
 * turns of its own keeps that one: the window is moved off it first.) */
static void
window_new_chat (Ui *ui)
{
  GListModel *index = G_LIST_MODEL (natter_sessions_list_sessions (
    natter_services_get_sessions (oracle_driver_get_services (ui->d))));
  NewChat chat = { ui, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL) };

  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      g_hash_table_add (chat.before, g_strdup (natter_session_index_entry_get_session_id (entry)));
    }
  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      if (natter_session_index_entry_get_turn_count (entry) > 0 &&
          natter_session_index_entry_get_error (entry) == NULL)
        {
          open_in_window (ui, natter_session_index_entry_get_session_id (entry));
          break;
        }
    }
  gtk_widget_activate_action (GTK_WIDGET (ui->window), "win.new-chat", NULL);
  oracle_driver_wait (ui->d, new_chat_open_cb, &chat);
  g_hash_table_unref (chat.before);
}

static void
window_send (OracleDriver *d,
             const char   *session_id,
             const char   *text,
             GPtrArray    *files,
             gboolean      queue,
             guint         max_calls,
             OracleSent   *out)
{
  Ui *ui = oracle_driver_get_front_data (d);
  NatterComposer *composer = natter_window_get_composer (ui->window);
  Watch watch;

  if (session_id != NULL)
    open_in_window (ui, session_id);
  else
    window_new_chat (ui);
  g_settings_set_uint (ui->settings, "max-model-calls", max_calls > 0 ? max_calls : 50);
  watch_begin (&watch, ui, natter_window_get_session_id (ui->window), out);
  natter_composer_set_text (composer, text);
  for (guint i = 0; files != NULL && i < files->len; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (((OFile *) g_ptr_array_index (files, i))->path);

      natter_composer_add_file (composer, file);
    }
  watch.refused_at_once = !natter_composer_send (composer);
  watch_end (&watch);
  if (watch.refused_at_once)
    {
      /* What the person typed stays in the composer; they clear it. */
      natter_composer_set_text (composer, NULL);
      g_ptr_array_unref (natter_composer_take_attachments (composer));
    }
  g_settings_set_uint (ui->settings, "max-model-calls", 50);
}

static void
window_again (OracleDriver *d,
              const char   *shown_in,
              const char   *turn_id,
              gboolean      compact_first,
              OracleSent   *out)
{
  Ui *ui = oracle_driver_get_front_data (d);
  Watch watch;

  open_in_window (ui, shown_in);
  watch_begin (&watch, ui, NULL, out);
  gtk_widget_activate_action (GTK_WIDGET (ui->window), compact_first ? "win.compact-and-continue" : "win.try-again",
                              "s", turn_id);
  watch_end (&watch);
}

static void
window_edit (OracleDriver *d,
             const char   *shown_in,
             const char   *turn_id,
             const char   *text,
             OracleSent   *out)
{
  Ui *ui = oracle_driver_get_front_data (d);
  NatterComposer *composer = natter_window_get_composer (ui->window);
  Watch watch;

  open_in_window (ui, shown_in);
  /* As a person does, from the message's row: shown, and read. */
  ui_wait_turn_read (ui->window, turn_id);
  gtk_widget_activate_action (GTK_WIDGET (ui->window), "win.edit-message", "s", turn_id);
  watch_begin (&watch, ui, NULL, out);
  natter_composer_set_text (composer, text);
  watch.refused_at_once = !natter_composer_send (composer);
  watch_end (&watch);
}

static void
window_retry (OracleDriver *d,
              OracleSent   *out)
{
  Ui *ui = oracle_driver_get_front_data (d);
  Watch watch;

  watch_begin (&watch, ui, natter_window_get_session_id (ui->window), out);
  gtk_widget_activate_action (GTK_WIDGET (ui->window), "win.retry-send", NULL);
  watch_end (&watch);
}

/* The error bar of the conversation that refused the message still
 * offers Retry: the window is on it. */
static gboolean
window_can_retry (OracleDriver *d)
{
  Ui *ui = oracle_driver_get_front_data (d);

  return d->refused_session != NULL &&
         g_strcmp0 (natter_window_get_session_id (ui->window), d->refused_session->id) == 0 &&
         retry_offered (ui);
}

static const OracleFrontEnd window_front_end = {
  .name = "the window",
  .send = window_send,
  .again = window_again,
  .edit = window_edit,
  .retry = window_retry,
  .can_retry = window_can_retry,
  .auto_queue = TRUE,
  .edit_keeps_files = TRUE,
};

static void
run_seed (guint32  seed,
          guint    n_ops,
          gboolean window_front)
{
  OracleOptions options = {
    .seed = seed,
    .n_ops = n_ops,
    .cli_every = 0,
    /* Sent from the window, a message goes to the window's provider
     * ("test"), which a `natter` process does not know. */
    .cli_ops = !window_front,
    .verbose = g_getenv ("ORACLE_VERBOSE") != NULL,
    .defer = g_getenv ("ORACLE_DEFER"),
    .plain = g_getenv ("ORACLE_PLAIN") != NULL,
  };
  Ui ui = { 0 };
  OracleDriver *d;
  gboolean ok;
  g_autofree char *report = NULL;

  ui.app = test_app;
  ui.settings = g_settings_new ("io.github.natter.Natter");
  g_settings_set_boolean (ui.settings, "auto-title", TRUE);
  g_settings_set_boolean (ui.settings, "auto-compact", FALSE);
  d = oracle_driver_new (&options);
  ui.d = d;
  oracle_driver_add_reader (d, "the window", read_window, TRUE, &ui);
  if (window_front)
    oracle_driver_set_front_end (d, &window_front_end, &ui);
  oracle_driver_set_restart_hook (d, restart_cb, &ui);
  ok = oracle_driver_run (d);
  report = oracle_driver_dup_report (d);
  if (!ok || options.verbose)
    g_printerr ("%s", report);
  else
    g_test_message ("%s", report);
  if (ok)
    {
      oracle_driver_set_restart_hook (d, NULL, NULL);
      if (ui.window != NULL)
        ui_destroy_window (g_steal_pointer (&ui.window));
    }
  oracle_driver_free (d);
  g_object_unref (ui.settings);
  if (!ok)
    g_test_fail_printf ("seed %u failed; rerun it with ORACLE_SEED=%u", seed, seed);
}

static void
test_seed (gconstpointer data)
{
  run_seed (GPOINTER_TO_UINT (data), UI_OPS, FALSE);
}

/* The window sends too: messages, Try Again, Compact and Continue,
 * edits and the error bar's Retry go through its composer and actions. */
static void
test_window_seed (gconstpointer data)
{
  run_seed (GPOINTER_TO_UINT (data), UI_OPS, TRUE);
}

static void
test_one (gconstpointer data)
{
  const char *ops = g_getenv ("ORACLE_OPS");

  run_seed ((guint32) g_ascii_strtoull (g_getenv ("ORACLE_SEED"), NULL, 10),
            ops != NULL ? (guint) g_ascii_strtoull (ops, NULL, 10) : UI_OPS, g_getenv ("ORACLE_WINDOW_SENDS") != NULL);
}

int
main (int    argc,
      char **argv)
{
  int status;

  test_app = ui_test_init_with_app (&argc, &argv);

  if (g_getenv ("ORACLE_SEED") != NULL)
    g_test_add_data_func ("/oracle-ui/seed", NULL, test_one);
  else
    for (guint i = 0; i < G_N_ELEMENTS (ui_seeds); i++)
      {
        g_autofree char *path = g_strdup_printf ("/oracle-ui/seed-%u", ui_seeds[i]);
        g_autofree char *window_path = g_strdup_printf ("/oracle-ui/window-sends/seed-%u", ui_seeds[i]);

        g_test_add_data_func (path, GUINT_TO_POINTER (ui_seeds[i]), test_seed);
        g_test_add_data_func (window_path, GUINT_TO_POINTER (ui_seeds[i]), test_window_seed);
      }
  status = g_test_run ();
  g_object_unref (test_app);
  return status;
}
