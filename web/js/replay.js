// The replay of a finished game: a slider over every version, seen as any seat or as a
// spectator (GET /v1/games/{id}?at=<version>&seat=<seat>; a finished game's whole
// history is public). Read-only: the board is drawn without commands.

import {call, describeError} from './api.js';
import {h, replaceKeepingFocus} from './a11y.js';

const DEBOUNCE_MS = 120;

export function showReplay(container, gameId, finalView, module) {
  const head = finalView.version;
  const slider = h('input', {type: 'range', id: 'replay-version', min: 1, max: head, value: head, step: 1});
  const label = h('label', {for: 'replay-version'}, 'Version');
  const shown = h('output', {for: 'replay-version', id: 'replay-shown'}, `${head} of ${head}`);
  const as = h('select', {id: 'replay-as'},
    h('option', {value: ''}, 'a spectator'),
    finalView.seats.map((s, i) => h('option', {value: String(i)}, `seat ${i} (${s.name || 'empty'})`)));
  const prev = h('button', {type: 'button', id: 'replay-prev', 'aria-label': 'Previous version'}, '◀');
  const next = h('button', {type: 'button', id: 'replay-next', 'aria-label': 'Next version'}, '▶');
  const message = h('p', {class: 'error', role: 'alert'});
  const board = h('div', {class: 'replay-board', 'aria-live': 'off'});
  let timer = null;
  let asked = 0;

  async function load() {
    const version = Number(slider.value);
    const seat = as.value;
    const ticket = ++asked;
    shown.textContent = `${version} of ${head}`;
    try {
      const query = `at=${version}${seat === '' ? '' : `&seat=${seat}`}`;
      const view = (await call('GET', `/v1/games/${encodeURIComponent(gameId)}?${query}`)).body;
      if (ticket !== asked) return;  // a later choice is already on its way
      message.textContent = '';
      replaceKeepingFocus(board, h('p', {class: 'replay-status', id: 'replay-status'},
        `Version ${view.version} (${view.status}), seen as ${seat === '' ? 'a spectator' : `seat ${seat}`}.`),
      view.state ? module.render(view, {commands: null, send: () => {}, busy: true, ui: {}, rerender: () => {}})
        : h('p', {}, 'Nothing is on the table yet at this version.'));
    } catch (error) {
      message.textContent = `Could not load version ${version}: ${describeError(error)}`;
    }
  }

  function soon() {
    clearTimeout(timer);
    shown.textContent = `${slider.value} of ${head}`;
    timer = setTimeout(load, DEBOUNCE_MS);
  }

  slider.addEventListener('input', soon);
  as.addEventListener('change', soon);
  prev.addEventListener('click', () => { slider.value = String(Math.max(1, Number(slider.value) - 1)); soon(); });
  next.addEventListener('click', () => { slider.value = String(Math.min(head, Number(slider.value) + 1)); soon(); });

  container.replaceChildren(h('section', {class: 'replay', 'aria-labelledby': 'replay-title'},
    h('h2', {id: 'replay-title'}, 'Replay'),
    h('div', {class: 'replay-controls'},
      h('span', {class: 'field'}, label, slider, shown),
      h('span', {class: 'field'}, prev, next),
      h('span', {class: 'field'}, h('label', {for: 'replay-as'}, 'Seen as'), as)),
    message, board));
  load();
  slider.focus();
}
