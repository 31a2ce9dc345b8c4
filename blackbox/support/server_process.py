"""A server under test as a subprocess: started on port 0, its port read from its `listening on http://HOST:PORT`
line (`https://` for a server speaking TLS; `scheme` says which), its stderr kept for failure messages, and always
ended by `stop()` (SIGTERM, then SIGKILL after 5 s).

Shared by the black-box suites (blackbox/http, blackbox/websocket); import after adding this directory to sys.path.

With MOTION_TEST_TLS=1 in the environment those suites run over TLS: they start their server with `tls_flags()`
(the test certificate of Tests/HTTPServerTests/Fixtures/tls) and connect with `tls_client_context()`, which
trusts it; `require_tls(server)` skips a suite whose server did not come up speaking TLS.
"""

import os
import resource
import select
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import unittest

TLS = os.environ.get("MOTION_TEST_TLS") == "1"
_FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                         "Tests", "HTTPServerTests", "Fixtures", "tls")
TLS_CERT = os.path.join(_FIXTURES, "ecdsa.pem")  # self-signed for localhost, 127.0.0.1 and ::1: also the CA file
TLS_KEY = os.path.join(_FIXTURES, "ecdsa.key")


def tls_flags():
    """The server flags for the TLS run (none without MOTION_TEST_TLS=1)."""
    return ["--tls-cert", TLS_CERT, "--tls-key", TLS_KEY] if TLS else []


def tls_client_context():
    """A client context that verifies the server against the test certificate."""
    return ssl.create_default_context(cafile=TLS_CERT)


def connect(host, port, timeout):
    """A connected client socket: TLS (handshake done) in the TLS run, plain TCP otherwise."""
    sock = socket.create_connection((host, port), timeout=timeout)
    if not TLS:
        return sock
    try:
        return tls_client_context().wrap_socket(sock, server_hostname=host)
    except BaseException:
        sock.close()
        raise


def require_tls(server):
    """In the TLS run, stops `server` and skips when it came up without TLS (a binary without --tls-cert)."""
    if TLS and server.scheme != "https":
        server.stop()
        raise unittest.SkipTest("MOTION_TEST_TLS=1 but %s printed an http:// ready line: it does not take "
                                "--tls-cert/--tls-key" % os.path.basename(server.proc.args[0]))


class ServerProcess:
    """One server subprocess, started with `args` (which must make it listen on a free port and print the line)."""

    def __init__(self, args, host="127.0.0.1", nofile=None):
        """`nofile`, when given, is the child's RLIMIT_NOFILE (soft and hard), set before it runs."""
        if not os.access(args[0], os.X_OK):
            raise RuntimeError("%s not found or not executable: build it first" % args[0])
        self.host = host
        self.scheme = "http"
        self.log = tempfile.TemporaryFile()
        limit = None if nofile is None else (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile)))
        self.proc = subprocess.Popen(list(args), stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL,
                                     preexec_fn=limit)
        try:
            self.port = self._read_port()
        except BaseException:
            self.stop()
            raise

    def _read_port(self):
        deadline = time.monotonic() + 15
        line = b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                raise RuntimeError("server did not print 'listening on' within 15 s")
            byte = os.read(self.proc.stdout.fileno(), 1)
            if not byte:
                raise RuntimeError("server exited before listening: %r" % self.stderr_text())
            line += byte
        text = line.decode().strip()
        if text.startswith("listening on https://"):
            self.scheme = "https"
        elif not text.startswith("listening on http://"):
            raise RuntimeError("unexpected first line: %r" % text)
        return int(text.rsplit(":", 1)[1])

    def stderr_text(self):
        """The last 2,000 characters the server wrote to stderr."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def alive(self):
        return self.proc.poll() is None

    def terminate(self):
        """Sends SIGTERM (the server drains) without waiting."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout):
        """The exit status, or None if the server is still running after `timeout` seconds."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()

    def cpu_seconds(self):
        """User + system CPU time of the process so far."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def url(self, path):
        return "%s://%s:%d%s" % (self.scheme, self.host, self.port, path)
