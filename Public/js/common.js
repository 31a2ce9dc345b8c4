// Page chrome shared by every page: the language switch, the token form, and translating the static text.

import { apply, bindLanguageSelect, t } from './i18n.js';
import { bindTokenForm } from './api.js';

export function initPage() {
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

export function formatDate(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(document.documentElement.lang || undefined);
}

/** Opens the token form (after a 401) so the person can enter one. */
export function askForToken(error) {
  if (error?.status !== 401) return;
  const details = document.querySelector('details.token');
  if (details) {
    details.open = true;
    document.getElementById('token')?.focus();
  }
}
