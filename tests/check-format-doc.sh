#!/bin/sh
# docs/format.md is the one description of the on-disk format: it must
# describe every event type the schema validators accept (turns,
# sessions and folders) (a heading
# "### `type`"), and no type they do not accept.
#
# Usage: check-format-doc.sh SOURCE_ROOT
set -eu
cd "$1"
doc=docs/format.md
[ -f "$doc" ] || { echo "missing $doc"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The turn validators' table: { "type", validate_… },
sed -n 's/^ *{ "\([a-z_]*\)", validate_[a-z_]* },$/\1/p' src/store/natter-turn-schema.c \
  > "$tmp/turn"
# The session validator's known types: g_str_equal (type, "…")
grep -o 'g_str_equal (type, "[a-z_]*")' src/store/natter-session-schema.c \
  | sed 's/.*"\([a-z_]*\)".*/\1/' > "$tmp/session"
# The folder log's validator, the same way.
grep -o 'g_str_equal (type, "[a-z_]*")' src/store/natter-folder-log.c \
  | sed 's/.*"\([a-z_]*\)".*/\1/' > "$tmp/folder"
sort -u "$tmp/turn" "$tmp/session" "$tmp/folder" > "$tmp/accepted"

# A parser that finds nothing would pass vacuously.
[ "$(sort -u "$tmp/turn" | wc -l)" -ge 16 ] || { echo "found only $(wc -l < "$tmp/turn") turn event types"; exit 1; }
[ "$(sort -u "$tmp/session" | wc -l)" -ge 3 ] || { echo "found only $(wc -l < "$tmp/session") session event types"; exit 1; }
[ "$(sort -u "$tmp/folder" | wc -l)" -ge 2 ] || { echo "found only $(wc -l < "$tmp/folder") folder event types"; exit 1; }

sed -n 's/^### `\([a-z_]*\)`$/\1/p' "$doc" | sort -u > "$tmp/documented"

status=0
missing=$(comm -23 "$tmp/accepted" "$tmp/documented")
if [ -n "$missing" ]; then
  echo "event types the schemas accept but $doc does not describe:"; echo "$missing"; status=1
fi
extra=$(comm -13 "$tmp/accepted" "$tmp/documented")
if [ -n "$extra" ]; then
  echo "event types $doc describes but no schema accepts:"; echo "$extra"; status=1
fi
[ $status -eq 0 ] && echo "ok: $doc describes the $(wc -l < "$tmp/accepted") event types the schemas accept"
exit $status
