"""Control frames: Autobahn 2.x (pings and pongs) and 7.x (the closing handshake and close codes)."""

import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    CLOSE, CONTINUATION, PING, PONG, TEXT, TIMEOUT, WebSocketTestCase, add_cases, build_frame, close_payload,
)


# MARK: - 2.x Pings and pongs


class PingPongTests(WebSocketTestCase):
    def test_empty_ping_gets_empty_pong(self):
        ws = self.raw()
        ws.send(PING)
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.payload, frame.fin), (PONG, b"", True))

    def test_ping_with_text_payload_gets_same_payload(self):
        ws = self.raw()
        ws.send(PING, b"Hello, world!")
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.payload), (PONG, b"Hello, world!"))

    def test_ping_with_binary_payload_gets_same_payload(self):
        ws = self.raw()
        ws.send(PING, b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff")
        self.assertEqual(ws.recv_frame().payload, b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff")

    def test_125_byte_ping_gets_125_byte_pong(self):
        ws = self.raw()
        payload = os.urandom(125)
        ws.send(PING, payload)
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.payload), (PONG, payload))

    def test_126_byte_ping_is_1002(self):
        """RFC 6455 §5.5: control frames carry at most 125 bytes."""
        ws = self.raw()
        ws.send(PING, b"\xfe" * 126)
        self.assertFails(ws, 1002)

    def test_126_byte_ping_announced_only_is_1002(self):
        """The violation is decided from the header, before the payload arrives."""
        ws = self.raw()
        ws.send_raw(bytes([0x89, 0xFE]) + struct.pack("!H", 126) + os.urandom(4))
        self.assertFails(ws, 1002)

    def test_ping_with_payload_sent_in_chops(self):
        ws = self.raw()
        data = build_frame(PING, b"chopped ping payload")
        for i in range(0, len(data), 3):
            ws.send_raw(data[i:i + 3])
            time.sleep(0.01)
        self.assertEqual(ws.recv_frame().payload, b"chopped ping payload")

    def test_unsolicited_pong_is_ignored(self):
        ws = self.raw()
        ws.send(PONG, b"unsolicited")
        ws.send(TEXT, b"after pong")
        self.assertEqual(ws.recv_message(), (TEXT, b"after pong"))

    def test_unsolicited_pong_with_125_bytes_is_ignored(self):
        ws = self.raw()
        ws.send(PONG, os.urandom(125))
        self.assertAlive(ws)

    def test_ten_pings_get_ten_pongs_in_order(self):
        ws = self.raw()
        ws.send_raw(b"".join(build_frame(PING, b"ping %d" % i) for i in range(10)))
        for i in range(10):
            frame = ws.recv_frame()
            self.assertEqual((frame.opcode, frame.payload), (PONG, b"ping %d" % i))

    def test_ping_between_fragments_is_answered_first(self):
        ws = self.raw()
        ws.send(TEXT, b"frag1 ", fin=False)
        ws.send(PING, b"in between")
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.payload), (PONG, b"in between"), "pong before the message ends")
        ws.send(CONTINUATION, b"frag2")
        self.assertEqual(ws.recv_message(), (TEXT, b"frag1 frag2"))

    def test_library_ping_is_answered(self):
        ws = self.client()
        self.assertTrue(ws.ping(b"lib").wait(TIMEOUT))


# MARK: - 7.x Closing


def _valid_close_code(self, code):
    """RFC 6455 §5.5.1: the endpoint answers a close with a close, typically echoing the code; the server then
    closes the TCP connection first (§7.1.1)."""
    ws = self.raw()
    ws.send_close(code, b"reason for %d" % code)
    frames = ws.frames_until_closed()
    self.assertEqual([f.opcode for f in frames], [CLOSE], frames)
    self.assertEqual(frames[0].close_code, code)


def _invalid_close_code(self, code):
    """RFC 6455 §7.4.1/§7.4.2: codes below 1000, 1004-1006, 1015, unassigned 1016-2999 and 5000+ may not be sent;
    receiving one fails the connection with 1002."""
    ws = self.raw()
    ws.send_close(code)
    self.assertFails(ws, 1002, message="code %d" % code)


class CloseTests(WebSocketTestCase):
    def test_close_1000_is_echoed_and_server_closes_tcp(self):
        ws = self.raw()
        ws.send_close(1000, b"bye")
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.close_code), (CLOSE, 1000))
        frame.close_reason.decode("utf-8")  # any reason is valid UTF-8
        self.assertTrue(ws.is_closed_by_peer(), "the server closes the TCP connection after the handshake")

    def test_empty_close_is_answered_with_close(self):
        """Autobahn 7.3.1: a close without a body is answered with a close (empty or 1000)."""
        ws = self.raw()
        ws.send_close()
        frames = ws.frames_until_closed()
        self.assertEqual([f.opcode for f in frames], [CLOSE])
        self.assertIn(frames[0].close_code, (None, 1000))

    def test_one_byte_close_payload_is_1002(self):
        ws = self.raw()
        ws.send(CLOSE, b"\x03")
        self.assertFails(ws, 1002)

    def test_close_with_max_reason_123_bytes(self):
        ws = self.raw()
        ws.send_close(1000, b"*" * 123)
        frames = ws.frames_until_closed()
        self.assertEqual([(f.opcode, f.close_code) for f in frames], [(CLOSE, 1000)])

    def test_close_with_124_byte_reason_is_1002(self):
        """A 126-byte control frame (RFC 6455 §5.5)."""
        ws = self.raw()
        ws.send_close(1000, b"*" * 124)
        self.assertFails(ws, 1002)

    def test_close_with_valid_utf8_reason(self):
        ws = self.raw()
        ws.send_close(1000, "κόσμε".encode())
        self.assertEqual(ws.frames_until_closed()[0].close_code, 1000)

    def test_close_with_invalid_utf8_reason_is_1007(self):
        """RFC 6455 §5.5.1 / §8.1: the reason is UTF-8; invalid data fails the connection."""
        ws = self.raw()
        ws.send_close(1000, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80\x65\x64\x69\x74\x65\x64")
        self.assertFails(ws, 1007)

    def test_data_after_close_is_ignored(self):
        """Autobahn 7.1.3-7.1.5: after the client's close, a text, a ping and a fragment get no answer."""
        ws = self.raw()
        ws.send_raw(build_frame(CLOSE, close_payload(1000)) + build_frame(TEXT, b"after close")
                    + build_frame(PING, b"after close") + build_frame(TEXT, b"frag", fin=False))
        frames = ws.frames_until_closed()
        self.assertEqual([(f.opcode, f.close_code) for f in frames], [(CLOSE, 1000)])

    def test_second_close_is_ignored(self):
        ws = self.raw()
        ws.send_raw(build_frame(CLOSE, close_payload(1000)) + build_frame(CLOSE, close_payload(1001)))
        frames = ws.frames_until_closed()
        self.assertEqual([(f.opcode, f.close_code) for f in frames], [(CLOSE, 1000)])

    def test_message_then_close_echoes_message_first(self):
        """Autobahn 7.1.2-ish: a message and a close back to back: the echo, then the close."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"Hello World!") + build_frame(CLOSE, close_payload(1000)))
        frames = ws.frames_until_closed()
        self.assertEqual([(f.opcode, f.payload if f.opcode != CLOSE else f.close_code) for f in frames],
                         [(TEXT, b"Hello World!"), (CLOSE, 1000)])

    def test_close_in_the_middle_of_a_fragmented_message(self):
        """Autobahn 7.1.6-ish: a control frame may arrive between fragments; the open message is dropped."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"frag", fin=False) + build_frame(CLOSE, close_payload(1000)))
        frames = ws.frames_until_closed()
        self.assertEqual([(f.opcode, f.close_code) for f in frames], [(CLOSE, 1000)])

    def test_library_close_handshake_is_clean(self):
        ws = self.client()
        ws.send("bye")
        self.assertEqual(ws.recv(timeout=TIMEOUT), "bye")
        ws.close(code=1000, reason="done")
        self.assertEqual(ws.protocol.close_rcvd.code, 1000)
        self.assertTrue(ws.protocol.close_rcvd_then_sent is False)  # we sent first, the server answered

    def test_library_close_with_4999(self):
        ws = self.client()
        ws.close(code=4999, reason="application")
        self.assertEqual(ws.protocol.close_rcvd.code, 4999)


VALID_CLOSE_CODES = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999]
INVALID_CLOSE_CODES = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

add_cases(CloseTests, "7_valid_code", [(str(c), c) for c in VALID_CLOSE_CODES], _valid_close_code)
add_cases(CloseTests, "7_invalid_code", [(str(c), c) for c in INVALID_CLOSE_CODES], _invalid_close_code)
