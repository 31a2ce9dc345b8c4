// The Demo pose source: a stick figure of adult proportions acting out any catalog exercise, with occasional
// form faults and a moment out of frame. The geometry follows the server's own simulator
// (Sources/MotionSimulation: Figure.swift, Exercise+Figure.swift, Simulation.swift): angles in degrees from
// straight down, body coordinates (lateral, up, forward) with lateral towards the person's left, projected to
// image pixels with y down.

const RAD = Math.PI / 180;
const sin = (d) => Math.sin(d * RAD);
const cos = (d) => Math.cos(d * RAD);

const TORSO = 0.30, NECK_TO_NOSE = 0.10, SHOULDER_HALF = 0.115, HIP_HALF = 0.085;
const UPPER_ARM = 0.186, FOREARM = 0.146, THIGH = 0.245, SHANK = 0.246;

export const IMAGE = { width: 1280, height: 720 };

const add = (a, b, k) => [a[0] + b[0] * k, a[1] + b[1] * k, a[2] + b[2] * k];

function direction(degrees, view, outward) {
  const s = sin(degrees), c = cos(degrees);
  return view === 'frontal' ? [outward * s, -c, 0] : [0, -c, s];
}

/** Body-frame joints (fractions of stature, root at origin) of a posed figure. */
function figureJoints(f, view, side) {
  const outward = side === 'left' ? 1 : -1;
  const p = {};
  const root = [0, 0, 0];
  const trunk = view === 'frontal'
    ? [-outward * sin(f.trunkLean), cos(f.trunkLean), 0]
    : [0, cos(f.trunkLean), -sin(f.trunkLean)];
  const neck = add(root, trunk, TORSO);
  p.root = root;
  p.neck = neck;
  const rise = (tilt, half) => half * sin(tilt);
  for (const s of ['left', 'right']) {
    const lateral = s === 'left' ? 1 : -1;
    const working = s === side;
    const shoulderRaise = (working ? 1 : -1) * rise(f.shoulderTilt, SHOULDER_HALF);
    const hipRaise = (working ? 1 : -1) * rise(f.hipTilt, HIP_HALF);
    const shoulder = add(add(neck, [lateral, 0, 0], SHOULDER_HALF), [0, 1, 0], shoulderRaise);
    const hip = add(add(root, [lateral, 0, 0], HIP_HALF), [0, 1, 0], hipRaise);
    const arm = working ? [f.upperArm, f.forearm] : [0, 0];
    const leg = working || f.bothLegs ? [f.thigh, f.shank] : [f.restingThigh, f.restingShank];
    const elbow = add(shoulder, direction(arm[0], view, lateral), UPPER_ARM);
    const wrist = add(elbow, direction(arm[1], view, lateral), FOREARM);
    const knee = add(hip, direction(leg[0], view, lateral), THIGH);
    const ankle = add(knee, direction(leg[1], view, lateral), SHANK);
    p[s + 'Shoulder'] = shoulder;
    p[s + 'Elbow'] = elbow;
    p[s + 'Wrist'] = wrist;
    p[s + 'Hip'] = hip;
    p[s + 'Knee'] = knee;
    p[s + 'Ankle'] = ankle;
    p[s + 'Eye'] = add(add(neck, trunk, 0.115), [lateral, 0, 0.3], 0.03);
    p[s + 'Ear'] = add(add(neck, trunk, 0.105), [lateral, 0, -0.2], 0.05);
  }
  p.nose = add(add(neck, trunk, NECK_TO_NOSE), [0, 0, 1], 0.04);
  return p;
}

/** How an exercise is acted out: the figure for `value` with `faults` at `intensity` (0…1). */
function pose(exercise, value, faults, intensity, side) {
  const fault = (name, degrees) => (faults.includes(name) ? degrees * intensity : 0);
  const f = {
    trunkLean: fault('keepTrunkUpright', 30), upperArm: 0, forearm: 0, thigh: 0, shank: 0,
    shoulderTilt: fault('keepShouldersLevel', 25), hipTilt: fault('keepHipsLevel', 22),
    bothLegs: false, restingThigh: 0, restingShank: 0,
    anchor: exercise.view === 'frontal' ? 'oppositeAnkle' : 'ankle',
  };
  const bend = fault('keepElbowStraight', 50);
  const joints = exercise.joints || [];
  const id = exercise.id;
  if (id === 'elbowFlexion' || (joints.includes('wrist') && !joints.includes('root'))) {
    f.upperArm = fault('keepUpperArmStill', 55);
    f.forearm = f.upperArm + value;
  } else if (id === 'squat' || (joints.includes('hip') && joints.includes('knee') && joints.includes('ankle'))) {
    f.bothLegs = true;
    f.shank = -0.4 * value;
    f.thigh = 0.6 * value;
    f.trunkLean = -(0.3 * value + fault('keepTrunkUpright', 45));
  } else if (id === 'kneeExtension') {
    f.anchor = 'seated';
    f.restingThigh = 90;
    f.thigh = 90 - fault('keepThighStill', 35);
    f.shank = value;
  } else if (id === 'ankleDorsiflexion' || (joints.includes('knee') && joints.includes('ankle'))) {
    f.shank = -value;
    f.thigh = 0.8 * value;
    f.restingThigh = -20;
    f.restingShank = -20;
  } else if (joints.includes('knee')) {
    f.thigh = value + f.trunkLean;
    f.shank = f.thigh - fault('keepKneeStraight', 40);
  } else {
    f.upperArm = value + f.trunkLean;
    f.forearm = f.upperArm + bend;
  }
  return f;
}

function gaussian(random) {
  const u = Math.max(random(), 1e-12), v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A small deterministic generator so a demo run looks the same every time (mulberry32). */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An endless demo: rest, then cycles of six reps (or holds), the second and fifth with a form fault of the
 * exercise, then a moment out of frame.
 */
export class DemoSource {
  constructor(exercise, side, { noise = 0.8, seed = 7 } = {}) {
    this.exercise = exercise;
    this.side = side || 'right';
    this.noise = noise;
    this.random = seeded(seed);
    const th = exercise.thresholds;
    this.rest = Math.max(0, th.rest - 12);
    const isHold = exercise.kind === 'hold';
    const target = exercise.target ?? th.enter + 30;
    const base = isHold
      ? Math.max(th.enter + 8, target + 8)
      : Math.max(th.enter + 10, th.exit + th.minAmplitude + 12, Math.min(target * 0.92, target - 5));
    const holdSeconds = exercise.holdSeconds ?? th.holdSeconds ?? 5;
    const repLength = isHold ? 2 + holdSeconds + 0.7 : 2.0;
    const faults = exercise.faults || [];
    const wobble = [0, -4, 3, -2, 5, -6];
    this.segments = [];
    this.segments.push({ kind: 'rest', length: 1.5 });
    for (let i = 0; i < 6; i++) {
      let repFaults = [];
      if (faults.length && i === 1) repFaults = [faults[0]];
      if (faults.length && i === 4) repFaults = [faults[faults.length > 1 ? 1 : 0]];
      this.segments.push({ kind: isHold ? 'hold' : 'rep', length: repLength, peak: base + wobble[i], faults: repFaults });
      this.segments.push({ kind: 'rest', length: 1.0 });
    }
    this.segments.push({ kind: 'out', length: 1.5 });
    this.segments.push({ kind: 'rest', length: 0.5 });
    this.cycle = this.segments.reduce((s, x) => s + x.length, 0);
  }

  /** The acted value, faults and intensity at `clock` seconds since the demo began. */
  script(clock) {
    // The first lead-in is part of the cycle; later cycles restart from the same program.
    let c = clock % this.cycle;
    for (const seg of this.segments) {
      if (c < seg.length) {
        if (seg.kind === 'rest') return { value: this.rest, faults: [], intensity: 0, out: false };
        if (seg.kind === 'out') return { value: this.rest, faults: [], intensity: 0, out: true };
        let shape;
        if (seg.kind === 'rep') shape = 0.5 - 0.5 * Math.cos((2 * Math.PI * c) / seg.length);
        else if (c < 1) shape = 0.5 - 0.5 * Math.cos(Math.PI * c);
        else if (c > seg.length - 1) shape = 0.5 - 0.5 * Math.cos(Math.PI * (seg.length - c));
        else shape = 1;
        return { value: this.rest + (seg.peak - this.rest) * shape, faults: seg.faults, intensity: shape, out: false };
      }
      c -= seg.length;
    }
    return { value: this.rest, faults: [], intensity: 0, out: false };
  }

  /** One pose at `clock` seconds: `{width, height, points, confidence}` in image pixels (docs/protocol.md §2). */
  poseAt(clock) {
    const { width, height } = IMAGE;
    const s = this.script(clock);
    if (s.out) return { width, height, points: {}, confidence: {} };
    const ex = this.exercise;
    const view = ex.view === 'frontal' ? 'frontal' : 'sagittal';
    const f = pose(ex, s.value, s.faults, s.intensity, this.side);
    const body = figureJoints(f, view, this.side);
    const scale = height * 0.62;
    const centreX = width * 0.5;
    let anchor, ax, ay;
    if (f.anchor === 'seated') {
      anchor = [0, 0, 0];
      ax = centreX - 0.1 * scale;
      ay = height * 0.62;
    } else {
      const anchorSide = f.anchor === 'ankle' ? this.side : (this.side === 'left' ? 'right' : 'left');
      anchor = body[anchorSide + 'Ankle'];
      const lateral = anchorSide === 'left' ? HIP_HALF : -HIP_HALF;
      ax = view === 'frontal' ? centreX + lateral * scale : centreX;
      ay = height * 0.92;
    }
    const facing = this.side === 'right' ? 1 : -1;
    const points = {};
    const confidence = {};
    for (const [name, p] of Object.entries(body)) {
      const dx = view === 'frontal'
        ? p[0] - anchor[0]
        : facing * (p[2] - anchor[2]) + 0.12 * (p[0] - anchor[0]);
      const x = ax + dx * scale + gaussian(this.random) * this.noise;
      const y = ay - (p[1] - anchor[1]) * scale + gaussian(this.random) * this.noise;
      points[name] = [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
      confidence[name] = Math.round((0.85 + 0.1 * this.random()) * 100) / 100;
    }
    return { width, height, points, confidence };
  }
}
