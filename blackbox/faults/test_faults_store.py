"""The store stumbles and nothing is lost (docs/session-store.md, "When the store fails"): PostgreSQL stopped and
started, or killed with SIGKILL, at points of a session — before its first checkpoint, between checkpoints, just
before and during `stop` — and SQLite on a disk that fills and is freed. For each, the summary the client receives,
the close that says it is stored (1000), and the summary REST gives afterwards equal those of the same frames sent
without a fault; and `/readyz` says what a write would find.

The points are drawn at random (seeded; FAULTS_SEED=N reproduces a run). PostgreSQL is Debian's, in a temporary
directory on a Unix socket (blackbox/support/cluster.py). The full disk is a small tmpfs mounted for the test as
root; where none can be mounted, the server's file size limit stands in for it (FullDiskTests says how).

Run:  swift build --product motion-server
      .venv/bin/python -m unittest discover -v -s blackbox/faults -p 'test_faults_*.py'
"""

import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))

from cluster import Postgres, postgres_binaries  # noqa: E402
from server_support import Server, of_type  # noqa: E402
from test_server_resume import START, ack, blast, make_frames  # noqa: E402

SEED = int(os.environ.get("FAULTS_SEED") or random.SystemRandom().randrange(1 << 31))
# Members of a summary that legitimately differ between two sessions fed the same frames.
PER_SESSION = {"type", "id", "startedAt", "endedAt", "status", "connected", "updatedAt"}
TOLERANCE = 1e-6
LOST = []  # (fault, session id) of every session whose stored summary differs: reported at the end


def setUpModule():
    print(f"\ntest_faults_store: FAULTS_SEED={SEED} (set it to reproduce)", file=sys.stderr)


def tearDownModule():
    print(f"\ntest_faults_store: sessions lost: {len(LOST)} of {FaultCase.sessions}"
          + (f" {LOST}" if LOST else ""), file=sys.stderr)


def same(ours, theirs, path="summary"):
    """Differences between two summaries, ignoring what differs between any two sessions."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        keys = (set(ours) | set(theirs)) - PER_SESSION
        return [d for k in sorted(keys) for d in same(ours.get(k), theirs.get(k), f"{path}.{k}")]
    if isinstance(ours, list) and isinstance(theirs, list):
        if len(ours) != len(theirs):
            return [f"{path}: {len(ours)} items, not {len(theirs)}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs)) for d in same(a, b, f"{path}[{i}]")]
    if isinstance(ours, float) or isinstance(theirs, float):
        if isinstance(ours, (int, float)) and isinstance(theirs, (int, float)) and abs(ours - theirs) <= TOLERANCE:
            return []
    return [] if ours == theirs else [f"{path}: {ours!r}, not {theirs!r}"]


class FaultCase(unittest.TestCase):
    """A store, a server on it, the same frames for every session of a test, and their uninterrupted reference."""

    sessions = 0

    def setUp(self):
        self.rng = random.Random(f"{SEED}:{self.id()}")
        self.note = f"(FAULTS_SEED={SEED})"
        self.frames = make_frames(random.Random(f"{SEED}:frames"), reps=3)
        self._ws = []

    def tearDown(self):
        for ws in self._ws:
            ws.close()

    def session(self, server, started_message=False):
        ws = server.ws()
        self._ws.append(ws)
        started = ws.start(**START)
        return (ws, started) if started_message else (ws, started["session"])

    def reference(self, server):
        """The uninterrupted session: its live summary and its stored one."""
        ws, sid = self.session(server)
        blast(ws, self.frames)
        ack(ws, self.frames[-1]["t"], timeout=30)
        summary, code = self.stop(ws)
        self.assertEqual(code, 1000, "the reference session is stored")
        return summary, server.get(f"/v1/sessions/{sid}").json()

    def stop(self, ws, timeout=60):
        """Sends `stop`; returns the summary and the close code (which may come well after it)."""
        ws.send({"type": "stop"})
        msgs = ws.recv_until(lambda m: isinstance(m, dict) and m.get("type") == "summary", timeout)
        self.assertEqual(of_type(msgs, "error"), [], f"no error before the summary {self.note}")
        code, _, tail = ws.close_code(timeout=timeout)
        self.assertEqual(of_type(tail, "error"), [], f"no error after the summary {self.note}")
        return msgs[-1], code

    def assert_stored_like(self, server, fault, sid, summary, reference):
        """The live summary and the stored one equal the reference's; counts the session."""
        FaultCase.sessions += 1
        ref_live, ref_stored = reference
        stored = server.get(f"/v1/sessions/{sid}").json()
        differences = same(summary, ref_live) + same(stored, ref_stored)
        if stored.get("status") != "finished":
            differences.append(f"stored status {stored.get('status')!r}")
        if differences:
            LOST.append((fault, sid))
        self.assertEqual(differences, [], f"{fault}: session {sid} {self.note}")
        self.assertGreaterEqual(ref_live["repCount"], 2, "the frames make reps")

    def wait_ready(self, server, status, timeout=20):
        deadline = time.monotonic() + timeout
        ready = server.get("/readyz", timeout=timeout).status
        while ready != status and time.monotonic() < deadline:
            time.sleep(0.1)
            ready = server.get("/readyz", timeout=timeout).status
        return ready


class PostgresFaultTests(FaultCase):
    """One node on PostgreSQL. A live session is checkpointed every 5 s of wall time: the point "between
    checkpoints" paces its session in real time past the first one."""

    @classmethod
    def setUpClass(cls):
        if postgres_binaries() is None:
            raise unittest.SkipTest("PostgreSQL server binaries missing: apt install postgresql (make deps)")
        cls.tmp = tempfile.TemporaryDirectory(prefix="motion-faults-")
        os.chmod(cls.tmp.name, 0o755)
        cls.postgres = Postgres(os.path.join(cls.tmp.name, "pg")).init()
        cls.server = Server(database=cls.postgres.url, extra=("--resume-seconds", "60")).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        cls.postgres.stop("immediate")
        cls.tmp.cleanup()

    def restart(self, down=0.0):
        self.postgres.stop("fast")
        time.sleep(down)
        self.postgres.start()

    def kill(self):
        """SIGKILL to the postmaster, as the OOM killer would, then a start, as systemd's restart would."""
        with open(os.path.join(self.postgres.data, "postmaster.pid")) as f:
            pid = int(f.readline())
        os.kill(pid, signal.SIGKILL)
        self.start_after_kill()

    def start_after_kill(self):
        """Starts PostgreSQL once its killed postmaster's backends have noticed and exited: until then a start
        fails (their shared memory is still in use), so it is tried again for up to 20 s."""
        deadline = time.monotonic() + 20
        while True:
            time.sleep(0.2)
            try:
                self.postgres.start()
                return
            except subprocess.CalledProcessError:
                if time.monotonic() > deadline:
                    raise

    def test_a_stop_soon_after_a_restart_is_stored(self):
        """The issue's finding: PostgreSQL down 0.7 s, the patient stops 0.2, 1 or 3 s after it is back (before,
        summary then storeUnavailable and 1011: the reconnection backoff had grown to seconds)."""
        reference = self.reference(self.server)
        for after in (0.2, 1.0, 3.0):
            with self.subTest(stop_after=after):
                ws, sid = self.session(self.server)
                cut = self.rng.randrange(len(self.frames) // 4, len(self.frames))
                blast(ws, self.frames[:cut])
                ack(ws, self.frames[cut - 1]["t"], timeout=30)
                self.restart(down=0.7)
                blast(ws, self.frames[cut:])
                ack(ws, self.frames[-1]["t"], timeout=30)
                time.sleep(after)
                started = time.monotonic()
                summary, code = self.stop(ws)
                took = time.monotonic() - started
                self.assertEqual(code, 1000, f"stored {after} s after the restart {self.note}")
                print(f"\nstop {after} s after a restart: closed 1000 after {took:.2f} s", file=sys.stderr)
                self.assert_stored_like(self.server, f"restart, stop {after} s after", sid, summary, reference)

    def test_a_stop_while_postgres_is_down_waits_and_is_stored(self):
        """`stop` while the store is down: the summary at once, then the close once the retried write is stored.
        Meanwhile the session is still this node's: a new watcher joins it (and gets the summary and the same
        close), and a resume is told at once that it was stopped."""
        reference = self.reference(self.server)
        ws, started = self.session(self.server, started_message=True)
        sid = started["session"]
        blast(ws, self.frames)
        ack(ws, self.frames[-1]["t"], timeout=30)
        self.postgres.stop("fast")
        try:
            self.assertEqual(self.wait_ready(self.server, 503), 503, "not ready while PostgreSQL is down")
            ws.send({"type": "stop"})
            msgs = ws.recv_until(lambda m: isinstance(m, dict) and m.get("type") == "summary", 10)
            summary = msgs[-1]
            watcher = self.server.ws(f"/v1/sessions/{sid}/watch")
            self._ws.append(watcher)
            self.assertEqual(watcher.recv().get("type"), "started", "a watcher joins the stopped session")
            again = self.server.ws()
            self._ws.append(again)
            again.send({"type": "resume", "session": sid, "token": started["resume"]})
            self.assertEqual(again.recv().get("code"), "resumeExpired", "a stopped session is not resumed")
            down = self.rng.uniform(1.0, 4.0)
            time.sleep(down)
        finally:
            self.postgres.start()
        code, reason, tail = ws.close_code(timeout=30)
        self.assertEqual((code, of_type(tail, "error")), (1000, []), f"{reason} {self.note}")
        watched_code, _, watched = watcher.close_code(timeout=10)
        self.assertEqual(watched_code, 1000, "the watcher's close says stored too")
        self.assertEqual(of_type(watched, "summary")[-1]["repCount"], summary["repCount"], watched)
        self.assertEqual(self.wait_ready(self.server, 200), 200, "ready once PostgreSQL is back")
        self.assert_stored_like(self.server, f"stop while down {down:.1f} s", sid, summary, reference)

    def test_restarts_and_kills_at_random_points_lose_nothing(self):
        """PostgreSQL stopped and started, or killed, at random points: before the first checkpoint, between
        checkpoints (a session paced over several), and around the stop."""
        reference = self.reference(self.server)
        points = ["before the first checkpoint", "between checkpoints", "just before stop", "during stop"]
        for round_ in range(int(os.environ.get("FAULTS_ROUNDS", "5"))):
            for point in points:
                fault = self.rng.choice(["restart", "kill"])
                with self.subTest(point=point, fault=fault, round=round_):
                    ws, sid = self.session(self.server)
                    self.run_with_fault(ws, point, fault)
                    summary, code = self.stop(ws) if point != "during stop" else self.stop_during(ws, fault)
                    self.assertEqual(code, 1000, f"{fault} {point} {self.note}")
                    self.assert_stored_like(self.server, f"{fault} {point}", sid, summary, reference)

    def fault(self, kind):
        if kind == "kill":
            self.kill()
        else:
            self.restart(down=self.rng.uniform(0.0, 1.5))

    def run_with_fault(self, ws, point, fault):
        frames = self.frames
        if point == "before the first checkpoint":
            cut = self.rng.randrange(1, len(frames) // 4)
            blast(ws, frames[:cut])
            ack(ws, frames[cut - 1]["t"], timeout=30)
            self.fault(fault)
            blast(ws, frames[cut:])
        elif point == "between checkpoints":
            # Paced in real time (30 frames a second) past the first checkpoint, at 5 s.
            cut = self.rng.randrange(6 * len(frames) // 10, 8 * len(frames) // 10)
            for i in range(0, cut, 30):
                blast(ws, frames[i:min(i + 30, cut)])
                time.sleep(1.0)
            ack(ws, frames[cut - 1]["t"], timeout=30)
            self.fault(fault)
            blast(ws, frames[cut:])
        else:
            blast(ws, frames)
        ack(ws, frames[-1]["t"], timeout=30)
        if point == "just before stop":
            self.fault(fault)
            time.sleep(self.rng.uniform(0.0, 0.5))

    def stop_during(self, ws, fault):
        """Stops with the store going down at once: the final write meets the fault."""
        if fault == "kill":
            with open(os.path.join(self.postgres.data, "postmaster.pid")) as f:
                pid = int(f.readline())
            ws.send({"type": "stop"})
            os.kill(pid, signal.SIGKILL)
            self.start_after_kill()
        else:
            ws.send({"type": "stop"})
            self.restart(down=self.rng.uniform(0.0, 1.5))
        msgs = ws.recv_until(lambda m: isinstance(m, dict) and m.get("type") == "summary", 30)
        self.assertEqual(of_type(msgs, "error"), [], self.note)
        code, _, tail = ws.close_code(timeout=60)
        self.assertEqual(of_type(tail, "error"), [], self.note)
        return msgs[-1], code


class FullDiskTests(FaultCase):
    """SQLite on a tmpfs of a few megabytes, filled by a file beside the database and freed by deleting it. Where
    no tmpfs can be mounted (not root, or a container without CAP_SYS_ADMIN), the server's file size limit
    (RLIMIT_FSIZE, set from outside with prlimit) stands in for the full disk: then the database's files cannot
    grow, which is what a full disk refuses them too (EFBIG for ENOSPC). The mode is printed."""

    @classmethod
    def setUpClass(cls):
        cls.mount = tempfile.mkdtemp(prefix="motion-full-disk-")
        # FAULTS_FULL_DISK=fsize chooses the file size limit where a tmpfs could be mounted.
        mounted = os.environ.get("FAULTS_FULL_DISK") != "fsize" and os.geteuid() == 0 and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", cls.mount],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
        cls.mode = "tmpfs" if mounted else "file size limit"
        print(f"\ntest_faults_store: full disk as a {cls.mode}", file=sys.stderr)
        cls.server = Server(database=os.path.join(cls.mount, "motion.sqlite"),
                            extra=("--resume-seconds", "60")).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.cleanup()
        if cls.mode == "tmpfs":
            subprocess.run(["umount", "-l", cls.mount], check=False)
        shutil.rmtree(cls.mount, ignore_errors=True)

    def fill(self):
        """Fills the disk; returns what frees it."""
        if self.mode != "tmpfs":
            pid = self.server.proc.pid
            soft, hard = resource.prlimit(pid, resource.RLIMIT_FSIZE)
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, hard))
            return lambda: resource.prlimit(pid, resource.RLIMIT_FSIZE, (soft, hard))
        path = os.path.join(self.mount, "filler")
        chunk = b"\0" * 65536
        with open(path, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError:
                pass
            # The last pages too, a byte at a time.
            try:
                while True:
                    f.write(b"\0")
            except OSError:
                pass
        return lambda: os.unlink(path)

    def test_a_full_disk_is_not_ready_and_a_stop_waits_for_room(self):
        reference = self.reference(self.server)
        self.assertEqual(self.wait_ready(self.server, 200), 200)
        ws, sid = self.session(self.server)
        blast(ws, self.frames)
        ack(ws, self.frames[-1]["t"], timeout=30)
        free = self.fill()
        try:
            # Before: every create failed with 503 while /readyz said 200 (its probe only took the lock).
            created = self.server.post("/v1/sessions", {"exercise": "squat"})
            self.assertEqual(created.status, 503, created)
            self.assertEqual(self.wait_ready(self.server, 503, timeout=5), 503, "not ready on a full disk")
            ws.send({"type": "stop"})
            msgs = ws.recv_until(lambda m: isinstance(m, dict) and m.get("type") == "summary", 10)
            summary = msgs[-1]
            time.sleep(self.rng.uniform(1.0, 3.0))
            self.assertEqual(self.server.get("/readyz").status, 503, "still not ready while the disk is full")
        finally:
            free()
        code, reason, tail = ws.close_code(timeout=30)
        self.assertEqual((code, of_type(tail, "error")), (1000, []), f"{reason} {self.note}")
        self.assertEqual(self.wait_ready(self.server, 200), 200, "ready once the disk has room")
        self.assertEqual(self.server.post("/v1/sessions", {"exercise": "squat"}).status, 201)
        self.assert_stored_like(self.server, "full disk", sid, summary, reference)


if __name__ == "__main__":
    unittest.main()
