// A prescription (`start.options`, docs/protocol.md §5.1) as the server applies and checks it, so that Live can
// refuse at the field what the server would refuse, before anything is sent. The rules are the server's: a
// prescribed target or rest moves the rep thresholds with it, keeping their place between rest and target, and the
// exercise as prescribed must then be sound (docs/exercises.md §3: values the measurement can read, thresholds in
// order for the direction, the target beyond rest).

import { measurementRange } from './units.js';

/** `exercise` with `options` applied (target, rest, enter, exit, holdSeconds), by the server's rule. */
export function applyOptions(exercise, options = {}) {
  const defaults = exercise.thresholds || {};
  const rest = options.rest ?? defaults.rest;
  const target = options.target ?? exercise.target;
  const span = exercise.target - defaults.rest;
  const scale = span !== 0 ? (target - rest) / span : 1;
  const moved = (level) => rest + (level - defaults.rest) * scale;
  const thresholds = {
    ...defaults, rest, enter: options.enter ?? moved(defaults.enter), exit: options.exit ?? moved(defaults.exit),
  };
  if (Number.isFinite(scale) && scale > 0) thresholds.minAmplitude = defaults.minAmplitude * scale;
  if (options.holdSeconds != null) thresholds.holdSeconds = options.holdSeconds;
  return { ...exercise, target, thresholds };
}

/**
 * The JSON Pointers of what makes `exercise` as prescribed unusable, in the server's order (an empty list when it is
 * sound): `/thresholds/rest|enter|exit`, `/thresholds/minAmplitude`, `/thresholds/holdSeconds`, `/target`.
 */
export function prescriptionProblems(exercise) {
  const problems = [];
  const range = measurementRange(exercise) ?? [-Infinity, Infinity];
  const within = (v) => Number.isFinite(v) && v >= range[0] && v <= range[1];
  const th = exercise.thresholds || {};
  const levels = ['rest', 'enter', 'exit'];
  for (const name of levels) if (!within(th[name])) problems.push(`/thresholds/${name}`);
  const sign = exercise.direction === 'falling' ? -1 : 1;
  if (levels.every((name) => Number.isFinite(th[name]))) {
    if (!(sign * th.rest <= sign * th.exit)) problems.push('/thresholds/exit');
    if (!(sign * th.exit < sign * th.enter)) problems.push('/thresholds/enter');
  }
  const span = range[1] - range[0];
  if (th.minAmplitude != null && !(th.minAmplitude >= 0 && th.minAmplitude <= span)) {
    problems.push('/thresholds/minAmplitude');
  }
  if (exercise.kind === 'hold' && !(th.holdSeconds > 0 && th.holdSeconds <= 3600)) {
    problems.push('/thresholds/holdSeconds');
  }
  if (!within(exercise.target)) problems.push('/target');
  else if (Number.isFinite(th.rest) && !(sign * (exercise.target - th.rest) > 0)) problems.push('/target');
  return problems;
}
