#!/bin/sh
# architecture.md: one direction of dependency.
#   store/ <- runtime/ <- mcp/ <- sessions/ <- app/, cli/ <- ui/
# Nothing below ui/ includes a GTK or libadwaita header; a layer includes
# no header of a layer above it; ui/ does not use the command line (cli/).
# Within a layer, its parts (subfolders) depend one way too, in the order
# stated below. Also the size that keeps each function readable (below).
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

# The parts of a layer, from the bottom up (src/README.md, "The parts of a
# layer"). A part may include the headers of the parts before it, never of
# one after it; the files directly in the layer's folder are what all its
# parts share, and include the header of none of them. A subfolder of the
# layer that is not listed fails, so that a new part is given its place.
parts () {
  layer=$1; shift
  for d in $(find "src/$layer" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort); do
    case " $* " in
      *" $d "*) ;;
      *) echo "src/$layer/$d/ is not in the order of the parts of src/$layer/ (tests/check-layering.sh)"; status=1 ;;
    esac
  done
  for part in "$@"; do
    for h in $(find "src/$layer/$part" -name '*.h' -printf '%f\n' | sort -u); do
      hits=$(grep -lE "#include *\"$h\"" "src/$layer"/*.[ch] 2>/dev/null || true)
      if [ -n "$hits" ]; then
        echo "src/$layer/ includes $h of its part $part/:"; echo "$hits"; status=1
      fi
    done
  done
  while [ $# -gt 1 ]; do
    part=$1; shift
    for above in "$@"; do
      for h in $(find "src/$layer/$above" -name '*.h' -printf '%f\n' | sort -u); do
        hits=$(grep -rlE "#include *\"$h\"" "src/$layer/$part" 2>/dev/null || true)
        if [ -n "$hits" ]; then
          echo "src/$layer/$part/ includes $h of src/$layer/$above/, a part above it:"; echo "$hits"; status=1
        fi
      done
    done
  done
}

parts runtime provider tools permissions agents turn
parts sessions index archive folders service search
parts app math settings secrets attachments send search-provider voice wiring

# Headers (src/README.md, "Headers"): a private header (-private.h) is
# shared by the files of its own folder only, an internal one
# (-internal.h) by the parts of its own layer only; the layers above see a
# folder through its public headers.
for h in $(find src -name '*-private.h' | sort); do
  dir=$(dirname "$h")
  hits=$(grep -rlE "#include *\"$(basename "$h")\"" src | grep -v "^$dir/[^/]*$" || true)
  if [ -n "$hits" ]; then
    echo "$h is private to $dir/, but included from outside it:"; echo "$hits"; status=1
  fi
done
for h in $(find src -name '*-internal.h' | sort); do
  layer=$(echo "$h" | cut -d/ -f1-2)
  hits=$(grep -rlE "#include *\"$(basename "$h")\"" src | grep -v "^$layer/" || true)
  if [ -n "$hits" ]; then
    echo "$h is internal to $layer/, but included from outside it:"; echo "$hits"; status=1
  fi
done

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

[ $status -eq 0 ] && echo "ok: the layers depend one way (store, runtime, mcp, sessions, app/cli, ui), and so do the parts of each layer; private and internal headers stay where they belong; no function over 120 lines"
exit $status
