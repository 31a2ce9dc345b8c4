"""Runs kosoku's Autobahn fuzzing client against a WebSocket server and writes its reports (used by autobahn.sh).

    .venv/bin/python blackbox/websocket/kosoku_run.py [-p N] [-o OUTDIR] [-i CASE]... [-x CASE]... [--unpatched] ws://HOST:PORT/PATH

The same as `kosoku -p N -o OUTDIR ... URL` (kosoku 0.1.0, PyPI), with two corrections to the 12.x/13.x
(permessage-deflate) case code unless `--unpatched` is given:

1. kosoku hands the Python case code an *uncompressed* message as `str` (text decoded as UTF-8, binary as
Latin-1) but a compressed one as `bytes`. The 12.x/13.x case code (ported to Python 3) hashes what it gets with
hashlib, which refuses `str`, so every case in which the server sends a message uncompressed ends in
"behavior=ERROR: Strings must be encoded before hashing". Sending a message uncompressed on a permessage-deflate
connection is legal (RFC 7692 §6: RSV1 tells per message whether it is compressed), and this server does it for
messages under its compression threshold (64 bytes), so the 16-byte cases 12.x.1 and 13.x.1 hit it. The
correction turns such a `str` back into the exact bytes received (UTF-8 for text, Latin-1 for binary) before the
case code sees it.

2. Those cases run up to 1,000 round trips of up to 128 KiB, which can take longer than 30 s on a loaded machine
(a debug build on 2 busy cores). The server pings every connection every 30 s, busy or not (RFC 6455 §5.5.2
allows a ping at any time). The case code's inherited `onPing` calls `finishWhenDone()`, which for these cases
(no `expected` outcomes) closes the connection at once, so the case ends as FAILED "Case did not finish within
480 seconds" after ~30 s although every echo so far was right. The correction lets the case ignore the ping
(kosoku's core still answers it with a pong, as RFC 6455 §5.5.2 requires); the verdict still comes only from
the echoed messages.

Nothing else changes.

Exit status: 0 when every case passed, 1 otherwise (as kosoku's own CLI).
"""

import argparse
import asyncio
import sys


def _require_kosoku():
    try:
        import kosoku  # noqa: F401
    except ImportError:
        sys.exit("kosoku_run.py: the Python package 'kosoku' (0.1.0) is missing; `make deps` installs it into .venv")


def patch_compression_cases(cases):
    """Makes the 12.x/13.x cases accept the `str` kosoku delivers for uncompressed messages, and survive a
    keep-alive ping from the server (see module doc)."""
    patched = 0
    for case_id, cls in cases.items():
        if case_id.split(".")[0] not in ("12", "13") or "onMessage" not in cls.__dict__:
            continue
        original = cls.__dict__["onMessage"]

        def on_message(self, msg, binary, _original=original):
            if isinstance(msg, str):
                msg = msg.encode("latin-1" if binary else "utf-8")
            return _original(self, msg, binary)

        def on_ping(self, payload):
            self.pingsIgnored = getattr(self, "pingsIgnored", 0) + 1

        cls.onMessage = on_message
        cls.onPing = on_ping
        patched += 1
    return patched


async def run(arguments):
    import kosoku.cases
    from kosoku import FailureError, run_fuzzingclient
    from kosoku._report import write_reports

    if not arguments.unpatched:
        count = patch_compression_cases(kosoku.cases.CASES)
        print("kosoku_run: patched %d compression cases (str messages, pings)" % count, file=sys.stderr)
    failed = False
    try:
        results = await run_fuzzingclient(arguments.address, arguments.include, arguments.exclude,
                                          concurrency=arguments.parallelism)
    except FailureError as failure:
        print(failure, file=sys.stderr)
        results = failure.results
        failed = True
    if results:
        write_reports(results, arguments.outdir)
        print("wrote reports for %d cases to %s/" % (len(results), arguments.outdir))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description="kosoku fuzzing client with two 12.x/13.x case-code fixes")
    parser.add_argument("address", help="ws://HOST:PORT/PATH of the server under test")
    parser.add_argument("-p", "--parallelism", type=int, default=2)
    parser.add_argument("-o", "--outdir", default="reports/clients")
    parser.add_argument("-i", "--include", action="append", metavar="CASE")
    parser.add_argument("-x", "--exclude", action="append", metavar="CASE")
    parser.add_argument("--unpatched", action="store_true", help="run kosoku exactly as shipped")
    arguments = parser.parse_args()
    _require_kosoku()
    sys.exit(asyncio.run(run(arguments)))


if __name__ == "__main__":
    main()
