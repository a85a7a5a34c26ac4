/* natter-agents-page.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Agents page of Preferences: the built-in Assistant (read only),
 * one NatterAgentRow per file of the agent store (delete with undo), and
 * the NatterAgentEditor subpage that creates and edits them. The page
 * calls nothing of the window that holds it: it shows its toasts through
 * ::add-toast and the editor as a subpage of the AdwPreferencesWindow it
 * is in. The page's widgets are declared in natter-agents-page.ui; this
 * file keeps what they do.
 */

#define G_LOG_DOMAIN "natter-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-agent-editor.h"
#include "natter-agent-row.h"
#include "natter-agents-page.h"
#include "natter-preferences-toast.h"
#include "natter-provider-choices.h"

struct _NatterAgentsPage
{
  AdwPreferencesPage   parent_instance;

  NatterServices      *services;
  GCancellable        *cancellable;  /* cancelled when the page goes */
  guint                n_pending;    /* model lists of the open editor */
  GHashTable          *rows;         /* id → NatterAgentRow (borrowed) */
  GPtrArray           *widgets;      /* NatterAgentRow, in order */
  NatterAgentEditor   *editor;       /* the open subpage, or NULL */

  /* Template widgets */
  AdwExpanderRow      *assistant_row;
  AdwPreferencesGroup *agents_group;
  AdwActionRow        *add_agent_row;
};

G_DEFINE_FINAL_TYPE (NatterAgentsPage, natter_agents_page, ADW_TYPE_PREFERENCES_PAGE)

enum
{
  ADD_TOAST,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void rebuild (NatterAgentsPage *self);

/* Toasts, shown by the window that holds the page */
static void
show_toast (NatterAgentsPage *self,
            const char       *text)
{
  g_autoptr(AdwToast) toast = natter_preferences_toast_new (text);

  g_signal_emit (self, signals[ADD_TOAST], 0, toast);
}

/* Work under way holds a reference on the page (the one returned);
 * pending_end() says whether the page is still in use. */
static NatterAgentsPage *
pending_begin (NatterAgentsPage *self)
{
  self->n_pending++;
  return g_object_ref (self);
}

static gboolean
pending_end (NatterAgentsPage *self)
{
  g_assert (self->n_pending > 0);
  self->n_pending--;
  return !g_cancellable_is_cancelled (self->cancellable);
}

/* The window the page is in, which shows the editor as a subpage; NULL
 * once the page has left it. */
static AdwPreferencesWindow *
window_of (NatterAgentsPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  return ADW_IS_PREFERENCES_WINDOW (root) ? ADW_PREFERENCES_WINDOW (root) : NULL;
}

/* Agents */

static void
fill_assistant_row (NatterAgentsPage *self)
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
load_agent (NatterAgentsPage        *self,
            const char              *agent_id)
{
  g_autoptr(GError) error = NULL;
  JsonObject *agent;

  agent = natter_agent_store_load (natter_services_get_agent_store (self->services), agent_id, &error);
  if (agent == NULL)
    show_toast (self, error->message);
  return agent;
}

static void open_editor (NatterAgentsPage        *self,
                         JsonObject              *agent);

static void
edit_agent_cb (NatterAgentRow          *row,
               NatterAgentsPage        *self)
{
  g_autoptr(JsonObject) agent = load_agent (self, natter_agent_row_get_agent_id (row));

  if (agent != NULL)
    open_editor (self, agent);
}

typedef struct
{
  NatterAgentsPage        *self;  /* weak */
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
    show_toast (deleted->self, error->message);
  rebuild (deleted->self);
}

static void
delete_agent_cb (NatterAgentRow          *row,
                 NatterAgentsPage        *self)
{
  const char *agent_id = natter_agent_row_get_agent_id (row);
  g_autofree char *name = g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autofree char *basename = g_strconcat (agent_id, ".json", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *title = NULL;
  g_autoptr(AdwToast) toast = NULL;
  DeletedAgent *deleted = g_new0 (DeletedAgent, 1);

  deleted->file = g_file_get_child (natter_agent_store_get_dir (store), basename);
  deleted->contents = g_file_load_bytes (deleted->file, NULL, NULL, &error);
  if (deleted->contents == NULL || !natter_agent_store_delete (store, agent_id, &error))
    {
      show_toast (self, error->message);
      deleted_agent_free (deleted);
      return;
    }
  g_set_weak_pointer (&deleted->self, self);
  title = g_strdup_printf (_("Deleted “%s”"), name);
  toast = natter_preferences_toast_new_undo (title);
  g_object_set_data_full (G_OBJECT (toast), "deleted", deleted, deleted_agent_free);
  g_signal_connect (toast, "button-clicked", G_CALLBACK (undo_delete_cb), deleted);
  g_signal_emit (self, signals[ADD_TOAST], 0, toast);
  rebuild (self);
}

static void
rebuild (NatterAgentsPage *self)
{
  NatterAgentStore *store = natter_services_get_agent_store (self->services);
  g_autoptr(GPtrArray) agents = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_file_get_path (natter_agent_store_get_dir (store));
  g_autofree char *description = g_strdup_printf (_("Each agent is a file in %s"), dir);
  /* A group's description is markup; a folder name is not. */
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  adw_preferences_group_set_description (self->agents_group, escaped);
  for (guint i = 0; i < self->widgets->len; i++)
    adw_preferences_group_remove (self->agents_group, g_ptr_array_index (self->widgets, i));
  g_ptr_array_set_size (self->widgets, 0);
  g_hash_table_remove_all (self->rows);

  agents = natter_agent_store_list (store, &error);
  if (agents == NULL)
    {
      show_toast (self, error->message);
      return;
    }
  for (guint i = 0; i < agents->len; i++)
    {
      JsonObject *agent = g_ptr_array_index (agents, i);
      NatterAgentRow *row = natter_agent_row_new (agent);

      g_signal_connect (row, "edit", G_CALLBACK (edit_agent_cb), self);
      g_signal_connect (row, "delete", G_CALLBACK (delete_agent_cb), self);
      adw_preferences_group_add (self->agents_group, GTK_WIDGET (row));
      g_ptr_array_add (self->widgets, row);
      g_hash_table_replace (self->rows, (gpointer) natter_agent_row_get_agent_id (row), row);
    }
}

/* The agent editor: a subpage of the window */

static void
close_editor (NatterAgentsPage        *self)
{
  AdwPreferencesWindow *window = window_of (self);

  self->editor = NULL;
  if (window != NULL)
    adw_preferences_window_close_subpage (window);
}

static void
editor_back_cb (NatterAgentEditor       *editor,
                NatterAgentsPage        *self)
{
  close_editor (self);
}

/* The editor lists models while it is open: that counts as pending work
 * of the page, so tests can wait for it. */
static void
editor_loading_cb (NatterAgentEditor       *editor,
                   GParamSpec              *pspec,
                   NatterAgentsPage        *self)
{
  if (natter_agent_editor_get_loading (editor))
    {
      pending_begin (self);
      return;
    }
  pending_end (self);
  g_object_unref (self);
}

static void
editor_save_cb (NatterAgentEditor       *editor,
                NatterAgentsPage        *self)
{
  g_autoptr(JsonObject) agent = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = NULL;

  agent = natter_agent_editor_build_agent (editor, &error);
  if (agent == NULL ||
      !natter_agent_store_save (natter_services_get_agent_store (self->services), agent, &error))
    {
      show_toast (self, error->message);
      return;
    }
  saved = g_strdup_printf (_("Saved “%s”"), json_object_get_string_member (agent, "name"));
  close_editor (self);
  rebuild (self);
  show_toast (self, saved);
}

static void
open_editor (NatterAgentsPage        *self,
             JsonObject              *agent)
{
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

  /* The editor is a subpage of the window the page is in. */
  if (window_of (self) == NULL)
    return;

  /* The providers the default-model combo offers, by their names. */
  natter_provider_choices_collect (natter_services_get_settings (self->services), ids, names);
  g_ptr_array_add (ids, NULL);
  g_ptr_array_add (names, NULL);
  self->editor = natter_agent_editor_new (self->services, agent,
                                          (const char * const *) ids->pdata,
                                          (const char * const *) names->pdata);
  if (natter_agent_editor_get_loading (self->editor))
    pending_begin (self);
  g_signal_connect_object (self->editor, "notify::loading", G_CALLBACK (editor_loading_cb), self, 0);
  g_signal_connect_object (self->editor, "save", G_CALLBACK (editor_save_cb), self, 0);
  g_signal_connect_object (self->editor, "back", G_CALLBACK (editor_back_cb), self, 0);
  adw_preferences_window_present_subpage (window_of (self), GTK_WIDGET (self->editor));
  natter_agent_editor_focus (self->editor);
}

static void
add_agent_activated_cb (NatterAgentsPage *self)
{
  open_editor (self, NULL);
}

/* GObject */

static void
natter_agents_page_dispose (GObject *object)
{
  NatterAgentsPage *self = NATTER_AGENTS_PAGE (object);

  g_cancellable_cancel (self->cancellable);
  g_hash_table_remove_all (self->rows);
  g_ptr_array_set_size (self->widgets, 0);
  self->editor = NULL;
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_AGENTS_PAGE);

  G_OBJECT_CLASS (natter_agents_page_parent_class)->dispose (object);
}

static void
natter_agents_page_finalize (GObject *object)
{
  NatterAgentsPage *self = NATTER_AGENTS_PAGE (object);

  g_clear_object (&self->cancellable);
  g_clear_object (&self->services);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->widgets, g_ptr_array_unref);

  G_OBJECT_CLASS (natter_agents_page_parent_class)->finalize (object);
}

static void
natter_agents_page_class_init (NatterAgentsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_agents_page_dispose;
  object_class->finalize = natter_agents_page_finalize;

  /**
   * NatterAgentsPage::add-toast:
   * @self: the page
   * @toast: (transfer none): the toast (natter-preferences-toast.h)
   *
   * The page has something to say; the window that holds it shows
   * @toast.
   */
  signals[ADD_TOAST] = g_signal_new ("add-toast", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                     NULL, G_TYPE_NONE, 1, ADW_TYPE_TOAST);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-agents-page.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterAgentsPage, assistant_row);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentsPage, agents_group);
  gtk_widget_class_bind_template_child (widget_class, NatterAgentsPage, add_agent_row);
  gtk_widget_class_bind_template_callback (widget_class, add_agent_activated_cb);
}

static void
natter_agents_page_init (NatterAgentsPage *self)
{
  self->cancellable = g_cancellable_new ();
  self->rows = g_hash_table_new (g_str_hash, g_str_equal);
  self->widgets = g_ptr_array_new ();
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_agents_page_set_services:
 * @self: the page, as the Preferences window's template built it
 * @services: the services whose agent store and resolver it shows
 *
 * Hands the page what it edits, once, right after it is built: it shows
 * the built-in Assistant and the agents of the store.
 */
void
natter_agents_page_set_services (NatterAgentsPage *self,
                                 NatterServices   *services)
{
  g_return_if_fail (NATTER_IS_AGENTS_PAGE (self));
  g_return_if_fail (NATTER_IS_SERVICES (services));
  g_return_if_fail (self->services == NULL);

  self->services = g_object_ref (services);
  fill_assistant_row (self);
  rebuild (self);
}

/**
 * natter_agents_page_get_part:
 * @self: the page
 * @name: "assistant" (the built-in agent's row) or "add-agent"
 *
 * For tests, which drive the page as a person would.
 *
 * Returns: (transfer none) (nullable): the widget
 */
GtkWidget *
natter_agents_page_get_part (NatterAgentsPage *self,
                             const char       *name)
{
  g_return_val_if_fail (NATTER_IS_AGENTS_PAGE (self), NULL);

  if (g_str_equal (name, "assistant"))
    return GTK_WIDGET (self->assistant_row);
  if (g_str_equal (name, "add-agent"))
    return GTK_WIDGET (self->add_agent_row);
  return NULL;
}

/**
 * natter_agents_page_get_row:
 * @self: the page
 * @agent_id: an agent's id
 *
 * For tests.
 *
 * Returns: (transfer none) (nullable): the row of agent @agent_id
 */
NatterAgentRow *
natter_agents_page_get_row (NatterAgentsPage *self,
                            const char       *agent_id)
{
  g_return_val_if_fail (NATTER_IS_AGENTS_PAGE (self), NULL);
  return g_hash_table_lookup (self->rows, agent_id);
}

/**
 * natter_agents_page_get_editor:
 * @self: the page
 *
 * For tests.
 *
 * Returns: (transfer none) (nullable): the open agent editor
 */
NatterAgentEditor *
natter_agents_page_get_editor (NatterAgentsPage *self)
{
  g_return_val_if_fail (NATTER_IS_AGENTS_PAGE (self), NULL);
  return self->editor;
}

/**
 * natter_agents_page_get_n_pending:
 * @self: the page
 *
 * Returns: whether the open editor is listing models (1) or not (0),
 *   for tests
 */
guint
natter_agents_page_get_n_pending (NatterAgentsPage *self)
{
  g_return_val_if_fail (NATTER_IS_AGENTS_PAGE (self), 0);
  return self->n_pending;
}
