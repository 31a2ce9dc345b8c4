"""The opening handshake (RFC 6455 §4) of `GET /v1/echo`, with raw requests and the raw client."""

import base64
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_support import setUpModule, tearDownModule  # noqa: E402,F401  (unittest calls them: one server a module)
from ws_support import (  # noqa: E402
    BINARY_OP, HOST, PATH, TEXT, TIMEOUT, WebSocketTestCase, build_frame, port, read_http_head, server_process,
)


# MARK: - Opening handshake (RFC 6455 §4)


def http_exchange(request):
    """Sends a raw request, returns (status, headers, body)."""
    with server_process.connect(HOST, port(), TIMEOUT) as sock:
        sock.sendall(request.encode())
        status, headers, rest = read_http_head(sock)
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        return status, headers, rest


def upgrade_request(method="GET", version="13", key="dGhlIHNhbXBsZSBub25jZQ==", extra="", http="HTTP/1.1",
                    upgrade="websocket", connection="Upgrade"):
    lines = ["%s %s %s" % (method, PATH, http), "Host: %s" % HOST]
    if upgrade is not None:
        lines.append("Upgrade: %s" % upgrade)
    if connection is not None:
        lines.append("Connection: %s" % connection)
    if version is not None:
        lines.append("Sec-WebSocket-Version: %s" % version)
    if key is not None:
        lines.append("Sec-WebSocket-Key: %s" % key)
    if method != "GET":
        lines.append("Content-Length: 0")
    return "\r\n".join(lines) + "\r\n" + extra + "\r\n"


class HandshakeTests(WebSocketTestCase):
    def test_rfc_sample_key_gets_rfc_accept_value(self):
        with server_process.connect(HOST, port(), TIMEOUT) as sock:
            sock.sendall(upgrade_request().encode())
            status, headers, _ = read_http_head(sock)
        self.assertEqual(status, 101)
        self.assertEqual(headers.get("sec-websocket-accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")  # RFC 6455 §1.3
        self.assertEqual(headers.get("upgrade", "").lower(), "websocket")
        self.assertIn("upgrade", headers.get("connection", "").lower())
        self.assertNotIn("sec-websocket-extensions", headers, "no extension without an offer")

    def test_header_tokens_are_case_insensitive_and_in_lists(self):
        with server_process.connect(HOST, port(), TIMEOUT) as sock:
            sock.sendall(upgrade_request(upgrade="WebSocket", connection="keep-alive, Upgrade").encode())
            status, _, _ = read_http_head(sock)
        self.assertEqual(status, 101)

    def test_missing_key_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(key=None))[0], 400)

    def test_key_of_wrong_length_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(key="c2hvcnQ="))[0], 400)  # base64 of "short"

    def test_key_not_base64_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(key="!!!!not-base64!!!!!!!!=="))[0], 400)

    def test_two_keys_is_400(self):
        extra = "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n"
        self.assertEqual(http_exchange(upgrade_request(extra=extra))[0], 400)

    def test_version_8_is_426_with_supported_version(self):
        status, headers, _ = http_exchange(upgrade_request(version="8"))
        self.assertEqual(status, 426)
        self.assertEqual(headers.get("sec-websocket-version"), "13")  # RFC 6455 §4.4

    def test_version_14_is_426_with_supported_version(self):
        status, headers, _ = http_exchange(upgrade_request(version="14"))
        self.assertEqual(status, 426)
        self.assertEqual(headers.get("sec-websocket-version"), "13")

    def test_missing_upgrade_header_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(upgrade=None))[0], 400)

    def test_missing_connection_upgrade_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(connection="keep-alive"))[0], 400)

    def test_http_1_0_is_400(self):
        self.assertEqual(http_exchange(upgrade_request(http="HTTP/1.0"))[0], 400)

    def test_post_is_405(self):
        self.assertEqual(http_exchange(upgrade_request(method="POST"))[0], 405)

    def test_put_is_405(self):
        self.assertEqual(http_exchange(upgrade_request(method="PUT"))[0], 405)

    def test_frames_in_the_same_packet_as_the_request_are_processed(self):
        """Bytes after the request head (a client that does not wait for the 101) are the first frames."""
        key = base64.b64encode(os.urandom(16)).decode()
        request = upgrade_request(key=key).encode() + build_frame(TEXT, b"early") + build_frame(BINARY_OP, b"\x01")
        with server_process.connect(HOST, port(), TIMEOUT) as sock:
            sock.sendall(request)
            status, _, rest = read_http_head(sock)
            deadline = time.monotonic() + TIMEOUT
            while len(rest) < 10 and time.monotonic() < deadline:
                rest += sock.recv(100)
        self.assertEqual(status, 101)
        self.assertEqual(rest, b"\x81\x05early\x82\x01\x01")

    def test_permessage_deflate_offer_is_accepted(self):
        ws = self.raw(extensions="permessage-deflate; client_max_window_bits")
        self.assertTrue(ws.headers.get("sec-websocket-extensions", "").startswith("permessage-deflate"))

    def test_unsupported_subprotocol_is_not_selected(self):
        """RFC 6455 §4.2.2: the server may only answer with a subprotocol it supports; /v1/echo has none."""
        ws = self.raw(extra="Sec-WebSocket-Protocol: chat, superchat\r\n")
        self.assertNotIn("sec-websocket-protocol", ws.headers)

    def test_permessage_deflate_offer_with_duplicate_parameter_is_declined(self):
        """RFC 7692 §7: an offer with a repeated parameter is invalid and declined."""
        ws = self.raw(extensions="permessage-deflate; server_no_context_takeover; server_no_context_takeover")
        self.assertNotIn("sec-websocket-extensions", ws.headers)

    def test_unknown_extension_is_not_accepted(self):
        ws = self.raw(extensions="x-webkit-deflate-frame")
        self.assertNotIn("sec-websocket-extensions", ws.headers)

    def test_permessage_deflate_offer_with_unknown_parameter_is_declined(self):
        """RFC 7692 §7: an offer with an unknown parameter is declined (the connection runs uncompressed)."""
        ws = self.raw(extensions="permessage-deflate; bogus_parameter")
        self.assertNotIn("sec-websocket-extensions", ws.headers)
        self.assertEcho(ws, TEXT, b"x" * 200)

    def test_second_offer_is_used_when_first_is_invalid(self):
        ws = self.raw(extensions="permessage-deflate; server_max_window_bits=7, permessage-deflate")
        self.assertEqual(ws.headers.get("sec-websocket-extensions"), "permessage-deflate")
