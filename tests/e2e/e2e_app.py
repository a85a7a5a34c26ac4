# SPDX-License-Identifier: GPL-3.0-or-later
"""Starts the real natter binary and drives it as a person would.

The window is read and driven through the accessibility tree (AT-SPI):
buttons are pressed with their action, text is typed with EditableText and
Enter is a synthesized key press; the application is quit through its
GApplication action over D-Bus. Nothing here calls into Natter's code.

Synchronisation is by polling the tree with a short interval until a
condition holds, with a timeout: never a fixed sleep standing in for "the
app is probably done by now".
"""

import json
import os
import signal
import subprocess
import time

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, Gio, GLib  # noqa: E402

APP_ID = "io.github.natter.Natter"
APP_PATH = "/io/github/natter/Natter"
POLL = 0.1


class E2EFailure(Exception):
    pass


# The app run that is expected to stay up (set while it runs, cleared when
# the test quits or kills it): every wait checks it, so a crash fails the
# wait at once, naming the signal, instead of after its timeout.
_running_app = None


def _check_running_app():
    if _running_app is not None:
        _running_app.check_alive()


def wait_until(predicate, timeout, what):
    """Polls @predicate until it returns something truthy; returns that."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        _check_running_app()
        try:
            value = predicate()
            if value:
                return value
        except gi.repository.GLib.Error as e:  # a widget went away mid-walk
            last_error = e
        if time.monotonic() > deadline:
            raise E2EFailure("timed out after %.0f s waiting for %s%s"
                             % (timeout, what,
                                " (last error: %s)" % last_error if last_error else ""))
        time.sleep(POLL)


def _showing(acc):
    """Whether @acc takes room on screen. GTK 4.8 marks every widget VISIBLE
    and none SHOWING, hidden stack pages included; an unmapped widget has
    an empty extent, so that is the test."""
    try:
        comp = acc.get_component_iface()
        if comp is None:
            return True  # e.g. a GtkStackPage: look at its child
        ext = comp.get_extents(Atspi.CoordType.WINDOW)
    except gi.repository.GLib.Error:
        return False
    return ext.width > 0 and ext.height > 0


def walk(root, showing_only=True):
    """Yields every accessible under @root (depth first), skipping hidden
    subtrees: GTK 4.8 exposes every page of a stack, shown or not."""
    stack = [root]
    while stack:
        acc = stack.pop()
        yield acc
        try:
            n = acc.get_child_count()
        except gi.repository.GLib.Error:
            continue
        children = []
        for i in range(n):
            try:
                child = acc.get_child_at_index(i)
            except gi.repository.GLib.Error:
                child = None
            if child is None:
                continue
            if showing_only and not _showing(child):
                continue
            children.append(child)
        stack.extend(reversed(children))


def name_of(acc):
    try:
        return acc.get_name() or ""
    except gi.repository.GLib.Error:
        return ""


def role_of(acc):
    try:
        return acc.get_role()
    except gi.repository.GLib.Error:
        return None


def find_all(root, role=None, name=None, contains=None, showing_only=True):
    found = []
    for acc in walk(root, showing_only):
        if role is not None and role_of(acc) != role:
            continue
        n = name_of(acc)
        if name is not None and n != name:
            continue
        if contains is not None and contains not in n:
            continue
        found.append(acc)
    return found


def find(root, role=None, name=None, contains=None):
    items = find_all(root, role, name, contains)
    return items[0] if items else None


def texts(root):
    """Every showing label's text and every text widget's contents."""
    out = []
    for acc in walk(root):
        role = role_of(acc)
        if role == Atspi.Role.LABEL:
            out.append(name_of(acc))
        elif role in (Atspi.Role.TEXT, Atspi.Role.PARAGRAPH, Atspi.Role.ENTRY):
            text = acc.get_text_iface()
            if text is not None:
                out.append(text.get_text(0, text.get_character_count()))
    return out


def press(acc):
    """Activates a button the way a screen reader or a click would."""
    action = acc.get_action_iface()
    if action is None or action.get_n_actions() == 0:
        raise E2EFailure("%r has no action" % name_of(acc))
    action.do_action(0)


def type_text(acc, text):
    editable = acc.get_editable_text_iface()
    if editable is None:
        raise E2EFailure("%r is not editable" % name_of(acc))
    editable.set_text_contents(text)


def click(acc):
    """A left click in the middle of @acc (XTest). GTK 4 reports no screen
    coordinates; without a window manager the window's surface sits at the
    screen's origin, so surface coordinates are screen coordinates."""
    ext = acc.get_component_iface().get_extents(Atspi.CoordType.WINDOW)
    Atspi.generate_mouse_event(ext.x + ext.width // 2, ext.y + ext.height // 2, "b1c")


def focused(acc):
    try:
        return acc.get_state_set().contains(Atspi.StateType.FOCUSED)
    except gi.repository.GLib.Error:
        return False


def press_enter(acc):
    """Focuses @acc and synthesizes Return (an X key event through XTest).

    GTK 4.8 does not implement Component.GrabFocus, so focus comes the way
    a person gives it: a click into the field."""
    if not focused(acc):
        try:
            acc.get_component_iface().grab_focus()
        except gi.repository.GLib.Error:
            click(acc)
    wait_until(lambda: focused(acc), 5, "keyboard focus in %r" % name_of(acc))
    Atspi.generate_keyboard_event(0xff0d, None, Atspi.KeySynthType.PRESSRELEASE
                                  | Atspi.KeySynthType.SYM)


# X modifier masks; AT-SPI's synth types are values, not flags, so a
# modifier is held by locking it around the key (LOCKMODIFIERS).
MODIFIER_MASKS = {"Shift": 1 << 0, "Control": 1 << 2, "Alt": 1 << 3}
KEYSYMS = {"Return": 0xff0d, "Tab": 0xff09, "Escape": 0xff1b, "Delete": 0xffff,
           "F2": 0xffbf, "space": 0x20, "Left": 0xff51, "Down": 0xff54, "Up": 0xff52, "End": 0xff57}


def key(name, *modifiers):
    """Synthesizes a key press on whatever has the keyboard focus, the way a
    person types it (XTest through the accessibility registry): @name is a
    key of KEYSYMS or one character; @modifiers are held around it."""
    sym = KEYSYMS.get(name)
    if sym is None:
        if len(name) != 1:
            raise E2EFailure("no keysym for %r" % name)
        sym = ord(name)
    mask = 0
    for m in modifiers:
        mask |= MODIFIER_MASKS[m]
    if mask:
        Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.LOCKMODIFIERS)
    try:
        Atspi.generate_keyboard_event(sym, None, Atspi.KeySynthType.SYM)
    finally:
        if mask:
            Atspi.generate_keyboard_event(mask, None, Atspi.KeySynthType.UNLOCKMODIFIERS)


def type_keys(text):
    """Types @text into the focused widget, key by key."""
    Atspi.generate_keyboard_event(0, text, Atspi.KeySynthType.STRING)


def focused_in(root):
    """The focused accessible under @root, or None."""
    for acc in walk(root):
        if focused(acc):
            return acc
    return None


def screenshot(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    subprocess.run(["import", "-window", "root", path], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class NatterApp:
    """One run of the natter binary on a private data dir and HOME."""

    def __init__(self, binary, home, data_dir, schema_dir, log_path):
        self.binary = binary
        self.home = home
        self.data_dir = data_dir
        self.schema_dir = schema_dir
        self.log_path = log_path
        self.proc = None
        self._exit_expected = False
        self.root = None
        self._conversation = None
        env = dict(os.environ)
        # The accessibility bridge must be on, whatever the test env says.
        for key in ("GTK_A11Y", "NO_AT_BRIDGE", "G_DEBUG", "GSETTINGS_BACKEND"):
            env.pop(key, None)
        env.update({
            # A critical or a warning is a bug: it aborts the app (and
            # fails the test) instead of scrolling by in the log while the
            # app carries on in a state nobody meant; a GTK warning such as
            # a widget snapshot without an allocation shows up here as it
            # does in the UI tests. E2E_APP_G_DEBUG overrides it.
            "G_DEBUG": os.environ.get("E2E_APP_G_DEBUG", "fatal-criticals,fatal-warnings"),
            "HOME": home,
            "XDG_CONFIG_HOME": os.path.join(home, "config"),
            "XDG_DATA_HOME": os.path.join(home, "share"),
            "XDG_CACHE_HOME": os.path.join(home, "cache"),
            "XDG_STATE_HOME": os.path.join(home, "state"),
            "NATTER_DATA_DIR": data_dir,
            "GSETTINGS_SCHEMA_DIR": schema_dir,
            # Settings persist across restarts in the private HOME.
            "GSETTINGS_BACKEND": "keyfile",
            "NATTER_API_KEY": "sk-e2e-not-a-secret",
            "GDK_DEBUG": "gl-disable",
            "LC_ALL": "C.UTF-8",
            "LANGUAGE": "C",
        })
        if "ASAN_OPTIONS" in env:
            # With the accessibility bridge on, the app makes more than
            # 2,048 quarks, and GLib then retires (never frees, by design)
            # the 16 KiB quark block its constructor allocated: a "direct
            # leak" whose stack (g_malloc from _dl_init) cannot be told
            # apart without slow unwinding. Leaks are the unit tests' job;
            # here ASan still stops at any memory error.
            env["ASAN_OPTIONS"] += ":detect_leaks=0"
        self.env = env

    def configure(self, base_url, auto_title=False):
        """Points the default provider at @base_url with model "m"; the
        automatic title only with @auto_title."""
        settings = [
            ("providers", "[('test', 'Test', '%s')]" % base_url),
            ("default-provider", "test"),
            ("default-model", "m"),
            # The scenarios check titles taken from the first message; the
            # mock would answer a title request with its canned text.
            ("auto-title", "true" if auto_title else "false"),
        ]
        for key, value in settings:
            subprocess.run(["gsettings", "set", APP_ID, key, value],
                           env=self.env, check=True)

    def configure_readme(self, base_url):
        """A fresh profile set up as README.md's "Pointing Natter at a
        server" says: the list of providers set by hand, with no default
        provider chosen (the list's first is used) and `default-model`
        left empty (the provider's first model)."""
        settings = [
            ("providers", "[('local', 'Local', '%s')]" % base_url),
            ("auto-title", "false"),
        ]
        for key, value in settings:
            subprocess.run(["gsettings", "set", APP_ID, key, value],
                           env=self.env, check=True)
        for key in ("default-provider", "default-model"):
            out = subprocess.run(["gsettings", "get", APP_ID, key],
                                 env=self.env, check=True, capture_output=True, text=True)
            if out.stdout.strip() != "''":
                raise E2EFailure("a fresh profile has %s %s" % (key, out.stdout.strip()))

    def start(self, timeout=30):
        try:
            return self._start(timeout)
        except E2EFailure:
            with open(self.log_path) as f:
                tail = f.read()[-400:]
            if "cannot open display" not in tail:
                raise
        # Seen only when several `xvfb-run -a` start at once on a shared
        # machine: not the application's fault; say so and try once more.
        print("e2e: natter could not open DISPLAY=%s; retrying once"
              % os.environ.get("DISPLAY"), flush=True)
        time.sleep(1)
        return self._start(timeout)

    def _start(self, timeout):
        log = open(self.log_path, "a")
        log.write("---- start %s\n" % time.strftime("%H:%M:%S"))
        log.flush()
        self.proc = subprocess.Popen([self.binary], env=self.env,
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        pid = self.proc.pid

        def app_root():
            if self.proc.poll() is not None:
                raise E2EFailure("natter exited with %s at startup (log: %s)"
                                 % (self.proc.returncode, self.log_path))
            desktop = Atspi.get_desktop(0)
            for i in range(desktop.get_child_count()):
                app = desktop.get_child_at_index(i)
                if app is None:
                    continue
                try:
                    if app.get_process_id() == pid and app.get_child_count() > 0:
                        return app
                except gi.repository.GLib.Error:
                    continue
            return None

        self._conversation = None
        global _running_app
        _running_app = self
        self._exit_expected = False
        self.root = wait_until(app_root, timeout, "natter's window in the accessibility tree")
        wait_until(lambda: find(self.root, Atspi.Role.FRAME), timeout, "the window")
        return self

    def check_alive(self):
        """Raises E2EFailure if the app has exited on its own (a crash, or
        the abort a critical causes under G_DEBUG=fatal-criticals)."""
        if self.proc is None or self._exit_expected or self.proc.poll() is None:
            return
        global _running_app
        if _running_app is self:
            _running_app = None
        status = self.proc.returncode
        how = ("killed by signal %d" % -status) if status < 0 else ("exit status %d" % status)
        raise E2EFailure("natter exited unexpectedly (%s); log: %s" % (how, self.log_path))

    def _expect_exit(self):
        self.check_alive()
        self._exit_expected = True
        global _running_app
        if _running_app is self:
            _running_app = None

    def quit(self, timeout=30):
        """Quits through the GApplication action, as the menu would."""
        self._expect_exit()
        subprocess.run(["gdbus", "call", "--session", "--dest", APP_ID,
                        "--object-path", APP_PATH, "--method",
                        "org.gtk.Actions.Activate", "quit", "[]", "{}"],
                       env=self.env, check=True, stdout=subprocess.DEVNULL,
                       timeout=timeout)
        self.proc.wait(timeout)
        self.root = None
        return self.proc.returncode

    def kill9(self):
        self._expect_exit()
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self.root = None

    def stop_if_running(self):
        global _running_app
        if _running_app is self:
            _running_app = None
        self._exit_expected = True
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def child_past_the_windows(self):
        """Asks the app's accessibility root, over the accessibility bus, for
        the child one past its visible windows, as a screen reader does that
        counted a dialog that has closed since; returns the reply's object
        path. The app must answer, not crash."""
        session = Gio.bus_get_sync(Gio.BusType.SESSION)
        address = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress",
                                    None, GLib.VariantType("(s)"), 0, 10000).unpack()[0]
        bus = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
        try:
            dbus = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
            names = bus.call_sync(*dbus, "ListNames", None, GLib.VariantType("(as)"),
                                  0, 10000).unpack()[0]
            name = None
            for candidate in names:
                if not candidate.startswith(":"):
                    continue
                try:
                    pid = bus.call_sync(*dbus, "GetConnectionUnixProcessID",
                                        GLib.Variant("(s)", (candidate,)), GLib.VariantType("(u)"),
                                        0, 10000).unpack()[0]
                except GLib.Error:
                    continue
                if pid == self.proc.pid:
                    name = candidate
            if name is None:
                raise E2EFailure("natter is not on the accessibility bus")
            index = self.root.get_child_count()
            reply = bus.call_sync(name, "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible",
                                  "GetChildAtIndex", GLib.Variant("(i)", (index,)), None, 0, 10000)
            return reply.unpack()[0][1]
        except GLib.Error as e:
            self.check_alive()
            raise E2EFailure("GetChildAtIndex past the windows failed: %s" % e.message)
        finally:
            bus.close_sync(None)

    # -- reading and driving the window ---------------------------------

    def find(self, role=None, name=None, contains=None):
        return find(self.root, role, name, contains)

    def wait_for(self, what, timeout=20, role=None, name=None, contains=None):
        return wait_until(lambda: self.find(role, name, contains), timeout, what)

    def texts(self):
        return texts(self.root)

    def wait_text(self, needle, timeout=20):
        return wait_until(lambda: any(needle in t for t in self.texts()),
                          timeout, "a text containing %r" % needle)

    def composer(self):
        return self.wait_for("the composer", role=Atspi.Role.TEXT, name="Message")

    def new_chat(self):
        button = self.wait_for("the New Chat button", role=Atspi.Role.PUSH_BUTTON,
                               name="New Chat")
        # A window with nothing to go back to starts on a new chat. The
        # press's action is carried out later than the keys typed next,
        # so pressing then would take the window away from the message
        # just sent: press only where the window shows something else.
        if not self.find(Atspi.Role.LABEL, name="Type a message below to begin"):
            press(button)
        # The window is on the new, empty session (its draft is in the
        # composer) only once the "New Chat" page shows.
        self.wait_for("the empty new chat", role=Atspi.Role.LABEL,
                      name="Type a message below to begin")
        self.composer()

    def conversation(self):
        # One list for the window's life: walking the whole window to find
        # it again on every poll would make polls slow.
        if self._conversation is None:
            self._conversation = self.wait_for("the conversation", role=Atspi.Role.LIST,
                                               name="Conversation")
        return self._conversation

    def send(self, message):
        """Types @message into the composer and presses Enter; returns once
        the message shows in the conversation."""
        entry = self.composer()
        type_text(entry, message)
        wait_until(lambda: message in entry.get_text_iface().get_text(0, -1),
                   5, "the typed message in the composer")
        press_enter(entry)
        wait_until(lambda: entry.get_text_iface().get_character_count() == 0
                   and find(self.conversation(), Atspi.Role.LABEL, name=message),
                   10, "the sent message in the conversation and an empty composer")

    def sidebar_titles(self):
        sidebar = self.wait_for("the sidebar", role=Atspi.Role.LIST, name="Conversations")
        titles = []
        for i in range(sidebar.get_child_count()):
            item = sidebar.get_child_at_index(i)
            labels = [name_of(a) for a in find_all(item, Atspi.Role.LABEL, showing_only=False)]
            titles.append(labels)
        return titles

    def select_session(self, title):
        sidebar = self.wait_for("the sidebar", role=Atspi.Role.LIST, name="Conversations")

        def item():
            for i in range(sidebar.get_child_count()):
                it = sidebar.get_child_at_index(i)
                if find(it, Atspi.Role.LABEL, name=title) is not None:
                    return (i, it)
            return None

        index, it = wait_until(item, 20, "the session %r in the sidebar" % title)
        selection = sidebar.get_selection_iface()
        if selection is not None:
            selection.select_child(index)
        return it


def cli(binary, data_dir, env, *args):
    """Runs the natter command line against @data_dir (no window running)."""
    return subprocess.run([binary] + list(args), env=dict(env, NATTER_DATA_DIR=data_dir),
                          capture_output=True, text=True, timeout=60)


def check_store(binary, data_dir, env):
    """Every session lists without error and every session shows strictly.

    The command line reads the logs strictly and reports a damaged file as
    an error, so this is the check that "no file is corrupt". Returns the
    parsed `sessions --json` array.
    """
    result = cli(binary, data_dir, env, "sessions", "--json")
    if result.returncode != 0:
        raise E2EFailure("natter sessions failed: %s" % result.stderr)
    sessions = json.loads(result.stdout)
    for entry in sessions:
        if entry.get("error"):
            raise E2EFailure("session %s is damaged: %s" % (entry["sessionId"], entry["error"]))
        shown = cli(binary, data_dir, env, "show", entry["sessionId"], "--json")
        if shown.returncode != 0:
            raise E2EFailure("natter show %s failed: %s" % (entry["sessionId"], shown.stderr))
        json.loads(shown.stdout)
    for dirpath, _, files in os.walk(os.path.join(data_dir)):
        for f in files:
            if f.endswith(".jsonl"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    for n, line in enumerate(fh.read().split(b"\n")):
                        if line:
                            try:
                                json.loads(line)
                            except ValueError:
                                raise E2EFailure("%s line %d is not JSON" % (f, n + 1))
    return sessions
