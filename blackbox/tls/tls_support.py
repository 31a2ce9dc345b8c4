"""Shared by the black-box tests of motion-server over TLS (`--tls-cert`/`--tls-key`): HTTPS and WSS with
independent clients (Python `ssl`, `http.client` and `websockets`; the `openssl s_client` and `curl` commands),
protocol versions and ciphers, ALPN, session resumption, bad input on the TLS port, start-up errors, and SIGHUP
certificate reload.

Run:  swift build --product motion-server
      .venv/bin/python -m unittest discover -v -s blackbox/tls -p 'test_tls_*.py'
Set MOTION_SERVER_BIN=/path/to/motion-server to test another build (MOTION_SERVER is honoured too). See README.md
beside this file.

The tests are the test_tls_*.py modules beside this file, by subject; this module holds what they share:
the server, the clients, the base classes.

Every server listens on 127.0.0.1, port 0, with its own temporary database, and is stopped (SIGTERM, then SIGKILL)
by its TestCase. Every socket and subprocess has a timeout and every test an alarm, so the suite cannot hang.
"""

import hashlib
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


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
import alarm  # noqa: E402  (after the path it lives on)
import motion_server  # noqa: E402

BINARY = motion_server.BINARY  # MOTION_SERVER_BIN, else MOTION_SERVER, else the debug build

try:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect as ws_connect
except ImportError:
    raise ImportError("the Python package 'websockets' is missing; `make deps` installs it into .venv "
                      "(run the suite with .venv/bin/python)") from None
from motion_client import rep_frames  # noqa: E402  (blackbox/server: simulated elbow-flexion poses)


# MARK: - Server process


class Server(motion_server.MotionServer):
    """One motion-server on a free port with a temporary database; with TLS from `cert`/`key` unless both are None.
    `public` is the directory served (default: a copy of Public/ with big files added, see `make_public`)."""

    def __init__(self, *flags, cert=CERT, key=KEY, public=None):
        tls = (["--tls-cert", cert] if cert else []) + (["--tls-key", key] if key else [])
        super().__init__(*tls, *flags, prefix="motion-tls-", public=public, log_level="info")


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
    """A /v1/stream session over WSS: start, poses, stop (docs/protocol.md §3)."""

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


class AlarmTestCase(alarm.AlarmTestCase):
    """Every test under an alarm of TEST_TIMEOUT seconds."""

    TEST_TIMEOUT = TEST_TIMEOUT


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
