#!/bin/sh
# Builds the libFuzzer targets into build-fuzz and runs them for N seconds
# in all (default 60), split evenly: fuzz-read-reduce seeded from
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

"$build/fuzz/fuzz-read-reduce" \
  -max_total_time="$share" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=16384 \
  -dict=fuzz/fuzz-read-reduce.dict \
  -artifact_prefix="$build/fuzz-artifacts/" \
  -print_final_stats=1 \
  "$work/read-reduce" fuzz/corpus

"$build/fuzz/fuzz-json-line" \
  -max_total_time="$share" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=4096 \
  -dict=fuzz/fuzz-json-line.dict \
  -artifact_prefix="$build/fuzz-artifacts/" \
  -print_final_stats=1 \
  "$work/json-line" fuzz/corpus-json-line

"$build/fuzz/fuzz-session-scan" \
  -max_total_time="$share" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=16384 \
  -dict=fuzz/fuzz-read-reduce.dict \
  -artifact_prefix="$build/fuzz-artifacts/" \
  -print_final_stats=1 \
  "$work/session-scan" fuzz/corpus

"$build/fuzz/fuzz-turn-scan" \
  -max_total_time="$share" \
  -timeout=10 \
  -rss_limit_mb=2048 \
  -max_len=16384 \
  -dict=fuzz/fuzz-read-reduce.dict \
  -artifact_prefix="$build/fuzz-artifacts/" \
  -print_final_stats=1 \
  "$work/turn-scan" fuzz/corpus
