/* natter-child-watch.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Who wants to hear of each child a widget gets. A toast overlay is the
 * case: each toast is a new child, made by libadwaita, and the toast
 * guard notes when one appears while the window's accessible names name
 * its button. One observer of the children serves all of them, and goes
 * with the widget.
 */

#include "config.h"

#include "natter-child-watch.h"

#define WATCH_KEY "natter-child-watch"

typedef struct
{
  NatterChildAddedFunc func;
  gpointer             user_data;
} Watcher;

typedef struct
{
  GtkWidget  *parent;    /* not owned: the watch is its data */
  GListModel *children;
  GArray     *watchers;  /* of Watcher, in the order added */
} Watch;

static void
watch_free (Watch *watch)
{
  g_clear_object (&watch->children);
  g_array_unref (watch->watchers);
  g_free (watch);
}

static void
children_changed_cb (GListModel *children,
                     guint       position,
                     guint       removed,
                     guint       added,
                     Watch      *watch)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GtkWidget) child = g_list_model_get_item (children, i);

      for (guint w = 0; w < watch->watchers->len; w++)
        {
          Watcher *watcher = &g_array_index (watch->watchers, Watcher, w);

          watcher->func (watch->parent, child, watcher->user_data);
        }
    }
}

/* The observer goes with the widget's own bookkeeping of its children,
 * which it must not outlive. */
static void
parent_destroy_cb (GtkWidget *parent)
{
  g_object_set_data (G_OBJECT (parent), WATCH_KEY, NULL);
}

/**
 * natter_child_watch_add:
 * @parent: a widget whose children come and go
 * @func: called with each child added to @parent from
 *   now on, as it is added, until @parent is destroyed
 * @user_data: data for @func, which must live as long as @parent
 *
 * Calls @func for each child added to @parent. However many watch it,
 * @parent's children are observed once (gtk_widget_observe_children()
 * makes adding and removing them slower), and not after its destruction.
 */
void
natter_child_watch_add (GtkWidget            *parent,
                        NatterChildAddedFunc  func,
                        gpointer              user_data)
{
  Watch *watch;
  Watcher watcher = { func, user_data };

  g_return_if_fail (GTK_IS_WIDGET (parent));
  g_return_if_fail (func != NULL);

  watch = g_object_get_data (G_OBJECT (parent), WATCH_KEY);
  if (watch == NULL)
    {
      watch = g_new0 (Watch, 1);
      watch->parent = parent;
      watch->watchers = g_array_new (FALSE, FALSE, sizeof (Watcher));
      watch->children = gtk_widget_observe_children (parent);
      g_object_set_data_full (G_OBJECT (parent), WATCH_KEY, watch, (GDestroyNotify) watch_free);
      g_signal_connect (watch->children, "items-changed", G_CALLBACK (children_changed_cb), watch);
      g_signal_connect (parent, "destroy", G_CALLBACK (parent_destroy_cb), NULL);
    }
  g_array_append_val (watch->watchers, watcher);
}
