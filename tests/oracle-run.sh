#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The long run of the model-based test of the session layer
# (tests/oracle/test-oracle.c): random seeds, one process each,
# for as long as asked. Prints each seed with its operation counts; at
# the first failing seed, its report (what failed, and the operation log
# that reproduces it: `ORACLE_SEED=N ORACLE_OPS=M build/tests/oracle/test-oracle`).
#
#   tests/oracle-run.sh [--build DIR] [--minutes N] [--ops N] [--keep-going] [--ui]
#
# --keep-going runs on after a failure and lists the failing seeds at the
# end; --ui runs the variant with the window (tests/ui/test-oracle-ui.c)
# under Xvfb. ORACLE_DEFER and ORACLE_PLAIN are passed on (see
# tests/oracle/test-oracle.c). Run it niced on a shared machine:
#   nice -n 19 tests/oracle-run.sh --minutes 30

set -u

build=build
minutes=10
ops=60
keep_going=0
ui=0

while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    --ui) ui=1; shift ;;
    -h|--help) sed -n '3,18p' "$0"; exit 0 ;;
    *) echo "oracle-run: unknown argument $1" >&2; exit 2 ;;
  esac
done

build=$(cd "$build" && pwd) || exit 2
if [ "$ui" = 1 ]; then
  binary=$build/tests/ui/test-oracle-ui
else
  binary=$build/tests/oracle/test-oracle
fi
if [ ! -x "$binary" ]; then
  echo "oracle-run: $binary is not built (meson compile -C $build)" >&2
  exit 2
fi

export NATTER_BIN=$build/src/ui/natter
export NATTER_SCHEMA_DIR=$build/data
export GSETTINGS_SCHEMA_DIR=$build/data
export GSETTINGS_BACKEND=memory
export G_DEBUG=gc-friendly,fatal-warnings
export MALLOC_CHECK_=2
export NO_AT_BRIDGE=1
export ORACLE_OPS=$ops
if [ "$ui" = 1 ]; then
  export G_DEBUG=gc-friendly,fatal-criticals,fatal-warnings
  export GTK_A11Y=test
  export NATTER_DATA_DIR=$build/tests/ui/natter-data
fi

log=$(mktemp -d "${TMPDIR:-/tmp}/oracle-run.XXXXXX")
end=$(( $(date +%s) + minutes * 60 ))
n_seeds=0
n_failed=0
failed=""
totals=$log/totals

echo "oracle-run: $minutes minutes of $ops operations per seed; logs in $log"
while [ "$(date +%s)" -lt "$end" ]; do
  seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  out=$log/seed-$seed.txt
  if [ "$ui" = 1 ]; then
    ORACLE_SEED=$seed dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" "$binary" > "$out" 2>&1
  else
    ORACLE_SEED=$seed "$binary" > "$out" 2>&1
  fi
  status=$?
  n_seeds=$((n_seeds + 1))
  counts=$(grep -m1 '^counts: ' "$out" | cut -c9-)
  echo "$counts" >> "$totals"
  if [ $status -eq 0 ] && grep -q '^ok ' "$out"; then
    echo "seed $seed ok: $counts"
    rm -f "$out"
    continue
  fi
  n_failed=$((n_failed + 1))
  failed="$failed $seed"
  echo "seed $seed FAILED (exit $status): $counts"
  if [ "$n_failed" -eq 1 ]; then
    echo "---- the first failing seed: $seed (rerun: ORACLE_SEED=$seed ORACLE_OPS=$ops $binary)"
    grep -v '^# ' "$out" | sed -n '/^seed /,$p'
    echo "----"
  fi
  [ "$keep_going" = 1 ] || break
done

# The operations of all seeds, added up.
summary=$(tr ' ' '\n' < "$totals" | grep '=' | awk -F= '{ n[$1] += $2 } END { for (k in n) printf "%s=%d ", k, n[k] }')
echo "oracle-run: $n_seeds seeds, $n_failed failed${failed:+ (seeds$failed)}"
echo "oracle-run: operations: $summary"
[ "$n_failed" -eq 0 ]
