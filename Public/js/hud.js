// The heads-up display shared by Live and Watch: built from `snapshot` messages (docs/protocol.md §3), plus the
// feedback line fed by `event` messages, with optional voice and vibration. Values are in the exercise's unit
// (units.js), named for what is measured: an angle, a height, a rise.

import { t, faultText, setupText, jointName, onLanguageChange, apply } from './i18n.js';
import { formatValue, unitLegend, unitOf, valueLabelKey } from './units.js';

const HUD_HTML = `
  <div class="hud-main">
    <div class="hud-angle-box">
      <span class="hud-label" id="hud-value-label" data-i18n="hud.angle"></span>
      <output id="hud-angle" class="hud-angle" aria-live="off" aria-labelledby="hud-value-label">–</output>
      <span class="hud-sub"><span data-i18n="hud.target"></span> <span id="hud-target">–</span></span>
      <span class="hud-unit" id="hud-unit" hidden></span>
    </div>
    <dl class="hud-stats">
      <div><dt data-i18n="hud.best"></dt><dd id="hud-best">–</dd></div>
      <div><dt data-i18n="hud.clean"></dt><dd id="hud-clean" class="good">0</dd></div>
      <div><dt data-i18n="hud.rejected"></dt><dd id="hud-rejected" class="bad">0</dd></div>
      <div class="hud-confidence"><dt data-i18n="hud.confidence"></dt><dd id="hud-confidence">–</dd></div>
      <div id="hud-baseline-box" hidden><dt data-i18n="hud.baseline"></dt><dd id="hud-baseline">–</dd></div>
      <div id="hud-set-box" class="hud-set" hidden><dt id="hud-set-label"></dt><dd id="hud-set">–</dd></div>
    </dl>
  </div>
  <p id="hud-set-done" class="set-done" role="status" hidden></p>
  <div class="hud-hold" id="hud-hold-box" hidden>
    <span class="hud-label" data-i18n="hud.hold"></span>
    <div class="bar" id="hud-hold" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0"
      data-i18n-label="hud.hold"><div class="bar-fill" id="hud-hold-fill"></div></div>
  </div>
  <ul id="hud-instructions" class="hud-instructions" aria-live="polite"></ul>
  <div class="hud-last"><span class="hud-label" data-i18n="hud.lastRep"></span>
    <span id="hud-last-rep" data-i18n="hud.noRep"></span></div>
`;

export class Hud {
  constructor(container) {
    container.innerHTML = HUD_HTML;
    apply(container);
    const $ = (id) => container.querySelector('#' + id);
    this.el = {
      angle: $('hud-angle'), target: $('hud-target'), best: $('hud-best'), clean: $('hud-clean'),
      rejected: $('hud-rejected'), confidence: $('hud-confidence'), baselineBox: $('hud-baseline-box'),
      baseline: $('hud-baseline'), holdBox: $('hud-hold-box'), hold: $('hud-hold'), holdFill: $('hud-hold-fill'),
      instructions: $('hud-instructions'), lastRep: $('hud-last-rep'), setBox: $('hud-set-box'), set: $('hud-set'),
      setLabel: $('hud-set-label'),
      setDone: $('hud-set-done'),
      valueLabel: $('hud-value-label'), unit: $('hud-unit'),
    };
    this.snapshot = null;
    this.exercise = null;
    this.unit = null;
    this.instructionsKey = '';
    onLanguageChange(() => {
      this.instructionsKey = '';
      this.setExercise(this.exercise);
      if (this.snapshot) this.update(this.snapshot);
      else this.el.lastRep.textContent = t('hud.noRep');
    });
  }

  /** `value` in the exercise's unit, whole: "128°", "78%". */
  format(value) {
    return formatValue(value, this.unit);
  }

  /**
   * Shows `exercise` (as prescribed): its target, the name of what it measures ("Current height") and, for a
   * distance, what its percentages are of ("% of the upper-arm length").
   */
  setExercise(exercise) {
    this.exercise = exercise;
    if (!exercise) return;
    this.unit = unitOf(exercise);
    const e = this.el;
    e.valueLabel.dataset.i18n = valueLabelKey(exercise);
    e.valueLabel.textContent = t(e.valueLabel.dataset.i18n);
    e.target.textContent = this.format(exercise.target);
    // Degrees need no words; a percentage needs to say of what.
    e.unit.hidden = this.unit === 'degrees';
    e.unit.textContent = e.unit.hidden ? '' : unitLegend(exercise);
    e.holdBox.hidden = exercise.kind !== 'hold';
  }

  clear() {
    this.snapshot = null;
    this.instructionsKey = '';
    for (const k of ['angle', 'best', 'confidence', 'baseline']) this.el[k].textContent = '–';
    this.el.clean.textContent = '0';
    this.el.rejected.textContent = '0';
    this.el.instructions.replaceChildren();
    this.el.lastRep.textContent = t('hud.noRep');
    this.el.lastRep.className = '';
    this.el.baselineBox.hidden = true;
    this.el.setBox.hidden = true;
    this.el.setDone.hidden = true;
    this.setHold(null);
  }

  setHold(progress) {
    const pct = progress == null ? 0 : Math.round(Math.max(0, Math.min(1, progress)) * 100);
    this.el.holdFill.style.width = pct + '%';
    this.el.hold.setAttribute('aria-valuenow', String(pct));
  }

  update(s) {
    this.snapshot = s;
    const e = this.el;
    e.angle.textContent = this.format(s.value);
    e.angle.classList.toggle('unmeasured', s.value == null);
    e.best.textContent = this.format(s.best);
    e.clean.textContent = String(s.repCount ?? 0);
    e.rejected.textContent = String(s.rejectedCount ?? 0);
    e.confidence.textContent = s.confidence == null ? '–' : `${Math.round(s.confidence * 100)}%`;
    if (s.baseline) {
      e.baselineBox.hidden = false;
      // While it is measured, how far along it is, in words that cannot be read as a percentage of a segment.
      e.baseline.textContent = s.baseline.value != null ? this.format(s.baseline.value)
        : t('hud.baselineProgress', { percent: `${Math.round((s.baseline.progress || 0) * 100)}%` });
    }
    this.showSet(s.set);
    if (s.holdProgress != null) e.holdBox.hidden = false;
    this.setHold(s.holdProgress);
    // Instructions: rebuilt only when they change.
    const issues = s.setupIssues || [];
    const missing = s.missingJoints || [];
    const key = `${s.isVisible}|${issues.join(',')}|${missing.join(',')}`;
    if (key !== this.instructionsKey) {
      this.instructionsKey = key;
      const items = [];
      if (s.isVisible === false) items.push(['warn', t('hud.notVisible')]);
      for (const issue of issues) items.push(['warn', setupText(issue)]);
      if (s.isVisible !== false && missing.length) {
        items.push(['warn', t('hud.missing', { joints: missing.map(jointName).join(', ') })]);
      }
      if (!items.length) items.push(['ok', t('hud.allGood')]);
      e.instructions.replaceChildren(...items.map(([cls, text]) => {
        const li = document.createElement('li');
        li.className = cls;
        li.textContent = text;
        return li;
      }));
    }
    if (s.lastRep) this.showRep(s.lastRep);
  }

  /**
   * The prescribed sets (`snapshot.set`, docs/protocol.md §5.1): where the patient is, "set done, rest" from the
   * moment a set reaches its goal until the next set's first clean rep, and "goal met" for good once the last one
   * is done. Clean reps past the goal are shown as extra ("10/10 reps +2"), never as more than the goal.
   */
  showSet(set) {
    const e = this.el;
    e.setBox.hidden = !set;
    if (!set) { e.setDone.hidden = true; return; }
    e.setLabel.textContent = t('hud.setOf', set);
    const extra = set.reps - set.goal;
    e.set.textContent = extra > 0 ? t('hud.setExtra', { ...set, reps: set.goal, extra }) : t('hud.setReps', set);
    let done = null;
    if (set.complete) done = set.of > 1 ? t('hud.allSetsDone', set) : t('hud.goalMet');
    else if (set.number > 1 && set.reps === 0) {
      done = t('hud.setDone', { number: set.number - 1, of: set.of, next: set.number });
    }
    e.setDone.hidden = done == null;
    if (done != null && e.setDone.textContent !== done) e.setDone.textContent = done;
  }

  showRep(rep) {
    const parts = [t('hud.peak', { peak: this.format(rep.peak) })];
    parts.push(rep.clean ? t('hud.cleanRep') : (rep.faults || []).map(faultText).join('; '));
    const text = `#${rep.index}: ${parts.join(' — ')}`;
    if (this.el.lastRep.textContent !== text) {
      this.el.lastRep.textContent = text;
      this.el.lastRep.className = rep.clean ? 'good' : 'bad';
    }
  }
}

/**
 * The text of an `event` message in the current language, its values in `unit` (units.js); null for events that
 * say nothing.
 */
export function eventText(m, unit = null) {
  switch (m.event) {
    // Numbered by the clean reps counted (`count`, which Feedback adds), as the HUD counts them.
    case 'repCompleted':
      return t('event.repCompleted', { count: m.count ?? m.rep.index, peak: formatValue(m.rep.peak, unit) });
    case 'repRejected': return rejectedText(m.rep.faults || []);
    case 'holdStarted': return t('event.holdStarted');
    case 'holdEnded':
      return t(m.completed ? 'event.holdEndedCompleted' : 'event.holdEnded', {
        seconds: (m.held ?? 0).toLocaleString(document.documentElement.lang || 'en',
          { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
      });
    case 'formFault': return faultText(m.fault);
    case 'visibilityChanged': return t(m.visible ? 'event.visible' : 'event.notVisible');
    case 'setupChanged': return (m.issues || []).length ? m.issues.map(setupText).join('. ') : t('event.setupOk');
    case 'baselineCompleted': return t('event.baselineCompleted', { value: formatValue(m.value, unit) });
    case 'setCompleted': return t('event.setCompleted', { number: m.set });
    default: return null;
  }
}

/** `snapshot.motion` in words (docs/protocol.md §3.3): how much the phone moves and the share of it that is tremor. */
export function motionText(level) {
  return t('motion.level', { rms: level.rms.toFixed(2), tremor: Math.round(level.tremor * 100) });
}

/** Why a rep was not counted: its faults, or only that when there are none to name. */
function rejectedText(faults) {
  return faults.length ? t('event.repRejected', { faults: faults.map(faultText).join('; ') }) : t('event.repRejectedBare');
}

const KIND = {
  repCompleted: 'good', repRejected: 'bad', formFault: 'bad', holdStarted: 'info', holdEnded: 'info',
  visibilityChanged: 'warn',
  setupChanged: 'warn', baselineCompleted: 'info', setCompleted: 'good',
};

/**
 * The feedback line and a short log, re-translated on language change; voice and vibration optional, and muted for
 * a while without changing the choice (`muted`).
 */
export class Feedback {
  constructor(line, log, { max = 6 } = {}) {
    this.line = line;
    this.log = log;
    this.max = max;
    this.events = [];
    this.voice = false;
    this.vibrate = false;
    this.muted = false;
    this.outOfView = false;
    this.unit = null;
    // Clean reps counted so far (the snapshots' `repCount`): the number a clean rep's text says.
    this.counted = 0;
    // Faults already spoken since the last rep ended: a rejected rep does not say them again.
    this.spokenFaults = new Set();
    onLanguageChange(() => this.render());
  }

  /** The unit of the values the texts name (units.js). */
  setUnit(unit) {
    this.unit = unit;
    this.render();
  }

  clear() {
    this.events = [];
    this.outOfView = false;
    this.counted = 0;
    this.spokenFaults.clear();
    this.render();
  }

  push(event) {
    const m = event.event === 'repCompleted' ? { ...event, count: ++this.counted } : event;
    const text = eventText(m, this.unit);
    if (!text) return;
    // "Back in view" only after having been out of it: a session starts with the person in view.
    if (m.event === 'visibilityChanged') {
      const wasOut = this.outOfView;
      this.outOfView = !m.visible;
      if (m.visible && !wasOut) return;
    }
    this.events.unshift(m);
    if (this.events.length > this.max) this.events.length = this.max;
    this.render();
    this.say(m, text);
    if (this.vibrate && !this.muted && navigator.vibrate) {
      if (m.event === 'formFault' || m.event === 'repRejected') navigator.vibrate([120, 60, 120]);
      else if (m.event === 'repCompleted') navigator.vibrate(60);
    }
  }

  /** Speaks `text` for `m`, once: a rejected rep names only the faults not already said while it went on. */
  say(m, text) {
    let spoken = text;
    if (m.event === 'formFault') this.spokenFaults.add(m.fault);
    if (m.event === 'repRejected') spoken = rejectedText((m.rep.faults || []).filter((f) => !this.spokenFaults.has(f)));
    if (m.event === 'repCompleted' || m.event === 'repRejected') this.spokenFaults.clear();
    if (this.voice && !this.muted && 'speechSynthesis' in window && m.event !== 'visibilityChanged') {
      try {
        const u = new SpeechSynthesisUtterance(spoken);
        u.lang = document.documentElement.lang === 'es' ? 'es-ES' : 'en-US';
        window.speechSynthesis.cancel();
        window.speechSynthesis.speak(u);
      } catch { /* speech is best effort */ }
    }
  }

  render() {
    const [latest] = this.events;
    this.line.textContent = latest ? eventText(latest, this.unit) : '';
    this.line.className = 'feedback-line ' + (latest ? KIND[latest.event] || '' : '');
    if (this.log) {
      this.log.replaceChildren(...this.events.slice(1).map((m) => {
        const li = document.createElement('li');
        li.className = KIND[m.event] || '';
        li.textContent = eventText(m, this.unit);
        return li;
      }));
    }
  }
}
