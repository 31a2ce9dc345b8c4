// Every measured number the pages show, in its exercise's unit (docs/exercises.md `unit`): the HUD, the chart axes
// and lines, History, Progress, Watch, the summary and the event texts all format through here.
//
// Angles are shown in degrees ("128°"). A distance measured in lengths of a body segment (`segmentLengths`: heel
// raise, planks, shoulder external rotation) is shown as a percentage of that segment's length ("78%" for 0.78,
// "78 %" in Spanish), with the segment named in the legend ("% of the upper-arm length"); the server's value is
// the fraction, and the prescription field takes percent too.

import { t, language, partName } from './i18n.js';

export const DEGREES = 'degrees';
export const SEGMENT_LENGTHS = 'segmentLengths';

/** The measurement types of docs/exercises.md §2 that read a distance, in lengths of a segment. */
const DISTANCE_TYPES = ['distance', 'height', 'rise'];

/**
 * The unit of an exercise definition: its `unit`, `degrees` or `segmentLengths`; for a draft without one (or from
 * a server that does not say), what its measurement reads; null when the exercise is not known (numbers then go
 * bare).
 */
export function unitOf(exercise) {
  if (!exercise) return null;
  if (exercise.unit === SEGMENT_LENGTHS || exercise.unit === DEGREES) return exercise.unit;
  return DISTANCE_TYPES.includes(exercise.measurement?.type) ? SEGMENT_LENGTHS : DEGREES;
}

/** What the measurement types of docs/exercises.md §2 can read, in their unit. */
const RANGES = {
  flexion: [0, 180], angleBetween: [0, 180], inclination: [0, 180], tilt: [0, 90], tiltAgainst: [0, 90],
  inclinationBeyond: [-180, 180], distance: [0, 10], height: [-10, 10], rise: [0, 10],
};

/** `[lowest, highest]` the exercise's measurement can read, or null for a type this page does not know. */
export function measurementRange(exercise) {
  return RANGES[exercise?.measurement?.type] ?? null;
}

const formats = new Map();

function numberFormat(digits, maxDigits, percent) {
  const key = `${language()}|${digits}|${maxDigits}|${percent}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(language(), {
      style: percent ? 'percent' : 'decimal', minimumFractionDigits: digits, maximumFractionDigits: maxDigits,
    });
    formats.set(key, format);
  }
  return format;
}

/** The number a person reads for `value`: percent of the segment for segment lengths, else the value itself. */
export function toShown(value, unit) {
  return unit === SEGMENT_LENGTHS ? value * 100 : value;
}

/** The server's value for a number a person typed (`toShown` reversed). */
export function fromShown(shown, unit) {
  return unit === SEGMENT_LENGTHS ? shown / 100 : shown;
}

/**
 * `value` in `unit` for the page's language: "128°", "17.5%" ("17,5 %" in Spanish), a bare number for an unknown
 * unit, "–" for none. `digits` decimals (whole numbers by default); `maxDigits` allows more when they are there.
 */
export function formatValue(value, unit, { digits = 0, maxDigits = digits } = {}) {
  if (value == null || !Number.isFinite(value)) return '–';
  const scale = 10 ** maxDigits;
  // Rounded first, so that -0.4 reads "0" and not "-0".
  const shown = Math.round(toShown(value, unit) * scale) / scale || 0;
  if (unit === SEGMENT_LENGTHS) return numberFormat(digits, maxDigits, true).format(shown / 100);
  const text = numberFormat(digits, maxDigits, false).format(shown);
  return unit === DEGREES ? `${text}°` : text;
}

/** A plain number (seconds, say) with `digits` decimals, with the decimal sign of the page's language. */
export function formatNumber(value, digits = 0) {
  if (value == null || !Number.isFinite(value)) return '–';
  return numberFormat(digits, digits, false).format(value);
}

/** The symbol after a number in `unit` ("°", "%"), for a field's label; empty for an unknown unit. */
export function unitSymbol(unit) {
  return unit === SEGMENT_LENGTHS ? '%' : unit === DEGREES ? '°' : '';
}

const NAMED_SEGMENTS = ['trunk', 'upperArm', 'forearm', 'thigh', 'shank', 'shoulderLine', 'hipLine', 'earLine'];

/** The length a segment-length measurement is counted in, in words: "the upper-arm length". */
export function segmentPhrase(per) {
  if (typeof per === 'string' && NAMED_SEGMENTS.includes(per)) return t('segment.' + per);
  if (Array.isArray(per) && per.length === 2) return t('segment.pair', { a: partName(per[0]), b: partName(per[1]) });
  return t('segment.unknown');
}

/**
 * What the numbers of `exercise` are, in words, for a chart's legend and beside the HUD: "degrees (°)", or
 * "% of the upper-arm length"; empty when the exercise is not known.
 */
export function unitLegend(exercise) {
  const unit = unitOf(exercise);
  if (unit === SEGMENT_LENGTHS) return t('unit.segmentLengths', { segment: segmentPhrase(exercise.measurement?.per) });
  return unit === DEGREES ? t('unit.degrees') : '';
}

/** `unitLegend` as a sentence of its own, under a chart without a line to label: "Values in % of the shin length". */
export function unitNote(exercise) {
  const legend = unitLegend(exercise);
  return legend ? t('unit.note', { unit: legend }) : '';
}

const VALUE_LABELS = { height: 'hud.height', rise: 'hud.rise', distance: 'hud.distance' };

/** The translation key of the HUD's name for the current value: an angle, a height, a rise, a distance. */
export function valueLabelKey(exercise) {
  const unit = unitOf(exercise);
  if (unit === DEGREES) return 'hud.angle';
  if (unit === SEGMENT_LENGTHS) return VALUE_LABELS[exercise.measurement?.type] ?? 'hud.value';
  return 'hud.value';
}

/** Tick steps for segment lengths: whole percents that read well (5 %, 10 %, 20 %, 25 %, 50 %…). */
const SEGMENT_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5];

function degreeStep(range) {
  if (range <= 60) return 15;
  if (range <= 120) return 30;
  return 45;
}

/**
 * A value axis for values up to `largest` (and down to `smallest`) in `unit`: `{min, max, step, ticks}`, each tick
 * `{value, label}`. Degrees from 0 to at least 30°, ticks of 15°, 30° or 45° and 5° of headroom; segment lengths
 * from 0 to at least 10 %, about five ticks. A value below 0 by more than a quarter of a step opens the axis
 * below 0 (a wrist below the elbow); less is noise, drawn on the 0 line.
 */
export function valueAxis(unit, largest, smallest = 0) {
  let step, max;
  if (unit === SEGMENT_LENGTHS) {
    const span = (Math.max(largest, 0.1) + Math.max(0, -smallest)) * 1.04;
    step = SEGMENT_STEPS.find((s) => span / s <= 5) ?? Math.ceil(span / 5);
    max = Math.ceil(Math.max(largest, 0.1) * 1.04 / step - 1e-9) * step;
  } else {
    const top = Math.max(largest, 30);
    step = degreeStep(top);
    max = Math.min(360, Math.ceil((top + 5) / step) * step);
  }
  const min = smallest < -step / 4 ? -Math.ceil(-smallest / step - 1e-9) * step : 0;
  const ticks = [];
  for (let k = 0; min + k * step <= max + step * 1e-6; k++) {
    const value = min + k * step;
    ticks.push({ value, label: formatValue(value, unit) });
  }
  return { min, max, step, ticks };
}
