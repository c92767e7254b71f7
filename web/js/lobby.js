// The lobby: the open, running and finished games (filtered by game), a form to create a
// game with its options and bot seats, joining a free seat with a name, watching.

import {call, describeError, heldInvite, heldSeat, joinBody, keepInvite, keepSeat, playerName, setPlayerName} from './api.js';
import {announce, h, replaceKeepingFocus} from './a11y.js';
import {CLOCK_POLICIES, timeLeft} from './clock.js';
import {accountBox, accountHolds, signedIn, takeBack} from './account.js';

/** The turn clocks the form offers (`clock` of POST /v1/games, without its policy). */
const CLOCK_PRESETS = {
  '': {label: 'none (no time limit)', clock: null},
  fast: {label: '30 s + 2 min reserve', clock: {per_decision_s: 30, reserve_s: 120}},
  slow: {label: '2 min + 10 min reserve', clock: {per_decision_s: 120, reserve_s: 600}},
  daily: {label: '1 day per decision', clock: {per_decision_s: 86400, reserve_s: 0}},
};

const REFRESH_MS = 4000;
const RATINGS_EVERY_MS = 15000;  // a leaderboard moves only when a rated game ends
const SECTIONS = [
  ['open', 'Open games'],
  ['running', 'Running games'],
  ['finished', 'Finished games'],
];

/** Show the lobby in `root`; returns a function that stops its refreshing. */
export function showLobby(root) {
  let catalogue = [];
  let filter = sessionStorage.getItem('tabletop.filter') || '';
  let timer = null;
  let stopped = false;
  let ratingsAt = -Infinity;
  let movesAnnounced = 0;  // games where it is your move, as last told to screen readers

  const message = h('p', {id: 'lobby-message', class: 'message', role: 'alert'});
  const nameInput = h('input', {id: 'player-name', name: 'name', autocomplete: 'nickname',
    maxlength: 40, value: playerName(), required: true,
    oninput: () => setPlayerName(nameInput.value.trim())});
  const createArea = h('section', {class: 'panel create', 'aria-labelledby': 'create-title'});
  const ratingsArea = h('section', {class: 'panel ratings', 'aria-labelledby': 'ratings-title'});
  const myGamesArea = h('section', {class: 'panel my-games', 'aria-labelledby': 'my-games-title', hidden: true});
  const lists = h('section', {class: 'panel games', 'aria-labelledby': 'games-title'});
  const filterSelect = h('select', {id: 'game-filter', onchange: () => {
    filter = filterSelect.value;
    sessionStorage.setItem('tabletop.filter', filter);
    refresh();
  }});

  document.title = 'Lobby · tabletop';
  root.replaceChildren(
    h('h1', {}, 'Lobby'),
    h('p', {class: 'intro'}, 'Play Schlitzohr or Abluxxen against people or bots, or watch a game.'),
    h('div', {class: 'name-row'}, h('label', {for: 'player-name'}, 'Your name'), nameInput),
    accountBox(nameInput, () => refresh(), text => say(text)),
    message,
    myGamesArea,
    h('div', {class: 'lobby'}, createArea, lists),
    ratingsArea,
  );

  function say(text) { message.textContent = text; }

  function needName() {
    const account = signedIn();
    if (account) return account.name;
    const name = nameInput.value.trim();
    if (!name) {
      say('Enter your name first (it is shown to the other players).');
      nameInput.focus();
      return null;
    }
    return name;
  }

  async function join(gameId, seat) {
    const name = needName();
    if (!name) return;
    const account = signedIn();
    try {
      // Signed in: the seat is the account's (its name, rated); else a guest's, by name.
      const body = account ? {} : {name};
      if (seat !== undefined) body.seat = seat;
      const token = account ? account.key : undefined;
      const answer = await call('POST', `/v1/games/${encodeURIComponent(gameId)}/seats`, {body: joinBody(gameId, body), token});
      keepSeat(gameId, {seat: answer.body.seat, token: answer.body.token, name});
      location.hash = `#/games/${gameId}`;
    } catch (error) {
      say(`Could not join: ${describeError(error)}`);
    }
  }

  function clockFields() {
    // Presets rather than free numbers: what people choose between (the API takes any
    // per_decision_s 1..604800 and reserve_s 0..604800; docs/api.md "Turn clocks").
    const clockSelect = h('select', {id: 'create-clock'},
      Object.entries(CLOCK_PRESETS).map(([value, preset]) => h('option', {value}, preset.label)));
    const policySelect = h('select', {id: 'create-clock-policy', disabled: true},
      Object.entries(CLOCK_POLICIES).map(([value, label]) => h('option', {value}, label)));
    clockSelect.addEventListener('change', () => { policySelect.disabled = !CLOCK_PRESETS[clockSelect.value].clock; });
    const fieldset = h('fieldset', {class: 'clock-fields'}, h('legend', {}, 'Turn clock'),
      h('div', {class: 'field'}, h('label', {for: 'create-clock'}, 'Time per decision'), clockSelect,
        h('small', {class: 'hint'},
          'Time for each decision, plus a reserve for the whole game. With a clock nobody can hold the game up by walking away.')),
      h('div', {class: 'field'}, h('label', {for: 'create-clock-policy'}, 'When time runs out'), policySelect));
    const chosen = () => {
      const preset = CLOCK_PRESETS[clockSelect.value].clock;
      return preset ? {...preset, policy: policySelect.value} : null;
    };
    return {fieldset, chosen};
  }

  function renderCreate() {
    const gameSelect = h('select', {id: 'create-game', name: 'game'},
      catalogue.map(g => h('option', {value: g.name}, g.title || g.name)));
    const body = h('div', {class: 'create-fields'});
    const joinBox = h('input', {type: 'checkbox', id: 'create-join', checked: true});
    const inviteBox = h('input', {type: 'checkbox', id: 'create-invite'});
    const clock = clockFields();

    function fields() {
      const game = catalogue.find(g => g.name === gameSelect.value) || catalogue[0];
      if (!game) return;
      const players = h('input', {type: 'number', id: 'create-players', min: game.min_players,
        max: game.max_players, value: game.min_players, required: true});
      const seats = h('fieldset', {class: 'seats'}, h('legend', {}, 'Seats'));
      const seatRows = () => {
        const n = Math.max(game.min_players, Math.min(game.max_players, Number(players.value) || 2));
        const keep = Array.from(seats.querySelectorAll('select'), s => s.value);
        seats.replaceChildren(h('legend', {}, 'Seats'));
        for (let i = 0; i < n; i++) {
          const id = `create-seat-${i}`;
          const choice = h('select', {id, name: id},
            h('option', {value: ''}, 'a person'),
            game.bot_levels.map(level => h('option', {value: level}, `bot: ${level}`)));
          choice.value = keep[i] !== undefined ? keep[i] : (i === 0 ? '' : game.bot_levels[1] || game.bot_levels[0]);
          seats.append(h('div', {class: 'field'}, h('label', {for: id}, `Seat ${i}`), choice));
        }
      };
      players.addEventListener('input', seatRows);
      seatRows();
      const options = game.options.map(option => {
        const id = `option-${option.name}`;
        let input;
        if (option.type === 'bool') {
          input = h('input', {type: 'checkbox', id, checked: option.default});
        } else if (option.type === 'int') {
          input = h('input', {type: 'number', id, min: option.minimum, max: option.maximum, value: option.default});
        } else if (option.type === 'choice') {
          input = h('select', {id}, option.choices.map(c => h('option', {value: c, selected: c === option.default}, c)));
        } else {
          input = h('input', {id, value: option.default ?? ''});
        }
        input.dataset.option = option.name;
        input.dataset.type = option.type;
        return h('div', {class: option.type === 'bool' ? 'field check' : 'field'},
          h('label', {for: id}, option.name.replaceAll('_', ' ')), input,
          h('small', {class: 'hint'}, option.description || ''));
      });
      body.replaceChildren(
        h('div', {class: 'field'}, h('label', {for: 'create-players'}, 'Players'), players),
        seats,
        h('fieldset', {class: 'options'}, h('legend', {}, 'Options'), options),
      );
    }
    gameSelect.addEventListener('change', fields);
    fields();

    async function submit(event) {
      event.preventDefault();
      const game = gameSelect.value;
      const players = Number(body.querySelector('#create-players').value);
      const bots = {};
      body.querySelectorAll('.seats select').forEach((s, i) => { if (s.value) bots[String(i)] = s.value; });
      const options = {};
      body.querySelectorAll('[data-option]').forEach(input => {
        const name = input.dataset.option;
        if (input.dataset.type === 'bool') options[name] = input.checked;
        else if (input.dataset.type === 'int') options[name] = Number(input.value);
        else options[name] = input.value;
      });
      const humans = players - Object.keys(bots).length;
      const joining = joinBox.checked && humans > 0;
      if (joining && !needName()) return;
      try {
        const chosenClock = clock.chosen();
        const request = {game, players, options, bots, ...(chosenClock ? {clock: chosenClock} : {})};
        if (inviteBox.checked) request.invite_only = true;
        const answer = await call('POST', '/v1/games', {body: request});
        const gameId = answer.body.game_id;
        // Shown this once by the server: kept here, the game page shows its link to share.
        if (answer.body.invite) keepInvite(gameId, answer.body.invite);
        if (joining) await join(gameId);
        else location.hash = `#/games/${gameId}`;
      } catch (error) {
        say(`Could not create the game: ${describeError(error)}`);
      }
    }

    createArea.replaceChildren(
      h('h2', {id: 'create-title'}, 'New game'),
      h('form', {onsubmit: submit, 'aria-labelledby': 'create-title'},
        h('div', {class: 'field'}, h('label', {for: 'create-game'}, 'Game'), gameSelect),
        body,
        clock.fieldset,
        h('div', {class: 'field check'}, joinBox, h('label', {for: 'create-join'}, 'Take the first free seat myself')),
        h('div', {class: 'field check'}, inviteBox, h('label', {for: 'create-invite'}, 'Invite only'),
          h('small', {class: 'hint'}, 'Only people you give the game\'s link to can take a seat, so no stranger can take one and hold the game up.')),
        h('button', {type: 'submit', class: 'primary', id: 'create-submit'}, 'Create game')),
    );
  }

  function seatText(seat) {
    if (!seat) return 'free';
    return seat.bot ? `${seat.name} (bot, ${seat.bot})` : seat.name;
  }

  function gameRow(game) {
    const held = heldSeat(game.game_id);
    const free = game.seats.findIndex(s => s === null);
    const ours = game.status !== 'finished' && game.status !== 'expired' ? game.seats.findIndex(accountHolds) : -1;
    const actions = [];
    if (held) {
      actions.push(h('a', {class: 'button primary', href: `#/games/${game.game_id}`, dataset: {key: `go-${game.game_id}`}},
        `Continue as seat ${held.seat}`));
    } else if (ours >= 0) {
      // The account's seat, its token elsewhere (another device): take it back here.
      actions.push(h('button', {type: 'button', class: 'primary', dataset: {key: `back-${game.game_id}`},
        onclick: () => playHere(game.game_id, ours)}, `Play seat ${ours} here`));
    } else if (game.status === 'open' && free >= 0 && game.invite_only && !heldInvite(game.game_id)) {
      // Seats only for people with its link (its creator shares it): nothing to offer here.
      actions.push(h('span', {class: 'hint invite-only'}, 'invite only'));
    } else if (game.status === 'open' && free >= 0) {
      actions.push(h('button', {type: 'button', class: 'primary', dataset: {key: `join-${game.game_id}`},
        'aria-label': `Join game ${game.game_id}`, onclick: () => join(game.game_id)}, 'Join'));
    }
    actions.push(h('a', {class: 'button', href: `#/games/${game.game_id}`, dataset: {key: `watch-${game.game_id}`},
      'aria-label': `${game.status === 'finished' ? 'Replay' : 'Watch'} game ${game.game_id}`},
      game.status === 'finished' ? 'Replay' : 'Watch'));
    const title = catalogue.find(g => g.name === game.game);
    return h('li', {class: 'game-row', dataset: {gameId: game.game_id}},
      h('span', {class: 'game-name'}, title ? title.title : game.game,
        // Its players' own table again: a stranger sees it before taking one of their seats.
        game.rematch_of ? h('small', {class: 'hint rematch-of'}, ' rematch') : ''),
      h('code', {class: 'game-id'}, game.game_id),
      h('span', {class: 'game-seats'}, game.seats.map(seatText).join(' · ')),
      h('span', {class: 'game-actions'}, actions));
  }

  async function renderRatings() {
    // The leaderboards (registered players and the bots' levels), best first.
    const boards = await Promise.all(catalogue.map(async game => {
      const page = (await call('GET', `/v1/ratings/${encodeURIComponent(game.name)}?limit=10`)).body;
      return h('section', {class: 'leaderboard', 'aria-labelledby': `ratings-${game.name}`},
        h('h3', {id: `ratings-${game.name}`}, game.title || game.name),
        page.ratings.length
          ? h('ol', {}, page.ratings.map(r => h('li', {value: r.position},
            h('span', {class: 'rated-name'}, r.bot ? `${r.name} (bot)` : r.name), ' ',
            h('span', {class: 'rating'}, r.ordinal.toFixed(1)),
            h('span', {class: 'hint'}, ` · ${r.games} game${r.games === 1 ? '' : 's'}`))))
          : h('p', {class: 'empty'}, 'Nobody rated yet: registered players are, once they finish a game against another rated player or a bot.'));
    }));
    replaceKeepingFocus(ratingsArea, h('h2', {id: 'ratings-title'}, 'Ratings'), boards);
  }

  /** Take the account's seat of a game back for this browser, and open the game. */
  async function playHere(gameId, seat) {
    try {
      await takeBack(gameId, seat);
      location.hash = `#/games/${gameId}`;
    } catch (error) {
      say(`Could not take your seat back: ${describeError(error)}`);
    }
  }

  /** The signed-in account's games under way, those where it is to move first
   * (GET /v1/players/me/games: what the player stream last said of each). */
  async function renderMyGames() {
    const account = signedIn();
    myGamesArea.hidden = !account;
    if (!account) return;
    const page = (await call('GET', '/v1/players/me/games?limit=50', {token: account.key})).body;
    const live = page.games.filter(g => g.status !== 'finished' && g.status !== 'expired');
    live.sort((a, b) => Number(b.to_move) - Number(a.to_move));
    const toMove = live.filter(g => g.to_move).length;
    if (toMove > movesAnnounced) announce(`Your move in ${toMove} game${toMove === 1 ? '' : 's'}.`);
    movesAnnounced = toMove;
    replaceKeepingFocus(myGamesArea,
      h('h2', {id: 'my-games-title'}, 'Your games'),
      h('p', {id: 'to-move', class: toMove ? 'turn mine' : 'hint'},
        toMove ? `Your move in ${toMove} game${toMove === 1 ? '' : 's'}.` : 'Nothing for you to do right now.'),
      live.length ? h('ul', {}, live.map(myGameRow)) : h('p', {class: 'empty'}, 'No game under way.'));
  }

  function myGameRow(game) {
    const label = game.to_move ? 'Your move' : 'Open';
    const key = {key: `mine-${game.game_id}`};
    const className = game.to_move ? 'button primary' : 'button';
    // Its token is in this browser, or the seat is not known yet: just open it; else
    // the seat's token is on another device: take it back here first.
    const action = heldSeat(game.game_id) || game.seat === null
      ? h('a', {class: className, href: `#/games/${game.game_id}`, dataset: key}, label)
      : h('button', {type: 'button', class: className, dataset: key,
        onclick: () => playHere(game.game_id, game.seat)}, `${label}: play here`);
    const deadline = game.to_move && game.deadline ? ` · ${timeLeft(game.deadline.at_ms, Date.now())} left` : '';
    return h('li', {class: 'game-row', dataset: {myGame: game.game_id}},
      h('code', {class: 'game-id'}, game.game_id),
      h('span', {}, `seat ${game.seat ?? '?'} · ${game.status ?? 'starting'}${deadline}`),
      h('span', {class: 'game-actions'}, action));
  }

  async function refresh() {
    if (stopped) return;
    clearTimeout(timer);
    try {
      const query = filter ? `&game=${encodeURIComponent(filter)}` : '';
      const pages = await Promise.all(SECTIONS.map(([status]) =>
        call('GET', `/v1/games?status=${status}&limit=${status === 'finished' ? 10 : 50}${query}`)));
      if (stopped) return;
      const sections = SECTIONS.map(([status, title], i) => {
        const games = pages[i].body.games;
        return h('section', {class: `list list-${status}`, 'aria-labelledby': `list-${status}`},
          h('h3', {id: `list-${status}`}, `${title} (${games.length})`),
          games.length ? h('ul', {}, games.map(gameRow)) : h('p', {class: 'empty'}, 'None.'));
      });
      replaceKeepingFocus(lists,
        h('h2', {id: 'games-title'}, 'Games'),
        h('div', {class: 'field'}, h('label', {for: 'game-filter'}, 'Show'), filterSelect),
        sections);
    } catch (error) {
      say(`Could not load the games: ${describeError(error)}`);
    }
    await renderMyGames().catch(error => say(`Could not load your games: ${describeError(error)}`));
    if (catalogue.length && Date.now() - ratingsAt >= RATINGS_EVERY_MS) {
      ratingsAt = Date.now();
      renderRatings().catch(error => say(`Could not load the ratings: ${describeError(error)}`));
    }
    timer = setTimeout(refresh, REFRESH_MS);
  }

  (async () => {
    try {
      catalogue = (await call('GET', '/v1/catalogue')).body.games;
    } catch (error) {
      say(`Could not load the catalogue: ${describeError(error)}`);
      return;
    }
    filterSelect.replaceChildren(h('option', {value: ''}, 'all games'),
      catalogue.map(g => h('option', {value: g.name}, g.title || g.name)));
    filterSelect.value = filter;
    renderCreate();
    refresh();
    announce('Lobby');
  })();

  return () => { stopped = true; clearTimeout(timer); };
}
