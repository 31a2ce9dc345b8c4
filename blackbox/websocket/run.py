"""Runs the black-box WebSocket conformance tests for `GET /v1/echo` of `http-bench-server` (bench/http-server).

Run from the package root, after building the server:

    swift build --product http-bench-server
    .venv/bin/python blackbox/websocket/run.py            # prints "N passed, N failed" last; exit 1 on failures
    .venv/bin/python blackbox/websocket/run.py -k Close   # unittest's usual selection flags work too

The cases follow the Autobahn|Testsuite categories (1.x framing, 2.x ping/pong, 3.x reserved bits, 4.x opcodes,
5.x fragmentation, 6.x UTF-8, 7.x closing, 9.x sizes, 12.x/13.x permessage-deflate) plus the opening handshake,
each as several concrete cases. Two kinds of client:

- the PyPI `websockets` library (in the project's .venv: `make deps`), for well-formed traffic and
  permessage-deflate negotiation (RFC 7692) with every offer parameter;
- a raw-socket client (`RawWebSocket`) that does the handshake, sends masked frames of any shape, including
  invalid ones, and parses the server's frames (checking they are never masked), for everything a library is
  too polite to send.

Expected behaviour is RFC 6455 / RFC 7692 plus the server's documented limits (WebSocketConfiguration):
messages up to 1 MiB (1 << 20 bytes, after decompression) are accepted, larger ones fail with 1009. Where a test
checks something the RFC leaves to the implementation (which close code an undecodable deflate stream gets,
failing on non-minimal length encodings), its docstring says so.

The tests are the test_websocket_*.py modules beside this file (by subject: handshake, framing, control frames,
UTF-8, sizes, compression, concurrency), their shared code ws_support.py. One server subprocess (`--port 0`)
serves each module and is always stopped (SIGTERM, SIGKILL after 5 s); the shutdown test starts its own. Every
socket has a 5 s timeout and every test a 20 s alarm; the suite takes well under a minute. Set
HTTP_BENCH_SERVER=/path/to/binary to test another build.

With MOTION_TEST_TLS=1 every test runs over TLS (wss://): the server gets the test certificate, and the library
client and the raw-socket client connect with TLS and verify it (the raw client's frames then travel inside TLS
records: byte-level framing is unchanged). The server binary must take --tls-cert/--tls-key, or the run is skipped.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


if __name__ == "__main__":
    argv = [sys.argv[0], "discover", "-s", HERE, "-p", "test_websocket_*.py"] + sys.argv[1:]
    program = unittest.main(module=None, argv=argv, exit=False, verbosity=2)
    result = program.result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped - len(result.expectedFailures)
    print("%d passed, %d failed" % (passed, failed) + (", %d skipped" % skipped if skipped else ""))
    sys.exit(1 if failed or result.testsRun == 0 else 0)
