// REST and WebSocket access to the server (docs/protocol.md §3, §5, §6). The optional bearer token lives in
// localStorage and is sent as `Authorization: Bearer` (REST) or the `bearer.<token>` subprotocol (WebSocket).

import { rememberExercises } from './i18n.js';

const TOKEN_KEY = 'motion.token';
const PATIENT_KEY = 'motion.patientCode';

/**
 * The credential the page sends: a patient code the patient's page keeps for this tab (docs/programmes.md), else
 * the clinic's access code.
 */
export function token() {
  return patientCode() || clinicToken();
}

function clinicToken() {
  try { return localStorage.getItem(TOKEN_KEY) || ''; } catch { return ''; }
}

/** The patient code this tab was opened with (`patient.html#code=…`), kept in sessionStorage. */
export function patientCode() {
  try { return sessionStorage.getItem(PATIENT_KEY) || ''; } catch { return ''; }
}

export function setPatientCode(value) {
  try {
    if (value) sessionStorage.setItem(PATIENT_KEY, value); else sessionStorage.removeItem(PATIENT_KEY);
  } catch { /* ignore */ }
}

export function setToken(value) {
  try {
    if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY);
  } catch { /* ignore */ }
}

export class APIError extends Error {
  /**
   * `pointer`: for a refused exercise definition (422), the JSON Pointer of the first bad field. A server that could
   * not be reached at all is status 0 with the code `unreachable`.
   */
  constructor(status, code, message, pointer = null) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.pointer = pointer;
  }
}

function headers(extra) {
  const h = { Accept: 'application/json', ...extra };
  const tk = token();
  if (tk) h.Authorization = `Bearer ${tk}`;
  return h;
}

/** Fetches JSON from the API; throws APIError with the server's error code on failure. */
export async function request(method, path, body) {
  const init = { method, headers: headers(body !== undefined ? { 'Content-Type': 'application/json' } : {}) };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new APIError(0, 'unreachable', e?.message || String(e));
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  if (!response.ok) {
    throw new APIError(response.status, json?.error?.code, json?.error?.message || text || response.statusText,
      json?.error?.pointer ?? null);
  }
  return json;
}

export const getJSON = (path) => request('GET', path);

let catalogPromise = null;
/** The exercise catalog (`GET /v1/exercises`), fetched once; its names are remembered for `exerciseName`. */
export function exercises({ reload = false } = {}) {
  if (!catalogPromise || reload) {
    catalogPromise = getJSON('/v1/exercises').then((r) => {
      rememberExercises(r.exercises);
      return r.exercises;
    }).catch((e) => { catalogPromise = null; throw e; });
  }
  return catalogPromise;
}

/** An exercise as the server has it now (`GET /v1/exercises/{id}`). */
export const getExercise = (id) => getJSON(`/v1/exercises/${encodeURIComponent(id)}`);

/** One stored version of an exercise (`GET /v1/exercises/{id}/versions/{n}`), also of a deleted one. */
export const getExerciseVersion = (id, version) =>
  getJSON(`/v1/exercises/${encodeURIComponent(id)}/versions/${encodeURIComponent(version)}`);

const storedVersions = new Map(); // `id@version` → promise of the definition or null

/**
 * The definition a stored session ran with (`summary.exercise` at `summary.exerciseVersion`, docs/protocol.md
 * §5.2): the catalog's entry when it is that version, else the stored version, fetched once per page (an exercise
 * since edited or deleted). Falls back to the catalog's entry, and to null when neither can be had.
 */
export async function sessionExercise(summary) {
  const id = summary?.exercise;
  if (!id) return null;
  const catalog = await exercises().catch(() => []);
  const current = catalog.find((e) => e.id === id) ?? null;
  const version = summary.exerciseVersion;
  if (version == null || current?.version === version) return current;
  const key = `${id}@${version}`;
  if (!storedVersions.has(key)) {
    storedVersions.set(key, getExerciseVersion(id, version).then((stored) => {
      // A deleted exercise is named by its stored version; a current one keeps the catalog's name.
      rememberExercises([stored], { replace: false });
      return stored;
    }, () => null));
  }
  return (await storedVersions.get(key)) ?? current;
}

export function listSessions(filters = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const qs = q.toString();
  return getJSON('/v1/sessions' + (qs ? '?' + qs : ''));
}

/** The tenant's subjects that have sessions, in byte order (`GET /v1/subjects?prefix=&limit=`, docs/protocol.md §5.2). */
export function listSubjects(prefix, limit = 20) {
  return getJSON('/v1/subjects?' + new URLSearchParams({ prefix, limit: String(limit) }));
}

/** The programmes of a subject (`GET /v1/programmes`; a patient code sees its own subject's only). */
export function listProgrammes({ subject, active } = {}) {
  const q = new URLSearchParams();
  if (subject) q.set('subject', subject);
  if (active != null) q.set('active', String(active));
  const qs = q.toString();
  return getJSON('/v1/programmes' + (qs ? '?' + qs : ''));
}
export const getProgramme = (id) => getJSON(`/v1/programmes/${encodeURIComponent(id)}`);
/** A subject's weeks of adherence (docs/programmes.md), in the browser's time zone. */
export function getAdherence(subject, { from, to, demo = false } = {}) {
  const q = new URLSearchParams({ tz: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' });
  if (from) q.set('from', from);
  if (to) q.set('to', to);
  // Demonstrations count only when asked for (docs/programmes.md "Demonstrations").
  if (demo) q.set('demo', 'include');
  return getJSON(`/v1/subjects/${encodeURIComponent(subject)}/adherence?${q}`);
}

export const getSession = (id) => getJSON(`/v1/sessions/${encodeURIComponent(id)}`);
export const getSeries = (id) => getJSON(`/v1/sessions/${encodeURIComponent(id)}/series`);
/** The phone's acceleration over the session, downsampled (`GET /v1/sessions/{id}/motion`, docs/protocol.md §5.2). */
export const getMotion = (id) => getJSON(`/v1/sessions/${encodeURIComponent(id)}/motion`);
export const deleteSession = (id) => request('DELETE', `/v1/sessions/${encodeURIComponent(id)}`);
/** One subject's sessions, oldest first, for trend charts (`GET /v1/subjects/{subject}/progress`, §5.2). */
export function getProgress(subject, { exercise } = {}) {
  const q = exercise ? `?exercise=${encodeURIComponent(exercise)}` : '';
  return getJSON(`/v1/subjects/${encodeURIComponent(subject)}/progress${q}`);
}
export const csvURL = (id) => `/v1/sessions/${encodeURIComponent(id)}?format=csv`;

/** Downloads a session's CSV with the token (used when a token is set, as a plain link cannot send it). */
export async function downloadCSV(id) {
  const response = await fetch(csvURL(id), { headers: headers({ Accept: 'text/csv' }) });
  if (!response.ok) throw new APIError(response.status, 'http', response.statusText);
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `session-${id}.csv`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** Opens a WebSocket on `path` of this origin, offering the token as a subprotocol when there is one. */
export function openSocket(path) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const tk = token();
  return tk ? new WebSocket(url, [`bearer.${tk}`]) : new WebSocket(url);
}

/**
 * A message-level client for one WebSocket: JSON in, JSON out, handlers per message type.
 * `on(type, f)`; `'close'` receives the CloseEvent, `'error'` a transport error.
 */
export class MessageSocket {
  constructor(path) {
    this.handlers = new Map();
    this.socket = openSocket(path);
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => resolve(), { once: true });
      this.socket.addEventListener('close', (e) => reject(new Error(`closed (${e.code})`)), { once: true });
    });
    this.opened.catch(() => {});
    this.socket.addEventListener('message', (e) => {
      let message;
      try { message = JSON.parse(e.data); } catch { return; }
      this.emit(message.type, message);
      this.emit('*', message);
    });
    this.socket.addEventListener('close', (e) => this.emit('close', e));
  }

  on(type, f) {
    if (!this.handlers.has(type)) this.handlers.set(type, []);
    this.handlers.get(type).push(f);
    return this;
  }

  emit(type, value) {
    for (const f of this.handlers.get(type) || []) f(value);
  }

  get isOpen() { return this.socket.readyState === WebSocket.OPEN; }

  /** Bytes queued but not yet sent (used to skip frames rather than pile them up). */
  get buffered() { return this.socket.bufferedAmount; }

  /** Sends a message object as JSON text, a string as is, and an ArrayBuffer as a binary message. */
  send(message) {
    if (!this.isOpen) return;
    if (typeof message === 'string' || message instanceof ArrayBuffer) this.socket.send(message);
    else this.socket.send(JSON.stringify(message));
  }

  close(code = 1000) {
    if (this.socket.readyState <= WebSocket.OPEN) this.socket.close(code);
  }
}

/** The event a page hears (on `window`) when a new access code was saved and accepted: reload its data. */
export const TOKEN_EVENT = 'motion:token';

/**
 * Whether the server accepts the current token: `'ok'`, `'rejected'` (401), or `'unreachable'`. A list of one
 * session is the cheapest request that needs authentication.
 */
export async function checkToken() {
  try {
    await getJSON('/v1/sessions?limit=1');
    return 'ok';
  } catch (e) {
    if (!(e instanceof APIError) || e.status === 0) return 'unreachable';
    return e.status === 401 ? 'rejected' : 'ok';
  }
}

/**
 * Wires the access-code form (input + button + status) shared by the pages: a saved code is checked at once;
 * accepted, the form closes and the page reloads its data (TOKEN_EVENT); rejected, the form stays open.
 */
export function bindTokenForm(input, button, status, translate) {
  if (!input || !button) return;
  input.value = clinicToken();
  button.addEventListener('click', async () => {
    const value = input.value.trim();
    setToken(value);
    if (status) status.textContent = translate('token.checking');
    const result = await checkToken();
    const key = result === 'rejected' ? 'token.rejected'
      : result === 'unreachable' ? 'token.unreachable' : value ? 'token.saved' : 'token.cleared';
    if (status) {
      status.textContent = translate(key);
      status.className = result === 'rejected' ? 'bad' : 'good';
    }
    if (result === 'rejected') {
      input.focus();
      input.select();
      return;
    }
    const form = input.closest('details');
    if (form) form.open = false;
    window.dispatchEvent(new CustomEvent(TOKEN_EVENT));
  });
}
