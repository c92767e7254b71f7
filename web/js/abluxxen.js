// Abluxxen: the own hand (sorted), every seat's row of sets with its top set marked, hand
// sizes, the display, the pile and the discard pile; playing a set by choosing cards
// (only cards that can still make a legal set are selectable), take or leave, take back
// or discard, drawing from the display or the pile, passing.

import {h, srOnly} from './a11y.js';
import {sharedEvent} from './schlitzohr.js';

export const TITLE = 'Abluxxen';

function seatName(view, seat) {
  const s = view.seats[seat];
  return s && s.name ? s.name : `seat ${seat}`;
}

function cardText(card) {
  return card === 'X' ? 'joker' : String(card);
}

function setCards(set) {
  return [...Array(set.count).fill(set.number), ...Array(set.jokers).fill('X')];
}

function setText(set) {
  return setCards(set).map(cardText).join(' ');
}

function cardNode(card, extra = {}) {
  return h('span', {class: `card${card === 'X' ? ' joker' : ''}`, ...extra}, card === 'X' ? '★' : String(card));
}

/** The chosen cards as a set: {number, count, jokers} (number null while only jokers). */
function chosenSet(hand, chosen) {
  let number = null;
  let count = 0;
  let jokers = 0;
  for (const i of chosen) {
    if (hand[i] === 'X') jokers++;
    else { number = hand[i]; count++; }
  }
  return {number, count, jokers};
}

/** Can the partial choice `c` still grow into the legal play `p`? */
function fits(c, p) {
  return c.count <= p.count && c.jokers <= p.jokers && (c.count === 0 || p.number === c.number);
}

function same(c, p) {
  return c.count === p.count && c.jokers === p.jokers && (c.count === 0 ? p.number === null : p.number === c.number);
}

export function render(view, ctx) {
  const s = view.state;
  const ui = ctx.ui;
  const commands = ctx.commands || [];
  if (ui.version !== view.version) {
    ui.version = view.version;
    ui.chosen = new Set();
  }
  const kinds = new Set(commands.map(c => c.kind));
  const plays = commands.filter(c => c.kind === 'play');
  const displayDraws = new Set(commands.filter(c => c.kind === 'draw' && c.from === 'display').map(c => String(c.card)));
  const pileDraw = commands.some(c => c.kind === 'draw' && c.from === 'pile');
  const button = (key, label, onclick, extra = {}) => h('button', {type: 'button', class: 'action',
    id: `act-${key}`, dataset: {key: `act-${key}`}, disabled: ctx.busy, onclick, ...extra}, label);

  // The table: display, pile, discard.
  const display = h('div', {class: 'display', role: 'group', 'aria-label': 'Display'},
    h('h3', {}, 'Display'),
    h('div', {class: 'cards'}, s.display.length ? s.display.map((card, i) => displayDraws.has(String(card))
      ? h('button', {type: 'button', class: `card${card === 'X' ? ' joker' : ''} drawable`, disabled: ctx.busy,
        dataset: {key: `display-${i}`, card: String(card)}, 'aria-label': `Draw ${cardText(card)} from the display`,
        onclick: () => ctx.send({kind: 'draw', from: 'display', card})}, card === 'X' ? '★' : String(card))
      : cardNode(card, {'aria-label': cardText(card)})) : h('span', {class: 'empty'}, 'empty')));
  const pile = h('div', {class: 'pile'}, h('h3', {}, 'Pile'),
    pileDraw
      ? h('button', {type: 'button', class: 'card back drawable', id: 'draw-pile', dataset: {key: 'draw-pile'},
        disabled: ctx.busy, 'aria-label': `Draw from the pile (${s.pile_size} cards)`,
        onclick: () => ctx.send({kind: 'draw', from: 'pile'})}, String(s.pile_size))
      : h('span', {class: 'card back', 'aria-label': `${s.pile_size} cards`}, String(s.pile_size)));
  const discard = h('div', {class: 'discard'}, h('h3', {}, `Discard (${s.discard.length})`),
    h('div', {class: 'cards small'}, s.discard.length ? s.discard.map(c => cardNode(c)) : h('span', {class: 'empty'}, 'empty')));

  // What this viewer must decide now.
  const actions = [];
  let hint = '';
  if (s.set_in_dispute && s.victim !== null) {
    hint = `${seatName(view, s.victim)}'s set ${setText(s.set_in_dispute)} was abluxxed.`;
  }
  if (kinds.has('take')) {
    const victim = commands.find(c => c.kind === 'take').victim;
    actions.push(button('take', `Take ${setText(s.set_in_dispute)} into your hand`, () => ctx.send({kind: 'take', victim})));
    actions.push(button('leave', 'Leave it', () => ctx.send({kind: 'leave', victim})));
  }
  if (kinds.has('take_back')) actions.push(button('take_back', 'Take your set back', () => ctx.send({kind: 'take_back'})));
  if (kinds.has('discard')) actions.push(button('discard', 'Discard it and draw', () => ctx.send({kind: 'discard'})));
  if (kinds.has('draw')) {
    hint += s.owed ? ` Draw ${s.owed} card${s.owed === 1 ? '' : 's'}: a display card or the pile.` : ' You may draw one card, or pass.';
  }
  if (kinds.has('pass')) actions.push(button('pass', 'Pass', () => ctx.send({kind: 'pass'})));

  // The own hand: cards to choose for a set.
  let hand = null;
  if (s.hand) {
    const choosing = plays.length > 0;
    const current = chosenSet(s.hand, ui.chosen);
    const cards = s.hand.map((card, i) => {
      const chosen = ui.chosen.has(i);
      let selectable = chosen;
      if (choosing && !chosen) {
        const next = chosenSet(s.hand, new Set([...ui.chosen, i]));
        selectable = plays.some(p => fits(next, p));
      }
      if (!choosing) return cardNode(card, {'aria-label': cardText(card)});
      return h('button', {type: 'button', class: `card${card === 'X' ? ' joker' : ''}${chosen ? ' chosen' : ''}`,
        'aria-pressed': chosen ? 'true' : 'false', 'aria-label': cardText(card), disabled: ctx.busy || !selectable,
        dataset: {key: `hand-${i}`, card: String(card)},
        onclick: () => { if (chosen) ui.chosen.delete(i); else ui.chosen.add(i); ctx.rerender(); }},
      card === 'X' ? '★' : String(card));
    });
    if (choosing) {
      const ready = ui.chosen.size > 0 && plays.some(p => same(current, p));
      const label = ui.chosen.size ? `Play ${setCards(current).map(cardText).join(' ')}` : 'Play the chosen cards';
      actions.unshift(button('play', label, () => ctx.send({kind: 'play', ...plays.find(p => same(current, p))}),
        {disabled: ctx.busy || !ready}));
      if (ui.chosen.size) actions.push(button('clear', 'Clear the choice', () => { ui.chosen = new Set(); ctx.rerender(); }));
      hint = 'Choose cards of one number (jokers join any): a set the same size and higher abluxxes.';
    }
    hand = h('section', {class: 'hand', 'aria-labelledby': 'hand-title'},
      h('h2', {id: 'hand-title'}, `Your hand (${s.hand.length})`),
      h('div', {class: 'cards', role: 'group', 'aria-label': 'Your hand, sorted'}, cards));
  }

  const controls = h('div', {class: 'controls', role: 'group', 'aria-label': 'Your actions'},
    h('p', {class: 'facts'}, `Deal ${s.round} of ${s.options.rounds}. Sets played: ${s.turn}.`),
    hint ? h('p', {class: 'hint', id: 'hint'}, hint.trim()) : null,
    actions.length ? h('div', {class: 'buttons'}, actions) : null);

  return h('div', {class: 'ab'},
    h('section', {class: 'table', 'aria-label': 'Table'}, display, pile, discard),
    hand,
    controls,
    rowsPanel(view));
}

function rowsPanel(view) {
  const s = view.state;
  return h('section', {class: 'rows', 'aria-labelledby': 'rows-title'},
    h('h2', {id: 'rows-title'}, 'Players and their rows'),
    h('ul', {}, s.rows.map((row, seat) => {
      const acting = view.status === 'running' && s.to_act && s.to_act.seat === seat;
      return h('li', {class: `seat${acting ? ' active' : ''}${view.you === seat ? ' you' : ''}`, dataset: {seat: String(seat)}},
        h('div', {class: 'seat-head'},
          h('strong', {}, seatName(view, seat)), view.you === seat ? ' (you)' : '',
          acting ? srOnly(' (to act)') : '',
          h('span', {class: 'seat-facts'}, ` · hand ${s.hand_sizes[seat]} · score `, h('span', {class: 'score'}, String(s.scores[seat])))),
        h('ol', {class: 'row', 'aria-label': `${seatName(view, seat)}'s row, oldest set first`},
          row.length ? row.map((set, i) => {
            const top = i === row.length - 1;
            return h('li', {class: `set${top ? ' top' : ''}`},
              setCards(set).map(c => cardNode(c, {'aria-hidden': 'true'})),
              srOnly(setText(set)), top ? h('span', {class: 'top-mark'}, 'top') : null);
          }) : h('li', {class: 'empty'}, 'no sets')),
        s.hands ? h('p', {class: 'final-hand'}, `Hand at the end: ${s.hands[seat].map(cardText).join(' ') || 'empty'}`) : null);
    })));
}

export function describeEvent(e, view) {
  const d = e.data || {};
  const who = seat => seatName(view, seat);
  switch (e.type) {
    case 'SetPlayed': return `${who(d.seat)} played ${setText(d.set)}`;
    case 'Abluxxed': return `${who(d.seat)} abluxxed ${d.victims.map(who).join(', ')}`;
    case 'SetRemoved': return `${who(d.seat)}'s set ${setText(d.set)} leaves the row`;
    case 'SetTaken': return `${who(d.seat)} took ${setText(d.set)} from ${who(d.victim)}`;
    case 'SetLeft': return `${who(d.seat)} left the set to ${who(d.victim)}`;
    case 'SetTakenBack': return `${who(d.seat)} took back ${setText(d.set)}`;
    case 'SetDiscarded': return `${who(d.seat)} discarded ${setText(d.set)}`;
    case 'CardDrawn': {
      if (d.from === 'display') return `${who(d.seat)} drew ${cardText(d.card)} from the display`;
      const seen = e.private && e.private.card !== undefined ? ` (${cardText(e.private.card)})` : '';
      return `${who(d.seat)} drew from the pile${seen}`;
    }
    case 'DrawDeclined': return `${who(d.seat)} passed`;
    case 'DisplayRefilled': return `display refilled (pile ${d.pile_size})`;
    case 'DisplayDealt': return `display: ${d.cards.map(cardText).join(' ')}`;
    case 'HandDealt': return `${who(d.seat)} was dealt ${d.size} cards`;
    case 'GameStarted': return 'the cards are dealt';
    case 'TurnPassed': return `${who(d.next)}'s turn`;
    case 'DealEnded': return `deal ${d.round} ended (${d.reason.replaceAll('_', ' ')}): ${d.deal_scores.join(', ')}`;
    case 'DeckShuffled': return `deal ${d.round}: cards shuffled`;
    default: return sharedEvent(e, view);
  }
}
