"""1. Authentication on every spelling of a path, with Upgrade headers and over WebSocket; /metrics for operator
tokens only."""

import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    ALICE, BOB, HOST, OPERATOR_TOKENS, OPS, RawHTTP, ServerTestCase, TENANT_TOKENS, TIMEOUT, UNKNOWN_ID,
)


# MARK: - 1. Authentication


class AuthenticationTests(ServerTestCase):
    """Item 1 (PROTOCOL §6, STYLE "Decide on what the router decides on"): with --tokens every request but the
    health checks and static files needs a valid bearer token, however the path is spelt, whatever Upgrade headers
    it carries, and over WebSocket too. The tokens file holds only tenant tokens (two fields a line) so this class
    also runs against servers that do not know operator tokens yet; OperatorMetricsTests covers those."""

    TOKENS = TENANT_TOKENS
    FLAGS = ("--ws-echo",)

    PROTECTED = (
        ("GET", "/metrics"), ("GET", "//metrics"), ("GET", "/metrics/"), ("HEAD", "//metrics"),
        ("GET", "//openapi.json"), ("GET", "/openapi.json"), ("GET", "/openapi.json/"),
        ("GET", "//v1/sessions"), ("GET", "/v1//sessions"), ("GET", "/v1/sessions/"), ("GET", "/v1/sessions"),
        ("GET", "/v1/exercises"), ("GET", "//v1/exercises"), ("GET", f"//v1/sessions/{UNKNOWN_ID}"),
        ("POST", "//v1/sessions"), ("POST", "/v1//sessions"), ("POST", "/v1/sessions/"),
        ("POST", "//v1/analyze"), ("POST", "/v1/analyze"),
    )

    def session_ids(self, token):
        resp = self.request("GET", "/v1/sessions?limit=500", token=token)
        self.assertEqual(resp.status, 200, f"listing sessions with a valid token must work: {resp}")
        return {s["id"] for s in resp.json()["sessions"]}

    def test_open_paths_need_no_token(self):
        for method in ("GET", "HEAD"):
            for path in ("/healthz", "/readyz", "/", "/index.html", "/css/app.css", "/js/api.js"):
                with self.subTest(method=method, path=path):
                    resp = self.request(method, path)
                    self.assertEqual(resp.status, 200, f"{method} {path} is open (health check or static file)")

    def test_every_spelling_of_a_protected_path_needs_a_token(self):
        body = json.dumps({"exercise": "squat", "frames": []}).encode()
        for method, path in self.PROTECTED:
            for token in (None, "wrong-token-0123456789", ALICE + "x"):
                with self.subTest(method=method, path=path, token=token):
                    resp = self.request(method, path, body=body if method == "POST" else None, token=token)
                    if method == "HEAD":
                        self.assertEqual(resp.status, 401, f"HEAD {path} without a valid token must be 401")
                    else:
                        self.assertError(resp, 401, "unauthorized", f"{method} {path} with token {token!r}")
                    self.assertNotIn(b"# TYPE", resp.body, f"{method} {path} leaked metrics without a token")

    def test_percent_encoded_spellings_are_not_a_way_in(self):
        for path in ("/%2Fmetrics", "/%6Detrics", "/v1/%73essions", "/%2Fv1/sessions", "/v1%2Fsessions"):
            with self.subTest(path=path):
                resp = self.request("GET", path)
                self.assertIn(resp.status, (400, 401, 404), f"GET {path} without a token: {resp}")
                self.assertNotIn(b"# TYPE", resp.body, f"GET {path} leaked metrics without a token")
                self.assertNotIn(b'"sessions"', resp.body, f"GET {path} listed sessions without a token")

    def test_unauthenticated_post_creates_no_session(self):
        before = {token: self.session_ids(token) for token in (ALICE, BOB)}
        for path in ("//v1/sessions", "/v1//sessions", "/v1/sessions/"):
            with self.subTest(path=path):
                resp = self.request("POST", path, body={"exercise": "squat"})
                self.assertError(resp, 401, "unauthorized", f"POST {path} without a token")
        for token, tenant in ((ALICE, "alice"), (BOB, "bob")):
            self.assertEqual(self.session_ids(token), before[token],
                             f"an unauthenticated POST created a session visible to {tenant}")

    def test_upgrade_headers_do_not_bypass_authentication(self):
        variants = (
            {"Connection": "Upgrade", "Upgrade": "x"},
            {"Connection": "Upgrade", "Upgrade": "websocket"},
            {"Connection": "keep-alive, Upgrade", "Upgrade": "h2c"},
        )
        for path in ("/metrics", "//metrics", "/v1/sessions", "/v1/exercises"):
            for headers in variants:
                with self.subTest(path=path, headers=headers):
                    resp = self.request("GET", path, headers=headers)
                    self.assertError(resp, 401, "unauthorized",
                                     f"GET {path} with {headers} (an upgrade that is not a WebSocket handshake)")

    def assertRefusedWebSocket(self, path, probe=None, forbidden=lambda event: False, **credentials):
        """401 on the handshake, or 101 then a close frame with 1008 — and never a working session."""
        ws = self.ws(path, **credentials)
        try:
            if ws.status == 401:
                return
            self.assertEqual(ws.status, 101,
                             f"{path} with {credentials or 'no token'}: expected 401 or 101 + close 1008, "
                             f"got HTTP {ws.status} {ws.body[:200]!r}")
            if probe is not None:
                try:
                    ws.send_text(probe)
                except OSError:
                    pass  # already closed by the server: fine
            events, deadline = [], time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:  # until the close, or the first sign of a working session
                event = ws.receive(max(0.0, deadline - time.monotonic()))
                if event is None:
                    break
                events.append(event)
                if event[0] in ("close", "eof") or forbidden(event):
                    break
            bad = [e for e in events if forbidden(e)]
            self.assertEqual(bad, [], f"{path} with {credentials or 'no token'} worked without a valid token")
            closes = [e for e in events if e[0] == "close"]
            self.assertTrue(closes, f"{path} with {credentials or 'no token'}: 101 but no close frame within "
                                    f"{TIMEOUT:.0f} s; events: {events[:5]}")
            self.assertEqual(closes[0][1], 1008, f"{path} with {credentials or 'no token'}: close code")
        finally:
            ws.close()

    def test_stream_without_a_valid_token_never_starts(self):
        start = json.dumps({"type": "start", "exercise": "squat", "subject": "no-token"})
        started = lambda e: e[0] == "text" and isinstance(e[1], dict) and e[1].get("type") == "started"  # noqa: E731
        for path in ("/v1/stream", "//v1/stream"):
            for credentials in ({}, {"token": "wrong-token-0123456789"}, {"subprotocol": "bearer.wrong-0123456789ab"}):
                with self.subTest(path=path, credentials=credentials):
                    self.assertRefusedWebSocket(path, probe=start, forbidden=started, **credentials)

    def test_echo_without_a_token_echoes_nothing(self):
        probe = "echo-probe-%016x" % random.getrandbits(64)
        echoed = lambda e: e[0] == "text" and e[1] == probe  # noqa: E731
        for path in ("/v1/echo", "//v1/echo"):
            with self.subTest(path=path):
                self.assertRefusedWebSocket(path, probe=probe, forbidden=echoed)

    def test_watch_without_a_token_is_refused(self):
        owner = self.ws("/v1/stream", token=ALICE)
        try:
            self.assertEqual(owner.status, 101, f"alice's stream must upgrade: {owner.status} {owner.body!r}")
            owner.send_json({"type": "start", "exercise": "squat", "subject": "watched"})
            reply, _ = owner.first_message()
            self.assertIsInstance(reply, dict, "alice's start got no reply")
            self.assertEqual(reply.get("type"), "started", f"alice's start: {reply}")
            live = reply["session"]
            leaked = lambda e: e[0] in ("text", "binary")  # noqa: E731  (a watcher only ever receives data)
            for session in (live, UNKNOWN_ID):
                with self.subTest(session=session):
                    self.assertRefusedWebSocket(f"/v1/sessions/{session}/watch", forbidden=leaked)
        finally:
            owner.close()

    def test_websockets_work_with_a_valid_token(self):
        for credentials in ({"token": ALICE}, {"subprotocol": f"bearer.{BOB}"}):
            with self.subTest(path="/v1/stream", credentials=credentials):
                ws = self.ws("/v1/stream", **credentials)
                try:
                    self.assertEqual(ws.status, 101, f"/v1/stream with {credentials}: HTTP {ws.status} {ws.body!r}")
                    if "subprotocol" in credentials:
                        self.assertEqual(ws.headers.get("sec-websocket-protocol"), credentials["subprotocol"],
                                         "the server agrees on the offered bearer subprotocol")
                    ws.send_json({"type": "start", "exercise": "squat"})
                    reply, seen = ws.first_message()
                    self.assertIsInstance(reply, dict, f"no reply to start; events: {seen}")
                    self.assertEqual(reply.get("type"), "started", f"start with {credentials}: {reply}")
                    ws.send_json({"type": "stop"})
                    ws.events_until_closed(TIMEOUT)
                finally:
                    ws.close()
            with self.subTest(path="/v1/echo", credentials=credentials):
                ws = self.ws("/v1/echo", **credentials)
                try:
                    self.assertEqual(ws.status, 101, f"/v1/echo with {credentials}: HTTP {ws.status} {ws.body!r}")
                    ws.send_text("hello echo")
                    reply, seen = ws.first_message()
                    self.assertEqual(reply, "hello echo", f"/v1/echo with {credentials} must echo; events: {seen}")
                finally:
                    ws.close()

    def test_rest_works_with_a_valid_token(self):
        for token in (ALICE, BOB):
            with self.subTest(token=token):
                resp = self.request("GET", "/v1/exercises", token=token)
                self.assertEqual(resp.status, 200, f"GET /v1/exercises with a valid token: {resp}")
                self.assertIn("exercises", resp.json())


class OperatorMetricsTests(ServerTestCase):
    """Items 1 and 8(d): with --tokens, /metrics is for operator tokens only (a third field `operator` in the
    tokens file): no token → 401, a tenant's token → 403 `forbidden`, the operator's → 200 Prometheus text."""

    TOKENS = OPERATOR_TOKENS

    def test_metrics_without_a_token_is_401(self):
        for path in ("/metrics", "//metrics", "/metrics/"):
            with self.subTest(path=path):
                self.assertError(self.request("GET", path), 401, "unauthorized", f"GET {path} without a token")

    def test_metrics_with_a_tenant_token_is_403(self):
        for token in (ALICE, BOB):
            for path in ("/metrics", "//metrics", "/metrics/"):
                with self.subTest(path=path, token=token):
                    self.assertError(self.request("GET", path, token=token), 403, "forbidden",
                                     f"GET {path} with a tenant (non-operator) token")

    def test_metrics_with_the_operator_token(self):
        resp = self.request("GET", "/metrics", token=OPS)
        self.assertEqual(resp.status, 200, f"GET /metrics with the operator token: {resp}")
        self.assertTrue((resp.header("Content-Type") or "").startswith("text/plain"), resp.headers)
        self.assertIn(b"# TYPE ", resp.body, "Prometheus text format expected")

    def test_tenant_tokens_still_work_beside_an_operator_line(self):
        for token in (ALICE, BOB):
            with self.subTest(token=token):
                resp = self.request("GET", "/v1/exercises", token=token)
                self.assertEqual(resp.status, 200, f"a tenant token from a file with an operator line: {resp}")


class AmbiguousCredentialTests(ServerTestCase):
    """Item 1: a request offers one credential. Two Authorization fields (`Bearer A` and `Bearer B`: which one a
    proxy in front logged or checked is anyone's guess), or a header and a `bearer.` subprotocol naming different
    tokens, are refused with 400 `ambiguousCredentials`, not served as the first."""

    TOKENS = TENANT_TOKENS
    FLAGS = ("--ws-echo",)

    def raw_get(self, fields):
        raw = RawHTTP(self.server.port)
        try:
            raw.send((f"GET /v1/sessions HTTP/1.1\r\nHost: {HOST}:{self.server.port}\r\n{fields}"
                      "Connection: close\r\n\r\n").encode())
            return raw.read_response()
        finally:
            raw.close()

    def test_two_authorization_headers_are_refused(self):
        for second in (BOB, ALICE, "wrong-token-0123456789"):
            with self.subTest(second=second):
                status, _, body = self.raw_get(
                    f"Authorization: Bearer {ALICE}\r\nAuthorization: Bearer {second}\r\n")
                self.assertEqual(status, 400, body)
                self.assertEqual(json.loads(body)["error"]["code"], "ambiguousCredentials")
        status, _, _ = self.raw_get(f"Authorization: Bearer {ALICE}\r\n")
        self.assertEqual(status, 200)

    def test_a_header_and_another_subprotocol_token_are_refused(self):
        for path in ("/v1/stream", "/v1/echo"):
            with self.subTest(path=path):
                ws = self.ws(path, token=ALICE, subprotocol=f"bearer.{BOB}")
                try:
                    self.assertEqual(ws.status, 400, f"{ws.status} {ws.body!r}")
                    self.assertIn(b'"code":"ambiguousCredentials"', ws.body)
                finally:
                    ws.close()
                ws = self.ws(path, token=ALICE, subprotocol=f"bearer.{ALICE}")
                try:
                    self.assertEqual(ws.status, 101, "the same token twice is one credential")
                finally:
                    ws.close()
