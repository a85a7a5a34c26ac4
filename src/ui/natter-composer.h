/* natter-composer.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "natter-agent-chooser.h"

G_BEGIN_DECLS

#define NATTER_TYPE_COMPOSER (natter_composer_get_type ())

G_DECLARE_FINAL_TYPE (NatterComposer, natter_composer, NATTER, COMPOSER, GtkWidget)

/**
 * NatterComposerDictation:
 * @NATTER_COMPOSER_DICTATION_IDLE: not dictating
 * @NATTER_COMPOSER_DICTATION_RECORDING: recording what is said
 * @NATTER_COMPOSER_DICTATION_TRANSCRIBING: the recording is being made text
 *
 * What the composer's dictation is doing.
 */
typedef enum
{
  NATTER_COMPOSER_DICTATION_IDLE,
  NATTER_COMPOSER_DICTATION_RECORDING,
  NATTER_COMPOSER_DICTATION_TRANSCRIBING,
} NatterComposerDictation;

GtkWidget  *natter_composer_new                (void);
char       *natter_composer_dup_text           (NatterComposer *self);
void        natter_composer_set_text           (NatterComposer *self,
                                                const char     *text);
gboolean    natter_composer_is_empty           (NatterComposer *self);
gboolean    natter_composer_get_running        (NatterComposer *self);
void        natter_composer_set_running        (NatterComposer *self,
                                                gboolean        running);
const char *natter_composer_get_blocked_reason (NatterComposer *self);
void        natter_composer_set_blocked_reason (NatterComposer *self,
                                                const char     *reason);
const char *natter_composer_get_note           (NatterComposer *self);
void        natter_composer_set_note           (NatterComposer *self,
                                                const char     *note);
gboolean    natter_composer_send               (NatterComposer *self);
const char *natter_composer_get_placeholder    (NatterComposer *self);

NatterAgentChooser *natter_composer_get_agent_chooser (NatterComposer *self);

void        natter_composer_set_can_attach       (NatterComposer *self,
                                                  gboolean        can_attach);
void        natter_composer_set_attachment_limit (NatterComposer *self,
                                                  guint64         limit);
void        natter_composer_add_file             (NatterComposer *self,
                                                  GFile          *file);
void        natter_composer_add_texture          (NatterComposer *self,
                                                  GdkTexture     *texture);
guint       natter_composer_get_n_attachments    (NatterComposer *self);
GPtrArray  *natter_composer_take_attachments     (NatterComposer *self);
GPtrArray  *natter_composer_dup_attachments      (NatterComposer *self);
void        natter_composer_restore_attachments  (NatterComposer *self,
                                                  GPtrArray      *sources);
void        natter_composer_add_drop_target      (NatterComposer *self,
                                                  GtkWidget      *widget);

void        natter_composer_set_dictation          (NatterComposer          *self,
                                                    NatterComposerDictation  dictation);
NatterComposerDictation natter_composer_get_dictation (NatterComposer    *self);
void        natter_composer_set_dictation_progress (NatterComposer          *self,
                                                    double                   level,
                                                    guint                    seconds);
void        natter_composer_set_dictation_hint     (NatterComposer          *self,
                                                    const char              *hint);
void        natter_composer_insert_dictation       (NatterComposer          *self,
                                                    const char              *text);

G_END_DECLS
