#!/usr/bin/env python3
"""Minimal aiohttp WebSocket peer for bench/websocket.sh: the same endpoint the Swift bench server answers.

GET /v1/echo   -> WebSocket that sends every text or binary message back unchanged

Single process, default asyncio event loop, no access log. permessage-deflate is accepted when a client offers it
(aiohttp's default, like our server); bench/websocket.sh does not offer it. aiohttp's own automatic ping
(heartbeat) is off, its default. Usage:
    python3 bench/peers/aiohttp_ws_server.py --port PORT
`--port 0` takes a free port. Prints `listening on http://HOST:PORT` once ready; SIGTERM/SIGINT stop it.
"""
import argparse
import asyncio

from aiohttp import WSMsgType, web

from peer_process import listening_until_stopped


async def echo(request: web.Request) -> web.WebSocketResponse:
    # max_msg_size 1 MiB: the same limit as our server's default maxMessageBytes.
    ws = web.WebSocketResponse(max_msg_size=1 << 20)
    await ws.prepare(request)
    async for msg in ws:
        if msg.type == WSMsgType.TEXT:
            await ws.send_str(msg.data)
        elif msg.type == WSMsgType.BINARY:
            await ws.send_bytes(msg.data)
        elif msg.type == WSMsgType.ERROR:
            break
    return ws


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    app = web.Application()
    app.router.add_get("/v1/echo", echo)

    # No access log: logging every upgrade would measure the logger, not the server.
    # shutdown_timeout 2 s: 10,000 idle sockets would otherwise hold shutdown up to the 60 s default.
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=2.0)
    await runner.setup()
    # backlog 1024: the same as our server's default listen backlog.
    site = web.TCPSite(runner, args.host, args.port, backlog=1024)
    await site.start()
    host, port = runner.addresses[0][:2]  # the real port when --port 0 asked the kernel for one
    await listening_until_stopped(host, port)
    await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
