"""Black-box security regression tests for motion-server: authentication on every spelling of a path, bounded
memory for clients that never read, bounded and well-formed /metrics, subject limits in bytes, HTTP session caps,
and a few protocol edges (HTTP/1.0 keep-alive, scheme-relative redirects, duplicated JSON keys).

Run:  cd /work/main && swift build --product motion-server && .venv/bin/python -m unittest -v blackbox/security/test_security.py
Set MOTION_SERVER_BIN=/path/to/motion-server to test another build (MOTION_SERVER is honoured too, as in
blackbox/server). See README.md beside this file.

Standard library only: HTTP through http.client or raw sockets, WebSocket through a small hand-written RFC 6455
client (masked client frames) over a raw socket. Every socket talks to 127.0.0.1, every loop is bounded in count
and time, and every server is stopped (SIGTERM, then SIGKILL) by its TestCase.
"""

import base64
import hashlib
import http.client
import json
import os
import random
import re
import select
import socket
import struct
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = (os.environ.get("MOTION_SERVER_BIN") or os.environ.get("MOTION_SERVER")
          or os.path.join(ROOT, ".build", "debug", "motion-server"))
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
import server_process  # noqa: E402  (after the path it lives on)


# MARK: - Server process


class MotionServer(server_process.ServerProcess):
    """One motion-server on a free port with its own temporary database (and tokens file when `tokens` is given),
    serving the repository's Public/. `stop()` always ends it and removes the temporary directory."""

    def __init__(self, *flags, tokens=None):
        self.tmp = tempfile.TemporaryDirectory(prefix="motion-security-")
        args = [BINARY, "--host", HOST, "--port", "0", "--database", os.path.join(self.tmp.name, "motion.sqlite"),
                "--public", PUBLIC, "--threads", "2", "--log-level", "warning"]
        if tokens is not None:
            path = os.path.join(self.tmp.name, "tokens")
            with open(path, "w") as f:
                f.write(tokens)
            args += ["--tokens", path]
        try:
            super().__init__(args + list(flags), host=HOST)
        except BaseException:
            self.tmp.cleanup()
            raise

    def stop(self):
        try:
            super().stop()
        finally:
            self.tmp.cleanup()

    def rss(self):
        """The server's resident set size in bytes (VmRSS of /proc/<pid>/status)."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS for pid %d" % self.proc.pid)


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
        lines = [f"GET {path} HTTP/1.1", f"Host: {HOST}:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if token is not None:
            lines.append(f"Authorization: Bearer {token}")
        if subprotocol is not None:
            lines.append(f"Sec-WebSocket-Protocol: {subprotocol}")
        for name, value in (headers or {}).items():
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


# MARK: - 1. Authentication


class AuthenticationTests(ServerTestCase):
    """Item 1 (PROTOCOL §6, STYLE "Decide on what the router decides on"): with --tokens every request but the
    health checks and static files needs a valid bearer token, however the path is spelt, whatever Upgrade headers
    it carries, and over WebSocket too. The tokens file holds only tenant tokens (two fields a line) so this class
    also runs against servers that do not know operator tokens yet; OperatorMetricsTests covers those."""

    TOKENS = TENANT_TOKENS
    FLAGS = ("--ws-echo",)

    PROTECTED = (
        ("GET", "/metrics"), ("GET", "//metrics"), ("GET", "/metrics/"), ("HEAD", "//metrics"),
        ("GET", "//openapi.json"), ("GET", "/openapi.json"), ("GET", "/openapi.json/"),
        ("GET", "//v1/sessions"), ("GET", "/v1//sessions"), ("GET", "/v1/sessions/"), ("GET", "/v1/sessions"),
        ("GET", "/v1/exercises"), ("GET", "//v1/exercises"), ("GET", f"//v1/sessions/{UNKNOWN_ID}"),
        ("POST", "//v1/sessions"), ("POST", "/v1//sessions"), ("POST", "/v1/sessions/"),
        ("POST", "//v1/analyze"), ("POST", "/v1/analyze"),
    )

    def session_ids(self, token):
        resp = self.request("GET", "/v1/sessions?limit=500", token=token)
        self.assertEqual(resp.status, 200, f"listing sessions with a valid token must work: {resp}")
        return {s["id"] for s in resp.json()["sessions"]}

    def test_open_paths_need_no_token(self):
        for method in ("GET", "HEAD"):
            for path in ("/healthz", "/readyz", "/", "/index.html", "/css/app.css", "/js/api.js"):
                with self.subTest(method=method, path=path):
                    resp = self.request(method, path)
                    self.assertEqual(resp.status, 200, f"{method} {path} is open (health check or static file)")

    def test_every_spelling_of_a_protected_path_needs_a_token(self):
        body = json.dumps({"exercise": "squat", "frames": []}).encode()
        for method, path in self.PROTECTED:
            for token in (None, "wrong-token-0123456789", ALICE + "x"):
                with self.subTest(method=method, path=path, token=token):
                    resp = self.request(method, path, body=body if method == "POST" else None, token=token)
                    if method == "HEAD":
                        self.assertEqual(resp.status, 401, f"HEAD {path} without a valid token must be 401")
                    else:
                        self.assertError(resp, 401, "unauthorized", f"{method} {path} with token {token!r}")
                    self.assertNotIn(b"# TYPE", resp.body, f"{method} {path} leaked metrics without a token")

    def test_percent_encoded_spellings_are_not_a_way_in(self):
        for path in ("/%2Fmetrics", "/%6Detrics", "/v1/%73essions", "/%2Fv1/sessions", "/v1%2Fsessions"):
            with self.subTest(path=path):
                resp = self.request("GET", path)
                self.assertIn(resp.status, (400, 401, 404), f"GET {path} without a token: {resp}")
                self.assertNotIn(b"# TYPE", resp.body, f"GET {path} leaked metrics without a token")
                self.assertNotIn(b'"sessions"', resp.body, f"GET {path} listed sessions without a token")

    def test_unauthenticated_post_creates_no_session(self):
        before = {token: self.session_ids(token) for token in (ALICE, BOB)}
        for path in ("//v1/sessions", "/v1//sessions", "/v1/sessions/"):
            with self.subTest(path=path):
                resp = self.request("POST", path, body={"exercise": "squat"})
                self.assertError(resp, 401, "unauthorized", f"POST {path} without a token")
        for token, tenant in ((ALICE, "alice"), (BOB, "bob")):
            self.assertEqual(self.session_ids(token), before[token],
                             f"an unauthenticated POST created a session visible to {tenant}")

    def test_upgrade_headers_do_not_bypass_authentication(self):
        variants = (
            {"Connection": "Upgrade", "Upgrade": "x"},
            {"Connection": "Upgrade", "Upgrade": "websocket"},
            {"Connection": "keep-alive, Upgrade", "Upgrade": "h2c"},
        )
        for path in ("/metrics", "//metrics", "/v1/sessions", "/v1/exercises"):
            for headers in variants:
                with self.subTest(path=path, headers=headers):
                    resp = self.request("GET", path, headers=headers)
                    self.assertError(resp, 401, "unauthorized",
                                     f"GET {path} with {headers} (an upgrade that is not a WebSocket handshake)")

    def assertRefusedWebSocket(self, path, probe=None, forbidden=lambda event: False, **credentials):
        """401 on the handshake, or 101 then a close frame with 1008 — and never a working session."""
        ws = self.ws(path, **credentials)
        try:
            if ws.status == 401:
                return
            self.assertEqual(ws.status, 101,
                             f"{path} with {credentials or 'no token'}: expected 401 or 101 + close 1008, "
                             f"got HTTP {ws.status} {ws.body[:200]!r}")
            if probe is not None:
                try:
                    ws.send_text(probe)
                except OSError:
                    pass  # already closed by the server: fine
            events, deadline = [], time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:  # until the close, or the first sign of a working session
                event = ws.receive(max(0.0, deadline - time.monotonic()))
                if event is None:
                    break
                events.append(event)
                if event[0] in ("close", "eof") or forbidden(event):
                    break
            bad = [e for e in events if forbidden(e)]
            self.assertEqual(bad, [], f"{path} with {credentials or 'no token'} worked without a valid token")
            closes = [e for e in events if e[0] == "close"]
            self.assertTrue(closes, f"{path} with {credentials or 'no token'}: 101 but no close frame within "
                                    f"{TIMEOUT:.0f} s; events: {events[:5]}")
            self.assertEqual(closes[0][1], 1008, f"{path} with {credentials or 'no token'}: close code")
        finally:
            ws.close()

    def test_stream_without_a_valid_token_never_starts(self):
        start = json.dumps({"type": "start", "exercise": "squat", "subject": "no-token"})
        started = lambda e: e[0] == "text" and isinstance(e[1], dict) and e[1].get("type") == "started"  # noqa: E731
        for path in ("/v1/stream", "//v1/stream"):
            for credentials in ({}, {"token": "wrong-token-0123456789"}, {"subprotocol": "bearer.wrong-0123456789ab"}):
                with self.subTest(path=path, credentials=credentials):
                    self.assertRefusedWebSocket(path, probe=start, forbidden=started, **credentials)

    def test_echo_without_a_token_echoes_nothing(self):
        probe = "echo-probe-%016x" % random.getrandbits(64)
        echoed = lambda e: e[0] == "text" and e[1] == probe  # noqa: E731
        for path in ("/v1/echo", "//v1/echo"):
            with self.subTest(path=path):
                self.assertRefusedWebSocket(path, probe=probe, forbidden=echoed)

    def test_watch_without_a_token_is_refused(self):
        owner = self.ws("/v1/stream", token=ALICE)
        try:
            self.assertEqual(owner.status, 101, f"alice's stream must upgrade: {owner.status} {owner.body!r}")
            owner.send_json({"type": "start", "exercise": "squat", "subject": "watched"})
            reply, _ = owner.first_message()
            self.assertIsInstance(reply, dict, "alice's start got no reply")
            self.assertEqual(reply.get("type"), "started", f"alice's start: {reply}")
            live = reply["session"]
            leaked = lambda e: e[0] in ("text", "binary")  # noqa: E731  (a watcher only ever receives data)
            for session in (live, UNKNOWN_ID):
                with self.subTest(session=session):
                    self.assertRefusedWebSocket(f"/v1/sessions/{session}/watch", forbidden=leaked)
        finally:
            owner.close()

    def test_websockets_work_with_a_valid_token(self):
        for credentials in ({"token": ALICE}, {"subprotocol": f"bearer.{BOB}"}):
            with self.subTest(path="/v1/stream", credentials=credentials):
                ws = self.ws("/v1/stream", **credentials)
                try:
                    self.assertEqual(ws.status, 101, f"/v1/stream with {credentials}: HTTP {ws.status} {ws.body!r}")
                    if "subprotocol" in credentials:
                        self.assertEqual(ws.headers.get("sec-websocket-protocol"), credentials["subprotocol"],
                                         "the server agrees on the offered bearer subprotocol")
                    ws.send_json({"type": "start", "exercise": "squat"})
                    reply, seen = ws.first_message()
                    self.assertIsInstance(reply, dict, f"no reply to start; events: {seen}")
                    self.assertEqual(reply.get("type"), "started", f"start with {credentials}: {reply}")
                    ws.send_json({"type": "stop"})
                    ws.events_until_closed(TIMEOUT)
                finally:
                    ws.close()
            with self.subTest(path="/v1/echo", credentials=credentials):
                ws = self.ws("/v1/echo", **credentials)
                try:
                    self.assertEqual(ws.status, 101, f"/v1/echo with {credentials}: HTTP {ws.status} {ws.body!r}")
                    ws.send_text("hello echo")
                    reply, seen = ws.first_message()
                    self.assertEqual(reply, "hello echo", f"/v1/echo with {credentials} must echo; events: {seen}")
                finally:
                    ws.close()

    def test_rest_works_with_a_valid_token(self):
        for token in (ALICE, BOB):
            with self.subTest(token=token):
                resp = self.request("GET", "/v1/exercises", token=token)
                self.assertEqual(resp.status, 200, f"GET /v1/exercises with a valid token: {resp}")
                self.assertIn("exercises", resp.json())


class OperatorMetricsTests(ServerTestCase):
    """Items 1 and 8(d): with --tokens, /metrics is for operator tokens only (a third field `operator` in the
    tokens file): no token → 401, a tenant's token → 403 `forbidden`, the operator's → 200 Prometheus text."""

    TOKENS = OPERATOR_TOKENS

    def test_metrics_without_a_token_is_401(self):
        for path in ("/metrics", "//metrics", "/metrics/"):
            with self.subTest(path=path):
                self.assertError(self.request("GET", path), 401, "unauthorized", f"GET {path} without a token")

    def test_metrics_with_a_tenant_token_is_403(self):
        for token in (ALICE, BOB):
            for path in ("/metrics", "//metrics", "/metrics/"):
                with self.subTest(path=path, token=token):
                    self.assertError(self.request("GET", path, token=token), 403, "forbidden",
                                     f"GET {path} with a tenant (non-operator) token")

    def test_metrics_with_the_operator_token(self):
        resp = self.request("GET", "/metrics", token=OPS)
        self.assertEqual(resp.status, 200, f"GET /metrics with the operator token: {resp}")
        self.assertTrue((resp.header("Content-Type") or "").startswith("text/plain"), resp.headers)
        self.assertIn(b"# TYPE ", resp.body, "Prometheus text format expected")

    def test_tenant_tokens_still_work_beside_an_operator_line(self):
        for token in (ALICE, BOB):
            with self.subTest(token=token):
                resp = self.request("GET", "/v1/exercises", token=token)
                self.assertEqual(resp.status, 200, f"a tenant token from a file with an operator line: {resp}")


# MARK: - 2. A client that does not read


class SlowReaderTests(ServerTestCase):
    """Item 2 (STYLE "Every buffer has an owner and a bound"): one connection pipelines requests as fast as it can
    and never reads. The server must stop reading while a response is pending (bounded memory) and close the
    connection once a write has made no progress for --write-timeout seconds."""

    FLAGS = ("--write-timeout", "2")
    FLOOD_SECONDS = 3.0
    MAX_FLOOD_BYTES = 400 * MB
    MAX_GROWTH = 64 * MB
    CLOSE_DEADLINE = 15.0  # write-timeout 2 s plus generous slack

    def flood_connection(self, max_bytes, sample=None):
        """Opens a connection with a small receive buffer and sends pipelined GETs of the largest static file for
        FLOOD_SECONDS (or until max_bytes, or until the server closes), never reading."""
        path = largest_static_path()
        request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)  # so the server's writes block early
        sock.settimeout(TIMEOUT)
        sock.connect((HOST, self.server.port))
        chunk = request * max(1, (256 * 1024) // len(request))
        sent, outcome = send_without_reading(sock, chunk, max_bytes, self.FLOOD_SECONDS, sample)
        return sock, sent, outcome

    def test_memory_stays_bounded_while_a_client_pipelines_without_reading(self):
        baseline = self.server.rss()
        peak = [baseline]

        def sample():
            peak[0] = max(peak[0], self.server.rss())

        sock, sent, outcome = self.flood_connection(self.MAX_FLOOD_BYTES, sample)
        try:
            settle_deadline = time.monotonic() + 1.5
            while time.monotonic() < settle_deadline:  # the server may still be reading what the kernel holds
                sample()
                time.sleep(0.05)
        finally:
            sock.close()
        growth = peak[0] - baseline
        self.assertLessEqual(
            growth, self.MAX_GROWTH,
            f"server RSS grew by {growth / MB:.0f} MB ({baseline / MB:.0f} → {peak[0] / MB:.0f} MB) while one "
            f"connection sent {sent / MB:.0f} MB of pipelined requests without reading (flood ended: {outcome}); "
            f"input must not be buffered without bound while a response is pending")

    def open_connections(self):
        """motion_open_connections, counting the connection that asks."""
        values = metric_samples(self.metrics(), "motion_open_connections")
        self.assertEqual(len(values), 1, "/metrics must have one motion_open_connections sample")
        return values[0]

    def test_connection_that_never_reads_is_closed_after_the_write_timeout(self):
        # Two ways to see the close without reading (reading would let the server's write progress): the kernel's
        # TCP state of our socket (a close with our requests unread sends RST, so it leaves ESTABLISHED), or the
        # server's own count of open connections falling back to what it was before.
        before = self.open_connections()
        sock, sent, outcome = self.flood_connection(64 * MB)
        try:
            stopped = time.monotonic()
            closed = outcome == "closed"
            state, count = tcp_state(sock), None
            while not closed and time.monotonic() - stopped < self.CLOSE_DEADLINE:
                state, count = tcp_state(sock), self.open_connections()
                if state != TCP_ESTABLISHED or count <= before:
                    closed = True
                    break
                time.sleep(0.2)
            waited = time.monotonic() - stopped
        finally:
            sock.close()
        self.assertTrue(
            closed,
            f"the server kept a connection that never reads open for {waited:.1f} s after the client stopped "
            f"sending ({sent / MB:.1f} MB sent; TCP state {state}; motion_open_connections {count} against "
            f"{before} before); with --write-timeout 2 it must close it within {self.CLOSE_DEADLINE:.0f} s")


TCP_ESTABLISHED = 1


def tcp_state(sock):
    """The kernel's TCP state of `sock` (tcp_info.tcpi_state; 1 = ESTABLISHED), without reading from it."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def send_without_reading(sock, chunk, total, seconds, sample=None):
    """Sends `chunk` over and over until `total` bytes went out, `seconds` passed, or the server closed the
    connection; never reads. Calls `sample()` about every 50 ms. Returns (bytes sent, "done"|"deadline"|"closed")."""
    sock.setblocking(False)
    view = memoryview(chunk)
    position = sent = 0
    deadline = time.monotonic() + seconds
    next_sample = 0.0
    try:
        while True:
            now = time.monotonic()
            if sample is not None and now >= next_sample:
                sample()
                next_sample = now + 0.05
            if sent >= total:
                return sent, "done"
            if now >= deadline:
                return sent, "deadline"
            try:
                count = sock.send(view[position:position + min(len(chunk) - position, total - sent)])
            except (BlockingIOError, InterruptedError):
                select.select([], [sock], [], 0.05)
                continue
            except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
                return sent, "closed"
            sent += count
            position = (position + count) % len(chunk)
    finally:
        sock.setblocking(True)
        sock.settimeout(TIMEOUT)


# MARK: - 3. WebSocket pings from a client that never reads


class PingFloodTests(ServerTestCase):
    """Item 3: 200,000 pings (125-byte payloads) from a client that never reads must not queue pongs without
    bound: the outgoing queue, control frames included, has a limit (closing with 1008 or no longer reading
    are both fine). The limit is 16 MB of RSS growth: an unbounded pong queue grows by about 32 MB here (a debug
    build, 32.2 MB in three runs out of three), a queue bounded like the data queue (4 MB) by a few MB."""

    FLAGS = ("--ws-echo",)
    PINGS = 200_000
    MAX_GROWTH = 16 * MB

    def test_pongs_to_a_client_that_never_reads_stay_bounded(self):
        # A small receive buffer, so pongs back up in the server rather than in this process's kernel buffer.
        ws = WebSocketClient.connect(self.server.port, "/v1/echo", receive_buffer=32 * 1024)
        try:
            self.assertEqual(ws.status, 101, f"/v1/echo must upgrade (--ws-echo, no tokens): {ws.status}")
            time.sleep(0.2)
            baseline = self.server.rss()
            peak = [baseline]

            def sample():
                peak[0] = max(peak[0], self.server.rss())

            frame = encode_frame(OP_PING, b"p" * 125)
            chunk = frame * 1000
            sent, outcome = send_without_reading(ws.sock, chunk, len(frame) * self.PINGS, 20.0, sample)
            settle_deadline = time.monotonic() + 1.5
            while time.monotonic() < settle_deadline:
                sample()
                time.sleep(0.05)
        finally:
            ws.close()
        growth = peak[0] - baseline
        self.assertLessEqual(
            growth, self.MAX_GROWTH,
            f"server RSS grew by {growth / MB:.1f} MB ({baseline / MB:.0f} → {peak[0] / MB:.0f} MB) after "
            f"{sent // len(frame)} pings from a client that never reads (sending ended: {outcome}); "
            f"queued pongs must be bounded")


# MARK: - 4. /metrics label cardinality


class MetricsCardinalityTests(ServerTestCase):
    """Item 4 (STYLE: metric labels use the matched route, never the raw path): unknown paths must not become
    label values, so /metrics stays small and never echoes what a client chose."""

    MAX_METRICS_BYTES = 64 * 1024
    ROUTE_PATTERN = re.compile(r"^(/([A-Za-z][A-Za-z0-9._-]{0,23}|\{[A-Za-z]+\}))+$")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = random.Random(20261201)
        cls.randoms = (["%064x" % rng.getrandbits(256) for _ in range(2000)]
                       + ["".join(rng.choice("0123456789abcdef") for _ in range(8000)) for _ in range(200)])
        http_request(cls.server.port, "GET", "/v1/exercises")  # one known route, to see labels exist at all
        conn = None
        try:
            for value in cls.randoms:
                for _ in range(2):  # one retry on a fresh connection if the server closed the old one
                    if conn is None:
                        conn = http.client.HTTPConnection(HOST, cls.server.port, timeout=TIMEOUT)
                    try:
                        conn.request("GET", "/v1/" + value)
                        resp = conn.getresponse()
                        resp.read()
                        if resp.will_close:
                            conn.close()
                            conn = None
                        break
                    except (http.client.HTTPException, OSError):
                        conn.close()
                        conn = None
        finally:
            if conn is not None:
                conn.close()
        cls.text = http_request(cls.server.port, "GET", "/metrics").body.decode("utf-8", "replace")

    def test_metrics_are_open_without_tokens(self):
        resp = self.request("GET", "/metrics")
        self.assertEqual(resp.status, 200, f"without --tokens /metrics is open: {resp}")
        self.assertIn(b"# TYPE ", resp.body)

    def test_metrics_stay_small(self):
        size = len(self.text.encode())
        self.assertLess(size, self.MAX_METRICS_BYTES,
                        f"/metrics is {size / 1024:.0f} KB after 2,200 requests to random unknown paths")

    def test_metrics_contain_none_of_the_random_paths(self):
        leaked = leaked_strings(self.text, self.randoms)
        self.assertEqual(len(leaked), 0, f"/metrics contains {len(leaked)} of the 2,200 random path segments, "
                                         f"e.g. {sorted(leaked)[0][:80] if leaked else ''}…")

    def test_route_labels_are_route_patterns(self):
        routes = set()
        for line in self.text.split("\n"):
            if line.startswith("motion_http_requests_total{"):
                match = re.search(r'route="((?:[^"\\]|\\.)*)"', line)
                self.assertIsNotNone(match, f"a motion_http_requests_total line without a route label: {line!r}")
                routes.add(match.group(1))
        self.assertIn("/v1/exercises", routes, "the matched route of GET /v1/exercises must be counted")
        bad = sorted(r for r in routes if r not in ("other", "static") and not self.ROUTE_PATTERN.match(r))
        self.assertEqual(bad[:5], [], f"{len(bad)} route labels are not route patterns (like /v1/sessions/{{id}}, "
                                      f"other, static)")
        self.assertLessEqual(len(routes), 64, f"{len(routes)} distinct route labels")


def leaked_strings(text, randoms, window=16):
    """The random strings of which some window-aligned 16-character piece appears in `text` (so any copy of 31 or
    more consecutive characters is found)."""
    pieces = {}
    for value in randoms:
        for start in range(0, len(value) - window + 1, window):
            pieces[value[start:start + window]] = value
    found = set()
    for run in re.findall(r"[0-9a-f]{%d,}" % window, text):
        for start in range(len(run) - window + 1):
            value = pieces.get(run[start:start + window])
            if value is not None:
                found.add(value)
    return found


# MARK: - 5. Metrics injection


class MetricsInjectionTests(ServerTestCase):
    """Item 5: a path with percent-encoded CR/LF, quotes and braces must not add lines to /metrics; every line
    stays a comment or a valid sample, and no raw CR appears."""

    SAMPLE = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^\n]*\})? -?[0-9.eE+Inf-]+$")
    INJECTIONS = (
        "/v1/x%0D%0Amotion_live_sessions%20999%0D%0A%23",
        "/v1/y%0Amotion_live_sessions%20999%0A%23",
        "/v1/z%0Dmotion_live_sessions%20999%0D%23",
        "/v1/q%22%7D%20999%0Amotion_live_sessions%7Ba%3D%22b%22%7D%20999%0A%23",
        "/x%0D%0Amotion_live_sessions%20999%0D%0A%23",
    )

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        for path in cls.INJECTIONS:
            raw = RawHTTP(cls.server.port)
            try:
                raw.send(f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
                try:
                    raw.read_response()
                except (EOFError, OSError):
                    pass
            finally:
                raw.close()
        cls.body = http_request(cls.server.port, "GET", "/metrics").body

    def test_no_injected_sample(self):
        lines = [line.rstrip("\r") for line in self.body.decode("utf-8", "replace").split("\n")]
        injected = [line for line in lines if line.startswith("motion_live_sessions") and line.endswith(" 999")]
        self.assertEqual(injected, [], "a request path injected a motion_live_sessions sample into /metrics")
        self.assertEqual(len(metric_samples(self.body.decode("utf-8", "replace"), "motion_live_sessions")), 1,
                         "exactly one motion_live_sessions sample line")

    def test_no_carriage_return(self):
        self.assertNotIn(b"\r", self.body, "/metrics must not contain a raw CR")

    def test_every_line_is_a_comment_or_a_sample(self):
        bad = []
        for line in self.body.decode("utf-8", "replace").split("\n"):
            if line == "" or line.startswith("# HELP ") or line.startswith("# TYPE "):
                continue
            if not self.SAMPLE.match(line):
                bad.append(line)
        self.assertEqual(bad[:5], [], f"{len(bad)} lines of /metrics are neither # HELP/# TYPE nor samples")


# MARK: - 6. Subject


class SubjectTests(ServerTestCase):
    """Item 6: `subject` is at most 128 Unicode scalars (PROTOCOL.md's "128 chars", JSON Schema's `maxLength`), so
    at most 512 bytes of UTF-8 — never counted in grapheme clusters, one of which can be a megabyte — and refuses
    invisible format/control characters (C1 NEL, bidi overrides and isolates), over REST (400 `invalidMessage`)
    and in the WebSocket `start` (an `error`, no `started`)."""

    COMBINING = "a" + "\u0301" * 500_000  # one grapheme cluster, 1,000,001 bytes
    TOO_LONG = ("x" * 129, "\u00e9" * 129, "\U0001F600" * 129, "a" + "\u0301" * 128)
    LONGEST = ("x" * 128, "\u00e9" * 128, "\U0001F600" * 128)
    INVISIBLE = ("patient\u0085next", "patient\u202e71-tneitap", "patient\u2066isolated\u2069")

    def post_subject(self, subject, ensure_ascii):
        body = json.dumps({"exercise": "squat", "subject": subject}, ensure_ascii=ensure_ascii).encode("utf-8")
        return self.request("POST", "/v1/sessions", body=body)

    def stream_start(self, subject, ensure_ascii):
        """The first reply to a `start` with this subject on a fresh /v1/stream."""
        ws = self.ws("/v1/stream")
        try:
            self.assertEqual(ws.status, 101, f"/v1/stream must upgrade: {ws.status} {ws.body!r}")
            ws.send_text(json.dumps({"type": "start", "exercise": "squat", "subject": subject},
                                    ensure_ascii=ensure_ascii))
            reply, seen = ws.first_message()
            return reply, seen
        finally:
            ws.close()

    def test_one_grapheme_of_a_megabyte_is_refused(self):
        resp = self.post_subject(self.COMBINING, ensure_ascii=False)
        self.assertError(resp, 400, "invalidMessage", "a subject of one 1 MB grapheme (a + 500,000 U+0301)")

    def test_subject_over_128_scalars_is_refused(self):
        for subject in self.TOO_LONG:
            with self.subTest(chars=len(subject), bytes=len(subject.encode())):
                self.assertError(self.post_subject(subject, ensure_ascii=False), 400, "invalidMessage",
                                 f"a subject of {len(subject.encode())} bytes ({len(subject)} characters)")

    def test_subject_of_128_scalars_is_accepted(self):
        for subject in self.LONGEST:
            with self.subTest(chars=len(subject), bytes=len(subject.encode())):
                resp = self.post_subject(subject, ensure_ascii=False)
                self.assertEqual(resp.status, 201,
                                 f"a subject of {len(subject)} scalars ({len(subject.encode())} bytes) is within the limit: {resp}")
                self.request("POST", f"/v1/sessions/{resp.json()['id']}/stop")

    def test_invisible_format_characters_are_refused(self):
        for subject in self.INVISIBLE:
            with self.subTest(subject=subject.encode("unicode_escape").decode()):
                self.assertError(self.post_subject(subject, ensure_ascii=True), 400, "invalidMessage",
                                 f"subject {subject.encode('unicode_escape').decode()}")

    def test_websocket_start_refuses_the_same_subjects(self):
        for subject in (self.COMBINING,) + self.TOO_LONG + self.INVISIBLE:
            label = subject[:12].encode("unicode_escape").decode() + f"… ({len(subject.encode())} bytes)"
            with self.subTest(subject=label):
                reply, seen = self.stream_start(subject, ensure_ascii=subject in self.INVISIBLE)
                self.assertIsInstance(reply, dict, f"no reply to start with subject {label}; events: {seen[:3]}")
                self.assertEqual((reply.get("type"), reply.get("code")), ("error", "invalidMessage"),
                                 f"start with subject {label} must be refused, got {str(reply)[:200]}")

    def test_websocket_start_accepts_128_scalars(self):
        reply, seen = self.stream_start("\U0001F600" * 128, ensure_ascii=True)
        self.assertIsInstance(reply, dict, f"no reply to start; events: {seen[:3]}")
        self.assertEqual(reply.get("type"), "started", f"a 128-scalar (512-byte) subject is within the limit: {reply}")


# MARK: - 7. HTTP session caps


class HTTPSessionCapTests(ServerTestCase):
    """Item 7 (STYLE: per-tenant objects have a bound): sessions opened with POST /v1/sessions are capped per
    tenant (429 `tooManySessions`) and in total (503 `serverBusy`); stopping one frees its slot; the gauge
    `motion_http_sessions` counts the open ones."""

    TOKENS = OPERATOR_TOKENS
    FLAGS = ("--max-http-sessions", "6", "--max-http-sessions-per-tenant", "4")

    def create(self, token):
        return self.request("POST", "/v1/sessions", body={"exercise": "squat"}, token=token)

    def gauge(self):
        values = metric_samples(self.metrics(token=OPS), "motion_http_sessions")
        self.assertTrue(values, "/metrics has no motion_http_sessions gauge")
        return sum(values)

    def test_caps_per_tenant_and_in_total(self):
        alice = []
        for number in range(1, 5):
            resp = self.create(ALICE)
            self.assertEqual(resp.status, 201, f"alice's session {number} of 4 must be created: {resp}")
            alice.append(resp.json()["id"])
        self.assertEqual(self.gauge(), 4, "motion_http_sessions after alice's 4")
        self.assertError(self.create(ALICE), 429, "tooManySessions", "alice's 5th session (tenant cap 4)")
        for number in range(1, 3):
            resp = self.create(BOB)
            self.assertEqual(resp.status, 201, f"bob's session {number} of 2 must be created: {resp}")
        self.assertEqual(self.gauge(), 6, "motion_http_sessions with 6 open")
        self.assertError(self.create(BOB), 503, "serverBusy", "bob's 3rd session (server cap 6 reached)")
        self.assertEqual(self.gauge(), 6, "refused sessions are not counted")

        stopped = self.request("POST", f"/v1/sessions/{alice[0]}/stop", token=ALICE)
        self.assertEqual(stopped.status, 200, f"alice stops one of her sessions: {stopped}")
        self.assertEqual(self.gauge(), 5, "motion_http_sessions after a stop")
        again = self.create(ALICE)
        self.assertEqual(again.status, 201, f"after a stop alice may create a session again: {again}")
        self.assertEqual(self.gauge(), 6, "motion_http_sessions after alice's new session")


# MARK: - 8. Protocol edges


class ProtocolEdgeTests(ServerTestCase):
    """Item 8: HTTP/1.0 keep-alive is honoured and said; a directory redirect never points to another host; JSON
    objects with duplicated keys are refused over REST and WebSocket."""

    def test_http10_keep_alive_is_honoured(self):
        raw = RawHTTP(self.server.port)
        try:
            raw.send(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            status, headers, body = raw.read_response()
            self.assertEqual(status, 200, body)
            self.assertIn("keep-alive", headers.get("connection", "").lower(),
                          f"an HTTP/1.0 keep-alive request kept open must be answered with Connection: keep-alive "
                          f"(RFC 9112 §9.3), got headers {headers}")
            raw.send(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            status, _, body = raw.read_response()
            self.assertEqual(status, 200, f"second request on the kept-alive HTTP/1.0 connection: {body!r}")
        finally:
            raw.close()

    def test_http10_without_keep_alive_is_closed(self):
        raw = RawHTTP(self.server.port)
        try:
            raw.send(b"GET /healthz HTTP/1.0\r\n\r\n")
            status, _, body = raw.read_response()
            self.assertEqual(status, 200, body)
            self.assertTrue(raw.closed_by_peer(TIMEOUT), "HTTP/1.0 without keep-alive: closed after the response")
        finally:
            raw.close()

    def test_directory_redirect_is_not_scheme_relative(self):
        if not os.path.isdir(os.path.join(PUBLIC, "css")):
            self.skipTest("Public/ has no css directory")
        raw = RawHTTP(self.server.port)
        try:
            raw.send(f"GET //css HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            status, headers, body = raw.read_response()
        finally:
            raw.close()
        self.assertLess(status, 500, f"GET //css: {status} {body!r}")
        if 300 <= status < 400:
            location = headers.get("location", "")
            self.assertFalse(location.startswith("//"),
                             f"GET //css redirects to {location!r}: a scheme-relative URL names another host")
            self.assertEqual(location, "/css/", "GET //css redirect target")

    def test_duplicated_keys_are_refused_over_rest(self):
        for body in (b'{"exercise":"squat","exercise":"squat"}',
                     b'{"exercise":"squat","subject":"a","subject":"b"}'):
            with self.subTest(body=body):
                resp = self.request("POST", "/v1/sessions", body=body)
                self.assertEqual(resp.status, 400, f"POST /v1/sessions {body.decode()}: duplicated keys: {resp}")

    def test_duplicated_keys_are_refused_over_websocket(self):
        ws = self.ws("/v1/stream")
        try:
            self.assertEqual(ws.status, 101, f"/v1/stream must upgrade: {ws.status} {ws.body!r}")
            ws.send_text('{"type":"start","exercise":"squat","type":"stop"}')
            reply, seen = ws.first_message()
            self.assertIsInstance(reply, dict, f"no reply to a start with a duplicated type; events: {seen}")
            self.assertEqual(reply.get("type"), "error", f"a message with two \"type\" keys must be refused: {reply}")
            more = ws.receive(0.3)
            self.assertFalse(more is not None and more[0] == "text" and isinstance(more[1], dict)
                             and more[1].get("type") == "started", f"started after the error: {more}")
        finally:
            ws.close()


if __name__ == "__main__":
    unittest.main()
