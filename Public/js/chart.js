// Charts on <canvas>: the real-time chart of the measured value (ring buffers in typed arrays, so drawing at
// display rate allocates nothing), and the static charts of the History page (rep peaks, value series). Value axes
// and their labels are in the exercise's unit (units.js).

import { DEGREES, valueAxis } from './units.js';

const C = {
  bg: '#101820', grid: '#263445', axis: '#9fb3c8', line: '#4cc9f0', target: '#80ed99', threshold: '#adb5bd',
  clean: '#80ed99', rejected: '#ff7b54', baseline: '#c77dff',
  // The phone's three axes (the Live and History motion charts and their legends, app.css `.sw.axis-*`).
  x: '#ff7b9c', y: '#ffd166', z: '#4cc9f0',
};

function fitCanvas(canvas) {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
  const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
    return true;
  }
  return false;
}

function hline(ctx, y, x0, x1, color, dash) {
  ctx.strokeStyle = color;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(x0, y);
  ctx.lineTo(x1, y);
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The live chart: the last `windowSeconds` of values, target and thresholds as lines, reps as markers. */
export class RealtimeChart {
  constructor(canvas, { capacity = 600, windowSeconds = 10 } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.capacity = capacity;
    this.windowSeconds = windowSeconds;
    this.times = new Float64Array(capacity);
    this.values = new Float64Array(capacity);
    this.repTimes = new Float64Array(64);
    this.repClean = new Uint8Array(64);
    this.lines = { target: null, enter: null, exit: null };
    this.unit = DEGREES;
    this.axis = null;
    this.reset();
  }

  reset() {
    this.head = 0;
    this.count = 0;
    this.repHead = 0;
    this.repCount = 0;
    this.maxValue = 0;
    this.minValue = 0;
    this.lastT = 0;
    this.axis = null;
    this.dirty = true;
  }

  setLines({ target = null, enter = null, exit = null } = {}) {
    this.lines = { target, enter, exit };
    this.axis = null;
    this.dirty = true;
  }

  /** The unit of the values (units.js): the axis's range and labels follow it; called again on a language change. */
  setUnit(unit) {
    this.unit = unit;
    this.axis = null;
    this.dirty = true;
  }

  /**
   * The value axis for what was pushed since the last reset and the lines: made again (with its labels) only when
   * a new highest or lowest value or new lines change it, so that drawing at display rate makes no new strings.
   * Its labels are kept in the canvas's `data-ticks` as well.
   */
  valueAxis() {
    const l = this.lines;
    const largest = Math.max(this.maxValue, l.target ?? 0, l.enter ?? 0);
    const smallest = Math.min(this.minValue, l.target ?? 0, l.exit ?? 0);
    if (!this.axis || this.axis.largest !== largest || this.axis.smallest !== smallest) {
      this.axis = { ...valueAxis(this.unit, largest, smallest), largest, smallest };
      this.canvas.dataset.ticks = this.axis.ticks.map((tick) => tick.label).join(' | ');
    }
    return this.axis;
  }

  /** Adds a sample; `value` null or undefined breaks the line. */
  push(t, value) {
    const i = this.head;
    this.times[i] = t;
    this.values[i] = value == null ? NaN : value;
    this.head = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    if (value != null && value > this.maxValue) this.maxValue = value;
    if (value != null && value < this.minValue) this.minValue = value;
    this.lastT = t;
    this.dirty = true;
  }

  /**
   * The chart in figures, for its text equivalent: the latest measured value and the lowest and highest over the
   * last `windowSeconds`; null while nothing there was measured.
   */
  summary() {
    let latest = null, min = Infinity, max = -Infinity;
    const t0 = this.lastT - this.windowSeconds;
    for (let k = 0; k < this.count; k++) {
      const i = (this.head - 1 - k + this.capacity) % this.capacity;
      if (this.times[i] < t0) break;
      const v = this.values[i];
      if (Number.isNaN(v)) continue;
      if (latest === null) latest = v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
    return latest === null ? null : { latest, min, max, seconds: this.windowSeconds };
  }

  markRep(t, clean) {
    const i = this.repHead;
    this.repTimes[i] = t;
    this.repClean[i] = clean ? 1 : 0;
    this.repHead = (i + 1) % this.repTimes.length;
    if (this.repCount < this.repTimes.length) this.repCount++;
    this.dirty = true;
  }

  draw() {
    if (fitCanvas(this.canvas)) this.dirty = true;
    if (!this.dirty) return;
    this.dirty = false;
    const { ctx, canvas } = this;
    const dpr = window.devicePixelRatio || 1;
    const w = canvas.width, h = canvas.height;
    const left = 42 * dpr, right = w - 8 * dpr, top = 8 * dpr, bottom = h - 20 * dpr;
    ctx.fillStyle = C.bg;
    ctx.fillRect(0, 0, w, h);
    const l = this.lines;
    const axis = this.valueAxis();
    const vmin = axis.min, vmax = axis.max;
    const yOf = (v) => bottom - ((v - vmin) / (vmax - vmin)) * (bottom - top);
    const t1 = this.lastT, t0 = t1 - this.windowSeconds;
    const xOf = (t) => left + ((t - t0) / this.windowSeconds) * (right - left);
    // Grid and labels.
    ctx.lineWidth = 1 * dpr;
    ctx.font = `${11 * dpr}px system-ui, sans-serif`;
    ctx.fillStyle = C.axis;
    ctx.textBaseline = 'middle';
    ctx.textAlign = 'right';
    for (const tick of axis.ticks) {
      const y = yOf(tick.value);
      hline(ctx, y, left, right, C.grid, []);
      ctx.fillText(tick.label, left - 5 * dpr, y);
    }
    recentTimes(this.canvas, xOf, t1, this.windowSeconds, bottom);
    ctx.lineWidth = 1.5 * dpr;
    if (l.enter != null) hline(ctx, yOf(l.enter), left, right, C.threshold, [4 * dpr, 4 * dpr]);
    if (l.exit != null) hline(ctx, yOf(l.exit), left, right, C.threshold, [1.5 * dpr, 4 * dpr]);
    if (l.target != null && l.target <= vmax) hline(ctx, yOf(l.target), left, right, C.target, [10 * dpr, 5 * dpr]);
    // Rep markers.
    const reps = this.repTimes.length;
    for (let k = 0; k < this.repCount; k++) {
      const i = (this.repHead - 1 - k + reps) % reps;
      const t = this.repTimes[i];
      if (t < t0) continue;
      const x = xOf(t);
      const color = this.repClean[i] ? C.clean : C.rejected;
      ctx.strokeStyle = color;
      ctx.lineWidth = 2 * dpr;
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.moveTo(x - 6 * dpr, top);
      ctx.lineTo(x + 6 * dpr, top);
      ctx.lineTo(x, top + 9 * dpr);
      ctx.closePath();
      ctx.fill();
    }
    // The value line, oldest to newest.
    ctx.strokeStyle = C.line;
    ctx.lineWidth = 2.5 * dpr;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    let pen = false;
    const start = (this.head - this.count + this.capacity) % this.capacity;
    for (let k = 0; k < this.count; k++) {
      const i = (start + k) % this.capacity;
      const t = this.times[i], v = this.values[i];
      if (t < t0 || Number.isNaN(v)) { pen = false; continue; }
      const x = xOf(t), y = yOf(Math.max(vmin, Math.min(v, vmax)));
      if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      pen = true;
    }
    ctx.stroke();
  }
}

function frame(ctx, w, h, dpr) {
  ctx.fillStyle = C.bg;
  ctx.fillRect(0, 0, w, h);
  ctx.lineWidth = 1 * dpr;
  ctx.font = `${11 * dpr}px system-ui, sans-serif`;
  ctx.fillStyle = C.axis;
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
}

/**
 * An axis of plain numbers (counts, m/s²): from 0 to `largest` plus `headroom`, rounded up to a tick of `step`;
 * symmetric, from -max to max (signed readings, such as acceleration on a phone's axes).
 */
function plainAxis(largest, { headroom = 0, step, symmetric = false }) {
  const max = Math.ceil((largest + headroom) / step) * step;
  const min = symmetric ? -max : 0;
  const ticks = [];
  for (let v = min; v <= max; v += step) ticks.push({ value: v, label: String(v) });
  return { min, max, step, ticks };
}

/**
 * The History and Progress charts' common ground: the canvas fitted and framed, a plot area with room for the axis
 * labels, and `axis` (units.js `valueAxis`, or `plainAxis`) drawn as grid lines with their labels. Values beyond
 * the axis are drawn at its ends (`yOf` clamps).
 */
function valuePlot(canvas, axis) {
  fitCanvas(canvas);
  const ctx = canvas.getContext('2d');
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.width, h = canvas.height;
  frame(ctx, w, h, dpr);
  const left = 42 * dpr, right = w - 8 * dpr, top = 10 * dpr, bottom = h - 20 * dpr;
  const { min: vmin, max: vmax } = axis;
  const yOf = (v) => bottom - ((Math.max(vmin, Math.min(v, vmax)) - vmin) / (vmax - vmin)) * (bottom - top);
  for (const tick of axis.ticks) {
    hline(ctx, yOf(tick.value), left, right, C.grid, []);
    ctx.fillText(tick.label, left - 5 * dpr, yOf(tick.value));
  }
  canvas.dataset.ticks = axis.ticks.map((tick) => tick.label).join(' | ');
  return { ctx, dpr, left, right, top, bottom, vmax, yOf };
}

/** A tick step for acceleration in m/s² that gives a handful of grid lines up to `largest`. */
function accelerationStep(largest) {
  return largest <= 4 ? 1 : largest <= 10 ? 2 : largest <= 25 ? 5 : 10;
}

/** The three axes of motion samples as lines over a time window; `xOf` maps sample times to the plot. */
function motionLines(ctx, dpr, count, timeAt, valueAt, xOf, yOf, inWindow) {
  for (const [axis, color] of [[0, C.x], [1, C.y], [2, C.z]]) {
    ctx.strokeStyle = color;
    ctx.lineWidth = 2 * dpr;
    ctx.lineJoin = 'round';
    ctx.beginPath();
    let pen = false;
    for (let k = 0; k < count; k++) {
      const t = timeAt(k);
      if (!inWindow(t)) { pen = false; continue; }
      const x = xOf(t), y = yOf(valueAt(k, axis));
      if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      pen = true;
    }
    ctx.stroke();
  }
}

/**
 * The live motion chart: the phone's acceleration including gravity on x, y and z (m/s²) over the last
 * `windowSeconds`, from ring buffers in typed arrays (60 samples/s kept), drawn at display rate when new samples came.
 */
export class MotionChart {
  constructor(canvas, { windowSeconds = 10, rate = 60 } = {}) {
    this.canvas = canvas;
    this.windowSeconds = windowSeconds;
    this.capacity = windowSeconds * rate + 1;
    this.minSpacing = 1 / rate;
    this.times = new Float64Array(this.capacity);
    this.values = new Float64Array(this.capacity * 3);
    this.reset();
  }

  reset() {
    this.head = 0;
    this.count = 0;
    this.lastT = -Infinity;
    this.drawn = 0;
    this.dirty = true;
  }

  /** Adds a sample `[t, ax, ay, az, …]`; one closer than 1/rate to the last kept is left out of the chart. */
  push(sample) {
    const t = sample[0];
    if (!(t >= this.lastT + this.minSpacing * 0.999)) return;
    const i = this.head;
    this.times[i] = t;
    this.values[i * 3] = sample[1];
    this.values[i * 3 + 1] = sample[2];
    this.values[i * 3 + 2] = sample[3];
    this.head = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
    this.lastT = t;
    this.dirty = true;
  }

  draw() {
    if (fitCanvas(this.canvas)) this.dirty = true;
    if (!this.dirty || !this.count) return;
    this.dirty = false;
    const start = (this.head - this.count + this.capacity) % this.capacity;
    const t1 = this.lastT, t0 = t1 - this.windowSeconds;
    let largest = 2;
    for (let k = 0; k < this.count; k++) {
      const i = (start + k) % this.capacity;
      if (this.times[i] < t0) continue;
      for (let a = 0; a < 3; a++) largest = Math.max(largest, Math.abs(this.values[i * 3 + a]));
    }
    // A handful of grid lines whatever the height (at most seven, one per 18 px of plot): the step doubles until
    // they fit; a strip a phone shows under the angle chart keeps -max, 0 and max.
    const dpr = window.devicePixelRatio || 1;
    const lines = Math.min(7, Math.max(3, Math.floor((this.canvas.height / dpr - 30) / 18)));
    let step = accelerationStep(largest);
    while ((2 * Math.ceil((largest + 0.5) / step)) + 1 > lines) step *= 2;
    const { ctx, left, right, bottom, yOf } = valuePlot(this.canvas,
      plainAxis(largest, { headroom: 0.5, step, symmetric: true }));
    const xOf = (t) => left + ((t - t0) / this.windowSeconds) * (right - left);
    recentTimes(this.canvas, xOf, t1, this.windowSeconds, bottom);
    motionLines(ctx, dpr, this.count, (k) => this.times[(start + k) % this.capacity],
      (k, a) => this.values[((start + k) % this.capacity) * 3 + a], xOf, yOf, (t) => t >= t0);
    this.drawn++;
    this.canvas.dataset.drawn = String(this.drawn);
  }
}

/**
 * The time axis of a live chart under its plot: the seconds before the latest value (`t1`), at the start, middle
 * and end of the window, as "−10 s | −5 s | 0 s" (also in the canvas's `data-times`); the first label starts at the
 * plot's left edge and the last ends at its right one, clear of the value labels beside the plot.
 */
function recentTimes(canvas, xOf, t1, windowSeconds, bottom) {
  const ctx = canvas.getContext('2d');
  const dpr = window.devicePixelRatio || 1;
  ctx.fillStyle = C.axis;
  ctx.textBaseline = 'middle';
  const labels = [];
  for (let ago = windowSeconds; ago >= 0; ago -= windowSeconds / 2) {
    const label = ago ? `−${ago} s` : '0 s';
    ctx.textAlign = ago === windowSeconds ? 'left' : ago ? 'center' : 'right';
    ctx.fillText(label, xOf(t1 - ago), bottom + 11 * dpr);
    labels.push(label);
  }
  ctx.textAlign = 'right';
  canvas.dataset.times = labels.join(' | ');
}

/** The History motion chart: the stored series `{t, x, y, z}` (m/s²) over the whole session. */
export function drawMotionSeries(canvas, series) {
  const ts = series?.t || [];
  const axes = [series?.x || [], series?.y || [], series?.z || []];
  let largest = 2;
  for (const values of axes) for (const v of values) largest = Math.max(largest, Math.abs(v));
  const { ctx, dpr, left, right, bottom, yOf } = valuePlot(canvas,
    plainAxis(largest, { headroom: 0.5, step: accelerationStep(largest), symmetric: true }));
  const { xOf } = timeAxis(ctx, ts, left, right, bottom, dpr);
  motionLines(ctx, dpr, ts.length, (k) => ts[k], (k, a) => axes[a][k], xOf, yOf, () => true);
}

/** A whole session's time axis under a plot: seconds from its first sample, about eight labels; its x mapping. */
function timeAxis(ctx, ts, left, right, bottom, dpr) {
  const t0 = ts.length ? ts[0] : 0;
  const t1 = ts.length ? Math.max(ts[ts.length - 1], t0 + 1) : 1;
  const xOf = (t) => left + ((t - t0) / (t1 - t0)) * (right - left);
  ctx.textAlign = 'center';
  const secondsStep = Math.max(1, Math.ceil((t1 - t0) / 8));
  for (let s = 0; t0 + s <= t1; s += secondsStep) ctx.fillText(`${s} s`, xOf(t0 + s), bottom + 10 * dpr);
  return { t0, t1, xOf };
}

/** Values as the axis of a chart in `unit` reaches them: the largest and smallest of them, nulls left out. */
function axisFor(unit, values) {
  const seen = values.filter((v) => v != null && Number.isFinite(v));
  return valueAxis(unit, Math.max(0, ...seen), Math.min(0, ...seen));
}

/** The History bar chart: one bar per rep peak (clean vs rejected), baseline and target as lines, in `unit`. */
export function drawRepBars(canvas, reps, { baseline = null, target = null, unit = DEGREES } = {}) {
  const { ctx, dpr, left, right, bottom, vmax, yOf } = valuePlot(
    canvas, axisFor(unit, [target, baseline, ...reps.map((r) => r.peak)]));
  const n = Math.max(1, reps.length);
  const slot = (right - left) / n;
  const bar = Math.max(2 * dpr, Math.min(40 * dpr, slot * 0.7));
  ctx.textAlign = 'center';
  reps.forEach((r, i) => {
    const x = left + slot * i + (slot - bar) / 2;
    ctx.fillStyle = r.clean ? C.clean : C.rejected;
    // From the 0 line, up or (a peak below 0, on an axis that has room for it) down.
    const zero = yOf(0), y = yOf(r.peak ?? 0);
    ctx.fillRect(x, Math.min(y, zero), bar, Math.abs(zero - y));
    if (slot > 14 * dpr) {
      ctx.fillStyle = C.axis;
      ctx.fillText(String(r.index ?? i + 1), x + bar / 2, bottom + 10 * dpr);
    }
  });
  ctx.lineWidth = 2 * dpr;
  if (baseline != null) hline(ctx, yOf(baseline), left, right, C.baseline, [6 * dpr, 4 * dpr]);
  if (target != null && target <= vmax) hline(ctx, yOf(target), left, right, C.target, [10 * dpr, 5 * dpr]);
}

/** The History series chart: the stored value series, target and thresholds, rep ends marked, in `unit`. */
export function drawSeries(canvas, series,
  { target = null, enter = null, exit = null, reps = [], unit = DEGREES } = {}) {
  const ts = series?.t || [], vs = series?.value || [];
  const { ctx, dpr, left, right, top, bottom, vmax, yOf } = valuePlot(canvas, axisFor(unit, [target, enter, ...vs]));
  const { t0, t1, xOf } = timeAxis(ctx, ts, left, right, bottom, dpr);
  ctx.lineWidth = 1.5 * dpr;
  if (enter != null) hline(ctx, yOf(enter), left, right, C.threshold, [4 * dpr, 4 * dpr]);
  if (exit != null) hline(ctx, yOf(exit), left, right, C.threshold, [1.5 * dpr, 4 * dpr]);
  if (target != null && target <= vmax) hline(ctx, yOf(target), left, right, C.target, [10 * dpr, 5 * dpr]);
  for (const r of reps) {
    if (r.end == null || r.end < t0 || r.end > t1) continue;
    ctx.strokeStyle = r.clean ? C.clean : C.rejected;
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    ctx.moveTo(xOf(r.end), top);
    ctx.lineTo(xOf(r.end), bottom);
    ctx.stroke();
  }
  ctx.strokeStyle = C.line;
  ctx.lineWidth = 2 * dpr;
  ctx.beginPath();
  let pen = false;
  for (let i = 0; i < ts.length; i++) {
    const v = vs[i];
    if (v == null) { pen = false; continue; }
    if (pen) ctx.lineTo(xOf(ts[i]), yOf(v)); else ctx.moveTo(xOf(ts[i]), yOf(v));
    pen = true;
  }
  ctx.stroke();
}

/**
 * The sessions' labels under a chart: day and month in the page language's order, as the table beside it writes
 * dates; a session on the same day as the one before it by its time instead (to the second when the minute is the
 * one before's too), so that no two labels next to each other read alike.
 */
function sessionLabels(sessions) {
  const lang = document.documentElement.lang || undefined;
  let previousDay = null;
  let previous = null;
  return sessions.map((s) => {
    const d = new Date(s.startedAt);
    if (Number.isNaN(d.getTime())) return '';
    const day = d.toLocaleDateString(lang, { day: 'numeric', month: 'numeric' });
    let label = day;
    if (day === previousDay) {
      label = d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' });
      if (label === previous) label = d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    }
    previousDay = day;
    previous = label;
    return label;
  });
}

/** Session slots across the plot: the x of session `i` of `n`, and its date labelled underneath when room allows. */
function sessionSlots(ctx, sessions, left, right, bottom, dpr) {
  const n = Math.max(1, sessions.length);
  const slot = (right - left) / n;
  ctx.textAlign = 'center';
  ctx.fillStyle = C.axis;
  const every = Math.max(1, Math.ceil((40 * dpr) / slot));
  const labels = sessionLabels(sessions);
  ctx.canvas.dataset.labels = JSON.stringify(labels);
  labels.forEach((label, i) => {
    if (i % every === 0) ctx.fillText(label, left + slot * (i + 0.5), bottom + 10 * dpr);
  });
  return { slot, xOf: (i) => left + slot * (i + 0.5) };
}

/**
 * The Progress trend: each session's best and mean peak as lines with dots, oldest first; each session's target (its
 * `target`, else `target`) as a stepped line; in `unit`.
 */
export function drawTrend(canvas, sessions, { target = null, unit = DEGREES } = {}) {
  // Each session against its own target (its prescription's), the exercise's where a session does not say.
  const targets = sessions.map((s) => s.target ?? target);
  canvas.dataset.targets = JSON.stringify(targets);
  const values = sessions.flatMap((s) => [s.best, s.meanPeak]);
  const { ctx, dpr, left, right, bottom, vmax, yOf } = valuePlot(canvas, axisFor(unit, [...targets, ...values]));
  const { slot, xOf } = sessionSlots(ctx, sessions, left, right, bottom, dpr);
  drawTargetSteps(ctx, targets.map((v) => (v != null && v <= vmax ? yOf(v) : null)), xOf, slot, dpr);
  for (const [key, color] of [['meanPeak', C.baseline], ['best', C.line]]) {
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 2.5 * dpr;
    ctx.beginPath();
    let pen = false;
    sessions.forEach((s, i) => {
      const v = s[key];
      if (v == null) { pen = false; return; }
      if (pen) ctx.lineTo(xOf(i), yOf(v)); else ctx.moveTo(xOf(i), yOf(v));
      pen = true;
    });
    ctx.stroke();
    sessions.forEach((s, i) => {
      if (s[key] == null) return;
      ctx.beginPath();
      ctx.arc(xOf(i), yOf(s[key]), 4 * dpr, 0, 2 * Math.PI);
      ctx.fill();
    });
  }
}

/**
 * The targets of the sessions as a dashed line in steps: level across each session's slot, rising or falling where
 * a prescription changed; broken where a session has none (`ys[i]` null).
 */
function drawTargetSteps(ctx, ys, xOf, slot, dpr) {
  ctx.strokeStyle = C.target;
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([10 * dpr, 5 * dpr]);
  ctx.beginPath();
  let pen = false;
  ys.forEach((y, i) => {
    if (y == null) { pen = false; return; }
    const x0 = xOf(i) - slot / 2;
    if (pen) ctx.lineTo(x0, y); else ctx.moveTo(x0, y);
    ctx.lineTo(x0 + slot, y);
    pen = true;
  });
  ctx.stroke();
  ctx.setLineDash([]);
}

/** The Progress counts: per session, clean reps and reps rejected for a fault, stacked. */
export function drawCountBars(canvas, sessions) {
  // Form faults given in each session (its `faultCounts`, summed), drawn over the bars as a line of dots.
  const faults = sessions.map((s) => Object.values(s.faultCounts || {}).reduce((a, b) => a + b, 0));
  const largest = Math.max(5, ...faults, ...sessions.map((s) => (s.repCount ?? 0) + (s.rejectedCount ?? 0)));
  const step = largest <= 10 ? 2 : largest <= 25 ? 5 : largest <= 50 ? 10 : 20;
  const { ctx, dpr, left, right, bottom, yOf } = valuePlot(canvas, plainAxis(largest, { step }));
  const { slot, xOf } = sessionSlots(ctx, sessions, left, right, bottom, dpr);
  const bar = Math.max(2 * dpr, Math.min(40 * dpr, slot * 0.7));
  sessions.forEach((s, i) => {
    const clean = s.repCount ?? 0, rejected = s.rejectedCount ?? 0;
    ctx.fillStyle = C.clean;
    ctx.fillRect(xOf(i) - bar / 2, yOf(clean), bar, bottom - yOf(clean));
    ctx.fillStyle = C.rejected;
    ctx.fillRect(xOf(i) - bar / 2, yOf(clean + rejected), bar, yOf(clean) - yOf(clean + rejected));
  });
  if (!sessions.some((s) => s.faultCounts)) return;
  ctx.strokeStyle = C.y;
  ctx.fillStyle = C.y;
  ctx.lineWidth = 2 * dpr;
  ctx.setLineDash([]);
  ctx.beginPath();
  faults.forEach((n, i) => (i ? ctx.lineTo(xOf(i), yOf(n)) : ctx.moveTo(xOf(i), yOf(n))));
  ctx.stroke();
  for (const [i, n] of faults.entries()) {
    ctx.beginPath();
    ctx.arc(xOf(i), yOf(n), 3.5 * dpr, 0, 2 * Math.PI);
    ctx.fill();
  }
}
