// A printable report of one subject over a date range (docs/web.md "Report"): the active programme, adherence per
// week and item, each exercise's trend (best and mean peak against the target) and the sessions, printed with the
// browser's Print and the print stylesheet of app.css.

import { initPage, $, formatDate, errorStatus, askForToken, localMidnight } from './common.js';
import { t, exerciseName, onLanguageChange } from './i18n.js';
import { exercises, getAdherence, getProgress, listProgrammes, listSessions, TOKEN_EVENT } from './api.js';
import { drawTrend } from './chart.js';
import { formatValue, unitOf } from './units.js';
import { fillAdherence, fillTable, itemName, prescriptionText } from './programme.js';

initPage();

let catalog = [];
let shown = null;
let statusKey = [null];

function setStatus(key, params, cls = '') {
  statusKey = [key, params, cls];
  $('status').textContent = key ? t(key, params) : '';
  $('status').className = 'status no-print ' + cls;
}

const day = (d) => d.toLocaleDateString('sv');

async function load() {
  const subject = $('subject').value.trim();
  const from = $('from').value, to = $('to').value;
  if (!subject || !from || !to) return;
  history.replaceState(null, '', `?${new URLSearchParams({ subject, from, to })}`);
  setStatus('patient.loading');
  try {
    const [{ programmes }, adherence, { sessions }] = await Promise.all([
      listProgrammes({ subject, active: true }), getAdherence(subject, { from, to }),
      listSessions({ subject, from: localMidnight(from), to: localMidnight(to, 1), limit: 500 })]);
    const exerciseIds = [...new Set([...(programmes[0]?.items ?? []).map((i) => i.exercise), ...sessions.map((s) => s.exercise)])];
    const progress = await Promise.all(exerciseIds.map((exercise) => getProgress(subject, { exercise })
      .then((r) => r.sessions.filter((s) => s.startedAt >= new Date(localMidnight(from) * 1000).toISOString()
        && s.startedAt < new Date(localMidnight(to, 1) * 1000).toISOString()), () => [])));
    shown = { subject, from, to, programme: programmes[0] ?? null, adherence, sessions: sessions.slice().reverse(),
      progress: exerciseIds.map((id, i) => ({ id, sessions: progress[i] })) };
    setStatus(null);
    render();
  } catch (e) {
    setStatus(...errorStatus(e), 'bad');
    askForToken(e);
  }
}

function render() {
  if (!shown) return;
  const { subject, from, to, programme, adherence, sessions } = shown;
  $('report').hidden = false;
  $('report-heading').textContent = t('report.heading', { subject, from: formatDay(from), to: formatDay(to) });
  $('report-made').textContent = t('report.made', { when: formatDate(new Date().toISOString()) });
  const items = $('report-items');
  items.replaceChildren();
  for (const item of programme?.items ?? []) {
    const ex = catalog.find((e) => e.id === item.exercise);
    const li = document.createElement('li');
    li.textContent = `${itemName(item, ex)}: ${prescriptionText(item, ex)} · ${t('report.perWeek', { n: item.perWeek ?? 1 })}`;
    items.append(li);
  }
  if (!programme) items.textContent = t('report.noProgramme');
  fillAdherence($('report-adherence'), adherence, programme, catalog);
  const charts = $('report-charts');
  charts.replaceChildren();
  for (const { id, sessions: points } of shown.progress) {
    if (!points.length) continue;
    const ex = catalog.find((e) => e.id === id);
    const h = document.createElement('h2');
    h.textContent = t('report.trend', { exercise: exerciseName(ex ?? id) });
    const canvas = document.createElement('canvas');
    canvas.className = 'chart';
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', h.textContent);
    charts.append(h, canvas);
    drawTrend(canvas, points, { target: ex?.target ?? null, unit: unitOf(ex) });
  }
  fillTable($('report-sessions'), [t('report.when'), t('report.exercise'), t('report.clean'), t('report.rejected'),
    t('report.best'), t('report.goal')], sessions.map((s) => {
    const ex = catalog.find((e) => e.id === s.exercise);
    return [formatDate(s.startedAt), exerciseName(ex ?? s.exercise) + (s.demo ? ` (${t('report.demo')})` : ''),
      String(s.repCount ?? '–'), String(s.rejectedCount ?? '–'), formatValue(s.best, unitOf(ex)),
      s.goal ? t(s.goal.met ? 'report.met' : 'report.notMet', s.goal) : '–'];
  }));
}

function formatDay(value) {
  return new Date(value + 'T12:00').toLocaleDateString(document.documentElement.lang, { dateStyle: 'medium' });
}

$('report-form').addEventListener('submit', (e) => { e.preventDefault(); load(); });
$('print').addEventListener('click', () => window.print());
onLanguageChange(() => { setStatus(...statusKey); render(); });

async function start(reload = false) {
  const q = new URLSearchParams(location.search);
  const now = new Date();
  $('subject').value = q.get('subject') ?? '';
  $('to').value = q.get('to') ?? day(now);
  $('from').value = q.get('from') ?? day(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 27));
  try {
    catalog = await exercises({ reload });
    await load();
  } catch (e) { setStatus(...errorStatus(e), 'bad'); askForToken(e); }
  document.body.dataset.ready = 'true';
}
window.addEventListener(TOKEN_EVENT, () => start(true));
start();
