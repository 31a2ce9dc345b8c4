"""A server under test as a subprocess: started on port 0, its port read from its `listening on http://HOST:PORT`
line, its stderr kept for failure messages, and always ended by `stop()` (SIGTERM, then SIGKILL after 5 s).

Shared by the black-box suites (tests/http, tests/websocket); import after adding this directory to sys.path.
"""

import os
import select
import signal
import subprocess
import tempfile
import time


class ServerProcess:
    """One server subprocess, started with `args` (which must make it listen on a free port and print the line)."""

    def __init__(self, args, host="127.0.0.1"):
        if not os.access(args[0], os.X_OK):
            raise RuntimeError("%s not found or not executable: build it first" % args[0])
        self.host = host
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(list(args), stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL)
        try:
            self.port = self._read_port()
        except BaseException:
            self.stop()
            raise

    def _read_port(self):
        deadline = time.monotonic() + 15
        line = b""
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([self.proc.stdout], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                raise RuntimeError("server did not print 'listening on' within 15 s")
            byte = os.read(self.proc.stdout.fileno(), 1)
            if not byte:
                raise RuntimeError("server exited before listening: %r" % self.stderr_text())
            line += byte
        text = line.decode().strip()
        if not text.startswith("listening on http://"):
            raise RuntimeError("unexpected first line: %r" % text)
        return int(text.rsplit(":", 1)[1])

    def stderr_text(self):
        """The last 2,000 characters the server wrote to stderr."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")[-2000:]

    def alive(self):
        return self.proc.poll() is None

    def terminate(self):
        """Sends SIGTERM (the server drains) without waiting."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout):
        """The exit status, or None if the server is still running after `timeout` seconds."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()

    def cpu_seconds(self):
        """User + system CPU time of the process so far."""
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def url(self, path):
        return "http://%s:%d%s" % (self.host, self.port, path)
