// The client's entry point: a tiny router over the URL's fragment.
//   #/                 the lobby
//   #/games/<id>       a game: played with the seat this browser holds, else watched
// (The fragment never reaches the server, so no server route is needed per page.)

import {showLobby} from './lobby.js';
import {showGame} from './game.js';

const main = document.getElementById('main');
let dispose = () => {};

function route() {
  dispose();
  const match = /^#\/games\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  dispose = match ? showGame(main, match[1]) : showLobby(main);
}

window.addEventListener('hashchange', () => {
  route();
  main.focus({preventScroll: true});  // a new page: screen readers start at its content
});
route();
