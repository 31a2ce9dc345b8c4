#!/usr/bin/env python3
"""Converts a motion-capture recording (ASF skeleton + AMC motion, the CMU / Acclaim format) into pose fixtures for
the real-motion tests: the 19 joints of docs/protocol.md §1 seen by a level pinhole camera, with ground truth computed
from the 3D data.

Standard library only. Usage:

    tools/mocap/convert.py SKELETON.asf MOTION.amc --name NAME --out DIR [--start S] [--end S] [--view VIEW ...]

Camera: 1280 × 720 px, focal length 1000 px (70° across), optical axis level at CAMERA_HEIGHT above the floor,
CAMERA_DISTANCE from the line the person travels along. The camera rides a dolly that follows the person's hips
along that line (a 1 s moving average), so a person who jumps forward stays in the picture. Views:

- `side-left`:  on the person's left at the start (sees their left side while they face the way they travel),
- `side-right`: the same on their right,
- `front`:      in front of them at the start, looking back along the line of travel.

Joints (CMU bone ends): shoulder = clavicle end, elbow = humerus end, wrist = radius end, hip = hip-joint end,
knee = femur end, ankle = tibia end; `neck` = mid-shoulder and `root` = mid-hip, as docs/protocol.md defines them. The
face points are placed on the head bone (which carries no face markers): nose 0.09 m in front of the head's axis at
40 % of its length, eyes 0.03 m either side of the nose and 0.02 m higher, ears 0.07 m either side of the axis.

Truth, per output frame, from the 3D data: knee flexion of each side (180° − the 3D hip-knee-ankle angle), trunk
lean (the 3D angle of mid-hip → mid-shoulder from vertical), shin inclination (3D knee → ankle from vertical, mean of
both sides) and their difference (trunk past shin).
"""
import argparse
import json
import math
import os

INCH_SCALE = (1.0 / 0.45) * 2.54 / 100  # CMU ASF/AMC length units to metres (CMU FAQ)
FRAME_RATE_IN = 120
FRAME_RATE_OUT = 30
WIDTH, HEIGHT, FOCAL = 1280, 720, 1000.0
CAMERA_HEIGHT = 1.0
CAMERA_DISTANCE = 4.0

JOINTS = [
    "nose", "leftEye", "rightEye", "leftEar", "rightEar", "neck", "root",
    "leftShoulder", "rightShoulder", "leftElbow", "rightElbow", "leftWrist", "rightWrist",
    "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle",
]


def rotation(axis, degrees):
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return [[1, 0, 0], [0, c, -s], [0, s, c]]
    if axis == "y":
        return [[c, 0, s], [0, 1, 0], [-s, 0, c]]
    return [[c, -s, 0], [s, c, 0], [0, 0, 1]]


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def apply(m, v):
    return [sum(m[i][k] * v[k] for k in range(3)) for i in range(3)]


def transpose(m):
    return [[m[j][i] for j in range(3)] for i in range(3)]


def euler(order, values):
    """Rotations applied in `order` (the first axis first), as the ASF `axis` field and AMC dofs mean them."""
    m = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    for axis, value in zip(order, values):
        m = mul(rotation(axis, value), m)
    return m


def read_asf(path):
    bones, parents, root_order, root_axis = {}, {}, [], "xyz"
    section, bone = None, None
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(":"):
            section = line.split()[0]
            continue
        words = line.split()
        if section == ":root":
            if words[0] == "order":
                root_order = [w.lower() for w in words[1:]]
            elif words[0] == "axis":
                root_axis = words[1].lower()
        elif section == ":bonedata":
            if words[0] == "begin":
                bone = {"dof": []}
            elif words[0] == "end":
                bones[bone["name"]] = bone
            elif words[0] == "name":
                bone["name"] = words[1]
            elif words[0] == "direction":
                bone["direction"] = [float(w) for w in words[1:4]]
            elif words[0] == "length":
                bone["length"] = float(words[1])
            elif words[0] == "axis":
                bone["axis"] = ([float(w) for w in words[1:4]], words[4].lower())
            elif words[0] == "dof":
                bone["dof"] = [w.lower() for w in words[1:]]
        elif section == ":hierarchy" and words[0] not in ("begin", "end"):
            for child in words[1:]:
                parents[child] = words[0]
    return bones, parents, root_order, root_axis


def read_amc(path):
    frames, frame = [], None
    for raw in open(path):
        line = raw.strip()
        if not line or line[0] in "#:":
            continue
        words = line.split()
        if len(words) == 1 and words[0].isdigit():
            frame = {}
            frames.append(frame)
        else:
            frame[words[0]] = [float(w) for w in words[1:]]
    return frames


def forward_kinematics(skeleton, frame):
    """The end point of every bone (and `root`), in metres, y up."""
    bones, parents, root_order, root_axis = skeleton
    translation, rotation_values = {}, {}
    for channel, value in zip(root_order, frame["root"]):
        (translation if channel[0] == "t" else rotation_values)[channel[1]] = value
    ends = {"root": [translation[a] * INCH_SCALE for a in "xyz"]}
    frames = {"root": euler(root_axis, [rotation_values[a] for a in root_axis])}
    children = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    queue = ["root"]
    while queue:
        parent = queue.pop(0)
        for name in children.get(parent, []):
            bone = bones[name]
            axis_values, axis_order = bone["axis"]
            c = euler(axis_order, axis_values)
            values = {"x": 0.0, "y": 0.0, "z": 0.0}
            for dof, value in zip(bone["dof"], frame.get(name, [])):
                values[dof[1]] = value
            local = euler("xyz", [values["x"], values["y"], values["z"]])
            frames[name] = mul(mul(mul(frames[parent], c), local), transpose(c))
            step = apply(frames[name], bone["direction"])
            ends[name] = [ends[parent][i] + bone["length"] * INCH_SCALE * step[i] for i in range(3)]
            queue.append(name)
    return ends


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def add(a, b, scale=1.0):
    return [a[i] + b[i] * scale for i in range(3)]


def mid(a, b):
    return [(a[i] + b[i]) / 2 for i in range(3)]


def norm(v):
    return math.sqrt(sum(x * x for x in v))


def unit(v):
    n = norm(v)
    return [x / n for x in v]


def angle(u, v):
    c = sum(a * b for a, b in zip(u, v)) / (norm(u) * norm(v))
    return math.degrees(math.acos(max(-1.0, min(1.0, c))))


def body_joints(e):
    """The 19 joints of docs/protocol.md §1 (3D, metres) from CMU bone ends."""
    p = {
        "leftShoulder": e["lclavicle"], "rightShoulder": e["rclavicle"],
        "leftElbow": e["lhumerus"], "rightElbow": e["rhumerus"],
        "leftWrist": e["lradius"], "rightWrist": e["rradius"],
        "leftHip": e["lhipjoint"], "rightHip": e["rhipjoint"],
        "leftKnee": e["lfemur"], "rightKnee": e["rfemur"],
        "leftAnkle": e["ltibia"], "rightAnkle": e["rtibia"],
    }
    p["neck"] = mid(p["leftShoulder"], p["rightShoulder"])
    p["root"] = mid(p["leftHip"], p["rightHip"])
    skull, top = e["upperneck"], e["head"]
    up = unit(sub(top, skull))
    left = unit(sub(p["leftShoulder"], p["rightShoulder"]))
    # Forward = left × up (right-handed, y up): the way the chest faces.
    forward = unit([left[1] * up[2] - left[2] * up[1], left[2] * up[0] - left[0] * up[2],
                    left[0] * up[1] - left[1] * up[0]])
    centre = add(skull, sub(top, skull), 0.4)
    p["nose"] = add(centre, forward, 0.09)
    eyes = add(p["nose"], up, 0.02)
    p["leftEye"], p["rightEye"] = add(eyes, left, 0.03), add(eyes, left, -0.03)
    p["leftEar"], p["rightEar"] = add(centre, left, 0.07), add(centre, left, -0.07)
    return p


def truth(p):
    vertical = [0, 1, 0]
    knees = [180 - angle(sub(p[s + "Hip"], p[s + "Knee"]), sub(p[s + "Ankle"], p[s + "Knee"]))
             for s in ("left", "right")]
    trunk = angle(sub(p["neck"], p["root"]), vertical)
    shin = sum(angle(sub(p[s + "Knee"], p[s + "Ankle"]), vertical) for s in ("left", "right")) / 2
    return knees, trunk, shin


def camera_frames(poses, view):
    """Each pose's joints as image pixels for the dolly camera of `view`."""
    first = poses[0]
    # The line of travel: the principal direction of the hip centre's path over the ground (x, z), pointing the
    # way the person faces at the start.
    xs, zs = [p["root"][0] for p in poses], [p["root"][2] for p in poses]
    mx, mz = sum(xs) / len(xs), sum(zs) / len(zs)
    sxx = sum((x - mx) ** 2 for x in xs)
    szz = sum((z - mz) ** 2 for z in zs)
    sxz = sum((x - mx) * (z - mz) for x, z in zip(xs, zs))
    theta = 0.5 * math.atan2(2 * sxz, sxx - szz)
    travel = [math.cos(theta), 0, math.sin(theta)]
    start_left = unit(sub(first["leftHip"], first["rightHip"]))
    facing = [-start_left[2], 0, start_left[0]]  # left × up, on the ground
    if sum(a * b for a, b in zip(travel, facing)) < 0:
        travel = [-x for x in travel]
    side = [-travel[2], 0, travel[0]]  # horizontal, square to the line of travel
    if sum(a * b for a, b in zip(side, start_left)) < 0:
        side = [-x for x in side]  # now points to the person's left at the start
    half = FRAME_RATE_OUT // 2
    along = [sum(a * b for a, b in zip(p["root"], travel)) for p in poses]
    across = [sum(a * b for a, b in zip(p["root"], side)) for p in poses]
    mean_across = sum(across) / len(across)
    images = []
    for index, pose in enumerate(poses):
        window = along[max(0, index - half): index + half + 1]
        follow = sum(window) / len(window)
        if view == "front":
            eye = add([0, CAMERA_HEIGHT, 0], travel, follow + CAMERA_DISTANCE)
            eye = add(eye, side, mean_across)
            look, right = [-x for x in travel], [-x for x in side]
        else:
            sign = 1 if view == "side-left" else -1
            eye = add(add([0, CAMERA_HEIGHT, 0], travel, follow), side, mean_across + sign * CAMERA_DISTANCE)
            look = [-sign * x for x in side]
            right = [sign * x for x in travel]
        image = []
        for name in JOINTS:
            d = sub(pose[name], eye)
            depth = sum(a * b for a, b in zip(d, look))
            x = sum(a * b for a, b in zip(d, right))
            y = d[1]
            image += [round(WIDTH / 2 + FOCAL * x / depth), round(HEIGHT / 2 - FOCAL * y / depth)]
        images.append(image)
    return images


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("asf")
    parser.add_argument("amc")
    parser.add_argument("--name", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--start", type=float, default=0)
    parser.add_argument("--end", type=float, default=None)
    parser.add_argument("--view", action="append", choices=["side-left", "side-right", "front"])
    parser.add_argument("--meta", default="{}", help="JSON object of fields to record (source, licence, motion)")
    args = parser.parse_args()
    skeleton = read_asf(args.asf)
    motion = read_amc(args.amc)
    step = FRAME_RATE_IN // FRAME_RATE_OUT
    first = int(args.start * FRAME_RATE_IN)
    last = len(motion) if args.end is None else min(len(motion), int(args.end * FRAME_RATE_IN))
    poses = [body_joints(forward_kinematics(skeleton, motion[i])) for i in range(first, last, step)]
    truths = [truth(p) for p in poses]
    for view in args.view or ["side-left"]:
        fixture = dict(json.loads(args.meta))
        fixture.update({
            "recording": args.name, "view": view, "frameRate": FRAME_RATE_OUT,
            "camera": {"width": WIDTH, "height": HEIGHT, "focalLength": FOCAL, "heightMetres": CAMERA_HEIGHT,
                       "distanceMetres": CAMERA_DISTANCE, "follows": "hip centre along the line of travel, 1 s mean"},
            "firstSourceFrame": first + 1, "joints": JOINTS,
            "truth": {
                "leftKneeFlexion": [round(t[0][0], 1) for t in truths],
                "rightKneeFlexion": [round(t[0][1], 1) for t in truths],
                "trunkLean": [round(t[1], 1) for t in truths],
                "shinInclination": [round(t[2], 1) for t in truths],
            },
            "frames": camera_frames(poses, view),
        })
        path = os.path.join(args.out, f"{args.name}.{view}.json")
        with open(path, "w") as out:
            json.dump(fixture, out, separators=(",", ":"))
            out.write("\n")
        print(path, len(poses), "frames")


if __name__ == "__main__":
    main()
