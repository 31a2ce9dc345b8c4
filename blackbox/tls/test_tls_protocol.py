"""The TLS protocol: versions, cipher suites, compression, renegotiation, an RSA certificate, ALPN and session
resumption."""

import os
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_support import (  # noqa: E402
    CERT, client_context, CURL, curl, HOST, OPENSSL, RSA_CERT, RSA_KEY, s_client, ServerTestCase, tls_connect,
)


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
