"""HTTPS with Python's http.client and ssl, and with curl: requests, static files, gzip, keep-alive, large bodies."""

import gzip
import hashlib
import http.client
import json
import os
import re
import ssl
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tls_support import (  # noqa: E402
    CERT, CERT2, client_context, CURL, curl, get, HOST, https, MIB, read, rep_frames, run, ServerTestCase, TIMEOUT,
    tls_connect,
)


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
