"""Shared by the blackbox/websocket suites (test_websocket_*.py, run by run.py beside this file): the
`http-bench-server` under test, the `websockets` library client, the raw-socket client `RawWebSocket`, and
`WebSocketTestCase`, their base class.

A test module imports `setUpModule` and `tearDownModule` from here: one server subprocess (`--port 0`) serves the
module and is always stopped (SIGTERM, SIGKILL after 5 s). With MOTION_TEST_TLS=1 the server gets the test
certificate and both clients connect with TLS and verify it (blackbox/support/server_process.py).
"""

import base64
import hashlib
import os
import socket
import ssl
import struct
import sys
import time
import zlib


try:
    from websockets.exceptions import ConnectionClosed  # noqa: F401  (for the test modules)
    from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory  # noqa: F401  (ditto)
    from websockets.sync.client import connect as ws_connect
except ImportError:
    sys.exit("blackbox/websocket: the Python package 'websockets' is missing; `make deps` installs it into .venv "
             "(run .venv/bin/python blackbox/websocket/run.py)")


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("HTTP_BENCH_SERVER", os.path.join(ROOT, ".build", "debug", "http-bench-server"))
HOST = "127.0.0.1"

sys.path.insert(0, os.path.join(ROOT, "blackbox", "support"))
import server_process  # noqa: E402  (after the path it lives on)
import alarm  # noqa: E402
TLS = server_process.TLS  # MOTION_TEST_TLS=1: the run over TLS
PATH = "/v1/echo"
TIMEOUT = 5.0
TEST_TIMEOUT = 20
MAX_MESSAGE = 1 << 20  # WebSocketConfiguration.maxMessageBytes
GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

CONTINUATION, TEXT, BINARY_OP, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
RSV1, RSV2, RSV3 = 0x4, 0x2, 0x1  # as the `rsv` argument of build_frame (bits 6, 5, 4 of the first byte)


# MARK: - Server process


class ServerProcess(server_process.ServerProcess):
    """One `http-bench-server` subprocess; `stop()` always ends it."""

    def __init__(self, *flags):
        super().__init__([BINARY, "--port", "0", "--host", HOST] + server_process.tls_flags() + list(flags),
                         host=HOST)
        server_process.require_tls(self)


SERVER = None


def setUpModule():
    global SERVER
    SERVER = ServerProcess()


def tearDownModule():
    if SERVER is not None:
        SERVER.stop()


def port():
    return SERVER.port


def ws_url():
    return "%s://%s:%d%s" % ("wss" if TLS else "ws", HOST, port(), PATH)


def ws_tls():
    """The library client's TLS argument in the TLS run (nothing otherwise): the verifying context, capped at TLS 1.2.

    The `websockets` sync client reads its TLS socket in a thread of its own while the caller's thread writes, and
    Python's SSLSocket is not safe for that when TLS 1.3 session tickets arrive after the handshake: about one
    connection in a hundred, 20 at a time, hangs in its opening handshake until the server's idle timeout, the
    server never having seen a request (single-threaded raw clients over TLS 1.3: 0 in 800; this client capped at
    1.2: 0 in 600). TLS 1.2 sends its tickets inside the handshake. TLS 1.3 itself is tested by the raw WebSocket
    client here and by blackbox/tls.
    """
    if not TLS:
        return {}
    context = server_process.tls_client_context()
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    return {"ssl": context}


def library_connect(**kwargs):
    """`websockets` connect to the echo path (over TLS in the TLS run, see ws_tls)."""
    return ws_connect(ws_url(), proxy=None, **ws_tls(), **kwargs)


# MARK: - Raw WebSocket client


def mask_bytes(payload, key):
    """XORs `payload` with the 4-byte `key` (RFC 6455 §5.3), fast enough for megabytes."""
    n = len(payload)
    if n == 0:
        return b""
    stream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(n, "big")


def build_frame(opcode, payload=b"", fin=True, rsv=0, mask=True, length=None, length_form=None):
    """A client frame. `length` overrides the announced payload length; `length_form` (7, 16 or 64) forces an
    encoding of the length, minimal or not."""
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload) if length is None else length
    first = (0x80 if fin else 0) | (rsv << 4) | opcode
    mask_bit = 0x80 if mask else 0
    form = length_form or (7 if n < 126 else 16 if n < 65536 else 64)
    if form == 7:
        header = bytes([first, mask_bit | n])
    elif form == 16:
        header = bytes([first, mask_bit | 126]) + struct.pack("!H", n)
    else:
        header = bytes([first, mask_bit | 127]) + struct.pack("!Q", n)
    if not mask:
        return header + payload
    key = os.urandom(4)
    return header + key + mask_bytes(payload, key)


def close_payload(code, reason=b""):
    if isinstance(reason, str):
        reason = reason.encode()
    return struct.pack("!H", code) + reason


class Frame:
    def __init__(self, fin, rsv, opcode, payload, length_form):
        self.fin, self.rsv, self.opcode, self.payload, self.length_form = fin, rsv, opcode, payload, length_form

    @property
    def close_code(self):
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else None

    @property
    def close_reason(self):
        return self.payload[2:]

    def __repr__(self):
        shown = self.payload[:40]
        return "Frame(fin=%s rsv=%d opcode=%d len=%d %r)" % (self.fin, self.rsv, self.opcode, len(self.payload), shown)


def read_http_head(sock, buffer=b""):
    """Reads a response head; returns (status, headers dict with lower-case names, bytes after the head)."""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed before the response head ended: %r" % buffer)
        buffer += chunk
    head, rest = buffer.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        headers[name] = (headers[name] + ", " + value.strip()) if name in headers else value.strip()
    return status, headers, rest


def accept_value(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


class RawWebSocket:
    """A byte-level client: handshake, masked frames of any shape, server frames parsed (and checked unmasked)."""

    def __init__(self, port_number, path=PATH, extensions=None, extra=""):
        self.sock = server_process.connect(HOST, port_number, TIMEOUT)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.key = base64.b64encode(os.urandom(16)).decode()
        request = (
            "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n" % (path, HOST, port_number, self.key)
        )
        if extensions:
            request += "Sec-WebSocket-Extensions: %s\r\n" % extensions
        request += extra + "\r\n"
        self.sock.sendall(request.encode())
        self.status, self.headers, self.buffer = read_http_head(self.sock)
        if self.status != 101:
            raise AssertionError("handshake refused with %d" % self.status)
        if self.headers.get("sec-websocket-accept") != accept_value(self.key):
            raise AssertionError("wrong Sec-WebSocket-Accept %r" % self.headers.get("sec-websocket-accept"))
        self.eof = False

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    # Sending

    def send_raw(self, data):
        """Sends bytes; returns False when the server already closed (EPIPE / reset), which some tests expect."""
        try:
            self.sock.sendall(data)
            return True
        except (BrokenPipeError, ConnectionResetError):
            return False

    def send(self, opcode, payload=b"", **kwargs):
        return self.send_raw(build_frame(opcode, payload, **kwargs))

    def send_text(self, text, **kwargs):
        return self.send(TEXT, text.encode() if isinstance(text, str) else text, **kwargs)

    def send_close(self, code=None, reason=b""):
        return self.send(CLOSE, b"" if code is None else close_payload(code, reason))

    # Receiving

    def _fill(self, count, deadline):
        while len(self.buffer) < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout("timed out waiting for %d bytes (have %d)" % (count, len(self.buffer)))
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 20)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                self.eof = True
                return False
            self.buffer += chunk
        return True

    def recv_frame(self, timeout=TIMEOUT):
        """The next server frame, or None when the server closed the TCP connection."""
        deadline = time.monotonic() + timeout
        if not self._fill(2, deadline):
            if self.buffer:
                raise AssertionError("connection closed inside a frame header: %r" % self.buffer)
            return None
        first, second = self.buffer[0], self.buffer[1]
        if second & 0x80:
            raise AssertionError("server sent a masked frame (RFC 6455 §5.1 forbids it)")
        length, offset, form = second & 0x7F, 2, 7
        if length == 126:
            form, offset = 16, 4
            if not self._fill(4, deadline):
                raise AssertionError("connection closed inside a frame header")
            length = struct.unpack("!H", self.buffer[2:4])[0]
        elif length == 127:
            form, offset = 64, 10
            if not self._fill(10, deadline):
                raise AssertionError("connection closed inside a frame header")
            length = struct.unpack("!Q", self.buffer[2:10])[0]
        if not self._fill(offset + length, deadline):
            raise AssertionError("connection closed inside a frame payload")
        payload = self.buffer[offset:offset + length]
        self.buffer = self.buffer[offset + length:]
        return Frame(bool(first & 0x80), (first >> 4) & 0x7, first & 0x0F, payload, form)

    def recv_message(self, timeout=TIMEOUT):
        """The next data message as (opcode, payload), reassembling fragments; control frames are not expected."""
        frame = self.recv_frame(timeout)
        if frame is None:
            raise AssertionError("connection closed while waiting for a message")
        if frame.opcode not in (TEXT, BINARY_OP):
            raise AssertionError("expected a data frame, got %r" % frame)
        opcode, payload = frame.opcode, frame.payload
        while not frame.fin:
            frame = self.recv_frame(timeout)
            if frame is None or frame.opcode != CONTINUATION:
                raise AssertionError("expected a continuation frame, got %r" % frame)
            payload += frame.payload
        return opcode, payload

    def frames_until_closed(self, timeout=TIMEOUT):
        """Every frame until the server closes the TCP connection (which must happen within `timeout`)."""
        frames = []
        deadline = time.monotonic() + timeout
        while True:
            frame = self.recv_frame(max(0.01, deadline - time.monotonic()))
            if frame is None:
                return frames
            frames.append(frame)

    def is_closed_by_peer(self, timeout=TIMEOUT):
        try:
            return self.recv_frame(timeout) is None
        except socket.timeout:
            return False


# MARK: - Helpers


class WebSocketTestCase(alarm.AlarmTestCase):
    """Adds a per-test alarm, connection bookkeeping and assertion helpers."""

    TEST_TIMEOUT = TEST_TIMEOUT

    def setUp(self):
        self._sockets = []
        super().setUp()

    def tearDown(self):
        super().tearDown()
        for sock in self._sockets:
            sock.close()

    def raw(self, **kwargs):
        ws = RawWebSocket(port(), **kwargs)
        self._sockets.append(ws)
        return ws

    def client(self, compression="deflate", **kwargs):
        ws = library_connect(
            compression=compression, open_timeout=TIMEOUT,
            close_timeout=TIMEOUT, ping_interval=None, max_size=None, **kwargs,
        )
        self._sockets.append(ws)
        return ws

    def assertEcho(self, ws, opcode, payload, **kwargs):
        ws.send(opcode, payload, **kwargs)
        got = ws.recv_message()
        self.assertEqual(got[0], opcode)
        self.assertEqual(len(got[1]), len(payload))
        self.assertEqual(got[1], payload)

    def assertFails(self, ws, code, before=(), message=""):
        """The server sends `before` (data frames, as (opcode, payload)), then a close with `code`, nothing after
        it, and closes the TCP connection (RFC 6455 §7.1.7: fail the connection)."""
        frames = ws.frames_until_closed()
        closes = [f for f in frames if f.opcode == CLOSE]
        self.assertTrue(closes, "%s: expected close %d, the server sent %r and closed" % (message, code, frames))
        self.assertEqual(closes[0].close_code, code, "%s: close frame %r" % (message, closes[0]))
        self.assertIs(frames[-1], closes[0], "%s: nothing may follow the close frame: %r" % (message, frames))
        data = [(f.opcode, f.payload) for f in frames[:-1]]
        self.assertEqual(data, list(before), message)
        self.assertTrue(closes[0].fin)
        return closes[0]

    def assertAlive(self, ws):
        """The connection still works: a ping is answered."""
        ws.send(PING, b"alive?")
        frame = ws.recv_frame()
        self.assertIsNotNone(frame, "connection closed")
        self.assertEqual((frame.opcode, frame.payload), (PONG, b"alive?"))


def add_cases(cls, prefix, cases, body):
    """Adds one test method per case, so each is counted and reported on its own."""
    for name, value in cases:
        def test(self, value=value):
            body(self, value)
        test.__name__ = "test_%s_%s" % (prefix, name)
        test.__doc__ = "%s: %s" % (prefix, name)
        setattr(cls, test.__name__, test)


def raw_deflate(data, wbits=15):
    """permessage-deflate compression of one message with a fresh context (RFC 7692 §7.2.1)."""
    compressor = zlib.compressobj(wbits=-wbits)
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return out[:-4]
