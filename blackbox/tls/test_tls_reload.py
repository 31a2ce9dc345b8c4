"""SIGHUP reload of the certificate and key, while sessions stream, and resumption across it."""

import os
import shutil
import signal
import ssl
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_support import (  # noqa: E402
    AlarmTestCase, CERT, CERT2, client_context, der_fingerprint, fixture, get, KEY, KEY2, LiveSession,
    peer_fingerprint, read, rep_frames, Server, TIMEOUT, tls_connect, wss,
)


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
