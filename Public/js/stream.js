// One live session over /v1/stream that survives a dropped connection (PROTOCOL.md §3.1): it keeps the frames
// sent after the server's last `checkpoint`, and when the socket closes without the session being finished it
// opens a new one, sends `resume` with the session's token, and re-sends what the server does not hold. Poses go
// as JSON, or as binary pose frames (PROTOCOL.md §3.2, binary.js) when asked for and the session's format allows.

import { MessageSocket } from './api.js';
import { carriesBinary, encodePose } from './binary.js';

/** How long the server keeps a dropped session resumable (its `--resume-seconds`, default 120). */
export const RESUME_WINDOW_SECONDS = 120;

// The frames kept for a resume are those after the last checkpoint (at most ~5 s old while the server is there)
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

/** The frames sent after the last checkpoint, oldest first, and how many the current connection has sent. */
export class FrameLog {
  constructor(max = MAX_KEPT_FRAMES) {
    this.max = max;
    this.frames = [];
    this.sent = 0;
    this.dropped = 0;
  }

  get length() { return this.frames.length; }
  get caughtUp() { return this.sent >= this.frames.length; }

  push(frame) {
    this.frames.push(frame);
    const excess = this.frames.length - this.max;
    if (excess > 0) this.forget(excess);
  }

  /** Forgets the frames up to `t`: the server holds their state durably. */
  checkpoint(t) {
    this.forget(this.indexAfter(t));
  }

  /** After `resumed`: every frame after `t` (all of them when `t` is null) is to be sent again. */
  rewind(t) {
    this.sent = t == null ? 0 : this.indexAfter(t);
  }

  /** The next `n` unsent frames, counted as sent. */
  take(n) {
    const batch = this.frames.slice(this.sent, this.sent + n);
    this.sent += batch.length;
    return batch;
  }

  indexAfter(t) {
    let i = 0;
    while (i < this.frames.length && this.frames[i].t <= t) i++;
    return i;
  }

  forget(n) {
    if (n <= 0) return;
    this.frames.splice(0, n);
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
   * Sends a control message (`reset`, `baseline`: PROTOCOL.md §3) on the open connection, after the frames kept so
   * far. Returns false when not connected: it is not kept for a later resume.
   */
  control(type) {
    if (this.state !== 'streaming' || this.stopWanted || this.finishWanted) return false;
    this.pump(true);
    this.socket.send({ type });
    return true;
  }

  /**
   * Sends motion samples (PROTOCOL.md §3.3) as one `motion` message on the open connection, after the poses kept so
   * far. They are not kept for a resume: returns false (the samples dropped) when not connected or on a backed-up
   * link.
   */
  sendMotion(samples) {
    if (this.state !== 'streaming' || this.stopWanted || this.finishWanted || !samples.length) return false;
    if (this.socket.buffered > HIGH_WATER_BYTES) return false;
    this.pump();
    this.socket.send({ type: 'motion', samples });
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
        this.state = 'streaming';
        this.emit('started', m);
        if (this.stopWanted || this.finishWanted) this.sendStop();
        return;
      case 'resumed':
        clearTimeout(this.timer);
        this.state = 'streaming';
        this.attempts = 0;
        this.log.rewind(m.t);
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

  /** Sends kept frames not yet sent on this connection, in order, while the socket is not backed up. */
  pump(all = false) {
    if (this.state !== 'streaming') return;
    while (!this.log.caughtUp && (all || this.socket.buffered < HIGH_WATER_BYTES)) {
      const frames = this.log.take(BATCH_FRAMES);
      if (this.binary) this.sendBinary(frames);
      else if (frames.length === 1) this.socket.send({ type: 'pose', ...frames[0] });
      else this.socket.send({ type: 'poses', frames });
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
