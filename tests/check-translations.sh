#!/bin/sh
# Every language in po/LINGUAS is complete against the strings the sources
# have *now*: the POT is regenerated from po/POTFILES.in into a temporary
# folder (with the same xgettext keywords as i18n.gettext's glib preset
# and po/meson.build's own),
# each .po is merged into it, and any untranslated or fuzzy message fails.
# When you add or change a user-visible string, this test tells you to
# update the translations (run `meson compile -C BUILD natter-update-po`
# and translate the new messages).
#
# Usage: check-translations.sh SOURCE_ROOT
set -eu
cd "$1"
export LC_ALL=C

for tool in xgettext msgmerge msgfmt msgattrib; do
  command -v "$tool" >/dev/null || { echo "missing tool: $tool (gettext)"; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

xgettext --package-name=natter --directory=. --files-from=po/POTFILES.in \
  --output="$tmp/natter.pot" \
  --from-code=UTF-8 --add-comments \
  --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
  --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
  --keyword=natter_cli_tr:2 --keyword=natter_cli_ntr:2,3 \
  --keyword=natter_cli_gettext:2 --keyword=natter_cli_ngettext:2,3 \
  2>"$tmp/xgettext.log" || { cat "$tmp/xgettext.log"; echo "xgettext failed"; exit 1; }
[ -s "$tmp/natter.pot" ] || { echo "xgettext found no translatable strings"; exit 1; }

langs=$(sed -e 's/#.*//' po/LINGUAS | tr -s ' \t' '\n\n' | sed '/^$/d')
[ -n "$langs" ] || { echo "po/LINGUAS lists no language"; exit 1; }

status=0
for po in po/*.po; do
  [ -e "$po" ] || continue
  lang=$(basename "$po" .po)
  printf '%s\n' "$langs" | grep -qx "$lang" || { echo "$po is not listed in po/LINGUAS"; status=1; }
done

for lang in $langs; do
  po="po/$lang.po"
  if [ ! -f "$po" ]; then
    echo "$lang: listed in po/LINGUAS but $po does not exist"; status=1; continue
  fi
  # The committed file itself must be well-formed.
  if ! msgfmt --check --output-file=/dev/null "$po"; then
    echo "$lang: msgfmt --check failed on $po"; status=1; continue
  fi
  merged="$tmp/$lang.po"
  msgmerge --quiet --previous --output-file="$merged" "$po" "$tmp/natter.pot"
  stats=$(msgfmt --check --statistics --output-file=/dev/null "$merged" 2>&1)
  case "$stats" in
    *untranslated*|*fuzzy*)
      echo "$lang: incomplete against the current sources: $stats"
      echo "  untranslated or fuzzy messages:"
      msgattrib --no-wrap --no-obsolete --only-fuzzy "$merged" | sed -n 's/^msgid /    fuzzy: /p' | sed '/fuzzy: ""$/d'
      msgattrib --no-wrap --no-obsolete --untranslated "$merged" | sed -n 's/^msgid /    untranslated: /p' | sed '/untranslated: ""$/d'
      status=1
      ;;
    *)
      echo "$lang: $stats"
      ;;
  esac
done

[ $status -eq 0 ] && echo "ok: every language in po/LINGUAS is complete"
exit $status
