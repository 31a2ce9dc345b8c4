#!/usr/bin/env python3
"""Minimal `websockets` peer for bench/peers.sh: the WebSocket echo our servers answer.

GET /v1/echo   -> WebSocket that sends every text or binary message back unchanged (any other path: 404)

Single process, default asyncio event loop, the library's asyncio server (websockets.asyncio.server).
permessage-deflate is accepted only when a client offers it (the library's default, like our server and aiohttp);
bench/peers.sh does not offer it. Messages up to 1 MiB, our server's default maxMessageBytes. The library's own
keepalive pings are off, as aiohttp's heartbeat and our server's are. Usage:
    python3 bench/peers/websockets_server.py --port PORT
`--port 0` takes a free port. Prints `listening on http://HOST:PORT` once ready; SIGTERM/SIGINT stop it.
"""
import argparse
import asyncio
import http

from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from peer_process import listening_until_stopped


def only_echo(connection: ServerConnection, request: Request) -> Response | None:
    if request.path != "/v1/echo":
        return connection.respond(http.HTTPStatus.NOT_FOUND, "not found\n")
    return None


async def echo(connection: ServerConnection) -> None:
    # A text message arrives as str and goes back as text, a binary one as bytes.
    async for message in connection:
        await connection.send(message)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    # backlog 1024: the same as our server's default listen backlog (passed on to loop.create_server).
    # close_timeout 2 s: closing 10,000 idle connections at shutdown would otherwise take up to the 10 s default.
    async with serve(
        echo,
        args.host,
        args.port,
        process_request=only_echo,
        max_size=1 << 20,
        ping_interval=None,
        close_timeout=2,
        backlog=1024,
    ) as server:
        host, port = next(iter(server.sockets)).getsockname()[:2]  # the real port when --port 0 asked for one
        await listening_until_stopped(host, port)


if __name__ == "__main__":
    asyncio.run(main())
