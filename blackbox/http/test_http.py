"""Black-box integration tests for the HTTP/1.1 server (bench/http-server, product `http-bench-server`).

Run from the package root, after building the server:

    swift build --product http-bench-server
    .venv/bin/python -m unittest -v blackbox/http/test_http.py

Standard library only. Every test starts from a server launched as a subprocess on a free port (`--port 0`);
servers are always stopped (SIGTERM, then SIGKILL after 5 s) and every socket has a timeout, so the suite
stops by itself. Expected behaviour follows RFC 9110/9112; where a test checks something stricter than a
MUST, its docstring says so.

With MOTION_TEST_TLS=1 the same tests run over TLS (the server gets the test certificate; http.client, curl and the
raw sockets connect with TLS and verify it); the few that need a TCP half-close, which TLS has not, are skipped.
The server binary must take --tls-cert/--tls-key, or the whole run is skipped.
"""

import email.utils
import gzip
import http.client
import json
import os
import random
import select
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("HTTP_BENCH_SERVER", os.path.join(ROOT, ".build", "debug", "http-bench-server"))
HOST = "127.0.0.1"
TIMEOUT = 5.0
SECRET = b"TOP-SECRET-6f1d2c-never-served"
CURL = shutil.which("curl")

sys.path.insert(0, os.path.join(ROOT, "blackbox", "support"))
import server_process  # noqa: E402  (after the path it lives on)

TLS = server_process.TLS  # MOTION_TEST_TLS=1: the run over TLS
NO_HALF_CLOSE = "TLS has no TCP half-close: shutdown(SHUT_WR) on the TLS socket would end the TLS layer"


# MARK: - Server process


class ServerProcess(server_process.ServerProcess):
    """One `http-bench-server` subprocess; `stop()` always ends it."""

    def __init__(self, *flags, public=None):
        args = [BINARY, "--port", "0", "--host", HOST] + server_process.tls_flags()
        if public:
            args += ["--public", public]
        super().__init__(args + list(flags), host=HOST)
        server_process.require_tls(self)

    def http(self):
        if TLS:
            return http.client.HTTPSConnection(HOST, self.port, timeout=TIMEOUT,
                                               context=server_process.tls_client_context())
        return http.client.HTTPConnection(HOST, self.port, timeout=TIMEOUT)


def make_public_dir():
    """A temporary tree: <tmp>/public is served; <tmp>/secret.txt and <tmp>/outside/ must never be."""
    base = tempfile.mkdtemp(prefix="http-tests-")
    public = os.path.join(base, "public")
    os.makedirs(os.path.join(public, "sub"))
    os.makedirs(os.path.join(base, "outside"))

    def write(path, data):
        with open(os.path.join(base, path), "wb") as f:
            f.write(data)

    write("secret.txt", SECRET + b"\n")
    write("outside/index.html", b"<p>" + SECRET + b"</p>\n")
    write("public/index.html", b"<!doctype html><title>root index</title>\n")
    write("public/sub/index.html", b"<!doctype html><title>sub index</title>\n")
    app = b"".join(b"console.log('app line %05d');\n" % i for i in range(400))[: 10 * 1024]
    write("public/app.js", app)
    write("public/style.css", b"body { color: #333; }\n" * 20)
    data = b"plain text for the precompressed twin test\n"
    write("public/data.txt", data)
    write("public/data.txt.gz", gzip.compress(data, mtime=0))
    write("public/.secret", SECRET + b" (hidden)\n")
    write("public/decoy.txt", b"decoy plain\n")
    os.symlink(os.path.join(base, "secret.txt"), os.path.join(public, "link-out"))
    os.symlink(os.path.join(base, "outside"), os.path.join(public, "dir-out"))
    # A precompressed twin that is a symlink out of the directory must not be followed.
    os.symlink(os.path.join(base, "secret.txt"), os.path.join(public, "decoy.txt.gz"))
    return base, public, app, data


# MARK: - Raw sockets


class Response:
    def __init__(self, version, status, reason, headers, body=b""):
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
        self.body = body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def header_all(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def __repr__(self):
        return "<%s %d %s %r body=%r>" % (self.version, self.status, self.reason, self.headers, self.body[:200])


class RawConn:
    """A client socket that reads HTTP/1.1 responses by hand (pipelining, 1xx, odd requests)."""

    def __init__(self, port, timeout=TIMEOUT):
        self.sock = server_process.connect(HOST, port, timeout)
        self.buf = b""
        self.eof = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self):
        if self.eof:
            return False
        try:
            chunk = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            chunk = b""
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def _until(self, marker):
        while marker not in self.buf:
            if not self._fill():
                raise EOFError("connection closed while waiting for %r; have %r" % (marker, self.buf[:300]))
        index = self.buf.index(marker) + len(marker)
        data, self.buf = self.buf[:index], self.buf[index:]
        return data

    def _exact(self, count):
        while len(self.buf) < count:
            if not self._fill():
                raise EOFError("connection closed with %d of %d body bytes" % (len(self.buf), count))
        data, self.buf = self.buf[:count], self.buf[count:]
        return data

    def read_head(self):
        head = self._until(b"\r\n\r\n").decode("latin-1")
        lines = head.split("\r\n")[:-2]
        version, status, reason = (lines[0].split(" ", 2) + [""])[:3]
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name.strip(), value.strip()))
        return Response(version, int(status), reason, headers)

    def read_response(self, method="GET", skip_interim=True):
        """Reads one response (skipping 1xx unless told not to), framing the body per RFC 9112 §6.3."""
        while True:
            response = self.read_head()
            if 100 <= response.status < 200:
                if skip_interim:
                    continue
                return response
            break
        if method == "HEAD" or response.status in (204, 304):
            return response
        te = response.header("Transfer-Encoding")
        if te is not None and te.lower().endswith("chunked"):
            body = b""
            while True:
                size_line = self._until(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    while self._until(b"\r\n") != b"\r\n":
                        pass
                    break
                body += self._exact(size)
                if self._exact(2) != b"\r\n":
                    raise AssertionError("chunk data not followed by CRLF")
            response.body = body
        elif response.header("Content-Length") is not None:
            response.body = self._exact(int(response.header("Content-Length")))
        else:
            while self._fill():
                pass
            response.body, self.buf = self.buf, b""
        return response

    def closed_within(self, seconds):
        """True when the server closes (EOF or reset) within `seconds` without sending more bytes."""
        if self.buf:
            return False
        if self.eof:
            return True
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        except (ConnectionResetError, BrokenPipeError):
            self.eof = True
            return True
        finally:
            self.sock.settimeout(TIMEOUT)
        if data:
            self.buf += data
            return False
        self.eof = True
        return True


def request_bytes(method, target, headers=(), body=b"", version="HTTP/1.1", host=True):
    lines = ["%s %s %s" % (method, target, version)]
    if host:
        lines.append("Host: %s" % HOST)
    lines += ["%s: %s" % (k, v) for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def chunked(*pieces):
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces if p) + b"0\r\n\r\n"


# MARK: - Module fixtures

MAIN = None
PUBLIC_BASE = PUBLIC = APP_JS = DATA_TXT = None


def setUpModule():
    global MAIN, PUBLIC_BASE, PUBLIC, APP_JS, DATA_TXT
    if not (os.path.isfile(BINARY) and os.access(BINARY, os.X_OK)):
        raise RuntimeError(
            "server binary not found at %s: run `swift build --product http-bench-server` in %s first"
            % (BINARY, ROOT))
    PUBLIC_BASE, PUBLIC, APP_JS, DATA_TXT = make_public_dir()
    MAIN = ServerProcess(public=PUBLIC)


def tearDownModule():
    if MAIN is not None:
        MAIN.stop()
    if PUBLIC_BASE:
        shutil.rmtree(PUBLIC_BASE, ignore_errors=True)


class ServerTestCase(unittest.TestCase):
    server = None

    @property
    def srv(self):
        return self.server or MAIN

    def get(self, path, headers=None, method="GET", body=None):
        conn = self.srv.http()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response, data
        finally:
            conn.close()

    def raw(self, data, method="GET"):
        with RawConn(self.srv.port) as conn:
            conn.send(data)
            return conn.read_response(method)

    def expect_error_and_close(self, data, status, conn=None):
        """Sends `data`, expects `status` with Connection: close and a JSON error body, then EOF."""
        with RawConn(self.srv.port) as conn:
            conn.send(data)
            response = conn.read_response()
            self.assertEqual(response.status, status, response)
            self.assertEqual((response.header("Connection") or "").lower(), "close", response)
            if response.body:
                error = json.loads(response.body)["error"]
                self.assertIn("code", error)
                self.assertIn("message", error)
            self.assertTrue(conn.closed_within(3), "connection not closed after %d" % status)
            return response

    def assertAlive(self):
        self.assertTrue(self.srv.alive(), "server process died: " + self.srv.stderr_text())


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


# MARK: - Static files


class StaticFileTests(ServerTestCase):
    def test_index_html_for_directory(self):
        response, body = self.get("/sub/")
        self.assertEqual(response.status, 200)
        self.assertIn(b"sub index", body)
        self.assertTrue(response.getheader("Content-Type").startswith("text/html"))
        response, body = self.get("/index.html")
        self.assertEqual(response.status, 200)
        self.assertIn(b"root index", body)

    def test_root_route_wins_over_index(self):
        # `GET /` is a route in this binary, so it answers before the file server.
        self.assertEqual(self.get("/")[1], b"hello")

    def test_directory_without_slash_redirects(self):
        response, body = self.get("/sub")
        self.assertEqual(response.status, 301)
        self.assertTrue(response.getheader("Location").endswith("/sub/"), response.getheader("Location"))
        response, _ = self.get("/sub?x=1")
        self.assertEqual(response.status, 301)
        self.assertTrue(response.getheader("Location").endswith("/sub/?x=1"), response.getheader("Location"))

    def test_content_types(self):
        cases = {"/app.js": ("text/javascript", "application/javascript"), "/style.css": ("text/css",),
                 "/index.html": ("text/html",), "/data.txt": ("text/plain",)}
        for path, types in cases.items():
            response, body = self.get(path)
            self.assertEqual(response.status, 200, path)
            self.assertTrue(response.getheader("Content-Type").startswith(types), (path, response.getheader(
                "Content-Type")))
        response, body = self.get("/app.js")
        self.assertEqual(body, APP_JS)
        self.assertEqual(len(body), 10 * 1024)

    def test_head_on_file(self):
        response, body = self.get("/app.js", method="HEAD")
        self.assertEqual(response.status, 200)
        self.assertEqual(response.getheader("Content-Length"), str(len(APP_JS)))
        self.assertEqual(body, b"")

    def test_etag_if_none_match_304(self):
        response, _ = self.get("/style.css")
        etag = response.getheader("ETag")
        self.assertIsNotNone(etag)
        for value in (etag, "W/" + etag, '"other", ' + etag, "*"):
            with RawConn(self.srv.port) as conn:
                conn.send(request_bytes("GET", "/style.css", [("If-None-Match", value)]) + request_bytes("GET", "/"))
                not_modified = conn.read_response()
                self.assertEqual(not_modified.status, 304, value)
                self.assertEqual(not_modified.header("ETag"), etag)
                self.assertEqual(conn.read_response().body, b"hello", "304 carried a body")
        response, body = self.get("/style.css", headers={"If-None-Match": '"nope"'})
        self.assertEqual(response.status, 200)

    def test_if_modified_since_exact_304(self):
        response, _ = self.get("/style.css")
        last_modified = response.getheader("Last-Modified")
        self.assertIsNotNone(last_modified)
        response, body = self.get("/style.css", headers={"If-Modified-Since": last_modified})
        self.assertEqual((response.status, body), (304, b""))
        # If-None-Match takes precedence over If-Modified-Since (RFC 9110 §13.1.3)
        response, body = self.get("/style.css", headers={"If-Modified-Since": last_modified,
                                                         "If-None-Match": '"nope"'})
        self.assertEqual(response.status, 200)

    def test_if_modified_since_later_date_304(self):
        """RFC 9110 §13.1.3: modified earlier than or at the given date → 304 (dates compared, not strings)."""
        path = os.path.join(PUBLIC, "style.css")
        now = time.time()
        os.utime(path, (now - 86400, now - 86400))
        later = email.utils.formatdate(now - 3600, usegmt=True)
        earlier = email.utils.formatdate(now - 2 * 86400, usegmt=True)
        response, _ = self.get("/style.css", headers={"If-Modified-Since": earlier})
        self.assertEqual(response.status, 200)
        response, body = self.get("/style.css", headers={"If-Modified-Since": later})
        self.assertEqual((response.status, body), (304, b""))

    def test_precompressed_twin(self):
        with open(os.path.join(PUBLIC, "data.txt.gz"), "rb") as f:
            gz = f.read()
        response, body = self.get("/data.txt", headers={"Accept-Encoding": "gzip, deflate"})
        self.assertEqual(response.status, 200)
        self.assertEqual(response.getheader("Content-Encoding"), "gzip")
        self.assertTrue(response.getheader("Content-Type").startswith("text/plain"))
        self.assertIn("accept-encoding", (response.getheader("Vary") or "").lower())
        self.assertEqual(body, gz)
        self.assertEqual(gzip.decompress(body), DATA_TXT)
        gz_etag = response.getheader("ETag")
        for headers in ({}, {"Accept-Encoding": "gzip;q=0"}, {"Accept-Encoding": "br"}):
            response, body = self.get("/data.txt", headers=headers)
            self.assertIsNone(response.getheader("Content-Encoding"), headers)
            self.assertEqual(body, DATA_TXT)
        self.assertNotEqual(response.getheader("ETag"), gz_etag, "same strong ETag for two encodings")
        response, body = self.get("/data.txt", headers={"Accept-Encoding": "gzip"}, method="HEAD")
        self.assertEqual(response.getheader("Content-Length"), str(len(gz)))

    def test_precompressed_twin_symlink_out_is_not_followed(self):
        response, body = self.get("/decoy.txt", headers={"Accept-Encoding": "gzip"})
        self.assertNotIn(SECRET, body)
        self.assertEqual((response.status, body), (200, b"decoy plain\n"))

    def test_dynamic_gzip_gets_its_own_etag(self):
        """RFC 9110 §8.8.3: a strong ETag identifies one representation; gzip-coded and identity must differ."""
        plain, _ = self.get("/app.js")
        coded, body = self.get("/app.js", headers={"Accept-Encoding": "gzip"})
        if coded.getheader("Content-Encoding") != "gzip":
            self.skipTest("server did not compress app.js")
        self.assertEqual(gzip.decompress(body), APP_JS)
        etag_plain, etag_coded = plain.getheader("ETag"), coded.getheader("ETag")
        if etag_coded is not None and not etag_coded.startswith("W/"):
            self.assertNotEqual(etag_plain, etag_coded, "gzip and identity responses share a strong ETag")

    def test_hidden_and_symlinked_files_are_not_served(self):
        for path in ("/.secret", "/link-out", "/dir-out/", "/dir-out/index.html", "/dir-out"):
            response, body = self.get(path)
            # `/dir-out` (a symlink to a directory outside) may redirect to `/dir-out/`, which must then be 404.
            allowed = (301, 400, 403, 404) if path == "/dir-out" else (400, 403, 404)
            self.assertIn(response.status, allowed, path)
            self.assertNotIn(SECRET, body, path)

    def test_path_traversal(self):
        targets = ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/sub/../../secret.txt",
                   "/sub/%2e%2e/%2e%2e/secret.txt", "/.%2e/secret.txt", "/..%2fsecret.txt", "/./../secret.txt",
                   "/.secret", "/%2esecret", "/link-out", "/%00", "/index.html%00.js", "/..\\secret.txt",
                   "/..%5csecret.txt", "/%2e%2e%5csecret.txt", "//../secret.txt", "/%2f..%2fsecret.txt",
                   "/../../../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
                   "http://%s:%d/../secret.txt" % (HOST, self.srv.port),
                   "http://%s:%d/%%2e%%2e/secret.txt" % (HOST, self.srv.port)]
        for target in targets:
            with RawConn(self.srv.port) as conn:
                conn.send(b"GET " + target.encode("latin-1") + b" HTTP/1.1\r\nHost: x\r\n\r\n")
                response = conn.read_response()
            self.assertIn(response.status, (400, 404), "%s → %r" % (target, response))
            self.assertNotIn(SECRET, response.body, target)
            self.assertNotIn(b"root:", response.body, target)
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


if __name__ == "__main__":
    unittest.main()
