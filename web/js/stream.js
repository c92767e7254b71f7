// Live events of one game over Server-Sent Events, resumed without gaps or duplicates.
//
// A seat's stream needs its token, which EventSource cannot send as a header and which
// must never be put in a URL: the client first asks for a short-lived, single-use stream
// ticket (POST /v1/games/{id}/stream-tickets, Bearer token) and opens the stream with
// that ticket. A spectator opens it without one. Whenever the stream ends or fails
// (the server closes every stream after a while; the network drops), it is closed and
// reopened with a new ticket at `after=<last version received>`: the server then sends
// exactly the versions after it, so nothing is missed and nothing comes twice.

import {call, ApiError} from './api.js';

// Every event type the server may send (EventSource hears only the names it listens to:
// a type missing here is lost to the page). tests/unit/test_web_event_types.py holds
// this list to the server's schema registry.
export const EVENT_TYPES = [
  // lobby and table
  'GameCreated', 'SeatTaken', 'SeatLeft', 'PlayStarted', 'GameEnded', 'GameExpired', 'SeedRevealed',
  'InviteRenewed', 'SeatTokenReissued', 'TurnTimedOut',
  // Schlitzohr
  'GameSetUp', 'DieRolled', 'EarMoved', 'EarPlaced', 'EarRevealed', 'EarRelocated', 'EarsInspected',
  'JokerUsed', 'JokerReturned', 'MoveEnded', 'TurnEnded', 'SeatForfeited',
  // Abluxxen
  'GameStarted', 'DeckShuffled', 'HandDealt', 'DisplayDealt', 'SetPlayed', 'Abluxxed', 'SetRemoved',
  'SetTaken', 'SetLeft', 'SetTakenBack', 'SetDiscarded', 'CardDrawn', 'DrawDeclined',
  'DisplayRefilled', 'TurnPassed', 'DealEnded',
];

/** The events after which a game's stream has nothing more to send. */
const FINAL = new Set(['SeedRevealed', 'GameExpired']);

export class GameStream {
  /**
   * @param {string} gameId
   * @param {string|null} token  the seat token (null: spectator)
   * @param {number} after       the last version already known
   * @param {(event: object) => void} onEvent  each envelope, in version order, once
   * @param {(state: string) => void} onState  'live' | 'reconnecting' | 'closed'
   */
  constructor(gameId, token, after, onEvent, onState = () => {}) {
    this.gameId = gameId;
    this.token = token;
    this.last = after;
    this.onEvent = onEvent;
    this.onState = onState;
    this.source = null;
    this.stopped = false;
    this.retryMs = 250;
    this.timer = null;
    this.ticketsMissing = false;
    this.opening = false;
  }

  start() {
    this.open();
    // Back online: try at once rather than at the end of the current back-off.
    this.online = () => { clearTimeout(this.timer); this.open(); };
    window.addEventListener('online', this.online);
    return this;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.online) window.removeEventListener('online', this.online);
    if (this.source) this.source.close();
    this.source = null;
    this.onState('closed');
  }

  async url() {
    let url = `/v1/games/${encodeURIComponent(this.gameId)}/events/stream?after=${this.last}`;
    if (this.token && !this.ticketsMissing) {
      try {
        const answer = await call('POST', `/v1/games/${encodeURIComponent(this.gameId)}/stream-tickets`,
          {token: this.token});
        url += `&ticket=${encodeURIComponent(answer.body.ticket)}`;
      } catch (error) {
        // A server without stream tickets: the public stream still tells when to re-read
        // the seat's own view (which the page fetches with the token in a header).
        if (error instanceof ApiError && (error.status === 404 || error.status === 405)) {
          this.ticketsMissing = true;
        } else {
          throw error;
        }
      }
    }
    return url;
  }

  async open() {
    if (this.stopped || this.opening || this.source) return;  // one stream at a time
    this.opening = true;
    let url;
    try {
      url = await this.url();
    } catch {
      this.opening = false;
      this.reconnectLater();
      return;
    }
    this.opening = false;
    if (this.stopped) return;
    const source = new EventSource(url);
    this.source = source;
    const receive = message => {
      const version = Number(message.lastEventId);
      if (!(version > this.last)) return;  // never twice
      this.last = version;
      this.retryMs = 250;
      let envelope;
      try { envelope = JSON.parse(message.data); } catch { return; }
      this.onEvent(envelope);
      if (FINAL.has(envelope.type)) this.stop();
    };
    for (const type of EVENT_TYPES) source.addEventListener(type, receive);
    source.addEventListener('message', receive);
    source.addEventListener('open', () => this.onState('live'));
    source.addEventListener('error', () => {
      // Closed by the server (its time limit) or the network. Never let EventSource
      // retry by itself: a ticket is single-use, so each reopening needs a new one.
      source.close();
      if (this.source === source) this.source = null;
      if (!this.stopped) this.reconnectLater();
    });
  }

  reconnectLater() {
    if (this.stopped) return;
    this.onState('reconnecting');
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 5000);
  }
}
