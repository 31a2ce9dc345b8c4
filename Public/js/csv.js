// A session's reps as a CSV file for spreadsheets, in the page's language: headings and names as the page shows
// them, with their units; in Spanish the separator a Spanish spreadsheet expects (`;`, since `,` is its decimal
// sign). The server's own CSV (`GET /v1/sessions/{id}?format=csv`, docs/protocol.md §5) stays for scripts: wire
// names, one column layout, numbers as written on the wire.

import { t, faultText, exerciseName, language } from './i18n.js';
import { toShown, unitOf, unitSymbol } from './units.js';

/** The field separator and decimal sign of the page's language: `;` and `,` where the decimal sign is a comma. */
function dialect() {
  const decimal = (1.5).toLocaleString(language()).includes(',') ? ',' : '.';
  return { separator: decimal === ',' ? ';' : ',', decimal };
}

/** The session's local calendar day, `YYYY-MM-DD`, and time, `HH-MM-SS`. */
function localDayAndTime(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return ['', ''];
  const two = (n) => String(n).padStart(2, '0');
  return [`${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`,
    `${two(d.getHours())}-${two(d.getMinutes())}-${two(d.getSeconds())}`];
}

/**
 * `s`'s reps as CSV (RFC 4180, CRLF line ends) with the subject, exercise, side and date on every row. `exercise`:
 * the definition the session ran with, for its name and unit. Measured values to one decimal in its unit (percent of
 * the segment for lengths), times in seconds, tremor in percent; a field that could start a spreadsheet formula is
 * written as text.
 */
export function sessionCSV(s, exercise) {
  const { separator, decimal } = dialect();
  const unit = unitOf(exercise);
  const symbol = unitSymbol(unit);
  const number = (v, digits = 1) => (v == null || !Number.isFinite(v) ? '' : v.toFixed(digits).replace('.', decimal));
  const value = (v) => number(v == null ? null : toShown(v, unit));
  const withUnit = (key, u) => (u ? `${t(key)} (${u})` : t(key));
  const header = [
    t('history.subject'), t('history.exercise'), t('field.side'), t('csv.date'), t('history.started'), t('csv.rep'),
    withUnit('history.peak', symbol), withUnit('history.trough', symbol), withUnit('history.range', symbol),
    withUnit('csv.start', 's'), withUnit('csv.end', 's'), withUnit('history.duration', 's'), t('csv.clean'),
    t('summary.faults'), t('history.smoothness'), withUnit('history.tremor', '%'),
  ];
  const name = exerciseName(exercise ?? s.exercise);
  const [day] = localDayAndTime(s.startedAt);
  const rows = (s.reps || []).map((r) => {
    const range = r.range ?? (r.trough != null ? r.peak - r.trough : null);
    const side = r.side || s.side;
    return [
      s.subject || '', name, side ? t('side.' + side) : '', day, s.startedAt || '', String(r.index),
      value(r.peak), value(r.trough), value(range), number(r.start), number(r.end), number(r.duration),
      t(r.clean ? 'csv.yes' : 'csv.no'), (r.faults || []).map(faultText).join('; '), number(r.smoothness, 2),
      r.tremor == null ? '' : number(r.tremor * 100),
    ];
  });
  return [header, ...rows].map((fields) => fields.map((f) => cell(f, separator)).join(separator)).join('\r\n')
    + '\r\n';
}

/** A field as CSV: quoted when it holds the separator, a quote or a line end; text that a spreadsheet would read as
 * a formula (`=`, `+`, `-`, `@`, a tab or CR first, and not a number) is marked as text with a leading `'`. */
function cell(field, separator) {
  let text = String(field);
  if (/^[=+\-@\t\r]/.test(text) && !/^-\d/.test(text)) text = `'${text}`;
  return text.includes(separator) || /["\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * `subject_exercise_YYYY-MM-DD_HH-MM-SS.csv` from the session's local start, with only file-name-safe characters:
 * two sessions of one day have files of their own.
 */
export function csvFileName(s) {
  const safe = (v) => String(v).normalize('NFKD').replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '');
  return [s.subject ? safe(s.subject) : 'session', safe(s.exercise), ...localDayAndTime(s.startedAt)]
    .filter(Boolean).join('_') + '.csv';
}
