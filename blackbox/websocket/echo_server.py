"""A reference WebSocket echo server on the PyPI `websockets` library, for interoperability tests.

    .venv/bin/python blackbox/websocket/echo_server.py [--port N] [--host 127.0.0.1] [--max-size BYTES] [--no-compression]

Listens on HOST:PORT (`--port 0`, the default, picks a free port) and prints exactly one line,
`listening on ws://HOST:PORT/`, once it accepts connections. Every path echoes every message back as it came
(text as text, binary as binary). permessage-deflate (RFC 7692) is accepted when offered unless
`--no-compression`. SIGTERM or SIGINT closes open connections with 1001 and exits 0.

Used by Tests/HTTPServerTests/WebSocketInteropTests.swift (our Swift client against an independent server).
Needs `websockets` (in the project's .venv: `make deps`); without it the script exits 2
with a message saying so.
"""

import argparse
import asyncio
import signal
import sys

try:
    from websockets.asyncio.server import serve
except ImportError:  # pragma: no cover - depends on the machine
    print(
        "echo_server.py: the Python package 'websockets' (>= 13) is missing; "
        "`make deps` installs it into .venv (run .venv/bin/python blackbox/websocket/echo_server.py)",
        file=sys.stderr,
    )
    sys.exit(2)


async def echo(connection):
    async for message in connection:
        await connection.send(message)


async def main(arguments):
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))
    async with serve(
        echo,
        arguments.host,
        arguments.port,
        compression=None if arguments.no_compression else "deflate",
        max_size=arguments.max_size,
        max_queue=64,
        ping_interval=None,
        close_timeout=2,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        sys.stdout.write("listening on ws://%s:%d/\n" % (arguments.host, port))
        sys.stdout.flush()
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="WebSocket echo server (websockets library)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on; 0 picks a free one")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--max-size", type=int, default=16 << 20, help="largest message accepted, in bytes")
    parser.add_argument("--no-compression", action="store_true", help="decline permessage-deflate")
    # A parent may start us with SIGTERM blocked (posix_spawn keeps the caller thread's mask, and libdispatch
    # worker threads block it, e.g. Foundation's Process in a Swift test), which would make SIGTERM a no-op.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    asyncio.run(main(parser.parse_args()))
