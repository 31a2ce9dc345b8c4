// The server's errors in the page's language. The server's `message` is English and for people who read logs; the
// pages say what an error means from its stable `code` (docs/protocol.md §3 and §5, a text under `error.<code>` in
// i18n.js) and, for a refused field, from its JSON Pointer and the exercise's own values ("Target: must be above
// the rest position (30°)."). The English message is shown only for a code this page does not know.

import { t, hasText } from './i18n.js';
import { formatValue, measurementRange, unitOf } from './units.js';

/** What `error` (an `error` message, an APIError, or any Error) means, in the page's language. */
export function errorText(error) {
  const code = error?.code;
  if (code && hasText('error.' + code)) return t('error.' + code);
  return error?.message || String(error ?? '');
}

/**
 * The JSON Pointers an error names, in order: its `pointer` (REST, docs/protocol.md §5.1), else the fields its
 * message names: a refused prescription names them as pointers before a colon
 * (`/target: …; /thresholds/enter: …`) or, from the decoder, as `options.<name>` (written `/options/<name>`).
 */
export function errorPointers(error) {
  if (error?.pointer) return [error.pointer];
  const message = String(error?.message ?? '');
  const pointers = [...message.matchAll(/(?:^|; )(\/[\w/]+):/g)].map((m) => m[1]);
  for (const m of message.matchAll(/\boptions\.(\w+)/g)) pointers.push(`/options/${m[1]}`);
  return pointers;
}

const THRESHOLDS = ['rest', 'enter', 'exit'];

/**
 * Why `definition` is refused at `pointer` (a pointer into an exercise definition, docs/exercises.md §3), in
 * words, from the definition's own values: "Enter: must be above Exit (40°)." `label(name)` names a field
 * (`target`, `rest`, `enter`, `exit`, `minAmplitude`, `holdSeconds`, `id`, `name`, `measurement`) as the page
 * shows it; a pointer without a name is shown as it is. A refusal the values do not explain is said generally.
 */
export function fieldProblem(pointer, definition, label) {
  const parts = String(pointer).split('/').filter(Boolean);
  const name = parts[0] === 'thresholds' ? parts[1] : parts[0];
  const field = label(name) || pointer;
  const d = definition || {};
  const unit = unitOf(d);
  const f = (v) => formatValue(v, unit, { maxDigits: 2 });
  const th = d.thresholds || {};
  const value = name === 'target' ? d.target : th[name];
  const range = measurementRange(d);
  const rising = d.direction !== 'falling';
  const compare = (key, other, otherValue) => t(key, { field, other, value: f(otherValue) });
  if (name === 'id') return t('error.id', { field });
  if (name === 'name') return t('error.name', { field });
  if (name === 'measurement') return t('error.measurement', { field });
  if ((name === 'target' || THRESHOLDS.includes(name)) && parts.length <= 2) {
    if (range && !(Number.isFinite(value) && value >= range[0] && value <= range[1])) {
      return t('error.range', { field, min: f(range[0]), max: f(range[1]) });
    }
    if (name === 'target' && Number.isFinite(th.rest) && !(rising ? value > th.rest : value < th.rest)) {
      return compare(rising ? 'error.above' : 'error.below', label('restPosition') || label('rest'), th.rest);
    }
    if (name === 'exit' && Number.isFinite(th.rest) && !(rising ? value >= th.rest : value <= th.rest)) {
      return compare(rising ? 'error.atLeast' : 'error.atMost', label('rest'), th.rest);
    }
    if (name === 'enter' && Number.isFinite(th.exit) && !(rising ? value > th.exit : value < th.exit)) {
      return compare(rising ? 'error.above' : 'error.below', label('exit'), th.exit);
    }
  }
  if ((name === 'minAmplitude' || name === 'holdTolerance') && range) {
    return t('error.range', { field, min: f(0), max: f(range[1] - range[0]) });
  }
  if (name === 'holdSeconds') return t('error.range', { field, min: 0, max: t('unit.seconds', { n: 3600 }) });
  return t('error.field', { field });
}
