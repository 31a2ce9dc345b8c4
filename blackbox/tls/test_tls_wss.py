"""WSS: live sessions (with and without permessage-deflate) and echo of every size up to 1 MiB."""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_support import (  # noqa: E402
    ConnectionClosed, LiveSession, MIB, rep_frames, ServerTestCase, TIMEOUT, wss,
)


# MARK: - WSS


class WSSTests(ServerTestCase):
    def live_session(self, compression, batch):
        session = LiveSession(self.port, compression=compression)
        try:
            deflate = any("Deflate" in type(e).__name__ for e in session.ws.protocol.extensions)
            self.assertEqual(deflate, compression == "deflate", "permessage-deflate negotiated: %s" % deflate)
            started = session.start(subject="tls-live")
            frames = rep_frames(3)
            messages = session.poses(frames, batch=batch)
            reps = [m for m in messages if m.get("type") == "event" and m.get("event") == "repCompleted"]
            self.assertEqual(len(reps), 3)
            summary, code = session.stop()
            self.assertIsNotNone(summary, "stop must be answered with a summary")
            self.assertEqual(code, 1000)
            self.assertEqual(summary["id"], started["session"])
            self.assertEqual((summary["status"], summary["repCount"], summary["frames"]), ("finished", 3, len(frames)))
        finally:
            session.close()

    def test_live_session(self):
        self.live_session(None, batch=False)

    def test_live_session_with_permessage_deflate(self):
        self.live_session("deflate", batch=False)

    def test_live_session_batches_with_permessage_deflate(self):
        self.live_session("deflate", batch=True)

    SIZES = [0, 1, 125, 126, 127, 1000, 16383, 16384, 16385, 65535, 65536, 65537, 200_000, MIB - 1, MIB]

    def echo_sizes(self, compression):
        rng = random.Random(11)
        with wss(self.port, "/v1/echo", compression=compression) as ws:
            for size in self.SIZES:
                text = "".join(rng.choice("abcdefghij {}") for _ in range(size)) if size < 300_000 else "x" * size
                binary = rng.randbytes(size)
                ws.send(text)
                self.assertEqual(ws.recv(timeout=30), text, "text of %d bytes" % size)
                ws.send(binary)
                self.assertEqual(ws.recv(timeout=30), binary, "binary of %d bytes" % size)
            multibyte = "\u00e9\u6f22\U0001f600" * 20_000  # 180,000 bytes of 2-, 3- and 4-byte characters
            ws.send(multibyte)
            self.assertEqual(ws.recv(timeout=30), multibyte)

    def test_echo_sizes_up_to_1_mib(self):
        self.echo_sizes(None)

    def test_echo_sizes_up_to_1_mib_with_permessage_deflate(self):
        self.echo_sizes("deflate")

    def test_message_over_1_mib_is_1009(self):
        with wss(self.port, "/v1/echo") as ws:
            ws.send(b"\x00" * (MIB + 1))
            with self.assertRaises(ConnectionClosed):
                ws.recv(timeout=TIMEOUT)
            self.assertEqual(ws.close_code, 1009)

    def test_many_sessions_at_once(self):
        sessions = [LiveSession(self.port, compression="deflate" if i % 2 else None) for i in range(10)]
        try:
            for session in sessions:
                session.start()
            frames = rep_frames(1)
            for session in sessions:
                session.poses(frames, batch=True)
            for session in sessions:
                summary, code = session.stop()
                self.assertEqual((code, summary["repCount"]), (1000, 1))
        finally:
            for session in sessions:
                session.close()
