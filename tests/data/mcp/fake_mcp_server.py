#!/usr/bin/env python3
# A small, strict MCP server for the tests of the MCP client: it speaks
# newline-delimited JSON-RPC on stdio (or JSON answers over HTTP with
# --http) and misbehaves on request: a tool that crashes the server, one
# that never answers, a list in pages, a list that changes, text with a
# lone surrogate and NUL (JSON escapes no C string holds). It reads what
# it is sent as strictly as Python's json module does: a request that is
# not RFC 8259 JSON crashes it.
#
#   fake_mcp_server.py [--version V] [--page-size N] [--http]
#                      [--require-header NAME:VALUE] [--odd] [--hang-handshake]
#                      [--banner] [--hostile-tools]
#
# --version V     answer initialize with protocol version V (default: the
#                 client's)
# --page-size N   give tools/list in pages of N tools, with nextCursor
# --http          serve Streamable HTTP (JSON answers) on 127.0.0.1; the
#                 first line on stdout is the port
# --require-header answer 401 to any HTTP request without that header
# --hang-handshake never answer initialize (a server that hangs at start)
# --banner        print lines that are not JSON-RPC on stdout: one at
#                 start, one before every answer
# --hostile-tools also list "big" (a result of any size) and "deep" (a
#                 result nested 100,000 deep)
# --odd           also list "odd" (it answers whether listed or not)
import argparse
import json
import os
import sys
import threading

TOOLS = [
    {"name": "echo", "description": "Says the message back",
     "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    {"name": "crash", "description": "Exits in the middle of the call", "inputSchema": {"type": "object"}},
    {"name": "hang", "description": "Never answers", "inputSchema": {"type": "object"}},
    {"name": "add_tool", "description": "Adds the tool 'extra' and says so",
     "inputSchema": {"type": "object"}},
    {"name": "last_cancelled", "description": "The last notifications/cancelled, as text",
     "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "A tool error", "inputSchema": {"type": "object"}},
]
# Listed only with --odd.
ODD = {"name": "odd", "description": "Says a lone surrogate, NUL and U+001F", "inputSchema": {"type": "object"}}

# Listed with --hostile-tools only.
HOSTILE_TOOLS = [
    {"name": "big", "description": "A text of 'bytes' bytes, also as structuredContent (as server-filesystem)",
     "inputSchema": {"type": "object", "properties": {"bytes": {"type": "integer"}}}},
    {"name": "deep", "description": "Answers with a result nested 100,000 deep", "inputSchema": {"type": "object"}},
]


class RawDeep:
    """Stands for a value nested 100,000 deep, written raw (json.dumps
    itself would give up on it)."""
    TEXT = "[" * 100000 + "]" * 100000


class Server:
    def __init__(self, args):
        self.args = args
        self.tools = (list(TOOLS) + (list(HOSTILE_TOOLS) if args.hostile_tools else [])
                      + ([ODD] if args.odd else []))
        self.initialized = False
        self.last_cancelled = None
        self.version = None
        self.called = []

    def result(self, msg_id, result):
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def error(self, msg_id, code, message):
        return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}

    def text(self, msg_id, text, is_error=False):
        return self.result(msg_id, {"content": [{"type": "text", "text": text}], "isError": is_error})

    def handle(self, msg, send):
        """Answers one message through send(); returns nothing."""
        method = msg.get("method")
        msg_id = msg.get("id")
        params = msg.get("params") or {}
        if method == "initialize":
            self.version = self.args.version or params.get("protocolVersion")
            send(self.result(msg_id, {"protocolVersion": self.version,
                                      "capabilities": {"tools": {"listChanged": True}},
                                      "serverInfo": {"name": "fake", "version": "1"}}))
        elif method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            self.last_cancelled = params
        elif not self.initialized:
            send(self.error(msg_id, -32002, "not initialized: %s before notifications/initialized" % method))
        elif method == "tools/list":
            start = int(params.get("cursor", "0"))
            size = self.args.page_size or len(self.tools)
            page = {"tools": self.tools[start:start + size]}
            if start + size < len(self.tools):
                page["nextCursor"] = str(start + size)
            send(self.result(msg_id, page))
        elif method == "tools/call":
            self.call(msg_id, params.get("name"), params.get("arguments") or {}, send)
        elif msg_id is not None:
            send(self.error(msg_id, -32601, "Method not found"))

    def call(self, msg_id, name, arguments, send):
        # "seen" is not listed: the calls this server was asked for, so
        # a test can tell that a denied call never reached it.
        if name == "seen":
            return send(self.text(msg_id, json.dumps(self.called)))
        self.called.append(name)
        if name == "echo":
            send(self.text(msg_id, "echo: %s" % arguments.get("message")))
        elif name == "crash":
            sys.stderr.write("crashing on purpose\n")
            sys.stderr.flush()
            sys.exit(3)
        elif name == "hang":
            # Says it started, then never answers.
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": "hanging"}})
        elif name == "add_tool":
            self.tools.append({"name": "extra", "description": "Added later", "inputSchema": {"type": "object"}})
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            send(self.text(msg_id, "added"))
        elif name == "last_cancelled":
            send(self.text(msg_id, json.dumps(self.last_cancelled, sort_keys=True)))
        elif name == "fail":
            send(self.text(msg_id, "it failed", True))
        elif name == "big":
            # "0123456789" repeated, ending in "END": a test sees where it
            # was cut.
            size = int(arguments.get("bytes", 0))
            text = ("0123456789" * (size // 10 + 1))[:max(0, size - 3)] + "END"
            send(self.result(msg_id, {"content": [{"type": "text", "text": text}],
                                      "structuredContent": {"content": text}}))
        elif name == "deep":
            send({"jsonrpc": "2.0", "id": msg_id, "result": {"content": [], "deep": RawDeep()}})
        elif name == "odd":
            # json.dumps writes these as \ud800, \u0000 and \u001f.
            send(self.text(msg_id, "a\ud800b\x00c\x1fd"))
        else:
            send(self.error(msg_id, -32602, "Unknown tool: %s" % name))


def encode(message):
    marker = "\"__raw_deep__\""
    text = json.dumps(message, default=lambda value: "__raw_deep__")
    return text.replace(marker, RawDeep.TEXT)


def serve_stdio(server):
    def send(message):
        if server.args.banner:
            sys.stdout.write("fake server: answering\n")
        sys.stdout.write(encode(message) + "\n")
        sys.stdout.flush()
    if server.args.banner:
        sys.stdout.write("Fake MCP server ready (this line is not JSON-RPC)\n")
        sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if server.args.hang_handshake and message.get("method") == "initialize":
            continue
        server.handle(message, send)


def serve_http(server):
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            accept = self.headers.get("Accept", "")
            if not self.authorized():
                return self.reply(401, None)
            if "application/json" not in accept or "text/event-stream" not in accept:
                return self.reply(406, None)
            if body.get("method") != "initialize":
                if self.headers.get("Mcp-Session-Id") != "fake-session":
                    return self.reply(400, None)
                if self.headers.get("MCP-Protocol-Version") != server.version:
                    return self.reply(400, None)
            answers = []
            server.handle(body, answers.append)
            if "id" not in body or "method" not in body:
                return self.reply(202, None)
            self.reply(200, answers[-1] if answers else None)

        # No listening stream: a GET is refused as the specification says.
        def do_GET(self):
            self.reply(405 if self.authorized() else 401, None)

        def authorized(self):
            if server.require_header is None:
                return True
            name, _, value = server.require_header.partition(":")
            return self.headers.get(name) == value

        def reply(self, status, message):
            data = encode(message).encode() if message is not None else b""
            self.send_response(status)
            self.send_header("Mcp-Session-Id", "fake-session")
            if message is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    # The test holds our standard input: when it ends (even by a crash),
    # so does this server.
    def watch_stdin():
        sys.stdin.read()
        os._exit(0)
    threading.Thread(target=watch_stdin, daemon=True).start()
    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    sys.stdout.write("%d\n" % httpd.server_address[1])
    sys.stdout.flush()
    httpd.serve_forever()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--version")
    parser.add_argument("--page-size", type=int, default=0)
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--require-header", help="NAME:VALUE every HTTP request must carry")
    parser.add_argument("--hang-handshake", action="store_true")
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--hostile-tools", action="store_true")
    parser.add_argument("--odd", action="store_true", help="also list the tool 'odd'")
    args = parser.parse_args()
    server = Server(args)
    server.require_header = args.require_header
    if args.http:
        serve_http(server)
    else:
        serve_stdio(server)


if __name__ == "__main__":
    main()
