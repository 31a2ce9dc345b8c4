"""Resumable live sessions (PROTOCOL §3.1, docs/resume.md): the `resume` token, resuming after a cut, a takeover,
watchers across a resume, the refusals, the resume window, and resuming after a server restart (SIGTERM, kill -9).

Frames are random (rep peaks, timing and a little noise on every angle, so the engine's filter state matters): the
seed is printed; RESUME_SEED=N reproduces a run.
"""

import base64
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server_support import (  # noqa: E402
    ConnectionClosed, elbow_pose, events, mc, of_type, Server, shared_server, UNKNOWN_ID,
)


SEED = int(os.environ.get("RESUME_SEED") or random.SystemRandom().randrange(1 << 31))
WINDOW = "30"  # --resume-seconds of the servers that are not about the window itself
START = {"exercise": "elbowFlexion", "side": "right"}
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{43}$")
FLOAT_TOLERANCE = 1e-6
# Members of a summary that legitimately differ between two sessions fed the same frames.
PER_SESSION = {"type", "id", "startedAt", "endedAt", "status", "connected"}

SERVER = None  # the shared server of this module (no tokens, no public dir, a 30 s resume window)


def setUpModule():
    global SERVER
    print(f"\ntest_server_resume: RESUME_SEED={SEED} (set it to reproduce)", file=sys.stderr)
    if not os.access(mc.binary_path(), os.X_OK):
        shared_server()  # raises, saying how to build the binary
    SERVER = Server(extra=("--resume-seconds", WINDOW)).start()


def tearDownModule():
    if SERVER is not None:
        SERVER.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------------------------

def make_frames(rng, reps=3, fps=30):
    """Elbow flexion frames: 1 s at rest, then `reps` reps of random peak, rise and rest, with noisy angles."""
    samples = []
    t = 0.0
    for i in range(reps):
        part = mc.angle_profile(
            reps=1, peak=rng.uniform(115.0, 145.0), fps=fps, lead=1.0 if i == 0 else 0.0,
            rise=rng.uniform(0.6, 1.0), hold=rng.uniform(0.2, 0.5), fall=rng.uniform(0.6, 1.0),
            gap=rng.uniform(0.6, 1.0), t0=t)
        samples += part
        t = part[-1][0] + 1.0 / fps
    return [elbow_pose(t, a + rng.gauss(0.0, 0.4)) for t, a in samples]


def blast(ws, frames, batch=60):
    """Sends frames as `poses` batches as fast as the socket takes them (PROTOCOL §3 flow control: never refused)."""
    for i in range(0, len(frames), batch):
        ws.send({"type": "poses", "frames": frames[i:i + batch]})


def is_snapshot_at(t):
    return lambda m: isinstance(m, dict) and m.get("type") == "snapshot" and m.get("t") == t


def ack(ws, t, timeout=10):
    """Messages up to the snapshot of the pose at `t` (every pose is answered by one: snapshots `every`)."""
    return ws.recv_until(is_snapshot_at(t), timeout)


def stop(ws, timeout=10):
    """Sends `stop`; returns (summary, the messages up to it, the close code)."""
    ws.send({"type": "stop"})
    msgs = ws.recv_until(lambda m: isinstance(m, dict) and m.get("type") == "summary", timeout)
    code, _, _ = ws.close_code()
    return msgs[-1], msgs, code


def resume_msg(sid, token):
    return {"type": "resume", "session": sid, "token": token}


def random_token(rng):
    return base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("=")


def reference(server, frames, token=None):
    """An uninterrupted session fed `frames`: (its live summary message, its events)."""
    ws = server.ws(token=token)
    try:
        ws.start(**START)
        blast(ws, frames)
        msgs = ack(ws, frames[-1]["t"], timeout=20)
        summary, tail, code = stop(ws)
        assert code == 1000, f"reference session closed with {code}"
        errors = of_type(msgs + tail, "error")
        assert not errors, f"reference session got errors {errors}"
        return summary, events(msgs + tail)
    finally:
        ws.close()


class ResumeCase(unittest.TestCase):
    """Shared assertions; `self.rng` is seeded from RESUME_SEED and the test's id."""

    def setUp(self):
        self.rng = random.Random(f"{SEED}:{self.id()}")
        self.note = f"(RESUME_SEED={SEED})"
        self._ws = []

    def tearDown(self):
        for ws in self._ws:
            ws.close()

    def open(self, server=None, path="/v1/stream", token=None):
        ws = (server or SERVER).ws(path, token=token)
        self._ws.append(ws)
        return ws

    def start_session(self, server=None, token=None, **fields):
        ws = self.open(server, token=token)
        started = ws.start(**START, **fields)
        return ws, started

    def expect_resumed(self, ws, sid, started=None, timeout=10):
        msg = ws.recv(timeout=timeout)
        self.assertEqual(msg.get("type"), "resumed", f"resume answered {msg} {self.note}")
        self.assertEqual(msg["session"], sid)
        self.assertIn("t", msg)
        if started is not None:
            self.assertEqual(msg["exercise"], started["exercise"], "resumed.exercise is the session's catalog entry")
        self.assertNotIn("resume", msg, "the token is sent once, in started")
        return msg

    def expect_refused(self, ws, code, timeout=10):
        """PROTOCOL §3.1: an `error` with `code`, then close 1008. Returns the error message."""
        close, reason, msgs = ws.close_code(timeout=timeout)
        errors = of_type(msgs, "error")
        self.assertEqual([e.get("code") for e in errors], [code], f"messages before the close: {msgs} {self.note}")
        self.assertEqual(len(msgs), 1, f"nothing but the error before the close: {msgs}")
        self.assertEqual(close, 1008, f"a refused resume closes with 1008 (got {close} {reason!r}) {self.note}")
        return errors[0]

    def assert_same(self, got, want, path="summary"):
        """Equal JSON values, numbers within FLOAT_TOLERANCE; per-session members of the top object left out."""
        if isinstance(want, dict):
            self.assertIsInstance(got, dict, f"{path}: {got!r}")
            skip = PER_SESSION if path == "summary" else set()
            self.assertEqual(set(got) - skip, set(want) - skip, f"{path}: members differ {self.note}")
            for key in sorted(set(want) - skip):
                self.assert_same(got[key], want[key], f"{path}.{key}")
        elif isinstance(want, list):
            self.assertIsInstance(got, list, f"{path}: {got!r}")
            self.assertEqual(len(got), len(want), f"{path}: {len(got)} items, expected {len(want)} {self.note}\n"
                                                  f"got  {got}\nwant {want}")
            for i, (g, w) in enumerate(zip(got, want)):
                self.assert_same(g, w, f"{path}[{i}]")
        elif isinstance(want, float) or (isinstance(want, int) and isinstance(got, float)):
            self.assertIsInstance(got, (int, float), f"{path}: {got!r}")
            self.assertNotIsInstance(got, bool, path)
            self.assertAlmostEqual(got, want, delta=FLOAT_TOLERANCE, msg=f"{path} {self.note}")
        else:
            self.assertEqual(got, want, f"{path} {self.note}")

    def assert_same_session(self, summary, ref_summary, server=None):
        """The resumed session's live summary equals the uninterrupted one's, and so does its stored one."""
        self.assertEqual(summary["repCount"], ref_summary["repCount"], f"rep count {self.note}")
        self.assertGreaterEqual(ref_summary["repCount"], 2, "the frames make reps")
        self.assert_same(summary, ref_summary)
        server = server or SERVER
        stored = server.get(f"/v1/sessions/{summary['id']}").json()
        ref_stored = server.get(f"/v1/sessions/{ref_summary['id']}").json()
        self.assertEqual(stored["status"], "finished")
        self.assert_same(stored, ref_stored)


# ---------------------------------------------------------------------------------------------------------------
# 1. The token
# ---------------------------------------------------------------------------------------------------------------

class ResumeTokenTests(ResumeCase):
    """PROTOCOL §3.1: `started` carries `resume`, an unguessable secret; docs/resume.md: 43 characters of base64url,
    never in a REST answer, a log line, a watcher's message or the store."""

    def test_started_carries_a_base64url_token(self):
        tokens = set()
        for _ in range(4):
            ws, started = self.start_session()
            token = started.get("resume")
            self.assertIsInstance(token, str, f"started: {started}")
            self.assertRegex(token, TOKEN_RE, "43 characters of base64url, no padding")
            self.assertEqual(len(base64.urlsafe_b64decode(token + "=")), 32)
            tokens.add(token)
            ws.close()
        self.assertEqual(len(tokens), 4, "every session has its own token")

    def test_token_never_leaves_the_session_client(self):
        server = Server(extra=("--resume-seconds", WINDOW), log_level="debug").start()
        try:
            frames = make_frames(self.rng, reps=1)
            ws, started = self.start_session(server, subject="resume-secret-check")
            sid, token = started["session"], started["resume"]
            other_ws, other = self.start_session(server)
            seen = []  # every message any client other than the session's own one received

            watcher = self.open(server, f"/v1/sessions/{sid}/watch")
            first = watcher.recv()
            self.assertEqual(first.get("type"), "started", first)
            self.assertNotIn("resume", first, "a watcher's started leaves the token out")
            blast(ws, frames[:40])
            ack(ws, frames[39]["t"])
            seen += watcher.recv_until(is_snapshot_at(frames[39]["t"]))
            ws.abort()
            seen += watcher.recv_until(lambda m: m.get("type") == "connection")

            rest = [server.get(f"/v1/sessions/{sid}"), server.get("/v1/sessions"),
                    server.get("/v1/sessions?status=live"), server.get(f"/v1/sessions/{sid}?format=csv"),
                    server.get(f"/v1/sessions/{sid}/series"), server.get("/metrics")]
            # refused resumes: the wrong token of this session, this session's token for another one
            bad = self.open(server)
            bad.send(resume_msg(sid, random_token(self.rng)))
            seen.append(self.expect_refused(bad, "invalidResume"))
            bad = self.open(server)
            bad.send(resume_msg(other["session"], token))
            seen.append(self.expect_refused(bad, "invalidResume"))

            ws2 = self.open(server)
            ws2.send(resume_msg(sid, token))
            seen.append(self.expect_resumed(ws2, sid, started))
            blast(ws2, frames[40:])
            ack(ws2, frames[-1]["t"])
            summary, msgs, code = stop(ws2)
            self.assertEqual(code, 1000)
            seen += msgs
            seen += watcher.close_code(timeout=5)[2]
            other_ws.send({"type": "stop"})
            other_ws.close_code()
            rest += [server.get(f"/v1/sessions/{sid}"), server.get("/v1/sessions"), server.get("/metrics")]

            for resp in rest:
                self.assertEqual(resp.status, 200, resp)
                self.assertNotIn(token.encode(), resp.body, f"the token is in {resp.method} {resp.path}")
                self.assertNotIn(other["resume"].encode(), resp.body, f"a token is in {resp.method} {resp.path}")
            self.assertIn(sid.encode(), rest[0].body)
            for msg in seen:
                self.assertNotIn(token, repr(msg), f"the token is in a message: {msg}")

            server.terminate()
            with open(server.stderr_path, "rb") as f:
                log = f.read()
            stdout = server.proc.stdout.read()
            self.assertIn(b"/v1/stream", log, "the debug log has request lines (or the check below means nothing)")
            store = b""
            for suffix in ("", "-wal", "-shm", "-journal"):
                if os.path.exists(server.database + suffix):
                    with open(server.database + suffix, "rb") as f:
                        store += f.read()
            self.assertIn(b"resume-secret-check", store, "the store holds the session (else the check means nothing)")
            for secret in (token, other["resume"]):
                self.assertNotIn(secret.encode(), log, "a token is in the server's log (stderr)")
                self.assertNotIn(secret.encode(), stdout, "a token is in the server's stdout")
                self.assertNotIn(secret.encode(), store, "the store keeps only a digest of the token")
                self.assertNotIn(base64.urlsafe_b64decode(secret + "="), store, "nor its raw bytes")
        finally:
            server.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# 2.–3. Resuming on the same server: after a cut, by takeover, and watchers
# ---------------------------------------------------------------------------------------------------------------

class ResumeTests(ResumeCase):
    """PROTOCOL §3.1: a resumed session's summary equals that of the same frames sent over one connection."""

    def test_resume_after_a_cut_continues_exactly(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, ref_events = reference(SERVER, frames)
        ws, started = self.start_session()
        sid, token = started["session"], started["resume"]
        # cut inside the second rep or so, after every frame sent was answered
        cut = self.rng.randrange(len(frames) * 3 // 10, len(frames) * 7 // 10)
        blast(ws, frames[:cut])
        before = ack(ws, frames[cut - 1]["t"])
        self.assertEqual(of_type(before, "error"), [])
        ws.abort()  # TCP reset, no close frame

        # Its state is checkpointed when the connection ends: REST shows it once that write is done.
        resp = SERVER.wait_for_session(sid, lambda s: s.get("connected") is False and s["frames"] == cut, timeout=3)
        body = resp.json()
        self.assertEqual(body["status"], "live", f"a cut session waits for its client: {resp}")
        self.assertIs(body["connected"], False, resp)
        self.assertEqual(body["frames"], cut, resp)
        listed = {s["id"]: s for s in SERVER.get("/v1/sessions?status=live&limit=500").json()["sessions"]}
        self.assertIn(sid, listed, "the list shows the detached session as live")
        self.assertIs(listed[sid]["connected"], False)

        ws2 = self.open()
        ws2.send(resume_msg(sid, token))
        resumed = self.expect_resumed(ws2, sid, started)
        self.assertEqual(resumed["t"], frames[cut - 1]["t"],
                         f"same process: resumed.t is the last processed pose (docs/resume.md) {self.note}")
        snap = ws2.recv()
        self.assertEqual((snap.get("type"), snap.get("t")), ("snapshot", resumed["t"]),
                         f"resumed is followed by one snapshot: {snap}")
        self.assertEqual(snap["repCount"], of_type(before, "snapshot")[-1]["repCount"])
        self.assertIs(SERVER.get(f"/v1/sessions/{sid}").json()["connected"], True, "connected again")

        after_frames = [f for f in frames if f["t"] > resumed["t"]]
        blast(ws2, after_frames)
        after = ack(ws2, frames[-1]["t"])
        summary, tail, code = stop(ws2)
        self.assertEqual(code, 1000)
        self.assertEqual(of_type(after + tail, "error"), [], "re-sent frames are accepted")
        self.assertEqual(summary["id"], sid)
        self.assert_same_session(summary, ref_summary)
        merged = [e for e in events(before) if e["t"] <= resumed["t"]] + events(after + tail)
        self.assert_same(merged, ref_events, "events")

    def test_several_random_cuts_continue_exactly(self):
        # The acceptance (a): cut at random points several times, frames possibly in flight, resume each
        # time from what the server says it holds; the summary equals one connection's.
        frames = make_frames(self.rng, reps=4)
        ref_summary, ref_events = reference(SERVER, frames)
        ws, started = self.start_session()
        sid, token = started["session"], started["resume"]
        cuts = sorted(self.rng.sample(range(20, len(frames) - 20), self.rng.randint(3, 5)))
        sent_upto = 0  # index of the first frame not yet sent on this connection
        for cut in cuts:
            if cut > sent_upto:
                blast(ws, frames[sent_upto:cut], batch=self.rng.choice((5, 20, 60)))
            if self.rng.random() < 0.5:
                ack(ws, frames[cut - 1]["t"])
            ws.abort()
            ws = self.open()
            ws.send(resume_msg(sid, token))
            resumed = self.expect_resumed(ws, sid, started)
            self.assertLessEqual(resumed["t"], frames[cut - 1]["t"], f"cut at {cut}: nothing past what was sent")
            sent_upto = next(i for i, f in enumerate(frames) if f["t"] > resumed["t"])
        blast(ws, frames[sent_upto:])
        after = ack(ws, frames[-1]["t"])
        summary, tail, code = stop(ws)
        self.assertEqual(code, 1000)
        self.assertEqual(of_type(after + tail, "error"), [], f"cuts at {cuts} {self.note}")
        self.assertEqual(summary["id"], sid)
        self.assert_same_session(summary, ref_summary)

    def test_resume_with_frames_in_flight(self):
        # The cut comes while frames are still on their way: resumed.t says how far the server got.
        frames = make_frames(self.rng, reps=3)
        ref_summary, ref_events = reference(SERVER, frames)
        ws, started = self.start_session()
        sid, token = started["session"], started["resume"]
        acked = self.rng.randrange(30, len(frames) // 3)
        cut = self.rng.randrange(acked + 60, len(frames) * 3 // 4)
        blast(ws, frames[:acked])
        ack(ws, frames[acked - 1]["t"])
        blast(ws, frames[acked:cut], batch=10)
        ws.abort()

        ws2 = self.open()
        ws2.send(resume_msg(sid, token))
        resumed = self.expect_resumed(ws2, sid, started)
        sent_ts = [f["t"] for f in frames[:cut]]
        self.assertIn(resumed["t"], sent_ts, "resumed.t is the t of a pose the client sent")
        self.assertGreaterEqual(resumed["t"], frames[acked - 1]["t"], "everything answered is held")
        self.assertLessEqual(resumed["t"], frames[cut - 1]["t"], "nothing past the last frame sent")
        resp = SERVER.get(f"/v1/sessions/{sid}")
        self.assertEqual(resp.json()["status"], "live", resp)
        after_frames = [f for f in frames if f["t"] > resumed["t"]]
        blast(ws2, after_frames)
        after = ack(ws2, frames[-1]["t"])
        summary, tail, code = stop(ws2)
        self.assertEqual(code, 1000)
        self.assertEqual(of_type(after + tail, "error"), [])
        self.assert_same_session(summary, ref_summary)
        self.assert_same(events(after + tail), [e for e in ref_events if e["t"] > resumed["t"]], "events after")

    def test_takeover_closes_the_old_connection_with_4001(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, ref_events = reference(SERVER, frames)
        ws, started = self.start_session()
        sid, token = started["session"], started["resume"]
        watcher = self.open(path=f"/v1/sessions/{sid}/watch")
        watcher.recv()
        cut = self.rng.randrange(len(frames) // 4, len(frames) * 3 // 4)
        blast(ws, frames[:cut])
        before = ack(ws, frames[cut - 1]["t"])

        # The old connection is still open. The new one sends resume, then at once (docs/resume.md: messages sent
        # before `resumed` arrives are read after it, in order) the frames after the last answered one, then stop.
        ws2 = self.open()
        ws2.send(resume_msg(sid, token))
        blast(ws2, frames[cut:])
        ws2.send({"type": "stop"})
        code, reason, old_msgs = ws.close_code(timeout=5)
        self.assertEqual(code, 4001, f"the old connection is closed with 4001 (got {code} {reason!r}) {self.note}")
        self.assertEqual(events(old_msgs), [], "the old connection gets nothing of the new one's frames")

        resumed = self.expect_resumed(ws2, sid, started)
        self.assertEqual(resumed["t"], frames[cut - 1]["t"])
        msgs = ws2.recv_until(lambda m: m.get("type") == "summary", timeout=15)
        self.assertEqual(ws2.close_code()[0], 1000)
        self.assertEqual(of_type(msgs, "error"), [], "the frames sent before resumed arrived are all accepted")
        snaps = [m["t"] for m in of_type(msgs, "snapshot")]
        self.assertEqual(snaps, [resumed["t"]] + [f["t"] for f in frames[cut:]], "read after resumed, in order")
        self.assert_same_session(msgs[-1], ref_summary)
        self.assert_same(events(before) + events(msgs), ref_events, "events")

        # The watcher followed the session onto the new connection and was closed when it ended.
        code, _, seen = watcher.close_code(timeout=10)
        self.assertIsNotNone(code, "the watcher is closed when the session ends")
        watched_after = [e for e in events(seen) if e["t"] > resumed["t"]]
        self.assert_same(watched_after, [e for e in ref_events if e["t"] > resumed["t"]], "watched events")

    def test_watcher_sees_the_connection_drop_and_return(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, ref_events = reference(SERVER, frames)
        ws, started = self.start_session()
        sid, token = started["session"], started["resume"]
        watcher = self.open(path=f"/v1/sessions/{sid}/watch")
        self.assertEqual(watcher.recv().get("type"), "started")
        cut = self.rng.randrange(len(frames) // 4, len(frames) * 3 // 4)
        blast(ws, frames[:cut])
        ack(ws, frames[cut - 1]["t"])
        watched = watcher.recv_until(is_snapshot_at(frames[cut - 1]["t"]))
        ws.abort()

        dropped = watcher.recv_until(lambda m: m.get("type") == "connection", timeout=5)
        self.assertEqual(dropped[-1], {"type": "connection", "connected": False}, f"watcher saw {dropped}")
        self.assertEqual(events(dropped), [], "nothing happened between the last pose and the drop")
        # REST agrees while the session waits (and the watcher stays open: it gets `connected: true` below).
        resp = SERVER.wait_for_session(sid, lambda s: s.get("connected") is False, timeout=3)
        self.assertEqual((resp.json()["status"], resp.json()["connected"]), ("live", False), resp)

        ws2 = self.open()
        ws2.send(resume_msg(sid, token))
        resumed = self.expect_resumed(ws2, sid, started)
        back = watcher.recv_until(lambda m: m.get("type") == "connection", timeout=5)
        self.assertEqual(back, [{"type": "connection", "connected": True}],
                         f"the watcher hears the client is back, nothing else before it: {back}")
        snap = watcher.recv()
        self.assertEqual((snap.get("type"), snap.get("t")), ("snapshot", resumed["t"]), "then a snapshot")
        blast(ws2, [f for f in frames if f["t"] > resumed["t"]])
        ack(ws2, frames[-1]["t"])
        summary, _, code = stop(ws2)
        self.assertEqual(code, 1000)
        close, _, rest = watcher.close_code(timeout=10)
        self.assertIsNotNone(close, "the watcher is closed when the session ends")
        self.assert_same(events(watched) + events(rest), ref_events, "watched events")
        self.assert_same_session(summary, ref_summary)


# ---------------------------------------------------------------------------------------------------------------
# 4. Refusals
# ---------------------------------------------------------------------------------------------------------------

class ResumeRefusalTests(ResumeCase):
    """PROTOCOL §3.1 errors (then close 1008): `unknownSession`, `invalidResume`, `resumeExpired`; a malformed or
    misplaced `resume` is a bad message like any other (§3: answered with an `error`, the connection goes on)."""

    def detached_session(self, server=None, token=None, n=40):
        """A started session fed `n` frames whose client then vanished: (started, frames sent)."""
        frames = make_frames(self.rng, reps=1)[:n]
        ws, started = self.start_session(server, token=token)
        blast(ws, frames)
        ack(ws, frames[-1]["t"])
        ws.abort()
        (server or SERVER).wait_for_session(
            started["session"], lambda s: s.get("connected") is False, token=token, timeout=3)
        return started, frames

    def test_unknown_session(self):
        for sid in (UNKNOWN_ID, "not-an-id", "01ARZ3NDEKTSV4RRFFQ69G5FA"):
            with self.subTest(session=sid):
                ws = self.open()
                ws.send(resume_msg(sid, random_token(self.rng)))
                self.expect_refused(ws, "unknownSession")

    def test_wrong_token_is_refused_and_leaves_the_session_resumable(self):
        started, frames = self.detached_session()
        sid, token = started["session"], started["resume"]
        wrong = [random_token(self.rng), token[:-1] + ("A" if token[-1] != "A" else "B"), token[:20]]
        for bad in wrong:
            with self.subTest(token=bad):
                ws = self.open()
                ws.send(resume_msg(sid, bad))
                error = self.expect_refused(ws, "invalidResume")
                self.assertNotIn(bad, error.get("message", ""), "the error does not echo the token")
        body = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual((body["status"], body["connected"]), ("live", False), "a wrong token changes nothing")
        ws = self.open()
        ws.send(resume_msg(sid, token))
        self.assertEqual(self.expect_resumed(ws, sid, started)["t"], frames[-1]["t"])

    def test_stopped_session_is_expired(self):
        ws, started = self.start_session()
        frames = make_frames(self.rng, reps=1)[:20]
        blast(ws, frames)
        ack(ws, frames[-1]["t"])
        _, _, code = stop(ws)
        self.assertEqual(code, 1000)
        ws = self.open()
        ws.send(resume_msg(started["session"], started["resume"]))
        self.expect_refused(ws, "resumeExpired")
        # the order of the checks: a wrong token learns nothing about the session's state
        ws = self.open()
        ws.send(resume_msg(started["session"], random_token(self.rng)))
        self.expect_refused(ws, "invalidResume")
        self.assertEqual(SERVER.get(f"/v1/sessions/{started['session']}").json()["status"], "finished")

    def test_malformed_resume(self):
        started, frames = self.detached_session()
        sid, token = started["session"], started["resume"]
        cases = {
            "missing token": {"type": "resume", "session": sid},
            "missing session": {"type": "resume", "token": token},
            "token not a string": {"type": "resume", "session": sid, "token": 12345},
            "token null": {"type": "resume", "session": sid, "token": None},
            "token an array": {"type": "resume", "session": sid, "token": [token]},
            "session not a string": {"type": "resume", "session": 7, "token": token},
            "empty token": {"type": "resume", "session": sid, "token": ""},
            "oversized token": {"type": "resume", "session": sid, "token": token * 100},
            "token with a space": {"type": "resume", "session": sid, "token": token[:20] + " " + token[21:]},
            "token not ASCII": {"type": "resume", "session": sid, "token": token[:42] + "é"},
            "token given twice": '{"type":"resume","session":"%s","token":"%s","token":"%s"}' % (
                sid, token, token),
        }
        for name, message in cases.items():
            with self.subTest(case=name):
                ws = self.open()
                ws.send(message)
                reply = ws.recv()
                self.assertEqual(reply.get("type"), "error", f"{name}: {reply}")
                self.assertEqual(reply.get("code"), "invalidMessage", f"{name}: {reply}")
                self.assertIsInstance(reply.get("message"), str)
                if "token" in name or "session" in name:
                    field = "token" if "token" in name else "session"
                    self.assertIn(field, reply["message"], f"the error names the field: {reply}")
                self.assertNotIn(token, reply["message"], "the error does not echo the token")
                # A bad message never kills the connection (§3): a good resume then still works.
                ws.send(resume_msg(sid, token))
                self.assertEqual(self.expect_resumed(ws, sid, started)["t"], frames[-1]["t"], name)
                ws.abort()
        body = SERVER.wait_for_session(sid, lambda s: s.get("connected") is False, timeout=3).json()
        self.assertEqual(body["status"], "live")

    def test_resume_after_start_is_already_started(self):
        started, frames = self.detached_session()
        sid, token = started["session"], started["resume"]
        ws, own = self.start_session()
        ws.send(resume_msg(sid, token))
        reply = ws.recv()
        self.assertEqual((reply.get("type"), reply.get("code")), ("error", "alreadyStarted"), reply)
        # the connection goes on with its own session, and the other one was not taken
        frame = make_frames(self.rng, reps=1)[0]
        ws.send({"type": "pose", **frame})
        snap = ws.recv()
        self.assertEqual((snap.get("type"), snap.get("t")), ("snapshot", frame["t"]), snap)
        self.assertEqual(snap["repCount"], 0)
        body = SERVER.get(f"/v1/sessions/{sid}").json()
        self.assertEqual((body["status"], body["connected"]), ("live", False), "the detached session is untouched")
        self.assertIs(SERVER.get(f"/v1/sessions/{own['session']}").json()["connected"], True)
        ws2 = self.open()
        ws2.send(resume_msg(sid, token))
        self.assertEqual(self.expect_resumed(ws2, sid, started)["t"], frames[-1]["t"])

    def test_second_resume_is_already_started(self):
        started, frames = self.detached_session()
        sid, token = started["session"], started["resume"]
        ws = self.open()
        ws.send(resume_msg(sid, token))
        self.expect_resumed(ws, sid, started)
        self.assertEqual(ws.recv().get("type"), "snapshot")
        ws.send(resume_msg(sid, token))
        reply = ws.recv()
        self.assertEqual((reply.get("type"), reply.get("code")), ("error", "alreadyStarted"), reply)
        more = make_frames(self.rng, reps=1)
        nxt = {"type": "pose", **more[len(frames)]}
        ws.send(nxt)
        snap = ws.recv()
        self.assertEqual((snap.get("type"), snap.get("t")), ("snapshot", nxt["t"]), "the session goes on")


TOKEN_A = "tokenAAAA-resume-0123456789abcdef"
TOKEN_B = "tokenBBBB-resume-0123456789abcdef"


class ResumeTenantTests(ResumeCase):
    """PROTOCOL §3.1 and §6: another tenant's session is `unknownSession`, exactly like one that does not exist."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="motion-resume-auth-")
        tokens = os.path.join(cls.dir.name, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{TOKEN_A} clinicA\n{TOKEN_B} clinicB\n")
        cls.server = Server(tokens=tokens, extra=("--resume-seconds", WINDOW)).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.dir.cleanup()

    def test_another_tenants_session_is_unknown(self):
        s = self.server
        frames = make_frames(self.rng, reps=1)[:40]
        ws, started = self.start_session(s, token=TOKEN_A)
        sid, token = started["session"], started["resume"]
        blast(ws, frames)
        ack(ws, frames[-1]["t"])
        ws.abort()
        s.wait_for_session(sid, lambda b: b.get("connected") is False, token=TOKEN_A, timeout=3)

        ws = self.open(s, token=TOKEN_B)
        ws.send(resume_msg(sid, token))
        theirs = self.expect_refused(ws, "unknownSession")
        ws = self.open(s, token=TOKEN_B)
        ws.send(resume_msg(UNKNOWN_ID, token))
        unknown = self.expect_refused(ws, "unknownSession")
        self.assertEqual(theirs["message"].replace(sid, "<id>"), unknown["message"].replace(UNKNOWN_ID, "<id>"),
                         "another tenant's session answers like an unknown one")
        # no token at all: refused at the handshake or with 1008, never resumed
        try:
            ws = self.open(s)
        except mc.InvalidStatus as refused:
            self.assertEqual(refused.response.status_code, 401)
        else:
            try:
                ws.send(resume_msg(sid, token))
            except ConnectionClosed:
                pass  # closed (1008) before the resume was sent: fine
            code, _, msgs = ws.close_code()
            self.assertEqual(code, 1008)
            self.assertEqual(of_type(msgs, "resumed"), [])
        # the owner still resumes it
        ws = self.open(s, token=TOKEN_A)
        ws.send(resume_msg(sid, token))
        self.assertEqual(self.expect_resumed(ws, sid, started)["t"], frames[-1]["t"])


# ---------------------------------------------------------------------------------------------------------------
# 4./6. The resume window
# ---------------------------------------------------------------------------------------------------------------

class ResumeWindowTests(ResumeCase):
    """PROTOCOL §3.1: resumable for --resume-seconds after the connection ends, then `abandoned`; 0 turns it off."""

    def cut_session(self, server, n=40):
        frames = make_frames(self.rng, reps=1)[:n]
        ws, started = self.start_session(server)
        blast(ws, frames)
        ack(ws, frames[-1]["t"])
        ws.abort()
        return started, frames, time.monotonic()

    def test_past_the_window_the_session_is_abandoned(self):
        server = Server(extra=("--resume-seconds", "1")).start()
        try:
            started, frames, cut_at = self.cut_session(server)
            sid, token = started["session"], started["resume"]
            watcher = self.open(server, f"/v1/sessions/{sid}/watch")
            self.assertEqual(watcher.recv().get("type"), "started")
            resp = server.wait_for_session(sid, lambda s: s.get("connected") is False, timeout=0.8)
            self.assertEqual((resp.json()["status"], resp.json()["connected"]), ("live", False),
                             f"inside the window: {resp}")
            resp = server.wait_for_session(sid, lambda s: s["status"] != "live", timeout=4)
            waited = time.monotonic() - cut_at
            body = resp.json()
            self.assertEqual(body["status"], "abandoned", f"after the window: {resp}")
            self.assertGreaterEqual(waited, 0.9, "not before the window has passed")
            self.assertEqual(body["frames"], len(frames), "stored with everything it had processed")
            self.assertIsNotNone(body["endedAt"])
            code, _, _ = watcher.close_code(timeout=3)
            self.assertIsNotNone(code, "the watcher is closed when the session is abandoned")

            ws = self.open(server)
            ws.send(resume_msg(sid, token))
            self.expect_refused(ws, "resumeExpired")
            ws = self.open(server)
            ws.send(resume_msg(sid, random_token(self.rng)))
            self.expect_refused(ws, "invalidResume")
            self.assertEqual(server.get(f"/v1/sessions/{sid}").json()["status"], "abandoned")
        finally:
            server.cleanup()

    def test_inside_a_short_window_the_session_resumes(self):
        server = Server(extra=("--resume-seconds", "1.5")).start()
        try:
            started, frames, _ = self.cut_session(server)
            time.sleep(0.5)
            ws = self.open(server)
            ws.send(resume_msg(started["session"], started["resume"]))
            self.assertEqual(self.expect_resumed(ws, started["session"], started)["t"], frames[-1]["t"])
            self.assertEqual(ws.recv().get("type"), "snapshot")
            # resumed: the window no longer runs (1.5 s after the cut the session is still live and connected)
            time.sleep(1.3)
            body = server.get(f"/v1/sessions/{started['session']}").json()
            self.assertEqual((body["status"], body["connected"]), ("live", True), body)
            _, _, code = stop(ws)
            self.assertEqual(code, 1000)
        finally:
            server.cleanup()

    def test_no_window_abandons_at_once(self):
        server = Server(extra=("--resume-seconds", "0")).start()
        try:
            started, frames, _ = self.cut_session(server)
            sid, token = started["session"], started["resume"]
            self.assertRegex(token, TOKEN_RE, "started carries the token whatever the window")
            resp = server.wait_for_session(sid, lambda s: s["status"] != "live", timeout=2)
            self.assertEqual(resp.json()["status"], "abandoned", f"a drop abandons at once: {resp}")
            self.assertEqual(resp.json()["frames"], len(frames))
            ws = self.open(server)
            ws.send(resume_msg(sid, token))
            self.expect_refused(ws, "resumeExpired")
            ws = self.open(server)
            ws.send(resume_msg(sid, random_token(self.rng)))
            self.expect_refused(ws, "invalidResume")
            ws = self.open(server)
            ws.send(resume_msg(UNKNOWN_ID, token))
            self.expect_refused(ws, "unknownSession")
        finally:
            server.cleanup()


# ---------------------------------------------------------------------------------------------------------------
# 5. Server restart
# ---------------------------------------------------------------------------------------------------------------

class ResumeRestartTests(ResumeCase):
    """PROTOCOL §3.1 and README: after SIGTERM (a final checkpoint) or kill -9 (the last periodic checkpoint, at
    least every 5 s) the next run on the same database resumes the session from what it has stored."""

    def restarted(self, first):
        """A new server process on the database of `first` (its own port and temp dir)."""
        return Server(database=first.database, extra=("--resume-seconds", WINDOW)).start()

    def finish_on(self, server, ws, frames, resumed_t, before, ref):
        """Re-sends the frames after resumed.t on `ws`, stops, and compares with `ref`, an uninterrupted session on
        the same server."""
        ref_summary, ref_events = ref
        blast(ws, [f for f in frames if f["t"] > resumed_t])
        after = ack(ws, frames[-1]["t"])
        summary, tail, code = stop(ws)
        self.assertEqual(code, 1000)
        self.assertEqual(of_type(after + tail, "error"), [], "re-sent frames are accepted")
        self.assert_same_session(summary, ref_summary, server)
        merged = [e for e in events(before) if e["t"] <= resumed_t] + events(after + tail)
        self.assert_same(merged, ref_events, "events")

    def test_resume_after_sigterm(self):
        frames = make_frames(self.rng, reps=3)
        first = Server(extra=("--resume-seconds", WINDOW)).start()
        again = None
        try:
            ws, started = self.start_session(first)
            sid = started["session"]
            cut = self.rng.randrange(len(frames) // 4, len(frames) * 3 // 4)
            blast(ws, frames[:cut])
            before = ack(ws, frames[cut - 1]["t"])
            first.proc.send_signal(signal.SIGTERM)
            code, _, tail = ws.close_code(timeout=8)
            self.assertEqual(code, 1001, "SIGTERM closes live sockets with 1001")
            before += tail
            try:
                self.assertEqual(first.proc.wait(timeout=10), 0, first.stderr_text())
            except subprocess.TimeoutExpired:
                self.fail("the server did not exit within 10 s of SIGTERM")
            checkpoints = [m["t"] for m in of_type(before, "checkpoint")]

            again = self.restarted(first)
            ref = reference(again, frames)
            resp = again.get(f"/v1/sessions/{sid}")
            self.assertEqual((resp.json()["status"], resp.json()["connected"]), ("live", False), resp)
            ws2 = self.open(again)
            ws2.send(resume_msg(sid, started["resume"]))
            resumed = self.expect_resumed(ws2, sid, started)
            t = resumed["t"]
            self.assertIsNotNone(t, "the drain checkpointed the session")
            self.assertLessEqual(t, frames[cut - 1]["t"], "resumed.t ≤ the last frame sent")
            if checkpoints:
                self.assertGreaterEqual(t, max(checkpoints), "resumed.t ≥ the last checkpoint the client saw")
            self.assertEqual(t, frames[cut - 1]["t"],
                             f"README/docs/resume.md: SIGTERM writes a final checkpoint of every live session, so "
                             f"every frame answered before it is held {self.note}")
            self.assertEqual(resp.json()["frames"], sum(1 for f in frames if f["t"] <= t), resp)
            self.finish_on(again, ws2, frames, t, before, ref)
        finally:
            if again is not None:
                again.cleanup()
            first.cleanup()

    def test_resume_after_kill_9(self):
        frames = make_frames(self.rng, reps=5)
        first = Server(extra=("--resume-seconds", WINDOW)).start()
        again = None
        try:
            ws, started = self.start_session(first)
            sid = started["session"]
            # Frames at camera speed (30/s) until a periodic checkpoint (at least every 5 s) arrives.
            before, sent = [], 0
            deadline = time.monotonic() + 9
            while not of_type(before, "checkpoint"):
                self.assertLess(time.monotonic(), deadline, f"no checkpoint within 9 s: {mc.summarise(before)}")
                self.assertLess(sent, len(frames) - 90, "frames left for after the kill")
                ws.send({"type": "poses", "frames": frames[sent:sent + 3]})
                sent += 3
                step_end = time.monotonic() + 0.1
                while (left := step_end - time.monotonic()) > 0:
                    try:
                        before.append(ws.recv(timeout=left))
                    except TimeoutError:
                        break
            sent_ts = [f["t"] for f in frames[:sent]]
            for cp in of_type(before, "checkpoint"):
                self.assertIn(cp["t"], sent_ts, f"a checkpoint names a pose sent: {cp}")
            # Then some more frames, all answered, and the process dies.
            more = self.rng.randrange(15, 60)
            blast(ws, frames[sent:sent + more])
            sent += more
            before += ack(ws, frames[sent - 1]["t"])
            first.proc.send_signal(signal.SIGKILL)
            first.proc.wait(timeout=5)
            code, _, late = ws.close_code(timeout=5)
            self.assertIsNone(code, "a killed process sends no close frame")
            before += late
            checkpoints = [m["t"] for m in of_type(before, "checkpoint")]
            self.assertEqual(checkpoints, sorted(checkpoints), "checkpoints move forward")
            self.assertEqual(of_type(before, "error"), [])

            again = self.restarted(first)
            ref = reference(again, frames)
            resp = again.get(f"/v1/sessions/{sid}")
            self.assertEqual((resp.json()["status"], resp.json()["connected"]), ("live", False),
                             f"a killed process's live session is resumable on the next run: {resp}")
            ws2 = self.open(again)
            ws2.send(resume_msg(sid, started["resume"]))
            resumed = self.expect_resumed(ws2, sid, started)
            t = resumed["t"]
            self.assertIsNotNone(t, f"a checkpoint at {checkpoints[-1]} was announced {self.note}")
            self.assertGreaterEqual(t, checkpoints[-1], "resumed.t ≥ the last checkpoint the client saw")
            self.assertLessEqual(t, frames[sent - 1]["t"], "resumed.t ≤ the last frame sent")
            self.assertIn(t, [f["t"] for f in frames[:sent]], "resumed.t is the t of a pose sent")
            self.assertEqual(resp.json()["frames"], sum(1 for f in frames if f["t"] <= t),
                             f"the stored session holds the frames up to resumed.t: {resp}")
            self.finish_on(again, ws2, frames, t, before, ref)
        finally:
            if again is not None:
                again.cleanup()
            first.cleanup()


if __name__ == "__main__":
    unittest.main()
