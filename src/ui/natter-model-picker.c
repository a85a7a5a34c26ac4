/* natter-model-picker.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model picker of the header bar: a menu button showing the
 * model the next message of the open session goes to, and a popover
 * listing what that session's provider's `/models` offers, and below it,
 * each under its provider's name, the models of the other configured
 * providers, so that a conversation can go on with another provider's
 * model. Each provider's list is fetched once and kept (by provider id
 * and base URL), so switching between sessions of different providers
 * shows the list at once; the other providers are asked when the
 * popover first opens. Only Refresh, or a model pulled or deleted
 * through Natter, asks a server again, and a slow server never delays
 * the popover. A provider that cannot be reached, or that is not
 * configured, says so, with the way to fix it: Preferences. "Manage
 * Models…" opens the server's models (win.manage-models).
 */

#define G_LOG_DOMAIN "natter-model-picker"

#include "config.h"

#include <glib/gi18n.h>

#include <adwaita.h>

#include "natter-accessible.h"
#include "natter-model-picker.h"
#include "natter-plain-text.h"

/* A configured provider other than the open session's. */
typedef struct
{
  NatterOpenaiProvider *provider;
  char                 *key;
} Other;

static void
other_free (Other *other)
{
  g_object_unref (other->provider);
  g_free (other->key);
  g_free (other);
}

struct _NatterModelPicker
{
  GtkWidget             parent_instance;

  NatterOpenaiProvider *provider;
  /* The listing cache key of @provider: id and base URL. */
  char                 *provider_key;
  char                 *display_name;
  char                 *model;
  GtkStringList        *models;
  GHashTable           *listings;   /* provider key → GStrv, listed */
  GHashTable           *fetching;   /* provider key → GCancellable */
  GHashTable           *failures;   /* provider key → why its listing failed */
  GPtrArray            *others;     /* Other, in the registry's order */
  gboolean              unknown;    /* set_unavailable() */
  /* The button's content: the model's name, or without one, an icon
   * where "Choose Model" has no room. */
  AdwSqueezer          *squeezer;
  GtkLabel             *name_label;
  GtkWidget            *name_box;
  GtkWidget            *icon_box;

  /* Template children */
  GtkMenuButton        *menu_button;
  GtkPopover           *popover;
  GtkStack             *stack;
  GtkSpinner           *spinner;
  GtkListBox           *list_box;
  GtkImage             *error_icon;
  GtkLabel             *error_title;
  GtkLabel             *error_description;
  GtkWidget            *refresh_button;
  GtkWidget            *fallback_button;
  GtkLabel             *current_heading;
  GtkListBox           *others_box;
};

G_DEFINE_FINAL_TYPE (NatterModelPicker, natter_model_picker, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_MODEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  MODEL_CHOSEN,
  FALLBACK_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_page (NatterModelPicker *self,
          const char        *page)
{
  if (!g_str_equal (page, "unreachable"))
    self->unknown = FALSE;
  gtk_stack_set_visible_child_name (self->stack, page);
  gtk_spinner_set_spinning (self->spinner, g_strcmp0 (page, "loading") == 0);
}

/* Appends @model's row to @box, from its template; the check marks the
 * current model, and only the current provider's list has one. @other is
 * the other provider whose list it is in, NULL in the current one's;
 * @note, if any, says under the name why it is listed. */
static void
append_model_row (GtkListBox *box,
                  const char *model,
                  gboolean    current,
                  Other      *other,
                  const char *note)
{
  g_autoptr(GtkBuilder) builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-model-picker-row.ui");
  GtkWidget *row = GTK_WIDGET (gtk_builder_get_object (builder, "row"));
  GtkWidget *check = GTK_WIDGET (gtk_builder_get_object (builder, "check"));
  GtkWidget *note_label = GTK_WIDGET (gtk_builder_get_object (builder, "note"));
  g_autofree char *shown = natter_visible_text (model, NATTER_VISIBLE_KEEP_NONE);

  /* The server's name, one line: a bidi override would turn it around. */
  gtk_label_set_text (GTK_LABEL (gtk_builder_get_object (builder, "label")), shown);
  gtk_label_set_text (GTK_LABEL (note_label), note != NULL ? note : "");
  gtk_widget_set_visible (note_label, note != NULL);
  gtk_widget_set_opacity (check, current ? 1.0 : 0.0);
  gtk_widget_set_visible (check, other == NULL);
  g_object_set_data_full (G_OBJECT (row), "model", g_strdup (model), g_free);
  /* Before it is in the list, whose header function reads them. */
  if (other != NULL)
    {
      g_object_set_data_full (G_OBJECT (row), "provider", g_strdup (natter_openai_provider_get_id (other->provider)),
                              g_free);
      g_object_set_data (G_OBJECT (row), "other", other);
    }
  gtk_widget_set_tooltip_text (row, model);
  /* GTK 4.8 names a list box row by nothing, and a check hidden by its
   * opacity is still read: a screen reader said "Current model" on
   * every row and no name. The row says its name, the note and whether
   * it is the current one; the check is for the eye only. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL, shown, -1);
  if (note != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, note, -1);
  if (other == NULL)
    gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_CHECKED,
                                 current ? GTK_ACCESSIBLE_TRISTATE_TRUE : GTK_ACCESSIBLE_TRISTATE_FALSE, -1);
  gtk_accessible_update_state (GTK_ACCESSIBLE (check), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
  gtk_list_box_append (box, row);
}

/* The current provider's models, the current one checked. A current
 * model the provider no longer lists (deleted from the server, renamed)
 * stays first, checked, with a word on why the next message may fail:
 * nothing checked would leave the person guessing what it goes to. */
static void
rebuild_rows (NatterModelPicker *self)
{
  GtkWidget *child;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->models));
  gboolean listed = FALSE;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box))) != NULL)
    gtk_list_box_remove (self->list_box, child);
  for (guint i = 0; i < n && !listed; i++)
    listed = g_strcmp0 (gtk_string_list_get_string (self->models, i), self->model) == 0;
  if (!listed && n > 0 && self->model != NULL && self->model[0] != '\0')
    append_model_row (self->list_box, self->model, TRUE, NULL, _("Not offered by this provider now"));
  for (guint i = 0; i < n; i++)
    {
      const char *model = gtk_string_list_get_string (self->models, i);

      append_model_row (self->list_box, model, g_strcmp0 (model, self->model) == 0, NULL, NULL);
    }
}

/* The name claims room for its first ten characters as the button's
 * minimum width: the header gives its title all it asks for beyond the
 * minimums at its sides, so a name that asked for less (or an icon in
 * its place) gave way to any long title. Ten characters fit beside the
 * title at GNOME's mobile width, 360 px; a longer name is cut in its
 * middle where it has no more room, which keeps its family and its size
 * ("qwen2…ruct"), and shows whole, up to 24 characters, where it has
 * (beside a title short enough to leave it that). A name of ten
 * characters or fewer is never cut: its least room is all of it, since
 * "ten characters" is counted in average widths and a short name of
 * wide letters ("m", "mmm") would lose its last ones to "…".
 * Without a model to name, "Choose Model" may give way to an icon:
 * cut to "Choo…odel" it would read as a fault. */
static void
update_width (NatterModelPicker *self)
{
  gboolean named = self->model != NULL && self->model[0] != '\0';
  int chars = (int) g_utf8_strlen (gtk_label_get_text (self->name_label), -1);

  gtk_label_set_width_chars (self->name_label, named ? MIN (chars, 10) : chars);
  gtk_label_set_ellipsize (self->name_label, named && chars <= 10 ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_MIDDLE);
  /* The squeezer asks as little room as its smallest visible child, and
   * shows the name as long as it has its least room (then cut in its
   * middle); "Choose Model" only while it has all of its room. */
  gtk_widget_set_visible (self->icon_box, !named);
  adw_squeezer_set_switch_threshold_policy (self->squeezer, named ? ADW_FOLD_THRESHOLD_POLICY_MINIMUM
                                                                  : ADW_FOLD_THRESHOLD_POLICY_NATURAL);
}

static void
update_button (NatterModelPicker *self)
{
  gboolean named = self->model != NULL && self->model[0] != '\0';
  g_autofree char *tooltip = NULL;
  g_autofree char *shown = natter_visible_text (self->model, NATTER_VISIBLE_KEEP_NONE);

  /* Two providers may each have a model of one name: the tooltip says
   * whose it is. */
  if (named && self->display_name != NULL && self->display_name[0] != '\0')
    /* Translators: the model picker's tooltip; the first %s is a model name, the second its provider's */
    tooltip = g_strdup_printf (_("Model for the Next Message: %s on %s"), shown, self->display_name);
  else if (named)
    /* Translators: the model picker's tooltip; %s is a model name */
    tooltip = g_strdup_printf (_("Model for the Next Message: %s"), shown);
  else
    tooltip = g_strdup (_("Model for the Next Message"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->menu_button), tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->menu_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  named ? shown : _("Choose Model"), -1);
  gtk_label_set_text (self->name_label, named ? shown : _("Choose Model"));
  update_width (self);
}

static void
show_problem (NatterModelPicker *self,
              const char        *icon_name,
              const char        *title,
              const char        *message)
{
  self->unknown = FALSE;
  gtk_image_set_from_icon_name (self->error_icon, icon_name);
  gtk_label_set_text (self->error_title, title);
  gtk_label_set_text (self->error_description, message);
  set_page (self, "unreachable");
}

static void
show_unreachable (NatterModelPicker *self,
                  const char        *message)
{
  g_autofree char *title = NULL;

  /* Translators: %s is the name of a model provider, e.g. "Ollama" */
  title = g_strdup_printf (_("Could not reach %s"),
                           self->display_name != NULL ? self->display_name : _("the provider"));
  show_problem (self, "network-offline-symbolic", title, message);
}

/* Shows @models as the list of the current provider. */
static void
show_listing (NatterModelPicker  *self,
              const char * const *models)
{
  gtk_string_list_splice (self->models, 0, g_list_model_get_n_items (G_LIST_MODEL (self->models)), models);
  rebuild_rows (self);
  set_page (self, models[0] != NULL ? "models" : "empty");
}

static char *
provider_key (NatterOpenaiProvider *provider)
{
  return g_strconcat (natter_openai_provider_get_id (provider), "\n",
                      natter_openai_provider_get_base_url (provider), NULL);
}

typedef struct
{
  NatterModelPicker *self;
  char              *key;
  GCancellable      *cancellable;
} Listing;

static void rebuild_others (NatterModelPicker *self);

static void
listing_free (Listing *listing)
{
  g_object_unref (listing->self);
  g_free (listing->key);
  g_object_unref (listing->cancellable);
  g_free (listing);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Listing, listing_free)

static void
models_listed_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(Listing) listing = user_data;
  NatterModelPicker *self = listing->self;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) models = NULL;
  gboolean current;

  models = natter_openai_provider_list_models_finish (NATTER_OPENAI_PROVIDER (source), result, &error);
  /* A Refresh replaced this listing, or the picker went away. */
  if (g_hash_table_lookup (self->fetching, listing->key) != listing->cancellable)
    return;
  g_hash_table_remove (self->fetching, listing->key);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  /* A failure is kept only to be shown: coming back to the provider
   * asks again. */
  if (models != NULL)
    g_hash_table_replace (self->listings, g_strdup (listing->key), g_strdupv (models));
  else
    g_hash_table_replace (self->failures, g_strdup (listing->key), g_strdup (error->message));
  current = g_strcmp0 (listing->key, self->provider_key) == 0;
  /* Disposed: nothing left to show it in. */
  if (self->stack == NULL)
    return;
  g_debug ("Listed %s: %s%s", natter_openai_provider_get_id (NATTER_OPENAI_PROVIDER (source)),
           models != NULL ? "ok" : error->message,
           current ? "" : " (not the open conversation's)");
  if (!current)
    {
      rebuild_others (self);
      return;
    }
  gtk_widget_set_sensitive (self->refresh_button, TRUE);
  if (models == NULL)
    show_unreachable (self, error->message);
  else
    show_listing (self, (const char * const *) models);
}

/* Asks @provider (cache key @key) for its models, replacing a listing
 * of it in flight. */
static void
fetch_listing (NatterModelPicker    *self,
               NatterOpenaiProvider *provider,
               const char           *key)
{
  Listing *listing = g_new0 (Listing, 1);

  g_cancellable_cancel (g_hash_table_lookup (self->fetching, key));
  g_hash_table_remove (self->failures, key);
  listing->self = g_object_ref (self);
  listing->key = g_strdup (key);
  listing->cancellable = g_cancellable_new ();
  g_hash_table_replace (self->fetching, g_strdup (key), g_object_ref (listing->cancellable));
  natter_openai_provider_list_models_async (provider, listing->cancellable, models_listed_cb, listing);
}

/* Asks the current provider for its models, replacing a listing of it
 * in flight; listings of other providers run on into the cache. */
static void
fetch (NatterModelPicker *self)
{
  g_assert (self->provider != NULL);
  gtk_widget_set_sensitive (self->refresh_button, FALSE);
  set_page (self, "loading");
  fetch_listing (self, self->provider, self->provider_key);
}

/* The other providers' sections: each provider's name, then its models,
 * or a line saying they are being listed or could not be. A provider
 * not asked yet shows nothing until the popover opens. */
static void
clear_others_box (NatterModelPicker *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_last_child (GTK_WIDGET (self->others_box))) != NULL)
    gtk_list_box_remove (self->others_box, child);
}

static void
rebuild_others (NatterModelPicker *self)
{
  clear_others_box (self);
  for (guint i = 0; i < self->others->len; i++)
    {
      Other *other = g_ptr_array_index (self->others, i);
      const char * const *listed = g_hash_table_lookup (self->listings, other->key);
      const char *failure = g_hash_table_lookup (self->failures, other->key);
      g_autoptr(GtkBuilder) builder = NULL;
      g_autofree char *note = NULL;
      GtkWidget *row;

      if (listed != NULL)
        {
          for (guint j = 0; listed[j] != NULL; j++)
            append_model_row (self->others_box, listed[j], FALSE, other, NULL);
          if (listed[0] != NULL)
            continue;
          note = g_strdup (_("No models"));
        }
      else if (g_hash_table_contains (self->fetching, other->key))
        note = g_strdup (_("Loading models…"));
      else if (failure != NULL)
        /* Why the models could not be listed says it in its own words
         * ("Could not reach Ollama at …"): a lead-in would say it twice. */
        note = g_strdup (failure);
      else
        continue;
      builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-model-picker-section.ui");
      row = GTK_WIDGET (gtk_builder_get_object (builder, "note"));
      gtk_label_set_text (GTK_LABEL (gtk_builder_get_object (builder, "note_label")), note);
      g_object_set_data (G_OBJECT (row), "other", other);
      gtk_list_box_append (self->others_box, row);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->others_box),
                          gtk_widget_get_first_child (GTK_WIDGET (self->others_box)) != NULL);
}

/* A provider's name above the first row of its section. */
static void
others_header_func (GtkListBoxRow *row,
                    GtkListBoxRow *before,
                    gpointer       user_data)
{
  Other *other = g_object_get_data (G_OBJECT (row), "other");
  g_autoptr(GtkBuilder) builder = NULL;
  GtkWidget *heading;

  if (other == NULL || (before != NULL && g_object_get_data (G_OBJECT (before), "other") == other))
    {
      gtk_list_box_row_set_header (row, NULL);
      return;
    }
  builder = gtk_builder_new_from_resource ("/io/github/natter/Natter/ui/natter-model-picker-section.ui");
  heading = GTK_WIDGET (gtk_builder_get_object (builder, "heading"));
  gtk_label_set_text (GTK_LABEL (heading), natter_openai_provider_get_display_name (other->provider));
  gtk_list_box_row_set_header (row, heading);
}

/* Asks each other provider not listed yet, nor being listed. */
static void
list_others (NatterModelPicker *self)
{
  for (guint i = 0; i < self->others->len; i++)
    {
      Other *other = g_ptr_array_index (self->others, i);

      if (!g_hash_table_contains (self->listings, other->key) && !g_hash_table_contains (self->fetching, other->key))
        fetch_listing (self, other->provider, other->key);
    }
  rebuild_others (self);
}

static void
update_current_heading (NatterModelPicker *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->current_heading), self->others->len > 0 && self->provider != NULL);
  gtk_label_set_text (self->current_heading, self->display_name != NULL ? self->display_name : "");
}

static void
forget_provider (NatterModelPicker *self)
{
  g_clear_object (&self->provider);
  g_clear_pointer (&self->provider_key, g_free);
  gtk_string_list_splice (self->models, 0, g_list_model_get_n_items (G_LIST_MODEL (self->models)), NULL);
  rebuild_rows (self);
}

static void
row_activated_cb (NatterModelPicker *self,
                  GtkListBoxRow     *row)
{
  natter_model_picker_choose (self, g_object_get_data (G_OBJECT (row), "model"));
  gtk_popover_popdown (self->popover);
}

static void
other_row_activated_cb (NatterModelPicker *self,
                        GtkListBoxRow     *row)
{
  const char *model = g_object_get_data (G_OBJECT (row), "model");

  if (model == NULL)
    return;
  gtk_popover_popdown (self->popover);
  natter_model_picker_choose_from (self, g_object_get_data (G_OBJECT (row), "provider"), model);
}

/* The arrow keys walk the popover top to bottom as it is drawn: the
 * current provider's models (or what its page offers in their place,
 * Preferences when the provider cannot be reached), the other
 * providers' models, then the buttons under the lists. GTK's own arrow
 * moves enter no list box from outside (a list box moves its rows with
 * its own keys), so Down from Preferences went past the other
 * providers' models to Refresh List, and Up from there back again. */
static void
add_rows (GPtrArray  *stops,
          GtkListBox *box)
{
  if (!gtk_widget_get_mapped (GTK_WIDGET (box)))
    return;
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (box));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row) && gtk_widget_get_mapped (row) &&
        gtk_list_box_row_get_activatable (GTK_LIST_BOX_ROW (row)))
      g_ptr_array_add (stops, row);
}

static void
add_buttons (GPtrArray *stops,
             GtkWidget *widget)
{
  if (!gtk_widget_get_mapped (widget) || !gtk_widget_is_sensitive (widget))
    return;
  if (GTK_IS_BUTTON (widget))
    {
      if (gtk_widget_get_focusable (widget))
        g_ptr_array_add (stops, widget);
      return;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    add_buttons (stops, child);
}

static GPtrArray *
arrow_stops (NatterModelPicker *self)
{
  GPtrArray *stops = g_ptr_array_new ();
  GtkWidget *page = gtk_stack_get_visible_child (self->stack);
  GtkWidget *lists = gtk_widget_get_ancestor (GTK_WIDGET (self->stack), GTK_TYPE_SCROLLED_WINDOW);

  if (page == GTK_WIDGET (self->list_box))
    add_rows (stops, self->list_box);
  else if (page != NULL)
    add_buttons (stops, page);
  add_rows (stops, self->others_box);
  for (GtkWidget *under = gtk_widget_get_next_sibling (lists); under != NULL; under = gtk_widget_get_next_sibling (under))
    add_buttons (stops, under);
  return stops;
}

static gboolean
popover_key_pressed_cb (GtkEventControllerKey *controller,
                        guint                  keyval,
                        guint                  keycode,
                        GdkModifierType        state,
                        NatterModelPicker     *self)
{
  g_autoptr(GPtrArray) stops = NULL;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  gboolean down;
  guint index;

  if ((state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return GDK_EVENT_PROPAGATE;
  if (keyval == GDK_KEY_Down || keyval == GDK_KEY_KP_Down)
    down = TRUE;
  else if (keyval == GDK_KEY_Up || keyval == GDK_KEY_KP_Up)
    down = FALSE;
  else
    return GDK_EVENT_PROPAGATE;
  stops = arrow_stops (self);
  if (focus == NULL || !g_ptr_array_find (stops, focus, &index))
    return GDK_EVENT_PROPAGATE;
  /* At either end the focus stays, as at the end of a list. */
  if (down ? index + 1 < stops->len : index > 0)
    gtk_widget_grab_focus (g_ptr_array_index (stops, down ? index + 1 : index - 1));
  return GDK_EVENT_STOP;
}

static void
refresh_clicked_cb (NatterModelPicker *self)
{
  natter_model_picker_refresh (self);
}

static void
popdown_clicked_cb (NatterModelPicker *self)
{
  gtk_popover_popdown (self->popover);
}

static void
fallback_clicked_cb (NatterModelPicker *self)
{
  g_signal_emit (self, signals[FALLBACK_ACTIVATED], 0);
}

/* Keyboard users land on the current model, not on the first row. */
static void
popover_show_cb (NatterModelPicker *self)
{
  list_others (self);
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->list_box));
       row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (g_strcmp0 (g_object_get_data (G_OBJECT (row), "model"), self->model) == 0)
      {
        gtk_widget_grab_focus (row);
        return;
      }
}

static void
natter_model_picker_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NatterModelPicker *self = NATTER_MODEL_PICKER (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_string (value, self->model);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_model_picker_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NatterModelPicker *self = NATTER_MODEL_PICKER (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      natter_model_picker_set_model (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_model_picker_dispose (GObject *object)
{
  NatterModelPicker *self = NATTER_MODEL_PICKER (object);

  GHashTableIter iter;
  gpointer cancellable;

  g_hash_table_iter_init (&iter, self->fetching);
  while (g_hash_table_iter_next (&iter, NULL, &cancellable))
    g_cancellable_cancel (cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), NATTER_TYPE_MODEL_PICKER);

  G_OBJECT_CLASS (natter_model_picker_parent_class)->dispose (object);
}

static void
natter_model_picker_finalize (GObject *object)
{
  NatterModelPicker *self = NATTER_MODEL_PICKER (object);

  g_clear_object (&self->provider);
  g_clear_object (&self->models);
  g_clear_pointer (&self->listings, g_hash_table_unref);
  g_clear_pointer (&self->fetching, g_hash_table_unref);
  g_clear_pointer (&self->failures, g_hash_table_unref);
  g_clear_pointer (&self->others, g_ptr_array_unref);
  g_clear_pointer (&self->provider_key, g_free);
  g_clear_pointer (&self->display_name, g_free);
  g_clear_pointer (&self->model, g_free);

  G_OBJECT_CLASS (natter_model_picker_parent_class)->finalize (object);
}

static void
natter_model_picker_class_init (NatterModelPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = natter_model_picker_get_property;
  object_class->set_property = natter_model_picker_set_property;
  object_class->dispose = natter_model_picker_dispose;
  object_class->finalize = natter_model_picker_finalize;

  /**
   * NatterModelPicker:model:
   *
   * The model shown on the button: the one the next message goes to.
   */
  properties[PROP_MODEL] =
    g_param_spec_string ("model", NULL, NULL, NULL,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterModelPicker::model-chosen:
   * @self: the picker
   * @provider_id: the id of the provider whose list @model is in: the
   *   current one's, or another's (natter_model_picker_set_others())
   * @model: the model the user chose
   *
   * The user picked @model in the list (not emitted by
   * natter_model_picker_set_model()).
   */
  signals[MODEL_CHOSEN] =
    g_signal_new ("model-chosen",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  /**
   * NatterModelPicker::fallback-activated:
   * @self: the picker
   *
   * The user asked for another provider's list with the button that
   * natter_model_picker_set_unavailable() offered.
   */
  signals[FALLBACK_ACTIVATED] =
    g_signal_new ("fallback-activated",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-model-picker.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, menu_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, popover);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, stack);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, spinner);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, list_box);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, error_icon);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, error_title);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, error_description);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, fallback_button);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, name_label);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, name_box);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, squeezer);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, icon_box);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, current_heading);
  gtk_widget_class_bind_template_child (widget_class, NatterModelPicker, others_box);
  gtk_widget_class_bind_template_callback (widget_class, row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, other_row_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, refresh_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, popdown_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, fallback_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, popover_show_cb);
  gtk_widget_class_set_css_name (widget_class, "natter-model-picker");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
natter_model_picker_init (NatterModelPicker *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));
  natter_accessible_plain_mnemonics (GTK_WIDGET (self));

  self->models = gtk_string_list_new (NULL);
  self->listings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_strfreev);
  self->fetching = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->failures = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->others = g_ptr_array_new_with_free_func ((GDestroyNotify) other_free);
  gtk_list_box_set_header_func (self->others_box, others_header_func, NULL, NULL);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (popover_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->popover), keys);
  update_button (self);
  show_unreachable (self, _("No model provider is configured."));
}

/**
 * natter_model_picker_new:
 *
 * Returns: (transfer floating): a picker without a provider
 */
GtkWidget *
natter_model_picker_new (void)
{
  return g_object_new (NATTER_TYPE_MODEL_PICKER, NULL);
}

/**
 * natter_model_picker_set_provider:
 * @self: the picker
 * @provider: (nullable): the provider of the open session's model
 *   (docs/runtime.md §12); %NULL shows that none is configured
 * @display_name: (nullable): its name for people, e.g. "Ollama"
 *
 * Shows @provider's models (`GET /models`). A provider listed before
 * (same id and base URL) shows its kept list at once without asking the
 * server; otherwise the popover shows a spinner until the list arrives,
 * and if the provider cannot be reached it says so and offers
 * Preferences (`app.preferences`). A listing of the previous provider
 * still in flight runs on into the cache.
 */
void
natter_model_picker_set_provider (NatterModelPicker    *self,
                                  NatterOpenaiProvider *provider,
                                  const char           *display_name)
{
  g_autofree char *key = NULL;
  const char * const *listed;

  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  g_return_if_fail (provider == NULL || NATTER_IS_OPENAI_PROVIDER (provider));

  gtk_widget_set_visible (self->fallback_button, FALSE);
  g_free (self->display_name);
  self->display_name = g_strdup (display_name);
  update_button (self);
  if (provider == NULL)
    {
      forget_provider (self);
      update_current_heading (self);
      gtk_widget_set_sensitive (self->refresh_button, FALSE);
      show_unreachable (self, _("No model provider is configured."));
      return;
    }

  key = provider_key (provider);
  if (g_strcmp0 (key, self->provider_key) != 0)
    forget_provider (self);
  g_set_object (&self->provider, provider);
  g_free (self->provider_key);
  self->provider_key = g_steal_pointer (&key);

  update_current_heading (self);
  listed = g_hash_table_lookup (self->listings, self->provider_key);
  if (g_hash_table_contains (self->fetching, self->provider_key))
    {
      gtk_widget_set_sensitive (self->refresh_button, FALSE);
      set_page (self, "loading");
    }
  else if (listed != NULL)
    {
      gtk_widget_set_sensitive (self->refresh_button, TRUE);
      show_listing (self, listed);
    }
  else
    {
      fetch (self);
    }
}

/**
 * natter_model_picker_set_unavailable:
 * @self: the picker
 * @title: what is wrong, e.g. "“work” Is Not Configured"
 * @message: why there is no provider to ask, and what to do
 * @fallback_label: (nullable): the label of a button offering another
 *   provider's list (#NatterModelPicker::fallback-activated); %NULL for
 *   none
 *
 * Shows the "unknown" state without asking any server: the model shown
 * stays, the list is empty, Refresh is off and Preferences is offered.
 */
void
natter_model_picker_set_unavailable (NatterModelPicker *self,
                                     const char        *title,
                                     const char        *message,
                                     const char        *fallback_label)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  g_return_if_fail (title != NULL);
  g_return_if_fail (message != NULL);

  forget_provider (self);
  g_clear_pointer (&self->display_name, g_free);
  update_current_heading (self);
  gtk_widget_set_sensitive (self->refresh_button, FALSE);
  gtk_widget_set_visible (self->fallback_button, fallback_label != NULL);
  if (fallback_label != NULL)
    gtk_button_set_label (GTK_BUTTON (self->fallback_button), fallback_label);
  show_problem (self, "dialog-question-symbolic", title, message);
  self->unknown = TRUE;
}

/**
 * natter_model_picker_refresh:
 * @self: the picker
 *
 * Lists the current provider's models again, whether or not a list is
 * kept (a listing of it in flight is cancelled); what the Refresh button
 * does; with the popover open, the other providers' lists shown in it
 * are asked for again too. Without a provider it does nothing.
 */
void
natter_model_picker_refresh (NatterModelPicker *self)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));

  if (self->provider == NULL)
    return;
  g_hash_table_remove (self->listings, self->provider_key);
  fetch (self);
  if (!gtk_widget_get_visible (GTK_WIDGET (self->popover)))
    return;
  for (guint i = 0; i < self->others->len; i++)
    g_hash_table_remove (self->listings, ((Other *) g_ptr_array_index (self->others, i))->key);
  list_others (self);
}

/**
 * natter_model_picker_models_changed:
 * @self: the picker
 * @provider_id: a provider whose server's models changed (a pull, a
 *   delete)
 *
 * Forgets the lists kept of @provider_id, whatever its base URL, and
 * lists it again at once when it is the one shown, so that a model just
 * pulled can be picked without a Refresh.
 */
void
natter_model_picker_models_changed (NatterModelPicker *self,
                                    const char        *provider_id)
{
  g_autofree char *prefix = NULL;
  GHashTableIter iter;
  gpointer key;

  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  g_return_if_fail (provider_id != NULL);

  prefix = g_strconcat (provider_id, "\n", NULL);
  g_hash_table_iter_init (&iter, self->listings);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, prefix))
      g_hash_table_iter_remove (&iter);
  if (self->provider != NULL && g_str_equal (natter_openai_provider_get_id (self->provider), provider_id))
    fetch (self);
  if (gtk_widget_get_visible (GTK_WIDGET (self->popover)))
    list_others (self);
  else
    rebuild_others (self);
}

/**
 * natter_model_picker_get_provider_id:
 * @self: the picker
 *
 * Returns: (nullable): the id of the provider whose list is shown (or
 *   being fetched), %NULL in the unknown state
 */
const char *
natter_model_picker_get_provider_id (NatterModelPicker *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), NULL);
  return self->provider != NULL ? natter_openai_provider_get_id (self->provider) : NULL;
}

/**
 * natter_model_picker_get_model:
 * @self: the picker
 *
 * Returns: (nullable): the model shown
 */
const char *
natter_model_picker_get_model (NatterModelPicker *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), NULL);
  return self->model;
}

/**
 * natter_model_picker_set_model:
 * @self: the picker
 * @model: (nullable): the model to show as current
 *
 * Shows @model on the button and marks it in the list; emits no
 * #NatterModelPicker::model-chosen.
 */
void
natter_model_picker_set_model (NatterModelPicker *self,
                               const char        *model)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));

  if (g_strcmp0 (self->model, model) == 0)
    return;
  g_free (self->model);
  self->model = g_strdup (model);
  update_button (self);
  rebuild_rows (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

/**
 * natter_model_picker_get_compact:
 * @self: the picker
 *
 * Returns: whether the button shows an icon instead of "Choose Model",
 *   as it does without a model to name where there is no room for the
 *   words; a model's name is never given up for the icon
 */
gboolean
natter_model_picker_get_compact (NatterModelPicker *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), FALSE);
  return adw_squeezer_get_visible_child (self->squeezer) == self->icon_box;
}

/**
 * natter_model_picker_set_others:
 * @self: the picker
 * @providers: (element-type NatterOpenaiProvider) (nullable): the
 *   configured providers other than the current one, in the order to
 *   list them; %NULL or empty for none
 *
 * Lists, below the current provider's models and each under its name,
 * the models of @providers, so that a model of another provider can be
 * picked (#NatterModelPicker::model-chosen names the provider). They
 * are asked for their models when the popover opens, once, and kept
 * like the current provider's list.
 */
void
natter_model_picker_set_others (NatterModelPicker *self,
                                GPtrArray         *providers)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));

  /* The rows point at the providers they list. */
  clear_others_box (self);
  g_ptr_array_set_size (self->others, 0);
  for (guint i = 0; providers != NULL && i < providers->len; i++)
    {
      Other *other = g_new0 (Other, 1);

      other->provider = g_object_ref (g_ptr_array_index (providers, i));
      other->key = provider_key (other->provider);
      g_ptr_array_add (self->others, other);
    }
  update_current_heading (self);
  if (gtk_widget_get_visible (GTK_WIDGET (self->popover)))
    list_others (self);
  else
    rebuild_others (self);
}

/**
 * natter_model_picker_get_other_models:
 * @self: the picker
 * @provider_id: one of the other providers (natter_model_picker_set_others())
 *
 * Returns: (transfer full) (nullable): the models listed under
 *   @provider_id, %NULL while it has not been listed (or failed)
 */
GStrv
natter_model_picker_get_other_models (NatterModelPicker *self,
                                      const char        *provider_id)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  for (guint i = 0; i < self->others->len; i++)
    {
      Other *other = g_ptr_array_index (self->others, i);

      if (g_str_equal (natter_openai_provider_get_id (other->provider), provider_id))
        return g_strdupv (g_hash_table_lookup (self->listings, other->key));
    }
  return NULL;
}

/**
 * natter_model_picker_get_models:
 * @self: the picker
 *
 * Returns: (transfer none): the listed model names (#GtkStringObject),
 *   in the provider's order; empty before the first listing
 */
GListModel *
natter_model_picker_get_models (NatterModelPicker *self)
{
  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), NULL);
  return G_LIST_MODEL (self->models);
}

/**
 * natter_model_picker_get_state:
 * @self: the picker
 *
 * Returns: what the popover shows: "loading", "models", "empty",
 *   "unreachable" (a provider that did not answer, or none at all) or
 *   "unknown" (natter_model_picker_set_unavailable())
 */
const char *
natter_model_picker_get_state (NatterModelPicker *self)
{
  const char *page;

  g_return_val_if_fail (NATTER_IS_MODEL_PICKER (self), NULL);

  page = gtk_stack_get_visible_child_name (self->stack);
  if (g_strcmp0 (page, "unreachable") == 0 && self->unknown)
    return "unknown";
  return page;
}

/**
 * natter_model_picker_popup:
 * @self: the picker
 *
 * Opens the list, as a click on the button does.
 */
void
natter_model_picker_popup (NatterModelPicker *self)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  gtk_menu_button_popup (self->menu_button);
}

/**
 * natter_model_picker_popdown:
 * @self: the picker
 *
 * Closes the list.
 */
void
natter_model_picker_popdown (NatterModelPicker *self)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  gtk_menu_button_popdown (self->menu_button);
}

/**
 * natter_model_picker_choose:
 * @self: the picker
 * @model: a model name
 *
 * What activating a row of the current provider's list does: makes
 * @model current and emits #NatterModelPicker::model-chosen. Without a
 * current provider (the unknown state) it does nothing.
 */
void
natter_model_picker_choose (NatterModelPicker *self,
                            const char        *model)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  g_return_if_fail (model != NULL);

  if (self->provider == NULL)
    return;
  natter_model_picker_set_model (self, model);
  g_signal_emit (self, signals[MODEL_CHOSEN], 0, natter_openai_provider_get_id (self->provider), model);
}

/**
 * natter_model_picker_choose_from:
 * @self: the picker
 * @provider_id: the provider whose list @model is in
 * @model: a model name
 *
 * What activating a row of another provider's list does: emits
 * #NatterModelPicker::model-chosen for @provider_id's @model. The
 * picker shows it once its owner points it at that provider
 * (natter_model_picker_set_provider()).
 */
void
natter_model_picker_choose_from (NatterModelPicker *self,
                                 const char        *provider_id,
                                 const char        *model)
{
  g_return_if_fail (NATTER_IS_MODEL_PICKER (self));
  g_return_if_fail (provider_id != NULL);
  g_return_if_fail (model != NULL);

  if (self->provider != NULL && g_str_equal (natter_openai_provider_get_id (self->provider), provider_id))
    {
      natter_model_picker_choose (self, model);
      return;
    }
  g_signal_emit (self, signals[MODEL_CHOSEN], 0, provider_id, model);
}
