// History: the sessions list (filters, newest first, paginated) and one session's page (rep peaks chart,
// value series chart, fault counts, CSV download, delete with confirmation).

import { initPage, $, formatDate, askForToken, errorStatus, localMidnight } from './common.js';
import { t, faultText, exerciseName, sessionExerciseName, onLanguageChange } from './i18n.js';
import {
  exercises, listSessions, getSession, getSeries, getMotion, deleteSession, sessionExercise, TOKEN_EVENT,
} from './api.js';
import { drawRepBars, drawSeries, drawMotionSeries } from './chart.js';
import { renderSummary } from './summary.js';
import { prescribed } from './sessionview.js';
import { csvFileName, sessionCSV } from './csv.js';
import { formatNumber, formatValue, unitLegend, unitNote, unitOf } from './units.js';

initPage();

const PAGE_SIZE = 20;
const params = new URLSearchParams(location.search);
const sessionID = params.get('session');

function status(el, key, vars, cls = '') {
  el.textContent = key ? t(key, vars) : '';
  el.className = 'status ' + cls;
}

// ---- List -----------------------------------------------------------------------------------------------

// `cursors[i]` opens page i (`null` for the first); an entry is `undefined` when this tab never saw that page (a
// list opened from a URL that names a later page): "Newer" then goes back to the first page.
const list = { cursors: [null], page: 0, next: null, rows: [], exercises: [], total: null };

function filters() {
  // Subject search matches the start of the id (`ana` finds `ana-17`).
  const f = { subjectPrefix: $('f-subject').value.trim(), exercise: $('f-exercise').value, limit: PAGE_SIZE };
  // The days are the browser's: their bounds go to the server as instants, `to` including all of its day.
  if ($('f-from').value) f.from = localMidnight($('f-from').value);
  if ($('f-to').value) f.to = localMidnight($('f-to').value, 1);
  return f;
}

async function loadPage() {
  status($('list-status'), null);
  try {
    const cursor = list.cursors[list.page];
    // The total is counted by the server on request, for "21–40 of 137".
    const response = await listSessions({ ...filters(), cursor, total: 'true' });
    // Each row's exercise as its session ran it: named in the page's language, a deleted one by its stored version.
    list.exercises = await Promise.all((response.sessions || []).map(sessionExercise));
    list.rows = response.sessions || [];
    list.next = response.next || null;
    list.total = typeof response.total === 'number' ? response.total : null;
    renderList();
  } catch (e) {
    if (e.status === 400 && e.code === 'invalidCursor' && list.page > 0) {
      // A cursor from an edited or stale URL: the first page instead of an error.
      list.cursors = [null];
      list.page = 0;
      rememberList();
      return loadPage();
    }
    status($('list-status'), ...errorStatus(e), 'bad');
    askForToken(e);
  }
  return undefined;
}

function renderList() {
  const tbody = $('sessions').querySelector('tbody');
  const back = listSearch();
  tbody.replaceChildren(...list.rows.map((s, i) => {
    const tr = document.createElement('tr');
    tr.dataset.session = s.id;
    const started = document.createElement('td');
    started.dataset.label = t('history.started');
    const a = document.createElement('a');
    // The list's filters and page go along, for "Back to list".
    a.href = `history.html?session=${encodeURIComponent(s.id)}${back ? '&' + back : ''}`;
    a.textContent = formatDate(s.startedAt);
    started.append(a);
    const cells = [
      ['history.subject', s.subject || '–'],
      ['history.exercise', sessionExerciseName(list.exercises[i] ?? s.exercise, s.side)],
      ['history.reps', t('history.repCounts', { clean: s.repCount ?? 0, rejected: s.rejectedCount ?? 0 })],
      ['history.status', t('status.' + s.status)],
    ];
    tr.append(started, ...cells.map(([label, text]) => {
      const td = document.createElement('td');
      td.dataset.label = t(label);
      td.textContent = text;
      return td;
    }));
    return tr;
  }));
  if (!list.rows.length) status($('list-status'), 'history.empty');
  $('prev').disabled = list.page === 0;
  // Without the previous page's cursor, the way back is the first page, and the button says so.
  const prevKey = list.page > 1 && list.cursors[list.page - 1] === undefined ? 'btn.first' : 'btn.prev';
  $('prev').dataset.i18n = prevKey;
  $('prev').textContent = t(prevKey);
  $('next').disabled = !list.next;
  const first = list.page * PAGE_SIZE + 1;
  const last = list.page * PAGE_SIZE + list.rows.length;
  // Without a total (an older server), the total is known once the last page is reached.
  const total = list.total ?? (list.next ? null : last);
  $('page-label').textContent = !list.rows.length ? ''
    : total == null ? t('history.pageRange', { first, last }) : t('history.pageRangeOf', { first, last, total });
}

/** The list's filters and position as URL parameters: what reopens this page of the list. */
function listSearch() {
  const q = new URLSearchParams();
  if ($('f-subject').value.trim()) q.set('subject', $('f-subject').value.trim());
  if ($('f-exercise').value) q.set('exercise', $('f-exercise').value);
  if ($('f-from').value) q.set('from', $('f-from').value);
  if ($('f-to').value) q.set('to', $('f-to').value);
  if (list.page > 0) {
    q.set('page', String(list.page + 1));
    q.set('cursor', list.cursors[list.page]);
  }
  return q.toString();
}

/** The list's filters and page, kept in the URL (so a reload or "Back to list" finds them) and, with the cursors of
 * the pages before, in this tab's storage (so "Newer" can go back one page at a time). */
function rememberList() {
  const search = listSearch() ? '?' + listSearch() : '';
  history.replaceState(null, '', 'history.html' + search);
  try {
    // An unknown cursor is kept as '' (JSON has no `undefined`; `null` is the first page's).
    const cursors = Array.from(list.cursors.slice(0, list.page + 1), (c) => (c === undefined ? '' : c));
    sessionStorage.setItem(LIST_KEY, JSON.stringify({ search, cursors }));
  } catch { /* storage may be unavailable */ }
}

const LIST_KEY = 'motion.historyList';

function rememberedList() {
  try { return JSON.parse(sessionStorage.getItem(LIST_KEY)) || null; } catch { return null; }
}

function initList() {
  $('list-view').hidden = false;
  $('f-subject').value = params.get('subject') || '';
  $('f-from').value = params.get('from') || '';
  $('f-to').value = params.get('to') || '';
  const fillExercises = (reload) => exercises({ reload }).then((catalog) => {
    const select = $('f-exercise');
    const chosen = select.value || params.get('exercise') || '';
    const any = new Option(t('history.any'), '');
    select.replaceChildren(any, ...catalog.map((e) => new Option(exerciseName(e), e.id)));
    select.value = chosen;
  }).catch(() => {});
  // The exercise filter is in the URL before the catalog fills the select: an option for it keeps it meanwhile.
  if (params.get('exercise')) {
    $('f-exercise').append(new Option(params.get('exercise'), params.get('exercise')));
    $('f-exercise').value = params.get('exercise');
  }
  fillExercises(false);
  window.addEventListener(TOKEN_EVENT, () => { fillExercises(true); loadPage(); });
  $('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    list.cursors = [null];
    list.page = 0;
    rememberList();
    loadPage();
  });
  $('f-clear').addEventListener('click', () => {
    for (const id of ['f-subject', 'f-exercise', 'f-from', 'f-to']) $(id).value = '';
    $('filters').requestSubmit();
  });
  $('next').addEventListener('click', () => {
    if (!list.next) return;
    list.cursors[list.page + 1] = list.next;
    list.page++;
    rememberList();
    loadPage();
  });
  $('prev').addEventListener('click', () => {
    if (list.page === 0) return;
    list.page = list.cursors[list.page - 1] === undefined ? 0 : list.page - 1;
    rememberList();
    loadPage();
  });
  onLanguageChange(renderList);
  // The page the URL names, with the cursors before it when this tab still has them.
  const page = Number(params.get('page')) || 1;
  const cursor = params.get('cursor');
  // A page number past any real list (a mangled URL) opens the first page.
  if (Number.isInteger(page) && page > 1 && page <= 100000 && cursor) {
    const saved = rememberedList();
    if (saved?.search === location.search && saved.cursors?.length === page && saved.cursors[page - 1] === cursor) {
      list.cursors = saved.cursors.map((c) => (c === '' ? undefined : c));
    } else {
      list.cursors = [null];
      list.cursors[page - 1] = cursor;
    }
    list.page = page - 1;
  }
  rememberList();
  const deleted = params.get('deleted');
  loadPage().then(() => { if (deleted) status($('list-status'), 'history.deleted', { id: deleted }, 'good'); });
}

// ---- One session ----------------------------------------------------------------------------------------

const detail = { session: null, series: null, motion: null, exercise: null };

function drawDetail() {
  const s = detail.session;
  if (!s) return;
  const ex = detail.exercise;
  const unit = unitOf(ex);
  // The session's own prescription, not the definition's defaults (docs/protocol.md §5.1).
  const rx = prescribed(ex, s.prescription);
  const target = rx?.target ?? null;
  drawRepBars($('rep-chart'), s.reps || [], { baseline: s.baseline ?? null, target, unit });
  // The target drawn, for what reads the page without seeing the canvas.
  $('rep-chart').dataset.target = target ?? '';
  drawSeries($('series-chart'), detail.series, {
    target, enter: rx?.thresholds?.enter ?? null, exit: rx?.thresholds?.exit ?? null, reps: s.reps || [], unit,
  });
  if (detail.motion?.t?.length) drawMotionSeries($('motion-chart'), detail.motion);
}

/** A measured value of the session to one decimal, in its exercise's unit. */
const measured = (v) => formatValue(v, unitOf(detail.exercise), { digits: 1 });

function renderRepTable(s) {
  const reps = s.reps || [];
  const rows = reps.map((r) => {
    const tr = document.createElement('tr');
    tr.className = r.clean ? 'good' : 'bad';
    const result = r.clean ? t('hud.cleanRep') : (r.faults || []).map(faultText).join('; ');
    const range = r.range ?? (r.trough != null ? r.peak - r.trough : null);
    // Smoothness (SPARC, closer to 0 is smoother) and tremor share from the phone's motion sensors, when it sent them.
    const smoothness = formatNumber(r.smoothness, 2);
    const tremor = r.tremor == null ? '–' : `${Math.round(r.tremor * 100)} %`;
    for (const text of [String(r.index), measured(r.peak), measured(r.trough), measured(range),
      r.duration == null ? '–' : t('unit.seconds', { n: formatNumber(r.duration, 1) }), smoothness, tremor, result]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  });
  if (!rows.length) {
    const tr = document.createElement('tr');
    tr.append(Object.assign(document.createElement('td'), { colSpan: 8, textContent: t('history.noReps') }));
    rows.push(tr);
  }
  $('rep-table').querySelector('tbody').replaceChildren(...rows);
  // Smoothness and tremor come only from a phone's motion sensors: without them, no columns of dashes.
  $('rep-table').classList.toggle('no-motion', !reps.some((r) => r.smoothness != null || r.tremor != null));
}

function renderDetail() {
  const s = detail.session;
  const title = `${s.subject || t('history.noSubject')} — ${formatDate(s.startedAt)}`;
  $('detail-title').textContent = title;
  document.title = `${title} — Motion`;
  renderSummary(s, $('detail-stats'), { full: true, exercise: detail.exercise });
  renderRepTable(s);
  $('legend-baseline').hidden = s.baseline == null;
  $('legend-target').hidden = prescribed(detail.exercise, s.prescription)?.target == null;
  // What the values are: degrees, or percent of which segment's length.
  $('rep-unit').textContent = unitNote(detail.exercise);
  $('series-unit').textContent = unitLegend(detail.exercise);
  if (detail.csvURL) URL.revokeObjectURL(detail.csvURL);
  // With a byte order mark, so that a spreadsheet reads the names' accents as UTF-8.
  detail.csvURL = URL.createObjectURL(new Blob(['\ufeff', sessionCSV(s, detail.exercise)],
    { type: 'text/csv;charset=utf-8' }));
  $('csv').href = detail.csvURL;
  $('csv').setAttribute('download', csvFileName(s));
  const faults = Object.entries(s.faultCounts || {}).sort((a, b) => b[1] - a[1]);
  $('fault-counts').replaceChildren(...(faults.length ? faults.map(([f, n]) => {
    const li = document.createElement('li');
    li.dataset.fault = f;
    li.textContent = `${faultText(f)}: ${n}`;
    return li;
  }) : [Object.assign(document.createElement('li'), { textContent: t('history.noFaults') })]));
  $('watch-link').hidden = s.status !== 'live';
  $('watch-link').href = `watch.html?session=${encodeURIComponent(s.id)}`;
  $('progress-link').hidden = !s.subject;
  if (s.subject) {
    $('progress-link').href = `progress.html?subject=${encodeURIComponent(s.subject)}&exercise=${encodeURIComponent(s.exercise)}`;
  }
  if (!detail.series?.t?.length) status($('series-status'), 'history.noSeries');
  else status($('series-status'), null);
  // The series chart in words, for those who cannot see it.
  const values = (detail.series?.value || []).filter((v) => v != null);
  $('series-chart').setAttribute('aria-label', values.length
    ? t('history.seriesText', {
      seconds: formatNumber(detail.series.t[detail.series.t.length - 1] - detail.series.t[0], 1),
      min: measured(Math.min(...values)), max: measured(Math.max(...values)), reps: (s.reps || []).length,
    })
    : t('history.noSeries'));
  // The motion chart, for sessions whose phone sent its sensors, described in words as well.
  const motion = detail.motion;
  $('motion-section').hidden = !motion?.t?.length;
  if (motion?.t?.length) {
    const all = [...motion.x, ...motion.y, ...motion.z];
    $('motion-chart').setAttribute('aria-label', t('history.motionText', {
      seconds: formatNumber(motion.t[motion.t.length - 1] - motion.t[0], 1), min: formatNumber(Math.min(...all), 1),
      max: formatNumber(Math.max(...all), 1),
    }));
  }
  drawDetail();
}

async function initDetail() {
  $('detail-view').hidden = false;
  // The list this session was opened from: its filters and page came along in the URL.
  const back = new URLSearchParams(location.search);
  back.delete('session');
  $('back').href = 'history.html' + (back.toString() ? '?' + back : rememberedList()?.search || '');
  // The CSV is made here from the session already loaded (readable columns, one decimal); the server's
  // `?format=csv` stays the raw export for scripts.
  $('delete').addEventListener('click', async () => {
    if (!window.confirm(t('history.confirmDelete', { id: sessionID }))) return;
    try {
      await deleteSession(sessionID);
      back.set('deleted', sessionID);
      location.href = `history.html?${back}`;
    } catch (e) {
      status($('detail-status'), ...errorStatus(e), 'bad');
    }
  });
  try {
    detail.session = await getSession(sessionID);
  } catch (e) {
    if (e.status === 404) status($('detail-status'), 'history.notFound', null, 'bad');
    else status($('detail-status'), ...errorStatus(e), 'bad');
    askForToken(e);
    $('delete').disabled = true;
    window.addEventListener(TOKEN_EVENT, () => location.reload(), { once: true });
    return;
  }
  // The definition the session ran with (its version, even of an exercise deleted since): its name and unit.
  const [exercise, series, motion] = await Promise.all([
    sessionExercise(detail.session),
    getSeries(sessionID).catch(() => null),
    getMotion(sessionID).catch(() => null),
  ]);
  detail.motion = motion;
  detail.exercise = exercise;
  detail.series = series;
  renderDetail();
  document.body.dataset.ready = 'true';
  new ResizeObserver(() => drawDetail()).observe($('rep-chart'));
  onLanguageChange(renderDetail);
}

if (sessionID) initDetail(); else initList();
