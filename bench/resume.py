"""Resume after a restart, and what checkpoints cost: the part of bench/resume.sh that needs a client able to
restart the server under it.

N sessions stream a simulated elbow curl at 30 poses/s for SECONDS; then the server is stopped (SIGTERM, or SIGKILL
with --kill) and started again on the same database, and every session resumes at once (a thundering herd, as
phones reconnecting after a server restart do): the time from sending `resume` to receiving `resumed` is each
resume's latency. Before the restart, the database gives the checkpoint cost: the engine state's size, and the
bytes a session's checkpoints wrote per minute of session (the state twelve times, the series chunks), plus the server's
write_bytes from /proc (what the store really wrote, pages and WAL included) per session-minute.

Usage: resume.py SERVER_BINARY DATABASE --sessions N --seconds S [--kill]
Prints one JSON object on stdout.
"""

import argparse
import asyncio
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time

import websockets


def start_server(binary, database):
    proc = subprocess.Popen(
        [binary, "--port", "0", "--database", database, "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "listening on" not in line:
        raise SystemExit(f"server did not start: {line!r}")
    return proc, line.strip().rsplit(":", 1)[1]


def pose(t):
    a = math.radians(130 * math.sin(math.pi * t / 4) ** 2)
    return json.dumps({"type": "pose", "t": round(t, 6), "points": {
        "rightShoulder": [600, 250], "rightElbow": [600, 400],
        "rightWrist": [600 + 150 * math.sin(a), 400 + 150 * math.cos(a)], "neck": [620, 250], "root": [620, 450]}})


def write_bytes(pid):
    try:
        with open(f"/proc/{pid}/io") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("write_bytes:"))
    except (OSError, StopIteration):
        return None


async def stream(port, seconds, frames_out, ready):
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/v1/stream", max_queue=None)
    await ws.send(json.dumps({"type": "start", "exercise": "elbowFlexion", "side": "right",
                              "options": {"snapshots": "off"}}))
    started = json.loads(await ws.recv())
    ready.append(1)
    start = time.monotonic()
    frame = 0
    while time.monotonic() - start < seconds:
        await ws.send(pose(frame / 30))
        frame += 1
        await asyncio.sleep(max(0, start + frame / 30 - time.monotonic()))
    frames_out.append(frame)
    return ws, started["session"], started["resume"], frame


async def resume(port, session, token):
    ws = await websockets.connect(f"ws://127.0.0.1:{port}/v1/stream")
    began = time.monotonic()
    await ws.send(json.dumps({"type": "resume", "session": session, "token": token}))
    answer = json.loads(await ws.recv())
    elapsed = time.monotonic() - began
    if answer.get("type") != "resumed":
        raise SystemExit(f"resume refused: {answer}")
    await ws.send(json.dumps({"type": "stop"}))
    async for _ in ws:
        pass
    return elapsed


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("database")
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--kill", action="store_true")
    args = parser.parse_args()

    proc, port = start_server(args.binary, args.database)
    written_before = write_bytes(proc.pid)
    ready, frames = [], []
    streams = await asyncio.gather(*(stream(port, args.seconds, frames, ready) for _ in range(args.sessions)))
    # Every session's last periodic checkpoint is written by now (5 s interval, 50 ms batches).
    await asyncio.sleep(6)
    written = write_bytes(proc.pid)
    db = sqlite3.connect(args.database)
    state_bytes = [row[0] for row in db.execute(
        "SELECT length(engine_state) FROM sessions WHERE engine_state IS NOT NULL")]
    chunk_bytes = db.execute("SELECT coalesce(sum(length(samples)), 0) FROM series_chunks").fetchone()[0]
    reps = db.execute("SELECT count(*) FROM reps").fetchone()[0]
    db.close()
    minutes = args.sessions * args.seconds / 60
    checkpoints_per_minute = 60 / 5

    proc.send_signal(signal.SIGKILL if args.kill else signal.SIGTERM)
    proc.wait()
    for ws, *_ in streams:
        await ws.close()
    proc, port = start_server(args.binary, args.database)
    latencies = await asyncio.gather(*(resume(port, session, token) for _, session, token, _ in streams))
    proc.terminate()
    proc.wait()

    mean_state = sum(state_bytes) / len(state_bytes) if state_bytes else 0
    print(json.dumps({
        "sessions": args.sessions, "seconds": args.seconds, "restart": "SIGKILL" if args.kill else "SIGTERM",
        "frames_per_session": sum(frames) / len(frames),
        "engine_state_bytes_mean": round(mean_state, 1), "engine_state_bytes_max": max(state_bytes or [0]),
        "checkpoint_blob_bytes_per_session_minute": round(
            (mean_state * checkpoints_per_minute * minutes + chunk_bytes) / minutes),
        "series_chunk_bytes_per_session_minute": round(chunk_bytes / minutes),
        "reps_per_session_minute": round(reps / minutes, 1),
        "server_write_bytes_per_session_minute":
            None if written is None or written_before is None else round((written - written_before) / minutes),
        "resume_ms": {"p50": round(percentile(latencies, 50) * 1000, 2),
                      "p99": round(percentile(latencies, 99) * 1000, 2),
                      "max": round(max(latencies) * 1000, 2), "count": len(latencies)},
    }))


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
