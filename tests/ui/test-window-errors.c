/* test-window-errors.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The error bar under the message field: a failed send or setup error
 * shows there, not as a toast, with the action that fixes it; a missing
 * default provider says so; a provider's error goes once its settings
 * change.
 */

#include "test-window.h"

/* The error bar's labels: its heading, then the reason. */
static GtkLabel *
error_label (NatterWindow *window,
             guint         index)
{
  g_autoptr(GPtrArray) labels = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_LABEL);
  GPtrArray *texts = g_ptr_array_new ();

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      /* A button's own label is not the bar's text. */
      if (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON) == NULL)
        g_ptr_array_add (texts, label);
    }
  g_assert_cmpuint (texts->len, ==, 2);
  {
    GtkLabel *label = g_ptr_array_index (texts, index);

    g_ptr_array_unref (texts);
    return label;
  }
}

static GtkButton *
error_action (NatterWindow *window)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (gtk_button_get_label (g_ptr_array_index (buttons, i)) != NULL)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

/* Whether the whole of @label's text is laid out: wrapped, not cut. */
static gboolean
label_is_whole (GtkLabel *label)
{
  return gtk_label_get_wrap (label) &&
         gtk_label_get_ellipsize (label) == PANGO_ELLIPSIZE_NONE &&
         !pango_layout_is_ellipsized (gtk_label_get_layout (label));
}

static gboolean
composer_has_text (gpointer data)
{
  g_autofree char *text = natter_composer_dup_text (natter_window_get_composer (data));

  ui_settle ();
  return text[0] != '\0';
}

static gboolean
sends_as_expected (gpointer data)
{
  UiWorld *u = data;

  ui_settle ();
  return natter_session_index_entry_get_turn_count (natter_session_index_lookup (u->index, g_object_get_data (G_OBJECT (u->index), "test-session"))) == 1;
}

/* A failed send or setup error is not a toast: it shows in a bar under
 * the header — not over the composer — in plain words, with the whole
 * reason (not ellipsized), the action that helps (Preferences for a
 * missing agent or model; no Retry where sending the same again cannot
 * succeed), and it stays until dismissed or answered. */
void
test_window_errors (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Errors");
  g_autoptr(GFile) file = natter_jsonl_repo_get_file (u->w->session_repo, session_id, NULL);
  g_autofree char *path = g_file_get_path (file);
  g_autofree char *moved = g_strconcat (path, ".moved", NULL);
  NatterWindow *window;
  NatterComposer *composer;
  graphene_rect_t bar_bounds, composer_bounds;
  GtkLabel *detail;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (window))));

  /* An agent that does not resolve: Preferences is where it is fixed. */
  natter_window_set_agent_id (window, "nobody");
  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  detail = error_label (window, 1);
  g_assert_cmpstr (gtk_label_get_text (detail), ==,
                   "The agent or its model is not set up. Choose them in Preferences.\n"
                   "Details: no such agent");
  g_assert_true (label_is_whole (detail));
  g_assert_true (gtk_label_get_selectable (detail));
  g_assert_nonnull (error_action (window));
  g_assert_cmpstr (gtk_button_get_label (error_action (window)), ==, "_Preferences");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (error_action (window))), ==, "app.preferences");
  /* The words are back in the composer, which the bar does not cover. */
  ui_wait_until (composer_has_text, window);
  g_assert_true (gtk_widget_compute_bounds (natter_window_get_error_bar (window), GTK_WIDGET (window), &bar_bounds));
  g_assert_true (gtk_widget_compute_bounds (GTK_WIDGET (composer), GTK_WIDGET (window), &composer_bounds));
  g_assert_false (graphene_rect_intersection (&bar_bounds, &composer_bounds, NULL));
  g_assert_cmpfloat (bar_bounds.origin.y + bar_bounds.size.height, <=, composer_bounds.origin.y);
  /* Nothing takes it away on a timer: it is there until dismissed. */
  for (int i = 0; i < 10; i++)
    ui_settle ();
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (natter_window_get_error_bar (window))));
  {
    g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_error_bar (window), GTK_TYPE_BUTTON);
    GtkWidget *dismiss = NULL;

    for (guint i = 0; i < buttons->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Dismiss") == 0)
        dismiss = g_ptr_array_index (buttons, i);
    g_assert_nonnull (dismiss);
    g_signal_emit_by_name (dismiss, "clicked");
  }
  ui_wait_until (ui_error_bar_hidden, window);

  /* The session file is not a file any more: sending the same again
   * cannot succeed until someone mends it, so no Retry is offered; the
   * words are back in the composer, and go once it is mended. */
  natter_window_set_agent_id (window, "helper");
  g_assert_cmpint (g_rename (path, moved), ==, 0);
  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  g_test_message ("%s", gtk_label_get_text (error_label (window, 1)));
  g_assert_true (label_is_whole (error_label (window, 1)));
  g_assert_null (error_action (window));
  ui_save_window (GTK_WIDGET (window), "error-bar.png");
  ui_wait_until (composer_has_text, window);
  g_assert_cmpint (g_rmdir (path), ==, 0);
  g_assert_cmpint (g_rename (moved, path), ==, 0);
  g_object_set_data_full (G_OBJECT (u->index), "test-session", g_strdup (session_id), g_free);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (sends_as_expected, u);
  ui_wait_until (ui_error_bar_hidden, window);
  {
    g_autofree char *left = natter_composer_dup_text (composer);

    g_assert_cmpstr (left, ==, "");
  }

  ui_destroy_window (window);
  ui_world_free (u);
}

/* The default provider was deleted (the setting still names it): a
 * message makes no turn, which could only look interrupted forever; the
 * error bar says so in plain words, with Preferences, and the words go
 * back into the composer. */
void
test_window_missing_default_provider (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "New Chat");
  g_autoptr(NatterProviderRegistry) registry = natter_provider_registry_new (NULL, NULL, NULL);
  NatterSessionIndexEntry *entry;
  NatterComposer *composer;
  NatterWindow *window;
  g_autofree char *draft = NULL;

  natter_fake_model_script (u->w->fakes->model, NATTER_FAKE_TEXT_STEP, NULL);
  window = ui_window_new (app, u);
  composer = natter_window_get_composer (window);
  natter_provider_registry_add_provider (registry, "mock", "Mock", "http://127.0.0.1:9/v1");
  natter_window_set_model_provider (window, registry, "gone", "m");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 0)), ==, "The message was not sent");
  g_assert_cmpstr (gtk_label_get_text (error_label (window, 1)), ==,
                   "The default provider “gone” no longer exists. Choose another one in Preferences.\n"
                   "Details: No provider “gone” is configured");
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (error_action (window))), ==, "app.preferences");
  ui_wait_until (composer_has_text, window);
  draft = natter_composer_dup_text (composer);
  g_assert_cmpstr (draft, ==, "Hello there");

  /* No turn, so nothing runs and nothing spins in the sidebar. */
  entry = natter_session_index_lookup (u->index, session_id);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (entry), ==, 0);
  g_assert_null (natter_session_index_entry_get_latest_turn_id (entry));
  g_assert_true (ui_no_advances (u));
  g_assert_false (window->conversation.sending);
  g_assert_false (_natter_window_latest_is_running (window));

  ui_destroy_window (window);
  ui_world_free (u);
}

/* Sets the providers of @settings: each an id and its base URL. */
static void
set_providers (NatterSettings *settings,
               const char     *first_id,
               ...)
{
  g_autoptr(GPtrArray) providers = g_ptr_array_new_with_free_func ((GDestroyNotify) natter_provider_config_free);
  g_autoptr(GError) error = NULL;
  va_list args;

  va_start (args, first_id);
  for (const char *id = first_id; id != NULL; id = va_arg (args, const char *))
    g_ptr_array_add (providers, natter_provider_config_new (id, id, va_arg (args, const char *)));
  va_end (args);
  g_assert_true (natter_settings_set_providers (settings, providers, &error));
  g_assert_no_error (error);
}

/* Sends "Hello there" and waits for the error bar to say that the
 * provider could not be reached. */
static void
send_unreachable (NatterWindow *window)
{
  NatterComposer *composer = natter_window_get_composer (window);

  natter_composer_set_text (composer, "Hello there");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (ui_error_bar_shown, window);
  g_test_message ("%s", gtk_label_get_text (error_label (window, 1)));
  g_assert_nonnull (strstr (gtk_label_get_text (error_label (window, 1)), "is it running?"));
  ui_wait_until (composer_has_text, window);
  natter_composer_set_text (composer, "");
}

/* An error bar saying that a provider could not be reached goes once
 * that provider's settings change — its address edited, its key stored,
 * a connection test in Preferences that succeeds, another default model,
 * another model picked — as the next send would say whether it still holds; a change of
 * another provider leaves it, and an error about something else (an
 * agent that does not resolve) stays whatever the providers do. */
void
test_window_provider_error_goes_with_settings (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "Unreachable");
  g_autoptr(NatterServices) services = NULL;
  g_autofree char *down = g_strdup_printf ("http://127.0.0.1:%u/v1", natter_test_closed_port ());
  g_autofree char *default_provider = NULL;
  g_autofree char *default_model = NULL;
  g_autoptr(GVariant) providers = NULL;
  NatterSettings *settings;
  NatterWindow *window;

  g_object_get (app, "services", &services, NULL);
  g_assert_nonnull (services);
  window = ui_window_new (app, u);
  /* As Preferences would set them; the application gives the window
   * its services' providers. No model named: the send asks the
   * provider for its first one. */
  settings = window->settings;
  providers = g_variant_ref (natter_settings_get_providers (settings));
  default_provider = g_strdup (natter_settings_get_default_provider (settings));
  default_model = g_strdup (natter_settings_get_default_model (settings));
  set_providers (settings, "down", down, "other", "http://127.0.0.1:9/v1", NULL);
  natter_settings_set_default_provider (settings, "down");
  natter_settings_set_default_model (settings, "");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);

  /* Another provider's address, key or test: the bar stays. */
  send_unreachable (window);
  set_providers (settings, "down", down, "other", "http://127.0.0.1:10/v1", NULL);
  natter_services_provider_changed (services, "other");
  ui_settle ();
  g_assert_true (ui_error_bar_shown (window));
  /* Its own address edited: the bar goes. */
  set_providers (settings, "down", "http://127.0.0.1:11/v1", "other", "http://127.0.0.1:10/v1", NULL);
  ui_wait_until (ui_error_bar_hidden, window);
  set_providers (settings, "down", down, "other", "http://127.0.0.1:10/v1", NULL);

  /* Its key stored, or a test in Preferences that succeeded. */
  send_unreachable (window);
  natter_services_provider_changed (services, "down");
  ui_wait_until (ui_error_bar_hidden, window);

  /* Another default model. */
  send_unreachable (window);
  natter_settings_set_default_model (settings, "m2");
  ui_wait_until (ui_error_bar_hidden, window);
  natter_settings_set_default_model (settings, "");

  /* Another model picked in the header, as the person does once told
   * the server cannot be reached: the next message goes there. */
  send_unreachable (window);
  g_signal_emit_by_name (window->choice.model_picker, "model-chosen", "other", "m3");
  ui_wait_until (ui_error_bar_hidden, window);

  /* An error about something else stays: another copy of Natter
   * holding the data folder. */
  {
    g_autoptr(GError) locked = g_error_new_literal (NATTER_SESSION_ERROR, NATTER_SESSION_ERROR_LOCKED,
                                                    "The data directory is locked");

    _natter_window_show_error (window, session_id, "The message was not sent", locked, NULL);
  }
  ui_wait_until (ui_error_bar_shown, window);
  set_providers (settings, "down", "http://127.0.0.1:12/v1", NULL);
  natter_services_provider_changed (services, "down");
  ui_settle ();
  g_assert_true (ui_error_bar_shown (window));

  ui_destroy_window (window);
  g_object_set (settings, "providers", providers, NULL);
  natter_settings_set_default_provider (settings, default_provider);
  natter_settings_set_default_model (settings, default_model);
  ui_world_free (u);
}

/* Providers set by hand and no default chosen: the window's first
 * message goes to the first provider of the list, never to a built-in
 * Ollama the person did not ask for. */
void
test_window_default_is_first_provider (void)
{
  UiWorld *u = ui_world_new ();
  g_autofree char *session_id = ui_create_session (u, "First minute");
  guint port = natter_test_closed_port ();
  g_autofree char *down = g_strdup_printf ("http://127.0.0.1:%u/v1", port);
  g_autofree char *host = g_strdup_printf ("127.0.0.1:%u", port);
  g_autofree char *default_provider = NULL;
  g_autofree char *default_model = NULL;
  g_autoptr(GVariant) providers = NULL;
  NatterSettings *settings;
  NatterWindow *window;
  const char *said;

  window = ui_window_new (app, u);
  settings = window->settings;
  providers = g_variant_ref (natter_settings_get_providers (settings));
  default_provider = g_strdup (natter_settings_get_default_provider (settings));
  default_model = g_strdup (natter_settings_get_default_model (settings));
  set_providers (settings, "mine", down, NULL);
  natter_settings_set_default_provider (settings, "");
  natter_settings_set_default_model (settings, "");
  g_assert_true (natter_window_open_session (window, session_id));
  ui_wait_until (ui_timeline_loaded, window);
  g_assert_cmpstr (natter_model_picker_get_provider_id (natter_window_get_model_picker (window)), ==, "mine");

  send_unreachable (window);
  said = gtk_label_get_text (error_label (window, 1));
  g_assert_nonnull (strstr (said, host));
  g_assert_null (strstr (said, "11434"));

  ui_destroy_window (window);
  g_object_set (settings, "providers", providers, NULL);
  natter_settings_set_default_provider (settings, default_provider);
  natter_settings_set_default_model (settings, default_model);
  ui_world_free (u);
}
