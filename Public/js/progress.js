// Progress: one subject's sessions of one exercise over the weeks (GET /v1/subjects/{subject}/progress,
// docs/protocol.md §5.2), oldest first: best and mean peak as a trend, clean and rejected reps per session, and the
// same figures as a table whose dates open each session's page in History, with each session's form faults (its
// `faultCounts`: a column, and a line of dots over the rep bars).

import { initPage, $, formatDate, askForToken, errorStatus } from './common.js';
import { t, exerciseName, faultText, onLanguageChange } from './i18n.js';
import {
  exercises, getAdherence, getProgress, getSession, listProgrammes, listSubjects, sessionExercise, TOKEN_EVENT,
} from './api.js';
import { fillAdherence } from './programme.js';
import { drawTrend, drawCountBars } from './chart.js';
import { formatValue, unitNote, unitOf } from './units.js';

initPage();

let catalog = [];
let shown = null; // {subject, exercise, definition, sessions}
let statusKey = [null];

function status(key, params, cls = '') {
  statusKey = [key, params, cls];
  // The exercise is named in the language of the moment, again after a switch.
  const filled = params?.exerciseId ? { ...params, exercise: exerciseName(params.exerciseId) } : params;
  $('p-status').textContent = key ? t(key, filled) : '';
  $('p-status').className = 'status ' + cls;
}

function fillExercises() {
  const select = $('p-exercise');
  const current = select.value || new URLSearchParams(location.search).get('exercise') || 'elbowFlexion';
  select.replaceChildren(...catalog.map((e) => new Option(exerciseName(e), e.id)));
  // An exercise no longer in the catalog (a deleted one, from a session's page) stays chosen, by its name once known.
  if (!catalog.some((e) => e.id === current) && new URLSearchParams(location.search).get('exercise') === current) {
    select.append(new Option(exerciseName(current), current));
  }
  if ([...select.options].some((o) => o.value === current)) select.value = current;
}

/** A value of the shown exercise, whole, in its unit. */
const fmt = (v) => formatValue(v, unitOf(shown?.definition));

function drawCharts() {
  if (!shown?.sessions.length) return;
  const target = shown.definition?.target ?? null;
  drawTrend($('trend-chart'), shown.sessions, { target, unit: unitOf(shown.definition) });
  drawCountBars($('count-chart'), shown.sessions);
}

/**
 * The definition of `exercise` the figures are in: the catalog's, else (an exercise deleted since) the version the
 * latest session ran, read from that session.
 */
async function definitionOf(exercise, sessions) {
  const current = catalog.find((e) => e.id === exercise);
  if (current || !sessions.length) return current ?? null;
  try {
    return await sessionExercise(await getSession(sessions[sessions.length - 1].id));
  } catch {
    return null;
  }
}

function render() {
  if (!shown) return;
  const { sessions, exercise } = shown;
  $('p-result').hidden = !sessions.length;
  if (!sessions.length) return;
  drawCharts();
  $('trend-unit').textContent = unitNote(shown.definition);
  const first = sessions[0], last = sessions[sessions.length - 1];
  const summary = t('progress.summary', {
    count: sessions.length, from: formatDate(first.startedAt), to: formatDate(last.startedAt),
    first: fmt(first.best), last: fmt(last.best),
  });
  $('trend-summary').textContent = summary;
  $('trend-chart').setAttribute('aria-label', `${t('progress.rangeChart')}. ${summary}`);
  $('progress-table').querySelector('tbody').replaceChildren(...sessions.flatMap((s) => {
    const tr = document.createElement('tr');
    const when = document.createElement('td');
    const link = document.createElement('a');
    link.href = `history.html?session=${encodeURIComponent(s.id)}`;
    link.textContent = formatDate(s.startedAt);
    when.append(link);
    tr.append(when);
    for (const value of [fmt(s.best), fmt(s.meanPeak), String(s.repCount ?? 0), String(s.rejectedCount ?? 0)]) {
      const td = document.createElement('td');
      td.textContent = value;
      tr.append(td);
    }
    const entries = Object.entries(s.faultCounts || {}).sort((a, b) => b[1] - a[1]);
    const faults = document.createElement('td');
    faults.className = 'fault-cell';
    faults.textContent = s.faultCounts ? String(entries.reduce((sum, [, n]) => sum + n, 0)) : '–';
    faults.dataset.total = faults.textContent;
    tr.append(faults);
    if (!entries.length) return [tr];
    // Which faults, in a row of their own below the session's: the whole table width, on a phone too.
    tr.className = 'has-faults';
    const detail = document.createElement('tr');
    detail.className = 'fault-row';
    const cell = document.createElement('td');
    cell.colSpan = 6;
    cell.textContent = entries.map(([f, n]) => `${faultText(f)}: ${n}`).join('; ');
    detail.append(cell);
    return [tr, detail];
  }));
}

async function show() {
  const subject = $('p-subject').value.trim();
  const exercise = $('p-exercise').value;
  if (!subject) {
    status('progress.needSubject', null, 'bad');
    $('p-subject').focus();
    return;
  }
  const url = new URL(location.href);
  url.searchParams.set('subject', subject);
  url.searchParams.set('exercise', exercise);
  history.replaceState(null, '', url);
  status('status.loading');
  try {
    const answer = await getProgress(subject, { exercise });
    // Times come as Unix seconds in progress entries: shown like the ISO times elsewhere.
    const sessions = (answer.sessions || []).map((s) => ({ ...s, startedAt: toISO(s.startedAt) }));
    shown = { subject, exercise, definition: await definitionOf(exercise, sessions), sessions };
    fillExercises();
    render();
    showAdherence(subject);
    if (sessions.length) status('progress.count', { count: sessions.length, subject, exerciseId: exercise });
    else status('progress.none', { subject, exerciseId: exercise });
  } catch (e) {
    status(...errorStatus(e), 'bad');
    askForToken(e);
  }
}

// The subject's programme beside the trend: adherence over the last eight weeks (docs/programmes.md), when the
// subject has programme items in them.
const ADHERENCE_WEEKS = 8;
let adherenceShown = null;

async function showAdherence(subject) {
  adherenceShown = null;
  $('adherence-panel').hidden = true;
  delete document.body.dataset.adherence;
  try {
    const today = new Date();
    const from = new Date(today.getFullYear(), today.getMonth(), today.getDate() - 7 * (ADHERENCE_WEEKS - 1));
    const day = (d) => d.toLocaleDateString('sv');
    const [adherence, { programmes }] = await Promise.all([
      getAdherence(subject, { from: day(from), to: day(today) }), listProgrammes({ subject, active: true })]);
    if ($('p-subject').value.trim() !== subject) return;
    adherenceShown = { adherence, programme: programmes[0] ?? null };
    renderAdherence();
  } catch {
    // The trend stands without it (an older server, or no access to programmes).
  }
  document.body.dataset.adherence = $('adherence-panel').hidden ? 'none' : 'shown';
}

function renderAdherence() {
  if (!adherenceShown) return;
  const { adherence, programme } = adherenceShown;
  // Weeks before the programme and without sessions say nothing: left out.
  const weeks = adherence.weeks.filter((w) => w.items.some((i) => i.prescribed > 0 || i.sessions > 0));
  $('adherence-panel').hidden = fillAdherence($('p-adherence'), { weeks }, programme, catalog) === 0;
}

function toISO(value) {
  return typeof value === 'number' ? new Date(value * 1000).toISOString() : value;
}

$('pick').addEventListener('submit', (e) => { e.preventDefault(); show(); });

// The subject picker: the tenant's subjects whose ids start with what is typed (GET /v1/subjects, docs/protocol.md
// §5.2), offered as the field's suggestions.
const SUGGESTED_SUBJECTS = 20;
let suggestTimer = 0;
let suggested = '';

async function suggestSubjects() {
  const prefix = $('p-subject').value.trim();
  if (!prefix || prefix === suggested) return;
  suggested = prefix;
  try {
    const page = await listSubjects(prefix, SUGGESTED_SUBJECTS);
    if (suggested !== prefix) return;
    const subjects = (page.subjects || []).map((s) => s.subject);
    $('p-subjects').replaceChildren(...subjects.map((subject) => new Option(subject, subject)));
  } catch {
    suggested = ''; // tried again on the next keystroke
  }
}
$('p-subject').addEventListener('input', () => {
  clearTimeout(suggestTimer);
  suggestTimer = setTimeout(suggestSubjects, 200);
});
onLanguageChange(() => {
  fillExercises();
  render();
  renderAdherence();
  status(...statusKey);
});
let resizeTimer = 0;
window.addEventListener('resize', () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(drawCharts, 150); });

function load(reload = false) {
  exercises({ reload }).then((list) => {
    catalog = list;
    fillExercises();
    const params = new URLSearchParams(location.search);
    const subject = params.get('subject') || (reload ? $('p-subject').value : '') || localStorage.getItem('motion.subject') || '';
    $('p-subject').value = subject;
    if (params.get('subject') || (reload && shown)) show();
    document.body.dataset.ready = 'true';
  }).catch((e) => { status(...errorStatus(e), 'bad'); askForToken(e); });
}
load();
window.addEventListener(TOKEN_EVENT, () => load(true));
