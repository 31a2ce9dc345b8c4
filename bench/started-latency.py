"""What `started` costs now that it waits for the session's row to be durable (docs/cluster.md, "A new session is
everywhere at once"): the time from sending `start` to receiving `started`, for sessions opened one after another
(each alone in its group commit: the worst case) and CONCURRENT at a time (creates sharing commits), against two
server builds, alternating, on the same kind of database.

Usage: started-latency.py BASE_BINARY HEAD_BINARY [--database sqlite|postgres] [--sessions N] [--concurrent C]
       [--rounds R]
Prints, per build and round, the median and p99 of `started` in ms and the sessions started per second with C at a
time; then the medians over the rounds.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "blackbox", "support"))
sys.path.insert(0, HERE)

import resume  # noqa: E402  (its start_server)

START = json.dumps({"type": "start", "exercise": "elbowFlexion", "side": "right", "options": {"snapshots": "off"}})


def start_server(binary, database):
    proc, port = resume.start_server(binary, database)
    return proc, int(port)


async def one(port, latencies):
    async with websockets.connect(f"ws://127.0.0.1:{port}/v1/stream", compression=None) as ws:
        sent = time.perf_counter()
        await ws.send(START)
        reply = json.loads(await ws.recv())
        latencies.append((time.perf_counter() - sent) * 1000)
        assert reply["type"] == "started", reply
        await ws.send('{"type":"stop"}')
        async for _ in ws:
            pass


async def measure(port, sessions, concurrent):
    sequential = []
    for _ in range(sessions):
        await one(port, sequential)
    together = []
    started = time.perf_counter()
    for i in range(0, sessions, concurrent):
        await asyncio.gather(*(one(port, together) for _ in range(min(concurrent, sessions - i))))
    rate = sessions / (time.perf_counter() - started)
    p99 = lambda xs: sorted(xs)[int(len(xs) * 0.99) - 1]
    return {"median_ms": statistics.median(sequential), "p99_ms": p99(sequential),
            "concurrent_median_ms": statistics.median(together), "sessions_per_s": rate}


def database_for(kind, directory, round_, name):
    """A new database for each build and round (the builds' schemas may differ)."""
    if kind == "sqlite":
        return os.path.join(directory, f"{name}-{round_}.sqlite")
    database = f"motion_{name}_{round_}"
    POSTGRES.run(f"{POSTGRES.bin}/createdb", "-h", POSTGRES.directory, "-U", "postgres", database)
    return f"postgresql:///{database}?host={POSTGRES.directory}&user=postgres"


POSTGRES = None


def main():
    global POSTGRES
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("head")
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--concurrent", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="started-latency-") as directory:
        if args.database == "postgres":
            from cluster import Postgres
            os.chmod(directory, 0o755)
            POSTGRES = Postgres(os.path.join(directory, "pg")).init()
        results = {"base": [], "head": []}
        try:
            for round_ in range(args.rounds):
                for name, binary in (("base", args.base), ("head", args.head)):
                    proc, port = start_server(binary, database_for(args.database, directory, round_, name))
                    try:
                        result = asyncio.run(measure(port, args.sessions, args.concurrent))
                    finally:
                        proc.terminate()
                        proc.wait()
                    results[name].append(result)
                    print(json.dumps({"round": round_, "build": name, **result}), flush=True)
        finally:
            if POSTGRES is not None:
                POSTGRES.stop("immediate")
        for name, rounds in results.items():
            summary = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
            print(json.dumps({"build": name, "median_of_rounds": summary}), flush=True)


if __name__ == "__main__":
    main()
