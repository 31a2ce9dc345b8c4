"""9. Authentication (PROTOCOL §6): tokens, tenants, WebSocket credentials; a server of its own."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    analyze_body, ConnectionClosed, InvalidStatus, mc, of_type, Server, squat_frames, UNKNOWN_ID,
)


# ---------------------------------------------------------------------------------------------------------------
# 9. Authentication
# ---------------------------------------------------------------------------------------------------------------

TOKEN_A = "tokenAAAA-0123456789abcdef"
TOKEN_B = "tokenBBBB-0123456789abcdef"


class AuthTests(unittest.TestCase):
    """PROTOCOL §6."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-auth-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"# tenants\n{TOKEN_A} clinicA\n\n{TOKEN_B}\tclinicB\n")
        public = os.path.join(cls.dir.name, "public")
        os.mkdir(public)
        with open(os.path.join(public, "index.html"), "w") as f:
            f.write("<!doctype html><title>motion</title>")
        cls.server = Server(tokens=tokens, public=public).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_rest_needs_a_token(self):
        s = self.server
        for method, path in (("GET", "/v1/exercises"), ("GET", "/v1/sessions"), ("POST", "/v1/sessions"),
                             ("GET", f"/v1/sessions/{UNKNOWN_ID}"), ("POST", "/v1/analyze"), ("GET", "/metrics"),
                             ("GET", "/openapi.json")):
            for token in (None, "wrong-token-0123456789", TOKEN_A + "x"):
                with self.subTest(method=method, path=path, token=token):
                    resp = s.request(method, path, body='{"exercise":"squat"}' if method == "POST" else None,
                                     headers={"Content-Type": "application/json"}, token=token)
                    self.assertEqual(resp.status, 401, resp)
                    self.assertIsInstance(resp.json()["error"]["code"], str)
        resp = s.get("/v1/exercises", headers={"Authorization": TOKEN_A})  # no scheme
        self.assertEqual(resp.status, 401, resp)
        self.assertEqual(s.get("/v1/exercises", token=TOKEN_A).status, 200)
        self.assertEqual(s.get("/v1/exercises", token=TOKEN_B).status, 200)

    def test_open_endpoints(self):
        s = self.server
        self.assertEqual(s.get("/healthz").status, 200)
        self.assertEqual(s.get("/readyz").status, 200)
        index = s.get("/")
        self.assertEqual(index.status, 200, index)
        self.assertIn(b"<title>motion</title>", index.body)

    def test_tenants_are_isolated(self):
        s = self.server
        a_id = s.post("/v1/analyze", analyze_body("tenant-a"), token=TOKEN_A).json()["summary"]["id"]
        self.assertEqual(s.get(f"/v1/sessions/{a_id}", token=TOKEN_A).status, 200)
        unknown = s.get(f"/v1/sessions/{UNKNOWN_ID}", token=TOKEN_B)
        self.assertEqual(unknown.status, 404)
        for method, path in (("GET", f"/v1/sessions/{a_id}"), ("GET", f"/v1/sessions/{a_id}?format=csv"),
                             ("GET", f"/v1/sessions/{a_id}/series"), ("DELETE", f"/v1/sessions/{a_id}")):
            with self.subTest(method=method, path=path):
                resp = s.request(method, path, token=TOKEN_B)
                self.assertEqual(resp.status, 404, resp)
                unknown_resp = s.request(method, path.replace(a_id, UNKNOWN_ID), token=TOKEN_B)
                self.assertEqual(resp.body, unknown_resp.body, "another tenant's id answers exactly as unknown")
        self.assertEqual(s.get(f"/v1/sessions/{a_id}", token=TOKEN_A).status, 200, "B's DELETE removed nothing")
        b_list = s.get("/v1/sessions?limit=500", token=TOKEN_B).json()["sessions"]
        self.assertNotIn(a_id, [x["id"] for x in b_list])
        self.assertIn(a_id, [x["id"] for x in s.get("/v1/sessions?limit=500", token=TOKEN_A).json()["sessions"]])
        self.assertEqual(s.get("/v1/sessions?subject=tenant-a", token=TOKEN_B).json()["sessions"], [])

        # a live HTTP session of A: B cannot drive, stop or delete it
        live = s.post("/v1/sessions", {"exercise": "squat"}, token=TOKEN_A).json()["id"]
        for method, path in (("POST", f"/v1/sessions/{live}/poses"), ("POST", f"/v1/sessions/{live}/stop"),
                             ("DELETE", f"/v1/sessions/{live}"), ("GET", f"/v1/sessions/{live}")):
            with self.subTest(live=path, method=method):
                resp = s.request(method, path, body=json.dumps(squat_frames(1)[0]) if "poses" in path else None,
                                 headers={"Content-Type": "application/json"}, token=TOKEN_B)
                self.assertEqual(resp.status, 404, resp)
        self.assertEqual(s.post(f"/v1/sessions/{live}/stop", token=TOKEN_A).status, 200)

    def test_websocket_with_authorization_header(self):
        ws = self.server.ws(token=TOKEN_A)
        try:
            sid = ws.start(exercise="squat", subject="ws-header")["session"]
            ws.send({"type": "stop"})
            self.assertEqual(ws.close_code()[0], 1000)
        finally:
            ws.close()
        self.assertEqual(self.server.wait_for_session(sid, lambda x: x["status"] == "finished", token=TOKEN_A).status,
                         200)
        self.assertEqual(self.server.get(f"/v1/sessions/{sid}", token=TOKEN_B).status, 404)

    def test_websocket_with_bearer_subprotocol(self):
        proto = f"bearer.{TOKEN_B}"
        ws = self.server.ws(subprotocols=[proto])
        try:
            self.assertEqual(ws.subprotocol, proto, "the server echoes the bearer subprotocol")
            sid = ws.start(exercise="squat")["session"]
            # tenant A cannot watch B's live session: 404 like an unknown id
            with self.assertRaises(InvalidStatus) as ctx:
                self.server.ws(f"/v1/sessions/{sid}/watch", token=TOKEN_A)
            self.assertEqual(ctx.exception.response.status_code, 404)
            watcher = self.server.ws(f"/v1/sessions/{sid}/watch", subprotocols=[proto])
            try:
                self.assertEqual(watcher.subprotocol, proto)
                first = watcher.recv()
                self.assertEqual((first["type"], first["session"]), ("started", sid), "a watcher is told what it watches")
                self.assertEqual(watcher.recv()["type"], "snapshot")
            finally:
                watcher.close()
            ws.send({"type": "stop"})
            self.assertEqual(ws.close_code()[0], 1000)
        finally:
            ws.close()
        self.assertEqual(self.server.wait_for_session(sid, lambda x: True, token=TOKEN_B).status, 200)

    def test_websocket_wrong_token_closes_1008(self):
        cases = {"no token": {}, "wrong header": {"token": "wrong-token-0123456789"},
                 "wrong subprotocol": {"subprotocols": ["bearer.wrong-token-0123456789"]}}
        for name, kw in cases.items():
            with self.subTest(case=name):
                try:
                    ws = self.server.ws(**kw)
                except InvalidStatus as refused:  # refusing the handshake is not what §6 says, but report it
                    self.fail(f"{name}: handshake refused with HTTP {refused.response.status_code}, expected 1008")
                try:
                    try:
                        ws.send({"type": "start", "exercise": "squat"})
                    except ConnectionClosed:
                        pass
                    code, _, msgs = ws.close_code()
                    self.assertEqual(code, 1008, f"{name}: {mc.summarise(msgs)}")
                    self.assertEqual(of_type(msgs, "started"), [])
                finally:
                    ws.close()
