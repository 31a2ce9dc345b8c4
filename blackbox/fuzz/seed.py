"""Seeds a running motion-server for the schemathesis run and writes the schemathesis config that points at it.

    .venv/bin/python blackbox/fuzz/seed.py BASE_URL OUT_DIR [--sessions N]

Stores N recorded elbowFlexion sessions through `POST /v1/analyze` (poses from blackbox/server/motion_client.py, a few
subjects and rep counts), opens two HTTP-driven sessions with `POST /v1/sessions` (so `/poses` and `/stop` have a live
target), and writes OUT_DIR/ids.txt (one id a line) and OUT_DIR/schemathesis.toml, which binds the `{id}` path
parameter to those ids half of the time (the other half stays random, so unknown ids are tried too), and the
`subject` query and path parameters to the seeded subjects half of the time.
Standard library only.
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
    with open(os.path.join(args.out, "schemathesis.toml"), "w") as f:
        f.write(f"""# written by blackbox/fuzz/seed.py
[dictionaries.ids]
values = [{values}]

[dictionaries.subjects]
values = [{subjects}]

[dictionaries.exercises]
values = ["elbowFlexion", "squat", "shoulderAbductionHold"]

[parameters]
"path.id" = {{ dictionary = "ids", probability = 0.5 }}
"query.subject" = {{ dictionary = "subjects", probability = 0.5 }}
"path.subject" = {{ dictionary = "subjects", probability = 0.5 }}
"query.exercise" = {{ dictionary = "exercises", probability = 0.5 }}
""")
    print(f"seeded {args.sessions} stored and {len(SUBJECTS[:2])} live sessions", file=sys.stderr)


if __name__ == "__main__":
    main()
