/* natter-session-error.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NATTER_SESSION_ERROR:
 *
 * The error domain of the session layer (src/sessions/). Errors of the
 * layers below (%NATTER_STORE_ERROR, %NATTER_RUNTIME_ERROR) pass through
 * unchanged unless a code below says otherwise.
 */
#define NATTER_SESSION_ERROR (natter_session_error_quark ())

/**
 * NatterSessionError:
 * @NATTER_SESSION_ERROR_TURN_NOT_SETTLED: the session's latest turn is
 *   not terminal — running (a live advance of this service), suspended or
 *   idle — so a new message is refused (docs/sessions.md §9.1 step 2,
 *   the spec's `TurnNotSettledError`); also a fork from a turn that has
 *   not settled
 * @NATTER_SESSION_ERROR_NOT_FOUND: no such session (or, for a fork, no
 *   such turn in the parent session)
 * @NATTER_SESSION_ERROR_CORRUPT: the session file or its latest turn
 *   file failed strict validation or reduction; the message carries the
 *   store's text. Such a session is excluded from interaction
 *   (docs/sessions.md §8.2).
 * @NATTER_SESSION_ERROR_LOCKED: the data directory is held by another
 *   Natter process (the single-writer lock, docs/sessions.md §8.3)
 * @NATTER_SESSION_ERROR_INVALID_ARGUMENT: a caller error: an invalid
 *   `cwd`, a fork point without a parent, resuming a turn that is not
 *   idle, a session with no turn to resume
 * @NATTER_SESSION_ERROR_INVALID_ARCHIVE: a file given to an import (a
 *   Natter archive or another program's export) is damaged or not what it
 *   claims to be; the message names what is wrong, and nothing was written
 * @NATTER_SESSION_ERROR_HISTORY_DAMAGED: a message was refused because
 *   the history it would continue cannot be read in full (an earlier
 *   turn's file is damaged or missing); the message names the file. No
 *   turn is made: a shortened history is never sent. The way out is a
 *   copy of the readable part (natter_sessions_recover_async()).
 * @NATTER_SESSION_ERROR_READ_ONLY: the session is another device's
 *   copy of a conversation, kept by a file synchroniser and read as a
 *   version of it (docs/format.md §9): it is only read, never written
 * @NATTER_SESSION_ERROR_ARRIVING: a turn the session names has not
 *   arrived from another device yet (docs/format.md §9.3); a message
 *   that would build on it waits until it has. Not damage: the same
 *   request succeeds once the file is there.
 *
 * Error codes of %NATTER_SESSION_ERROR.
 */
typedef enum
{
  NATTER_SESSION_ERROR_TURN_NOT_SETTLED,
  NATTER_SESSION_ERROR_NOT_FOUND,
  NATTER_SESSION_ERROR_CORRUPT,
  NATTER_SESSION_ERROR_LOCKED,
  NATTER_SESSION_ERROR_INVALID_ARGUMENT,
  NATTER_SESSION_ERROR_INVALID_ARCHIVE,
  NATTER_SESSION_ERROR_HISTORY_DAMAGED,
  NATTER_SESSION_ERROR_READ_ONLY,
  NATTER_SESSION_ERROR_ARRIVING,
} NatterSessionError;

GQuark natter_session_error_quark (void);

G_END_DECLS
