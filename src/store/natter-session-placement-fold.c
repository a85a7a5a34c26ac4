/* natter-session-placement-fold.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fold of what session schema version 4 added (docs/format.md §3.6):
 * the conversation's pin and its folder. Each event states its whole
 * value, so the last one of a kind wins. A `folderId` is not checked
 * against the folders: a folder is a log of its own that may have been
 * deleted since, which leaves the conversation in none, and whose undo
 * puts it back. Shared by the reducer and the startup scan.
 */

#define G_LOG_DOMAIN "natter-session-reducer"

#include "natter-session-placement-state.h"
#include "natter-session-reducer-private.h"

void
natter_session_v4_fold_clear (NatterSessionV4Fold *fold)
{
  g_clear_pointer (&fold->folder_id, g_free);
  fold->pinned = FALSE;
}

/* Folds an event the reducer accepted (its version checked); events of
 * other types change nothing here. */
void
natter_session_v4_fold_commit (NatterSessionV4Fold *fold,
                               JsonObject          *event,
                               const char          *type)
{
  if (g_str_equal (type, "pin_changed"))
    fold->pinned = json_object_get_boolean_member (event, "pinned");
  else if (g_str_equal (type, "folder_changed"))
    {
      g_free (fold->folder_id);
      fold->folder_id = g_strdup (json_object_get_string_member_with_default (event, "folderId", NULL));
    }
}

/**
 * natter_session_state_get_pinned:
 * @self: a #NatterSessionState
 *
 * Whether the session's last `pin_changed` pinned it (docs/format.md
 * §3.6). A conversation with versions is pinned when its original is
 * (docs/sessions.md §16).
 *
 * Returns: %TRUE if pinned
 */
gboolean
natter_session_state_get_pinned (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->v4.pinned;
}

/**
 * natter_session_state_get_folder_id:
 * @self: a #NatterSessionState
 *
 * The folder the session's last `folder_changed` put it in
 * (docs/format.md §3.6). That folder may have been deleted since: the
 * folder list says (natter-folders.c).
 *
 * Returns: (transfer none) (nullable): the folder's id, or %NULL; valid
 *   until @self is freed or has another event applied
 */
const char *
natter_session_state_get_folder_id (NatterSessionState *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->v4.folder_id;
}
