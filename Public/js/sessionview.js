// One binding of a session's messages to the screen, used by Live and Watch alike: `snapshot` messages feed the
// HUD and the chart, `event` messages the feedback, the chart's rep markers and the HUD's last rep, and the
// exercise as prescribed (docs/protocol.md §5.1) sets the target and thresholds that the chart draws and names, and
// the unit every one of those numbers is shown in (units.js).

import { t, onLanguageChange } from './i18n.js';
import { formatValue, unitLegend, unitOf } from './units.js';

/** How often a chart's text equivalent is renewed: often enough to be current, calm enough to be read. */
export const CHART_TEXT_MS = 2000;

/** Says in words what `chart` shows, its latest value and range in its unit, in `element` (its description). */
export function describeChart(chart, element) {
  const figures = chart.summary();
  const f = (v) => formatValue(v, chart.unit);
  element.textContent = figures
    ? t('chart.summary', {
      value: f(figures.latest), min: f(figures.min), max: f(figures.max), seconds: figures.seconds,
    })
    : t('chart.summaryEmpty');
}

/** Keeps `element` describing `chart` in the page's language, renewed every CHART_TEXT_MS. */
export function keepDescribed(chart, element) {
  const describe = () => describeChart(chart, element);
  onLanguageChange(describe);
  describe();
  setInterval(describe, CHART_TEXT_MS);
  return describe;
}

/** The effective target and thresholds of a catalog entry under a stored summary's `prescription` (§5.2). */
export function prescribed(exercise, prescription) {
  if (!exercise || !prescription) return exercise;
  const pick = (key, fallback) => (prescription[key] ?? fallback);
  return {
    ...exercise,
    target: pick('target', exercise.target),
    thresholds: {
      ...exercise.thresholds,
      rest: pick('rest', exercise.thresholds?.rest), enter: pick('enter', exercise.thresholds?.enter),
      exit: pick('exit', exercise.thresholds?.exit), holdSeconds: pick('holdSeconds', exercise.thresholds?.holdSeconds),
    },
  };
}

export class SessionView {
  /**
   * @param {{hud: import('./hud.js').Hud, chart: import('./chart.js').RealtimeChart,
   *   feedback: import('./hud.js').Feedback, lines?: HTMLElement, skeleton?: import('./skeleton.js').SkeletonView}} parts
   *   `lines`: where the chart's target and thresholds are named in words; `unit`: where the chart's legend says
   *   what its values are ("degrees (°)", "% of the shin length"); `skeleton`: marks the unseen joints.
   */
  constructor({ hud, chart, feedback, lines = null, unit = null, skeleton = null }) {
    Object.assign(this, { hud, chart, feedback, lines, unitLabel: unit, skeleton });
    this.exercise = null;
    this.chartT = -Infinity;
  }

  /** A new session (or none): HUD, feedback and chart start empty. */
  clear() {
    this.hud.clear();
    this.feedback.clear();
    this.chart.reset();
    this.chartT = -Infinity;
  }

  /**
   * Shows `exercise` (as prescribed): its target in the HUD, its target and thresholds drawn and named, all in its
   * unit.
   */
  setExercise(exercise) {
    this.exercise = exercise;
    this.hud.setExercise(exercise);
    const unit = unitOf(exercise);
    this.chart.setUnit(unit);
    this.feedback.setUnit(unit);
    if (this.unitLabel) this.unitLabel.textContent = unitLegend(exercise);
    const lines = {
      target: exercise?.target ?? null, enter: exercise?.thresholds?.enter ?? null, exit: exercise?.thresholds?.exit ?? null,
    };
    this.chart.setLines(lines);
    if (!this.lines) return;
    const f = (v) => formatValue(v, unit, { maxDigits: 1 });
    this.lines.textContent = t('chart.lines', { target: f(lines.target), enter: f(lines.enter), exit: f(lines.exit) });
    this.lines.dataset.lines = JSON.stringify(lines);
  }

  /** Names the lines again in the current language. */
  retranslate() {
    if (this.exercise) this.setExercise(this.exercise);
  }

  snapshot(m) {
    this.hud.update(m);
    this.feedback.counted = m.repCount ?? 0;
    // A snapshot answered again after a resume is not drawn twice.
    if (m.t > this.chartT) {
      this.chartT = m.t;
      this.chart.push(m.t, m.value);
    }
    if (this.skeleton) this.skeleton.setMissing(m.isVisible === false ? [...this.skeleton.measured] : m.missingJoints);
  }

  event(m) {
    this.feedback.push(m);
    if (m.rep && (m.event === 'repCompleted' || m.event === 'repRejected')) {
      this.chart.markRep(m.t, m.event === 'repCompleted');
      this.hud.showRep(m.rep);
    }
  }
}
