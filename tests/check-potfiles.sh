#!/bin/sh
# Every file with translatable strings is listed in po/POTFILES.in, and the
# list is sorted.
set -eu
cd "$1"
listed=$(grep -v '^#' po/POTFILES.in | sed '/^$/d')
status=0
if [ "$listed" != "$(printf '%s\n' "$listed" | LC_ALL=C sort)" ]; then
  echo "po/POTFILES.in is not sorted"; status=1
fi
for f in $(grep -rlE '(^|[^A-Za-z_])(_|N_|C_|NC_)\(|translatable="yes"' src data --include='*.c' --include='*.ui' | LC_ALL=C sort); do
  printf '%s\n' "$listed" | grep -qx "$f" || { echo "missing from po/POTFILES.in: $f"; status=1; }
done
for f in $listed; do
  [ -e "$f" ] || { echo "listed but absent: $f"; status=1; }
done
[ $status -eq 0 ] && echo "ok: po/POTFILES.in covers every file with translatable strings"
exit $status
