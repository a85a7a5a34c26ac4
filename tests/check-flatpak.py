#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks the Flatpak manifest without building it (no network here).

- it parses as JSON;
- it targets the GNOME runtime (47 or later), runs `natter`, and asks for
  exactly the sandbox holes the app needs (no home or host folder: the
  file tools work on what the user grants through portals);
- every module it builds besides Natter comes from a source archive with a
  sha256 checksum, and Natter itself is the last module, built with meson;
- every `dependency()` of the meson build is provided, either by the
  runtime or by a module of the manifest (the table below says which).

Usage: check-flatpak.py SOURCE_ROOT MANIFEST APP_ID
"""

import json
import os
import re
import sys

# pkg-config name -> "runtime" when org.gnome.Platform//47 ships it, or the
# name of the manifest module that builds it. A new dependency() must be
# added here, which makes you decide how the Flatpak gets it.
PROVIDERS = {
    "glib-2.0": "runtime",
    "gobject-2.0": "runtime",
    "gio-2.0": "runtime",
    "gio-unix-2.0": "runtime",
    "gmodule-no-export-2.0": "runtime",
    "gdk-pixbuf-2.0": "runtime",
    "json-glib-1.0": "runtime",
    "libsoup-3.0": "runtime",
    "gtk4": "runtime",
    "libadwaita-1": "runtime",
    "gtksourceview-5": "runtime",
    "libsecret-1": "runtime",
    "fribidi": "runtime",  # Pango's bidi library, in the freedesktop base
    "sqlite3": "runtime",  # the freedesktop base of org.gnome.Platform ships it, with FTS5
    "libcmark": "cmark",
    # PDF attachments reach the model as their text; the GNOME runtime has
    # no poppler, so the manifest builds its GLib binding (into /app/lib,
    # where the soname Natter loads on the first PDF is found).
    "poppler-glib": "poppler",
    # The tests write PDFs with cairo, which the runtime ships.
    "cairo-pdf": "runtime",
    # Dictation records with GStreamer and its PipeWire and PulseAudio
    # sources; answers are read aloud through Speech Dispatcher's client
    # library. The freedesktop base of org.gnome.Platform ships all three.
    "gstreamer-1.0": "runtime",
    "speech-dispatcher": "runtime",
    # Math is typeset by KaTeX in a WebKitGTK view (docs/math.md); the
    # runtime ships WebKitGTK 6.0, the manifest's "katex" module KaTeX.
    "webkitgtk-6.0": "runtime",
}

FINISH_ARGS = {
    "--share=network",        # talk to the model servers
    "--share=ipc",            # X11 shared memory for the fallback
    "--socket=wayland",
    "--socket=fallback-x11",  # X11 only where there is no Wayland
    "--device=dri",           # GL rendering
    "--talk-name=org.freedesktop.secrets",  # API keys through libsecret
    "--socket=pulseaudio",    # the microphone for dictation (PipeWire's PulseAudio server)
    "--filesystem=xdg-run/speech-dispatcher:ro",  # the speech service's socket, to read aloud
}

MIN_GNOME = 47
SHA256 = re.compile(r"^[0-9a-f]{64}$")
DEPENDENCY = re.compile(r"""\bdependency\s*\(\s*['"]([^'"]+)['"]""")


def meson_dependencies(root):
    """Returns {pkg-config name: [files]} for every dependency() call."""
    found = {}
    for folder, dirs, files in os.walk(root):
        # Skip build trees, VCS data and flatpak-builder state.
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith(".")
                         and not os.path.exists(os.path.join(folder, d, "meson-private")))
        if "meson.build" not in files:
            continue
        path = os.path.join(folder, "meson.build")
        with open(path, encoding="utf-8") as f:
            text = "\n".join(line.split("#", 1)[0] for line in f)
        for name in DEPENDENCY.findall(text):
            found.setdefault(name, []).append(os.path.relpath(path, root))
    return found


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    root, manifest_path, app_id = sys.argv[1:]
    errors = []

    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: {manifest_path} does not parse: {e}")
        return 1

    def expect(key, value):
        if manifest.get(key) != value:
            errors.append(f"{key} is {manifest.get(key)!r}, expected {value!r}")

    expect("id", app_id)
    expect("runtime", "org.gnome.Platform")
    expect("sdk", "org.gnome.Sdk")
    expect("command", "natter")
    version = str(manifest.get("runtime-version", ""))
    if not (version.isdigit() and int(version) >= MIN_GNOME):
        errors.append(f"runtime-version {version!r} is not GNOME {MIN_GNOME} or later")

    finish_args = manifest.get("finish-args", [])
    for arg in finish_args:
        if arg.startswith("--filesystem=") and arg.split("=", 1)[1].split(":")[0] in ("home", "host", "host-os", "~"):
            errors.append(f"finish-args grant {arg}: the file tools must work on paths the user grants")
    if len(finish_args) != len(set(finish_args)):
        errors.append("finish-args repeat an entry")
    if set(finish_args) != FINISH_ARGS:
        extra = sorted(set(finish_args) - FINISH_ARGS)
        missing = sorted(FINISH_ARGS - set(finish_args))
        errors.append(f"finish-args differ from what Natter needs: extra {extra}, missing {missing}")

    modules = manifest.get("modules", [])
    names = []
    for module in modules:
        if not isinstance(module, dict) or "name" not in module:
            errors.append(f"module {module!r} is not an inline module with a name")
            continue
        names.append(module["name"])
    if not names or names[-1] != "natter":
        errors.append(f"the last module must be natter, modules are {names}")
    else:
        natter = modules[-1]
        if natter.get("buildsystem") != "meson":
            errors.append("the natter module is not built with meson")
        kinds = [s.get("type") for s in natter.get("sources", [])]
        if kinds not in (["dir"], ["git"]):
            errors.append(f"the natter module's sources are {kinds}, expected one dir or git source")

    for module in modules[:-1]:
        if not isinstance(module, dict):
            continue
        sources = module.get("sources", [])
        if not sources:
            errors.append(f"module {module.get('name')} has no sources")
        for source in sources:
            if source.get("type") not in ("archive", "file"):
                errors.append(f"module {module.get('name')}: source type {source.get('type')!r}, expected a source archive")
            if not str(source.get("url", "")).startswith("https://"):
                errors.append(f"module {module.get('name')}: source url {source.get('url')!r} is not https")
            if not SHA256.match(str(source.get("sha256", ""))):
                errors.append(f"module {module.get('name')}: source has no sha256 checksum")

    deps = meson_dependencies(root)
    if not deps:
        errors.append(f"found no dependency() in the meson files under {root}")
    needed_modules = set()
    for name, files in sorted(deps.items()):
        provider = PROVIDERS.get(name)
        if provider is None:
            errors.append(f"dependency('{name}') ({', '.join(files)}) is not in tests/check-flatpak.py's table: "
                          "say whether org.gnome.Platform ships it or which manifest module builds it")
        elif provider != "runtime":
            needed_modules.add(provider)
            if provider not in names:
                errors.append(f"dependency('{name}') needs the module {provider!r}, which the manifest does not build")

    for name in names[:-1]:
        if name not in needed_modules:
            # Not an error: a module may be added ahead of the code using it.
            print(f"note: module {name!r} is built, but no dependency() needs it yet")

    if errors:
        for e in errors:
            print(f"FAIL: {e}")
        return 1
    print(f"ok: {os.path.basename(manifest_path)} parses; modules {names}; "
          f"dependencies {sorted(deps)} are all provided")
    return 0


if __name__ == "__main__":
    sys.exit(main())
