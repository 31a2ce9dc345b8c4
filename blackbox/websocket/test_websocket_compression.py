"""permessage-deflate (RFC 7692): Autobahn 12.x/13.x, every offer parameter, window sizes, bombs."""

import os
import random
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    BINARY_OP, ClientPerMessageDeflateFactory, CONTINUATION, ConnectionClosed, MAX_MESSAGE, PING, RSV1, TEXT,
    TIMEOUT, WebSocketTestCase, add_cases, build_frame, raw_deflate,
)


# MARK: - 12.x / 13.x permessage-deflate


def sample_text(seed):
    """About 3 KB of repetitive JSON-like text with non-ASCII characters."""
    return "".join("{\"pose\": {\"x\": %d, \"y\": 2.5, \"label\": \"κόσμε\"}, \"frames\": [1, 2, 3]}\n" % (seed + i)
                   for i in range(40))


def _messages():
    rng = random.Random(7)
    return [
        "", "x", "short text", sample_text(1), sample_text(2) * 50,
        b"", b"\x00", bytes(rng.getrandbits(8) for _ in range(5000)), b"\x00" * 100000,
        "".join(rng.choice("abcdefgh") for _ in range(20000)),
    ]


def _compression_round_trip(self, factory):
    ws = self.client(compression=None, extensions=[factory])
    negotiated = ws.response.headers.get("Sec-WebSocket-Extensions", "")
    self.assertTrue(negotiated.startswith("permessage-deflate"), negotiated)
    messages = _messages()
    for _ in range(3):  # repeated, so context takeover (or its absence) is exercised
        for message in messages:
            ws.send(message)
            got = ws.recv(timeout=TIMEOUT)
            self.assertEqual(type(got), type(message))
            self.assertEqual(got, message)
    ws.close()
    self.assertEqual(ws.protocol.close_rcvd.code, 1000)
    return negotiated


class CompressionTests(WebSocketTestCase):
    def test_default_compression_round_trip(self):
        ws = self.client()  # compression="deflate": websockets' default offer
        self.assertIn("permessage-deflate", ws.response.headers.get("Sec-WebSocket-Extensions", ""))
        for message in _messages():
            ws.send(message)
            self.assertEqual(ws.recv(timeout=TIMEOUT), message)

    def test_default_compression_many_messages_in_order(self):
        ws = self.client()
        for i in range(300):
            ws.send(sample_text(i)[: 50 + i * 7])
        for i in range(300):
            self.assertEqual(ws.recv(timeout=TIMEOUT), sample_text(i)[: 50 + i * 7])

    def test_exactly_1_mib_compressed_is_echoed(self):
        ws = self.client()
        payload = sample_text(3) * (MAX_MESSAGE // len(sample_text(3).encode()) + 1)
        payload = payload.encode()[:MAX_MESSAGE]
        ws.send(payload)
        self.assertEqual(ws.recv(timeout=TIMEOUT), payload)

    def test_exactly_1_mib_incompressible_compressed_is_echoed(self):
        """Exactly 1 MiB of random bytes from the websockets client, which compresses every message: the deflate
        output (stored blocks) is ~320 bytes longer than the message, so its single frame is a little over 1 MiB
        while the message is exactly 1 MiB. maxMessageBytes counts after decompression (the assembler even allows a
        compressed message maxMessageBytes/16 + 1024 extra wire bytes), so the message must be echoed."""
        ws = self.client()
        payload = os.urandom(MAX_MESSAGE)
        ws.send(payload)
        try:
            got = ws.recv(timeout=TIMEOUT)
        except ConnectionClosed:
            self.fail("a 1 MiB message was refused: the server closed with %s" % ws.protocol.close_rcvd)
        self.assertEqual(got, payload)

    def test_exactly_1_mib_incompressible_compressed_in_two_frames_is_echoed(self):
        """The same compressed bytes as above, split over two frames of about 512 KiB each: accepted."""
        ws = self.raw(extensions="permessage-deflate")
        payload = os.urandom(MAX_MESSAGE)
        compressed = raw_deflate(payload)
        self.assertGreater(len(compressed), MAX_MESSAGE)
        half = len(compressed) // 2
        ws.send_raw(build_frame(BINARY_OP, compressed[:half], fin=False, rsv=RSV1)
                    + build_frame(CONTINUATION, compressed[half:]))
        frame = ws.recv_frame()
        self.assertEqual(frame.opcode, BINARY_OP)
        got = zlib.decompressobj(wbits=-15).decompress(frame.payload + b"\x00\x00\xff\xff") \
            if frame.rsv else frame.payload
        self.assertEqual(got, payload)

    def test_1_mib_plus_1_compressed_is_1009(self):
        ws = self.client()
        ws.send(b"\x00" * (MAX_MESSAGE + 1))
        with self.assertRaises(ConnectionClosed):
            ws.recv(timeout=TIMEOUT)
        self.assertEqual(ws.protocol.close_rcvd.code, 1009)

    def test_decompression_bomb_is_1009(self):
        """A ~2 KB compressed payload inflating to 64 MiB: refused once the output passes 1 MiB."""
        ws = self.raw(extensions="permessage-deflate")
        bomb = raw_deflate(b"\x00" * (64 << 20))
        self.assertLess(len(bomb), 70000)
        ws.send(BINARY_OP, bomb, rsv=RSV1)
        self.assertFails(ws, 1009)

    def test_decompression_bomb_in_fragments_is_1009(self):
        ws = self.raw(extensions="permessage-deflate")
        bomb = raw_deflate(b"a" * (8 << 20))
        cut = len(bomb) // 2
        ws.send_raw(build_frame(TEXT, bomb[:cut], fin=False, rsv=RSV1) + build_frame(CONTINUATION, bomb[cut:]))
        self.assertFails(ws, 1009)

    def test_raw_compressed_message_is_inflated_and_echo_compressed(self):
        ws = self.raw(extensions="permessage-deflate")
        self.assertEqual(ws.headers.get("sec-websocket-extensions"), "permessage-deflate")
        text = sample_text(5).encode()
        ws.send(TEXT, raw_deflate(text), rsv=RSV1)
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.fin, frame.rsv), (TEXT, True, RSV1), "a compressed echo")
        inflater = zlib.decompressobj(wbits=-15)
        self.assertEqual(inflater.decompress(frame.payload + b"\x00\x00\xff\xff"), text)

    def test_raw_compressed_message_in_fragments(self):
        """RFC 7692 §6.1: RSV1 only on the first frame of the message."""
        ws = self.raw(extensions="permessage-deflate")
        data = bytes(range(256)) * 40
        compressed = raw_deflate(data)
        thirds = [compressed[: len(compressed) // 3], compressed[len(compressed) // 3: 2 * len(compressed) // 3],
                  compressed[2 * len(compressed) // 3:]]
        ws.send_raw(build_frame(BINARY_OP, thirds[0], fin=False, rsv=RSV1)
                    + build_frame(CONTINUATION, thirds[1], fin=False) + build_frame(CONTINUATION, thirds[2]))
        frame = ws.recv_frame()
        self.assertEqual(zlib.decompressobj(wbits=-15).decompress(frame.payload + b"\x00\x00\xff\xff"), data)

    def test_uncompressed_message_on_compressed_connection(self):
        """RFC 7692 §6: RSV1 clear means the message is not compressed, which is always allowed."""
        ws = self.raw(extensions="permessage-deflate")
        ws.send(TEXT, b"plain")
        frame = ws.recv_frame()
        self.assertEqual((frame.opcode, frame.payload), (TEXT, b"plain"), "short echoes are sent uncompressed")

    def test_compressed_empty_message(self):
        """RFC 7692 §7.2.3.6: an empty message compresses to a single 0x00 byte."""
        ws = self.raw(extensions="permessage-deflate")
        ws.send(TEXT, b"\x00", rsv=RSV1)
        frame = ws.recv_frame()
        self.assertEqual(frame.opcode, TEXT)
        self.assertEqual(zlib.decompressobj(wbits=-15).decompress(frame.payload + b"\x00\x00\xff\xff")
                         if frame.rsv & RSV1 else frame.payload, b"")

    def test_rsv1_on_continuation_is_1002(self):
        """RFC 7692 §6.1: RSV1 is only set on the first frame."""
        ws = self.raw(extensions="permessage-deflate")
        compressed = raw_deflate(b"hello hello hello")
        ws.send_raw(build_frame(TEXT, compressed[:3], fin=False, rsv=RSV1)
                    + build_frame(CONTINUATION, compressed[3:], rsv=RSV1))
        self.assertFails(ws, 1002)

    def test_corrupt_deflate_data_is_1007(self):
        """RFC 7692 leaves the close code open; this server reports undecodable data as 1007 (invalid payload)."""
        ws = self.raw(extensions="permessage-deflate")
        ws.send(BINARY_OP, b"\xff\xff\xff\xff\xff\xff", rsv=RSV1)
        self.assertFails(ws, 1007)

    def test_compressed_invalid_utf8_is_1007(self):
        ws = self.raw(extensions="permessage-deflate")
        ws.send(TEXT, raw_deflate(b"valid then \xed\xa0\x80 invalid" * 10), rsv=RSV1)
        self.assertFails(ws, 1007)

    def test_server_context_takeover_shrinks_repeated_messages(self):
        """Without server_no_context_takeover the server may reference earlier messages; inflating with one
        context across messages must work."""
        ws = self.raw(extensions="permessage-deflate")
        inflater = zlib.decompressobj(wbits=-15)
        message = os.urandom(2000).hex().encode()
        sizes = []
        for _ in range(3):
            ws.send(TEXT, message)
            frame = ws.recv_frame()
            self.assertEqual(frame.rsv, RSV1)
            self.assertEqual(inflater.decompress(frame.payload + b"\x00\x00\xff\xff"), message)
            sizes.append(len(frame.payload))
        self.assertLess(sizes[1], sizes[0] // 4, "the repeat references the previous message")

    def test_server_no_context_takeover_is_honoured(self):
        """RFC 7692 §7.1.1.1: with server_no_context_takeover each message inflates with a fresh context."""
        ws = self.raw(extensions="permessage-deflate; server_no_context_takeover")
        self.assertIn("server_no_context_takeover", ws.headers.get("sec-websocket-extensions", ""))
        message = os.urandom(2000).hex().encode()
        payloads = []
        for _ in range(3):
            ws.send(TEXT, message)
            frame = ws.recv_frame()
            self.assertEqual(zlib.decompressobj(wbits=-15).decompress(frame.payload + b"\x00\x00\xff\xff"), message)
            payloads.append(frame.payload)
        self.assertEqual(payloads[0], payloads[1], "identical input, fresh context: identical output")

    def test_client_context_takeover_is_understood(self):
        """The client compresses the second message with the first still in its window (no reset)."""
        ws = self.raw(extensions="permessage-deflate")
        compressor = zlib.compressobj(wbits=-15)
        message = os.urandom(3000).hex().encode()
        for _ in range(3):
            data = compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)
            ws.send(TEXT, data[:-4], rsv=RSV1)
            self.assertEqual(ws.recv_message(timeout=TIMEOUT)[0], TEXT)
        self.assertAlive(ws)

    def test_client_data_with_bfinal_block(self):
        """RFC 7692 §7.2.3.4: a message may end the DEFLATE stream with a BFINAL block; the next starts anew."""
        ws = self.raw(extensions="permessage-deflate; server_no_context_takeover")
        for text in (b"first message " * 10, b"second message " * 10, b"first message " * 10):
            compressor = zlib.compressobj(wbits=-15)
            ws.send(TEXT, compressor.compress(text) + compressor.flush(zlib.Z_FINISH), rsv=RSV1)
            frame = ws.recv_frame()
            got = zlib.decompressobj(wbits=-15).decompress(frame.payload + b"\x00\x00\xff\xff") \
                if frame.rsv else frame.payload
            self.assertEqual(got, text)

    def test_compressed_ping_payload_is_not_inflated(self):
        ws = self.raw(extensions="permessage-deflate")
        ws.send(PING, b"x" * 100)
        self.assertEqual(ws.recv_frame().payload, b"x" * 100)


def _server_window(self, bits):
    """RFC 7692 §7.1.2.1: a requested server_max_window_bits is honoured; inflating the server's output with that
    window must succeed even for data whose repeats are farther apart than the window."""
    ws = self.raw(extensions="permessage-deflate; server_max_window_bits=%d" % bits)
    answer = ws.headers.get("sec-websocket-extensions", "")
    self.assertIn("server_max_window_bits=", answer)
    granted = int(answer.split("server_max_window_bits=")[1].split(";")[0])
    self.assertLessEqual(granted, bits)
    inflater = zlib.decompressobj(wbits=-granted)
    block = os.urandom(700)
    message = block * 60 + os.urandom(100) * 30  # far repeats (700 bytes) and near ones (100 bytes)
    for _ in range(2):
        ws.send(BINARY_OP, message)
        frame = ws.recv_frame()
        self.assertEqual(frame.rsv, RSV1)
        self.assertEqual(inflater.decompress(frame.payload + b"\x00\x00\xff\xff"), message)


def _client_window(self, bits):
    """RFC 7692 §7.1.2.2: the client compresses with at most client_max_window_bits."""
    ws = self.raw(extensions="permessage-deflate; client_max_window_bits=%d" % bits)
    answer = ws.headers.get("sec-websocket-extensions", "")
    if "client_max_window_bits=" in answer:
        self.assertLessEqual(int(answer.split("client_max_window_bits=")[1].split(";")[0]), bits)
    compressor = zlib.compressobj(wbits=-bits)
    inflater = zlib.decompressobj(wbits=-15)  # the server's direction keeps its context
    message = (os.urandom(300) * 50)
    for _ in range(3):
        data = compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)
        ws.send(BINARY_OP, data[:-4], rsv=RSV1)
        frame = ws.recv_frame()
        self.assertEqual(inflater.decompress(frame.payload + b"\x00\x00\xff\xff"), message)


def _library_offer(self, params):
    _compression_round_trip(self, ClientPerMessageDeflateFactory(**params))


LIBRARY_OFFERS = [("defaults", {})]
LIBRARY_OFFERS += [("client_no_context_takeover", {"client_no_context_takeover": True})]
LIBRARY_OFFERS += [("server_no_context_takeover", {"server_no_context_takeover": True})]
LIBRARY_OFFERS += [("both_no_context_takeover", {"client_no_context_takeover": True,
                                                 "server_no_context_takeover": True})]
LIBRARY_OFFERS += [("server_max_window_bits_%d" % b, {"server_max_window_bits": b}) for b in range(9, 16)]
LIBRARY_OFFERS += [("client_max_window_bits_%d" % b, {"client_max_window_bits": b}) for b in range(9, 16)]
LIBRARY_OFFERS += [("all_limits_9", {"client_no_context_takeover": True, "server_no_context_takeover": True,
                                      "server_max_window_bits": 9, "client_max_window_bits": 9})]
LIBRARY_OFFERS += [("no_client_max_window_bits", {"client_max_window_bits": None})]

add_cases(CompressionTests, "12_13_library_offer", LIBRARY_OFFERS, _library_offer)
add_cases(CompressionTests, "13_server_window", [(str(b), b) for b in range(8, 16)], _server_window)
add_cases(CompressionTests, "13_client_window", [(str(b), b) for b in range(9, 16)], _client_window)
