// The phone's motion sensors on the Live page (docs/protocol.md §3.3): permission (iOS asks for it from a tap),
// `devicemotion` readings as samples `[t, ax, ay, az(, rx, ry, rz)]` on the poses' clock, sent in batches about
// every 100 ms as `motion` messages.

/** How often a batch of samples goes to the server, milliseconds. */
export const BATCH_MS = 100;
// At most this many samples wait for a batch (the server takes up to 100 samples/s): a page that could not send
// for a while keeps only the newest.
const MAX_PENDING = 200;

/**
 * Asks for motion permission where the browser wants it asked (iOS Safari 13+: `DeviceMotionEvent.requestPermission`,
 * which must be called from a user gesture, before anything awaits); resolves `granted`, `denied` or `unavailable`
 * (no motion events in this browser). Elsewhere motion needs no permission and resolves `granted`.
 */
export function requestMotionPermission() {
  const Event = window.DeviceMotionEvent;
  if (typeof Event === 'undefined') return Promise.resolve('unavailable');
  if (typeof Event.requestPermission !== 'function') return Promise.resolve('granted');
  try {
    return Event.requestPermission().then((answer) => (answer === 'granted' ? 'granted' : 'denied'), () => 'denied');
  } catch {
    return Promise.resolve('denied');
  }
}

/** One reading as a sample, or null when it carries no acceleration (a desktop without sensors sends nulls). */
export function sampleOf(event, t) {
  const a = event.accelerationIncludingGravity;
  if (!a || ![a.x, a.y, a.z].every(Number.isFinite)) return null;
  const round = (v) => Math.round(v * 1000) / 1000;
  const sample = [t, round(a.x), round(a.y), round(a.z)];
  const r = event.rotationRate;
  // The rotation rate in °/s, as the browser gives it: alpha about z, beta about x, gamma about y.
  if (r && [r.alpha, r.beta, r.gamma].every(Number.isFinite)) sample.push(round(r.beta), round(r.gamma), round(r.alpha));
  return sample;
}

/**
 * Listens to `devicemotion` while a session runs: each reading becomes a sample at `clock()` (seconds on the
 * session's clock, kept strictly increasing), shown through `onSample` at once and sent through `send(samples)` in
 * batches every ~100 ms.
 */
export class MotionSensor {
  constructor({ clock, send, onSample }) {
    this.clock = clock;
    this.send = send;
    this.onSample = onSample;
    this.pending = [];
    this.lastT = -Infinity;
    this.count = 0;
    this.timer = 0;
    this.listener = (event) => this.reading(event);
  }

  start() {
    window.addEventListener('devicemotion', this.listener);
    this.timer = setInterval(() => this.flush(), BATCH_MS);
  }

  stop() {
    window.removeEventListener('devicemotion', this.listener);
    clearInterval(this.timer);
    this.flush();
  }

  reading(event) {
    let t = this.clock();
    if (t <= this.lastT) t = Math.round((this.lastT + 0.001) * 1000) / 1000;
    const sample = sampleOf(event, t);
    if (!sample) return;
    this.lastT = t;
    this.count++;
    this.pending.push(sample);
    if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
    this.onSample(sample);
  }

  flush() {
    if (!this.pending.length) return;
    const batch = this.pending;
    this.pending = [];
    this.send(batch);
  }
}
