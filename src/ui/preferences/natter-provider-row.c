/* natter-provider-row.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One model provider in Preferences: an expander whose title is the
 * provider's name and subtitle its base URL, with rows to edit both, to
 * enter an API key (never shown once stored: only whether one is) and
 * to test the connection. The row changes nothing itself: it says what
 * the user asked for through its signals, and whoever owns the settings
 * and the keyring answers (and updates the row's properties).
 */

#define G_LOG_DOMAIN "natter-provider-row"

#include "config.h"

#include <glib/gi18n.h>

#include "natter-provider-row.h"

struct _NatterProviderRow
{
  AdwExpanderRow  parent_instance;

  char           *provider_id;
  char           *name;
  char           *base_url;
  gboolean        key_stored;
  gboolean        testing;

  /* Template widgets */
  AdwEntryRow    *name_row;
  AdwEntryRow    *url_row;
  AdwEntryRow    *transcription_row;
  AdwEntryRow    *key_row;
  GtkWidget      *stored_label;
  GtkWidget      *forget_button;
  GtkWidget      *test_button;
  GtkWidget      *models_button;
  GtkWidget      *remove_button;
};

G_DEFINE_FINAL_TYPE (NatterProviderRow, natter_provider_row, ADW_TYPE_EXPANDER_ROW)

enum {
  PROP_0,
  PROP_PROVIDER_ID,
  PROP_NAME,
  PROP_BASE_URL,
  PROP_KEY_STORED,
  PROP_TESTING,
  N_PROPS
};

enum {
  SIGNAL_APPLY_NAME,
  SIGNAL_APPLY_URL,
  SIGNAL_APPLY_TRANSCRIPTION_MODEL,
  SIGNAL_APPLY_KEY,
  SIGNAL_FORGET_KEY,
  SIGNAL_TEST,
  SIGNAL_MANAGE_MODELS,
  SIGNAL_REMOVE,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static char *
stripped_text (AdwEntryRow *entry)
{
  return g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (entry))));
}

static void
name_applied_cb (NatterProviderRow *self)
{
  g_autofree char *name = stripped_text (self->name_row);

  g_signal_emit (self, signals[SIGNAL_APPLY_NAME], 0, name);
}

static void
url_applied_cb (NatterProviderRow *self)
{
  g_autofree char *url = stripped_text (self->url_row);

  g_signal_emit (self, signals[SIGNAL_APPLY_URL], 0, url);
}

static void
transcription_applied_cb (NatterProviderRow *self)
{
  g_autofree char *model = stripped_text (self->transcription_row);

  g_signal_emit (self, signals[SIGNAL_APPLY_TRANSCRIPTION_MODEL], 0, model);
}

static void
key_applied_cb (NatterProviderRow *self)
{
  const char *key = gtk_editable_get_text (GTK_EDITABLE (self->key_row));

  if (key[0] != '\0')
    g_signal_emit (self, signals[SIGNAL_APPLY_KEY], 0, key);
}

static void
forget_clicked_cb (NatterProviderRow *self)
{
  g_signal_emit (self, signals[SIGNAL_FORGET_KEY], 0);
}

static void
models_clicked_cb (NatterProviderRow *self)
{
  g_signal_emit (self, signals[SIGNAL_MANAGE_MODELS], 0);
}

static void
test_clicked_cb (NatterProviderRow *self)
{
  g_signal_emit (self, signals[SIGNAL_TEST], 0);
}

static void
remove_clicked_cb (NatterProviderRow *self)
{
  g_signal_emit (self, signals[SIGNAL_REMOVE], 0);
}

static void
natter_provider_row_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  NatterProviderRow *self = NATTER_PROVIDER_ROW (object);

  switch (prop_id)
    {
    case PROP_PROVIDER_ID: g_value_set_string (value, self->provider_id); break;
    case PROP_NAME: g_value_set_string (value, self->name); break;
    case PROP_BASE_URL: g_value_set_string (value, self->base_url); break;
    case PROP_KEY_STORED: g_value_set_boolean (value, self->key_stored); break;
    case PROP_TESTING: g_value_set_boolean (value, self->testing); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_provider_row_set_property (GObject      *object,
                                  guint         prop_id,
                                  const GValue *value,
                                  GParamSpec   *pspec)
{
  NatterProviderRow *self = NATTER_PROVIDER_ROW (object);

  switch (prop_id)
    {
    case PROP_PROVIDER_ID: self->provider_id = g_value_dup_string (value); break;
    case PROP_NAME: natter_provider_row_set_name (self, g_value_get_string (value)); break;
    case PROP_BASE_URL: natter_provider_row_set_base_url (self, g_value_get_string (value)); break;
    case PROP_KEY_STORED: natter_provider_row_set_key_stored (self, g_value_get_boolean (value)); break;
    case PROP_TESTING: natter_provider_row_set_testing (self, g_value_get_boolean (value)); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
natter_provider_row_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), NATTER_TYPE_PROVIDER_ROW);

  G_OBJECT_CLASS (natter_provider_row_parent_class)->dispose (object);
}

static void
natter_provider_row_finalize (GObject *object)
{
  NatterProviderRow *self = NATTER_PROVIDER_ROW (object);

  g_free (self->provider_id);
  g_free (self->name);
  g_free (self->base_url);

  G_OBJECT_CLASS (natter_provider_row_parent_class)->finalize (object);
}

static void
natter_provider_row_class_init (NatterProviderRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = natter_provider_row_get_property;
  object_class->set_property = natter_provider_row_set_property;
  object_class->dispose = natter_provider_row_dispose;
  object_class->finalize = natter_provider_row_finalize;

  /** NatterProviderRow:provider-id: the id of the provider shown */
  properties[PROP_PROVIDER_ID] =
    g_param_spec_string ("provider-id", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /** NatterProviderRow:name: the stored name, the row's title */
  properties[PROP_NAME] = g_param_spec_string ("name", NULL, NULL, "", flags);
  /** NatterProviderRow:base-url: the stored base URL, the row's subtitle */
  properties[PROP_BASE_URL] = g_param_spec_string ("base-url", NULL, NULL, "", flags);
  /** NatterProviderRow:key-stored: whether the keyring holds a key for it */
  properties[PROP_KEY_STORED] = g_param_spec_boolean ("key-stored", NULL, NULL, FALSE, flags);
  /** NatterProviderRow:testing: whether a connection test runs (its button is then off) */
  properties[PROP_TESTING] = g_param_spec_boolean ("testing", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NatterProviderRow::apply-name:
   * @self: the row
   * @name: the name entered, without surrounding blanks (maybe "")
   *
   * The user applied a new name.
   */
  signals[SIGNAL_APPLY_NAME] = g_signal_new ("apply-name", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                             NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterProviderRow::apply-url:
   * @self: the row
   * @base_url: the base URL entered, without surrounding blanks
   *
   * The user applied a new base URL (not yet checked).
   */
  signals[SIGNAL_APPLY_URL] = g_signal_new ("apply-url", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                            NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterProviderRow::apply-transcription-model:
   * @self: the row
   * @model: the model entered, without surrounding blanks ("" forgets it)
   *
   * The user applied the model dictation is transcribed with
   * (docs/runtime.md §14).
   */
  signals[SIGNAL_APPLY_TRANSCRIPTION_MODEL] =
    g_signal_new ("apply-transcription-model", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterProviderRow::apply-key:
   * @self: the row
   * @key: the API key entered, never ""
   *
   * The user asked to store an API key.
   */
  signals[SIGNAL_APPLY_KEY] = g_signal_new ("apply-key", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                            NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /**
   * NatterProviderRow::forget-key:
   * @self: the row
   *
   * The user asked to remove the stored API key.
   */
  signals[SIGNAL_FORGET_KEY] = g_signal_new ("forget-key", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                             NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterProviderRow::test:
   * @self: the row
   *
   * The user asked to test the connection with what the row shows
   * (natter_provider_row_dup_entered_url(), the entered key).
   */
  signals[SIGNAL_TEST] = g_signal_new ("test", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                       NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterProviderRow::manage-models:
   * @self: the row
   *
   * The user asked to see the models on the provider's server, as it
   * is saved (docs/runtime.md §13).
   */
  signals[SIGNAL_MANAGE_MODELS] = g_signal_new ("manage-models", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                                NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * NatterProviderRow::remove:
   * @self: the row
   *
   * The user asked to remove the provider.
   */
  signals[SIGNAL_REMOVE] = g_signal_new ("remove", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/natter/Natter/ui/natter-provider-row.ui");
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, name_row);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, url_row);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, transcription_row);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, key_row);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, stored_label);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, forget_button);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, test_button);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, models_button);
  gtk_widget_class_bind_template_child (widget_class, NatterProviderRow, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, name_applied_cb);
  gtk_widget_class_bind_template_callback (widget_class, url_applied_cb);
  gtk_widget_class_bind_template_callback (widget_class, transcription_applied_cb);
  gtk_widget_class_bind_template_callback (widget_class, key_applied_cb);
  gtk_widget_class_bind_template_callback (widget_class, forget_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, test_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, models_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, remove_clicked_cb);
}

static void
natter_provider_row_init (NatterProviderRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->name = g_strdup ("");
  self->base_url = g_strdup ("");
  /* A refused value stays marked until it is edited. */
  g_signal_connect (self->url_row, "changed", G_CALLBACK (gtk_widget_remove_css_class), (gpointer) "error");
  g_signal_connect (self->key_row, "changed", G_CALLBACK (gtk_widget_remove_css_class), (gpointer) "error");
}

/**
 * natter_provider_row_new:
 * @config: the provider, as stored
 *
 * Returns: (transfer floating): a collapsed row showing @config, its
 *   name and URL entries filled in, no key stored
 */
NatterProviderRow *
natter_provider_row_new (const NatterProviderConfig *config)
{
  NatterProviderRow *self;

  g_return_val_if_fail (config != NULL, NULL);

  self = g_object_new (NATTER_TYPE_PROVIDER_ROW, "provider-id", config->id, NULL);
  /* Named once constructed: during construction the notifications wait
   * and then run newest first, so AdwExpanderRow would hand the title to
   * its header before "use-markup" FALSE, and parse the name as markup. */
  natter_provider_row_set_name (self, config->name);
  natter_provider_row_set_base_url (self, config->base_url);
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), config->name);
  gtk_editable_set_text (GTK_EDITABLE (self->url_row), config->base_url);
  return self;
}

/**
 * natter_provider_row_get_provider_id:
 * @self: the row
 *
 * Returns: (transfer none): the id of the provider shown
 */
const char *
natter_provider_row_get_provider_id (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return self->provider_id;
}

/**
 * natter_provider_row_get_name:
 * @self: the row
 *
 * Returns: (transfer none): #NatterProviderRow:name
 */
const char *
natter_provider_row_get_name (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return self->name;
}

/**
 * natter_provider_row_set_name:
 * @self: the row
 * @name: the stored name
 *
 * Shows @name as the row's title (the entry keeps what was typed).
 */
void
natter_provider_row_set_name (NatterProviderRow *self,
                              const char        *name)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));

  if (name == NULL)
    name = "";
  if (g_strcmp0 (self->name, name) == 0)
    return;
  g_free (self->name);
  self->name = g_strdup (name);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self), name);
  /* With two providers, two "Remove Provider" buttons would not say
   * which one they remove to someone who cannot see the row. */
  if (name[0] != '\0')
    {
      /* Translators: %s is the name the person gave a provider */
      g_autofree char *label = g_strdup_printf (_("Remove “%s”"), name);

      gtk_accessible_update_property (GTK_ACCESSIBLE (self->remove_button), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    }
  else
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->remove_button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    _("Remove Provider"), -1);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NAME]);
}

/**
 * natter_provider_row_get_base_url:
 * @self: the row
 *
 * Returns: (transfer none): #NatterProviderRow:base-url
 */
const char *
natter_provider_row_get_base_url (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return self->base_url;
}

/**
 * natter_provider_row_set_transcription_model:
 * @self: the row
 * @model: (nullable): the provider's transcription model, or %NULL
 *
 * Fills in the transcription model's entry.
 */
void
natter_provider_row_set_transcription_model (NatterProviderRow *self,
                                             const char        *model)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));

  gtk_editable_set_text (GTK_EDITABLE (self->transcription_row), model != NULL ? model : "");
}

/**
 * natter_provider_row_set_base_url:
 * @self: the row
 * @base_url: the stored base URL
 *
 * Shows @base_url as the row's subtitle.
 */
void
natter_provider_row_set_base_url (NatterProviderRow *self,
                                  const char        *base_url)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));

  if (base_url == NULL)
    base_url = "";
  if (g_strcmp0 (self->base_url, base_url) == 0)
    return;
  g_free (self->base_url);
  self->base_url = g_strdup (base_url);
  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (self), base_url);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BASE_URL]);
}

/**
 * natter_provider_row_get_key_stored:
 * @self: the row
 *
 * Returns: #NatterProviderRow:key-stored
 */
gboolean
natter_provider_row_get_key_stored (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), FALSE);
  return self->key_stored;
}

/**
 * natter_provider_row_set_key_stored:
 * @self: the row
 * @key_stored: whether the keyring holds a key for the provider
 *
 * Says so next to the key entry, offers to remove it, and titles the
 * entry "Replace API Key".
 */
void
natter_provider_row_set_key_stored (NatterProviderRow *self,
                                    gboolean           key_stored)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));

  key_stored = !!key_stored;
  gtk_widget_set_visible (self->stored_label, key_stored);
  gtk_widget_set_visible (self->forget_button, key_stored);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->key_row),
                                 key_stored ? _("Replace API Key") : _("API Key"));
  if (self->key_stored == key_stored)
    return;
  self->key_stored = key_stored;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_KEY_STORED]);
}

/**
 * natter_provider_row_get_testing:
 * @self: the row
 *
 * Returns: #NatterProviderRow:testing
 */
gboolean
natter_provider_row_get_testing (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), FALSE);
  return self->testing;
}

/**
 * natter_provider_row_set_testing:
 * @self: the row
 * @testing: whether a connection test runs
 *
 * Turns the Test button off while one runs.
 */
void
natter_provider_row_set_testing (NatterProviderRow *self,
                                 gboolean           testing)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));

  testing = !!testing;
  if (self->testing == testing)
    return;
  self->testing = testing;
  gtk_widget_set_sensitive (self->test_button, !testing);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TESTING]);
}

/**
 * natter_provider_row_get_entered_key:
 * @self: the row
 *
 * Returns: (transfer none): the key typed and not yet stored, maybe ""
 */
const char *
natter_provider_row_get_entered_key (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->key_row));
}

/**
 * natter_provider_row_dup_entered_url:
 * @self: the row
 *
 * Returns: (transfer full): the base URL in the entry, without
 *   surrounding blanks (applied or not)
 */
char *
natter_provider_row_dup_entered_url (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return stripped_text (self->url_row);
}

/**
 * natter_provider_row_get_entered_name:
 * @self: the row
 *
 * Returns: (transfer none): the name in the entry (applied or not)
 */
const char *
natter_provider_row_get_entered_name (NatterProviderRow *self)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);
  return gtk_editable_get_text (GTK_EDITABLE (self->name_row));
}

/**
 * natter_provider_row_clear_entered_key:
 * @self: the row
 *
 * Empties the key entry, once the key is stored.
 */
void
natter_provider_row_clear_entered_key (NatterProviderRow *self)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));
  gtk_editable_set_text (GTK_EDITABLE (self->key_row), "");
}

/**
 * natter_provider_row_set_refused:
 * @self: the row
 * @part: "url" or "key"
 * @refused: whether the value in that entry was refused (not a URL, a
 *   key no keyring took)
 *
 * Marks the entry with the `error` style while what it shows is not
 * what is stored; the next edit clears the mark. The entry keeps the
 * value, for the person to correct it.
 */
void
natter_provider_row_set_refused (NatterProviderRow *self,
                                 const char        *part,
                                 gboolean           refused)
{
  GtkWidget *entry;

  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));
  g_return_if_fail (g_strcmp0 (part, "url") == 0 || g_strcmp0 (part, "key") == 0);

  entry = g_str_equal (part, "url") ? GTK_WIDGET (self->url_row) : GTK_WIDGET (self->key_row);
  if (refused)
    gtk_widget_add_css_class (entry, "error");
  else
    gtk_widget_remove_css_class (entry, "error");
}

/**
 * natter_provider_row_focus_name:
 * @self: the row
 *
 * Opens the row and puts the focus on the name, for a new provider.
 */
void
natter_provider_row_focus_name (NatterProviderRow *self)
{
  g_return_if_fail (NATTER_IS_PROVIDER_ROW (self));
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (self), TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->name_row));
}

/**
 * natter_provider_row_get_part:
 * @self: the row
 * @part: "name", "url", "key", "test", "models", "remove" or "forget"
 *
 * For tests, which drive the row as a user would.
 *
 * Returns: (transfer none): the widget
 */
GtkWidget *
natter_provider_row_get_part (NatterProviderRow *self,
                              const char        *part)
{
  g_return_val_if_fail (NATTER_IS_PROVIDER_ROW (self), NULL);

  if (g_str_equal (part, "name"))
    return GTK_WIDGET (self->name_row);
  if (g_str_equal (part, "url"))
    return GTK_WIDGET (self->url_row);
  if (g_str_equal (part, "key"))
    return GTK_WIDGET (self->key_row);
  if (g_str_equal (part, "test"))
    return self->test_button;
  if (g_str_equal (part, "models"))
    return self->models_button;
  if (g_str_equal (part, "remove"))
    return self->remove_button;
  if (g_str_equal (part, "forget"))
    return self->forget_button;
  g_return_val_if_reached (NULL);
}
