"""8. Browsers (docs/protocol.md §6.2): what a foreign web page could make the user's browser send to a server on the
user's loopback. DNS rebinding (the page's own name resolved to 127.0.0.1, so the browser sends `Host:
attacker.example` and lets the page read the answer) is answered 421 when the server runs without tokens; a
WebSocket opened from a foreign page (cross-site WebSocket hijacking, marked only by `Origin`) is answered 403 with
tokens or without. Pages carry a Content-Security-Policy; JSON is never stored by caches."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    ALICE, HOST, RawHTTP, ServerTestCase, TENANT_TOKENS,
)

FOREIGN_HOSTS = ("attacker.example", "attacker.example:8080", "127.0.0.1.attacker.example", "localhost.evil.example",
                 "127.0.0.2", "[::2]", "")
WEBSOCKET_PATHS = ("/v1/stream", "/v1/echo", "/v1/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/watch")


class HostTests(ServerTestCase):
    """Without --tokens a `Host` must be one of the server's names: loopback names (any port, any case), the
    listening address, --allowed-hosts. The health checks answer whatever the Host."""

    FLAGS = ("--ws-echo", "--allowed-hosts", "motion.clinic.example")

    def test_a_rebound_host_is_refused_before_any_data(self):
        for host in FOREIGN_HOSTS:
            for path in ("/v1/sessions", "/v1/exercises", "/metrics", "/", "/index.html"):
                with self.subTest(host=host, path=path):
                    resp = self.request("GET", path, headers={"Host": host})
                    self.assertError(resp, 421, "hostNotAllowed", f"GET {path} with Host {host!r}")

    def test_websocket_handshakes_with_a_rebound_host_are_refused(self):
        for path in WEBSOCKET_PATHS:
            with self.subTest(path=path):
                ws = self.ws(path, headers={"Host": "attacker.example"})
                try:
                    self.assertEqual(ws.status, 421, f"{path}: {ws.status} {ws.body!r}")
                finally:
                    ws.close()

    def test_the_servers_names_are_answered(self):
        port = self.server.port
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", "localhost.", f"[::1]:{port}",
                     "motion.clinic.example", "Motion.Clinic.Example:443"):
            with self.subTest(host=host):
                self.assertEqual(self.request("GET", "/v1/sessions", headers={"Host": host}).status, 200)

    def test_health_checks_answer_whatever_the_host(self):
        for path in ("/healthz", "/readyz"):
            self.assertEqual(self.request("GET", path, headers={"Host": "10.9.8.7:8080"}).status, 200, path)

    def test_http10_without_a_host_is_answered(self):
        raw = RawHTTP(self.server.port)
        try:
            raw.send(b"GET /v1/sessions HTTP/1.0\r\n\r\n")
            status, _, _ = raw.read_response()
            self.assertEqual(status, 200, "no browser sends a request without Host")
        finally:
            raw.close()


class HostWithTokensTests(ServerTestCase):
    """With --tokens the Host is not checked: a rebinding page has no token."""

    TOKENS = TENANT_TOKENS

    def test_the_token_decides(self):
        self.assertEqual(self.request("GET", "/v1/sessions", headers={"Host": "attacker.example"}).status, 401)
        resp = self.request("GET", "/v1/sessions", headers={"Host": "attacker.example"}, token=ALICE)
        self.assertEqual(resp.status, 200, resp)


class OriginTests(ServerTestCase):
    """A WebSocket handshake's Origin, when there is one, must be the server's own (the Host's authority, any
    scheme) or one of --allowed-origins."""

    FLAGS = ("--ws-echo", "--allowed-origins", "https://app.clinic.example")

    def foreign(self):
        port = self.server.port
        return ("http://attacker.example", "null", f"http://{HOST}:{port + 1}", f"http://localhost:{port}",
                f"http://{HOST}:{port}/", "https://app.clinic.example:8443", "")

    def test_a_foreign_origin_is_refused_on_every_websocket_route(self):
        for origin in self.foreign():
            for path in WEBSOCKET_PATHS:
                with self.subTest(origin=origin, path=path):
                    ws = self.ws(path, headers={"Origin": origin})
                    try:
                        self.assertEqual(ws.status, 403, f"{path} from {origin!r}: {ws.status} {ws.body!r}")
                        self.assertIn(b'"code":"originNotAllowed"', ws.body)
                    finally:
                        ws.close()

    def test_its_own_origin_an_allowed_one_or_none_opens(self):
        port = self.server.port
        for origin in (None, f"http://{HOST}:{port}", f"https://{HOST}:{port}", "https://app.clinic.example"):
            with self.subTest(origin=origin):
                ws = self.ws("/v1/echo", headers={"Origin": origin} if origin else None)
                try:
                    self.assertEqual(ws.status, 101, f"from {origin!r}: {ws.status} {ws.body!r}")
                finally:
                    ws.close()


class OriginWithTokensTests(ServerTestCase):
    """With tokens too: a foreign page that somehow holds a token still cannot open the socket."""

    TOKENS = TENANT_TOKENS
    FLAGS = ("--ws-echo",)

    def test_a_foreign_origin_is_refused_before_the_token_is_read(self):
        for token in (None, ALICE):
            with self.subTest(token=token):
                ws = self.ws("/v1/stream", subprotocol=f"bearer.{token}" if token else None,
                             headers={"Origin": "http://attacker.example"})
                try:
                    self.assertEqual(ws.status, 403, f"{ws.status} {ws.body!r}")
                finally:
                    ws.close()


class SecurityHeaderTests(ServerTestCase):
    """Pages carry a Content-Security-Policy with frame-ancestors 'none' and no-referrer; every answer nosniff;
    JSON no-store; static files keep no-cache with their ETag."""

    def test_pages_carry_their_policy(self):
        for path in ("/", "/index.html", "/history.html", "/progress.html", "/watch.html", "/exercises.html"):
            with self.subTest(path=path):
                resp = self.request("GET", path)
                self.assertEqual(resp.status, 200)
                policy = resp.header("Content-Security-Policy") or ""
                self.assertIn("frame-ancestors 'none'", policy)
                self.assertIn("default-src 'self'", policy)
                self.assertNotIn("'unsafe-inline'", policy)
                self.assertNotIn("'unsafe-eval'", policy)
                self.assertEqual(resp.header("X-Content-Type-Options"), "nosniff")
                self.assertEqual(resp.header("Referrer-Policy"), "no-referrer")
                self.assertEqual(resp.header("Cache-Control"), "no-cache")
                self.assertIsNotNone(resp.header("ETag"))
                self.assertIsNone(resp.header("Strict-Transport-Security"), "plain HTTP")

    def test_json_is_not_stored(self):
        for path in ("/v1/sessions", "/v1/exercises", "/openapi.json", "/v1/sessions/nope"):
            with self.subTest(path=path):
                resp = self.request("GET", path)
                self.assertEqual(resp.header("Cache-Control"), "no-store")
                self.assertEqual(resp.header("X-Content-Type-Options"), "nosniff")
