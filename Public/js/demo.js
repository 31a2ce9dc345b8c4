// The Demo pose source: the server's own simulated person acting out an exercise (docs/protocol.md §5.1,
// `GET /v1/exercises/{id}/demo`; a draft's with `POST /v1/exercises/demo`), so the page shows every exercise of the
// catalog or of the clinic, faults and all, exactly as the server's tests and load tools see it. One performance —
// a short rest, six reps (three holds), two of them with a form fault, a moment out of frame — plays in a loop.

import { request } from './api.js';

/** How fast the demo plays: 1, or the page's `demoSpeed` query (1–8; for presentations and tests). */
export function demoSpeed() {
  const asked = Number(new URLSearchParams(location.search).get('demoSpeed'));
  return Number.isFinite(asked) && asked >= 1 ? Math.min(asked, 8) : 1;
}

export class DemoSource {
  /** The performance of a current exercise (built-in or the clinic's), for `side` (`left` or `right`). */
  static async load(exercise, side) {
    const query = side ? `?side=${encodeURIComponent(side)}` : '';
    const performance = await request('GET', `/v1/exercises/${encodeURIComponent(exercise.id)}/demo${query}`);
    return new DemoSource(exercise, performance);
  }

  /** The performance of a draft definition, checked as a preview checks it. */
  static async loadDraft(definition, side) {
    return new DemoSource(definition, await request('POST', '/v1/exercises/demo', { exercise: definition, side }));
  }

  /**
   * @param {{kind: string}} exercise The exercise acted out.
   * @param {{frameRate: number, duration: number, acted: Array, frames: Array}} performance The server's answer.
   */
  constructor(exercise, performance) {
    this.frames = performance.frames;
    this.rate = performance.frameRate;
    /** Seconds of one loop: the performance, and the gap of one frame back to its start. */
    this.cycle = performance.duration + 1 / this.rate;
    const kind = exercise.kind === 'hold' ? 'hold' : 'rep';
    /** What is acted, in order: `{kind, start, end, side, faults}`. */
    this.segments = performance.acted.map((a) => ({ kind, ...a }));
  }

  /** The pose at `clock` seconds since the demo began: `{width, height, points}` in image pixels (§2). */
  poseAt(clock) {
    const c = ((clock % this.cycle) + this.cycle) % this.cycle;
    const frame = this.frames[Math.min(this.frames.length - 1, Math.floor(c * this.rate))];
    const pose = { width: frame.width, height: frame.height, points: frame.points };
    if (frame.confidence) pose.confidence = frame.confidence;
    return pose;
  }
}
