/* natter-sidebar-sections.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The order of the sidebar's list (docs/sessions.md §16): the pinned
 * conversations under "Pinned", then each folder — its header, then its
 * conversations while it is expanded —, then the conversations in no
 * folder under "Recent", each part newest first. A conversation is
 * pinned, or in a folder, when its original is (natter-sessions-settings.c);
 * a pinned one shows under Pinned only, and one whose folder was deleted
 * is in none. Headers only show when there is something to tell apart:
 * without pins and folders the list is the plain list of old.
 *
 * Every part is a filter over one sort of the session index itself —
 * the same shown filter (the search, the hidden rows, one row per
 * conversation) and its own rule — flattened into one model, so the list
 * still follows every write-through update of the index with no copy. While a search is on, the parts give way to one list of what it
 * found, which may be narrowed to a folder.
 */

#define G_LOG_DOMAIN "natter-sidebar"

#include "config.h"

#include "natter-family-filter.h"
#include "natter-sessions-settings.h"
#include "natter-sidebar-sections.h"

/* Header items */

struct _NatterSidebarHeader
{
  GObject                  parent_instance;

  NatterSidebarHeaderKind  kind;
  NatterFolder            *folder;
  gboolean                 expanded;
};

G_DEFINE_FINAL_TYPE (NatterSidebarHeader, natter_sidebar_header, G_TYPE_OBJECT)

enum
{
  HEADER_PROP_0,
  HEADER_PROP_EXPANDED,
  N_HEADER_PROPS
};

static GParamSpec *header_properties[N_HEADER_PROPS];

static void
natter_sidebar_header_finalize (GObject *object)
{
  g_clear_object (&NATTER_SIDEBAR_HEADER (object)->folder);
  G_OBJECT_CLASS (natter_sidebar_header_parent_class)->finalize (object);
}

static void
natter_sidebar_header_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  switch (prop_id)
    {
    case HEADER_PROP_EXPANDED:
      g_value_set_boolean (value, NATTER_SIDEBAR_HEADER (object)->expanded);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_sidebar_header_class_init (NatterSidebarHeaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = natter_sidebar_header_finalize;
  object_class->get_property = natter_sidebar_header_get_property;
  /**
   * NatterSidebarHeader:expanded:
   *
   * Whether a folder's conversations are listed under it.
   */
  header_properties[HEADER_PROP_EXPANDED] =
    g_param_spec_boolean ("expanded", NULL, NULL, TRUE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_HEADER_PROPS, header_properties);
}

static void
natter_sidebar_header_init (NatterSidebarHeader *self)
{
  self->expanded = TRUE;
}

static NatterSidebarHeader *
header_new (NatterSidebarHeaderKind  kind,
            NatterFolder            *folder)
{
  NatterSidebarHeader *self = g_object_new (NATTER_TYPE_SIDEBAR_HEADER, NULL);

  self->kind = kind;
  self->folder = folder != NULL ? g_object_ref (folder) : NULL;
  return self;
}

/**
 * natter_sidebar_header_get_kind:
 * @self: a header
 *
 * Returns: what the header stands for
 */
NatterSidebarHeaderKind
natter_sidebar_header_get_kind (NatterSidebarHeader *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER (self), NATTER_SIDEBAR_HEADER_RECENT);
  return self->kind;
}

/**
 * natter_sidebar_header_get_folder:
 * @self: a header
 *
 * Returns: (transfer none) (nullable): the folder of a folder's header
 */
NatterFolder *
natter_sidebar_header_get_folder (NatterSidebarHeader *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER (self), NULL);
  return self->folder;
}

/**
 * natter_sidebar_header_get_expanded:
 * @self: a header
 *
 * Returns: whether a folder's conversations are listed under it
 *   (#NatterSidebarHeader:expanded); %TRUE for the other headers
 */
gboolean
natter_sidebar_header_get_expanded (NatterSidebarHeader *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_HEADER (self), TRUE);
  return self->expanded;
}

/* The sections */

typedef struct _Part Part;
typedef gboolean (*PartMatch) (NatterSidebarSections *self,
                               Part                  *part,
                               const char            *session_id);

struct _Part
{
  NatterSidebarSections *owner;
  NatterSidebarHeader   *header;        /* NULL for the search's part */
  GListStore            *header_store;  /* holds header while it shows */
  GtkFilter             *filter;        /* the part's own rule */
  GtkFilterListModel    *listed;        /* the sorted index, filtered by the part */
  PartMatch              match;
};

struct _NatterSidebarSections
{
  GObject              parent_instance;

  NatterSessions      *sessions;
  NatterFamilyFilter  *families;       /* nullable: the rows left out, the row of each conversation */
  NatterFolders       *folders;
  GListModel          *index;
  GtkFilter           *shown;
  GtkSortListModel    *sorted;         /* the index, newest first: shared by the parts */

  GListStore          *parts_store;    /* of GListModel: what the list flattens */
  GtkFlattenListModel *model;
  Part                *pinned;
  Part                *recent;
  Part                *found;          /* while searching */
  GPtrArray           *folder_parts;   /* of Part, in the folders' order */
  GHashTable          *collapsed;      /* folder ids */
  GHashTable          *placements;     /* conversation id → "pinned\tfolder" last seen */
  gboolean             searching;
  char                *scope;          /* folder id, or NULL */
  /* A row is in one part at a time, or the list view would see it twice:
   * a conversation that moves leaves every part before it joins its new
   * one, and new folders' parts fill only once Recent gave theirs up. */
  const char          *moving;         /* conversation id, while it moves */
  gboolean             holding_folders;
};

G_DEFINE_FINAL_TYPE (NatterSidebarSections, natter_sidebar_sections, G_TYPE_OBJECT)

enum
{
  REBUILT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Where a conversation is: pinned, and its folder when that exists. */

static gboolean
is_pinned (NatterSidebarSections *self,
           const char            *session_id)
{
  const char *original;
  g_autofree char *heir = NULL;

  if (!natter_sessions_get_pinned (self->sessions, session_id))
    return FALSE;
  original = natter_sessions_get_conversation_id (self->sessions, session_id);
  if (self->families == NULL || g_strcmp0 (original, session_id) == 0)
    return TRUE;
  /* A version deleted, its undo toast still up, while versions were made
   * of it: those are listed as the conversations of their own they
   * become once it is gone, unpinned, and the pin stays on the row of
   * the conversation the person pinned. */
  if (!natter_family_filter_is_hidden (self->families, original))
    return g_strcmp0 (natter_family_filter_get_listed (self->families, original), session_id) == 0;
  /* The original is deleted, its undo toast still up: its versions are
   * listed as the conversations of their own they become once it is
   * gone, and only the one that will take the pin shows pinned
   * (docs/sessions.md §9.4): the list shows while the toast is up what
   * it shows once the delete is carried out. */
  heir = natter_sessions_dup_pin_heir (self->sessions, original);
  return heir != NULL && g_strcmp0 (natter_family_filter_get_listed (self->families, heir), session_id) == 0;
}

/**
 * natter_sidebar_sections_get_folder_id:
 * @self: the sections
 * @session_id: a session
 *
 * Returns: (transfer none) (nullable): the folder @session_id's
 *   conversation is in, when that folder exists; else %NULL
 */
const char *
natter_sidebar_sections_get_folder_id (NatterSidebarSections *self,
                                       const char            *session_id)
{
  const char *folder_id;

  g_return_val_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self), NULL);

  folder_id = natter_sessions_get_folder_id (self->sessions, session_id);
  if (folder_id == NULL || self->folders == NULL || natter_folders_lookup (self->folders, folder_id) == NULL)
    return NULL;
  return folder_id;
}

static gboolean
match_pinned (NatterSidebarSections *self,
              Part                  *part,
              const char            *session_id)
{
  return is_pinned (self, session_id);
}

static gboolean
match_recent (NatterSidebarSections *self,
              Part                  *part,
              const char            *session_id)
{
  return !is_pinned (self, session_id) && natter_sidebar_sections_get_folder_id (self, session_id) == NULL;
}

static gboolean
match_folder (NatterSidebarSections *self,
              Part                  *part,
              const char            *session_id)
{
  return part->header->expanded && !is_pinned (self, session_id) &&
         g_strcmp0 (natter_sidebar_sections_get_folder_id (self, session_id),
                    natter_folder_get_id (part->header->folder)) == 0;
}

static gboolean
match_found (NatterSidebarSections *self,
             Part                  *part,
             const char            *session_id)
{
  return self->scope == NULL || g_strcmp0 (natter_sidebar_sections_get_folder_id (self, session_id), self->scope) == 0;
}

static gboolean
part_filter_func (gpointer item,
                  gpointer user_data)
{
  Part *part = user_data;
  NatterSidebarSections *self = part->owner;
  const char *session_id = natter_session_index_entry_get_session_id (item);

  if (self->moving != NULL &&
      g_strcmp0 (natter_sessions_get_conversation_id (self->sessions, session_id), self->moving) == 0)
    return FALSE;
  if (self->holding_folders && part->match == match_folder)
    return FALSE;
  /* The search's part lists nothing while no search is on. */
  if (part == self->found && !self->searching)
    return FALSE;
  return part->match (self, part, session_id);
}

/* The headers of Pinned and Recent show only above something, and Recent
 * only below something else. */
static void
update_headers (NatterSidebarSections *self)
{
  gboolean above = self->folder_parts->len > 0 ||
                   g_list_model_get_n_items (G_LIST_MODEL (self->pinned->listed)) > 0;
  gboolean show_pinned = g_list_model_get_n_items (G_LIST_MODEL (self->pinned->listed)) > 0;
  gboolean show_recent = above && g_list_model_get_n_items (G_LIST_MODEL (self->recent->listed)) > 0;

  if (show_pinned != (g_list_model_get_n_items (G_LIST_MODEL (self->pinned->header_store)) > 0))
    {
      if (show_pinned)
        g_list_store_append (self->pinned->header_store, self->pinned->header);
      else
        g_list_store_remove_all (self->pinned->header_store);
    }
  if (show_recent != (g_list_model_get_n_items (G_LIST_MODEL (self->recent->header_store)) > 0))
    {
      if (show_recent)
        g_list_store_append (self->recent->header_store, self->recent->header);
      else
        g_list_store_remove_all (self->recent->header_store);
    }
}

static void
part_items_changed_cb (NatterSidebarSections *self)
{
  if (!self->searching)
    update_headers (self);
}

static Part *
part_new (NatterSidebarSections *self,
          NatterSidebarHeader   *header,
          PartMatch              match)
{
  Part *part = g_new0 (Part, 1);
  GtkEveryFilter *filter = gtk_every_filter_new ();

  part->owner = self;
  part->header = header;
  part->match = match;
  part->header_store = g_list_store_new (NATTER_TYPE_SIDEBAR_HEADER);
  part->filter = GTK_FILTER (gtk_custom_filter_new (part_filter_func, part, NULL));
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (self->shown));
  gtk_multi_filter_append (GTK_MULTI_FILTER (filter), g_object_ref (part->filter));
  /* Filtered after the sort, never sorted after a filter: the sort takes
   * each row from the index at no cost, where taking one from a filter
   * model looks it up in a bitset (100,000 rows cost a frame); the list
   * then asks each part only for the rows it shows. */
  part->listed = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (self->sorted)), GTK_FILTER (filter));
  g_signal_connect_object (part->listed, "items-changed", G_CALLBACK (part_items_changed_cb), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  /* A folder's header always shows: an empty folder is one to drop into. */
  if (header != NULL && header->kind == NATTER_SIDEBAR_HEADER_FOLDER)
    g_list_store_append (part->header_store, header);
  return part;
}

static void
part_free (Part *part)
{
  if (part == NULL)
    return;
  g_signal_handlers_disconnect_by_data (part->listed, part->owner);
  g_clear_object (&part->header);
  g_clear_object (&part->header_store);
  g_clear_object (&part->filter);
  g_clear_object (&part->listed);
  g_free (part);
}

static void
refilter_parts (NatterSidebarSections *self,
                GtkFilterChange        change)
{
  gtk_filter_changed (self->pinned->filter, change);
  for (guint i = 0; i < self->folder_parts->len; i++)
    gtk_filter_changed (((Part *) g_ptr_array_index (self->folder_parts, i))->filter, change);
  gtk_filter_changed (self->recent->filter, change);
  gtk_filter_changed (self->found->filter, change);
}

/* Lays the parts out again: after the folders changed, or the search
 * began or ended. The caller says so (::rebuilt) once the parts hold
 * their rows. */
static void
rebuild (NatterSidebarSections *self)
{
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();

  if (self->searching)
    g_ptr_array_add (parts, self->found->listed);
  else
    {
      g_ptr_array_add (parts, self->pinned->header_store);
      g_ptr_array_add (parts, self->pinned->listed);
      for (guint i = 0; i < self->folder_parts->len; i++)
        {
          Part *part = g_ptr_array_index (self->folder_parts, i);

          g_ptr_array_add (parts, part->header_store);
          g_ptr_array_add (parts, part->listed);
        }
      g_ptr_array_add (parts, self->recent->header_store);
      g_ptr_array_add (parts, self->recent->listed);
      update_headers (self);
    }
  g_list_store_splice (self->parts_store, 0, g_list_model_get_n_items (G_LIST_MODEL (self->parts_store)),
                       parts->pdata, parts->len);
}

static void
folders_changed_cb (NatterSidebarSections *self)
{
  guint n = self->folders != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->folders)) : 0;

  g_ptr_array_set_size (self->folder_parts, 0);
  self->holding_folders = TRUE;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(NatterFolder) folder = g_list_model_get_item (G_LIST_MODEL (self->folders), i);
      NatterSidebarHeader *header = header_new (NATTER_SIDEBAR_HEADER_FOLDER, folder);

      header->expanded = !g_hash_table_contains (self->collapsed, natter_folder_get_id (folder));
      g_ptr_array_add (self->folder_parts, part_new (self, header, match_folder));
    }
  /* A folder gone takes its conversations back to Recent, and the
   * search's narrowing with it. */
  if (self->scope != NULL && (self->folders == NULL || natter_folders_lookup (self->folders, self->scope) == NULL))
    g_clear_pointer (&self->scope, g_free);
  rebuild (self);
  gtk_filter_changed (self->pinned->filter, GTK_FILTER_CHANGE_DIFFERENT);
  gtk_filter_changed (self->recent->filter, GTK_FILTER_CHANGE_DIFFERENT);
  gtk_filter_changed (self->found->filter, GTK_FILTER_CHANGE_DIFFERENT);
  self->holding_folders = FALSE;
  for (guint i = 0; i < self->folder_parts->len; i++)
    gtk_filter_changed (((Part *) g_ptr_array_index (self->folder_parts, i))->filter, GTK_FILTER_CHANGE_LESS_STRICT);
  /* Only now is each conversation in its part again: the open one's row
   * (out of a folder deleted, in a folder renamed) is found where it
   * is, not lost. */
  g_signal_emit (self, signals[REBUILT], 0);
}

/* Lifetime */

static void
natter_sidebar_sections_dispose (GObject *object)
{
  NatterSidebarSections *self = NATTER_SIDEBAR_SECTIONS (object);

  if (self->folders != NULL)
    g_signal_handlers_disconnect_by_data (self->folders, self);
  g_clear_object (&self->model);
  g_clear_object (&self->parts_store);
  g_clear_pointer (&self->folder_parts, g_ptr_array_unref);
  g_clear_pointer (&self->pinned, part_free);
  g_clear_pointer (&self->recent, part_free);
  g_clear_pointer (&self->found, part_free);
  g_clear_object (&self->folders);
  g_clear_object (&self->sessions);
  g_clear_object (&self->families);
  if (self->index != NULL)
    g_signal_handlers_disconnect_by_data (self->index, self);
  g_clear_object (&self->index);
  g_clear_object (&self->shown);
  g_clear_object (&self->sorted);

  G_OBJECT_CLASS (natter_sidebar_sections_parent_class)->dispose (object);
}

static void
natter_sidebar_sections_finalize (GObject *object)
{
  NatterSidebarSections *self = NATTER_SIDEBAR_SECTIONS (object);

  g_clear_pointer (&self->collapsed, g_hash_table_unref);
  g_clear_pointer (&self->placements, g_hash_table_unref);
  g_free (self->scope);

  G_OBJECT_CLASS (natter_sidebar_sections_parent_class)->finalize (object);
}

static void
natter_sidebar_sections_class_init (NatterSidebarSectionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = natter_sidebar_sections_dispose;
  object_class->finalize = natter_sidebar_sections_finalize;

  /**
   * NatterSidebarSections::rebuilt:
   * @self: the sections
   *
   * The parts were laid out again: every row of the model was replaced,
   * so a selection is to be made again.
   */
  signals[REBUILT] = g_signal_new ("rebuilt", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
natter_sidebar_sections_init (NatterSidebarSections *self)
{
  self->collapsed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->placements = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->folder_parts = g_ptr_array_new_with_free_func ((GDestroyNotify) part_free);
  self->parts_store = g_list_store_new (G_TYPE_LIST_MODEL);
  self->model = gtk_flatten_list_model_new (g_object_ref (G_LIST_MODEL (self->parts_store)));
}

/* Where @conversation_id's conversation is, as the parts ask it. */
static char *
placement_of (NatterSidebarSections *self,
              const char            *conversation_id)
{
  const char *folder_id = natter_sessions_get_folder_id (self->sessions, conversation_id);

  return g_strdup_printf ("%d\t%s", is_pinned (self, conversation_id), folder_id != NULL ? folder_id : "");
}

/* The parts placed the sessions added to the index where their
 * conversations were then: noted, so that a later change of a pin or a
 * folder made before this list existed (a conversation pinned last week,
 * unpinned by `natter unpin` now) is seen as the change it is. */
static void
index_items_changed_cb (NatterSidebarSections *self,
                        guint                  position,
                        guint                  removed,
                        guint                  added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (self->index, i);
      const char *conversation_id =
        natter_sessions_get_conversation_id (self->sessions, natter_session_index_entry_get_session_id (entry));

      if (!g_hash_table_contains (self->placements, conversation_id))
        g_hash_table_insert (self->placements, g_strdup (conversation_id), placement_of (self, conversation_id));
    }
}

/**
 * natter_sidebar_sections_new:
 * @sessions: the session service, which says where a conversation is
 * @index: the session index
 * @shown: the filter of what the sidebar shows at all (the search, the
 *   hidden rows, one row per conversation)
 * @sorter: the order within each part
 *
 * Returns: (transfer full): the sections, without folders until
 *   natter_sidebar_sections_set_folders()
 */
NatterSidebarSections *
natter_sidebar_sections_new (NatterSessions *sessions,
                             GListModel     *index,
                             GtkFilter      *shown,
                             GtkSorter      *sorter)
{
  NatterSidebarSections *self;

  g_return_val_if_fail (NATTER_IS_SESSIONS (sessions), NULL);
  g_return_val_if_fail (G_IS_LIST_MODEL (index), NULL);
  g_return_val_if_fail (GTK_IS_FILTER (shown) && GTK_IS_SORTER (sorter), NULL);

  self = g_object_new (NATTER_TYPE_SIDEBAR_SECTIONS, NULL);
  self->sessions = g_object_ref (sessions);
  self->index = g_object_ref (index);
  self->shown = g_object_ref (shown);
  self->sorted = gtk_sort_list_model_new (g_object_ref (index), g_object_ref (sorter));
  self->pinned = part_new (self, header_new (NATTER_SIDEBAR_HEADER_PINNED, NULL), match_pinned);
  self->recent = part_new (self, header_new (NATTER_SIDEBAR_HEADER_RECENT, NULL), match_recent);
  self->found = part_new (self, NULL, match_found);
  index_items_changed_cb (self, 0, 0, g_list_model_get_n_items (index));
  g_signal_connect_object (index, "items-changed", G_CALLBACK (index_items_changed_cb), self, G_CONNECT_SWAPPED);
  rebuild (self);
  return self;
}

/**
 * natter_sidebar_sections_get_model:
 * @self: the sections
 *
 * Returns: (transfer none): the list's rows in order: each a
 *   #NatterSessionIndexEntry or a #NatterSidebarHeader
 */
GListModel *
natter_sidebar_sections_get_model (NatterSidebarSections *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self), NULL);
  return G_LIST_MODEL (self->model);
}

/**
 * natter_sidebar_sections_set_family_filter:
 * @self: the sections
 * @families: (nullable): the filter that lists each conversation once
 *   and leaves out the rows hidden, which @self reads to place the
 *   versions of an original that is hidden
 *
 * The filter is part of what @self's `shown` filter lets through: its
 * changes refilter the parts already.
 */
void
natter_sidebar_sections_set_family_filter (NatterSidebarSections *self,
                                           NatterFamilyFilter    *families)
{
  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));

  g_set_object (&self->families, families);
}

/**
 * natter_sidebar_sections_set_folders:
 * @self: the sections
 * @folders: (nullable): the folders to show, kept up to date with them
 */
void
natter_sidebar_sections_set_folders (NatterSidebarSections *self,
                                     NatterFolders         *folders)
{
  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));

  if (self->folders != NULL)
    g_signal_handlers_disconnect_by_data (self->folders, self);
  g_set_object (&self->folders, folders);
  if (folders != NULL)
    g_signal_connect_swapped (folders, "items-changed", G_CALLBACK (folders_changed_cb), self);
  folders_changed_cb (self);
}

/**
 * natter_sidebar_sections_set_searching:
 * @self: the sections
 * @searching: whether a search is on
 *
 * While a search is on, the list is what it found in one part, newest
 * first, narrowed to natter_sidebar_sections_set_scope()'s folder.
 */
void
natter_sidebar_sections_set_searching (NatterSidebarSections *self,
                                       gboolean               searching)
{
  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));

  if (self->searching == !!searching)
    return;
  self->searching = !!searching;
  gtk_filter_changed (self->found->filter, searching ? GTK_FILTER_CHANGE_LESS_STRICT : GTK_FILTER_CHANGE_MORE_STRICT);
  rebuild (self);
  g_signal_emit (self, signals[REBUILT], 0);
}

/**
 * natter_sidebar_sections_set_scope:
 * @self: the sections
 * @folder_id: (nullable): the folder a search looks in, or %NULL for
 *   every conversation
 */
void
natter_sidebar_sections_set_scope (NatterSidebarSections *self,
                                   const char            *folder_id)
{
  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));

  if (g_strcmp0 (self->scope, folder_id) == 0)
    return;
  g_free (self->scope);
  self->scope = g_strdup (folder_id);
  gtk_filter_changed (self->found->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

/**
 * natter_sidebar_sections_get_scope:
 * @self: the sections
 *
 * Returns: (transfer none) (nullable): the folder a search looks in
 */
const char *
natter_sidebar_sections_get_scope (NatterSidebarSections *self)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self), NULL);
  return self->scope;
}

/**
 * natter_sidebar_sections_set_expanded:
 * @self: the sections
 * @folder_id: a folder
 * @expanded: whether its conversations are listed under it
 */
void
natter_sidebar_sections_set_expanded (NatterSidebarSections *self,
                                      const char            *folder_id,
                                      gboolean               expanded)
{
  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));
  g_return_if_fail (folder_id != NULL);

  if (expanded)
    g_hash_table_remove (self->collapsed, folder_id);
  else
    g_hash_table_add (self->collapsed, g_strdup (folder_id));
  for (guint i = 0; i < self->folder_parts->len; i++)
    {
      Part *part = g_ptr_array_index (self->folder_parts, i);

      if (!g_str_equal (natter_folder_get_id (part->header->folder), folder_id) ||
          part->header->expanded == !!expanded)
        continue;
      part->header->expanded = !!expanded;
      g_object_notify_by_pspec (G_OBJECT (part->header), header_properties[HEADER_PROP_EXPANDED]);
      gtk_filter_changed (part->filter, expanded ? GTK_FILTER_CHANGE_LESS_STRICT : GTK_FILTER_CHANGE_MORE_STRICT);
    }
}

/**
 * natter_sidebar_sections_get_expanded:
 * @self: the sections
 * @folder_id: a folder
 *
 * Returns: whether its conversations are listed under it
 */
gboolean
natter_sidebar_sections_get_expanded (NatterSidebarSections *self,
                                      const char            *folder_id)
{
  g_return_val_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self), FALSE);
  return folder_id != NULL && !g_hash_table_contains (self->collapsed, folder_id);
}

/**
 * natter_sidebar_sections_session_changed:
 * @self: the sections
 * @session_id: a session the service wrote to
 *
 * Moves the conversation to its part when its pin or folder changed: the
 * index changes an entry in place, which filters do not see, and the row
 * shown may be another version than the session written to.
 */
void
natter_sidebar_sections_session_changed (NatterSidebarSections *self,
                                         const char            *session_id)
{
  const char *conversation_id;
  g_autofree char *placement = NULL;
  const char *before;

  g_return_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self));
  g_return_if_fail (session_id != NULL);

  conversation_id = natter_sessions_get_conversation_id (self->sessions, session_id);
  placement = placement_of (self, conversation_id);
  before = g_hash_table_lookup (self->placements, conversation_id);
  if (g_strcmp0 (before != NULL ? before : "0\t", placement) == 0)
    return;
  g_hash_table_replace (self->placements, g_strdup (conversation_id), g_steal_pointer (&placement));
  self->moving = conversation_id;
  refilter_parts (self, GTK_FILTER_CHANGE_MORE_STRICT);
  self->moving = NULL;
  refilter_parts (self, GTK_FILTER_CHANGE_LESS_STRICT);
}

/**
 * natter_sidebar_sections_find_position:
 * @self: the sections
 * @session_id: a session id
 *
 * Where the list shows @session_id's row. The rows before it are counted
 * part by part, and within its part by walking the sorted index, which
 * hands out its rows at no cost, asking the part's filter: taking rows
 * from the filtered models one by one would look each up in a bitset.
 *
 * Returns: the row's position in natter_sidebar_sections_get_model(), or
 *   %GTK_INVALID_LIST_POSITION when it is not listed
 */
guint
natter_sidebar_sections_find_position (NatterSidebarSections *self,
                                       const char            *session_id)
{
  guint n_parts;
  guint offset = 0;

  g_return_val_if_fail (NATTER_IS_SIDEBAR_SECTIONS (self), GTK_INVALID_LIST_POSITION);
  g_return_val_if_fail (session_id != NULL, GTK_INVALID_LIST_POSITION);

  n_parts = g_list_model_get_n_items (G_LIST_MODEL (self->parts_store));
  for (guint i = 0; i < n_parts; i++)
    {
      g_autoptr(GListModel) model = g_list_model_get_item (G_LIST_MODEL (self->parts_store), i);
      GtkFilter *every = GTK_IS_FILTER_LIST_MODEL (model) ? gtk_filter_list_model_get_filter (GTK_FILTER_LIST_MODEL (model))
                                                           : NULL;
      guint position = 0;
      guint n;

      if (every == NULL || g_list_model_get_n_items (model) == 0)
        {
          offset += g_list_model_get_n_items (model);
          continue;
        }
      n = g_list_model_get_n_items (G_LIST_MODEL (self->sorted));
      for (guint j = 0; j < n; j++)
        {
          g_autoptr(NatterSessionIndexEntry) entry = g_list_model_get_item (G_LIST_MODEL (self->sorted), j);

          if (!gtk_filter_match (every, entry))
            continue;
          if (g_str_equal (natter_session_index_entry_get_session_id (entry), session_id))
            return offset + position;
          position++;
        }
      offset += g_list_model_get_n_items (model);
    }
  return GTK_INVALID_LIST_POSITION;
}
