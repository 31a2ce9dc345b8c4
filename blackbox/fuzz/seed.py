"""Seeds a running motion-server for the schemathesis run and writes the schemathesis config that points at it.

    .venv/bin/python blackbox/fuzz/seed.py BASE_URL OUT_DIR [--sessions N]

Stores N recorded elbowFlexion sessions through `POST /v1/analyze` (poses from blackbox/server/motion_client.py, a few
subjects and rep counts), opens two HTTP-driven sessions with `POST /v1/sessions` (so `/poses` and `/stop` have a live
target), adds six custom exercises with `POST /v1/exercises` (one with a second version), and writes
OUT_DIR/ids.txt (one id a line) and OUT_DIR/schemathesis.toml, which binds the `{id}` path parameter to those session
ids half of the time, and on the exercise paths to the custom and a few built-in exercise ids — DELETE to ids of its
own, so that PUT still finds its targets (the other half stays random, so unknown ids are tried too) — and the
`subject` query and path parameters to the seeded subjects half of the time. Standard library only.
"""

import argparse
import http.client
import json
import os
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from motion_client import rep_frames  # noqa: E402  (the pose generator of the black-box tests)

SUBJECTS = ["patient-1", "patient-2", "patient-3"]
# Custom exercises (docs/exercises.md): an angle, a distance and a falling one. PUT and DELETE find them; the fuzzer
# may delete them, after which their versions stay readable.
EXERCISES = [
    {"id": "seedCurl", "name": "Curl", "view": "sagittal", "kind": "rep",
     "measurement": {"type": "flexion", "joints": ["shoulder", "elbow", "wrist"]},
     "thresholds": {"rest": 20, "enter": 70, "exit": 40}, "target": 110},
    {"id": "seedReach", "name": "Reach", "view": "frontal", "kind": "hold", "sidedness": "bilateral",
     "measurement": {"type": "distance", "joints": ["wrist", "opposite.wrist"], "per": "shoulderLine"},
     "thresholds": {"rest": 0.5, "enter": 2, "exit": 1.5, "holdSeconds": 3}, "target": 2.5},
    {"id": "seed-lowering", "name": "Lowering", "view": "sagittal", "kind": "rep", "direction": "falling",
     "posture": "seated", "measurement": {"type": "inclination", "segment": ["knee", "ankle"]},
     "thresholds": {"rest": 90, "enter": 30, "exit": 60}, "target": 10,
     "rules": [{"fault": "keepThighStill", "measurement": {"type": "inclination", "segment": "thigh"},
                "limit": 15, "relativeToStart": True}]},
]
# DELETE draws from ids of its own, so that PUT still finds the three above after DELETE has been fuzzed.
DELETABLE = [dict(EXERCISES[0], id=f"seedDeletable{i}") for i in range(3)]
EXERCISE_IDS = [e["id"] for e in EXERCISES] + ["elbowFlexion", "squat"]
DELETABLE_IDS = [e["id"] for e in DELETABLE] + ["elbowFlexion"]


def request(base, method, path, body=None):
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else {}
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        payload = response.read()
        return response.status, json.loads(payload) if payload else None
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("out")
    parser.add_argument("--sessions", type=int, default=8)
    args = parser.parse_args()

    ids = []
    for i in range(args.sessions):
        reps = i % 4  # 0…3 reps: some sessions without any rep, a few with several
        body = {"exercise": "elbowFlexion", "side": "right", "subject": SUBJECTS[i % len(SUBJECTS)],
                "frames": rep_frames(reps=reps, peak=110.0 + 5 * i)}
        status, answer = request(args.base, "POST", "/v1/analyze", body)
        if status != 200:
            sys.exit(f"seed: POST /v1/analyze answered {status}: {answer}")
        summary = answer["summary"]
        if summary.get("repCount") != reps:
            print(f"seed: note: session {i} counted {summary.get('repCount')} reps, generated {reps}",
                  file=sys.stderr)
        ids.append(summary["id"])
    for subject in SUBJECTS[:2]:
        status, answer = request(args.base, "POST", "/v1/sessions",
                                 {"exercise": "elbowFlexion", "side": "right", "subject": subject})
        if status != 201:
            sys.exit(f"seed: POST /v1/sessions answered {status}: {answer}")
        ids.append(answer["id"])
        status, answer = request(args.base, "POST", f"/v1/sessions/{answer['id']}/poses",
                                 {"frames": rep_frames(reps=1)})
        if status != 200:
            sys.exit(f"seed: POST /v1/sessions/…/poses answered {status}: {answer}")

    for exercise in EXERCISES + DELETABLE:
        status, answer = request(args.base, "POST", "/v1/exercises", exercise)
        if status != 201:
            sys.exit(f"seed: POST /v1/exercises answered {status}: {answer}")
    changed = dict(EXERCISES[0], target=120)
    status, answer = request(args.base, "PUT", f"/v1/exercises/{changed['id']}", changed)
    if status != 200 or answer.get("version") != 2:
        sys.exit(f"seed: PUT /v1/exercises/{changed['id']} answered {status}: {answer}")

    status, answer = request(args.base, "GET", "/v1/sessions?limit=500")
    if status != 200 or len(answer["sessions"]) != len(ids):
        sys.exit(f"seed: GET /v1/sessions answered {status} with "
                 f"{len(answer['sessions']) if answer else '?'} sessions, expected {len(ids)}")

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "ids.txt"), "w") as f:
        f.write("\n".join(ids) + "\n")
    # TOML by hand (tomllib reads, does not write); ids are ULIDs, plain ASCII.
    values = ", ".join(json.dumps(i) for i in ids)
    subjects = ", ".join(json.dumps(s) for s in SUBJECTS)
    exercises = ", ".join(json.dumps(e) for e in EXERCISE_IDS)
    deletable = ", ".join(json.dumps(e) for e in DELETABLE_IDS)
    with open(os.path.join(args.out, "schemathesis.toml"), "w") as f:
        f.write(f"""# written by blackbox/fuzz/seed.py
[dictionaries.ids]
values = [{values}]

[dictionaries.subjects]
values = [{subjects}]

[dictionaries.exercises]
values = ["elbowFlexion", "squat", "shoulderAbductionHold"]

[dictionaries.exerciseIds]
values = [{exercises}]

[parameters]
"path.id" = {{ dictionary = "ids", probability = 0.5 }}
"query.subject" = {{ dictionary = "subjects", probability = 0.5 }}
"path.subject" = {{ dictionary = "subjects", probability = 0.5 }}
"query.exercise" = {{ dictionary = "exercises", probability = 0.5 }}

[dictionaries.deletableExerciseIds]
values = [{deletable}]

[[operations]]
include-path-regex = "^/v1/exercises/"
exclude-method = "DELETE"
parameters = {{ "path.id" = {{ dictionary = "exerciseIds", probability = 0.5 }} }}

[[operations]]
include-path-regex = "^/v1/exercises/"
include-method = "DELETE"
parameters = {{ "path.id" = {{ dictionary = "deletableExerciseIds", probability = 0.5 }} }}
""")
    print(f"seeded {args.sessions} stored and {len(SUBJECTS[:2])} live sessions, "
          f"{len(EXERCISES) + len(DELETABLE)} custom exercises", file=sys.stderr)


if __name__ == "__main__":
    main()
