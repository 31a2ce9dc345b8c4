// The clinic's Patients page (docs/web.md "Patients"): the patients with a programme and this week's adherence, a
// programme editor (exercises by their translated names, prescriptions in the exercise's unit, no JSON) and the
// patient links (docs/programmes.md "Patient codes"), shown as a URL and a QR code drawn here (qr.js).

import { initPage, $, errorStatus, formatDate, askForToken } from './common.js';
import { t, exerciseName, language, onLanguageChange } from './i18n.js';
import { exercises, getAdherence, listProgrammes, listSessions, request, TOKEN_EVENT } from './api.js';
import { errorText, fieldProblem } from './errors.js';
import { applyOptions, prescriptionProblems } from './prescription.js';
import { fromShown, toShown, unitOf, unitSymbol } from './units.js';
import { drawQR } from './qr.js';

initPage();

let catalog = [];
let subject = '';
let programme = null; // the subject's active programme, latest version, or null for a new one

let statusKey = [null];
function setStatus(key, params, cls = '') {
  statusKey = [key, params, cls];
  $('status').textContent = key ? t(key, params) : '';
  $('status').className = 'status ' + cls;
}
const showError = (e) => { setStatus(...errorStatus(e), 'bad'); askForToken(e); };
const enc = encodeURIComponent;
const today = () => new Date().toLocaleDateString('sv'); // YYYY-MM-DD, the browser's day

// ---- The list ---------------------------------------------------------------------------------------------------

/** This week's sessions with the goal met against those prescribed, over the programme's items: "3 / 5". */
function weekText(adherence, id) {
  const items = (adherence.weeks.at(-1)?.items ?? []).filter((i) => i.programme === id);
  const met = items.reduce((n, i) => n + Math.min(i.goalMet, i.prescribed || i.goalMet), 0);
  const prescribed = items.reduce((n, i) => n + i.prescribed, 0);
  return t('patients.weekOf', { met, prescribed });
}

async function loadList() {
  const body = $('patient-table').tBodies[0];
  const { programmes } = await listProgrammes({ active: true });
  $('patients-empty').hidden = programmes.length > 0;
  const rows = await Promise.all(programmes.map(async (p) => {
    const [last, adherence] = await Promise.all([
      listSessions({ subject: p.subject, limit: 1 }).then((r) => r.sessions[0] ?? null, () => null),
      getAdherence(p.subject, { from: today(), to: today() }).catch(() => null)]);
    const tr = document.createElement('tr');
    const cell = (text) => { const td = document.createElement('td'); td.textContent = text; tr.append(td); return td; };
    const link = document.createElement('a');
    link.href = `?subject=${enc(p.subject)}`;
    link.textContent = p.subject;
    link.addEventListener('click', (e) => { e.preventDefault(); openSubject(p.subject); });
    cell('').append(link);
    cell(p.items.map((i) => exerciseName(i.exercise)).join(', '));
    cell(last ? formatDate(last.startedAt) : t('patients.never'));
    cell(adherence ? weekText(adherence, p.id) : '–');
    return tr;
  }));
  body.replaceChildren(...rows);
}

// ---- The editor -------------------------------------------------------------------------------------------------

let itemCount = 0;

function field(label, input) {
  const l = document.createElement('label');
  const span = document.createElement('span');
  span.textContent = label;
  l.append(span, ' ', input);
  return l;
}
function numberInput(name, { min, max, step = '1', value }) {
  const input = document.createElement('input');
  Object.assign(input, { type: 'number', min, max, step, name });
  input.inputMode = step === '1' ? 'numeric' : 'decimal';
  if (value != null) input.value = value;
  return input;
}

/** One item of the programme as a fieldset; `item` fills it (an existing item keeps its id). */
function addItem(item = {}) {
  const li = document.createElement('li');
  li.className = 'programme-item panel';
  li.dataset.item = item.item ?? `i${Date.now().toString(36)}${itemCount++}`;
  const rx = item.prescription ?? {};
  const exercise = document.createElement('select');
  exercise.name = 'exercise';
  for (const ex of catalog) exercise.append(new Option(exerciseName(ex), ex.id));
  exercise.value = item.exercise ?? catalog[0]?.id;
  const side = document.createElement('select');
  side.name = 'side';
  const target = numberInput('target', { min: '-360', max: '360', step: 'any' });
  const targetLabel = field('', target);
  const hold = numberInput('holdSeconds', { min: '0.5', max: '3600', step: 'any', value: rx.holdSeconds });
  const holdLabel = field(t('rx.hold'), hold);
  const refresh = () => {
    const ex = catalog.find((e) => e.id === exercise.value);
    const unit = unitOf(ex);
    const current = side.value || item.side || '';
    side.replaceChildren(new Option(t('side.right'), 'right'), new Option(t('side.left'), 'left'));
    if (ex?.sidedness !== 'oneSided') side.prepend(new Option(t('side.both'), ''));
    side.value = [...side.options].some((o) => o.value === current) ? current : side.options[0].value;
    const symbol = unitSymbol(unit);
    targetLabel.firstChild.textContent = t('rx.target') + (symbol ? ` (${symbol})` : '');
    holdLabel.hidden = ex?.kind !== 'hold';
    target.dataset.unit = unit ?? '';
  };
  exercise.addEventListener('change', refresh);
  if (rx.target != null) target.value = String(Math.round(toShown(rx.target, unitOf(catalog.find((e) => e.id === item.exercise))) * 1000) / 1000);
  const texts = item.instructions ?? {};
  const en = document.createElement('textarea');
  en.name = 'en'; en.maxLength = 2000; en.rows = 2; en.value = texts.en ?? '';
  const es = document.createElement('textarea');
  es.name = 'es'; es.maxLength = 2000; es.rows = 2; es.value = texts.es ?? '';
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'danger';
  remove.textContent = t('patients.removeItem');
  remove.addEventListener('click', () => li.remove());
  const error = document.createElement('p');
  error.className = 'field-error';
  error.setAttribute('role', 'alert');
  error.hidden = true;
  const fields = document.createElement('div');
  fields.className = 'ex-fields';
  fields.append(field(t('field.exercise'), exercise), field(t('field.side'), side),
    field(t('patients.perWeek'), numberInput('perWeek', { min: '1', max: '21', value: item.perWeek ?? 1 })),
    field(t('rx.reps'), numberInput('reps', { min: '1', max: '1000', value: rx.reps })),
    field(t('rx.sets'), numberInput('sets', { min: '1', max: '100', value: rx.sets })),
    field(t('patients.rest'), numberInput('restSeconds', { min: '0', max: '3600', value: rx.restSeconds })),
    targetLabel, holdLabel);
  const instructions = document.createElement('div');
  instructions.className = 'ex-fields';
  const wideEn = field(t('patients.instructionsEn'), en);
  const wideEs = field(t('patients.instructionsEs'), es);
  wideEn.className = 'wide';
  wideEs.className = 'wide';
  instructions.append(wideEn, wideEs);
  li.append(fields, instructions, error, remove);
  $('items').append(li);
  refresh();
}

/** The programme the form describes, as the server reads it (docs/programmes.md). */
function readProgramme() {
  const items = [...$('items').children].map((li) => {
    const value = (name) => li.querySelector(`[name="${name}"]`);
    const num = (name) => (value(name).value.trim() === '' ? undefined : Number(value(name).value));
    const target = num('target');
    const prescription = { reps: num('reps'), sets: num('sets'), restSeconds: num('restSeconds'),
      target: target === undefined ? undefined : fromShown(target, value('target').dataset.unit || null) };
    if (!value('holdSeconds').closest('label').hidden) prescription.holdSeconds = num('holdSeconds');
    const instructions = {};
    for (const lang of ['en', 'es']) if (value(lang).value.trim()) instructions[lang] = value(lang).value.trim().replace(/\s*\n\s*/g, ' ');
    return { item: li.dataset.item, exercise: value('exercise').value, side: value('side').value || null,
      perWeek: num('perWeek') ?? 1, prescription: JSON.parse(JSON.stringify(prescription)), instructions };
  });
  return { subject, startsOn: $('starts-on').value, endsOn: $('ends-on').value || null, items };
}

/** A refused programme explained at the item (and field) its pointer names. */
function showRefusal(e) {
  for (const p of $('items').querySelectorAll('.field-error')) p.hidden = true;
  const match = /^\/items\/(\d+)/.exec(e.pointer ?? '');
  const index = match ? Number(match[1]) : -1;
  const at = match ? $('items').children[index]?.querySelector('.field-error') : null;
  const place = at ?? $('editor-error');
  place.textContent = (at && prescriptionText(readProgramme().items[index])) || errorText(e);
  place.hidden = false;
}

/**
 * Why an item's prescription cannot be taken, from the exercise's own values as Live explains it ("Target: must
 * be above the rest position (30°)."), or null when the values do not say (prescription.js, errors.js).
 */
function prescriptionText(item) {
  const ex = catalog.find((c) => c.id === item?.exercise);
  if (!ex) return null;
  const applied = applyOptions(ex, item.prescription);
  const problems = prescriptionProblems(applied);
  const pointer = problems.includes('/target') ? '/target' : problems[0];
  if (!pointer) return null;
  const labels = { target: t('rx.target'), holdSeconds: t('rx.hold'), restPosition: t('error.restPosition') };
  return fieldProblem(pointer, applied, (name) => labels[name]);
}

function showEditor(draft = programme) {
  $('editor').hidden = false;
  $('access').hidden = false;
  $('editor-heading').textContent = t('patients.programmeOf', { subject });
  $('editor-state').textContent = programme
    ? t('patients.version', { version: programme.version, day: formatDate(programme.createdAt) }) : t('patients.newProgramme');
  $('end').hidden = !programme;
  $('report-link').href = `report.html?subject=${enc(subject)}`;
  $('starts-on').value = draft?.startsOn ?? today();
  $('ends-on').value = draft?.endsOn ?? '';
  $('items').replaceChildren();
  $('editor-error').hidden = true;
  for (const item of draft?.items ?? []) addItem(item);
  if (!draft?.items?.length) addItem();
}

async function openSubject(id) {
  subject = id.trim();
  if (!subject) return;
  $('subject').value = subject;
  history.replaceState(null, '', `?subject=${enc(subject)}`);
  try {
    const { programmes } = await listProgrammes({ subject, active: true });
    programme = programmes[0] ?? null;
    showEditor();
    $('new-link').hidden = true;
    await loadCodes();
    setStatus(null);
  } catch (e) { showError(e); }
}

async function save() {
  $('editor-error').hidden = true;
  const body = readProgramme();
  try {
    programme = programme
      ? await request('PUT', `/v1/programmes/${enc(programme.id)}`, body)
      : await request('POST', '/v1/programmes', body);
    showEditor();
    setStatus('patients.saved', { version: programme.version }, 'good');
    loadList().catch(() => {});
  } catch (e) {
    if (e.status === 422) showRefusal(e); else showError(e);
  }
}

async function endProgramme() {
  if (!programme || !confirm(t('patients.endConfirm'))) return;
  try {
    await request('DELETE', `/v1/programmes/${enc(programme.id)}`);
    programme = null;
    showEditor();
    setStatus('patients.ended', null, 'good');
    loadList().catch(() => {});
  } catch (e) { showError(e); }
}

// ---- Patient links ----------------------------------------------------------------------------------------------

async function loadCodes() {
  const { codes = [] } = await request('GET', `/v1/subjects/${enc(subject)}/access`) ?? {};
  const list = $('codes');
  list.replaceChildren();
  for (const c of codes.filter((c) => !c.revokedAt)) {
    const li = document.createElement('li');
    li.textContent = t('patients.code', { made: formatDate(c.createdAt), expires: formatDate(c.expiresAt) }) + ' ';
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'danger';
    revoke.textContent = t('patients.revoke');
    revoke.addEventListener('click', async () => {
      try {
        await request('DELETE', `/v1/subjects/${enc(subject)}/access/${enc(c.id)}`);
        $('new-link').hidden = true;
        setStatus('patients.revoked', null, 'good');
        await loadCodes();
      } catch (e) { showError(e); }
    });
    li.append(revoke);
    list.append(li);
  }
}

async function makeLink() {
  try {
    const access = await request('POST', `/v1/subjects/${enc(subject)}/access`, {});
    const url = new URL(`patient.html?lang=${language()}#code=${access.code}`, location.href).href;
    $('link-url').value = url;
    $('new-link').hidden = false;
    drawQR($('qr'), url);
    await loadCodes();
  } catch (e) { showError(e); }
}

$('open-form').addEventListener('submit', (e) => { e.preventDefault(); openSubject($('subject').value); });
$('add-item').addEventListener('click', () => addItem());
$('save').addEventListener('click', save);
$('end').addEventListener('click', endProgramme);
$('make-link').addEventListener('click', makeLink);
$('link-url').addEventListener('focus', (e) => e.target.select());

async function load(reload = false) {
  try {
    catalog = await exercises({ reload });
    await loadList();
    const wanted = new URLSearchParams(location.search).get('subject');
    if (wanted) await openSubject(wanted);
  } catch (e) { showError(e); }
  document.body.dataset.ready = 'true';
}
// A change of language names the exercises and fields again, keeping what was typed.
onLanguageChange(() => {
  setStatus(...statusKey);
  loadList().catch(() => {});
  if (subject && !$('editor').hidden) {
    showEditor(readProgramme());
    loadCodes().catch(() => {});
  }
});
window.addEventListener(TOKEN_EVENT, () => load(true));
load();
