#!/usr/bin/env python3
"""Minimal aiohttp peer for bench/http.sh: the same routes the Swift bench server answers.

GET /          -> "hello" (5 bytes, text/plain)
GET /<file>    -> static files from --public (web.static; no compression is applied)

Single process, default event loop. Usage:
    python3 bench/peers/aiohttp_server.py --port PORT --public DIR
`--port 0` takes a free port. Prints `listening on http://HOST:PORT` once ready; SIGTERM/SIGINT stop it.
"""
import argparse
import asyncio

from aiohttp import web

from peer_process import listening_until_stopped


async def hello(_request: web.Request) -> web.Response:
    return web.Response(text="hello", content_type="text/plain")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--public", required=True)
    args = parser.parse_args()

    app = web.Application()
    app.router.add_get("/", hello)
    app.router.add_static("/", args.public, show_index=False, follow_symlinks=False)

    # No access log: logging every request would measure the logger, not the server.
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, args.host, args.port, backlog=1024)
    await site.start()
    host, port = runner.addresses[0][:2]  # the real port when --port 0 asked the kernel for one
    await listening_until_stopped(host, port)
    await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
