"""Start-up errors (a bad certificate or key stops the start with one clear line), and a server without TLS."""

import http.client
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_support import (  # noqa: E402
    AlarmTestCase, BINARY, CERT, fixture, FIXTURES, HOST, KEY, KEY2, Server, TIMEOUT, tls_connect,
)


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
