/* natter-types.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Forward type declarations and the enums of the core layers (store,
 * runtime, sessions). Enums here are registered with GType by
 * gnome.mkenums_simple into natter-enum-types.h.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/**
 * NatterStoreError:
 * @NATTER_STORE_ERROR_INVALID_ID: an id does not match the strict id
 *   pattern (path-like, wrong date, wrong length, …); nothing was touched
 *   on disk.
 * @NATTER_STORE_ERROR_NOT_FOUND: no file exists for the id.
 * @NATTER_STORE_ERROR_EXISTS: `create` found a file already there.
 * @NATTER_STORE_ERROR_IO: the file system refused an operation.
 * @NATTER_STORE_ERROR_MALFORMED: a line is not valid UTF-8 or not JSON.
 * @NATTER_STORE_ERROR_NOT_LOSSLESS: a value cannot be stored losslessly
 *   (NaN/Infinity, invalid UTF-8, or JSON that does not round-trip to the
 *   exact canonical line).
 * @NATTER_STORE_ERROR_SCHEMA: an event lacks a required field, has a
 *   field of the wrong type, a value outside its enum, or the wrong owner
 *   id.
 * @NATTER_STORE_ERROR_UNKNOWN_TYPE: an event `type` that this version
 *   does not know.
 * @NATTER_STORE_ERROR_UNSUPPORTED_VERSION: a `schemaVersion` other than 1.
 * @NATTER_STORE_ERROR_INVARIANT: a reducer invariant is violated by an
 *   otherwise well-formed event sequence.
 * @NATTER_STORE_ERROR_CORRUPT: a file on disk is unreadable as a log:
 *   empty, a malformed or torn line, or a line failing its schema. The
 *   message names the file and the 1-based line.
 * @NATTER_STORE_ERROR_TOO_DEEP: JSON from outside (a file, a body, a
 *   message) nests deeper than %NATTER_JSON_MAX_DEPTH; it was refused
 *   before it was parsed (natter_json_parse()).
 * @NATTER_STORE_ERROR_NOT_ARRIVED: no file exists for the id, in a data
 *   folder a synchroniser shares: a log names it, and it has not arrived
 *   from another device yet (docs/format.md §9.3). Not damage.
 *
 * Error codes of %NATTER_STORE_ERROR, the store layer's error domain
 * (docs/runtime.md §2–§4, docs/sessions.md §6, docs/format.md §2).
 */
typedef enum
{
  NATTER_STORE_ERROR_INVALID_ID,
  NATTER_STORE_ERROR_NOT_FOUND,
  NATTER_STORE_ERROR_EXISTS,
  NATTER_STORE_ERROR_IO,
  NATTER_STORE_ERROR_MALFORMED,
  NATTER_STORE_ERROR_NOT_LOSSLESS,
  NATTER_STORE_ERROR_SCHEMA,
  NATTER_STORE_ERROR_UNKNOWN_TYPE,
  NATTER_STORE_ERROR_UNSUPPORTED_VERSION,
  NATTER_STORE_ERROR_INVARIANT,
  NATTER_STORE_ERROR_CORRUPT,
  NATTER_STORE_ERROR_TOO_DEEP,
  NATTER_STORE_ERROR_NOT_ARRIVED,
} NatterStoreError;

/**
 * NatterTurnStatus:
 * @NATTER_TURN_STATUS_IDLE: non-terminal and not suspended: interrupted
 *   (by a crash) or never advanced.
 * @NATTER_TURN_STATUS_SUSPENDED: resting on a suspension with outstanding
 *   external work (permissions or async tools).
 * @NATTER_TURN_STATUS_COMPLETED: `turn_completed` was written.
 * @NATTER_TURN_STATUS_FAILED: `turn_failed` was written.
 * @NATTER_TURN_STATUS_CANCELLED: `turn_cancelled` was written.
 *
 * The one status derivation of docs/runtime.md §4 (derive_turn_status).
 * "Running" is never durable and so is not a value here.
 */
typedef enum
{
  NATTER_TURN_STATUS_IDLE,
  NATTER_TURN_STATUS_SUSPENDED,
  NATTER_TURN_STATUS_COMPLETED,
  NATTER_TURN_STATUS_FAILED,
  NATTER_TURN_STATUS_CANCELLED,
} NatterTurnStatus;

typedef struct _NatterClock         NatterClock;
typedef struct _NatterIdGenerator   NatterIdGenerator;
typedef struct _NatterKeyedMutex    NatterKeyedMutex;
typedef struct _NatterLockGuard     NatterLockGuard;
typedef struct _NatterJsonlRepo     NatterJsonlRepo;
typedef struct _NatterTurnState     NatterTurnState;
typedef struct _NatterSessionState  NatterSessionState;

G_END_DECLS
