"""Who a client is, for limits that must not be dodged by rewording a header.

A client is its verified identity or, without one, its address -- never text of a
header the server has not checked. Creating a game needs no seat token (seat tokens
belong to games), so the only verified identity there is the operator's admin token;
everyone else is ``ip:<address>``. The address is ``request.remote_addr``: the peer,
or -- behind ``TABLETOP_TRUSTED_PROXIES`` reverse proxies -- the address those proxies
put in ``X-Forwarded-For``, resolved by Werkzeug's ``ProxyFix`` that
``service.http.create_app`` installs (the same address the rate limit uses; a
client cannot forge it past a trusted proxy).
"""

from __future__ import annotations

from service.app.errors import Unauthenticated
from service.http import auth


def creator_id() -> str | None:
    """The client creating a game: None for the operator (admin token), else ``ip:<addr>``."""
    try:
        token = auth.bearer_token()
    except Unauthenticated:
        token = None  # a malformed header is no identity (and creation needs none)
    if token is not None and auth.is_admin(token):
        return None
    return client_address()


def client_address() -> str:
    """``ip:`` + the client's address as resolved above, an IPv6 one as its /64
    (``service.http.auth.limited_address``; ``ip:unknown`` if the WSGI server gave none)."""
    return "ip:" + auth.client_address()
