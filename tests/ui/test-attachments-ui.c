/* test-attachments-ui.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Attachments in the window: files dropped on the window and an image or
 * files pasted into the composer become chips (name, size, a thumbnail
 * for a pasted image) that can be removed; sending stores them as blobs
 * before the turn, the model gets the image, and the sent message shows
 * it inline, decoded off the main thread; files waiting beside a draft
 * outlive a crash with it. Ends with a screenshot of a
 * conversation with an image.
 */

#include <glib/gstdio.h>

#include "natter-attachment-chip.h"
#include "natter-attachment-intake.h"
#include "natter-composer.h"
#include "natter-ui-test-world.h"
#include "natter-window-private.h"

static NatterApplication *app;

/* A 96×64 gradient, as PNG-encodable texture. */
static GdkTexture *
make_texture (void)
{
  const int width = 96, height = 64;
  g_autofree guint8 *pixels = g_malloc (width * height * 4);
  g_autoptr(GBytes) bytes = NULL;

  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++)
      {
        guint8 *p = pixels + (y * width + x) * 4;

        p[0] = (guint8) (x * 255 / width);
        p[1] = (guint8) (y * 255 / height);
        p[2] = 200;
        p[3] = 255;
      }
  bytes = g_bytes_new (pixels, width * height * 4);
  return gdk_memory_texture_new (width, height, GDK_MEMORY_R8G8B8A8, bytes, width * 4);
}

typedef struct
{
  UiWorld         *u;
  NatterBlobStore *blobs;
  NatterWindow    *window;
  char            *session_id;
  GFile           *text_file;
  GFile           *png_file;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GdkTexture) texture = make_texture ();
  g_autoptr(GBytes) png = gdk_texture_save_to_png_bytes (texture);
  g_autoptr(GError) error = NULL;

  f->u = ui_world_new ();
  f->blobs = natter_blob_store_new (f->u->w->storage);
  natter_turn_runtime_set_blob_store (f->u->w->runtime, f->blobs);
  f->session_id = ui_create_session (f->u, "Pictures");

  f->text_file = g_file_get_child (f->u->w->dir, "notes.txt");
  g_file_replace_contents (f->text_file, "the word is plum", 16, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                           &error);
  g_assert_no_error (error);
  f->png_file = g_file_get_child (f->u->w->dir, "gradient.png");
  g_file_replace_contents (f->png_file, g_bytes_get_data (png, NULL), g_bytes_get_size (png), NULL, FALSE,
                           G_FILE_CREATE_NONE, NULL, NULL, &error);
  g_assert_no_error (error);

  f->window = ui_window_new (app, f->u);
  natter_window_set_blob_store (f->window, f->blobs);
  g_assert_true (natter_window_open_session (f->window, f->session_id));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  ui_destroy_window (f->window);
  g_object_unref (f->text_file);
  g_object_unref (f->png_file);
  g_free (f->session_id);
  g_object_unref (f->blobs);
  ui_world_free (f->u);
}

typedef struct
{
  gpointer root;
  guint    n;
} ChipCount;

static gboolean
has_n_chips (gpointer data)
{
  ChipCount *count = data;
  g_autoptr(GPtrArray) chips = NULL;

  ui_settle ();
  chips = ui_find_all (count->root, NATTER_TYPE_ATTACHMENT_CHIP);
  return chips->len == count->n;
}

static NatterComposer *
composer_of (Fixture *f)
{
  ui_wait_until (ui_is_mapped, f->window->conversation.composer);
  return f->window->conversation.composer;
}

/* The drop target the conversation has for files. */
static GtkDropTarget *
window_drop_target (Fixture *f)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (f->window->conversation.view));

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (controller) &&
          gdk_content_formats_contain_gtype (gtk_drop_target_get_formats (GTK_DROP_TARGET (controller)),
                                             GDK_TYPE_FILE_LIST))
        return GTK_DROP_TARGET (controller);
    }
  g_assert_not_reached ();
}

static gboolean
first_request_made (gpointer data)
{
  return natter_fake_model_get_n_requests (data) > 0;
}

static gboolean
image_shown (gpointer data)
{
  g_autoptr(GPtrArray) pictures = NULL;

  ui_settle ();
  pictures = ui_find_all (data, GTK_TYPE_PICTURE);
  for (guint i = 0; i < pictures->len; i++)
    {
      GtkPicture *picture = g_ptr_array_index (pictures, i);

      if (gtk_widget_has_css_class (GTK_WIDGET (picture), "natter-attachment-image") &&
          gtk_picture_get_paintable (picture) != NULL && gtk_widget_get_mapped (GTK_WIDGET (picture)))
        return TRUE;
    }
  return FALSE;
}

static void
test_drop_and_send (Fixture       *f,
                    gconstpointer  data)
{
  NatterComposer *composer = composer_of (f);
  GtkDropTarget *target = window_drop_target (f);
  GSList *files = g_slist_append (g_slist_append (NULL, f->text_file), f->png_file);
  g_auto(GValue) value = G_VALUE_INIT;
  ChipCount count = { f->window, 2 };
  g_autoptr(GPtrArray) chips = NULL;
  gboolean accepted = FALSE;
  JsonObject *request;
  JsonArray *messages;
  g_autofree char *request_text = NULL;
  g_autoptr(JsonNode) request_node = json_node_new (JSON_NODE_OBJECT);

  /* The conversation takes files dropped on the message field too, before
   * the field (which would insert their paths as text) sees them. */
  {
    GtkWidget *field = ui_find_first (composer, GTK_TYPE_TEXT_VIEW);
    GtkWidget *target_widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target));

    g_assert_nonnull (field);
    g_assert_true (gtk_widget_is_ancestor (field, target_widget));
    g_assert_cmpint (gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (target)), ==,
                     GTK_PHASE_CAPTURE);
  }

  /* Over the conversation, the files show where they go. */
  {
    GdkDragAction action = 0;
    GtkWidget *target_widget = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target));

    g_signal_emit_by_name (target, "enter", 10.0, 10.0, &action);
    g_assert_cmpint (action, ==, GDK_ACTION_COPY);
    g_assert_true (gtk_widget_has_css_class (target_widget, "natter-drop-highlight"));
    g_signal_emit_by_name (target, "leave");
    g_assert_false (gtk_widget_has_css_class (target_widget, "natter-drop-highlight"));
    g_signal_emit_by_name (target, "enter", 10.0, 10.0, &action);
  }

  /* Two files dropped anywhere on the conversation: two chips, and no
   * path typed into the message. */
  natter_composer_set_text (composer, "Look at these");
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_slist_free (files);
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &accepted);
  g_assert_true (accepted);
  g_assert_false (gtk_widget_has_css_class (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (target)),
                                            "natter-drop-highlight"));
  {
    g_autofree char *text = natter_composer_dup_text (composer);

    g_assert_cmpstr (text, ==, "Look at these");
  }
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 2);
  g_assert_true (ui_label_shown (f->window, "notes.txt"));
  g_assert_true (ui_label_shown (f->window, "16 bytes"));
  g_assert_true (ui_label_shown (f->window, "gradient.png"));

  /* Removing one leaves the other. */
  chips = ui_find_all (f->window, NATTER_TYPE_ATTACHMENT_CHIP);
  g_assert_cmpstr (natter_attachment_chip_get_name (g_ptr_array_index (chips, 0)), ==, "notes.txt");
  g_signal_emit_by_name (g_ptr_array_index (chips, 0), "remove");
  count.n = 1;
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);
  g_assert_false (ui_label_shown (f->window, "notes.txt"));

  /* An image alone is a message: Send stores it and the model gets it. */
  natter_fake_model_script (f->u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"A gradient.\"}", NULL);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (first_request_made, f->u->w->fakes->model);
  request = natter_fake_model_get_request (f->u->w->fakes->model, 0);
  messages = json_object_get_array_member (request, "messages");
  json_node_set_object (request_node, json_array_get_object_element (messages, json_array_get_length (messages) - 1));
  request_text = json_to_string (request_node, FALSE);
  g_assert_nonnull (strstr (request_text, "\"type\":\"attachment-image\""));
  g_assert_nonnull (strstr (request_text, "data:image/png;base64,"));
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);

  /* The sent message shows the image, decoded from its blob. */
  ui_wait_until (image_shown, f->window);
}

typedef struct
{
  const char *path;
  const char *holds[3];   /* all of them; none: the file is gone */
} DraftWait;

static gboolean
draft_holds (gpointer data)
{
  DraftWait *wait = data;
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (wait->path, &contents, NULL, NULL))
    return wait->holds[0] == NULL;
  for (guint i = 0; i < G_N_ELEMENTS (wait->holds) && wait->holds[i] != NULL; i++)
    if (strstr (contents, wait->holds[i]) == NULL)
      return FALSE;
  return wait->holds[0] != NULL;
}

static gboolean
composer_holds_text (gpointer data)
{
  Fixture *f = data;
  g_autofree char *text = natter_composer_dup_text (f->window->conversation.composer);

  return g_str_equal (text, "What do these say?");
}

/* Files waiting beside the words outlive a crash with them (docs/format.md
 * §10): a file by its name, a pasted image by its bytes beside the
 * drafts; the message sent takes them with it, and the draft and the
 * pasted bytes go once it is in the log. */
static void
test_kept_in_draft (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(NatterDraftStore) store = natter_draft_store_new (f->u->w->dir);
  g_autoptr(GdkTexture) texture = make_texture ();
  g_autofree char *name = g_strconcat (f->session_id, ".json", NULL);
  g_autofree char *path = g_build_filename (g_file_peek_path (f->u->w->dir), NATTER_DRAFTS_DIR_NAME, name, NULL);
  g_autofree char *pasted = g_build_filename (g_file_peek_path (f->u->w->dir), NATTER_DRAFTS_DIR_NAME, "pasted", NULL);
  g_autofree char *request_text = NULL;
  g_autoptr(JsonNode) request_node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GDir) dir = NULL;
  DraftWait wait = { path, { "What do these say?", "notes.txt", "\"pasted\"" } };
  ChipCount count = { NULL, 2 };
  NatterComposer *composer;
  JsonArray *messages;

  natter_window_set_draft_store (f->window, store);
  composer = composer_of (f);
  natter_composer_set_text (composer, "What do these say?");
  natter_composer_add_file (composer, f->text_file);
  natter_composer_add_texture (composer, texture);
  ui_wait_until (draft_holds, &wait);

  /* Never closed: a crash. */
  ui_destroy_window (f->window);
  f->window = ui_window_new (app, f->u);
  natter_window_set_blob_store (f->window, f->blobs);
  natter_window_set_draft_store (f->window, store);
  g_assert_true (natter_window_open_session (f->window, f->session_id));
  composer = composer_of (f);
  ui_wait_until (composer_holds_text, f);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 2);
  count.root = f->window;
  ui_wait_until (has_n_chips, &count);
  g_assert_true (ui_label_shown (f->window, "notes.txt"));
  g_assert_true (ui_label_shown (f->window, "Pasted image.png"));

  natter_fake_model_script (f->u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Plums.\"}", NULL);
  g_assert_true (natter_composer_send (composer));
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
  ui_wait_until (first_request_made, f->u->w->fakes->model);
  messages = json_object_get_array_member (natter_fake_model_get_request (f->u->w->fakes->model, 0), "messages");
  json_node_set_object (request_node, json_array_get_object_element (messages, json_array_get_length (messages) - 1));
  request_text = json_to_string (request_node, FALSE);
  g_assert_nonnull (strstr (request_text, "the word is plum"));
  g_assert_nonnull (strstr (request_text, "data:image/png;base64,"));
  wait = (DraftWait) { path, { NULL } };
  ui_wait_until (draft_holds, &wait);
  dir = g_dir_open (pasted, 0, NULL);
  g_assert_true (dir == NULL || g_dir_read_name (dir) == NULL);
  ui_wait_until (ui_no_advances, f->u);
}

/* The Remove button of a chip (its only button while the message is
 * being written). */
static GtkWidget *
remove_button_of (gpointer chip)
{
  g_autoptr(GPtrArray) buttons = ui_find_all (chip, GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (gtk_widget_get_visible (g_ptr_array_index (buttons, i)))
      return g_ptr_array_index (buttons, i);
  g_assert_not_reached ();
}

/* Removing a file with its chip's button leaves the focus where the
 * message is written, with the mouse or the keyboard alike: not on the
 * attach button, where the next Space would open the file chooser. */
static void
test_remove_keeps_focus_in_message (Fixture       *f,
                                    gconstpointer  data)
{
  NatterComposer *composer = composer_of (f);
  GtkWidget *field = ui_find_first (composer, GTK_TYPE_TEXT_VIEW);
  ChipCount count = { f->window, 2 };
  g_autoptr(GPtrArray) chips = NULL;
  GtkWidget *button;

  natter_composer_add_file (composer, f->text_file);
  natter_composer_add_file (composer, f->png_file);
  ui_wait_until (has_n_chips, &count);

  /* One of two goes, then the last one: each time the focus goes back
   * to the message, and nothing else moved it. */
  for (guint before = 2; before > 0; before--)
    {
      count.n = before - 1;
      g_clear_pointer (&chips, g_ptr_array_unref);
      chips = ui_find_all (f->window, NATTER_TYPE_ATTACHMENT_CHIP);
      button = remove_button_of (g_ptr_array_index (chips, 0));
      g_assert_true (gtk_widget_grab_focus (button));
      g_signal_emit_by_name (button, "clicked");
      ui_wait_until (has_n_chips, &count);
      g_assert_true (gtk_root_get_focus (GTK_ROOT (f->window)) == field);
    }
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
}

/* A file's name is one line on its chip, as a title is in the sidebar:
 * "photo" RLO "gnp.txt" would read "phototxt.png", a newline would
 * break the chip's line and ESC would be a box. The chip shows their
 * stand-ins, on its label and in its Remove button's tooltip, and
 * keeps the name itself for opening the file. */
static void
test_chip_name_one_line (void)
{
  const char *name = "photo\u202Egnp.txt\nrest\x1b";
  const char *shown = "photo\\u202Egnp.txt\u2424rest\u241B";
  GtkWidget *chip = natter_attachment_chip_new (name, "text/plain", 4, NULL, TRUE);
  GtkWidget *window = gtk_window_new ();
  g_autoptr(GPtrArray) labels = NULL;
  g_autoptr(GPtrArray) buttons = NULL;
  g_autofree char *tooltip = g_strdup_printf ("Remove “%s”", shown);
  gboolean found = FALSE;

  gtk_window_set_child (GTK_WINDOW (window), chip);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (ui_is_mapped, chip);
  labels = ui_find_all (chip, GTK_TYPE_LABEL);
  buttons = ui_find_all (chip, GTK_TYPE_BUTTON);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = gtk_label_get_text (g_ptr_array_index (labels, i));

      g_assert_null (strstr (text, "\u202E"));
      g_assert_null (strchr (text, '\n'));
      found = found || g_str_equal (text, shown);
    }
  g_assert_true (found);
  found = FALSE;
  for (guint i = 0; i < buttons->len; i++)
    found = found || g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), tooltip) == 0;
  g_assert_true (found);
  g_assert_cmpstr (natter_attachment_chip_get_name (NATTER_ATTACHMENT_CHIP (chip)), ==, name);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
has_text (gpointer data)
{
  g_autofree char *text = natter_composer_dup_text (data);

  return text[0] != '\0';
}

static void
test_paste (Fixture       *f,
            gconstpointer  data)
{
  NatterComposer *composer = composer_of (f);
  GtkTextView *view = GTK_TEXT_VIEW (ui_find_first (composer, GTK_TYPE_TEXT_VIEW));
  GdkClipboard *clipboard = gtk_widget_get_clipboard (GTK_WIDGET (view));
  g_autoptr(GdkTexture) texture = make_texture ();
  ChipCount count = { f->window, 1 };
  GSList *files = g_slist_append (NULL, f->text_file);
  GdkFileList *list = gdk_file_list_new_from_list (files);
  g_autofree char *typed = NULL;

  g_slist_free (files);

  /* An image: a chip with a thumbnail, nothing typed. */
  gdk_clipboard_set_texture (clipboard, texture);
  g_signal_emit_by_name (view, "paste-clipboard");
  ui_wait_until (has_n_chips, &count);
  g_assert_true (ui_label_shown (f->window, "Pasted image.png"));
  g_assert_nonnull (ui_find_first (ui_find_first (f->window, NATTER_TYPE_ATTACHMENT_CHIP), GTK_TYPE_PICTURE));

  /* Copied files: one chip each. */
  gdk_clipboard_set (clipboard, GDK_TYPE_FILE_LIST, list);
  g_boxed_free (GDK_TYPE_FILE_LIST, list);
  g_signal_emit_by_name (view, "paste-clipboard");
  count.n = 2;
  ui_wait_until (has_n_chips, &count);
  g_assert_true (ui_label_shown (f->window, "notes.txt"));
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 2);

  /* Text still pastes as text. */
  gdk_clipboard_set_text (clipboard, "plain words");
  g_signal_emit_by_name (view, "paste-clipboard");
  ui_wait_until (has_text, composer);
  typed = natter_composer_dup_text (composer);
  g_assert_cmpstr (typed, ==, "plain words");
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 2);

  /* The attachments stay with their conversation's draft. */
  {
    g_autofree char *other = ui_create_session (f->u, "Other");

    g_assert_true (natter_window_open_session (f->window, other));
    count.n = 0;
    ui_wait_until (has_n_chips, &count);
    g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
    g_assert_true (natter_window_open_session (f->window, f->session_id));
    count.n = 2;
    ui_wait_until (has_n_chips, &count);
    g_assert_true (ui_label_shown (f->window, "Pasted image.png"));
  }
}

/* A conversation whose message carries an image and a text file. */
static void
test_screenshot (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *turn_id = NULL;

  natter_fake_model_script (f->u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"It fades from **blue** to *magenta* and "
                            "*turquoise*; the notes say the word is plum.\"}", NULL);
  turn_id = ui_send_with_files (f->u, f->blobs, f->session_id, "What colours are in this picture?", NULL,
                                f->png_file, f->text_file, NULL);
  ui_wait_turn (f->u, turn_id);

  ui_wait_until (image_shown, f->window);
  g_assert_true (ui_label_shown (f->window, "notes.txt"));
  ui_save_window (GTK_WIDGET (f->window), "attachments.png");
}

typedef struct
{
  Fixture    *f;
  const char *not;
} OtherOpen;

/* The window shows a session other than @not, its latest turn settled. */
static gboolean
other_version_open (gpointer data)
{
  OtherOpen *o = data;
  const char *open = natter_window_get_session_id (o->f->window);
  NatterSessionIndexEntry *entry = open != NULL ? natter_session_index_lookup (o->f->u->index, open) : NULL;

  return entry != NULL && g_strcmp0 (open, o->not) != 0 &&
         g_strcmp0 (natter_session_index_entry_get_latest_turn_status (entry), "completed") == 0 &&
         ui_no_advances (o->f->u);
}

/* Editing a message that was sent with attachments starts with them in
 * the composer, as chips that can be removed; the new version's turn
 * references the ones kept, the same blobs. */
static void
test_edit_carries_attachments (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(JsonArray) parts = NULL;
  g_autofree char *first = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) chips = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) kept = NULL;
  NatterComposer *composer = composer_of (f);
  ChipCount count = { composer, 2 };
  NatterSessionIndexEntry *entry;
  OtherOpen other = { f, f->session_id };

  natter_fake_model_script (f->u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Hello.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Blue and plum.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Blue.\"}", NULL);
  first = ui_send (f->u, f->session_id, "Hi");
  ui_wait_turn (f->u, first);
  turn_id = ui_send_with_files (f->u, f->blobs, f->session_id, "What is in these?", &parts,
                                f->png_file, f->text_file, NULL);
  ui_wait_turn (f->u, turn_id);
  ui_wait_until (ui_timeline_loaded, f->window);
  ui_wait_until (image_shown, f->window);

  /* Edit: the words and both attachments, as chips, in the composer. */
  ui_wait_turn_read (f->window, turn_id);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-message", "s", turn_id));
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 2);
  g_assert_true (ui_label_shown (composer, "gradient.png"));
  g_assert_true (ui_label_shown (composer, "notes.txt"));
  g_assert_true (ui_label_shown (composer, "16 bytes"));

  /* One removed, the other kept and sent with the new words. */
  chips = ui_find_all (composer, NATTER_TYPE_ATTACHMENT_CHIP);
  g_assert_cmpstr (natter_attachment_chip_get_name (g_ptr_array_index (chips, 1)), ==, "notes.txt");
  g_signal_emit_by_name (g_ptr_array_index (chips, 1), "remove");
  count.n = 1;
  ui_wait_until (has_n_chips, &count);
  natter_composer_set_text (composer, "What is in this one?");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (other_version_open, &other);

  entry = natter_session_index_lookup (f->u->index, natter_window_get_session_id (f->window));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, f->session_id);
  events = ui_get_turn (f->u, natter_session_index_entry_get_latest_turn_id (entry));
  kept = natter_message_dup_blob_parts (json_object_get_object_member (ui_find_event (events, "turn_created", NULL),
                                                                       "input"));
  g_assert_cmpuint (kept->len, ==, 1);
  g_assert_cmpstr (json_object_get_string_member (kept->pdata[0], "sha256"), ==,
                   json_object_get_string_member (json_array_get_object_element (parts, 0), "sha256"));
  g_assert_cmpstr (json_object_get_string_member (kept->pdata[0], "name"), ==, "gradient.png");
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
}

/* Try Again on a message sent with attachments asks again with them:
 * the new version's turn references the same blobs. */
static void
test_try_again_keeps_attachments (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(JsonArray) parts = NULL;
  g_autofree char *turn_id = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) kept = NULL;
  NatterSessionIndexEntry *entry;
  OtherOpen other = { f, f->session_id };

  natter_fake_model_script (f->u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Blue.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Blue, and plum.\"}", NULL);
  turn_id = ui_send_with_files (f->u, f->blobs, f->session_id, "What is in these?", &parts,
                                f->png_file, f->text_file, NULL);
  ui_wait_turn (f->u, turn_id);
  ui_wait_until (ui_timeline_loaded, f->window);
  ui_wait_until (image_shown, f->window);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.try-again", "s", turn_id));
  ui_wait_until (other_version_open, &other);
  entry = natter_session_index_lookup (f->u->index, natter_window_get_session_id (f->window));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, f->session_id);
  events = ui_get_turn (f->u, natter_session_index_entry_get_latest_turn_id (entry));
  kept = natter_message_dup_blob_parts (json_object_get_object_member (ui_find_event (events, "turn_created", NULL),
                                                                       "input"));
  g_assert_cmpuint (kept->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    g_assert_cmpstr (json_object_get_string_member (kept->pdata[i], "sha256"), ==,
                     json_object_get_string_member (json_array_get_object_element (parts, i), "sha256"));
}

static gboolean
view_loaded (gpointer view)
{
  return natter_attachment_view_get_loaded (view);
}

/* An image whose bytes do not decode (its type was read from its first
 * bytes) says, in its place, which file it is and why it is not shown,
 * not only the decoder's words. */
static void
test_undecodable_image_named (Fixture       *f,
                              gconstpointer  data)
{
  static const char truncated[] = "\x89PNG\r\n\x1a\n";
  g_autoptr(GBytes) bytes = g_bytes_new_static (truncated, sizeof truncated - 1);
  g_autoptr(GError) error = NULL;
  g_autofree char *sha256 = natter_blob_store_put_sync (f->blobs, bytes, &error);
  g_autoptr(JsonObject) part = json_object_new ();
  g_autoptr(GPtrArray) labels = NULL;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view;
  const char *text;

  g_assert_no_error (error);
  json_object_set_string_member (part, "type", "blob");
  json_object_set_string_member (part, "sha256", sha256);
  json_object_set_string_member (part, "name", "holiday.png");
  json_object_set_string_member (part, "mediaType", "image/png");
  json_object_set_int_member (part, "size", sizeof truncated - 1);
  view = natter_attachment_view_new (part, f->blobs);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  ui_wait_until (view_loaded, view);

  labels = ui_find_all (view, GTK_TYPE_LABEL);
  g_assert_cmpuint (labels->len, ==, 1);
  text = gtk_label_get_text (labels->pdata[0]);
  g_assert_true (g_str_has_prefix (text, "“holiday.png” cannot be shown: "));
  g_assert_cmpuint (strlen (text), >, strlen ("“holiday.png” cannot be shown: "));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Where the test's desktop writes what it was asked to open, and the
 * folder it lives in. */
static char *opened_marker;
static char *desktop_root;

/* A desktop with one application for text files, which writes the URI
 * it is given to opened_marker: set up before GIO reads the desktop's
 * applications. */
static void
set_up_desktop (void)
{
  g_autofree char *root = g_dir_make_tmp ("natter-desktop-XXXXXX", NULL);
  g_autofree char *apps = g_build_filename (root, "data", "applications", NULL);
  g_autofree char *config = g_build_filename (root, "config", NULL);
  g_autofree char *script = g_build_filename (root, "opener.sh", NULL);
  g_autofree char *desktop = g_build_filename (apps, "natter-test-opener.desktop", NULL);
  g_autofree char *mimeapps = g_build_filename (config, "mimeapps.list", NULL);
  g_autofree char *data_home = g_build_filename (root, "data", NULL);
  g_autofree char *cache_home = g_build_filename (root, "cache", NULL);
  g_autofree char *script_text = NULL;
  g_autofree char *desktop_text = NULL;

  opened_marker = g_build_filename (root, "opened", NULL);
  desktop_root = g_strdup (root);
  g_assert_cmpint (g_mkdir_with_parents (apps, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (config, 0700), ==, 0);
  script_text = g_strdup_printf ("#!/bin/sh\nprintf '%%s' \"$1\" > '%s.tmp' && mv '%s.tmp' '%s'\n",
                                 opened_marker, opened_marker, opened_marker);
  g_assert_true (g_file_set_contents (script, script_text, -1, NULL));
  g_assert_cmpint (g_chmod (script, 0700), ==, 0);
  desktop_text = g_strdup_printf ("[Desktop Entry]\nType=Application\nName=Opener\nExec=%s %%u\n"
                                  "MimeType=text/plain;\nNoDisplay=true\n", script);
  g_assert_true (g_file_set_contents (desktop, desktop_text, -1, NULL));
  g_assert_true (g_file_set_contents (mimeapps, "[Default Applications]\ntext/plain=natter-test-opener.desktop\n",
                                      -1, NULL));
  g_setenv ("XDG_DATA_HOME", data_home, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_setenv ("XDG_CACHE_HOME", cache_home, TRUE);
}

static GtkWidget *
history_chip (Fixture    *f,
              const char *name)
{
  g_autofree char *tooltip = g_strdup_printf ("Open “%s”", name);
  g_autoptr(GPtrArray) buttons = ui_find_all (natter_window_get_timeline_list (f->window), GTK_TYPE_BUTTON);

  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (buttons->pdata[i]), tooltip) == 0)
      return buttons->pdata[i];
  return NULL;
}

static gboolean
history_chip_shown (gpointer data)
{
  ui_settle ();
  return history_chip (data, "notes.txt") != NULL;
}

static gboolean
marker_written (gpointer data)
{
  return g_file_test (opened_marker, G_FILE_TEST_EXISTS);
}

static gboolean
error_bar_says (gpointer data)
{
  Fixture *f = data;

  return gtk_revealer_get_reveal_child (f->window->errors.revealer) &&
         g_strcmp0 (gtk_label_get_text (f->window->errors.heading), "“notes.txt” could not be opened") == 0;
}

static gboolean
error_bar_hidden (gpointer data)
{
  Fixture *f = data;

  return !gtk_revealer_get_reveal_child (f->window->errors.revealer);
}

/* A file sent with a message opens, from its chip in the conversation,
 * in the desktop's application for it; one whose blob is gone says why
 * it cannot, in the window. */
static void
test_history_chip_opens (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(JsonArray) parts = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *opened = NULL;
  g_autofree char *blob = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *other = NULL;
  GtkWidget *chip;

  natter_fake_model_script (f->u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Plum.\"}", NULL);
  turn_id = ui_send_with_files (f->u, f->blobs, f->session_id, "What is the word?", &parts, f->text_file, NULL);
  ui_wait_turn (f->u, turn_id);
  ui_wait_until (ui_timeline_loaded, f->window);
  ui_wait_until (history_chip_shown, f);

  g_assert_true (gtk_widget_activate (history_chip (f, "notes.txt")));
  ui_wait_until (marker_written, NULL);
  g_assert_true (g_file_get_contents (opened_marker, &uri, NULL, NULL));
  g_assert_true (g_str_has_suffix (uri, "/notes.txt"));
  /* A local file's URI reaches the application as its path. */
  copy = g_str_has_prefix (uri, "file:") ? g_filename_from_uri (uri, NULL, NULL) : g_strdup (uri);
  g_assert_true (g_file_get_contents (copy, &opened, NULL, NULL));
  g_assert_cmpstr (opened, ==, "the word is plum");
  g_assert_false (gtk_revealer_get_reveal_child (f->window->errors.revealer));

  /* Its blob gone: the window says the file could not be opened, and why. */
  blob = natter_blob_store_dup_path (f->blobs, json_object_get_string_member (json_array_get_object_element (parts, 0),
                                                                              "sha256"));
  g_assert_cmpint (g_unlink (blob), ==, 0);
  chip = history_chip (f, "notes.txt");
  g_assert_true (gtk_widget_activate (chip));
  ui_wait_until (error_bar_says, f);
  g_assert_true (gtk_widget_has_css_class (chip, "error"));

  /* Said about this conversation: another one opens without it. */
  other = ui_create_session (f->u, "Elsewhere");
  g_assert_true (natter_window_open_session (f->window, other));
  ui_wait_until (error_bar_hidden, f);
}

static gboolean
error_bar_shown (gpointer data)
{
  return gtk_revealer_get_reveal_child (NATTER_WINDOW (data)->errors.revealer);
}

/* A message with a file that could not go out (the attachments could not
 * be stored): its words and its file are back in the composer, Retry is
 * offered, and Retry sends the message with the file — never the words
 * alone. */
static void
test_retry_keeps_attachments (Fixture       *f,
                              gconstpointer  data)
{
  NatterComposer *composer = composer_of (f);
  g_autoptr(GFile) blobs_dir = g_file_get_child (f->u->w->storage, "blobs");
  g_autofree char *blobs_path = g_file_get_path (blobs_dir);
  ChipCount count = { f->window, 1 };
  g_autoptr(GError) error = NULL;
  g_autofree char *request_text = NULL;
  g_autoptr(JsonNode) request = NULL;
  GtkWidget *retry;

  /* Where the blobs go is a file: nothing can be stored for a while. */
  natter_test_remove_tree (blobs_dir);
  g_assert_true (g_file_set_contents (blobs_path, "not a folder", -1, &error));
  g_assert_no_error (error);

  natter_composer_add_file (composer, f->text_file);
  ui_wait_until (has_n_chips, &count);
  natter_composer_set_text (composer, "Read this");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (error_bar_shown, f->window);
  g_assert_cmpstr (gtk_label_get_text (f->window->errors.heading), ==, "The message was not sent");
  ui_wait_until (has_text, composer);
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);
  retry = GTK_WIDGET (f->window->errors.action_button);
  g_assert_true (gtk_widget_get_visible (retry));
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (retry)), ==, "_Retry");
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->u->w->fakes->model), ==, 0);

  /* The folder is back: Retry sends the words with the file. */
  g_assert_cmpint (g_unlink (blobs_path), ==, 0);
  natter_fake_model_script (f->u->w->fakes->model, "{\"role\":\"assistant\",\"content\":\"Plum.\"}", NULL);
  g_signal_emit_by_name (retry, "clicked");
  ui_wait_until (first_request_made, f->u->w->fakes->model);
  request = json_node_init_object (json_node_alloc (), natter_fake_model_get_request (f->u->w->fakes->model, 0));
  request_text = json_to_string (request, FALSE);
  g_assert_nonnull (strstr (request_text, "Read this"));
  g_assert_nonnull (strstr (request_text, "the word is plum"));
  /* Sent: the composer holds no chip any more. */
  count = (ChipCount) { composer, 0 };
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
}

/* An edit that could not become a new version (the attachment it kept
 * no longer matches its blob) stays an edit: its words and file are back
 * in the composer, still marked as editing, so sending them again once
 * the file reads makes the new version, never a second message after
 * the old one. */
static void
test_refused_edit_stays_edit (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(JsonArray) parts = NULL;
  g_autofree char *turn_id = NULL;
  g_autofree char *blob_path = NULL;
  g_autoptr(GError) error = NULL;
  NatterComposer *composer = composer_of (f);
  ChipCount count = { composer, 1 };
  OtherOpen other = { f, f->session_id };
  NatterSessionIndexEntry *entry;

  natter_fake_model_script (f->u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Plum.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Still plum.\"}", NULL);
  turn_id = ui_send_with_files (f->u, f->blobs, f->session_id, "What is in this?", &parts, f->text_file, NULL);
  ui_wait_turn (f->u, turn_id);
  ui_wait_until (ui_timeline_loaded, f->window);

  ui_wait_turn_read (f->window, turn_id);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-message", "s", turn_id));
  ui_wait_until (has_n_chips, &count);
  /* The stored file changes behind the edit's back, its size kept. */
  blob_path = natter_blob_store_dup_path (f->blobs, json_object_get_string_member (json_array_get_object_element (parts, 0),
                                                                                   "sha256"));
  g_assert_true (g_file_set_contents (blob_path, "the word is pear", 16, &error));
  g_assert_no_error (error);
  natter_composer_set_text (composer, "What is in it, then?");
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (error_bar_shown, f->window);
  g_assert_cmpstr (gtk_label_get_text (f->window->errors.heading), ==, "The new version could not be made");
  ui_wait_until (has_text, composer);
  ui_wait_until (has_n_chips, &count);
  g_assert_true (natter_conversation_view_get_editing (f->window->conversation.view));

  /* The file reads again: the same words go out as the new version. */
  g_assert_true (g_file_set_contents (blob_path, "the word is plum", 16, &error));
  g_assert_no_error (error);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (other_version_open, &other);
  entry = natter_session_index_lookup (f->u->index, natter_window_get_session_id (f->window));
  g_assert_cmpstr (natter_session_index_entry_get_parent_session (entry), ==, f->session_id);
  g_assert_cmpuint (natter_session_index_entry_get_turn_count (natter_session_index_lookup (f->u->index, f->session_id)),
                    ==, 1);
}

/* The same for an edit whose new file could not be stored: Retry sends
 * the edit as the new version, and the composer is done with it. */
static void
test_refused_edit_retried (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(GFile) blobs_dir = g_file_get_child (f->u->w->storage, "blobs");
  g_autofree char *blobs_path = g_file_get_path (blobs_dir);
  g_autofree char *turn_id = NULL;
  g_autoptr(GError) error = NULL;
  NatterComposer *composer = composer_of (f);
  ChipCount count = { composer, 1 };
  OtherOpen other = { f, f->session_id };
  GtkWidget *retry;

  natter_fake_model_script (f->u->w->fakes->model,
                            "{\"role\":\"assistant\",\"content\":\"Hello.\"}",
                            "{\"role\":\"assistant\",\"content\":\"Plum.\"}", NULL);
  turn_id = ui_send (f->u, f->session_id, "Hi");
  ui_wait_turn (f->u, turn_id);
  ui_wait_until (ui_timeline_loaded, f->window);
  ui_wait_turn_read (f->window, turn_id);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), "win.edit-message", "s", turn_id));
  ui_wait_until (has_text, composer);

  /* Where the blobs go is a file: the edit's new file cannot be stored. */
  natter_test_remove_tree (blobs_dir);
  g_assert_true (g_file_set_contents (blobs_path, "not a folder", -1, &error));
  g_assert_no_error (error);
  natter_composer_add_file (composer, f->text_file);
  ui_wait_until (has_n_chips, &count);
  g_assert_true (natter_composer_send (composer));
  ui_wait_until (error_bar_shown, f->window);
  g_assert_cmpstr (gtk_label_get_text (f->window->errors.heading), ==, "The new version could not be made");
  ui_wait_until (has_text, composer);
  g_assert_true (natter_conversation_view_get_editing (f->window->conversation.view));

  g_assert_cmpint (g_unlink (blobs_path), ==, 0);
  retry = GTK_WIDGET (f->window->errors.action_button);
  g_assert_true (gtk_widget_get_visible (retry));
  g_signal_emit_by_name (retry, "clicked");
  ui_wait_until (other_version_open, &other);
  g_assert_false (natter_conversation_view_get_editing (f->window->conversation.view));
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 0);
}

/* A file is checked when it is attached, not at send: one whose bytes
 * belie its name, and one that would take the message over the limit,
 * are refused at once in the error bar, naming the file; the others stay. */
static void
test_checked_when_attached (Fixture       *f,
                            gconstpointer  data)
{
  NatterComposer *composer = composer_of (f);
  g_autoptr(GFile) fake = g_file_get_child (f->u->w->dir, "fake.png");
  g_autoptr(GFile) more = g_file_get_child (f->u->w->dir, "more.txt");
  g_autoptr(GError) error = NULL;
  ChipCount count = { composer, 1 };

  g_assert_true (g_file_replace_contents (fake, "this is no picture", 18, NULL, FALSE, G_FILE_CREATE_NONE, NULL,
                                          NULL, &error));
  g_assert_true (g_file_replace_contents (more, "0123456789", 10, NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL,
                                          &error));
  g_assert_no_error (error);
  /* notes.txt is 16 bytes: it fits 20, with more.txt it would not. */
  natter_composer_set_attachment_limit (composer, 20);

  natter_composer_add_file (composer, f->text_file);
  ui_wait_until (has_n_chips, &count);

  natter_composer_add_file (composer, fake);
  ui_wait_until (error_bar_shown, f->window);
  g_assert_cmpstr (gtk_label_get_text (f->window->errors.heading), ==, "The file was not attached");
  g_assert_nonnull (strstr (gtk_label_get_text (f->window->errors.detail), "fake.png"));
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);

  _natter_window_hide_error (f->window);
  natter_composer_add_file (composer, more);
  ui_wait_until (error_bar_shown, f->window);
  g_assert_nonnull (strstr (gtk_label_get_text (f->window->errors.detail), "more.txt"));
  ui_wait_until (has_n_chips, &count);
  g_assert_cmpuint (natter_composer_get_n_attachments (composer), ==, 1);
  g_assert_cmpuint (natter_fake_model_get_n_requests (f->u->w->fakes->model), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  set_up_desktop ();
  app = ui_test_init_with_app (&argc, &argv);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/attachments/drop-and-send", test_drop_and_send);
  ADD ("/attachments/paste", test_paste);
  ADD ("/attachments/remove-keeps-focus-in-message", test_remove_keeps_focus_in_message);
  ADD ("/attachments/screenshot", test_screenshot);
  ADD ("/attachments/edit-carries-attachments", test_edit_carries_attachments);
  ADD ("/attachments/try-again-keeps-attachments", test_try_again_keeps_attachments);
  ADD ("/attachments/history-chip-opens", test_history_chip_opens);
  ADD ("/attachments/retry-keeps-attachments", test_retry_keeps_attachments);
  ADD ("/attachments/refused-edit-stays-edit", test_refused_edit_stays_edit);
  ADD ("/attachments/refused-edit-retried", test_refused_edit_retried);
  ADD ("/attachments/checked-when-attached", test_checked_when_attached);
  ADD ("/attachments/undecodable-image-named", test_undecodable_image_named);
  ADD ("/attachments/kept-in-draft", test_kept_in_draft);
#undef ADD
  g_test_add_func ("/attachments/chip-name-one-line", test_chip_name_one_line);

  status = g_test_run ();
  g_clear_object (&app);
  {
    g_autoptr(GFile) root = g_file_new_for_path (desktop_root);

    natter_test_remove_tree (root);
  }
  g_free (desktop_root);
  g_free (opened_marker);
  return status;
}
