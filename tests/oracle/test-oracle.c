/* test-oracle.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The model-based test of the session layer (tests/oracle/): random
 * operations on the real services, the send pipeline and the real
 * `natter` ($NATTER_BIN, some of them killed with SIGKILL), against a
 * scripted model, beside an independent model of the conversations
 * written from the documents. After every model call the request must
 * carry the model's transcript; after every operation the service, the
 * command line and the files must read as the model says, and no turn the
 * model expects to run may wait.
 *
 * The suite runs fixed seeds; tests/oracle-run.sh runs random ones for as
 * long as it is asked. ORACLE_SEED=N (and ORACLE_OPS=N) runs one seed
 * and prints its counts; ORACLE_DEFER=kind,… reports failures of those
 * kinds without stopping the run (for finding the next one while one is
 * being fixed elsewhere; never in the suite), ORACLE_PLAIN=1 leaves out
 * the text a string cannot hold and control characters (the same), and
 * ORACLE_FAVOUR=damage,recover,… makes those operations eight times as
 * likely (for exploring one of them; never in the suite).
 */

#include <stdlib.h>

#include "oracle-driver.h"

/* A seed's operations when none are asked for (ORACLE_OPS). */
#define DEFAULT_OPS 45

/* The seeds the suite runs, each for this many operations: together they
 * reach every kind of operation (pins, folders and parameters too, though
 * not `natter pin`, `natter folder` or a folder's rename, delete and
 * undo, which the long run reaches), in about 25 s of CPU on a plain
 * build (three times that with AddressSanitizer). 910242311 and
 * 3959461806 were the long run's (a branch at a turn before the kept one
 * that read the unreadable history before it, and a first message's
 * version that copied a compaction its import then refused), drawn
 * before the operations on pins, folders and parameters changed every
 * seed's draws: they run other operations now. */
static const struct
{
  guint32 seed;
  guint   n_ops;
} suite_seeds[] = {
  { 2, 32 }, { 4, 32 }, { 7, 32 }, { 8, 32 }, { 716630391, 32 }, { 910242311, 36 }, { 3959461806, 38 },
};

static void
run_seed (guint32 seed,
          guint   n_ops,
          gboolean print_counts)
{
  OracleOptions options = {
    .seed = seed,
    .n_ops = n_ops,
    .cli_every = 6,
    .cli_ops = TRUE,
    .verbose = g_getenv ("ORACLE_VERBOSE") != NULL,
    .defer = g_getenv ("ORACLE_DEFER"),
    .plain = g_getenv ("ORACLE_PLAIN") != NULL,
  };
  OracleDriver *d = oracle_driver_new (&options);
  gboolean ok = oracle_driver_run (d);
  g_autofree char *report = oracle_driver_dup_report (d);

  if (!ok || print_counts || options.verbose)
    g_printerr ("%s", report);
  else
    g_test_message ("%s", report);
  oracle_driver_free (d);
  if (!ok)
    g_test_fail_printf ("seed %u failed; rerun it with ORACLE_SEED=%u", seed, seed);
}

static void
test_seed (gconstpointer data)
{
  guint i = GPOINTER_TO_UINT (data);

  run_seed (suite_seeds[i].seed, suite_seeds[i].n_ops, FALSE);
}

static void
test_one (gconstpointer data)
{
  const char *ops = g_getenv ("ORACLE_OPS");

  run_seed ((guint32) g_ascii_strtoull (g_getenv ("ORACLE_SEED"), NULL, 10),
            ops != NULL ? (guint) g_ascii_strtoull (ops, NULL, 10) : DEFAULT_OPS, TRUE);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("NATTER_BIN") == NULL)
    {
      g_test_skip ("the oracle runs `natter`: NATTER_BIN is not set");
      return g_test_run ();
    }
  if (g_getenv ("ORACLE_SEED") != NULL)
    {
      g_test_add_data_func ("/oracle/seed", NULL, test_one);
      return g_test_run ();
    }
  for (guint i = 0; i < G_N_ELEMENTS (suite_seeds); i++)
    {
      g_autofree char *path = g_strdup_printf ("/oracle/seed-%u", suite_seeds[i].seed);

      g_test_add_data_func (path, GUINT_TO_POINTER (i), test_seed);
    }
  return g_test_run ();
}
