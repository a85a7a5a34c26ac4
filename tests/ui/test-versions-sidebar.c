/* test-versions-sidebar.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An edit is the conversation going on, not another conversation: the
 * sidebar lists it once, as its latest version.
 */

#include "natter-sessions-settings.h"
#include "test-versions.h"

/* What the sidebar lists, in its order, as "id id …", and the versions
 * text of each row shown ("-" for none). */
typedef struct
{
  NatterWindow *window;
  const char   *ids;
  const char   *versions;
} SidebarWait;

static char *
sidebar_ids (NatterWindow *window)
{
  GListModel *model = natter_window_get_sidebar_model (window);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (model, i);

      g_string_append_printf (out, "%s%s", i > 0 ? " " : "", natter_session_index_entry_get_session_id (entry));
    }
  return g_string_free (out, FALSE);
}

static char *
sidebar_versions (NatterWindow *window)
{
  GListModel *model = natter_window_get_sidebar_model (window);
  g_autoptr(GPtrArray) rows = ui_find_all (natter_window_get_session_list (window), NATTER_TYPE_SESSION_ROW);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (model, i);
      const char *text = NULL;

      for (guint r = 0; r < rows->len; r++)
        if (natter_session_row_get_entry (rows->pdata[r]) == entry)
          text = natter_session_row_get_versions_text (rows->pdata[r]);
      g_string_append_printf (out, "%s%s", i > 0 ? "|" : "", text != NULL ? text : "-");
    }
  return g_string_free (out, FALSE);
}

static gboolean
sidebar_is (gpointer data)
{
  SidebarWait *w = data;
  g_autofree char *ids = NULL;
  g_autofree char *versions = NULL;

  ui_settle ();
  ids = sidebar_ids (w->window);
  versions = sidebar_versions (w->window);
  return g_strcmp0 (ids, w->ids) == 0 && (w->versions == NULL || g_strcmp0 (versions, w->versions) == 0);
}

static char *
describe_sidebar (gpointer data)
{
  SidebarWait *w = data;
  g_autofree char *ids = sidebar_ids (w->window);
  g_autofree char *versions = sidebar_versions (w->window);

  return g_strdup_printf ("the sidebar lists \"%s\" (%s), not \"%s\" (%s)", ids, versions, w->ids,
                          w->versions != NULL ? w->versions : "any");
}

static void
wait_sidebar (NatterWindow *window,
              const char   *versions,
              const char   *first,
              ...)
{
  g_autoptr(GString) ids = g_string_new (NULL);
  SidebarWait w;
  va_list args;

  va_start (args, first);
  for (const char *id = first; id != NULL; id = va_arg (args, const char *))
    g_string_append_printf (ids, "%s%s", ids->len > 0 ? " " : "", id);
  va_end (args);
  w = (SidebarWait) { window, ids->str, versions };
  ui_wait_until_full (sidebar_is, describe_sidebar, &w);
}

static char *
fork_titled (UiWorld    *u,
             const char *session_id,
             const char *turn_id,
             const char *title)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *branch;

  natter_sessions_fork_async (u->sessions, session_id, turn_id, title, NULL, ui_result_cb, &result);
  branch = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  return branch;
}

/* An edit is the conversation going on, not another conversation: the
 * sidebar lists it once, as its latest version, saying how many versions
 * it has; a branch made on purpose stays a conversation of its own, and
 * a search that finds several versions lists it once as well. Titles
 * change none of that: the branch
 * named like the conversation is still its own, the renamed version
 * still one of its versions. */
void
test_sidebar_lists_conversation_once (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *apart = NULL;
  g_autofree char *apart_turn = NULL;
  g_autofree char *later = NULL;
  GtkSelectionModel *selection;
  GtkEditable *search;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Pasta.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Tomato sauce.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Pesto.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Rice.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Basil.\"}", NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, original, "Which sauce?");
  ui_wait_turn (u, second);
  /* The second message edited (the window gives the branch the title),
   * and a branch made on purpose after it (no title). */
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  edit = fork_titled (u, original, first, "Dinner");
  edited = ui_send (u, edit, "Which sauce, no tomatoes?");
  ui_wait_turn (u, edited);
  apart = fork_titled (u, original, second, NULL);
  apart_turn = ui_send (u, apart, "Something else then");
  ui_wait_turn (u, apart_turn);

  window = ui_window_new (app, u);
  wait_sidebar (window, "-|2 versions", apart, edit, NULL);

  /* A search that finds both versions lists the conversation once too,
   * as its latest version. */
  search = ui_open_search (window);
  gtk_editable_set_text (search, "Dinner");
  wait_sidebar (window, "2 versions", edit, NULL);
  gtk_editable_set_text (search, "");
  wait_sidebar (window, "-|2 versions", apart, edit, NULL);

  /* The row opens the latest version, whose message has ‹ 2/2 ›. */
  selection = gtk_list_view_get_model (GTK_LIST_VIEW (natter_window_get_session_list (window)));
  gtk_selection_model_select_item (selection, 1, TRUE);
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpstr (natter_window_get_session_id (window), ==, edit);
  wait_switcher (window, edited, "2/2");

  /* Going on in the original makes it the one listed. */
  later = ui_send (u, original, "And for dessert?");
  ui_wait_turn (u, later);
  wait_sidebar (window, "2 versions|-", original, apart, NULL);

  ui_set_title (u, apart, "Dinner");
  ui_set_title (u, edit, "Supper");
  ui_settle ();
  wait_sidebar (window, "2 versions|-", original, apart, NULL);

  ui_destroy_window (window);
  ui_world_free (u);
}

static AdwMessageDialog *
rename_dialog (GtkWindow *parent)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) toplevel = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (toplevel) && gtk_window_get_transient_for (toplevel) == parent &&
          gtk_widget_get_mapped (GTK_WIDGET (toplevel)))
        return ADW_MESSAGE_DIALOG (toplevel);
    }
  return NULL;
}

static gboolean
rename_dialog_shown (gpointer window)
{
  return rename_dialog (window) != NULL;
}

typedef struct
{
  NatterWindow *window;
  UiWorld      *u;
  const char   *head;
  const char   *other;
  const char   *title;
} RenameWait;

/* The row (of the version most recently active) and both versions say
 * the title. */
static gboolean
renamed_everywhere (gpointer data)
{
  RenameWait *w = data;
  NatterSessionRow *row = ui_find_session_row (w->window, w->head);

  return row != NULL && g_strcmp0 (natter_session_row_get_title (row), w->title) == 0 &&
         g_strcmp0 (natter_session_index_entry_get_title (natter_session_index_lookup (w->u->index, w->head)),
                    w->title) == 0 &&
         g_strcmp0 (natter_session_index_entry_get_title (natter_session_index_lookup (w->u->index, w->other)),
                    w->title) == 0;
}

/* A version of @original's first message, made as Edit makes it, under
 * @title, and its answered turn for @words (in @out_turn, transfer
 * full): the version's id (transfer full). */
static char *
edit_first_message (UiWorld    *u,
                    const char *original,
                    const char *title,
                    const char *words,
                    char      **out_turn)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  char *edit;

  natter_sessions_create_session_async (u->sessions, title, NULL, original, NULL, NULL, ui_result_cb, &result);
  edit = natter_sessions_create_session_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  *out_turn = ui_send (u, edit, words);
  ui_wait_turn (u, *out_turn);
  return edit;
}

/* Rename on a version that is not the one the list shows: the list's
 * row, the header and every version take the new title (the row shows
 * the most recently active version, whichever was renamed). */
void
test_rename_names_every_version (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  NatterWindow *window;
  AdwMessageDialog *dialog;
  RenameWait wait = { NULL, u, NULL, original, "Supper" };

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  edit = edit_first_message (u, original, "Dinner", "What to cook tonight?", &edited);

  window = ui_window_new (app, u);
  wait.window = window;
  wait.head = edit;
  g_assert_true (natter_window_open_session (window, original));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.rename", "s", natter_window_get_session_id (window)));
  ui_wait_until (rename_dialog_shown, window);
  dialog = rename_dialog (GTK_WINDOW (window));
  gtk_editable_set_text (GTK_EDITABLE (adw_message_dialog_get_extra_child (dialog)), "Supper");
  adw_message_dialog_response (dialog, "accept");
  ui_wait_until (renamed_everywhere, &wait);
  ui_settle ();
  g_assert_cmpstr (adw_window_title_get_title (window->window_title), ==, "Supper");

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  NatterWindow *window;
  const char   *session_id;
  guint         n_versions;   /* of its first message; 0: no switcher */
} SwitcherWait;

/* The open conversation is @session_id, its first message offering
 * n_versions (none below two). */
static gboolean
first_message_offers (gpointer data)
{
  SwitcherWait *w = data;
  GListModel *timeline = G_LIST_MODEL (w->window->conversation.timeline);

  ui_settle ();
  /* The versions are read after the conversation opens. */
  if (g_strcmp0 (natter_window_get_session_id (w->window), w->session_id) != 0 || timeline == NULL ||
      w->window->versions.of_turn == NULL)
    return FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (timeline); i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (timeline, i);
      GPtrArray *versions;

      if (!NATTER_IS_TURN_ITEM (item))
        continue;
      versions = natter_turn_item_get_versions (NATTER_TURN_ITEM (item));
      return (versions != NULL ? versions->len : 0) == w->n_versions;
    }
  return FALSE;
}

/* Delete takes the version shown. A conversation with another version
 * stays listed, so the toast says what went and what is kept, never that
 * the conversation is gone; the version kept, shown while the toast is
 * up, offers no arrow to the one deleted; Undo brings the version back,
 * with its arrows. */
void
test_delete_version_says_what_is_kept (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  edit = edit_first_message (u, original, "Dinner", "What to cook tonight?", &edited);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, edit));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window)));
  ui_wait_label (natter_window_get_toast_overlay (window), "This version of “Dinner” deleted; its 1 other version is kept");
  g_assert_false (ui_label_shown (natter_window_get_toast_overlay (window), "“Dinner” deleted"));
  g_assert_true (natter_window_open_session (window, original));
  {
    SwitcherWait kept = { window, original, 0 };

    ui_wait_until (first_message_offers, &kept);
    /* Before the toast went: with the deletion still to undo. */
    g_assert_cmpuint (natter_window_get_n_pending_deletes (window), ==, 1);
  }
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", edit));
  ui_settle ();
  g_assert_cmpstr (natter_window_get_session_id (window), ==, edit);
  {
    SwitcherWait back = { window, edit, 2 };

    ui_wait_until (first_message_offers, &back);
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

static gboolean
shows_session (gpointer data)
{
  gpointer *pair = data;

  ui_settle ();
  return g_strcmp0 (natter_window_get_session_id (pair[0]), pair[1]) == 0;
}

/* Delete from the list (the key the list binds) on a conversation with
 * versions: as the toast says, its other version is kept, so its row
 * stays while the toast is up, listing that version (one version now),
 * and the keyboard goes on from it, opening it — never from the next
 * conversation's row, which a second Delete would then take. Undo
 * brings the deleted version back as the row's. */
void
test_delete_version_keeps_row (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *other = ui_create_session (u, "Other");
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *said = NULL;
  g_autofree char *first = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NULL);
  said = ui_send (u, other, "Hello");
  ui_wait_turn (u, said);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  natter_fake_clock_advance (u->w->clock, 60 * G_USEC_PER_SEC);
  edit = edit_first_message (u, original, "Dinner", "What to cook tonight?", &edited);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, edit));
  ui_wait_until (ui_timeline_loaded, window);
  wait_sidebar (window, "2 versions|-", edit, other, NULL);

  g_assert_true (gtk_widget_activate_action (natter_window_get_session_list (window), "win.delete", "s", ""));
  ui_wait_label (natter_window_get_toast_overlay (window), "This version of “Dinner” deleted; its 1 other version is kept");
  wait_sidebar (window, "-|-", original, other, NULL);
  ui_wait_until (shows_session, (gpointer[]) { window, original });

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.undo-delete", "s", edit));
  wait_sidebar (window, "2 versions|-", edit, other, NULL);
  ui_wait_until (shows_session, (gpointer[]) { window, edit });

  ui_destroy_window (window);
  ui_world_free (u);
}

typedef struct
{
  UiWorld    *u;
  const char *gone;
  const char *heir;
} Heir;

/* The original is deleted and its version has taken the pin. */
static gboolean
heir_pinned (gpointer data)
{
  Heir *h = data;

  return natter_session_index_lookup (h->u->index, h->gone) == NULL &&
         natter_sessions_get_pinned (h->u->sessions, h->heir);
}

static GObject *
timeline_item (NatterWindow *window,
               guint         position)
{
  GObject *item = g_list_model_get_item (G_LIST_MODEL (natter_window_get_timeline (window)), position);

  g_object_unref (item);  /* the model keeps it */
  return item;
}

/* The timeline of @data's window has three items and its turns are read. */
static gboolean
history_shown (gpointer data)
{
  NatterWindow *window = data;

  return g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))) == 3 &&
         NATTER_IS_TURN_ITEM (timeline_item (window, 1)) &&
         natter_turn_item_get_state (NATTER_TURN_ITEM (timeline_item (window, 1))) != NULL;
}

/* The timeline of @data's window shows its first turns below the line
 * that says they come from a deleted version. */
static gboolean
deleted_history_shown (gpointer data)
{
  NatterWindow *window = data;
  GObject *first;

  if (!history_shown (window))
    return FALSE;
  first = timeline_item (window, 0);
  return NATTER_IS_TIMELINE_MARKER (first) &&
         natter_timeline_marker_get_kind (NATTER_TIMELINE_MARKER (first)) == NATTER_TIMELINE_MARKER_NOTE &&
         g_strcmp0 (natter_timeline_marker_get_error (NATTER_TIMELINE_MARKER (first)),
                    "The earlier messages come from a deleted version of this conversation.") == 0;
}

/* Deleting the original of a pinned conversation, shown with its other
 * version kept: the version keeps the pin and shows the first message,
 * which the model still gets, below a line saying where it comes from. */
void
test_delete_original_keeps_history_and_pin (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *edit = NULL;
  g_autofree char *edited = NULL;
  g_autofree char *input = NULL;
  NatterWindow *window;
  Heir h;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  second = ui_send (u, original, "And for dessert?");
  ui_wait_turn (u, second);
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GError) error = NULL;

    natter_sessions_fork_async (u->sessions, original, first, "Dinner", NULL, ui_result_cb, &result);
    edit = natter_sessions_fork_finish (u->sessions, ui_wait_result (&result), &error);
    g_assert_no_error (error);
  }
  ui_set_pinned (u, edit, TRUE);
  edited = ui_send (u, edit, "And for a sweet dessert?");
  ui_wait_turn (u, edited);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, original));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.delete", "s", natter_window_get_session_id (window)));
  ui_wait_label (natter_window_get_toast_overlay (window), "This version of “Dinner” deleted; its 1 other version is kept");
  /* The version, read while its original is still there (the toast is
   * up): its history is the original's, with no line above it. */
  g_assert_true (natter_window_open_session (window, edit));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (natter_window_get_timeline (window))), ==, 2);
  g_assert_cmpstr (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (timeline_item (window, 0))), ==, first);
  natter_window_dismiss_pending_deletes (window);
  h = (Heir) { u, original, edit };
  ui_wait_until (heir_pinned, &h);
  /* The window that showed it learns the original is gone. */
  ui_wait_until (deleted_history_shown, window);
  g_assert_cmpstr (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (timeline_item (window, 1))), ==, first);

  /* A window opening the version now finds its original gone. */
  ui_destroy_window (window);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, edit));
  ui_wait_until (ui_timeline_loaded, window);
  ui_wait_until (deleted_history_shown, window);
  g_assert_cmpstr (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (timeline_item (window, 1))), ==, first);
  input = natter_turn_item_dup_input_text (NATTER_TURN_ITEM (timeline_item (window, 1)));
  g_assert_cmpstr (input, ==, "What to cook?");
  g_assert_cmpstr (natter_turn_item_get_turn_id (NATTER_TURN_ITEM (timeline_item (window, 2))), ==, edited);
  wait_switcher (window, edited, NULL);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
damage_session (UiWorld    *u,
                const char *session_id,
                gboolean    from_first_line)
{
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;

  if (from_first_line)
    contents = g_strdup ("{\"type\":\n");
  else
    {
      g_autofree char *lines = NULL;

      g_assert_true (g_file_load_contents (file, NULL, &lines, NULL, NULL, &error));
      g_assert_no_error (error);
      /* A torn last line. */
      contents = g_strconcat (lines, "{\"type\":", NULL);
    }
  g_assert_true (g_file_replace_contents (file, contents, strlen (contents), NULL, FALSE, G_FILE_CREATE_NONE,
                                          NULL, NULL, &error));
  g_assert_no_error (error);
}

static gboolean
rows_shown (gpointer window)
{
  ui_settle ();
  return g_list_model_get_n_items (natter_window_get_sidebar_model (window)) == 4 &&
         ui_find_session_row (window, g_object_get_data (G_OBJECT (window), "last")) != NULL;
}

/* A damaged version is never listed as "New chat": by the title its
 * readable lines give, else, untitled, by its original's, and known as
 * a version of it; one whose lines say nothing is a damaged
 * conversation. The header, once it is open, says the same. */
void
test_sidebar_damaged_version_title (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *original = ui_create_session (u, "Dinner");
  g_autofree char *first = NULL;
  g_autofree char *titled = NULL;
  g_autofree char *untitled = NULL;
  g_autofree char *unknown = NULL;
  NatterSessionIndexEntry *entry;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  first = ui_send (u, original, "What to cook?");
  ui_wait_turn (u, first);
  titled = fork_titled (u, original, NULL, "Dinner");
  untitled = fork_titled (u, original, NULL, "");
  unknown = fork_titled (u, original, NULL, "");
  damage_session (u, titled, FALSE);
  damage_session (u, untitled, FALSE);
  damage_session (u, unknown, TRUE);
  ui_world_restart (u);

  entry = natter_session_index_lookup (u->index, untitled);
  g_assert_nonnull (natter_session_index_entry_get_error (entry));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, original);
  g_assert_true (natter_session_index_entry_get_is_version (entry));

  window = ui_window_new (app, u);
  g_object_set_data (G_OBJECT (window), "last", unknown);
  ui_wait_until (rows_shown, window);
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, titled)), ==, "Dinner");
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, untitled)), ==, "Dinner");
  g_assert_cmpstr (natter_session_row_get_title (ui_find_session_row (window, unknown)), ==, "Damaged conversation");
  for (const char *id = titled; id != NULL; id = id == titled ? untitled : id == untitled ? unknown : NULL)
    g_assert_cmpstr (natter_session_row_get_time_text (ui_find_session_row (window, id)), ==,
                     "Damaged: open it for details");
  /* Opened, the header names it as the list does. */
  g_assert_true (natter_window_open_session (window, untitled));
  g_assert_cmpstr (adw_window_title_get_title (window->window_title), ==, "Dinner");
  g_assert_true (natter_window_open_session (window, unknown));
  g_assert_cmpstr (adw_window_title_get_title (window->window_title), ==, "Damaged conversation");

  ui_destroy_window (window);
  ui_world_free (u);
}
