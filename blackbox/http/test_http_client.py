"""Requests through Python's http.client and through curl: methods, headers, bodies, keep-alive, gzip."""

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from http_support import (  # noqa: E402
    CURL, RawConn, request_bytes, server_process, ServerTestCase, TLS,
)


# MARK: - http.client


class ClientBasicsTests(ServerTestCase):
    def test_get_root(self):
        response, body = self.get("/")
        self.assertEqual(response.status, 200)
        self.assertEqual(body, b"hello")
        self.assertTrue(response.getheader("Content-Type").startswith("text/plain"))
        self.assertEqual(response.getheader("Content-Length"), "5")
        self.assertIsNotNone(response.getheader("Date"))

    def test_head_has_headers_and_no_body(self):
        response, body = self.get("/", method="HEAD")
        self.assertEqual(response.status, 200)
        self.assertEqual(body, b"")
        self.assertEqual(response.getheader("Content-Length"), "5")
        # On the wire: the next response on the connection must start right after the HEAD response's head.
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("HEAD", "/") + request_bytes("HEAD", "/big") + request_bytes("GET", "/items/h"))
            head1 = conn.read_response("HEAD")
            head2 = conn.read_response("HEAD")
            get = conn.read_response()
            self.assertEqual((head1.status, head1.header("Content-Length")), (200, "5"))
            self.assertEqual(head2.status, 200)
            self.assertIsNotNone(head2.header("Content-Length"))
            self.assertEqual(get.body, b'{"id":"h"}', "HEAD response carried a body")

    def test_head_on_streaming_route_has_no_body(self):
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("HEAD", "/stream?n=5") + request_bytes("GET", "/"))
            head = conn.read_response("HEAD")
            self.assertEqual(head.status, 200)
            get = conn.read_response()
            self.assertEqual(get.body, b"hello", "HEAD response carried a body")

    def test_keep_alive_reuses_one_connection(self):
        conn = self.srv.http()
        try:
            ports = []
            for path, expected in (("/", b"hello"), ("/items/7", b'{"id":"7"}'), ("/", b"hello")):
                conn.request("GET", path)
                response = conn.getresponse()
                self.assertEqual(response.read(), expected)
                self.assertIsNone(response.getheader("Connection"))
                ports.append(conn.sock.getsockname()[1])
            self.assertEqual(len(set(ports)), 1, "client had to reconnect: %r" % ports)
        finally:
            conn.close()

    def test_post_echo_content_length(self):
        body = bytes(random.Random(1).randrange(256) for _ in range(5000))
        response, data = self.get("/echo", method="POST", body=body,
                                  headers={"Content-Type": "application/x-test"})
        self.assertEqual(response.status, 200)
        self.assertEqual(data, body)
        self.assertEqual(response.getheader("Content-Type"), "application/x-test")

    def test_post_echo_chunked(self):
        pieces = [b"alpha-", b"", b"beta-" * 300, b"gamma"]
        conn = self.srv.http()
        try:
            conn.request("POST", "/echo", body=iter(pieces), encode_chunked=True,
                         headers={"Transfer-Encoding": "chunked", "Content-Type": "text/x-chunks"})
            response = conn.getresponse()
            self.assertEqual(response.status, 200)
            self.assertEqual(response.read(), b"".join(pieces))
            # and the connection is still usable
            conn.request("GET", "/")
            self.assertEqual(conn.getresponse().read(), b"hello")
        finally:
            conn.close()

    def test_post_echo_chunked_with_extensions_and_trailers(self):
        body = b"5;name=value\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n"
        response = self.raw(request_bytes("POST", "/echo", [("Transfer-Encoding", "chunked")], body))
        self.assertEqual(response.status, 200)
        self.assertEqual(response.body, b"hello world")

    def test_expect_100_continue(self):
        body = b"x" * 2048
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("POST", "/echo", [("Content-Length", len(body)), ("Expect", "100-continue"),
                                                      ("Content-Type", "text/plain")]))
            interim = conn.read_response(skip_interim=False)
            self.assertEqual((interim.version, interim.status), ("HTTP/1.1", 100))
            conn.send(body)
            final = conn.read_response()
            self.assertEqual(final.status, 200)
            self.assertEqual(final.body, body)

    def test_unsupported_expectation_is_417(self):
        response = self.raw(request_bytes("POST", "/echo", [("Content-Length", "2"), ("Expect", "fancy")], b"hi"))
        self.assertEqual(response.status, 417)

    def test_connection_close_honoured(self):
        with RawConn(self.srv.port) as conn:
            conn.send(request_bytes("GET", "/", [("Connection", "close")]))
            response = conn.read_response()
            self.assertEqual(response.body, b"hello")
            self.assertEqual((response.header("Connection") or "").lower(), "close")
            self.assertTrue(conn.closed_within(2), "server kept the connection open after Connection: close")

    def test_http10_closes_after_response(self):
        with RawConn(self.srv.port) as conn:
            conn.send(b"GET / HTTP/1.0\r\n\r\n")
            response = conn.read_response()
            self.assertEqual((response.status, response.body), (200, b"hello"))
            self.assertTrue(conn.closed_within(2), "HTTP/1.0 connection left open")

    def test_http10_keep_alive_stays_open(self):
        with RawConn(self.srv.port) as conn:
            conn.send(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            first = conn.read_response()
            self.assertEqual(first.body, b"hello")
            self.assertNotEqual((first.header("Connection") or "").lower(), "close")
            self.assertFalse(conn.closed_within(0.3), "HTTP/1.0 keep-alive connection was closed")
            conn.send(b"GET /items/2 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            self.assertEqual(conn.read_response().body, b'{"id":"2"}')

    def test_route_parameters(self):
        for target, expected in (("/items/42", "42"), ("/items/hello%20world", "hello world"),
                                 ("/items/q%22uote", 'q"uote'), ("/items/caf%C3%A9", "caf\u00e9")):
            response, body = self.get(target)
            self.assertEqual(response.status, 200, target)
            self.assertEqual(response.getheader("Content-Type"), "application/json")
            self.assertEqual(json.loads(body), {"id": expected}, target)

    def test_query_string_does_not_affect_routing(self):
        response, body = self.get("/items/5?x=1&y=2")
        self.assertEqual((response.status, json.loads(body)), (200, {"id": "5"}))

    def test_404_is_json_error(self):
        for path in ("/no/such/thing", "/items", "/items/1/2"):
            response, body = self.get(path)
            self.assertEqual(response.status, 404, path)
            self.assertTrue(response.getheader("Content-Type").startswith("application/json"))
            error = json.loads(body)["error"]
            self.assertIsInstance(error["code"], str)
            self.assertIsInstance(error["message"], str)

    def assert405(self, method, path, allowed):
        response, body = self.get(path, method=method)
        self.assertEqual(response.status, 405, "%s %s" % (method, path))
        allow = {m.strip() for m in (response.getheader("Allow") or "").split(",") if m.strip()}
        self.assertTrue(set(allowed) <= allow, "%s %s: Allow: %r" % (method, path, response.getheader("Allow")))
        self.assertNotIn(method, allow)
        self.assertIn("error", json.loads(body))

    def test_405_with_allow_on_get_routes(self):
        self.assert405("POST", "/", ["GET", "HEAD"])
        self.assert405("DELETE", "/items/1", ["GET", "HEAD"])
        self.assert405("PUT", "/big", ["GET", "HEAD"])

    def test_405_with_allow_on_post_route(self):
        """`/echo` exists only for POST: GET /echo must be 405 with `Allow: POST` (RFC 9110 §15.5.6)."""
        self.assert405("GET", "/echo", ["POST"])

    def test_405_on_static_file(self):
        self.assert405("PUT", "/index.html", ["GET", "HEAD"])

    def test_stream_is_chunked(self):
        response, body = self.get("/stream?n=50")
        self.assertEqual(response.status, 200)
        self.assertEqual(response.getheader("Transfer-Encoding"), "chunked")
        self.assertEqual(body, b"".join(b"chunk %d\n" % i for i in range(50)))

    def test_stream_to_http10_client_is_not_chunked(self):
        """RFC 9112 §6.1: a server MUST NOT send Transfer-Encoding to an HTTP/1.0 request; close-delimit instead."""
        with RawConn(self.srv.port) as conn:
            conn.send(b"GET /stream?n=3 HTTP/1.0\r\n\r\n")
            response = conn.read_head()
            self.assertIsNone(response.header("Transfer-Encoding"), response)
            while conn._fill():
                pass
            self.assertEqual(conn.buf, b"chunk 0\nchunk 1\nchunk 2\n")

    def test_big_plain_and_gzip(self):
        plain_response, plain = self.get("/big")
        self.assertEqual(plain_response.status, 200)
        self.assertIsNone(plain_response.getheader("Content-Encoding"))
        self.assertGreater(len(plain), 60000)
        response, body = self.get("/big", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(response.getheader("Content-Encoding"), "gzip")
        self.assertIn("accept-encoding", (response.getheader("Vary") or "").lower())
        self.assertEqual(gzip.decompress(body), plain)
        response, body = self.get("/big", headers={"Accept-Encoding": "gzip;q=0, identity"})
        self.assertIsNone(response.getheader("Content-Encoding"))
        self.assertEqual(body, plain)

    def test_head_content_length_matches_get_with_gzip(self):
        """RFC 9110 §8.6/§9.3.2: a HEAD response's Content-Length (and Content-Encoding) must be what GET sends."""
        headers = {"Accept-Encoding": "gzip"}
        get_response, body = self.get("/big", headers=headers)
        head_response, _ = self.get("/big", headers=headers, method="HEAD")
        self.assertEqual(head_response.getheader("Content-Encoding"), get_response.getheader("Content-Encoding"))
        self.assertEqual(head_response.getheader("Content-Length"), str(len(body)))


# MARK: - curl


@unittest.skipUnless(CURL, "curl not installed")
class CurlTests(ServerTestCase):
    def curl(self, *args, input=None):
        tls = ["--cacert", server_process.TLS_CERT] if TLS else []
        result = subprocess.run([CURL, "-sS", "--max-time", "10", *tls, *args], input=input, capture_output=True,
                                timeout=20)
        self.assertEqual(result.returncode, 0, result.stderr.decode(errors="replace"))
        return result

    def test_keep_alive_two_urls_one_connection(self):
        result = self.curl("-o", "/dev/null", "-o", "/dev/null", "-w", "%{num_connects}\n", "-v",
                           self.srv.url("/"), self.srv.url("/items/3"))
        self.assertEqual(result.stdout.decode().split(), ["1", "0"])
        self.assertIn(b"Re-using existing connection", result.stderr)

    def test_chunked_upload(self):
        body = os.urandom(20000)
        with tempfile.NamedTemporaryFile() as f:
            f.write(body)
            f.flush()
            result = self.curl("-H", "Transfer-Encoding: chunked", "-H", "Content-Type: application/octet-stream",
                               "--data-binary", "@" + f.name, self.srv.url("/echo"))
        self.assertEqual(result.stdout, body)

    def test_head(self):
        result = self.curl("-I", self.srv.url("/"))
        text = result.stdout.decode()
        self.assertTrue(text.startswith("HTTP/1.1 200"), text)
        self.assertIn("content-length: 5", text.lower())
        self.assertNotIn("hello", text)

    def test_expect_100_continue(self):
        body = ("".join("line %d of the upload\n" % i for i in range(200))).encode()
        self.assertGreater(len(body), 1024)
        with tempfile.NamedTemporaryFile() as f:
            f.write(body)
            f.flush()
            result = self.curl("-v", "--expect100-timeout", "5", "-H", "Expect: 100-continue",
                               "-H", "Content-Type: text/plain", "--data-binary", "@" + f.name, self.srv.url("/echo"))
        self.assertEqual(result.stdout, body)
        self.assertIn(b"HTTP/1.1 100 Continue", result.stderr)

    def test_compressed(self):
        plain = self.curl(self.srv.url("/big")).stdout
        result = self.curl("--compressed", "-D", "-", "-o", "/dev/null", self.srv.url("/big"))
        self.assertIn("content-encoding: gzip", result.stdout.decode().lower())
        decoded = self.curl("--compressed", self.srv.url("/big")).stdout
        self.assertEqual(decoded, plain)
        self.assertGreater(len(plain), 60000)
