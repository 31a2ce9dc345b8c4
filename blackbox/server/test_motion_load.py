"""motion-load against the real motion-server binary over loopback: what it reports must match what happened.

The server is an independent check on the load generator: every session it streams must be stored (the REST
history is read back), every pose must be answered by exactly one snapshot, and the problems the server signals
(rate limiting, refused handshakes, bad tokens) must show up in motion-load's report and exit status.

Run: .venv/bin/python -m unittest blackbox/server/test_motion_load.py (after `swift build --product motion-server
--product motion-load`; $MOTION_LOAD and $MOTION_SERVER override the binaries).
"""

import json
import os
import subprocess
import tempfile
import unittest

import motion_client as mc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOAD = os.environ.get("MOTION_LOAD", os.path.join(ROOT, ".build", "debug", "motion-load"))


def run_load(*args, timeout=120):
    """Runs motion-load with --json --quiet; returns (exit status, parsed report or None, stderr)."""
    proc = subprocess.run([LOAD, *args, "--json", "--quiet"], capture_output=True, text=True, timeout=timeout)
    report = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, report, proc.stderr


class MotionLoadTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(LOAD, os.X_OK):
            raise unittest.SkipTest(f"motion-load missing at {LOAD}: swift build --product motion-load")
        cls.server = mc.Server().start()
        cls.url = cls.server.ws_base + "/v1/stream"

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()

    def assert_closed_once_stored(self, run, sessions):
        """Every session ended with the server's close 1000, before a test reads what was stored: PROTOCOL §3's order
        is summary, store, close 1000, so the close, not the summary, says a session is stored (motion-load waits
        --drain-seconds for the closes, then aborts the rest, and counts only the closes it saw)."""
        self.assertEqual(run["closes"], {"1000": sessions}, "every session closed with 1000, so stored")

    def test_every_pose_is_answered_and_every_session_stored(self):
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "12", "--seconds", "2", "--ramp-rate", "0", "--exercise", "elbowFlexion",
            "--subject", "load-stored", "--server-pid", str(self.server.proc.pid))
        self.assertEqual(status, 0, stderr)
        run = report["run"]
        self.assertEqual(run["sessions_started"], 12)
        self.assertGreater(run["frames_sent"], 12 * 30)  # at least a second's worth each
        self.assertEqual(run["snapshots"], run["frames_sent"], "snapshots every: one per pose")
        self.assertEqual(run["latency_ms"]["count"], run["frames_sent"], "every pose's latency is counted")
        self.assertEqual(run["coalesced"], 0)
        self.assertEqual(run["unanswered"], 0)
        self.assertEqual(run["summaries"], 12)
        self.assertEqual(run["closes"], {"1000": 12})
        self.assertEqual(run["errors"], 0)
        self.assertTrue({"repCompleted", "repRejected"} & set(run["event_kinds"]), run["event_kinds"])
        measurement = report["measurement"]
        self.assertEqual(measurement["sessions"], 12)
        self.assertIsNotNone(measurement["server_cpu_percent"])
        self.assertGreater(measurement["server_rss_mib"], 0)
        self.assertTrue(report["seconds"], "per-second entries")
        self.assertEqual(sum(s["frames_sent"] for s in report["seconds"]), run["frames_sent"])
        # The server stored what motion-load streamed: 12 finished sessions with all their frames.
        listing = self.server.get("/v1/sessions?subject=load-stored&limit=100").json()["sessions"]
        self.assertEqual(len(listing), 12)
        self.assertEqual({s["status"] for s in listing}, {"finished"})
        self.assertEqual(sum(s["frames"] for s in listing), run["frames_sent"])

    def test_dropped_connections_resume_and_lose_no_frame(self):
        # --drop-every: half the sessions abort their connection every second and resume it (docs/protocol.md §3.1),
        # re-sending the frames after `resumed.t`. Every session ends finished, none is cut short, and the server
        # stored as many frames as were due: the frames counted once each, whatever was re-sent.
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "8", "--seconds", "3", "--ramp-rate", "0", "--drop-every", "1",
            "--drop-share", "0.5", "--exercise", "elbowFlexion", "--subject", "load-drops")
        self.assertEqual(status, 0, stderr)
        run = report["run"]
        self.assertGreaterEqual(run["drops"], 4 * 2, run)
        self.assertEqual(run["resumes"], run["drops"])
        self.assertEqual(run["resume_ms"]["count"], run["resumes"])
        self.assertEqual(run["errors"], 0, run["error_codes"])
        self.assertEqual(run["unexpected_closes"], 0)
        self.assertEqual(run["summaries"], 8)
        self.assert_closed_once_stored(run, 8)
        listing = self.server.get("/v1/sessions?subject=load-drops&limit=100").json()["sessions"]
        self.assertEqual(len(listing), 8)
        self.assertEqual({s["status"] for s in listing}, {"finished"})
        # A dropping session's frames are contiguous in time: none lost, none counted twice.
        for s in listing:
            self.assertAlmostEqual(s["duration"], (s["frames"] - 1) / 30, delta=1e-6, msg=s["id"])

    def test_binary_frames_are_answered_and_stored_like_json(self):
        # --binary: poses as §3.2 frames, a fifth of the JSON's bytes, answered and stored the same way.
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "6", "--seconds", "2", "--ramp-rate", "0", "--binary",
            "--exercise", "elbowFlexion", "--subject", "load-binary")
        self.assertEqual(status, 0, stderr)
        self.assertIs(report["binary"], True)
        self.assertLess(report["message_bytes"], 200)
        run = report["run"]
        self.assertEqual(run["sessions_started"], 6)
        self.assertGreater(run["frames_sent"], 6 * 30)
        self.assertEqual(run["snapshots"], run["frames_sent"])
        self.assertEqual(run["errors"], 0)
        self.assertEqual(run["unanswered"], 0)
        self.assertEqual(run["summaries"], 6)
        self.assert_closed_once_stored(run, 6)
        listing = self.server.get("/v1/sessions?subject=load-binary&limit=100").json()["sessions"]
        self.assertEqual(len(listing), 6)
        self.assertEqual(sum(s["frames"] for s in listing), run["frames_sent"])

    def test_motion_samples_go_beside_the_poses_and_are_stored(self):
        # --motion: a `motion` message of the simulated phone's samples (60/s) before each pose; every pose is
        # still answered, and each stored session has the phone's series and its reps' smoothness and tremor.
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "4", "--seconds", "5", "--ramp-rate", "0", "--motion",
            "--exercise", "elbowFlexion", "--subject", "load-motion")
        self.assertEqual(status, 0, stderr)
        self.assertIs(report["motion"], True)
        run = report["run"]
        self.assertEqual(run["errors"], 0, run)
        self.assertEqual(run["unanswered"], 0)
        self.assertEqual(run["snapshots"], run["frames_sent"])
        self.assertEqual(run["summaries"], 4)
        self.assert_closed_once_stored(run, 4)
        listing = self.server.get("/v1/sessions?subject=load-motion&limit=100").json()["sessions"]
        self.assertEqual(len(listing), 4)
        for summary in listing:
            series = self.server.get(f"/v1/sessions/{summary['id']}/motion").json()
            # 20 samples/s kept of the 60 sent, over the session's poses.
            seconds = summary["duration"]
            self.assertGreater(len(series["t"]), 20 * seconds - 5, (len(series["t"]), seconds))
            self.assertTrue(all(abs(y - 9.81) < 5 for y in series["y"]), "gravity on y")
            judged = [r for r in summary["reps"] if "tremor" in r]
            self.assertTrue(judged, summary["reps"])
            for rep in judged:
                self.assertLess(rep["tremor"], 0.1, rep)

    def test_motion_samples_survive_dropped_connections(self):
        # --motion with --drop-every: the samples due while a connection is down, and those the server did not hold
        # (after `resumed.motionT`), are sent after the resume: the stored motion series has no hole and no sample
        # is refused as out of order.
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "4", "--seconds", "4", "--ramp-rate", "0", "--motion",
            "--drop-every", "1", "--drop-share", "1", "--exercise", "elbowFlexion", "--subject", "load-motion-drops")
        self.assertEqual(status, 0, stderr)
        run = report["run"]
        self.assertGreaterEqual(run["drops"], 4 * 2, run)
        self.assertEqual(run["resumes"], run["drops"])
        self.assertEqual(run["errors"], 0, run)
        self.assertEqual(run["summaries"], 4)
        self.assert_closed_once_stored(run, 4)
        listing = self.server.get("/v1/sessions?subject=load-motion-drops&limit=100").json()["sessions"]
        self.assertEqual(len(listing), 4)
        for summary in listing:
            series = self.server.get(f"/v1/sessions/{summary['id']}/motion").json()
            gaps = [b - a for a, b in zip(series["t"], series["t"][1:])]
            self.assertLess(max(gaps), 0.06, f"{summary['id']}: a hole in the motion series")
            self.assertGreater(series["t"][-1] - series["t"][0], summary["duration"] - 0.1)

    def test_polling_loops_answer_and_count_every_pose(self):
        # --poll: the loops never sleep in epoll; answers are read at the next tick, and still all of them.
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "6", "--seconds", "2", "--ramp-rate", "0", "--loops", "2",
            "--poll", "--tick-us", "2000", "--subject", "load-polled")
        self.assertEqual(status, 0, stderr)
        self.assertIs(report["client_polls"], True)
        self.assertEqual(report["client_tick_us"], 2000)
        run = report["run"]
        self.assertEqual(run["sessions_started"], 6)
        self.assertGreater(run["frames_sent"], 6 * 30)
        self.assertEqual(run["snapshots"], run["frames_sent"])
        self.assertEqual(run["latency_ms"]["count"], run["frames_sent"])
        self.assertEqual(run["unanswered"], 0)
        self.assertEqual(run["closes"], {"1000": 6})
        listing = self.server.get("/v1/sessions?subject=load-polled&limit=100").json()["sessions"]
        self.assertEqual(sum(s["frames"] for s in listing), run["frames_sent"])

    def test_snapshots_off_measures_no_latency_but_still_streams(self):
        status, report, stderr = run_load(
            "--url", self.url, "--sessions", "3", "--seconds", "1", "--snapshots", "off")
        self.assertEqual(status, 0, stderr)
        run = report["run"]
        self.assertEqual(run["snapshots"], 0)
        self.assertEqual(run["latency_ms"]["count"], 0)
        self.assertGreater(run["frames_sent"], 0)
        self.assertEqual(run["summaries"], 3)

    def test_find_capacity_reports_levels_and_the_last_good_one(self):
        status, report, stderr = run_load(
            "--url", self.url, "--find-capacity", "--start-sessions", "4", "--step", "4", "--max-sessions", "8",
            "--step-seconds", "1", "--p99-limit-ms", "1000")
        self.assertEqual(status, 0, stderr)
        self.assertEqual([level["sessions"] for level in report["levels"]], [4, 8])
        self.assertTrue(all(level["passed"] for level in report["levels"]))
        self.assertEqual(report["capacity"]["sessions"], 8)
        self.assertEqual(report["run"]["summaries"], 8)

    def test_a_recorded_session_is_streamed_as_recorded(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "poses.ndjson")
            with open(path, "w") as f:
                for k in range(30):
                    y = 380 - 100 * (k % 15) / 15
                    f.write(json.dumps({"t": k / 30, "width": 1280, "height": 720, "points": {
                        "rightShoulder": [600, 210], "rightElbow": [612, 380], "rightWrist": [700, y]}}) + "\n")
            status, report, stderr = run_load(
                "--url", self.url, "--sessions", "2", "--seconds", "1", "--poses", path, "--exercise", "elbowFlexion")
            self.assertEqual(status, 0, stderr)
            self.assertIn("recorded", report["script"])
            self.assertEqual(report["run"]["snapshots"], report["run"]["frames_sent"])

    def test_a_session_over_the_frame_budget_is_slowed_not_refused(self):
        # The server allows 240 frames/s per session (burst 480): 1,000/s for 2 s is slowed down by flow control
        # (docs/protocol.md §3 v2), never refused.
        status, report, stderr = run_load("--url", self.url, "--sessions", "1", "--seconds", "2", "--rate", "1000")
        self.assertEqual(report["run"]["error_codes"], {}, stderr)
        self.assertEqual(report["run"]["summaries"], 1, "the session goes on and is stopped normally")

    def test_refused_handshakes_are_connect_failures(self):
        url = self.server.ws_base + "/no-such-path"
        status, report, stderr = run_load("--url", url, "--sessions", "3", "--seconds", "1")
        self.assertEqual(status, 1)
        self.assertEqual(report["run"]["sessions_started"], 0)
        self.assertEqual(sum(report["run"]["connect_failures"].values()), 3)
        self.assertTrue(any("404" in reason for reason in report["run"]["connect_failures"]))

    def test_bad_arguments_exit_2_with_a_message(self):
        for args in (["--sessions", "3"], ["--url", "http://127.0.0.1:1/"], ["--url", self.url, "--rate", "0"],
                     ["--url", self.url, "--exercise", "juggling"], ["--url", self.url, "--snapshots", "sometimes"],
                     ["--url", self.url, "--poses", "/nonexistent/file"], ["--url", self.url, "--bogus", "1"]):
            proc = subprocess.run([LOAD, *args], capture_output=True, text=True, timeout=30)
            self.assertEqual(proc.returncode, 2, f"{args}: {proc.stderr}")
            self.assertIn("motion-load:", proc.stderr)


class MotionLoadAuthTests(unittest.TestCase):
    TOKEN = "load-token-0123456789"

    @classmethod
    def setUpClass(cls):
        if not os.access(LOAD, os.X_OK):
            raise unittest.SkipTest(f"motion-load missing at {LOAD}")
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-load-auth-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{cls.TOKEN} clinicLoad\n")
        cls.server = mc.Server(tokens=tokens).start()
        cls.url = cls.server.ws_base + "/v1/stream"

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_the_token_is_sent_and_without_it_sessions_are_refused(self):
        status, report, stderr = run_load("--url", self.url, "--sessions", "2", "--seconds", "1", "--token", self.TOKEN)
        self.assertEqual(status, 0, stderr)
        self.assertEqual(report["run"]["summaries"], 2)
        status, report, stderr = run_load("--url", self.url, "--sessions", "2", "--seconds", "1")
        self.assertEqual(status, 1)
        self.assertEqual(report["run"]["sessions_started"], 0)


if __name__ == "__main__":
    unittest.main()
