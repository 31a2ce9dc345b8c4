"""Shared by the black-box tests of the motion-server executable against its protocol (docs/protocol.md).

Run:  swift build --product motion-server
      .venv/bin/python -m unittest discover -v -s blackbox/server -p 'test_server_*.py'
Set MOTION_SERVER=/path/to/motion-server to test another build. See README.md beside this file.

The tests are the test_server_*.py modules beside this file, by subject; this module holds what they share
beside motion_client.py: small helpers, and `shared_server()`, the server most tests of a module use.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    import websockets  # noqa: F401
except ImportError:
    raise ImportError("the Python package 'websockets' is missing; `make deps` installs it into .venv "
                      "(run the suite with .venv/bin/python)") from None

import motion_client as mc  # noqa: E402
from motion_client import ConnectionClosed, InvalidStatus, Server, elbow_pose, pose_msg, rep_frames  # noqa: E402

UNKNOWN_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a well-formed ULID no server issued
VECTORS = mc.FORMAT_VECTORS


def shared_server():
    """A started server with no tokens and no public dir; a missing binary fails with how to build it."""
    binary = mc.binary_path()
    if not os.access(binary, os.X_OK):
        raise RuntimeError(
            f"motion-server binary missing at {binary}. Build it first: "
            "swift build --product motion-server (or set MOTION_SERVER=/path/to/binary)")
    return Server().start()


def stream_ts(messages, kind):
    return [m["t"] for m in messages if isinstance(m, dict) and m.get("type") == kind]


def of_type(messages, kind):
    return [m for m in messages if isinstance(m, dict) and m.get("type") == kind]


def events(messages, name=None):
    return [m for m in of_type(messages, "event") if name is None or m.get("event") == name]


def analyze_body(subject, exercise="elbowFlexion", side="right", frames=None):
    body = {"exercise": exercise, "subject": subject, "frames": frames if frames is not None else rep_frames(1)}
    if side:
        body["side"] = side
    return body


def squat_frames(n=10):
    """A standing side-view squat pose (bilateral: no side needed)."""
    frames = []
    for i in range(n):
        frames.append({"t": i / 30, "width": 1280, "height": 720, "points": {
            "neck": [640, 200], "root": [640, 400], "rightHip": [640, 400], "rightKnee": [640, 520],
            "rightAnkle": [640, 640], "rightShoulder": [640, 200]}})
    return frames
