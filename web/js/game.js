// One game's page: the board of its kind, whose turn and what this viewer may do now,
// live updates from the event stream, refused commands with the server's reason, and
// for a finished game its result, revealed seed, verification verdict and a replay.
//
// The view (GET /v1/games/{id}) is the one source of what is drawn: every event that
// arrives only says "re-read the view" (and feeds the log). So a missed redraw can
// never leave a wrong board: the next read shows the truth.

import {
  ApiError, call, describeError, forgetInvite, forgetSeat, heldInvite, heldSeat, inviteLink, joinBody, keepInvite, keepSeat, newKey,
  playerName, setPlayerName,
} from './api.js';
import {announce, h, replaceKeepingFocus} from './a11y.js';
import {GameStream} from './stream.js';
import * as schlitzohr from './schlitzohr.js';
import * as abluxxen from './abluxxen.js';
import {showReplay} from './replay.js';
import {clockText, timeLeft} from './clock.js';
import {accountHolds, signedIn, takeBack} from './account.js';

/** How often, and for how long after it shows the result, a finished game's page asks
 * whether a rematch was started (GET .../rematch): players decide within minutes, and a
 * page left open for hours must not keep asking. */
const REMATCH_POLL_MS = 4000;
const REMATCH_WATCH_MS = 10 * 60 * 1000;

export const BOARDS = {schlitzohr, abluxxen};

const KIND_WORDS = {
  roll: 'roll', joker: 'play a joker', move: 'move', peek: 'peek', place: 'place',
  inspect: 'inspect', play: 'play a set', take: 'take the set', leave: 'leave the set',
  take_back: 'take back', discard: 'discard', draw: 'draw', pass: 'pass',
};

export function seatName(view, seat) {
  const s = view.seats[seat];
  return s && s.name ? s.name : `seat ${seat}`;
}

function words(kinds) {
  return kinds.map(k => KIND_WORDS[k] || k).join(', ');
}

/** The sentence of whose turn it is (shown, and announced to screen readers). */
export function turnText(view) {
  if (view.status === 'open') {
    const free = view.seats.filter(s => !s.name).length;
    return `Waiting for players: ${free} free seat${free === 1 ? '' : 's'}.`;
  }
  if (view.status === 'expired') {
    // Every seat taken: it ran, and nobody acted for too long (GameExpired, reason idle).
    return view.seats.every(s => s.name)
      ? 'This game expired: nobody acted in it for too long. It has no result.'
      : 'This game expired before every seat was taken.';
  }
  if (view.status === 'finished' && view.result) {
    const winners = view.result.winners.map(s => seatName(view, s)).join(' and ');
    return `Game over: ${winners} ${view.result.winners.length > 1 ? 'share the win' : 'wins'}.`;
  }
  const entries = Object.entries(view.to_act);
  if (!entries.length) return 'Game over.';
  const [seat, kinds] = entries[0];
  if (view.you !== null && Number(seat) === view.you) return `Your turn: ${words(kinds)}.`;
  return `${seatName(view, Number(seat))}'s turn (${words(kinds)}).`;
}

/** Whether `seat` has left a game that plays on without it (Schlitzohr's `forfeited`:
 * it resigned, or ran out of time under the forfeit policy). */
export function isOut(view, seat) {
  return Boolean(view.state && (view.state.forfeited || []).includes(seat));
}

/** Show game `gameId` in `root`; returns a function that closes its stream and timers. */
export function showGame(root, gameId) {
  const path = `/v1/games/${encodeURIComponent(gameId)}`;
  let held = heldSeat(gameId);
  if (held) keepSeat(gameId, held);  // opened now: re-dated, kept another 90 days (api.pruneKept)
  let view = null;
  let legal = null;
  let busy = false;
  let refusal = '';
  let refreshing = false;
  let again = false;
  let stream = null;
  let streamState = '';
  let stopped = false;
  let compactLegal = true;
  const ui = {};
  const log = [];
  let replayShown = false;
  let verification = null;
  let drawn = '';
  let lastSpoken = '';

  const title = h('h1', {class: 'game-title'}, 'Game ', h('code', {}, gameId));
  const who = h('p', {class: 'who'});
  const turn = h('p', {class: 'turn', id: 'turn'});
  const error = h('p', {class: 'error', id: 'refusal', role: 'alert'});
  const board = h('div', {class: 'board-area'});
  const side = h('aside', {class: 'side', 'aria-label': 'Game log'});
  const finished = h('section', {class: 'finished', 'aria-labelledby': 'finished-title', hidden: true});
  const connection = h('span', {class: 'connection', id: 'connection'});
  const clockLine = h('p', {class: 'clock', id: 'clock', hidden: true});
  const inviteBox = h('p', {class: 'invite', id: 'invite', hidden: true});
  const countdown = h('span', {class: 'countdown', id: 'countdown'});
  const rematchBox = h('p', {class: 'rematch', id: 'rematch'});
  let resignAsked = false;  // "Resign" was clicked: the page asks to confirm
  let rematchId = null;  // the finished game's rematch, once a seat asked for one
  let rematchPoll = null;
  const ticker = setInterval(() => renderCountdown(), 1000);
  root.replaceChildren(title, who, inviteBox, h('div', {class: 'status-row'}, turn, countdown, connection), clockLine, error,
    h('div', {class: 'game-layout'}, board, side), finished);

  async function fetchLegal() {
    const token = held && held.token;
    if (compactLegal) {
      try {
        return (await call('GET', `${path}/legal?form=compact`, {token})).body;
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 400)) throw e;
        compactLegal = false;  // a server without the compact form: the full list
      }
    }
    return (await call('GET', `${path}/legal`, {token})).body;
  }

  async function load() {
    const token = held && held.token;
    try {
      view = (await call('GET', path, {token})).body;
    } catch (e) {
      if (token && e instanceof ApiError && e.status === 401) {
        // The kept token holds no seat here (any more): watch instead.
        forgetSeat(gameId);
        held = null;
        refusal = 'Your saved seat is not valid for this game any more; you are watching.';
        view = (await call('GET', path)).body;
      } else {
        throw e;
      }
    }
    // Every seat is taken (or the game is over): the invite code opens nothing any more.
    if (view.status !== 'open') forgetInvite(gameId);
    const mine = held && view.status === 'running' && view.to_act[String(held.seat)];
    legal = null;
    if (mine) {
      legal = await fetchLegal();
      if (legal.version !== view.version) again = true;  // moved on between the two reads
    }
  }

  async function refresh() {
    if (refreshing) { again = true; return; }
    refreshing = true;
    try {
      do {
        again = false;
        await load();
      } while (again && !stopped);
      if (refusal.startsWith('Could not load')) refusal = '';  // back: the old failure is moot
    } catch (e) {
      refusal = `Could not load the game: ${describeError(e)}`;
    } finally {
      refreshing = false;
    }
    // Redraw only when something changed: a redraw replaces the board's elements, and a
    // needless one could swallow a click that is under way.
    if (!stopped && drawnKey() !== drawn) render();
  }

  function drawnKey() {
    // Who we are is part of it: a join answered after a spectator's reload of the same
    // version must still redraw the page as that seat's.
    return view ? `${view.version}|${view.you}|${legal ? legal.version : '-'}|${refusal}|${busy}|${resignAsked}` : '';
  }

  /** Send `command` for the held seat, decided on the version of the legal list shown
   * (or of the view). A lost answer is sent again under the same key, so it is written at
   * most once. `anyVersion`: the command does not depend on the position (a resignation),
   * so a stale version is sent again at the version the refusal names. `failure` leads
   * the refusal's text. Resolves true once the server took it. */
  async function send(command, {anyVersion = false, failure = 'Refused'} = {}) {
    if (busy || !held || !view) return false;
    busy = true;
    refusal = '';
    render();
    const key = newKey();  // the same key for every retry of this one command
    let version = legal ? legal.version : view.version;
    let sent = false;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const answer = await call('POST', `${path}/commands`, {
            token: held.token, body: {command},
            headers: {'If-Match': `"${version}"`, 'Idempotency-Key': key},
          });
          view = answer.body.view;
          sent = true;
          break;
        } catch (e) {
          if (e instanceof ApiError && e.status === 0 && attempt < 3) continue;  // lost: retry, same key
          const stale = anyVersion && e instanceof ApiError && e.code === 'version_conflict' && e.problem.current_version;
          if (stale && attempt < 3) { version = e.problem.current_version; continue; }
          throw e;
        }
      }
    } catch (e) {
      refusal = `${failure}: ${describeError(e)}`;
      announce(refusal);
    } finally {
      busy = false;
    }
    await refresh();
    return sent;
  }

  function onEvent(envelope) {
    // Another seat made a new invite code: the one kept here seats nobody any more.
    if (envelope.type === 'InviteRenewed' && !(held && held.seat === envelope.data.seat)) {
      forgetInvite(gameId);
      delete inviteBox.dataset.link;
    }
    const module = view && BOARDS[view.game];
    const text = (module && module.describeEvent(envelope, view)) || envelope.type;
    log.unshift({version: envelope.version, text});
    log.length = Math.min(log.length, 40);
    if (!view || envelope.version > view.version) refresh();
    else renderSide();
  }

  function openStream() {
    // A finished game still sends its seed reveal; after that (or an expiry) nothing comes.
    if (stream || !view || view.status === 'expired' || (view.status === 'finished' && view.seed)) return;
    stream = new GameStream(gameId, held && held.token, view.version, onEvent, state => {
      streamState = state;
      connection.textContent = state === 'live' ? 'live' : state === 'reconnecting' ? 'reconnecting…' : '';
      connection.dataset.state = state;
      // Back after a loss: whatever happened meanwhile comes through the stream, but the
      // view is re-read at once too.
      if (state === 'live') refresh();
    }).start();
  }

  /** The clock's rules, and the time the seat to act has left (counted down each second). */
  function renderClock() {
    const text = view && view.status === 'running' ? clockText(view.clock) : null;
    clockLine.hidden = !text;
    clockLine.textContent = text || '';
    renderCountdown();
  }

  function renderCountdown() {
    const [seat, deadline] = view && view.status === 'running' ? Object.entries(view.deadlines || {})[0] || [] : [];
    if (!deadline) { countdown.textContent = ''; return; }
    const whose = view.you !== null && Number(seat) === view.you ? 'Your time' : `${seatName(view, Number(seat))}'s time`;
    const left = timeLeft(deadline.at_ms, Date.now());
    countdown.textContent = `${whose}: ${left}`;
    countdown.classList.toggle('short', deadline.at_ms - Date.now() < 10000);
  }

  function renderSide() {
    replaceKeepingFocus(side,
      h('h2', {}, 'Latest events'),
      log.length ? h('ol', {class: 'log', reversed: true},
        log.map(entry => h('li', {value: entry.version}, h('span', {class: 'v'}, `v${entry.version}`), ' ', entry.text)))
        : h('p', {class: 'empty'}, 'Events appear here as they happen.'));
  }

  async function renderFinished() {
    if (!view || view.status !== 'finished') { finished.hidden = true; return; }
    finished.hidden = false;
    if (finished.dataset.version === String(view.version)) return;
    finished.dataset.version = String(view.version);
    const result = view.result;
    const verdict = h('p', {class: 'verdict', id: 'verdict'}, 'Verifying…');
    const replayArea = h('div', {class: 'replay-area'});
    const replayButton = h('button', {type: 'button', id: 'replay-open', onclick: () => {
      replayShown = true;
      replayButton.hidden = true;
      showReplay(replayArea, gameId, view, BOARDS[view.game]);
    }}, 'Replay this game');
    finished.replaceChildren(
      h('h2', {id: 'finished-title'}, 'Result'),
      h('table', {class: 'result'},
        h('thead', {}, h('tr', {}, h('th', {scope: 'col'}, 'Seat'), h('th', {scope: 'col'}, 'Player'), h('th', {scope: 'col'}, 'Score'))),
        h('tbody', {}, result.scores.map((score, seat) => h('tr', {class: result.winners.includes(seat) ? 'winner' : ''},
          h('td', {}, String(seat)), h('td', {}, seatName(view, seat), result.winners.includes(seat) ? ' (winner)' : '',
            isOut(view, seat) ? ' (out)' : ''),
          h('td', {}, String(score)))))),
      h('p', {}, `Ended: ${result.reason.replaceAll('_', ' ')} after ${result.turns} turns.`),
      h('dl', {class: 'audit'},
        h('dt', {}, 'Commitment (sha256 of the seed, public from the start)'), h('dd', {}, h('code', {}, view.commitment)),
        h('dt', {}, 'Revealed seed'), h('dd', {}, h('code', {id: 'seed'}, view.seed || '(not yet revealed)'))),
      verdict,
      h('p', {}, h('a', {href: `${path}/export`, download: `${gameId}.jsonl`}, 'Download the history (JSON Lines)')),
      rematchBox,
      replayButton, replayArea);
    renderRematch();
    watchRematch();
    if (replayShown) replayButton.click();
    // Between GameEnded and the seed's reveal (two appends) the history is incomplete and
    // its report says so: ask only once the seed is out, when the report is final.
    if (!view.seed) { verdict.textContent = 'Verifying once the seed is revealed…'; return; }
    try {
      verification = verification || (await call('GET', `${path}/verification`)).body;
      verdict.textContent = verification.ok
        ? `Verified by the server: ok (${verification.events} events, ${verification.commands} commands re-checked).`
        : `Verification FAILED: ${JSON.stringify(verification.discrepancy)}`;
      verdict.className = verification.ok ? 'verdict ok' : 'verdict bad';
    } catch (e) {
      verdict.textContent = `Verification not available: ${describeError(e)}`;
    }
  }

  async function seated(record) {
    // A seat is held now (or, null, given up): the stream is reopened with its ticket (or
    // none), the view re-read as the seat's (or a spectator's).
    held = record;
    if (stream) { stream.stop(); stream = null; }
    refusal = '';
    await refresh();
  }

  function joinForm() {
    const account = signedIn();
    const name = h('input', {id: 'join-name', maxlength: 40, value: playerName(), required: true, autocomplete: 'nickname'});
    return h('form', {class: 'join-form', onsubmit: async event => {
      event.preventDefault();
      const chosen = account ? account.name : name.value.trim();
      if (!chosen) { name.focus(); return; }
      if (!account) setPlayerName(chosen);
      try {
        const answer = await call('POST', `${path}/seats`, account
          ? {body: joinBody(gameId, {}), token: account.key} : {body: joinBody(gameId, {name: chosen})});
        keepSeat(gameId, {seat: answer.body.seat, token: answer.body.token, name: chosen});
        await seated(heldSeat(gameId));
      } catch (e) {
        refusal = `Could not join: ${describeError(e)}`;
        render();
      }
    }}, account ? '' : [h('label', {for: 'join-name'}, 'Your name'), ' ', name, ' '],
    h('button', {type: 'submit', class: 'primary', id: 'join-game'}, account ? `Join this game as ${account.name}` : 'Join this game'));
  }

  /** While an invite-only game waits for players, the browser that knows its code shows
   * the link to share (its creator, or anyone who came by the link and may pass it on).
   * A seat holder may also make a new link (POST .../invite), which voids the old one:
   * for a lost code, or one that reached the wrong people. */
  function renderInvite(invite) {
    const renewable = Boolean(held) && view.invite_only;
    inviteBox.hidden = !((invite || renewable) && view.status === 'open');
    if (inviteBox.hidden) return;
    const link = invite ? inviteLink(gameId, invite) : '';
    const drawnFor = `${link}|${renewable}`;
    if (inviteBox.dataset.link === drawnFor) return;  // kept as it is: a selection or focus in it survives
    inviteBox.dataset.link = drawnFor;
    const renew = renewable ? h('button', {type: 'button', id: 'invite-renew', onclick: async () => {
      try {
        const answer = (await call('POST', `${path}/invite`, {token: held.token})).body;
        keepInvite(gameId, answer.invite);
        announce('A new invite link: the old one no longer works.');
        render();
      } catch (e) {
        refusal = `Could not make a new invite link: ${describeError(e)}`;
        render();
      }
    }}, invite ? 'New link (the old one stops working)' : 'Make an invite link') : '';
    if (!invite) {
      inviteBox.replaceChildren(h('span', {class: 'hint'}, 'This game is invite only. '), renew);
      return;
    }
    const field = h('input', {id: 'invite-link', readonly: true, value: link, 'aria-describedby': 'invite-hint'});
    const copy = h('button', {type: 'button', id: 'invite-copy', onclick: async () => {
      field.select();
      try {
        await navigator.clipboard.writeText(link);
        copy.textContent = 'Copied';
      } catch {
        copy.textContent = 'Select and copy the link';
      }
    }}, 'Copy link');
    inviteBox.replaceChildren(h('label', {for: 'invite-link'}, 'Invite link'), ' ', field, ' ', copy, ' ', renew,
      h('small', {class: 'hint', id: 'invite-hint'}, ' Only people with this link can take a seat. Send it to those you want to play with.'));
  }

  /** While a finished game is shown, its rematch is looked for (GET .../rematch) every
   * few seconds until one of its seats asks for it (for ten minutes at most): then the
   * other players are offered their seat in it, and spectators a link to watch. */
  function watchRematch() {
    if (rematchPoll || rematchId) return;
    const until = Date.now() + REMATCH_WATCH_MS;
    const look = async () => {
      if (Date.now() > until) { clearInterval(rematchPoll); return; }
      try {
        rematchId = (await call('GET', `${path}/rematch`)).body.rematch;
      } catch {
        return;  // asked again at the next tick
      }
      if (rematchId && !stopped) {
        clearInterval(rematchPoll);
        if (view.you !== null) announce('A rematch is waiting for you.');
        renderRematch();
      }
    };
    rematchPoll = setInterval(look, REMATCH_POLL_MS);
    look();
  }

  /** Play again: this seat again in the game's rematch (POST .../rematch) -- a new game
   * like this one (the same game, options, bots at the same seats, clock and invitation
   * rule) if no seat asked yet, else the one another player started. */
  function renderRematch() {
    const mine = view && view.you !== null && held;
    let offer = '';
    if (rematchId && heldSeat(rematchId)) {
      offer = h('a', {href: `#/games/${rematchId}`, id: 'rematch-open'}, 'Go to the rematch');
    } else if (mine) {
      offer = h('button', {type: 'button', class: 'primary', id: 'play-again', onclick: askRematch},
        rematchId ? 'Join the rematch' : 'Play again');
    } else if (rematchId) {
      offer = h('a', {href: `#/games/${rematchId}`, id: 'rematch-watch'}, 'Watch the rematch');
    }
    const note = rematchId && mine && !heldSeat(rematchId) ? h('span', {class: 'hint'}, ' Another player wants a rematch. ') : '';
    rematchBox.replaceChildren(note, offer);
  }

  async function askRematch(event) {
    event.currentTarget.disabled = true;  // one ask per click: a second would find the seat taken by the first
    try {
      const answer = (await call('POST', `${path}/rematch`, {token: held.token})).body;
      if (answer.invite) keepInvite(answer.game_id, answer.invite);
      keepSeat(answer.game_id, {seat: answer.seat, token: answer.token, name: answer.view.seats[answer.seat].name});
      location.hash = `#/games/${answer.game_id}`;
    } catch (e) {
      refusal = `Could not start the rematch: ${describeError(e)}`;
      renderRematch();  // a fresh button: the player may try again
      render();
    }
  }

  /** Before the start a seat may be given up (DELETE .../seats/{seat}): someone else can
   * take it, and this browser watches. Its invite code stays kept, to come back by. */
  function leaveButton() {
    return h('button', {type: 'button', id: 'leave-seat', onclick: async () => {
      try {
        await call('DELETE', `${path}/seats/${held.seat}`, {token: held.token});
        forgetSeat(gameId);
        announce('You left your seat.');
        await seated(null);
      } catch (e) {
        refusal = `Could not leave: ${describeError(e)}`;
        render();
      }
    }}, 'Leave this seat');
  }

  /** While the game runs, a seat still in it may give it up (POST .../commands with
   * {"kind": "resign"}), on its turn or not, once the player confirms: Schlitzohr plays on
   * without the seat, Abluxxen ends at once. */
  function resignControls() {
    if (!resignAsked) {
      return h('button', {type: 'button', id: 'resign', dataset: {key: 'resign'}, onclick: () => {
        resignAsked = true;
        render();
        document.getElementById('resign-no')?.focus();  // the safe answer first
      }}, 'Resign');
    }
    return h('span', {class: 'resign-confirm', role: 'group', 'aria-labelledby': 'resign-question'},
      h('span', {id: 'resign-question'}, 'Give this game up? You cannot come back, and you do not win. '),
      h('button', {type: 'button', class: 'danger', id: 'resign-yes', dataset: {key: 'resign-yes'}, onclick: resign}, 'Yes, resign'), ' ',
      h('button', {type: 'button', id: 'resign-no', dataset: {key: 'resign-no'}, onclick: () => { resignAsked = false; render(); }}, 'Keep playing'));
  }

  async function resign() {
    const done = await send({kind: 'resign'}, {anyVersion: true, failure: 'Could not resign'});
    resignAsked = false;
    if (done) announce('You resigned.');
    render();
  }

  /** A button that takes the account's seat back for this browser (its token is elsewhere). */
  function takeBackButton(seat) {
    return h('button', {type: 'button', class: 'primary', id: 'take-back', onclick: async () => {
      try {
        await seated(await takeBack(gameId, seat));
      } catch (e) {
        refusal = `Could not take your seat back: ${describeError(e)}`;
        render();
      }
    }}, `Play your seat ${seat} here`);
  }

  function render() {
    if (!view) return;
    drawn = drawnKey();
    const module = BOARDS[view.game];
    const commands = legal && legal.version === view.version ? legal.commands : null;
    // State for tests and tools (no secrets: the version, the status, whether we may act).
    root.dataset.version = String(view.version);
    root.dataset.status = view.status;
    root.dataset.busy = busy ? '1' : '0';
    root.dataset.mine = commands && commands.length ? '1' : '0';
    // "Your turn" leads the tab's title: a player in another tab sees it is their move.
    const yours = view.you !== null && view.status === 'running' && view.to_act[String(view.you)];
    document.title = `${yours ? 'Your turn · ' : ''}${module ? module.TITLE : view.game} ${gameId} · tabletop`;
    title.replaceChildren(module ? module.TITLE : view.game, ' ', h('code', {}, gameId));
    // A Schlitzohr seat that resigned (or timed out under the forfeit policy) is out:
    // the game plays on without it, and its page watches.
    const out = view.you !== null && isOut(view, view.you);
    const seatLine = view.you === null ? 'You are watching as a spectator.'
      : out && view.status === 'running' ? `You played seat ${view.you} (${seatName(view, view.you)}) and are out of the game; it plays on without you.`
      : `You play seat ${view.you} (${seatName(view, view.you)}).`;
    const canResign = Boolean(held) && view.you !== null && view.status === 'running' && !out;
    const ours = !held && (view.status === 'open' || view.status === 'running') ? view.seats.findIndex(accountHolds) : -1;
    const invite = view.invite_only ? heldInvite(gameId) : null;
    const joinable = !held && ours < 0 && view.status === 'open';
    const rematchOf = view.rematch_of
      ? h('span', {id: 'rematch-of'}, ' A rematch of ', h('a', {href: `#/games/${view.rematch_of}`}, view.rematch_of), '.') : '';
    // Keeping focus: a bot's move redraws this line while a player may be on its buttons.
    replaceKeepingFocus(who, seatLine, rematchOf, ' ', h('a', {href: '#/'}, 'Back to the lobby'),
      joinable && (invite || !view.invite_only) ? joinForm() : '',
      joinable && view.invite_only && !invite
        ? h('span', {class: 'hint', id: 'invite-needed'}, ' This game is invite only: ask its creator for the link.') : '',
      ours >= 0 ? takeBackButton(ours) : '',
      held && view.status === 'open' ? h('span', {}, ' ', leaveButton()) : '',
      canResign ? h('span', {class: 'resign-box'}, ' ', resignControls()) : '');
    renderInvite(invite);
    const text = turnText(view);
    turn.textContent = text;
    turn.classList.toggle('mine', text.startsWith('Your turn'));
    // Spoken only when the acting seat, the status, or (on your turn) your options
    // change: a bot's every step would otherwise flood a screen reader.
    const acting = Object.keys(view.to_act)[0];
    const mine = view.you !== null && Number(acting) === view.you;
    const spoken = `${view.status}|${acting}|${mine ? text : ''}`;
    if (spoken !== lastSpoken) {
      lastSpoken = spoken;
      announce(text);
    }
    error.textContent = refusal;
    renderClock();
    if (module && view.state) {
      replaceKeepingFocus(board, module.render(view, {commands, send, busy, ui, rerender: render}));
    } else {
      board.replaceChildren(h('p', {}, 'The game has not started yet.'));
    }
    renderSide();
    renderFinished();
    openStream();
  }

  refresh();
  return () => {
    stopped = true;
    clearInterval(ticker);
    clearInterval(rematchPoll);
    for (const name of ['version', 'status', 'busy', 'mine']) delete root.dataset[name];
    if (stream) stream.stop();
  };
}
