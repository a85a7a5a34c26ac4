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
byte (every file but what the ignore patterns keep local), and every file
Natter wrote before the scenario's last step is unchanged.

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

# What stays on each device: the patterns docs/sync.md gives, written
# where Syncthing reads them (the shared folder's .stignore).
STIGNORE = """\
// What Natter keeps on this device only (docs/sync.md).
/cache
/storage/.lock
.*.jsonl.*
/storage/blobs/**/.*
"""


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
        with open(os.path.join(self.data, ".stignore"), "w") as f:
            f.write(STIGNORE)
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


def shared_files(root):
    """Every file under @root that the ignore patterns do not keep local:
    path → SHA-256 of its bytes."""
    files = {}
    for dirpath, dirnames, names in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == "cache" or rel_dir.startswith("cache" + os.sep):
            continue
        for name in names:
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel in (".stignore", os.path.join("storage", ".lock")) or name.startswith(".syncthing."):
                continue
            if re.match(r"^\..*\.jsonl\.", name) or (rel.startswith(os.path.join("storage", "blobs")) and
                                                    name.startswith(".")):
                continue
            with open(os.path.join(dirpath, name), "rb") as f:
                files[rel] = hashlib.sha256(f.read()).hexdigest()
    return files


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
    files = {}
    for rel in shared_files(root):
        with open(os.path.join(root, rel), "rb") as f:
            files[rel] = f.read()
    return files


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


SCENARIOS = {
    "continue-on-b": scenario_continue_on_b,
    "syncthing-killed": scenario_syncthing_killed,
    "send-on-a-seen-on-b": scenario_send_on_a_seen_on_b,
    "attachment": scenario_attachment,
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
