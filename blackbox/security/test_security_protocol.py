"""8. Protocol edges: HTTP/1.0 keep-alive, directory redirects, duplicated JSON keys."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    HOST, PUBLIC, RawHTTP, ServerTestCase, TIMEOUT,
)


# MARK: - 8. Protocol edges


class ProtocolEdgeTests(ServerTestCase):
    """Item 8: HTTP/1.0 keep-alive is honoured and said; a directory redirect never points to another host; JSON
    objects with duplicated keys are refused over REST and WebSocket."""

    def test_http10_keep_alive_is_honoured(self):
        raw = RawHTTP(self.server.port)
        try:
            raw.send(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            status, headers, body = raw.read_response()
            self.assertEqual(status, 200, body)
            self.assertIn("keep-alive", headers.get("connection", "").lower(),
                          f"an HTTP/1.0 keep-alive request kept open must be answered with Connection: keep-alive "
                          f"(RFC 9112 §9.3), got headers {headers}")
            raw.send(b"GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            status, _, body = raw.read_response()
            self.assertEqual(status, 200, f"second request on the kept-alive HTTP/1.0 connection: {body!r}")
        finally:
            raw.close()

    def test_http10_without_keep_alive_is_closed(self):
        raw = RawHTTP(self.server.port)
        try:
            raw.send(b"GET /healthz HTTP/1.0\r\n\r\n")
            status, _, body = raw.read_response()
            self.assertEqual(status, 200, body)
            self.assertTrue(raw.closed_by_peer(TIMEOUT), "HTTP/1.0 without keep-alive: closed after the response")
        finally:
            raw.close()

    def test_directory_redirect_is_not_scheme_relative(self):
        if not os.path.isdir(os.path.join(PUBLIC, "css")):
            self.skipTest("Public/ has no css directory")
        raw = RawHTTP(self.server.port)
        try:
            raw.send(f"GET //css HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode())
            status, headers, body = raw.read_response()
        finally:
            raw.close()
        self.assertLess(status, 500, f"GET //css: {status} {body!r}")
        if 300 <= status < 400:
            location = headers.get("location", "")
            self.assertFalse(location.startswith("//"),
                             f"GET //css redirects to {location!r}: a scheme-relative URL names another host")
            self.assertEqual(location, "/css/", "GET //css redirect target")

    def test_duplicated_keys_are_refused_over_rest(self):
        for body in (b'{"exercise":"squat","exercise":"squat"}',
                     b'{"exercise":"squat","subject":"a","subject":"b"}'):
            with self.subTest(body=body):
                resp = self.request("POST", "/v1/sessions", body=body)
                self.assertEqual(resp.status, 400, f"POST /v1/sessions {body.decode()}: duplicated keys: {resp}")

    def test_duplicated_keys_are_refused_over_websocket(self):
        ws = self.ws("/v1/stream")
        try:
            self.assertEqual(ws.status, 101, f"/v1/stream must upgrade: {ws.status} {ws.body!r}")
            ws.send_text('{"type":"start","exercise":"squat","type":"stop"}')
            reply, seen = ws.first_message()
            self.assertIsInstance(reply, dict, f"no reply to a start with a duplicated type; events: {seen}")
            self.assertEqual(reply.get("type"), "error", f"a message with two \"type\" keys must be refused: {reply}")
            more = ws.receive(0.3)
            self.assertFalse(more is not None and more[0] == "text" and isinstance(more[1], dict)
                             and more[1].get("type") == "started", f"started after the error: {more}")
        finally:
            ws.close()
