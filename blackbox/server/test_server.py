"""Black-box tests of the motion-server executable against ../shared/PROTOCOL.md (the contract beside the repository).

Run:  swift build --product motion-server && .venv/bin/python -m unittest -v blackbox/server/test_server.py
Set MOTION_SERVER=/path/to/motion-server to test another build. See README.md beside this file.
"""

import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import websockets  # noqa: F401
except ImportError:
    raise ImportError("the Python package 'websockets' is missing; `make deps` installs it into .venv "
                      "(run the suite with .venv/bin/python)") from None

import motion_client as mc  # noqa: E402
from motion_client import ConnectionClosed, InvalidStatus, Server, elbow_pose, pose_msg, rep_frames  # noqa: E402

UNKNOWN_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a well-formed ULID no server issued
VECTORS = mc.FORMAT_VECTORS
SERVER = None  # the shared server (no tokens, no public dir)


def setUpModule():
    global SERVER
    binary = mc.binary_path()
    if not os.access(binary, os.X_OK):
        raise RuntimeError(
            f"motion-server binary missing at {binary}. Build it first: "
            "swift build --product motion-server (or set MOTION_SERVER=/path/to/binary)")
    SERVER = Server().start()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def stream_ts(messages, kind):
    return [m["t"] for m in messages if isinstance(m, dict) and m.get("type") == kind]


def of_type(messages, kind):
    return [m for m in messages if isinstance(m, dict) and m.get("type") == kind]


def events(messages, name=None):
    return [m for m in of_type(messages, "event") if name is None or m.get("event") == name]


def analyze_body(subject, exercise="elbowFlexion", side="right", frames=None):
    body = {"exercise": exercise, "subject": subject, "frames": frames if frames is not None else rep_frames(1)}
    if side:
        body["side"] = side
    return body


def squat_frames(n=10):
    """A standing side-view squat pose (bilateral: no side needed)."""
    frames = []
    for i in range(n):
        frames.append({"t": i / 30, "width": 1280, "height": 720, "points": {
            "neck": [640, 200], "root": [640, 400], "rightHip": [640, 400], "rightKnee": [640, 520],
            "rightAnkle": [640, 640], "rightShoulder": [640, 200]}})
    return frames


# ---------------------------------------------------------------------------------------------------------------
# 1. Live sessions over WebSocket
# ---------------------------------------------------------------------------------------------------------------

class LiveSessionTests(unittest.TestCase):
    """PROTOCOL §3: start, pose/poses, events, snapshots, reset, baseline, stop."""

    def test_three_rep_session(self):
        catalog = SERVER.get("/v1/exercises/elbowFlexion")
        self.assertEqual(catalog.status, 200, catalog)
        ws = SERVER.ws()
        try:
            started = ws.start(exercise="elbowFlexion", side="right", subject="live-3reps")
            self.assertEqual(started["type"], "started")
            sid = started["session"]
            self.assertRegex(sid, r"^[0-9A-HJKMNP-TV-Z]{26}$")
            self.assertEqual(started["exercise"], catalog.json(), "started.exercise must be the catalog entry")

            frames = rep_frames(3, peak=130.0)
            sent_t = [f["t"] for f in frames]
            mc.send_frames(ws, frames)
            msgs = ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == sent_t[-1], timeout=15)
            self.assertEqual(of_type(msgs, "error"), [], "no error expected")

            # snapshots: one per pose, in order, each carrying its pose's t (options.snapshots defaults to every)
            self.assertEqual(stream_ts(msgs, "snapshot"), sent_t)

            reps = events(msgs, "repCompleted")
            self.assertEqual(len(reps), 3, f"expected 3 repCompleted, got {mc.summarise(events(msgs))}")
            self.assertEqual([e["rep"]["index"] for e in reps], [1, 2, 3])
            for e in reps:
                self.assertAlmostEqual(e["rep"]["peak"], 130.0, delta=5.0, msg=e)
                self.assertTrue(e["rep"]["clean"])
                self.assertEqual(e["rep"]["faults"], [])
                self.assertIn(e["t"], sent_t, "event t must be a sent pose's t")
                self.assertLessEqual(e["rep"]["start"], e["rep"]["end"])
                self.assertAlmostEqual(e["rep"]["duration"], e["rep"]["end"] - e["rep"]["start"], places=6)
            self.assertEqual(events(msgs, "repRejected"), [])
            # events come before the snapshot of the pose that produced them and share its t
            for i, m in enumerate(msgs):
                if m.get("type") == "event":
                    following = next(x for x in msgs[i + 1:] if x.get("type") == "snapshot")
                    self.assertEqual(following["t"], m["t"], f"event {m} not followed by its pose's snapshot")
            last = of_type(msgs, "snapshot")[-1]
            self.assertEqual(last["repCount"], 3)
            self.assertEqual(last["rejectedCount"], 0)
            self.assertAlmostEqual(last["best"], 130.0, delta=5.0)
            self.assertEqual(last["lastRep"]["index"], 3)
            self.assertTrue(last["isVisible"])
            self.assertEqual(last["missingJoints"], [])
            self.assertTrue(last["isRunning"])
            for key in ("value", "holdProgress", "confidence", "setupIssues", "baseline"):
                self.assertIn(key, last)

            ws.send({"type": "stop"})
            code, _, after = ws.close_code()
            summaries = of_type(after, "summary")
            self.assertEqual(len(summaries), 1, f"stop must be answered with a summary, got {mc.summarise(after)}")
            self.assertEqual(code, 1000)
            summary = summaries[0]
            self.assertEqual(summary["id"], sid)
            self.assertEqual(summary["status"], "finished")
            self.assertEqual(summary["repCount"], 3)
            self.assertEqual(summary["frames"], len(frames))
            self.assertEqual(summary["subject"], "live-3reps")
        finally:
            ws.close()

        stored = SERVER.wait_for_session(sid, lambda s: s["status"] == "finished")
        self.assertEqual(stored.status, 200, stored)
        body = stored.json()
        self.assertEqual(body["status"], "finished")
        for key in ("repCount", "rejectedCount", "frames", "exercise", "side", "subject", "best", "reps"):
            self.assertEqual(body[key], summary[key], key)

    def test_permessage_deflate_accepted(self):
        ws = SERVER.ws(compression="deflate")
        try:
            names = [type(e).__name__ for e in ws.conn.protocol.extensions]
            self.assertTrue(any("Deflate" in n for n in names), f"negotiated extensions: {names}")
            ws.start(exercise="squat")
            ws.send(pose_msg(squat_frames(1)[0]))
            self.assertEqual(ws.recv()["type"], "snapshot")
        finally:
            ws.close()

    def test_started_applies_option_overrides(self):
        ws = SERVER.ws()
        try:
            started = ws.start(exercise="elbowFlexion", side="right", options={"target": 140})
            self.assertEqual(started["exercise"]["target"], 140)
        finally:
            ws.close()

    def test_reset_and_baseline_answer_with_snapshot(self):
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right")
            frames = rep_frames(1)
            mc.send_frames(ws, frames)
            msgs = ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"], 10)
            self.assertEqual(of_type(msgs, "snapshot")[-1]["repCount"], 1)

            ws.send({"type": "reset"})
            snap = ws.recv()
            self.assertEqual(snap.get("type"), "snapshot", snap)
            self.assertEqual(snap["repCount"], 0)
            self.assertIsNone(snap["best"])
            self.assertEqual(snap["t"], frames[-1]["t"], "the snapshot describes the session after the last pose")

            ws.send({"type": "baseline"})
            snap = ws.recv()
            self.assertEqual(snap.get("type"), "snapshot", snap)
            self.assertIsNotNone(snap["baseline"], "a running baseline is reported")
            self.assertIsNone(snap["baseline"]["value"])

            # the session goes on after reset: another rep counts as rep 1
            more = rep_frames(1, t0=frames[-1]["t"] + 1 / 30)
            mc.send_frames(ws, more)
            msgs = ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == more[-1]["t"], 10)
            self.assertEqual([e["rep"]["index"] for e in events(msgs, "repCompleted")], [1])
        finally:
            ws.close()

    def test_snapshots_off(self):
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right", options={"snapshots": "off"})
            frames = rep_frames(1)
            mc.send_frames(ws, frames)
            msgs = ws.drain(quiet=0.6)
            self.assertEqual(of_type(msgs, "snapshot"), [], "snapshots: off sends no snapshot for poses")
            self.assertEqual(len(events(msgs, "repCompleted")), 1, mc.summarise(msgs))
            ws.send({"type": "reset"})
            snap = ws.recv()
            self.assertEqual(snap.get("type"), "snapshot", "reset is answered with a snapshot even when off")
        finally:
            ws.close()

    def test_snapshots_interval(self):
        ws = SERVER.ws()
        try:
            ws.start(exercise="elbowFlexion", side="right", options={"snapshots": 0.5})
            frames = rep_frames(1, lead=1.0, gap=1.0)  # ~4.7 s of pose time
            mc.send_frames(ws, frames)
            msgs = ws.drain(quiet=0.6)
            ts = stream_ts(msgs, "snapshot")
            sent = [f["t"] for f in frames]
            duration = sent[-1] - sent[0]
            self.assertTrue(ts, "a numeric snapshots option still sends snapshots")
            self.assertTrue(set(ts) <= set(sent), "snapshot t must be a pose's t")
            gaps = [b - a for a, b in zip(ts, ts[1:])]
            self.assertTrue(all(g >= 0.5 - 1e-6 for g in gaps), f"snapshots closer than 0.5 s: {gaps}")
            self.assertTrue(all(g <= 0.5 + 2 / 30 for g in gaps), f"snapshots further apart than 0.5 s: {gaps}")
            self.assertAlmostEqual(len(ts), duration / 0.5 + 1, delta=1.5)
            self.assertEqual(len(events(msgs, "repCompleted")), 1)
        finally:
            ws.close()


# ---------------------------------------------------------------------------------------------------------------
# 2. Errors over WebSocket
# ---------------------------------------------------------------------------------------------------------------

class LiveErrorTests(unittest.TestCase):
    """PROTOCOL §3: a bad message is answered with an error and the session goes on; close codes."""

    def setUp(self):
        self.ws = SERVER.ws()
        self.t = 0.0

    def tearDown(self):
        self.ws.close()

    def start(self, **kw):
        fields = {"exercise": "elbowFlexion", "side": "right"}
        fields.update(kw)
        return self.ws.start(**fields)

    def next_pose(self):
        self.t = round(self.t + 1 / 30, 6)
        return pose_msg(elbow_pose(self.t, 10))

    def expect_error(self, send, code):
        send()
        reply = self.ws.recv()
        self.assertEqual(reply.get("type"), "error", f"expected error {code}, got {reply}")
        self.assertEqual(reply.get("code"), code, reply)
        self.assertIsInstance(reply.get("message"), str)
        return reply

    def expect_pose_works(self):
        pose = self.next_pose()
        self.ws.send(pose)
        msgs = self.ws.recv_until(lambda m: m.get("type") in ("snapshot", "error"))
        self.assertEqual(msgs[-1].get("type"), "snapshot", f"a valid pose after the error failed: {msgs[-1]}")
        self.assertEqual(msgs[-1]["t"], pose["t"])

    def test_invalid_json(self):
        self.start()
        self.expect_error(lambda: self.ws.send('{"type":"pose","t":1,'), "invalidJSON")
        self.expect_error(lambda: self.ws.send("[1,2,3]"), "invalidJSON")
        self.expect_pose_works()

    def test_unknown_type(self):
        self.start()
        self.expect_error(lambda: self.ws.send({"type": "dance"}), "unknownType")
        self.expect_error(lambda: self.ws.send({"t": 1.0}), "unknownType")
        self.expect_pose_works()

    def test_not_started(self):
        self.expect_error(lambda: self.ws.send(self.next_pose()), "notStarted")
        self.expect_error(lambda: self.ws.send({"type": "stop"}), "notStarted")
        self.start()
        self.expect_pose_works()

    def test_already_started(self):
        self.start()
        self.expect_pose_works()
        self.expect_error(lambda: self.ws.send({"type": "start", "exercise": "squat"}), "alreadyStarted")
        self.expect_pose_works()

    def test_unknown_exercise(self):
        self.expect_error(lambda: self.ws.send({"type": "start", "exercise": "jumpingJacks"}), "unknownExercise")
        self.start()
        self.expect_pose_works()

    def test_missing_side(self):
        self.expect_error(lambda: self.ws.send({"type": "start", "exercise": "elbowFlexion"}), "missingSide")
        self.start()
        self.expect_pose_works()

    def test_invalid_pose(self):
        self.start()
        self.expect_pose_works()
        t = self.t + 1
        self.expect_error(lambda: self.ws.send(
            '{"type":"pose","t":%s,"points":{"rightElbow":[1e400,10]}}' % t), "invalidPose")
        self.expect_error(lambda: self.ws.send({"type": "pose", "t": t, "keypoints": [1, 2, 0.5]}), "invalidPose")
        self.expect_error(lambda: self.ws.send({"type": "pose", "points": {}}), "invalidPose")  # no t
        self.expect_error(lambda: self.ws.send({"type": "pose", "t": "x", "points": {}}), "invalidPose")
        self.expect_error(lambda: self.ws.send(
            {"type": "pose", "t": t, "points": {"rightElbow": [1, 2]}, "confidence": {"rightElbow": 2}}),
            "invalidPose")
        self.expect_pose_works()

    def test_non_increasing_time(self):
        self.start()
        self.expect_pose_works()
        same = pose_msg(elbow_pose(self.t, 10))
        self.expect_error(lambda: self.ws.send(same), "nonIncreasingTime")
        earlier = pose_msg(elbow_pose(self.t - 1, 10))
        self.expect_error(lambda: self.ws.send(earlier), "nonIncreasingTime")
        self.expect_pose_works()

    def test_a_batch_over_the_budget_is_processed_whole(self):
        # PROTOCOL.md §3 flow control (v2): 600 frames at once (budget 240/s, burst 480) are all analysed.
        self.start()
        frames = [elbow_pose(round((i + 1) / 30, 6), 10) for i in range(600)]
        self.ws.send({"type": "poses", "frames": frames})
        msgs = self.ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"])
        self.assertEqual(of_type(msgs, "error"), [], "no frame is refused for speed")
        self.assertEqual(len(of_type(msgs, "snapshot")), 600)
        self.t = frames[-1]["t"]
        self.expect_pose_works()

    def test_a_blast_over_the_budget_is_slowed_not_refused(self):
        self.start()
        sent = [self.next_pose() for _ in range(800)]
        began = time.monotonic()
        for pose in sent:
            self.ws.send(pose)
        msgs = self.ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == sent[-1]["t"])
        self.assertEqual(of_type(msgs, "error"), [], "no frame is refused for speed")
        self.assertEqual([m["t"] for m in of_type(msgs, "snapshot")], [p["t"] for p in sent], "every frame, in order")
        # A burst of 480, then 240 frames/s: the rest cannot all have been read at once.
        self.assertGreater(time.monotonic() - began, 0.5, "the connection was slowed down")
        self.expect_pose_works()

    def test_binary_frame(self):
        self.start()
        self.expect_pose_works()
        self.ws.conn.send(b'{"type":"pose","t":99}')
        reply = self.ws.recv()
        self.assertEqual(reply.get("type"), "error", f"a binary frame must be answered with an error: {reply}")
        self.assertIsInstance(reply.get("code"), str)
        self.expect_pose_works()

    def test_message_too_big_closes_1009(self):
        for compression in (None, "deflate"):
            with self.subTest(compression=compression):
                ws = SERVER.ws(compression=compression)
                try:
                    ws.start(exercise="elbowFlexion", side="right")
                    big = '{"type":"pose","t":1,"pad":"' + "x" * (1 << 20) + '"}'
                    try:
                        ws.send(big)
                    except ConnectionClosed:
                        pass
                    code, _, _ = ws.close_code()
                    self.assertEqual(code, 1009, f"a {len(big)}-byte message must close with 1009")
                finally:
                    ws.close()

    def test_invalid_utf8_closes_1007(self):
        for compression in (None, "deflate"):
            with self.subTest(compression=compression):
                ws = SERVER.ws(compression=compression)
                try:
                    ws.start(exercise="elbowFlexion", side="right")
                    try:
                        ws.send_raw_text(b'{"type":"pose","t":1,"x":"\xff\xfe"}')
                    except ConnectionClosed:
                        pass
                    code, _, _ = ws.close_code()
                    self.assertEqual(code, 1007)
                finally:
                    ws.close()


# ---------------------------------------------------------------------------------------------------------------
# 3. Input formats
# ---------------------------------------------------------------------------------------------------------------

class InputFormatTests(unittest.TestCase):
    """PROTOCOL §4: every case of vectors/formats.json is accepted over the wire."""

    def test_vectors(self):
        with open(VECTORS) as f:
            cases = json.load(f)["cases"]
        self.assertGreaterEqual(len(cases), 5)
        values = {}
        for case in cases:
            with self.subTest(case=case["name"]):
                ws = SERVER.ws()
                try:
                    start = dict(case["start"])
                    start.setdefault("exercise", "shoulderAbduction")
                    start.setdefault("side", "right")
                    ws.start(**start)
                    # the vector pose, then copies 0.1 s apart so debounced visibility settles (0.3 s)
                    last = None
                    for k in range(6):
                        pose = dict(case["pose"])
                        pose["t"] = round(case["pose"]["t"] + 0.1 * k, 6)
                        ws.send(pose)
                        reply = ws.recv_until(lambda m: m.get("type") in ("snapshot", "error"))[-1]
                        self.assertEqual(reply.get("type"), "snapshot", f"{case['name']}: {reply}")
                        self.assertEqual(reply["t"], pose["t"])
                        last = reply
                    self.assertEqual(last["missingJoints"], [], f"{case['name']}: full pose, nothing missing")
                    self.assertTrue(last["isVisible"])
                    self.assertIsNotNone(last["value"])
                    values[case["name"]] = last["value"]
                finally:
                    ws.close()
        # every format decodes to the same pose, so the same measured angle: ∠(trunk neck→root, upper arm)
        expect = cases[0]["expect"]
        trunk = [expect["root"][i] - expect["neck"][i] for i in (0, 1)]
        arm = [expect["rightElbow"][i] - expect["rightShoulder"][i] for i in (0, 1)]
        angle = math.degrees(math.acos((trunk[0] * arm[0] + trunk[1] * arm[1]) /
                                       (math.hypot(*trunk) * math.hypot(*arm))))
        for name, value in values.items():
            self.assertAlmostEqual(value, angle, delta=0.5, msg=f"{name}: {values}")


# ---------------------------------------------------------------------------------------------------------------
# 4./5. Client vanishing and server drain
# ---------------------------------------------------------------------------------------------------------------

class DisconnectTests(unittest.TestCase):
    """PROTOCOL §3 close codes: whatever the close reason the summary is stored, abandoned unless stopped."""

    def test_client_vanishes(self):
        ws = SERVER.ws()
        started = ws.start(exercise="elbowFlexion", side="right")
        sid = started["session"]
        frames = rep_frames(1)[:40]
        mc.send_frames(ws, frames)
        ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"])
        live = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual(live["status"], "live")
        ws.abort()  # TCP reset, no close frame
        resp = SERVER.wait_for_session(sid, lambda s: s["status"] == "abandoned", timeout=3)
        self.assertEqual(resp.status, 200, resp)
        body = resp.json()
        self.assertEqual(body["status"], "abandoned", f"2 s after the client vanished: {resp}")
        self.assertEqual(body["frames"], len(frames))
        self.assertIsNotNone(body["endedAt"])

    def test_sigterm_drains(self):
        server = Server().start()
        try:
            ws = server.ws()
            sid = ws.start(exercise="elbowFlexion", side="right")["session"]
            frames = rep_frames(1)
            mc.send_frames(ws, frames)
            ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"], 10)
            http_id = server.post("/v1/sessions", {"exercise": "squat"}).json()["id"]
            self.assertEqual(server.post(f"/v1/sessions/{http_id}/poses", squat_frames(1)[0]).status, 200)
            watcher = server.ws(f"/v1/sessions/{sid}/watch")
            watcher.recv()

            server.proc.send_signal(signal.SIGTERM)
            code, _, _ = ws.close_code(timeout=8)
            self.assertEqual(code, 1001, "SIGTERM closes live sockets with 1001")
            self.assertEqual(watcher.close_code(timeout=5)[0], 1001, "and watchers too")
            watcher.close()
            try:
                rc = server.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.fail("the server did not exit within 10 s of SIGTERM")
            self.assertEqual(rc, 0, server.stderr_text())
            ws.close()

            again = Server(database=server.database).start()
            try:
                for ident, frames_expected in ((sid, len(frames)), (http_id, 1)):
                    resp = again.get(f"/v1/sessions/{ident}")
                    self.assertEqual(resp.status, 200, resp)
                    self.assertEqual(resp.json()["status"], "abandoned", resp)
                    self.assertEqual(resp.json()["frames"], frames_expected, resp)
                listed = again.get("/v1/sessions?status=live").json()["sessions"]
                self.assertEqual(listed, [], "nothing is left live after a drain")
            finally:
                again.cleanup()
        finally:
            server.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# 6. Watch
# ---------------------------------------------------------------------------------------------------------------

class WatchTests(unittest.TestCase):
    """PROTOCOL §5: GET /v1/sessions/{id}/watch."""

    def test_watcher_receives_events_and_snapshots(self):
        ws = SERVER.ws()
        watcher = None
        try:
            sid = ws.start(exercise="elbowFlexion", side="right")["session"]
            watcher = SERVER.ws(f"/v1/sessions/{sid}/watch")
            time.sleep(0.2)
            frames = rep_frames(2)
            mc.send_frames(ws, frames)
            last_t = frames[-1]["t"]
            own = ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == last_t, 10)
            seen = watcher.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == last_t, 10)
            self.assertEqual(events(seen), events(own), "the watcher gets the session's events, in order")
            self.assertEqual(len(events(seen, "repCompleted")), 2)
            watched_ts = [t for t in stream_ts(seen, "snapshot") if t is not None]
            self.assertTrue(set(watched_ts) <= set(stream_ts(own, "snapshot")))
            self.assertGreater(len(watched_ts), len(frames) // 2, "the watcher receives snapshots as they happen")
            self.assertEqual(of_type(seen, "error"), [])
            # read-only: a message from the watcher does not drive the session
            watcher.send({"type": "stop"})
            time.sleep(0.2)
            self.assertEqual(SERVER.get(f"/v1/sessions/{sid}").json()["status"], "live")
            ws.send({"type": "stop"})
            self.assertEqual(ws.close_code()[0], 1000)
            code, _, _ = watcher.close_code()
            self.assertIsNotNone(code, "the watcher is closed when the session ends")
        finally:
            ws.close()
            if watcher:
                watcher.close()

    def test_watch_unknown_id_is_404(self):
        for ident in (UNKNOWN_ID, "not-an-id"):
            with self.subTest(id=ident):
                with self.assertRaises(InvalidStatus) as ctx:
                    SERVER.ws(f"/v1/sessions/{ident}/watch")
                self.assertEqual(ctx.exception.response.status_code, 404)


# ---------------------------------------------------------------------------------------------------------------
# 7. REST
# ---------------------------------------------------------------------------------------------------------------

class RESTTests(unittest.TestCase):
    """PROTOCOL §5."""

    def test_exercises(self):
        resp = SERVER.get("/v1/exercises")
        self.assertEqual(resp.status, 200)
        self.assertTrue(resp.headers["content-type"].startswith("application/json"))
        catalog = resp.json()["exercises"]
        self.assertEqual(len(catalog), 8)
        ids = [e["id"] for e in catalog]
        self.assertEqual(set(ids), {"elbowFlexion", "shoulderFlexion", "shoulderAbduction", "shoulderAbductionHold",
                                    "hipAbduction", "kneeExtension", "squat", "ankleDorsiflexion"})
        for entry in catalog:
            for key in ("id", "name", "view", "kind", "joints", "thresholds", "target", "faults"):
                self.assertIn(key, entry, entry["id"])
            self.assertIn(entry["kind"], ("rep", "hold"))
            one = SERVER.get(f"/v1/exercises/{entry['id']}")
            self.assertEqual(one.status, 200)
            self.assertEqual(one.json(), entry)
        missing = SERVER.get("/v1/exercises/jumpingJacks")
        self.assertEqual(missing.status, 404)
        self.assertIn("code", missing.json()["error"])

    def test_http_session_lifecycle(self):
        created = SERVER.post("/v1/sessions", {"exercise": "elbowFlexion", "side": "right", "subject": "rest-life"})
        self.assertEqual(created.status, 201, created)
        sid = created.json()["id"]
        frames = rep_frames(3)
        all_events = []

        single = SERVER.post(f"/v1/sessions/{sid}/poses", frames[0])
        self.assertEqual(single.status, 200, single)
        body = single.json()
        self.assertEqual(set(body), {"events", "snapshot"})
        self.assertEqual(body["snapshot"]["t"], frames[0]["t"])
        all_events += body["events"]

        batch = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": frames[1:150]})
        self.assertEqual(batch.status, 200, batch)
        self.assertEqual(batch.json()["snapshot"]["t"], frames[149]["t"])
        all_events += batch.json()["events"]

        ndjson = "\n".join(json.dumps(f) for f in frames[150:]) + "\n"
        nd = SERVER.post(f"/v1/sessions/{sid}/poses", ndjson, headers={"Content-Type": "application/x-ndjson"})
        self.assertEqual(nd.status, 200, nd)
        self.assertEqual(nd.json()["snapshot"]["t"], frames[-1]["t"])
        all_events += nd.json()["events"]

        reps = [e for e in all_events if e["event"] == "repCompleted"]
        self.assertEqual([e["rep"]["index"] for e in reps], [1, 2, 3])
        for e in reps:
            self.assertIn(e["t"], [f["t"] for f in frames])
        self.assertEqual(nd.json()["snapshot"]["repCount"], 3)

        self.assertEqual(SERVER.get(f"/v1/sessions/{sid}").json()["status"], "live")
        live_delete = SERVER.delete(f"/v1/sessions/{sid}")
        self.assertEqual(live_delete.status, 409, live_delete)

        stop = SERVER.post(f"/v1/sessions/{sid}/stop")
        self.assertEqual(stop.status, 200, stop)
        summary = stop.json()
        self.assertEqual(summary["status"], "finished")
        self.assertEqual(summary["repCount"], 3)
        self.assertEqual(summary["frames"], len(frames))
        stored = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual(stored["status"], "finished")
        self.assertEqual(stored["repCount"], 3)
        self.assertEqual(stored["frames"], len(frames))

    def test_analyze(self):
        frames = rep_frames(3)
        resp = SERVER.post("/v1/analyze", analyze_body("rest-analyze", frames=frames))
        self.assertEqual(resp.status, 200, resp)
        body = resp.json()
        self.assertEqual(set(body), {"events", "summary"})
        reps = [e for e in body["events"] if e["event"] == "repCompleted"]
        self.assertEqual(len(reps), 3)
        summary = body["summary"]
        self.assertEqual(summary["status"], "finished")
        self.assertEqual(summary["repCount"], 3)
        self.assertEqual(summary["frames"], len(frames))
        stored = SERVER.get(f"/v1/sessions/{summary['id']}")
        self.assertEqual(stored.status, 200)
        self.assertEqual(stored.json()["repCount"], 3)
        self.assertEqual(stored.json()["status"], "finished")

    def test_rest_batches_are_judged_frame_by_frame(self):
        """PROTOCOL.md §3: a refused frame is answered with its index; the events of every other frame come back;
        the first unknown joint name of the session is told once, without an index."""
        frames = rep_frames(2)
        reference = SERVER.post("/v1/analyze", analyze_body("rest-batch-reference", frames=frames)).json()
        expected = [(e["t"], e["event"]) for e in reference["events"]]
        self.assertTrue(any(kind == "repCompleted" for _, kind in expected), reference)

        created = SERVER.post("/v1/sessions", {"exercise": "elbowFlexion", "side": "right", "subject": "rest-batch"})
        self.assertEqual(created.status, 201, created)
        sid = created.json()["id"]
        half = len(frames) // 2
        first = [dict(f) for f in frames[:half]]
        first[3] = dict(first[3], points=dict(first[3]["points"], left_shoulder_1_joint=[1, 2]))
        batch = first[:5] + [{"t": "late"}] + first[5:] + [dict(first[-1])]  # bad frame, then a repeated t
        one = SERVER.post(f"/v1/sessions/{sid}/poses", {"frames": batch})
        self.assertEqual(one.status, 200, one)
        errors = one.json()["errors"]
        self.assertEqual([(e["code"], e.get("batchIndex")) for e in errors],
                         [("unknownJoint", None), ("invalidPose", 5), ("nonIncreasingTime", len(batch) - 1)], errors)
        self.assertIn("left_shoulder_1_joint", errors[0]["message"])

        rest = [dict(f) for f in frames[half:]]
        rest[0] = dict(rest[0], points=dict(rest[0]["points"], LeftElbow=[1, 2]))
        ndjson = "\n".join(json.dumps(f) for f in rest) + "\n"
        two = SERVER.post(f"/v1/sessions/{sid}/poses", ndjson, headers={"Content-Type": "application/x-ndjson"})
        self.assertEqual(two.status, 200, two)
        self.assertNotIn("errors", two.json(), "the unknown joint was told once per session")
        got = [(e["t"], e["event"]) for e in one.json()["events"] + two.json()["events"]]
        self.assertEqual(got, expected, "every accepted frame's events, as a clean run gives")
        stop = SERVER.post(f"/v1/sessions/{sid}/stop")
        self.assertEqual(stop.json()["frames"], len(frames))

        analyzed = SERVER.post("/v1/analyze", analyze_body("rest-batch-analyze", frames=batch))
        self.assertEqual(analyzed.status, 200, analyzed)
        self.assertEqual([(e["code"], e.get("batchIndex")) for e in analyzed.json()["errors"]],
                         [("unknownJoint", None), ("invalidPose", 5), ("nonIncreasingTime", len(batch) - 1)])
        self.assertEqual(analyzed.json()["summary"]["frames"], half)

    def test_csv_series_and_delete(self):
        sid = SERVER.post("/v1/analyze", analyze_body("rest-csv", frames=rep_frames(3))).json()["summary"]["id"]
        got = SERVER.get(f"/v1/sessions/{sid}")
        self.assertEqual(got.status, 200)
        summary = got.json()
        for key in ("id", "subject", "exercise", "side", "status", "startedAt", "endedAt", "duration", "frames",
                    "visibleRatio", "repCount", "rejectedCount", "best", "baseline", "reps", "faultCounts"):
            self.assertIn(key, summary)
        self.assertRegex(summary["startedAt"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")

        csv_q = SERVER.get(f"/v1/sessions/{sid}?format=csv")
        csv_h = SERVER.get(f"/v1/sessions/{sid}", headers={"Accept": "text/csv"})
        for resp in (csv_q, csv_h):
            self.assertEqual(resp.status, 200, resp)
            self.assertTrue(resp.headers["content-type"].startswith("text/csv"), resp)
            lines = [line for line in resp.body.decode().splitlines() if line]
            self.assertTrue(lines[0].startswith("index,"), lines[0])
            self.assertEqual(len(lines), 1 + 3, lines)
            self.assertEqual([line.split(",")[0] for line in lines[1:]], ["1", "2", "3"])
        self.assertEqual(csv_q.body, csv_h.body)

        series = SERVER.get(f"/v1/sessions/{sid}/series")
        self.assertEqual(series.status, 200, series)
        data = series.json()
        self.assertIsInstance(data["t"], list)
        self.assertIsInstance(data["value"], list)
        self.assertEqual(len(data["t"]), len(data["value"]))
        self.assertGreater(len(data["t"]), 10)
        self.assertEqual(data["t"], sorted(data["t"]))
        self.assertLessEqual(max(v for v in data["value"] if v is not None), 135)

        deleted = SERVER.delete(f"/v1/sessions/{sid}")
        self.assertEqual(deleted.status, 204, deleted)
        self.assertEqual(deleted.body, b"")
        for path in (f"/v1/sessions/{sid}", f"/v1/sessions/{sid}/series", f"/v1/sessions/{sid}?format=csv"):
            self.assertEqual(SERVER.get(path).status, 404, path)
        self.assertEqual(SERVER.delete(f"/v1/sessions/{sid}").status, 404)

    def test_delete_live_websocket_session_is_409(self):
        ws = SERVER.ws()
        try:
            sid = ws.start(exercise="elbowFlexion", side="right")["session"]
            time.sleep(0.1)
            resp = SERVER.delete(f"/v1/sessions/{sid}")
            self.assertEqual(resp.status, 409, resp)
            self.assertIn("code", resp.json()["error"])
            ws.send(pose_msg(elbow_pose(1.0, 10)))
            self.assertEqual(ws.recv()["type"], "snapshot", "the session survives the refused delete")
        finally:
            ws.close()

    def test_list_filters_and_pagination(self):
        subject = f"list-{time.time_ns()}"
        created = []
        for i in range(25):
            resp = SERVER.post("/v1/analyze", analyze_body(subject, frames=rep_frames(0, lead=0.2)))
            self.assertEqual(resp.status, 200, resp)
            created.append(resp.json()["summary"]["id"])
            time.sleep(0.003)
        for _ in range(2):
            resp = SERVER.post("/v1/analyze", analyze_body(subject, "squat", None, squat_frames()))
            self.assertEqual(resp.status, 200, resp)
            created.append(resp.json()["summary"]["id"])
            time.sleep(0.003)
        live = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": subject}).json()["id"]
        created.append(live)
        q = "subject=" + mc.quote(subject)

        everything = SERVER.get(f"/v1/sessions?{q}&limit=500").json()
        ids = [s["id"] for s in everything["sessions"]]
        self.assertIsNone(everything["next"])
        self.assertEqual(set(ids), set(created))
        self.assertEqual(ids, list(reversed(created)), "newest first")
        started = [s["startedAt"] for s in everything["sessions"]]
        self.assertEqual(started, sorted(started, reverse=True))

        # pagination: pages of 10 cover everything without overlap
        pages, cursor, seen = [], None, []
        for _ in range(10):
            path = f"/v1/sessions?{q}&limit=10" + (f"&cursor={mc.quote(cursor)}" if cursor else "")
            page = SERVER.get(path)
            self.assertEqual(page.status, 200, page)
            body = page.json()
            pages.append([s["id"] for s in body["sessions"]])
            seen += pages[-1]
            cursor = body["next"]
            if cursor is None:
                break
        self.assertEqual([len(p) for p in pages], [10, 10, 8])
        self.assertEqual(len(seen), len(set(seen)), "pages overlap")
        self.assertEqual(seen, ids)

        bad = SERVER.get(f"/v1/sessions?{q}&cursor=garbage!!")
        self.assertEqual(bad.status, 400, bad)
        self.assertIn("code", bad.json()["error"])

        def listed(extra):
            resp = SERVER.get(f"/v1/sessions?{q}&limit=500&{extra}")
            self.assertEqual(resp.status, 200, resp)
            return [s["id"] for s in resp.json()["sessions"]]

        squats = listed("exercise=squat")
        self.assertEqual(set(squats), set(created[25:]))
        self.assertEqual(set(listed("exercise=elbowFlexion")), set(created[:25]))
        self.assertEqual(listed("status=live"), [live])
        self.assertEqual(set(listed("status=finished")), set(created[:-1]))
        self.assertEqual(listed("status=abandoned"), [])
        self.assertEqual(listed("exercise=squat&status=finished"), list(reversed(created[25:27])))
        self.assertEqual(SERVER.get(f"/v1/sessions?{q}&status=bogus").status, 400)
        now = time.time()
        self.assertEqual(set(listed(f"from={int(now - 3600)}&to={int(now + 3600)}")), set(created))
        self.assertEqual(set(listed("from=2000-01-01T00:00:00Z")), set(created))
        self.assertEqual(listed(f"from={int(now + 3600)}"), [])
        self.assertEqual(listed("to=2000-01-01T00:00:00Z"), [])
        self.assertEqual(SERVER.get(f"/v1/sessions?{q}&from=yesterday").status, 400)
        self.assertEqual(SERVER.get("/v1/sessions?subject=nobody-has-this-subject").json()["sessions"], [])
        SERVER.post(f"/v1/sessions/{live}/stop")


# ---------------------------------------------------------------------------------------------------------------
# 8. REST: malformed and hostile input
# ---------------------------------------------------------------------------------------------------------------

class HostileRESTTests(unittest.TestCase):

    def assertError(self, resp, status, code=None):
        self.assertEqual(resp.status, status, resp)
        self.assertTrue(resp.headers.get("content-type", "").startswith("application/json"), resp)
        err = resp.json()["error"]
        self.assertIsInstance(err["code"], str)
        self.assertIsInstance(err["message"], str)
        if code:
            self.assertEqual(err["code"], code, resp)
        return err

    def live_http_session(self):
        resp = SERVER.post("/v1/sessions", {"exercise": "elbowFlexion", "side": "right"})
        self.assertEqual(resp.status, 201, resp)
        return resp.json()["id"]

    def test_bad_json_names_byte_offset(self):
        resp = SERVER.post("/v1/sessions", '{"exercise": "squat", "side": }',
                           headers={"Content-Type": "application/json"})
        err = self.assertError(resp, 400, "invalidJSON")
        self.assertRegex(err["message"], r"byte \d+", "the message names the byte offset")
        sid = self.live_http_session()
        resp = SERVER.post(f"/v1/sessions/{sid}/poses", '{"t": 1.0, "points": {', headers={
            "Content-Type": "application/json"})
        self.assertRegex(self.assertError(resp, 400, "invalidJSON")["message"], r"byte \d+")
        resp = SERVER.post("/v1/sessions", b'{"exercise":"sq\xffuat"}', headers={"Content-Type": "application/json"})
        self.assertError(resp, 400, "invalidJSON")
        resp = SERVER.post("/v1/sessions", "[" * 200 + "]" * 200, headers={"Content-Type": "application/json"})
        self.assertError(resp, 400)
        resp = SERVER.post("/v1/sessions", "", headers={"Content-Type": "application/json"})
        self.assertError(resp, 400)

    def test_wrong_types(self):
        for body in ({"exercise": 5}, {"exercise": "squat", "side": 1}, {"exercise": "squat", "options": []},
                     {"exercise": "squat", "subject": ["a"]}, {"exercise": "squat", "format": "openpose"},
                     {"side": "right"}, [1, 2], "squat"):
            with self.subTest(body=body):
                self.assertError(SERVER.post("/v1/sessions", body, headers={"Content-Type": "application/json"}), 400)
        sid = self.live_http_session()
        for pose in ({"t": "x"}, {"t": 1, "points": []}, {"t": 1, "points": {"rightElbow": "a"}},
                     {"t": 1, "width": "w", "height": 3}, {"frames": 5}):
            with self.subTest(pose=pose):
                self.assertError(SERVER.post(f"/v1/sessions/{sid}/poses", pose), 400, "invalidPose")
        self.assertEqual(SERVER.post(f"/v1/sessions/{sid}/poses", elbow_pose(1.0, 10)).status, 200)

    def test_unknown_exercise_and_missing_side(self):
        for path in ("/v1/sessions", "/v1/analyze"):
            with self.subTest(path=path):
                self.assertError(SERVER.post(path, {"exercise": "jumpingJacks", "frames": []}), 400, "unknownExercise")
                self.assertError(SERVER.post(path, {"exercise": "elbowFlexion", "frames": []}), 400, "missingSide")

    def test_huge_body_413(self):
        size = 9 << 20
        sock = socket.create_connection((SERVER.host, SERVER.port), timeout=10)
        try:
            sock.sendall((f"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {size}\r\n\r\n").encode())
            chunk = b"[" + b" " * (1 << 20)
            try:
                sent = 0
                while sent < size:
                    sock.sendall(chunk[:min(len(chunk), size - sent)])
                    sent += len(chunk)
            except OSError:
                pass  # the server may answer and close before reading everything
            data = b""
            try:
                while b"\r\n\r\n" not in data:
                    more = sock.recv(65536)
                    if not more:
                        break
                    data += more
            except OSError:
                pass
        finally:
            sock.close()
        self.assertTrue(data.startswith(b"HTTP/1.1 413"), f"a 9 MiB body answered {data[:200]!r}")

    def test_unsupported_media_type(self):
        for path in ("/v1/sessions", "/v1/analyze"):
            resp = SERVER.post(path, '{"exercise":"squat"}', headers={"Content-Type": "text/plain"})
            self.assertError(resp, 415)
        sid = self.live_http_session()
        resp = SERVER.post(f"/v1/sessions/{sid}/poses", json.dumps(elbow_pose(1, 10)),
                           headers={"Content-Type": "application/xml"})
        self.assertError(resp, 415)

    def test_unknown_and_malformed_ids_404(self):
        ids = [UNKNOWN_ID, "not-an-id", UNKNOWN_ID.lower(), UNKNOWN_ID + "0", "8" + UNKNOWN_ID[1:], "%F0%9F%98%80",
               "..%2F..%2Fetc%2Fpasswd", "' OR 1=1 --".replace(" ", "%20"), "%00", "a%00b"]
        for ident in ids:
            with self.subTest(id=ident):
                for method, path in (("GET", f"/v1/sessions/{ident}"), ("GET", f"/v1/sessions/{ident}?format=csv"),
                                     ("GET", f"/v1/sessions/{ident}/series"), ("DELETE", f"/v1/sessions/{ident}"),
                                     ("POST", f"/v1/sessions/{ident}/poses"), ("POST", f"/v1/sessions/{ident}/stop")):
                    body = json.dumps(elbow_pose(1, 10)) if path.endswith("poses") else None
                    resp = SERVER.request(method, path, body=body, headers={"Content-Type": "application/json"})
                    # a NUL byte in the path may be refused by the HTTP layer (400) before routing
                    allowed = (400, 404) if "%00" in ident else (404,)
                    self.assertIn(resp.status, allowed, resp)
                    self.assertIn("error", resp.json())

    def test_wrong_method_405_with_allow(self):
        sid = SERVER.post("/v1/analyze", analyze_body("m405")).json()["summary"]["id"]
        for method, path in (("PUT", "/v1/sessions"), ("DELETE", "/v1/exercises"), ("PATCH", f"/v1/sessions/{sid}"),
                             ("GET", "/v1/analyze"), ("GET", f"/v1/sessions/{sid}/stop"),
                             ("PUT", f"/v1/sessions/{sid}/poses"), ("POST", "/v1/exercises/squat")):
            with self.subTest(method=method, path=path):
                resp = SERVER.request(method, path)
                self.assertEqual(resp.status, 405, resp)
                self.assertIn("allow", resp.headers, resp)
                allowed = {m.strip() for m in resp.headers["allow"].split(",")}
                self.assertNotIn(method, allowed)
                self.assertTrue(allowed, resp)

    def test_nul_and_emoji_subject_round_trip(self):
        subject = "tricky \U0001F600 e\u0301 \"quote\" \\ </script> '; DROP TABLE sessions; --"
        resp = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": subject})
        self.assertEqual(resp.status, 201, resp)
        sid = resp.json()["id"]
        self.assertEqual(SERVER.get(f"/v1/sessions/{sid}").json()["subject"], subject)
        self.assertEqual(SERVER.post(f"/v1/sessions/{sid}/stop").json()["subject"], subject)
        # and over WebSocket
        ws = SERVER.ws()
        try:
            wsid = ws.start(exercise="squat", subject=subject)["session"]
            ws.send({"type": "stop"})
            _, _, msgs = ws.close_code()
            self.assertEqual(of_type(msgs, "summary")[0]["subject"], subject)
        finally:
            ws.close()
        stored = SERVER.wait_for_session(wsid, lambda s: s["status"] == "finished")
        self.assertEqual(stored.json()["subject"], subject)
        # an emoji subject can be used as a list filter
        emoji = f"\U0001F600 patient \u00e9 {time.time_ns()}"
        eid = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": emoji}).json()["id"]
        listed = SERVER.get("/v1/sessions?subject=" + mc.quote(emoji))
        self.assertEqual(listed.status, 200, listed)
        self.assertEqual([x["id"] for x in listed.json()["sessions"]], [eid])
        SERVER.post(f"/v1/sessions/{eid}/stop")

    def test_subject_with_control_characters_is_refused(self):
        """§3: subject is an opaque id "used to query history later"; a NUL or other control character could not be
        sent back in a query, so the server refuses it rather than storing a subject nobody can look up."""
        for subject in ("nul\u0000byte", "tab\there", "bell\u0007", "del\u007f"):
            resp = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": subject})
            self.assertError(resp, 400)
            self.assertEqual(resp.json()["error"]["code"], "invalidMessage", resp)
        ws = SERVER.ws()
        try:
            ws.send({"type": "start", "exercise": "squat", "subject": "nul\u0000byte"})
            reply = ws.recv()
            self.assertEqual((reply.get("type"), reply.get("code")), ("error", "invalidMessage"), reply)
        finally:
            ws.close()

    def test_subject_length(self):
        self.assertError(SERVER.post("/v1/sessions", {"exercise": "squat", "subject": "x" * 129}), 400)
        self.assertError(SERVER.post("/v1/sessions", {"exercise": "squat", "subject": "x" * 10000}), 400)
        ok = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": "x" * 128})
        self.assertEqual(ok.status, 201, ok)
        SERVER.post(f"/v1/sessions/{ok.json()['id']}/stop")
        emoji = SERVER.post("/v1/sessions", {"exercise": "squat", "subject": "\U0001F600" * 128})
        self.assertEqual(emoji.status, 201, f"128 characters (512 bytes) is within the limit: {emoji}")
        SERVER.post(f"/v1/sessions/{emoji.json()['id']}/stop")
        ws = SERVER.ws()
        try:
            ws.send({"type": "start", "exercise": "squat", "subject": "y" * 129})
            reply = ws.recv()
            self.assertEqual(reply.get("type"), "error", reply)
        finally:
            ws.close()

    def test_stopped_session_refuses_poses(self):
        sid = self.live_http_session()
        self.assertEqual(SERVER.post(f"/v1/sessions/{sid}/stop").status, 200)
        resp = SERVER.post(f"/v1/sessions/{sid}/poses", elbow_pose(1, 10))
        self.assertIn(resp.status, (404, 409), resp)
        self.assertNotEqual(resp.status, 200)


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
        ws = SERVER.ws()
        try:
            ws_live = ws.start(exercise="squat")["session"]
            order = {"get": 0, "post": 1, "delete": 2}
            operations = sorted(((m, p) for p, item in paths.items() for m in item
                                 if m in ("get", "post", "put", "patch", "delete")),
                                key=lambda mp: (order.get(mp[0], 3), mp[1]))
            checked = []
            for method, path in operations:
                # /v1/echo is mounted only with --ws-echo (PROTOCOL.md §7); test_ws_echo_route covers it.
                if path != "/v1/echo":
                    concrete = path.replace("{id}", "elbowFlexion" if "exercises" in path else
                                            ws_live if path.endswith("/watch") else
                                            http_live if path.endswith(("/poses", "/stop")) else finished)
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
    database's write lock (SQLite waits 5 s, then fails with SQLITE_BUSY), or a stored row is damaged."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server().start()

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
            ws.start(exercise="elbowFlexion", side="right", options={"snapshots": "off"})
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
