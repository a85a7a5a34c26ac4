/* natter-preferences-agents.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Agents page of Preferences: the built-in Assistant (read only),
 * one NatterAgentRow per file of the agent store (delete with undo), and
 * the NatterAgentEditor subpage that creates and edits them.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-preferences-window-private.h"

/* Agents */

void
natter_preferences_window_fill_assistant_row (NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) requested = json_object_new ();
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) tools = g_string_new (NULL);
  GtkWidget *prompt_row;
  GtkWidget *tools_row;
  JsonArray *descriptors;

  json_object_set_string_member (requested, "agentId", NATTER_BUILTIN_AGENT_ID);
  agent = natter_agent_resolver_resolve (natter_services_get_agent_resolver (self->services), requested, &error);
  if (agent == NULL)
    {
      adw_expander_row_set_subtitle (self->assistant_row, error->message);
      return;
    }

  prompt_row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (prompt_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (prompt_row), _("System Prompt"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (prompt_row),
                               json_object_get_string_member (agent, "systemPrompt"));
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (prompt_row), 0);
  adw_expander_row_add_row (self->assistant_row, prompt_row);

  descriptors = json_object_get_array_member (agent, "tools");
  for (guint i = 0; i < json_array_get_length (descriptors); i++)
    {
      JsonObject *descriptor = json_array_get_object_element (descriptors, i);

      if (i > 0)
        g_string_append (tools, ", ");
      g_string_append (tools, natter_agent_tool_label (json_object_get_string_member (descriptor, "toolId")));
    }
  tools_row = adw_action_row_new ();
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (tools_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (tools_row), _("Tools"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (tools_row), tools->str);
  adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (tools_row), 0);
  adw_expander_row_add_row (self->assistant_row, tools_row);
}

static JsonObject *
load_agent (NatterPreferencesWindow *self,
            const char              *agent_id)
{
  g_autoptr(GError) error = NULL;
  JsonObject *agent;

  agent = natter_agent_store_load (natter_services_get_agent_store (self->services), agent_id, &error);
  if (agent == NULL)
    natter_preferences_window_show_toast (self, error->message);
  return agent;
}

static void open_editor (NatterPreferencesWindow *self,
                         JsonObject              *agent);

static void
edit_agent_cb (NatterAgentRow          *row,
               NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) agent = load_agent (self, natter_agent_row_get_agent_id (row));

  if (agent != NULL)
    open_editor (self, agent);
}

typedef struct
{
  NatterPreferencesWindow *self;  /* weak */
  GFile                   *file;
  GBytes                  *contents;
  gboolean                 undone;
} DeletedAgent;

static void
deleted_agent_free (gpointer data)
{
  DeletedAgent *deleted = data;

  g_clear_weak_pointer (&deleted->self);
  g_clear_object (&deleted->file);
  g_clear_pointer (&deleted->contents, g_bytes_unref);
  g_free (deleted);
}

static void
undo_delete_cb (AdwToast     *toast,
                DeletedAgent *deleted)
{
  g_autoptr(GError) error = NULL;

  if (deleted->self == NULL || deleted->undone)
    return;
  deleted->undone = TRUE;
  /* The file comes back byte for byte, even one that did not validate. */
  if (!g_file_replace_contents (deleted->file, g_bytes_get_data (deleted->contents, NULL),
                                g_bytes_get_size (deleted->contents), NULL, FALSE,
                                G_FILE_CREATE_PRIVATE, NULL, NULL, &error))
    natter_preferences_window_show_toast (deleted->self, error->message);
  natter_preferences_window_rebuild_agents (deleted->self);
}

static void
delete_agent_cb (NatterAgentRow          *row,
                 NatterPreferencesWindow *self)
{
  const char *agent_id = natter_agent_row_get_agent_id (row);
  g_autofree char *name = g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autofree char *basename = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  DeletedAgent *deleted = g_new0 (DeletedAgent, 1);
  AdwToast *toast;

  deleted->file = g_file_get_child (natter_agent_store_get_dir (store), basename);
  deleted->contents = g_file_load_bytes (deleted->file, NULL, NULL, &error);
  if (deleted->contents == NULL || !natter_agent_store_delete (store, agent_id, &error))
    {
      natter_preferences_window_show_toast (self, error->message);
      deleted_agent_free (deleted);
      return;
    }
  g_set_weak_pointer (&deleted->self, self);
  title = g_strdup_printf (_("Deleted “%s”"), name);
  toast = natter_preferences_window_show_undo_toast (self, title);
  g_object_set_data_full (G_OBJECT (toast), "deleted", deleted, deleted_agent_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_delete_cb), deleted);
  natter_preferences_window_rebuild_agents (self);
}

void
natter_preferences_window_rebuild_agents (NatterPreferencesWindow *self)
{
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_file_get_path (natter_agent_store_get_dir (store));
  g_autofree char *description = g_strdup_printf (_("Each agent is a file in %s"), dir);
  /* A group's description is markup; a folder name is not. */
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  adw_preferences_group_set_description (self->agents_group, escaped);
  for (guint i = 0; i < self->agent_widgets->len; i++)
    adw_preferences_group_remove (self->agents_group, g_ptr_array_index (self->agent_widgets, i));
  g_ptr_array_set_size (self->agent_widgets, 0);
  g_hash_table_remove_all (self->agent_rows);

  agents = natter_agent_store_list (store, &error);
  if (agents == NULL)
    {
      natter_preferences_window_show_toast (self, error->message);
      return;
    }
  for (guint i = 0; i < agents->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (agents, i);
      NatterAgentRow *row = natter_agent_row_new (agent);

      g_signal_connect (row, "edit", G_CALLBACK (edit_agent_cb), self);
      g_signal_connect (row, "delete", G_CALLBACK (delete_agent_cb), self);
      adw_preferences_group_add (self->agents_group, GTK_WIDGET (row));
      g_ptr_array_add (self->agent_widgets, row);
      g_hash_table_replace (self->agent_rows, (gpointer) natter_agent_row_get_agent_id (row), row);
    }
}

/* The agent editor: a subpage of the window */

static void
close_editor (NatterPreferencesWindow *self)
{
  self->editor = NULL;
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
}

static void
editor_back_cb (NatterAgentEditor       *editor,
                NatterPreferencesWindow *self)
{
  close_editor (self);
}

/* The editor lists models while it is open: that counts as pending work
 * of the window, so tests can wait for it. */
static void
editor_loading_cb (NatterAgentEditor       *editor,
                   GParamSpec              *pspec,
                   NatterPreferencesWindow *self)
{
  if (natter_agent_editor_get_loading (editor))
    {
      natter_preferences_window_pending_begin (self);
      return;
    }
  natter_preferences_window_pending_end (self);
  g_object_unref (self);
}

static void
editor_save_cb (NatterAgentEditor       *editor,
                NatterPreferencesWindow *self)
{
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;

  agent = natter_agent_editor_build_agent (editor, &error);
  if (agent == NULL ||
      !natter_agent_store_save (natter_services_get_agent_store (self->services), agent, &error))
    {
      natter_preferences_window_show_toast (self, error->message);
      return;
    }
  saved = g_strdup_printf (_("Saved “%s”"), json_object_get_string_member (agent, "name"));
  close_editor (self);
  natter_preferences_window_rebuild_agents (self);
  natter_preferences_window_show_toast (self, saved);
}

static void
open_editor (NatterPreferencesWindow *self,
             JsonObject              *agent)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  /* The providers the default-model combo offers, by their names. */
  natter_provider_choices_collect (natter_services_get_settings (self->services), ids, names);
  g_ptr_array_add (ids, NULL);
  g_ptr_array_add (names, NULL);
  self->editor = natter_agent_editor_new (self->services, agent,
                                          (const char * const *) ids->pdata,
                                          (const char * const *) names->pdata);
  if (natter_agent_editor_get_loading (self->editor))
    natter_preferences_window_pending_begin (self);
  g_signal_connect_object (self->editor, "notify::loading", G_CALLBACK (editor_loading_cb), self, 0);
  g_signal_connect_object (self->editor, "save", G_CALLBACK (editor_save_cb), self, 0);
  g_signal_connect_object (self->editor, "back", G_CALLBACK (editor_back_cb), self, 0);
  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self), GTK_WIDGET (self->editor));
  natter_agent_editor_focus (self->editor);
}

void
natter_preferences_window_add_agent_cb (NatterPreferencesWindow *self)
{
  open_editor (self, NULL);
}
