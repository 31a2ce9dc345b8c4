"""Several motion-server nodes on one PostgreSQL database behind nginx (docs/protocol.md §8), on this machine, without
Docker: Debian's PostgreSQL (`initdb` and `pg_ctl` into a temporary directory, Unix socket only) and nginx (its own
prefix in that directory), each a process of its own. Used by the black-box cluster tests and by `make cluster`:

    .venv/bin/python blackbox/support/cluster.py --nodes 2 --port 8080     # Ctrl-C stops everything

As root, PostgreSQL runs as the `postgres` user (it refuses root) and nginx's workers as root.
"""

import argparse
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))

from motion_client import Server  # noqa: E402


def postgres_binaries():
    """The newest installed PostgreSQL server's bin directory (Debian: /usr/lib/postgresql/N/bin), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return os.path.dirname(found[-1]) if found else None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    """A PostgreSQL server in `directory`, listening only on a Unix socket there."""

    def __init__(self, directory):
        self.bin = postgres_binaries()
        if self.bin is None:
            raise RuntimeError("PostgreSQL server binaries not found: apt install postgresql (make deps)")
        self.directory = directory
        self.data = os.path.join(directory, "data")
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        os.makedirs(directory, exist_ok=True)
        if self.as_user:
            shutil.chown(directory, "postgres")

    @property
    def url(self):
        return f"postgresql:///motion?host={self.directory}&user=postgres"

    def run(self, *args, check=True):
        return subprocess.run(self.as_user + list(args), check=check, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    def init(self):
        self.run(f"{self.bin}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                 "--no-sync")
        self.start()
        self.run(f"{self.bin}/createdb", "-h", self.directory, "-U", "postgres", "motion")
        return self

    def start(self):
        self.run(f"{self.bin}/pg_ctl", "-D", self.data, "-l", os.path.join(self.directory, "server.log"), "-w",
                 "-t", "60", "-o", f"-k {self.directory} -c listen_addresses='' -c fsync=off "
                 "-c max_connections=200", "start")

    def stop(self, mode="fast"):
        self.run(f"{self.bin}/pg_ctl", "-D", self.data, "-m", mode, "-w", "stop", check=False)


class Nginx:
    """nginx balancing `ports` on one port, with WebSocket proxying, in its own prefix under `directory`."""

    CONFIG = """
worker_processes 1;
{user}
error_log {prefix}/error.log warn;
pid {prefix}/nginx.pid;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    # WebSocket upgrades pass through; other requests keep their upstream connection alive.
    map $http_upgrade $connection_upgrade {{ default upgrade; '' ''; }}
    upstream motion {{
{servers}
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://motion;
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            # The Host as the client sent it, port included (the nodes check a WebSocket's Origin against it).
            proxy_set_header Host $http_host;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
            # A node that is down, or not ready (503 while its store is), passes the request to the next one.
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 3;
        }}
    }}
}}
"""

    def __init__(self, directory, port, ports):
        self.prefix = os.path.join(directory, "nginx")
        os.makedirs(self.prefix, exist_ok=True)
        self.port = port
        servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in ports)
        user = "user root;" if os.geteuid() == 0 else ""
        self.config = os.path.join(self.prefix, "nginx.conf")
        with open(self.config, "w") as f:
            f.write(self.CONFIG.format(prefix=self.prefix, port=port, servers=servers, user=user))
        self.proc = None

    def start(self, timeout=10.0):
        self.log = open(os.path.join(self.prefix, "stderr.log"), "ab")
        self.proc = subprocess.Popen(["nginx", "-p", self.prefix, "-c", self.config, "-g", "daemon off;"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited: {open(os.path.join(self.prefix, 'stderr.log')).read()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not listen")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.log.close()


class Cluster:
    """PostgreSQL, `nodes` motion-server nodes named node-1…, and nginx in front of them on `port` (0: a free one).

    `extra` goes to every node's command line."""

    def __init__(self, nodes=2, port=0, extra=(), log_level="warning", public=None):
        self.tmp = tempfile.TemporaryDirectory(prefix="motion-cluster-")
        os.chmod(self.tmp.name, 0o755)
        self.postgres = Postgres(os.path.join(self.tmp.name, "pg"))
        self.count = nodes
        self.port = port or free_port()
        self.extra = list(extra)
        self.log_level = log_level
        self.public = public
        self.nodes = []
        self.nginx = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def node_server(self, index):
        """A new (not started) motion-server for node `index` (1-based) on the cluster's database. Every client of a
        node is nginx (or a test) on 127.0.0.1: no bound per client address."""
        return Server(database=self.postgres.url, public=self.public, log_level=self.log_level,
                      extra=("--node", f"node-{index}", "--max-connections-per-address", "0", *self.extra))

    def start(self):
        try:
            self.postgres.init()
            for index in range(1, self.count + 1):
                self.nodes.append(self.node_server(index).start())
            self.nginx = Nginx(self.tmp.name, self.port, [n.port for n in self.nodes]).start()
        except BaseException:
            self.stop()
            raise
        return self

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def kill(self, index):
        """kill -9 of node `index` (1-based)."""
        self.nodes[index - 1].proc.send_signal(signal.SIGKILL)
        self.nodes[index - 1].proc.wait()

    def stop(self):
        if self.nginx:
            self.nginx.stop()
        for node in self.nodes:
            node.cleanup()
        self.postgres.stop("immediate")
        self.tmp.cleanup()


def main():
    parser = argparse.ArgumentParser(description="motion-server nodes on PostgreSQL behind nginx, on this machine")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--public", default=os.path.join(HERE, "..", "..", "Public"))
    parser.add_argument("extra", nargs="*", help="flags for every node (after --)")
    args = parser.parse_args()
    cluster = Cluster(nodes=args.nodes, port=args.port, extra=args.extra, log_level="notice",
                      public=os.path.abspath(args.public))
    cluster.start()
    print(f"{args.nodes} nodes on {cluster.postgres.url}", flush=True)
    for i, node in enumerate(cluster.nodes, 1):
        print(f"  node-{i}: {node.base}", flush=True)
    print(f"listening on {cluster.base} (nginx); Ctrl-C stops everything", flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    try:
        while not stopping and all(n.proc.poll() is None for n in cluster.nodes):
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
