// Draws a pose (image pixels, y down) on a canvas: bones, joints, the measured joints highlighted, and the
// joints the server reports missing drawn as hollow red rings at their last known place.

import { BONES } from './joints.js';

const COLORS = {
  bone: '#8fb3d9', joint: '#dbe7f3', measured: '#ffd166', measuredBone: '#ffb703',
  missing: '#ff5c5c', floor: '#2b3b4f', background: '#15202b', text: '#dbe7f3',
};

export class SkeletonView {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{background?: boolean}} options background: draw an opaque scene (Demo/Replay); false for an overlay.
   */
  constructor(canvas, { background = true } = {}) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.background = background;
    this.imageWidth = 1280;
    this.imageHeight = 720;
    this.points = null;
    this.lastKnown = new Map();
    this.measured = new Set();
    this.missing = new Set();
    this.dirty = true;
  }

  setMeasured(set) { this.measured = set; this.dirty = true; }

  setMissing(list) {
    const next = new Set(list || []);
    if (next.size !== this.missing.size || [...next].some((j) => !this.missing.has(j))) {
      this.missing = next;
      this.dirty = true;
    }
  }

  /** `pose`: {width, height, points: {joint: [x, y]}} or null to clear. */
  setPose(pose) {
    if (pose?.width && pose?.height) {
      this.imageWidth = pose.width;
      this.imageHeight = pose.height;
    }
    this.points = pose ? pose.points : null;
    if (this.points) for (const name in this.points) this.lastKnown.set(name, this.points[name]);
    this.dirty = true;
  }

  clear() {
    this.points = null;
    this.lastKnown.clear();
    this.missing = new Set();
    this.dirty = true;
  }

  /** Resizes the backing store to the element's size; returns true when it changed. */
  fit() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(this.canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(this.canvas.clientHeight * dpr));
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
      return true;
    }
    return false;
  }

  draw() {
    if (this.fit()) this.dirty = true;
    if (!this.dirty) return;
    this.dirty = false;
    const { ctx, canvas } = this;
    const w = canvas.width, h = canvas.height;
    // Letterbox the image into the canvas, keeping its aspect.
    const k = Math.min(w / this.imageWidth, h / this.imageHeight);
    const ox = (w - this.imageWidth * k) / 2, oy = (h - this.imageHeight * k) / 2;
    if (this.background) {
      ctx.fillStyle = COLORS.background;
      ctx.fillRect(0, 0, w, h);
      ctx.strokeStyle = COLORS.floor;
      ctx.lineWidth = Math.max(1, 2 * k);
      ctx.beginPath();
      ctx.moveTo(ox, oy + this.imageHeight * 0.93 * k);
      ctx.lineTo(ox + this.imageWidth * k, oy + this.imageHeight * 0.93 * k);
      ctx.stroke();
    } else {
      ctx.clearRect(0, 0, w, h);
    }
    const pts = this.points || {};
    const X = (p) => ox + p[0] * k;
    const Y = (p) => oy + p[1] * k;
    ctx.lineCap = 'round';
    for (const [a, b] of BONES) {
      const pa = pts[a], pb = pts[b];
      if (!pa || !pb) continue;
      const measured = this.measured.has(a) && this.measured.has(b);
      ctx.strokeStyle = measured ? COLORS.measuredBone : COLORS.bone;
      ctx.lineWidth = Math.max(2, (measured ? 9 : 5) * k);
      ctx.beginPath();
      ctx.moveTo(X(pa), Y(pa));
      ctx.lineTo(X(pb), Y(pb));
      ctx.stroke();
    }
    for (const name in pts) {
      const p = pts[name];
      const measured = this.measured.has(name);
      ctx.fillStyle = measured ? COLORS.measured : COLORS.joint;
      ctx.beginPath();
      ctx.arc(X(p), Y(p), Math.max(3, (measured ? 13 : 7) * k), 0, Math.PI * 2);
      ctx.fill();
    }
    // Missing joints: a dashed red ring where they were last seen (or a note when never seen).
    if (this.missing.size) {
      ctx.strokeStyle = COLORS.missing;
      ctx.lineWidth = Math.max(2, 4 * k);
      ctx.setLineDash([6, 5]);
      for (const name of this.missing) {
        const p = pts[name] || this.lastKnown.get(name);
        if (!p) continue;
        ctx.beginPath();
        ctx.arc(X(p), Y(p), Math.max(8, 22 * k), 0, Math.PI * 2);
        ctx.stroke();
      }
      ctx.setLineDash([]);
    }
  }
}
