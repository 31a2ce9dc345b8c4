// History: the sessions list (filters, newest first, paginated) and one session's page (rep peaks chart,
// value series chart, fault counts, CSV download, delete with confirmation).

import { initPage, $, formatDate, askForToken } from './common.js';
import { t, faultText, exerciseName, onLanguageChange } from './i18n.js';
import { exercises, listSessions, getSession, getSeries, deleteSession, csvURL, downloadCSV, token } from './api.js';
import { drawRepBars, drawSeries } from './chart.js';
import { renderSummary } from './summary.js';

initPage();

const PAGE_SIZE = 20;
const params = new URLSearchParams(location.search);
const sessionID = params.get('session');
let catalog = [];

function status(el, key, vars, cls = '') {
  el.textContent = key ? t(key, vars) : '';
  el.className = 'status ' + cls;
}

// ---- List -----------------------------------------------------------------------------------------------

const list = { cursors: [null], page: 0, next: null, rows: [] };

function filters() {
  const f = { subject: $('f-subject').value.trim(), exercise: $('f-exercise').value, limit: PAGE_SIZE };
  if ($('f-from').value) f.from = $('f-from').value;
  if ($('f-to').value) {
    // `to` is a day: include all of it.
    const d = new Date($('f-to').value + 'T00:00:00Z');
    d.setUTCDate(d.getUTCDate() + 1);
    f.to = d.toISOString().slice(0, 10);
  }
  return f;
}

async function loadPage() {
  status($('list-status'), null);
  try {
    const cursor = list.cursors[list.page];
    const response = await listSessions({ ...filters(), cursor });
    list.rows = response.sessions || [];
    list.next = response.next || null;
    renderList();
  } catch (e) {
    status($('list-status'), 'status.error', { message: e.message }, 'bad');
    askForToken(e);
  }
}

function renderList() {
  const tbody = $('sessions').querySelector('tbody');
  tbody.replaceChildren(...list.rows.map((s) => {
    const tr = document.createElement('tr');
    tr.dataset.session = s.id;
    const started = document.createElement('td');
    const a = document.createElement('a');
    a.href = `history.html?session=${encodeURIComponent(s.id)}`;
    a.textContent = formatDate(s.startedAt);
    started.append(a);
    const cells = [s.subject || '–', `${exerciseName(s.exercise)}${s.side ? ' (' + t('side.' + s.side) + ')' : ''}`,
      `${s.repCount ?? 0} / ${s.rejectedCount ?? 0}`, t('status.' + s.status)];
    tr.append(started, ...cells.map((text) => {
      const td = document.createElement('td');
      td.textContent = text;
      return td;
    }));
    return tr;
  }));
  if (!list.rows.length) status($('list-status'), 'history.empty');
  $('prev').disabled = list.page === 0;
  $('next').disabled = !list.next;
  $('page-label').textContent = t('history.page', { n: list.page + 1 });
}

function initList() {
  $('list-view').hidden = false;
  document.title = `${t('history.heading')} — Motion`;
  $('f-subject').value = params.get('subject') || '';
  $('f-from').value = params.get('from') || '';
  $('f-to').value = params.get('to') || '';
  exercises().then((catalogList) => {
    catalog = catalogList;
    const select = $('f-exercise');
    const any = new Option(t('history.any'), '');
    select.replaceChildren(any, ...catalog.map((e) => new Option(exerciseName(e), e.id)));
    select.value = params.get('exercise') || '';
  }).catch(() => {});
  $('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    list.cursors = [null];
    list.page = 0;
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(filters())) if (v && k !== 'limit' && k !== 'to') q.set(k, v);
    if ($('f-to').value) q.set('to', $('f-to').value);
    history.replaceState(null, '', 'history.html' + (q.toString() ? '?' + q : ''));
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
    loadPage();
  });
  $('prev').addEventListener('click', () => {
    if (list.page === 0) return;
    list.page--;
    loadPage();
  });
  onLanguageChange(renderList);
  const deleted = params.get('deleted');
  loadPage().then(() => { if (deleted) status($('list-status'), 'history.deleted', { id: deleted }, 'good'); });
}

// ---- One session ----------------------------------------------------------------------------------------

const detail = { session: null, series: null, exercise: null };

function drawDetail() {
  const s = detail.session;
  if (!s) return;
  const ex = detail.exercise;
  drawRepBars($('rep-chart'), s.reps || [], { baseline: s.baseline ?? null, target: ex?.target ?? null });
  drawSeries($('series-chart'), detail.series, {
    target: ex?.target ?? null, enter: ex?.thresholds?.enter ?? null, exit: ex?.thresholds?.exit ?? null, reps: s.reps || [],
  });
}

function renderDetail() {
  const s = detail.session;
  $('detail-title').textContent = `${exerciseName(s.exercise)} — ${s.subject || s.id}`;
  document.title = `${exerciseName(s.exercise)} — Motion`;
  renderSummary(s, $('detail-stats'), { full: true });
  const faults = Object.entries(s.faultCounts || {}).sort((a, b) => b[1] - a[1]);
  $('fault-counts').replaceChildren(...(faults.length ? faults.map(([f, n]) => {
    const li = document.createElement('li');
    li.dataset.fault = f;
    li.textContent = `${faultText(f)}: ${n}`;
    return li;
  }) : [Object.assign(document.createElement('li'), { textContent: t('history.noFaults') })]));
  $('watch-link').hidden = s.status !== 'live';
  $('watch-link').href = `watch.html?session=${encodeURIComponent(s.id)}`;
  if (!detail.series?.t?.length) status($('series-status'), 'history.noSeries');
  else status($('series-status'), null);
  drawDetail();
}

async function initDetail() {
  $('detail-view').hidden = false;
  $('csv').href = csvURL(sessionID);
  $('csv').setAttribute('download', `session-${sessionID}.csv`);
  $('csv').addEventListener('click', (e) => {
    if (!token()) return; // a plain link works without a token
    e.preventDefault();
    downloadCSV(sessionID).catch((err) => status($('detail-status'), 'status.error', { message: err.message }, 'bad'));
  });
  $('delete').addEventListener('click', async () => {
    if (!window.confirm(t('history.confirmDelete', { id: sessionID }))) return;
    try {
      await deleteSession(sessionID);
      location.href = `history.html?deleted=${encodeURIComponent(sessionID)}`;
    } catch (e) {
      status($('detail-status'), 'status.error', { message: e.message }, 'bad');
    }
  });
  try {
    detail.session = await getSession(sessionID);
  } catch (e) {
    status($('detail-status'), e.status === 404 ? 'history.notFound' : 'status.error', { message: e.message }, 'bad');
    $('delete').disabled = true;
    return;
  }
  const [catalogList, series] = await Promise.all([
    exercises().catch(() => []),
    getSeries(sessionID).catch(() => null),
  ]);
  catalog = catalogList;
  detail.exercise = catalog.find((e) => e.id === detail.session.exercise) || null;
  detail.series = series;
  renderDetail();
  document.body.dataset.ready = 'true';
  new ResizeObserver(() => drawDetail()).observe($('rep-chart'));
  onLanguageChange(renderDetail);
}

if (sessionID) initDetail(); else initList();
