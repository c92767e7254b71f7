"""URL converters: one spelling per value in a path.

Werkzeug's ``int`` converter reads any run of Unicode digits: ``/seats/00``,
``/seats/٠`` (Arabic-Indic zero) and ``/seats/０`` (fullwidth) all named seat 0,
and a 30-digit seat was parsed and echoed back -- while the same values in a query
string are 400 ``invalid_parameter``. A path that names a resource has one spelling;
any other is no path of the API (404 ``not_found``, like any unknown path).
"""

from __future__ import annotations

from werkzeug.routing import IntegerConverter

MAX_SEAT_DIGITS = 9
"""The contract's seat numbers are 0..999,999,999 (``openapi.yaml``)."""


class SeatConverter(IntegerConverter):
    """``<seat:seat>``: ASCII digits without a leading zero, at most nine of them."""

    # [0-9], not \d: Werkzeug compiles rules as Unicode patterns, where \d is any digit.
    regex = rf"(?:0|[1-9][0-9]{{0,{MAX_SEAT_DIGITS - 1}}})"
    part_isolating = True


CONVERTERS = {"seat": SeatConverter}
"""Registered on the app's URL map before any rule is added."""
