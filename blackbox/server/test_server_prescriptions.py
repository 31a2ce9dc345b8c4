"""11. Prescriptions (PROTOCOL §5.1), the v2 summary and progress (§5.2): start.options, the new rep, snapshot and
summary members, setCompleted, the CSV columns, GET /v1/subjects/{subject}/progress."""

import os
import sys
import tempfile
import time
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import analyze_body, events, mc, of_type, rep_frames, Server, shared_server  # noqa: E402


SERVER = None  # the shared server of this module (no tokens, no public dir)

REP_MEMBERS = ("index", "peak", "start", "end", "duration", "clean", "faults", "trough", "range", "timeToPeak", "side")
PRESCRIPTION_MEMBERS = ("target", "rest", "enter", "exit", "holdSeconds", "reps", "sets")
PROGRESS_MEMBERS = {"id", "startedAt", "exercise", "status", "best", "repCount", "rejectedCount", "meanPeak",
                    "faultCounts", "target"}


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def abduction_body(subject=None, options=None, frames=None):
    body = {"exercise": "shoulderAbduction", "side": "right",
            "frames": frames if frames is not None else mc.abduction_frames(reps=3, peak=55.0)}
    if subject:
        body["subject"] = subject
    if options is not None:
        body["options"] = options
    return body


def progress_path(subject, query=""):
    return f"/v1/subjects/{mc.quote(subject)}/progress{query}"


class PrescriptionTests(unittest.TestCase):
    """§5.1: a prescription changes what is counted; the §5.2 members on every way out."""

    def assert_v2_rep(self, rep, alternating=False):
        self.assertEqual(tuple(rep.keys()), REP_MEMBERS, rep)
        self.assertAlmostEqual(rep["range"], abs(rep["peak"] - rep["trough"]), places=9)
        self.assertIsInstance(rep["timeToPeak"], float, rep)
        self.assertGreater(rep["timeToPeak"], 0, rep)
        self.assertLess(rep["timeToPeak"], rep["duration"], rep)
        if not alternating:
            self.assertIsNone(rep["side"], rep)

    def test_a_low_target_counts_reps_a_default_session_does_not(self):
        subject = unique("rx-abduction")
        plain = SERVER.post("/v1/analyze", abduction_body(subject))
        self.assertEqual(plain.status, 200, plain)
        self.assertEqual(plain.json()["summary"]["repCount"], 0, "the default enters a rep at 70°")
        self.assertEqual([e["event"] for e in plain.json()["events"] if e["event"].startswith("rep")], [])

        low = SERVER.post("/v1/analyze", abduction_body(subject, options={"target": 50}))
        self.assertEqual(low.status, 200, low)
        summary = low.json()["summary"]
        self.assertEqual(summary["repCount"], 3, summary)
        self.assertEqual(summary["rejectedCount"], 0, summary)
        self.assertIsInstance(summary["exerciseVersion"], int)
        self.assertGreaterEqual(summary["exerciseVersion"], 1)
        rx = summary["prescription"]
        self.assertEqual(tuple(rx.keys()), PRESCRIPTION_MEMBERS)
        self.assertEqual(rx["target"], 50)
        self.assertEqual(rx["rest"], 30)
        self.assertAlmostEqual(rx["enter"], 30 + 40 * 20 / 150, places=9)  # 70° moved with the target
        self.assertAlmostEqual(rx["exit"], 32, places=9)
        self.assertEqual((rx["holdSeconds"], rx["reps"], rx["sets"]), (None, None, None))
        self.assertIsNone(summary["perSide"])
        for rep in summary["reps"]:
            self.assert_v2_rep(rep)
            self.assertAlmostEqual(rep["peak"], 55, delta=2)
            self.assertLess(rep["trough"], 32)
        self.assertLessEqual(summary["best"], 56)

        stored = SERVER.get(f"/v1/sessions/{summary['id']}")
        self.assertEqual(stored.status, 200, stored)
        self.assertEqual(stored.json(), summary)
        listed = SERVER.get(f"/v1/sessions?subject={subject}").json()["sessions"]
        self.assertEqual([s["repCount"] for s in listed], [3, 0])  # newest first
        self.assertEqual(listed[0]["prescription"], rx)

    def test_thresholds_given_outright(self):
        body = abduction_body(options={"rest": 20, "enter": 40, "exit": 25, "target": 60})
        summary = SERVER.post("/v1/analyze", body).json()["summary"]
        self.assertEqual({k: summary["prescription"][k] for k in ("target", "rest", "enter", "exit")},
                         {"target": 60, "rest": 20, "enter": 40, "exit": 25})
        self.assertEqual(summary["repCount"], 3, summary)

    def test_the_live_summary_message_carries_the_v2_members(self):
        ws = SERVER.ws()
        try:
            started = ws.start(exercise="shoulderAbduction", side="right", subject=unique("rx-live"),
                               options={"target": 50, "snapshots": "off"})
            self.assertEqual(started["exercise"]["target"], 50)
            mc.send_frames(ws, mc.abduction_frames(reps=2, peak=55.0))
            ws.send({"type": "stop"})
            code, _, messages = ws.close_code(timeout=10)
        finally:
            ws.close()
        self.assertEqual(code, 1000)
        reps = events(messages, "repCompleted")
        self.assertEqual(len(reps), 2, mc.summarise(messages))
        for event in reps:
            self.assert_v2_rep(event["rep"])
        summary = of_type(messages, "summary")[-1]
        self.assertEqual(summary["repCount"], 2)
        self.assertEqual(summary["prescription"]["target"], 50)
        self.assertIn("exerciseVersion", summary)
        self.assertIsNone(summary["perSide"])
        self.assertEqual([r["timeToPeak"] for r in summary["reps"]], [e["rep"]["timeToPeak"] for e in reps])
        stored = SERVER.get(f"/v1/sessions/{summary['id']}").json()
        del summary["type"]
        self.assertEqual(stored, summary)

    def test_csv_appends_range_time_to_peak_and_side(self):
        sid = SERVER.post("/v1/analyze", abduction_body(options={"target": 50})).json()["summary"]["id"]
        resp = SERVER.get(f"/v1/sessions/{sid}?format=csv")
        self.assertEqual(resp.status, 200, resp)
        lines = resp.body.decode().split("\r\n")
        self.assertEqual(
            lines[0], "index,peak,trough,start,end,duration,clean,faults,range,timeToPeak,side,smoothness,tremor,held")
        rows = [line.split(",") for line in lines[1:] if line]
        self.assertEqual(len(rows), 3)
        summary = SERVER.get(f"/v1/sessions/{sid}").json()
        for row, rep in zip(rows, summary["reps"]):
            self.assertEqual(len(row), 14, row)
            self.assertEqual(row[11:], ["", "", ""], "no motion samples: smoothness and tremor empty; not a hold")
            self.assertEqual(int(row[0]), rep["index"])
            self.assertEqual(float(row[2]), rep["trough"])
            self.assertEqual(float(row[8]), rep["range"])
            self.assertEqual(float(row[9]), rep["timeToPeak"])
            self.assertEqual(row[10], "")

    def test_a_rep_goal_gives_set_completed_and_set_progress(self):
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right", options={"reps": 2, "sets": 2})
            mc.send_frames(ws, rep_frames(5))
            ws.send({"type": "stop"})
            code, _, messages = ws.close_code(timeout=10)
        finally:
            ws.close()
        self.assertEqual(code, 1000)
        self.assertEqual(len(events(messages, "repCompleted")), 5, mc.summarise(messages))
        sets = events(messages, "setCompleted")
        self.assertEqual([e["set"] for e in sets], [1, 2])
        for event in sets:
            self.assertEqual(set(event), {"type", "t", "event", "set"})
            done = [m for m in events(messages, "repCompleted") if m["t"] == event["t"]]
            self.assertEqual(len(done), 1, "a set completes with the rep that reaches its goal")
        snapshots = of_type(messages, "snapshot")
        self.assertEqual(snapshots[0]["set"], {"number": 1, "of": 2, "reps": 0, "goal": 2, "complete": False})
        self.assertEqual(snapshots[-1]["set"]["number"], 2)
        self.assertTrue(snapshots[-1]["set"]["complete"], snapshots[-1]["set"])
        self.assertTrue(all(s["side"] is None for s in snapshots))
        seen = {(s["set"]["number"], s["set"]["reps"]) for s in snapshots}
        self.assertTrue({(1, 0), (1, 1), (2, 0), (2, 1)} <= seen, seen)
        summary = of_type(messages, "summary")[-1]
        self.assertEqual((summary["prescription"]["reps"], summary["prescription"]["sets"]), (2, 2))

    def test_without_a_goal_the_snapshot_set_is_null(self):
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right")
            ws.send(mc.pose_msg(mc.elbow_pose(0, 10)))
            snapshot = ws.recv_until(lambda m: m.get("type") == "snapshot")[-1]
        finally:
            ws.close()
        self.assertIn("set", snapshot)
        self.assertIsNone(snapshot["set"])
        self.assertIn("side", snapshot)
        self.assertIsNone(snapshot["side"])


class BadOptionsTests(unittest.TestCase):
    """Options refused, by the decoder or by the exercise, with a message that says why; nothing is stored."""

    CASES = (
        # wrong types
        ({"target": "50"}, "options.target must be a number"),
        ({"rest": [30]}, "options.rest must be a number"),
        ({"enter": True}, "options.enter must be a number"),
        ({"exit": {"value": 40}}, "options.exit must be a number"),
        ({"reps": "10"}, "options.reps must be a whole number within 1…1000"),
        ({"sets": None, "reps": 2.5}, "options.reps must be a whole number within 1…1000"),
        # out of range
        ({"reps": 0}, "options.reps must be a whole number within 1…1000"),
        ({"reps": 1001}, "options.reps must be a whole number within 1…1000"),
        ({"sets": 101}, "options.sets must be a whole number within 1…100"),
        ({"sets": -1}, "options.sets must be a whole number within 1…100"),
        ({"target": 361}, "options.target must be a finite number within -360…360"),
        ({"enter": -1e308}, "options.enter must be a finite number within -360…360"),
        ({"target": -5}, "target must be within 0…180°"),
        # thresholds out of order, or a target the exercise cannot aim at
        ({"enter": 35, "exit": 40}, "thresholds.enter must be above exit"),
        ({"rest": 50, "exit": 40}, "thresholds.exit must be ≥ rest"),
        ({"target": 20}, "target must be above thresholds.rest"),
    )

    def test_websocket_start(self):
        ws = SERVER.ws()
        try:
            for options, says in self.CASES:
                with self.subTest(options=options):
                    ws.send({"type": "start", "exercise": "shoulderAbduction", "side": "right", "options": options})
                    error = ws.recv()
                    self.assertEqual(error["type"], "error", error)
                    self.assertEqual(error["code"], "invalidMessage", error)
                    self.assertIn(says, error["message"])
            # Never a crash, never a silent default: the connection still takes a good start.
            started = ws.start(exercise="shoulderAbduction", side="right", options={"target": 50})
            self.assertEqual(started["exercise"]["target"], 50)
        finally:
            ws.close()

    def test_rest_routes(self):
        subject = unique("rx-bad")
        for options, says in self.CASES:
            for path, extra in (("/v1/sessions", {}), ("/v1/analyze", {"frames": rep_frames(1)})):
                with self.subTest(path=path, options=options):
                    body = {"exercise": "shoulderAbduction", "side": "right", "subject": subject,
                            "options": options, **extra}
                    resp = SERVER.post(path, body)
                    self.assertEqual(resp.status, 400, resp)
                    error = resp.json()["error"]
                    self.assertEqual(error["code"], "invalidMessage", resp)
                    self.assertIn(says, error["message"])
        self.assertEqual(SERVER.get(f"/v1/sessions?subject={subject}").json()["sessions"], [])

    def test_options_of_the_wrong_shape(self):
        for options in ([], "target=50", 50, True):
            with self.subTest(options=options):
                resp = SERVER.post("/v1/analyze", {"exercise": "elbowFlexion", "side": "right", "options": options,
                                                   "frames": []})
                self.assertEqual(resp.status, 400, resp)
                self.assertEqual(resp.json()["error"]["message"], "options must be an object")
        raw = b'{"exercise":"elbowFlexion","side":"right","options":{"reps":3,"reps":4}}'
        resp = SERVER.post("/v1/sessions", raw, headers={"Content-Type": "application/json"})
        self.assertEqual(resp.status, 400, resp)
        self.assertIn("reps", resp.json()["error"]["message"])


class ProgressTests(unittest.TestCase):
    """§5.2 GET /v1/subjects/{subject}/progress."""

    @classmethod
    def setUpClass(cls):
        cls.subject = unique("rx progress é")
        cls.ids = []
        # Two elbow sessions with different peaks, then an abduction one, then a session with no clean rep.
        for body in (analyze_body(cls.subject, frames=rep_frames(2, peak=110)),
                     analyze_body(cls.subject, frames=rep_frames(3, peak=130)),
                     abduction_body(cls.subject, options={"target": 50}),
                     analyze_body(cls.subject, frames=rep_frames(0))):
            resp = SERVER.post("/v1/analyze", body)
            assert resp.status == 200, resp
            cls.ids.append(resp.json()["summary"]["id"])
            time.sleep(0.002)  # distinct start times (ms), so the order is the order of creation

    def get(self, query="", subject=None):
        resp = SERVER.get(progress_path(subject or self.subject, query))
        self.assertEqual(resp.status, 200, resp)
        self.assertTrue(resp.headers["content-type"].startswith("application/json"))
        return resp.json()

    def test_sessions_oldest_first_with_counts_and_mean_peak(self):
        body = self.get()
        self.assertEqual(set(body), {"sessions", "next"})
        self.assertIsNone(body["next"])
        sessions = body["sessions"]
        self.assertEqual([s["id"] for s in sessions], self.ids)
        for s in sessions:
            self.assertEqual(set(s), PROGRESS_MEMBERS)
            self.assertEqual(s["status"], "finished")
            self.assertRegex(s["startedAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual([s["exercise"] for s in sessions],
                         ["elbowFlexion", "elbowFlexion", "shoulderAbduction", "elbowFlexion"])
        self.assertEqual([s["repCount"] for s in sessions], [2, 3, 3, 0])
        self.assertEqual([s["target"] for s in sessions], [150, 150, 50, 150], "the abduction's prescribed 50°")
        self.assertAlmostEqual(sessions[0]["meanPeak"], 110, delta=3)
        self.assertAlmostEqual(sessions[1]["meanPeak"], 130, delta=3)
        self.assertAlmostEqual(sessions[2]["meanPeak"], 55, delta=2)
        self.assertIsNone(sessions[3]["meanPeak"])
        # Each session's fault counts are its stored summary's.
        for s in sessions:
            stored = SERVER.get(f"/v1/sessions/{s['id']}").json()
            self.assertEqual(s["faultCounts"], stored["faultCounts"])
            # The target each session counted against: its prescription's.
            self.assertEqual(s["target"], stored["prescription"]["target"])
            self.assertTrue(all(isinstance(n, int) and n > 0 for n in s["faultCounts"].values()), s)
        # The mean of the stored summary's clean reps.
        summary = SERVER.get(f"/v1/sessions/{self.ids[1]}").json()
        peaks = [r["peak"] for r in summary["reps"] if r["clean"]]
        self.assertAlmostEqual(sessions[1]["meanPeak"], sum(peaks) / len(peaks), places=9)
        self.assertEqual(sessions[1]["best"], summary["best"])

    def test_filters(self):
        elbow = self.get("?exercise=elbowFlexion")["sessions"]
        self.assertEqual([s["id"] for s in elbow], [self.ids[0], self.ids[1], self.ids[3]])
        self.assertEqual(self.get("?exercise=squat")["sessions"], [])
        self.assertEqual(self.get("?from=2100-01-01T00:00:00Z")["sessions"], [])
        self.assertEqual(self.get("?to=2000-01-01")["sessions"], [])
        everything = self.get("?from=0&to=4102444800")["sessions"]
        self.assertEqual([s["id"] for s in everything], self.ids)

    def test_limit_and_cursor_page_back_through_the_history(self):
        first = self.get("?limit=3")
        self.assertEqual([s["id"] for s in first["sessions"]], self.ids[1:])
        self.assertIsInstance(first["next"], str)
        older = self.get(f"?limit=3&cursor={mc.quote(first['next'])}")
        self.assertEqual([s["id"] for s in older["sessions"]], self.ids[:1])
        self.assertIsNone(older["next"])
        self.assertIsNone(self.get("?limit=4")["next"])

    def test_unknown_subject_is_an_empty_list(self):
        self.assertEqual(self.get(subject=unique("nobody")), {"sessions": [], "next": None})
        self.assertEqual(self.get(subject=self.subject.upper())["sessions"], [])

    def test_bad_parameters(self):
        for query, code, says in (
                ("?from=yesterday", "invalidQuery", "from must be ISO-8601 UTC or Unix seconds"),
                ("?to=2026-02-30", "invalidQuery", "to must be ISO-8601 UTC or Unix seconds"),
                ("?limit=0", "invalidQuery", "limit must be 1…1000"),
                ("?limit=1001", "invalidQuery", "limit must be 1…1000"),
                ("?limit=-1", "invalidQuery", "limit must be 1…1000"),
                ("?limit=1e3", "invalidQuery", "limit must be 1…1000"),
                ("?cursor=not-a-cursor", "invalidCursor", None),
                ("?cursor=" + "A" * 5000, "invalidCursor", None)):
            with self.subTest(query=query[:40]):
                resp = SERVER.get(progress_path(self.subject, query))
                self.assertEqual(resp.status, 400, resp)
                error = resp.json()["error"]
                self.assertEqual(error["code"], code)
                if says:
                    self.assertEqual(error["message"], says)

    def test_hostile_subjects(self):
        for subject, status in (("x" * 129, 400), ("é" * 128, 200), ("a\u202eb", 400), ("a\u0007b", 400),
                                ("a\u2028b", 400), ("'; DROP TABLE sessions; --", 200), ("%_*", 200),
                                ("..", 200), ("😀" * 20, 200)):
            with self.subTest(subject=subject[:20]):
                resp = SERVER.get(progress_path(subject))
                self.assertEqual(resp.status, status, resp)
                if status == 200:
                    self.assertEqual(resp.json(), {"sessions": [], "next": None})
                else:
                    self.assertEqual(resp.json()["error"]["code"], "invalidQuery")
        # A NUL is refused by the HTTP layer before routing; a "/" splits the path (no such route).
        self.assertEqual(SERVER.get("/v1/subjects/a%00b/progress").status, 400)
        self.assertEqual(SERVER.get("/v1/subjects/a%2Fb/progress").status, 404)
        self.assertEqual(SERVER.post(progress_path(self.subject), {}).status, 405)

    def test_a_live_session_is_listed_as_live(self):
        subject = unique("rx-live-progress")
        ws = SERVER.ws()
        try:
            sid = ws.start(exercise="elbowFlexion", side="right", subject=subject,
                           options={"snapshots": "off"})["session"]
            # The session's row is written after `started` is sent.
            self.assertEqual(SERVER.wait_for_session(sid, lambda _: True).status, 200)
            sessions = self.get(subject=subject)["sessions"]
            self.assertEqual([s["status"] for s in sessions], ["live"])
            self.assertIsNone(sessions[0]["meanPeak"])
            self.assertIsNone(sessions[0]["best"])
        finally:
            ws.close()


class ProgressTenantTests(unittest.TestCase):
    """§6: progress, like every read, sees only the caller's tenant."""

    TOKEN_A = "tokenRxA-0123456789abcdef"
    TOKEN_B = "tokenRxB-0123456789abcdef"

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-progress-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{cls.TOKEN_A} clinicA\n{cls.TOKEN_B} clinicB\n")
        cls.server = Server(tokens=tokens).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_each_tenant_sees_its_own_sessions_of_the_same_subject(self):
        s = self.server
        a = s.post("/v1/analyze", analyze_body("shared-subject", frames=rep_frames(1)), token=self.TOKEN_A)
        b0 = s.post("/v1/analyze", analyze_body("shared-subject", frames=rep_frames(1)), token=self.TOKEN_B)
        b = s.post("/v1/analyze", analyze_body("shared-subject", frames=rep_frames(2)), token=self.TOKEN_B)
        self.assertEqual((a.status, b0.status, b.status), (200, 200, 200))
        seen_a = s.get(progress_path("shared-subject"), token=self.TOKEN_A).json()["sessions"]
        seen_b = s.get(progress_path("shared-subject"), token=self.TOKEN_B).json()["sessions"]
        self.assertEqual([x["id"] for x in seen_a], [a.json()["summary"]["id"]])
        self.assertEqual([x["id"] for x in seen_b], [b0.json()["summary"]["id"], b.json()["summary"]["id"]])
        self.assertEqual(s.get(progress_path("shared-subject")).status, 401)
        self.assertEqual(s.get(progress_path("shared-subject"), token="wrong-0123456789abcdef").status, 401)
        # Another tenant's cursor is just a position: it reveals nothing of theirs.
        page = s.get(progress_path("shared-subject", "?limit=1"), token=self.TOKEN_B).json()
        self.assertIsNotNone(page["next"])
        other = s.get(progress_path("shared-subject", f"?cursor={mc.quote(page['next'])}"), token=self.TOKEN_A)
        self.assertEqual(other.status, 200)
        self.assertTrue(all(x["id"] not in (b0.json()["summary"]["id"], b.json()["summary"]["id"])
                            for x in other.json()["sessions"]))


if __name__ == "__main__":
    unittest.main()
