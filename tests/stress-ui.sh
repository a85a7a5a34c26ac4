#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs the `ui` and `e2e` suites N times in a row (default 20) while the
# machine is kept busy, stops at the first failure and ends with one
# summary line. A crash or a critical that shows up only when the app is
# starved of CPU (a timer firing before an idle, a D-Bus reply arriving
# after a widget went away) needs many runs under load to be seen at all.
#
#   tests/stress-ui.sh [-n N] [-b BUILD_DIR] [-l build|cpu|none] [-d MS] [-- TEST...]
#
#   -n N     iterations (default 20)
#   -b DIR   the configured build directory to test (default: build)
#   -l LOAD  what keeps the machine busy while the tests run:
#              build  (default) a second build directory, build-stress-load,
#                     cleaned and rebuilt in a loop (configured on first use;
#                     ccache is bypassed so that every round really compiles);
#              cpu    one busy loop per core;
#              none   no load
#   -d MS    every conversation read begins MS milliseconds late
#            (NATTER_TEST_READ_DELAY_MS), as on a slow disk: a test that
#            acts before what it needs was read then fails every time, not
#            once in a while (300 is a good figure: the waits' 10 s allow
#            a few reads in a row)
#   TEST...  only these tests (meson test names) instead of both suites
#
# Each iteration runs in its own virtual display and session bus, as
# build-aux/run-tests does. Core dumps are allowed (ulimit -c), so a crash
# leaves one where the kernel's core_pattern puts it. On a failure the
# iteration's meson log is copied to BUILD_DIR/meson-logs/stress-ui-failed.txt.
# Exit status: 0 when every iteration passed, 1 otherwise, 2 on bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

iterations=20
build=build
load=build
while getopts "n:b:l:d:h" opt; do
  case $opt in
    n) iterations=$OPTARG ;;
    b) build=$OPTARG ;;
    l) load=$OPTARG ;;
    d) export NATTER_TEST_READ_DELAY_MS=$OPTARG ;;
    h) sed -n '4,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" != "--" ] || shift

case $iterations in
  '' | *[!0-9]* | 0) echo "stress-ui: -n needs a positive number, not '$iterations'" >&2; exit 2 ;;
esac
case ${NATTER_TEST_READ_DELAY_MS:-0} in
  '' | *[!0-9]*) echo "stress-ui: -d needs a number of milliseconds, not '$NATTER_TEST_READ_DELAY_MS'" >&2; exit 2 ;;
esac
if [ ! -f "$build/build.ninja" ]; then
  echo "stress-ui: $build is not a configured build directory (meson setup $build)" >&2
  exit 2
fi

if [ $# -gt 0 ]; then
  selection=("$@")
else
  selection=(--suite ui --suite e2e)
fi

load_pid=
stop_load() {
  if [ -n "$load_pid" ]; then
    # The load runs in its own process group (set -m below): end all of it,
    # and only it.
    kill -- "-$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
    load_pid=
  fi
}
trap stop_load EXIT
trap 'exit 130' INT TERM

if ! meson compile -C "$build" >/dev/null; then
  echo "stress-ui: building $build failed (meson compile -C $build)" >&2
  exit 2
fi

case $load in
  build)
    load_dir=build-stress-load
    if [ ! -f "$load_dir/build.ninja" ] && ! meson setup "$load_dir" >/dev/null; then
      echo "stress-ui: could not configure $load_dir for the load" >&2
      exit 2
    fi
    set -m
    ( export CCACHE_DISABLE=1
      while :; do ninja -C "$load_dir" clean >/dev/null 2>&1; ninja -C "$load_dir" >/dev/null 2>&1 || true; done ) &
    load_pid=$!
    set +m
    ;;
  cpu)
    set -m
    ( for _ in $(seq "$(nproc)"); do ( while :; do :; done ) & done; wait ) &
    load_pid=$!
    set +m
    ;;
  none) ;;
  *) echo "stress-ui: unknown load '$load' (build, cpu or none)" >&2; exit 2 ;;
esac

ulimit -c unlimited 2>/dev/null || true
started=$(date +%s)
passed=0
for i in $(seq "$iterations"); do
  iteration_started=$(date +%s)
  if dbus-run-session -- xvfb-run -a -s "-screen 0 1280x800x24" \
       meson test -C "$build" --no-rebuild --print-errorlogs --num-processes 1 \
         "${selection[@]}" >"$build/meson-logs/stress-ui-last.txt" 2>&1; then
    passed=$((passed + 1))
    echo "stress-ui: iteration $i of $iterations passed ($(( $(date +%s) - iteration_started )) s)"
  else
    cp "$build/meson-logs/testlog.txt" "$build/meson-logs/stress-ui-failed.txt" 2>/dev/null || true
    grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$build/meson-logs/stress-ui-last.txt" || true
    echo "stress-ui: FAILED at iteration $i of $iterations after $passed clean iterations" \
         "(load: $load, $(( $(date +%s) - started )) s); log: $build/meson-logs/stress-ui-failed.txt"
    exit 1
  fi
done
echo "stress-ui: $passed of $iterations iterations passed (load: $load, $(( $(date +%s) - started )) s)"
