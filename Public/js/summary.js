// Renders a stored session summary (docs/protocol.md §5) as a list of figures; used by Live, Watch and History.

import { t, faultText, sessionExerciseName } from './i18n.js';
import { formatDuration, formatDate, $ } from './common.js';
import { formatValue, unitOf } from './units.js';

/**
 * How far a session got with its prescribed goal: the summary's `goal` when the server gives it, else the same from
 * its prescription and clean reps (`{sets, setsDone, repsPerSet, met}`); null without a rep goal.
 */
export function goalOf(m) {
  if (m.goal) return m.goal;
  const repsPerSet = m.prescription?.reps;
  if (!repsPerSet) return null;
  const sets = m.prescription.sets ?? 1;
  const setsDone = Math.min(sets, Math.floor((m.repCount ?? 0) / repsPerSet));
  return { sets, setsDone, repsPerSet, met: setsDone >= sets };
}

/** The goal in words: "2 of 3 sets of 10 — not met", or "7 of 10 reps — met" for a single set. */
function goalText(goal, repCount) {
  const state = t(goal.met ? 'summary.goalMet' : 'summary.goalNotMet');
  const done = goal.sets > 1
    ? t('summary.goalValue', { done: goal.setsDone, sets: goal.sets, reps: goal.repsPerSet })
    : t('summary.goalRepsValue', { done: Math.min(repCount ?? 0, goal.repsPerSet), reps: goal.repsPerSet });
  return `${done} — ${state}`;
}

/**
 * The summary's figures as `[label key, text, id]` rows. `exercise`: the definition the session ran with, for its
 * name and the unit of its values (bare numbers when it is not known). `previous`: the subject's session of the same
 * exercise before this one (null: none; undefined: not asked), to compare with.
 */
export function summaryRows(m, { full = false, exercise = null, previous = undefined } = {}) {
  const faults = Object.entries(m.faultCounts || {});
  const unit = unitOf(exercise);
  const rows = [];
  if (full) {
    rows.push(['history.subject', m.subject || '–', 'summary-subject']);
    rows.push(['history.exercise', sessionExerciseName(exercise ?? m.exercise, m.side), 'summary-exercise']);
    rows.push(['history.started', formatDate(m.startedAt), 'summary-started']);
    rows.push(['history.status', t('status.' + m.status), 'summary-status']);
  }
  // First what was asked for and whether it was done.
  const goal = goalOf(m);
  if (goal) rows.push(['summary.goal', goalText(goal, m.repCount), 'summary-goal']);
  rows.push(
    ['summary.reps', m.repCount ?? 0, 'summary-reps'],
    ['summary.rejected', m.rejectedCount ?? 0, 'summary-rejected'],
    ['summary.best', formatValue(m.best, unit), 'summary-best'],
  );
  const target = m.prescription?.target ?? exercise?.target;
  if (target != null) {
    rows.push(['summary.targetBest', `${formatValue(target, unit)} · ${formatValue(m.best, unit)}`, 'summary-target']);
  }
  if (previous !== undefined) {
    const last = previous && t('summary.lastValue', {
      date: formatDate(previous.startedAt), best: formatValue(previous.best, unit), reps: previous.repCount ?? 0,
    });
    rows.push(['summary.last', last || t('summary.noLast'), 'summary-last']);
  }
  if (m.baseline != null) rows.push(['hud.baseline', formatValue(m.baseline, unit), 'summary-baseline']);
  // Holds: how long the longest was kept, past the prescribed time too (docs/protocol.md §5.4).
  if (m.bestHold != null) {
    const held = t('summary.heldValue', { seconds: formatSeconds(m.bestHold), attempts: (m.holds || []).length });
    rows.push(['summary.held', held, 'summary-held']);
  }
  rows.push(['summary.duration', formatDuration(m.duration), 'summary-duration']);
  // The recording's quality is for the clinician reading History, not for the patient who just finished.
  if (full) {
    rows.push(
      ['summary.frames', m.frames ?? '–', 'summary-frames'],
      ['summary.visible', m.visibleRatio == null ? '–' : `${Math.round(m.visibleRatio * 100)}%`, 'summary-visible'],
    );
  }
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
