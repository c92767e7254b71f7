"""The bench's baseline: a bare Flask endpoint that does one XADD, nothing else.

``POST /bare`` parses the JSON body and appends it to one stream (``<prefix>bench:bare``,
capped) -- the least any command endpoint must do. Served by the same embedded
gunicorn as the API (``tabletop serve --app bench.bare_app:create_app``).
"""

from __future__ import annotations

import json

from flask import Flask, Response, request

from service.bootstrap import redis_client
from service.settings import Settings

STREAM_MAXLEN = 10_000
"""Entries the baseline stream keeps (approximately): it only needs to be written."""


def create_app() -> Flask:
    settings = Settings.from_env()
    client = redis_client(settings.redis_url)
    stream = f"{settings.key_prefix}bench:bare"
    app = Flask(__name__)

    @app.post("/bare")
    def bare() -> Response:
        body = request.get_json()
        entry = client.xadd(stream, {"e": json.dumps(body)}, maxlen=STREAM_MAXLEN, approximate=True)
        return Response(json.dumps({"id": entry.decode()}), mimetype="application/json")

    return app
