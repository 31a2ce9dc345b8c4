// The 19 joints of PROTOCOL.md §1 (in the order of the compact `keypoints` form), the bones drawn between
// them, and helpers to turn an exercise's side-relative joint names into real ones.

export const JOINTS = [
  'nose', 'leftEye', 'rightEye', 'leftEar', 'rightEar', 'neck', 'root',
  'leftShoulder', 'rightShoulder', 'leftElbow', 'rightElbow', 'leftWrist', 'rightWrist',
  'leftHip', 'rightHip', 'leftKnee', 'rightKnee', 'leftAnkle', 'rightAnkle',
];

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
 * Decodes one pose line of any PROTOCOL.md §4 input format into {points: {joint: [x, y]}, width, height},
 * for drawing. Returns null when it cannot.
 */
export function decodePose(frame, format = 'joints', normalized = false) {
  const width = frame.width || 0;
  const height = frame.height || 0;
  const points = {};
  if (format === 'joints' || format === 'vision') {
    if (frame.points) {
      for (const [name, p] of Object.entries(frame.points)) {
        if (!Array.isArray(p)) continue;
        points[name] = format === 'vision' ? [p[0] * width, (1 - p[1]) * height] : [p[0], p[1]];
      }
    } else if (Array.isArray(frame.keypoints)) {
      JOINTS.forEach((name, i) => {
        const x = frame.keypoints[i * 3];
        const y = frame.keypoints[i * 3 + 1];
        if (x == null || y == null) return;
        points[name] = format === 'vision' ? [x * width, (1 - y) * height] : [x, y];
      });
    }
  } else if (format === 'mediapipe' || format === 'coco') {
    const kp = frame.keypoints || [];
    const map = format === 'mediapipe'
      ? { nose: 0, leftEye: 2, rightEye: 5, leftEar: 7, rightEar: 8, leftShoulder: 11, rightShoulder: 12,
        leftElbow: 13, rightElbow: 14, leftWrist: 15, rightWrist: 16, leftHip: 23, rightHip: 24,
        leftKnee: 25, rightKnee: 26, leftAnkle: 27, rightAnkle: 28 }
      : { nose: 0, leftEye: 1, rightEye: 2, leftEar: 3, rightEar: 4, leftShoulder: 5, rightShoulder: 6,
        leftElbow: 7, rightElbow: 8, leftWrist: 9, rightWrist: 10, leftHip: 11, rightHip: 12,
        leftKnee: 13, rightKnee: 14, leftAnkle: 15, rightAnkle: 16 };
    const min = format === 'mediapipe' ? 0.5 : 0.3;
    const scaled = format === 'mediapipe' || normalized;
    for (const [name, i] of Object.entries(map)) {
      const x = kp[i * 3];
      const y = kp[i * 3 + 1];
      const c = kp[i * 3 + 2];
      if (x == null || y == null || (c != null && c < min)) continue;
      points[name] = scaled ? [x * width, y * height] : [x, y];
    }
    const mid = (a, b, out) => {
      if (points[a] && points[b]) points[out] = [(points[a][0] + points[b][0]) / 2, (points[a][1] + points[b][1]) / 2];
    };
    mid('leftShoulder', 'rightShoulder', 'neck');
    mid('leftHip', 'rightHip', 'root');
  } else {
    return null;
  }
  return { points, width, height };
}
