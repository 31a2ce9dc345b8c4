"""Static files: content types, conditional and range requests, gzip twins, and nothing outside the directory."""

import email.utils
import gzip
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_support  # noqa: E402
from http_support import tearDownModule  # noqa: E402,F401  (unittest calls it)
from http_support import (  # noqa: E402
    HOST, RawConn, request_bytes, SECRET, ServerTestCase,
)


PUBLIC = APP_JS = DATA_TXT = None  # the served directory and two of its files, as http_support made them


def setUpModule():
    global PUBLIC, APP_JS, DATA_TXT
    http_support.setUpModule()
    PUBLIC, APP_JS, DATA_TXT = http_support.PUBLIC, http_support.APP_JS, http_support.DATA_TXT


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
