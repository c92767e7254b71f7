"""The HTTP layer of the client: one server, typed errors, and safe retries.

``Transport.request`` answers a 2xx/3xx response or raises the typed error of a
problem answer (:func:`~tabletop_client.errors.error_for`). With ``retry`` it repeats
the identical request -- same headers, so a command's ``Idempotency-Key`` too --
after a network error (backoff doubling) or a 503 (after ``Retry-After``).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import requests

from tabletop_client.errors import Unavailable, error_for

NETWORK_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
)
"""What a retry may cure: no connection, no answer in time, an answer cut off."""


class Transport:
    """One server. ``retries`` bounds the retries of one call after network errors
    and 503s (with ``backoff_s`` doubling, or the server's ``Retry-After`` up to
    ``max_wait_s``); ``timeout`` is each request's connect and read timeout."""

    def __init__(
        self,
        base_url: str,
        *,
        session: requests.Session | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.25,
        max_wait_s: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.timeout = timeout
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s

    def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        retry: bool = True,
        stream: bool = False,
        timeout: float | tuple[float, float] | None = None,
    ) -> requests.Response:
        """One call; the answer if it is 2xx or 304, else the typed error.

        With ``retry``, a network error or a 503 is retried up to ``retries`` times
        with the same headers (so a command's ``Idempotency-Key`` goes again); the
        last failure is raised (``requests.RequestException`` or ``Unavailable``).
        """
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self.session.request(
                    method,
                    self.base_url + path,
                    params=clean,
                    json=body,
                    headers=sent,
                    stream=stream,
                    timeout=timeout or self.timeout,
                )
            except NETWORK_ERRORS:
                if not retry or attempt >= self.retries:
                    raise
                self.pause(attempt, None)
                attempt += 1
                continue
            if response.status_code < 400:
                return response
            error = error_for(response)
            response.close()
            if retry and isinstance(error, Unavailable) and attempt < self.retries:
                self.pause(attempt, error.retry_after)
                attempt += 1
                continue
            raise error

    def pause(self, attempt: int, retry_after: float | None) -> None:
        """Sleep before retry ``attempt`` (0-based): ``retry_after`` if the server
        named it, else the backoff; never longer than ``max_wait_s``."""
        wait = retry_after if retry_after is not None else self.backoff_s * 2**attempt
        time.sleep(min(wait, self.max_wait_s))

    def get_json(self, path: str, **kwargs: Any) -> Any:
        """``GET`` with retries; the parsed JSON body."""
        return self.request("GET", path, **kwargs).json()
