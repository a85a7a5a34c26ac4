/* test-rich-model-picker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The header's model picker against a localhost /models: its list, a
 * provider that cannot be reached, the first model, a choice per
 * conversation, a provider that is gone, and the arrow keys' way
 * through the lists.
 */

#include "test-rich.h"

/* The model picker */

/* What the localhost /models lists, unless a test says otherwise. */
#define ALPHA_BETA "{\"object\":\"list\",\"data\":[{\"id\":\"alpha\",\"object\":\"model\"}," \
                   "{\"id\":\"beta\",\"object\":\"model\"}]}"

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

void
test_rich_model_picker (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Models");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterTestServer *ms = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GListModel *models;
  JsonObject *descriptor;
  GtkWidget *popover;
  g_autoptr(GPtrArray) popovers = NULL;

  ms = natter_test_server_new_models (ALPHA_BETA);
  natter_provider_registry_add_provider (registry, "local", "Local Server", ms->base_url);
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
  g_assert_cmpuint (ms->paths->len, ==, 2);

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
  natter_test_server_free (ms);
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
         gtk_widget_get_width (GTK_WIDGET (label)) > 0 && gtk_widget_get_mapped (GTK_WIDGET (label));
}

static char *
describe_picker_label (gpointer data)
{
  PickerLabelWait *w = data;
  GtkLabel *label = picker_button_label (w->picker);

  return g_strdup_printf ("the picker shows %s, %d px wide", label != NULL ? gtk_label_get_text (label) : "no label",
                          label != NULL ? gtk_widget_get_width (GTK_WIDGET (label)) : 0);
}

/* The README's out-of-the-box settings: one provider, `default-model`
 * empty. The picker of a new chat shows the model the first message will
 * go to (the provider's first, resolved as sending resolves it), whole,
 * never a placeholder cut to "Choos…Model". */
void
test_rich_model_picker_first_model (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "First message");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterTestServer *ms = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  PickerLabelWait wait = { NULL, "alpha" };
  GtkLabel *label;

  ms = natter_test_server_new_models (ALPHA_BETA);
  natter_provider_registry_add_provider (registry, "local", "Local Server", ms->base_url);
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
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (GTK_WIDGET (picker))), "alpha"));
  save_screenshots (GTK_WIDGET (window), "model-picker-first-model");

  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (ms);
}

void
test_rich_model_picker_unreachable (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Offline");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterTestServer *ms = NULL;
  g_autofree char *base_url = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkLabel *title;

  /* A port nobody listens on any more. */
  ms = natter_test_server_new_models (ALPHA_BETA);
  base_url = g_strdup (ms->base_url);
  natter_test_server_free (ms);
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

void
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
  NatterTestServer *one = NULL;
  NatterTestServer *two = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;

  one = natter_test_server_new_models (ONE_MODELS);
  two = natter_test_server_new_models (TWO_MODELS);
  natter_provider_registry_add_provider (registry, "one", "Server One", one->base_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two->base_url);
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
  g_assert_cmpuint (two->paths->len, ==, 1);

  /* The first session's last turn used one/beta: one's list. */
  g_assert_true (natter_window_open_session (window, first));
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  wait_picker (picker, "models");
  assert_listed (picker, one_models);
  g_assert_cmpuint (one->paths->len, ==, 1);

  /* A session without turns: the default provider and model. */
  g_assert_true (natter_window_open_session (window, fresh));
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "alpha");
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "models");

  /* Back to the second: the kept list, at once, without a request. */
  g_assert_true (natter_window_open_session (window, second));
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "models");
  assert_listed (picker, two_models);
  g_assert_cmpuint (two->paths->len, ==, 1);
  g_assert_cmpuint (one->paths->len, ==, 1);

  /* Refresh asks again. */
  natter_model_picker_refresh (picker);
  wait_picker (picker, "models");
  g_assert_cmpuint (two->paths->len, ==, 2);

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
  g_assert_cmpuint (one->paths->len, ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (one);
  natter_test_server_free (two);
}

/* The popover's row of @model under @provider_id, or NULL. */
static GtkListBoxRow *
find_model_row (GtkWidget  *popover,
                const char *provider_id,
                const char *model)
{
  g_autoptr(GPtrArray) rows = find_all_any (popover, GTK_TYPE_LIST_BOX_ROW);

  for (guint i = 0; i < rows->len; i++)
    {
      GObject *row = g_ptr_array_index (rows, i);

      if (g_strcmp0 (g_object_get_data (row, "model"), model) == 0 &&
          g_strcmp0 (g_object_get_data (row, "provider"), provider_id) == 0)
        return GTK_LIST_BOX_ROW (row);
    }
  return NULL;
}

typedef struct
{
  GtkWidget  *popover;
  const char *provider_id;
  const char *model;
} RowWait;

static gboolean
label_mapped (GtkWidget  *root,
              const char *text)
{
  g_autoptr(GPtrArray) labels = find_all_any (root, GTK_TYPE_LABEL);

  for (guint i = 0; i < labels->len; i++)
    if (g_strcmp0 (gtk_label_get_text (g_ptr_array_index (labels, i)), text) == 0 &&
        gtk_widget_get_mapped (g_ptr_array_index (labels, i)))
      return TRUE;
  return FALSE;
}

static gboolean
row_shown (gpointer data)
{
  RowWait *w = data;
  GtkListBoxRow *row = find_model_row (w->popover, w->provider_id, w->model);

  ui_settle ();
  return row != NULL && gtk_widget_get_mapped (GTK_WIDGET (row));
}

/* A person with two providers opens a conversation of one: the picker
 * lists its models first, under its name, and the other's below under
 * theirs, and a model of the other goes with the other provider. */
void
test_rich_model_picker_other_providers (void)
{
  static const char * const two_models[] = { "gamma", "delta", "epsilon", NULL };
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "On two");
  g_autofree char *turn_id = NULL;
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(JsonObject) sent = NULL;
  g_autoptr(GPtrArray) popovers = NULL;
  g_auto(GStrv) listed = NULL;
  NatterTestServer *one = NULL;
  NatterTestServer *two = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkWidget *popover;
  GtkListBoxRow *row;
  RowWait wait;

  one = natter_test_server_new_models (ONE_MODELS);
  two = natter_test_server_new_models (TWO_MODELS);
  natter_provider_registry_add_provider (registry, "one", "Server One", one->base_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two->base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP, NULL);
  turn_id = send_with_model (u, session_id, "Hello two", "two", "delta");

  window = ui_window_new (app, u);
  /* The conversation first: a window with none open would ask the
   * default provider for its models, which this test must not have
   * asked for (a cancelled listing may or may not reach the server). */
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "one", "alpha");
  picker = natter_window_get_model_picker (window);
  wait_picker (picker, "models");
  assert_listed (picker, two_models);
  /* Nothing asked of the other provider before the list is opened. */
  g_assert_cmpuint (one->paths->len, ==, 0);

  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  popover = g_ptr_array_index (popovers, 0);
  wait = (RowWait) { popover, "one", "beta" };
  ui_wait_until (row_shown, &wait);
  g_assert_cmpuint (one->paths->len, ==, 1);
  listed = natter_model_picker_get_other_models (picker, "one");
  g_assert_cmpstrv (listed, ((const char * const[]) { "alpha", "beta", NULL }));
  /* Each list under its provider's name, the conversation's first. */
  g_assert_true (label_mapped (popover, "Server Two"));
  g_assert_true (label_mapped (popover, "Server One"));
  /* The default every registry keeps, not one of this person's
   * providers, is not offered (it would say it cannot be reached). */
  g_assert_false (label_mapped (popover, "Ollama"));
  save_screenshots (popover, "model-picker-providers");

  /* A model of the other provider, picked as a person does: the header
   * follows it there, and the next message goes to it. */
  row = find_model_row (popover, "one", "beta");
  g_signal_emit_by_name (gtk_widget_get_parent (GTK_WIDGET (row)), "row-activated", row);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "one");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  /* Whose "beta" it is, as another provider may have one too. */
  g_assert_cmpstr (gtk_widget_get_tooltip_text (ui_find_first (picker, GTK_TYPE_MENU_BUTTON)), ==,
                   "Model for the Next Message: beta on Server One");
  wait_picker (picker, "models");
  sent = send_from_window (u, window, session_id, "Hello one");
  assert_descriptor (sent, "one", "beta");
  /* Kept from the popover's listing: not asked again. */
  g_assert_cmpuint (one->paths->len, ==, 1);

  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (one);
  natter_test_server_free (two);
}

typedef struct
{
  UiWorld      *u;
  NatterWindow *window;
} NewChatSent;

/* Whether the window's new conversation has been made and its first
 * answer has come. */
static gboolean
new_chat_answered (gpointer data)
{
  NewChatSent *sent = data;
  const char *session_id = natter_window_get_session_id (sent->window);
  NatterSessionIndexEntry *entry = session_id != NULL ? natter_session_index_lookup (sent->u->index, session_id)
                                                      : NULL;

  return entry != NULL && natter_session_index_entry_get_turn_count (entry) == 1 &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0;
}

/* Opens a new conversation as Ctrl+N does. */
static void
new_chat (NatterWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-chat", NULL));
  g_assert_null (natter_window_get_session_id (window));
}

/* Sends @text from the window's new conversation and returns the model
 * its turn was made with. */
static JsonObject *
send_new_chat (UiWorld      *u,
               NatterWindow *window,
               const char   *text)
{
  NewChatSent sent = { u, window };
  NatterSessionIndexEntry *entry;
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *created;

  natter_composer_set_text (natter_window_get_composer (window), text);
  g_assert_true (natter_composer_send (natter_window_get_composer (window)));
  ui_wait_until (new_chat_answered, &sent);
  entry = natter_session_index_lookup (u->index, natter_window_get_session_id (window));
  events = ui_get_turn (u, natter_session_index_entry_get_latest_turn_id (entry));
  created = json_node_get_object (g_ptr_array_index (events, 0));
  return json_object_ref (json_object_get_object_member (json_object_get_object_member (json_object_get_object_member (created, "agent"),
                                                                                        "resolved"),
                                                         "model"));
}

/* A first run: the person adds a provider of theirs after the built-in
 * Ollama (which does not run here) and sets no default. The model they
 * pick in their first chat is the next chat's too, shown and sent; once
 * Preferences name a default, a new chat goes to the default. */
void
test_rich_model_picker_new_chat_goes_on (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(NatterSettings) settings = NULL;
  g_autoptr(JsonObject) first = NULL;
  g_autoptr(JsonObject) second = NULL;
  g_autoptr(NatterMessageRequest) request = natter_message_request_new ("Hello default");
  g_autoptr(GPtrArray) popovers = NULL;
  NatterTestServer *builtin = NULL;
  NatterTestServer *mine = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkListBoxRow *row;
  RowWait wait;

  builtin = natter_test_server_new_models (TWO_MODELS);
  mine = natter_test_server_new_models (ONE_MODELS);
  natter_provider_registry_add_provider (registry, "ollama", "Ollama", builtin->base_url);
  natter_provider_registry_add_provider (registry, "mine", "My Server", mine->base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NULL);

  window = ui_window_new (app, u);
  g_assert_cmpstr (natter_settings_get_default_provider (window->settings), ==, "");
  g_assert_cmpstr (natter_settings_get_default_model (window->settings), ==, "");
  new_chat (window);
  /* What the application gives a window with no default set: the first
   * provider of the list, its first model. */
  natter_window_set_model_provider (window, registry, "ollama", NULL);
  picker = natter_window_get_model_picker (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "ollama");

  /* The first chat: a model of the person's own provider, picked. */
  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  wait = (RowWait) { g_ptr_array_index (popovers, 0), "mine", "beta" };
  ui_wait_until (row_shown, &wait);
  row = find_model_row (wait.popover, "mine", "beta");
  g_signal_emit_by_name (gtk_widget_get_parent (GTK_WIDGET (row)), "row-activated", row);
  natter_model_picker_popdown (picker);
  first = send_new_chat (u, window, "Hello mine");
  assert_descriptor (first, "mine", "beta");

  /* Ctrl+N: the new chat goes on with it, not to the built-in Ollama. */
  new_chat (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "mine");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  second = send_new_chat (u, window, "Hello again");
  assert_descriptor (second, "mine", "beta");

  /* A default set in Preferences wins. The application gives its windows
   * the new default (natter-application.c); so does the test, with its
   * registry. */
  natter_settings_set_default_provider (window->settings, "ollama");
  natter_settings_set_default_model (window->settings, "gamma");
  natter_window_set_model_provider (window, registry, "ollama", "gamma");
  new_chat (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "ollama");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "gamma");
  /* The default is the agent's to apply (the runtime's, not an override
   * of the window's): the message names no model of its own. */
  _natter_window_choose_for (window, request);
  g_assert_null (natter_message_request_get_provider (request));
  g_assert_null (natter_message_request_get_model (request));

  settings = g_object_ref (window->settings);
  ui_destroy_window (window);
  /* The settings are the process's: the next test starts from none. */
  natter_settings_set_default_provider (settings, "");
  natter_settings_set_default_model (settings, "");
  ui_world_free (u);
  natter_test_server_free (builtin);
  natter_test_server_free (mine);
}

/* A session whose provider is gone, or was a bare endpoint URL: the
 * unknown state with Preferences, never another provider's list. */
void
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
  NatterTestServer *one = NULL;
  NatterTestServer *two = NULL;
  GtkWidget *fallback = NULL;
  GtkLabel *title;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkWidget *popover;
  g_autoptr(GPtrArray) popovers = NULL;

  one = natter_test_server_new_models (ONE_MODELS);
  two = natter_test_server_new_models (TWO_MODELS);
  natter_provider_registry_add_provider (registry, "one", "Server One", one->base_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two->base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NATTER_FAKE_TEXT_STEP,
                            NATTER_FAKE_TEXT_STEP, NULL);
  removed_turn = send_with_model (u, removed, "Hello two", "two", "delta");
  endpoint_turn = send_with_model (u, endpoint, "Hello URL", two->base_url, "gamma");

  /* Preferences removed "two". */
  g_assert_true (natter_provider_registry_remove_provider (registry, "two"));
  window = ui_window_new (app, u);
  /* The conversation first: a window with none open would ask the
   * default provider for its models, which this test must not have
   * asked for (a cancelled listing may or may not reach the server). */
  g_assert_true (natter_window_open_session (window, removed));
  natter_window_set_model_provider (window, registry, "one", "alpha");
  picker = natter_window_get_model_picker (window);
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
  g_assert_cmpuint (two->paths->len, ==, 0);
  g_assert_cmpuint (one->paths->len, ==, 0);

  /* A bare endpoint URL: the unknown state too, even though it answers. */
  g_assert_true (natter_window_open_session (window, endpoint));
  g_assert_cmpstr (natter_model_picker_get_state (picker), ==, "unknown");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "gamma");
  g_assert_cmpuint (two->paths->len, ==, 0);

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
  natter_test_server_free (one);
  natter_test_server_free (two);
}

/* A model's name is the server's text, one line in the header and in the
 * list: a bidirectional override in it would turn the name around
 * ("odd" RLO "gnp.exe" reads "oddexe.png") and ESC would be a box, so
 * both show their stand-ins; the name chosen is still the server's. */
void
test_rich_model_picker_odd_names (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Models");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterTestServer *ms = natter_test_server_new_models (
    "{\"object\":\"list\",\"data\":[{\"id\":\"odd\\u202egnp.exe\",\"object\":\"model\"},"
    "{\"id\":\"esc\\u001b[2J\",\"object\":\"model\"}]}");
  NatterModelPicker *picker;
  NatterWindow *window;
  g_autoptr(GPtrArray) labels = NULL;
  gboolean header = FALSE, row = FALSE;

  natter_provider_registry_add_provider (registry, "local", "Local Server", ms->base_url);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "local", "odd\u202Egnp.exe");
  picker = natter_window_get_model_picker (window);
  wait_picker (picker, "models");
  natter_model_picker_popup (picker);

  labels = find_all_any (picker, GTK_TYPE_LABEL);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (g_ptr_array_index (labels, i));

      g_assert_null (strstr (text, "\u202E"));
      g_assert_null (strchr (text, '\x1b'));
      if (g_str_equal (text, "odd\\u202Egnp.exe"))
        {
          header = header || row;
          row = TRUE;
        }
      if (g_str_equal (text, "esc\u241B[2J"))
        row = TRUE;
    }
  g_assert_true (header);
  natter_model_picker_popdown (picker);
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "odd\u202Egnp.exe");

  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (ms);
}

/* The conversation's model is gone from its server (deleted, renamed):
 * the picker still says which model the next message goes to, checked,
 * and why it may fail, above what the server offers. */
void
test_rich_model_picker_model_gone (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Gone");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(GPtrArray) rows = NULL;
  NatterTestServer *ms = natter_test_server_new_models (ALPHA_BETA);
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkListBox *list;

  natter_provider_registry_add_provider (registry, "local", "Local Server", ms->base_url);
  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "local", "gamma");
  picker = natter_window_get_model_picker (window);
  wait_picker (picker, "models");
  natter_model_picker_popup (picker);

  list = GTK_LIST_BOX (ui_find_first (picker, GTK_TYPE_LIST_BOX));
  rows = ui_find_all (list, GTK_TYPE_LIST_BOX_ROW);
  g_assert_cmpuint (rows->len, ==, 3);
  g_assert_cmpstr (g_object_get_data (G_OBJECT (gtk_list_box_get_row_at_index (list, 0)), "model"), ==, "gamma");
  g_assert_true (ui_label_shown (gtk_list_box_get_row_at_index (list, 0), "Not offered by this provider now"));
  g_assert_false (ui_label_shown (gtk_list_box_get_row_at_index (list, 1), "Not offered by this provider now"));
  /* A screen reader hears the same: the name, checked, and why. */
  gtk_test_accessible_assert_property (gtk_list_box_get_row_at_index (list, 0), GTK_ACCESSIBLE_PROPERTY_LABEL, "gamma");
  gtk_test_accessible_assert_property (gtk_list_box_get_row_at_index (list, 0), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Not offered by this provider now");
  gtk_test_accessible_assert_state (gtk_list_box_get_row_at_index (list, 0), GTK_ACCESSIBLE_STATE_CHECKED,
                                    GTK_ACCESSIBLE_TRISTATE_TRUE);
  gtk_test_accessible_assert_state (gtk_list_box_get_row_at_index (list, 1), GTK_ACCESSIBLE_STATE_CHECKED,
                                    GTK_ACCESSIBLE_TRISTATE_FALSE);
  gtk_test_accessible_assert_property (gtk_list_box_get_row_at_index (list, 1), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       g_object_get_data (G_OBJECT (gtk_list_box_get_row_at_index (list, 1)), "model"));
  ui_wait_until (ui_is_mapped, gtk_widget_get_ancestor (GTK_WIDGET (list), GTK_TYPE_POPOVER));
  save_screenshots (gtk_widget_get_ancestor (GTK_WIDGET (list), GTK_TYPE_POPOVER), "model-picker-model-gone");

  /* Choosing one the server has: the note goes with the row. */
  natter_model_picker_choose (picker, "beta");
  g_clear_pointer (&rows, g_ptr_array_unref);
  rows = ui_find_all (list, GTK_TYPE_LIST_BOX_ROW);
  g_assert_cmpuint (rows->len, ==, 2);
  g_assert_false (ui_label_shown (GTK_WIDGET (list), "Not offered by this provider now"));
  natter_model_picker_popdown (picker);

  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (ms);
}

/* Picks @provider_id's @model in @window's model picker, as a person
 * does: opens its list, waits for the row, activates it. */
static void
pick_model (NatterWindow *window,
            const char   *provider_id,
            const char   *model)
{
  NatterModelPicker *picker = natter_window_get_model_picker (window);
  g_autoptr(GPtrArray) popovers = NULL;
  GtkListBoxRow *row;
  RowWait wait;

  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  wait = (RowWait) { g_ptr_array_index (popovers, 0), provider_id, model };
  ui_wait_until (row_shown, &wait);
  row = find_model_row (wait.popover, provider_id, model);
  g_signal_emit_by_name (gtk_widget_get_parent (GTK_WIDGET (row)), "row-activated", row);
  natter_model_picker_popdown (picker);
}

/* A window as the application opens it at a start: a new conversation,
 * with what the application gives a window while no default is set
 * (the first provider of the list, its first model). */
static NatterWindow *
open_window_new_chat (UiWorld                *u,
                      NatterProviderRegistry *registry,
                      const char             *provider,
                      const char             *model)
{
  NatterWindow *window = ui_window_new (app, u);

  new_chat (window);
  natter_window_set_model_provider (window, registry, provider, model);
  return window;
}

/* The README's "a new chat goes on with the model you last picked",
 * across a restart: a model picked in an empty conversation and never
 * sent with is the one the next run offers and sends with, not the
 * built-in Ollama's; a default set in Preferences still wins over it. */
void
test_rich_model_picker_pick_survives_restart (void)
{
  UiWorld *u = ui_world_new ();
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(NatterSettings) settings = NULL;
  g_autoptr(JsonObject) sent = NULL;
  g_autofree char *remembered_provider = NULL;
  g_autofree char *remembered_model = NULL;
  NatterTestServer *builtin = NULL;
  NatterTestServer *mine = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;

  builtin = natter_test_server_new_models (TWO_MODELS);
  mine = natter_test_server_new_models (ONE_MODELS);
  natter_provider_registry_add_provider (registry, "ollama", "Ollama", builtin->base_url);
  natter_provider_registry_add_provider (registry, "mine", "My Server", mine->base_url);
  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);

  /* A first run: nothing remembered, no default, no conversation. */
  window = open_window_new_chat (u, registry, "ollama", NULL);
  settings = g_object_ref (window->settings);
  g_assert_false (natter_settings_dup_recent_model (settings, NULL, NULL, NULL));
  g_assert_cmpstr (natter_settings_get_default_provider (settings), ==, "");
  picker = natter_window_get_model_picker (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "ollama");
  pick_model (window, "mine", "beta");
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "mine");
  g_assert_true (natter_settings_dup_recent_model (settings, &remembered_provider, &remembered_model, NULL));
  g_assert_cmpstr (remembered_provider, ==, "mine");
  g_assert_cmpstr (remembered_model, ==, "beta");

  /* Quit without sending, start again: the pick is offered. */
  ui_destroy_window (window);
  ui_world_restart (u);
  window = open_window_new_chat (u, registry, "ollama", NULL);
  picker = natter_window_get_model_picker (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "mine");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "beta");
  /* And it is what the message goes to. */
  sent = send_new_chat (u, window, "Hello after a restart");
  assert_descriptor (sent, "mine", "beta");
  ui_destroy_window (window);

  /* A default set in Preferences wins over what was picked, after a
   * restart too. */
  natter_settings_set_default_provider (settings, "ollama");
  natter_settings_set_default_model (settings, "gamma");
  ui_world_restart (u);
  window = open_window_new_chat (u, registry, "ollama", "gamma");
  picker = natter_window_get_model_picker (window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (picker), ==, "ollama");
  g_assert_cmpstr (natter_model_picker_get_model (picker), ==, "gamma");
  ui_destroy_window (window);

  /* The settings are the process's: the next test starts from none. */
  natter_settings_set_default_provider (settings, "");
  natter_settings_set_default_model (settings, "");
  natter_settings_set_recent_model (settings, NULL, NULL, NULL);
  ui_world_free (u);
  natter_test_server_free (builtin);
  natter_test_server_free (mine);
}

/* An arrow key in the popover as GTK delivers it: the key controllers of
 * the capture phase, from the window down to the focus, then, if none
 * took it, the popover's own binding, which moves the focus that way. */
static void
press_arrow (GtkWidget *popover,
             guint      keyval)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (popover));
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  gboolean handled = FALSE;

  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; !handled && i < chain->len; i++)
    {
      GListModel *controllers = gtk_widget_observe_controllers (g_ptr_array_index (chain, i));

      for (guint j = 0; !handled && j < g_list_model_get_n_items (controllers); j++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, j);

          if (GTK_IS_EVENT_CONTROLLER_KEY (controller) &&
              gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
            g_signal_emit_by_name (controller, "key-pressed", keyval, 0, 0, &handled);
        }
      g_object_unref (controllers);
    }
  if (!handled)
    g_signal_emit_by_name (popover, "move-focus", keyval == GDK_KEY_Down ? GTK_DIR_DOWN : GTK_DIR_UP);
  ui_settle ();
}

/* Whether the model's name is in the middle of its row, whose highlight
 * and focus ring are taller than a line of text. */
static void
assert_name_centred (GtkListBoxRow *row)
{
  GtkWidget *label = ui_find_first (row, GTK_TYPE_LABEL);
  graphene_rect_t bounds;
  double row_middle = gtk_widget_get_height (GTK_WIDGET (row)) / 2.0;

  g_assert_true (gtk_widget_compute_bounds (label, GTK_WIDGET (row), &bounds));
  g_assert_cmpfloat (gtk_widget_get_height (GTK_WIDGET (row)), >, bounds.size.height);
  g_assert_cmpfloat_with_epsilon (bounds.origin.y + bounds.size.height / 2, row_middle, 1.0);
}

static gboolean
model_row_shown (gpointer data)
{
  GtkListBoxRow *row = find_model_row (data, "two", "epsilon");

  ui_settle ();
  return row != NULL && gtk_widget_get_mapped (GTK_WIDGET (row));
}

/* The arrow keys walk the model picker top to bottom as it is drawn:
 * from Preferences, offered where the provider of the conversation
 * cannot be reached, Down goes through the other provider's models to
 * Refresh List and Manage Models, and Up back the same way. Down went
 * from Preferences straight to Refresh List: GTK's arrows enter no list
 * box from outside. */
void
test_rich_model_picker_arrows_in_order (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Offline");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  g_autoptr(GPtrArray) popovers = NULL;
  g_autoptr(GPtrArray) walked = g_ptr_array_new ();
  NatterTestServer *gone = NULL;
  NatterTestServer *two = NULL;
  g_autofree char *gone_url = NULL;
  NatterModelPicker *picker;
  NatterWindow *window;
  GtkWidget *popover;
  GtkWidget *preferences;
  GtkWidget *expected[6];

  gone = natter_test_server_new_models (ALPHA_BETA);
  gone_url = g_strdup (gone->base_url);
  natter_test_server_free (gone);
  two = natter_test_server_new_models (TWO_MODELS);
  natter_provider_registry_add_provider (registry, "gone", "Gone Server", gone_url);
  natter_provider_registry_add_provider (registry, "two", "Server Two", two->base_url);

  window = ui_window_new (app, u);
  g_assert_true (natter_window_open_session (window, session_id));
  natter_window_set_model_provider (window, registry, "gone", NULL);
  picker = natter_window_get_model_picker (window);
  wait_picker (picker, "unreachable");
  natter_model_picker_popup (picker);
  popovers = find_all_any (picker, GTK_TYPE_POPOVER);
  popover = g_ptr_array_index (popovers, 0);
  ui_wait_until (model_row_shown, popover);

  preferences = find_button_with_action (picker, "app.preferences");
  expected[0] = preferences;
  expected[1] = GTK_WIDGET (find_model_row (popover, "two", "gamma"));
  expected[2] = GTK_WIDGET (find_model_row (popover, "two", "delta"));
  expected[3] = GTK_WIDGET (find_model_row (popover, "two", "epsilon"));
  expected[4] = ui_find_button (popover, "_Refresh List");
  expected[5] = find_button_with_action (picker, "win.manage-models");
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_nonnull (expected[i]);
  g_assert_true (gtk_widget_grab_focus (preferences));

  for (guint i = 1; i < G_N_ELEMENTS (expected); i++)
    {
      press_arrow (popover, GDK_KEY_Down);
      g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == expected[i]);
    }
  /* At the end the focus stays. */
  press_arrow (popover, GDK_KEY_Down);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == expected[5]);
  for (guint i = G_N_ELEMENTS (expected) - 1; i > 0; i--)
    {
      press_arrow (popover, GDK_KEY_Up);
      g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == expected[i - 1]);
    }

  /* A row's name sits in the middle of the row's highlight. */
  assert_name_centred (GTK_LIST_BOX_ROW (expected[2]));

  natter_model_picker_popdown (picker);
  ui_destroy_window (window);
  ui_world_free (u);
  natter_test_server_free (two);
}
