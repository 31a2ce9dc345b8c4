"""12. Holds report the time held (PROTOCOL §5.4): holdEnded, the summary's holds and bestHold, the CSV's held."""

import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import events, mc, of_type, shared_server  # noqa: E402


SERVER = None  # the shared server of this module (no tokens, no public dir)

HOLD_SECONDS = 5.0  # shoulderAbductionHold's holdSeconds
HELD_FOR = 12.0  # how long the arm is kept up: past the prescribed 5 s


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


def held_arm_frames():
    """A right arm raised to 100° of abduction and kept there for HELD_FOR s: still held at the last frame."""
    samples = mc.angle_profile(reps=1, peak=100.0, rest=10.0, hold=HELD_FOR, fall=0.0, gap=0.0)
    return [mc.abduction_pose(t, a) for t, a in samples]


class HoldTests(unittest.TestCase):
    def assert_hold(self, ended, summary, frames):
        last_t = frames[-1]["t"]
        self.assertEqual(ended["event"], "holdEnded")
        self.assertIs(ended["completed"], True, ended)
        self.assertEqual(ended["t"], last_t, "ended at the last pose")
        self.assertGreater(ended["held"], HOLD_SECONDS + 5, "timed past the prescribed hold")
        self.assertLessEqual(ended["held"], HELD_FOR + 1.0, ended)
        self.assertAlmostEqual(ended["held"], last_t - ended["start"], places=6)
        self.assertEqual(summary["holds"], [{"start": ended["start"], "held": ended["held"], "completed": True}])
        self.assertEqual(summary["bestHold"], ended["held"])
        self.assertEqual(summary["repCount"], 1, "counted once")
        self.assertAlmostEqual(summary["reps"][0]["duration"], HOLD_SECONDS, delta=0.05)

    def test_an_analysed_recording_ends_the_hold_at_its_last_pose(self):
        frames = held_arm_frames()
        body = {"exercise": "shoulderAbductionHold", "side": "right", "subject": f"hold-{uuid.uuid4().hex[:8]}",
                "frames": frames}
        answer = SERVER.post("/v1/analyze", body)
        self.assertEqual(answer.status, 200, answer)
        result = answer.json()
        ended = result["events"][-1]
        self.assert_hold(ended, result["summary"], frames)

        sid = result["summary"]["id"]
        stored = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual(stored["holds"], result["summary"]["holds"])
        self.assertEqual(stored["bestHold"], result["summary"]["bestHold"])
        listed = SERVER.get(f"/v1/sessions?subject={mc.quote(body['subject'])}").json()["sessions"]
        self.assertEqual([s["holds"] for s in listed], [stored["holds"]])

        csv = SERVER.get(f"/v1/sessions/{sid}?format=csv")
        self.assertEqual(csv.status, 200, csv)
        lines = [line for line in csv.body.decode().split("\r\n") if line]
        self.assertTrue(lines[0].endswith(",tremor,held"), lines[0])
        self.assertEqual(len(lines), 2, lines)
        self.assertEqual(float(lines[1].split(",")[-1]), ended["held"])

    def test_a_rep_exercise_has_no_holds(self):
        frames = mc.rep_frames(2)
        answer = SERVER.post("/v1/analyze", {"exercise": "elbowFlexion", "side": "right", "frames": frames})
        self.assertEqual(answer.status, 200, answer)
        summary = answer.json()["summary"]
        self.assertEqual(summary["holds"], [])
        self.assertIsNone(summary["bestHold"])
        self.assertEqual([e for e in answer.json()["events"] if e["event"].startswith("hold")], [])
        self.assertGreater(len(answer.json()["events"]), 0)

    def test_stop_ends_a_live_hold_before_the_summary(self):
        frames = held_arm_frames()
        ws = SERVER.ws()
        try:
            ws.start(exercise="shoulderAbductionHold", side="right", options={"snapshots": "off"})
            mc.send_frames(ws, frames)
            ws.send({"type": "stop"})
            code, _, messages = ws.close_code(timeout=20)
        finally:
            ws.close()
        self.assertEqual(code, 1000, mc.summarise(messages))
        self.assertEqual(of_type(messages, "error"), [])
        kinds = [m.get("event") or m.get("type") for m in messages]
        self.assertEqual(kinds[-2:], ["holdEnded", "summary"], kinds[-5:])
        self.assertEqual(len(events(messages, "holdEnded")), 1)
        self.assert_hold(messages[-2], messages[-1], frames)


if __name__ == "__main__":
    unittest.main()
