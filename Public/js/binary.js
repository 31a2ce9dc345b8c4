// Binary pose frames (docs/protocol.md §3.2): a pose as a binary WebSocket message of 20 bytes of header, 8 per seen
// joint and one confidence byte per seen joint — 191 bytes for 19 joints, about a fifth of its JSON. The layout is
// the server's (Sources/MotionWire/BinaryPoseFrame.swift), all numbers little-endian:
//
//   offset  type      field
//   0       u8        kind: 1 = pose
//   1       u8        flags: bit 0 = confidences follow the points
//   2       u16       image width (0 = unknown)
//   4       u16       image height (0 = unknown)
//   6       u16       reserved, 0
//   8       f64       t
//   16      u32       seen mask: bit i = joint i of jointOrder() (docs/protocol.md §1)
//   20      f32 × 2   x, y in pixels (y down) per seen joint, in joint order
//   then    u8        confidence × 255 per seen joint (when flag bit 0)

import { jointOrder } from './joints.js';

export const POSE_KIND = 1;
export const CONFIDENCE_FLAG = 1;
export const HEADER_LENGTH = 20;

// The server refuses a frame with a coordinate or `t` past these (as it does a JSON pose).
const MAX_COORDINATE = 1e6;
const MAX_TIMESTAMP = 1e12;
const MAX_SIDE = 65535;

/** Whether a session started with `format` may send binary frames: only the `joints` format (the default). */
export function carriesBinary(format) {
  return format == null || format === 'joints';
}

/** The length in bytes of a frame with `seen` joints, with or without confidences. */
export function frameLength(seen, confidences) {
  return HEADER_LENGTH + seen * (confidences ? 9 : 8);
}

const finite = (v) => typeof v === 'number' && Number.isFinite(v);

/**
 * The joints of a page frame in the `joints` format, as `[index, x, y, confidence]` in wire order: from
 * `points` (`{name: [x, y]}`, with `confidence` `{name: c}`), else from the compact `keypoints`
 * (`[x, y, c, …]`, 19 triples, `null` x for an unseen joint). A joint whose x or y is not a finite number within
 * ±1e6 px once narrowed to f32 is left out, as is an unknown name; a confidence that is not a finite number
 * counts as none. Returns null for `keypoints` of the wrong length (the JSON form lets the server say so).
 */
function seenJoints(frame) {
  const seen = [];
  const add = (index, x, y, c) => {
    if (!finite(x) || !finite(y)) return;
    const fx = Math.fround(x);
    const fy = Math.fround(y);
    if (!(Math.abs(fx) <= MAX_COORDINATE && Math.abs(fy) <= MAX_COORDINATE)) return;
    seen.push([index, fx, fy, finite(c) ? c : null]);
  };
  const joints = jointOrder();
  if (frame.points && typeof frame.points === 'object') {
    const confidence = frame.confidence && typeof frame.confidence === 'object' ? frame.confidence : {};
    joints.forEach((name, i) => {
      const p = frame.points[name];
      if (Array.isArray(p) && p.length === 2) add(i, p[0], p[1], confidence[name]);
    });
  } else if (Array.isArray(frame.keypoints)) {
    if (frame.keypoints.length !== joints.length * 3) return null;
    joints.forEach((_, i) => add(i, frame.keypoints[i * 3], frame.keypoints[i * 3 + 1], frame.keypoints[i * 3 + 2]));
  }
  return seen;
}

/** An image side as the frame carries it: whole pixels in 1…65,535, else 0 (unknown). */
function side(value) {
  if (!finite(value)) return 0;
  const rounded = Math.round(value);
  return rounded >= 1 && rounded <= MAX_SIDE ? rounded : 0;
}

/**
 * Encodes a page frame (a `joints` pose without `type`: `t`, optional `width`/`height`, `points` or `keypoints`)
 * as a binary pose frame. Coordinates are narrowed to f32; a confidence is clamped to 0…1 and rounded to the
 * nearest 255th; the frame carries confidences when any seen joint has one (a joint without one is sent as 1);
 * an image size that does not fit 1…65,535 pixels on both sides is sent as unknown.
 *
 * Returns null when the frame has no binary form the server would take (no finite `t` within ±1e12 s, or
 * `keypoints` of the wrong length): the caller sends it as JSON instead, and the server answers as it does.
 */
export function encodePose(frame) {
  const t = frame?.t;
  if (!finite(t) || Math.abs(t) > MAX_TIMESTAMP) return null;
  const seen = seenJoints(frame);
  if (!seen) return null;
  const confidences = seen.some((j) => j[3] != null);
  let width = side(frame.width);
  let height = side(frame.height);
  if (width === 0 || height === 0) width = height = 0; // the server takes both or neither
  const buffer = new ArrayBuffer(frameLength(seen.length, confidences));
  const view = new DataView(buffer);
  let mask = 0;
  for (const [index] of seen) mask |= 1 << index;
  view.setUint8(0, POSE_KIND);
  view.setUint8(1, confidences ? CONFIDENCE_FLAG : 0);
  view.setUint16(2, width, true);
  view.setUint16(4, height, true);
  view.setUint16(6, 0, true);
  view.setFloat64(8, t, true);
  view.setUint32(16, mask >>> 0, true);
  let offset = HEADER_LENGTH;
  for (const [, x, y] of seen) {
    view.setFloat32(offset, x, true);
    view.setFloat32(offset + 4, y, true);
    offset += 8;
  }
  if (confidences) {
    for (const [, , , c] of seen) view.setUint8(offset++, Math.round(Math.min(1, Math.max(0, c ?? 1)) * 255));
  }
  return buffer;
}
