// The REST API client: JSON over fetch, problem+json errors, seat tokens kept per game.
//
// Seat tokens never go into a URL (URLs end up in logs and histories): they travel in
// the Authorization header only, and are kept in localStorage under the game's id so
// that a reload (or another tab) rejoins the same seat.

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? problem.detail : `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.code = this.problem.code || `http_${status}`;
  }
}

/** One request. Returns {status, body, etag}; throws ApiError for any non-2xx answer. */
export async function call(method, path, {token, body, headers = {}} = {}) {
  const init = {method, headers: {Accept: 'application/json', ...headers}, cache: 'no-store'};
  if (token) init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new ApiError(0, {code: 'network_error', detail: 'the server cannot be reached'});
  }
  const text = await response.text();
  let parsed = null;
  if (text) {
    try { parsed = JSON.parse(text); } catch { parsed = null; }
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return {status: response.status, body: parsed, etag: response.headers.get('ETag')};
}

/** A fresh Idempotency-Key (crypto.getRandomValues works outside secure contexts too). */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'web-' + Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

const SEAT_PREFIX = 'tabletop.seat.';
const INVITE_PREFIX = 'tabletop.invite.';

/** The seat this browser holds in a game: {seat, token, name, kept} or null. */
export function heldSeat(gameId) {
  return readKept(SEAT_PREFIX + gameId);
}

/** Keeps (or re-dates: see pruneKept) the seat this browser holds in a game. */
export function keepSeat(gameId, record) {
  localStorage.setItem(SEAT_PREFIX + gameId, JSON.stringify({...record, kept: Date.now()}));
}

export function forgetSeat(gameId) {
  localStorage.removeItem(SEAT_PREFIX + gameId);
}

/** The invite code this browser knows for an invite-only game (its creator was shown
 * it once; others came by its link), or null. */
export function heldInvite(gameId) {
  const record = readKept(INVITE_PREFIX + gameId);
  return record ? record.code : null;
}

export function keepInvite(gameId, code) {
  localStorage.setItem(INVITE_PREFIX + gameId, JSON.stringify({code, kept: Date.now()}));
}

export function forgetInvite(gameId) {
  localStorage.removeItem(INVITE_PREFIX + gameId);
}

function readKept(key) {
  const raw = localStorage.getItem(key);
  if (!raw) return null;
  try {
    return JSON.parse(raw);
  } catch {
    // An invite kept before codes were dated was the bare code.
    return key.startsWith(INVITE_PREFIX) ? {code: raw} : null;
  }
}

const DAY_MS = 24 * 3600 * 1000;
const KEPT_FOR_MS = {[SEAT_PREFIX]: 90 * DAY_MS, [INVITE_PREFIX]: 7 * DAY_MS};
const MOST_KEPT = 300;

/** Forgets what this browser kept for games long past, so that localStorage does not
 * grow for ever: a seat not opened for 90 days (an unfinished game has long expired
 * by then: a week without a move ends it), an invite code kept 7 days ago (a game
 * nobody started expires within a day), and beyond the newest 300 of each. An entry
 * kept before entries were dated is dated now. Called once per page load. */
export function pruneKept(now = Date.now()) {
  for (const [prefix, keptFor] of Object.entries(KEPT_FOR_MS)) {
    const dated = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(prefix)) dated.push([key, keptAt(key, now)]);
    }
    dated.sort((a, b) => b[1] - a[1]);  // the newest first
    dated.forEach(([key, at], i) => {
      if (now - at > keptFor || i >= MOST_KEPT) localStorage.removeItem(key);
    });
  }
}

function keptAt(key, now) {
  const record = readKept(key);
  if (!record) return 0;  // unreadable: nothing to keep (dated 0, it is dropped as too old)
  if (typeof record.kept === 'number') return record.kept;
  localStorage.setItem(key, JSON.stringify({...record, kept: now}));
  return now;
}

/** The link that lets a person join an invite-only game: the code travels in the URL's
 * fragment, which browsers never send to a server. */
export function inviteLink(gameId, code) {
  const base = `${location.origin}${location.pathname}`;
  return `${base}#/games/${encodeURIComponent(gameId)}?invite=${encodeURIComponent(code)}`;
}

/** The body of a join: the invite code rides along when this browser knows one. */
export function joinBody(gameId, body) {
  const invite = heldInvite(gameId);
  return invite ? {...body, invite} : body;
}

export function playerName() {
  return localStorage.getItem('tabletop.name') || '';
}

export function setPlayerName(name) {
  localStorage.setItem('tabletop.name', name);
}

/** A human sentence for a refused request: the server's own detail and code. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return String(error && error.message ? error.message : error);
  const detail = error.problem.detail || error.problem.title || error.message;
  return `${detail} (${error.code})`;
}
