// What the patient's page and Live's patient mode share about a programme item (docs/programmes.md): its name, its
// prescription in words and units, and its instructions in the page's language.

import { t, language, sessionExerciseName, exerciseName } from './i18n.js';
import { formatNumber, formatValue, unitOf } from './units.js';

/** The item's exercise named with its side, in the page's language ("Heel slide (lying), right side"). */
export function itemName(item, exercise) {
  return sessionExerciseName(exercise ?? { id: item.exercise }, item.side);
}

/** The item's instructions in the page's language, else the other one's, else ''. */
export function itemInstructions(item) {
  const texts = item.instructions ?? {};
  return texts[language()] || texts.en || texts.es || '';
}

/** The prescription in words: "3 sets of 10 reps · target 90° · rest 30 s" (the exercise's unit). */
export function prescriptionText(item, exercise) {
  const rx = item.prescription ?? {};
  const parts = [];
  const sets = rx.sets ?? 1;
  if (rx.reps != null) parts.push(t(sets > 1 ? 'patient.setsOfReps' : 'patient.reps', { sets, reps: rx.reps }));
  else if (rx.sets != null) parts.push(t('patient.sets', { sets }));
  if (rx.holdSeconds != null) parts.push(t('patient.hold', { seconds: formatNumber(rx.holdSeconds, Number.isInteger(rx.holdSeconds) ? 0 : 1) }));
  if (rx.target != null) parts.push(t('patient.target', { target: formatValue(rx.target, unitOf(exercise)) }));
  if (rx.restSeconds) parts.push(t('patient.rest', { seconds: rx.restSeconds }));
  return parts.join(' · ');
}

function cells(row, values, tag = 'td') {
  for (const v of values) {
    const c = document.createElement(tag);
    c.textContent = v;
    row.append(c);
  }
  return row;
}

/** Fills `el` (a table) with a head row and body rows of text cells. */
export function fillTable(el, head, rows) {
  const thead = el.createTHead();
  thead.replaceChildren(cells(document.createElement('tr'), head, 'th'));
  const body = el.tBodies[0] ?? el.createTBody();
  body.replaceChildren(...rows.map((r) => cells(document.createElement('tr'), r)));
}

/**
 * Adherence (`GET /v1/subjects/{subject}/adherence`) as a table: a row per week, a column per programme item, each
 * cell "goal met / prescribed (sessions)". Items are named from `programme` (their exercise and side) when it holds
 * them, else by their exercise. Returns how many items there were.
 */
export function fillAdherence(el, adherence, programme, catalog) {
  const keys = [...new Map(adherence.weeks.flatMap((w) => w.items).map((i) => [`${i.programme}/${i.item}`, i])).values()];
  const name = (entry) => {
    const item = programme?.items.find((i) => i.item === entry.item);
    return item ? itemName(item, catalog.find((e) => e.id === item.exercise)) : exerciseName(entry.exercise);
  };
  fillTable(el, [t('report.week'), ...keys.map(name)], adherence.weeks.map((w) => [w.week, ...keys.map((k) => {
    const e = w.items.find((i) => i.programme === k.programme && i.item === k.item);
    return e ? t('report.cell', e) : '–';
  })]));
  return keys.length;
}
