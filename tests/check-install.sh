#!/bin/sh
# `meson install` into a staging folder produces a launchable application:
# the installed binary runs (`natter --version` prints "natter VERSION"),
# and the files a desktop needs to find, start and describe it landed
# where the freedesktop specifications look for them.
#
# Usage: check-install.sh MESON BUILD_DIR PREFIX DATADIR BINDIR LOCALEDIR APP_ID VERSION
#   (DATADIR, BINDIR, LOCALEDIR as meson's options: relative to PREFIX or absolute)
set -eu
meson=$1 build=$2 prefix=$3 datadir=$4 bindir=$5 localedir=$6 app_id=$7 version=$8

abs () { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$prefix" "$1" ;; esac; }
datadir=$(abs "$datadir") bindir=$(abs "$bindir") localedir=$(abs "$localedir")

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT INT TERM

# --no-rebuild: the test already depends on everything installed, and a
# nested ninja run inside `meson test` would fight over the build lock.
"$meson" install -C "$build" --no-rebuild --quiet --destdir "$stage" >"$stage.log" 2>&1 \
  || { cat "$stage.log"; rm -f "$stage.log"; echo "meson install failed"; exit 1; }
rm -f "$stage.log"

status=0
fail () { echo "FAIL: $*"; status=1; }

exe="$stage$bindir/natter"
if [ -x "$exe" ]; then
  # No display, no session bus: --version is handled before GTK starts.
  out=$(env -u DISPLAY -u WAYLAND_DISPLAY "$exe" --version 2>&1) || fail "$exe --version exited with $?: $out"
  [ "$out" = "natter $version" ] || fail "natter --version printed '$out', expected 'natter $version'"
else
  fail "no executable at $bindir/natter"
fi

for f in \
  "$datadir/applications/$app_id.desktop" \
  "$datadir/metainfo/$app_id.metainfo.xml" \
  "$datadir/glib-2.0/schemas/$app_id.gschema.xml" \
  "$datadir/icons/hicolor/scalable/apps/$app_id.svg" \
  "$datadir/icons/hicolor/symbolic/apps/$app_id-symbolic.svg" \
  "$datadir/dbus-1/services/$app_id.service" \
  "$datadir/gnome-shell/search-providers/$app_id.search-provider.ini" \
  "$localedir/de/LC_MESSAGES/natter.mo"
do
  [ -s "$stage$f" ] || fail "not installed: $f"
done

# D-Bus activation must start the binary that was installed, by absolute path.
service="$stage$datadir/dbus-1/services/$app_id.service"
if [ -f "$service" ]; then
  grep -qx "Name=$app_id" "$service" || fail "$service does not name $app_id"
  grep -qx "Exec=$bindir/natter --gapplication-service" "$service" \
    || fail "$service does not start $bindir/natter: $(grep '^Exec=' "$service")"
fi

# The desktop file is D-Bus activatable, so its name must match the bus name.
desktop="$stage$datadir/applications/$app_id.desktop"
if [ -f "$desktop" ]; then
  grep -qx 'DBusActivatable=true' "$desktop" || fail "$desktop is not DBusActivatable"
  grep -qx 'Exec=natter' "$desktop" || fail "$desktop does not run natter"
  grep -qx "Icon=$app_id" "$desktop" || fail "$desktop does not use the installed icon"
  if command -v desktop-file-validate >/dev/null; then
    desktop-file-validate "$desktop" || fail "installed desktop file does not validate"
  fi
fi

# GNOME Shell calls the search provider on the application's own bus name
# and object path, and shows it under the installed desktop file.
provider="$stage$datadir/gnome-shell/search-providers/$app_id.search-provider.ini"
if [ -f "$provider" ]; then
  object_path=/$(printf '%s' "$app_id" | tr . /)/SearchProvider
  grep -qx '\[Shell Search Provider\]' "$provider" || fail "$provider has no [Shell Search Provider] group"
  grep -qx "DesktopId=$app_id.desktop" "$provider" || fail "$provider does not name $app_id.desktop"
  grep -qx "BusName=$app_id" "$provider" || fail "$provider does not call $app_id"
  grep -qx "ObjectPath=$object_path" "$provider" || fail "$provider does not use $object_path"
  grep -qx 'Version=2' "$provider" || fail "$provider is not SearchProvider2"
fi

# The installed schema compiles on its own (what the post-install trigger
# of a distribution or Flatpak does).
schemas="$stage$datadir/glib-2.0/schemas"
if [ -d "$schemas" ] && command -v glib-compile-schemas >/dev/null; then
  glib-compile-schemas --strict --dry-run "$schemas" || fail "installed schemas do not compile"
fi

# The translation was compiled from po/de.po and carries its messages.
mo="$stage$localedir/de/LC_MESSAGES/natter.mo"
if [ -f "$mo" ] && command -v msgunfmt >/dev/null; then
  stats=$(msgunfmt "$mo" | LC_ALL=C msgfmt --statistics --output-file=/dev/null - 2>&1) || fail "$mo is not a valid catalog"
  case "$stats" in
    "0 translated"*|"") fail "$mo carries no messages: $stats" ;;
  esac
fi

[ $status -eq 0 ] && echo "ok: installed into $prefix (staged), natter --version says 'natter $version'"
exit $status
