#!/bin/sh
# architecture.md: one direction of dependency.
#   store/ <- runtime/ <- sessions/ <- app/, cli/ <- ui/
# Nothing below ui/ includes a GTK or libadwaita header; a layer includes
# no header of a layer above it; ui/ does not use the command line (cli/).
set -eu
cd "$1"
status=0

bad=$(grep -rlE '#include *[<"](gtk/|gdk/|adwaita\.h|gtksourceview/)' src/store src/runtime src/sessions src/app src/cli 2>/dev/null || true)
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

forbid store runtime sessions app cli ui
forbid runtime sessions app cli ui
forbid sessions app cli ui
forbid app cli ui
forbid cli ui
forbid ui cli

[ $status -eq 0 ] && echo "ok: the layers depend one way (store, runtime, sessions, app/cli, ui)"
exit $status
