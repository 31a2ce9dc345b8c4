"""Pipelining, and malformed requests against the default limits."""

import os
import socket
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from http_support import (  # noqa: E402
    chunked, NO_HALF_CLOSE, RawConn, request_bytes, ServerTestCase, TLS,
)


# MARK: - Pipelining


class PipeliningTests(ServerTestCase):
    def test_three_pipelined_requests_in_one_send(self):
        with RawConn(self.srv.port) as conn:
            conn.send(b"".join(request_bytes("GET", "/items/%d" % i) for i in (1, 2, 3)))
            bodies = [conn.read_response().body for _ in range(3)]
            self.assertEqual(bodies, [b'{"id":"1"}', b'{"id":"2"}', b'{"id":"3"}'])
            self.assertFalse(conn.closed_within(0.2))

    def test_pipelined_mixed_methods_and_bodies(self):
        data = (request_bytes("POST", "/echo", [("Content-Length", "3")], b"one")
                + request_bytes("GET", "/stream?n=2")
                + request_bytes("POST", "/echo", [("Transfer-Encoding", "chunked")], chunked(b"two", b"!"))
                + request_bytes("HEAD", "/")
                + request_bytes("GET", "/items/last"))
        with RawConn(self.srv.port) as conn:
            conn.send(data)
            self.assertEqual(conn.read_response().body, b"one")
            self.assertEqual(conn.read_response().body, b"chunk 0\nchunk 1\n")
            self.assertEqual(conn.read_response().body, b"two!")
            self.assertEqual(conn.read_response("HEAD").status, 200)
            self.assertEqual(conn.read_response().body, b'{"id":"last"}')

    @unittest.skipIf(TLS, NO_HALF_CLOSE)
    def test_pipelined_then_half_close_answers_all(self):
        with RawConn(self.srv.port) as conn:
            conn.send(b"".join(request_bytes("GET", "/items/%d" % i) for i in (1, 2, 3)))
            conn.sock.shutdown(socket.SHUT_WR)
            bodies = [conn.read_response().body for _ in range(3)]
            self.assertEqual(bodies, [b'{"id":"1"}', b'{"id":"2"}', b'{"id":"3"}'])
            self.assertTrue(conn.closed_within(2))

    def test_request_split_byte_by_byte(self):
        with RawConn(self.srv.port) as conn:
            for byte in request_bytes("POST", "/echo", [("Content-Length", "5")], b"abcde"):
                conn.send(bytes([byte]))
            self.assertEqual(conn.read_response().body, b"abcde")


# MARK: - Limits and malformed input (default limits)


class MalformedRequestTests(ServerTestCase):
    def test_request_line_too_long_414(self):
        self.expect_error_and_close(request_bytes("GET", "/" + "a" * 9000), 414)

    def test_header_section_too_large_431(self):
        headers = [("X-Filler-%d" % i, "v" * 1000) for i in range(20)]
        self.expect_error_and_close(request_bytes("GET", "/", headers), 431)

    def test_garbage_line_400(self):
        self.expect_error_and_close(b"THIS IS NOT HTTP AT ALL\r\n\r\n", 400)

    def test_obs_fold_400(self):
        self.expect_error_and_close(request_bytes("GET", "/", [("X-Folded", "first")])[:-2]
                                    + b"  continued\r\n\r\n", 400)

    def test_content_length_and_transfer_encoding_400(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Content-Length", "5"),
                                                                    ("Transfer-Encoding", "chunked")],
                                                  chunked(b"hello")), 400)

    def test_transfer_encoding_gzip_501(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Transfer-Encoding", "gzip")], b"xx"), 501)

    def test_http2_version_505(self):
        self.expect_error_and_close(request_bytes("GET", "/", version="HTTP/2.0"), 505)

    def test_missing_host_400(self):
        self.expect_error_and_close(request_bytes("GET", "/", host=False), 400)

    def test_duplicate_host_400(self):
        self.expect_error_and_close(request_bytes("GET", "/", [("Host", "other")]), 400)

    def test_bad_content_length_400(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Content-Length", "12abc")], b"x"), 400)
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Content-Length", "3"),
                                                                    ("Content-Length", "4")], b"abcd"), 400)

    def test_whitespace_before_colon_400(self):
        self.expect_error_and_close(b"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400)

    def test_bare_lf_400(self):
        self.expect_error_and_close(b"GET / HTTP/1.1\nHost: x\n\n", 400)

    def test_bad_chunk_size_400(self):
        self.expect_error_and_close(request_bytes("POST", "/echo", [("Transfer-Encoding", "chunked")],
                                                  b"zz\r\nhello\r\n0\r\n\r\n"), 400)

    def test_error_does_not_poison_other_connections(self):
        self.expect_error_and_close(b"\x00\x01\x02garbage\r\n\r\n", 400)
        self.assertEqual(self.get("/")[1], b"hello")

    def test_good_request_before_bad_one_is_answered(self):
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("GET", "/items/ok") + b"BROKEN\r\n\r\n")
            self.assertEqual(conn.read_response().body, b'{"id":"ok"}')
            self.assertEqual(conn.read_response().status, 400)
            self.assertTrue(conn.closed_within(2))

    @unittest.skipIf(TLS, NO_HALF_CLOSE)
    def test_half_closed_partial_request_does_not_spin(self):
        """A client that half-closes after a partial request line must not cost the server CPU while it waits.

        (Not an RFC rule: a busy loop on EOF is a denial-of-service vector.)"""
        with RawConn(self.srv.port) as conn:
            conn.send(b"GET / HT")
            conn.sock.shutdown(socket.SHUT_WR)
            time.sleep(0.2)
            before = self.srv.cpu_seconds()
            time.sleep(1.0)
            used = self.srv.cpu_seconds() - before
        self.assertLess(used, 0.3, "server used %.2f s of CPU in 1 s for one half-closed connection" % used)
        self.assertAlive()
