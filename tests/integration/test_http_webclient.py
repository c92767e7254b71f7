"""The browser client's files and the view ``?seat=`` it replays with, over the real app.

No browser here (``tests/browser`` drives one): what the server promises about serving
``web/`` -- the page at ``/``, its own CSP, an allow-list of files, revalidation -- and
that ``?seat=`` shows a seat's view to others only once the game has finished.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.http_games import FlaskApi, create_game, play_randomly, seat_everyone

from service.http import webclient
from service.runner.server import API_CSP

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api

WEB = Path(__file__).resolve().parents[2] / "web"


def test_the_page_is_served_at_the_root_with_the_clients_own_policy(api: FlaskApi) -> None:
    page = api.call("GET", "/")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    assert '<script type="module" src="/web/main.js">' in page.body
    csp = page.headers["Content-Security-Policy"]
    assert csp == webclient.CLIENT_CSP
    for directive in ("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"):
        assert directive in csp
    assert "unsafe" not in csp and "*" not in csp
    assert page.headers["X-Frame-Options"] == "DENY" and page.headers["X-Content-Type-Options"] == "nosniff"
    # Everything else keeps the API's policy.
    assert api.call("GET", "/v1/catalogue").headers["Content-Security-Policy"] == API_CSP
    assert api.call("GET", "/nowhere").headers["Content-Security-Policy"] == API_CSP


def test_every_file_of_the_client_is_served_by_its_name_with_its_type_and_revalidated(
    api: FlaskApi,
) -> None:
    files = [p for p in WEB.rglob("*") if p.is_file()]
    names = [p.name for p in files]
    assert len(names) == len(set(names)), "file names in web/ must be unique (flat URLs)"
    assert {"index.html", "main.js", "app.css"} <= set(names)
    for name in names:
        reply = api.call("GET", f"/web/{name}")
        assert reply.status == 200, name
        assert reply.headers["Content-Type"].startswith(webclient.MIMETYPES[Path(name).suffix]), name
        assert reply.headers["Cache-Control"] == "no-cache"
        again = api.call("GET", f"/web/{name}", headers={"If-None-Match": reply.headers["ETag"]})
        assert again.status == 304, name


@pytest.mark.parametrize(
    "path",
    [
        "/web/../pyproject.toml",
        "/web/..%2fpyproject.toml",
        "/web/%2e%2e/service/settings.py",
        "/web/js/main.js",
        "/web/js/../../README.md",
        "/web/missing.js",
        "/web/index",
        "/web/",
    ],
)
def test_nothing_but_the_clients_files_can_be_read(api: FlaskApi, path: str) -> None:
    reply = api.call("GET", path)
    assert reply.status == 404, (path, reply.status)
    assert reply.headers["Content-Type"] == "application/problem+json"


def test_no_module_uses_inline_script_eval_or_another_origin() -> None:
    """What the CSP would block anyway, caught before a browser does."""
    for path in WEB.rglob("*"):
        if path.suffix not in (".js", ".html", ".css"):
            continue
        text = path.read_text()
        code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
        for banned in ("eval(", "new Function", ".innerHTML", "http://", "https://", "<script>", " style="):
            assert banned not in code, (path.name, banned)


def test_a_seats_view_is_shown_to_others_only_once_the_game_has_finished(api: FlaskApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    running = api.call("GET", f"/v1/games/{game_id}?seat=1")
    assert running.status == 409 and running.body["code"] == "game_not_finished"
    assert "hand" not in str(running.body)
    past = api.call("GET", f"/v1/games/{game_id}?at=9&seat=0")
    assert past.status == 409  # a past version of a running game neither
    final = play_randomly(api, game_id, tokens, b"webclient-seat")
    assert final["status"] == "finished"
    for version in (9, final["version"] // 2):
        as_seat = api.call("GET", f"/v1/games/{game_id}?at={version}&seat=1").body
        own = api.call("GET", f"/v1/games/{game_id}?at={version}", token=tokens[1]).body
        assert as_seat == own and as_seat["state"]["hand"] is not None
        spectator = api.call("GET", f"/v1/games/{game_id}?at={version}").body
        assert spectator["state"]["hand"] is None
    missing = api.call("GET", f"/v1/games/{game_id}?seat=2")
    assert missing.status == 400 and missing.body["code"] == "invalid_parameter"


def test_the_image_ships_the_client_where_the_server_looks_for_it() -> None:
    """The Docker image copies ``web/`` beside ``service/`` (``/app/web``), as in the tree."""
    root = Path(__file__).resolve().parents[2]
    dockerfile = (root / "Dockerfile").read_text()
    assert "COPY web web" in dockerfile and "COPY service service" in dockerfile
    assert webclient.WEB_DIR == root / "web"
    assert "web" not in (root / ".dockerignore").read_text().split()
