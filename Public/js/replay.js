// The Replay pose source: a recorded file of poses in JSON Lines (one docs/protocol.md pose per line, with or
// without `"type":"pose"`; `poses` batches are flattened; an optional first `start` line gives the format),
// streamed at the pace of its own timestamps. Live saves what it streamed in this format (`recordingText`).

export function parseRecording(text) {
  const frames = [];
  let start = null;
  const trimmed = text.trim();
  // A whole-file JSON array or {"frames": […]} is accepted too.
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && trimmed.indexOf('\n') < 0 && trimmed.includes('"frames"'))) {
    try {
      const whole = JSON.parse(trimmed);
      const list = Array.isArray(whole) ? whole : whole.frames || [];
      for (const f of list) if (f && typeof f.t === 'number') frames.push(f);
      return { start, frames };
    } catch { /* fall back to lines */ }
  }
  for (const line of text.split(/\r?\n/)) {
    const s = line.trim();
    if (!s) continue;
    let m;
    try { m = JSON.parse(s); } catch { continue; }
    if (!m || typeof m !== 'object') continue;
    if (m.type === 'start') { start = m; continue; }
    if (m.type === 'poses' && Array.isArray(m.frames)) {
      for (const f of m.frames) if (f && typeof f.t === 'number') frames.push(f);
      continue;
    }
    if ((m.type === undefined || m.type === 'pose') && typeof m.t === 'number') {
      const { type, ...frame } = m;
      frames.push(frame);
    }
  }
  return { start, frames };
}

/**
 * A recording in the format `parseRecording` reads: a `start` line (exercise, side, format and what else the
 * session was started with), then one pose per line.
 */
export function recordingText(start, frames) {
  const lines = [JSON.stringify({ type: 'start', ...start })];
  for (const frame of frames) lines.push(JSON.stringify(frame));
  return lines.join('\n') + '\n';
}

/**
 * A source that sends `frames` at their own pace; calls `onProgress` with the share sent (0…1) as it goes and
 * `onEnd` after the last one.
 */
export function createReplaySource(recording, { onEnd, onProgress } = {}) {
  const frames = recording.frames;
  const start = recording.start || {};
  let timer = 0;
  let running = false;
  return {
    format: start.format || 'joints',
    mirrored: !!start.mirrored,
    normalized: !!start.normalized,
    minConfidence: start.minConfidence,
    begin(send, onPose) {
      running = true;
      const t0 = frames[0].t;
      const wall0 = performance.now();
      let i = 0;
      const tick = () => {
        if (!running) return;
        const elapsed = (performance.now() - wall0) / 1000;
        while (i < frames.length && frames[i].t - t0 <= elapsed) {
          onPose(frames[i]);
          send(frames[i]);
          i++;
        }
        onProgress?.(i / frames.length);
        if (i >= frames.length) {
          running = false;
          onEnd?.();
          return;
        }
        const wait = Math.max(0, (frames[i].t - t0 - elapsed) * 1000);
        timer = setTimeout(tick, Math.min(wait, 100));
      };
      tick();
    },
    stop() {
      running = false;
      clearTimeout(timer);
    },
  };
}
