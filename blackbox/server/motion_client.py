"""Helpers for the motion-server black-box tests: the server process, an HTTP client, a WebSocket client and a
pose generator. Standard library plus the PyPI `websockets` package (sync client)."""

import http.client
import json
import math
import os
import select
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse

try:
    import websockets
    from websockets.sync.client import connect as ws_connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus
except ImportError:  # pragma: no cover - reported by the test module
    websockets = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_BINARY = os.path.join(ROOT, ".build", "debug", "motion-server")
# The pose-format test vectors (docs/protocol.md §4), kept with the Swift tests that read them too.
FORMAT_VECTORS = os.path.join(ROOT, "Tests", "MotionWireTests", "Fixtures", "formats.json")
TIMEOUT = 5.0


def binary_path():
    """The server binary: $MOTION_SERVER, else .build/debug/motion-server."""
    return os.environ.get("MOTION_SERVER", DEFAULT_BINARY)


class ServerError(Exception):
    pass


class Server:
    """One motion-server subprocess on a free port, with its own temp dir and database unless given."""

    def __init__(self, database=None, public=None, tokens=None, extra=(), log_level="warning"):
        self.tmp = tempfile.TemporaryDirectory(prefix="motion-test-")
        self.database = database or os.path.join(self.tmp.name, "motion.sqlite")
        self.public = public if public is not None else os.path.join(self.tmp.name, "no-public")
        self.tokens = tokens
        self.extra = list(extra)
        self.log_level = log_level
        self.proc = None
        self.host = None
        self.port = None
        self.stderr_path = os.path.join(self.tmp.name, "stderr.log")

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def start(self, timeout=15.0):
        binary = binary_path()
        if not os.access(binary, os.X_OK):
            raise ServerError(
                f"motion-server binary not found at {binary}: build it with "
                "`swift build --product motion-server` (or set MOTION_SERVER)")
        args = [binary, "--host", "127.0.0.1", "--port", "0", "--database", self.database,
                "--public", self.public, "--threads", "2", "--log-level", self.log_level]
        if self.tokens:
            args += ["--tokens", self.tokens]
        args += self.extra
        self._stderr = open(self.stderr_path, "ab")
        env = {k: v for k, v in os.environ.items() if not k.startswith("MOTION_")}
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self._stderr, env=env,
                                     cwd=self.tmp.name)
        deadline = time.monotonic() + timeout
        line = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
                if not chunk:
                    break
                line += chunk
                if b"\n" in line:
                    break
            elif self.proc.poll() is not None:
                break
        text = line.decode("utf-8", "replace").strip()
        if not text.startswith("listening on http://"):
            self.kill()
            raise ServerError(f"server did not print its ready line (got {text!r}); stderr:\n{self.stderr_text()}")
        hostport = text.split("listening on http://", 1)[1].strip()
        self.host, port = hostport.rsplit(":", 1)
        self.port = int(port)
        return self

    def stderr_text(self):
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-4000:]
        except OSError:
            return ""

    def terminate(self, timeout=10.0):
        """SIGTERM; SIGKILL after `timeout`. Returns the exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        return self.proc.returncode

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass

    def close(self):
        try:
            self.terminate(timeout=5)
        finally:
            self.kill()
            if self.proc is not None and self.proc.stdout:
                self.proc.stdout.close()
            if getattr(self, "_stderr", None):
                self._stderr.close()

    def cleanup(self):
        self.close()
        self.tmp.cleanup()

    # -- HTTP --------------------------------------------------------------------------------------------------

    @property
    def base(self):
        return f"http://{self.host}:{self.port}"

    @property
    def ws_base(self):
        return f"ws://{self.host}:{self.port}"

    def request(self, method, path, body=None, headers=None, token=None, timeout=TIMEOUT):
        """Returns Response(status, headers, body bytes)."""
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        elif isinstance(body, str):
            body = body.encode()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            return Response(resp.status, {k.lower(): v for k, v in resp.getheaders()}, data, method, path)
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def wait_for_session(self, sid, predicate, token=None, timeout=5.0):
        """Polls GET /v1/sessions/{id} until predicate(json) holds; returns the last response."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = self.get(f"/v1/sessions/{sid}", token=token)
            if last.status == 200 and predicate(last.json()):
                return last
            time.sleep(0.1)
        return last

    # -- WebSocket ---------------------------------------------------------------------------------------------

    def ws(self, path="/v1/stream", token=None, subprotocols=None, headers=None, **kw):
        extra = dict(headers or {})
        if token:
            extra["Authorization"] = f"Bearer {token}"
        conn = ws_connect(self.ws_base + path, additional_headers=extra or None, subprotocols=subprotocols,
                          open_timeout=TIMEOUT, close_timeout=2, max_queue=None, max_size=None,
                          proxy=None, legacy=True, **kw)
        return WS(conn)


class Response:
    def __init__(self, status, headers, body, method, path):
        self.status = status
        self.headers = headers
        self.body = body
        self.method = method
        self.path = path

    def json(self):
        return json.loads(self.body.decode("utf-8"))

    def __repr__(self):
        body = self.body[:600].decode("utf-8", "replace")
        return f"<{self.method} {self.path} -> {self.status} {self.headers.get('content-type')} {body!r}>"


class WS:
    """A thin wrapper over the websockets sync client: JSON in and out, every wait bounded."""

    def __init__(self, conn):
        self.conn = conn
        self.received = []

    @property
    def subprotocol(self):
        return self.conn.subprotocol

    def send(self, message):
        self.conn.send(json.dumps(message, allow_nan=False) if isinstance(message, (dict, list)) else message)

    def send_raw_text(self, data: bytes):
        """A text frame with exactly these bytes (need not be UTF-8)."""
        self.conn.send(data, text=True)

    def recv(self, timeout=TIMEOUT):
        """The next message as JSON (text) or bytes (binary). Raises TimeoutError or ConnectionClosed."""
        raw = self.conn.recv(timeout=timeout)
        msg = json.loads(raw) if isinstance(raw, str) else raw
        self.received.append(msg)
        return msg

    def recv_until(self, predicate, timeout=TIMEOUT):
        """Messages up to and including the first for which predicate holds."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout}s; got {summarise(out)}")
            msg = self.recv(timeout=left)
            out.append(msg)
            if predicate(msg):
                return out

    def drain(self, quiet=0.3, limit=10.0):
        """Every message until none arrives for `quiet` seconds."""
        out = []
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            try:
                out.append(self.recv(timeout=quiet))
            except TimeoutError:
                break
        return out

    def close_code(self, timeout=TIMEOUT):
        """Reads until the server closes; returns (code, reason, messages read before)."""
        out = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                out.append(self.recv(timeout=max(0.01, deadline - time.monotonic())))
            except ConnectionClosed as closed:
                rcvd = closed.rcvd
                return (rcvd.code if rcvd else None), (rcvd.reason if rcvd else None), out
            except TimeoutError:
                break
        raise TimeoutError(f"server did not close within {timeout}s; got {summarise(out)}")

    def start(self, **fields):
        msg = {"type": "start"}
        msg.update(fields)
        self.send(msg)
        reply = self.recv()
        if reply.get("type") != "started":
            raise AssertionError(f"start {fields} answered {reply}")
        return reply

    def close(self):
        try:
            self.conn.close()
        except Exception:
            pass

    def abort(self):
        """Drops the TCP connection without a close frame (RST)."""
        sock = self.conn.socket
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        except OSError:
            pass
        try:
            sock.close()
        except OSError:
            pass


def summarise(messages, limit=8):
    parts = []
    for m in messages[-limit:]:
        if isinstance(m, dict):
            parts.append({k: m[k] for k in ("type", "code", "event", "t", "message") if k in m})
        else:
            parts.append(repr(m)[:80])
    return parts


def send_frames(ws, frames, batch=30, interval=0.26):
    """Sends frames as `poses` batches paced under the server's 120 frames/s limit (burst 240)."""
    for i in range(0, len(frames), batch):
        ws.send({"type": "poses", "frames": frames[i:i + batch]})
        if i + batch < len(frames):
            time.sleep(interval)


# -- poses -----------------------------------------------------------------------------------------------------

SHOULDER = (600.0, 250.0)
ELBOW = (600.0, 400.0)
NECK = (620.0, 250.0)
ROOT_ = (620.0, 450.0)
FOREARM = 150.0


def elbow_pose(t, angle, width=1280, height=720):
    """A right elbow flexion pose, side view: 180 − ∠shoulder-elbow-wrist == angle."""
    a = math.radians(angle)
    wrist = (ELBOW[0] + FOREARM * math.sin(a), ELBOW[1] + FOREARM * math.cos(a))
    return {
        "t": round(t, 6), "width": width, "height": height,
        "points": {
            "rightShoulder": list(SHOULDER), "rightElbow": list(ELBOW),
            "rightWrist": [round(wrist[0], 3), round(wrist[1], 3)],
            "neck": list(NECK), "root": list(ROOT_),
        },
        "confidence": {"rightShoulder": 0.95, "rightElbow": 0.9, "rightWrist": 0.85, "neck": 0.9, "root": 0.9},
    }


def angle_profile(reps=3, peak=130.0, rest=10.0, fps=30, lead=1.0, rise=0.8, hold=0.4, fall=0.8, gap=0.7,
                  t0=0.0):
    """(t, angle) samples: `lead` s at rest, then `reps` smooth reps to `peak` with a short hold, `gap` s of rest
    after each."""
    samples = []
    dt = 1.0 / fps
    t = t0

    def emit(angle):
        nonlocal t
        samples.append((t, angle))
        t += dt

    for _ in range(int(round(lead * fps))):
        emit(rest)
    for _ in range(reps):
        n = int(round(rise * fps))
        for i in range(n):
            emit(rest + (peak - rest) * (1 - math.cos(math.pi * (i + 1) / n)) / 2)
        for _ in range(int(round(hold * fps))):
            emit(peak)
        n = int(round(fall * fps))
        for i in range(n):
            emit(peak - (peak - rest) * (1 - math.cos(math.pi * (i + 1) / n)) / 2)
        for _ in range(int(round(gap * fps))):
            emit(rest)
    return samples


def rep_frames(reps=3, peak=130.0, **kw):
    """Pose frames (without `type`) of a simulated elbow flexion session."""
    return [elbow_pose(t, a) for t, a in angle_profile(reps=reps, peak=peak, **kw)]


# A standing patient facing the camera (front view), for shoulder abduction: the patient's right side is on the
# image's left; the right arm, straight, swings out sideways by `angle` from hanging along the trunk.
AB_NECK = (640.0, 250.0)
AB_ROOT = (640.0, 450.0)
AB_RIGHT_SHOULDER = (560.0, 250.0)
AB_LEFT_SHOULDER = (720.0, 250.0)
AB_UPPER_ARM = 140.0
AB_FOREARM = 120.0


def abduction_pose(t, angle, width=1280, height=720):
    """A right shoulder abduction pose, front view: the angle between trunk and upper arm == angle."""
    a = math.radians(angle)
    sx, sy = AB_RIGHT_SHOULDER
    elbow = (sx - AB_UPPER_ARM * math.sin(a), sy + AB_UPPER_ARM * math.cos(a))
    reach = AB_UPPER_ARM + AB_FOREARM
    wrist = (sx - reach * math.sin(a), sy + reach * math.cos(a))
    points = {
        "neck": list(AB_NECK), "root": list(AB_ROOT),
        "rightShoulder": list(AB_RIGHT_SHOULDER), "leftShoulder": list(AB_LEFT_SHOULDER),
        "rightElbow": [round(elbow[0], 3), round(elbow[1], 3)], "rightWrist": [round(wrist[0], 3), round(wrist[1], 3)],
        "leftElbow": [720.0, 390.0], "leftWrist": [720.0, 510.0],
        "rightHip": [600.0, 450.0], "leftHip": [680.0, 450.0], "rightKnee": [600.0, 570.0], "leftKnee": [680.0, 570.0],
        "rightAnkle": [600.0, 690.0], "leftAnkle": [680.0, 690.0],
    }
    return {"t": round(t, 6), "width": width, "height": height, "points": points}


def abduction_frames(reps=3, peak=55.0, **kw):
    """Pose frames (without `type`) of a simulated right shoulder abduction session from 10° at rest."""
    return [abduction_pose(t, a) for t, a in angle_profile(reps=reps, peak=peak, rest=10.0, **kw)]


def pose_msg(frame):
    msg = {"type": "pose"}
    msg.update(frame)
    return msg


def quote(text):
    return urllib.parse.quote(text, safe="")
