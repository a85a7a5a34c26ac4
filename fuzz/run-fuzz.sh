#!/bin/sh
# Builds the libFuzzer targets into build-fuzz and runs them for N seconds
# of fuzzing in all (default 60), split evenly and two at a time, so in
# about N/2 seconds: fuzz-read-reduce seeded from
# fuzz/corpus, fuzz-json-line (fast strict line read against the json-glib
# reference) seeded from fuzz/corpus-json-line, fuzz-session-scan and
# fuzz-turn-scan (the startup scan's tree-free reads of a session file and
# of a latest turn file against the full read) seeded from fuzz/corpus. Exits non-zero on any crash, leak, sanitizer report,
# timeout, GLib warning or disagreement between two reads; the reproducer is left in
# build-fuzz/fuzz-artifacts/. New corpus entries go to a temp directory, so
# the checked-in corpus only changes by hand.
#
# Usage: fuzz/run-fuzz.sh [seconds]   (NATTER_FUZZ_BUILD overrides the build dir)
set -eu
cd "$(dirname "$0")/.."

seconds="${1:-60}"
build="${NATTER_FUZZ_BUILD:-build-fuzz}"

if [ ! -f "$build/build.ninja" ]; then
  cc=clang
  command -v clang >/dev/null 2>&1 || cc=clang-14
  CC="$cc" meson setup "$build" -Dui=false -Dfuzz=true \
    -Db_sanitize=address,undefined -Db_lundef=false
fi
ninja -C "$build" fuzz/fuzz-read-reduce fuzz/fuzz-json-line fuzz/fuzz-session-scan fuzz/fuzz-turn-scan
share=$(( seconds / 4 ))
[ "$share" -ge 1 ] || share=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$build/fuzz-artifacts" "$work/read-reduce" "$work/json-line" "$work/session-scan" "$work/turn-scan"

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp:print_suppressions=0"
export G_DEBUG="fatal-warnings"

# One target's run, its output kept in $work/NAME.log. Two run at a time
# (CI has two cores), each for its share: the four take half the wall
# time they took one after another, and each is fuzzed as long.
fuzz () {
  name=$1
  shift
  "$build/fuzz/$name" \
    -max_total_time="$share" \
    -timeout=10 \
    -rss_limit_mb=2048 \
    -artifact_prefix="$build/fuzz-artifacts/" \
    -print_final_stats=1 \
    "$@" >"$work/$name.log" 2>&1
}

# Waits for the two runs started as NAME PID NAME PID, shows what each
# said, and fails if either failed.
finish () {
  failed=0
  wait "$2" || failed=1
  wait "$4" || failed=1
  for name in "$1" "$3"; do
    echo "== $name"
    cat "$work/$name.log"
  done
  return $failed
}

fuzz fuzz-read-reduce -max_len=16384 -dict=fuzz/fuzz-read-reduce.dict "$work/read-reduce" fuzz/corpus &
read_reduce=$!
fuzz fuzz-json-line -max_len=4096 -dict=fuzz/fuzz-json-line.dict "$work/json-line" fuzz/corpus-json-line &
json_line=$!
finish fuzz-read-reduce $read_reduce fuzz-json-line $json_line

fuzz fuzz-session-scan -max_len=16384 -dict=fuzz/fuzz-read-reduce.dict "$work/session-scan" fuzz/corpus &
session_scan=$!
fuzz fuzz-turn-scan -max_len=16384 -dict=fuzz/fuzz-read-reduce.dict "$work/turn-scan" fuzz/corpus &
turn_scan=$!
finish fuzz-session-scan $session_scan fuzz-turn-scan $turn_scan
