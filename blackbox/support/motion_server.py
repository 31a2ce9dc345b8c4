"""`MotionServer`: one motion-server subprocess on a free port of 127.0.0.1 with its own temporary directory (its
database, and its tokens file when given), ended and removed by `stop()`. Shared by the black-box suites
(blackbox/security, blackbox/tls); import after adding this directory to sys.path.

MOTION_SERVER_BIN=/path/to/motion-server tests another build (MOTION_SERVER is honoured too).
"""

import os
import tempfile

import server_process

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = (os.environ.get("MOTION_SERVER_BIN") or os.environ.get("MOTION_SERVER")
          or os.path.join(ROOT, ".build", "debug", "motion-server"))
HOST = "127.0.0.1"


class MotionServer(server_process.ServerProcess):
    """motion-server with `flags` after its own: `--host`, `--port 0`, a database in a new temporary directory
    (named with `prefix`), `--public` when `public` is given, `--threads 2`, `--log-level`, and `--tokens` with a
    file holding `tokens` when that is given."""

    def __init__(self, *flags, prefix="motion-", public=None, tokens=None, log_level="warning", nofile=None):
        self.tmp = tempfile.TemporaryDirectory(prefix=prefix)
        args = [BINARY, "--host", HOST, "--port", "0", "--database", os.path.join(self.tmp.name, "motion.sqlite"),
                "--threads", "2", "--log-level", log_level]
        if public:
            args += ["--public", public]
        if tokens is not None:
            path = os.path.join(self.tmp.name, "tokens")
            with open(path, "w") as f:
                f.write(tokens)
            args += ["--tokens", path]
        try:
            super().__init__(args + list(flags), host=HOST, nofile=nofile)
        except BaseException:
            self.tmp.cleanup()
            raise

    def stop(self):
        try:
            super().stop()
        finally:
            self.tmp.cleanup()

    def stderr_all(self):
        """Everything the server wrote to stderr."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def rss(self):
        """The server's resident set size in bytes (VmRSS of /proc/<pid>/status)."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS for pid %d" % self.proc.pid)
