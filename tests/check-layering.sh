#!/bin/sh
# architecture.md: one direction of dependency.
#   store/ <- runtime/ <- mcp/ <- sessions/ <- app/, cli/ <- ui/
# Nothing below ui/ includes a GTK or libadwaita header; a layer includes
# no header of a layer above it; ui/ does not use the command line (cli/).
# Also the size that keeps each function readable (below).
set -eu
cd "$1"
status=0

bad=$(grep -rlE '#include *[<"](gtk/|gdk/|adwaita\.h|gtksourceview/)' src/store src/runtime src/mcp src/sessions src/app src/cli 2>/dev/null || true)
if [ -n "$bad" ]; then
  echo "GTK headers below the ui layer:"; echo "$bad"; status=1
fi

# headers_of DIR: the basenames of the headers a folder declares.
headers_of () {
  find "src/$1" -name '*.h' -printf '%f\n' | sort -u
}

# forbid LAYER ABOVE...: files of LAYER must not include a header of ABOVE.
forbid () {
  layer=$1; shift
  for above in "$@"; do
    for h in $(headers_of "$above"); do
      hits=$(grep -rlE "#include *\"$h\"" "src/$layer" 2>/dev/null || true)
      if [ -n "$hits" ]; then
        echo "src/$layer includes $h of src/$above:"; echo "$hits"; status=1
      fi
    done
  done
}

forbid store runtime mcp sessions app cli ui
forbid runtime mcp sessions app cli ui
forbid mcp sessions app cli ui
forbid sessions app cli ui
forbid app cli ui
forbid cli ui
forbid ui cli

# Sizes: a function holds one step. No function over 120 lines (a body
# from a `{` in column 0 to the next `}` in column 0, GNU style). Files
# are split by what they are for, never by length, so there is no cap on
# a file's lines.
for f in $(find src -name '*.c' | sort); do
  long=$(awk '/^[a-z_][a-z0-9_]* \(/ { name = $1 }
              /^\{/ { start = NR }
              /^\}/ { if (start && NR - start - 1 > 120) print FILENAME ":" start ": " name " (" NR - start - 1 " lines)"; start = 0 }' "$f")
  if [ -n "$long" ]; then
    echo "function over 120 lines in $long"; status=1
  fi
done

[ $status -eq 0 ] && echo "ok: the layers depend one way (store, runtime, mcp, sessions, app/cli, ui); no function over 120 lines"
exit $status
