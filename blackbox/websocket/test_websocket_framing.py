"""Framing: Autobahn 1.x (payload lengths), 3.x (reserved bits), 4.x (opcodes), 5.x (fragmentation)."""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    BINARY_OP, CLOSE, CONTINUATION, MAX_MESSAGE, PING, PONG, RSV1, RSV2, RSV3, TEXT, TIMEOUT, WebSocketTestCase,
    add_cases, build_frame, close_payload,
)


# MARK: - 1.x Framing


SIZES = [0, 1, 125, 126, 127, 128, 65535, 65536, MAX_MESSAGE - 1]


class FramingTests(WebSocketTestCase):
    """Autobahn 1.1 (text) and 1.2 (binary): payload lengths around every length-encoding boundary."""

    def test_length_forms_of_server_frames_are_minimal(self):
        ws = self.raw()
        for size, form in [(125, 7), (126, 16), (65535, 16), (65536, 64)]:
            ws.send(BINARY_OP, b"\x00" * size)
            frame = ws.recv_frame()
            self.assertEqual((len(frame.payload), frame.length_form), (size, form))

    def test_frame_sent_one_byte_at_a_time(self):
        """Autobahn 1.1.8-style chopping: the frame arrives in 1-byte TCP writes."""
        ws = self.raw()
        for byte in build_frame(TEXT, b"chopped into single bytes"):
            ws.send_raw(bytes([byte]))
        self.assertEqual(ws.recv_message(), (TEXT, b"chopped into single bytes"))

    def test_many_messages_in_one_write_echo_in_order(self):
        ws = self.raw()
        ws.send_raw(b"".join(build_frame(TEXT, b"message %d" % i) for i in range(200)))
        for i in range(200):
            self.assertEqual(ws.recv_message(), (TEXT, b"message %d" % i))

    def test_unmasked_client_frame_is_1002(self):
        """RFC 6455 §5.1: a server MUST close the connection on an unmasked frame."""
        ws = self.raw()
        ws.send(TEXT, b"unmasked", mask=False)
        self.assertFails(ws, 1002)

    def test_64_bit_length_with_high_bit_set_is_1002(self):
        """RFC 6455 §5.2: the most significant bit of the 64-bit length MUST be 0."""
        ws = self.raw()
        ws.send_raw(bytes([0x82, 0xFF]) + struct.pack("!Q", 1 << 63) + os.urandom(4))
        self.assertFails(ws, 1002)

    def test_non_minimal_16_bit_length_is_1002(self):
        """Stricter than a receiver MUST: RFC 6455 §5.2 requires the sender to use the minimal length form; this
        server refuses non-minimal forms as a protocol error."""
        ws = self.raw()
        ws.send(TEXT, b"short", length_form=16)
        self.assertFails(ws, 1002)

    def test_non_minimal_64_bit_length_is_1002(self):
        """Stricter than a receiver MUST (see test_non_minimal_16_bit_length_is_1002)."""
        ws = self.raw()
        ws.send(TEXT, b"x" * 200, length_form=64)
        self.assertFails(ws, 1002)


def _echo_library(self, value):
    kind, size = value
    ws = self.client(compression=None)
    payload = ("*" * size) if kind == "text" else (os.urandom(4096) * (size // 4096 + 1))[:size]
    ws.send(payload)
    got = ws.recv(timeout=TIMEOUT)
    self.assertEqual(type(got), type(payload))
    self.assertEqual(len(got), size)
    self.assertEqual(got, payload)


def _echo_raw(self, value):
    kind, size = value
    ws = self.raw()
    opcode = TEXT if kind == "text" else BINARY_OP
    payload = (b"*" * size) if kind == "text" else (os.urandom(4096) * (size // 4096 + 1))[:size]
    self.assertEcho(ws, opcode, payload)


add_cases(FramingTests, "1_1_text_library", [("%d_bytes" % s, ("text", s)) for s in SIZES], _echo_library)
add_cases(FramingTests, "1_2_binary_library", [("%d_bytes" % s, ("binary", s)) for s in SIZES], _echo_library)
add_cases(FramingTests, "1_1_text_raw", [("%d_bytes" % s, ("text", s)) for s in SIZES], _echo_raw)
add_cases(FramingTests, "1_2_binary_raw", [("%d_bytes" % s, ("binary", s)) for s in SIZES], _echo_raw)


# MARK: - 3.x Reserved bits


class ReservedBitTests(WebSocketTestCase):
    """RFC 6455 §5.2: RSV bits MUST be 0 unless an extension defines them; otherwise fail the connection."""

    def test_rsv1_on_text_without_extension_is_1002(self):
        ws = self.raw()
        ws.send(TEXT, b"Hello", rsv=RSV1)
        self.assertFails(ws, 1002)

    def test_rsv2_on_text_is_1002(self):
        ws = self.raw()
        ws.send(TEXT, b"Hello", rsv=RSV2)
        self.assertFails(ws, 1002)

    def test_rsv3_on_text_is_1002(self):
        ws = self.raw()
        ws.send(TEXT, b"Hello", rsv=RSV3)
        self.assertFails(ws, 1002)

    def test_rsv1_and_rsv2_on_binary_is_1002(self):
        ws = self.raw()
        ws.send(BINARY_OP, b"\x00\xff", rsv=RSV1 | RSV2)
        self.assertFails(ws, 1002)

    def test_all_rsv_bits_on_ping_is_1002(self):
        ws = self.raw()
        ws.send(PING, b"Hello", rsv=RSV1 | RSV2 | RSV3)
        self.assertFails(ws, 1002)

    def test_rsv2_on_close_is_1002(self):
        ws = self.raw()
        ws.send(CLOSE, close_payload(1000), rsv=RSV2)
        self.assertFails(ws, 1002)

    def test_message_before_rsv_violation_is_echoed_and_nothing_after(self):
        """Autobahn 3.2: a valid text, an RSV2 text, then a ping: the first is echoed, the ping never answered."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"Hello") + build_frame(TEXT, b"Hello", rsv=RSV2) + build_frame(PING))
        self.assertFails(ws, 1002, before=[(TEXT, b"Hello")])

    def test_rsv1_on_ping_with_deflate_negotiated_is_1002(self):
        """RFC 7692 §6.1: the compressed bit is never set on control frames."""
        ws = self.raw(extensions="permessage-deflate")
        ws.send(PING, b"x", rsv=RSV1)
        self.assertFails(ws, 1002)

    def test_rsv2_with_deflate_negotiated_is_still_1002(self):
        ws = self.raw(extensions="permessage-deflate")
        ws.send(TEXT, b"x", rsv=RSV2)
        self.assertFails(ws, 1002)


# MARK: - 4.x Opcodes


def _reserved_opcode(self, opcode):
    ws = self.raw()
    ws.send(opcode, b"reserved" if opcode % 2 else b"")
    self.assertFails(ws, 1002, message="opcode %d" % opcode)


def _reserved_opcode_after_message(self, opcode):
    """Autobahn 4.1.3/4.2.3: a valid message, the reserved opcode, a ping: echo, close 1002, no pong."""
    ws = self.raw()
    ws.send_raw(build_frame(TEXT, b"Hello") + build_frame(opcode, b"x") + build_frame(PING, b"never"))
    self.assertFails(ws, 1002, before=[(TEXT, b"Hello")], message="opcode %d" % opcode)


class OpcodeTests(WebSocketTestCase):
    """RFC 6455 §5.2: a reserved opcode fails the connection."""


add_cases(OpcodeTests, "4_reserved_opcode", [(str(op), op) for op in list(range(3, 8)) + list(range(11, 16))],
          _reserved_opcode)
add_cases(OpcodeTests, "4_reserved_opcode_after_message", [(str(op), op) for op in (5, 7, 11, 15)],
          _reserved_opcode_after_message)


# MARK: - 5.x Fragmentation


class FragmentationTests(WebSocketTestCase):
    def test_fragmented_text_is_echoed_as_one_message(self):
        ws = self.raw()
        ws.send(TEXT, b"fragment1 ", fin=False)
        ws.send(CONTINUATION, b"fragment2 ", fin=False)
        ws.send(CONTINUATION, b"fragment3")
        self.assertEqual(ws.recv_message(), (TEXT, b"fragment1 fragment2 fragment3"))

    def test_fragmented_binary_is_echoed_as_one_message(self):
        ws = self.raw()
        parts = [os.urandom(1000), os.urandom(70000), os.urandom(3)]
        ws.send(BINARY_OP, parts[0], fin=False)
        ws.send(CONTINUATION, parts[1], fin=False)
        ws.send(CONTINUATION, parts[2])
        self.assertEqual(ws.recv_message(), (BINARY_OP, b"".join(parts)))

    def test_library_fragmented_message_from_iterator(self):
        ws = self.client(compression=None)
        ws.send(["alpha ", "beta ", "gamma"])
        self.assertEqual(ws.recv(timeout=TIMEOUT), "alpha beta gamma")
        ws.send([b"\x01", b"\x02\x03"])
        self.assertEqual(ws.recv(timeout=TIMEOUT), b"\x01\x02\x03")

    def test_many_one_byte_fragments(self):
        ws = self.raw()
        text = b"0123456789" * 100
        frames = [build_frame(TEXT, text[:1], fin=False)]
        frames += [build_frame(CONTINUATION, text[i:i + 1], fin=i == len(text) - 1) for i in range(1, len(text))]
        ws.send_raw(b"".join(frames))
        self.assertEqual(ws.recv_message(), (TEXT, text))

    def test_empty_fragments(self):
        """Autobahn 5.18-ish: empty first, middle and last fragments are fine."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"", fin=False) + build_frame(CONTINUATION, b"middle", fin=False)
                    + build_frame(CONTINUATION, b"", fin=False) + build_frame(CONTINUATION, b""))
        self.assertEqual(ws.recv_message(), (TEXT, b"middle"))

    def test_pong_between_fragments_is_ignored(self):
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"a", fin=False) + build_frame(PONG, b"p") + build_frame(CONTINUATION, b"b"))
        self.assertEqual(ws.recv_message(), (TEXT, b"ab"))

    def test_pings_between_every_fragment(self):
        ws = self.raw()
        data = build_frame(BINARY_OP, b"0", fin=False)
        for i in range(1, 10):
            data += build_frame(PING, b"%d" % i) + build_frame(CONTINUATION, b"%d" % i, fin=i == 9)
        ws.send_raw(data)
        for i in range(1, 10):
            frame = ws.recv_frame()
            self.assertEqual((frame.opcode, frame.payload), (PONG, b"%d" % i))
        self.assertEqual(ws.recv_message(), (BINARY_OP, b"0123456789"))

    def test_continuation_without_start_is_1002(self):
        ws = self.raw()
        ws.send(CONTINUATION, b"orphan")
        self.assertFails(ws, 1002)

    def test_non_final_continuation_without_start_is_1002(self):
        ws = self.raw()
        ws.send(CONTINUATION, b"orphan", fin=False)
        self.assertFails(ws, 1002)

    def test_continuation_after_finished_message_is_1002(self):
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"done") + build_frame(CONTINUATION, b"late"))
        self.assertFails(ws, 1002, before=[(TEXT, b"done")])

    def test_new_text_during_fragmented_message_is_1002(self):
        """RFC 6455 §5.4: fragments of different messages are not interleaved."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"first", fin=False) + build_frame(TEXT, b"second"))
        self.assertFails(ws, 1002)

    def test_new_binary_during_fragmented_text_is_1002(self):
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"first", fin=False) + build_frame(BINARY_OP, b"\x00", fin=False))
        self.assertFails(ws, 1002)

    def test_fragmented_ping_is_1002(self):
        """RFC 6455 §5.5: control frames MUST NOT be fragmented."""
        ws = self.raw()
        ws.send(PING, b"frag", fin=False)
        self.assertFails(ws, 1002)

    def test_fragmented_ping_with_continuation_is_1002(self):
        ws = self.raw()
        ws.send_raw(build_frame(PING, b"fragment1", fin=False) + build_frame(CONTINUATION, b"fragment2"))
        self.assertFails(ws, 1002)

    def test_fragmented_pong_is_1002(self):
        ws = self.raw()
        ws.send(PONG, b"frag", fin=False)
        self.assertFails(ws, 1002)

    def test_fragmented_close_is_1002(self):
        ws = self.raw()
        ws.send(CLOSE, close_payload(1000), fin=False)
        self.assertFails(ws, 1002)
