/* natter-draft-store.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The words waiting, not yet sent, in a conversation's message field,
 * kept on disk so that quitting, a crash or a power cut loses none of
 * them: docs/format.md §10.
 */

#pragma once

#include <gio/gio.h>

#include "natter-types.h"

G_BEGIN_DECLS

/**
 * NATTER_DRAFTS_DIR_NAME:
 *
 * The folder at the top of the data directory that holds the drafts
 * (docs/format.md §10). It is never synchronised: a draft is what this
 * device's person was typing.
 */
#define NATTER_DRAFTS_DIR_NAME "drafts"

/**
 * NATTER_DRAFT_NEW_CHAT:
 *
 * The key of the draft of a conversation not yet made (the window's new
 * chat), beside the session ids that key the others.
 */
#define NATTER_DRAFT_NEW_CHAT ""

/**
 * NatterDraftAttachment:
 * @uri: (nullable): a file on the disk, by its URI: read again when the
 *   message is sent, so a file changed meanwhile goes as it is then
 * @bytes: (nullable): or what was pasted, kept beside the drafts
 * @name: (nullable): with @bytes, the name it is sent with
 * @media_type: (nullable): with @bytes, its media type
 *
 * One file waiting beside a draft (docs/format.md §10): either @uri, or
 * @bytes with @name and @media_type.
 */
typedef struct
{
  char   *uri;
  GBytes *bytes;
  char   *name;
  char   *media_type;
} NatterDraftAttachment;

/**
 * NatterDraft:
 * @text: the words; empty only when @attachments has some
 * @edits_turn_id: (nullable): the turn whose message the words replace,
 *   when they are an edit of a sent message rather than a new one
 * @set_aside: (nullable): with @edits_turn_id only, never empty: the
 *   words the field held when the edit began, which it gets back once
 *   the edit is sent or given up
 * @attachments: (element-type NatterDraftAttachment): the files waiting
 *   beside the words, in order; never %NULL
 *
 * One draft, as natter_draft_store_load_sync() reads it.
 */
typedef struct
{
  char      *text;
  char      *edits_turn_id;
  char      *set_aside;
  GPtrArray *attachments;
} NatterDraft;

NatterDraft *natter_draft_new                 (const char        *text,
                                               const char        *edits_turn_id,
                                               const char        *set_aside);
NatterDraft *natter_draft_copy                (const NatterDraft *draft);
void         natter_draft_add_file            (NatterDraft       *draft,
                                               const char        *uri);
void         natter_draft_add_bytes           (NatterDraft       *draft,
                                               GBytes            *bytes,
                                               const char        *name,
                                               const char        *media_type);
gboolean     natter_draft_equal               (const NatterDraft *a,
                                               const NatterDraft *b);
void         natter_draft_free                (NatterDraft       *draft);

#define NATTER_TYPE_DRAFT_STORE (natter_draft_store_get_type ())

G_DECLARE_FINAL_TYPE (NatterDraftStore, natter_draft_store, NATTER, DRAFT_STORE, GObject)

NatterDraftStore *natter_draft_store_new            (GFile             *data_dir);
GHashTable       *natter_draft_store_load_sync      (NatterDraftStore  *self,
                                                     GPtrArray         *problems);
gboolean          natter_draft_store_save_sync      (NatterDraftStore  *self,
                                                     const char        *key,
                                                     const NatterDraft *draft,
                                                     GError           **error);
void              natter_draft_store_refuse_writes  (NatterDraftStore  *self,
                                                     const GError      *refusal);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterDraft, natter_draft_free)

G_END_DECLS
