#!/usr/bin/env python3
"""Replays one recorded session through `/v1/stream` at camera speed and as fast as the socket takes it, on one
connection and on many, and checks that nothing is lost: every full-speed session's events and summary must be
byte-identical to the camera-speed run's (the summary without its `id`, `startedAt` and `endedAt`).

    swift build -c release --product motion-server
    .venv/bin/python bench/replay.py [--seconds 60] [--connections 100] [--runs 3]
        [--server-args "--frames-per-second 240"]

The recording is a simulated right elbow flexion session (`--seconds` long at 30 frames/s, noisy, reps of
varying height). The server is started fresh for each configuration (`.build/release/motion-server`, a temporary
SQLite file, `--log-level warning` plus `--server-args`). Prints one line per run and a median per configuration:
frames/s through the server (frames sent ÷ time from the first pose to the summary), the server's CPU per frame,
and whether every session matched. Exits 1 on any mismatch or loss.

The client is Python (`websockets` from the project's .venv, `make deps`; no compression): at high rates on many connections it may be the limit, which
the client CPU column shows.
"""
import argparse
import asyncio
import json
import math
import os
import random
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import websockets

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = os.path.join(ROOT, ".build", "release", "motion-server")
IDENTITY = re.compile(r'"(id|startedAt|endedAt)":("[^"]*"|null),?')


def recording(seconds, seed=7):
    """Pose frames of a right elbow flexion session, side view, 30 frames/s."""
    rng = random.Random(seed)
    shoulder, elbow, forearm = (600.0, 250.0), (600.0, 400.0), 150.0
    frames, t, fps = [], 0.0, 30

    def emit(angle):
        nonlocal t
        a = math.radians(angle + rng.gauss(0, 1.0))
        wrist = (elbow[0] + forearm * math.sin(a), elbow[1] + forearm * math.cos(a))
        frames.append({"type": "pose", "t": round(t, 6), "width": 1280, "height": 720, "points": {
            "rightShoulder": list(shoulder), "rightElbow": list(elbow),
            "rightWrist": [round(wrist[0], 3), round(wrist[1], 3)],
            "neck": [600.0, 230.0], "root": [600.0, 520.0]},
            "confidence": {"rightShoulder": 0.95, "rightElbow": 0.9, "rightWrist": 0.85}})
        t += 1 / fps

    while t < seconds:
        peak = rng.uniform(100, 140)
        for _ in range(20):
            emit(10)
        for i in range(24):
            emit(10 + (peak - 10) * (1 - math.cos(math.pi * (i + 1) / 24)) / 2)
        for _ in range(12):
            emit(peak)
        for i in range(24):
            emit(peak - (peak - 10) * (1 - math.cos(math.pi * (i + 1) / 24)) / 2)
    return [json.dumps(f, separators=(",", ":")) for f in frames], [f["t"] for f in frames]


class Server:
    def __init__(self, extra):
        self.dir = tempfile.mkdtemp(prefix="replay-")
        args = [SERVER, "--port", "0", "--log-level", "warning", "--database", os.path.join(self.dir, "m.sqlite"),
                "--public", os.path.join(self.dir, "none")] + extra
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        match = re.search(r":(\d+)$", line.strip())
        if not match:
            raise SystemExit(f"server did not start: {line!r}")
        self.url = f"ws://127.0.0.1:{match.group(1)}/v1/stream"

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def session(url, frames, times, paced):
    """One session; returns (events, summary without identity, seconds from first pose to summary)."""
    async with websockets.connect(url, compression=None, max_size=None, open_timeout=60, ping_interval=None) as ws:
        await ws.send('{"type":"start","exercise":"elbowFlexion","side":"right","subject":"replay",'
                      '"options":{"snapshots":"off"}}')
        while '"started"' not in await ws.recv():
            pass
        events, summary = [], None
        began = time.monotonic()

        async def send():
            for text, t in zip(frames, times):
                if paced:
                    delay = began + t - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                await ws.send(text)
            await ws.send('{"type":"stop"}')

        sender = asyncio.create_task(send())
        async for message in ws:
            if '"type":"event"' in message[:40]:
                events.append(message)
            elif '"type":"summary"' in message[:40]:
                summary = IDENTITY.sub("", message)
            elif '"type":"error"' in message[:40]:
                events.append(message)  # an error would make the run differ from the reference: a loss
        await sender
        return events, summary, time.monotonic() - began


async def run(url, frames, times, connections, paced):
    return await asyncio.gather(*(session(url, frames, times, paced) for _ in range(connections)))


def client_cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60, help="length of the recording (default 60)")
    parser.add_argument("--connections", type=int, default=100, help="connections of the many-connection runs")
    parser.add_argument("--runs", type=int, default=3, help="runs per configuration (median reported)")
    parser.add_argument("--server-args", default="", help="extra motion-server flags, e.g. --frames-per-second 240")
    options = parser.parse_args()
    if not os.access(SERVER, os.X_OK):
        raise SystemExit(f"{SERVER} not found: swift build -c release --product motion-server")
    frames, times = recording(options.seconds)
    extra = shlex.split(options.server_args)
    print(f"recording: {len(frames)} frames, {times[-1]:.1f} s at 30 frames/s; server flags: {extra or 'defaults'}")

    server = Server(extra)
    try:
        [(ref_events, ref_summary, took)] = asyncio.run(run(server.url, frames, times, 1, paced=True))
    finally:
        server.stop()
    reps = json.loads(ref_summary)["repCount"]
    print(f"camera speed: {len(frames) / took:.0f} frames/s, {len(ref_events)} events, {reps} reps (reference)")
    failed = False
    for connections in (1, options.connections):
        rates, costs = [], []
        for number in range(options.runs):
            server = Server(extra)
            try:
                cpu0, client0, wall0 = server.cpu_seconds(), client_cpu(), time.monotonic()
                results = asyncio.run(run(server.url, frames, times, connections, paced=False))
                wall = time.monotonic() - wall0
                cpu, client = server.cpu_seconds() - cpu0, client_cpu() - client0
            finally:
                server.stop()
            same = sum(1 for events, summary, _ in results if events == ref_events and summary == ref_summary)
            total = len(frames) * connections
            rate = total / max(seconds for _, _, seconds in results)
            rates.append(rate)
            costs.append(cpu / total * 1e6)
            failed |= same != connections
            print(f"  {connections:4d} connection(s), run {number + 1}: {rate:9.0f} frames/s, server "
                  f"{cpu / wall * 100:5.1f} % CPU ({cpu / total * 1e6:.1f} µs/frame), client {client / wall * 100:5.1f} "
                  f"% CPU; identical to camera speed: {same}/{connections}")
        print(f"{connections:4d} connection(s): median {statistics.median(rates):.0f} frames/s, "
              f"{statistics.median(costs):.1f} µs server CPU per frame")
    print("every session identical to the camera-speed run" if not failed else "MISMATCH: frames were lost")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
