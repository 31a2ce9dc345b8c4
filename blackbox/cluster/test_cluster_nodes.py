"""Several nodes on one PostgreSQL database behind nginx (docs/protocol.md §8), as processes on this machine
(blackbox/support/cluster.py): one history from any node, a watch across nodes, a resume across nodes, a node killed
with kill -9 and its session taken over, and PostgreSQL restarted while a session streams, with nothing lost.

Run:  swift build --product motion-server
      .venv/bin/python -m unittest discover -v -s blackbox/cluster -p 'test_cluster_*.py'
"""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
sys.path.insert(0, os.path.join(HERE, "..", "support"))

from cluster import Cluster, postgres_binaries  # noqa: E402
from server_support import Server, events, of_type  # noqa: E402
from test_server_resume import (  # noqa: E402
    START, ResumeCase, ack, blast, make_frames, reference, resume_msg, stop,
)

CLUSTER = None


def setUpModule():
    global CLUSTER
    if postgres_binaries() is None:
        raise unittest.SkipTest("PostgreSQL server binaries missing: apt install postgresql (make deps)")
    # Node 4 is the one a test kills; the others serve the rest of the module.
    CLUSTER = Cluster(nodes=4, extra=("--resume-seconds", "60", "--node-timeout", "5")).start()


def tearDownModule():
    if CLUSTER is not None:
        CLUSTER.stop()


def is_checkpoint(message):
    return isinstance(message, dict) and message.get("type") == "checkpoint"


class ClusterCase(ResumeCase):
    def setUp(self):
        super().setUp()
        self.node1, self.node2, self.node3 = CLUSTER.nodes[:3]

    def gateway(self):
        """A client of the cluster through nginx (the Server helper's HTTP and WebSocket methods, on its port)."""
        through = Server()
        self.addCleanup(through.tmp.cleanup)
        through.host, through.port = "127.0.0.1", CLUSTER.port
        return through

    def stream(self, server, frames):
        """A session on `server` fed `frames`, each answered: (ws, started, the messages)."""
        ws, started = self.start_session(server)
        blast(ws, frames)
        return ws, started, ack(ws, frames[-1]["t"], timeout=20)

    def finish(self, ws, frames, after_t):
        """Re-sends the frames after `after_t`, stops; returns the live summary."""
        rest = [f for f in frames if f["t"] > after_t]
        if rest:
            blast(ws, rest)
            ack(ws, frames[-1]["t"], timeout=20)
        summary, tail, code = stop(ws)
        self.assertEqual(code, 1000)
        self.assertEqual(of_type(tail, "error"), [], "re-sent frames are accepted")
        return summary


class OneServiceTests(ClusterCase):
    def test_every_node_and_the_balancer_list_every_nodes_sessions(self):
        subject = f"cluster-list-{self.rng.randrange(1 << 30)}"
        ids = set()
        for node in (self.node1, self.node2, self.node3):
            resp = node.post("/v1/sessions", {"exercise": "squat", "subject": subject})
            self.assertEqual(resp.status, 201, resp)
            ids.add(resp.json()["id"])
        for client in (self.node1, self.node2, self.node3, self.gateway()):
            listed = client.get(f"/v1/sessions?subject={subject}")
            self.assertEqual(listed.status, 200, listed)
            self.assertEqual({s["id"] for s in listed.json()["sessions"]}, ids, f"listed by {client.base}")
            for sid in ids:
                self.assertEqual(client.get(f"/v1/sessions/{sid}").json()["status"], "live")
        self.assertIn('motion_live_sessions{node="node-2"}', self.node2.get("/metrics").body.decode())
        for sid in ids:
            # An HTTP session is stopped only on its own node; the others say it is not theirs.
            stops = [node.post(f"/v1/sessions/{sid}/stop").status for node in (self.node1, self.node2, self.node3)]
            self.assertEqual(sorted(stops), [200, 409, 409], stops)

    def test_a_watcher_on_another_node_follows_the_session(self):
        frames = make_frames(self.rng, reps=3)
        ws, started = self.start_session(self.node1)
        # A clinician finds the session in the shared history first, then watches it from another node.
        self.assertEqual(self.node2.wait_for_session(started["session"], lambda s: True).status, 200)
        watcher = self.open(self.node2, f"/v1/sessions/{started['session']}/watch")
        self.assertEqual(watcher.recv().get("type"), "started")
        blast(ws, frames)
        ack(ws, frames[-1]["t"], timeout=20)
        summary, _, code = stop(ws)
        self.assertEqual(code, 1000)
        close, _, heard = watcher.close_code(timeout=10)
        self.assertEqual(close, 1000, "the session ended normally")
        self.assertEqual(len(events(heard, "repCompleted")), summary["repCount"], "every rep, over the node bus")
        self.assertEqual(of_type(heard, "summary")[-1]["repCount"], summary["repCount"])
        self.assertTrue(of_type(heard, "snapshot"), "snapshots too")

    def test_a_session_is_found_on_every_node_once_started(self):
        """`started` comes once the session's row is durable: a REST read or a watcher on another node the moment
        the client has its id finds it (before, `started` went out ahead of the group commit: 404s)."""
        missing = []
        for i in range(30):
            ws, started = self.start_session(self.node1)
            sid = started["session"]
            resp = self.node2.get(f"/v1/sessions/{sid}")
            if resp.status != 200:
                missing.append((i, "GET", resp.status))
            try:
                first = self.open(self.node3, f"/v1/sessions/{sid}/watch").recv()
            except Exception as refused:  # the handshake answered 404
                first = {"refused": repr(refused)}
            if first.get("type") != "started":
                missing.append((i, "watch", first))
            ws.close()
        self.assertEqual(missing, [], "every session found on the other nodes at once")

    def test_a_session_live_on_another_node_is_not_deleted(self):
        """`DELETE` of a session another node runs is 409 `sessionLive`, as on the node that runs it (it was deleted:
        only the node's own sessions were checked); once stopped it can be deleted from any node."""
        ws, started = self.start_session(self.node1)
        sid = started["session"]
        resp = self.node2.delete(f"/v1/sessions/{sid}")
        self.assertEqual((resp.status, resp.json()["error"]["code"]), (409, "sessionLive"), resp)
        self.assertEqual(self.node2.get(f"/v1/sessions/{sid}").json()["status"], "live")
        _, _, code = stop(ws)
        self.assertEqual(code, 1000)
        self.assertEqual(self.node2.delete(f"/v1/sessions/{sid}").status, 204)
        self.assertEqual(self.node1.get(f"/v1/sessions/{sid}").status, 404)

    def test_a_session_resumes_on_another_node(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, _ = reference(self.node3, frames)
        cut = len(frames) // 2
        ws, started, _ = self.stream(self.node1, frames[:cut])
        ws.abort()
        again = self.open(self.node2)
        again.send(resume_msg(started["session"], started["resume"]))
        resumed = self.expect_resumed(again, started["session"], started)
        self.assertEqual(resumed["t"], frames[cut - 1]["t"], "the holder stored all it had before letting go")
        summary = self.finish(again, frames, resumed["t"])
        self.assert_same_session(summary, ref_summary, self.node3)


class FaultTests(ClusterCase):
    def test_a_killed_nodes_session_resumes_elsewhere_within_two_seconds(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, _ = reference(self.node2, frames)
        victim = 4
        server = CLUSTER.nodes[victim - 1]
        sent = frames[: len(frames) * 2 // 3]
        ws, started, _ = self.stream(server, sent)
        # The session's whole state up to its last pose is stored within a checkpoint interval (5 s).
        told = ws.recv_until(lambda m: is_checkpoint(m) and m["t"] == sent[-1]["t"], timeout=15)
        checkpointed = told[-1]["t"]
        CLUSTER.kill(victim)
        ws.abort()

        reconnected = time.monotonic()
        again = self.gateway().ws()
        self._ws.append(again)
        again.send(resume_msg(started["session"], started["resume"]))
        resumed = self.expect_resumed(again, started["session"], started)
        took = time.monotonic() - reconnected
        print(f"\ntakeover after kill -9: resumed {took * 1000:.0f} ms after reconnecting", file=sys.stderr)
        self.assertLess(took, 2.0, "resumed within 2 s of the client's reconnect")
        self.assertEqual(resumed["t"], checkpointed, "from the last checkpoint the client was told of")
        summary = self.finish(again, frames, resumed["t"])
        self.assert_same_session(summary, ref_summary, self.node2)

    def test_postgres_restarted_mid_stream_loses_nothing(self):
        frames = make_frames(self.rng, reps=3)
        ref_summary, _ = reference(self.node1, frames)
        third = len(frames) // 3
        ws, started, _ = self.stream(self.node1, frames[:third])
        CLUSTER.postgres.stop("fast")
        try:
            # The session goes on in memory.
            blast(ws, frames[third:2 * third])
            ack(ws, frames[2 * third - 1]["t"], timeout=20)
            deadline = time.monotonic() + 10
            ready = self.node1.get("/readyz")
            while ready.status != 503 and time.monotonic() < deadline:
                time.sleep(0.2)
                ready = self.node1.get("/readyz")
            self.assertEqual(ready.status, 503, "not ready while the store is down")
            resp = self.node1.get(f"/v1/sessions/{started['session']}")
            self.assertEqual((resp.status, resp.json()["error"]["code"]), (503, "storeUnavailable"), resp)
        finally:
            CLUSTER.postgres.start()
        deadline = time.monotonic() + 20
        while self.node1.get("/readyz").status != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(self.node1.get("/readyz").status, 200, "ready again")
        summary = self.finish(ws, frames, frames[2 * third - 1]["t"])
        self.assert_same_session(summary, ref_summary, self.node1)


if __name__ == "__main__":
    unittest.main()
