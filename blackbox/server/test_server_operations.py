"""10. Operations: health, metrics, OpenAPI, `--ws-echo`; a failing store; static files."""

import os
import re
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    analyze_body, InvalidStatus, mc, of_type, pose_msg, rep_frames, Server, shared_server, squat_frames, UNKNOWN_ID,
)


SERVER = None  # the shared server of this module (no tokens, no public dir)


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# 10. Operations
# ---------------------------------------------------------------------------------------------------------------

METRIC_LINE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*"'
                         r'(,[a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*")*\})? '
                         r'([-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?|NaN|[+-]Inf)( -?\d+)?$')


def metric_value(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


class OperationsTests(unittest.TestCase):
    """PROTOCOL §5 operations endpoints and the OpenAPI document."""

    def test_health_and_ready(self):
        self.assertEqual(SERVER.get("/healthz").status, 200)
        self.assertEqual(SERVER.get("/readyz").status, 200)

    def test_metrics(self):
        before = SERVER.get("/metrics").body.decode()
        frames_before = metric_value(before, "motion_frames_total")
        reps_before = metric_value(before, 'motion_events_total{event="repCompleted"}') or 0
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right")
            frames = rep_frames(3)
            mc.send_frames(ws, frames)
            ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"], 10)
            during = SERVER.get("/metrics").body.decode()
            self.assertGreaterEqual(metric_value(during, "motion_live_sessions"), 1)
            ws.send({"type": "stop"})
            ws.close_code()
        finally:
            ws.close()
        time.sleep(0.2)
        resp = SERVER.get("/metrics")
        self.assertEqual(resp.status, 200)
        self.assertTrue(resp.headers["content-type"].startswith("text/plain"), resp)
        text = resp.body.decode()
        for line in text.splitlines():
            if line and not line.startswith("#"):
                self.assertRegex(line, METRIC_LINE, "not Prometheus text format")
        for name in ("motion_live_sessions", "motion_frames_total", 'motion_events_total{event="repCompleted"}',
                     "motion_store_seconds_bucket"):
            self.assertIn(name, text)
        self.assertRegex(text, r'(?m)^motion_http_requests_total\{route="[^"]+",status="\d{3}"\} \d')
        self.assertRegex(text, r'(?m)^motion_store_seconds_bucket\{.*le="\+Inf".*\} \d')
        self.assertRegex(text, r"(?m)^# TYPE motion_frames_total counter$")
        self.assertGreaterEqual(metric_value(text, "motion_frames_total") - frames_before, len(frames))
        self.assertGreaterEqual(metric_value(text, 'motion_events_total{event="repCompleted"}') - reps_before, 3)
        self.assertEqual(metric_value(text, "motion_live_sessions"), metric_value(during, "motion_live_sessions") - 1)

    def test_openapi_paths_answer(self):
        resp = SERVER.get("/openapi.json")
        self.assertEqual(resp.status, 200)
        doc = resp.json()
        self.assertEqual(doc["openapi"], "3.1.0")
        paths = doc["paths"]
        finished = SERVER.post("/v1/analyze", analyze_body("openapi")).json()["summary"]["id"]
        http_live = SERVER.post("/v1/sessions", {"exercise": "squat"}).json()["id"]
        programme = SERVER.post("/v1/programmes", {
            "subject": "openapi", "startsOn": "2026-12-07",
            "items": [{"item": "a1", "exercise": "squat", "prescription": {"reps": 5}}]}).json()["id"]
        access = SERVER.post("/v1/subjects/openapi/access", {}).json()["id"]
        ws = SERVER.ws()
        try:
            ws_live = ws.start(exercise="squat")["session"]
            order = {"get": 0, "post": 1, "delete": 2}
            operations = sorted(((m, p) for p, item in paths.items() for m in item
                                 if m in ("get", "post", "put", "patch", "delete")),
                                key=lambda mp: (order.get(mp[0], 3), mp[1]))
            checked = []
            for method, path in operations:
                # /v1/echo is mounted only with --ws-echo (docs/protocol.md §7); test_ws_echo_route covers it.
                if path != "/v1/echo":
                    resource = ("elbowFlexion" if "exercises" in path else
                                programme if path.startswith("/v1/programmes") else
                                access if "/access/" in path else
                                ws_live if path.endswith("/watch") else
                                http_live if path.endswith(("/poses", "/stop")) else finished)
                    concrete = (path.replace("{subject}", "openapi").replace("{id}", resource)
                                .replace("{version}", "1"))
                    body = None
                    if method == "post":
                        body = {"/v1/sessions": {"exercise": "squat"}, "/v1/analyze": analyze_body("openapi")}.get(
                            path, squat_frames(1)[0])
                    if path in ("/v1/stream",) or path.endswith("/watch"):
                        sock = SERVER.ws(concrete)  # a real handshake: 101
                        sock.close()
                        status = 101
                    else:
                        status = SERVER.request(method.upper(), concrete, body=body).status
                    self.assertNotIn("{", concrete, f"a parameter of {path} left unfilled")
                    checked.append((method, path, status))
                    self.assertNotEqual(status, 404, f"{method.upper()} {concrete} (documented as {path})")
                    self.assertLess(status, 500, f"{method.upper()} {concrete}")
            self.assertGreaterEqual(len(checked), 15)
        finally:
            ws.close()

    def test_ws_echo_route(self):
        """--ws-echo mounts GET /v1/echo (PROTOCOL §7), and /openapi.json documents it. (That every route is
        documented and every documented path routed is checked in Swift: Tests/MotionServerTests/OpenAPITests.swift.)"""
        server = Server(extra=["--ws-echo"]).start()
        try:
            ws = server.ws("/v1/echo")
            try:
                ws.send('{"hello":"\u00e9"}')
                self.assertEqual(ws.recv(), {"hello": "\u00e9"})
            finally:
                ws.close()
            with self.assertRaises(InvalidStatus):
                SERVER.ws("/v1/echo")  # off by default
            doc = server.get("/openapi.json").json()
            self.assertTrue("/v1/echo" in doc["paths"],
                            f"GET /v1/echo (LiveRoutes.swift) is not in /openapi.json; paths: {sorted(doc['paths'])}")
        finally:
            server.cleanup()


class StoreFailureTests(unittest.TestCase):
    """PROTOCOL §3 and §5: a failing store is never hidden. Failures are real: another connection holds the
    database's write lock (SQLite waits 5 s, then fails with SQLITE_BUSY), or a stored row is damaged. The server
    waits no longer for a final summary than its first try (`--store-wait 0`), so a client is told at once."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server(extra=["--store-wait", "0"]).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def lock_database(self):
        """Holds the write lock from another connection until the returned connection rolls back."""
        import sqlite3
        conn = sqlite3.connect(self.server.database, timeout=10, isolation_level=None)
        conn.execute("BEGIN EXCLUSIVE")
        return conn

    def ready_status(self):
        return self.server.get("/readyz", timeout=20).status

    def test_a_damaged_row_answers_503_not_404(self):
        s = self.server
        created = s.post("/v1/analyze", analyze_body("store-damaged"))
        self.assertEqual(created.status, 200, created)
        sid = s.get("/v1/sessions?subject=store-damaged").json()["sessions"][0]["id"]
        import sqlite3
        with sqlite3.connect(s.database, isolation_level=None) as conn:
            conn.execute("UPDATE sessions SET side = 'middle' WHERE id = ?", (sid,))
        resp = s.get(f"/v1/sessions/{sid}")
        self.assertEqual(resp.status, 503, resp)
        self.assertEqual(resp.json()["error"]["code"], "storeUnavailable")
        self.assertEqual(s.get(f"/v1/sessions/{UNKNOWN_ID}").status, 404, "an unknown id is still 404")
        metrics = s.get("/metrics").body.decode()
        self.assertRegex(metrics, r'motion_store_errors_total\{operation="get"\} [1-9]')

    def test_a_live_session_whose_summary_cannot_be_stored_closes_1011(self):
        s = self.server
        ws = s.ws()
        try:
            sid = ws.start(exercise="elbowFlexion", side="right", options={"snapshots": "off"})["session"]
            for frame in rep_frames(1):
                ws.send(pose_msg(frame))
            lock = self.lock_database()
            try:
                ws.send({"type": "stop"})
                code, reason, messages = ws.close_code(timeout=20)
                self.assertEqual(code, 1011, (reason, messages))
                errors = of_type(messages, "error")
                self.assertEqual([e["code"] for e in errors], ["storeUnavailable"], messages)
                self.assertEqual(self.ready_status(), 503, "/readyz while the store fails")
            finally:
                lock.rollback()
                lock.close()
            deadline = time.monotonic() + 20
            while self.ready_status() != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertEqual(self.ready_status(), 200, "/readyz once the store works again")
            # Told 1011, the summary is still held and retried within the resume window: nothing is lost.
            deadline = time.monotonic() + 10
            while s.get(f"/v1/sessions/{sid}").json()["status"] != "finished" and time.monotonic() < deadline:
                time.sleep(0.2)
            stored = s.get(f"/v1/sessions/{sid}").json()
            self.assertEqual(stored["status"], "finished", "the held summary was stored once the lock was gone")
            self.assertEqual(stored["repCount"], 1, stored)
        finally:
            ws.close()

    def test_an_http_session_stop_that_cannot_be_stored_answers_503_and_can_be_retried(self):
        s = self.server
        sid = s.post("/v1/sessions", {"exercise": "elbowFlexion", "side": "right"}).json()["id"]
        self.assertEqual(s.post(f"/v1/sessions/{sid}/poses", {"frames": rep_frames(1)}).status, 200)
        lock = self.lock_database()
        try:
            resp = s.post(f"/v1/sessions/{sid}/stop", timeout=20)
            self.assertEqual(resp.status, 503, resp)
            self.assertEqual(resp.json()["error"]["code"], "storeUnavailable")
        finally:
            lock.rollback()
            lock.close()
        again = s.post(f"/v1/sessions/{sid}/stop", timeout=20)
        self.assertEqual(again.status, 200, again)
        self.assertEqual(s.get(f"/v1/sessions/{sid}").json()["status"], "finished")


class StaticFileTests(unittest.TestCase):
    """PROTOCOL §5: everything else under / is served from the public directory."""

    def test_public_directory(self):
        with tempfile.TemporaryDirectory(prefix="motion-public-") as public:
            with open(os.path.join(public, "index.html"), "w") as f:
                f.write("<!doctype html><h1>front end</h1>")
            with open(os.path.join(public, "app.js"), "w") as f:
                f.write("console.log(1)")
            server = Server(public=public).start()
            try:
                index = server.get("/")
                self.assertEqual(index.status, 200, index)
                self.assertEqual(index.body, b"<!doctype html><h1>front end</h1>")
                self.assertTrue(index.headers["content-type"].startswith("text/html"), index)
                self.assertEqual(server.get("/app.js").body, b"console.log(1)")
                self.assertEqual(server.get("/nope.html").status, 404)
                self.assertEqual(server.get("/healthz").status, 200)
            finally:
                server.cleanup()

    def test_without_public_directory(self):
        # the shared server runs with --public pointing at a directory that does not exist
        self.assertFalse(os.path.exists(SERVER.public))
        self.assertEqual(SERVER.get("/healthz").status, 200)
        self.assertEqual(SERVER.get("/").status, 404)
        self.assertEqual(SERVER.get("/v1/exercises").status, 200)
