// One live session over /v1/stream that survives a dropped connection (docs/protocol.md §3.1): it keeps the frames
// sent after the server's last `checkpoint`, and when the socket closes without the session being finished it
// opens a new one, sends `resume` with the session's token, and re-sends what the server does not hold. Poses go
// as JSON, or as binary pose frames (docs/protocol.md §3.2, binary.js) when asked for and the session's format allows.

import { MessageSocket } from './api.js';
import { carriesBinary, encodePose } from './binary.js';

/**
 * How long the server keeps a dropped session resumable (its `--resume-seconds`, default 120) when `started` does
 * not say (`resumeSeconds`).
 */
export const RESUME_WINDOW_SECONDS = 120;

// The entries kept for a resume are those after the last checkpoint (at most ~5 s old while the server is there)
// plus those produced while disconnected (at most the 120 s window). Four minutes at 30 frames/s covers that
// with room for a faster source; past it the oldest are dropped (a gap in the session rather than unbounded
// memory on a long outage).
export const MAX_KEPT_FRAMES = 4 * 60 * 30;

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
// An attempt that neither fails nor gets `resumed` in this time is given up and the next one scheduled.
const ATTEMPT_TIMEOUT_MS = 5000;
// A slow link: past this many bytes queued in the socket, live frames are skipped rather than queued, and a
// backlog (re-sent frames) waits.
const HIGH_WATER_BYTES = 256 * 1024;
// Frames per `poses` message when a backlog is sent (about 60 KB of JSON, well under the message limit). Binary
// frames are each a message of their own.
const BATCH_FRAMES = 60;

const RESUME_ERRORS = new Set(['unknownSession', 'invalidResume', 'resumeExpired']);

/**
 * The delay before reconnect attempt `n` (from 0): 0.5 s doubling up to 8 s, each drawn between half and all of
 * it, so clients dropped together by a restart do not come back together.
 */
export function backoffDelay(n, random = Math.random) {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** n);
  return base / 2 + (random() * base) / 2;
}

/**
 * What was sent after the last checkpoint, oldest first, and how much of it the current connection has sent:
 * pose frames (objects with their `t`), control messages (`{control: 'reset'}`, placed at the `t` of the last
 * frame before them) and motion batches (`{samples: [[t, …], …]}`, placed at their last sample's `t`). A resume
 * re-sends, in order, what the server does not hold: the frames after `resumed.t`, the controls from it on (a
 * `reset` or `baseline` given twice at the same frame has the effect of one), the samples after `resumed.motionT`.
 */
export class FrameLog {
  constructor(max = MAX_KEPT_FRAMES) {
    this.max = max;
    this.entries = [];
    this.sent = 0;
    this.dropped = 0;
    this.lastFrameT = -Infinity;
  }

  get length() { return this.entries.length; }
  get caughtUp() { return this.sent >= this.entries.length; }

  /** Keeps a pose frame. */
  push(frame) {
    this.lastFrameT = frame.t;
    this.keep(frame);
  }

  /** Keeps a control message (`reset`, `baseline`), after the frames kept so far. */
  pushControl(type) {
    this.keep({ control: type, t: this.lastFrameT });
  }

  /** Keeps a batch of motion samples (`[t, ax, ay, az(, rx, ry, rz)]`, `t` increasing). */
  pushMotion(samples) {
    this.keep({ samples, t: samples[samples.length - 1][0] });
  }

  keep(entry) {
    this.entries.push(entry);
    const excess = this.entries.length - this.max;
    if (excess > 0) this.forget(excess);
  }

  /**
   * Forgets what the server holds durably up to the pose at `t`: the frames up to it, the controls before it, the
   * motion batches whose samples all came before it.
   */
  checkpoint(t) {
    let n = 0;
    while (n < this.entries.length && (this.entries[n].control ? this.entries[n].t < t : this.entries[n].t <= t)) n++;
    this.forget(n);
  }

  /**
   * After `resumed`: keeps to be sent again the frames after `t`, the controls from `t` on and the samples after
   * `motionT` (everything when `t` or `motionT` is null), and forgets the rest: the server holds it.
   */
  rewind(t, motionT = null) {
    const after = (time, bound) => bound == null || time > bound;
    this.entries = this.entries.flatMap((entry) => {
      if (entry.control) return t == null || entry.t >= t ? [entry] : [];
      if (!entry.samples) return after(entry.t, t) ? [entry] : [];
      const samples = entry.samples.filter((sample) => after(sample[0], motionT));
      return samples.length ? [{ ...entry, samples }] : [];
    });
    this.sent = 0;
  }

  /** The next entry not sent on this connection, counted as sent; with `frames`, up to that many frames in a row. */
  take(frames = 1) {
    const first = this.entries[this.sent];
    if (first.control || first.samples) {
      this.sent++;
      return first;
    }
    let end = this.sent;
    while (end < this.entries.length && end - this.sent < frames && !this.entries[end].control
      && !this.entries[end].samples) end++;
    const batch = this.entries.slice(this.sent, end);
    this.sent = end;
    return { frames: batch };
  }

  forget(n) {
    if (n <= 0) return;
    this.entries.splice(0, n);
    this.sent = Math.max(0, this.sent - n);
    this.dropped += n;
  }
}

/**
 * A live session that reconnects by itself. `on(type, f)` receives the server's messages by type (`started`,
 * `snapshot`, `event`, `error`, `summary`, `checkpoint`) and the stream's own news:
 * - `lost`: the connection dropped and reconnecting began;
 * - `resumed`: the server's `resumed` message, after which the kept frames are re-sent;
 * - `end` `{reason, code, checkpoint}`: final; `reason` is `stopped` (the summary came), `closed` (a close that
 *   cannot be resumed, with its `code`), `takenOver` (close 4001), `gaveUp` (the resume window passed),
 *   `stoppedOffline` (Stop while the server could not be reached), or a resume error code
 *   (`resumeExpired`, `unknownSession`, `invalidResume`). `checkpoint` is the `t` of the last checkpoint or null.
 */
export class LiveStream {
  /**
   * `start` is the session's `start` message. With `binary`, each pose of a `joints` session goes as a binary pose
   * frame (those re-sent after a resume too); control messages stay JSON, and so do the poses of other formats.
   */
  constructor(start, { windowSeconds = RESUME_WINDOW_SECONDS, maxKept = MAX_KEPT_FRAMES, binary = false } = {}) {
    this.start = start;
    this.binary = binary && carriesBinary(start.format);
    this.windowMs = windowSeconds * 1000;
    this.log = new FrameLog(maxKept);
    this.handlers = new Map();
    this.state = 'idle'; // idle, starting, streaming, waiting (for the next attempt), resuming, ended
    this.socket = null;
    this.id = null;
    this.token = null;
    this.lastCheckpoint = null;
    this.summary = null;
    this.resumeError = null;
    this.stopWanted = false; // the person pressed Stop
    this.finishWanted = false; // the source ended: stop once connected
    this.stopSent = false;
    this.triedAfterStop = false;
    this.leaving = false;
    this.droppedAt = 0;
    this.attempts = 0;
    this.timer = 0;
  }

  on(type, f) {
    if (!this.handlers.has(type)) this.handlers.set(type, []);
    this.handlers.get(type).push(f);
    return this;
  }

  emit(type, value) {
    for (const f of this.handlers.get(type) || []) f(value);
  }

  get ended() { return this.state === 'ended'; }
  get reconnecting() { return this.state === 'waiting' || this.state === 'resuming'; }

  open() {
    this.state = 'starting';
    this.connect(this.start);
  }

  /**
   * Keeps `frame` (a pose without `type`, with its `t`) and sends it when connected; frames produced while
   * reconnecting are sent after the resume. Returns false for a frame skipped on a slow link.
   */
  send(frame) {
    if (this.ended || this.stopWanted || this.finishWanted) return false;
    if (this.state === 'streaming' && this.log.caughtUp && this.socket.buffered > HIGH_WATER_BYTES) return false;
    this.log.push(frame);
    this.pump();
    return true;
  }

  /**
   * Keeps a control message (`reset`, `baseline`: docs/protocol.md §3) after the frames kept so far and sends it when
   * connected: given while reconnecting, it goes after the resume. Returns false once the session is stopping.
   */
  control(type) {
    if (this.ended || this.stopWanted || this.finishWanted) return false;
    this.log.pushControl(type);
    this.pump(true);
    return true;
  }

  /**
   * Keeps motion samples (docs/protocol.md §3.3) after the poses kept so far and sends them as one `motion` message when
   * connected; those the server does not hold are sent again after a resume. Returns false once the session is
   * stopping.
   */
  sendMotion(samples) {
    if (this.ended || this.stopWanted || this.finishWanted || !samples.length) return false;
    this.log.pushMotion(samples);
    this.pump();
    return true;
  }

  /** The person's Stop: finishes on the server when it can be reached; never waits out the resume window. */
  stop() {
    if (this.ended || this.stopWanted) return;
    this.stopWanted = true;
    if (this.state === 'streaming') this.sendStop();
    else if (this.state === 'waiting') this.tryAfterStop();
    else if (this.state === 'starting') this.end({ reason: 'closed', code: null });
    // resuming: the attempt under way decides (sendStop on `resumed`, stoppedOffline if it fails).
  }

  /** The source has no more frames: stop once every kept frame is sent, however long reconnecting takes. */
  finish() {
    if (this.ended || this.finishWanted) return;
    this.finishWanted = true;
    if (this.state === 'streaming') this.sendStop();
  }

  /** The page is going away: close without reconnecting. */
  close() {
    this.leaving = true;
    clearTimeout(this.timer);
    this.socket?.close();
  }

  // ---- connection ---------------------------------------------------------------------------------------

  connect(first) {
    const socket = new MessageSocket('/v1/stream');
    this.socket = socket;
    socket.opened.then(() => { if (socket === this.socket) socket.send(first); }, () => {});
    socket.on('*', (m) => { if (socket === this.socket) this.receive(m); });
    socket.on('close', (e) => { if (socket === this.socket) this.closed(e); });
  }

  receive(m) {
    switch (m.type) {
      case 'started':
        this.id = m.session;
        this.token = m.resume || null;
        if (typeof m.resumeSeconds === 'number' && m.resumeSeconds >= 0) this.windowMs = m.resumeSeconds * 1000;
        this.state = 'streaming';
        this.emit('started', m);
        if (this.stopWanted || this.finishWanted) this.sendStop();
        return;
      case 'resumed':
        clearTimeout(this.timer);
        this.state = 'streaming';
        this.attempts = 0;
        this.log.rewind(m.t, m.motionT ?? null);
        this.emit('resumed', m);
        if (this.stopWanted || this.finishWanted) this.sendStop();
        else this.pump();
        return;
      case 'checkpoint':
        this.lastCheckpoint = m.t;
        this.log.checkpoint(m.t);
        this.emit('checkpoint', m);
        return;
      case 'summary':
        this.summary = m;
        this.emit('summary', m);
        return;
      case 'error':
        if (this.state === 'resuming' && RESUME_ERRORS.has(m.code)) {
          this.resumeError = m.code;
          return;
        }
        this.emit('error', m);
        return;
      default:
        this.emit(m.type, m);
    }
  }

  closed(e) {
    if (this.ended) return;
    clearTimeout(this.timer);
    const wasStreaming = this.state === 'streaming';
    if (this.summary && e.code === 1000) return this.end({ reason: 'stopped' });
    if (e.code === 4001) return this.end({ reason: 'takenOver' });
    if (this.resumeError) return this.end({ reason: this.resumeError });
    // Not resumable: never started, a server without resume tokens, the page leaving, or the summary refused.
    if (!this.id || !this.token || this.leaving || (this.stopSent && e.code === 1011)) {
      return this.end({ reason: 'closed', code: e.code });
    }
    // The server's window starts when a streaming connection drops (again, for a resumed one that drops).
    if (wasStreaming) {
      this.droppedAt = performance.now();
      this.emit('lost', e);
    }
    if (this.stopWanted) {
      if (this.triedAfterStop) return this.end({ reason: 'stoppedOffline' });
      return this.tryAfterStop();
    }
    this.schedule();
  }

  schedule() {
    const left = this.windowMs - (performance.now() - this.droppedAt);
    if (left <= 0) return this.end({ reason: 'gaveUp' });
    this.state = 'waiting';
    const delay = Math.min(backoffDelay(this.attempts), left);
    this.attempts++;
    this.timer = setTimeout(() => this.attempt(), delay);
  }

  attempt() {
    this.state = 'resuming';
    this.resumeError = null;
    this.connect({ type: 'resume', session: this.id, token: this.token });
    const socket = this.socket;
    this.timer = setTimeout(() => { if (socket === this.socket && this.state === 'resuming') socket.close(); },
      ATTEMPT_TIMEOUT_MS);
  }

  tryAfterStop() {
    clearTimeout(this.timer);
    this.triedAfterStop = true;
    this.attempt();
  }

  // ---- sending ------------------------------------------------------------------------------------------

  /** Sends what is kept and not yet sent on this connection, in order, while the socket is not backed up. */
  pump(all = false) {
    if (this.state !== 'streaming') return;
    while (!this.log.caughtUp && (all || this.socket.buffered < HIGH_WATER_BYTES)) {
      const entry = this.log.take(BATCH_FRAMES);
      if (entry.control) this.socket.send({ type: entry.control });
      else if (entry.samples) this.socket.send({ type: 'motion', samples: entry.samples });
      else if (this.binary) this.sendBinary(entry.frames);
      else if (entry.frames.length === 1) this.socket.send({ type: 'pose', ...entry.frames[0] });
      else this.socket.send({ type: 'poses', frames: entry.frames });
    }
  }

  /** Sends each frame as a binary message, in order; one without a binary form goes as a JSON `pose` in its place. */
  sendBinary(frames) {
    for (const frame of frames) {
      const bytes = encodePose(frame);
      this.socket.send(bytes ?? { type: 'pose', ...frame });
    }
  }

  sendStop() {
    this.pump(true);
    this.stopSent = true;
    this.socket.send({ type: 'stop' });
  }

  end(detail) {
    clearTimeout(this.timer);
    this.state = 'ended';
    this.socket?.close();
    this.emit('end', { code: null, ...detail, checkpoint: this.lastCheckpoint });
  }
}
