"""PROTOCOL §3.2: binary pose frames, written here with Python's struct (independent of the server's encoder),
mixed with JSON messages in one session."""

import math
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import events, mc, of_type, rep_frames, shared_server  # noqa: E402

SERVER = None

JOINTS = [
    "nose", "leftEye", "rightEye", "leftEar", "rightEar", "neck", "root",
    "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist",
    "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle",
]


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def binary_frame(frame, confidences=True):
    """The §3.2 bytes of a JSON pose frame (a `points` object, optional `confidence`)."""
    points = frame["points"]
    seen = [i for i, name in enumerate(JOINTS) if name in points]
    mask = sum(1 << i for i in seen)
    out = struct.pack("<BBHHHdI", 1, 1 if confidences else 0, frame.get("width", 0), frame.get("height", 0), 0,
                      frame["t"], mask)
    for i in seen:
        out += struct.pack("<ff", *points[JOINTS[i]])
    if confidences:
        out += bytes(round(frame.get("confidence", {}).get(JOINTS[i], 1.0) * 255) for i in seen)
    return out


class BinaryPoseFrameTests(unittest.TestCase):
    def session(self):
        ws = SERVER.ws()
        self.addCleanup(ws.close)
        ws.start(exercise="elbowFlexion", side="right", options={"snapshots": "off"})
        return ws

    def stop(self, ws):
        """Sends `stop`; returns (the messages up to the summary, the summary) once the server has closed with 1000.
        PROTOCOL §3's order is summary, store, close 1000: the close, not the summary, says the session is stored."""
        ws.send({"type": "stop"})
        msgs = ws.recv_until(lambda m: m.get("type") == "summary", timeout=15)
        code, reason, after = ws.close_code(timeout=15)
        self.assertEqual(code, 1000, f"stop closes with 1000 once stored (got {code} {reason!r}) {mc.summarise(after)}")
        return msgs, msgs[-1]

    def test_binary_frames_count_like_json_ones(self):
        frames = rep_frames(3, peak=130.0)
        ws = self.session()
        for frame in frames:
            ws.conn.send(binary_frame(frame))
        msgs, summary = self.stop(ws)
        self.assertEqual(of_type(msgs, "error"), [])
        self.assertEqual(len(events(msgs, "repCompleted")), 3, mc.summarise(msgs))
        self.assertEqual(summary["frames"], len(frames))
        self.assertEqual(summary["repCount"], 3)
        self.assertAlmostEqual(summary["best"], 130.0, delta=5.0)

        json_ws = self.session()
        mc.send_frames(json_ws, frames)
        _, json_summary = self.stop(json_ws)
        self.assertEqual(json_summary["repCount"], summary["repCount"])
        for ours, theirs in zip(summary["reps"], json_summary["reps"]):
            self.assertAlmostEqual(ours["peak"], theirs["peak"], delta=0.01)

    def test_binary_and_json_frames_mix_in_one_session(self):
        frames = rep_frames(2, peak=120.0)
        ws = self.session()
        for i, frame in enumerate(frames):
            if i % 2:
                ws.conn.send(binary_frame(frame, confidences=i % 4 == 1))
            else:
                msg = {"type": "pose"}
                msg.update(frame)
                ws.send(msg)
        msgs, summary = self.stop(ws)
        self.assertEqual(of_type(msgs, "error"), [])
        self.assertEqual(summary["frames"], len(frames))
        self.assertEqual(summary["repCount"], 2)

    def test_malformed_binary_frames_are_invalid_poses_and_the_session_goes_on(self):
        frames = rep_frames(1, peak=120.0)
        good = binary_frame(frames[0])
        bad = [
            good[:19],  # short
            good[:-1],  # truncated
            good + b"\x00",  # trailing byte
            b"\x02" + good[1:],  # unknown kind
            good[:16] + struct.pack("<I", 1 << 19) + good[20:],  # mask bit past 18
            good[:8] + struct.pack("<d", math.nan) + good[16:],  # t not finite
            good[:20] + struct.pack("<f", math.inf) + good[24:],  # x not finite
        ]
        ws = self.session()
        for data in bad:
            ws.conn.send(data)
        errors = [ws.recv(timeout=5) for _ in bad]
        self.assertEqual([e.get("code") for e in errors], ["invalidPose"] * len(bad), errors)
        for frame in frames:
            ws.conn.send(binary_frame(frame))
        msgs, summary = self.stop(ws)
        self.assertEqual(summary["repCount"], 1, mc.summarise(msgs))
        self.assertEqual(summary["frames"], len(frames))

    def test_binary_before_start_is_refused(self):
        ws = SERVER.ws()
        self.addCleanup(ws.close)
        ws.conn.send(binary_frame(rep_frames(1)[0]))
        reply = ws.recv(timeout=5)
        self.assertEqual(reply.get("code"), "notStarted", reply)

    def test_a_session_in_another_format_refuses_binary_frames(self):
        ws = SERVER.ws()
        self.addCleanup(ws.close)
        ws.start(exercise="elbowFlexion", side="right", format="coco")
        ws.conn.send(binary_frame(rep_frames(1)[0]))
        msgs = ws.recv_until(lambda m: m.get("type") == "error", timeout=5)
        self.assertEqual(msgs[-1]["code"], "invalidPose")
        self.assertIn("joints", msgs[-1]["message"])


if __name__ == "__main__":
    unittest.main()
