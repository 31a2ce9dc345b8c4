"""Limits and timeouts set by flags: lingering close, small limits, the connection limit."""

import os
import select
import socket
import ssl
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from http_support import (  # noqa: E402
    chunked, RawConn, request_bytes, ServerProcess, ServerTestCase, TLS,
)


# MARK: - Limits and timeouts (special flags)


class LingeringCloseTests(ServerTestCase):
    """An error answered while the client is still sending reaches it: the server shuts its write side down and
    drops what follows for a bounded time and size (a lingering close) instead of closing with unread input, which
    makes the kernel reset the connection and destroy the response before the client reads it."""

    def send_in_two_parts_then_read(self, first, second, status):
        """Sends `first`, waits until the server has surely answered and (before) closed, sends `second` (which a
        closed socket answers with a reset), then expects the response and the end of the connection."""
        with RawConn(self.srv.port) as conn:
            # A small send buffer, so the second part is still being sent when a reset would come.
            conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            conn.send(first)
            time.sleep(0.3)
            conn.send(second)  # raises ConnectionResetError or BrokenPipeError without a lingering close
            response = conn.read_response()
            self.assertEqual(response.status, status, response)
            self.assertTrue(conn.closed_within(5), "connection not closed after %d" % status)

    def test_oversized_headers_still_sending_read_431(self):
        headers = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"v" * 1000) for i in range(70))  # ~70 KB
        self.send_in_two_parts_then_read(b"GET / HTTP/1.1\r\nHost: x\r\n" + headers[:30_000],
                                         headers[30_000:] + b"\r\n", 431)

    def test_oversized_uri_still_sending_read_414(self):
        self.send_in_two_parts_then_read(b"GET /" + b"a" * 60_000, b"a" * 60_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
                                         414)

    def test_an_endless_sender_is_cut_off(self):
        # Far past the bound: the server stops lingering and closes; the client's send fails or its read sees the
        # end, within a bounded time, and the server is unharmed.
        started = time.monotonic()
        with RawConn(self.srv.port) as conn:
            try:
                conn.send(request_bytes("GET", "/" + "a" * 20_000_000))
            except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError):
                pass
            conn.sock.settimeout(10)
            ended = False
            try:
                while conn.sock.recv(65536):  # perhaps the 414, then the end
                    pass
                ended = True
            except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError):
                ended = True
            except socket.timeout:
                pass
            self.assertTrue(ended, "the connection was not closed")
        self.assertLess(time.monotonic() - started, 15)
        self.assertAlive()


class SmallLimitsTests(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--max-body", "1024", "--head-timeout", "1", "--idle-timeout", "1")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_body_within_limit_ok(self):
        response = self.raw(request_bytes("POST", "/echo", [("Content-Length", "1024")], b"a" * 1024))
        self.assertEqual((response.status, len(response.body)), (200, 1024))

    def test_content_length_over_limit_413(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Content-Length", "2000")], b"a" * 2000), 413)

    def test_chunked_over_limit_413(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Transfer-Encoding", "chunked")],
                                                  chunked(b"a" * 600, b"b" * 600)), 413)

    def test_expect_100_over_limit_gets_413_without_100(self):
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("POST", "/echo", [("Content-Length", "5000"), ("Expect", "100-continue")]))
            response = conn.read_response(skip_interim=False)
            self.assertEqual(response.status, 413)
            self.assertTrue(conn.closed_within(2))

    def test_slow_loris_gets_408(self):
        with RawConn(self.srv.port) as conn:
            conn.send(b"GET / HTTP/1.1\r\nHo")
            started = time.monotonic()
            response = conn.read_response()
            elapsed = time.monotonic() - started
            self.assertEqual(response.status, 408)
            self.assertTrue(0.5 <= elapsed <= 3.5, "408 after %.2f s" % elapsed)
            self.assertTrue(conn.closed_within(2))

    def test_slow_loris_dribbling_bytes_gets_408(self):
        """The head timeout runs from the first byte: trickling bytes must not extend it."""
        with RawConn(self.srv.port) as conn:
            started = time.monotonic()
            for byte in b"GET /items/slow HTTP/1.1\r\nHost: x\r\n":
                try:
                    conn.send(bytes([byte]))
                except OSError:
                    break
                if time.monotonic() - started > 4:
                    break
                ready, _, _ = select.select([conn.sock], [], [], 0.15)
                if ready:
                    break
            response = conn.read_response()
            self.assertEqual(response.status, 408)
            self.assertLess(time.monotonic() - started, 3.5)

    def test_idle_keep_alive_closed_after_idle_timeout(self):
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("GET", "/"))
            self.assertEqual(conn.read_response().body, b"hello")
            started = time.monotonic()
            self.assertFalse(conn.closed_within(0.4), "closed well before the idle timeout")
            self.assertTrue(conn.closed_within(3), "idle connection not closed")
            self.assertLess(time.monotonic() - started, 3.5)
            self.assertEqual(conn.buf, b"")

    def test_connection_without_request_closed_after_idle_timeout(self):
        with RawConn(self.srv.port) as conn:
            self.assertTrue(conn.closed_within(3.5), "silent connection not closed")


class MaxConnectionsTests(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--max-connections", "3")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_fourth_connection_refused_then_slot_reused(self):
        conns = [RawConn(self.srv.port) for _ in range(3)]
        try:
            for conn in conns:
                conn.send(request_bytes("GET", "/"))
                self.assertEqual(conn.read_response().body, b"hello")
            try:
                fourth = RawConn(self.srv.port)
            except (ssl.SSLError, ConnectionError) if TLS else ():
                fourth = None  # TLS: the refusal (a plain 503, or the close) ends the handshake
            if fourth is not None:
                with fourth:
                    try:
                        response = fourth.read_response()
                        self.assertEqual(response.status, 503, response)
                    except EOFError:
                        pass  # closed without a response is acceptable too
                    self.assertTrue(fourth.closed_within(2))
            # the three admitted connections still work
            conns[1].send(request_bytes("GET", "/items/still"))
            self.assertEqual(conns[1].read_response().body, b'{"id":"still"}')
            conns.pop(0).close()
            deadline = time.monotonic() + 3
            while True:
                try:
                    with RawConn(self.srv.port) as fresh:
                        fresh.send(request_bytes("GET", "/"))
                        response = fresh.read_response()
                        if response.status == 200:
                            self.assertEqual(response.body, b"hello")
                            break
                except (EOFError, OSError):
                    pass
                self.assertLess(time.monotonic(), deadline, "freed slot never became usable")
                time.sleep(0.1)
        finally:
            for conn in conns:
                conn.close()
