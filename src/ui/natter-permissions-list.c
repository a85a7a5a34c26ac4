/* natter-permissions-list.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The conversation's "Permissions": the tools the person always allowed
 * in it (session permission grants, docs/sessions.md §12), one row
 * each with Revoke. Read from the session file, and read again whenever
 * the session changes, so a grant made elsewhere (another card, the
 * command line) shows up and a revoked one goes.
 */

#define G_LOG_DOMAIN "natter-permissions-list"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-accessible.h"
#include "natter-permissions-list.h"
#include "natter-session-grants-queue.h"
#include "natter-sessions-grants.h"

struct _NatterPermissionsList
{
  GtkWidget       parent_instance;

  NatterSessions *sessions;
  char           *session_id;
  GCancellable   *cancellable;
  gboolean        loaded;
  guint           n_grants;

  /* Template widgets */
  GtkListBox     *list;
  GtkLabel       *error_label;
};

G_DEFINE_FINAL_TYPE (NatterPermissionsList, natter_permissions_list, GTK_TYPE_WIDGET)

static void reload (NatterPermissionsList *self);

static void
show_error (NatterPermissionsList *self,
            const GError          *error)
{
  gtk_label_set_text (self->error_label, error->message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
}

static void
revoked_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(NatterPermissionsList) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!natter_sessions_remove_grant_finish (NATTER_SESSIONS (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      show_error (self, error);
      reload (self);
    }
}

static void
revoke_clicked_cb (GtkButton             *button,
                   NatterPermissionsList *self)
{
  const char *grant_id = g_object_get_data (G_OBJECT (button), "grant-id");

  gtk_widget_set_sensitive (GTK_WIDGET (button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  /* As wide as it is now when its rows go: the dialog around it keeps
   * its width, and its buttons stay where the pointer is. */
  gtk_widget_set_size_request (GTK_WIDGET (self), gtk_widget_get_width (GTK_WIDGET (self)), -1);
  natter_sessions_remove_grant_async (self->sessions, self->session_id, grant_id, self->cancellable,
                                      revoked_cb, g_object_ref (self));
}

static GtkWidget *
grant_row (NatterPermissionsList    *self,
           const NatterSessionGrant *grant)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *button = gtk_button_new_with_mnemonic (_("_Revoke"));
  g_autofree char *name = natter_sessions_dup_tool_name (self->sessions, grant->tool_id);
  g_autofree char *accessible = NULL;

  /* Tool names come from tools and agents, not from us: never markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Always allowed in this conversation"));
  natter_accessible_plain_mnemonics (button);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  g_object_set_data_full (G_OBJECT (button), "grant-id", g_strdup (grant->grant_id), g_free);
  /* Translators: the accessible name of a button; %s is a tool's name */
  accessible = g_strdup_printf (_("Revoke the rule for %s"), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
  g_signal_connect (button, "clicked", G_CALLBACK (revoke_clicked_cb), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  return row;
}

static void
session_read_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(NatterPermissionsList) self = user_data;
  g_autoptr(NatterSessionState) state = NULL;
  g_autoptr(GError) error = NULL;
  GtkListBoxRow *row;

  state = natter_sessions_get_session_finish (NATTER_SESSIONS (source), result, &error);
  if (state == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, error);
      return;
    }
  while ((row = gtk_list_box_get_row_at_index (self->list, 0)) != NULL)
    gtk_list_box_remove (self->list, GTK_WIDGET (row));
  self->n_grants = natter_session_state_get_n_grants (state);
  for (guint i = 0; i < self->n_grants; i++)
    gtk_list_box_append (self->list, grant_row (self, natter_session_state_get_grant (state, i)));
  self->loaded = TRUE;
}

static void
reload (NatterPermissionsList *self)
{
  natter_sessions_get_session_async (self->sessions, self->session_id, self->cancellable,
                                     session_read_cb, g_object_ref (self));
}

static void
session_changed_cb (NatterSessions        *sessions,
                    const char            *session_id,
                    NatterPermissionsList *self)
{
  if (g_strcmp0 (session_id, self->session_id) == 0)
    reload (self);
}

static void
natter_permissions_list_dispose (GObject *object)
{
  NatterPermissionsList *self = NATTER_PERMISSIONS_LIST (object);

  g_cancellable_cancel (self->cancellable);
  if (self->sessions != NULL)
    g_signal_handlers_disconnect_by_data (self->sessions, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_PERMISSIONS_LIST);
  G_OBJECT_CLASS (natter_permissions_list_parent_class)->dispose (object);
}

static void
natter_permissions_list_finalize (GObject *object)
{
  NatterPermissionsList *self = NATTER_PERMISSIONS_LIST (object);

  g_clear_object (&self->sessions);
  g_clear_object (&self->cancellable);
  g_free (self->session_id);
  G_OBJECT_CLASS (natter_permissions_list_parent_class)->finalize (object);
}

static void
natter_permissions_list_class_init (NatterPermissionsListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = natter_permissions_list_dispose;
  object_class->finalize = natter_permissions_list_finalize;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "natter-permissions-list");
  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-permissions-list.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionsList, list);
  gtk_widget_class_bind_template_child (widget_class, NatterPermissionsList, error_label);
}

static void
natter_permissions_list_init (NatterPermissionsList *self)
{
  self->cancellable = g_cancellable_new ();
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * natter_permissions_list_new:
 * @sessions: the session service
 * @session_id: the conversation
 *
 * Creates the list of @session_id's active permission grants, each with
 * a Revoke button (natter_sessions_remove_grant_async()). It reads the
 * session at once and again on every
 * #NatterSessions::session-index-changed of it.
 *
 * Returns: (transfer floating): a new list
 */
GtkWidget *
natter_permissions_list_new (NatterSessions *sessions,
                             const char     *session_id)
{
  NatterPermissionsList *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  self = g_object_new (NATTER_TYPE_PERMISSIONS_LIST, NULL);
  self->sessions = g_object_ref (sessions);
  self->session_id = g_strdup (session_id);
  g_signal_connect (sessions, "session-index-changed", G_CALLBACK (session_changed_cb), self);
  reload (self);
  return GTK_WIDGET (self);
}

/**
 * natter_permissions_list_is_loaded:
 * @self: a list
 *
 * Returns: whether the session was read at least once
 */
gboolean
natter_permissions_list_is_loaded (NatterPermissionsList *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSIONS_LIST (self), FALSE);
  return self->loaded;
}

/**
 * natter_permissions_list_get_n_grants:
 * @self: a list
 *
 * Returns: how many grants the list shows
 */
guint
natter_permissions_list_get_n_grants (NatterPermissionsList *self)
{
  g_return_val_if_fail (NATTER_IS_PERMISSIONS_LIST (self), 0);
  return self->n_grants;
}

/* libadwaita 1.2 sizes a message dialog shown before it has measured its
 * parent window at its narrowest, and at its width only on the next
 * resize: that would be the first Revoke. Once shown, it takes its width
 * at once. */
static gboolean
settle_width_cb (gpointer data)
{
  gtk_widget_queue_resize (data);
  return G_SOURCE_REMOVE;
}

static void
dialog_mapped_cb (GtkWidget *dialog)
{
  g_idle_add_full (G_PRIORITY_LOW, settle_width_cb, g_object_ref (dialog), g_object_unref);
}

/**
 * natter_permissions_dialog_new:
 * @parent: the window it belongs to
 * @sessions: the session service
 * @session_id: the conversation
 *
 * The conversation menu's "Permissions": a dialog around
 * natter_permissions_list_new() with a Close response.
 *
 * Returns: (transfer floating): the dialog, not shown yet
 */
GtkWidget *
natter_permissions_dialog_new (GtkWindow      *parent,
                               NatterSessions *sessions,
                               const char     *session_id)
{
  GtkWidget *dialog;

  g_return_val_if_fail (GTK_IS_WINDOW (parent), NULL);

  dialog = adw_message_dialog_new (parent, _("Permissions"),
                                   _("Tools you always allowed in this conversation run without asking. "
                                     "Revoke a rule to be asked again."));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), natter_permissions_list_new (sessions, session_id));
  g_signal_connect (dialog, "map", G_CALLBACK (dialog_mapped_cb), NULL);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "close");
  return dialog;
}
