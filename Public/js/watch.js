// Watch: a clinician's read-only live view of someone else's session through
// /v1/sessions/{id}/watch?poses=1&motion=1 — the patient's skeleton live beside the same HUD, chart and feedback as
// Live (one SessionView binding), with the session's prescription and set progress, and the patient's phone motion
// when the phone sends it, without controls. The chart has a text equivalent: the latest value
// and the range it shows, in words, renewed every few seconds.

import { initPage, $, askForToken, errorStatus } from './common.js';
import { t, sessionExerciseName, onLanguageChange } from './i18n.js';
import { getSession, listSessions, sessionExercise, MessageSocket, TOKEN_EVENT } from './api.js';
import { RealtimeChart, MotionChart } from './chart.js';
import { Hud, Feedback, motionText } from './hud.js';
import { renderSummary, showStored } from './summary.js';
import { SessionView, prescribed, keepDescribed } from './sessionview.js';
import { SkeletonView } from './skeleton.js';
import { measuredJoints } from './joints.js';

initPage();

const params = new URLSearchParams(location.search);
const sessionID = params.get('session');
let statusArgs = [null];

function setStatus(key, vars, cls = '') {
  statusArgs = [key, vars, cls];
  $('status').textContent = key ? t(key, vars) : '';
  $('status').className = 'status ' + cls;
}
onLanguageChange(() => setStatus(...statusArgs));

async function showLiveSessions() {
  try {
    const { sessions } = await listSessions({ status: 'live', limit: 20 });
    // Each named in the page's language, a deleted exercise's by the version the session runs.
    const definitions = await Promise.all(sessions.map(sessionExercise));
    const box = $('live-sessions');
    box.hidden = false;
    if (statusArgs[0] === 'status.error' || statusArgs[0]?.startsWith('token.')) setStatus(null);
    if (!sessions.length) {
      $('live-list').replaceChildren(Object.assign(document.createElement('li'), { textContent: t('watch.none') }));
      return;
    }
    $('live-list').replaceChildren(...sessions.map((s, i) => {
      const li = document.createElement('li');
      const a = document.createElement('a');
      a.href = `watch.html?session=${encodeURIComponent(s.id)}`;
      a.textContent = `${s.subject || s.id} — ${sessionExerciseName(definitions[i] ?? s.exercise, s.side)}`;
      li.append(a);
      return li;
    }));
  } catch (e) {
    setStatus(...errorStatus(e), 'bad');
    askForToken(e);
  }
}

$('pick').addEventListener('submit', (e) => {
  e.preventDefault();
  const id = $('session-id').value.trim();
  if (id) location.href = `watch.html?session=${encodeURIComponent(id)}`;
});

async function follow(id) {
  $('session-id').value = id;
  $('watch-layout').hidden = false;
  const hud = new Hud($('hud'));
  const feedback = new Feedback($('feedback-line'), $('feedback-log'));
  const chart = new RealtimeChart($('chart'));
  const motionChart = new MotionChart($('motion-chart'));
  const skeleton = new SkeletonView($('watch-skeleton'));
  const view = new SessionView({ hud, chart, feedback, lines: $('chart-lines'), unit: $('chart-unit'), skeleton });
  onLanguageChange(() => view.retranslate());
  keepDescribed(chart, $('chart-summary'));
  const draw = () => {
    chart.draw();
    skeleton.draw();
    if (!$('motion-panel').hidden) motionChart.draw();
    requestAnimationFrame(draw);
  };
  requestAnimationFrame(draw);
  let info = null;
  let ex = null;
  try {
    info = await getSession(id);
    // The definition the session runs (its version, even of an exercise deleted since): its name and unit.
    ex = await sessionExercise(info);
    // The session's own prescription (target, thresholds, goals), not the catalog's defaults.
    if (ex) view.setExercise(prescribed(ex, info.prescription));
    if (ex) skeleton.setMeasured(measuredJoints(ex, info.side));
    const name = ex ?? info.exercise;
    setStatus('watch.following', {
      id, subject: info.subject || '–', get exercise() { return sessionExerciseName(name, info.side); },
    }, 'good');
  } catch (e) {
    // The watch socket may still work (e.g. before the session is stored); say what failed and go on.
    setStatus(...errorStatus(e), 'bad');
    askForToken(e);
  }
  const summaryOptions = { exercise: ex };
  /** The session is over: its numbers dimmed, its summary (`s`, when given) shown and brought into view. */
  const ended = (s, stored) => {
    $('main').classList.remove('watching');
    $('main').classList.add('ended');
    if (s) {
      renderSummary(s, $('summary-stats'), summaryOptions);
      $('summary-link').href = `history.html?session=${encodeURIComponent(id)}`;
      $('summary').hidden = false;
    }
    if (!$('summary').hidden) {
      showStored(stored);
      $('summary').scrollIntoView({ block: 'start', behavior: 'instant' });
    }
  };
  if (info && info.status !== 'live') {
    setStatus('watch.ended');
    ended(info, 'stored');
    return;
  }
  // Following: on a phone the picker folds away and the numbers and chart take the screen (app.css).
  $('main').classList.add('watching');
  // `poses=1`: the patient's poses too (at most 15 a second), drawn as they come; `motion=1`: the phone's motion
  // samples (at most 30 a second, docs/protocol.md §3.3), charted as on Live.
  const socket = new MessageSocket(`/v1/sessions/${encodeURIComponent(id)}/watch?poses=1&motion=1`);
  let motion = null;
  // How much the patient's phone moves (`snapshot.motion`, docs/protocol.md §3.3), as Live says it beside its chart.
  const showMotion = () => {
    $('motion-level').hidden = !motion;
    if (motion) $('motion-level').textContent = motionText(motion);
  };
  onLanguageChange(showMotion);
  socket.on('snapshot', (m) => {
    view.snapshot(m);
    if (m.motion) { motion = m.motion; showMotion(); }
  });
  socket.on('event', (m) => view.event(m));
  socket.on('motion', (m) => {
    $('motion-panel').hidden = false;
    for (const sample of m.samples || []) motionChart.push(sample);
  });
  socket.on('pose', (m) => {
    skeleton.setPose(m);
    $('watch-stage-note').hidden = true;
  });
  // docs/protocol.md §3.1: the patient's connection dropped (the session waits for a resume) or came back.
  const following = statusArgs.slice();
  socket.on('connection', (m) => {
    // The last pose stays, faded, while the patient is away.
    $('watch-stage').classList.toggle('stale', !m.connected);
    if (m.connected) setStatus(...following);
    else setStatus('watch.disconnected', {}, 'warn');
  });
  // The summary comes before the session is stored; the watcher's close 1000 says it is (docs/protocol.md §3).
  socket.on('summary', (m) => {
    renderSummary(m, $('summary-stats'), summaryOptions);
    $('summary-link').href = `history.html?session=${encodeURIComponent(id)}`;
    showStored('saving');
    $('summary').hidden = false;
  });
  socket.on('close', (e) => {
    if (e.code === 1000) setStatus('watch.ended');
    else setStatus('status.closed', { code: e.code }, 'bad');
    if (!$('summary').hidden) ended(null, e.code === 1000 ? 'stored' : 'notStored');
    else getSession(id).then((s) => ended(s, 'stored'), () => ended(null));
  });
  window.addEventListener('pagehide', () => socket.close());
}

// The list of live sessions refreshes itself, so a clinician who opens Watch first sees the patient arrive.
const LIST_REFRESH_MS = 3000;
let listTimer = 0;
function refreshLiveSessions() {
  clearTimeout(listTimer);
  showLiveSessions().finally(() => {
    if (!document.hidden) listTimer = setTimeout(refreshLiveSessions, LIST_REFRESH_MS);
  });
}
document.addEventListener('visibilitychange', () => {
  if (!sessionID && !document.hidden) refreshLiveSessions();
});

if (sessionID) follow(sessionID); else refreshLiveSessions();
window.addEventListener(TOKEN_EVENT, () => { if (sessionID) location.reload(); else refreshLiveSessions(); });
document.body.dataset.ready = 'true';
