"""4.–6. A client that vanishes, the drain on SIGTERM, and watchers (PROTOCOL §3, §5)."""

import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    events, InvalidStatus, mc, of_type, rep_frames, Server, shared_server, squat_frames, stream_ts, UNKNOWN_ID,
)


SERVER = None  # the shared server of this module (no tokens, no public dir)


def setUpModule():
    global SERVER
    SERVER = shared_server()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# 4./5. Client vanishing and server drain
# ---------------------------------------------------------------------------------------------------------------

class DisconnectTests(unittest.TestCase):
    """PROTOCOL §3 close codes: whatever the close reason the summary is stored, abandoned unless stopped."""

    def test_client_vanishes(self):
        # PROTOCOL §3.1: the session of a vanished client waits for a resume, live and not connected.
        ws = SERVER.ws()
        started = ws.start(exercise="elbowFlexion", side="right")
        sid = started["session"]
        frames = rep_frames(1)[:40]
        mc.send_frames(ws, frames)
        ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"])
        live = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual(live["status"], "live")
        self.assertIs(live["connected"], True)
        ws.abort()  # TCP reset, no close frame
        # Its state is checkpointed when the connection ends: REST shows it once that write is done.
        resp = SERVER.wait_for_session(
            sid, lambda s: s["connected"] is False and s["frames"] == len(frames), timeout=3)
        body = resp.json()
        self.assertEqual(body["status"], "live", f"the session waits for a resume: {resp}")
        self.assertIs(body["connected"], False, resp)
        self.assertEqual(body["frames"], len(frames))
        self.assertIsNone(body["endedAt"])

    def test_client_vanishes_without_a_resume_window(self):
        # --resume-seconds 0: a vanished client's session is stored as abandoned at once, as in v1.
        server = Server(extra=("--resume-seconds", "0")).start()
        try:
            ws = server.ws()
            sid = ws.start(exercise="elbowFlexion", side="right")["session"]
            frames = rep_frames(1)[:40]
            mc.send_frames(ws, frames)
            ws.recv_until(lambda m: m.get("type") == "snapshot" and m.get("t") == frames[-1]["t"])
            ws.abort()
            resp = server.wait_for_session(sid, lambda s: s["status"] == "abandoned", timeout=3)
            body = resp.json()
            self.assertEqual(body["status"], "abandoned", f"2 s after the client vanished: {resp}")
            self.assertEqual(body["frames"], len(frames))
            self.assertIsNotNone(body["endedAt"])
            self.assertIsNone(body["connected"])
        finally:
            server.cleanup()

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

            # The live session was checkpointed and waits for its client on the next run (PROTOCOL §3.1); the
            # HTTP-driven one, which cannot be resumed, is abandoned.
            again = Server(database=server.database).start()
            try:
                resp = again.get(f"/v1/sessions/{sid}")
                self.assertEqual(resp.json()["status"], "live", resp)
                self.assertIs(resp.json()["connected"], False, resp)
                self.assertEqual(resp.json()["frames"], len(frames), resp)
                resp = again.get(f"/v1/sessions/{http_id}")
                self.assertEqual(resp.json()["status"], "abandoned", resp)
                self.assertEqual(resp.json()["frames"], 1, resp)
                listed = again.get("/v1/sessions?status=live").json()["sessions"]
                self.assertEqual([s["id"] for s in listed], [sid])
            finally:
                again.cleanup()
            # A run without a resume window abandons what the drain left live.
            without = Server(database=server.database, extra=("--resume-seconds", "0")).start()
            try:
                resp = without.get(f"/v1/sessions/{sid}")
                self.assertEqual(resp.json()["status"], "abandoned", resp)
                self.assertEqual(resp.json()["frames"], len(frames), resp)
                self.assertEqual(without.get("/v1/sessions?status=live").json()["sessions"], [])
            finally:
                without.cleanup()
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

    def test_a_watcher_that_asks_gets_the_phones_motion_thinned(self):
        """docs/protocol.md §5: `?motion=1` adds the session's motion samples, as the client sent them, at most 30 per
        second of the session's time; a watcher without it gets none."""
        ws = SERVER.ws()
        watchers = []
        try:
            sid = ws.start(exercise="elbowFlexion", side="right")["session"]
            motion = SERVER.ws(f"/v1/sessions/{sid}/watch?motion=1")
            plain = SERVER.ws(f"/v1/sessions/{sid}/watch")
            watchers = [motion, plain]
            time.sleep(0.2)
            # Two seconds of a phone at 100 Hz, in messages of ten samples.
            sent = [[round(1 + k / 100, 2), round((k % 7) / 10, 1), -9.8, 0.25] for k in range(200)]
            for i in range(0, len(sent), 10):
                ws.send({"type": "motion", "samples": sent[i:i + 10]})
            ws.send({"type": "stop"})
            self.assertEqual(ws.close_code()[0], 1000)
            seen = motion.recv_until(lambda m: m.get("type") == "summary", 10)
            samples = [s for m in of_type(seen, "motion") for s in m["samples"]]
            self.assertTrue(samples, "no motion samples reached the watcher")
            self.assertLessEqual(len(samples), 61, "at most 30 a second")
            self.assertTrue(all(s in sent for s in samples), "samples as the client sent them")
            times = [s[0] for s in samples]
            self.assertEqual(times, sorted(set(times)))
            self.assertLessEqual(len(of_type(seen, "motion")), 20, "one message per client message at most")
            others = plain.recv_until(lambda m: m.get("type") == "summary", 10)
            self.assertEqual(of_type(others, "motion"), [])
        finally:
            ws.close()
            for watcher in watchers:
                watcher.close()

    def test_watch_with_an_unreadable_motion_option_is_400(self):
        ws = SERVER.ws()
        try:
            sid = ws.start(exercise="squat")["session"]
            with self.assertRaises(InvalidStatus) as ctx:
                SERVER.ws(f"/v1/sessions/{sid}/watch?motion=2")
            self.assertEqual(ctx.exception.response.status_code, 400)
        finally:
            ws.close()

    def test_watch_unknown_id_is_404(self):
        for ident in (UNKNOWN_ID, "not-an-id"):
            with self.subTest(id=ident):
                with self.assertRaises(InvalidStatus) as ctx:
                    SERVER.ws(f"/v1/sessions/{ident}/watch")
                self.assertEqual(ctx.exception.response.status_code, 404)
