"""1.–3. Live sessions over WebSocket (PROTOCOL §3), their errors, and every input format (§4)."""

import json
import math
import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    ConnectionClosed, elbow_pose, events, mc, of_type, pose_msg, rep_frames, shared_server, squat_frames, stream_ts,
    VECTORS,
)


SERVER = None  # the shared server of this module (no tokens, no public dir)


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


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
        # docs/protocol.md §3 flow control (v2): 600 frames at once (budget 240/s, burst 480) are all analysed.
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
