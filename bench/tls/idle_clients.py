"""Holds N idle HTTP keep-alive connections (TLS or plain) to a server, for bench/tls.sh's memory per idle connection.

Each connection completes its handshake and one `GET /` (so the server has set it up fully, as a real client's idle
connection is), then stays open without a byte. Prints `ready N` when all are open, holds them for --hold seconds,
then closes them. The certificate is not verified (the benchmark's own self-signed one).
"""

import argparse
import socket
import ssl
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--hold", type=float, default=3.0)
    parser.add_argument("--tls", action="store_true")
    args = parser.parse_args()
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    held = []
    request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    for _ in range(args.connections):
        raw = socket.create_connection(("127.0.0.1", args.port), timeout=10)
        connection = context.wrap_socket(raw, server_hostname="localhost") if args.tls else raw
        connection.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.endswith(b"hello"):
            chunk = connection.recv(4096)
            if not chunk:
                print("closed during setup", file=sys.stderr)
                return 1
            answer += chunk
        held.append(connection)
    print(f"ready {len(held)}", flush=True)
    time.sleep(args.hold)
    for connection in held:
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
