"""Many connections at once, and SIGTERM (close 1001, exit 0) on servers of its own."""

import os
import signal
import socket
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    CLOSE, RawWebSocket, ServerProcess, TEST_TIMEOUT, TEXT, TIMEOUT, WebSocketTestCase, library_connect,
)


# MARK: - Concurrency and shutdown


class ConcurrencyTests(WebSocketTestCase):
    def test_twenty_connections_in_parallel(self):
        errors = []

        def run(index):
            try:
                with library_connect(open_timeout=TIMEOUT, close_timeout=TIMEOUT, ping_interval=None) as ws:
                    for i in range(50):
                        ws.send("client %d message %d %s" % (index, i, "." * (i * 13)))
                    for i in range(50):
                        if ws.recv(timeout=TIMEOUT) != "client %d message %d %s" % (index, i, "." * (i * 13)):
                            errors.append("client %d: wrong message %d" % (index, i))
                            return
            except Exception as error:  # reported below
                errors.append("client %d: %r" % (index, error))

        threads = [threading.Thread(target=run, args=(i,)) for i in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TEST_TIMEOUT)
        self.assertEqual(errors, [])


class ShutdownTests(WebSocketTestCase):
    def sigterm_right_after_echo(self):
        server = ServerProcess()
        try:
            ws = RawWebSocket(server.port)
            self._sockets.append(ws)
            self.assertEcho(ws, TEXT, b"before shutdown")
            server.proc.send_signal(signal.SIGTERM)
            try:
                frame = ws.recv_frame(timeout=3)
            except socket.timeout:
                self.fail("no close frame within 3 s of SIGTERM: the server ignored the signal")
            self.assertIsNotNone(frame, "the connection was dropped without a close frame")
            self.assertEqual((frame.opcode, frame.close_code), (CLOSE, 1001), "RFC 6455 §7.4.1: 1001 going away")
            ws.send_close(1001)
            self.assertTrue(ws.is_closed_by_peer())
            self.assertEqual(server.proc.wait(TIMEOUT), 0)
        finally:
            server.stop()

    def test_sigterm_closes_websockets_with_1001_and_exits_zero(self):
        """SIGTERM right after a message: every open WebSocket gets close 1001, then the process exits 0. Repeated
        on 8 fresh servers, because a lost signal only shows some of the time (more often under CPU load)."""
        for _ in range(8):
            self.sigterm_right_after_echo()
