"""Robustness against odd clients, and the graceful shutdown on SIGTERM."""

import os
import random
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_support  # noqa: E402
from http_support import tearDownModule  # noqa: E402,F401  (unittest calls it)
from http_support import (  # noqa: E402
    chunked, HOST, RawConn, request_bytes, ServerProcess, ServerTestCase,
)


PUBLIC = APP_JS = DATA_TXT = None  # the served directory and two of its files, as http_support made them


def setUpModule():
    global PUBLIC, APP_JS, DATA_TXT
    http_support.setUpModule()
    PUBLIC, APP_JS, DATA_TXT = http_support.PUBLIC, http_support.APP_JS, http_support.DATA_TXT


# MARK: - Robustness


class RobustnessTests(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--head-timeout", "2")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_random_abuse_then_good_request(self):
        rng = random.Random(20240601)
        good = [request_bytes("GET", "/"), request_bytes("POST", "/echo", [("Content-Length", "4")], b"ping"),
                request_bytes("POST", "/echo", [("Transfer-Encoding", "chunked")], chunked(b"abc", b"defg")),
                request_bytes("GET", "/stream?n=100"), request_bytes("GET", "/big", [("Accept-Encoding", "gzip")])]
        garbage = [b"\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
                   b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n",
                   b"GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
                   b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nX: \x00\r\n\r\n"]
        deadline = time.monotonic() + 6
        open_socks = []
        iterations = 0
        while time.monotonic() < deadline and iterations < 400:
            iterations += 1
            action = rng.randrange(9)
            try:
                sock = socket.create_connection((HOST, self.srv.port), timeout=2)
            except OSError as error:
                self.fail("connect failed after %d iterations: %s" % (iterations, error))
            sock.settimeout(2)
            try:
                if action == 0:
                    sock.sendall(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
                elif action == 1:
                    sock.sendall(rng.choice(garbage))
                elif action == 2:
                    data = rng.choice(good)
                    sock.sendall(data[: rng.randrange(1, len(data))])
                elif action == 3:
                    data = rng.choice(good)
                    sock.sendall(data[: rng.randrange(1, len(data))])
                    sock.shutdown(socket.SHUT_WR)
                elif action == 4:
                    sock.sendall(rng.choice(good) * rng.randrange(1, 4))
                elif action == 5:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    sock.sendall(rng.choice(good)[:20])
                elif action == 6:
                    sock.sendall(rng.choice(good) + rng.choice(garbage))
                    sock.recv(100)
                elif action == 7:
                    data = bytearray(rng.choice(good))
                    for _ in range(rng.randrange(1, 5)):
                        data[rng.randrange(len(data))] = rng.randrange(256)
                    sock.sendall(bytes(data))
                else:
                    pass  # connect and close
            except OSError:
                pass
            if rng.random() < 0.1 and len(open_socks) < 20:
                open_socks.append(sock)  # leave some dangling for a while
            else:
                sock.close()
        for sock in open_socks:
            sock.close()
        self.assertAlive()
        response, body = self.get("/")
        self.assertEqual((response.status, body), (200, b"hello"))
        response = self.raw(request_bytes("POST", "/echo", [("Content-Length", "3")], b"end"))
        self.assertEqual(response.body, b"end")
        self.assertAlive()


# MARK: - Graceful shutdown


class ShutdownTests(unittest.TestCase):
    def test_sigterm_drains_and_exits_zero(self):
        server = ServerProcess(public=PUBLIC)
        try:
            idle = RawConn(server.port)
            idle.send(request_bytes("GET", "/"))
            self.assertEqual(idle.read_response().body, b"hello")
            streaming = RawConn(server.port)
            streaming.send(request_bytes("GET", "/stream?n=10000"))
            first = streaming.read_head()  # response started, the rest is left unread in the socket buffers
            self.assertEqual(first.status, 200)
            server.terminate()
            self.assertTrue(idle.closed_within(3), "idle keep-alive connection not closed on SIGTERM")
            body = b""
            while True:
                size = int(streaming._until(b"\r\n").split(b";")[0], 16)
                if size == 0:
                    streaming._until(b"\r\n")
                    break
                body += streaming._exact(size)
                streaming._exact(2)
            self.assertEqual(body.count(b"\n"), 10000)
            self.assertTrue(body.endswith(b"chunk 9999\n"))
            self.assertTrue(streaming.closed_within(3), "connection not closed after the drained response")
            self.assertEqual(server.wait(5), 0, "exit status; stderr: " + server.stderr_text())
            with self.assertRaises(OSError):
                socket.create_connection((HOST, server.port), timeout=1).close()
            idle.close()
            streaming.close()
        finally:
            server.stop()

    def test_request_arriving_during_drain_is_answered(self):
        """Graceful drain: a request whose head is half received at SIGTERM is finished, then the connection closes.

        (Not an RFC rule; it is what "drain" promises. Closing mid-request loses a request the client sent.)"""
        server = ServerProcess()
        try:
            with RawConn(server.port) as conn:
                conn.send(b"GET /items/late HTTP/1.1\r\nHost: x\r\n")
                time.sleep(0.2)
                server.terminate()
                time.sleep(0.3)
                try:
                    conn.send(b"\r\n")
                    response = conn.read_response()
                except (EOFError, OSError) as error:
                    self.fail("connection with a request in progress was dropped on SIGTERM: %r" % error)
                self.assertEqual(response.body, b'{"id":"late"}')
                self.assertEqual((response.header("Connection") or "").lower(), "close")
                self.assertTrue(conn.closed_within(2))
            self.assertEqual(server.wait(5), 0)
        finally:
            server.stop()

    def test_sigterm_right_after_ready_line_exits_zero(self):
        """The ready line promises SIGTERM handling: a SIGTERM sent as soon as it is read must drain and exit 0
        (not kill the process with the default action, and not be lost)."""
        outcomes = []
        for _ in range(8):
            server = ServerProcess("--loops", "1")
            try:
                server.terminate()
                rc = server.wait(3)
                outcomes.append("hang" if rc is None else rc)
            finally:
                server.stop()
        self.assertEqual(outcomes, [0] * len(outcomes),
                         "exit codes (negative = killed by signal, 'hang' = SIGTERM lost): %r" % outcomes)
