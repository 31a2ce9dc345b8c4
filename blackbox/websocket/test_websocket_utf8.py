"""UTF-8: Autobahn 6.x (text messages must be valid UTF-8, else close 1007)."""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    BINARY_OP, CONTINUATION, TEXT, TIMEOUT, WebSocketTestCase, add_cases, build_frame,
)


# MARK: - 6.x UTF-8


VALID_TEXTS = [
    ("greek_kosme", "κόσμε".encode()),
    ("autobahn_6_2", "Hello-µ@ßöäüàá-UTF-8!!".encode()),
    ("four_byte_emoji", "pose 🧍‍♀️ 😀 𝄞".encode()),
    ("boundaries", "\u0080\u07ff\u0800\ufffd\uffff\U00010000\U0010ffff".encode("utf-8", "surrogatepass")),
    ("bom_and_nul", b"\xef\xbb\xbf\x00text"),
]

INVALID_TEXTS = [
    ("lone_continuation", b"\x80"),
    ("overlong_slash_2_bytes", b"\xc0\xaf"),
    ("overlong_nul", b"\xc0\x80"),
    ("overlong_3_bytes", b"\xe0\x80\xaf"),
    ("overlong_4_bytes", b"\xf0\x80\x80\xaf"),
    ("surrogate_d800", b"\xed\xa0\x80"),
    ("surrogate_dfff", b"\xed\xbf\xbf"),
    ("above_10ffff", b"\xf4\x90\x80\x80"),
    ("byte_fe", b"\xfe"),
    ("byte_ff", b"\xff"),
    ("five_byte_sequence", b"\xf8\x88\x80\x80\x80"),
    ("truncated_at_end", "κόσμε".encode() + b"\xce"),
    ("autobahn_6_3_1", b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80\x65\x64\x69\x74\x65\x64"),
]


def _valid_text(self, payload):
    ws = self.raw()
    self.assertEcho(ws, TEXT, payload)


def _valid_text_split_everywhere(self, payload):
    """The message split into two fragments at every byte offset, including inside characters."""
    ws = self.raw()
    for cut in range(len(payload) + 1):
        ws.send_raw(build_frame(TEXT, payload[:cut], fin=False) + build_frame(CONTINUATION, payload[cut:]))
        self.assertEqual(ws.recv_message(), (TEXT, payload), "cut at %d" % cut)


def _invalid_text(self, payload):
    ws = self.raw()
    ws.send(TEXT, payload)
    self.assertFails(ws, 1007)


def _invalid_text_split_in_fragments(self, payload):
    """The invalid message split in two fragments at every offset; each cut is its own connection."""
    for cut in range(len(payload) + 1):
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, payload[:cut], fin=False) + build_frame(CONTINUATION, payload[cut:]))
        self.assertFails(ws, 1007, message="cut at %d" % cut)


def _invalid_text_fail_fast(self, payload):
    """Fail fast (Autobahn 6.4.1/6.4.2): the close arrives while the message is still open, before its final
    fragment is sent."""
    ws = self.raw()
    ws.send(TEXT, "κόσμε".encode(), fin=False)
    ws.send(CONTINUATION, payload, fin=False)
    self.assertFails(ws, 1007)
    ws.send(CONTINUATION, b"edited")  # the final fragment, after the fact: must change nothing


class UTF8Tests(WebSocketTestCase):
    """RFC 6455 §8.1: text messages (and close reasons) must be valid UTF-8, else fail with 1007."""

    def test_library_text_round_trip(self):
        ws = self.client(compression=None)
        for _, payload in VALID_TEXTS:
            ws.send(payload.decode("utf-8", "surrogatepass"))
            self.assertEqual(ws.recv(timeout=TIMEOUT).encode("utf-8", "surrogatepass"), payload)

    def test_invalid_utf8_split_across_fragments_at_character(self):
        """Autobahn 6.4.1 parts: valid first fragment, the invalid sequence starts the second."""
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, "κόσμε".encode(), fin=False)
                    + build_frame(CONTINUATION, b"\xf4\x90\x80\x80", fin=False) + build_frame(CONTINUATION, b"edited"))
        self.assertFails(ws, 1007)

    def test_incomplete_character_at_message_end_across_fragments(self):
        ws = self.raw()
        ws.send_raw(build_frame(TEXT, b"abc\xe2\x82", fin=False) + build_frame(CONTINUATION, b""))
        self.assertFails(ws, 1007)

    def test_invalid_utf8_in_binary_message_is_fine(self):
        ws = self.raw()
        self.assertEcho(ws, BINARY_OP, b"\xff\xfe\xed\xa0\x80\xc0\x80")

    def test_fail_fast_on_invalid_fragment_before_message_end(self):
        """Autobahn 6.4.2: the invalid byte F4 90 is split over two non-final fragments."""
        ws = self.raw()
        ws.send(TEXT, "κόσμε".encode() + b"\xf4", fin=False)
        ws.send(CONTINUATION, b"\x90", fin=False)
        self.assertFails(ws, 1007)

    def test_invalid_utf8_frame_sent_in_chops_fails_by_frame_end(self):
        """Autobahn 6.4.3: one frame, sent in three chops with pauses. The server validates complete frames, so it
        fails once the frame is complete (Autobahn calls that NON-STRICT; failing mid-frame would be strict)."""
        ws = self.raw()
        data = build_frame(TEXT, b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5" + b"\xf4\x90\x80\x80" + b"edited")
        for part in (data[:17], data[17:21], data[21:]):
            if not ws.send_raw(part):
                break
            time.sleep(0.1)
        self.assertFails(ws, 1007)


add_cases(UTF8Tests, "6_valid", VALID_TEXTS, _valid_text)
add_cases(UTF8Tests, "6_valid_split", VALID_TEXTS[:3], _valid_text_split_everywhere)
add_cases(UTF8Tests, "6_invalid", INVALID_TEXTS, _invalid_text)
add_cases(UTF8Tests, "6_invalid_split", [INVALID_TEXTS[i] for i in (2, 5, 7, 12)], _invalid_text_split_in_fragments)
add_cases(UTF8Tests, "6_fail_fast", [INVALID_TEXTS[i] for i in (0, 2, 5, 7, 9)], _invalid_text_fail_fast)
