#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A small window, "Drag me", that drags the files named on the command
line the way GNOME Files does: as a file list and as text (their paths).
The end-to-end tests drag from it into Natter with real pointer events;
it prints "ready" once it is on screen, and quits when stdin closes.

  drag_source.py FILE...
"""

import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, Gio, GLib, GObject, Gtk  # noqa: E402


def main():
    paths = sys.argv[1:]
    files = [Gio.File.new_for_path(p) for p in paths]
    app = Gtk.Application(application_id=None, flags=Gio.ApplicationFlags.NON_UNIQUE)

    def prepare(source, x, y):
        file_list = Gdk.FileList.new_from_array(files)
        as_files = Gdk.ContentProvider.new_for_value(GObject.Value(Gdk.FileList, file_list))
        as_text = Gdk.ContentProvider.new_for_value("\n".join(paths))
        return Gdk.ContentProvider.new_union([as_files, as_text])

    def activate(app):
        window = Gtk.ApplicationWindow(application=app, title="Drag source")
        window.set_default_size(120, 60)
        window.set_decorated(False)
        label = Gtk.Label(label="Drag me")
        source = Gtk.DragSource(actions=Gdk.DragAction.COPY)
        source.connect("prepare", prepare)
        label.add_controller(source)
        window.set_child(label)

        def shown():
            print("ready", flush=True)
            return False
        window.connect("map", lambda w: GLib.idle_add(shown))
        window.present()

        def stdin_closed(channel, condition):
            app.quit()
            return False
        GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()),
                          GLib.PRIORITY_DEFAULT, GLib.IOCondition.HUP | GLib.IOCondition.IN, stdin_closed)

    app.connect("activate", activate)
    app.run([])


if __name__ == "__main__":
    main()
