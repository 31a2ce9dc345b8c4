// What the patient's page and Live's patient mode share about a programme item (docs/programmes.md): its name, its
// prescription in words and units, and its instructions in the page's language.

import { t, language, sessionExerciseName } from './i18n.js';
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
  if (rx.reps != null) {
    const one = rx.reps === 1 ? 'One' : '';
    parts.push(t(sets > 1 ? `patient.setsOf${one}Reps` : `patient.${one ? 'oneRep' : 'reps'}`, { sets, reps: rx.reps }));
  }
  else if (rx.sets != null) parts.push(t('patient.sets', { sets }));
  if (rx.holdSeconds != null) parts.push(t('patient.hold', { seconds: formatNumber(rx.holdSeconds, Number.isInteger(rx.holdSeconds) ? 0 : 1) }));
  if (rx.target != null) parts.push(t('patient.target', { target: formatValue(rx.target, unitOf(exercise)) }));
  if (rx.restSeconds) parts.push(t('patient.rest', { seconds: rx.restSeconds }));
  return parts.join(' · ');
}
