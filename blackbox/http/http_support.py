"""Shared by the black-box integration tests for the HTTP/1.1 server (bench/http-server, product `http-bench-server`).

Run from the package root, after building the server:

    swift build --product http-bench-server
    .venv/bin/python -m unittest discover -v -s blackbox/http -p 'test_http_*.py'

The tests are the test_http_*.py modules beside this file, by subject; this module holds what they share: the
server, the raw-socket client, the module fixtures (a test module imports `setUpModule` and `tearDownModule`:
one server serves the module) and the base class.

Standard library only. Every test starts from a server launched as a subprocess on a free port (`--port 0`);
servers are always stopped (SIGTERM, then SIGKILL after 5 s) and every socket has a timeout, so the suite
stops by itself. Expected behaviour follows RFC 9110/9112; where a test checks something stricter than a
MUST, its docstring says so.

With MOTION_TEST_TLS=1 the same tests run over TLS (the server gets the test certificate; http.client, curl and the
raw sockets connect with TLS and verify it); the few that need a TCP half-close, which TLS has not, are skipped.
The server binary must take --tls-cert/--tls-key, or the whole run is skipped.
"""

import gzip
import http.client
import json
import os
import shutil
import socket
import sys
import tempfile
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
