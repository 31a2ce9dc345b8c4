"""Black-box tests of motion-server over TLS (`--tls-cert`/`--tls-key`): HTTPS and WSS with independent clients
(Python `ssl`, `http.client` and `websockets`; the `openssl s_client` and `curl` commands), protocol versions and
ciphers, ALPN, session resumption, bad input on the TLS port, start-up errors, and SIGHUP certificate reload.

Run:  cd /work/main && swift build --product motion-server && .venv/bin/python -m unittest -v blackbox/tls/test_tls.py
Set MOTION_SERVER_BIN=/path/to/motion-server to test another build (MOTION_SERVER is honoured too). See README.md
beside this file.

Every server listens on 127.0.0.1, port 0, with its own temporary database, and is stopped (SIGTERM, then SIGKILL)
by its TestCase. Every socket and subprocess has a timeout and every test an alarm, so the suite cannot hang.
"""

import gzip
import hashlib
import http.client
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = (os.environ.get("MOTION_SERVER_BIN") or os.environ.get("MOTION_SERVER")
          or os.path.join(ROOT, ".build", "debug", "motion-server"))
FIXTURES = os.path.join(ROOT, "Tests", "HTTPServerTests", "Fixtures", "tls")
PUBLIC = os.path.join(ROOT, "Public")
HOST = "127.0.0.1"
TIMEOUT = 10.0  # every socket and client operation
TEST_TIMEOUT = 90  # the alarm of one test
HEAD_TIMEOUT = 10.0  # HTTPServerConfiguration.headTimeout, motion-server's default (no flag sets it)
MIB = 1 << 20
OPENSSL = shutil.which("openssl")
CURL = shutil.which("curl")


def fixture(name):
    return os.path.join(FIXTURES, name)


CERT, KEY = fixture("ecdsa.pem"), fixture("ecdsa.key")
CERT2, KEY2 = fixture("ecdsa2.pem"), fixture("ecdsa2.key")
RSA_CERT, RSA_KEY = fixture("rsa.pem"), fixture("rsa.key")

sys.path.insert(0, os.path.join(ROOT, "blackbox", "support"))
sys.path.insert(0, os.path.join(ROOT, "blackbox", "server"))
import server_process  # noqa: E402  (after the path it lives on)

try:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect as ws_connect
except ImportError:
    raise ImportError("the Python package 'websockets' is missing; `make deps` installs it into .venv "
                      "(run the suite with .venv/bin/python)") from None
from motion_client import rep_frames  # noqa: E402  (blackbox/server: simulated elbow-flexion poses)


# MARK: - Server process


class Server(server_process.ServerProcess):
    """One motion-server on a free port with a temporary database; with TLS from `cert`/`key` unless both are None.
    `public` is the directory served (default: a copy of Public/ with big files added, see `make_public`)."""

    def __init__(self, *flags, cert=CERT, key=KEY, public=None):
        self.tmp = tempfile.TemporaryDirectory(prefix="motion-tls-")
        args = [BINARY, "--host", HOST, "--port", "0", "--database", os.path.join(self.tmp.name, "motion.sqlite"),
                "--threads", "2", "--log-level", "info"]
        if public:
            args += ["--public", public]
        if cert:
            args += ["--tls-cert", cert]
        if key:
            args += ["--tls-key", key]
        try:
            super().__init__(args + list(flags), host=HOST)
        except BaseException:
            self.tmp.cleanup()
            raise

    def stop(self):
        try:
            super().stop()
        finally:
            self.tmp.cleanup()

    def stderr_all(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def make_public(base):
    """Public/ copied into `base`/public, plus big.bin (4 MiB random: large responses) and big.txt (1 MiB text:
    gzip of a large body). Returns the directory."""
    public = os.path.join(base, "public")
    shutil.copytree(PUBLIC, public)
    rng = random.Random(7)
    with open(os.path.join(public, "big.bin"), "wb") as f:
        f.write(rng.randbytes(4 * MIB))
    with open(os.path.join(public, "big.txt"), "wb") as f:
        f.write(b"".join(b"line %07d of a large text file for gzip over TLS\n" % i for i in range(MIB // 48))[:MIB])
    return public


def read(path):
    with open(path, "rb") as f:
        return f.read()


def der_fingerprint(pem_path):
    """SHA-256 of the certificate in a PEM file (as the server presents it, DER)."""
    return hashlib.sha256(ssl.PEM_cert_to_DER_cert(read(pem_path).decode())).hexdigest()


# MARK: - Clients


def client_context(ca=CERT, minimum=None, maximum=None, ciphers=None, alpn=None):
    """A verifying client context trusting `ca` (the self-signed test certificate), or not verifying when ca is None.
    `ciphers` is an OpenSSL cipher string (TLS 1.2 suites); `@SECLEVEL=0` in it lets the client offer weak ones."""
    if ca:
        context = ssl.create_default_context(cafile=ca)
    else:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if minimum:
        context.minimum_version = minimum
    if maximum:
        context.maximum_version = maximum
    if ciphers:
        context.set_ciphers(ciphers)
    if alpn:
        context.set_alpn_protocols(alpn)
    return context


def tls_connect(port, context=None, host=HOST, session=None):
    """A handshaken TLS socket to the server."""
    raw = socket.create_connection((host, port), timeout=TIMEOUT)
    try:
        return (context or client_context()).wrap_socket(raw, server_hostname=host, session=session)
    except BaseException:
        raw.close()
        raise


def https(port, context=None):
    return http.client.HTTPSConnection(HOST, port, timeout=TIMEOUT, context=context or client_context())


def get(port, path, headers=None, context=None):
    """One HTTPS GET on a new connection: (status, headers dict lower-cased, body)."""
    conn = https(port, context)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def peer_fingerprint(port):
    """SHA-256 of the certificate a new connection is given (no verification, so any certificate is seen)."""
    with tls_connect(port, client_context(ca=None)) as sock:
        return hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()


def run(command, stdin=b"", timeout=30):
    """Runs a command with a bound: (status, stdout + stderr as text)."""
    proc = subprocess.run(command, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return proc.returncode, proc.stdout.decode(errors="replace")


def s_client(port, *flags, stdin=b""):
    """`openssl s_client` to the server (closes at end of input): (status, output)."""
    return run([OPENSSL, "s_client", "-connect", "%s:%d" % (HOST, port), "-servername", "localhost"]
               + list(flags), stdin=stdin)


def curl(port, *args, path="/healthz", host="localhost"):
    return run([CURL, "-sS", "--max-time", "20", "--cacert", CERT] + list(args)
               + ["https://%s:%d%s" % (host, port, path)])


def client_hello():
    """The bytes of a real TLS ClientHello, made by Python's ssl into memory."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = client_context(ca=None).wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        tls.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


class MemoryTLS:
    """A TLS client whose records go through memory to a raw socket, so a test can send any part of one."""

    def __init__(self, port):
        self.sock = socket.create_connection((HOST, port), timeout=TIMEOUT)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = client_context().wrap_bio(self.incoming, self.outgoing, server_hostname=HOST)
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.flush()
                if time.monotonic() > deadline:
                    raise TimeoutError("handshake not done in %.0f s" % TIMEOUT)
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("server closed during the handshake")
                self.incoming.write(chunk)
        self.flush()

    def flush(self):
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def record(self, plaintext):
        """The TLS record(s) carrying `plaintext`, not sent."""
        self.tls.write(plaintext)
        return self.outgoing.read()

    def close(self):
        self.sock.close()


def wait_closed(sock, timeout):
    """Reads and drops bytes until the peer closes (EOF or reset): the seconds it took, or None after `timeout`."""
    start = time.monotonic()
    sock.setblocking(False)
    while True:
        left = timeout - (time.monotonic() - start)
        if left <= 0:
            return None
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            continue
        try:
            if not sock.recv(65536):
                return time.monotonic() - start
        except (ConnectionResetError, BrokenPipeError):
            return time.monotonic() - start
        except BlockingIOError:
            continue


def wss(port, path="/v1/stream", compression=None, context=None):
    """A `websockets` client over TLS. An opening handshake that times out is tried again (twice at most): the sync
    client reads the TLS socket in one thread while it writes the upgrade request in another, which Python's
    SSLSocket does not support (TLS 1.3 session tickets arrive meanwhile), and about one connection in 200 loses
    its request in the client; the server never sees it (blackbox/tls/README.md)."""
    for attempt in range(3):
        try:
            return ws_connect("wss://%s:%d%s" % (HOST, port, path), ssl=context or client_context(), proxy=None,
                              compression=compression, open_timeout=5, close_timeout=TIMEOUT, ping_interval=None,
                              max_size=None)
        except TimeoutError:
            if attempt == 2:
                raise


class LiveSession:
    """A /v1/stream session over WSS: start, poses, stop (PROTOCOL.md §3)."""

    def __init__(self, port, compression=None, context=None):
        self.ws = wss(port, compression=compression, context=context)
        self.sent = 0

    def send(self, message):
        self.ws.send(json.dumps(message))

    def recv(self):
        return json.loads(self.ws.recv(timeout=TIMEOUT))

    def start(self, **fields):
        self.send(dict({"type": "start", "exercise": "elbowFlexion", "side": "right"}, **fields))
        message = self.recv()
        if message.get("type") != "started":
            raise AssertionError("expected started, got %r" % message)
        return message

    def poses(self, frames, batch=False):
        """Sends frames and returns every message until the snapshot of the last one."""
        if batch:
            self.send({"type": "poses", "frames": frames})
        else:
            for frame in frames:
                self.send(dict({"type": "pose"}, **frame))
        self.sent += len(frames)
        last, messages = frames[-1]["t"], []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            message = self.recv()
            messages.append(message)
            if message.get("type") == "error":
                raise AssertionError("error from the server: %r" % message)
            if message.get("type") == "snapshot" and message.get("t") == last:
                return messages
        raise AssertionError("no snapshot for t=%r in 30 s" % last)

    def stop(self):
        """Sends stop: (summary, close code)."""
        self.send({"type": "stop"})
        summary = None
        try:
            while True:
                message = self.recv()
                if message.get("type") == "summary":
                    summary = message
        except ConnectionClosed:
            pass
        return summary, self.ws.close_code

    def close(self):
        self.ws.close()


# MARK: - Base classes


class AlarmTestCase(unittest.TestCase):
    def setUp(self):
        def on_alarm(signum, frame):
            raise TimeoutError("test exceeded %d s" % TEST_TIMEOUT)

        signal.signal(signal.SIGALRM, on_alarm)
        signal.alarm(TEST_TIMEOUT)

    def tearDown(self):
        signal.alarm(0)


class ServerTestCase(AlarmTestCase):
    """One TLS server per class (ecdsa.pem, `--ws-echo`, the public copy)."""

    FLAGS = ("--ws-echo",)
    CERT, KEY = CERT, KEY
    server = None

    @classmethod
    def setUpClass(cls):
        cls.base = tempfile.mkdtemp(prefix="motion-tls-public-")
        try:
            cls.public = make_public(cls.base)
            cls.server = Server(*cls.FLAGS, cert=cls.CERT, key=cls.KEY, public=cls.public)
        except BaseException:
            shutil.rmtree(cls.base, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            cls.server.stop()
            cls.server = None
        shutil.rmtree(cls.base, ignore_errors=True)

    @property
    def port(self):
        return self.server.port

    def assertServes(self, what=""):
        """A new HTTPS client gets /healthz, promptly, and the server is alive."""
        self.assertTrue(self.server.alive(), "the server died %s: %s" % (what, self.server.stderr_text()))
        start = time.monotonic()
        status, _, body = get(self.port, "/healthz")
        elapsed = time.monotonic() - start
        self.assertEqual((status, body), (200, b"ok"), what)
        self.assertLess(elapsed, 2.0, "a normal client waited %.1f s %s" % (elapsed, what))


# MARK: - HTTPS


class HTTPSTests(ServerTestCase):
    def test_ready_line_says_https(self):
        self.assertEqual(self.server.scheme, "https")

    def test_healthz(self):
        status, headers, body = get(self.port, "/healthz")
        self.assertEqual((status, body), (200, b"ok"))

    def test_healthz_verified_by_name_and_by_address(self):
        """The certificate names localhost and 127.0.0.1: both verify (http.client checks the host name)."""
        for host in ("localhost", HOST):
            conn = http.client.HTTPSConnection(host, self.port, timeout=TIMEOUT, context=client_context())
            try:
                conn.request("GET", "/healthz")
                self.assertEqual(conn.getresponse().read(), b"ok", host)
            finally:
                conn.close()

    def test_untrusted_certificate_is_rejected_by_a_verifying_client(self):
        """Sanity of the test's own verification: a client trusting another certificate refuses the server."""
        with self.assertRaises(ssl.SSLCertVerificationError):
            get(self.port, "/healthz", context=client_context(ca=CERT2))

    def test_exercises(self):
        status, headers, body = get(self.port, "/v1/exercises")
        self.assertEqual(status, 200)
        self.assertTrue(headers["content-type"].startswith("application/json"), headers)
        ids = [e["id"] for e in json.loads(body)["exercises"]]
        self.assertIn("elbowFlexion", ids)

    def test_static_file(self):
        status, headers, body = get(self.port, "/index.html")
        self.assertEqual(status, 200)
        self.assertEqual(body, read(os.path.join(self.public, "index.html")))
        self.assertTrue(headers["content-type"].startswith("text/html"), headers)

    def test_gzip_static_file_and_json(self):
        for path in ("/js/i18n.js", "/big.txt"):
            status, headers, body = get(self.port, path, headers={"Accept-Encoding": "gzip"})
            self.assertEqual(status, 200, path)
            self.assertEqual(headers.get("content-encoding"), "gzip", path)
            self.assertEqual(gzip.decompress(body), read(os.path.join(self.public, path[1:])), path)
        plain = json.loads(get(self.port, "/v1/exercises")[2])
        status, headers, body = get(self.port, "/v1/exercises", headers={"Accept-Encoding": "gzip"})
        self.assertEqual(headers.get("content-encoding"), "gzip")
        self.assertEqual(json.loads(gzip.decompress(body)), plain)

    def test_keep_alive_many_requests_on_one_connection(self):
        conn = https(self.port)
        try:
            paths = ["/healthz", "/v1/exercises", "/index.html", "/big.bin", "/healthz"] * 6
            sock = None
            for i, path in enumerate(paths):
                conn.request("GET", path)
                resp = conn.getresponse()
                body = resp.read()
                self.assertEqual(resp.status, 200, path)
                self.assertNotEqual(resp.getheader("Connection", "").lower(), "close", path)
                if path == "/big.bin":
                    self.assertEqual(len(body), 4 * MIB)
                if sock is None:
                    sock = conn.sock
                self.assertIs(conn.sock, sock, "request %d (%s) needed a new connection" % (i, path))
        finally:
            conn.close()

    def test_large_response(self):
        status, headers, body = get(self.port, "/big.bin")
        self.assertEqual(status, 200)
        self.assertEqual(int(headers["content-length"]), 4 * MIB)
        self.assertEqual(hashlib.sha256(body).hexdigest(),
                         hashlib.sha256(read(os.path.join(self.public, "big.bin"))).hexdigest())

    def test_large_response_read_slowly(self):
        """A client reading slowly makes the server's TLS writes block part-way through records; the body must
        still arrive whole and in order."""
        with tls_connect(self.port) as sock:
            sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            data = b""
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
                if len(data) < MIB:
                    time.sleep(0.0005)
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 200"), head[:100])
        self.assertEqual(body, read(os.path.join(self.public, "big.bin")))

    def test_post_analyze(self):
        frames = rep_frames(3)
        body = json.dumps({"exercise": "elbowFlexion", "side": "right", "subject": "tls-analyze", "frames": frames})
        conn = https(self.port)
        try:
            conn.request("POST", "/v1/analyze", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            answer = json.loads(resp.read())
            self.assertEqual(resp.status, 200, answer)
            self.assertEqual(answer["summary"]["repCount"], 3)
            self.assertEqual(answer["summary"]["frames"], len(frames))
            # the stored session, on the same connection
            conn.request("GET", "/v1/sessions/%s" % answer["summary"]["id"])
            resp = conn.getresponse()
            self.assertEqual((resp.status, json.loads(resp.read())["repCount"]), (200, 3))
        finally:
            conn.close()

    def test_post_large_body(self):
        """A request body of about 250 KB (many TLS records; /v1/analyze takes up to 1,000 frames) is read whole."""
        frames = rep_frames(10)
        body = json.dumps({"exercise": "elbowFlexion", "side": "right", "frames": frames}).encode()
        self.assertGreater(len(body), 200_000)
        conn = https(self.port)
        try:
            conn.request("POST", "/v1/analyze", body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            answer = json.loads(resp.read())
            self.assertEqual(resp.status, 200, answer)
            self.assertEqual(answer["summary"]["frames"], len(frames))
            self.assertEqual(answer["summary"]["repCount"], 10)
        finally:
            conn.close()

    def test_http_session_lifecycle(self):
        """POST /v1/sessions, poses, stop: an HTTP-only session over one keep-alive HTTPS connection."""
        conn = https(self.port)
        headers = {"Content-Type": "application/json"}
        try:
            conn.request("POST", "/v1/sessions", body=json.dumps({"exercise": "elbowFlexion", "side": "right"}),
                         headers=headers)
            resp = conn.getresponse()
            created = json.loads(resp.read())
            self.assertEqual(resp.status, 201, created)
            frames = rep_frames(2)
            conn.request("POST", "/v1/sessions/%s/poses" % created["id"], body=json.dumps({"frames": frames}),
                         headers=headers)
            resp = conn.getresponse()
            resp.read()
            self.assertEqual(resp.status, 200)
            conn.request("POST", "/v1/sessions/%s/stop" % created["id"], body=b"", headers=headers)
            resp = conn.getresponse()
            summary = json.loads(resp.read())
            self.assertEqual(resp.status, 200, summary)
            self.assertEqual((summary["repCount"], summary["frames"]), (2, len(frames)))
        finally:
            conn.close()

    def test_concurrent_clients(self):
        errors = []

        def one(index):
            try:
                for _ in range(5):
                    status, _, body = get(self.port, "/v1/exercises")
                    if status != 200 or b"elbowFlexion" not in body:
                        errors.append("client %d: %d" % (index, status))
            except Exception as error:  # reported below
                errors.append("client %d: %r" % (index, error))

        threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(errors, [])


@unittest.skipUnless(CURL, "curl is not installed")
class CurlTests(ServerTestCase):
    def test_healthz_by_name_and_address(self):
        for host in ("localhost", HOST):
            status, output = curl(self.port, "-w", " %{http_code} %{http_version}", host=host)
            self.assertEqual((status, output), (0, "ok 200 1.1"), host)

    def test_untrusted_without_cacert_fails(self):
        status, output = run([CURL, "-sS", "--max-time", "20", "https://localhost:%d/healthz" % self.port])
        self.assertEqual(status, 60, "curl must refuse a self-signed certificate it does not trust: " + output)

    def test_exercises_and_static_file(self):
        status, output = curl(self.port, path="/v1/exercises")
        self.assertEqual(status, 0, output)
        self.assertIn("elbowFlexion", [e["id"] for e in json.loads(output)["exercises"]])
        status, output = curl(self.port, path="/index.html")
        self.assertEqual(output, read(os.path.join(self.public, "index.html")).decode())

    def test_gzip(self):
        status, output = curl(self.port, "--compressed", "-D", "-", path="/js/i18n.js")
        self.assertEqual(status, 0, output)
        head, _, body = output.replace("\r\n", "\n").partition("\n\n")
        self.assertRegex(head, r"(?im)^content-encoding: gzip$")
        self.assertEqual(body, read(os.path.join(self.public, "js", "i18n.js")).decode())

    def test_keep_alive(self):
        """Several URLs in one curl run reuse one TLS connection."""
        url = "https://localhost:%d" % self.port
        status, output = run([CURL, "-sS", "-v", "--max-time", "20", "--cacert", CERT, url + "/healthz",
                              url + "/v1/exercises", url + "/index.html", url + "/healthz", "-o", "/dev/null",
                              "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null"])
        self.assertEqual(status, 0, output)
        self.assertEqual(len(re.findall(r"(?m)^\* Connected to", output)), 1, output[-3000:])
        self.assertEqual(len(re.findall(r"(?m)^\* Re-using existing connection", output)), 3, output[-3000:])
        self.assertEqual(len(re.findall(r"(?m)^< HTTP/1.1 200", output)), 4)

    def test_post_analyze(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json") as body:
            json.dump({"exercise": "elbowFlexion", "side": "right", "frames": rep_frames(3)}, body)
            body.flush()
            status, output = curl(self.port, "-H", "Content-Type: application/json", "--data-binary",
                                  "@" + body.name, path="/v1/analyze")
        self.assertEqual(status, 0, output)
        self.assertEqual(json.loads(output)["summary"]["repCount"], 3)

    def test_large_response(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "big.bin")
            status, output = curl(self.port, "-o", out, path="/big.bin")
            self.assertEqual(status, 0, output)
            self.assertEqual(read(out), read(os.path.join(self.public, "big.bin")))


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


# MARK: - Versions, ciphers, compression


def handshake_error(port, context):
    """None when the handshake succeeds, else the SSLError's text."""
    try:
        with tls_connect(port, context):
            return None
    except ssl.SSLError as error:
        return str(error)


class VersionTests(ServerTestCase):
    FLAGS = ()

    def test_tls_1_0_and_1_1_refused_python(self):
        for version in (ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # the point is to offer them
                context = client_context(minimum=version, maximum=version, ciphers="DEFAULT@SECLEVEL=0")
            error = handshake_error(self.port, context)
            self.assertIsNotNone(error, "%s was accepted" % version)
            self.assertIn("PROTOCOL_VERSION", error.upper(), "expected the server's protocol_version alert")

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_tls_1_0_and_1_1_refused_s_client(self):
        for flag in ("-tls1", "-tls1_1"):
            status, output = s_client(self.port, flag, "-cipher", "DEFAULT@SECLEVEL=0")
            self.assertNotEqual(status, 0, output)
            self.assertIn("alert protocol version", output, flag)
            self.assertIn("Cipher is (NONE)", output, flag)

    def test_tls_1_2_and_1_3_accepted(self):
        for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            with tls_connect(self.port, client_context(minimum=version, maximum=version)) as sock:
                self.assertEqual(sock.version(), version.name.replace("_", "."))
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                self.assertTrue(sock.recv(100).startswith(b"HTTP/1.1 200"))

    def test_default_client_gets_tls_1_3(self):
        with tls_connect(self.port) as sock:
            self.assertEqual(sock.version(), "TLSv1.3")

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_tls_1_2_and_1_3_accepted_s_client(self):
        for flag, name in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
            status, output = s_client(self.port, flag, "-CAfile", CERT)
            self.assertEqual(status, 0, output)
            self.assertIn("New, %s, Cipher is " % name, output)
            self.assertIn("Verify return code: 0 (ok)", output)

    def test_tls_1_2_negotiates_ecdhe_aead(self):
        context = client_context(maximum=ssl.TLSVersion.TLSv1_2, ciphers="ALL:@SECLEVEL=0")
        with tls_connect(self.port, context) as sock:
            name, version, _ = sock.cipher()
            self.assertEqual(version, "TLSv1.2")
            self.assertRegex(name, r"^ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$")

    def test_each_offered_aead_suite_works(self):
        for suite in ("ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384",
                      "ECDHE-ECDSA-CHACHA20-POLY1305"):
            context = client_context(maximum=ssl.TLSVersion.TLSv1_2, ciphers=suite)
            with tls_connect(self.port, context) as sock:
                self.assertEqual(sock.cipher()[0], suite)

    def test_weak_tls_1_2_suites_refused(self):
        """CBC (with SHA-1 or SHA-2 MACs), RSA key exchange, DHE, 3DES, RC4, NULL: the client offers only that
        suite (at security level 0, so it really offers it) and the server refuses the handshake."""
        for suite in ("AES128-SHA", "AES256-SHA256", "ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384",
                      "ECDHE-ECDSA-AES128-SHA256", "AES128-GCM-SHA256", "AES256-GCM-SHA384",
                      "DHE-RSA-AES128-GCM-SHA256", "DES-CBC3-SHA", "ECDHE-ECDSA-NULL-SHA"):
            try:
                context = client_context(maximum=ssl.TLSVersion.TLSv1_2, ciphers=suite + ":@SECLEVEL=0")
            except ssl.SSLError:
                continue  # this OpenSSL cannot even offer it
            error = handshake_error(self.port, context)
            self.assertIsNotNone(error, "%s was accepted" % suite)
            self.assertIn("HANDSHAKE_FAILURE", error.upper(), "%s: expected the server's alert: %s" % (suite, error))

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_weak_suites_refused_s_client(self):
        for suite in ("AES128-SHA", "AES128-GCM-SHA256", "ECDHE-ECDSA-AES128-SHA", "DHE-RSA-AES128-GCM-SHA256"):
            status, output = s_client(self.port, "-tls1_2", "-cipher", suite + ":@SECLEVEL=0")
            self.assertNotEqual(status, 0, output)
            self.assertIn("alert handshake failure", output, suite)

    def test_no_compression(self):
        for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            with tls_connect(self.port, client_context(maximum=version)) as sock:
                self.assertIsNone(sock.compression())

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_no_compression_and_no_renegotiation_s_client(self):
        status, output = s_client(self.port, "-tls1_2", "-CAfile", CERT)
        self.assertEqual(status, 0, output)
        self.assertIn("Compression: NONE", output)
        self.assertIn("Secure Renegotiation IS supported", output)  # RFC 5746 signalled, though refused

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_client_renegotiation_refused(self):
        """`R` asks s_client to renegotiate (TLS 1.2): the server must not do it (no renegotiation)."""
        proc = subprocess.Popen([OPENSSL, "s_client", "-connect", "%s:%d" % (HOST, self.port), "-tls1_2",
                                 "-CAfile", CERT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        try:
            time.sleep(0.5)
            proc.stdin.write(b"R\n")
            proc.stdin.flush()
            time.sleep(1.0)
            try:
                proc.stdin.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                proc.stdin.flush()
            except BrokenPipeError:
                pass  # s_client already quit on the server's no_renegotiation alert
            output, _ = proc.communicate(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        text = output.decode(errors="replace")
        self.assertIn("RENEGOTIATING", text)
        self.assertIn("no renegotiation", text)
        self.assertNotIn("HTTP/1.1 200", text.split("RENEGOTIATING", 1)[1],
                         "the server renegotiated and went on answering")
        self.assertServes("after a renegotiation attempt")


class RSACertificateTests(ServerTestCase):
    """With an RSA certificate, RSA key exchange and DHE are possible in principle: the server must still refuse
    them and pick ECDHE-RSA with an AEAD."""

    FLAGS = ()
    CERT, KEY = RSA_CERT, RSA_KEY

    def test_tls_1_2_negotiates_ecdhe_rsa_aead(self):
        context = client_context(ca=RSA_CERT, maximum=ssl.TLSVersion.TLSv1_2, ciphers="ALL:@SECLEVEL=0")
        with tls_connect(self.port, context) as sock:
            self.assertRegex(sock.cipher()[0], r"^ECDHE-RSA-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$")

    def test_tls_1_3(self):
        with tls_connect(self.port, client_context(ca=RSA_CERT)) as sock:
            self.assertEqual(sock.version(), "TLSv1.3")

    def test_rsa_key_exchange_dhe_and_cbc_refused(self):
        for suite in ("AES128-GCM-SHA256", "AES256-GCM-SHA384", "AES128-SHA", "AES256-SHA256",
                      "DHE-RSA-AES128-GCM-SHA256", "DHE-RSA-AES256-GCM-SHA384", "DHE-RSA-CHACHA20-POLY1305",
                      "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384"):
            context = client_context(ca=RSA_CERT, maximum=ssl.TLSVersion.TLSv1_2, ciphers=suite + ":@SECLEVEL=0")
            error = handshake_error(self.port, context)
            self.assertIsNotNone(error, "%s was accepted" % suite)
            self.assertIn("HANDSHAKE_FAILURE", error.upper(), "%s: %s" % (suite, error))


# MARK: - ALPN


class ALPNTests(ServerTestCase):
    FLAGS = ()

    def test_http11_selected_when_offered(self):
        for offer in (["http/1.1"], ["h2", "http/1.1"], ["http/1.1", "h2"]):
            with tls_connect(self.port, client_context(alpn=offer)) as sock:
                self.assertEqual(sock.selected_alpn_protocol(), "http/1.1", offer)

    def test_no_alpn_offered_still_works(self):
        with tls_connect(self.port) as sock:
            self.assertIsNone(sock.selected_alpn_protocol())
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            self.assertTrue(sock.recv(100).startswith(b"HTTP/1.1 200"))

    def test_only_h2_gets_no_application_protocol(self):
        for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            error = handshake_error(self.port, client_context(alpn=["h2"], maximum=version))
            self.assertIsNotNone(error, "a client offering only h2 was accepted (%s)" % version)
            self.assertIn("NO APPLICATION PROTOCOL", error.upper().replace("_", " "), error)

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_alpn_s_client(self):
        status, output = s_client(self.port, "-alpn", "h2,http/1.1", "-CAfile", CERT)
        self.assertEqual(status, 0, output)
        self.assertIn("ALPN protocol: http/1.1", output)
        status, output = s_client(self.port, "-alpn", "h2")
        self.assertNotEqual(status, 0, output)
        self.assertIn("no application protocol", output)

    @unittest.skipUnless(CURL, "curl is not installed")
    def test_curl_offering_h2_gets_http11(self):
        status, output = curl(self.port, "--http2", "-w", " %{http_version}")
        self.assertEqual((status, output), (0, "ok 1.1"))


# MARK: - Resumption


class ResumptionTests(ServerTestCase):
    FLAGS = ()

    def resume(self, version):
        context = client_context(maximum=version, minimum=version)
        with tls_connect(self.port, context) as first:
            self.assertFalse(first.session_reused)
            # TLS 1.3 tickets come after the handshake: a request and its answer carry them in.
            first.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            first.recv(1000)
            session = first.session
        self.assertIsNotNone(session)
        with tls_connect(self.port, context, session=session) as second:
            self.assertTrue(second.session_reused, "%s: the second connection did not resume" % version)
            second.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            self.assertTrue(second.recv(1000).startswith(b"HTTP/1.1 200"))

    def test_tls_1_3_resumes(self):
        self.resume(ssl.TLSVersion.TLSv1_3)

    def test_tls_1_2_resumes(self):
        self.resume(ssl.TLSVersion.TLSv1_2)

    @unittest.skipUnless(OPENSSL, "openssl is not installed")
    def test_s_client_sess_out_sess_in(self):
        request = b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        for flag in ("-tls1_3", "-tls1_2"):
            with tempfile.TemporaryDirectory() as tmp:
                session = os.path.join(tmp, "session.pem")
                status, output = s_client(self.port, flag, "-CAfile", CERT, "-ign_eof", "-sess_out", session,
                                          stdin=request)
                self.assertEqual(status, 0, output)
                self.assertIn("New, TLSv1.", output)
                self.assertTrue(os.path.getsize(session) > 0, flag)
                status, output = s_client(self.port, flag, "-CAfile", CERT, "-ign_eof", "-sess_in", session,
                                          stdin=request)
                self.assertEqual(status, 0, output)
                self.assertIn("Reused, TLSv1.", output, flag)
                self.assertIn("HTTP/1.1 200", output)


# MARK: - Bad input on the TLS port


class BadInputTests(ServerTestCase):
    FLAGS = ()

    def test_plain_http_gets_a_plain_400_saying_so_then_close(self):
        with socket.create_connection((HOST, self.port), timeout=TIMEOUT) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            start, data = time.monotonic(), b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            elapsed = time.monotonic() - start
        head, _, body = data.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"HTTP/1.1 400 "), data[:200])
        self.assertRegex(head.decode(), r"(?im)^connection: close\r?$")
        self.assertIn(b"HTTPS", body)
        self.assertEqual(json.loads(body)["error"]["code"], "plainHTTPOnTLSPort")
        self.assertLess(elapsed, 3.0, "the server kept the connection %.1f s after answering" % elapsed)
        self.assertServes("after plain HTTP")

    @unittest.skipUnless(CURL, "curl is not installed")
    def test_curl_plain_http_to_tls_port(self):
        status, output = run([CURL, "-sS", "--max-time", "10", "-w", " %{http_code}",
                              "http://%s:%d/v1/exercises" % (HOST, self.port)])
        self.assertEqual(status, 0, output)
        self.assertTrue(output.endswith(" 400"), output)
        self.assertIn("HTTPS", output)

    def test_plain_http_post_with_body_and_more_requests(self):
        """A plain request with a body and a pipelined second one: still one 400, then the close (the rest of the
        input is drained, so the answer is not lost to a reset)."""
        with socket.create_connection((HOST, self.port), timeout=TIMEOUT) as sock:
            body = b"x" * 20000
            sock.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s"
                         b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" % (len(body), body))
            data = b""
            try:
                while True:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except ConnectionResetError:
                pass
        self.assertTrue(data.startswith(b"HTTP/1.1 400 "), data[:200])
        self.assertEqual(data.count(b"HTTP/1.1 "), 1)

    def test_garbage_instead_of_client_hello_closes_promptly(self):
        rng = random.Random(3)
        for garbage in (b"\x00" * 64, b"\xff\xfe garbage" * 50, rng.randbytes(4096),
                        b"\x16\x03\x01\xff\xff" + rng.randbytes(1000),  # a handshake record header, then noise
                        b"\x16\x03\x01\x00\x05\x01\x00\x00\x01\x00",  # a tiny, malformed ClientHello
                        b"ssh-2.0-client\r\n"):
            with socket.create_connection((HOST, self.port), timeout=TIMEOUT) as sock:
                sock.sendall(garbage)
                elapsed = wait_closed(sock, 5)
                self.assertIsNotNone(elapsed, "not closed within 5 s after %r" % garbage[:16])
                self.assertLess(elapsed, 2.0, "closed only after %.1f s for %r" % (elapsed, garbage[:16]))
        self.assertServes("after garbage")

    def test_client_hello_then_eof_closes(self):
        with socket.create_connection((HOST, self.port), timeout=TIMEOUT) as sock:
            hello = client_hello()
            sock.sendall(hello[: len(hello) // 2])
            sock.shutdown(socket.SHUT_WR)
            elapsed = wait_closed(sock, 5)
            self.assertIsNotNone(elapsed, "a half ClientHello and EOF: not closed in 5 s")
        self.assertServes()

    def test_connect_and_close_at_once(self):
        for _ in range(50):
            sock = socket.create_connection((HOST, self.port), timeout=TIMEOUT)
            sock.close()
        self.assertServes("after 50 empty connections")

    def test_memory_tls_sanity(self):
        """The byte-level client the truncation tests use works when the record is whole."""
        client = MemoryTLS(self.port)
        try:
            client.sock.sendall(client.record(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            data = b""
            while True:
                chunk = client.sock.recv(65536)
                if not chunk:
                    break
                client.incoming.write(chunk)
                try:
                    while True:
                        plain = client.tls.read(65536)
                        if not plain:
                            break
                        data += plain
                except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                    pass
            self.assertTrue(data.startswith(b"HTTP/1.1 200"), data[:100])
        finally:
            client.close()

    def test_truncated_record_then_eof_closes(self):
        client = MemoryTLS(self.port)
        try:
            record = client.record(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            client.sock.sendall(record[: len(record) // 2])
            client.sock.shutdown(socket.SHUT_WR)
            elapsed = wait_closed(client.sock, 5)
            self.assertIsNotNone(elapsed, "a truncated record then EOF: not closed in 5 s")
        finally:
            client.close()
        self.assertServes("after a truncated record")

    def test_corrupted_record_closes(self):
        client = MemoryTLS(self.port)
        try:
            record = bytearray(client.record(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"))
            record[-5] ^= 0xFF  # the authentication tag no longer matches
            client.sock.sendall(bytes(record))
            elapsed = wait_closed(client.sock, 5)
            self.assertIsNotNone(elapsed, "a record failing authentication: not closed in 5 s")
            self.assertLess(elapsed, 2.0)
        finally:
            client.close()
        self.assertServes("after a corrupted record")

    def test_stalls_are_closed_within_the_head_timeout_and_others_are_served(self):
        """Three stalls at once: a connection that sends nothing, half a ClientHello, and a ClientHello trickled
        one byte a second. Each is closed about HEAD_TIMEOUT after it connected (and not much before); meanwhile
        new clients are served at once."""
        hello = client_hello()
        silent = socket.create_connection((HOST, self.port), timeout=TIMEOUT)
        half = socket.create_connection((HOST, self.port), timeout=TIMEOUT)
        half.sendall(hello[: len(hello) // 2])
        trickle = socket.create_connection((HOST, self.port), timeout=TIMEOUT)
        start = time.monotonic()
        stalls = {"silent": silent, "half ClientHello": half, "trickled ClientHello": trickle}
        closed = {}
        trickled = 0
        try:
            for sock in stalls.values():
                sock.setblocking(False)
            served = []
            while len(closed) < len(stalls) and time.monotonic() - start < HEAD_TIMEOUT + 8:
                if trickled < len(hello) and time.monotonic() - start >= trickled * 1.0:
                    try:
                        trickle.send(hello[trickled:trickled + 1])
                        trickled += 1
                    except OSError:
                        trickled = len(hello)
                open_ones = [s for name, s in stalls.items() if name not in closed]
                ready, _, _ = select.select(open_ones, [], [], 0.1)
                for sock in ready:
                    name = next(n for n, s in stalls.items() if s is sock)
                    try:
                        if sock.recv(65536):
                            continue
                    except BlockingIOError:
                        continue
                    except (ConnectionResetError, BrokenPipeError):
                        pass
                    closed[name] = time.monotonic() - start
                if len(served) < 5 and time.monotonic() - start > len(served) * 1.5:
                    t0 = time.monotonic()
                    status = get(self.port, "/healthz")[0]
                    served.append((status, time.monotonic() - t0))
        finally:
            for sock in stalls.values():
                sock.close()
        self.assertEqual(set(closed), set(stalls), "never closed within %.0f s: %s (closed: %s)"
                         % (HEAD_TIMEOUT + 8, set(stalls) - set(closed), closed))
        for name, elapsed in closed.items():
            self.assertGreater(elapsed, HEAD_TIMEOUT - 1.5, "%s closed early, after %.1f s" % (name, elapsed))
            self.assertLess(elapsed, HEAD_TIMEOUT + 3, "%s closed after %.1f s" % (name, elapsed))
        self.assertEqual([s for s, _ in served], [200] * len(served))
        self.assertGreaterEqual(len(served), 5)
        self.assertLess(max(t for _, t in served), 2.0, "clients waited while stalls were open: %s" % served)

    def test_truncated_record_that_stalls_is_closed_within_the_head_timeout(self):
        """Issue 16: "a truncated record closes that connection within the header timeout": part of a record after
        the handshake starts a request, so the head timeout (10 s) applies, not the idle one (60 s).
        test_truncated_record_then_eof_closes covers the client that closes."""
        client = MemoryTLS(self.port)
        try:
            record = client.record(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            client.sock.sendall(record[: len(record) // 2])
            elapsed = wait_closed(client.sock, HEAD_TIMEOUT + 3)
            self.assertIsNotNone(elapsed, "half a record after the handshake: not closed within %.0f s"
                                 % (HEAD_TIMEOUT + 3))
        finally:
            client.close()

    def test_many_stalled_handshakes_do_not_stop_a_normal_client(self):
        hello = client_hello()
        stalled = []
        try:
            for i in range(300):
                sock = socket.create_connection((HOST, self.port), timeout=TIMEOUT)
                stalled.append(sock)
                if i % 2:
                    sock.sendall(hello[: len(hello) // 2])
            for _ in range(5):
                self.assertServes("with 300 stalled handshakes open")
            with wss(self.port, "/v1/stream") as ws:
                ws.send(json.dumps({"type": "start", "exercise": "squat"}))
                self.assertEqual(json.loads(ws.recv(timeout=TIMEOUT))["type"], "started")
        finally:
            for sock in stalled:
                sock.close()
        self.assertServes("after 300 stalled handshakes")


# MARK: - Start-up errors


class StartupErrorTests(AlarmTestCase):
    """A bad certificate or key stops the start: exit 1 (2 for a usage error) within seconds, with one clear line
    on stderr naming the file and what is wrong."""

    def start(self, *flags):
        with tempfile.TemporaryDirectory(prefix="motion-tls-start-") as tmp:
            args = [BINARY, "--host", HOST, "--port", "0", "--database", os.path.join(tmp, "motion.sqlite")]
            start = time.monotonic()
            proc = subprocess.run(args + list(flags), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=20)
            elapsed = time.monotonic() - start
        self.assertLess(elapsed, 10, "took %.1f s to give up" % elapsed)
        self.assertNotIn(b"listening on", proc.stdout)
        return proc.returncode, proc.stderr.decode(errors="replace")

    def assertFails(self, cert, key, *expected):
        status, stderr = self.start("--tls-cert", cert, "--tls-key", key)
        self.assertEqual(status, 1, stderr)
        lines = stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, "expected one line on stderr, got %r" % stderr)
        for text in expected:
            self.assertIn(text, lines[0])
        return lines[0]

    def test_missing_certificate_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing.pem")
            line = self.assertFails(missing, KEY, missing, "No such file or directory")
            self.assertIn("cannot read", line)

    def test_missing_key_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing.key")
            self.assertFails(CERT, missing, missing, "No such file or directory")

    def test_certificate_is_a_directory(self):
        self.assertFails(FIXTURES, KEY, FIXTURES, "not a regular file")

    @unittest.skipIf(os.geteuid() == 0, "root reads files whatever their mode")
    def test_unreadable_certificate(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cert.pem")
            shutil.copy(CERT, path)
            os.chmod(path, 0)
            self.assertFails(path, KEY, path, "Permission denied")

    def test_garbage_certificate(self):
        self.assertFails(fixture("garbage.pem"), KEY, fixture("garbage.pem"), "not a PEM certificate")

    def test_garbage_key(self):
        self.assertFails(CERT, fixture("garbage.pem"), fixture("garbage.pem"), "not an unencrypted PEM private key")

    def test_expired_certificate(self):
        self.assertFails(fixture("expired.pem"), KEY, fixture("expired.pem"), "expired on 2021-01-01")

    def test_not_yet_valid_certificate(self):
        self.assertFails(fixture("future.pem"), KEY, fixture("future.pem"), "not valid before 2200-01-01")

    def test_mismatched_key(self):
        self.assertFails(CERT, KEY2, CERT, KEY2, "does not belong to the certificate")

    def test_encrypted_key(self):
        self.assertFails(CERT, fixture("encrypted.key"), fixture("encrypted.key"),
                         "not an unencrypted PEM private key")

    def test_key_given_as_certificate(self):
        self.assertFails(KEY, KEY, KEY, "not a PEM certificate")

    def test_only_one_of_the_flags(self):
        for flags in (("--tls-cert", CERT), ("--tls-key", KEY)):
            status, stderr = self.start(*flags)
            self.assertEqual(status, 2, stderr)
            self.assertEqual(stderr.splitlines()[0], "--tls-cert and --tls-key go together", flags)

    def test_flags_from_the_environment(self):
        """MOTION_TLS_CERT/MOTION_TLS_KEY as the flags: a bad one fails the same way."""
        env = dict(os.environ, MOTION_TLS_CERT=fixture("expired.pem"), MOTION_TLS_KEY=KEY)
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run([BINARY, "--host", HOST, "--port", "0", "--database",
                                   os.path.join(tmp, "motion.sqlite")], env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=20)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(b"expired", proc.stderr)


# MARK: - SIGHUP reload


class ReloadTests(AlarmTestCase):
    """The certificate and key are copied into a temporary directory the flags point to; a test replaces them and
    sends SIGHUP."""

    def setUp(self):
        super().setUp()
        self.dir = tempfile.mkdtemp(prefix="motion-tls-reload-")
        self.cert, self.key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
        self.install(CERT, KEY)
        self.server = Server("--ws-echo", cert=self.cert, key=self.key)

    def tearDown(self):
        try:
            self.server.stop()
            shutil.rmtree(self.dir, ignore_errors=True)
        finally:
            super().tearDown()

    def install(self, cert, key):
        """Replaces the files the flags name (each by rename, as a deployment tool would)."""
        for source, target in ((cert, self.cert), (key, self.key)):
            shutil.copy(source, target + ".new")
            os.replace(target + ".new", target)

    def hangup(self):
        self.server.proc.send_signal(signal.SIGHUP)

    def wait_fingerprint(self, expected, seconds=5):
        deadline = time.monotonic() + seconds
        seen = None
        while time.monotonic() < deadline:
            seen = peer_fingerprint(self.server.port)
            if seen == expected:
                return seen
            time.sleep(0.05)
        return seen

    def wait_log(self, text, seconds=5):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if text in self.server.stderr_all():
                return True
            time.sleep(0.05)
        return False

    def test_reload_while_a_wss_session_streams(self):
        port = self.server.port
        first, second = der_fingerprint(CERT), der_fingerprint(CERT2)
        self.assertEqual(peer_fingerprint(port), first)
        session = LiveSession(port, compression="deflate")
        try:
            started = session.start(subject="tls-reload")
            frames = rep_frames(4)
            quarter = len(frames) // 4
            session.poses(frames[:quarter])

            self.install(CERT2, KEY2)
            self.hangup()
            self.assertEqual(self.wait_fingerprint(second), second, "new connections must get ecdsa2 after SIGHUP")
            self.assertTrue(self.wait_log("TLS certificate reloaded"), self.server.stderr_text())
            # the open session goes on, on its old TLS session
            session.poses(frames[quarter:2 * quarter])
            # a new verifying client trusting only the new certificate
            status, _, body = get(port, "/healthz", context=client_context(ca=CERT2))
            self.assertEqual((status, body), (200, b"ok"))
            with self.assertRaises(ssl.SSLCertVerificationError):
                get(port, "/healthz", context=client_context(ca=CERT))
            with wss(port, "/v1/echo", context=client_context(ca=CERT2)) as ws:
                ws.send("after reload")
                self.assertEqual(ws.recv(timeout=TIMEOUT), "after reload")

            # a broken certificate: the reload fails, the previous one stays in force
            with open(self.cert, "wb") as f:
                f.write(read(fixture("garbage.pem")))
            self.hangup()
            self.assertTrue(self.wait_log("TLS reload failed"), self.server.stderr_text())
            self.assertIn(self.cert, self.server.stderr_all().split("TLS reload failed", 1)[1])
            self.assertEqual(peer_fingerprint(port), second)
            session.poses(frames[2 * quarter:3 * quarter])

            # a mismatched pair: refused as well
            self.install(CERT, KEY2)
            self.hangup()
            deadline = time.monotonic() + 5
            while self.server.stderr_all().count("TLS reload failed") < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertEqual(self.server.stderr_all().count("TLS reload failed"), 2, self.server.stderr_text())
            self.assertEqual(peer_fingerprint(port), second)
            self.assertEqual(get(port, "/healthz", context=client_context(ca=CERT2))[0], 200)

            session.poses(frames[3 * quarter:])
            summary, code = session.stop()
            self.assertEqual(code, 1000)
            self.assertIsNotNone(summary, "the session opened before the reloads must end with its summary")
            self.assertEqual(summary["id"], started["session"])
            self.assertEqual((summary["status"], summary["repCount"], summary["frames"]), ("finished", 4, len(frames)))
        finally:
            session.close()
        self.assertTrue(self.server.alive())

    def test_sessions_issued_before_a_reload_still_resume(self):
        """TLSContext.reload keeps the ticket keys: a TLS 1.3 session from before SIGHUP resumes after it."""
        port = self.server.port
        context = client_context(ca=None)
        with tls_connect(port, context) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.recv(1000)
            session = sock.session
        self.install(CERT2, KEY2)
        self.hangup()
        second = der_fingerprint(CERT2)
        self.assertEqual(self.wait_fingerprint(second), second)
        with tls_connect(port, context, session=session) as sock:
            self.assertTrue(sock.session_reused, "a ticket issued before the reload did not resume")

    def test_reload_back_and_forth(self):
        port = self.server.port
        for cert, key in ((CERT2, KEY2), (CERT, KEY), (CERT2, KEY2)):
            self.install(cert, key)
            self.hangup()
            expected = der_fingerprint(cert)
            self.assertEqual(self.wait_fingerprint(expected), expected)
            self.assertEqual(get(port, "/healthz", context=client_context(ca=cert))[0], 200)


# MARK: - Without TLS


class PlainHTTPTests(AlarmTestCase):
    def test_plain_http_without_tls_flags(self):
        server = Server(cert=None, key=None)
        try:
            self.assertEqual(server.scheme, "http")
            conn = http.client.HTTPConnection(HOST, server.port, timeout=TIMEOUT)
            try:
                conn.request("GET", "/healthz")
                self.assertEqual(conn.getresponse().read(), b"ok")
            finally:
                conn.close()
            # a TLS client gets no handshake from a plain server
            with self.assertRaises((ssl.SSLError, ConnectionError, OSError)):
                with tls_connect(server.port):
                    pass
            self.assertTrue(server.alive())
        finally:
            server.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
