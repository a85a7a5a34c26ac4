#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Two Natter data folders kept in step by two real Syncthing daemons.

  run_sync.py                    every scenario
  run_sync.py --scenario NAME    one of them (repeatable)

Each device is a Syncthing of its own (its own home, GUI and REST on
127.0.0.1, listening on 127.0.0.1 only; global and local discovery,
relays, NAT traversal, usage reporting, crash reporting and upgrades off)
sharing one folder, the device's Natter data folder, with the other,
which it knows by its device ID and address. Natter runs as the command
line against each folder, on a scripted model server on 127.0.0.1.

After each scenario: what both devices acknowledged is on both, byte for
byte (every file but what the ignore patterns keep local: those of the
.stignore that Natter itself writes, `natter sync --write-ignore`), and
every file Natter wrote before the scenario's last step is unchanged.

Exit status 77 (skipped) when `syncthing` is not installed. Environment:
NATTER_BIN (the binary), NATTER_SCHEMA_DIR (compiled schemas).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))

from e2e_server import ScriptedServer  # noqa: E402

FOLDER_ID = "natter"
# How long one device may take to see what the other wrote. Syncthing
# is told to scan at once (the REST scan call), so this bounds a
# transfer on loopback, not a watcher's delay.
SYNC_TIMEOUT = 60
START_TIMEOUT = 60


class SyncFailure(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout, what):
    """Polls @condition (a function returning a true value when done) until
    it holds; fails naming @what after @timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise SyncFailure("timed out after %d s waiting for %s" % (timeout, what))
        time.sleep(0.1)


class Device:
    """One Syncthing over one Natter data folder."""

    def __init__(self, name, root):
        self.name = name
        self.home = os.path.join(root, name, "syncthing")
        self.data = os.path.join(root, name, "natter")
        self.natter_home = os.path.join(root, name, "home")
        self.gui_port = free_port()
        self.listen_port = free_port()
        self.apikey = "natter-sync-test-" + name
        self.proc = None
        self.log = os.path.join(root, name, "syncthing.log")
        os.makedirs(self.data, mode=0o700)
        os.makedirs(self.natter_home)
        out = subprocess.run(["syncthing", "generate", "--home=" + self.home, "--no-default-folder",
                              "--skip-port-probing"], capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            raise SyncFailure("syncthing generate failed: %s" % out.stderr)
        with open(os.path.join(self.home, "config.xml")) as f:
            config = f.read()
        self.device_id = re.search(r'<device id="([A-Z0-9-]+)"', config).group(1)
        # Everything that would reach past loopback is off before the
        # first start, so nothing is ever announced or relayed.
        for tag, value in (("listenAddress", "tcp://127.0.0.1:%d" % self.listen_port),
                           ("globalAnnounceEnabled", "false"),
                           ("localAnnounceEnabled", "false"),
                           ("relaysEnabled", "false"),
                           ("natEnabled", "false"),
                           ("urAccepted", "-1"),
                           ("autoUpgradeIntervalH", "0"),
                           ("crashReportingEnabled", "false"),
                           ("startBrowser", "false")):
            config, n = re.subn(r"<%s>[^<]*</%s>" % (tag, tag), "<%s>%s</%s>" % (tag, value, tag), config)
            if n == 0:
                raise SyncFailure("config.xml has no <%s>" % tag)
        with open(os.path.join(self.home, "config.xml"), "w") as f:
            f.write(config)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.gui_port

    def start(self):
        env = dict(os.environ, STNOUPGRADE="1", HOME=self.natter_home,
                   # One process, not a monitor and the process it starts, so
                   # that kill() really kills Syncthing at once.
                   STMONITORED="1")
        self.proc = subprocess.Popen(["syncthing", "serve", "--home=" + self.home, "--no-browser", "--no-restart",
                                      "--no-upgrade", "--gui-address=127.0.0.1:%d" % self.gui_port,
                                      "--gui-apikey=" + self.apikey, "--logfile=" + self.log],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)

        def pong():
            if self.proc.poll() is not None:
                raise SyncFailure("syncthing %s exited with %d (see %s)" % (self.name, self.proc.returncode, self.log))
            try:
                return self.rest("GET", "/rest/system/ping").get("ping") == "pong"
            except (urllib.error.URLError, ConnectionError):
                return False
        wait_until(pong, START_TIMEOUT, "syncthing %s to answer" % self.name)

    def kill(self):
        """kill -9 of Syncthing: its monitor and the process it runs, the
        whole process group, so that nothing of it is left running."""
        if self.proc is not None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None

    def rest(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"X-API-Key": self.apikey, "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
        return json.loads(text) if text.strip() else None

    def introduce(self, other):
        """Knows @other by ID and address, and shares the folder with it."""
        self.rest("POST", "/rest/config/devices", {
            "deviceID": other.device_id, "name": other.name,
            "addresses": ["tcp://127.0.0.1:%d" % other.listen_port],
        })
        self.rest("POST", "/rest/config/folders", {
            "id": FOLDER_ID, "label": "Natter", "path": self.data, "type": "sendreceive",
            "devices": [{"deviceID": self.device_id}, {"deviceID": other.device_id}],
            "rescanIntervalS": 3600, "fsWatcherEnabled": False,
        })

    def scan(self):
        self.rest("POST", "/rest/db/scan?folder=" + FOLDER_ID)

    def idle(self):
        status = self.rest("GET", "/rest/db/status?folder=" + FOLDER_ID)
        return status.get("state") == "idle" and status.get("needTotalItems", 0) == 0

    def completion_of(self, other):
        return self.rest("GET", "/rest/db/completion?folder=%s&device=%s" % (FOLDER_ID, other.device_id))

    def pause(self, other):
        """Stops talking to @other: the devices are apart until resume()."""
        self.rest("POST", "/rest/system/pause?device=" + other.device_id)

    def resume(self, other):
        self.rest("POST", "/rest/system/resume?device=" + other.device_id)

    def set_ignores(self, patterns):
        """The folder's ignore patterns, as Syncthing's own editor sets
        them (it writes them to .stignore)."""
        self.rest("POST", "/rest/db/ignores?folder=" + FOLDER_ID, {"ignore": patterns})

    def connected_to(self, other):
        connections = self.rest("GET", "/rest/system/connections").get("connections", {})
        return connections.get(other.device_id, {}).get("connected", False)


class Pair:
    """Two devices introduced to each other, and the model they both use."""

    def __init__(self, root, binary, schema_dir):
        self.binary = binary
        self.schema_dir = schema_dir
        self.a = Device("a", root)
        self.b = Device("b", root)
        self.server = ScriptedServer()
        self.server.start()
        # What stays on each device, written by Natter where Syncthing
        # reads it before Syncthing first looks at the folder.
        for device in (self.a, self.b):
            self.natter(device, "sync", "--write-ignore")

    def start(self):
        for device in (self.a, self.b):
            device.start()
        self.a.introduce(self.b)
        self.b.introduce(self.a)
        wait_until(lambda: self.a.connected_to(self.b) and self.b.connected_to(self.a), SYNC_TIMEOUT,
                   "the devices to connect")

    def stop(self):
        for device in (self.a, self.b):
            device.kill()
        self.server.stop()

    def env(self, device):
        return dict(os.environ, **{
            "HOME": device.natter_home,
            "XDG_CONFIG_HOME": os.path.join(device.natter_home, "config"),
            "XDG_DATA_HOME": os.path.join(device.natter_home, "share"),
            "XDG_CACHE_HOME": os.path.join(device.natter_home, "cache"),
            "NATTER_DATA_DIR": device.data,
            "GSETTINGS_SCHEMA_DIR": self.schema_dir,
            "GSETTINGS_BACKEND": "keyfile",
            "NATTER_API_KEY": "sk-sync-not-a-secret",
            "G_DEBUG": "fatal-criticals,fatal-warnings",
            "LC_ALL": "C.UTF-8",
            "LANGUAGE": "C",
        })

    def natter(self, device, *args):
        result = subprocess.run([self.binary] + list(args), env=self.env(device), capture_output=True, text=True,
                                timeout=120)
        if result.returncode != 0:
            raise SyncFailure("natter %s on %s failed (%d): %s" % (" ".join(args), device.name, result.returncode,
                                                                  result.stderr))
        return result.stdout

    def natter_refused(self, device, *args):
        """Runs a command that must fail; returns what it said."""
        result = subprocess.run([self.binary] + list(args), env=self.env(device), capture_output=True, text=True,
                                timeout=120)
        if result.returncode == 0:
            raise SyncFailure("natter %s on %s succeeded: %s" % (" ".join(args), device.name, result.stdout))
        return result.stderr

    def natter_start(self, device, *args):
        """A command left running (a turn streaming); killed with the
        scenario at the latest."""
        return subprocess.Popen([self.binary] + list(args), env=self.env(device), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

    def device_id(self, device):
        return json.loads(self.natter(device, "sync", "--json"))["device"]["id"]

    def settle(self):
        """Until each device has what the other has: both scan now; then
        both folders hold the same files, both Syncthings are idle, and
        each reports the other complete. (Right after a scan request a
        device may still be idle and report the other complete from what
        it knew before: the files themselves are the condition.)"""
        for device in (self.a, self.b):
            device.scan()

        def settled():
            if shared_files(self.a.data) != shared_files(self.b.data):
                return False
            for here, there in ((self.a, self.b), (self.b, self.a)):
                if not here.idle():
                    return False
                completion = here.completion_of(there)
                if completion.get("completion") != 100 or completion.get("needItems", 0) != 0:
                    return False
            return True
        wait_until(settled, SYNC_TIMEOUT, "both devices to be in step")


def pattern_regex(pattern):
    """A Syncthing ignore pattern as a regular expression over a path
    relative to the folder ('/'-separated): `**` crosses folders, `*` and
    `?` do not, a backslash escapes; a pattern with a leading '/' is
    anchored at the folder's top, any other matches at any depth; a
    pattern that names a folder also takes what is in it."""
    anchored = pattern.startswith("/")
    body = pattern[1:] if anchored else pattern
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            out.append(re.escape(body[i + 1]))
            i += 2
            continue
        if body.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        out.append({"*": "[^/]*", "?": "[^/]"}.get(c, re.escape(c)))
        i += 1
    return re.compile(("^" if anchored else "^(?:.*/)?") + "".join(out) + "(?:/.*)?$")


def ignore_patterns(root):
    """The patterns of @root's .stignore (the file Natter writes), as
    regular expressions; comments and blank lines are not patterns."""
    patterns = []
    with open(os.path.join(root, ".stignore")) as f:
        for line in f.read().splitlines():
            line = line.strip()
            if not line or line.startswith("//") or line.startswith("#"):
                continue
            if line.startswith("!") or line.startswith("("):
                raise SyncFailure("an ignore pattern this comparison does not read: %r" % line)
            patterns.append(pattern_regex(line))
    if not patterns:
        raise SyncFailure("%s/.stignore has no patterns" % root)
    return patterns


def read_shared(root):
    """The bytes of every file under @root that Syncthing shares: path →
    bytes. Left out are what the folder's .stignore keeps local, and
    Syncthing's own files (the ignore file itself, its folder marker, its
    temporary files). A file that goes between the listing and its read
    (Syncthing renaming one into place, or moving a conflict copy aside)
    means the folder is still moving: the walk starts again, a bounded
    number of times."""
    patterns = ignore_patterns(root)
    for _ in range(100):
        files = {}
        try:
            for dirpath, dirnames, names in os.walk(root):
                rel_dir = os.path.relpath(dirpath, root)
                for name in names:
                    rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
                    if rel == ".stignore" or rel.startswith(".stfolder/") or name.startswith(".syncthing."):
                        continue
                    if any(p.match(rel) for p in patterns):
                        continue
                    with open(os.path.join(dirpath, name), "rb") as f:
                        files[rel] = f.read()
        except FileNotFoundError:
            continue
        return files
    raise SyncFailure("the files under %s kept moving through 100 walks" % root)


def shared_files(root):
    """Every file under @root that Syncthing shares (read_shared()): path
    → SHA-256 of its bytes."""
    return {rel: hashlib.sha256(data).hexdigest() for rel, data in read_shared(root).items()}


def assert_same_files(pair):
    a = shared_files(pair.a.data)
    b = shared_files(pair.b.data)
    if a != b:
        only_a = sorted(set(a) - set(b))
        only_b = sorted(set(b) - set(a))
        differ = sorted(k for k in set(a) & set(b) if a[k] != b[k])
        raise SyncFailure("the devices differ: only on a %s, only on b %s, different bytes %s"
                          % (only_a, only_b, differ))
    return a


def snapshot(root):
    """The bytes of every shared file under @root: path → bytes."""
    return read_shared(root)


def assert_unchanged(before, after):
    """No file of @before was rewritten in @after: a log (.jsonl) still
    begins with every byte it had (it may only have grown at its end),
    any other file has the same bytes."""
    for rel, old in before.items():
        new = after.get(rel)
        if new is None:
            raise SyncFailure("%s was removed" % rel)
        if rel.endswith(".jsonl") and not new.startswith(old):
            raise SyncFailure("%s was rewritten, not appended to" % rel)
        if not rel.endswith(".jsonl") and new != old:
            raise SyncFailure("%s changed" % rel)


def sessions(pair, device):
    return json.loads(pair.natter(device, "sessions", "--json"))


# Scenarios ---------------------------------------------------------------


def scenario_send_on_a_seen_on_b(pair, tmp):
    """A message sent on one device: the other lists the conversation with
    its title, status and turns, and shows its answer."""
    pair.server.add_rule("picnic", [("text", "Bring bread and cheese.")])
    out = pair.natter(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1",
                      "What should I bring to the picnic?")
    session_id = out.splitlines()[0].split(" ", 1)[1]
    pair.settle()
    files = assert_same_files(pair)
    if not any(rel.startswith(os.path.join("storage", "sessions")) for rel in files):
        raise SyncFailure("no session file was shared: %s" % sorted(files))
    listed = {e["sessionId"]: e for e in sessions(pair, pair.b)}
    if session_id not in listed:
        raise SyncFailure("b does not list %s: %s" % (session_id, sorted(listed)))
    entry = listed[session_id]
    mine = {e["sessionId"]: e for e in sessions(pair, pair.a)}[session_id]
    for key in ("title", "latestTurnStatus", "turnCount"):
        if entry.get(key) != mine.get(key):
            raise SyncFailure("b's %s is %r, a's %r" % (key, entry.get(key), mine.get(key)))
    shown = pair.natter(pair.b, "show", session_id)
    if "Bring bread and cheese." not in shown:
        raise SyncFailure("b does not show the answer:\n%s" % shown)
    # Reading on b wrote nothing that a then has to take.
    pair.settle()
    assert_same_files(pair)


def scenario_attachment(pair, tmp):
    """A message with an attachment sent on one device: the blob arrives
    with the turn, and the other device reads it (its hash checked)."""
    notes = os.path.join(tmp, "notes.txt")
    with open(notes, "w") as f:
        f.write("eggs, flour, milk\n")
    pair.server.add_rule("shopping", [("text", "Three things.")])
    out = pair.natter(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1",
                      "--attach", notes, "How long is my shopping list?")
    session_id = out.splitlines()[0].split(" ", 1)[1]
    pair.settle()
    files = assert_same_files(pair)
    if not any(rel.startswith(os.path.join("storage", "blobs")) for rel in files):
        raise SyncFailure("no blob was shared: %s" % sorted(files))
    shown = json.loads(pair.natter(pair.b, "show", session_id, "--json"))
    if "notes.txt" not in json.dumps(shown):
        raise SyncFailure("b does not show the attachment: %s" % json.dumps(shown)[:400])


def scenario_continue_on_b(pair, tmp):
    """A conversation begun on one device and continued on the other: the
    first device sees the second turn, both hold the same files, and no
    file either wrote before was rewritten (logs only grow)."""
    pair.server.add_rule("first", [("text", "The first answer.")])
    pair.server.add_rule("second", [("text", "The second answer.")])
    out = pair.natter(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1",
                      "The first question")
    session_id = out.splitlines()[0].split(" ", 1)[1]
    pair.settle()
    before = snapshot(pair.a.data)
    pair.natter(pair.b, "send", "--session", session_id, "--base-url", pair.server.base_url, "--model", "m1",
                "The second question")
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(before, snapshot(pair.a.data))
    shown = pair.natter(pair.a, "show", session_id)
    if "The first answer." not in shown or "The second answer." not in shown:
        raise SyncFailure("a does not show both turns:\n%s" % shown)
    entry = {e["sessionId"]: e for e in sessions(pair, pair.a)}[session_id]
    if entry.get("turnCount") != 2:
        raise SyncFailure("a counts %r turns" % entry.get("turnCount"))
    # The second model call was given the first turn, as it would have
    # been on the device that wrote it.
    second = pair.server.requests_with("The second question")
    if not second or "The first answer." not in json.dumps(second[-1]):
        raise SyncFailure("the second call was not given the first turn")


def scenario_syncthing_killed(pair, tmp):
    """One device's Syncthing killed (kill -9) while the other writes, then
    started again: the devices converge on the same files, and what the
    first had written is all there."""
    pair.server.add_rule("while", [("text", "Written while the other was away.")])
    pair.natter(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1",
                "Before, while the other is there")
    pair.settle()
    pair.b.kill()
    for n in range(3):
        pair.natter(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1",
                    "Written while the other is away, %d" % n)
    before = snapshot(pair.a.data)
    pair.b.start()
    wait_until(lambda: pair.a.connected_to(pair.b) and pair.b.connected_to(pair.a), SYNC_TIMEOUT,
               "the devices to connect again")
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(before, snapshot(pair.b.data))
    if len(sessions(pair, pair.b)) != 4:
        raise SyncFailure("b lists %d conversations, not 4" % len(sessions(pair, pair.b)))


def session_entry(pair, device, session_id):
    listed = {e["sessionId"]: e for e in sessions(pair, device)}
    if session_id not in listed:
        raise SyncFailure("%s does not list %s" % (device.name, session_id))
    return listed[session_id]


def wait_for_request(pair, text, what):
    wait_until(lambda: pair.server.requests_with(text), SYNC_TIMEOUT, what)


def started_session(pair, device, text):
    """The conversation a running `natter send` of @text made: the one
    whose first message it is."""
    for entry in sessions(pair, device):
        shown = json.loads(pair.natter(device, "show", entry["sessionId"], "--json"))
        if shown["turns"] and shown["turns"][0]["input"] == text:
            return entry["sessionId"], shown["turns"][-1]["turnId"]
    raise SyncFailure("%s has no conversation of %r" % (device.name, text))


def assert_refused_elsewhere(pair, device, *args):
    said = pair.natter_refused(device, *args)
    if "another device" not in said:
        raise SyncFailure("natter %s on %s was refused for another reason: %s" % (" ".join(args), device.name, said))
    return said


def turn_file(root, turn_id):
    """The bytes of turn @turn_id's file under @root, or None."""
    for rel, data in read_shared(root).items():
        if rel.endswith(os.sep + turn_id + ".jsonl"):
            return data
    return None


def assert_prefix_of(here, there, what):
    """Every shared file of @here is one of @there's, or a log @there has
    since grown: @here wrote nothing of its own."""
    for rel, data in here.items():
        theirs = there.get(rel)
        if theirs is None or not (theirs == data or (rel.endswith(".jsonl") and theirs.startswith(data))):
            raise SyncFailure("%s: %s is not what the other device wrote" % (what, rel))


def scenario_syncthing_killed_on_a(pair, tmp):
    """The writing device's Syncthing killed (kill -9) while it carries a
    long answer to the other: A goes on writing the answer, B keeps what
    it had (the answer running on A) and never advances the turn itself;
    A's Syncthing started again, both converge byte for byte and nothing
    A wrote is lost."""
    release = threading.Event()
    question = "Tell me a story that outlives its carrier"
    ending = "and the last page arrived after all. " * 200
    pair.server.add_rule("outlives its carrier", [("text", "The first page. " * 200), ("hold", release),
                                                  ("text", ending)])
    sending = pair.natter_start(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url,
                                "--model", "m1", question)
    try:
        wait_for_request(pair, question, "a's model call")
        pair.settle()
        session_id, turn_id = started_session(pair, pair.b, question)
        running = turn_file(pair.a.data, turn_id)
        # The rest of the answer is written on a while its Syncthing is
        # told to carry it, and killed as soon as a's turn file has grown:
        # in the middle of writing and of carrying.
        release.set()
        pair.a.scan()
        wait_until(lambda: turn_file(pair.a.data, turn_id) != running, SYNC_TIMEOUT, "a to write the answer")
        pair.a.kill()
        out, err = sending.communicate(timeout=120)
        if sending.returncode != 0:
            raise SyncFailure("a's send failed (%d): %s" % (sending.returncode, err))
    finally:
        release.set()
        if sending.poll() is None:
            sending.kill()
            sending.wait()
    written = snapshot(pair.a.data)
    # B has what arrived before the kill, whole files only, and nothing of
    # its own; whatever it has, it does not take the answer over.
    received = snapshot(pair.b.data)
    assert_prefix_of(received, written, "b")
    entry = session_entry(pair, pair.b, session_id)
    if entry.get("latestTurnStatus") == "idle":
        if "latestTurnDevice" not in entry:
            raise SyncFailure("b does not list a's answer as running on a: %r" % entry)
        assert_refused_elsewhere(pair, pair.b, "resume", session_id)
        assert_refused_elsewhere(pair, pair.b, "stop", turn_id)
    else:
        pair.natter_refused(pair.b, "resume", session_id)
    if snapshot(pair.b.data) != received:
        raise SyncFailure("b wrote to a's answer without being asked")

    pair.a.start()
    wait_until(lambda: pair.a.connected_to(pair.b) and pair.b.connected_to(pair.a), SYNC_TIMEOUT,
               "the devices to connect again")
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(written, snapshot(pair.a.data))
    assert_unchanged(written, snapshot(pair.b.data))
    entry = session_entry(pair, pair.b, session_id)
    if entry.get("latestTurnStatus") != "completed" or "latestTurnDevice" in entry:
        raise SyncFailure("b does not list the finished answer: %r" % entry)
    if "the last page arrived after all." not in pair.natter(pair.b, "show", session_id):
        raise SyncFailure("b does not show the end of the answer")


def scenario_long_turn_on_a(pair, tmp):
    """A long answer streams on A while B reads: B lists it as running on
    A's device, never resumes or stops it (nothing it refuses writes a
    byte), and shows the answer once A has finished and it arrived."""
    release = threading.Event()
    question = "Tell me a long story"
    pair.server.add_rule("long story", [("text", "Once upon a time"), ("hold", release),
                                        ("text", "and they lived happily ever after.")])
    a_device = pair.device_id(pair.a)
    sending = pair.natter_start(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url,
                                "--model", "m1", question)
    try:
        wait_for_request(pair, question, "a's model call")
        pair.settle()
        session_id, turn_id = started_session(pair, pair.b, question)
        entry = session_entry(pair, pair.b, session_id)
        if entry.get("latestTurnStatus") != "idle" or entry.get("latestTurnDevice", {}).get("id") != a_device:
            raise SyncFailure("b does not list the answer as running on a: %r" % entry)
        turn = json.loads(pair.natter(pair.b, "show", session_id, "--json"))["turns"][-1]
        if not turn.get("elsewhere"):
            raise SyncFailure("b does not show the turn as running elsewhere: %r" % turn)
        said = assert_refused_elsewhere(pair, pair.b, "resume", session_id)
        if "--here" not in said:
            raise SyncFailure("b's refusal does not say how to continue: %s" % said)
        assert_refused_elsewhere(pair, pair.b, "stop", turn_id)
        # Nothing b refused was written: both still hold a's bytes.
        pair.settle()
        assert_same_files(pair)
        before = snapshot(pair.a.data)
        release.set()
        out, err = sending.communicate(timeout=120)
        if sending.returncode != 0:
            raise SyncFailure("a's send failed (%d): %s" % (sending.returncode, err))
    finally:
        release.set()
        if sending.poll() is None:
            sending.kill()
            sending.wait()
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(before, snapshot(pair.b.data))
    entry = session_entry(pair, pair.b, session_id)
    if entry.get("latestTurnStatus") != "completed" or "latestTurnDevice" in entry:
        raise SyncFailure("b does not list the finished answer: %r" % entry)
    shown = pair.natter(pair.b, "show", session_id)
    if "they lived happily ever after." not in shown:
        raise SyncFailure("b does not show the answer:\n%s" % shown)


def scenario_natter_killed_on_a(pair, tmp):
    """Natter killed (kill -9) on A in the middle of an answer, while
    Syncthing carries its files: nothing A wrote is lost, B shows the
    answer as running on A and never takes it over by itself; only an
    explicit `natter resume --here` continues it on B, and A then sees
    the answer, its own files only grown."""
    release = threading.Event()
    question = "Tell me an interrupted story"
    pair.server.add_rule("interrupted story", [("text", "It began on a dark night,"), ("hold", release),
                                               ("text", "and ended at dawn.")])
    sending = pair.natter_start(pair.a, "send", "--no-auto-title", "--base-url", pair.server.base_url,
                                "--model", "m1", question)
    try:
        wait_for_request(pair, question, "a's model call")
        # Mid-turn, and with Syncthing told to look at a's files at once:
        # mid-sync as well.
        pair.a.scan()
    finally:
        sending.kill()
        sending.wait()
    pair.settle()
    assert_same_files(pair)
    before = snapshot(pair.a.data)
    session_id, turn_id = started_session(pair, pair.b, question)
    entry = session_entry(pair, pair.b, session_id)
    if entry.get("latestTurnStatus") != "idle" or "latestTurnDevice" not in entry:
        raise SyncFailure("b does not list a's answer as running on a: %r" % entry)
    # Reading, listing, a refused resume: b never takes the turn over.
    assert_refused_elsewhere(pair, pair.b, "resume", session_id)
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(before, snapshot(pair.b.data))
    if snapshot(pair.b.data) != before:
        raise SyncFailure("b wrote to a's answer without being asked")

    # a is gone for good: the person continues the answer on b.
    release.set()
    out = pair.natter(pair.b, "resume", "--here", session_id)
    if "ended at dawn." not in out and "completed" not in out:
        raise SyncFailure("b's continued answer: %s" % out)
    pair.settle()
    assert_same_files(pair)
    assert_unchanged(before, snapshot(pair.a.data))
    entry = session_entry(pair, pair.a, session_id)
    if entry.get("latestTurnStatus") != "completed":
        raise SyncFailure("a does not see the answer b finished: %r" % entry)
    if "ended at dawn." not in pair.natter(pair.a, "show", session_id):
        raise SyncFailure("a does not show the answer b finished")


def chatgpt_export(path, count):
    """A ChatGPT conversations.json of @count one-question conversations."""
    conversations = []
    for i in range(count):
        t = 1700000000.0 + i

        def message(mid, role, text, when):
            return {"id": mid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": when,
                    "update_time": None, "content": {"content_type": "text", "parts": [text]},
                    "status": "finished_successfully", "end_turn": role == "assistant", "weight": 1.0,
                    "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {}, "recipient": "all"}
        conversations.append({
            "title": "Conversation %d" % i, "create_time": t, "update_time": t + 1,
            "conversation_id": "sync-test-%04d" % i, "current_node": "a",
            "mapping": {
                "root": {"id": "root", "message": None, "parent": None, "children": ["u"]},
                "u": {"id": "u", "message": message("u", "user", "Question %d" % i, t), "parent": "root",
                      "children": ["a"]},
                "a": {"id": "a", "message": message("a", "assistant", "Answer %d" % i, t + 1), "parent": "u",
                      "children": []},
            },
        })
    with open(path, "w") as f:
        json.dump(conversations, f)


THOUSAND = 1000
# A thousand conversations are two thousand files: their transfer on
# loopback is bounded by this, not by SYNC_TIMEOUT alone.
THOUSAND_TIMEOUT = 45


def scenario_thousand_conversations(pair, tmp):
    """A thousand conversations made on A (an import) before B has any:
    the initial sync brings them all, within a bound, and B lists every
    one as A does."""
    export = os.path.join(tmp, "conversations.json")
    chatgpt_export(export, THOUSAND)
    pair.natter(pair.a, "import", "--from", "chatgpt", export)
    started = time.monotonic()
    pair.settle()
    took = time.monotonic() - started
    if took > THOUSAND_TIMEOUT:
        raise SyncFailure("%d conversations took %.1f s to arrive" % (THOUSAND, took))
    print("  %d conversations arrived in %.1f s" % (THOUSAND, took))
    files = assert_same_files(pair)
    if sum(1 for rel in files if rel.startswith("storage/sessions/")) != THOUSAND:
        raise SyncFailure("not %d session files were shared" % THOUSAND)
    on_a = {e["sessionId"]: (e["title"], e["latestTurnStatus"]) for e in sessions(pair, pair.a)}
    on_b = {e["sessionId"]: (e["title"], e["latestTurnStatus"]) for e in sessions(pair, pair.b)}
    if len(on_b) != THOUSAND or on_a != on_b:
        raise SyncFailure("b lists %d conversations, a %d, or they differ" % (len(on_b), len(on_a)))


def conflict_copies(root, kind="sessions"):
    """Every conflict copy Syncthing kept under storage/@kind: its path
    relative to @root."""
    found = []
    for dirpath, _, names in os.walk(os.path.join(root, "storage", kind)):
        for name in names:
            if ".sync-conflict-" in name:
                found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(found)


def send(pair, device, text, session_id=None):
    args = ["send", "--no-auto-title", "--base-url", pair.server.base_url, "--model", "m1"]
    if session_id is not None:
        args += ["--session", session_id]
    out = pair.natter(device, *(args + [text]))
    return out.splitlines()[0].split(" ", 1)[1]


def diverge_offline(pair):
    """Both devices offline, both continue one conversation, reconnect:
    Syncthing keeps one session file and a conflict copy, on both. Then
    both list both histories (the copy as a version of the conversation)
    and show the same; what each acknowledged is on both, byte for byte;
    no earlier file changed; reading wrote nothing. Returns the session,
    the copy's name, the log's and the copy's paths and the files."""
    pair.server.add_rule("first", [("text", "Let us begin.")])
    pair.server.add_rule("on a", [("text", "Written on a.")])
    pair.server.add_rule("on b", [("text", "Written on b.")])
    session_id = send(pair, pair.a, "The first question")
    pair.settle()
    together = snapshot(pair.a.data)

    pair.a.pause(pair.b)
    pair.b.pause(pair.a)
    wait_until(lambda: not pair.a.connected_to(pair.b) and not pair.b.connected_to(pair.a), SYNC_TIMEOUT,
               "the devices to part")
    send(pair, pair.a, "Going on on a", session_id)
    send(pair, pair.b, "Going on on b", session_id)
    acknowledged = {"a": snapshot(pair.a.data), "b": snapshot(pair.b.data)}

    pair.a.resume(pair.b)
    pair.b.resume(pair.a)
    wait_until(lambda: pair.a.connected_to(pair.b) and pair.b.connected_to(pair.a), SYNC_TIMEOUT,
               "the devices to meet again")
    pair.settle()
    files = assert_same_files(pair)
    copies = conflict_copies(pair.a.data)
    if len(copies) != 1:
        raise SyncFailure("expected one conflict copy of the session file, found %s" % copies)
    log = os.path.join(os.path.dirname(copies[0]), session_id + ".jsonl")
    after = {"a": snapshot(pair.a.data), "b": snapshot(pair.b.data)}
    # The union of what both acknowledged: every file of each, the
    # session log's two versions as the log and its copy.
    versions = {acknowledged["a"][log], acknowledged["b"][log]}
    if {after["a"][log], after["a"][copies[0]]} != versions:
        raise SyncFailure("the log and its copy are not the two versions each device wrote")
    for name, files_before in acknowledged.items():
        for rel, data in files_before.items():
            if rel == log:
                continue
            for device in ("a", "b"):
                if after[device].get(rel) != data:
                    raise SyncFailure("%s, acknowledged by %s, is not the same on %s" % (rel, name, device))
    for device in ("a", "b"):
        assert_unchanged(together, after[device])

    copy_id = os.path.basename(copies[0])[:-len(".jsonl")]
    listed = {}
    for device in (pair.a, pair.b):
        entries = {e["sessionId"]: e for e in sessions(pair, device)}
        listed[device.name] = entries
        if copy_id not in entries or entries[copy_id].get("versionOf") != session_id:
            raise SyncFailure("%s does not list %s as a version of %s: %s" % (device.name, copy_id, session_id,
                                                                            sorted(entries)))
        if entries[copy_id].get("error") or entries[session_id].get("error"):
            raise SyncFailure("%s lists an error: %s" % (device.name, entries))
        both = pair.natter(device, "show", session_id) + pair.natter(device, "show", copy_id)
        for answer in ("Let us begin.", "Written on a.", "Written on b."):
            if answer not in both:
                raise SyncFailure("%s does not show %r:\n%s" % (device.name, answer, both))
    if listed["a"] != listed["b"]:
        raise SyncFailure("the devices list different conversations:\n%s\n%s" % (listed["a"], listed["b"]))
    # Reading on both wrote nothing.
    pair.settle()
    if assert_same_files(pair) != files:
        raise SyncFailure("reading the conflict wrote something")
    return session_id, copy_id, log, copies[0], files


def scenario_both_offline(pair, tmp):
    """Both devices offline, both continue one conversation, reconnect:
    Syncthing keeps one session file and a conflict copy, on both. Then
    both list both histories (the copy as a version of the conversation)
    and show the same; what each acknowledged is on both, byte for byte;
    no earlier file changed; reading wrote nothing. Then b goes on from
    the copy: a new version with the copy's history, which a lists and
    shows as b does; the copy and the log stay as they were, and no new
    conflict comes of it."""
    session_id, copy_id, log, copy, files = diverge_offline(pair)
    # Which device's continuation Syncthing kept as the copy is its to
    # choose.
    theirs, ours = ("a", "b") if "Written on a." in pair.natter(pair.b, "show", copy_id) else ("b", "a")
    pair.server.add_rule("Return trip", [("text", "Back from the copy.")])
    version = send(pair, pair.b, "Return trip from the copy", copy_id)
    if version in (session_id, copy_id):
        raise SyncFailure("the message in the copy did not make a new version: %s" % version)
    request = pair.server.requests_with("Return trip from the copy")[-1]
    users = [m["content"] if isinstance(m["content"], str) else "".join(p.get("text", "") for p in m["content"])
             for m in request["messages"] if m["role"] == "user"]
    if users != ["The first question", "Going on on " + theirs, "Return trip from the copy"]:
        raise SyncFailure("the model was not sent the copy's history: %s" % users)
    pair.settle()
    after = assert_same_files(pair)
    if conflict_copies(pair.a.data) != [copy]:
        raise SyncFailure("going on from the copy made another conflict: %s" % conflict_copies(pair.a.data))
    for rel in (log, copy):
        if after.get(rel) != files.get(rel):
            raise SyncFailure("going on from the copy changed %s" % rel)
    for device in (pair.a, pair.b):
        entries = {e["sessionId"]: e for e in sessions(pair, device)}
        if entries.get(version, {}).get("versionOf") != session_id:
            raise SyncFailure("%s does not list %s as a version of %s" % (device.name, version, session_id))
        shown = pair.natter(device, "show", version)
        # Its own turns: the copy's, then the new one.
        for text in ("Written on %s." % theirs, "Back from the copy."):
            if text not in shown:
                raise SyncFailure("%s does not show %r in the new version:\n%s" % (device.name, text, shown))
        if "Written on %s." % ours in shown:
            raise SyncFailure("%s shows the log's answer in the copy's version:\n%s" % (device.name, shown))


def scenario_session_before_turn(pair, tmp):
    """A session file that arrives before the turn file it names: the
    device shows the turn as arriving (not damaged), refuses a message
    that would build on it and writes nothing; once the turn file
    arrives, all is as on the device that wrote it."""
    pair.server.add_rule("kettle", [("text", "Put the kettle on.")])
    with open(os.path.join(pair.b.data, ".stignore")) as f:
        natter_ignores = f.read().splitlines()
    pair.b.set_ignores(natter_ignores + ["/storage/turns"])
    session_id = send(pair, pair.a, "What first, the kettle?")
    for device in (pair.a, pair.b):
        device.scan()
    log = None
    for rel in shared_files(pair.a.data):
        if rel.endswith(session_id + ".jsonl"):
            log = rel
    wait_until(lambda: shared_files(pair.b.data).get(log) == shared_files(pair.a.data).get(log) and pair.b.idle(),
               SYNC_TIMEOUT, "the session file to reach b")
    if not os.path.isdir(os.path.join(pair.b.data, ".stfolder")):
        raise SyncFailure("b's folder has no .stfolder marker")
    if any(names for _, _, names in os.walk(os.path.join(pair.b.data, "storage", "turns"))):
        raise SyncFailure("the turn file reached b although b ignores it")
    before = snapshot(pair.b.data)
    entry = {e["sessionId"]: e for e in sessions(pair, pair.b)}[session_id]
    if entry.get("latestTurnStatus") != "arriving" or entry.get("error"):
        raise SyncFailure("b lists the session as %s" % entry)
    shown = json.loads(pair.natter(pair.b, "show", session_id, "--json"))
    if [t["status"] for t in shown["turns"]] != ["arriving"]:
        raise SyncFailure("b shows the turn as %s" % shown["turns"])
    refused = subprocess.run([pair.binary, "send", "--no-auto-title", "--base-url", pair.server.base_url,
                              "--model", "m1", "--session", session_id, "And then?"], env=pair.env(pair.b),
                             capture_output=True, text=True, timeout=120)
    if refused.returncode == 0 or "not arrived" not in refused.stderr:
        raise SyncFailure("a message on the missing turn was not refused: %s" % refused.stderr)
    assert_unchanged(before, snapshot(pair.b.data))
    if snapshot(pair.b.data).keys() != before.keys():
        raise SyncFailure("the refused message wrote a file")

    pair.b.set_ignores(natter_ignores)
    pair.settle()
    assert_same_files(pair)
    entry = {e["sessionId"]: e for e in sessions(pair, pair.b)}[session_id]
    if entry.get("latestTurnStatus") != "completed":
        raise SyncFailure("once arrived, b lists the session as %s" % entry)
    if "Put the kettle on." not in pair.natter(pair.b, "show", session_id):
        raise SyncFailure("once arrived, b does not show the answer")


SCENARIOS = {
    "both-offline": scenario_both_offline,
    "session-before-turn": scenario_session_before_turn,
    "continue-on-b": scenario_continue_on_b,
    "syncthing-killed": scenario_syncthing_killed,
    "syncthing-killed-on-a": scenario_syncthing_killed_on_a,
    "send-on-a-seen-on-b": scenario_send_on_a_seen_on_b,
    "attachment": scenario_attachment,
    "long-turn-on-a": scenario_long_turn_on_a,
    "natter-killed-on-a": scenario_natter_killed_on_a,
    "thousand-conversations": scenario_thousand_conversations,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
    args = parser.parse_args()
    if shutil.which("syncthing") is None:
        print("SKIP: syncthing is not installed (Debian package syncthing)")
        return 77
    binary = os.environ.get("NATTER_BIN")
    schema_dir = os.environ.get("NATTER_SCHEMA_DIR")
    if not binary or not schema_dir:
        print("NATTER_BIN and NATTER_SCHEMA_DIR must be set", file=sys.stderr)
        return 2
    failed = []
    for name in args.scenario or sorted(SCENARIOS):
        tmp = tempfile.mkdtemp(prefix="natter-sync-")
        pair = Pair(tmp, binary, schema_dir)
        started = time.monotonic()
        try:
            pair.start()
            SCENARIOS[name](pair, tmp)
            print("ok %s (%.1f s)" % (name, time.monotonic() - started))
        except Exception:  # a failure names the scenario and keeps its folders
            failed.append(name)
            print("FAIL %s, folders kept in %s" % (name, tmp))
            traceback.print_exc()
        finally:
            pair.stop()
        if name not in failed:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
