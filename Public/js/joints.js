// The joints of docs/protocol.md §1 as the server describes them (`GET /v1/formats`), the bones drawn between them,
// and helpers to turn an exercise's side-relative joint names into real ones.

import { getJSON } from './api.js';

let formats = null;
let formatsPromise = null;

/**
 * Fetches the server's input-format maps (`GET /v1/formats`: the joint of every keypoint of each format of
 * docs/protocol.md §4, what the coordinates are measured in, the joints derived from others) once; the page awaits it
 * before it draws or encodes a pose, so what it draws is read exactly as the server reads it.
 */
export function loadFormats({ reload = false } = {}) {
  if (!formatsPromise || reload) {
    formatsPromise = getJSON('/v1/formats').then((map) => { formats = map; return map; })
      .catch((e) => { formatsPromise = null; throw e; });
  }
  return formatsPromise;
}

/** The 19 joints of docs/protocol.md §1 in wire order (the compact `keypoints` and binary frames), once loaded. */
export function jointOrder() {
  if (!formats) throw new Error('the input formats are not loaded yet (loadFormats)');
  return formats.joints;
}

export const BONES = [
  ['nose', 'neck'], ['neck', 'root'],
  ['leftShoulder', 'rightShoulder'], ['leftHip', 'rightHip'],
  ['leftShoulder', 'leftElbow'], ['leftElbow', 'leftWrist'],
  ['rightShoulder', 'rightElbow'], ['rightElbow', 'rightWrist'],
  ['leftHip', 'leftKnee'], ['leftKnee', 'leftAnkle'],
  ['rightHip', 'rightKnee'], ['rightKnee', 'rightAnkle'],
  ['leftEye', 'rightEye'], ['leftEar', 'leftEye'], ['rightEar', 'rightEye'],
];

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** Real joint names for an exercise's relative joint (`shoulder`, `opposite.hip`, `neck`). */
export function resolveJoint(relative, side) {
  if (relative === 'neck' || relative === 'root' || relative === 'nose') return [relative];
  const opposite = relative.startsWith('opposite.');
  const part = opposite ? relative.slice('opposite.'.length) : relative;
  if (part === 'neck' || part === 'root' || part === 'nose') return [part];
  if (!side) return ['left' + cap(part), 'right' + cap(part)];
  const s = opposite ? (side === 'left' ? 'right' : 'left') : side;
  return [s + cap(part)];
}

/** The set of real joints an exercise measures on `side` (both sides for bilateral exercises without one). */
export function measuredJoints(exercise, side) {
  const out = new Set();
  if (!exercise) return out;
  const s = exercise.sidedness === 'bilateral' && !side ? null : side;
  for (const j of exercise.joints || []) for (const r of resolveJoint(j, s)) out.add(r);
  return out;
}

/**
 * Decodes one pose line of any docs/protocol.md §4 input format into {points: {joint: [x, y]}, width, height}, for
 * drawing, with the server's map of that format (`loadFormats`): keypoints to joints, normalised or bottom-up
 * coordinates to pixels, joints below the format's confidence floor left out, `neck` and `root` derived where the
 * format has none. Returns null for an unknown format or before the maps are loaded.
 */
export function decodePose(frame, format = 'joints', normalized = false) {
  const map = formats && formats.formats.find((f) => f.id === format);
  if (!map) return null;
  const width = frame.width || 0;
  const height = frame.height || 0;
  const scaled = map.coordinates === 'normalized' || (map.coordinates === 'pixelsOrNormalized' && normalized);
  const bottomUp = map.origin === 'bottomLeft';
  const points = {};
  const add = (name, x, y, c) => {
    if (!name || typeof x !== 'number' || typeof y !== 'number') return;
    if (map.minConfidence != null && typeof c === 'number' && c < map.minConfidence) return;
    const up = bottomUp ? (scaled ? 1 - y : height - y) : y;
    points[name] = scaled ? [x * width, up * height] : [x, up];
  };
  if (frame.points && typeof frame.points === 'object') {
    const confidence = frame.confidence || {};
    for (const name of formats.joints) {
      const p = frame.points[name];
      if (Array.isArray(p)) add(name, p[0], p[1], confidence[name]);
    }
  } else if (Array.isArray(frame.keypoints)) {
    map.keypoints.forEach((name, i) => add(name, frame.keypoints[i * 3], frame.keypoints[i * 3 + 1],
      frame.keypoints[i * 3 + 2]));
  }
  if (map.derivesCentralJoints) {
    for (const [joint, [a, b]] of Object.entries(formats.derived)) {
      if (!points[joint] && points[a] && points[b]) {
        points[joint] = [(points[a][0] + points[b][0]) / 2, (points[a][1] + points[b][1]) / 2];
      }
    }
  }
  return { points, width, height };
}
