"""The browser client: ``GET /`` (its page) and ``GET /web/<file>`` (its modules and styles).

The client itself lives in the top-level folder ``web/`` (plain ES modules, no build
step; see ``docs/client.md``). This blueprint only serves those files, same origin as
the API, so the client needs no CORS and no second server.

Guarantees:

- Only the files that are in ``web/`` when the process starts, with a known suffix,
  can be served, each at ``/web/<its name>``: the names are an allow-list built once,
  so no path a client sends can reach anything else (``..``, sub-paths, symlinks: 404).
- Every answer of these routes carries :data:`CLIENT_CSP` instead of the API's
  ``default-src 'none'``: scripts, styles, images and connections from this origin
  only -- no inline script, no ``eval``, nothing from another site -- and no framing.
  ``service.http.security`` adds the other security headers and keeps the strict CSP
  everywhere else (it sets headers only where a response has none of its own).
- Files are read on every request and revalidated on every load (``Cache-Control:
  no-cache`` + an ETag of their content): an edited file is served at once, an
  unchanged one costs a 304. (A file added after the start needs a restart.)

Failure modes: a missing ``web/`` folder (a broken install), or a file gone since the
start, is a 404 ``not_found`` problem like any unknown path, never a 500.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Blueprint, Response, request

from service.http.problems import Problem

WEB_DIR = Path(__file__).resolve().parents[2] / "web"
"""The client's folder: at the project root beside ``service/`` (an editable install,
the source tree, and the Docker image, which copies it to ``/app/web``)."""

CLIENT_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The client pages' Content-Security-Policy: this origin's files only (no inline
script or style, no eval), connections to this origin only (the API, its streams)."""

MIMETYPES = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".css": "text/css",
    ".svg": "image/svg+xml",
}
"""The suffixes served, and their media types (``nosniff`` makes the type binding)."""

bp = Blueprint("webclient", __name__)


def _files(root: Path) -> dict[str, Path]:
    """Every servable file under ``root`` by its name. URLs are flat (``/web/<name>``,
    no ``/`` inside a name: nothing a client sends can walk the tree), so names are
    unique across the folder's sub-folders (``tests`` check it)."""
    if not root.is_dir():
        return {}
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix in MIMETYPES and not path.is_symlink():
            found.setdefault(path.name, path)
    return found


FILES = _files(WEB_DIR)
"""The allow-list: file name -> file, built once at import."""


def _serve(name: str) -> Response:
    path = FILES.get(name)
    if path is None:
        raise Problem(404, "not_found", "no such file of the web client")
    # Read whole (a few kilobytes each): no file handle outlives the request, and the
    # ETag is the content's own digest, the same in every API process.
    try:
        content = path.read_bytes()
    except OSError:  # removed or unreadable since the start: as if it never was
        raise Problem(404, "not_found", "no such file of the web client") from None
    response = Response(content, mimetype=MIMETYPES[path.suffix])
    response.set_etag(hashlib.sha256(content).hexdigest()[:32])
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = CLIENT_CSP
    response.make_conditional(request)  # in place (304 without a body when current)
    return response


# strict_slashes off: a request in absolute form without a path (``GET http://host``,
# which the server hands on with an empty path) is the root, as RFC 9112 says, and not a
# 308 to "/" outside every error handler.
@bp.get("/", strict_slashes=False)
def index() -> Response:
    """The client's page: the lobby, and every game by the URL's fragment (``#/games/<id>``)."""
    return _serve("index.html")


@bp.get("/web/<name>")
def asset(name: str) -> Response:
    """One of the client's modules, styles or images (``/web/main.js``)."""
    return _serve(name)
