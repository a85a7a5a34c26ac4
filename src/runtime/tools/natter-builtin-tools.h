/* natter-builtin-tools.h
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The tools Natter ships (docs/runtime.md §8): ask_human, read_file,
 * list_directory, current_time. One type per file
 * (natter-tool-<name>.c); this header names them and registers them.
 */

#pragma once

#include "natter-clock.h"
#include "natter-file-tool.h"
#include "natter-tool-registry.h"

G_BEGIN_DECLS

#define NATTER_TOOL_ID_ASK_HUMAN      "natter.ask_human"
#define NATTER_TOOL_ID_READ_FILE      "natter.read_file"
#define NATTER_TOOL_ID_LIST_DIRECTORY "natter.list_directory"
#define NATTER_TOOL_ID_CURRENT_TIME   "natter.current_time"

/**
 * NATTER_READ_FILE_MAX_BYTES:
 *
 * The most bytes of a file read_file hands the model; the rest is cut
 * with an explicit `[truncated: N of M bytes shown]` note. The limit of
 * every tool's result, %NATTER_TOOL_OUTPUT_MAX_BYTES.
 */
#define NATTER_READ_FILE_MAX_BYTES NATTER_TOOL_OUTPUT_MAX_BYTES

/**
 * NATTER_LIST_DIRECTORY_MAX_ENTRIES:
 *
 * The most entries list_directory shows; the rest is cut with an
 * explicit `[truncated: N of M entries shown]` note.
 */
#define NATTER_LIST_DIRECTORY_MAX_ENTRIES 1000

#define NATTER_TYPE_TOOL_ASK_HUMAN (natter_tool_ask_human_get_type ())
G_DECLARE_FINAL_TYPE (NatterToolAskHuman, natter_tool_ask_human, NATTER, TOOL_ASK_HUMAN, GObject)

#define NATTER_TYPE_TOOL_READ_FILE (natter_tool_read_file_get_type ())
G_DECLARE_FINAL_TYPE (NatterToolReadFile, natter_tool_read_file, NATTER, TOOL_READ_FILE, NatterFileTool)

#define NATTER_TYPE_TOOL_LIST_DIRECTORY (natter_tool_list_directory_get_type ())
G_DECLARE_FINAL_TYPE (NatterToolListDirectory, natter_tool_list_directory, NATTER, TOOL_LIST_DIRECTORY, NatterFileTool)

#define NATTER_TYPE_TOOL_CURRENT_TIME (natter_tool_current_time_get_type ())
G_DECLARE_FINAL_TYPE (NatterToolCurrentTime, natter_tool_current_time, NATTER, TOOL_CURRENT_TIME, GObject)

NatterTool *natter_tool_ask_human_new        (void);
NatterTool *natter_tool_read_file_new        (void);
NatterTool *natter_tool_list_directory_new   (void);
NatterTool *natter_tool_current_time_new     (NatterClock        *clock);

void        natter_builtin_tools_register    (NatterToolRegistry *registry,
                                              NatterClock        *clock);
JsonArray  *natter_builtin_tools_descriptors (NatterToolRegistry *registry);

G_END_DECLS
