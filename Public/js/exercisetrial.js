// The Exercises page's "Try it": the server's simulated person performs a draft definition (`POST
// /v1/exercises/demo`) and the server measures it with that definition before it is saved (`POST
// /v1/exercises/preview`, nothing stored); the figure plays on a loop with the counts rising as the engine counted
// them.

import { request } from './api.js';
import { DemoSource } from './demo.js';
import { SkeletonView } from './skeleton.js';
import { measuredJoints } from './joints.js';
import { t } from './i18n.js';

/** The most frames one preview posts (the server takes at most 1,000 per batch) and the rate it aims for. */
const MAX_FRAMES = 1000;
const FRAMES_PER_SECOND = 15;

export class ExerciseTrial {
  /** @param {{canvas: HTMLCanvasElement, acted: HTMLElement, counts: HTMLElement}} elements */
  constructor({ canvas, acted, counts }) {
    this.view = new SkeletonView(canvas);
    this.acted = acted;
    this.counts = counts;
    this.generation = 0;
    this.playing = null;
    this.message = null;
    this.reducedMotion = matchMedia('(prefers-reduced-motion: reduce)').matches;
  }

  /**
   * Measures `definition` and plays it; a newer call supersedes an older one still waiting for the server.
   * Returns when the answer is shown.
   */
  async show(definition) {
    const generation = ++this.generation;
    this.say(['exercises.tryMeasuring']);
    const side = definition.sidedness === 'bilateral' ? null : 'right';
    try {
      // The draft as the server reads it (its measured joints and form faults), then the figure's frames.
      const { exercise } = await request('POST', '/v1/exercises/preview', { exercise: definition, side, frames: [] });
      if (generation !== this.generation) return;
      const demo = await DemoSource.loadDraft(definition, side || 'right');
      if (generation !== this.generation) return;
      const rate = Math.min(FRAMES_PER_SECOND, (MAX_FRAMES - 1) / demo.cycle);
      const frames = [];
      for (let i = 0; i / rate < demo.cycle; i++) {
        const time = Math.round((i / rate) * 1000) / 1000;
        frames.push({ t: time, ...demo.poseAt(time) });
      }
      const answer = await request('POST', '/v1/exercises/preview', { exercise: definition, side, frames });
      if (generation !== this.generation) return;
      this.play({ exercise, side, demo, frames, rate, events: answer.events || [] });
    } catch (error) {
      if (generation !== this.generation) return;
      this.refuse(error.message);
    }
  }

  /** Shows why the draft cannot be measured, and stops the figure. */
  refuse(message) {
    this.stop();
    this.say(['exercises.tryRefused', { message }], 'bad');
  }

  /** Says what the draft still needs before it can be tried, and stops the figure. */
  wait() {
    this.stop();
    this.say(['exercises.tryNeeds']);
  }

  stop() {
    this.generation++;
    this.playing = null;
    this.view.clear();
    this.view.draw();
    this.acted.textContent = '';
    delete this.counts.dataset.reps;
    delete this.counts.dataset.rejected;
  }

  /** Redraws the texts in the current language. */
  retranslate() {
    if (this.playing) this.describe(this.playing);
    if (this.message) this.say(...this.message);
  }

  play(trial) {
    const counted = trial.events.filter((e) => e.event === 'repCompleted' || e.event === 'repRejected');
    this.playing = { ...trial, counted, shown: null, startedAt: performance.now() };
    this.message = null;
    this.counts.className = 'ex-counts';
    this.counts.dataset.reps = String(counted.filter((e) => e.event === 'repCompleted').length);
    this.counts.dataset.rejected = String(counted.length - Number(this.counts.dataset.reps));
    this.view.setMeasured(measuredJoints(trial.exercise, trial.side));
    this.describe(this.playing);
    const playing = this.playing;
    const step = () => {
      if (this.playing !== playing) return;
      this.frame(playing);
      if (!this.reducedMotion) requestAnimationFrame(step);
    };
    step();
  }

  /** Draws the frame of the loop's current moment and the counts up to it (the last frame when motion is reduced). */
  frame(playing) {
    const { demo, frames, rate, counted } = playing;
    const clock = this.reducedMotion ? demo.cycle : ((performance.now() - playing.startedAt) / 1000) % demo.cycle;
    this.view.setPose(frames[Math.min(frames.length - 1, Math.floor(clock * rate))]);
    this.view.draw();
    const reps = counted.filter((e) => e.t <= clock && e.event === 'repCompleted').length;
    const rejected = counted.filter((e) => e.t <= clock && e.event === 'repRejected').length;
    const shown = `${reps}/${rejected}`;
    if (shown === playing.shown) return;
    playing.shown = shown;
    this.counts.textContent = t('exercises.tryCounted', { reps, rejected });
  }

  describe(playing) {
    const acted = playing.demo.segments.filter((s) => s.kind === 'rep' || s.kind === 'hold');
    const kind = t(playing.exercise.kind === 'hold' ? 'exercises.tryHolds' : 'exercises.tryReps');
    const faulty = acted.filter((s) => s.faults.length).length;
    this.acted.textContent = t('exercises.tryActed', { count: acted.length, kind, faulty });
    playing.shown = null;
  }

  say(message, cls = '') {
    this.message = message;
    this.counts.textContent = t(...message);
    this.counts.className = 'ex-counts ' + cls;
  }
}
