/* natter-ui-test-lsan.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What GLib and GIO keep for the life of a process, shown to
 * LeakSanitizer as kept, in a window test built with AddressSanitizer.
 *
 * Widget tests build with AddressSanitizer record each allocation's stack
 * with its fast unwinder, which stops at GLib's first frame (Debian builds
 * GLib without frame pointers): every block GLib or GIO allocates gets the
 * same stack of one or two frames, so what they keep on purpose cannot be
 * suppressed by name in tests/lsan.supp. Unwinding the slow way made the
 * widget tests spend five times the CPU in malloc. Two such blocks are
 * handled here instead; a real leak is reported as before.
 *
 * - GLib's first quark table. GLib allocates room for 2,048 quarks in its
 *   constructor; a process with more (every GTK window test) gets a bigger
 *   table, and the first one is retired, not freed, since readers on other
 *   threads may still look at it. This file watches the allocations made
 *   before main() (AddressSanitizer calls __sanitizer_malloc_hook for
 *   each, from the process's first), then, in its constructor, which runs
 *   after GLib's, makes a quark, finds the block whose slot for it holds
 *   its string, and keeps a pointer to that block in a global, where
 *   LeakSanitizer sees it.
 * - GIO's copy of xdgmime, which keeps what it reads of the shared MIME
 *   database in process-wide tables, some of them unreachable. Its tables
 *   are read once, in the constructor, with leak tracking off.
 *
 * Without AddressSanitizer the file is empty.
 */

#include <gio/gio.h>

#if defined(__SANITIZE_ADDRESS__)

#include <sanitizer/lsan_interface.h>
#include <stddef.h>

/* The size of GLib's first quark table (QUARK_BLOCK_SIZE pointers). */
#define FIRST_QUARK_TABLE_SIZE (2048 * sizeof (char *))

/* Blocks of that size allocated before main(); more than a handful would
 * mean GLib has changed, and the table is then reported as a leak again. */
#define MAX_CANDIDATES 16

static const volatile void *candidates[MAX_CANDIDATES];
static unsigned n_candidates;
static gboolean watching = TRUE;

/* Where LeakSanitizer finds the retired table (it scans globals). */
const void * volatile natter_ui_test_first_quark_table;

void __sanitizer_malloc_hook (const volatile void *ptr,
                              size_t               size);
void __sanitizer_free_hook (const volatile void *ptr);

/* Called by AddressSanitizer after every allocation; before main() there
 * is one thread, and after it nothing is recorded. */
void
__sanitizer_malloc_hook (const volatile void *ptr,
                         size_t               size)
{
  if (watching && size == FIRST_QUARK_TABLE_SIZE && n_candidates < MAX_CANDIDATES)
    candidates[n_candidates++] = ptr;
}

/* Called by AddressSanitizer before every free: a freed candidate is not
 * the table, and its address may be reused. */
void
__sanitizer_free_hook (const volatile void *ptr)
{
  if (!watching)
    return;
  for (unsigned i = 0; i < n_candidates; i++)
    if (candidates[i] == ptr)
      candidates[i] = NULL;
}

static void
keep_first_quark_table (void)
{
  /* A quark made now lands in the first table (GLib's constructor made
   * only a few), and its string is in its slot there and in no other
   * block's. */
  GQuark quark = g_quark_from_static_string ("natter-ui-test-first-quark-table");
  const char *string = g_quark_to_string (quark);

  watching = FALSE;
  for (unsigned i = 0; i < n_candidates; i++)
    if (candidates[i] != NULL && quark < 2048 && ((const char * const *) candidates[i])[quark] == string)
      natter_ui_test_first_quark_table = (const void *) candidates[i];
  for (unsigned i = 0; i < n_candidates; i++)
    candidates[i] = NULL;
}

/* Every table of xdgmime the window uses: the globs and magic (a guess
 * from a name and bytes), the parents (is_a), the aliases (unalias) and
 * the icon names. */
static void
read_mime_tables (void)
{
  static const guchar pdf[] = "%PDF-1.4\n";
  g_autofree char *guessed = NULL;
  g_autofree char *generic_icon = NULL;
  g_autofree char *unaliased = NULL;
  g_autoptr(GIcon) icon = NULL;

  __lsan_disable ();
  guessed = g_content_type_guess ("notes.pdf", pdf, sizeof pdf - 1, NULL);
  (void) g_content_type_is_a ("text/x-csrc", "text/plain");
  unaliased = g_content_type_from_mime_type ("text/x-c");
  generic_icon = g_content_type_get_generic_icon_name ("text/plain");
  icon = g_content_type_get_icon ("application/pdf");
  __lsan_enable ();
}

__attribute__((constructor)) static void
keep_what_glib_keeps (void)
{
  keep_first_quark_table ();
  read_mime_tables ();
}

#endif
