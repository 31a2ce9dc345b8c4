"""Writes the recorded-session templates that store-post.lua sends to POST /v1/analyze.

    python3 bench/store-http/gen.py OUT_FILE [--templates 48] [--seed 1]

One template a line: the JSON text of a `frames` array (elbow flexion, right side, poses from
blackbox/server/motion_client.py's generator) with 30–90 frames at 30 frames/s: a third without a rep (the patient
just stands there), the rest with 1 or 2 short reps. store-post.lua wraps each line as
`{"exercise":"elbowFlexion","side":"right","subject":"<subject>","frames":<line>}`. Prints a JSON line with the
template stats to stdout. Standard library only.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "blackbox", "server"))
from motion_client import angle_profile, elbow_pose  # noqa: E402


def template(rng, index):
    kind = index % 3
    if kind == 0:  # no rep: 30–90 frames at rest, with a little jitter
        frames = rng.randint(30, 90)
        samples = angle_profile(reps=0, lead=frames / 30)
        samples = [(t, a + rng.uniform(-2, 2)) for t, a in samples]
    else:  # 1 or 2 quick reps (1.2 s each) after a short lead: 48–84 frames
        samples = angle_profile(reps=kind, peak=rng.uniform(100, 140), lead=rng.choice((0.4, 0.6, 0.8) if kind == 1 else (0.2, 0.4)),
                                rise=0.4, hold=0.1, fall=0.4, gap=0.3)
    return [elbow_pose(t, a) for t, a in samples], kind


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--templates", type=int, default=48)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    frame_counts, sizes, reps = [], [], []
    with open(args.out, "w") as f:
        for i in range(args.templates):
            frames, generated_reps = template(rng, i)
            line = json.dumps(frames, separators=(",", ":"))
            f.write(line + "\n")
            frame_counts.append(len(frames))
            sizes.append(len(line))
            reps.append(generated_reps)
    print(json.dumps({"templates": args.templates, "minFrames": min(frame_counts), "maxFrames": max(frame_counts),
                      "meanFrames": round(sum(frame_counts) / len(frame_counts), 1),
                      "meanBytes": round(sum(sizes) / len(sizes)), "generatedReps": sum(reps)}))


if __name__ == "__main__":
    main()
