// Exercises: a clinic's own exercises (docs/protocol.md §5.1), listed beside nothing else, created with POST, changed
// with PUT (a new version; stored sessions keep theirs) and deleted with DELETE after a confirmation. A refused
// definition (422 `invalidExercise`) is shown at the field its JSON Pointer names.

import { initPage, $, askForToken, errorStatus } from './common.js';
import { t, onLanguageChange } from './i18n.js';
import { exercises, request, TOKEN_EVENT } from './api.js';
import { ExerciseTrial } from './exercisetrial.js';
import { errorText, fieldProblem } from './errors.js';

initPage();

/** The label of the form's field for a member of the definition (`enter`, `target`, `name`…), or null. */
function labelOf(name) {
  const field = fieldFor(NUMBERS.includes(name) ? `/thresholds/${name}` : `/${name}`);
  return field?.closest('label')?.querySelector('span')?.textContent.trim() || null;
}

/**
 * Why the server refused `definition`, in the page's language: a refused field (`invalidExercise` with a pointer,
 * under `/exercise` for a preview) explained from the definition's values, anything else from its code.
 */
function explain(error, definition) {
  if (error?.code !== 'invalidExercise' || !error.pointer) return errorText(error);
  return fieldProblem(error.pointer.replace(/^\/exercise(?=\/)/, ''), definition, labelOf);
}

let editing = null; // the stored definition being edited, or null for a new one
const trial = new ExerciseTrial({ canvas: $('ex-figure'), acted: $('ex-acted'), counts: $('ex-counts'), explain });
let trialTimer = null;
let statusKey = [null];

function status(key, params, cls = '') {
  statusKey = [key, params, cls];
  $('ex-status').textContent = key ? t(key, params) : '';
  $('ex-status').className = 'status ' + cls;
}

const NUMBERS = ['rest', 'enter', 'exit', 'minAmplitude', 'holdSeconds'];
const CHOICES = ['view', 'kind', 'sidedness', 'direction'];

/** The definition the form describes, on top of the edited one (its other members kept); throws on bad JSON. */
function definition() {
  const d = editing ? structuredClone(editing) : { thresholds: {} };
  for (const key of ['version', 'builtin', 'joints', 'faults', 'unit']) delete d[key];
  d.id = $('ex-id').value.trim();
  d.name = $('ex-name').value.trim();
  for (const key of CHOICES) d[key] = $('ex-' + key).value;
  d.measurement = JSON.parse($('ex-measurement').value);
  d.thresholds = { ...(d.thresholds || {}) };
  for (const key of NUMBERS) {
    const raw = $('ex-' + key).value.trim();
    if (raw === '' || (key === 'holdSeconds' && d.kind !== 'hold')) delete d.thresholds[key];
    else d.thresholds[key] = Number(raw);
  }
  const target = $('ex-target').value.trim();
  if (target === '') delete d.target; else d.target = Number(target);
  if (d.holdSeconds === null) delete d.holdSeconds;
  return d;
}

/** Shows what will be sent and, once typing pauses, tries the draft on the Demo figure. */
function preview() {
  $('ex-hold-box').hidden = $('ex-kind').value !== 'hold';
  clearTimeout(trialTimer);
  let d;
  try {
    d = definition();
    $('ex-preview').textContent = JSON.stringify(d, null, 2);
  } catch {
    $('ex-preview').textContent = t('exercises.badJSON');
    trial.refuse(t('exercises.badJSON'));
    return;
  }
  // Until the numbers a definition needs are there, there is nothing to try (and nothing to refuse).
  if (['rest', 'enter', 'exit', 'minAmplitude'].some((key) => d.thresholds[key] === undefined) || d.target === undefined) {
    trial.wait();
    return;
  }
  // An id is not needed to try a draft.
  trialTimer = setTimeout(() => trial.show({ ...d, id: d.id || 'draft' }), 400);
}

/** The form's field for a JSON Pointer of the definition: `/thresholds/enter` → the Enter field. */
function fieldFor(pointer) {
  const parts = String(pointer || '').split('/').filter(Boolean);
  if (parts[0] === 'thresholds' && NUMBERS.includes(parts[1])) return $('ex-' + parts[1]);
  if (parts[0] === 'measurement') return $('ex-measurement');
  if (['id', 'name', 'target', ...CHOICES].includes(parts[0])) return $('ex-' + parts[0]);
  return null;
}

function showError(field, message) {
  for (const el of $('ex-form').querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  $('ex-error').hidden = !message;
  $('ex-error').textContent = message || '';
  if (!message) return;
  const target = field || $('ex-error');
  if (field) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-errormessage', 'ex-error');
    // The message sits just above the field it is about.
    field.closest('label').before($('ex-error'));
  } else {
    $('ex-form').querySelector('.ex-fields').before($('ex-error'));
  }
  target.focus?.();
}

function fill(d) {
  editing = d;
  $('ex-form-heading').textContent = d ? t('exercises.editing', { name: d.name }) : t('exercises.new');
  $('ex-id').value = d?.id ?? '';
  $('ex-id').disabled = !!d;
  $('ex-name').value = d?.name ?? '';
  for (const key of CHOICES) $('ex-' + key).selectedIndex = 0;
  for (const key of CHOICES) if (d?.[key]) $('ex-' + key).value = d[key];
  $('ex-measurement').value = JSON.stringify(d?.measurement ?? { type: 'flexion', joints: ['shoulder', 'elbow', 'wrist'] });
  for (const key of NUMBERS) $('ex-' + key).value = d?.thresholds?.[key] ?? '';
  $('ex-target').value = d?.target ?? '';
  showError(null);
  preview();
}

async function save() {
  let d;
  try { d = definition(); } catch { showError($('ex-measurement'), t('exercises.badJSON')); return; }
  if (!d.id) { showError($('ex-id'), t('exercises.needId')); return; }
  try {
    const saved = editing
      ? await request('PUT', `/v1/exercises/${encodeURIComponent(editing.id)}`, d)
      : await request('POST', '/v1/exercises', d);
    fill(saved);
    status('exercises.saved', { name: saved.name, version: saved.version }, 'good');
    await load(true);
  } catch (e) {
    if (e?.status === 422) showError(fieldFor(e.pointer), explain(e, d));
    else { showError(null, t(...errorStatus(e))); askForToken(e); }
  }
}

async function remove(d) {
  if (!confirm(t('exercises.confirmDelete', { name: d.name }))) return;
  try {
    await request('DELETE', `/v1/exercises/${encodeURIComponent(d.id)}`);
    if (editing?.id === d.id) fill(null);
    status('exercises.deleted', { name: d.name }, 'good');
    await load(true);
  } catch (e) {
    status(...errorStatus(e), 'bad');
    askForToken(e);
  }
}

let custom = [];
function renderList() {
  $('ex-list').replaceChildren(...custom.map((d) => {
    const li = document.createElement('li');
    const name = document.createElement('span');
    name.textContent = `${d.name} (${d.id}, v${d.version})`;
    const edit = document.createElement('button');
    edit.type = 'button';
    edit.textContent = t('exercises.edit');
    edit.setAttribute('aria-label', t('exercises.editNamed', { name: d.name }));
    edit.addEventListener('click', () => { fill(d); $('ex-name').focus(); });
    const del = document.createElement('button');
    del.type = 'button';
    del.className = 'danger';
    del.textContent = t('exercises.delete');
    del.setAttribute('aria-label', t('exercises.deleteNamed', { name: d.name }));
    del.addEventListener('click', () => remove(d));
    li.append(name, edit, del);
    return li;
  }));
  if (!custom.length) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = t('exercises.none');
    $('ex-list').append(li);
  }
}

async function load(reload = false) {
  try {
    custom = (await exercises({ reload })).filter((e) => e.builtin === false);
    renderList();
    document.body.dataset.ready = 'true';
  } catch (e) {
    status(...errorStatus(e), 'bad');
    askForToken(e);
  }
}

$('ex-form').addEventListener('submit', (e) => { e.preventDefault(); save(); });
$('ex-form').addEventListener('input', preview);
$('ex-new').addEventListener('click', () => { fill(null); $('ex-id').focus(); });
onLanguageChange(() => { renderList(); status(...statusKey); fill(editing); trial.retranslate(); });
fill(null);
load();
window.addEventListener(TOKEN_EVENT, () => load(true));
