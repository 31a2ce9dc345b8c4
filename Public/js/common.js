// What every page does first: its shared chrome (chrome.js) rendered, the language switch and the token form
// bound, and the static text translated.

import { apply, bindLanguageSelect, t } from './i18n.js';
import { bindTokenForm, token } from './api.js';
import { renderChrome } from './chrome.js';
import { errorText } from './errors.js';

export function initPage() {
  renderChrome();
  apply();
  bindLanguageSelect(document.getElementById('lang'));
  bindTokenForm(document.getElementById('token'), document.getElementById('token-save'),
    document.getElementById('token-status'), t);
}

export const $ = (id) => document.getElementById(id);

export function formatDuration(seconds) {
  if (seconds == null) return '–';
  const s = Math.round(seconds);
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`;
}

/** The instant (Unix seconds) the browser's day `value` (YYYY-MM-DD) starts, or the day `days` later starts. */
export function localMidnight(value, days = 0) {
  const [year, month, day] = value.split('-').map(Number);
  return Math.floor(new Date(year, month - 1, day + days).getTime() / 1000);
}

export function formatDate(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(document.documentElement.lang || undefined);
}

/** Opens the access-code form (after a 401, or `force`) so the person can enter one. */
export function askForToken(error, { force = false } = {}) {
  if (!force && error?.status !== 401) return;
  const details = document.querySelector('details.token');
  if (details) {
    details.open = true;
    document.getElementById('token')?.focus();
  }
}

/**
 * The status `[key, params]` for a failed request: plain words for a missing or rejected access code, else what
 * the error's code means in the page's language (errors.js).
 */
export function errorStatus(error) {
  if (error?.status === 401) return [token() ? 'token.rejected' : 'token.needed', null];
  if (error?.status === 403 && error?.code !== 'originNotAllowed') return ['token.forbidden', null];
  // Read when shown, so that a status kept for a change of language is said in the new one.
  return ['status.error', { get message() { return errorText(error); } }];
}
