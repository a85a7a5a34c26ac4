/* test-rich.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The richer conversation view: reasoning in a collapsed expander,
 * one collapsed card per tool call, token usage, the message actions
 * (copy, branch, try again), the header's model picker against a
 * localhost /models, the shortcuts window, labelled icon-only buttons,
 * and screenshots of each in light and dark style.
 */

#include <libsoup/soup.h>

#include "natter-code-block.h"
#include "natter-markdown-view.h"
#include "natter-model-picker.h"
#include "natter-tool-call-card.h"
#include "natter-turn-row.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* Screenshots */

/* Saves what @native (a window or a popover) draws, once per style. */
static void
save_screenshots (GtkWidget  *native,
                  const char *name)
{
  const AdwColorScheme schemes[] = { ADW_COLOR_SCHEME_FORCE_LIGHT, ADW_COLOR_SCHEME_FORCE_DARK };
  const char *suffixes[] = { "light", "dark" };
  AdwStyleManager *style = adw_style_manager_get_default ();

  for (guint i = 0; i < G_N_ELEMENTS (schemes); i++)
    {
      g_autofree char *file_name = g_strdup_printf ("%s-%s.png", name, suffixes[i]);

      adw_style_manager_set_color_scheme (style, schemes[i]);
      /* A window's own snapshot keeps render nodes from before the style
       * change (its sidebar stays light in dark style): take the screen
       * as X shows it where ImageMagick's import can. */
      if (!GTK_IS_WINDOW (native) || !ui_save_screen (file_name))
        ui_save_window (native, file_name);
    }
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
  ui_settle ();
}

/* Helpers */

static GPtrArray *
find_all_any (gpointer root,
              GType    type)
{
  GPtrArray *found = g_ptr_array_new ();
  GPtrArray *stack = g_ptr_array_new ();

  g_ptr_array_add (stack, root);
  while (stack->len > 0)
    {
      GtkWidget *widget = g_ptr_array_steal_index (stack, stack->len - 1);

      if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
        g_ptr_array_add (found, widget);
      for (GtkWidget *child = gtk_widget_get_last_child (widget); child != NULL;
           child = gtk_widget_get_prev_sibling (child))
        g_ptr_array_add (stack, child);
    }
  g_ptr_array_unref (stack);
  return found;
}

static gboolean
rows_shown (gpointer data)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_settle ();
  rows = ui_find_all (natter_window_get_timeline_list (data), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (item == NULL || natter_turn_item_get_state (item) == NULL)
        return FALSE;
    }
  return rows->len > 0;
}

static NatterTurnRow *
row_for_turn (NatterWindow *window,
              const char   *turn_id)
{
  g_autoptr(GPtrArray) rows = NULL;

  ui_wait_until (rows_shown, window);
  rows = ui_find_all (natter_window_get_timeline_list (window), NATTER_TYPE_TURN_ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      NatterTurnItem *item = natter_turn_row_get_item (g_ptr_array_index (rows, i));

      if (g_strcmp0 (natter_turn_item_get_turn_id (item), turn_id) == 0)
        return g_ptr_array_index (rows, i);
    }
  g_error ("No row for turn %s", turn_id);
}

static GtkWidget *
find_button_with_tooltip (gpointer    root,
                          const char *tooltip)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), tooltip) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

static GtkWidget *
find_button_with_action (gpointer    root,
                         const char *action_name)
{
  g_autoptr(GPtrArray) buttons = find_all_any (root, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_actionable_get_action_name (g_ptr_array_index (buttons, i)), action_name) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

static GtkLabel *
find_label_with_class (gpointer    root,
                       const char *css_class)
{
  g_autoptr(GPtrArray) labels = ui_find_all (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (gtk_widget_has_css_class (g_ptr_array_index (labels, i), css_class))
      return g_ptr_array_index (labels, i);
  return NULL;
}

/* Reasoning, tool cards, usage */

#define REASONING_STEP \
  "{\"role\":\"assistant\",\"content\":[" \
  "{\"type\":\"reasoning\",\"text\":\"The user wants two tools run.\"}," \
  NATTER_FAKE_CALL ("c1", "sa", "{\"path\":\"notes.txt\"}") "," \
  NATTER_FAKE_CALL ("c2", "fail", "{}") "]}"

static void
test_rich_turn (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Rich turn");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) expanders = NULL;
  g_autoptr(GPtrArray) cards = NULL;
  NatterToolCallCard *card;
  NatterTurnRow *row;
  NatterWindow *window;
  GtkLabel *usage;
  GtkWidget *reasoning = NULL;

  natter_fake_model_set_usage (u->w->fakes->model,
                               "{\"inputTokens\":100,\"outputTokens\":20,\"totalTokens\":120}");
  natter_fake_model_script (u->w->fakes->model, REASONING_STEP,
                            "{\"role\":\"assistant\",\"content\":\"Both tools ran; one failed.\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Run the tools");
  ui_wait_turn (u, turn_id);
  row = row_for_turn (window, turn_id);

  /* Reasoning: collapsed, the text inside. */
  expanders = ui_find_all (row, GTK_TYPE_EXPANDER);
  for (guint i = 0; i < expanders->len; i++)
    if (gtk_widget_has_css_class (g_ptr_array_index (expanders, i), "natter-reasoning-expander"))
      reasoning = g_ptr_array_index (expanders, i);
  g_assert_nonnull (reasoning);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (reasoning)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (gtk_expander_get_child (GTK_EXPANDER (reasoning)))), ==,
                   "The user wants two tools run.");

  /* One collapsed card per call, with name, arguments, status, result. */
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 2);
  card = g_ptr_array_index (cards, 0);
  g_assert_cmpstr (natter_tool_call_card_get_name (card), ==, "sa");
  g_assert_cmpstr (natter_tool_call_card_get_status (card), ==, "Done");
  g_assert_nonnull (strstr (natter_tool_call_card_get_arguments (card), "\"notes.txt\""));
  g_assert_cmpstr (natter_tool_call_card_get_result (card), ==, "t.a");
  g_assert_false (natter_tool_call_card_get_failed (card));
  g_assert_false (natter_tool_call_card_get_expanded (card));
  card = g_ptr_array_index (cards, 1);
  g_assert_cmpstr (natter_tool_call_card_get_name (card), ==, "fail");
  g_assert_cmpstr (natter_tool_call_card_get_status (card), ==, "Failed");
  g_assert_true (natter_tool_call_card_get_failed (card));
  g_assert_nonnull (natter_tool_call_card_get_result (card));
  g_assert_false (natter_tool_call_card_get_expanded (card));

  /* Usage of both model calls, the breakdown in the tooltip; the fake
   * clock stands still, so the first token came at once and no speed
   * can be known (docs/format.md §4.2). */
  usage = find_label_with_class (row, "numeric");
  g_assert_nonnull (usage);
  g_assert_cmpstr (gtk_label_get_text (usage), ==, "240 tokens · first token after 0.0 s");
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (usage)), "Input: 200"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (GTK_WIDGET (usage)), "Output: 40"));

  /* The screenshot shows a card open, as a user would. */
  natter_tool_call_card_set_expanded (g_ptr_array_index (cards, 1), TRUE);
  gtk_expander_set_expanded (GTK_EXPANDER (reasoning), TRUE);
  save_screenshots (GTK_WIDGET (window), "rich-turn");

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Copy */

typedef struct
{
  char     *text;
  gboolean  done;
} ClipboardRead;

static void
clipboard_read_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ClipboardRead *read = user_data;
  g_autoptr(GError) error = NULL;

  read->text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, &error);
  g_assert_no_error (error);
  read->done = TRUE;
}

static gboolean
clipboard_read (gpointer data)
{
  return ((ClipboardRead *) data)->done;
}

static void
test_rich_copy (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Copy");
  g_autofree char *turn_id = NULL;
  ClipboardRead read = { NULL, FALSE };
  NatterWindow *window;
  GtkWidget *button;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Copy *these* words\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Say something");
  ui_wait_turn (u, turn_id);

  button = find_button_with_tooltip (row_for_turn (window, turn_id), "Copy Message");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (GTK_WIDGET (window)), NULL,
                                 clipboard_read_cb, &read);
  ui_wait_until (clipboard_read, &read);
  g_assert_cmpstr (read.text, ==, "Copy *these* words");
  g_free (read.text);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Branch from here */

typedef struct
{
  NatterWindow *window;
  const char   *original;
} Switched;

static gboolean
switched_away (gpointer data)
{
  Switched *s = data;

  return g_strcmp0 (natter_window_get_session_id (s->window), s->original) != 0;
}

static void
test_rich_branch (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Original");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterSessionIndexEntry *fork;
  NatterWindow *window;
  GtkWidget *button;
  Switched s;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"One\"}",
                            "{\"role\":\"assistant\",\"content\":\"Two\"}", NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  t1 = ui_send (u, session_id, "First");
  ui_wait_turn (u, t1);
  t2 = ui_send (u, session_id, "Second");
  ui_wait_turn (u, t2);

  button = ui_find_button (row_for_turn (window, t1), "_Branch from Here");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  s = (Switched) { window, session_id };
  ui_wait_until (switched_away, &s);

  fork = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  g_assert_nonnull (fork);
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (fork), ==, session_id);
  /* The fork copies nothing: its first message continues from t1. */
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (fork), ==, 0);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)), ==, 2);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Try again on the latest (completed) turn: the same words again, as a
 * new version of the message (a branch at the turn before it), so the
 * first answer stays where it was. */

static gboolean
has_second_version (gpointer data)
{
  UiWorld *u = data;
  GListModel *index = G_LIST_MODEL (u->index);

  for (guint i = 0; i < g_list_model_get_n_items (index); i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (index, i);

      if (natter_session_index_entry_get_parent_session (entry) != NULL &&
          natter_session_index_entry_get_turn_count (entry) == 1 &&
          g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_rich_try_again_latest (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Again");
  g_autofree char *turn_id = NULL;
  NatterWindow *window;
  GtkWidget *button;
  JsonObject *request;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Once more");
  ui_wait_turn (u, turn_id);

  button = ui_find_button (row_for_turn (window, turn_id), "_Try Again");
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_activate (button));
  ui_wait_until (has_second_version, u);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, session_id)), ==, 1);
  g_assert_cmpuint (natter_fake_model_get_n_requests (u->w->fakes->model), ==, 2);
  request = natter_fake_model_get_request (u->w->fakes->model, 1);
  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, request);
  text = json_to_string (node, FALSE);
  g_assert_nonnull (strstr (text, "Once more"));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The model picker */

typedef struct
{
  SoupServer *server;
  char       *base_url;
  guint       n_requests;
  const char *body;        /* NULL: alpha and beta */
} ModelsServer;

static void
models_cb (SoupServer        *server,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  ModelsServer *ms = user_data;
  static const char body[] = "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\",\"object\":\"model\"},"
                             "{\"id\":\"beta\",\"object\":\"model\"}]}";

  const char *listing = ms->body != NULL ? ms->body : body;

  ms->n_requests++;
  if (!g_str_has_suffix (path, "/models"))
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, listing, strlen (listing));
}

static void
models_server_start (ModelsServer *ms)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;
  g_autofree char *uri = NULL;

  ms->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (ms->server, NULL, models_cb, ms, NULL);
  soup_server_listen_local (ms->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error);
  g_assert_no_error (error);
  uris = soup_server_get_uris (ms->server);
  uri = g_uri_to_string (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
  ms->base_url = g_strconcat (uri, "v1", NULL);
}

static void
models_server_stop (ModelsServer *ms)
{
  soup_server_disconnect (ms->server);
  g_clear_object (&ms->server);
  g_clear_pointer (&ms->base_url, g_free);
}

typedef struct
{
  NatterModelPicker *picker;
  const char        *state;
} PickerWait;

static gboolean
picker_in_state (gpointer data)
{
  PickerWait *w = data;

  return g_strcmp0 (natter_model_picker_get_state (w->picker), w->state) == 0;
}

static void
wait_picker (NatterModelPicker *picker,
             const char        *state)
{
  PickerWait w = { picker, state };

  ui_wait_until (picker_in_state, &w);
}

static gboolean
resolved_beta (gpointer data)
{
  UiWorld *u = data;
  GPtrArray *resolved = u->w->fakes->resolved_models;

  if (resolved->len == 0)
    return FALSE;
  return g_strcmp0 (json_object_get_string_member (g_ptr_array_index (resolved, resolved->len - 1), "model"),
                    "beta") == 0;
}

static void
test_rich_model_picker (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Models");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  ModelsServer ms = { NULL };
  NatterModelPicker *picker;
  NatterWindow *window;
  GListModel *models;
  JsonObject *descriptor;
  GtkWidget *popover;
  g_autoptr(GPtrArray) popovers = NULL;

  models_server_start (&ms);
  natter_provider_registry_add_provider (registry, "local", "Local Server", ms.base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "local", "alpha");
  picker = natter_window_get_model_picker (window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (picker)));
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");

  wait_picker (picker, "models");
  models = natter_model_picker_get_models (picker);
  g_assert_cmpuint (g_list_model_get_n_items (models), ==, 2);
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), 0), ==, "alpha");
  g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), 1), ==, "beta");

  /* The popover, open, in both styles. */
  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  g_assert_cmpuint (popovers->len, ==, 1);
  popover = g_ptr_array_index (popovers, 0);
  ui_wait_until (ui_is_mapped, popover);
  save_screenshots (popover, "model-picker");

  /* Refresh lists again. */
  natter_model_picker_refresh (picker);
  wait_picker (picker, "models");
  g_assert_cmpuint (ms.n_requests, ==, 2);

  /* Choosing beta: the next message goes to local/beta. */
  natter_model_picker_choose (picker, "beta");
  natter_model_picker_popdown (picker);
  natter_composer_set_text (natter_window_get_composer (window), "Hello beta");
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (resolved_beta, u);
  descriptor = g_ptr_array_index (u->w->fakes->resolved_models, u->w->fakes->resolved_models->len - 1);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "provider"), ==, "local");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");

  ui_destroy_window (window);
  ui_world_free (u);
  models_server_stop (&ms);
}

typedef struct
{
  NatterModelPicker *picker;
  const char        *text;
} PickerLabelWait;

/* The label the picker's button shows (not its popover's). */
static GtkLabel *
picker_button_label (NatterModelPicker *picker)
{
  GtkWidget *button = gtk_widget_get_first_child (GTK_WIDGET (picker));
  GtkWidget *widget;

  g_assert_true (GTK_IS_MENU_BUTTON (button));
  /* The menu button's toggle button, then its content. */
  widget = gtk_widget_get_first_child (button);
  while (widget != NULL && !GTK_IS_LABEL (widget))
    {
      GtkWidget *child = gtk_widget_get_first_child (widget);

      widget = child != NULL ? child : gtk_widget_get_next_sibling (widget);
    }
  return widget != NULL ? GTK_LABEL (widget) : NULL;
}

static gboolean
picker_label_is (gpointer data)
{
  PickerLabelWait *w = data;
  GtkLabel *label = picker_button_label (w->picker);

  /* The squeezer picks the name or the icon from its last allocation: a
   * layout made before the name arrived (the placeholder, under load a
   * frame late) is settled once the name is what it shows. */
  return label != NULL && g_strcmp0 (gtk_label_get_text (label), w->text) == 0 &&
         gtk_widget_get_width (GTK_WIDGET (label)) > 0 && !natter_model_picker_get_compact (w->picker);
}

static char *
describe_picker_label (gpointer data)
{
  PickerLabelWait *w = data;
  GtkLabel *label = picker_button_label (w->picker);

  return g_strdup_printf ("the picker shows %s%s", label != NULL ? gtk_label_get_text (label) : "no label",
                          natter_model_picker_get_compact (w->picker) ? " (as an icon)" : "");
}

/* The README's out-of-the-box settings: one provider, `default-model`
 * empty. The picker of a new chat shows the model the first message will
 * go to (the provider's first, resolved as sending resolves it), whole,
 * never a placeholder cut to "Choos…Model". */
static void
test_rich_model_picker_first_model (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "First message");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  ModelsServer ms = { NULL };
  NatterModelPicker *picker;
  NatterWindow *window;
  PickerLabelWait wait = { NULL, "alpha" };
  GtkLabel *label;

  models_server_start (&ms);
  natter_provider_registry_add_provider (registry, "local", "Local Server", ms.base_url);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  natter_window_set_model_provider (window, registry, "local", NULL);
  picker = natter_window_get_model_picker (window);
  wait.picker = picker;
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (picker)));

  ui_wait_until_full (picker_label_is, describe_picker_label, &wait);
  ui_settle ();
  label = picker_button_label (picker);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (label)));
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  g_assert_false (natter_model_picker_get_compact (picker));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (GTK_WIDGET (picker))), "alpha"));
  save_screenshots (GTK_WIDGET (window), "model-picker-first-model");

  ui_destroy_window (window);
  ui_world_free (u);
  models_server_stop (&ms);
}

static void
test_rich_model_picker_unreachable (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Offline");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  ModelsServer ms = { NULL };
  g_autofree char *base_url = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkLabel *title;

  /* A port nobody listens on any more. */
  models_server_start (&ms);
  base_url = g_strdup (ms.base_url);
  models_server_stop (&ms);
  natter_provider_registry_add_provider (registry, "gone", "Gone Server", base_url);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "gone", NULL);
  picker = natter_window_get_model_picker (window);
  wait_picker (picker, "unreachable");

  natter_model_picker_popup (picker);
  ui_settle ();
  title = find_label_with_class (picker, "title-2");
  g_assert_nonnull (title);
  g_assert_cmpstr (gtk_label_get_text (title), ==, "Could not reach Gone Server");
  g_assert_nonnull (find_button_with_action (picker, "app.preferences"));
  natter_model_picker_popdown (picker);

  /* An unknown provider id: the unknown state, no request. */
  natter_window_set_model_provider (window, registry, "nonexistent", NULL);
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "unknown");
  g_assert_null (natter_model_picker_get_provider_id (picker));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Sessions of two providers: each shows its provider's list */

#define ONE_MODELS "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\"},{\"id\":\"beta\"}]}"
#define TWO_MODELS "{\"object\":\"list\",\"data\":[{\"id\":\"gamma\"},{\"id\":\"delta\"},{\"id\":\"epsilon\"}]}"

/* Sends @text to @session_id with the model {@provider, @model}, as a
 * session whose last turn used that model got it, and waits for it. */
static char *
send_with_model (UiWorld    *u,
                 const char *session_id,
                 const char *text,
                 const char *provider,
                 const char *model)
{
  char *turn_id = ui_send_with_model (u, session_id, text, provider, model);

  ui_wait_turn (u, turn_id);
  return turn_id;
}

static void
assert_listed (NatterModelPicker  *picker,
               const char * const *expected)
{
  GListModel *models = natter_model_picker_get_models (picker);
  guint n = g_strv_length ((char **) expected);

  g_assert_cmpuint (g_list_model_get_n_items (models), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (gtk_string_list_get_string (GTK_STRING_LIST (models), i), ==, expected[i]);
}

typedef struct
{
  UiWorld    *u;
  const char *session_id;
  guint       turn_count;
} TurnCount;

static gboolean
has_turn_count (gpointer data)
{
  TurnCount *t = data;
  NatterSessionIndexEntry *entry = natter_session_index_lookup (t->u->index, t->session_id);

  return natter_session_index_entry_get_turn_count (entry) == t->turn_count &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

/* Sends @text from the composer and returns the new turn's resolved
 * model descriptor, read from its turn file. */
static JsonObject *
send_from_window (UiWorld      *u,
                  NatterWindow *window,
                  const char   *session_id,
                  const char   *text)
{
  NatterSessionIndexEntry *entry = natter_session_index_lookup (u->index, session_id);
  TurnCount t = { u, session_id, natter_session_index_entry_get_turn_count (entry) + 1 };
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *created;

  natter_composer_set_text (natter_window_get_composer (window), text);
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (has_turn_count, &t);
  events = ui_get_turn (u, natter_session_index_entry_get_latest_turn_id (entry));
  created = json_node_get_object (g_ptr_array_index (events, 0));
  g_assert_cmpstr (json_object_get_string_member (created, "type"), ==, "turn_created");
  return json_object_ref (json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                                                        "resolved"),
                                                         "model"));
}

static void
assert_descriptor (JsonObject *descriptor,
                   const char *provider,
                   const char *model)
{
  g_assert_cmpstr (json_object_get_string_member (descriptor, "provider"), ==, provider);
  g_assert_cmpstr (json_object_get_string_member (descriptor, "model"), ==, model);
}

static void
test_rich_model_picker_per_session (void)
{
  static const char * const one_models[] = { "alpha", "beta", NULL };
  static const char * const two_models[] = { "gamma", "delta", "epsilon", NULL };
  UiWorld *u = ui_world_new ();
  g_autofree char *first = ui_create_session (u, "On one");
  g_autofree char *second = ui_create_session (u, "On two");
  g_autofree char *fresh = ui_create_session (u, "Fresh");
  g_autofree char *first_turn = NULL;
  g_autofree char *second_turn = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(JsonObject) sent = NULL;
  g_autoptr(JsonObject) continued = NULL;
  ModelsServer one = { .body = ONE_MODELS };
  ModelsServer two = { .body = TWO_MODELS };
  NatterModelPicker *picker;
  NatterWindow *window;

  models_server_start (&one);
  models_server_start (&two);
  natter_provider_registry_add_provider (registry, "one", "Server One", one.base_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two.base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  first_turn = send_with_model (u, first, "Hello one", "one", "beta");
  second_turn = send_with_model (u, second, "Hello two", "two", "delta");

  window = ui_window_new (app, u);
  natter_window_set_model_provider (window, registry, "one", "alpha");
  picker = natter_window_get_model_picker (window);

  /* The second session's last turn used two/delta: two's list. */
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "two");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "delta");
  wait_picker (picker, "models");
  assert_listed (picker, two_models);
  g_assert_cmpuint (two.n_requests, ==, 1);

  /* The first session's last turn used one/beta: one's list. */
  g_assert_true (natter_window_open_session (window, first));
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  wait_picker (picker, "models");
  assert_listed (picker, one_models);
  g_assert_cmpuint (one.n_requests, ==, 1);

  /* A session without turns: the default provider and model. */
  g_assert_true (natter_window_open_session (window, fresh));
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "models");

  /* Back to the second: the kept list, at once, without a request. */
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "models");
  assert_listed (picker, two_models);
  g_assert_cmpuint (two.n_requests, ==, 1);
  g_assert_cmpuint (one.n_requests, ==, 1);

  /* Refresh asks again. */
  natter_model_picker_refresh (picker);
  wait_picker (picker, "models");
  g_assert_cmpuint (two.n_requests, ==, 2);

  /* Picking epsilon from two's list: the next turn records two/epsilon. */
  natter_model_picker_choose (picker, "epsilon");
  sent = send_from_window (u, window, second, "Hello epsilon");
  assert_descriptor (sent, "two", "epsilon");
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "two");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "epsilon");

  /* The first session, nothing picked: it keeps its last turn's one/beta. */
  g_assert_true (natter_window_open_session (window, first));
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  continued = send_from_window (u, window, first, "Hello again");
  assert_descriptor (continued, "one", "beta");
  g_assert_cmpuint (one.n_requests, ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
  models_server_stop (&one);
  models_server_stop (&two);
}

/* A session whose provider is gone, or was a bare endpoint URL: the
 * unknown state with Preferences, never another provider's list. */
static void
test_rich_model_picker_unknown_provider (void)
{
  static const char * const one_models[] = { "alpha", "beta", NULL };
  UiWorld *u = ui_world_new ();
  g_autofree char *removed = ui_create_session (u, "Removed provider");
  g_autofree char *endpoint = ui_create_session (u, "Bare endpoint");
  g_autofree char *removed_turn = NULL;
  g_autofree char *endpoint_turn = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(JsonObject) sent = NULL;
  ModelsServer one = { .body = ONE_MODELS };
  ModelsServer two = { .body = TWO_MODELS };
  GtkWidget *fallback = NULL;
  GtkLabel *title;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkWidget *popover;
  g_autoptr(GPtrArray) popovers = NULL;

  models_server_start (&one);
  models_server_start (&two);
  natter_provider_registry_add_provider (registry, "one", "Server One", one.base_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two.base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NULL);
  removed_turn = send_with_model (u, removed, "Hello two", "two", "delta");
  endpoint_turn = send_with_model (u, endpoint, "Hello URL", two.base_url, "gamma");

  /* Preferences removed "two". */
  g_assert_true (natter_provider_registry_remove_provider (registry, "two"));
  window = ui_window_new (app, u);
  natter_window_set_model_provider (window, registry, "one", "alpha");
  picker = natter_window_get_model_picker (window);

  g_assert_true (natter_window_open_session (window, removed));
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "unknown");
  g_assert_null (natter_model_picker_get_provider_id (picker));
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "delta");
  g_assert_cmpuint (g_list_model_get_n_items (natter_model_picker_get_models (picker)), ==, 0);
  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  popover = g_ptr_array_index (popovers, 0);
  ui_wait_until (ui_is_mapped, popover);
  title = find_label_with_class (popover, "title-2");
  g_assert_nonnull (title);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (title)));
  g_assert_cmpstr (gtk_label_get_text (title), ==, "“two” Is Not Configured");
  g_assert_nonnull (find_button_with_action (popover, "app.preferences"));
  fallback = ui_find_button (popover, "Use Server One Instead");
  g_assert_nonnull (fallback);
  save_screenshots (popover, "model-picker-unknown");
  natter_model_picker_popdown (picker);
  /* Nothing was asked of anyone. */
  g_assert_cmpuint (two.n_requests, ==, 0);
  g_assert_cmpuint (one.n_requests, ==, 0);

  /* A bare endpoint URL: the unknown state too, even though it answers. */
  g_assert_true (natter_window_open_session (window, endpoint));
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "unknown");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "gamma");
  g_assert_cmpuint (two.n_requests, ==, 0);

  /* The way out: the default provider's list, and its pick goes to it. */
  g_assert_true (natter_window_open_session (window, removed));
  g_signal_emit_by_name (picker, "fallback-activated");
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  wait_picker (picker, "models");
  assert_listed (picker, one_models);
  natter_model_picker_choose (picker, "beta");
  sent = send_from_window (u, window, removed, "Hello one");
  assert_descriptor (sent, "one", "beta");

  ui_destroy_window (window);
  ui_world_free (u);
  models_server_stop (&one);
  models_server_stop (&two);
}

/* Shortcuts window */

/* The shortcuts window of @window among the toplevels, or NULL. */
static GtkWindow *
find_shortcuts_window (NatterWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) w = g_list_model_get_item (toplevels, i);

      if (GTK_IS_SHORTCUTS_WINDOW (w) && gtk_window_get_transient_for (w) == GTK_WINDOW (window))
        return w;
    }
  return NULL;
}

static gboolean
no_shortcuts_window (gpointer window)
{
  return find_shortcuts_window (window) == NULL;
}

/* The shortcuts window exists only while it shows: a hidden toplevel is
 * what GTK 4.8's accessibility root can hand to a screen reader without
 * an object path (see show_help_overlay_activated()). */
static void
test_rich_shortcuts (void)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-help-overlay.ui");
  UiWorld *u = ui_world_new ();
  g_autoptr(GPtrArray) entries = NULL;
  NatterWindow *window;
  GtkWindow *overlay;

  g_assert_true (GTK_IS_SHORTCUTS_WINDOW (gtk_builder_get_object (builder, "help_overlay")));
  g_clear_object (&builder);

  window = ui_window_new (app, u);
  g_assert_null (find_shortcuts_window (window));
  g_assert_null (gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL));
  overlay = find_shortcuts_window (window);
  g_assert_nonnull (overlay);
  ui_wait_until (ui_is_mapped, overlay);
  /* Every entry shows its keys, the ones named by an action too: what
   * the window binds is what the entry says. */
  entries = ui_find_all (overlay, GTK_TYPE_SHORTCUTS_SHORTCUT);
  g_assert_cmpuint (entries->len, >=, 16);
  for (guint i = 0; i < entries->len; i++)
    {
      GtkWidget *entry = g_ptr_array_index (entries, i);
      GtkWidget *keys = ui_find_first (entry, GTK_TYPE_SHORTCUT_LABEL);
      g_autofree char *title = NULL;
      const char *accelerator;

      g_object_get (entry, "title", &title, NULL);
      g_assert_nonnull (keys);
      accelerator = gtk_shortcut_label_get_accelerator (GTK_SHORTCUT_LABEL (keys));
      if (accelerator == NULL || accelerator[0] == '\0')
        g_error ("The shortcuts window shows no keys for \"%s\"", title);
    }
  save_screenshots (GTK_WIDGET (overlay), "shortcuts");
  gtk_window_close (overlay);
  ui_wait_until (no_shortcuts_window, window);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Every icon-only button says what it does. */
static void
test_rich_icon_buttons_labelled (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Buttons");
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) buttons = NULL;
  NatterWindow *window;
  guint n_icon_only = 0;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Hi");
  ui_wait_turn (u, turn_id);
  row_for_turn (window, turn_id);

  buttons = find_all_any (window, GTK_TYPE_BUTTON);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);
      GtkWidget *parent = gtk_widget_get_parent (button);

      /* A hidden button (e.g. a turn's unused action) is never seen. */
      if (!gtk_widget_get_visible (button))
        continue;
      /* GTK labels its own window controls (Close, Minimize…). */
      if (gtk_widget_get_ancestor (button, GTK_TYPE_WINDOW_CONTROLS) != NULL)
        continue;
      /* A menu button's inner toggle is labelled by the menu button. */
      if (GTK_IS_MENU_BUTTON (parent))
        button = parent;
      if (gtk_button_get_label (g_ptr_array_index (buttons, i)) != NULL ||
          (GTK_IS_MENU_BUTTON (button) && gtk_menu_button_get_label (GTK_MENU_BUTTON (button)) != NULL))
        continue;
      if (gtk_button_get_child (g_ptr_array_index (buttons, i)) != NULL &&
          !GTK_IS_IMAGE (gtk_button_get_child (g_ptr_array_index (buttons, i))))
        continue;
      n_icon_only++;
      if (gtk_widget_get_tooltip_text (button) == NULL)
        g_error ("An icon-only %s (icon %s, in a %s in a %s) has no tooltip", G_OBJECT_TYPE_NAME (button),
                 gtk_button_get_icon_name (g_ptr_array_index (buttons, i)),
                 G_OBJECT_TYPE_NAME (gtk_widget_get_parent (button)),
                 G_OBJECT_TYPE_NAME (gtk_widget_get_parent (gtk_widget_get_parent (button))));
    }
  g_assert_cmpuint (n_icon_only, >=, 4);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Code blocks */

static gboolean
ui_has_code_block (gpointer data)
{
  return ui_find_first (data, NATTER_TYPE_CODE_BLOCK) != NULL;
}

/* A fenced block of @n_lines numbered lines, as a model's JSON message. */
static char *
code_answer (guint n_lines)
{
  g_autoptr(GString) json = g_string_new ("{\"role\":\"assistant\",\"content\":\"Here:\\n\\n```c\\n");

  for (guint i = 1; i <= n_lines; i++)
    g_string_append_printf (json, "int line_%u = %u;\\n", i, i);
  g_string_append (json, "```\\n\"}");
  return g_string_free (g_steal_pointer (&json), FALSE);
}

typedef struct
{
  GtkWidget *block;
  guint      n_lines;
} BlockShown;

/* Whether every one of the @n_lines lines of the code block's view is
 * inside its allocation, with nothing to scroll vertically. */
static gboolean
code_lines_shown (gpointer data)
{
  BlockShown *b = data;
  GtkTextView *view = GTK_TEXT_VIEW (ui_find_first (b->block, GTK_TYPE_TEXT_VIEW));
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (GTK_WIDGET (view),
                                                                              GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *vadj = gtk_scrolled_window_get_vadjustment (scroller);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter first, last;
  int first_y, line_height, last_y, last_height;

  if (gtk_text_buffer_get_line_count (buffer) < (int) b->n_lines)
    return FALSE;
  gtk_text_buffer_get_start_iter (buffer, &first);
  gtk_text_buffer_get_iter_at_line (buffer, &last, b->n_lines - 1);
  gtk_text_view_get_line_yrange (view, &first, &first_y, &line_height);
  gtk_text_view_get_line_yrange (view, &last, &last_y, &last_height);
  return line_height > 0 &&
         gtk_widget_get_height (GTK_WIDGET (scroller)) >= (int) b->n_lines * line_height &&
         gtk_widget_get_height (GTK_WIDGET (view)) >= last_y + last_height &&
         gtk_adjustment_get_upper (vadj) - gtk_adjustment_get_page_size (vadj) < 1 &&
         !gtk_widget_get_child_visible (gtk_scrolled_window_get_vscrollbar (scroller));
}

static char *
describe_block (gpointer data)
{
  BlockShown *b = data;
  GtkTextView *view = GTK_TEXT_VIEW (ui_find_first (b->block, GTK_TYPE_TEXT_VIEW));
  GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *vadj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

  return g_strdup_printf ("code block of %u lines: scroller %d px high, view %d px, %d lines in the view, "
                          "vadjustment upper %.0f page %.0f",
                          b->n_lines, gtk_widget_get_height (scroller), gtk_widget_get_height (GTK_WIDGET (view)),
                          gtk_text_buffer_get_line_count (gtk_text_view_get_buffer (view)),
                          gtk_adjustment_get_upper (vadj), gtk_adjustment_get_page_size (vadj));
}

/* The code block of @turn_id's row, once the row shows it. */
static GtkWidget *
code_block_of (NatterWindow *window,
               const char   *turn_id)
{
  NatterTurnRow *row = row_for_turn (window, turn_id);
  GtkWidget *block;

  ui_wait_until (ui_has_code_block, row);
  block = ui_find_first (row, NATTER_TYPE_CODE_BLOCK);
  g_assert_nonnull (block);
  return block;
}

static gboolean
model_held (gpointer data)
{
  return natter_fake_model_get_n_held (((UiWorld *) data)->w->fakes->model) == 1;
}

/* A block that arrives a piece at a time, as a server streams it (the
 * fence first, its one line after), is as tall as its code once the
 * answer is in: its height follows what was appended. */
static void
test_rich_code_block_streamed (void)
{
  static const char *deltas[] = {
    "Here is code:\n\n", "```python\n", "print('hi')\n", "```\n\n", "Done.",
  };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Streamed code");
  g_autofree char *turn_id = NULL;
  g_autofree char *literal = NULL;
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(JsonNode) message = natter_test_json ("{\"role\":\"assistant\"}");
  NatterWindow *window;
  BlockShown b;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_STEP_HOLD, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  turn_id = ui_send (u, session_id, "Some Python");
  ui_wait_until (model_held, u);
  for (guint i = 0; i < G_N_ELEMENTS (deltas); i++)
    {
      natter_turn_event_hub_emit_delta (u->w->hub, turn_id, 0, NATTER_DELTA_TEXT, deltas[i]);
      g_string_append (answer, deltas[i]);
      ui_wait_painted ();
    }
  json_object_set_string_member (json_node_get_object (message), "content", answer->str);
  literal = json_to_string (message, FALSE);
  natter_fake_model_release_with (u->w->fakes->model, literal);
  ui_wait_turn (u, turn_id);
  /* The conversation is then named (automatic titles), which the
   * timeline hears of as well. */
  {
    g_autoptr(GAsyncResult) result = NULL;

    natter_sessions_set_title_async (u->sessions, session_id, "Printing hi", NULL, ui_result_cb, &result);
    ui_wait_until (ui_result_ready, &result);
    g_assert_true (natter_sessions_set_title_finish (u->sessions, result, NULL));
  }
  for (int i = 0; i < 5; i++)
    ui_wait_painted ();

  b = (BlockShown) { code_block_of (window, turn_id), 1 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);

  ui_destroy_window (window);
  ui_world_free (u);
}

static void
test_rich_code_block_whole (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *short_session = ui_create_session (u, "Code");
  g_autofree char *long_session = ui_create_session (u, "Long code");
  g_autofree char *short_answer = code_answer (10);
  g_autofree char *long_answer = code_answer (100);
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  g_autofree char *code = NULL;
  NatterWindow *window;
  GtkWidget *expander;
  BlockShown b;

  natter_fake_model_script (u->w->fakes->model, short_answer, long_answer, NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, short_session));
  t1 = ui_send (u, short_session, "Ten lines of C");
  ui_wait_turn (u, t1);

  /* Live: all ten lines, no scrollbar of its own, nothing to expand. */
  b = (BlockShown) { code_block_of (window, t1), 10 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  g_assert_null (ui_find_first (b.block, GTK_TYPE_EXPANDER));
  save_screenshots (GTK_WIDGET (window), "code-block");

  g_assert_true (natter_window_open_session (window, long_session));
  t2 = ui_send (u, long_session, "A hundred lines of C");
  ui_wait_turn (u, t2);

  /* A very long block is capped, and its expander shows all of it; Copy
   * still copies all of it. */
  b = (BlockShown) { code_block_of (window, t2), 100 };
  expander = ui_find_first (b.block, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (gtk_expander_get_expanded (GTK_EXPANDER (expander)));
  g_assert_false (code_lines_shown (&b));
  code = natter_code_block_dup_code (NATTER_CODE_BLOCK (b.block));
  g_assert_true (g_str_has_suffix (code, "\nint line_100 = 100;"));
  save_screenshots (GTK_WIDGET (window), "code-block-capped");
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  ui_destroy_window (window);

  /* After a restart, the same. */
  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, short_session));
  b = (BlockShown) { code_block_of (window, t1), 10 };
  ui_wait_until_full (code_lines_shown, describe_block, &b);
  g_assert_true (natter_window_open_session (window, long_session));
  b = (BlockShown) { code_block_of (window, t2), 100 };
  expander = ui_find_first (b.block, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  g_assert_false (code_lines_shown (&b));
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_wait_until_full (code_lines_shown, describe_block, &b);

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The model-call limit: how many calls, why; identical calls grouped;
 * Branch from Here where it is on a completed turn */

static char *
send_with_limit (UiWorld    *u,
                 const char *session_id,
                 const char *text,
                 guint       max_model_calls)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) input = natter_test_json ("{\"role\":\"user\"}");
  g_autoptr(NatterSendOptions) options = natter_test_send_options ("helper", NULL, NULL);
  char *turn_id;

  natter_send_options_set_max_model_calls (options, max_model_calls);
  json_object_set_string_member (json_node_get_object (input), "content", text);
  natter_sessions_send_message_async (u->sessions, session_id, json_node_get_object (input),
                                      options, NULL, ui_result_cb, &result);
  turn_id = natter_sessions_send_message_finish (u->sessions, ui_wait_result (&result), &error);
  g_assert_no_error (error);
  ui_wait_turn (u, turn_id);
  return turn_id;
}

/* The x of @row's Branch from Here in the row's own coordinates. */
static double
branch_x (NatterTurnRow *row)
{
  GtkWidget *button = ui_find_button (row, "_Branch from Here");
  graphene_point_t point;

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_compute_point (button, GTK_WIDGET (row), &GRAPHENE_POINT_INIT (0, 0), &point));
  return point.x;
}

static void
check_limit_turn (NatterWindow *window,
                  const char   *done_turn,
                  const char   *limit_turn)
{
  NatterTurnRow *row = row_for_turn (window, limit_turn);
  g_autoptr(GPtrArray) cards = NULL;
  g_autoptr(GPtrArray) groups = NULL;
  GtkWidget *expander;

  g_assert_true (ui_label_shown (row, "Stopped after 5 model calls for one message, the limit set in Preferences."));
  g_assert_nonnull (ui_find_button (row, "_Continue"));

  /* Five identical calls are one line; its expander shows the five. */
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 0);
  g_assert_true (ui_label_shown (row, "sa × 5"));
  expander = ui_find_first (row, GTK_TYPE_EXPANDER);
  g_assert_nonnull (expander);
  gtk_expander_set_expanded (GTK_EXPANDER (expander), TRUE);
  ui_settle ();
  g_ptr_array_unref (cards);
  cards = ui_find_all (row, NATTER_TYPE_TOOL_CALL_CARD);
  g_assert_cmpuint (cards->len, ==, 5);
  for (guint i = 0; i < cards->len; i++)
    g_assert_cmpstr (natter_tool_call_card_get_status (g_ptr_array_index (cards, i)), ==, "Done");

  /* The row's actions line up with those of a completed turn. */
  g_assert_cmpfloat_with_epsilon (branch_x (row), branch_x (row_for_turn (window, done_turn)), 0.5);
}

static void
test_rich_limit_and_groups (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Limit");
  g_autofree char *t1 = NULL;
  g_autofree char *t2 = NULL;
  NatterWindow *window;

  natter_fake_model_script (u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Fine.\"}",
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c1", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c2", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c3", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c4", "sa", "{}")),
                            NATTER_FAKE_TOOL_STEP (NATTER_FAKE_CALL ("c5", "sa", "{}")),
                            NULL);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  t1 = send_with_limit (u, session_id, "Hello", 5);
  t2 = send_with_limit (u, session_id, "Call sa until you stop", 5);

  check_limit_turn (window, t1, t2);
  save_screenshots (GTK_WIDGET (window), "limit-turn");
  ui_destroy_window (window);

  ui_world_restart (u);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  check_limit_turn (window, t1, t2);

  ui_destroy_window (window);
  ui_world_free (u);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  app = ui_test_init_with_app (&argc, &argv);

  g_test_add_func ("/rich/turn", test_rich_turn);
  g_test_add_func ("/rich/copy", test_rich_copy);
  g_test_add_func ("/rich/code-block-whole", test_rich_code_block_whole);
  g_test_add_func ("/rich/code-block-streamed", test_rich_code_block_streamed);
  g_test_add_func ("/rich/branch", test_rich_branch);
  g_test_add_func ("/rich/limit-and-groups", test_rich_limit_and_groups);
  g_test_add_func ("/rich/try-again-latest", test_rich_try_again_latest);
  g_test_add_func ("/rich/model-picker", test_rich_model_picker);
  g_test_add_func ("/rich/model-picker-unreachable", test_rich_model_picker_unreachable);
  g_test_add_func ("/rich/model-picker-first-model", test_rich_model_picker_first_model);
  g_test_add_func ("/rich/model-picker-per-session", test_rich_model_picker_per_session);
  g_test_add_func ("/rich/model-picker-unknown-provider", test_rich_model_picker_unknown_provider);
  g_test_add_func ("/rich/shortcuts", test_rich_shortcuts);
  g_test_add_func ("/rich/icon-buttons-labelled", test_rich_icon_buttons_labelled);

  status = g_test_run ();
  g_object_unref (app);
  return status;
}
