// The Live screen: choose an exercise, side, subject and pose source; stream poses over /v1/stream; show the
// server's snapshots and events (HUD, skeleton, chart, feedback) and the summary after Stop.

import { initPage, $, askForToken } from './common.js';
import { renderSummary } from './summary.js';
import { t, exerciseName, onLanguageChange } from './i18n.js';
import { exercises, MessageSocket } from './api.js';
import { DemoSource } from './demo.js';
import { SkeletonView } from './skeleton.js';
import { RealtimeChart } from './chart.js';
import { Hud, Feedback } from './hud.js';
import { measuredJoints, decodePose } from './joints.js';
import { parseRecording, createReplaySource } from './replay.js';

initPage();

const hud = new Hud($('hud'));
const feedback = new Feedback($('feedback-line'), $('feedback-log'));
const chart = new RealtimeChart($('chart'));
const stage = new SkeletonView($('stage-canvas'));
const overlay = new SkeletonView($('overlay'), { background: false });

let catalog = [];
let session = null; // {socket, source, exercise, id, stopping}
let statusKey = ['status.idle'];

function setStatus(key, params, cls = '') {
  statusKey = [key, params];
  $('status').textContent = t(key, params);
  $('status').className = 'status ' + cls;
}
onLanguageChange(() => {
  setStatus(...statusKey);
  fillExercises();
  if (lastSummary) showSummary(lastSummary);
});

// ---- Controls -------------------------------------------------------------------------------------------

function selectedExercise() { return catalog.find((e) => e.id === $('exercise').value); }

function fillExercises() {
  const select = $('exercise');
  const current = select.value || new URLSearchParams(location.search).get('exercise') || 'elbowFlexion';
  select.replaceChildren(...catalog.map((e) => new Option(exerciseName(e), e.id)));
  if (catalog.some((e) => e.id === current)) select.value = current;
  fillSides();
}

function fillSides() {
  const ex = selectedExercise();
  const select = $('side');
  const current = select.value;
  const options = [new Option(t('side.right'), 'right'), new Option(t('side.left'), 'left')];
  if (ex?.sidedness === 'bilateral') options.unshift(new Option(t('side.both'), ''));
  select.replaceChildren(...options);
  if ([...select.options].some((o) => o.value === current) && !(ex?.sidedness === 'bilateral' && current === 'right')) {
    select.value = current;
  } else {
    select.value = ex?.sidedness === 'bilateral' ? '' : 'right';
  }
  previewExercise();
}

function previewExercise() {
  const ex = selectedExercise();
  if (!ex || session) return;
  hud.setExercise(ex);
  chart.setLines({ target: ex.target, enter: ex.thresholds.enter, exit: ex.thresholds.exit });
  const side = $('side').value || null;
  stage.setMeasured(measuredJoints(ex, side));
  stage.setPose(new DemoSource(ex, side || 'right', { noise: 0 }).poseAt(0));
}

function showSourceOptions() {
  const source = $('source').value;
  $('replay-box').hidden = source !== 'replay';
  $('camera-box').hidden = source !== 'camera';
}

$('exercise').addEventListener('change', fillSides);
$('side').addEventListener('change', previewExercise);
$('source').addEventListener('change', () => { showSourceOptions(); $('camera-message').hidden = true; });
$('opt-voice').addEventListener('change', (e) => { feedback.voice = e.target.checked; });
$('opt-vibrate').addEventListener('change', (e) => { feedback.vibrate = e.target.checked; });
$('chart-reset').addEventListener('click', () => chart.reset());
$('use-demo').addEventListener('click', () => {
  $('source').value = 'demo';
  showSourceOptions();
  $('camera-message').hidden = true;
  $('start').focus();
});
$('subject').value = localStorage.getItem('motion.subject') || '';

function setRunning(running) {
  for (const id of ['exercise', 'side', 'subject', 'source', 'replay-file', 'camera-swap']) $(id).disabled = running;
  $('start').disabled = running;
  $('stop').disabled = !running;
}

function showCameraMessage(text) {
  $('camera-message-text').textContent = text;
  $('camera-message').hidden = false;
  $('use-demo').focus();
}

function useStage(camera) {
  $('stage-canvas').hidden = camera;
  $('video').hidden = !camera;
  $('overlay').hidden = !camera;
  $('stage').classList.toggle('mirror', camera);
}

// ---- Sources --------------------------------------------------------------------------------------------

function demoSource(ex, side) {
  const demo = new DemoSource(ex, side || 'right');
  let timer = 0;
  return {
    format: 'joints',
    mirrored: false,
    begin(send, onPose) {
      const wall0 = performance.now();
      const tick = () => {
        const frame = demo.poseAt((performance.now() - wall0) / 1000);
        onPose(frame);
        send(frame);
      };
      tick();
      timer = setInterval(tick, 1000 / 30);
    },
    stop() { clearInterval(timer); },
  };
}

async function prepareSource(kind, ex, side) {
  if (kind === 'demo') return demoSource(ex, side);
  if (kind === 'replay') {
    const file = $('replay-file').files[0];
    if (!file) { setStatus('status.noFile', null, 'bad'); return null; }
    const recording = parseRecording(await file.text());
    if (!recording.frames.length) { setStatus('status.badFile', null, 'bad'); return null; }
    return createReplaySource(recording, {
      onEnd: () => { setStatus('status.replayDone'); stopSession(); },
    });
  }
  // Camera: loaded on demand, so the core pages never touch the CDN.
  setStatus('status.loadingCamera');
  try {
    const { createCameraSource } = await import('./camera.js');
    return await createCameraSource($('video'), { swap: $('camera-swap').checked });
  } catch (e) {
    const key = e?.kind === 'camera' ? 'camera.noCamera' : 'camera.failed';
    showCameraMessage(t(key, { message: e?.message || String(e) }));
    setStatus('status.idle');
    return null;
  }
}

// ---- Session --------------------------------------------------------------------------------------------

let lastSummary = null;

async function startSession() {
  if (session) return;
  const ex = selectedExercise();
  if (!ex) return;
  const side = $('side').value || null;
  const kind = $('source').value;
  const subject = $('subject').value.trim();
  localStorage.setItem('motion.subject', subject);
  $('camera-message').hidden = true;
  setRunning(true);
  const source = await prepareSource(kind, ex, side);
  if (!source) { setRunning(false); return; }
  useStage(kind === 'camera');
  lastSummary = null;
  $('summary').hidden = true;
  hud.clear();
  hud.setExercise(ex);
  feedback.clear();
  chart.reset();
  chart.setLines({ target: ex.target, enter: ex.thresholds.enter, exit: ex.thresholds.exit });
  const view = kind === 'camera' ? overlay : stage;
  view.clear();
  view.setMeasured(measuredJoints(ex, side));
  setStatus('status.connecting');

  const socket = new MessageSocket('/v1/stream');
  const s = { socket, source, exercise: ex, id: null, stopping: false, ended: false, lastT: 0, t0: performance.now() };
  session = s;
  const start = { type: 'start', exercise: ex.id, format: source.format, mirrored: source.mirrored,
    options: { snapshots: 'every' } };
  if (side) start.side = side;
  if (subject) start.subject = subject;
  if (source.normalized) start.normalized = true;
  if (source.minConfidence != null) start.minConfidence = source.minConfidence;
  const format = source.format;
  const normalized = source.normalized;

  socket.opened.then(() => socket.send(start), () => {});
  socket.on('started', (m) => {
    s.id = m.session;
    if (m.exercise) hud.setExercise({ ...ex, ...m.exercise });
    setStatus('status.started', { id: m.session }, 'good');
    $('status').dataset.session = m.session;
    source.begin((frame) => {
      if (s.stopping || !socket.isOpen) return;
      // Keep time strictly increasing (PROTOCOL.md §2); replays carry their own clock.
      let tt = kind === 'replay' ? frame.t : Math.round((performance.now() - s.t0)) / 1000;
      if (tt <= s.lastT) tt = s.lastT + 0.001;
      s.lastT = tt;
      if (socket.buffered > 256 * 1024) return; // a slow link: skip frames rather than queue them
      socket.send({ type: 'pose', ...frame, t: tt });
    }, (frame) => {
      const decoded = kind === 'demo' ? frame : decodePose(frame, format, normalized);
      if (decoded) view.setPose(decoded);
    });
  });
  socket.on('snapshot', (m) => {
    hud.update(m);
    chart.push(m.t, m.value);
    view.setMissing(m.isVisible === false ? [...view.measured] : m.missingJoints);
  });
  socket.on('event', (m) => {
    feedback.push(m);
    if (m.rep && (m.event === 'repCompleted' || m.event === 'repRejected')) {
      chart.markRep(m.t, m.event === 'repCompleted');
      hud.showRep(m.rep);
    }
  });
  socket.on('error', (m) => setStatus('status.error', { message: `${m.code}: ${m.message}` }, 'bad'));
  socket.on('summary', (m) => {
    lastSummary = m;
    showSummary(m);
  });
  socket.on('close', (e) => {
    source.stop();
    s.ended = true;
    if (session === s) session = null;
    setRunning(false);
    if (lastSummary && e.code === 1000) setStatus('summary.heading', null, 'good');
    else setStatus('status.closed', { code: e.code }, e.code === 1000 ? '' : 'bad');
  });
}

function stopSession() {
  const s = session;
  if (!s || s.stopping) return;
  s.stopping = true;
  s.source.stop();
  setStatus('status.stopping');
  if (s.socket.isOpen && s.id) s.socket.send({ type: 'stop' });
  else s.socket.close();
}

function showSummary(m) {
  renderSummary(m, $('summary-stats'));
  $('summary-link').href = `history.html?session=${encodeURIComponent(m.id)}`;
  $('summary').hidden = false;
}

$('controls').addEventListener('submit', (e) => {
  e.preventDefault();
  startSession().catch((err) => { setStatus('status.error', { message: err.message }, 'bad'); setRunning(false); });
});
$('stop').addEventListener('click', stopSession);
window.addEventListener('pagehide', () => session?.socket.close());

// ---- Drawing at display rate ----------------------------------------------------------------------------

function frame() {
  stage.draw();
  if (!$('overlay').hidden) overlay.draw();
  chart.draw();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ---- Start-up -------------------------------------------------------------------------------------------

const params = new URLSearchParams(location.search);
if (params.get('source')) $('source').value = params.get('source');
showSourceOptions();
setStatus('status.idle');
exercises().then((list) => {
  catalog = list;
  fillExercises();
  document.body.dataset.ready = 'true';
}).catch((e) => { setStatus('status.error', { message: e.message }, 'bad'); askForToken(e); });
