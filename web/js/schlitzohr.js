// Schlitzohr: the 9x9 board as the server describes it (targets in their colours,
// blocked fields, grey fields), every ear with its id and the colour this viewer knows,
// jokers and scores per seat; roll, joker, peek, and moving/placing an ear by clicking
// the ear and then its destination (legal destinations highlighted), inspecting by
// choosing ears.

import {h, srOnly} from './a11y.js';

export const TITLE = 'Schlitzohr';

const FILES = 'abcdefghijklmnopqrstuvwxyz';

function fieldName(file, rank) {
  return `${FILES[file]}${rank + 1}`;
}

function seatName(view, seat) {
  const s = view.seats[seat];
  return s && s.name ? s.name : `seat ${seat}`;
}

/** The inspect choice from /legal: compact ({choose: {from, count}}) or enumerated. */
function inspectChoice(commands) {
  const listed = commands.filter(c => c.kind === 'inspect');
  if (!listed.length) return null;
  if (listed[0].choose) return {from: listed[0].choose.from, count: listed[0].choose.count};
  const from = new Set();
  listed.forEach(c => c.ears.forEach(e => from.add(e)));
  return {from: [...from].sort((a, b) => a - b), count: listed[0].ears.length};
}

function describeColour(view, ear) {
  const colour = view.state.known_colours[ear.id];
  if (ear.colour) return `${ear.colour}, face up`;
  if (colour) return `${colour}, seen by you`;
  return 'colour unknown';
}

/** Render the board and this viewer's controls. ctx: {commands, send, busy, ui, rerender}. */
export function render(view, ctx) {
  const s = view.state;
  const b = s.board;
  const commands = ctx.commands || [];
  const ui = ctx.ui;
  if (ui.version !== view.version) {
    // A new position: forget the half-made choice (a new step needs a new ear and target).
    ui.version = view.version;
    ui.ear = null;
    ui.chosen = new Set();
    if (s.phase !== 'six') ui.mode = null;
  }
  const moves = commands.filter(c => c.kind === 'move');
  const places = commands.filter(c => c.kind === 'place');
  const inspect = inspectChoice(commands);
  const kinds = new Set(commands.map(c => c.kind));
  let mode = null;
  if (inspect) mode = 'inspect';
  else if (s.phase === 'moving' && moves.length) mode = 'move';
  else if (s.phase === 'six') mode = ui.mode;
  const stepList = mode === 'place' ? places : mode === 'move' ? moves : [];
  const earsWithSteps = new Set(stepList.map(c => c.ear));
  const destinations = new Set(stepList.filter(c => c.ear === ui.ear).map(c => c.to));

  const targetColour = {};
  for (const [colour, fields] of Object.entries(b.targets)) fields.forEach(f => { targetColour[f] = colour; });
  const blocked = new Set(b.blocked);
  const earAt = {};
  b.ears.forEach(ear => { earAt[ear.field] = ear; });

  const rerender = () => ctx.rerender();
  function clickCell(field) {
    if (ctx.busy) return;
    const ear = earAt[field];
    if (mode === 'inspect') {
      if (!ear || !inspect.from.includes(ear.id)) return;
      if (ui.chosen.has(ear.id)) ui.chosen.delete(ear.id);
      else if (ui.chosen.size < inspect.count) ui.chosen.add(ear.id);
      return rerender();
    }
    if (mode !== 'move' && mode !== 'place') return;
    if (ear && earsWithSteps.has(ear.id) && !destinations.has(field)) {
      ui.ear = ui.ear === ear.id ? null : ear.id;
      return rerender();
    }
    if (ui.ear !== null && ui.ear !== undefined && (!ear || ear.id !== ui.ear)) {
      // Highlighted fields are the legal ones; any other field is sent as asked and the
      // server answers with its reason (shown above the board).
      ctx.send({kind: mode, ear: ui.ear, to: field});
    }
  }

  const grid = h('div', {class: 'sz-board', role: 'group', id: 'board',
    'aria-label': 'Board, rank 9 (north) at the top; only fields you can act on take the focus'});
  grid.style.setProperty('--files', b.files);
  for (let rank = b.ranks - 1; rank >= 0; rank--) {
    const row = h('div', {class: 'sz-row'});
    row.append(h('span', {class: 'sz-label', 'aria-hidden': 'true'}, String(rank + 1)));
    for (let file = 0; file < b.files; file++) {
      const field = fieldName(file, rank);
      const ear = earAt[field];
      const classes = ['sz-cell'];
      let kind = 'grey field';
      if (blocked.has(field)) { classes.push('blocked'); kind = 'blocked field'; }
      else if (targetColour[field]) { classes.push('target', `t-${targetColour[field]}`); kind = `${targetColour[field]} target`; }
      let actionable = false;
      let pressed;
      if (mode === 'inspect' && ear && inspect.from.includes(ear.id)) {
        actionable = true;
        pressed = ui.chosen.has(ear.id) ? 'true' : 'false';
        if (ui.chosen.has(ear.id)) classes.push('chosen');
      }
      if ((mode === 'move' || mode === 'place') && ear && earsWithSteps.has(ear.id)) {
        actionable = true;
        classes.push('movable');
        if (ui.ear === ear.id) classes.push('selected');
      }
      if (destinations.has(field)) { actionable = true; classes.push('dest'); }
      const parts = [field, kind];
      if (ear) parts.push(`ear ${ear.id}, ${describeColour(view, ear)}`);
      if (ui.ear === (ear && ear.id) && ear) parts.push('selected');
      if (destinations.has(field)) parts.push(mode === 'place' ? 'you may place here' : 'legal destination');
      const content = [];
      if (ear) {
        const known = ear.colour || s.known_colours[ear.id];
        content.push(h('span', {class: `ear ${known ? `c-${known}` : 'c-unknown'}${ear.colour ? ' up' : known ? ' seen' : ''}`,
          'aria-hidden': 'true'}, String(ear.id)));
      }
      const cell = h('button', {type: 'button', class: classes.join(' '),
        tabindex: actionable ? '0' : '-1', 'aria-label': parts.join(', '), 'aria-pressed': pressed,
        dataset: {field, key: `f-${field}`}, disabled: ctx.busy && actionable,
        onclick: () => clickCell(field)}, content);
      row.append(cell);
    }
    grid.append(row);
  }
  const filesRow = h('div', {class: 'sz-row files', 'aria-hidden': 'true'}, h('span', {class: 'sz-label'}, ''));
  for (let file = 0; file < b.files; file++) filesRow.append(h('span', {class: 'sz-label'}, FILES[file]));
  grid.append(filesRow);
  grid.addEventListener('keydown', event => {
    if (event.key === 'Escape' && (ui.ear !== null || ui.chosen.size)) {
      ui.ear = null;
      ui.chosen = new Set();
      rerender();
    }
  });

  return h('div', {class: 'sz'},
    h('div', {class: 'sz-main'}, grid, controls(view, ctx, {kinds, mode, inspect, moves, places})),
    seatsPanel(view));
}

function controls(view, ctx, {kinds, mode, inspect, moves, places}) {
  const s = view.state;
  const ui = ctx.ui;
  const buttons = [];
  const pips = s.phase === 'six' ? 6 : s.pips_left;  // after a 6, moving is choosing all six
  const button = (key, label, onclick, extra = {}) => h('button', {type: 'button', class: 'action',
    id: `act-${key}`, dataset: {key: `act-${key}`}, disabled: ctx.busy, onclick, ...extra}, label);
  if (kinds.has('roll')) buttons.push(button('roll', 'Roll the die', () => ctx.send({kind: 'roll'})));
  if (kinds.has('joker')) buttons.push(button('joker', `Play a joker (${s.jokers_left[view.you]} left)`, () => ctx.send({kind: 'joker'})));
  if (s.phase === 'six' && kinds.size) {
    if (moves.length) buttons.push(button('move', 'Move 6', () => { ui.mode = 'move'; ui.ear = null; ctx.rerender(); },
      {'aria-pressed': ui.mode === 'move' ? 'true' : 'false'}));
    if (kinds.has('peek')) buttons.push(button('peek', 'Peek', () => ctx.send({kind: 'peek'})));
    if (places.length) buttons.push(button('place', 'Place an ear', () => { ui.mode = 'place'; ui.ear = null; ctx.rerender(); },
      {'aria-pressed': ui.mode === 'place' ? 'true' : 'false'}));
  }
  let hint = '';
  if (mode === 'move') {
    hint = ui.ear === null || ui.ear === undefined
      ? `Move: ${pips} pip${pips === 1 ? '' : 's'} left. Choose an ear (outlined), then a highlighted field.`
      : `Ear ${ui.ear} chosen: choose a highlighted field (Escape to choose another ear).`;
  } else if (mode === 'place') {
    hint = ui.ear === null || ui.ear === undefined
      ? 'Place: choose a face-down ear, then one of your free target fields.'
      : `Ear ${ui.ear} chosen: choose one of your highlighted target fields.`;
  } else if (mode === 'inspect') {
    hint = `Inspect: choose ${inspect.count} ear${inspect.count === 1 ? '' : 's'} (${ui.chosen.size} chosen).`;
    const ready = ui.chosen.size === inspect.count;
    buttons.push(button('inspect', 'Inspect the chosen ears', () => ctx.send({kind: 'inspect',
      ears: [...ui.chosen].sort((a, b) => a - b)}), {disabled: ctx.busy || !ready}));
  } else if (s.phase === 'six' && kinds.size) {
    hint = 'You rolled a 6: move, peek or place.';
  }
  const roll = s.last_roll ? `Last roll: ${s.last_roll.value} (${s.last_roll.purpose}).` : 'No roll yet.';
  const cap = s.options && s.options.turn_cap ? ` of ${s.options.turn_cap}` : '';
  return h('div', {class: 'controls', 'aria-label': 'Your actions', role: 'group'},
    h('p', {class: 'facts'}, `Turn ${s.turn}${cap}. ${roll}${s.phase === 'moving' ? ` Pips left: ${s.pips_left}.` : ''}`),
    hint ? h('p', {class: 'hint', id: 'hint'}, hint) : null,
    buttons.length ? h('div', {class: 'buttons'}, buttons) : null);
}

function seatsPanel(view) {
  const s = view.state;
  return h('section', {class: 'seats-panel', 'aria-label': 'Players'},
    h('h2', {}, 'Players'),
    h('ul', {}, s.seat_colours.map((colour, seat) => h('li', {
      class: `seat${s.active_seat === seat && view.status === 'running' ? ' active' : ''}${view.you === seat ? ' you' : ''}${s.forfeited.includes(seat) ? ' out' : ''}`,
      dataset: {seat: String(seat)}},
      h('span', {class: `swatch c-${colour}`, 'aria-hidden': 'true'}),
      h('strong', {}, seatName(view, seat)), view.you === seat ? ' (you)' : '',
      s.forfeited.includes(seat) ? h('span', {class: 'out-mark'}, ' (out)') : '',
      s.active_seat === seat && view.status === 'running' ? srOnly(' (to act)') : '',
      h('span', {class: 'seat-facts'}, ` ${colour} · jokers ${s.jokers_left[seat]} · score `,
        h('span', {class: 'score'}, String(s.scores[seat]))),
      s.inspected[seat].length ? h('small', {class: 'inspected'}, ` inspected: ${s.inspected[seat].join(', ')}`) : null))));
}

/** One line of the log for an event (null: not worth a line). */
export function describeEvent(e, view) {
  const d = e.data || {};
  const who = seat => seatName(view, seat);
  switch (e.type) {
    case 'DieRolled': return `${who(d.seat)} rolled ${d.value} (${d.purpose})`;
    case 'EarMoved': return `${who(d.seat)} moved ear ${d.ear} ${d.from}→${d.to}`;
    case 'EarPlaced': return `${who(d.seat)} placed ear ${d.ear} on ${d.to}`;
    case 'EarRevealed': return `ear ${d.ear} is ${d.colour}`;
    case 'EarRelocated': return `ear ${d.ear} goes to ${d.to}`;
    case 'EarsInspected': {
      const seen = e.private && e.private.colours
        ? ': ' + Object.entries(e.private.colours).map(([ear, c]) => `${ear} ${c}`).join(', ') : '';
      return `${who(d.seat)} inspected ears ${d.ears.join(', ')}${seen}`;
    }
    case 'JokerUsed': return `${who(d.seat)} played a joker (${d.jokers_left} left)`;
    case 'JokerReturned': return `${who(d.seat)}'s joker came back`;
    case 'MoveEnded': return `${who(d.seat)}'s move ended (no legal step)`;
    case 'TurnEnded': return `turn ${d.turn}: ${who(d.next_seat)}`;
    case 'GameSetUp': return `the ears are shuffled; ${d.players} players`;
    case 'SeatForfeited': return `${who(d.seat)} is out of the game`;
    default: return sharedEvent(e, view);
  }
}

export function sharedEvent(e, view) {
  const d = e.data || {};
  switch (e.type) {
    case 'SeatTaken': return `${d.name} took seat ${d.seat}${d.bot ? ` (bot, ${d.bot})` : ''}`;
    case 'SeatLeft': return `seat ${d.seat} left`;
    case 'PlayStarted': return 'the game started';
    case 'GameEnded': return `game over: ${d.winners.map(s => seatName(view, s)).join(' and ')} (scores ${d.scores.join(', ')})`;
    case 'SeedRevealed': return 'the seed is revealed';
    case 'TurnTimedOut': return `${seatName(view, d.seat)} ran out of time`;
    case 'SeatTokenReissued': return `${seatName(view, d.seat)} took the seat back on another device`;
    case 'GameExpired': return d.reason === 'idle' ? 'the game expired: nobody acted for too long' : 'the game expired';
    default: return null;
  }
}
