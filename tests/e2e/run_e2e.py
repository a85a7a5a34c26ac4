#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The real natter binary, driven end to end as a person uses it.

  run_e2e.py --server scripted     our own scripted server, every step
  run_e2e.py --server mock-llm     @dwmkerr/mock-llm (written by others),
                                   the steps it can serve; exit 77 (skip)
                                   when it is not installed
  run_e2e.py --server scripted --keyboard
                                   one scenario driven only by
                                   synthesized key presses (every
                                   feature works from the keyboard)
  run_e2e.py --server scripted --tool-servers
                                   a tool server that hangs at start while
                                   the window sends a message
  run_e2e.py --server scripted --leftovers
                                   what killed writes left is removed at
                                   the window's start
  run_e2e.py --server scripted --drop
                                   drags a file from another window onto
                                   the message field: it is attached
  run_e2e.py --server scripted --quit
                                   Ctrl+Q while an answer streams: it is
                                   stopped and kept, not lost
  run_e2e.py --server scripted --wheel
                                   turns the mouse wheel over a code
                                   block with wide lines: the
                                   conversation scrolls
  run_e2e.py --server scripted --versions
                                   switches between two versions of an
                                   answer with real clicks on the arrows
  run_e2e.py --server scripted --drafts
                                   words typed with real keys and not
                                   sent come back after Ctrl+Q and after
                                   kill -9
  run_e2e.py --server scripted --tab
                                   Tab and Shift+Tab pressed as real keys
                                   go round the whole window, in a new
                                   chat and in a long conversation
  run_e2e.py --server scripted --readme
                                   a fresh profile with only the README's
                                   settings (a list of providers, no
                                   default provider or model): the first
                                   message is answered by the list's first

Needs a display and a session bus (meson test runs inside xvfb-run and
dbus-run-session) and /usr/bin/python3 with gi's Atspi. Environment:
NATTER_BIN (the binary), NATTER_SCHEMA_DIR (compiled schemas),
NATTER_MOCK_LLM_DIR (the npm prefix mock-llm is installed in),
E2E_SCREENSHOT_DIR (where stepN.png go).
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# `dbus-run-session -- xvfb-run …` starts the bus before the display exists,
# so the accessibility bus and its registry daemon (activated from it) would
# start without DISPLAY and could not synthesize key presses. Give the bus
# the display before anything talks to AT-SPI.
if os.environ.get("DISPLAY"):
    subprocess.run(["dbus-update-activation-environment", "DISPLAY", "XAUTHORITY"],
                   check=True)

from e2e_app import (MODIFIER_MASKS, Atspi, E2EFailure, NatterApp,  # noqa: E402
                     check_store, cli, click, find_all, focused, focused_in, key, name_of, press,
                     role_of, screenshot, texts, type_keys, type_text, walk, wait_until)
from e2e_server import ScriptedServer  # noqa: E402

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))

SECRET = "The launch code is PELICAN-42."
ANSWER_FROM_FILE = "The file says PELICAN-42, so the code is PELICAN-42."
DENIED_ANSWER = "I was not allowed to read it, so here is my best guess anyway."
QUESTION = "Which colour do you like?"
SECRET_PATH_MARK = "secret.txt"
MOCK_BLUE = "mock-llm heard your answer: blue."
MOCK_BACK = "mock-llm is back."
MOCK_GREETING = "Hello from mock-llm, streamed in chunks by someone else's server."
KEYBOARD_HELLO = "Hello from the keyboard"
KEYBOARD_ANSWER = "Keys only, and it still works."
KEYBOARD_TITLE = "Typed title"
CODE_ASK = "Which command lists files"
CODE_LINE = "ls -la ~/Documents"
CODE_TITLE = "Listing files"
# A first answer whose only code block is one line, cut into small pieces
# the way a real server streams it: the fence and the line arrive apart.
CODE_CHUNKS = ["Use", " this", ":\n\n", "``", "`sh", "\n", "ls", " -la", " ~/Doc", "uments",
               "\n``", "`\n", "\nIt", " lists", " them."]
TOOLS_HELLO = "Hello while a tool server hangs"
TOOLS_ANSWER = "Answered without waiting for the hung server."
VERSIONS_ASK = "Tell me a joke"
VERSIONS_ANSWER = "A joke with a punchline."
WHEEL_ASK = "Show me a wide script"
WHEEL_LINE = "echo line-%02d"
WHEEL_END = "That is the whole script."
# A long answer whose code block has lines wider than any window, so the
# block scrolls sideways, with text above and below it to scroll through.
WHEEL_ANSWER = ("\n\n".join("Paragraph %d before the script, long enough to wrap over a line or two "
                             "in a window of an ordinary size." % n for n in range(12))
                + "\n\n```sh\n"
                + "\n".join((WHEEL_LINE % n) + " " + "x" * 240 for n in range(12))
                + "\n```\n\n"
                + "\n\n".join("Paragraph %d after the script." % n for n in range(8))
                + "\n\n| " + " | ".join("Column %d" % n for n in range(14)) + " |\n"
                + "|" + "---|" * 14 + "\n"
                + "\n".join("| " + " | ".join(("cell-%d-%d" % (r, c)) + " wide" * 3 for c in range(14)) + " |"
                             for r in range(6))
                + "\n\n" + "\n\n".join("Paragraph %d after the table." % n for n in range(6))
                + "\n\n" + WHEEL_END)
TAB_ASK = "Tell me a long story"
TAB_END = "And that is the end of the story."
# Three of these fill more than a window: the first turns are scrolled
# away when the conversation opens at its newest.
TAB_ANSWER = ("\n\n".join("Part %d of a story that goes on long enough to fill a good part of "
                           "the window on its own." % n for n in range(24))
              + "\n\n" + TAB_END)
A11Y_ASK = "What is in my notes"
A11Y_ANSWER = "Your notes say to buy basil."
README_HELLO = "My first message"
README_ANSWER = "The provider's first model answers the first message."
GREETING = ("Hello! I am the scripted model, streaming this answer to you in small "
            "pieces, two words at a time, so that you can watch it grow.")


def log(msg):
    print("[e2e %s] %s" % (time.strftime("%H:%M:%S"), msg), flush=True)


# -- servers ----------------------------------------------------------------

class Scripted:
    """Our scripted server: every step, tool calls streamed."""

    name = "scripted"
    serves = {1, 2, 3, 4, 5, 6}

    def __init__(self, workdir):
        self.server = ScriptedServer()
        self.hold = threading.Event()
        s = self.server
        # The automatic title's request quotes the conversation: it must
        # match before the rule of the message it quotes.
        s.add_rule("Write a title for the conversation", [("text", CODE_TITLE)])
        s.add_rule("tool:" + SECRET, [("text", ANSWER_FROM_FILE)])
        s.add_rule("tool:" + "Blue", [("text", "Blue is a fine colour; the turn is complete.")])
        s.add_rule("tool:" + "Green", [("text", "Green it is, even after a restart.")])
        s.add_rule("Permission denied", [("text", DENIED_ANSWER)])
        # The answer stops half-way until the test has seen it there: seeing
        # it part-way must not depend on how fast a loaded machine samples.
        self.greeting_seen = threading.Event()
        s.add_rule("Hello natter", [("text", GREETING[:GREETING.index(" two words")]),
                                    ("hold", self.greeting_seen),
                                    ("text", GREETING[GREETING.index(" two words"):])])
        s.add_rule("Read the secret", [("tool", "read_file", {"path": os.path.join(workdir, "secret.txt")})])
        s.add_rule("Ask me", [("tool", "ask_human", {"question": QUESTION})])
        s.add_rule("Answer slowly", [("text", "This answer starts streaming and then"),
                                     ("hold", self.hold),
                                     ("text", " finishes after the resume.")])
        s.add_rule("Are you back", [("text", "Yes, the server is back.")])
        s.add_rule(KEYBOARD_HELLO, [("text", KEYBOARD_ANSWER)])
        s.add_rule(README_HELLO, [("text", README_ANSWER)])
        s.add_rule(TOOLS_HELLO, [("text", TOOLS_ANSWER)])
        s.add_rule(A11Y_ASK, [("text", A11Y_ANSWER)])
        s.add_rule(TAB_ASK, [("chunks", [TAB_ANSWER], 0.01)])
        s.add_rule(VERSIONS_ASK, [("text", VERSIONS_ANSWER)])
        s.add_rule("Is anyone there", [("text", "Nobody should ever see this.")])
        s.add_rule(CODE_ASK, [("chunks", CODE_CHUNKS, 0.05)])
        s.add_rule(WHEEL_ASK, [("chunks", [WHEEL_ANSWER], 0.05)])

    @property
    def base_url(self):
        return self.server.base_url

    @property
    def port(self):
        return self.server.port

    def start(self):
        self.server.start()

    def stop(self):
        self.server.stop()

    def told_denied(self):
        return any("Permission denied" in json.dumps(r["messages"][-1])
                   for r in self.server.requests if r.get("messages"))


class MockLlm:
    """@dwmkerr/mock-llm on 127.0.0.1: streamed text, unstreamed tool calls."""

    name = "mock-llm"
    serves = {1, 2, 3, 6}

    def __init__(self, workdir, prefix, log_path):
        self.main = os.path.join(prefix, "node_modules", "@dwmkerr", "mock-llm",
                                 "dist", "main.js")
        self.config = os.path.join(workdir, "mock-llm.yaml")
        with open(os.path.join(HERE, "mock-llm.yaml")) as f:
            text = f.read()
        with open(self.config, "w") as f:
            f.write(text.replace("@SECRET_PATH@", os.path.join(workdir, "secret.txt")))
        self.log_path = log_path
        self.proc = None
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def start(self):
        env = dict(os.environ, HOST="127.0.0.1", PORT=str(self.port))
        log_file = open(self.log_path, "a")
        self.proc = subprocess.Popen(["node", self.main, "--config", self.config],
                                     env=env, stdout=log_file, stderr=subprocess.STDOUT)
        log_file.close()

        def ready():
            if self.proc.poll() is not None:
                raise E2EFailure("mock-llm exited with %s (log: %s)"
                                 % (self.proc.returncode, self.log_path))
            try:
                with socket.create_connection(("127.0.0.1", self.port), 0.5):
                    return True
            except OSError:
                return False

        wait_until(ready, 30, "mock-llm to listen on 127.0.0.1:%d" % self.port)

    def stop(self):
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(10)
            self.proc = None

    def told_denied(self):
        return True  # mock-llm records nothing; the answer rule matched on it


# -- the steps --------------------------------------------------------------

class Run:
    def __init__(self, args):
        self.binary = os.environ["NATTER_BIN"]
        self.schema_dir = os.environ["NATTER_SCHEMA_DIR"]
        self.shots = os.environ.get("E2E_SCREENSHOT_DIR") or os.path.join(
            os.environ.get("MESON_BUILD_ROOT", "."), "tests", "e2e", "screenshots")
        self.shots = os.path.join(self.shots, args.server)
        self.work = tempfile.mkdtemp(prefix="natter-e2e-")
        self.home = os.path.join(self.work, "home")
        self.data = os.path.join(self.work, "data")
        os.makedirs(self.home)
        with open(os.path.join(self.work, "secret.txt"), "w") as f:
            f.write(SECRET + "\n")
        self.app_log = os.path.join(self.work, "natter.log")
        self.app = NatterApp(self.binary, self.home, self.data, self.schema_dir, self.app_log)
        if args.server == "scripted":
            self.server = Scripted(self.work)
        else:
            self.server = MockLlm(self.work, args.mock_llm_dir,
                                  os.path.join(self.work, "mock-llm.log"))
        self.keep = args.keep

    def shot(self, n, suffix=""):
        path = os.path.join(self.shots, "step%d%s.png" % (n, suffix))
        screenshot(path)
        log("screenshot %s" % path)

    def verify_store(self):
        """Stops the app, reads every log strictly with the real CLI."""
        if self.app.proc is not None:
            self.app.check_alive()
        if self.app.proc is not None and self.app.proc.poll() is None:
            self.app.quit()
        return check_store(self.binary, self.data, self.app.env)

    def start_app(self):
        self.app.start()
        return self.app

    # 1. Type a message, see the streamed answer, the session on top.
    def step1(self):
        app = self.start_app()
        app.new_chat()
        app.send("Hello natter")
        # The answer grows while it streams: see it part-way, then whole.
        # Only our server can hold a stream half-way until we have looked;
        # mock-llm's whole stream may be over before a loaded machine has
        # sampled the window once.
        greeting = GREETING if self.server.name == "scripted" else MOCK_GREETING
        if self.server.name == "scripted":
            half = GREETING[:GREETING.index(" two words")]
            conversation = app.conversation()
            wait_until(lambda: any(t.strip() == half for t in texts(conversation)),
                       20, "the first half of the answer")
            self.shot(1, "a")
            if any(greeting in t for t in texts(conversation)):
                raise E2EFailure("the whole answer showed while the server held it")
            self.server.greeting_seen.set()
        app.wait_text(greeting)
        wait_until(lambda: app.sidebar_titles() and "Hello natter" in " ".join(app.sidebar_titles()[0]),
                   20, "the session titled after the message on top of the sidebar")
        self.shot(1)
        log("sidebar: %r" % app.sidebar_titles())
        self.verify_store()

    def button_in(self, root, label, timeout=20):
        """The push button named @label (GTK 4.8 names a button with a
        mnemonic "_Allow Allow"), before one whose longer name only
        contains it, such as "Always Allow in This Conversation"."""
        def find():
            buttons = [(b, name_of(b).replace("_", "")) for b in find_all(root, Atspi.Role.PUSH_BUTTON)]
            exact = [b for b, name in buttons if name in (label, "%s %s" % (label, label))]
            within = [b for b, name in buttons if label in name]
            return (exact or within or [None])[0]
        return wait_until(find, timeout, "the %r button" % label)

    def permission(self, allow):
        app = self.app
        # The card says what the tool will do: "Read /…/secret.txt".
        card = app.wait_for("the permission card", contains="Read /")
        button = self.button_in(card, "Allow" if allow else "Deny")
        return card, button

    # 2. read_file: Allow runs it and the answer uses it; Deny in a second
    #    session tells the model, which answers anyway.
    def step2(self):
        app = self.start_app()
        app.new_chat()
        app.send("Read the secret file for me")
        card, allow = self.permission(True)
        if not any(SECRET_PATH_MARK in t for t in app.texts()):
            raise E2EFailure("the permission card does not show the path: %r" % app.texts())
        self.shot(2, "a")
        press(allow)
        app.wait_text(ANSWER_FROM_FILE)
        app.wait_for("read_file done", contains="read_file: Done")
        self.shot(2, "b")

        app.new_chat()
        app.send("Read the secret file again")
        card, deny = self.permission(False)
        press(deny)
        app.wait_text(DENIED_ANSWER)
        app.wait_for("read_file denied", contains="read_file: Denied")
        if not self.server.told_denied():
            raise E2EFailure("the model was not told that permission was denied")
        if any(ANSWER_FROM_FILE in t for t in app.texts()):
            raise E2EFailure("the denied session shows the allowed answer")
        self.shot(2)
        self.verify_store()

    def answer_question(self, answer):
        """Types @answer into the question card's entry and presses Send."""
        app = self.app
        label = app.wait_for("the question", role=Atspi.Role.LABEL, name=QUESTION)
        card = label
        while card is not None and not [e for e in find_all(card)
                                         if e.get_editable_text_iface() is not None]:
            card = card.get_parent()
        if card is None:
            raise E2EFailure("no entry next to the question")
        entry = [e for e in find_all(card) if e.get_editable_text_iface() is not None][0]
        type_text(entry, answer)
        press(self.button_in(card, "Send"))

    # 3. ask_human: the question appears; answer it; the turn completes.
    def step3(self):
        app = self.start_app()
        app.new_chat()
        app.send("Ask me something")
        app.wait_text(QUESTION)
        self.shot(3, "a")
        self.answer_question("Blue")
        app.wait_text("Blue is a fine colour" if self.server.name == "scripted" else MOCK_BLUE)
        self.shot(3)
        self.verify_store()

    # 4. Quit while a prompt is pending, start again: still there, still works.
    def step4(self):
        app = self.start_app()
        app.new_chat()
        app.send("Ask me before quitting")
        app.wait_text(QUESTION)
        status = app.quit()
        if status != 0:
            raise E2EFailure("natter exited with %d on quit" % status)
        sessions = check_store(self.binary, self.data, app.env)
        waiting = [s for s in sessions if s.get("title") == "Ask me before quitting"]
        if not waiting or waiting[0].get("latestTurnStatus") != "suspended":
            raise E2EFailure("the quit session is not suspended: %r" % waiting)
        app = self.start_app()
        app.select_session("Ask me before quitting")
        app.wait_text(QUESTION)
        self.shot(4, "a")
        self.answer_question("Green")
        app.wait_text("Green it is, even after a restart.")
        self.shot(4)
        self.verify_store()

    # 5. kill -9 in the middle of a streamed answer; the words streamed
    #    before the kill show at once under the interrupted turn; Resume
    #    completes it, and they stay, cut off, above the answer.
    def step5(self):
        app = self.start_app()
        app.new_chat()
        app.send("Answer slowly please")
        app.wait_text("This answer starts streaming")
        self.shot(5, "a")
        # The words reach the disk at most half a second after they came
        # (docs/format.md §11); the kill comes once they have.
        streams = os.path.join(self.data, "streams")
        wait_until(lambda: os.path.isdir(streams) and any(n.endswith(".json") for n in os.listdir(streams)),
                   30, "the streamed words to be kept on disk")
        app.kill9()
        self.server.hold.set()
        check_store(self.binary, self.data, app.env)
        app = self.start_app()
        app.select_session("Answer slowly please")
        app.wait_text("Interrupted before it finished")
        # Before anything is chosen, the words kept at the kill are there,
        # cut off, under the interrupted turn.
        app.wait_text("This answer starts streaming")
        app.wait_text("Cut off mid-answer")
        resume = self.button_in(app.root, "Resume")
        self.shot(5, "b")
        press(resume)
        app.wait_text("finishes after the resume.")
        app.wait_text("Cut off mid-answer")
        wait_until(lambda: sum("This answer starts streaming" in t for t in app.texts()) >= 2,
                   20, "the words streamed before the kill above the answer asked again")
        self.shot(5)
        self.verify_store()

    # 6. Provider down: the error names the address; back up: works again.
    def step6(self):
        app = self.start_app()
        self.server.stop()
        app.new_chat()
        app.send("Is anyone there?")
        address = "127.0.0.1:%d" % self.server.port
        failed = wait_until(lambda: next((t for t in app.texts() if t.startswith("Failed:")), None),
                            30, "the turn to fail")
        if address not in failed:
            raise E2EFailure("the failure does not name %s: %r" % (address, failed))
        self.button_in(app.root, "Try Again")
        self.shot(6, "a")
        self.server.start()
        app.send("Are you back?")
        app.wait_text("Yes, the server is back." if self.server.name == "scripted" else MOCK_BACK)
        self.shot(6)
        self.verify_store()


# -- keyboard only ----------------------------------------------------------

def keyboard_scenario(run):
    """Creates a chat, sends a message, answers a permission prompt, renames
    the chat and deletes it and undoes that, with nothing but key presses;
    then checks what is on disk."""
    app = run.start_app()
    shot = run.shot
    # Ready for keys once the header shows. There is no window manager to
    # give the window the keyboard: X sends keys to the window under the
    # pointer (PointerRoot), so the pointer rests on the window, unclicked.
    app.wait_for("the New Chat button", role=Atspi.Role.PUSH_BUTTON, name="New Chat")
    ext = app.find(Atspi.Role.FRAME).get_component_iface().get_extents(Atspi.CoordType.WINDOW)
    Atspi.generate_mouse_event(ext.x + ext.width // 2, ext.y + 10, "abs")
    wait_until(lambda: app.find(Atspi.Role.FRAME).get_state_set().contains(Atspi.StateType.ACTIVE),
               10, "the window to be active")

    # Ctrl+N: a new chat, the keyboard in the composer.
    key("n", "Control")
    app.wait_for("the empty new chat", role=Atspi.Role.LABEL, name="Type a message below to begin")
    composer = app.composer()
    wait_until(lambda: focused(composer), 10, "the composer focused after Ctrl+N")

    # Type, Enter: the answer streams in; the composer keeps the focus.
    type_keys(KEYBOARD_HELLO)
    wait_until(lambda: KEYBOARD_HELLO in composer.get_text_iface().get_text(0, -1),
               10, "the typed message in the composer")
    key("Return")
    app.wait_text(KEYBOARD_ANSWER)
    wait_until(lambda: focused(composer), 10, "the composer still focused after sending")
    shot(1, "-keyboard-sent")

    # A tool wants permission: Tab from the composer is Allow, Space presses it.
    type_keys("Read the secret file, please")
    key("Return")
    card = app.wait_for("the permission card", contains="Read /")
    allow = run.button_in(card, "Allow")
    key("Tab")
    wait_until(lambda: focused(allow), 10, "Allow focused after Tab from the composer")
    shot(2, "-keyboard-allow")
    key("space")
    app.wait_text(ANSWER_FROM_FILE)
    app.wait_for("read_file done", contains="read_file: Done")
    wait_until(lambda: focused(composer), 10, "the composer focused again once the prompt went")

    # F2: the rename dialog, its title selected with Ctrl+A and typed over.
    key("F2")
    app.wait_for("the rename dialog", role=Atspi.Role.LABEL, name="Rename Conversation")
    key("a", "Control")
    type_keys(KEYBOARD_TITLE)
    shot(3, "-keyboard-rename")
    key("Return")
    wait_until(lambda: any(KEYBOARD_TITLE in labels for labels in app.sidebar_titles()),
               20, "the typed title in the sidebar")
    # The dialog has gone: a reader that counted it asks for one window too
    # many. GTK 4.8 then hands out the last toplevel, which must not be a
    # hidden one (it has no object path: a critical, then a crash).
    path = app.child_past_the_windows()
    log("child past the windows: %s" % path)
    app.check_alive()

    # Ctrl+F, Tab: into the list; Delete: gone behind an undo toast.
    sidebar = app.wait_for("the sidebar", role=Atspi.Role.LIST, name="Conversations")
    key("f", "Control")
    wait_until(lambda: (lambda f: f is not None and "Search" in name_of(f))(focused_in(app.root)),
               10, "the search entry focused after Ctrl+F")
    key("Tab")
    wait_until(lambda: focused_in(sidebar) is not None, 10, "the focus in the session list")
    key("Delete")
    app.wait_text("\u201c%s\u201d deleted" % KEYBOARD_TITLE)
    wait_until(lambda: not any(KEYBOARD_TITLE in labels for labels in app.sidebar_titles()),
               10, "the deleted chat gone from the sidebar")

    # Ctrl+Z while the toast shows: back, and the focus on its row. The
    # toast lives five seconds; a screenshot of it taken first outlasted
    # them on a machine at load 17, so the deleted state is not pictured.
    key("z", "Control")
    wait_until(lambda: any(KEYBOARD_TITLE in labels for labels in app.sidebar_titles()),
               10, "the chat back in the sidebar after Ctrl+Z")
    wait_until(lambda: focused_in(sidebar) is not None, 10, "the focus on the restored row")
    shot(5, "-keyboard-undone")

    # Letters typed in the list are a search: the search field opens with
    # them; Down goes back to what it found, and more letters go on with
    # the same search; Escape closes it.
    def search_text():
        f = focused_in(app.root)
        text = f.get_text_iface() if f is not None and "Search" in name_of(f) else None
        return text.get_text(0, text.get_character_count()) if text is not None else None

    type_keys("Typ")
    wait_until(lambda: search_text() == "Typ", 10, "the letters typed in the list in the search field")
    key("Down")
    wait_until(lambda: focused_in(sidebar) is not None, 10, "the focus on what the search found")
    type_keys("ed")
    wait_until(lambda: search_text() == "Typed", 10, "the search typed on from the list")
    shot(6, "-keyboard-type-to-search")
    key("Escape")
    wait_until(lambda: search_text() is None and any(KEYBOARD_TITLE in labels for labels in app.sidebar_titles()),
               10, "the search closed, the chat listed")

    # On disk: the one chat, renamed, both turns complete, the tool allowed.
    sessions = run.verify_store()
    mine = [s for s in sessions if s.get("title") == KEYBOARD_TITLE]
    if len(mine) != 1 or len(sessions) != 1:
        raise E2EFailure("expected exactly the renamed session on disk: %r" % sessions)
    if mine[0].get("latestTurnStatus") != "completed" or mine[0].get("turnCount") != 2:
        raise E2EFailure("the keyboard session's turns did not complete: %r" % mine[0])
    if not run.server.server.requests_with(SECRET):
        raise E2EFailure("the allowed read_file result never reached the model")
    log("keyboard scenario on disk: %r" % mine[0])


def readme_scenario(run):
    """The README's out-of-the-box path: nothing names a provider or a
    model, so the window must send to the list's first provider and ask it
    for its first model, as `natter ask` does."""
    app = run.start_app()
    app.new_chat()
    app.send(README_HELLO)
    app.wait_text(README_ANSWER)
    run.shot(1, "-readme")
    sessions = run.verify_store()
    if len(sessions) != 1 or sessions[0].get("latestTurnStatus") != "completed":
        raise E2EFailure("expected one completed session on disk: %r" % sessions)
    asked = [r for r in run.server.server.requests if r.get("messages")]
    if not asked or any(r.get("model") != "m" for r in asked):
        raise E2EFailure("the message did not go to the provider's first model: %r"
                         % [r.get("model") for r in asked])


def write_tool_servers(run):
    """mcp.json with "fake" (the MCP tests' server) and "hung", the same
    server told never to answer the handshake."""
    script = os.path.join(HERE, "..", "data", "mcp", "fake_mcp_server.py")
    config_dir = os.path.join(run.home, "config", "natter")
    os.makedirs(config_dir, exist_ok=True)
    path = os.path.join(config_dir, "mcp.json")
    with open(path, "w") as f:
        json.dump({"mcpServers": {
            "fake": {"command": sys.executable, "args": [script]},
            "hung": {"command": sys.executable, "args": [script, "--hang-handshake"]},
        }}, f)
    return path


def tool_servers_scenario(run):
    """A tool server that never answers its handshake holds up nothing in
    the running window: the other server's tools are offered as soon as it
    is ready, a message is answered at once, `natter mcp list` (run by the
    window) says which server is still starting, and an mcp.json broken
    since lists the servers that still run, with the file's mistake."""
    path = write_tool_servers(run)
    app = run.start_app()

    def listed():
        out = cli(run.app.binary, run.app.data_dir, run.app.env, "mcp", "list")
        return out if "fake\tconnected\t6 tools" in out.stdout else None

    # Each `mcp list` waits at most the 5 s handshake limit.
    result = wait_until(listed, 20, "the ready server listed by the running window")
    if "hung\tstarting\t" not in result.stdout or result.returncode != 0:
        raise E2EFailure("mcp list in the window: %r %r" % (result.stdout, result.stderr))
    app.new_chat()
    app.send(TOOLS_HELLO)
    app.wait_text(TOOLS_ANSWER)
    run.shot(1, "-tool-servers")
    asked = run.server.server.requests_with(TOOLS_HELLO)
    offered = json.dumps(asked[0].get("tools", [])) if asked else ""
    if "mcp__fake__echo" not in offered or "mcp__hung__" in offered:
        raise E2EFailure("the message offered %s" % offered)

    with open(path, "w") as f:
        f.write('{"mcpServers": {"fake": ')
    result = cli(run.app.binary, run.app.data_dir, run.app.env, "mcp", "list")
    if (result.returncode != 1 or not result.stdout.startswith("fake\tconnected\t6 tools\nhung\tstarting\t")
            or "mcp.json is not valid JSON" not in result.stderr):
        raise E2EFailure("mcp list of a broken mcp.json in the window: %d %r %r"
                         % (result.returncode, result.stdout, result.stderr))
    run.verify_store()


def leftovers_scenario(run):
    """Writes killed half-way left temporary files (a log's first line, an
    attachment never linked into place): the window removes them once it
    has started, and nothing else."""
    turns = os.path.join(run.data, "storage", "turns", "2026", "11", "30")
    blobs = os.path.join(run.data, "storage", "blobs", "sha256", "9f")
    os.makedirs(turns)
    os.makedirs(blobs)
    leftovers = [
        os.path.join(turns, ".2026-11-30T09-14-03Z-0000000-000.jsonl.q1W2e3"),
        os.path.join(blobs, ".9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.zZ9yY8"),
    ]
    kept = os.path.join(turns, "notes.txt")
    for path in leftovers + [kept]:
        with open(path, "w") as f:
            f.write("{\"type\":\"turn_cr")
    app = run.start_app()
    app.new_chat()
    wait_until(lambda: not any(os.path.exists(p) for p in leftovers), 20,
               "the leftover temporary files to be removed")
    if not os.path.exists(kept):
        raise E2EFailure("a file that is not a leftover was removed")
    run.verify_store()


def code_scenario(run):
    """A first answer whose only code block is one line, streamed in small
    pieces while the automatic title changes the header: once the stream
    ends the block shows its line, at its height, without any resize."""
    app = run.start_app()
    app.new_chat()
    app.send(CODE_ASK)
    app.wait_text("It lists them.")
    wait_until(lambda: app.sidebar_titles() and CODE_TITLE in " ".join(app.sidebar_titles()[0]),
               20, "the automatic title in the sidebar")
    conversation = app.conversation()

    def code_view():
        for acc in find_all(conversation, Atspi.Role.TEXT) + find_all(conversation, Atspi.Role.PARAGRAPH):
            text = acc.get_text_iface()
            if text is not None and CODE_LINE in text.get_text(0, text.get_character_count()):
                return acc
        return None

    view = wait_until(code_view, 20, "the code block's text in the conversation")
    # Its text is laid out: the view is at least one line tall. GTK answers
    # the extents of what it allocated; a view left at its first, empty
    # allocation is a few pixels of margin.
    def tall_enough():
        ext = view.get_component_iface().get_extents(Atspi.CoordType.WINDOW)
        return ext.height if ext.height >= 30 else None
    try:
        wait_until(tall_enough, 10, "the one-line code block to be at least one line tall")
    finally:
        run.shot(1, "-code")
    run.verify_store()


def click_at(acc):
    """A real left click (XTest) in the middle of @acc, as a person clicks:
    the button goes through GTK's press and release, not its action."""
    ext = acc.get_component_iface().get_extents(Atspi.CoordType.WINDOW)
    Atspi.generate_mouse_event(ext.x + ext.width // 2, ext.y + ext.height // 2, "b1c")


def point_at_window(app):
    """X sends keys to the window under the pointer (no window manager):
    the pointer rests on the window's header, unclicked."""
    ext = app.find(Atspi.Role.FRAME).get_component_iface().get_extents(Atspi.CoordType.WINDOW)
    Atspi.generate_mouse_event(ext.x + ext.width // 2, ext.y + 10, "abs")
    wait_until(lambda: app.find(Atspi.Role.FRAME).get_state_set().contains(Atspi.StateType.ACTIVE),
               10, "the window to be active")


def wheel_at(x, y, notches, up=True, shift=False):
    """Turns the mouse wheel (XTest buttons 4 and 5) @notches notches with
    the pointer at (@x, @y), Shift held with @shift."""
    Atspi.generate_mouse_event(x, y, "abs")
    if shift:
        Atspi.generate_keyboard_event(MODIFIER_MASKS["Shift"], None, Atspi.KeySynthType.LOCKMODIFIERS)
    try:
        for _ in range(notches):
            Atspi.generate_mouse_event(x, y, "b4c" if up else "b5c")
    finally:
        if shift:
            Atspi.generate_keyboard_event(MODIFIER_MASKS["Shift"], None, Atspi.KeySynthType.UNLOCKMODIFIERS)


def wheel_scenario(run):
    """The mouse wheel turned over a table or a code block whose lines are
    wider than the window scrolls the conversation, as it does anywhere
    else in it; Shift and the wheel scroll the block's lines sideways."""
    app = run.start_app()
    app.new_chat()
    app.send(WHEEL_ASK)
    app.wait_text(WHEEL_END)
    point_at_window(app)
    conversation = app.conversation()
    listed = conversation.get_component_iface().get_extents(Atspi.CoordType.WINDOW)

    def code_view():
        for acc in find_all(conversation, Atspi.Role.TEXT) + find_all(conversation, Atspi.Role.PARAGRAPH):
            text = acc.get_text_iface()
            if text is not None and (WHEEL_LINE % 0) in text.get_text(0, text.get_character_count()):
                return acc
        return None

    def on(acc):
        """A point on @acc inside the conversation's view, and @acc's top,
        or None while it is not whole in view, or 40 px of it when taller."""
        def point():
            ext = acc.get_component_iface().get_extents(Atspi.CoordType.WINDOW)
            top, bottom = max(ext.y, listed.y), min(ext.y + ext.height, listed.y + listed.height)
            left = max(ext.x, listed.x)
            return (left + 20, (top + bottom) // 2, ext.y) if bottom - top >= min(40, ext.height) else None
        return point

    def wheel_scrolls_over(acc, what):
        """Brings @acc into view with the wheel turned over the text below
        it (the answer follows the bottom, so it is in view or above),
        then turns the wheel up over @acc: the conversation moves down."""
        for _ in range(60):
            if on(acc)():
                break
            wheel_at(listed.x + 40, listed.y + listed.height - 20, 1)
            time.sleep(0.05)  # a hand turns a wheel over time
        x, y, top = wait_until(on(acc), 10, "the %s in view" % what)
        wheel_at(x, y, 3)
        try:
            wait_until(lambda: acc.get_component_iface().get_extents(Atspi.CoordType.WINDOW).y > top + 20,
                       10, "the conversation to scroll up under the wheel turned over the %s "
                       "(its top stays at y=%d)" % (what, top))
        finally:
            run.shot(1, "-wheel")

    cell = app.wait_for("the wide table", role=Atspi.Role.LABEL, contains="cell-0-0")
    wheel_scrolls_over(cell, "table")
    view = wait_until(code_view, 20, "the code block in the conversation")
    wheel_scrolls_over(view, "code block")

    # Shift and the wheel move the block's lines sideways: the range of
    # the block's own scroll bars (siblings of its text) moves.
    bars = [r for r in find_all(view.get_parent(), showing_only=False)
            if r.get_value_iface() is not None and r.get_value_iface().get_maximum_value() > 0]
    if not bars:
        raise E2EFailure("the code block has no scroll bar for its wide lines")
    x, y, _ = wait_until(on(view), 10, "the code block in view")
    wheel_at(x, y, 3, up=False, shift=True)
    wait_until(lambda: any(b.get_value_iface().get_current_value() > 0 for b in bars), 10,
               "the code block's lines to scroll sideways under Shift and the wheel (scroll bars: %r)"
               % [(b.get_value_iface().get_current_value(), b.get_value_iface().get_maximum_value())
                  for b in bars])
    run.shot(2, "-wheel")
    run.verify_store()


def grow_scenario(run):
    """A message typed with real keys, line by line (Shift+Return), until
    the message field is as tall as it grows and well past it: the app
    draws every frame without a warning (which is fatal here), the field
    stops growing at its maximum and the line typed last shows."""
    app = run.start_app()
    app.new_chat()
    for _ in range(3):
        app.send(KEYBOARD_HELLO)
        app.wait_text(KEYBOARD_ANSWER)
    composer = app.composer()
    point_at_window(app)
    click(composer)
    wait_until(lambda: focused(composer), 10, "the message field focused")
    heights = []
    for n in range(1, 25):
        type_keys("Line %d of a long message" % n)
        key("Return", "Shift")
        wait_until(lambda: composer.get_text_iface().get_text(0, -1).count("\n") == n, 10,
                   "line %d typed" % n)
        app.check_alive()
        heights.append(composer.get_parent().get_component_iface().get_extents(Atspi.CoordType.WINDOW).height)
    type_keys("The last line")
    app.wait_text("The last line")
    run.shot(1, "-grow")
    log("field heights: %r" % heights)
    app.check_alive()


def quit_scenario(run):
    """Ctrl+Q while an answer streams: the answer stops as Stop stops it,
    what had arrived is kept, and the next start shows it stopped, not
    interrupted by a crash, with the composer ready for the next message."""
    app = run.start_app()
    app.new_chat()
    app.send("Answer slowly please")
    app.wait_text("This answer starts streaming")
    point_at_window(app)
    app._expect_exit()
    key("q", "Control")
    status = app.proc.wait(30)
    app.root = None
    run.server.hold.set()
    if status != 0:
        raise E2EFailure("natter exited with %d on Ctrl+Q" % status)
    sessions = check_store(run.binary, run.data, app.env)
    mine = [s for s in sessions if s.get("title") == "Answer slowly please"]
    if not mine or mine[0].get("latestTurnStatus") != "cancelled":
        raise E2EFailure("the answer is not stopped after Ctrl+Q: %r" % mine)
    app = run.start_app()
    app.select_session("Answer slowly please")
    app.wait_text("This answer starts streaming")
    run.shot(1, "-quit")
    if any("Interrupted" in t or "crash" in t for t in app.texts()):
        raise E2EFailure("the stopped answer shows as interrupted: %r" % app.texts())
    app.send("Are you back?")
    app.wait_text("Yes, the server is back.")
    run.verify_store()


DRAFT_TYPED = "Half a thought that is not sent yet"
DRAFT_NEW = "A new idea, typed in a new chat"
DRAFT_MORE = " and a little more"


def drafts_scenario(run):
    """Words typed with real keys and not sent outlive the window: after
    Ctrl+Q, in a conversation and in a new chat; after kill -9, as far as
    they were typed a moment before. A message sent takes its draft."""
    app = run.start_app()
    app.new_chat()
    app.send(A11Y_ASK)
    app.wait_text(A11Y_ANSWER)
    point_at_window(app)
    composer = app.composer()
    click(composer)
    wait_until(lambda: focused(composer), 10, "the composer focused")
    type_keys(DRAFT_TYPED)
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_TYPED, 10,
               "the typed words in the composer")
    key("n", "Control")
    app.wait_for("the empty new chat", role=Atspi.Role.LABEL, name="Type a message below to begin")
    composer = app.composer()
    wait_until(lambda: focused(composer), 10, "the composer focused after Ctrl+N")
    type_keys(DRAFT_NEW)
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_NEW, 10,
               "the new chat's words in the composer")
    app._expect_exit()
    key("q", "Control")
    status = app.proc.wait(30)
    app.root = None
    if status != 0:
        raise E2EFailure("natter exited with %d on Ctrl+Q" % status)

    # Started again: each field has its words back.
    app = run.start_app()
    app.select_session(A11Y_ASK)
    app.wait_text(A11Y_ANSWER)
    composer = app.composer()
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_TYPED, 10,
               "the conversation's draft back after Ctrl+Q")
    run.shot(1, "-drafts")
    app.new_chat()
    composer = app.composer()
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_NEW, 10,
               "the new chat's draft back after Ctrl+Q")

    # kill -9 a moment after typing: the words typed are there.
    app.select_session(A11Y_ASK)
    composer = app.composer()
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_TYPED, 10,
               "the conversation's draft")
    point_at_window(app)
    click(composer)
    wait_until(lambda: focused(composer), 10, "the composer focused")
    key("End", "Control")
    type_keys(DRAFT_MORE)
    draft_file = [os.path.join(run.data, "drafts", f) for f in os.listdir(os.path.join(run.data, "drafts"))
                  if f != "new-chat.json"][0]
    wait_until(lambda: DRAFT_TYPED + DRAFT_MORE in open(draft_file, encoding="utf-8").read(), 10,
               "the longer draft kept on disk")
    app.kill9()
    app = run.start_app()
    app.select_session(A11Y_ASK)
    composer = app.composer()
    wait_until(lambda: composer.get_text_iface().get_text(0, -1) == DRAFT_TYPED + DRAFT_MORE, 10,
               "the draft back after kill -9")

    # Sent: the draft goes with the message.
    app.send("Are you back?")
    app.wait_text("Yes, the server is back.")
    wait_until(lambda: not os.path.exists(draft_file), 10, "the sent draft gone from disk")
    run.verify_store()


def drop_scenario(run):
    """Drags two files from another application's window onto the message
    field with real pointer events (XTest; the files travel by XDND, as
    from GNOME Files): they become attachment chips, the message keeps
    its words, no path is typed into it."""
    app = run.start_app()
    app.new_chat()
    notes = os.path.join(run.work, "notes.txt")
    with open(notes, "w") as f:
        f.write("Buy basil.\n")
    composer = app.composer()
    type_text(composer, "Look at this")
    source = subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "drag_source.py"), notes],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if source.stdout.readline().strip() != "ready":
            raise E2EFailure("the drag source did not start")
        # The source's window sits at the screen's origin (no window
        # manager), 120×60, over a corner of Natter's header.
        ext = composer.get_component_iface().get_extents(Atspi.CoordType.WINDOW)
        target = (ext.x + ext.width // 2, ext.y + ext.height // 2)
        Atspi.generate_mouse_event(60, 30, "abs")
        Atspi.generate_mouse_event(60, 30, "b1p")
        steps = 20
        for i in range(1, steps + 1):
            Atspi.generate_mouse_event(60 + (target[0] - 60) * i // steps,
                                       30 + (target[1] - 30) * i // steps, "abs")
            time.sleep(0.05)  # a hand moves over time; XDND answers each position
        run.shot(1, "-drop-over")
        Atspi.generate_mouse_event(target[0], target[1], "b1r")
        app.wait_for("the dropped file's chip", contains="notes.txt")
        text = composer.get_text_iface()
        words = text.get_text(0, text.get_character_count())
        if words != "Look at this":
            raise E2EFailure("the message field reads %r after the drop" % words)
        run.shot(1, "-drop")
    finally:
        source.stdin.close()
        source.wait(10)
    run.verify_store()


def versions_scenario(run):
    """Makes a second version of an answer with Try Again, then switches
    between the versions with real clicks on ‹ and ›, eight times. The
    arrow pressed opens another conversation, which replaces the rows the
    arrow is in: the app must not log a critical (it aborts under
    G_DEBUG=fatal-criticals), and afterwards the sidebar still shows the
    open conversation selected and no message is selected."""
    app = run.start_app()
    app.new_chat()
    app.send(VERSIONS_ASK)
    app.wait_text(VERSIONS_ANSWER)
    click_at(run.button_in(app.conversation(), "Try Again"))

    def switcher_says(label):
        return lambda: app.find(Atspi.Role.LABEL, name=label)

    wait_until(switcher_says("2/2"), 20, "the switcher saying 2/2 after Try Again")
    app.wait_text(VERSIONS_ANSWER)
    for n in range(8):
        going_back = n % 2 == 0
        arrow = app.wait_for("the %s arrow" % ("previous" if going_back else "next"),
                             role=Atspi.Role.PUSH_BUTTON,
                             name="Previous Version" if going_back else "Next Version")
        wait_until(lambda: arrow.get_state_set().contains(Atspi.StateType.SENSITIVE),
                   10, "the arrow to be sensitive")
        click_at(arrow)
        wait_until(switcher_says("1/2" if going_back else "2/2"), 20,
                   "the switcher to say %s after click %d" % ("1/2" if going_back else "2/2", n + 1))
        app.check_alive()
    run.shot(1, "-versions")
    # The open conversation is the selected row of the sidebar; no
    # message of the conversation is selected.
    sidebar = app.wait_for("the sidebar", role=Atspi.Role.LIST, name="Conversations")
    wait_until(lambda: any(sidebar.get_child_at_index(i).get_state_set().contains(Atspi.StateType.SELECTED)
                           for i in range(sidebar.get_child_count())),
               10, "a selected conversation in the sidebar")
    conversation = app.conversation()
    selected = [i for i in range(conversation.get_child_count())
                if conversation.get_child_at_index(i).get_state_set().contains(Atspi.StateType.SELECTED)]
    if selected:
        raise E2EFailure("messages %r of the conversation show selected" % selected)
    run.verify_store()


# What a screen reader must never say: a widget's type name (it has no
# name of its own) or a mnemonic's underscore ("_New Chat New Chat").
TYPE_NAME = re.compile(r"^(Gtk|Adw|Natter)[A-Z][A-Za-z]*$")
# Parts GTK 4.8 and libadwaita 1.2 make inside their own widgets, out of
# an application's reach, and name by type: a leaflet's and a header
# bar's gizmos, an expander's arrow, a scroll bar and its range, the
# tooltip's window. Everything else is Natter's to name.
TOOLKIT_INTERNALS = {"AdwGizmo", "GtkBuiltinIcon", "GtkScrollbar", "GtkRange", "GtkTooltipWindow"}
MNEMONIC = re.compile(r"(^|\s)_[^\s_]")
# Roles whose element a user acts on or must be told about: each needs a
# name.
NAMED_ROLES = {Atspi.Role.PUSH_BUTTON, Atspi.Role.TOGGLE_BUTTON, Atspi.Role.CHECK_BOX,
               Atspi.Role.RADIO_BUTTON, Atspi.Role.ENTRY, Atspi.Role.PASSWORD_TEXT,
               Atspi.Role.SPIN_BUTTON, Atspi.Role.COMBO_BOX, Atspi.Role.IMAGE,
               Atspi.Role.SLIDER, Atspi.Role.MENU_ITEM}


def unnamed(root):
    """What under @root a screen reader would announce by its type name,
    with a mnemonic's underscore, or (for a control or an image) by
    nothing at all: a list of "role 'name'" strings."""
    found = []
    for acc in walk(root):
        name = name_of(acc)
        role = role_of(acc)
        doubled = name.replace("_", "").split(" ")
        leak = "_" in name and (MNEMONIC.search(name) is not None or
                                (len(doubled) % 2 == 0 and doubled[:len(doubled) // 2] == doubled[len(doubled) // 2:]))
        if name in TOOLKIT_INTERNALS:
            continue
        if TYPE_NAME.match(name) or leak or (role in NAMED_ROLES and not name.strip()):
            try:
                role_name = acc.get_role_name()
            except Exception:
                role_name = str(role)
            path = []
            parent = acc
            for _ in range(4):
                try:
                    parent = parent.get_parent()
                except Exception:
                    parent = None
                if parent is None:
                    break
                path.append(name_of(parent) or parent.get_role_name())
            found.append("%s %r (in %s)" % (role_name, name, " < ".join(path)))
    return found


def a11y_scenario(run):
    """A real conversation, every kind of part in it (a message with an
    attached file, a tool card with its permission answered, a code
    block, an answer with two versions), and the whole window's
    accessible tree walked as a screen reader walks it: every control
    and image has a name of its own, none a type name, none a mnemonic's
    underscore."""
    notes = os.path.join(run.work, "notes.txt")
    with open(notes, "w") as f:
        f.write("Buy basil.\n")
    sent = cli(run.binary, run.data, run.app.env, "send", "--no-auto-title", "--attach", notes, A11Y_ASK)
    if sent.returncode != 0:
        raise E2EFailure("natter send --attach failed: %s" % sent.stderr)
    app = run.start_app()
    app.select_session(A11Y_ASK)
    app.wait_text(A11Y_ANSWER)
    app.wait_for("the attachment chip", contains="notes.txt")
    # The first message, its file's chip on screen; the rest scrolls it
    # out of view later.
    problems = unnamed(app.root)
    app.send("Read the secret file for me")
    card, allow = run.permission(True)
    press(allow)
    app.wait_text(ANSWER_FROM_FILE)
    app.send(CODE_ASK)
    app.wait_text("It lists them.")
    click_at(run.button_in(app.conversation(), "Try Again"))
    wait_until(lambda: app.find(Atspi.Role.LABEL, name="2/2"), 20, "the switcher saying 2/2 after Try Again")
    app.wait_text("It lists them.")
    run.shot(1, "-a11y")
    problems += unnamed(app.root)
    if problems:
        raise E2EFailure("a screen reader would say these without a name of their own:\n  %s"
                         % "\n  ".join(problems))
    run.verify_store()


def tab_around(app, modifiers, what):
    """Presses Tab, with @modifiers held, from the focused widget until
    the focus is back on it, each press a key press X delivers. Returns
    the role and name of each widget reached on the way. Fails where a
    press leaves the focus where it was, or where the presses go round
    part of the window without coming back."""
    start = wait_until(lambda: focused_in(app.root), 10, "a focused widget (%s)" % what)
    reached = []
    paths = []
    current = start
    for _ in range(80):
        before = current
        key("Tab", *modifiers)
        current = wait_until(lambda: (lambda f: f if f is not None and f.path != before.path else None)(
                                 focused_in(app.root)),
                             10, "%s to move on from %s %r" % (what, before.get_role_name(), name_of(before)))
        if current.path == start.path:
            return reached
        if current.path in paths:
            raise E2EFailure("%s went back to %s %r without coming back to where it started"
                             % (what, current.get_role_name(), name_of(current)))
        paths.append(current.path)
        reached.append((current.get_role(), name_of(current)))
    raise E2EFailure("%s went through 80 widgets without coming back to where it started" % what)


def require_reached(reached, names, what):
    missing = [n for n in names if not any(name == n for _, name in reached)]
    if missing:
        raise E2EFailure("%s never reached %s; it reached %s"
                         % (what, ", ".join(missing), ", ".join(repr(name) for _, name in reached)))


def tab_scenario(run):
    """Tab and Shift+Tab, pressed as real keys, go round the whole window
    and back to the message field: in a new chat, and in a conversation
    whose first answers are scrolled away, through the answers' actions,
    the sidebar's row and both headers. They used to stop for good on the
    header's last button, and in a new chat on the model picker."""
    session_id = None
    for n in range(3):
        args = ["send", "--no-auto-title"] + (["--session", session_id] if session_id else [])
        sent = cli(run.binary, run.data, run.app.env, *(args + ["%s, part %d" % (TAB_ASK, n + 1)]))
        if sent.returncode != 0:
            raise E2EFailure("natter send failed: %s" % sent.stderr)
        session_id = session_id or sent.stdout.split()[1]
    app = run.start_app()
    app.wait_for("the New Chat button", role=Atspi.Role.PUSH_BUTTON, name="New Chat")
    point_at_window(app)

    key("n", "Control")
    app.wait_for("the empty new chat", role=Atspi.Role.LABEL, name="Type a message below to begin")
    composer = app.composer()
    wait_until(lambda: focused(composer), 10, "the composer focused after Ctrl+N")
    for modifiers, what in (((), "Tab"), (("Shift",), "Shift+Tab")):
        reached = tab_around(app, modifiers, what + " in a new chat")
        require_reached(reached, ["New Chat", "Main Menu", "Attach Files"], what + " in a new chat")

    app.select_session("%s, part 1" % TAB_ASK)
    app.wait_text(TAB_END)
    app.wait_for("Try Again on the newest answer", role=Atspi.Role.PUSH_BUTTON, name="Try Again")
    key("l", "Control")
    wait_until(lambda: focused(composer), 10, "the composer focused after Ctrl+L")
    run.shot(1, "-tab")
    for modifiers, what in (((), "Tab"), (("Shift",), "Shift+Tab")):
        reached = tab_around(app, modifiers, what + " in a conversation")
        require_reached(reached, ["New Chat", "Main Menu", "Conversation Menu", "Copy Message",
                                  "Try Again", "Attach Files"], what + " in a conversation")
        if not any(role == Atspi.Role.LIST_ITEM for role, _ in reached):
            raise E2EFailure("%s in a conversation never reached the sidebar's row" % what)
    run.verify_store()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", choices=["scripted", "mock-llm"], required=True)
    parser.add_argument("--mock-llm-dir", default=os.environ.get("NATTER_MOCK_LLM_DIR", ""))
    parser.add_argument("--steps", default="1,2,3,4,5,6")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    parser.add_argument("--keyboard", action="store_true",
                        help="run the keyboard-only scenario instead of the steps")
    parser.add_argument("--readme", action="store_true",
                        help="run the README-settings scenario instead of the steps")
    parser.add_argument("--code", action="store_true",
                        help="run the streamed one-line code block scenario instead of the steps")
    parser.add_argument("--leftovers", action="store_true",
                        help="run the leftover temporary files scenario instead of the steps")
    parser.add_argument("--tool-servers", action="store_true",
                        help="run the hung tool server scenario instead of the steps")
    parser.add_argument("--drop", action="store_true",
                        help="run the drag-and-drop scenario (real pointer events) instead of the steps")
    parser.add_argument("--quit", action="store_true",
                        help="run the quit-while-answering scenario (Ctrl+Q) instead of the steps")
    parser.add_argument("--grow", action="store_true",
                        help="run the growing message field scenario (real keys) instead of the steps")
    parser.add_argument("--wheel", action="store_true",
                        help="run the mouse wheel over a code block scenario (real wheel) instead of the steps")
    parser.add_argument("--drafts", action="store_true",
                        help="run the words-not-sent-outlive-the-window scenario (real keys) instead of the steps")
    parser.add_argument("--tab", action="store_true",
                        help="run the Tab round the window scenario (real keys) instead of the steps")
    parser.add_argument("--a11y", action="store_true",
                        help="run the accessible names scenario (a full conversation) instead of the steps")
    parser.add_argument("--versions", action="store_true",
                        help="run the version switching scenario (real clicks) instead of the steps")
    args = parser.parse_args()

    if args.keyboard and args.server != "scripted":
        parser.error("--keyboard needs the scripted server")
    if (args.readme or args.versions or args.quit or args.drop or args.wheel or args.grow or args.a11y or args.tab
            or args.drafts) \
            and args.server != "scripted":
        parser.error("this scenario needs the scripted server")
    if args.server == "mock-llm":
        if not args.mock_llm_dir:
            args.mock_llm_dir = os.path.join(os.path.expanduser("~"), ".cache", "natter-mock-llm")
        main_js = os.path.join(args.mock_llm_dir, "node_modules", "@dwmkerr", "mock-llm", "dist", "main.js")
        if not os.path.exists(main_js) or shutil.which("node") is None:
            print("SKIP: @dwmkerr/mock-llm not installed at %s (or no node); .ci/run installs it"
                  % main_js)
            return SKIP

    run = Run(args)
    steps = [int(s) for s in args.steps.split(",") if int(s) in run.server.serves]
    log("work dir %s, server %s, steps %s" % (run.work, run.server.name, steps))
    run.server.start()
    if args.readme:
        run.app.configure_readme(run.server.base_url)
    else:
        run.app.configure(run.server.base_url, auto_title=args.code)
    failed = False
    try:
        if args.keyboard:
            log("keyboard-only scenario")
            started = time.monotonic()
            keyboard_scenario(run)
            log("keyboard scenario passed in %.1f s" % (time.monotonic() - started))
            steps = []
        if args.code:
            log("streamed code block scenario")
            code_scenario(run)
            steps = []
        if args.drop:
            log("drag and drop scenario")
            drop_scenario(run)
            steps = []
        if args.drafts:
            log("drafts scenario")
            drafts_scenario(run)
            steps = []
        if args.quit:
            log("quit while answering scenario")
            quit_scenario(run)
            steps = []
        if args.grow:
            log("growing message field scenario")
            grow_scenario(run)
            steps = []
        if args.wheel:
            log("mouse wheel over a code block scenario")
            wheel_scenario(run)
            steps = []
        if args.tab:
            log("Tab round the window scenario")
            tab_scenario(run)
            steps = []
        if args.a11y:
            log("accessible names scenario")
            a11y_scenario(run)
            steps = []
        if args.versions:
            log("version switching scenario")
            versions_scenario(run)
            steps = []
        if args.leftovers:
            log("leftover temporary files scenario")
            leftovers_scenario(run)
            steps = []
        if args.tool_servers:
            log("hung tool server scenario")
            tool_servers_scenario(run)
            steps = []
        if args.readme:
            log("README-settings scenario")
            readme_scenario(run)
            steps = []
        for n in steps:
            log("step %d" % n)
            started = time.monotonic()
            getattr(run, "step%d" % n)()
            log("step %d passed in %.1f s" % (n, time.monotonic() - started))
    except Exception:
        failed = True
        traceback.print_exc()
        try:
            run.shot(99)
        except Exception:
            pass
        with open(run.app_log) as f:
            print("---- natter log ----\n" + f.read()[-6000:])
    finally:
        run.app.stop_if_running()
        run.server.stop()
        # The pointer is left off every window: the window tests that run
        # next on this display place theirs where Natter's was, and a toast
        # under a resting pointer stays until it moves.
        if os.environ.get("DISPLAY"):
            Atspi.generate_mouse_event(1279, 799, "abs")
        if not failed and not run.keep:
            shutil.rmtree(run.work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
