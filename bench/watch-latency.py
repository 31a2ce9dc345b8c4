"""Cross-node watch latency (docs/protocol.md §8): how long after a pose is sent its snapshot reaches a watcher on the
session's own node, and one on another node (over PostgreSQL's LISTEN/NOTIFY).

Two nodes on one PostgreSQL database (blackbox/support/cluster.py: Debian's PostgreSQL in a temporary directory).
--sessions sessions run on node 1, each streaming a simulated elbow curl at 30 poses/s; each has one watcher on node 1
and one on node 2. A snapshot names the pose it follows (`t`): its latency is its arrival at the watcher minus the
moment the client sent that pose (one machine, one monotonic clock). Watchers on the other node get at most ten
snapshots a second (the bus's bound); every snapshot that arrives is counted.

Usage: MOTION_SERVER=.build/release/motion-server .venv/bin/python bench/watch-latency.py [--sessions N] [--seconds S]
Prints one JSON object on stdout: per kind of watcher, the snapshots received and the latency percentiles in ms.
"""

import argparse
import asyncio
import json
import math
import os
import sys
import time

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "blackbox", "support"))

from cluster import Cluster  # noqa: E402


def pose(t):
    a = math.radians(130 * math.sin(math.pi * t / 4) ** 2)
    return json.dumps({"type": "pose", "t": round(t, 6), "points": {
        "rightShoulder": [600, 250], "rightElbow": [600, 400],
        "rightWrist": [600 + 150 * math.sin(a), 400 + 150 * math.cos(a)], "neck": [620, 250], "root": [620, 450]}})


async def watch(url, sent, latencies, stop):
    """Records, for each snapshot, the time since its pose was sent (ms)."""
    async with websockets.connect(url, max_queue=None) as ws:
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except asyncio.TimeoutError:
                continue
            except websockets.ConnectionClosed:
                return
            arrived = time.monotonic()
            message = json.loads(text)
            if message.get("type") != "snapshot":
                continue
            at = sent.get(message.get("t"))
            if at is not None:
                latencies.append((arrived - at) * 1000)


async def drain(ws):
    try:
        async for _ in ws:
            pass
    except websockets.ConnectionClosed:
        pass


async def session(node1, node2, seconds, local, remote, warmup):
    ws = await websockets.connect(f"ws://127.0.0.1:{node1}/v1/stream", max_queue=None)
    await ws.send(json.dumps({"type": "start", "exercise": "elbowFlexion", "side": "right"}))
    started = json.loads(await ws.recv())
    # The client's own snapshots (the watchers get what it gets) are read and dropped.
    reader = asyncio.create_task(drain(ws))
    sid = started["session"]
    sent = {}
    stop = asyncio.Event()
    measured_local, measured_remote = [], []
    watchers = [
        asyncio.create_task(watch(f"ws://127.0.0.1:{node1}/v1/sessions/{sid}/watch", sent, measured_local, stop)),
        asyncio.create_task(watch(f"ws://127.0.0.1:{node2}/v1/sessions/{sid}/watch", sent, measured_remote, stop)),
    ]
    await asyncio.sleep(1.0)  # the remote subscription is made
    start = time.monotonic()
    frame = 0
    while time.monotonic() - start < warmup + seconds:
        t = round(frame / 30, 6)
        if time.monotonic() - start >= warmup:
            sent[t] = time.monotonic()
        await ws.send(pose(t))
        frame += 1
        await asyncio.sleep(max(0, start + frame / 30 - time.monotonic()))
    await asyncio.sleep(0.5)
    stop.set()
    await ws.send(json.dumps({"type": "stop"}))
    await asyncio.gather(*watchers, return_exceptions=True)
    await ws.close()
    await asyncio.gather(reader, return_exceptions=True)
    local.extend(measured_local)
    remote.extend(measured_remote)


def percentiles(values):
    if not values:
        return {"count": 0}
    ordered = sorted(values)

    def at(q):
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"count": len(ordered), "p50": at(0.5), "p90": at(0.9), "p99": at(0.99), "max": round(ordered[-1], 2)}


async def run(args, cluster):
    node1, node2 = cluster.nodes[0].port, cluster.nodes[1].port
    local, remote = [], []
    await asyncio.gather(*(session(node1, node2, args.seconds, local, remote, args.warmup)
                           for _ in range(args.sessions)))
    return {"sessions": args.sessions, "seconds": args.seconds, "sameNode": percentiles(local),
            "otherNode": percentiles(remote)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=2)
    args = parser.parse_args()
    with Cluster(nodes=2) as cluster:
        print(json.dumps(asyncio.run(run(args, cluster))))


if __name__ == "__main__":
    main()
