"""What every peer server of bench/*.sh does once it listens, in one place (blackbox/support/server.sh waits for it).

    await listening_until_stopped(host, port)

prints `listening on http://HOST:PORT` (flushed at once: the scripts wait for that line), then returns when SIGTERM
or SIGINT arrives, for the peer to close its server and exit.
"""
import asyncio
import signal


async def listening_until_stopped(host: str, port: int) -> None:
    print(f"listening on http://{host}:{port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
