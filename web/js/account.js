// A person's account in this browser: register the name (its player key is shown once
// and kept here, like seat tokens), or bring a kept key from another device. Signed in,
// seats are taken under the account's name (rated, never spoofed), and a seat of the
// account that this browser holds no token for -- taken on another device, storage
// cleared -- is taken back with a fresh seat token (docs/api.md "Accounts").
//
// The key never goes into a URL: only into the Authorization header (api.js).

import {call, describeError, keepSeat} from './api.js';
import {h} from './a11y.js';

const KEY = 'tabletop.account';

/** The account signed in here: {name, key}, or null. */
export function signedIn() {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? JSON.parse(raw) : null;
  } catch {
    return null;
  }
}

function keep(name, key) {
  localStorage.setItem(KEY, JSON.stringify({name, key}));
}

/** True if `seat` (a view's seat) is held by the account signed in here. */
export function accountHolds(seat) {
  const account = signedIn();
  return Boolean(account && seat && seat.name === account.name && seat.guest === false && !seat.bot);
}

/** Take `seat` of game `gameId` back for this browser: a fresh seat token (the old one,
 * wherever it is, stops working). Returns the kept seat record. */
export async function takeBack(gameId, seat) {
  const account = signedIn();
  const answer = await call('POST', `/v1/games/${encodeURIComponent(gameId)}/seats/${seat}/token`, {token: account.key});
  const record = {seat: answer.body.seat, token: answer.body.token, name: account.name};
  keepSeat(gameId, record);
  return record;
}

/** The lobby's account box; `nameInput` holds the name to register, `changed` redraws
 * whatever depends on who is signed in, `say` shows a message. */
export function accountBox(nameInput, changed, say) {
  const box = h('section', {class: 'account', 'aria-labelledby': 'account-title'});

  function signedInView(account, freshKey) {
    const parts = [h('h2', {id: 'account-title'}, 'Your account'),
      h('p', {id: 'signed-in'}, 'Signed in as ', h('strong', {}, account.name), ' (registered).')];
    if (freshKey) {
      parts.push(h('div', {class: 'key-once', role: 'status'},
        h('p', {}, 'Your player key, shown this once: keep it somewhere safe. It signs you in on another ',
          'device; without it the account cannot be recovered.'),
        h('code', {id: 'player-key'}, freshKey)));
    }
    // The key is kept here anyway: shown again on request, so it can be copied to another
    // device -- and before signing out, without which the account would be lost.
    const shown = h('code', {id: 'kept-key', hidden: true}, account.key);
    parts.push(h('div', {class: 'account-actions'},
      freshKey ? '' : h('button', {type: 'button', id: 'show-key', onclick: event => {
        shown.hidden = !shown.hidden;
        event.target.textContent = shown.hidden ? 'Show my player key' : 'Hide my player key';
      }}, 'Show my player key'),
      h('button', {type: 'button', id: 'sign-out', onclick: () => {
        localStorage.removeItem(KEY);
        render();
        changed();
      }}, 'Sign out of this browser'),
      h('small', {class: 'hint'}, 'Keep your player key before signing out: it is the only way back in.')),
      shown);
    return parts;
  }

  function signedOutView() {
    const keyInput = h('input', {id: 'sign-in-key', autocomplete: 'off', spellcheck: 'false',
      placeholder: 'pk_…', 'aria-describedby': 'sign-in-hint'});
    const register = async () => {
      const name = nameInput.value.trim();
      if (!name) { say('Enter the name to register first.'); nameInput.focus(); return; }
      try {
        const answer = await call('POST', '/v1/players', {body: {name}});
        keep(answer.body.name, answer.body.player_key);
        render(answer.body.player_key);
        changed();
      } catch (error) {
        say(`Could not register: ${describeError(error)}`);
      }
    };
    const signIn = async event => {
      event.preventDefault();
      const key = keyInput.value.trim();
      if (!key) { keyInput.focus(); return; }
      try {
        const answer = await call('GET', '/v1/players/me/account', {token: key});
        keep(answer.body.name, key);
        render();
        changed();
      } catch (error) {
        say(`Could not sign in: ${describeError(error)}`);
      }
    };
    return [
      h('h2', {id: 'account-title'}, 'Your account'),
      h('p', {class: 'hint'}, 'You play as a guest under the name above. Register it to make it yours alone: ',
        'your games are rated, and your seats come with you to another device.'),
      h('button', {type: 'button', id: 'register', onclick: register}, 'Register this name'),
      h('form', {class: 'field sign-in', onsubmit: signIn},
        h('label', {for: 'sign-in-key'}, 'Or sign in with your player key'), keyInput,
        h('button', {type: 'submit', id: 'sign-in'}, 'Sign in'),
        h('small', {class: 'hint', id: 'sign-in-hint'}, 'The key you were shown when you registered.')),
    ];
  }

  function render(freshKey) {
    const account = signedIn();
    box.replaceChildren(...(account ? signedInView(account, freshKey) : signedOutView()));
    nameInput.disabled = Boolean(account);
    if (account) nameInput.value = account.name;
  }

  render();
  return box;
}
