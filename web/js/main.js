// The client's entry point: a tiny router over the URL's fragment.
//   #/                           the lobby
//   #/games/<id>                 a game: played with the seat this browser holds, else watched
//   #/games/<id>?invite=<code>   an invite-only game's link: the code is kept in this
//                                browser, and the address shows the plain game page
// (The fragment never reaches the server, so no server route is needed per page, and
// an invite code in a link is never sent to one.)

import {showLobby} from './lobby.js';
import {showGame} from './game.js';
import {keepInvite, pruneKept} from './api.js';

const main = document.getElementById('main');
let dispose = () => {};

function route() {
  dispose();
  const invited = /^#\/games\/([A-Za-z0-9_-]{1,64})\?invite=([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  if (invited) {
    keepInvite(invited[1], invited[2]);
    // Off the address bar and the history: a screenshot or a shared tab shows no code.
    history.replaceState(null, '', `#/games/${invited[1]}`);
  }
  const match = /^#\/games\/([A-Za-z0-9_-]{1,64})$/.exec(location.hash);
  dispose = match ? showGame(main, match[1]) : showLobby(main);
}

pruneKept();
window.addEventListener('hashchange', () => {
  route();
  main.focus({preventScroll: true});  // a new page: screen readers start at its content
});
route();
