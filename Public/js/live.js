// The Live screen: choose an exercise, side, subject and pose source; stream poses over /v1/stream; show the
// server's snapshots and events (HUD, skeleton, chart, feedback) and the summary after Stop. A dropped
// connection is resumed by itself (stream.js), with a banner while it reconnects.

import { initPage, $, askForToken, errorStatus } from './common.js';
import { renderSummary, showStored } from './summary.js';
import { t, exerciseName, language, onLanguageChange } from './i18n.js';
import { exercises, checkToken, getExercise, getProgramme, listSessions, TOKEN_EVENT } from './api.js';
import { itemInstructions, itemName, prescriptionText } from './programme.js';
import { LiveStream } from './stream.js';
import { DemoSource, demoSpeed } from './demo.js';
import { SkeletonView } from './skeleton.js';
import { RealtimeChart, MotionChart } from './chart.js';
import { MotionSensor, requestMotionPermission } from './motion.js';
import { Hud, Feedback, motionText } from './hud.js';
import { measuredJoints, decodePose, loadFormats } from './joints.js';
import { parseRecording, createReplaySource, recordingText } from './replay.js';
import { SessionView, keepDescribed } from './sessionview.js';
import { fromShown, measurementRange, toShown, unitOf, unitSymbol } from './units.js';
import { errorPointers, errorText, fieldProblem } from './errors.js';
import { applyOptions, prescriptionProblems } from './prescription.js';

initPage();

const hud = new Hud($('hud'));
const feedback = new Feedback($('feedback-line'), $('feedback-log'));
const chart = new RealtimeChart($('chart'));
const motionChart = new MotionChart($('motion-chart'));
const stage = new SkeletonView($('stage-canvas'));
const overlay = new SkeletonView($('overlay'), { background: false });
const sessionView = new SessionView({ hud, chart, feedback, lines: $('chart-lines'), unit: $('chart-unit') });
// The chart in words beside it, for those who cannot see it (as on Watch).
keepDescribed(chart, $('chart-summary'));

let catalog = [];

// ---- A patient's programme item (patient.html opens `/?programme=…&item=…&source=camera|demo`) -------------------

const params = new URLSearchParams(location.search);
// {programme, item} once read; the page then shows only the item, its running view and its summary.
let patient = null;
const patientLink = params.get('programme') && params.get('item')
  ? { programme: params.get('programme'), item: params.get('item') } : null;

async function loadPatientItem() {
  const programme = await getProgramme(patientLink.programme);
  const item = programme.items.find((i) => i.item === patientLink.item);
  if (!item) throw Object.assign(new Error('unknownProgramme'), { status: 404, code: 'unknownProgramme' });
  patient = { programme, item };
  $('exercise').value = item.exercise;
  fillSides();
  if (item.side) $('side').value = item.side;
  document.body.classList.add('patient');
  $('patient-item').hidden = false;
  $('summary-link').dataset.i18n = 'patient.backList';
  // Back to the list in the language chosen here.
  const back = () => `patient.html?lang=${language()}`;
  $('patient-back').href = back();
  $('summary-link').href = back();
  onLanguageChange(() => { $('patient-back').href = back(); });
  showPatientItem();
}

function showPatientItem() {
  if (!patient) return;
  const ex = catalog.find((e) => e.id === patient.item.exercise);
  $('patient-name').textContent = itemName(patient.item, ex);
  $('patient-rx').textContent = prescriptionText(patient.item, ex);
  $('patient-instructions').textContent = itemInstructions(patient.item);
  $('summary-link').textContent = t('patient.backList');
}
onLanguageChange(showPatientItem);
let session = null; // {stream, source, exercise, id, stopping}
let statusKey = ['status.idle'];

/** Shows `key` (or several `[key, params]` parts, joined) in the status line, again on a language change. */
function setStatus(key, params, cls = '') {
  statusKey = [key, params, cls];
  const parts = Array.isArray(key) ? key : key ? [[key, params]] : [];
  $('status').textContent = parts.map(([k, p]) => t(k, p)).join(' ');
  $('status').className = 'status ' + cls;
}
onLanguageChange(() => {
  setStatus(...statusKey);
  fillExercises();
  sessionView.retranslate();
  if (lastSummary) renderLastSummary();
  if (refusal) showRefusal(refusal, { focus: false });
});

function remembered(key) {
  try { return localStorage.getItem(key) === '1'; } catch { return false; }
}

function remember(key, on) {
  try { localStorage.setItem(key, on ? '1' : '0'); } catch { /* storage may be unavailable */ }
}

// ---- Controls -------------------------------------------------------------------------------------------

function selectedExercise() { return catalog.find((e) => e.id === $('exercise').value); }

/** The catalog in two groups: the built-in exercises, then the tenant's own (docs/protocol.md §5.1). */
function fillExercises() {
  const select = $('exercise');
  const current = select.value || new URLSearchParams(location.search).get('exercise') || 'elbowFlexion';
  const group = (key, list) => {
    const g = document.createElement('optgroup');
    g.label = t(key);
    g.append(...list.map((e) => new Option(exerciseName(e), e.id)));
    return g;
  };
  const custom = catalog.filter((e) => e.builtin === false);
  const builtin = catalog.filter((e) => e.builtin !== false);
  select.replaceChildren(...(custom.length
    ? [group('group.builtin', builtin), group('group.custom', custom)]
    : builtin.map((e) => new Option(exerciseName(e), e.id))));
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
  showPrescriptionDefaults(ex);
  sessionView.setExercise(ex);
  const side = $('side').value || null;
  stage.setMeasured(measuredJoints(ex, side));
  // The figure at rest, from the exercise's demo (a newer choice supersedes an answer still on its way).
  const shown = (previewExercise.shown = `${ex.id}/${side}`);
  DemoSource.load(ex, side || 'right').then((demo) => {
    if (previewExercise.shown === shown && !session) stage.setPose(demo.poseAt(0));
  }, () => { /* the stage stays empty: the demo is unavailable (offline, or no access yet) */ });
}

function showSourceOptions() {
  const source = $('source').value;
  $('replay-box').hidden = source !== 'replay';
  $('camera-box').hidden = source !== 'camera';
}

$('exercise').addEventListener('change', fillSides);
$('side').addEventListener('change', previewExercise);
$('source').addEventListener('change', () => { showSourceOptions(); $('camera-message').hidden = true; });
// Voice and vibration are remembered; vibration is offered only where a phone can vibrate.
const VOICE_KEY = 'motion.voice';
const VIBRATE_KEY = 'motion.vibrate';
const canVibrate = typeof navigator.vibrate === 'function' && matchMedia('(pointer: coarse)').matches;
$('opt-vibrate').closest('label').hidden = !canVibrate;
$('opt-voice').closest('label').hidden = !('speechSynthesis' in window);
$('opt-voice').checked = feedback.voice = remembered(VOICE_KEY);
$('opt-vibrate').checked = feedback.vibrate = canVibrate && remembered(VIBRATE_KEY);
$('opt-voice').addEventListener('change', (e) => { feedback.voice = e.target.checked; remember(VOICE_KEY, e.target.checked); });
$('opt-vibrate').addEventListener('change', (e) => {
  feedback.vibrate = e.target.checked;
  remember(VIBRATE_KEY, e.target.checked);
});
// Mute: quiet for the rest of the session, the remembered choices left as they are.
function setMuted(muted) {
  feedback.muted = muted;
  $('mute').setAttribute('aria-pressed', String(muted));
  if (muted && 'speechSynthesis' in window) window.speechSynthesis.cancel();
}
$('mute').addEventListener('click', () => setMuted(!feedback.muted));
$('chart-reset').addEventListener('click', () => chart.reset());
$('use-demo').addEventListener('click', () => {
  $('source').value = 'demo';
  showSourceOptions();
  $('camera-message').hidden = true;
  $('start').focus();
});
// Or a recording: the Replay source with its file chooser, which takes the focus.
$('use-replay').addEventListener('click', () => {
  $('source').value = 'replay';
  showSourceOptions();
  $('camera-message').hidden = true;
  $('replay-file').focus();
});
$('subject').value = localStorage.getItem('motion.subject') || '';

// Binary pose frames (docs/protocol.md §3.2): `?binary=1` (or `0`) in the URL, else the remembered choice.
const BINARY_KEY = 'motion.binary';
function initialBinary() {
  const fromURL = new URLSearchParams(location.search).get('binary');
  if (fromURL === '1' || fromURL === '0') return fromURL === '1';
  return remembered(BINARY_KEY);
}
$('opt-binary').checked = initialBinary();
$('opt-binary').addEventListener('change', (e) => remember(BINARY_KEY, e.target.checked));

// The phone's motion sensors (docs/protocol.md §3.3): on by default on a touch screen, remembered; `?motion=1` (or `0`)
// in the URL for one visit. Asked for at Start, the tap iOS needs for its permission prompt.
const MOTION_KEY = 'motion.sensors';
function initialMotion() {
  const fromURL = new URLSearchParams(location.search).get('motion');
  if (fromURL === '1' || fromURL === '0') return fromURL === '1';
  try {
    const stored = localStorage.getItem(MOTION_KEY);
    if (stored != null) return stored === '1';
  } catch { /* storage may be unavailable */ }
  return matchMedia('(pointer: coarse)').matches;
}
$('opt-motion').checked = initialMotion();
$('opt-motion').closest('label').hidden = typeof window.DeviceMotionEvent === 'undefined';
$('opt-motion').addEventListener('change', (e) => remember(MOTION_KEY, e.target.checked));
let motionPermission = null;

function showMotionStatus(key) {
  $('motion-status').hidden = !key;
  $('motion-status').textContent = key ? t(key) : '';
  $('motion-status').dataset.key = key || '';
}

/**
 * The controls for where a session stands: `idle`, `starting` (asked for, the choices locked, nothing to control
 * yet) or `running` (the server's `started` came: Stop, Start over and Measure baseline work).
 */
function setRunning(state) {
  const locked = state !== 'idle';
  const running = state === 'running';
  for (const id of ['exercise', 'side', 'subject', 'source', 'replay-file', 'camera-swap', 'opt-binary', 'opt-motion']) {
    $(id).disabled = locked;
  }
  for (const input of $('prescription').querySelectorAll('input')) input.disabled = locked;
  $('start').disabled = locked;
  $('stop').disabled = !running;
  $('reset').disabled = !running;
  $('baseline').disabled = !running;
  $('mute').disabled = !running;
  // While a session runs the controls shrink to one line and the numbers and chart take the screen (app.css).
  $('main').classList.toggle('running', running);
  if (locked) $('main').classList.remove('ended');
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

// ---- Prescription (docs/protocol.md §5.1) ---------------------------------------------------------------------

const RX_FIELDS = [
  // [input id, option, label key, min, max, whole number]; the target's bounds are the exercise's (targetBounds).
  ['rx-target', 'target', 'rx.target', null, null, false],
  ['rx-hold', 'holdSeconds', 'rx.hold', 0.5, 3600, false],
  ['rx-reps', 'reps', 'rx.reps', 1, 1000, true],
  ['rx-sets', 'sets', 'rx.sets', 1, 100, true],
  ['rx-baseline', 'baselineReps', 'rx.baseline', 1, 100, true],
];

/** A number as a field shows it: in the exercise's unit as people read it (percent for segment lengths). */
const shownNumber = (value, unit) => String(Math.round(toShown(value, unit) * 1000) / 1000);

/**
 * The target's bounds as typed (in percent for segment lengths): what the exercise's measurement can read, else
 * the decoder's ±360 (docs/protocol.md §5.1).
 */
function targetBounds(ex) {
  const unit = unitOf(ex);
  const [min, max] = measurementRange(ex) ?? [-360, 360];
  return [Number(shownNumber(min, unit)), Number(shownNumber(max, unit))];
}

/** The exercise's own values as the fields' placeholders (an empty field keeps them); the target's unit. */
function showPrescriptionDefaults(ex) {
  const unit = unitOf(ex);
  $('rx-target').placeholder = ex.target != null ? shownNumber(ex.target, unit) : '';
  [$('rx-target').min, $('rx-target').max] = targetBounds(ex).map(String);
  $('rx-target-unit').textContent = ` (${unitSymbol(unit)})`;
  $('rx-hold').placeholder = ex.thresholds?.holdSeconds != null ? String(ex.thresholds.holdSeconds) : '';
  $('rx-hold-box').hidden = ex.kind !== 'hold';
  $('rx-baseline').placeholder = '3';
}

/** Marks `input` as the field at fault (or none) and says why beside the fields. */
function showPrescriptionError(input, message, { focus = true } = {}) {
  for (const [id] of RX_FIELDS) $(id).removeAttribute('aria-invalid');
  $('rx-error').hidden = !input;
  $('rx-error').textContent = message || '';
  if (!input) return;
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-errormessage', 'rx-error');
  if (focus) input.focus();
}

/**
 * The `start.options` of the filled fields, or null (the offending field marked) when one is out of range or the
 * exercise cannot take them as the server would say (prescription.js).
 */
function readPrescription(ex) {
  const options = {};
  for (const [id, option, label, fieldMin, fieldMax, whole] of RX_FIELDS) {
    const input = $(id);
    if (input.closest('[hidden]')) continue;
    const raw = input.value.trim();
    if (raw === '' && input.validity.valid) continue;
    const value = Number(raw);
    const [min, max] = option === 'target' ? targetBounds(ex) : [fieldMin, fieldMax];
    if (raw === '' || !Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
      showPrescriptionError(input, t(whole ? 'rx.badWhole' : 'rx.bad', { field: t(label), min, max }));
      return null;
    }
    // The target is typed as shown (percent for segment lengths) and sent in the exercise's unit.
    options[option] = option === 'target' ? fromShown(value, unitOf(ex)) : value;
  }
  if (options.sets != null && options.reps == null) {
    showPrescriptionError($('rx-reps'), t('rx.setsNeedReps'));
    return null;
  }
  if (ex.kind !== 'hold') delete options.holdSeconds;
  const problems = prescriptionProblems(applyOptions(ex, options));
  if (problems.length) {
    refusal = { pointers: problems, exercise: ex, options };
    showRefusal(refusal);
    return null;
  }
  showPrescriptionError(null);
  return options;
}

// ---- Sources --------------------------------------------------------------------------------------------

/** The server's simulated person as a source: its performance in a loop, each pose stamped with the demo's own
 * clock (faster than the wall's under `demoSpeed`, so a sped-up demo still moves at a person's pace). */
async function demoSource(ex, side) {
  const demo = await DemoSource.load(ex, side || 'right');
  const speed = demoSpeed();
  let timer = 0;
  return {
    format: 'joints',
    mirrored: false,
    begin(send, onPose) {
      const wall0 = performance.now();
      const tick = () => {
        const clock = ((performance.now() - wall0) / 1000) * speed;
        const frame = { ...demo.poseAt(clock), t: Math.round(clock * 1000) / 1000 };
        onPose(frame);
        send(frame);
      };
      tick();
      timer = setInterval(tick, 1000 / (30 * speed));
    },
    stop() { clearInterval(timer); },
  };
}

/** The chosen recording file, parsed; null (with the reason in the status line) when there is none to play. */
async function readRecording() {
  const file = $('replay-file').files[0];
  if (!file) { setStatus('status.noFile', null, 'bad'); return null; }
  const recording = parseRecording(await file.text());
  if (!recording.frames.length) { setStatus('status.badFile', null, 'bad'); return null; }
  return recording;
}

/** A recording plays as the exercise and side it was made with, whatever was selected before. */
function useRecordingExercise(start) {
  if (!start?.exercise || !catalog.some((e) => e.id === start.exercise)) return;
  $('exercise').value = start.exercise;
  fillSides();
  const side = start.side || '';
  if ([...$('side').options].some((o) => o.value === side)) $('side').value = side;
  previewExercise();
}

$('replay-file').addEventListener('change', async () => {
  if (!$('replay-file').files[0]) return;
  const recording = parseRecording(await $('replay-file').files[0].text());
  if (recording.frames.length) useRecordingExercise(recording.start);
  else setStatus('status.badFile', null, 'bad');
});

function prepareReplay(recording) {
  const progress = $('replay-progress');
  progress.value = 0;
  progress.hidden = false;
  return createReplaySource(recording, {
    onProgress: (share) => { progress.value = Math.round(share * 100); },
    onEnd: () => { setStatus('status.replayDone'); finishSession(); },
  });
}

async function prepareSource(kind, ex, side, recording) {
  if (kind === 'demo') {
    try {
      return await demoSource(ex, side);
    } catch (e) {
      // As any refused request: a missing or revoked access code opens the form.
      setStatus(...errorStatus(e), 'bad');
      askForToken(e);
      return null;
    }
  }
  if (kind === 'replay') return prepareReplay(recording);
  // Camera: loaded on demand, so the core pages never touch the CDN.
  setStatus('status.loadingCamera');
  try {
    const { createCameraSource } = await import('./camera.js');
    return await createCameraSource($('video'), { swap: $('camera-swap').checked });
  } catch (e) {
    const key = e?.kind === 'camera' ? 'camera.noCamera' : 'camera.failed';
    // A failed import names the whole CDN address: its host says enough, and fits a phone.
    const message = (e?.message || String(e)).replace(/https?:\/\/([^/\s]+)\S*/g, '$1');
    showCameraMessage(t(key, { message }));
    setStatus('status.idle');
    return null;
  }
}

// ---- Session --------------------------------------------------------------------------------------------

let lastSummary = null;

// A prescription refused, shown at the field it names: {error, exercise, options} when the server refused the
// `start`, {pointers, exercise, options} when the page found it unusable before sending it.
let refusal = null;

/** The prescription field of an option a refused `start` names (docs/protocol.md §3: pointers or `options.x`). */
const RX_OPTION_FIELDS = {
  target: 'rx-target', holdSeconds: 'rx-hold', reps: 'rx-reps', sets: 'rx-sets', baselineReps: 'rx-baseline',
};

/**
 * Says why a prescription is refused, in the page's language: at the prescription field the error (or the page's
 * own check) names, the target's for thresholds a prescribed target moved with it; else in the status line.
 */
function showRefusal({ error, pointers, exercise, options }, { focus = true } = {}) {
  const labels = {
    target: t('rx.target'), holdSeconds: t('rx.hold'), reps: t('rx.reps'), sets: t('rx.sets'),
    baselineReps: t('rx.baseline'), restPosition: t('error.restPosition'),
  };
  const named = (pointers ?? errorPointers(error)).map((pointer) => pointer.split('/').filter(Boolean).pop());
  const moved = options.target != null
    && named.some((name) => ['rest', 'enter', 'exit', 'minAmplitude'].includes(name));
  // The target first: thresholds refused after it are its consequences.
  const name = named.includes('target') || moved ? 'target'
    : named.find((n) => RX_OPTION_FIELDS[n] && !$(RX_OPTION_FIELDS[n]).closest('[hidden]'));
  if (!name) {
    setStatus('status.error', { get message() { return errorText(error ?? { code: 'invalidMessage' }); } }, 'bad');
    return;
  }
  // The definition as prescribed: what the field's explanation compares with.
  const applied = applyOptions(exercise, options);
  const pointer = name === 'target' ? '/target' : `/thresholds/${name}`;
  setStatus(null);
  showPrescriptionError($(RX_OPTION_FIELDS[name]), fieldProblem(pointer, applied, (n) => labels[n]), { focus });
}

/** The connection banner with `key`'s words ('resume.reconnecting', 'live.stalled'), or none. */
function showBanner(key) {
  const text = $('connection-banner-text');
  $('connection-banner').hidden = !key;
  if (!key || text.dataset.i18n === key) return;
  text.dataset.i18n = key;
  text.textContent = t(key);
}

// A server that keeps the connection open but stops answering: said after STALL_MS without a message.
const STALL_MS = 2000;

/** Shows or clears "connection stalled" for `s` from the time of its last answer (`s.answeredAt`). */
function watchForStall(s) {
  const check = () => {
    if (session !== s) { clearInterval(timer); return; }
    const stalled = s.id && !s.lost && !s.stopping && !s.finishing && performance.now() - s.answeredAt > STALL_MS;
    if (stalled) showBanner('live.stalled');
    else if ($('connection-banner-text').dataset.i18n === 'live.stalled') showBanner(null);
  };
  const timer = setInterval(check, STALL_MS / 4);
}

/** The status parts for a session that ended without its summary: what the server keeps of it. */
function keptParts(checkpoint) {
  return checkpoint == null ? [['resume.kept']] : [['resume.keptAt', { t: checkpoint.toFixed(1) }]];
}

const END_KEYS = {
  gaveUp: 'resume.gaveUp', stoppedOffline: 'resume.stoppedOffline', resumeExpired: 'resume.expired',
  invalidResume: 'resume.invalid',
};

function showEnd(s, e) {
  if (e.reason === 'stopped') {
    const m = lastSummary || {};
    setStatus('live.finished', { reps: m.repCount ?? 0, rejected: m.rejectedCount ?? 0 }, 'good');
  } else if (e.reason === 'closed' && !s.id) {
    // Refused before it started: most often the access code. Ask the server which.
    setStatus('status.unreachable', { code: e.code ?? '–' }, 'bad');
    checkToken().then((result) => {
      if (result !== 'rejected') return;
      setStatus(...errorStatus({ status: 401 }), 'bad');
      askForToken(null, { force: true });
    });
  } else if (e.reason === 'closed' && e.code !== 1000) {
    setStatus([['status.lost', { code: e.code ?? '–' }], ...keptParts(e.checkpoint)], null, 'bad');
  } else if (e.reason === 'closed') {
    setStatus('status.closed', { code: e.code ?? '–' });
  } else if (e.reason === 'takenOver') {
    setStatus('resume.takenOver', null, 'bad');
  } else if (e.reason === 'unknownSession') {
    setStatus('resume.unknownSession', { id: s.id }, 'bad');
  } else {
    const seconds = s.stream.windowMs / 1000;
    setStatus([[END_KEYS[e.reason] || 'resume.ended', { seconds }], ...keptParts(e.checkpoint)], null, 'bad');
  }
}

/** The exercise as the server has it now (`GET /v1/exercises/{id}`), else as the catalog had it. */
async function currentDefinition(ex) {
  try {
    return await getExercise(ex.id);
  } catch {
    return ex;
  }
}

// A Start being prepared (the recording read, the definition fetched): a second tap meanwhile does nothing.
let preparing = false;

async function startSession() {
  if (session || preparing) return;
  preparing = true;
  try {
    await openSession();
  } finally {
    preparing = false;
  }
}

async function openSession() {
  const kind = $('source').value;
  let recording = null;
  if (kind === 'replay') {
    recording = await readRecording();
    if (!recording) return;
    useRecordingExercise(recording.start);
  }
  if (!selectedExercise()) return;
  // The prescription is checked against the definition the server will count with, which may have changed since
  // the catalog was read.
  const ex = await currentDefinition(selectedExercise());
  refusal = null;
  // A patient's item (patient.html) runs as the programme prescribes it: nothing to read from the form.
  const prescription = patient ? { ...patient.item.prescription } : readPrescription(ex);
  if (!prescription) return;
  const side = patient ? patient.item.side ?? null : $('side').value || null;
  const subject = patient ? '' : $('subject').value.trim();
  if (!patient) localStorage.setItem('motion.subject', subject);
  $('camera-message').hidden = true;
  $('replay-progress').hidden = true;
  $('save-recording').hidden = true;
  setRunning('starting');
  const source = await prepareSource(kind, ex, side, recording);
  if (!source) { setRunning('idle'); return; }
  useStage(kind === 'camera');
  lastSummary = null;
  $('summary').hidden = true;
  showBanner(null);
  const view = kind === 'camera' ? overlay : stage;
  motionChart.reset();
  $('motion-panel').hidden = true;
  $('motion-level').textContent = '';
  showMotionStatus(null);
  const permission = motionPermission;
  motionPermission = null;
  sessionView.skeleton = view;
  setMuted(false);
  $('mute').hidden = !feedback.voice && !feedback.vibrate;
  offerFinish(false);
  sessionView.clear();
  sessionView.setExercise(ex);
  view.clear();
  view.setMeasured(measuredJoints(ex, side));
  setStatus('status.connecting');

  const start = patient
    // The server runs the item's exercise, side, prescription and subject (docs/programmes.md).
    ? { type: 'start', programme: { id: patient.programme.id, item: patient.item.item }, format: source.format,
      mirrored: source.mirrored, options: { snapshots: 'every' } }
    : { type: 'start', exercise: ex.id, format: source.format, mirrored: source.mirrored,
      options: { ...prescription, snapshots: 'every' } };
  if (side && !patient) start.side = side;
  if (subject) start.subject = subject;
  if (source.normalized) start.normalized = true;
  if (source.minConfidence != null) start.minConfidence = source.minConfidence;
  // The simulated person is no patient: its sessions stay out of adherence and progress (docs/protocol.md §5.3).
  if (kind === 'demo') start.demo = true;
  const format = source.format;
  const normalized = source.normalized;

  const stream = new LiveStream(start, { binary: $('opt-binary').checked });
  // seenT: the latest pose time answered so far. After a resume from an older checkpoint (a server that
  // crashed) the server answers again for poses it had answered before: those events are not shown twice.
  // What was streamed, to be saved as a recording after the session (the start line's fields, then the frames).
  const recorded = { start: { exercise: ex.id, side, format, mirrored: source.mirrored }, frames: [] };
  if (normalized) recorded.start.normalized = true;
  if (source.minConfidence != null) recorded.start.minConfidence = source.minConfidence;
  const s = { stream, source, exercise: ex, recorded, id: null, stopping: false, finishing: false, lastT: 0,
    t0: performance.now(), seenT: -Infinity, repeatUntil: -Infinity };
  session = s;

  stream.on('started', (m) => {
    s.id = m.session;
    s.answeredAt = performance.now();
    watchForStall(s);
    const focusStop = [$('start'), document.body].includes(document.activeElement);
    setRunning('running');
    if (focusStop) $('stop').focus();
    // `started` carries the exercise as prescribed: its target and thresholds are the ones the server counts with.
    if (m.exercise) sessionView.setExercise({ ...ex, ...m.exercise });
    // Named again in the new language on a switch.
    const names = { get exercise() { return exerciseName(ex); }, subject };
    setStatus(subject ? 'status.started' : 'status.startedAnonymous', names, 'good');
    $('status').dataset.session = m.session;
    startMotion(s, permission);
    source.begin((frame) => {
      if (s.stopping || s.finishing) return;
      // Keep time strictly increasing (docs/protocol.md §2); replays carry their own clock.
      let tt = kind === 'replay' || kind === 'demo' ? frame.t : Math.round((performance.now() - s.t0)) / 1000;
      if (tt <= s.lastT) tt = s.lastT + 0.001;
      s.lastT = tt;
      const sent = { ...frame, t: tt };
      if (s.recorded.frames.length < MAX_RECORDED_FRAMES) s.recorded.frames.push(sent);
      stream.send(sent);
    }, (frame) => {
      const decoded = kind === 'demo' ? frame : decodePose(frame, format, normalized);
      if (decoded) view.setPose(decoded);
    });
  });
  stream.on('snapshot', (m) => {
    s.answeredAt = performance.now();
    sessionView.snapshot(m);
    offerFinish(Boolean(m.set?.complete));
    if (m.motion) showMotionLevel(m.motion);
    s.seenT = Math.max(s.seenT, m.t);
  });
  stream.on('event', (m) => {
    s.answeredAt = performance.now();
    if (m.t <= s.repeatUntil) return;
    s.seenT = Math.max(s.seenT, m.t);
    sessionView.event(m);
    if (m.event === 'setCompleted') restAfterSet(s, m.set, prescription);
  });
  stream.on('error', (m) => {
    // Refused before it started (a prescription the exercise cannot take): nothing runs; said at the field.
    if (!s.id) {
      s.refused = m;
      stream.close();
      return;
    }
    setStatus('status.error', { get message() { return errorText(m); } }, 'bad');
  });
  stream.on('summary', (m) => {
    lastSummary = m;
    lastExercise = sessionView.exercise;
    lastPrevious = undefined;
    showSummary(m);
    previousSession(m).then((previous) => {
      if (lastSummary !== m) return;
      lastPrevious = previous;
      renderLastSummary();
    });
  });
  stream.on('lost', () => {
    if (s.stopping) return;
    s.lost = true;
    showBanner('resume.reconnecting');
    setStatus('resume.keeping');
  });
  stream.on('resumed', (m) => {
    s.repeatUntil = s.seenT;
    s.lost = false;
    s.answeredAt = performance.now();
    showBanner(null);
    setStatus('resume.resumed', null, 'good');
  });
  stream.on('end', (e) => {
    showRest(null);
    source.stop();
    s.motion?.stop();
    showBanner(null);
    if (session === s) session = null;
    offerFinish(false);
    const hadFocus = document.activeElement === $('stop');
    setRunning('idle');
    if (s.refused) {
      previewExercise();
      // Explained from the definition as the server has it now: it may have changed since it was read.
      currentDefinition(s.exercise).then((current) => {
        if (session) return;
        refusal = { error: s.refused, exercise: current, options: prescription };
        showRefusal(refusal);
      });
      return;
    }
    // What was live is now the past: dimmed, with the summary brought into view.
    $('main').classList.add('ended');
    offerRecording(s);
    showEnd(s, e);
    if (lastSummary) showStored(e.reason === 'stopped' ? 'stored' : 'notStored');
    if (lastSummary) {
      $('summary').scrollIntoView({ block: 'start', behavior: 'instant' });
      $('summary-heading').focus({ preventScroll: true });
    } else if (hadFocus) {
      $('start').focus();
    }
  });
  stream.open();
}

/**
 * Streams the phone's motion samples beside the poses once permission is known (`permission`: the promise asked for
 * at Start, or null when the option is off), on the session's clock, and draws them as they come.
 */
function startMotion(s, permission) {
  if (!permission) return;
  permission.then((answer) => {
    if (session !== s || s.stopping || s.finishing) return;
    if (answer !== 'granted') { showMotionStatus(answer === 'denied' ? 'motion.denied' : 'motion.unavailable'); return; }
    showMotionStatus('motion.waiting');
    // Its place is taken now, not with the first sample: on a phone the strip under the angle chart (app.css)
    // would otherwise move the page once the session runs.
    $('motion-panel').hidden = false;
    s.motion = new MotionSensor({
      clock: () => Math.round(performance.now() - s.t0) / 1000,
      send: (samples) => s.stream.sendMotion(samples),
      onSample: (sample) => {
        if ($('motion-status').dataset.key) showMotionStatus(null);
        motionChart.push(sample);
      },
    });
    s.motion.start();
  });
}

/** `snapshot.motion` beside the motion chart: how much the phone moves and the share of it that is tremor. */
function showMotionLevel(level) {
  $('motion-level').textContent = motionText(level);
}

/** The person's Stop: works while reconnecting too (the session then ends here, kept up to its checkpoint). */
function stopSession() {
  const s = session;
  if (!s || s.stopping) return;
  s.motion?.stop();
  s.stopping = true;
  s.source.stop();
  showBanner(null);
  setStatus('status.stopping');
  s.stream.stop();
}

/** The source has no more frames (a replay's end): stop once they are all sent, after a resume if need be. */
function finishSession() {
  const s = session;
  if (!s || s.stopping || s.finishing) return;
  s.motion?.stop();
  s.finishing = true;
  s.source.stop();
  s.stream.finish();
}

// Twenty minutes at 30 poses/s (about 15 MB of JSON): a longer session keeps its first twenty minutes.
const MAX_RECORDED_FRAMES = 20 * 60 * 30;
let recordingURL = null;

/** Offers what the session streamed as a recording file that the Replay source plays again. */
function offerRecording(s) {
  const link = $('save-recording');
  if (recordingURL) URL.revokeObjectURL(recordingURL);
  recordingURL = null;
  link.hidden = Boolean(patient) || !s.recorded.frames.length;
  if (link.hidden) return;
  const text = recordingText(s.recorded.start, s.recorded.frames);
  recordingURL = URL.createObjectURL(new Blob([text], { type: 'application/x-ndjson' }));
  link.href = recordingURL;
  const day = new Date().toISOString().slice(0, 10);
  const name = [$('subject').value.trim(), s.exercise.id, day].filter(Boolean).join('_').replace(/[^\w.-]+/g, '-');
  link.setAttribute('download', `${name}.jsonl`);
}

// The exercise the last summary's session ran (as prescribed): its values' unit.
let lastExercise = null;
// The subject's session of that exercise before it (null: none; undefined: not known yet).
let lastPrevious;

/**
 * Once the prescribed goal is met, Stop becomes Finish (the session is done, not cut short) and the status line
 * says so; the same place, so nothing on the screen moves.
 */
function offerFinish(met) {
  const stop = $('stop');
  const key = met ? 'btn.finish' : 'btn.stop';
  if (stop.dataset.i18n === key) return;
  stop.dataset.i18n = key;
  stop.textContent = t(key);
  stop.classList.toggle('primary', met);
  stop.classList.toggle('danger', !met);
  if (met) setStatus('live.goalMet', null, 'good');
  // The patient's session ends itself once the goal is met, a moment after the last rep was said.
  if (met && patient && session && !session.stopping) {
    const s = session;
    setTimeout(() => { if (session === s) stopSession(); }, FINISH_AFTER_MS);
  }
}

const FINISH_AFTER_MS = 2500;

// ---- Rest between sets -------------------------------------------------------------------------------------

let restTimer = null;

/** The rest the prescription gives (`restSeconds`) counted down after every set but the last. */
function restAfterSet(s, number, prescription) {
  const rest = prescription?.restSeconds;
  const sets = prescription?.sets ?? 1;
  if (!rest || number >= sets) return;
  const ends = performance.now() + rest * 1000;
  const tick = () => {
    if (session !== s) { showRest(null); return; }
    const left = Math.ceil((ends - performance.now()) / 1000);
    if (left <= 0) { showRest('live.restOver', { next: number + 1 }); return; }
    showRest('live.rest', { seconds: left, next: number + 1 });
    restTimer = setTimeout(tick, 250);
  };
  clearTimeout(restTimer);
  tick();
}

function showRest(key, params) {
  if (!key) clearTimeout(restTimer);
  $('rest').hidden = !key;
  $('rest').textContent = key ? t(key, params) : '';
}

/** The subject's latest finished session of the same exercise before `m`, null when there is none (or no subject). */
async function previousSession(m) {
  if (!m.subject) return null;
  try {
    const page = await listSessions({ subject: m.subject, exercise: m.exercise, status: 'finished', limit: 2 });
    return page.sessions.find((s) => s.id !== m.id) ?? null;
  } catch {
    return null;
  }
}

function renderLastSummary() {
  renderSummary(lastSummary, $('summary-stats'), { exercise: lastExercise, previous: lastPrevious });
  if (patient) showPatientResult(lastSummary);
}

/** Whether the patient did what was prescribed, said first in the summary. */
function showPatientResult(m) {
  const met = m.goal ? m.goal.met : m.status === 'finished';
  const p = $('patient-result');
  p.hidden = false;
  p.className = met ? 'patient-result good' : 'patient-result';
  p.textContent = t(met ? 'patient.done' : 'patient.notDone', m.goal ?? {});
}

function showSummary(m) {
  renderLastSummary();
  $('summary-link').href = patient ? `patient.html?lang=${language()}` : `history.html?session=${encodeURIComponent(m.id)}`;
  showStored('saving');
  $('summary').hidden = false;
}

$('controls').addEventListener('submit', (e) => {
  e.preventDefault();
  // iOS speaks only from inside a tap: start speech now, with nothing to say (for a patient's item whatever the
  // remembered voice option, as this tap is the only one its page gets).
  if ((feedback.voice || patient) && 'speechSynthesis' in window) {
    try { window.speechSynthesis.speak(new SpeechSynthesisUtterance('')); } catch { /* speech is best effort */ }
  }
  // iOS asks for motion permission only from inside a tap: ask now, before anything awaits.
  motionPermission = !session && $('opt-motion').checked ? requestMotionPermission() : null;
  startSession().catch((err) => { setStatus(...errorStatus(err), 'bad'); setRunning('idle'); });
});
$('stop').addEventListener('click', stopSession);
$('reset').addEventListener('click', () => {
  if (session?.stream.control('reset')) {
    hud.clear();
    setStatus('live.resetSent', null, 'good');
  }
});
$('baseline').addEventListener('click', () => {
  if (session?.stream.control('baseline')) setStatus('live.baselineSent', null, 'good');
});
window.addEventListener('pagehide', () => session?.stream.close());

// ---- Drawing at display rate ----------------------------------------------------------------------------

function frame() {
  stage.draw();
  if (!$('overlay').hidden) overlay.draw();
  chart.draw();
  if (!$('motion-panel').hidden) motionChart.draw();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ---- Start-up -------------------------------------------------------------------------------------------

if (params.get('source')) $('source').value = params.get('source');
showSourceOptions();
setStatus('status.idle');
function loadCatalog(reload = false) {
  // The format maps first: a session must not start before its poses can be drawn and encoded.
  Promise.all([exercises({ reload }), loadFormats({ reload })]).then(([list]) => {
    catalog = list;
    fillExercises();
    if (reload && !session) setStatus('status.idle');
    return patientLink && !patient ? loadPatientItem() : null;
  }).then(() => {
    document.body.dataset.ready = 'true';
    // A patient's item waits for one tap on its large Start, on this page: iOS lets a page speak and read the
    // motion sensors only from inside a tap of its own (the submit handler below), not one on the list before.
    if (patient && !reload && !session) {
      setStatus('patient.tapToStart');
      $('start').focus();
    }
  }).catch((e) => { setStatus(...errorStatus(e), 'bad'); askForToken(e); });
}
loadCatalog();
window.addEventListener(TOKEN_EVENT, () => loadCatalog(true));
