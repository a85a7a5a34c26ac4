# SPDX-License-Identifier: GPL-3.0-or-later
"""A scripted OpenAI-compatible server for the end-to-end tests.

It listens on 127.0.0.1 only, on a port the kernel picks the first time and
keeps across stop()/start(), so that in the provider-down step the provider
goes down and comes back on the same address. Each chat request is answered
by the first rule whose key matches the request's last message: the user's
text, or "tool:" + the tool result for a message of role "tool". Answers are
streamed as Server-Sent Events in small chunks with small delays, the way
real servers stream, so the window really shows a growing answer.

A rule's reply is a list of steps:
  ("text", "words ...")                 streamed two words a chunk
  ("text", "words ...", delay)          the same, @delay seconds apart
  ("tool", name, {arguments})           one streamed tool call, its
                                        arguments split over several chunks
  ("chunks", [pieces], delay)           each piece as one chunk, exactly as
                                        given (a fence cut mid-line)
  ("pause", seconds)                    send nothing (but keep-alives) for a while
  ("hold", event)                       stop sending until the event is set
                                        (or the client is gone): the
                                        "middle of a streamed answer"
Every request body is recorded so a test can check what the model was told.
"""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHUNK_DELAY = 0.03


def last_message_key(body):
    messages = body.get("messages") or []
    if not messages:
        return ""
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict))
    content = content or ""
    if last.get("role") == "tool":
        return "tool:" + content
    return content


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # keep the test log readable
        pass

    def _json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list",
                             "data": [{"id": "m", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "no such path"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            self._json(400, {"error": {"message": "bad JSON"}})
            return
        server = self.server.owner
        server.record(body)
        if not self.path.endswith("/chat/completions"):
            self._json(404, {"error": {"message": "no such path"}})
            return
        key = last_message_key(body)
        steps = server.reply_for(key)
        if steps is None:
            self._json(400, {"error": {"message": "no scripted reply for %r" % key}})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self._stream(steps)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _event(self, delta, finish=None, delay=CHUNK_DELAY):
        chunk = {"id": "chatcmpl-e2e", "object": "chat.completion.chunk",
                 "created": int(time.time()), "model": "m",
                 "choices": [{"index": 0, "delta": delta,
                              "finish_reason": finish}]}
        self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
        self.wfile.flush()
        time.sleep(delay)

    def _stream(self, steps):
        self._event({"role": "assistant", "content": ""})
        finish = "stop"
        call_index = 0
        for step in steps:
            kind = step[0]
            if kind == "text":
                words = step[1].split(" ")
                delay = step[2] if len(step) > 2 else CHUNK_DELAY
                for i in range(0, len(words), 2):
                    piece = " ".join(words[i:i + 2])
                    if i + 2 < len(words):
                        piece += " "
                    self._event({"content": piece}, delay=delay)
            elif kind == "chunks":
                for piece in step[1]:
                    self._event({"content": piece}, delay=step[2])
            elif kind == "tool":
                name, arguments = step[1], json.dumps(step[2])
                call_id = "call_e2e_%d_%d" % (int(time.time() * 1000), call_index)
                self._event({"tool_calls": [{
                    "index": call_index, "id": call_id, "type": "function",
                    "function": {"name": name, "arguments": ""}}]})
                for i in range(0, len(arguments), 7):
                    self._event({"tool_calls": [{
                        "index": call_index,
                        "function": {"arguments": arguments[i:i + 7]}}]})
                call_index += 1
                finish = "tool_calls"
            elif kind == "pause":
                end = time.monotonic() + step[1]
                while time.monotonic() < end:
                    time.sleep(0.1)
                    self.wfile.write(b": pause\n\n")
                    self.wfile.flush()
            elif kind == "hold":
                event = step[1]
                while not event.wait(0.1):
                    # A comment line is a keep-alive; writing it also
                    # notices a client that is gone (kill -9).
                    self.wfile.write(b": hold\n\n")
                    self.wfile.flush()
        self._event({}, finish)
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


class ScriptedServer:
    """An OpenAI-compatible server on 127.0.0.1 answering from rules."""

    def __init__(self):
        self.rules = []          # (predicate(key) -> bool, steps)
        self.requests = []
        self._lock = threading.Lock()
        self._httpd = None
        self._thread = None
        self.port = 0

    @property
    def base_url(self):
        return "http://127.0.0.1:%d/v1" % self.port

    def add_rule(self, contains, steps):
        """Answer requests whose last-message key contains @contains."""
        self.rules.append((lambda key, c=contains: c in key, steps))

    def reply_for(self, key):
        for predicate, steps in self.rules:
            if predicate(key):
                return steps
        return None

    def record(self, body):
        with self._lock:
            self.requests.append(body)

    def requests_with(self, text):
        with self._lock:
            return [r for r in self.requests if text in json.dumps(r)]

    def start(self):
        httpd = ThreadingHTTPServer(("127.0.0.1", self.port), _Handler,
                                    bind_and_activate=False)
        httpd.allow_reuse_address = True
        httpd.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        httpd.server_bind()
        httpd.server_activate()
        httpd.daemon_threads = True
        httpd.owner = self
        self.port = httpd.server_address[1]
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def stop(self):
        """Close the listening socket: connections are refused until start()."""
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._thread.join()
            self._httpd = None
