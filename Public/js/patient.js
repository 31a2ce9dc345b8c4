// The patient's page (docs/web.md "Patient"): opened from the clinic's link `patient.html#code=…`, it keeps the code
// for this tab (a URL fragment never reaches the server or its logs) and lists the active programme's items with
// their prescription, instructions and what was done this week; a tap runs an item on Live's patient mode.

import { initPage, $, errorStatus } from './common.js';
import { t, language, onLanguageChange } from './i18n.js';
import { exercises, getAdherence, listProgrammes, setPatientCode, patientCode } from './api.js';
import { itemInstructions, itemName, prescriptionText } from './programme.js';

const code = new URLSearchParams(location.hash.slice(1)).get('code');
if (code) setPatientCode(code);

initPage();

let state = null; // {programme, catalog, week}

function setStatus(key, params, cls = '') {
  $('status').textContent = key ? t(key, params) : '';
  $('status').className = 'status ' + cls;
}

/** This week's entry of each item (`{prescribed, sessions, goalMet}`), by item id. */
function weekOf(adherence, programme) {
  const week = adherence.weeks.at(-1);
  const items = new Map();
  for (const entry of week?.items ?? []) if (entry.programme === programme.id) items.set(entry.item, entry);
  return { week, items };
}

function itemLink(item, source) {
  const q = new URLSearchParams({ programme: state.programme.id, item: item.item, source, lang: language() });
  // A presentation's or a test's demo speed is passed on.
  const speed = new URLSearchParams(location.search).get('demoSpeed');
  if (speed) q.set('demoSpeed', speed);
  return `/?${q}`;
}

function render() {
  if (!state) return;
  const { programme, catalog, week } = state;
  $('patient-week').textContent = week.week ? t('patient.week', { day: new Date(week.week.startsOn + 'T12:00')
    .toLocaleDateString(document.documentElement.lang, { day: 'numeric', month: 'long' }) }) : '';
  const list = $('items');
  list.replaceChildren();
  for (const item of programme.items) {
    const ex = catalog.find((e) => e.id === item.exercise);
    const entry = week.items.get(item.item) ?? { prescribed: item.perWeek ?? 1, sessions: 0, goalMet: 0 };
    const prescribed = entry.prescribed || item.perWeek || 1;
    // Sessions done with the demo figure: the patient's practice, shown as done here; the clinic's adherence and
    // Progress leave them out (docs/programmes.md "Demonstrations").
    const withDemo = Math.max(0, (state.withDemo.items.get(item.item)?.goalMet ?? 0) - entry.goalMet);
    const done = entry.goalMet >= prescribed;
    const doneWithDemo = !done && entry.goalMet + withDemo >= prescribed;
    const li = document.createElement('li');
    li.dataset.item = item.item;
    li.classList.toggle('done', done || doneWithDemo);
    li.classList.toggle('demo-done', doneWithDemo);
    li.classList.toggle('tried', withDemo > 0);
    const h = document.createElement('h2');
    h.textContent = itemName(item, ex);
    const rx = document.createElement('p');
    rx.className = 'patient-rx';
    rx.textContent = prescriptionText(item, ex);
    const how = document.createElement('p');
    how.className = 'patient-instructions';
    how.textContent = itemInstructions(item);
    const progress = document.createElement('p');
    progress.className = 'week';
    const counted = Math.min(entry.goalMet + withDemo, Math.max(prescribed, entry.goalMet));
    progress.textContent = t('patient.thisWeek', { done: counted, of: prescribed });
    if (done || doneWithDemo) {
      const mark = document.createElement('span');
      mark.className = 'done-mark';
      mark.textContent = ' ✓ ' + t(done ? 'patient.doneWeek' : 'patient.doneDemo');
      progress.append(mark);
    }
    const demoNote = document.createElement('p');
    demoNote.className = 'tried-mark';
    if (withDemo > 0) demoNote.textContent = t('patient.tried', { count: withDemo });
    const buttons = document.createElement('p');
    buttons.className = 'buttons';
    const start = document.createElement('a');
    start.className = 'start';
    start.href = itemLink(item, 'camera');
    start.textContent = t(done || doneWithDemo ? 'patient.again' : 'patient.start');
    const demo = document.createElement('a');
    demo.className = 'demo';
    demo.href = itemLink(item, 'demo');
    demo.textContent = t('patient.demo');
    demo.setAttribute('aria-label', t('patient.demoLabel', { name: h.textContent }));
    start.setAttribute('aria-label', `${start.textContent}: ${h.textContent}`);
    buttons.append(start, demo);
    li.append(h, rx);
    if (how.textContent) li.append(how);
    li.append(progress);
    if (demoNote.textContent) li.append(demoNote);
    li.append(buttons);
    list.append(li);
  }
}

async function load() {
  if (!patientCode()) { setStatus('patient.noCode', null, 'bad'); return; }
  setStatus('patient.loading');
  try {
    const [page, catalog] = await Promise.all([listProgrammes({ active: true }), exercises()]);
    const programme = page.programmes[0];
    if (!programme) { setStatus('patient.none'); return; }
    const today = new Date();
    const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
    // What counts (the clinic's adherence) and, beside it, the tries with the demo figure.
    const [adherence, withDemo] = await Promise.all([getAdherence(programme.subject, { from: day, to: day }),
      getAdherence(programme.subject, { from: day, to: day, demo: true })]);
    state = { programme, catalog, week: weekOf(adherence, programme), withDemo: weekOf(withDemo, programme) };
    setStatus(null);
    render();
  } catch (e) {
    setStatus(...(e?.status === 401 ? ['patient.expired', null] : errorStatus(e)), 'bad');
  } finally {
    document.body.dataset.ready = 'true';
  }
}

onLanguageChange(render);
// Back from an item (the browser's cache may keep the page): read again what was done.
window.addEventListener('pageshow', (e) => { if (e.persisted) load(); });
load();
