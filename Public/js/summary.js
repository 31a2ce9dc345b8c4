// Renders a stored session summary (docs/protocol.md §5) as a list of figures; used by Live, Watch and History.

import { t, faultText, sessionExerciseName } from './i18n.js';
import { formatDuration, formatDate, $ } from './common.js';
import { formatValue, unitOf } from './units.js';

/**
 * The summary's figures as `[label key, text, id]` rows. `exercise`: the definition the session ran with, for its
 * name and the unit of its values (bare numbers when it is not known).
 */
export function summaryRows(m, { full = false, exercise = null } = {}) {
  const faults = Object.entries(m.faultCounts || {});
  const unit = unitOf(exercise);
  const rows = [];
  if (full) {
    rows.push(['history.subject', m.subject || '–', 'summary-subject']);
    rows.push(['history.exercise', sessionExerciseName(exercise ?? m.exercise, m.side), 'summary-exercise']);
    rows.push(['history.started', formatDate(m.startedAt), 'summary-started']);
    rows.push(['history.status', t('status.' + m.status), 'summary-status']);
  }
  rows.push(
    ['summary.reps', m.repCount ?? 0, 'summary-reps'],
    ['summary.rejected', m.rejectedCount ?? 0, 'summary-rejected'],
    ['summary.best', formatValue(m.best, unit), 'summary-best'],
  );
  if (m.baseline != null) rows.push(['hud.baseline', formatValue(m.baseline, unit), 'summary-baseline']);
  // Holds: how long the longest was kept, past the prescribed time too (docs/protocol.md §5.4).
  if (m.bestHold != null) {
    const held = t('summary.heldValue', { seconds: formatSeconds(m.bestHold), attempts: (m.holds || []).length });
    rows.push(['summary.held', held, 'summary-held']);
  }
  rows.push(
    ['summary.duration', formatDuration(m.duration), 'summary-duration'],
    ['summary.frames', m.frames ?? '–', 'summary-frames'],
    ['summary.visible', m.visibleRatio == null ? '–' : `${Math.round(m.visibleRatio * 100)}%`, 'summary-visible'],
  );
  if (!full) {
    rows.push(['summary.faults', faults.length ? faults.map(([f, n]) => `${faultText(f)} × ${n}`).join('; ') : '–', 'summary-faults']);
  }
  return rows;
}

/** Seconds held, to a tenth, in the page's language. */
const formatSeconds = (seconds) => seconds.toLocaleString(document.documentElement.lang || 'en',
  { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function renderSummary(m, dl, options) {
  dl.replaceChildren(...summaryRows(m, options).map(([key, value, id]) => {
    const div = document.createElement('div');
    const dt = document.createElement('dt');
    dt.textContent = t(key);
    const dd = document.createElement('dd');
    dd.id = id;
    dd.textContent = String(value);
    div.append(dt, dd);
    return div;
  }));
}

/**
 * Where a summary that came over a socket stands in the store (docs/protocol.md §3: the server answers `stop` with the
 * summary, stores it, then closes with 1000): 'saving' until that close, then 'stored' (the link to History is
 * offered only now, so it never opens a session still being written) or 'notStored' (the close said it failed).
 */
export function showStored(state) {
  $('summary-link').hidden = state !== 'stored';
  $('summary-saving').hidden = state === 'stored';
  const note = $('summary-saving');
  note.dataset.state = state;
  // As a `data-i18n` key, the note follows a change of language.
  const key = { saving: 'summary.saving', notStored: 'summary.notStored' }[state];
  if (key) note.dataset.i18n = key;
  else delete note.dataset.i18n;
  note.textContent = key ? t(key) : '';
  $('summary').dataset.stored = state;
}
