"""2./3. Clients that never read: pipelined requests and a ping flood must not grow the server's memory."""

import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from security_support import (  # noqa: E402
    encode_frame, HOST, largest_static_path, MB, metric_samples, OP_PING, ServerTestCase, TIMEOUT, WebSocketClient,
)


# MARK: - 2. A client that does not read


class SlowReaderTests(ServerTestCase):
    """Item 2 (STYLE "Every buffer has an owner and a bound"): one connection pipelines requests as fast as it can
    and never reads. The server must stop reading while a response is pending (bounded memory) and close the
    connection once a write has made no progress for --write-timeout seconds."""

    FLAGS = ("--write-timeout", "2")
    FLOOD_SECONDS = 3.0
    MAX_FLOOD_BYTES = 400 * MB
    MAX_GROWTH = 64 * MB
    CLOSE_DEADLINE = 15.0  # write-timeout 2 s plus generous slack

    def flood_connection(self, max_bytes, sample=None):
        """Opens a connection with a small receive buffer and sends pipelined GETs of the largest static file for
        FLOOD_SECONDS (or until max_bytes, or until the server closes), never reading."""
        path = largest_static_path()
        request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)  # so the server's writes block early
        sock.settimeout(TIMEOUT)
        sock.connect((HOST, self.server.port))
        chunk = request * max(1, (256 * 1024) // len(request))
        sent, outcome = send_without_reading(sock, chunk, max_bytes, self.FLOOD_SECONDS, sample)
        return sock, sent, outcome

    def test_memory_stays_bounded_while_a_client_pipelines_without_reading(self):
        baseline = self.server.rss()
        peak = [baseline]

        def sample():
            peak[0] = max(peak[0], self.server.rss())

        sock, sent, outcome = self.flood_connection(self.MAX_FLOOD_BYTES, sample)
        try:
            settle_deadline = time.monotonic() + 1.5
            while time.monotonic() < settle_deadline:  # the server may still be reading what the kernel holds
                sample()
                time.sleep(0.05)
        finally:
            sock.close()
        growth = peak[0] - baseline
        self.assertLessEqual(
            growth, self.MAX_GROWTH,
            f"server RSS grew by {growth / MB:.0f} MB ({baseline / MB:.0f} → {peak[0] / MB:.0f} MB) while one "
            f"connection sent {sent / MB:.0f} MB of pipelined requests without reading (flood ended: {outcome}); "
            f"input must not be buffered without bound while a response is pending")

    def open_connections(self):
        """motion_open_connections, counting the connection that asks."""
        values = metric_samples(self.metrics(), "motion_open_connections")
        self.assertEqual(len(values), 1, "/metrics must have one motion_open_connections sample")
        return values[0]

    def test_connection_that_never_reads_is_closed_after_the_write_timeout(self):
        # Two ways to see the close without reading (reading would let the server's write progress): the kernel's
        # TCP state of our socket (a close with our requests unread sends RST, so it leaves ESTABLISHED), or the
        # server's own count of open connections falling back to what it was before.
        before = self.open_connections()
        sock, sent, outcome = self.flood_connection(64 * MB)
        try:
            stopped = time.monotonic()
            closed = outcome == "closed"
            state, count = tcp_state(sock), None
            while not closed and time.monotonic() - stopped < self.CLOSE_DEADLINE:
                state, count = tcp_state(sock), self.open_connections()
                if state != TCP_ESTABLISHED or count <= before:
                    closed = True
                    break
                time.sleep(0.2)
            waited = time.monotonic() - stopped
        finally:
            sock.close()
        self.assertTrue(
            closed,
            f"the server kept a connection that never reads open for {waited:.1f} s after the client stopped "
            f"sending ({sent / MB:.1f} MB sent; TCP state {state}; motion_open_connections {count} against "
            f"{before} before); with --write-timeout 2 it must close it within {self.CLOSE_DEADLINE:.0f} s")


TCP_ESTABLISHED = 1


def tcp_state(sock):
    """The kernel's TCP state of `sock` (tcp_info.tcpi_state; 1 = ESTABLISHED), without reading from it."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def send_without_reading(sock, chunk, total, seconds, sample=None):
    """Sends `chunk` over and over until `total` bytes went out, `seconds` passed, or the server closed the
    connection; never reads. Calls `sample()` about every 50 ms. Returns (bytes sent, "done"|"deadline"|"closed")."""
    sock.setblocking(False)
    view = memoryview(chunk)
    position = sent = 0
    deadline = time.monotonic() + seconds
    next_sample = 0.0
    try:
        while True:
            now = time.monotonic()
            if sample is not None and now >= next_sample:
                sample()
                next_sample = now + 0.05
            if sent >= total:
                return sent, "done"
            if now >= deadline:
                return sent, "deadline"
            try:
                count = sock.send(view[position:position + min(len(chunk) - position, total - sent)])
            except (BlockingIOError, InterruptedError):
                select.select([], [sock], [], 0.05)
                continue
            except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
                return sent, "closed"
            sent += count
            position = (position + count) % len(chunk)
    finally:
        sock.setblocking(True)
        sock.settimeout(TIMEOUT)


# MARK: - 3. WebSocket pings from a client that never reads


class PingFloodTests(ServerTestCase):
    """Item 3: 200,000 pings (125-byte payloads) from a client that never reads must not queue pongs without
    bound: the outgoing queue, control frames included, has a limit (closing with 1008 or no longer reading
    are both fine). The limit is 16 MB of RSS growth: an unbounded pong queue grows by about 32 MB here (a debug
    build, 32.2 MB in three runs out of three), a queue bounded like the data queue (4 MB) by a few MB."""

    FLAGS = ("--ws-echo",)
    PINGS = 200_000
    MAX_GROWTH = 16 * MB

    def test_pongs_to_a_client_that_never_reads_stay_bounded(self):
        # A small receive buffer, so pongs back up in the server rather than in this process's kernel buffer.
        ws = WebSocketClient.connect(self.server.port, "/v1/echo", receive_buffer=32 * 1024)
        try:
            self.assertEqual(ws.status, 101, f"/v1/echo must upgrade (--ws-echo, no tokens): {ws.status}")
            time.sleep(0.2)
            baseline = self.server.rss()
            peak = [baseline]

            def sample():
                peak[0] = max(peak[0], self.server.rss())

            frame = encode_frame(OP_PING, b"p" * 125)
            chunk = frame * 1000
            sent, outcome = send_without_reading(ws.sock, chunk, len(frame) * self.PINGS, 20.0, sample)
            settle_deadline = time.monotonic() + 1.5
            while time.monotonic() < settle_deadline:
                sample()
                time.sleep(0.05)
        finally:
            ws.close()
        growth = peak[0] - baseline
        self.assertLessEqual(
            growth, self.MAX_GROWTH,
            f"server RSS grew by {growth / MB:.1f} MB ({baseline / MB:.0f} → {peak[0] / MB:.0f} MB) after "
            f"{sent // len(frame)} pings from a client that never reads (sending ended: {outcome}); "
            f"queued pongs must be bounded")
