#!/bin/sh
# architecture.md: nothing below ui/ includes a GTK or libadwaita header.
set -eu
cd "$1"
bad=$(grep -rlE '#include *[<"](gtk/|gdk/|adwaita\.h|gtksourceview/)' src/store src/runtime src/sessions 2>/dev/null || true)
if [ -n "$bad" ]; then
  echo "GTK headers below the ui layer:"; echo "$bad"; exit 1
fi
echo "ok: no GTK header in src/store, src/runtime, src/sessions"
