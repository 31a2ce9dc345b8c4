"""Message sizes: Autobahn 9.x against WebSocketConfiguration.maxMessageBytes (1 MiB)."""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    BINARY_OP, CONTINUATION, ConnectionClosed, MAX_MESSAGE, TEXT, TIMEOUT, WebSocketTestCase, build_frame,
)


# MARK: - 9.x Message sizes


class SizeLimitTests(WebSocketTestCase):
    """WebSocketConfiguration.maxMessageBytes = 1 << 20: exactly 1 MiB passes, one byte more closes with 1009
    (RFC 6455 §7.4.1, "a message that is too big for it to process")."""

    def test_exactly_1_mib_text_is_echoed(self):
        ws = self.client(compression=None)
        payload = "a" * MAX_MESSAGE
        ws.send(payload)
        self.assertEqual(ws.recv(timeout=TIMEOUT), payload)

    def test_exactly_1_mib_binary_is_echoed_raw(self):
        ws = self.raw()
        self.assertEcho(ws, BINARY_OP, os.urandom(MAX_MESSAGE))

    def test_exactly_1_mib_in_fragments_is_echoed(self):
        ws = self.raw()
        payload = os.urandom(MAX_MESSAGE)
        quarter = MAX_MESSAGE // 4
        ws.send_raw(b"".join(build_frame(BINARY_OP if i == 0 else CONTINUATION, payload[i * quarter:(i + 1) * quarter],
                                         fin=i == 3) for i in range(4)))
        self.assertEqual(ws.recv_message(), (BINARY_OP, payload))

    def test_1_mib_plus_1_single_frame_is_1009(self):
        ws = self.raw()
        ws.send(BINARY_OP, b"\x00" * (MAX_MESSAGE + 1))
        self.assertFails(ws, 1009)

    def test_1_mib_plus_1_text_library_is_1009(self):
        ws = self.client(compression=None)
        ws.send("a" * (MAX_MESSAGE + 1))
        with self.assertRaises(ConnectionClosed):
            ws.recv(timeout=TIMEOUT)
        self.assertEqual(ws.protocol.close_rcvd.code, 1009)

    def test_1_mib_plus_1_refused_from_header_alone(self):
        """The frame is refused from its header, before any payload is sent."""
        ws = self.raw()
        ws.send_raw(bytes([0x82, 0xFF]) + struct.pack("!Q", MAX_MESSAGE + 1) + os.urandom(4))
        self.assertFails(ws, 1009)

    def test_1_mib_plus_1_in_fragments_is_1009(self):
        ws = self.raw()
        half = MAX_MESSAGE // 2
        ws.send_raw(build_frame(TEXT, b"x" * half, fin=False) + build_frame(CONTINUATION, b"x" * half, fin=False))
        ws.send(CONTINUATION, b"x")
        self.assertFails(ws, 1009)

    def test_4_mib_announced_is_1009(self):
        ws = self.raw()
        ws.send_raw(bytes([0x81, 0xFF]) + struct.pack("!Q", 4 << 20) + os.urandom(4))
        self.assertFails(ws, 1009)

    def test_connection_after_limit_is_independent(self):
        self.test_1_mib_plus_1_refused_from_header_alone()
        ws = self.raw()
        self.assertEcho(ws, TEXT, b"still serving")
