"""Shared by the black-box security regression tests for motion-server: authentication on every spelling of a
path, bounded memory for clients that never read, bounded and well-formed /metrics, subject limits in bytes, HTTP
session caps, and a few protocol edges (HTTP/1.0 keep-alive, scheme-relative redirects, duplicated JSON keys).

Run:  swift build --product motion-server
      .venv/bin/python -m unittest discover -v -s blackbox/security -p 'test_security_*.py'
Set MOTION_SERVER_BIN=/path/to/motion-server to test another build (MOTION_SERVER is honoured too, as in
blackbox/server). See README.md beside this file.

The tests are the test_security_*.py modules beside this file, by subject; this module holds what they
share: the server, the HTTP and WebSocket clients, the base class.

Standard library only: HTTP through http.client or raw sockets, WebSocket through a small hand-written RFC 6455
client (masked client frames) over a raw socket. Every socket talks to 127.0.0.1, every loop is bounded in count
and time, and every server is stopped (SIGTERM, then SIGKILL) by its TestCase.
"""

import base64
import hashlib
import http.client
import json
import os
import re
import socket
import struct
import sys
import time
import unittest


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PUBLIC = os.path.join(ROOT, "Public")
HOST = "127.0.0.1"
TIMEOUT = 10.0
MB = 1024 * 1024

ALICE = "alice-token-0123456789"
BOB = "bob-token-0123456789abc"
OPS = "ops-token-0123456789abcd"
TENANT_TOKENS = f"{ALICE} alice\n{BOB} bob\n"
OPERATOR_TOKENS = f"{ALICE} alice\n{BOB} bob\n{OPS} ops operator\n"
UNKNOWN_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a well-formed ULID no server issued

sys.path.insert(0, os.path.join(ROOT, "blackbox", "support"))
import motion_server  # noqa: E402  (after the path it lives on)


# MARK: - Server process


class MotionServer(motion_server.MotionServer):
    """One motion-server on a free port with its own temporary database (and tokens file when `tokens` is given),
    serving the repository's Public/. `stop()` always ends it and removes the temporary directory."""

    def __init__(self, *flags, tokens=None, log_level="warning", nofile=None):
        super().__init__(*flags, prefix="motion-security-", public=PUBLIC, tokens=tokens, log_level=log_level,
                         nofile=nofile)


class ServerTestCase(unittest.TestCase):
    """Starts one server per class with `FLAGS` and `TOKENS`; a server that refuses its flags fails the class."""

    FLAGS = ()
    TOKENS = None
    server = None

    @classmethod
    def setUpClass(cls):
        cls.server = MotionServer(*cls.FLAGS, tokens=cls.TOKENS)

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            cls.server.stop()
            cls.server = None

    # -- HTTP --

    def request(self, method, path, body=None, headers=None, token=None):
        return http_request(self.server.port, method, path, body=body, headers=headers, token=token)

    def assertError(self, resp, status, code, what):
        self.assertEqual(resp.status, status, f"{what}: expected {status} with error code {code!r}, got {resp}")
        try:
            error = json.loads(resp.body)["error"]
        except (ValueError, KeyError, TypeError):
            self.fail(f"{what}: a {status} must carry {{\"error\":{{\"code\":...}}}} JSON, got {resp}")
        self.assertEqual(error.get("code"), code, f"{what}: wrong error code in {resp}")

    def metrics(self, token=None):
        resp = self.request("GET", "/metrics", token=token)
        self.assertEqual(resp.status, 200, f"/metrics must answer 200, got {resp}")
        return resp.body.decode("utf-8", "replace")

    def ws(self, path, token=None, subprotocol=None, headers=None):
        return WebSocketClient.connect(self.server.port, path, token=token, subprotocol=subprotocol,
                                       headers=headers)


# MARK: - HTTP helpers


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers  # [(name, value)], as received
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def json(self):
        return json.loads(self.body)

    def __repr__(self):
        return "<HTTP %d %r>" % (self.status, self.body[:300])


def http_request(port, method, path, body=None, headers=None, token=None, timeout=TIMEOUT):
    """One request on a fresh connection; `path` is sent exactly as given (e.g. `//metrics`)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        all_headers = dict(headers or {})
        if token is not None:
            all_headers["Authorization"] = "Bearer " + token
        if body is not None and not isinstance(body, (bytes, bytearray)):
            body = json.dumps(body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        elif body is not None:
            all_headers.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=all_headers)
        resp = conn.getresponse()
        return Response(resp.status, resp.getheaders(), resp.read())
    finally:
        conn.close()


class RawHTTP:
    """HTTP/1.x over a raw socket: exact request bytes out, responses read by Content-Length (or to EOF)."""

    def __init__(self, port, timeout=TIMEOUT):
        self.sock = socket.create_connection((HOST, port), timeout=timeout)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise socket.timeout("no response before the deadline")
        self.sock.settimeout(remaining)
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("connection closed")
        self.buffer += data

    def read_response(self, timeout=TIMEOUT, head_request=False):
        """(status, {lower-case name: value}, body)."""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > 64 * 1024:
                raise AssertionError("response head over 64 KB")
            self._fill(deadline)
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if head_request or status in (204, 304) or 100 <= status < 200:
            return status, headers, b""
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(self.buffer) < length:
                self._fill(deadline)
            body, self.buffer = self.buffer[:length], self.buffer[length:]
            return status, headers, body
        while True:  # no length: the body ends at EOF
            try:
                self._fill(deadline)
            except EOFError:
                body, self.buffer = self.buffer, b""
                return status, headers, body

    def closed_by_peer(self, timeout=TIMEOUT):
        """True when the server closes the connection (EOF or reset) within `timeout`, with nothing more sent."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                self._fill(deadline)
            except EOFError:
                return True
            except ConnectionResetError:
                return True
            except socket.timeout:
                return False
        return False


def largest_static_path():
    """The URL path of the largest file under Public/."""
    best = None
    for directory, _, files in os.walk(PUBLIC):
        for name in files:
            full = os.path.join(directory, name)
            size = os.path.getsize(full)
            if best is None or size > best[0]:
                best = (size, full)
    if best is None:
        raise unittest.SkipTest("Public/ has no files")
    return "/" + os.path.relpath(best[1], PUBLIC).replace(os.sep, "/")


def metric_samples(text, name):
    """Values of the sample lines of metric `name` (any labels)."""
    values = []
    for line in text.split("\n"):
        match = re.match(r"^%s(\{[^\n]*\})? (\S+)$" % re.escape(name), line.rstrip("\r"))
        if match:
            values.append(float(match.group(2)))
    return values


# MARK: - WebSocket client (RFC 6455, client side)

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def apply_mask(mask, data):
    if not data:
        return b""
    key = (mask * (len(data) // 4 + 1))[:len(data)]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(len(data), "big")


def encode_frame(opcode, payload, mask=None, fin=True):
    """A masked client frame (RFC 6455 §5.2, §5.3)."""
    mask = mask or os.urandom(4)
    first = (0x80 if fin else 0) | opcode
    count = len(payload)
    if count < 126:
        header = struct.pack("!BB", first, 0x80 | count)
    elif count < 1 << 16:
        header = struct.pack("!BBH", first, 0x80 | 126, count)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, count)
    return header + mask + apply_mask(mask, payload)


class WebSocketClient:
    """One WebSocket connection: the handshake's status and headers; after a 101, frames in and out."""

    def __init__(self, sock, status, headers, body, leftover):
        self.sock = sock
        self.status = status
        self.headers = headers
        self.body = body
        self.buffer = leftover
        self.fragments = None

    @classmethod
    def connect(cls, port, path, token=None, subprotocol=None, headers=None, timeout=TIMEOUT, receive_buffer=None):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.settimeout(timeout)
        try:
            sock.connect((HOST, port))
        except BaseException:
            sock.close()
            raise
        key = base64.b64encode(os.urandom(16)).decode()
        host = (headers or {}).get("Host", f"{HOST}:{port}")  # a `Host` in `headers` replaces the real one
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if token is not None:
            lines.append(f"Authorization: Bearer {token}")
        if subprotocol is not None:
            lines.append(f"Sec-WebSocket-Protocol: {subprotocol}")
        for name, value in (headers or {}).items():
            if name != "Host":
                lines.append(f"{name}: {value}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        deadline = time.monotonic() + timeout
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                if len(data) > 64 * 1024 or time.monotonic() > deadline:
                    raise AssertionError(f"no handshake response from {path}: {data[:200]!r}")
                chunk = sock.recv(65536)
                if not chunk:
                    raise AssertionError(f"connection closed during the handshake on {path}: {data[:200]!r}")
                data += chunk
            head, rest = data.split(b"\r\n\r\n", 1)
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            response_headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                response_headers[name.strip().lower()] = value.strip()
            body = b""
            if status != 101:
                length = int(response_headers.get("content-length", "0") or 0)
                while len(rest) < length and time.monotonic() < deadline:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    rest += chunk
                body, rest = rest[:length], b""
            else:
                expected = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
                if response_headers.get("sec-websocket-accept") != expected:
                    raise AssertionError(f"bad Sec-WebSocket-Accept from {path}: {response_headers}")
        except BaseException:
            sock.close()
            raise
        return cls(sock, status, response_headers, body, rest)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send_frame(self, opcode, payload, fin=True):
        self.sock.sendall(encode_frame(opcode, payload, fin=fin))

    def send_text(self, text):
        self.send_frame(OP_TEXT, text.encode("utf-8") if isinstance(text, str) else text)

    def send_json(self, value):
        self.send_text(json.dumps(value))

    def _need(self, count, deadline):
        while len(self.buffer) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise socket.timeout()
            self.sock.settimeout(remaining)
            data = self.sock.recv(1 << 20)
            if not data:
                raise EOFError()
            self.buffer += data

    def _frame(self, deadline):
        self._need(2, deadline)
        first, second = self.buffer[0], self.buffer[1]
        length, offset = second & 0x7F, 2
        if length == 126:
            self._need(4, deadline)
            length, offset = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif length == 127:
            self._need(10, deadline)
            length, offset = struct.unpack("!Q", self.buffer[2:10])[0], 10
        mask = None
        if second & 0x80:
            self._need(offset + 4, deadline)
            mask, offset = self.buffer[offset:offset + 4], offset + 4
        self._need(offset + length, deadline)
        payload = self.buffer[offset:offset + length]
        self.buffer = self.buffer[offset + length:]
        if mask:
            payload = apply_mask(mask, payload)
        return bool(first & 0x80), first & 0x0F, payload

    def receive(self, timeout=TIMEOUT):
        """The next event: ("text", value) with JSON decoded when it parses, ("binary", bytes),
        ("close", code, reason), ("eof",), or None when nothing arrives within `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                fin, opcode, payload = self._frame(deadline)
            except socket.timeout:
                return None
            except (EOFError, ConnectionResetError):
                return ("eof",)
            if opcode == OP_PING:
                try:
                    self.send_frame(OP_PONG, payload)
                except OSError:
                    pass
                continue
            if opcode == OP_PONG:
                continue
            if opcode == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                try:
                    self.send_frame(OP_CLOSE, payload[:2])
                except OSError:
                    pass
                return ("close", code, payload[2:].decode("utf-8", "replace"))
            if opcode in (OP_TEXT, OP_BINARY):
                self.fragments = (opcode, payload)
            elif opcode == OP_CONT and self.fragments is not None:
                self.fragments = (self.fragments[0], self.fragments[1] + payload)
            if fin and self.fragments is not None:
                kind, data = self.fragments
                self.fragments = None
                if kind == OP_BINARY:
                    return ("binary", data)
                text = data.decode("utf-8", "replace")
                try:
                    return ("text", json.loads(text))
                except ValueError:
                    return ("text", text)

    def events_until_closed(self, timeout=TIMEOUT):
        """Every event until a close frame or EOF, or until `timeout` passes."""
        deadline = time.monotonic() + timeout
        events = []
        while time.monotonic() < deadline:
            event = self.receive(max(0.0, deadline - time.monotonic()))
            if event is None:
                break
            events.append(event)
            if event[0] in ("close", "eof"):
                break
        return events

    def first_message(self, timeout=TIMEOUT):
        """The first text or binary message (None on timeout, close or EOF), and the event list it came from."""
        event = self.receive(timeout)
        if event is None:
            return None, []
        return (event[1] if event[0] in ("text", "binary") else None), [event]
