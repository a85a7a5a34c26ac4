/* natter-settings.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/**
 * NATTER_SETTINGS_ERROR:
 *
 * The error domain of #NatterSettingsError.
 */
#define NATTER_SETTINGS_ERROR (natter_settings_error_quark ())

/**
 * NatterSettingsError:
 * @NATTER_SETTINGS_ERROR_INVALID_PROVIDER: an entry of the `providers`
 *   setting breaks natter_provider_config_validate()'s rules
 * @NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER: two entries share an id
 * @NATTER_SETTINGS_ERROR_INVALID_TYPE: a value is not of the type
 *   `a(sss)`
 *
 * Why a `providers` value was refused.
 */
typedef enum
{
  NATTER_SETTINGS_ERROR_INVALID_PROVIDER,
  NATTER_SETTINGS_ERROR_DUPLICATE_PROVIDER,
  NATTER_SETTINGS_ERROR_INVALID_TYPE,
} NatterSettingsError;

GQuark natter_settings_error_quark (void);

/**
 * NatterProviderConfig:
 * @id: the id model descriptors name it by
 * @name: the name shown to the user
 * @base_url: the API root, e.g. "http://localhost:11434/v1"
 *
 * One entry `(id, name, base URL)` of the `providers` setting.
 */
typedef struct
{
  char *id;
  char *name;
  char *base_url;
} NatterProviderConfig;

#define NATTER_TYPE_PROVIDER_CONFIG (natter_provider_config_get_type ())

GType                 natter_provider_config_get_type (void) G_GNUC_CONST;
NatterProviderConfig *natter_provider_config_new      (const char                 *id,
                                                       const char                 *name,
                                                       const char                 *base_url);
NatterProviderConfig *natter_provider_config_copy     (const NatterProviderConfig *config);
void                  natter_provider_config_free     (NatterProviderConfig       *config);
gboolean              natter_provider_config_validate (const NatterProviderConfig *config,
                                                       GError                    **error);
gboolean              natter_provider_base_url_is_valid (const char               *base_url);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NatterProviderConfig, natter_provider_config_free)

GPtrArray            *natter_settings_decode_providers (GVariant                  *value,
                                                        GError                   **error);
GVariant             *natter_settings_encode_providers (GPtrArray                 *providers,
                                                        GError                   **error);

#define NATTER_TYPE_SETTINGS (natter_settings_get_type ())

G_DECLARE_FINAL_TYPE (NatterSettings, natter_settings, NATTER, SETTINGS, GObject)

NatterSettings *natter_settings_new                (GSettings       *settings);
NatterSettings *natter_settings_new_default        (void);
GSettings      *natter_settings_get_gsettings      (NatterSettings  *self);

GVariant       *natter_settings_get_providers      (NatterSettings  *self);
GPtrArray      *natter_settings_dup_providers      (NatterSettings  *self);
GPtrArray      *natter_settings_dup_usable_providers (NatterSettings *self);
gboolean        natter_settings_set_providers      (NatterSettings  *self,
                                                    GPtrArray       *providers,
                                                    GError         **error);

const char     *natter_settings_get_default_provider (NatterSettings *self);
char           *natter_settings_dup_effective_provider (NatterSettings *self);
void            natter_settings_set_default_provider (NatterSettings *self,
                                                      const char     *provider_id);
const char     *natter_settings_get_default_model  (NatterSettings  *self);
void            natter_settings_set_default_model  (NatterSettings  *self,
                                                    const char      *model);
guint           natter_settings_get_max_model_calls (NatterSettings *self);
guint64         natter_settings_get_attachment_size_limit (NatterSettings *self);
gboolean        natter_settings_get_auto_permission (NatterSettings *self);
gboolean        natter_settings_get_auto_title      (NatterSettings *self);
gboolean        natter_settings_get_auto_compact    (NatterSettings *self);
guint           natter_settings_get_context_window  (NatterSettings *self,
                                                     const char     *provider,
                                                     const char     *model);
void            natter_settings_set_context_window  (NatterSettings *self,
                                                     const char     *provider,
                                                     const char     *model,
                                                     guint           tokens);
char           *natter_settings_dup_transcription_model (NatterSettings *self,
                                                         const char     *provider);
void            natter_settings_set_transcription_model (NatterSettings *self,
                                                         const char     *provider,
                                                         const char     *model);
gboolean        natter_settings_dup_recent_model   (NatterSettings  *self,
                                                    char           **provider,
                                                    char           **model,
                                                    char           **at);
void            natter_settings_set_recent_model   (NatterSettings  *self,
                                                    const char      *provider,
                                                    const char      *model,
                                                    const char      *at);
gboolean        natter_settings_adopt_first_provider (NatterSettings *self,
                                                      const char     *provider_id,
                                                      gboolean        model_used);
const char     *natter_settings_get_last_session   (NatterSettings  *self);
void            natter_settings_set_last_session   (NatterSettings  *self,
                                                    const char      *session_id);
void            natter_settings_get_window_size    (NatterSettings  *self,
                                                    int             *width,
                                                    int             *height,
                                                    gboolean        *maximized);
void            natter_settings_set_window_size    (NatterSettings  *self,
                                                    int              width,
                                                    int              height,
                                                    gboolean         maximized);

G_END_DECLS
